/* The kernel cache's bookkeeping of CUDA contexts (impl/functions.h), with
 * no GPU: the driver calls it makes are stand-ins over a table of pretend
 * contexts, so that contexts can be made, destroyed and made again at the
 * same address at will, each with its token (a byte of device memory) at an
 * address the next context there gets again, as the driver does. Checks
 * that an entry is found again, that a destroyed context's entry (its token
 * freed, or its token's address another buffer's) is taken over with its
 * functions cleared, that live contexts keep theirs (also when the token
 * query fails), that a failing attribute query adds nothing, that a
 * failing token allocation or query leaves a context cached without one,
 * and the same through the address key of drivers without cuCtxGetId, where
 * a context made at a destroyed one's address must not find its kernels,
 * nor a context whose token says nothing its own.
 * Run alone: make build/test_ctx_cache && build/test_ctx_cache */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

/* Pretend contexts: an address (a slot of this array), the id of the
 * context living there (0 when destroyed), the buffer id of its token (0:
 * none allocated, or freed with the context). */
static char addresses[8];
static unsigned long long live_id[8], next_id = 1, token_id[8], next_buffer = 100;
static int current, attribute_error, alloc_error, pointer_error;
static gm__CUcontext at(int slot) { return &addresses[slot]; }

static gm__CUcontext make_context(int slot)
{
    live_id[slot] = next_id++;
    return at(slot);
}

static void destroy(int slot) { live_id[slot] = token_id[slot] = 0; }

static int slot_of(gm__CUcontext ctx) { return (int)((char*)ctx - addresses); }

static int fake_get_id(gm__CUcontext ctx, unsigned long long* id)
{
    if (!live_id[slot_of(ctx)])
        return 709; /* CUDA_ERROR_CONTEXT_IS_DESTROYED */
    *id = live_id[slot_of(ctx)];
    return 0;
}

static int fake_api_version(gm__CUcontext ctx, unsigned int* version)
{
    *version = 3020;
    return live_id[slot_of(ctx)] ? 0 : 201; /* CUDA_ERROR_INVALID_CONTEXT */
}

static int fake_attribute(int* value, int attribute, gm__CUdevice dev)
{
    (void)dev;
    *value = attribute == GM__CU_ATTR_CC_MAJOR ? 9 : attribute == GM__CU_ATTR_CC_MINOR ? 0 : 132;
    return attribute_error;
}

static int fake_driver_version(int* v)
{
    *v = 13000;
    return 0;
}

/* A context's token lives at the same address in each context made at
 * that slot. */
static int fake_alloc(gm__CUdeviceptr* ptr, size_t size)
{
    (void)size;
    if (alloc_error)
        return alloc_error;
    token_id[current] = next_buffer++;
    *ptr = (gm__CUdeviceptr)(0x1000 * (current + 1));
    return 0;
}

static int fake_free(gm__CUdeviceptr ptr)
{
    token_id[ptr / 0x1000 - 1] = 0;
    return 0;
}

static int fake_pointer_attribute(void* data, int attribute, gm__CUdeviceptr ptr)
{
    size_t slot = ptr / 0x1000 - 1;
    if (pointer_error)
        return pointer_error;
    if (attribute != GM__CU_POINTER_BUFFER_ID || ptr % 0x1000 || slot >= 8 || !token_id[slot])
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    *(unsigned long long*)data = token_id[slot];
    return 0;
}

static int fake_error_name(gm__CUresult rc, const char** name)
{
    *name = rc == 999 ? "CUDA_ERROR_UNKNOWN" : "?";
    return 0;
}

static int entries(void)
{
    int n = 0;
    gm__ctx_cache* c;
    for (c = gm__caches; c; c = c->next)
        ++n;
    return n;
}

/* The entry gpumat keeps for the live context ctx, made current (NULL on
 * failure). */
static gm__ctx_cache* entry_of(gm__CUcontext ctx)
{
    gm__ctx_cache* c = NULL;
    uint64_t key = 0;
    unsigned long long made = 0;
    current = slot_of(ctx);
    CHECK(gm__ctx_key(ctx, &key) == 0 && key != 0, "context %d has no key", slot_of(ctx));
    if (gm__ctx_cache_for("test", key, 0, &c, &made) != GM_OK)
        return NULL;
    CHECK(made == c->made && made != 0, "context %d: its entry's making %llu, told %llu", slot_of(ctx), c->made,
          made);
    return c;
}

