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

/* Runs of the row loops below: 4 GM__CPU_BLOCK pixels, through arrays in
 * the first-level cache. Their loops over a run have a constant count and
 * contiguous arrays, which the compiler vectorises; the lanes past a row's
 * end compute on stale values and are not stored. */
enum { GM__YUV_RUN = 4 * GM__CPU_BLOCK };

/* memcpy of `size` bytes of a run whose full size is the constant `full`:
 * then the compiler copies with vector moves, where a size it cannot know
 * becomes a call or a rep movs that takes longer to start than the copy. */
static GM__ALWAYS_INLINE void gm__yuv_copy(void* d, const void* s, long long size, long long full)
{
    if (size == full)
        memcpy(d, s, (size_t)full);
    else
        memcpy(d, s, (size_t)size);
}

/* gm__yuv_copy of a run's pixels into the image: a whole run in 32-byte
 * pieces, which stay vector moves, where GCC made the one memcpy of a run
 * of BGR a `rep movs`, slow to start at every run (bench/RESULTS.md). */
static GM__ALWAYS_INLINE void gm__yuv_copy_out(unsigned char* d, const void* s, long long size, long long full)
{
    long long i;
    if (size == full && full % 32 == 0)
        for (i = 0; i < full; i += 32)
            memcpy(d + i, (const unsigned char*)s + i, 32);
    else
        gm__yuv_copy(d, s, size, full);
}

/* Where byte c of a 32-bit word in memory lies in its value, in bits. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GM__YUV_BYTE(c) (8 * (3 - (c)))
#else
#define GM__YUV_BYTE(c) (8 * (c))
#endif

/* Whether launch a's image is planar (CHW), else interleaved. */
static int gm__yuv_chw(const gm__yuv_args* a) { return a->channels > 1 && a->image_xstride < a->image_cstride; }

/* n pixels of C channels (1, 3 or 4) of E bytes from the runs o[c] into
 * image row d, interleaved, or with chw in planes cs bytes apart. */
static GM__ALWAYS_INLINE void gm__yuv_put_run(int E, int C, int chw, long long cs, unsigned char* const* o,
                                              unsigned char* d, long long n)
{
    int c;
    if (chw || C == 1)
        for (c = 0; c < C; ++c)
            gm__yuv_copy(d + c * cs, o[c], n * E, GM__YUV_RUN * E);
    else if (C == 3)
        gm__cpu_zip(GM__YUV_RUN, E, 3, o[0], o[1], o[2], NULL, d, n);
    else
        gm__cpu_zip(GM__YUV_RUN, E, 4, o[0], o[1], o[2], o[3], d, n);
}

/* The reverse for u8 pixels of 3 or 4 channels: image row s into p[c].
 * Interleaved pixels are copied into a local array first, for the reason
 * gm__yuv_chroma_run gives. */
static GM__ALWAYS_INLINE void gm__yuv_get_run(int C, int chw, long long cs, const unsigned char* s,
                                              unsigned char (*p)[GM__YUV_RUN], long long n)
{
    int c;
    if (chw)
        for (c = 0; c < 3; ++c)
            gm__yuv_copy(p[c], s + c * cs, n, GM__YUV_RUN);
    else {
        unsigned char px[4 * GM__YUV_RUN];
        gm__yuv_copy(px, s, C * n, C * GM__YUV_RUN);
        if (C == 3)
            gm__cpu_unzip(GM__YUV_RUN, 1, 3, px, p[0], p[1], p[2], NULL, n);
        else
            gm__cpu_unzip(GM__YUV_RUN, 1, 4, px, p[0], p[1], p[2], p[3], n);
    }
}

/* The n / 2 chroma pairs of a run, of E-byte samples at u and v (`step`
 * bytes apart: interleaved where 2 E, V first where v is u's lower
 * neighbour, as NV21's), into uu and vv, or (to_frame) back from them.
 * Interleaved pairs go through a local array: the loops then store into
 * arrays the compiler knows apart, which it needs to vectorise them. */
