/* The JIT without a GPU: log hook, disk cache folder choice, hits, corrupted
 * truncated and foreign entries rebuilt, planted entries (links, other
 * owners, writable by others) refused, folders that others can write to or
 * that are another user's refused, the cache off, an unwritable folder, the
 * size bound and what the trim spares, clearing, 8 processes racing on the
 * same cold kernels, entry names (kernel, arch, NVRTC version), a log detail of any length, a
 * failed compile's messages and numbered source pointing into templates/,
 * and the warm-up / kernel-list arguments. Images are built for sm_90 through
 * NVRTC (no driver needed). Run alone: make build/test_jit && build/test_jit */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

#include <sys/wait.h>

#define ARCH 90
#define RACERS 8

static int events[GM_JIT_EVENT_COUNT];
static char last_detail[GM_JIT_EVENT_COUNT][512];

static void on_event(gm_jit_event e, const char* kernel, double ms, const char* detail, void* user)
{
    (void)kernel;
    (void)ms;
    ++*(int*)user;
    __atomic_add_fetch(&events[e], 1, __ATOMIC_RELAXED);
    snprintf(last_detail[e], sizeof last_detail[e], "%s", detail);
}

static void reset_events(void) { memset(events, 0, sizeof events); }

/* Three kernels from different families, used throughout. */
static const int specs[3] = {5, 200, 401}; /* two generic kernels and a fast one */
static uint64_t ref_hash[3];
static size_t ref_size[3];
static char dir[256];

/* gm__image of specs[k]: its hash and size, or 0 on failure. */
static uint64_t image_hash(int k, size_t* size)
{
    const void* image;
    char* owned;
    uint64_t h = 0;
    if (gm__image("test_jit", specs[k], ARCH, &image, size, &owned) == GM_OK)
        h = gm__fnv(GM__FNV_START, image, *size);
    else
        printf("gm__image(%s): %s\n", gm_kernel_name(specs[k]), gm_last_error());
    free(owned);
    return h;
}

static int image_ok(int k)
{
    size_t size = 0;
    return image_hash(k, &size) == ref_hash[k] && size == ref_size[k];
}

static void entry_path(int k, char* path, size_t size)
{
    gm__program p;
    char folder[256];
    const char* why;
    gm__program_for("test_jit", &specs[k], 1, ARCH, GM__YIELD_CUBIN, &p);
    gm__cache_folder(folder, sizeof folder, &why);
    gm__cache_entry_path(path, size, folder, gm_kernel_name(specs[k]), gm__program_key(&p, ARCH), ARCH);
    free(p.src);
}

static int count_files(const char* folder, const char* suffix, int64_t* bytes)
{
    DIR* d = opendir(folder);
    struct dirent* e;
    struct stat st;
    char path[1024];
    int n = 0;
    if (bytes)
        *bytes = 0;
    while (d && (e = readdir(d)) != NULL)
        if (gm__ends_with(e->d_name, suffix)) {
            ++n;
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
            if (bytes && stat(path, &st) == 0)
                *bytes += st.st_size;
        }
    if (d)
        closedir(d);
    return n;
}

static void write_file(const char* path, const void* data, size_t n)
{
    FILE* f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static char* read_file(const char* path, size_t* n)
{
    FILE* f = fopen(path, "rb");
    char* data = NULL;
    long len;
    *n = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len > 0 && (data = (char*)malloc((size_t)len)) != NULL)
        *n = fread(data, 1, (size_t)len, f);
    fclose(f);
    return data;
}

/* The entry of specs[k] is stored under a name that shows the kernel, the
 * arch and the NVRTC version, then the key. */
static void entry_named(int k)
{
    char path[1024], shown[256];
    int major = 0, minor = 0;
    gm__rtc.nvrtcVersion(&major, &minor);
    snprintf(shown, sizeof shown, "/%s-sm_%d-nvrtc%d.%d-", gm_kernel_name(specs[k]), ARCH, major, minor);
    entry_path(k, path, sizeof path);
    CHECK(strstr(path, shown) && gm__ends_with(path, ".gmjit") && access(path, F_OK) == 0, "entry %s (shows %s)",
          path, shown);
}

static void folder_choice(void)
{
    char path[512], home[256];
    snprintf(home, sizeof home, "%s", getenv("HOME") ? getenv("HOME") : "");
    CHECK(gm_cache_dir(path, sizeof path) == GM_OK && !strcmp(path, dir), "GM_CACHE_DIR wins: %s", path);
    CHECK(gm_cache_dir(path, 4) == GM_ERR_ARG && strstr(gm_last_error(), "size"), "small size: %s", gm_last_error());
    CHECK(gm_cache_dir(NULL, 9) == GM_ERR_ARG && strstr(gm_last_error(), "path"), "NULL path: %s", gm_last_error());
    unsetenv("GM_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg/c", 1);
    CHECK(gm_cache_dir(path, sizeof path) == GM_OK && !strcmp(path, "/xdg/c/gpumat"), "XDG_CACHE_HOME: %s", path);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    CHECK(gm_cache_dir(path, sizeof path) == GM_OK && !strcmp(path, "/home/u/.cache/gpumat"), "HOME: %s", path);
    unsetenv("HOME");
    CHECK(gm_cache_dir(path, sizeof path) == GM_ERR_IO, "no HOME: cache off");
    setenv("HOME", home, 1);
    setenv("GM_CACHE", "0", 1);
    CHECK(gm_cache_dir(path, sizeof path) == GM_ERR_IO && strstr(gm_last_error(), "GM_CACHE=0"), "GM_CACHE=0: %s",
          gm_last_error());
    unsetenv("GM_CACHE");
    setenv("GM_CACHE_DIR", dir, 1);
}

