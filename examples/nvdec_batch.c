/* SPDX-License-Identifier: MIT */
/* nvdec_batch: four decoded 1080p frames, laid out as NVDEC hands them out
 * (NV12, rows 2048 bytes apart, the chroma after a coded height of 1088
 * rows, a buffer each), into a YOLO's (4, 3, 640, 640) f16 input: the
 * ultralytics letterbox, RGB, /255, in one pass from the NV12 planes, with
 * no BGR image in between. Here the frames are synthetic; a decoder's
 * cuvidMapVideoFrame gives the same pointer and pitch.
 *
 * On the GPU the batch is checked against the CPU path; without one the CPU
 * path runs alone and is checked against the two steps it fuses
 * (gm_yuv_convert, then gm_preprocess_batch).
 *
 * Build and run: make examples && ./build/nvdec_batch */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1920
#define H 1080
#define PITCH 2048
#define CODED 1088
#define FRAMES 4
#define N 640
#define FRAME_BYTES ((size_t)PITCH * CODED * 3 / 2)

/* A moving pattern in luma and chroma, so that each frame differs. */
static void decoded_frame(unsigned char* buf, int k)
{
    int x, y;
    for (y = 0; y < H; ++y)
        for (x = 0; x < W; ++x)
            buf[(size_t)y * PITCH + x] = (unsigned char)(16 + (x + 7 * k) * 219 / (W + 28));
    for (y = 0; y < H / 2; ++y)
        for (x = 0; x < W; ++x) /* U, V pairs */
            buf[(size_t)(CODED + y) * PITCH + x] = (unsigned char)(x % 2 ? 128 + (y * 3 + k) % 90 : 60 + x / 16 % 120);
}

/* The letterbox every frame gets: ultralytics' rule, RGB, /255. */
static gm_prep yolo(void)
{
    gm_prep prep = {0};
    int c;
    prep.fit = GM_FIT_LETTERBOX;
    prep.swap_rb = 1;
    for (c = 0; c < 3; ++c) {
        prep.pad[c] = 114;
        prep.scale[c] = 1 / 255.0;
    }
    return prep;
}

/* The frames (host buffers, copied to the device where `where` is) through
 * one gm_preprocess_yuv_batch into the input, copied back to `out`. */
static gm_status fused(gm_where where, unsigned char* const* host, uint16_t* out)
{
    gm_desc input = {N, N, 3, FRAMES, GM_F16, GM_CHW, 0, 0, 0};
    gm_desc raw = {FRAME_BYTES, 1, 1, 1, GM_U8, GM_HWC, 0, 0, 0};
    gm_mat buffers[FRAMES], binding = {0}, result;
    gm_yuv frames[FRAMES];
    gm_prep prep = yolo();
    gm_status s = GM_OK;
    int k;
    memset(buffers, 0, sizeof buffers);
    for (k = 0; k < FRAMES && s == GM_OK; ++k) { /* as a decoder's pool holds them */
        gm_mat from;
        if ((s = gm_alloc_desc(&buffers[k], &raw, where)) == GM_OK &&
            (s = gm_wrap_desc(&from, host[k], &raw, GM_HOST)) == GM_OK && (s = gm_copy(&from, &buffers[k], NULL)) == GM_OK)
            s = gm_yuv_wrap(&frames[k], GM_YUV_NV12, buffers[k].data, W, H, PITCH, CODED, where);
    }
    if (s == GM_OK && (s = gm_alloc_desc(&binding, &input, where)) == GM_OK &&
        (s = gm_preprocess_yuv_batch(frames, NULL, FRAMES, &binding, &prep, NULL, NULL)) == GM_OK &&
        (s = gm_wrap_desc(&result, out, &input, GM_HOST)) == GM_OK && (s = gm_copy(&binding, &result, NULL)) == GM_OK &&
        where == GM_DEVICE)
        s = gm_sync(NULL);
    for (k = 0; k < FRAMES; ++k)
        gm_free(&buffers[k]);
    gm_free(&binding);
    return s;
}

/* The two steps the fused call saves, on the CPU: each frame to a BGR
 * image, then the letterbox of the images. */
static gm_status two_steps(unsigned char* const* host, uint16_t* out)
{
    gm_desc input = {N, N, 3, FRAMES, GM_F16, GM_CHW, 0, 0, 0};
    gm_mat images[FRAMES], result;
    gm_yuv frame;
    gm_prep prep = yolo();
    gm_status s = GM_OK;
    int k;
    memset(images, 0, sizeof images);
    for (k = 0; k < FRAMES && s == GM_OK; ++k)
        if ((s = gm_alloc_host(&images[k], W, H, GM_U8, 3, GM_HWC, 0)) == GM_OK &&
            (s = gm_yuv_wrap(&frame, GM_YUV_NV12, host[k], W, H, PITCH, CODED, GM_HOST)) == GM_OK)
            s = gm_yuv_convert(&frame, &images[k], 0, NULL);
    if (s == GM_OK && (s = gm_wrap_desc(&result, out, &input, GM_HOST)) == GM_OK)
        s = gm_preprocess_batch(images, NULL, FRAMES, &result, &prep, NULL, NULL);
    for (k = 0; k < FRAMES; ++k)
        gm_free(&images[k]);
    return s;
}

int main(void)
{
    const size_t elems = (size_t)FRAMES * 3 * N * N;
    unsigned char* host[FRAMES];
    uint16_t *cpu = (uint16_t*)malloc(elems * 2), *other = (uint16_t*)malloc(elems * 2);
    char name[256];
    int major, minor, k, ok = cpu && other, gpu;
    for (k = 0; k < FRAMES; ++k) {
        host[k] = (unsigned char*)malloc(FRAME_BYTES);
        ok = ok && host[k];
        if (host[k])
            decoded_frame(host[k], k);
    }
    if (!ok || fused(GM_HOST, host, cpu) != GM_OK) {
        printf("nvdec_batch: FAILED on the CPU path: %s\n", ok ? gm_last_error() : "out of memory");
        return 1;
    }
    gpu = gm_device(&major, &minor, name, sizeof name) == GM_OK;
    if (gpu && fused(GM_DEVICE, host, other) != GM_OK) {
        printf("nvdec_batch: FAILED on the GPU: %s\n", gm_last_error());
        return 1;
    }
    if (!gpu && two_steps(host, other) != GM_OK) {
        printf("nvdec_batch: FAILED in two steps: %s\n", gm_last_error());
        return 1;
    }
    ok = !memcmp(cpu, other, elems * 2);
    printf("nvdec_batch: %s: %d NV12 frames (pitch %d, coded height %d) into a %dx3x%dx%d f16 batch; %s %s %s\n",
           ok ? "OK" : "FAILED", FRAMES, PITCH, CODED, FRAMES, N, N, gpu ? "the GPU's" : "the CPU path's",
           ok ? "matches" : "DIFFERS from", gpu ? "the CPU path" : "gm_yuv_convert + gm_preprocess_batch");
    for (k = 0; k < FRAMES; ++k)
        free(host[k]);
    free(cpu);
    free(other);
    return ok ? 0 : 1;
}
