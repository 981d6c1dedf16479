/* SPDX-License-Identifier: MIT */
/* gpumat demo: a built-in test card through the DNN pre-process
 * (blob_from_image: BGR u8 -> RGB f32 NCHW, ImageNet mean/std). The pipeline
 * is written the GPU way (gm_alloc, gm_upload, gm_blob_from_image,
 * gm_download_sync) and runs on the GPU when there is one, else on the CPU
 * path; the CPU path also computes the blob from host memory as the
 * reference. It prints which path ran and why, whether the GPU and CPU
 * results agreed bit for bit, the full paths of the three PGM planes it
 * wrote, and what to read next. Exit status 0 only when every step worked
 * and (with a GPU) both results are the same bits.
 *
 * Build and run: make   (or: cc -std=c99 -O2 -Iinclude examples/demo.c -ldl -lpthread -lm && ./a.out OUTDIR) */
#define _XOPEN_SOURCE 700 /* realpath */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 640
#define H 360
#define BLOB_BYTES ((size_t)W * H * 3 * sizeof(float))

/* SMPTE-like colour bars over a grey ramp and a fine checkerboard: edges,
 * flat areas and every channel value, so mistakes show in the planes. */
static void test_card(unsigned char* bgr)
{
    static const unsigned char bars[7][3] = {{192, 192, 192}, {0, 192, 192}, {192, 192, 0}, {0, 192, 0},
                                             {192, 0, 192},   {0, 0, 192},   {192, 0, 0}};
    int x, y, c;
    for (y = 0; y < H; ++y)
        for (x = 0; x < W; ++x) {
            unsigned char* p = bgr + (y * W + x) * 3;
            for (c = 0; c < 3; ++c) {
                if (y < H * 2 / 3)
                    p[c] = bars[x * 7 / W][c];
                else if (y < H * 5 / 6)
                    p[c] = (unsigned char)(x * 255 / (W - 1));
                else
                    p[c] = ((x / 8 + y / 8) & 1) ? 235 : 16;
            }
        }
}

