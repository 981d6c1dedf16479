/* fuzz_dlpack: libFuzzer harness for DLPack import and export. The first
 * input byte picks one of two checks. Import: a gm_dl_tensor and a
 * gm_dl_managed_versioned built from the input (ndim 0..10, any int64 shape,
 * strides or none, any dtype, device, byte_offset, version and flags, data
 * into a malloc'd buffer of input-given size or NULL) go through
 * gm_from_dlpack and gm_from_dlpack_versioned in both orders: a GM_OK import
 * passes gm_roi's checks, describes the tensor's own elements (every corner)
 * within the tensor's extent and buffer, and never accepts what interop.h
 * says to refuse; a refusal's message starts with the function's name; the
 * versioned import agrees with the plain one; no deleter is called. Round
 * trip: a small host image filled from the input, exported with
 * gm_to_dlpack or gm_to_dlpack_legacy (input flags, MOVE included) and
 * imported back, is the same image; the deleter is called once and nothing
 * leaks. Alone:
 *   clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror \
 *       -Iinclude tests/fuzz_dlpack.c -o build/fuzz_dlpack -ldl -lpthread -lm
 *   cp -r tests/corpus/dlpack /tmp/dlpack && ./build/fuzz_dlpack -max_total_time=60 /tmp/dlpack
 * (or FUZZ_SECONDS=60 sh tests/fuzz.sh build for every harness). */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#define FUZZ_NAME "fuzz_dlpack"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Leaves another function's failure behind, so that a refusal must set its own message. */
static void stale_error(void)
{
    gm_dtype dt;
    int cn;
    gm_from_cv_type(-1, &dt, &cn);
}

/* Checks that status s of function fn is GM_OK or comes with a message of fn's. */
static void message_if_refused(gm_status s, const char* fn)
{
    const char* e = gm_last_error();
    size_t n = strlen(fn);
    MUST(s == GM_OK || (!strncmp(e, fn, n) && e[n] == ':' && e[n + 1] == ' '), "%s refused (%s) with \"%s\"", fn,
         gm_status_string(s), e);
}

/* Calls of the counting deleters (import must never call one). */
static int deleted;
static void count_delete(gm_dl_managed_versioned* self)
{
    (void)self;
    ++deleted;
}
static void count_delete_legacy(gm_dl_managed* self)
{
    (void)self;
    ++deleted;
}

/* The DLPack type code of each gm_dtype, written out independently of the library. */
static const uint8_t dl_codes[GM_DTYPE_COUNT] = {GM_DL_UINT, GM_DL_INT,   GM_DL_UINT,  GM_DL_INT,  GM_DL_INT,
                                                 GM_DL_FLOAT, GM_DL_FLOAT, GM_DL_FLOAT, GM_DL_BFLOAT};

/* The extent in bytes of t (from data + byte_offset to one past its last
 * element) with its strides in bytes, computed here from shape, strides
 * and bits; -1 when a stride is negative or it overflows. */
static int64_t tensor_extent(const gm_dl_tensor* t, int64_t stride[])
{
    int64_t es = t->dtype.bits / 8, compact = 1, extent = es, far;
    int i, compact_ok = 1;
    for (i = t->ndim - 1; i >= 0; --i) {
        int64_t s = t->strides ? t->strides[i] : compact;
        if (t->shape[i] <= 0 || s < 0 || (!t->strides && !compact_ok) || s > INT64_MAX / es)
            return -1;
        stride[i] = s * es;
        if (t->shape[i] > 1 && stride[i] > INT64_MAX / (t->shape[i] - 1))
            return -1;
        far = (t->shape[i] - 1) * stride[i];
        if (far > INT64_MAX - extent)
            return -1;
        extent += far;
        if (compact > INT64_MAX / t->shape[i])
            compact_ok = 0;
        else
            compact *= t->shape[i];
    }
    return extent;
}

