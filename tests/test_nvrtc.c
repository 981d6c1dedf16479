/* Compiles every kernel of the catalogue through NVRTC (no GPU needed), on
 * all cores, for the oldest architecture gpumat takes and the one where
 * the kernel source branches last: sm_75 and sm_90 (__CUDA_ARCH__ >= 800
 * and >= 900; sm_80 to sm_89 compile a subset of what sm_90 does). The
 * kernels of one dtype pair share one NVRTC program, as the same template
 * instantiations.
 * Every program goes through NVRTC's front end alone for both archs
 * (-fdevice-syntax-only, NVRTC 12.4+: every template instantiated and
 * checked under that arch's branches, in a hundredth of the time of PTX).
 * Making PTX, NVVM's optimiser, is the cost (bench/RESULTS.md), and a
 * kernel's instructions come from its source dtype's reads and its
 * destination dtype's writes: the programs made into PTX for sm_90 are the
 * fewest whose families between them read every dtype their family reads
 * and write every dtype it writes (the diagonal, and pairs of the
 * pre-process's). ptxas, half a cubin's time, then
 * assembles the few programs whose sm_90 PTX holds between them every
 * instruction form of that PTX (opcode with its modifiers and types, the
 * inline assembly's included), the largest parameter block and the most
 * static shared memory, the limits ptxas checks; for sm_90 and for sm_75:
 * each __CUDA_ARCH__ branch that emits its own instructions
 * (griddepcontrol, cp.async, the bf16 and f16x2 conversions) is in them,
 * so sm_75 assembles the other side of it. And for sm_80 the two programs
 * whose inline assembly branches there: u8 -> u8 (the resize staging) and
 * u8 -> bf16 (the bf16 conversion). Without the front end (NVRTC before
 * 12.4) every program goes to PTX for sm_90.
 * Run alone: make build/test_nvrtc && build/test_nvrtc */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static const int archs[] = {75, 90};
#define NARCH ((int)(sizeof archs / sizeof archs[0]))
#define NPAIRS (GM_DTYPE_COUNT * GM_DTYPE_COUNT)
#define NJOBS (NPAIRS * (2 * NARCH + 1) + 2)

/* Distinct instruction forms of sm_90's PTX, all programs together. */
#define MAX_FORMS 4096
#define FORM_BYTES 64

/* One NVRTC program: the kernels of a dtype pair for one arch, to PTX (and
 * what the PTX holds: its instruction forms, as indices into the table,
 * its largest parameter and its static shared memory in bytes), through
 * the front end alone, or to a cubin. */
typedef struct job {
    gm_dtype src, dst;
    int arch;
    gm__yield yield;
    gm_status result;
    char message[256];
    int* forms;
    int nforms;
    long params, shared;
} job;

static job jobs[NJOBS];
static int njobs, next_job, covered;
static gm__yield every_kernel; /* the yield of the jobs that hold every kernel for sm_90 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static char form_names[MAX_FORMS][FORM_BYTES];
static int nform_names, forms_lost;

static void add_job(gm_dtype src, gm_dtype dst, int arch, gm__yield yield)
{
    job* j = &jobs[njobs++];
    memset(j, 0, sizeof *j);
    j->src = src;
    j->dst = dst;
    j->arch = arch;
    j->yield = yield;
}

/* The index of instruction form f in the table (-1: not there). */
static int find_form(const char* f)
{
    int i;
    for (i = 0; i < nform_names; ++i)
        if (!strcmp(form_names[i], f))
            return i;
    return -1;
}

/* find_form, f added if new (-1: the table is full). Called under lock. */
static int form_index(const char* f)
{
    int i = find_form(f);
    if (i >= 0 || nform_names == MAX_FORMS)
        return i;
    snprintf(form_names[nform_names], FORM_BYTES, "%s", f);
    return nform_names++;
}

/* The largest N of the "name[N]" declarations in the PTX lines that start
 * with word (".param", ".shared"). */
static long largest_array(const char* line, const char* word, long largest)
{
    const char* b;
    if (strncmp(line, word, strlen(word)) || !(b = strchr(line, '[')))
        return largest;
    return atol(b + 1) > largest ? atol(b + 1) : largest;
}

/* What j's PTX holds: the opcode of each instruction line (a line that
 * does not start a directive, label, brace or comment; after an optional
 * predicate; letters, digits, '_' and '.' up to a blank or ';'), distinct,
 * and the largest .param and .shared arrays. */
