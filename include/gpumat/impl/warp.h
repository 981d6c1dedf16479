/* SPDX-License-Identifier: MIT */
/* Implementation: the warp matrices of gpumat/warp.h, on the host in
 * double, each in the order of operations of OpenCV 4.6's imgproc
 * (imgwarp.cpp) so that the results are its bits. */

#include <float.h>
#include <math.h>
#include <string.h>

/* Solves the m x m system a x = b in place (b becomes x) as cv::solve's
 * DECOMP_LU does for systems larger than 3x3 (core's LUImpl): Gaussian
 * elimination with the largest pivot of each column, rows swapped, the
 * eliminated rows updated by the pivot row times -a[j][i] / a[i][i]; then
 * back substitution. 0 where a pivot is below 100 DBL_EPSILON in magnitude,
 * OpenCV's test for a singular system. */
static int gm__lu_solve(double* a, int m, double* b)
{
    int i, j, k;
    for (i = 0; i < m; ++i) {
        double d;
        k = i;
        for (j = i + 1; j < m; ++j)
            if (fabs(a[j * m + i]) > fabs(a[k * m + i]))
                k = j;
        if (fabs(a[k * m + i]) < DBL_EPSILON * 100)
            return 0;
        if (k != i) {
            double t;
            for (j = i; j < m; ++j)
                t = a[i * m + j], a[i * m + j] = a[k * m + j], a[k * m + j] = t;
            t = b[i], b[i] = b[k], b[k] = t;
        }
        d = -1 / a[i * m + i];
        for (j = i + 1; j < m; ++j) {
            const double alpha = a[j * m + i] * d;
            for (k = i + 1; k < m; ++k)
                a[j * m + k] += alpha * a[i * m + k];
            b[j] += alpha * b[i];
        }
    }
    for (i = m - 1; i >= 0; --i) {
        double s = b[i];
        for (k = i + 1; k < m; ++k)
            s -= a[i * m + k] * b[k];
        b[i] = s / a[i * m + i];
    }
    return 1;
}

/* The m unknowns of a x = b (gm__lu_solve) into M; which: the points that
 * made a singular system collinear, for the message. */
static gm_status gm__solve_into(const char* fn, const char* which, double* a, int m, double* b, double* M)
{
    if (!gm__lu_solve(a, m, b))
        return gm__fail(GM_ERR_ARG, "%s: %s are collinear (the system is singular)", fn, which);
    memcpy(M, b, (size_t)m * sizeof *b);
    return GM_OK;
}

GM_API gm_status gm_rotation_matrix(float center_x, float center_y, double angle, double scale, double M[6])
{
    static const char fn[] = "gm_rotation_matrix";
    const double cx = center_x, cy = center_y;
    double alpha, beta;
    gm_status s = gm__check_rotation(fn, center_x, center_y, angle, scale, M);
    if (s != GM_OK)
        return s;
    angle *= 3.14159265358979323846 / 180; /* CV_PI */
    alpha = cos(angle) * scale;
    beta = sin(angle) * scale;
    M[0] = alpha, M[1] = beta, M[2] = (1 - alpha) * cx - beta * cy;
    M[3] = -beta, M[4] = alpha, M[5] = beta * cx + (1 - alpha) * cy;
    return GM_OK;
}

GM_API gm_status gm_affine_from_points(const float src[6], const float dst[6], double M[6])
{
    static const char fn[] = "gm_affine_from_points";
    double a[36], b[6];
    int i;
    gm_status s = gm__check_warp_points(fn, src, dst, 3, M);
    if (s != GM_OK)
        return s;
    /* rows 2i and 2i + 1: point i's x' and y', the unknowns M[0..5] in order */
    memset(a, 0, sizeof a);
    for (i = 0; i < 3; ++i) {
        double* r = a + 12 * i;
        r[0] = r[9] = src[2 * i];
        r[1] = r[10] = src[2 * i + 1];
        r[2] = r[11] = 1;
        b[2 * i] = dst[2 * i];
        b[2 * i + 1] = dst[2 * i + 1];
    }
    return gm__solve_into(fn, "src: the three points", a, 6, b, M);
}

