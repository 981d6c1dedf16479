/* The driver fails (issue 16): every operation family (tests/every_op.h)
 * runs with each driver call it makes failing once, through the test driver
 * tests/fault_cuda.c (GM_CUDA_PATH), each try in a new context so that
 * kernel loads are among the calls. A failed call must return a status
 * whose message names the failing entry point (or, where gpumat can do
 * without the call, succeed with the right result); nothing it allocated
 * may stay allocated; and the same operation run again must succeed with
 * the CPU path's result. Prints SKIP without a GPU.
 * Usage: build/test_faults build/libfault_cuda.so */
#define _GNU_SOURCE /* dlopen, setenv */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"
#include "every_op.h"

#include <dlfcn.h>

static struct {
    int (*entries)(void);
    const char* (*symbol)(int);
    const char* (*name)(int);
    long (*calls)(int, int);
    int (*arm)(const char*, long, int);
    int (*pending)(void);
} fault;

/* The real driver's, which the test calls around gpumat (not counted). */
static int (*device_get)(gm__CUdevice*, int);
static int (*ctx_create)(gm__CUcontext*, unsigned, gm__CUdevice);
static int (*ctx_destroy)(gm__CUcontext);
static int (*ctx_get_id)(gm__CUcontext, unsigned long long*); /* NULL before CUDA 12.0 */
static int (*pointer_attribute)(void*, int, gm__CUdeviceptr);

#define LOAD(h, to, symbol) (*(void**)&(to) = dlsym((h), (symbol))) != NULL

static int open_control(const char* path)
{
    void* h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
    return h && cuda && LOAD(h, fault.entries, "gm_fault_entries") && LOAD(h, fault.symbol, "gm_fault_symbol") &&
           LOAD(h, fault.name, "gm_fault_name") && LOAD(h, fault.calls, "gm_fault_calls") &&
           LOAD(h, fault.arm, "gm_fault_arm") &&
           LOAD(h, fault.pending, "gm_fault_pending") && LOAD(cuda, device_get, "cuDeviceGet") &&
           LOAD(cuda, ctx_create, "cuCtxCreate_v2") &&
           LOAD(cuda, ctx_destroy, "cuCtxDestroy_v2") &&
           LOAD(cuda, pointer_attribute, "cuPointerGetAttribute") && (LOAD(cuda, ctx_get_id, "cuCtxGetId") || 1);
}

/* The error a failing call gets: what the driver would say. */
static int error_for(const char* name)
{
    if (!strcmp(name, "cuMemAlloc") || !strcmp(name, "cuMemHostAlloc"))
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    if (!strcmp(name, "cuModuleLoadData"))
        return 200; /* CUDA_ERROR_INVALID_IMAGE */
    if (!strncmp(name, "cuLaunchKernel", 14))
        return 701; /* CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES */
    return 999;     /* CUDA_ERROR_UNKNOWN */
}

/* Allocations the driver holds for gpumat, by kind: made minus released. */
static const char* const held_pairs[][2] = {
    {"cuMemAlloc_v2", "cuMemFree_v2"}, {"cuMemHostAlloc", "cuMemFreeHost"}, {"cuEventCreate", "cuEventDestroy_v2"}};
enum { PAIRS = 3 };

static int entry(const char* symbol)
{
    int e;
    for (e = 0; e < fault.entries(); ++e)
        if (!strcmp(fault.symbol(e), symbol))
            return e;
    return -1;
}

/* The contexts in which gpumat made a kernel cache entry, and so allocated
 * the byte of device memory that tells it the context is gone
 * (impl/functions.h); the context's destruction frees that. */
static long tokens;

static void held(long* out)
{
    int p;
    for (p = 0; p < PAIRS; ++p)
        out[p] = fault.calls(entry(held_pairs[p][0]), 1) - fault.calls(entry(held_pairs[p][1]), 1);
    out[0] -= tokens;
}

static int releases(const char* symbol)
{
    int p;
    for (p = 0; p < PAIRS; ++p)
        if (!strcmp(symbol, held_pairs[p][1]))
            return 1;
    return !strcmp(symbol, "cuModuleUnload");
}

/* Whether gpumat holds a token in the live context ctx: an entry for it
 * (the key as gm__ctx_key makes it; without cuCtxGetId an address is a
 * destroyed context's too, until the token's id says otherwise) with a
 * token, asked of the real driver so that no armed fault is spent here. */
static int holds_token(gm__CUcontext ctx)
{
    unsigned long long id = 0;
    gm__ctx_cache* c = !ctx_get_id ? gm__find_cache((uintptr_t)ctx)
                       : ctx_get_id(ctx, &id) == 0 ? gm__find_cache(id + 1)
                                                   : NULL;
    return c && c->token &&
           (ctx_get_id || (pointer_attribute(&id, GM__CU_POINTER_BUFFER_ID, c->token) == 0 && id == c->token_id));
}

