/* What the libFuzzer harnesses (tests/fuzz_*.c) share: the input read as a
 * stream of little-endian integers, MUST, which stops the fuzzer with a
 * message when a property does not hold, and where gm_mat's formula puts an
 * element. Define FUZZ_NAME first. */
#ifndef GM_TEST_FUZZ_H
#define GM_TEST_FUZZ_H

#include "gpumat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MUST(cond, ...)                                       \
    do {                                                      \
        if (!(cond)) {                                        \
            fprintf(stderr, "%s: %s: ", FUZZ_NAME, #cond);    \
            fprintf(stderr, __VA_ARGS__);                     \
            fprintf(stderr, "\n");                            \
            abort();                                          \
        }                                                     \
    } while (0)

/* The input, read as little-endian integers; zeros once it runs out. */
typedef struct reader {
    const uint8_t* p;
    size_t n;
} reader;

static inline uint64_t take(reader* r, int bytes)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes && r->n; ++i, ++r->p, --r->n)
        v |= (uint64_t)*r->p << (8 * i);
    return v;
}

/* Byte offset of element (n, y, x, c) by gm_mat's documented formula (wrapping, never UB). */
static inline uint64_t mat_offset(const gm_mat* m, uint64_t n, uint64_t y, uint64_t x, uint64_t c)
{
    uint64_t es = gm_dtype_size(m->dtype);
    uint64_t o = n * (uint64_t)m->batch_pitch + y * (uint64_t)m->pitch;
    if (m->layout == GM_HWC)
        return o + x * (uint64_t)m->channels * es + c * es;
    return o + c * (uint64_t)m->plane_pitch + x * es;
}

#endif
