/* SPDX-License-Identifier: MIT */
/* gpumat/jit.h: how kernels are built, cached and loaded, and how to see it.
 *
 * The first use of a kernel specialization in a CUDA context finds its image
 * in this order: the images embedded ahead of time (GM_AOT_HEADER, see
 * below), the disk cache, an NVRTC compile (then stored in the disk cache).
 * The driver loads the image and the function stays cached for the process.
 *
 * Disk cache, one file per specialization and GPU architecture:
 *   GM_CACHE_DIR      its folder; else $XDG_CACHE_HOME/gpumat, else
 *                     ~/.cache/gpumat (created 0700 when missing)
 *   GM_CACHE=0        turns it off
 *   GM_CACHE_MAX_MB   its bound (default 256): past it the least recently
 *                     used entries go
 * An entry is keyed by a hash of the kernel source, the NVRTC options, the
 * GPU's exact sm_XY, the NVRTC version and gpumat's version, is written to a
 * temporary file and renamed into place, and carries a checksum: truncated,
 * corrupted or foreign entries are rebuilt, never loaded. A folder that
 * cannot be made or written leaves compilation in memory (said once through
 * the log hook). Processes of one user may share one folder. The images are
 * code the GPU runs, so, as ssh does with ~/.ssh, a folder that is not the
 * user's own or that group or others can write to is refused (one
 * GM_JIT_CACHE_OFF naming it, its owner or mode and the fix; kernels
 * compile in memory), and an entry is read only if it is a regular file of
 * the user that no one else can write to, with one name, reached without
 * following a symbolic link (else GM_JIT_CACHE_REJECT, and it is rebuilt).
 *
 *   GM_RECORD=FILE    appends the name of every kernel a run loads to FILE,
 *                     one a line: input for `make aot AOT_KERNELS=used:FILE`
 *
 * Ahead of time: `make aot ARCHS="sm_87 sm_90" AOT_KERNELS=...` writes a
 * header of CUBINs for those archs plus PTX for newer GPUs (gen/aot.py).
 * Define GM_AOT_HEADER as its quoted path before the #include that has the
 * implementation; define GM_NO_NVRTC as well and gpumat never opens NVRTC:
 * a kernel outside the set fails with GM_ERR_NOT_EMBEDDED naming it. */
#ifndef GPUMAT_JIT_H
#define GPUMAT_JIT_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the log hook hears about; ms is the time the step took. */
#define GM_JIT_EVENT_LIST(X)                                                          \
    X(GM_JIT_COMPILE, "compile")           /* NVRTC built a kernel */                 \
    X(GM_JIT_CACHE_HIT, "cache-hit")       /* read from the disk cache */             \
    X(GM_JIT_CACHE_MISS, "cache-miss")     /* not in the disk cache */                \
    X(GM_JIT_CACHE_REJECT, "cache-reject") /* entry unusable; detail says why */      \
    X(GM_JIT_CACHE_STORE, "cache-store")   /* written to the disk cache */            \
    X(GM_JIT_CACHE_OFF, "cache-off")       /* disk cache unusable; detail says why */ \
    X(GM_JIT_EMBEDDED, "embedded")         /* image found in the AOT set */           \
    X(GM_JIT_LOAD, "load")                 /* the driver loaded the image */          \
    X(GM_JIT_SOURCE, "source")             /* a compile failed; detail: the program's source, lines numbered */

typedef enum gm_jit_event {
#define GM__JIT_EVENT_ENUM(name, text) name,
    GM_JIT_EVENT_LIST(GM__JIT_EVENT_ENUM)
#undef GM__JIT_EVENT_ENUM
    GM_JIT_EVENT_COUNT
} gm_jit_event;

/* Called on the thread that did the work; kernel is a gm_kernel_name, detail
 * a short text (a path, a reason, the arch), both valid during the call.
 * GM_JIT_SOURCE follows a failed compile (whose NVRTC log is in
 * gm_last_error): its detail is the whole source NVRTC was given, each line
 * numbered as in the log's messages, of any length. */
typedef void (*gm_jit_log_fn)(gm_jit_event event, const char* kernel, double ms, const char* detail, void* user);

/* Installs the log hook (NULL: off, the default); user is passed back. */
GM_API void gm_jit_set_log(gm_jit_log_fn fn, void* user);

/* "compile", "cache-hit", ...; "?" for an unknown event. */
GM_API const char* gm_jit_event_name(gm_jit_event event);

/* What the compile-time trace hook hears about: define GM_TRACE(event,
 * kernel) before the #include that has the implementation (gpumat.h) and
 * gpumat calls it at each of these, with the event's id and the catalogue
 * index of the kernel concerned; undefined, it costs nothing. */
#define GM_TRACE_EVENT_LIST(X)                                                                   \
    X(GM_TRACE_LAUNCH, "launch")           /* the kernel was launched */                         \
    X(GM_TRACE_LAUNCH_HALF, "launch-half") /* launched in half blocks: a grid beyond one wave */ \
    X(GM_TRACE_LAUNCH_TILE, "launch-tile") /* launched on its tile path (resize, pre-process) */ \
    X(GM_TRACE_CPU, "cpu")                 /* the CPU path ran the kernel's loop */              \
    X(GM_TRACE_LOAD, "load")               /* a context's first use: image found or compiled, loaded */ \
    X(GM_TRACE_LAUNCH_POINTS, "launch-points") /* launched on its point path (pre-process, one tap) */