static void miss_hit(void)
{
    size_t size = 0;
    reset_events();
    CHECK(image_hash(0, &size) == ref_hash[0], "cold image equals the uncached compile");
    CHECK(events[GM_JIT_CACHE_MISS] == 1 && events[GM_JIT_COMPILE] == 1 && events[GM_JIT_CACHE_STORE] == 1,
          "cold: miss %d compile %d store %d", events[GM_JIT_CACHE_MISS], events[GM_JIT_COMPILE],
          events[GM_JIT_CACHE_STORE]);
    CHECK(count_files(dir, ".gmjit", NULL) == 1 && count_files(dir, ".tmp", NULL) == 0, "one entry, no temporary");
    entry_named(0);
    reset_events();
    CHECK(image_ok(0), "warm image equals the uncached compile");
    CHECK(events[GM_JIT_CACHE_HIT] == 1 && events[GM_JIT_COMPILE] == 0, "warm: hit %d compile %d",
          events[GM_JIT_CACHE_HIT], events[GM_JIT_COMPILE]);
}

/* Each damage to the entry of specs[0] is rejected (with the reason) and
 * the entry rebuilt, never loaded; the next use hits again. */
static void corrupted(void)
{
    static const struct {
        const char* what;
        long offset; /* byte to change; -1: cut the file to `keep` bytes */
        long keep;
        const char* reason;
    } cases[] = {
        {"empty file", -1, 0, "shorter than its header"},
        {"header cut", -1, 20, "shorter than its header"},
        {"image truncated", -1, 1000, "length"},
        {"image byte flipped", 900, 0, "checksum"},
        {"magic", 0, 0, "not a gpumat cache entry"},
        {"format version", 8, 0, "another entry format"},
        {"foreign arch", 12, 0, "another architecture"},
        {"other key", 16, 0, "another key"},
        {"length field", 24, 0, "length"},
    };
    char path[1024];
    size_t i, n;
    char* good;
    entry_path(0, path, sizeof path);
    good = read_file(path, &n);
    CHECK(good && n > 1000, "the entry of %s is readable", gm_kernel_name(specs[0]));
    for (i = 0; good && i < sizeof cases / sizeof cases[0]; ++i) {
        char* bad = (char*)malloc(n);
        memcpy(bad, good, n);
        if (cases[i].offset >= 0)
            bad[cases[i].offset] ^= 0x5a;
        write_file(path, bad, cases[i].offset >= 0 ? n : (size_t)cases[i].keep);
        free(bad);
        reset_events();
        CHECK(image_ok(0), "%s: the image is right", cases[i].what);
        CHECK(events[GM_JIT_CACHE_REJECT] == 1 && strstr(last_detail[GM_JIT_CACHE_REJECT], cases[i].reason) &&
                  events[GM_JIT_COMPILE] == 1 && events[GM_JIT_CACHE_STORE] == 1,
              "%s: reject %d (%s), compile %d, store %d", cases[i].what, events[GM_JIT_CACHE_REJECT],
              last_detail[GM_JIT_CACHE_REJECT], events[GM_JIT_COMPILE], events[GM_JIT_CACHE_STORE]);
        reset_events();
        CHECK(image_ok(0) && events[GM_JIT_CACHE_HIT] == 1, "%s: rebuilt entry hits", cases[i].what);
    }
    free(good);
}

static void copy_file(const char* from, const char* to)
{
    size_t n;
    char* data = read_file(from, &n);
    write_file(to, data, n);
    free(data);
}

static int same_bytes(const char* path, const char* want, size_t n)
{
    size_t got;
    char* data = read_file(path, &got);
    int same = data && got == n && !memcmp(data, want, n);
    free(data);
    return same;
}

#define OTHER_UID 12345 /* chown to it needs root: CI runs as root, elsewhere those cases say SKIP */

/* What some cases of planted_entries() put under the entry's name; 1 when
 * done. */
static int plant_link(const char* path, const char* spare) { return unlink(path) == 0 && symlink(spare, path) == 0; }

static int plant_hard_link(const char* path, const char* spare) { return unlink(path) == 0 && link(spare, path) == 0; }

static int plant_fifo(const char* path, const char* spare)
{
    (void)spare;
    return unlink(path) == 0 && mkfifo(path, 0600) == 0;
}

static int plant_other_owner(const char* path, const char* spare)
{
    (void)spare;
    return chown(path, OTHER_UID, OTHER_UID) == 0;
}

/* Under the name of a sound entry of specs[0], in a folder of one's own:
 * a link to a sound copy elsewhere, a second hard link, a FIFO, the entry
 * chown'd to another user, the entry writable by group or others. Each is
 * refused (a reject saying why), never read: the kernel is compiled, a
 * sound entry of this user is renamed over the name, the copy elsewhere
 * stays as it was, and the next use hits. */
