/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path. gm__pixel is the same code the kernels run
 * (templates/codec.inc and pixel.inc: decode, compute, encode); the
 * generated per-dtype-pair wrappers in gen/kernels.h call this loop with
 * constant S and D so the stages' switches fold. */

#if defined(__GNUC__)
#define GM__ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define GM__ALWAYS_INLINE inline
#endif

static GM__ALWAYS_INLINE void gm__cpu_loop(int S, int D, int cd, const gm__xform_args* a)
{
    long long b, y, x;
    for (b = 0; b < a->batch; ++b)
        for (y = 0; y < a->height; ++y)
            for (x = 0; x < a->width; ++x)
                gm__pixel(S, D, cd, a, b, y, x);
}

/* The resize kernel's loop (templates/resize.inc), S constant per dtype. */
static GM__ALWAYS_INLINE void gm__cpu_resize_loop(int S, int c, int sampler, const gm__resize_args* a)
{
    long long b, y, x;
    for (b = 0; b < a->batch; ++b)
        for (y = 0; y < a->height; ++y)
            for (x = 0; x < a->width; ++x)
                gm__resize_pixel(S, c, sampler, a, b, y, x);
}
