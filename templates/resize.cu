/* SPDX-License-Identifier: MIT */
/* The resize kernel: one thread per GM__COLUMN_ROWS destination pixels of a
 * column, all channels of each, computing the taps as cv::resize does
 * (templates/resize.inc, the code the CPU path runs); or, where the host
 * set map.tile, the tile path below. */

/* The tile path (gm__tiles, impl/plan.h): u8 sources whose channels
 * interleave, by LINEAR or the 2x2 area mean, with the samplers' own taps
 * and arithmetic (gm__taps_x, gm__taps_y, gm__fixed_row, gm__fixed_column,
 * gm__quad_mean). A block takes 32 P destination columns (lane l the
 * columns l + 32 j, j < P, so that a warp's accesses cover neighbouring
 * pixels) by GM__BLOCK_WARPS runs of rows. A warp walks its run down:
 * - it copies each source row it reads (the bytes its block's columns
 *   read, whole 16-byte words) into one of its GM__TILE_SLOTS slots of
 *   shared memory, asynchronously, GM__TILE_AHEAD destination rows ahead,
 *   so that several rows' loads are in flight at 16 bytes a lane (the
 *   per-pixel path's byte loads kept the issue slots busy and few bytes in
 *   flight: bench/RESULTS.md);
 * - it computes a source row's horizontal pass from its slot once and keeps
 *   the last two, since an upscale reads a source row for several
 *   destination rows.
 * The source rows of a run are numbered in the order they are first read;
 * row number q lies in slot q % GM__TILE_SLOTS. A destination row reads the
 * last one or two rows numbered so far, and the rows of the GM__TILE_AHEAD
 * rows after it (at most 2 each) are in flight: 2 GM__TILE_AHEAD + 2 slots
 * keep them apart. A pass of column j is its two taps at so[j] and so[j] +
 * C, by the weights q0[j], q1[j] (the area mean: 1 and 1); LINEAR's right
 * edge, one tap, is taken as the second of a pair by weight 2048 (the host
 * leaves 1-pixel-wide sources to the per-pixel path). gm_resize stores a
 * row through shared memory too, 16 bytes a lane, where its destination's
 * channels interleave. */

extern __shared__ __align__(16) unsigned char gm__smem[];

/* Shared-memory accesses by 32-bit address, the offset O in the
 * instruction; volatile, so that none moves across gm__stage_wait. */
template <int O>
__device__ __forceinline__ int gm__lds8(unsigned a)
{
    unsigned v;
    asm volatile("ld.shared.u8 %0, [%1+%2];" : "=r"(v) : "r"(a), "n"(O));
    return (int)v;
}
template <int O>
__device__ __forceinline__ void gm__sts8(unsigned a, int v)
{
    asm volatile("st.shared.u8 [%0+%1], %2;" ::"r"(a), "n"(O), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned gm__smem_base()
{
    unsigned long long a;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(gm__smem));
    return (unsigned)a;
}

/* The first n (at most 16) of the 16 bytes at global address g, 16-byte
 * aligned, into shared address s, the rest zero, at once. */
__device__ __forceinline__ void gm__stage_bytes(unsigned s, unsigned long long g, unsigned n)
{
    for (unsigned i = 0; i < 16; ++i) {
        unsigned v = i < n ? gm__ld<unsigned char>(g + i) : 0;
        asm volatile("st.shared.u8 [%0], %1;" ::"r"(s + i), "r"(v) : "memory");
    }
}

/* gm__stage_bytes, asynchronously from sm_80 (seen by the warp after
 * gm__stage_wait and __syncwarp). All 16 bytes must lie in the source's
 * memory: cp.async reads only n, but compute-sanitizer counts 16. */
__device__ __forceinline__ void gm__stage16(unsigned s, unsigned long long g, unsigned n)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(g), "r"(n) : "memory");
#else
    gm__stage_bytes(s, g, n);
#endif
}

__device__ __forceinline__ void gm__stage_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* Waits until at most N of the lane's latest groups are in flight. */
template <int N>
__device__ __forceinline__ void gm__stage_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

template <int C, int I, int P>
struct gm__tile {
    unsigned slots, slot, lo, span; /* the warp's slots at shared address slots, `slot` bytes each */
    unsigned long long src;
    unsigned so[P];
    int q0[P], q1[P];
    int h[2][P * C];
    long long row[2], last; /* the source rows in h[K]; the last row numbered (-1: none) */
    unsigned seq;           /* source rows numbered so far */

