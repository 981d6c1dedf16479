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
static const int gm__yuv_constants[3][2][5] = {
    {{1220542, 1673527, -852492, -409993, 2116026}, {1048576, 1470104, -748826, -360853, 1858077}},
    {{1220945, 1879825, -558796, -223607, 2215014}, {1048576, 1651297, -490864, -196424, 1945738}},
    {{1220945, 1760217, -682019, -196426, 2245811}, {1048576, 1546230, -599107, -172546, 1972791}}};

/* The reverse's CRY, CGY, CBY, CRU, CGU, CBU, CGV, CBV (CRV is CBU) by
 * [matrix][range]. BT.601 limited is OpenCV's set; the others are
 * round(c 2^20) of Y = Kr R + Kg G + Kb B, U = (B - Y) / (2 (1 - Kb)),
 * V = (R - Y) / (2 (1 - Kr)), for limited range Y scaled by 219 / 255 and
 * U, V by 224 / 255 (test_cpu derives them again). */
static const int gm__yuv_forward[3][2][8] = {
    {{269484, 528482, 102760, -155188, -305135, 460324, -385875, -74448},
     {313524, 615514, 119538, -176932, -347356, 524288, -439026, -85262}},
    {{191455, 644067, 65019, -105533, -355018, 460551, -418321, -42230},
     {222927, 749942, 75707, -120138, -404150, 524288, -476214, -48074}},
    {{236572, 610567, 53402, -128614, -331937, 460551, -423510, -37041},
     {275461, 710935, 62181, -146413, -377875, 524288, -482120, -42168}}};

static int gm__yuv_planar(const gm_yuv* f) { return f->format == GM_YUV_I420 || f->format == GM_YUV_YV12; }

/* The dtype of a frame's samples. */
static gm_dtype gm__yuv_sample(gm_yuv_format format) { return format == GM_YUV_P016 ? GM_U16 : GM_U8; }

/* One chroma plane of f (name "u" or "v"), beside its luma. */
static gm_status gm__yuv_check_chroma(const char* fn, const char* name, const gm_mat* c, const gm_yuv* f)
{
    char arg[32];
    int channels = gm__yuv_planar(f) ? 1 : 2;
    gm_dtype sample = gm__yuv_sample(f->format);
    gm_status s;
    snprintf(arg, sizeof arg, "frame->%s", name);
    if ((s = gm__check(fn, arg, c)) != GM_OK)
        return s;
    if (c->dtype != sample || c->channels != channels || (channels > 1 && c->layout != GM_HWC))
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d %s; a %s frame's is %s x%d%s", fn, arg,
                        gm_dtype_name(c->dtype), (int)c->channels, gm__layout_name(c),
                        gm__yuv_planar(f) ? "planar" : "semi-planar", gm_dtype_name(sample), channels,
                        channels > 1 ? " interleaved" : "");
    if (c->width != f->y.width / 2 || c->height != f->y.height / 2 || c->batch != f->y.batch)
        return gm__fail(GM_ERR_SIZE, "%s: %s is %lldx%lld, batch %d; the luma's %lldx%lld, batch %d, needs %lldx%lld",
                        fn, arg, (long long)c->width, (long long)c->height, (int)c->batch, (long long)f->y.width,
                        (long long)f->y.height, (int)f->y.batch, (long long)f->y.width / 2,
                        (long long)f->y.height / 2);
    if (gm__on_host(c) != gm__on_host(&f->y) || (!gm__on_host(c) && c->device != f->y.device))
        return gm__fail(GM_ERR_LOCATION, "%s: %s and frame->y are not in the same memory", fn, arg);
    if (gm__overlap(c, &f->y))
        return gm__fail(GM_ERR_OVERLAP, "%s: %s and frame->y overlap", fn, arg);
    return GM_OK;
}

