/* SPDX-License-Identifier: MIT */
/* The C side of bench/python.py: the same gpumat calls, on the same images
 * (device memory gpumat allocates), back to back, timed on the host: N calls
 * then one gm_sync, the wall time over N. A row whose GPU time exceeds the
 * host's cost a call measures the GPU; the tiny row measures the host's
 * cost of one call. Prints one JSON line a row.
 * Build: make BUILD/python_peer (make bench-python builds and runs both)
 * Run:   ./python_peer [ROW ...]   (tiny letterbox resize nv12 blob)
 *        ./python_peer first      (a process's first call: the driver, a
 *                                  context, the kernel from the disk cache)
 *        ./python_peer driver     (the driver alone: cuInit and the primary
 *                                  context, the floor of any first call) */
#define _POSIX_C_SOURCE 199309L
#ifndef GPUMAT_NO_IMPLEMENTATION
#define GPUMAT_NO_IMPLEMENTATION
#endif
#include <gpumat.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

#define CHECK(call)                                                              \
    do {                                                                         \
        if ((call) != GM_OK) {                                                   \
            fprintf(stderr, "python_peer: %s: %s\n", #call, gm_last_error());   \
            return 1;                                                            \
        }                                                                        \
    } while (0)

/* One row: the images, and the call the loop repeats. */
typedef struct row {
    const char* name;
    int calls;
} row;

static gm_mat src, dst;
static gm_yuv frame;
static gm_prep prep;

static gm_status once(const char* name)
{
    if (!strcmp(name, "tiny"))
        return gm_convert(&src, &dst, 1.0 / 255, 0.0, NULL);
    if (!strcmp(name, "letterbox"))
        return gm_preprocess(&src, NULL, &dst, &prep, NULL, NULL);
    if (!strcmp(name, "resize"))
        return gm_resize(&src, &dst, GM_INTER_LINEAR, NULL);
    if (!strcmp(name, "nv12"))
        return gm_yuv_convert(&frame, &dst, 0, NULL);
    return gm_blob_from_image(&src, &dst, 1.0 / 255, NULL, NULL, 1, NULL);
}

static int setup(const char* name)
{
    static const double gray[4] = {114, 114, 114, 0};
    if (!strcmp(name, "tiny")) {
        CHECK(gm_alloc_device(&src, 16, 16, GM_U8, 3, GM_HWC));
        CHECK(gm_alloc_device(&dst, 16, 16, GM_F32, 3, GM_HWC));
    } else if (!strcmp(name, "letterbox")) {
        CHECK(gm_alloc_device(&src, 1920, 1080, GM_U8, 3, GM_HWC));
        CHECK(gm_alloc_device(&dst, 640, 640, GM_F32, 3, GM_CHW));
        prep.fit = GM_FIT_LETTERBOX;
        memcpy(prep.pad, gray, sizeof gray);
        prep.swap_rb = 1;
        prep.scale[0] = prep.scale[1] = prep.scale[2] = 1.0 / 255;
    } else if (!strcmp(name, "resize")) {
        CHECK(gm_alloc_device(&src, 3840, 2160, GM_U8, 3, GM_HWC));
        CHECK(gm_alloc_device(&dst, 1920, 1080, GM_U8, 3, GM_HWC));
    } else if (!strcmp(name, "nv12")) {
        CHECK(gm_alloc_device(&src, 3840, 2160 * 3 / 2, GM_U8, 1, GM_HWC));
        CHECK(gm_yuv_wrap(&frame, GM_YUV_NV12, src.data, 3840, 2160, src.pitch, 0, GM_DEVICE));
        CHECK(gm_alloc_device(&dst, 3840, 2160, GM_U8, 3, GM_HWC));
    } else {
        CHECK(gm_alloc_device(&src, 3840, 2160, GM_U8, 3, GM_HWC));
        CHECK(gm_alloc_device(&dst, 3840, 2160, GM_F16, 3, GM_CHW));
    }
    CHECK(gm_fill(&src, gray, NULL));
    return 0;
}

/* The first call of a process, as bench/python.py's import + first call. */
static int first_call(void)
{
    const double t = now_us(), value[3] = {1, 2, 3};
    CHECK(gm_alloc_device(&src, 16, 16, GM_U8, 3, GM_HWC));
    CHECK(gm_fill(&src, value, NULL));
    CHECK(gm_alloc_device(&dst, 16, 16, GM_F32, 3, GM_HWC));
    CHECK(gm_convert(&src, &dst, 2.0, 0.0, NULL));
    CHECK(gm_sync(NULL));
    printf("{\"row\": \"first call\", \"side\": \"C\", \"ms\": %.1f}\n", (now_us() - t) / 1e3);
    return 0;
}

/* What the driver alone takes before any CUDA program's first call can run. */
static int driver_floor(void)
{
    const double t = now_us();
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
    void* found[4] = {0};
    static const char* const names[4] = {"cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent"};
    for (int i = 0; cuda && i < 4; i++)
        found[i] = dlsym(cuda, names[i]);
    int (*init)(unsigned), (*get)(int*, int), (*retain)(void**, int), (*set)(void*);
    memcpy(&init, &found[0], sizeof init); /* ISO C has no cast from void* to a function pointer */
    memcpy(&get, &found[1], sizeof get);
    memcpy(&retain, &found[2], sizeof retain);
    memcpy(&set, &found[3], sizeof set);
    int dev = 0;
    void* ctx = NULL;
    if (!found[0] || !found[1] || !found[2] || !found[3] || init(0) || get(&dev, 0) || retain(&ctx, dev) || set(ctx)) {
        fprintf(stderr, "python_peer: the CUDA driver did not give a context\n");
        return 1;
    }
    printf("{\"row\": \"driver: cuInit + primary context\", \"side\": \"C\", \"ms\": %.1f}\n",
           (now_us() - t) / 1e3);
    return 0;
}

int main(int argc, char** argv)
{
    if (argc == 2 && !strcmp(argv[1], "driver"))
        return driver_floor();
    if (argc == 2 && !strcmp(argv[1], "first"))
        return first_call();
    static const row rows[] = {{"tiny", 20000}, {"letterbox", 2000}, {"resize", 1000}, {"nv12", 1000}, {"blob", 1000}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        int wanted = argc == 1;
        for (int i = 1; i < argc; i++)
            wanted |= !strcmp(argv[i], rows[r].name);
        if (!wanted)
            continue;
        if (setup(rows[r].name))
            return 1;
        double best = 1e30;
        for (int run = 0; run < 5; run++) {
            CHECK(once(rows[r].name));
            CHECK(gm_sync(NULL));
            double t = now_us();
            for (int i = 0; i < rows[r].calls; i++)
                CHECK(once(rows[r].name));
            CHECK(gm_sync(NULL));
            t = (now_us() - t) / rows[r].calls;
            best = t < best ? t : best;
        }
        printf("{\"row\": \"%s\", \"side\": \"C\", \"us_per_call\": %.3f}\n", rows[r].name, best);
        gm_free(&src);
        gm_free(&dst);
    }
    return 0;
}
