/* SPDX-License-Identifier: MIT */
/* The whole-2x resizes of images whose channels interleave (u8 here, the
 * floating dtypes further down), where every row starts on 16 bytes (the
 * host decides, gm__twice_kernel in impl/plan.h): LINEAR to exactly twice
 * the source, and the 2x2 mean (INTER_AREA, or LINEAR's exact halving,
 * rerouted) to half of it. For u8, each gives every column
 * and row one of two weights, so cv::resize's arithmetic folds into sums
 * below 2^12, two of which a 32-bit word holds in 16-bit lanes: one
 * instruction does two channel values (the tile path's general fixed point
 * spent about 38 instructions a value, bench/RESULTS.md).
 *
 * LINEAR by 2: destination column 2j reads source columns j - 1 and j by
 * OpenCV's 11-bit weights 512 and 1536, column 2j + 1 reads j and j + 1 by
 * 1536 and 512, and rows likewise. A row's horizontal pass is 512 s, where
 * s = 3 n + f (n the nearer tap, f the farther), so the vertical pass
 * (((q0 (h0 >> 4)) >> 16) + ((q1 (h1 >> 4)) >> 16) + 2) >> 2 is
 * (((3 s_n) >> 2) + (s_f >> 2) + 2) >> 2. At the edges OpenCV takes one
 * column by 2048 (s = 4 v, as the clamped column gives) and clips the rows
 * (the clamped row). A unit is the destination rows 2k + 1 and 2k + 2,
 * which read the source rows k and k + 1 alone (k from -1 to the source's
 * last row); a thread takes G source columns [j0, j0 + G) (the row's pixels),
 * so the destination columns [2 j0, 2 j0 + 2G), of GM__TWICE_RUN units.
 *
 * The 2x2 mean: (a + b + c + d + 2) >> 2, gm__quad_mean's; a thread takes
 * G destination columns of one row. */

/* Bytes of a row as 16-bit lanes: lane l of e[i] holds byte 2l of word i,
 * of o[i] byte 2l + 1 (or the sum of two rows' bytes). */
template <int N>
struct gm__lanes {
    unsigned e[N], o[N];

    __device__ __forceinline__ void spread(int i, unsigned w)
    {
        e[i] = w & 0x00ff00ffu;
        o[i] = w >> 8 & 0x00ff00ffu;
    }

    __device__ __forceinline__ void spread_sum(int i, unsigned w, unsigned v)
    {
        e[i] = (w & 0x00ff00ffu) + (v & 0x00ff00ffu);
        o[i] = (w >> 8 & 0x00ff00ffu) + (v >> 8 & 0x00ff00ffu);
    }

    /* A word whose low lane is byte b0's, high lane byte b1's (indexes known
     * at compile time, so the registers are). */
    __device__ __forceinline__ unsigned pick(int b0, int b1) const
    {
        return __byte_perm(b0 & 1 ? o[b0 >> 2] : e[b0 >> 2], b1 & 1 ? o[b1 >> 2] : e[b1 >> 2],
                           (b0 & 2) | ((b0 & 2) + 1) << 4 | (4 + (b1 & 2)) << 8 | (5 + (b1 & 2)) << 12);
    }
};

/* The K / 4 words of K bytes whose values sit in the low bytes of the
 * 16-bit lanes of v[0..K/2). */
template <int K>
__device__ __forceinline__ void gm__twice_pack(const unsigned* v, unsigned* w)
{
    GM__UNROLL
    for (int i = 0; i < K / 4; ++i)
        w[i] = __byte_perm(v[2 * i], v[2 * i + 1], 0x6420);
}

/* The first n bytes of the 16 in x, y, z, w (little-endian) at d: a rolled
 * loop that shifts them down a byte at a time, not inlined, so that the
 * words stay in registers and the common path holds none for it. */
__device__ __noinline__ void gm__twice_st_bytes(unsigned long long d, unsigned x, unsigned y, unsigned z, unsigned w,
                                                int n)
{
    for (int i = 0; i < n; ++i) {
        gm__st(d + (unsigned long long)i, (unsigned char)x);
        x = __funnelshift_r(x, y, 8), y = __funnelshift_r(y, z, 8), z = __funnelshift_r(z, w, 8), w >>= 8;
    }
}

