/* SPDX-License-Identifier: MIT */
/* yolo_letterbox: a 1920x1080 BGR camera frame into a YOLO's TensorRT-style
 * input binding, a raw pointer to a (1, 3, 640, 640) f16 tensor: the
 * ultralytics letterbox (resize to 640x360, pad 114 above and below), BGR to
 * RGB and /255 in one pass; then a box the network would report, mapped back
 * to frame pixels. On the GPU the binding is checked against the CPU path;
 * without one the CPU path runs alone and the pad and the mapping are
 * checked by hand.
 *
 * Build and run: make examples && ./build/yolo_letterbox */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1920
#define H 1080
#define N 640

/* Ramps and a pattern, so that the letterbox has something to resample. */
static void camera_frame(unsigned char* bgr)
{
    int x, y;
    for (y = 0; y < H; ++y)
        for (x = 0; x < W; ++x) {
            unsigned char* p = bgr + ((size_t)y * W + x) * 3;
            p[0] = (unsigned char)(x * 255 / (W - 1));
            p[1] = (unsigned char)(y * 255 / (H - 1));
            p[2] = (unsigned char)((x ^ y) % 200);
        }
}

/* Frame and binding in `where`: uploads the frame, letterboxes it into the
 * binding, copies the binding back into host_out. */
static gm_status letterbox(gm_where where, unsigned char* frame, uint16_t* host_out, gm_prep_geometry* geo)
{
    gm_desc input = {N, N, 3, 1, GM_F16, GM_CHW, 0, 0, 0};
    gm_mat host_frame, dev_frame = {0}, binding = {0}, out;
    gm_prep prep = {0}; /* zero: every default, then the ultralytics LetterBox */
    gm_status s;
    int c;
    prep.fit = GM_FIT_LETTERBOX;
    prep.rule = GM_LETTERBOX_ULTRALYTICS;
    prep.swap_rb = 1;
    for (c = 0; c < 3; ++c) {
        prep.pad[c] = 114;
        prep.scale[c] = 1 / 255.0;
    }
    if ((s = gm_wrap(&host_frame, frame, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST)) != GM_OK ||
        (s = gm_alloc_desc(&dev_frame, &(gm_desc){W, H, 3, 1, GM_U8, GM_HWC, 0, 0, 0}, where)) != GM_OK ||
        (s = gm_copy(&host_frame, &dev_frame, NULL)) != GM_OK || (s = gm_alloc_desc(&binding, &input, where)) != GM_OK ||
        (s = gm_preprocess(&dev_frame, NULL, &binding, &prep, geo, NULL)) != GM_OK)
        goto done;
    /* here a TensorRT program would call context->enqueueV3(stream) */
    if ((s = gm_wrap_desc(&out, host_out, &input, GM_HOST)) == GM_OK && (s = gm_copy(&binding, &out, NULL)) == GM_OK &&
        where == GM_DEVICE)
        s = gm_sync(NULL);
done:
    gm_free(&dev_frame);
    gm_free(&binding);
    return s;
}

/* The pad's element: 114 * (float)(1 / 255), rounded to f16 by gm_convert. */
static uint16_t pad_f16(void)
{
    float pad = 114.0f * (float)(1 / 255.0);
    uint16_t h = 0;
    gm_mat from, to;
    if (gm_wrap(&from, &pad, 1, 1, GM_F32, 1, GM_HWC, 0, GM_HOST) != GM_OK ||
        gm_wrap(&to, &h, 1, 1, GM_F16, 1, GM_HWC, 0, GM_HOST) != GM_OK || gm_convert(&from, &to, 1, 0, NULL) != GM_OK)
        return 0;
    return h;
}

int main(void)
{
    size_t out_elems = (size_t)3 * N * N;
    unsigned char* frame = (unsigned char*)malloc((size_t)W * H * 3);
    uint16_t *cpu = (uint16_t*)malloc(out_elems * 2), *gpu = (uint16_t*)malloc(out_elems * 2);
    gm_prep_geometry geo;
    double box[4] = {100, 200, 300, 400}, in_frame[4]; /* x0, y0, x1, y1 in the 640x640 input */
    char name[256];
    int major, minor, ok;
    camera_frame(frame);
    if (letterbox(GM_HOST, frame, cpu, &geo) != GM_OK) {
        printf("yolo_letterbox: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    gm_prep_box_to_source(&geo, box, in_frame);
    /* 1920x1080 at 1/3 is 640x360, 140 rows of pad above and below, 114 / 255 */
    ok = geo.width == N && geo.height == 360 && geo.top == 140 && cpu[0] == pad_f16() &&
         cpu[(size_t)N * N - 1] == cpu[0] && cpu[(size_t)140 * N] != cpu[0] &&
         fabs(in_frame[1] - 180.0) < 1e-9 && fabs(in_frame[2] - 900.0) < 1e-9;
    printf("yolo_letterbox: the box (100, 200)-(300, 400) of the input is (%.0f, %.0f)-(%.0f, %.0f) in the frame\n",
           in_frame[0], in_frame[1], in_frame[2], in_frame[3]);
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        geo.width = 0;
        if (letterbox(GM_DEVICE, frame, gpu, &geo) != GM_OK) {
            printf("yolo_letterbox: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && geo.width == N && !memcmp(cpu, gpu, out_elems * 2);
        printf("yolo_letterbox: %s: the 3x%dx%d f16 binding on %s %s the CPU path\n", ok ? "OK" : "FAILED", N, N, name,
               ok ? "matches" : "DIFFERS from");
    } else {
        printf("yolo_letterbox: %s: no GPU (%s); the CPU path wrote the 3x%dx%d f16 binding\n", ok ? "OK" : "FAILED",
               gm_last_error(), N, N);
    }
    free(frame);
    free(cpu);
    free(gpu);
    return ok ? 0 : 1;
}