GM_API gm_status gm_perspective_from_points(const float src[8], const float dst[8], double M[9])
{
    static const char fn[] = "gm_perspective_from_points";
    double a[64], b[8];
    int i;
    gm_status s = gm__check_warp_points(fn, src, dst, 4, M);
    if (s != GM_OK)
        return s;
    /* rows i and i + 4: point i's x' and y'; the products of coordinates
     * are single precision, as OpenCV's of its Point2f */
    memset(a, 0, sizeof a);
    for (i = 0; i < 4; ++i) {
        const float x = src[2 * i], y = src[2 * i + 1], u = dst[2 * i], v = dst[2 * i + 1];
        double* r = a + 8 * i;
        double* q = a + 8 * (i + 4);
        r[0] = q[3] = x;
        r[1] = q[4] = y;
        r[2] = q[5] = 1;
        r[6] = -(float)(x * u);
        r[7] = -(float)(y * u);
        q[6] = -(float)(x * v);
        q[7] = -(float)(y * v);
        b[i] = u;
        b[i + 4] = v;
    }
    if ((s = gm__solve_into(fn, "src, dst: three of the points", a, 8, b, M)) == GM_OK)
        M[8] = 1;
    return s;
}

GM_API gm_status gm_invert_affine(const double M[6], double inverse[6])
{
    static const char fn[] = "gm_invert_affine";
    double d, a11, a12, a21, a22;
    gm_status s = gm__check_affine(fn, M, inverse);
    if (s != GM_OK)
        return s;
    d = M[0] * M[4] - M[1] * M[3];
    if (d == 0)
        return gm__fail(GM_ERR_ARG, "%s: M: its 2x2 part is singular (determinant 0)", fn);
    d = 1 / d;
    a11 = M[4] * d, a22 = M[0] * d, a12 = -M[1] * d, a21 = -M[3] * d;
    inverse[2] = -a11 * M[2] - a12 * M[5];
    inverse[5] = -a21 * M[2] - a22 * M[5];
    inverse[0] = a11, inverse[1] = a12, inverse[3] = a21, inverse[4] = a22;
    return GM_OK;
}

/* The least squares in closed form: with both point sets centred, the
 * rotation's cos and sin are proportional to sum(x x' + y y') and
 * sum(x y' - y x'), and the scale is their norm over sum(x^2 + y^2). It
 * is Umeyama's solution: for a 2x2 covariance that norm is the sum of the
 * singular values, the second negated where the determinant is negative
 * (his reflection correction). */
GM_API gm_status gm_similarity_from_points(const double* src, const double* dst, int count, double M[6])
{
    static const char fn[] = "gm_similarity_from_points";
    double sx = 0, sy = 0, dx = 0, dy = 0, p = 0, q = 0, var = 0, c, k;
    int i;
    gm_status s = gm__check_similarity(fn, src, dst, count, M);
    if (s != GM_OK)
        return s;
    for (i = 0; i < count; ++i)
        sx += src[2 * i], sy += src[2 * i + 1], dx += dst[2 * i], dy += dst[2 * i + 1];
    sx /= count, sy /= count, dx /= count, dy /= count;
    for (i = 0; i < count; ++i) {
        const double x = src[2 * i] - sx, y = src[2 * i + 1] - sy, u = dst[2 * i] - dx, v = dst[2 * i + 1] - dy;
        p += x * u + y * v;
        q += x * v - y * u;
        var += x * x + y * y;
    }
    if (var == 0)
        return gm__fail(GM_ERR_ARG, "%s: src: the %d points coincide", fn, count);
    c = p / var, k = q / var; /* s cos t, s sin t */
    M[0] = c, M[1] = -k, M[2] = dx - (c * sx - k * sy);
    M[3] = k, M[4] = c, M[5] = dy - (k * sx + c * sy);
    return GM_OK;
}
