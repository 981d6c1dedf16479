/* SPDX-License-Identifier: MIT */
/* Implementation: descriptor checks, allocation, wrapping, views, copies. */

#include <stdint.h>

GM_API size_t gm_dtype_size(gm_dtype dtype)
{
    return (unsigned)dtype < GM_DTYPE_COUNT ? gm__dtype_sizes[dtype] : 0;
}

GM_API const char* gm_dtype_name(gm_dtype dtype)
{
    return (unsigned)dtype < GM_DTYPE_COUNT ? gm__dtype_names[dtype] : "?";
}

GM_API int gm_cv_type(gm_dtype dtype, int channels)
{
    if ((unsigned)dtype > GM_F16 || channels < 1 || channels > 4)
        return -1;
    return (int)dtype + ((channels - 1) << 3);
}

GM_API gm_status gm_from_cv_type(int cv_type, gm_dtype* dtype, int* channels)
{
    int depth = cv_type & 7, cn = (cv_type >> 3) + 1;
    if (!dtype || !channels)
        return gm__fail(GM_ERR_ARG, "gm_from_cv_type: %s is NULL", !dtype ? "dtype" : "channels");
    if (cv_type < 0 || cn > 4)
        return gm__fail(GM_ERR_TYPE, "gm_from_cv_type: cv_type %d has no gpumat equivalent", cv_type);
    *dtype = (gm_dtype)depth;
    *channels = cn;
    return GM_OK;
}

/* a * b for non-negative a, b; 0 when it would pass INT64_MAX. */
static int gm__mul(int64_t a, int64_t b, int64_t* r)
{
    if (a < 0 || b < 0 || (b != 0 && a > INT64_MAX / b))
        return 0;
    *r = a * b;
    return 1;
}

static int gm__add(int64_t a, int64_t b, int64_t* r)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return 0;
    *r = a + b;
    return 1;
}

/* Bytes between horizontally adjacent pixels of one channel. */
static int64_t gm__xstride(const gm_mat* m)
{
    return (int64_t)gm_dtype_size(m->dtype) * (m->layout == GM_HWC ? m->channels : 1);
}

GM_API int64_t gm_row_bytes(const gm_mat* m)
{
    int64_t r;
    return !m ? 0 : gm__mul(m->width, gm__xstride(m), &r) ? r : -1; /* -1: overflow or a bad descriptor */
}

/* Offset of the last byte + 1, or -1 on overflow. Every term is non-negative,
 * so the last element is at the sum of the largest index times each stride. */
static int64_t gm__span(const gm_mat* m)
{
    int64_t t, span;
    if (!gm__mul(m->width, gm__xstride(m), &span) || !gm__mul(m->height - 1, m->pitch, &t) ||
        !gm__add(span, t, &span))
        return -1;
    if (m->layout == GM_CHW && (!gm__mul(m->channels - 1, m->plane_pitch, &t) || !gm__add(span, t, &span)))
        return -1;
    if (!gm__mul(m->batch - 1, m->batch_pitch, &t) || !gm__add(span, t, &span))
        return -1;
    return span;
}

GM_API int64_t gm_span_bytes(const gm_mat* m) { return m ? gm__span(m) : 0; }

/* The fields of a descriptor, before any size arithmetic relies on them.
 * Messages name the descriptor as arg ("src") and its fields with the prefix
 * pre ("src->pitch"; just "pitch" where the user passed them as parameters). */
