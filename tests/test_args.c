/* test_args: bad input to every public gpumat function (exact status, gm_last_error naming function and argument, sentinel outputs untouched), and missing driver / NVRTC in a child process. Alone: make build/test_args && ./build/test_args */
#include "gpumat.h"
#include "check.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#define NO_DRIVER_FLAG "--no-driver"
#define BAD_CUDA "/nonexistent/libcuda.so.1"
#define BAD_NVRTC "/nonexistent/libnvrtc.so"

/* ---------------------------------------------------------------- helpers */

/* A host image over a buffer of random non-zero bytes (padding around every
 * row, plane and image), with a copy to tell whether anything was written. */
typedef struct timg {
    gm_mat m;
    unsigned char* buf;
    unsigned char* ref;
    size_t n;
} timg;

static void fill_random(unsigned char* p, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        p[i] = (unsigned char)(t_rand() % 255 + 1);
}

static void timg_make(timg* t, int64_t w, int64_t h, gm_dtype dt, int ch, gm_layout lay, int batch)
{
    gm_desc d;
    int64_t es = (int64_t)gm_dtype_size(dt), row = w * es * (lay == GM_HWC ? ch : 1);
    gm_status s;
    memset(&d, 0, sizeof d);
    d.width = w;
    d.height = h;
    d.dtype = dt;
    d.channels = ch;
    d.layout = lay;
    d.batch = batch;
    d.pitch = row + 3 * es;
    d.plane_pitch = d.pitch * h + 2 * es;
    d.batch_pitch = (lay == GM_CHW ? d.plane_pitch * ch : d.pitch * h) + 5 * es;
    t->n = (size_t)(d.batch_pitch * batch + 64);
    t->buf = (unsigned char*)malloc(t->n);
    t->ref = (unsigned char*)malloc(t->n);
    fill_random(t->buf, t->n);
    memcpy(t->ref, t->buf, t->n);
    s = gm_wrap_desc(&t->m, t->buf, &d, GM_HOST);
    if (s != GM_OK) {
        printf("timg_make: gm_wrap_desc failed: %s\n", gm_last_error());
        exit(2);
    }
}

static int timg_same(const timg* t) { return memcmp(t->buf, t->ref, t->n) == 0; }
static void timg_snap(timg* t) { memcpy(t->ref, t->buf, t->n); }

static void timg_free(timg* t)
{
    free(t->buf);
    free(t->ref);
    memset(t, 0, sizeof *t);
}

/* A descriptor that claims to be device memory but points at host memory:
 * only for calls that must fail before anything touches the pointer. */
static gm_mat fake_device(const timg* t)
{
    gm_mat m = t->m;
    m.where = GM_DEVICE;
    return m;
}

/* Every checked call first leaves a distinct failure behind, so a message
 * that merely survived from an earlier call cannot satisfy the checks. */
static char g_stale[1100];
static void reset_error(void)
{
    gm_dtype dt;
    int cn;
    gm_from_cv_type(-987654, &dt, &cn);
    snprintf(g_stale, sizeof g_stale, "%.1000s", gm_last_error());
}

static int count_ok(int ok, int line, const char* what, const char* text)
{
    if (ok) {
        ++t_passed;
    } else {
        ++t_failed;
        printf("FAIL %s:%d: %s: %s\n", __FILE__, line, text, what);
    }
    return ok;
}

/* The status is want; on failure gm_last_error() is fresh and contains fn
 * and arg; every image in imgs (NULL-terminated) is byte-for-byte unchanged
 * (and is restored if it was not, so one bug fails one check). */
static void expect_(int line, const char* text, gm_status got, gm_status want, const char* fn, const char* arg,
                    timg* const* imgs)
{
    const char* e = gm_last_error();
    char msg[1400];
    int i;
    snprintf(msg, sizeof msg, "status %s (%s), want %s; message \"%.1000s\"", gm_status_string(got),
             got == GM_OK ? "GM_OK" : "error", gm_status_string(want), e);
    count_ok(got == want, line, msg, text);
    if (want != GM_OK) {
        snprintf(msg, sizeof msg, "message \"%.1000s\" should be new and start with \"%.100s:\"", e, fn);
        count_ok(strcmp(e, g_stale) != 0 && strncmp(e, fn, strlen(fn)) == 0 && e[strlen(fn)] == ':', line, msg, text);
        if (arg) {
            snprintf(msg, sizeof msg, "message \"%.1000s\" should name \"%.100s\"", e, arg);
            count_ok(strstr(e, arg) != NULL, line, msg, text);
        }
    }
    for (i = 0; imgs[i]; ++i) {
        count_ok(timg_same(imgs[i]), line, "an output or input buffer was written", text);
        memcpy(imgs[i]->buf, imgs[i]->ref, imgs[i]->n); /* one failure, not a cascade */
    }
}

/* EXPECT(call, status, "function", "argument", images to check..., NULL) */
#define EXPECT(call, want, fn, arg, ...) \
    expect_(__LINE__, #call, (reset_error(), (call)), (want), (fn), (arg), (timg* const[]){__VA_ARGS__})

/* A status that depends on whether this machine has a driver and a device. */
static int is_no_gpu(gm_status s) { return s == GM_ERR_NO_DRIVER || s == GM_ERR_NO_DEVICE; }

static int g_dev; /* gm_alloc on the device works here */

/* ------------------------------------------------------- base.h functions */

static void test_status_and_types(void)
{
    static const size_t sizes[GM_DTYPE_COUNT] = {1, 1, 2, 2, 4, 4, 8, 2, 2};
    static const char* const names[GM_DTYPE_COUNT] = {"u8", "s8", "u16", "s16", "s32", "f32", "f64", "f16", "bf16"};
    static const int bad_status[] = {GM_STATUS_COUNT, GM_STATUS_COUNT + 1, -1, 1000, INT_MAX, INT_MIN};
    static const int bad_dtype[] = {GM_DTYPE_COUNT, -1, 100, INT_MAX, INT_MIN};
    int s, t, i, c;
    for (s = 0; s < GM_STATUS_COUNT; ++s) {
        const char* a = gm_status_string((gm_status)s);
        CHECK(a && *a && strcmp(a, "unknown status") != 0, "gm_status_string(%d) = \"%s\"", s, a ? a : "(null)");
        for (t = 0; a && t < s; ++t)
            CHECK(strcmp(a, gm_status_string((gm_status)t)) != 0, "statuses %d and %d share \"%s\"", s, t, a);
    }
    CHECK(strcmp(gm_status_string(GM_OK), "success") == 0, "GM_OK is \"%s\"", gm_status_string(GM_OK));
    for (i = 0; i < (int)(sizeof bad_status / sizeof *bad_status); ++i) {
        const char* a = gm_status_string((gm_status)bad_status[i]);
        CHECK(a && strcmp(a, "unknown status") == 0, "gm_status_string(%d) = \"%s\"", bad_status[i],
              a ? a : "(null)");
    }

    for (i = 0; i < GM_DTYPE_COUNT; ++i) {
        CHECK(gm_dtype_size((gm_dtype)i) == sizes[i], "gm_dtype_size(%d) = %zu", i, gm_dtype_size((gm_dtype)i));
        CHECK(strcmp(gm_dtype_name((gm_dtype)i), names[i]) == 0, "gm_dtype_name(%d) = %s", i,
              gm_dtype_name((gm_dtype)i));
    }
    for (i = 0; i < (int)(sizeof bad_dtype / sizeof *bad_dtype); ++i) {
        const char* n = gm_dtype_name((gm_dtype)bad_dtype[i]);
        CHECK(gm_dtype_size((gm_dtype)bad_dtype[i]) == 0, "gm_dtype_size(%d) = %zu", bad_dtype[i],
              gm_dtype_size((gm_dtype)bad_dtype[i]));
        CHECK(n && strcmp(n, "?") == 0, "gm_dtype_name(%d) = %s", bad_dtype[i], n ? n : "(null)");
    }

    /* OpenCV 4 codes: CV_8UC3 = 16, CV_32FC1 = 5, CV_16FC4 = 31, CV_64FC2 = 14 */
    CHECK(gm_cv_type(GM_U8, 3) == 16, "CV_8UC3 %d", gm_cv_type(GM_U8, 3));
    CHECK(gm_cv_type(GM_F32, 1) == 5, "CV_32FC1 %d", gm_cv_type(GM_F32, 1));
    CHECK(gm_cv_type(GM_F16, 4) == 31, "CV_16FC4 %d", gm_cv_type(GM_F16, 4));
    CHECK(gm_cv_type(GM_F64, 2) == 14, "CV_64FC2 %d", gm_cv_type(GM_F64, 2));
    for (i = 0; i <= GM_F16; ++i)
        for (c = 1; c <= 4; ++c) {
            gm_dtype dt = (gm_dtype)99;
            int cn = 99, code = gm_cv_type((gm_dtype)i, c);
            gm_status st = gm_from_cv_type(code, &dt, &cn);
            CHECK(st == GM_OK && dt == (gm_dtype)i && cn == c, "cv type %d (%d x%d) -> %d %d x%d", code, i, c,
                  (int)st, (int)dt, cn);
        }
    CHECK(gm_cv_type(GM_BF16, 1) == -1, "bf16 has no OpenCV 4 code: %d", gm_cv_type(GM_BF16, 1));
    CHECK(gm_cv_type(GM_U8, 0) == -1, "0 channels: %d", gm_cv_type(GM_U8, 0));
    CHECK(gm_cv_type(GM_U8, 5) == -1, "5 channels: %d", gm_cv_type(GM_U8, 5));
    CHECK(gm_cv_type(GM_U8, -1) == -1, "-1 channels: %d", gm_cv_type(GM_U8, -1));
    CHECK(gm_cv_type((gm_dtype)-1, 1) == -1, "dtype -1: %d", gm_cv_type((gm_dtype)-1, 1));
    CHECK(gm_cv_type((gm_dtype)GM_DTYPE_COUNT, 1) == -1, "dtype 9: %d", gm_cv_type((gm_dtype)GM_DTYPE_COUNT, 1));
    {
        static const int bad_codes[] = {-1, 32, 33, 1 << 20, INT_MAX, INT_MIN};
        gm_dtype dt = (gm_dtype)77;
        int cn = 77;
        EXPECT(gm_from_cv_type(16, NULL, &cn), GM_ERR_ARG, "gm_from_cv_type", "dtype", NULL);
        CHECK(cn == 77, "channels written on failure: %d", cn);
        EXPECT(gm_from_cv_type(16, &dt, NULL), GM_ERR_ARG, "gm_from_cv_type", "channels", NULL);
        CHECK(dt == (gm_dtype)77, "dtype written on failure: %d", (int)dt);
        for (i = 0; i < (int)(sizeof bad_codes / sizeof *bad_codes); ++i) {
            EXPECT(gm_from_cv_type(bad_codes[i], &dt, &cn), GM_ERR_TYPE, "gm_from_cv_type", "cv_type", NULL);
            CHECK(dt == (gm_dtype)77 && cn == 77, "outputs written for code %d: %d %d", bad_codes[i], (int)dt, cn);
        }
    }
}

static void* other_thread(void* arg)
{
    char* seen = (char*)arg;
    snprintf(seen, 256, "%.200s", gm_last_error());
    gm_kernel_compile(-5, 86, NULL); /* a failure of this thread only */
    return NULL;
}

static void test_last_error_is_per_thread(void)
{
    char seen[256] = "unset", before[256];
    pthread_t th;
    gm_roi(NULL, NULL, 0, 0, 1, 1);
    snprintf(before, sizeof before, "%.200s", gm_last_error());
    CHECK(strstr(before, "gm_roi") != NULL, "gm_roi(NULL) left \"%s\"", before);
    if (pthread_create(&th, NULL, other_thread, seen) != 0) {
        SKIP("pthread_create failed: per-thread error not checked");
        return;
    }
    pthread_join(th, NULL);
    CHECK(seen[0] == 0, "a new thread sees another thread's error \"%s\"", seen);
    CHECK(strcmp(gm_last_error(), before) == 0, "another thread's failure replaced this thread's: \"%s\"",
          gm_last_error());
}

/* Device calls from a thread that never made a context current: gpumat must
 * use the device's primary context there too (as the CUDA runtime does). */
typedef struct thread_io {
    gm_mat* dev;
    gm_status sync, down;
    unsigned char host[240];
    char msg[256];
} thread_io;

static void* device_thread(void* arg)
{
    thread_io* io = (thread_io*)arg;
    io->down = gm_download_sync(io->dev, io->host, 0); /* first: nothing made a context current yet */
    snprintf(io->msg, sizeof io->msg, "%.200s", io->down == GM_OK ? "" : gm_last_error());
    io->sync = gm_sync(NULL);
    return NULL;
}

static void test_fresh_thread_device(void)
{
    thread_io io;
    unsigned char pattern[240];
    gm_mat dev;
    pthread_t th;
    gm_status s = gm_alloc_device(&dev, 16, 5, GM_U8, 3, GM_HWC);
    size_t i;
    CHECK(s == GM_OK, "device alloc: %s", gm_last_error());
    if (s != GM_OK)
        return;
    for (i = 0; i < sizeof pattern; ++i)
        pattern[i] = (unsigned char)(t_rand() % 255 + 1);
    s = gm_upload_sync(&dev, pattern, 0);
    CHECK(s == GM_OK, "upload: %s", gm_last_error());
    memset(&io, 0, sizeof io);
    io.dev = &dev;
    io.sync = io.down = GM_ERR_ARG;
    if (pthread_create(&th, NULL, device_thread, &io) != 0) {
        CHECK(0, "pthread_create failed");
    } else {
        pthread_join(th, NULL);
        CHECK(io.sync == GM_OK, "gm_sync(NULL) on a fresh thread: %s", gm_status_string(io.sync));
        CHECK(io.down == GM_OK && memcmp(io.host, pattern, sizeof pattern) == 0,
              "gm_download_sync on a fresh thread: %s (%s)", gm_status_string(io.down), io.msg);
    }
    gm_free(&dev);
}

/* ------------------------------------------------------ allocation, wrap */

/* An allocation m owns, its data where gpumat puts it: device memory as
 * the driver gives it, pageable host memory at the next 64-byte line. */
#define OWNS(m)                                                                                       \
    ((m).owned && (char*)(m).data >= (char*)(m).owned && (char*)(m).data - (char*)(m).owned < 64 &&  \
     ((m).where != GM_HOST || (uintptr_t)(m).data % 64 == 0))

/* After a failed gm_alloc*/
/* or gm_wrap*, *m must be safe to gm_free: nothing owned, no data. */
#define CHECK_SAFE(m) CHECK((m).owned == NULL && (m).data == NULL, "failed call left data %p owned %p", (m).data, (m).owned)

static gm_desc mkdesc(int64_t w, int64_t h, gm_dtype dt, int ch, gm_layout lay)
{
    gm_desc d;
    memset(&d, 0, sizeof d);
    d.width = w;
    d.height = h;
    d.dtype = dt;
    d.channels = ch;
    d.layout = lay;
    return d;
}

static void test_alloc(void)
{
    gm_mat m;
    gm_desc d;
    gm_status s;
    int i;
    static const int64_t bad_w[] = {0, -1, -1000, INT64_MIN};

    /* gm_alloc: every argument check comes before the driver is touched */
    EXPECT(gm_alloc(NULL, 4, 4, GM_U8, 1, GM_HWC), GM_ERR_ARG, "gm_alloc", "m", NULL);
    for (i = 0; i < 4; ++i) {
        memset(&m, 0x5a, sizeof m);
        EXPECT(gm_alloc(&m, bad_w[i], 4, GM_U8, 1, GM_HWC), GM_ERR_SIZE, "gm_alloc", "width", NULL);
        CHECK_SAFE(m);
        memset(&m, 0x5a, sizeof m);
        EXPECT(gm_alloc(&m, 4, bad_w[i], GM_U8, 1, GM_HWC), GM_ERR_SIZE, "gm_alloc", "height", NULL);
        CHECK_SAFE(m);
    }
    EXPECT(gm_alloc(&m, (int64_t)1 << 31, 4, GM_U8, 1, GM_HWC), GM_ERR_SIZE, "gm_alloc", "width", NULL);
    EXPECT(gm_alloc(&m, 4, (int64_t)1 << 31, GM_U8, 1, GM_HWC), GM_ERR_SIZE, "gm_alloc", "height", NULL);
    EXPECT(gm_alloc(&m, INT64_MAX, INT64_MAX, GM_F64, 4, GM_HWC), GM_ERR_SIZE, "gm_alloc", "width", NULL);
    CHECK_SAFE(m);
    EXPECT(gm_alloc(&m, 4, 4, GM_U8, 0, GM_HWC), GM_ERR_TYPE, "gm_alloc", "channels 0", NULL);
    EXPECT(gm_alloc(&m, 4, 4, GM_U8, 5, GM_HWC), GM_ERR_TYPE, "gm_alloc", "channels", NULL);
    EXPECT(gm_alloc(&m, 4, 4, GM_U8, -3, GM_CHW), GM_ERR_TYPE, "gm_alloc", "channels", NULL);
    EXPECT(gm_alloc(&m, 4, 4, (gm_dtype)GM_DTYPE_COUNT, 1, GM_HWC), GM_ERR_TYPE, "gm_alloc", "dtype", NULL);
    EXPECT(gm_alloc(&m, 4, 4, (gm_dtype)-1, 1, GM_HWC), GM_ERR_TYPE, "gm_alloc", "dtype", NULL);
    EXPECT(gm_alloc(&m, 4, 4, GM_U8, 3, (gm_layout)2), GM_ERR_TYPE, "gm_alloc", "layout", NULL);
    CHECK_SAFE(m);

    /* gm_alloc_device: the same checks under its own name */
    EXPECT(gm_alloc_device(NULL, 4, 4, GM_U8, 1, GM_HWC), GM_ERR_ARG, "gm_alloc_device", "m", NULL);
    EXPECT(gm_alloc_device(&m, 4, 0, GM_U8, 1, GM_HWC), GM_ERR_SIZE, "gm_alloc_device", "height 0", NULL);
    EXPECT(gm_alloc_device(&m, 4, 4, GM_U8, 0, GM_HWC), GM_ERR_TYPE, "gm_alloc_device", "channels 0", NULL);
    CHECK_SAFE(m);
    /* gm_alloc follows gm_path(): device rows padded to 256 bytes, host rows compact */
    s = gm_alloc(&m, 5, 3, GM_U16, 3, GM_HWC);
    CHECK(s == GM_OK && m.where == gm_path() && OWNS(m) && m.pitch == (m.where == GM_DEVICE ? 256 : 30),
          "gm_alloc: %s, where %d (gm_path %d), pitch %lld", gm_last_error(), (int)m.where, (int)gm_path(),
          (long long)m.pitch);
    gm_free(&m);

    /* gm_alloc_host, pageable and pinned */
    EXPECT(gm_alloc_host(NULL, 4, 4, GM_U8, 1, GM_HWC, 0), GM_ERR_ARG, "gm_alloc_host", "m", NULL);
    EXPECT(gm_alloc_host(&m, 0, 4, GM_U8, 1, GM_HWC, 0), GM_ERR_SIZE, "gm_alloc_host", "width", NULL);
    EXPECT(gm_alloc_host(&m, 4, -2, GM_U8, 1, GM_HWC, 1), GM_ERR_SIZE, "gm_alloc_host", "height", NULL);
    EXPECT(gm_alloc_host(&m, 4, 4, GM_F32, 7, GM_HWC, 0), GM_ERR_TYPE, "gm_alloc_host", "channels", NULL);
    EXPECT(gm_alloc_host(&m, 4, 4, (gm_dtype)42, 1, GM_HWC, 1), GM_ERR_TYPE, "gm_alloc_host", "dtype", NULL);
    EXPECT(gm_alloc_host(&m, 4, 4, GM_U8, 2, (gm_layout)-1, 0), GM_ERR_TYPE, "gm_alloc_host", "layout", NULL);
    EXPECT(gm_alloc_host(&m, (int64_t)1 << 40, 1, GM_U8, 1, GM_HWC, 0), GM_ERR_SIZE, "gm_alloc_host", "width", NULL);
    CHECK_SAFE(m);
    s = gm_alloc_host(&m, 5, 3, GM_F16, 3, GM_CHW, 0);
    CHECK(s == GM_OK && m.where == GM_HOST && OWNS(m), "pageable gm_alloc_host: %s", gm_last_error());
    gm_free(&m);
    s = gm_alloc_host(&m, 5, 3, GM_U8, 3, GM_HWC, 1);
    CHECK(s == GM_OK ? m.where == GM_PINNED && m.data != NULL : is_no_gpu(s),
          "pinned gm_alloc_host: %s (%s)", gm_status_string(s), gm_last_error());
    if (s != GM_OK) {
        CHECK(strstr(gm_last_error(), "gm_alloc_host") != NULL, "pinned failure names gm_alloc_host: %s", gm_last_error());
        CHECK_SAFE(m);
    }
    gm_free(&m);

    /* gm_alloc_desc */
    d = mkdesc(10, 4, GM_U8, 3, GM_HWC);
    EXPECT(gm_alloc_desc(NULL, &d, GM_HOST), GM_ERR_ARG, "gm_alloc_desc", "m", NULL);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_alloc_desc(&m, NULL, GM_HOST), GM_ERR_ARG, "gm_alloc_desc", "desc", NULL);
    CHECK_SAFE(m);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_alloc_desc(&m, &d, (gm_where)4), GM_ERR_ARG, "gm_alloc_desc", "where", NULL);
    CHECK_SAFE(m);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_alloc_desc(&m, &d, (gm_where)-1), GM_ERR_ARG, "gm_alloc_desc", "where", NULL);
    CHECK_SAFE(m);
    d.pitch = 29; /* a row is 30 bytes */
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "pitch", NULL);
    EXPECT(gm_alloc_desc(&m, &d, GM_DEVICE), GM_ERR_SIZE, "gm_alloc_desc", "pitch", NULL);
    d.pitch = -32;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "pitch", NULL);
    d = mkdesc(10, 4, GM_U8, 3, GM_HWC);
    s = gm_alloc_desc(&m, &d, GM_AUTO); /* where gm_path() says, rows as gm_alloc makes them */
    CHECK(s == GM_OK && m.where == gm_path() && m.pitch == (m.where == GM_DEVICE ? 256 : 30) && OWNS(m),
          "gm_alloc_desc GM_AUTO: %s, where %d, pitch %lld", gm_last_error(), (int)m.where, (long long)m.pitch);
    gm_free(&m);
    d = mkdesc(4, 4, GM_F32, 1, GM_HWC);
    d.pitch = 18; /* >= 16 bytes but not whole floats */
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "desc->pitch", NULL);
    d = mkdesc(8, 4, GM_U8, 3, GM_CHW);
    d.pitch = 8;
    d.plane_pitch = 16; /* planes of 32 bytes 16 apart */
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "plane_pitch", NULL);
    d = mkdesc(8, 4, GM_F32, 3, GM_CHW);
    d.plane_pitch = 8 * 4 * 4 + 2;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "plane_pitch", NULL);
    d = mkdesc(8, 4, GM_U8, 3, GM_HWC);
    d.batch = 2;
    d.batch_pitch = 8 * 3 * 4 - 1;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "batch_pitch", NULL);
    d.batch = -2;
    d.batch_pitch = 0;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "batch", NULL);
    d = mkdesc(8, 4, GM_U8, 9, GM_HWC);
    EXPECT(gm_alloc_desc(&m, &d, GM_DEVICE), GM_ERR_TYPE, "gm_alloc_desc", "channels", NULL);
    /* overflowing: rows * pitch, pitch * height, batches */
    d = mkdesc(INT32_MAX, INT32_MAX, GM_F64, 4, GM_HWC);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "desc", NULL);
    CHECK_SAFE(m);
    EXPECT(gm_alloc_desc(&m, &d, GM_DEVICE), GM_ERR_SIZE, "gm_alloc_desc", "desc", NULL);
    d = mkdesc(4, 4, GM_U8, 1, GM_HWC);
    d.pitch = INT64_MAX / 2;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "desc", NULL);
    d = mkdesc(4, 4, GM_U8, 3, GM_CHW);
    d.plane_pitch = INT64_MAX / 2;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "desc", NULL);
    d = mkdesc(4, 4, GM_U8, 1, GM_HWC);
    d.batch = 4;
    d.batch_pitch = INT64_MAX / 2;
    EXPECT(gm_alloc_desc(&m, &d, GM_HOST), GM_ERR_SIZE, "gm_alloc_desc", "desc", NULL);
    CHECK_SAFE(m);
    /* and a good one, so the checks above fail for their reason */
    d = mkdesc(10, 4, GM_U16, 3, GM_CHW);
    d.batch = 2;
    s = gm_alloc_desc(&m, &d, GM_HOST);
    CHECK(s == GM_OK && m.pitch == 20 && m.plane_pitch == 80 && m.batch_pitch == 240 && m.owned,
          "compact host gm_alloc_desc: %s pitch %lld plane %lld batch %lld", gm_status_string(s), (long long)m.pitch,
          (long long)m.plane_pitch, (long long)m.batch_pitch);
    gm_free(&m);
    CHECK(m.data == NULL && m.owned == NULL && m.width == 0, "gm_free zeroes the descriptor");
}