/* Whether a warp's row, K bytes a lane, is stored through shared memory
 * (gm__twice_warp_store): where each lane's K bytes take two or more
 * 16-byte stores, which leave every store instruction's sectors partly
 * written, slower than striped chunks; staged, the f32 doublings and
 * halvings of 3 channels ran faster. Lanes of 24 bytes (3 8-byte stores)
 * lost less, and their kernels took as long or longer staged, so those
 * store directly (bench/RESULTS.md). */
template <int K>
__device__ __forceinline__ constexpr bool gm__twice_staged()
{
    return K > 16 && K % 16 == 0;
}

/* A warp's row of 32 K bytes, lane l's K bytes (the words w) at d + K l,
 * d on 16 bytes, of which the first `valid` are stored. Staged (above),
 * through the warp's area of shared memory at `area` (32 K bytes), then as
 * 16-byte chunks, chunk c by lane c % 32, so that each store instruction
 * writes whole sectors; else each lane stores its own. Every lane of the
 * warp calls it; two calls in a row must take different areas, as a lane
 * may still be reading the last. */
template <int K>
__device__ __forceinline__ void gm__twice_warp_store(unsigned area, unsigned long long d, const unsigned* w, int valid)
{
    const int lane = (int)threadIdx.x;
    if constexpr (!gm__twice_staged<K>()) {
        const int mine = valid - lane * K;
        d += (unsigned long long)(lane * K);
        if (mine >= K) {
            gm__bytes<K> out;
            GM__UNROLL
            for (int i = 0; i < K / 4; ++i)
                out.w[i] = w[i];
            out.store(d);
        } else if (mine > 0) {
            GM__UNROLL
            for (int i = 0; i < K / 4; i += 4)
                if (4 * i < mine)
                    gm__twice_st_bytes(d + (unsigned long long)(4 * i), w[i], i + 1 < K / 4 ? w[i + 1] : 0,
                                       i + 2 < K / 4 ? w[i + 2] : 0, i + 3 < K / 4 ? w[i + 3] : 0,
                                       mine - 4 * i < 16 ? mine - 4 * i : 16);
        }
        return;
    }
    GM__UNROLL
    for (int i = 0; i < K / 4; i += 4)
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(area + lane * K + 4 * i), "r"(w[i]),
                     "r"(w[i + 1]), "r"(w[i + 2]), "r"(w[i + 3]) : "memory");
    __syncwarp();
    GM__UNROLL
    for (int k = 0; k < K / 16; ++k) {
        const int at = 16 * (lane + 32 * k);
        unsigned q[4];
        if (at >= valid)
            continue;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(q[0]), "=r"(q[1]), "=r"(q[2]), "=r"(q[3])
                     : "r"(area + at) : "memory");
        if (at + 16 <= valid)
            gm__st16(d + (unsigned long long)at, q);
        else
            gm__twice_st_bytes(d + (unsigned long long)at, q[0], q[1], q[2], q[3], valid - at);
    }
}

/* Area A (0 or 1) of the warp's two for gm__twice_warp_store, 32 K bytes
 * each, as a shared-memory address (none where it does not stage). */
template <int K>
__device__ __forceinline__ unsigned gm__twice_area(int A)
{
    if constexpr (gm__twice_staged<K>()) {
        __shared__ __align__(16) unsigned char areas[GM__BLOCK_WARPS][2][32 * K];
        unsigned long long g;
        asm("cvta.to.shared.u64 %0, %1;" : "=l"(g) : "l"(areas[threadIdx.y][0]));
        return (unsigned)g + (unsigned)(A * 32 * K);
    }
    return 0;
}

/* Before a warp's first row of an image: rows take areas 0 and 1 in turn
 * within an image, but the last image's last row and this one's first may
 * take the same. */
template <int K>
__device__ __forceinline__ void gm__twice_image_start()
{
    if constexpr (gm__twice_staged<K>())
        __syncwarp();
}

/* Bytes [FROM, TO) of w, byte i the channel (i - BASE) % C of column
 * first + (i - BASE) / C of the row at p, columns clamped to [0, width);
 * every index known at compile time, so w stays in registers. */
template <int C, int BASE, int FROM, int TO>
__device__ __forceinline__ void gm__twice_gather(unsigned long long p, long long first, long long width, unsigned* w)
{
    GM__UNROLL
    for (int i = FROM; i < TO; ++i) {
        long long col = gm__clip(first + (i - BASE) / C, 0, width - 1);
        unsigned v = gm__ld<unsigned char>(p + (unsigned long long)(col * C + (i - BASE) % C));
        w[i >> 2] = (w[i >> 2] & ~(0xffu << 8 * (i & 3))) | v << 8 * (i & 3);
    }
}

