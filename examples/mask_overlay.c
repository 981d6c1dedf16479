/* SPDX-License-Identifier: MIT */
/* mask_overlay: a segmentation network's output, three planar f32
 * probability maps (person, vehicle, road: a (3, H, W) tensor), into a u8 BGR
 * overlay image in one call: person red, vehicle green, road blue, scaled
 * 0..1 -> 0..255 and saturated. Writes the overlay as overlay.ppm. On the GPU
 * the result is checked against the CPU path; without one the CPU path runs
 * alone.
 *
 * Build and run: make examples && ./build/mask_overlay [OUTDIR] */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 512
#define H 384

enum { PERSON, VEHICLE, ROAD };

/* Soft blobs as a network would produce: a person disc, a vehicle box, road below. */
static void fake_network_output(float* planes)
{
    int x, y;
    for (y = 0; y < H; ++y)
        for (x = 0; x < W; ++x) {
            double d = hypot(x - 140.0, y - 150.0) / 70.0;
            size_t i = (size_t)y * W + x;
            planes[PERSON * W * H + i] = (float)(d < 1 ? 1 - d * d : 0);
            planes[VEHICLE * W * H + i] = (x > 280 && x < 460 && y > 170 && y < 280) ? 0.9f : 0.0f;
            planes[ROAD * W * H + i] = (float)(y > 260 ? (y - 260) / 124.0 : 0);
        }
}

/* mask (planar f32 in `where`) -> overlay (interleaved u8 BGR in `where`). */
static gm_status colourise(const gm_mat* mask, gm_mat* overlay)
{
    gm_xform x = gm_xform_identity();
    int c;
    x.map[0] = ROAD, x.map[1] = VEHICLE, x.map[2] = PERSON; /* B, G, R */
    for (c = 0; c < 3; ++c)
        x.scale[c] = 255.0;
    return gm_transform(mask, overlay, &x, NULL);
}

/* Runs colourise with the images in `where`; the overlay lands in bgr. */
static gm_status run(gm_where where, float* planes, unsigned char* bgr)
{
    gm_mat host_mask, host_overlay, mask, overlay;
    gm_status s;
    memset(&mask, 0, sizeof mask);
    memset(&overlay, 0, sizeof overlay);
    if ((s = gm_wrap(&host_mask, planes, W, H, GM_F32, 3, GM_CHW, 0, GM_HOST)) != GM_OK ||
        (s = gm_wrap(&host_overlay, bgr, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST)) != GM_OK)
        return s;
    if (where == GM_HOST) /* the CPU path works on the host images directly */
        return colourise(&host_mask, &host_overlay);
    if ((s = gm_alloc(&mask, W, H, GM_F32, 3, GM_CHW)) == GM_OK &&
        (s = gm_alloc(&overlay, W, H, GM_U8, 3, GM_HWC)) == GM_OK &&
        (s = gm_copy(&host_mask, &mask, NULL)) == GM_OK && (s = colourise(&mask, &overlay)) == GM_OK &&
        (s = gm_copy(&overlay, &host_overlay, NULL)) == GM_OK)
        s = gm_sync(NULL);
    gm_free(&mask);
    gm_free(&overlay);
    return s;
}

static int write_ppm(const char* path, const unsigned char* bgr)
{
    FILE* f = fopen(path, "wb");
    size_t i;
    int ok = f != NULL;
    if (!ok)
        return 0;
    fprintf(f, "P6\n%d %d\n255\n", W, H);
    for (i = 0; i < (size_t)W * H && ok; ++i) /* PPM is RGB */
        ok = fputc(bgr[3 * i + 2], f) != EOF && fputc(bgr[3 * i + 1], f) != EOF && fputc(bgr[3 * i], f) != EOF;
    return fclose(f) == 0 && ok;
}

int main(int argc, char** argv)
{
    static float planes[3 * W * H];
    static unsigned char cpu[W * H * 3], gpu[W * H * 3];
    char path[1024], name[256];
    int major, minor, ok;
    const unsigned char* person = cpu + (150 * W + 140) * 3;
    fake_network_output(planes);
    if (run(GM_HOST, planes, cpu) != GM_OK) {
        printf("mask_overlay: FAILED on the CPU path: %s\n", gm_last_error());
        return 1;
    }
    ok = person[2] == 255 && person[1] == 0 && person[0] == 0; /* the centre of the person is pure red */
    snprintf(path, sizeof path, "%s/overlay.ppm", argc > 1 ? argv[1] : ".");
    ok = write_ppm(path, cpu) && ok;
    if (gm_device(&major, &minor, name, sizeof name) == GM_OK) {
        if (run(GM_DEVICE, planes, gpu) != GM_OK) {
            printf("mask_overlay: FAILED on the GPU: %s\n", gm_last_error());
            return 1;
        }
        ok = ok && !memcmp(cpu, gpu, sizeof cpu);
        printf("mask_overlay: %s: %dx%d overlay on %s %s the CPU path; wrote %s\n", ok ? "OK" : "FAILED", W, H, name,
               ok ? "matches" : "DIFFERS from", path);
    } else {
        printf("mask_overlay: %s: no GPU (%s); the CPU path wrote %s\n", ok ? "OK" : "FAILED", gm_last_error(), path);
    }
    return ok ? 0 : 1;
}
