/* SPDX-License-Identifier: MIT */
/* Implementation: gm_preprocess (gpumat/prep.h). The host computes each
 * item's placement by the rule asked for and cv::resize's sampler for it
 * (ops.h), then one launch per sampler (templates/prep.inc) writes the
 * destination images. */

#include <limits.h>

/* A launch's parameters within what the drivers take (prep.inc). */
typedef char gm__prep_args_fit[sizeof(gm__prep_args) <= 4096 && sizeof(gm__prep_many) <= 32764 ? 1 : -1];

/* The letterbox of a W x H crop into Wn x Hn by p's rule: the resized size,
 * the pad before each axis and the rule's factor. */
static void gm__letterbox(int64_t W, int64_t H, int64_t Wn, int64_t Hn, const gm_prep* p, gm_prep_geometry* g)
{
    if (p->rule == GM_LETTERBOX_OPENCV_DNN) {
        float f = fminf((float)Wn / (float)W, (float)Hn / (float)H);
        g->width = (int64_t)((float)W * f);
        g->height = (int64_t)((float)H * f);
        g->ratio = f;
    } else if (p->rule == GM_LETTERBOX_DEEPSTREAM) {
        double h = (double)(Wn * H) / (double)W;
        if (h <= (double)Hn)
            g->width = Wn, g->height = (int64_t)h;
        else
            g->width = (int64_t)((double)(Hn * W) / (double)H), g->height = Hn;
        g->ratio = g->width == Wn ? (double)Wn / (double)W : (double)Hn / (double)H;
    } else {
        double r = fmin((double)Hn / (double)H, (double)Wn / (double)W);
        if (p->no_upscale && r > 1.0)
            r = 1.0;
        g->width = (int64_t)rint((double)W * r);
        g->height = (int64_t)rint((double)H * r);
        g->width += g->width < 1;
        g->height += g->height < 1;
        g->ratio = r;
    }
    if (p->stride > 0) { /* ultralytics' auto: the pads shrink below the stride */
        Wn = g->width + (Wn - g->width) % p->stride;
        Hn = g->height + (Hn - g->height) % p->stride;
        g->dst_width = Wn;
        g->dst_height = Hn;
    }
    if (p->top_left)
        g->left = g->top = 0;
    else if (p->rule == GM_LETTERBOX_ULTRALYTICS) {
        g->left = (int64_t)rint((double)(Wn - g->width) / 2.0 - 0.1);
        g->top = (int64_t)rint((double)(Hn - g->height) / 2.0 - 0.1);
    } else {
        g->left = (Wn - g->width) / 2;
        g->top = (Hn - g->height) / 2;
    }
}

/* The letterbox options, and which rules' frameworks have each (prep.h):
 * bit r for rule r. */
static const struct {
    const char* name;
    unsigned rules;
} gm__prep_option_rules[] = {{"top_left", 1u << GM_LETTERBOX_ULTRALYTICS | 1u << GM_LETTERBOX_DEEPSTREAM},
                             {"no_upscale", 1u << GM_LETTERBOX_ULTRALYTICS},
                             {"stride", 1u << GM_LETTERBOX_ULTRALYTICS}};

/* p's letterbox options: each set one must be the letterbox's and its
 * rule's (p->fit and p->rule are valid enums). */
static gm_status gm__prep_options(const char* fn, const gm_prep* p)
{
    static const char* const fits[] = {"GM_FIT_STRETCH", "GM_FIT_LETTERBOX", "GM_FIT_CROP_CENTER"};
    static const char* const rules[] = {"GM_LETTERBOX_ULTRALYTICS", "GM_LETTERBOX_OPENCV_DNN",
                                        "GM_LETTERBOX_DEEPSTREAM"};
    const int set[] = {p->top_left != 0, p->no_upscale != 0, p->stride != 0};
    size_t i;
    if (p->stride < 0)
        return gm__fail(GM_ERR_ARG, "%s: prep->stride is %d; it must be 0 (off) or more", fn, p->stride);
    for (i = 0; i < sizeof set / sizeof set[0]; ++i) {
        if (!set[i])
            continue;
        if (p->fit != GM_FIT_LETTERBOX)
            return gm__fail(GM_ERR_ARG, "%s: prep->%s is an option of GM_FIT_LETTERBOX, and prep->fit is %s", fn,
                            gm__prep_option_rules[i].name, fits[p->fit]);
        if (!(gm__prep_option_rules[i].rules >> p->rule & 1))
            return gm__fail(GM_ERR_ARG, "%s: prep->%s is not an option of %s", fn, gm__prep_option_rules[i].name,
                            rules[p->rule]);
    }
    return GM_OK;
}

/* How the framework of p's rule maps boxes back (gm_prep_geometry.map). */
static gm_box_map gm__prep_box_map_of(const gm_prep* p)
{
    if (p->fit != GM_FIT_LETTERBOX || p->rule == GM_LETTERBOX_OPENCV_DNN)
        return GM_BOX_EXACT;
    if (p->rule == GM_LETTERBOX_DEEPSTREAM)
        return GM_BOX_DEEPSTREAM;
    return p->no_upscale ? GM_BOX_ULTRALYTICS_RATIO_PAD : p->top_left ? GM_BOX_ULTRALYTICS_NO_PAD
                                                                        : GM_BOX_ULTRALYTICS;
}

/* The placement of a crop (named name in messages) into a dst_width x
 * dst_height image by p. */
