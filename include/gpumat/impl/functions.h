/* SPDX-License-Identifier: MIT */
/* Implementation: the process-wide cache of loaded kernel functions, one
 * slot per catalogue kernel per CUDA context, each filled once (image.h) and
 * then read without a lock. */

#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* The cache: per context, one function pointer per kernel, written once
 * under a lock and read without one. Entries form a list that only grows at
 * its head; a destroyed context's entry is taken over by the next new
 * context (its functions died with their context), so the list is as long
 * as the most contexts alive at once. */
typedef struct gm__ctx_cache {
    struct gm__ctx_cache* next;
    uint64_t key; /* gm__ctx_key of its context; 0: free. Published last (release): readers match on it */
    gm__CUcontext ctx;
    int arch, sms;
    gm__CUfunction fns[GM__KERNEL_COUNT];
    unsigned char waits[GM__KERNEL_COUNT]; /* fns[i] was built for sm_90+, so it starts with griddepcontrol.wait */
    int wave[GM__KERNEL_COUNT]; /* warps of fns[i] the device holds at once in blocks of GM__BLOCK_WARPS; 0 unknown */
    gm__CUfunction many[GM__KERNEL_COUNT]; /* a pre-process kernel's _many entry point (templates/prep.cu), loaded
                                              with fns[i]; 0: none (the driver or the image's compiler before 12.1) */
    int driver;                            /* the driver's version */
} gm__ctx_cache;

static gm__ctx_cache* gm__caches; /* the list's head */
static pthread_mutex_t gm__cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gm__compile_locks[16] = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

static gm__ctx_cache* gm__find_cache(uint64_t key)
{
    gm__ctx_cache* c;
    for (c = __atomic_load_n(&gm__caches, __ATOMIC_ACQUIRE); c; c = c->next)
        if (__atomic_load_n(&c->key, __ATOMIC_ACQUIRE) == key)
            return c;
    return NULL;
}

/* The cache entry of the live context ctx (key: gm__ctx_key(ctx)), made on
 * its first use. */
static gm_status gm__ctx_cache_for(const char* fn, gm__CUcontext ctx, uint64_t key, int dev, gm__ctx_cache** out)
{
    gm__ctx_cache *c = gm__find_cache(key), *free_entry = NULL;
    int major = 0, minor = 0, sms = 0, driver = 0, rc;
    if (c) {
        *out = c;
        return GM_OK;
    }
    /* a wrong arch would compile kernels this GPU cannot load, for good */
    if ((rc = gm__cu.cuDeviceGetAttribute(&major, GM__CU_ATTR_CC_MAJOR, dev)) != 0 ||
        (rc = gm__cu.cuDeviceGetAttribute(&minor, GM__CU_ATTR_CC_MINOR, dev)) != 0 ||
        (rc = gm__cu.cuDeviceGetAttribute(&sms, GM__CU_ATTR_MULTIPROCESSOR_COUNT, dev)) != 0)
        return gm__cuda_fail(fn, "cuDeviceGetAttribute", rc);
    if ((rc = gm__cu.cuDriverGetVersion(&driver)) != 0)
        return gm__cuda_fail(fn, "cuDriverGetVersion", rc);
    pthread_mutex_lock(&gm__cache_lock);
    if ((c = gm__find_cache(key)) != NULL) {
        pthread_mutex_unlock(&gm__cache_lock);
        *out = c;
        return GM_OK;
    }
    for (c = gm__caches; c; c = c->next) {
        uint64_t now = 0;
        int probe = c->key ? gm__ctx_key(c->ctx, &now) : 0;
        if (c->key && (GM__CU_GONE(probe) || (probe == 0 && now != c->key)))
            __atomic_store_n(&c->key, 0, __ATOMIC_RELEASE); /* its context is gone (its address may be another's) */
        if (!c->key)
            free_entry = c;
    }
    if (!(c = free_entry)) {
        if (!(c = (gm__ctx_cache*)GM_MALLOC(sizeof *c))) {
            pthread_mutex_unlock(&gm__cache_lock);
            return gm__fail(GM_ERR_NO_MEMORY, "%s: no memory for the kernel cache", fn);
        }
        c->next = gm__caches;
        c->key = 0;
    }
    /* all but next and key: readers may be loading them */
    memset((char*)c + offsetof(gm__ctx_cache, ctx), 0, sizeof *c - offsetof(gm__ctx_cache, ctx));
    c->ctx = ctx;
    c->arch = major * 10 + minor;
    c->sms = sms;
    c->driver = driver;
    if (!free_entry)
        __atomic_store_n(&gm__caches, c, __ATOMIC_RELEASE);
    __atomic_store_n(&c->key, key, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&gm__cache_lock);
    *out = c;
    return GM_OK;
}

