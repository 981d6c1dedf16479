/* SPDX-License-Identifier: MIT */
/* pipeline: a stream of 1080p BGR frames through the DNN pre-process with
 * two pinned host buffers and two CUDA streams, so that frame i+1 uploads
 * while frame i is transformed and frame i-1 downloads. Prints the time per
 * frame with everything on one stream (each frame waits for the last) and
 * with the two streams overlapping, then checks the last frames against the
 * CPU path. Needs a GPU (prints SKIP without one: there is nothing to overlap).
 *
 * Streams come from the CUDA runtime in a real program (cudaStreamCreate);
 * this example opens the driver for them so that it builds without CUDA.
 *
 * Build and run: make examples && ./build/pipeline */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 1920
#define H 1080
#define FRAMES 48

typedef int (*stream_create_fn)(gm_stream* stream, unsigned flags);
typedef int (*stream_destroy_fn)(gm_stream stream);

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One slot of the double buffer: pinned input and output, device images. */
typedef struct slot {
    gm_mat in, frame, blob, out;
    gm_stream stream;
} slot;

/* Queues frame n's upload, pre-process and download on the slot's stream. */
static gm_status enqueue(slot* s, const unsigned char* camera, int n)
{
    static const double mean[4] = {123.675, 116.28, 103.53, 0}, std_[4] = {58.395, 57.12, 57.375, 1};
    gm_status st;
    /* the camera writes into pinned memory; here: the frame number in its first pixel */
    memcpy(s->in.data, camera, (size_t)W * H * 3);
    ((unsigned char*)s->in.data)[0] = (unsigned char)n;
    if ((st = gm_copy(&s->in, &s->frame, s->stream)) != GM_OK ||
        (st = gm_blob_from_image(&s->frame, &s->blob, 1.0, mean, std_, 1, s->stream)) != GM_OK)
        return st;
    return gm_copy(&s->blob, &s->out, s->stream);
}

/* FRAMES frames through `count` slots; milliseconds per frame, or -1. */
static double run(slot* slots, int count, const unsigned char* camera)
{
    double t0 = now_ms();
    int n;
    for (n = 0; n < FRAMES; ++n) {
        slot* s = &slots[n % count];
        /* the slot's previous frame must be out before its buffers are reused;
         * that result would be handed to the network here */
        if (gm_sync(s->stream) != GM_OK || enqueue(s, camera, n) != GM_OK)
            return -1;
    }
    for (n = 0; n < count; ++n)
        if (gm_sync(slots[n].stream) != GM_OK)
            return -1;
    return (now_ms() - t0) / FRAMES;
}

/* The CPU path's blob of frame n, compared with the slot's output. */
static int matches_cpu(const slot* s, const unsigned char* camera, int n)
{
    static const double mean[4] = {123.675, 116.28, 103.53, 0}, std_[4] = {58.395, 57.12, 57.375, 1};
    gm_mat in = {0}, blob = {0}; /* gm_free of a zeroed or failed descriptor is a no-op */
    int same = gm_alloc_host(&in, W, H, GM_U8, 3, GM_HWC, 0) == GM_OK &&
               gm_alloc_host(&blob, W, H, GM_F32, 3, GM_CHW, 0) == GM_OK;
    if (same) {
        memcpy(in.data, camera, (size_t)W * H * 3);
        ((unsigned char*)in.data)[0] = (unsigned char)n;
        same = gm_blob_from_image(&in, &blob, 1.0, mean, std_, 1, NULL) == GM_OK &&
               !memcmp(blob.data, s->out.data, (size_t)W * H * 3 * sizeof(float));
    }
    gm_free(&in);
    gm_free(&blob);
    return same;
}

int main(void)
{
    slot slots[2];
    unsigned char* camera = (unsigned char*)malloc((size_t)W * H * 3);
    void* libcuda;
    stream_create_fn stream_create;
    stream_destroy_fn stream_destroy;
    double one, two;
    char name[256];
    int i, major, minor, ok = 1;
    if (gm_device(&major, &minor, name, sizeof name) != GM_OK) { /* also makes a context current */
        printf("pipeline: SKIP: no GPU (%s)\n", gm_last_error());
        return 0;
    }
    libcuda = dlopen("libcuda.so.1", RTLD_NOW); /* gm_device just opened it: this only finds it */
    stream_create = (stream_create_fn)(size_t)dlsym(libcuda, "cuStreamCreate");
    stream_destroy = (stream_destroy_fn)(size_t)dlsym(libcuda, "cuStreamDestroy_v2");
    memset(slots, 0, sizeof slots);
    for (i = 0; i < W * H * 3; ++i)
        camera[i] = (unsigned char)(i * 7 + i / (W * 3));
    for (i = 0; i < 2 && ok; ++i)
        ok = stream_create && stream_create(&slots[i].stream, 1 /* non-blocking */) == 0 &&
             gm_alloc_host(&slots[i].in, W, H, GM_U8, 3, GM_HWC, 1) == GM_OK &&
             gm_alloc_host(&slots[i].out, W, H, GM_F32, 3, GM_CHW, 1) == GM_OK &&
             gm_alloc(&slots[i].frame, W, H, GM_U8, 3, GM_HWC) == GM_OK &&
             gm_alloc(&slots[i].blob, W, H, GM_F32, 3, GM_CHW) == GM_OK;
    if (!ok) {
        printf("pipeline: FAILED to set up: %s\n", gm_last_error());
        return 1;
    }
    run(slots, 2, camera); /* warm-up: kernel compile, first touches */
    one = run(slots, 1, camera);
    two = run(slots, 2, camera);
    ok = one > 0 && two > 0 && matches_cpu(&slots[(FRAMES - 1) % 2], camera, FRAMES - 1) &&
         matches_cpu(&slots[(FRAMES - 2) % 2], camera, FRAMES - 2);
    printf("pipeline: %s, %d frames %dx%d BGR u8 -> f32 NCHW, upload + blob + download per frame\n", name, FRAMES, W,
           H);
    printf("pipeline: one stream   %.3f ms/frame\n", one);
    printf("pipeline: two streams  %.3f ms/frame (overlap saves %.0f%%)\n", two, 100.0 * (1 - two / one));
    printf("pipeline: %s: the last two frames %s the CPU path\n", ok ? "OK" : "FAILED", ok ? "match" : "DIFFER from");
    for (i = 0; i < 2; ++i) {
        gm_free(&slots[i].in);
        gm_free(&slots[i].out);
        gm_free(&slots[i].frame);
        gm_free(&slots[i].blob);
        stream_destroy(slots[i].stream);
    }
    free(camera);
    return ok ? 0 : 1;
}
