/* SPDX-License-Identifier: MIT */
/* The sprite overlay: a block a frame tile that sprites touch, a thread
 * four pixels of one of its rows (of a 4:2:0 frame a 2x2 block with its
 * chroma pair), which takes the tile's sprites in the
 * caller's order: the pixels are read once, blended with each sprite over
 * them (templates/overlay.inc), and written once, so overlapping sprites
 * need no ordering between threads. Four pixels a thread, and the tile's
 * sprite entries in shared memory, keep enough loads in flight to reach
 * the memory's bandwidth. */

/* The C-channel pixels [0, n) of a thread's four at d, as bytes; whole
 * words where words (n is 4 then). */
template <int C> __device__ __forceinline__ void gm__group_load(const unsigned char* d, unsigned char* px, int n, int words)
{
    unsigned w[C];
    if (words && n == 4) {
        if constexpr (C == 4) {
            const uint4 v = *(const uint4*)d;
            w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
        } else {
#pragma unroll
            for (int i = 0; i < C; ++i)
                w[i] = ((const unsigned*)d)[i];
        }
#pragma unroll
        for (int i = 0; i < 4 * C; ++i)
            px[i] = (unsigned char)(w[i / 4] >> (8 * (i % 4)));
        return;
    }
#pragma unroll
    for (int i = 0; i < 4 * C; ++i)
        px[i] = i < n * C ? d[i] : 0;
}

template <int C> __device__ __forceinline__ void gm__group_store(unsigned char* d, const unsigned char* px, int n, int words)
{
    unsigned w[C];
    if (words && n == 4) {
#pragma unroll
        for (int i = 0; i < C; ++i)
            w[i] = px[4 * i] | (unsigned)px[4 * i + 1] << 8 | (unsigned)px[4 * i + 2] << 16 | (unsigned)px[4 * i + 3] << 24;
        if constexpr (C == 4) {
            *(uint4*)d = make_uint4(w[0], w[1], w[2], w[3]);
        } else {
#pragma unroll
            for (int i = 0; i < C; ++i)
                ((unsigned*)d)[i] = w[i];
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < 4 * C; ++i)
        if (i < n * C)
            d[i] = px[i];
}

/* Calls draw(s) for each sprite entry s over the block's tile, in the
 * caller's order; entry: shared memory for GM__OVERLAY_THREADS entries. */
template <class Draw>
__device__ __forceinline__ void gm__each_sprite(const gm__overlay_args& a, const gm__overlay_tile& t,
                                                gm__sprite_entry* entry, Draw draw)
{
    const int thread = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    for (int first = 0; first < t.count; first += GM__OVERLAY_THREADS) {
        const int chunk = min(GM__OVERLAY_THREADS, t.count - first);
        __syncthreads(); /* the previous chunk's entries are read */
        if (thread < chunk)
            entry[thread] = ((const gm__sprite_entry*)a.sprites)[((const int*)a.order)[t.first + first + thread]];
        __syncthreads();
        for (int k = 0; k < chunk; ++k)
            draw(entry[k]);
    }
}

/* Sprite s's pixel on frame pixel (x, y), which it covers, into sp[0..4)
 * (a mask's coverage in sp[0]). */
__device__ __forceinline__ void gm__sprite_load(const gm__sprite_entry& s, int x, int y, unsigned char* sp)
{
    const unsigned char* row = (const unsigned char*)(s.data + (unsigned long long)((long long)(y - s.y0) * s.pitch));
    const int at = x - s.x0;
    if (s.kind == 2) {
        sp[0] = row[at], sp[1] = sp[2] = sp[3] = 0;
    } else if (s.words) {
        const unsigned v = ((const unsigned*)row)[at];
        sp[0] = (unsigned char)v, sp[1] = (unsigned char)(v >> 8), sp[2] = (unsigned char)(v >> 16),
        sp[3] = (unsigned char)(v >> 24);
    } else {
#pragma unroll
        for (int c = 0; c < 4; ++c)
            sp[c] = row[4 * at + c];
    }
}

/* An image frame of C channels: a thread takes four pixels of a row. */
template <int C> __device__ __forceinline__ void gm__overlay(const gm__overlay_args& a, gm__sprite_entry* entry)
{
    const gm__overlay_tile t = ((const gm__overlay_tile*)a.tiles)[blockIdx.x];
    const int x = t.x * GM__OVERLAY_TILE_W + 4 * (int)threadIdx.x, y = t.y * GM__OVERLAY_TILE_H + (int)threadIdx.y;
    const int n = y < a.height ? min(4, a.width - x) : 0; /* the thread's pixels inside the frame */
    unsigned char* d = (unsigned char*)(a.frame + (unsigned long long)((long long)y * a.pitch + (long long)x * C));
    unsigned char px[4 * C];
    int touched = 0;
    gm__each_sprite(a, t, entry, [&](const gm__sprite_entry& s) {
        if (n <= 0 || y < s.y0 || y >= s.y1 || x + 3 < s.x0 || x >= s.x1)
            return;
        if (!touched)
            gm__group_load<C>(d, px, n, a.words);
        touched = 1;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            unsigned char sp[4];
            if (j >= n || x + j < s.x0 || x + j >= s.x1)
                continue;
            gm__sprite_load(s, x + j, y, sp);
            gm__overlay_pixel(px + C * j, C, a.rgb, a.over, s.kind, sp, s.color);
        }
    });
    if (touched)
        gm__group_store<C>(d, px, n, a.words);
}

