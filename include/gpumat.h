/* SPDX-License-Identifier: MIT */
/* gpumat: typed GPU images for C, with JIT-compiled CUDA conversion, split,
 * merge and DNN pre-processing, and a bit-identical CPU path.
 *
 * Header-only, stb style. In exactly one C or C++ file of your program:
 *
 *     #define GPUMAT_IMPLEMENTATION
 *     #include "gpumat.h"
 *
 * compile that file with -O2 (at -O0 the CPU path runs about 80 times
 * slower) and link with -ldl -lpthread -lm. It takes the implementation's
 * whole compile (the README's "make lib" gives the figures): keep it a .c
 * file of its own, or link `make lib`'s libgpumat.a or libgpumat.so instead.
 * Nothing from CUDA is needed to build: the driver (libcuda.so.1) and NVRTC
 * are opened at run time, kernels are compiled for the GPU in the machine on
 * first use and cached for the process. Without a GPU every operation still
 * works on host memory: the same program runs there, since gm_alloc then
 * gives host memory and the transfers become host copies (gm_path() says
 * which path runs).
 *
 * Compile-time options (define before the #include that has the
 * implementation; that file must not be compiled with -ffast-math or -Ofast,
 * which would change NaN and rounding results: it refuses them by name;
 * the defaults live in gpumat/impl/config.h):
 *   GPUMAT_STATIC     make every function static (one file uses gpumat);
 *                     only the functions that file calls are compiled
 *   GPUMAT_NO_IMPLEMENTATION
 *                     a file's GPUMAT_IMPLEMENTATION declares only: the
 *                     program links the implementation from elsewhere
 *                     (`make lib`'s library, another object)
 *   GM_API            linkage of the public functions (default: extern)
 *   GM_ERROR_SIZE     bytes kept of a failure's detail (default 8192)
 *   GM_CACHE_MAX_MB   the disk cache's default bound (default 256)
 *   GM_AOT_HEADER     quoted path of a `make aot` header: embedded kernels
 *   GM_NO_NVRTC       never open NVRTC: kernels come only from GM_AOT_HEADER
 *                     (see gpumat/jit.h)
 *   GM_NO_CPU_AVX2    leave out the CPU path's AVX2 copies of its loops
 *                     (x86-64): a fifth less code, the same results, from
 *                     the baseline loops
 *   GM_MALLOC(size), GM_REALLOC(p, size), GM_FREE(p)
 *                     the allocator of every heap block gpumat makes, all
 *                     three or none (default malloc, realloc, free)
 *   GM_TRACE(event, kernel)
 *                     opt-in trace hook, see gm_trace_event in gpumat/jit.h
 * Run-time environment:
 *   GM_CUDA_PATH      the driver library to open instead of libcuda.so.1
 *   GM_NVRTC_PATH     the NVRTC library to open instead of libnvrtc.so.13,
 *                     .12, .11.2, libnvrtc.so, /usr/local/cuda/lib64/libnvrtc.so
 *   GM_CACHE_DIR      the disk cache's folder (default $XDG_CACHE_HOME/gpumat,
 *                     else ~/.cache/gpumat)
 *   GM_CACHE=0        turns the disk cache off
 *   GM_CACHE_MAX_MB   the disk cache's bound, overriding the compiled one
 *   GM_RECORD=FILE    appends the name of each kernel a run loads to FILE
 *   GM_THREADS=N      the CPU path's threads (see gm_set_threads in gpumat/mem.h)
 *
 * Example: a BGR camera frame into a TensorRT-style NCHW float input.
 *
 *     gm_mat frame, blob;
 *     const double mean[3] = {123.675, 116.28, 103.53}, std[3] = {58.395, 57.12, 57.375};
 *     gm_alloc(&frame, 1920, 1080, GM_U8, 3, GM_HWC);
 *     gm_upload(&frame, pixels, pixels_pitch, stream);
 *     gm_wrap(&blob, trt_input, 1920, 1080, GM_F32, 3, GM_CHW, 0, GM_DEVICE);
 *     if (gm_blob_from_image(&frame, &blob, 1.0, mean, std, 1, stream) != GM_OK)
 *         fprintf(stderr, "%s\n", gm_last_error());
 *     gm_free(&frame);
 *
 * Every function returns a gm_status; on failure gm_last_error() names the
 * function, the argument and the reason. The typed layer
 * (gpumat/gen/views.h) gives each dtype x channels x layout its own view
 * type (gm_u8c3_hwc, gm_f32c3_chw, ...) so mismatches fail to compile (C11
 * and C++) and are refused with GM_ERR_TYPE at run time (every language). */
