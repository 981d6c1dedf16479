/* SPDX-License-Identifier: MIT */
/* gm_yuv_from_image: a thread 8 pixels of a pair of rows, whose 4 2x2
 * blocks give 4 chroma pairs (templates/yuv.inc), laid out as
 * gm_yuv_convert's kernel (templates/yuv.cu) lays out its threads. A chunk
 * whose rows lie on 8-byte boundaries (planar chroma on 4) moves words: a
 * load a channel's or a plane's 8 bytes, a store a luma row, one for the
 * chroma (one a plane where planar). Other chunks, and a row's last when
 * the width is not a multiple of 8, go block by block. */

/* The chunk at x0 of rows 2r and 2r + 1 of item b, from C channels, planar
 * when CHW. */
template <int C, bool CHW>
__device__ __forceinline__ void gm__yuv_from_chunk(const gm__yuv_args& a, long long b, long long x0, long long r)
{
    enum { N = GM__YUV_CHUNK };
    const unsigned long long ly = gm__yuv_luma_at(&a, b, x0, 2 * r), lu = gm__yuv_u_at(&a, b, x0, 2 * r);
    const unsigned long long lv = gm__yuv_v_at(&a, b, x0, 2 * r), image = gm__yuv_image_at(&a, b, x0, 2 * r);
    const unsigned long long pairs = lu < lv ? lu : lv; /* where U and V interleave */
    const bool words = gm__yuv_words(a, x0, ly, lu, lv, image, CHW, true);
    if (!words) {
        for (long long x = x0; x < x0 + N && x < a.width; x += 2)
            gm__yuv_from_block(&a, b, x, 2 * r);
        return;
    }
    unsigned cu = 0, cv = 0; /* the 4 blocks' U samples, their V */
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const unsigned char* row = (const unsigned char*)(image + i * a.image_pitch);
        uint2 in[C]; /* the chunk's bytes in the image's order */
        unsigned luma[2] = {0, 0};
#pragma unroll
        for (int k = 0; k < C; ++k)
            in[k] = *(const uint2*)(row + (CHW ? k * a.image_cstride : N * k));
#pragma unroll
        for (int p = 0; p < N; ++p) {
            int px[3];
#pragma unroll
            for (int c = 0; c < 3; ++c) {
                const int n = CHW ? c * N + p : C * p + c;
                px[c] = (int)((n % 8 < 4 ? in[n / 8].x : in[n / 8].y) >> 8 * (n % 4) & 255);
            }
            luma[p / 4] |= (unsigned)gm__yuv_weigh(a.fy, a.yoff, px[0], px[1], px[2]) << 8 * (p % 4);
            if (i == 0 && p % 2 == 0) {
                cu |= (unsigned)gm__yuv_weigh(a.fu, 128, px[0], px[1], px[2]) << 4 * p;
                cv |= (unsigned)gm__yuv_weigh(a.fv, 128, px[0], px[1], px[2]) << 4 * p;
            }
        }
        *(uint2*)(ly + i * a.y_pitch) = make_uint2(luma[0], luma[1]);
    }
    if (a.step == 2) {
        const unsigned first = lu == pairs ? cu : cv, second = lu == pairs ? cv : cu;
        *(uint2*)pairs = make_uint2(__byte_perm(first, second, 0x5140), __byte_perm(first, second, 0x7362));
    } else {
        *(unsigned*)lu = cu, *(unsigned*)lv = cv;
    }
}

struct gm__yuv_from_image {
    static constexpr bool gray = false;
    static constexpr int pairs = 1;
    template <int C, bool CHW>
    __device__ __forceinline__ static void run(const gm__yuv_args& a, long long b, long long x0, long long r, int)
    {
        gm__yuv_from_chunk<C, CHW>(a, b, x0, r);
    }
};

/* The entry point of the reverse's one catalogue row (its fields unused;
 * threads laid out by gm__yuv_launch, templates/yuv.cu). */
#define GM__ENTRY_YUV_FROM(name, S, D, C, LS, LD, P, R, B, I)                                             \
    extern "C" __global__ void __launch_bounds__(GM__YUV_BLOCK_X * GM__YUV_BLOCK_Y) name(gm__yuv_args a) \
    {                                                                                                       \
        gm__yuv_launch<gm__yuv_shaped<gm__yuv_from_image>>(a);                                              \
    }