static void planted_entries(void)
{
    static const struct {
        const char* what;
        int (*plant)(const char* path, const char* spare); /* NULL: chmod to mode */
        mode_t mode;
        int needs_root;
        const char* reason;
    } cases[] = {
        {"symlinked entry", plant_link, 0, 0, "symbolic link"},
        {"hard-linked entry", plant_hard_link, 0, 0, "2 hard links"},
        {"FIFO as entry", plant_fifo, 0, 0, "not a regular file"},
        {"entry of another owner", plant_other_owner, 0, 1, "owned by uid 12345"},
        {"group-writable entry", NULL, 0660, 0, "mode 0660"},
        {"world-writable entry", NULL, 0606, 0, "mode 0606"},
    };
    char path[1024], spare_dir[300], spare[1400];
    struct stat st;
    size_t i, n;
    char* good;
    entry_path(0, path, sizeof path);
    good = read_file(path, &n);
    CHECK(good && n > 1000, "the entry of %s is readable", gm_kernel_name(specs[0]));
    snprintf(spare_dir, sizeof spare_dir, "%s/elsewhere", dir);
    mkdir(spare_dir, 0700);
    snprintf(spare, sizeof spare, "%s/%s", spare_dir, strrchr(path, '/') + 1);
    write_file(spare, good, n);
    for (i = 0; good && i < sizeof cases / sizeof cases[0]; ++i) {
        if (cases[i].needs_root && geteuid() != 0) {
            SKIP("%s: chown to uid %d needs root (uid %lu here)", cases[i].what, OTHER_UID, (unsigned long)geteuid());
            continue;
        }
        CHECK(cases[i].plant ? cases[i].plant(path, spare) : chmod(path, cases[i].mode) == 0, "%s: planted",
              cases[i].what);
        reset_events();
        fflush(stdout);
        alarm(60); /* an open that blocks on the FIFO kills the test (SIGALRM) rather than hanging it */
        CHECK(image_ok(0), "%s: the image is right", cases[i].what);
        alarm(0);
        CHECK(events[GM_JIT_CACHE_REJECT] == 1 && strstr(last_detail[GM_JIT_CACHE_REJECT], cases[i].reason) &&
                  events[GM_JIT_CACHE_HIT] == 0 && events[GM_JIT_COMPILE] == 1 && events[GM_JIT_CACHE_STORE] == 1,
              "%s: reject %d (%s), hit %d, compile %d, store %d", cases[i].what, events[GM_JIT_CACHE_REJECT],
              last_detail[GM_JIT_CACHE_REJECT], events[GM_JIT_CACHE_HIT], events[GM_JIT_COMPILE],
              events[GM_JIT_CACHE_STORE]);
        CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
                  !(st.st_mode & 077) && same_bytes(path, good, n),
              "%s: a sound entry of this user took the name", cases[i].what);
        CHECK(lstat(spare, &st) == 0 && st.st_nlink == 1 && same_bytes(spare, good, n),
              "%s: the copy elsewhere is as it was", cases[i].what);
        reset_events();
        CHECK(image_ok(0) && events[GM_JIT_CACHE_HIT] == 1, "%s: the rebuilt entry hits", cases[i].what);
    }
    unlink(spare);
    rmdir(spare_dir);
    free(good);
}

/* The entries of specs[1] and specs[2] in folder `from`, copied into `to`. */
static void copy_entries(const char* from, const char* to)
{
    char a[1024], b[1024];
    int k;
    for (k = 1; k < 3; ++k) {
        setenv("GM_CACHE_DIR", from, 1);
        entry_path(k, a, sizeof a);
        setenv("GM_CACHE_DIR", to, 1);
        entry_path(k, b, sizeof b);
        copy_file(a, b);
    }
}

/* A folder that group or others can write to (sticky or not), or that is
 * another user's: refused, said once (naming the folder, why and the fix),
 * nothing read from it although it holds sound entries (planted by this
 * user, so that only the folder's check can refuse them), nothing written
 * to it, and the images right (compiled in memory). Then folders of one's
 * own, 0700, are used again: the one that held the originals hits, a new
 * one misses, stores, then hits. */
