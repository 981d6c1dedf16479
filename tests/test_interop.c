/* test_interop: DLPack export/import and the CUDA array interface
 * description on host memory (every dtype, HWC/CHW, batches, pitches,
 * channels_last, byte_offset, refusals naming the field, deleters), then on
 * device memory where there is a GPU (SKIP otherwise).
 * Alone: make build/test_interop && ./build/test_interop */
#include "gpumat.h"
#include "check.h"

#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* Leaves a failure behind so that a refusal's message must be its own. */
static void stale_error(void)
{
    gm_dtype dt;
    int cn;
    gm_from_cv_type(-1, &dt, &cn);
}

/* Checks that a call was refused with want and a message naming fn and arg. */
static void refused_(int line, const char* call, gm_status got, gm_status want, const char* fn, const char* arg)
{
    const char* e = gm_last_error();
    CHECK(got == want, "line %d: %s: %s, want %s (%s)", line, call, gm_status_string(got), gm_status_string(want), e);
    CHECK(strstr(e, fn) && strstr(e, arg), "line %d: %s: message \"%s\" should name %s and %s", line, call, e, fn,
          arg);
}
#define REFUSED(call, want, fn, arg) refused_(__LINE__, #call, (stale_error(), (call)), want, fn, arg)

/* A host buffer of random bytes with an image inside it: every row, plane
 * and image padded, so that strides are never compact by accident. */
static gm_mat padded(void* buf, int64_t w, int64_t h, gm_dtype dt, int ch, gm_layout lay, int batch)
{
    gm_desc d;
    gm_mat m;
    int64_t es = (int64_t)gm_dtype_size(dt);
    memset(&d, 0, sizeof d);
    d.width = w, d.height = h, d.dtype = dt, d.channels = ch, d.layout = lay, d.batch = batch;
    d.pitch = w * es * (lay == GM_HWC ? ch : 1) + 3 * es;
    d.plane_pitch = d.pitch * h + 5 * es;
    d.batch_pitch = (lay == GM_CHW ? d.plane_pitch * ch : d.pitch * h) + 7 * es;
    if (gm_wrap_desc(&m, buf, &d, GM_HOST) != GM_OK) {
        printf("padded: %s\n", gm_last_error());
        exit(2);
    }
    return m;
}

/* Whether two descriptors describe the same elements (pitches that no
 * element depends on are free). */
static int same_image(const gm_mat* a, const gm_mat* b)
{
    return a->data == b->data && a->width == b->width && a->height == b->height && a->channels == b->channels &&
           a->batch == b->batch && a->dtype == b->dtype && (a->layout == b->layout || a->channels == 1) &&
           a->where == b->where && (a->height == 1 || a->pitch == b->pitch) &&
           (a->layout == GM_HWC || a->channels == 1 || a->plane_pitch == b->plane_pitch) &&
           (a->batch == 1 || a->batch_pitch == b->batch_pitch);
}

/* The counting deleter of hand-made tensors. */
static int g_deleted;
static void count_delete(gm_dl_managed_versioned* self)
{
    (void)self;
    ++g_deleted;
}

/* A DLTensor over host memory with the given shape and element strides. */
static gm_dl_tensor tensor(void* data, gm_dl_dtype dt, int ndim, int64_t* shape, int64_t* strides)
{
    gm_dl_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.device.device_type = GM_DL_CPU;
    t.dtype = dt;
    t.ndim = ndim;
    t.shape = shape;
    t.strides = strides;
    return t;
}

static const gm_dl_dtype u8 = {GM_DL_UINT, 8, 1}, f32 = {GM_DL_FLOAT, 32, 1};

/* ------------------------------------------------------------ round trips */

/* m -> versioned and legacy tensors: shape, strides, dtype and device as
 * documented, and back to the same image. */
