/* SPDX-License-Identifier: MIT */
/* Implementation: the CUDA driver and NVRTC, opened with dlopen on first use.
 * The few types and entry points gpumat needs are declared here, so no CUDA
 * header or library is needed to build. */

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

typedef int gm__CUresult;
typedef int gm__CUdevice;
typedef void* gm__CUcontext;
typedef void* gm__CUmodule;
typedef void* gm__CUfunction;
typedef unsigned long long gm__CUdeviceptr;
typedef void* gm__nvrtcProgram;

/* Layout of CUDA_MEMCPY2D (cuda.h). */
typedef struct gm__memcpy2d {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void* srcHost;
    gm__CUdeviceptr srcDevice;
    void* srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void* dstHost;
    gm__CUdeviceptr dstDevice;
    void* dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} gm__memcpy2d;

/* Layouts of CUlaunchAttribute and CUlaunchConfig (cuda.h), for the one
 * attribute gpumat sets: programmatic stream serialization (sm_90+), which
 * lets a launch start while the kernel before it in the stream drains; the
 * kernel itself waits for that kernel's memory (griddepcontrol.wait). */
typedef struct gm__launch_attr {
    int id;
    char pad[4];
    union {
        char bytes[64];
        int value;
        void* align;
    } v;
} gm__launch_attr;

typedef struct gm__launch_config {
    unsigned grid[3], block[3], shared;
    gm_stream stream;
    gm__launch_attr* attrs;
    unsigned nattrs;
} gm__launch_config;

enum { GM__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6, GM__CU_FUNC_ATTRIBUTE_PTX_VERSION = 5 };

enum {
    GM__CU_MEMORYTYPE_HOST = 1,
    GM__CU_MEMORYTYPE_DEVICE = 2,
    GM__CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    GM__CU_ATTR_CC_MAJOR = 75,
    GM__CU_ATTR_CC_MINOR = 76,
    GM__CU_POINTER_MEMORY_TYPE = 2,
    GM__CU_POINTER_DEVICE_ORDINAL = 9,
    GM__CU_POINTER_RANGE_START = 11,
    GM__CU_POINTER_RANGE_SIZE = 12
};

/* name, symbol, parameters: each becomes a typedef, a table member and a dlsym. */
#define GM__DRIVER_LIST(X)                                                                         \
    X(cuInit, "cuInit", (unsigned int))                                                            \
    X(cuDriverGetVersion, "cuDriverGetVersion", (int*))                                            \
    X(cuGetErrorName, "cuGetErrorName", (gm__CUresult, const char**))                              \
    X(cuDeviceGetCount, "cuDeviceGetCount", (int*))                                                \
    X(cuDeviceGet, "cuDeviceGet", (gm__CUdevice*, int))                                            \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int*, int, gm__CUdevice))                     \
    X(cuDeviceGetName, "cuDeviceGetName", (char*, int, gm__CUdevice))                              \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (gm__CUcontext*, gm__CUdevice))        \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", (gm__CUcontext*))                                        \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", (gm__CUcontext))                                         \
    X(cuCtxGetDevice, "cuCtxGetDevice", (gm__CUdevice*))                                           \
    X(cuMemAlloc, "cuMemAlloc_v2", (gm__CUdeviceptr*, size_t))                                     \
    X(cuMemFree, "cuMemFree_v2", (gm__CUdeviceptr))                                                \
    X(cuMemHostAlloc, "cuMemHostAlloc", (void**, size_t, unsigned int))                            \
    X(cuMemFreeHost, "cuMemFreeHost", (void*))                                                     \
    X(cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", (const gm__memcpy2d*, gm_stream))                     \
    X(cuPointerGetAttribute, "cuPointerGetAttribute", (void*, int, gm__CUdeviceptr))               \
    X(cuStreamSynchronize, "cuStreamSynchronize", (gm_stream))                                     \
    X(cuModuleLoadData, "cuModuleLoadData", (gm__CUmodule*, const void*))                          \
    X(cuModuleGetFunction, "cuModuleGetFunction", (gm__CUfunction*, gm__CUmodule, const char*))    \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", (int*, int, gm__CUfunction))                       \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",  \
      (int*, gm__CUfunction, int, size_t))                                                         \
    X(cuLaunchKernel, "cuLaunchKernel",                                                            \
      (gm__CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,       \
       gm_stream, void**, void**))