static gm_status gm__place(const char* fn, const char* name, const gm_rect* crop, int64_t dst_width,
                           int64_t dst_height, const gm_prep* p, gm_prep_geometry* g)
{
    int64_t W = crop->width, H = crop->height;
    gm_status s;
    if (W < 1 || H < 1 || W > INT_MAX || H > INT_MAX || dst_width < 1 || dst_height < 1 || dst_width > INT_MAX ||
        dst_height > INT_MAX)
        return gm__fail(GM_ERR_SIZE, "%s: %s: a %lldx%lld crop into %lldx%lld; sizes must be 1 to %d", fn, name,
                        (long long)W, (long long)H, (long long)dst_width, (long long)dst_height, INT_MAX);
    if ((unsigned)p->fit > GM_FIT_CROP_CENTER)
        return gm__fail(GM_ERR_ARG, "%s: prep->fit %d is not a gm_fit", fn, (int)p->fit);
    if ((unsigned)p->rule > GM_LETTERBOX_DEEPSTREAM)
        return gm__fail(GM_ERR_ARG, "%s: prep->rule %d is not a gm_letterbox_rule", fn, (int)p->rule);
    if ((s = gm__check_interp(fn, "prep->interp", p->interp)) != GM_OK || (s = gm__prep_options(fn, p)) != GM_OK)
        return s;
    memset(g, 0, sizeof *g);
    g->crop = *crop;
    g->fit = p->fit;
    g->dst_width = dst_width;
    g->dst_height = dst_height;
    if (p->fit == GM_FIT_STRETCH) {
        g->width = dst_width, g->height = dst_height; /* no one factor: ratio 0 */
    } else if (p->fit == GM_FIT_LETTERBOX) {
        gm__letterbox(W, H, dst_width, dst_height, p, g);
        if (g->width < 1 || g->height < 1)
            return gm__fail(GM_ERR_SIZE, "%s: %s: the letterbox of a %lldx%lld crop into %lldx%lld is empty "
                            "(%lldx%lld)", fn, name, (long long)W, (long long)H, (long long)dst_width,
                            (long long)dst_height,
                            (long long)g->width, (long long)g->height);
    } else {
        /* blobFromImage(crop = true): a float factor, cv::resize's explicit
         * scale (sizes rounded half to even), a centre cut by truncation */
        float f = fmaxf((float)dst_width / (float)W, (float)dst_height / (float)H);
        g->ratio = f;
        g->width = (int64_t)rint((double)W * f);
        g->height = (int64_t)rint((double)H * f);
        g->left = -(int64_t)(0.5 * (double)(g->width - dst_width));
        g->top = -(int64_t)(0.5 * (double)(g->height - dst_height));
    }
    g->gain_x = (double)g->width / (double)W;
    g->gain_y = (double)g->height / (double)H;
    /* what gm__prep_item_of hands cv::resize's sampler: a copy, the fx path, or the sizes */
    if (g->width == W && g->height == H)
        g->sample_x = g->sample_y = 1.0;
    else if (p->fit == GM_FIT_CROP_CENTER)
        g->sample_x = g->sample_y = g->ratio;
    else
        g->sample_x = g->gain_x, g->sample_y = g->gain_y;
    g->map = gm__prep_box_map_of(p);
    return GM_OK;
}

GM_API gm_status gm_prep_geometry_of(const gm_rect* crop, int64_t dst_width, int64_t dst_height, const gm_prep* p,
                                     gm_prep_geometry* g)
{
    static const char fn[] = "gm_prep_geometry_of";
    if (!crop || !p || !g)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, !crop ? "crop" : !p ? "prep" : "geometry");
    return gm__place(fn, "crop", crop, dst_width, dst_height, p, g);
}

/* ultralytics' scale_boxes without ratio_pad (utils/ops.py) of the release
 * map names (prep.h): the gains and pads it derives again from the image
 * made and the crop. */
static void gm__ultralytics_gains(const gm_prep_geometry* g, gm_box_map map, double gain[2], double pad[2])
{
    double W = (double)g->crop.width, H = (double)g->crop.height, w1 = (double)g->dst_width,
           h1 = (double)g->dst_height, r = fmin(h1 / H, w1 / W), w = W * r, h = H * r;
    if (map == GM_BOX_ULTRALYTICS || map == GM_BOX_ULTRALYTICS_NO_PAD) {
        w = fmax(rint(w), 1.0), h = fmax(rint(h), 1.0); /* Python's round: half to even */
        gain[0] = w / W, gain[1] = h / H;
    } else {
        if (map == GM_BOX_ULTRALYTICS_8_4_25)
            w = rint(w), h = rint(h);
        gain[0] = gain[1] = r;
    }
    pad[0] = (w1 - w) / 2, pad[1] = (h1 - h) / 2;
    if (map != GM_BOX_ULTRALYTICS_8_0)
        pad[0] = rint(pad[0] - 0.1), pad[1] = rint(pad[1] - 0.1);
}

/* gm_prep_box_map for the public function fn, whose argument map_name
 * gave map. */
