/* SPDX-License-Identifier: MIT */
/* The pre-process kernel: one thread per GM__COLUMN_ROWS destination pixels
 * of a column of one item, all their channels (templates/prep.inc, the code
 * the CPU path runs); or, where the host set a.tile, the resize's tile path
 * (templates/resize.cu, slots of a.tile bytes) with the pre-process's
 * store.
 * Every item of a launch resizes by the kernel's sampler I and path (the
 * host groups them). A: the product in double (GM_BLOB_DOUBLE), the rows of
 * templates/prep_double.cu; 0 here, where that code folds away. */

/* Destination channel c of a tile-path pixel from a u8 source value x,
 * stored at p (prep.inc, gm__prep_value_f; scale_d, the double scale, read
 * where A is set). */
template <int D, int A>
__device__ __forceinline__ void gm__prep_tile_channel(float pre, float scale, double scale_d, int x, int divide,
                                                      unsigned long long p)
{
    gm__encode_f(D, (unsigned char*)p, gm__prep_value_f(pre, scale, scale_d, x, divide, A), 0);
}

/* Destination channels [0, n) of a tile-path pixel at q, channel c at q +
 * c cstride, its values the bytes of w in destination order; scale_d: the
 * launch's double scales, which A's product reads from the parameters. */
template <int D, int A>
__device__ __forceinline__ void gm__prep_tile_pixel(const float* pre, const float* scale, const double* scale_d,
                                                    long long cstride, unsigned w, int n, int divide,
                                                    unsigned long long q)
{
    GM__UNROLL
    for (int c = 0; c < 4; ++c)
        if (c < n)
            gm__prep_tile_channel<D, A>(pre[c], scale[c], scale_d[c], (int)(w >> 8 * c & 0xff), divide,
                                        q + (unsigned long long)(c * cstride));
}

/* What the tile and point paths' stores take, made once a thread and held
 * in registers (the compiler had reloaded the parameters at every row): a
 * pixel's channels as the bytes of a word, put in destination order by one
 * byte permutation (order), the pad's word in that order already; plain:
 * the usual store, its channels (C) and arithmetic known here. */
struct gm__prep_bytes {
    unsigned order, pad;
    int plain;
    float pre[4], scale[4];
    long long cstride;
};

template <int C>
__device__ __forceinline__ gm__prep_bytes gm__prep_bytes_of(const gm__prep_args& a)
{
    gm__prep_bytes k;
    k.order = k.pad = 0;
    k.plain = a.channels == C && !a.divide;
    k.cstride = a.dst_cstride;
    for (int c = 0; c < 4; ++c) {
        k.order |= (unsigned)a.map[c] << 4 * c, k.pad |= (unsigned)a.pad_u8[c] << 8 * c;
        k.pre[c] = a.pre_f[c], k.scale[c] = a.scale_f[c];
    }
    return k;
}

/* Stores the pixel whose bytes in destination order are w at q. */
template <int D, int C, int A>
__device__ __forceinline__ void gm__prep_word(const gm__prep_args& a, const gm__prep_bytes& k, unsigned w,
                                              unsigned long long q)
{
    if (k.plain)
        gm__prep_tile_pixel<D, A>(k.pre, k.scale, a.scale, k.cstride, w, C, 0, q);
    else
        gm__prep_tile_pixel<D, A>(k.pre, k.scale, a.scale, k.cstride, w, a.channels, a.divide, q);
}

template <int S, int D, int C, int I, int A>
__device__ __forceinline__ void gm__prep_tiles(const gm__prep_args& a)
{
    enum { P = GM__TILE_PIXELS_PREP };
    long long x = (long long)blockIdx.x * 32 * P + threadIdx.x, y, end, at;
    const gm__prep_bytes k = gm__prep_bytes_of<C>(a);
    gm__tile_run(a.height, &y, &end);
    for (long long b = blockIdx.z; b < a.count; b += gridDim.z) {
        const gm__prep_item* it = gm__prep_item_at(&a, b);
        long long rx = x - it->left, width = it->width;
        unsigned long long dst = it->dst;
        gm__resize_args src;
        gm__tile<C, I, P> t;
        gm__prep_source(it, C, &src);
        t.columns(src, rx, width, (unsigned)a.tile);
        for (at = y; at < end; at += 32)
            t.rows(src, 0, at, at + 32 < end ? at + 32 : end, it->top, it->height, [&](long long row, int inside,
                                                                                      const int* v) {
                unsigned long long p = dst + (unsigned long long)(row * a.dst_pitch);
                GM__UNROLL
                for (int j = 0; j < P; ++j) {
                    unsigned long long q = p + (unsigned long long)((x + 32 * j) * a.dst_xstride);
                    unsigned bytes = 0, w;
                    if (x + 32 * j >= a.width)
                        continue;
                    GM__UNROLL
                    for (int s = 0; s < C; ++s) /* in 0..255: the samplers interpolate bytes */
                        bytes |= (unsigned)v[j * C + s] << 8 * s;
                    w = inside && rx + 32 * j >= 0 && rx + 32 * j < width ? __byte_perm(bytes, 0, k.order) : k.pad;
                    gm__prep_word<D, C, A>(a, k, w, q);
                }
            });
    }
}