static void round_trip(gm_mat* m)
{
    static const int32_t device_types[] = {GM_DL_CPU, GM_DL_CUDA_HOST, GM_DL_CUDA};
    gm_dl_managed_versioned* v = NULL;
    gm_dl_managed* l = NULL;
    gm_mat back;
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    int nd = 3 + (m->batch > 1), c = m->layout == GM_HWC ? nd - 1 : nd - 3, h = m->layout == GM_HWC ? nd - 3 : nd - 2;
    const gm_dl_tensor* t;
    char what[96];
    snprintf(what, sizeof what, "%s x%d %s batch %d", gm_dtype_name(m->dtype), (int)m->channels,
             m->layout == GM_HWC ? "HWC" : "CHW", (int)m->batch);
    if (gm_to_dlpack(m, 0, &v) != GM_OK || gm_to_dlpack_legacy(m, 0, &l) != GM_OK) {
        CHECK(0, "%s: export failed: %s", what, gm_last_error());
        return;
    }
    t = &v->dl_tensor;
    CHECK(v->version.major == 1 && v->flags == 0 && v->deleter && l->deleter, "%s: managed headers", what);
    CHECK(l->dl_tensor.ndim == t->ndim && !memcmp(l->dl_tensor.shape, t->shape, sizeof(int64_t) * (size_t)t->ndim) &&
              !memcmp(l->dl_tensor.strides, t->strides, sizeof(int64_t) * (size_t)t->ndim),
          "%s: legacy and versioned tensors agree", what);
    CHECK(t->ndim == nd && t->data == m->data && t->byte_offset == 0 && t->device.device_type == device_types[m->where],
          "%s: ndim %d data %p device %d", what, (int)t->ndim, t->data, (int)t->device.device_type);
    CHECK(t->dtype.bits == 8 * es && t->dtype.lanes == 1, "%s: dtype bits %d", what, (int)t->dtype.bits);
    CHECK(t->shape[c] == m->channels && t->shape[h] == m->height && t->shape[h + 1] == m->width &&
              (nd == 3 || t->shape[0] == m->batch),
          "%s: shape", what);
    CHECK(t->strides[h] * es == m->pitch && t->strides[h + 1] * es == (m->layout == GM_HWC ? m->channels * es : es) &&
              (m->layout == GM_CHW || t->strides[c] == 1) &&
              (m->layout == GM_HWC || m->channels == 1 || t->strides[c] * es == m->plane_pitch) &&
              (nd == 3 || t->strides[0] * es == m->batch_pitch),
          "%s: strides", what);
    CHECK(gm_from_dlpack_versioned(&back, v, m->layout, 1) == GM_OK && same_image(&back, m), "%s: versioned back: %s",
          what, gm_last_error());
    CHECK(gm_from_dlpack(&back, &l->dl_tensor, m->layout) == GM_OK && same_image(&back, m), "%s: legacy back: %s",
          what, gm_last_error());
    v->deleter(v);
    l->deleter(l);
}

static void test_round_trips(void)
{
    static unsigned char buf[64 * 1024];
    static const int channels[] = {1, 3, 4};
    int d, c, lay, b;
    for (d = 0; d < GM_DTYPE_COUNT; ++d)
        for (c = 0; c < 3; ++c)
            for (lay = 0; lay < 2; ++lay)
                for (b = 1; b <= 3; b += 2) {
                    gm_mat m = padded(buf, 7, 5, (gm_dtype)d, channels[c], (gm_layout)lay, b);
                    round_trip(&m);
                    m.where = GM_PINNED; /* kDLCUDAHost: no driver needed to describe it */
                    round_trip(&m);
                }
}

/* ------------------------------------------------------- foreign tensors */

