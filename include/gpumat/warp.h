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

/* Whose arithmetic a warp reproduces, bit for bit (tests/oracle.cpp,
 * tests/oracle_pip.py):
 *
 *   mode             dtype, channels          NEAREST, LINEAR        CUBIC
 *   GM_WARP_OPENCV4  all                      4.6 to 4.12 (a)        4.6 to 4.12
 *   GM_WARP_OPENCV5  u8 u16 f32; 1, 3, 4      5.0 (b)                refused (c)
 *                    f16 bf16; 1, 3, 4        5.0's as f32 (d)       refused (c)
 *                    the others (e)           as GM_WARP_OPENCV4     refused (c)
 *
 * (a) but LINEAR with GM_BORDER_TRANSPARENT from 4.9 on, which writes the
 *     edge pixels with the inside taps' weights renormalised.
 * (b) OpenCV 5.0's float warp (opencv #27280) as its x86 build computes it
 *     with AVX2 or AVX-512 (any x86-64 since 2013): no 1/32 quantisation
 *     of positions or weights; a transparent border blends a pixel whose
 *     taps fall partly outside with the destination's own value there
 *     (4.x leaves it). Built for other CPUs (or with AVX2 turned
 *     off) OpenCV 5.0 rounds some positions differently.
 * (c) OpenCV 5.0 changed its cubic warp too; gpumat does not reproduce it.
 * (d) OpenCV 5.0 refuses f16; gpumat warps it and bf16 as the f32 holding
 *     the same values, rounded back to nearest even.
 * (e) which OpenCV 5.0 warps as 4.10 does (so (a) holds there too): 2
 *     channels, s16 and f64, and s8 and s32 by NEAREST (5.0 refuses their
 *     LINEAR; gpumat gives 4.x's).
 * The pre-process's warp placement (gpumat/prep.h, GM_FIT_WARP) samples as
 * GM_WARP_OPENCV4. */
typedef enum gm_warp_mode {
    GM_WARP_OPENCV4 = 0, /* OpenCV 4.x's fixed point: positions in 1/32 pixel, u8 by 15-bit weights */
    GM_WARP_OPENCV5 = 1  /* OpenCV 5.0's float positions and weights */
} gm_warp_mode;

/* How a warp samples; all zeros (or a NULL pointer) is cv::warpAffine's
 * default: bilinear, a constant border of 0, M mapping source to
 * destination, one matrix for every item, OpenCV 4's arithmetic. */
typedef struct gm_warp_params {
    gm_interp interp;    /* GM_INTER_LINEAR, _NEAREST or _CUBIC; _AREA is LINEAR, as in OpenCV */
    gm_border border;
    double value[4];     /* GM_BORDER_CONSTANT's value per channel (cv::Scalar), saturated to the dtype */
    int inverse;         /* nonzero: M maps destination to source (cv::WARP_INVERSE_MAP) */
    int per_item;        /* nonzero: M holds dst->batch matrices, one an item, one after another */
    gm_warp_mode mode;   /* whose arithmetic (the table above) */
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
 * (gpumat/ops.h's gm_resize says the same), rounded back; params->mode
 * GM_WARP_OPENCV5 gives OpenCV 5.0's float warp instead (the table above).
 * The CPU path gives the same bits. A singular forward matrix is GM_ERR_ARG (OpenCV
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