/* Operation i in a new context. */
static gm_status in_new_context(int i, unsigned char** bytes, size_t* size)
{
    gm__CUcontext ctx;
    gm__CUdevice dev = 0;
    int rc;
    gm_status s;
    if ((rc = device_get(&dev, 0)) != 0 || (rc = ctx_create(&ctx, 0, dev)) != 0)
        return gm__fail(GM_ERR_CUDA, "test_faults: making a context failed: %d", rc);
    s = op_run_one(i, GM_DEVICE, NULL, bytes, size);
    tokens += holds_token(ctx);
    ctx_destroy(ctx);
    return s;
}

static int equal(const unsigned char* a, size_t na, const unsigned char* b, size_t nb)
{
    return na == nb && !memcmp(a, b, na);
}

/* Operation i with each driver call it makes failing once; returns the
 * failures tried. */
static int each_fault(int i, const unsigned char* expect, size_t expect_size)
{
    long before[64], counts[64], held0[PAIRS], held1[PAIRS];
    unsigned char* bytes = NULL;
    size_t size = 0;
    int e, tried = 0, n = fault.entries(), p;
    long k;
    gm_status s;
    char message[GM_ERROR_SIZE];
    for (e = 0; e < n; ++e)
        before[e] = fault.calls(e, 0);
    s = in_new_context(i, &bytes, &size);
    CHECK(s == GM_OK && equal(bytes, size, expect, expect_size), "%s: without a fault: %s", every_op[i].name,
          s == GM_OK ? "differs from the CPU path" : gm_last_error());
    for (e = 0; e < n; ++e)
        counts[e] = fault.calls(e, 0) - before[e];
    for (e = 0; e < n; ++e)
        for (k = 1; k <= counts[e]; ++k, ++tried) {
            const char* name = fault.name(e);
            held(held0);
            fault.arm(fault.symbol(e), k, error_for(name));
            s = in_new_context(i, &bytes, &size);
            snprintf(message, sizeof message, "%s", gm_last_error());
            if (fault.pending()) {
                fault.arm(NULL, 0, 0);
                CHECK(0, "%s: call %ld of %s never came (the calls differ from run to run)", every_op[i].name, k,
                      fault.symbol(e));
                continue;
            }
            if (s != GM_OK)
                CHECK(strstr(message, name) != NULL, "%s, call %ld of %s failing: the message does not name it: %s",
                      every_op[i].name, k, fault.symbol(e), message);
            else
                CHECK(equal(bytes, size, expect, expect_size), "%s, call %ld of %s failing: succeeded, but differs",
                      every_op[i].name, k, fault.symbol(e));
            s = in_new_context(i, &bytes, &size);
            CHECK(s == GM_OK && equal(bytes, size, expect, expect_size), "%s, after call %ld of %s failed: %s",
                  every_op[i].name, k, fault.symbol(e), s == GM_OK ? "differs from the CPU path" : gm_last_error());
            held(held1);
            for (p = 0; p < PAIRS && !releases(fault.symbol(e)); ++p)
                CHECK(held1[p] == held0[p], "%s, call %ld of %s failing: %ld more %s than %s", every_op[i].name, k,
                      fault.symbol(e), held1[p] - held0[p], held_pairs[p][0], held_pairs[p][1]);
        }
    free(bytes);
    return tried;
}

int main(int argc, char** argv)
{
    unsigned char* expect = NULL;
    size_t expect_size = 0;
    int i, tried = 0;
    char name[256] = "";
    gm_status s;
    if (argc != 2 && argc != 3) { /* an operation's name: that one alone */
        fprintf(stderr, "usage: %s build/libfault_cuda.so [OPERATION]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("GM_CUDA_PATH", argv[1], 1);
    if ((s = gm_device(NULL, NULL, name, sizeof name)) != GM_OK) {
        SKIP("driver faults: %s (%s)", gm_status_string(s), gm_last_error());
        return t_summary("faults");
    }
    if (!open_control(argv[1]) || fault.entries() > 64) {
        CHECK(0, "%s is not the test driver, or libcuda.so.1 lacks cuCtxCreate_v2", argv[1]);
        return t_summary("faults");
    }
    t_seed_from_env("faults");
    CHECK(op_init(61, 37, 1), "no memory for two 61x37 frames");
    for (i = 0; i < OPS; ++i) {
        int n;
        if (argc == 3 && strcmp(argv[2], every_op[i].name))
            continue;
        if ((s = op_run_one(i, GM_HOST, NULL, &expect, &expect_size)) != GM_OK) {
            CHECK(0, "%s on the CPU path: %s", every_op[i].name, gm_last_error());
            continue;
        }
        n = each_fault(i, expect, expect_size);
        printf("faults: %s: %d driver calls failed in turn\n", every_op[i].name, n);
        tried += n;
    }
    CHECK(argc == 2 || tried > 0, "no operation is named %s, or it makes no driver call", argc == 3 ? argv[2] : "");
    printf("faults: %s, %d failures tried\n", name, tried);
    free(expect);
    op_done();
    return t_summary("faults");
}