static void test_foreign_layouts(void)
{
    static float px[2 * 3 * 4 * 5 + 16];
    gm_mat m;
    gm_dl_tensor t;
    { /* torch channels_last: shape (N, C, H, W), memory N, H, W, C */
        int64_t shape[4] = {2, 3, 4, 5}, strides[4] = {60, 1, 15, 3};
        t = tensor(px, f32, 4, shape, strides);
        CHECK(gm_from_dlpack(&m, &t, GM_CHW) == GM_OK && m.layout == GM_HWC && m.channels == 3 && m.batch == 2 &&
                  m.width == 5 && m.height == 4 && m.pitch == 60 && m.batch_pitch == 240,
              "channels_last NCHW: %s", gm_last_error());
    }
    { /* (H, W, C) shape over planar memory (a permuted CHW tensor) */
        int64_t shape[3] = {4, 5, 3}, strides[3] = {5, 1, 20};
        t = tensor(px, f32, 3, shape, strides);
        CHECK(gm_from_dlpack(&m, &t, GM_HWC) == GM_OK && m.layout == GM_CHW && m.pitch == 20 && m.plane_pitch == 80,
              "permuted HWC: %s", gm_last_error());
    }
    { /* 2-D mask: one channel, NULL strides are compact rows */
        int64_t shape[2] = {4, 5};
        t = tensor(px, f32, 2, shape, NULL);
        CHECK(gm_from_dlpack(&m, &t, GM_CHW) == GM_OK && m.channels == 1 && m.layout == GM_CHW && m.pitch == 20 &&
                  m.width == 5 && m.height == 4,
              "2-D: %s", gm_last_error());
    }
    { /* rows 8 floats apart for 5 pixels (an OpenCV-style pitched buffer), byte_offset to the ROI */
        int64_t shape[3] = {3, 5, 1}, strides[3] = {8, 1, 1};
        t = tensor(px, f32, 3, shape, strides);
        t.byte_offset = 2 * sizeof(float);
        CHECK(gm_from_dlpack(&m, &t, GM_HWC) == GM_OK && m.data == (void*)(px + 2) && m.pitch == 32 && m.width == 5,
              "pitched + byte_offset: %s", gm_last_error());
    }
    { /* size-1 dimensions may carry any stride */
        int64_t shape[4] = {1, 1, 4, 5}, strides[4] = {1, 999, 5, 1};
        t = tensor(px, f32, 4, shape, strides);
        CHECK(gm_from_dlpack(&m, &t, GM_CHW) == GM_OK && m.batch == 1 && m.channels == 1 && m.pitch == 20,
              "size-1 dims: %s", gm_last_error());
    }
    { /* one pixel a row with adjacent channels is planar and interleaved at once: order decides */
        int64_t chw[3] = {2, 1, 1}, hwc[3] = {1, 1, 2}, ones[3] = {1, 1, 1};
        t = tensor(px, u8, 3, chw, ones);
        CHECK(gm_from_dlpack(&m, &t, GM_CHW) == GM_OK && m.layout == GM_CHW && m.channels == 2 && m.plane_pitch == 1,
              "1x1 planes one apart, CHW: %s", gm_last_error());
        t = tensor(px, u8, 3, hwc, ones);
        CHECK(gm_from_dlpack(&m, &t, GM_HWC) == GM_OK && m.layout == GM_HWC && m.channels == 2,
              "1x1 adjacent channels, HWC: %s", gm_last_error());
    }
    { /* an image that would end past the address space */
        int64_t shape[2] = {2, 2};
        t = tensor((void*)(UINTPTR_MAX - 15), u8, 2, shape, NULL);
        t.byte_offset = 14;
        REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, "gm_from_dlpack", "address space");
    }
    { /* a versioned read-only tensor is fine to read, and import never calls the deleter */
        gm_dl_managed_versioned v;
        int64_t shape[3] = {4, 5, 3};
        memset(&v, 0, sizeof v);
        v.version.major = 1, v.version.minor = 7, v.flags = GM_DL_FLAG_READ_ONLY, v.deleter = count_delete;
        v.dl_tensor = tensor(px, u8, 3, shape, NULL);
        g_deleted = 0;
        CHECK(gm_from_dlpack_versioned(&m, &v, GM_HWC, 0) == GM_OK && m.dtype == GM_U8 && m.pitch == 15,
              "read-only versioned: %s", gm_last_error());
        REFUSED(gm_from_dlpack_versioned(&m, &v, GM_HWC, 1), GM_ERR_ARG, "gm_from_dlpack_versioned", "read-only");
        v.version.major = 2;
        REFUSED(gm_from_dlpack_versioned(&m, &v, GM_HWC, 0), GM_ERR_ARG, "gm_from_dlpack_versioned", "t->version");
        CHECK(g_deleted == 0, "import called the deleter %d times", g_deleted);
        v.deleter(&v);
        CHECK(g_deleted == 1, "the deleter ran %d times", g_deleted);
    }
}