/* Properties of a GM_OK import m of t in order; buf and size: the buffer t's data points into. */
static void check_import(const gm_mat* m, const gm_dl_tensor* t, gm_layout order, const char* buf, size_t size)
{
    static const gm_where wheres[] = {GM_HOST, GM_HOST, GM_DEVICE, GM_PINNED};
    int64_t stride[4], extent, span = gm_span_bytes(m);
    int ndim = t->ndim, n = -1, c = -1, h, w, i, corner;
    uintptr_t start, lo = (uintptr_t)buf;
    gm_mat v;
    MUST(ndim >= 2 && ndim <= 4 && t->dtype.lanes == 1 && t->data, "ndim %d lanes %d", ndim, (int)t->dtype.lanes);
    MUST(t->device.device_type >= GM_DL_CPU && t->device.device_type <= GM_DL_CUDA_HOST &&
             m->where == wheres[t->device.device_type],
         "device type %d gave where %d", (int)t->device.device_type, (int)m->where);
    MUST((unsigned)m->dtype < GM_DTYPE_COUNT && dl_codes[m->dtype] == t->dtype.code &&
             8 * gm_dtype_size(m->dtype) == t->dtype.bits,
         "dtype code %d bits %d gave %s", (int)t->dtype.code, (int)t->dtype.bits, gm_dtype_name(m->dtype));
    MUST(gm_roi(m, &v, 0, 0, m->width, m->height) == GM_OK && gm_row_bytes(m) > 0 && span >= 0,
         "the import fails the library's checks: %s", gm_last_error());
    start = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    MUST((uintptr_t)m->data == start, "data %p, the tensor starts at 0x%llx", m->data, (unsigned long long)start);
    extent = tensor_extent(t, stride);
    MUST(extent >= 0 && span <= extent, "span %lld, the tensor's extent %lld", (long long)span, (long long)extent);
    if (ndim == 4)
        n = 0;
    if (ndim == 2)
        h = 0, w = 1;
    else if (order == GM_HWC)
        h = ndim - 3, w = ndim - 2, c = ndim - 1;
    else
        c = ndim - 3, h = ndim - 2, w = ndim - 1;
    MUST(m->height == t->shape[h] && m->width == t->shape[w] && m->channels == (c < 0 ? 1 : t->shape[c]) &&
             m->batch == (n < 0 ? 1 : t->shape[n]),
         "%lldx%lld x%d batch %d from the shape", (long long)m->width, (long long)m->height, (int)m->channels,
         (int)m->batch);
    for (corner = 0; corner < 1 << ndim; ++corner) {
        uint64_t idx[4], want = 0;
        for (i = 0; i < ndim; ++i) {
            idx[i] = corner >> i & 1 ? (uint64_t)t->shape[i] - 1 : 0;
            want += idx[i] * (uint64_t)stride[i];
        }
        MUST(mat_offset(m, n < 0 ? 0 : idx[n], idx[h], idx[w], c < 0 ? 0 : idx[c]) == want,
             "corner %d is at %llu in the tensor but elsewhere in m (layout %d)", corner, (unsigned long long)want,
             (int)m->layout);
    }
    if (start >= lo && start - lo <= size && (uint64_t)extent <= size - (start - lo))
        MUST((uintptr_t)m->data >= lo && (uintptr_t)m->data + (uint64_t)span <= lo + size,
             "span %lld leaves the buffer", (long long)span);
}

/* Whether two imports are the same descriptor. */
static int same_mat(const gm_mat* a, const gm_mat* b)
{
    return a->data == b->data && a->width == b->width && a->height == b->height && a->channels == b->channels &&
           a->batch == b->batch && a->dtype == b->dtype && a->layout == b->layout && a->pitch == b->pitch &&
           a->plane_pitch == b->plane_pitch && a->batch_pitch == b->batch_pitch && a->where == b->where &&
           a->device == b->device && a->owned == b->owned;
}

