/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path's threads. One job at a time is cut into
 * parts: the calling thread runs part 0, worker k part k. Workers start on
 * first use and wait for the next job. A call made while another thread's
 * job runs runs alone on its own thread, so that concurrent callers neither
 * wait for each other nor deadlock. After fork() the child has no workers
 * and starts its own on first use; the workers are stopped and joined when
 * the program exits or the library that holds this code is unloaded. */

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Runs units [begin, end) of a job. */
typedef void (*gm__part_fn)(void* job, long long begin, long long end);

#define GM__POOL_MAX 256

static pthread_mutex_t gm__pool_busy = PTHREAD_MUTEX_INITIALIZER; /* held by the thread whose job runs */
static pthread_mutex_t gm__pool_lock = PTHREAD_MUTEX_INITIALIZER; /* gm__pool */
static pthread_cond_t gm__pool_wake = PTHREAD_COND_INITIALIZER, gm__pool_done = PTHREAD_COND_INITIALIZER;

static struct {
    pthread_t worker[GM__POOL_MAX];
    int started, stop, wanted; /* wanted: threads a job may use, 0 until first asked */
    unsigned long long generation;
    gm__part_fn fn;
    void* job;
    long long units;
    int parts, pending;
} gm__pool;

static pthread_once_t gm__pool_once = PTHREAD_ONCE_INIT;

/* Units [begin, end) of part k of n: as equal as whole units allow. */
static void gm__part_range(long long units, int n, int k, long long* begin, long long* end)
{
    *begin = units * k / n;
    *end = units * (k + 1) / n;
}

static void* gm__worker(void* arg)
{
    int self = (int)(size_t)arg;
    unsigned long long seen = 0;
    pthread_mutex_lock(&gm__pool_lock);
    for (;;) {
        long long begin, end;
        while (!gm__pool.stop && gm__pool.generation == seen)
            pthread_cond_wait(&gm__pool_wake, &gm__pool_lock);
        if (gm__pool.stop)
            break;
        seen = gm__pool.generation;
        if (self >= gm__pool.parts)
            continue;
        gm__part_range(gm__pool.units, gm__pool.parts, self, &begin, &end);
        pthread_mutex_unlock(&gm__pool_lock);
        gm__pool.fn(gm__pool.job, begin, end);
        pthread_mutex_lock(&gm__pool_lock);
        if (--gm__pool.pending == 0)
            pthread_cond_signal(&gm__pool_done);
    }
    pthread_mutex_unlock(&gm__pool_lock);
    return NULL;
}

/* The threads the machine has online. */
static int gm__cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > GM__POOL_MAX ? GM__POOL_MAX : (int)n;
}

/* n threads (0: one per core), at most GM__POOL_MAX. */
static int gm__threads_of(long long n)
{
    return n <= 0 ? gm__cores() : n > GM__POOL_MAX ? GM__POOL_MAX : (int)n;
}

/* fork(): the child gets the parent's memory but none of its workers; the
 * locks are held across the fork so that the child's are in a known state. */
static void gm__pool_prefork(void)
{
    pthread_mutex_lock(&gm__pool_busy);
    pthread_mutex_lock(&gm__pool_lock);
}

static void gm__pool_postfork_parent(void)
{
    pthread_mutex_unlock(&gm__pool_lock);
    pthread_mutex_unlock(&gm__pool_busy);
}

static void gm__pool_postfork_child(void)
{
    gm__pool.started = 0;
    pthread_mutex_unlock(&gm__pool_lock);
    pthread_mutex_unlock(&gm__pool_busy);
}

/* GM_THREADS from the environment where it is a number (else one thread a
 * core), and the fork handlers. */
static void gm__pool_init(void)
{
    const char* env = getenv("GM_THREADS");
    char* end = NULL;
    long long n = env && *env ? strtoll(env, &end, 10) : 0;
    pthread_mutex_lock(&gm__pool_lock);
    if (!gm__pool.wanted)
        gm__pool.wanted = gm__threads_of(end && *end == '\0' && n >= 0 ? n : 0);
    pthread_mutex_unlock(&gm__pool_lock);
    pthread_atfork(gm__pool_prefork, gm__pool_postfork_parent, gm__pool_postfork_child);
}

#if defined(__GNUC__)
/* At exit, or when the shared library holding this code is unloaded: the
 * workers must not outlive the code they run. */
__attribute__((destructor)) static void gm__pool_stop(void)
{
    int k, n;
    pthread_mutex_lock(&gm__pool_lock);
    gm__pool.stop = 1;
    n = gm__pool.started;
    gm__pool.started = 0;
    pthread_cond_broadcast(&gm__pool_wake);
    pthread_mutex_unlock(&gm__pool_lock);
    for (k = 1; k < n; ++k)
        pthread_join(gm__pool.worker[k], NULL);
}
#endif

/* The threads a job may use now. */
static int gm__pool_threads(void)
{
    int n;
    pthread_once(&gm__pool_once, gm__pool_init);
    pthread_mutex_lock(&gm__pool_lock);
    n = gm__pool.wanted;
    pthread_mutex_unlock(&gm__pool_lock);
    return n;
}

static void gm__pool_set(int n)
{
    pthread_once(&gm__pool_once, gm__pool_init);
    pthread_mutex_lock(&gm__pool_lock);
    gm__pool.wanted = gm__threads_of(n);
    pthread_mutex_unlock(&gm__pool_lock);
}

/* Runs fn over units [0, units) of job in up to gm__pool_threads() parts
 * of at least `least` units each, and returns when all are done. */
static void gm__parallel(gm__part_fn fn, void* job, long long units, long long least)
{
    int n = gm__pool_threads(), k;
    long long begin, end;
    if (least < 1)
        least = 1;
    if (units / least < n)
        n = (int)(units / least);
    if (n <= 1 || pthread_mutex_trylock(&gm__pool_busy) != 0) {
        fn(job, 0, units);
        return;
    }
    pthread_mutex_lock(&gm__pool_lock);
    /* workers not started (or refused by the system) take no part */
    for (k = gm__pool.started ? gm__pool.started : 1; k < n && !gm__pool.stop; ++k) {
        if (pthread_create(&gm__pool.worker[k], NULL, gm__worker, (void*)(size_t)k) != 0)
            break;
        gm__pool.started = k + 1;
    }
    if (gm__pool.started < n)
        n = gm__pool.started > 1 ? gm__pool.started : 1;
    gm__pool.fn = fn;
    gm__pool.job = job;
    gm__pool.units = units;
    gm__pool.parts = n;
    gm__pool.pending = n - 1;
    ++gm__pool.generation;
    pthread_cond_broadcast(&gm__pool_wake);
    pthread_mutex_unlock(&gm__pool_lock);
    gm__part_range(units, n, 0, &begin, &end);
    fn(job, begin, end);
    pthread_mutex_lock(&gm__pool_lock);
    while (gm__pool.pending > 0)
        pthread_cond_wait(&gm__pool_done, &gm__pool_lock);
    pthread_mutex_unlock(&gm__pool_lock);
    pthread_mutex_unlock(&gm__pool_busy);
}