static void lifecycle(const char* how)
{
    gm__ctx_cache *a, *b, *again;
    gm__CUcontext first = make_context(0), second;
    gm__CUdeviceptr user_buffer;
    int nodes;
    a = entry_of(first);
    CHECK(a && a->arch == 90 && a->sms == 132 && a->driver == 13000, "%s: an entry for sm_90", how);
    CHECK(entry_of(first) == a, "%s: the same context finds its entry", how);
    a->fns[3] = (gm__CUfunction)&addresses[7]; /* as if kernel 3 were loaded */
    second = make_context(1);
    b = entry_of(second);
    CHECK(b && b != a, "%s: a second live context gets its own entry", how);
    CHECK(entry_of(first) == a && a->fns[3], "%s: the first keeps its entry and functions", how);
    pointer_error = 999; /* token queries fail: nothing is known, nothing freed */
    again = entry_of(make_context(2));
    CHECK(again && !again->token && !token_id[2], "%s: without its token's id a context is cached without a token",
          how);
    pointer_error = 0;
    CHECK(again && again != a && again != b && entry_of(first) == a && a->fns[3] && entry_of(second) == b,
          "%s: a failing token query frees no entry", how);
    destroy(2);
    nodes = entries();
    destroy(0);
    again = entry_of(make_context(3));
    CHECK(again && again != b && entries() == nodes && !again->fns[3] && (again == a || !a->key),
          "%s: a destroyed context's entry is freed and one taken over, functions cleared (%d entries, %d before)",
          how, entries(), nodes);
    CHECK(entry_of(second) == b && entries() == nodes, "%s: the live context keeps its entry", how);

    /* made again at a destroyed one's address, its token at the old one's */
    b->fns[3] = (gm__CUfunction)&addresses[7];
    destroy(1);
    make_context(1);
    current = 1;
    fake_alloc(&user_buffer, 64); /* the new context's first allocation, where the old token was */
    again = entry_of(at(1));
    CHECK(again && !again->fns[3] && entries() == nodes,
          "%s: a context at a destroyed one's address finds no kernels of it (%d entries, %d before)", how, entries(),
          nodes);

    /* its own token's query failing: only the driver's id still tells the entry is its */
    again->fns[3] = (gm__CUfunction)&addresses[7];
    pointer_error = 999;
    b = entry_of(at(1));
    pointer_error = 0;
    CHECK(b && (gm__cu.cuCtxGetId ? b == again && b->fns[3] : !b->fns[3]),
          "%s: an entry whose token says nothing is %s", how, gm__cu.cuCtxGetId ? "kept" : "not trusted");
    for (nodes = 0; nodes < 8; ++nodes)
        destroy(nodes);
}

int main(void)
{
    memset(&gm__cu, 0, sizeof gm__cu);
    gm__cu.cuCtxGetId = fake_get_id;
    gm__cu.cuCtxGetApiVersion = fake_api_version;
    gm__cu.cuDeviceGetAttribute = fake_attribute;
    gm__cu.cuDriverGetVersion = fake_driver_version;
    gm__cu.cuMemAlloc = fake_alloc;
    gm__cu.cuMemFree = fake_free;
    gm__cu.cuPointerGetAttribute = fake_pointer_attribute;
    gm__cu.cuGetErrorName = fake_error_name;

    lifecycle("cuCtxGetId");
    CHECK(entries() <= 3, "entries are taken over, not added: %d", entries());

    /* the attribute queries fail: an error naming them, no entry */
    {
        int n = entries();
        gm__ctx_cache* out = NULL;
        uint64_t key;
        unsigned long long made;
        gm_status s;
        attribute_error = 999;
        current = 4;
        gm__ctx_key(make_context(4), &key);
        s = gm__ctx_cache_for("test", key, 0, &out, &made);
        CHECK(s == GM_ERR_CUDA && strstr(gm_last_error(), "cuDeviceGetAttribute") && entries() == n && !token_id[4],
              "a failing cuDeviceGetAttribute: %s, %d entries, token %llu", gm_last_error(), entries(), token_id[4]);
        attribute_error = 0;
        /* the token's allocation fails (a full GPU): cached without one */
        alloc_error = 2;
        out = entry_of(at(4));
        CHECK(out && !out->token, "a failing cuMemAlloc: an entry without a token");
        alloc_error = 0;
        destroy(4);
    }

    /* drivers without cuCtxGetId: the address is the key */
    gm__cu.cuCtxGetId = NULL;
    lifecycle("address");
    return t_summary("ctx_cache");
}
