/* SPDX-License-Identifier: MIT */
/* gpumat/base.h: configuration, status codes, the gm_mat descriptor. */
#ifndef GPUMAT_BASE_H
#define GPUMAT_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "gen/dtypes.h"

#if defined(GPUMAT_STATIC) && defined(GPUMAT_NO_IMPLEMENTATION)
#error "gpumat: GPUMAT_STATIC makes the functions this file's own, GPUMAT_NO_IMPLEMENTATION leaves them to a library: define one of them"
#endif
#ifndef GM_API
#ifdef GPUMAT_STATIC
/* A program that calls a few functions must not get -Wunused-function for the rest. */
#if defined(__GNUC__) || defined(__clang__)
#define GM_API static __attribute__((unused))
#else
#define GM_API static
#endif
#else
#define GM_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every status, declared once: enum value and description. */
#define GM_STATUS_LIST(X)                                                              \
    X(GM_OK, "success")                                                                \
    X(GM_ERR_ARG, "invalid argument")                                                  \
    X(GM_ERR_SIZE, "invalid or overflowing size or pitch")                             \
    X(GM_ERR_TYPE, "dtype, channel count or layout mismatch")                          \
    X(GM_ERR_LOCATION, "memory is in the wrong place (host vs device)")                \
    X(GM_ERR_OVERLAP, "source and destination overlap")                                \
    X(GM_ERR_NO_MEMORY, "out of memory")                                               \
    X(GM_ERR_NO_DRIVER, "CUDA driver not available")                                    \
    X(GM_ERR_NO_DEVICE, "no usable CUDA device")                                       \
    X(GM_ERR_NO_NVRTC, "NVRTC library not available")                                  \
    X(GM_ERR_COMPILE, "kernel compilation failed")                                     \
    X(GM_ERR_CUDA, "a CUDA driver call failed")                                        \
    X(GM_ERR_NOT_EMBEDDED, "kernel not in the ahead-of-time set and no NVRTC to build it") \
    X(GM_ERR_IO, "kernel cache file operation failed")

typedef enum gm_status {
#define GM__STATUS_ENUM(name, text) name,
    GM_STATUS_LIST(GM__STATUS_ENUM)
#undef GM__STATUS_ENUM
    GM_STATUS_COUNT
} gm_status;

/* Pixel layout: interleaved (HWC, NHWC when batched) or planar (CHW, NCHW). */
typedef enum gm_layout { GM_HWC = 0, GM_CHW = 1 } gm_layout;

/* Where the memory lives. Pinned host memory is host memory the GPU can DMA.
 * GM_AUTO is only a request to gm_alloc_desc (gm_path()'s answer); no image
 * is ever in GM_AUTO memory. */
typedef enum gm_where { GM_HOST = 0, GM_PINNED = 1, GM_DEVICE = 2, GM_AUTO = 3 } gm_where;

/* How a resampling operation interpolates (gm_resize, gm_prep, the warps),
 * zero the default: cv::resize's INTER_LINEAR. Not OpenCV's INTER_* numbers
 * (there NEAREST is 0): pass these names, not cv2's integers. */
typedef enum gm_interp {
    GM_INTER_LINEAR = 0,       /* bilinear, half-pixel centres; u8 in OpenCV's 11-bit fixed point */
    GM_INTER_NEAREST = 1,      /* the pixel floor(x * src/dst): no half-pixel offset, as OpenCV */
    GM_INTER_AREA = 2,         /* pixel-area mean downscaling; bilinear-like upscaling */
    GM_INTER_LINEAR_EXACT = 3, /* OpenCV's bit-exact bilinear (fixed point; floating dtypes: LINEAR) */
    GM_INTER_CUBIC = 4         /* bicubic (A = -0.75); the warps only (gpumat/warp.h, GM_FIT_WARP) */
} gm_interp;

/* What a warp (gpumat/warp.h, gm_prep's GM_FIT_WARP) does with a
 * destination pixel whose source taps fall outside the source:
 * cv::BORDER_* (the same numbers). */
typedef enum gm_border {
    GM_BORDER_CONSTANT = 0,    /* a tap outside is the border value: iiii|abcd|iiii */
    GM_BORDER_REPLICATE = 1,   /* aaaa|abcd|dddd */
    GM_BORDER_REFLECT = 2,     /* dcba|abcd|dcba */
    GM_BORDER_WRAP = 3,        /* abcd|abcd|abcd */
    GM_BORDER_REFLECT_101 = 4, /* dcb|abcd|cba */
    GM_BORDER_TRANSPARENT = 5  /* the pixel is left as it was in dst */
} gm_border;

/* A CUDA stream (cudaStream_t or CUstream, cast); NULL is the default stream. */
typedef struct gm__stream* gm_stream;

/* An image, a batch of images, or a view of either. All sizes in elements,
 * all pitches in bytes. Element (n, y, x, c) is at
 *   data + n*batch_pitch + y*pitch + x*channels*size + c*size   (GM_HWC)
 *   data + n*batch_pitch + c*plane_pitch + y*pitch + x*size     (GM_CHW) */
typedef struct gm_mat {
    void* data;          /* first element of image 0 */
    int64_t width, height;
    int32_t channels;    /* 1-4 */
    int32_t batch;       /* images, >= 1 */
    gm_dtype dtype;
    gm_layout layout;
    int64_t pitch;       /* bytes between rows */
    int64_t plane_pitch; /* GM_CHW: bytes between channel planes */
    int64_t batch_pitch; /* bytes between images */
    gm_where where;
    int32_t device;      /* CUDA device ordinal, GM_DEVICE only */
    void* owned;         /* allocation gm_free releases; NULL for views and wraps */
} gm_mat;

/* Description of an image for gm_alloc_desc / gm_wrap_desc. Zero means the
 * default in every field but width, height and dtype. */
typedef struct gm_desc {
    int64_t width, height;
    int32_t channels;    /* 0: 1 */
    int32_t batch;       /* 0: 1 */
    gm_dtype dtype;
    gm_layout layout;
    int64_t pitch;       /* 0: compact rows (wrap, host) or rows aligned to 256 bytes (device) */
    int64_t plane_pitch; /* 0: pitch * height */
    int64_t batch_pitch; /* 0: plane_pitch * channels (GM_CHW) or pitch * height (GM_HWC) */
} gm_desc;

/* The version of the implementation linked in ("0.2.0"), which can differ
 * from the GPUMAT_VERSION_STRING of headers another file was compiled with. */
GM_API const char* gm_version(void);

/* The description of a status ("invalid argument"); never NULL. */
GM_API const char* gm_status_string(gm_status s);

/* Details of the last failure on this thread: the function, the argument and
 * why, or the NVRTC log. Empty after a success that followed no failure. */
GM_API const char* gm_last_error(void);

/* Size in bytes of one element of dtype; 0 for an invalid dtype. */
GM_API size_t gm_dtype_size(gm_dtype dtype);

/* "u8", "f32", ...; "?" for an invalid dtype. */
GM_API const char* gm_dtype_name(gm_dtype dtype);

/* OpenCV type codes (CV_MAKETYPE, OpenCV 4 numbering) in both directions.
 * gm_cv_type returns -1 for GM_BF16 (OpenCV 4 has no such depth) and for
 * channels outside 1..4; gm_from_cv_type returns GM_ERR_TYPE for negative
 * codes and more than 4 channels. */
GM_API int gm_cv_type(gm_dtype dtype, int channels);
GM_API gm_status gm_from_cv_type(int cv_type, gm_dtype* dtype, int* channels);

#ifdef __cplusplus
}
#endif

#endif