/* A 4:2:0 frame: a thread takes a 2x2 block, its four luma samples and
 * its chroma pair (the frame's width and height are even). */
__device__ __forceinline__ void gm__overlay_yuv(const gm__overlay_args& a, gm__sprite_entry* entry)
{
    const gm__overlay_tile t = ((const gm__overlay_tile*)a.tiles)[blockIdx.x];
    const int x = t.x * GM__OVERLAY_TILE_W + 2 * (int)threadIdx.x, y = t.y * GM__OVERLAY_TILE_H + 2 * (int)threadIdx.y;
    const gm__yuv_args* f = &a.planes;
    unsigned char luma[4], chroma[2];
    int touched = 0;
    gm__each_sprite(a, t, entry, [&](const gm__sprite_entry& s) {
        unsigned char px[16];
        int covered = 0;
        if (x >= a.width || y >= a.height || y + 1 < s.y0 || y >= s.y1 || x + 1 < s.x0 || x >= s.x1)
            return;
        if (!touched) {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                luma[k] = *(const unsigned char*)gm__yuv_luma_at(f, 0, x + (k & 1), y + (k >> 1));
            chroma[0] = *(const unsigned char*)gm__yuv_u_at(f, 0, x, y);
            chroma[1] = *(const unsigned char*)gm__yuv_v_at(f, 0, x, y);
        }
        touched = 1;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int px_x = x + (k & 1), px_y = y + (k >> 1);
            if (px_x < s.x0 || px_x >= s.x1 || px_y < s.y0 || px_y >= s.y1)
                continue;
            covered |= 1 << k;
            gm__sprite_load(s, px_x, px_y, px + 4 * k);
        }
        gm__overlay_block(f, s.kind, s.color, px, covered, luma, chroma);
    });
    if (!touched)
        return;
#pragma unroll
    for (int k = 0; k < 4; ++k)
        *(unsigned char*)gm__yuv_luma_at(f, 0, x + (k & 1), y + (k >> 1)) = luma[k];
    *(unsigned char*)gm__yuv_u_at(f, 0, x, y) = chroma[0];
    *(unsigned char*)gm__yuv_v_at(f, 0, x, y) = chroma[1];
}

/* The entry point of the overlay's one catalogue row (its fields unused):
 * blocks of GM__OVERLAY_THREADS threads, 4 pixels of a row or a 2x2
 * block of a 4:2:0 frame each. */
#define GM__ENTRY_OVERLAY(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(GM__OVERLAY_THREADS) name(gm__overlay_args a) \
    { \
        __shared__ gm__sprite_entry entry[GM__OVERLAY_THREADS]; \
        gm__grid_begin(); \
        if (a.yuv) \
            gm__overlay_yuv(a, entry); \
        else if (a.channels == 4) \
            gm__overlay<4>(a, entry); \
        else \
            gm__overlay<3>(a, entry); \
    }
