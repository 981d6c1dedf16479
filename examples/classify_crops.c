/* SPDX-License-Identifier: MIT */
/* classify_crops: a secondary classifier's input. The detections of one
 * 1920x1080 frame (boxes from a detector) are cut out, each resized to
 * 224x224, swapped to RGB and normalised with ImageNet mean and std into one
 * (8, 3, 224, 224) f32 batch, in one call and one launch. Each image of the
 * batch must equal the same crop pre-processed alone; on the GPU the batch
 * must equal the CPU path's.
 *
 * Build and run: make examples && ./build/classify_crops */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1920
#define H 1080
#define S 224
#define CROPS 8

static const gm_rect boxes[CROPS] = {{100, 80, 300, 500},  {700, 300, 64, 128},   {1500, 900, 400, 180},
                                     {0, 0, 1920, 1080},   {960, 540, 37, 41},    {1200, 10, 700, 700},
                                     {33, 777, 250, 300},  {1800, 1000, 120, 80}};

/* The frame, the batch in `where`; the batch copied back into host_out. One
 * crop alone (item >= 0) writes a 1-image batch instead. */
static gm_status classify_input(gm_where where, unsigned char* frame, int item, float* host_out)
{
    int n = item < 0 ? CROPS : 1, c;
    gm_desc batch = {S, S, 3, 0, GM_F32, GM_CHW, 0, 0, 0};
    gm_mat host_frame, dev_frame = {0}, out = {0}, host, frames[CROPS];
    gm_prep prep = {0};
    gm_status s;
    const double mean[3] = {123.675, 116.28, 103.53}, std_[3] = {58.395, 57.12, 57.375};
    batch.batch = n;
    prep.swap_rb = 1; /* GM_FIT_STRETCH, linear: the zero defaults */
    for (c = 0; c < 3; ++c) {
        prep.mean[c] = mean[c];
        prep.scale[c] = 1 / std_[c];
    }
    if ((s = gm_wrap(&host_frame, frame, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST)) != GM_OK ||
        (s = gm_alloc_desc(&dev_frame, &(gm_desc){W, H, 3, 1, GM_U8, GM_HWC, 0, 0, 0}, where)) != GM_OK ||
        (s = gm_copy(&host_frame, &dev_frame, NULL)) != GM_OK || (s = gm_alloc_desc(&out, &batch, where)) != GM_OK)
        goto done;
    for (c = 0; c < n; ++c)
        frames[c] = dev_frame; /* every item reads the one frame */
    if ((s = gm_preprocess_batch(frames, item < 0 ? boxes : &boxes[item], n, &out, &prep, NULL, NULL)) != GM_OK)
        goto done;
    if ((s = gm_wrap_desc(&host, host_out, &batch, GM_HOST)) == GM_OK && (s = gm_copy(&out, &host, NULL)) == GM_OK &&
        where == GM_DEVICE)
        s = gm_sync(NULL);
done:
    gm_free(&dev_frame);
    gm_free(&out);
    return s;
}

int main(void)
{
    size_t image = (size_t)3 * S * S, x, y;
    unsigned char* frame = (unsigned char*)malloc((size_t)W * H * 3);
    float *cpu = (float*)malloc(image * CROPS * 4), *gpu = (float*)malloc(image * CROPS * 4),
          *one = (float*)malloc(image * 4);
    char name[256];
    int i, major, minor, ok = 1;
    for (y = 0; y < H; ++y)
        for (x = 0; x < (size_t)W * 3; ++x)
            frame[y * W * 3 + x] = (unsigned char)((x * 7 + y * 3 + (x / 3) * (y % 17)) % 251);
    if (classify_input(GM_HOST, frame, -1, cpu) != GM_OK) {
        printf("classify_crops: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    for (i = 0; i < CROPS && ok; ++i)
        ok = classify_input(GM_HOST, frame, i, one) == GM_OK && !memcmp(one, cpu + i * image, image * 4);
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        if (classify_input(GM_DEVICE, frame, -1, gpu) != GM_OK) {
            printf("classify_crops: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && !memcmp(cpu, gpu, image * CROPS * 4);
        printf("classify_crops: %s: %d crops -> %dx3x%dx%d f32 on %s %s the CPU path\n", ok ? "OK" : "FAILED", CROPS,
               CROPS, S, S, name, ok ? "matches" : "DIFFERS from");
    } else {
        printf("classify_crops: %s: no GPU (%s); the CPU path wrote %dx3x%dx%d f32, each image as its crop alone\n",
               ok ? "OK" : "FAILED", gm_last_error(), CROPS, S, S);
    }
    free(frame);
    free(cpu);
    free(gpu);
    free(one);
    return ok ? 0 : 1;
}
