/* Processes sharing one disk-cache folder (issue 16): 8 processes store and
 * load entries in it at once (GM_CACHE_MAX_MB=1, so that trims race with
 * them too) while this one kills one of them with SIGKILL at random moments,
 * mid-write included, and starts another, KILLS times. Every entry a process
 * loads must be byte for byte what was stored under its key; at the end
 * every entry in the folder must be whole, the temporary files of the killed
 * writers must go at the next trim, and the folder must keep its bound.
 * The images are random bytes (the cache does not look inside them), so no
 * compile slows the storm; NVRTC must be present (an entry's name carries its
 * version). Run alone: make build/test_processes && build/test_processes */
#define _GNU_SOURCE /* mkdtemp, utimes */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <dirent.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

enum { PROCESSES = 8, KILLS = 200, NAMES = 4, SALTS = 32, STORM_MS = 12000 };

static char* images[NAMES];
static size_t sizes[NAMES];
static const char* const names[NAMES] = {"gm_test_a", "gm_test_b", "gm_test_c", "gm_test_d"};

static uint64_t key_of(int name, int salt) { return 0x9e3779b97f4a7c15ull * (uint64_t)(name * SALTS + salt + 1); }

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* A child: stores and loads at random until the deadline; exits 1 at the
 * first entry that loads with other bytes than were stored. */
static void child(uint64_t seed, double deadline)
{
    t_seed(seed);
    while (now_ms() < deadline) {
        int n = (int)(t_rand() % NAMES), salt = (int)(t_rand() % SALTS);
        char* image = NULL;
        size_t size = 0;
        if (t_rand() % 2) {
            gm__cache_store(names[n], key_of(n, salt), 90, images[n], sizes[n]);
        } else if (gm__cache_load(names[n], key_of(n, salt), 90, &image, &size)) {
            int bad = size != sizes[n] || memcmp(image, images[n], size);
            GM_FREE(image);
            if (bad)
                _exit(1);
        }
    }
    _exit(0);
}

static pid_t start(uint64_t seed, double deadline)
{
    pid_t pid = fork();
    if (pid == 0)
        child(seed, deadline);
    return pid;
}

/* The folder's entries and temporary files: whole entries with the bytes
 * stored under their key counted in *good, others in *bad. */
static void survey(const char* folder, int* good, int* bad, int* temps, int64_t* bytes)
{
    DIR* d = opendir(folder);
    struct dirent* e;
    *good = *bad = *temps = 0;
    *bytes = 0;
    while (d && (e = readdir(d)) != NULL) {
        char path[GM__ENTRY_PATH];
        int n, salt, found = 0;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (gm__ends_with(e->d_name, ".tmp")) {
            ++*temps;
            continue;
        }
        if (!gm__ends_with(e->d_name, ".gmjit"))
            continue;
        for (n = 0; n < NAMES && !found; ++n)
            for (salt = 0; salt < SALTS && !found; ++salt) {
                char want[GM__ENTRY_PATH], *image = NULL;
                size_t size = 0;
                gm__cache_entry_path(want, sizeof want, folder, names[n], key_of(n, salt), 90);
                if (strcmp(want, path) != 0)
                    continue;
                found = 1;
                if (gm__cache_load(names[n], key_of(n, salt), 90, &image, &size) && size == sizes[n] &&
                    !memcmp(image, images[n], size)) {
                    ++*good;
                    *bytes += (int64_t)(size + sizeof(gm__cache_header));
                } else {
                    ++*bad;
                }
                GM_FREE(image);
            }
        *bad += !found;
    }
    if (d)
        closedir(d);
}

/* Makes the temporary files look older than the trim's wait for a dead
 * writer's. */
static void age_temps(const char* folder, int seconds)
{
    DIR* d = opendir(folder);
    struct dirent* e;
    struct timeval then[2];
    gettimeofday(&then[0], NULL);
    then[0].tv_sec -= seconds;
    then[1] = then[0];
    while (d && (e = readdir(d)) != NULL)
        if (gm__ends_with(e->d_name, ".tmp")) {
            char path[GM__ENTRY_PATH];
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
            utimes(path, then);
        }
    if (d)
        closedir(d);
}

