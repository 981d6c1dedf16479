/* SPDX-License-Identifier: MIT */
/* gm_yuv_convert: a thread 8 pixels of GM__YUV_PAIRS pairs of rows (one
 * pair for P016), each pair sharing 4 chroma pairs (templates/yuv.inc).
 * Blocks along x cover a row's chunks, along y its pairs of rows, along z
 * the items; stride loops cover rows and items beyond the grid's 65535. A
 * chunk whose rows lie on 8-byte boundaries (planar chroma on 4) moves
 * words: a load a luma row, one for the chroma (one a plane where planar),
 * a store a channel's or a plane's 8 bytes; a whole warp of interleaved
 * chunks on 16-byte rows stores through shared memory, 16 bytes a lane.
 * Other chunks, and a row's last when the width is not a multiple of 8, go
 * pixel by pixel. P016 frames likewise, with 16-byte words
 * (gm__yuv16_chunk), staged into interleaved f32 only. */

/* Bytes 0 of a, b, c, d as one word. */
__device__ __forceinline__ unsigned gm__yuv_pack(int a, int b, int c, int d)
{
    return __byte_perm(__byte_perm(a, b, 0x40), __byte_perm(c, d, 0x40), 0x5410);
}

/* a, b, c, d, each a channel's value before its >> 20, shifted, clamped
 * to [0, 255] and packed as bytes 0 to 3 of one word. On sm_90 two PRMTs
 * pair their high halves (value >> 16) in 16-bit lanes, two
 * VIMNMX.S16x2 clamp those to [0, 4095], two shifts by 4 bring each
 * lane's byte down (the upper lane's low bits fall into the lower lane's
 * bits 12 to 15, never picked) and a PRMT packs: 7 instructions where a
 * shift, a clamp each and gm__yuv_pack take 11. */
__device__ __forceinline__ unsigned gm__yuv_pack_q20(int a, int b, int c, int d)
{
#if __CUDA_ARCH__ >= 900
    const unsigned ab = __vimin_s16x2_relu(__byte_perm(a, b, 0x7632), 0x0fff0fff) >> 4;
    const unsigned cd = __vimin_s16x2_relu(__byte_perm(c, d, 0x7632), 0x0fff0fff) >> 4;
    return __byte_perm(ab, cd, 0x6420);
#else
    return gm__yuv_pack(gm__yuv_u8(a), gm__yuv_u8(b), gm__yuv_u8(c), gm__yuv_u8(d));
#endif
}

/* a, b, c, d, each a channel's value after its >> 20, clamped to [0, 255]
 * and packed as bytes 0 to 3 of one word: two cvt.pack.sat (I2IP). */
__device__ __forceinline__ unsigned gm__yuv_pack_sat(int a, int b, int c, int d)
{
    unsigned hi, w;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(hi) : "r"(d), "r"(c));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(w) : "r"(b), "r"(a), "r"(hi));
    return w;
}

/* The staging row of this thread's warp (gm__yuv_store_staged), L bytes
 * a lane: a 4-channel chunk's, so that a kernel's 3- and 4-channel forms
 * share one array. */
template <int L> __device__ __forceinline__ uint4* gm__yuv_stage()
{
    __shared__ uint4 stage[GM__YUV_BLOCK_Y][GM__YUV_BLOCK_X * L / 16];
    return stage[threadIdx.y];
}

/* A warp's row of interleaved chunks, lane l's B bytes (words w, B a
 * multiple of 8) at row (the warp's first byte, 16-byte aligned, + B l),
 * through shared memory (L bytes a lane, L >= B) so that each 16-byte
 * store of the warp writes 512 contiguous bytes (a row's last perhaps
 * fewer): whole sectors, where a lane's own stores leave the L2 to merge
 * each sector from several. Every lane of the warp calls it. */
template <int L, int B> __device__ __forceinline__ void gm__yuv_store_staged(unsigned long long row, const unsigned* w)
{
    static_assert(GM__YUV_BLOCK_X == 32, "a warp is the chunks of one threadIdx.y");
    static_assert(B % 8 == 0 && B <= L, "a lane's bytes are words and fit its staging row");
    uint4* s = gm__yuv_stage<L>();
    const unsigned lane = threadIdx.x;
#pragma unroll
    for (int k = 0; k < B / 8; ++k)
        ((uint2*)s)[B / 8 * lane + k] = make_uint2(w[2 * k], w[2 * k + 1]);
    __syncwarp();
    const unsigned long long first = row - (unsigned long long)B * lane;
#pragma unroll
    for (int k = 0; k < (2 * B + 31) / 32; ++k)
        if (32 * k + lane < 2 * B)
            *(uint4*)(first + 16 * (32 * k + lane)) = s[32 * k + lane];
    __syncwarp(); /* the warp's next row reuses s */
}

