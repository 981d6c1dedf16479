/* SPDX-License-Identifier: MIT */
/* gpumat/warp.h: geometric warps (cv::warpAffine, cv::warpPerspective) and
 * their matrices, computed on the host in double as OpenCV's imgproc
 * computes them (getRotationMatrix2D, getAffineTransform,
 * getPerspectiveTransform, invertAffineTransform; equal bit for bit with
 * OpenCV 4.6, tests/oracle.cpp), and the least-squares similarity face
 * alignment takes from landmarks. A 2x3 matrix is 6 doubles, row by row,
 * (x, y) -> (M[0] x + M[1] y + M[2], M[3] x + M[4] y + M[5]); a 3x3 one is
 * 9, its result divided by (M[6] x + M[7] y + M[8]). Points are (x, y)
 * pairs one after another. */
#ifndef GPUMAT_WARP_H
#define GPUMAT_WARP_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a warp samples; all zeros (or a NULL pointer) is cv::warpAffine's
 * default: bilinear, a constant border of 0, M mapping source to
 * destination, one matrix for every item. */
typedef struct gm_warp_params {
    gm_interp interp;    /* GM_INTER_LINEAR, _NEAREST or _CUBIC; _AREA is LINEAR, as in OpenCV */
    gm_border border;
    double value[4];     /* GM_BORDER_CONSTANT's value per channel (cv::Scalar), saturated to the dtype */
    int inverse;         /* nonzero: M maps destination to source (cv::WARP_INVERSE_MAP) */
    int per_item;        /* nonzero: M holds dst->batch matrices, one an item, one after another */
} gm_warp_params;

/* cv::warpAffine(src, dst, M, dst size, flags, border, value): each
 * destination pixel (x, y) of dst's size samples src at M^-1 (x, y) (at
 * M (x, y) with params->inverse). Any dtype, 1-4 channels, either layout
 * on each side, ROIs and foreign pitches; src and dst of one dtype and
 * channel count; dst->batch items, from src's items one to one or all from
 * src's one image (src->batch 1), each by its matrix (per_item) or all by
 * M. Bit-exact with OpenCV 4.6's CPU warpAffine (its fixed point: 1/32 of
 * a pixel, u8 in 15-bit weights) for u8, u16, s16, f32 and f64; s8, s32,
 * f16 and bf16, which OpenCV does not warp, as s16, f64 and f32 hold them
 * (gpumat/ops.h's gm_resize says the same), rounded back. OpenCV 4.9 to
 * 4.12 compute the same but for LINEAR with a transparent border, whose
 * edge pixels they write with the inside taps' weights renormalised;
 * OpenCV 5 samples 8U, 16U and 32F (1, 3, 4 channels) in float, with
 * results that depend on the CPU's instruction set. The CPU path
 * gives the same bits. A singular forward matrix is GM_ERR_ARG (OpenCV
 * warps by zeros then); src and dst must not overlap. */
GM_API gm_status gm_warp_affine(const gm_mat* src, gm_mat* dst, const double* M, const gm_warp_params* params,
                                gm_stream stream);

/* cv::warpPerspective: as gm_warp_affine with 3x3 matrices (9 doubles
 * each), inverted (without params->inverse) as cv::invert inverts them. */
GM_API gm_status gm_warp_perspective(const gm_mat* src, gm_mat* dst, const double* M, const gm_warp_params* params,
                                     gm_stream stream);

/* The five landmarks of ArcFace's (InsightFace's) 112x112 aligned face:
 * left eye, right eye, nose tip, left and right mouth corners, as (x, y)
 * pairs; the destination points of gm_similarity_from_points for a
 * recogniser's input (`static const double ref[10] = GM_ARCFACE_112;`).
 * InsightFace's norm_crop for a square crop of S pixels: where S is a
 * multiple of 112, each coordinate times S / 112; where a multiple of 128,
 * times S / 128, and x plus 8 S / 128. */
#define GM_ARCFACE_112 {38.2946, 51.6963, 73.5318, 51.5014, 56.0252, 71.7366, 41.5493, 92.3655, 70.7299, 92.2041}

/* cv::getRotationMatrix2D: a rotation by `angle` degrees (counter-clockwise
 * on screen: the y axis points down) about (center_x, center_y) and a
 * scale, into M[6]. The centre is single precision, as OpenCV's Point2f;
 * GM_ERR_ARG where M is NULL or an argument is not finite. */
GM_API gm_status gm_rotation_matrix(float center_x, float center_y, double angle, double scale, double M[6]);

/* cv::getAffineTransform: the 2x3 matrix M that maps the three points src
 * onto the three points dst (src[6], dst[6]), solved by OpenCV's Gaussian
 * elimination. GM_ERR_ARG, M unwritten, where the src points are collinear
 * (OpenCV returns zeros then), a point is not finite or a pointer NULL. */
GM_API gm_status gm_affine_from_points(const float src[6], const float dst[6], double M[6]);

/* cv::getPerspectiveTransform (DECOMP_LU, its default): the 3x3 matrix M
 * (M[8] = 1) that maps the four points src onto the four points dst
 * (src[8], dst[8]). GM_ERR_ARG, M unwritten, where the system is singular
 * (three src or dst points collinear; OpenCV returns zeros and M[8] = 1),
 * a point is not finite or a pointer NULL. */
GM_API gm_status gm_perspective_from_points(const float src[8], const float dst[8], double M[9]);

/* cv::invertAffineTransform: the 2x3 matrix that undoes M, into inverse
 * (which may be M). GM_ERR_ARG, inverse unwritten, where M's 2x2 part is
 * singular (OpenCV returns zeros), an entry is not finite or a pointer NULL. */
GM_API gm_status gm_invert_affine(const double M[6], double inverse[6]);

/* The similarity (rotation, one scale, translation; no reflection) that
 * maps the count points src onto the count points dst with the least sum
 * of squared distances (Umeyama 1991, as skimage's
 * SimilarityTransform.estimate that InsightFace's norm_crop calls), into
 * M[6]: [s cos t, -s sin t, tx; s sin t, s cos t, ty]. count >= 2;
 * GM_ERR_ARG, M unwritten, where the src points all coincide, a point is
 * not finite or a pointer NULL. With dst = GM_ARCFACE_112, M maps a face's
 * five detected landmarks onto ArcFace's: the matrix of its 112x112 warp. */
GM_API gm_status gm_similarity_from_points(const double* src, const double* dst, int count, double M[6]);

#ifdef __cplusplus
}
#endif

#endif
