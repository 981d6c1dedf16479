/* SPDX-License-Identifier: MIT */
/* align_faces: a face recogniser's input. A detector found 64 faces in a
 * 1920x1080 BGR frame, each with its five landmarks (eyes, nose tip, mouth
 * corners); each face is aligned onto ArcFace's 112x112 template by the
 * least-squares similarity of its landmarks (gm_similarity_from_points,
 * as InsightFace's norm_crop), then warped and normalised as ArcFace wants,
 * (x - 127.5) / 127.5 in RGB, into the (64, 3, 112, 112) f16 tensor a
 * TensorRT binding takes, in one call (gm_preprocess_batch's GM_FIT_WARP:
 * one matrix a face). The aligned faces (gm_warp_affine, one call) must
 * each equal the face warped alone, the tensor must equal those faces
 * normalised (gm_blob_from_image), the landmarks must land on the
 * template, and on the GPU both must equal the CPU path's.
 *
 * Build and run: make examples && ./build/align_faces */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1920
#define H 1080
#define S 112
#define FACES 64

static const double arcface[10] = GM_ARCFACE_112;

/* Face i's landmarks: the template turned, scaled and moved into the frame,
 * each point off by up to a pixel (a detector's noise). */
static void landmarks(int i, double* pts)
{
    const double angle = (i % 9 - 4) * 0.12, scale = 0.6 + (i % 7) * 0.35;
    const double cx = 120 + (i * 397) % (W - 240), cy = 120 + (i * 211) % (H - 240);
    int k;
    for (k = 0; k < 5; ++k) {
        const double x = arcface[2 * k] - S / 2.0, y = arcface[2 * k + 1] - S / 2.0;
        pts[2 * k] = cx + scale * (cos(angle) * x - sin(angle) * y) + ((i + k) % 5 - 2) * 0.4;
        pts[2 * k + 1] = cy + scale * (sin(angle) * x + cos(angle) * y) + ((i * k) % 3 - 1) * 0.5;
    }
}

static const double mean[3] = {127.5, 127.5, 127.5}, std_[3] = {127.5, 127.5, 127.5};

/* The faces of frame (host memory) warped in `where` memory, n faces from
 * face `first`, into aligned (u8, copied back) and tensor (f16, copied
 * back; NULL: not made): the faces by gm_warp_affine, the tensor from the
 * frame by the pre-process's warp placement. */
static gm_status align(gm_where where, const unsigned char* frame, const double* M, int first, int n,
                       unsigned char* aligned, uint16_t* tensor)
{
    gm_desc faces = {S, S, 3, 0, GM_U8, GM_HWC, 0, 0, 0}, blob = {S, S, 3, 0, GM_F16, GM_CHW, 0, 0, 0};
    gm_mat host_frame, dev_frame = {0}, dev_faces = {0}, dev_blob = {0}, host, srcs[FACES];
    gm_warp_params params = {0}; /* LINEAR, a constant border of 0, as norm_crop's cv2.warpAffine */
    gm_prep prep = {0};          /* the same warp, then ArcFace's normalisation in RGB */
    gm_status s;
    int i, c;
    faces.batch = blob.batch = n;
    params.per_item = 1;
    prep.fit = GM_FIT_WARP, prep.warp = M + 6 * first, prep.swap_rb = 1;
    for (c = 0; c < 3; ++c)
        prep.mean[c] = mean[c], prep.scale[c] = 1 / std_[c];
    if ((s = gm_wrap(&host_frame, (void*)frame, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST)) != GM_OK ||
        (s = gm_alloc_desc(&dev_frame, &(gm_desc){W, H, 3, 1, GM_U8, GM_HWC, 0, 0, 0}, where)) != GM_OK ||
        (s = gm_copy(&host_frame, &dev_frame, NULL)) != GM_OK || (s = gm_alloc_desc(&dev_faces, &faces, where)) != GM_OK ||
        (s = gm_alloc_desc(&dev_blob, &blob, where)) != GM_OK)
        goto done;
    for (i = 0; i < n; ++i) /* every face from the one frame */
        srcs[i] = dev_frame;
    if ((s = gm_warp_affine(&dev_frame, &dev_faces, M + 6 * first, &params, NULL)) != GM_OK ||
        (tensor && (s = gm_preprocess_batch(srcs, NULL, n, &dev_blob, &prep, NULL, NULL)) != GM_OK))
        goto done;
    if ((s = gm_wrap_desc(&host, aligned, &faces, GM_HOST)) != GM_OK || (s = gm_copy(&dev_faces, &host, NULL)) != GM_OK)
        goto done;
    if (tensor && ((s = gm_wrap_desc(&host, tensor, &blob, GM_HOST)) != GM_OK ||
                   (s = gm_copy(&dev_blob, &host, NULL)) != GM_OK))
        goto done;
    if (where == GM_DEVICE)
        s = gm_sync(NULL);
done:
    gm_free(&dev_frame);
    gm_free(&dev_faces);
    gm_free(&dev_blob);
    return s;
}