static gm_status gm__check_fields(const char* fn, const char* arg, const char* pre, const gm_mat* m)
{
    if (!m)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, arg);
    if ((unsigned)m->dtype >= GM_DTYPE_COUNT)
        return gm__fail(GM_ERR_TYPE, "%s: %sdtype %d is not a gm_dtype", fn, pre, (int)m->dtype);
    if (m->channels < 1 || m->channels > 4)
        return gm__fail(GM_ERR_TYPE, "%s: %schannels %d is outside 1..4", fn, pre, (int)m->channels);
    if (m->layout != GM_HWC && m->layout != GM_CHW)
        return gm__fail(GM_ERR_TYPE, "%s: %slayout %d is not a gm_layout", fn, pre, (int)m->layout);
    if (m->where != GM_HOST && m->where != GM_PINNED && m->where != GM_DEVICE)
        return gm__fail(GM_ERR_ARG, "%s: %swhere %d is not GM_HOST, GM_PINNED or GM_DEVICE", fn, pre, (int)m->where);
    if (m->width <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld is not positive", fn, pre, (long long)m->width);
    if (m->height <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %sheight %lld is not positive", fn, pre, (long long)m->height);
    if (m->batch <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %sbatch %d is not positive", fn, pre, (int)m->batch);
    return GM_OK;
}

/* Everything gpumat relies on about one descriptor but its data pointer;
 * arg and pre as for gm__check_fields. */
static gm_status gm__check_layout(const char* fn, const char* arg, const char* pre, const gm_mat* m)
{
    int64_t es, row, image, t;
    gm_status s = gm__check_fields(fn, arg, pre, m);
    if (s != GM_OK)
        return s;
    es = (int64_t)gm_dtype_size(m->dtype);
    if (!gm__mul(m->width, gm__xstride(m), &row))
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld overflows a row", fn, pre, (long long)m->width);
    if (m->pitch < row)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is less than a row (%lld bytes)", fn, pre, (long long)m->pitch,
                        (long long)row);
    if (m->pitch % es)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is not a multiple of the %lld-byte %s element", fn, pre,
                        (long long)m->pitch, (long long)es, gm_dtype_name(m->dtype));
    if (!gm__mul(m->height - 1, m->pitch, &image) || !gm__add(image, row, &image))
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    if (m->layout == GM_CHW && m->channels > 1) {
        /* planes one after the other, or rows of all planes side by side */
        int planes_apart = m->plane_pitch >= image;
        int rows_apart = m->plane_pitch >= row && m->pitch / m->channels >= m->plane_pitch;
        if (m->plane_pitch % es || !(planes_apart || rows_apart))
            return gm__fail(GM_ERR_SIZE, "%s: %splane_pitch %lld makes planes overlap", fn, pre,
                            (long long)m->plane_pitch);
        if (!gm__mul(m->channels - 1, m->plane_pitch, &t) || !gm__add(image, t, &image))
            return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    }
    if (m->batch > 1 && (m->batch_pitch < image || m->batch_pitch % es))
        return gm__fail(GM_ERR_SIZE, "%s: %sbatch_pitch %lld is less than one image (%lld bytes)", fn, pre,
                        (long long)m->batch_pitch, (long long)image);
    if (gm__span(m) < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    return GM_OK;
}

/* The data pointer of a descriptor, named data in messages. */
static gm_status gm__check_data(const char* fn, const char* data, const gm_mat* m)
{
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    if (!m->data)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, data);
    if ((uintptr_t)m->data % (uintptr_t)es)
        return gm__fail(GM_ERR_ARG, "%s: %s %p is not aligned to its %lld-byte %s elements", fn, data, m->data,
                        (long long)es, gm_dtype_name(m->dtype));
    return GM_OK;
}

/* Everything gpumat relies on about one descriptor; arg names it in messages. */
static gm_status gm__check(const char* fn, const char* arg, const gm_mat* m)
{
    char pre[64], data[72];
    gm_status s;
    snprintf(pre, sizeof pre, "%s->", arg);
    snprintf(data, sizeof data, "%sdata", pre);
    if ((s = gm__check_layout(fn, arg, pre, m)) != GM_OK)
        return s;
    return gm__check_data(fn, data, m);
}

/* How the allocating and wrapping functions got their image's description:
 * a gm_desc (zero fields mean defaults, messages say desc->width) or plain
 * parameters (zero is zero, messages say width). */
typedef enum gm__given { GM__GIVEN_DESC, GM__GIVEN_PARAMS } gm__given;

/* Fills the defaults of d into m (without data); row_align for pitch 0. */
static gm_status gm__from_desc(const char* fn, gm_mat* m, const gm_desc* d, gm__given given, gm_where where,
                               int64_t row_align)
{
    const char* pre = given == GM__GIVEN_DESC ? "desc->" : "";
    const char* arg = given == GM__GIVEN_DESC ? "desc" : "the image";
    int defaults = given == GM__GIVEN_DESC;
    gm_mat t;
    int64_t row;
    gm_status s;
    if (!m)
        return gm__fail(GM_ERR_ARG, "%s: m is NULL", fn);
    memset(m, 0, sizeof *m);
    if (!d)
        return gm__fail(GM_ERR_ARG, "%s: desc is NULL", fn);
    memset(&t, 0, sizeof t);
    t.width = d->width;
    t.height = d->height;
    t.channels = d->channels || !defaults ? d->channels : 1;
    t.batch = d->batch || !defaults ? d->batch : 1;
    t.dtype = d->dtype;
    t.layout = d->layout;
    t.where = where;
    if ((s = gm__check_fields(fn, arg, pre, &t)) != GM_OK)
        return s;
    if (d->width > INT32_MAX || d->height > INT32_MAX)
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld and %sheight %lld must be below 2^31", fn, pre,
                        (long long)d->width, pre, (long long)d->height);
    if (!gm__mul(t.width, gm__xstride(&t), &row) || row > INT64_MAX / 2)
        return gm__fail(GM_ERR_SIZE, "%s: a row of %swidth %lld overflows", fn, pre, (long long)t.width);
    if (d->pitch < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is negative", fn, pre, (long long)d->pitch);
    t.pitch = d->pitch ? d->pitch : (row + row_align - 1) / row_align * row_align;
    if (!gm__mul(t.pitch, t.height, &t.plane_pitch))
        return gm__fail(GM_ERR_SIZE, "%s: %lld rows of %spitch %lld bytes overflow", fn, (long long)t.height, pre,
                        (long long)t.pitch);
    if (d->plane_pitch)
        t.plane_pitch = d->plane_pitch;
    if (t.layout != GM_CHW)
        t.plane_pitch = 0;
    if (!gm__mul(t.layout == GM_CHW ? t.plane_pitch : t.pitch, t.layout == GM_CHW ? t.channels : t.height,
                 &t.batch_pitch))
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    if (d->batch_pitch)
        t.batch_pitch = d->batch_pitch;
    if ((s = gm__check_layout(fn, arg, pre, &t)) != GM_OK)
        return s;
    *m = t;
    return GM_OK;
}