static void test_wrap(void)
{
    static double store[512]; /* aligned for every dtype */
    unsigned char* buf = (unsigned char*)store;
    gm_mat m;
    gm_desc d;
    gm_status s;

    EXPECT(gm_wrap(NULL, buf, 4, 4, GM_U8, 1, GM_HWC, 0, GM_HOST), GM_ERR_ARG, "gm_wrap", "m", NULL);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_wrap(&m, NULL, 4, 4, GM_U8, 1, GM_HWC, 0, GM_HOST), GM_ERR_ARG, "gm_wrap", "data", NULL);
    CHECK_SAFE(m);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_wrap(&m, buf + 1, 4, 4, GM_F32, 1, GM_HWC, 0, GM_HOST), GM_ERR_ARG, "gm_wrap", "align", NULL);
    CHECK_SAFE(m);
    EXPECT(gm_wrap(&m, buf + 4, 4, 4, GM_F64, 2, GM_CHW, 0, GM_HOST), GM_ERR_ARG, "gm_wrap", "align", NULL);
    EXPECT(gm_wrap(&m, buf + 1, 4, 4, GM_F16, 1, GM_HWC, 0, GM_HOST), GM_ERR_ARG, "gm_wrap", "align", NULL);
    EXPECT(gm_wrap(&m, buf, 0, 4, GM_U8, 1, GM_HWC, 0, GM_HOST), GM_ERR_SIZE, "gm_wrap", "width", NULL);
    EXPECT(gm_wrap(&m, buf, 4, -1, GM_U8, 1, GM_HWC, 0, GM_HOST), GM_ERR_SIZE, "gm_wrap", "height", NULL);
    EXPECT(gm_wrap(&m, buf, 4, 4, GM_U8, 3, GM_HWC, 11, GM_HOST), GM_ERR_SIZE, "gm_wrap", "pitch", NULL);
    EXPECT(gm_wrap(&m, buf, 4, 4, GM_S16, 1, GM_HWC, 9, GM_HOST), GM_ERR_SIZE, "gm_wrap", "pitch", NULL);
    EXPECT(gm_wrap(&m, buf, 4, 4, GM_U8, 1, GM_HWC, -8, GM_HOST), GM_ERR_SIZE, "gm_wrap", "pitch", NULL);
    EXPECT(gm_wrap(&m, buf, 4, 8, GM_U8, 1, GM_HWC, INT64_MAX / 4, GM_HOST), GM_ERR_SIZE, "gm_wrap", NULL, NULL);
    EXPECT(gm_wrap(&m, buf, INT32_MAX, INT32_MAX, GM_F64, 4, GM_HWC, 0, GM_HOST), GM_ERR_SIZE, "gm_wrap", NULL, NULL);
    EXPECT(gm_wrap(&m, buf, 4, 4, GM_U8, 0, GM_HWC, 0, GM_HOST), GM_ERR_TYPE, "gm_wrap", "channels", NULL);
    EXPECT(gm_wrap(&m, buf, 4, 4, (gm_dtype)9, 1, GM_HWC, 0, GM_HOST), GM_ERR_TYPE, "gm_wrap", "dtype", NULL);
    EXPECT(gm_wrap(&m, buf, 4, 4, GM_U8, 1, (gm_layout)5, 0, GM_HOST), GM_ERR_TYPE, "gm_wrap", "layout", NULL);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_wrap(&m, buf, 4, 4, GM_U8, 1, GM_HWC, 0, (gm_where)5), GM_ERR_ARG, "gm_wrap", "where", NULL);
    CHECK_SAFE(m);

    /* a host pointer wrapped as device memory: the driver says no, or is missing */
    memset(&m, 0x5a, sizeof m);
    reset_error();
    s = gm_wrap(&m, buf, 4, 4, GM_U8, 1, GM_HWC, 0, GM_DEVICE);
    CHECK(s == GM_ERR_LOCATION || is_no_gpu(s), "device wrap of host memory: %s (%s)", gm_status_string(s),
          gm_last_error());
    CHECK(g_dev ? s == GM_ERR_LOCATION : 1, "with a device, a host pointer is GM_ERR_LOCATION, got %s",
          gm_status_string(s));
    CHECK(strstr(gm_last_error(), "gm_wrap") != NULL, "message names gm_wrap: %s", gm_last_error());
    CHECK(strstr(gm_last_error(), s == GM_ERR_LOCATION ? "data" : "CUDA driver") != NULL,
          "message names data or the driver: %s", gm_last_error());
    CHECK_SAFE(m);

    /* gm_wrap_desc */
    d = mkdesc(4, 4, GM_U8, 3, GM_CHW);
    EXPECT(gm_wrap_desc(NULL, buf, &d, GM_HOST), GM_ERR_ARG, "gm_wrap_desc", "m", NULL);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_wrap_desc(&m, buf, NULL, GM_HOST), GM_ERR_ARG, "gm_wrap_desc", "desc", NULL);
    CHECK_SAFE(m);
    memset(&m, 0x5a, sizeof m);
    EXPECT(gm_wrap_desc(&m, buf, &d, (gm_where)9), GM_ERR_ARG, "gm_wrap_desc", "where", NULL);
    CHECK_SAFE(m);
    EXPECT(gm_wrap_desc(&m, NULL, &d, GM_HOST), GM_ERR_ARG, "gm_wrap_desc", "data", NULL);
    d.plane_pitch = 15; /* a plane is 16 bytes */
    EXPECT(gm_wrap_desc(&m, buf, &d, GM_HOST), GM_ERR_SIZE, "gm_wrap_desc", "plane_pitch", NULL);
    d.plane_pitch = 0;
    d.batch = 3;
    d.batch_pitch = 47;
    EXPECT(gm_wrap_desc(&m, buf, &d, GM_HOST), GM_ERR_SIZE, "gm_wrap_desc", "batch_pitch", NULL);
    d.batch = 0;
    d.batch_pitch = 0;
    d.channels = -1;
    EXPECT(gm_wrap_desc(&m, buf, &d, GM_HOST), GM_ERR_TYPE, "gm_wrap_desc", "channels", NULL);
    CHECK_SAFE(m);
    d = mkdesc(3, 5, GM_S32, 2, GM_CHW);
    d.pitch = 16;
    d.batch = 2;
    s = gm_wrap_desc(&m, buf, &d, GM_HOST);
    CHECK(s == GM_OK && m.data == buf && m.owned == NULL && m.plane_pitch == 80 && m.batch_pitch == 160,
          "good gm_wrap_desc: %s plane %lld batch %lld", gm_last_error(), (long long)m.plane_pitch,
          (long long)m.batch_pitch);
    gm_free(&m); /* frees nothing: ASan would catch a free of store */
    CHECK(m.data == NULL, "gm_free of a wrap zeroes it");

    gm_free(NULL);
    memset(&m, 0, sizeof m);
    gm_free(&m);
    CHECK(m.data == NULL && m.owned == NULL, "gm_free of a zeroed descriptor");
}

/* ---------------------------------------------------------------- views */

static void test_views(void)
{
    timg a, p, b;
    gm_mat v, vref, bad;
    gm_status s;
    timg_make(&a, 16, 8, GM_U8, 3, GM_HWC, 1);
    timg_make(&p, 6, 5, GM_F32, 3, GM_CHW, 1);
    timg_make(&b, 6, 5, GM_S16, 2, GM_HWC, 2);
    memset(&vref, 0x5a, sizeof vref);

#define VIEW_UNCHANGED() CHECK(memcmp(&v, &vref, sizeof v) == 0, "view written on failure")
    v = vref;
    EXPECT(gm_roi(NULL, &v, 0, 0, 1, 1), GM_ERR_ARG, "gm_roi", "m", &a, NULL);
    VIEW_UNCHANGED();
    EXPECT(gm_roi(&a.m, NULL, 0, 0, 1, 1), GM_ERR_ARG, "gm_roi", "view", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, -1, 0, 2, 2), GM_ERR_SIZE, "gm_roi", "x -1", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 0, -1, 2, 2), GM_ERR_SIZE, "gm_roi", "y -1", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 0, 0, 0, 2), GM_ERR_SIZE, "gm_roi", "width 0", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 0, 0, 2, 0), GM_ERR_SIZE, "gm_roi", "height 0", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 0, 0, -2, 2), GM_ERR_SIZE, "gm_roi", "width -2", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 10, 0, 7, 1), GM_ERR_SIZE, "gm_roi", "rectangle", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 0, 5, 1, 4), GM_ERR_SIZE, "gm_roi", "rectangle", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 0, 0, 17, 8), GM_ERR_SIZE, "gm_roi", "rectangle", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, INT64_MAX, 0, INT64_MAX, 1), GM_ERR_SIZE, "gm_roi", "rectangle", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, 1, 1, INT64_MAX, INT64_MAX), GM_ERR_SIZE, "gm_roi", "rectangle", &a, NULL);
    EXPECT(gm_roi(&a.m, &v, INT64_MIN, 0, 2, 2), GM_ERR_SIZE, "gm_roi", "x -9223372036854775808", &a, NULL);
    VIEW_UNCHANGED();
    bad = a.m;
    bad.data = NULL;
    EXPECT(gm_roi(&bad, &v, 0, 0, 1, 1), GM_ERR_ARG, "gm_roi", "m->data", NULL);
    bad = a.m;
    bad.channels = 0;
    EXPECT(gm_roi(&bad, &v, 0, 0, 1, 1), GM_ERR_TYPE, "gm_roi", "m->channels", NULL);
    bad = a.m;
    bad.pitch = 47; /* a row is 48 bytes */
    EXPECT(gm_roi(&bad, &v, 0, 0, 1, 1), GM_ERR_SIZE, "gm_roi", "m->pitch", NULL);
    VIEW_UNCHANGED();
    s = gm_roi(&a.m, &v, 15, 7, 1, 1);
    CHECK(s == GM_OK && v.data == a.buf + 7 * a.m.pitch + 45 && v.width == 1, "corner ROI: %s", gm_last_error());

    v = vref;
    EXPECT(gm_plane(NULL, &v, 0), GM_ERR_ARG, "gm_plane", "m", NULL);
    EXPECT(gm_plane(&p.m, NULL, 0), GM_ERR_ARG, "gm_plane", "view", NULL);
    EXPECT(gm_plane(&p.m, &v, -1), GM_ERR_ARG, "gm_plane", "channel", NULL);
    EXPECT(gm_plane(&p.m, &v, 3), GM_ERR_ARG, "gm_plane", "channel", NULL);
    EXPECT(gm_plane(&p.m, &v, INT_MIN), GM_ERR_ARG, "gm_plane", "channel", NULL);
    EXPECT(gm_plane(&a.m, &v, 0), GM_ERR_TYPE, "gm_plane", "interleaved", NULL);
    bad = p.m;
    bad.dtype = (gm_dtype)12;
    EXPECT(gm_plane(&bad, &v, 0), GM_ERR_TYPE, "gm_plane", "m->dtype", NULL);
    VIEW_UNCHANGED();
    s = gm_plane(&p.m, &v, 2);
    CHECK(s == GM_OK && v.data == p.buf + 2 * p.m.plane_pitch && v.channels == 1, "plane 2: %s", gm_last_error());

    v = vref;
    EXPECT(gm_item(NULL, &v, 0), GM_ERR_ARG, "gm_item", "m", NULL);
    EXPECT(gm_item(&b.m, NULL, 0), GM_ERR_ARG, "gm_item", "view", NULL);
    EXPECT(gm_item(&b.m, &v, -1), GM_ERR_ARG, "gm_item", "index", NULL);
    EXPECT(gm_item(&b.m, &v, 2), GM_ERR_ARG, "gm_item", "index", NULL);
    EXPECT(gm_item(&b.m, &v, INT_MAX), GM_ERR_ARG, "gm_item", "index", NULL);
    EXPECT(gm_item(&a.m, &v, 1), GM_ERR_ARG, "gm_item", "index", NULL);
    bad = b.m;
    bad.batch_pitch = 10; /* less than one image */
    EXPECT(gm_item(&bad, &v, 0), GM_ERR_SIZE, "gm_item", "m->batch_pitch", NULL);
    bad = b.m;
    bad.batch = 0;
    EXPECT(gm_item(&bad, &v, 0), GM_ERR_SIZE, "gm_item", "m", NULL);
    VIEW_UNCHANGED();
    s = gm_item(&b.m, &v, 1);
    CHECK(s == GM_OK && v.data == b.buf + b.m.batch_pitch && v.batch == 1 && v.owned == NULL, "item 1: %s",
          gm_last_error());
#undef VIEW_UNCHANGED

    /* typed views go through the same checks */
    {
        gm_u8c3_hwc ta, tv;
        ta.m = a.m;
        memset(&tv, 0x5a, sizeof tv);
        gm_f32c1_chw tf;
        float buf[16];
        EXPECT(gm_u8c3_hwc_roi(&ta, &tv, 12, 0, 5, 1), GM_ERR_SIZE, "gm_u8c3_hwc_roi", "rectangle", &a, NULL);
        EXPECT(gm_u8c3_hwc_roi(&ta, NULL, 0, 0, 1, 1), GM_ERR_ARG, "gm_u8c3_hwc_roi", "view is NULL", &a, NULL);
        EXPECT(gm_u8c3_hwc_alloc(&tv, 0, 4), GM_ERR_SIZE, "gm_u8c3_hwc_alloc", "width 0", NULL);
        EXPECT(gm_u8c3_hwc_alloc_host(&tv, 4, -1, 0), GM_ERR_SIZE, "gm_u8c3_hwc_alloc_host", "height -1", NULL);
        EXPECT(gm_u8c3_hwc_alloc_device(NULL, 4, 4), GM_ERR_ARG, "gm_u8c3_hwc_alloc_device", "m is NULL", NULL);
        EXPECT(gm_f32c1_chw_wrap(&tf, (char*)buf + 1, 2, 2, 0, GM_HOST), GM_ERR_ARG, "gm_f32c1_chw_wrap", "data", NULL);
        EXPECT(gm_f32c1_chw_wrap(&tf, buf, 2, 2, 6, GM_HOST), GM_ERR_SIZE, "gm_f32c1_chw_wrap", "pitch 6", NULL);
    }
    timg_free(&a);
    timg_free(&p);
    timg_free(&b);
}

/* -------------------------------------------------- copies and transfers */

static void test_copy(void)
{
    timg a, b, c16, ch, w9, b2, h1;
    gm_mat bad, s1, s2, dev;
    gm_status s;
    timg_make(&a, 8, 5, GM_U8, 3, GM_HWC, 1);
    timg_make(&b, 8, 5, GM_U8, 3, GM_HWC, 1);
    b.m.pitch += 7; /* a different pitch from a's */
    timg_make(&c16, 8, 5, GM_U16, 3, GM_HWC, 1);
    timg_make(&ch, 8, 5, GM_U8, 3, GM_CHW, 1);
    timg_make(&w9, 9, 5, GM_U8, 3, GM_HWC, 1);
    timg_make(&b2, 8, 5, GM_U8, 3, GM_HWC, 2);
    timg_make(&h1, 8, 5, GM_U8, 1, GM_HWC, 1);

    EXPECT(gm_copy(NULL, &b.m, NULL), GM_ERR_ARG, "gm_copy", "src", &b, NULL);
    EXPECT(gm_copy(&a.m, NULL, NULL), GM_ERR_ARG, "gm_copy", "dst", &a, NULL);
    EXPECT(gm_copy(&a.m, &w9.m, NULL), GM_ERR_SIZE, "gm_copy", "dst", &a, &w9, NULL);
    EXPECT(gm_copy(&a.m, &b2.m, NULL), GM_ERR_SIZE, "gm_copy", "dst", &a, &b2, NULL);
    EXPECT(gm_copy(&a.m, &c16.m, NULL), GM_ERR_TYPE, "gm_copy", "dst", &a, &c16, NULL);
    EXPECT(gm_copy(&a.m, &h1.m, NULL), GM_ERR_TYPE, "gm_copy", "dst", &a, &h1, NULL);
    EXPECT(gm_copy(&a.m, &ch.m, NULL), GM_ERR_TYPE, "gm_copy", "dst", &a, &ch, NULL);
    bad = b.m;
    bad.pitch = 23;
    EXPECT(gm_copy(&a.m, &bad, NULL), GM_ERR_SIZE, "gm_copy", "dst->pitch", &a, &b, NULL);
    bad = a.m;
    bad.data = NULL;
    EXPECT(gm_copy(&bad, &b.m, NULL), GM_ERR_ARG, "gm_copy", "src->data", &b, NULL);
    bad = c16.m;
    bad.data = c16.buf + 1;
    EXPECT(gm_copy(&c16.m, &bad, NULL), GM_ERR_ARG, "gm_copy", "dst->data", &c16, NULL);
    bad = a.m;
    bad.where = (gm_where)7;
    EXPECT(gm_copy(&bad, &b.m, NULL), GM_ERR_ARG, "gm_copy", "src->where", &b, NULL);
    /* overflowing descriptors (never dereferenced) */
    bad = a.m;
    bad.width = (int64_t)1 << 61;
    bad.dtype = GM_F64;
    bad.channels = 4;
    EXPECT(gm_copy(&bad, &b.m, NULL), GM_ERR_SIZE, "gm_copy", "src", &b, NULL);
    bad = a.m;
    bad.pitch = (int64_t)1 << 62;
    bad.height = 5;
    EXPECT(gm_copy(&bad, &b.m, NULL), GM_ERR_SIZE, "gm_copy", "src", &b, NULL);
    bad = b2.m;
    bad.batch_pitch = INT64_MAX - 10;
    EXPECT(gm_copy(&b2.m, &bad, NULL), GM_ERR_SIZE, "gm_copy", "dst", &b2, NULL);
    bad = ch.m;
    bad.channels = 4;
    bad.plane_pitch = INT64_MAX / 3;
    EXPECT(gm_copy(&bad, &ch.m, NULL), GM_ERR_SIZE, "gm_copy", "src", &ch, NULL);
    /* overlapping views of one buffer: rows 0-3 onto rows 1-4 */
    gm_roi(&a.m, &s1, 0, 0, 8, 4);
    gm_roi(&a.m, &s2, 0, 1, 8, 4);
    EXPECT(gm_copy(&s1, &s2, NULL), GM_ERR_OVERLAP, "gm_copy", "overlap", &a, NULL);
    EXPECT(gm_copy(&s2, &s1, NULL), GM_ERR_OVERLAP, "gm_copy", "overlap", &a, NULL);
    /* side by side: one pixel shared is an overlap, none is not (exact, not address ranges) */
    gm_roi(&a.m, &s1, 0, 0, 4, 5);
    gm_roi(&a.m, &s2, 3, 0, 4, 5); /* column 3 in both */
    EXPECT(gm_copy(&s1, &s2, NULL), GM_ERR_OVERLAP, "gm_copy", "overlap", &a, NULL);
    gm_roi(&a.m, &s2, 4, 0, 4, 5);
    s = gm_copy(&s1, &s2, NULL);
    CHECK(s == GM_OK && memcmp(a.buf + 12, a.buf, 12) == 0 && memcmp(a.buf + 4 * a.m.pitch + 12,
                                                                     a.buf + 4 * a.m.pitch, 12) == 0,
          "gm_copy between side-by-side ROIs of one image: %s", gm_last_error());
    timg_snap(&a);
    /* and the good copy, different pitches */
    s = gm_copy(&a.m, &b.m, NULL);
    CHECK(s == GM_OK && memcmp(b.buf + 2 * b.m.pitch, a.buf + 2 * a.m.pitch, 24) == 0, "good gm_copy: %s",
          gm_last_error());
    timg_snap(&b);

    /* gm_upload / gm_download of host images: plain copies (the CPU path) */
    {
        unsigned char host[1024], back[1024];
        timg hb, up;
        int same = 1, y, n;
        timg_make(&hb, 8, 5, GM_U16, 3, GM_HWC, 1);
        timg_make(&up, 6, 5, GM_S16, 2, GM_HWC, 2);
        memcpy(host, hb.buf, sizeof host < hb.n ? sizeof host : hb.n);
        EXPECT(gm_upload(NULL, host, 0, NULL), GM_ERR_ARG, "gm_upload", "dst", &hb, NULL);
        /* up: s16 x2, 6x5, a batch of 2 with padded rows, planes and items; host compact (24-byte rows) */
        s = gm_upload(&up.m, host, 0, NULL);
        for (n = 0; n < 2; ++n)
            for (y = 0; y < 5; ++y)
                same &= memcmp(up.buf + n * up.m.batch_pitch + y * up.m.pitch, host + (n * 5 + y) * 24, 24) == 0;
        CHECK(s == GM_OK && same, "gm_upload to host memory copies: %s", gm_last_error());
        memset(back, 0, sizeof back);
        s = gm_download_sync(&up.m, back, 40);
        for (n = 0, same = 1; n < 2; ++n)
            for (y = 0; y < 5; ++y)
                same &= memcmp(back + (n * 5 + y) * 40, host + (n * 5 + y) * 24, 24) == 0;
        CHECK(s == GM_OK && same, "gm_download_sync from host memory with host_pitch 40: %s", gm_last_error());
        bad = up.m;
        bad.where = GM_PINNED; /* pinned is host memory too */
        CHECK(gm_upload_sync(&bad, host + 240, 0) == GM_OK && memcmp(up.buf, host + 240, 24) == 0,
              "gm_upload_sync to pinned-marked memory: %s", gm_last_error());
        timg_snap(&up);
        EXPECT(gm_upload(&up.m, up.buf + 8, 0, NULL), GM_ERR_OVERLAP, "gm_upload", "host", &up, NULL);
        EXPECT(gm_download_sync(&up.m, up.buf + 2 * up.m.pitch, 0), GM_ERR_OVERLAP, "gm_download_sync", "host", &up,
               NULL);
        EXPECT(gm_download(NULL, hb.buf, 0, NULL), GM_ERR_ARG, "gm_download", "src", &hb, NULL);
        bad = c16.m;
        bad.channels = 0;
        EXPECT(gm_upload(&bad, host, 0, NULL), GM_ERR_TYPE, "gm_upload", "dst->channels", NULL);
        EXPECT(gm_download(&bad, hb.buf, 0, NULL), GM_ERR_TYPE, "gm_download", "src->channels", &hb, NULL);

        /* device descriptors: a real allocation when there is a device, else
         * a descriptor that only claims to be one; every call fails on its
         * arguments before any copy starts */
        if (g_dev)
            s = gm_alloc_device(&dev, 8, 5, GM_U16, 3, GM_HWC);
        else
            dev = fake_device(&c16), s = GM_OK;
        CHECK(s == GM_OK, "device u16 image: %s", gm_last_error());
        if (s == GM_OK) {
            EXPECT(gm_upload(&dev, NULL, 0, NULL), GM_ERR_ARG, "gm_upload", "host", &c16, NULL);
            EXPECT(gm_upload_sync(&dev, NULL, 0), GM_ERR_ARG, "gm_upload_sync", "host", &c16, NULL);
            EXPECT(gm_upload(&dev, host, -2, NULL), GM_ERR_SIZE, "gm_upload", "host_pitch", &c16, NULL);
            EXPECT(gm_upload(&dev, host, 46, NULL), GM_ERR_SIZE, "gm_upload", "host_pitch", &c16, NULL);
            EXPECT(gm_upload(&dev, host, 49, NULL), GM_ERR_SIZE, "gm_upload", "host_pitch", &c16, NULL);
            EXPECT(gm_upload(&dev, host + 1, 0, NULL), GM_ERR_ARG, "gm_upload", "host", &c16, NULL);
            EXPECT(gm_upload(&dev, host, INT64_MAX / 2, NULL), GM_ERR_SIZE, "gm_upload", "host", &c16, NULL);
            EXPECT(gm_download(&dev, NULL, 0, NULL), GM_ERR_ARG, "gm_download", "host", &c16, NULL);
            EXPECT(gm_download_sync(&dev, NULL, 0), GM_ERR_ARG, "gm_download_sync", "host", &c16, NULL);
            EXPECT(gm_download(&dev, hb.buf, -48, NULL), GM_ERR_SIZE, "gm_download", "host_pitch", &c16, &hb,
                   NULL);
            EXPECT(gm_download(&dev, hb.buf, 47, NULL), GM_ERR_SIZE, "gm_download", "host_pitch", &c16, &hb,
                   NULL);
            EXPECT(gm_download(&dev, hb.buf + 1, 0, NULL), GM_ERR_ARG, "gm_download", "host", &c16, &hb, NULL);
            EXPECT(gm_download_sync(&dev, hb.buf, 2), GM_ERR_SIZE, "gm_download_sync", "host_pitch", &c16, &hb, NULL);
            if (g_dev) {
                /* a real round trip through the device, to show the above failed on purpose */
                unsigned char back[240];
                s = gm_upload_sync(&dev, host, 0);
                CHECK(s == GM_OK, "gm_upload_sync: %s", gm_last_error());
                memset(back, 0, sizeof back);
                s = gm_download_sync(&dev, back, 0);
                CHECK(s == GM_OK && memcmp(back, host, sizeof back) == 0, "device round trip: %s", gm_last_error());
                gm_free(&dev);
            }
        }
        timg_free(&hb);
        timg_free(&up);
    }
    timg_free(&a);
    timg_free(&b);
    timg_free(&c16);
    timg_free(&ch);
    timg_free(&w9);
    timg_free(&b2);
    timg_free(&h1);
}

