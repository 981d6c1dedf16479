/* SPDX-License-Identifier: MIT */
/* Implementation: the CUDA context, kernel images (embedded, disk cache or
 * NVRTC), the process-wide kernel cache (one slot per specialization per
 * context) and warm-up. */

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

GM_API gm_where gm_path(void)
{
    pthread_once(&gm__path_once, gm__decide_path);
    return gm__path_where;
}

GM_API gm_status gm_device(int* cc_major, int* cc_minor, char* name, size_t name_size)
{
    gm__CUcontext ctx;
    int dev, major = 0, minor = 0;
    gm_status s = gm__context("gm_device", 0, &ctx, &dev);
    if (s != GM_OK)
        return s;
    gm__cu.cuDeviceGetAttribute(&major, GM__CU_ATTR_CC_MAJOR, dev);
    gm__cu.cuDeviceGetAttribute(&minor, GM__CU_ATTR_CC_MINOR, dev);
    if (cc_major)
        *cc_major = major;
    if (cc_minor)
        *cc_minor = minor;
    if (name && name_size > 0)
        gm__cu.cuDeviceGetName(name, (int)(name_size > 4096 ? 4096 : name_size), dev);
    return GM_OK;
}

#ifndef GM_NO_NVRTC
/* The NVRTC source of specializations specs[0..n): the shared text plus one
 * entry line each. */
static char* gm__kernel_source(const int* specs, int n)
{
    size_t size = 1, used = 0;
    int i;
    char* src;
    for (i = 0; gm__kernel_src[i]; ++i)
        size += strlen(gm__kernel_src[i]);
    size += (size_t)n * 256;
    src = (char*)malloc(size);
    if (!src)
        return NULL;
    for (i = 0; gm__kernel_src[i]; ++i) {
        size_t len = strlen(gm__kernel_src[i]);
        memcpy(src + used, gm__kernel_src[i], len);
        used += len;
    }
    for (i = 0; i < n; ++i) {
        int spec = specs[i], f = spec - GM__GENERIC_COUNT, g = f / 4; /* g: generic slot of the same S, D, C */
        if (spec < GM__GENERIC_COUNT)
            used += (size_t)snprintf(src + used, size - used, gm__kernel_entry, gm__kernel_names[spec],
                                     spec / 4 / GM_DTYPE_COUNT, spec / 4 % GM_DTYPE_COUNT, spec % 4 + 1);
        else
            used += (size_t)snprintf(src + used, size - used, gm__fast_entry, gm__fast_pr[f][2], gm__kernel_names[spec],
                                     g / 4 / GM_DTYPE_COUNT, g / 4 % GM_DTYPE_COUNT, g % 4 + 1, f / 2 % 2, f % 2,
                                     gm__fast_pr[f][0], gm__fast_pr[f][1]);
    }
    return src;
}

/* An NVRTC program: its source (malloc'd), its options, and whether it
 * yields CUBIN (else PTX). */
typedef struct gm__program {
    char* src;
    char arch_opt[32];
    const char* opts[3];
    int cubin;
} gm__program;

/* The program of specs[0..n) for sm_<arch>: CUBIN when NVRTC knows that arch
 * and ptx is 0, else PTX for the newest arch NVRTC knows up to it (the
 * driver finishes it). */
static gm_status gm__program_for(const char* fn, const int* specs, int n, int arch, int ptx, gm__program* p)
{
    int archs[128], narch = 0, i, best = 0;
    gm_status s = gm__nvrtc_ready(fn);
    p->src = NULL;
    if (s != GM_OK)
        return s;
    if (gm__rtc.nvrtcGetNumSupportedArchs(&narch) != 0 || narch < 1 || narch > 128 ||
        gm__rtc.nvrtcGetSupportedArchs(archs) != 0)
        return gm__fail(GM_ERR_COMPILE, "%s: NVRTC did not list its architectures", fn);
    for (i = 0; i < narch; ++i)
        if (archs[i] <= arch && archs[i] > best)
            best = archs[i];
    if (!best)
        return gm__fail(GM_ERR_COMPILE, "%s: sm_%d is older than this NVRTC supports", fn, arch);
    p->cubin = best == arch && !ptx;
    snprintf(p->arch_opt, sizeof p->arch_opt, "-arch=%s_%d", p->cubin ? "sm" : "compute", best);
    p->opts[0] = p->arch_opt;
    p->opts[1] = "-fmad=false"; /* the CPU path contracts nothing either */
    p->opts[2] = "-std=c++17";  /* if constexpr; NVRTC 11 defaults to C++14 */
    p->src = gm__kernel_source(specs, n);
    if (!p->src)
        return gm__fail(GM_ERR_NO_MEMORY, "%s: no memory for kernel source", fn);
    return GM_OK;
}