int main(void)
{
    char folder[] = "/tmp/gm_test_processes.XXXXXX";
    pid_t pids[PROCESSES];
    double deadline;
    int i, n, kills = 0, failed = 0, good, bad, temps, left;
    int64_t bytes, largest = 0, max;
    gm_status s = gm__nvrtc_ready("test_processes");
    if (s != GM_OK) {
        if (getenv("CI") && !strcmp(getenv("CI"), "true")) {
            CHECK(0, "NVRTC is missing on CI: %s", gm_last_error());
        } else {
            SKIP("processes: NVRTC not available here: %s", gm_last_error());
        }
        return t_summary("processes");
    }
    if (!mkdtemp(folder)) {
        CHECK(0, "mkdtemp failed");
        return t_summary("processes");
    }
    setenv("GM_CACHE_DIR", folder, 1);
    setenv("GM_CACHE_MAX_MB", "1", 1);
    setvbuf(stdout, NULL, _IOLBF, 0);
    t_seed_from_env("processes");
    for (n = 0; n < NAMES; ++n) {
        sizes[n] = (size_t)(4096 + t_rand() % 40000);
        images[n] = (char*)malloc(sizes[n]);
        for (i = 0; i < (int)sizes[n]; ++i)
            images[n][i] = (char)t_rand();
        largest = (int64_t)sizes[n] > largest ? (int64_t)sizes[n] : largest;
    }
    max = gm__cache_max_bytes();
    deadline = now_ms() + STORM_MS;
    for (i = 0; i < PROCESSES; ++i)
        pids[i] = start(t_rand(), deadline);
    /* kill one at a random moment (0-40 ms), start another */
    while (kills < KILLS && now_ms() < deadline - 100) {
        struct timespec nap = {0, (long)(t_rand() % 40000000)};
        int status = 0;
        nanosleep(&nap, NULL);
        i = (int)(t_rand() % PROCESSES);
        if (pids[i] <= 0 || kill(pids[i], SIGKILL) != 0)
            continue;
        waitpid(pids[i], &status, 0);
        failed += WIFEXITED(status) && WEXITSTATUS(status) != 0;
        ++kills;
        pids[i] = start(t_rand(), deadline);
    }
    for (i = 0; i < PROCESSES; ++i) {
        int status = 0;
        if (pids[i] <= 0)
            continue;
        waitpid(pids[i], &status, 0);
        failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    CHECK(failed == 0, "%d processes loaded an entry with other bytes than were stored", failed);
    survey(folder, &good, &bad, &temps, &bytes);
    printf("processes: %d processes, %d killed and started again; the folder: %d whole entries (%lld bytes, bound "
           "%lld), %d others, %d temporary files of killed writers\n",
           PROCESSES, kills, good, (long long)bytes, (long long)max, bad, temps);
    CHECK(kills >= KILLS / 2, "only %d kills in %d ms", kills, STORM_MS);
    CHECK(bad == 0, "%d entries in the folder are not whole", bad);
    /* every process trims when its own count passes the bound, unaware of
     * the others' stores since: each may add a quarter of it and an entry */
    CHECK(bytes <= max + PROCESSES * (max / 4 + largest + (int64_t)sizeof(gm__cache_header)),
          "the folder holds %lld bytes, the bound is %lld", (long long)bytes, (long long)max);
    age_temps(folder, 120);
    gm__cache_trim(folder, max);
    survey(folder, &good, &bad, &temps, &bytes);
    CHECK(temps == 0 && bad == 0 && bytes <= max, "after a trim: %d temporary files, %d broken entries, %lld bytes",
          temps, bad, (long long)bytes);
    gm_cache_clear();
    left = rmdir(folder);
    CHECK(left == 0, "gm_cache_clear left files in %s", folder);
    for (n = 0; n < NAMES; ++n)
        free(images[n]);
    return t_summary("processes");
}