static void test_device_misc(void)
{
    int major = -7, minor = -7;
    char name[64];
    gm_status s;
    gm_mat m;
    size_t i;
    int64_t r;

    memset(name, 'Z', sizeof name);
    reset_error();
    s = gm_device(&major, &minor, name, 5);
    CHECK(s == GM_OK || is_no_gpu(s), "gm_device: %s (%s)", gm_status_string(s), gm_last_error());
    CHECK(g_dev ? s == GM_OK : 1, "gm_alloc_device works but gm_device says %s", gm_status_string(s));
    if (s == GM_OK) {
        CHECK(major >= 3 && minor >= 0, "compute capability %d.%d", major, minor);
        for (i = 5; i < sizeof name; ++i)
            CHECK(name[i] == 'Z', "gm_device wrote name[%zu] with name_size 5", i);
        s = gm_device(NULL, NULL, NULL, 0);
        CHECK(s == GM_OK, "gm_device with NULL outputs: %s", gm_last_error());
        memset(name, 'Z', sizeof name);
        s = gm_device(NULL, NULL, name, 0);
        CHECK(s == GM_OK && name[0] == 'Z', "gm_device wrote a name of size 0");
    } else {
        CHECK(major == -7 && minor == -7 && name[0] == 'Z', "gm_device wrote outputs on failure");
        CHECK(strstr(gm_last_error(), "gm_device") != NULL, "message names gm_device: %s", gm_last_error());
    }

    reset_error();
    s = gm_sync(NULL); /* waits on the GPU path; nothing to wait for on the CPU path */
    CHECK(s == GM_OK, "gm_sync(NULL): %s (%s)", gm_status_string(s), gm_last_error());

    /* sizes */
    CHECK(gm_row_bytes(NULL) == 0, "gm_row_bytes(NULL) = %lld", (long long)gm_row_bytes(NULL));
    CHECK(gm_span_bytes(NULL) == 0, "gm_span_bytes(NULL) = %lld", (long long)gm_span_bytes(NULL));
    memset(&m, 0, sizeof m);
    m.width = 7;
    m.height = 3;
    m.channels = 3;
    m.batch = 2;
    m.dtype = GM_F32;
    m.layout = GM_HWC;
    m.pitch = 100;
    m.batch_pitch = 400;
    CHECK(gm_row_bytes(&m) == 84, "HWC row bytes %lld", (long long)gm_row_bytes(&m));
    CHECK(gm_span_bytes(&m) == 400 + 200 + 84, "HWC span %lld", (long long)gm_span_bytes(&m));
    m.layout = GM_CHW;
    m.pitch = 28;
    m.plane_pitch = 96;
    m.batch_pitch = 300;
    CHECK(gm_row_bytes(&m) == 28, "CHW row bytes %lld", (long long)gm_row_bytes(&m));
    CHECK(gm_span_bytes(&m) == 300 + 192 + 56 + 28, "CHW span %lld", (long long)gm_span_bytes(&m));
    m.layout = GM_HWC;
    m.height = (int64_t)1 << 20;
    m.pitch = (int64_t)1 << 45;
    m.batch = 1;
    CHECK(gm_span_bytes(&m) == -1, "overflowing span %lld", (long long)gm_span_bytes(&m));
    m.height = 1;
    m.batch = 3;
    m.batch_pitch = INT64_MAX / 2;
    CHECK(gm_span_bytes(&m) == -1, "overflowing batch span %lld", (long long)gm_span_bytes(&m));
    m.batch = 1;
    m.width = (int64_t)1 << 61;
    m.dtype = GM_F64;
    m.channels = 4;
    r = gm_row_bytes(&m);
    CHECK(r == -1, "overflowing row: gm_row_bytes = %lld, want -1", (long long)r);
    CHECK(gm_span_bytes(&m) == -1, "overflowing row span %lld", (long long)gm_span_bytes(&m));

    /* gm_xform_identity */
    {
        gm_xform x = gm_xform_identity();
        int c, ok = 1;
        for (c = 0; c < 4; ++c)
            ok &= x.map[c] == c && x.pre[c] == 0.0 && x.scale[c] == 1.0 && x.offset[c] == 0.0;
        CHECK(ok, "gm_xform_identity");
        CHECK(GM_CONST == -1, "GM_CONST %d", GM_CONST);
    }
}

/* ----------------------------------------------------------- operations */

static void test_transform_convert(void)
{
    timg src, dst, d6, db, d16, sb, d2;
    gm_mat bad, fake_s, fake_d, ov;
    gm_xform x = gm_xform_identity();
    gm_status s;
    timg_make(&src, 9, 7, GM_U8, 3, GM_HWC, 1);
    timg_make(&dst, 9, 7, GM_F32, 4, GM_CHW, 1);
    timg_make(&d6, 9, 6, GM_F32, 4, GM_CHW, 1);
    timg_make(&db, 9, 7, GM_F32, 4, GM_CHW, 2);
    timg_make(&d16, 9, 7, GM_F16, 3, GM_HWC, 1);
    timg_make(&sb, 9, 7, GM_U8, 3, GM_HWC, 2);
    timg_make(&d2, 9, 7, GM_S32, 1, GM_HWC, 1);
    x.map[3] = GM_CONST;

    EXPECT(gm_transform(NULL, &dst.m, &x, NULL), GM_ERR_ARG, "gm_transform", "src", &dst, NULL);
    EXPECT(gm_transform(&src.m, NULL, &x, NULL), GM_ERR_ARG, "gm_transform", "dst", &src, NULL);
    EXPECT(gm_transform(&src.m, &dst.m, NULL, NULL), GM_ERR_ARG, "gm_transform", "xform", &src, &dst, NULL);
    x.map[1] = 3;
    EXPECT(gm_transform(&src.m, &dst.m, &x, NULL), GM_ERR_ARG, "gm_transform", "map[1]", &src, &dst, NULL);
    x.map[1] = 1;
    x.map[0] = -2;
    EXPECT(gm_transform(&src.m, &dst.m, &x, NULL), GM_ERR_ARG, "gm_transform", "map[0]", &src, &dst, NULL);
    x.map[0] = 0;
    x.map[3] = INT_MAX;
    EXPECT(gm_transform(&src.m, &dst.m, &x, NULL), GM_ERR_ARG, "gm_transform", "map[3]", &src, &dst, NULL);
    x.map[3] = INT_MIN;
    EXPECT(gm_transform(&src.m, &dst.m, &x, NULL), GM_ERR_ARG, "gm_transform", "map[3]", &src, &dst, NULL);
    x.map[3] = GM_CONST;
    bad = src.m;
    bad.dtype = (gm_dtype)42;
    EXPECT(gm_transform(&bad, &dst.m, &x, NULL), GM_ERR_TYPE, "gm_transform", "src->dtype", &src, &dst, NULL);
    bad = dst.m;
    bad.channels = 0;
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_TYPE, "gm_transform", "dst->channels", &src, &dst, NULL);
    bad = dst.m;
    bad.layout = (gm_layout)3;
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_TYPE, "gm_transform", "dst->layout", &src, &dst, NULL);
    bad = dst.m;
    bad.where = (gm_where)7;
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_ARG, "gm_transform", "dst->where", &src, &dst, NULL);
    bad = dst.m;
    bad.pitch = 35; /* a row is 36 bytes */
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_SIZE, "gm_transform", "dst->pitch", &src, &dst, NULL);
    bad = dst.m;
    bad.pitch = 38; /* not whole floats */
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_SIZE, "gm_transform", "dst->pitch", &src, &dst, NULL);
    bad = dst.m;
    bad.data = dst.buf + 2;
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_ARG, "gm_transform", "dst->data", &src, &dst, NULL);
    bad = dst.m;
    bad.height = -7;
    EXPECT(gm_transform(&src.m, &bad, &x, NULL), GM_ERR_SIZE, "gm_transform", "dst", &src, &dst, NULL);
    EXPECT(gm_transform(&src.m, &d6.m, &x, NULL), GM_ERR_SIZE, "gm_transform", "dst", &src, &d6, NULL);
    EXPECT(gm_transform(&src.m, &db.m, &x, NULL), GM_ERR_SIZE, "gm_transform", "dst", &src, &db, NULL);
    /* host and "device" mixed, and two devices */
    fake_d = fake_device(&dst);
    fake_s = fake_device(&src);
    EXPECT(gm_transform(&src.m, &fake_d, &x, NULL), GM_ERR_LOCATION, "gm_transform", "dst", &src, &dst, NULL);
    EXPECT(gm_transform(&fake_s, &dst.m, &x, NULL), GM_ERR_LOCATION, "gm_transform", "src", &src, &dst, NULL);
    fake_d.device = 1;
    EXPECT(gm_transform(&fake_s, &fake_d, &x, NULL), GM_ERR_LOCATION, "gm_transform", "dst on device 1", &src,
           &dst, NULL);
    /* overlap: dst's buffer seen as a 3-channel u8 source */
    ov = src.m;
    ov.data = dst.buf + 4;
    EXPECT(gm_transform(&ov, &dst.m, &x, NULL), GM_ERR_OVERLAP, "gm_transform", "src and dst overlap", &dst, NULL);
    /* map entries beyond dst's channels are not read */
    {
        gm_xform y = gm_xform_identity();
        y.map[3] = 99;
        s = gm_transform(&src.m, &d16.m, &y, NULL);
        CHECK(s == GM_OK, "map[3] of a 3-channel dst is ignored: %s", gm_last_error());
        timg_snap(&d16);
    }
    s = gm_transform(&src.m, &dst.m, &x, NULL);
    CHECK(s == GM_OK && !timg_same(&dst), "good gm_transform: %s", gm_last_error());
    timg_snap(&dst);

    /* gm_convert */
    EXPECT(gm_convert(NULL, &d16.m, 1, 0, NULL), GM_ERR_ARG, "gm_convert", "src", &d16, NULL);
    EXPECT(gm_convert(&src.m, NULL, 1, 0, NULL), GM_ERR_ARG, "gm_convert", "dst", &src, NULL);
    EXPECT(gm_convert(&src.m, &dst.m, 1, 0, NULL), GM_ERR_TYPE, "gm_convert", "src has 3 channels, dst 4", &src, &dst,
           NULL);
    EXPECT(gm_convert(&src.m, &d2.m, 1, 0, NULL), GM_ERR_TYPE, "gm_convert", "src has 3 channels, dst 1", &src, &d2,
           NULL);
    bad = d16.m; /* same bytes per row, planar */
    bad.layout = GM_CHW;
    bad.plane_pitch = d16.m.pitch * 7;
    bad.pitch = d16.m.pitch;
    EXPECT(gm_convert(&src.m, &bad, 1, 0, NULL), GM_ERR_TYPE, "gm_convert", "dst planar", &src, &d16, NULL);
    EXPECT(gm_convert(&sb.m, &d16.m, 1, 0, NULL), GM_ERR_SIZE, "gm_convert", "dst", &sb, &d16, NULL);
    EXPECT(gm_convert(&src.m, &src.m, 2, 1, NULL), GM_ERR_OVERLAP, "gm_convert", "src and dst overlap", &src, NULL);
    fake_d = fake_device(&d16);
    EXPECT(gm_convert(&src.m, &fake_d, 1, 0, NULL), GM_ERR_LOCATION, "gm_convert", "dst", &src, &d16, NULL);
    bad = d16.m;
    bad.data = NULL;
    EXPECT(gm_convert(&src.m, &bad, 1, 0, NULL), GM_ERR_ARG, "gm_convert", "dst->data", &src, NULL);
    s = gm_convert(&src.m, &d16.m, 0.5, 3, NULL);
    CHECK(s == GM_OK && !timg_same(&d16), "good gm_convert: %s", gm_last_error());
    timg_snap(&d16);

    timg_free(&src);
    timg_free(&dst);
    timg_free(&d6);
    timg_free(&db);
    timg_free(&d16);
    timg_free(&sb);
    timg_free(&d2);
}

static void test_split_merge(void)
{
    timg hwc, chw, chw16, hwc4, hwc2, h16, pl[3], p2, p16, p8w;
    gm_mat planes[3], bad, fake;
    gm_status s;
    int c;
    timg_make(&hwc, 9, 7, GM_U8, 3, GM_HWC, 1);
    timg_make(&chw, 9, 7, GM_U8, 3, GM_CHW, 1);
    timg_make(&chw16, 9, 7, GM_U16, 3, GM_CHW, 1);
    timg_make(&hwc4, 9, 7, GM_U8, 4, GM_HWC, 1);
    timg_make(&hwc2, 9, 7, GM_U8, 3, GM_HWC, 1);
    timg_make(&h16, 9, 7, GM_U16, 3, GM_HWC, 1);
    for (c = 0; c < 3; ++c) {
        timg_make(&pl[c], 9, 7, GM_U8, 1, GM_HWC, 1);
        pl[c].m.pitch += 2 * c; /* planes of different pitches */
    }
    timg_make(&p2, 9, 7, GM_U8, 2, GM_HWC, 1);
    timg_make(&p16, 9, 7, GM_U16, 1, GM_HWC, 1);
    timg_make(&p8w, 8, 7, GM_U8, 1, GM_HWC, 1);
#define PL &pl[0], &pl[1], &pl[2]
#define SET_PLANES() (planes[0] = pl[0].m, planes[1] = pl[1].m, planes[2] = pl[2].m)

    /* gm_split / gm_merge */
    EXPECT(gm_split(NULL, &chw.m, NULL), GM_ERR_ARG, "gm_split", "src", &chw, NULL);
    EXPECT(gm_split(&hwc.m, NULL, NULL), GM_ERR_ARG, "gm_split", "dst", &hwc, NULL);
    EXPECT(gm_split(&hwc.m, &hwc2.m, NULL), GM_ERR_TYPE, "gm_split", "dst is interleaved", &hwc, &hwc2, NULL);
    EXPECT(gm_split(&chw.m, &hwc.m, NULL), GM_ERR_TYPE, "gm_split", "src is planar", &chw, &hwc, NULL);
    EXPECT(gm_split(&hwc.m, &chw16.m, NULL), GM_ERR_TYPE, "gm_split", "dst is u16", &hwc, &chw16, NULL);
    EXPECT(gm_split(&hwc4.m, &chw.m, NULL), GM_ERR_TYPE, "gm_split", "src has 4 channels, dst 3", &hwc4, &chw, NULL);
    fake = fake_device(&chw);
    EXPECT(gm_split(&hwc.m, &fake, NULL), GM_ERR_LOCATION, "gm_split", "dst", &hwc, &chw, NULL);
    bad = chw.m;
    bad.data = hwc.buf;
    EXPECT(gm_split(&hwc.m, &bad, NULL), GM_ERR_OVERLAP, "gm_split", "src and dst overlap", &hwc, NULL);
    EXPECT(gm_merge(NULL, &hwc.m, NULL), GM_ERR_ARG, "gm_merge", "src", &hwc, NULL);
    EXPECT(gm_merge(&chw.m, NULL, NULL), GM_ERR_ARG, "gm_merge", "dst", &chw, NULL);
    EXPECT(gm_merge(&hwc.m, &hwc2.m, NULL), GM_ERR_TYPE, "gm_merge", "src is interleaved", &hwc, &hwc2, NULL);
    bad = hwc2.m; /* planar u8 over hwc2's buffer */
    bad.layout = GM_CHW;
    bad.pitch = 9;
    bad.plane_pitch = 63;
    EXPECT(gm_merge(&chw.m, &bad, NULL), GM_ERR_TYPE, "gm_merge", "dst is planar", &chw, &hwc2, NULL);
    EXPECT(gm_merge(&chw16.m, &hwc.m, NULL), GM_ERR_TYPE, "gm_merge", "dst is u8", &chw16, &hwc, NULL);
    EXPECT(gm_merge(&chw.m, &hwc4.m, NULL), GM_ERR_TYPE, "gm_merge", "src has 3 channels, dst 4", &chw, &hwc4, NULL);
    EXPECT(gm_merge(&chw.m, &fake, NULL), GM_ERR_LOCATION, "gm_merge", "dst", &chw, NULL);
    s = gm_split(&hwc.m, &chw.m, NULL);
    CHECK(s == GM_OK && !timg_same(&chw), "good gm_split: %s", gm_last_error());
    timg_snap(&chw);

    /* gm_split_planes */
    SET_PLANES();
    EXPECT(gm_split_planes(NULL, planes, NULL), GM_ERR_ARG, "gm_split_planes", "src", PL, NULL);
    EXPECT(gm_split_planes(&hwc.m, NULL, NULL), GM_ERR_ARG, "gm_split_planes", "planes", &hwc, NULL);
    planes[1] = p2.m;
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_TYPE, "gm_split_planes", "planes[1]", &hwc, PL, &p2,
           NULL);
    SET_PLANES();
    planes[2] = p16.m;
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_TYPE, "gm_split_planes", "planes[2]", &hwc, PL, &p16,
           NULL);
    SET_PLANES();
    planes[1] = p8w.m;
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_SIZE, "gm_split_planes", "planes[1]", &hwc, PL, &p8w,
           NULL);
    SET_PLANES();
    planes[2].data = NULL;
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_ARG, "gm_split_planes", "planes[2]", &hwc, PL, NULL);
    SET_PLANES();
    planes[1].where = GM_DEVICE;
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_LOCATION, "gm_split_planes", "planes[1]", &hwc, PL,
           NULL);
    SET_PLANES();
    planes[1] = planes[0];
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_OVERLAP, "gm_split_planes", "planes[1]", &hwc, PL, NULL);
    SET_PLANES();
    planes[2] = planes[1];
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_OVERLAP, "gm_split_planes", "planes[2]", &hwc, PL, NULL);
    SET_PLANES();
    planes[2].data = (unsigned char*)planes[1].data + 5; /* partly on planes[1] */
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_OVERLAP, "gm_split_planes", "planes[2]", &hwc, PL, NULL);
    SET_PLANES();
    planes[0].data = hwc.buf + 10;
    EXPECT(gm_split_planes(&hwc.m, planes, NULL), GM_ERR_OVERLAP, "gm_split_planes", "planes[0]", &hwc, PL, NULL);
    SET_PLANES();
    s = gm_split_planes(&hwc.m, planes, NULL);
    CHECK(s == GM_OK && !timg_same(&pl[0]) && !timg_same(&pl[2]), "good gm_split_planes: %s", gm_last_error());
    for (c = 0; c < 3; ++c)
        timg_snap(&pl[c]);

    /* gm_merge_planes */
    SET_PLANES();
    EXPECT(gm_merge_planes(NULL, 3, &hwc2.m, NULL), GM_ERR_ARG, "gm_merge_planes", "planes", &hwc2, NULL);
    EXPECT(gm_merge_planes(planes, 3, NULL, NULL), GM_ERR_ARG, "gm_merge_planes", "dst", PL, NULL);
    EXPECT(gm_merge_planes(planes, 2, &hwc2.m, NULL), GM_ERR_ARG, "gm_merge_planes", "count", PL, &hwc2, NULL);
    EXPECT(gm_merge_planes(planes, 0, &hwc2.m, NULL), GM_ERR_ARG, "gm_merge_planes", "count", PL, &hwc2, NULL);
    EXPECT(gm_merge_planes(planes, -1, &hwc2.m, NULL), GM_ERR_ARG, "gm_merge_planes", "count", PL, &hwc2, NULL);
    EXPECT(gm_merge_planes(planes, 4, &hwc2.m, NULL), GM_ERR_ARG, "gm_merge_planes", "count", PL, &hwc2, NULL);
    planes[1] = p8w.m;
    EXPECT(gm_merge_planes(planes, 3, &hwc2.m, NULL), GM_ERR_SIZE, "gm_merge_planes", "planes[1]", PL, &p8w, &hwc2,
           NULL);
    SET_PLANES();
    planes[2] = p16.m;
    EXPECT(gm_merge_planes(planes, 3, &hwc2.m, NULL), GM_ERR_TYPE, "gm_merge_planes", "planes[2]", PL, &p16, &hwc2,
           NULL);
    SET_PLANES();
    planes[0] = p2.m;
    EXPECT(gm_merge_planes(planes, 3, &hwc2.m, NULL), GM_ERR_TYPE, "gm_merge_planes", "planes[0]", PL, &p2, &hwc2,
           NULL);
    SET_PLANES();
    planes[1].data = NULL;
    EXPECT(gm_merge_planes(planes, 3, &hwc2.m, NULL), GM_ERR_ARG, "gm_merge_planes", "planes[1]", PL, &hwc2, NULL);
    SET_PLANES();
    planes[2].where = GM_DEVICE;
    EXPECT(gm_merge_planes(planes, 3, &hwc2.m, NULL), GM_ERR_LOCATION, "gm_merge_planes", "planes[2]", PL, &hwc2,
           NULL);
    SET_PLANES();
    planes[1].data = hwc2.buf + 3;
    EXPECT(gm_merge_planes(planes, 3, &hwc2.m, NULL), GM_ERR_OVERLAP, "gm_merge_planes", "planes[1] and dst overlap",
           PL, &hwc2, NULL);
    SET_PLANES();
    EXPECT(gm_merge_planes(planes, 3, &hwc4.m, NULL), GM_ERR_ARG, "gm_merge_planes", "count", PL, &hwc4, NULL);
    EXPECT(gm_merge_planes(planes, 3, &h16.m, NULL), GM_ERR_TYPE, "gm_merge_planes", "planes[0]", PL, &h16, NULL);
    s = gm_merge_planes(planes, 3, &hwc2.m, NULL);
    CHECK(s == GM_OK && !timg_same(&hwc2), "good gm_merge_planes: %s", gm_last_error());