/* What every function of a frame needs of it. */
static gm_status gm__yuv_check(const char* fn, const gm_yuv* f)
{
    gm_status s;
    if (!f)
        return gm__fail(GM_ERR_ARG, "%s: frame is NULL", fn);
    if ((unsigned)f->format > GM_YUV_P016 || (unsigned)f->matrix > GM_YUV_BT2020 || (unsigned)f->range > GM_YUV_FULL)
        return gm__fail(GM_ERR_ARG, "%s: frame->format %d, matrix %d or range %d is not one gpumat/yuv.h names", fn,
                        (int)f->format, (int)f->matrix, (int)f->range);
    if ((s = gm__check(fn, "frame->y", &f->y)) != GM_OK)
        return s;
    if (f->y.dtype != gm__yuv_sample(f->format) || f->y.channels != 1)
        return gm__fail(GM_ERR_TYPE, "%s: frame->y is %s x%d; the luma is %s x1", fn, gm_dtype_name(f->y.dtype),
                        (int)f->y.channels, gm_dtype_name(gm__yuv_sample(f->format)));
    if (f->y.width % 2 || f->y.height % 2)
        return gm__fail(GM_ERR_SIZE, "%s: frame->y is %lldx%lld; 4:2:0 needs an even width and height", fn,
                        (long long)f->y.width, (long long)f->y.height);
    if ((s = gm__yuv_check_chroma(fn, "u", &f->u, f)) != GM_OK)
        return s;
    if (!gm__yuv_planar(f))
        return GM_OK;
    if ((s = gm__yuv_check_chroma(fn, "v", &f->v, f)) != GM_OK)
        return s;
    if (gm__overlap(&f->u, &f->v))
        return gm__fail(GM_ERR_OVERLAP, "%s: frame->u and frame->v overlap", fn);
    return GM_OK;
}

