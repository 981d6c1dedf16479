/* SPDX-License-Identifier: MIT */
/* gpumat/yuv.h: the 4:2:0 frames video decoders hand out (NV12, NV21,
 * I420, YV12; P016 of 16-bit samples) turned into gray, BGR or BGRA images
 * as OpenCV's cvtColor turns them, and BGR or BGRA images into 8-bit
 * frames for an encoder, on the GPU or the CPU. */
#ifndef GPUMAT_YUV_H
#define GPUMAT_YUV_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a frame's chroma is laid out. In one buffer (gm_yuv_wrap) the chroma
 * follows the luma's coded rows. */
typedef enum gm_yuv_format {
    GM_YUV_NV12 = 0, /* one plane of U, V pairs (NVDEC, DeepStream, most hardware decoders) */
    GM_YUV_NV21 = 1, /* one plane of V, U pairs (Android cameras) */
    GM_YUV_I420 = 2, /* a U plane, then a V plane (yuv420p) */
    GM_YUV_YV12 = 3, /* a V plane, then a U plane */
    GM_YUV_P016 = 4  /* NV12 of 16-bit samples, the significant bits high: NVDEC's output for 10- and 12-bit
                      * video (P010, P012), read alike */
} gm_yuv_format;

/* The colour matrix, and the range of the values. OpenCV knows BT.601
 * limited range alone; the others take the same fixed-point shape with
 * their own constants (templates/yuv.inc). */
typedef enum gm_yuv_matrix { GM_YUV_BT601 = 0, GM_YUV_BT709 = 1, GM_YUV_BT2020 = 2 } gm_yuv_matrix;
typedef enum gm_yuv_range {
    GM_YUV_LIMITED = 0, /* luma 16-235, chroma 16-240 (video; P016: those << 8) */
    GM_YUV_FULL = 1     /* 0-255 (JPEG, DeepStream's _ER formats; P016: 0-65535) */
} gm_yuv_range;

/* A 4:2:0 frame, or a batch of them: luma of an even width and height,
 * chroma at half of each, every plane a view of the format's samples (u8;
 * u16 for P016):
 *   y  1 channel, width x height;
 *   u  NV12, NV21 and P016: 2 channels interleaved, width / 2 x
 *      height / 2, the pairs in the format's order; I420 and YV12: the U
 *      plane, 1 channel, width / 2 x height / 2;
 *   v  I420 and YV12: the V plane, as u; unused for NV12, NV21 and P016.
 * The planes lie in one kind of memory (host, or one device), hold the same
 * batch and do not overlap. Zero matrix and range are BT.601 limited range,
 * OpenCV's. gm_yuv_wrap describes a frame in one buffer; where the planes
 * lie apart (a DeepStream NvBufSurface's plane offsets and pitches), wrap
 * each with gm_wrap_desc. */
typedef struct gm_yuv {
    gm_yuv_format format;
    gm_yuv_matrix matrix;
    gm_yuv_range range;
    gm_mat y, u, v;
} gm_yuv;

/* Describes a frame in one buffer, luma rows `pitch` bytes apart (0: the
 * width's samples) and the chroma after coded_height of them (0: height),
 * as a decoder lays it out: NVDEC's NV12 of 1080 rows begins its chroma at
 * row 1088 of pitch. NV12, NV21 and P016: chroma rows of `pitch` bytes.
 * I420 and YV12: two
 * planes of coded_height / 2 rows of pitch / 2 bytes, one after the other
 * (OpenCV's single Mat when pitch == width and coded_height == height);
 * where the chroma's pitch is not half the luma's, wrap each plane. The
 * buffer holds pitch * coded_height * 3 / 2 bytes; a GM_DEVICE one is
 * checked as gm_wrap checks it. Matrix and range are set to BT.601
 * limited. On failure *frame is zeroed. */
GM_API gm_status gm_yuv_wrap(gm_yuv* frame, gm_yuv_format format, void* data, int64_t width, int64_t height,
                             int64_t pitch, int64_t coded_height, gm_where where);

/* The rectangle (x, y, width, height) of frame's luma and its chroma, as a
 * view in *view: every value even (the chroma of a 2x2 block stays whole). */
GM_API gm_status gm_yuv_roi(const gm_yuv* frame, gm_yuv* view, int64_t x, int64_t y, int64_t width,
                            int64_t height);

/* cv::cvtColor of a 4:2:0 frame into dst, u8 of the frame's size and
 * batch: 1 channel is the luma (COLOR_YUV2GRAY_*), 3 channels BGR
 * (COLOR_YUV2BGR_NV12, _NV21, _I420, _YV12; cvtColorTwoPlane), 4 BGRA with
 * alpha 255; rgb nonzero gives RGB and RGBA instead. Bit-exact with
 * OpenCV's (4.6 in tests/oracle.cpp) for BT.601 limited range: each 2x2
 * block of luma takes its chroma pair as it is (no interpolation). dst may
 * be interleaved or planar. On the GPU when the frame is device memory
 * (queued on stream), else on the CPU.
 *
 * A P016 frame (OpenCV has no such code) goes into u8, u16 or f32: the
 * same formulas with offsets 16 << 8 and 128 << 8 in 64-bit integers:
 * u16 rounds at the samples' scale, u8 at 1/256 of it (8-bit samples
 * shifted up by 8 give the 8-bit frame's result bit for bit), f32 is the
 * fixed-point value over 65535 clamped to [0, 1] (within 2^-23); gray is
 * the luma so scaled, alpha the maximum (255, 65535, 1.0).
 * Exact arithmetic: templates/yuv.inc. */
GM_API gm_status gm_yuv_convert(const gm_yuv* frame, gm_mat* dst, int rgb, gm_stream stream);

/* The reverse, into 8-bit frames (P016 is refused): src, u8 BGR or BGRA
 * of the frame's size and batch (rgb
 * nonzero: RGB, RGBA; alpha is not read), interleaved or planar, into
 * frame's planes. Each pixel's Y, and each 2x2 block's U and V from its
 * top-left pixel, in 20-bit fixed point: cv::cvtColor's COLOR_BGR2YUV_I420
 * and _YV12 (and their RGB, BGRA, RGBA forms) bit for bit for BT.601
 * limited range (OpenCV 4.6 in tests/oracle.cpp), its samples interleaved
 * for NV12 and NV21 (OpenCV has no such code); the other matrices and
 * ranges with constants from their definitions (templates/yuv.inc). src
 * and the planes do not overlap. On the GPU when they are device memory
 * (queued on stream), else on the CPU. */
GM_API gm_status gm_yuv_from_image(const gm_mat* src, gm_yuv* frame, int rgb, gm_stream stream);

#ifdef __cplusplus
}
#endif

#endif