/* prep.inc's gm__prep_frame_load in 32-bit offsets, which the host
 * checked hold every sample of the launch's items (impl/prep.h,
 * gm__prep_frame_narrow): in 64 bits the loads' addresses took half the
 * instructions of a run of the point path (bench/RESULTS.md). */
__device__ __forceinline__ void gm__prep_frame_load_narrow(const gm__prep_frame& f, const gm__prep_item* it, int x,
                                                           int y, int* yuv)
{
    const int fx = (int)it->at.crop.x + x, fy = (int)it->at.crop.y + y, chroma = (fx >> 1) * f.step;
    yuv[0] = *(const unsigned char*)(it->src + (unsigned)(fy * (int)it->src_pitch + fx));
    yuv[1] = *(const unsigned char*)(it->src + (unsigned)((int)f.u + (fy >> 1) * (int)f.u_pitch + chroma));
    yuv[2] = *(const unsigned char*)(it->src + (unsigned)((int)f.v + (fy >> 1) * (int)f.v_pitch + chroma));
}

/* The point path (a.points: NEAREST of a u8 source whose channels
 * interleave, or of frames (F), impl/prep.h; LINEAR by odd whole factors
 * comes here rerouted, as a YOLO letterbox of 1080p into 640 does). A lane
 * takes the columns x + 32 j (j < GM__POINT_PIXELS) of GM__POINT_ROWS rows
 * from y of item it and loads all their pixels (a frame's: converted to
 * BGR, prep.inc) before it stores any, so that its loads are in flight
 * together; the store is the tile path's. */
template <int D, int C, int F, int A>
__device__ __forceinline__ void gm__prep_point_rows(const gm__prep_args& a, const gm__prep_bytes& k,
                                                    const gm__prep_item* it, long long x, long long y)
{
    enum { P = GM__POINT_PIXELS, R = GM__POINT_ROWS };
    const gm__resize_map& m = it->map;
    long long column[P];
    unsigned w[R][P];
    int inside[P], on[R], yuv[R][P][3];
    GM__UNROLL
    for (int j = 0; j < P; ++j) {
        long long rx = x + 32 * j - it->left;
        inside[j] = rx >= 0 && rx < it->width;
        column[j] = gm__nearest(inside[j] ? rx : 0, m.scale_x, m.offset_x, m.src_width);
    }
    GM__UNROLL
    for (int r = 0; r < R; ++r) {
        long long ry = y + r - it->top;
        long long sy;
        unsigned long long row;
        on[r] = y + r < a.height && ry >= 0 && ry < it->height;
        sy = gm__nearest(on[r] ? ry : 0, m.scale_y, m.offset_y, m.src_height);
        row = it->src + (unsigned long long)(sy * it->src_pitch);
        GM__UNROLL
        for (int j = 0; j < P; ++j) {
            unsigned bytes = 0;
            w[r][j] = k.pad;
            if (!on[r] || !inside[j])
                continue;
            if (F) { /* converted below, once every load is in flight */
                gm__prep_frame_load_narrow(a.frame, it, (int)column[j], (int)sy, yuv[r][j]);
            } else {
                GM__UNROLL
                for (int c = 0; c < C; ++c)
                    bytes |= (unsigned)gm__ld<unsigned char>(row + (unsigned long long)(column[j] * C + c)) << 8 * c;
                w[r][j] = __byte_perm(bytes, 0, k.order);
            }
        }
    }
    GM__UNROLL
    for (int r = 0; F && r < R; ++r)
        GM__UNROLL
        for (int j = 0; j < P; ++j)
            if (on[r] && inside[j]) {
                unsigned char bgr[3];
                gm__prep_frame_convert(&a.frame, yuv[r][j], bgr);
                w[r][j] = __byte_perm(bgr[0] | (unsigned)bgr[1] << 8 | (unsigned)bgr[2] << 16, 0, k.order);
            }
    GM__UNROLL
    for (int r = 0; r < R; ++r)
        GM__UNROLL
        for (int j = 0; j < P; ++j) {
            unsigned long long q =
                it->dst + (unsigned long long)((y + r) * a.dst_pitch + (x + 32 * j) * a.dst_xstride);
            if (y + r < a.height && x + 32 * j < a.width)
                gm__prep_word<D, C, A>(a, k, w[r][j], q);
        }
}