/* A tensor from the input, imported legacy and versioned in both orders. */
static void fuzz_import(reader* r)
{
    static const char fn[] = "gm_from_dlpack", fnv[] = "gm_from_dlpack_versioned";
    int64_t shape[10], strides[10];
    gm_dl_managed legacy;
    gm_dl_managed_versioned versioned;
    gm_dl_tensor* t = &legacy.dl_tensor;
    size_t size, offset;
    char* buf;
    unsigned opts;
    int i, order, writable;
    memset(&legacy, 0, sizeof legacy);
    memset(&versioned, 0, sizeof versioned);
    t->ndim = (int32_t)(take(r, 1) % 11);
    t->dtype.code = (uint8_t)take(r, 1);
    t->dtype.bits = (uint8_t)take(r, 1);
    t->dtype.lanes = (uint16_t)take(r, 2);
    t->device.device_type = (int32_t)take(r, 4);
    t->device.device_id = (int32_t)take(r, 4);
    t->byte_offset = take(r, 8);
    opts = (unsigned)take(r, 1); /* 1: data NULL, 2: strides NULL, 4: writable */
    size = (size_t)take(r, 2) + 1;
    buf = (char*)malloc(size);
    MUST(buf != NULL, "malloc of %zu bytes", size);
    memset(buf, 0, size);
    offset = (size_t)take(r, 2) % size;
    t->data = opts & 1 ? NULL : buf + offset;
    versioned.version.major = (uint32_t)take(r, 4);
    versioned.version.minor = (uint32_t)take(r, 4);
    versioned.flags = take(r, 8);
    for (i = 0; i < t->ndim; ++i) {
        shape[i] = (int64_t)take(r, 8);
        strides[i] = (int64_t)take(r, 8);
    }
    t->shape = shape;
    t->strides = opts & 2 ? NULL : strides;
    writable = (opts & 4) != 0;
    legacy.deleter = count_delete_legacy;
    versioned.deleter = count_delete;
    versioned.dl_tensor = *t;
    deleted = 0;
    for (order = GM_HWC; order <= GM_CHW; ++order) {
        gm_mat m, mv;
        gm_status s, sv;
        stale_error();
        s = gm_from_dlpack(&m, t, (gm_layout)order);
        message_if_refused(s, fn);
        if (s == GM_OK)
            check_import(&m, t, (gm_layout)order, buf, size);
        stale_error();
        sv = gm_from_dlpack_versioned(&mv, &versioned, (gm_layout)order, writable);
        message_if_refused(sv, fnv);
        if (versioned.version.major != GM_DL_MAJOR || (writable && (versioned.flags & GM_DL_FLAG_READ_ONLY)))
            MUST(sv == GM_ERR_ARG, "version %u, flags %llu, writable %d: %s", (unsigned)versioned.version.major,
                 (unsigned long long)versioned.flags, writable, gm_status_string(sv));
        else
            MUST(sv == s && (s != GM_OK || same_mat(&m, &mv)), "versioned %s, plain %s", gm_status_string(sv),
                 gm_status_string(s));
    }
    MUST(deleted == 0, "import called a deleter %d times", deleted);
    free(buf);
}

