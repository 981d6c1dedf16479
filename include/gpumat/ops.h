/* SPDX-License-Identifier: MIT */
/* gpumat/ops.h: convert, split, merge, transform, blob_from_image, resize.
 *
 * Every operation runs on the GPU when src and dst are GM_DEVICE (queued on
 * stream) and on the CPU when both are host memory (done on return); the two
 * paths agree bit for bit. Mixing locations is GM_ERR_LOCATION: use gm_copy.
 * Source and destination must not overlap. Batches are processed whole. */
#ifndef GPUMAT_OPS_H
#define GPUMAT_OPS_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A channel map entry that writes offset[c] instead of reading the source. */
#define GM_CONST (-1)

/* What gm_transform does to each destination channel c:
 *   dst[c] = saturate((src[map[c]] + pre[c]) * scale[c] + offset[c])
 * computed in float or double as OpenCV's convertTo does for the dtype pair,
 * multiply-add fused, integers rounded half to even. map[c] == GM_CONST writes
 * saturate(offset[c]). gm_xform_identity() is the starting point. */
typedef struct gm_xform {
    int map[4];
    double pre[4];
    double scale[4];
    double offset[4];
} gm_xform;

/* map = {0, 1, 2, 3}, pre = 0, scale = 1, offset = 0. */
GM_API gm_xform gm_xform_identity(void);

/* The fused operation all others are cases of: any dtype, channel count and
 * layout to any other, through xform (map entries beyond dst's channels are
 * not read). Sizes and batch must match. */
GM_API gm_status gm_transform(const gm_mat* src, gm_mat* dst, const gm_xform* xform, gm_stream stream);

/* cv::Mat::convertTo: dst = saturate(src * alpha + beta); same size, channels
 * and layout, any dtypes. */
GM_API gm_status gm_convert(const gm_mat* src, gm_mat* dst, double alpha, double beta, gm_stream stream);

/* cv::split: interleaved src -> planar dst of the same dtype and channels. */
GM_API gm_status gm_split(const gm_mat* src, gm_mat* dst, gm_stream stream);

/* cv::split into src->channels separate 1-channel images (any pitches). */
GM_API gm_status gm_split_planes(const gm_mat* src, gm_mat* planes, gm_stream stream);

/* cv::merge: planar src -> interleaved dst of the same dtype and channels. */
GM_API gm_status gm_merge(const gm_mat* src, gm_mat* dst, gm_stream stream);

/* cv::merge from count separate 1-channel images into interleaved dst. */
GM_API gm_status gm_merge_planes(const gm_mat* planes, int count, gm_mat* dst, gm_stream stream);

/* cv::dnn::blobFromImage without resize: dst[c] = (src[c'] - mean[c]) *
 * (scalefactor / std[c]), where c' swaps channels 0 and 2 when swap_rb and
 * mean/std are in dst's channel order (as OpenCV's swapRB swaps mean). mean
 * and std hold dst->channels values each (1, 3 or 4; only those are read);
 * mean NULL: 0; std NULL: 1; a std value that is 0, infinite or NaN is
 * GM_ERR_ARG. src interleaved with 1, 3 or 4 channels (swap_rb needs 3 or 4);
 * dst any dtype (f32 or f16 usually), GM_CHW (NCHW) or GM_HWC (NHWC), same
 * channels and batch. The difference and the product are in float, the
 * product by (float)(scalefactor / std[c]): std multiplies by its inverse,
 * it does not divide. With std NULL the f32 result is bit-identical to
 * blobFromImage of OpenCV 4.6 and 4.7, and to NCHW from 4.11 on
 * (GM_BLOB_FLOAT, gpumat/prep.h); gm_blob_from_image_with_params there
 * also multiplies as 4.8-4.10 do, per channel, or divides by std. */
GM_API gm_status gm_blob_from_image(const gm_mat* src, gm_mat* dst, double scalefactor, const double* mean,
                                    const double* std, int swap_rb, gm_stream stream);

/* cv::dnn::blobFromImages: count images of one size and type -> the count
 * images of batched dst; mean and std as for gm_blob_from_image. */
GM_API gm_status gm_blob_from_images(const gm_mat* images, int count, gm_mat* dst, double scalefactor,
                                     const double* mean, const double* std, int swap_rb, gm_stream stream);

/* cv::resize(src, dst, dst size, 0, 0, interp): src resampled to dst's size,
 * same dtype, channels and batch; layouts may differ (a planar dst is a
 * resize and a split in one pass). Any dtype, 1-4 channels, ROIs and foreign
 * pitches. Bit-exact with OpenCV 4.6 and 5.0's CPU cv::resize (without IPP)
 * for the dtypes OpenCV resizes: u8, u16, s16, f32, f64 (LINEAR_EXACT: u8,
 * s8, u16, s16, s32), including its reroutes (an exact 2x downscale by
 * LINEAR is AREA's cell mean; equal sizes copy). OpenCV has no resize of
 * s8, s32, f16 or bf16 otherwise: gpumat gives what OpenCV's resize of a
 * wider dtype holding the same values gives, rounded back: s8 as s16, s32
 * as f64 (so the exact 2x of LINEAR_EXACT, whose AREA OpenCV has no s32 code
 * for), f16 and bf16 as f32 (to nearest even). The CPU path gives the same
 * bits. */
GM_API gm_status gm_resize(const gm_mat* src, gm_mat* dst, gm_interp interp, gm_stream stream);

/* cv::resize(src, dst, Size(), fx, fy, interp): the explicit-scale form,
 * whose sampling follows fx and fy rather than the size ratio (they differ
 * where W * fx is not a whole number). dst must be round(W * fx) x
 * round(H * fy) (half to even, as OpenCV sizes it), else GM_ERR_SIZE says
 * which size; fx and fy positive and finite. */
GM_API gm_status gm_resize_scale(const gm_mat* src, gm_mat* dst, double fx, double fy, gm_interp interp,
                                 gm_stream stream);

/* Used by the generated typed functions (include/gpumat/gen/views.h). Each
 * passes a static description of itself: its name (what messages say), its
 * kernel slot, and the dtype, channels and layout of the views it takes; the
 * operations above then refuse a descriptor that its view type does not
 * describe (GM_ERR_TYPE: a C99 caller or a function pointer can hand over
 * the wrong view). The untyped functions pass NULL. */
typedef struct gm__view_type {
    const char* name; /* "gm_u8c3_hwc" */
    gm_dtype dtype;
    int channels;
    gm_layout layout; /* a 1-channel image is either */
} gm__view_type;

typedef struct gm__typed {
    const char* fn; /* "gm_convert_u8c3_hwc_f32c3_hwc" */
    int kernel;     /* the generic kernel of src.dtype -> dst.dtype, dst.channels (catalogue index) */
    gm__view_type src, dst;
} gm__typed;

GM_API gm_status gm__convert(const gm__typed* t, const gm_mat* src, gm_mat* dst, double alpha, double beta,
                             gm_stream stream);
GM_API gm_status gm__split(const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_stream stream);
GM_API gm_status gm__merge(const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_stream stream);
GM_API gm_status gm__blob(const gm__typed* t, const gm_mat* src, gm_mat* dst, double scalefactor, const double* mean,
                          const double* std, int swap_rb, gm_stream stream);

#ifdef __cplusplus
}
#endif

#endif
