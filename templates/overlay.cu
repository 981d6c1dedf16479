/* SPDX-License-Identifier: MIT */
/* The sprite overlay: a block a frame tile that sprites touch, a thread
 * four pixels of one of its rows, which takes the tile's sprites in the
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

/* entry: shared memory for GM__OVERLAY_THREADS entries. */
template <int C> __device__ __forceinline__ void gm__overlay(const gm__overlay_args& a, gm__sprite_entry* entry)
{
    const gm__overlay_tile t = ((const gm__overlay_tile*)a.tiles)[blockIdx.x];
    const int thread = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    const int x = t.x * GM__OVERLAY_TILE_W + 4 * (int)threadIdx.x, y = t.y * GM__OVERLAY_TILE_H + (int)threadIdx.y;
    const int n = y < a.height ? min(4, a.width - x) : 0; /* the thread's pixels inside the frame */
    unsigned char* d = (unsigned char*)(a.frame + (unsigned long long)((long long)y * a.pitch + (long long)x * C));
    unsigned char px[4 * C];
    int touched = 0;
    for (int first = 0; first < t.count; first += GM__OVERLAY_THREADS) {
        const int chunk = min(GM__OVERLAY_THREADS, t.count - first);
        __syncthreads(); /* the previous chunk's entries are read */
        if (thread < chunk)
            entry[thread] = ((const gm__sprite_entry*)a.sprites)[((const int*)a.order)[t.first + first + thread]];
        __syncthreads();
        for (int k = 0; k < chunk; ++k) {
            const gm__sprite_entry& s = entry[k];
            if (n <= 0 || y < s.y0 || y >= s.y1 || x + 3 < s.x0 || x >= s.x1)
                continue;
            if (!touched)
                gm__group_load<C>(d, px, n, a.words);
            touched = 1;
            const unsigned char* row = (const unsigned char*)(s.data + (unsigned long long)((long long)(y - s.y0) * s.pitch));
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int at = x + j - s.x0;
                if (j >= n || at < 0 || x + j >= s.x1)
                    continue;
                unsigned char sp[4];
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
                gm__overlay_pixel(px + C * j, C, a.rgb, a.over, s.kind, sp, s.color);
            }
        }
    }
    if (touched)
        gm__group_store<C>(d, px, n, a.words);
}

/* The entry point of the overlay's one catalogue row (its fields unused). */
#define GM__ENTRY_OVERLAY(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(GM__OVERLAY_THREADS) name(gm__overlay_args a) \
    { \
        __shared__ gm__sprite_entry entry[GM__OVERLAY_THREADS]; \
        gm__grid_begin(); \
        if (a.channels == 4) \
            gm__overlay<4>(a, entry); \
        else \
            gm__overlay<3>(a, entry); \
    }
