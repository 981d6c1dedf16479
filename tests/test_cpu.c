/* test_cpu: CPU-path semantics without OpenCV (f16/bf16 exhaustive and rounding, saturation, views and copies, transform vs a reference, split/merge planes, blob batches, blob arithmetic: float, double, divide, box mapping vs each framework's formula). Alone: make build/test_cpu && ./build/test_cpu */
/* It links the implementation compiled elsewhere (make lib's libgpumat.a;
 * its ASan and -march=native builds link objects of their own), so the
 * internals it reads and sets are those of gpumat/impl/internal.h, and the
 * per-pixel stages of pixel.h, compiled here. */
#include "gpumat.h"
#include "gpumat/gen/pixel.h"
#include "gpumat/impl/internal.h"
#include "check.h"
#include "sprites.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------ independent references */

/* The value of an f16 / bf16 bit pattern, from the IEEE definitions. */
static double dec_f16(unsigned h)
{
    int sign = h & 0x8000, e = (h >> 10) & 31, man = h & 0x3ff;
    double v;
    if (e == 31)
        v = man ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)man, -24);
    else
        v = ldexp((double)(1024 + man), e - 25);
    return sign ? -v : v;
}

static double dec_bf16(unsigned h)
{
    int sign = h & 0x8000, e = (h >> 7) & 255, man = h & 0x7f;
    double v;
    if (e == 255)
        v = man ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)man, -133);
    else
        v = ldexp((double)(128 + man), e - 134);
    return sign ? -v : v;
}

static int f16_is_nan(unsigned h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static int bf16_is_nan(unsigned h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

/* Nearest f16 to f (ties to even, overflow to infinity), computed in double:
 * the quantum of f's binade, rint of f / quantum, then the bits. */
static unsigned ref_f16(float f)
{
    unsigned sign = signbit(f) ? 0x8000u : 0u;
    double a = fabs((double)f), q;
    int e;
    if (isnan(f))
        return 0x7e00u;
    if (a >= 65520.0) /* 65504 + half its quantum: rounds to 2^16 */
        return sign | 0x7c00u;
    if (a < ldexp(1.0, -14)) { /* subnormal: quantum 2^-24; q = 1024 is the smallest normal */
        q = rint(ldexp(a, 24));
        return sign | (unsigned)q;
    }
    e = ilogb(a);
    q = rint(ldexp(a, 10 - e)); /* 1024 .. 2048 */
    if (q == 2048.0)
        q = 1024.0, ++e;
    if (e > 15)
        return sign | 0x7c00u;
    return sign | (unsigned)(e + 15) << 10 | ((unsigned)q - 1024u);
}

static unsigned ref_bf16(float f)
{
    unsigned sign = signbit(f) ? 0x8000u : 0u;
    double a = fabs((double)f), q;
    int e;
    if (isnan(f))
        return 0x7fc0u;
    if (isinf(f))
        return sign | 0x7f80u;
    if (a < ldexp(1.0, -126)) { /* subnormal: quantum 2^-133 */
        q = rint(ldexp(a, 133));
        return sign | (unsigned)q;
    }
    e = ilogb(a);
    q = rint(ldexp(a, 7 - e)); /* 128 .. 256 */
    if (q == 256.0)
        q = 128.0, ++e;
    if (e > 127)
        return sign | 0x7f80u;
    return sign | (unsigned)(e + 127) << 7 | ((unsigned)q - 128u);
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static int is_int(gm_dtype d) { return d <= GM_S32; }

static double int_lo(gm_dtype d)
{
    static const double lo[] = {0, -128, 0, -32768, -2147483648.0};
    return lo[d];
}

static double int_hi(gm_dtype d)
{
    static const double hi[] = {255, 127, 65535, 32767, 2147483647.0};
    return hi[d];
}

/* Documented integer store: NaN -> 0, round half to even, saturate. */
static double ref_sat(gm_dtype d, double v)
{
    if (v != v)
        return 0;
    v = rint(v);
    return v < int_lo(d) ? int_lo(d) : v > int_hi(d) ? int_hi(d) : v;
}

/* Element (n, y, x, c) of m, by base.h's formula. */
static unsigned char* at(const gm_mat* m, int64_t n, int64_t y, int64_t x, int c)
{
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    unsigned char* p = (unsigned char*)m->data + n * m->batch_pitch + y * m->pitch;
    if (m->layout == GM_HWC)
        return p + (x * m->channels + c) * es;
    return p + c * m->plane_pitch + x * es;
}

static double load(gm_dtype d, const unsigned char* p)
{
    union { uint8_t u8; int8_t s8; uint16_t u16; int16_t s16; int32_t s32; float f32; double f64; } u;
    memcpy(&u, p, gm_dtype_size(d));
    switch (d) {
    case GM_U8: return u.u8;
    case GM_S8: return u.s8;
    case GM_U16: return u.u16;
    case GM_S16: return u.s16;
    case GM_S32: return u.s32;
    case GM_F32: return u.f32;
    case GM_F64: return u.f64;
    case GM_F16: return dec_f16(u.u16);
    default: return dec_bf16(u.u16);
    }
}

/* Writes v (already representable in d, or an integer in range) as d. */
static void store_exact(gm_dtype d, unsigned char* p, double v)
{
    union { uint8_t u8; int8_t s8; uint16_t u16; int16_t s16; int32_t s32; float f32; double f64; } u;
    switch (d) {
    case GM_U8: u.u8 = (uint8_t)v; break;
    case GM_S8: u.s8 = (int8_t)v; break;
    case GM_U16: u.u16 = (uint16_t)v; break;
    case GM_S16: u.s16 = (int16_t)v; break;
    case GM_S32: u.s32 = (int32_t)v; break;
    case GM_F32: u.f32 = (float)v; break;
    case GM_F64: u.f64 = v; break;
    case GM_F16: u.u16 = (uint16_t)ref_f16((float)v); break;
    default: u.u16 = (uint16_t)ref_bf16((float)v); break;
    }
    memcpy(p, &u, gm_dtype_size(d));
}

/* A random value of dtype d: full range for integers, mostly moderate for
 * floats, sometimes exact halves (rounding ties), never all zeros. */
static double rand_value(gm_dtype d)
{
    uint64_t r = t_rand();
    double v;
    switch (d) {
    case GM_U8: return (double)(r % 256);
    case GM_S8: return (double)((int)(r % 256) - 128);
    case GM_U16: return (double)(r % 65536);
    case GM_S16: return (double)((int)(r % 65536) - 32768);
    case GM_S32: return r & 1 ? (double)(int32_t)(uint32_t)(r >> 16) : (double)((int)((r >> 8) % 2001) - 1000);
    default: break;
    }
    switch (r % 8) {
    case 0: v = floor(t_uniform(-600, 600)) + 0.5; break; /* ties */
    case 1: v = t_uniform(-1e6, 1e6); break;
    case 2: v = t_uniform(-2, 2); break;
    default: v = t_uniform(-700, 700); break;
    }
    if (d == GM_F32)
        return (double)(float)v;
    if (d == GM_F16)
        return dec_f16(ref_f16((float)v));
    if (d == GM_BF16)
        return dec_bf16(ref_bf16((float)v));
    return v;
}

/* ------------------------------------------------------- test images */

/* A w x h image (batch images) as a ROI inside a parent with pad (random
 * 5-15 px when pad < 0, none when 0) on every side, random extra bytes per
 * row, plane and image: padding and pitches the op must respect. The buffer
 * starts as random non-zero bytes; ref keeps a copy. */
typedef struct pimg {
    gm_mat m;
    unsigned char* buf;
    unsigned char* ref;
    size_t n;
} pimg;

static int64_t rnd(int64_t lo, int64_t hi) { return lo + (int64_t)(t_rand() % (uint64_t)(hi - lo + 1)); }

static void pimg_make(pimg* p, int64_t w, int64_t h, gm_dtype dt, int ch, gm_layout lay, int batch, int pad,
                      int compact)
{
    gm_desc d;
    gm_mat parent;
    int64_t es = (int64_t)gm_dtype_size(dt), l = 0, r = 0, t = 0, b = 0, row, image;
    size_t i;
    if (pad < 0)
        l = rnd(5, 15), r = rnd(5, 15), t = rnd(5, 15), b = rnd(5, 15);
    else
        l = r = t = b = pad;
    memset(&d, 0, sizeof d);
    d.width = w + l + r;
    d.height = h + t + b;
    d.dtype = dt;
    d.channels = ch;
    d.layout = lay;
    d.batch = batch;
    row = d.width * es * (lay == GM_HWC ? ch : 1);
    d.pitch = compact ? row : row + es * rnd(0, 7);
    d.plane_pitch = compact ? d.pitch * d.height : d.pitch * d.height + es * rnd(1, 9);
    image = lay == GM_CHW ? d.plane_pitch * ch : d.pitch * d.height;
    d.batch_pitch = compact ? image : image + es * rnd(1, 17);
    p->n = (size_t)(d.batch_pitch * batch + 16);
    p->buf = (unsigned char*)malloc(p->n);
    p->ref = (unsigned char*)malloc(p->n);
    for (i = 0; i < p->n; ++i)
        p->buf[i] = (unsigned char)(t_rand() % 255 + 1);
    if (gm_wrap_desc(&parent, p->buf, &d, GM_HOST) != GM_OK || gm_roi(&parent, &p->m, l, t, w, h) != GM_OK) {
        printf("pimg_make: %s\n", gm_last_error());
        exit(2);
    }
    memcpy(p->ref, p->buf, p->n);
}

/* Random values of its dtype in every element of p's ROI; ref follows. */
static void pimg_fill(pimg* p)
{
    int64_t n, y, x;
    int c;
    for (n = 0; n < p->m.batch; ++n)
        for (y = 0; y < p->m.height; ++y)
            for (x = 0; x < p->m.width; ++x)
                for (c = 0; c < p->m.channels; ++c)
                    store_exact(p->m.dtype, at(&p->m, n, y, x, c), rand_value(p->m.dtype));
    memcpy(p->ref, p->buf, p->n);
}

static void pimg_free(pimg* p)
{
    free(p->buf);
    free(p->ref);
    memset(p, 0, sizeof *p);
}

/* Bytes of p's buffer outside its elements still hold what ref holds. */
static int64_t pimg_outside_changed(const pimg* p)
{
    unsigned char* mask = (unsigned char*)calloc(p->n, 1);
    int64_t n, y, x, bad = 0;
    size_t es = gm_dtype_size(p->m.dtype), i;
    int c;
    for (n = 0; n < p->m.batch; ++n)
        for (y = 0; y < p->m.height; ++y)
            for (x = 0; x < p->m.width; ++x)
                for (c = 0; c < p->m.channels; ++c)
                    memset(mask + (at(&p->m, n, y, x, c) - p->buf), 1, es);
    for (i = 0; i < p->n; ++i)
        bad += !mask[i] && p->buf[i] != p->ref[i];
    free(mask);
    return bad;
}

static const gm_dtype all_dtypes[GM_DTYPE_COUNT] = {GM_U8, GM_S8, GM_U16, GM_S16, GM_S32,
                                                   GM_F32, GM_F64, GM_F16, GM_BF16};

/* ------------------------------------------- (1) f16 and bf16 conversions */

static void wrap1(gm_mat* m, void* data, int64_t w, int64_t h, gm_dtype dt)
{
    gm_status s = gm_wrap(m, data, w, h, dt, 1, GM_HWC, 0, GM_HOST);
    if (s != GM_OK) {
        printf("wrap1: %s\n", gm_last_error());
        exit(2);
    }
}

static void test_half_exhaustive(int bf)
{
    const char* name = bf ? "bf16" : "f16";
    gm_dtype H = bf ? GM_BF16 : GM_F16;
    uint16_t* h = (uint16_t*)malloc(65536 * 2);
    uint16_t* back = (uint16_t*)malloc(65536 * 2);
    float* f = (float*)malloc(65536 * 4);
    double* d = (double*)malloc(65536 * 8);
    gm_mat mh, mb, mf, md;
    int64_t bad_up = 0, bad_back = 0, bad_nan = 0, bad_d = 0, nans = 0;
    gm_status s1, s2, s3, s4;
    unsigned i;
    for (i = 0; i < 65536; ++i)
        h[i] = (uint16_t)i;
    memset(back, 0xa5, 65536 * 2);
    memset(f, 0xa5, 65536 * 4);
    wrap1(&mh, h, 256, 256, H);
    wrap1(&mb, back, 256, 256, H);
    wrap1(&mf, f, 256, 256, GM_F32);
    wrap1(&md, d, 256, 256, GM_F64);
    s1 = gm_convert(&mh, &mf, 1.0, 0.0, NULL);
    s2 = gm_convert(&mf, &mb, 1.0, 0.0, NULL);
    CHECK(s1 == GM_OK && s2 == GM_OK, "%s round trip: %s", name, gm_last_error());
    for (i = 0; i < 65536; ++i) {
        double v = bf ? dec_bf16(i) : dec_f16(i);
        int nan = bf ? bf16_is_nan(i) : f16_is_nan(i);
        if (nan) {
            ++nans;
            /* NaN stays NaN, made quiet, payload and sign kept */
            bad_nan += !isnan(f[i]) || !!signbit(f[i]) != !!(i & 0x8000) ||
                       back[i] != (i | (bf ? 0x40u : 0x200u));
        } else {
            bad_up += f32_bits(f[i]) != f32_bits((float)v);
            bad_back += back[i] != i;
        }
    }
    CHECK(nans == (bf ? 2 * 127 : 2 * 1023), "%s NaN patterns %lld", name, (long long)nans);
    CHECK(bad_up == 0, "%s -> f32 wrong for %lld patterns", name, (long long)bad_up);
    CHECK(bad_back == 0, "%s -> f32 -> %s changed %lld non-NaN patterns", name, name, (long long)bad_back);
    CHECK(bad_nan == 0, "%s NaN patterns not kept as quiet NaN: %lld", name, (long long)bad_nan);

    /* through f64 too: both directions exact for every non-NaN pattern */
    memset(back, 0xa5, 65536 * 2);
    s3 = gm_convert(&mh, &md, 1.0, 0.0, NULL);
    s4 = gm_convert(&md, &mb, 1.0, 0.0, NULL);
    CHECK(s3 == GM_OK && s4 == GM_OK, "%s via f64: %s", name, gm_last_error());
    for (i = 0; i < 65536; ++i) {
        int nan = bf ? bf16_is_nan(i) : f16_is_nan(i);
        double v = bf ? dec_bf16(i) : dec_f16(i);
        if (nan)
            bad_d += !isnan(d[i]) || !(bf ? bf16_is_nan(back[i]) : f16_is_nan(back[i]));
        else
            bad_d += memcmp(&d[i], &v, 8) != 0 || back[i] != i;
    }
    CHECK(bad_d == 0, "%s <-> f64 wrong for %lld patterns", name, (long long)bad_d);
    free(h);
    free(back);
    free(f);
    free(d);
}

/* A random float whose f16 / bf16 rounding is interesting: random bits, a
 * random binade around the format's range, or a halfway case (+- 1 ulp). */
static float rounding_case(int bf)
{
    uint64_t r = t_rand();
    int kind = (int)(r % 4);
    if (kind == 0)
        return bits_f32((uint32_t)(r >> 20));
    if (kind == 1) {
        int e = bf ? (int)rnd(-140, 128) : (int)rnd(-27, 16);
        float m = (float)(1.0 + (double)((r >> 20) & 0x7fffff) / 8388608.0);
        return (r >> 60 & 1 ? -1.0f : 1.0f) * ldexpf(m, e);
    } else {
        /* a representable value plus half its quantum: exactly halfway */
        unsigned h = (unsigned)(r >> 24) & 0x7fff;
        double v, q;
        float f;
        if (bf) {
            if ((h & 0x7f80) == 0x7f80)
                h &= 0x7f7f;
            v = dec_bf16(h);
            q = (h & 0x7f80) ? ldexp(1.0, ((int)(h >> 7) & 255) - 134) : ldexp(1.0, -133);
        } else {
            if ((h & 0x7c00) == 0x7c00)
                h &= 0x7bff;
            v = dec_f16(h);
            q = (h & 0x7c00) ? ldexp(1.0, ((int)(h >> 10) & 31) - 25) : ldexp(1.0, -24);
        }
        f = (float)(v + q / 2);
        if (kind == 3)
            f = nextafterf(f, r >> 62 & 1 ? INFINITY : 0.0f);
        return r >> 61 & 1 ? -f : f;
    }
}

static void test_half_rounding(int bf)
{
    static const struct { float f; unsigned f16, bf16; } edge[] = {
        {65504.0f, 0x7bff, 0x4780},
        {65519.99f, 0x7bff, 0x4780},
        {65520.0f, 0x7c00, 0x4780},
        {-65520.0f, 0xfc00, 0xc780},
        {65536.0f, 0x7c00, 0x4780},
        {5.9604644775390625e-08f /* 2^-24 */, 0x0001, 0x3380},
        {2.98023223876953125e-08f /* 2^-25 */, 0x0000, 0x3300},
        {2.98023223876953125e-08f * 1.0000001f, 0x0001, 0x3300},
        {-2.98023223876953125e-08f, 0x8000, 0xb300},
        {8.940696716308594e-08f /* 3 * 2^-25 */, 0x0002, 0x33c0},
        {1.4901161193847656e-07f /* 5 * 2^-25 */, 0x0002, 0x3420},
        {6.103515625e-05f /* 2^-14 */, 0x0400, 0x3880},
        {6.100535392761230e-05f /* 2^-14 - 2^-25: tie 0x3ff / 0x400 */, 0x0400, 0x3880},
        {1.00048828125f /* 1 + 2^-11: tie, even */, 0x3c00, 0x3f80},
        {1.00146484375f /* 1 + 3 * 2^-11: tie, even */, 0x3c02, 0x3f80},
        {1.0004884004592896f /* 1 + 2^-11 + 2^-23 */, 0x3c01, 0x3f80},
        {1.00390625f /* 1 + 2^-8: bf16 tie */, 0x3c04, 0x3f80},
        {1.01171875f /* 1 + 3 * 2^-8: bf16 tie */, 0x3c0c, 0x3f82},
        {-0.0f, 0x8000, 0x8000},
        {1e-8f, 0x0000, 0x322c},
        {3.4028234663852886e38f /* FLT_MAX */, 0x7c00, 0x7f80},
        {3.3895313892515355e38f /* bf16 max */, 0x7c00, 0x7f7f},
        {1.4012984643e-45f /* 2^-149 */, 0x0000, 0x0000},
        {-1.4012984643e-45f, 0x8000, 0x8000},
    };
    const char* name = bf ? "bf16" : "f16";
    enum { W = 1024, H = 512 };
    int nedge = (int)(sizeof edge / sizeof *edge), i, bad = 0, shown = 0;
    float* f = (float*)malloc(sizeof(float) * W * H);
    uint16_t* out = (uint16_t*)malloc(2 * W * H);
    gm_mat mf, mo;
    gm_status s;
    for (i = 0; i < nedge; ++i)
        f[i] = edge[i].f;
    f[nedge] = INFINITY;
    f[nedge + 1] = -INFINITY;
    f[nedge + 2] = NAN;
    f[nedge + 3] = -NAN;
    for (i = nedge + 4; i < W * H; ++i)
        f[i] = rounding_case(bf);
    memset(out, 0, 2 * W * H);
    wrap1(&mf, f, W, H, GM_F32);
    wrap1(&mo, out, W, H, bf ? GM_BF16 : GM_F16);
    s = gm_convert(&mf, &mo, 1.0, 0.0, NULL);
    CHECK(s == GM_OK, "f32 -> %s: %s", name, gm_last_error());
    for (i = 0; i < nedge; ++i)
        CHECK(out[i] == (bf ? edge[i].bf16 : edge[i].f16), "%s(%.9g) = 0x%04x, want 0x%04x", name, (double)edge[i].f,
              out[i], bf ? edge[i].bf16 : edge[i].f16);
    for (i = nedge; i < W * H; ++i) {
        unsigned want = bf ? ref_bf16(f[i]) : ref_f16(f[i]);
        int ok = isnan(f[i]) ? (bf ? bf16_is_nan(out[i]) : f16_is_nan(out[i])) : out[i] == want;
        if (!ok && shown++ < 5)
            printf("  %s(%.9g = 0x%08x) = 0x%04x, want 0x%04x\n", name, (double)f[i], (unsigned)f32_bits(f[i]),
                   out[i], want);
        bad += !ok;
    }
    CHECK(bad == 0, "f32 -> %s: %d of %d random values rounded wrong", name, bad, W * H - nedge);
    free(f);
    free(out);
}

/* f32 -> f16 through the CPU path's vector loops over every exponent and
 * sign with all 2^16 patterns of the low mantissa bits (the 13 the rounding
 * drops, the bit it keeps, and two above; the 7 top bits fixed), NaNs
 * aside: the conversion has no branches, so each of its three cases must
 * hold across every binade. */
static void test_f16_binades(void)
{
    enum { N = 65536 };
    float* f = (float*)malloc(sizeof(float) * N);
    uint16_t* out = (uint16_t*)malloc(2 * N);
    gm_mat mf, mo;
    long bad = 0, checked = 0;
    unsigned e, i;
    for (e = 0; e < 512; ++e) {
        if ((e & 255) == 255)
            continue; /* inf and NaN: test_half_rounding */
        for (i = 0; i < N; ++i)
            f[i] = bits_f32((e & 256) << 23 | (e & 255) << 23 | 0x550000u | i);
        wrap1(&mf, f, 256, 256, GM_F32);
        wrap1(&mo, out, 256, 256, GM_F16);
        if (gm_convert(&mf, &mo, 1.0, 0.0, NULL) != GM_OK) {
            CHECK(0, "f32 -> f16 binades: %s", gm_last_error());
            break;
        }
        for (i = 0; i < N; ++i, ++checked)
            if (out[i] != ref_f16(f[i]) && bad++ < 5)
                printf("  f16(0x%08x) = 0x%04x, want 0x%04x\n", (unsigned)f32_bits(f[i]), out[i], ref_f16(f[i]));
    }
    CHECK(bad == 0, "f32 -> f16: %ld of %ld values across the binades rounded wrong", bad, checked);
    free(f);
    free(out);
}

/* ------------------------------------------ (2) saturation and rounding */

static void test_saturation(void)
{
    static const double vals[] = {
        NAN, -NAN, INFINITY, -INFINITY, 1e30, -1e30, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 126.5, 127.5, -128.5,
        254.5, 255.5, 256, -0.0, 32766.5, 32767.5, -32768.5, 65534.5, 65535.5, 2147483520.0, 2147483648.0,
        -2147483648.0, -2147483904.0, 1e10, -1e10, 0.49999997, 7.0, -7.0};
    enum { N = sizeof vals / sizeof *vals };
    static const gm_dtype ints[] = {GM_U8, GM_S8, GM_U16, GM_S16, GM_S32};
    float fs[N];
    double ds[N];
    unsigned char out[N * 4];
    gm_mat mf, md, mo;
    int i, k, src;
    for (i = 0; i < N; ++i) {
        fs[i] = (float)vals[i];
        ds[i] = vals[i];
    }
    wrap1(&mf, fs, N, 1, GM_F32);
    wrap1(&md, ds, N, 1, GM_F64);
    for (src = 0; src < 2; ++src)
        for (k = 0; k < 5; ++k) {
            gm_dtype D = ints[k];
            int bad = 0;
            gm_status s;
            memset(out, 0xa5, sizeof out);
            wrap1(&mo, out, N, 1, D);
            s = gm_convert(src ? &md : &mf, &mo, 1.0, 0.0, NULL);
            CHECK(s == GM_OK, "%s -> %s: %s", src ? "f64" : "f32", gm_dtype_name(D), gm_last_error());
            for (i = 0; i < N; ++i) {
                double v = src ? ds[i] : (double)fs[i], want = ref_sat(D, v), got = load(D, out + i * gm_dtype_size(D));
                if (got != want) {
                    ++bad;
                    printf("  %s %.17g -> %s = %.17g, want %.17g\n", src ? "f64" : "f32", v, gm_dtype_name(D), got,
                           want);
                }
            }
            CHECK(bad == 0, "%s -> %s: %d of %d special values wrong", src ? "f64" : "f32", gm_dtype_name(D), bad, N);
            /* the documented cases, spelled out */
            CHECK(load(D, out) == 0 && load(D, out + gm_dtype_size(D)) == 0, "NaN -> 0 in %s", gm_dtype_name(D));
            CHECK(load(D, out + 2 * gm_dtype_size(D)) == int_hi(D) && load(D, out + 3 * gm_dtype_size(D)) == int_lo(D),
                  "+-inf saturate in %s", gm_dtype_name(D));
            CHECK(load(D, out + 6 * gm_dtype_size(D)) == 0 && load(D, out + 7 * gm_dtype_size(D)) == 2 &&
                      load(D, out + 8 * gm_dtype_size(D)) == 2,
                  "0.5 1.5 2.5 -> 0 2 2 in %s", gm_dtype_name(D));
            CHECK(load(D, out + 9 * gm_dtype_size(D)) == 0, "-0.5 -> 0 in %s", gm_dtype_name(D));
        }

    /* ties made by alpha / beta, in float (u8, s8) and in double (s32 -> s32) */
    {
        uint8_t u[4] = {1, 3, 5, 7}, uo[4];
        int8_t sv[4] = {-1, -3, -5, -7}, so[4];
        int32_t big[3] = {(1 << 30) + 1, (1 << 30) + 3, -((1 << 30) + 1)}, bo[3];
        uint8_t b[2] = {10, 11}, bo8[2];
        gm_mat a, o;
        wrap1(&a, u, 4, 1, GM_U8);
        wrap1(&o, uo, 4, 1, GM_U8);
        CHECK(gm_convert(&a, &o, 0.5, 0, NULL) == GM_OK && uo[0] == 0 && uo[1] == 2 && uo[2] == 2 && uo[3] == 4,
              "u8 * 0.5 of 1 3 5 7 = %d %d %d %d, want 0 2 2 4", uo[0], uo[1], uo[2], uo[3]);
        wrap1(&a, sv, 4, 1, GM_S8);
        wrap1(&o, so, 4, 1, GM_S8);
        CHECK(gm_convert(&a, &o, 0.5, 0, NULL) == GM_OK && so[0] == 0 && so[1] == -2 && so[2] == -2 && so[3] == -4,
              "s8 * 0.5 of -1 -3 -5 -7 = %d %d %d %d, want 0 -2 -2 -4", so[0], so[1], so[2], so[3]);
        wrap1(&a, big, 3, 1, GM_S32);
        wrap1(&o, bo, 3, 1, GM_S32);
        CHECK(gm_convert(&a, &o, 0.5, 0, NULL) == GM_OK && bo[0] == 1 << 29 && bo[1] == (1 << 29) + 2 &&
                  bo[2] == -(1 << 29),
              "s32 * 0.5 (double) = %d %d %d", bo[0], bo[1], bo[2]);
        wrap1(&a, b, 2, 1, GM_U8);
        wrap1(&o, bo8, 2, 1, GM_U8);
        CHECK(gm_convert(&a, &o, 1, 0.5, NULL) == GM_OK && bo8[0] == 10 && bo8[1] == 12,
              "u8 + 0.5 of 10 11 = %d %d, want 10 12", bo8[0], bo8[1]);
        CHECK(gm_convert(&a, &o, 1000, -3000, NULL) == GM_OK && bo8[0] == 255 && bo8[1] == 255, "u8 saturates high");
        CHECK(gm_convert(&a, &o, -1, 0, NULL) == GM_OK && bo8[0] == 0 && bo8[1] == 0, "u8 saturates low");
    }

    /* alpha = 1, beta = 0 copies exactly: -0.0 stays -0.0 */
    {
        float fz[2] = {-0.0f, 1.5f}, fo[2];
        double dz[2] = {-0.0, 2.25}, dout[2];
        uint16_t hz[2] = {0x8000, 0x3c00}, ho[2];
        gm_mat a, o;
        wrap1(&a, fz, 2, 1, GM_F32);
        wrap1(&o, fo, 2, 1, GM_F32);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && f32_bits(fo[0]) == 0x80000000u && fo[1] == 1.5f,
              "f32 -> f32 keeps -0.0: 0x%08x", (unsigned)f32_bits(fo[0]));
        wrap1(&o, dout, 2, 1, GM_F64);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && signbit(dout[0]) && dout[0] == 0 && dout[1] == 1.5,
              "f32 -> f64 keeps -0.0");
        wrap1(&a, dz, 2, 1, GM_F64);
        {
            double d2[2];
            gm_mat o2;
            wrap1(&o2, d2, 2, 1, GM_F64);
            CHECK(gm_convert(&a, &o2, 1, 0, NULL) == GM_OK && signbit(d2[0]) && d2[0] == 0 && d2[1] == 2.25,
                  "f64 -> f64 keeps -0.0");
        }
        wrap1(&o, fo, 2, 1, GM_F32);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && f32_bits(fo[0]) == 0x80000000u && fo[1] == 2.25f,
              "f64 -> f32 keeps -0.0");
        wrap1(&a, hz, 2, 1, GM_F16);
        wrap1(&o, ho, 2, 1, GM_F16);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && ho[0] == 0x8000 && ho[1] == 0x3c00, "f16 keeps -0.0");
        wrap1(&a, fz, 2, 1, GM_F32);
        wrap1(&o, fo, 2, 1, GM_F32);
        CHECK(gm_convert(&a, &o, 2, 0, NULL) == GM_OK && fo[1] == 3.0f, "f32 * 2");
    }
}