typedef enum gm_trace_event {
#define GM__TRACE_EVENT_ENUM(name, text) name,
    GM_TRACE_EVENT_LIST(GM__TRACE_EVENT_ENUM)
#undef GM__TRACE_EVENT_ENUM
    GM_TRACE_EVENT_COUNT
} gm_trace_event;

/* Makes specializations kernels[0..count) ready on device (compiled or read,
 * and loaded into the current context, else the device's primary context),
 * on as many threads as there are cores (at most 16), so the first frame
 * pays nothing. kernels NULL with count 0: every specialization. Returns the
 * first failure; GM_ERR_ARG for a bad index or count. A kernel NVRTC refused
 * is refused for the rest of the process (each later first use fails at
 * once with the same reason, GM_ERR_COMPILE, rather than compiling again);
 * gm_warmup compiles the kernels it is given again. */
GM_API gm_status gm_warmup(const int* kernels, int count, int device);

/* Forgets the current CUDA context: unloads its kernels (they load again
 * on the next use) and frees the byte of device memory gpumat keeps in each
 * context it works in, by which it learns that the context is gone. Call it
 * before destroying or resetting a context where a leak checker watches
 * (compute-sanitizer --leak-check full lists that byte otherwise; the
 * context's end frees both either way), with no other thread using gpumat
 * in that context. No current context, or a destroyed one: GM_OK, nothing
 * done. No driver or device: that failure. */
GM_API gm_status gm_release_context(void);

/* The kernels of the catalogue (include/gpumat/gen/catalogue.h), for tools
 * and tests: how many there are, the name of one (NULL outside 0..count),
 * the index of the one named name (-1 if none), and compiling one with
 * NVRTC for sm_<arch> (e.g. 86) without a GPU; *image_size (may be NULL)
 * receives the image's size. */
GM_API int gm_kernel_count(void);
GM_API const char* gm_kernel_name(int index);
GM_API int gm_kernel_find(const char* name);
GM_API gm_status gm_kernel_compile(int index, int arch, size_t* image_size);

/* The kernels that any operation from src to dst writing `channels`
 * channels may launch, whatever its layouts, pitches and alignment: the
 * generic kernel of the three, the fill kernel (gm_fill, and a transform
 * whose every channel is a constant), their fast kernels (one channel: the one;
 * more: each layout pair, and the one-channel kernel, as which interleaved
 * channels treated alike run), and for src == dst the generic one-channel
 * kernel (gm_split_planes and gm_merge_planes write separate planes of other
 * pitches one at a time) and gm_resize's kernels of the dtype and channels
 * (one per sampler: nearest, linear, area by whole factors, area, and for
 * u8, s8, u16 and s16 linear-exact) and gm_warp_affine's (nearest, linear,
 * cubic; gm_warp_perspective's too), and gm_preprocess's kernels from a
 * source of src with channels channels into dst where there are some (one
 * per sampler, as for gm_resize), from u8 with 3 channels also
 * gm_preprocess_yuv's (frames read as BGR, one per sampler a frame takes),
 * the same for the warp placement (GM_FIT_WARP: one per warp sampler of
 * images, NEAREST and LINEAR of frames), and for u8 to u8 gm_add_weighted's
 * kernel, with 3 or 4 channels gm_overlay_draw's (gm_overlay_draw_yuv's
 * too, whatever the frame) and gm_yuv_from_image's,
 * and with 1, 3 or 4 gm_yuv_convert's (from u16 into u8, u16 or f32 its
 * kernel of P016 frames). The list gm_warmup takes for those
 * operations, or `make aot` (by name): every kernel such an operation runs
 * is in it (but those whose product is in double, GM_BLOB_DOUBLE of
 * gpumat/prep.h, which only a program asking for it compiles: by name,
 * gm_prep_double_<src>_<dst>_c<N>_<sampler> and
 * gm_prep_yuv_double_<dst>_<sampler>, for gm_kernel_find or make aot), and
 * each kernel in it runs for some such operation. Writes up
 * to max indexes to kernels and returns how many there are (at most 36); 0
 * for a bad dtype, channel count, or kernels NULL with max > 0
 * (gm_last_error says which). */
GM_API int gm_kernels_for(gm_dtype src, gm_dtype dst, int channels, int* kernels, int max);

/* The disk cache folder in effect (from the environment, see above) into
 * path[0..size). GM_ERR_IO when the cache is off; GM_ERR_ARG for path NULL
 * or size too small. */
GM_API gm_status gm_cache_dir(char* path, size_t size);

/* Removes every entry of the disk cache folder that is this user's regular
 * file (links and other users' files stay; a missing folder is empty).
 * GM_ERR_IO naming the file that could not be removed. */
GM_API gm_status gm_cache_clear(void);

#ifdef __cplusplus
}
#endif

#endif