    /* The taps of region columns x + 32 j of a region n wide (columns
     * outside it take the nearest edge's; their results are not stored),
     * and the bytes [lo, lo + span) of a source row they read. */
    __device__ __forceinline__ void columns(const gm__resize_args& a, long long x, long long n, unsigned slot_bytes)
    {
        unsigned o[P];
        GM__UNROLL
        for (int j = 0; j < P; ++j) {
            long long cx = gm__clip(x + 32 * j, 0, n - 1);
            gm__taps tx = gm__taps_x(GM_U8, I, &a, cx);
            o[j] = (unsigned)tx.o0, q0[j] = tx.q0, q1[j] = tx.q1;
            if (I == GM__SAMPLER_LINEAR && tx.s1 < 0)
                o[j] = (unsigned)tx.o0 - C, q0[j] = 0, q1[j] = 2048;
        }
        lo = __shfl_sync(0xffffffffu, o[0], 0);
        span = __shfl_sync(0xffffffffu, o[P - 1], 31) + 2 * C - lo;
        GM__UNROLL
        for (int j = 0; j < P; ++j)
            so[j] = o[j] - lo;
        src = a.src.chan[0];
        slot = slot_bytes;
        slots = gm__smem_base() + threadIdx.y * GM__TILE_SLOTS * slot_bytes;
        begin();
    }

    /* Forgets the rows of the image before. */
    __device__ __forceinline__ void begin()
    {
        row[0] = row[1] = last = -1;
        seq = 0;
    }

    /* Starts copying source row ro (a byte offset) of item b into slot s.
     * A row's last 16 bytes may run past the source's memory, which ends
     * with item b's last row (the bytes after a view are another's, or
     * none): those are read a byte at a time. */
    __device__ __forceinline__ void stage(const gm__resize_args& a, long long b, long long ro, unsigned s)
    {
        unsigned long long at = src + (unsigned long long)ro + lo, g = at & ~15ull;
        unsigned n = (unsigned)(at - g) + span;
        unsigned d = slots + s * slot;
        for (unsigned i = threadIdx.x * 16; i < n; i += 32 * 16) {
            unsigned k = n - i < 16 ? n - i : 16;
            if (k == 16 || g + i + 16 <= src + (unsigned long long)(b * a.src.bstride + (a.map.src_height - 1) *
                                                                     a.src.pitch + a.map.src_width * a.src.xstride))
                gm__stage16(d + i, g + i, k);
            else
                gm__stage_bytes(d + i, g + i, k);
        }
    }

    /* h[K]: the horizontal pass of source row ro, from slot s. */
    template <int K>
    __device__ __forceinline__ void pass(long long ro, unsigned s)
    {
        unsigned p = slots + s * slot + (unsigned)((src + (unsigned long long)ro + lo) & 15);
        GM__UNROLL
        for (int j = 0; j < P; ++j)
            pass_column<K, 0>(p + so[j], j);
        row[K] = ro;
    }

