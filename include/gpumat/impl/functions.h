/* SPDX-License-Identifier: MIT */
/* Implementation: the process-wide cache of loaded kernel functions, one
 * slot per catalogue kernel per CUDA context, each filled once (image.h) and
 * then read without a lock. */

#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* Whether k is a pre-process kernel (of images or of frames, the product
 * in float or in double): its arguments are gm__prep_args, and it has a
 * _many entry point. */
static int gm__is_prep(const gm__kernel_row* k)
{
    return k->family == GM__FAMILY_PREP || k->family == GM__FAMILY_PREP_YUV || k->family == GM__FAMILY_PREP_DOUBLE ||
           k->family == GM__FAMILY_PREP_YUV_DOUBLE || k->family == GM__FAMILY_PREP_WARP ||
           k->family == GM__FAMILY_PREP_YUV_WARP;
}

/* Whether pre-process kernel k multiplies in double (GM_BLOB_DOUBLE): its
 * arguments do not say so, its row does (the CPU path asks it). */
static int gm__prep_double(const gm__kernel_row* k)
{
    return k->family == GM__FAMILY_PREP_DOUBLE || k->family == GM__FAMILY_PREP_YUV_DOUBLE;
}

/* The cache: per context, one function pointer per kernel, written once
 * under a lock and read without one. Entries form a list that only grows at
 * its head; a destroyed context's entry is taken over by the next new
 * context (its functions died with their context), so the list is as long
 * as the most contexts alive at once, plus any whose end gpumat could not
 * learn (no token; see below). */
typedef struct gm__ctx_cache {
    struct gm__ctx_cache* next;
    uint64_t key; /* gm__ctx_key of its context; 0: free. Published last (release): readers match on it */
    /* A byte of device memory in the entry's context and the driver's
       buffer id for it. The driver frees it with the context, after which
       its address is unknown or another buffer's: how gpumat learns that a
       context is gone without handing the driver a dead context's handle
       (cuCtxGetId on one crashed). 0: none (the allocation failed). */
    gm__CUdeviceptr token;
    unsigned long long token_id;
    unsigned long long made; /* which making of the entry: a load publishes only into the one it started in */
    int arch, sms;
    gm__CUfunction fns[GM__KERNEL_COUNT];
    unsigned char waits[GM__KERNEL_COUNT]; /* fns[i] was built for sm_90+, so it starts with griddepcontrol.wait */
    int wave[GM__KERNEL_COUNT]; /* warps of fns[i] the device holds at once in blocks of GM__BLOCK_WARPS; 0 unknown */
    gm__CUfunction many[GM__KERNEL_COUNT]; /* a pre-process kernel's _many entry point (templates/prep.cu), loaded
                                              with fns[i]; 0: none (the driver or the image's compiler before 12.1) */
    int driver;                            /* the driver's version */
} gm__ctx_cache;

static gm__ctx_cache* gm__caches; /* the list's head */
static unsigned long long gm__cache_makings; /* under gm__cache_lock */
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

enum { GM__CTX_GONE, GM__CTX_ALIVE, GM__CTX_UNKNOWN };

/* What c's token says of its context (under gm__cache_lock): gone when the
 * driver no longer knows the address (CUDA_ERROR_INVALID_VALUE) or finds
 * another buffer there; unknown without a token or when the query fails
 * otherwise. */
static int gm__ctx_state(const gm__ctx_cache* c)
{
    unsigned long long id = 0;
    int rc = c->token ? gm__cu.cuPointerGetAttribute(&id, GM__CU_POINTER_BUFFER_ID, c->token) : -1;
    return rc == 0 ? (id == c->token_id ? GM__CTX_ALIVE : GM__CTX_GONE) : rc == 1 ? GM__CTX_GONE : GM__CTX_UNKNOWN;
}

/* The cache entry of the live current context (key: its gm__ctx_key) and
 * its making, the entry made on the context's first use, when the entries
 * of destroyed contexts are freed. Without cuCtxGetId the key is the
 * context's address, which a context made where a destroyed one was
 * shares: an entry is the context's then only while its token says so
 * (or it has none), and each call takes the lock. */