static GM__ALWAYS_INLINE void gm__yuv_chroma_run(int E, int step, int to_frame, unsigned char* u, unsigned char* v,
                                                 unsigned char* uu, unsigned char* vv, long long n)
{
    const int nv21 = v + E == u;
    unsigned char pairs[GM__YUV_RUN * 2];
    if (step == E && to_frame)
        gm__yuv_copy(u, uu, n / 2 * E, GM__YUV_RUN / 2 * E), gm__yuv_copy(v, vv, n / 2 * E, GM__YUV_RUN / 2 * E);
    else if (step == E)
        gm__yuv_copy(uu, u, n / 2 * E, GM__YUV_RUN / 2 * E), gm__yuv_copy(vv, v, n / 2 * E, GM__YUV_RUN / 2 * E);
    else if (to_frame) {
        gm__cpu_zip(GM__YUV_RUN / 2, E, 2, nv21 ? vv : uu, nv21 ? uu : vv, NULL, NULL, pairs, n / 2);
        gm__yuv_copy(nv21 ? v : u, pairs, n / 2 * 2 * E, GM__YUV_RUN * E);
    } else {
        gm__yuv_copy(pairs, nv21 ? v : u, n / 2 * 2 * E, GM__YUV_RUN * E);
        if (nv21)
            gm__cpu_unzip(GM__YUV_RUN / 2, E, 2, pairs, vv, uu, NULL, NULL, n / 2);
        else
            gm__cpu_unzip(GM__YUV_RUN / 2, E, 2, pairs, uu, vv, NULL, NULL, n / 2);
    }
}

/* Rows 2r and 2r + 1 of item b of launch a (8-bit samples) into u8
 * pixels, as gm__yuv_pixel computes them, a run at a time: the run's U and
 * V samples apart, each pair's terms spread over its two columns, then
 * each channel of a row over the whole run, into its plane or interleaved
 * through a local array (gm__yuv_chroma_run says why); four channels are
 * built as words at once. */
static GM__ALWAYS_INLINE void gm__yuv_rows_u8(const gm__yuv_args* a, long long b, long long r)
{
    enum { N = GM__YUV_RUN };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch, cs = a->image_cstride;
    const int C = a->channels, cy = a->cy, yoff = a->yoff, chw = gm__yuv_chw(a);
    const int ku[3] = {a->ku[0], a->ku[1], a->ku[2]}, kv[3] = {a->kv[0], a->kv[1], a->kv[2]};
    const int bias[3] = {a->bias[0], a->bias[1], a->bias[2]};
    const unsigned char* luma = (const unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    int t[3][N], l[N];
    unsigned w[N];
    unsigned char y[N], out[4][N], px[3 * N], uu[N / 2], vv[N / 2];
    unsigned char* const o[4] = {out[0], out[1], out[2], out[3]};
    long long x0, n, k;
    int c, i;
    if (C == 1) { /* gray is the luma */
        memcpy(image, luma, (size_t)width), memcpy(image + ip, luma + yp, (size_t)width);
        return;
    }
    memset(y, 0, sizeof y);
    memset(uu, 0, sizeof uu);
    memset(vv, 0, sizeof vv);
    memset(out[3], 255, sizeof out[3]);
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        gm__yuv_chroma_run(1, a->step, 0, u + x0 / 2 * a->step, v + x0 / 2 * a->step, uu, vv, n);
        for (c = 0; c < 3; ++c)
            for (k = 0; k < N / 2; ++k)
                t[c][2 * k] = t[c][2 * k + 1] = ku[c] * uu[k] + kv[c] * vv[k] + bias[c];
        for (i = 0; i < 2; ++i) {
            gm__yuv_copy(y, luma + i * yp + x0, n, N);
            for (k = 0; k < N; ++k) /* the luma term once for the three channels */
                l[k] = ((y[k] > yoff ? y[k] : yoff) - yoff) * cy;
            if (C == 4 && !chw) { /* words of the four channels, built in 32-bit lanes */
                for (k = 0; k < N; ++k)
                    w[k] = (unsigned)gm__yuv_u8(l[k] + t[0][k]) << GM__YUV_BYTE(0) |
                           (unsigned)gm__yuv_u8(l[k] + t[1][k]) << GM__YUV_BYTE(1) |
                           (unsigned)gm__yuv_u8(l[k] + t[2][k]) << GM__YUV_BYTE(2) | 255u << GM__YUV_BYTE(3);
                gm__yuv_copy_out(image + i * ip + x0 * 4, w, 4 * n, 4 * N);
                continue;
            }
            for (c = 0; c < 3; ++c)
                for (k = 0; k < N; ++k)
                    out[c][k] = (unsigned char)gm__yuv_u8(l[k] + t[c][k]);
            if (chw) {
                gm__yuv_put_run(1, C, 1, cs, o, image + i * ip + x0, n);
                continue;
            }
            for (k = 0; k < N; ++k)
                px[3 * k] = out[0][k], px[3 * k + 1] = out[1][k], px[3 * k + 2] = out[2][k];
            gm__yuv_copy_out(image + i * ip + x0 * 3, px, 3 * n, 3 * N);
        }
    }
}

/* The reverse: u8 pixels of 3 or 4 channels of rows 2r and 2r + 1 into
 * the frame's samples, as gm__yuv_from_block computes them, a run at a
 * time: the channels apart, each sample over the whole run (the bottom row
 * first, so that the top row's channels are left for U and V, taken at
 * its even pixels), then U and V interleaved where the frame does. */
