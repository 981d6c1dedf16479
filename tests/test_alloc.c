/* GM_MALLOC / GM_REALLOC / GM_FREE: defined here as counting wrappers before
 * the implementation; the CPU path, DLPack export and import, and the disk
 * cache (store, load, rejected entry, bound, clear; no GPU needed) must free
 * every block they allocate through them, and allocate some.
 * Run alone: make build/test_alloc && build/test_alloc */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

static long t_allocs, t_frees;

static void* t_malloc(size_t n)
{
    void* p = malloc(n);
    if (p)
        __atomic_add_fetch(&t_allocs, 1, __ATOMIC_RELAXED);
    return p;
}

/* realloc of NULL is a new block; of a block, the same block moved. */
static void* t_realloc(void* p, size_t n)
{
    void* q = realloc(p, n);
    if (q && !p)
        __atomic_add_fetch(&t_allocs, 1, __ATOMIC_RELAXED);
    return q;
}

static void t_free(void* p)
{
    if (p)
        __atomic_add_fetch(&t_frees, 1, __ATOMIC_RELAXED);
    free(p);
}

#define GM_MALLOC(size) t_malloc(size)
#define GM_REALLOC(p, size) t_realloc(p, size)
#define GM_FREE(p) t_free(p)
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

/* Each phase starts from a balanced count: what it allocated, all freed. */
static long phase_start;

static void phase_end(const char* what, int must_allocate)
{
    long allocs = t_allocs - phase_start;
    CHECK(t_allocs == t_frees, "%s: %ld blocks allocated in all, %ld freed", what, t_allocs, t_frees);
    if (must_allocate)
        CHECK(allocs > 0, "%s allocated through GM_MALLOC / GM_REALLOC (%ld blocks)", what, allocs);
    phase_start = t_allocs;
}

static void cpu_path(void)
{
    gm_mat src, dst;
    const double mean[3] = {1, 2, 3}, std[3] = {4, 5, 6};
    int64_t i;
    CHECK(gm_alloc_host(&src, 33, 7, GM_U8, 3, GM_HWC, 0) == GM_OK, "gm_alloc_host: %s", gm_last_error());
    CHECK(gm_alloc_host(&dst, 33, 7, GM_F32, 3, GM_CHW, 0) == GM_OK, "gm_alloc_host: %s", gm_last_error());
    for (i = 0; i < gm_span_bytes(&src); ++i)
        ((unsigned char*)src.data)[i] = (unsigned char)(i * 7);
    CHECK(gm_blob_from_image(&src, &dst, 1.0 / 255, mean, std, 1, NULL) == GM_OK, "gm_blob_from_image: %s",
          gm_last_error());
    CHECK(gm_split(&src, &dst, NULL) == GM_ERR_TYPE, "gm_split refuses a dtype change");
    gm_free(&src);
    gm_free(&dst);
    phase_end("the CPU path", 0); /* it needs no heap of its own, only the images' */
}

static void dlpack(void)
{
    gm_mat m, view;
    gm_dl_managed_versioned* t = NULL;
    gm_dl_managed* legacy = NULL;
    CHECK(gm_alloc_host(&m, 5, 4, GM_U16, 2, GM_HWC, 0) == GM_OK, "gm_alloc_host: %s", gm_last_error());
    CHECK(gm_to_dlpack(&m, GM_DL_EXPORT_READ_ONLY, &t) == GM_OK && t, "gm_to_dlpack: %s", gm_last_error());
    CHECK(t && gm_from_dlpack_versioned(&view, t, GM_HWC, 0) == GM_OK && view.data == m.data,
          "gm_from_dlpack_versioned: %s", gm_last_error());
    if (t)
        t->deleter(t);
    CHECK(gm_to_dlpack_legacy(&m, 0, &legacy) == GM_OK && legacy, "gm_to_dlpack_legacy: %s", gm_last_error());
    CHECK(legacy && gm_from_dlpack(&view, &legacy->dl_tensor, GM_HWC) == GM_OK, "gm_from_dlpack: %s",
          gm_last_error());
    if (legacy)
        legacy->deleter(legacy);
    CHECK(gm_to_dlpack(&m, GM_DL_EXPORT_MOVE, &t) == GM_OK && t && !m.owned, "gm_to_dlpack, moved: %s",
          gm_last_error());
    if (t)
        t->deleter(t); /* frees the image too */
    phase_end("DLPack export and import", 1);
}

static int count_entries(const char* folder)
{
    DIR* d = opendir(folder);
    struct dirent* e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        n += gm__ends_with(e->d_name, ".gmjit");
    if (d)
        closedir(d);
    return n;
}

/* The disk cache's own allocations: the image a load returns, the one a
 * rejected entry had read, and the bound's list of entries. Keys and images
 * are made up: no compile, no GPU. */
static void disk_cache(void)
{
    static unsigned char image[600 << 10];
    char dir[256], path[1024];
    char* got = NULL;
    size_t size = 0, i;
    struct utimbuf old;
    FILE* f;
    int c;
    if (gm__nvrtc_ready("test_alloc") != GM_OK) { /* entry names show NVRTC's version */
        if (getenv("CI") && !strcmp(getenv("CI"), "true"))
            CHECK(0, "NVRTC is missing on CI: %s", gm_last_error());
        else
            SKIP("disk cache allocations: NVRTC not available here: %s", gm_last_error());
        return;
    }
    snprintf(dir, sizeof dir, "%s/gm_alloc_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp %s", dir);
        return;
    }
    setenv("GM_CACHE_DIR", dir, 1);
    setenv("GM_CACHE_MAX_MB", "1", 1);
    unsetenv("GM_CACHE");
    for (i = 0; i < sizeof image; ++i)
        image[i] = (unsigned char)(i * 13 + 1);
    gm__cache_store("gm_test_a", 1, 90, image, sizeof image);
    gm__cache_entry_path(path, sizeof path, dir, "gm_test_a", 1, 90);
    old.actime = old.modtime = time(NULL) - 60;
    utime(path, &old);
    gm__cache_store("gm_test_b", 2, 90, image, sizeof image);
    CHECK(count_entries(dir) == 1, "past 1 MB the older entry went: %d entries", count_entries(dir));
    CHECK(gm__cache_load("gm_test_b", 2, 90, &got, &size) && size == sizeof image && !memcmp(got, image, size),
          "the stored image loads back");
    GM_FREE(got);
    gm__cache_entry_path(path, sizeof path, dir, "gm_test_b", 2, 90);
    if ((f = fopen(path, "r+b")) != NULL) { /* one image byte flipped: read, then rejected */
        fseek(f, -1, SEEK_END);
        c = fgetc(f);
        fseek(f, -1, SEEK_END);
        fputc(c ^ 0x5a, f);
        fclose(f);
    }
    CHECK(!gm__cache_load("gm_test_b", 2, 90, &got, &size), "a damaged entry is rejected");
    CHECK(gm_cache_clear() == GM_OK && count_entries(dir) == 0, "gm_cache_clear: %s", gm_last_error());
    rmdir(dir);
    unsetenv("GM_CACHE_MAX_MB");
    phase_end("the disk cache", 1);
}

int main(void)
{
    cpu_path();
    dlpack();
    disk_cache();
    CHECK(t_allocs > 0, "the wrappers were used: %ld blocks", t_allocs);
    return t_summary("alloc");
}