/* N words as one value, so that a function that is not inlined returns
 * them in registers. */
template <int N>
struct gm__words {
    unsigned w[N];
};

/* The words of a source row that a lane short of a whole group gathers
 * (gm__twice_up): not inlined, so that its many loads in flight do not set
 * the register count of the lanes that load whole groups (bench/RESULTS.md). */
template <int C, int N>
__device__ __noinline__ gm__words<N> gm__twice_gather_row(unsigned long long p, long long first, long long width)
{
    gm__words<N> r = {{0}};
    gm__twice_gather<C, 4 - C, 4 - C, 4 * N - 4 + C>(p, first, width, r.w);
    return r;
}

/* A source row's horizontal pass for the destination bytes 2m and 2m + 1
 * of a thread's columns, s[m] (lanes as in gm__lanes), from w[N]: byte i
 * the channel (i - 4 + C) % C of column j0 - 1 + (i - 4 + C) / C.
 * Destination byte d is channel d % C of column d / C, which reads source
 * column (d / C) / 2 near and the one on its side of it far. */
template <int C, int G>
struct gm__twice_pass {
    enum { N = G * C / 4 + 2, M = G * C };
    unsigned s[M];

    __device__ __forceinline__ void make(const unsigned* w)
    {
        gm__lanes<N> r;
        GM__UNROLL
        for (int i = 0; i < N; ++i)
            r.spread(i, w[i]);
        GM__UNROLL
        for (int m = 0; m < M; ++m) {
            const int d0 = 2 * m, d1 = 2 * m + 1, q0 = d0 / C, q1 = d1 / C;
            const int n0 = 4 + (q0 >> 1) * C + d0 % C, n1 = 4 + (q1 >> 1) * C + d1 % C;
            s[m] = 3 * r.pick(n0, n1) + r.pick(n0 + (q0 & 1 ? C : -C), n1 + (q1 & 1 ? C : -C));
        }
    }
};

/* The destination row nearer to the source row of pass n than to that of
 * pass f: OpenCV's vertical pass, ((3 s_n) >> 2) + (s_f >> 2) + 2 >> 2 in
 * each lane, computed as ((3 s_n & ~3) + (s_f & ~3) + 8) >> 4 (below
 * 2^12, and no shift crosses a lane), stored by the warp at d (its first
 * byte), `valid` bytes of it, through area A. */
template <int C, int G, int K, int A>
__device__ __forceinline__ void gm__twice_row_of(const gm__twice_pass<C, G>& n, const gm__twice_pass<C, G>& f,
                                                 unsigned long long d, int valid)
{
    unsigned v[K / 2], w[K / 4];
    GM__UNROLL
    for (int m = 0; m < K / 2; ++m)
        v[m] = ((3 * n.s[m] & 0xfffcfffcu) + (f.s[m] & 0xfffcfffcu) + 0x00080008u) >> 4;
    gm__twice_pack<K>(v, w);
    gm__twice_warp_store<K>(gm__twice_area<K>(A), d, w, valid);
}

/* LINEAR to twice the source: a thread walks GM__TWICE_RUN units down,
 * each source row's pass made once, the next row's loads issued before
 * the stores. */
