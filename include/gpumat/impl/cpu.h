/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path's loops. They run the kernels' own stage
 * functions (templates/codec.inc and pixel.inc: decode, compute, encode),
 * so both paths agree bit for bit. A transform runs along rows (cpu_xform.h):
 * a channel's run of pixels is converted by gm__cpu_convert, and the
 * channels of interleaved pixels are taken apart (gm__cpu_unzip) or put
 * together (gm__cpu_zip) around it. The generated wrappers (gen/cpu_tables.h)
 * fix dtypes, element sizes and channel counts so that every branch on
 * them folds and the loops vectorise. Resize and the pre-process sample
 * the linear sampler along rows and down columns (gm__cpu_linear_h, _v),
 * LINEAR_EXACT alike (gm__cpu_exact_h, _v), whole-factor INTER_AREA down
 * columns and along rows (gm__cpu_area_down, _across) or tap by tap
 * (gm__cpu_area_fast_row), the general one row by row (gm__cpu_area_row),
 * nearest by copies (cpu_resize.h). */

#include <pthread.h>
#include <string.h>

#if defined(__GNUC__)
#define GM__ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define GM__ALWAYS_INLINE inline
#endif

/* Staging buffers on the stack start on a cache line. One 16 bytes past a
 * 32-byte boundary makes each 32-byte load of what a loop just stored
 * straddle two stores, which the CPU does not forward: a streamed
 * convertTo through such a buffer ran several times slower
 * (bench/RESULTS.md). */
#if defined(__GNUC__)
#define GM__CPU_LINE_ALIGNED __attribute__((aligned(64)))
#else
#define GM__CPU_LINE_ALIGNED
#endif

#ifdef __cplusplus
#define GM__RESTRICT __restrict
#else
#define GM__RESTRICT restrict
#endif

/* x86-64 builds compile every loop a second time for AVX2 with FMA, taken
 * where the CPU has them (gm__cpu_isa): convertTo's multiply-add is one
 * rounding, which the baseline x86-64 can only get from a libm call per
 * element, and OpenCV dispatches to AVX2 alike. GM_NO_CPU_AVX2 leaves the
 * copies out (the same results, from the baseline loops). */
#if defined(__x86_64__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6)) && !defined(GM_NO_CPU_AVX2)
#define GM__CPU_AVX2 __attribute__((target("avx2,fma")))
#define GM__CPU_ISAS 2
#define GM__CPU_AVX2_ENTRY(f) , f##_avx2
#else
#define GM__CPU_ISAS 1
#define GM__CPU_AVX2_ENTRY(f)
#endif

/* The instruction set the loops run with: 1 (GM__CPU_AVX2) where the CPU
 * has AVX2 and FMA, else 0; gm__tune.cpu_isa >= 0 chooses (the tests run
 * both). */
static int gm__cpu_isa_found;
static pthread_once_t gm__cpu_isa_once = PTHREAD_ONCE_INIT;

static void gm__cpu_isa_find(void)
{
#ifdef GM__CPU_AVX2
    __builtin_cpu_init();
    gm__cpu_isa_found = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
}

static int gm__cpu_isa(void)
{
    pthread_once(&gm__cpu_isa_once, gm__cpu_isa_find);
    return gm__tune.cpu_isa >= 0 && gm__tune.cpu_isa < GM__CPU_ISAS ? gm__tune.cpu_isa : gm__cpu_isa_found;
}

/* Non-temporal stores (past the caches), where the CPU has them: x86-64's
 * SSE2 16-byte store, and AVX's 32-byte one in the AVX2 loops. A large
 * destination is written with them (cpu_xform.h): it would not stay in the
 * caches, and an ordinary store that misses first reads the line it
 * writes. They are weakly ordered: a part ends with gm__cpu_fence. */
#if defined(__x86_64__)
#include <immintrin.h>
#define GM__CPU_NT 1
static GM__ALWAYS_INLINE void gm__cpu_nt16(unsigned char* d, const unsigned char* s)
{
    _mm_stream_si128((__m128i*)(void*)d, _mm_loadu_si128((const __m128i*)(const void*)s));
}
static void gm__cpu_fence(void) { _mm_sfence(); }
#else
#define GM__CPU_NT 0 /* never streams; gm__cpu_nt16 only keeps the loops' one form */
static GM__ALWAYS_INLINE void gm__cpu_nt16(unsigned char* d, const unsigned char* s) { memcpy(d, s, 16); }
static void gm__cpu_fence(void) {}
#endif
#ifdef GM__CPU_AVX2
static GM__CPU_AVX2 GM__ALWAYS_INLINE void gm__cpu_nt32(unsigned char* d, const unsigned char* s)
{
    _mm256_stream_si256((__m256i*)(void*)d, _mm256_loadu_si256((const __m256i*)(const void*)s));
}
#endif

/* n bytes from s to d: the whole 64-byte lines of d by nt (a store of A
 * bytes to an A-aligned address), the part lines at either end by ordinary
 * stores. A line written partly one way and partly the other costs several
 * times either (bench/RESULTS.md). */
#define GM__CPU_LINE 64
#define GM__CPU_STREAM(d, s, n, A, nt)                                              \
    do {                                                                            \
        unsigned char* to_ = (d);                                                   \
        const unsigned char* from_ = (s);                                           \
        long long n_ = (n), at_ = (long long)(-(uintptr_t)to_ & (GM__CPU_LINE - 1)), k_; \
        at_ = at_ < n_ ? at_ : n_;                                                  \
        memcpy(to_, from_, (size_t)at_);                                            \
        for (; at_ + GM__CPU_LINE <= n_; at_ += GM__CPU_LINE)                       \
            for (k_ = 0; k_ < GM__CPU_LINE; k_ += (A))                              \
                nt(to_ + at_ + k_, from_ + at_ + k_);                               \
        memcpy(to_ + at_, from_ + at_, (size_t)(n_ - at_));                         \
    } while (0)

/* Pixels of `bytes` bytes before the first that starts a line at d (0
 * where none of the next 64 does): streamed blocks start there, so that
 * their stores fill whole lines. */
static GM__ALWAYS_INLINE long long gm__cpu_to_line(const unsigned char* d, long long bytes)
{
    long long k;
    for (k = 0; k < GM__CPU_LINE; ++k)
        if (((uintptr_t)d + (uintptr_t)(k * bytes)) % GM__CPU_LINE == 0)
            return k;
    return 0;
}

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
        gm__constant(S, D, one, offset);
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

/* gm__cpu_unzip written past the caches: each block of B pixels goes
 * through the first-level cache (t_) and on by nt, A bytes a store; the
 * blocks start where d0's lines do, the pixels before go the ordinary way. */
