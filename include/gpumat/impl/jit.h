/* SPDX-License-Identifier: MIT */
/* Implementation: the functions of gpumat/jit.h: the log hook, the
 * catalogue's kernels by index and name, the kernels an operation may
 * launch, compiling one without a GPU, warm-up, and the disk cache's folder. */

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

GM_API void gm_jit_set_log(gm_jit_log_fn fn, void* user)
{
    pthread_mutex_lock(&gm__log_lock);
    gm__log_fn = fn;
    gm__log_user = user;
    pthread_mutex_unlock(&gm__log_lock);
}

GM_API const char* gm_jit_event_name(gm_jit_event event)
{
    switch (event) {
#define GM__JIT_EVENT_CASE(name, text) \
    case name: return text;
        GM_JIT_EVENT_LIST(GM__JIT_EVENT_CASE)
#undef GM__JIT_EVENT_CASE
    default: return "?";
    }
}

GM_API int gm_kernel_count(void) { return GM__KERNEL_COUNT; }

GM_API const char* gm_kernel_name(int index)
{
    return index >= 0 && index < GM__KERNEL_COUNT ? gm__kernels[index].name : NULL;
}

GM_API gm_status gm_kernel_compile(int index, int arch, size_t* image_size)
{
    char* image = NULL;
    size_t size = 0;
    gm_status s;
    if (index < 0 || index >= GM__KERNEL_COUNT)
        return gm__fail(GM_ERR_ARG, "gm_kernel_compile: index %d outside [0, %d)", index, GM__KERNEL_COUNT);
    if (arch < 10)
        return gm__fail(GM_ERR_ARG, "gm_kernel_compile: arch %d is not an sm number such as 86", arch);
#ifdef GM_NO_NVRTC
    s = gm__fail(GM_ERR_NO_NVRTC, "gm_kernel_compile: this build has no NVRTC (GM_NO_NVRTC)");
#else
    s = gm__compile("gm_kernel_compile", &index, 1, arch, &image, &size);
#endif
    GM_FREE(image);
    if (image_size)
        *image_size = s == GM_OK ? size : 0;
    return s;
}

GM_API int gm_kernel_find(const char* name)
{
    int i;
    for (i = 0; name && i < GM__KERNEL_COUNT; ++i)
        if (!strcmp(gm__kernels[i].name, name))
            return i;
    return -1;
}

GM_API int gm_kernels_for(gm_dtype src, gm_dtype dst, int channels, int* kernels, int max)
{
    int at, n, i;
    if ((int)src < 0 || (int)src >= GM_DTYPE_COUNT || (int)dst < 0 || (int)dst >= GM_DTYPE_COUNT)
        return gm__fail(GM_ERR_TYPE, "gm_kernels_for: dtype %d -> %d is not a gm_dtype pair", (int)src, (int)dst), 0;
    if (channels < 1 || channels > 4)
        return gm__fail(GM_ERR_TYPE, "gm_kernels_for: channels %d outside 1..4", channels), 0;
    if (!kernels && max != 0)
        return gm__fail(GM_ERR_ARG, "gm_kernels_for: kernels is NULL but max is %d", max), 0;
    if (max < 0)
        return gm__fail(GM_ERR_ARG, "gm_kernels_for: max %d is negative", max), 0;
    at = ((int)src * GM_DTYPE_COUNT + (int)dst) * 4 + channels - 1;
    n = gm__kernels_for_at[at + 1] - gm__kernels_for_at[at];
    for (i = 0; i < n && i < max; ++i)
        kernels[i] = gm__kernels_for_rows[gm__kernels_for_at[at] + i];
    return n;
}


/* Warm-up: workers take the next specialization until none is left. */
typedef struct gm__warm {
    gm__CUcontext ctx;
    const int* kernels; /* NULL: 0..count) */
    int count, device, next;
    gm_status status; /* the first failure, its detail in error */
    char error[1024];
    pthread_mutex_t lock;
} gm__warm;

