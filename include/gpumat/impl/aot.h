/* SPDX-License-Identifier: MIT */
/* Implementation: kernel images embedded ahead of time. gen/aot.py writes
 * the table (`make aot`); GM_AOT_HEADER names it. */

#include <stddef.h>
#include <string.h>

/* One embedded image: CUBIN for exactly sm_<arch>, or PTX for compute_<arch>
 * that the driver compiles for any GPU of that arch or newer. */
typedef struct gm__aot_image {
    const char* kernel;
    int arch;
    int ptx;
    const unsigned char* data;
    size_t size;
} gm__aot_image;

#if defined(__GNUC__)
#define GM__AOT_ALIGN __attribute__((aligned(16))) /* the driver reads CUBIN headers in place */
#else
#define GM__AOT_ALIGN
#endif

#ifdef GM_AOT_HEADER
#include GM_AOT_HEADER
#if GM__AOT_SOURCE_HASH != GM__KERNEL_SOURCE_HASH
#error "GM_AOT_HEADER was made from another gpumat kernel source: run make aot again"
#endif
#else
static const gm__aot_image gm__aot_table[] = {{NULL, 0, 0, NULL, 0}};
#endif

/* The embedded image of kernel for a GPU of sm_<arch>: its CUBIN for that
 * arch, else the PTX of the newest arch not above it. 0 when there is none. */
static int gm__aot_find(const char* kernel, int arch, const void** image, size_t* size)
{
    const gm__aot_image *e, *best = NULL;
    for (e = gm__aot_table; e->kernel; ++e) {
        if (e->arch > arch || strcmp(e->kernel, kernel) != 0)
            continue;
        if (!e->ptx && e->arch == arch) {
            best = e;
            break;
        }
        if (e->ptx && (!best || e->arch > best->arch))
            best = e;
    }
    if (!best)
        return 0;
    *image = best->data;
    *size = best->size;
    gm__jit_log(GM_JIT_EMBEDDED, kernel, 0.0, "%s for sm_%d", best->ptx ? "PTX" : "CUBIN", best->arch);
    return 1;
}