static void refused_folders(void)
{
    static const struct {
        const char* what;
        mode_t mode;
        int other_owner;
        const char* said;
    } cases[] = {
        {"group-writable folder", 0770, 0, "mode 0770"},
        {"world-writable folder", 0777, 0, "mode 0777"},
        {"world-writable sticky folder", 01777, 0, "mode 1777"},
        {"folder of another owner", 0700, 1, "owned by uid 12345"},
    };
    char seed[300], sub[300], fresh[300];
    size_t i;
    snprintf(seed, sizeof seed, "%s/seed", dir);
    mkdir(seed, 0700);
    setenv("GM_CACHE_DIR", seed, 1);
    CHECK(image_ok(1) && image_ok(2) && count_files(seed, ".gmjit", NULL) == 2, "two entries to plant");
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char* said = last_detail[GM_JIT_CACHE_OFF];
        if (cases[i].other_owner && geteuid() != 0) {
            SKIP("%s: chown to uid %d needs root (uid %lu here)", cases[i].what, OTHER_UID, (unsigned long)geteuid());
            continue;
        }
        snprintf(sub, sizeof sub, "%s/refused%d", dir, (int)i);
        mkdir(sub, 0700);
        copy_entries(seed, sub);
        chmod(sub, cases[i].mode); /* after mkdir: the umask would clear bits */
        if (cases[i].other_owner)
            CHECK(chown(sub, OTHER_UID, OTHER_UID) == 0, "chown %s", sub);
        setenv("GM_CACHE_DIR", sub, 1);
        reset_events();
        CHECK(image_ok(1) && image_ok(2), "%s: right images", cases[i].what);
        CHECK(events[GM_JIT_CACHE_OFF] == 1 && strstr(said, sub) && strstr(said, cases[i].said) &&
                  strstr(said, "in memory") && strstr(said, "chmod 700") && strstr(said, "GM_CACHE_DIR"),
              "%s: refused, said once: %d (%s)", cases[i].what, events[GM_JIT_CACHE_OFF], said);
        CHECK(events[GM_JIT_CACHE_HIT] + events[GM_JIT_CACHE_REJECT] + events[GM_JIT_CACHE_STORE] == 0 &&
                  events[GM_JIT_COMPILE] == 2,
              "%s: nothing read or written, both compiled: hit %d, reject %d, store %d, compile %d", cases[i].what,
              events[GM_JIT_CACHE_HIT], events[GM_JIT_CACHE_REJECT], events[GM_JIT_CACHE_STORE],
              events[GM_JIT_COMPILE]);
        CHECK(count_files(sub, ".gmjit", NULL) == 2 && count_files(sub, ".tmp", NULL) == 0,
              "%s: the folder is as it was", cases[i].what);
        setenv("GM_CACHE_DIR", sub, 1);
        CHECK(gm_cache_clear() == GM_OK && rmdir(sub) == 0, "%s: removed", cases[i].what);
    }
    setenv("GM_CACHE_DIR", seed, 1);
    reset_events();
    CHECK(image_ok(1) && image_ok(2) && events[GM_JIT_CACHE_HIT] == 2 && events[GM_JIT_COMPILE] == 0 &&
              events[GM_JIT_CACHE_OFF] == 0,
          "own 0700 folder after the refusals: hit %d, compile %d, off %d", events[GM_JIT_CACHE_HIT],
          events[GM_JIT_COMPILE], events[GM_JIT_CACHE_OFF]);
    snprintf(fresh, sizeof fresh, "%s/fresh", dir);
    setenv("GM_CACHE_DIR", fresh, 1);
    reset_events();
    CHECK(image_ok(1) && events[GM_JIT_CACHE_MISS] == 1 && events[GM_JIT_CACHE_STORE] == 1,
          "a new folder: miss %d, store %d", events[GM_JIT_CACHE_MISS], events[GM_JIT_CACHE_STORE]);
    reset_events();
    CHECK(image_ok(1) && events[GM_JIT_CACHE_HIT] == 1 && events[GM_JIT_COMPILE] == 0,
          "the new folder, second use: hit %d, compile %d", events[GM_JIT_CACHE_HIT], events[GM_JIT_COMPILE]);
    CHECK(gm_cache_clear() == GM_OK && rmdir(fresh) == 0, "the new folder removed");
    setenv("GM_CACHE_DIR", seed, 1);
    CHECK(gm_cache_clear() == GM_OK && rmdir(seed) == 0, "the seed folder removed");
    setenv("GM_CACHE_DIR", dir, 1);
}

static void cache_off(void)
{
    setenv("GM_CACHE", "0", 1);
    reset_events();
    CHECK(image_ok(1), "GM_CACHE=0: right image");
    CHECK(events[GM_JIT_COMPILE] == 1 && events[GM_JIT_CACHE_MISS] + events[GM_JIT_CACHE_STORE] +
                                                 events[GM_JIT_CACHE_OFF] == 0,
          "GM_CACHE=0: compiled, cache untouched and silent");
    CHECK(count_files(dir, ".gmjit", NULL) == 1, "GM_CACHE=0 stores nothing");
    unsetenv("GM_CACHE");
}

/* A folder that cannot be made (its parent is a file, which stops root too):
 * compiling still works and the log hook hears it once. */
static void unwritable(void)
{
    char file[300], sub[320];
    snprintf(file, sizeof file, "%s/a-file", dir);
    snprintf(sub, sizeof sub, "%s/cache", file);
    write_file(file, "x", 1);
    setenv("GM_CACHE_DIR", sub, 1);
    reset_events();
    CHECK(image_ok(1) && image_ok(2), "unwritable folder: right images");
    CHECK(events[GM_JIT_CACHE_OFF] == 1 && strstr(last_detail[GM_JIT_CACHE_OFF], sub) &&
              strstr(last_detail[GM_JIT_CACHE_OFF], "in memory"),
          "unwritable folder said once: %d (%s)", events[GM_JIT_CACHE_OFF], last_detail[GM_JIT_CACHE_OFF]);
    CHECK(events[GM_JIT_COMPILE] == 2, "unwritable folder: both compiled");
    unlink(file);
    setenv("GM_CACHE_DIR", dir, 1);
}

/* Over GM_CACHE_MAX_MB the least recently used entries go; a stale
 * temporary file too. */
