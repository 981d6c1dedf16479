/* Every family of gpumat's operations, each on a small random frame from
 * start to end (allocate, upload, run, download, free), for the GPU tests
 * that run them again and again: test_contexts.c (all of them in each new
 * context), test_faults.c (each with every driver call it makes failing
 * once) and test_streams.c (from many threads at once). Include after
 * gpumat.h and check.h. */
#ifndef GM_TEST_EVERY_OP_H
#define GM_TEST_EVERY_OP_H

#include <stdlib.h>
#include <string.h>

enum { OP_MATS = 8 };

/* The frames' size (61x37 but for test_big's) and images in a batch (1 but
 * for test_big's), two random batches of BGR frames and a sprite mask.
 * The operations' rectangles sit at the frames' far corner; those that take
 * one image work in the batch's last. */
static int64_t op_w = 61, op_h = 37;
static int op_batch = 1;
static unsigned char *op_frame[2], op_sprite[9][13];

/* Random batches of frames of w x h and sprite (both alpha edges in the
 * sprite); 0 without the memory. batch: 1-4. */
static int op_init(int64_t w, int64_t h, int batch)
{
    size_t k, n = (size_t)(w * h * 3 * batch);
    int f;
    if (batch < 1 || batch > 4)
        return 0;
    op_w = w, op_h = h, op_batch = batch;
    for (f = 0; f < 2; ++f) {
        free(op_frame[f]);
        if (!(op_frame[f] = (unsigned char*)malloc(n)))
            return 0;
        for (k = 0; k < n; k += 8) {
            uint64_t r = t_rand();
            memcpy(op_frame[f] + k, &r, n - k < 8 ? n - k : 8);
        }
    }
    for (k = 0; k < sizeof op_sprite; ++k)
        (&op_sprite[0][0])[k] = (unsigned char)t_rand();
    op_sprite[0][0] = 0, op_sprite[8][12] = 255;
    return 1;
}

static void op_done(void)
{
    free(op_frame[0]);
    free(op_frame[1]);
    op_frame[0] = op_frame[1] = NULL;
}

/* One run: the images it allocated (freed at its end), the first failure,
 * and the image whose bytes are the result. */
typedef struct op_run {
    gm_where where;
    gm_stream stream;
    gm_mat mats[OP_MATS];
    int n;
    gm_status s;
    const gm_mat* out;
} op_run;

/* A new image in the run's memory (a zeroed one after a failure). */
static gm_mat* op_new(op_run* r, int64_t w, int64_t h, gm_dtype t, int c, gm_layout l)
{
    gm_desc d;
    gm_mat* m = &r->mats[r->n++];
    memset(&d, 0, sizeof d);
    d.width = w, d.height = h, d.dtype = t, d.channels = c, d.layout = l, d.batch = op_batch;
    if (r->s == GM_OK)
        r->s = gm_alloc_desc(m, &d, r->where);
    return m;
}

/* Frame k, uploaded. */
static gm_mat* op_frame_of(op_run* r, int k)
{
    gm_mat* m = op_new(r, op_w, op_h, GM_U8, 3, GM_HWC);
    if (r->s == GM_OK)
        r->s = gm_upload(m, op_frame[k], 0, r->stream);
    return m;
}

/* Records call's status if the run has not failed yet. */
#define OP_DO(r, call)                   \
    do {                                 \
        if ((r)->s == GM_OK)             \
            (r)->s = (call);             \
    } while (0)

/* The last image of m's batch, a view (m's only image when unbatched). */
static gm_mat* op_last(op_run* r, const gm_mat* m)
{
    gm_mat* view = &r->mats[r->n++];
    OP_DO(r, gm_item(m, view, (int)m->batch - 1));
    return view;
}

static void op_convert(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *dst = op_new(r, op_w, op_h, GM_F32, 3, GM_HWC);
    OP_DO(r, gm_convert(src, dst, 1 / 255.0, 0.5, r->stream));
    r->out = dst;
}

static void op_split_merge(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *planar = op_new(r, op_w, op_h, GM_U8, 3, GM_CHW);
    gm_mat* back = op_new(r, op_w, op_h, GM_U8, 3, GM_HWC);
    OP_DO(r, gm_split(src, planar, r->stream));
    OP_DO(r, gm_merge(planar, back, r->stream));
    r->out = back;
}

