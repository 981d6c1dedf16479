/* The CPU path's thread pool (impl/pool.h) across fork() and unloading,
 * through the shared library build/libgpumat.so (`make python`), loaded with
 * dlopen: a conversion on 4 threads gives the bytes of 1 thread; a forked
 * child, which inherits none of the workers, runs it on workers of its own
 * and exits; unloading the library joins its workers; a child forked after
 * that (the library's fork handlers gone with it) exits, and so does this
 * process. alarm() turns a hang into a failure.
 * Usage: test_pool LIBRARY */
#define _POSIX_C_SOURCE 200809L
#include "gpumat.h"
#include "check.h"

#include <dirent.h>
#include <dlfcn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 1031 /* large enough that the library cuts the job into parts */
#define H 517

static struct {
    gm_status (*set_threads)(int);
    gm_status (*alloc_host)(gm_mat*, int64_t, int64_t, gm_dtype, int, gm_layout, int);
    gm_status (*convert)(const gm_mat*, gm_mat*, double, double, gm_stream);
    void (*free)(gm_mat*);
} lib;

/* The threads of this process (/proc/self/task), -1 where /proc is not. */
static int threads_now(void)
{
    DIR* d = opendir("/proc/self/task");
    struct dirent* e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A random u8 image converted to f32 on 1 and on `threads` threads: 0 where
 * both give the same bytes, 1 where a call failed, 2 where they differ. */
static int convert_both(int threads)
{
    gm_mat src, one, many;
    int64_t i;
    int r = 1;
    memset(&one, 0, sizeof one), memset(&many, 0, sizeof many);
    if (lib.alloc_host(&src, W, H, GM_U8, 3, GM_HWC, 0) != GM_OK)
        return 1;
    for (i = 0; i < src.pitch * H; ++i)
        ((unsigned char*)src.data)[i] = (unsigned char)(t_rand() >> 24);
    if (lib.alloc_host(&one, W, H, GM_F32, 3, GM_HWC, 0) == GM_OK &&
        lib.alloc_host(&many, W, H, GM_F32, 3, GM_HWC, 0) == GM_OK && lib.set_threads(1) == GM_OK &&
        lib.convert(&src, &one, 1 / 255.0, 0.5, NULL) == GM_OK && lib.set_threads(threads) == GM_OK &&
        lib.convert(&src, &many, 1 / 255.0, 0.5, NULL) == GM_OK)
        r = memcmp(one.data, many.data, (size_t)(one.pitch * H)) ? 2 : 0;
    lib.free(&src), lib.free(&one), lib.free(&many);
    return r;
}

/* The exit status of a forked child that runs convert_both(4) (or nothing
 * where `work` is 0) and exits with its result; -1: it failed to start, was
 * killed (a hang: SIGALRM) or crashed. */
static int in_child(int work)
{
    int status = 0;
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        _exit(work ? convert_both(4) : 0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

int main(int argc, char** argv)
{
    void* handle;
    int before = threads_now(), during, after, child;
    alarm(120);
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
        return 2;
    }
    handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL, "dlopen %s: %s", argv[1], dlerror());
    if (!handle)
        return t_summary("pool");
    /* POSIX's way from dlsym's void* to a function pointer */
    *(void**)&lib.set_threads = dlsym(handle, "gm_set_threads");
    *(void**)&lib.alloc_host = dlsym(handle, "gm_alloc_host");
    *(void**)&lib.convert = dlsym(handle, "gm_convert");
    *(void**)&lib.free = dlsym(handle, "gm_free");
    CHECK(lib.set_threads && lib.alloc_host && lib.convert && lib.free, "dlsym: a gm_ function is missing");
    if (!lib.set_threads || !lib.alloc_host || !lib.convert || !lib.free)
        return t_summary("pool");

    CHECK(convert_both(4) == 0, "4 threads against 1: %s", "a call failed or the bytes differ");
    during = threads_now();
    if (before < 0)
        SKIP("thread counts: no /proc/self/task here");
    else
        CHECK(during == before + 3, "the pool's workers: %d threads before the first job, %d after (3 more expected)",
              before, during);
    child = in_child(1);
    CHECK(child == 0, "a child forked with the workers running: exit %d (1: a call failed, 2: bytes differ, -1: it "
          "hung or crashed)", child);
    CHECK(convert_both(4) == 0, "the parent after the fork: a call failed or the bytes differ");

    CHECK(dlclose(handle) == 0, "dlclose: %s", dlerror());
    after = threads_now();
    if (before >= 0)
        CHECK(after == before, "unloading joins the workers: %d threads before the first job, %d after dlclose",
              before, after);
    CHECK(in_child(0) == 0, "a child forked after the unload: %s", "it crashed (a fork handler left behind?)");
    return t_summary("pool");
}
