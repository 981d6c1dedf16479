/* SPDX-License-Identifier: MIT */
/* Host prelude: what the per-pixel templates (codec.inc, pixel.inc) expect
 * from their includer, for the CPU path. memcpy keeps the float<->bits casts
 * free of aliasing trouble in C and C++ alike. */
#include <math.h>
#include <string.h>

#define GM__FN static inline

static inline unsigned int gm__f32_bits(float f)
{
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float gm__bits_f32(unsigned int u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Products rounded on their own: a product stored to a volatile is computed
 * and rounded before anything is added to it, so no -ffp-contract setting
 * fuses it into a multiply-add (C offers no portable pragma that GCC obeys). */
static inline double gm__mul_d(double a, double b)
{
    volatile double p = a * b;
    return p;
}

static inline float gm__mul_f(float a, float b)
{
    volatile float p = a * b;
    return p;
}

#define GM__F32_BITS(f) gm__f32_bits(f)
#define GM__BITS_F32(u) gm__bits_f32(u)
#define GM__MUL_D(a, b) gm__mul_d(a, b)
#define GM__MUL_F(a, b) gm__mul_f(a, b)
/* A fused multiply-add, rounded once on every CPU (C99's fmaf). */
#define GM__FMA_F(a, b, c) fmaf(a, b, c)
#define GM__UNROLL /* the kernels' hint alone */