/* Compiles p (of specs[0..n), for the messages) with NVRTC; *image is
 * malloc'd. */
static gm_status gm__nvrtc_build(const char* fn, const gm__program* p, const int* specs, int n, char** image,
                                 size_t* image_size)
{
    gm__nvrtcProgram prog = 0;
    gm_status s;
    int rc = gm__rtc.nvrtcCreateProgram(&prog, p->src, gm__kernel_names[specs[0]], 0, NULL, NULL);
    if (rc != 0)
        return gm__fail(GM_ERR_COMPILE, "%s: nvrtcCreateProgram: %s", fn, gm__rtc.nvrtcGetErrorString(rc));
    rc = gm__rtc.nvrtcCompileProgram(prog, 3, p->opts);
    if (rc != 0) {
        size_t log_size = 0;
        char* log;
        gm__rtc.nvrtcGetProgramLogSize(prog, &log_size);
        log = (char*)malloc(log_size + 1);
        if (log) {
            log[0] = 0;
            gm__rtc.nvrtcGetProgramLog(prog, log);
        }
        s = gm__fail(GM_ERR_COMPILE, "%s: NVRTC compile of %s%s failed: %s; options %s %s %s; log:\n%s", fn,
                     gm__kernel_names[specs[0]], n > 1 ? " and others" : "", gm__rtc.nvrtcGetErrorString(rc),
                     p->opts[0], p->opts[1], p->opts[2], log ? log : "");
        free(log);
        gm__rtc.nvrtcDestroyProgram(&prog);
        return s;
    }
    rc = p->cubin ? gm__rtc.nvrtcGetCUBINSize(prog, image_size) : gm__rtc.nvrtcGetPTXSize(prog, image_size);
    *image = rc == 0 ? (char*)malloc(*image_size) : NULL;
    if (*image)
        rc = p->cubin ? gm__rtc.nvrtcGetCUBIN(prog, *image) : gm__rtc.nvrtcGetPTX(prog, *image);
    gm__rtc.nvrtcDestroyProgram(&prog);
    if (!*image || rc != 0) {
        free(*image);
        *image = NULL;
        return gm__fail(GM_ERR_COMPILE, "%s: reading the compiled image of %s failed", fn, gm__kernel_names[specs[0]]);
    }
    return GM_OK;
}

/* Compiles specs[0..n) into one module with NVRTC for sm_<arch> (see
 * gm__program_for), bypassing every cache. *image is malloc'd. */
static gm_status gm__compile_as(const char* fn, const int* specs, int n, int arch, int ptx, char** image,
                                size_t* image_size)
{
    gm__program p;
    gm_status s = gm__program_for(fn, specs, n, arch, ptx, &p);
    if (s == GM_OK)
        s = gm__nvrtc_build(fn, &p, specs, n, image, image_size);
    free(p.src);
    return s;
}

static gm_status gm__compile(const char* fn, const int* specs, int n, int arch, char** image, size_t* image_size)
{
    return gm__compile_as(fn, specs, n, arch, 0, image, image_size);
}

/* The disk cache key of p for a GPU of sm_<arch>: everything that shapes the
 * image, each part delimited so that no two recipes hash the same bytes. */
static uint64_t gm__program_key(const gm__program* p, int arch)
{
    int parts[6] = {GM__CACHE_FORMAT, GPUMAT_VERSION_MAJOR, GPUMAT_VERSION_MINOR, 0, 0, 0};
    uint64_t h;
    int i;
    gm__rtc.nvrtcVersion(&parts[3], &parts[4]);
    parts[5] = arch;
    h = gm__fnv(GM__FNV_START, parts, sizeof parts);
    for (i = 0; i < 3; ++i)
        h = gm__fnv(h, p->opts[i], strlen(p->opts[i]) + 1);
    return gm__fnv(h, p->src, strlen(p->src));
}
#endif

/* The image of spec for a GPU of sm_<arch>: embedded ahead of time, else
 * from the disk cache, else compiled by NVRTC (and stored in the disk
 * cache). *owned is what the caller frees (NULL for an embedded image).
 * Needs no GPU, so tests and tools use it with any arch. */