static void bounded(void)
{
    char folder[300], path[400];
    static char big[400 << 10];
    struct utimbuf old;
    int64_t bytes;
    int i;
    snprintf(folder, sizeof folder, "%s/bounded", dir);
    mkdir(folder, 0700);
    old.actime = old.modtime = time(NULL) - 7200;
    for (i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%016d.gmjit", folder, i);
        write_file(path, big, sizeof big);
        old.modtime += 60 * i;
        utime(path, &old);
    }
    snprintf(path, sizeof path, "%s/0000000000000000.gmjit.1.1.tmp", folder);
    write_file(path, "x", 1);
    utime(path, &old);
    setenv("GM_CACHE_DIR", folder, 1);
    setenv("GM_CACHE_MAX_MB", "1", 1);
    CHECK(image_ok(2), "bounded: right image");
    count_files(folder, ".gmjit", &bytes);
    CHECK(bytes <= (1 << 20) && count_files(folder, ".gmjit", NULL) == 2, "bounded: %lld bytes in %d entries",
          (long long)bytes, count_files(folder, ".gmjit", NULL));
    snprintf(path, sizeof path, "%s/%016d.gmjit", folder, 2);
    CHECK(access(path, F_OK) == 0, "the most recent old entry stays");
    CHECK(count_files(folder, ".tmp", NULL) == 0, "the stale temporary file went");
    CHECK(gm_cache_clear() == GM_OK && count_files(folder, ".gmjit", NULL) == 0, "gm_cache_clear empties it");
    rmdir(folder);
    unsetenv("GM_CACHE_MAX_MB");
    setenv("GM_CACHE_DIR", folder, 1);
    CHECK(gm_cache_clear() == GM_OK, "gm_cache_clear of a missing folder: %s", gm_last_error());
    setenv("GM_CACHE_DIR", dir, 1);
}

/* The trim and gm_cache_clear count and remove only this user's regular
 * files: a link to an old big file elsewhere, and another user's old entry
 * and temporary file, stay with what they name. */
static void trim_spares(void)
{
    char folder[300], outside[300], link_path[400], theirs[400], their_temp[400], path[400];
    static char big[400 << 10];
    struct utimbuf old;
    struct stat st;
    int i, root = geteuid() == 0;
    snprintf(folder, sizeof folder, "%s/spares", dir);
    snprintf(outside, sizeof outside, "%s/outside.gmjit", dir);
    snprintf(link_path, sizeof link_path, "%s/0000000000000009.gmjit", folder);
    snprintf(theirs, sizeof theirs, "%s/0000000000000008.gmjit", folder);
    snprintf(their_temp, sizeof their_temp, "%s/0000000000000008.gmjit.1.1.tmp", folder);
    mkdir(folder, 0700);
    old.actime = old.modtime = time(NULL) - 7300;
    write_file(outside, big, sizeof big);
    utime(outside, &old);
    CHECK(symlink(outside, link_path) == 0, "symlink %s", link_path);
    if (root) {
        write_file(theirs, big, sizeof big);
        write_file(their_temp, "x", 1);
        utime(theirs, &old);
        utime(their_temp, &old);
        CHECK(chown(theirs, OTHER_UID, OTHER_UID) == 0 && chown(their_temp, OTHER_UID, OTHER_UID) == 0, "chown");
    } else {
        SKIP("trim: another user's entry needs root to chown (uid %lu here)", (unsigned long)geteuid());
    }
    for (i = 0; i < 3; ++i) { /* this user's, past the bound */
        snprintf(path, sizeof path, "%s/%016d.gmjit", folder, i);
        write_file(path, big, sizeof big);
        old.modtime += 60;
        utime(path, &old);
    }
    setenv("GM_CACHE_DIR", folder, 1);
    setenv("GM_CACHE_MAX_MB", "1", 1);
    CHECK(image_ok(2), "spares: right image");
    snprintf(path, sizeof path, "%s/%016d.gmjit", folder, 0);
    CHECK(access(path, F_OK) != 0, "spares: the trim ran (this user's oldest entry went)");
    CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode) && stat(outside, &st) == 0 && st.st_size == sizeof big,
          "spares: the trim left the link and what it names");
    CHECK(!root || (access(theirs, F_OK) == 0 && access(their_temp, F_OK) == 0),
          "spares: the trim left another user's entry and temporary file");
    CHECK(gm_cache_clear() == GM_OK, "spares: gm_cache_clear: %s", gm_last_error());
    CHECK(count_files(folder, ".gmjit", NULL) == 1 + root && lstat(link_path, &st) == 0 && access(outside, F_OK) == 0 &&
              (!root || (access(theirs, F_OK) == 0 && access(their_temp, F_OK) == 0)),
          "spares: gm_cache_clear removed only this user's files (%d entries left)",
          count_files(folder, ".gmjit", NULL));
    unlink(link_path);
    unlink(theirs);
    unlink(their_temp);
    unlink(outside);
    rmdir(folder);
    unsetenv("GM_CACHE_MAX_MB");
    setenv("GM_CACHE_DIR", dir, 1);
}

/* The child of race(): builds the three images through the shared cache and
 * exits 0 when each equals the reference (GM_TEST_REF from the parent). */
static int racer(void)
{
    const char* ref = getenv("GM_TEST_REF");
    unsigned long long h[3], n[3];
    int k, bad = 0;
    if (!ref || sscanf(ref, "%llx %llu %llx %llu %llx %llu", &h[0], &n[0], &h[1], &n[1], &h[2], &n[2]) != 6)
        return 99;
    for (k = 0; k < 3; ++k) {
        ref_hash[k] = h[k];
        ref_size[k] = (size_t)n[k];
    }
    for (k = 0; k < 3; ++k)
        bad += !image_ok(k);
    return bad;
}

