/* A CUDA driver for tests (GM_CUDA_PATH=build/libfault_cuda.so): each entry
 * point gpumat opens (impl/entry_points.h, so none is missed) forwards to the
 * real driver (GM_FAULT_REAL_CUDA, else libcuda.so.1) and is counted, and
 * gm_fault_arm makes one chosen call fail once with a chosen error without
 * reaching the driver. Without a real driver every call fails with
 * CUDA_ERROR_NO_DEVICE, and so does an optional entry point the real
 * driver lacks (gpumat sees this library's, so it would not fall back):
 * use a driver that has them all (CUDA 13's).
 *
 * The forwarders take eleven words and pass them on: every parameter of the
 * list is an integer or a pointer (no floating point, no structure by
 * value), which x86-64 and AArch64 pass in the same registers and stack
 * slots whatever the prototype; eleven is the most any entry point has
 * (cuLaunchKernel). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpumat/impl/entry_points.h"

#define FAULT_NO_DEVICE 100 /* CUDA_ERROR_NO_DEVICE */

typedef long w;
typedef int (*forward_fn)(w, w, w, w, w, w, w, w, w, w, w);

#define FAULT_ENUM(T, name, symbol, need, ret, params) E_##symbol,
enum { GM__DRIVER_LIST(FAULT_ENUM, ) ENTRIES };
#define FAULT_NAME(T, name, symbol, need, ret, params) {#name, #symbol},
static const struct {
    const char *name, *symbol;
} entries[ENTRIES] = {GM__DRIVER_LIST(FAULT_NAME, )};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static forward_fn real[ENTRIES];
static long calls[ENTRIES], succeeded[ENTRIES];
static int armed = -1, armed_error;
static long armed_countdown;

static void open_real(void)
{
    const char* path = getenv("GM_FAULT_REAL_CUDA");
    void* h = dlopen(path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int e;
    for (e = 0; h && e < ENTRIES; ++e) {
        void* f = dlsym(h, entries[e].symbol);
        memcpy(&real[e], &f, sizeof f);
    }
}

/* Entry point e is called: the error to fail it with, else 0. */
static int intercept(int e)
{
    int error = 0;
    pthread_once(&once, open_real);
    pthread_mutex_lock(&lock);
    ++calls[e];
    if (armed == e && --armed_countdown == 0) {
        error = armed_error;
        armed = -1;
    }
    pthread_mutex_unlock(&lock);
    return error ? error : real[e] ? 0 : FAULT_NO_DEVICE;
}

static int forwarded(int e, int rc)
{
    if (rc == 0) {
        pthread_mutex_lock(&lock);
        ++succeeded[e];
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

#define FAULT_FORWARD(T, name, symbol, need, ret, params)                                          \
    int symbol(w a, w b, w c, w d, w e, w f, w g, w h, w i, w j, w k);                             \
    int symbol(w a, w b, w c, w d, w e, w f, w g, w h, w i, w j, w k)                              \
    {                                                                                              \
        int error = intercept(E_##symbol);                                                         \
        return error ? error : forwarded(E_##symbol, real[E_##symbol](a, b, c, d, e, f, g, h, i, j, k)); \
    }
GM__DRIVER_LIST(FAULT_FORWARD, )

static int entry_of(const char* symbol)
{
    int e;
    for (e = 0; e < ENTRIES; ++e)
        if (!strcmp(entries[e].symbol, symbol))
            return e;
    return -1;
}

/* The control the tests dlsym. */
int gm_fault_entries(void);
const char* gm_fault_symbol(int e);
const char* gm_fault_name(int e);
long gm_fault_calls(int e, int ok);
int gm_fault_arm(const char* symbol, long nth, int error);
int gm_fault_pending(void);

/* Entry points, and each one's symbol and name in gpumat's table (the name
 * gpumat's messages give: cuMemAlloc for cuMemAlloc_v2). */
int gm_fault_entries(void) { return ENTRIES; }
const char* gm_fault_symbol(int e) { return e >= 0 && e < ENTRIES ? entries[e].symbol : NULL; }
const char* gm_fault_name(int e) { return e >= 0 && e < ENTRIES ? entries[e].name : NULL; }

/* Calls of entry point e so far (-1: no such entry point); ok: only those
 * the driver answered with 0. */
long gm_fault_calls(int e, int ok)
{
    long n;
    pthread_mutex_lock(&lock);
    n = e < 0 || e >= ENTRIES ? -1 : ok ? succeeded[e] : calls[e];
    pthread_mutex_unlock(&lock);
    return n;
}

/* The nth call from now (1: the next) of symbol fails with error, once;
 * symbol NULL disarms. Returns 0, or -1 for a symbol gpumat does not open. */
int gm_fault_arm(const char* symbol, long nth, int error)
{
    int e = symbol ? entry_of(symbol) : -1;
    if (symbol && (e < 0 || nth < 1))
        return -1;
    pthread_mutex_lock(&lock);
    armed = e;
    armed_countdown = nth;
    armed_error = error;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* Whether the armed failure has not happened yet. */
int gm_fault_pending(void)
{
    int pending;
    pthread_mutex_lock(&lock);
    pending = armed >= 0;
    pthread_mutex_unlock(&lock);
    return pending;
}
