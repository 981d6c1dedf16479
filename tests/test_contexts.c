/* CUDA contexts come and go under gpumat (issue 16): GM_TEST_CYCLES (default
 * 1000) cycles of a context created, used by every operation family and
 * destroyed, then as many of device 0's primary context reset between uses
 * (tests/every_op.h).
 * Each use compares every result with the CPU path's; the kernel cache stays
 * one entry per live context (a destroyed context's entry is taken over), and
 * the heap and the device's free memory stay flat. Prints SKIP without a GPU.
 * A cycle takes about 0.4 s on an H100, most of it the driver's (making a
 * context, or the primary context again after a reset).
 * Run alone: make build/test_contexts && build/test_contexts [created|reset]
 * [release] (one kind only; release: gm_release_context before each end, so
 * that compute-sanitizer --leak-check full finds nothing left). Under compute-sanitizer, pass --report-api-errors no:
 * gpumat asks the driver whether a context is destroyed (the current one
 * after a reset; another through a byte of device memory it holds there),
 * and the driver's "destroyed" and "invalid value" answers count as API
 * errors. */
#define _GNU_SOURCE /* dlopen, mallinfo2 */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"
#include "every_op.h"

#include <dlfcn.h>
#include <malloc.h>

/* The driver calls that make and end contexts, which gpumat never makes. */
static struct {
    int (*ctx_create)(gm__CUcontext*, unsigned, gm__CUdevice);
    int (*ctx_destroy)(gm__CUcontext);
    int (*primary_reset)(gm__CUdevice);
    int (*mem_get_info)(size_t*, size_t*);
} drv;

static int open_driver(void)
{
    const char* path = getenv("GM_CUDA_PATH");
    void* h = dlopen(path ? path : "libcuda.so.1", RTLD_NOW);
    if (!h)
        return 0;
    *(void**)&drv.ctx_create = dlsym(h, "cuCtxCreate_v2");
    *(void**)&drv.ctx_destroy = dlsym(h, "cuCtxDestroy_v2");
    *(void**)&drv.primary_reset = dlsym(h, "cuDevicePrimaryCtxReset_v2");
    *(void**)&drv.mem_get_info = dlsym(h, "cuMemGetInfo_v2");
    return drv.ctx_create && drv.ctx_destroy && drv.primary_reset && drv.mem_get_info;
}

/* Every operation's result, downloaded to the host. */
typedef struct results {
    unsigned char* bytes[OPS];
    size_t size[OPS];
} results;

/* Runs every operation on images in where, into r; returns the operations
 * that failed (each reported). */
static int use(gm_where where, results* r)
{
    int failed = 0, i;
    for (i = 0; i < OPS; ++i)
        if (op_run_one(i, where, NULL, &r->bytes[i], &r->size[i]) != GM_OK) {
            ++failed;
            CHECK(0, "%s on %s: %s", every_op[i].name, where == GM_HOST ? "host" : "device", gm_last_error());
        }
    return failed;
}

/* The uses equal to the CPU path's results; reports the first difference. */
static int same(const results* cpu, const results* gpu, const char* what, int cycle)
{
    int i;
    for (i = 0; i < OPS; ++i)
        if (gpu->size[i] != cpu->size[i] || memcmp(gpu->bytes[i], cpu->bytes[i], cpu->size[i])) {
            CHECK(0, "%s, cycle %d: %s differs from the CPU path's", what, cycle, every_op[i].name);
            return 0;
        }
    return 1;
}

static int cache_entries(void)
{
    int n = 0;
    gm__ctx_cache* c;
    for (c = gm__caches; c; c = c->next)
        n += c->key != 0;
    return n;
}

static int release; /* gm_release_context before a context ends */

/* With release, gm_release_context, which must leave no entry and free
 * the entry's token (the driver no longer knows its address). */
static void maybe_release(const char* what, int cycle)
{
    gm__ctx_cache* c;
    gm__CUdeviceptr token = 0;
    unsigned long long id;
    gm_status s;
    if (!release)
        return;
    for (c = gm__caches; c; c = c->next)
        if (c->key)
            token = c->token;
    s = gm_release_context();
    CHECK(s == GM_OK && cache_entries() == 0 && token &&
              gm__cu.cuPointerGetAttribute(&id, GM__CU_POINTER_BUFFER_ID, token) == 1,
          "%s, cycle %d: gm_release_context: %s, %d entries left, token %s", what, cycle,
          s == GM_OK ? "ok" : gm_last_error(), cache_entries(), token ? "not freed" : "none");
}

static size_t heap_in_use(void) { return mallinfo2().uordblks; }

static size_t device_free(void)
{
    size_t free_bytes = 0, total = 0;
    drv.mem_get_info(&free_bytes, &total);
    return free_bytes;
}

