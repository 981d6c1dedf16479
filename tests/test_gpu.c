/* GPU path vs CPU path, bit for bit: every kernel specialization on random
 * data, odd sizes, ROIs at odd offsets, foreign pitches, both layouts,
 * batches; dense images whose rows the host joins; rows of several warp
 * tasks; grids each side of a wave (full and half blocks); the
 * split/merge/blob entry points; transfers; an image over 2^31 bytes; N
 * threads racing on a cold kernel; warm-up from gm_kernels_for's list
 * leaving nothing to load; 32 dependent launches on one stream, and the
 * same captured into a CUDA graph. Prints SKIP without a GPU.
 * Run alone: make build/test_gpu && build/test_gpu [--sanitize]  (--sanitize: the subset
 * for compute-sanitizer: all but every specialization, every fast kernel and the big image) */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
/* The trace hook (gpumat/jit.h) counts launches by kernel family and loads. */
static void trace(int event, int kernel);
#define GM_TRACE(event, kernel) trace(event, kernel)
#include "gpumat.h"
#include "check.h"
#include "sprites.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/time.h>

static long fast_launches, generic_launches, half_block_launches, tile_launches, point_launches, loads;
static char launched[GM__KERNEL_COUNT];

static void trace(int event, int kernel)
{
    int fast = gm__kernels[kernel].family == GM__FAMILY_XFORM_FAST;
    if (event == GM_TRACE_LAUNCH || event == GM_TRACE_LAUNCH_HALF || event == GM_TRACE_LAUNCH_TILE ||
        event == GM_TRACE_LAUNCH_POINTS) {
        __atomic_add_fetch(fast ? &fast_launches : &generic_launches, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&launched[kernel], 1, __ATOMIC_RELAXED);
    }
    if (event == GM_TRACE_LAUNCH_HALF)
        __atomic_add_fetch(&half_block_launches, 1, __ATOMIC_RELAXED);
    if (event == GM_TRACE_LAUNCH_TILE)
        __atomic_add_fetch(&tile_launches, 1, __ATOMIC_RELAXED);
    if (event == GM_TRACE_LAUNCH_POINTS)
        __atomic_add_fetch(&point_launches, 1, __ATOMIC_RELAXED);
    if (event == GM_TRACE_LOAD)
        __atomic_add_fetch(&loads, 1, __ATOMIC_RELAXED);
}

/* The fast kernel of S -> D, cn channels, ls -> ld (one channel: its only one). */
static const gm__kernel_row* fast_kernel(int S, int D, int cn, int ls, int ld)
{
    return &gm__kernels[cn == 1 ? gm__fast_row[S][D][0][GM_HWC][GM_HWC] : gm__fast_row[S][D][cn - 1][ls][ld]];
}

/* A host image and a device image of identical geometry (same explicit
 * pitches, a few bytes of slack per row), and an ROI of each at the same
 * place with a random 1-7 px border, so pointers sit at odd offsets. */
typedef struct pair {
    gm_mat host, dev;         /* the parents */
    gm_mat host_roi, dev_roi; /* what the operation sees */
} pair;

static int64_t rnd(int64_t lo, int64_t hi) { return lo + (int64_t)(t_rand() % (uint64_t)(hi - lo + 1)); }

/* Under compute-sanitizer (--sanitize) the ROI ends where its parent's
 * memory does, so that a kernel reading past a view is caught (a border
 * there would hold the read). */
static int exact_ends;

/* The border right of and below the ROI. */
static int64_t end_border(void) { return exact_ends ? 0 : rnd(1, 7); }

/* aligned: rows, planes, images and the ROI start on 256-byte boundaries,
 * which the fast kernels need; otherwise offsets and pitches are odd, the
 * pitch never a multiple of 16. */
static int make_pair_at(pair* p, int64_t w, int64_t h, int batch, gm_dtype dt, int cn, gm_layout lay, int aligned)
{
    gm_desc d;
    int64_t es = (int64_t)gm_dtype_size(dt), bx = aligned ? 256 / es * rnd(0, 1) : rnd(1, 7), by = rnd(1, 7);
    memset(&d, 0, sizeof d);
    d.width = w + bx + end_border();
    d.height = h + by + end_border();
    d.channels = cn;
    d.batch = batch;
    d.dtype = dt;
    d.layout = lay;
    d.pitch = d.width * es * (lay == GM_HWC ? cn : 1) + es * rnd(0, 9);
    if (aligned)
        d.pitch = (d.pitch + 255) / 256 * 256;
    else if (d.pitch % 16 == 0)
        d.pitch += es; /* never what the whole-2x kernels take (templates/twice.cu) */
    if (batch > 1)
        d.batch_pitch = d.pitch * d.height * (lay == GM_CHW ? cn : 1) + (aligned ? 256 : es * rnd(0, 33));
    if (gm_alloc_desc(&p->host, &d, GM_HOST) != GM_OK || gm_alloc_desc(&p->dev, &d, GM_DEVICE) != GM_OK) {
        printf("alloc failed: %s\n", gm_last_error());
        return 0;
    }
    return gm_roi(&p->host, &p->host_roi, bx, by, w, h) == GM_OK && gm_roi(&p->dev, &p->dev_roi, bx, by, w, h) == GM_OK;
}

static int make_pair(pair* p, int64_t w, int64_t h, int batch, gm_dtype dt, int cn, gm_layout lay)
{
    return make_pair_at(p, w, h, batch, dt, cn, lay, 0);
}

static void free_pair(pair* p)
{
    gm_free(&p->host);
    gm_free(&p->dev);
}

/* Random bytes for integer types; for float types finite values in a range
 * that exercises saturation, with exact halves mixed in. NaN payloads are
 * not compared: x86 keeps them through arithmetic, GPUs canonicalise them. */
static void fill(gm_mat* m)
{
    int64_t n = gm_span_bytes(m), es = (int64_t)gm_dtype_size(m->dtype), i;
    unsigned char* b = (unsigned char*)m->data;
    for (i = 0; i + es <= n; i += es) {
        double v = (t_rand() & 3) ? t_uniform(-70000.0, 70000.0) : (double)rnd(-300, 300) + 0.5;
        float f = (float)v;
        unsigned short u;
        switch (m->dtype) {
        case GM_F32: memcpy(b + i, &f, 4); break;
        case GM_F64: memcpy(b + i, &v, 8); break;
        case GM_F16: u = (unsigned short)gm__f32_to_f16((float)(v / 8)); memcpy(b + i, &u, 2); break;
        case GM_BF16: u = (unsigned short)gm__f32_to_bf16(f); memcpy(b + i, &u, 2); break;
        default: { uint64_t r = t_rand(); memcpy(b + i, &r, (size_t)es); } break;
        }
    }
}

/* Sends the host parent to the device parent, and the result back. */
static int sync_down(pair* p)
{
    return gm_copy(&p->dev, &p->host, NULL) == GM_OK && gm_sync(NULL) == GM_OK;
}

static int sync_up(pair* p)
{
    return gm_copy(&p->host, &p->dev, NULL) == GM_OK && gm_sync(NULL) == GM_OK;
}

/* Byte-compares two parents (ROI and the untouched border around it). */
static int64_t first_diff(const gm_mat* a, const gm_mat* b)
{
    int64_t n = gm_span_bytes(a), i;
    for (i = 0; i < n; ++i)
        if (((const unsigned char*)a->data)[i] != ((const unsigned char*)b->data)[i])
            return i;
    return -1;
}

/* Downloads p's device parent over its host parent: the first byte where
 * the two differed, -1 where none, -2 where the download failed. */
static int64_t down_and_diff(pair* p)
{
    gm_mat expect = p->host;
    int64_t at = -2;
    expect.data = malloc((size_t)gm_span_bytes(&expect));
    if (!expect.data)
        return -2;
    memcpy(expect.data, p->host.data, (size_t)gm_span_bytes(&expect));
    if (sync_down(p))
        at = first_diff(&expect, &p->host);
    free(expect.data);
    return at;
}

/* Runs op on the device pair and the host pair, and compares the whole
 * destination parents (so writes outside the ROI are caught too). */
typedef gm_status (*op_fn)(const gm_mat* src, gm_mat* dst, const void* ctx);

static void compare_op(const char* what, pair* src, pair* dst, op_fn op, const void* ctx)
{
    int64_t at;
    gm_status sd, sh;
    fill(&src->host);
    fill(&dst->host); /* random sentinel: must survive outside the ROI */
    if (!sync_up(src) || !sync_up(dst)) {
        CHECK(0, "%s: upload failed: %s", what, gm_last_error());
        return;
    }
    sd = op(&src->dev_roi, &dst->dev_roi, ctx);
    sh = op(&src->host_roi, &dst->host_roi, ctx);
    CHECK(sd == GM_OK && sh == GM_OK, "%s: gpu %s / cpu %s: %s", what, gm_status_string(sd), gm_status_string(sh),
          gm_last_error());
    if (sd != GM_OK || sh != GM_OK)
        return;
    at = down_and_diff(dst);
    CHECK(at == -1, "%s: gpu != cpu at byte %lld of the destination parent (-2: no download)", what, (long long)at);
}

static gm_status op_transform(const gm_mat* s, gm_mat* d, const void* x) { return gm_transform(s, d, (const gm_xform*)x, NULL); }
static gm_status op_split(const gm_mat* s, gm_mat* d, const void* x) { (void)x; return gm_split(s, d, NULL); }
static gm_status op_merge(const gm_mat* s, gm_mat* d, const void* x) { (void)x; return gm_merge(s, d, NULL); }

/* 32 launches queued back to back on one stream, each reading what the one
 * before wrote (on sm_90+ each may start while the one before drains). */
typedef struct chain_args { gm_mat dev_mid, host_mid; gm_stream stream; } chain_args;
static gm_status op_chain(const gm_mat* s, gm_mat* d, const void* p)
{
    const chain_args* c = (const chain_args*)p;
    gm_mat mid = s->where == GM_DEVICE ? c->dev_mid : c->host_mid;
    gm_stream stream = s->where == GM_DEVICE ? c->stream : NULL;
    gm_status st = GM_OK;
    int i;
    for (i = 0; i < 16 && st == GM_OK; ++i) {
        st = gm_convert(i ? d : s, &mid, 1.0 + i / 8.0, -i, stream);
        if (st == GM_OK)
            st = gm_convert(&mid, d, 0.75, i, stream);
    }
    return st;
}

/* The driver's stream-capture calls, which gpumat itself never needs. */
typedef struct graph_api {
    int (*stream_create)(void** stream, unsigned flags);
    int (*begin_capture)(void* stream, int mode);
    int (*end_capture)(void* stream, void** graph);
    int (*instantiate)(void** exec, void* graph, unsigned long long flags);
    int (*launch)(void* exec, void* stream);
    int (*synchronize)(void* stream);
    int (*exec_destroy)(void* exec);
    int (*graph_destroy)(void* graph);
    int (*stream_destroy)(void* stream);
} graph_api;

static int graph_api_load(graph_api* g)
{
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    const char* names[] = {"cuStreamCreate", "cuStreamBeginCapture_v2", "cuStreamEndCapture",
                           "cuGraphInstantiateWithFlags", "cuGraphLaunch", "cuStreamSynchronize",
                           "cuGraphExecDestroy", "cuGraphDestroy", "cuStreamDestroy_v2"};
    void** slots[] = {(void**)&g->stream_create, (void**)&g->begin_capture, (void**)&g->end_capture,
                      (void**)&g->instantiate, (void**)&g->launch, (void**)&g->synchronize,
                      (void**)&g->exec_destroy, (void**)&g->graph_destroy, (void**)&g->stream_destroy};
    size_t i;
    for (i = 0; lib && i < sizeof names / sizeof names[0]; ++i)
        if (!(*slots[i] = dlsym(lib, names[i])))
            return 0;
    return lib != NULL;
}

/* The chain captured into a CUDA graph (global capture mode) on a stream of
 * its own, then replayed once: the kernels must already be loaded, and on
 * sm_90+ the overlapped launches become programmatic edges of the graph. */
typedef struct graph_chain_args { chain_args chain; const graph_api* api; } graph_chain_args;
static gm_status op_graph_chain(const gm_mat* s, gm_mat* d, const void* p)
{
    const graph_chain_args* g = (const graph_chain_args*)p;
    chain_args c = g->chain;
    void *stream = NULL, *graph = NULL, *exec = NULL;
    gm_status st;
    int rc;
    if (s->where != GM_DEVICE)
        return op_chain(s, d, &c);
    if ((rc = g->api->stream_create(&stream, 1 /* non-blocking */)) != 0)
        return gm__fail(GM_ERR_CUDA, "cuStreamCreate: %d", rc);
    c.stream = (gm_stream)stream;
    if ((rc = g->api->begin_capture(stream, 0 /* global */)) != 0) {
        g->api->stream_destroy(stream);
        return gm__fail(GM_ERR_CUDA, "cuStreamBeginCapture: %d", rc);
    }
    st = op_chain(s, d, &c);
    rc = g->api->end_capture(stream, &graph);
    if (st == GM_OK && rc != 0)
        st = gm__fail(GM_ERR_CUDA, "cuStreamEndCapture: %d", rc);
    if (st == GM_OK && (rc = g->api->instantiate(&exec, graph, 0)) != 0)
        st = gm__fail(GM_ERR_CUDA, "cuGraphInstantiateWithFlags: %d", rc);
    if (st == GM_OK && ((rc = g->api->launch(exec, stream)) != 0 || (rc = g->api->synchronize(stream)) != 0))
        st = gm__fail(GM_ERR_CUDA, "cuGraphLaunch / cuStreamSynchronize: %d", rc);
    if (exec)
        g->api->exec_destroy(exec);
    if (graph)
        g->api->graph_destroy(graph);
    g->api->stream_destroy(stream);
    return st;
}

typedef struct blob_args { double scale, mean[4], std[4]; int swap; } blob_args;
static gm_status op_blob(const gm_mat* s, gm_mat* d, const void* p)
{
    const blob_args* b = (const blob_args*)p;
    return gm_blob_from_image(s, d, b->scale, b->mean, b->std, b->swap, NULL);
}

static gm_status op_blob_params(const gm_mat* s, gm_mat* d, const void* p)
{
    return gm_blob_from_image_with_params(s, d, (const gm_blob_params*)p, NULL);
}

