/* Compiles every kernel specialization through NVRTC for sm_75, sm_80, sm_86,
 * sm_89 and sm_90 (no GPU needed), on all cores. The specializations of one
 * dtype pair (its generic and fast kernels) share one NVRTC program, as the
 * same template instantiations, so the 5 x 1620 kernels cost 5 x 81 compiles.
 * Run alone: make build/test_nvrtc && build/test_nvrtc */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static const int archs[] = {75, 80, 86, 89, 90};
#define NARCH ((int)(sizeof archs / sizeof archs[0]))

static int next_job;
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static gm_status* results;
static char (*messages)[256];

/* Job j: dtype pair j / NARCH, arch j % NARCH. */
#define NPAIRS (GM_DTYPE_COUNT * GM_DTYPE_COUNT)
#define PER_PAIR (4 + 16)

static gm_status compile_pair(int pair, int arch)
{
    int specs[PER_PAIR], i, n = 0;
    char* image = NULL;
    size_t size = 0;
    gm_status s;
    for (i = 0; i < 4; ++i)
        specs[n++] = pair * 4 + i;
    for (i = 0; i < 16; ++i)
        specs[n++] = GM__GENERIC_COUNT + pair * 16 + i;
    s = gm__compile("test_nvrtc", specs, n, arch, &image, &size);
    if (s == GM_OK && size == 0)
        s = GM_ERR_COMPILE;
    free(image);
    return s;
}

static void* worker(void* unused)
{
    (void)unused;
    for (;;) {
        int job;
        pthread_mutex_lock(&job_lock);
        job = next_job++;
        pthread_mutex_unlock(&job_lock);
        if (job >= NPAIRS * NARCH)
            return NULL;
        results[job] = compile_pair(job / NARCH, archs[job % NARCH]);
        if (results[job] != GM_OK)
            memcpy(messages[job], gm_last_error(), sizeof messages[job] - 1); /* first line suffices */
    }
}

int main(void)
{
    pthread_t threads[64];
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int total = NPAIRS * NARCH, i, nthreads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
    struct timespec t0, t1;
    size_t size;
    gm_status probe = gm_kernel_compile(0, 86, &size);
    if (probe == GM_ERR_NO_NVRTC) {
        if (getenv("CI") && !strcmp(getenv("CI"), "true")) {
            CHECK(0, "NVRTC is missing on CI: %s", gm_last_error());
        } else {
            SKIP("NVRTC not available here: %s", gm_last_error());
        }
        return t_summary("nvrtc");
    }
    results = (gm_status*)calloc((size_t)total, sizeof *results);
    messages = (char(*)[256])calloc((size_t)total, sizeof *messages);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < nthreads; ++i)
        pthread_create(&threads[i], NULL, worker, NULL);
    for (i = 0; i < nthreads; ++i)
        pthread_join(threads[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (i = 0; i < total; ++i)
        CHECK(results[i] == GM_OK, "%s -> %s kernels for sm_%d: %s", gm_dtype_name((gm_dtype)(i / NARCH / GM_DTYPE_COUNT)),
              gm_dtype_name((gm_dtype)(i / NARCH % GM_DTYPE_COUNT)), archs[i % NARCH], messages[i]);
    CHECK(NPAIRS * PER_PAIR == gm_kernel_count(), "the batches cover %d of %d specializations", NPAIRS * PER_PAIR,
          gm_kernel_count());
    printf("nvrtc: %d specializations x %d archs compiled in %.1f s on %d threads\n", gm_kernel_count(), NARCH,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), nthreads);
    CHECK(gm_kernel_compile(0, 30, &size) == GM_ERR_COMPILE, "sm_30 is older than NVRTC 11+ supports: %s",
          gm_last_error());
    free(results);
    free(messages);
    return t_summary("nvrtc");
}
