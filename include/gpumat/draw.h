/* SPDX-License-Identifier: MIT */
/* gpumat/draw.h: drawing on frames where they are, GPU or host memory. */
#ifndef GPUMAT_DRAW_H
#define GPUMAT_DRAW_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cv::Mat::setTo(Scalar): channel c of every pixel of dst becomes value[c]
 * (dst->channels values are read), saturated to dst's dtype as OpenCV's
 * saturate_cast does: integers rounded half to even and clamped, f16 and
 * bf16 by way of float. A NaN or a value outside int32 goes to an integer
 * dtype as gm_convert's do (0; the nearer limit), not as x86 OpenCV's
 * INT_MIN. Any dtype, channels and layout, any view (an ROI, a plane, a
 * batch item, a whole batch); on the GPU when dst is device memory (queued
 * on stream), else on the CPU. */
GM_API gm_status gm_fill(gm_mat* dst, const double* value, gm_stream stream);

#ifdef __cplusplus
}
#endif

#endif