#undef PL
#undef SET_PLANES
    timg_free(&hwc);
    timg_free(&chw);
    timg_free(&chw16);
    timg_free(&hwc4);
    timg_free(&hwc2);
    timg_free(&h16);
    for (c = 0; c < 3; ++c)
        timg_free(&pl[c]);
    timg_free(&p2);
    timg_free(&p16);
    timg_free(&p8w);
}

/* ------------------------------------------------------------- gm_resize */

static void test_resize(void)
{
    timg s3, d3, d1, df, dbatch, s32, d32, chw;
    gm_mat fake, bad;
    timg_make(&s3, 11, 6, GM_U8, 3, GM_HWC, 1);
    timg_make(&d3, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&d1, 7, 4, GM_U8, 1, GM_HWC, 1);
    timg_make(&df, 7, 4, GM_F32, 3, GM_HWC, 1);
    timg_make(&dbatch, 7, 4, GM_U8, 3, GM_HWC, 2);
    timg_make(&s32, 11, 6, GM_S32, 3, GM_HWC, 1);
    timg_make(&d32, 7, 4, GM_S32, 3, GM_HWC, 1);
    timg_make(&chw, 6, 3, GM_U8, 3, GM_CHW, 1);

    EXPECT(gm_resize(NULL, &d3.m, GM_INTER_LINEAR, NULL), GM_ERR_ARG, "gm_resize", "src", &d3, NULL);
    EXPECT(gm_resize(&s3.m, NULL, GM_INTER_LINEAR, NULL), GM_ERR_ARG, "gm_resize", "dst", &s3, NULL);
    EXPECT(gm_resize(&s3.m, &d3.m, (gm_interp)4, NULL), GM_ERR_ARG, "gm_resize", "interp 4", &s3, &d3, NULL);
    EXPECT(gm_resize(&s3.m, &d3.m, (gm_interp)-1, NULL), GM_ERR_ARG, "gm_resize", "interp -1", &s3, &d3, NULL);
    EXPECT(gm_resize(&s3.m, &d1.m, GM_INTER_LINEAR, NULL), GM_ERR_TYPE, "gm_resize", "dst is u8 x1", &s3, &d1, NULL);
    EXPECT(gm_resize(&s3.m, &df.m, GM_INTER_AREA, NULL), GM_ERR_TYPE, "gm_resize", "dst is f32 x3", &s3, &df, NULL);
    EXPECT(gm_resize(&s3.m, &dbatch.m, GM_INTER_NEAREST, NULL), GM_ERR_SIZE, "gm_resize", "batch", &s3, &dbatch,
           NULL);
    EXPECT(gm_resize(&s32.m, &d32.m, GM_INTER_LINEAR_EXACT, NULL), GM_OK, "gm_resize", NULL, &s32, NULL);
    fake = fake_device(&d3);
    EXPECT(gm_resize(&s3.m, &fake, GM_INTER_LINEAR, NULL), GM_ERR_LOCATION, "gm_resize", "dst", &s3, &d3, NULL);
    bad = d3.m;
    bad.data = s3.buf + 5;
    EXPECT(gm_resize(&s3.m, &bad, GM_INTER_LINEAR, NULL), GM_ERR_OVERLAP, "gm_resize", "src and dst overlap", &s3,
           NULL);
    bad = s3.m;
    bad.pitch = 2;
    EXPECT(gm_resize(&bad, &d3.m, GM_INTER_LINEAR, NULL), GM_ERR_SIZE, "gm_resize", "src->pitch", &s3, &d3, NULL);

    EXPECT(gm_resize_scale(&s3.m, &d3.m, 0.0, 0.5, GM_INTER_LINEAR, NULL), GM_ERR_ARG, "gm_resize_scale", "fx 0",
           &s3, &d3, NULL);
    EXPECT(gm_resize_scale(&s3.m, &d3.m, 0.5, NAN, GM_INTER_LINEAR, NULL), GM_ERR_ARG, "gm_resize_scale", "fy nan",
           &s3, &d3, NULL);
    EXPECT(gm_resize_scale(&s3.m, &d3.m, INFINITY, 0.5, GM_INTER_LINEAR, NULL), GM_ERR_ARG, "gm_resize_scale",
           "fx inf", &s3, &d3, NULL);
    /* 11 x 0.5 = 5.5 rounds to 6 (half to even), 6 x 0.5 = 3: dst must be 6x3, not 7x4 */
    EXPECT(gm_resize_scale(&s3.m, &d3.m, 0.5, 0.5, GM_INTER_LINEAR, NULL), GM_ERR_SIZE, "gm_resize_scale",
           "makes 6x3, but dst is 7x4", &s3, &d3, NULL);
    EXPECT(gm_resize_scale(&s3.m, &chw.m, 0.5, 0.5, GM_INTER_AREA, NULL), GM_OK, "gm_resize_scale", NULL, &s3, NULL);
    EXPECT(gm_resize(&s3.m, &d3.m, GM_INTER_AREA, NULL), GM_OK, "gm_resize", NULL, &s3, NULL);
    timg_free(&s3);
    timg_free(&d3);
    timg_free(&d1);
    timg_free(&df);
    timg_free(&dbatch);
    timg_free(&s32);
    timg_free(&d32);
    timg_free(&chw);
}

static void test_fill(void)
{
    static const double v[4] = {1, 2, 3, 4};
    timg d3;
    gm_mat bad;
    timg_make(&d3, 7, 4, GM_U8, 3, GM_HWC, 1);
    EXPECT(gm_fill(NULL, v, NULL), GM_ERR_ARG, "gm_fill", "dst", NULL);
    EXPECT(gm_fill(&d3.m, NULL, NULL), GM_ERR_ARG, "gm_fill", "value", &d3, NULL);
    bad = d3.m;
    bad.pitch = 2;
    EXPECT(gm_fill(&bad, v, NULL), GM_ERR_SIZE, "gm_fill", "dst->pitch", &d3, NULL);
    bad = d3.m;
    bad.channels = 5;
    EXPECT(gm_fill(&bad, v, NULL), GM_ERR_TYPE, "gm_fill", "channels 5", &d3, NULL);
    timg_free(&d3);
}

/* The warp matrices (gpumat/warp.h): refusals name the argument and leave
 * the result as it was. */
static void test_warp_matrices(void)
{
    static const float tri[6] = {0, 0, 10, 1, 2, 9}, line[6] = {0, 0, 1, 1, 2, 2};
    static const float quad[8] = {0, 0, 10, 0, 10, 10, 0, 10}, flat[8] = {0, 0, 1, 0, 2, 0, 0, 5};
    static const double pts[6] = {1, 2, 5, 1, 3, 7}, same[6] = {4, 4, 4, 4, 4, 4};
    const float nan_f = (float)NAN;
    float bad_tri[6], bad_quad[8];
    double M[9], keep[9], sing[6] = {1, 2, 3, 2, 4, 6}, bad[6];
    int i;
    memcpy(bad_tri, tri, sizeof tri), memcpy(bad_quad, quad, sizeof quad), memcpy(bad, pts, sizeof bad);
    bad_tri[3] = nan_f, bad_quad[5] = (float)INFINITY, bad[4] = NAN;
    for (i = 0; i < 9; ++i)
        keep[i] = M[i] = 1000 + i;
#define KEPT(what) count_ok(memcmp(M, keep, sizeof M) == 0, __LINE__, "the matrix was written", what)
    EXPECT(gm_rotation_matrix(1, 2, 30, 1, NULL), GM_ERR_ARG, "gm_rotation_matrix", "M", NULL);
    EXPECT(gm_rotation_matrix(nan_f, 2, 30, 1, M), GM_ERR_ARG, "gm_rotation_matrix", "center_x", NULL);
    EXPECT(gm_rotation_matrix(1, 2, INFINITY, 1, M), GM_ERR_ARG, "gm_rotation_matrix", "angle", NULL);
    EXPECT(gm_rotation_matrix(1, 2, 30, NAN, M), GM_ERR_ARG, "gm_rotation_matrix", "scale", NULL);
    KEPT("gm_rotation_matrix");
    EXPECT(gm_affine_from_points(NULL, tri, M), GM_ERR_ARG, "gm_affine_from_points", "src", NULL);
    EXPECT(gm_affine_from_points(tri, NULL, M), GM_ERR_ARG, "gm_affine_from_points", "dst", NULL);
    EXPECT(gm_affine_from_points(tri, tri, NULL), GM_ERR_ARG, "gm_affine_from_points", "M", NULL);
    EXPECT(gm_affine_from_points(tri, bad_tri, M), GM_ERR_ARG, "gm_affine_from_points", "dst[3]", NULL);
    EXPECT(gm_affine_from_points(line, tri, M), GM_ERR_ARG, "gm_affine_from_points", "collinear", NULL);
    KEPT("gm_affine_from_points");
    EXPECT(gm_perspective_from_points(bad_quad, quad, M), GM_ERR_ARG, "gm_perspective_from_points", "src[5]", NULL);
    EXPECT(gm_perspective_from_points(flat, quad, M), GM_ERR_ARG, "gm_perspective_from_points", "collinear", NULL);
    EXPECT(gm_perspective_from_points(quad, quad, NULL), GM_ERR_ARG, "gm_perspective_from_points", "M", NULL);
    KEPT("gm_perspective_from_points");
    EXPECT(gm_invert_affine(NULL, M), GM_ERR_ARG, "gm_invert_affine", "M", NULL);
    EXPECT(gm_invert_affine(pts, NULL), GM_ERR_ARG, "gm_invert_affine", "inverse", NULL);
    EXPECT(gm_invert_affine(bad, M), GM_ERR_ARG, "gm_invert_affine", "M[4]", NULL);
    EXPECT(gm_invert_affine(sing, M), GM_ERR_ARG, "gm_invert_affine", "singular", NULL);
    KEPT("gm_invert_affine");
    EXPECT(gm_similarity_from_points(pts, pts, 1, M), GM_ERR_ARG, "gm_similarity_from_points", "count 1", NULL);
    EXPECT(gm_similarity_from_points(NULL, pts, 3, M), GM_ERR_ARG, "gm_similarity_from_points", "src", NULL);
    EXPECT(gm_similarity_from_points(pts, bad, 3, M), GM_ERR_ARG, "gm_similarity_from_points", "dst[4]", NULL);
    EXPECT(gm_similarity_from_points(same, pts, 3, M), GM_ERR_ARG, "gm_similarity_from_points", "coincide", NULL);
    EXPECT(gm_similarity_from_points(pts, pts, 3, NULL), GM_ERR_ARG, "gm_similarity_from_points", "M", NULL);
    KEPT("gm_similarity_from_points");
#undef KEPT
}

/* gm_warp_affine and gm_warp_perspective refuse, naming the argument,
 * and write nothing. */
