/* SPDX-License-Identifier: MIT */
/* Implementation: the functions of gpumat/base.h (the version, status
 * strings, the thread-local failure detail, dtypes) and gm__fail. */

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

GM_API size_t gm_dtype_size(gm_dtype dtype)
{
    return (unsigned)dtype < GM_DTYPE_COUNT ? gm__dtype_sizes[dtype] : 0;
}

GM_API const char* gm_dtype_name(gm_dtype dtype)
{
    return (unsigned)dtype < GM_DTYPE_COUNT ? gm__dtype_names[dtype] : "?";
}

GM_API int gm_cv_type(gm_dtype dtype, int channels)
{
    if ((unsigned)dtype > GM_F16 || channels < 1 || channels > 4)
        return -1;
    return (int)dtype + ((channels - 1) << 3);
}

GM_API gm_status gm_from_cv_type(int cv_type, gm_dtype* dtype, int* channels)
{
    int depth = cv_type & 7, cn = (cv_type >> 3) + 1;
    if (!dtype || !channels)
        return gm__fail(GM_ERR_ARG, "gm_from_cv_type: %s is NULL", !dtype ? "dtype" : "channels");
    if (cv_type < 0 || cn > 4)
        return gm__fail(GM_ERR_TYPE, "gm_from_cv_type: cv_type %d has no gpumat equivalent", cv_type);
    *dtype = (gm_dtype)depth;
    *channels = cn;
    return GM_OK;
}
