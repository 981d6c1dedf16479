/* Fuzzing descriptor validation and every operation on host memory: from the
 * input, two descriptors (any field may be zero, negative, huge or not a
 * valid enum; pitches of any size) are wrapped on buffers malloc'd to
 * exactly their span, views are taken of them (gm_roi, gm_plane, gm_item at
 * fuzzed places) and an operation runs between them: gm_convert,
 * gm_transform (fuzzed map and parameters), gm_split, gm_merge,
 * gm_blob_from_image, gm_copy, gm_split_planes / gm_merge_planes, gm_upload
 * / gm_download, gm_warp_affine / gm_warp_perspective (fuzzed matrices,
 * one an item or one for all, and gm_warp_params whose enums may be
 * anything), gm_preprocess_batch's warp placement (a fuzzed gm_prep, a
 * matrix and a fuzzed crop an item); sometimes the destination is a view into the source's own
 * buffer. Properties: no sanitizer report (ASan sees any byte outside a
 * buffer); a refusal's message starts with the function's name; no byte
 * outside the destination's rows changes, and a source in its own buffer not
 * at all. Run alone: clang -fsanitize=fuzzer,address,undefined -Iinclude
 * tests/fuzz_desc.c -o fuzz_desc -ldl -lpthread -lm && ./fuzz_desc corpus/
 * (tests/fuzz.sh does it, from tests/corpus/desc/). */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#define FUZZ_NAME "fuzz_desc"
#include "fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPAN (1 << 20)

/* A small value, mostly in [lo, lo + range), else any 64-bit pattern. */
static int64_t field(reader* in, int64_t lo, int64_t range)
{
    uint8_t pick = (uint8_t)take(in, 1);
    if (pick >= 250)
        return (int64_t)take(in, 8);
    return lo + (int64_t)(take(in, 2) % (uint64_t)range);
}

static void fuzz_desc(reader* in, gm_desc* d)
{
    memset(d, 0, sizeof *d);
    d->width = field(in, -1, 24);
    d->height = field(in, -1, 8);
    d->dtype = (gm_dtype)field(in, 0, GM_DTYPE_COUNT + 1);
    d->channels = (int)field(in, 0, 6);
    d->layout = (gm_layout)field(in, 0, 3);
    d->batch = (int)field(in, 0, 4);
    d->pitch = take(in, 1) & 1 ? field(in, 0, 512) : 0;
    d->plane_pitch = take(in, 1) & 1 ? field(in, 0, 4096) : 0;
    d->batch_pitch = take(in, 1) & 1 ? field(in, 0, 16384) : 0;
}

/* A host image: desc wrapped on its own buffer of exactly its span. */
typedef struct image {
    gm_mat m;
    unsigned char* buf;
    int64_t size;
} image;

static int make_image(reader* in, image* im)
{
    gm_desc d;
    int64_t span;
    im->buf = NULL;
    fuzz_desc(in, &d);
    /* the span first, on an address no one reads */
    if (gm_wrap_desc(&im->m, (void*)(uintptr_t)64, &d, GM_HOST) != GM_OK) {
        MUST(!strncmp(gm_last_error(), "gm_wrap_desc: ", 14), "the message does not name it: %s", gm_last_error());
        return 0;
    }
    span = gm_span_bytes(&im->m);
    if (span <= 0 || span > MAX_SPAN)
        return 0;
    im->size = span;
    im->buf = (unsigned char*)malloc((size_t)span);
    if (!im->buf)
        return 0;
    memset(im->buf, 0xa5, (size_t)span);
    MUST(gm_wrap_desc(&im->m, im->buf, &d, GM_HOST) == GM_OK, "accepted on one aligned address, not another: %s",
         gm_last_error());
    return 1;
}

/* Marks in mask (one byte a byte of [base, base + size)) every byte of m's
 * rows: what an operation writing m may change. */
static void mark_rows(const gm_mat* m, const unsigned char* base, unsigned char* mask)
{
    int64_t row = gm_row_bytes(m), b, c, y;
    int planes = m->layout == GM_CHW ? m->channels : 1;
    for (b = 0; b < m->batch; ++b)
        for (c = 0; c < planes; ++c)
            for (y = 0; y < m->height; ++y)
                memset(mask + ((const unsigned char*)m->data - base) + b * m->batch_pitch + c * m->plane_pitch +
                           y * m->pitch,
                       1, (size_t)row);
}