static gm_status gm__check_where(const char* fn, gm_where where, int allow_auto)
{
    if (where == GM_HOST || where == GM_PINNED || where == GM_DEVICE || (allow_auto && where == GM_AUTO))
        return GM_OK;
    return gm__fail(GM_ERR_ARG, "%s: where %d is not GM_HOST, GM_PINNED, GM_DEVICE%s", fn, (int)where,
                    allow_auto ? " or GM_AUTO" : " (GM_AUTO is for allocation only)");
}

static gm_status gm__alloc(const char* fn, gm_mat* m, const gm_desc* d, gm__given given, gm_where where)
{
    gm__CUcontext ctx;
    gm__CUdeviceptr p = 0;
    int dev = 0, rc;
    int64_t bytes;
    gm_status s;
    if (m)
        memset(m, 0, sizeof *m); /* safe to gm_free whatever fails below */
    if ((s = gm__check_where(fn, where, 1)) != GM_OK)
        return s;
    if (where == GM_AUTO)
        where = gm_path();
    s = gm__from_desc(fn, m, d, given, where, where == GM_DEVICE ? 256 : 1);
    if (s != GM_OK)
        return s;
    bytes = gm__span(m);
    if ((uint64_t)bytes > (uint64_t)SIZE_MAX)
        return gm__fail(GM_ERR_SIZE, "%s: %lld bytes do not fit size_t", fn, (long long)bytes);
    if (where == GM_HOST) {
        m->owned = m->data = malloc((size_t)bytes);
        if (!m->data)
            return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %lld bytes failed", fn, (long long)bytes);
        return GM_OK;
    }
    if (where == GM_PINNED) {
        if ((s = gm__driver_ready(fn)) != GM_OK || (s = gm__context(fn, 0, &ctx, &dev)) != GM_OK)
            return s;
        if ((rc = gm__cu.cuMemHostAlloc(&m->data, (size_t)bytes, 0)) != 0)
            return gm__cuda_fail(fn, "cuMemHostAlloc", rc);
        m->owned = m->data;
        return GM_OK;
    }
    if ((s = gm__context(fn, 0, &ctx, &dev)) != GM_OK)
        return s;
    if ((rc = gm__cu.cuMemAlloc(&p, (size_t)bytes)) != 0)
        return gm__cuda_fail(fn, "cuMemAlloc", rc);
    m->owned = m->data = (void*)(uintptr_t)p;
    m->device = dev;
    return GM_OK;
}

GM_API gm_status gm_alloc_desc(gm_mat* m, const gm_desc* d, gm_where where)
{
    return gm__alloc("gm_alloc_desc", m, d, GM__GIVEN_DESC, where);
}

static gm_desc gm__desc(int64_t width, int64_t height, gm_dtype dtype, int channels, gm_layout layout, int64_t pitch)
{
    gm_desc d;
    memset(&d, 0, sizeof d);
    d.width = width;
    d.height = height;
    d.dtype = dtype;
    d.channels = channels;
    d.batch = 1;
    d.layout = layout;
    d.pitch = pitch;
    return d;
}

GM_API gm_status gm__alloc_as(const char* fn, gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                              gm_layout layout, gm_where where)
{
    gm_desc d = gm__desc(width, height, dtype, channels, layout, 0);
    return gm__alloc(fn, m, &d, GM__GIVEN_PARAMS, where);
}

GM_API gm_status gm_alloc(gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels, gm_layout layout)
{
    return gm__alloc_as("gm_alloc", m, width, height, dtype, channels, layout, GM_AUTO);
}

GM_API gm_status gm_alloc_device(gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                                 gm_layout layout)
{
    return gm__alloc_as("gm_alloc_device", m, width, height, dtype, channels, layout, GM_DEVICE);
}

GM_API gm_status gm_alloc_host(gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                               gm_layout layout, int pinned)
{
    return gm__alloc_as("gm_alloc_host", m, width, height, dtype, channels, layout, pinned ? GM_PINNED : GM_HOST);
}

/* For a checked GM_DEVICE descriptor: asks the driver whether m->data is
 * device memory (GM_ERR_LOCATION if not) and whether every byte m spans lies
 * inside that allocation (GM_ERR_SIZE if not); sets m->device. */
