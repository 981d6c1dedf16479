/* SPDX-License-Identifier: MIT */
/* Implementation: gpumat/draw.h. */
#include <limits.h>
#include <stdlib.h>


/* A fill is a transform whose every channel is a constant: it reads no
 * source, so dst stands in for one (the kernel of dtype -> dtype). Each
 * value is stored once here as setTo stores it and read back; that stored
 * value is exact in float and in double, so the constant path, whichever of
 * the two it works in, writes it unchanged. */
static gm_status gm__fill_ops(const gm_mat* dst, const double* value, gm__ops* d)
{
    static const char fn[] = "gm_fill";
    gm_xform x = gm_xform_identity();
    gm__side side;
    unsigned char stored[8];
    int c;
    gm_status s;
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (!value)
        return gm__fail(GM_ERR_ARG, "%s: value is NULL", fn);
    for (c = 0; c < dst->channels; ++c) {
        gm__encode_d(dst->dtype, stored, value[c]);
        x.map[c] = GM_CONST;
        x.offset[c] = gm__decode_d(dst->dtype, stored);
    }
    side = gm__side_of(dst);
    d->op[d->n++] = gm__op_of(fn, &side, &side, dst, &x);
    return GM_OK;
}

GM_API gm_status gm_fill(gm_mat* dst, const double* value, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__fill_ops(dst, value, &d), &d, stream);
}

/* One draw's buffers: a pinned staging buffer and the device buffer it is
 * uploaded to, alike in size, and the event recorded after the draw. */
typedef struct gm__overlay_slot {
    void* staging;
    gm__CUdeviceptr scratch;
    size_t size;
    gm__CUevent done; /* 0 before the slot's first draw */
} gm__overlay_slot;

/* A visible sprite of one draw: its index, the frame pixels [r0, r2) x
 * [r1, r3) it covers, whether it is in host memory, and for a host sprite
 * where its rows go in the staging buffer; row: the host sprites' rows
 * before its own. */
typedef struct gm__overlay_visible {
    int64_t r[4];
    int index, host;
    size_t at;
    long long row;
} gm__overlay_visible;

/* Two slots, taken in turn, so that a draw stages its sprites while the
 * GPU still runs the one before it. */
struct gm_overlay {
    gm__overlay_slot slot[2];
    int turn;
    uint64_t ctx_key;            /* the slots' context (gm__ctx_key): the first draw's */
    gm__overlay_visible* seen;   /* the draw's visible sprites */
    size_t seen_size;
    int* per_tile;               /* sprites over each frame tile; all 0 between draws */
    size_t per_tile_size;
};

GM_API gm_status gm_overlay_create(gm_overlay** overlay)
{
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "gm_overlay_create: overlay is NULL");
    *overlay = (gm_overlay*)GM_MALLOC(sizeof **overlay);
    if (!*overlay)
        return gm__fail(GM_ERR_NO_MEMORY, "gm_overlay_create: malloc failed");
    memset(*overlay, 0, sizeof **overlay);
    return GM_OK;
}

GM_API void gm_overlay_destroy(gm_overlay* overlay)
{
    int i;
    if (!overlay)
        return;
    for (i = 0; i < 2; ++i) {
        gm__overlay_slot* sl = &overlay->slot[i];
        if (sl->done) {
            gm__cu.cuEventSynchronize(sl->done); /* the buffers may still be in use */
            gm__cu.cuEventDestroy(sl->done);
        }
        if (sl->staging)
            gm__cu.cuMemFreeHost(sl->staging);
        if (sl->scratch)
            gm__cu.cuMemFree(sl->scratch);
    }
    GM_FREE(overlay->seen);
    GM_FREE(overlay->per_tile);
    GM_FREE(overlay);
}

/* The pixels [x0, x1) x [y0, y1) of a width x height frame that a sprite
 * at (x, y) covers, 0 where it covers none (the sums cannot overflow: x <
 * width first). */
static int gm__sprite_clip(int64_t width, int64_t height, const gm_sprite* s, int64_t r[4])
{
    if (s->x >= width || s->y >= height || s->x <= -s->image.width || s->y <= -s->image.height)
        return 0;
    r[0] = s->x < 0 ? 0 : s->x;
    r[1] = s->y < 0 ? 0 : s->y;
    r[2] = s->x + s->image.width < width ? s->x + s->image.width : width;
    r[3] = s->y + s->image.height < height ? s->y + s->image.height : height;
    return 1;
}

/* Bytes of a sprite's pixel. */
static int gm__sprite_bytes(const gm_sprite* s) { return s->kind == GM_SPRITE_MASK ? 1 : 4; }

/* Sprite i of a draw onto the frame of planes[0 .. nplanes) (one memory);
 * name: its image in messages. */