/* Every refusal of gm_from_dlpack: status, field named, *m zeroed. */
static void test_import_refusals(void)
{
    static const char fn[] = "gm_from_dlpack";
    static float px[256];
    int64_t shape[4] = {4, 5, 3, 2}, strides[4] = {15, 3, 1, 1};
    gm_dl_tensor t = tensor(px, f32, 3, shape, strides), bad;
    gm_mat m;
    REFUSED(gm_from_dlpack(NULL, &t, GM_HWC), GM_ERR_ARG, fn, "m is NULL");
    REFUSED(gm_from_dlpack(&m, NULL, GM_HWC), GM_ERR_ARG, fn, "t is NULL");
    REFUSED(gm_from_dlpack(&m, &t, (gm_layout)7), GM_ERR_ARG, fn, "order");
    bad = t, bad.device.device_type = 4; /* OpenCL */
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_LOCATION, fn, "t->device.device_type");
    bad = t, bad.dtype.lanes = 4;
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_TYPE, fn, "t->dtype");
    bad = t, bad.dtype.code = 6, bad.dtype.bits = 8; /* bool */
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_TYPE, fn, "t->dtype");
    bad = t, bad.dtype.code = GM_DL_UINT; /* u32 */
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_TYPE, fn, "t->dtype");
    bad = t, bad.ndim = 1;
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_SIZE, fn, "t->ndim");
    bad = t, bad.ndim = 5;
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_SIZE, fn, "t->ndim");
    bad = t, bad.shape = NULL;
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_ARG, fn, "t->shape");
    bad = t, bad.data = NULL;
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_ARG, fn, "t->data");
    bad = t, bad.byte_offset = 2; /* half a float */
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_ARG, fn, "t->data");
    bad = t, bad.byte_offset = UINT64_MAX;
    REFUSED(gm_from_dlpack(&m, &bad, GM_HWC), GM_ERR_SIZE, fn, "t->byte_offset");
    shape[0] = 6; /* 6 rows read as (C, H, W): 6 channels */
    REFUSED(gm_from_dlpack(&m, &t, GM_CHW), GM_ERR_TYPE, fn, "t->shape[0]");
    shape[0] = 0;
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, fn, "t->shape[0]");
    shape[0] = 4, shape[2] = 5;
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_TYPE, fn, "t->shape[2]");
    shape[2] = 3, strides[0] = -15;
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, fn, "t->strides[0]");
    strides[0] = 0;
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, fn, "t->strides[0]");
    strides[0] = INT64_MAX / 2;
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, fn, "t->strides[0]");
    strides[0] = 15, strides[1] = 4; /* pixels 4 apart, 3 channels */
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, fn, "t->strides");
    strides[1] = 3, strides[0] = 12; /* rows overlap */
    REFUSED(gm_from_dlpack(&m, &t, GM_HWC), GM_ERR_SIZE, fn, "t->pitch");
    strides[0] = 15;
    CHECK(m.data == NULL && m.width == 0, "a refused import leaves *m zeroed");
    CHECK(gm_from_dlpack(&m, &t, GM_HWC) == GM_OK, "the base tensor is fine: %s", gm_last_error());
    {
        gm_dl_managed_versioned v;
        memset(&v, 0, sizeof v);
        v.version.major = 1, v.dl_tensor = t;
        shape[1] = -5;
        REFUSED(gm_from_dlpack_versioned(&m, &v, GM_HWC, 1), GM_ERR_SIZE, "gm_from_dlpack_versioned",
                "t->dl_tensor.shape[1]");
        REFUSED(gm_from_dlpack_versioned(&m, NULL, GM_HWC, 1), GM_ERR_ARG, "gm_from_dlpack_versioned", "t is NULL");
        shape[1] = 5;
    }
}

