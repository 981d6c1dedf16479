/* SPDX-License-Identifier: MIT */
/* Implementation: the disk cache of kernel images, one file per key.
 * Knows nothing of NVRTC or the driver: jit.h computes the key and decides
 * when to look here, so this layer is testable without a GPU. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#define GM__CACHE_FORMAT 1 /* bump when the entry layout or the key's recipe changes */
#define GM__CACHE_PATH 4096                  /* the longest cache folder path */
#define GM__ENTRY_PATH (GM__CACHE_PATH + 512) /* room for any file name in it */

/* O_NOFOLLOW and O_CLOEXEC are POSIX.1-2008, which a strict -std=c99 build
 * on glibc hides; glibc's own names for them stay visible. */
#if defined(O_NOFOLLOW)
#define GM__O_NOFOLLOW O_NOFOLLOW
#elif defined(__O_NOFOLLOW)
#define GM__O_NOFOLLOW __O_NOFOLLOW
#else
#error "gpumat's disk cache needs O_NOFOLLOW: define _POSIX_C_SOURCE 200809L before the first #include"
#endif
#if defined(O_CLOEXEC)
#define GM__O_CLOEXEC O_CLOEXEC
#elif defined(__O_CLOEXEC)
#define GM__O_CLOEXEC __O_CLOEXEC
#else
#define GM__O_CLOEXEC 0 /* only a program another thread execs meanwhile would inherit the fd */
#endif

/* Opens path for reading the way the cache reads anything in its folder:
 * a symbolic link is not followed (errno ELOOP), and a FIFO or device
 * planted under the name neither blocks nor becomes the terminal. *st is
 * the fstat of what opened, so that what is checked is what is read.
 * -1 with errno when nothing opened. */
static int gm__cache_open(const char* path, struct stat* st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | GM__O_NOFOLLOW | GM__O_CLOEXEC), e;
    if (fd >= 0 && fstat(fd, st) != 0) {
        e = errno;
        close(fd);
        errno = e;
        fd = -1;
    }
    return fd;
}

/* Whether path names a regular file of this user (not a link to one): what
 * the trim and gm_cache_clear may count and remove; *st its stat. */