static void test_warps(void)
{
    static const double id6[6] = {1, 0, 0, 0, 1, 0}, flat6[6] = {1, 2, 0, 2, 4, 0};
    static const double id9[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, flat9[9] = {1, 2, 3, 2, 4, 6, 0, 0, 1};
    double nan6[6], three[18];
    timg a, d, f32, four, batch3, batch2;
    gm_mat wide, over = {0}, dev;
    gm_warp_params p;
    memcpy(nan6, id6, sizeof nan6), memcpy(three, id6, sizeof id6), memcpy(three + 6, flat6, sizeof flat6);
    memcpy(three + 12, id6, sizeof id6);
    nan6[5] = NAN;
    memset(&p, 0, sizeof p);
    timg_make(&a, 9, 7, GM_U8, 3, GM_HWC, 1);
    timg_make(&d, 5, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&f32, 5, 4, GM_F32, 3, GM_HWC, 1);
    timg_make(&four, 5, 4, GM_U8, 4, GM_HWC, 1);
    timg_make(&batch3, 5, 4, GM_U8, 3, GM_HWC, 3);
    timg_make(&batch2, 9, 7, GM_U8, 3, GM_HWC, 2);
    EXPECT(gm_warp_affine(NULL, &d.m, id6, NULL, NULL), GM_ERR_ARG, "gm_warp_affine", "src", &d, NULL);
    EXPECT(gm_warp_affine(&a.m, NULL, id6, NULL, NULL), GM_ERR_ARG, "gm_warp_affine", "dst", &a, NULL);
    EXPECT(gm_warp_affine(&a.m, &d.m, NULL, NULL, NULL), GM_ERR_ARG, "gm_warp_affine", "M is NULL", &a, &d, NULL);
    EXPECT(gm_warp_affine(&a.m, &d.m, nan6, NULL, NULL), GM_ERR_ARG, "gm_warp_affine", "M[5]", &a, &d, NULL);
    EXPECT(gm_warp_affine(&a.m, &d.m, flat6, NULL, NULL), GM_ERR_ARG, "gm_warp_affine", "singular", &a, &d, NULL);
    EXPECT(gm_warp_perspective(&a.m, &d.m, flat9, NULL, NULL), GM_ERR_ARG, "gm_warp_perspective", "singular", &a,
           &d, NULL);
    p.inverse = 1; /* as a destination -> source map, any finite matrix */
    EXPECT(gm_warp_perspective(&a.m, &d.m, flat9, &p, NULL), GM_OK, "gm_warp_perspective", NULL, &a, NULL);
    timg_snap(&d);
    p.inverse = 0, p.per_item = 1; /* item 1's matrix is singular: nothing runs, item 0 included */
    EXPECT(gm_warp_affine(&a.m, &batch3.m, three, &p, NULL), GM_ERR_ARG, "gm_warp_affine", "item 1", &a, &batch3,
           NULL);
    p.per_item = 0, p.interp = GM_INTER_LINEAR_EXACT;
    EXPECT(gm_warp_affine(&a.m, &d.m, id6, &p, NULL), GM_ERR_ARG, "gm_warp_affine", "params->interp", &a, &d, NULL);
    p.interp = (gm_interp)9;
    EXPECT(gm_warp_perspective(&a.m, &d.m, id9, &p, NULL), GM_ERR_ARG, "gm_warp_perspective", "params->interp", &a,
           &d, NULL);
    p.interp = GM_INTER_CUBIC, p.border = (gm_border)6;
    EXPECT(gm_warp_affine(&a.m, &d.m, id6, &p, NULL), GM_ERR_ARG, "gm_warp_affine", "params->border", &a, &d, NULL);
    p.border = GM_BORDER_CONSTANT, p.mode = GM_WARP_OPENCV5; /* OpenCV 5's cubic is not reproduced */
    EXPECT(gm_warp_affine(&a.m, &d.m, id6, &p, NULL), GM_ERR_ARG, "gm_warp_affine", "params->interp is GM_INTER_CUBIC",
           &a, &d, NULL);
    p.interp = GM_INTER_LINEAR, p.mode = (gm_warp_mode)2;
    EXPECT(gm_warp_perspective(&a.m, &d.m, id9, &p, NULL), GM_ERR_ARG, "gm_warp_perspective", "params->mode 2", &a,
           &d, NULL);
    p.interp = GM_INTER_CUBIC, p.mode = GM_WARP_OPENCV4;
    p.border = GM_BORDER_TRANSPARENT;
    EXPECT(gm_warp_affine(&a.m, &f32.m, id6, &p, NULL), GM_ERR_TYPE, "gm_warp_affine", "dst is f32", &a, &f32, NULL);
    EXPECT(gm_warp_affine(&a.m, &four.m, id6, &p, NULL), GM_ERR_TYPE, "gm_warp_affine", "src is u8", &a, &four, NULL);
    EXPECT(gm_warp_affine(&batch2.m, &batch3.m, id6, &p, NULL), GM_ERR_SIZE, "gm_warp_affine", "batch of 2", &batch2,
           &batch3, NULL);
    wide = a.m;
    wide.width = 32767, wide.pitch = 32767 * 3; /* never read: refused first */
    wide.batch_pitch = wide.pitch * wide.height;
    EXPECT(gm_warp_affine(&wide, &d.m, id6, &p, NULL), GM_ERR_SIZE, "gm_warp_affine", "32767", &d, NULL);
    dev = fake_device(&d);
    EXPECT(gm_warp_affine(&a.m, &dev, id6, &p, NULL), GM_ERR_LOCATION, "gm_warp_affine", "dst", &a, NULL);
    wide = d.m; /* a batch of 1x1 images whose matrices' count overflows an int (never read: refused first) */
    wide.width = wide.height = 1, wide.batch = 300000000, wide.batch_pitch = 3;
    p.per_item = 1;
    EXPECT(gm_warp_perspective(&a.m, &wide, id9, &p, NULL), GM_ERR_SIZE, "gm_warp_perspective", "300000000", &a,
           NULL);
    p.per_item = 0;
    over = a.m; /* a view of a's second row onward */
    over.data = (unsigned char*)a.m.data + a.m.pitch;
    over.height = a.m.height - 1;
    over.batch_pitch = over.pitch * over.height;
    EXPECT(gm_warp_affine(&a.m, &over, id6, &p, NULL), GM_ERR_OVERLAP, "gm_warp_affine", "overlap", &a, NULL);
    timg_free(&a), timg_free(&d), timg_free(&f32), timg_free(&four), timg_free(&batch3), timg_free(&batch2);
}

static void test_add_weighted(void)
{
    timg a, b, d, f32, small, chw, four;
    gm_mat bad;
    timg_make(&a, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&b, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&d, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&f32, 7, 4, GM_F32, 3, GM_HWC, 1);
    timg_make(&small, 6, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&chw, 7, 4, GM_U8, 3, GM_CHW, 1);
    timg_make(&four, 7, 4, GM_U8, 4, GM_HWC, 1);
    EXPECT(gm_add_weighted(NULL, 0.5, &b.m, 0.5, 0, &d.m, NULL), GM_ERR_ARG, "gm_add_weighted", "src1", &b, &d, NULL);
    EXPECT(gm_add_weighted(&a.m, 0.5, NULL, 0.5, 0, &d.m, NULL), GM_ERR_ARG, "gm_add_weighted", "src2", &a, &d, NULL);
    EXPECT(gm_add_weighted(&a.m, 0.5, &b.m, 0.5, 0, NULL, NULL), GM_ERR_ARG, "gm_add_weighted", "dst", &a, &b, NULL);
    EXPECT(gm_add_weighted(&a.m, 0.5, &f32.m, 0.5, 0, &d.m, NULL), GM_ERR_TYPE, "gm_add_weighted", "src2 is f32",
           &a, &f32, &d, NULL);
    EXPECT(gm_add_weighted(&small.m, 0.5, &b.m, 0.5, 0, &d.m, NULL), GM_ERR_SIZE, "gm_add_weighted", "src1 is 6x4",
           &small, &b, &d, NULL);
    EXPECT(gm_add_weighted(&a.m, 0.5, &chw.m, 0.5, 0, &d.m, NULL), GM_ERR_TYPE, "gm_add_weighted", "src2 is x3 planar",
           &a, &chw, &d, NULL);
    EXPECT(gm_add_weighted(&a.m, 0.5, &four.m, 0.5, 0, &d.m, NULL), GM_ERR_TYPE, "gm_add_weighted", "src2 is x4",
           &a, &four, &d, NULL);
    bad = d.m;
    bad.pitch = 5;
    EXPECT(gm_add_weighted(&a.m, 0.5, &b.m, 0.5, 0, &bad, NULL), GM_ERR_SIZE, "gm_add_weighted", "dst->pitch", &a,
           &b, &d, NULL);
    bad = fake_device(&b);
    EXPECT(gm_add_weighted(&a.m, 0.5, &bad, 0.5, 0, &d.m, NULL), GM_ERR_LOCATION, "gm_add_weighted",
           "src2 is device memory", &a, &b, &d, NULL);
    /* dst one pixel into src1: an overlap that is not the image itself */
    bad = a.m;
    bad.data = (unsigned char*)a.m.data + 3;
    EXPECT(gm_add_weighted(&a.m, 0.5, &b.m, 0.5, 0, &bad, NULL), GM_ERR_OVERLAP, "gm_add_weighted",
           "src1 and dst overlap", &a, &b, NULL);
    EXPECT(gm_add_weighted(&a.m, 0.5, &b.m, 0.5, 0, &a.m, NULL), GM_OK, "gm_add_weighted", NULL, &b, &d, NULL);
    timg_snap(&a); /* blended in place */
    EXPECT(gm_add_weighted(&a.m, 0.5, &a.m, 0.5, 0, &d.m, NULL), GM_OK, "gm_add_weighted", NULL, &a, NULL);
    timg_free(&a);
    timg_free(&b);
    timg_free(&d);
    timg_free(&f32);
    timg_free(&small);
    timg_free(&chw);
    timg_free(&four);
}

/* gm_yuv_wrap, gm_yuv_roi and gm_yuv_convert: what a 4:2:0 frame must be. */
static void test_yuv(void)
{
    timg y, uv, u, v, d, odd, gray, f32, two, small;
    gm_yuv nv, i420, bad, view;
    gm_mat m;
    unsigned char buf[12 * 12];
    timg_make(&y, 8, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&uv, 4, 3, GM_U8, 2, GM_HWC, 1);
    timg_make(&u, 4, 3, GM_U8, 1, GM_HWC, 1);
    timg_make(&v, 4, 3, GM_U8, 1, GM_HWC, 1);
    timg_make(&d, 8, 6, GM_U8, 3, GM_HWC, 1);
    timg_make(&odd, 7, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&gray, 8, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&f32, 8, 6, GM_F32, 3, GM_HWC, 1);
    timg_make(&two, 8, 6, GM_U8, 2, GM_HWC, 1);
    timg_make(&small, 6, 6, GM_U8, 3, GM_HWC, 1);
    memset(&nv, 0, sizeof nv);
    nv.y = y.m, nv.u = uv.m;
    i420 = nv;
    i420.format = GM_YUV_I420, i420.u = u.m, i420.v = v.m;
    EXPECT(gm_yuv_convert(NULL, &d.m, 0, NULL), GM_ERR_ARG, "gm_yuv_convert", "frame", &d, NULL);
    EXPECT(gm_yuv_convert(&nv, NULL, 0, NULL), GM_ERR_ARG, "gm_yuv_convert", "dst", &y, &uv, NULL);
    bad = nv, bad.format = (gm_yuv_format)5;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_ARG, "gm_yuv_convert", "frame->format 5", &d, NULL);
    bad = nv, bad.matrix = (gm_yuv_matrix)3;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_ARG, "gm_yuv_convert", "matrix 3", &d, NULL);
    bad = nv, bad.range = (gm_yuv_range)2;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_ARG, "gm_yuv_convert", "range 2", &d, NULL);
    bad = nv, bad.y = odd.m;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_SIZE, "gm_yuv_convert", "frame->y is 7x6", &d, NULL);
    bad = nv, bad.y = gray.m, bad.u = u.m;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "frame->u is u8 x1", &d, NULL);
    bad = i420, bad.v = uv.m;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "frame->v is u8 x2", &d, NULL);
    bad = i420, memset(&bad.v, 0, sizeof bad.v);
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "frame->v", &d, NULL);
    bad = nv;
    bad.u.height = 2;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_SIZE, "gm_yuv_convert", "frame->u is 4x2", &d, NULL);
    bad = nv, bad.u = fake_device(&uv);
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_LOCATION, "gm_yuv_convert", "frame->u", &d, NULL);
    bad = i420, bad.u.data = (unsigned char*)y.m.data + 1;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_OVERLAP, "gm_yuv_convert", "frame->u and frame->y", &d, NULL);
    bad = i420, bad.v = u.m;
    EXPECT(gm_yuv_convert(&bad, &d.m, 0, NULL), GM_ERR_OVERLAP, "gm_yuv_convert", "frame->u and frame->v", &d, NULL);
    EXPECT(gm_yuv_convert(&nv, &f32.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "dst is f32", &f32, NULL);
    EXPECT(gm_yuv_convert(&nv, &two.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "dst is u8 x2", &two, NULL);
    EXPECT(gm_yuv_convert(&nv, &small.m, 0, NULL), GM_ERR_SIZE, "gm_yuv_convert", "dst is 6x6", &small, NULL);
    m = fake_device(&d);
    EXPECT(gm_yuv_convert(&nv, &m, 0, NULL), GM_ERR_LOCATION, "gm_yuv_convert", "dst", &d, NULL);
    m = gray.m, m.data = y.m.data;
    EXPECT(gm_yuv_convert(&nv, &m, 0, NULL), GM_ERR_OVERLAP, "gm_yuv_convert", "frame->y and dst", &y, NULL);
    EXPECT(gm_yuv_convert(&nv, &d.m, 1, NULL), GM_OK, "gm_yuv_convert", NULL, &y, &uv, NULL);
    CHECK(!timg_same(&d), "gm_yuv_convert wrote nothing");
    timg_snap(&d);
    EXPECT(gm_yuv_from_image(NULL, &nv, 0, NULL), GM_ERR_ARG, "gm_yuv_from_image", "src", &y, &uv, NULL);
    EXPECT(gm_yuv_from_image(&d.m, NULL, 0, NULL), GM_ERR_ARG, "gm_yuv_from_image", "frame", &d, NULL);
    bad = nv, bad.y = odd.m;
    EXPECT(gm_yuv_from_image(&d.m, &bad, 0, NULL), GM_ERR_SIZE, "gm_yuv_from_image", "frame->y is 7x6", &d, &uv,
           NULL);
    EXPECT(gm_yuv_from_image(&gray.m, &nv, 0, NULL), GM_ERR_TYPE, "gm_yuv_from_image", "src is u8 x1", &y, &uv, NULL);
    EXPECT(gm_yuv_from_image(&f32.m, &nv, 0, NULL), GM_ERR_TYPE, "gm_yuv_from_image", "src is f32", &y, &uv, NULL);
    EXPECT(gm_yuv_from_image(&small.m, &nv, 0, NULL), GM_ERR_SIZE, "gm_yuv_from_image", "src is 6x6", &y, &uv, NULL);
    m = fake_device(&d);
    EXPECT(gm_yuv_from_image(&m, &nv, 0, NULL), GM_ERR_LOCATION, "gm_yuv_from_image", "src", &y, &uv, NULL);
    m = d.m, m.data = y.m.data;
    EXPECT(gm_yuv_from_image(&m, &i420, 0, NULL), GM_ERR_OVERLAP, "gm_yuv_from_image", "frame->y and src", &y, &u, &v,
           NULL);
    m = d.m, m.data = uv.m.data;
    EXPECT(gm_yuv_from_image(&m, &nv, 0, NULL), GM_ERR_OVERLAP, "gm_yuv_from_image", "frame->u and src", &y, &uv,
           NULL);
    EXPECT(gm_yuv_from_image(&d.m, &nv, 0, NULL), GM_OK, "gm_yuv_from_image", NULL, &d, NULL);
    CHECK(!timg_same(&y) && !timg_same(&uv), "gm_yuv_from_image wrote nothing");
    EXPECT(gm_yuv_wrap(NULL, GM_YUV_NV12, buf, 8, 6, 0, 0, GM_HOST), GM_ERR_ARG, "gm_yuv_wrap", "frame", NULL);
    EXPECT(gm_yuv_wrap(&view, (gm_yuv_format)-1, buf, 8, 6, 0, 0, GM_HOST), GM_ERR_ARG, "gm_yuv_wrap", "format -1",
           NULL);
    EXPECT(gm_yuv_wrap(&view, GM_YUV_NV12, buf, 7, 6, 0, 0, GM_HOST), GM_ERR_SIZE, "gm_yuv_wrap", "7x6", NULL);
    CHECK(view.y.data == NULL, "a failed gm_yuv_wrap zeroes its frame");
    EXPECT(gm_yuv_wrap(&view, GM_YUV_NV12, buf, 8, 6, 0, 4, GM_HOST), GM_ERR_SIZE, "gm_yuv_wrap", "coded_height 4",
           NULL);
    EXPECT(gm_yuv_wrap(&view, GM_YUV_I420, buf, 8, 6, 9, 0, GM_HOST), GM_ERR_SIZE, "gm_yuv_wrap", "pitch 9", NULL);
    EXPECT(gm_yuv_wrap(&view, GM_YUV_NV12, buf, 8, 6, 6, 0, GM_HOST), GM_ERR_SIZE, "gm_yuv_wrap", "pitch 6", NULL);
    EXPECT(gm_yuv_wrap(&view, GM_YUV_NV12, NULL, 8, 6, 0, 0, GM_HOST), GM_ERR_ARG, "gm_yuv_wrap", "data", NULL);
    EXPECT(gm_yuv_wrap(&view, GM_YUV_YV12, buf, 8, 6, 12, 8, GM_HOST), GM_OK, "gm_yuv_wrap", NULL, NULL);
    CHECK(view.y.data == (void*)buf && view.v.data == (void*)(buf + 12 * 8) &&
              view.u.data == (void*)(buf + 12 * 8 + 6 * 4) && view.u.pitch == 6 && view.u.width == 4 &&
              view.u.height == 3,
          "YV12 in one buffer: V after the coded luma rows, U after V's coded rows, pitch / 2 apart");
    EXPECT(gm_yuv_roi(&nv, &view, 1, 0, 4, 4), GM_ERR_ARG, "gm_yuv_roi", "even", NULL);
    EXPECT(gm_yuv_roi(&nv, NULL, 0, 0, 4, 4), GM_ERR_ARG, "gm_yuv_roi", "view", NULL);
    EXPECT(gm_yuv_roi(&nv, &view, 6, 0, 4, 4), GM_ERR_SIZE, "gm_yuv_roi", "not inside frame->y", NULL);
    EXPECT(gm_yuv_roi(&nv, &view, 2, 2, 6, 4), GM_OK, "gm_yuv_roi", NULL, NULL);
    CHECK(view.y.width == 6 && view.u.width == 3 && view.u.height == 2 &&
              view.u.data == (void*)((unsigned char*)uv.m.data + uv.m.pitch + 2),
          "an even rectangle's chroma is the half rectangle");
    timg_free(&y);
    timg_free(&uv);
    timg_free(&u);
    timg_free(&v);
    timg_free(&d);
    timg_free(&odd);
    timg_free(&gray);
    timg_free(&f32);
    timg_free(&two);
    timg_free(&small);
}

/* P016 frames: 16-bit planes, into u8, u16 or f32 alone; 8-bit frames
 * into u8 alone; no reverse into P016, no pre-process of it. */
static void test_yuv16(void)
{
    timg y, uv, y8, d, s16, two, u16, f32;
    gm_yuv p016, nv, bad, view;
    gm_mat m;
    unsigned short buf[10 * 9];
    timg_make(&y, 8, 6, GM_U16, 1, GM_HWC, 1);
    timg_make(&uv, 4, 3, GM_U16, 2, GM_HWC, 1);
    timg_make(&y8, 8, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&d, 8, 6, GM_U8, 3, GM_HWC, 1);
    timg_make(&s16, 8, 6, GM_S16, 3, GM_HWC, 1);
    timg_make(&two, 8, 6, GM_F32, 2, GM_HWC, 1);
    timg_make(&u16, 8, 6, GM_U16, 4, GM_CHW, 1);
    timg_make(&f32, 8, 6, GM_F32, 3, GM_HWC, 1);
    memset(&p016, 0, sizeof p016);
    p016.format = GM_YUV_P016, p016.y = y.m, p016.u = uv.m;
    bad = p016, bad.y = y8.m;
    EXPECT(gm_yuv_convert(&bad, &f32.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "frame->y is u8 x1; the luma is u16",
           &f32, NULL);
    bad = p016, bad.format = (gm_yuv_format)5;
    EXPECT(gm_yuv_convert(&bad, &f32.m, 0, NULL), GM_ERR_ARG, "gm_yuv_convert", "frame->format 5", &f32, NULL);
    EXPECT(gm_yuv_convert(&p016, &s16.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "dst is s16; P016 frames", &s16,
           NULL);
    EXPECT(gm_yuv_convert(&p016, &two.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "dst is f32 x2", &two, NULL);
    nv = p016, nv.format = GM_YUV_NV12;
    EXPECT(gm_yuv_convert(&nv, &f32.m, 0, NULL), GM_ERR_TYPE, "gm_yuv_convert", "frame->y is u16 x1", &f32, NULL);
    EXPECT(gm_yuv_from_image(&d.m, &p016, 0, NULL), GM_ERR_TYPE, "gm_yuv_from_image", "frame->format is P016", &y,
           &uv, NULL);
    EXPECT(gm_preprocess_yuv(&p016, NULL, &f32.m, NULL, NULL, NULL), GM_ERR_TYPE, "gm_preprocess_yuv",
           "frame is P016", &f32, NULL);
    m = f32.m, m.data = uv.m.data;
    EXPECT(gm_yuv_convert(&p016, &m, 0, NULL), GM_ERR_OVERLAP, "gm_yuv_convert", "frame->u and dst", &uv, NULL);
    EXPECT(gm_yuv_convert(&p016, &f32.m, 0, NULL), GM_OK, "gm_yuv_convert", NULL, &y, &uv, NULL);
    CHECK(!timg_same(&f32), "gm_yuv_convert of P016 into f32 wrote nothing");
    EXPECT(gm_yuv_convert(&p016, &u16.m, 1, NULL), GM_OK, "gm_yuv_convert", NULL, &y, &uv, NULL);
    CHECK(!timg_same(&u16), "gm_yuv_convert of P016 into planar u16 wrote nothing");
    EXPECT(gm_yuv_wrap(&view, GM_YUV_P016, buf, 8, 6, 15, 0, GM_HOST), GM_ERR_SIZE, "gm_yuv_wrap",
           "pitch 15 for width 8 of u16 samples", NULL);
    EXPECT(gm_yuv_wrap(&view, GM_YUV_P016, buf, 8, 6, 0, 0, GM_HOST), GM_OK, "gm_yuv_wrap", NULL, NULL);
    CHECK(view.y.pitch == 16 && view.y.dtype == GM_U16 && view.u.dtype == GM_U16 && view.u.channels == 2 &&
              view.u.data == (void*)(buf + 8 * 6),
          "P016 in one buffer: u16 planes, rows of twice the width's bytes, chroma after the luma");
    EXPECT(gm_yuv_wrap(&view, GM_YUV_P016, buf, 8, 6, 20, 6, GM_HOST), GM_OK, "gm_yuv_wrap", NULL, NULL);
    EXPECT(gm_yuv_roi(&view, &view, 2, 2, 6, 4), GM_OK, "gm_yuv_roi", NULL, NULL);
    CHECK(view.y.data == (void*)(buf + 2 * 10 + 2) && view.u.data == (void*)(buf + 6 * 10 + 10 + 2),
          "a P016 rectangle: samples of 2 bytes, the chroma pair of (2, 2) at (1, 1) of the chroma");
    timg_free(&y);
    timg_free(&uv);
    timg_free(&y8);
    timg_free(&d);
    timg_free(&s16);
    timg_free(&two);
    timg_free(&u16);
    timg_free(&f32);
}

/* gm_preprocess_yuv and _batch: the frame's checks, named for the call
 * (and for a batch the item), the interpolations a frame takes, crops. */
static void test_prep_yuv(void)
{
    timg y, uv, u, v, odd, d;
    gm_yuv nv, i420, bad, two[2];
    gm_prep area, option;
    gm_rect outside = {4, 0, 6, 6};
    gm_mat m;
    timg_make(&y, 8, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&uv, 4, 3, GM_U8, 2, GM_HWC, 1);
    timg_make(&u, 4, 3, GM_U8, 1, GM_HWC, 1);
    timg_make(&v, 4, 3, GM_U8, 1, GM_HWC, 1);
    timg_make(&odd, 7, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&d, 5, 7, GM_F32, 3, GM_CHW, 1);
    memset(&nv, 0, sizeof nv);
    nv.y = y.m, nv.u = uv.m;
    i420 = nv;
    i420.format = GM_YUV_I420, i420.u = u.m, i420.v = v.m;
    memset(&area, 0, sizeof area);
    area.interp = GM_PREP_AREA;
    EXPECT(gm_preprocess_yuv(NULL, NULL, &d.m, NULL, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv", "frame is NULL",
           &d, NULL);
    EXPECT(gm_preprocess_yuv(&nv, NULL, NULL, NULL, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv", "dst", &y, &uv,
           NULL);
    bad = nv, bad.y = odd.m;
    EXPECT(gm_preprocess_yuv(&bad, NULL, &d.m, NULL, NULL, NULL), GM_ERR_SIZE, "gm_preprocess_yuv",
           "frame->y is 7x6", &d, NULL);
    bad = nv, bad.u.height = 2;
    EXPECT(gm_preprocess_yuv(&bad, NULL, &d.m, NULL, NULL, NULL), GM_ERR_SIZE, "gm_preprocess_yuv",
           "frame->u is 4x2", &d, NULL);
    bad = i420, bad.u.data = (unsigned char*)y.m.data + 1;
    EXPECT(gm_preprocess_yuv(&bad, NULL, &d.m, NULL, NULL, NULL), GM_ERR_OVERLAP, "gm_preprocess_yuv",
           "frame->u and frame->y", &d, NULL);
    bad = nv, bad.matrix = (gm_yuv_matrix)3;
    EXPECT(gm_preprocess_yuv(&bad, NULL, &d.m, NULL, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv", "matrix 3", &d,
           NULL);
    EXPECT(gm_preprocess_yuv(&nv, NULL, &d.m, &area, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv",
           "prep->interp is GM_INTER_AREA", &d, NULL);
    { /* the warp placement of a frame: NEAREST and LINEAR only */
        static const double id6[6] = {1, 0, 0, 0, 1, 0};
        gm_prep cubic = area;
        cubic.fit = GM_FIT_WARP, cubic.warp = id6, cubic.interp = GM_INTER_CUBIC;
        EXPECT(gm_preprocess_yuv(&nv, NULL, &d.m, &cubic, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv",
               "prep->interp is GM_INTER_CUBIC", &d, NULL);
    }
    memset(&option, 0, sizeof option);
    option.fit = GM_FIT_LETTERBOX, option.rule = GM_LETTERBOX_OPENCV_DNN, option.top_left = 1;
    EXPECT(gm_preprocess_yuv(&nv, NULL, &d.m, &option, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv",
           "prep->top_left is not an option of GM_LETTERBOX_OPENCV_DNN", &y, &uv, &d, NULL);
    EXPECT(gm_preprocess_yuv(&nv, &outside, &d.m, NULL, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv",
           "not inside frame", &d, NULL);
    bad = nv, bad.u = fake_device(&uv);
    EXPECT(gm_preprocess_yuv(&bad, NULL, &d.m, NULL, NULL, NULL), GM_ERR_LOCATION, "gm_preprocess_yuv", "frame->u",
           &d, NULL);
    m = d.m, m.data = (unsigned char*)uv.m.data - 4;
    EXPECT(gm_preprocess_yuv(&nv, NULL, &m, NULL, NULL, NULL), GM_ERR_OVERLAP, "gm_preprocess_yuv", "and dst overlap",
           &y, NULL);
    two[0] = nv, two[1] = nv, two[1].y = odd.m;
    EXPECT(gm_preprocess_yuv_batch(two, NULL, 2, &d.m, NULL, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv_batch",
           "2 items but dst->batch is 1", &d, NULL);
    EXPECT(gm_preprocess_yuv_batch(NULL, NULL, 1, &d.m, NULL, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv_batch",
           "frames is NULL", &d, NULL);
    option.fit = GM_FIT_CROP_CENTER, option.top_left = 0, option.no_upscale = 1;
    EXPECT(gm_preprocess_yuv_batch(two, NULL, 1, &d.m, &option, NULL, NULL), GM_ERR_ARG, "gm_preprocess_yuv_batch",
           "prep->no_upscale is an option of GM_FIT_LETTERBOX, and prep->fit is GM_FIT_CROP_CENTER", &y, &uv, &d, NULL);
    m = d.m, m.batch = 2, m.batch_pitch = d.m.plane_pitch * 3; /* refused before anything is written */
    EXPECT(gm_preprocess_yuv_batch(two, NULL, 2, &m, NULL, NULL, NULL), GM_ERR_SIZE, "gm_preprocess_yuv_batch",
           "frames[1]: frame->y is 7x6", &d, NULL);
    EXPECT(gm_preprocess_yuv(&i420, NULL, &d.m, NULL, NULL, NULL), GM_OK, "gm_preprocess_yuv", NULL, &y, &u, &v, NULL);
    CHECK(!timg_same(&d), "gm_preprocess_yuv wrote nothing");
    timg_free(&y);
    timg_free(&uv);
    timg_free(&u);
    timg_free(&v);
    timg_free(&odd);
    timg_free(&d);
}

static void test_copy_many(void)
{
    timg a, b, c, d;
    gm_mat src[2], dst[2];
    timg_make(&a, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&b, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&c, 7, 4, GM_U8, 3, GM_HWC, 1);
    timg_make(&d, 7, 4, GM_U8, 3, GM_HWC, 1);
    src[0] = a.m, src[1] = b.m, dst[0] = c.m, dst[1] = d.m;
    EXPECT(gm_copy_many(src, dst, -1, NULL), GM_ERR_ARG, "gm_copy_many", "count -1", &a, &b, &c, &d, NULL);
    EXPECT(gm_copy_many(NULL, dst, 2, NULL), GM_ERR_ARG, "gm_copy_many", "src or dst is NULL", &c, &d, NULL);
    EXPECT(gm_copy_many(src, NULL, 2, NULL), GM_ERR_ARG, "gm_copy_many", "src or dst is NULL", &a, &b, NULL);
    dst[1].width = 6;
    EXPECT(gm_copy_many(src, dst, 2, NULL), GM_ERR_SIZE, "gm_copy_many", "src[1] is 7x4", &a, &b, &c, &d, NULL);
    dst[1] = d.m;
    dst[1].dtype = GM_S8;
    EXPECT(gm_copy_many(src, dst, 2, NULL), GM_ERR_TYPE, "gm_copy_many", "dst[1] is s8", &a, &b, &c, &d, NULL);
    dst[1] = d.m;
    dst[1].pitch = 3;
    EXPECT(gm_copy_many(src, dst, 2, NULL), GM_ERR_SIZE, "gm_copy_many", "dst[1]->pitch", &a, &b, &c, &d, NULL);
    dst[1] = a.m; /* the pairs run in no order: one's destination is the other's source */
    EXPECT(gm_copy_many(src, dst, 2, NULL), GM_ERR_OVERLAP, "gm_copy_many", "dst[1] and src[0] overlap", &a, &b, &c,
           NULL);
    dst[1] = c.m;
    EXPECT(gm_copy_many(src, dst, 2, NULL), GM_ERR_OVERLAP, "gm_copy_many", "dst[1] and dst[0] overlap", &a, &b, &c,
           NULL);
    dst[1] = d.m;
    EXPECT(gm_copy_many(src, dst, 0, NULL), GM_OK, "gm_copy_many", NULL, &a, &b, &c, &d, NULL);
    EXPECT(gm_copy_many(src, dst, 2, NULL), GM_OK, "gm_copy_many", NULL, &a, &b, NULL);
    CHECK(memcmp(c.buf + (a.m.pitch * 2), a.buf + (a.m.pitch * 2), 21) == 0 &&
              memcmp(d.buf + d.m.pitch, b.buf + b.m.pitch, 21) == 0,
          "gm_copy_many: host pairs copied");
    timg_free(&a);
    timg_free(&b);
    timg_free(&c);
    timg_free(&d);
}

static void test_overlay(void)
{
    timg frame, gray, sprite;
    gm_overlay* ov = NULL;
    gm_sprite sp;
    gm_mat fake;
    timg_make(&frame, 9, 5, GM_U8, 3, GM_HWC, 1);
    timg_make(&gray, 9, 5, GM_U8, 1, GM_HWC, 1);
    timg_make(&sprite, 3, 2, GM_U8, 4, GM_HWC, 1);
    memset(&sp, 0, sizeof sp);
    sp.image = sprite.m;
    EXPECT(gm_overlay_create(NULL), GM_ERR_ARG, "gm_overlay_create", "overlay", NULL);
    EXPECT(gm_overlay_create(&ov), GM_OK, "gm_overlay_create", NULL, NULL);
    EXPECT(gm_overlay_draw(NULL, &frame.m, &sp, 1, NULL, NULL), GM_ERR_ARG, "gm_overlay_draw", "overlay", &frame,
           &sprite, NULL);
    EXPECT(gm_overlay_draw(ov, NULL, &sp, 1, NULL, NULL), GM_ERR_ARG, "gm_overlay_draw", "frame", &sprite, NULL);
    EXPECT(gm_overlay_draw(ov, &gray.m, &sp, 1, NULL, NULL), GM_ERR_TYPE, "gm_overlay_draw", "frame is u8 x1",
           &gray, &sprite, NULL);
    EXPECT(gm_overlay_draw(ov, &frame.m, NULL, 1, NULL, NULL), GM_ERR_ARG, "gm_overlay_draw", "sprites is NULL",
           &frame, NULL);
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, -1, NULL, NULL), GM_ERR_ARG, "gm_overlay_draw", "count -1", &frame,
           &sprite, NULL);
    sp.kind = GM_SPRITE_MASK;
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, 1, NULL, NULL), GM_ERR_TYPE, "gm_overlay_draw",
           "sprites[0].image is u8 x4", &frame, &sprite, NULL);
    sp.kind = (gm_sprite_kind)3;
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, 1, NULL, NULL), GM_ERR_ARG, "gm_overlay_draw", "sprites[0].kind 3",
           &frame, &sprite, NULL);
    sp.kind = GM_SPRITE_RGBA;
    sp.image.pitch = 2;
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, 1, NULL, NULL), GM_ERR_SIZE, "gm_overlay_draw",
           "sprites[0].image->pitch", &frame, &sprite, NULL);
    sp.image = fake_device(&sprite);
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, 1, NULL, NULL), GM_ERR_LOCATION, "gm_overlay_draw",
           "sprites[0].image is device memory", &frame, &sprite, NULL);
    sp.image = frame.m;
    sp.image.channels = 4;
    sp.image.width = 2;
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, 1, NULL, NULL), GM_ERR_OVERLAP, "gm_overlay_draw",
           "sprites[0].image and frame overlap", &frame, NULL);
    fake = frame.m;
    fake.batch = 2;
    fake.batch_pitch = fake.pitch * fake.height;
    sp.image = sprite.m;
    EXPECT(gm_overlay_draw(ov, &fake, &sp, 1, NULL, NULL), GM_ERR_ARG, "gm_overlay_draw", "frame->batch is 2",
           &frame, &sprite, NULL);
    sp.x = 100; /* wholly outside: nothing is drawn */
    EXPECT(gm_overlay_draw(ov, &frame.m, &sp, 1, NULL, NULL), GM_OK, "gm_overlay_draw", NULL, &frame, &sprite, NULL);
    gm_overlay_destroy(ov);
    gm_overlay_destroy(NULL);
    timg_free(&frame);
    timg_free(&gray);
    timg_free(&sprite);
}

/* gm_overlay_draw_yuv's refusals; the frame's planes and the sprite stay
 * untouched by each. */
static void test_overlay_yuv(void)
{
    timg y, uv, u, v, y16, uv16, sprite, batch, batch_uv;
    gm_overlay* ov = NULL;
    gm_sprite sp;
    gm_yuv nv, i420, bad;
    timg_make(&y, 8, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&uv, 4, 3, GM_U8, 2, GM_HWC, 1);
    timg_make(&u, 4, 3, GM_U8, 1, GM_HWC, 1);
    timg_make(&v, 4, 3, GM_U8, 1, GM_HWC, 1);
    timg_make(&y16, 8, 6, GM_U16, 1, GM_HWC, 1);
    timg_make(&uv16, 4, 3, GM_U16, 2, GM_HWC, 1);
    timg_make(&batch, 8, 6, GM_U8, 1, GM_HWC, 2);
    timg_make(&batch_uv, 4, 3, GM_U8, 2, GM_HWC, 2);
    timg_make(&sprite, 3, 2, GM_U8, 4, GM_HWC, 1);
    memset(&sp, 0, sizeof sp);
    memset(&nv, 0, sizeof nv);
    memset(&i420, 0, sizeof i420);
    sp.image = sprite.m;
    nv.format = GM_YUV_NV12, nv.y = y.m, nv.u = uv.m;
    EXPECT(gm_overlay_create(&ov), GM_OK, "gm_overlay_create", NULL, NULL);
    EXPECT(gm_overlay_draw_yuv(NULL, &nv, &sp, 1, NULL), GM_ERR_ARG, "gm_overlay_draw_yuv", "overlay", &y, &uv,
           &sprite, NULL);
    EXPECT(gm_overlay_draw_yuv(ov, NULL, &sp, 1, NULL), GM_ERR_ARG, "gm_overlay_draw_yuv", "frame is NULL",
           &sprite, NULL);
    bad = nv, bad.format = GM_YUV_P016, bad.y = y16.m, bad.u = uv16.m;
    EXPECT(gm_overlay_draw_yuv(ov, &bad, &sp, 1, NULL), GM_ERR_TYPE, "gm_overlay_draw_yuv",
           "frame->format is P016", &y16, &uv16, &sprite, NULL);
    bad = nv, bad.y.width = 7;
    EXPECT(gm_overlay_draw_yuv(ov, &bad, &sp, 1, NULL), GM_ERR_SIZE, "gm_overlay_draw_yuv", "frame->y is 7x6", &y,
           &uv, &sprite, NULL);
    bad = nv, bad.matrix = (gm_yuv_matrix)3;
    EXPECT(gm_overlay_draw_yuv(ov, &bad, &sp, 1, NULL), GM_ERR_ARG, "gm_overlay_draw_yuv", "matrix 3", &y, &uv,
           &sprite, NULL);
    bad = nv, bad.y = batch.m, bad.u = batch_uv.m;
    EXPECT(gm_overlay_draw_yuv(ov, &bad, &sp, 1, NULL), GM_ERR_ARG, "gm_overlay_draw_yuv", "frame->y.batch is 2",
           &batch, &batch_uv, &sprite, NULL);
    EXPECT(gm_overlay_draw_yuv(ov, &nv, NULL, 1, NULL), GM_ERR_ARG, "gm_overlay_draw_yuv", "sprites is NULL", &y,
           &uv, NULL);
    EXPECT(gm_overlay_draw_yuv(ov, &nv, &sp, -1, NULL), GM_ERR_ARG, "gm_overlay_draw_yuv", "count -1", &y, &uv,
           &sprite, NULL);
    sp.image = fake_device(&sprite);
    EXPECT(gm_overlay_draw_yuv(ov, &nv, &sp, 1, NULL), GM_ERR_LOCATION, "gm_overlay_draw_yuv",
           "sprites[0].image is device memory", &y, &uv, &sprite, NULL);
    sp.image = uv.m; /* a sprite in the chroma plane */
    sp.image.channels = 4;
    sp.image.width = 2;
    EXPECT(gm_overlay_draw_yuv(ov, &nv, &sp, 1, NULL), GM_ERR_OVERLAP, "gm_overlay_draw_yuv",
           "sprites[0].image and frame overlap", &y, &uv, NULL);
    sp.image = y.m; /* in the luma */
    sp.image.channels = 4;
    sp.image.width = 2;
    EXPECT(gm_overlay_draw_yuv(ov, &nv, &sp, 1, NULL), GM_ERR_OVERLAP, "gm_overlay_draw_yuv",
           "sprites[0].image and frame overlap", &y, &uv, NULL);
    i420.format = GM_YUV_I420, i420.y = y.m, i420.u = u.m, i420.v = v.m;
    sp.image = v.m; /* in an I420 frame's V plane */
    sp.image.channels = 4;
    sp.image.width = 1;
    EXPECT(gm_overlay_draw_yuv(ov, &i420, &sp, 1, NULL), GM_ERR_OVERLAP, "gm_overlay_draw_yuv",
           "sprites[0].image and frame overlap", &y, &u, &v, NULL);
    sp.image = sprite.m;
    sp.x = -3; /* wholly outside: nothing is drawn */
    EXPECT(gm_overlay_draw_yuv(ov, &nv, &sp, 1, NULL), GM_OK, "gm_overlay_draw_yuv", NULL, &y, &uv, &sprite, NULL);
    EXPECT(gm_overlay_draw_yuv(ov, &i420, &sp, 1, NULL), GM_OK, "gm_overlay_draw_yuv", NULL, &y, &u, &v, &sprite,
           NULL);
    gm_overlay_destroy(ov);
    timg_free(&y);
    timg_free(&uv);
    timg_free(&u);
    timg_free(&v);
    timg_free(&y16);
    timg_free(&uv16);
    timg_free(&batch);
    timg_free(&batch_uv);
    timg_free(&sprite);
}

static void test_preprocess(void)
{
    static const int map_out[3] = {0, 3, 1}, map_ok[3] = {2, 2, 2};
    timg s3, s4, s16, s2, d3, dh, dbatch, dsmall, ds32;
    gm_mat srcs[3], bad, fake;
    gm_rect crop = {2, 1, 5, 4}, crops[3];
    static const struct {
        gm_fit fit;
        gm_letterbox_rule rule;
        int option; /* top_left, no_upscale, stride */
        const char* message;
    } refused[] = {
        {GM_FIT_LETTERBOX, GM_LETTERBOX_OPENCV_DNN, 0, "prep->top_left is not an option of GM_LETTERBOX_OPENCV_DNN"},
        {GM_FIT_LETTERBOX, GM_LETTERBOX_OPENCV_DNN, 1, "prep->no_upscale is not an option of GM_LETTERBOX_OPENCV_DNN"},
        {GM_FIT_LETTERBOX, GM_LETTERBOX_OPENCV_DNN, 2, "prep->stride is not an option of GM_LETTERBOX_OPENCV_DNN"},
        {GM_FIT_LETTERBOX, GM_LETTERBOX_DEEPSTREAM, 1, "prep->no_upscale is not an option of GM_LETTERBOX_DEEPSTREAM"},
        {GM_FIT_LETTERBOX, GM_LETTERBOX_DEEPSTREAM, 2, "prep->stride is not an option of GM_LETTERBOX_DEEPSTREAM"},
        {GM_FIT_STRETCH, GM_LETTERBOX_ULTRALYTICS, 0, "prep->top_left is an option of GM_FIT_LETTERBOX, and prep->fit "
         "is GM_FIT_STRETCH"},
        {GM_FIT_CROP_CENTER, GM_LETTERBOX_ULTRALYTICS, 1, "prep->no_upscale is an option of GM_FIT_LETTERBOX, and "
         "prep->fit is GM_FIT_CROP_CENTER"},
        {GM_FIT_STRETCH, GM_LETTERBOX_ULTRALYTICS, 2, "prep->stride is an option of GM_FIT_LETTERBOX, and prep->fit is "
         "GM_FIT_STRETCH"}};
    gm_prep pp, zero;
    gm_prep_geometry geo, none;
    double box[4] = {1, 2, 3, 4}, out[4] = {7, 7, 7, 7};
    int i;
    timg_make(&s3, 11, 6, GM_U8, 3, GM_HWC, 1);
    timg_make(&s4, 11, 6, GM_U8, 4, GM_HWC, 1);
    timg_make(&s16, 11, 6, GM_S16, 3, GM_HWC, 1);
    timg_make(&s2, 11, 6, GM_U8, 2, GM_HWC, 1);
    timg_make(&d3, 8, 8, GM_F32, 3, GM_CHW, 1);
    timg_make(&dh, 8, 8, GM_S32, 3, GM_CHW, 1);
    timg_make(&dbatch, 8, 8, GM_F16, 3, GM_CHW, 3);
    timg_make(&dsmall, 1, 8, GM_F32, 3, GM_CHW, 1);
    timg_make(&ds32, 8, 8, GM_F32, 3, GM_CHW, 2);
    memset(&zero, 0, sizeof zero);
    pp = zero;

    EXPECT(gm_preprocess(NULL, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "src", &d3, NULL);
    EXPECT(gm_preprocess(&s3.m, NULL, NULL, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "dst", &s3, NULL);
    /* crops that are empty or leave the image */
    crop.width = 0;
    EXPECT(gm_preprocess(&s3.m, &crop, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "crop 0x4", &s3, &d3,
           NULL);
    crop.width = 10;
    EXPECT(gm_preprocess(&s3.m, &crop, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "not inside src", &s3,
           &d3, NULL);
    crop.width = 5, crop.x = -1;
    EXPECT(gm_preprocess(&s3.m, &crop, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "(-1, 1)", &s3, &d3,
           NULL);
    crop.x = 2, crop.height = INT64_MAX;
    EXPECT(gm_preprocess(&s3.m, &crop, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "crop", &s3, &d3, NULL);
    crop.height = 4;
    /* types the kernels do not take */
    EXPECT(gm_preprocess(&s16.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_TYPE, "gm_preprocess", "s16 x3", &s16, &d3,
           NULL);
    EXPECT(gm_preprocess(&s2.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_TYPE, "gm_preprocess", "u8 x2", &s2, &d3,
           NULL);
    EXPECT(gm_preprocess(&s3.m, NULL, &dh.m, &pp, &geo, NULL), GM_ERR_TYPE, "gm_preprocess", "s32", &s3, &dh, NULL);
    /* enums, channel maps and arithmetic */
    pp.fit = (gm_fit)4;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->fit 4", &s3, &d3,
           NULL);
    pp = zero, pp.rule = (gm_letterbox_rule)-1;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->rule -1", &s3,
           &d3, NULL);
    pp = zero, pp.interp = (gm_prep_interp)4;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->interp 4", &s3,
           &d3, NULL);
    pp = zero, pp.channel_map = map_out;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "source channel 3", &s3,
           &d3, NULL);
    pp = zero, pp.mean[2] = NAN;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->mean[2]", &s3,
           &d3, NULL);
    pp = zero, pp.scale[1] = INFINITY;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->scale[1]", &s3,
           &d3, NULL);
    pp = zero, pp.pad[0] = NAN;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->pad[0]", &s3,
           &d3, NULL);
    /* the warp placement: no matrices, one not finite, a singular one (and none where the matrices are
     * inverse already), an interpolation or border it has not, a letterbox option, a crop past OpenCV's
     * shorts; its geometry, whose boxes no scale maps back */
    {
        static const double nan6[6] = {1, 0, 0, 0, NAN, 0}, singular[6] = {1, 2, 0, 2, 4, 0},
                            fine[6] = {0.5, 0.1, 1, -0.1, 0.5, 2};
        const gm_rect wide = {0, 0, 32767, 4};
        pp = zero, pp.fit = GM_FIT_WARP;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->warp is NULL",
               &s3, &d3, NULL);
        pp.warp = nan6;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->warp[4]", &s3,
               &d3, NULL);
        pp.warp = singular;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess",
               "item 0's matrix is singular", &s3, &d3, NULL);
        pp.inverse = 1;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_OK, "gm_preprocess", NULL, &s3, NULL);
        memcpy(d3.buf, d3.ref, d3.n); /* what it wrote */
        pp.inverse = 0, pp.warp = fine, pp.interp = GM_INTER_LINEAR_EXACT;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess",
               "prep->interp 3 is not a warp's", &s3, &d3, NULL);
        pp.interp = GM_INTER_CUBIC, pp.border = (gm_border)6;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->border 6", &s3,
               &d3, NULL);
        pp.border = GM_BORDER_REFLECT, pp.stride = 32;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess",
               "prep->stride is an option of GM_FIT_LETTERBOX, and prep->fit is GM_FIT_WARP", &s3, &d3, NULL);
        pp.stride = 0;
        EXPECT(gm_prep_geometry_of(&wide, 8, 8, &pp, &geo), GM_ERR_SIZE, "gm_prep_geometry_of", "below 32767", NULL);
        pp.fit = GM_FIT_STRETCH; /* the warp's fields with another fit */
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess",
               "prep->warp is an option of GM_FIT_WARP, and prep->fit is GM_FIT_STRETCH", &s3, &d3, NULL);
        pp.fit = GM_FIT_CROP_CENTER, pp.warp = NULL;
        EXPECT(gm_prep_geometry_of(&crop, 8, 8, &pp, &geo), GM_ERR_ARG, "gm_prep_geometry_of",
               "prep->border is an option of GM_FIT_WARP", NULL);
        pp.fit = GM_FIT_WARP, pp.warp = fine;
        EXPECT(gm_prep_geometry_of(&crop, 8, 8, &pp, &geo), GM_OK, "gm_prep_geometry_of", NULL, NULL);
        CHECK(geo.fit == GM_FIT_WARP && geo.width == 8 && geo.height == 8 && geo.left == 0 && geo.top == 0,
              "a warp placement's geometry: fit %d, %lldx%lld at (%lld, %lld)", (int)geo.fit, (long long)geo.width,
              (long long)geo.height, (long long)geo.left, (long long)geo.top);
        EXPECT(gm_prep_box_map(&geo, GM_BOX_EXACT, box, out), GM_ERR_ARG, "gm_prep_box_map", "GM_FIT_WARP", NULL);
    }
    /* the letterbox's options: a stride below 0; each option for another fit, or a rule whose framework
     * lacks it (OpenCV dnn has none; DeepStream top_left alone) */
    pp = zero, pp.stride = -1;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", "prep->stride is -1", &s3,
           &d3, NULL);
    for (i = 0; i < (int)(sizeof refused / sizeof refused[0]); ++i) {
        pp = zero, pp.fit = refused[i].fit, pp.rule = refused[i].rule;
        pp.top_left = refused[i].option == 0, pp.no_upscale = refused[i].option == 1;
        pp.stride = refused[i].option == 2 ? 32 : 0;
        EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &pp, &geo, NULL), GM_ERR_ARG, "gm_preprocess", refused[i].message,
               &s3, &d3, NULL);
        EXPECT(gm_prep_geometry_of(&crop, 8, 8, &pp, &geo), GM_ERR_ARG, "gm_prep_geometry_of", refused[i].message,
               NULL);
    }
    /* and those each framework has */
    pp = zero, pp.fit = GM_FIT_LETTERBOX, pp.rule = GM_LETTERBOX_DEEPSTREAM, pp.top_left = 1;
    EXPECT(gm_prep_geometry_of(&crop, 8, 8, &pp, &geo), GM_OK, "gm_prep_geometry_of", NULL, NULL);
    pp = zero, pp.fit = GM_FIT_LETTERBOX, pp.top_left = pp.no_upscale = 1, pp.stride = 4;
    EXPECT(gm_prep_geometry_of(&crop, 8, 8, &pp, &geo), GM_OK, "gm_prep_geometry_of", NULL, NULL);
    /* a letterbox OpenCV dnn truncates to nothing: 11x6 into 1x8 is 1x0 */
    pp = zero, pp.fit = GM_FIT_LETTERBOX, pp.rule = GM_LETTERBOX_OPENCV_DNN;
    EXPECT(gm_preprocess(&s3.m, NULL, &dsmall.m, &pp, &geo, NULL), GM_ERR_SIZE, "gm_preprocess", "empty", &s3,
           &dsmall, NULL);
    /* batches: the count, mixed sources, overlap, location */
    srcs[0] = srcs[1] = srcs[2] = s3.m;
    crops[0] = crops[1] = crops[2] = crop;
    pp = zero, pp.fit = GM_FIT_LETTERBOX, pp.rule = GM_LETTERBOX_DEEPSTREAM, pp.no_upscale = 1;
    EXPECT(gm_preprocess_batch(srcs, NULL, 3, &dbatch.m, &pp, NULL, NULL), GM_ERR_ARG, "gm_preprocess_batch",
           "prep->no_upscale is not an option of GM_LETTERBOX_DEEPSTREAM", &s3, &dbatch, NULL);
    pp = zero;
    EXPECT(gm_preprocess_batch(srcs, crops, 2, &dbatch.m, &pp, NULL, NULL), GM_ERR_ARG, "gm_preprocess_batch",
           "dst->batch is 3", &s3, &dbatch, NULL);
    EXPECT(gm_preprocess_batch(srcs, crops, 0, &dbatch.m, &pp, NULL, NULL), GM_ERR_ARG, "gm_preprocess_batch",
           "0 items", &s3, &dbatch, NULL);
    srcs[2] = s4.m;
    EXPECT(gm_preprocess_batch(srcs, crops, 3, &dbatch.m, &pp, NULL, NULL), GM_ERR_TYPE, "gm_preprocess_batch",
           "srcs[2]", &s3, &s4, &dbatch, NULL);
    srcs[2] = s3.m;
    { /* a name of two digits (gm__prep_name formats it by hand) */
        gm_mat many[12];
        timg d12;
        timg_make(&d12, 8, 8, GM_F16, 3, GM_CHW, 12);
        for (i = 0; i < 12; ++i)
            many[i] = s3.m;
        many[11] = s4.m;
        EXPECT(gm_preprocess_batch(many, NULL, 12, &d12.m, &pp, NULL, NULL), GM_ERR_TYPE, "gm_preprocess_batch",
               "srcs[11] is u8 x4", &s3, &s4, &d12, NULL);
        timg_free(&d12);
    }
    crops[1].y = 3;
    EXPECT(gm_preprocess_batch(srcs, crops, 3, &dbatch.m, &pp, NULL, NULL), GM_ERR_ARG, "gm_preprocess_batch",
           "srcs[1]", &s3, &dbatch, NULL);
    crops[1].y = 1;
    pp.fit = GM_FIT_LETTERBOX, pp.stride = 2; /* auto: 5x4 comes to 8x6, the whole 11x6 to 8x4 */
    EXPECT(gm_preprocess_batch(srcs, NULL, 3, &dbatch.m, &pp, NULL, NULL), GM_OK, "gm_preprocess_batch", NULL, &s3,
           NULL);
    EXPECT(gm_preprocess_batch(srcs, crops, 3, &dbatch.m, &pp, NULL, NULL), GM_OK, "gm_preprocess_batch", NULL, &s3,
           NULL);
    crops[1] = crops[0], crops[1].x = crops[1].y = 0, crops[1].width = 11, crops[1].height = 6;
    memcpy(dbatch.buf, dbatch.ref, dbatch.n); /* what the runs above wrote */
    EXPECT(gm_preprocess_batch(srcs, crops, 3, &dbatch.m, &pp, NULL, NULL), GM_ERR_ARG, "gm_preprocess_batch",
           "srcs[1] comes to 8x4, srcs[0] to 8x6", &s3, &dbatch, NULL);
    crops[1] = crops[0];
    pp = zero;
    bad = ds32.m;
    bad.batch = 1;
    bad.data = s3.buf;
    EXPECT(gm_preprocess(&s3.m, NULL, &bad, &pp, &geo, NULL), GM_ERR_OVERLAP, "gm_preprocess", "overlap", &s3,
           NULL);
    fake = fake_device(&d3);
    EXPECT(gm_preprocess(&s3.m, NULL, &fake, &pp, &geo, NULL), GM_ERR_LOCATION, "gm_preprocess", "dst", &s3, &d3,
           NULL);
    EXPECT(gm_prep_geometry_of(NULL, 8, 8, &pp, &geo), GM_ERR_ARG, "gm_prep_geometry_of", "crop", NULL);
    EXPECT(gm_prep_geometry_of(&crop, 0, 8, &pp, &geo), GM_ERR_SIZE, "gm_prep_geometry_of", "into 0x8", NULL);
    /* box mapping: NULLs, maps that are none, geometries of nothing or without a factor; out untouched (but
     * gm_prep_box_to_source's, NaN) */
    pp = zero, pp.fit = GM_FIT_LETTERBOX;
    EXPECT(gm_prep_geometry_of(&crop, 8, 8, &pp, &geo), GM_OK, "gm_prep_geometry_of", NULL, NULL);
    memset(&none, 0, sizeof none);
    EXPECT(gm_prep_box_map(NULL, GM_BOX_EXACT, box, out), GM_ERR_ARG, "gm_prep_box_map", "geometry is NULL", NULL);
    EXPECT(gm_prep_box_map(&geo, GM_BOX_EXACT, NULL, out), GM_ERR_ARG, "gm_prep_box_map", "box is NULL", NULL);
    EXPECT(gm_prep_box_map(&geo, GM_BOX_EXACT, box, NULL), GM_ERR_ARG, "gm_prep_box_map", "out is NULL", NULL);
    EXPECT(gm_prep_box_map(&geo, (gm_box_map)8, box, out), GM_ERR_ARG, "gm_prep_box_map", "map 8 is not a gm_box_map",
           NULL);
    EXPECT(gm_prep_box_map(&geo, (gm_box_map)-1, box, out), GM_ERR_ARG, "gm_prep_box_map", "map -1", NULL);
    EXPECT(gm_prep_box_map(&none, GM_BOX_EXACT, box, out), GM_ERR_ARG, "gm_prep_box_map", "0x0 crop into 0x0", NULL);
    none = geo, none.ratio = 0;
    EXPECT(gm_prep_box_map(&none, GM_BOX_ULTRALYTICS_RATIO_PAD, box, out), GM_ERR_ARG, "gm_prep_box_map",
           "factors for map 3 are 0 and 0", NULL);
    CHECK(out[0] == 7 && out[1] == 7 && out[2] == 7 && out[3] == 7, "gm_prep_box_map wrote out on bad input");
    none.map = (gm_box_map)9;
    reset_error();
    gm_prep_box_to_source(&none, box, out);
    CHECK(isnan(out[0]) && isnan(out[1]) && isnan(out[2]) && isnan(out[3]) &&
          strstr(gm_last_error(), "gm_prep_box_to_source: geometry->map 9") == gm_last_error(),
          "gm_prep_box_to_source of a geometry whose map is 9: (%g, %g, %g, %g), \"%s\"", out[0], out[1], out[2],
          out[3], gm_last_error());
    /* and what is good runs: a gray map from a 4-channel source, the geometry reported */
    pp = zero, pp.channel_map = map_ok, pp.fit = GM_FIT_LETTERBOX;
    EXPECT(gm_preprocess(&s4.m, &crop, &d3.m, &pp, &geo, NULL), GM_OK, "gm_preprocess", NULL, &s4, NULL);
    CHECK(geo.width == 8 && geo.height == 6 && geo.left == 0 && geo.top == 1 && geo.crop.x == 2,
          "geometry of 5x4 into 8x8: %lldx%lld at (%lld, %lld)", (long long)geo.width, (long long)geo.height,
          (long long)geo.left, (long long)geo.top);
    EXPECT(gm_preprocess_batch(srcs, crops, 3, &dbatch.m, NULL, NULL, NULL), GM_OK, "gm_preprocess_batch", NULL, &s3,
           NULL);
    timg_free(&s3);
    timg_free(&s4);
    timg_free(&s16);
    timg_free(&s2);
    timg_free(&d3);
    timg_free(&dh);
    timg_free(&dbatch);
    timg_free(&dsmall);
    timg_free(&ds32);
}

