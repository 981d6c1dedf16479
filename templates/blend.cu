/* SPDX-License-Identifier: MIT */
/* gm_add_weighted: a thread four bytes of a row, each the weighted sum of
 * the sources' bytes (templates/blend.inc); whole words where the rows are
 * aligned. Blocks along x cover a row; along y, rows, a block taking every
 * gridDim.y-th row past the grid's 65535. */

__device__ __forceinline__ void gm__blend(const gm__blend_args& a)
{
    const long long x = 4 * ((long long)blockIdx.x * GM__BLEND_THREADS + threadIdx.x);
    if (x >= a.bytes)
        return;
    for (long long r = blockIdx.y; r < a.rows; r += gridDim.y) {
        unsigned long long at[3];
        gm__blend_rows(&a, r, at);
        const unsigned char *s0 = (const unsigned char*)at[0] + x, *s1 = (const unsigned char*)at[1] + x;
        unsigned char* d = (unsigned char*)at[2] + x;
        if (a.words && x + 4 <= a.bytes) {
            const unsigned u = *(const unsigned*)s0, v = *(const unsigned*)s1;
            unsigned w = 0;
#pragma unroll
            for (int i = 0; i < 4; ++i)
                w |= (unsigned)gm__blend_u8(u >> (8 * i) & 255, v >> (8 * i) & 255, a.alpha, a.beta, a.gamma) << (8 * i);
            *(unsigned*)d = w;
        } else {
            for (int i = 0; i < 4 && x + i < a.bytes; ++i)
                d[i] = gm__blend_u8(s0[i], s1[i], a.alpha, a.beta, a.gamma);
        }
    }
}

/* The entry point of the blend's one catalogue row (its fields unused). */
#define GM__ENTRY_BLEND(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(GM__BLEND_THREADS) name(gm__blend_args a) \
    { \
        gm__grid_begin(); \
        gm__blend(a); \
    }
