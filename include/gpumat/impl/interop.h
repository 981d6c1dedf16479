/* SPDX-License-Identifier: MIT */
/* Implementation: the functions of gpumat/interop.h: DLPack export
 * (versioned and legacy) and import, and the CUDA array interface. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* DLPack type code of each gm_dtype; bits are 8 * gm_dtype_size. */
static const uint8_t gm__dl_codes[GM_DTYPE_COUNT] = {
    GM_DL_UINT, GM_DL_INT, GM_DL_UINT, GM_DL_INT, GM_DL_INT, GM_DL_FLOAT, GM_DL_FLOAT, GM_DL_FLOAT, GM_DL_BFLOAT,
};

/* A checked m's dimensions in DLPack order ([N,] H, W, C or [N,] C, H, W)
 * and their strides in bytes; returns ndim. The batch dimension appears only
 * for batches, the channel dimension always. */
static int gm__dims(const gm_mat* m, int64_t shape[4], int64_t strides[4])
{
    int n = 0;
    if (m->batch > 1)
        shape[n] = m->batch, strides[n++] = m->batch_pitch;
    if (m->layout == GM_CHW) /* one plane: any stride will do; its extent (fits: m is checked) is natural */
        shape[n] = m->channels, strides[n++] = m->channels > 1 ? m->plane_pitch : (m->height - 1) * m->pitch + gm__row_bytes(m);
    shape[n] = m->height, strides[n++] = m->pitch;
    shape[n] = m->width, strides[n++] = gm__xstride(m);
    if (m->layout == GM_HWC)
        shape[n] = m->channels, strides[n++] = (int64_t)gm_dtype_size(m->dtype);
    return n;
}

/* What an export allocates besides the managed struct: the arrays its
 * DLTensor points to and, when the image's memory moved, its owner. */
typedef struct gm__dl_export {
    int64_t shape[4], strides[4];
    gm_mat moved;
} gm__dl_export;

typedef struct gm__dl_block {
    gm_dl_managed_versioned managed;
    gm__dl_export x;
} gm__dl_block;

typedef struct gm__dl_legacy_block {
    gm_dl_managed managed;
    gm__dl_export x;
} gm__dl_legacy_block;

/* The deleters: free what the export allocated (one block, the managed
 * struct first) and the image when it moved in. */
static void gm__dl_delete(gm_dl_managed_versioned* self)
{
    if (!self)
        return;
    gm_free(&((gm__dl_export*)self->manager_ctx)->moved);
    GM_FREE(self);
}

static void gm__dl_delete_legacy(gm_dl_managed* self)
{
    if (!self)
        return;
    gm_free(&((gm__dl_export*)self->manager_ctx)->moved);
    GM_FREE(self);
}

/* Checks an export's arguments (before anything is allocated). */
static gm_status gm__dl_export_check(const char* fn, const gm_mat* m, unsigned flags, unsigned allowed, const void* out)
{
    gm_status s;
    if (!out)
        return gm__fail(GM_ERR_ARG, "%s: out is NULL", fn);
    if ((s = gm__check(fn, "m", m)) != GM_OK)
        return s;
    if (flags & ~allowed)
        return gm__fail(GM_ERR_ARG, "%s: flags 0x%x has bits this export does not know (allowed: 0x%x)", fn, flags,
                        allowed);
    if ((flags & GM_DL_EXPORT_MOVE) && !m->owned)
        return gm__fail(GM_ERR_ARG, "%s: m owns no memory to move (it is a view or a wrap)", fn);
    return GM_OK;
}

/* Fills t and x from checked m, moving m's allocation into x when asked. */
static void gm__dl_fill(gm_mat* m, unsigned flags, gm_dl_tensor* t, gm__dl_export* x)
{
    static const int32_t device_types[] = {GM_DL_CPU, GM_DL_CUDA_HOST, GM_DL_CUDA}; /* by gm_where */
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    int i;
    t->ndim = gm__dims(m, x->shape, x->strides);
    for (i = 0; i < t->ndim; ++i)
        x->strides[i] /= es; /* whole elements: gm__check requires pitches to be */
    t->data = m->data;
    t->device.device_type = device_types[m->where];
    t->device.device_id = m->where == GM_DEVICE ? m->device : 0;
    t->dtype.code = gm__dl_codes[m->dtype];
    t->dtype.bits = (uint8_t)(8 * es);
    t->dtype.lanes = 1;
    t->shape = x->shape;
    t->strides = x->strides;
    t->byte_offset = 0;
    if (flags & GM_DL_EXPORT_MOVE) {
        x->moved = *m;
        m->owned = NULL; /* m stays a valid view of what the tensor now owns */
    }
}

