/* SPDX-License-Identifier: MIT */
/* Implementation: the operations of gpumat/ops.h. Each one checks its
 * arguments (check.h) and describes itself as ops (plan.h: per-channel addresses,
 * strides, map, arithmetic), which the planner and the runner (run.h) carry
 * out on the GPU or the CPU. gm__<op>_ops describes without running, for
 * tests that ask the planner what an operation would launch. */

#include <math.h>
#include <stdio.h>

GM_API gm_xform gm_xform_identity(void)
{
    gm_xform x;
    int c;
    for (c = 0; c < 4; ++c) {
        x.map[c] = c;
        x.pre[c] = 0.0;
        x.scale[c] = 1.0;
        x.offset[c] = 0.0;
    }
    return x;
}

/* The name messages give the operation: the typed function the user called,
 * else the untyped one. */
static const char* gm__fn(const gm__typed* t, const char* untyped) { return t ? t->fn : untyped; }

/* The most ops one operation describes: one a channel. */
#define GM__MAX_OPS 4

/* What an operation comes to: ops run in order (plan.h, run.h). */
typedef struct gm__ops {
    gm__op op[GM__MAX_OPS];
    int n;
} gm__ops;

/* Runs what an operation described, once it described it without fault. */
static gm_status gm__run_described(gm_status described, const gm__ops* d, gm_stream stream)
{
    return described != GM_OK ? described : gm__run_ops(d->op, d->n, stream);
}

/* Adds src -> dst through xform to d, once the pair has passed
 * gm__check_pair (the callers that check more than the pair do it once, not
 * twice). */
static gm_status gm__xform_op(const char* fn, const gm__typed* t, const gm_mat* src, const gm_mat* dst,
                              const gm_xform* xform, gm__ops* d)
{
    gm__side from, to;
    gm_status s = gm__check_xform(fn, t, src, dst, xform);
    if (s != GM_OK)
        return s;
    from = gm__side_of(src);
    to = gm__side_of(dst);
    d->op[d->n++] = gm__op_of(fn, &from, &to, src, xform);
    return GM_OK;
}

static gm_status gm__transform_ops(const gm_mat* src, const gm_mat* dst, const gm_xform* xform, gm__ops* d)
{
    static const char fn[] = "gm_transform";
    gm_status s = gm__check_pair(fn, NULL, src, "dst", dst);
    return s != GM_OK ? s : gm__xform_op(fn, NULL, src, dst, xform, d);
}

GM_API gm_status gm_transform(const gm_mat* src, gm_mat* dst, const gm_xform* xform, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__transform_ops(src, dst, xform, &d), &d, stream);
}

static gm_status gm__convert_ops(const gm__typed* t, const gm_mat* src, const gm_mat* dst, double alpha, double beta,
                                 gm__ops* d)
{
    const char* fn = gm__fn(t, "gm_convert");
    gm_xform x = gm_xform_identity();
    int c;
    gm_status s = gm__check_convert(fn, t, src, dst);
    if (s != GM_OK)
        return s;
    for (c = 0; c < 4; ++c) {
        x.scale[c] = alpha;
        x.offset[c] = beta;
    }
    return gm__xform_op(fn, t, src, dst, &x, d);
}

GM_API gm_status gm__convert(const gm__typed* t, const gm_mat* src, gm_mat* dst, double alpha, double beta,
                             gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__convert_ops(t, src, dst, alpha, beta, &d), &d, stream);
}

GM_API gm_status gm_convert(const gm_mat* src, gm_mat* dst, double alpha, double beta, gm_stream stream)
{
    return gm__convert(NULL, src, dst, alpha, beta, stream);
}

/* split and merge: the same-dtype transform from layout `from` to the other. */
static gm_status gm__relayout_ops(const gm__typed* t, const gm_mat* src, const gm_mat* dst, gm_layout from,
                                  gm__ops* d)
{
    const char* fn = gm__fn(t, from == GM_HWC ? "gm_split" : "gm_merge");
    gm_xform x = gm_xform_identity();
    gm_status s = gm__check_relayout(fn, t, src, dst, from);
    return s != GM_OK ? s : gm__xform_op(fn, t, src, dst, &x, d);
}

GM_API gm_status gm__split(const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__relayout_ops(t, src, dst, GM_HWC, &d), &d, stream);
}

GM_API gm_status gm__merge(const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__relayout_ops(t, src, dst, GM_CHW, &d), &d, stream);
}

