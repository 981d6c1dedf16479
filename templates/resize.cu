/* SPDX-License-Identifier: MIT */
/* The resize kernel: one thread per GM__COLUMN_ROWS destination pixels of a
 * column, all channels of each, computing the taps as cv::resize does
 * (templates/resize.inc, the code the CPU path runs); or, where the host
 * set map.tile, the tile path below. */

/* The tile path (gm__tiles, impl/plan.h): u8 sources whose channels
 * interleave, by LINEAR or the 2x2 area mean, with the samplers' own taps
 * and arithmetic (gm__taps_x, gm__taps_y, gm__fixed_row, gm__fixed_column,
 * gm__quad_mean). A block takes 32 P destination columns (lane l the
 * columns l + 32 j, j < P, so that each load and store of a warp covers
 * neighbouring pixels) by GM__BLOCK_WARPS runs of rows; a warp walks its run
 * down, computing a source row's horizontal pass once and keeping the last
 * two, since an upscale reads each source row for several destination
 * rows. The per-pixel path spends most of its instructions recomputing
 * those passes and the rows' taps. A pass of column j is its two taps at
 * o[j] and o[j] + C, by the weights q0[j], q1[j] (the area mean: 1 and 1);
 * LINEAR's right edge, one tap, is taken as the second of a pair by weight
 * 2048 (the host leaves 1-pixel-wide sources to the per-pixel path).
 * A warp has only its current row's loads in flight, so it asks L2 for the
 * source rows of the row GM__TILE_AHEAD further on as it goes. */
#define GM__TILE_AHEAD 2
__device__ __forceinline__ void gm__prefetch(unsigned long long addr)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(addr));
}

template <int C, int I, int P>
struct gm__tile {
    unsigned long long src;
    long long row[2];
    unsigned o[P];
    int q0[P], q1[P];
    int h[2][P * C];

    /* The taps of region columns x + 32 j of a region n wide; columns
     * outside it take the nearest edge's (their results are not stored). */
    __device__ __forceinline__ void columns(const gm__resize_args& a, long long x, long long n)
    {
        GM__UNROLL
        for (int j = 0; j < P; ++j) {
            long long cx = gm__clip(x + 32 * j, 0, n - 1);
            gm__taps tx = gm__taps_x(GM_U8, I, &a, cx);
            o[j] = (unsigned)tx.o0, q0[j] = tx.q0, q1[j] = tx.q1;
            if (I == GM__SAMPLER_LINEAR && tx.s1 < 0)
                o[j] = (unsigned)tx.o0 - C, q0[j] = 0, q1[j] = 2048;
        }
        src = a.src[0];
        row[0] = row[1] = -1;
    }

    /* h[K]: the horizontal pass of the source row at byte offset ro. */
    template <int K>
    __device__ __forceinline__ void pass(long long ro)
    {
        GM__UNROLL
        for (int j = 0; j < P; ++j) {
            unsigned long long p = src + (unsigned long long)ro + o[j];
            GM__UNROLL
            for (int c = 0; c < C; ++c) {
                int v0 = gm__ld<unsigned char>(p + c), v1 = gm__ld<unsigned char>(p + C + c);
                h[K][j * C + c] = I == GM__SAMPLER_LINEAR ? gm__fixed_row(v0, v1, q0[j], q1[j]) : v0 + v1;
            }
        }
        row[K] = ro;
    }

    /* h[K] = h[1 - K]. */
    template <int K>
    __device__ __forceinline__ void copy()
    {
        GM__UNROLL
        for (int i = 0; i < P * C; ++i)
            h[K][i] = h[1 - K][i];
        row[K] = row[1 - K];
    }