static gm_status gm__box_map(const char* fn, const char* map_name, const gm_prep_geometry* g, gm_box_map map,
                             const double box[4], double out[4])
{
    double div[2], off[2], v;
    int clip = map != GM_BOX_EXACT && map != GM_BOX_DEEPSTREAM, i;
    if (!g || !box || !out)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, !g ? "geometry" : !box ? "box" : "out");
    if ((unsigned)map > GM_BOX_DEEPSTREAM)
        return gm__fail(GM_ERR_ARG, "%s: %s %d is not a gm_box_map", fn, map_name, (int)map);
    if (g->crop.width < 1 || g->crop.height < 1 || g->dst_width < 1 || g->dst_height < 1)
        return gm__fail(GM_ERR_ARG, "%s: geometry is of a %lldx%lld crop into %lldx%lld; sizes must be 1 or more",
                        fn, (long long)g->crop.width, (long long)g->crop.height, (long long)g->dst_width,
                        (long long)g->dst_height);
    off[0] = (double)g->left, off[1] = (double)g->top;
    switch (map) {
    case GM_BOX_EXACT: /* sample 0: a geometry made by hand before there were such fields */
        div[0] = g->sample_x != 0.0 ? g->sample_x : g->gain_x;
        div[1] = g->sample_y != 0.0 ? g->sample_y : g->gain_y;
        break;
    case GM_BOX_DEEPSTREAM:
        div[0] = g->gain_x, div[1] = g->gain_y;
        break;
    case GM_BOX_ULTRALYTICS:
    case GM_BOX_ULTRALYTICS_NO_PAD:
    case GM_BOX_ULTRALYTICS_8_4_25:
    case GM_BOX_ULTRALYTICS_8_0_108:
    case GM_BOX_ULTRALYTICS_8_0:
        gm__ultralytics_gains(g, map, div, off);
        if (map == GM_BOX_ULTRALYTICS_NO_PAD)
            off[0] = off[1] = 0.0;
        break;
    case GM_BOX_ULTRALYTICS_RATIO_PAD: /* LetterBox's ratio: (r, r), a stretch's per axis */
        div[0] = g->fit == GM_FIT_STRETCH ? g->gain_x : g->ratio;
        div[1] = g->fit == GM_FIT_STRETCH ? g->gain_y : g->ratio;
        break;
    }
    if (!(div[0] > 0.0) || !(div[1] > 0.0) || isinf(div[0]) || isinf(div[1]))
        return gm__fail(GM_ERR_ARG, "%s: geometry's factors for map %d are %g and %g; they must be above 0 (a "
                        "geometry gm_prep_geometry_of made has them)", fn, (int)map, div[0], div[1]);
    for (i = 0; i < 4; ++i) {
        v = (box[i] - off[i & 1]) / div[i & 1];
        if (clip && v < 0.0) /* clip_boxes: to the image ultralytics letterboxed, the crop (NaN stays) */
            v = 0.0;
        else if (clip && v > (double)(i & 1 ? g->crop.height : g->crop.width))
            v = (double)(i & 1 ? g->crop.height : g->crop.width);
        out[i] = v + (double)(i & 1 ? g->crop.y : g->crop.x);
    }
    return GM_OK;
}

GM_API gm_status gm_prep_box_map(const gm_prep_geometry* g, gm_box_map map, const double box[4], double out[4])
{
    return gm__box_map("gm_prep_box_map", "map", g, map, box, out);
}

GM_API void gm_prep_box_to_source(const gm_prep_geometry* g, const double box[4], double out[4])
{
    int i;
    if (gm__box_map("gm_prep_box_to_source", "geometry->map", g, g ? g->map : GM_BOX_EXACT, box, out) != GM_OK && out)
        for (i = 0; i < 4; ++i)
            out[i] = NAN;
}

GM_API gm_rect gm_prep_rect_to_source_cv(const gm_prep_geometry* g, gm_rect r)
{
    int W = (int)g->crop.width, H = (int)g->crop.height, w = (int)g->dst_width, h = (int)g->dst_height;
    int x = (int)r.x, y = (int)r.y, rw = (int)r.width, rh = (int)r.height;
    gm_rect o = r;
    if (W != w || H != h) {
        if (g->fit == GM_FIT_CROP_CENTER) {
            float f = fmaxf((float)w / (float)W, (float)h / (float)H);
            o.x = (int)((x + 0.5 * ((float)W * f - (float)w)) / f);
            o.y = (int)((y + 0.5 * ((float)H * f - (float)h)) / f);
            o.width = (int)((float)rw / f);
            o.height = (int)((float)rh / f);
        } else if (g->fit == GM_FIT_LETTERBOX) {
            float f = fminf((float)w / (float)W, (float)h / (float)H);
            int top = (h - (int)((float)H * f)) / 2, left = (w - (int)((float)W * f)) / 2;
            o.x = (int)((float)(x - left) / f);
            o.y = (int)((float)(y - top) / f);
            o.width = (int)((float)rw / f);
            o.height = (int)((float)rh / f);
        } else {
            o.x = (int)((float)x * (float)W / (float)w);
            o.y = (int)((float)y * (float)H / (float)h);
            o.width = (int)((float)rw * (float)W / (float)w);
            o.height = (int)((float)rh * (float)H / (float)h);
        }
    }
    o.x += g->crop.x;
    o.y += g->crop.y;
    return o;
}

/* Source i of a batch as the kernels read it: srcs[i], or frames[i] as
 * the u8 BGR image that cvtColor makes of it (a stand-in that gives sizes
 * and types; its data is the luma's). */
static gm_mat gm__prep_source_at(const gm_mat* srcs, const gm_yuv* frames, int i)
{
    gm_mat m;
    if (!frames)
        return srcs[i];
    m = frames[i].y;
    m.channels = 3;
    return m;
}

/* Item i of a batch: its placement, and the kernel's description of it;
 * src is frame's stand-in (gm__prep_source_at) where frame is not NULL. */
