/* SPDX-License-Identifier: MIT */
/* Implementation: gpumat/yuv.h. */

/* CY, CVR, CVG, CUG, CUB by [matrix][range] (gm_yuv_matrix, gm_yuv_range),
 * for templates/yuv.inc's arithmetic. BT.601 limited is OpenCV's set (its
 * coefficients rounded to 3 decimals, then to 20 bits). The others are
 * round(c 2^20) of the definitions from Kr and Kb (BT.709 0.2126 and
 * 0.0722, BT.2020 0.2627 and 0.0593): R = Y + 2 (1 - Kr) V,
 * B = Y + 2 (1 - Kb) U, G = Y - 2 Kr (1 - Kr) / Kg V - 2 Kb (1 - Kb) / Kg U
 * with Kg = 1 - Kr - Kb, for limited range Y scaled by 255 / 219 and the
 * chroma terms by 255 / 224 (test_cpu derives them again). */
GM__INTERNAL const int gm__yuv_constants[3][2][5] = {
    {{1220542, 1673527, -852492, -409993, 2116026}, {1048576, 1470104, -748826, -360853, 1858077}},
    {{1220945, 1879825, -558796, -223607, 2215014}, {1048576, 1651297, -490864, -196424, 1945738}},
    {{1220945, 1760217, -682019, -196426, 2245811}, {1048576, 1546230, -599107, -172546, 1972791}}};

/* The reverse's CRY, CGY, CBY, CRU, CGU, CBU, CGV, CBV (CRV is CBU) by
 * [matrix][range]. BT.601 limited is OpenCV's set; the others are
 * round(c 2^20) of Y = Kr R + Kg G + Kb B, U = (B - Y) / (2 (1 - Kb)),
 * V = (R - Y) / (2 (1 - Kr)), for limited range Y scaled by 219 / 255 and
 * U, V by 224 / 255 (test_cpu derives them again). */
GM__INTERNAL const int gm__yuv_forward[3][2][8] = {
    {{269484, 528482, 102760, -155188, -305135, 460324, -385875, -74448},
     {313524, 615514, 119538, -176932, -347356, 524288, -439026, -85262}},
    {{191455, 644067, 65019, -105533, -355018, 460551, -418321, -42230},
     {222927, 749942, 75707, -120138, -404150, 524288, -476214, -48074}},
    {{236572, 610567, 53402, -128614, -331937, 460551, -423510, -37041},
     {275461, 710935, 62181, -146413, -377875, 524288, -482120, -42168}}};

GM_API gm_status gm_yuv_wrap(gm_yuv* frame, gm_yuv_format format, void* data, int64_t width, int64_t height,
                             int64_t pitch, int64_t coded_height, gm_where where)
{
    static const char fn[] = "gm_yuv_wrap";
    gm_yuv f;
    gm_mat whole;
    gm_status s;
    int planar = format == GM_YUV_I420 || format == GM_YUV_YV12;
    gm_dtype sample = gm__yuv_sample(format);
    int64_t luma, half;
    if ((s = gm__check_yuv_wrap(fn, frame, format, width, height, &pitch, &coded_height)) != GM_OK)
        return s;
    memset(&f, 0, sizeof f);
    f.format = format;
    luma = pitch * coded_height, half = pitch / 2 * (coded_height / 2);
    /* the whole buffer first: a device frame must lie in data's allocation */
    if ((s = gm__wrap_as(fn, &whole, data, pitch, coded_height + coded_height / 2, GM_U8, 1, GM_HWC, pitch, where)) !=
            GM_OK ||
        (s = gm__wrap_as(fn, &f.y, data, width, height, sample, 1, GM_HWC, pitch, where)) != GM_OK)
        return s;
    if (!planar)
        s = gm__wrap_as(fn, &f.u, (char*)data + luma, width / 2, height / 2, sample, 2, GM_HWC, pitch, where);
    else if ((s = gm__wrap_as(fn, format == GM_YUV_I420 ? &f.u : &f.v, (char*)data + luma, width / 2, height / 2,
                              GM_U8, 1, GM_HWC, pitch / 2, where)) == GM_OK)
        s = gm__wrap_as(fn, format == GM_YUV_I420 ? &f.v : &f.u, (char*)data + luma + half, width / 2, height / 2,
                        GM_U8, 1, GM_HWC, pitch / 2, where);
    if (s == GM_OK)
        *frame = f;
    return s;
}

