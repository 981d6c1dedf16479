/* SPDX-License-Identifier: MIT */
/* draw_labels: detections drawn on a 1080p BGRA frame the way Savant draws
 * them, without its full-frame overlay. Each frame, every box becomes four
 * coverage masks (its edges) and its label a small RGBA sprite rendered on
 * the CPU with a tiny bitmap font; gm_overlay_draw uploads only those
 * sprites' bytes and draws them all in one launch. Prints the bytes
 * uploaded per frame against a full-frame RGBA overlay's. On a GPU the
 * frame is then checked against the CPU path drawing the same sprites;
 * without one the CPU path runs alone.
 *
 * Build and run: make examples && ./build/draw_labels */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1920
#define H 1080
#define FRAMES 5
#define BOXES 24
#define SCALE 2 /* font pixels per glyph dot */

/* A 3x5 font: each glyph five rows of three bits (the high bit on the left). */
static const struct {
    char c;
    unsigned char rows[5];
} font[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 1, 1}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'.', {0, 0, 0, 0, 2}}, {'a', {0, 7, 1, 7, 7}},
    {'c', {0, 7, 4, 4, 7}}, {'e', {7, 5, 7, 4, 7}}, {'n', {0, 6, 5, 5, 5}}, {'o', {0, 7, 5, 5, 7}},
    {'p', {7, 5, 7, 4, 4}}, {'r', {0, 7, 4, 4, 4}}, {'s', {7, 4, 7, 1, 7}}, {'t', {2, 7, 2, 2, 3}},
    {'u', {0, 5, 5, 5, 7}}, {'b', {4, 4, 7, 5, 7}}, {'i', {2, 0, 2, 2, 2}}, {'k', {4, 5, 6, 5, 5}},
};

static const unsigned char* glyph(char c)
{
    size_t i;
    for (i = 0; i < sizeof font / sizeof font[0]; ++i)
        if (font[i].c == c)
            return font[i].rows;
    return NULL; /* a space, or a character the font lacks */
}

static unsigned rnd(void)
{
    static unsigned long long s = 0x2545f4914f6cdd1dull;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(s >> 33);
}

typedef struct detection {
    int x, y, w, h;
    const char* name;
    int score; /* percent */
} detection;

/* A label: white text on a translucent box of the class colour, RGBA,
 * straight alpha. Returns the sprite (its image in host memory). */
static gm_sprite label_sprite(const char* text, const unsigned char* rgb, int x, int y)
{
    const int n = (int)strlen(text), w = (4 * n + 1) * SCALE, h = 7 * SCALE;
    gm_sprite s;
    unsigned char* p;
    int i, r, c;
    memset(&s, 0, sizeof s);
    if (gm_alloc_host(&s.image, w, h, GM_U8, 4, GM_HWC, 0) != GM_OK)
        return s;
    for (r = 0; r < h; ++r)
        for (c = 0; c < w; ++c) {
            p = (unsigned char*)s.image.data + r * s.image.pitch + 4 * c;
            p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = 160;
        }
    for (i = 0; i < n; ++i) {
        const unsigned char* g = glyph(text[i]);
        for (r = 0; g && r < 5 * SCALE; ++r)
            for (c = 0; c < 3 * SCALE; ++c)
                if (g[r / SCALE] >> (2 - c / SCALE) & 1) {
                    p = (unsigned char*)s.image.data + (r + SCALE) * s.image.pitch + 4 * ((4 * i + 1) * SCALE + c);
                    p[0] = p[1] = p[2] = p[3] = 255;
                }
    }
    s.x = x;
    s.y = y - h;
    s.kind = GM_SPRITE_RGBA;
    return s;
}

/* A box outline, 3 pixels wide, as four coverage masks of the class
 * colour: views of `ink` (a full-coverage mask as wide and as tall as the
 * frame), so a box uploads its edges' bytes, not its area. */
static void box_sprites(const detection* d, const unsigned char* rgb, const gm_mat* ink, gm_sprite* s)
{
    const int x[4] = {d->x, d->x, d->x, d->x + d->w - 3}, y[4] = {d->y, d->y + d->h - 3, d->y, d->y};
    const int w[4] = {d->w, d->w, 3, 3}, h[4] = {3, 3, d->h, d->h};
    int e;
    for (e = 0; e < 4; ++e) {
        memset(&s[e], 0, sizeof s[e]);
        gm_roi(ink, &s[e].image, 0, 0, w[e], h[e]);
        s[e].x = x[e];
        s[e].y = y[e];
        s[e].kind = GM_SPRITE_MASK;
        memcpy(s[e].color, rgb, 3);
        s[e].color[3] = 255;
    }
}