#define GM__CPU_UNZIP_STREAM(B, E, C, s, d0, d1, d2, d3, n, A, nt)                               \
    do {                                                                                          \
        unsigned char t_[4][(B) * 8] GM__CPU_LINE_ALIGNED, *d_[4];                                \
        long long i_ = gm__cpu_to_line(d0, E);                                                    \
        int c_;                                                                                   \
        d_[0] = (d0), d_[1] = (d1), d_[2] = (d2), d_[3] = (d3);                                   \
        i_ = i_ < (n) ? i_ : (n);                                                                 \
        gm__cpu_unzip(1, E, C, s, d0, d1, d2, d3, i_);                                            \
        for (; i_ + (B) <= (n); i_ += (B)) {                                                      \
            gm__cpu_unzip(B, E, C, (s) + i_ * (C) * (E), t_[0], t_[1], t_[2], t_[3], B);         \
            for (c_ = 0; c_ < (C); ++c_)                                                          \
                GM__CPU_STREAM(d_[c_] + i_ * (E), t_[c_], (B) * (E), A, nt);                      \
        }                                                                                         \
        gm__cpu_unzip(1, E, C, (s) + i_ * (C) * (E), (d0) + i_ * (E), (d1) + i_ * (E),            \
                      (d2) + i_ * (E), (d3) + i_ * (E), (n) - i_);                                \
    } while (0)

/* And gm__cpu_zip. */
#define GM__CPU_ZIP_STREAM(B, E, C, s0, s1, s2, s3, d, n, A, nt)                                  \
    do {                                                                                          \
        unsigned char t_[(B) * 4 * 8] GM__CPU_LINE_ALIGNED;                                       \
        long long i_ = gm__cpu_to_line(d, (C) * (E));                                             \
        i_ = i_ < (n) ? i_ : (n);                                                                 \
        gm__cpu_zip(1, E, C, s0, s1, s2, s3, d, i_);                                              \
        for (; i_ + (B) <= (n); i_ += (B)) {                                                      \
            gm__cpu_zip(B, E, C, (s0) + i_ * (E), (s1) + i_ * (E), (s2) + i_ * (E), (s3) + i_ * (E), t_, B); \
            GM__CPU_STREAM((d) + i_ * (C) * (E), t_, (B) * (C) * (E), A, nt);                    \
        }                                                                                         \
        gm__cpu_zip(1, E, C, (s0) + i_ * (E), (s1) + i_ * (E), (s2) + i_ * (E), (s3) + i_ * (E),  \
                    (d) + i_ * (C) * (E), (n) - i_);                                              \
    } while (0)

typedef void (*gm__cpu_convert_fn)(const unsigned char* GM__RESTRICT, unsigned char* GM__RESTRICT, long long,
                                   const gm__cpu_chan*);
typedef void (*gm__cpu_unzip_fn)(const unsigned char* GM__RESTRICT, unsigned char* GM__RESTRICT,
                                 unsigned char* GM__RESTRICT, unsigned char* GM__RESTRICT,
                                 unsigned char* GM__RESTRICT, long long, int);
typedef void (*gm__cpu_zip_fn)(const unsigned char* GM__RESTRICT, const unsigned char* GM__RESTRICT,
                               const unsigned char* GM__RESTRICT, const unsigned char* GM__RESTRICT,
                               unsigned char* GM__RESTRICT, long long, int);
typedef void (*gm__cpu_stream_fn)(unsigned char* d, const unsigned char* s, long long n);

/* The wrappers gen/cpu_tables.h instantiates: name for the baseline and
 * name_avx2 where GM__CPU_AVX2 is. A mover's stream: past the caches
 * (GM__CPU_NT only), by nt, A bytes a store. */
#define GM__CPU_CONVERT_DEF(name, attr, B, S, D, ES, ED)                                                            \
    static attr void name(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d, long long n,        \
                          const gm__cpu_chan* ch)                                                                \
    {                                                                                                            \
        gm__cpu_convert(B, S, D, ES, ED, s, d, n, ch);                                                              \
    }
#define GM__CPU_UNZIP_DEF(name, attr, B, E, C, A, nt, in_registers)                                                \
    static attr void name(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d0,                   \
                          unsigned char* GM__RESTRICT d1, unsigned char* GM__RESTRICT d2,                        \
                          unsigned char* GM__RESTRICT d3, long long n, int stream)                               \
    {                                                                                                            \
        if (in_registers(E, C, s, d0, d1, d2, n, stream))                                                        \
            return;                                                                                              \
        if (GM__CPU_NT && stream)                                                                                \
            GM__CPU_UNZIP_STREAM(GM__CPU_BLOCK, E, C, s, d0, d1, d2, d3, n, A, nt);                              \
        else                                                                                                     \
            gm__cpu_unzip(B, E, C, s, d0, d1, d2, d3, n);                                                        \
    }
#define GM__CPU_ZIP_DEF(name, attr, B, E, C, A, nt)                                                                \
    static attr void name(const unsigned char* GM__RESTRICT s0, const unsigned char* GM__RESTRICT s1,            \
                          const unsigned char* GM__RESTRICT s2, const unsigned char* GM__RESTRICT s3,            \
                          unsigned char* GM__RESTRICT d, long long n, int stream)                                \
    {                                                                                                            \
        if (GM__CPU_NT && stream)                                                                                \
            GM__CPU_ZIP_STREAM(GM__CPU_BLOCK, E, C, s0, s1, s2, s3, d, n, A, nt);                                \
        else                                                                                                     \
            gm__cpu_zip(B, E, C, s0, s1, s2, s3, d, n);                                                          \
    }
#define GM__CPU_STREAM_FN_DEF(name, attr, A, nt) \
    static attr void name(unsigned char* d, const unsigned char* s, long long n) { GM__CPU_STREAM(d, s, n, A, nt); }
#ifdef GM__CPU_AVX2
/* bytes bytes of pixels of P bytes (16 at most) from s to d, each pixel's
 * bytes reordered: byte b of a pixel of d is byte mask[b] of the same pixel
 * of s. A shuffle of 16 bytes moves the step bytes (16 / P whole pixels)
 * that mask gives for the first pixels of 16, 0x80 past them; the 16 - step
 * bytes it stores past them are stored again by the next. Two such in
 * the two halves of an AVX2 register a loop; the last bytes one by one. */
static GM__CPU_AVX2 void gm__cpu_shuffle_avx2(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d,
                                              long long bytes, const unsigned char* mask, int step, int P)
{
    const __m256i m = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)(const void*)mask));
    long long at = 0;
    for (; at + step + 16 <= bytes; at += 2 * step) {
        const __m128i lo = _mm_loadu_si128((const __m128i*)(const void*)(s + at));
        const __m128i hi = _mm_loadu_si128((const __m128i*)(const void*)(s + at + step));
        const __m256i v = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), m);
        _mm_storeu_si128((__m128i*)(void*)(d + at), _mm256_castsi256_si128(v));
        _mm_storeu_si128((__m128i*)(void*)(d + at + step), _mm256_extracti128_si256(v, 1));
    }
    for (; at < bytes; ++at)
        d[at] = s[at - at % P + mask[at % P]];
}
#endif