static gm_status gm__image(const char* fn, int spec, int arch, const void** image, size_t* size, char** owned)
{
    const char* name = gm__kernel_names[spec];
#ifndef GM_NO_NVRTC
    gm__program p;
    uint64_t key;
    double t0;
    gm_status s;
#endif
    *owned = NULL;
    if (gm__aot_find(name, arch, image, size))
        return GM_OK;
#ifdef GM_NO_NVRTC
    return gm__fail(GM_ERR_NOT_EMBEDDED,
                    "%s: kernel %s for sm_%d is not in the ahead-of-time set and this build has no NVRTC "
                    "(GM_NO_NVRTC): add it to AOT_KERNELS and run make aot again",
                    fn, name, arch);
#else
    if ((s = gm__program_for(fn, &spec, 1, arch, 0, &p)) != GM_OK)
        return s;
    key = gm__program_key(&p, arch);
    if (gm__cache_load(name, key, arch, owned, size)) {
        free(p.src);
        *image = *owned;
        return GM_OK;
    }
    t0 = gm__now_ms();
    s = gm__nvrtc_build(fn, &p, &spec, 1, owned, size);
    free(p.src);
    if (s != GM_OK)
        return s;
    gm__jit_log(GM_JIT_COMPILE, name, gm__now_ms() - t0, "%s", p.arch_opt);
    gm__cache_store(name, key, arch, *owned, *size);
    *image = *owned;
    return GM_OK;
#endif
}

GM_API int gm_kernel_count(void) { return GM__SPEC_COUNT; }

GM_API const char* gm_kernel_name(int index)
{
    return index >= 0 && index < GM__SPEC_COUNT ? gm__kernel_names[index] : NULL;
}

GM_API gm_status gm_kernel_compile(int index, int arch, size_t* image_size)
{
    char* image = NULL;
    size_t size = 0;
    gm_status s;
    if (index < 0 || index >= GM__SPEC_COUNT)
        return gm__fail(GM_ERR_ARG, "gm_kernel_compile: index %d outside [0, %d)", index, GM__SPEC_COUNT);
    if (arch < 10)
        return gm__fail(GM_ERR_ARG, "gm_kernel_compile: arch %d is not an sm number such as 86", arch);
#ifdef GM_NO_NVRTC
    s = gm__fail(GM_ERR_NO_NVRTC, "gm_kernel_compile: this build has no NVRTC (GM_NO_NVRTC)");
#else
    s = gm__compile("gm_kernel_compile", &index, 1, arch, &image, &size);
#endif
    free(image);
    if (image_size)
        *image_size = s == GM_OK ? size : 0;
    return s;
}

GM_API int gm_kernel_find(const char* name)
{
    int i;
    for (i = 0; name && i < GM__SPEC_COUNT; ++i)
        if (!strcmp(gm__kernel_names[i], name))
            return i;
    return -1;
}

GM_API int gm_kernels_for(gm_dtype src, gm_dtype dst, int channels, int kernels[5])
{
    int n = 0, ls, ld;
    if ((int)src < 0 || (int)src >= GM_DTYPE_COUNT || (int)dst < 0 || (int)dst >= GM_DTYPE_COUNT)
        return gm__fail(GM_ERR_TYPE, "gm_kernels_for: dtype %d -> %d is not a gm_dtype pair", (int)src, (int)dst), 0;
    if (channels < 1 || channels > 4)
        return gm__fail(GM_ERR_TYPE, "gm_kernels_for: channels %d outside 1..4", channels), 0;
    if (!kernels)
        return gm__fail(GM_ERR_ARG, "gm_kernels_for: kernels is NULL"), 0;
    kernels[n++] = GM__SPEC(src, dst, channels);
    for (ls = 0; ls < 2; ++ls) /* one channel has no layouts: its fast kernel is the HWC one */
        for (ld = 0; ld < 2; ++ld)
            if (channels > 1 || (ls == GM_HWC && ld == GM_HWC))
                kernels[n++] = GM__FAST_SPEC(src, dst, channels, ls, ld);
    return n;
}

/* The cache: per context, one function pointer per specialization, written
 * once under a lock and read without one. */
typedef struct gm__ctx_cache {
    gm__CUcontext ctx;
    int arch, sms;
    gm__CUfunction fns[GM__SPEC_COUNT];
    unsigned char waits[GM__SPEC_COUNT]; /* fns[i] was built for sm_90+, so it starts with griddepcontrol.wait */
    int wave[GM__SPEC_COUNT]; /* warps of fns[i] the device holds at once in blocks of GM__BLOCK_WARPS; 0 unknown */
} gm__ctx_cache;