static unsigned long long fnv1a(const void* data, size_t n)
{
    const unsigned char* p = (const unsigned char*)data;
    unsigned long long h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < n; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Plane c of the blob, mapped to 0..255 by gpumat's own convert, as a PGM in
 * dir (an absolute path). */
static int write_plane(const gm_mat* blob, int c, const char* dir, const char* name, const char* what)
{
    char path[PATH_MAX + 64];
    gm_mat plane, u8;
    FILE* f = NULL;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (gm_plane(blob, &plane, c) != GM_OK || gm_alloc_host(&u8, W, H, GM_U8, 1, GM_HWC, 0) != GM_OK) {
        printf("could not write %s: %s\n", path, gm_last_error());
        return 0;
    }
    /* blob values span about -2.1 .. 2.7 */
    ok = gm_convert(&plane, &u8, 255.0 / 4.8, 2.1 * 255.0 / 4.8, NULL) == GM_OK;
    if (!ok)
        printf("could not write %s: %s\n", path, gm_last_error());
    else if ((f = fopen(path, "wb")) == NULL)
        ok = 0, printf("could not write %s: cannot open it\n", path);
    if (f) {
        fprintf(f, "P5\n%d %d\n255\n", W, H);
        ok = fwrite(u8.data, 1, (size_t)W * H, f) == (size_t)W * H;
        ok = fclose(f) == 0 && ok;
        if (ok)
            printf("wrote %s (%s)\n", path, what);
        else
            printf("could not write %s: write failed\n", path);
    }
    gm_free(&u8);
    return ok;
}

/* The pre-process as a GPU program writes it: device images from gm_alloc
 * (host images on the CPU path), upload, blob, download into out. */
static int run_pipeline(const unsigned char* card, float* out, const double* mean, const double* std)
{
    gm_mat frame, blob;
    int ok;
    memset(&frame, 0, sizeof frame); /* gm_free of a zeroed descriptor is a no-op */
    memset(&blob, 0, sizeof blob);
    ok = gm_alloc(&frame, W, H, GM_U8, 3, GM_HWC) == GM_OK && gm_alloc(&blob, W, H, GM_F32, 3, GM_CHW) == GM_OK &&
         gm_upload(&frame, card, 0, NULL) == GM_OK &&
         gm_blob_from_image(&frame, &blob, 1.0, mean, std, /* swap_rb */ 1, NULL) == GM_OK &&
         gm_download_sync(&blob, out, 0) == GM_OK && gm_sync(NULL) == GM_OK;
    if (!ok)
        printf("the pipeline failed: %s\n", gm_last_error());
    gm_free(&frame);
    gm_free(&blob);
    return ok;
}

static size_t count_differences(const float* a, const float* b, size_t n)
{
    size_t i, d = 0;
    for (i = 0; i < n; ++i)
        d += memcmp(&a[i], &b[i], sizeof *a) != 0;
    return d;
}

int main(int argc, char** argv)
{
    /* ImageNet statistics in 0..255 pixel units, in the blob's RGB order */
    static const double mean[3] = {123.675, 116.28, 103.53}, std[3] = {58.395, 57.12, 57.375};
    static unsigned char card[W * H * 3];
    static float out[W * H * 3];
    char name[256], dir[PATH_MAX];
    int major, minor, ok, on_gpu;
    gm_mat frame, ref;
    gm_status s;

    if (!realpath(argc > 1 ? argv[1] : ".", dir)) {
        printf("demo: the output folder %s does not exist\n", argc > 1 ? argv[1] : ".");
        return 1;
    }
    printf("gpumat %s demo: a %dx%d BGR u8 test card -> RGB f32 NCHW blob, (x - mean) / std\n", gm_version(), W, H);

    /* Which path: gm_path() decides once per process; gm_device() names the
     * GPU, or says why there is none. */
    on_gpu = gm_path() == GM_DEVICE;
    s = gm_device(&major, &minor, name, sizeof name);
    if (on_gpu)
        printf("path: GPU, %s (sm_%d%d)\n", name, major, minor);
    else
        printf("path: CPU, no usable GPU: %s (%s)\n", gm_status_string(s), gm_last_error());

    /* The reference: the CPU path on host memory, whatever the machine has. */
    test_card(card);
    if (gm_wrap(&frame, card, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST) != GM_OK ||
        gm_alloc_host(&ref, W, H, GM_F32, 3, GM_CHW, 0) != GM_OK ||
        gm_blob_from_image(&frame, &ref, 1.0, mean, std, 1, NULL) != GM_OK) {
        printf("the CPU path failed: %s\n", gm_last_error());
        return 1;
    }

    ok = run_pipeline(card, out, mean, std);
    if (ok && on_gpu) {
        size_t d = count_differences(out, (const float*)ref.data, (size_t)W * H * 3);
        if (d == 0)
            printf("GPU and CPU results agreed bit for bit (checksum %016llx)\n", fnv1a(out, BLOB_BYTES));
        else
            printf("GPU and CPU results DISAGREE: %lu of %d values differ (GPU checksum %016llx, CPU %016llx)\n",
                   (unsigned long)d, W * H * 3, fnv1a(out, BLOB_BYTES), fnv1a(ref.data, BLOB_BYTES));
        ok = d == 0;
    } else if (ok) {
        /* Same calls, host memory: the CPU path against itself, as a check that
         * the GPU-way pipeline ran unchanged. */
        ok = count_differences(out, (const float*)ref.data, (size_t)W * H * 3) == 0;
        printf(ok ? "CPU path only, no GPU result to compare with (checksum %016llx)\n"
                  : "CPU path: the pipeline's result differs from the reference (checksum %016llx)\n",
               fnv1a(out, BLOB_BYTES));
    }

    ok = write_plane(&ref, 0, dir, "blob_r.pgm", "R plane, 0..255") && ok;
    ok = write_plane(&ref, 1, dir, "blob_g.pgm", "G plane, 0..255") && ok;
    ok = write_plane(&ref, 2, dir, "blob_b.pgm", "B plane, 0..255") && ok;
    gm_free(&ref);

    printf("next: examples/trt_input.c (a TensorRT input binding), examples/pipeline.c (streams, pinned\n"
           "      buffers), examples/wrap_foreign.c (OpenCV and torch memory), examples/mask_overlay.c,\n"
           "      examples/python/; README.md sections \"Quick start\", \"CPU-only use\", \"The typed layer\"\n");
    printf("demo: %s\n", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
