/* The kernel cache's bookkeeping of CUDA contexts (impl/functions.h), with
 * no GPU: the driver calls it makes are stand-ins over a table of pretend
 * contexts, so that contexts can be made, destroyed and made again at the
 * same address at will. Checks that an entry is found again, that a
 * destroyed context's entry (gone, or its address now another context's) is
 * taken over with its functions cleared, that live contexts keep theirs,
 * that a failing attribute query adds nothing, and the same through the
 * address key of drivers without cuCtxGetId.
 * Run alone: make build/test_ctx_cache && build/test_ctx_cache */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

/* Pretend contexts: an address (a slot of this array) and the id of the
 * context living there, 0 when it was destroyed. */
static char addresses[8];
static unsigned long long live_id[8], next_id = 1;
static int attribute_error;

static gm__CUcontext at(int slot) { return &addresses[slot]; }

static gm__CUcontext make_context(int slot)
{
    live_id[slot] = next_id++;
    return at(slot);
}

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

/* The entry gpumat keeps for the live context ctx (NULL on failure). */
static gm__ctx_cache* entry_of(gm__CUcontext ctx)
{
    gm__ctx_cache* c = NULL;
    uint64_t key = 0;
    CHECK(gm__ctx_key(ctx, &key) == 0 && key != 0, "context %d has no key", slot_of(ctx));
    return gm__ctx_cache_for("test", ctx, key, 0, &c) == GM_OK ? c : NULL;
}

static void lifecycle(const char* how)
{
    gm__ctx_cache *a, *b, *again;
    gm__CUcontext first = make_context(0), second;
    int nodes;
    a = entry_of(first);
    CHECK(a && a->arch == 90 && a->sms == 132 && a->driver == 13000, "%s: an entry for sm_90", how);
    CHECK(entry_of(first) == a, "%s: the same context finds its entry", how);
    a->fns[3] = (gm__CUfunction)&addresses[7]; /* as if kernel 3 were loaded */
    second = make_context(1);
    b = entry_of(second);
    CHECK(b && b != a, "%s: a second live context gets its own entry", how);
    CHECK(entry_of(first) == a && a->fns[3], "%s: the first keeps its entry and functions", how);
    nodes = entries();
    live_id[0] = 0; /* destroyed */
    again = entry_of(make_context(2));
    CHECK(again && again != b && entries() == nodes && !again->fns[3] && (again == a || !a->key),
          "%s: a destroyed context's entry is freed and one taken over, functions cleared (%d entries, %d before)",
          how, entries(), nodes);
    CHECK(entry_of(second) == b && entries() == nodes, "%s: the live context keeps its entry", how);
    live_id[2] = 0;
    live_id[1] = 0;
}

int main(void)
{
    gm__ctx_cache *c, *before;
    gm__CUcontext reused;
    memset(&gm__cu, 0, sizeof gm__cu);
    gm__cu.cuCtxGetId = fake_get_id;
    gm__cu.cuCtxGetApiVersion = fake_api_version;
    gm__cu.cuDeviceGetAttribute = fake_attribute;
    gm__cu.cuDriverGetVersion = fake_driver_version;
    gm__cu.cuGetErrorName = fake_error_name;

    lifecycle("cuCtxGetId");

    /* a context made again at a destroyed one's address: a new id */
    before = entry_of(make_context(3));
    live_id[3] = 0;
    reused = make_context(3);
    c = entry_of(reused);
    CHECK(c != NULL && c->key == live_id[3] + 1 && (c == before || !before->key), "a context at a destroyed one's address has its own "
          "key, and the old entry is freed");
    CHECK(entries() <= 2, "entries are taken over, not added: %d", entries());

    /* the attribute queries fail: an error naming them, no entry */
    {
        int n = entries();
        gm__ctx_cache* out = NULL;
        uint64_t key;
        gm_status s;
        attribute_error = 999;
        gm__ctx_key(make_context(4), &key);
        s = gm__ctx_cache_for("test", at(4), key, 0, &out);
        CHECK(s == GM_ERR_CUDA && strstr(gm_last_error(), "cuDeviceGetAttribute") && entries() == n,
              "a failing cuDeviceGetAttribute: %s, %d entries", gm_last_error(), entries());
        attribute_error = 0;
        live_id[4] = 0;
    }

    /* drivers without cuCtxGetId: the address is the key */
    live_id[3] = 0;
    gm__cu.cuCtxGetId = NULL;
    lifecycle("address");
    return t_summary("ctx_cache");
}
