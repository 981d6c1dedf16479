/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path's loops. They run the kernels' own stage
 * functions (templates/codec.inc and pixel.inc: decode, compute, encode),
 * so both paths agree bit for bit. A transform runs along rows (cpu_run.h):
 * a channel's run of pixels is converted by gm__cpu_convert, and the
 * channels of interleaved pixels are taken apart (gm__cpu_unzip) or put
 * together (gm__cpu_zip) around it. The generated wrappers (gen/kernels.h)
 * fix dtypes, element sizes and channel counts so that every branch on
 * them folds and the loops vectorise. Resize and the pre-process run their
 * kernels' per-pixel code row by row. */

#if defined(__GNUC__)
#define GM__ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define GM__ALWAYS_INLINE inline
#endif

#ifdef __cplusplus
#define GM__RESTRICT __restrict
#else
#define GM__RESTRICT restrict
#endif

/* x86-64 builds compile every loop a second time for AVX2 with FMA, taken
 * where the CPU has them (cpu_run.h): convertTo's multiply-add is one
 * rounding, which the baseline x86-64 can only get from a libm call per
 * element, and OpenCV dispatches to AVX2 alike. */
#if defined(__x86_64__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6))
#define GM__CPU_AVX2 __attribute__((target("avx2,fma")))
#define GM__CPU_ISAS 2
#define GM__CPU_AVX2_ENTRY(f) , f##_avx2
#else
#define GM__CPU_ISAS 1
#define GM__CPU_AVX2_ENTRY(f)
#endif

/* What a destination channel of a transform is on the CPU: plain, scaled
 * (pixel.inc's kinds) or a constant; number: the source is an integer and
 * the parameters finite, so no result is NaN. The parameters as the
 * kernels use them: double, and rounded to float once (GM__CPU_CONST:
 * beyond pixel.inc's kinds). */
#define GM__CPU_CONST 3

typedef struct gm__cpu_chan {
    int kind, number;
    float fpre, fscale, foffset;
    double pre, scale, offset;
} gm__cpu_chan;

/* Elements a block of the loops below takes: compilers vectorise a loop of
 * known length at -O2 (GCC's cheapest cost model takes no loop that needs
 * a remainder), the rest of a run goes one by one. Where the AVX2 loops
 * exist, the baseline's are not blocked: they run only on CPUs older than
 * AVX2, and leaving them to the compiler halves the build time of the file
 * with the implementation. */
#define GM__CPU_BLOCK 32
#ifdef GM__CPU_AVX2
#define GM__CPU_BASE_BLOCK 1
#else
#define GM__CPU_BASE_BLOCK GM__CPU_BLOCK
#endif