/* The per-channel rules where they differ from "always through the work
 * type" (templates/pixel.inc, gm__channel), each with its expected bytes. */
static void test_channel_rules(void)
{
    gm_mat a, o;
    gm_xform x;
    /* a plain conversion rounds once, from the exact double value */
    {
        double d[5] = {2.5000000001, 2.5, 3.5, 254.50000001, -0.4999999999};
        uint8_t u[5];
        int16_t h[2];
        memset(u, 0xa5, sizeof u);
        wrap1(&a, d, 5, 1, GM_F64);
        wrap1(&o, u, 5, 1, GM_U8);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && u[0] == 3 && u[1] == 2 && u[2] == 4 && u[3] == 255 &&
                  u[4] == 0,
              "f64 -> u8 plain: %d %d %d %d %d, want 3 2 4 255 0", u[0], u[1], u[2], u[3], u[4]);
        d[0] = 0.5000000001, d[1] = -1.5000000001;
        wrap1(&a, d, 2, 1, GM_F64);
        wrap1(&o, h, 2, 1, GM_S16);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && h[0] == 1 && h[1] == -2, "f64 -> s16 plain: %d %d, want 1 -2",
              h[0], h[1]);
    }
    /* scale 1 + 2^-40 is arithmetic (not plain) and is 1.0f in float: the
     * fma is done anyway, so -0.0 becomes +0.0 */
    {
        float f[2] = {-0.0f, 1.5f}, g[2];
        x = gm_xform_identity();
        x.scale[0] = 1.0 + ldexp(1.0, -40);
        wrap1(&a, f, 2, 1, GM_F32);
        wrap1(&o, g, 2, 1, GM_F32);
        CHECK(gm_transform(&a, &o, &x, NULL) == GM_OK && f32_bits(g[0]) == 0 && g[1] == 1.5f,
              "f32 * (float)1: fmaf(-0, 1, 0) = 0x%08x, want +0", (unsigned)f32_bits(g[0]));
    }
    /* plain between equal dtypes copies bits: NaN payloads (signalling too) kept */
    {
        uint32_t f[3] = {0x7f800001u, 0xffc12345u, 0x80000000u}, g[3];
        uint16_t h[3] = {0x7d01, 0xfe55, 0x8000}, hg[3];
        uint16_t b[3] = {0x7f81, 0xffc3, 0x8000}, bg[3];
        uint64_t d[2] = {0x7ff0000000000001ull, 0xfff8000000abcdefull}, dg[2];
        wrap1(&a, f, 3, 1, GM_F32);
        wrap1(&o, g, 3, 1, GM_F32);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && memcmp(f, g, sizeof f) == 0,
              "f32 plain copy: 0x%08x 0x%08x 0x%08x", (unsigned)g[0], (unsigned)g[1], (unsigned)g[2]);
        wrap1(&a, h, 3, 1, GM_F16);
        wrap1(&o, hg, 3, 1, GM_F16);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && memcmp(h, hg, sizeof h) == 0,
              "f16 plain copy: 0x%04x 0x%04x 0x%04x", hg[0], hg[1], hg[2]);
        wrap1(&a, b, 3, 1, GM_BF16);
        wrap1(&o, bg, 3, 1, GM_BF16);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && memcmp(b, bg, sizeof b) == 0,
              "bf16 plain copy: 0x%04x 0x%04x 0x%04x", bg[0], bg[1], bg[2]);
        wrap1(&a, d, 2, 1, GM_F64);
        wrap1(&o, dg, 2, 1, GM_F64);
        CHECK(gm_convert(&a, &o, 1, 0, NULL) == GM_OK && memcmp(d, dg, sizeof d) == 0, "f64 plain copy");
    }
    /* a constant channel stores offset as a double for wide pairs (s32 ->
     * s32), as (float)offset otherwise (u8 -> s32) */
    {
        uint8_t u[1] = {7};
        int32_t s32[1] = {-9}, out[2];
        x = gm_xform_identity();
        x.map[1] = GM_CONST;
        x.offset[1] = 2.5000000001;
        wrap1(&a, u, 1, 1, GM_U8);
        gm_wrap(&o, out, 1, 1, GM_S32, 2, GM_HWC, 0, GM_HOST);
        CHECK(gm_transform(&a, &o, &x, NULL) == GM_OK && out[0] == 7 && out[1] == 2,
              "u8 -> s32 constant 2.5000000001 (float): %d %d, want 7 2", (int)out[0], (int)out[1]);
        wrap1(&a, s32, 1, 1, GM_S32);
        CHECK(gm_transform(&a, &o, &x, NULL) == GM_OK && out[0] == -9 && out[1] == 3,
              "s32 -> s32 constant 2.5000000001 (double): %d %d, want -9 3", (int)out[0], (int)out[1]);
    }
}

/* ------------------------------------------------------- (4) transform */

/* The documented per-channel arithmetic (templates/pixel.inc, gm__channel).
 * Work type: double where OpenCV's convertTo computes the pair in double (any
 * -> f64, s32 -> s32, f64 -> s32, f64 -> f32, f64 -> f16; gen/model.py's
 * table), else float.
 *   - constant channel: offset stored, as a double for wide pairs, as
 *     (float)offset otherwise;
 *   - pre 0, scale 1, offset 0 (a plain conversion): the bits copied between
 *     equal dtypes (NaN payloads kept), else the exact source value stored
 *     from double (OpenCV's convertTo without scale);
 *   - otherwise the arithmetic is always done: in double v = x (+ pre when pre
 *     != 0), fma(v, scale, offset); in float v = (float)x (+ (float)pre when
 *     that is != 0), fmaf(v, (float)scale, (float)offset);
 * then the documented store: integers rounded half to even from the work
 * value and saturated (NaN -> 0); f16/bf16 rounded from the value as float. */
static int ref_wide(gm_dtype S, gm_dtype D)
{
    return D == GM_F64 || (D == GM_S32 && (S == GM_S32 || S == GM_F64)) ||
           (S == GM_F64 && (D == GM_F32 || D == GM_F16)); /* f64 -> f16 in double as OpenCV 4's cvt_64f */
}

/* A float work value stored as D. */
static void ref_store_f32(gm_dtype D, float v, unsigned char* out)
{
    double d = (double)v;
    uint16_t h;
    if (is_int(D)) {
        store_exact(D, out, ref_sat(D, d));
        return;
    }
    switch (D) {
    case GM_F32: memcpy(out, &v, 4); break;
    case GM_F64: memcpy(out, &d, 8); break;
    case GM_F16: h = (uint16_t)ref_f16(v); memcpy(out, &h, 2); break;
    default: h = (uint16_t)ref_bf16(v); memcpy(out, &h, 2); break;
    }
}

/* A double work value stored as D: integers from the double itself, the
 * 32-bit and 16-bit floats through float. */
static void ref_store_f64(gm_dtype D, double v, unsigned char* out)
{
    if (is_int(D))
        store_exact(D, out, ref_sat(D, v));
    else if (D == GM_F64)
        memcpy(out, &v, 8);
    else
        ref_store_f32(D, (float)v, out);
}

/* src: the source element (x is its value), NULL for a constant channel. */
static void ref_channel(gm_dtype S, gm_dtype D, const unsigned char* src, double x, double pre, double scale,
                        double offset, unsigned char* out)
{
    if (!src) {
        if (ref_wide(S, D))
            ref_store_f64(D, offset, out);
        else
            ref_store_f32(D, (float)offset, out);
    } else if (pre == 0.0 && scale == 1.0 && offset == 0.0) {
        if (S == D)
            memcpy(out, src, gm_dtype_size(D));
        else
            ref_store_f64(D, x, out);
    } else if (ref_wide(S, D)) {
        double v = x;
        if (pre != 0.0)
            v = v + pre;
        ref_store_f64(D, fma(v, scale, offset), out);
    } else {
        float p = (float)pre, v = (float)x;
        if (p != 0.0f)
            v = v + p;
        ref_store_f32(D, fmaf(v, (float)scale, (float)offset), out);
    }
}

static gm_xform rand_xform(const int* map, int cd)
{
    gm_xform x = gm_xform_identity();
    int c;
    for (c = 0; c < 4; ++c) {
        x.map[c] = c < cd ? map[c] : 99; /* beyond dst's channels: never read */
        x.pre[c] = t_rand() % 2 ? 0.0 : t_uniform(-100, 100);
        x.scale[c] = t_rand() % 5 == 0 ? 1.0 : t_uniform(-3, 3);
        x.offset[c] = t_rand() % 3 == 0 ? 0.0 : t_uniform(-200, 200);
        if (t_rand() % 6 == 0)
            x.pre[c] = 0.0, x.scale[c] = 1.0, x.offset[c] = 0.0;
    }
    return x;
}

static const char* lay_name(gm_layout l) { return l == GM_HWC ? "hwc" : "chw"; }