    /* The destination rows [y, end) of item b (at most 32 a call), the
     * region's rows being [top, top + n): store(row, inside, v) receives
     * each row's values v[j * C + c] (before saturation) where inside. Lane
     * k computes the taps of row y + k; a second tap of weight 0 is read as
     * the first. */
    template <class Store>
    __device__ __forceinline__ void rows(const gm__resize_args& a, long long b, long long y, long long end,
                                         long long top, long long n, Store store)
    {
        gm__taps ty = gm__taps_y(GM_U8, I, &a, b, gm__clip(y + threadIdx.x - top, 0, n - 1));
        long long r0 = ty.o0, r1 = I == GM__SAMPLER_LINEAR && ty.q1 == 0 ? ty.o0 : ty.o1;
        int q = ty.q0 | ty.q1 << 16, v[P * C];
        for (int k = 0; k < (int)(end - y); ++k) {
            long long t0 = __shfl_sync(0xffffffffu, r0, k), t1 = __shfl_sync(0xffffffffu, r1, k);
            long long f0 = __shfl_sync(0xffffffffu, r0, (k + GM__TILE_AHEAD) & 31);
            long long f1 = __shfl_sync(0xffffffffu, r1, (k + GM__TILE_AHEAD) & 31);
            if (k + GM__TILE_AHEAD < (int)(end - y)) {
                GM__UNROLL
                for (int j = 0; j < P; ++j) {
                    gm__prefetch(src + (unsigned long long)f0 + o[j]);
                    if (f1 != f0)
                        gm__prefetch(src + (unsigned long long)f1 + o[j]);
                }
            }
            int tq = __shfl_sync(0xffffffffu, q, k), inside = y + k - top >= 0 && y + k - top < n;
            if (inside) {
                if (t0 == row[1])
                    copy<0>();
                else if (t0 != row[0])
                    pass<0>(t0);
                if (t1 == row[0])
                    copy<1>();
                else if (t1 != row[1])
                    pass<1>(t1);
                GM__UNROLL
                for (int i = 0; i < P * C; ++i)
                    v[i] = I == GM__SAMPLER_LINEAR ? gm__fixed_column(h[0][i], h[1][i], tq & 0xffff, tq >> 16)
                                                   : gm__quad_mean(h[0][i], h[1][i]);
            }
            store(y + k, inside, v);
        }
    }
};

/* Whether a kernel of S by sampler I has the tile path. */
template <int S, int I>
__device__ __forceinline__ constexpr bool gm__has_tiles()
{
    return S == GM_U8 && (I == GM__SAMPLER_LINEAR || I == GM__SAMPLER_AREA_FAST);
}

/* Warp threadIdx.y's run [*y, *end) of a tile-path launch of `height`
 * rows: the grid's height shares them out evenly. */
__device__ __forceinline__ void gm__tile_run(long long height, long long* y, long long* end)
{
    long long runs = (long long)gridDim.y * blockDim.y, run = (height + runs - 1) / runs;
    *y = ((long long)blockIdx.y * blockDim.y + threadIdx.y) * run;
    *end = *y + run < height ? *y + run : height;
}

template <int S, int C, int I>
__device__ __forceinline__ void gm__resize_tiles(const gm__resize_args& a)
{
    enum { P = GM__TILE_PIXELS_RESIZE };
    long long x = (long long)blockIdx.x * 32 * P + threadIdx.x, y, end, b, at;
    gm__tile<C, I, P> t;
    gm__tile_run(a.height, &y, &end);
    t.columns(a, x, a.width);
    for (b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (at = y; at < end; at += 32)
            t.rows(a, b, at, at + 32 < end ? at + 32 : end, 0, a.height, [&](long long row, int, const int* v) {
                unsigned long long p = a.dst + (unsigned long long)(b * a.dst_bstride + row * a.dst_pitch);
                GM__UNROLL
                for (int j = 0; j < P; ++j) {
                    if (x + 32 * j >= a.width)
                        continue;
                    GM__UNROLL
                    for (int c = 0; c < C; ++c) {
                        unsigned char u;
                        gm__encode_i(S, &u, v[j * C + c]);
                        gm__st(p + (unsigned long long)((x + 32 * j) * a.dst_xstride + c * a.dst_cstride), u);
                    }
                }
            });
}

template <int S, int C, int I>
__device__ __forceinline__ void gm__resize(const gm__resize_args& a)
{
    if (gm__has_tiles<S, I>() && a.map.tile) {
        gm__grid_begin();
        gm__resize_tiles<S, C, I>(a);
        return;
    }
    gm__each_run(a.width, a.height, a.batch, GM__COLUMN_ROWS,
                 [&](long long b, long long x, long long y, long long end) { gm__resize_run(S, C, I, &a, b, x, y, end); });
}

/* The entry point of one resize row (gen/model.py): its dtype S, channels C
 * and sampler I. */
#define GM__ENTRY_RESIZE(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__resize_args a) { gm__resize<S, C, I>(a); }