/* The unzips that no loop of registers takes. */
#define GM__CPU_UNZIP_IN_MEMORY(E, C, s, d0, d1, d2, n, stream) 0

#ifdef GM__CPU_AVX2
/* Whether n pixels of C interleaved channels of E bytes at s went to the
 * runs d0, d1, d2 in registers: so for 3 channels of 4 bytes (split of
 * f32 BGR), eight pixels a step. Run c's eight lanes lie in the three
 * loaded vectors at lanes (3 i + c) % 8, distinct since 3 is prime to 8:
 * two blends gather them into one vector, one permute puts them in order.
 * The staged unzip (GM__CPU_UNZIP_STREAM) fell behind OpenCV's split,
 * which keeps up with the memory (bench/RESULTS.md).
 * The pixels before d0's first whole line go one by one, as do the last;
 * where stream is set and the three runs are 32-byte aligned there, the
 * stores are non-temporal (whole lines, as GM__CPU_STREAM's), else
 * ordinary. */
static GM__CPU_AVX2 GM__ALWAYS_INLINE int gm__cpu_unzip_in_registers(int E, int C, const unsigned char* GM__RESTRICT s,
                                                                     unsigned char* GM__RESTRICT d0,
                                                                     unsigned char* GM__RESTRICT d1,
                                                                     unsigned char* GM__RESTRICT d2, long long n,
                                                                     int stream)
{
    const __m256i order0 = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
    const __m256i order1 = _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6);
    const __m256i order2 = _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7);
    long long i;
    int nt;
    if (E != 4 || C != 3)
        return 0;
    i = stream ? gm__cpu_to_line(d0, 4) : 0;
    i = i < n ? i : n;
    gm__cpu_unzip(1, 4, 3, s, d0, d1, d2, NULL, i);
    nt = stream && ((uintptr_t)(d0 + i * 4) | (uintptr_t)(d1 + i * 4) | (uintptr_t)(d2 + i * 4)) % 32 == 0;
    for (; i + 8 <= n; i += 8) {
        const float* p = (const float*)(const void*)(s + i * 12);
        const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8), v2 = _mm256_loadu_ps(p + 16);
        const __m256 r0 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(v0, v1, 0x92), v2, 0x24), order0);
        const __m256 r1 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(v0, v1, 0x24), v2, 0x49), order1);
        const __m256 r2 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(v0, v1, 0x49), v2, 0x92), order2);
        float *q0 = (float*)(void*)(d0 + i * 4), *q1 = (float*)(void*)(d1 + i * 4), *q2 = (float*)(void*)(d2 + i * 4);
        if (nt) {
            _mm256_stream_ps(q0, r0), _mm256_stream_ps(q1, r1), _mm256_stream_ps(q2, r2);
        } else {
            _mm256_storeu_ps(q0, r0), _mm256_storeu_ps(q1, r1), _mm256_storeu_ps(q2, r2);
        }
    }
    gm__cpu_unzip(1, 4, 3, s + i * 12, d0 + i * 4, d1 + i * 4, d2 + i * 4, NULL, n - i);
    return 1;
}

#define GM__CPU_CONVERT(name, S, D, ES, ED)                           \
    GM__CPU_CONVERT_DEF(name, , GM__CPU_BASE_BLOCK, S, D, ES, ED)     \
    GM__CPU_CONVERT_DEF(name##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, S, D, ES, ED)
#define GM__CPU_MOVERS(unzip, zip, E, C)                                                                           \
    GM__CPU_UNZIP_DEF(unzip, , GM__CPU_BASE_BLOCK, E, C, 16, gm__cpu_nt16, GM__CPU_UNZIP_IN_MEMORY)                \
    GM__CPU_UNZIP_DEF(unzip##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, E, C, 32, gm__cpu_nt32, gm__cpu_unzip_in_registers) \
    GM__CPU_ZIP_DEF(zip, , GM__CPU_BASE_BLOCK, E, C, 16, gm__cpu_nt16)                   \
    GM__CPU_ZIP_DEF(zip##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, E, C, 32, gm__cpu_nt32)
GM__CPU_STREAM_FN_DEF(gm__cpu_stream, , 16, gm__cpu_nt16)
GM__CPU_STREAM_FN_DEF(gm__cpu_stream_avx2, GM__CPU_AVX2, 32, gm__cpu_nt32)
static const gm__cpu_stream_fn gm__cpu_streams[GM__CPU_ISAS] = {gm__cpu_stream, gm__cpu_stream_avx2};
#else
#define GM__CPU_CONVERT(name, S, D, ES, ED) GM__CPU_CONVERT_DEF(name, , GM__CPU_BLOCK, S, D, ES, ED)
#define GM__CPU_MOVERS(unzip, zip, E, C)                                                        \
    GM__CPU_UNZIP_DEF(unzip, , GM__CPU_BLOCK, E, C, 16, gm__cpu_nt16, GM__CPU_UNZIP_IN_MEMORY) \
    GM__CPU_ZIP_DEF(zip, , GM__CPU_BLOCK, E, C, 16, gm__cpu_nt16)
GM__CPU_STREAM_FN_DEF(gm__cpu_stream, , 16, gm__cpu_nt16)
static const gm__cpu_stream_fn gm__cpu_streams[GM__CPU_ISAS] = {gm__cpu_stream};
#endif

/* The linear sampler along a source row (resize.inc's gm__linear_row): its
 * n destination elements (a column's channels, one after another), element
 * k from the taps at row + o0[k] and row + o1[k] by w[k], or from row +
 * o0[k] alone from edge on (the right edge's one tap); h holds the dtype's
 * work values (int, float or double). */
typedef struct gm__cpu_lin_w {
    int q0, q1;
    float w0, w1; /* 1 - f and f */
} gm__cpu_lin_w;

static GM__ALWAYS_INLINE void gm__cpu_linear_h(int S, const unsigned char* row, const long long* o0, const long long* o1,
                                               const gm__cpu_lin_w* w, long long edge, long long n, void* h)
{
    long long k;
    if (gm__resize_work(S) == GM__WORK_FIXED) {
        int* H = (int*)h;
        for (k = 0; k < edge; ++k)
            H[k] = gm__fixed_row(gm__decode_i(S, row + o0[k]), gm__decode_i(S, row + o1[k]), w[k].q0, w[k].q1);
        for (; k < n; ++k)
            H[k] = gm__decode_i(S, row + o0[k]) * 2048;
    } else if (gm__resize_work(S) == GM__WORK_DOUBLE) {
        double* H = (double*)h;
        for (k = 0; k < edge; ++k)
            H[k] = GM__MUL_D(gm__decode_d(S, row + o0[k]), (double)w[k].w0) +
                   GM__MUL_D(gm__decode_d(S, row + o1[k]), (double)w[k].w1);
        for (; k < n; ++k)
            H[k] = gm__decode_d(S, row + o0[k]);
    } else {
        float* H = (float*)h;
        for (k = 0; k < edge; ++k)
            H[k] = GM__MUL_F(gm__decode_f(S, row + o0[k], 1), w[k].w0) +
                   GM__MUL_F(gm__decode_f(S, row + o1[k], 1), w[k].w1);
        for (; k < n; ++k)
            H[k] = gm__decode_f(S, row + o0[k], 1);
    }
}

#ifdef GM__CPU_AVX2
/* The fixed-point pass above for u8 pixels of C (3 or 4) interleaved
 * channels, the first n pixels of a row: pixel x's channels from the 4
 * bytes at row + px[2x] and at row + px[2x + 1], times the two 16-bit
 * halves of q[x], in one multiply-add of pairs (OpenCV's vectorised pass
 * is alike). A pixel stores 4 ints, the fourth overwritten by the next
 * pixel's first where C is 3, so h holds an int past the n pixels'. */
static GM__CPU_AVX2 void gm__cpu_linear_px_avx2(const unsigned char* row, const int* px, const unsigned* q,
                                                long long n, int C, int* h)
{
    long long x;
    for (x = 0; x < n; ++x) {
        unsigned t0, t1;
        __m128i v;
        memcpy(&t0, row + px[2 * x], 4);
        memcpy(&t1, row + px[2 * x + 1], 4);
        v = _mm_cvtepu8_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)t0), _mm_cvtsi32_si128((int)t1)));
        _mm_storeu_si128((__m128i*)(void*)(h + C * x), _mm_madd_epi16(v, _mm_set1_epi32((int)q[x])));
    }
}
#endif