static gm_status gm__sprite_check(const char* fn, int i, const char* name, const gm_mat* planes, int nplanes,
                                  const gm_sprite* sp)
{
    const gm_mat* frame = &planes[0];
    int k;
    gm_status s;
    if ((int)sp->kind < GM_SPRITE_RGBA || (int)sp->kind > GM_SPRITE_MASK)
        return gm__fail(GM_ERR_ARG, "%s: sprites[%d].kind %d is not a gm_sprite_kind", fn, i, (int)sp->kind);
    if ((s = gm__check(fn, name, &sp->image)) != GM_OK)
        return s;
    if (sp->image.dtype != GM_U8 || sp->image.channels != gm__sprite_bytes(sp) || sp->image.batch != 1)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d, batch %d; one u8 x%d image expected for its kind", fn, name,
                        gm_dtype_name(sp->image.dtype), (int)sp->image.channels, (int)sp->image.batch,
                        gm__sprite_bytes(sp));
    if (gm__on_host(frame) && !gm__on_host(&sp->image))
        return gm__fail(GM_ERR_LOCATION, "%s: %s is device memory but frame is host memory", fn, name);
    if (!gm__on_host(&sp->image) && sp->image.device != frame->device)
        return gm__fail(GM_ERR_LOCATION, "%s: %s is on device %d, frame on device %d", fn, name,
                        (int)sp->image.device, (int)frame->device);
    for (k = 0; k < nplanes; ++k)
        if (gm__overlap(&sp->image, &planes[k]))
            return gm__fail(GM_ERR_OVERLAP, "%s: %s and frame overlap", fn, name);
    return GM_OK;
}

/* What every draw needs of its sprites, onto the frame of planes[0 ..
 * nplanes) (checked; the first of its size in pixels): batch is the
 * frame's batch, named so in messages. */
static gm_status gm__overlay_check(const char* fn, const char* batch, const gm_mat* planes, int nplanes,
                                   const gm_sprite* sprites, int count)
{
    char name[48];
    int i;
    if (planes[0].batch != 1)
        return gm__fail(GM_ERR_ARG, "%s: %s is %d; one image expected (gm_item takes one)", fn, batch,
                        (int)planes[0].batch);
    if (planes[0].width > INT_MAX - GM__OVERLAY_TILE_W || planes[0].height > INT_MAX - GM__OVERLAY_TILE_H)
        return gm__fail(GM_ERR_SIZE, "%s: frame is %lldx%lld; at most 2^31 - 65 pixels wide, 2^31 - 9 high", fn,
                        (long long)planes[0].width, (long long)planes[0].height);
    if (count < 0 || (count > 0 && !sprites))
        return gm__fail(GM_ERR_ARG, count < 0 ? "%s: count %d is negative" : "%s: sprites is NULL (count %d)", fn,
                        count);
    /* a sprite's name is formatted only where it fails (as gm__check's) */
    for (i = 0; i < count; ++i)
        if (gm__sprite_check(fn, i, "sprite", planes, nplanes, &sprites[i]) != GM_OK) {
            snprintf(name, sizeof name, "sprites[%d].image", i);
            return gm__sprite_check(fn, i, name, planes, nplanes, &sprites[i]);
        }
    return GM_OK;
}

/* The CPU path's loops: a clipped sprite's rows in runs of
 * GM__OVERLAY_RUN pixels through arrays in the first-level cache, each
 * step a loop of constant count over a run (the lanes past the row compute
 * on stale values and are not stored), which the compiler vectorises; the
 * sprite's kind K and the frame's channels C are constants, so that no
 * branch is left in them. The arithmetic is the kernel's (overlay.inc). */
enum { GM__OVERLAY_RUN = 4 * GM__CPU_BLOCK };

/* Sprite s, clipped to frame pixels r, over the interleaved frame (a: its
 * order and alpha), as gm__overlay_pixel blends each pixel: the frame's
 * channels and the sprite's apart, each colour channel of the frame under
 * the sprite's of the frame's order, then alpha where composed. The movers
 * take blocks of GM__CPU_BLOCK: most of a sprite's runs are shorter than a
 * row's. The frame's pointers come from its gm_mat, not from a's integers:
 * a pointer made from an integer may point anywhere, the arrays here too,
 * and the compiler would not vectorise the movers. */
static GM__ALWAYS_INLINE void gm__overlay_rows(const gm_mat* frame, const gm__overlay_args* a, const gm_sprite* s,
                                               const int64_t* r, int C, int K)
{
    enum { N = GM__OVERLAY_RUN, B = GM__CPU_BLOCK };
    const long long n = r[2] - r[0], bytes = K == 2 ? 1 : 4;
    const int rgb = a->rgb, over = C == 4 && a->over;
    const unsigned col[3] = {s->color[rgb ? 0 : 2], s->color[1], s->color[rgb ? 2 : 0]}, ca = s->color[3];
    unsigned char f[4][N], p[4][N], alpha[N];
    const unsigned char* const in[3] = {p[rgb ? 0 : 2], p[1], p[rgb ? 2 : 0]};
    const unsigned char* const A = K == 2 ? alpha : p[3];
    long long y, x0, m;
    int c, k;
    memset(f, 0, sizeof f);
    memset(p, 0, sizeof p);
    for (y = r[1]; y < r[3]; ++y)
        for (x0 = 0; x0 < n; x0 += N) {
            unsigned char* d = (unsigned char*)frame->data + y * frame->pitch + (r[0] + x0) * C;
            const unsigned char* q =
                (const unsigned char*)s->image.data + (y - s->y) * s->image.pitch + (r[0] + x0 - s->x) * bytes;
            m = n - x0 < (long long)N ? n - x0 : (long long)N;
            gm__cpu_unzip(B, 1, C, d, f[0], f[1], f[2], f[3], m);
            if (K == 2) {
                memcpy(p[0], q, (size_t)m);
                for (k = 0; k < N; ++k)
                    alpha[k] = (unsigned char)gm__div255(p[0][k] * ca);
            } else
                gm__cpu_unzip(B, 1, 4, q, p[0], p[1], p[2], p[3], m);
            for (c = 0; c < 3; ++c)
                for (k = 0; k < N; ++k)
                    f[c][k] = (unsigned char)gm__overlay_blend(K == 1, K == 2 ? col[c] : in[c][k], A[k], f[c][k]);
            if (over)
                for (k = 0; k < N; ++k)
                    f[3][k] = (unsigned char)gm__overlay_alpha(A[k], f[3][k]);
            gm__cpu_zip(B, 1, C, f[0], f[1], f[2], f[3], d, m);
        }
}

