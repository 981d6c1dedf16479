/* SPDX-License-Identifier: MIT */
/* Implementation: kernel images. The image of a catalogue kernel for an
 * arch comes from the ahead-of-time set (aot.h), else the disk cache
 * (cache.h), else an NVRTC compile of the kernel source (gen/kernel_source.h) with
 * the kernel's entry line; needs no GPU. */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef GM_NO_NVRTC
/* The entry line of catalogue row k (gm__entry_format) into out[0..size);
 * the characters it needs, as snprintf counts them. */
static int gm__entry(char* out, size_t size, int k)
{
    const gm__kernel_row* r = &gm__kernels[k];
    return snprintf(out, size, gm__entry_format, gm__family_entry[r->family], r->name, r->src, r->dst, r->channels,
                    r->src_layout, r->dst_layout, r->pixels, r->units, r->min_blocks, r->sampler);
}

/* The NVRTC source of kernels[0..n): the shared text plus one entry line
 * each; malloc'd, NULL without memory. */
static char* gm__kernel_source(const int* kernels, int n)
{
    size_t size = 1, used = 0;
    int i;
    char* src;
    for (i = 0; gm__kernel_src[i]; ++i)
        size += strlen(gm__kernel_src[i]);
    for (i = 0; i < n; ++i)
        size += (size_t)gm__entry(NULL, 0, kernels[i]);
    src = (char*)GM_MALLOC(size);
    if (!src)
        return NULL;
    for (i = 0; gm__kernel_src[i]; ++i) {
        size_t len = strlen(gm__kernel_src[i]);
        memcpy(src + used, gm__kernel_src[i], len);
        used += len;
    }
    for (i = 0; i < n; ++i)
        used += (size_t)gm__entry(src + used, size - used, kernels[i]);
    src[used] = 0;
    return src;
}

/* src with each line headed by its place as NVRTC's messages name it
 * ("templates/pixel.inc:42: "), following the #line markers; into out when
 * it is not NULL. The characters it needs, its terminator included. */
static size_t gm__number_lines(const char* src, char* out)
{
    char file[64] = "source";
    size_t used = 0;
    long line = 1;
    while (*src) {
        size_t len = strcspn(src, "\n");
        long next;
        char named[64];
        if (sscanf(src, "#line %ld \"%63[^\"]\"", &next, named) == 2) {
            line = next;
            memcpy(file, named, sizeof file);
        } else {
            used += (size_t)snprintf(out ? out + used : NULL, out ? 80 : 0, "%s:%ld: ", file, line++);
            if (out)
                memcpy(out + used, src, len);
            used += len;
            if (out)
                out[used] = '\n';
            ++used;
        }
        src += len + (src[len] == '\n');
    }
    if (out)
        out[used] = 0;
    return used + 1;
}

/* What an NVRTC program yields: CUBIN where NVRTC knows the arch (else
 * PTX), PTX, or nothing: the front end alone, every template instantiated
 * and checked under the arch's __CUDA_ARCH__, no code generated (test_nvrtc
 * checks sm_75 so in a hundredth of the time). */
typedef enum gm__yield { GM__YIELD_CUBIN, GM__YIELD_PTX, GM__YIELD_NOTHING } gm__yield;

/* An NVRTC program: its source (malloc'd), its options, and whether it
 * yields CUBIN (else PTX). */
typedef struct gm__program {
    char* src;
    char arch_opt[32];
    const char* opts[4];
    int nopts, cubin;
} gm__program;

/* Reports p's source, lines numbered, to the log hook (GM_JIT_SOURCE). */
static void gm__log_source(const gm__program* p, const char* kernel)
{
    char* text = (char*)GM_MALLOC(gm__number_lines(p->src, NULL));
    if (!text)
        return;
    gm__number_lines(p->src, text);
    gm__jit_log_text(GM_JIT_SOURCE, kernel, 0.0, text);
    GM_FREE(text);
}

/* The program of kernels[0..n) for sm_<arch>: CUBIN when NVRTC knows that arch
 * and yield asks for it, else PTX for the newest arch NVRTC knows up to it
 * (the driver finishes it), or nothing (gm__yield). */
static gm_status gm__program_for(const char* fn, const int* kernels, int n, int arch, gm__yield yield,
                                 gm__program* p)
{
    int archs[128], narch = 0, i, best = 0;
    gm_status s = gm__nvrtc_ready(fn);
    p->src = NULL;
    if (s != GM_OK)
        return s;
    if (gm__rtc.nvrtcGetNumSupportedArchs(&narch) != 0 || narch < 1 || narch > 128 ||
        gm__rtc.nvrtcGetSupportedArchs(archs) != 0)
        return gm__fail(GM_ERR_COMPILE, "%s: NVRTC did not list its architectures", fn);
    for (i = 0; i < narch; ++i)
        if (archs[i] <= arch && archs[i] > best)
            best = archs[i];
    if (!best)
        return gm__fail(GM_ERR_COMPILE, "%s: sm_%d is older than this NVRTC supports", fn, arch);
    p->cubin = best == arch && yield == GM__YIELD_CUBIN;
    snprintf(p->arch_opt, sizeof p->arch_opt, "-arch=%s_%d", p->cubin ? "sm" : "compute", best);
    p->opts[0] = p->arch_opt;
    p->opts[1] = "-fmad=false"; /* the CPU path contracts nothing either */
    p->opts[2] = "-std=c++17";  /* if constexpr; NVRTC 11 defaults to C++14 */
    p->nopts = 3;
    if (yield == GM__YIELD_NOTHING)
        p->opts[p->nopts++] = "-fdevice-syntax-only";
    p->src = gm__kernel_source(kernels, n);
    if (!p->src)
        return gm__fail(GM_ERR_NO_MEMORY, "%s: no memory for kernel source", fn);
    return GM_OK;
}