static gm__ctx_cache* gm__caches[GM_MAX_CONTEXTS];
static int gm__compile_count; /* kernel slots this process filled (image found or compiled, then loaded), for tests */
static pthread_mutex_t gm__cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gm__compile_locks[16] = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

static gm_status gm__ctx_cache_for(const char* fn, gm__CUcontext ctx, int dev, gm__ctx_cache** out)
{
    int i, major = 0, minor = 0;
    gm_status s = GM_OK;
    for (i = 0; i < GM_MAX_CONTEXTS; ++i) {
        gm__ctx_cache* c = __atomic_load_n(&gm__caches[i], __ATOMIC_ACQUIRE);
        if (c && c->ctx == ctx) {
            *out = c;
            return GM_OK;
        }
    }
    pthread_mutex_lock(&gm__cache_lock);
    for (i = 0; i < GM_MAX_CONTEXTS && gm__caches[i]; ++i)
        if (gm__caches[i]->ctx == ctx)
            break;
    if (i == GM_MAX_CONTEXTS) {
        s = gm__fail(GM_ERR_CUDA, "%s: more than GM_MAX_CONTEXTS (%d) CUDA contexts", fn, GM_MAX_CONTEXTS);
    } else if (!gm__caches[i]) {
        gm__ctx_cache* c = (gm__ctx_cache*)calloc(1, sizeof *c);
        if (!c) {
            s = gm__fail(GM_ERR_NO_MEMORY, "%s: no memory for the kernel cache", fn);
        } else {
            gm__cu.cuDeviceGetAttribute(&major, GM__CU_ATTR_CC_MAJOR, dev);
            gm__cu.cuDeviceGetAttribute(&minor, GM__CU_ATTR_CC_MINOR, dev);
            gm__cu.cuDeviceGetAttribute(&c->sms, GM__CU_ATTR_MULTIPROCESSOR_COUNT, dev);
            c->ctx = ctx;
            c->arch = major * 10 + minor;
            __atomic_store_n(&gm__caches[i], c, __ATOMIC_RELEASE);
        }
    }
    if (s == GM_OK)
        *out = gm__caches[i];
    pthread_mutex_unlock(&gm__cache_lock);
    return s;
}

/* The function of spec in the current context, compiled on first use; N
 * threads racing on a cold slot compile it once. waits (may be NULL): whether
 * the function was built for sm_90+ and so waits for the kernel before it
 * (templates/prelude_cuda.cu), which alone makes an overlapping launch safe:
 * PTX for an older arch, from an older NVRTC or an ahead-of-time set, has no
 * such wait. wave (may be NULL): its warps the device holds at once in
 * blocks of GM__BLOCK_WARPS (0 where the driver could not say), which sizes
 * the launch (ops.h). */
