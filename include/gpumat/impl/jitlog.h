/* SPDX-License-Identifier: MIT */
/* Implementation: the JIT log hook, its clock, and GM_RECORD. */

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static gm_jit_log_fn gm__log_fn;
static void* gm__log_user;
static pthread_mutex_t gm__log_lock = PTHREAD_MUTEX_INITIALIZER;

/* Milliseconds on a clock that strict C99 builds can reach (gettimeofday);
 * only differences are used. */
static double gm__now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec * 1e-3;
}

/* Reports one event to the hook, if any, with detail as it is: of any
 * length (a whole kernel source), unformatted. Only cold paths call it, so
 * the lock costs nothing that matters; the hook runs outside it, so it may
 * call gpumat itself. */
static void gm__jit_log_text(gm_jit_event event, const char* kernel, double ms, const char* detail)
{
    gm_jit_log_fn fn;
    void* user;
    pthread_mutex_lock(&gm__log_lock);
    fn = gm__log_fn;
    user = gm__log_user;
    pthread_mutex_unlock(&gm__log_lock);
    if (fn)
        fn(event, kernel, ms, detail, user);
}

/* gm__jit_log_text with a short detail formatted from fmt. */
static void gm__jit_log(gm_jit_event event, const char* kernel, double ms, const char* fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    gm__jit_log_text(event, kernel, ms, detail);
}

/* GM_RECORD=FILE: appends the kernel's name as one line. One write() of an
 * O_APPEND file, so lines from concurrent threads and processes stay whole. */
static void gm__record(const char* kernel)
{
    const char* path = getenv("GM_RECORD");
    char line[128];
    int fd, len;
    if (!path || !*path)
        return;
    len = snprintf(line, sizeof line, "%s\n", kernel);
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)len) != len) {
        /* a lost line only shrinks the recorded set; the run goes on */
    }
    close(fd);
}