static gm_status gm__ctx_cache_for(const char* fn, uint64_t key, int dev, gm__ctx_cache** out,
                                   unsigned long long* made)
{
    gm__ctx_cache *c, *free_entry = NULL, *found = NULL;
    gm__CUdeviceptr token = 0;
    unsigned long long token_id = 0;
    int major = 0, minor = 0, sms = 0, driver = 0, rc;
    if (gm__cu.cuCtxGetId && (c = gm__find_cache(key)) != NULL) {
        *made = __atomic_load_n(&c->made, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&c->key, __ATOMIC_ACQUIRE) == key) { /* not taken over between the two reads */
            *out = c;
            return GM_OK;
        }
    }
    pthread_mutex_lock(&gm__cache_lock);
    for (c = gm__caches; c; c = c->next) {
        int state = c->key ? gm__ctx_state(c) : GM__CTX_GONE;
        if (c->key == key && (gm__cu.cuCtxGetId || state == GM__CTX_ALIVE || !c->token))
            found = c;
        else if (c->key && (state == GM__CTX_GONE || c->key == key))
            __atomic_store_n(&c->key, 0, __ATOMIC_RELEASE);
        if (!c->key)
            free_entry = c;
    }
    if (found) {
        *made = found->made;
        pthread_mutex_unlock(&gm__cache_lock);
        *out = found;
        return GM_OK;
    }
    /* a wrong arch would compile kernels this GPU cannot load, for good */
    if ((rc = gm__cu.cuDeviceGetAttribute(&major, GM__CU_ATTR_CC_MAJOR, dev)) != 0 ||
        (rc = gm__cu.cuDeviceGetAttribute(&minor, GM__CU_ATTR_CC_MINOR, dev)) != 0 ||
        (rc = gm__cu.cuDeviceGetAttribute(&sms, GM__CU_ATTR_MULTIPROCESSOR_COUNT, dev)) != 0) {
        pthread_mutex_unlock(&gm__cache_lock);
        return gm__cuda_fail(fn, "cuDeviceGetAttribute", rc);
    }
    if ((rc = gm__cu.cuDriverGetVersion(&driver)) != 0) {
        pthread_mutex_unlock(&gm__cache_lock);
        return gm__cuda_fail(fn, "cuDriverGetVersion", rc);
    }
    /* without a token (a full GPU) gpumat works on, but never learns of the context's end */
    if (gm__cu.cuMemAlloc(&token, 1) == 0 &&
        gm__cu.cuPointerGetAttribute(&token_id, GM__CU_POINTER_BUFFER_ID, token) != 0) {
        gm__cu.cuMemFree(token);
        token = 0;
    }
    if (!(c = free_entry)) {
        if (!(c = (gm__ctx_cache*)GM_MALLOC(sizeof *c))) {
            if (token)
                gm__cu.cuMemFree(token);
            pthread_mutex_unlock(&gm__cache_lock);
            return gm__fail(GM_ERR_NO_MEMORY, "%s: no memory for the kernel cache", fn);
        }
        c->next = gm__caches;
        c->key = 0;
    }
    /* all but next and key: readers may be loading them */
    memset((char*)c + offsetof(gm__ctx_cache, token), 0, sizeof *c - offsetof(gm__ctx_cache, token));
    c->token = token;
    c->token_id = token_id;
    __atomic_store_n(&c->made, ++gm__cache_makings, __ATOMIC_RELEASE);
    c->arch = major * 10 + minor;
    c->sms = sms;
    c->driver = driver;
    if (!free_entry)
        __atomic_store_n(&gm__caches, c, __ATOMIC_RELEASE);
    __atomic_store_n(&c->key, key, __ATOMIC_RELEASE);
    *made = c->made;
    pthread_mutex_unlock(&gm__cache_lock);
    *out = c;
    return GM_OK;
}

/* A kernel's function and what gm__function tells of it. */
typedef struct gm__loaded {
    gm__CUfunction f, many;
    int waits, wave;
} gm__loaded;

static gm__loaded gm__loaded_of(const gm__ctx_cache* cache, int kernel, gm__CUfunction f)
{
    gm__loaded k;
    k.f = f;
    k.many = cache->many[kernel];
    k.waits = cache->waits[kernel];
    k.wave = cache->wave[kernel];
    return k;
}