static void test_blob(void)
{
    static const double mean[4] = {120.5, 110.25, 100.125, 90};
    double std[4] = {58.4, 57.1, 57.4, 50};
    timg s3, s1, s2, chw, d3, d1, d4, dh, im[3], dst, d2b, s16, s4;
    gm_mat images[3], bad, fake;
    gm_status s;
    int i;
    timg_make(&s3, 11, 6, GM_U8, 3, GM_HWC, 1);
    timg_make(&s1, 11, 6, GM_U8, 1, GM_HWC, 1);
    timg_make(&s2, 11, 6, GM_U8, 2, GM_HWC, 1);
    timg_make(&s4, 11, 6, GM_U8, 4, GM_HWC, 1);
    timg_make(&chw, 11, 6, GM_U8, 3, GM_CHW, 1);
    timg_make(&d3, 11, 6, GM_F32, 3, GM_CHW, 1);
    timg_make(&d1, 11, 6, GM_F32, 1, GM_CHW, 1);
    timg_make(&d4, 11, 6, GM_F32, 4, GM_CHW, 1);
    timg_make(&dh, 11, 6, GM_F16, 2, GM_HWC, 1);
    timg_make(&s16, 11, 6, GM_U16, 3, GM_HWC, 1);
    for (i = 0; i < 3; ++i)
        timg_make(&im[i], 11, 6, GM_U8, 3, GM_HWC, 1);
    timg_make(&dst, 11, 6, GM_F32, 3, GM_CHW, 3);
    timg_make(&d2b, 11, 6, GM_F32, 3, GM_CHW, 2);

    EXPECT(gm_blob_from_image(NULL, &d3.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_image", "src", &d3,
           NULL);
    EXPECT(gm_blob_from_image(&s3.m, NULL, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_image", "dst", &s3,
           NULL);
    EXPECT(gm_blob_from_image(&s1.m, &d1.m, 1, mean, std, 1, NULL), GM_ERR_ARG, "gm_blob_from_image", "swap_rb",
           &s1, &d1, NULL);
    EXPECT(gm_blob_from_image(&s2.m, &dh.m, 1, NULL, NULL, 0, NULL), GM_ERR_TYPE, "gm_blob_from_image", "src", &s2,
           &dh, NULL);
    EXPECT(gm_blob_from_image(&chw.m, &d3.m, 1, mean, std, 0, NULL), GM_ERR_TYPE, "gm_blob_from_image", "src",
           &chw, &d3, NULL);
    EXPECT(gm_blob_from_image(&s3.m, &d4.m, 1, mean, std, 0, NULL), GM_ERR_TYPE, "gm_blob_from_image",
           "src has 3 channels, dst 4", &s3, &d4, NULL);
    EXPECT(gm_blob_from_image(&s4.m, &d3.m, 1, mean, std, 1, NULL), GM_ERR_TYPE, "gm_blob_from_image",
           "src has 4 channels, dst 3", &s4, &d3, NULL);
    std[1] = 0.0;
    EXPECT(gm_blob_from_image(&s3.m, &d3.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_image", "std[1]",
           &s3, &d3, NULL);
    std[1] = 57.1;
    std[0] = -0.0;
    EXPECT(gm_blob_from_image(&s3.m, &d3.m, 1, mean, std, 1, NULL), GM_ERR_ARG, "gm_blob_from_image", "std[0]",
           &s3, &d3, NULL);
    std[0] = NAN;
    EXPECT(gm_blob_from_image(&s3.m, &d3.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_image", "std[0]",
           &s3, &d3, NULL);
    std[0] = 58.4;
    std[2] = -INFINITY;
    EXPECT(gm_blob_from_image(&s3.m, &d3.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_image", "std[2]",
           &s3, &d3, NULL);
    std[2] = INFINITY;
    EXPECT(gm_blob_from_image(&s3.m, &d3.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_image", "std[2]",
           &s3, &d3, NULL);
    std[2] = 57.4;
    EXPECT(gm_blob_from_image(&s3.m, &dst.m, 1, mean, std, 0, NULL), GM_ERR_SIZE, "gm_blob_from_image", "dst", &s3,
           &dst, NULL);
    fake = fake_device(&d3);
    EXPECT(gm_blob_from_image(&s3.m, &fake, 1, mean, std, 0, NULL), GM_ERR_LOCATION, "gm_blob_from_image", "dst",
           &s3, &d3, NULL);
    bad = s3.m;
    bad.data = d3.buf + 8;
    EXPECT(gm_blob_from_image(&bad, &d3.m, 1, mean, std, 0, NULL), GM_ERR_OVERLAP, "gm_blob_from_image",
           "src and dst overlap", &d3, NULL);
    bad = s3.m;
    bad.pitch = 1;
    EXPECT(gm_blob_from_image(&bad, &d3.m, 1, mean, std, 0, NULL), GM_ERR_SIZE, "gm_blob_from_image", "src->pitch",
           &s3, &d3, NULL);
    s = gm_blob_from_image(&s3.m, &d3.m, 1.0 / 255, NULL, NULL, 1, NULL);
    CHECK(s == GM_OK && !timg_same(&d3), "good gm_blob_from_image: %s", gm_last_error());
    timg_snap(&d3);

    /* gm_blob_from_images */
#define IM &im[0], &im[1], &im[2]
#define SET_IMAGES() (images[0] = im[0].m, images[1] = im[1].m, images[2] = im[2].m)
    SET_IMAGES();
    EXPECT(gm_blob_from_images(NULL, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images", "images",
           &dst, NULL);
    EXPECT(gm_blob_from_images(images, 3, NULL, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images", "dst",
           IM, NULL);
    EXPECT(gm_blob_from_images(images, 0, &dst.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "count", IM, &dst, NULL);
    EXPECT(gm_blob_from_images(images, -1, &dst.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "count", IM, &dst, NULL);
    EXPECT(gm_blob_from_images(images, 2, &dst.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "count", IM, &dst, NULL);
    EXPECT(gm_blob_from_images(images, 3, &d2b.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "count", IM, &d2b, NULL);
    images[1].width = 10;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_SIZE, "gm_blob_from_images",
           "images[1]", IM, &dst, NULL);
    SET_IMAGES();
    images[1] = s16.m;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_TYPE, "gm_blob_from_images",
           "images[1]", IM, &s16, &dst, NULL);
    SET_IMAGES();
    images[2] = s4.m;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_TYPE, "gm_blob_from_images",
           "images[2]", IM, &s4, &dst, NULL);
    SET_IMAGES();
    images[2].batch = 2;
    images[2].batch_pitch = 4096;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "images[2]", IM, &dst, NULL);
    /* failures only the last image shows: nothing of dst may be written */
    SET_IMAGES();
    images[2].data = NULL;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "images[2]", IM, &dst, NULL);
    SET_IMAGES();
    images[2].pitch = 5;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_SIZE, "gm_blob_from_images",
           "images[2]", IM, &dst, NULL);
    SET_IMAGES();
    images[2].where = GM_DEVICE;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_LOCATION, "gm_blob_from_images",
           "images[2]", IM, &dst, NULL);
    SET_IMAGES();
    images[2].data = dst.buf + dst.m.batch_pitch; /* reads what item 1 writes */
    images[2].pitch = 33;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 0, NULL), GM_ERR_OVERLAP, "gm_blob_from_images",
           "images[2]", IM, &dst, NULL);
    SET_IMAGES();
    std[2] = 0;
    EXPECT(gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 1, NULL), GM_ERR_ARG, "gm_blob_from_images",
           "std[2]", IM, &dst, NULL);
    std[2] = 57.4;
    s = gm_blob_from_images(images, 3, &dst.m, 1, mean, std, 1, NULL);
    CHECK(s == GM_OK && !timg_same(&dst), "good gm_blob_from_images: %s", gm_last_error());
#undef IM
#undef SET_IMAGES
    timg_free(&s3);
    timg_free(&s1);
    timg_free(&s2);
    timg_free(&s4);
    timg_free(&chw);
    timg_free(&d3);
    timg_free(&d1);
    timg_free(&d4);
    timg_free(&dh);
    timg_free(&s16);
    for (i = 0; i < 3; ++i)
        timg_free(&im[i]);
    timg_free(&dst);
    timg_free(&d2b);
}

/* gm_blob_from_image(s)_with_params and gm_prep's arith: the fields each
 * refusal names, and the dtypes the double product and the division take
 * (the pre-process kernel's). */
static void test_blob_params(void)
{
    gm_blob_params p;
    gm_prep q;
    timg s3, s16, d3, d8, dbf, dst, im[2];
    gm_mat images[2];
    gm_status s;
    timg_make(&s3, 9, 5, GM_U8, 3, GM_HWC, 1);
    timg_make(&s16, 9, 5, GM_S16, 3, GM_HWC, 1);
    timg_make(&d3, 9, 5, GM_F32, 3, GM_CHW, 1);
    timg_make(&d8, 9, 5, GM_U8, 3, GM_CHW, 1);
    timg_make(&dbf, 9, 5, GM_BF16, 3, GM_HWC, 1);
    timg_make(&dst, 9, 5, GM_F32, 3, GM_HWC, 2);
    timg_make(&im[0], 9, 5, GM_U8, 3, GM_HWC, 1);
    timg_make(&im[1], 9, 5, GM_U8, 3, GM_HWC, 1);
    images[0] = im[0].m, images[1] = im[1].m;
    memset(&p, 0, sizeof p);
    p.arith = (gm_blob_arith)2;
    EXPECT(gm_blob_from_image_with_params(&s3.m, &d3.m, &p, NULL), GM_ERR_ARG, "gm_blob_from_image_with_params",
           "params->arith 2", &s3, &d3, NULL);
    p.arith = GM_BLOB_DOUBLE, p.divide = 1;
    EXPECT(gm_blob_from_image_with_params(&s3.m, &d3.m, &p, NULL), GM_ERR_ARG, "gm_blob_from_image_with_params",
           "params->divide", &s3, &d3, NULL);
    EXPECT(gm_blob_from_images_with_params(images, 2, &dst.m, &p, NULL), GM_ERR_ARG, "gm_blob_from_images_with_params",
           "params->divide", &im[0], &im[1], &dst, NULL);
    p.divide = 0;
    p.mean[2] = NAN;
    EXPECT(gm_blob_from_image_with_params(&s3.m, &d3.m, &p, NULL), GM_ERR_ARG, "gm_blob_from_image_with_params",
           "params->mean[2]", &s3, &d3, NULL);
    p.mean[2] = 0, p.scale[1] = INFINITY;
    EXPECT(gm_blob_from_image_with_params(&s3.m, &d3.m, &p, NULL), GM_ERR_ARG, "gm_blob_from_image_with_params",
           "params->scale[1]", &s3, &d3, NULL);
    p.scale[1] = 0.5;
    /* the double product writes f32 or f16, from u8, u16 or f32; the float one any dtypes */
    EXPECT(gm_blob_from_image_with_params(&s3.m, &d8.m, &p, NULL), GM_ERR_TYPE, "gm_blob_from_image_with_params",
           "f32 or f16", &s3, &d8, NULL);
    EXPECT(gm_blob_from_image_with_params(&s16.m, &d3.m, &p, NULL), GM_ERR_TYPE, "gm_blob_from_image_with_params",
           "params->arith", &s16, &d3, NULL);
    p.arith = GM_BLOB_FLOAT, p.divide = 1;
    EXPECT(gm_blob_from_image_with_params(&s16.m, &d3.m, &p, NULL), GM_ERR_TYPE, "gm_blob_from_image_with_params",
           "params->divide", &s16, &d3, NULL);
    p.divide = 0;
    s = gm_blob_from_image_with_params(&s16.m, &d3.m, &p, NULL);
    CHECK(s == GM_OK && !timg_same(&d3), "gm_blob_from_image_with_params s16 -> f32, float: %s", gm_last_error());
    memcpy(d3.buf, d3.ref, d3.n);
    p.arith = GM_BLOB_DOUBLE, p.swap_rb = 1;
    s = gm_blob_from_image_with_params(&s3.m, &d3.m, &p, NULL);
    CHECK(s == GM_OK && !timg_same(&d3), "gm_blob_from_image_with_params u8 -> f32, double: %s", gm_last_error());
    memcpy(d3.buf, d3.ref, d3.n);
    s = gm_blob_from_images_with_params(images, 2, &dst.m, NULL, NULL);
    CHECK(s == GM_OK && !timg_same(&dst), "gm_blob_from_images_with_params, params NULL: %s", gm_last_error());
    memcpy(dst.buf, dst.ref, dst.n);
    EXPECT(gm_blob_from_images_with_params(images, 3, &dst.m, &p, NULL), GM_ERR_ARG, "gm_blob_from_images_with_params",
           "count 3", &im[0], &im[1], &dst, NULL);
    /* gm_prep's arith: the same refusals, named prep-> */
    memset(&q, 0, sizeof q);
    q.arith = (gm_blob_arith)5;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &q, NULL, NULL), GM_ERR_ARG, "gm_preprocess", "prep->arith 5", &s3, &d3,
           NULL);
    q.arith = GM_BLOB_DOUBLE, q.divide = 1;
    EXPECT(gm_preprocess(&s3.m, NULL, &d3.m, &q, NULL, NULL), GM_ERR_ARG, "gm_preprocess", "prep->divide", &s3, &d3,
           NULL);
    q.divide = 0;
    EXPECT(gm_preprocess(&s3.m, NULL, &dbf.m, &q, NULL, NULL), GM_ERR_TYPE, "gm_preprocess", "prep->arith", &s3, &dbf,
           NULL);
    timg_free(&s3);
    timg_free(&s16);
    timg_free(&d3);
    timg_free(&d8);
    timg_free(&dbf);
    timg_free(&dst);
    timg_free(&im[0]);
    timg_free(&im[1]);
}