static void op_transform(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *dst = op_new(r, op_w, op_h, GM_U16, 4, GM_CHW);
    gm_xform x = gm_xform_identity();
    x.map[3] = GM_CONST, x.offset[3] = 65535, x.scale[1] = 300;
    OP_DO(r, gm_transform(src, dst, &x, r->stream));
    r->out = dst;
}

static void op_blob(op_run* r)
{
    static const double mean[3] = {104, 117, 123}, stdev[3] = {58.4, 57.1, 57.4};
    gm_mat *src = op_frame_of(r, 0), *dst = op_new(r, op_w, op_h, GM_F32, 3, GM_CHW);
    OP_DO(r, gm_blob_from_image(src, dst, 1.0, mean, stdev, 1, r->stream));
    r->out = dst;
}

static void op_resize(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *dst = op_new(r, 23, 41, GM_U8, 3, GM_HWC);
    OP_DO(r, gm_resize(src, dst, GM_INTER_LINEAR, r->stream));
    r->out = dst;
}

/* A batch: gm_preprocess_batch of its images (the same crop of each). */
static void op_preprocess(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *dst = op_new(r, 32, 32, GM_F16, 3, GM_CHW), items[4];
    gm_rect crop = {op_w - 58, op_h - 35, 50, 30}, crops[4];
    gm_prep p;
    int i;
    memset(&p, 0, sizeof p);
    p.fit = GM_FIT_LETTERBOX;
    p.pad[0] = p.pad[1] = p.pad[2] = 114;
    p.swap_rb = 1;
    p.scale[0] = p.scale[1] = p.scale[2] = 1 / 255.0;
    for (i = 0; i < op_batch; ++i) {
        OP_DO(r, gm_item(src, &items[i], i));
        crops[i] = crop;
    }
    if (op_batch == 1)
        OP_DO(r, gm_preprocess(src, &crop, dst, &p, NULL, r->stream));
    else
        OP_DO(r, gm_preprocess_batch(items, crops, op_batch, dst, &p, NULL, r->stream));
    r->out = dst;
}

static void op_fill(op_run* r)
{
    static const double value[3] = {7, 200, 33};
    gm_mat *dst = op_frame_of(r, 0), view;
    OP_DO(r, gm_roi(dst, &view, op_w - 56, op_h - 33, 20, 11));
    OP_DO(r, gm_fill(&view, value, r->stream));
    r->out = dst;
}

static void op_overlay(op_run* r)
{
    gm_mat *dst = op_frame_of(r, 0), *last = op_last(r, dst);
    gm_overlay* overlay = NULL;
    gm_overlay_params params;
    gm_sprite sprite;
    memset(&params, 0, sizeof params);
    memset(&sprite, 0, sizeof sprite);
    OP_DO(r, gm_wrap(&sprite.image, op_sprite, 13, 9, GM_U8, 1, GM_HWC, 0, GM_HOST));
    sprite.x = -4, sprite.y = op_h - 7; /* clipped on two sides */
    sprite.kind = GM_SPRITE_MASK;
    sprite.color[0] = 250, sprite.color[1] = 20, sprite.color[2] = 90;
    OP_DO(r, gm_overlay_create(&overlay));
    OP_DO(r, gm_overlay_draw(overlay, last, &sprite, 1, &params, r->stream));
    gm_overlay_destroy(overlay);
    r->out = dst;
}

static void op_add_weighted(op_run* r)
{
    gm_mat *a = op_frame_of(r, 0), *b = op_frame_of(r, 1), *dst = op_new(r, op_w, op_h, GM_U8, 3, GM_HWC);
    OP_DO(r, gm_add_weighted(a, 0.3, b, 0.6, 2.5, dst, r->stream));
    r->out = dst;
}

/* A frame's even part into NV12 planes (BT.709 full range) and back to
 * RGB. */
static void op_yuv(op_run* r)
{
    const int64_t w = op_w & ~1, h = op_h & ~1;
    gm_mat *src = op_frame_of(r, 0), *even = &r->mats[r->n++], *dst = op_new(r, w, h, GM_U8, 3, GM_HWC);
    gm_yuv f;
    memset(&f, 0, sizeof f);
    f.format = GM_YUV_NV12, f.matrix = GM_YUV_BT709, f.range = GM_YUV_FULL;
    f.y = *op_new(r, w, h, GM_U8, 1, GM_HWC);
    f.u = *op_new(r, w / 2, h / 2, GM_U8, 2, GM_HWC);
    OP_DO(r, gm_roi(src, even, 0, 0, w, h));
    OP_DO(r, gm_yuv_from_image(even, &f, 0, r->stream));
    OP_DO(r, gm_yuv_convert(&f, dst, 1, r->stream));
    r->out = dst;
}