static int gm__cache_own_file(const char* path, struct stat* st)
{
    int fd = gm__cache_open(path, st);
    if (fd < 0)
        return 0;
    close(fd);
    return S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

/* The folder in effect into path; 0 when the cache is off, with why. */
static int gm__cache_folder(char* path, size_t size, const char** why)
{
    const char* v = getenv("GM_CACHE");
    int n;
    *why = "";
    if (v && !strcmp(v, "0")) {
        *why = "GM_CACHE=0";
        return 0;
    }
    if ((v = getenv("GM_CACHE_DIR")) && *v)
        n = snprintf(path, size, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && *v == '/')
        n = snprintf(path, size, "%s/gpumat", v);
    else if ((v = getenv("HOME")) && *v)
        n = snprintf(path, size, "%s/.cache/gpumat", v);
    else {
        *why = "neither GM_CACHE_DIR, XDG_CACHE_HOME nor HOME is set";
        return 0;
    }
    if (n < 0 || (size_t)n >= size) {
        *why = "the folder's path is too long";
        return 0;
    }
    return 1;
}

static int gm__ends_with(const char* s, const char* suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* This process's running count of the bytes in folder gm__cache_counted
 * (-1: not counted yet), so that a store scans the folder only when the
 * bound may be passed. */
static int64_t gm__cache_bytes = -1;
static char gm__cache_counted[GM__CACHE_PATH];
static pthread_mutex_t gm__cache_lock_bytes = PTHREAD_MUTEX_INITIALIZER;

#ifndef GM_NO_NVRTC /* what only a build that compiles kernels needs */
#define GM__FNV_START 14695981039346656037ull

/* 64-bit FNV-1a of data, continued from h (GM__FNV_START to begin). */
static uint64_t gm__fnv(uint64_t h, const void* data, size_t n)
{
    const unsigned char* p = (const unsigned char*)data;
    size_t i;
    for (i = 0; i < n; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* What precedes the image in an entry (native byte order: a foreign one
 * fails the format check). */
typedef struct gm__cache_header {
    char magic[8];
    uint32_t format;
    int32_t arch;
    uint64_t key;
    uint64_t size;     /* bytes of image after the header */
    uint64_t checksum; /* gm__fnv of the image */
} gm__cache_header;

static const char gm__cache_magic[8] = {'g', 'm', 'c', 'a', 'c', 'h', 'e', '\n'};

/* Says once per process, through the log hook, that the cache is unusable. */
static void gm__cache_off(const char* kernel, const char* fmt, const char* a, const char* b)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
        return;
    gm__jit_log(GM_JIT_CACHE_OFF, kernel, 0.0, fmt, a, b);
}

/* Why the folder (folder 1) or entry (folder 0) stat'd in st may hold code
 * that another user chose or can change, or NULL when it cannot: it must
 * be this user's, writable by no one else, a folder or a regular file, and
 * an entry has one name (a second hard link may be another user's, to a
 * file of ours whose bytes they chose). text holds a reason with numbers. */
static const char* gm__cache_flaw(const struct stat* st, int folder, char* text, size_t size)
{
    if (folder ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
        return folder ? "not a folder" : "not a regular file";
    if (st->st_uid != geteuid())
        snprintf(text, size, "owned by uid %lu, not by this process's uid %lu", (unsigned long)st->st_uid,
                 (unsigned long)geteuid());
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        snprintf(text, size, "mode %04o lets group or others write to it", (unsigned)(st->st_mode & 07777));
    else if (!folder && st->st_nlink > 1)
        snprintf(text, size, "%lu hard links (an entry has one)", (unsigned long)st->st_nlink);
    else
        return NULL;
    return text;
}

enum { GM__FOLDER_ABSENT, GM__FOLDER_TRUSTED, GM__FOLDER_REFUSED };

/* The last folder judged and its verdict: one stat per folder in effect,
 * not one per kernel. */
static char gm__cache_judged[GM__CACHE_PATH];
static int gm__cache_verdict;
static pthread_mutex_t gm__cache_lock_judged = PTHREAD_MUTEX_INITIALIZER;

/* Whether folder may hold the cache, as ssh judges ~/.ssh: it is refused
 * unless it is this user's and neither group nor others can write to it
 * (said once through the log hook, with the fix). Only the folder itself
 * is judged: the folders above it are the user's choice (/tmp, a shared
 * project folder) or were made 0700 by gm__make_folders, and what a
 * writable one above allows, putting another folder in this one's place,
 * yields entries of another owner, which gm__cache_load refuses one by one.
 * The verdict stands until the folder in effect changes; a missing folder
 * is not judged (the store makes it, then judges it). */
static int gm__cache_judge(const char* kernel, const char* folder)
{
    struct stat st;
    char text[96];
    const char* flaw;
    int verdict;
    pthread_mutex_lock(&gm__cache_lock_judged);
    if (strcmp(gm__cache_judged, folder) == 0) {
        verdict = gm__cache_verdict;
        pthread_mutex_unlock(&gm__cache_lock_judged);
        return verdict;
    }
    if (stat(folder, &st) != 0) {
        pthread_mutex_unlock(&gm__cache_lock_judged);
        return GM__FOLDER_ABSENT;
    }
    flaw = gm__cache_flaw(&st, 1, text, sizeof text);
    verdict = gm__cache_verdict = flaw ? GM__FOLDER_REFUSED : GM__FOLDER_TRUSTED;
    memcpy(gm__cache_judged, folder, strlen(folder) + 1);
    pthread_mutex_unlock(&gm__cache_lock_judged);
    if (flaw) /* outside the lock: the hook may call gpumat */
        gm__jit_log(GM_JIT_CACHE_OFF, kernel, 0.0,
                    "disk cache folder %s refused: %s; compiling in memory. Use a folder of your own that only you "
                    "can write to (chmod 700 %s), or set GM_CACHE_DIR to one",
                    folder, flaw, folder);
    return verdict;
}

/* The entry's file: the key alone would do, the kernel, arch and NVRTC
 * version in front say what it holds (gm_xform_u8_f32_c3-sm_90-nvrtc13.0-
 * <key>.gmjit) to whoever lists the folder. NVRTC is loaded: the key has
 * its version. */
static void gm__cache_entry_path(char* path, size_t size, const char* folder, const char* kernel, uint64_t key,
                                 int arch)
{
    int major = 0, minor = 0;
    gm__rtc.nvrtcVersion(&major, &minor);
    snprintf(path, size, "%s/%s-sm_%d-nvrtc%d.%d-%016llx.gmjit", folder, kernel, arch, major, minor,
             (unsigned long long)key);
}

static int gm__read_all(int fd, void* buf, size_t n)
{
    char* p = (char*)buf;
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got <= 0) {
            if (got < 0 && errno == EINTR)
                continue;
            return 0;
        }
        p += got;
        n -= (size_t)got;
    }
    return 1;
}

static int gm__write_all(int fd, const void* buf, size_t n)
{
    const char* p = (const char*)buf;
    while (n > 0) {
        ssize_t put = write(fd, p, n);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return 0;
        }
        p += put;
        n -= (size_t)put;
    }
    return 1;
}

/* Why the entry open on fd cannot be used, or NULL when it can; on NULL the
 * image is in *image (GM_MALLOC'd), *size bytes. */
static const char* gm__cache_read(int fd, uint64_t key, int arch, char** image, size_t* size)
{
    gm__cache_header h;
    struct stat st;
    char* data;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < sizeof h || !gm__read_all(fd, &h, sizeof h))
        return "shorter than its header";
    if (memcmp(h.magic, gm__cache_magic, sizeof h.magic) != 0)
        return "not a gpumat cache entry";
    if (h.format != GM__CACHE_FORMAT)
        return "another entry format";
    if (h.key != key)
        return "another key";
    if (h.arch != arch)
        return "built for another architecture";
    if (h.size != (uint64_t)st.st_size - sizeof h || h.size == 0 || h.size > (uint64_t)SIZE_MAX)
        return "length does not match the file (truncated?)";
    data = (char*)GM_MALLOC((size_t)h.size);
    if (!data)
        return "no memory to read it";
    if (!gm__read_all(fd, data, (size_t)h.size) || gm__fnv(GM__FNV_START, data, (size_t)h.size) != h.checksum) {
        GM_FREE(data);
        return "checksum mismatch";
    }
    *image = data;
    *size = (size_t)h.size;
    return NULL;
}

