/* SPDX-License-Identifier: MIT */
/* Implementation: the version, status strings and the thread-local failure detail. */

#include <stdarg.h>
#include <stdio.h>

#if defined(__cplusplus) && __cplusplus >= 201103L
#define GM__TLS thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GM__TLS _Thread_local
#else
#define GM__TLS __thread
#endif

static GM__TLS char gm__error[GM_ERROR_SIZE];

GM_API const char* gm_version(void) { return GPUMAT_VERSION_STRING; }

GM_API const char* gm_status_string(gm_status s)
{
    switch (s) {
#define GM__STATUS_CASE(name, text) \
    case name: return text;
        GM_STATUS_LIST(GM__STATUS_CASE)
#undef GM__STATUS_CASE
    default: return "unknown status";
    }
}

GM_API const char* gm_last_error(void) { return gm__error; }

/* Records "detail" as this thread's last error and returns s. */
static gm_status gm__fail(gm_status s, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gm__error, sizeof gm__error, fmt, ap);
    va_end(ap);
    return s;
}