static void race(char* self)
{
    char folder[300], arg[] = "--racer", *argv[3], ref[200];
    pid_t pids[RACERS];
    int i, k, ok = 0, status;
    snprintf(folder, sizeof folder, "%s/race", dir);
    setenv("GM_CACHE_DIR", folder, 1);
    snprintf(ref, sizeof ref, "%llx %llu %llx %llu %llx %llu", (unsigned long long)ref_hash[0],
             (unsigned long long)ref_size[0], (unsigned long long)ref_hash[1], (unsigned long long)ref_size[1],
             (unsigned long long)ref_hash[2], (unsigned long long)ref_size[2]);
    setenv("GM_TEST_REF", ref, 1);
    argv[0] = self;
    argv[1] = arg;
    argv[2] = NULL;
    for (i = 0; i < RACERS; ++i) {
        fflush(stdout);
        if ((pids[i] = fork()) == 0) {
            execv("/proc/self/exe", argv);
            _exit(127);
        }
    }
    for (i = 0; i < RACERS; ++i)
        if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            ++ok;
    CHECK(ok == RACERS, "%d of %d racing processes got the right images", ok, RACERS);
    CHECK(count_files(folder, ".gmjit", NULL) == 3 && count_files(folder, ".tmp", NULL) == 0,
          "after the race: %d entries (3), %d temporaries (0)", count_files(folder, ".gmjit", NULL),
          count_files(folder, ".tmp", NULL));
    reset_events();
    for (k = 0; k < 3; ++k)
        CHECK(image_ok(k), "after the race, %s is right", gm_kernel_name(specs[k]));
    CHECK(events[GM_JIT_CACHE_HIT] == 3 && events[GM_JIT_COMPILE] == 0, "after the race all hit: %d hits, %d compiles",
          events[GM_JIT_CACHE_HIT], events[GM_JIT_COMPILE]);
    CHECK(gm_cache_clear() == GM_OK, "clear the race folder");
    rmdir(folder);
    setenv("GM_CACHE_DIR", dir, 1);
}

/* gm__jit_log_text hands any length to the hook as it is. */
static int text_whole;

static void on_text(gm_jit_event e, const char* kernel, double ms, const char* detail, void* user)
{
    (void)ms;
    text_whole = e == GM_JIT_SOURCE && !strcmp(kernel, "k") && !strcmp(detail, (const char*)user);
}

static void log_text(void)
{
    static char text[20000];
    size_t i;
    for (i = 0; i + 1 < sizeof text; ++i)
        text[i] = "%s 1 %d\n"[i % 8];
    gm_jit_set_log(on_text, text);
    gm__jit_log_text(GM_JIT_SOURCE, "k", 0.0, text);
    gm_jit_set_log(NULL, NULL);
    CHECK(text_whole, "the hook got the whole %zu-byte text, unformatted", strlen(text));
    CHECK(!strcmp(gm_jit_event_name(GM_JIT_SOURCE), "source"), "GM_JIT_SOURCE is \"source\"");
}

/* A failed compile: NVRTC's messages name a template file and line (the
 * kernel source's #line markers), that line of the file is what the log
 * hook's numbered source (GM_JIT_SOURCE) shows there, and the entry lines
 * are named as such. The broken kernel: a fast entry of a dtype that does
 * not exist. */
static char* numbered;

static void on_source(gm_jit_event e, const char* kernel, double ms, const char* detail, void* user)
{
    (void)kernel;
    (void)ms;
    (void)user;
    if (e == GM_JIT_SOURCE && !numbered)
        numbered = strdup(detail);
}

static void failed_compile(void)
{
    static const char bad[] = "GM__ENTRY_XFORM_FAST(gm_bad, 99, 0, 1, 0, 0, 1, 1, 4)\n";
    gm__program p;
    int kernel = 0, line = 0, n, lasting = 0;
    char *image = NULL, *grown, file[64] = "", text[512] = "", shown[640], where[96];
    size_t size = 0;
    const char* at;
    FILE* f;
    gm_status s = gm__program_for("test_jit", &kernel, 1, ARCH, GM__YIELD_CUBIN, &p);
    CHECK(s == GM_OK, "program: %s", gm_last_error());
    if (s != GM_OK)
        return;
    grown = (char*)GM_REALLOC(p.src, strlen(p.src) + sizeof bad);
    CHECK(grown != NULL, "no memory");
    if (!grown)
        return;
    p.src = strcat(grown, bad);
    gm_jit_set_log(on_source, NULL);
    s = gm__nvrtc_build("test_jit", &p, &kernel, 1, &image, &size, &lasting);
    gm_jit_set_log(NULL, NULL);
    GM_FREE(p.src);
    at = strstr(gm_last_error(), "templates/");
    CHECK(s == GM_ERR_COMPILE && at && sscanf(at, "%63[^(](%d)", file, &line) == 2 && line > 0,
          "the log names a template line: %.300s", gm_last_error());
    CHECK(lasting, "a source NVRTC rejects is a lasting refusal (remembered by gm__image)");
    CHECK(strstr(gm_last_error(), "of entry points"), "the entry line is named: %.300s", gm_last_error());
    CHECK(numbered != NULL, "the hook got the numbered source");
    if (!numbered || line <= 0)
        return;
    f = fopen(file, "r"); /* tests run from the repository's root */
    for (n = 0; f && n < line && fgets(text, sizeof text, f); ++n)
        ;
    if (f)
        fclose(f);
    text[strcspn(text, "\n")] = 0;
    snprintf(where, sizeof where, "%s:%d: ", file, line);
    snprintf(shown, sizeof shown, "\n%s%s\n", where, text);
    CHECK(text[0] && strstr(numbered, shown), "the numbered source shows %s as the file has it: %s", where, text);
    CHECK(strstr(numbered, "\nentry points:1: ") && strstr(numbered, "gm_bad"), "the entry lines are numbered");
    free(numbered);
    numbered = NULL;
}