/* 1 and the image (GM_MALLOC'd) when the cache holds a sound entry for key;
 * else 0 (a miss or a rejected entry, reported to the log hook). */
static int gm__cache_load(const char* kernel, uint64_t key, int arch, char** image, size_t* size)
{
    char folder[GM__CACHE_PATH], path[GM__ENTRY_PATH], text[96];
    const char *why, *bad;
    double t0 = gm__now_ms();
    struct stat st;
    int fd;
    if (!gm__cache_folder(folder, sizeof folder, &why) || gm__cache_judge(kernel, folder) == GM__FOLDER_REFUSED)
        return 0;
    gm__cache_entry_path(path, sizeof path, folder, kernel, key, arch);
    fd = gm__cache_open(path, &st);
    if (fd < 0) {
        if (errno == ELOOP)
            gm__jit_log(GM_JIT_CACHE_REJECT, kernel, gm__now_ms() - t0, "%s: a symbolic link, not followed", path);
        else
            gm__jit_log(GM_JIT_CACHE_MISS, kernel, gm__now_ms() - t0, "%s", path);
        return 0;
    }
    /* A refused entry stays: the store that follows renames a sound one
     * over its name, as over any rejected entry. */
    bad = gm__cache_flaw(&st, 0, text, sizeof text);
    if (!bad)
        bad = gm__cache_read(fd, key, arch, image, size);
    close(fd);
    if (bad) {
        gm__jit_log(GM_JIT_CACHE_REJECT, kernel, gm__now_ms() - t0, "%s: %s", path, bad);
        return 0;
    }
    /* Recently used: the bound evicts the oldest first. By name, since
     * futimens is hidden from strict C99 builds: were the name swapped for a
     * link meanwhile, a file's times would change, nothing else. */
    utime(path, NULL);
    gm__jit_log(GM_JIT_CACHE_HIT, kernel, gm__now_ms() - t0, "%s", path);
    return 1;
}

