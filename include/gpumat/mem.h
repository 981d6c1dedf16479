/* SPDX-License-Identifier: MIT */
/* gpumat/mem.h: allocation, wrapping foreign memory, views, transfers. */
#ifndef GPUMAT_MEM_H
#define GPUMAT_MEM_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which path this process runs: GM_DEVICE when a CUDA device is usable (the
 * driver loads and gives a context on the current or first device), else
 * GM_HOST, the CPU path. Decided on the first call, which loads the driver;
 * every later call, from any thread, gives the same answer. When it is
 * GM_HOST, gm_device() returns the reason. */
GM_API gm_where gm_path(void);

/* The threads the CPU path uses for one operation: n = 0 one per core (the
 * default), 1 only the calling thread, else at most n (up to 256). The
 * environment variable GM_THREADS sets it at the first operation; a call
 * here wins. An operation moving under 256 KB a thread uses fewer; while one
 * thread's operation runs on the pool, another thread's runs alone on its
 * own thread. n < 0 is GM_ERR_ARG. */
GM_API gm_status gm_set_threads(int n);

/* The threads an operation of the CPU path may use now (gm_set_threads). */
GM_API int gm_threads(void);

/* Allocates an image where gm_path() says: on the current CUDA device (the
 * context current on this thread, else device 0's primary context) with rows
 * aligned to 256 bytes, as cv::cuda::GpuMat::create does; or, without a
 * usable GPU, in compact pageable host memory. So one program runs on either:
 * the operations, gm_upload, gm_download and gm_sync accept both. *m is
 * overwritten; free it with gm_free. */
GM_API gm_status gm_alloc(gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                          gm_layout layout);

/* gm_alloc that insists on device memory: GM_ERR_NO_DRIVER or GM_ERR_NO_DEVICE
 * (and nothing allocated) where gm_path() is GM_HOST. */
GM_API gm_status gm_alloc_device(gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                                 gm_layout layout);

/* Allocates a compact host image, in pinned memory when pinned != 0 (needs the
 * driver; page-aligned) and in pageable memory otherwise (works without a
 * GPU; m->data at a 64-byte boundary, as OpenCV's allocations). */
GM_API gm_status gm_alloc_host(gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                               gm_layout layout, int pinned);

/* Allocates what *d describes (batches, explicit pitches) in where: GM_DEVICE
 * (or an error), GM_PINNED (needs the driver), GM_HOST, or GM_AUTO (where
 * gm_path() says, as gm_alloc). */
GM_API gm_status gm_alloc_desc(gm_mat* m, const gm_desc* d, gm_where where);

/* Describes memory somebody else owns (a TensorRT binding, a torch tensor, a
 * camera buffer) without copying: pitch 0 means compact rows. A GM_DEVICE wrap
 * checks with the driver that data is device memory (GM_ERR_LOCATION if not)
 * and that the image fits in its allocation (GM_ERR_SIZE if not).
 * gm_free on the result frees nothing. */
GM_API gm_status gm_wrap(gm_mat* m, void* data, int64_t width, int64_t height, gm_dtype dtype, int channels,
                         gm_layout layout, int64_t pitch, gm_where where);

/* gm_wrap for batches and explicit plane/batch pitches. */
GM_API gm_status gm_wrap_desc(gm_mat* m, void* data, const gm_desc* d, gm_where where);

/* Releases what gm_alloc* allocated and zeroes *m; views and wraps are only
 * zeroed. NULL and zeroed descriptors are fine. */
GM_API void gm_free(gm_mat* m);

/* Views onto the same memory: a rectangle of every image and channel, one
 * channel plane of a planar image (a 1-channel image), one image of a batch. */
GM_API gm_status gm_roi(const gm_mat* m, gm_mat* view, int64_t x, int64_t y, int64_t width, int64_t height);
GM_API gm_status gm_plane(const gm_mat* m, gm_mat* view, int channel);
GM_API gm_status gm_item(const gm_mat* m, gm_mat* view, int index);