static const int64_t sizes[][2] = {{1, 1}, {1, 13}, {13, 1}, {3, 2}, {7, 4}, {37, 29}, {113, 113}, {176, 113}, {257, 3}};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
static const double alphas[][2] = {{1, 0}, {1.0 / 255, 0}, {-1.5, 7.25}, {255, 0.5}, {0.5, 0}, {1, 0.5}, {0.017, -2}};

/* Every specialization (S, D, CD) once, with a random source channel count,
 * map (swaps, repeats, constants), layouts, alpha/beta, size and batch. */
static void every_specialization(void)
{
    int S, D, cd, k = 0, c;
    char what[160];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (D = 0; D < GM_DTYPE_COUNT; ++D)
            for (cd = 1; cd <= 4; ++cd, ++k) {
                pair src, dst;
                gm_xform x = gm_xform_identity();
                const int64_t* sz = sizes[k % NSIZES];
                const double* ab = alphas[k % 7];
                int cs = (int)rnd(1, 4), batch = k % 5 == 0 ? 3 : 1;
                gm_layout ls = (gm_layout)(k & 1), ld = (gm_layout)((k >> 1) & 1);
                for (c = 0; c < cd; ++c) {
                    x.map[c] = (t_rand() % 8 == 0) ? GM_CONST : (int)(t_rand() % (uint64_t)cs);
                    x.pre[c] = (t_rand() % 3 == 0) ? -t_uniform(0, 130) : 0.0;
                    x.scale[c] = ab[0] * (c + 1);
                    x.offset[c] = ab[1] - c;
                }
                snprintf(what, sizeof what, "%s x%d %s -> %s x%d %s %lldx%lld b%d alpha %g", gm_dtype_name((gm_dtype)S),
                         cs, ls ? "chw" : "hwc", gm_dtype_name((gm_dtype)D), cd, ld ? "chw" : "hwc",
                         (long long)sz[0], (long long)sz[1], batch, ab[0]);
                if (!make_pair(&src, sz[0], sz[1], batch, (gm_dtype)S, cs, ls) ||
                    !make_pair(&dst, sz[0], sz[1], batch, (gm_dtype)D, cd, ld)) {
                    CHECK(0, "%s: setup failed", what);
                    continue;
                }
                compare_op(what, &src, &dst, op_transform, &x);
                free_pair(&src);
                free_pair(&dst);
            }
}

/* A resize, at the size ratio (ctx NULL) or at explicit scales. */
typedef struct resize_how {
    gm_interp interp;
    double fx, fy; /* 0: the size ratio */
} resize_how;

static gm_status op_resize(const gm_mat* s, gm_mat* d, const void* p)
{
    const resize_how* h = (const resize_how*)p;
    return h->fx > 0 ? gm_resize_scale(s, d, h->fx, h->fy, h->interp, NULL) : gm_resize(s, d, h->interp, NULL);
}

/* Every resize kernel (each dtype, channel count and sampler) against the
 * CPU path: sizes that reach each sampler (a non-integer downscale, exact 2x,
 * 3x and 5x (linear's one tap for the integers), an upscale, 1-pixel edges, an explicit scale whose last cells the
 * image cuts), each interpolation, random layouts, batches of 2 and 1.
 * some: u8 x3 and f32 x1 only (under compute-sanitizer). */
static void resizes(int some)
{
    static const int64_t rs[][4] = {{37, 29, 18, 14}, {40, 30, 20, 15}, {39, 27, 13, 9}, {45, 25, 9, 5},
                                    {13, 7, 40, 23},  {1, 13, 4, 5},    {13, 1, 3, 3}};
    enum { SIZES = sizeof rs / sizeof rs[0] };
    static const gm_interp interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_AREA, GM_INTER_LINEAR_EXACT};
    int T, c, i, z, k = 0, cases = 0;
    char what[160];
    for (T = 0; T < GM_DTYPE_COUNT; ++T)
        for (c = 1; c <= 4; ++c) {
            if (some && !((T == GM_U8 && c == 3) || (T == GM_F32 && c == 1)))
                continue;
            for (i = 0; i < 4; ++i) {
                for (z = 0; z <= SIZES; ++z, ++k) {
                    pair src, dst;
                    resize_how h;
                    int batch = k % 3 == 0 ? 2 : 1;
                    int64_t sw = z < SIZES ? rs[z][0] : 31, sh = z < SIZES ? rs[z][1] : 17;
                    int64_t dw = z < SIZES ? rs[z][2] : 16, dh = z < SIZES ? rs[z][3] : 8;
                    gm_layout ls = (gm_layout)(k & 1), ld = (gm_layout)((k >> 1) & 1);
                    h.interp = interps[i];
                    h.fx = z < SIZES ? 0 : 0.5; /* 31 x 0.5 rounds to 16: the last cell is cut */
                    h.fy = z < SIZES ? 0 : 0.5;
                    snprintf(what, sizeof what, "resize %s x%d %s -> %s %lldx%lld -> %lldx%lld b%d interp %d%s",
                             gm_dtype_name((gm_dtype)T), c, ls ? "chw" : "hwc", ld ? "chw" : "hwc", (long long)sw,
                             (long long)sh, (long long)dw, (long long)dh, batch, (int)h.interp, h.fx > 0 ? " fx 0.5" : "");
                    if (!make_pair(&src, sw, sh, batch, (gm_dtype)T, c, ls) ||
                        !make_pair(&dst, dw, dh, batch, (gm_dtype)T, c, ld)) {
                        CHECK(0, "%s: setup failed", what);
                        continue;
                    }
                    compare_op(what, &src, &dst, op_resize, &h);
                    ++cases;
                    free_pair(&src);
                    free_pair(&dst);
                }
            }
        }
    printf("gpu: %d resize cases\n", cases);
}

/* A warp: the matrices (per item where params.per_item) and the params. */
typedef struct warp_how {
    double M[3 * 9];
    gm_warp_params params;
    int perspective;
} warp_how;

static gm_status op_warp(const gm_mat* s, gm_mat* d, const void* p)
{
    const warp_how* h = (const warp_how*)p;
    return h->perspective ? gm_warp_perspective(s, d, h->M, &h->params, NULL)
                          : gm_warp_affine(s, d, h->M, &h->params, NULL);
}

/* Item i's forward matrix of a sw x sh source and a dw x dh destination:
 * a rotation and scale about a point of the source, moved about, or a
 * quad of the destination's corners moved about; some reach far past the
 * source, so every border path runs. */
static void warp_matrix(int perspective, int64_t sw, int64_t sh, int64_t dw, int64_t dh, double* M)
{
    if (perspective) {
        float s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, d[8];
        int k;
        s[2] = s[4] = (float)sw, s[5] = s[7] = (float)sh;
        for (k = 0; k < 8; ++k)
            d[k] = s[k] * (float)(k % 2 ? (double)dh / sh : (double)dw / sw) +
                   (float)t_uniform(-0.4, 0.4) * (float)(k % 2 ? dh : dw);
        if (gm_perspective_from_points(s, d, M) == GM_OK)
            return;
        memset(M, 0, 9 * sizeof *M);
        M[0] = M[4] = M[8] = 1;
        return;
    }
    gm_rotation_matrix((float)t_uniform(0, (double)sw), (float)t_uniform(0, (double)sh), t_uniform(-180, 180),
                       (double)dw / sw * t_uniform(0.4, 2.5), M);
    M[2] += t_uniform(-0.5, 0.5) * dw, M[5] += t_uniform(-0.5, 0.5) * dh;
}

/* Every warp kernel (each dtype, channel count and sampler, the OpenCV 5
 * mode's NEAREST and LINEAR too) against the CPU path, by every border,
 * affine and perspective, forward and inverse, random layouts, batches of
 * 3 (each item its matrix, or one source for all) and 1; some: u8 x3 and
 * f32 x1 only (under compute-sanitizer). */
static void warps(int some)
{
    static const gm_interp interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_CUBIC, GM_INTER_NEAREST,
                                        GM_INTER_LINEAR};
    int T, c, i, border, k = 0, cases = 0;
    char what[200];
    for (T = 0; T < GM_DTYPE_COUNT; ++T)
        for (c = 1; c <= 4; ++c) {
            if (some && !((T == GM_U8 && c == 3) || (T == GM_F32 && c == 1)))
                continue;
            for (i = 0; i < 5; ++i)
                for (border = GM_BORDER_CONSTANT; border <= GM_BORDER_TRANSPARENT; ++border, ++k) {
                    pair src, dst;
                    warp_how h;
                    int m, batch = k % 3 == 0 ? 3 : 1, shared = k % 6 == 3;
                    int64_t sw = rnd(1, 60), sh = rnd(1, 40), dw = rnd(1, 50), dh = rnd(1, 40);
                    gm_layout ls = (gm_layout)(k & 1), ld = (gm_layout)((k >> 1) & 1);
                    memset(&h, 0, sizeof h);
                    h.perspective = k % 4 >= 2;
                    h.params.interp = interps[i];
                    h.params.mode = i >= 3 ? GM_WARP_OPENCV5 : GM_WARP_OPENCV4;
                    h.params.border = (gm_border)border;
                    h.params.inverse = k % 5 == 0;
                    h.params.per_item = batch > 1 && k % 2 == 0;
                    for (m = 0; m < 4; ++m)
                        h.params.value[m] = t_uniform(-100, 300);
                    for (m = 0; m < 3; ++m)
                        warp_matrix(h.perspective, sw, sh, dw, dh, h.M + 9 * m);
                    if (!h.perspective) /* the affine matrices one after another */
                        for (m = 1; m < 3; ++m)
                            memmove(h.M + 6 * m, h.M + 9 * m, 6 * sizeof *h.M);
                    snprintf(what, sizeof what, "warp %s %s x%d %s -> %s %lldx%lld -> %lldx%lld b%d%s%s interp %d "
                             "border %d%s mode %d", h.perspective ? "perspective" : "affine", gm_dtype_name((gm_dtype)T), c,
                             ls ? "chw" : "hwc", ld ? "chw" : "hwc", (long long)sw, (long long)sh, (long long)dw,
                             (long long)dh, batch, h.params.per_item ? " per item" : "", shared ? " shared" : "",
                             (int)h.params.interp, border, h.params.inverse ? " inverse" : "", (int)h.params.mode);
                    if (!make_pair(&src, sw, sh, shared ? 1 : batch, (gm_dtype)T, c, ls) ||
                        !make_pair(&dst, dw, dh, batch, (gm_dtype)T, c, ld)) {
                        CHECK(0, "%s: setup failed", what);
                        continue;
                    }
                    compare_op(what, &src, &dst, op_warp, &h);
                    ++cases;
                    free_pair(&src);
                    free_pair(&dst);
                }
        }
    printf("gpu: %d warp cases\n", cases);
}

/* A gm_preprocess_batch of count items of one frame: item i is a view of
 * the frame's top-left (i % 3 + 1) / 3 (sizes differ) cropped to a rectangle
 * that moves with i, or the whole view. On the GPU it takes one launch for
 * each kind of item (gm__prep_kind) and GM__PREP_ITEMS_MANY items. */
typedef struct prep_how {
    gm_prep prep;
    int count;
} prep_how;

static gm_status op_prep(const gm_mat* s, gm_mat* d, const void* p)
{
    const prep_how* h = (const prep_how*)p;
    gm_mat views[300];
    gm_rect crops[300];
    static gm__prep_place places[300];
    gm__plan plan;
    unsigned kinds;
    int per_kind[2 * GM__SAMPLER_COUNT] = {0};
    long before = generic_launches, expect = 0;
    int i;
    gm_status st;
    for (i = 0; i < h->count; ++i) {
        int64_t w = s->width * (i % 3 + 1) / 3, hh = s->height * ((i + 1) % 3 + 1) / 3;
        if ((st = gm_roi(s, &views[i], 0, 0, w < 1 ? 1 : w, hh < 1 ? 1 : hh)) != GM_OK)
            return st;
        crops[i].x = i % 2 ? i % (views[i].width > 1 ? views[i].width / 2 : 1) : 0;
        crops[i].y = i % 2 ? i % (views[i].height > 1 ? views[i].height / 2 : 1) : 0;
        crops[i].width = views[i].width - crops[i].x;
        crops[i].height = views[i].height - crops[i].y;
    }
    if (h->count == 1)
        st = gm_preprocess(&views[0], &crops[0], d, &h->prep, NULL, NULL);
    else
        st = gm_preprocess_batch(views, crops, h->count, d, &h->prep, NULL, NULL);
    if (st == GM_OK && d->where == GM_DEVICE) {
        if (gm__check_prep("op_prep", views, NULL, crops, h->count, d, &h->prep) == GM_OK &&
            gm__prep_plan("op_prep", views, NULL, crops, h->count, d, &h->prep, &plan, places, &kinds) == GM_OK)
            for (i = 0; i < h->count; ++i)
                ++per_kind[places[i].kind];
        const int most = h->prep.fit == GM_FIT_WARP ? GM__PREP_WARP_ITEMS_MANY : GM__PREP_ITEMS_MANY;
        for (i = 0; i < 2 * GM__SAMPLER_COUNT; ++i)
            expect += (per_kind[i] + most - 1) / most;
        CHECK(generic_launches - before == expect, "gm_preprocess_batch of %d items: %ld launches, %ld expected",
              h->count, generic_launches - before, expect);
    }
    return st;
}

/* Matrices for the warp placement's items, one after another (9 doubles
 * each where perspective, else 6): item i's a rotation and scale about the
 * centre of a w x h crop, moved by up to half the size (parts fall
 * outside), the 3x3's with a tilt. */
static const double* warp_items(int64_t w, int64_t h, int perspective)
{
    static double M[300 * 9];
    const int n = perspective ? 9 : 6;
    int i;
    for (i = 0; i < 300; ++i) {
        const double a = 0.37 * i - 2.0, sc = 0.4 + 0.13 * (i % 17), tx = w * (0.05 * (i % 11) - 0.25),
                     ty = h * (0.04 * (i % 13) - 0.25);
        double* m = M + n * i;
        m[0] = sc * cos(a), m[1] = -sc * sin(a), m[3] = sc * sin(a), m[4] = sc * cos(a);
        m[2] = w / 2.0 - m[0] * w / 2.0 - m[1] * h / 2.0 + tx;
        m[5] = h / 2.0 - m[3] * w / 2.0 - m[4] * h / 2.0 + ty;
        if (perspective)
            m[6] = 0.002 * (i % 5 - 2) / (double)(w + 1), m[7] = 0.003 * (i % 3 - 1) / (double)(h + 1), m[8] = 1.0;
    }
    return M;
}

