/* SPDX-License-Identifier: MIT */
/* Implementation: the CPU path's loops. They run the kernels' own stage
 * functions (templates/codec.inc and pixel.inc: decode, compute, encode),
 * so both paths agree bit for bit. A transform runs along rows (cpu_run.h):
 * a channel's run of pixels is converted by gm__cpu_convert, and the
 * channels of interleaved pixels are taken apart (gm__cpu_unzip) or put
 * together (gm__cpu_zip) around it. The generated wrappers (gen/kernels.h)
 * fix dtypes, element sizes and channel counts so that every branch on
 * them folds and the loops vectorise. Resize and the pre-process sample
 * the linear sampler along rows and down columns (gm__cpu_linear_h, _v),
 * the other samplers by their kernels' per-pixel code. */

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

/* Non-temporal stores (past the caches), where the CPU has them: x86-64's
 * SSE2 16-byte store, and AVX's 32-byte one in the AVX2 loops. A large
 * destination is written with them (cpu_run.h): it would not stay in the
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

/* n bytes from s to d by nt, a store of A bytes to an A-aligned address. */
#define GM__CPU_STREAM(d, s, n, A, nt)                                          \
    do {                                                                        \
        unsigned char* to_ = (d);                                               \
        const unsigned char* from_ = (s);                                       \
        long long n_ = (n), at_ = (long long)(-(uintptr_t)to_ & ((A) - 1));     \
        at_ = at_ < n_ ? at_ : n_;                                              \
        memcpy(to_, from_, (size_t)at_);                                        \
        for (; at_ + (A) <= n_; at_ += (A))                                     \
            nt(to_ + at_, from_ + at_);                                         \
        memcpy(to_ + at_, from_ + at_, (size_t)(n_ - at_));                     \
    } while (0)

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

/* gm__cpu_unzip written past the caches: each block of B pixels goes
 * through the first-level cache (t_) and on by nt, A bytes a store. */
#define GM__CPU_UNZIP_STREAM(B, E, C, s, d0, d1, d2, d3, n, A, nt)                               \
    do {                                                                                          \
        unsigned char t_[4][(B) * 8], *d_[4];                                                     \
        long long i_ = 0;                                                                         \
        int c_;                                                                                   \
        d_[0] = (d0), d_[1] = (d1), d_[2] = (d2), d_[3] = (d3);                                   \
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
        unsigned char t_[(B) * 4 * 8];                                                            \
        long long i_ = 0;                                                                         \
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

/* The wrappers gen/kernels.h instantiates: name for the baseline and
 * name_avx2 where GM__CPU_AVX2 is. A mover's stream: past the caches
 * (GM__CPU_NT only), by nt, A bytes a store. */
#define GM__CPU_CONVERT_DEF(name, attr, B, S, D, ES, ED)                                                            \
    static attr void name(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d, long long n,        \
                          const gm__cpu_chan* ch)                                                                \
    {                                                                                                            \
        gm__cpu_convert(B, S, D, ES, ED, s, d, n, ch);                                                              \
    }
#define GM__CPU_UNZIP_DEF(name, attr, B, E, C, A, nt)                                                              \
    static attr void name(const unsigned char* GM__RESTRICT s, unsigned char* GM__RESTRICT d0,                   \
                          unsigned char* GM__RESTRICT d1, unsigned char* GM__RESTRICT d2,                        \
                          unsigned char* GM__RESTRICT d3, long long n, int stream)                               \
    {                                                                                                            \
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
#define GM__CPU_CONVERT(name, S, D, ES, ED)                           \
    GM__CPU_CONVERT_DEF(name, , GM__CPU_BASE_BLOCK, S, D, ES, ED)     \
    GM__CPU_CONVERT_DEF(name##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, S, D, ES, ED)
#define GM__CPU_MOVERS(unzip, zip, E, C)                                                 \
    GM__CPU_UNZIP_DEF(unzip, , GM__CPU_BASE_BLOCK, E, C, 16, gm__cpu_nt16)               \
    GM__CPU_UNZIP_DEF(unzip##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, E, C, 32, gm__cpu_nt32) \
    GM__CPU_ZIP_DEF(zip, , GM__CPU_BASE_BLOCK, E, C, 16, gm__cpu_nt16)                   \
    GM__CPU_ZIP_DEF(zip##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, E, C, 32, gm__cpu_nt32)
GM__CPU_STREAM_FN_DEF(gm__cpu_stream, , 16, gm__cpu_nt16)
GM__CPU_STREAM_FN_DEF(gm__cpu_stream_avx2, GM__CPU_AVX2, 32, gm__cpu_nt32)
static const gm__cpu_stream_fn gm__cpu_streams[GM__CPU_ISAS] = {gm__cpu_stream, gm__cpu_stream_avx2};
#else
#define GM__CPU_CONVERT(name, S, D, ES, ED) GM__CPU_CONVERT_DEF(name, , GM__CPU_BLOCK, S, D, ES, ED)
#define GM__CPU_MOVERS(unzip, zip, E, C)                               \
    GM__CPU_UNZIP_DEF(unzip, , GM__CPU_BLOCK, E, C, 16, gm__cpu_nt16) \
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
#ifdef GM__CPU_AVX2
#define GM__CPU_LINEAR(h, v, S, E)                           \
    GM__CPU_LINEAR_DEF(h, v, , GM__CPU_BASE_BLOCK, S, E)     \
    GM__CPU_LINEAR_DEF(h##_avx2, v##_avx2, GM__CPU_AVX2, GM__CPU_BLOCK, S, E)
#else
#define GM__CPU_LINEAR(h, v, S, E) GM__CPU_LINEAR_DEF(h, v, , GM__CPU_BLOCK, S, E)
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

/* Pixels [x0, x1) of row y of pre-process item b, S to D constant per
 * dtype pair, E bytes an element of S: from sampled, the item's resized
 * crop row y - top (its width pixels of C channels, as S) where row y shows
 * the crop, or the pad; where sampled is NULL, by the kernel's per-pixel
 * code. */
static GM__ALWAYS_INLINE void gm__cpu_prep_row(int S, int D, int E, int C, const gm__prep_args* a, long long b,
                                               long long y, const unsigned char* sampled, long long x0, long long x1)
{
    const gm__prep_item* it = gm__prep_item_at(a, b);
    const long long ry = y - it->top;
    unsigned char value[4 * GM__SLOT];
    gm__prep_math m;
    long long x, rx;
    int k;
    if (!sampled) {
        for (x = x0; x < x1; ++x)
            gm__prep_run(S, D, C, a, b, x, y, y + 1);
        return;
    }
    gm__prep_math_of(S, C, a, &m);
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
