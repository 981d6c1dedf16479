/* SPDX-License-Identifier: MIT */
/* The pre-process kernel: one thread per GM__COLUMN_ROWS destination pixels
 * of a column of one item, all their channels (templates/prep.inc, the code
 * the CPU path runs). Every item of a launch resizes by the kernel's sampler
 * I (the host groups them). */
template <int S, int D, int C, int I>
__device__ __forceinline__ void gm__prep(const gm__prep_args& a)
{
    gm__each_run(a.width, a.height, a.count, GM__COLUMN_ROWS, [&](long long b, long long x, long long y, long long end) {
        gm__prep_sampled(S, D, C, I, &a, b, x, y, end);
    });
}

/* The entry point of one pre-process row (gen/model.py): source dtype S,
 * destination dtype D, source channels C, sampler I. */
#define GM__ENTRY_PREP(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS, 4) name(gm__prep_args a) { gm__prep<S, D, C, I>(a); }