/* Transform x (map its channel map) on random data against ref_channel,
 * with dst padding checked. */
static void check_xform(gm_xform x, gm_dtype S, gm_dtype D, int cs, int cd, const int* map, int64_t w, int64_t h,
                        int batch, gm_layout ls, gm_layout ld, const char* what)
{
    pimg src, dst;
    int64_t n, y, xx, bad = 0, outside;
    unsigned char want[8];
    gm_status s;
    int c, shown = 0;
    size_t es = gm_dtype_size(D);
    pimg_make(&src, w, h, S, cs, ls, batch, t_rand() % 3 ? -1 : 0, t_rand() % 4 == 0);
    pimg_make(&dst, w, h, D, cd, ld, batch, t_rand() % 3 ? -1 : 0, t_rand() % 4 == 0);
    pimg_fill(&src);
    s = gm_transform(&src.m, &dst.m, &x, NULL);
    if (s != GM_OK) {
        CHECK(0, "%s: %s%d_%s -> %s%d_%s %lldx%lld x%d: %s", what, gm_dtype_name(S), cs, lay_name(ls),
              gm_dtype_name(D), cd, lay_name(ld), (long long)w, (long long)h, batch, gm_last_error());
        pimg_free(&src);
        pimg_free(&dst);
        return;
    }
    for (n = 0; n < batch; ++n)
        for (y = 0; y < h; ++y)
            for (xx = 0; xx < w; ++xx)
                for (c = 0; c < cd; ++c) {
                    const unsigned char* sp = map[c] == GM_CONST ? NULL : at(&src.m, n, y, xx, map[c]);
                    double v = sp ? load(S, sp) : 0.0;
                    const unsigned char* got = at(&dst.m, n, y, xx, c);
                    ref_channel(S, D, sp, v, x.pre[c], x.scale[c], x.offset[c], want);
                    if (memcmp(got, want, es) != 0) {
                        if (shown++ < 3)
                            printf("  %s %s->%s (%lld,%lld,%lld,%d): src %.17g pre %g scale %.17g offset %.17g: got "
                                   "%.17g want %.17g\n",
                                   what, gm_dtype_name(S), gm_dtype_name(D), (long long)n, (long long)y, (long long)xx,
                                   c, v, x.pre[c], x.scale[c], x.offset[c], load(D, got), load(D, want));
                        ++bad;
                    }
                }
    outside = pimg_outside_changed(&dst);
    CHECK(bad == 0 && outside == 0, "%s: %s%d_%s -> %s%d_%s %lldx%lld x%d: %lld wrong values, %lld bytes written "
          "outside dst", what, gm_dtype_name(S), cs, lay_name(ls), gm_dtype_name(D), cd, lay_name(ld), (long long)w,
          (long long)h, batch, (long long)bad, (long long)outside);
    CHECK(memcmp(src.buf, src.ref, src.n) == 0, "%s: the source was written", what);
    pimg_free(&src);
    pimg_free(&dst);
}

/* A random transform by map, as check_xform checks one. */
static void check_transform(gm_dtype S, gm_dtype D, int cs, int cd, const int* map, int64_t w, int64_t h, int batch,
                            gm_layout ls, gm_layout ld, const char* what)
{
    check_xform(rand_xform(map, cd), S, D, cs, cd, map, w, h, batch, ls, ld, what);
}

static const int64_t sizes[][2] = {{1, 1}, {13, 1}, {7, 4}, {113, 113}};

/* Channels reordered within interleaved pixels of one dtype, nothing else
 * (the CPU's byte shuffles where it has AVX2, cpu.h): every dtype whose
 * pixel fits 16 bytes, rows shorter than a shuffle's 16 bytes and longer,
 * maps that repeat a channel. */
static void test_shuffles(void)
{
    static const int maps[][3][4] = {
        {{1, 0}, {1, 1}, {0, 1}},
        {{2, 1, 0}, {1, 2, 0}, {0, 0, 2}},
        {{2, 1, 0, 3}, {3, 2, 1, 0}, {1, 1, 3, 0}},
    };
    static const int64_t shapes[][2] = {{1, 2}, {5, 3}, {13, 2}, {113, 7}};
    int d, c, k, z;
    for (d = 0; d < GM_DTYPE_COUNT; ++d)
        for (c = 2; c <= 4; ++c)
            for (k = 0; k < 3; ++k)
                for (z = 0; z < 4; ++z) {
                    gm_xform x = gm_xform_identity();
                    int j;
                    if (c * (int)gm_dtype_size(all_dtypes[d]) > 16)
                        continue;
                    for (j = 0; j < c; ++j)
                        x.map[j] = maps[c - 2][k][j];
                    check_xform(x, all_dtypes[d], all_dtypes[d], c, c, maps[c - 2][k], shapes[z][0], shapes[z][1],
                                1 + (z + k) % 3, GM_HWC, GM_HWC, "channels reordered");
                }
}

static void test_transform(void)
{
    /* named channel maps */
    static const struct { int cs, cd, map[4]; const char* what; } maps[] = {
        {3, 3, {0, 1, 2, 0}, "identity"},
        {3, 3, {2, 1, 0, 0}, "swap R/B"},
        {1, 3, {0, 0, 0, 0}, "replicate gray"},
        {4, 3, {0, 1, 2, 0}, "drop alpha"},
        {4, 3, {2, 1, 0, 0}, "drop alpha, swap R/B"},
        {1, 4, {0, 0, 0, GM_CONST}, "gray to 4 channels, constant alpha"},
        {3, 4, {2, GM_CONST, 0, 1}, "constant in the middle"},
        {2, 2, {1, 0, 0, 0}, "swap 2 channels"},
        {4, 1, {3, 0, 0, 0}, "pick alpha"},
        {3, 2, {GM_CONST, GM_CONST, 0, 0}, "all constants"},
    };
    enum { NMAPS = sizeof maps / sizeof *maps };
    int si, di, k, z, i;
    /* every dtype pair, every size, a rotating map, random layouts, batch 1 or 3 */
    for (si = 0; si < GM_DTYPE_COUNT; ++si)
        for (di = 0; di < GM_DTYPE_COUNT; ++di)
            for (z = 0; z < 4; ++z) {
                k = (si * GM_DTYPE_COUNT + di + z) % NMAPS;
                if (z == 3 && (si + di) % 3)
                    continue; /* 113x113 for a third of the pairs */
                check_transform(all_dtypes[si], all_dtypes[di], maps[k].cs, maps[k].cd, maps[k].map, sizes[z][0],
                                sizes[z][1], t_rand() % 2 ? 3 : 1, t_rand() % 2 ? GM_CHW : GM_HWC,
                                t_rand() % 2 ? GM_CHW : GM_HWC, maps[k].what);
            }
    /* every named map on the common pairs, every size, batches of 3 */
    {
        static const gm_dtype pairs[][2] = {{GM_U8, GM_F32}, {GM_U8, GM_U8}, {GM_F32, GM_U8}, {GM_U16, GM_F16},
                                            {GM_U8, GM_BF16}, {GM_F16, GM_S16}};
        for (i = 0; i < 6; ++i)
            for (k = 0; k < NMAPS; ++k)
                for (z = 0; z < 4; ++z)
                    check_transform(pairs[i][0], pairs[i][1], maps[k].cs, maps[k].cd, maps[k].map, sizes[z][0],
                                    sizes[z][1], 3, (gm_layout)(k % 2), (gm_layout)(z % 2), maps[k].what);
    }
    /* random maps */
    for (i = 0; i < 60; ++i) {
        int cs = (int)rnd(1, 4), cd = (int)rnd(1, 4), map[4], c;
        for (c = 0; c < 4; ++c)
            map[c] = (int)rnd(-1, cs - 1);
        z = (int)rnd(0, 2);
        check_transform(all_dtypes[rnd(0, 8)], all_dtypes[rnd(0, 8)], cs, cd, map, sizes[z][0], sizes[z][1],
                        (int)rnd(1, 3), (gm_layout)rnd(0, 1), (gm_layout)rnd(0, 1), "random map");
    }
}

/* ------------------------------------------------ (3) views and copies */

static void test_views(void)
{
    int it, bad_roi = 0, bad_plane = 0, bad_item = 0, bad_fields = 0;
    for (it = 0; it < 60; ++it) {
        gm_dtype dt = all_dtypes[rnd(0, 8)];
        int ch = (int)rnd(1, 4), batch = (int)rnd(1, 4);
        gm_layout lay = (gm_layout)rnd(0, 1);
        int64_t w = rnd(1, 40), h = rnd(1, 30), rx = rnd(0, w - 1), ry = rnd(0, h - 1);
        int64_t rw = rnd(1, w - rx), rh = rnd(1, h - ry), n, y, x;
        int c, pc = (int)rnd(0, ch - 1), ii = (int)rnd(0, batch - 1);
        pimg p;
        gm_mat roi, plane, item, both;
        gm_status s;
        pimg_make(&p, w, h, dt, ch, lay, batch, t_rand() % 2 ? -1 : 0, t_rand() % 3 == 0);
        pimg_fill(&p);
        s = gm_roi(&p.m, &roi, rx, ry, rw, rh);
        CHECK(s == GM_OK, "gm_roi: %s", gm_last_error());
        bad_fields += roi.width != rw || roi.height != rh || roi.pitch != p.m.pitch || roi.batch != batch ||
                      roi.plane_pitch != p.m.plane_pitch || roi.batch_pitch != p.m.batch_pitch || roi.owned ||
                      roi.dtype != dt || roi.channels != ch || roi.layout != lay;
        for (n = 0; n < batch; ++n)
            for (y = 0; y < rh; ++y)
                for (x = 0; x < rw; ++x)
                    for (c = 0; c < ch; ++c)
                        bad_roi += at(&roi, n, y, x, c) != at(&p.m, n, y + ry, x + rx, c);
        if (lay == GM_CHW || ch == 1) {
            s = gm_plane(&roi, &plane, pc);
            CHECK(s == GM_OK, "gm_plane: %s", gm_last_error());
            if (s != GM_OK) /* plane is not set */
                continue;
            bad_fields += plane.channels != 1 || plane.width != rw || plane.pitch != p.m.pitch || plane.owned;
            for (n = 0; n < batch; ++n)
                for (y = 0; y < rh; ++y)
                    for (x = 0; x < rw; ++x)
                        bad_plane += at(&plane, n, y, x, 0) != at(&p.m, n, y + ry, x + rx, pc);
        }
        s = gm_item(&roi, &item, ii);
        CHECK(s == GM_OK, "gm_item: %s", gm_last_error());
        bad_fields += item.batch != 1 || item.width != rw || item.owned;
        for (y = 0; y < rh; ++y)
            for (x = 0; x < rw; ++x)
                for (c = 0; c < ch; ++c)
                    bad_item += at(&item, 0, y, x, c) != at(&p.m, ii, y + ry, x + rx, c);
        /* the other order: ROI of the item */
        s = gm_item(&p.m, &item, ii);
        s = s == GM_OK ? gm_roi(&item, &both, rx, ry, rw, rh) : s;
        CHECK(s == GM_OK && both.data == at(&p.m, ii, ry, rx, 0), "ROI of an item: %s", gm_last_error());
        CHECK(memcmp(p.buf, p.ref, p.n) == 0, "views wrote to the image");
        pimg_free(&p);
    }
    CHECK(bad_fields == 0, "view descriptors: %d wrong fields", bad_fields);
    CHECK(bad_roi == 0, "gm_roi element addresses: %d wrong", bad_roi);
    CHECK(bad_plane == 0, "gm_plane element addresses: %d wrong", bad_plane);
    CHECK(bad_item == 0, "gm_item element addresses: %d wrong", bad_item);
}

/* src and dst hold the same elements (bytes), and nothing outside dst's
 * elements changed. */
static void check_same_elements(const pimg* src, const pimg* dst, const char* what)
{
    int64_t n, y, x, bad = 0, outside = pimg_outside_changed(dst);
    size_t es = gm_dtype_size(src->m.dtype);
    int c;
    for (n = 0; n < src->m.batch; ++n)
        for (y = 0; y < src->m.height; ++y)
            for (x = 0; x < src->m.width; ++x)
                for (c = 0; c < src->m.channels; ++c)
                    bad += memcmp(at(&src->m, n, y, x, c), at(&dst->m, n, y, x, c), es) != 0;
    CHECK(bad == 0 && outside == 0, "%s: %s x%d %s %lldx%lld x%d: %lld elements differ, %lld bytes written outside",
          what, gm_dtype_name(src->m.dtype), (int)src->m.channels, lay_name(src->m.layout), (long long)src->m.width,
          (long long)src->m.height, (int)src->m.batch, (long long)bad, (long long)outside);
}

static void test_copy(void)
{
    int it;
    for (it = 0; it < 80; ++it) {
        gm_dtype dt = all_dtypes[rnd(0, 8)];
        int ch = (int)rnd(1, 4), batch = it % 3 ? 3 : 1;
        gm_layout lay = (gm_layout)rnd(0, 1);
        int64_t w = rnd(1, 50), h = rnd(1, 20);
        /* compact on both sides (planes and images fold into one block),
         * on one side only, or padded on both */
        int sc = it % 4 == 0 || it % 4 == 1, dc = it % 4 == 0 || it % 4 == 2;
        pimg src, dst;
        gm_status s;
        pimg_make(&src, w, h, dt, ch, lay, batch, sc ? 0 : -1, sc);
        pimg_make(&dst, w, h, dt, ch, lay, batch, dc ? 0 : -1, dc);
        pimg_fill(&src);
        s = gm_copy(&src.m, &dst.m, NULL);
        CHECK(s == GM_OK, "gm_copy: %s", gm_last_error());
        check_same_elements(&src, &dst, "gm_copy");
        CHECK(memcmp(src.buf, src.ref, src.n) == 0, "gm_copy wrote its source");
        pimg_free(&src);
        pimg_free(&dst);
    }
    /* a 1-channel image may change layout label in a copy */
    {
        pimg a, b;
        pimg_make(&a, 9, 4, GM_S16, 1, GM_HWC, 3, -1, 0);
        pimg_make(&b, 9, 4, GM_S16, 1, GM_CHW, 3, -1, 0);
        pimg_fill(&a);
        CHECK(gm_copy(&a.m, &b.m, NULL) == GM_OK, "1-channel HWC -> CHW copy: %s", gm_last_error());
        check_same_elements(&a, &b, "1-channel HWC -> CHW copy");
        pimg_free(&a);
        pimg_free(&b);
    }
    /* upload / download of host images are plain copies (the CPU path):
     * random compact host data into an ROI of a padded planar batch and back
     * out at another pitch; the padding around the ROI stays untouched */
    {
        pimg a;
        unsigned char host[9 * 2 * 4 * 3 * 2], back[13 * 2 * 4 * 3 * 2];
        size_t i, row = 9 * 2, rows = 4 * 3 * 2;
        int same = 1;
        pimg_make(&a, 9, 4, GM_U16, 3, GM_CHW, 2, -1, 0);
        for (i = 0; i < sizeof host; ++i)
            host[i] = (unsigned char)(t_rand() % 255 + 1);
        CHECK(gm_upload(&a.m, host, 0, NULL) == GM_OK, "gm_upload to host memory: %s", gm_last_error());
        memset(back, 0, sizeof back);
        CHECK(gm_download_sync(&a.m, back, 26) == GM_OK, "gm_download_sync from host memory: %s", gm_last_error());
        for (i = 0; i < rows; ++i)
            same &= memcmp(back + i * 26, host + i * row, row) == 0;
        CHECK(same, "host upload then download with host_pitch 26 gives back the data");
        CHECK(pimg_outside_changed(&a) == 0, "gm_upload to host memory wrote %lld bytes outside the ROI",
              (long long)pimg_outside_changed(&a));
        pimg_free(&a);
    }
}

/* ---------------------------------------- (5) split / merge planes */

static void test_planes(void)
{
    int it;
    for (it = 0; it < 40; ++it) {
        gm_dtype dt = all_dtypes[rnd(0, 8)];
        int ch = (int)rnd(2, 4), batch = it % 2 ? 3 : 1, c;
        int z = it % 4;
        int64_t w = sizes[z][0], h = sizes[z][1], n, y, x, bad = 0, outside = 0;
        pimg src, back, pl[4], chw;
        gm_mat planes[4], same[4];
        gm_status s;
        if (z == 3 && it % 3)
            w = 31, h = 17;
        pimg_make(&src, w, h, dt, ch, GM_HWC, batch, -1, 0);
        pimg_fill(&src);
        for (c = 0; c < ch; ++c) {
            /* each plane its own padding, so pitches and batch pitches differ */
            pimg_make(&pl[c], w, h, dt, 1, (gm_layout)(c % 2), batch, -1, 0);
            planes[c] = pl[c].m;
        }
        s = gm_split_planes(&src.m, planes, NULL);
        CHECK(s == GM_OK, "gm_split_planes: %s", gm_last_error());
        for (c = 0; c < ch; ++c) {
            for (n = 0; n < batch; ++n)
                for (y = 0; y < h; ++y)
                    for (x = 0; x < w; ++x)
                        bad += memcmp(at(&pl[c].m, n, y, x, 0), at(&src.m, n, y, x, c), gm_dtype_size(dt)) != 0;
            outside += pimg_outside_changed(&pl[c]);
        }
        CHECK(bad == 0 && outside == 0, "gm_split_planes %s x%d %lldx%lld x%d: %lld wrong, %lld bytes outside",
              gm_dtype_name(dt), ch, (long long)w, (long long)h, batch, (long long)bad, (long long)outside);
        pimg_make(&back, w, h, dt, ch, GM_HWC, batch, -1, 0);
        s = gm_merge_planes(planes, ch, &back.m, NULL);
        CHECK(s == GM_OK, "gm_merge_planes: %s", gm_last_error());
        check_same_elements(&src, &back, "split_planes then merge_planes");

        /* planes of one planar image (equal pitches: the one-pass path) */
        pimg_make(&chw, w, h, dt, ch, GM_CHW, batch, -1, 0);
        for (c = 0; c < ch; ++c)
            gm_plane(&chw.m, &same[c], c);
        s = gm_split_planes(&src.m, same, NULL);
        CHECK(s == GM_OK, "gm_split_planes into gm_plane views: %s", gm_last_error());
        check_same_elements(&src, &chw, "gm_split_planes into gm_plane views");
        for (n = 0; n < batch; ++n) /* the merge below must not depend on that split */
            for (y = 0; y < h; ++y)
                for (x = 0; x < w; ++x)
                    for (c = 0; c < ch; ++c)
                        memcpy(at(&chw.m, n, y, x, c), at(&src.m, n, y, x, c), gm_dtype_size(dt));
        {
            size_t i; /* scramble back: the merge must rewrite every element */
            for (i = 0; i < back.n; ++i)
                back.buf[i] ^= 0x5a;
            memcpy(back.ref, back.buf, back.n);
        }
        s = gm_merge_planes(same, ch, &back.m, NULL);
        CHECK(s == GM_OK, "gm_merge_planes from gm_plane views: %s", gm_last_error());
        check_same_elements(&src, &back, "gm_merge_planes from gm_plane views");

        /* merge into a planar dst: documented as interleaved, so either a
         * GM_ERR_TYPE with nothing written or the right planar image */
        {
            pimg pd;
            pimg_make(&pd, w, h, dt, ch, GM_CHW, batch, -1, 0);
            s = gm_merge_planes(planes, ch, &pd.m, NULL);
            if (s == GM_ERR_TYPE)
                CHECK(memcmp(pd.buf, pd.ref, pd.n) == 0, "gm_merge_planes into CHW failed but wrote");
            else {
                CHECK(s == GM_OK, "gm_merge_planes into CHW: %s", gm_last_error());
                check_same_elements(&src, &pd, "gm_merge_planes (planes of different pitches) into a CHW dst");
            }
            pimg_free(&pd);
        }
        for (c = 0; c < ch; ++c)
            pimg_free(&pl[c]);
        pimg_free(&src);
        pimg_free(&back);
        pimg_free(&chw);
    }
}

