/* SPDX-License-Identifier: MIT */
/* gpumat/warp.h: the matrices of geometric warps, computed on the host in
 * double as OpenCV's imgproc computes them (getRotationMatrix2D,
 * getAffineTransform, getPerspectiveTransform, invertAffineTransform; equal
 * bit for bit with OpenCV 4.6, tests/oracle.cpp), and the least-squares
 * similarity face alignment takes from landmarks. A 2x3 matrix is 6
 * doubles, row by row, (x, y) -> (M[0] x + M[1] y + M[2], M[3] x + M[4] y +
 * M[5]); a 3x3 one is 9, its result divided by (M[6] x + M[7] y + M[8]).
 * Points are (x, y) pairs one after another. */
#ifndef GPUMAT_WARP_H
#define GPUMAT_WARP_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

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
