/* SPDX-License-Identifier: MIT */
/* deepstream_surface: a frame described as DeepStream's NvBufSurface
 * describes one (a base pointer, and per plane its width, height, pitch and
 * byte offset; the colour format names matrix and range), without
 * DeepStream: the struct below holds the same fields. Each plane is wrapped
 * with gm_wrap_desc, the detector's boxes (odd corners too) are cropped from
 * the NV12 planes and made a (3, 3, 224, 224) f32 classifier batch with
 * ImageNet's mean and std, in one launch, as a secondary classifier's
 * input.
 *
 * On the GPU the batch is checked against the CPU path; without one the CPU
 * path runs alone and is checked against gm_yuv_convert followed by
 * gm_preprocess_batch.
 *
 * Build and run: make examples && ./build/deepstream_surface */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What gpumat needs of an NvBufSurfaceParams: its plane parameters. */
enum surface_format { NV12, NV12_ER, NV12_709, NV12_709_ER, NV12_2020 };
typedef struct surface {
    unsigned char* data; /* dataPtr */
    enum surface_format format;
    struct {
        unsigned num_planes, width[2], height[2], pitch[2], offset[2];
    } planes; /* planeParams */
} surface;

#define BOXES 3
#define N 224

/* A 1280x720 surface as a hardware decoder pads it: rows of 1536 bytes,
 * the chroma plane 768 rows in. */
static surface make_surface(unsigned char* data)
{
    surface s;
    unsigned x, y;
    memset(&s, 0, sizeof s);
    s.data = data;
    s.format = NV12_709_ER;
    s.planes.num_planes = 2;
    s.planes.width[0] = 1280, s.planes.height[0] = 720, s.planes.pitch[0] = 1536, s.planes.offset[0] = 0;
    s.planes.width[1] = 640, s.planes.height[1] = 360, s.planes.pitch[1] = 1536, s.planes.offset[1] = 1536 * 768;
    for (y = 0; y < 720; ++y)
        for (x = 0; x < 1280; ++x)
            data[y * 1536 + x] = (unsigned char)((x / 5 + y / 3) % 256);
    for (y = 0; y < 360; ++y)
        for (x = 0; x < 1280; ++x)
            data[1536 * 768 + y * 1536 + x] = (unsigned char)(x % 2 ? 96 + y % 64 : 200 - x / 8 % 128);
    return s;
}

/* The surface's planes as a gm_yuv in `where`, its format's matrix and range. */
static gm_status frame_of(const surface* s, unsigned char* base, gm_where where, gm_yuv* f)
{
    static const gm_yuv_matrix matrices[] = {GM_YUV_BT601, GM_YUV_BT601, GM_YUV_BT709, GM_YUV_BT709, GM_YUV_BT2020};
    static const gm_yuv_range ranges[] = {GM_YUV_LIMITED, GM_YUV_FULL, GM_YUV_LIMITED, GM_YUV_FULL, GM_YUV_LIMITED};
    gm_desc luma = {s->planes.width[0], s->planes.height[0], 1, 1, GM_U8, GM_HWC, s->planes.pitch[0], 0, 0};
    gm_desc chroma = {s->planes.width[1], s->planes.height[1], 2, 1, GM_U8, GM_HWC, s->planes.pitch[1], 0, 0};
    gm_status st;
    memset(f, 0, sizeof *f);
    f->format = GM_YUV_NV12;
    f->matrix = matrices[s->format];
    f->range = ranges[s->format];
    if ((st = gm_wrap_desc(&f->y, base + s->planes.offset[0], &luma, where)) != GM_OK)
        return st;
    return gm_wrap_desc(&f->u, base + s->planes.offset[1], &chroma, where);
}

/* A classifier's input: ImageNet's mean and std on RGB, stretched. */
static gm_prep classifier(void)
{
    static const double mean[3] = {123.675, 116.28, 103.53}, std[3] = {58.395, 57.12, 57.375};
    gm_prep prep = {0};
    int c;
    prep.swap_rb = 1;
    for (c = 0; c < 3; ++c) {
        prep.mean[c] = mean[c];
        prep.scale[c] = 1 / std[c];
    }
    return prep;
}

static const gm_rect boxes[BOXES] = {{101, 37, 203, 311}, {640, 400, 96, 64}, {1000, 1, 279, 719}};