/* f32 BGR split into the planes of a compact planar image, which the AVX2
 * path unzips in registers (cpu.h): 64 x 9 puts the planes 2304 bytes
 * apart, so all three align on 32 bytes together (non-temporal stores
 * where the destination streams), 61 x 9 does not (ordinary stores); 1000
 * pixels a row take several steps between the pixels before the first
 * whole line and the last. */
static void test_split_f32(void)
{
    static const int64_t dims[][2] = {{64, 9}, {61, 9}, {1000, 3}, {5, 2}};
    size_t k;
    for (k = 0; k < sizeof dims / sizeof dims[0]; ++k) {
        pimg src, chw;
        gm_mat same[3];
        gm_status s;
        int c;
        pimg_make(&src, dims[k][0], dims[k][1], GM_F32, 3, GM_HWC, 2, -1, 0);
        pimg_fill(&src);
        pimg_make(&chw, dims[k][0], dims[k][1], GM_F32, 3, GM_CHW, 2, 0, 1);
        for (c = 0; c < 3; ++c)
            gm_plane(&chw.m, &same[c], c);
        s = gm_split_planes(&src.m, same, NULL);
        CHECK(s == GM_OK, "gm_split_planes f32 x3: %s", gm_last_error());
        check_same_elements(&src, &chw, "gm_split_planes f32 x3 into a compact planar image");
        pimg_free(&src);
        pimg_free(&chw);
    }
}

/* ------------------------------------------------------ (6) blob batches */

static void test_blob(void)
{
    static const struct { int ch; gm_dtype D; gm_layout L; int swap, use_mean, use_std; } cases[] = {
        {3, GM_F32, GM_CHW, 1, 1, 1}, {3, GM_F32, GM_CHW, 0, 1, 0}, {3, GM_F16, GM_HWC, 1, 0, 1},
        {4, GM_F32, GM_HWC, 1, 1, 1}, {1, GM_F32, GM_CHW, 0, 1, 1}, {3, GM_BF16, GM_CHW, 0, 0, 0},
        {4, GM_U8, GM_CHW, 0, 1, 0},  {3, GM_F64, GM_HWC, 1, 1, 1},
    };
    int k, z, i;
    for (k = 0; k < (int)(sizeof cases / sizeof *cases); ++k)
        for (z = 0; z < 4; ++z) {
            int64_t w = sizes[z][0], h = sizes[z][1];
            double mean[4], std[4], sf = t_rand() % 2 ? 1.0 / 255 : t_uniform(0.5, 2);
            pimg im[3], batch, one[3];
            gm_mat images[3], item;
            gm_status s;
            int64_t bad = 0, n, y, x;
            int c;
            for (c = 0; c < 4; ++c)
                mean[c] = t_uniform(0, 255), std[c] = t_uniform(20, 80);
            for (i = 0; i < 3; ++i) {
                pimg_make(&im[i], w, h, GM_U8, cases[k].ch, GM_HWC, 1, -1, 0);
                pimg_fill(&im[i]);
                images[i] = im[i].m;
                pimg_make(&one[i], w, h, cases[k].D, cases[k].ch, cases[k].L, 1, -1, 0);
            }
            pimg_make(&batch, w, h, cases[k].D, cases[k].ch, cases[k].L, 3, -1, 0);
            s = gm_blob_from_images(images, 3, &batch.m, sf, cases[k].use_mean ? mean : NULL,
                                    cases[k].use_std ? std : NULL, cases[k].swap, NULL);
            CHECK(s == GM_OK, "gm_blob_from_images: %s", gm_last_error());
            for (i = 0; i < 3; ++i) {
                s = gm_blob_from_image(&im[i].m, &one[i].m, sf, cases[k].use_mean ? mean : NULL,
                                       cases[k].use_std ? std : NULL, cases[k].swap, NULL);
                CHECK(s == GM_OK, "gm_blob_from_image: %s", gm_last_error());
                gm_item(&batch.m, &item, i);
                for (n = 0; n < 1; ++n)
                    for (y = 0; y < h; ++y)
                        for (x = 0; x < w; ++x)
                            for (c = 0; c < cases[k].ch; ++c)
                                bad += memcmp(at(&item, 0, y, x, c), at(&one[i].m, 0, y, x, c),
                                              gm_dtype_size(cases[k].D)) != 0;
            }
            /* and one value by hand: (src[c'] - mean[c]) * (sf / std[c]) */
            if (cases[k].D == GM_F32 && cases[k].ch >= 3) {
                int cc = cases[k].swap ? 2 : 0;
                double v = load(GM_U8, at(&im[2].m, 0, h - 1, w - 1, cc));
                float want = fmaf((float)v + (float)(cases[k].use_mean ? -mean[0] : 0.0),
                                  (float)(cases[k].use_std ? sf / std[0] : sf), 0.0f);
                gm_item(&batch.m, &item, 2);
                CHECK(load(GM_F32, at(&item, 0, h - 1, w - 1, 0)) == (double)want,
                      "blob value: got %.9g want %.9g", load(GM_F32, at(&item, 0, h - 1, w - 1, 0)), (double)want);
            }
            CHECK(bad == 0 && pimg_outside_changed(&batch) == 0,
                  "blob_from_images (x%d %s %s swap %d) %lldx%lld: %lld values differ from blob_from_image, %lld "
                  "bytes outside",
                  cases[k].ch, gm_dtype_name(cases[k].D), lay_name(cases[k].L), cases[k].swap, (long long)w,
                  (long long)h, (long long)bad, (long long)pimg_outside_changed(&batch));
            for (i = 0; i < 3; ++i) {
                pimg_free(&im[i]);
                pimg_free(&one[i]);
            }
            pimg_free(&batch);
        }
}

/* ------------------------------------------------- (6b) blob arithmetic */

/* blobFromImage's arithmetic on one value x, as gpumat/prep.h describes
 * each form: the difference in float, then the product in float (FLOAT),
 * in double rounded to float (DOUBLE), or the float quotient (DIVIDE); and
 * gm_blob_from_image's std, a float product by (float)(scale / std), scale
 * its scalefactor. */
enum { BLOB_FLOAT, BLOB_DOUBLE, BLOB_DIVIDE, BLOB_STD };

static float ref_blob(int form, float x, double mean, double scale, double std)
{
    const float t = x - (float)mean;
    switch (form) {
    case BLOB_DOUBLE: return (float)((double)t * scale);
    case BLOB_DIVIDE: return t / (float)scale;
    case BLOB_STD: return t * (float)(scale / std);
    default: return t * (float)scale;
    }
}

/* A 16x16 image of S with ch channels: random, and for u8 every value in
 * each channel (a permutation of 0..255). */
static void blob_arith_image(pimg* im, gm_dtype S, int ch)
{
    int c, i, j;
    pimg_make(im, 16, 16, S, ch, GM_HWC, 1, -1, 0);
    pimg_fill(im);
    for (c = 0; c < ch && S == GM_U8; ++c)
        for (i = 0; i < 256; ++i) {
            j = (int)(t_rand() % (uint64_t)(i + 1));
            *at(&im->m, 0, i / 16, i % 16, c) = *at(&im->m, 0, j / 16, j % 16, c);
            *at(&im->m, 0, j / 16, j % 16, c) = (unsigned char)i;
        }
}

/* Elements of blob (f32, image n of it) that differ from ref_blob's form
 * of src's values, with mean, scale (a divisor for DIVIDE; std's
 * scalefactor for STD) and std; *other (if not NULL) counts where the
 * other form (FLOAT for DOUBLE, a division for STD) differs from it. */
static long long blob_arith_bad(const gm_mat* src, const gm_mat* blob, int n, int form, int swap, const double* mean,
                                const double* scale, const double* std, long long* other)
{
    gm_mat item;
    long long bad = 0;
    int64_t y, x;
    int c;
    gm_item(blob, &item, n);
    for (y = 0; y < 16; ++y)
        for (x = 0; x < 16; ++x)
            for (c = 0; c < src->channels; ++c) {
                const float v = (float)load(src->dtype, at(src, 0, y, x, swap && (c == 0 || c == 2) ? 2 - c : c));
                const float want = ref_blob(form, v, mean[c], scale[c], std[c]);
                const float got = (float)load(GM_F32, at(&item, 0, y, x, c));
                const float o = form == BLOB_DOUBLE ? ref_blob(BLOB_FLOAT, v, mean[c], scale[c], 0)
                                                    : ref_blob(BLOB_DIVIDE, v, mean[c], std[c] / scale[c], 0);
                bad += memcmp(&got, &want, 4) != 0;
                if (other)
                    *other += memcmp(&o, &want, 4) != 0;
            }
    return bad;
}

/* One case of test_blob_arith: form on two images of S x ch into f32 of
 * layout lay, one at a time and (but STD) as a batch; case k picks the
 * mean and scale. apart[0] and apart[1] as there. */
static void blob_arith_case(int form, gm_dtype S, int ch, gm_layout lay, int k, long long* apart)
{
    static const char* const names[] = {"float", "double", "divide", "std"};
    const int swap = ch >= 3 && k % 2;
    const double sf = k % 3 == 0 ? 1.0 / 255 : t_uniform(0.2, 3);
    double mean[4], scale[4], std[4];
    gm_blob_params bp;
    pimg im[2], out[2], batch;
    gm_mat images[2];
    long long bad = 0;
    int c, i;
    gm_status s = GM_OK;
    memset(&bp, 0, sizeof bp);
    for (c = 0; c < 4; ++c) {
        mean[c] = k == 1 ? 0.0 : k == 2 ? (double)(int)t_uniform(0, 256) : t_uniform(-20, 280);
        scale[c] = form == BLOB_DIVIDE ? t_uniform(20, 90) : form == BLOB_STD ? sf : 1.0 / t_uniform(20, 90);
        std[c] = t_uniform(20, 90);
        bp.mean[c] = mean[c], bp.scale[c] = scale[c];
    }
    bp.swap_rb = swap;
    bp.divide = form == BLOB_DIVIDE;
    bp.arith = form == BLOB_DOUBLE ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
    for (i = 0; i < 2; ++i) {
        blob_arith_image(&im[i], S, ch);
        images[i] = im[i].m;
        pimg_make(&out[i], 16, 16, GM_F32, ch, lay, 1, -1, 0);
    }
    pimg_make(&batch, 16, 16, GM_F32, ch, lay, 2, -1, 0);
    for (i = 0; i < 2 && s == GM_OK; ++i)
        s = form == BLOB_STD ? gm_blob_from_image(&im[i].m, &out[i].m, sf, mean, std, swap, NULL)
                             : gm_blob_from_image_with_params(&im[i].m, &out[i].m, &bp, NULL);
    if (s == GM_OK && form != BLOB_STD)
        s = gm_blob_from_images_with_params(images, 2, &batch.m, &bp, NULL);
    CHECK(s == GM_OK, "blob %s: %s", names[form], gm_last_error());
    for (i = 0; i < 2 && s == GM_OK; ++i) {
        int compared = form == BLOB_DOUBLE || form == BLOB_STD;
        bad += blob_arith_bad(&im[i].m, &out[i].m, 0, form, swap, mean, scale, std,
                              compared ? &apart[form == BLOB_STD] : NULL);
        if (form != BLOB_STD)
            bad += blob_arith_bad(&im[i].m, &batch.m, i, form, swap, mean, scale, std, NULL);
    }
    CHECK(bad == 0, "blob %s %s x%d -> f32 %s swap %d mean %g scale %g: %lld elements differ from blobFromImage's "
          "arithmetic", names[form], gm_dtype_name(S), ch, lay_name(lay), swap, mean[0], scale[0], bad);
    for (i = 0; i < 2; ++i)
        pimg_free(&im[i]), pimg_free(&out[i]);
    pimg_free(&batch);
}

/* Each form over every u8 value and over random f32 values, random means
 * and scales, 1, 3 and 4 channels, swap_rb, NCHW and NHWC, against
 * ref_blob bit for bit; a batch of two equals its images one at a time.
 * The float and double forms must differ somewhere, and so must
 * gm_blob_from_image's std from a division (the README says which
 * divides). */
static void test_blob_arith(void)
{
    static const int channels[] = {1, 3, 4};
    static const gm_dtype srcs[] = {GM_U8, GM_F32};
    long long apart[2] = {0, 0}, cases = 0;
    int form, si, ci, lay, k;
    for (form = BLOB_FLOAT; form <= BLOB_STD; ++form)
        for (si = 0; si < 2; ++si)
            for (ci = 0; ci < 3; ++ci)
                for (lay = 0; lay < 2; ++lay)
                    for (k = 0; k < 6; ++k, ++cases)
                        blob_arith_case(form, srcs[si], channels[ci], (gm_layout)lay, k, apart);
    CHECK(apart[0] > 0, "GM_BLOB_DOUBLE never differed from GM_BLOB_FLOAT in %lld cases", cases);
    CHECK(apart[1] > 0, "gm_blob_from_image's std never differed from a division in %lld cases", cases);
    printf("cpu: blob arithmetic, %lld cases: double differs from float in %lld elements, gm_blob_from_image's "
           "std from a division in %lld\n", cases, apart[0], apart[1]);
}

/* The CPU path's gm_set_threads and gm_threads. */
static void test_thread_setting(void)
{
    CHECK(gm_set_threads(-1) == GM_ERR_ARG && strstr(gm_last_error(), "gm_set_threads: n is -1"),
          "gm_set_threads(-1): %s", gm_last_error());
    CHECK(gm_set_threads(3) == GM_OK && gm_threads() == 3, "gm_set_threads(3): gm_threads() %d", gm_threads());
    CHECK(gm_set_threads(1) == GM_OK && gm_threads() == 1, "gm_set_threads(1): gm_threads() %d", gm_threads());
    CHECK(gm_set_threads(0) == GM_OK && gm_threads() >= 1, "gm_set_threads(0): gm_threads() %d", gm_threads());
}

/* The CPU path's YUV row loops, byte for byte the kernels' pixel
 * functions over whole buffers (padding included): gm_yuv_convert of
 * 8-bit frames (gm__yuv_pixel) and of P016 into u8, u16 and f32
 * (gm__yuv16_pixel), gm_yuv_from_image (gm__yuv_from_block); every format,
 * gray, BGR(A) and RGB(A) interleaved and planar, widths short of and
 * across several of the loops' runs, every matrix and range, wider rows
 * and more coded rows. */
static void test_yuv_rows(void)
{
    static const gm_dtype p016_dtypes[3] = {GM_U8, GM_U16, GM_F32};
    static const int channel_counts[3] = {1, 3, 4};
    static const char* const format_names[5] = {"NV12", "NV21", "I420", "YV12", "P016"};
    int round, k;
    for (round = 0; round < 96; ++round) {
        const int job = round % 3; /* 0 8-bit into the image, 1 from it, 2 P016 into it */
        const gm_yuv_format format = job == 2 ? GM_YUV_P016 : (gm_yuv_format)(round / 3 % 4);
        const gm_dtype dtype = job == 2 ? p016_dtypes[rnd(0, 2)] : GM_U8;
        const int channels = job == 1 ? 3 + rnd(0, 1) : channel_counts[rnd(0, 2)], rgb = rnd(0, 1);
        const gm_layout layout = channels > 1 && rnd(0, 1) ? GM_CHW : GM_HWC;
        const int64_t sample = job == 2 ? 2 : 1, e = (int64_t)gm_dtype_size(dtype);
        const int64_t w = 2 * rnd(1, 200), h = 2 * rnd(1, 4), pitch = (w + 2 * rnd(0, 3)) * sample, coded = h + 2;
        const int64_t frame_bytes = pitch * coded * 3 / 2, image_pitch = w * e * (layout == GM_HWC ? channels : 1) +
                                                                       rnd(0, 7) * e;
        const int64_t image_bytes = image_pitch * h * (layout == GM_CHW ? channels : 1);
        unsigned char *frame[2], *image[2];
        gm_yuv f[2];
        gm_mat m[2];
        gm__yuv_args a;
        int64_t i, x, y, bytes = job == 1 ? frame_bytes : image_bytes;
        int ok = 1;
        for (k = 0; k < 2; ++k) {
            frame[k] = (unsigned char*)malloc((size_t)frame_bytes), image[k] = (unsigned char*)malloc((size_t)image_bytes);
            ok = ok && frame[k] && image[k];
        }
        for (i = 0; ok && i < frame_bytes; ++i)
            frame[0][i] = frame[1][i] = (unsigned char)(t_rand() >> 8);
        for (i = 0; ok && i < image_bytes; ++i)
            image[0][i] = image[1][i] = (unsigned char)(t_rand() >> 8);
        for (k = 0; ok && k < 2; ++k)
            ok = gm_yuv_wrap(&f[k], format, frame[k], w, h, pitch, coded, GM_HOST) == GM_OK &&
                 gm_wrap(&m[k], image[k], w, h, dtype, channels, layout, image_pitch, GM_HOST) == GM_OK;
        CHECK(ok, "yuv rows setup: %s", gm_last_error());
        if (!ok)
            break;
        f[0].matrix = f[1].matrix = (gm_yuv_matrix)rnd(0, 2), f[0].range = f[1].range = (gm_yuv_range)rnd(0, 1);
        CHECK((job == 1 ? gm_yuv_from_image(&m[0], &f[0], rgb, NULL) : gm_yuv_convert(&f[0], &m[0], rgb, NULL)) ==
                  GM_OK, "yuv rows: %s", gm_last_error());
        gm__yuv_args_of(&a, &f[1], &m[1], rgb);
        for (y = 0; y < h; y += 1 + (job == 1))
            for (x = 0; x < w; x += 1 + (job == 1))
                if (job == 0)
                    gm__yuv_pixel(&a, 0, x, y);
                else if (job == 1)
                    gm__yuv_from_block(&a, 0, x, y);
                else
                    gm__yuv16_pixel((int)dtype, &a, 0, x, y);
        for (i = 0; i < bytes && (job == 1 ? frame : image)[0][i] == (job == 1 ? frame : image)[1][i]; ++i)
            ;
        CHECK(i == bytes, "yuv rows: %s %s %s x%d %s rgb %d %lldx%lld matrix %d range %d: byte %lld differs from "
              "the kernels' pixel function's", job == 1 ? "image into" : "into", format_names[format],
              gm_dtype_name(dtype), channels, layout == GM_CHW ? "CHW" : "HWC", rgb, (long long)w, (long long)h,
              (int)f[0].matrix, (int)f[0].range, (long long)i);
        for (k = 0; k < 2; ++k)
            free(frame[k]), free(image[k]);
    }
}