static gm_status gm__prep_item_of(const char* fn, const char* name, const gm_mat* src, const gm_yuv* frame,
                                  const gm_rect* crop, const gm_mat* dst, const gm_prep* p, gm_prep_geometry* g,
                                  gm__prep_item* it)
{
    gm_rect whole;
    gm_mat m;
    int64_t es = (int64_t)gm_dtype_size(src->dtype);
    gm_status s;
    whole.x = whole.y = 0, whole.width = src->width, whole.height = src->height;
    if (!crop)
        crop = &whole;
    if (crop->width < 1 || crop->height < 1 || crop->x < 0 || crop->y < 0 || crop->x > src->width - crop->width ||
        crop->y > src->height - crop->height)
        return gm__fail(GM_ERR_ARG, "%s: the crop %lldx%lld at (%lld, %lld) is not inside %s (%lldx%lld)", fn,
                        (long long)crop->width, (long long)crop->height, (long long)crop->x, (long long)crop->y, name,
                        (long long)src->width, (long long)src->height);
    if ((s = gm__place(fn, name, crop, dst->width, dst->height, p, g)) != GM_OK)
        return s;
    m = *src;
    m.width = crop->width;
    m.height = crop->height;
    memset(it, 0, sizeof *it);
    if (g->width == crop->width && g->height == crop->height) {
        /* equal sizes copy, as cv::resize does: nearest at scale 1 */
        it->map.src_width = crop->width;
        it->map.src_height = crop->height;
        it->map.sampler = GM__SAMPLER_NEAREST;
        it->map.scale_x = it->map.scale_y = it->map.inv_x = it->map.inv_y = 1.0;
    } else if (p->fit == GM_FIT_CROP_CENTER) {
        it->map = gm__resize_map_of(&m, p->interp, g->ratio, g->ratio);
    } else {
        it->map = gm__resize_map_of(&m, p->interp, g->gain_x, g->gain_y);
    }
    it->src = gm__channel_addr(src, 0) + (unsigned long long)(crop->y * src->pitch + crop->x * gm__xstride(src));
    it->src_pitch = src->pitch;
    it->at.image.xstride = gm__xstride(src);
    it->at.image.cstride = src->channels == 1 ? 0 : src->layout == GM_CHW ? src->plane_pitch : es;
    it->left = (int)g->left;
    it->top = (int)g->top;
    it->width = (int)g->width;
    it->height = (int)g->height;
    if (frame) { /* prep.inc converts a frame's taps from the luma's origin, the crop's place and the layout */
        it->src = (unsigned long long)(uintptr_t)frame->y.data;
        it->src_pitch = frame->y.pitch;
        it->at.crop.x = crop->x;
        it->at.crop.y = crop->y;
        return GM_OK;
    }
    it->map.tile = gm__tiles(src->dtype, (int)src->channels, it->at.image.xstride, it->at.image.cstride, &it->map, it->width,
                             it->height, GM__TILE_PIXELS_PREP, 0);
    return GM_OK;
}

/* The per-launch arguments every item shares: the destination, the channel
 * map, the arithmetic and the pad. */
static gm_status gm__prep_common(const char* fn, const gm_mat* src, const gm_mat* dst, const gm_prep* p,
                                 gm__prep_args* a)
{
    int c, k;
    memset(a, 0, sizeof *a);
    if (p->swap_rb && (src->channels < 3 || dst->channels < 3))
        return gm__fail(GM_ERR_ARG, "%s: prep->swap_rb needs 3 or 4 channels, the source has %d and dst %d", fn,
                        (int)src->channels, (int)dst->channels);
    for (c = 0; c < dst->channels; ++c) {
        k = p->channel_map ? p->channel_map[c] : p->swap_rb && (c == 0 || c == 2) ? 2 - c : src->channels == 1 ? 0 : c;
        if (k < 0 || k >= src->channels)
            return gm__fail(GM_ERR_ARG, "%s: destination channel %d would read source channel %d, but the source has "
                            "%d%s", fn, c, k, (int)src->channels, p->channel_map ? " (prep->channel_map)" : "");
        if (!isfinite(p->mean[c]) || !isfinite(p->scale[c]))
            return gm__fail(GM_ERR_ARG, "%s: prep->mean[%d] %g and prep->scale[%d] %g must be finite", fn, c,
                            p->mean[c], c, p->scale[c]);
        a->map[c] = k;
        a->pre[c] = -p->mean[c];
        a->scale[c] = p->scale[c] == 0.0 ? 1.0 : p->scale[c];
    }
    for (k = 0; k < src->channels; ++k) {
        if (!isfinite(p->pad[k]))
            return gm__fail(GM_ERR_ARG, "%s: prep->pad[%d] is %g; must be finite", fn, k, p->pad[k]);
        a->pad[k] = p->pad[k];
    }
    for (c = 0; c < dst->channels; ++c) {
        unsigned char pad;
        gm__encode_d(GM_U8, &pad, a->pad[a->map[c]]);
        a->pre_f[c] = (float)a->pre[c];
        a->scale_f[c] = (float)a->scale[c];
        a->pad_u8[c] = pad;
        a->pad_f[c] = gm__prep_value_f(a->pre_f[c], a->scale_f[c], a->scale[c], pad, p->divide, (int)p->arith);
    }
    a->width = dst->width;
    a->height = dst->height;
    a->dst_pitch = dst->pitch;
    a->dst_xstride = gm__xstride(dst);
    a->dst_cstride = dst->channels == 1 ? 0 : dst->layout == GM_CHW ? dst->plane_pitch
                                                                     : (long long)gm_dtype_size(dst->dtype);
    a->channels = dst->channels;
    a->divide = p->divide;
    return GM_OK;
}