/* NVRTC's NVRTC_ERROR_OUT_OF_MEMORY: a failure that may pass. */
#define GM__NVRTC_OUT_OF_MEMORY 1

/* Compiles p (of kernels[0..n), for the messages) with NVRTC; *image is
 * malloc'd. lasting (may be NULL): set where NVRTC refused the program
 * itself, so that compiling it again would fail again. */
static gm_status gm__nvrtc_build(const char* fn, const gm__program* p, const int* kernels, int n, char** image,
                                 size_t* image_size, int* lasting)
{
    gm__nvrtcProgram prog = 0;
    gm_status s;
    int rc = gm__rtc.nvrtcCreateProgram(&prog, p->src, gm__kernels[kernels[0]].name, 0, NULL, NULL);
    if (rc != 0)
        return gm__fail(GM_ERR_COMPILE, "%s: nvrtcCreateProgram: %s", fn, gm__rtc.nvrtcGetErrorString(rc));
    rc = gm__rtc.nvrtcCompileProgram(prog, p->nopts, p->opts);
    if (rc != 0) {
        if (lasting)
            *lasting = rc != GM__NVRTC_OUT_OF_MEMORY;
        size_t log_size = 0;
        char* log;
        gm__rtc.nvrtcGetProgramLogSize(prog, &log_size);
        log = (char*)GM_MALLOC(log_size + 1);
        if (log) {
            log[0] = 0;
            gm__rtc.nvrtcGetProgramLog(prog, log);
        }
        s = gm__fail(GM_ERR_COMPILE, "%s: NVRTC compile of %s%s failed: %s; options %s %s %s%s%s; log:\n%s", fn,
                     gm__kernels[kernels[0]].name, n > 1 ? " and others" : "", gm__rtc.nvrtcGetErrorString(rc),
                     p->opts[0], p->opts[1], p->opts[2], p->nopts > 3 ? " " : "", p->nopts > 3 ? p->opts[3] : "",
                     log ? log : "");
        GM_FREE(log);
        gm__rtc.nvrtcDestroyProgram(&prog);
        gm__log_source(p, gm__kernels[kernels[0]].name);
        return s;
    }
    rc = p->cubin ? gm__rtc.nvrtcGetCUBINSize(prog, image_size) : gm__rtc.nvrtcGetPTXSize(prog, image_size);
    *image = rc == 0 ? (char*)GM_MALLOC(*image_size) : NULL;
    if (*image)
        rc = p->cubin ? gm__rtc.nvrtcGetCUBIN(prog, *image) : gm__rtc.nvrtcGetPTX(prog, *image);
    gm__rtc.nvrtcDestroyProgram(&prog);
    if (!*image || rc != 0) {
        GM_FREE(*image);
        *image = NULL;
        return gm__fail(GM_ERR_COMPILE, "%s: reading the compiled image of %s failed", fn, gm__kernels[kernels[0]].name);
    }
    return GM_OK;
}

/* Compiles kernels[0..n) into one module with NVRTC for sm_<arch> (see
 * gm__program_for), bypassing every cache. *image is malloc'd. */
static gm_status gm__compile_as(const char* fn, const int* kernels, int n, int arch, gm__yield yield, char** image,
                                size_t* image_size)
{
    gm__program p;
    gm_status s = gm__program_for(fn, kernels, n, arch, yield, &p);
    if (s == GM_OK)
        s = gm__nvrtc_build(fn, &p, kernels, n, image, image_size, NULL);
    GM_FREE(p.src);
    return s;
}

static gm_status gm__compile(const char* fn, const int* kernels, int n, int arch, char** image, size_t* image_size)
{
    return gm__compile_as(fn, kernels, n, arch, GM__YIELD_CUBIN, image, image_size);
}

/* The disk cache key of p for a GPU of sm_<arch>: everything that shapes the
 * image, each part delimited so that no two recipes hash the same bytes. */