/* One sprite pixel over one frame pixel, as gpumat/draw.h states it. */
static void ref_over(unsigned char* d, int channels, const unsigned char* p, const gm_sprite* s, int rgb, int over)
{
    int mask = s->kind == GM_SPRITE_MASK, i;
    long long a = mask ? ((long long)p[0] * s->color[3] + 127) / 255 : p[3];
    for (i = 0; i < 3; ++i) {
        int from = rgb ? i : 2 - i; /* the sprite's channel that lands on frame channel i */
        long long v = mask ? s->color[from] : p[from], keep = (long long)d[i] * (255 - a), out;
        out = s->kind == GM_SPRITE_PREMUL ? v + (keep + 127) / 255 : (v * a + keep + 127) / 255;
        d[i] = (unsigned char)(out > 255 ? 255 : out);
    }
    if (channels == 4 && over)
        d[3] = (unsigned char)(a + ((long long)d[3] * (255 - a) + 127) / 255);
}

/* gm_overlay_draw on the CPU against ref_over, over the whole parent of the
 * frame (writes outside the frame view caught): frames of 3 and 4
 * channels in both orders, alpha kept or composed, 30 random sprites a
 * frame (sprites.h). */
static void test_overlay(void)
{
    enum { N = 30 };
    gm_overlay* ov = NULL;
    int round, i;
    CHECK(gm_overlay_create(&ov) == GM_OK, "gm_overlay_create: %s", gm_last_error());
    for (round = 0; round < 16; ++round) {
        int channels = 3 + round % 2;
        gm_overlay_params p = {(round >> 1) & 1, (round >> 2) & 1};
        gm_sprite s[N];
        gm_mat parent, frame;
        int64_t w = 1 + (int64_t)(t_rand() % 300), h = 1 + (int64_t)(t_rand() % 60), x, y, n;
        unsigned char* expect;
        if (!random_sprites(s, N, w, h) ||
            gm_alloc_host(&parent, w + 5, h + 3, GM_U8, channels, GM_HWC, 0) != GM_OK ||
            gm_roi(&parent, &frame, 2, 1, w, h) != GM_OK) {
            CHECK(0, "overlay setup: %s", gm_last_error());
            return;
        }
        n = gm_span_bytes(&parent);
        for (x = 0; x < n; ++x)
            ((unsigned char*)parent.data)[x] = (unsigned char)(t_rand() >> 8);
        expect = (unsigned char*)malloc((size_t)n);
        memcpy(expect, parent.data, (size_t)n);
        for (i = 0; i < N; ++i)
            for (y = 0; y < s[i].image.height; ++y)
                for (x = 0; x < s[i].image.width; ++x) {
                    int64_t fx = s[i].x + x, fy = s[i].y + y;
                    if (fx >= 0 && fx < w && fy >= 0 && fy < h)
                        ref_over(expect + (fy + 1) * parent.pitch + (fx + 2) * channels, channels,
                                 (const unsigned char*)s[i].image.data + y * s[i].image.pitch +
                                     x * s[i].image.channels,
                                 &s[i], p.rgb, p.alpha_over);
                }
        CHECK(gm_overlay_draw(ov, &frame, s, N, &p, NULL) == GM_OK, "gm_overlay_draw: %s", gm_last_error());
        for (x = 0; x < n && expect[x] == ((unsigned char*)parent.data)[x]; ++x)
            ;
        CHECK(x == n, "overlay %lldx%lld x%d rgb %d over %d: byte %lld of the parent differs from the reference",
              (long long)w, (long long)h, channels, p.rgb, p.alpha_over, (long long)x);
        free(expect);
        gm_free(&parent);
        for (i = 0; i < N; ++i)
            gm_free(&s[i].image);
    }
    gm_overlay_destroy(ov);
}

/* (a + 2^19) >> 20 rounded as the library's arithmetic shift rounds, down
 * (C's division truncates toward zero). */
static long long q20(long long a)
{
    a += 1 << 19;
    return a >= 0 ? a / 1048576 : -((-a + 1048575) / 1048576);
}

/* A sprite pixel's weight on a plane of a 4:2:0 frame, as gpumat/draw.h
 * states it: f the plane's forward constants (R, G, B), o its offset. */
static long long ref_weight(const int* f, int o, int premul, const long long* rgba)
{
    const long long lin = q20(f[0] * rgba[0] + f[1] * rgba[1] + f[2] * rgba[2]);
    const long long sample = lin + o < 0 ? 0 : lin + o > 255 ? 255 : lin + o;
    return premul ? 255 * lin + o * rgba[3] : sample * rgba[3];
}

/* Sprite s over the 4:2:0 frame whose sample of plane k (0 luma, 1 U, 2
 * V) of pixel (x, y) lies at at(k, x, y), of matrix m and range r; the
 * pixels it covers in order, then each chroma pair from the sums of its
 * block's pixels. */
typedef unsigned char* (*yuv_at)(void* ctx, int k, int64_t x, int64_t y);
static void ref_over_yuv(const gm_sprite* s, int64_t w, int64_t h, int m, int r, yuv_at at, void* ctx)
{
    const int* g = gm__yuv_forward[m][r];
    const int fy[3] = {g[0], g[1], g[2]}, fu[3] = {g[3], g[4], g[5]}, fv[3] = {g[5], g[6], g[7]};
    const int premul = s->kind == GM_SPRITE_PREMUL, yoff = r ? 0 : 16;
    int64_t x, y, bx, by;
    int c;
    for (by = 0; by < h; by += 2)
        for (bx = 0; bx < w; bx += 2) {
            long long wu = 0, wv = 0, alphas = 0, n;
            int covered = 0;
            for (y = by; y < by + 2; ++y)
                for (x = bx; x < bx + 2; ++x) {
                    const int64_t sx = x - s->x, sy = y - s->y;
                    const unsigned char* p;
                    unsigned char* d = at(ctx, 0, x, y);
                    long long rgba[4];
                    if (sx < 0 || sy < 0 || sx >= s->image.width || sy >= s->image.height)
                        continue;
                    covered = 1;
                    p = (const unsigned char*)s->image.data + sy * s->image.pitch + sx * s->image.channels;
                    for (c = 0; c < 4; ++c)
                        rgba[c] = s->kind == GM_SPRITE_MASK ? s->color[c] : p[c];
                    if (s->kind == GM_SPRITE_MASK)
                        rgba[3] = ((long long)p[0] * s->color[3] + 127) / 255;
                    n = (ref_weight(fy, yoff, premul, rgba) + *d * (255 - rgba[3]) + 127) / 255;
                    *d = (unsigned char)(n > 255 ? 255 : n);
                    wu += ref_weight(fu, 128, premul, rgba);
                    wv += ref_weight(fv, 128, premul, rgba);
                    alphas += rgba[3];
                }
            if (!covered)
                continue;
            for (c = 1; c < 3; ++c) {
                unsigned char* d = at(ctx, c, bx, by);
                n = (c == 1 ? wu : wv) + *d * (1020 - alphas) + 510;
                *d = (unsigned char)(n < 0 ? 0 : n / 1020 > 255 ? 255 : n / 1020);
            }
        }
}

/* A frame of format f in one buffer: pitch bytes a luma row, coded rows. */
typedef struct yuv_buf {
    unsigned char* data;
    int format;
    int64_t pitch, coded, x0, y0; /* the view's origin in the buffer */
} yuv_buf;

static unsigned char* yuv_buf_at(void* ctx, int k, int64_t x, int64_t y)
{
    const yuv_buf* b = (const yuv_buf*)ctx;
    const int64_t fx = b->x0 + x, fy = b->y0 + y, luma = b->pitch * b->coded;
    const int nv = b->format == GM_YUV_NV12 || b->format == GM_YUV_NV21;
    int first;
    if (k == 0)
        return b->data + fy * b->pitch + fx;
    if (nv)
        return b->data + luma + fy / 2 * b->pitch + fx / 2 * 2 + ((k == 2) != (b->format == GM_YUV_NV21));
    first = (k == 1) == (b->format == GM_YUV_I420); /* the plane right after the luma */
    return b->data + luma + (first ? 0 : b->pitch / 2 * (b->coded / 2)) + fy / 2 * (b->pitch / 2) + fx / 2;
}

/* gm_overlay_draw_yuv on the CPU against ref_over_yuv, over the whole
 * buffer of the frame (writes outside the view caught): every 8-bit
 * format, matrix and range, 30 random sprites a frame (sprites.h), a
 * frame with wider rows and more coded rows, a third of the rounds a view
 * at an even offset inside it. Then an opaque mask over whole blocks is its
 * colour as gm_yuv_from_image stores it. */
static void test_overlay_yuv(void)
{
    enum { N = 30 };
    gm_overlay* ov = NULL;
    int round, i;
    CHECK(gm_overlay_create(&ov) == GM_OK, "gm_overlay_create: %s", gm_last_error());
    for (round = 0; round < 24; ++round) {
        const int format = round % 4, m = (round / 4) % 3, r = (round / 12) % 2, inner = round % 3 == 0;
        const int64_t w = 2 * (int64_t)(1 + t_rand() % 150), h = 2 * (int64_t)(1 + t_rand() % 30);
        const int64_t pitch = w + 4 + 2 * inner * 4, coded = h + 2 + 2 * inner * 2, bytes = pitch * coded * 3 / 2;
        gm_sprite s[N];
        gm_yuv whole, frame;
        yuv_buf want, got;
        int64_t x;
        want.data = (unsigned char*)malloc((size_t)bytes);
        got.data = (unsigned char*)malloc((size_t)bytes);
        if (!want.data || !got.data || !random_sprites(s, N, w, h) ||
            gm_yuv_wrap(&whole, (gm_yuv_format)format, got.data, w + 4 * inner, h + 2 * inner, pitch, coded,
                        GM_HOST) != GM_OK ||
            gm_yuv_roi(&whole, &frame, 4 * inner, 2 * inner, w, h) != GM_OK) {
            CHECK(0, "overlay yuv setup: %s", gm_last_error());
            return;
        }
        frame.matrix = (gm_yuv_matrix)m, frame.range = (gm_yuv_range)r;
        for (x = 0; x < bytes; ++x)
            got.data[x] = want.data[x] = (unsigned char)(t_rand() >> 8);
        want.format = got.format = format;
        want.pitch = pitch, want.coded = coded, want.x0 = 4 * inner, want.y0 = 2 * inner;
        for (i = 0; i < N; ++i)
            ref_over_yuv(&s[i], w, h, m, r, yuv_buf_at, &want);
        CHECK(gm_overlay_draw_yuv(ov, &frame, s, N, NULL) == GM_OK, "gm_overlay_draw_yuv: %s", gm_last_error());
        for (x = 0; x < bytes && want.data[x] == got.data[x]; ++x)
            ;
        CHECK(x == bytes, "overlay yuv format %d matrix %d range %d %lldx%lld%s: byte %lld of the buffer differs "
              "from the reference", format, m, r, (long long)w, (long long)h, inner ? " (a view)" : "", (long long)x);
        free(want.data);
        free(got.data);
        for (i = 0; i < N; ++i)
            gm_free(&s[i].image);
    }
    {
        enum { W = 12, H = 6 };
        unsigned char frame_bytes[W * H * 3 / 2], painted[W * H * 3 / 2], mask[W * H], rgb[W * H * 3];
        gm_yuv f, from;
        gm_mat image;
        gm_sprite sp;
        memset(&sp, 0, sizeof sp);
        for (round = 0; round < 24; ++round) {
            memset(mask, 255, sizeof mask);
            for (i = 0; i < W * H * 3 / 2; ++i)
                frame_bytes[i] = (unsigned char)(t_rand() >> 8);
            for (i = 0; i < 3; ++i)
                sp.color[i] = (unsigned char)(t_rand() >> 8);
            sp.color[3] = 255;
            sp.kind = GM_SPRITE_MASK;
            for (i = 0; i < W * H * 3; ++i)
                rgb[i] = sp.color[i % 3];
            if (gm_yuv_wrap(&f, (gm_yuv_format)(round % 4), frame_bytes, W, H, 0, 0, GM_HOST) != GM_OK ||
                gm_yuv_wrap(&from, (gm_yuv_format)(round % 4), painted, W, H, 0, 0, GM_HOST) != GM_OK ||
                gm_wrap(&sp.image, mask, W, H, GM_U8, 1, GM_HWC, 0, GM_HOST) != GM_OK ||
                gm_wrap(&image, rgb, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST) != GM_OK) {
                CHECK(0, "overlay yuv setup: %s", gm_last_error());
                return;
            }
            f.matrix = from.matrix = (gm_yuv_matrix)(round / 8);
            f.range = from.range = (gm_yuv_range)((round / 4) % 2);
            CHECK(gm_overlay_draw_yuv(ov, &f, &sp, 1, NULL) == GM_OK && gm_yuv_from_image(&image, &from, 1, NULL) == GM_OK,
                  "overlay yuv of an opaque mask: %s", gm_last_error());
            CHECK(!memcmp(frame_bytes, painted, sizeof painted),
                  "an opaque mask over a format %d frame is not its colour as gm_yuv_from_image stores it", round % 4);
        }
    }
    gm_overlay_destroy(ov);
}

/* The real coefficients CY, CVR, CVG, CUG, CUB of matrix m and range r:
 * for BT.601 limited OpenCV's 3-decimal ones where opencv is set, else
 * the definitions from Kr and Kb. */
static void yuv_reals(int m, int r, int opencv, double c[5])
{
    static const double kr[3] = {0.299, 0.2126, 0.2627}, kb[3] = {0.114, 0.0722, 0.0593};
    static const double opencv601[5] = {1.164, 1.596, -0.813, -0.391, 2.018};
    const double kg = 1 - kr[m] - kb[m], cs = r ? 1 : 255.0 / 224;
    int i;
    c[0] = r ? 1 : 255.0 / 219;
    c[1] = 2 * (1 - kr[m]) * cs, c[2] = -2 * kr[m] * (1 - kr[m]) / kg * cs;
    c[3] = -2 * kb[m] * (1 - kb[m]) / kg * cs, c[4] = 2 * (1 - kb[m]) * cs;
    for (i = 0; opencv && m == 0 && r == 0 && i < 5; ++i)
        c[i] = opencv601[i];
}

/* The YUV constants (impl/yuv.h) derived again: BT.601 limited is OpenCV's
 * 3-decimal coefficients in 20 bits; the others round(c 2^20) of the
 * definitions from Kr and Kb. Then each (matrix, range) pair's conversion
 * of random NV12 frames within 1 of the float64 formula (luma below black
 * taken as black). */
static void test_yuv_matrices(void)
{
    int m, r, i;
    for (m = 0; m < 3; ++m)
        for (r = 0; r < 2; ++r) {
            double c[5], want[5];
            const int w = 2 + 2 * (int)(t_rand() % 40), h = 2 + 2 * (int)(t_rand() % 30);
            unsigned char* frame = (unsigned char*)malloc((size_t)w * h * 3 / 2);
            unsigned char* out = (unsigned char*)malloc((size_t)w * h * 3);
            gm_yuv f;
            gm_mat d;
            int x, y, worst = 0;
            yuv_reals(m, r, 0, c);
            yuv_reals(m, r, 1, want);
            for (i = 0; i < 5; ++i)
                CHECK(gm__yuv_constants[m][r][i] == (int)floor(want[i] * 1048576 + 0.5),
                      "yuv constant %d of matrix %d range %d is %d, not round(%.9f * 2^20)", i, m, r,
                      gm__yuv_constants[m][r][i], want[i]);
            for (i = 0; i < w * h * 3 / 2; ++i)
                frame[i] = (unsigned char)(t_rand() >> 8);
            if (gm_yuv_wrap(&f, GM_YUV_NV12, frame, w, h, 0, 0, GM_HOST) != GM_OK ||
                gm_wrap(&d, out, w, h, GM_U8, 3, GM_HWC, 0, GM_HOST) != GM_OK) {
                CHECK(0, "yuv setup: %s", gm_last_error());
                free(frame);
                free(out);
                return;
            }
            f.matrix = (gm_yuv_matrix)m, f.range = (gm_yuv_range)r;
            CHECK(gm_yuv_convert(&f, &d, 1, NULL) == GM_OK, "gm_yuv_convert: %s", gm_last_error());
            for (y = 0; y < h; ++y)
                for (x = 0; x < w; ++x) {
                    const unsigned char* uv = frame + w * h + (y / 2) * w + (x / 2) * 2;
                    const int luma = frame[y * w + x] - (r ? 0 : 16); /* below 16 is black, as OpenCV has it */
                    const double l = c[0] * (luma > 0 ? luma : 0), u = uv[0] - 128.0, v = uv[1] - 128.0;
                    const double rgb[3] = {l + c[1] * v, l + c[2] * v + c[3] * u, l + c[4] * u};
                    for (i = 0; i < 3; ++i) {
                        const double e = rgb[i] < 0 ? 0 : rgb[i] > 255 ? 255 : floor(rgb[i] + 0.5);
                        const int diff = abs(out[(y * w + x) * 3 + i] - (int)e);
                        worst = diff > worst ? diff : worst;
                    }
                }
            CHECK(worst <= 1, "yuv matrix %d range %d %dx%d: %d from the float64 formula", m, r, w, h, worst);
            free(frame);
            free(out);
        }
}

/* The float64 formula for channel i (R, G, B) of a pixel of luma l (black
 * taken off, below it taken as black) and chroma u, v (centred), by the
 * real coefficients c. */
static double yuv_formula(const double c[5], int i, double l, double u, double v)
{
    l = c[0] * (l > 0 ? l : 0);
    return i == 0 ? l + c[1] * v : i == 1 ? l + c[2] * v + c[3] * u : l + c[4] * u;
}

/* |got - round(want)| with want saturated to [0, top]. */
static int yuv_off(int got, double want, int top)
{
    const double e = want < 0 ? 0 : want > top ? top : floor(want + 0.5);
    return abs(got - (int)e);
}

/* P016 frames for every matrix and range, a pitch wider than the row and
 * the chroma after a taller coded height: 8-bit samples shifted up by 8
 * give the NV12 frame's u8 BGR, BGRA and gray bit for bit; random 16-bit
 * samples give RGB within 1 of the float64 formula (the constants' real
 * values at the samples' scale) in u16 and at 1/256 of it in u8, f32
 * within 1 / 65535 of it over 65535 and within 2^-23 of the fixed-point
 * value (the 20-bit constants) over 65535, with alpha 1.0, planar u16 as
 * interleaved, and gray the luma so scaled (u8 rounding halves up; f32,
 * a product by a rounded 1 / 65535, within 2 ulps of 1). */