/* A warp placement's fields for case k: its matrices (warp_items), the
 * border, 2x3 or 3x3, forward or inverse, turn by turn; none of the
 * letterbox's options. */
static void warp_prep(gm_prep* p, int k, int64_t w, int64_t h)
{
    p->fit = GM_FIT_WARP;
    p->perspective = k / 2 % 2;
    p->warp = warp_items(w, h, p->perspective);
    p->border = (gm_border)(k % 6);
    p->inverse = k % 5 == 0;
    p->top_left = p->no_upscale = p->stride = 0;
}

/* Every pre-process kernel (source dtype, destination dtype, source
 * channels, sampler) against the CPU path, placements, channel maps and
 * layouts taking turns, one item or a batch of more items than a launch's
 * parameters hold (35: a table; items of several samplers). Each
 * interpolation meets each of the first four sizes; the last is a whole 2x
 * for the first item's view (a third of the width, two thirds of the
 * height), so linear and area run area_fast there. arith: the product in
 * double (GM_BLOB_DOUBLE: the prep_double rows, into f32 and f16 only).
 * warp: the warp placement instead (its rows, the product in float or in
 * double; 160 items, more than a launch carries, in one case).
 * some: u8 x3 into f32 and f16 only (under compute-sanitizer). */
static void preps(int some, int arith, int warp)
{
    static const gm_dtype srcs[] = {GM_U8, GM_U16, GM_F32}, dsts[] = {GM_U8, GM_F16, GM_BF16, GM_F32};
    static const int channels[] = {1, 3, 4}, map[4] = {2, 0, 0, 1};
    static const int64_t sizes[][4] = {
        {37, 29, 20, 20}, {40, 30, 20, 15}, {13, 7, 40, 23}, {64, 36, 16, 16}, {96, 48, 16, 16}, {50, 40, 11, 17}};
    int s, d, c, z, k = 0, cases = 0, missing = 0;
    char what[220];
    for (s = 0; s < 3; ++s)
        for (d = 0; d < 4; ++d)
            for (c = 0; c < 3; ++c) {
                if (some && !(srcs[s] == GM_U8 && channels[c] == 3 && (dsts[d] == GM_F32 || dsts[d] == GM_F16)))
                    continue;
                if (arith && dsts[d] != GM_F32 && dsts[d] != GM_F16)
                    continue;
                for (z = 0; z < 6; ++z, ++k) {
                    pair src, dst;
                    prep_how h;
                    int dch = channels[c] == 1 ? (k % 2 ? 3 : 1) : channels[c] == 4 && k % 4 == 3 ? 4 : 3, ci;
                    gm_layout ld = (gm_layout)(k & 1);
                    memset(&h, 0, sizeof h);
                    h.count = (k + k / 6) % 6 == 2 ? 35 : warp && k % 37 == 4 ? 160 : 1;
                    h.prep.fit = (gm_fit)(k % 3);
                    h.prep.rule = (gm_letterbox_rule)((k / 3) % 3);
                    h.prep.interp = (gm_prep_interp)(z < 4 ? (z + s + d + c) % 4 : z == 5 || k % 2 ? GM_PREP_AREA : GM_PREP_LINEAR);
                    h.prep.top_left = k % 7 == 1 && h.prep.fit == GM_FIT_LETTERBOX &&
                                      h.prep.rule != GM_LETTERBOX_OPENCV_DNN; /* the rules that have it */
                    h.prep.swap_rb = channels[c] >= 3 && k % 3 == 1;
                    h.prep.channel_map = channels[c] == 4 && k % 3 == 2 ? map : NULL;
                    h.prep.divide = !arith && k % 6 == 5;
                    h.prep.arith = arith ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
                    if (h.count == 1 && h.prep.fit == GM_FIT_LETTERBOX && h.prep.rule == GM_LETTERBOX_ULTRALYTICS)
                        h.prep.stride = k % 2 ? 3 + k % 5 : 0; /* auto: the rest of dst kept */
                    if (warp) {
                        static const gm_interp interps[] = {GM_INTER_LINEAR, GM_INTER_NEAREST, GM_INTER_CUBIC,
                                                            GM_INTER_AREA};
                        warp_prep(&h.prep, k, sizes[z][0], sizes[z][1]);
                        h.prep.interp = interps[(z + s + d + c) % 4];
                        h.prep.arith = (dsts[d] == GM_F32 || dsts[d] == GM_F16) && k % 3 == 0 ? GM_BLOB_DOUBLE
                                                                                               : GM_BLOB_FLOAT;
                        h.prep.divide = h.prep.divide && h.prep.arith == GM_BLOB_FLOAT;
                    }
                    for (ci = 0; ci < 4; ++ci) {
                        h.prep.pad[ci] = 114 + ci;
                        h.prep.mean[ci] = dsts[d] == GM_U8 ? 0 : 100 + 10 * ci;
                        h.prep.scale[ci] = dsts[d] == GM_U8 ? 0 : 1.0 / (50 + ci);
                    }
                    snprintf(what, sizeof what, "preprocess %s x%d -> %s x%d %s %lldx%lld -> %lldx%lld x%d fit %d rule %d "
                             "interp %d stride %d arith %d", gm_dtype_name(srcs[s]), channels[c], gm_dtype_name(dsts[d]),
                             dch, ld ? "chw" : "hwc", (long long)sizes[z][0], (long long)sizes[z][1],
                             (long long)sizes[z][2], (long long)sizes[z][3], h.count, (int)h.prep.fit,
                             (int)h.prep.rule, (int)h.prep.interp, h.prep.stride, arith);
                    if (!make_pair(&src, sizes[z][0], sizes[z][1], 1, srcs[s], channels[c], GM_HWC) ||
                        !make_pair(&dst, sizes[z][2], sizes[z][3], h.count, dsts[d], dch, ld)) {
                        CHECK(0, "%s: setup failed", what);
                        continue;
                    }
                    compare_op(what, &src, &dst, op_prep, &h);
                    ++cases;
                    free_pair(&src);
                    free_pair(&dst);
                }
            }
    printf("gpu: %d preprocess cases%s\n", cases, warp ? " of the warp placement" : arith ? " with the product in double" : "");
    for (k = 0; !some && k < GM__KERNEL_COUNT; ++k)
        if (gm__kernels[k].family == (warp ? GM__FAMILY_PREP_WARP : arith ? GM__FAMILY_PREP_DOUBLE : GM__FAMILY_PREP) &&
            !launched[k] && missing++ < 5)
            printf("gpu: %s never ran\n", gm__kernels[k].name);
    CHECK(missing == 0, "%d pre-process kernels never ran", missing);
}

/* The tile path of the u8 resize and pre-process kernels (templates/resize.cu)
 * against the CPU path, on sizes wider than a block's columns and taller
 * than its runs: an upscale, the exact 2x (the area mean), 3x along x
 * (second taps of weight 0; 3x along both axes is one tap, NEAREST), a
 * source 2 pixels wide (the right edge's one tap), AREA's upscale in one
 * axis; and the cases the host must leave to the per-pixel path (a
 * 1-pixel-wide source, planar channels, area cells the image cuts), each
 * checked by the trace. Then pre-processes through it: letterbox,
 * crop-centre and stretch, one item, 35 or 250 (more than one launch
 * takes) of one frame, into f32, f16 and u8, NCHW and NHWC; and through
 * the pre-process's point path (templates/prep.cu: NEAREST, LINEAR by 3x
 * along both axes, offsets on both: op_prep's first item is the source's
 * top-left third by two thirds, 390x270 of 1170x405), one item, 3 of
 * different sizes (one by 3 x 1, the others the tile path's), 35. some: fewer sizes (under
 * compute-sanitizer). */
static void tiles(int some)
{
    static const struct {
        int64_t sw, sh, dw, dh;
        double fx;
        gm_interp interp;
        int tile; /* 0: the per-pixel path; 1: the tile path; 2: but for 2 channels (the area mean); 3: for 1 channel
                     only (planar channels); 4: but for 4 channels (their slots would not fit GM__TILE_SHARED_MAX) */
        gm_layout ls;
    } rs[] = {{300, 200, 517, 333, 0, GM_INTER_LINEAR, 1, GM_HWC},   {600, 260, 300, 130, 0, GM_INTER_LINEAR, 2, GM_HWC},
              {390, 270, 130, 108, 0, GM_INTER_LINEAR, 4, GM_HWC},    {2, 300, 150, 700, 0, GM_INTER_LINEAR, 1, GM_HWC},
              {640, 48, 200, 1000, 0, GM_INTER_AREA, 4, GM_HWC},     {301, 201, 150, 100, 0.5, GM_INTER_AREA, 2, GM_HWC},
              {1, 300, 150, 70, 0, GM_INTER_LINEAR, 0, GM_HWC},      {303, 203, 152, 102, 0.5, GM_INTER_AREA, 0, GM_HWC},
              {300, 200, 517, 333, 0, GM_INTER_LINEAR, 3, GM_CHW}};
    static const struct {
        int64_t sw, sh, dw, dh;
        gm_fit fit;
        gm_prep_interp interp;
        int count, points; /* points: the point path runs, not the tile path */
    } ps[] = {{500, 300, 256, 256, GM_FIT_LETTERBOX, GM_PREP_LINEAR, 1, 0}, {390, 270, 131, 131, GM_FIT_LETTERBOX, GM_PREP_LINEAR, 1, 0},
              {320, 192, 160, 96, GM_FIT_STRETCH, GM_PREP_LINEAR, 1, 0},    {300, 200, 150, 250, GM_FIT_CROP_CENTER, GM_PREP_AREA, 1, 0},
              {700, 500, 200, 150, GM_FIT_LETTERBOX, GM_PREP_LINEAR, 35, 0}, {700, 500, 96, 64, GM_FIT_STRETCH, GM_PREP_LINEAR, 250, 0},
              {1170, 405, 130, 90, GM_FIT_STRETCH, GM_PREP_LINEAR, 1, 1},    {390, 270, 130, 90, GM_FIT_STRETCH, GM_PREP_LINEAR, 3, 1},     {333, 201, 160, 160, GM_FIT_LETTERBOX, GM_PREP_NEAREST, 35, 1},
              {250, 190, 97, 131, GM_FIT_CROP_CENTER, GM_PREP_NEAREST, 1, 1}};
    static const gm_dtype dsts[] = {GM_F32, GM_F16, GM_U8};
    int i, c, k = 0, cases = 0;
    char what[200];
    for (i = 0; i < (int)(sizeof rs / sizeof rs[0]); ++i)
        for (c = 1; c <= 4; ++c, ++k) {
            pair src, dst;
            resize_how h;
            long before = tile_launches;
            int batch = k % 3 == 0 ? 2 : 1;
            gm_layout ld = (gm_layout)(k & 1);
            if (some && c != 3)
                continue;
            h.interp = rs[i].interp, h.fx = h.fy = rs[i].fx;
            snprintf(what, sizeof what, "tile resize u8 x%d %s -> %s %lldx%lld -> %lldx%lld b%d interp %d%s", c,
                     rs[i].ls ? "chw" : "hwc", ld ? "chw" : "hwc", (long long)rs[i].sw, (long long)rs[i].sh,
                     (long long)rs[i].dw, (long long)rs[i].dh, batch, (int)h.interp, h.fx > 0 ? " fx 0.5" : "");
            if (!make_pair(&src, rs[i].sw, rs[i].sh, batch, GM_U8, c, rs[i].ls) ||
                !make_pair(&dst, rs[i].dw, rs[i].dh, batch, GM_U8, c, ld)) {
                CHECK(0, "%s: setup failed", what);
                continue;
            }
            compare_op(what, &src, &dst, op_resize, &h);
            CHECK((tile_launches > before) == (rs[i].tile == 1 || (rs[i].tile == 2 && c != 2) || (rs[i].tile == 3 && c == 1) ||
                                               (rs[i].tile == 4 && c != 4)),
                  "%s: %ld tile-path launches", what, tile_launches - before);
            ++cases;
            free_pair(&src);
            free_pair(&dst);
        }
    for (i = 0; i < (int)(sizeof ps / sizeof ps[0]); ++i)
        for (c = 1; c <= 4; c += c == 1 ? 2 : 1, ++k) {
            pair src, dst;
            prep_how h;
            long before = ps[i].points ? point_launches : tile_launches;
            gm_dtype dt = dsts[k % 3];
            gm_layout ld = (gm_layout)(k & 1);
            int ci;
            if (some && c != 3)
                continue;
            memset(&h, 0, sizeof h);
            h.count = ps[i].count;
            h.prep.fit = ps[i].fit;
            h.prep.interp = ps[i].interp;
            h.prep.rule = (gm_letterbox_rule)(k % 3);
            h.prep.swap_rb = c >= 3 && k % 2;
            h.prep.divide = k % 4 == 3;
            h.prep.arith = dt != GM_U8 && k % 4 == 1 ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
            for (ci = 0; ci < 4; ++ci) {
                h.prep.pad[ci] = 114 + ci;
                h.prep.mean[ci] = dt == GM_U8 ? 0 : 100 + 10 * ci;
                h.prep.scale[ci] = dt == GM_U8 ? 0 : 1.0 / (50 + ci);
            }
            snprintf(what, sizeof what, "%s preprocess u8 x%d -> %s %s %lldx%lld -> %lldx%lld x%d fit %d interp %d arith %d",
                     ps[i].points ? "point" : "tile", c, gm_dtype_name(dt), ld ? "chw" : "hwc", (long long)ps[i].sw, (long long)ps[i].sh, (long long)ps[i].dw,
                     (long long)ps[i].dh, h.count, (int)h.prep.fit, (int)h.prep.interp, (int)h.prep.arith);
            if (!make_pair(&src, ps[i].sw, ps[i].sh, 1, GM_U8, c, GM_HWC) ||
                !make_pair(&dst, ps[i].dw, ps[i].dh, h.count, dt, c, ld)) {
                CHECK(0, "%s: setup failed", what);
                continue;
            }
            compare_op(what, &src, &dst, op_prep, &h);
            if (ps[i].points)
                CHECK(point_launches > before, "%s: the point path never ran", what);
            else
                CHECK(tile_launches > before, "%s: the tile path never ran", what);
            ++cases;
            free_pair(&src);
            free_pair(&dst);
        }
    printf("gpu: %d tile- and point-path cases\n", cases);
}