/* cycles of a context created, used and destroyed. */
static void created_contexts(const results* cpu, results* gpu, int cycles)
{
    gm__CUdevice dev;
    size_t heap0 = 0;
    int cycle, good = 0, most_entries = 0, rc;
    gm__cu.cuDeviceGet(&dev, 0);
    for (cycle = 0; cycle < cycles; ++cycle) {
        gm__CUcontext ctx;
        if ((rc = drv.ctx_create(&ctx, 0, dev)) != 0) {
            CHECK(0, "cuCtxCreate, cycle %d: %d", cycle, rc);
            return;
        }
        good += use(GM_DEVICE, gpu) == 0 && same(cpu, gpu, "created context", cycle);
        if (cache_entries() > most_entries)
            most_entries = cache_entries();
        maybe_release("created context", cycle);
        drv.ctx_destroy(ctx);
        if (cycle == 9)
            heap0 = heap_in_use();
        if (good <= cycle - 3)
            break; /* one failure says it all; thousands say nothing more */
    }
    printf("contexts: created: %d of %d cycles matched; at most %d cache entries; heap %zu bytes after cycle 10, "
           "%zu at the end\n", good, cycles, most_entries, heap0, heap_in_use());
    CHECK(good == cycles, "created contexts: %d of %d cycles matched the CPU path", good, cycles);
    /* the cycle's own: the context before it is destroyed, its entry taken over */
    CHECK(most_entries == 1, "created contexts: the kernel cache held %d entries at once", most_entries);
    CHECK(!heap0 || heap_in_use() <= heap0 + (1 << 20), "created contexts: the heap grew from %zu to %zu bytes",
          heap0, heap_in_use());
}

/* cycles of device 0's primary context reset between uses. */
static void reset_primary(const results* cpu, results* gpu, int cycles)
{
    size_t heap0 = 0, free0 = 0;
    gm__CUdevice dev = 0;
    int cycle, good = 0, most_entries = 0, rc;
    gm__cu.cuDeviceGet(&dev, 0);
    for (cycle = 0; cycle < cycles; ++cycle) {
        good += use(GM_DEVICE, gpu) == 0 && same(cpu, gpu, "primary context reset", cycle);
        if (cache_entries() > most_entries)
            most_entries = cache_entries();
        if (cycle == 9) {
            heap0 = heap_in_use();
            free0 = device_free();
        }
        maybe_release("primary context reset", cycle);
        if ((rc = drv.primary_reset(dev)) != 0) {
            CHECK(0, "cuDevicePrimaryCtxReset, cycle %d: %d", cycle, rc);
            return;
        }
        if (good <= cycle - 3)
            break;
    }
    use(GM_DEVICE, gpu); /* a live context, in which the driver tells the free memory */
    printf("contexts: reset: %d of %d cycles matched; at most %d cache entries; heap %zu bytes after cycle 10, "
           "%zu at the end; device memory free %zu after cycle 10, %zu at the end\n", good, cycles, most_entries, heap0,
           heap_in_use(), free0, device_free());
    CHECK(good == cycles, "primary context reset: %d of %d cycles matched the CPU path", good, cycles);
    CHECK(most_entries == 1, "primary context reset: the kernel cache held %d entries at once", most_entries);
    CHECK(!heap0 || heap_in_use() <= heap0 + (1 << 20), "primary context reset: the heap grew from %zu to %zu bytes",
          heap0, heap_in_use());
    CHECK(!free0 || device_free() + (4 << 20) >= free0,
          "primary context reset: the device's free memory fell from %zu to %zu bytes", free0, device_free());
    maybe_release("after the resets", cycles);
}

int main(int argc, char** argv)
{
    const char* only = argc > 1 && strcmp(argv[1], "release") ? argv[1] : "";
    const char* env = getenv("GM_TEST_CYCLES");
    int cycles = env ? atoi(env) : 1000, i;
    results cpu, gpu;
    char name[256] = "";
    gm_status s = gm_device(NULL, NULL, name, sizeof name);
    if (s != GM_OK) {
        SKIP("context lifecycle: %s (%s)", gm_status_string(s), gm_last_error());
        return t_summary("contexts");
    }
    if (!open_driver()) {
        CHECK(0, "the driver has no cuCtxCreate_v2, cuCtxDestroy_v2, cuDevicePrimaryCtxReset_v2 or cuMemGetInfo_v2");
        return t_summary("contexts");
    }
    for (i = 1; i < argc; ++i)
        release |= !strcmp(argv[i], "release");
    t_seed_from_env("contexts");
    CHECK(op_init(61, 37, 1), "no memory for two 61x37 frames");
    memset(&cpu, 0, sizeof cpu);
    memset(&gpu, 0, sizeof gpu);
    CHECK(use(GM_HOST, &cpu) == 0, "the CPU path's results");
    printf("contexts: %s, %d cycles of each kind, cuCtxGetId %s%s\n", name, cycles,
           gm__cu.cuCtxGetId ? "present" : "absent (contexts known by address)",
           release ? ", gm_release_context before each end" : "");
    if (strcmp(only, "reset"))
        created_contexts(&cpu, &gpu, cycles);
    if (strcmp(only, "created"))
        reset_primary(&cpu, &gpu, cycles);
    for (i = 0; i < OPS; ++i) {
        free(cpu.bytes[i]);
        free(gpu.bytes[i]);
    }
    op_done();
    return t_summary("contexts");
}
