/* SPDX-License-Identifier: MIT */
/* The transform kernel: one thread per pixel, all destination channels of it,
 * one pass over memory. Every gpumat operation (convert, split, merge,
 * transform, blob) is a launch of one specialization of it; the generator
 * appends the extern "C" entry that names the specialization. */
template <int S, int D, int CD>
__device__ __forceinline__ void gm__xform(const gm__xform_args& a)
{
    gm__each_run(a.width, a.height, a.batch, 1,
                 [&](long long b, long long x, long long y, long long) { gm__pixel(S, D, CD, &a, b, y, x); });
}

/* The entry point of one catalogue row of this family (gen/model.py): every
 * family's entry macro takes the same row fields, in the same order, and uses
 * the ones its template needs (the generic kernel: S, D and its C). */
#define GM__ENTRY_XFORM(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__xform_args a) { gm__xform<S, D, C>(a); }
