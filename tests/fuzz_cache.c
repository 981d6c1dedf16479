/* Fuzzing disk-cache entries: the input is the whole content of an entry
 * file (the seeds, tests/corpus/cache/, are sound entries for the key and
 * arch below, entries of another key, arch and format, and damaged ones;
 * the fuzzer truncates, extends and flips them), which the cache's reader
 * (gm__cache_read, impl/cache.h) must reject or load. Properties: no
 * sanitizer report, no leak; an entry is loaded only when its header is
 * this format, key and arch, its length is the file's and its checksum is
 * its image's, and then the image is exactly the bytes after the header.
 * Run alone: clang -fsanitize=fuzzer,address,undefined -Iinclude
 * tests/fuzz_cache.c -o fuzz_cache -ldl -lpthread -lm && ./fuzz_cache corpus/
 * (tests/fuzz.sh does it). Seeds: ./fuzz_cache --seeds DIR writes them. */
#define _POSIX_C_SOURCE 200809L
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY 0x0123456789abcdefull
#define ARCH 90

static int entry_fd = -1;

/* A file the reader reads each input from, made once. */
static int entry_file(void)
{
    char path[] = "/tmp/gm_fuzz_cache_XXXXXX";
    if (entry_fd < 0 && (entry_fd = mkstemp(path)) >= 0)
        unlink(path);
    return entry_fd;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    int fd = entry_file();
    char* image = NULL;
    size_t image_size = 0;
    const char* why;
    gm__cache_header h;
    if (fd < 0 || ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 || !gm__write_all(fd, data, size) ||
        lseek(fd, 0, SEEK_SET) != 0)
        abort();
    why = gm__cache_read(fd, KEY, ARCH, &image, &image_size);
    if (why)
        return 0;
    memcpy(&h, data, sizeof h); /* loaded: the input holds at least a header */
    if (memcmp(h.magic, gm__cache_magic, sizeof h.magic) || h.format != GM__CACHE_FORMAT || h.key != KEY ||
        h.arch != ARCH || h.size != size - sizeof h || image_size != h.size ||
        gm__fnv(GM__FNV_START, data + sizeof h, image_size) != h.checksum ||
        memcmp(image, data + sizeof h, image_size) != 0) {
        fprintf(stderr, "an unsound entry of %zu bytes was loaded\n", size);
        abort();
    }
    GM_FREE(image);
    return 0;
}

/* Writes an entry: header fields as given, then n bytes of image. */
static void write_seed(const char* dir, const char* name, uint32_t format, int32_t arch, uint64_t key, size_t n,
                       size_t cut, int flip)
{
    unsigned char buf[256];
    gm__cache_header h;
    char path[512];
    size_t i;
    FILE* f;
    for (i = 0; i < n; ++i)
        buf[i] = (unsigned char)(i * 37 + 11);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, gm__cache_magic, sizeof h.magic);
    h.format = format;
    h.arch = arch;
    h.key = key;
    h.size = n;
    h.checksum = gm__fnv(GM__FNV_START, buf, n);
    if (flip)
        buf[n / 2] ^= 4;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(&h, sizeof h, 1, f) != 1 || fwrite(buf, 1, n - cut, f) != n - cut || fclose(f) != 0)
        exit(1);
}

/* ./fuzz_cache --seeds DIR: the seed corpus (libFuzzer's own main calls
 * LLVMFuzzerInitialize first, which takes this flag). */
int LLVMFuzzerInitialize(int* argc, char*** argv);

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    const char* dir;
    if (*argc != 3 || strcmp((*argv)[1], "--seeds"))
        return 0;
    dir = (*argv)[2];
    write_seed(dir, "sound", GM__CACHE_FORMAT, ARCH, KEY, 200, 0, 0);
    write_seed(dir, "small", GM__CACHE_FORMAT, ARCH, KEY, 1, 0, 0);
    write_seed(dir, "other-key", GM__CACHE_FORMAT, ARCH, KEY + 1, 64, 0, 0);
    write_seed(dir, "other-arch", GM__CACHE_FORMAT, 86, KEY, 64, 0, 0);
    write_seed(dir, "other-format", GM__CACHE_FORMAT + 1, ARCH, KEY, 64, 0, 0);
    write_seed(dir, "truncated", GM__CACHE_FORMAT, ARCH, KEY, 64, 10, 0);
    write_seed(dir, "flipped", GM__CACHE_FORMAT, ARCH, KEY, 64, 0, 1);
    exit(0);
}