static GM__ALWAYS_INLINE void gm__yuv_from_rows_u8(const gm__yuv_args* a, long long b, long long r)
{
    enum { N = GM__YUV_RUN };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch, cs = a->image_cstride;
    const int C = a->channels, yoff = a->yoff, chw = gm__yuv_chw(a);
    const int fy[3] = {a->fy[0], a->fy[1], a->fy[2]}, fu[3] = {a->fu[0], a->fu[1], a->fu[2]};
    const int fv[3] = {a->fv[0], a->fv[1], a->fv[2]};
    unsigned char* luma = (unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    const unsigned char* image = (const unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    unsigned char p[4][N], y[N], uu[N / 2], vv[N / 2];
    long long x0, n, k;
    int i;
    memset(p, 0, sizeof p);
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        for (i = 1; i >= 0; --i) {
            gm__yuv_get_run(C, chw, cs, image + i * ip + x0 * (chw ? 1 : C), p, n);
            for (k = 0; k < N; ++k)
                y[k] = (unsigned char)gm__yuv_weigh(fy, yoff, p[0][k], p[1][k], p[2][k]);
            gm__yuv_copy(luma + i * yp + x0, y, n, N);
        }
        for (k = 0; k < N / 2; ++k) {
            uu[k] = (unsigned char)gm__yuv_weigh(fu, 128, p[0][2 * k], p[1][2 * k], p[2][2 * k]);
            vv[k] = (unsigned char)gm__yuv_weigh(fv, 128, p[0][2 * k], p[1][2 * k], p[2][2 * k]);
        }
        gm__yuv_chroma_run(1, a->step, 1, u + x0 / 2 * a->step, v + x0 / 2 * a->step, uu, vv, n);
    }
}

/* Rows 2r and 2r + 1 of item b of a P016 launch into dtype D (u8, u16 or
 * f32, E bytes), as gm__yuv16_pixel computes them, a run at a time as in
 * gm__yuv_rows_u8, in doubles: t (templates/yuv.inc) stays below 2^40 in
 * magnitude, so doubles hold every term and sum exactly. Gray is
 * t = Y 2^20: the same arithmetic with no chroma, black 0 and cy 2^20. */
static GM__ALWAYS_INLINE void gm__yuv16_rows(const gm__yuv_args* a, long long b, long long r, int D, int E)
{
    enum { N = GM__YUV_RUN };
    const long long width = a->width, yp = a->y_pitch, ip = a->image_pitch, cs = a->image_cstride;
    const int C = a->channels, chw = gm__yuv_chw(a), black = C == 1 ? 0 : a->yoff << 8;
    const double cy = C == 1 ? (double)(1 << 20) : (double)a->cy;
    const double ku[3] = {(double)a->ku[0], (double)a->ku[1], (double)a->ku[2]};
    const double kv[3] = {(double)a->kv[0], (double)a->kv[1], (double)a->kv[2]};
    const unsigned char* luma = (const unsigned char*)(uintptr_t)gm__yuv_luma_at(a, b, 0, 2 * r);
    unsigned char* u = (unsigned char*)(uintptr_t)gm__yuv_u_at(a, b, 0, 2 * r);
    unsigned char* v = (unsigned char*)(uintptr_t)gm__yuv_v_at(a, b, 0, 2 * r);
    unsigned char* image = (unsigned char*)(uintptr_t)gm__yuv_image_at(a, b, 0, 2 * r);
    double t[3][N], l[N];
    unsigned short y[N], uu[N / 2], vv[N / 2];
    union {
        unsigned char u8[N];
        unsigned short u16[N];
        float f32[N];
    } out[4];
    unsigned char* const o[4] = {out[0].u8, out[1].u8, out[2].u8, out[3].u8};
    const unsigned alpha = gm__yuv16_bits(D, 65535LL << 20);
    long long x0, n, k;
    int c, i;
    memset(t, 0, sizeof t);
    memset(y, 0, sizeof y);
    memset(uu, 0, sizeof uu);
    memset(vv, 0, sizeof vv);
    for (k = 0; k < N; ++k)
        if (D == GM_F32)
            memcpy(&out[3].f32[k], &alpha, sizeof alpha);
        else if (D == GM_U16)
            out[3].u16[k] = (unsigned short)alpha;
        else
            out[3].u8[k] = (unsigned char)alpha;
    for (x0 = 0; x0 < width; x0 += N) {
        n = width - x0 < (long long)N ? width - x0 : (long long)N;
        if (C > 1) {
            gm__yuv_chroma_run(2, a->step, 0, u + x0 / 2 * a->step, v + x0 / 2 * a->step, (unsigned char*)uu,
                               (unsigned char*)vv, n);
            for (c = 0; c < 3; ++c)
                for (k = 0; k < N / 2; ++k)
                    t[c][2 * k] = t[c][2 * k + 1] = ku[c] * (uu[k] - 32768) + kv[c] * (vv[k] - 32768);
        }
        for (i = 0; i < 2; ++i) {
            gm__yuv_copy(y, luma + i * yp + 2 * x0, 2 * n, 2 * N);
            for (k = 0; k < N; ++k)
                l[k] = (double)((y[k] > black ? y[k] : black) - black) * cy;
            for (c = 0; c < (C < 3 ? C : 3); ++c)
                for (k = 0; k < N; ++k) {
                    const double x = l[k] + t[c][k];
                    /* t (or t + 2^19, t + 2^27) scaled to the dtype's steps (f32: 2^-8 of u16's), truncated,
                     * then saturated, floors it as the integer code's shift does */
                    const int q = (int)((x + (D == GM_F32 ? 0 : D == GM_U16 ? 1 << 19 : 1 << 27)) *
                                        (1.0 / (D == GM_F32 ? 1 << 12 : D == GM_U16 ? 1 << 20 : 1 << 28)));
                    const int top = D == GM_F32 ? 65535 << 8 : D == GM_U16 ? 65535 : 255;
                    const int s = q > 0 ? q < top ? q : top : 0;
                    if (D == GM_F32)
                        out[c].f32[k] = (float)s * (float)(1.0 / (65535.0 * 256.0));
                    else if (D == GM_U16)
                        out[c].u16[k] = (unsigned short)s;
                    else
                        out[c].u8[k] = (unsigned char)s;
                }
            gm__yuv_put_run(E, C, chw, cs, o, image + i * ip + x0 * (chw ? E : C * E), n);
        }
    }
}

/* The row loops by job, each for the baseline and for AVX2 (taken as
 * gm__cpu_isa says): [0 into the image, 1 from it, 2 + k P016 into u8,
 * u16, f32][isa]. */
typedef void (*gm__yuv_rows_fn)(const gm__yuv_args*, long long, long long);
#define GM__YUV_ROWS_DEF(name, attr, call) \
    static attr void name(const gm__yuv_args* a, long long b, long long r) { call; }
#ifdef GM__CPU_AVX2
#define GM__YUV_ROWS(name, call) GM__YUV_ROWS_DEF(name, , call) GM__YUV_ROWS_DEF(name##_avx2, GM__CPU_AVX2, call)
#else
#define GM__YUV_ROWS(name, call) GM__YUV_ROWS_DEF(name, , call)
#endif
GM__YUV_ROWS(gm__yuv_rows_into, gm__yuv_rows_u8(a, b, r))
GM__YUV_ROWS(gm__yuv_rows_from, gm__yuv_from_rows_u8(a, b, r))
GM__YUV_ROWS(gm__yuv16_rows_u8, gm__yuv16_rows(a, b, r, GM_U8, 1))
GM__YUV_ROWS(gm__yuv16_rows_u16, gm__yuv16_rows(a, b, r, GM_U16, 2))
GM__YUV_ROWS(gm__yuv16_rows_f32, gm__yuv16_rows(a, b, r, GM_F32, 4))
static const gm__yuv_rows_fn gm__yuv_rows_fns[5][GM__CPU_ISAS] = {
    {gm__yuv_rows_into GM__CPU_AVX2_ENTRY(gm__yuv_rows_into)},
    {gm__yuv_rows_from GM__CPU_AVX2_ENTRY(gm__yuv_rows_from)},
    {gm__yuv16_rows_u8 GM__CPU_AVX2_ENTRY(gm__yuv16_rows_u8)},
    {gm__yuv16_rows_u16 GM__CPU_AVX2_ENTRY(gm__yuv16_rows_u16)},
    {gm__yuv16_rows_f32 GM__CPU_AVX2_ENTRY(gm__yuv16_rows_f32)}};

static void gm__yuv_host_rows(const gm__yuv_args* a, int from, long long b, long long r)
{
    const int job = a->sample == 2 ? (a->dtype == GM_U8 ? 2 : a->dtype == GM_U16 ? 3 : 4) : from;
    gm__yuv_rows_fns[job][gm__cpu_isa()](a, b, r);
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
                 gm__tune.cpu_part_bytes / (a->width * a->sample * (2 * a->channels + 3)) + 1);
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
    int dev, pairs;
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
    pairs = from || a.sample == 2 ? 1 : GM__YUV_PAIRS; /* a thread's, as the kernel's Op::pairs */
    rows = (a.height / 2 + GM__YUV_BLOCK_Y * pairs - 1) / (GM__YUV_BLOCK_Y * pairs);
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
