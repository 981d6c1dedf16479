/* SPDX-License-Identifier: MIT */
/* Implementation: gm_preprocess (gpumat/prep.h). After the check step
 * (check.h), the host computes each item's placement by the rule asked for
 * and cv::resize's sampler for it (ops.h), once, then one launch per
 * sampler (templates/prep.inc) writes the destination images. */

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

/* The placement of a crop (checked, gm__check_placement) into a dst_width
 * x dst_height image by p. */
static void gm__place(const gm_rect* crop, int64_t dst_width, int64_t dst_height, const gm_prep* p,
                      gm_prep_geometry* g)
{
    int64_t W = crop->width, H = crop->height;
    memset(g, 0, sizeof *g);
    g->crop = *crop;
    g->fit = p->fit;
    g->dst_width = dst_width;
    g->dst_height = dst_height;
    if (p->fit == GM_FIT_WARP) { /* over the whole of dst; no factors: boxes map back by the matrix */
        g->width = dst_width, g->height = dst_height;
        return;
    }
    if (p->fit == GM_FIT_STRETCH) {
        g->width = dst_width, g->height = dst_height; /* no one factor: ratio 0 */
    } else if (p->fit == GM_FIT_LETTERBOX) {
        gm__letterbox(W, H, dst_width, dst_height, p, g);
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
}

GM_API gm_status gm_prep_geometry_of(const gm_rect* crop, int64_t dst_width, int64_t dst_height, const gm_prep* p,
                                     gm_prep_geometry* g)
{
    static const char fn[] = "gm_prep_geometry_of";
    gm_prep_geometry placed;
    gm_status s;
    if ((s = gm__check_geometry_of(fn, crop, dst_width, dst_height, p, g)) != GM_OK)
        return s;
    gm__place(crop, dst_width, dst_height, p, &placed);
    if ((s = gm__check_placed(fn, "crop", &placed, NULL, dst_width, dst_height)) == GM_OK)
        *g = placed;
    return s;
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
    double div[2] = {0.0, 0.0}, off[2], v;
    int clip = map != GM_BOX_EXACT && map != GM_BOX_DEEPSTREAM, i;
    gm_status s = gm__check_box_map(fn, map_name, g, map, box, out);
    if (s != GM_OK)
        return s;
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
    if ((s = gm__check_box_factors(fn, map, div)) != GM_OK)
        return s;
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
    if (g->fit == GM_FIT_WARP) /* no scale maps a warp back (prep.h) */
        return r;
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

/* The kernel's description of a checked crop of src (frame's stand-in,
 * gm__prep_source_at, where frame is not NULL) placed as g. */
static void gm__prep_item_of(const gm_mat* src, const gm_yuv* frame, const gm_rect* crop, const gm_prep* p,
                             const gm_prep_geometry* g, gm__prep_item* it)
{
    gm_mat m = *src;
    int64_t es = (int64_t)gm_dtype_size(src->dtype);
    m.width = crop->width;
    m.height = crop->height;
    memset(it, 0, sizeof *it);
    if (p->fit == GM_FIT_WARP) { /* the warp's source: the crop (prep_warp.inc) */
        it->map.src_width = crop->width;
        it->map.src_height = crop->height;
        it->map.sampler = gm__warp_sampler(p->interp);
    } else if (g->width == crop->width && g->height == crop->height) {
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
        return;
    }
    if (p->fit != GM_FIT_WARP)
        it->map.tile = gm__tiles(src->dtype, (int)src->channels, it->at.image.xstride, it->at.image.cstride,
                                 &it->map, it->width, it->height, GM__TILE_PIXELS_PREP, 0);
}

/* The per-launch arguments every item shares (p checked,
 * gm__check_prep_channels): the destination, the channel map, the
 * arithmetic and the pad. */
static void gm__prep_common(const gm_mat* src, const gm_mat* dst, const gm_prep* p, gm__prep_args* a)
{
    int c, k;
    memset(a, 0, sizeof *a);
    for (c = 0; c < dst->channels; ++c) {
        a->map[c] = gm__prep_channel_of(p, (int)src->channels, c);
        a->pre[c] = -p->mean[c];
        a->scale[c] = p->scale[c] == 0.0 ? 1.0 : p->scale[c];
    }
    for (k = 0; k < src->channels; ++k)
        a->pad[k] = p->pad[k];
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
    if (p->fit == GM_FIT_WARP) {
        a->warp.perspective = p->perspective != 0;
        a->warp.border = (int)p->border;
        a->warp.block_width = gm__warp_block_width(dst->width, dst->height);
        a->warp.arith = (int)p->arith;
    }
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

/* One item of a batch as planned: its placement, the kernel's description
 * of it and its kind (gm__prep_kind); a warp placement's item also its
 * matrix from dst to the crop. */
typedef struct gm__prep_place {
    gm_prep_geometry g;
    gm__prep_warp_item item;
    int kind;
} gm__prep_place;

/* Item i's matrix of a checked warp placement p (n doubles) from dst to
 * the crop, into M: p->warp's, inverted as gm_warp_affine inverts it
 * unless p->inverse; GM_ERR_ARG where it has no inverse. */
static gm_status gm__prep_matrix(const char* fn, const gm_prep* p, int i, double* M)
{
    const int n = p->perspective ? 9 : 6;
    memset(M, 0, 9 * sizeof *M); /* a 2x3's last three travel unread */
    memcpy(M, p->warp + (size_t)i * (size_t)n, (size_t)n * sizeof *M);
    if (!p->inverse && !(n == 9 ? gm__invert_3x3(M) : gm__invert_2x3(M)))
        return gm__fail(GM_ERR_ARG, "%s: prep->warp: item %d's matrix is singular (no inverse maps dst to the crop)",
                        fn, i);
    return GM_OK;
}

/* Plans a checked batch (gm__check_prep), each item's placement made
 * once: places[0 .. count) the items, *plan the arguments every launch
 * shares (no items, no kernel yet), *kinds with bit k set where an item is
 * of kind k. Writes nothing else. */
static gm_status gm__prep_plan(const char* fn, const gm_mat* srcs, const gm_yuv* frames, const gm_rect* crops,
                               int count, const gm_mat* dst, const gm_prep* p, gm__plan* plan, gm__prep_place* places,
                               unsigned* kinds)
{
    const char* sources = gm__prep_sources_name(fn);
    gm_rect whole;
    gm_mat first, src;
    char name[32];
    int i;
    gm_status s;
    first = gm__prep_source_at(srcs, frames, 0);
    gm__prep_common(&first, dst, p, &plan->args.prep);
    *kinds = 0;
    for (i = 0; i < count; ++i) {
        gm__prep_place* at = &places[i];
        const gm_rect* crop = crops ? &crops[i] : &whole;
        src = gm__prep_source_at(srcs, frames, i);
        whole.x = whole.y = 0, whole.width = src.width, whole.height = src.height;
        gm__place(crop, dst->width, dst->height, p, &at->g);
        gm__prep_name(sources, i, name);
        if ((s = gm__check_placed(fn, name, &at->g, i ? &places[0].g : NULL, dst->width, dst->height)) != GM_OK)
            return s;
        gm__prep_item_of(&src, frames ? &frames[i] : NULL, crop, p, &at->g, &at->item.item);
        at->item.item.dst = gm__channel_addr(dst, 0) + (unsigned long long)((int64_t)i * dst->batch_pitch);
        at->kind = p->fit == GM_FIT_WARP ? 2 * at->item.item.map.sampler /* one path: prep_warp.cu's */
                                         : gm__prep_kind(first.dtype, (int)first.channels, frames != NULL,
                                                         &at->item.item);
        *kinds |= 1u << at->kind;
        if (p->fit == GM_FIT_WARP && (s = gm__prep_matrix(fn, p, i, at->item.M)) != GM_OK)
            return s;
    }
    plan->args.prep.width = places[0].g.dst_width; /* dst's, or with prep->stride the rectangle written */
    plan->args.prep.height = places[0].g.dst_height;
    plan->fn = fn;
    plan->kernel = -1;
    plan->many = NULL;
    plan->host = NULL;
    plan->on_host = dst->where != GM_DEVICE;
    plan->device = (int)dst->device;
    return GM_OK;
}

/* Item i of the items at items, each size bytes (a gm__prep_item, or a
 * warp placement's gm__prep_warp_item, which begins with one). */
static gm__prep_item* gm__prep_nth(void* items, size_t size, int i)
{
    return (gm__prep_item*)(void*)((unsigned char*)items + (size_t)i * size);
}

/* Runs n items of one kind (n > 0), each size bytes (gm__prep_nth): up to
 * GM__PREP_ITEMS (warp items: GM__PREP_WARP_ITEMS) in a launch of the
 * kernel, more through its _many entry point, GM__PREP_ITEMS_MANY
 * (GM__PREP_WARP_ITEMS_MANY) a launch, or the few where the kernel has
 * none (NVRTC or driver before 12.1). */
static gm_status gm__prep_launch(gm__plan* plan, void* items, size_t size, int n, gm_stream stream)
{
    gm__prep_args* a = &plan->args.prep;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    const int warp = size == sizeof(gm__prep_warp_item), few = warp ? GM__PREP_WARP_ITEMS : GM__PREP_ITEMS;
    gm__prep_many* many;
    gm__CUfunction f = 0;
    int i, most = warp ? GM__PREP_WARP_ITEMS_MANY : GM__PREP_ITEMS_MANY;
    gm_status s = GM_OK;
    if (n > few && !plan->on_host &&
        (s = gm__function(plan->fn, plan->kernel, plan->device, 1, &f, NULL, NULL)) != GM_OK)
        return s;
    if (n > few && !plan->on_host && !f)
        most = few;
    for (; n > most && s == GM_OK; items = gm__prep_nth(items, size, most), n -= most)
        s = gm__prep_launch(plan, items, size, most, stream);
    if (s != GM_OK)
        return s;
    for (i = a->tile = 0; i < n; ++i) /* slots that fit every item's */
        if (gm__prep_nth(items, size, i)->map.tile > a->tile)
            a->tile = gm__prep_nth(items, size, i)->map.tile;
    a->points = !warp && gm__prep_takes_points((gm_dtype)k->src, k->channels, a->frame.step != 0,
                                               gm__prep_nth(items, size, 0));
    for (i = 0; i < n && a->points && a->frame.step; ++i) /* else frames take the per-pixel path */
        a->points = gm__prep_frame_narrow(&a->frame, gm__prep_nth(items, size, i));
    a->count = n;
    memcpy(&a->u, items, (size_t)(n < few ? n : few) * size);
    if (n <= few)
        return gm__run(plan, stream);
    if (!(many = (gm__prep_many*)GM_MALLOC(sizeof *many)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %d items failed", plan->fn, n);
    many->a = *a;
    memcpy(&many->u, gm__prep_nth(items, size, few), (size_t)(n - few) * size);
    plan->many = many;
    s = gm__run(plan, stream); /* the driver has read the parameters on return */
    plan->many = NULL;
    GM_FREE(many);
    return s;
}

/* Runs n items of one kind whose frames read as layouts[i] say (layouts
 * NULL: images): those alike in one gm__prep_launch, the items reordered
 * to bring them together. */
static gm_status gm__prep_launch_alike(gm__plan* plan, void* items, size_t size, gm__prep_frame* layouts, int n,
                                       gm_stream stream)
{
    gm__prep_warp_item item;
    gm__prep_frame layout;
    int i, j, k;
    gm_status s = GM_OK;
    if (!layouts)
        return gm__prep_launch(plan, items, size, n, stream);
    for (i = 0; i < n && s == GM_OK; i = j) {
        for (j = k = i + 1; k < n; ++k)
            if (!memcmp(&layouts[k], &layouts[i], sizeof layout)) {
                memcpy(&item, gm__prep_nth(items, size, j), size);
                memcpy(gm__prep_nth(items, size, j), gm__prep_nth(items, size, k), size);
                memcpy(gm__prep_nth(items, size, k), &item, size);
                layout = layouts[j], layouts[j] = layouts[k], layouts[k] = layout;
                ++j;
            }
        plan->args.prep.frame = layouts[i];
        s = gm__prep_launch(plan, gm__prep_nth(items, size, i), size, j - i, stream);
    }
    return s;
}

/* Checks and plans a whole batch of images (srcs) or frames, then runs
 * it: the items of each kind (gm__prep_kind) in one launch
 * (gm__prep_launch; frames also of one layout, gm__prep_launch_alike), in
 * order (each launch the kernel of its sampler); nothing is written unless
 * every item is good. */
static gm_status gm__preprocess(const char* fn, const gm_mat* srcs, const gm_yuv* frames, const gm_rect* crops,
                                int count, gm_mat* dst, const gm_prep* p, gm_prep_geometry* geometry, gm_stream stream)
{
    gm_prep defaults;
    gm__plan plan;
    gm__prep_place* places;
    unsigned char* items;
    gm__prep_frame* layouts = NULL;
    gm_mat first;
    size_t size;
    unsigned kinds = 0;
    int i, n, kind, sampler;
    gm_status s = GM_OK;
    if (!p) {
        memset(&defaults, 0, sizeof defaults);
        p = &defaults;
    }
    if ((s = gm__check_prep(fn, srcs, frames, crops, count, dst, p)) != GM_OK)
        return s;
    first = gm__prep_source_at(srcs, frames, 0);
    size = p->fit == GM_FIT_WARP ? sizeof(gm__prep_warp_item) : sizeof(gm__prep_item); /* what a launch carries */
    places = (gm__prep_place*)GM_MALLOC((size_t)count * sizeof *places);
    items = places ? (unsigned char*)GM_MALLOC((size_t)count * size) : NULL;
    if (frames && items && !(layouts = (gm__prep_frame*)GM_MALLOC((size_t)count * sizeof *layouts)))
        GM_FREE(items), items = NULL;
    if (!items) {
        if (places)
            GM_FREE(places);
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %d items failed", fn, count);
    }
    s = gm__prep_plan(fn, srcs, frames, crops, count, dst, p, &plan, places, &kinds);
    for (i = 0; i < count && geometry && s == GM_OK; ++i)
        geometry[i] = places[i].g;
    for (kind = 0; kind < 2 * GM__SAMPLER_COUNT && s == GM_OK; ++kind) {
        if (!(kinds >> kind & 1))
            continue;
        for (i = n = 0; i < count; ++i) {
            if (places[i].kind != kind)
                continue;
            if (frames)
                gm__prep_frame_of(&frames[i], &layouts[n]);
            memcpy(gm__prep_nth(items, size, n++), &places[i].item, size);
        }
        sampler = gm__prep_nth(items, size, 0)->map.sampler;
        plan.kernel = p->fit == GM_FIT_WARP
                          ? gm__prep_warp_kernel_of(frames != NULL, first.dtype, dst->dtype, (int)first.channels, sampler)
                          : gm__prep_kernel_of(frames != NULL, p->arith, first.dtype, dst->dtype, (int)first.channels,
                                               sampler);
        s = gm__prep_launch_alike(&plan, items, size, layouts, n, stream);
    }
    GM_FREE(places);
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
    gm_status s;
    if ((s = gm__check_blob_prep(fn, src_name, &srcs[0], dst, params)) != GM_OK)
        return s;
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