static void arguments(void)
{
    int k[38], bad[2] = {0, GM__KERNEL_COUNT};
    CHECK(gm_kernels_for(GM_U8, GM_F32, 3, k, 28) == 21 && k[0] == gm__xform_row[GM_U8][GM_F32][2] &&
              !strcmp(gm_kernel_name(k[1]), "gm_fill_bytes") &&
              !strcmp(gm_kernel_name(k[5]), "gm_xform_u8_f32_c3_chw_chw") &&
              !strcmp(gm_kernel_name(k[6]), "gm_xform_u8_f32_c1_hwc_hwc") &&
              !strcmp(gm_kernel_name(k[7]), "gm_prep_u8_f32_c3_nearest") &&
              !strcmp(gm_kernel_name(k[11]), "gm_prep_u8_f32_c3_linear_exact") &&
              !strcmp(gm_kernel_name(k[12]), "gm_prep_yuv_f32_nearest") &&
              !strcmp(gm_kernel_name(k[15]), "gm_prep_yuv_f32_linear_exact") &&
              !strcmp(gm_kernel_name(k[16]), "gm_prep_warp_u8_f32_c3_nearest") &&
              !strcmp(gm_kernel_name(k[20]), "gm_prep_yuv_warp_f32_linear"),
          "gm_kernels_for u8 -> f32 c3: %s, %s, %s, %s, %s, %s, %s, %s, %s", gm_kernel_name(k[1]), gm_kernel_name(k[5]),
          gm_kernel_name(k[6]), gm_kernel_name(k[7]), gm_kernel_name(k[11]), gm_kernel_name(k[12]),
          gm_kernel_name(k[15]), gm_kernel_name(k[16]), gm_kernel_name(k[20]));
    CHECK(gm_kernels_for(GM_U8, GM_U8, 3, k, 38) == 38 && !strcmp(gm_kernel_name(k[7]), "gm_xform_u8_u8_c1") &&
              !strcmp(gm_kernel_name(k[8]), "gm_resize_u8_c3_nearest") &&
              !strcmp(gm_kernel_name(k[12]), "gm_resize_u8_c3_linear_exact") &&
              !strcmp(gm_kernel_name(k[13]), "gm_resize_u8_c3_linear_twice") &&
              !strcmp(gm_kernel_name(k[14]), "gm_resize_u8_c3_area_fast_twice") &&
              !strcmp(gm_kernel_name(k[15]), "gm_prep_u8_u8_c3_nearest") &&
              !strcmp(gm_kernel_name(k[19]), "gm_prep_u8_u8_c3_linear_exact") &&
              !strcmp(gm_kernel_name(k[20]), "gm_prep_yuv_u8_nearest") &&
              !strcmp(gm_kernel_name(k[23]), "gm_prep_yuv_u8_linear_exact") &&
              !strcmp(gm_kernel_name(k[24]), "gm_overlay_u8") && !strcmp(gm_kernel_name(k[25]), "gm_blend_u8") &&
              !strcmp(gm_kernel_name(k[26]), "gm_yuv_u8") && !strcmp(gm_kernel_name(k[27]), "gm_yuv_from_u8") &&
              !strcmp(gm_kernel_name(k[28]), "gm_warp_u8_c3_nearest") &&
              !strcmp(gm_kernel_name(k[30]), "gm_warp_u8_c3_cubic") &&
              !strcmp(gm_kernel_name(k[32]), "gm_warp_u8_c3_float_linear") &&
              !strcmp(gm_kernel_name(k[33]), "gm_prep_warp_u8_u8_c3_nearest") &&
              !strcmp(gm_kernel_name(k[37]), "gm_prep_yuv_warp_u8_linear"),
          "u8 -> u8 c3 also lists the generic one-channel kernel, the resizes, the whole-2x resizes, the "
          "pre-processes of images and frames, the overlay, the blend, the YUV conversions, the warps (OpenCV 5's "
          "too) and the pre-process's warp placement: %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s",
          gm_kernel_name(k[7]),
          gm_kernel_name(k[8]), gm_kernel_name(k[12]), gm_kernel_name(k[13]), gm_kernel_name(k[15]),
          gm_kernel_name(k[20]), gm_kernel_name(k[24]), gm_kernel_name(k[25]), gm_kernel_name(k[26]),
          gm_kernel_name(k[27]), gm_kernel_name(k[28]), gm_kernel_name(k[32]), gm_kernel_name(k[33]),
          gm_kernel_name(k[37]));
    CHECK(gm_kernels_for(GM_U8, GM_U8, 1, k, 26) == 25 && !strcmp(gm_kernel_name(k[15]), "gm_blend_u8") &&
              !strcmp(gm_kernel_name(k[16]), "gm_yuv_u8") && !strcmp(gm_kernel_name(k[17]), "gm_warp_u8_c1_nearest") &&
              !strcmp(gm_kernel_name(k[20]), "gm_warp_u8_c1_float_nearest") &&
              !strcmp(gm_kernel_name(k[22]), "gm_prep_warp_u8_u8_c1_nearest"),
          "one channel has one fast kernel, five resizes, two whole-2x resizes, five pre-processes, no overlay, "
          "the blend, the YUV conversion (gray), not its reverse, five warps, three warp placements");
    CHECK(gm_kernels_for(GM_U8, GM_U8, 2, k, 24) == 18 && !strcmp(gm_kernel_name(k[13]), "gm_resize_u8_c2_linear_twice"),
          "two channels: one whole-2x resize (OpenCV's 2x2 integer mean has none), no pre-process, no YUV "
          "conversion");
    CHECK(gm_kernels_for(GM_F32, GM_F32, 1, k, 21) == 21 &&
              !strcmp(gm_kernel_name(k[7]), "gm_resize_f32_c1_linear_twice") &&
              gm_kernels_for(GM_S32, GM_S32, 1, k, 21) == 11,
          "f32 resizes without linear_exact, its two whole-2x resizes, and f32's pre-processes without linear_exact; "
          "s32 resizes with it, no whole-2x; five warps for f32 (OpenCV 5's too), three for s32, and f32's three warp "
          "placements");
    CHECK(gm_kernels_for(GM_S16, GM_F32, 3, k, 21) == 7, "no pre-process from s16");
    k[2] = -5;
    CHECK(gm_kernels_for(GM_U8, GM_U8, 3, k, 2) == 38 && k[1] == GM__FILL_ROW && k[2] == -5,
          "max 2 writes 2 and counts 38");
    CHECK(gm_kernels_for((gm_dtype)99, GM_U8, 1, k, 7) == 0 && strstr(gm_last_error(), "dtype"), "bad dtype: %s",
          gm_last_error());
    CHECK(gm_kernels_for(GM_U8, GM_U8, 5, k, 7) == 0 && strstr(gm_last_error(), "channels"), "bad channels: %s",
          gm_last_error());
    CHECK(gm_kernels_for(GM_U8, GM_U8, 1, NULL, 7) == 0 && strstr(gm_last_error(), "kernels"), "NULL kernels");
    CHECK(gm_kernel_find(gm_kernel_name(1234)) == 1234 && gm_kernel_find("nope") == -1 && gm_kernel_find(NULL) == -1,
          "gm_kernel_find");
    CHECK(gm_warmup(NULL, 3, 0) == GM_ERR_ARG && strstr(gm_last_error(), "count"), "warm-up NULL with a count: %s",
          gm_last_error());
    CHECK(gm_warmup(bad, 0, 0) == GM_ERR_ARG && strstr(gm_last_error(), "count"), "warm-up count 0");
    CHECK(gm_warmup(bad, 2, 0) == GM_ERR_ARG && strstr(gm_last_error(), "kernels[1]"), "warm-up bad index: %s",
          gm_last_error());
    CHECK(!strcmp(gm_jit_event_name(GM_JIT_CACHE_REJECT), "cache-reject") &&
              !strcmp(gm_jit_event_name((gm_jit_event)99), "?"),
          "event names");
}

