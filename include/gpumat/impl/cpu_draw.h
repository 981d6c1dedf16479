/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path of the overlay and blend families
 * (gm_overlay_draw, gm_overlay_draw_yuv, gm_add_weighted), in the kernels'
 * arithmetic (templates/overlay.inc, blend.inc). */

#include <stdint.h>
#include <string.h>

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

/* What the overlay's CPU loop takes besides its arguments: the frame's
 * planes (a 4:2:0 frame's y, u and v) and the sprites. */
typedef struct gm__overlay_job {
    const gm_mat* planes;
    const gm_sprite* sprites;
    int count;
} gm__overlay_job;

/* An overlay plan on the CPU (its job at p->host): each sprite in turn. */
static void gm__cpu_run_overlay(const gm__plan* p)
{
    const gm__overlay_job* job = (const gm__overlay_job*)p->host;
    const gm__overlay_args* a = &p->args.overlay;
    const int family = a->yuv ? 2 : a->channels == 4, isa = gm__cpu_isa();
    int64_t r[4];
    int i;
    for (i = 0; i < job->count; ++i)
        if (gm__sprite_clip(job->planes[0].width, job->planes[0].height, &job->sprites[i], r))
            gm__overlay_rows_fns[family][job->sprites[i].kind][isa](job->planes, a, &job->sprites[i], r);
}

/* A blend plan on the CPU. */
static void gm__cpu_run_blend(const gm__plan* p)
{
    const gm__blend_args* a = &p->args.blend;
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