/* The whole-2x kernels (templates/twice.cu) against the CPU path, u8 and
 * the floating dtypes, every channel count, over whole destination parents:
 * doubling sources 1 to 515 columns wide (a thread's columns cut by the
 * edge; u8's halo read as a word or, where a word would run past the row,
 * byte by byte; 1-pixel images) and the explicit scale 2; halving,
 * odd sources included, and widths whose last 1 to 3 columns OpenCV sums
 * in row order rather than pairs (1 channel); batches of 2. Aligned views
 * take them (u8's 2 channels only doubling: OpenCV's integer 2x2 mean has
 * no 2 channels); the same with odd pitches, and an explicit 0.5 whose
 * last cells the image cuts, must not. some: 3 and 4 channels (under
 * compute-sanitizer; 4 for the rows staged through shared memory). */
static void twices(int some)
{
    static const struct {
        int64_t sw, sh, dw, dh;
        double fx;
        gm_interp interp;
        int aligned;
    } rs[] = {{37, 11, 74, 22, 0, GM_INTER_LINEAR, 1},      {1, 1, 2, 2, 0, GM_INTER_LINEAR, 1},
              {3, 5, 6, 10, 0, GM_INTER_LINEAR, 1},         {128, 3, 256, 6, 0, GM_INTER_LINEAR, 1},
              {515, 9, 1030, 18, 0, GM_INTER_LINEAR, 1},    {130, 1, 260, 2, 2, GM_INTER_LINEAR, 1},
              {37, 11, 74, 22, 0, GM_INTER_LINEAR, 0},      {73, 21, 36, 10, 0.5, GM_INTER_AREA, 1},
              {2, 2, 1, 1, 0, GM_INTER_LINEAR, 1},          {600, 40, 300, 20, 0, GM_INTER_LINEAR, 1},
              {1030, 6, 515, 3, 0.5, GM_INTER_AREA, 1},     {600, 40, 300, 20, 0, GM_INTER_AREA, 0},
              {75, 23, 38, 12, 0.5, GM_INTER_AREA, 1},      {129, 5, 258, 10, 0, GM_INTER_LINEAR, 1},
              {46, 8, 23, 4, 0, GM_INTER_AREA, 1},          {42, 6, 21, 3, 0, GM_INTER_LINEAR, 1}};
    static const gm_dtype dtypes[] = {GM_U8, GM_F32, GM_F16, GM_BF16};
    int i, c, t, k = 0, cases = 0;
    char what[200];
    for (t = 0; t < (int)(sizeof dtypes / sizeof dtypes[0]); ++t)
        for (i = 0; i < (int)(sizeof rs / sizeof rs[0]); ++i)
            for (c = 1; c <= 4; ++c, ++k) {
                pair src, dst;
                resize_how h;
                gm_dtype dt = dtypes[t];
                int batch = k % 3 == 0 ? 2 : 1, up = rs[i].dw > rs[i].sw, kernel, ran;
                int whole = up ? rs[i].dw == 2 * rs[i].sw && rs[i].dh == 2 * rs[i].sh
                               : 2 * rs[i].dw <= rs[i].sw && 2 * rs[i].dh <= rs[i].sh;
                if (some && c < 3)
                    continue;
                h.interp = rs[i].interp, h.fx = h.fy = rs[i].fx;
                kernel = gm__twice_row[dt][c - 1][up ? GM__SAMPLER_LINEAR : GM__SAMPLER_AREA_FAST];
                snprintf(what, sizeof what, "whole-2x resize %s x%d %lldx%lld -> %lldx%lld b%d interp %d fx %g%s",
                         gm_dtype_name(dt), c, (long long)rs[i].sw, (long long)rs[i].sh, (long long)rs[i].dw,
                         (long long)rs[i].dh, batch, (int)h.interp, h.fx, rs[i].aligned ? "" : " unaligned");
                if (!make_pair_at(&src, rs[i].sw, rs[i].sh, batch, dt, c, GM_HWC, rs[i].aligned) ||
                    !make_pair_at(&dst, rs[i].dw, rs[i].dh, batch, dt, c, GM_HWC, rs[i].aligned)) {
                    CHECK(0, "%s: setup failed", what);
                    continue;
                }
                if (kernel >= 0)
                    launched[kernel] = 0;
                compare_op(what, &src, &dst, op_resize, &h);
                ran = kernel >= 0 && launched[kernel];
                CHECK(ran == (rs[i].aligned && (up || c != 2 || dt != GM_U8) && whole),
                      "%s: the whole-2x kernel %s", what, ran ? "ran" : "did not run");
                ++cases;
                free_pair(&src);
                free_pair(&dst);
            }
    printf("gpu: %d whole-2x cases\n", cases);
}

/* Random bits in every element of m's parent (NaN with payloads,
 * infinities, subnormals, the largest numbers), a fifth of them zeros of
 * either sign. */
static void fill_special(gm_mat* m)
{
    int64_t n = gm_span_bytes(m), es = (int64_t)gm_dtype_size(m->dtype), i;
    unsigned char* b = (unsigned char*)m->data;
    for (i = 0; i + es <= n; i += es) {
        uint64_t r = t_rand();
        if (r % 5 == 0)
            r = (r >> 8 & 1) << (8 * es - 1);
        memcpy(b + i, &r, (size_t)es);
    }
}

/* The first byte where two interleaved views of one size differ, counted
 * along their rows; -1: none. */
static int64_t first_diff_view(const gm_mat* a, const gm_mat* b)
{
    int64_t row = a->width * a->channels * (int64_t)gm_dtype_size(a->dtype), y, x;
    for (y = 0; y < a->height; ++y)
        for (x = 0; x < row; ++x)
            if (((const unsigned char*)a->data)[y * a->pitch + x] != ((const unsigned char*)b->data)[y * b->pitch + x])
                return y * row + x;
    return -1;
}

/* The float whole-2x kernels against the per-pixel kernel, bit for bit, on
 * sources of fill_special: the CPU path keeps NaN payloads that the GPU's
 * arithmetic does not, so the reference here is the GPU's per-pixel
 * kernel, which views whose pitch is not a multiple of 16 take. */
static void twice_specials(void)
{
    static const struct {
        int64_t sw, sh, dw, dh;
        gm_interp interp;
    } rs[] = {{37, 11, 74, 22, GM_INTER_LINEAR},
              {1, 3, 2, 6, GM_INTER_LINEAR},
              {74, 22, 37, 11, GM_INTER_AREA},
              {46, 8, 23, 4, GM_INTER_AREA}};
    static const gm_dtype dtypes[] = {GM_F32, GM_F16, GM_BF16};
    int i, c, t, cases = 0;
    char what[160];
    for (t = 0; t < (int)(sizeof dtypes / sizeof dtypes[0]); ++t)
        for (i = 0; i < (int)(sizeof rs / sizeof rs[0]); ++i)
            for (c = 1; c <= 4; ++c) {
                pair fast_src, fast_dst, ref_src, ref_dst;
                gm_dtype dt = dtypes[t];
                int up = rs[i].dw > rs[i].sw, kernel = gm__twice_row[dt][c - 1][up ? GM__SAMPLER_LINEAR : GM__SAMPLER_AREA_FAST];
                int64_t at;
                snprintf(what, sizeof what, "whole-2x special values %s x%d %lldx%lld -> %lldx%lld", gm_dtype_name(dt),
                         c, (long long)rs[i].sw, (long long)rs[i].sh, (long long)rs[i].dw, (long long)rs[i].dh);
                if (kernel < 0) {
                    CHECK(0, "%s: no whole-2x kernel", what);
                    continue;
                }
                if (!make_pair_at(&fast_src, rs[i].sw, rs[i].sh, 1, dt, c, GM_HWC, 1) ||
                    !make_pair_at(&fast_dst, rs[i].dw, rs[i].dh, 1, dt, c, GM_HWC, 1) ||
                    !make_pair_at(&ref_src, rs[i].sw, rs[i].sh, 1, dt, c, GM_HWC, 0) ||
                    !make_pair_at(&ref_dst, rs[i].dw, rs[i].dh, 1, dt, c, GM_HWC, 0)) {
                    CHECK(0, "%s: setup failed", what);
                    continue;
                }
                fill_special(&fast_src.host);
                fill(&ref_src.host);
                CHECK(gm_copy(&fast_src.host_roi, &ref_src.host_roi, NULL) == GM_OK && sync_up(&fast_src) &&
                          sync_up(&ref_src),
                      "%s: setup: %s", what, gm_last_error());
                launched[kernel] = 0;
                CHECK(gm_resize(&fast_src.dev_roi, &fast_dst.dev_roi, rs[i].interp, NULL) == GM_OK && launched[kernel],
                      "%s: the whole-2x kernel did not run: %s", what, gm_last_error());
                launched[kernel] = 0;
                CHECK(gm_resize(&ref_src.dev_roi, &ref_dst.dev_roi, rs[i].interp, NULL) == GM_OK && !launched[kernel],
                      "%s: the reference took the whole-2x kernel: %s", what, gm_last_error());
                CHECK(sync_down(&fast_dst) && sync_down(&ref_dst), "%s: download failed: %s", what, gm_last_error());
                at = first_diff_view(&fast_dst.host_roi, &ref_dst.host_roi);
                CHECK(at < 0, "%s: whole-2x != per-pixel kernel at byte %lld", what, (long long)at);
                ++cases;
                free_pair(&fast_src);
                free_pair(&fast_dst);
                free_pair(&ref_src);
                free_pair(&ref_dst);
            }
    printf("gpu: %d whole-2x special-value cases\n", cases);
}

/* Whether every row, plane and image start of m is a multiple of what the
 * fast kernel with P pixels a unit needs: the widest of 16, 8, 4, 2, 1
 * bytes dividing a unit's run (P pixels interleaved, or P of one plane). */
static int unit_aligned(const gm_mat* m, int p)
{
    int64_t run = p * (int64_t)gm_dtype_size(m->dtype) * (m->layout == GM_HWC ? m->channels : 1), u = 16;
    int c, planes = m->layout == GM_HWC ? 1 : m->channels, ok;
    while (run % u)
        u /= 2;
    ok = m->pitch % u == 0 && (m->batch < 2 || m->batch_pitch % u == 0);
    for (c = 0; c < planes; ++c)
        ok &= ((uintptr_t)m->data + (uint64_t)(c * m->plane_pitch)) % (uint64_t)u == 0;
    return ok;
}

/* Every fast kernel (same channel count; each dtype pair, channel count and
 * layout pair) on aligned memory, with widths that leave a ragged row end,
 * both launch kinds (plain, scaled); and the same transforms on misaligned
 * memory or with a constant channel, which must take another kernel (the
 * generic one; the fill, where the one channel is the constant) and give
 * the same bytes. */
static void fast_paths(void)
{
    int S, D, c, k = 0, ls, ld, cn;
    char what[160];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (D = 0; D < GM_DTYPE_COUNT; ++D)
            for (cn = 1; cn <= 4; ++cn)
                for (ls = 0; ls < 2; ++ls)
                    for (ld = 0; ld < 2; ++ld, ++k) {
                        pair src, dst;
                        gm_xform x = gm_xform_identity();
                        int kind = k % 3, aligned = k % 7 != 3, batch = k % 4 == 1 ? 2 : 1;
                        int64_t w = 16 * (1 + k % 5) + k % 17, h = 1 + k % 9;
                        long fast0 = fast_launches, generic0 = generic_launches;
                        for (c = 0; c < cn; ++c) {
                            x.map[c] = cn - 1 - c; /* reversed: BGR <-> RGB and friends */
                            if (kind > 0) {
                                x.pre[c] = c == 1 ? -t_uniform(0, 130) : 0.0;
                                x.scale[c] = alphas[k % 7][0] * (c + 1);
                                x.offset[c] = alphas[k % 7][1] - c - 0.25; /* never plain */
                            }
                        }
                        if (kind == 2)
                            x.map[cn - 1] = GM_CONST;
                        snprintf(what, sizeof what, "fast %s -> %s x%d %s -> %s %lldx%lld b%d kind %d %s",
                                 gm_dtype_name((gm_dtype)S), gm_dtype_name((gm_dtype)D), cn, ls ? "chw" : "hwc",
                                 ld ? "chw" : "hwc", (long long)w, (long long)h, batch, kind,
                                 aligned ? "aligned" : "misaligned");
                        if (!make_pair_at(&src, w, h, batch, (gm_dtype)S, cn, (gm_layout)ls, aligned) ||
                            !make_pair_at(&dst, w, h, batch, (gm_dtype)D, cn, (gm_layout)ld, aligned)) {
                            CHECK(0, "%s: setup failed", what);
                            continue;
                        }
                        compare_op(what, &src, &dst, op_transform, &x);
                        /* the reversed map folds into plane addresses unless both sides interleave;
                         * misaligned memory may still suit a unit that needs little alignment */
                        int foldable = kind < 2 && (cn == 1 || ls == 1 || ld == 1);
                        int p = fast_kernel(S, D, cn, ls, ld)->pixels;
                        int fits = unit_aligned(&src.dev_roi, p) && unit_aligned(&dst.dev_roi, p);
                        CHECK(!aligned || fits, "%s: aligned memory fails the fast kernel's alignment", what);
                        if (foldable && fits)
                            CHECK(fast_launches == fast0 + 1, "%s: the fast kernel did not run", what);
                        else
                            CHECK(generic_launches == generic0 + 1, "%s: the generic kernel did not run", what);
                        free_pair(&src);
                        free_pair(&dst);
                    }
}

/* compare_op for a transform that must take the fast kernel; frees both
 * pairs. */
static void compare_fast_and_free(const char* what, pair* src, pair* dst, const gm_xform* x)
{
    long fast0 = fast_launches;
    compare_op(what, src, dst, op_transform, x);
    CHECK(fast_launches == fast0 + 1, "%s: the fast kernel did not run", what);
    free_pair(src);
    free_pair(dst);
}

/* Whole images without row padding, batches back to back: the host joins
 * their rows into one long row (a batch into one too where it is
 * interleaved), so a warp task runs across row and image boundaries. Same
 * bytes as the CPU path, on the fast kernel. */
static int make_dense(pair* p, int64_t w, int64_t h, int batch, gm_dtype dt, int cn, gm_layout lay)
{
    gm_desc d;
    memset(&d, 0, sizeof d);
    d.width = w;
    d.height = h;
    d.channels = cn;
    d.batch = batch;
    d.dtype = dt;
    d.layout = lay;
    d.pitch = w * (int64_t)gm_dtype_size(dt) * (lay == GM_HWC ? cn : 1);
    d.batch_pitch = batch > 1 ? d.pitch * h * (lay == GM_CHW ? cn : 1) : 0;
    if (gm_alloc_desc(&p->host, &d, GM_HOST) != GM_OK || gm_alloc_desc(&p->dev, &d, GM_DEVICE) != GM_OK) {
        printf("alloc failed: %s\n", gm_last_error());
        return 0;
    }
    p->host_roi = p->host;
    p->dev_roi = p->dev;
    return 1;
}