/* What messages call the sources of the public function fn: src, srcs,
 * frame or frames (an internal caller's: srcs). */
static const char* gm__prep_sources_name(const char* fn)
{
    static const char* const names[][2] = {{"gm_preprocess", "src"}, {"gm_preprocess_batch", "srcs"},
                                           {"gm_preprocess_yuv", "frame"}, {"gm_preprocess_yuv_batch", "frames"}};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (!strcmp(fn, names[i][0]))
            return names[i][1];
    return "srcs";
}

/* What messages call source i of fn: src or frame alone, else srcs[i] or
 * frames[i]. */
static void gm__prep_name(const char* fn, int i, char* name, size_t size)
{
    const char* sources = gm__prep_sources_name(fn);
    if (!strcmp(sources, "src") || !strcmp(sources, "frame"))
        snprintf(name, size, "%s", sources);
    else
        snprintf(name, size, "%s[%d]", sources, i);
}

/* Whether item it, a source of dtype with channels (frame: a frame's),
 * takes the kernel's point path (templates/prep.cu): NEAREST of frames, or
 * of u8 whose channels interleave. */
static int gm__prep_takes_points(gm_dtype dtype, int channels, int frame, const gm__prep_item* it)
{
    return it->map.sampler == GM__SAMPLER_NEAREST &&
           (frame || (dtype == GM_U8 && it->at.image.xstride == channels && (channels == 1 || it->at.image.cstride == 1)));
}

/* Whether every sample of item it's crop of a frame read as f lies at an
 * offset from it->src in [0, 2^31), the point path's 32-bit offsets
 * (templates/prep.cu, gm__prep_frame_load_narrow); the pitches and the
 * chroma planes' offsets are not negative, so no partial sum is larger. */
static int gm__prep_frame_narrow(const gm__prep_frame* f, const gm__prep_item* it)
{
    const long long most = (1LL << 31) - 1, x = it->at.crop.x + it->map.src_width - 1,
                    y = it->at.crop.y + it->map.src_height - 1;
    return it->src_pitch >= 0 && f->u_pitch >= 0 && f->v_pitch >= 0 && f->u >= 0 && f->v >= 0 &&
           y * it->src_pitch + x <= most && f->u + y / 2 * f->u_pitch + x / 2 * f->step <= most &&
           f->v + y / 2 * f->v_pitch + x / 2 * f->step <= most;
}

/* What a launch's items share: the sampler and whether the kernel takes
 * its tile or point path. */
static int gm__prep_kind(gm_dtype dtype, int channels, int frame, const gm__prep_item* it)
{
    return 2 * it->map.sampler + (it->map.tile > 0 || gm__prep_takes_points(dtype, channels, frame, it));
}

/* How a launch's items read frame f (prep.inc's gm__prep_frame). */
static void gm__prep_frame_of(const gm_yuv* f, gm__prep_frame* pf)
{
    gm__yuv_args y;
    gm__yuv_args_of(&y, f, &f->y, 0);
    memset(pf, 0, sizeof *pf);
    pf->u = (long long)(y.u - y.y);
    pf->v = (long long)(y.v - y.y);
    pf->u_pitch = y.u_pitch;
    pf->v_pitch = y.v_pitch;
    pf->step = y.step;
    pf->cy = y.cy;
    pf->yoff = y.yoff;
    memcpy(pf->ku, y.ku, sizeof pf->ku);
    memcpy(pf->kv, y.kv, sizeof pf->kv);
    memcpy(pf->bias, y.bias, sizeof pf->bias);
}

/* Frame f, source `name` of fn, as a pre-process takes it beside dst. */
static gm_status gm__prep_check_frame(const char* fn, const char* name, const gm_yuv* f, const gm_mat* dst)
{
    char at[64];
    gm_status s;
    /* gm__yuv_check's messages say "frame": a batch's say which */
    if (strcmp(name, "frame"))
        snprintf(at, sizeof at, "%s: %s", fn, name);
    else
        snprintf(at, sizeof at, "%s", fn);
    if ((s = gm__yuv_check(at, f)) != GM_OK)
        return s;
    if (f->format == GM_YUV_P016)
        return gm__fail(GM_ERR_TYPE, "%s: %s is P016; the pre-process reads 8-bit frames (gm_yuv_convert takes "
                        "P016)", fn, name);
    if (f->y.batch != 1)
        return gm__fail(GM_ERR_ARG, "%s: %s is a batch of %d; single frames expected", fn, name, (int)f->y.batch);
    if ((s = gm__check_place(at, "frame->y", &f->y, "dst", dst)) != GM_OK ||
        (s = gm__check_place(at, "frame->u", &f->u, "dst", dst)) != GM_OK ||
        (gm__yuv_planar(f) && (s = gm__check_place(at, "frame->v", &f->v, "dst", dst)) != GM_OK))
        return s;
    return GM_OK;
}

/* The kernel row of a launch by sampler I, of frames or of images S x C
 * into D, whose product is computed as arith says (GM_BLOB_DOUBLE: the
 * prep_double rows, templates/prep_double.cu); -1 where there is none. */
static int gm__prep_kernel_of(int frames, gm_blob_arith arith, gm_dtype S, gm_dtype D, int C, int I)
{
    if (frames)
        return arith == GM_BLOB_DOUBLE ? gm__prep_yuv_double_row[D][I] : gm__prep_yuv_row[D][I];
    return arith == GM_BLOB_DOUBLE ? gm__prep_double_row[S][D][C - 1][I] : gm__prep_row[S][D][C - 1][I];
}