static gm_status gm__check_device_memory(const char* fn, const char* arg, gm_mat* m)
{
    unsigned int type = 0;
    int ordinal = 0, rc;
    gm__CUdeviceptr start = 0;
    size_t size = 0;
    uintptr_t p = (uintptr_t)m->data;
    gm_status s = gm__driver_ready(fn);
    if (s != GM_OK)
        return s;
    rc = gm__cu.cuPointerGetAttribute(&type, GM__CU_POINTER_MEMORY_TYPE, (gm__CUdeviceptr)p);
    if (rc != 0 || type != GM__CU_MEMORYTYPE_DEVICE)
        return gm__fail(GM_ERR_LOCATION, "%s: %s %p is not device memory", fn, arg, m->data);
    gm__cu.cuPointerGetAttribute(&ordinal, GM__CU_POINTER_DEVICE_ORDINAL, (gm__CUdeviceptr)p);
    m->device = ordinal;
    if (gm__cu.cuPointerGetAttribute(&start, GM__CU_POINTER_RANGE_START, (gm__CUdeviceptr)p) == 0 &&
        gm__cu.cuPointerGetAttribute(&size, GM__CU_POINTER_RANGE_SIZE, (gm__CUdeviceptr)p) == 0 &&
        (uint64_t)gm__span(m) > (uint64_t)(start + size - p))
        return gm__fail(GM_ERR_SIZE, "%s: %s spans %lld bytes but its allocation has %lld from there", fn, arg,
                        (long long)gm__span(m), (long long)(start + size - p));
    return GM_OK;
}

static gm_status gm__wrap(const char* fn, gm_mat* m, void* data, const gm_desc* d, gm__given given, gm_where where)
{
    gm_status s;
    if (m)
        memset(m, 0, sizeof *m); /* safe to gm_free whatever fails below */
    if ((s = gm__check_where(fn, where, 0)) != GM_OK || (s = gm__from_desc(fn, m, d, given, where, 1)) != GM_OK)
        return s;
    m->data = data;
    if ((s = gm__check_data(fn, "data", m)) != GM_OK ||
        (where == GM_DEVICE && (s = gm__check_device_memory(fn, "data", m)) != GM_OK)) {
        memset(m, 0, sizeof *m);
        return s;
    }
    return GM_OK;
}

GM_API gm_status gm_wrap_desc(gm_mat* m, void* data, const gm_desc* d, gm_where where)
{
    return gm__wrap("gm_wrap_desc", m, data, d, GM__GIVEN_DESC, where);
}

GM_API gm_status gm__wrap_as(const char* fn, gm_mat* m, void* data, int64_t width, int64_t height, gm_dtype dtype,
                             int channels, gm_layout layout, int64_t pitch, gm_where where)
{
    gm_desc d = gm__desc(width, height, dtype, channels, layout, pitch);
    return gm__wrap(fn, m, data, &d, GM__GIVEN_PARAMS, where);
}

GM_API gm_status gm_wrap(gm_mat* m, void* data, int64_t width, int64_t height, gm_dtype dtype, int channels,
                         gm_layout layout, int64_t pitch, gm_where where)
{
    return gm__wrap_as("gm_wrap", m, data, width, height, dtype, channels, layout, pitch, where);
}

GM_API void gm_free(gm_mat* m)
{
    if (!m)
        return;
    if (m->owned) {
        if (m->where == GM_HOST)
            free(m->owned);
        else if (m->where == GM_PINNED)
            gm__cu.cuMemFreeHost(m->owned);
        else
            gm__cu.cuMemFree((gm__CUdeviceptr)(uintptr_t)m->owned);
    }
    memset(m, 0, sizeof *m);
}

static gm_status gm__view_of(const char* fn, const gm_mat* m, gm_mat* view)
{
    gm_status s = gm__check(fn, "m", m);
    if (s != GM_OK)
        return s;
    if (!view)
        return gm__fail(GM_ERR_ARG, "%s: view is NULL", fn);
    return GM_OK;
}