static uint64_t gm__program_key(const gm__program* p, int arch)
{
    int parts[6] = {GM__CACHE_FORMAT, GPUMAT_VERSION_MAJOR, GPUMAT_VERSION_MINOR, 0, 0, 0};
    uint64_t h;
    int i;
    gm__rtc.nvrtcVersion(&parts[3], &parts[4]);
    parts[5] = arch;
    h = gm__fnv(GM__FNV_START, parts, sizeof parts);
    for (i = 0; i < p->nopts; ++i)
        h = gm__fnv(h, p->opts[i], strlen(p->opts[i]) + 1);
    return gm__fnv(h, p->src, strlen(p->src));
}

/* The kernels NVRTC refused, for the process: a later first use fails at
 * once with the same message instead of compiling again (every call of an
 * operation whose kernel does not compile would otherwise spend a compile);
 * gm_warmup forgets a kernel's failure before it loads the kernel, so an
 * explicit warm-up tries again. */
typedef struct gm__refused {
    int kernel, arch;
    char* reason; /* the message, past its function's name */
    struct gm__refused* next;
} gm__refused;

static gm__refused* gm__refusals;
static pthread_mutex_t gm__refusals_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether kernel was refused for sm_<arch>; if so, the failure again. */
static int gm__was_refused(const char* fn, int kernel, int arch, gm_status* s)
{
    gm__refused* r;
    int found = 0;
    pthread_mutex_lock(&gm__refusals_lock);
    for (r = gm__refusals; r && !found; r = r->next)
        if (r->kernel == kernel && r->arch == arch) {
            *s = gm__fail(GM_ERR_COMPILE, "%s: %s (an earlier compile failed so; gm_warmup compiles it again)", fn,
                          r->reason);
            found = 1;
        }
    pthread_mutex_unlock(&gm__refusals_lock);
    return found;
}

/* Remembers that NVRTC refused kernel for sm_<arch>, as gm_last_error()
 * tells it. */
static void gm__remember_refusal(int kernel, int arch)
{
    const char* e = gm_last_error();
    const char* past = strstr(e, ": ");
    gm__refused* r = (gm__refused*)GM_MALLOC(sizeof *r);
    size_t n;
    past = past ? past + 2 : e;
    n = strlen(past) + 1;
    if (!r || !(r->reason = (char*)GM_MALLOC(n))) {
        GM_FREE(r); /* then it is not remembered: the next use compiles again */
        return;
    }
    memcpy(r->reason, past, n);
    r->kernel = kernel;
    r->arch = arch;
    pthread_mutex_lock(&gm__refusals_lock);
    r->next = gm__refusals;
    gm__refusals = r;
    pthread_mutex_unlock(&gm__refusals_lock);
}
#endif

/* Forgets every refusal of kernel (gm_warmup, before it loads it). */
static void gm__forget_refusals(int kernel)
{
#ifndef GM_NO_NVRTC
    gm__refused **at, *r;
    pthread_mutex_lock(&gm__refusals_lock);
    for (at = &gm__refusals; (r = *at) != NULL;)
        if (r->kernel == kernel) {
            *at = r->next;
            GM_FREE(r->reason);
            GM_FREE(r);
        } else {
            at = &r->next;
        }
    pthread_mutex_unlock(&gm__refusals_lock);
#else
    (void)kernel;
#endif
}

/* The image of kernel for a GPU of sm_<arch>: embedded ahead of time, else
 * from the disk cache, else compiled by NVRTC (and stored in the disk
 * cache). *owned is what the caller frees (NULL for an embedded image).
 * Needs no GPU, so tests and tools use it with any arch. */
static gm_status gm__image(const char* fn, int kernel, int arch, const void** image, size_t* size, char** owned)
{
    const char* name = gm__kernels[kernel].name;
#ifndef GM_NO_NVRTC
    gm__program p;
    uint64_t key;
    double t0;
    gm_status s;
    int lasting = 0;
#endif
    *owned = NULL;
    if (gm__aot_find(name, arch, image, size))
        return GM_OK;
#ifdef GM_NO_NVRTC
    return gm__fail(GM_ERR_NOT_EMBEDDED,
                    "%s: kernel %s for sm_%d is not in the ahead-of-time set and this build has no NVRTC "
                    "(GM_NO_NVRTC): add it to AOT_KERNELS and run make aot again",
                    fn, name, arch);
#else
    if (gm__was_refused(fn, kernel, arch, &s))
        return s;
    if ((s = gm__program_for(fn, &kernel, 1, arch, GM__YIELD_CUBIN, &p)) != GM_OK)
        return s;
    key = gm__program_key(&p, arch);
    if (gm__cache_load(name, key, arch, owned, size)) {
        GM_FREE(p.src);
        *image = *owned;
        return GM_OK;
    }
    t0 = gm__now_ms();
    s = gm__nvrtc_build(fn, &p, &kernel, 1, owned, size, &lasting);
    GM_FREE(p.src);
    if (s != GM_OK && lasting)
        gm__remember_refusal(kernel, arch);
    if (s != GM_OK)
        return s;
    gm__jit_log(GM_JIT_COMPILE, name, gm__now_ms() - t0, "%s", p.arch_opt);
    gm__cache_store(name, key, arch, *owned, *size);
    *image = *owned;
    return GM_OK;
#endif
}