/* Checks a whole batch and describes it: *plan with the arguments every
 * launch shares (no items, no kernel yet), *kinds with bit gm__prep_kind
 * set for the kind of each item. Writes nothing else. */
static gm_status gm__prep_describe(const char* fn, const gm_mat* srcs, const gm_yuv* frames, const gm_rect* crops,
                                   int count, const gm_mat* dst, const gm_prep* p, gm__plan* plan, unsigned* kinds)
{
    gm_prep_geometry g;
    gm__prep_item it;
    gm_mat first, src;
    char name[32];
    int i;
    gm_status s;
    if ((!srcs && !frames) || !dst || !p)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, !srcs && !frames ? gm__prep_sources_name(fn)
                                                          : !dst ? "dst" : "prep");
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (count < 1 || count != dst->batch)
        return gm__fail(GM_ERR_ARG, "%s: %d items but dst->batch is %d", fn, count, (int)dst->batch);
    if ((s = gm__check_arith(fn, "prep", p->divide, p->arith)) != GM_OK)
        return s;
    if (frames && p->interp == GM_INTER_AREA)
        return gm__fail(GM_ERR_ARG, "%s: prep->interp is GM_INTER_AREA, which a frame does not take; "
                        "GM_INTER_LINEAR, _NEAREST or _LINEAR_EXACT", fn);
    first = gm__prep_source_at(srcs, frames, 0);
    for (i = 0; i < count; ++i) {
        gm__prep_name(fn, i, name, sizeof name);
        src = gm__prep_source_at(srcs, frames, i);
        if (frames) {
            if ((s = gm__prep_check_frame(fn, name, &frames[i], dst)) != GM_OK)
                return s;
            continue;
        }
        if ((s = gm__check(fn, name, &src)) != GM_OK || (s = gm__check_place(fn, name, &src, "dst", dst)) != GM_OK)
            return s;
        if (src.batch != 1)
            return gm__fail(GM_ERR_ARG, "%s: %s is a batch of %d; single images expected", fn, name, (int)src.batch);
        if (src.dtype != first.dtype || src.channels != first.channels)
            return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d but srcs[0] is %s x%d", fn, name, gm_dtype_name(src.dtype),
                            (int)src.channels, gm_dtype_name(first.dtype), (int)first.channels);
    }
    if (frames && gm__prep_yuv_row[dst->dtype][GM__SAMPLER_LINEAR] < 0)
        return gm__fail(GM_ERR_TYPE, "%s: dst is %s; a frame's pre-process writes u8, f16, bf16 or f32", fn,
                        gm_dtype_name(dst->dtype));
    if (gm__prep_row[first.dtype][dst->dtype][first.channels - 1][GM__SAMPLER_LINEAR] < 0)
        return gm__fail(GM_ERR_TYPE, "%s: %s x%d -> %s: the source must be u8, u16 or f32 with 1, 3 or 4 channels, "
                        "dst u8, f16, bf16 or f32", fn, gm_dtype_name(first.dtype), (int)first.channels,
                        gm_dtype_name(dst->dtype));
    if (gm__prep_kernel_of(frames != NULL, p->arith, first.dtype, dst->dtype, (int)first.channels,
                           GM__SAMPLER_LINEAR) < 0)
        return gm__fail(GM_ERR_TYPE, "%s: dst is %s; with prep->arith GM_BLOB_DOUBLE it must be f32 or f16 (OpenCV's "
                        "CV_32F blob, or that rounded)", fn, gm_dtype_name(dst->dtype));
    if ((s = gm__prep_common(fn, &first, dst, p, &plan->args.prep)) != GM_OK)
        return s;
    *kinds = 0;
    for (i = 0; i < count; ++i) {
        gm__prep_name(fn, i, name, sizeof name);
        src = gm__prep_source_at(srcs, frames, i);
        if ((s = gm__prep_item_of(fn, name, &src, frames ? &frames[i] : NULL, crops ? &crops[i] : NULL, dst, p, &g,
                                  &it)) != GM_OK)
            return s;
        if (i > 0 && (g.dst_width != plan->args.prep.width || g.dst_height != plan->args.prep.height))
            return gm__fail(GM_ERR_ARG, "%s: prep->stride: %s comes to %lldx%lld, %s[0] to %lldx%lld; a batch's "
                            "items must come to one size", fn, name, (long long)g.dst_width, (long long)g.dst_height,
                            gm__prep_sources_name(fn), plan->args.prep.width, plan->args.prep.height);
        plan->args.prep.width = g.dst_width; /* dst's, or with prep->stride the rectangle written */
        plan->args.prep.height = g.dst_height;
        *kinds |= 1u << gm__prep_kind(first.dtype, (int)first.channels, frames != NULL, &it);
    }
    plan->fn = fn;
    plan->kernel = -1;
    plan->many = NULL;
    plan->host = NULL;
    plan->on_host = dst->where != GM_DEVICE;
    plan->device = (int)dst->device;
    return GM_OK;
}

/* Runs n items of one kind (n > 0): up to GM__PREP_ITEMS in a launch of
 * the kernel, more through its _many entry point, GM__PREP_ITEMS_MANY a
 * launch (GM__PREP_ITEMS where the kernel has none: NVRTC or driver before
 * 12.1). */