/* mkdir -p with mode 0700 (the images are code the GPU will run). */
static int gm__make_folders(const char* folder)
{
    char p[GM__CACHE_PATH];
    size_t i, n = strlen(folder);
    if (n >= sizeof p)
        return 0;
    memcpy(p, folder, n + 1);
    for (i = 1; i <= n; ++i)
        if (p[i] == '/' || p[i] == 0) {
            char c = p[i];
            p[i] = 0;
            if (mkdir(p, 0700) != 0 && errno != EEXIST)
                return 0;
            p[i] = c;
        }
    return 1;
}

typedef struct gm__cache_file {
    char name[256]; /* NAME_MAX + 1: every entry's name fits */
    time_t mtime;
    int64_t size;
} gm__cache_file;

static int gm__older_first(const void* a, const void* b)
{
    time_t x = ((const gm__cache_file*)a)->mtime, y = ((const gm__cache_file*)b)->mtime;
    return x < y ? -1 : x > y;
}

/* Whether the process that writes the temporary file `name`
 * (<entry>.<pid>.<serial>.tmp, gm__cache_store) is gone: killed mid-write.
 * A writer in another PID namespace looks gone too, hence the caller's wait
 * of a minute, far beyond any write; without /proc none looks gone. */
static int gm__writer_gone(const char* name)
{
    const char* at = strstr(name, ".gmjit.");
    long pid = at ? strtol(at + 7, NULL, 10) : 0;
    char proc[32];
    if (pid <= 0 || access("/proc/self", F_OK) != 0)
        return 0;
    snprintf(proc, sizeof proc, "/proc/%ld", pid);
    return access(proc, F_OK) != 0 && errno == ENOENT;
}

/* The bytes of entries in folder; past max, the least recently used go
 * until 3/4 of max is left (so a full cache does not trim at every store).
 * Temporary files go when their writer is gone and a minute has passed, or
 * after an hour whatever. Only this user's regular files count and go:
 * links are not followed, other users' files are left alone. */
static int64_t gm__cache_trim(const char* folder, int64_t max)
{
    DIR* d = opendir(folder);
    struct dirent* e;
    gm__cache_file* files = NULL;
    size_t count = 0, cap = 0, i;
    int64_t total = 0;
    char path[GM__ENTRY_PATH];
    time_t now = time(NULL);
    struct stat st;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        int entry = gm__ends_with(e->d_name, ".gmjit"), temp = gm__ends_with(e->d_name, ".tmp");
        if ((!entry && !temp) || strlen(e->d_name) >= sizeof files[0].name)
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (!gm__cache_own_file(path, &st))
            continue; /* a link, or another user's: neither counted nor removed */
        if (temp) {
            if (now - st.st_mtime > 3600 || (now - st.st_mtime > 60 && gm__writer_gone(e->d_name)))
                unlink(path);
            continue;
        }
        if (count == cap) {
            gm__cache_file* grown = (gm__cache_file*)GM_REALLOC(files, (cap = cap ? cap * 2 : 256) * sizeof *files);
            if (!grown)
                break;
            files = grown;
        }
        memcpy(files[count].name, e->d_name, strlen(e->d_name) + 1);
        files[count].mtime = st.st_mtime;
        files[count].size = (int64_t)st.st_size;
        total += files[count++].size;
    }
    closedir(d);
    if (total > max) {
        qsort(files, count, sizeof *files, gm__older_first);
        for (i = 0; i < count && total > max / 4 * 3; ++i) {
            snprintf(path, sizeof path, "%s/%s", folder, files[i].name);
            if (unlink(path) == 0 || errno == ENOENT)
                total -= files[i].size;
        }
    }
    GM_FREE(files);
    return total;
}