/* The function of kernel in the current context, compiled on first use; N
 * threads racing on a cold slot compile it once. waits (may be NULL): whether
 * the function was built for sm_90+ and so waits for the kernel before it
 * (templates/prelude_cuda.cu), which alone makes an overlapping launch safe:
 * PTX for an older arch, from an older NVRTC or an ahead-of-time set, has no
 * such wait. wave (may be NULL): its warps the device holds at once in
 * blocks of GM__BLOCK_WARPS (0 where the driver could not say), which sizes
 * the launch (run.h). many: the kernel's _many entry point instead (0 where
 * it has none). */
static gm_status gm__function(const char* fn, int kernel, int device, int many, gm__CUfunction* out, int* waits,
                              int* wave)
{
    gm__CUcontext ctx;
    uint64_t key;
    gm__ctx_cache* cache = NULL; /* gcc -O1 cannot see gm__ctx_cache_for set it */
    gm__CUfunction f = 0;
    gm__CUmodule mod = 0;
    pthread_mutex_t* lock;
    const void* image = NULL;
    char* owned = NULL;
    size_t size = 0;
    double t0;
    int dev, rc;
    gm_status s = gm__context_key(fn, device, &ctx, &dev, &key);
    if (s != GM_OK)
        return s;
    if (dev != device)
        return gm__fail(GM_ERR_LOCATION, "%s: the images are on device %d but the current context is on device %d",
                        fn, device, dev);
    if ((s = gm__ctx_cache_for(fn, ctx, key, dev, &cache)) != GM_OK)
        return s;
    f = __atomic_load_n(&cache->fns[kernel], __ATOMIC_ACQUIRE);
    if (f) {
        *out = many ? cache->many[kernel] : f;
        if (waits)
            *waits = cache->waits[kernel];
        if (wave)
            *wave = cache->wave[kernel];
        return GM_OK;
    }
    lock = &gm__compile_locks[kernel % 16]; /* a stripe: racers on one kernel meet, others rarely wait */
    pthread_mutex_lock(lock);
    f = cache->fns[kernel];
    if (!f) {
        s = gm__image(fn, kernel, cache->arch, &image, &size, &owned);
        GM_TRACE(GM_TRACE_LOAD, kernel);
        t0 = gm__now_ms();
        if (s == GM_OK && (rc = gm__cu.cuModuleLoadData(&mod, image)) != 0)
            s = gm__cuda_fail(fn, "cuModuleLoadData", rc);
        if (s == GM_OK && (rc = gm__cu.cuModuleGetFunction(&f, mod, gm__kernels[kernel].name)) != 0) {
            s = gm__cuda_fail(fn, "cuModuleGetFunction", rc);
            gm__cu.cuModuleUnload(mod); /* loaded, but of no use */
        }
        GM_FREE(owned);
        if (s == GM_OK) {
            int ptx = 0, blocks = 0;
            gm__cu.cuFuncGetAttribute(&ptx, GM__CU_FUNC_ATTRIBUTE_PTX_VERSION, f);
            cache->waits[kernel] = ptx >= 90;
            if (gm__cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 32 * GM__BLOCK_WARPS, 0) == 0)
                cache->wave[kernel] = blocks * GM__BLOCK_WARPS * cache->sms;
            if (gm__kernels[kernel].family == GM__FAMILY_PREP && cache->driver >= 12010) {
                char name[128];
                snprintf(name, sizeof name, "%s_many", gm__kernels[kernel].name);
                if (gm__cu.cuModuleGetFunction(&cache->many[kernel], mod, name) != 0)
                    cache->many[kernel] = 0;
            }
            gm__jit_log(GM_JIT_LOAD, gm__kernels[kernel].name, gm__now_ms() - t0, "sm_%d, %zu bytes", cache->arch, size);
            gm__record(gm__kernels[kernel].name);
            __atomic_store_n(&cache->fns[kernel], f, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(lock);
    *out = many && f ? cache->many[kernel] : f;
    if (waits)
        *waits = cache->waits[kernel];
    if (wave)
        *wave = cache->wave[kernel];
    return s;
}