/* Byte k of w: one PRMT, where the compiler makes w >> 8 * k & 255 a
 * shift and a mask, two integer-pipe instructions (bench/RESULTS.md). */
__device__ __forceinline__ int gm__yuv_byte(unsigned w, int k)
{
    return (int)__byte_perm(w, 0, 0x4440 | k);
}

/* Whether the chunks at x0 of a thread's pairs of rows move words: they
 * are whole, and their rows (luma at ly, image at image, planar when chw)
 * lie on 8-byte boundaries, as do their chroma pairs where U (at lu) and V
 * (at lv) interleave, planar chroma on 4 (not asked without chroma). */
__device__ __forceinline__ bool gm__yuv_words(const gm__yuv_args& a, long long x0, unsigned long long ly,
                                              unsigned long long lu, unsigned long long lv, unsigned long long image,
                                              bool chw, bool chroma)
{
    const unsigned long long pairs = lu < lv ? lu : lv;
    return x0 + GM__YUV_CHUNK <= a.width &&
           ((ly | a.y_pitch | image | a.image_pitch | (chw ? a.image_cstride : 0)) & 7) == 0 &&
           (!chroma || (a.step == 2 ? ((pairs | a.u_pitch) & 7) == 0 : ((lu | lv | a.u_pitch | a.v_pitch) & 3) == 0));
}

/* A chunk's input: its two rows' 8 luma samples, its 4 U samples, its 4 V. */
struct gm__yuv_in {
    uint2 luma[2];
    unsigned cu, cv;
};

/* The input of the chunk whose luma lies at ly, its U at lu and V at lv. */
template <int C>
__device__ __forceinline__ gm__yuv_in gm__yuv_load(const gm__yuv_args& a, unsigned long long ly, unsigned long long lu,
                                                   unsigned long long lv)
{
    gm__yuv_in in;
    in.luma[0] = *(const uint2*)ly;
    in.luma[1] = *(const uint2*)(ly + a.y_pitch);
    in.cu = in.cv = 0;
    if (C > 1) {
        if (a.step == 2) {
            const unsigned long long pairs = lu < lv ? lu : lv;
            const uint2 w = *(const uint2*)pairs;
            const unsigned even = __byte_perm(w.x, w.y, 0x6420), odd = __byte_perm(w.x, w.y, 0x7531);
            in.cu = lu == pairs ? even : odd, in.cv = lu == pairs ? odd : even;
        } else {
            in.cu = *(const unsigned*)lu, in.cv = *(const unsigned*)lv;
        }
    }
    return in;
}