/* Whether rows [y, y + GM__POINT_ROWS) meet item it's resized crop (else
 * they are its pad). */
__device__ __forceinline__ int gm__prep_rows_meet(const gm__prep_item* it, long long y)
{
    return y + GM__POINT_ROWS > it->top && y < (long long)it->top + it->height;
}

/* Rows [y, y + GM__POINT_ROWS) that lie wholly in item it's pad (a
 * letterbox's bands above and below the image): the pad's values, which
 * the host computed (a.pad_f), stored with neither source coordinates,
 * loads nor arithmetic. */
template <int D, int C>
__device__ __forceinline__ void gm__prep_pad_rows(const gm__prep_args& a, const gm__prep_bytes& k,
                                                  const gm__prep_item* it, long long x, long long y)
{
    GM__UNROLL
    for (int r = 0; r < GM__POINT_ROWS; ++r)
        GM__UNROLL
        for (int j = 0; j < GM__POINT_PIXELS; ++j)
            if (y + r < a.height && x + 32 * j < a.width) {
                const unsigned long long q =
                    it->dst + (unsigned long long)((y + r) * a.dst_pitch + (x + 32 * j) * a.dst_xstride);
                GM__UNROLL
                for (int c = 0; c < 4; ++c)
                    if (c < (k.plain ? C : a.channels))
                        gm__encode_f(D, (unsigned char*)(q + (unsigned long long)(c * k.cstride)), a.pad_f[c], 0);
            }
}

template <int D, int C, int F, int A>
__device__ __forceinline__ void gm__prep_points(const gm__prep_args& a)
{
    long long x = (long long)blockIdx.x * 32 * GM__POINT_PIXELS + threadIdx.x;
    long long step = (long long)gridDim.y * blockDim.y * GM__POINT_ROWS;
    const gm__prep_bytes k = gm__prep_bytes_of<C>(a);
    const long long first = ((long long)blockIdx.y * blockDim.y + threadIdx.y) * GM__POINT_ROWS;
    /* a thread's runs that meet the image, then its pad's: in one loop the
     * point path spilled at sm_90's 48 registers (bench/RESULTS.md) */
    for (long long b = blockIdx.z; b < a.count; b += gridDim.z) {
        const gm__prep_item* it = gm__prep_item_at(&a, b);
        for (long long y = first; y < a.height; y += step)
            if (gm__prep_rows_meet(it, y))
                gm__prep_point_rows<D, C, F, A>(a, k, it, x, y);
        for (long long y = first; y < a.height; y += step)
            if (!gm__prep_rows_meet(it, y))
                gm__prep_pad_rows<D, C>(a, k, it, x, y);
    }
}

template <int S, int D, int C, int I, int A>
__device__ __forceinline__ void gm__prep(const gm__prep_args& a)
{
    if (S == GM_U8 && I == GM__SAMPLER_NEAREST && a.points) {
        gm__grid_begin();
        gm__prep_points<D, C, 0, A>(a);
        return;
    }
    if (gm__has_tiles<S, I>() && a.tile) {
        gm__grid_begin();
        gm__prep_tiles<S, D, C, I, A>(a);
        return;
    }
    gm__each_run(a.width, a.height, a.count, GM__COLUMN_ROWS, [&](long long b, long long x, long long y, long long end) {
        gm__prep_sampled(S, D, C, I, 0, A, &a, b, x, y, end);
    });
}

/* A pre-process entry point `name` running body (a parenthesised template
 * id, whose commas a macro argument cannot hold bare) on its gm__prep_args,
 * at `blocks` blocks a multiprocessor; and the same for up to
 * GM__PREP_ITEMS_MANY items (prep.inc), name_many, where the compiler takes
 * 32 KB of parameters (12.1 and later). */
#define GM__PREP_ENTRY(name, blocks, body)                                                                       \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS, blocks) name(gm__prep_args a) { body(a); } \
    GM__PREP_ENTRY_MANY(name, blocks, body)
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1201
#define GM__PREP_ENTRY_MANY(name, blocks, body)                                                       \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS, blocks) name##_many(gm__prep_many a) \
    {                                                                                                 \
        body(a.a);                                                                                    \
    }
#else
#define GM__PREP_ENTRY_MANY(name, blocks, body)
#endif

/* The entry point of one pre-process row (gen/model.py): source dtype S,
 * destination dtype D, source channels C, sampler I; at 4 blocks a
 * multiprocessor (64 registers), or 3 (80) for the kernels with the tile
 * path, which holds more: at 2 they ran slower, the warps too few to keep
 * the loads in flight (bench/RESULTS.md). */
#define GM__ENTRY_PREP(name, S, D, C, LS, LD, P, R, B, I) \
    GM__PREP_ENTRY(name, (gm__has_tiles<S, I>() ? 3 : 4), (gm__prep<S, D, C, I, 0>))