GM_API gm_status gm_yuv_roi(const gm_yuv* frame, gm_yuv* view, int64_t x, int64_t y, int64_t width, int64_t height)
{
    static const char fn[] = "gm_yuv_roi";
    gm_yuv v;
    gm_status s = gm__check_yuv_roi(fn, frame, view, x, y, width, height);
    if (s != GM_OK)
        return s;
    v = *frame;
    if ((s = gm__roi_as(fn, &frame->y, &v.y, x, y, width, height)) != GM_OK ||
        (s = gm__roi_as(fn, &frame->u, &v.u, x / 2, y / 2, width / 2, height / 2)) != GM_OK ||
        (gm__yuv_planar(frame) && (s = gm__roi_as(fn, &frame->v, &v.v, x / 2, y / 2, width / 2, height / 2)) != GM_OK))
        return s;
    *view = v;
    return GM_OK;
}

/* The launch's (or the CPU loop's) arguments for frame f and image m,
 * BGR(A) or, with rgb, RGB(A). */
GM__INTERNAL void gm__yuv_args_of(gm__yuv_args* a, const gm_yuv* f, const gm_mat* m, int rgb)
{
    const int* k = gm__yuv_constants[f->matrix][f->range];
    const int* g = gm__yuv_forward[f->matrix][f->range];
    const gm_mat* v = gm__yuv_planar(f) ? &f->v : &f->u;
    unsigned long long u0 = (unsigned long long)(uintptr_t)f->u.data, v0 = (unsigned long long)(uintptr_t)v->data;
    const int blue = rgb ? 2 : 0, red = 2 - blue, sample = (int)gm_dtype_size(f->y.dtype);
    const long long esize = (long long)gm_dtype_size(m->dtype);
    int c;
    memset(a, 0, sizeof *a);
    a->y = (unsigned long long)(uintptr_t)f->y.data;
    a->u = f->format == GM_YUV_NV21 ? u0 + 1 : u0;
    a->v = f->format == GM_YUV_NV12 || f->format == GM_YUV_P016 ? v0 + (unsigned)sample : v0;
    a->image = (unsigned long long)(uintptr_t)m->data;
    a->y_pitch = f->y.pitch, a->u_pitch = f->u.pitch, a->v_pitch = v->pitch, a->image_pitch = m->pitch;
    a->y_bstride = f->y.batch_pitch, a->u_bstride = f->u.batch_pitch, a->v_bstride = v->batch_pitch;
    a->image_bstride = m->batch_pitch;
    a->image_xstride = m->channels > 1 && m->layout == GM_HWC ? m->channels * esize : esize;
    a->image_cstride = m->channels > 1 && m->layout == GM_CHW ? m->plane_pitch : esize;
    a->width = f->y.width, a->height = f->y.height;
    a->batch = (int)f->y.batch;
    a->sample = sample;
    a->step = gm__yuv_planar(f) ? 1 : 2 * sample;
    a->channels = (int)m->channels;
    a->dtype = (int)m->dtype;
    a->cy = k[0];
    a->yoff = f->range == GM_YUV_LIMITED ? 16 : 0;
    a->ku[blue] = k[4], a->kv[red] = k[1];
    a->ku[1] = k[3], a->kv[1] = k[2];
    for (c = 0; c < 3; ++c)
        a->bias[c] = (1 << 19) - 128 * (a->ku[c] + a->kv[c]);
    a->fy[red] = g[0], a->fy[1] = g[1], a->fy[blue] = g[2];
    a->fu[red] = g[3], a->fu[1] = g[4], a->fu[blue] = g[5];
    a->fv[red] = g[5], a->fv[1] = g[6], a->fv[blue] = g[7];
}

/* gm_yuv_convert (from 0: frame into image) and gm_yuv_from_image (from 1:
 * image into frame), whose image is named `name`. */
static gm_status gm__yuv_run(const char* fn, const gm_yuv* frame, const char* name, const gm_mat* image, int rgb,
                             int from, gm_stream stream)
{
    gm__plan p;
    gm_status s = gm__yuv_image_check(fn, frame, name, image, from);
    if (s != GM_OK)
        return s;
    gm__plan_of(&p, fn, from                               ? GM__YUV_FROM_ROW
                        : frame->format == GM_YUV_P016 ? gm__yuv16_row[image->dtype]
                                                       : GM__YUV_ROW,
                image);
    gm__yuv_args_of(&p.args.yuv, frame, image, rgb);
    return gm__run(&p, stream);
}

GM_API gm_status gm_yuv_convert(const gm_yuv* frame, gm_mat* dst, int rgb, gm_stream stream)
{
    return gm__yuv_run("gm_yuv_convert", frame, "dst", dst, rgb, 0, stream);
}

GM_API gm_status gm_yuv_from_image(const gm_mat* src, gm_yuv* frame, int rgb, gm_stream stream)
{
    return gm__yuv_run("gm_yuv_from_image", frame, "src", src, rgb, 1, stream);
}