GM_API gm_status gm_split(const gm_mat* src, gm_mat* dst, gm_stream stream) { return gm__split(NULL, src, dst, stream); }

GM_API gm_status gm_merge(const gm_mat* src, gm_mat* dst, gm_stream stream) { return gm__merge(NULL, src, dst, stream); }

static int gm__same_pitches(const gm_mat* planes, int count)
{
    int c;
    for (c = 1; c < count; ++c)
        if (planes[c].pitch != planes[0].pitch || planes[c].batch_pitch != planes[0].batch_pitch)
            return 0;
    return 1;
}

/* Planes that share their pitches are one planar image with its own plane
 * addresses (one op); others are written one channel at a time. */
static gm_status gm__split_planes_ops(const gm_mat* src, const gm_mat* planes, gm__ops* d)
{
    static const char fn[] = "gm_split_planes";
    gm_xform x = gm_xform_identity();
    gm__side from, to;
    int c;
    gm_status s;
    if ((s = gm__check(fn, "src", src)) != GM_OK || (s = gm__check_planes(fn, planes, src->channels, src, 1)) != GM_OK)
        return s;
    from = gm__side_of(src);
    if (gm__same_pitches(planes, src->channels)) {
        to = gm__side_of_planes(planes, src->channels);
        d->op[d->n++] = gm__op_of(fn, &from, &to, src, &x);
        return GM_OK;
    }
    for (c = 0; c < src->channels; ++c) {
        from = gm__side_of_channel(src, c);
        to = gm__side_of(&planes[c]);
        d->op[d->n++] = gm__op_of(fn, &from, &to, src, &x);
    }
    return GM_OK;
}

GM_API gm_status gm_split_planes(const gm_mat* src, gm_mat* planes, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__split_planes_ops(src, planes, &d), &d, stream);
}

static gm_status gm__merge_planes_ops(const gm_mat* planes, int count, const gm_mat* dst, gm__ops* d)
{
    static const char fn[] = "gm_merge_planes";
    gm_xform x = gm_xform_identity();
    gm__side from, to;
    int c;
    gm_status s;
    if ((s = gm__check(fn, "dst", dst)) != GM_OK || (s = gm__check_planes(fn, planes, count, dst, 0)) != GM_OK)
        return s;
    to = gm__side_of(dst);
    if (gm__same_pitches(planes, count)) {
        from = gm__side_of_planes(planes, count);
        d->op[d->n++] = gm__op_of(fn, &from, &to, dst, &x);
        return GM_OK;
    }
    for (c = 0; c < count; ++c) {
        from = gm__side_of(&planes[c]);
        to = gm__side_of_channel(dst, c);
        d->op[d->n++] = gm__op_of(fn, &from, &to, dst, &x);
    }
    return GM_OK;
}

GM_API gm_status gm_merge_planes(const gm_mat* planes, int count, gm_mat* dst, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__merge_planes_ops(planes, count, dst, &d), &d, stream);
}

/* A blob's parameters in either form: gm_blob_from_image's (params NULL),
 * or a gm_blob_params (gpumat/prep.h). */
typedef struct gm__blob_args {
    double scalefactor;
    const double *mean, *std;
    int swap_rb;
    const gm_blob_params* params;
} gm__blob_args;

/* Whether a blob in either form swaps R and B. */
static int gm__blob_swap_rb(const gm__blob_args* b) { return b->params ? b->params->swap_rb : b->swap_rb; }

/* The transform a checked blob (gm__check_blob) of src is: *x. */
static void gm__blob_xform(const gm_mat* src, const gm__blob_args* b, gm_xform* x)
{
    const gm_blob_params* p = b->params;
    const int swap_rb = gm__blob_swap_rb(b);
    int c;
    *x = gm_xform_identity();
    /* mean and std hold dst->channels (== src->channels) values: no more are read */
    for (c = 0; c < src->channels; ++c) {
        x->map[c] = swap_rb && (c == 0 || c == 2) ? 2 - c : c;
        if (p) {
            x->pre[c] = -p->mean[c];
            x->scale[c] = p->scale[c] == 0.0 ? 1.0 : p->scale[c];
        } else {
            x->pre[c] = b->mean ? -b->mean[c] : 0.0;
            x->scale[c] = b->std ? b->scalefactor / b->std[c] : b->scalefactor;
        }
    }
}