/* Two such rows combined by the row taps ty (resize.inc's
 * gm__resize_linear) into n elements of E bytes at out. */
static GM__ALWAYS_INLINE void gm__cpu_linear_v(int B, int S, int E, const void* GM__RESTRICT h0,
                                               const void* GM__RESTRICT h1, const gm__taps* ty,
                                               unsigned char* GM__RESTRICT out, long long n)
{
    const int q0 = ty->q0, q1 = ty->q1;
    const float w0 = 1.0f - ty->f, w1 = ty->f;
    if (gm__resize_work(S) == GM__WORK_FIXED) {
        const int *H0 = (const int*)h0, *H1 = (const int*)h1;
        GM__CPU_EACH(n, k, B, gm__encode_i(S, out + k * E, gm__fixed_column(H0[k], H1[k], q0, q1)));
    } else if (gm__resize_work(S) == GM__WORK_DOUBLE) {
        const double *H0 = (const double*)h0, *H1 = (const double*)h1;
        GM__CPU_EACH(n, k, B, gm__encode_d(S, out + k * E, GM__MUL_D(H0[k], (double)w0) + GM__MUL_D(H1[k], (double)w1)));
    } else {
        const float *H0 = (const float*)h0, *H1 = (const float*)h1;
        GM__CPU_EACH(n, k, B, gm__encode_f(S, out + k * E, GM__MUL_F(H0[k], w0) + GM__MUL_F(H1[k], w1), 0));
    }
}

typedef void (*gm__cpu_linear_h_fn)(const unsigned char*, const long long*, const long long*, const gm__cpu_lin_w*,
                                    long long, long long, void*);
typedef void (*gm__cpu_linear_v_fn)(const void* GM__RESTRICT, const void* GM__RESTRICT, const gm__taps*,
                                    unsigned char* GM__RESTRICT, long long);

#define GM__CPU_LINEAR_DEF(h, v, attr, B, S, E)                                                                  \
    static attr void h(const unsigned char* row, const long long* o0, const long long* o1, const gm__cpu_lin_w* w, \
                       long long edge, long long n, void* out)                                                   \
    {                                                                                                            \
        gm__cpu_linear_h(S, row, o0, o1, w, edge, n, out);                                                       \
    }                                                                                                            \
    static attr void v(const void* GM__RESTRICT h0, const void* GM__RESTRICT h1, const gm__taps* ty,             \
                       unsigned char* GM__RESTRICT out, long long n)                                             \
    {                                                                                                            \
        gm__cpu_linear_v(B, S, E, h0, h1, ty, out, n);                                                           \
    }
/* The resize loops' pairs of wrappers (f, g) by DEF: the baseline's, and
 * f_avx2 and g_avx2 where GM__CPU_AVX2 is. */
