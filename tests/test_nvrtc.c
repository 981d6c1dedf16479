/* Compiles every kernel of the catalogue through NVRTC (no GPU needed), on
 * all cores, for the oldest architecture gpumat takes and the two where the
 * kernel source branches: sm_75, sm_80 (__CUDA_ARCH__ >= 800; sm_86 and
 * sm_89 compile what it does) and sm_90 (>= 900). The kernels of one dtype
 * pair (its generic and fast kernels) share one NVRTC program, as the same
 * template instantiations. sm_90 builds every program to a cubin, which
 * covers the C++ of the >= 800 branches too; sm_75 builds every program to
 * PTX (the C++ of the other branches: ptxas takes 60% of a cubin's time).
 * sm_75 and sm_80 build to cubins the two pairs whose inline assembly is
 * theirs alone, for ptxas to check: u8 -> u8 (the resize staging) and
 * u8 -> bf16 (the bf16 conversion).
 * Run alone: make build/test_nvrtc && build/test_nvrtc */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static const int archs[] = {75, 80, 90};
#define NARCH ((int)(sizeof archs / sizeof archs[0]))
#define NJOBS (GM_DTYPE_COUNT * GM_DTYPE_COUNT * 2 + 2 * (NARCH - 1))

/* One NVRTC program: the kernels of a dtype pair for one arch. */
typedef struct job {
    gm_dtype src, dst;
    int arch;
    int ptx; /* 1: PTX only */
    gm_status result;
    char message[256];
} job;

static job jobs[NJOBS];
static int next_job, covered;
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;

static int njobs;

static void add_job(gm_dtype src, gm_dtype dst, int arch, int ptx)
{
    job* j = &jobs[njobs++];
    j->src = src;
    j->dst = dst;
    j->arch = arch;
    j->ptx = ptx;
}

static gm_status compile_pair(const job* j)
{
    int kernels[GM__KERNEL_COUNT], i, n = 0;
    char* image = NULL;
    size_t size = 0;
    gm_status s;
    for (i = 0; i < GM__KERNEL_COUNT; ++i)
        if (gm__kernels[i].src == j->src && gm__kernels[i].dst == j->dst)
            kernels[n++] = i;
    if (j->arch == archs[NARCH - 1])
        __atomic_add_fetch(&covered, n, __ATOMIC_RELAXED);
    s = gm__compile_as("test_nvrtc", kernels, n, j->arch, j->ptx, &image, &size);
    if (s == GM_OK && size == 0)
        s = GM_ERR_COMPILE;
    GM_FREE(image);
    return s;
}

static void* worker(void* unused)
{
    (void)unused;
    for (;;) {
        job* j;
        pthread_mutex_lock(&job_lock);
        j = next_job < njobs ? &jobs[next_job++] : NULL;
        pthread_mutex_unlock(&job_lock);
        if (!j)
            return NULL;
        j->result = compile_pair(j);
        if (j->result != GM_OK)
            memcpy(j->message, gm_last_error(), sizeof j->message - 1); /* first line suffices */
    }
}

int main(void)
{
    pthread_t threads[64];
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int i, s, d, a, nthreads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
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
    for (a = 0; a < NARCH - 1; ++a) {
        add_job(GM_U8, GM_U8, archs[a], 0);
        add_job(GM_U8, GM_BF16, archs[a], 0);
    }
    for (s = 0; s < GM_DTYPE_COUNT; ++s)
        for (d = 0; d < GM_DTYPE_COUNT; ++d) {
            add_job((gm_dtype)s, (gm_dtype)d, archs[NARCH - 1], 0);
            add_job((gm_dtype)s, (gm_dtype)d, archs[0], 1);
        }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < nthreads; ++i)
        pthread_create(&threads[i], NULL, worker, NULL);
    for (i = 0; i < nthreads; ++i)
        pthread_join(threads[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (i = 0; i < njobs; ++i)
        CHECK(jobs[i].result == GM_OK, "%s -> %s kernels for sm_%d (%s): %s", gm_dtype_name(jobs[i].src),
              gm_dtype_name(jobs[i].dst), jobs[i].arch, jobs[i].ptx ? "PTX" : "cubin", jobs[i].message);
    CHECK(covered == gm_kernel_count(), "the programs cover %d of %d kernels", covered, gm_kernel_count());
    printf("nvrtc: %d kernels for sm_90 and as PTX for sm_75, %d programs in all, compiled in %.1f s on %d threads\n",
           gm_kernel_count(), njobs, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           nthreads);
    CHECK(gm_kernel_compile(0, 30, &size) == GM_ERR_COMPILE, "sm_30 is older than NVRTC 11+ supports: %s",
          gm_last_error());
    return t_summary("nvrtc");
}