static gm_status op_fill(const gm_mat* s, gm_mat* d, const void* v)
{
    (void)s;
    return gm_fill(d, (const double*)v, NULL);
}

/* gm_fill on the GPU (the fill kernel) == the CPU path (the oracle holds
 * that to setTo): every dtype, channel count and layout, odd ROIs (rows
 * starting and ending inside 16-byte chunks), dense images (rows joined)
 * and batches, values on and off ties and past each dtype's range; NaN
 * only into integers (a float NaN's bits are the GPU's own). */
static void fills(void)
{
    static const double special[] = {2.5,     -3.5, 0.5 + 1e-9, 255.5, -32768.5, 65520.0,  -0.0,
                                     1.0 / 3, 1e10, -1e10,      3e38,  INFINITY, -INFINITY, NAN};
    const int n = (int)(sizeof special / sizeof special[0]);
    int dt, cn, lay, k, c;
    char what[160];
    for (dt = 0; dt < GM_DTYPE_COUNT; ++dt)
        for (cn = 1; cn <= 4; ++cn)
            for (lay = 0; lay < (cn > 1 ? 2 : 1); ++lay)
                for (k = 0; k < 3; ++k) {
                    const int64_t* sz = sizes[t_rand() % NSIZES];
                    int batch = k == 2 ? 3 : 1, floating = !gm__is_int(dt);
                    double v[4];
                    pair p;
                    for (c = 0; c < 4; ++c)
                        v[c] = t_rand() & 1 ? special[t_rand() % (uint64_t)(n - floating)] : t_uniform(-7e4, 7e4);
                    snprintf(what, sizeof what, "fill %s x%d %s %lldx%lld b%d (%g, %g, %g, %g)",
                             gm_dtype_name((gm_dtype)dt), cn, lay ? "chw" : "hwc", (long long)sz[0],
                             (long long)sz[1], batch, v[0], v[1], v[2], v[3]);
                    if (!(k == 1 ? make_dense(&p, sz[0], sz[1], 2, (gm_dtype)dt, cn, (gm_layout)lay)
                                 : make_pair(&p, sz[0], sz[1], batch, (gm_dtype)dt, cn, (gm_layout)lay))) {
                        CHECK(0, "%s: setup failed", what);
                        continue;
                    }
                    launched[GM__FILL_ROW] = 0;
                    compare_op(what, &p, &p, op_fill, v);
                    CHECK(launched[GM__FILL_ROW], "%s: the fill kernel did not run", what);
                    free_pair(&p);
                }
}

/* gm_add_weighted on the GPU == the CPU path (the oracle holds the CPU path
 * to cv::addWeighted): u8 of 1-4 channels, both layouts, batches, odd ROIs
 * and pitches or 256-byte aligned rows (the kernel's words), into a third
 * image or in place into either source. The second source is `other`. */
typedef struct blend_ctx {
    pair* other;
    double w[3];
    int in_place; /* 0: dst is its own image; 1: dst is src1; 2: dst is src2 */
} blend_ctx;

static gm_status op_blend(const gm_mat* s, gm_mat* d, const void* x)
{
    const blend_ctx* b = (const blend_ctx*)x;
    const gm_mat* other = s->where == GM_DEVICE ? &b->other->dev_roi : &b->other->host_roi;
    return b->in_place == 2 ? gm_add_weighted(other, b->w[0], s, b->w[1], b->w[2], d, NULL)
                            : gm_add_weighted(s, b->w[0], other, b->w[1], b->w[2], d, NULL);
}

static void blends(void)
{
    int cn, lay, k;
    char what[160];
    for (cn = 1; cn <= 4; ++cn)
        for (lay = 0; lay < (cn > 1 ? 2 : 1); ++lay)
            for (k = 0; k < 12; ++k) {
                const int64_t* sz = sizes[t_rand() % NSIZES];
                int batch = k % 4 == 3 ? 3 : 1, aligned = k % 2;
                blend_ctx b;
                pair p[3];
                b.other = &p[1];
                b.in_place = k % 3;
                b.w[0] = k % 4 == 0 ? 0.5 : t_uniform(-2, 2);
                b.w[1] = k % 4 == 0 ? 0.5 : t_uniform(-2, 2);
                b.w[2] = k % 4 == 0 ? 0 : t_uniform(-300, 300);
                snprintf(what, sizeof what, "add_weighted x%d %s %lldx%lld b%d aligned %d into %d (%g, %g, %g)", cn,
                         lay ? "chw" : "hwc", (long long)sz[0], (long long)sz[1], batch, aligned, b.in_place, b.w[0],
                         b.w[1], b.w[2]);
                if (!make_pair_at(&p[0], sz[0], sz[1], batch, GM_U8, cn, (gm_layout)lay, aligned) ||
                    !make_pair_at(&p[1], sz[0], sz[1], batch, GM_U8, cn, (gm_layout)lay, aligned) ||
                    !make_pair_at(&p[2], sz[0], sz[1], batch, GM_U8, cn, (gm_layout)lay, aligned)) {
                    CHECK(0, "%s: setup failed", what);
                    continue;
                }
                fill(&p[1].host);
                CHECK(sync_up(&p[1]), "%s: upload failed: %s", what, gm_last_error());
                launched[GM__BLEND_ROW] = 0;
                compare_op(what, &p[0], b.in_place ? &p[0] : &p[2], op_blend, &b);
                CHECK(launched[GM__BLEND_ROW], "%s: the blend kernel did not run", what);
                free_pair(&p[0]);
                free_pair(&p[1]);
                free_pair(&p[2]);
            }
}

/* gm_yuv_convert and gm_yuv_from_image on the GPU == the CPU path (the
 * oracle holds the CPU path to cvtColor): every format, gray, BGR and BGRA
 * (both orders, both layouts; P016 into u8, u16 and f32), every matrix and
 * range, even sizes, rows on 256-byte boundaries (the kernels' word paths)
 * and odd pitches and offsets (their pixel paths), batches. The image and
 * every plane are pairs of their own, compared whole (their borders too). */
typedef struct yuv_ctx {
    gm_yuv_format format;
    gm_yuv_matrix matrix;
    gm_yuv_range range;
    pair *luma, *chroma[2];
    int rgb, from;
} yuv_ctx;

/* The frame c describes, on the device or the host. */
static gm_yuv yuv_frame(const yuv_ctx* c, int dev)
{
    gm_yuv f;
    memset(&f, 0, sizeof f);
    f.format = c->format, f.matrix = c->matrix, f.range = c->range;
    f.y = dev ? c->luma->dev_roi : c->luma->host_roi;
    f.u = dev ? c->chroma[0]->dev_roi : c->chroma[0]->host_roi;
    if (c->chroma[1])
        f.v = dev ? c->chroma[1]->dev_roi : c->chroma[1]->host_roi;
    return f;
}

static gm_status op_yuv(gm_mat* image, const yuv_ctx* c, int dev)
{
    gm_yuv f = yuv_frame(c, dev);
    return c->from ? gm_yuv_from_image(image, &f, c->rgb, NULL) : gm_yuv_convert(&f, image, c->rgb, NULL);
}

/* One case: every pair filled at random, the operation run on both sides,
 * then each written pair's device parent against its host parent. */
static void yuv_compare(const char* what, pair* image, const yuv_ctx* c)
{
    pair* all[4];
    int n = 0, i;
    gm_status sd, sh;
    all[n++] = image, all[n++] = c->luma, all[n++] = c->chroma[0];
    if (c->chroma[1])
        all[n++] = c->chroma[1];
    for (i = 0; i < n; ++i) {
        fill(&all[i]->host);
        CHECK(sync_up(all[i]), "%s: upload failed: %s", what, gm_last_error());
    }
    const int row = c->from                      ? GM__YUV_FROM_ROW
                    : c->format == GM_YUV_P016 ? gm__yuv16_row[image->dev.dtype]
                                               : GM__YUV_ROW;
    launched[row] = 0;
    sd = op_yuv(&image->dev_roi, c, 1);
    sh = op_yuv(&image->host_roi, c, 0);
    CHECK(sd == GM_OK && sh == GM_OK, "%s: gpu %s / cpu %s: %s", what, gm_status_string(sd), gm_status_string(sh),
          gm_last_error());
    CHECK(launched[row], "%s: the kernel did not run", what);
    for (i = c->from; i < (c->from ? n : 1); ++i) { /* what it wrote */
        const int64_t at = down_and_diff(all[i]);
        CHECK(at == -1, "%s: gpu != cpu at byte %lld of %s (-2: no download)", what, (long long)at,
              i == 0 ? "the image" : i == 1 ? "the luma" : "a chroma plane");
    }
}

static void yuvs(void)
{
    static const int outs[3] = {1, 3, 4};
    static const gm_dtype p016_dtypes[3] = {GM_U8, GM_U16, GM_F32};
    int from, format, o, lay, k, i;
    char what[192];
    for (from = 0; from < 2; ++from)
        for (format = GM_YUV_NV12; format <= (from ? GM_YUV_YV12 : GM_YUV_P016); ++format)
            for (o = from; o < 3; ++o)
                for (lay = 0; lay < (outs[o] > 1 ? 2 : 1); ++lay)
                    for (k = 0; k < (format == GM_YUV_P016 ? 12 : 4); ++k) {
                        /* kind < 2: rows on 256-byte boundaries, as the words want, kind 0 with a last chunk of
                         * 2 pixels (the pixel path), kind 1 wider than a block of threads and batched; P016
                         * frames take each kind into each dtype */
                        const int kind = k % 4;
                        const int64_t w = kind == 0 ? 8 * rnd(1, 35) + 2 : 2 * (kind == 1 ? rnd(130, 300) : rnd(1, 70));
                        const int64_t h = 2 * rnd(1, 40);
                        const int batch = kind == 1 ? 2 : kind == 3 ? 3 : 1, aligned = kind < 2;
                        const int planar = format == GM_YUV_I420 || format == GM_YUV_YV12;
                        const gm_dtype sample = format == GM_YUV_P016 ? GM_U16 : GM_U8;
                        const gm_dtype dt = format == GM_YUV_P016 ? p016_dtypes[k / 4] : GM_U8;
                        pair luma, image, chroma[2];
                        yuv_ctx c;
                        c.format = (gm_yuv_format)format, c.from = from;
                        c.matrix = (gm_yuv_matrix)rnd(0, 2), c.range = (gm_yuv_range)rnd(0, 1);
                        c.rgb = kind % 2;
                        c.luma = &luma, c.chroma[0] = &chroma[0], c.chroma[1] = planar ? &chroma[1] : NULL;
                        snprintf(what, sizeof what,
                                 "yuv %s format %d %s x%d %s rgb %d %lldx%lld b%d matrix %d range %d%s",
                                 from ? "from image" : "to image", format, gm_dtype_name(dt), outs[o],
                                 lay ? "chw" : "hwc", c.rgb, (long long)w, (long long)h, batch, (int)c.matrix,
                                 (int)c.range, aligned ? " aligned" : "");
                        if (!make_pair_at(&luma, w, h, batch, sample, 1, GM_HWC, aligned) ||
                            !make_pair_at(&image, w, h, batch, dt, outs[o], (gm_layout)lay, aligned) ||
                            !make_pair_at(&chroma[0], w / 2, h / 2, batch, sample, planar ? 1 : 2, GM_HWC,
                                          aligned) ||
                            (planar && !make_pair_at(&chroma[1], w / 2, h / 2, batch, sample, 1, GM_HWC, aligned))) {
                            CHECK(0, "%s: setup failed", what);
                            continue;
                        }
                        yuv_compare(what, &image, &c);
                        free_pair(&luma);
                        free_pair(&image);
                        for (i = 0; i < 1 + planar; ++i)
                            free_pair(&chroma[i]);
                    }
}

/* gm_preprocess_yuv and _batch on the GPU == the CPU path (the oracle
 * holds the CPU path to cvtColor and OpenCV's chain): each frame format,
 * destination dtype and layout, each interpolation a frame takes and each
 * placement, odd crops; batches whose odd items (in 35: the last two) are an
 * even ROI of the frame (chroma at other offsets from the luma: a launch
 * of their own), so that 35 items put 33 of one layout over a launch's
 * parameters (the _many entry point). Every pair is filled at random and
 * the destination compared whole. */
static gm_status op_prep_yuv(const yuv_ctx* c, const prep_how* h, gm_mat* dst, int dev)
{
    gm_yuv frames[35], whole = yuv_frame(c, dev), inner;
    gm_rect crops[35];
    gm_status st = gm_yuv_roi(&whole, &inner, 2, 2, whole.y.width - 2, whole.y.height - 2);
    int i;
    for (i = 0; i < h->count && st == GM_OK; ++i) {
        frames[i] = i % 2 && (h->count < 30 || i > 30) ? inner : whole;
        /* a stretch's first item whole: the half-size cases' 2x2 mean */
        crops[i].x = h->prep.fit == GM_FIT_STRETCH && i == 0 ? 0 : (i + h->count) % 3;
        crops[i].y = h->prep.fit == GM_FIT_STRETCH && i == 0 ? 0 : (i + h->count) % 4;
        crops[i].width = frames[i].y.width - crops[i].x - i % 3;
        crops[i].height = frames[i].y.height - crops[i].y - i % 2;
    }
    if (st != GM_OK)
        return st;
    return h->count == 1 ? gm_preprocess_yuv(&frames[0], &crops[0], dst, &h->prep, NULL, NULL)
                         : gm_preprocess_yuv_batch(frames, crops, h->count, dst, &h->prep, NULL, NULL);
}

/* The chroma planes of a w x h 4:2:0 frame: one interleaved, or two. */
static int make_chroma(pair* chroma, int64_t w, int64_t h, int planar, int aligned)
{
    return make_pair_at(&chroma[0], w / 2, h / 2, 1, GM_U8, planar ? 1 : 2, GM_HWC, aligned) &&
           (!planar || make_pair_at(&chroma[1], w / 2, h / 2, 1, GM_U8, 1, GM_HWC, aligned));
}

/* arith: the product in double (the prep_yuv_double rows, into f32 and
 * f16 only); warp: the warp placement (its rows, NEAREST and LINEAR). */
