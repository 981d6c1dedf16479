/* SPDX-License-Identifier: MIT */
/* gpumat/draw.h: drawing on frames where they are, GPU or host memory:
 * constants and sprites. */
#ifndef GPUMAT_DRAW_H
#define GPUMAT_DRAW_H

#include "base.h"
#include "yuv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cv::Mat::setTo(Scalar): channel c of every pixel of dst becomes value[c]
 * (dst->channels values are read), saturated to dst's dtype as OpenCV's
 * saturate_cast does: integers rounded half to even and clamped, f16 and
 * bf16 by way of float. A NaN or a value outside int32 goes to an integer
 * dtype as gm_convert's do (0; the nearer limit), not as x86 OpenCV's
 * INT_MIN. Any dtype, channels and layout, any view (an ROI, a plane, a
 * batch item, a whole batch); on the GPU when dst is device memory (queued
 * on stream), else on the CPU. */
GM_API gm_status gm_fill(gm_mat* dst, const double* value, gm_stream stream);

/* What a sprite's pixels are. */
typedef enum gm_sprite_kind {
    GM_SPRITE_RGBA = 0,    /* u8 x4 R, G, B, A, straight alpha */
    GM_SPRITE_PREMUL = 1,  /* u8 x4 R, G, B, A, colour premultiplied by alpha */
    GM_SPRITE_MASK = 2     /* u8 x1 coverage of gm_sprite.color */
} gm_sprite_kind;

/* An image to draw over a frame, top-left pixel at (x, y) of the frame;
 * the parts outside the frame (x or y negative, or past its edges) are
 * clipped. image: one interleaved u8 image of 4 channels (1 for a mask), in
 * host memory (pageable or pinned) or on the frame's device. color (MASK):
 * R, G, B and A, A scaled by the coverage. */
typedef struct gm_sprite {
    gm_mat image;
    int64_t x, y;
    gm_sprite_kind kind;
    unsigned char color[4];
} gm_sprite;

/* How gm_overlay_draw composes. Zero-initialise it ({0}) for the defaults. */
typedef struct gm_overlay_params {
    int rgb;        /* 0: the frame is BGR or BGRA (OpenCV's order); 1: RGB or RGBA */
    int alpha_over; /* 4-channel frames: 0 keeps the frame's alpha; 1 composes it
                       (Porter-Duff OVER: a + (frame a * (255 - a) + 127) / 255) */
} gm_overlay_params;

/* What gm_overlay_draw keeps between calls: two sets of a pinned staging
 * buffer and a device buffer, grown to the largest call, taken in turn, and
 * the event of each set's last call. One per thread (or a lock around it):
 * a call waits until the overlay's call before last has run on the GPU
 * before it reuses its set, so that it stages its sprites while the GPU
 * runs the call before. */
typedef struct gm_overlay gm_overlay;

/* A new overlay in *overlay; it holds no memory until its first draw on a
 * GPU. */
GM_API gm_status gm_overlay_create(gm_overlay** overlay);

/* Waits for the overlay's last draw, then frees it and its buffers. NULL
 * is ignored. */
GM_API void gm_overlay_destroy(gm_overlay* overlay);

/* Draws sprites[0..count) over frame (u8, 3 or 4 channels interleaved, one
 * image), in order (a later sprite lands over an earlier one). Each sprite
 * pixel p over frame pixel d, each colour channel, in integers:
 *   straight (RGBA, MASK):  (p * a + d * (255 - a) + 127) / 255
 *   premultiplied:          p + (d * (255 - a) + 127) / 255, at most 255
 * where a is p's alpha, or for a mask (coverage * color A + 127) / 255.
 * On the GPU (frame in device memory): host sprites' visible rows are
 * copied into the overlay's pinned buffer and uploaded in one copy with the
 * call's tables, device sprites are read where they are, and one kernel
 * launch draws them all, queued on stream (the call returns before it
 * runs; the sprites' host memory may be reused at once). On the CPU (frame
 * in host memory) every sprite must be in host memory, and the call is
 * done on return, with the same bytes. params NULL: the defaults. A draw
 * is not for capture into a CUDA graph: it uploads its tables from the
 * overlay's buffers, which later draws overwrite, and the event it records
 * would be the capture's. */
GM_API gm_status gm_overlay_draw(gm_overlay* overlay, gm_mat* frame, const gm_sprite* sprites, int count,
                                 const gm_overlay_params* params, gm_stream stream);

/* gm_overlay_draw onto a 4:2:0 frame of 8-bit samples (NV12, NV21, I420 or
 * YV12; gpumat/yuv.h), one image, in its matrix and range. A sprite pixel
 * weighs each plane by what the frame's format stores of its colour, the
 * sample S that gm_yuv_from_image gives it (offset o: 16 for limited-range
 * luma, 0 for full, 128 for U and V), in integers:
 *   straight (RGBA, MASK):  w = S * a
 *   premultiplied:          w = 255 * L + o * a, L the colour's sample
 *                           without the offset, (sum f p + 2^19) >> 20
 * and each luma sample d under it becomes (w + d * (255 - a) + 127) / 255
 * (at most 255); each chroma sample d of a 2x2 block becomes the mean of
 * its four pixels' blends rounded once, (W + d * (1020 - A) + 510) / 1020
 * in [0, 255], W and A the sums of w and a over the block's pixels that
 * the sprite covers. Sprites at odd places or of odd sizes blend the part
 * of a block they cover. The sprites, their memory and the call's order
 * and queueing are as gm_overlay_draw's. */
GM_API gm_status gm_overlay_draw_yuv(gm_overlay* overlay, gm_yuv* frame, const gm_sprite* sprites, int count,
                                     gm_stream stream);

/* cv::addWeighted(src1, alpha, src2, beta, gamma, dst) of u8 images: each
 * value of dst = saturate(rint(x * alpha + (y * beta + gamma))), x and y
 * the values of src1 and src2 at its place, in float (the weights rounded
 * to float as OpenCV does), each step a fused multiply-add: what OpenCV's
 * vector code computes on CPUs with FMA (x86 since Haswell, where its AVX2
 * code runs). OpenCV 4.6 as Debian builds it computes the last (n mod 16)
 * values of each run of n (a row, or the whole image where the three are
 * continuous) in scalar code that rounds y * beta on its own; there the two
 * can differ by 1 (the oracle counts them). A sum beyond int32 saturates
 * (x86 OpenCV gives 0); NaN gives 0. The three
 * alike in size, channels (1-4), layout and batch, in the same memory (one
 * device, or the host); dst may be src1 or src2 itself (the same view: an
 * image blended in place), any other overlap is refused. On the GPU when
 * they are device memory (queued on stream), else on the CPU. */
GM_API gm_status gm_add_weighted(const gm_mat* src1, double alpha, const gm_mat* src2, double beta, double gamma,
                                 gm_mat* dst, gm_stream stream);

#ifdef __cplusplus
}
#endif

#endif