/* The generated typed functions (views.h): their messages name the typed
 * function called, also for views holding another dtype, channel count or
 * layout than their type says (C99 lets the wrong view type through, and any
 * descriptor can be put in a view). tests/test_typed.c runs every one. */
static void test_typed_functions(void)
{
    static const double mean[3] = {120.5, 110.25, 100.125};
    double std[3] = {58.4, 57.1, 57.4};
    const gm_u8c3_hwc* no_src = NULL;
    gm_f32c3_hwc* no_dst = NULL;
    gm_u8c3_hwc ih;
    gm_u8c3_chw ip;
    gm_f32c3_hwc fh;
    gm_f32c3_chw fp;
    timg u8, u8p, u8w, s16, f32, f16, f32p;
    gm_status s;
    timg_make(&u8, 9, 7, GM_U8, 3, GM_HWC, 1);
    timg_make(&u8p, 9, 7, GM_U8, 3, GM_CHW, 1);
    timg_make(&u8w, 8, 7, GM_U8, 3, GM_CHW, 1);
    timg_make(&s16, 9, 7, GM_S16, 3, GM_HWC, 1);
    timg_make(&f32, 9, 7, GM_F32, 3, GM_HWC, 1);
    timg_make(&f16, 9, 7, GM_F16, 3, GM_HWC, 1);
    timg_make(&f32p, 9, 7, GM_F32, 3, GM_CHW, 1);

    /* gm_convert_<view>_<view> */
    ih.m = u8.m;
    fh.m = f32.m;
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(no_src, &fh, 1, 0, NULL), GM_ERR_ARG, "gm_convert_u8c3_hwc_f32c3_hwc",
           "src is NULL", &f32, NULL);
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(&ih, no_dst, 1, 0, NULL), GM_ERR_ARG, "gm_convert_u8c3_hwc_f32c3_hwc",
           "dst is NULL", &u8, NULL);
    ih.m = s16.m;
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(&ih, &fh, 1, 0, NULL), GM_ERR_TYPE, "gm_convert_u8c3_hwc_f32c3_hwc",
           "src holds s16 x3 HWC; a gm_u8c3_hwc is u8 x3 HWC", &s16, &f32, NULL);
    ih.m = u8.m;
    fh.m = f16.m;
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(&ih, &fh, 1, 0, NULL), GM_ERR_TYPE, "gm_convert_u8c3_hwc_f32c3_hwc",
           "dst holds f16 x3 HWC; a gm_f32c3_hwc is f32 x3 HWC", &u8, &f16, NULL);
    fh.m = f32p.m;
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(&ih, &fh, 1, 0, NULL), GM_ERR_TYPE, "gm_convert_u8c3_hwc_f32c3_hwc",
           "dst holds f32 x3 CHW; a gm_f32c3_hwc is f32 x3 HWC", &u8, &f32p, NULL);
    fh.m = fake_device(&f32);
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(&ih, &fh, 1, 0, NULL), GM_ERR_LOCATION, "gm_convert_u8c3_hwc_f32c3_hwc",
           "dst is device memory", &u8, &f32, NULL);
    fh.m = f32.m;
    fh.m.data = NULL;
    EXPECT(gm_convert_u8c3_hwc_f32c3_hwc(&ih, &fh, 1, 0, NULL), GM_ERR_ARG, "gm_convert_u8c3_hwc_f32c3_hwc",
           "dst->data is NULL", &u8, &f32, NULL);
    fh.m = f32.m;
    s = gm_convert_u8c3_hwc_f32c3_hwc(&ih, &fh, 1, 0, NULL);
    CHECK(s == GM_OK && !timg_same(&f32), "typed convert with the right views: %s", gm_last_error());
    timg_snap(&f32);

    /* gm_split_<view> and gm_merge_<view> */
    ih.m = u8.m;
    ip.m = u8p.m;
    EXPECT(gm_split_u8c3_hwc(NULL, &ip, NULL), GM_ERR_ARG, "gm_split_u8c3_hwc", "src is NULL", &u8p, NULL);
    EXPECT(gm_split_u8c3_hwc(&ih, NULL, NULL), GM_ERR_ARG, "gm_split_u8c3_hwc", "dst is NULL", &u8, NULL);
    ih.m = u8p.m;
    ip.m = u8.m;
    EXPECT(gm_split_u8c3_hwc(&ih, &ip, NULL), GM_ERR_TYPE, "gm_split_u8c3_hwc",
           "src holds u8 x3 CHW; a gm_u8c3_hwc is u8 x3 HWC", &u8, &u8p, NULL);
    ih.m = u8.m;
    EXPECT(gm_split_u8c3_hwc(&ih, &ip, NULL), GM_ERR_TYPE, "gm_split_u8c3_hwc",
           "dst holds u8 x3 HWC; a gm_u8c3_chw is u8 x3 CHW", &u8, NULL);
    ip.m = u8w.m;
    EXPECT(gm_split_u8c3_hwc(&ih, &ip, NULL), GM_ERR_SIZE, "gm_split_u8c3_hwc", "but dst is 8x7", &u8, &u8w, NULL);
    ip.m = u8p.m;
    ip.m.data = u8.buf;
    EXPECT(gm_split_u8c3_hwc(&ih, &ip, NULL), GM_ERR_OVERLAP, "gm_split_u8c3_hwc", "src and dst overlap", &u8,
           NULL);
    ip.m = u8p.m;
    EXPECT(gm_merge_u8c3_chw(&ip, NULL, NULL), GM_ERR_ARG, "gm_merge_u8c3_chw", "dst is NULL", &u8p, NULL);
    ih.m = s16.m;
    EXPECT(gm_merge_u8c3_chw(&ip, &ih, NULL), GM_ERR_TYPE, "gm_merge_u8c3_chw",
           "dst holds s16 x3 HWC; a gm_u8c3_hwc is u8 x3 HWC", &u8p, &s16, NULL);
    ih.m = u8.m;
    ip.m = u8.m;
    EXPECT(gm_merge_u8c3_chw(&ip, &ih, NULL), GM_ERR_TYPE, "gm_merge_u8c3_chw",
           "src holds u8 x3 HWC; a gm_u8c3_chw is u8 x3 CHW", &u8, NULL);
    ip.m = u8p.m;
    s = gm_split_u8c3_hwc(&ih, &ip, NULL);
    CHECK(s == GM_OK && !timg_same(&u8p), "typed split with the right views: %s", gm_last_error());
    timg_snap(&u8p);

    /* gm_blob_<view>_<view> */
    ih.m = u8.m;
    fp.m = f32p.m;
    EXPECT(gm_blob_u8c3_hwc_f32c3_chw(NULL, &fp, 1, mean, std, 1, NULL), GM_ERR_ARG, "gm_blob_u8c3_hwc_f32c3_chw",
           "src is NULL", &f32p, NULL);
    fp.m = f32.m;
    EXPECT(gm_blob_u8c3_hwc_f32c3_chw(&ih, &fp, 1, mean, std, 1, NULL), GM_ERR_TYPE, "gm_blob_u8c3_hwc_f32c3_chw",
           "dst holds f32 x3 HWC; a gm_f32c3_chw is f32 x3 CHW", &u8, &f32, NULL);
    fp.m = f32p.m;
    ih.m = u8p.m;
    EXPECT(gm_blob_u8c3_hwc_f32c3_chw(&ih, &fp, 1, mean, std, 1, NULL), GM_ERR_TYPE, "gm_blob_u8c3_hwc_f32c3_chw",
           "src holds u8 x3 CHW; a gm_u8c3_hwc is u8 x3 HWC", &u8p, &f32p, NULL);
    ih.m = u8.m;
    std[1] = 0.0;
    EXPECT(gm_blob_u8c3_hwc_f32c3_chw(&ih, &fp, 1, mean, std, 1, NULL), GM_ERR_ARG, "gm_blob_u8c3_hwc_f32c3_chw",
           "std[1] is 0", &u8, &f32p, NULL);
    std[1] = 57.1;
    s = gm_blob_u8c3_hwc_f32c3_chw(&ih, &fp, 1, mean, std, 1, NULL);
    CHECK(s == GM_OK && !timg_same(&f32p), "typed blob with the right views: %s", gm_last_error());
    timg_free(&u8);
    timg_free(&u8p);
    timg_free(&u8w);
    timg_free(&s16);
    timg_free(&f32);
    timg_free(&f16);
    timg_free(&f32p);
}

