/* Many threads at once on the GPU (issue 16): 16 threads, each with its own
 * stream, run every operation family (tests/every_op.h) ROUNDS times, each
 * thread starting at another family so that first uses (compiles, loads)
 * race; every result must equal the CPU path's. Prints SKIP without a GPU.
 * Run alone: make build/test_streams && build/test_streams */
#define _GNU_SOURCE /* dlopen */
#include "gpumat.h"
#include "check.h"
#include "every_op.h"

#include <dlfcn.h>
#include <pthread.h>

enum { THREADS = 16, ROUNDS = 8 };

static unsigned char* expect[OPS];
static size_t expect_size[OPS];

/* One thread's stream and what it saw; checked on the main thread (the
 * counters of check.h are not for threads). */
typedef struct worker {
    int index;
    gm_stream stream;
    int runs, wrong, failed;
    char first_error[512];
} worker;

static void* work(void* arg)
{
    worker* w = (worker*)arg;
    unsigned char* bytes = NULL;
    size_t size = 0;
    int round, k;
    for (round = 0; round < ROUNDS; ++round)
        for (k = 0; k < OPS; ++k) {
            int i = (k + w->index) % OPS;
            gm_status s = op_run_one(i, GM_DEVICE, w->stream, &bytes, &size);
            ++w->runs;
            if (s != GM_OK) {
                if (!w->failed++)
                    snprintf(w->first_error, sizeof w->first_error, "%s: %.400s", every_op[i].name, gm_last_error());
            } else if (size != expect_size[i] || memcmp(bytes, expect[i], size)) {
                if (!w->wrong++ && !w->failed)
                    snprintf(w->first_error, sizeof w->first_error, "%s differs from the CPU path", every_op[i].name);
            }
        }
    free(bytes);
    return NULL;
}

int main(void)
{
    int (*stream_create)(gm_stream*, unsigned) = NULL;
    int (*stream_destroy)(gm_stream) = NULL;
    void* cuda;
    worker workers[THREADS];
    pthread_t threads[THREADS];
    int i, started = 0;
    char name[256] = "";
    gm_status s = gm_device(NULL, NULL, name, sizeof name);
    if (s != GM_OK) {
        SKIP("threads and streams: %s (%s)", gm_status_string(s), gm_last_error());
        return t_summary("streams");
    }
    cuda = dlopen(getenv("GM_CUDA_PATH") ? getenv("GM_CUDA_PATH") : "libcuda.so.1", RTLD_NOW);
    if (!cuda || !(*(void**)&stream_create = dlsym(cuda, "cuStreamCreate")) ||
        !(*(void**)&stream_destroy = dlsym(cuda, "cuStreamDestroy_v2"))) {
        CHECK(0, "the driver has no cuStreamCreate or cuStreamDestroy_v2");
        return t_summary("streams");
    }
    t_seed_from_env("streams");
    CHECK(op_init(61, 37, 1), "no memory for two 61x37 frames");
    for (i = 0; i < OPS; ++i)
        CHECK(op_run_one(i, GM_HOST, NULL, &expect[i], &expect_size[i]) == GM_OK, "%s on the CPU path: %s",
              every_op[i].name, gm_last_error());
    memset(workers, 0, sizeof workers);
    for (i = 0; i < THREADS; ++i) {
        workers[i].index = i;
        /* non-blocking: the streams do not wait on the legacy default stream, nor on one another */
        if (stream_create(&workers[i].stream, 1) != 0) {
            CHECK(0, "cuStreamCreate %d failed", i);
            break;
        }
    }
    for (; started < i; ++started)
        if (pthread_create(&threads[started], NULL, work, &workers[started]) != 0)
            break;
    CHECK(started == THREADS, "%d of %d threads started", started, THREADS);
    for (i = 0; i < started; ++i) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].runs == ROUNDS * OPS && !workers[i].failed && !workers[i].wrong,
              "thread %d: %d runs, %d failed, %d wrong; first: %s", i, workers[i].runs, workers[i].failed,
              workers[i].wrong, workers[i].first_error);
    }
    for (i = 0; i < THREADS; ++i)
        if (workers[i].stream)
            stream_destroy(workers[i].stream);
    printf("streams: %s, %d threads x %d rounds x %d operation families, each thread its stream\n", name, started,
           ROUNDS, OPS);
    for (i = 0; i < OPS; ++i)
        free(expect[i]);
    op_done();
    return t_summary("streams");
}
