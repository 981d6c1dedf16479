/* SPDX-License-Identifier: MIT */
/* The resize kernel: one thread per GM__COLUMN_ROWS destination pixels of a
 * column, all channels of each, computing the taps as cv::resize does
 * (templates/resize.inc, the code the CPU path runs). */
template <int S, int C, int I>
__device__ __forceinline__ void gm__resize(const gm__resize_args& a)
{
    gm__each_run(a.width, a.height, a.batch, GM__COLUMN_ROWS,
                 [&](long long b, long long x, long long y, long long end) { gm__resize_run(S, C, I, &a, b, x, y, end); });
}

/* The entry point of one resize row (gen/model.py): its dtype S, channels C
 * and sampler I. */
#define GM__ENTRY_RESIZE(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__resize_args a) { gm__resize<S, C, I>(a); }