/* Checks one blob (fn, or the typed function t) and describes it. */
static gm_status gm__blob_ops_as(const char* fn, const gm__typed* t, const gm_mat* src, const gm_mat* dst,
                                 const gm__blob_args* b, gm__ops* d)
{
    gm_xform x;
    gm_status s = gm__check_blob(fn, t, "src", src, dst, b->params, gm__blob_swap_rb(b), b->std);
    if (s != GM_OK)
        return s;
    gm__blob_xform(src, b, &x);
    return gm__xform_op(fn, t, src, dst, &x, d);
}

static gm_status gm__blob_ops(const gm__typed* t, const gm_mat* src, const gm_mat* dst, double scalefactor,
                              const double* mean, const double* std, int swap_rb, gm__ops* d)
{
    gm__blob_args b;
    b.scalefactor = scalefactor, b.mean = mean, b.std = std, b.swap_rb = swap_rb, b.params = NULL;
    return gm__blob_ops_as(gm__fn(t, "gm_blob_from_image"), t, src, dst, &b, d);
}

GM_API gm_status gm__blob(const gm__typed* t, const gm_mat* src, gm_mat* dst, double scalefactor, const double* mean,
                          const double* std, int swap_rb, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__blob_ops(t, src, dst, scalefactor, mean, std, swap_rb, &d), &d, stream);
}

GM_API gm_status gm_blob_from_image(const gm_mat* src, gm_mat* dst, double scalefactor, const double* mean,
                                    const double* std, int swap_rb, gm_stream stream)
{
    return gm__blob(NULL, src, dst, scalefactor, mean, std, swap_rb, stream);
}

/* Checks count images into batched dst (fn: gm_blob_from_images or its
 * _with_params form, gm__check_blob_images) and gives the transform they
 * share: *x. */
static gm_status gm__blob_images_check(const char* fn, const gm_mat* images, int count, const gm_mat* dst,
                                       const gm__blob_args* b, gm_xform* x)
{
    gm_status s = gm__check_blob_images(fn, images, count, dst, b->params, gm__blob_swap_rb(b), b->std);
    if (s == GM_OK)
        gm__blob_xform(&images[0], b, x);
    return s;
}

/* The checked images through transform x, one op an image, described and
 * run in turn (count has no bound). */
static gm_status gm__blob_images_run(const char* fn, const gm_mat* images, int count, gm_mat* dst, const gm_xform* x,
                                     gm_stream stream)
{
    gm_mat item;
    int i;
    gm_status s;
    for (i = 0; i < count; ++i) {
        gm__ops d;
        d.n = 0;
        if ((s = gm_item(dst, &item, i)) != GM_OK ||
            (s = gm__run_described(gm__xform_op(fn, NULL, &images[i], &item, x, &d), &d, stream)) != GM_OK)
            return s;
    }
    return GM_OK;
}

GM_API gm_status gm_blob_from_images(const gm_mat* images, int count, gm_mat* dst, double scalefactor,
                                     const double* mean, const double* std, int swap_rb, gm_stream stream)
{
    static const char fn[] = "gm_blob_from_images";
    gm__blob_args b;
    gm_xform x;
    gm_status s;
    b.scalefactor = scalefactor, b.mean = mean, b.std = std, b.swap_rb = swap_rb, b.params = NULL;
    if ((s = gm__blob_images_check(fn, images, count, dst, &b, &x)) != GM_OK)
        return s;
    return gm__blob_images_run(fn, images, count, dst, &x, stream);
}

static int gm__floating(gm_dtype d)
{
    return d == GM_F32 || d == GM_F64 || d == GM_F16 || d == GM_BF16;
}

/* Where cv::resize samples from a W x H source for a destination at
 * OpenCV's inverse scales inv_x, inv_y (dw / W, or the caller's fx), with
 * its reroutes: LINEAR_EXACT of a floating dtype is LINEAR; an exact 2x
 * downscale by LINEAR (or by LINEAR_EXACT, but for 2 channels) is AREA;
 * AREA by whole factors is the cell mean (area_fast), another downscale the
 * general area sampler, an upscale (either axis) the linear sampler with
 * area coefficients. */
