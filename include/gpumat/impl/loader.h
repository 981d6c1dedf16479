/* SPDX-License-Identifier: MIT */
/* Implementation: the CUDA driver and NVRTC, opened with dlopen on first use.
 * The few types and entry points gpumat needs are declared here, so no CUDA
 * header or library is needed to build. */

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int gm__CUresult;
typedef int gm__CUdevice;
typedef void* gm__CUcontext;
typedef void* gm__CUmodule;
typedef void* gm__CUfunction;
typedef void* gm__CUevent;
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

/* Layouts of CUmemcpy3DOperand (a pointer operand; the array form is as
 * large) and CUDA_MEMCPY3D_BATCH_OP (cuda.h, CUDA 12.8+). */
typedef struct gm__memcpy_operand {
    int type; /* 1: CU_MEMCPY_OPERAND_TYPE_POINTER */
    gm__CUdeviceptr ptr;
    size_t row_length, layer_height; /* elements (bytes, between pointers); 0: packed */
    int hint_type, hint_id;          /* CUmemLocation: a hint for managed memory alone */
} gm__memcpy_operand;

typedef struct gm__memcpy_batch_op {
    gm__memcpy_operand src, dst;
    size_t width, height, depth; /* bytes, rows, layers */
    int src_access_order;        /* 1: CU_MEMCPY_SRC_ACCESS_ORDER_STREAM */
    unsigned int flags;
} gm__memcpy_batch_op;

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
    GM__CU_POINTER_BUFFER_ID = 7,
    GM__CU_POINTER_DEVICE_ORDINAL = 9,
    GM__CU_POINTER_RANGE_START = 11,
    GM__CU_POINTER_RANGE_SIZE = 12
};

/* name, symbol, need, return type, parameters: each becomes a typedef, a
 * table member and a dlsym (T: the table's type, for the last). An optional
 * entry the library lacks stays NULL (callers test it); a required one
 * missing refuses the whole library. */
#include "entry_points.h"

#define GM__TYPEDEF(T, name, symbol, need, ret, params) typedef ret(*gm__pfn_##name) params;
GM__DRIVER_LIST(GM__TYPEDEF, )
GM__NVRTC_LIST(GM__TYPEDEF, )
#undef GM__TYPEDEF

#define GM__MEMBER(T, name, symbol, need, ret, params) gm__pfn_##name name;
typedef struct gm__driver {
    GM__DRIVER_LIST(GM__MEMBER, )
} gm__driver;
#ifndef GM_NO_NVRTC
typedef struct gm__nvrtc {
    GM__NVRTC_LIST(GM__MEMBER, )
} gm__nvrtc;
#endif
#undef GM__MEMBER

/* One entry of a list, for the loop that resolves it: where its pointer goes. */
typedef struct gm__symbol {
    const char* symbol;
    size_t offset;
    int need;
} gm__symbol;

/* A library to open, and the outcome, decided once per process. */
typedef struct gm__lib {
    const char* what;          /* "CUDA driver": how messages name it */
    const char* env;           /* the variable that pins its path */
    const char* const* names;  /* the candidates, in order, NULL-ended */
    int env_hint;              /* suggest env even when nothing was found */
    gm_status missing;         /* the status when it does not open or lacks a symbol */
    void* table;               /* where the entry points go */
    const gm__symbol* symbols; /* the list, NULL-ended */
    gm_status (*init)(struct gm__lib* lib); /* run once the symbols resolve; NULL: none */
    void (*open)(void);        /* gm__open for this library, as pthread_once calls it */
    pthread_once_t once;
    gm_status status;
    char detail[512];
} gm__lib;

static void gm__open(gm__lib* lib);
static gm_status gm__driver_init(gm__lib* lib);

/* Declares library lib: its table gm__<lib> of type T filled from LIST, its
 * symbol list, its gm__lib gm__<lib>_lib (candidates gm__<lib>_names) and
 * the function pthread_once runs to open it. */
#define GM__SYMBOL(T, name, symbol, need, ret, params) {#symbol, offsetof(T, name), need},
#define GM__LIBRARY(lib, T, LIST, what, env, env_hint, missing, init)                                           \
    static T gm__##lib;                                                                                         \
    static void gm__open_##lib(void);                                                                           \
    static const gm__symbol gm__##lib##_symbols[] = {LIST(GM__SYMBOL, T){NULL, 0, 0}};                          \
    static gm__lib gm__##lib##_lib = {what, env, gm__##lib##_names, env_hint, missing, &gm__##lib,              \
                                      gm__##lib##_symbols, init, gm__open_##lib, PTHREAD_ONCE_INIT, GM_OK, ""}; \
    static void gm__open_##lib(void) { gm__open(&gm__##lib##_lib); }

/* A machine with no driver at all needs no advice on GM_CUDA_PATH. */
static const char* const gm__cu_names[] = {"libcuda.so.1", 0};
GM__LIBRARY(cu, gm__driver, GM__DRIVER_LIST, "CUDA driver", "GM_CUDA_PATH", 0, GM_ERR_NO_DRIVER, gm__driver_init)
#ifndef GM_NO_NVRTC
/* NVRTC often lives off the search path (a toolkit folder): suggest GM_NVRTC_PATH. */
static const char* const gm__rtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
                                            "/usr/local/cuda/lib64/libnvrtc.so", 0};