static void* gm__warm_worker(void* arg)
{
    gm__warm* w = (gm__warm*)arg;
    gm__CUfunction f;
    int i, rc;
    gm_status s;
    /* a new thread has no current context; the caller's is the one to fill */
    if ((rc = gm__cu.cuCtxSetCurrent(w->ctx)) != 0) {
        s = gm__cuda_fail("gm_warmup", "cuCtxSetCurrent", rc);
        i = w->count;
    } else {
        s = GM_OK;
        i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
    }
    for (; i < w->count; i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) {
        const int k = w->kernels ? w->kernels[i] : i;
        gm__forget_refusals(k); /* an explicit warm-up compiles a refused kernel again */
        if ((s = gm__function("gm_warmup", k, w->device, 0, &f, NULL, NULL)) != GM_OK)
            break;
    }
    if (s != GM_OK) {
        pthread_mutex_lock(&w->lock);
        if (w->status == GM_OK) {
            w->status = s;
            snprintf(w->error, sizeof w->error, "%.1000s", gm_last_error());
        }
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

GM_API gm_status gm_warmup(const int* kernels, int count, int device)
{
    pthread_t threads[15];
    gm__warm w;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int i, dev, started = 0, helpers;
    gm_status s;
    if (!kernels && count != 0)
        return gm__fail(GM_ERR_ARG, "gm_warmup: kernels is NULL but count is %d (NULL needs 0: all)", count);
    if (kernels && count <= 0)
        return gm__fail(GM_ERR_ARG, "gm_warmup: count %d must be positive", count);
    for (i = 0; kernels && i < count; ++i)
        if (kernels[i] < 0 || kernels[i] >= GM__KERNEL_COUNT)
            return gm__fail(GM_ERR_ARG, "gm_warmup: kernels[%d] = %d outside [0, %d)", i, kernels[i], GM__KERNEL_COUNT);
    memset(&w, 0, sizeof w);
    if ((s = gm__context("gm_warmup", device, &w.ctx, &dev)) != GM_OK)
        return s;
    w.kernels = kernels;
    w.count = kernels ? count : GM__KERNEL_COUNT;
    w.device = device;
    pthread_mutex_init(&w.lock, NULL);
    /* NVRTC compiles separate programs concurrently: one thread a core, this one included */
    helpers = (int)(cores < 1 ? 0 : cores > 16 ? 15 : cores - 1);
    if (helpers > w.count - 1)
        helpers = w.count - 1;
    for (; started < helpers; ++started)
        if (pthread_create(&threads[started], NULL, gm__warm_worker, &w) != 0)
            break; /* fewer helpers: slower, not wrong */
    gm__warm_worker(&w);
    for (i = 0; i < started; ++i)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&w.lock);
    if (w.status != GM_OK)
        return gm__fail(w.status, "%s", w.error);
    return GM_OK;
}

GM_API gm_status gm_release_context(void)
{
    static const char fn[] = "gm_release_context";
    gm__CUcontext cur = 0;
    gm__CUmodule mod;
    gm__ctx_cache* c;
    uint64_t key = 0;
    int rc, i;
    gm_status s = gm__driver_ready(fn);
    if (s != GM_OK)
        return s;
    if ((rc = gm__cu.cuCtxGetCurrent(&cur)) != 0)
        return gm__cuda_fail(fn, "cuCtxGetCurrent", rc);
    if (!cur || GM__CU_GONE(rc = gm__ctx_key(cur, &key)))
        return GM_OK; /* no context, or one already gone: nothing of it is left */
    if (rc != 0)
        return gm__cuda_fail(fn, gm__ctx_key_call(), rc);
    pthread_mutex_lock(&gm__cache_lock);
    for (c = gm__caches; c; c = c->next)
        if (c->key == key && (gm__cu.cuCtxGetId || !c->token || gm__ctx_state(c) == GM__CTX_ALIVE)) {
            __atomic_store_n(&c->key, 0, __ATOMIC_RELEASE);
            for (i = 0; i < GM__KERNEL_COUNT && gm__cu.cuFuncGetModule; ++i) /* a module a kernel */
                if (c->fns[i] && gm__cu.cuFuncGetModule(&mod, c->fns[i]) == 0)
                    gm__cu.cuModuleUnload(mod);
            if (c->token && (rc = gm__cu.cuMemFree(c->token)) != 0)
                s = gm__cuda_fail(fn, "cuMemFree", rc);
            break;
        }
    pthread_mutex_unlock(&gm__cache_lock);
    return s;
}

GM_API gm_status gm_cache_dir(char* path, size_t size)
{
    char folder[GM__CACHE_PATH];
    const char* why;
    if (!path)
        return gm__fail(GM_ERR_ARG, "gm_cache_dir: path is NULL");
    if (!gm__cache_folder(folder, sizeof folder, &why))
        return gm__fail(GM_ERR_IO, "gm_cache_dir: the disk cache is off: %s", why);
    if (strlen(folder) >= size)
        return gm__fail(GM_ERR_ARG, "gm_cache_dir: size %zu is too small for %s", size, folder);
    memcpy(path, folder, strlen(folder) + 1);
    return GM_OK;
}

GM_API gm_status gm_cache_clear(void)
{
    char folder[GM__CACHE_PATH], path[GM__ENTRY_PATH];
    const char* why;
    gm_status s = GM_OK;
    struct dirent* e;
    struct stat st;
    DIR* d;
    if (!gm__cache_folder(folder, sizeof folder, &why))
        return GM_OK; /* nothing is cached when the cache is off */
    if (!(d = opendir(folder)))
        return errno == ENOENT ? GM_OK : gm__fail(GM_ERR_IO, "gm_cache_clear: cannot open %s: %s", folder, strerror(errno));
    pthread_mutex_lock(&gm__cache_lock_bytes);
    while ((e = readdir(d)) != NULL) {
        if (!gm__ends_with(e->d_name, ".gmjit") && !gm__ends_with(e->d_name, ".tmp"))
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (!gm__cache_own_file(path, &st))
            continue; /* as the trim: links and other users' files stay */
        if (unlink(path) != 0 && errno != ENOENT && s == GM_OK)
            s = gm__fail(GM_ERR_IO, "gm_cache_clear: cannot remove %s: %s", path, strerror(errno));
    }
    gm__cache_bytes = -1; /* count again at the next store */
    gm__cache_counted[0] = 0;
    pthread_mutex_unlock(&gm__cache_lock_bytes);
    closedir(d);
    return s;
}