#ifdef GM__CPU_AVX2
#define GM__CPU_TWICE(DEF, f, g, ...)                   \
    DEF(f, g, , GM__CPU_BASE_BLOCK, __VA_ARGS__)        \
    DEF(f##_avx2, g##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, __VA_ARGS__)
#else
#define GM__CPU_TWICE(DEF, f, g, ...) DEF(f, g, , GM__CPU_BLOCK, __VA_ARGS__)
#endif
#define GM__CPU_LINEAR(h, v, S, E) GM__CPU_TWICE(GM__CPU_LINEAR_DEF, h, v, S, E)

/* INTER_LINEAR_EXACT of the integers along rows and down columns
 * (resize.inc's gm__exact_row and gm__resize_exact), taking the linear
 * sampler's taps: element k from row + o0[k] and row + o1[k] by the weight
 * q[k] in `bits` fractional bits (an edge column: o1 = o0, weight 0); two
 * such rows by the row weight wy, or the first alone where the row is an
 * edge (flat). u8 fits int, the others need long long, s32 its products
 * rounded back to 32 bits (gm__exact_mul32). */
static GM__ALWAYS_INLINE void gm__cpu_exact_h(int S, const unsigned char* row, const long long* o0, const long long* o1,
                                              const long long* q, long long n, void* h)
{
    const long long one = 1LL << gm__exact_bits(S);
    long long k;
    for (k = 0; k < n; ++k) {
        long long v = (one - q[k]) * gm__decode_i(S, row + o0[k]) + q[k] * gm__decode_i(S, row + o1[k]);
        if (S == GM_U8)
            ((int*)h)[k] = (int)v;
        else
            ((long long*)h)[k] = v;
    }
}

static GM__ALWAYS_INLINE void gm__cpu_exact_v(int B, int S, int E, const void* GM__RESTRICT h0,
                                              const void* GM__RESTRICT h1, long long wy, int flat,
                                              unsigned char* GM__RESTRICT out, long long n)
{
    const int bits = gm__exact_bits(S);
    const long long one = 1LL << bits, half = one >> 1;
    if (S == GM_U8) {
        const int *H0 = (const int*)h0, *H1 = (const int*)h1, q0 = (int)(one - wy), q1 = (int)wy;
        const int half8 = (int)half, halves = (int)(one * one >> 1);
        if (flat)
            GM__CPU_EACH(n, k, B, gm__encode_i(S, out + k * E, (H0[k] + half8) >> 8));
        else
            GM__CPU_EACH(n, k, B, gm__encode_i(S, out + k * E, (q0 * H0[k] + q1 * H1[k] + halves) >> 16));
    } else {
        const long long *H0 = (const long long*)h0, *H1 = (const long long*)h1;
        if (flat)
            GM__CPU_EACH(n, k, B, gm__encode_i(S, out + k * E, (int)((H0[k] + half) >> bits)));
        else if (bits == 32)
            GM__CPU_EACH(n, k, B,
                         gm__encode_i(S, out + k * E,
                                      (int)((gm__exact_mul32(H0[k], one - wy) + gm__exact_mul32(H1[k], wy) + half) >>
                                            32)));
        else
            GM__CPU_EACH(n, k, B,
                         gm__encode_i(S, out + k * E,
                                      (int)(((one - wy) * H0[k] + wy * H1[k] + (one * one >> 1)) >> 2 * bits)));
    }
}

typedef void (*gm__cpu_exact_h_fn)(const unsigned char*, const long long*, const long long*, const long long*,
                                   long long, void*);
typedef void (*gm__cpu_exact_v_fn)(const void* GM__RESTRICT, const void* GM__RESTRICT, long long, int,
                                   unsigned char* GM__RESTRICT, long long);

#define GM__CPU_EXACT_DEF(h, v, attr, B, S, E)                                                                   \
    static attr void h(const unsigned char* row, const long long* o0, const long long* o1, const long long* q,   \
                       long long n, void* out)                                                                   \
    {                                                                                                            \
        gm__cpu_exact_h(S, row, o0, o1, q, n, out);                                                              \
    }                                                                                                            \
    static attr void v(const void* GM__RESTRICT h0, const void* GM__RESTRICT h1, long long wy, int flat,         \
                       unsigned char* GM__RESTRICT out, long long n)                                             \
    {                                                                                                            \
        gm__cpu_exact_v(B, S, E, h0, h1, wy, flat, out, n);                                                      \
    }
#define GM__CPU_EXACT(h, v, S, E) GM__CPU_TWICE(GM__CPU_EXACT_DEF, h, v, S, E)

/* INTER_AREA by whole factors along rows (resize.inc's
 * gm__resize_area_fast), where a cell's sum is an exact integer and so the
 * order of its adds is free: u8 cells, and the 2x2 integer mean of s8, u16
 * and s16. The source rows of a destination row's cells are added down the
 * columns into one int plane a channel (gm__cpu_area_down: m pixels of C
 * interleaved channels, the planes set by the first row), then each
 * plane's ix neighbours along it (gm__cpu_area_across). */
#define GM__CPU_AREA_DOWN(op)                                          \
    GM__CPU_EACH(m, j, B, {                                            \
        p0[j] op gm__decode_i(S, row + j * C * E);                     \
        if (C > 1)                                                     \
            p1[j] op gm__decode_i(S, row + (j * C + 1) * E);           \
        if (C > 2)                                                     \
            p2[j] op gm__decode_i(S, row + (j * C + 2) * E);           \
        if (C > 3)                                                     \
            p3[j] op gm__decode_i(S, row + (j * C + 3) * E);           \
    })
static GM__ALWAYS_INLINE void gm__cpu_area_down(int B, int S, int E, int C, const unsigned char* GM__RESTRICT row,
                                                int* GM__RESTRICT p0, int* GM__RESTRICT p1, int* GM__RESTRICT p2,
                                                int* GM__RESTRICT p3, long long m, int first)
{
    if (first)
        GM__CPU_AREA_DOWN(=);
    else
        GM__CPU_AREA_DOWN(+=);
}

/* A cell's mean from its sum s of n taps but OpenCV's integer mean of 2x2:
 * a whole cell's sum times the float 1/area (inv), a cut cell's divided by
 * its taps. */
#define GM__CPU_AREA_MEAN(S, o, s, inv, n, whole) \
    gm__encode_f(S, o, (whole) ? GM__MUL_F((float)(s), inv) : (float)(s) / (float)(n), 0)

/* The destination row from the planes: `cells` cells of ix columns and ny
 * rows (whole: ny is the factor iy), then a cut one of `last` columns where
 * last > 0; channel c of cell x to out + (x C + c) E. quad: the cells are
 * OpenCV's integer 2x2 means where whole. A whole row of 2-wide cells in one
 * vectorised loop, the rest one by one. */
static GM__ALWAYS_INLINE void gm__cpu_area_across(int B, int S, int E, int C, const int* GM__RESTRICT p0,
                                                  const int* GM__RESTRICT p1, const int* GM__RESTRICT p2,
                                                  const int* GM__RESTRICT p3, long long ix, long long cells,
                                                  long long last, long long ny, int whole, int quad, float inv,
                                                  unsigned char* GM__RESTRICT out)
{
    const int* const p[4] = {p0, p1, p2, p3};
    long long x, k, s;
    int c;
    if (whole && quad) /* 2x2 */
        GM__CPU_EACH(cells, x, B, {
            gm__encode_i(S, out + x * C * E, gm__quad_mean(p0[2 * x], p0[2 * x + 1]));
            if (C > 1)
                gm__encode_i(S, out + (x * C + 1) * E, gm__quad_mean(p1[2 * x], p1[2 * x + 1]));
            if (C > 2)
                gm__encode_i(S, out + (x * C + 2) * E, gm__quad_mean(p2[2 * x], p2[2 * x + 1]));
            if (C > 3)
                gm__encode_i(S, out + (x * C + 3) * E, gm__quad_mean(p3[2 * x], p3[2 * x + 1]));
        });
    else if (whole && ix == 2)
        GM__CPU_EACH(cells, x, B, {
            gm__encode_f(S, out + x * C * E, GM__MUL_F((float)(p0[2 * x] + p0[2 * x + 1]), inv), 0);
            if (C > 1)
                gm__encode_f(S, out + (x * C + 1) * E, GM__MUL_F((float)(p1[2 * x] + p1[2 * x + 1]), inv), 0);
            if (C > 2)
                gm__encode_f(S, out + (x * C + 2) * E, GM__MUL_F((float)(p2[2 * x] + p2[2 * x + 1]), inv), 0);
            if (C > 3)
                gm__encode_f(S, out + (x * C + 3) * E, GM__MUL_F((float)(p3[2 * x] + p3[2 * x + 1]), inv), 0);
        });
    else
        for (x = 0; x < cells; ++x)
            for (c = 0; c < C; ++c) {
                for (k = s = 0; k < ix; ++k)
                    s += p[c][x * ix + k];
                GM__CPU_AREA_MEAN(S, out + (x * C + c) * E, s, inv, ix * ny, whole);
            }
    for (c = 0; last > 0 && c < C; ++c) {
        for (k = s = 0; k < last; ++k)
            s += p[c][cells * ix + k];
        GM__CPU_AREA_MEAN(S, out + (cells * C + c) * E, s, inv, last * ny, 0);
    }
}

#ifdef GM__CPU_AVX2
/* OpenCV's integer mean of 2x2 u8 cells (resize.inc's gm__quad_mean), a
 * destination row of `cells` whole cells of C (1, 3 or 4) interleaved
 * channels from the source rows s0 and s1, as OpenCV's vector loop sums
 * them: a shuffle puts the two pixels' samples of a channel side by side,
 * a multiply-add of bytes by ones sums each pair, and the two rows' sums
 * make the mean. A half of an AVX2 register takes the cells of 16 bytes
 * (8 of 1 channel, 2 of 3 or 4) and stores their 8 bytes, those past the
 * cells stored again by the next; the last cells one by one. The planes
 * above took twice OpenCV's time here (bench/RESULTS.md). */
static GM__CPU_AVX2 void gm__cpu_quad_avx2(int C, const unsigned char* GM__RESTRICT s0,
                                           const unsigned char* GM__RESTRICT s1, long long cells,
                                           unsigned char* GM__RESTRICT out)
{
    static const signed char pairs[4][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                             {0},
                                             {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11, -1, -1, -1, -1},
                                             {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}};
    const __m256i m = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)(const void*)pairs[C - 1]));
    const __m256i ones = _mm256_set1_epi8(1), two = _mm256_set1_epi16(2);
    const long long half = C == 3 ? 2 : 8 / C, n = cells * C; /* cells a half takes; bytes out */
    long long x = 0, c;
    for (; 2 * (x + half) * C + 16 <= 2 * n && (x + half) * C + 8 <= n; x += 2 * half) {
        const unsigned char *a = s0 + 2 * x * C, *b = s1 + 2 * x * C;
        const __m256i ra = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)(const void*)a)),
                                                   _mm_loadu_si128((const __m128i*)(const void*)(a + 2 * half * C)), 1);
        const __m256i rb = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)(const void*)b)),
                                                   _mm_loadu_si128((const __m128i*)(const void*)(b + 2 * half * C)), 1);
        const __m256i sum = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_shuffle_epi8(ra, m), ones),
                                             _mm256_maddubs_epi16(_mm256_shuffle_epi8(rb, m), ones));
        const __m256i q = _mm256_srli_epi16(_mm256_add_epi16(sum, two), 2), mean = _mm256_packus_epi16(q, q);
        _mm_storel_epi64((__m128i*)(void*)(out + x * C), _mm256_castsi256_si128(mean));
        _mm_storel_epi64((__m128i*)(void*)(out + (x + half) * C), _mm256_extracti128_si256(mean, 1));
    }
    for (; x < cells; ++x)
        for (c = 0; c < C; ++c)
            out[x * C + c] = (unsigned char)gm__quad_mean(s0[2 * x * C + c] + s0[(2 * x + 1) * C + c],
                                                          s1[2 * x * C + c] + s1[(2 * x + 1) * C + c]);
}
#endif