GM_API gm_status gm_yuv_wrap(gm_yuv* frame, gm_yuv_format format, void* data, int64_t width, int64_t height,
                             int64_t pitch, int64_t coded_height, gm_where where)
{
    static const char fn[] = "gm_yuv_wrap";
    gm_yuv f;
    gm_mat whole;
    gm_status s;
    int planar = format == GM_YUV_I420 || format == GM_YUV_YV12;
    gm_dtype sample = gm__yuv_sample(format);
    int64_t luma, half, esize = (int64_t)gm_dtype_size(sample);
    if (!frame)
        return gm__fail(GM_ERR_ARG, "%s: frame is NULL", fn);
    memset(frame, 0, sizeof *frame);
    if ((unsigned)format > GM_YUV_P016)
        return gm__fail(GM_ERR_ARG, "%s: format %d is not one gpumat/yuv.h names", fn, (int)format);
    coded_height = coded_height ? coded_height : height;
    if (width <= 0 || height <= 0 || width % 2 || height % 2 || width > INT64_MAX / 2)
        return gm__fail(GM_ERR_SIZE, "%s: %lldx%lld; 4:2:0 needs an even width and height", fn, (long long)width,
                        (long long)height);
    pitch = pitch ? pitch : width * esize;
    if (coded_height < height || coded_height % 2 || (planar && pitch % 2))
        return gm__fail(GM_ERR_SIZE, "%s: coded_height %lld (pitch %lld) for height %lld; it must be even, at least "
                        "the height, and a planar frame's pitch even", fn, (long long)coded_height, (long long)pitch,
                        (long long)height);
    if (pitch < width * esize || pitch > INT64_MAX / 3 / (coded_height / 2))
        return gm__fail(GM_ERR_SIZE, "%s: pitch %lld for width %lld of %s samples", fn, (long long)pitch,
                        (long long)width, gm_dtype_name(sample));
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
    gm_status s = gm__yuv_check(fn, frame);
    if (s != GM_OK)
        return s;
    if (!view)
        return gm__fail(GM_ERR_ARG, "%s: view is NULL", fn);
    if (x % 2 || y % 2 || width % 2 || height % 2)
        return gm__fail(GM_ERR_ARG, "%s: (%lld, %lld) %lldx%lld; a 4:2:0 rectangle's values are even", fn,
                        (long long)x, (long long)y, (long long)width, (long long)height);
    if (x < 0 || y < 0 || width <= 0 || height <= 0 || x > frame->y.width - width || y > frame->y.height - height)
        return gm__fail(GM_ERR_SIZE, "%s: (%lld, %lld) %lldx%lld is not inside frame->y (%lldx%lld)", fn,
                        (long long)x, (long long)y, (long long)width, (long long)height, (long long)frame->y.width,
                        (long long)frame->y.height);
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
static void gm__yuv_args_of(gm__yuv_args* a, const gm_yuv* f, const gm_mat* m, int rgb)
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

/* Rows 2r and 2r + 1 of item b of launch a on the CPU: into the image, or
 * (from) from it, whose pixels are xs bytes apart and channels cs (the
 * callers pass constants for interleaved images, so the compiler knows the
 * stores' offsets). Each chroma pair's terms are computed once for its
 * four pixels; the arguments are copied to locals first, since the byte
 * stores could otherwise alias them and force a reload at every pixel. */
static GM__ALWAYS_INLINE void gm__yuv_host_rows_as(const gm__yuv_args* a, int from, long long b, long long r,
                                                   int channels, long long xs, long long cs)
{
    const long long half = a->width / 2, step = a->step, yp = a->y_pitch, ip = a->image_pitch;
    const int cy = a->cy, yoff = a->yoff;
    const int ku[3] = {a->ku[0], a->ku[1], a->ku[2]}, kv[3] = {a->kv[0], a->kv[1], a->kv[2]};
    const int bias[3] = {a->bias[0], a->bias[1], a->bias[2]};
    const int fy[3] = {a->fy[0], a->fy[1], a->fy[2]}, fu[3] = {a->fu[0], a->fu[1], a->fu[2]};
    const int fv[3] = {a->fv[0], a->fv[1], a->fv[2]};
    unsigned char* GM__RESTRICT luma = (unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* GM__RESTRICT u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* GM__RESTRICT v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* GM__RESTRICT image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    long long j, i, k;
    int c;
    for (j = 0; j < half; ++j) {
        if (from) {
            const unsigned char* p = image + 2 * j * xs;
            for (i = 0; i < 2; ++i)
                for (k = 0; k < 2; ++k) {
                    const unsigned char* q = p + i * ip + k * xs;
                    luma[i * yp + 2 * j + k] = (unsigned char)gm__yuv_weigh(fy, yoff, q[0], q[cs], q[2 * cs]);
                }
            u[j * step] = (unsigned char)gm__yuv_weigh(fu, 128, p[0], p[cs], p[2 * cs]);
            v[j * step] = (unsigned char)gm__yuv_weigh(fv, 128, p[0], p[cs], p[2 * cs]);
        } else {
            int t[3];
            for (c = 0; c < 3; ++c)
                t[c] = ku[c] * u[j * step] + kv[c] * v[j * step] + bias[c];
            for (i = 0; i < 2; ++i)
                for (k = 0; k < 2; ++k) {
                    const int y = luma[i * yp + 2 * j + k];
                    unsigned char* q = image + i * ip + (2 * j + k) * xs;
                    if (channels == 1) {
                        q[0] = (unsigned char)y;
                        continue;
                    }
                    for (c = 0; c < 3; ++c)
                        q[c * cs] = (unsigned char)gm__yuv_channel(cy, y > yoff ? y - yoff : 0, t[c]);
                    if (channels == 4)
                        q[3 * cs] = 255;
                }
        }
    }
}

/* Rows 2r and 2r + 1 of item b of launch a (8-bit samples, U and V
 * samples `step` bytes apart) into interleaved u8 pixels of C channels (3
 * or 4), as gm__yuv_pixel computes them, in runs of 4 GM__CPU_BLOCK
 * pixels through arrays in the first-level cache: the run's U and V
 * samples apart, each pair's terms spread over its two columns, then each
 * channel of a row over the whole run (loops of constant count over
 * contiguous ints, which the compiler vectorises; the lanes past the row
 * compute on stale values and are not stored), then the channels
 * interleaved. */
static GM__ALWAYS_INLINE void gm__yuv_rows_u8(const gm__yuv_args* a, long long b, long long r, int C, int step)
{
    enum { N = 4 * GM__CPU_BLOCK };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch;
    const int cy = a->cy, yoff = a->yoff;
    const int ku[3] = {a->ku[0], a->ku[1], a->ku[2]}, kv[3] = {a->kv[0], a->kv[1], a->kv[2]};
    const int bias[3] = {a->bias[0], a->bias[1], a->bias[2]};
    const unsigned char* luma = (const unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    const unsigned char* u = (const unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    const unsigned char* v = (const unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    int t[3][N];
    unsigned char y[N], out[4][N], uu[N / 2], vv[N / 2];
    long long x0, n, k;
    int c, i;
    memset(y, 0, sizeof y);
    memset(uu, 0, sizeof uu);
    memset(vv, 0, sizeof vv);
    memset(out[3], 255, sizeof out[3]);
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        if (step == 2 && v == u + 1)
            gm__cpu_unzip(N / 2, 1, 2, u + x0, uu, vv, NULL, NULL, n / 2);
        else if (step == 2) /* NV21: V first */
            gm__cpu_unzip(N / 2, 1, 2, v + x0, vv, uu, NULL, NULL, n / 2);
        else
            memcpy(uu, u + x0 / 2, (size_t)(n / 2)), memcpy(vv, v + x0 / 2, (size_t)(n / 2));
        for (c = 0; c < 3; ++c)
            for (k = 0; k < N / 2; ++k)
                t[c][2 * k] = t[c][2 * k + 1] = ku[c] * uu[k] + kv[c] * vv[k] + bias[c];
        for (i = 0; i < 2; ++i) {
            memcpy(y, luma + i * yp + x0, (size_t)n);
            for (c = 0; c < 3; ++c)
                for (k = 0; k < N; ++k) {
                    const int l = y[k] > yoff ? y[k] - yoff : 0, q = (l * cy + t[c][k]) >> 20;
                    out[c][k] = (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
                }
            gm__cpu_zip(N, 1, C, out[0], out[1], out[2], out[3], image + i * ip + x0 * C, n);
        }
    }
}

/* gm__yuv_rows_u8 for each channel count and chroma step, for the
 * baseline and for AVX2 (taken as gm__cpu_isa says). */
typedef void (*gm__yuv_rows_fn)(const gm__yuv_args*, long long, long long);
#define GM__YUV_ROWS_DEF(name, attr, C, step) \
    static attr void name(const gm__yuv_args* a, long long b, long long r) { gm__yuv_rows_u8(a, b, r, C, step); }
#ifdef GM__CPU_AVX2
#define GM__YUV_ROWS(name, C, step) \
    GM__YUV_ROWS_DEF(name, , C, step) GM__YUV_ROWS_DEF(name##_avx2, GM__CPU_AVX2, C, step)
#else
#define GM__YUV_ROWS(name, C, step) GM__YUV_ROWS_DEF(name, , C, step)
#endif
GM__YUV_ROWS(gm__yuv_rows_c3_planar, 3, 1)
GM__YUV_ROWS(gm__yuv_rows_c3_pairs, 3, 2)
GM__YUV_ROWS(gm__yuv_rows_c4_planar, 4, 1)
GM__YUV_ROWS(gm__yuv_rows_c4_pairs, 4, 2)
/* [isa][channels 4][step 2] */
static const gm__yuv_rows_fn gm__yuv_rows_fns[GM__CPU_ISAS][2][2] = {
    {{gm__yuv_rows_c3_planar, gm__yuv_rows_c3_pairs}, {gm__yuv_rows_c4_planar, gm__yuv_rows_c4_pairs}}
#ifdef GM__CPU_AVX2
    ,
    {{gm__yuv_rows_c3_planar_avx2, gm__yuv_rows_c3_pairs_avx2},
     {gm__yuv_rows_c4_planar_avx2, gm__yuv_rows_c4_pairs_avx2}}
#endif
};

/* Rows 2r and 2r + 1 of item b of a P016 launch into dtype D, pixels xs
 * bytes apart and channels cs (constants from the callers, as above): each
 * chroma pair's terms once for its four pixels. */
static GM__ALWAYS_INLINE void gm__yuv16_host_rows_as(const gm__yuv_args* a, long long b, long long r, int D,
                                                     int channels, long long xs, long long cs)
{
    const long long half = a->width / 2, yp = a->y_pitch, ip = a->image_pitch;
    const int cy = a->cy, black = a->yoff << 8;
    const unsigned short* GM__RESTRICT luma = (const unsigned short*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    const unsigned short* GM__RESTRICT u = (const unsigned short*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    const unsigned short* GM__RESTRICT v = (const unsigned short*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* GM__RESTRICT image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    long long j, i, k;
    int c;
    for (j = 0; j < half; ++j) {
        long long t[3];
        for (c = 0; c < 3; ++c)
            t[c] = gm__yuv16_chroma(a, c, u[2 * j], v[2 * j]);
        for (i = 0; i < 2; ++i)
            for (k = 0; k < 2; ++k) {
                const int y = *(const unsigned short*)((const unsigned char*)luma + i * yp + 2 * (2 * j + k));
                unsigned char* q = image + i * ip + (2 * j + k) * xs;
                const long long l = (long long)(y > black ? y - black : 0) * cy;
                if (channels == 1) {
                    gm__yuv16_put(D, q, (long long)y << 20);
                    continue;
                }
                for (c = 0; c < 3; ++c)
                    gm__yuv16_put(D, q + c * cs, l + t[c]);
                if (channels == 4)
                    gm__yuv16_put(D, q + 3 * cs, 65535LL << 20);
            }
    }
}

/* gm__yuv16_host_rows_as for dtype D of e bytes, with the strides of
 * interleaved BGR and BGRA as constants. */
static GM__ALWAYS_INLINE void gm__yuv16_host_rows_of(const gm__yuv_args* a, long long b, long long r, int D, long long e)
{
    if (a->channels == 3 && a->image_xstride == 3 * e && a->image_cstride == e)
        gm__yuv16_host_rows_as(a, b, r, D, 3, 3 * e, e);
    else if (a->channels == 4 && a->image_xstride == 4 * e && a->image_cstride == e)
        gm__yuv16_host_rows_as(a, b, r, D, 4, 4 * e, e);
    else
        gm__yuv16_host_rows_as(a, b, r, D, a->channels, a->image_xstride, a->image_cstride);
}

static void gm__yuv16_host_rows(const gm__yuv_args* a, long long b, long long r)
{
    if (a->dtype == GM_U8)
        gm__yuv16_host_rows_of(a, b, r, GM_U8, 1);
    else if (a->dtype == GM_U16)
        gm__yuv16_host_rows_of(a, b, r, GM_U16, 2);
    else
        gm__yuv16_host_rows_of(a, b, r, GM_F32, 4);
}

static void gm__yuv_host_rows(const gm__yuv_args* a, int from, long long b, long long r)
{
    const long long xs = a->image_xstride, cs = a->image_cstride;
    if (a->sample == 2)
        gm__yuv16_host_rows(a, b, r);
    else if (!from && a->channels >= 3 && xs == a->channels && cs == 1)
        gm__yuv_rows_fns[gm__cpu_isa()][a->channels == 4][a->step == 2](a, b, r);
    else if (a->channels == 3 && xs == 3 && cs == 1)
        gm__yuv_host_rows_as(a, from, b, r, 3, 3, 1);
    else if (a->channels == 4 && xs == 4 && cs == 1)
        gm__yuv_host_rows_as(a, from, b, r, 4, 4, 1);
    else
        gm__yuv_host_rows_as(a, from, b, r, a->channels, xs, cs);
}

/* gm__parallel's part: the pairs of rows [begin, end) of every item, one
 * after another, of the launch gm__yuv_host was given. */
typedef struct gm__yuv_job {
    const gm__yuv_args* a;
    int from;
} gm__yuv_job;

static void gm__yuv_host_part(void* p, long long begin, long long end)
{
    const gm__yuv_job* job = (const gm__yuv_job*)p;
    const long long pairs = job->a->height / 2;
    long long n;
    for (n = begin; n < end; ++n)
        gm__yuv_host_rows(job->a, job->from, n / pairs, n % pairs);
}

/* Every pixel of the launch a, on the CPU (on the pool where large). */
static void gm__yuv_host(const gm__yuv_args* a, int from)
{
    gm__yuv_job job;
    job.a = a, job.from = from;
    gm__parallel(gm__yuv_host_part, &job, a->batch * (a->height / 2),
                 gm__cpu_part_bytes / (a->width * a->sample * (2 * a->channels + 3)) + 1);
}

/* gm_yuv_convert (from 0: frame into image) and gm_yuv_from_image (from 1:
 * image into frame), whose image is named `name`. */
static gm_status gm__yuv_run(const char* fn, const gm_yuv* frame, const char* name, const gm_mat* image, int rgb,
                             int from, gm_stream stream)
{
    static const unsigned block[2] = {GM__YUV_BLOCK_X, GM__YUV_BLOCK_Y};
    gm__yuv_args a;
    gm__CUcontext ctx;
    unsigned grid[3];
    long long rows;
    int dev;
    gm_status s = gm__yuv_check(fn, frame);
    if (s != GM_OK || (s = gm__check(fn, name, image)) != GM_OK)
        return s;
    if (from && frame->format == GM_YUV_P016)
        return gm__fail(GM_ERR_TYPE, "%s: frame->format is P016; images go into 8-bit frames only", fn);
    if (frame->format == GM_YUV_P016 ? gm__yuv16_row[image->dtype] < 0 : image->dtype != GM_U8)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s; %s frames convert to %s", fn, name, gm_dtype_name(image->dtype),
                        frame->format == GM_YUV_P016 ? "P016" : "8-bit",
                        frame->format == GM_YUV_P016 ? "u8, u16 or f32" : "u8");
    if (image->channels == 2 || (from && image->channels == 1))
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d; %sx3 or x4 expected", fn, name, gm_dtype_name(image->dtype),
                        (int)image->channels, from ? "" : "x1 (gray), ");
    if (image->width != frame->y.width || image->height != frame->y.height || image->batch != frame->y.batch)
        return gm__fail(GM_ERR_SIZE, "%s: %s is %lldx%lld, batch %d, but the frame is %lldx%lld, batch %d", fn, name,
                        (long long)image->width, (long long)image->height, (int)image->batch,
                        (long long)frame->y.width, (long long)frame->y.height, (int)frame->y.batch);
    if ((s = gm__check_place(fn, "frame->y", &frame->y, name, image)) != GM_OK ||
        (s = gm__check_place(fn, "frame->u", &frame->u, name, image)) != GM_OK ||
        (gm__yuv_planar(frame) && (s = gm__check_place(fn, "frame->v", &frame->v, name, image)) != GM_OK))
        return s;
    gm__yuv_args_of(&a, frame, image, rgb);
    if (gm__on_host(image)) {
        gm__yuv_host(&a, from);
        return GM_OK;
    }
    if ((s = gm__context(fn, (int)image->device, &ctx, &dev)) != GM_OK)
        return s;
    grid[0] = (unsigned)((a.width + GM__YUV_BLOCK_X * GM__YUV_CHUNK - 1) / (GM__YUV_BLOCK_X * GM__YUV_CHUNK));
    rows = (a.height / 2 + GM__YUV_BLOCK_Y - 1) / GM__YUV_BLOCK_Y;
    grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
    grid[2] = (unsigned)(a.batch < 65535 ? a.batch : 65535);
    return gm__launch_row(fn, from ? GM__YUV_FROM_ROW : a.sample == 2 ? gm__yuv16_row[a.dtype] : GM__YUV_ROW, dev,
                          grid, block, &a, stream);
}

GM_API gm_status gm_yuv_convert(const gm_yuv* frame, gm_mat* dst, int rgb, gm_stream stream)
{
    return gm__yuv_run("gm_yuv_convert", frame, "dst", dst, rgb, 0, stream);
}

GM_API gm_status gm_yuv_from_image(const gm_mat* src, gm_yuv* frame, int rgb, gm_stream stream)
{
    return gm__yuv_run("gm_yuv_from_image", frame, "src", src, rgb, 1, stream);
}
