/* fuzz_cai: libFuzzer harness for gm_cai_describe. Every field of a gm_mat
 * comes from the input (any width, height, channels, batch, pitches, dtype,
 * layout, where and device; data a fake pointer, never dereferenced, or
 * NULL), as do read_only and whether m or out is NULL. The call must not
 * crash or trip a sanitizer; it says GM_OK exactly when the descriptor
 * passes the library's own checks (gm__check, and gm_roi of the whole image,
 * which must agree) and is GPU-accessible and not bf16, else it fails with
 * the documented status and a message starting with "gm_cai_describe: ";
 * on GM_OK the shape, byte strides (checked at every corner against
 * gm_mat's element formula, and spanning gm_span_bytes), typestr, data,
 * read_only and version describe m. Alone:
 *   clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror \
 *       -Iinclude tests/fuzz_cai.c -o build/fuzz_cai -ldl -lpthread -lm
 *   cp -r tests/corpus/cai /tmp/cai && ./build/fuzz_cai -max_total_time=60 /tmp/cai
 * (or FUZZ_SECONDS=60 sh tests/fuzz.sh build for every harness). */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#define FUZZ_NAME "fuzz_cai"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* numpy's typestr of each gm_dtype but bf16, written out independently of the library. */
static const char* const typestrs[GM_BF16] = {"|u1", "|i1", "<u2", "<i2", "<i4", "<f4", "<f8", "<f2"};

/* Properties of a GM_OK description out of checked m. */
static void check_described(const gm_mat* m, int read_only, const gm_cai* out)
{
    int ndim = 3 + (m->batch > 1), n = m->batch > 1 ? 0 : -1, c, h, i, corner;
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    uint64_t far = 0;
    if (m->layout == GM_HWC)
        h = ndim - 3, c = ndim - 1;
    else
        c = ndim - 3, h = ndim - 2;
    MUST(out->ndim == ndim && out->shape[h] == m->height && out->shape[h + 1] == m->width &&
             out->shape[c] == m->channels && (n < 0 || out->shape[n] == m->batch),
         "ndim %d for %lldx%lld x%d batch %d", (int)out->ndim, (long long)m->width, (long long)m->height,
         (int)m->channels, (int)m->batch);
    MUST(!strcmp(out->typestr, typestrs[m->dtype]), "typestr \"%.4s\" for %s", out->typestr,
         gm_dtype_name(m->dtype));
    MUST(out->data == (uintptr_t)m->data && out->read_only == (read_only != 0) && out->version == 3,
         "data %p read_only %d version %d", (void*)out->data, (int)out->read_only, (int)out->version);
    for (i = 0; i < ndim; ++i) {
        MUST(out->strides[i] >= 0 && out->strides[i] % es == 0, "strides[%d] %lld", i, (long long)out->strides[i]);
        far += (uint64_t)(out->shape[i] - 1) * (uint64_t)out->strides[i];
    }
    MUST(far + (uint64_t)es == (uint64_t)gm_span_bytes(m), "the strides span %llu bytes, m %lld",
         (unsigned long long)(far + (uint64_t)es), (long long)gm_span_bytes(m));
    for (corner = 0; corner < 1 << ndim; ++corner) {
        uint64_t idx[4], want = 0;
        for (i = 0; i < ndim; ++i) {
            idx[i] = corner >> i & 1 ? (uint64_t)out->shape[i] - 1 : 0;
            want += idx[i] * (uint64_t)out->strides[i];
        }
        MUST(mat_offset(m, n < 0 ? 0 : idx[n], idx[h], idx[h + 1], idx[c]) == want,
             "corner %d is at %llu by the strides but elsewhere in m (layout %d)", corner, (unsigned long long)want,
             (int)m->layout);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const char fn[] = "gm_cai_describe";
    reader r;
    gm_mat m, view;
    gm_cai out;
    gm_status s, check, roi;
    unsigned opts;
    int read_only;
    char e[512];
    r.p = data;
    r.n = size;
    opts = (unsigned)take(&r, 1); /* 1: m NULL, 2: out NULL */
    read_only = (int)take(&r, 4);
    m.data = (void*)(uintptr_t)take(&r, 8);
    m.width = (int64_t)take(&r, 8);
    m.height = (int64_t)take(&r, 8);
    m.channels = (int32_t)take(&r, 4);
    m.batch = (int32_t)take(&r, 4);
    m.dtype = (gm_dtype)take(&r, 4);
    m.layout = (gm_layout)take(&r, 4);
    m.pitch = (int64_t)take(&r, 8);
    m.plane_pitch = (int64_t)take(&r, 8);
    m.batch_pitch = (int64_t)take(&r, 8);
    m.where = (gm_where)take(&r, 4);
    m.device = (int32_t)take(&r, 4);
    m.owned = (void*)(uintptr_t)take(&r, 8);
    s = gm_cai_describe(opts & 1 ? NULL : &m, read_only, opts & 2 ? NULL : &out);
    snprintf(e, sizeof e, "%s", gm_last_error());
    MUST(s == GM_OK || (!strncmp(e, fn, sizeof fn - 1) && e[sizeof fn - 1] == ':' && e[sizeof fn] == ' '),
         "refused (%s) with \"%s\"", gm_status_string(s), e);
    check = gm__check("fuzz_cai", "m", opts & 1 ? NULL : &m);
    roi = opts & 1 ? check : gm_roi(&m, &view, 0, 0, m.width, m.height);
    MUST((check == GM_OK) == (roi == GM_OK), "gm__check says %s, gm_roi of the whole image %s",
         gm_status_string(check), gm_status_string(roi));
    if (opts & 2)
        MUST(s == GM_ERR_ARG, "out NULL: %s", gm_status_string(s));
    else if (check != GM_OK)
        MUST(s == check, "a descriptor gm__check refuses (%s): %s", gm_status_string(check), gm_status_string(s));
    else if (m.where == GM_HOST)
        MUST(s == GM_ERR_LOCATION, "pageable host memory: %s", gm_status_string(s));
    else if (m.dtype == GM_BF16)
        MUST(s == GM_ERR_TYPE, "bf16: %s", gm_status_string(s));
    else {
        MUST(s == GM_OK, "a valid descriptor refused: %s", e);
        check_described(&m, read_only, &out);
    }
    return 0;
}
