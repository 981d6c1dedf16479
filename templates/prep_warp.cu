/* SPDX-License-Identifier: MIT */
/* The pre-process kernel of the warp placement (GM_FIT_WARP): a thread
 * GM__COLUMN_ROWS destination pixels down a column of one item, all their
 * channels (templates/prep_warp.inc, the code the CPU path runs). F: the
 * items are 4:2:0 frames (templates/prep_yuv_warp.cu's rows). */
template <int S, int D, int C, int I, int F>
__device__ __forceinline__ void gm__prep_warp_kernel(const gm__prep_args& a)
{
    gm__each_run(a.width, a.height, a.count, GM__COLUMN_ROWS, [&](long long b, long long x, long long y, long long end) {
        gm__prep_warp_run(S, D, C, I, F, &a, b, x, y, end);
    });
}

/* The entry point of one row (gen/model.py): source dtype S, destination
 * dtype D, source channels C, warp sampler I (the product's arithmetic,
 * the border and the matrices' kind are arguments); and its _many, as
 * every pre-process row's (templates/prep.cu). */
#define GM__ENTRY_PREP_WARP(name, S, D, C, LS, LD, P, R, B, I) \
    GM__PREP_ENTRY(name, GM__PREP_WARP_BLOCKS(I), (gm__prep_warp_kernel<S, D, C, I, 0>))
#define GM__PREP_WARP_BLOCKS(I) (I == GM__SAMPLER_CUBIC ? 2 : 3)