static gm_status read_ptx(job* j, const char* ptx)
{
    int seen[MAX_FORMS], k;
    char form[FORM_BYTES];
    const char *line, *next;
    j->forms = (int*)malloc(sizeof(int) * MAX_FORMS);
    if (!j->forms)
        return gm__fail(GM_ERR_NO_MEMORY, "test_nvrtc: malloc of a program's instruction forms failed");
    memset(seen, 0, sizeof seen);
    for (line = ptx; *line; line = next) {
        const char* p = line;
        size_t n = 0;
        next = line + strcspn(line, "\n");
        next += *next == '\n';
        while (*p == ' ' || *p == '\t')
            ++p;
        j->params = largest_array(p, ".param", j->params);
        j->shared = largest_array(p, ".shared", j->shared);
        if (*p == '@')
            p += strcspn(p, " \t\n");
        while (*p == ' ' || *p == '\t')
            ++p;
        while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '_' || p[n] == '.')
            ++n;
        if (n == 0 || n >= FORM_BYTES || !(p[0] >= 'a' && p[0] <= 'z') || !strchr(" \t;", p[n]) || p[n] == '\0')
            continue;
        memcpy(form, p, n);
        form[n] = '\0';
        pthread_mutex_lock(&lock);
        k = form_index(form);
        forms_lost += k < 0;
        pthread_mutex_unlock(&lock);
        if (k >= 0 && !seen[k]) {
            seen[k] = 1;
            j->forms[j->nforms++] = k;
        }
    }
    return GM_OK;
}

static gm_status compile_pair(job* j)
{
    int kernels[GM__KERNEL_COUNT], i, n = 0;
    char* image = NULL;
    size_t size = 0;
    gm_status s;
    for (i = 0; i < GM__KERNEL_COUNT; ++i)
        if (gm__kernels[i].src == j->src && gm__kernels[i].dst == j->dst)
            kernels[n++] = i;
    if (j->arch == archs[NARCH - 1] && j->yield == every_kernel)
        __atomic_add_fetch(&covered, n, __ATOMIC_RELAXED);
    s = gm__compile_as("test_nvrtc", kernels, n, j->arch, j->yield, &image, &size);
    if (s == GM_OK && size == 0)
        s = GM_ERR_COMPILE;
    if (s == GM_OK && j->yield == GM__YIELD_PTX)
        s = read_ptx(j, image);
    GM_FREE(image);
    return s;
}

static void* worker(void* unused)
{
    (void)unused;
    for (;;) {
        job* j;
        pthread_mutex_lock(&lock);
        j = next_job < njobs ? &jobs[next_job++] : NULL;
        pthread_mutex_unlock(&lock);
        if (!j)
            return NULL;
        j->result = compile_pair(j);
        if (j->result != GM_OK)
            memcpy(j->message, gm_last_error(), sizeof j->message - 1); /* first line suffices */
    }
}

/* Runs jobs [next_job, njobs) on n threads. */
static void run_jobs(int n)
{
    pthread_t threads[64];
    int i;
    for (i = 0; i < n; ++i)
        pthread_create(&threads[i], NULL, worker, NULL);
    for (i = 0; i < n; ++i)
        pthread_join(threads[i], NULL);
}

/* Adds the cubin jobs of every arch: greedily the PTX job whose forms the
 * chosen ones lack most, until they hold every form; then the jobs with
 * the largest parameter and the most shared memory, if not chosen yet. */
static void add_cubins(int ptx_jobs)
{
    static int have[MAX_FORMS];
    int chosen[NJOBS], i, k, a, best, most, big = -1, wide = -1;
    memset(have, 0, sizeof have);
    memset(chosen, 0, sizeof chosen);
    for (;;) {
        for (i = 0, best = -1, most = 0; i < ptx_jobs; ++i) {
            int fresh = 0;
            if (jobs[i].yield != GM__YIELD_PTX || chosen[i])
                continue;
            for (k = 0; k < jobs[i].nforms; ++k)
                fresh += !have[jobs[i].forms[k]];
            if (fresh > most)
                best = i, most = fresh;
        }
        if (best < 0)
            break;
        chosen[best] = 1;
        for (k = 0; k < jobs[best].nforms; ++k)
            have[jobs[best].forms[k]] = 1;
    }
    for (i = 0; i < ptx_jobs; ++i)
        if (jobs[i].yield == GM__YIELD_PTX) {
            if (big < 0 || jobs[i].params > jobs[big].params)
                big = i;
            if (wide < 0 || jobs[i].shared > jobs[wide].shared)
                wide = i;
        }
    if (big >= 0)
        chosen[big] = 1;
    if (wide >= 0)
        chosen[wide] = 1;
    for (i = 0; i < ptx_jobs; ++i)
        for (a = 0; a < NARCH; ++a)
            if (chosen[i])
                add_job(jobs[i].src, jobs[i].dst, archs[a], GM__YIELD_CUBIN);
}

/* Adds the sm_90 PTX jobs: greedily the dtype pair whose kernels read and
 * write, family by family, the most dtypes the chosen pairs do not, until
 * every family reads and writes all of its dtypes in them. */