static void prep_yuvs(int some, int arith, int warp)
{
    static const gm_dtype dsts[] = {GM_U8, GM_F16, GM_BF16, GM_F32};
    static const gm_prep_interp interps[] = {GM_PREP_LINEAR, GM_PREP_NEAREST, GM_PREP_LINEAR_EXACT};
    int format, d, k, n = 0, cases = 0, missing = 0, below = 0;
    char what[200];
    for (format = GM_YUV_NV12; format <= GM_YUV_YV12; ++format)
        for (d = 0; d < 4; ++d)
            for (k = 0; k < (some ? 2 : 6) && (!arith || dsts[d] == GM_F32 || dsts[d] == GM_F16); ++k, ++n) {
                const int planar = format >= GM_YUV_I420, half = k == 5;
                const int64_t w = 2 * rnd(4, 60), h = 2 * rnd(4, 40);
                const int64_t wn = half ? w / 2 : rnd(8, 70), hn = half ? h / 2 : rnd(8, 50);
                pair luma, chroma[2], dst;
                yuv_ctx c;
                prep_how how;
                gm_status sd, sh;
                int ci;
                memset(&c, 0, sizeof c);
                memset(&how, 0, sizeof how);
                c.format = (gm_yuv_format)format;
                c.matrix = (gm_yuv_matrix)rnd(0, 2), c.range = (gm_yuv_range)rnd(0, 1);
                c.luma = &luma, c.chroma[0] = &chroma[0], c.chroma[1] = planar ? &chroma[1] : NULL;
                how.count = k == 3 ? 35 : k == 4 ? 3 : 1;
                how.prep.fit = half ? GM_FIT_STRETCH : (gm_fit)(n / 3 % 3); /* every sampler with every fit */
                how.prep.rule = (gm_letterbox_rule)(n % 4 % 3);
                how.prep.interp = half && k % 2 ? GM_PREP_LINEAR : interps[n % 3];
                how.prep.swap_rb = n % 2;
                how.prep.divide = !arith && dsts[d] != GM_U8 && n % 4 == 1;
                how.prep.arith = arith ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
                if (warp) {
                    warp_prep(&how.prep, n, w, h);
                    how.prep.interp = n % 2 ? GM_INTER_NEAREST : GM_INTER_LINEAR;
                }
                for (ci = 0; ci < 3; ++ci) {
                    how.prep.pad[ci] = 114 + ci;
                    how.prep.mean[ci] = dsts[d] == GM_U8 ? 0 : 100 + 10 * ci;
                    how.prep.scale[ci] = dsts[d] == GM_U8 ? 0 : how.prep.divide ? 50 + ci : 1.0 / (50 + ci);
                }
                snprintf(what, sizeof what, "preprocess yuv format %d -> %s %s %lldx%lld -> %lldx%lld x%d fit %d "
                         "rule %d interp %d divide %d arith %d matrix %d range %d", format, gm_dtype_name(dsts[d]),
                         k % 2 ? "chw" : "hwc", (long long)w, (long long)h, (long long)wn, (long long)hn, how.count,
                         (int)how.prep.fit, (int)how.prep.rule, (int)how.prep.interp, how.prep.divide, arith, (int)c.matrix,
                         (int)c.range);
                /* chroma allocated first in every other case, so that it may lie below
                 * the luma, where NEAREST takes the per-pixel path (impl/prep.h,
                 * gm__prep_frame_narrow) */
                if ((n % 2 && !make_chroma(chroma, w, h, planar, k == 0)) ||
                    !make_pair_at(&luma, w, h, 1, GM_U8, 1, GM_HWC, k == 0) ||
                    (n % 2 == 0 && !make_chroma(chroma, w, h, planar, k == 0)) ||
                    !make_pair_at(&dst, wn, hn, how.count, dsts[d], 3, (gm_layout)(k % 2), 0)) {
                    CHECK(0, "%s: setup failed", what);
                    continue;
                }
                below += how.prep.interp == GM_PREP_NEAREST && (char*)chroma[0].dev.data < (char*)luma.dev.data;
                fill(&luma.host), fill(&chroma[0].host), fill(&dst.host);
                if (planar)
                    fill(&chroma[1].host);
                CHECK(sync_up(&luma) && sync_up(&chroma[0]) && (!planar || sync_up(&chroma[1])) && sync_up(&dst),
                      "%s: upload failed: %s", what, gm_last_error());
                sd = op_prep_yuv(&c, &how, &dst.dev_roi, 1);
                sh = op_prep_yuv(&c, &how, &dst.host_roi, 0);
                CHECK(sd == GM_OK && sh == GM_OK, "%s: gpu %s / cpu %s: %s", what, gm_status_string(sd),
                      gm_status_string(sh), gm_last_error());
                if (sd == GM_OK && sh == GM_OK) {
                    const int64_t at = down_and_diff(&dst);
                    CHECK(at == -1, "%s: gpu != cpu at byte %lld of the destination parent (-2: no download)", what,
                          (long long)at);
                }
                ++cases;
                free_pair(&luma);
                free_pair(&dst);
                for (ci = 0; ci < 1 + planar; ++ci)
                    free_pair(&chroma[ci]);
            }
    printf("gpu: %d frame pre-process cases, %d of them NEAREST with the chroma below the luma\n", cases, below);
    for (k = 0; !some && k < GM__KERNEL_COUNT; ++k)
        if (gm__kernels[k].family == (warp    ? GM__FAMILY_PREP_YUV_WARP
                                      : arith ? GM__FAMILY_PREP_YUV_DOUBLE
                                              : GM__FAMILY_PREP_YUV) &&
            !launched[k] && missing++ < 5)
            printf("gpu: %s never ran\n", gm__kernels[k].name);
    CHECK(missing == 0, "%d frame pre-process kernels never ran", missing);
}

/* Every byte of view v's pixels flipped by 0x5a: a CPU edit. */
static void xor_view(const gm_mat* v)
{
    int64_t c, y, i, row = gm_row_bytes(v);
    for (c = 0; c < (v->layout == GM_CHW ? v->channels : 1); ++c)
        for (y = 0; y < v->height; ++y)
            for (i = 0; i < row; ++i)
                ((unsigned char*)v->data)[c * v->plane_pitch + y * v->pitch + i] ^= 0x5a;
}

/* gm_copy_many round trips: rectangles of a device frame down to pinned
 * host images, edited on the CPU, and back, against the same edits made to
 * the host copy of the frame, over the whole parent. Three ways: the
 * batched driver call on a stream of its own, a copy a pair (the batch
 * turned off), and the NULL stream (which the batch call refuses). */
static void rect_round_trips(void)
{
    enum { K = 12 };
    graph_api api;
    void* stream = NULL;
    int round, k;
    char what[128];
    if (!graph_api_load(&api) || api.stream_create(&stream, 1) != 0) {
        CHECK(0, "rect round trips: no stream");
        return;
    }
    if (!gm__cu.cuMemcpy3DBatchAsync && !gm__cu.cuMemcpy3DBatchAsync_v1)
        SKIP("gm_copy_many's batched call: this driver lacks cuMemcpy3DBatchAsync (a copy a pair ran instead)");
    for (round = 0; round < 9; ++round) {
        const int mode = round % 3, planar = round / 3 == 2;
        const gm_dtype dt = round / 3 == 0 ? GM_U8 : GM_F32;
        const int cn = round / 3 == 0 ? 3 : 2;
        const int64_t w = 200 + rnd(0, 300), h = 150 + rnd(0, 200);
        gm_mat dev[K], host[K], tile[K];
        pair f;
        gm_status s1, s2;
        snprintf(what, sizeof what, "gm_copy_many %s x%d %s %lldx%lld, %s", gm_dtype_name(dt), cn,
                 planar ? "chw" : "hwc", (long long)w, (long long)h,
                 mode == 0 ? "batched" : mode == 1 ? "a copy a pair" : "NULL stream");
        if (!make_pair(&f, w, h, 1, dt, cn, planar ? GM_CHW : GM_HWC)) {
            CHECK(0, "%s: setup failed", what);
            continue;
        }
        fill(&f.host);
        CHECK(sync_up(&f), "%s: upload failed: %s", what, gm_last_error());
        memset(tile, 0, sizeof tile);
        for (k = 0; k < K; ++k) { /* one rectangle in each cell of a 4 x 3 grid */
            const int64_t cw = w / 4, ch = h / 3, rw = rnd(1, cw), rh = rnd(1, ch);
            const int64_t x = (k % 4) * cw + rnd(0, cw - rw), y = (k / 4) * ch + rnd(0, ch - rh);
            CHECK(gm_roi(&f.dev_roi, &dev[k], x, y, rw, rh) == GM_OK &&
                      gm_roi(&f.host_roi, &host[k], x, y, rw, rh) == GM_OK &&
                      gm_alloc_host(&tile[k], rw, rh, dt, cn, planar ? GM_CHW : GM_HWC, 1) == GM_OK,
                  "%s: rectangle %d: %s", what, k, gm_last_error());
        }
        gm__copy_many_batched = mode != 1;
        s1 = gm_copy_many(dev, tile, K, mode == 2 ? NULL : (gm_stream)stream);
        if (s1 == GM_OK && api.synchronize(mode == 2 ? NULL : stream) == 0)
            for (k = 0; k < K; ++k) { /* the same edit to the tiles and to the host frame */
                xor_view(&tile[k]);
                xor_view(&host[k]);
            }
        s2 = gm_copy_many(tile, dev, K, mode == 2 ? NULL : (gm_stream)stream);
        CHECK(s1 == GM_OK && s2 == GM_OK && api.synchronize(mode == 2 ? NULL : stream) == 0, "%s: %s", what,
              gm_last_error());
        gm__copy_many_batched = 1;
        if (s1 == GM_OK && s2 == GM_OK) {
            const int64_t at = down_and_diff(&f);
            CHECK(at == -1, "%s: the device frame != the edited host frame at byte %lld of the parent (-2: no download)",
                  what, (long long)at);
        }
        free_pair(&f);
        for (k = 0; k < K; ++k)
            gm_free(&tile[k]);
    }
    api.stream_destroy(stream);
}

/* A device copy of host sprite image h in *d: on even i with the
 * allocator's pitch, on odd i with an odd pitch, which the kernel reads
 * byte by byte. */
static int device_sprite(const gm_mat* h, gm_mat* d, int i)
{
    gm_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.width = h->width;
    desc.height = h->height;
    desc.channels = h->channels;
    desc.batch = 1;
    desc.dtype = GM_U8;
    desc.layout = GM_HWC;
    desc.pitch = desc.width * h->channels + 1 + 2 * rnd(0, 3);
    if (i % 2 == 0)
        return gm_alloc_device(d, h->width, h->height, GM_U8, (int)h->channels, GM_HWC) == GM_OK &&
               gm_copy(h, d, NULL) == GM_OK;
    return gm_alloc_desc(d, &desc, GM_DEVICE) == GM_OK && gm_copy(h, d, NULL) == GM_OK;
}

/* ds: the sprites hs[0 .. n), every odd one's image copied to the device
 * (device_sprite) and read there. */
static void half_on_device(const char* what, const gm_sprite* hs, gm_sprite* ds, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        ds[i] = hs[i];
        if (i % 2 && !device_sprite(&hs[i].image, &ds[i].image, i / 2))
            CHECK(0, "%s: device sprite %d: %s", what, i, gm_last_error());
    }
}

static void free_sprites(gm_sprite* hs, gm_sprite* ds, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        gm_free(&hs[i].image);
        if (i % 2)
            gm_free(&ds[i].image);
    }
}

/* gm_overlay_draw on the GPU == the CPU path (test_cpu holds that to the
 * formulas), over the whole parent of the frame: host sprites (staged) and
 * device sprites (read in place) in one call; one overlay for every round,
 * each frame larger than the last (its buffers grow).
 * Rounds 0-7: 3 or 4 channels, BGR or RGB, alpha kept or composed, a
 * frame view at an odd address and pitch; rounds 8-15 the same with the
 * frame's rows 256-byte aligned (the kernel's word loads). Round 16:
 * 300 sprites over a 90x20 frame, more over a tile than a block holds. Half
 * the sprites are on the device; every third round stages the others'
 * rows in parts of one row, on every thread. */
static void overlays(void)
{
    enum { N = 300 };
    const long long part_bytes = gm__tune.overlay_part_bytes;
    gm_overlay* ov = NULL;
    int round;
    static gm_sprite hs[N], ds[N];
    CHECK(gm_overlay_create(&ov) == GM_OK, "gm_overlay_create: %s", gm_last_error());
    for (round = 0; round < 17; ++round) {
        int channels = 3 + round % 2, n = round == 16 ? N : 40, aligned = round >= 8;
        gm_overlay_params p = {(round >> 1) & 1, (round >> 2) & 1};
        pair f;
        int64_t w = round == 16 ? 90 : 40 + 70 * (round % 8) + rnd(0, 9),
                h = round == 16 ? 20 : 30 + 40 * (round % 8) + rnd(0, 9), at;
        char what[128];
        gm_status sd, sh;
        snprintf(what, sizeof what, "overlay %d sprites %lldx%lld x%d rgb %d over %d aligned %d", n, (long long)w,
                 (long long)h, channels, p.rgb, p.alpha_over, aligned);
        if (!random_sprites(hs, n, w, h) || !make_pair_at(&f, w, h, 1, GM_U8, channels, GM_HWC, aligned)) {
            CHECK(0, "%s: setup failed: %s", what, gm_last_error());
            return;
        }
        half_on_device(what, hs, ds, n);
        fill(&f.host);
        CHECK(sync_up(&f), "%s: upload failed: %s", what, gm_last_error());
        launched[GM__OVERLAY_ROW] = 0;
        gm__tune.overlay_part_bytes = round % 3 ? part_bytes : 1;
        sd = gm_overlay_draw(ov, &f.dev_roi, ds, n, &p, NULL);
        sh = gm_overlay_draw(ov, &f.host_roi, hs, n, &p, NULL);
        CHECK(sd == GM_OK && sh == GM_OK, "%s: gpu %s / cpu %s: %s", what, gm_status_string(sd),
              gm_status_string(sh), gm_last_error());
        CHECK(launched[GM__OVERLAY_ROW], "%s: the overlay kernel did not run", what);
        at = down_and_diff(&f);
        CHECK(at == -1, "%s: gpu != cpu at byte %lld of the frame's parent (-2: no download)", what, (long long)at);
        free_pair(&f);
        free_sprites(hs, ds, n);
    }
    gm__tune.overlay_part_bytes = part_bytes;
    gm_overlay_destroy(ov);
}

