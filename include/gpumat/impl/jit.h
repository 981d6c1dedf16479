/* Implementation: the CUDA context, NVRTC compilation and the process-wide
 * kernel cache (one slot per specialization per context). */

#ifndef GM_MAX_CONTEXTS
#define GM_MAX_CONTEXTS 16 /* distinct CUDA contexts gpumat launches in */
#endif

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
            used += (size_t)snprintf(src + used, size - used, gm__fast_entry, gm__kernel_names[spec],
                                     g / 4 / GM_DTYPE_COUNT, g / 4 % GM_DTYPE_COUNT, g % 4 + 1, f / 2 % 2, f % 2,
                                     gm__fast_pr[f][0], gm__fast_pr[f][1]);
    }
    return src;
}

/* Compiles specs[0..n) into one module with NVRTC: CUBIN for sm_<arch> when
 * NVRTC knows that arch, else PTX for the newest arch it knows below it (the
 * driver finishes it). *image is malloc'd. */
static gm_status gm__compile(const char* fn, const int* specs, int n, int arch, char** image, size_t* image_size)
{
    char arch_opt[32];
    const char* opts[3];
    gm__nvrtcProgram prog = 0;
    int archs[128], narch = 0, i, best = 0, rc;
    int cubin;
    char* src;
    gm_status s = gm__nvrtc_ready(fn);
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
    cubin = best == arch;
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s_%d", cubin ? "sm" : "compute", best);
    opts[0] = arch_opt;
    opts[1] = "-fmad=false"; /* the CPU path contracts nothing either */
    opts[2] = "-std=c++17";  /* if constexpr; NVRTC 11 defaults to C++14 */
    src = gm__kernel_source(specs, n);
    if (!src)
        return gm__fail(GM_ERR_NO_MEMORY, "%s: no memory for kernel source", fn);
    rc = gm__rtc.nvrtcCreateProgram(&prog, src, gm__kernel_names[specs[0]], 0, NULL, NULL);
    free(src);
    if (rc != 0)
        return gm__fail(GM_ERR_COMPILE, "%s: nvrtcCreateProgram: %s", fn, gm__rtc.nvrtcGetErrorString(rc));
    rc = gm__rtc.nvrtcCompileProgram(prog, 3, opts);
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
                     opts[0], opts[1], opts[2], log ? log : "");
        free(log);
        gm__rtc.nvrtcDestroyProgram(&prog);
        return s;
    }
    rc = cubin ? gm__rtc.nvrtcGetCUBINSize(prog, image_size) : gm__rtc.nvrtcGetPTXSize(prog, image_size);
    *image = rc == 0 ? (char*)malloc(*image_size) : NULL;
    if (*image)
        rc = cubin ? gm__rtc.nvrtcGetCUBIN(prog, *image) : gm__rtc.nvrtcGetPTX(prog, *image);
    gm__rtc.nvrtcDestroyProgram(&prog);
    if (!*image || rc != 0) {
        free(*image);
        *image = NULL;
        return gm__fail(GM_ERR_COMPILE, "%s: reading the compiled image of %s failed", fn, gm__kernel_names[specs[0]]);
    }
    return GM_OK;
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
    s = gm__compile("gm_kernel_compile", &index, 1, arch, &image, &size);
    free(image);
    if (image_size)
        *image_size = s == GM_OK ? size : 0;
    return s;
}

/* The cache: per context, one function pointer per specialization, written
 * once under a lock and read without one. */
typedef struct gm__ctx_cache {
    gm__CUcontext ctx;
    int arch;
    gm__CUfunction fns[GM__SPEC_COUNT];
} gm__ctx_cache;

static gm__ctx_cache* gm__caches[GM_MAX_CONTEXTS];
static int gm__compile_count; /* kernels compiled by this process, for tests */
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
 * threads racing on a cold slot compile it once. */
static gm_status gm__kernel(const char* fn, int spec, int device, gm__CUfunction* out)
{
    gm__CUcontext ctx;
    gm__ctx_cache* cache;
    gm__CUfunction f = 0;
    gm__CUmodule mod = 0;
    pthread_mutex_t* lock;
    char* image = NULL;
    size_t size = 0;
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
        return GM_OK;
    }
    lock = &gm__compile_locks[spec % 16];
    pthread_mutex_lock(lock);
    f = cache->fns[spec];
    if (!f) {
        s = gm__compile(fn, &spec, 1, cache->arch, &image, &size);
        __atomic_add_fetch(&gm__compile_count, 1, __ATOMIC_RELAXED);
        if (s == GM_OK && (rc = gm__cu.cuModuleLoadData(&mod, image)) != 0)
            s = gm__cuda_fail(fn, "cuModuleLoadData", rc);
        if (s == GM_OK && (rc = gm__cu.cuModuleGetFunction(&f, mod, gm__kernel_names[spec])) != 0)
            s = gm__cuda_fail(fn, "cuModuleGetFunction", rc);
        free(image);
        if (s == GM_OK)
            __atomic_store_n(&cache->fns[spec], f, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(lock);
    *out = f;
    return s;
}