    /* Channels c and on of h[K]'s column j, its taps at shared address a. */
    template <int K, int c>
    __device__ __forceinline__ void pass_column(unsigned a, int j)
    {
        if constexpr (c < C) {
            int v0 = gm__lds8<c>(a), v1 = gm__lds8<C + c>(a);
            h[K][j * C + c] = I == GM__SAMPLER_LINEAR ? gm__fixed_row(v0, v1, q0[j], q1[j]) : v0 + v1;
            pass_column<K, c + 1>(a, j);
        }
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
     * k computes the taps of row y + k and numbers the source rows it reads
     * first (fresh: 0, 1 or 2, ending at number counted); a second tap of
     * weight 0 is read as the first. */
    template <class Store>
    __device__ __forceinline__ void rows(const gm__resize_args& a, long long b, long long y, long long end,
                                         long long top, long long n, Store store)
    {
        const unsigned all = 0xffffffffu, lane = threadIdx.x;
        const int count = (int)(end - y);
        gm__taps ty = gm__taps_y(GM_U8, I, &a, b, gm__clip(y + lane - top, 0, n - 1));
        long long r0 = ty.o0, r1 = I == GM__SAMPLER_LINEAR && ty.q1 == 0 ? ty.o0 : ty.o1;
        int inside = (int)lane < count && y + lane - top >= 0 && y + lane - top < n, q = ty.q0 | ty.q1 << 16;
        long long before = __shfl_up_sync(all, r1, 1);
        int fresh, v[P * C], inside_before = __shfl_up_sync(all, inside, 1);
        if (lane == 0 || !inside_before)
            before = last;
        fresh = inside ? (r0 > before) + (r1 != r0 && r1 > before) : 0;
        unsigned one = __ballot_sync(all, fresh > 0), two = __ballot_sync(all, fresh > 1), in = __ballot_sync(all, inside);
        unsigned upto = all >> (31 - lane), counted = seq + __popc(one & upto) + __popc(two & upto);
        seq += __popc(one) + __popc(two);
        if (in)
            last = __shfl_sync(all, r1, 31 - __clz(in));
        auto ahead = [&](int k) {
            int f = __shfl_sync(all, fresh, k & 31);
            unsigned e = __shfl_sync(all, counted, k & 31);
            long long t0 = __shfl_sync(all, r0, k & 31), t1 = __shfl_sync(all, r1, k & 31);
            if (k < count && f > 0)
                stage(a, b, t1, (e - 1) % GM__TILE_SLOTS);
            if (k < count && f > 1)
                stage(a, b, t0, (e - 2) % GM__TILE_SLOTS);
            gm__stage_commit();
        };
        __syncwarp();
        GM__UNROLL
        for (int k = 0; k < GM__TILE_AHEAD; ++k)
            ahead(k);
        for (int k = 0; k < count; ++k) {
            __syncwarp();
            ahead(k + GM__TILE_AHEAD);
            gm__stage_wait<GM__TILE_AHEAD>();
            __syncwarp();
            long long t0 = __shfl_sync(all, r0, k), t1 = __shfl_sync(all, r1, k);
            unsigned e = __shfl_sync(all, counted, k), s1 = (e - 1) % GM__TILE_SLOTS;
            int tq = __shfl_sync(all, q, k), on = __shfl_sync(all, inside, k);
            if (on) {
                if (t0 == row[1])
                    copy<0>();
                else if (t0 != row[0])
                    pass<0>(t0, t0 == t1 ? s1 : (e - 2) % GM__TILE_SLOTS);
                if (t1 == row[0])
                    copy<1>();
                else if (t1 != row[1])
                    pass<1>(t1, s1);
                GM__UNROLL
                for (int i = 0; i < P * C; ++i)
                    v[i] = I == GM__SAMPLER_LINEAR ? gm__fixed_column(h[0][i], h[1][i], tq & 0xffff, tq >> 16)
                                                   : gm__quad_mean(h[0][i], h[1][i]);
            }
            store(y + k, on, v);
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

/* Channels c and on of a pixel's values v, saturated, at shared address a. */
template <int C, int c>
__device__ __forceinline__ void gm__tile_stage(unsigned a, const int* v)
{
    if constexpr (c < C) {
        unsigned char u;
        gm__encode_i(GM_U8, &u, v[c]);
        gm__sts8<c>(a, u);
        gm__tile_stage<C, c + 1>(a, v);
    }
}

/* Stores the warp's row of `columns` pixels (C bytes each, v[j * C + c]
 * lane l's column l + 32 j) at d through the warp's staging area at shared
 * address out (GM__TILE_OUT(C) bytes): 16-byte stores but at the row's two
 * ends. */
template <int C, int P>
__device__ __forceinline__ void gm__tile_store(unsigned out, unsigned long long d, long long columns, const int* v)
{
    unsigned mis = (unsigned)(d & 15), n = mis + (unsigned)columns * C, lane = threadIdx.x;
    GM__UNROLL
    for (int j = 0; j < P; ++j)
        if (lane + 32 * j < columns)
            gm__tile_stage<C, 0>(out + mis + (lane + 32 * j) * C, v + j * C);
    __syncwarp();
    for (unsigned i = lane * 16; i < n; i += 32 * 16) {
        if (i >= mis && i + 16 <= n) {
            unsigned w[4];
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                         : "r"(out + i));
            asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(d - mis + i), "r"(w[0]), "r"(w[1]),
                         "r"(w[2]), "r"(w[3])
                         : "memory");
            continue;
        }
        for (unsigned u = i > mis ? i : mis; u < i + 16 && u < n; ++u)
            gm__st(d - mis + u, (unsigned char)gm__lds8<0>(out + u));
    }
    __syncwarp();
}

template <int S, int C, int I>
__device__ __forceinline__ void gm__resize_tiles(const gm__resize_args& a)
{
    enum { P = GM__TILE_PIXELS_RESIZE };
    long long x0 = (long long)blockIdx.x * 32 * P, x = x0 + threadIdx.x, y, end, b, at;
    long long columns = a.width - x0 < 32 * P ? a.width - x0 : 32 * P;
    const long long cstride = C > 1 ? (long long)(a.dst.chan[1] - a.dst.chan[0]) : 0;
    int packed = a.dst.xstride == C && (C == 1 || cstride == 1);
    unsigned out = gm__smem_base() + GM__BLOCK_WARPS * GM__TILE_SLOTS * a.map.tile + threadIdx.y * GM__TILE_OUT(C);
    gm__tile<C, I, P> t;
    gm__tile_run(a.height, &y, &end);
    t.columns(a, x, a.width, a.map.tile);
    for (b = blockIdx.z; b < a.batch; b += gridDim.z) {
        t.begin();
        for (at = y; at < end; at += 32)
            t.rows(a, b, at, at + 32 < end ? at + 32 : end, 0, a.height, [&](long long row, int, const int* v) {
                unsigned long long p = a.dst.chan[0] + (unsigned long long)(b * a.dst.bstride + row * a.dst.pitch);
                if (packed) {
                    gm__tile_store<C, P>(out, p + (unsigned long long)(x0 * C), columns, v);
                    return;
                }
                GM__UNROLL
                for (int j = 0; j < P; ++j) {
                    if (x + 32 * j >= a.width)
                        continue;
                    GM__UNROLL
                    for (int c = 0; c < C; ++c) {
                        unsigned char u;
                        gm__encode_i(S, &u, v[j * C + c]);
                        gm__st(p + (unsigned long long)((x + 32 * j) * a.dst.xstride + c * cstride), u);
                    }
                }
            });
    }
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
