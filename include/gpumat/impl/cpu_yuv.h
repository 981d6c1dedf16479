/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path of the YUV family (gm_yuv_convert,
 * gm_yuv_from_image, and the pre-process's frames through cpu_prep.h): rows
 * of 4:2:0 frames to and from images, in the kernels' arithmetic
 * (templates/yuv.inc). */

#include <string.h>

/* Runs of the row loops below: 4 GM__CPU_BLOCK pixels, through arrays in
 * the first-level cache. Their loops over a run have a constant count and
 * contiguous arrays, which the compiler vectorises; the lanes past a row's
 * end compute on stale values and are not stored. */
enum { GM__YUV_RUN = 4 * GM__CPU_BLOCK };

/* memcpy of `size` bytes of a run whose full size is the constant `full`:
 * then the compiler copies with vector moves, where a size it cannot know
 * becomes a call or a rep movs that takes longer to start than the copy. */
static GM__ALWAYS_INLINE void gm__yuv_copy(void* d, const void* s, long long size, long long full)
{
    if (size == full)
        memcpy(d, s, (size_t)full);
    else
        memcpy(d, s, (size_t)size);
}

/* gm__yuv_copy of a run's pixels into the image: a whole run in 32-byte
 * pieces, which stay vector moves, where GCC made the one memcpy of a run
 * of BGR a `rep movs`, slow to start at every run (bench/RESULTS.md). */
static GM__ALWAYS_INLINE void gm__yuv_copy_out(unsigned char* d, const void* s, long long size, long long full)
{
    long long i;
    if (size == full && full % 32 == 0)
        for (i = 0; i < full; i += 32)
            memcpy(d + i, (const unsigned char*)s + i, 32);
    else
        gm__yuv_copy(d, s, size, full);
}

/* Where byte c of a 32-bit word in memory lies in its value, in bits. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GM__YUV_BYTE(c) (8 * (3 - (c)))
#else
#define GM__YUV_BYTE(c) (8 * (c))
#endif

/* Whether launch a's image is planar (CHW), else interleaved. */
static int gm__yuv_chw(const gm__yuv_args* a) { return a->channels > 1 && a->image_xstride < a->image_cstride; }

/* n pixels of C channels (1, 3 or 4) of E bytes from the runs o[c] into
 * image row d, interleaved, or with chw in planes cs bytes apart. */
static GM__ALWAYS_INLINE void gm__yuv_put_run(int E, int C, int chw, long long cs, unsigned char* const* o,
                                              unsigned char* d, long long n)
{
    int c;
    if (chw || C == 1)
        for (c = 0; c < C; ++c)
            gm__yuv_copy(d + c * cs, o[c], n * E, GM__YUV_RUN * E);
    else if (C == 3)
        gm__cpu_zip(GM__YUV_RUN, E, 3, o[0], o[1], o[2], NULL, d, n);
    else
        gm__cpu_zip(GM__YUV_RUN, E, 4, o[0], o[1], o[2], o[3], d, n);
}

/* The reverse for u8 pixels of 3 or 4 channels: image row s into p[c].
 * Interleaved pixels are copied into a local array first, for the reason
 * gm__yuv_chroma_run gives. */
static GM__ALWAYS_INLINE void gm__yuv_get_run(int C, int chw, long long cs, const unsigned char* s,
                                              unsigned char (*p)[GM__YUV_RUN], long long n)
{
    int c;
    if (chw)
        for (c = 0; c < 3; ++c)
            gm__yuv_copy(p[c], s + c * cs, n, GM__YUV_RUN);
    else {
        unsigned char px[4 * GM__YUV_RUN];
        gm__yuv_copy(px, s, C * n, C * GM__YUV_RUN);
        if (C == 3)
            gm__cpu_unzip(GM__YUV_RUN, 1, 3, px, p[0], p[1], p[2], NULL, n);
        else
            gm__cpu_unzip(GM__YUV_RUN, 1, 4, px, p[0], p[1], p[2], p[3], n);
    }
}

/* The n / 2 chroma pairs of a run, of E-byte samples at u and v (`step`
 * bytes apart: interleaved where 2 E, V first where v is u's lower
 * neighbour, as NV21's), into uu and vv, or (to_frame) back from them.
 * Interleaved pairs go through a local array: the loops then store into
 * arrays the compiler knows apart, which it needs to vectorise them. */
static GM__ALWAYS_INLINE void gm__yuv_chroma_run(int E, int step, int to_frame, unsigned char* u, unsigned char* v,
                                                 unsigned char* uu, unsigned char* vv, long long n)
{
    const int nv21 = v + E == u;
    unsigned char pairs[GM__YUV_RUN * 2];
    if (step == E && to_frame)
        gm__yuv_copy(u, uu, n / 2 * E, GM__YUV_RUN / 2 * E), gm__yuv_copy(v, vv, n / 2 * E, GM__YUV_RUN / 2 * E);
    else if (step == E)
        gm__yuv_copy(uu, u, n / 2 * E, GM__YUV_RUN / 2 * E), gm__yuv_copy(vv, v, n / 2 * E, GM__YUV_RUN / 2 * E);
    else if (to_frame) {
        gm__cpu_zip(GM__YUV_RUN / 2, E, 2, nv21 ? vv : uu, nv21 ? uu : vv, NULL, NULL, pairs, n / 2);
        gm__yuv_copy(nv21 ? v : u, pairs, n / 2 * 2 * E, GM__YUV_RUN * E);
    } else {
        gm__yuv_copy(pairs, nv21 ? v : u, n / 2 * 2 * E, GM__YUV_RUN * E);
        if (nv21)
            gm__cpu_unzip(GM__YUV_RUN / 2, E, 2, pairs, vv, uu, NULL, NULL, n / 2);
        else
            gm__cpu_unzip(GM__YUV_RUN / 2, E, 2, pairs, uu, vv, NULL, NULL, n / 2);
    }
}

/* Rows 2r and 2r + 1 of item b of launch a (8-bit samples) into u8
 * pixels, as gm__yuv_pixel computes them, a run at a time: the run's U and
 * V samples apart, each pair's terms spread over its two columns, then
 * each channel of a row over the whole run, into its plane or interleaved
 * through a local array (gm__yuv_chroma_run says why); four channels are
 * built as words at once. */
static GM__ALWAYS_INLINE void gm__yuv_rows_u8(const gm__yuv_args* a, long long b, long long r)
{
    enum { N = GM__YUV_RUN };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch, cs = a->image_cstride;
    const int C = a->channels, cy = a->cy, yoff = a->yoff, chw = gm__yuv_chw(a);
    const int ku[3] = {a->ku[0], a->ku[1], a->ku[2]}, kv[3] = {a->kv[0], a->kv[1], a->kv[2]};
    const int bias[3] = {a->bias[0], a->bias[1], a->bias[2]};
    const unsigned char* luma = (const unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    int t[3][N], l[N];
    unsigned w[N];
    unsigned char y[N], out[4][N], px[3 * N], uu[N / 2], vv[N / 2];
    unsigned char* const o[4] = {out[0], out[1], out[2], out[3]};
    long long x0, n, k;
    int c, i;
    if (C == 1) { /* gray is the luma */
        memcpy(image, luma, (size_t)width), memcpy(image + ip, luma + yp, (size_t)width);
        return;
    }
    memset(y, 0, sizeof y);
    memset(uu, 0, sizeof uu);
    memset(vv, 0, sizeof vv);
    memset(out[3], 255, sizeof out[3]);
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        gm__yuv_chroma_run(1, a->step, 0, u + x0 / 2 * a->step, v + x0 / 2 * a->step, uu, vv, n);
        for (c = 0; c < 3; ++c)
            for (k = 0; k < N / 2; ++k)
                t[c][2 * k] = t[c][2 * k + 1] = ku[c] * uu[k] + kv[c] * vv[k] + bias[c];
        for (i = 0; i < 2; ++i) {
            gm__yuv_copy(y, luma + i * yp + x0, n, N);
            for (k = 0; k < N; ++k) /* the luma term once for the three channels */
                l[k] = ((y[k] > yoff ? y[k] : yoff) - yoff) * cy;
            if (C == 4 && !chw) { /* words of the four channels, built in 32-bit lanes */
                for (k = 0; k < N; ++k)
                    w[k] = (unsigned)gm__yuv_u8(l[k] + t[0][k]) << GM__YUV_BYTE(0) |
                           (unsigned)gm__yuv_u8(l[k] + t[1][k]) << GM__YUV_BYTE(1) |
                           (unsigned)gm__yuv_u8(l[k] + t[2][k]) << GM__YUV_BYTE(2) | 255u << GM__YUV_BYTE(3);
                gm__yuv_copy_out(image + i * ip + x0 * 4, w, 4 * n, 4 * N);
                continue;
            }
            for (c = 0; c < 3; ++c)
                for (k = 0; k < N; ++k)
                    out[c][k] = (unsigned char)gm__yuv_u8(l[k] + t[c][k]);
            if (chw) {
                gm__yuv_put_run(1, C, 1, cs, o, image + i * ip + x0, n);
                continue;
            }
            for (k = 0; k < N; ++k)
                px[3 * k] = out[0][k], px[3 * k + 1] = out[1][k], px[3 * k + 2] = out[2][k];
            gm__yuv_copy_out(image + i * ip + x0 * 3, px, 3 * n, 3 * N);
        }
    }
}

/* The reverse: u8 pixels of 3 or 4 channels of rows 2r and 2r + 1 into
 * the frame's samples, as gm__yuv_from_block computes them, a run at a
 * time: the channels apart, each sample over the whole run (the bottom row
 * first, so that the top row's channels are left for U and V, taken at
 * its even pixels), then U and V interleaved where the frame does. */
static GM__ALWAYS_INLINE void gm__yuv_from_rows_u8(const gm__yuv_args* a, long long b, long long r)
{
    enum { N = GM__YUV_RUN };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch, cs = a->image_cstride;
    const int C = a->channels, yoff = a->yoff, chw = gm__yuv_chw(a);
    const int fy[3] = {a->fy[0], a->fy[1], a->fy[2]}, fu[3] = {a->fu[0], a->fu[1], a->fu[2]};
    const int fv[3] = {a->fv[0], a->fv[1], a->fv[2]};
    unsigned char* luma = (unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    const unsigned char* image = (const unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    unsigned char p[4][N], y[N], uu[N / 2], vv[N / 2];
    long long x0, n, k;
    int i;
    memset(p, 0, sizeof p);
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        for (i = 1; i >= 0; --i) {
            gm__yuv_get_run(C, chw, cs, image + i * ip + x0 * (chw ? 1 : C), p, n);
            for (k = 0; k < N; ++k)
                y[k] = (unsigned char)gm__yuv_weigh(fy, yoff, p[0][k], p[1][k], p[2][k]);
            gm__yuv_copy(luma + i * yp + x0, y, n, N);
        }
        for (k = 0; k < N / 2; ++k) {
            uu[k] = (unsigned char)gm__yuv_weigh(fu, 128, p[0][2 * k], p[1][2 * k], p[2][2 * k]);
            vv[k] = (unsigned char)gm__yuv_weigh(fv, 128, p[0][2 * k], p[1][2 * k], p[2][2 * k]);
        }
        gm__yuv_chroma_run(1, a->step, 1, u + x0 / 2 * a->step, v + x0 / 2 * a->step, uu, vv, n);
    }
}

/* Rows 2r and 2r + 1 of item b of a P016 launch into dtype D (u8, u16 or
 * f32, E bytes), as gm__yuv16_pixel computes them, a run at a time as in
 * gm__yuv_rows_u8, in doubles: t (templates/yuv.inc) stays below 2^40 in
 * magnitude, so doubles hold every term and sum exactly. Gray is
 * t = Y 2^20: the same arithmetic with no chroma, black 0 and cy 2^20. */
static GM__ALWAYS_INLINE void gm__yuv16_rows(const gm__yuv_args* a, long long b, long long r, int D, int E)
{
    enum { N = GM__YUV_RUN };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch, cs = a->image_cstride;
    const int C = a->channels, chw = gm__yuv_chw(a), black = C == 1 ? 0 : a->yoff << 8;
    const double cy = C == 1 ? (double)(1 << 20) : (double)a->cy;
    const double ku[3] = {(double)a->ku[0], (double)a->ku[1], (double)a->ku[2]};
    const double kv[3] = {(double)a->kv[0], (double)a->kv[1], (double)a->kv[2]};
    const unsigned char* luma = (const unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    double t[3][N], l[N];
    unsigned short y[N], uu[N / 2], vv[N / 2];
    union {
        unsigned char u8[N];
        unsigned short u16[N];
        float f32[N];
    } out[4];
    unsigned char* const o[4] = {out[0].u8, out[1].u8, out[2].u8, out[3].u8};
    const unsigned alpha = gm__yuv16_bits(D, 65535LL << 20);
    long long x0, n, k;
    int c, i;
    memset(t, 0, sizeof t);
    memset(y, 0, sizeof y);
    memset(uu, 0, sizeof uu);
    memset(vv, 0, sizeof vv);
    for (k = 0; k < N; ++k)
        if (D == GM_F32)
            memcpy(&out[3].f32[k], &alpha, sizeof alpha);
        else if (D == GM_U16)
            out[3].u16[k] = (unsigned short)alpha;
        else
            out[3].u8[k] = (unsigned char)alpha;
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        if (C > 1) {
            gm__yuv_chroma_run(2, a->step, 0, u + x0 / 2 * a->step, v + x0 / 2 * a->step, (unsigned char*)uu,
                               (unsigned char*)vv, n);
            for (c = 0; c < 3; ++c)
                for (k = 0; k < N / 2; ++k)
                    t[c][2 * k] = t[c][2 * k + 1] = ku[c] * (uu[k] - 32768) + kv[c] * (vv[k] - 32768);
        }
        for (i = 0; i < 2; ++i) {
            gm__yuv_copy(y, luma + i * yp + 2 * x0, 2 * n, 2 * N);
            for (k = 0; k < N; ++k)
                l[k] = (double)((y[k] > black ? y[k] : black) - black) * cy;
            for (c = 0; c < (C < 3 ? C : 3); ++c)
                for (k = 0; k < N; ++k) {
                    const double x = l[k] + t[c][k];
                    /* t (or t + 2^19, t + 2^27) scaled to the dtype's steps (f32: 2^-8 of u16's), truncated,
                     * then saturated, floors it as the integer code's shift does */
                    const int q = (int)((x + (D == GM_F32 ? 0 : D == GM_U16 ? 1 << 19 : 1 << 27)) *
                                        (1.0 / (D == GM_F32 ? 1 << 12 : D == GM_U16 ? 1 << 20 : 1 << 28)));
                    const int top = D == GM_F32 ? 65535 << 8 : D == GM_U16 ? 65535 : 255;
                    const int s = q > 0 ? q < top ? q : top : 0;
                    if (D == GM_F32)
                        out[c].f32[k] = (float)s * (float)(1.0 / (65535.0 * 256.0));
                    else if (D == GM_U16)
                        out[c].u16[k] = (unsigned short)s;
                    else
                        out[c].u8[k] = (unsigned char)s;
                }
            gm__yuv_put_run(E, C, chw, cs, o, image + i * ip + x0 * (chw ? E : C * E), n);
        }
    }
}

/* The row loops by job, each for the baseline and for AVX2 (taken as
 * gm__cpu_isa says): [0 into the image, 1 from it, 2 + k P016 into u8,
 * u16, f32][isa]. */
typedef void (*gm__yuv_rows_fn)(const gm__yuv_args*, long long, long long);
#define GM__YUV_ROWS_DEF(name, attr, call) \
    static attr void name(const gm__yuv_args* a, long long b, long long r) { call; }
#ifdef GM__CPU_AVX2
#define GM__YUV_ROWS(name, call) GM__YUV_ROWS_DEF(name, , call) GM__YUV_ROWS_DEF(name##_avx2, GM__CPU_AVX2, call)
#else
#define GM__YUV_ROWS(name, call) GM__YUV_ROWS_DEF(name, , call)
#endif
GM__YUV_ROWS(gm__yuv_rows_into, gm__yuv_rows_u8(a, b, r))
GM__YUV_ROWS(gm__yuv_rows_from, gm__yuv_from_rows_u8(a, b, r))
GM__YUV_ROWS(gm__yuv16_rows_u8, gm__yuv16_rows(a, b, r, GM_U8, 1))
GM__YUV_ROWS(gm__yuv16_rows_u16, gm__yuv16_rows(a, b, r, GM_U16, 2))
GM__YUV_ROWS(gm__yuv16_rows_f32, gm__yuv16_rows(a, b, r, GM_F32, 4))
static const gm__yuv_rows_fn gm__yuv_rows_fns[5][GM__CPU_ISAS] = {
    {gm__yuv_rows_into GM__CPU_AVX2_ENTRY(gm__yuv_rows_into)},
    {gm__yuv_rows_from GM__CPU_AVX2_ENTRY(gm__yuv_rows_from)},
    {gm__yuv16_rows_u8 GM__CPU_AVX2_ENTRY(gm__yuv16_rows_u8)},
    {gm__yuv16_rows_u16 GM__CPU_AVX2_ENTRY(gm__yuv16_rows_u16)},
    {gm__yuv16_rows_f32 GM__CPU_AVX2_ENTRY(gm__yuv16_rows_f32)}};

static void gm__yuv_host_rows(const gm__yuv_args* a, int from, long long b, long long r)
{
    const int job = a->sample == 2 ? (a->dtype == GM_U8 ? 2 : a->dtype == GM_U16 ? 3 : 4) : from;
    gm__yuv_rows_fns[job][gm__cpu_isa()](a, b, r);
}

/* gm__parallel's part of a YUV plan: the pairs of rows [begin, end) of
 * every item, one after another. */
static void gm__cpu_yuv_part(void* plan, long long begin, long long end)
{
    const gm__plan* p = (const gm__plan*)plan;
    const int from = gm__kernels[p->kernel].family == GM__FAMILY_YUV_FROM;
    const long long pairs = p->args.yuv.height / 2;
    long long n;
    for (n = begin; n < end; ++n)
        gm__yuv_host_rows(&p->args.yuv, from, n / pairs, n % pairs);
}

/* A YUV plan on the CPU (on the pool where large). */
static void gm__cpu_run_yuv(const gm__plan* p)
{
    const gm__yuv_args* a = &p->args.yuv;
    gm__parallel(gm__cpu_yuv_part, (void*)p, a->batch * (a->height / 2),
                 gm__tune.cpu_part_bytes / (a->width * a->sample * (2 * a->channels + 3)) + 1);
}