static gm_status gm__prep_launch(gm__plan* plan, const gm__prep_item* items, int n, gm_stream stream)
{
    gm__prep_args* a = &plan->args.prep;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    gm__prep_many* many;
    gm__CUfunction f = 0;
    int i, most = GM__PREP_ITEMS_MANY;
    gm_status s = GM_OK;
    if (n > GM__PREP_ITEMS && !plan->on_host &&
        (s = gm__function(plan->fn, plan->kernel, plan->device, 1, &f, NULL, NULL)) != GM_OK)
        return s;
    if (n > GM__PREP_ITEMS && !plan->on_host && !f)
        most = GM__PREP_ITEMS;
    for (; n > most && s == GM_OK; items += most, n -= most)
        s = gm__prep_launch(plan, items, most, stream);
    if (s != GM_OK)
        return s;
    for (i = a->tile = 0; i < n; ++i) /* slots that fit every item's */
        if (items[i].map.tile > a->tile)
            a->tile = items[i].map.tile;
    a->points = gm__prep_takes_points((gm_dtype)k->src, k->channels, a->frame.step != 0, &items[0]);
    for (i = 0; i < n && a->points && a->frame.step; ++i) /* else frames take the per-pixel path */
        a->points = gm__prep_frame_narrow(&a->frame, &items[i]);
    a->count = n;
    memcpy(a->items, items, (size_t)(n < GM__PREP_ITEMS ? n : GM__PREP_ITEMS) * sizeof *items);
    if (n <= GM__PREP_ITEMS)
        return gm__run(plan, stream);
    if (!(many = (gm__prep_many*)GM_MALLOC(sizeof *many)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %d items failed", plan->fn, n);
    many->a = *a;
    memcpy(many->more, items + GM__PREP_ITEMS, (size_t)(n - GM__PREP_ITEMS) * sizeof *items);
    plan->many = many;
    s = gm__run(plan, stream); /* the driver has read the parameters on return */
    plan->many = NULL;
    GM_FREE(many);
    return s;
}

/* Runs n items of one kind whose frames read as layouts[i] say (layouts
 * NULL: images): those alike in one gm__prep_launch, the items reordered
 * to bring them together. */
static gm_status gm__prep_launch_alike(gm__plan* plan, gm__prep_item* items, gm__prep_frame* layouts, int n,
                                       gm_stream stream)
{
    gm__prep_item item;
    gm__prep_frame layout;
    int i, j, k;
    gm_status s = GM_OK;
    if (!layouts)
        return gm__prep_launch(plan, items, n, stream);
    for (i = 0; i < n && s == GM_OK; i = j) {
        for (j = k = i + 1; k < n; ++k)
            if (!memcmp(&layouts[k], &layouts[i], sizeof layout)) {
                item = items[j], items[j] = items[k], items[k] = item;
                layout = layouts[j], layouts[j] = layouts[k], layouts[k] = layout;
                ++j;
            }
        plan->args.prep.frame = layouts[i];
        s = gm__prep_launch(plan, items + i, j - i, stream);
    }
    return s;
}

/* Checks a whole batch of images (srcs) or frames, then runs it: the items
 * of each kind (gm__prep_kind) in one launch (gm__prep_launch; frames also
 * of one layout, gm__prep_launch_alike), in order (each launch the kernel
 * of its sampler); nothing is written unless every item is good. */
static gm_status gm__preprocess(const char* fn, const gm_mat* srcs, const gm_yuv* frames, const gm_rect* crops,
                                int count, gm_mat* dst, const gm_prep* p, gm_prep_geometry* geometry, gm_stream stream)
{
    gm_prep defaults;
    gm__plan plan;
    gm_prep_geometry g;
    gm__prep_item* items;
    gm__prep_frame* layouts = NULL;
    gm_mat first, src;
    unsigned kinds = 0;
    int i, n, kind;
    gm_status s = GM_OK;
    if (!p) {
        memset(&defaults, 0, sizeof defaults);
        p = &defaults;
    }
    if ((s = gm__prep_describe(fn, srcs, frames, crops, count, dst, p, &plan, &kinds)) != GM_OK)
        return s;
    first = gm__prep_source_at(srcs, frames, 0);
    items = (gm__prep_item*)GM_MALLOC((size_t)count * sizeof *items);
    if (frames && items && !(layouts = (gm__prep_frame*)GM_MALLOC((size_t)count * sizeof *layouts)))
        GM_FREE(items), items = NULL;
    if (!items)
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %d items failed", fn, count);
    for (kind = 0; kind < 2 * GM__SAMPLER_COUNT && s == GM_OK; ++kind) {
        if (!(kinds >> kind & 1))
            continue;
        plan.kernel = gm__prep_kernel_of(frames != NULL, p->arith, first.dtype, dst->dtype, (int)first.channels,
                                         kind / 2);
        for (i = n = 0; i < count; ++i) {
            src = gm__prep_source_at(srcs, frames, i);
            gm__prep_item_of(fn, "", &src, frames ? &frames[i] : NULL, crops ? &crops[i] : NULL, dst, p, &g,
                             &items[n]);
            if (gm__prep_kind(first.dtype, (int)first.channels, frames != NULL, &items[n]) == kind) {
                if (geometry)
                    geometry[i] = g;
                if (frames)
                    gm__prep_frame_of(&frames[i], &layouts[n]);
                items[n++].dst = gm__channel_addr(dst, 0) + (unsigned long long)((int64_t)i * dst->batch_pitch);
            }
        }
        s = gm__prep_launch_alike(&plan, items, layouts, n, stream);
    }
    GM_FREE(items);
    if (layouts)
        GM_FREE(layouts);
    return s;
}

GM_API gm_status gm_preprocess(const gm_mat* src, const gm_rect* crop, gm_mat* dst, const gm_prep* prep,
                               gm_prep_geometry* geometry, gm_stream stream)
{
    return gm__preprocess("gm_preprocess", src, NULL, crop, 1, dst, prep, geometry, stream);
}

GM_API gm_status gm_preprocess_batch(const gm_mat* srcs, const gm_rect* crops, int count, gm_mat* dst,
                                     const gm_prep* prep, gm_prep_geometry* geometry, gm_stream stream)
{
    return gm__preprocess("gm_preprocess_batch", srcs, NULL, crops, count, dst, prep, geometry, stream);
}

GM_API gm_status gm_preprocess_yuv(const gm_yuv* frame, const gm_rect* crop, gm_mat* dst, const gm_prep* prep,
                                   gm_prep_geometry* geometry, gm_stream stream)
{
    return gm__preprocess("gm_preprocess_yuv", NULL, frame, crop, 1, dst, prep, geometry, stream);
}

GM_API gm_status gm_preprocess_yuv_batch(const gm_yuv* frames, const gm_rect* crops, int count, gm_mat* dst,
                                         const gm_prep* prep, gm_prep_geometry* geometry, gm_stream stream)
{
    return gm__preprocess("gm_preprocess_yuv_batch", NULL, frames, crops, count, dst, prep, geometry, stream);
}

/* gm_blob_from_image(s)_with_params where they divide or multiply in
 * double: the pre-process kernel does that arithmetic (the transform's
 * only multiplies in float). Each image is a stretch to its own size, a
 * copy, as cv::resize copies at equal sizes: what blobFromImage does
 * without a resize. The checks are the transform's (ops.h), so the two
 * forms refuse alike; then the dtypes the pre-process takes. */
static gm_status gm__blob_prep(const char* fn, const char* src_name, const gm_mat* srcs, int count, gm_mat* dst,
                               const gm_blob_params* params, gm_stream stream)
{
    gm_prep p;
    int c;
    if (gm__prep_kernel_of(0, params->arith, srcs[0].dtype, dst->dtype, (int)srcs[0].channels,
                           GM__SAMPLER_NEAREST) < 0)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s, dst %s; with params->%s the source must be u8, u16 or f32, dst %s "
                        "(the float product takes any)", fn, src_name, gm_dtype_name(srcs[0].dtype),
                        gm_dtype_name(dst->dtype), params->divide ? "divide" : "arith GM_BLOB_DOUBLE",
                        params->divide ? "u8, f16, bf16 or f32" : "f32 or f16");
    memset(&p, 0, sizeof p);
    p.swap_rb = params->swap_rb;
    p.divide = params->divide;
    p.arith = params->arith;
    for (c = 0; c < 4; ++c) {
        p.mean[c] = params->mean[c];
        p.scale[c] = params->scale[c];
    }
    return gm__preprocess(fn, srcs, NULL, NULL, count, dst, &p, NULL, stream);
}

/* Whether params (checked) multiply in float: the transform's case. */
static int gm__blob_float(const gm_blob_params* params)
{
    return !params->divide && params->arith == GM_BLOB_FLOAT;
}

/* The blob arguments of *params (NULL: every default, held in *defaults,
 * and *params pointed at them), its arithmetic fields checked. */
static gm_status gm__blob_args_of(const char* fn, const gm_blob_params** params, gm_blob_params* defaults,
                                  gm__blob_args* b)
{
    if (!*params) {
        memset(defaults, 0, sizeof *defaults);
        *params = defaults;
    }
    memset(b, 0, sizeof *b);
    b->params = *params;
    return gm__check_arith(fn, "params", (*params)->divide, (*params)->arith);
}

GM_API gm_status gm_blob_from_image_with_params(const gm_mat* src, gm_mat* dst, const gm_blob_params* params,
                                                gm_stream stream)
{
    static const char fn[] = "gm_blob_from_image_with_params";
    gm_blob_params defaults;
    gm__blob_args b;
    gm__ops d;
    gm_mat* items;
    int i;
    gm_status s;
    d.n = 0;
    if ((s = gm__blob_args_of(fn, &params, &defaults, &b)) != GM_OK ||
        (s = gm__blob_ops_as(fn, NULL, src, dst, &b, &d)) != GM_OK)
        return s;
    if (gm__blob_float(params))
        return gm__run_described(GM_OK, &d, stream);
    /* the pre-process takes single images: src's, one an item */
    if (!(items = (gm_mat*)GM_MALLOC((size_t)src->batch * sizeof *items)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %d views failed", fn, (int)src->batch);
    for (i = 0, s = GM_OK; i < src->batch && s == GM_OK; ++i)
        s = gm_item(src, &items[i], i);
    if (s == GM_OK)
        s = gm__blob_prep(fn, "src", items, (int)src->batch, dst, params, stream);
    GM_FREE(items);
    return s;
}

GM_API gm_status gm_blob_from_images_with_params(const gm_mat* images, int count, gm_mat* dst,
                                                 const gm_blob_params* params, gm_stream stream)
{
    static const char fn[] = "gm_blob_from_images_with_params";
    gm_blob_params defaults;
    gm__blob_args b;
    gm_xform x;
    gm_status s;
    if ((s = gm__blob_args_of(fn, &params, &defaults, &b)) != GM_OK ||
        (s = gm__blob_images_check(fn, images, count, dst, &b, &x)) != GM_OK)
        return s;
    if (gm__blob_float(params))
        return gm__blob_images_run(fn, images, count, dst, &x, stream);
    return gm__blob_prep(fn, "images[0]", images, count, dst, params, stream);
}
