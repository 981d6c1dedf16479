/* SPDX-License-Identifier: MIT */
/* rectify_plate: a plate reader's input. A detector found a licence plate
 * in a 1920x1080 BGR frame as the four corners of a tilted quad; the plate
 * is rectified by the perspective that maps those corners onto a 94x24
 * image (gm_perspective_from_points: LPRNet's input size) and scaled into
 * the f32 NCHW tensor the network takes, (x - 127.5) * 0.0078125, in one
 * call (gm_preprocess's GM_FIT_WARP with a 3x3 matrix). The tensor must
 * equal the two steps apart (gm_warp_perspective, then
 * gm_blob_from_image), the corners must land on the image's, and on the
 * GPU the tensor must equal the CPU path's.
 *
 * Build and run: make examples && ./build/rectify_plate */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1920
#define H 1080
#define PW 94
#define PH 24

/* The plate's corners in the frame (top left, top right, bottom right,
 * bottom left) and where they go. */
static const float quad[8] = {812.5f, 604.0f, 1043.0f, 581.5f, 1051.0f, 647.0f, 818.0f, 671.5f};
static const float rect[8] = {0, 0, PW, 0, PW, PH, 0, PH};

/* The plate of frame (host memory) rectified in `where` memory by M into
 * tensor (copied back): in one call, or (steps) warped, then normalised. */
static gm_status rectify(gm_where where, const unsigned char* frame, const double* M, int steps, float* tensor)
{
    static const double mean[3] = {127.5, 127.5, 127.5}, std_[3] = {128, 128, 128};
    gm_desc plate = {PW, PH, 3, 1, GM_U8, GM_HWC, 0, 0, 0}, blob = {PW, PH, 3, 1, GM_F32, GM_CHW, 0, 0, 0};
    gm_mat host_frame, dev_frame = {0}, dev_plate = {0}, dev_blob = {0}, host;
    gm_warp_params params = {0};
    gm_prep prep = {0};
    gm_status s;
    int c;
    params.border = GM_BORDER_REPLICATE; /* a corner on the frame's edge repeats it */
    prep.fit = GM_FIT_WARP, prep.warp = M, prep.perspective = 1, prep.border = params.border;
    for (c = 0; c < 3; ++c)
        prep.mean[c] = mean[c], prep.scale[c] = 1 / std_[c];
    if ((s = gm_wrap(&host_frame, (void*)frame, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST)) != GM_OK ||
        (s = gm_alloc_desc(&dev_frame, &(gm_desc){W, H, 3, 1, GM_U8, GM_HWC, 0, 0, 0}, where)) != GM_OK ||
        (s = gm_copy(&host_frame, &dev_frame, NULL)) != GM_OK || (s = gm_alloc_desc(&dev_plate, &plate, where)) != GM_OK ||
        (s = gm_alloc_desc(&dev_blob, &blob, where)) != GM_OK)
        goto done;
    if (steps ? (s = gm_warp_perspective(&dev_frame, &dev_plate, M, &params, NULL)) != GM_OK ||
                    (s = gm_blob_from_image(&dev_plate, &dev_blob, 1.0, mean, std_, 0, NULL)) != GM_OK
              : (s = gm_preprocess(&dev_frame, NULL, &dev_blob, &prep, NULL, NULL)) != GM_OK)
        goto done;
    if ((s = gm_wrap_desc(&host, tensor, &blob, GM_HOST)) == GM_OK && (s = gm_copy(&dev_blob, &host, NULL)) == GM_OK &&
        where == GM_DEVICE)
        s = gm_sync(NULL);
done:
    gm_free(&dev_frame);
    gm_free(&dev_plate);
    gm_free(&dev_blob);
    return s;
}

int main(void)
{
    const size_t n = (size_t)PW * PH * 3;
    unsigned char* frame = (unsigned char*)malloc((size_t)W * H * 3);
    float *cpu = (float*)malloc(n * 4), *gpu = (float*)malloc(n * 4), *apart = (float*)malloc(n * 4);
    double M[9], worst = 0;
    char name[256];
    size_t x, y;
    int k, major, minor, ok;
    for (y = 0; y < H; ++y)
        for (x = 0; x < (size_t)W * 3; ++x)
            frame[y * W * 3 + x] = (unsigned char)((x * 5 + y * 11 + (x / 3) * (y % 13)) % 253);
    if (gm_perspective_from_points(quad, rect, M) != GM_OK || rectify(GM_HOST, frame, M, 0, cpu) != GM_OK ||
        rectify(GM_HOST, frame, M, 1, apart) != GM_OK) {
        printf("rectify_plate: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    for (k = 0; k < 4; ++k) { /* each corner through M */
        const double u = quad[2 * k], v = quad[2 * k + 1], w = M[6] * u + M[7] * v + M[8];
        const double px = (M[0] * u + M[1] * v + M[2]) / w, py = (M[3] * u + M[4] * v + M[5]) / w;
        worst = fmax(worst, hypot(px - rect[2 * k], py - rect[2 * k + 1]));
    }
    ok = worst < 1e-6 && !memcmp(cpu, apart, n * 4);
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        if (rectify(GM_DEVICE, frame, M, 0, gpu) != GM_OK) {
            printf("rectify_plate: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && !memcmp(cpu, gpu, n * 4);
        printf("rectify_plate: %s: the plate -> 1x3x%dx%d f32 on %s %s the CPU path\n", ok ? "OK" : "FAILED", PH, PW,
               name, ok ? "matches" : "DIFFERS from");
    } else {
        printf("rectify_plate: %s: no GPU (%s); the CPU path rectified the plate into 1x3x%dx%d f32 in one call, "
               "as the warp and the blob apart, its corners within %.1g px of the image's\n", ok ? "OK" : "FAILED",
               gm_last_error(), PH, PW, worst);
    }
    free(frame), free(cpu), free(gpu), free(apart);
    return ok ? 0 : 1;
}