/* One frame's detections, some reaching past the frame's edges. */
static void detect(detection* d)
{
    static const char* const names[] = {"person", "car", "bus", "bike", "truck"};
    int i;
    for (i = 0; i < BOXES; ++i) {
        d[i].w = 60 + (int)(rnd() % 300);
        d[i].h = 60 + (int)(rnd() % 300);
        d[i].x = (int)(rnd() % (W + 40)) - 20 - d[i].w / 4;
        d[i].y = (int)(rnd() % (H + 40)) - 20;
        d[i].name = names[rnd() % 5];
        d[i].score = 50 + (int)(rnd() % 50);
    }
}

static size_t sprite_bytes(const gm_sprite* s, int n)
{
    size_t b = 0;
    int i;
    for (i = 0; i < n; ++i)
        b += (size_t)(s[i].image.width * s[i].image.height * s[i].image.channels);
    return b;
}

int main(void)
{
    static const unsigned char colours[5][3] = {{230, 60, 60}, {60, 200, 60}, {60, 120, 240}, {240, 200, 40},
                                                {200, 60, 220}};
    gm_overlay* ov = NULL;
    gm_mat host, dev, check, ink;
    gm_sprite sprites[5 * BOXES];
    detection d[BOXES];
    char text[32];
    int gpu, f, i, same = 1;
    size_t uploaded = 0;
    memset(&dev, 0, sizeof dev);
    memset(&check, 0, sizeof check);
    if (gm_alloc_host(&host, W, H, GM_U8, 4, GM_HWC, 0) != GM_OK || gm_alloc_host(&ink, W, H, GM_U8, 1, GM_HWC, 0) != GM_OK ||
        gm_overlay_create(&ov) != GM_OK) {
        printf("draw_labels: setup failed: %s\n", gm_last_error());
        return 1;
    }
    memset(ink.data, 255, (size_t)gm_span_bytes(&ink));
    for (i = 0; i < (int)gm_span_bytes(&host); ++i) /* a frame to draw on */
        ((unsigned char*)host.data)[i] = (unsigned char)(i % 4 == 3 ? 255 : (i / 4 % W + i / 4 / W * 3) & 255);
    gpu = gm_alloc_device(&dev, W, H, GM_U8, 4, GM_HWC) == GM_OK &&
          gm_alloc_host(&check, W, H, GM_U8, 4, GM_HWC, 0) == GM_OK && gm_copy(&host, &dev, NULL) == GM_OK;
    if (!gpu)
        printf("draw_labels: no GPU (%s); drawing with the CPU path\n", gm_last_error());
    for (f = 0; f < FRAMES; ++f) {
        detect(d);
        for (i = 0; i < BOXES; ++i) {
            const unsigned char* rgb = colours[(d[i].name[0] + d[i].name[1]) % 5];
            snprintf(text, sizeof text, "%s %d.%02d", d[i].name, d[i].score / 100, d[i].score % 100);
            box_sprites(&d[i], rgb, &ink, &sprites[5 * i]);
            sprites[5 * i + 4] = label_sprite(text, rgb, d[i].x, d[i].y);
            if (!sprites[5 * i + 4].image.data) {
                printf("draw_labels: sprite allocation failed: %s\n", gm_last_error());
                return 1;
            }
        }
        uploaded += sprite_bytes(sprites, 5 * BOXES);
        /* the GPU draws from the sprites' host memory; the CPU path then
         * draws the same sprites on the host frame, the reference */
        if (gpu && gm_overlay_draw(ov, &dev, sprites, 5 * BOXES, NULL, NULL) != GM_OK) {
            printf("draw_labels: gm_overlay_draw (GPU): %s\n", gm_last_error());
            return 1;
        }
        if (gm_overlay_draw(ov, &host, sprites, 5 * BOXES, NULL, NULL) != GM_OK) {
            printf("draw_labels: gm_overlay_draw (CPU): %s\n", gm_last_error());
            return 1;
        }
        for (i = 0; i < BOXES; ++i)
            gm_free(&sprites[5 * i + 4].image); /* the draw has staged the labels: free at once */
    }
    printf("draw_labels: %d frames of %dx%d, %d boxes and labels each: %.1f KB of sprites uploaded a frame, "
           "against %.1f KB for a full-frame RGBA overlay (%.0fx less)\n",
           FRAMES, W, H, BOXES, uploaded / (double)FRAMES / 1024, (double)W * H * 4 / 1024,
           (double)W * H * 4 * FRAMES / (double)uploaded);
    if (gpu) {
        same = gm_copy(&dev, &check, NULL) == GM_OK && gm_sync(NULL) == GM_OK &&
               memcmp(check.data, host.data, (size_t)gm_span_bytes(&host)) == 0;
        printf(same ? "draw_labels: OK (the GPU frame matches the CPU path's, byte for byte)\n"
                    : "draw_labels: the GPU frame differs from the CPU path's\n");
    } else {
        printf("draw_labels: OK (CPU path)\n");
    }
    gm_overlay_destroy(ov);
    gm_free(&host);
    gm_free(&dev);
    gm_free(&check);
    gm_free(&ink);
    return same ? 0 : 1;
}