template <int C, int G>
__device__ __forceinline__ void gm__twice_up(const gm__resize_args& a)
{
    enum { W = G * C / 4, N = W + 2, K = 2 * G * C };
    const unsigned all = 0xffffffffu, lane = threadIdx.x;
    const long long sw = a.map.src_width, sh = a.map.src_height, jw = (long long)blockIdx.x * 32 * G, j0 = jw + lane * G;
    const int whole = j0 + G <= sw, edge = 32 - 8 * C;
    const long long step = (long long)gridDim.y * blockDim.y * GM__TWICE_RUN;
    /* the warp's destination bytes of a row (its lane 0 has a column) */
    const int valid = (int)gm__clip(2 * (sw - jw) * C, 0, 32 * K);
    /* source row `row` into w: a whole lane its columns, and the neighbours'
     * where no lane of the warp holds them; any other lane every byte */
    auto fetch = [&](long long b, long long row, unsigned* w) {
        unsigned long long p = a.src.chan[0] + (unsigned long long)(b * a.src.bstride + gm__clip(row, 0, sh - 1) * a.src.pitch);
        if (whole) {
            gm__bytes<G * C> in;
            in.load(p + (unsigned long long)(j0 * C));
            GM__UNROLL
            for (int i = 0; i < W; ++i)
                w[i + 1] = in.w[i];
            /* the halo as one aligned word (a warp's first column is a
             * multiple of 32 G): the column before ends it, the column
             * after starts it, unless that word runs past the row */
            if (lane == 0 && j0 > 0)
                w[0] = gm__ld<unsigned>(p + (unsigned long long)(j0 * C - 4));
            if (lane == 31 && (j0 + G) * C + 4 <= sw * C)
                w[N - 1] = gm__ld<unsigned>(p + (unsigned long long)((j0 + G) * C));
            else if (lane == 31 && j0 + G < sw)
                gm__twice_gather<C, 4 - C, 4 * N - 4, 4 * N - 4 + C>(p, j0 - 1, sw, w);
        } else if (j0 < sw) {
            gm__words<N> r = gm__twice_gather_row<C, N>(p, j0 - 1, sw);
            GM__UNROLL
            for (int i = 0; i < N; ++i)
                w[i] = r.w[i];
        }
    };
    /* the rest of w from the lanes beside (or the edge), then the pass */
    auto finish = [&](unsigned* w, gm__twice_pass<C, G>& pass) {
        unsigned left = __shfl_up_sync(all, w[W], 1), right = __shfl_down_sync(all, w[1], 1);
        if (whole) {
            if (j0 == 0)
                w[0] = w[1] << edge;
            else if (lane > 0)
                w[0] = left;
            if (j0 + G == sw)
                w[W + 1] = w[W] >> edge;
            else if (lane < 31)
                w[W + 1] = right;
        }
        pass.make(w);
    };
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z) {
        gm__twice_image_start<K>();
        for (long long u0 = ((long long)blockIdx.y * blockDim.y + threadIdx.y) * GM__TWICE_RUN; u0 <= sh; u0 += step) {
            const unsigned long long d = a.dst.chan[0] + (unsigned long long)(b * a.dst.bstride + 2 * jw * C);
            /* unit u: the destination rows 2u - 1 and 2u, between the source
             * rows u - 1 and u */
            const long long end = u0 + GM__TWICE_RUN <= sh ? u0 + GM__TWICE_RUN : sh + 1;
            unsigned w[N] = {0};
            gm__twice_pass<C, G> before, now;
            fetch(b, u0 - 1, w);
            finish(w, before);
            fetch(b, u0, w);
            for (long long u = u0; u < end; ++u) {
                finish(w, now);
                if (u + 1 < end)
                    fetch(b, u + 1, w);
                if (u > 0)
                    gm__twice_row_of<C, G, K, 0>(before, now, d + (unsigned long long)((2 * u - 1) * a.dst.pitch), valid);
                if (u < sh)
                    gm__twice_row_of<C, G, K, 1>(now, before, d + (unsigned long long)(2 * u * a.dst.pitch), valid);
                before = now;
            }
        }
    }
}

/* The 2x2 mean of the n destination pixels at d, short of a whole group,
 * from the two source rows at p: a rolled loop over pixels, so that this
 * rare path holds few registers and the whole groups' code keeps its
 * occupancy (bench/RESULTS.md). */
template <int C>
__device__ __forceinline__ void gm__twice_down_edge(unsigned long long p, unsigned long long pitch,
                                                    unsigned long long d, int n)
{
#pragma unroll 1
    for (int x = 0; x < n; ++x, p += 2 * C, d += C) {
        GM__UNROLL
        for (int c = 0; c < C; ++c) {
            unsigned sum = gm__ld<unsigned char>(p + c) + gm__ld<unsigned char>(p + C + c) +
                           gm__ld<unsigned char>(p + pitch + c) + gm__ld<unsigned char>(p + pitch + C + c);
            gm__st(d + c, (unsigned char)((sum + 2) >> 2));
        }
    }
}