/* gm_overlay_draw_yuv on the GPU == the CPU path (test_cpu holds that to
 * the formulas), each plane compared over its whole parent: every 8-bit
 * format, matrix and range at random, planes of their own (odd pitches
 * and offsets, or rows 256-byte aligned), host and device sprites in one
 * call, 40 a frame over frames up to several tiles each way; the last
 * round 300 over a 90x20 frame (more over a tile than a block holds). */
static void overlays_yuv(void)
{
    enum { N = 300, ROUNDS = 9 };
    gm_overlay* ov = NULL;
    int round, i;
    static gm_sprite hs[N], ds[N];
    CHECK(gm_overlay_create(&ov) == GM_OK, "gm_overlay_create: %s", gm_last_error());
    for (round = 0; round < ROUNDS; ++round) {
        const int format = round % 4, n = round == ROUNDS - 1 ? N : 40, aligned = round % 2;
        const int planar = format == GM_YUV_I420 || format == GM_YUV_YV12;
        const int64_t w = round == ROUNDS - 1 ? 90 : 2 * (10 + 40 * round + rnd(0, 9)),
                      h = round == ROUNDS - 1 ? 20 : 2 * (8 + 20 * round + rnd(0, 9));
        pair luma, chroma[2], *planes[3] = {&luma, &chroma[0], &chroma[1]};
        yuv_ctx c;
        gm_yuv fd, fh;
        char what[128];
        gm_status sd, sh;
        c.format = (gm_yuv_format)format;
        c.matrix = (gm_yuv_matrix)rnd(0, 2), c.range = (gm_yuv_range)rnd(0, 1);
        c.luma = &luma, c.chroma[0] = &chroma[0], c.chroma[1] = planar ? &chroma[1] : NULL;
        snprintf(what, sizeof what, "overlay yuv %d sprites format %d %lldx%lld matrix %d range %d aligned %d", n,
                 format, (long long)w, (long long)h, (int)c.matrix, (int)c.range, aligned);
        if (!random_sprites(hs, n, w, h) || !make_pair_at(&luma, w, h, 1, GM_U8, 1, GM_HWC, aligned) ||
            !make_pair_at(&chroma[0], w / 2, h / 2, 1, GM_U8, planar ? 1 : 2, GM_HWC, aligned) ||
            (planar && !make_pair_at(&chroma[1], w / 2, h / 2, 1, GM_U8, 1, GM_HWC, aligned))) {
            CHECK(0, "%s: setup failed: %s", what, gm_last_error());
            return;
        }
        half_on_device(what, hs, ds, n);
        for (i = 0; i < 2 + planar; ++i) {
            fill(&planes[i]->host);
            CHECK(sync_up(planes[i]), "%s: upload failed: %s", what, gm_last_error());
        }
        fd = yuv_frame(&c, 1), fh = yuv_frame(&c, 0);
        launched[GM__OVERLAY_ROW] = 0;
        sd = gm_overlay_draw_yuv(ov, &fd, ds, n, NULL);
        sh = gm_overlay_draw_yuv(ov, &fh, hs, n, NULL);
        CHECK(sd == GM_OK && sh == GM_OK, "%s: gpu %s / cpu %s: %s", what, gm_status_string(sd),
              gm_status_string(sh), gm_last_error());
        CHECK(launched[GM__OVERLAY_ROW], "%s: the overlay kernel did not run", what);
        for (i = 0; i < 2 + planar; ++i) {
            const int64_t at = down_and_diff(planes[i]);
            CHECK(at == -1, "%s: gpu != cpu at byte %lld of plane %d's parent (-2: no download)", what, (long long)at,
                  i);
            free_pair(planes[i]);
        }
        free_sprites(hs, ds, n);
    }
    gm_overlay_destroy(ov);
}

/* One shape that must take the fast kernel: dense (make_dense) or aligned
 * with padded rows (make_pair_at), plain or with a scale and offset. */
typedef struct fast_case {
    gm_dtype s, d;
    int cn;
    gm_layout ls, ld;
    int64_t w, h;
    int batch, scaled;
} fast_case;

static void run_fast_case(const char* label, const fast_case* k, int dense, int variant)
{
    pair src, dst;
    gm_xform x = gm_xform_identity();
    char what[128];
    int c, ok;
    for (c = 0; c < 4 && k->scaled; ++c) {
        x.scale[c] = alphas[variant % 7][0];
        x.offset[c] = alphas[variant % 7][1];
    }
    snprintf(what, sizeof what, "%s %s -> %s x%d %s -> %s %lldx%lld b%d", label, gm_dtype_name(k->s),
             gm_dtype_name(k->d), k->cn, k->ls ? "chw" : "hwc", k->ld ? "chw" : "hwc", (long long)k->w,
             (long long)k->h, k->batch);
    ok = dense ? make_dense(&src, k->w, k->h, k->batch, k->s, k->cn, k->ls) &&
                     make_dense(&dst, k->w, k->h, k->batch, k->d, k->cn, k->ld)
               : make_pair_at(&src, k->w, k->h, k->batch, k->s, k->cn, k->ls, 1) &&
                     make_pair_at(&dst, k->w, k->h, k->batch, k->d, k->cn, k->ld, 1);
    if (!ok) {
        CHECK(0, "%s: setup failed", what);
        return;
    }
    compare_fast_and_free(what, &src, &dst, &x);
}

