/* SPDX-License-Identifier: MIT */
/* The pre-process kernel: one thread per GM__COLUMN_ROWS destination pixels
 * of a column of one item, all their channels (templates/prep.inc, the code
 * the CPU path runs); or, where the host set the items' map.tile, the
 * resize's tile path (templates/resize.cu) with the pre-process's store.
 * Every item of a launch resizes by the kernel's sampler I and path (the
 * host groups them). */
template <int S, int D, int C, int I>
__device__ __forceinline__ void gm__prep_tiles(const gm__prep_args& a)
{
    enum { P = GM__TILE_PIXELS_PREP };
    long long x = (long long)blockIdx.x * 32 * P + threadIdx.x, y, end, at;
    gm__prep_math m;
    gm__tile_run(a.height, &y, &end);
    gm__prep_math_of(S, C, &a, &m);
    for (long long b = blockIdx.z; b < a.count; b += gridDim.z) {
        const gm__prep_item* it = &a.items[b];
        long long rx = x - it->left;
        gm__resize_args src;
        gm__tile<C, I, P> t;
        gm__prep_source(it, C, &src);
        t.columns(src, rx, it->width);
        for (at = y; at < end; at += 32)
            t.rows(src, 0, at, at + 32 < end ? at + 32 : end, it->top, it->height, [&](long long row, int inside,
                                                                                      const int* v) {
                unsigned long long p = it->dst + (unsigned long long)(row * a.dst_pitch);
                GM__UNROLL
                for (int j = 0; j < P; ++j) {
                    unsigned char value[4 * GM__SLOT];
                    if (x + 32 * j >= a.width)
                        continue;
                    GM__UNROLL
                    for (int k = 0; k < C; ++k) {
                        if (inside && rx + 32 * j >= 0 && rx + 32 * j < it->width)
                            gm__encode_i(S, value + k * GM__SLOT, v[j * C + k]);
                        else
                            gm__copy_bits(S, m.pad + k * GM__SLOT, value + k * GM__SLOT);
                    }
                    gm__prep_store(S, D, C, &a, &m, value,
                                   (unsigned char*)(p + (unsigned long long)((x + 32 * j) * a.dst_xstride)));
                }
            });
    }
}

template <int S, int D, int C, int I>
__device__ __forceinline__ void gm__prep(const gm__prep_args& a)
{
    if (gm__has_tiles<S, I>() && a.items[0].map.tile) {
        gm__grid_begin();
        gm__prep_tiles<S, D, C, I>(a);
        return;
    }
    gm__each_run(a.width, a.height, a.count, GM__COLUMN_ROWS, [&](long long b, long long x, long long y, long long end) {
        gm__prep_sampled(S, D, C, I, &a, b, x, y, end);
    });
}

/* The entry point of one pre-process row (gen/model.py): source dtype S,
 * destination dtype D, source channels C, sampler I; at 4 blocks a
 * multiprocessor (64 registers), or 3 (80) for the kernels with the tile
 * path, which holds more: at 2 they ran slower, the warps too few to keep
 * the loads in flight (bench/RESULTS.md). */
#define GM__ENTRY_PREP(name, S, D, C, LS, LD, P, R, B, I)                                                  \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS, gm__has_tiles<S, I>() ? 3 : 4) name( \
        gm__prep_args a)                                                                                 \
    {                                                                                                    \
        gm__prep<S, D, C, I>(a);                                                                         \
    }