/* The 2x2 mean to half the source. */
template <int C, int G>
__device__ __forceinline__ void gm__twice_down(const gm__resize_args& a)
{
    enum { W = G * C / 2, K = G * C };
    const long long dw = a.width, j0 = ((long long)blockIdx.x * 32 + threadIdx.x) * G;
    if (j0 >= dw)
        return;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < a.height; y += (long long)gridDim.y * blockDim.y) {
            unsigned long long p = a.src.chan[0] + (unsigned long long)(b * a.src.bstride + 2 * y * a.src.pitch);
            unsigned long long d = a.dst.chan[0] + (unsigned long long)(b * a.dst.bstride + y * a.dst.pitch + j0 * C);
            if (j0 + G > dw) {
                gm__twice_down_edge<C>(p + (unsigned long long)(2 * j0 * C), (unsigned long long)a.src.pitch, d,
                                       (int)(dw - j0));
                continue;
            }
            unsigned w[2][W], v[K / 2];
            gm__lanes<W> r;
            GM__UNROLL
            for (int t = 0; t < 2; ++t, p += (unsigned long long)a.src.pitch) {
                gm__bytes<2 * K> in;
                in.load(p + (unsigned long long)(2 * j0 * C));
                GM__UNROLL
                for (int i = 0; i < W; ++i)
                    w[t][i] = in.w[i];
            }
            GM__UNROLL
            for (int i = 0; i < W; ++i)
                r.spread_sum(i, w[0][i], w[1][i]);
            /* destination byte d: channel d % C of column d / C, the source
             * columns 2 (d / C) and the next */
            GM__UNROLL
            for (int m = 0; m < K / 2; ++m) {
                const int d0 = 2 * m, d1 = 2 * m + 1, l0 = 2 * (d0 / C) * C + d0 % C, l1 = 2 * (d1 / C) * C + d1 % C;
                v[m] = (r.pick(l0, l1) + r.pick(l0 + C, l1 + C) + 0x00020002u) >> 2;
            }
            gm__bytes<K> out;
            gm__twice_pack<K>(v, out.w);
            out.store(d);
        }
}

/* The floating dtypes (f16, bf16, f32) by the same two resizes, in float
 * with each product rounded, as the per-pixel code computes them
 * (templates/resize.inc: gm__linear_row, gm__resize_linear,
 * gm__resize_area_fast), a thread's pixels loaded and stored as words.
 *
 * LINEAR by 2: destination column 2j reads source columns j - 1 and j by
 * 0.25 and 0.75, column 2j + 1 reads j and j + 1 by 0.75 and 0.25; column 0
 * reads columns 0 and 1 by 1 and 0 (OpenCV keeps the second tap there, so
 * an infinite one makes a NaN), the last column its one tap. Rows likewise,
 * clipped: an edge row is read twice, by both weights. A thread takes
 * G source columns by GM__TWICE_RUN units, as gm__twice_up.
 *
 * The 2x2 mean: (a + b) + (c + d) where OpenCV's vector code sums pairs (4
 * channels; 1 channel but for the last (source width / 2) % 4 columns),
 * else 0 + (((a + b) + c) + d), the taps in row order; then times 0.25. */

/* A value of S from its bits (the low E bytes of `bits`) as a float. NaN
 * payloads may be lost (payload 0: the hardware's conversion, without the
 * per-pixel code's test for them), as every value goes through arithmetic,
 * which leaves the GPU's one NaN anyway (test_gpu's twice_specials). */
template <int S>
__device__ __forceinline__ float gm__twice_decode(unsigned bits)
{
    if constexpr (gm__esize[S] == 2) {
        unsigned short h = (unsigned short)bits;
        return gm__decode_f(S, (const unsigned char*)&h, 0);
    } else {
        return gm__decode_f(S, (const unsigned char*)&bits, 0);
    }
}

/* Element i of the words w, E bytes each, as a float of S, and a float
 * stored there as S. */
template <int S>
__device__ __forceinline__ float gm__twice_get(const unsigned* w, int i)
{
    return gm__twice_decode<S>(gm__esize[S] == 2 ? w[i >> 1] >> 16 * (i & 1) : w[i]);
}

template <int S>
__device__ __forceinline__ void gm__twice_put(unsigned* w, int i, float f)
{
    if constexpr (gm__esize[S] == 2) {
        unsigned short h;
        gm__encode_f(S, (unsigned char*)&h, f, 0);
        w[i >> 1] = i & 1 ? (w[i >> 1] & 0xffffu) | (unsigned)h << 16 : h;
    } else {
        unsigned v;
        gm__encode_f(S, (unsigned char*)&v, f, 0);
        w[i] = v;
    }
}