static gm__resize_map gm__resize_map_of(const gm_mat* src, gm_interp interp, double inv_x, double inv_y)
{
    gm__resize_map g;
    int fast;
    memset(&g, 0, sizeof g);
    g.src_width = src->width;
    g.src_height = src->height;
    g.inv_x = inv_x;
    g.inv_y = inv_y;
    g.scale_x = 1.0 / inv_x;
    g.scale_y = 1.0 / inv_y;
    g.iscale_x = (int)rint(g.scale_x);
    g.iscale_y = (int)rint(g.scale_y);
    fast = fabs(g.scale_x - g.iscale_x) < DBL_EPSILON && fabs(g.scale_y - g.iscale_y) < DBL_EPSILON;
    if (interp == GM_INTER_LINEAR_EXACT && gm__floating(src->dtype))
        interp = GM_INTER_LINEAR;
    if (interp == GM_INTER_LINEAR_EXACT) {
        if (!(fast && g.iscale_x == 2 && g.iscale_y == 2 && src->channels != 2)) {
            g.sampler = GM__SAMPLER_LINEAR_EXACT;
            return g;
        }
        interp = GM_INTER_AREA;
    }
    if (interp == GM_INTER_NEAREST) {
        g.sampler = GM__SAMPLER_NEAREST;
        return g;
    }
    if (interp == GM_INTER_LINEAR && fast && g.iscale_x == 2 && g.iscale_y == 2)
        interp = GM_INTER_AREA;
    /* LINEAR by odd whole factors kx, ky reads the taps at k d + (k - 1) / 2
     * by weights 1 and 0 (2048 and 0), which OpenCV's arithmetic returns
     * unchanged for the integer dtypes (for the floating ones a second tap
     * of inf or -0 would show): NEAREST there, one tap read, not four
     * (factors below 2^16, the offsets' range; sides up to 2^24, where
     * OpenCV's float coordinate is still the whole k d + (k - 1) / 2). */
    if (interp == GM_INTER_LINEAR && !gm__floating(src->dtype) && g.scale_x == g.iscale_x && g.iscale_x % 2 &&
        g.scale_y == g.iscale_y && g.iscale_y % 2 && g.iscale_x < 65536 && g.iscale_y < 65536 &&
        g.src_width <= 1 << 24 && g.src_height <= 1 << 24) {
        g.sampler = GM__SAMPLER_NEAREST;
        g.offset_x = (short)((g.iscale_x - 1) / 2);
        g.offset_y = (short)((g.iscale_y - 1) / 2);
        return g;
    }
    if (interp == GM_INTER_AREA && g.scale_x >= 1.0 && g.scale_y >= 1.0) {
        g.sampler = fast ? GM__SAMPLER_AREA_FAST : GM__SAMPLER_AREA;
        return g;
    }
    g.sampler = GM__SAMPLER_LINEAR;
    g.area_coeffs = interp == GM_INTER_AREA;
    return g;
}

/* Checks one resize and describes it: a copy where the sizes are equal (as
 * cv::resize does), else the sampler's op. fx, fy: cv::resize's explicit
 * scales, or 0 for the size ratio. */
static gm_status gm__resize_ops(const char* fn, const gm_mat* src, const gm_mat* dst, gm_interp interp, double fx,
                                double fy, gm__ops* d)
{
    gm_xform identity = gm_xform_identity();
    gm__side from, to;
    gm_status s = gm__check_resize(fn, src, dst, interp, fx, fy);
    if (s != GM_OK)
        return s;
    if (fx <= 0.0) {
        fx = (double)dst->width / (double)src->width;
        fy = (double)dst->height / (double)src->height;
    }
    if (src->width == dst->width && src->height == dst->height)
        return gm__xform_op(fn, NULL, src, dst, &identity, d);
    from = gm__side_of(src);
    to = gm__side_of(dst);
    d->op[d->n] = gm__op_of(fn, &from, &to, dst, &identity);
    d->op[d->n++].resize = gm__resize_map_of(src, interp, fx, fy);
    return GM_OK;
}

GM_API gm_status gm_resize(const gm_mat* src, gm_mat* dst, gm_interp interp, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__resize_ops("gm_resize", src, dst, interp, 0.0, 0.0, &d), &d, stream);
}

GM_API gm_status gm_resize_scale(const gm_mat* src, gm_mat* dst, double fx, double fy, gm_interp interp,
                                 gm_stream stream)
{
    static const char fn[] = "gm_resize_scale";
    gm__ops d;
    gm_status s;
    d.n = 0;
    if ((s = gm__check_scale(fn, fx, fy)) != GM_OK)
        return s;
    return gm__run_described(gm__resize_ops(fn, src, dst, interp, fx, fy, &d), &d, stream);
}