typedef void (*gm__cpu_area_down_fn)(const unsigned char* GM__RESTRICT, int* GM__RESTRICT, int* GM__RESTRICT,
                                     int* GM__RESTRICT, int* GM__RESTRICT, long long, int);
typedef void (*gm__cpu_area_across_fn)(const int* GM__RESTRICT, const int* GM__RESTRICT, const int* GM__RESTRICT,
                                       const int* GM__RESTRICT, long long, long long, long long, long long, int, int,
                                       float, unsigned char* GM__RESTRICT);

#define GM__CPU_AREA_DEF(down, across, attr, B, S, E, C)                                                           \
    static attr void down(const unsigned char* GM__RESTRICT row, int* GM__RESTRICT p0, int* GM__RESTRICT p1,       \
                          int* GM__RESTRICT p2, int* GM__RESTRICT p3, long long m, int first)                      \
    {                                                                                                              \
        gm__cpu_area_down(B, S, E, C, row, p0, p1, p2, p3, m, first);                                              \
    }                                                                                                              \
    static attr void across(const int* GM__RESTRICT p0, const int* GM__RESTRICT p1, const int* GM__RESTRICT p2,    \
                            const int* GM__RESTRICT p3, long long ix, long long cells, long long last, long long ny, \
                            int whole, int quad, float inv, unsigned char* GM__RESTRICT out)                       \
    {                                                                                                              \
        gm__cpu_area_across(B, S, E, C, p0, p1, p2, p3, ix, cells, last, ny, whole, quad, inv, out);               \
    }
#define GM__CPU_AREA(down, across, S, E, C) GM__CPU_TWICE(GM__CPU_AREA_DEF, down, across, S, E, C)

/* INTER_AREA by whole factors along rows where the order of a cell's adds
 * shows in its mean (resize.inc's gm__resize_area_fast, for what the
 * planes above do not take): the source rows of a destination row read in
 * turn, each cell's taps added as OpenCV adds them, row by row, left to
 * right: a whole cell in runs of four taps (part) added to the sum, a 2x2
 * of floats as two pairs, a cut cell one tap at a time; in the dtype's
 * work (an integer's run exact). part and sum hold the row's elements as
 * doubles, which hold every work value exactly. */
static GM__ALWAYS_INLINE void gm__cpu_area_fast_row(int S, int E, const gm__resize_args* a, int C, const gm__taps* ty,
                                                    double* part, double* sum, unsigned char* out)
{
    const long long ix = a->map.iscale_x, iy = a->map.iscale_y, n = ix * iy, runs = n / 4 * 4, sw = a->map.src_width;
    const int work = gm__resize_work(S), floats = S == GM_F32 || S == GM_F16 || S == GM_BF16;
    const int quad = gm__area_quad_int(S, C, a), integer = work == GM__WORK_FIXED || gm__is_int(S);
    long long i, x, t, k;
    int c;
    for (k = 0; k < a->width * C; ++k)
        part[k] = sum[k] = 0.0;
    for (i = 0; i < ty->n; ++i)
        for (x = 0; x < a->width; ++x) {
            const long long nx = sw - x * ix < ix ? sw - x * ix : ix;
            const int whole = nx == ix && ty->n == iy;
            const int pairs = whole && floats && ix == 2 && iy == 2 && (C == 4 || (C == 1 && x < ((sw / 2) & ~3LL)));
            for (c = 0; c < C; ++c) {
                const unsigned char* p = (const unsigned char*)(uintptr_t)(a->src.chan[c] + ty->o0 + i * ty->step) +
                                         x * ix * a->src.xstride;
                k = x * C + c;
                for (t = i * nx; t < (i + 1) * nx; ++t, p += a->src.xstride) {
                    const double v = work == GM__WORK_DOUBLE ? gm__decode_d(S, p)
                                     : integer             ? (double)gm__decode_i(S, p)
                                                           : (double)gm__decode_f(S, p, 1);
                    if (!whole) /* one by one */
                        sum[k] = work == GM__WORK_FLOAT ? (double)((float)sum[k] + gm__decode_f(S, p, 1)) : sum[k] + v;
                    else if (quad) /* OpenCV's integer 2x2 mean: the exact total */
                        sum[k] += v;
                    else if (pairs) { /* (a + b) + (c + d) */
                        if (t == 2)
                            sum[k] = part[k];
                        part[k] = t % 2 == 0 ? v : (double)((float)part[k] + (float)v);
                    } else { /* runs of four, then single taps */
                        part[k] = t >= runs || t % 4 == 0 ? v
                                  : floats               ? (double)((float)part[k] + (float)v)
                                                         : part[k] + v;
                        if (t >= runs || t % 4 == 3)
                            sum[k] = work == GM__WORK_FLOAT ? (double)((float)sum[k] + (float)part[k]) : sum[k] + part[k];
                    }
                }
            }
        }
    for (x = 0; x < a->width; ++x) {
        const long long nx = sw - x * ix < ix ? sw - x * ix : ix;
        const int whole = nx == ix && ty->n == iy;
        const int pairs = whole && floats && ix == 2 && iy == 2 && (C == 4 || (C == 1 && x < ((sw / 2) & ~3LL)));
        for (c = 0; c < C; ++c) {
            unsigned char* o = out + (x * C + c) * E;
            k = x * C + c;
            if (!whole)
                gm__encode_f(S, o, (float)sum[k] / (float)(nx * ty->n), 0);
            else if (quad)
                gm__encode_i(S, o, gm__quad_mean((int)sum[k], 0));
            else if (pairs)
                gm__encode_f(S, o, GM__MUL_F((float)sum[k] + (float)part[k], 0.25f), 0);
            else if (work == GM__WORK_DOUBLE)
                gm__encode_d(S, o, GM__MUL_D(sum[k], (double)(1.0f / (float)n)));
            else
                gm__encode_f(S, o, GM__MUL_F((float)sum[k], 1.0f / (float)n), 0);
        }
    }
}