/* Elements i and i + 1 (i even) as gm__twice_put stores them; a 2-byte
 * dtype's two in one conversion (the same rounding; a NaN is whichever the
 * hardware gives, on sm_90 the per-pixel code's bits: test_gpu's
 * twice_specials). A branch to the per-pixel conversion for NaN made the
 * f16 doubling slower (bench/RESULTS.md). */
template <int S>
__device__ __forceinline__ void gm__twice_put2(unsigned* w, int i, float f0, float f1)
{
#if __CUDA_ARCH__ >= 800
    if constexpr (gm__esize[S] == 2) {
        unsigned h;
        if constexpr (S == GM_F16)
            asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(f1), "f"(f0));
        else
            asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(f1), "f"(f0));
        w[i >> 1] = h;
        return;
    }
#endif
    gm__twice_put<S>(w, i, f0);
    gm__twice_put<S>(w, i + 1, f1);
}

/* Two taps by their weights, each product rounded (gm__linear_row). */
__device__ __forceinline__ float gm__twice_mix(float v0, float w0, float v1, float w1)
{
    return GM__MUL_F(v0, w0) + GM__MUL_F(v1, w1);
}

/* The N elements of S from column `first` of the row at p, each channel of
 * a column in turn, columns clamped to [0, width), as float bits: what a
 * lane short of a whole group reads (gm__twice_up_f), not inlined, as
 * gm__twice_gather_row. */
template <int S, int C, int N>
__device__ __noinline__ gm__words<N> gm__twice_row_f(unsigned long long p, long long first, long long width)
{
    gm__words<N> r;
    GM__UNROLL
    for (int i = 0; i < N; ++i)
        r.w[i] = __float_as_uint(gm__decode_f(
            S, (const unsigned char*)(p + (unsigned long long)((gm__clip(first + i / C, 0, width - 1) * C + i % C) *
                                                                gm__esize[S])),
            0));
    return r;
}

/* LINEAR to twice the source, floating dtypes. v[k * C + c]: channel c of
 * source column j0 - 1 + k, k < G + 2 (clamped to the row). */
