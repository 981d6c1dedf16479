/* SPDX-License-Identifier: MIT */
/* The warp kernel: a thread a destination pixel, all its channels, sampled
 * by templates/warp.inc (the CPU path's code), affine or perspective by a
 * launch argument; blocks of 32 columns by GM__BLOCK_WARPS rows, an item a
 * z block. */
template <int S, int C, int I>
__device__ __forceinline__ void gm__warp(const gm__warp_args& a)
{
    gm__each_run(a.width, a.height, a.batch, 1,
                 [&](long long b, long long x, long long y, long long) { gm__warp_run(S, C, I, &a, b, x, y); });
}

/* The entry point of one warp row (gen/model.py): its dtype S, channels C
 * and sampler I. */
#define GM__ENTRY_WARP(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__warp_args a) { gm__warp<S, C, I>(a); }