GM__LIBRARY(rtc, gm__nvrtc, GM__NVRTC_LIST, "NVRTC", "GM_NVRTC_PATH", 1, GM_ERR_NO_NVRTC, NULL)
#endif
#undef GM__LIBRARY
#undef GM__SYMBOL

/* dlopen the first of the library's names that opens; its environment
 * variable, when set, is the only candidate (so a deployment or a test can
 * pin or break it). The detail names every library tried; it suggests the
 * variable only where a library was found but did not load, or for what may
 * live off the search path (env_hint). */
static void* gm__open_first(gm__lib* lib)
{
    const char* pinned = getenv(lib->env);
    size_t used = 0;
    int i, found = 0;
    if (pinned && *pinned) {
        void* h = dlopen(pinned, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(lib->detail, sizeof lib->detail, "%s: tried %s=%s: %s", lib->what, lib->env, pinned, dlerror());
        return h;
    }
    used = (size_t)snprintf(lib->detail, sizeof lib->detail, "%s: tried", lib->what);
    for (i = 0; lib->names[i]; ++i) {
        void* h = dlopen(lib->names[i], RTLD_NOW | RTLD_LOCAL);
        const char* why;
        if (h)
            return h;
        why = dlerror();
        why = why && !strstr(why, "No such file") ? why : NULL; /* there, but it did not load: say why */
        found |= why != NULL;
        if (used < sizeof lib->detail)
            used += (size_t)snprintf(lib->detail + used, sizeof lib->detail - used, " %s%s%s%s", lib->names[i],
                                     why ? " (" : "", why ? why : "", why ? ")" : "");
    }
    if (used < sizeof lib->detail)
        used += (size_t)snprintf(lib->detail + used, sizeof lib->detail - used, found ? "" : ": not found");
    if ((found || lib->env_hint) && used < sizeof lib->detail)
        snprintf(lib->detail + used, sizeof lib->detail - used, "; set %s to the library's path", lib->env);
    return NULL;
}

/* Fills the library's table from h; 0 (with the detail) when a required
 * symbol is missing. dlsym's void* goes through a union: ISO C has no cast
 * from void* to a function pointer. */
static int gm__resolve(gm__lib* lib, void* h)
{
    const gm__symbol* e;
    for (e = lib->symbols; e->symbol; ++e) {
        union { void* obj; int (*fn)(void); } u;
        u.obj = dlsym(h, e->symbol);
        if (!u.obj && e->need == GM__REQUIRED) {
            snprintf(lib->detail, sizeof lib->detail, "%s: missing symbol %s", lib->what, e->symbol);
            return 0;
        }
        memcpy((char*)lib->table + e->offset, &u.fn, sizeof u.fn);
    }
    return 1;
}

static void gm__open(gm__lib* lib)
{
    void* h = gm__open_first(lib);
    if (!h || !gm__resolve(lib, h))
        lib->status = lib->missing;
    else
        lib->status = lib->init ? lib->init(lib) : GM_OK;
}

/* A driver that loads may still have no device, or a broken install. */
static gm_status gm__driver_init(gm__lib* lib)
{
    const char* name = "?";
    int rc = gm__cu.cuInit(0);
    if (rc == 0)
        return GM_OK;
    gm__cu.cuGetErrorName(rc, &name);
    snprintf(lib->detail, sizeof lib->detail, "%s: cuInit failed: %s (%d)", lib->what, name, rc);
    return rc == 100 /* CUDA_ERROR_NO_DEVICE */ ? GM_ERR_NO_DEVICE : GM_ERR_NO_DRIVER;
}

/* GM_OK once the library is loaded (and initialised); else the reason,
 * recorded as this thread's error with the caller's name. */
static gm_status gm__lib_ready(const char* fn, gm__lib* lib)
{
    pthread_once(&lib->once, lib->open);
    if (lib->status != GM_OK)
        return gm__fail(lib->status, "%s: %s", fn, lib->detail);
    return GM_OK;
}

static gm_status gm__driver_ready(const char* fn) { return gm__lib_ready(fn, &gm__cu_lib); }
#ifndef GM_NO_NVRTC
static gm_status gm__nvrtc_ready(const char* fn) { return gm__lib_ready(fn, &gm__rtc_lib); }
#endif

/* A failed driver call as a status with the call's name and CUDA's error name. */
static gm_status gm__cuda_fail(const char* fn, const char* call, gm__CUresult rc)
{
    const char* name = "?";
    gm__cu.cuGetErrorName(rc, &name);
    return gm__fail(rc == 2 /* CUDA_ERROR_OUT_OF_MEMORY */ ? GM_ERR_NO_MEMORY : GM_ERR_CUDA, "%s: %s failed: %s (%d)",
                    fn, call, name, rc);
}