static void add_ptx_cover(void)
{
    static unsigned char have[GM__FAMILY_COUNT][2][GM_DTYPE_COUNT];
    int i, pair, best, most;
    for (;;) {
        for (pair = 0, best = -1, most = 0; pair < NPAIRS; ++pair) {
            unsigned char fresh[GM__FAMILY_COUNT][2];
            int count = 0;
            memset(fresh, 0, sizeof fresh);
            for (i = 0; i < GM__KERNEL_COUNT; ++i) {
                const gm__kernel_row* k = &gm__kernels[i];
                if (k->src * GM_DTYPE_COUNT + k->dst != pair)
                    continue;
                count += !fresh[k->family][0] && !have[k->family][0][k->src];
                count += !fresh[k->family][1] && !have[k->family][1][k->dst];
                fresh[k->family][0] = fresh[k->family][1] = 1;
            }
            if (count > most)
                best = pair, most = count;
        }
        if (best < 0)
            break;
        for (i = 0; i < GM__KERNEL_COUNT; ++i)
            if (gm__kernels[i].src * GM_DTYPE_COUNT + gm__kernels[i].dst == best) {
                have[gm__kernels[i].family][0][gm__kernels[i].src] = 1;
                have[gm__kernels[i].family][1][gm__kernels[i].dst] = 1;
            }
        add_job((gm_dtype)(best / GM_DTYPE_COUNT), (gm_dtype)(best % GM_DTYPE_COUNT), archs[NARCH - 1],
                GM__YIELD_PTX);
    }
    for (i = 0; i < GM__KERNEL_COUNT; ++i)
        CHECK(have[gm__kernels[i].family][0][gm__kernels[i].src] && have[gm__kernels[i].family][1][gm__kernels[i].dst],
              "%s: its family reads or writes a dtype that no PTX program does", gm__kernels[i].name);
}

int main(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int i, s, d, a, ptx_jobs, ptx_programs = 0, major = 0, minor = 0, front_end, nthreads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
    struct timespec t0, t1;
    size_t size;
    gm_status probe = gm_kernel_compile(0, 86, &size);
    static const char* yields[] = {"cubin", "PTX", "front end"};
    if (probe == GM_ERR_NO_NVRTC) {
        if (getenv("CI") && !strcmp(getenv("CI"), "true")) {
            CHECK(0, "NVRTC is missing on CI: %s", gm_last_error());
        } else {
            SKIP("NVRTC not available here: %s", gm_last_error());
        }
        return t_summary("nvrtc");
    }
    /* -fdevice-syntax-only came with NVRTC 12.4 */
    gm__rtc.nvrtcVersion(&major, &minor);
    front_end = major > 12 || (major == 12 && minor >= 4);
    if (!front_end)
        SKIP("NVRTC %d.%d has no -fdevice-syntax-only (12.4+): sm_75's front end checks only the programs assembled "
             "for it", major, minor);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    every_kernel = front_end ? GM__YIELD_NOTHING : GM__YIELD_PTX;
    if (front_end)
        add_ptx_cover();
    for (s = 0; s < GM_DTYPE_COUNT; ++s)
        for (d = 0; d < GM_DTYPE_COUNT; ++d)
            for (a = 0; a < NARCH; ++a)
                if (front_end || a == NARCH - 1)
                    add_job((gm_dtype)s, (gm_dtype)d, archs[a], every_kernel);
    ptx_jobs = njobs;
    for (i = 0; i < ptx_jobs; ++i)
        ptx_programs += jobs[i].yield == GM__YIELD_PTX;
    run_jobs(nthreads);
    add_cubins(ptx_jobs);
    add_job(GM_U8, GM_U8, 80, GM__YIELD_CUBIN);
    add_job(GM_U8, GM_BF16, 80, GM__YIELD_CUBIN);
    run_jobs(nthreads);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (i = 0; i < njobs; ++i)
        CHECK(jobs[i].result == GM_OK, "%s -> %s kernels for sm_%d (%s): %s", gm_dtype_name(jobs[i].src),
              gm_dtype_name(jobs[i].dst), jobs[i].arch, yields[jobs[i].yield], jobs[i].message);
    CHECK(covered == gm_kernel_count(), "the programs cover %d of %d kernels", covered, gm_kernel_count());
    CHECK(forms_lost == 0, "%d instruction forms found no room in the table of %d", forms_lost, MAX_FORMS);
    /* the PTX is read as it should be: forms of the inline assembly where
     * the source has them, and not one it only names in a comment */
    CHECK(find_form("cp.async.cg.shared.global") >= 0 && find_form("griddepcontrol.wait") >= 0 &&
              find_form("cvt.rn.bf16.f32") >= 0 && find_form("griddepcontrol.launch_dependents") < 0,
          "the instruction forms read from the PTX miss one the source has, or hold one it has not");
    printf("nvrtc: %d kernels through the front end for sm_75 and sm_90 (or as PTX for sm_90), %d programs as PTX for "
           "sm_90; %d cubins for sm_90 and sm_75, every instruction form of that PTX (%d), and 2 for sm_80; %d "
           "programs in all, compiled in %.1f s on %d threads\n",
           gm_kernel_count(), ptx_programs, njobs - ptx_jobs - 2, nform_names, njobs,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), nthreads);
    for (i = 0; i < njobs; ++i)
        free(jobs[i].forms);
    CHECK(gm_kernel_compile(0, 30, &size) == GM_ERR_COMPILE, "sm_30 is older than NVRTC 11+ supports: %s",
          gm_last_error());
    return t_summary("nvrtc");
}