/* stmt for each j in [0, n), in blocks of B. */
#define GM__CPU_EACH(n, j, B, stmt)                     \
    do {                                                \
        long long j##_0 = 0, j;                         \
        int j##_k;                                      \
        for (; j##_0 + (B) <= (n); j##_0 += (B))        \
            for (j##_k = 0; j##_k < (B); ++j##_k) {     \
                j = j##_0 + j##_k;                      \
                stmt;                                   \
            }                                           \
        for (j = j##_0; j < (n); ++j)                   \
            stmt;                                       \
    } while (0)

/* n elements of one channel, S (ES bytes each) at s to D (ED bytes) at d,
 * both contiguous, as pixel.inc's gm__channel computes each: a constant,
 * a plain conversion, or (x + pre) * scale + offset in float or double; a
 * pre of 0 takes the loop that adds nothing, as gm__affine_f does. */
static GM__ALWAYS_INLINE void gm__cpu_convert(int B, int S, int D, int ES, int ED, const unsigned char* GM__RESTRICT s,
                                              unsigned char* GM__RESTRICT d, long long n, const gm__cpu_chan* ch)
{
    const float fpre = ch->fpre, fscale = ch->fscale, foffset = ch->foffset;
    const double pre = ch->pre, scale = ch->scale, offset = ch->offset;
    unsigned char one[8];
    long long i;
    if (ch->kind == GM__CPU_CONST) {
        if (gm__wide(S, D))
            gm__encode_d(D, one, offset);
        else
            gm__encode_f(D, one, (float)offset, 0);
        GM__CPU_EACH(n, j, B, memcpy(d + j * ED, one, ED));
    } else if (ch->kind == GM__PLAIN) {
        if (S == D)
            memcpy(d, s, (size_t)(n * ES));
        else
            GM__CPU_EACH(n, j, B, gm__convert_plain(S, D, s + j * ES, d + j * ED));
    } else if (gm__wide(S, D)) {
        if (pre != 0.0)
            GM__CPU_EACH(n, j, B, gm__scale_d(S, D, s + j * ES, d + j * ED, pre, scale, offset));
        else
            GM__CPU_EACH(n, j, B, gm__scale_d(S, D, s + j * ES, d + j * ED, 0.0, scale, offset));
    } else if (gm__is_int(S) && !ch->number) {
        for (i = 0; i < n; ++i) /* parameters beyond float: rare, not worth a vector loop */
            gm__scale_f(S, D, s + i * ES, d + i * ED, fpre, fscale, foffset, 0);
    } else if (fpre != 0.0f) {
        GM__CPU_EACH(n, j, B, gm__scale_f(S, D, s + j * ES, d + j * ED, fpre, fscale, foffset, gm__is_int(S)));
    } else {
        GM__CPU_EACH(n, j, B, gm__scale_f(S, D, s + j * ES, d + j * ED, 0.0f, fscale, foffset, gm__is_int(S)));
    }
}

/* n pixels of C interleaved channels of E bytes at s, channel c to the run
 * at dc. Separate restrict pointers: the compiler may then vectorise the
 * stores of each run. */
static GM__ALWAYS_INLINE void gm__cpu_unzip(int B, int E, int C, const unsigned char* GM__RESTRICT s,
                                            unsigned char* GM__RESTRICT d0, unsigned char* GM__RESTRICT d1,
                                            unsigned char* GM__RESTRICT d2, unsigned char* GM__RESTRICT d3,
                                            long long n)
{
    GM__CPU_EACH(n, j, B, {
        memcpy(d0 + j * E, s + j * C * E, E);
        memcpy(d1 + j * E, s + (j * C + 1) * E, E);
        if (C > 2)
            memcpy(d2 + j * E, s + (j * C + 2) * E, E);
        if (C > 3)
            memcpy(d3 + j * E, s + (j * C + 3) * E, E);
    });
}

/* The reverse: the runs sc to n interleaved pixels at d. */
static GM__ALWAYS_INLINE void gm__cpu_zip(int B, int E, int C, const unsigned char* GM__RESTRICT s0,
                                          const unsigned char* GM__RESTRICT s1, const unsigned char* GM__RESTRICT s2,
                                          const unsigned char* GM__RESTRICT s3, unsigned char* GM__RESTRICT d,
                                          long long n)
{
    GM__CPU_EACH(n, j, B, {
        memcpy(d + j * C * E, s0 + j * E, E);
        memcpy(d + (j * C + 1) * E, s1 + j * E, E);
        if (C > 2)
            memcpy(d + (j * C + 2) * E, s2 + j * E, E);
        if (C > 3)
            memcpy(d + (j * C + 3) * E, s3 + j * E, E);
    });
}

typedef void (*gm__cpu_convert_fn)(const unsigned char* GM__RESTRICT, unsigned char* GM__RESTRICT, long long,
                                   const gm__cpu_chan*);
typedef void (*gm__cpu_unzip_fn)(const unsigned char* GM__RESTRICT, unsigned char* GM__RESTRICT,
                                 unsigned char* GM__RESTRICT, unsigned char* GM__RESTRICT,
                                 unsigned char* GM__RESTRICT, long long);
typedef void (*gm__cpu_zip_fn)(const unsigned char* GM__RESTRICT, const unsigned char* GM__RESTRICT,
                               const unsigned char* GM__RESTRICT, const unsigned char* GM__RESTRICT,
                               unsigned char* GM__RESTRICT, long long);

/* The wrappers gen/kernels.h instantiates: name for the baseline and
 * name_avx2 where GM__CPU_AVX2 is. */
#define GM__CPU_CONVERT_DEF(name, attr, B, S, D, ES, ED)                                                            \
    static attr void name(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d, long long n,        \
                          const gm__cpu_chan* ch)                                                                \
    {                                                                                                            \
        gm__cpu_convert(B, S, D, ES, ED, s, d, n, ch);                                                              \
    }
#define GM__CPU_UNZIP_DEF(name, attr, B, E, C)                                                                     \
    static attr void name(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d0,                   \
                          unsigned char* GM__RESTRICT d1, unsigned char* GM__RESTRICT d2,                        \
                          unsigned char* GM__RESTRICT d3, long long n)                                           \
    {                                                                                                            \
        gm__cpu_unzip(B, E, C, s, d0, d1, d2, d3, n);                                                               \
    }
#define GM__CPU_ZIP_DEF(name, attr, B, E, C)                                                                       \
    static attr void name(const unsigned char* GM__RESTRICT s0, const unsigned char* GM__RESTRICT s1,            \
                          const unsigned char* GM__RESTRICT s2, const unsigned char* GM__RESTRICT s3,            \
                          unsigned char* GM__RESTRICT d, long long n)                                            \
    {                                                                                                            \
        gm__cpu_zip(B, E, C, s0, s1, s2, s3, d, n);                                                                 \
    }
#ifdef GM__CPU_AVX2
#define GM__CPU_CONVERT(name, S, D, ES, ED)                           \
    GM__CPU_CONVERT_DEF(name, , GM__CPU_BASE_BLOCK, S, D, ES, ED)     \
    GM__CPU_CONVERT_DEF(name##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, S, D, ES, ED)
#define GM__CPU_MOVERS(unzip, zip, E, C)                                   \
    GM__CPU_UNZIP_DEF(unzip, , GM__CPU_BASE_BLOCK, E, C)                   \
    GM__CPU_UNZIP_DEF(unzip##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, E, C)     \
    GM__CPU_ZIP_DEF(zip, , GM__CPU_BASE_BLOCK, E, C)                       \
    GM__CPU_ZIP_DEF(zip##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, E, C)
#else
#define GM__CPU_CONVERT(name, S, D, ES, ED) GM__CPU_CONVERT_DEF(name, , GM__CPU_BLOCK, S, D, ES, ED)
#define GM__CPU_MOVERS(unzip, zip, E, C) \
    GM__CPU_UNZIP_DEF(unzip, , GM__CPU_BLOCK, E, C) GM__CPU_ZIP_DEF(zip, , GM__CPU_BLOCK, E, C)
#endif

/* The resize and pre-process kernels' per-pixel code over rows [begin,
 * end) of rows rows a batch item (numbered over the batch). */
#define GM__CPU_EACH_PIXEL(begin, end, rows, width, pixel)   \
    do {                                                      \
        long long r_, b, y, x;                                \
        for (r_ = (begin); r_ < (end); ++r_) {                \
            b = r_ / (rows), y = r_ % (rows);                 \
            for (x = 0; x < (width); ++x)                     \
                pixel;                                        \
        }                                                     \
    } while (0)

/* The resize kernel's loop (templates/resize.inc), S constant per dtype. */
static GM__ALWAYS_INLINE void gm__cpu_resize_loop(int S, int c, int sampler, const gm__resize_args* a,
                                                  long long begin, long long end)
{
    GM__CPU_EACH_PIXEL(begin, end, a->height, a->width, gm__resize_run(S, c, sampler, a, b, x, y, y + 1));
}

/* The pre-process kernel's loop (templates/prep.inc), S and D constant per
 * dtype pair. */
static GM__ALWAYS_INLINE void gm__cpu_prep_loop(int S, int D, int c, const gm__prep_args* a, long long begin,
                                                long long end)
{
    GM__CPU_EACH_PIXEL(begin, end, a->height, a->width, gm__prep_run(S, D, c, a, b, x, y, y + 1));
}