/* The largest distance of face i's landmarks, mapped by M, from the
 * template's. */
static double landing(const double* M, const double* pts)
{
    double worst = 0;
    int k;
    for (k = 0; k < 5; ++k) {
        const double x = M[0] * pts[2 * k] + M[1] * pts[2 * k + 1] + M[2];
        const double y = M[3] * pts[2 * k] + M[4] * pts[2 * k + 1] + M[5];
        const double d = hypot(x - arcface[2 * k], y - arcface[2 * k + 1]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

int main(void)
{
    const size_t face = (size_t)S * S * 3;
    unsigned char* frame = (unsigned char*)malloc((size_t)W * H * 3);
    unsigned char *cpu = (unsigned char*)malloc(face * FACES), *gpu = (unsigned char*)malloc(face * FACES);
    unsigned char* one = (unsigned char*)malloc(face);
    uint16_t *cpu_t = (uint16_t*)malloc(face * FACES * 2), *gpu_t = (uint16_t*)malloc(face * FACES * 2);
    double M[6 * FACES], pts[10], worst = 0;
    char name[256];
    size_t x, y;
    int i, major, minor, ok = 1;
    for (y = 0; y < H; ++y)
        for (x = 0; x < (size_t)W * 3; ++x)
            frame[y * W * 3 + x] = (unsigned char)((x * 7 + y * 3 + (x / 3) * (y % 17)) % 251);
    for (i = 0; i < FACES; ++i) {
        landmarks(i, pts);
        if (gm_similarity_from_points(pts, arcface, 5, M + 6 * i) != GM_OK) {
            printf("align_faces: FAILED: %s\n", gm_last_error());
            return 1;
        }
        worst = fmax(worst, landing(M + 6 * i, pts));
    }
    ok = worst < 2.0; /* the landmarks' noise, about a pixel, is all that is left */
    if (align(GM_HOST, frame, M, 0, FACES, cpu, cpu_t) != GM_OK) {
        printf("align_faces: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    for (i = 0; i < FACES && ok; i += 9)
        ok = align(GM_HOST, frame, M, i, 1, one, NULL) == GM_OK && !memcmp(one, cpu + i * face, face);
    { /* the one call's tensor is the aligned faces normalised */
        gm_desc faces = {S, S, 3, FACES, GM_U8, GM_HWC, 0, 0, 0}, blob = {S, S, 3, FACES, GM_F16, GM_CHW, 0, 0, 0};
        gm_mat f, b;
        ok = ok && gm_wrap_desc(&f, cpu, &faces, GM_HOST) == GM_OK && gm_wrap_desc(&b, gpu_t, &blob, GM_HOST) == GM_OK &&
             gm_blob_from_image(&f, &b, 1.0, mean, std_, 1, NULL) == GM_OK && !memcmp(gpu_t, cpu_t, face * FACES * 2);
    }
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        if (align(GM_DEVICE, frame, M, 0, FACES, gpu, gpu_t) != GM_OK) {
            printf("align_faces: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && !memcmp(cpu, gpu, face * FACES) && !memcmp(cpu_t, gpu_t, face * FACES * 2);
        printf("align_faces: %s: %d faces -> %dx3x%dx%d f16 on %s %s the CPU path (landmarks within %.2f px)\n",
               ok ? "OK" : "FAILED", FACES, FACES, S, S, name, ok ? "matches" : "DIFFERS from", worst);
    } else {
        printf("align_faces: %s: no GPU (%s); the CPU path aligned %d faces into %dx3x%dx%d f16 in one call, each "
               "as its face alone, the tensor those faces normalised, landmarks within %.2f px of ArcFace's\n",
               ok ? "OK" : "FAILED", gm_last_error(), FACES, FACES, S, S, worst);
    }
    free(frame), free(cpu), free(gpu), free(one), free(cpu_t), free(gpu_t);
    return ok ? 0 : 1;
}
