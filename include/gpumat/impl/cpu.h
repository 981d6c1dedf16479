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

/* Runs the statement pixel for every (b, y, x) of batch x height x width,
 * as the 2-D kernels do on the GPU (gm__each_run). */
#define GM__CPU_EACH_PIXEL(batch, height, width, pixel) \
    do {                                                 \
        long long b, y, x;                               \
        for (b = 0; b < (batch); ++b)                    \
            for (y = 0; y < (height); ++y)               \
                for (x = 0; x < (width); ++x)            \
                    pixel;                               \
    } while (0)

static GM__ALWAYS_INLINE void gm__cpu_loop(int S, int D, int cd, const gm__xform_args* a)
{
    GM__CPU_EACH_PIXEL(a->batch, a->height, a->width, gm__pixel(S, D, cd, a, b, y, x));
}

/* The resize kernel's loop (templates/resize.inc), S constant per dtype. */
static GM__ALWAYS_INLINE void gm__cpu_resize_loop(int S, int c, int sampler, const gm__resize_args* a)
{
    GM__CPU_EACH_PIXEL(a->batch, a->height, a->width, gm__resize_run(S, c, sampler, a, b, x, y, y + 1));
}

/* The pre-process kernel's loop (templates/prep.inc), S and D constant per
 * dtype pair. */
static GM__ALWAYS_INLINE void gm__cpu_prep_loop(int S, int D, int c, const gm__prep_args* a)
{
    GM__CPU_EACH_PIXEL(a->count, a->height, a->width, gm__prep_run(S, D, c, a, b, x, y, y + 1));
}