/* The chunk of input in into C channels at d, planar when CHW. */
template <int C, bool CHW>
__device__ __forceinline__ void gm__yuv_put(const gm__yuv_args& a, const gm__yuv_in& in, unsigned long long d,
                                            bool staged)
{
    enum { N = GM__YUV_CHUNK };
    /* Planar 3-channel images shift and clamp their values as they pack
     * (gm__yuv_pack_q20); the others shift, then clamp and pack by
     * cvt.pack.sat, and interleaved ones go through shared memory where
     * staged. Without the staging, either packing made interleaved rows
     * slower: the compiler then issues a lane's stores apart, and the L2
     * takes more sectors (bench/RESULTS.md). */
    constexpr bool Q20 = CHW && C == 3;
    int chroma[N / 2][3]; /* each pair's ku U + kv V + bias, a channel each */
    if (C > 1)
#pragma unroll
        for (int q = 0; q < N / 2; ++q)
#pragma unroll
            for (int c = 0; c < 3; ++c)
                chroma[q][c] =
                    a.ku[c] * gm__yuv_byte(in.cu, q) + a.kv[c] * gm__yuv_byte(in.cv, q) + a.bias[c];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const uint2 luma = in.luma[i];
        unsigned char* row = (unsigned char*)(d + i * a.image_pitch);
        int o[C * N]; /* the chunk's bytes in the destination's order */
        if (C == 1) {
            *(uint2*)row = luma;
            continue;
        }
#pragma unroll
        for (int p = 0; p < N; ++p) {
            const int y = gm__yuv_byte(p < 4 ? luma.x : luma.y, p % 4);
            const int l = y > a.yoff ? y - a.yoff : 0;
#pragma unroll
            for (int c = 0; c < 3; ++c)
                o[CHW ? c * N + p : C * p + c] = (l * a.cy + chroma[p / 2][c]) >> (Q20 ? 0 : 20);
            if (C == 4)
                o[CHW ? 3 * N + p : C * p + 3] = 255;
        }
        uint2 w[C];
#pragma unroll
        for (int k = 0; k < C; ++k)
            w[k] = Q20 ? make_uint2(gm__yuv_pack_q20(o[N * k], o[N * k + 1], o[N * k + 2], o[N * k + 3]),
                                    gm__yuv_pack_q20(o[N * k + 4], o[N * k + 5], o[N * k + 6], o[N * k + 7]))
                       : make_uint2(gm__yuv_pack_sat(o[N * k], o[N * k + 1], o[N * k + 2], o[N * k + 3]),
                                    gm__yuv_pack_sat(o[N * k + 4], o[N * k + 5], o[N * k + 6], o[N * k + 7]));
        if (staged) {
            gm__yuv_store_staged<4 * N, C * N>((unsigned long long)row, (const unsigned*)w);
            continue;
        }
#pragma unroll
        for (int k = 0; k < C; ++k)
            *(uint2*)(row + (CHW ? k * a.image_cstride : N * k)) = w[k];
    }
}

/* The chunks at x0 of pairs of rows r to r + n - 1 (n at most
 * GM__YUV_PAIRS) of item b, into C channels, planar when CHW. Every
 * chunk's loads go out before the first store: the pointers are generic,
 * so the compiler may not move a load above a store itself. */
template <int C, bool CHW>
__device__ __forceinline__ void gm__yuv_chunk(const gm__yuv_args& a, long long b, long long x0, long long r, int n)
{
    enum { N = GM__YUV_CHUNK, K = GM__YUV_PAIRS };
    const unsigned long long ly = gm__yuv_luma_at(&a, b, x0, 2 * r), lu = gm__yuv_u_at(&a, b, x0, 2 * r);
    const unsigned long long lv = gm__yuv_v_at(&a, b, x0, 2 * r), d = gm__yuv_image_at(&a, b, x0, 2 * r);
    if (!gm__yuv_words(a, x0, ly, lu, lv, d, CHW, C > 1)) {
        for (long long y = 2 * r; y < 2 * (r + n); ++y)
            for (long long x = x0; x < x0 + N && x < a.width; ++x)
                gm__yuv_pixel(&a, b, x, y);
        return;
    }
    /* Staged where the whole warp is here, every lane in word mode: its
     * lanes share b and r (one threadIdx.y) and reconverge after each
     * chunk, so its chunks are 32 in a row of one row, and staged is the
     * same in all of them. */
    const bool staged = C > 1 && !CHW && __activemask() == 0xffffffffu &&
                        (((d - 8ull * C * threadIdx.x) | a.image_pitch) & 15) == 0;
    gm__yuv_in in[K];
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (k < n)
            in[k] = gm__yuv_load<C>(a, ly + 2 * k * a.y_pitch, lu + k * a.u_pitch, lv + k * a.v_pitch);
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (k < n)
            gm__yuv_put<C, CHW>(a, in[k], d + 2 * k * a.image_pitch, staged);
}

/* Runs Op::chunk(a, b, x0, r, n) for this thread's chunk x0 of every
 * group of n pairs of rows from r, n at most Op::pairs, of every item b of
 * launch a. Any grid covers the launch; the host's (impl/yuv.h) gives a
 * thread one group. */
template <class Op> __device__ __forceinline__ void gm__yuv_launch(const gm__yuv_args& a)
{
    enum { K = Op::pairs };
    const long long x0 = ((long long)blockIdx.x * GM__YUV_BLOCK_X + threadIdx.x) * GM__YUV_CHUNK;
    const long long pairs = a.height / 2;
    gm__grid_begin();
    if (x0 >= a.width)
        return;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long r = ((long long)blockIdx.y * GM__YUV_BLOCK_Y + threadIdx.y) * K; r < pairs;
             r += (long long)gridDim.y * GM__YUV_BLOCK_Y * K)
            Op::chunk(a, b, x0, r, (int)(pairs - r < K ? pairs - r : K));
}

