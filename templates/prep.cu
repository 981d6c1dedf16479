/* SPDX-License-Identifier: MIT */
/* The pre-process kernel: one thread per destination pixel of one item, all
 * its channels (templates/prep.inc, the code the CPU path runs). The sampler
 * is an item's own (items of one launch may resize differently), so every
 * sampler of the source dtype is compiled in. */
template <int S, int D, int C>
__device__ __forceinline__ void gm__prep(const gm__prep_args& a)
{
    gm__each_pixel(a.width, a.height, a.count,
                   [&](long long b, long long y, long long x) { gm__prep_pixel(S, D, C, &a, b, y, x); });
}

/* The entry point of one pre-process row (gen/model.py): source dtype S,
 * destination dtype D, source channels C. */
#define GM__ENTRY_PREP(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__prep_args a) { gm__prep<S, D, C>(a); }
