/* SPDX-License-Identifier: MIT */
/* Implementation: the functions of gpumat/mem.h: which path runs,
 * allocation, wrapping, views, copies and transfers. */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

GM_API gm_where gm_path(void)
{
    pthread_once(&gm__path_once, gm__decide_path);
    return gm__path_where;
}

GM_API gm_status gm_set_threads(int n)
{
    if (n < 0)
        return gm__fail(GM_ERR_ARG, "gm_set_threads: n is %d; give 0 (one a core), 1 (none) or more", n);
    gm__pool_set(n);
    return GM_OK;
}

GM_API int gm_threads(void)
{
    return gm__pool_threads();
}

GM_API gm_status gm_device(int* cc_major, int* cc_minor, char* name, size_t name_size)
{
    gm__CUcontext ctx;
    int dev, major = 0, minor = 0;
    gm_status s = gm__context("gm_device", 0, &ctx, &dev);
    if (s != GM_OK)
        return s;
    gm__cu.cuDeviceGetAttribute(&major, GM__CU_ATTR_CC_MAJOR, dev);
    gm__cu.cuDeviceGetAttribute(&minor, GM__CU_ATTR_CC_MINOR, dev);
    if (cc_major)
        *cc_major = major;
    if (cc_minor)
        *cc_minor = minor;
    if (name && name_size > 0)
        gm__cu.cuDeviceGetName(name, (int)(name_size > 4096 ? 4096 : name_size), dev);
    return GM_OK;
}


GM_API int64_t gm_row_bytes(const gm_mat* m) { return m ? gm__row_bytes(m) : 0; }

GM_API int64_t gm_span_bytes(const gm_mat* m) { return m ? gm__span(m) : 0; }


#define GM__HOST_ALIGN 64

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
        /* data at a 64-byte line, as OpenCV's allocations are: the CPU path's
         * stores past the caches fill whole lines (impl/cpu.h) */
        if ((uint64_t)bytes > (uint64_t)SIZE_MAX - GM__HOST_ALIGN + 1 ||
            !(m->owned = GM_MALLOC((size_t)bytes + GM__HOST_ALIGN - 1)))
            return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %lld bytes failed", fn, (long long)bytes);
        m->data = (void*)(((uintptr_t)m->owned + GM__HOST_ALIGN - 1) & ~(uintptr_t)(GM__HOST_ALIGN - 1));
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
            GM_FREE(m->owned);
        else if (m->where == GM_PINNED)
            gm__cu.cuMemFreeHost(m->owned);
        else
            gm__cu.cuMemFree((gm__CUdeviceptr)(uintptr_t)m->owned);
    }
    memset(m, 0, sizeof *m);
}

GM_API gm_status gm__roi_as(const char* fn, const gm_mat* m, gm_mat* view, int64_t x, int64_t y, int64_t width,
                            int64_t height)
{
    gm_status s = gm__check_roi(fn, m, view, x, y, width, height);
    gm_mat v;
    if (s != GM_OK)
        return s;
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
    gm_status s = gm__check_plane(fn, m, view, channel);
    gm_mat v;
    if (s != GM_OK)
        return s;
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
    gm_status s = gm__check_item(fn, m, view, index);
    if (s != GM_OK)
        return s;
    *view = gm__item_at(m, index);
    return GM_OK;
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

/* What gm__copy_blocks hands each 2-D copy to; non-zero stops it. */
typedef int (*gm__copy_emit)(void* ctx, const gm__memcpy2d* p);

/* The 2-D copies a checked pair of alike images comes to: one per plane
 * and image, or fewer where both fold planes or images into rows alike.
 * Returns the first non-zero emit result, else 0. */
static int gm__copy_blocks(const gm_mat* src, gm_mat* dst, gm__copy_emit emit, void* ctx)
{
    int sp, si, dp, di, fold_p, fold_i, n, c, rc;
    int64_t rows, row = gm__row_bytes(src);
    rows = gm__block_rows(src, &sp, &si);
    if (gm__block_rows(dst, &dp, &di) != rows || sp != dp || si != di)
        fold_p = fold_i = 0, rows = src->height;
    else
        fold_p = sp, fold_i = si;
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
            if ((rc = emit(ctx, &p)) != 0)
                return rc;
        }
    return 0;
}

/* A 2-D copy between host images, at once. */
static int gm__copy_host(void* ctx, const gm__memcpy2d* p)
{
    size_t y;
    (void)ctx;
    for (y = 0; y < p->Height; ++y)
        memmove((char*)p->dstHost + y * p->dstPitch, (const char*)p->srcHost + y * p->srcPitch, p->WidthInBytes);
    return 0;
}

/* A 2-D copy queued on the stream ctx. */
static int gm__copy_queue(void* ctx, const gm__memcpy2d* p) { return gm__cu.cuMemcpy2DAsync(p, (gm_stream)ctx); }

/* Copies checked src to checked dst of the same shape; fn, src_name and
 * dst_name are what messages call them. */