/* The chunks of u8 images by Op::run<C, CHW>, with C and CHW the image's
 * channels and layout (1 channel only where Op::gray). */
template <class Op> struct gm__yuv_shaped {
    static constexpr int pairs = Op::pairs;
    __device__ __forceinline__ static void chunk(const gm__yuv_args& a, long long b, long long x0, long long r, int n)
    {
        if constexpr (Op::gray)
            if (a.channels == 1) {
                Op::template run<1, false>(a, b, x0, r, n);
                return;
            }
        if (a.channels == 3)
            a.image_cstride == 1 ? Op::template run<3, false>(a, b, x0, r, n)
                                 : Op::template run<3, true>(a, b, x0, r, n);
        else
            a.image_cstride == 1 ? Op::template run<4, false>(a, b, x0, r, n)
                                 : Op::template run<4, true>(a, b, x0, r, n);
    }
};

struct gm__yuv_to_image {
    static constexpr bool gray = true;
    static constexpr int pairs = GM__YUV_PAIRS;
    template <int C, bool CHW>
    __device__ __forceinline__ static void run(const gm__yuv_args& a, long long b, long long x0, long long r, int n)
    {
        gm__yuv_chunk<C, CHW>(a, b, x0, r, n);
    }
};

/* The 32-bit word w of elements of E bytes, whose bits o holds. */
template <int E> __device__ __forceinline__ unsigned gm__yuv16_word(const unsigned* o, int w)
{
    if (E == 1)
        return gm__yuv_pack(o[4 * w], o[4 * w + 1], o[4 * w + 2], o[4 * w + 3]);
    if (E == 2)
        return o[2 * w] | o[2 * w + 1] << 16;
    return o[w];
}

/* The N elements of E bytes whose bits o holds to p, as 8-byte words for
 * u8 and 16-byte ones otherwise (p aligned so), by xform_fast.cu's
 * stores: a plain vector store of float bits gets split into scalar ones
 * by the compiler. */
template <int E, int N> __device__ __forceinline__ void gm__yuv16_store(unsigned long long p, const unsigned* o)
{
#pragma unroll
    for (int k = 0; k < N * E / (E == 1 ? 8 : 16); ++k) {
        unsigned w[4];
#pragma unroll
        for (int j = 0; j < (E == 1 ? 2 : 4); ++j)
            w[j] = gm__yuv16_word<E>(o, (E == 1 ? 2 : 4) * k + j);
        if (E == 1)
            gm__st8(p + 8 * k, w);
        else
            gm__st16(p + 16 * k, w);
    }
}

/* The chunk at x0 of rows 2r and 2r + 1 of item b of a P016 frame into
 * dtype D, C channels, planar when CHW. A chunk whose luma and chroma rows
 * lie on 16-byte boundaries, and the image's on its words' (above), loads
 * a luma row's 8 samples and the 4 chroma pairs as one 16-byte word each
 * and stores words; others go pixel by pixel. */