/* ---------------------------------------------------------------- exports */

static void test_export_refusals_and_move(void)
{
    static unsigned char buf[4096];
    gm_mat m = padded(buf, 6, 4, GM_U16, 3, GM_CHW, 1), bad = m, owner, view;
    gm_dl_managed_versioned* v = (gm_dl_managed_versioned*)&m; /* not NULL: refusals must clear it */
    gm_dl_managed* l = (gm_dl_managed*)&m;
    REFUSED(gm_to_dlpack(&m, 0, NULL), GM_ERR_ARG, "gm_to_dlpack", "out");
    REFUSED(gm_to_dlpack(NULL, 0, &v), GM_ERR_ARG, "gm_to_dlpack", "m is NULL");
    CHECK(v == NULL, "*out cleared on failure");
    bad.width = 0;
    REFUSED(gm_to_dlpack(&bad, 0, &v), GM_ERR_SIZE, "gm_to_dlpack", "m");
    REFUSED(gm_to_dlpack(&m, 8, &v), GM_ERR_ARG, "gm_to_dlpack", "flags");
    REFUSED(gm_to_dlpack_legacy(&m, GM_DL_EXPORT_READ_ONLY, &l), GM_ERR_ARG, "gm_to_dlpack_legacy", "flags");
    CHECK(l == NULL, "*out cleared on failure");
    REFUSED(gm_to_dlpack(&m, GM_DL_EXPORT_MOVE, &v), GM_ERR_ARG, "gm_to_dlpack", "m owns no memory");

    CHECK(gm_to_dlpack(&m, GM_DL_EXPORT_READ_ONLY, &v) == GM_OK && v->flags == GM_DL_FLAG_READ_ONLY,
          "read-only export: %s", gm_last_error());
    if (v)
        v->deleter(v);

    /* MOVE: the tensor's deleter frees the allocation (ASan counts), m stays a view */
    if (gm_alloc_host(&owner, 9, 7, GM_F32, 4, GM_HWC, 0) != GM_OK) {
        CHECK(0, "gm_alloc_host: %s", gm_last_error());
        return;
    }
    view = owner;
    CHECK(gm_to_dlpack(&owner, GM_DL_EXPORT_MOVE, &v) == GM_OK && owner.owned == NULL && owner.data == view.data,
          "moved export: %s", gm_last_error());
    gm_free(&owner); /* frees nothing now */
    if (v)
        v->deleter(v);
    if (gm_alloc_host(&owner, 9, 7, GM_S8, 1, GM_CHW, 0) == GM_OK) {
        CHECK(gm_to_dlpack_legacy(&owner, GM_DL_EXPORT_MOVE, &l) == GM_OK && owner.owned == NULL, "moved legacy: %s",
              gm_last_error());
        if (l)
            l->deleter(l);
    }
}