/* A view of im from the input (the whole image, an ROI, a plane or an item). */
static gm_mat view_of(reader* in, const gm_mat* m)
{
    gm_mat v = *m;
    switch (take(in, 1) % 4) {
    case 1: gm_roi(m, &v, field(in, -1, 6), field(in, -1, 4), field(in, 0, 24), field(in, 0, 8)); break;
    case 2: gm_plane(m, &v, (int)field(in, -1, 5)); break;
    case 3: gm_item(m, &v, (int)field(in, -1, 4)); break;
    default: break;
    }
    return v;
}

static double number(reader* in)
{
    static const double specials[] = {0.0, 1.0, -1.0, 0.5, 255.0, 1e300, -1e-300, 1.0 / 0.0, 0.0 / 0.0};
    uint8_t pick = (uint8_t)take(in, 1);
    return pick < 9 ? specials[pick] : (double)(int64_t)take(in, 2) / 64.0;
}

/* The bytes host memory laid out like m with rows host_pitch apart (0:
 * compact) takes, as gm_upload and gm_download read and write it; 0 where
 * that is not a positive size below MAX_SPAN (the call is then skipped: the
 * library has to trust the caller's buffer). */
static int64_t host_bytes(const gm_mat* m, int64_t host_pitch)
{
    int64_t row = gm_row_bytes(m), rows, pitch = host_pitch ? host_pitch : row;
    if (row <= 0 || pitch < row || m->height <= 0 || m->batch <= 0 || m->channels <= 0 || m->height > MAX_SPAN ||
        pitch > MAX_SPAN)
        return 0;
    rows = m->height * m->batch * (m->layout == GM_CHW ? m->channels : 1);
    return rows > MAX_SPAN / pitch ? 0 : (rows - 1) * pitch + row;
}

/* Runs operation op from src to dst (and planes for the plane functions);
 * its name for the message check, or NULL where it did not run. */
