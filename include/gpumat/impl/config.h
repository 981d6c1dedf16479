/* SPDX-License-Identifier: MIT */
/* Implementation: the defaults of the compile-time options, in one place
 * (gpumat.h's header comment lists them all). Define an option before the
 * #include that has the implementation to replace its default. */

#ifndef GM_ERROR_SIZE
#define GM_ERROR_SIZE 8192 /* bytes kept of a failure's detail (NVRTC logs included) */
#endif

#ifndef GM_CACHE_MAX_MB
#define GM_CACHE_MAX_MB 256 /* default bound of the disk cache; GM_CACHE_MAX_MB in the environment overrides */
#endif

/* GM_MALLOC(size), GM_REALLOC(p, size), GM_FREE(p): the allocator of every
 * heap block gpumat makes. A block from one allocator freed by another
 * corrupts the heap, so a partial set is refused rather than completed. */
#if defined(GM_MALLOC) || defined(GM_REALLOC) || defined(GM_FREE)
#ifndef GM_MALLOC
#error "gpumat: GM_MALLOC, GM_REALLOC and GM_FREE go together: GM_MALLOC is missing"
#endif
#ifndef GM_REALLOC
#error "gpumat: GM_MALLOC, GM_REALLOC and GM_FREE go together: GM_REALLOC is missing"
#endif
#ifndef GM_FREE
#error "gpumat: GM_MALLOC, GM_REALLOC and GM_FREE go together: GM_FREE is missing"
#endif
#else
#include <stdlib.h>
#define GM_MALLOC(size) malloc(size)
#define GM_REALLOC(p, size) realloc(p, size)
#define GM_FREE(p) free(p)
#endif

/* GM_TRACE(event, kernel): define before the implementation to hear of each
 * launch, CPU run and kernel load: event is a gm_trace_event (gpumat/jit.h),
 * kernel the catalogue index. Off by default, so it costs nothing. */
#ifndef GM_TRACE
#define GM_TRACE(event, kernel) ((void)0)
#endif
