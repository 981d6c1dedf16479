/* SPDX-License-Identifier: MIT */
/* The compiler behind gen/aot.py (`make aot`). Built from the library itself,
 * so each image comes from exactly the source and options the JIT uses.
 *
 *   aot_compile --hash                 prints GM__KERNEL_SOURCE_HASH
 *   aot_compile --list                 prints every kernel name, one a line
 *   aot_compile DIR sm_XY|compute_XY   compiles the kernels named on stdin
 *                                      (one a line) to DIR/<name>.<target>:
 *                                      CUBIN for sm_XY, PTX for compute_XY
 * Compiles on all cores; exits non-zero naming the first failure. */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int* specs;
static int count, next, arch, ptx, failed;
static const char *out_dir, *target;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int compile_one(int spec)
{
    char path[4096], *image = NULL;
    size_t size = 0;
    FILE* f;
    int ok;
    if (gm__compile_as("aot_compile", &spec, 1, arch, ptx ? GM__YIELD_PTX : GM__YIELD_CUBIN, &image, &size) != GM_OK) {
        fprintf(stderr, "aot_compile: %s\n", gm_last_error());
        return 0;
    }
    /* NVRTC falls back to PTX for an arch it does not know; a CUBIN was asked for */
    if (!ptx && (size < 4 || memcmp(image, "\177ELF", 4) != 0)) {
        fprintf(stderr, "aot_compile: this NVRTC cannot make CUBIN for %s\n", target);
        GM_FREE(image);
        return 0;
    }
    snprintf(path, sizeof path, "%s/%s.%s", out_dir, gm_kernel_name(spec), target);
    f = fopen(path, "wb");
    ok = f && fwrite(image, 1, size, f) == size;
    ok = (f && fclose(f) == 0) && ok;
    if (!ok)
        fprintf(stderr, "aot_compile: cannot write %s\n", path);
    GM_FREE(image);
    return ok;
}

static void* worker(void* unused)
{
    int i;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        i = failed ? count : next++;
        pthread_mutex_unlock(&lock);
        if (i >= count)
            return NULL;
        if (!compile_one(specs[i])) {
            pthread_mutex_lock(&lock);
            failed = 1;
            pthread_mutex_unlock(&lock);
        }
    }
}

/* The dtype named name ("u8", ...); GM_DTYPE_COUNT where none is. */
static gm_dtype dtype_named(const char* name)
{
    int d;
    for (d = 0; d < GM_DTYPE_COUNT && strcmp(gm_dtype_name((gm_dtype)d), name); ++d)
        ;
    return (gm_dtype)d;
}

/* --for: the names gm_kernels_for gives, one a line. */
static int list_for(const char* src, const char* dst, int channels)
{
    int kernels[16], n = gm_kernels_for(dtype_named(src), dtype_named(dst), channels, kernels, 16), i;
    if (n == 0) {
        fprintf(stderr, "aot_compile: --for %s %s %d: %s\n", src, dst, channels, gm_last_error());
        return 2;
    }
    for (i = 0; i < n; ++i)
        printf("%s\n", gm_kernel_name(kernels[i]));
    return 0;
}

int main(int argc, char** argv)
{
    pthread_t threads[64];
    char line[256];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int i, n = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores, cap = 0;
    if (argc == 2 && !strcmp(argv[1], "--hash")) {
        printf("0x%016llxull\n", (unsigned long long)GM__KERNEL_SOURCE_HASH);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (i = 0; i < gm_kernel_count(); ++i)
            printf("%s\n", gm_kernel_name(i));
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "--for"))
        return list_for(argv[2], argv[3], atoi(argv[4]));
    if (argc != 3 || (sscanf(argv[2], "sm_%d", &arch) != 1 && sscanf(argv[2], "compute_%d", &arch) != 1)) {
        fprintf(stderr, "usage: aot_compile --hash | --list | --for SRC DST CHANNELS | DIR sm_XY|compute_XY < names\n");
        return 2;
    }
    out_dir = argv[1];
    target = argv[2];
    ptx = target[0] == 'c';
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            continue;
        if (count == cap) {
            int* grown = (int*)realloc(specs, (size_t)(cap = cap ? cap * 2 : 256) * sizeof *specs);
            if (!grown)
                return 1;
            specs = grown;
        }
        if ((specs[count++] = gm_kernel_find(line)) < 0) {
            fprintf(stderr, "aot_compile: no kernel named %s (aot_compile --list names them)\n", line);
            free(specs);
            return 1;
        }
    }
    for (i = 0; i < n - 1; ++i)
        pthread_create(&threads[i], NULL, worker, NULL);
    worker(NULL);
    for (i = 0; i < n - 1; ++i)
        pthread_join(threads[i], NULL);
    free(specs);
    return failed;
}