static void test_yuv16(void)
{
    int m, r;
    for (m = 0; m < 3; ++m)
        for (r = 0; r < 2; ++r) {
            const int w = 2 + 2 * (int)(t_rand() % 40), h = 2 + 2 * (int)(t_rand() % 30);
            const int row = w + 2 * (int)(t_rand() % 8), coded = h + 2 * (int)(t_rand() % 4); /* row: samples */
            const size_t n = (size_t)w * h;
            unsigned short* frame = (unsigned short*)malloc((size_t)row * coded * 3);
            unsigned short* u16 = (unsigned short*)malloc(n * 6);
            unsigned short* planar = (unsigned short*)malloc(n * 6);
            unsigned char* frame8 = (unsigned char*)malloc(n * 3 / 2);
            unsigned char* got = (unsigned char*)malloc(n * 4);
            unsigned char* want = (unsigned char*)malloc(n * 4);
            float* f32 = (float*)malloc(n * 16);
            int x, y, i, k, worst[3] = {0, 0, 0}, same = 1, fixed = 1;
            double c[5], q[5];
            gm_yuv f, f8;
            gm_mat d, d8;
            yuv_reals(m, r, 1, c);
            for (i = 0; i < 5; ++i)
                q[i] = gm__yuv_constants[m][r][i] / 1048576.0;
            for (i = 0; i < (int)(n * 3 / 2); ++i)
                frame8[i] = (unsigned char)(t_rand() >> 8);
            for (i = 0; i < row * coded * 3 / 2; ++i)
                frame[i] = (unsigned short)(t_rand() >> 8);
            for (y = 0; y < h; ++y)
                for (x = 0; x < w; ++x)
                    frame[y * row + x] = (unsigned short)(frame8[y * w + x] << 8);
            for (y = 0; y < h / 2; ++y)
                for (x = 0; x < w; ++x)
                    frame[(coded + y) * row + x] = (unsigned short)(frame8[(h + y) * w + x] << 8);
            if (gm_yuv_wrap(&f, GM_YUV_P016, frame, w, h, 2 * row, coded, GM_HOST) != GM_OK ||
                gm_yuv_wrap(&f8, GM_YUV_NV12, frame8, w, h, 0, 0, GM_HOST) != GM_OK) {
                CHECK(0, "P016 setup: %s", gm_last_error());
                break;
            }
            f.matrix = f8.matrix = (gm_yuv_matrix)m, f.range = f8.range = (gm_yuv_range)r;
            for (k = 1; k <= 4; k += k == 1 ? 2 : 1) {
                gm_wrap(&d, got, w, h, GM_U8, k, GM_HWC, 0, GM_HOST);
                gm_wrap(&d8, want, w, h, GM_U8, k, GM_HWC, 0, GM_HOST);
                CHECK(gm_yuv_convert(&f, &d, 0, NULL) == GM_OK && gm_yuv_convert(&f8, &d8, 0, NULL) == GM_OK,
                      "P016 of 8-bit samples: %s", gm_last_error());
                CHECK(memcmp(got, want, n * k) == 0, "P016 of 8-bit samples << 8, matrix %d range %d, %d channels: "
                      "not the NV12 frame's u8", m, r, k);
            }
            for (y = 0; y < h; ++y) /* now random 16-bit samples everywhere */
                for (x = 0; x < w; ++x)
                    frame[y * row + x] = (unsigned short)(t_rand() >> 8);
            for (y = 0; y < h / 2; ++y)
                for (x = 0; x < w; ++x)
                    frame[(coded + y) * row + x] = (unsigned short)(t_rand() >> 8);
            gm_wrap(&d, u16, w, h, GM_U16, 3, GM_HWC, 0, GM_HOST);
            CHECK(gm_yuv_convert(&f, &d, 1, NULL) == GM_OK, "P016 to u16: %s", gm_last_error());
            gm_wrap(&d, planar, w, h, GM_U16, 3, GM_CHW, 0, GM_HOST);
            CHECK(gm_yuv_convert(&f, &d, 1, NULL) == GM_OK, "P016 to planar u16: %s", gm_last_error());
            gm_wrap(&d, got, w, h, GM_U8, 3, GM_HWC, 0, GM_HOST);
            CHECK(gm_yuv_convert(&f, &d, 1, NULL) == GM_OK, "P016 to u8: %s", gm_last_error());
            gm_wrap(&d, f32, w, h, GM_F32, 4, GM_HWC, 0, GM_HOST);
            CHECK(gm_yuv_convert(&f, &d, 1, NULL) == GM_OK, "P016 to f32: %s", gm_last_error());
            for (y = 0; y < h; ++y)
                for (x = 0; x < w; ++x) {
                    const unsigned short* uv = frame + (coded + y / 2) * row + (x / 2) * 2;
                    const double l = frame[y * row + x] - (r ? 0 : 4096), u = uv[0] - 32768.0, v = uv[1] - 32768.0;
                    const size_t p = (size_t)y * w + x;
                    for (i = 0; i < 3; ++i) {
                        const double e = yuv_formula(c, i, l, u, v), fe = (e < 0 ? 0 : e > 65535 ? 65535 : e) / 65535;
                        const double t = yuv_formula(q, i, l, u, v) / 65535; /* the fixed-point value */
                        fixed &= fabs(f32[4 * p + i] - (t < 0 ? 0 : t > 1 ? 1 : t)) <= 0x1p-23;
                        const int off[3] = {yuv_off(u16[3 * p + i], e, 65535), yuv_off(got[3 * p + i], e / 256, 255),
                                            fabs(f32[4 * p + i] - fe) * 65535 > 1 ? 2 : 0};
                        for (k = 0; k < 3; ++k)
                            worst[k] = off[k] > worst[k] ? off[k] : worst[k];
                        same &= planar[i * n + p] == u16[3 * p + i];
                    }
                    same &= f32[4 * p + 3] == 1.0f;
                }
            CHECK(worst[0] <= 1 && worst[1] <= 1 && worst[2] <= 1, "P016 matrix %d range %d %dx%d: u16 %d, u8 %d, "
                  "f32 %s from the float64 formula", m, r, w, h, worst[0], worst[1], worst[2] ? "over 1/65535" : "ok");
            CHECK(same, "P016 matrix %d range %d: planar u16 differs from interleaved, or f32 alpha is not 1", m, r);
            CHECK(fixed, "P016 matrix %d range %d: f32 further than 2^-23 from its fixed-point value over 65535", m, r);
            gm_wrap(&d, u16, w, h, GM_U16, 1, GM_HWC, 0, GM_HOST);
            gm_wrap(&d8, got, w, h, GM_U8, 1, GM_HWC, 0, GM_HOST);
            CHECK(gm_yuv_convert(&f, &d, 0, NULL) == GM_OK && gm_yuv_convert(&f, &d8, 0, NULL) == GM_OK,
                  "P016 to gray: %s", gm_last_error());
            gm_wrap(&d, f32, w, h, GM_F32, 1, GM_HWC, 0, GM_HOST);
            CHECK(gm_yuv_convert(&f, &d, 0, NULL) == GM_OK, "P016 to f32 gray: %s", gm_last_error());
            for (y = 0, same = 1; y < h; ++y)
                for (x = 0; x < w; ++x) {
                    const int luma = frame[y * row + x];
                    same &= u16[y * w + x] == luma && got[y * w + x] == (luma >= 65408 ? 255 : (luma + 128) / 256) &&
                            fabs(f32[y * w + x] - luma / 65535.0) <= 0x1p-23;
                }
            CHECK(same, "P016 matrix %d range %d: gray is not the luma (u16), its nearest u8, or within 2^-23 of it / "
                  "65535 (f32)", m, r);
            free(frame);
            free(u16);
            free(planar);
            free(frame8);
            free(got);
            free(want);
            free(f32);
        }
}

/* gm_yuv_from_image's constants: OpenCV's for BT.601 limited range (the
 * oracle holds the rest of that pair to cvtColor), the others round(c 2^20)
 * of their definitions; and, for every (matrix, range), an RGB image into
 * an I420 frame within 1 of the float64 formula (chroma from each block's
 * top-left pixel). */
static void test_yuv_from_matrices(void)
{
    static const double kr[3] = {0.299, 0.2126, 0.2627}, kb[3] = {0.114, 0.0722, 0.0593};
    static const int opencv601[8] = {269484, 528482, 102760, -155188, -305135, 460324, -385875, -74448};
    enum { W = 26, H = 14 };
    unsigned char rgb[W * H * 3], frame[W * H * 3 / 2];
    int m, r, i, x, y;
    for (m = 0; m < 3; ++m)
        for (r = 0; r < 2; ++r) {
            const double kg = 1 - kr[m] - kb[m], ys = r ? 1 : 219.0 / 255, cs = r ? 1 : 224.0 / 255;
            const double c[8] = {ys * kr[m], ys * kg, ys * kb[m], -cs * kr[m] / (2 * (1 - kb[m])),
                                 -cs * kg / (2 * (1 - kb[m])), cs * 0.5, -cs * kg / (2 * (1 - kr[m])),
                                 -cs * kb[m] / (2 * (1 - kr[m]))};
            gm_yuv f;
            gm_mat src;
            int worst = 0;
            for (i = 0; i < 8; ++i) {
                const int want = m == 0 && r == 0 ? opencv601[i] : (int)floor(c[i] * 1048576 + 0.5);
                CHECK(gm__yuv_forward[m][r][i] == want, "reverse yuv constant %d of matrix %d range %d is %d, not %d",
                      i, m, r, gm__yuv_forward[m][r][i], want);
            }
            for (i = 0; i < W * H * 3; ++i)
                rgb[i] = (unsigned char)(t_rand() >> 8);
            if (gm_yuv_wrap(&f, GM_YUV_I420, frame, W, H, 0, 0, GM_HOST) != GM_OK ||
                gm_wrap(&src, rgb, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST) != GM_OK) {
                CHECK(0, "reverse yuv setup: %s", gm_last_error());
                return;
            }
            f.matrix = (gm_yuv_matrix)m, f.range = (gm_yuv_range)r;
            CHECK(gm_yuv_from_image(&src, &f, 1, NULL) == GM_OK, "gm_yuv_from_image: %s", gm_last_error());
            for (y = 0; y < H; ++y)
                for (x = 0; x < W; ++x) {
                    const unsigned char* p = rgb + (y * W + x) * 3;
                    const double luma = kr[m] * p[0] + kg * p[1] + kb[m] * p[2];
                    double e[3];
                    int got[3], n = 1 + 2 * (x % 2 == 0 && y % 2 == 0);
                    e[0] = (r ? 0 : 16) + ys * luma;
                    e[1] = 128 + cs * (p[2] - luma) / (2 * (1 - kb[m]));
                    e[2] = 128 + cs * (p[0] - luma) / (2 * (1 - kr[m]));
                    got[0] = frame[y * W + x];
                    got[1] = frame[W * H + (y / 2) * (W / 2) + x / 2];
                    got[2] = frame[W * H + (W / 2) * (H / 2) + (y / 2) * (W / 2) + x / 2];
                    for (i = 0; i < n; ++i) {
                        const int want = e[i] < 0 ? 0 : e[i] > 255 ? 255 : (int)floor(e[i] + 0.5);
                        worst = abs(got[i] - want) > worst ? abs(got[i] - want) : worst;
                    }
                }
            CHECK(worst <= 1, "reverse yuv matrix %d range %d: %d from the float64 formula", m, r, worst);
        }
}

/* A batch of I420 frames (planes of their own, padded items) into a planar
 * BGRA batch, item by item equal to converting each item alone into a
 * compact image: the items' strides, which the oracle's single frames never
 * take. */
static void test_yuv_batch(void)
{
    enum { W = 10, H = 6, B = 3 };
    gm_mat plane[3], dst, item_dst, got, want;
    gm_yuv f, item;
    gm_desc d;
    unsigned char got_bytes[4 * W * H], want_bytes[4 * W * H];
    int p, b, same = 1;
    for (p = 0; p < 4; ++p) {
        memset(&d, 0, sizeof d);
        d.width = p == 1 || p == 2 ? W / 2 : W, d.height = p == 1 || p == 2 ? H / 2 : H, d.dtype = GM_U8;
        d.channels = p == 3 ? 4 : 1, d.layout = GM_CHW, d.batch = B;
        d.pitch = d.width + 3 + p, d.plane_pitch = d.pitch * d.height + 2;
        d.batch_pitch = d.plane_pitch * d.channels + 7;
        if (gm_alloc_desc(p == 3 ? &dst : &plane[p], &d, GM_HOST) != GM_OK) {
            CHECK(0, "yuv batch: %s", gm_last_error());
            return;
        }
    }
    for (p = 0; p < 3; ++p)
        for (b = 0; b < (int)gm_span_bytes(&plane[p]); ++b)
            ((unsigned char*)plane[p].data)[b] = (unsigned char)(t_rand() >> 8);
    memset(&f, 0, sizeof f);
    f.format = GM_YUV_I420, f.matrix = GM_YUV_BT709, f.y = plane[0], f.u = plane[1], f.v = plane[2];
    CHECK(gm_yuv_convert(&f, &dst, 0, NULL) == GM_OK, "yuv batch: %s", gm_last_error());
    CHECK(gm_wrap(&got, got_bytes, W, H, GM_U8, 4, GM_CHW, 0, GM_HOST) == GM_OK &&
              gm_wrap(&want, want_bytes, W, H, GM_U8, 4, GM_CHW, 0, GM_HOST) == GM_OK,
          "yuv batch wraps: %s", gm_last_error());
    for (b = 0; b < B; ++b) {
        item = f;
        CHECK(gm_item(&f.y, &item.y, b) == GM_OK && gm_item(&f.u, &item.u, b) == GM_OK &&
                  gm_item(&f.v, &item.v, b) == GM_OK && gm_item(&dst, &item_dst, b) == GM_OK &&
                  gm_copy(&item_dst, &got, NULL) == GM_OK && gm_yuv_convert(&item, &want, 0, NULL) == GM_OK,
              "yuv batch item %d: %s", b, gm_last_error());
        same &= memcmp(got_bytes, want_bytes, sizeof got_bytes) == 0;
    }
    CHECK(same, "a batch of I420 frames differs from its items converted one by one");
    for (p = 0; p < 3; ++p)
        gm_free(&plane[p]);
    gm_free(&dst);
}

/* gm_preprocess_yuv of frames whose planes are malloc'd to their last byte
 * (no row padding after the last row; under test_cpu_asan a read past a
 * plane is a failure), crops on the right and bottom edges, against
 * gm_yuv_convert and gm_preprocess: every format, the interpolations a
 * frame takes, the 2x2 mean (half the size), a 1-pixel crop (LINEAR_EXACT
 * starts before it), crop-centre at 0.5 with an odd side (a cut 2x2 cell). */
static void test_prep_yuv_edges(void)
{
    enum { W = 10, H = 8 };
    static const int cases[][7] = { /* interp, fit, crop x, y, w, h, dst side */
        {GM_PREP_LINEAR, GM_FIT_STRETCH, 3, 1, 7, 7, 5},    {GM_PREP_NEAREST, GM_FIT_LETTERBOX, 1, 3, 9, 5, 7},
        {GM_PREP_LINEAR_EXACT, GM_FIT_STRETCH, 9, 7, 1, 1, 3}, {GM_PREP_LINEAR, GM_FIT_STRETCH, 0, 0, 10, 8, 0},
        {GM_PREP_LINEAR, GM_FIT_CROP_CENTER, 5, 1, 5, 7, 3}, {GM_PREP_LINEAR_EXACT, GM_FIT_LETTERBOX, 2, 2, 8, 6, 11}};
    int format, k, i;
    for (format = GM_YUV_NV12; format <= GM_YUV_YV12; ++format)
        for (k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
            const int planar = format >= GM_YUV_I420, side = cases[k][6];
            const int dw = side ? side : W / 2, dh = side ? side : H / 2;
            unsigned char* y = (unsigned char*)malloc(W * H);
            unsigned char* c0 = (unsigned char*)malloc(planar ? W / 2 * H / 2 : W * H / 2);
            unsigned char* c1 = (unsigned char*)malloc(W / 2 * H / 2);
            float fused[3 * 11 * 11], steps[3 * 11 * 11];
            unsigned char bgr[W * H * 3];
            gm_yuv f;
            gm_mat image, a, b;
            gm_rect crop;
            gm_prep prep;
            gm_status s;
            memset(&f, 0, sizeof f);
            memset(&prep, 0, sizeof prep);
            prep.interp = (gm_prep_interp)cases[k][0], prep.fit = (gm_fit)cases[k][1];
            prep.pad[0] = 3, prep.mean[1] = 20, prep.scale[2] = 0.25;
            crop.x = cases[k][2], crop.y = cases[k][3], crop.width = cases[k][4], crop.height = cases[k][5];
            for (i = 0; i < W * H; ++i)
                y[i] = (unsigned char)(t_rand() >> 8);
            for (i = 0; i < (planar ? W / 2 * H / 2 : W * H / 2); ++i)
                c0[i] = (unsigned char)(t_rand() >> 8);
            for (i = 0; i < W / 2 * H / 2; ++i)
                c1[i] = (unsigned char)(t_rand() >> 8);
            f.format = (gm_yuv_format)format, f.matrix = (gm_yuv_matrix)(k % 3), f.range = (gm_yuv_range)(k % 2);
            s = gm_wrap(&f.y, y, W, H, GM_U8, 1, GM_HWC, 0, GM_HOST);
            if (s == GM_OK)
                s = gm_wrap(&f.u, c0, W / 2, H / 2, GM_U8, planar ? 1 : 2, GM_HWC, 0, GM_HOST);
            if (s == GM_OK && planar)
                s = gm_wrap(&f.v, c1, W / 2, H / 2, GM_U8, 1, GM_HWC, 0, GM_HOST);
            if (s == GM_OK)
                s = gm_wrap(&image, bgr, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST);
            if (s == GM_OK)
                s = gm_wrap(&a, fused, dw, dh, GM_F32, 3, GM_CHW, 0, GM_HOST);
            if (s == GM_OK)
                s = gm_wrap(&b, steps, dw, dh, GM_F32, 3, GM_CHW, 0, GM_HOST);
            memset(fused, 0, sizeof fused);
            memset(steps, 0, sizeof steps);
            if (s == GM_OK)
                s = gm_preprocess_yuv(&f, &crop, &a, &prep, NULL, NULL);
            if (s == GM_OK)
                s = gm_yuv_convert(&f, &image, 0, NULL);
            if (s == GM_OK)
                s = gm_preprocess(&image, &crop, &b, &prep, NULL, NULL);
            CHECK(s == GM_OK && !memcmp(fused, steps, sizeof fused),
                  "gm_preprocess_yuv format %d case %d (exact-size planes, an edge crop): %s", format, k,
                  s == GM_OK ? "differs from gm_yuv_convert + gm_preprocess" : gm_last_error());
            free(y);
            free(c0);
            free(c1);
        }
}

/* gm_preprocess_yuv_batch on the CPU, whose items' crops are converted to
 * BGR rows by the YUV row loops and resampled by the image rows, against
 * each frame by gm_yuv_convert and then gm_preprocess: random frames with
 * foreign pitches, every 8-bit format, matrix and range, odd crops, every
 * interpolation a frame takes (the 2x2 mean at half size), every fit,
 * u8, f16 and f32 in either layout. */