static void test_kernels(void)
{
    int n = gm_kernel_count(), i, j, distinct = 1;
    size_t size = 12345;
    gm_status s;
    CHECK(n > 0, "gm_kernel_count %d", n);
    for (i = 0; i < n; ++i) {
        const char* a = gm_kernel_name(i);
        if (!a || !*a) {
            CHECK(0, "gm_kernel_name(%d) is empty", i);
            continue;
        }
        for (j = 0; j < i; ++j)
            if (strcmp(a, gm_kernel_name(j)) == 0)
                distinct = 0;
    }
    CHECK(distinct, "kernel names are distinct");
    CHECK(gm_kernel_name(-1) == NULL && gm_kernel_name(n) == NULL && gm_kernel_name(INT_MIN) == NULL &&
              gm_kernel_name(INT_MAX) == NULL,
          "gm_kernel_name out of range");
    EXPECT(gm_kernel_compile(-1, 86, &size), GM_ERR_ARG, "gm_kernel_compile", "index", NULL);
    EXPECT(gm_kernel_compile(n, 86, &size), GM_ERR_ARG, "gm_kernel_compile", "index", NULL);
    EXPECT(gm_kernel_compile(INT_MIN, 86, &size), GM_ERR_ARG, "gm_kernel_compile", "index", NULL);
    EXPECT(gm_kernel_compile(0, 9, &size), GM_ERR_ARG, "gm_kernel_compile", "arch", NULL);
    EXPECT(gm_kernel_compile(0, -86, &size), GM_ERR_ARG, "gm_kernel_compile", "arch", NULL);
    EXPECT(gm_kernel_compile(0, 0, NULL), GM_ERR_ARG, "gm_kernel_compile", "arch", NULL);
    {
        int bad[2] = {0, -1}, kernels[7];
        char dir[2];
        EXPECT(gm_warmup(NULL, 3, 0), GM_ERR_ARG, "gm_warmup", "kernels is NULL but count is 3", NULL);
        EXPECT(gm_warmup(bad, 0, 0), GM_ERR_ARG, "gm_warmup", "count 0", NULL);
        EXPECT(gm_warmup(bad, 2, 0), GM_ERR_ARG, "gm_warmup", "kernels[1]", NULL);
        reset_error();
        s = gm_release_context();
        CHECK(g_dev ? s == GM_OK : is_no_gpu(s) && strncmp(gm_last_error(), "gm_release_context: ", 20) == 0,
              "gm_release_context: %s (%s)", gm_status_string(s), gm_last_error());
        EXPECT(gm_cache_dir(NULL, 64), GM_ERR_ARG, "gm_cache_dir", "path", NULL);
        EXPECT(gm_cache_dir(dir, sizeof dir), GM_ERR_ARG, "gm_cache_dir", "size 2", NULL);
        reset_error();
        CHECK(gm_kernels_for(GM_U8, GM_F32, 3, NULL, 7) == 0 &&
                  strncmp(gm_last_error(), "gm_kernels_for: kernels", 23) == 0,
              "gm_kernels_for(..., NULL, 7): %s", gm_last_error());
        reset_error();
        CHECK(gm_kernels_for(GM_U8, GM_F32, 3, kernels, -1) == 0 && strncmp(gm_last_error(), "gm_kernels_for: max", 19) == 0,
              "gm_kernels_for(..., -1): %s", gm_last_error());
        CHECK(gm_kernels_for(GM_U8, GM_F32, 3, NULL, 0) == 21, "gm_kernels_for(..., NULL, 0) counts: %s", gm_last_error());
        CHECK(gm_kernels_for(GM_U8, GM_F32, 3, kernels, 7) == 21, "gm_kernels_for: %s", gm_last_error());
    }
    CHECK(size == 12345, "image_size written on an argument failure: %zu", size);
    reset_error();
    s = gm_kernel_compile(0, 20, &size); /* sm_20: older than any NVRTC of CUDA 11+ */
    CHECK(s == GM_ERR_COMPILE || s == GM_ERR_NO_NVRTC, "sm_20: %s (%s)", gm_status_string(s), gm_last_error());
    CHECK(strstr(gm_last_error(), "gm_kernel_compile") && (s != GM_ERR_COMPILE || strstr(gm_last_error(), "sm_20")),
          "sm_20 message: %s", gm_last_error());
    CHECK(size == 0 || size == 12345, "image_size after a failed compile: %zu", size);
}

/* ------------------------------------------- missing driver and NVRTC */

/* The child: run with GM_CUDA_PATH and GM_NVRTC_PATH pointing nowhere. */
static int child_no_driver(void)
{
    gm_mat m, h, h2, dev;
    timg a, b;
    gm_status s;
    size_t size = 777;
    int major = -1, i, ok;
    const char* e;
    char first[512];

    CHECK(gm_last_error()[0] == 0, "no failure yet, but gm_last_error() is \"%s\"", gm_last_error());
    CHECK(gm_path() == GM_HOST, "gm_path() without a driver is %d", (int)gm_path());
    CHECK(gm_last_error()[0] == 0, "gm_path() left a message: \"%s\"", gm_last_error());
    s = gm_alloc(&m, 16, 16, GM_U8, 3, GM_HWC);
    CHECK(s == GM_OK && m.where == GM_HOST && m.pitch == 48 && m.data, "gm_alloc without a driver: %s (%s)",
          gm_status_string(s), gm_last_error());
    gm_free(&m);
    memset(&m, 0x5a, sizeof m);
    s = gm_alloc_device(&m, 16, 16, GM_U8, 3, GM_HWC);
    e = gm_last_error();
    CHECK(s == GM_ERR_NO_DRIVER, "gm_alloc_device without a driver: %s (%s)", gm_status_string(s), e);
    CHECK(strncmp(e, "gm_alloc_device:", 16) == 0 && strstr(e, "GM_CUDA_PATH") && strstr(e, BAD_CUDA), "message: %s",
          e);
    CHECK_SAFE(m);
    snprintf(first, sizeof first, "%.500s", e);
    s = gm_alloc_device(&m, 8, 8, GM_F32, 1, GM_CHW);
    CHECK(s == GM_ERR_NO_DRIVER && strcmp(gm_last_error(), first) == 0, "second gm_alloc_device: %s (%s)",
          gm_status_string(s), gm_last_error());
    s = gm_alloc_host(&m, 8, 8, GM_U8, 1, GM_HWC, 1);
    CHECK(s == GM_ERR_NO_DRIVER && strstr(gm_last_error(), "GM_CUDA_PATH"), "pinned: %s (%s)", gm_status_string(s),
          gm_last_error());
    CHECK_SAFE(m);
    s = gm_device(&major, NULL, NULL, 0);
    CHECK(s == GM_ERR_NO_DRIVER && major == -1 && strstr(gm_last_error(), "gm_device"), "gm_device: %s (%s)",
          gm_status_string(s), gm_last_error());
    reset_error();
    s = gm_sync(NULL);
    CHECK(s == GM_OK && strcmp(gm_last_error(), g_stale) == 0, "gm_sync(NULL) on the CPU path: %s (%s)",
          gm_status_string(s), gm_last_error());
    s = gm_sync((gm_stream)&m); /* a stream can only come from CUDA: waiting on one needs the driver */
    CHECK(s == GM_ERR_NO_DRIVER && strstr(gm_last_error(), "gm_sync:") == gm_last_error() &&
              strstr(gm_last_error(), BAD_CUDA),
          "gm_sync(stream): %s (%s)", gm_status_string(s), gm_last_error());

    s = gm_kernel_compile(0, 86, &size);
    e = gm_last_error();
    CHECK(s == GM_ERR_NO_NVRTC, "gm_kernel_compile without NVRTC: %s (%s)", gm_status_string(s), e);
    CHECK(strstr(e, "gm_kernel_compile") && strstr(e, "GM_NVRTC_PATH") && strstr(e, BAD_NVRTC), "message: %s", e);
    CHECK(size == 0 || size == 777, "image_size %zu", size);
    CHECK(gm_kernel_count() > 0 && gm_kernel_name(0) != NULL, "kernel table without NVRTC");

    /* host memory still works: allocate, convert, split, merge, copy, blob */
    timg_make(&a, 13, 5, GM_U8, 3, GM_HWC, 1);
    timg_make(&b, 13, 5, GM_U8, 3, GM_HWC, 1);
    s = gm_alloc_host(&h, 13, 5, GM_F32, 3, GM_CHW, 0);
    CHECK(s == GM_OK, "gm_alloc_host without a driver: %s", gm_last_error());
    if (s == GM_OK) {
        s = gm_blob_from_image(&a.m, &h, 0.5, NULL, NULL, 1, NULL);
        CHECK(s == GM_OK, "gm_blob_from_image on the host: %s", gm_last_error());
        ok = s == GM_OK;
        for (i = 0; ok && i < 13 * 5; ++i) {
            int x = i % 13, y = i / 13;
            float r = ((float*)((char*)h.data + y * h.pitch))[x];
            float bl = ((float*)((char*)h.data + 2 * h.plane_pitch + y * h.pitch))[x];
            ok = r == a.buf[y * a.m.pitch + x * 3 + 2] * 0.5f && bl == a.buf[y * a.m.pitch + x * 3] * 0.5f;
        }
        CHECK(ok, "host blob values without a driver");
        s = gm_copy(&a.m, &b.m, NULL);
        CHECK(s == GM_OK && memcmp(a.buf + a.m.pitch, b.buf + b.m.pitch, 39) == 0, "host gm_copy: %s",
              gm_last_error());
        s = gm_convert(&h, &h, 1, 0, NULL);
        CHECK(s == GM_ERR_OVERLAP, "in-place convert: %s", gm_status_string(s));
        /* device work without a driver: a status, never a crash */
        s = gm_alloc_host(&h2, 13, 5, GM_F32, 3, GM_CHW, 0);
        CHECK(s == GM_OK, "second gm_alloc_host: %s", gm_last_error());
        dev = h2;
        dev.where = GM_DEVICE;
        s = gm_copy(&h, &dev, NULL);
        CHECK(s == GM_ERR_NO_DRIVER && strstr(gm_last_error(), "gm_copy"), "gm_copy to device: %s (%s)",
              gm_status_string(s), gm_last_error());
        s = gm_upload(&dev, h.data, 0, NULL);
        CHECK(s == GM_ERR_NO_DRIVER, "gm_upload: %s (%s)", gm_status_string(s), gm_last_error());
        s = gm_upload(&a.m, a.buf, 0, NULL);
        CHECK(s == GM_ERR_OVERLAP && strncmp(gm_last_error(), "gm_upload:", 10) == 0,
              "gm_upload of an image onto itself: %s (%s)", gm_status_string(s), gm_last_error());
        s = gm_upload_sync(&a.m, b.buf, 0);
        CHECK(s == GM_OK && memcmp(a.buf, b.buf, 39) == 0, "gm_upload_sync into host memory: %s", gm_last_error());
        {
            gm_mat dev2 = b.m;
            dev2.where = GM_DEVICE;
            gm_xform x = gm_xform_identity();
            s = gm_transform(&dev2, &dev, &x, NULL);
            CHECK(s == GM_ERR_NO_DRIVER && strstr(gm_last_error(), "gm_transform") &&
                      strstr(gm_last_error(), "GM_CUDA_PATH"),
                  "gm_transform on the device: %s (%s)", gm_status_string(s), gm_last_error());
        }
        s = gm_wrap(&m, a.buf, 13, 5, GM_U8, 3, GM_HWC, 0, GM_DEVICE);
        CHECK(s == GM_ERR_NO_DRIVER && strstr(gm_last_error(), "gm_wrap"), "device wrap: %s (%s)",
              gm_status_string(s), gm_last_error());
        CHECK_SAFE(m);
        gm_free(&h);
        gm_free(&h2);
    }
    timg_free(&a);
    timg_free(&b);
    return t_summary("args[no-driver]");
}

/* Runs argv0 NO_DRIVER_FLAG with the driver and NVRTC paths broken; adds its
 * counts to ours and checks it exited cleanly. */
static void run_child(const char* argv0)
{
    int fds[2], status = 0, got = 0, p = 0, f = 0, sk = 0;
    pid_t pid;
    char line[1024];
    size_t n = 0, i, k;
    char** env;
    for (n = 0; environ[n]; ++n)
        ;
    env = (char**)calloc(n + 3, sizeof *env);
    for (i = 0, k = 0; i < n; ++i)
        if (strncmp(environ[i], "GM_CUDA_PATH=", 13) != 0 && strncmp(environ[i], "GM_NVRTC_PATH=", 14) != 0)
            env[k++] = environ[i];
    env[k++] = (char*)"GM_CUDA_PATH=" BAD_CUDA;
    env[k++] = (char*)"GM_NVRTC_PATH=" BAD_NVRTC;
    env[k] = NULL;
    fflush(stdout);
    if (pipe(fds) != 0) {
        CHECK(0, "pipe failed: the no-driver child did not run");
        free(env);
        return;
    }
    pid = fork();
    if (pid == 0) {
        char* args[3];
        args[0] = (char*)argv0;
        args[1] = (char*)NO_DRIVER_FLAG;
        args[2] = NULL;
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execve(argv0, args, env);
        _exit(127);
    }
    free(env);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        CHECK(0, "fork failed: the no-driver child did not run");
        return;
    }
    {
        /* read everything, then echo it line by line and find the summary */
        size_t cap = 1 << 16, len = 0;
        char* all = (char*)malloc(cap + 1);
        ssize_t r;
        char *ln, *nl;
        while (all && (r = read(fds[0], all + len, cap - len)) > 0) {
            len += (size_t)r;
            if (len == cap) {
                char* bigger = (char*)realloc(all, 2 * cap + 1);
                if (!bigger)
                    break;
                all = bigger;
                cap *= 2;
            }
        }
        close(fds[0]);
        if (all) {
            all[len] = 0;
            for (ln = all; *ln; ln = nl) {
                int a, b, c;
                nl = strchr(ln, '\n');
                nl = nl ? nl + 1 : ln + strlen(ln);
                snprintf(line, sizeof line, "%.*s", (int)(nl - ln), ln);
                printf("  [no-driver] %s%s", line, line[strlen(line) - 1] == '\n' ? "" : "\n");
                if (sscanf(line, "args[no-driver]: %d passed, %d failed, %d skipped", &a, &b, &c) == 3)
                    p = a, f = b, sk = c, got = 1;
            }
            free(all);
        }
    }
    waitpid(pid, &status, 0);
    t_passed += p;
    t_failed += f;
    t_skipped += sk;
    CHECK(got, "the no-driver child printed no summary");
    CHECK(got && p > 20, "the no-driver child ran only %d checks", p);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the no-driver child exited with status 0x%x", status);
}

int main(int argc, char** argv)
{
    gm_mat dm;
    gm_status s;
    if (argc > 1 && strcmp(argv[1], NO_DRIVER_FLAG) == 0) {
        t_seed_from_env("args[no-driver]");
        return child_no_driver();
    }
    CHECK(gm_last_error() != NULL && gm_last_error()[0] == 0, "gm_last_error() before any failure: \"%s\"",
          gm_last_error());
    t_seed_from_env("args");

    /* The first device call of the process, before anything made a context
     * current: a driver with a device must just work. */
    s = gm_sync(NULL);
    CHECK(s == GM_OK || is_no_gpu(s), "first gm_sync(NULL): %s (%s)", gm_status_string(s), gm_last_error());
    s = gm_alloc_device(&dm, 16, 8, GM_U8, 3, GM_HWC);
    CHECK(s == GM_OK || is_no_gpu(s), "gm_alloc_device: %s (%s)", gm_status_string(s), gm_last_error());
    g_dev = s == GM_OK;
    CHECK(gm_path() == (g_dev ? GM_DEVICE : GM_HOST), "gm_path() is %d but gm_alloc_device says %s",
          (int)gm_path(), gm_status_string(s));
    if (g_dev) {
        CHECK(dm.where == GM_DEVICE && dm.pitch % 256 == 0 && dm.pitch >= 48, "device pitch %lld", (long long)dm.pitch);
        gm_free(&dm);
        test_fresh_thread_device();
    } else {
        CHECK(strncmp(gm_last_error(), "gm_alloc_device:", 16) == 0, "no-device message names gm_alloc_device: %s",
              gm_last_error());
        CHECK_SAFE(dm);
        SKIP("no CUDA device here (%s): device-memory cases use host descriptors marked GM_DEVICE; real device "
             "round trips and device calls from a fresh thread did not run",
             gm_last_error());
    }

    test_status_and_types();
    test_last_error_is_per_thread();
    test_alloc();
    test_wrap();
    test_views();
    test_copy();
    test_device_misc();
    test_transform_convert();
    test_split_merge();
    test_blob();
    test_blob_params();
    test_resize();
    test_preprocess();
    test_fill();
    test_overlay();
    test_overlay_yuv();
    test_add_weighted();
    test_warp_matrices();
    test_warps();
    test_yuv();
    test_yuv16();
    test_prep_yuv();
    test_copy_many();
    test_typed_functions();
    test_kernels();
    run_child(argv[0]);
    return t_summary("args");
}