/* Sprite s, clipped to frame pixels r, over the 4:2:0 frame of planes y,
 * u and v (a: its constants), as gm__overlay_block blends each 2x2 block
 * it touches, a pair of rows and a run of blocks at a time: each row's
 * luma under the sprite's row, the block's weights and alphas summed down
 * its columns, then across them for its chroma. A pixel of the run that
 * the sprite does not cover (the first or the last, at an odd edge) is
 * taken as coverage or colour and alpha 0: it weighs 0 and keeps its luma,
 * as gm__overlay_block leaves it out. */
static GM__ALWAYS_INLINE void gm__overlay_yuv_rows(const gm_mat* planes, const gm__overlay_args* a, const gm_sprite* s,
                                                   const int64_t* r, int K)
{
    enum { N = GM__OVERLAY_RUN, B = GM__CPU_BLOCK };
    const gm__yuv_args* g = &a->planes;
    const int fy[3] = {g->fy[0], g->fy[1], g->fy[2]}, fu[3] = {g->fu[0], g->fu[1], g->fu[2]};
    const int fv[3] = {g->fv[0], g->fv[1], g->fv[2]}, yoff = g->yoff;
    const long long x1 = (r[2] + 1) & ~1LL, bytes = K == 2 ? 1 : 4, step = g->step;
    const int nv21 = g->u == g->v + 1; /* V first in a pair */
    const unsigned char color[4] = {s->color[0], s->color[1], s->color[2], s->color[3]};
    unsigned char p[4][N], l[N], uv[2][N / 2];
    int wu[N], wv[N], alphas[N];
    long long y, x, m, c0, c1;
    int i, c, k;
    memset(p, 0, sizeof p);
    memset(l, 0, sizeof l);
    memset(uv, 0, sizeof uv);
    for (y = r[1] & ~1LL; y < r[3]; y += 2)
        for (x = r[0] & ~1LL; x < x1; x += N) {
            unsigned char* u = (unsigned char*)planes[1].data + y / 2 * planes[1].pitch + x / 2 * step;
            unsigned char* v = step == 2 ? u : (unsigned char*)planes[2].data + y / 2 * planes[2].pitch + x / 2;
            m = x1 - x < (long long)N ? x1 - x : (long long)N;
            c0 = r[0] > x ? r[0] - x : 0; /* the pixels [c0, c1) of the run that the sprite covers */
            c1 = r[2] - x < m ? r[2] - x : m;
            memset(wu, 0, sizeof wu), memset(wv, 0, sizeof wv), memset(alphas, 0, sizeof alphas);
            for (i = 0; i < 2; ++i) {
                unsigned char* luma = (unsigned char*)planes[0].data + (y + i) * planes[0].pitch + x;
                const unsigned char* q;
                if (y + i < r[1] || y + i >= r[3])
                    continue;
                q = (const unsigned char*)s->image.data + (y + i - s->y) * s->image.pitch + (x + c0 - s->x) * bytes;
                for (c = 0; c < bytes; ++c)
                    memset(p[c], 0, (size_t)c0), memset(p[c] + c1, 0, (size_t)(m - c1));
                if (K == 2)
                    memcpy(p[0] + c0, q, (size_t)(c1 - c0));
                else
                    gm__cpu_unzip(B, 1, 4, q, p[0] + c0, p[1] + c0, p[2] + c0, p[3] + c0, c1 - c0);
                memcpy(l, luma, (size_t)m);
                for (k = 0; k < N; ++k) {
                    unsigned char px[4];
                    unsigned rgba[4];
                    int n;
                    px[0] = p[0][k], px[1] = p[1][k], px[2] = p[2][k], px[3] = p[3][k];
                    gm__sprite_rgba(K, px, color, rgba);
                    n = (gm__overlay_weight(fy, yoff, K == 1, rgba) + l[k] * (255 - (int)rgba[3]) + 127) / 255;
                    l[k] = (unsigned char)(n < 255 ? n : 255);
                    wu[k] += gm__overlay_weight(fu, 128, K == 1, rgba);
                    wv[k] += gm__overlay_weight(fv, 128, K == 1, rgba);
                    alphas[k] += (int)rgba[3];
                }
                memcpy(luma, l, (size_t)m);
            }
            if (step == 2)
                gm__cpu_unzip(B, 1, 2, u, uv[nv21], uv[!nv21], NULL, NULL, m / 2);
            else
                memcpy(uv[0], u, (size_t)(m / 2)), memcpy(uv[1], v, (size_t)(m / 2));
            for (k = 0; k < N / 2; ++k) {
                const int al = alphas[2 * k] + alphas[2 * k + 1];
                uv[0][k] = gm__overlay_chroma(wu[2 * k] + wu[2 * k + 1], uv[0][k], al);
                uv[1][k] = gm__overlay_chroma(wv[2 * k] + wv[2 * k + 1], uv[1][k], al);
            }
            if (step == 2)
                gm__cpu_zip(B, 1, 2, uv[nv21], uv[!nv21], NULL, NULL, u, m / 2);
            else
                memcpy(u, uv[0], (size_t)(m / 2)), memcpy(v, uv[1], (size_t)(m / 2));
        }
}

