/* Tiny test harness shared by the C and C++ tests: counters, CHECK, SKIP, a
 * seeded random generator and the summary line tests/run.sh adds up. */
#ifndef GM_TEST_CHECK_H
#define GM_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int t_passed, t_failed, t_skipped;

/* Counts one assertion; on failure prints where and the formatted detail. */
#define CHECK(cond, ...)                                                \
    do {                                                                \
        if (cond) {                                                     \
            ++t_passed;                                                 \
        } else {                                                        \
            ++t_failed;                                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                 \
            printf(__VA_ARGS__);                                        \
            printf("\n");                                               \
        }                                                               \
    } while (0)

/* Counts a check that could not run here; never counted as passed. */
#define SKIP(...)                   \
    do {                            \
        ++t_skipped;                \
        printf("SKIP ");            \
        printf(__VA_ARGS__);        \
        printf("\n");               \
    } while (0)

/* Prints "<name>: N passed, N failed, N skipped"; the exit status to return. */
static inline int t_summary(const char* name)
{
    printf("%s: %d passed, %d failed, %d skipped\n", name, t_passed, t_failed, t_skipped);
    return t_failed ? 1 : 0;
}

/* xorshift64*: reproducible random data; tests print their seed. */
static uint64_t t_rng_state = 0x9e3779b97f4a7c15ull;

static inline void t_seed(uint64_t s) { t_rng_state = s ? s : 0x9e3779b97f4a7c15ull; }

static inline uint64_t t_rand(void)
{
    t_rng_state ^= t_rng_state >> 12;
    t_rng_state ^= t_rng_state << 25;
    t_rng_state ^= t_rng_state >> 27;
    return t_rng_state * 0x2545f4914f6cdd1dull;
}

/* Uniform double in [lo, hi). */
static inline double t_uniform(double lo, double hi) { return lo + (hi - lo) * (double)(t_rand() >> 11) * (1.0 / 9007199254740992.0); }

/* The seed: $GM_TEST_SEED if set, else a fixed default (printed either way). */
static inline uint64_t t_seed_from_env(const char* name)
{
    const char* e = getenv("GM_TEST_SEED");
    uint64_t s = e ? (uint64_t)strtoull(e, NULL, 0) : 12345u;
    t_seed(s);
    printf("%s: seed %llu (GM_TEST_SEED)\n", name, (unsigned long long)s);
    return s;
}

#endif
