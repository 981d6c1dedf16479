/* SPDX-License-Identifier: MIT */
/* gm_yuv_convert: a thread a destination pixel (templates/yuv.inc). Blocks
 * along x cover a row, along y the rows, along z the items; stride loops
 * cover rows and items beyond the grid's 65535. */

/* The entry point of the conversion's one catalogue row (its fields
 * unused). */
#define GM__ENTRY_YUV(name, S, D, C, LS, LD, P, R, B, I)                                                   \
    extern "C" __global__ void __launch_bounds__(GM__YUV_THREADS) name(gm__yuv_args a)                    \
    {                                                                                                        \
        const long long x = (long long)blockIdx.x * GM__YUV_THREADS + threadIdx.x;                           \
        gm__grid_begin();                                                                                    \
        if (x >= a.width)                                                                                    \
            return;                                                                                          \
        for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)                                          \
            for (long long y = blockIdx.y; y < a.height; y += gridDim.y)                                     \
                gm__yuv_pixel(&a, b, x, y);                                                                  \
    }
