/* SPDX-License-Identifier: MIT */
/* The transform kernel: one thread per pixel, all destination channels of it,
 * one pass over memory. Rows and images beyond the grid are covered by
 * stride loops so any height and batch fit in the launch limits. Every
 * gpumat operation (convert, split, merge, transform, blob) is a launch of
 * one specialization of it; the generator appends the extern "C" entry that
 * names the specialization. */
template <int S, int D, int CD>
__device__ __forceinline__ void gm__xform(const gm__xform_args& a)
{
    long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    gm__grid_begin();
    if (x >= a.width)
        return;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < a.height;
             y += (long long)gridDim.y * blockDim.y)
            gm__pixel(S, D, CD, &a, b, y, x);
}