static gm_status gm__kernel(const char* fn, int spec, int device, gm__CUfunction* out, int* waits, int* wave)
{
    gm__CUcontext ctx;
    gm__ctx_cache* cache = NULL; /* gcc -O1 cannot see gm__ctx_cache_for set it */
    gm__CUfunction f = 0;
    gm__CUmodule mod = 0;
    pthread_mutex_t* lock;
    const void* image = NULL;
    char* owned = NULL;
    size_t size = 0;
    double t0;
    int dev, rc;
    gm_status s = gm__context(fn, device, &ctx, &dev);
    if (s != GM_OK)
        return s;
    if (dev != device)
        return gm__fail(GM_ERR_LOCATION, "%s: the images are on device %d but the current context is on device %d",
                        fn, device, dev);
    if ((s = gm__ctx_cache_for(fn, ctx, dev, &cache)) != GM_OK)
        return s;
    f = __atomic_load_n(&cache->fns[spec], __ATOMIC_ACQUIRE);
    if (f) {
        *out = f;
        if (waits)
            *waits = cache->waits[spec];
        if (wave)
            *wave = cache->wave[spec];
        return GM_OK;
    }
    lock = &gm__compile_locks[spec % 16];
    pthread_mutex_lock(lock);
    f = cache->fns[spec];
    if (!f) {
        s = gm__image(fn, spec, cache->arch, &image, &size, &owned);
        __atomic_add_fetch(&gm__compile_count, 1, __ATOMIC_RELAXED);
        t0 = gm__now_ms();
        if (s == GM_OK && (rc = gm__cu.cuModuleLoadData(&mod, image)) != 0)
            s = gm__cuda_fail(fn, "cuModuleLoadData", rc);
        if (s == GM_OK && (rc = gm__cu.cuModuleGetFunction(&f, mod, gm__kernel_names[spec])) != 0)
            s = gm__cuda_fail(fn, "cuModuleGetFunction", rc);
        free(owned);
        if (s == GM_OK) {
            int ptx = 0, blocks = 0;
            gm__cu.cuFuncGetAttribute(&ptx, GM__CU_FUNC_ATTRIBUTE_PTX_VERSION, f);
            cache->waits[spec] = ptx >= 90;
            if (gm__cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 32 * GM__BLOCK_WARPS, 0) == 0)
                cache->wave[spec] = blocks * GM__BLOCK_WARPS * cache->sms;
            gm__jit_log(GM_JIT_LOAD, gm__kernel_names[spec], gm__now_ms() - t0, "sm_%d, %zu bytes", cache->arch, size);
            gm__record(gm__kernel_names[spec]);
            __atomic_store_n(&cache->fns[spec], f, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(lock);
    *out = f;
    if (waits)
        *waits = cache->waits[spec];
    if (wave)
        *wave = cache->wave[spec];
    return s;
}

/* Warm-up: workers take the next specialization until none is left. */
typedef struct gm__warm {
    gm__CUcontext ctx;
    const int* kernels; /* NULL: 0..count) */
    int count, device, next;
    gm_status status; /* the first failure, its detail in error */
    char error[1024];
    pthread_mutex_t lock;
} gm__warm;

static void* gm__warm_worker(void* arg)
{
    gm__warm* w = (gm__warm*)arg;
    gm__CUfunction f;
    int i, rc;
    gm_status s;
    /* a new thread has no current context; the caller's is the one to fill */
    if ((rc = gm__cu.cuCtxSetCurrent(w->ctx)) != 0) {
        s = gm__cuda_fail("gm_warmup", "cuCtxSetCurrent", rc);
        i = w->count;
    } else {
        s = GM_OK;
        i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
    }
    for (; i < w->count; i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED))
        if ((s = gm__kernel("gm_warmup", w->kernels ? w->kernels[i] : i, w->device, &f, NULL, NULL)) != GM_OK)
            break;
    if (s != GM_OK) {
        pthread_mutex_lock(&w->lock);
        if (w->status == GM_OK) {
            w->status = s;
            snprintf(w->error, sizeof w->error, "%.1000s", gm_last_error());
        }
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

GM_API gm_status gm_warmup(const int* kernels, int count, int device)
{
    pthread_t threads[15];
    gm__warm w;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int i, dev, started = 0, helpers;
    gm_status s;
    if (!kernels && count != 0)
        return gm__fail(GM_ERR_ARG, "gm_warmup: kernels is NULL but count is %d (NULL needs 0: all)", count);
    if (kernels && count <= 0)
        return gm__fail(GM_ERR_ARG, "gm_warmup: count %d must be positive", count);
    for (i = 0; kernels && i < count; ++i)
        if (kernels[i] < 0 || kernels[i] >= GM__SPEC_COUNT)
            return gm__fail(GM_ERR_ARG, "gm_warmup: kernels[%d] = %d outside [0, %d)", i, kernels[i], GM__SPEC_COUNT);
    memset(&w, 0, sizeof w);
    if ((s = gm__context("gm_warmup", device, &w.ctx, &dev)) != GM_OK)
        return s;
    w.kernels = kernels;
    w.count = kernels ? count : GM__SPEC_COUNT;
    w.device = device;
    pthread_mutex_init(&w.lock, NULL);
    /* NVRTC compiles separate programs concurrently: one thread a core, this one included */
    helpers = (int)(cores < 1 ? 0 : cores > 16 ? 15 : cores - 1);
    if (helpers > w.count - 1)
        helpers = w.count - 1;
    for (; started < helpers; ++started)
        if (pthread_create(&threads[started], NULL, gm__warm_worker, &w) != 0)
            break; /* fewer helpers: slower, not wrong */
    gm__warm_worker(&w);
    for (i = 0; i < started; ++i)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&w.lock);
    if (w.status != GM_OK)
        return gm__fail(w.status, "%s", w.error);
    return GM_OK;
}