/* Dense images, whose rows (and interleaved batches) the host joins. */
static void joined_rows(void)
{
    static const fast_case cases[] = {
        {GM_U8, GM_F32, 3, GM_HWC, GM_HWC, 80, 7, 1, 1},   /* convert: channels alike, one channel */
        {GM_U8, GM_F32, 3, GM_HWC, GM_CHW, 48, 9, 3, 1},   /* blob-like split of a batch */
        {GM_F32, GM_U8, 3, GM_CHW, GM_HWC, 64, 5, 2, 1},   /* merge of a batch */
        {GM_S8, GM_U8, 4, GM_HWC, GM_HWC, 36, 3, 2, 0},    /* u8 <-> s8 word-wise, batch joined */
        {GM_F16, GM_U8, 1, GM_HWC, GM_HWC, 272, 4, 2, 0},  /* narrowing from a staged source */
        {GM_F64, GM_U8, 2, GM_CHW, GM_CHW, 48, 6, 2, 1},   /* 128-byte staged planes */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run_fast_case("joined rows", &cases[i], 1, (int)i + 1);
}

/* Rows longer than one warp task (R * 32 units), so that a row takes
 * several tasks, the last one short and holding the row's last width % P
 * pixels: R = 2 (120 whole units and 5 pixels: 64 + 57), R = 4 (129 and 1
 * pixel: 128 + 2), R = 1 (68 and 12 pixels: 32 + 32 + 5; 80 and 11 pixels:
 * 32 + 32 + 17), each a batch of two with padded rows. */
static void long_rows(void)
{
    static const fast_case cases[] = {
        {GM_U8, GM_F32, 1, GM_HWC, GM_HWC, 1925, 3, 2, 1},  /* P 16, R 2 */
        {GM_U16, GM_F32, 2, GM_CHW, GM_CHW, 517, 3, 2, 1},  /* P 4, R 4 */
        {GM_F32, GM_U8, 3, GM_CHW, GM_HWC, 1100, 3, 2, 1},  /* P 16, R 1: merge */
        {GM_U8, GM_F16, 3, GM_HWC, GM_CHW, 1291, 3, 2, 1},  /* P 16, R 1: blob f16 */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run_fast_case("long rows", &cases[i], 0, (int)i + 3);
}

/* Fast grids of more tasks than the kernel's wave take half blocks, the
 * others full ones (run.h): the rule each side of the boundary, then a dense
 * u8 -> f32 convert (P 16, R 2: 1024 pixels a task, 4 a 4096-pixel row) just
 * within and beyond the wave on the GPU, same bytes as the CPU path. */
static void block_sizes(void)
{
    int kernel = gm__fast_row[GM_U8][GM_F32][0][GM_HWC][GM_HWC], wave = 0, beyond, sms = 0;
    const gm__kernel_row* k = &gm__kernels[kernel];
    gm__CUfunction f;
    gm__CUdevice dev = 0;
    gm__plan p;
    gm__xform_args* a = &p.args.xform;
    CHECK(gm__function("test_gpu", kernel, 0, 0, &f, NULL, &wave) == GM_OK && wave > 0,
          "the u8 -> f32 kernel has no wave (%d): %s", wave, gm_last_error());
    /* a multiprocessor holds at most 64 warps (sm_90; fewer elsewhere) */
    CHECK(gm__cu.cuDeviceGet(&dev, 0) == 0 && gm__cu.cuDeviceGetAttribute(&sms, GM__CU_ATTR_MULTIPROCESSOR_COUNT, dev) == 0 &&
              sms > 0 && wave % (GM__BLOCK_WARPS * sms) == 0 && wave <= 64 * sms,
          "a wave of %d warps is not whole %d-warp blocks on each of %d multiprocessors, 64 warps at most", wave,
          GM__BLOCK_WARPS, sms);
    CHECK(k->pixels == 16 && k->units == 2, "the u8 -> f32 kernel moved to P %d, R %d; this test assumes 16, 2",
          k->pixels, k->units);
    if (wave <= 0 || k->pixels != 16 || k->units != 2)
        return;
    memset(&p, 0, sizeof p);
    a->batch = 1;
    a->width = 1024; /* one task a row */
    for (beyond = 0; beyond < 2; ++beyond) {
        gm__ready r;
        const gm__geometry* g = &r.geometry;
        memset(&r, 0, sizeof r);
        a->height = wave + beyond;
        gm__grid_fast(&p, k, wave, &r);
        CHECK(g->block[0] == (beyond ? 16u : 32u) * GM__BLOCK_WARPS && (long long)g->grid[0] * g->block[0] / 32 >= a->height &&
                  (long long)(g->grid[0] - 1) * g->block[0] / 32 < a->height,
              "%lld tasks against a wave of %d: %u blocks of %u threads", a->height, wave, g->grid[0], g->block[0]);
    }
    for (beyond = 0; beyond < 2; ++beyond) {
        fast_case c = {GM_U8, GM_F32, 1, GM_HWC, GM_HWC, 4096, 0, 1, 1};
        long half0 = half_block_launches;
        c.h = beyond ? wave / 4 + 3 : wave / 4 - 1;
        run_fast_case(beyond ? "beyond a wave" : "within a wave", &c, 1, beyond);
        CHECK(half_block_launches == half0 + beyond, "%s a wave of %d: %ld half-block launches",
              beyond ? "beyond" : "within", wave, half_block_launches - half0);
    }
}

/* Interleaved to interleaved with every channel alike (gm_convert): the
 * fast kernel runs it as one channel, C times as wide. */
static void flattened(void)
{
    int S, D;
    char what[96];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (D = 0; D < GM_DTYPE_COUNT; ++D) {
            pair src, dst;
            gm_xform x = gm_xform_identity();
            int cn = 2 + (S + D) % 3, c;
            for (c = 0; c < 4; ++c) {
                x.scale[c] = alphas[(S + D) % 7][0];
                x.offset[c] = alphas[(S + D) % 7][1];
            }
            snprintf(what, sizeof what, "flattened %s -> %s x%d", gm_dtype_name((gm_dtype)S), gm_dtype_name((gm_dtype)D), cn);
            if (!make_pair_at(&src, 67, 5, 1, (gm_dtype)S, cn, GM_HWC, 1) ||
                !make_pair_at(&dst, 67, 5, 1, (gm_dtype)D, cn, GM_HWC, 1)) {
                CHECK(0, "%s: setup failed", what);
                continue;
            }
            compare_fast_and_free(what, &src, &dst, &x);
        }
}

/* A chain of dependent launches on one stream (op_chain) on a 1080p image,
 * against the same chain on the CPU; on sm_90+ the kernels (built for the
 * device's arch here) wait for their predecessors and launch overlapped. */
static void dependent_chain(int major)
{
    pair a, b, mid;
    chain_args c;
    graph_api api;
    gm__CUfunction f;
    int waits = -1;
    CHECK(gm__function("test_gpu", gm__fast_row[GM_U8][GM_F32][0][GM_HWC][GM_HWC], 0, 0, &f, &waits, NULL) == GM_OK &&
              waits == (major >= 9),
          "a kernel built for sm_%d0+ %s for its predecessor (waits %d)", major, major >= 9 ? "waits" : "does not wait",
          waits);
    if (!make_pair_at(&a, 1920, 1080, 1, GM_U8, 3, GM_HWC, 1) || !make_pair_at(&b, 1920, 1080, 1, GM_U8, 3, GM_HWC, 1) ||
        !make_pair_at(&mid, 1920, 1080, 1, GM_F32, 3, GM_HWC, 1)) {
        CHECK(0, "chain setup failed");
        return;
    }
    c.dev_mid = mid.dev_roi;
    c.host_mid = mid.host_roi;
    c.stream = NULL;
    compare_op("32 dependent launches on one stream", &a, &b, op_chain, &c);
    if (graph_api_load(&api)) {
        graph_chain_args g;
        g.chain = c;
        g.api = &api;
        compare_op("32 dependent launches captured into a CUDA graph", &a, &b, op_graph_chain, &g);
    } else
        CHECK(0, "the driver lacks the stream-capture calls: %s", dlerror());
    free_pair(&a);
    free_pair(&b);
    free_pair(&mid);
}

/* gm_blob_from_image_with_params of a into b by each arithmetic: the float
 * product per channel (the transform, any dtypes), the double product and
 * the division (the pre-process kernel at equal sizes: from u8, u16 or
 * f32). what: the case's name so far. */
static void blob_params_cases(pair* a, pair* b, const char* what)
{
    static const char* const forms[] = {"float", "double", "divide"};
    const int prep = a->host.dtype == GM_U8 || a->host.dtype == GM_U16 || a->host.dtype == GM_F32;
    char name[128];
    int form, c;
    for (form = 0; form < (prep ? 3 : 1); ++form) {
        gm_blob_params p;
        memset(&p, 0, sizeof p);
        for (c = 0; c < 4; ++c) {
            p.mean[c] = 100 + 9.5 * c;
            p.scale[c] = form == 2 ? 50 + c : 1.0 / (50 + c);
        }
        p.swap_rb = a->host.channels >= 3;
        p.arith = form == 1 ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
        p.divide = form == 2;
        snprintf(name, sizeof name, "%s with params, %s", what, forms[form]);
        compare_op(name, a, b, op_blob_params, &p);
    }
}

/* The named entry points over every dtype: split, merge, blob. */
static void entry_points(void)
{
    int dt, cn;
    char what[96];
    for (dt = 0; dt < GM_DTYPE_COUNT; ++dt)
        for (cn = 2; cn <= 4; ++cn) {
            pair a, b;
            const int64_t* sz = sizes[(dt + cn) % NSIZES];
            if (!make_pair(&a, sz[0], sz[1], 2, (gm_dtype)dt, cn, GM_HWC) ||
                !make_pair(&b, sz[0], sz[1], 2, (gm_dtype)dt, cn, GM_CHW)) {
                CHECK(0, "split setup failed");
                continue;
            }
            snprintf(what, sizeof what, "split %s x%d", gm_dtype_name((gm_dtype)dt), cn);
            compare_op(what, &a, &b, op_split, NULL);
            snprintf(what, sizeof what, "merge %s x%d", gm_dtype_name((gm_dtype)dt), cn);
            compare_op(what, &b, &a, op_merge, NULL);
            free_pair(&a);
            free_pair(&b);
        }
    for (dt = 0; dt < GM_DTYPE_COUNT; ++dt)
        for (cn = 1; cn <= 4; cn += cn == 1 ? 2 : 1) {
            static const gm_dtype outs[] = {GM_F32, GM_F16};
            int o, lay;
            for (o = 0; o < 2; ++o)
                for (lay = 0; lay < 2; ++lay) {
                    pair a, b;
                    blob_args ba = {1.0 / 255, {123.675, 116.28, 103.53, 7}, {58.395, 57.12, 57.375, 1}, cn >= 3};
                    if (!make_pair(&a, 1921 % (97 + dt), 1079 % (61 + cn), 1, (gm_dtype)dt, cn, GM_HWC) ||
                        !make_pair(&b, 1921 % (97 + dt), 1079 % (61 + cn), 1, outs[o], cn, (gm_layout)lay)) {
                        CHECK(0, "blob setup failed");
                        continue;
                    }
                    snprintf(what, sizeof what, "blob %s x%d -> %s %s", gm_dtype_name((gm_dtype)dt), cn,
                             gm_dtype_name(outs[o]), lay ? "NCHW" : "NHWC");
                    compare_op(what, &a, &b, op_blob, &ba);
                    blob_params_cases(&a, &b, what);
                    free_pair(&a);
                    free_pair(&b);
                }
        }
}

/* Transfers: pageable and pinned, whole and ROI, compact and pitched. */
static void transfers(void)
{
    gm_mat d, pinned, roi;
    int64_t w = 333, h = 77, n = w * h * 3, i;
    unsigned char *src = (unsigned char*)malloc((size_t)n), *back = (unsigned char*)malloc((size_t)n);
    for (i = 0; i < n; ++i)
        src[i] = (unsigned char)t_rand();
    CHECK(gm_alloc(&d, w, h, GM_U8, 3, GM_HWC) == GM_OK, "alloc: %s", gm_last_error());
    CHECK(gm_upload_sync(&d, src, 0) == GM_OK && gm_download_sync(&d, back, 0) == GM_OK, "pageable round trip: %s",
          gm_last_error());
    CHECK(!memcmp(src, back, (size_t)n), "pageable round trip differs");
    CHECK(gm_alloc_host(&pinned, w, h, GM_U8, 3, GM_HWC, 1) == GM_OK, "pinned alloc: %s", gm_last_error());
    memset(pinned.data, 0x5a, (size_t)n);
    CHECK(gm_download(&d, pinned.data, 0, NULL) == GM_OK && gm_sync(NULL) == GM_OK, "pinned download: %s",
          gm_last_error());
    CHECK(!memcmp(src, pinned.data, (size_t)n), "pinned download differs");
    CHECK(gm_roi(&d, &roi, 5, 3, 100, 20) == GM_OK, "roi");
    memset(back, 0, (size_t)n);
    CHECK(gm_download_sync(&roi, back, 0) == GM_OK, "roi download: %s", gm_last_error());
    for (i = 0; i < 20; ++i)
        CHECK(!memcmp(back + i * 300, src + (i + 3) * w * 3 + 15, 300), "roi row %lld differs", (long long)i);
    gm_free(&pinned);
    gm_free(&d);
    free(src);
    free(back);
}

/* An image of more than 2^31 bytes: offsets must be 64-bit everywhere. The
 * check is direct (x + 1, saturating) on the last rows and sampled rows. */
static void big_image(void)
{
    int64_t w = 65536, h = 32769, n = w * h, y, x;
    gm_mat a, b;
    unsigned char *host = (unsigned char*)malloc((size_t)n), *out = (unsigned char*)malloc((size_t)n);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (!host || !out) {
        SKIP("big image: no host memory for 2 x %lld bytes", (long long)n);
        free(host);
        free(out);
        return;
    }
    for (y = 0; y < n; y += 8) {
        uint64_t r = t_rand();
        memcpy(host + y, &r, 8);
    }
    if (gm_alloc(&a, w, h, GM_U8, 1, GM_HWC) != GM_OK || gm_alloc(&b, w, h, GM_U8, 1, GM_HWC) != GM_OK) {
        SKIP("big image: no device memory for 2 x %lld bytes: %s", (long long)n, gm_last_error());
    } else {
        CHECK(gm_upload_sync(&a, host, 0) == GM_OK, "big upload: %s", gm_last_error());
        CHECK(gm_convert(&a, &b, 1.0, 1.0, NULL) == GM_OK && gm_sync(NULL) == GM_OK, "big convert: %s", gm_last_error());
        CHECK(gm_download_sync(&b, out, 0) == GM_OK, "big download: %s", gm_last_error());
        for (y = 0; y < h; y = y < h - 64 ? y + 1 + (int64_t)(t_rand() % 97) : y + 1) {
            int bad = 0;
            for (x = 0; x < w; ++x) {
                unsigned v = host[y * w + x];
                bad += out[y * w + x] != (v == 255 ? 255 : v + 1);
            }
            if (bad) {
                CHECK(0, "big image row %lld: %d wrong pixels", (long long)y, bad);
                break;
            }
        }
    }
    gm_free(&a);
    gm_free(&b);
    free(host);
    free(out);
}

/* 8 threads call the same cold specialization at once: one compile. */
static gm_mat race_src, race_dst[8];
static gm_status race_status[8];
static void* racer(void* i)
{
    int k = (int)(intptr_t)i;
    race_status[k] = gm_convert(&race_src, &race_dst[k], 2.0, 1.0, NULL);
    return NULL;
}

static void first_use_race(void)
{
    pthread_t t[8];
    int i;
    long before;
    gm_alloc(&race_src, 64, 8, GM_S16, 2, GM_CHW);
    for (i = 0; i < 8; ++i)
        gm_alloc(&race_dst[i], 64, 8, GM_BF16, 2, GM_CHW);
    before = __atomic_load_n(&loads, __ATOMIC_RELAXED);
    for (i = 0; i < 8; ++i)
        pthread_create(&t[i], NULL, racer, (void*)(intptr_t)i);
    for (i = 0; i < 8; ++i)
        pthread_join(t[i], NULL);
    for (i = 0; i < 8; ++i)
        CHECK(race_status[i] == GM_OK, "racer %d: %s", i, gm_status_string(race_status[i]));
    CHECK(__atomic_load_n(&loads, __ATOMIC_RELAXED) - before == 1, "8 racers compiled %ld times",
          __atomic_load_n(&loads, __ATOMIC_RELAXED) - before);
    gm_sync(NULL);
    gm_free(&race_src);
    for (i = 0; i < 8; ++i)
        gm_free(&race_dst[i]);
}

/* Warm-up from gm_kernels_for's list is enough: afterwards the operations
 * of those dtypes and channels, aligned or not, in either layout, load no
 * kernel (the first frame compiles nothing). Runs before warm_up_all, on
 * dtype pairs nothing before it has used. */
static void warm_list_suffices(void)
{
    static const struct {
        gm_dtype src, dst;
        int channels;
    } cases[] = {{GM_U16, GM_F16, 3}, {GM_F32, GM_F32, 4}, {GM_U8, GM_S16, 1}};
    static const double mean[4] = {1, 2, 3, 4}, std[4] = {2, 3, 4, 5};
    size_t i;
    int c;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        gm_dtype S = cases[i].src, D = cases[i].dst;
        int cn = cases[i].channels, list[64], n = gm_kernels_for(S, D, cn, list, 64), ok = 1;
        gm_mat a[2], b[2], ra, rb, planes[4];
        gm_xform x = gm_xform_identity();
        long before;
        CHECK(n > 0 && gm_warmup(list, n, 0) == GM_OK, "warm-up of %s -> %s x%d: %s", gm_dtype_name(S),
              gm_dtype_name(D), cn, gm_last_error());
        before = __atomic_load_n(&loads, __ATOMIC_RELAXED);
        for (c = 0; c < 2; ++c) {
            ok &= gm_alloc(&a[c], 67, 5, S, cn, (gm_layout)c) == GM_OK;
            ok &= gm_alloc(&b[c], 67, 5, D, cn, (gm_layout)c) == GM_OK;
        }
        for (c = 0; c < cn; ++c) {
            gm_desc d;
            memset(&d, 0, sizeof d);
            d.width = 67;
            d.height = 5;
            d.dtype = S;
            d.pitch = 256 * (2 + c); /* planes of other pitches: one launch a plane */
            ok &= gm_alloc_desc(&planes[c], &d, GM_DEVICE) == GM_OK;
            x.scale[c] = 2.0 + c;
        }
        ok &= gm_roi(&a[0], &ra, 1, 1, 63, 3) == GM_OK && gm_roi(&b[0], &rb, 1, 1, 63, 3) == GM_OK;
        for (c = 0; c < 2; ++c)
            ok &= gm_convert(&a[c], &b[c], 1.0, 0.0, NULL) == GM_OK && gm_convert(&a[c], &b[c], 0.5, 2.0, NULL) == GM_OK;
        ok &= gm_convert(&ra, &rb, 0.5, 1.0, NULL) == GM_OK;
        ok &= gm_transform(&a[0], &b[1], &x, NULL) == GM_OK && gm_transform(&a[0], &b[0], &x, NULL) == GM_OK;
        x.map[cn - 1] = GM_CONST;
        ok &= gm_transform(&a[1], &b[0], &x, NULL) == GM_OK;
        if (cn != 2)
            ok &= gm_blob_from_image(&a[0], &b[1], 1 / 255.0, mean, std, cn > 2, NULL) == GM_OK &&
                  gm_blob_from_image(&a[0], &b[0], 1 / 255.0, NULL, NULL, 0, NULL) == GM_OK;
        if (S == D) {
            ok &= gm_split(&a[0], &b[1], NULL) == GM_OK && gm_merge(&a[1], &b[0], NULL) == GM_OK;
            ok &= gm_split_planes(&a[0], planes, NULL) == GM_OK && gm_merge_planes(planes, cn, &b[0], NULL) == GM_OK;
        }
        ok &= gm_sync(NULL) == GM_OK;
        CHECK(ok, "%s -> %s x%d: %s", gm_dtype_name(S), gm_dtype_name(D), cn, gm_last_error());
        CHECK(__atomic_load_n(&loads, __ATOMIC_RELAXED) == before,
              "%s -> %s x%d: %ld kernels loaded after warming up gm_kernels_for's %d", gm_dtype_name(S),
              gm_dtype_name(D), cn, __atomic_load_n(&loads, __ATOMIC_RELAXED) - before, n);
        for (c = 0; c < 2; ++c) {
            gm_free(&a[c]);
            gm_free(&b[c]);
        }
        for (c = 0; c < cn; ++c)
            gm_free(&planes[c]);
    }
}

/* Every specialization compiled (or read from the disk cache) and loaded
 * on all cores, instead of one by one as the checks first use them. */
static void warm_up_all(void)
{
    struct timeval t0, t1;
    gm_status s;
    gettimeofday(&t0, NULL);
    s = gm_warmup(NULL, 0, 0);
    gettimeofday(&t1, NULL);
    CHECK(s == GM_OK, "gm_warmup of every specialization: %s", gm_last_error());
    printf("gpu: warm-up of %d specializations took %.1f s\n", gm_kernel_count(),
           (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_usec - t0.tv_usec));
}

int main(int argc, char** argv)
{
    char name[256] = "";
    int major = 0, minor = 0;
    gm_status s;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut off by a time limit still shows how far it came */
    s = gm_device(&major, &minor, name, sizeof name);
    if (s != GM_OK) {
        SKIP("GPU tests: %s (%s)", gm_status_string(s), gm_last_error());
        return t_summary("gpu");
    }
    printf("gpu: %s, sm_%d%d\n", name, major, minor);
    t_seed_from_env("gpu");
    first_use_race();
    warm_list_suffices();
    if (argc > 1 && !strcmp(argv[1], "--sanitize")) {
        /* under compute-sanitizer: both kernel families, not every specialization */
        SKIP("every specialization, every resize and pre-process kernel and the big image (--sanitize)");
        exact_ends = 1;
        fast_paths();
        resizes(1);
        warps(1);
        preps(1, 0, 0);
        preps(1, 1, 0);
        preps(1, 0, 1);
        tiles(1);
        twices(1);
        twice_specials();
    } else {
        warm_up_all(); /* after the race, which needs a cold kernel */
        every_specialization();
        fast_paths();
        resizes(0);
        warps(0);
        preps(0, 0, 0);
        preps(0, 1, 0);
        preps(0, 0, 1);
        tiles(0);
        twices(0);
        twice_specials();
        big_image();
    }
    fills();
    overlays();
    overlays_yuv();
    blends();
    yuvs();
    prep_yuvs(argc > 1 && !strcmp(argv[1], "--sanitize"), 0, 0);
    prep_yuvs(argc > 1 && !strcmp(argv[1], "--sanitize"), 1, 0);
    prep_yuvs(argc > 1 && !strcmp(argv[1], "--sanitize"), 0, 1);
    rect_round_trips();
    flattened();
    joined_rows();
    long_rows();
    block_sizes();
    dependent_chain(major);
    entry_points();
    transfers();
    printf("gpu: %ld kernels loaded\n", loads);
    /* gives back what the context holds, so that a leak check finds nothing */
    CHECK(gm_release_context() == GM_OK, "gm_release_context: %s", gm_last_error());
    return t_summary("gpu");
}