static void test_prep_yuv_rows(void)
{
    static const gm_dtype dtypes[] = {GM_U8, GM_F16, GM_F32};
    int round, i, k;
    for (round = 0; round < 24; ++round) {
        const int W = 2 * (8 + (int)(t_rand() % 40)), H = 2 * (4 + (int)(t_rand() % 30));
        const int format = GM_YUV_NV12 + round % 4, planar = format >= GM_YUV_I420;
        const int pitch = W + (int)(t_rand() % 9), half = round % 6 == 5;
        const gm_dtype dtype = dtypes[round % 3];
        const int dw = half ? 0 : 3 + (int)(t_rand() % 40), dh = half ? 0 : 3 + (int)(t_rand() % 40);
        unsigned char* frame[2];
        unsigned char* bgr = (unsigned char*)malloc((size_t)W * H * 3);
        gm_yuv f[2];
        gm_rect crop[2];
        gm_mat image, fused, steps, one;
        gm_desc d = {0, 0, 3, 2, dtype, (t_rand() & 1) ? GM_CHW : GM_HWC, 0, 0, 0};
        gm_prep prep;
        gm_status s = GM_OK;
        memset(&prep, 0, sizeof prep);
        prep.interp = half ? GM_PREP_LINEAR : (gm_prep_interp)(round / 3 % 3 == 0   ? GM_PREP_NEAREST
                                                               : round / 3 % 3 == 1 ? GM_PREP_LINEAR
                                                                                      : GM_PREP_LINEAR_EXACT);
        prep.fit = half ? GM_FIT_STRETCH : (gm_fit)(round % 3);
        prep.swap_rb = round & 1;
        for (k = 0; k < 3; ++k) {
            prep.pad[k] = (double)(t_rand() % 256);
            prep.mean[k] = dtype == GM_U8 ? 0 : t_uniform(0, 128);
            prep.scale[k] = dtype == GM_U8 ? 0 : t_uniform(0.002, 0.02);
        }
        for (i = 0; i < 2; ++i) {
            const size_t luma = (size_t)pitch * H, chroma = planar ? (size_t)pitch / 2 * H / 2 : (size_t)pitch * H / 2;
            const size_t bytes = luma + chroma + (planar ? chroma : 0);
            size_t j;
            frame[i] = (unsigned char*)malloc(bytes);
            for (j = 0; j < bytes; ++j)
                frame[i][j] = (unsigned char)(t_rand() >> 8);
            memset(&f[i], 0, sizeof f[i]);
            f[i].format = (gm_yuv_format)format;
            f[i].matrix = (gm_yuv_matrix)(t_rand() % 3), f[i].range = (gm_yuv_range)(t_rand() % 2);
            if (i == 1) /* a batch's frames share matrix and range */
                f[1].matrix = f[0].matrix, f[1].range = f[0].range;
            if (s == GM_OK)
                s = gm_wrap(&f[i].y, frame[i], W, H, GM_U8, 1, GM_HWC, pitch, GM_HOST);
            if (s == GM_OK)
                s = gm_wrap(&f[i].u, frame[i] + luma, W / 2, H / 2, GM_U8, planar ? 1 : 2, GM_HWC,
                            planar ? pitch / 2 : pitch, GM_HOST);
            if (s == GM_OK && planar)
                s = gm_wrap(&f[i].v, frame[i] + luma + chroma, W / 2, H / 2, GM_U8, 1, GM_HWC, pitch / 2, GM_HOST);
            crop[i].x = half ? 2 * (int)(t_rand() % (W / 4)) : (int)(t_rand() % (W / 2));
            crop[i].y = half ? 2 * (int)(t_rand() % (H / 4)) : (int)(t_rand() % (H / 2));
            crop[i].width = half ? W / 2 : 1 + (int)(t_rand() % (W - crop[i].x));
            crop[i].height = half ? H / 2 : 1 + (int)(t_rand() % (H - crop[i].y));
        }
        if (half) /* the same size for both items, half the crop: the 2x2 mean */
            crop[1].x = crop[0].x, crop[1].y = crop[0].y;
        d.width = half ? W / 4 : dw, d.height = half ? H / 4 : dh;
        if (s == GM_OK)
            s = gm_alloc_desc(&fused, &d, GM_HOST);
        if (s == GM_OK)
            s = gm_alloc_desc(&steps, &d, GM_HOST);
        if (s == GM_OK) {
            memset(fused.data, 0x5a, (size_t)(fused.batch_pitch * 2));
            memset(steps.data, 0x5a, (size_t)(steps.batch_pitch * 2));
            s = gm_preprocess_yuv_batch(f, crop, 2, &fused, &prep, NULL, NULL);
        }
        for (i = 0; i < 2 && s == GM_OK; ++i) {
            s = gm_wrap(&image, bgr, W, H, GM_U8, 3, GM_HWC, 0, GM_HOST);
            if (s == GM_OK)
                s = gm_yuv_convert(&f[i], &image, 0, NULL);
            if (s == GM_OK)
                s = gm_item(&steps, &one, i);
            if (s == GM_OK)
                s = gm_preprocess(&image, &crop[i], &one, &prep, NULL, NULL);
        }
        CHECK(s == GM_OK && !memcmp(fused.data, steps.data, (size_t)(fused.batch_pitch * 2)),
              "gm_preprocess_yuv_batch round %d (format %d, %dx%d pitch %d, crops %d,%d %dx%d and %d,%d %dx%d, interp "
              "%d, fit %d, %s %s): %s",
              round, format, W, H, pitch, (int)crop[0].x, (int)crop[0].y, (int)crop[0].width, (int)crop[0].height,
              (int)crop[1].x, (int)crop[1].y, (int)crop[1].width, (int)crop[1].height, (int)prep.interp, (int)prep.fit, gm_dtype_name(dtype),
              d.layout == GM_CHW ? "CHW" : "HWC",
              s == GM_OK ? "differs from gm_yuv_convert + gm_preprocess" : gm_last_error());
        if (s == GM_OK)
            gm_free(&fused), gm_free(&steps);
        free(frame[0]), free(frame[1]), free(bgr);
    }
}

/* A random matrix for a warp of a W x H crop into w x h (perspective: 9
 * doubles): a rotation, scale (up and down), shear, reflection and a
 * translation that can put the crop partly or wholly outside. */
static void warp_matrix(int perspective, double W, double H, double w, double h, double* M)
{
    const double a = t_uniform(-3.2, 3.2), s = t_uniform(0.3, 3.0), shear = t_uniform(-0.3, 0.3);
    const double flip = (t_rand() % 5) ? 1.0 : -1.0;
    M[0] = s * cos(a) * flip, M[1] = -s * sin(a) + shear, M[3] = s * sin(a), M[4] = s * cos(a);
    M[2] = w / 2 - (M[0] * W / 2 + M[1] * H / 2) + t_uniform(-0.6, 0.6) * w;
    M[5] = h / 2 - (M[3] * W / 2 + M[4] * H / 2) + t_uniform(-0.6, 0.6) * h;
    if (perspective)
        M[6] = t_uniform(-0.004, 0.004), M[7] = t_uniform(-0.004, 0.004), M[8] = 1.0 + t_uniform(-0.1, 0.1);
}

/* The warp placement (GM_FIT_WARP) of count items into dst (images of
 * srcs[i], or frames where frames is set): gm_preprocess's fused result
 * against its definition, item by item: the warp of the crop (a frame's
 * first converted by gm_yuv_convert) into an image of the source's dtype,
 * twice from two fillings apart in every byte, to find the pixels the
 * border leaves, then the
 * pre-process's stretch of it at its own size, and dst's old values where
 * the warp left them. 1 where they agree bit for bit. */
static int prep_warp_agrees(const gm_mat* srcs, const gm_yuv* frames, const gm_rect* crops, int count, pimg* dst,
                            const gm_prep* p, const char* what)
{
    gm_prep stretch = *p;
    gm_warp_params wp;
    gm_mat fused, one, image;
    pimg warped[2], made;
    unsigned char* bgr = NULL;
    const size_t es = gm_dtype_size(dst->m.dtype);
    int i, k, c, agree = 1;
    int64_t x, y;
    gm_status s;
    memset(&wp, 0, sizeof wp);
    wp.interp = p->interp, wp.border = p->border, wp.inverse = p->inverse;
    stretch.fit = GM_FIT_STRETCH, stretch.warp = NULL, stretch.interp = GM_INTER_LINEAR; /* a copy at one size */
    stretch.perspective = stretch.inverse = 0, stretch.border = GM_BORDER_CONSTANT;
    memcpy(wp.value, p->pad, sizeof wp.value);
    s = frames ? gm_preprocess_yuv_batch(frames, crops, count, &dst->m, p, NULL, NULL)
               : gm_preprocess_batch(srcs, crops, count, &dst->m, p, NULL, NULL);
    if (s != GM_OK) {
        CHECK(0, "%s: %s", what, gm_last_error());
        return 0;
    }
    fused = dst->m;
    for (i = 0; i < count && agree; ++i) {
        gm_mat src = frames ? frames[i].y : srcs[i];
        if (frames) { /* the frame as gm_yuv_convert's BGR image */
            bgr = (unsigned char*)malloc((size_t)(src.width * src.height * 3));
            s = gm_wrap(&image, bgr, src.width, src.height, GM_U8, 3, GM_HWC, 0, GM_HOST);
            if (s == GM_OK)
                s = gm_yuv_convert(&frames[i], &image, 0, NULL);
            src = image;
        }
        if (s == GM_OK)
            s = gm_roi(&src, &src, crops[i].x, crops[i].y, crops[i].width, crops[i].height);
        for (k = 0; k < 2; ++k) {
            size_t j;
            pimg_make(&warped[k], dst->m.width, dst->m.height, src.dtype, (int)src.channels, GM_HWC, 1, 0, 1);
            pimg_fill(&warped[k]);
            for (j = 0; k && j < warped[1].n; ++j) /* every byte apart from the first filling's */
                warped[1].buf[j] = (unsigned char)~warped[0].buf[j];
            if (s == GM_OK)
                s = p->perspective ? gm_warp_perspective(&src, &warped[k].m, p->warp + 9 * i, &wp, NULL)
                                   : gm_warp_affine(&src, &warped[k].m, p->warp + 6 * i, &wp, NULL);
        }
        pimg_make(&made, dst->m.width, dst->m.height, dst->m.dtype, (int)dst->m.channels, dst->m.layout, 1, 0, 0);
        if (s == GM_OK)
            s = gm_preprocess(&warped[0].m, NULL, &made.m, &stretch, NULL, NULL);
        if (s == GM_OK)
            s = gm_item(&fused, &one, i);
        for (y = 0; y < dst->m.height && s == GM_OK && agree; ++y)
            for (x = 0; x < dst->m.width && agree; ++x) {
                const size_t sz = gm_dtype_size(src.dtype);
                int left = 0;
                for (c = 0; c < src.channels; ++c)
                    left |= memcmp(at(&warped[0].m, 0, y, x, c), at(&warped[1].m, 0, y, x, c), sz) != 0;
                for (c = 0; c < dst->m.channels && agree; ++c) {
                    const unsigned char* want = left ? dst->ref + (at(&one, 0, y, x, c) - dst->buf) : at(&made.m, 0, y, x, c);
                    if (memcmp(at(&one, 0, y, x, c), want, es)) {
                        agree = 0;
                        CHECK(0, "%s: item %d, pixel (%lld, %lld) channel %d differs from the warp and the stretch%s",
                              what, i, (long long)x, (long long)y, c, left ? " (a pixel the border leaves)" : "");
                    }
                }
            }
        CHECK(s == GM_OK && agree, "%s: item %d: %s", what, i, s == GM_OK ? "differs (above)" : gm_last_error());
        agree &= s == GM_OK;
        pimg_free(&warped[0]), pimg_free(&warped[1]), pimg_free(&made);
        free(bgr), bgr = NULL;
    }
    CHECK(pimg_outside_changed(dst) == 0, "%s: bytes outside dst's items written", what);
    return agree;
}

/* The pre-process's warp placement on the CPU path against gm_warp_affine
 * (gm_warp_perspective) and the stretch: every source dtype, channel count,
 * destination dtype and layout, interpolation, border, forward and
 * inverse matrices, 2x3 and 3x3, batches of crops of one image, ROIs and
 * foreign pitches; then frames. */
static void test_prep_warp(void)
{
    static const gm_dtype srcs[] = {GM_U8, GM_U16, GM_F32}, dsts[] = {GM_U8, GM_F16, GM_BF16, GM_F32};
    static const gm_interp interps[] = {GM_INTER_LINEAR, GM_INTER_NEAREST, GM_INTER_CUBIC, GM_INTER_AREA};
    static const int channels[] = {1, 3, 4};
    int round, i, k;
    char what[200];
    for (round = 0; round < 96; ++round) {
        const gm_dtype S = srcs[round % 3], D = dsts[round / 3 % 4];
        const int C = channels[round / 12 % 3], frames = round >= 72, count = 1 + (int)(t_rand() % 3);
        const int64_t W = 12 + rnd(0, 50), H = 10 + rnd(0, 40), w = 5 + rnd(0, 40), h = 5 + rnd(0, 40);
        const int cd = frames ? 3 : C == 1 ? (int)(t_rand() % 2) * 2 + 1 : C;
        double M[27];
        gm_mat items[3];
        gm_rect crops[3];
        gm_prep p;
        pimg src, dst;
        gm_yuv f[3];
        unsigned char* frame = NULL;
        memset(&p, 0, sizeof p);
        p.fit = GM_FIT_WARP;
        p.interp = interps[frames ? round % 2 : round / 4 % 4];
        p.border = (gm_border)(t_rand() % 6);
        p.perspective = (int)(t_rand() % 2);
        p.inverse = (int)(t_rand() % 2);
        p.swap_rb = C >= 3 && cd >= 3 && (t_rand() & 1);
        p.arith = (D == GM_F32 || D == GM_F16) && (t_rand() & 1) ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
        for (k = 0; k < 4; ++k) {
            p.pad[k] = t_uniform(0, S == GM_U8 || frames ? 300 : 70000);
            p.mean[k] = D == GM_U8 ? 0 : t_uniform(0, 128);
            p.scale[k] = D == GM_U8 ? 0 : t_uniform(0.002, 0.02);
        }
        pimg_make(&src, W, H, frames ? GM_U8 : S, frames ? 1 : C, (t_rand() & 1) ? GM_CHW : GM_HWC, 1, -1, 0);
        pimg_fill(&src);
        pimg_make(&dst, w, h, D, cd, (t_rand() & 1) ? GM_CHW : GM_HWC, count, -1, 0);
        pimg_fill(&dst);
        for (i = 0; i < count; ++i) {
            crops[i].x = rnd(0, W / 3) & ~(int64_t)frames, crops[i].y = rnd(0, H / 3) & ~(int64_t)frames;
            crops[i].width = rnd(1, W - crops[i].x), crops[i].height = rnd(1, H - crops[i].y);
            items[i] = src.m;
            warp_matrix(p.perspective, (double)crops[i].width, (double)crops[i].height, (double)w, (double)h,
                        M + (p.perspective ? 9 : 6) * i); /* with inverse it maps dst to the crop as it stands */
        }
        p.warp = M;
        if (frames) { /* an NV12 frame (even sizes) whose luma is src's ROI, its chroma in a buffer of its own */
            const int64_t fw = W & ~1, fh = H & ~1;
            size_t j;
            frame = (unsigned char*)malloc((size_t)(fw * fh / 2));
            for (j = 0; j < (size_t)(fw * fh / 2); ++j)
                frame[j] = (unsigned char)(t_rand() >> 8);
            memset(&f[0], 0, sizeof f[0]);
            f[0].format = GM_YUV_NV12, f[0].matrix = (gm_yuv_matrix)(t_rand() % 3), f[0].range = (gm_yuv_range)(t_rand() % 2);
            if (gm_roi(&src.m, &f[0].y, 0, 0, fw, fh) != GM_OK ||
                gm_wrap(&f[0].u, frame, fw / 2, fh / 2, GM_U8, 2, GM_HWC, 0, GM_HOST) != GM_OK)
                CHECK(0, "frame: %s", gm_last_error());
            f[1] = f[2] = f[0];
            for (i = 0; i < count; ++i) /* inside the even frame */
                crops[i].width = crops[i].width < fw - crops[i].x ? crops[i].width : fw - crops[i].x,
                crops[i].height = crops[i].height < fh - crops[i].y ? crops[i].height : fh - crops[i].y;
        }
        snprintf(what, sizeof what, "warp placement round %d: %s %s x%d -> %s x%d %s, %d items, interp %d, border %d, "
                 "%s%s, arith %d", round, frames ? "NV12" : "image", gm_dtype_name(frames ? GM_U8 : S), C,
                 gm_dtype_name(D), cd, dst.m.layout == GM_CHW ? "CHW" : "HWC", count, (int)p.interp, (int)p.border,
                 p.perspective ? "3x3" : "2x3", p.inverse ? " inverse" : "", (int)p.arith);
        prep_warp_agrees(items, frames ? f : NULL, crops, count, &dst, &p, what);
        pimg_free(&src), pimg_free(&dst);
        free(frame);
    }
}

/* Every test of the CPU path's results, in one configuration of it. */
/* ------------------------------------------- box mapping (gpumat/prep.h) */

/* Each framework's placement and inverse, written here from its source in
 * double (ultralytics: data/augment.py LetterBox.get_params and
 * utils/ops.py scale_boxes and clip_boxes of the releases named; DeepStream
 * 7.1: gstnvinfer.cpp's maintain-aspect-ratio and gstnvinfer_meta_utils.cpp's
 * attach_metadata_detector; OpenCV: blobFromImage(crop = true)). Python's
 * round() is half to even, as nearbyint is. */

/* LetterBox(new_shape=(Hn, Wn), auto=stride > 0, scaleup, center, stride):
 * its ratio r, new_unpad, left and top, and the image it makes. */
typedef struct ul_params {
    double r;
    double w, h, left, top, out_w, out_h;
} ul_params;

static ul_params ul_letterbox(double W, double H, double Wn, double Hn, int center, int scaleup, int stride)
{
    ul_params p;
    double dw, dh;
    p.r = fmin(Hn / H, Wn / W);
    if (!scaleup)
        p.r = fmin(p.r, 1.0);
    p.w = fmax(nearbyint(W * p.r), 1.0), p.h = fmax(nearbyint(H * p.r), 1.0);
    dw = Wn - p.w, dh = Hn - p.h;
    if (stride)
        dw = fmod(dw, stride), dh = fmod(dh, stride);
    if (center)
        dw /= 2, dh /= 2;
    p.top = center ? nearbyint(dh - 0.1) : 0, p.left = center ? nearbyint(dw - 0.1) : 0;
    p.out_w = p.w + p.left + nearbyint(dw + 0.1), p.out_h = p.h + p.top + nearbyint(dh + 0.1);
    return p;
}

/* scale_boxes' releases: how it derives gains and pads without ratio_pad. */
enum { UL_8_0, UL_8_0_108, UL_8_4_25, UL_8_4_174 };

/* scale_boxes(img1_shape=(h1, w1), boxes, img0_shape=(h0, w0), ratio_pad,
 * padding) of xyxy boxes of release era; ratio_pad NULL or {gain_y, gain_x,
 * pad_x, pad_y} as 8.4.124 and later read it. */