static const char* run_op(reader* in, int op, const gm_mat* src, gm_mat* dst, gm_mat* planes, int nplanes,
                          gm_status* s)
{
    int64_t host_pitch = take(in, 1) & 1 ? field(in, 0, 512) : 0, need;
    unsigned char* host;
    gm_xform x = gm_xform_identity();
    double mean[4], std[4];
    int c;
    for (c = 0; c < 4; ++c) {
        x.map[c] = (int)field(in, -2, 6);
        x.pre[c] = number(in);
        x.scale[c] = number(in);
        x.offset[c] = number(in);
        mean[c] = number(in);
        std[c] = number(in);
    }
    switch (op) {
    case 0: *s = gm_convert(src, dst, number(in), number(in), NULL); return "gm_convert";
    case 1: *s = gm_transform(src, dst, &x, NULL); return "gm_transform";
    case 2: *s = gm_split(src, dst, NULL); return "gm_split";
    case 3: *s = gm_merge(src, dst, NULL); return "gm_merge";
    case 4:
        *s = gm_blob_from_image(src, dst, number(in), take(in, 1) & 1 ? mean : NULL, take(in, 1) & 1 ? std : NULL,
                                (int)(take(in, 1) & 1), NULL);
        return "gm_blob_from_image";
    case 5: *s = gm_copy(src, dst, NULL); return "gm_copy";
    case 6: *s = gm_split_planes(src, planes, NULL); return "gm_split_planes";
    case 7: *s = gm_merge_planes(planes, nplanes, dst, NULL); return "gm_merge_planes";
    case 10:
    case 11: {
        /* as many matrices as the destination has items where per_item asks for them (the contract) */
        gm_warp_params p;
        double* M;
        int64_t k, n = 9 * (dst->batch >= 1 && dst->batch <= 64 ? dst->batch : 1);
        memset(&p, 0, sizeof p);
        p.interp = (gm_interp)field(in, -1, 7);
        p.border = (gm_border)field(in, -1, 8);
        for (c = 0; c < 4; ++c)
            p.value[c] = number(in);
        p.inverse = (int)(take(in, 1) & 1);
        p.per_item = (int)(take(in, 1) & 1) && n == 9 * dst->batch;
        p.mode = (gm_warp_mode)field(in, -1, 4);
        if (!(M = (double*)malloc((size_t)n * sizeof *M)))
            return NULL;
        for (k = 0; k < n; ++k)
            M[k] = take(in, 1) & 3 ? (double)field(in, -8, 17) / 4 : number(in);
        *s = op == 10 ? gm_warp_affine(src, dst, M, &p, NULL) : gm_warp_perspective(src, dst, M, &p, NULL);
        free(M);
        return op == 10 ? "gm_warp_affine" : "gm_warp_perspective";
    }
    case 12: {
        /* the warp placement: a matrix and a crop for each of the destination's items (up to 64) */
        gm_prep p;
        gm_mat srcs[64];
        gm_rect crops[64];
        double M[64 * 9];
        const int count = dst->batch >= 1 && dst->batch <= 64 ? (int)dst->batch : 1;
        int k;
        memset(&p, 0, sizeof p);
        p.fit = (gm_fit)(take(in, 1) & 1 ? GM_FIT_WARP : field(in, -1, 6));
        p.interp = (gm_interp)field(in, -1, 7);
        p.border = (gm_border)field(in, -1, 8);
        p.perspective = (int)(take(in, 1) & 1);
        p.inverse = (int)(take(in, 1) & 1);
        p.arith = (gm_blob_arith)field(in, 0, 3);
        p.warp = take(in, 1) % 8 ? M : NULL;
        for (c = 0; c < 4; ++c)
            p.pad[c] = number(in), p.mean[c] = mean[c], p.scale[c] = std[c];
        for (k = 0; k < 64 * 9; ++k)
            M[k] = take(in, 1) & 3 ? (double)field(in, -8, 17) / 4 : number(in);
        for (k = 0; k < count; ++k) {
            srcs[k] = *src;
            crops[k].x = field(in, -1, 8), crops[k].y = field(in, -1, 8);
            crops[k].width = field(in, 0, 24), crops[k].height = field(in, 0, 16);
        }
        *s = gm_preprocess_batch(srcs, take(in, 1) & 1 ? crops : NULL, count, dst, &p, NULL, NULL);
        return "gm_preprocess_batch";
    }
    default:
        need = host_bytes(op == 8 ? dst : src, host_pitch);
        if (!need || !(host = (unsigned char*)malloc((size_t)need)))
            return NULL;
        memset(host, 0x5a, (size_t)need);
        *s = op == 8 ? gm_upload(dst, host, host_pitch, NULL) : gm_download(src, host, host_pitch, NULL);
        free(host);
        return op == 8 ? "gm_upload" : "gm_download";
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    reader in = {data, size};
    image a, b, p[4];
    gm_mat src, dst, planes[4];
    unsigned char *before = NULL, *mask = NULL;
    int op = (int)(take(&in, 1) % 13), shared = (int)(take(&in, 1) % 4 == 0), nplanes = 0, k;
    const char* fn;
    gm_status s;
    memset(p, 0, sizeof p);
    if (!make_image(&in, &a))
        return 0;
    b.buf = NULL;
    if (!shared && !make_image(&in, &b)) {
        free(a.buf);
        return 0;
    }
    src = view_of(&in, &a.m);
    dst = view_of(&in, shared ? &a.m : &b.m); /* shared: the destination lies in the source's buffer */
    if (shared)
        b = a, b.buf = NULL;
    /* up to 4 planes of their own (the others: the source itself, which the
     * plane functions must refuse to write or may read); nplanes for merge */
    nplanes = (int)(take(&in, 1) % 5);
    for (k = 0; k < 4; ++k)
        planes[k] = k < nplanes && make_image(&in, &p[k]) ? p[k].m : src;
    /* the destination's buffer before, and which of its bytes dst may change */
    {
        image* out = shared ? &a : &b;
        before = (unsigned char*)malloc((size_t)out->size);
        mask = (unsigned char*)calloc((size_t)out->size, 1);
        if (before && mask) {
            memcpy(before, out->buf, (size_t)out->size);
            if (dst.width > 0 && dst.data)
                mark_rows(&dst, out->buf, mask);
        }
    }
    fn = run_op(&in, op, &src, &dst, planes, nplanes, &s);
    MUST(!fn || s == GM_OK || (!strncmp(gm_last_error(), fn, strlen(fn)) && !strncmp(gm_last_error() + strlen(fn), ": ", 2)),
         "%s failed with a message not naming it: %s", fn, gm_last_error());
    if (fn && before && mask) {
        image* out = shared ? &a : &b;
        int writes_dst = op != 6 && op != 9; /* split_planes and download write elsewhere */
        int64_t i;
        for (i = 0; i < out->size; ++i)
            MUST(out->buf[i] == before[i] || (writes_dst && s == GM_OK && mask[i]),
                 "%s (status %d) changed byte %lld outside the destination", fn, (int)s, (long long)i);
    }
    free(before);
    free(mask);
    free(a.buf);
    free(b.buf);
    for (k = 0; k < 4; ++k)
        free(p[k].buf);
    return 0;
}
