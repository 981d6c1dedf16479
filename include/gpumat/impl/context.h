/* SPDX-License-Identifier: MIT */
/* Implementation: the CUDA context gpumat works in, and which path (GPU or
 * CPU) gm_alloc and gm_path take. */

#include <pthread.h>
#include <string.h>

/* The context gpumat works in: the one current on this thread, else device's
 * primary context (made current), as the CUDA runtime does. */
static gm_status gm__context(const char* fn, int device, gm__CUcontext* ctx, int* ctx_device)
{
    gm__CUcontext cur = 0;
    gm__CUdevice dev = 0;
    int count = 0, rc;
    gm_status s = gm__driver_ready(fn);
    if (s != GM_OK)
        return s;
    if ((rc = gm__cu.cuCtxGetCurrent(&cur)) != 0)
        return gm__cuda_fail(fn, "cuCtxGetCurrent", rc);
    if (!cur) {
        if ((rc = gm__cu.cuDeviceGetCount(&count)) != 0)
            return gm__cuda_fail(fn, "cuDeviceGetCount", rc);
        if (count == 0)
            return gm__fail(GM_ERR_NO_DEVICE, "%s: the CUDA driver sees no device", fn);
        if (device < 0 || device >= count)
            return gm__fail(GM_ERR_NO_DEVICE, "%s: device %d does not exist (%d devices)", fn, device, count);
        if ((rc = gm__cu.cuDeviceGet(&dev, device)) != 0)
            return gm__cuda_fail(fn, "cuDeviceGet", rc);
        if ((rc = gm__cu.cuDevicePrimaryCtxRetain(&cur, dev)) != 0)
            return gm__cuda_fail(fn, "cuDevicePrimaryCtxRetain", rc);
        if ((rc = gm__cu.cuCtxSetCurrent(cur)) != 0)
            return gm__cuda_fail(fn, "cuCtxSetCurrent", rc);
    }
    if ((rc = gm__cu.cuCtxGetDevice(&dev)) != 0)
        return gm__cuda_fail(fn, "cuCtxGetDevice", rc);
    *ctx = cur;
    *ctx_device = dev;
    return GM_OK;
}

static pthread_once_t gm__path_once = PTHREAD_ONCE_INIT;
static gm_where gm__path_where = GM_HOST;

/* Whether gpumat can work in a context; the failure detail is not the
 * caller's (gm_path fails nothing), so this thread's message is kept. */
static void gm__decide_path(void)
{
    static char kept[GM_ERROR_SIZE]; /* pthread_once: one thread at a time */
    gm__CUcontext ctx;
    int dev;
    memcpy(kept, gm__error, sizeof kept);
    gm__path_where = gm__context("gm_path", 0, &ctx, &dev) == GM_OK ? GM_DEVICE : GM_HOST;
    memcpy(gm__error, kept, sizeof kept);
}
