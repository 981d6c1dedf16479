/* What the libFuzzer harnesses (tests/fuzz_*.c) share: the input read as a
 * stream of little-endian integers, and MUST, which stops the fuzzer with a
 * message when a property does not hold. Define FUZZ_NAME first. */
#ifndef GM_TEST_FUZZ_H
#define GM_TEST_FUZZ_H

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

static uint64_t take(reader* r, int bytes)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes && r->n; ++i, ++r->p, --r->n)
        v |= (uint64_t)*r->p << (8 * i);
    return v;
}

#endif