/* The loops by the frame (0 x3, 1 x4, 2 4:2:0) and the sprite's kind, each
 * for the baseline and for AVX2 (taken as gm__cpu_isa says). */
typedef void (*gm__overlay_rows_fn)(const gm_mat*, const gm__overlay_args*, const gm_sprite*, const int64_t*);
#define GM__OVERLAY_ROWS_DEF(name, attr, call)                                                               \
    static attr void name(const gm_mat* planes, const gm__overlay_args* a, const gm_sprite* s, const int64_t* r) \
    {                                                                                                        \
        call;                                                                                                \
    }
#ifdef GM__CPU_AVX2
#define GM__OVERLAY_ROWS(name, call) \
    GM__OVERLAY_ROWS_DEF(name, , call) GM__OVERLAY_ROWS_DEF(name##_avx2, GM__CPU_AVX2, call)
#else
#define GM__OVERLAY_ROWS(name, call) GM__OVERLAY_ROWS_DEF(name, , call)
#endif
#define GM__OVERLAY_ISAS(name) {name GM__CPU_AVX2_ENTRY(name)}
GM__OVERLAY_ROWS(gm__overlay_x3_rgba, gm__overlay_rows(planes, a, s, r, 3, 0))
GM__OVERLAY_ROWS(gm__overlay_x3_premul, gm__overlay_rows(planes, a, s, r, 3, 1))
GM__OVERLAY_ROWS(gm__overlay_x3_mask, gm__overlay_rows(planes, a, s, r, 3, 2))
GM__OVERLAY_ROWS(gm__overlay_x4_rgba, gm__overlay_rows(planes, a, s, r, 4, 0))
GM__OVERLAY_ROWS(gm__overlay_x4_premul, gm__overlay_rows(planes, a, s, r, 4, 1))
GM__OVERLAY_ROWS(gm__overlay_x4_mask, gm__overlay_rows(planes, a, s, r, 4, 2))
GM__OVERLAY_ROWS(gm__overlay_yuv_rgba, gm__overlay_yuv_rows(planes, a, s, r, 0))
GM__OVERLAY_ROWS(gm__overlay_yuv_premul, gm__overlay_yuv_rows(planes, a, s, r, 1))
GM__OVERLAY_ROWS(gm__overlay_yuv_mask, gm__overlay_yuv_rows(planes, a, s, r, 2))
static const gm__overlay_rows_fn gm__overlay_rows_fns[3][3][GM__CPU_ISAS] = {
    {GM__OVERLAY_ISAS(gm__overlay_x3_rgba), GM__OVERLAY_ISAS(gm__overlay_x3_premul),
     GM__OVERLAY_ISAS(gm__overlay_x3_mask)},
    {GM__OVERLAY_ISAS(gm__overlay_x4_rgba), GM__OVERLAY_ISAS(gm__overlay_x4_premul),
     GM__OVERLAY_ISAS(gm__overlay_x4_mask)},
    {GM__OVERLAY_ISAS(gm__overlay_yuv_rgba), GM__OVERLAY_ISAS(gm__overlay_yuv_premul),
     GM__OVERLAY_ISAS(gm__overlay_yuv_mask)}};

/* The CPU path over the frame of planes (a 4:2:0 one's y, u and v), a's:
 * each sprite in turn. */
static void gm__overlay_host(const gm_mat* planes, const gm__overlay_args* a, const gm_sprite* sprites, int count)
{
    const int family = a->yuv ? 2 : a->channels == 4, isa = gm__cpu_isa();
    int64_t r[4];
    int i;
    for (i = 0; i < count; ++i)
        if (gm__sprite_clip(planes[0].width, planes[0].height, &sprites[i], r))
            gm__overlay_rows_fns[family][sprites[i].kind][isa](planes, a, &sprites[i], r);
}

/* Tiles of size pixels that pixels [a0, a1) of one axis touch: [*t0, *t1]. */
static void gm__tile_span(int64_t a0, int64_t a1, int size, long long* t0, long long* t1)
{
    *t0 = a0 / size;
    *t1 = (a1 - 1) / size;
}

static size_t gm__align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Grows *buffer (*size bytes) to at least need bytes, all 0. */
static gm_status gm__overlay_reserve(const char* fn, void** buffer, size_t* size, size_t need)
{
    void* grown;
    if (need <= *size)
        return GM_OK;
    if (!(grown = GM_MALLOC(need)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %zu bytes failed", fn, need);
    memset(grown, 0, need);
    GM_FREE(*buffer);
    *buffer = grown;
    *size = need;
    return GM_OK;
}

/* Grows a slot's buffers (alike) to at least need bytes, half as much again
 * so that a few growing draws settle; its last draw has run. */
static gm_status gm__overlay_grow(const char* fn, gm__overlay_slot* sl, size_t need)
{
    int rc;
    if (need <= sl->size)
        return GM_OK;
    need += need / 2;
    if (sl->staging)
        gm__cu.cuMemFreeHost(sl->staging);
    if (sl->scratch)
        gm__cu.cuMemFree(sl->scratch);
    sl->staging = NULL;
    sl->scratch = 0;
    sl->size = 0;
    if ((rc = gm__cu.cuMemHostAlloc(&sl->staging, need, 0)) != 0)
        return gm__cuda_fail(fn, "cuMemHostAlloc", rc);
    if ((rc = gm__cu.cuMemAlloc(&sl->scratch, need)) != 0) {
        gm__cu.cuMemFreeHost(sl->staging);
        sl->staging = NULL;
        return gm__cuda_fail(fn, "cuMemAlloc", rc);
    }
    sl->size = need;
    return GM_OK;
}

/* Copying the host sprites' visible rows into the staging buffer, in
 * parts of rows for the pool's threads. A sprite whose visible rows are
 * one run of its memory (whole rows, no padding) is copied by stream,
 * past the caches: the DMA engine reads the buffer, not the CPU. */
typedef struct gm__overlay_staging {
    const gm__overlay_visible* seen;
    int count; /* seen[0 .. count) */
    const gm_sprite* sprites;
    unsigned char* staged;
    gm__cpu_stream_fn stream;
} gm__overlay_staging;

static void gm__overlay_stage_part(void* job, long long begin, long long end)
{
    const gm__overlay_staging* j = (const gm__overlay_staging*)job;
    int lo = 0, hi = j->count - 1, mid;
    /* the last sprite whose first row is at most begin (rows never decrease) */
    while (lo < hi) {
        mid = (lo + hi + 1) / 2;
        if (j->seen[mid].row <= begin)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (; lo < j->count && begin < end; ++lo) {
        const gm__overlay_visible* v = &j->seen[lo];
        const gm_sprite* sp = &j->sprites[v->index];
        const long long bytes = gm__sprite_bytes(sp), width = (v->r[2] - v->r[0]) * bytes,
                        y0 = begin - v->row, y1 = y0 + (end - begin) < v->r[3] - v->r[1] ? y0 + (end - begin)
                                                                                             : v->r[3] - v->r[1];
        const unsigned char* from =
            (const unsigned char*)sp->image.data + (v->r[1] - sp->y) * sp->image.pitch + (v->r[0] - sp->x) * bytes;
        unsigned char* to = j->staged + v->at;
        long long y;
        if (!v->host || y0 >= y1)
            continue;
        if (sp->image.pitch == width)
            j->stream(to + y0 * width, from + y0 * width, (y1 - y0) * width);
        else
            for (y = y0; y < y1; ++y)
                memcpy(to + y * width, from + y * sp->image.pitch, (size_t)width);
        begin += y1 - y0;
    }
    gm__cpu_fence();
}

/* The GPU path: the visible sprites clipped once and sorted into frame
 * tiles on the host (a counting sort, which keeps their order); the tables
 * and the host sprites' visible rows staged and uploaded in one copy; one
 * launch; the event that the draw after next, which reuses the slot, waits
 * for. The staging buffer holds entries | tiles | order | rows. frame: the
 * frame's plane of its size in pixels (its device), a: the launch's
 * arguments of the frame, the tables' left to fill; block: the threads of
 * a tile. */
static gm_status gm__overlay_device(const char* fn, gm_overlay* o, const gm_mat* frame, gm__overlay_args* a,
                                    const unsigned* block, const gm_sprite* sprites, int count, gm_stream stream)
{
    const long long across = (frame->width + GM__OVERLAY_TILE_W - 1) / GM__OVERLAY_TILE_W,
                    down = (frame->height + GM__OVERLAY_TILE_H - 1) / GM__OVERLAY_TILE_H;
    gm__overlay_slot* sl = &o->slot[o->turn];
    gm__overlay_staging job;
    gm__CUcontext ctx;
    uint64_t key;
    gm__sprite_entry* entries;
    gm__overlay_tile* tiles;
    gm__overlay_visible* seen;
    gm__memcpy2d copy;
    unsigned grid[3];
    size_t pairs = 0, rows_at, at, total;
    long long tx0, tx1, ty0, ty1, tx, ty, t, ntiles = 0, host_rows = 0, host_rows_bytes = 0;
    int dev, rc, i, nseen = 0, *per_tile, *order;
    unsigned char* staged;
    gm_status s;
    if ((s = gm__context_key(fn, (int)frame->device, &ctx, &dev, &key)) != GM_OK)
        return s;
    if (o->ctx_key && o->ctx_key != key)
        return gm__fail(GM_ERR_LOCATION, "%s: overlay holds buffers of another CUDA context (one overlay a context)",
                        fn);
    if ((s = gm__overlay_reserve(fn, (void**)&o->seen, &o->seen_size, (size_t)count * sizeof *seen)) != GM_OK ||
        (s = gm__overlay_reserve(fn, (void**)&o->per_tile, &o->per_tile_size,
                                 (size_t)(across * down) * sizeof *per_tile)) != GM_OK)
        return s;
    seen = o->seen;
    per_tile = o->per_tile;
    for (i = 0; i < count; ++i) {
        gm__overlay_visible* v = &seen[nseen];
        if (!gm__sprite_clip(frame->width, frame->height, &sprites[i], v->r))
            continue;
        ++nseen;
        v->index = i;
        v->host = gm__on_host(&sprites[i].image);
        v->row = host_rows;
        gm__tile_span(v->r[0], v->r[2], GM__OVERLAY_TILE_W, &tx0, &tx1);
        gm__tile_span(v->r[1], v->r[3], GM__OVERLAY_TILE_H, &ty0, &ty1);
        pairs += (size_t)((tx1 - tx0 + 1) * (ty1 - ty0 + 1));
        for (ty = ty0; ty <= ty1; ++ty)
            for (tx = tx0; tx <= tx1; ++tx)
                ntiles += per_tile[ty * across + tx]++ == 0;
        if (v->host) {
            v->at = (size_t)host_rows_bytes;
            host_rows += v->r[3] - v->r[1];
            host_rows_bytes += (long long)gm__align16((size_t)((v->r[2] - v->r[0]) * (v->r[3] - v->r[1])) *
                                                      (size_t)gm__sprite_bytes(&sprites[i]));
        }
    }
    if (!nseen)
        return GM_OK;
    rows_at = gm__align16((size_t)nseen * sizeof *entries) + gm__align16((size_t)ntiles * sizeof *tiles) +
              gm__align16(pairs * sizeof *order);
    total = rows_at + (size_t)host_rows_bytes;
    if (pairs > INT_MAX)
        s = gm__fail(GM_ERR_SIZE, "%s: the sprites cover %zu frame tiles; at most 2^31 - 1", fn, pairs);
    if (s == GM_OK && sl->done && (rc = gm__cu.cuEventSynchronize(sl->done)) != 0)
        s = gm__cuda_fail(fn, "cuEventSynchronize", rc);
    if (s == GM_OK && !sl->done && (rc = gm__cu.cuEventCreate(&sl->done, 2 /* CU_EVENT_DISABLE_TIMING */)) != 0) {
        sl->done = 0;
        s = gm__cuda_fail(fn, "cuEventCreate", rc);
    }
    if (s == GM_OK)
        o->ctx_key = key;
    if (s == GM_OK)
        s = gm__overlay_grow(fn, sl, total);
    if (s != GM_OK) {
        memset(per_tile, 0, (size_t)(across * down) * sizeof *per_tile);
        return s;
    }
    staged = (unsigned char*)sl->staging;
    entries = (gm__sprite_entry*)staged;
    tiles = (gm__overlay_tile*)(staged + gm__align16((size_t)nseen * sizeof *entries));
    order = (int*)((unsigned char*)tiles + gm__align16((size_t)ntiles * sizeof *tiles));
    /* the tiles in frame order, each with the place of its first sprite;
     * per_tile becomes where the next sprite of the tile goes */
    for (t = 0, ntiles = 0, at = 0; t < across * down; ++t)
        if (per_tile[t]) {
            tiles[ntiles].x = (int)(t % across);
            tiles[ntiles].y = (int)(t / across);
            tiles[ntiles].first = (int)at;
            tiles[ntiles++].count = per_tile[t];
            at += (size_t)per_tile[t];
            per_tile[t] = tiles[ntiles - 1].first;
        }
    for (i = 0; i < nseen; ++i) {
        const gm__overlay_visible* v = &seen[i];
        const gm_sprite* sp = &sprites[v->index];
        gm__sprite_entry* e = &entries[i];
        const int bytes = gm__sprite_bytes(sp);
        memset(e, 0, sizeof *e);
        e->x0 = (int)v->r[0], e->y0 = (int)v->r[1], e->x1 = (int)v->r[2], e->y1 = (int)v->r[3];
        e->kind = (int)sp->kind;
        memcpy(e->color, sp->color, 4);
        if (!v->host) {
            e->data = (unsigned long long)(uintptr_t)sp->image.data +
                      (unsigned long long)((v->r[1] - sp->y) * sp->image.pitch + (v->r[0] - sp->x) * bytes);
            e->pitch = sp->image.pitch;
        } else {
            e->data = sl->scratch + rows_at + v->at;
            e->pitch = (v->r[2] - v->r[0]) * bytes;
        }
        e->words = e->data % 4 == 0 && e->pitch % 4 == 0;
        gm__tile_span(v->r[0], v->r[2], GM__OVERLAY_TILE_W, &tx0, &tx1);
        gm__tile_span(v->r[1], v->r[3], GM__OVERLAY_TILE_H, &ty0, &ty1);
        for (ty = ty0; ty <= ty1; ++ty)
            for (tx = tx0; tx <= tx1; ++tx)
                order[per_tile[ty * across + tx]++] = i;
    }
    memset(per_tile, 0, (size_t)(across * down) * sizeof *per_tile);
    job.seen = seen;
    job.count = nseen;
    job.sprites = sprites;
    job.staged = staged + rows_at;
    job.stream = gm__cpu_streams[gm__cpu_isa()];
    if (host_rows)
        gm__parallel(gm__overlay_stage_part, &job, host_rows,
                     gm__tune.overlay_part_bytes / (host_rows_bytes / host_rows + 1) + 1);
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = GM__CU_MEMORYTYPE_HOST;
    copy.srcHost = staged;
    copy.dstMemoryType = GM__CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = sl->scratch;
    copy.srcPitch = copy.dstPitch = copy.WidthInBytes = total;
    copy.Height = 1;
    if ((rc = gm__cu.cuMemcpy2DAsync(&copy, stream)) != 0)
        return gm__cuda_fail(fn, "cuMemcpy2DAsync", rc);
    a->width = (int)frame->width;
    a->height = (int)frame->height;
    a->sprites = sl->scratch;
    a->tiles = sl->scratch + (unsigned long long)((unsigned char*)tiles - staged);
    a->order = sl->scratch + (unsigned long long)((unsigned char*)order - staged);
    grid[0] = (unsigned)ntiles, grid[1] = grid[2] = 1;
    s = gm__launch_row(fn, GM__OVERLAY_ROW, dev, grid, block, a, stream);
    /* the copy is queued whatever the launch did: the slot's next draw waits for it */
    if ((rc = gm__cu.cuEventRecord(sl->done, stream)) != 0 && s == GM_OK)
        s = gm__cuda_fail(fn, "cuEventRecord", rc);
    o->turn ^= 1;
    return s;
}

GM_API gm_status gm_overlay_draw(gm_overlay* overlay, gm_mat* frame, const gm_sprite* sprites, int count,
                                 const gm_overlay_params* params, gm_stream stream)
{
    static const char fn[] = "gm_overlay_draw";
    static const unsigned block[2] = {GM__OVERLAY_TILE_W / 4, GM__OVERLAY_TILE_H};
    gm_overlay_params defaults;
    gm__overlay_args a;
    gm_status s;
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "%s: overlay is NULL", fn);
    if ((s = gm__check(fn, "frame", frame)) != GM_OK)
        return s;
    if (frame->dtype != GM_U8 || (frame->channels != 3 && frame->channels != 4) || frame->layout != GM_HWC)
        return gm__fail(GM_ERR_TYPE, "%s: frame is %s x%d %s; u8 x3 or x4 interleaved (BGR, RGB, BGRA, RGBA) expected",
                        fn, gm_dtype_name(frame->dtype), (int)frame->channels, gm__layout_name(frame));
    if ((s = gm__overlay_check(fn, "frame->batch", frame, 1, sprites, count)) != GM_OK)
        return s;
    if (!params) {
        memset(&defaults, 0, sizeof defaults);
        params = &defaults;
    }
    memset(&a, 0, sizeof a);
    a.frame = (unsigned long long)(uintptr_t)frame->data;
    a.pitch = frame->pitch;
    a.channels = (int)frame->channels;
    a.rgb = params->rgb != 0;
    a.over = params->alpha_over != 0;
    a.words = (a.frame | (unsigned long long)a.pitch) % (a.channels == 4 ? 16 : 4) == 0;
    if (gm__on_host(frame)) {
        gm__overlay_host(frame, &a, sprites, count);
        return GM_OK;
    }
    return gm__overlay_device(fn, overlay, frame, &a, block, sprites, count, stream);
}

GM_API gm_status gm_overlay_draw_yuv(gm_overlay* overlay, gm_yuv* frame, const gm_sprite* sprites, int count,
                                     gm_stream stream)
{
    static const char fn[] = "gm_overlay_draw_yuv";
    static const unsigned block[2] = {GM__OVERLAY_TILE_W / 2, GM__OVERLAY_TILE_H / 2};
    gm_mat planes[3];
    gm__overlay_args a;
    gm_status s;
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "%s: overlay is NULL", fn);
    if ((s = gm__yuv_check(fn, frame)) != GM_OK)
        return s;
    if (frame->format == GM_YUV_P016)
        return gm__fail(GM_ERR_TYPE, "%s: frame->format is P016; the overlay draws on 8-bit frames (NV12, NV21, "
                        "I420, YV12)", fn);
    planes[0] = frame->y, planes[1] = frame->u, planes[2] = frame->v;
    if ((s = gm__overlay_check(fn, "frame->y.batch", planes, gm__yuv_planar(frame) ? 3 : 2, sprites, count)) != GM_OK)
        return s;
    memset(&a, 0, sizeof a);
    a.yuv = 1;
    /* the image's fields unused: the luma stands in; RGB, the sprites' order */
    gm__yuv_args_of(&a.planes, frame, &frame->y, 1);
    if (gm__on_host(&frame->y)) {
        gm__overlay_host(planes, &a, sprites, count);
        return GM_OK;
    }
    return gm__overlay_device(fn, overlay, &frame->y, &a, block, sprites, count, stream);
}

/* Whether a and b are one view: the same memory in the same shape. */
static int gm__same_view(const gm_mat* a, const gm_mat* b)
{
    return a->data == b->data && a->pitch == b->pitch && a->batch_pitch == b->batch_pitch &&
           (a->layout == GM_HWC || a->channels == 1 || a->plane_pitch == b->plane_pitch);
}

static gm_status gm__blend_check(const char* fn, const gm_mat* src1, const gm_mat* src2, const gm_mat* dst)
{
    const gm_mat* m[3];
    const char* names[3] = {"src1", "src2", "dst"};
    gm_status s;
    int k;
    m[0] = src1, m[1] = src2, m[2] = dst;
    for (k = 0; k < 3; ++k) {
        if ((s = gm__check(fn, names[k], m[k])) != GM_OK)
            return s;
        if (m[k]->dtype != GM_U8)
            return gm__fail(GM_ERR_TYPE, "%s: %s is %s; u8 expected", fn, names[k], gm_dtype_name(m[k]->dtype));
    }
    for (k = 0; k < 2; ++k) {
        if (m[k]->width != dst->width || m[k]->height != dst->height || m[k]->batch != dst->batch)
            return gm__fail(GM_ERR_SIZE, "%s: %s is %lldx%lld, batch %d, but dst is %lldx%lld, batch %d", fn,
                            names[k], (long long)m[k]->width, (long long)m[k]->height, (int)m[k]->batch,
                            (long long)dst->width, (long long)dst->height, (int)dst->batch);
        if (m[k]->channels != dst->channels || (dst->channels > 1 && m[k]->layout != dst->layout))
            return gm__fail(GM_ERR_TYPE, "%s: %s is x%d %s but dst is x%d %s", fn, names[k], (int)m[k]->channels,
                            gm__layout_name(m[k]), (int)dst->channels, gm__layout_name(dst));
        /* dst may be the source itself, in the same place; the sources may
         * overlap each other */
        if ((gm__on_host(m[k]) != gm__on_host(dst) || (!gm__on_host(dst) && m[k]->device != dst->device) ||
             !gm__same_view(m[k], dst)) &&
            (s = gm__check_place(fn, names[k], m[k], "dst", dst)) != GM_OK)
            return s;
    }
    return GM_OK;
}

/* Rows of the three images as one launch (or the CPU loop) walks them. */
static void gm__blend_args_of(gm__blend_args* a, const gm_mat* src1, const gm_mat* src2, const gm_mat* dst,
                              double alpha, double beta, double gamma)
{
    const gm_mat* m[3];
    int k, planar = dst->layout == GM_CHW && dst->channels > 1;
    m[0] = src1, m[1] = src2, m[2] = dst;
    memset(a, 0, sizeof *a);
    a->vectors = 1;
    for (k = 0; k < 3; ++k) {
        a->data[k] = (unsigned long long)(uintptr_t)m[k]->data;
        a->pitch[k] = m[k]->pitch;
        a->ppitch[k] = planar ? m[k]->plane_pitch : 0;
        a->bstride[k] = m[k]->batch_pitch;
        a->vectors &= (a->data[k] | (unsigned long long)a->pitch[k] | (unsigned long long)a->ppitch[k] |
                       (unsigned long long)(dst->batch > 1 ? a->bstride[k] : 0)) % 16 == 0;
    }
    a->bytes = dst->width * (planar ? 1 : dst->channels);
    a->height = dst->height;
    a->planes = planar ? (int)dst->channels : 1;
    a->batch = (int)dst->batch;
    a->alpha = (float)alpha;
    a->beta = (float)beta;
    a->gamma = (float)gamma;
}

static void gm__blend_host(const gm__blend_args* a)
{
    long long r, x;
    unsigned long long at[3];
    for (r = 0; r < a->height * a->planes * a->batch; ++r) {
        gm__blend_rows(a, r / a->height / a->planes, r / a->height % a->planes, r % a->height, at);
        for (x = 0; x < a->bytes; ++x)
            ((unsigned char*)(uintptr_t)at[2])[x] =
                gm__blend_u8(((const unsigned char*)(uintptr_t)at[0])[x], ((const unsigned char*)(uintptr_t)at[1])[x],
                             a->alpha, a->beta, a->gamma);
    }
}

GM_API gm_status gm_add_weighted(const gm_mat* src1, double alpha, const gm_mat* src2, double beta, double gamma,
                                 gm_mat* dst, gm_stream stream)
{
    static const char fn[] = "gm_add_weighted";
    static const unsigned block[2] = {GM__BLEND_THREADS, 1};
    gm__blend_args a;
    gm__CUcontext ctx;
    unsigned grid[3];
    int dev;
    gm_status s = gm__blend_check(fn, src1, src2, dst);
    if (s != GM_OK)
        return s;
    gm__blend_args_of(&a, src1, src2, dst, alpha, beta, gamma);
    if (gm__on_host(dst)) {
        gm__blend_host(&a);
        return GM_OK;
    }
    if ((s = gm__context(fn, (int)dst->device, &ctx, &dev)) != GM_OK)
        return s;
    grid[0] = (unsigned)((a.bytes + GM__BLEND_BYTES * GM__BLEND_THREADS - 1) / (GM__BLEND_BYTES * GM__BLEND_THREADS));
    grid[1] = (unsigned)(a.height < 65535 ? a.height : 65535);
    grid[2] = (unsigned)(a.batch < 65535 ? a.batch : 65535);
    return gm__launch_row(fn, GM__BLEND_ROW, dev, grid, block, &a, stream);
}
