/* SPDX-License-Identifier: MIT */
/* trt_input: two BGR camera frames straight into a TensorRT-style input
 * binding, a raw device pointer to a (2, 3, H, W) f16 tensor, normalised with
 * ImageNet mean/std and swapped to RGB in one pass (cv::dnn::blobFromImages).
 * TensorRT is not needed to build: the binding is a plain pointer, as
 * context->setTensorAddress("images", binding) would take it. On the GPU
 * the result is checked against the CPU path; without one the CPU path runs
 * alone and its values are checked by hand.
 *
 * Build and run: make examples && ./build/trt_input */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1280
#define H 720
#define BATCH 2

/* ImageNet statistics in 0..255 pixel units, in the network's RGB order */
static const double mean[4] = {123.675, 116.28, 103.53, 0}, std_[4] = {58.395, 57.12, 57.375, 1};

/* A frame with something in it: horizontal and vertical ramps and a frame number. */
static void camera_frame(unsigned char* bgr, int n)
{
    int x, y;
    for (y = 0; y < H; ++y)
        for (x = 0; x < W; ++x) {
            unsigned char* p = bgr + ((size_t)y * W + x) * 3;
            p[0] = (unsigned char)(x * 255 / (W - 1));
            p[1] = (unsigned char)(y * 255 / (H - 1));
            p[2] = (unsigned char)(40 * n + (x ^ y) % 64);
        }
}

/* The pre-process with frames and binding in `where`: uploads the frames,
 * writes the binding, and copies the binding back into host_out. */
static gm_status preprocess(gm_where where, unsigned char* const frames[BATCH], void* host_out)
{
    gm_mat staged, images[BATCH], binding_mat, out;
    gm_desc flat = {0}, input = {0};
    void* binding;
    gm_status s = GM_OK;
    int i;
    memset(images, 0, sizeof images);
    memset(&binding_mat, 0, sizeof binding_mat);
    /* The engine's input buffer, allocated by whoever runs the engine
     * (cudaMalloc in a TensorRT program): bytes, no image structure. */
    flat.width = (int64_t)BATCH * 3 * H * W * 2, flat.height = 1, flat.dtype = GM_U8;
    if ((s = gm_alloc_desc(&binding_mat, &flat, where)) != GM_OK)
        goto done;
    binding = binding_mat.data;

    /* What the engine expects there: a compact NCHW f16 batch. */
    input.width = W, input.height = H, input.channels = 3, input.batch = BATCH, input.dtype = GM_F16;
    input.layout = GM_CHW;
    for (i = 0; i < BATCH && s == GM_OK; ++i)
        if ((s = gm_wrap(&staged, frames[i], W, H, GM_U8, 3, GM_HWC, 0, GM_HOST)) == GM_OK &&
            (s = gm_alloc_desc(&images[i], &(gm_desc){W, H, 3, 1, GM_U8, GM_HWC, 0, 0, 0}, where)) == GM_OK)
            s = gm_copy(&staged, &images[i], NULL); /* the upload, when where is the device */
    if (s != GM_OK || (s = gm_wrap_desc(&out, binding, &input, where)) != GM_OK ||
        (s = gm_blob_from_images(images, BATCH, &out, 1.0, mean, std_, 1, NULL)) != GM_OK)
        goto done;
    /* here a TensorRT program would call context->enqueueV3(stream) */
    if ((s = gm_wrap_desc(&staged, host_out, &input, GM_HOST)) == GM_OK && (s = gm_copy(&out, &staged, NULL)) == GM_OK &&
        where == GM_DEVICE)
        s = gm_sync(NULL);
done:
    for (i = 0; i < BATCH; ++i)
        gm_free(&images[i]);
    gm_free(&binding_mat);
    return s;
}

/* IEEE half -> float for the hand check. */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf((float)(m | 1024), e - 25) : ldexpf((float)m, -24);
    return (h & 0x8000) ? -v : v;
}

int main(void)
{
    size_t in_bytes = (size_t)W * H * 3, out_bytes = (size_t)BATCH * 3 * H * W * 2;
    unsigned char* frames[BATCH];
    uint16_t *cpu = (uint16_t*)malloc(out_bytes), *gpu = (uint16_t*)malloc(out_bytes);
    char name[256];
    int i, major, minor, ok;
    for (i = 0; i < BATCH; ++i) {
        frames[i] = (unsigned char*)malloc(in_bytes);
        camera_frame(frames[i], i);
    }
    if (preprocess(GM_HOST, frames, cpu) != GM_OK) {
        printf("trt_input: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    /* R of frame 1, pixel (x=7, y=3), is channel 0 of image 1: (bgr[2] - mean) / std */
    ok = fabsf(half_to_float(cpu[(size_t)3 * H * W + 3 * W + 7]) -
               (float)((frames[1][(3 * W + 7) * 3 + 2] - mean[0]) / std_[0])) < 1e-2f;
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        if (preprocess(GM_DEVICE, frames, gpu) != GM_OK) {
            printf("trt_input: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && !memcmp(cpu, gpu, out_bytes);
        printf("trt_input: %s: %dx(3x%dx%d) f16 binding on %s %s the CPU path\n", ok ? "OK" : "FAILED", BATCH, H,
               W, name, ok ? "matches" : "DIFFERS from");
    } else {
        printf("trt_input: %s: no GPU (%s); the CPU path wrote the %dx(3x%dx%d) f16 tensor\n", ok ? "OK" : "FAILED",
               gm_last_error(), BATCH, H, W);
    }
    for (i = 0; i < BATCH; ++i)
        free(frames[i]);
    free(cpu);
    free(gpu);
    return ok ? 0 : 1;
}