template <int S, int C, int G>
__device__ __forceinline__ void gm__twice_up_f(const gm__resize_args& a)
{
    enum { E = gm__esize[S], K = G * C * E, V = (G + 2) * C, M = 2 * G * C };
    const unsigned all = 0xffffffffu, lane = threadIdx.x;
    const long long sw = a.map.src_width, sh = a.map.src_height, jw = (long long)blockIdx.x * 32 * G, j0 = jw + lane * G;
    const int whole = j0 + G <= sw;
    const long long step = (long long)gridDim.y * blockDim.y * GM__TWICE_RUN;
    /* the warp's destination bytes of a row (its lane 0 has a column) */
    const int valid = (int)gm__clip(2 * (sw - jw) * C * E, 0, 64 * K);
    /* the column that lane 0 (31) of a warp reads before (after) its
     * columns, which no lane beside it holds */
    const long long beside = gm__clip(lane == 0 ? j0 - 1 : j0 + G, 0, sw - 1) * C * E;
    /* source row `row`: a whole lane loads its columns' words into in
     * (lanes 0 and 31 the column beside too, halo[c] channel c's element),
     * decoded by the pass, so that no instruction waits for them before the
     * stores between; any other lane leaves the row's address in `at` for
     * the pass to read */
    auto fetch = [&](long long b, long long row, unsigned* in, unsigned* halo, unsigned long long& at) {
        unsigned long long p = a.src.chan[0] + (unsigned long long)(b * a.src.bstride + gm__clip(row, 0, sh - 1) * a.src.pitch);
        at = p;
        if (whole) {
            gm__bytes<K> own;
            own.load(p + (unsigned long long)(j0 * C * E));
            GM__UNROLL
            for (int i = 0; i < K / 4; ++i)
                in[i] = own.w[i];
            if (lane == 0 || lane == 31)
                GM__UNROLL
                for (int c = 0; c < C; ++c) {
                    unsigned long long q = p + (unsigned long long)(beside + c * E);
                    halo[c] = E == 2 ? gm__ld<unsigned short>(q) : gm__ld<unsigned>(q);
                }
        }
    };
    /* the row fetched, decoded, the columns beside from the lanes beside
     * (or the halo), then its pass h[m * C + c]: destination column
     * 2 j0 + m */
    auto pass = [&](const unsigned* in, const unsigned* halo, unsigned long long at, float* h) {
        float v[V];
        if (whole) {
            GM__UNROLL
            for (int i = 0; i < G * C; ++i)
                v[C + i] = gm__twice_get<S>(in, i);
        } else {
            gm__words<V> r = {{0}};
            if (j0 < sw)
                r = gm__twice_row_f<S, C, V>(at, j0 - 1, sw);
            GM__UNROLL
            for (int i = 0; i < V; ++i)
                v[i] = __uint_as_float(r.w[i]);
        }
        GM__UNROLL
        for (int c = 0; c < C; ++c) {
            float left = __shfl_up_sync(all, v[G * C + c], 1), right = __shfl_down_sync(all, v[C + c], 1);
            float beside_c = gm__twice_decode<S>(halo[c]);
            if (whole)
                v[c] = lane > 0 ? left : beside_c, v[V - C + c] = lane < 31 ? right : beside_c;
        }
        GM__UNROLL
        for (int g = 0; g < G; ++g)
            GM__UNROLL
            for (int c = 0; c < C; ++c) {
                float l = v[g * C + c], m = v[(g + 1) * C + c], r = v[(g + 2) * C + c];
                h[2 * g * C + c] = gm__twice_mix(l, 0.25f, m, 0.75f);
                h[(2 * g + 1) * C + c] = gm__twice_mix(m, 0.75f, r, 0.25f);
            }
        if (j0 == 0 || j0 + G >= sw) /* the row's first or last column: OpenCV's edge taps */
            GM__UNROLL
            for (int g = 0; g < G; ++g)
                GM__UNROLL
                for (int c = 0; c < C; ++c) {
                    float m = v[(g + 1) * C + c], r = v[(g + 2) * C + c];
                    if (j0 + g == 0)
                        h[2 * g * C + c] = sw > 1 ? gm__twice_mix(m, 1.0f, r, 0.0f) : m;
                    if (j0 + g >= sw - 1)
                        h[(2 * g + 1) * C + c] = m;
                }
    };
    /* the warp's destination row at d: pass n by wn, f by wf, through area
     * `area` */
    auto row_of = [&](const float* n, float wn, const float* f, float wf, unsigned long long d, int area) {
        unsigned out[M * E / 4];
        GM__UNROLL
        for (int i = 0; i < M; i += 2)
            gm__twice_put2<S>(out, i, gm__twice_mix(n[i], wn, f[i], wf), gm__twice_mix(n[i + 1], wn, f[i + 1], wf));
        gm__twice_warp_store<2 * K>(gm__twice_area<2 * K>(area), d, out, valid);
    };
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z) {
        gm__twice_image_start<2 * K>();
        for (long long u0 = ((long long)blockIdx.y * blockDim.y + threadIdx.y) * GM__TWICE_RUN; u0 <= sh; u0 += step) {
            const unsigned long long d = a.dst.chan[0] + (unsigned long long)(b * a.dst.bstride + 2 * jw * C * E);
            /* unit u: the destination rows 2u - 1 and 2u, between the source
             * rows u - 1 and u */
            const long long end = u0 + GM__TWICE_RUN <= sh ? u0 + GM__TWICE_RUN : sh + 1;
            unsigned in[K / 4] = {0}, halo[C] = {0};
            unsigned long long at = 0;
            float h0[M], h1[M];
            /* unit u from the passes of its rows, `last` and `next` (made
             * here), the next row's loads issued before the stores */
            auto unit = [&](long long u, const float* last, float* next) {
                pass(in, halo, at, next);
                if (u + 1 < end)
                    fetch(b, u + 1, in, halo, at);
                if (u > 0)
                    row_of(last, 0.75f, next, 0.25f, d + (unsigned long long)((2 * u - 1) * a.dst.pitch), 0);
                if (u < sh)
                    row_of(last, 0.25f, next, 0.75f, d + (unsigned long long)(2 * u * a.dst.pitch), 1);
            };
            fetch(b, u0 - 1, in, halo, at);
            pass(in, halo, at, h0);
            fetch(b, u0, in, halo, at);
            /* two units a turn, so that the passes trade places without copies */
            for (long long u = u0; u < end; u += 2) {
                unit(u, h0, h1);
                if (u + 1 < end)
                    unit(u + 1, h1, h0);
            }
        }
    }
}