typedef void (*gm__cpu_area_fast_row_fn)(const gm__resize_args*, int, const gm__taps*, double*, double*,
                                         unsigned char*);

#define GM__CPU_AREA_FAST_ROW(name, S, E)                                                                   \
    static void name(const gm__resize_args* a, int C, const gm__taps* ty, double* part, double* sum,         \
                     unsigned char* out)                                                                     \
    {                                                                                                        \
        gm__cpu_area_fast_row(S, E, a, C, ty, part, sum, out);                                               \
    }

/* INTER_AREA's general downscale along rows (resize.inc's gm__resize_area):
 * for a destination row of resize a (C channels), each source row of its
 * cells ty weighted along the row (pixel x: the taps from o0[x C + c],
 * xstride apart, by the weights w[first[x]] to w[first[x + 1] - 1]), then
 * by its row's weight added down the columns into sum, which is stored to
 * out; in the dtype's work, float or double. Its products round one by one
 * (GM__MUL_F), so the loops stay scalar. */
static GM__ALWAYS_INLINE void gm__cpu_area_row(int S, int E, const gm__resize_args* a, const long long* o0,
                                               const long long* first, const float* w, int C, const gm__taps* ty,
                                               void* sum, unsigned char* out)
{
    const int wide = gm__resize_work(S) == GM__WORK_DOUBLE;
    const long long n = a->width * C;
    double* D = (double*)sum;
    float* F = (float*)sum;
    long long sy, x, j, k;
    int c;
    for (k = 0; k < n; ++k)
        if (wide)
            D[k] = 0.0;
        else
            F[k] = 0.0f;
    for (sy = ty->s0; sy < ty->s1; ++sy) {
        const unsigned char* row = (const unsigned char*)(uintptr_t)(a->src.chan[0] + ty->base + sy * ty->step);
        const float beta = gm__area_weight(&ty->cell, sy);
        for (x = 0; x < a->width; ++x)
            for (c = 0; c < C; ++c) {
                const unsigned char* p = row + o0[x * C + c];
                double dbuf = 0.0;
                float fbuf = 0.0f;
                for (j = first[x]; j < first[x + 1]; ++j, p += a->src.xstride)
                    if (wide)
                        dbuf += GM__MUL_D(gm__decode_d(S, p), (double)w[j]);
                    else
                        fbuf += GM__MUL_F(gm__decode_f(S, p, 1), w[j]);
                if (wide)
                    D[x * C + c] += GM__MUL_D((double)beta, dbuf);
                else
                    F[x * C + c] += GM__MUL_F(beta, fbuf);
            }
    }
    for (k = 0; k < n; ++k)
        gm__resize_store(S, out + k * E, wide ? D[k] : F[k]);
}

typedef void (*gm__cpu_area_row_fn)(const gm__resize_args*, const long long*, const long long*, const float*, int,
                                    const gm__taps*, void*, unsigned char*);

#define GM__CPU_AREA_ROW(name, S, E)                                                                           \
    static void name(const gm__resize_args* a, const long long* o0, const long long* first, const float* w, int C, \
                     const gm__taps* ty, void* sum, unsigned char* out)                                        \
    {                                                                                                          \
        gm__cpu_area_row(S, E, a, o0, first, w, C, ty, sum, out);                                              \
    }

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

/* The u8 warps' 15-bit weights for each pair of fractions (fy 32 + fx),
 * LINEAR's 4 and CUBIC's 16, made once as OpenCV tabulates them
 * (initInterTab2D) by the kernel's own gm__warp_weights. */
static int gm__cpu_warp_q_linear[32 * 32][4], gm__cpu_warp_q_cubic[32 * 32][16];
static pthread_once_t gm__cpu_warp_q_once = PTHREAD_ONCE_INIT;

static void gm__cpu_warp_q_make(void)
{
    float w[16];
    int q[16], k;
    for (k = 0; k < 32 * 32; ++k) {
        gm__warp_weights(GM__SAMPLER_LINEAR, 1, k & 31, k >> 5, w, q);
        memcpy(gm__cpu_warp_q_linear[k], q, sizeof gm__cpu_warp_q_linear[k]);
        gm__warp_weights(GM__SAMPLER_CUBIC, 1, k & 31, k >> 5, w, q);
        memcpy(gm__cpu_warp_q_cubic[k], q, sizeof gm__cpu_warp_q_cubic[k]);
    }
}

/* Pixels [x0, x1) of row y of item b of a 4.x affine warp (sampler I)
 * between interleaved u8 images, as OpenCV's remap loop goes: the row's
 * start computed once, each column's step from steps (x0's first), a pixel
 * whose taps all fall inside summed here in the 15-bit fixed point, any
 * other by the kernel's per-pixel code. The same bits as gm__warp_run:
 * integer sums in any order are one sum. */
