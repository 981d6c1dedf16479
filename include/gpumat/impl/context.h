/* SPDX-License-Identifier: MIT */
/* Implementation: the CUDA context gpumat works in, and which path (GPU or
 * CPU) gm_alloc and gm_path take. */

#include <pthread.h>
#include <string.h>

/* What the driver answers for a destroyed context: CUDA_ERROR_INVALID_CONTEXT,
 * CUDA_ERROR_CONTEXT_IS_DESTROYED. */
#define GM__CU_GONE(rc) ((rc) == 201 || (rc) == 709)

/* A context's identity in *key: the driver's id (+ 1, so that 0 stays
 * free), which a context created again does not share even at the same
 * address (the driver often reuses it) or when a primary context is reset.
 * Drivers before CUDA 12.0 lack cuCtxGetId: the address stands in, which a
 * context created where a destroyed one was shares (the kernel cache tells
 * them apart: functions.h). ctx must be a handle the driver still keeps (a
 * current context, a primary one): on a destroyed context's freed handle
 * the driver may crash. Returns the driver's status (GM__CU_GONE: ctx is
 * destroyed), *key 0 unless 0. */
static int gm__ctx_key(gm__CUcontext ctx, uint64_t* key)
{
    unsigned long long id = 0;
    unsigned int version;
    int rc = gm__cu.cuCtxGetId ? gm__cu.cuCtxGetId(ctx, &id) : gm__cu.cuCtxGetApiVersion(ctx, &version);
    *key = rc != 0 ? 0 : gm__cu.cuCtxGetId ? (uint64_t)id + 1 : (uint64_t)(uintptr_t)ctx;
    return rc;
}

/* The driver call gm__ctx_key makes, for messages. */
static const char* gm__ctx_key_call(void) { return gm__cu.cuCtxGetId ? "cuCtxGetId" : "cuCtxGetApiVersion"; }

/* The context gpumat works in: the one current on this thread, else device's
 * primary context (made current), as the CUDA runtime does. A current
 * context that is destroyed (a primary context reset by another library, or
 * a context another thread destroyed) counts as none. key (may be NULL): its
 * gm__ctx_key. */
static gm_status gm__context_key(const char* fn, int device, gm__CUcontext* ctx, int* ctx_device, uint64_t* key)
{
    gm__CUcontext cur = 0;
    gm__CUdevice dev = 0;
    uint64_t k = 0;
    int count = 0, rc;
    gm_status s = gm__driver_ready(fn);
    if (s != GM_OK)
        return s;
    if ((rc = gm__cu.cuCtxGetCurrent(&cur)) != 0)
        return gm__cuda_fail(fn, "cuCtxGetCurrent", rc);
    if (cur && (rc = gm__ctx_key(cur, &k)) != 0 && !GM__CU_GONE(rc))
        return gm__cuda_fail(fn, gm__ctx_key_call(), rc);
    if (!k) {
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
        if ((rc = gm__ctx_key(cur, &k)) != 0)
            return gm__cuda_fail(fn, gm__ctx_key_call(), rc);
    }
    if ((rc = gm__cu.cuCtxGetDevice(&dev)) != 0)
        return gm__cuda_fail(fn, "cuCtxGetDevice", rc);
    *ctx = cur;
    *ctx_device = dev;
    if (key)
        *key = k;
    return GM_OK;
}

static gm_status gm__context(const char* fn, int device, gm__CUcontext* ctx, int* ctx_device)
{
    return gm__context_key(fn, device, ctx, ctx_device, NULL);
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