/* Loads kernel into the current context, whose entry is cache (its making
 * made), into *k, and publishes it there. Published only into that making:
 * another thread may have destroyed the context meanwhile and a new context
 * taken the entry over. */
static gm_status gm__load(const char* fn, int kernel, gm__ctx_cache* cache, unsigned long long made, gm__loaded* k)
{
    gm__CUmodule mod = 0;
    const void* image = NULL;
    char* owned = NULL;
    size_t size = 0;
    int rc, ptx = 0, blocks = 0;
    double t0;
    gm_status s = gm__image(fn, kernel, cache->arch, &image, &size, &owned);
    memset(k, 0, sizeof *k);
    GM_TRACE(GM_TRACE_LOAD, kernel);
    t0 = gm__now_ms();
    if (s == GM_OK && (rc = gm__cu.cuModuleLoadData(&mod, image)) != 0)
        s = gm__cuda_fail(fn, "cuModuleLoadData", rc);
    if (s == GM_OK && (rc = gm__cu.cuModuleGetFunction(&k->f, mod, gm__kernels[kernel].name)) != 0) {
        s = gm__cuda_fail(fn, "cuModuleGetFunction", rc);
        gm__cu.cuModuleUnload(mod); /* loaded, but of no use */
    }
    GM_FREE(owned);
    if (s != GM_OK)
        return s;
    gm__cu.cuFuncGetAttribute(&ptx, GM__CU_FUNC_ATTRIBUTE_PTX_VERSION, k->f);
    k->waits = ptx >= 90;
    if (gm__cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->f, 32 * GM__BLOCK_WARPS, 0) == 0)
        k->wave = blocks * GM__BLOCK_WARPS * cache->sms;
    if (gm__is_prep(&gm__kernels[kernel]) && cache->driver >= 12010) {
        char name[128];
        snprintf(name, sizeof name, "%s_many", gm__kernels[kernel].name);
        if (gm__cu.cuModuleGetFunction(&k->many, mod, name) != 0)
            k->many = 0;
    }
    gm__jit_log(GM_JIT_LOAD, gm__kernels[kernel].name, gm__now_ms() - t0, "sm_%d, %zu bytes", cache->arch, size);
    gm__record(gm__kernels[kernel].name);
    pthread_mutex_lock(&gm__cache_lock);
    if (cache->key && cache->made == made) {
        cache->waits[kernel] = (unsigned char)k->waits;
        cache->wave[kernel] = k->wave;
        cache->many[kernel] = k->many;
        __atomic_store_n(&cache->fns[kernel], k->f, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&gm__cache_lock);
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
    unsigned long long made = 0;
    gm__ctx_cache* cache = NULL; /* gcc -O1 cannot see gm__ctx_cache_for set it */
    gm__CUfunction f;
    gm__loaded k;
    pthread_mutex_t* lock;
    int dev;
    gm_status s = gm__context_key(fn, device, &ctx, &dev, &key);
    if (s != GM_OK)
        return s;
    if (dev != device)
        return gm__fail(GM_ERR_LOCATION, "%s: the images are on device %d but the current context is on device %d",
                        fn, device, dev);
    if ((s = gm__ctx_cache_for(fn, key, dev, &cache, &made)) != GM_OK)
        return s;
    if ((f = __atomic_load_n(&cache->fns[kernel], __ATOMIC_ACQUIRE)) != 0) {
        k = gm__loaded_of(cache, kernel, f);
    } else {
        lock = &gm__compile_locks[kernel % 16]; /* a stripe: racers on one kernel meet, others rarely wait */
        pthread_mutex_lock(lock);
        if ((f = cache->fns[kernel]) != 0)
            k = gm__loaded_of(cache, kernel, f);
        else
            s = gm__load(fn, kernel, cache, made, &k);
        pthread_mutex_unlock(lock);
        if (s != GM_OK)
            return s;
    }
    *out = many ? k.many : k.f;
    if (waits)
        *waits = k.waits;
    if (wave)
        *wave = k.wave;
    return GM_OK;
}
