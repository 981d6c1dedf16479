/* SPDX-License-Identifier: MIT */
/* The warp kernel: a thread GM__WARP_ROWS destination pixels down a
 * column, all their channels, sampled by templates/warp.inc (the CPU
 * path's code), affine or perspective by a launch argument; blocks of 32
 * columns by GM__BLOCK_WARPS runs, an item a z block. */
template <int S, int C, int I>
__device__ __forceinline__ void gm__warp(const gm__warp_args& a)
{
    gm__each_run(a.width, a.height, a.batch, GM__WARP_ROWS,
                 [&](long long b, long long x, long long y, long long end) { gm__warp_run(S, C, I, &a, b, x, y, end); });
}

/* The entry point of one warp row (gen/model.py): its dtype S, channels C
 * and sampler I. */
#define GM__ENTRY_WARP(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__warp_args a) { gm__warp<S, C, I>(a); }