GM_API gm_status gm__roi_as(const char* fn, const gm_mat* m, gm_mat* view, int64_t x, int64_t y, int64_t width,
                            int64_t height)
{
    gm_status s = gm__view_of(fn, m, view);
    gm_mat v;
    if (s != GM_OK)
        return s;
    if (width <= 0 || height <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s %lld is not positive", fn, width <= 0 ? "width" : "height",
                        (long long)(width <= 0 ? width : height));
    if (x < 0 || y < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s %lld is negative", fn, x < 0 ? "x" : "y", (long long)(x < 0 ? x : y));
    if (x > m->width - width || y > m->height - height)
        return gm__fail(GM_ERR_SIZE, "%s: the rectangle x %lld, y %lld, width %lld, height %lld is not inside m (%lldx%lld)",
                        fn, (long long)x, (long long)y, (long long)width, (long long)height, (long long)m->width,
                        (long long)m->height);
    v = *m;
    v.data = (char*)m->data + y * m->pitch + x * gm__xstride(m);
    v.width = width;
    v.height = height;
    v.owned = NULL;
    *view = v;
    return GM_OK;
}

GM_API gm_status gm_roi(const gm_mat* m, gm_mat* view, int64_t x, int64_t y, int64_t width, int64_t height)
{
    return gm__roi_as("gm_roi", m, view, x, y, width, height);
}

GM_API gm_status gm_plane(const gm_mat* m, gm_mat* view, int channel)
{
    static const char fn[] = "gm_plane";
    gm_status s = gm__view_of(fn, m, view);
    gm_mat v;
    if (s != GM_OK)
        return s;
    if (m->layout != GM_CHW && m->channels > 1)
        return gm__fail(GM_ERR_TYPE, "%s: m is interleaved; only a planar image has planes", fn);
    if (channel < 0 || channel >= m->channels)
        return gm__fail(GM_ERR_ARG, "%s: channel %d is outside 0..%d", fn, channel, (int)m->channels - 1);
    v = *m;
    v.data = (char*)m->data + channel * m->plane_pitch;
    v.channels = 1;
    v.owned = NULL;
    *view = v;
    return GM_OK;
}

GM_API gm_status gm_item(const gm_mat* m, gm_mat* view, int index)
{
    static const char fn[] = "gm_item";
    gm_status s = gm__view_of(fn, m, view);
    gm_mat v;
    if (s != GM_OK)
        return s;
    if (index < 0 || index >= m->batch)
        return gm__fail(GM_ERR_ARG, "%s: index %d is outside 0..%d", fn, index, (int)m->batch - 1);
    v = *m;
    v.data = (char*)m->data + index * m->batch_pitch;
    v.batch = 1;
    v.owned = NULL;
    *view = v;
    return GM_OK;
}

static int gm__on_host(const gm_mat* m) { return m->where != GM_DEVICE; }

/* The rows of a descriptor (every image, plane and row) as a nested lattice:
 * row starts base + sum of i[k] * stride[k], 0 <= i[k] < count[k], levels
 * outermost first, each stride past the whole extent of the levels inside it,
 * so rows in index order are in address order. Positions are bytes from an
 * origin the two descriptors being compared share. */
typedef struct gm__rows {
    uint64_t base, row;
    uint64_t stride[3];
    int64_t count[3];
    int levels;
} gm__rows;

/* 0 when m's rows do not nest (gm__check never accepts such a descriptor). */
static int gm__rows_of(const gm_mat* m, uint64_t base, gm__rows* r)
{
    int64_t st[3], cnt[3], extent = gm_row_bytes(m), t;
    int n = 0, i, k;
    if (m->batch > 1)
        st[n] = m->batch_pitch, cnt[n++] = m->batch;
    if (m->layout == GM_CHW && m->channels > 1)
        st[n] = m->plane_pitch, cnt[n++] = m->channels;
    if (m->height > 1)
        st[n] = m->pitch, cnt[n++] = m->height;
    r->base = base;
    r->row = (uint64_t)extent;
    r->levels = n;
    for (i = 0; i < n; ++i) { /* widest stride first (rows side by side: planes inside rows) */
        for (k = i; k > 0 && st[k] > st[k - 1]; --k) {
            int64_t ts = st[k], tc = cnt[k];
            st[k] = st[k - 1], cnt[k] = cnt[k - 1];
            st[k - 1] = ts, cnt[k - 1] = tc;
        }
    }
    if (extent <= 0)
        return 0;
    for (k = n - 1; k >= 0; --k) { /* each stride clears everything inside it */
        if (st[k] < extent || !gm__mul(cnt[k] - 1, st[k], &t) || !gm__add(extent, t, &extent))
            return 0;
        r->stride[k] = (uint64_t)st[k];
        r->count[k] = cnt[k];
    }
    return 1;
}

/* The first row of r that starts at or after t; 0 when there is none. */
static int gm__rows_seek(const gm__rows* r, uint64_t t, uint64_t* at)
{
    uint64_t pos = r->base, o, i, idx[3];
    int k;
    if (t <= pos) {
        *at = pos;
        return 1;
    }
    o = t - pos;
    for (k = 0; k < r->levels; ++k) { /* the last row starting at or before t */
        i = o / r->stride[k];
        if (i > (uint64_t)(r->count[k] - 1))
            i = (uint64_t)(r->count[k] - 1);
        idx[k] = i;
        pos += i * r->stride[k];
        o -= i * r->stride[k];
    }
    if (o == 0) {
        *at = pos;
        return 1;
    }
    for (k = r->levels - 1; k >= 0; --k) { /* then the row after it */
        pos -= idx[k] * r->stride[k];
        if (idx[k] + 1 < (uint64_t)r->count[k]) {
            *at = pos + (idx[k] + 1) * r->stride[k];
            return 1;
        }
    }
    return 0;
}

/* Whether two row lists (in address order) share a byte: each jumps straight
 * to the first of its rows that reaches the other's current row, so the cost
 * is the number of times the two interleave. */
static int gm__rows_meet(const gm__rows* a, const gm__rows* b)
{
    uint64_t x = a->base, y = b->base;
    for (;;) {
        if (x <= y) {
            if (y - x < a->row)
                return 1;
            if (!gm__rows_seek(a, y - a->row + 1, &x))
                return 0;
        } else {
            if (x - y < b->row)
                return 1;
            if (!gm__rows_seek(b, x - b->row + 1, &y))
                return 0;
        }
    }
}

/* Whether rows x + i*p (i < nx, ra bytes each) and y + j*p (j < ny, rb
 * bytes) share a byte, in O(1): some i - j puts a row of x within (y' - ra,
 * y' + rb) of y' = y + (ny-1)*p, the last row of y, for i - j + ny - 1 in
 * 0 .. nx + ny - 2. */
static int gm__prog_meet(uint64_t x, int64_t nx, uint64_t ra, uint64_t y, int64_t ny, uint64_t rb, uint64_t p)
{
    uint64_t last = y + (uint64_t)(ny - 1) * p, lo = last + 1 > ra ? last + 1 - ra : 0, k;
    k = lo <= x ? 0 : (lo - x + p - 1) / p;
    return k <= (uint64_t)(nx + ny - 2) && x + k * p < last + rb;
}

/* r's innermost level as blocks: the lattice of block starts (each block
 * row bytes long: its whole extent) and the progression inside a block. */
static void gm__blocks_of(const gm__rows* r, gm__rows* blocks, uint64_t* stride, int64_t* count)
{
    *blocks = *r;
    *stride = r->row, *count = 1; /* one row: a block of one */
    if (r->levels > 0) {
        blocks->levels = r->levels - 1;
        *stride = r->stride[blocks->levels];
        *count = r->count[blocks->levels];
        blocks->row = (uint64_t)(*count - 1) * *stride + r->row;
    }
}

/* Whether a and b (checked descriptors on the same side) share a byte, exactly.
 * Their address ranges are the quick answer; only ranges that intersect
 * (planes or items of one buffer, side-by-side ROIs) are compared block by
 * block (a block: the rows of one plane of one image, or the planes of one
 * row where rows hold planes side by side), blocks walked in address order,
 * each block pair whose extents intersect tested in O(1) when their rows
 * share a pitch (else row by row). No allocation. */
static int gm__overlap(const gm_mat* a, const gm_mat* b)
{
    uint64_t a0 = (uint64_t)(uintptr_t)a->data, b0 = (uint64_t)(uintptr_t)b->data, o = a0 < b0 ? a0 : b0;
    uint64_t sa = (uint64_t)gm__span(a), sb = (uint64_t)gm__span(b), x, y, pa, pb;
    int64_t na, nb;
    gm__rows ra, rb, ba, bb;
    if ((int64_t)sa < 0 || (int64_t)sb < 0)
        return 1; /* unchecked and overflowing: assume the worst */
    a0 -= o, b0 -= o; /* one of them is 0 */
    if (!(a0 < b0 + sb && b0 < a0 + sa))
        return 0;
    if (!gm__rows_of(a, a0, &ra) || !gm__rows_of(b, b0, &rb))
        return 1; /* not a layout gm__check accepts: assume the worst */
    gm__blocks_of(&ra, &ba, &pa, &na);
    gm__blocks_of(&rb, &bb, &pb, &nb);
    x = ba.base, y = bb.base;
    for (;;) {
        if (x <= y && y - x >= ba.row) { /* block x ends before block y: skip a's blocks that do */
            if (!gm__rows_seek(&ba, y - ba.row + 1, &x))
                return 0;
        } else if (y < x && x - y >= bb.row) {
            if (!gm__rows_seek(&bb, x - bb.row + 1, &y))
                return 0;
        } else { /* the two blocks' extents intersect */
            if (na == 1 || nb == 1 || pa == pb) {
                if (gm__prog_meet(x, na, ra.row, y, nb, rb.row, na > 1 ? pa : nb > 1 ? pb : 1))
                    return 1;
            } else {
                gm__rows one_a, one_b;
                one_a.base = x, one_a.row = ra.row, one_a.levels = 1, one_a.stride[0] = pa, one_a.count[0] = na;
                one_b.base = y, one_b.row = rb.row, one_b.levels = 1, one_b.stride[0] = pb, one_b.count[0] = nb;
                if (gm__rows_meet(&one_a, &one_b))
                    return 1;
            }
            /* the block that ends first meets no later block of the other */
            if (x + ba.row <= y + bb.row ? !gm__rows_seek(&ba, x + 1, &x) : !gm__rows_seek(&bb, y + 1, &y))
                return 0;
        }
    }
}

/* Rows of one block gm_copy can move as one 2D copy: planes (and then images)
 * fold into it when they follow each other at exactly pitch intervals. */
static int64_t gm__block_rows(const gm_mat* m, int* planes_folded, int* items_folded)
{
    int64_t rows = m->height;
    *planes_folded = m->layout == GM_CHW && m->channels > 1 && m->plane_pitch == m->pitch * m->height;
    if (*planes_folded)
        rows *= m->channels;
    *items_folded = (*planes_folded || m->layout == GM_HWC || m->channels == 1) && m->batch > 1 &&
                    m->batch_pitch == m->pitch * rows;
    if (*items_folded)
        rows *= m->batch;
    return rows;
}

/* Copies checked src to checked dst of the same shape; fn, src_name and
 * dst_name are what messages call them. */
static gm_status gm__copy(const char* fn, const char* src_name, const gm_mat* src, const char* dst_name, gm_mat* dst,
                          gm_stream stream)
{
    gm__CUcontext ctx;
    int sp, si, dp, di, fold_p, fold_i, n, c, rc, dev;
    int64_t rows, row, y;
    gm_status s;
    if (gm__on_host(src) == gm__on_host(dst) && gm__overlap(src, dst))
        return gm__fail(GM_ERR_OVERLAP, "%s: %s and %s overlap", fn, src_name, dst_name);
    row = gm_row_bytes(src);
    rows = gm__block_rows(src, &sp, &si);
    if (gm__block_rows(dst, &dp, &di) != rows || sp != dp || si != di)
        fold_p = fold_i = 0, rows = src->height;
    else
        fold_p = sp, fold_i = si;
    if (gm__on_host(src) && gm__on_host(dst)) {
        for (n = 0; n < (fold_i ? 1 : src->batch); ++n)
            for (c = 0; c < (fold_p || src->layout == GM_HWC ? 1 : src->channels); ++c) {
                const char* a = (const char*)src->data + n * src->batch_pitch + c * src->plane_pitch;
                char* b = (char*)dst->data + n * dst->batch_pitch + c * dst->plane_pitch;
                for (y = 0; y < rows; ++y)
                    memmove(b + y * dst->pitch, a + y * src->pitch, (size_t)row);
            }
        return GM_OK;
    }
    /* the thread's context, else the device's primary one: cuMemcpy2DAsync needs one current */
    if ((s = gm__context(fn, gm__on_host(src) ? dst->device : src->device, &ctx, &dev)) != GM_OK)
        return s;
    for (n = 0; n < (fold_i ? 1 : src->batch); ++n)
        for (c = 0; c < (fold_p || src->layout == GM_HWC ? 1 : src->channels); ++c) {
            gm__memcpy2d p;
            const char* a = (const char*)src->data + n * src->batch_pitch + c * src->plane_pitch;
            char* b = (char*)dst->data + n * dst->batch_pitch + c * dst->plane_pitch;
            memset(&p, 0, sizeof p);
            p.srcMemoryType = gm__on_host(src) ? GM__CU_MEMORYTYPE_HOST : GM__CU_MEMORYTYPE_DEVICE;
            p.srcHost = a;
            p.srcDevice = (gm__CUdeviceptr)(uintptr_t)a;
            p.srcPitch = (size_t)src->pitch;
            p.dstMemoryType = gm__on_host(dst) ? GM__CU_MEMORYTYPE_HOST : GM__CU_MEMORYTYPE_DEVICE;
            p.dstHost = b;
            p.dstDevice = (gm__CUdeviceptr)(uintptr_t)b;
            p.dstPitch = (size_t)dst->pitch;
            p.WidthInBytes = (size_t)row;
            p.Height = (size_t)rows;
            if ((rc = gm__cu.cuMemcpy2DAsync(&p, stream)) != 0)
                return gm__cuda_fail(fn, "cuMemcpy2DAsync", rc);
        }
    return GM_OK;
}

GM_API gm_status gm_copy(const gm_mat* src, gm_mat* dst, gm_stream stream)
{
    static const char fn[] = "gm_copy";
    gm_status s;
    if ((s = gm__check(fn, "src", src)) != GM_OK || (s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (src->width != dst->width || src->height != dst->height || src->batch != dst->batch)
        return gm__fail(GM_ERR_SIZE, "%s: src is %lldx%lld x%d, dst is %lldx%lld x%d", fn, (long long)src->width,
                        (long long)src->height, (int)src->batch, (long long)dst->width, (long long)dst->height,
                        (int)dst->batch);
    if (src->dtype != dst->dtype || src->channels != dst->channels ||
        (src->layout != dst->layout && src->channels > 1))
        return gm__fail(GM_ERR_TYPE, "%s: src is %s x%d %s, dst is %s x%d %s (use gm_transform to change)", fn,
                        gm_dtype_name(src->dtype), (int)src->channels, src->layout == GM_HWC ? "HWC" : "CHW",
                        gm_dtype_name(dst->dtype), (int)dst->channels, dst->layout == GM_HWC ? "HWC" : "CHW");
    return gm__copy(fn, "src", src, "dst", dst, stream);
}

/* A host descriptor laid out like m (checked) at host: rows host_pitch apart
 * (0: compact), planes and images packed. Messages name host and host_pitch. */
static gm_status gm__host_like(const char* fn, const gm_mat* m, const void* host, int64_t host_pitch, gm_mat* out)
{
    int64_t row = gm_row_bytes(m), es = (int64_t)gm_dtype_size(m->dtype);
    gm_mat t;
    if (!host)
        return gm__fail(GM_ERR_ARG, "%s: host is NULL", fn);
    if (host_pitch < 0)
        return gm__fail(GM_ERR_SIZE, "%s: host_pitch %lld is negative", fn, (long long)host_pitch);
    if (host_pitch && host_pitch < row)
        return gm__fail(GM_ERR_SIZE, "%s: host_pitch %lld is less than a row (%lld bytes)", fn, (long long)host_pitch,
                        (long long)row);
    if (host_pitch % es)
        return gm__fail(GM_ERR_SIZE, "%s: host_pitch %lld is not a multiple of the %lld-byte %s element", fn,
                        (long long)host_pitch, (long long)es, gm_dtype_name(m->dtype));
    t = *m;
    t.data = (void*)(uintptr_t)host;
    t.where = GM_HOST;
    t.device = 0;
    t.owned = NULL;
    t.pitch = host_pitch ? host_pitch : row;
    if (!gm__mul(t.pitch, t.height, &t.plane_pitch) ||
        !gm__mul(t.layout == GM_CHW ? t.plane_pitch : t.pitch, t.layout == GM_CHW ? t.channels : t.height,
                 &t.batch_pitch))
        return gm__fail(GM_ERR_SIZE, "%s: host: %lld rows of host_pitch %lld bytes overflow 64-bit sizes", fn,
                        (long long)t.height, (long long)t.pitch);
    if (t.layout != GM_CHW)
        t.plane_pitch = 0;
    *out = t;
    return gm__check(fn, "host", out);
}

/* gm_upload and its _sync form: host memory laid out like dst -> dst. */
static gm_status gm__upload(const char* fn, gm_mat* dst, const void* host, int64_t host_pitch, gm_stream stream)
{
    gm_mat h;
    gm_status s;
    if ((s = gm__check(fn, "dst", dst)) != GM_OK || (s = gm__host_like(fn, dst, host, host_pitch, &h)) != GM_OK)
        return s;
    return gm__copy(fn, "host", &h, "dst", dst, stream);
}

/* gm_download and its _sync form: src -> host memory laid out like src. */
static gm_status gm__download(const char* fn, const gm_mat* src, void* host, int64_t host_pitch, gm_stream stream)
{
    gm_mat h;
    gm_status s;
    if ((s = gm__check(fn, "src", src)) != GM_OK || (s = gm__host_like(fn, src, host, host_pitch, &h)) != GM_OK)
        return s;
    return gm__copy(fn, "src", src, "host", &h, stream);
}

static gm_status gm__sync(const char* fn, gm_stream stream)
{
    gm__CUcontext ctx;
    int rc, dev;
    gm_status s;
    if (!stream && gm_path() == GM_HOST)
        return GM_OK; /* the CPU path finishes every call before returning */
    if ((s = gm__context(fn, 0, &ctx, &dev)) != GM_OK) /* cuStreamSynchronize needs a current context */
        return s;
    if ((rc = gm__cu.cuStreamSynchronize(stream)) != 0)
        return gm__cuda_fail(fn, "cuStreamSynchronize", rc);
    return GM_OK;
}

GM_API gm_status gm_upload(gm_mat* dst, const void* host, int64_t host_pitch, gm_stream stream)
{
    return gm__upload("gm_upload", dst, host, host_pitch, stream);
}

GM_API gm_status gm_download(const gm_mat* src, void* host, int64_t host_pitch, gm_stream stream)
{
    return gm__download("gm_download", src, host, host_pitch, stream);
}

GM_API gm_status gm_sync(gm_stream stream) { return gm__sync("gm_sync", stream); }

/* The _sync forms wait only where a device copy was queued. */
GM_API gm_status gm_upload_sync(gm_mat* dst, const void* host, int64_t host_pitch)
{
    static const char fn[] = "gm_upload_sync";
    gm_status s = gm__upload(fn, dst, host, host_pitch, NULL);
    return s != GM_OK || gm__on_host(dst) ? s : gm__sync(fn, NULL);
}

GM_API gm_status gm_download_sync(const gm_mat* src, void* host, int64_t host_pitch)
{
    static const char fn[] = "gm_download_sync";
    gm_status s = gm__download(fn, src, host, host_pitch, NULL);
    return s != GM_OK || gm__on_host(src) ? s : gm__sync(fn, NULL);
}