/* Two rectangles of a frame to the two halves of a host image (pinned when
 * the frame is on the device) in one call. */
static void op_copy_many(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *last = op_last(r, src), *host = &r->mats[r->n++], rects[2], halves[2];
    int i;
    OP_DO(r, gm_alloc_host(host, 17, 12, GM_U8, 3, GM_HWC, r->where == GM_DEVICE));
    for (i = 0; i < 2; ++i) {
        OP_DO(r, gm_roi(last, &rects[i], op_w - 61 + 7 * i, op_h - 32 + 9 * i, 17, 6));
        OP_DO(r, gm_roi(host, &halves[i], 0, 6 * i, 17, 6));
    }
    OP_DO(r, gm_copy_many(rects, halves, 2, r->stream));
    r->out = host;
}

/* Each frame of the batch, its far corner turned by 20 degrees and scaled
 * into 23x17 by its own matrix (bicubic, reflected), then the last frame
 * tilted onto an image by a perspective (bilinear, replicated). */
static void op_warp(op_run* r)
{
    gm_mat *src = op_frame_of(r, 0), *dst = op_new(r, 23, 17, GM_U8, 3, GM_HWC), *last = op_last(r, src);
    gm_mat* tilted = &r->mats[r->n++];
    static const double tilt[9] = {1.1, 0.05, -4, -0.02, 0.9, 3, 2e-4, -1e-4, 1};
    double M[4 * 6];
    gm_warp_params p;
    int i;
    memset(&p, 0, sizeof p);
    p.interp = GM_INTER_CUBIC, p.border = GM_BORDER_REFLECT, p.per_item = 1;
    for (i = 0; i < op_batch; ++i) {
        OP_DO(r, gm_rotation_matrix((float)(op_w - 12 - i), (float)(op_h - 9), 20 + i, 0.8, M + 6 * i));
        M[6 * i + 2] -= op_w - 24, M[6 * i + 5] -= op_h - 18; /* the corner onto the destination */
    }
    OP_DO(r, gm_warp_affine(src, dst, M, &p, r->stream));
    p.interp = GM_INTER_LINEAR, p.border = GM_BORDER_REPLICATE, p.per_item = 0;
    OP_DO(r, gm_item(dst, tilted, (int)dst->batch - 1));
    OP_DO(r, gm_warp_perspective(last, tilted, tilt, &p, r->stream));
    r->out = dst;
}

typedef struct op {
    const char* name;
    void (*run)(op_run* r);
} op;

static const op every_op[] = {{"convert", op_convert},         {"split + merge", op_split_merge},
                              {"transform", op_transform},     {"blob", op_blob},
                              {"resize", op_resize},           {"preprocess", op_preprocess},
                              {"fill", op_fill},               {"overlay", op_overlay},
                              {"add_weighted", op_add_weighted}, {"copy_many", op_copy_many},
                              {"yuv", op_yuv},                 {"warp", op_warp}};
enum { OPS = (int)(sizeof every_op / sizeof every_op[0]) };

/* Bytes an image has, compact. */
static size_t op_bytes(const gm_mat* m)
{
    return (size_t)(m->width * m->height * m->channels * m->batch) * gm_dtype_size(m->dtype);
}

/* Runs operation i on images in where (GM_HOST or GM_DEVICE) on stream;
 * on success *bytes (realloc'd) holds its result, *size bytes. The first
 * failure's status, its message in gm_last_error(). */
static gm_status op_run_one(int i, gm_where where, gm_stream stream, unsigned char** bytes, size_t* size)
{
    op_run r;
    int k;
    memset(&r, 0, sizeof r);
    r.where = where;
    r.stream = stream;
    every_op[i].run(&r);
    if (r.s == GM_OK) {
        unsigned char* b = (unsigned char*)realloc(*bytes, op_bytes(r.out));
        if (!b) {
            r.s = GM_ERR_NO_MEMORY;
        } else {
            *bytes = b;
            *size = op_bytes(r.out);
            OP_DO(&r, gm_sync(stream)); /* r.out may be host memory a device copy fills */
            OP_DO(&r, gm_download(r.out, b, 0, stream));
            OP_DO(&r, gm_sync(stream));
        }
    }
    for (k = 0; k < r.n; ++k)
        gm_free(&r.mats[k]);
    return r.s;
}

#undef OP_DO
#endif
