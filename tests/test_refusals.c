/* SPDX-License-Identifier: MIT */
/* A kernel NVRTC refuses is refused once a process (issue 16): the next
 * first use of it fails at once with the same reason instead of compiling
 * again, until gm_warmup forgets it; a failure that may pass (NVRTC out of
 * memory) is not remembered. Runs against tests/fake_nvrtc.c, which
 * refuses every program and counts its compiles; needs no GPU.
 * Run alone: make build/test_refusals && build/test_refusals build/libfake_nvrtc.so */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <dlfcn.h>
#include <stdlib.h>

/* gm__image of kernel for sm_<arch>; its status. */
static gm_status image_of(int kernel, int arch)
{
    const void* image = NULL;
    size_t size = 0;
    char* owned = NULL;
    gm_status s = gm__image("test_refusals", kernel, arch, &image, &size, &owned);
    GM_FREE(owned);
    return s;
}

int main(int argc, char** argv)
{
    const int fill = gm_kernel_find("gm_fill_bytes"), blend = gm_kernel_find("gm_blend_u8");
    void* lib;
    int* compiles;
    gm_status s;
    if (argc != 2) {
        printf("usage: test_refusals PATH/libfake_nvrtc.so\n");
        return 2;
    }
    setenv("GM_NVRTC_PATH", argv[1], 1);
    setenv("GM_CACHE", "0", 1); /* nothing from, or into, the disk cache */
    unsetenv("FAKE_NVRTC_RC");
    s = image_of(fill, 90);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
    compiles = lib ? (int*)dlsym(lib, "fake_nvrtc_compiles") : NULL;
    CHECK(compiles != NULL, "the fake NVRTC is not the one gpumat loaded: %s", gm_last_error());
    if (!compiles)
        return t_summary("refusals");
    CHECK(s == GM_ERR_COMPILE && strstr(gm_last_error(), "fake NVRTC: refused") && *compiles == 1,
          "a refused compile: %s, %d compiles: %s", gm_status_string(s), *compiles, gm_last_error());
    s = image_of(fill, 90);
    CHECK(s == GM_ERR_COMPILE && *compiles == 1 && strstr(gm_last_error(), "fake NVRTC: refused") &&
              strstr(gm_last_error(), "earlier compile") && !strncmp(gm_last_error(), "test_refusals: NVRTC", 20),
          "the same kernel again fails at once with the same reason: %d compiles: %s", *compiles, gm_last_error());
    CHECK(image_of(fill, 80) == GM_ERR_COMPILE && *compiles == 2, "another arch compiles: %d compiles", *compiles);
    CHECK(image_of(blend, 90) == GM_ERR_COMPILE && *compiles == 3, "another kernel compiles: %d compiles", *compiles);
    CHECK(image_of(fill, 90) == GM_ERR_COMPILE && image_of(blend, 90) == GM_ERR_COMPILE && *compiles == 3,
          "both remembered: %d compiles", *compiles);
    gm__forget_refusals(fill); /* what gm_warmup does before it loads a kernel */
    CHECK(image_of(fill, 90) == GM_ERR_COMPILE && *compiles == 4 && !strstr(gm_last_error(), "earlier compile"),
          "forgotten, it compiles again: %d compiles: %s", *compiles, gm_last_error());
    CHECK(image_of(blend, 90) == GM_ERR_COMPILE && *compiles == 4, "the other stays remembered: %d", *compiles);
    setenv("FAKE_NVRTC_RC", "1", 1); /* NVRTC_ERROR_OUT_OF_MEMORY: may pass */
    CHECK(image_of(fill, 75) == GM_ERR_COMPILE && image_of(fill, 75) == GM_ERR_COMPILE && *compiles == 6,
          "out of memory is not remembered: %d compiles", *compiles);
    gm__forget_refusals(fill);
    gm__forget_refusals(blend); /* nothing left for LeakSanitizer */
    return t_summary("refusals");
}