static gm_status gm__copy(const char* fn, const char* src_name, const gm_mat* src, const char* dst_name, gm_mat* dst,
                          gm_stream stream)
{
    gm__CUcontext ctx;
    int rc, dev;
    gm_status s;
    if ((s = gm__check_copy_apart(fn, src_name, src, dst_name, dst)) != GM_OK)
        return s;
    if (gm__on_host(src) && gm__on_host(dst)) {
        gm__copy_blocks(src, dst, gm__copy_host, NULL);
        return GM_OK;
    }
    /* the thread's context, else the device's primary one: cuMemcpy2DAsync needs one current */
    if ((s = gm__context(fn, gm__on_host(src) ? dst->device : src->device, &ctx, &dev)) != GM_OK)
        return s;
    if ((rc = gm__copy_blocks(src, dst, gm__copy_queue, stream)) != 0)
        return gm__cuda_fail(fn, "cuMemcpy2DAsync", rc);
    return GM_OK;
}

GM_API gm_status gm_copy(const gm_mat* src, gm_mat* dst, gm_stream stream)
{
    static const char fn[] = "gm_copy";
    gm_status s = gm__copy_check(fn, "src", src, "dst", dst);
    return s != GM_OK ? s : gm__copy(fn, "src", src, "dst", dst, stream);
}

/* Whether gm_copy_many queues its device pairs' copies in one driver call
 * where the driver can (tests clear it to take the copy-a-block path). */
static int gm__copy_many_batched = 1;

/* gm_copy_many's 2-D copies of device pairs, gathered for one batch. */
typedef struct gm__copy_ops {
    gm__memcpy_batch_op* op;
    size_t n;
} gm__copy_ops;

static int gm__copy_gather(void* ctx, const gm__memcpy2d* p)
{
    gm__copy_ops* o = (gm__copy_ops*)ctx;
    gm__memcpy_batch_op* b = &o->op[o->n++];
    memset(b, 0, sizeof *b);
    b->src.type = b->dst.type = 1;
    b->src.ptr = p->srcMemoryType == GM__CU_MEMORYTYPE_HOST ? (gm__CUdeviceptr)(uintptr_t)p->srcHost : p->srcDevice;
    b->dst.ptr = p->dstMemoryType == GM__CU_MEMORYTYPE_HOST ? (gm__CUdeviceptr)(uintptr_t)p->dstHost : p->dstDevice;
    b->src.row_length = p->srcPitch;
    b->dst.row_length = p->dstPitch;
    b->width = p->WidthInBytes;
    b->height = p->Height;
    b->depth = 1;
    b->src_access_order = 1;
    return 0;
}

static int gm__copy_count(void* ctx, const gm__memcpy2d* p)
{
    (void)p;
    ++*(size_t*)ctx;
    return 0;
}

GM_API gm_status gm_copy_many(const gm_mat* src, gm_mat* dst, int count, gm_stream stream)
{
    static const char fn[] = "gm_copy_many";
    gm__CUcontext ctx;
    gm__copy_ops ops;
    int i, rc = 0, dev, device;
    size_t failed, blocks = 0;
    gm_status s;
    if ((s = gm__check_copies(fn, src, dst, count, &device)) != GM_OK)
        return s;
    for (i = 0; i < count; ++i)
        gm__copy_blocks(&src[i], &dst[i], gm__on_host(&src[i]) && gm__on_host(&dst[i]) ? gm__copy_host : gm__copy_count,
                        &blocks);
    if (!blocks)
        return GM_OK;
    if ((s = gm__context(fn, device, &ctx, &dev)) != GM_OK)
        return s;
    /* the batch call refuses the legacy default stream (NULL) */
    if (!stream || !gm__copy_many_batched || (!gm__cu.cuMemcpy3DBatchAsync && !gm__cu.cuMemcpy3DBatchAsync_v1)) {
        for (i = 0; i < count && !rc; ++i)
            if (!gm__on_host(&src[i]) || !gm__on_host(&dst[i]))
                rc = gm__copy_blocks(&src[i], &dst[i], gm__copy_queue, stream);
        return rc ? gm__cuda_fail(fn, "cuMemcpy2DAsync", rc) : GM_OK;
    }
    if (!(ops.op = (gm__memcpy_batch_op*)GM_MALLOC(blocks * sizeof *ops.op)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %zu copies failed", fn, blocks);
    ops.n = 0;
    for (i = 0; i < count; ++i)
        if (!gm__on_host(&src[i]) || !gm__on_host(&dst[i]))
            gm__copy_blocks(&src[i], &dst[i], gm__copy_gather, &ops);
    rc = gm__cu.cuMemcpy3DBatchAsync ? gm__cu.cuMemcpy3DBatchAsync(ops.n, ops.op, 0, stream)
                                     : gm__cu.cuMemcpy3DBatchAsync_v1(ops.n, ops.op, &failed, 0, stream);
    GM_FREE(ops.op);
    return rc ? gm__cuda_fail(fn, "cuMemcpy3DBatchAsync", rc) : GM_OK;
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
    /* a stream knows its context; NULL, CU_STREAM_LEGACY (1) and
     * CU_STREAM_PER_THREAD (2) are the current context's */
    if ((s = (uintptr_t)stream > 2 ? gm__driver_ready(fn) : gm__context(fn, 0, &ctx, &dev)) != GM_OK)
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
