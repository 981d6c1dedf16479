/* SPDX-License-Identifier: MIT */
/* The pre-process kernel of 4:2:0 frames (gm_preprocess_yuv): prep.cu's
 * point path for NEAREST (a.points), else its per-pixel path, one thread
 * per GM__COLUMN_ROWS destination pixels of a column of one item, each tap
 * converted to BGR before it is resampled (templates/prep.inc,
 * gm__prep_frame_at; the CPU path runs the same). A kernel of its own, so
 * that the image kernels keep their registers. */

template <int D, int I, int A>
__device__ __forceinline__ void gm__prep_yuv(const gm__prep_args& a)
{
    if (I == GM__SAMPLER_NEAREST && a.points) {
        gm__grid_begin();
        gm__prep_points<D, 3, 1, A>(a);
        return;
    }
    gm__each_run(a.width, a.height, a.count, GM__COLUMN_ROWS, [&](long long b, long long x, long long y, long long end) {
        gm__prep_sampled(GM_U8, D, 3, I, 1, A, &a, b, x, y, end);
    });
}

/* The entry point of one row (gen/model.py): destination dtype D, sampler
 * I, the product in float (A = 0: templates/prep_yuv_double.cu has the
 * double one); the frame and its layout are arguments (gm__prep_args.frame). On sm_90
 * NEAREST, which holds the point path, runs 5 blocks a multiprocessor (48
 * registers, no spill in that path): a batch of letterboxed frames waits on
 * its loads and gained from the warps (bench/RESULTS.md). The other
 * samplers spill at 48 and stay at 4 blocks, as do the archs where it was
 * not measured (sm_120 spills there too). */
#define GM__PREP_YUV_BLOCKS(I) (I == GM__SAMPLER_NEAREST && __CUDA_ARCH__ == 900 ? 5 : 4)
#define GM__ENTRY_PREP_YUV(name, S, D, C, LS, LD, P, R, B, I) \
    GM__PREP_ENTRY(name, GM__PREP_YUV_BLOCKS(I), (gm__prep_yuv<D, I, 0>))
