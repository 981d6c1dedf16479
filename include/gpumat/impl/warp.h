/* SPDX-License-Identifier: MIT */
/* Implementation: the warps of gpumat/warp.h (checked in check.h, planned
 * in plan.h, sampled by templates/warp.inc) and their matrices, on the host
 * in double, each in the order of operations of OpenCV 4.6's imgproc
 * (imgwarp.cpp) so that the results are its bits; every product rounded on
 * its own (GM__MUL_D), as OpenCV's x86 build rounds them, whatever the
 * includer's -ffp-contract. */

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
                a[j * m + k] += GM__MUL_D(alpha, a[i * m + k]);
            b[j] += GM__MUL_D(alpha, b[i]);
        }
    }
    for (i = m - 1; i >= 0; --i) {
        double s = b[i];
        for (k = i + 1; k < m; ++k)
            s -= GM__MUL_D(a[i * m + k], b[k]);
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

/* a b - c d, the products rounded on their own. */
static double gm__cross(double a, double b, double c, double d) { return GM__MUL_D(a, b) - GM__MUL_D(c, d); }

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
    M[0] = alpha, M[1] = beta, M[2] = GM__MUL_D(1 - alpha, cx) - GM__MUL_D(beta, cy);
    M[3] = -beta, M[4] = alpha, M[5] = GM__MUL_D(beta, cx) + GM__MUL_D(1 - alpha, cy);
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

/* The destination -> source matrix of a forward 2x3 M, in place, as
 * cv::warpAffine inverts it (invertAffineTransform's arithmetic); 0 where
 * its 2x2 part is singular. */
static int gm__invert_2x3(double* M)
{
    double d = GM__MUL_D(M[0], M[4]) - GM__MUL_D(M[1], M[3]), a11, a22;
    if (d == 0)
        return 0;
    d = 1 / d;
    a11 = M[4] * d, a22 = M[0] * d;
    M[0] = a11, M[1] *= -d, M[3] *= -d, M[4] = a22;
    a11 = GM__MUL_D(-M[0], M[2]) - GM__MUL_D(M[1], M[5]);
    a22 = GM__MUL_D(-M[3], M[2]) - GM__MUL_D(M[4], M[5]);
    M[2] = a11, M[5] = a22;
    return 1;
}

GM_API gm_status gm_invert_affine(const double M[6], double inverse[6])
{
    static const char fn[] = "gm_invert_affine";
    double t[6];
    gm_status s = gm__check_affine(fn, M, inverse);
    if (s != GM_OK)
        return s;
    memcpy(t, M, sizeof t);
    if (!gm__invert_2x3(t))
        return gm__fail(GM_ERR_ARG, "%s: M: its 2x2 part is singular (determinant 0)", fn);
    memcpy(inverse, t, sizeof t);
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
        p += GM__MUL_D(x, u) + GM__MUL_D(y, v);
        q += GM__MUL_D(x, v) - GM__MUL_D(y, u);
        var += GM__MUL_D(x, x) + GM__MUL_D(y, y);
    }
    if (var == 0)
        return gm__fail(GM_ERR_ARG, "%s: src: the %d points coincide", fn, count);
    c = p / var, k = q / var; /* s cos t, s sin t */
    M[0] = c, M[1] = -k, M[2] = dx - gm__cross(c, sx, k, sy);
    M[3] = k, M[4] = c, M[5] = dy - (GM__MUL_D(k, sx) + GM__MUL_D(c, sy));
    return GM_OK;
}

/* The determinant of a 3x3 M as cv::invert expands it (along row 0). */
static double gm__det3(const double* m)
{
    return GM__MUL_D(m[0], gm__cross(m[4], m[8], m[5], m[7])) - GM__MUL_D(m[1], gm__cross(m[3], m[8], m[5], m[6])) +
           GM__MUL_D(m[2], gm__cross(m[3], m[7], m[4], m[6]));
}