/* Copies src into dst: same size, dtype, channels, layout and batch; any pitch;
 * any pair of locations (host<->device, device<->device, host<->host).
 * Asynchronous on stream where a device is involved; the host side must stay
 * valid until the stream reaches the copy (pinned memory for true overlap). */
GM_API gm_status gm_copy(const gm_mat* src, gm_mat* dst, gm_stream stream);

/* gm_copy of count pairs, src[i] into dst[i], each taken as gm_copy takes
 * it, in as few driver calls as the driver allows: one for every pair that
 * involves the device where it has cuMemcpy3DBatchAsync (CUDA 12.8+) and
 * stream is not NULL (the legacy default stream, which that call refuses),
 * else one 2-D copy a pair (a plane or an image more where it cannot fold
 * them). For round trips of regions: views (gm_roi) of a device frame to
 * pinned host images, edited there, then back. The device pairs are on one
 * device; they run in no given order among themselves, so no dst may
 * overlap another pair's src or dst (GM_ERR_OVERLAP). Host-to-host pairs
 * are copied before the call returns. */
GM_API gm_status gm_copy_many(const gm_mat* src, gm_mat* dst, int count, gm_stream stream);

/* Host memory laid out like dst (rows host_pitch bytes apart, 0: compact;
 * planes and images one after the other) -> dst. Asynchronous when dst is
 * device memory (pageable host memory may be reused when the call returns); a
 * plain copy, done on return, when dst is host memory (the CPU path). */
GM_API gm_status gm_upload(gm_mat* dst, const void* host, int64_t host_pitch, gm_stream stream);

/* src -> host memory laid out like src (rows host_pitch bytes apart, 0:
 * compact). Asynchronous when src is device memory: the host memory is filled
 * when the stream gets there; done on return when src is host memory. */
GM_API gm_status gm_download(const gm_mat* src, void* host, int64_t host_pitch, gm_stream stream);

/* Synchronous forms: return when the copy is complete. */
GM_API gm_status gm_upload_sync(gm_mat* dst, const void* host, int64_t host_pitch);
GM_API gm_status gm_download_sync(const gm_mat* src, void* host, int64_t host_pitch);

/* Waits for everything queued on stream. On the CPU path (gm_path() is
 * GM_HOST) with stream NULL there is nothing to wait for: GM_OK. */
GM_API gm_status gm_sync(gm_stream stream);

/* Bytes one image row holds (width * channels * size for GM_HWC, width * size
 * for GM_CHW), and bytes from the first to one past the last byte of m. */
GM_API int64_t gm_row_bytes(const gm_mat* m);
GM_API int64_t gm_span_bytes(const gm_mat* m);

/* Used by the typed layer (gen/views.h): gm_alloc / gm_alloc_host /
 * gm_alloc_device (where GM_AUTO, GM_HOST or GM_PINNED, GM_DEVICE), gm_wrap
 * and gm_roi, with fn, the typed function, named in their messages. */
GM_API gm_status gm__alloc_as(const char* fn, gm_mat* m, int64_t width, int64_t height, gm_dtype dtype, int channels,
                              gm_layout layout, gm_where where);
GM_API gm_status gm__wrap_as(const char* fn, gm_mat* m, void* data, int64_t width, int64_t height, gm_dtype dtype,
                             int channels, gm_layout layout, int64_t pitch, gm_where where);
GM_API gm_status gm__roi_as(const char* fn, const gm_mat* m, gm_mat* view, int64_t x, int64_t y, int64_t width,
                            int64_t height);

/* Whether a CUDA device is usable (loads the driver on first call); the
 * device's name and compute capability when it is. */
GM_API gm_status gm_device(int* cc_major, int* cc_minor, char* name, size_t name_size);

#ifdef __cplusplus
}
#endif

#endif
