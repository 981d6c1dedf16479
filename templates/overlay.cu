/* SPDX-License-Identifier: MIT */
/* The sprite overlay: a block a frame tile that sprites touch, a thread a
 * pixel of it, which takes the tile's sprites in the caller's order: the
 * frame pixel is read once, blended with each sprite over it
 * (templates/overlay.inc), and written once, so overlapping sprites need
 * no ordering between threads. */
__device__ __forceinline__ void gm__overlay(const gm__overlay_args& a)
{
    gm__grid_begin();
    const gm__overlay_tile t = ((const gm__overlay_tile*)a.tiles)[blockIdx.x];
    const int x = t.x * GM__OVERLAY_TILE_W + (int)threadIdx.x, y = t.y * GM__OVERLAY_TILE_H + (int)threadIdx.y;
    unsigned char* d = (unsigned char*)(a.frame + (unsigned long long)(y * a.pitch + (long long)x * a.channels));
    unsigned char px[4];
    int touched = 0;
    if (x >= a.width || y >= a.height)
        return;
    for (int k = 0; k < t.count; ++k) {
        const gm__sprite_entry s = ((const gm__sprite_entry*)a.sprites)[((const int*)a.order)[t.first + k]];
        if (x < s.x0 || x >= s.x1 || y < s.y0 || y >= s.y1)
            continue;
        const unsigned char* p =
            (const unsigned char*)(s.data + (unsigned long long)((y - s.y0) * s.pitch + (long long)(x - s.x0) * (s.kind == 2 ? 1 : 4)));
        unsigned char sp[4];
#pragma unroll
        for (int c = 0; c < 4; ++c)
            sp[c] = c == 0 || s.kind != 2 ? p[c] : 0;
        if (!touched)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                px[c] = c < a.channels ? d[c] : 0;
        touched = 1;
        gm__overlay_pixel(px, a.channels, a.rgb, a.over, s.kind, sp, s.color);
    }
    if (touched)
#pragma unroll
        for (int c = 0; c < 4; ++c)
            if (c < a.channels)
                d[c] = px[c];
}

/* The entry point of the overlay's one catalogue row (its fields unused). */
#define GM__ENTRY_OVERLAY(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(GM__OVERLAY_TILE_W * GM__OVERLAY_TILE_H) name(gm__overlay_args a) \
    { gm__overlay(a); }