static int64_t gm__cache_max_bytes(void)
{
    const char* v = getenv("GM_CACHE_MAX_MB");
    long long mb = v && *v ? strtoll(v, NULL, 10) : GM_CACHE_MAX_MB;
    return (int64_t)(mb > 0 ? mb : GM_CACHE_MAX_MB) << 20;
}

static unsigned gm__cache_temp_serial; /* distinct temporary names within a process */

/* Writes the entry for key: a temporary file renamed into place, so readers
 * in any process see a whole entry or none. Failure only costs the cache. */
static void gm__cache_store(const char* kernel, uint64_t key, int arch, const void* image, size_t size)
{
    char folder[GM__CACHE_PATH], path[GM__ENTRY_PATH], temp[GM__ENTRY_PATH + 64];
    const char* why;
    gm__cache_header h;
    double t0 = gm__now_ms();
    int fd, ok;
    int64_t max;
    if (!gm__cache_folder(folder, sizeof folder, &why)) {
        if (strcmp(why, "GM_CACHE=0") != 0)
            gm__cache_off(kernel, "disk cache off: %s%s; compiling in memory", why, "");
        return;
    }
    if (!gm__make_folders(folder)) {
        gm__cache_off(kernel, "cannot create %s (%s); compiling in memory", folder, strerror(errno));
        return;
    }
    if (gm__cache_judge(kernel, folder) == GM__FOLDER_REFUSED)
        return; /* said when judged */
    gm__cache_entry_path(path, sizeof path, folder, kernel, key, arch);
    snprintf(temp, sizeof temp, "%s.%ld.%u.tmp", path, (long)getpid(),
             __atomic_add_fetch(&gm__cache_temp_serial, 1, __ATOMIC_RELAXED));
    /* O_EXCL fails on any name already there, a link included; the rename
     * below replaces the entry's name itself, never what a link there names. */
    fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | GM__O_NOFOLLOW | GM__O_CLOEXEC, 0600);
    if (fd < 0) {
        gm__cache_off(kernel, "cannot write in %s (%s); compiling in memory", folder, strerror(errno));
        return;
    }
    memcpy(h.magic, gm__cache_magic, sizeof h.magic);
    h.format = GM__CACHE_FORMAT;
    h.arch = arch;
    h.key = key;
    h.size = size;
    h.checksum = gm__fnv(GM__FNV_START, image, size);
    ok = gm__write_all(fd, &h, sizeof h) && gm__write_all(fd, image, size);
    ok = close(fd) == 0 && ok && rename(temp, path) == 0;
    if (!ok) {
        gm__cache_off(kernel, "cannot write in %s (%s); compiling in memory", folder, strerror(errno));
        unlink(temp);
        return;
    }
    gm__jit_log(GM_JIT_CACHE_STORE, kernel, gm__now_ms() - t0, "%s", path);
    max = gm__cache_max_bytes();
    pthread_mutex_lock(&gm__cache_lock_bytes);
    if (gm__cache_bytes < 0 || strcmp(gm__cache_counted, folder) != 0 ||
        (gm__cache_bytes += (int64_t)(size + sizeof h)) > max) {
        gm__cache_bytes = gm__cache_trim(folder, max);
        memcpy(gm__cache_counted, folder, strlen(folder) + 1);
    }
    pthread_mutex_unlock(&gm__cache_lock_bytes);
}

#endif