static void test_cai(void)
{
    static const char* const typestrs[GM_DTYPE_COUNT] = {"|u1", "|i1", "<u2", "<i2", "<i4", "<f4", "<f8", "<f2", ""};
    static unsigned char buf[8192];
    gm_cai c;
    int d;
    for (d = 0; d < GM_DTYPE_COUNT; ++d) {
        gm_mat m = padded(buf, 5, 3, (gm_dtype)d, 3, GM_HWC, 2);
        gm_status s;
        m.where = GM_PINNED;
        s = gm_cai_describe(&m, 1, &c);
        if (d == GM_BF16) {
            CHECK(s == GM_ERR_TYPE && strstr(gm_last_error(), "bf16"), "bf16 has no typestr: %s", gm_last_error());
            continue;
        }
        CHECK(s == GM_OK && !strcmp(c.typestr, typestrs[d]) && c.version == 3 && c.read_only == 1 &&
                  c.data == (uintptr_t)buf && c.ndim == 4,
              "%s: typestr %s: %s", gm_dtype_name((gm_dtype)d), c.typestr, gm_last_error());
        CHECK(c.shape[0] == 2 && c.shape[1] == 3 && c.shape[2] == 5 && c.shape[3] == 3 &&
                  c.strides[0] == m.batch_pitch && c.strides[1] == m.pitch &&
                  c.strides[2] == 3 * (int64_t)gm_dtype_size(m.dtype) &&
                  c.strides[3] == (int64_t)gm_dtype_size(m.dtype),
              "%s: shape and byte strides", gm_dtype_name((gm_dtype)d));
    }
    {
        gm_mat m = padded(buf, 5, 3, GM_U8, 1, GM_CHW, 1);
        REFUSED(gm_cai_describe(&m, 0, &c), GM_ERR_LOCATION, "gm_cai_describe", "pageable");
        REFUSED(gm_cai_describe(&m, 0, NULL), GM_ERR_ARG, "gm_cai_describe", "out");
        REFUSED(gm_cai_describe(NULL, 0, &c), GM_ERR_ARG, "gm_cai_describe", "m is NULL");
    }
}

/* ------------------------------------------------------------ device part */

static void test_device(void)
{
    gm_mat m, back, roi;
    gm_dl_managed_versioned* v = NULL;
    gm_dl_managed* l = NULL;
    gm_cai c;
    static float host[16];
    int64_t shape[3] = {4, 4, 1};
    gm_dl_tensor t;
    gm_status s = gm_alloc_device(&m, 33, 17, GM_F16, 3, GM_CHW);
    if (s != GM_OK) {
        SKIP("device DLPack/CAI checks: no GPU here (%s)", gm_last_error());
        return;
    }
    CHECK(gm_roi(&m, &roi, 3, 2, 20, 11) == GM_OK && gm_to_dlpack(&roi, 0, &v) == GM_OK &&
              v->dl_tensor.device.device_type == GM_DL_CUDA && v->dl_tensor.device.device_id == m.device,
          "device export: %s", gm_last_error());
    CHECK(v && gm_from_dlpack_versioned(&back, v, GM_CHW, 1) == GM_OK && same_image(&back, &roi),
          "device import: %s", gm_last_error());
    if (v) {
        v->dl_tensor.device.device_id = m.device + 1;
        REFUSED(gm_from_dlpack_versioned(&back, v, GM_CHW, 1), GM_ERR_LOCATION, "gm_from_dlpack_versioned",
                "device_id");
        v->deleter(v);
    }
    CHECK(gm_cai_describe(&roi, 0, &c) == GM_OK && c.data == (uintptr_t)roi.data && !strcmp(c.typestr, "<f2"),
          "device CAI: %s", gm_last_error());
    CHECK(gm_to_dlpack_legacy(&m, GM_DL_EXPORT_MOVE, &l) == GM_OK && m.owned == NULL, "device move: %s",
          gm_last_error());
    if (l)
        l->deleter(l); /* cuMemFree through the tensor */
    t = tensor(host, f32, 3, shape, NULL);
    t.device.device_type = GM_DL_CUDA;
    REFUSED(gm_from_dlpack(&back, &t, GM_HWC), GM_ERR_LOCATION, "gm_from_dlpack", "not device memory");
}

int main(void)
{
    printf("test_interop: DLPack and CUDA array interface\n");
    test_round_trips();
    test_foreign_layouts();
    test_import_refusals();
    test_export_refusals_and_move();
    test_cai();
    test_device();
    return t_summary("interop");
}