/* GM_NO_NVRTC builds (ahead-of-time images only) must not even name NVRTC. */
#ifdef GM_NO_NVRTC
#define GM__NVRTC_LIST(X)
#else
#define GM__NVRTC_LIST(X)                                                                          \
    X(nvrtcVersion, "nvrtcVersion", (int*, int*))                                                  \
    X(nvrtcCreateProgram, "nvrtcCreateProgram",                                                    \
      (gm__nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*))  \
    X(nvrtcDestroyProgram, "nvrtcDestroyProgram", (gm__nvrtcProgram*))                             \
    X(nvrtcCompileProgram, "nvrtcCompileProgram", (gm__nvrtcProgram, int, const char* const*))     \
    X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", (gm__nvrtcProgram, size_t*))               \
    X(nvrtcGetProgramLog, "nvrtcGetProgramLog", (gm__nvrtcProgram, char*))                         \
    X(nvrtcGetCUBINSize, "nvrtcGetCUBINSize", (gm__nvrtcProgram, size_t*))                         \
    X(nvrtcGetCUBIN, "nvrtcGetCUBIN", (gm__nvrtcProgram, char*))                                   \
    X(nvrtcGetPTXSize, "nvrtcGetPTXSize", (gm__nvrtcProgram, size_t*))                             \
    X(nvrtcGetPTX, "nvrtcGetPTX", (gm__nvrtcProgram, char*))                                       \
    X(nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs", (int*))                              \
    X(nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs", (int*))
#endif

#define GM__TYPEDEF(name, symbol, params) typedef int (*gm__pfn_##name) params;
GM__DRIVER_LIST(GM__TYPEDEF)
GM__NVRTC_LIST(GM__TYPEDEF)
#undef GM__TYPEDEF

#define GM__MEMBER(name, symbol, params) gm__pfn_##name name;
typedef int (*gm__pfn_cuLaunchKernelEx)(const gm__launch_config*, gm__CUfunction, void**, void**);
typedef struct gm__driver {
    GM__DRIVER_LIST(GM__MEMBER)
    gm__pfn_cuLaunchKernelEx cuLaunchKernelEx; /* drivers from CUDA 11.8 on; NULL before */
} gm__driver;
#ifndef GM_NO_NVRTC
typedef struct gm__nvrtc {
    GM__NVRTC_LIST(GM__MEMBER)
    const char* (*nvrtcGetErrorString)(int);
} gm__nvrtc;
#endif
#undef GM__MEMBER

/* The outcome of loading a library, decided once per process. */
typedef struct gm__lib {
    pthread_once_t once;
    gm_status status;
    char detail[512];
} gm__lib;

static gm__driver gm__cu;
static gm__lib gm__cu_lib = {PTHREAD_ONCE_INIT, GM_OK, ""};
#ifndef GM_NO_NVRTC
static gm__nvrtc gm__rtc;
static gm__lib gm__rtc_lib = {PTHREAD_ONCE_INIT, GM_OK, ""};
#endif

/* dlopen the first of names that opens; the environment variable, when set,
 * is the only candidate (so a deployment or a test can pin or break it). The
 * detail names every library tried; it suggests the variable only where a
 * library was found but did not load, or for what may live off the search
 * path (env_hint): a machine with no driver at all needs no such advice. */
static void* gm__open_first(gm__lib* lib, const char* env, const char* const* names, const char* what, int env_hint)
{
    const char* pinned = getenv(env);
    size_t used = 0;
    int i, found = 0;
    if (pinned && *pinned) {
        void* h = dlopen(pinned, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(lib->detail, sizeof lib->detail, "%s: tried %s=%s: %s", what, env, pinned, dlerror());
        return h;
    }
    used = (size_t)snprintf(lib->detail, sizeof lib->detail, "%s: tried", what);
    for (i = 0; names[i]; ++i) {
        void* h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        const char* why;
        if (h)
            return h;
        why = dlerror();
        why = why && !strstr(why, "No such file") ? why : NULL; /* there, but it did not load: say why */
        found |= why != NULL;
        if (used < sizeof lib->detail)
            used += (size_t)snprintf(lib->detail + used, sizeof lib->detail - used, " %s%s%s%s", names[i],
                                     why ? " (" : "", why ? why : "", why ? ")" : "");
    }
    if (used < sizeof lib->detail)
        used += (size_t)snprintf(lib->detail + used, sizeof lib->detail - used, found ? "" : ": not found");
    if ((found || env_hint) && used < sizeof lib->detail)
        snprintf(lib->detail + used, sizeof lib->detail - used, "; set %s to the library's path", env);
    return NULL;
}

/* dlsym through a union: ISO C has no cast from void* to a function pointer. */
static int gm__sym(void* h, const char* symbol, void* slot, gm__lib* lib, const char* what)
{
    union { void* obj; int (*fn)(void); } u;
    u.obj = dlsym(h, symbol);
    if (!u.obj) {
        snprintf(lib->detail, sizeof lib->detail, "%s: missing symbol %s", what, symbol);
        return 0;
    }
    memcpy(slot, &u.fn, sizeof u.fn);
    return 1;
}

static void gm__load_driver(void)
{
    static const char* const names[] = {"libcuda.so.1", 0};
    gm__lib* lib = &gm__cu_lib;
    void* h = gm__open_first(lib, "GM_CUDA_PATH", names, "CUDA driver", 0);
    int rc;
    if (!h) {
        lib->status = GM_ERR_NO_DRIVER;
        return;
    }
#define GM__RESOLVE(name, symbol, params)                                \
    if (!gm__sym(h, symbol, &gm__cu.name, lib, "CUDA driver")) {         \
        lib->status = GM_ERR_NO_DRIVER;                                  \
        return;                                                          \
    }
    GM__DRIVER_LIST(GM__RESOLVE)
#undef GM__RESOLVE
    {
        union { void* obj; gm__pfn_cuLaunchKernelEx fn; } u;
        u.obj = dlsym(h, "cuLaunchKernelEx");
        gm__cu.cuLaunchKernelEx = u.fn;
    }
    rc = gm__cu.cuInit(0);
    if (rc != 0) {
        const char* name = "?";
        gm__cu.cuGetErrorName(rc, &name);
        snprintf(lib->detail, sizeof lib->detail, "CUDA driver: cuInit failed: %s (%d)", name, rc);
        lib->status = rc == 100 /* CUDA_ERROR_NO_DEVICE */ ? GM_ERR_NO_DEVICE : GM_ERR_NO_DRIVER;
        return;
    }
    lib->status = GM_OK;
}

#ifndef GM_NO_NVRTC
static void gm__load_nvrtc(void)
{
    static const char* const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
                                        "/usr/local/cuda/lib64/libnvrtc.so", 0};
    gm__lib* lib = &gm__rtc_lib;
    void* h = gm__open_first(lib, "GM_NVRTC_PATH", names, "NVRTC", 1);
    if (!h) {
        lib->status = GM_ERR_NO_NVRTC;
        return;
    }
#define GM__RESOLVE(name, symbol, params)                          \
    if (!gm__sym(h, symbol, &gm__rtc.name, lib, "NVRTC")) {        \
        lib->status = GM_ERR_NO_NVRTC;                             \
        return;                                                    \
    }
    GM__NVRTC_LIST(GM__RESOLVE)
#undef GM__RESOLVE
    if (!gm__sym(h, "nvrtcGetErrorString", &gm__rtc.nvrtcGetErrorString, lib, "NVRTC")) {
        lib->status = GM_ERR_NO_NVRTC;
        return;
    }
    lib->status = GM_OK;
}

#endif

/* GM_OK once the driver is loaded and initialised; else the reason, recorded
 * as this thread's error with the caller's name. */
static gm_status gm__driver_ready(const char* fn)
{
    pthread_once(&gm__cu_lib.once, gm__load_driver);
    if (gm__cu_lib.status != GM_OK)
        return gm__fail(gm__cu_lib.status, "%s: %s", fn, gm__cu_lib.detail);
    return GM_OK;
}

#ifndef GM_NO_NVRTC
static gm_status gm__nvrtc_ready(const char* fn)
{
    pthread_once(&gm__rtc_lib.once, gm__load_nvrtc);
    if (gm__rtc_lib.status != GM_OK)
        return gm__fail(gm__rtc_lib.status, "%s: %s", fn, gm__rtc_lib.detail);
    return GM_OK;
}
#endif

/* A failed driver call as a status with the call's name and CUDA's error name. */
static gm_status gm__cuda_fail(const char* fn, const char* call, gm__CUresult rc)
{
    const char* name = "?";
    gm__cu.cuGetErrorName(rc, &name);
    return gm__fail(rc == 2 /* CUDA_ERROR_OUT_OF_MEMORY */ ? GM_ERR_NO_MEMORY : GM_ERR_CUDA, "%s: %s failed: %s (%d)",
                    fn, call, name, rc);
}