/* The boxes of surface s (its bytes copied to `where`) into the batch,
 * copied back to out. */
static gm_status classify(const surface* s, size_t bytes, gm_where where, float* out)
{
    gm_desc input = {N, N, 3, BOXES, GM_F32, GM_CHW, 0, 0, 0}, raw = {(int64_t)bytes, 1, 1, 1, GM_U8, GM_HWC, 0, 0, 0};
    gm_mat buffer = {0}, from, batch = {0}, result;
    gm_yuv frames[BOXES];
    gm_prep prep = classifier();
    gm_status st;
    int k;
    if ((st = gm_alloc_desc(&buffer, &raw, where)) == GM_OK && (st = gm_wrap_desc(&from, s->data, &raw, GM_HOST)) == GM_OK &&
        (st = gm_copy(&from, &buffer, NULL)) == GM_OK && (st = frame_of(s, (unsigned char*)buffer.data, where, &frames[0])) == GM_OK &&
        (st = gm_alloc_desc(&batch, &input, where)) == GM_OK) {
        for (k = 1; k < BOXES; ++k)
            frames[k] = frames[0];
        if ((st = gm_preprocess_yuv_batch(frames, boxes, BOXES, &batch, &prep, NULL, NULL)) == GM_OK &&
            (st = gm_wrap_desc(&result, out, &input, GM_HOST)) == GM_OK && (st = gm_copy(&batch, &result, NULL)) == GM_OK &&
            where == GM_DEVICE)
            st = gm_sync(NULL);
    }
    gm_free(&buffer);
    gm_free(&batch);
    return st;
}

/* The same in two steps on the CPU: the whole surface to BGR, then the boxes. */
static gm_status two_steps(const surface* s, float* out)
{
    gm_desc input = {N, N, 3, BOXES, GM_F32, GM_CHW, 0, 0, 0};
    gm_mat image = {0}, images[BOXES], result;
    gm_yuv frame;
    gm_prep prep = classifier();
    gm_status st;
    int k;
    if ((st = frame_of(s, s->data, GM_HOST, &frame)) == GM_OK &&
        (st = gm_alloc_host(&image, frame.y.width, frame.y.height, GM_U8, 3, GM_HWC, 0)) == GM_OK &&
        (st = gm_yuv_convert(&frame, &image, 0, NULL)) == GM_OK && (st = gm_wrap_desc(&result, out, &input, GM_HOST)) == GM_OK) {
        for (k = 0; k < BOXES; ++k)
            images[k] = image;
        st = gm_preprocess_batch(images, boxes, BOXES, &result, &prep, NULL, NULL);
    }
    gm_free(&image);
    return st;
}

int main(void)
{
    const size_t bytes = (size_t)1536 * 768 * 3 / 2, elems = (size_t)BOXES * 3 * N * N;
    unsigned char* data = (unsigned char*)malloc(bytes);
    float *cpu = (float*)malloc(elems * 4), *other = (float*)malloc(elems * 4);
    surface s;
    char name[256];
    int major, minor, gpu, ok;
    if (!data || !cpu || !other) {
        printf("deepstream_surface: FAILED: out of memory\n");
        return 1;
    }
    s = make_surface(data);
    if (classify(&s, bytes, GM_HOST, cpu) != GM_OK) {
        printf("deepstream_surface: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    gpu = gm_device(&major, &minor, name, sizeof name) == GM_OK;
    if (gpu ? classify(&s, bytes, GM_DEVICE, other) != GM_OK : two_steps(&s, other) != GM_OK) {
        printf("deepstream_surface: FAILED %s: %s\n", gpu ? "on the GPU" : "in two steps", gm_last_error());
        return 1;
    }
    ok = !memcmp(cpu, other, elems * 4);
    printf("deepstream_surface: %s: %d boxes of an NV12_709_ER surface (planes by offset and pitch) into a "
           "%dx3x%dx%d f32 batch; %s %s %s\n", ok ? "OK" : "FAILED", BOXES, BOXES, N, N,
           gpu ? "the GPU's" : "the CPU path's", ok ? "matches" : "DIFFERS from",
           gpu ? "the CPU path" : "gm_yuv_convert + gm_preprocess_batch");
    free(data);
    free(cpu);
    free(other);
    return ok ? 0 : 1;
}