/* A 3x3 M inverted in place as cv::invert (DECOMP_LU) inverts a 3x3
 * double matrix: cofactors times 1 / the determinant; 0 where it is 0. */
static int gm__invert_3x3(double* m)
{
    double d = gm__det3(m), t[9];
    if (d == 0)
        return 0;
    d = 1 / d;
    t[0] = gm__cross(m[4], m[8], m[5], m[7]) * d;
    t[1] = gm__cross(m[2], m[7], m[1], m[8]) * d;
    t[2] = gm__cross(m[1], m[5], m[2], m[4]) * d;
    t[3] = gm__cross(m[5], m[6], m[3], m[8]) * d;
    t[4] = gm__cross(m[0], m[8], m[2], m[6]) * d;
    t[5] = gm__cross(m[2], m[3], m[0], m[5]) * d;
    t[6] = gm__cross(m[3], m[7], m[4], m[6]) * d;
    t[7] = gm__cross(m[1], m[6], m[0], m[7]) * d;
    t[8] = gm__cross(m[0], m[4], m[1], m[3]) * d;
    memcpy(m, t, sizeof t);
    return 1;
}

/* A launch's parameters are at most 4 KB. */
typedef char gm__warp_args_fit[sizeof(gm__warp_args) <= 4096 ? 1 : -1];

/* gm_warp_affine (n = 6) and gm_warp_perspective (n = 9): checked, every
 * forward matrix tested for an inverse before anything runs, then the
 * items in launches of GM__WARP_DOUBLES / n matrices (all at once with one
 * matrix), each matrix inverted in its launch's arguments. */
static gm_status gm__warp(const char* fn, const gm_mat* src, gm_mat* dst, const double* M, int n,
                          const gm_warp_params* params, gm_stream stream)
{
    gm_warp_params p;
    gm__plan plan;
    double m[9];
    long long first, count, step;
    int i, matrices;
    gm_status s = gm__check_warp(fn, src, dst, M, n, params, &p);
    if (s != GM_OK)
        return s;
    matrices = p.per_item ? (int)dst->batch : 1;
    for (i = 0; i < matrices && !p.inverse; ++i) {
        memcpy(m, M + i * n, (size_t)n * sizeof *M);
        if (!(n == 9 ? gm__invert_3x3(m) : gm__invert_2x3(m)))
            return p.per_item ? gm__fail(GM_ERR_ARG, "%s: M: item %d's matrix is singular (no inverse maps dst to src)",
                                         fn, i)
                              : gm__fail(GM_ERR_ARG, "%s: M is singular (no inverse maps dst to src)", fn);
    }
    step = p.per_item ? GM__WARP_DOUBLES / n : dst->batch;
    for (first = 0; first < dst->batch; first += count) {
        count = dst->batch - first < step ? dst->batch - first : step;
        gm__plan_of(&plan, fn, gm__warp_kernel(dst, &p), dst);
        gm__warp_args_of(&plan.args.warp, src, dst, M, n, first, count, &p);
        for (i = 0; i < plan.args.warp.matrices && !p.inverse; ++i)
            (void)(n == 9 ? gm__invert_3x3(plan.args.warp.M + 9 * i) : gm__invert_2x3(plan.args.warp.M + 6 * i));
        if ((s = gm__run(&plan, stream)) != GM_OK)
            return s;
    }
    return GM_OK;
}

GM_API gm_status gm_warp_affine(const gm_mat* src, gm_mat* dst, const double* M, const gm_warp_params* params,
                                gm_stream stream)
{
    return gm__warp("gm_warp_affine", src, dst, M, 6, params, stream);
}

GM_API gm_status gm_warp_perspective(const gm_mat* src, gm_mat* dst, const double* M, const gm_warp_params* params,
                                     gm_stream stream)
{
    return gm__warp("gm_warp_perspective", src, dst, M, 9, params, stream);
}