static GM__ALWAYS_INLINE void gm__cpu_warp_u8_pixels(int C, int I, const gm__warp_args* a, long long b, long long y,
                                                     long long x0, long long x1, const gm__warp_column* steps)
{
    const int nearest = I == GM__SAMPLER_NEAREST, n = nearest ? 1 : I == GM__SAMPLER_LINEAR ? 2 : 4;
    const int back = n == 4; /* cubic's taps start a pixel up and left */
    const gm__warp_column row = gm__warp_affine_row(gm__warp_matrix(a, b), nearest, y);
    const long long W = a->src.width, H = a->src.height, pitch = a->src.view.pitch, step = a->src.view.xstride;
    const unsigned char* src = (const unsigned char*)(uintptr_t)(a->src.view.chan[0] +
                                                                 (unsigned long long)(b * a->src.view.bstride));
    unsigned char* out = (unsigned char*)(uintptr_t)(a->dst.chan[0] + (unsigned long long)gm__view_at(&a->dst, b, y, 0));
    const int* weights = n == 2 ? gm__cpu_warp_q_linear[0] : gm__cpu_warp_q_cubic[0];
    int c, i, j;
    long long x;
    for (x = x0; x < x1; ++x) {
        const gm__warp_at p = gm__warp_affine_step(nearest, &row, &steps[x - x0]);
        const long long sx = p.x - back, sy = p.y - back;
        const unsigned char* t;
        unsigned char* d = out + x * a->dst.xstride;
        if (sx < 0 || sx > W - n || sy < 0 || sy > H - n) {
            gm__warp_run(GM_U8, C, I, a, b, x, y, y + 1);
            continue;
        }
        t = src + sy * pitch + sx * step;
        if (nearest) {
            for (c = 0; c < C; ++c)
                d[c] = t[c];
            continue;
        }
        const int* q = weights + (p.fy * 32 + p.fx) * n * n;
        for (c = 0; c < C; ++c) {
            int sum = 0;
            for (i = 0; i < n; ++i)
                for (j = 0; j < n; ++j)
                    sum += t[i * pitch + j * step + c] * q[i * n + j];
            gm__warp_store_fixed(GM_U8, d + c, sum);
        }
    }
}

/* Rows [begin, end) (numbered over the batch) by gm__cpu_warp_u8_pixels,
 * a band of columns at a time, the band's steps computed once an item's
 * matrix. */
static GM__ALWAYS_INLINE void gm__cpu_warp_u8_rows(int C, int I, const gm__warp_args* a, long long begin, long long end)
{
    enum { BAND = 256 };
    gm__warp_column steps[BAND];
    long long x0, x, r;
    pthread_once(&gm__cpu_warp_q_once, gm__cpu_warp_q_make);
    for (x0 = 0; x0 < a->width; x0 += BAND) {
        const long long x1 = a->width - x0 < BAND ? a->width : x0 + BAND;
        long long made = -1; /* the matrix steps holds */
        for (r = begin; r < end; ++r) {
            const long long b = r / a->height, y = r % a->height, matrix = a->matrices > 1 ? b : 0;
            if (matrix != made)
                for (x = x0, made = matrix; x < x1; ++x)
                    steps[x - x0] = gm__warp_affine_column(gm__warp_matrix(a, b), x);
            gm__cpu_warp_u8_pixels(C, I, a, b, y, x0, x1, steps);
        }
    }
}

/* The warp kernel's loop (templates/warp.inc), S constant per dtype; c
 * channels, at most 4 as the compiler sees it (else -O3 warns of writes
 * past a pixel's values); the 4.x affine warps of interleaved u8 images by
 * their own row loop. */
static GM__ALWAYS_INLINE void gm__cpu_warp_loop(int S, int c, int sampler, const gm__warp_args* a, long long begin,
                                                long long end)
{
    const int C = c < 4 ? c : 4;
    if (S == GM_U8 && !a->perspective && a->src.interleaved && a->dst_interleaved &&
        (sampler == GM__SAMPLER_NEAREST || sampler == GM__SAMPLER_LINEAR || sampler == GM__SAMPLER_CUBIC)) {
        switch (C * 8 + sampler) {
#define GM__CPU_WARP_U8(k, i) \
    case k * 8 + i:           \
        gm__cpu_warp_u8_rows(k, i, a, begin, end); \
        return;
#define GM__CPU_WARP_U8_ALL(k) \
    GM__CPU_WARP_U8(k, GM__SAMPLER_NEAREST) GM__CPU_WARP_U8(k, GM__SAMPLER_LINEAR) GM__CPU_WARP_U8(k, GM__SAMPLER_CUBIC)
            GM__CPU_WARP_U8_ALL(1) GM__CPU_WARP_U8_ALL(2) GM__CPU_WARP_U8_ALL(3) GM__CPU_WARP_U8_ALL(4)
#undef GM__CPU_WARP_U8_ALL
#undef GM__CPU_WARP_U8
        }
    }
    GM__CPU_EACH_PIXEL(begin, end, a->height, a->width, gm__warp_run(S, C, sampler, a, b, x, y, y + 1));
}

/* The warp placement's loop (templates/prep_warp.inc), S to D constant per
 * dtype pair; c channels, at most 4 as the compiler sees it; frame: the
 * items are 4:2:0 frames. */
static GM__ALWAYS_INLINE void gm__cpu_prep_warp_loop(int S, int D, int c, int sampler, int frame,
                                                     const gm__prep_args* a, long long begin, long long end)
{
    const int C = c < 4 ? c : 4;
    GM__CPU_EACH_PIXEL(begin, end, a->height, a->width, gm__prep_warp_run(S, D, C, sampler, frame, a, b, x, y, y + 1));
}

/* Pixels [x0, x1) of row y of pre-process item b, S to D constant per
 * dtype pair, E bytes an element of S: from sampled, the item's resized
 * crop row y - top (its width pixels of C channels, as S) where row y shows
 * the crop, or the pad; where sampled is NULL, by the kernel's per-pixel
 * code. arith: the kernel's row multiplies in double (gm__prep_double). */
static GM__ALWAYS_INLINE void gm__cpu_prep_row(int S, int D, int E, int C, int arith, const gm__prep_args* a,
                                               long long b, long long y, const unsigned char* sampled, long long x0,
                                               long long x1)
{
    const gm__prep_item* it = gm__prep_item_at(a, b);
    const long long ry = y - it->top;
    unsigned char value[4 * GM__SLOT];
    gm__prep_math m;
    long long x, rx;
    int k;
    if (!sampled) {
        for (x = x0; x < x1; ++x)
            gm__prep_run(S, D, C, a->frame.step != 0, arith, a, b, x, y, y + 1);
        return;
    }
    gm__prep_math_of(S, C, arith, a, &m);
    for (x = x0; x < x1; ++x) {
        rx = x - it->left;
        if (ry >= 0 && ry < it->height && rx >= 0 && rx < it->width)
            for (k = 0; k < C; ++k)
                gm__copy_bits(S, sampled + (rx * C + k) * E, value + k * GM__SLOT);
        else
            memcpy(value, m.pad, sizeof value);
        gm__prep_store(S, D, C, a, &m, value, (unsigned char*)(uintptr_t)(it->dst + y * a->dst_pitch + x * a->dst_xstride));
    }
}
