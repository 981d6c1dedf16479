/* SPDX-License-Identifier: MIT */
/* gpumat demo: a built-in test card through the DNN pre-process
 * (blob_from_image: BGR u8 -> RGB f32 NCHW, ImageNet mean/std), on the GPU when
 * there is one and always on the CPU path; checks that both agree bit for bit,
 * prints a checksum and writes the three output planes as PGM files.
 *
 * Build and run: make   (or: cc -std=c99 -Iinclude examples/demo.c -ldl -lpthread -lm && ./a.out OUTDIR) */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 640
#define H 360

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

/* Plane c of the blob, mapped to 0..255 by gpumat's own convert, as a PGM. */
static int write_plane(const gm_mat* blob, int c, const char* dir, const char* name)
{
    char path[1024];
    gm_mat plane, u8;
    FILE* f;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (gm_plane(blob, &plane, c) != GM_OK || gm_alloc_host(&u8, W, H, GM_U8, 1, GM_HWC, 0) != GM_OK)
        return 0;
    /* blob values span about -2.1 .. 2.7 */
    ok = gm_convert(&plane, &u8, 255.0 / 4.8, 2.1 * 255.0 / 4.8, NULL) == GM_OK && (f = fopen(path, "wb")) != NULL;
    if (ok) {
        fprintf(f, "P5\n%d %d\n255\n", W, H);
        ok = fwrite(u8.data, 1, (size_t)W * H, f) == (size_t)W * H;
        ok = fclose(f) == 0 && ok;
    }
    gm_free(&u8);
    if (ok)
        printf("wrote %s\n", path);
    return ok;
}

/* The pre-process on the GPU; 1 if it ran and matches cpu_blob. */
static int run_on_gpu(const unsigned char* card, const gm_mat* cpu_blob, const double* mean, const double* std)
{
    gm_mat frame, blob;
    float* out = (float*)malloc((size_t)W * H * 3 * sizeof(float));
    int same = 0;
    memset(&frame, 0, sizeof frame); /* gm_free of a descriptor never filled is a no-op */
    memset(&blob, 0, sizeof blob);
    if (out && gm_alloc(&frame, W, H, GM_U8, 3, GM_HWC) == GM_OK && gm_alloc(&blob, W, H, GM_F32, 3, GM_CHW) == GM_OK &&
        gm_upload(&frame, card, 0, NULL) == GM_OK &&
        gm_blob_from_image(&frame, &blob, 1.0, mean, std, 1, NULL) == GM_OK &&
        gm_download_sync(&blob, out, 0) == GM_OK) {
        same = !memcmp(out, cpu_blob->data, (size_t)W * H * 3 * sizeof(float));
        printf("GPU result %s the CPU path (checksum %016llx)\n", same ? "is bit-identical to" : "DIFFERS from",
               fnv1a(out, (size_t)W * H * 3 * sizeof(float)));
    } else {
        printf("GPU run failed: %s\n", gm_last_error());
    }
    gm_free(&frame);
    gm_free(&blob);
    free(out);
    return same;
}

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : ".";
    /* ImageNet statistics in 0..255 pixel units, in the blob's RGB order */
    static const double mean[4] = {123.675, 116.28, 103.53, 0}, std[4] = {58.395, 57.12, 57.375, 1};
    static unsigned char card[W * H * 3];
    char name[256];
    int major, minor, ok;
    gm_mat frame, blob;
    gm_status s;

    test_card(card);
    if (gm_wrap(&frame, card, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST) != GM_OK ||
        gm_alloc_host(&blob, W, H, GM_F32, 3, GM_CHW, 0) != GM_OK ||
        gm_blob_from_image(&frame, &blob, 1.0, mean, std, 1, NULL) != GM_OK) {
        fprintf(stderr, "demo: %s\n", gm_last_error());
        return 1;
    }
    printf("test card %dx%d BGR u8 -> RGB f32 NCHW, (x - mean) / std\n", W, H);
    printf("CPU path checksum %016llx\n", fnv1a(blob.data, (size_t)W * H * 3 * sizeof(float)));

    s = gm_device(&major, &minor, name, sizeof name);
    if (s == GM_OK) {
        printf("GPU: %s (sm_%d%d)\n", name, major, minor);
        ok = run_on_gpu(card, &blob, mean, std);
    } else {
        printf("CPU path only: %s (%s)\n", gm_status_string(s), gm_last_error());
        ok = 1;
    }
    ok = write_plane(&blob, 0, dir, "blob_r.pgm") && write_plane(&blob, 1, dir, "blob_g.pgm") &&
         write_plane(&blob, 2, dir, "blob_b.pgm") && ok;
    gm_free(&blob);
    return ok ? 0 : 1;
}
