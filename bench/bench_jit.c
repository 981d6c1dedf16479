/* JIT first-call costs on a GPU: cold (NVRTC compile + load, the process's
 * first compile apart), warm from the disk cache in a new process, from
 * embedded AOT images (build/bench_jit_aot, a GM_NO_NVRTC build), and a
 * cached call's host overhead. Prints rows and appends JSON lines
 * {"section": "jit", "op":..., "impl":"gpumat", "us":..., "note":...} to the file given.
 * Run: make bench-jit   (or build/bench_jit OUT.jsonl; exits 0 with a note
 * and no rows where there is no GPU) */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The kernels measured: what a u8 camera pipeline uses, gm_kernels_for's
 * lists (the AOT build embeds exactly these: BENCH_JIT_KERNELS in the
 * Makefile). */
static const struct {
    gm_dtype src, dst;
    int channels;
} ops[] = {{GM_U8, GM_F32, 3}, {GM_U8, GM_F16, 3}, {GM_F32, GM_U8, 1}, {GM_U8, GM_U8, 4}};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void row(FILE* out, const char* op, double us, const char* note)
{
    printf("%-28s %10.1f us  %s\n", op, us, note);
    if (out)
        fprintf(out, "{\"section\": \"jit\", \"op\": \"%s\", \"impl\": \"gpumat\", \"us\": %.3f, \"note\": \"%s\"}\n", op,
                us, note);
}

/* First use of each kernel, one by one; rows "<phase>_first" (the process's
 * first kernel, which opens NVRTC and compiles first) and "<phase>" (the
 * mean of the others). 0 on success. */
static int first_calls(FILE* out, const char* phase)
{
    int specs[32], n = 0, i, k;
    double first = 0, rest = 0;
    char op[64], note[128];
    for (i = 0; i < (int)(sizeof ops / sizeof ops[0]); ++i)
        n += gm_kernels_for(ops[i].src, ops[i].dst, ops[i].channels, specs + n, 32 - n);
    for (k = 0; k < n; ++k) {
        double t0 = now_us(), dt;
        if (gm_warmup(&specs[k], 1, 0) != GM_OK) {
            printf("%s: %s\n", phase, gm_last_error());
            return 1;
        }
        dt = now_us() - t0;
        if (k == 0)
            first = dt;
        else
            rest += dt;
    }
    snprintf(op, sizeof op, "%s_first", phase);
    snprintf(note, sizeof note, "the process's first kernel (%s)", gm_kernel_name(specs[0]));
    row(out, op, first, note);
    snprintf(note, sizeof note, "mean of %d more kernels", n - 1);
    row(out, phase, rest / (n - 1), note);
    return 0;
}

/* Host time per gm_convert of a small device image once its kernel is
 * cached: what each frame pays in the library before the GPU works. op
 * names the row (one for the NVRTC build, one for the AOT build). */
static int host_overhead(FILE* out, const char* op)
{
    gm_mat a, b;
    int i, reps = 20000;
    double t0;
    if (gm_alloc(&a, 64, 64, GM_U8, 3, GM_HWC) != GM_OK || gm_alloc(&b, 64, 64, GM_F32, 3, GM_HWC) != GM_OK ||
        gm_convert(&a, &b, 1.0 / 255, 0, NULL) != GM_OK || gm_sync(NULL) != GM_OK) {
        printf("host overhead: %s\n", gm_last_error());
        return 1;
    }
    t0 = now_us();
    for (i = 0; i < reps; ++i)
        gm_convert(&a, &b, 1.0 / 255, 0, NULL);
    row(out, op, (now_us() - t0) / reps, "gm_convert u8c3 -> f32c3 64x64, enqueue only");
    gm_sync(NULL);
    gm_free(&a);
    gm_free(&b);
    return 0;
}

/* Runs program with args in a new process (the disk cache and AOT rows
 * must not see this process's loaded kernels); its exit status. */
static int child(char* program, char* mode, char* out_path)
{
    char* argv[4];
    int status = 1;
    pid_t pid;
    argv[0] = program;
    argv[1] = out_path;
    argv[2] = mode;
    argv[3] = NULL;
    fflush(stdout);
    if ((pid = fork()) == 0) {
        execv(program, argv);
        _exit(127);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char** argv)
{
    const char* mode = argc > 2 ? argv[2] : "";
    FILE* out = argc > 1 ? fopen(argv[1], "a") : NULL;
    char name[256], dir[] = "/tmp/gm_bench_jit_XXXXXX", aot[4096];
    int major, minor, bad = 0;
    if (gm_device(&major, &minor, name, sizeof name) != GM_OK) { /* the context, outside every timing */
        printf("bench_jit: no GPU (%s): nothing measured\n", gm_last_error());
        return 0;
    }
    if (!strcmp(mode, "--disk"))
        bad = first_calls(out, "jit_disk_cache");
    else if (!strcmp(mode, "--aot"))
        bad = first_calls(out, "jit_aot") || host_overhead(out, "jit_cached_call_host_aot");
    else {
        printf("bench_jit: %s, sm_%d%d\n", name, major, minor);
        if (!mkdtemp(dir))
            return 1;
        setenv("GM_CACHE_DIR", dir, 1);
        bad = first_calls(out, "jit_cold") || host_overhead(out, "jit_cached_call_host");
        if (out)
            fflush(out);
        bad = child(argv[0], "--disk", argc > 1 ? argv[1] : "") || bad;
        snprintf(aot, sizeof aot, "%s_aot", argv[0]);
        if (access(aot, X_OK) == 0)
            bad = child(aot, "--aot", argc > 1 ? argv[1] : "") || bad;
        else
            printf("bench_jit: no %s (make bench-jit builds it): no AOT rows\n", aot);
        gm_cache_clear();
        rmdir(dir);
    }
    if (out)
        fclose(out);
    return bad;
}