int main(int argc, char** argv)
{
    int heard = 0, k;
    size_t size;
    char* ci = getenv("CI");
    if (argc > 1 && !strcmp(argv[1], "--racer"))
        return racer();
    arguments();
    log_text();
    if (gm_kernel_compile(0, ARCH, &size) == GM_ERR_NO_NVRTC) {
        if (ci && !strcmp(ci, "true"))
            CHECK(0, "NVRTC is missing on CI: %s", gm_last_error());
        else
            SKIP("disk cache tests: NVRTC not available here: %s", gm_last_error());
        return t_summary("jit");
    }
    snprintf(dir, sizeof dir, "%s/gm_jit_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp %s", dir);
        return t_summary("jit");
    }
    setenv("GM_CACHE_DIR", dir, 1);
    unsetenv("GM_CACHE");
    unsetenv("GM_CACHE_MAX_MB");
    failed_compile();
    folder_choice();
    /* the references: NVRTC with no cache */
    setenv("GM_CACHE", "0", 1);
    for (k = 0; k < 3; ++k)
        ref_hash[k] = image_hash(k, &ref_size[k]);
    unsetenv("GM_CACHE");
    CHECK(ref_hash[0] && ref_hash[1] && ref_hash[2], "reference images compiled");
    gm_jit_set_log(on_event, &heard);
    race(argv[0]);
    miss_hit();
    corrupted();
    planted_entries();
    refused_folders();
    cache_off();
    unwritable();
    bounded();
    trim_spares();
    CHECK(heard > 0, "the hook got its user pointer");
    gm_jit_set_log(NULL, NULL);
    CHECK(gm_cache_clear() == GM_OK && count_files(dir, ".gmjit", NULL) == 0, "gm_cache_clear: %s", gm_last_error());
    rmdir(dir);
    return t_summary("jit");
}