/* One 2x2 mean of the floating dtypes, in pairs or in row order. */
__device__ __forceinline__ float gm__twice_mean(float a, float b, float c, float d, int pairs)
{
    return GM__MUL_F(pairs ? (a + b) + (c + d) : 0.0f + (((a + b) + c) + d), 0.25f);
}

/* The 2x2 mean to half the source, floating dtypes: a thread takes G
 * destination columns of a row (a group the edge cuts, pixel by pixel). */
template <int S, int C, int G>
__device__ __forceinline__ void gm__twice_down_f(const gm__resize_args& a)
{
    enum { E = gm__esize[S], K = G * C * E };
    const long long dw = a.width, jw = (long long)blockIdx.x * 32 * G, j0 = jw + threadIdx.x * G;
    /* a warp of whole groups stores its rows together (staged) */
    const bool together = gm__twice_staged<K>() && dw - jw >= 32 * G;
    int turn = 0;
    /* 4 channels sum in pairs, 1 channel in the destination columns below
     * `paired` */
    const long long paired = (a.map.src_width / 2) & ~3LL;
    /* element i of the thread's destination: its cell's first tap, element
     * first(i) of the source rows, and whether its cell sums in pairs */
    auto first = [](int i) { return (i / C) * 2 * C + i % C; };
    auto pairs = [&](int i) { return C == 4 || (C == 1 && j0 + i / C < paired); };
    if (j0 >= dw)
        return;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < a.height; y += (long long)gridDim.y * blockDim.y) {
            unsigned long long p = a.src.chan[0] + (unsigned long long)(b * a.src.bstride + 2 * y * a.src.pitch + 2 * j0 * C * E);
            unsigned long long d = a.dst.chan[0] + (unsigned long long)(b * a.dst.bstride + y * a.dst.pitch + j0 * C * E);
            if (j0 + G > dw) {
                const unsigned long long q = p + (unsigned long long)a.src.pitch;
#pragma unroll 1
                for (int i = 0; i < (int)(dw - j0) * C; ++i) {
                    const unsigned long long o = (unsigned long long)(first(i) * E), n = C * E;
                    float f = gm__twice_mean(gm__decode_f(S, (const unsigned char*)(p + o), 0),
                                             gm__decode_f(S, (const unsigned char*)(p + o + n), 0),
                                             gm__decode_f(S, (const unsigned char*)(q + o), 0),
                                             gm__decode_f(S, (const unsigned char*)(q + o + n), 0), pairs(i));
                    gm__encode_f(S, (unsigned char*)(d + (unsigned long long)(i * E)), f, 0);
                }
                continue;
            }
            gm__bytes<2 * K> top, bottom;
            gm__bytes<K> out;
            top.load(p);
            bottom.load(p + (unsigned long long)a.src.pitch);
            auto mean = [&](int i) {
                const int t = first(i);
                return gm__twice_mean(gm__twice_get<S>(top.w, t), gm__twice_get<S>(top.w, t + C),
                                      gm__twice_get<S>(bottom.w, t), gm__twice_get<S>(bottom.w, t + C), pairs(i));
            };
            GM__UNROLL
            for (int i = 0; i < G * C; i += 2)
                gm__twice_put2<S>(out.w, i, mean(i), mean(i + 1));
            if (together)
                gm__twice_warp_store<K>(gm__twice_area<K>(turn), d - (unsigned long long)(threadIdx.x * K), out.w, 32 * K);
            else
                out.store(d);
            turn ^= 1;
        }
}

/* The entry point of one whole-2x row (gen/model.py): dtype S, channels C,
 * sampler I (LINEAR: up; AREA_FAST: down), P columns a thread, at least B
 * blocks a multiprocessor. */
#define GM__ENTRY_TWICE(name, S, D, C, LS, LD, P, R, B, I)                                     \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS, GM__BLOCKS_FOR_ARCH(B)) \
        name(gm__resize_args a)                                                                \
    {                                                                                          \
        gm__grid_begin();                                                                      \
        if constexpr (S != GM_U8 && I == GM__SAMPLER_LINEAR)                                   \
            gm__twice_up_f<S, C, P>(a);                                                        \
        else if constexpr (S != GM_U8)                                                         \
            gm__twice_down_f<S, C, P>(a);                                                      \
        else if constexpr (I == GM__SAMPLER_LINEAR)                                            \
            gm__twice_up<C, P>(a);                                                             \
        else                                                                                   \
            gm__twice_down<C, P>(a);                                                           \
    }
