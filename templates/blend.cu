/* SPDX-License-Identifier: MIT */
/* gm_add_weighted: a thread GM__BLEND_BYTES bytes of a row, each the
 * weighted sum of the sources' bytes (templates/blend.inc), as 16-byte
 * vectors where the rows allow. Blocks along x cover a row, along y the
 * rows of a plane, along z the items, each thread taking its row of every
 * plane; stride loops cover what lies beyond the grid's limits. */

/* Four bytes of each source at once, into a word of the destination's. */
__device__ __forceinline__ unsigned gm__blend_word(unsigned u, unsigned v, const gm__blend_args& a)
{
    unsigned w = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        w |= (unsigned)gm__blend_u8(u >> (8 * i) & 255, v >> (8 * i) & 255, a.alpha, a.beta, a.gamma) << (8 * i);
    return w;
}

__device__ __forceinline__ void gm__blend(const gm__blend_args& a)
{
    const long long x = (long long)GM__BLEND_BYTES * ((long long)blockIdx.x * GM__BLEND_THREADS + threadIdx.x);
    if (x >= a.bytes)
        return;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (int p = 0; p < a.planes; ++p)
            for (long long y = blockIdx.y; y < a.height; y += gridDim.y) {
                unsigned long long at[3];
                gm__blend_rows(&a, b, p, y, at);
                const unsigned char *s0 = (const unsigned char*)at[0] + x, *s1 = (const unsigned char*)at[1] + x;
                unsigned char* d = (unsigned char*)at[2] + x;
                if (a.vectors && x + GM__BLEND_BYTES <= a.bytes) {
                    const uint4 u = *(const uint4*)s0, v = *(const uint4*)s1;
                    *(uint4*)d = make_uint4(gm__blend_word(u.x, v.x, a), gm__blend_word(u.y, v.y, a),
                                            gm__blend_word(u.z, v.z, a), gm__blend_word(u.w, v.w, a));
                } else {
                    for (int i = 0; i < GM__BLEND_BYTES && x + i < a.bytes; ++i)
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