GM_API gm_status gm_to_dlpack(gm_mat* m, unsigned flags, gm_dl_managed_versioned** out)
{
    static const char fn[] = "gm_to_dlpack";
    gm__dl_block* b;
    gm_status s = gm__dl_export_check(fn, m, flags, GM_DL_EXPORT_READ_ONLY | GM_DL_EXPORT_MOVE, out);
    if (out)
        *out = NULL;
    if (s != GM_OK)
        return s;
    if (!(b = (gm__dl_block*)GM_MALLOC(sizeof *b)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: out of host memory", fn);
    memset(b, 0, sizeof *b);
    b->managed.version.major = GM_DL_MAJOR;
    b->managed.version.minor = GM_DL_MINOR;
    b->managed.manager_ctx = &b->x;
    b->managed.deleter = gm__dl_delete;
    b->managed.flags = (flags & GM_DL_EXPORT_READ_ONLY) ? GM_DL_FLAG_READ_ONLY : 0;
    gm__dl_fill(m, flags, &b->managed.dl_tensor, &b->x);
    *out = &b->managed;
    return GM_OK;
}

GM_API gm_status gm_to_dlpack_legacy(gm_mat* m, unsigned flags, gm_dl_managed** out)
{
    static const char fn[] = "gm_to_dlpack_legacy";
    gm__dl_legacy_block* b;
    gm_status s = gm__dl_export_check(fn, m, flags, GM_DL_EXPORT_MOVE, out);
    if (out)
        *out = NULL;
    if (s != GM_OK)
        return s;
    if (!(b = (gm__dl_legacy_block*)GM_MALLOC(sizeof *b)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: out of host memory", fn);
    memset(b, 0, sizeof *b);
    b->managed.manager_ctx = &b->x;
    b->managed.deleter = gm__dl_delete_legacy;
    gm__dl_fill(m, flags, &b->managed.dl_tensor, &b->x);
    *out = &b->managed;
    return GM_OK;
}

/* Import: the positions of N, C, H and W in a tensor's shape (-1: absent). */
typedef struct gm__dl_roles {
    int n, c, h, w;
} gm__dl_roles;

static gm__dl_roles gm__dl_roles_of(int ndim, gm_layout order)
{
    gm__dl_roles r;
    int b = ndim == 4; /* a leading batch dimension */
    r.n = b ? 0 : -1;
    if (ndim == 2)
        r.c = -1, r.h = 0, r.w = 1;
    else if (order == GM_HWC)
        r.h = b, r.w = b + 1, r.c = b + 2;
    else
        r.c = b, r.h = b + 1, r.w = b + 2;
    return r;
}

/* The gm_dtype of a DLPack dtype; GM_DTYPE_COUNT when gpumat has none. */
static gm_dtype gm__dl_dtype(gm_dl_dtype t)
{
    int d;
    for (d = 0; d < GM_DTYPE_COUNT; ++d)
        if (gm__dl_codes[d] == t.code && 8 * gm_dtype_size((gm_dtype)d) == t.bits)
            return (gm_dtype)d;
    return GM_DTYPE_COUNT;
}

/* Shape and strides of t in bytes (compact row-major when t has no strides);
 * pre names t in messages ("t->", "t->dl_tensor."). */
static gm_status gm__dl_extents(const char* fn, const char* pre, const gm_dl_tensor* t, int64_t es, int64_t size[4],
                                int64_t stride[4])
{
    int64_t compact = es;
    int i;
    if (!t->shape)
        return gm__fail(GM_ERR_ARG, "%s: %sshape is NULL", fn, pre);
    for (i = t->ndim - 1; i >= 0; --i) {
        size[i] = t->shape[i];
        if (size[i] <= 0)
            return gm__fail(GM_ERR_SIZE, "%s: %sshape[%d] is %lld: an image has no empty dimension", fn, pre, i,
                            (long long)size[i]);
        if (!t->strides)
            stride[i] = compact;
        else if (t->strides[i] < 0 || !gm__mul(t->strides[i], es, &stride[i]))
            return gm__fail(GM_ERR_SIZE, "%s: %sstrides[%d] is %lld: negative or overflowing", fn, pre, i,
                            (long long)t->strides[i]);
        else if (stride[i] == 0 && size[i] > 1)
            return gm__fail(GM_ERR_SIZE, "%s: %sstrides[%d] is 0 (a broadcast dimension): images need distinct pixels",
                            fn, pre, i);
        if (!gm__mul(compact, size[i], &compact))
            return gm__fail(GM_ERR_SIZE, "%s: %sshape overflows 64-bit sizes", fn, pre);
    }
    return GM_OK;
}

/* The memory layout t's strides give: channels adjacent (interleaved) or
 * pixels adjacent (planar); -1 for neither. Where both fit (one channel, or
 * rows of one pixel with adjacent channels) it is order's, so an export
 * comes back as it left. */
static int gm__dl_layout(const int64_t size[4], const int64_t stride[4], gm__dl_roles r, int64_t es, gm_layout order)
{
    int64_t channels = r.c < 0 ? 1 : size[r.c];
    int planar = size[r.w] == 1 || stride[r.w] == es;
    int interleaved = channels == 1 ? planar : stride[r.c] == es && (size[r.w] == 1 || stride[r.w] == es * channels);
    if (planar && interleaved) /* one channel, or one pixel a row with adjacent channels: as order says */
        return (int)order;
    return interleaved ? GM_HWC : planar ? GM_CHW : -1;
}

static gm_status gm__dl_import(const char* fn, const char* pre, gm_mat* m, const gm_dl_tensor* t, gm_layout order)
{
    static const gm_where wheres[] = {GM_HOST, GM_HOST, GM_DEVICE, GM_PINNED}; /* by DLDeviceType 1..3 */
    int64_t size[4], stride[4], es, extent;
    gm__dl_roles r;
    gm_dtype dtype;
    gm_mat v, one;
    int layout;
    gm_status s;
    if (!m)
        return gm__fail(GM_ERR_ARG, "%s: m is NULL", fn);
    memset(m, 0, sizeof *m);
    if (!t)
        return gm__fail(GM_ERR_ARG, "%s: t is NULL", fn);
    if (order != GM_HWC && order != GM_CHW)
        return gm__fail(GM_ERR_ARG, "%s: order %d is not a gm_layout", fn, (int)order);
    if (t->device.device_type < GM_DL_CPU || t->device.device_type > GM_DL_CUDA_HOST)
        return gm__fail(GM_ERR_LOCATION, "%s: %sdevice.device_type %d is not CPU (1), CUDA (2) or CUDA host (3)", fn,
                        pre, (int)t->device.device_type);
    if (t->dtype.lanes != 1 || (dtype = gm__dl_dtype(t->dtype)) == GM_DTYPE_COUNT)
        return gm__fail(GM_ERR_TYPE, "%s: %sdtype (code %u, %u bits, %u lanes) has no gpumat dtype", fn, pre,
                        (unsigned)t->dtype.code, (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
    if (t->ndim < 2 || t->ndim > 4)
        return gm__fail(GM_ERR_SIZE, "%s: %sndim is %d: an image is (H, W), 3-D or a 4-D batch", fn, pre,
                        (int)t->ndim);
    es = (int64_t)gm_dtype_size(dtype);
    if ((s = gm__dl_extents(fn, pre, t, es, size, stride)) != GM_OK)
        return s;
    r = gm__dl_roles_of(t->ndim, order);
    if (r.c >= 0 && size[r.c] > 4)
        return gm__fail(GM_ERR_TYPE, "%s: %sshape[%d] is %lld channels; images have 1 to 4 (is order right?)", fn,
                        pre, r.c, (long long)size[r.c]);
    if (size[r.h] > INT32_MAX || size[r.w] > INT32_MAX || (r.n >= 0 && size[r.n] > INT32_MAX))
        return gm__fail(GM_ERR_SIZE, "%s: %sshape has a height, width or batch of 2^31 or more", fn, pre);
    if ((layout = gm__dl_layout(size, stride, r, es, order)) < 0)
        return gm__fail(GM_ERR_SIZE,
                        "%s: %sstrides: pixels are %lld bytes apart; an image needs them 1 element apart "
                        "(planar) or one pixel of channels apart with channels adjacent (interleaved)",
                        fn, pre, (long long)stride[r.w]);
    if (t->data && t->byte_offset > (uint64_t)(UINTPTR_MAX - (uintptr_t)t->data))
        return gm__fail(GM_ERR_SIZE, "%s: %sbyte_offset %llu runs past the address space", fn, pre,
                        (unsigned long long)t->byte_offset);
    memset(&v, 0, sizeof v);
    v.data = t->data ? (char*)t->data + t->byte_offset : NULL;
    v.dtype = dtype;
    v.layout = (gm_layout)layout;
    v.channels = r.c < 0 ? 1 : (int32_t)size[r.c];
    v.batch = r.n < 0 ? 1 : (int32_t)size[r.n];
    v.width = size[r.w];
    v.height = size[r.h];
    v.where = wheres[t->device.device_type];
    v.pitch = size[r.h] > 1 ? stride[r.h] : gm__row_bytes(&v); /* a lone row, plane or image: natural strides */
    v.plane_pitch = v.layout == GM_CHW && v.channels > 1 ? stride[r.c] : 0;
    v.batch_pitch = v.batch > 1 ? stride[r.n] : 0;
    one = v;
    one.batch = 1;
    if ((extent = gm__span(&one)) < 0) /* bytes of one image */
        return gm__fail(GM_ERR_SIZE, "%s: %sstrides overflow 64-bit sizes", fn, pre);
    if (v.layout == GM_CHW && v.channels == 1)
        v.plane_pitch = extent;
    if (v.batch == 1)
        v.batch_pitch = extent;
    if ((s = gm__check(fn, "t", &v)) != GM_OK)
        return s;
    if (v.data && (uint64_t)gm__span(&v) > (uint64_t)(UINTPTR_MAX - (uintptr_t)v.data))
        return gm__fail(GM_ERR_SIZE, "%s: %sdata + byte_offset + %lld bytes of image runs past the address space", fn,
                        pre, (long long)gm__span(&v));
    if (v.where == GM_DEVICE) {
        if ((s = gm__check_device_memory(fn, "t->data", &v)) != GM_OK)
            return s;
        if (v.device != t->device.device_id)
            return gm__fail(GM_ERR_LOCATION, "%s: %sdevice.device_id is %d but the memory is on device %d", fn, pre,
                            (int)t->device.device_id, (int)v.device);
    }
    *m = v;
    return GM_OK;
}

GM_API gm_status gm_from_dlpack(gm_mat* m, const gm_dl_tensor* t, gm_layout order)
{
    return gm__dl_import("gm_from_dlpack", "t->", m, t, order);
}

GM_API gm_status gm_from_dlpack_versioned(gm_mat* m, const gm_dl_managed_versioned* t, gm_layout order, int writable)
{
    static const char fn[] = "gm_from_dlpack_versioned";
    if (m)
        memset(m, 0, sizeof *m);
    if (!t)
        return gm__fail(GM_ERR_ARG, "%s: t is NULL", fn);
    if (t->version.major != GM_DL_MAJOR)
        return gm__fail(GM_ERR_ARG, "%s: t->version is %u.%u; gpumat reads DLPack %d.x (call its deleter)", fn,
                        (unsigned)t->version.major, (unsigned)t->version.minor, GM_DL_MAJOR);
    if (writable && (t->flags & GM_DL_FLAG_READ_ONLY))
        return gm__fail(GM_ERR_ARG, "%s: t->flags marks the tensor read-only but writable is set", fn);
    return gm__dl_import(fn, "t->dl_tensor.", m, &t->dl_tensor, order);
}

GM_API gm_status gm_cai_describe(const gm_mat* m, int read_only, gm_cai* out)
{
    static const char fn[] = "gm_cai_describe";
    static const char kinds[] = {'i', 'u', 'f'}; /* numpy kind by DLPack code (int, uint, float) */
    size_t es;
    gm_status s;
    if (!out)
        return gm__fail(GM_ERR_ARG, "%s: out is NULL", fn);
    memset(out, 0, sizeof *out);
    if ((s = gm__check(fn, "m", m)) != GM_OK)
        return s;
    if (m->where == GM_HOST)
        return gm__fail(GM_ERR_LOCATION, "%s: m is pageable host memory, which CUDA cannot address "
                        "(numpy's __array_interface__ describes it)", fn);
    if (gm__dl_codes[m->dtype] == GM_DL_BFLOAT)
        return gm__fail(GM_ERR_TYPE, "%s: m->dtype is bf16, which has no numpy typestr", fn);
    es = gm_dtype_size(m->dtype);
    out->ndim = gm__dims(m, out->shape, out->strides);
    out->typestr[0] = es == 1 ? '|' : '<'; /* CUDA devices are little-endian */
    out->typestr[1] = kinds[gm__dl_codes[m->dtype]];
    out->typestr[2] = (char)('0' + es);     /* 1, 2, 4 or 8 */
    out->data = (uintptr_t)m->data;
    out->read_only = read_only != 0;
    out->version = 3;
    return GM_OK;
}