template <int D, int C, bool CHW>
__device__ __forceinline__ void gm__yuv16_chunk(const gm__yuv_args& a, long long b, long long x0, long long r)
{
    enum { N = GM__YUV_CHUNK, E = D == GM_U8 ? 1 : D == GM_U16 ? 2 : 4 };
    const unsigned long long ly = gm__yuv_luma_at(&a, b, 2 * x0, 2 * r), lu = gm__yuv_u_at(&a, b, x0, 2 * r);
    const unsigned long long lv = gm__yuv_v_at(&a, b, x0, 2 * r), d = gm__yuv_image_at(&a, b, x0, 2 * r);
    const unsigned long long pairs = lu < lv ? lu : lv;
    const unsigned long long align = E == 1 ? 7 : 15;
    if (x0 + N > a.width || ((ly | a.y_pitch | pairs | a.u_pitch) & 15) ||
        ((d | a.image_pitch | (CHW ? a.image_cstride : 0)) & align)) {
        for (int i = 0; i < 2; ++i)
            for (long long x = x0; x < x0 + N && x < a.width; ++x)
                gm__yuv16_pixel(D, &a, b, x, 2 * r + i);
        return;
    }
    /* As gm__yuv_chunk's, for f32 only: u8 and u16 (24 to 64 bytes a lane)
     * lost more to the registers the staging takes than the stores gained
     * (bench/RESULTS.md). */
    const bool staged = E == 4 && C > 1 && !CHW && __activemask() == 0xffffffffu &&
                        (((d - (unsigned long long)C * N * E * threadIdx.x) | a.image_pitch) & 15) == 0;
    long long chroma[N / 2][3]; /* each pair's gm__yuv16_chroma, a channel each */
    if (C > 1) {
        const uint4 w = *(const uint4*)pairs;
        const unsigned pair[4] = {w.x, w.y, w.z, w.w}, ushift = lu == pairs ? 0 : 16;
#pragma unroll
        for (int q = 0; q < N / 2; ++q)
#pragma unroll
            for (int c = 0; c < 3; ++c)
                chroma[q][c] = gm__yuv16_chroma(&a, c, (int)(pair[q] >> ushift & 0xffff),
                                                (int)(pair[q] >> (16 - ushift) & 0xffff));
    }
    const int black = a.yoff << 8;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const uint4 w = *(const uint4*)(ly + i * a.y_pitch);
        const unsigned luma[4] = {w.x, w.y, w.z, w.w};
        const unsigned long long row = d + i * a.image_pitch;
        unsigned o[C * N]; /* the chunk's elements' bits in the destination's order */
#pragma unroll
        for (int p = 0; p < N; ++p) {
            const int y = (int)(luma[p / 2] >> 16 * (p % 2) & 0xffff);
            if (C == 1) {
                o[p] = gm__yuv16_bits(D, (long long)y << 20);
                continue;
            }
            const long long l = (long long)(y > black ? y - black : 0) * a.cy;
#pragma unroll
            for (int c = 0; c < 3; ++c)
                o[CHW ? c * N + p : C * p + c] = gm__yuv16_bits(D, l + chroma[p / 2][c]);
            if (C == 4)
                o[CHW ? 3 * N + p : C * p + 3] = gm__yuv16_bits(D, 65535LL << 20);
        }
        if (CHW)
#pragma unroll
            for (int k = 0; k < C; ++k)
                gm__yuv16_store<E, N>(row + k * a.image_cstride, o + k * N);
        else if (staged) {
            unsigned w[C * N * E / 4];
#pragma unroll
            for (int j = 0; j < C * N * E / 4; ++j)
                w[j] = gm__yuv16_word<E>(o, j);
            gm__yuv_store_staged<4 * N * E, C * N * E>(row, w);
        } else
            gm__yuv16_store<E, C * N>(row, o);
    }
}

/* P016 into dtype D, by the image's channels and layout. */
template <int D> struct gm__yuv16_to_image {
    static constexpr int pairs = 1;
    __device__ __forceinline__ static void chunk(const gm__yuv_args& a, long long b, long long x0, long long r, int)
    {
        const bool chw = a.image_cstride != (long long)gm__esize[D];
        if (a.channels == 1)
            gm__yuv16_chunk<D, 1, false>(a, b, x0, r);
        else if (a.channels == 3)
            chw ? gm__yuv16_chunk<D, 3, true>(a, b, x0, r) : gm__yuv16_chunk<D, 3, false>(a, b, x0, r);
        else
            chw ? gm__yuv16_chunk<D, 4, true>(a, b, x0, r) : gm__yuv16_chunk<D, 4, false>(a, b, x0, r);
    }
};

/* The entry point of the conversion's rows: 8-bit frames (S u8) into u8,
 * P016 (S u16) into D. */
#define GM__ENTRY_YUV(name, S, D, C, LS, LD, P, R, B, I)                                                \
    extern "C" __global__ void __launch_bounds__(GM__YUV_BLOCK_X * GM__YUV_BLOCK_Y) name(gm__yuv_args a)\
    {                                                                                                   \
        if constexpr (S == GM_U8)                                                                       \
            gm__yuv_launch<gm__yuv_shaped<gm__yuv_to_image>>(a);                                        \
        else                                                                                            \
            gm__yuv_launch<gm__yuv16_to_image<D>>(a);                                                   \
    }