/* A small host image from the input, exported, imported back, deleted. */
static void fuzz_round_trip(reader* r)
{
    gm_desc d;
    gm_mat m, back;
    gm_dl_managed_versioned* v = NULL;
    gm_dl_managed* l = NULL;
    const gm_dl_tensor* t;
    int64_t es, row, span, pad_row, pad_plane, pad_batch;
    unsigned flags, allowed;
    int legacy, writable;
    gm_status s;
    const char* fn;
    memset(&d, 0, sizeof d);
    d.dtype = (gm_dtype)(take(r, 1) % GM_DTYPE_COUNT);
    d.channels = (int32_t)(take(r, 1) % 4 + 1);
    d.layout = (gm_layout)(take(r, 1) & 1);
    d.width = (int64_t)(take(r, 1) % 16 + 1);
    d.height = (int64_t)(take(r, 1) % 16 + 1);
    d.batch = (int32_t)(take(r, 1) % 3 + 1);
    es = (int64_t)gm_dtype_size(d.dtype);
    pad_row = (int64_t)(take(r, 1) % 4) * es;
    pad_plane = (int64_t)(take(r, 1) % 4) * es;
    pad_batch = (int64_t)(take(r, 1) % 4) * es;
    row = d.width * es * (d.layout == GM_HWC ? d.channels : 1);
    d.pitch = row + pad_row;
    d.plane_pitch = d.layout == GM_CHW ? d.pitch * d.height + pad_plane : 0;
    d.batch_pitch = (d.layout == GM_CHW ? d.plane_pitch * d.channels : d.pitch * d.height) + pad_batch;
    flags = (unsigned)take(r, 1);
    legacy = (int)(take(r, 1) & 1);
    writable = (int)(take(r, 1) & 1);
    MUST(gm_alloc_desc(&m, &d, GM_HOST) == GM_OK, "gm_alloc_desc: %s", gm_last_error());
    span = gm_span_bytes(&m);
    memset(m.data, 0, (size_t)span);
    memcpy(m.data, r->p, r->n < (size_t)span ? r->n : (size_t)span);
    stale_error();
    if (legacy) {
        fn = "gm_to_dlpack_legacy", allowed = GM_DL_EXPORT_MOVE;
        s = gm_to_dlpack_legacy(&m, flags, &l);
    } else {
        fn = "gm_to_dlpack", allowed = GM_DL_EXPORT_READ_ONLY | GM_DL_EXPORT_MOVE;
        s = gm_to_dlpack(&m, flags, &v);
    }
    message_if_refused(s, fn);
    MUST((s == GM_OK) == !(flags & ~allowed), "flags 0x%x: %s", flags, gm_status_string(s));
    if (s != GM_OK) {
        MUST(!v && !l, "a refused export left a tensor");
        gm_free(&m);
        return;
    }
    MUST((m.owned == NULL) == !!(flags & GM_DL_EXPORT_MOVE), "owned %p after flags 0x%x", m.owned, flags);
    t = legacy ? &l->dl_tensor : &v->dl_tensor;
    MUST(t->device.device_type == GM_DL_CPU && t->device.device_id == 0 && t->data == m.data,
         "device %d:%d data %p", (int)t->device.device_type, (int)t->device.device_id, t->data);
    if (!legacy)
        MUST(v->version.major == GM_DL_MAJOR && v->version.minor == GM_DL_MINOR &&
                 v->flags == ((flags & GM_DL_EXPORT_READ_ONLY) ? GM_DL_FLAG_READ_ONLY : 0),
             "version %u.%u flags %llu", (unsigned)v->version.major, (unsigned)v->version.minor,
             (unsigned long long)v->flags);
    stale_error();
    if (legacy)
        message_if_refused(s = gm_from_dlpack(&back, t, m.layout), "gm_from_dlpack");
    else
        message_if_refused(s = gm_from_dlpack_versioned(&back, v, m.layout, writable), "gm_from_dlpack_versioned");
    if (!legacy && writable && (flags & GM_DL_EXPORT_READ_ONLY))
        MUST(s == GM_ERR_ARG, "a read-only export imported writable: %s", gm_status_string(s));
    else
        /* a lone row's pitch, a lone plane's or image's pitch are free: the import makes them natural */
        MUST(s == GM_OK && back.data == m.data && back.dtype == m.dtype && back.width == m.width &&
                 back.height == m.height && back.channels == m.channels && back.batch == m.batch &&
                 back.layout == m.layout && back.where == GM_HOST && !back.owned &&
                 (m.height == 1 || back.pitch == m.pitch) &&
                 (m.layout == GM_HWC || m.channels == 1 || back.plane_pitch == m.plane_pitch) &&
                 (m.batch == 1 || back.batch_pitch == m.batch_pitch) && gm_span_bytes(&back) == span,
             "%s back: %s", fn, s == GM_OK ? "a different image" : gm_last_error());
    if (legacy)
        l->deleter(l);
    else
        v->deleter(v);
    gm_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    reader r;
    r.p = data;
    r.n = size;
    if (take(&r, 1) & 1)
        fuzz_round_trip(&r);
    else
        fuzz_import(&r);
    return 0;
}