static void ul_scale_boxes(int era, double h1, double w1, double h0, double w0, const double* ratio_pad, int padding,
                           const double in[4], double out[4])
{
    double gain, gx, gy, px, py;
    int i;
    if (ratio_pad) {
        gy = ratio_pad[0], gx = ratio_pad[1], px = ratio_pad[2], py = ratio_pad[3];
    } else {
        gain = fmin(h1 / h0, w1 / w0);
        gx = gy = gain;
        if (era == UL_8_4_174) {
            double nh = fmax(nearbyint(h0 * gain), 1.0), nw = fmax(nearbyint(w0 * gain), 1.0);
            gy = nh / h0, gx = nw / w0;
            px = nearbyint((w1 - nw) / 2 - 0.1), py = nearbyint((h1 - nh) / 2 - 0.1);
        } else if (era == UL_8_4_25) {
            px = nearbyint((w1 - nearbyint(w0 * gain)) / 2 - 0.1), py = nearbyint((h1 - nearbyint(h0 * gain)) / 2 - 0.1);
        } else if (era == UL_8_0_108) {
            px = nearbyint((w1 - w0 * gain) / 2 - 0.1), py = nearbyint((h1 - h0 * gain) / 2 - 0.1);
        } else {
            px = (w1 - w0 * gain) / 2, py = (h1 - h0 * gain) / 2;
        }
    }
    for (i = 0; i < 4; ++i) {
        double v = in[i];
        if (padding)
            v -= i & 1 ? py : px;
        v /= i & 1 ? gy : gx;
        out[i] = fmin(fmax(v, 0.0), i & 1 ? h0 : w0); /* clip_boxes */
    }
}

/* nvinfer's placement (maintain-aspect-ratio, symmetric-padding unless
 * top_left) and its inverse of a box: (x - offset) / scale_ratio + roi. */
static void ds_map(double W, double H, double Wn, double Hn, int top_left, double roi_x, double roi_y,
                   const double in[4], double out[4])
{
    double hdest = Wn * H / W, dw, dh, left, top;
    int i;
    if (hdest <= Hn)
        dw = Wn, dh = floor(hdest);
    else
        dw = floor(Hn * W / H), dh = Hn;
    left = top_left ? 0 : floor((Wn - dw) / 2), top = top_left ? 0 : floor((Hn - dh) / 2);
    for (i = 0; i < 4; ++i)
        out[i] = i & 1 ? (in[i] - top) / (dh / H) + roi_y : (in[i] - left) / (dw / W) + roi_x;
}

/* OpenCV's crop-centre (blobFromImage(crop = true)): cv::resize(Size(), f,
 * f) samples at f, a float, unless the size it makes is the crop's (a
 * copy); the centre cut truncates. The exact inverse of a box. */
static void cv_crop_centre_map(double W, double H, double Wn, double Hn, double roi_x, double roi_y,
                               const double in[4], double out[4])
{
    float f = fmaxf((float)Wn / (float)W, (float)Hn / (float)H);
    double rw = nearbyint(W * f), rh = nearbyint(H * f), s = rw == W && rh == H ? 1.0 : (double)f;
    double left = -trunc(0.5 * (rw - Wn)), top = -trunc(0.5 * (rh - Hn));
    int i;
    for (i = 0; i < 4; ++i)
        out[i] = i & 1 ? (in[i] - top) / s + roi_y : (in[i] - left) / s + roi_x;
}

/* A W x H crop size: any, thin, or one the issue names. */
static void box_sizes(int k, int64_t* W, int64_t* H, int64_t* Wn, int64_t* Hn)
{
    static const int64_t named[][4] = {{1366, 768, 640, 640}, {1018, 39, 640, 640}, {1001, 777, 640, 640},
                                       {39, 1018, 640, 640},  {1920, 1080, 640, 640}, {704, 576, 640, 640},
                                       {1280, 717, 640, 640}, {3000, 1, 640, 640},  {1366, 768, 640, 384}};
    if (k < (int)(sizeof named / sizeof named[0])) {
        *W = named[k][0], *H = named[k][1], *Wn = named[k][2], *Hn = named[k][3];
        return;
    }
    switch (k % 3) {
    case 0: *W = 1 + (int64_t)(t_rand() % 3000), *H = 1 + (int64_t)(t_rand() % 3000); break;
    case 1: *W = 300 + (int64_t)(t_rand() % 2700), *H = 1 + (int64_t)(t_rand() % 60); break;
    default: *W = 1 + (int64_t)(t_rand() % 60), *H = 300 + (int64_t)(t_rand() % 2700); break;
    }
    *Wn = k % 4 ? 640 : 1 + (int64_t)(t_rand() % 1200);
    *Hn = k % 4 == 1 ? 384 : k % 4 ? 640 : 1 + (int64_t)(t_rand() % 1200);
}

/* A box in the Wn x Hn image: the placed crop's corners (k % 4 == 0), else
 * random, over the edges too. */
static void box_in(int k, const gm_prep_geometry* g, double b[4])
{
    double Wn = (double)g->dst_width, Hn = (double)g->dst_height;
    if (k % 4 == 0) {
        b[0] = (double)g->left, b[1] = (double)g->top;
        b[2] = (double)(g->left + g->width), b[3] = (double)(g->top + g->height);
        return;
    }
    b[0] = t_uniform(-40, Wn + 40), b[1] = t_uniform(-40, Hn + 40);
    b[2] = t_uniform(-40, Wn + 40), b[3] = t_uniform(-40, Hn + 40);
}

static int same_box(const double a[4], const double b[4])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* gm_prep_box_to_source maps as the rule's framework does, on many sizes:
 * an ULTRALYTICS letterbox as scale_boxes of 8.4.174 on (its predictor:
 * per-axis gains, clipped; with no_upscale its validator's ratio_pad; with
 * top_left padding=False), a DEEPSTREAM one as nvinfer, a crop-centre at
 * OpenCV's float factor; a stretch has no one ratio (0). */
static void test_box_to_source(void)
{
    int k, bad_place = 0, bad[4] = {0, 0, 0, 0};
    for (k = 0; k < 3000; ++k) {
        int64_t W, H, Wn, Hn;
        gm_prep p;
        gm_prep_geometry g;
        gm_rect crop;
        double b[4], got[4], exp[4];
        int kind = k % 4; /* ultralytics, deepstream, crop-centre, stretch */
        box_sizes(k / 4, &W, &H, &Wn, &Hn);
        crop.x = (int64_t)(t_rand() % 50), crop.y = (int64_t)(t_rand() % 50), crop.width = W, crop.height = H;
        memset(&p, 0, sizeof p);
        p.fit = kind == 2 ? GM_FIT_CROP_CENTER : kind == 3 ? GM_FIT_STRETCH : GM_FIT_LETTERBOX;
        p.rule = kind == 1 ? GM_LETTERBOX_DEEPSTREAM : GM_LETTERBOX_ULTRALYTICS;
        p.top_left = kind < 2 && k % 3 == 1;
        p.no_upscale = kind == 0 && k % 5 == 2;
        p.stride = kind == 0 && k % 7 == 3 ? 32 : 0;
        if (gm_prep_geometry_of(&crop, Wn, Hn, &p, &g) != GM_OK) {
            if (kind == 1) /* nvinfer truncates a thin crop's letterbox to nothing */
                continue;
            CHECK(0, "box mapping: gm_prep_geometry_of %lldx%lld -> %lldx%lld: %s", (long long)W, (long long)H,
                  (long long)Wn, (long long)Hn, gm_last_error());
            continue;
        }
        box_in(k / 4, &g, b);
        gm_prep_box_to_source(&g, b, got);
        if (kind == 0) {
            ul_params u = ul_letterbox((double)W, (double)H, (double)Wn, (double)Hn, !p.top_left, !p.no_upscale,
                                       p.stride);
            double rp[4] = {u.r, u.r, u.left, u.top};
            bad_place += (double)g.width != u.w || (double)g.height != u.h || (double)g.left != u.left ||
                         (double)g.top != u.top || (double)g.dst_width != u.out_w ||
                         (double)g.dst_height != u.out_h || g.ratio != u.r;
            ul_scale_boxes(UL_8_4_174, u.out_h, u.out_w, (double)H, (double)W, p.no_upscale ? rp : NULL,
                           !p.top_left, b, exp);
            exp[0] += (double)crop.x, exp[1] += (double)crop.y, exp[2] += (double)crop.x, exp[3] += (double)crop.y;
        } else if (kind == 1) {
            ds_map((double)W, (double)H, (double)Wn, (double)Hn, p.top_left, (double)crop.x, (double)crop.y, b, exp);
        } else if (kind == 2) {
            cv_crop_centre_map((double)W, (double)H, (double)Wn, (double)Hn, (double)crop.x, (double)crop.y, b, exp);
        } else {
            int i;
            for (i = 0; i < 4; ++i)
                exp[i] = i & 1 ? b[i] / ((double)Hn / (double)H) + (double)crop.y
                               : b[i] / ((double)Wn / (double)W) + (double)crop.x;
            bad_place += g.ratio != 0.0;
        }
        if (!same_box(got, exp) && bad[kind]++ < 3)
            printf("box mapping %d: %lldx%lld -> %lldx%lld (top_left %d no_upscale %d stride %d) box (%.17g, %.17g, "
                   "%.17g, %.17g): got (%.17g, %.17g, %.17g, %.17g), the framework's (%.17g, %.17g, %.17g, %.17g)\n",
                   kind, (long long)W, (long long)H, (long long)Wn, (long long)Hn, p.top_left, p.no_upscale, p.stride,
                   b[0], b[1], b[2], b[3], got[0], got[1], got[2], got[3], exp[0], exp[1], exp[2], exp[3]);
    }
    CHECK(bad[0] == 0, "box mapping: %d of 750 ULTRALYTICS letterboxes differ from scale_boxes (8.4.174 on)", bad[0]);
    CHECK(bad[1] == 0, "box mapping: %d of 750 DEEPSTREAM letterboxes differ from nvinfer's", bad[1]);
    CHECK(bad[2] == 0, "box mapping: %d of 750 crop-centres differ from the inverse at OpenCV's float factor",
          bad[2]);
    CHECK(bad[3] == 0, "box mapping: %d of 750 stretches differ from the per-axis inverse", bad[3]);
    CHECK(bad_place == 0, "box mapping: %d placements differ from LetterBox's (or a stretch's ratio is not 0)",
          bad_place);
}

/* The issue's figures: a whole 1366x768 frame into 640 is the whole frame
 * by 8.4.174's scale_boxes (per-axis gains); 8.0.108-8.4.24's one gain
 * puts the bottom at 768.375, clipped to 768, and an interior row elsewhere. */
static void test_box_figures(void)
{
    gm_rect crop = {0, 0, 1366, 768};
    gm_prep p;
    gm_prep_geometry g;
    double whole[4] = {0, 140, 640, 500}, inner[4] = {10, 150, 600, 400}, out[4], e[4];
    memset(&p, 0, sizeof p);
    p.fit = GM_FIT_LETTERBOX;
    CHECK(gm_prep_geometry_of(&crop, 640, 640, &p, &g) == GM_OK && g.width == 640 && g.height == 360 && g.top == 140,
          "1366x768 -> 640: %lldx%lld at top %lld", (long long)g.width, (long long)g.height, (long long)g.top);
    gm_prep_box_to_source(&g, whole, out);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 1366 && out[3] == 768, "1366x768 -> 640: the whole frame maps to "
          "(%.17g, %.17g, %.17g, %.17g)", out[0], out[1], out[2], out[3]);
    CHECK(gm_prep_box_map(&g, GM_BOX_ULTRALYTICS_8_0_108, whole, out) == GM_OK && out[3] == 768,
          "1366x768 -> 640, 8.0.108's scale_boxes: the bottom %.17g, 768 (clipped) expected", out[3]);
    e[3] = (500 - 140) / (640.0 / 1366);
    CHECK(fabs(e[3] - 768.375) < 1e-9, "768.375 is (500 - 140) / r: %.17g", e[3]);
    gm_prep_box_map(&g, GM_BOX_ULTRALYTICS_8_0_108, inner, out);
    CHECK(out[3] == (400 - 140) / (640.0 / 1366) && out[1] == (150 - 140) / (640.0 / 1366),
          "1366x768 -> 640, 8.0.108's scale_boxes: rows %.17g and %.17g", out[1], out[3]);
    gm_prep_box_map(&g, GM_BOX_ULTRALYTICS, inner, out);
    CHECK(out[3] == (400 - 140) / (360.0 / 768) && out[1] == (150 - 140) / (360.0 / 768),
          "1366x768 -> 640, 8.4.174's scale_boxes: rows %.17g and %.17g", out[1], out[3]);
}

/* gm_prep_box_map: every mapping against its framework's formula on every
 * placement (a mapping applies to any geometry: each is a function of the
 * geometry alone), and the geometry's own map and sampler factors. */
static void test_box_maps(void)
{
    int k, m, bad[8] = {0}, bad_fields = 0;
    for (k = 0; k < 2000; ++k) {
        int64_t W, H, Wn, Hn;
        gm_prep p;
        gm_prep_geometry g;
        gm_rect crop;
        gm_box_map want;
        double b[4];
        int kind = k % 5; /* ultralytics, deepstream, opencv dnn, crop-centre, stretch */
        box_sizes(k / 5, &W, &H, &Wn, &Hn);
        crop.x = (int64_t)(t_rand() % 50), crop.y = (int64_t)(t_rand() % 50), crop.width = W, crop.height = H;
        memset(&p, 0, sizeof p);
        p.fit = kind == 3 ? GM_FIT_CROP_CENTER : kind == 4 ? GM_FIT_STRETCH : GM_FIT_LETTERBOX;
        p.rule = kind == 1 ? GM_LETTERBOX_DEEPSTREAM : kind == 2 ? GM_LETTERBOX_OPENCV_DNN : GM_LETTERBOX_ULTRALYTICS;
        p.top_left = kind < 2 && k % 3 == 1;
        p.no_upscale = kind == 0 && k % 4 == 2;
        p.stride = kind == 0 && k % 7 == 3 ? 32 : 0;
        if (gm_prep_geometry_of(&crop, Wn, Hn, &p, &g) != GM_OK)
            continue; /* OpenCV dnn's empty letterboxes of thin crops */
        want = kind == 1 ? GM_BOX_DEEPSTREAM : kind > 1 ? GM_BOX_EXACT : p.no_upscale ? GM_BOX_ULTRALYTICS_RATIO_PAD
               : p.top_left ? GM_BOX_ULTRALYTICS_NO_PAD : GM_BOX_ULTRALYTICS;
        {
            float f = fmaxf((float)Wn / (float)W, (float)Hn / (float)H);
            double sx = kind == 3 ? (double)f : (double)g.width / (double)W,
                   sy = kind == 3 ? (double)f : (double)g.height / (double)H;
            if (g.width == W && g.height == H)
                sx = sy = 1.0;
            bad_fields += g.map != want || g.sample_x != sx || g.sample_y != sy;
            if (kind == 1)
                bad_fields += g.ratio != (g.width == Wn ? (double)Wn / (double)W : (double)Hn / (double)H);
        }
        box_in(k / 5, &g, b);
        for (m = 0; m < 8; ++m) {
            double got[4], exp[4], rp[4];
            double h1 = (double)g.dst_height, w1 = (double)g.dst_width, h0 = (double)H, w0 = (double)W;
            int i;
            if (gm_prep_box_map(&g, (gm_box_map)m, b, got) != GM_OK) {
                ++bad[m];
                continue;
            }
            switch (m) {
            case GM_BOX_EXACT:
                for (i = 0; i < 4; ++i)
                    exp[i] = i & 1 ? (b[i] - (double)g.top) / g.sample_y + (double)crop.y
                                   : (b[i] - (double)g.left) / g.sample_x + (double)crop.x;
                break;
            case GM_BOX_DEEPSTREAM:
                for (i = 0; i < 4; ++i)
                    exp[i] = i & 1 ? (b[i] - (double)g.top) / ((double)g.height / h0) + (double)crop.y
                                   : (b[i] - (double)g.left) / ((double)g.width / w0) + (double)crop.x;
                break;
            case GM_BOX_ULTRALYTICS_RATIO_PAD:
                rp[0] = kind == 4 ? Hn / h0 : g.ratio, rp[1] = kind == 4 ? Wn / w0 : g.ratio;
                rp[2] = (double)g.left, rp[3] = (double)g.top;
                ul_scale_boxes(UL_8_4_174, h1, w1, h0, w0, rp, 1, b, exp);
                break;
            default:
                ul_scale_boxes(m == GM_BOX_ULTRALYTICS || m == GM_BOX_ULTRALYTICS_NO_PAD ? UL_8_4_174
                               : m == GM_BOX_ULTRALYTICS_8_4_25                          ? UL_8_4_25
                               : m == GM_BOX_ULTRALYTICS_8_0_108                         ? UL_8_0_108
                                                                                         : UL_8_0,
                               h1, w1, h0, w0, NULL, m != GM_BOX_ULTRALYTICS_NO_PAD, b, exp);
                break;
            }
            if (m != GM_BOX_EXACT && m != GM_BOX_DEEPSTREAM)
                exp[0] += (double)crop.x, exp[1] += (double)crop.y, exp[2] += (double)crop.x, exp[3] += (double)crop.y;
            if (!same_box(got, exp) && bad[m]++ < 3)
                printf("gm_prep_box_map %d: kind %d %lldx%lld -> %lldx%lld box (%.17g, %.17g, %.17g, %.17g): got "
                       "(%.17g, %.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g, %.17g)\n", m, kind, (long long)W,
                       (long long)H, (long long)Wn, (long long)Hn, b[0], b[1], b[2], b[3], got[0], got[1], got[2],
                       got[3], exp[0], exp[1], exp[2], exp[3]);
        }
    }
    for (m = 0; m < 8; ++m)
        CHECK(bad[m] == 0, "gm_prep_box_map: %d boxes of map %d differ from its framework's formula", bad[m], m);
    CHECK(bad_fields == 0, "gm_prep_box_map: %d geometries' map, sample_x/_y or DeepStream ratio are not as "
          "documented", bad_fields);
}

static void test_results(const char* how)
{
    int failed = t_failed;
    test_saturation();
    test_channel_rules();
    test_views();
    test_copy();
    test_transform();
    test_shuffles();
    test_planes();
    test_split_f32();
    test_blob();
    test_blob_arith();
    test_yuv_rows();
    test_overlay();
    test_overlay_yuv();
    test_prep_yuv_edges();
    test_prep_yuv_rows();
    test_prep_warp();
    CHECK(t_failed == failed, "the failures above were with %s", how);
}

int main(void)
{
    t_seed_from_env("cpu");
    test_half_exhaustive(0);
    test_half_exhaustive(1);
    test_half_rounding(0);
    test_half_rounding(1);
    test_f16_binades();
    test_thread_setting();
    test_yuv_matrices();
    test_yuv16();
    test_yuv_from_matrices();
    test_yuv_batch();
    test_box_to_source();
    test_box_figures();
    test_box_maps();
    test_results("the default loops and threads");
    /* the baseline loops (cpu.h: the AVX2 ones where the CPU has them), one thread */
    gm__tune.cpu_isa = 0;
    gm_set_threads(1);
    test_results("the baseline loops, one thread");
    /* every image cut into parts on 3 threads and written past the caches, however small */
    gm__tune.cpu_isa = -1;
    gm__tune.cpu_part_bytes = 1;
    gm__tune.cpu_stream_bytes = 0;
    gm_set_threads(3);
    test_results("3 threads and non-temporal stores for every image");
    return t_summary("cpu");
}