#ifndef GPUMAT_H
#define GPUMAT_H

/* The version, in one place: gm_version(), `make install`'s pkg-config and
 * CMake files, the root CMakeLists.txt and `make single` all read these. */
#define GPUMAT_VERSION_MAJOR 0
#define GPUMAT_VERSION_MINOR 2
#define GPUMAT_VERSION_PATCH 0
#define GPUMAT_VERSION_STRING "0.2.0"
/* One number for #if: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define GPUMAT_VERSION (GPUMAT_VERSION_MAJOR * 10000 + GPUMAT_VERSION_MINOR * 100 + GPUMAT_VERSION_PATCH)

#include "gpumat/base.h"
#include "gpumat/mem.h"
#include "gpumat/ops.h"
#include "gpumat/yuv.h"
#include "gpumat/prep.h"
#include "gpumat/draw.h"
#include "gpumat/warp.h"
#include "gpumat/interop.h"
#include "gpumat/jit.h"
#include "gpumat/gen/views.h"

#endif

#if defined(GPUMAT_IMPLEMENTATION) && !defined(GPUMAT_IMPLEMENTED) && !defined(GPUMAT_NO_IMPLEMENTATION)
#define GPUMAT_IMPLEMENTED
#include "gpumat/impl/config.h"
/* These flags let the compiler change NaN, signed-zero and rounding results,
 * and the CPU path promises the GPU's and OpenCV's bits. Only the file that
 * defines GPUMAT_IMPLEMENTATION needs plain IEEE arithmetic (-fno-fast-math). */
#if defined(__FAST_MATH__)
#error "gpumat: the file that defines GPUMAT_IMPLEMENTATION is compiled with -ffast-math (or -Ofast); compile it with -fno-fast-math"
#elif defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "gpumat: the file that defines GPUMAT_IMPLEMENTATION is compiled with -ffinite-math-only; NaN results need -fno-finite-math-only"
#elif defined(__ASSOCIATIVE_MATH__) || defined(__RECIPROCAL_MATH__) || defined(__NO_SIGNED_ZEROS__)
#error "gpumat: the file that defines GPUMAT_IMPLEMENTATION is compiled with -fassociative-math, -freciprocal-math or -fno-signed-zeros; results must be bit-exact: drop the flag for that file"
#endif
#include "gpumat/gen/pixel.h"
#include "gpumat/impl/internal.h"
#include "gpumat/impl/pool.h"
#include "gpumat/impl/cpu.h"
#include "gpumat/gen/catalogue.h"
#include "gpumat/gen/cpu_tables.h"
#include "gpumat/impl/base.h"
#include "gpumat/impl/loader.h"
#include "gpumat/impl/jitlog.h"
#include "gpumat/impl/cache.h"
#include "gpumat/gen/kernel_source.h"
#include "gpumat/impl/aot.h"
#include "gpumat/impl/context.h"
#include "gpumat/impl/image.h"
#include "gpumat/impl/functions.h"
#include "gpumat/impl/check.h"
#include "gpumat/impl/mem.h"
#include "gpumat/impl/plan.h"
#include "gpumat/impl/cpu_yuv.h"
#include "gpumat/impl/cpu_draw.h"
#include "gpumat/impl/cpu_xform.h"
#include "gpumat/impl/cpu_resize.h"
#include "gpumat/impl/cpu_prep.h"
#include "gpumat/impl/cpu_warp.h"
#include "gpumat/impl/run.h"
#include "gpumat/impl/ops.h"
#include "gpumat/impl/yuv.h"
#include "gpumat/impl/warp.h"
#include "gpumat/impl/prep.h"
#include "gpumat/impl/draw.h"
#include "gpumat/impl/jit.h"
#include "gpumat/impl/interop.h"
#endif
