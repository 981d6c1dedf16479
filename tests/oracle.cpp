// Checks gpumat's CPU path bit for bit against OpenCV 4.6 (convertTo, split/merge, cvtColor swaps, dnn::blobFromImage(s) and gm_blob_from_image_with_params' float forms, resize); alone: make build/oracle && ./build/oracle
//
// GM_TEST_SEED=n varies the random data. One line per group gives its counts;
// the first few mismatching elements of each failing case are printed.
//
// Every case runs twice: on compact images, and on ROIs inside parents padded
// by a random 5-15 px on each side, as OpenCV's own tests do, so rows start
// misaligned relative to the parent and pitches are foreign. OpenCV and gpumat
// read the same memory (gm_wrap with pitch = Mat::step, GM_HOST). The padding
// holds random sentinel bytes that must survive: gpumat writes nothing outside
// its destination and nothing at all into its source.
//
// Deliberately not tested (gpumat documents the departure): results outside
// the int32 range and NaN converted to integers. OpenCV on x86 rounds them
// with cvRound, which returns INT_MIN; gpumat saturates (+huge -> max, -huge ->
// min) and maps NaN to 0. The data below keeps |x * alpha + beta| < 2^31 - 1024
// and has no NaN or infinity where an integer is produced.
//
// Where OpenCV 4.6 disagrees with itself (scaled f64 -> 8/16-bit integers:
// float in its SIMD body, double in its scalar loop for short rows), the
// SIMD body is the reference; see opencv_tail_differs(). Types OpenCV 4 lacks
// (bf16) are compared with a reference written here; see convert_to_bf16().
// Built two ways (Makefile): oracle_cxx holds the implementation, compiled
// as C++; oracle links the C library (GPUMAT_NO_IMPLEMENTATION), so the
// internals it sets are those of gpumat/impl/internal.h, the item counts
// pixel.h's.
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "gpumat/gen/pixel.h"
#include "gpumat/impl/internal.h"

#include "check.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <functional>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------- reporting

// Output is capped per group so that a systematic break prints a readable
// amount and one flooding group does not hide another's failures.
const int kDetailPerCase = 3; // mismatching elements shown per failing case
const int kDetailTotal = 40;  // element lines per group
const int kFailTotal = 20;    // failing cases named per group
int g_case_lines, g_detail_lines, g_fail_lines;

std::string strf(const char* fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

// One group of cases: counts and the time it took, printed as one line.
struct Group {
    const char* name;
    long cases = 0, failed = 0;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    explicit Group(const char* n) : name(n) { g_detail_lines = g_fail_lines = 0; }
    ~Group()
    {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("%-10s %6ld cases, %6ld passed, %ld failed (%.1f s)\n", name, cases, cases - failed, failed, s);
        fflush(stdout);
    }
};

// Counts one case in g and in check.h's totals; problem is empty when it passed.
void verdict(Group& g, const std::string& name, const std::string& problem)
{
    g_case_lines = 0; // the next case gets its own detail lines
    ++g.cases;
    if (problem.empty()) {
        ++t_passed;
        return;
    }
    ++g.failed;
    if (g_fail_lines < kFailTotal) {
        CHECK(false, "%s: %s", name.c_str(), problem.c_str());
        if (++g_fail_lines == kFailTotal)
            printf("(%s: further failing cases are counted, not shown)\n", g.name);
    } else {
        ++t_failed;
    }
}

// ------------------------------------------------------------------- dtypes

const gm_dtype kDtypes[] = {GM_U8, GM_S8, GM_U16, GM_S16, GM_S32, GM_F32, GM_F64, GM_F16, GM_BF16};

// OpenCV depth holding a gm_dtype; bf16 has none in OpenCV 4 and travels as its raw CV_16U bits.
int cv_depth(gm_dtype d) { return d == GM_BF16 ? CV_16U : (int)d; }

bool is_float(gm_dtype d) { return d == GM_F32 || d == GM_F64 || d == GM_F16 || d == GM_BF16; }

float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

// The reference rounding float -> bf16, round to nearest even (no NaN occurs
// here): keep the high half, add one when the dropped half is above 0x8000 or
// exactly 0x8000 with an odd kept half. Overflow carries into infinity.
uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t hi = u >> 16, lo = u & 0xffffu;
    if (lo > 0x8000u || (lo == 0x8000u && (hi & 1u)))
        ++hi;
    return (uint16_t)hi;
}

// An element as text: integers as numbers, floats as value and hex bits.
std::string show(gm_dtype d, const uint8_t* p)
{
    uint16_t h;
    uint32_t u;
    uint64_t q;
    switch (d) {
    case GM_U8: return strf("%u", *p);
    case GM_S8: return strf("%d", *(const int8_t*)p);
    case GM_U16: memcpy(&h, p, 2); return strf("%u", h);
    case GM_S16: memcpy(&h, p, 2); return strf("%d", (int16_t)h);
    case GM_S32: memcpy(&u, p, 4); return strf("%d", (int32_t)u);
    case GM_F32: memcpy(&u, p, 4); { float f; memcpy(&f, p, 4); return strf("%.9g (0x%08x)", f, u); }
    case GM_F64: memcpy(&q, p, 8); { double v; memcpy(&v, p, 8); return strf("%.17g (0x%016llx)", v, (unsigned long long)q); }
    case GM_F16: memcpy(&h, p, 2); return strf("%.6g (0x%04x)", (float)cv::float16_t::fromBits(h), h);
    default: memcpy(&h, p, 2); return strf("%.4g (0x%04x)", bf16_to_float(h), h);
    }
}

// ------------------------------------------------------------ random values

// What a source value must respect: for convert, |x * alpha + beta| stays
// below 2^31 - 1024 so that no result leaves the int32 range (see the top).
struct Range {
    double alpha = 1, beta = 0;
};

// A random integer in [lo, hi].
int64_t rand_int(int64_t lo, int64_t hi) { return lo + (int64_t)(t_rand() % (uint64_t)(hi - lo + 1)); }

// A random finite float-type value: a mix of small reals, exact integers and
// exact halves (k + 0.5, ties once scaled or rounded), mid and large reals,
// tiny ones (f16 subnormals after scaling), and, for f64, halves off by less
// than a float ulp (k + 0.5 +- 1e-9): rounding them directly and rounding
// them after a trip through float give different integers, so computing in
// the wrong precision shows. limit caps the magnitude.
double rand_real(double limit)
{
    double m = std::min(limit, 1e6), mid = std::min(m, 3e4);
    auto off = [] { return (t_rand() & 1 ? 1e-9 : -1e-9) * (1 + (double)(t_rand() % 100)); };
    switch (t_rand() % 10) {
    case 0:
    case 1: return t_uniform(-300, 300);
    case 2: return (double)rand_int(-300, 300) + 0.5;
    case 3: return (double)rand_int(-300, 300);
    case 4: return t_uniform(-std::min(m, 7e4), std::min(m, 7e4));
    case 5: return (double)rand_int(-(int64_t)mid, (int64_t)mid) + 0.5;
    case 6: return t_uniform(-m, m);
    case 7: return (double)rand_int(-300, 300) + 0.5 + off();
    case 8: return (double)rand_int(-(int64_t)mid, (int64_t)mid) + 0.5 + off() * 100;
    default: return t_uniform(-1e-4, 1e-4);
    }
}

// Writes one random element of d at p.
void rand_elem(gm_dtype d, uint8_t* p, const Range& r)
{
    // Largest |x| whose x * alpha + beta stays inside +-(2^31 - 1024).
    double lim = (2147483648.0 - 1024.0 - std::fabs(r.beta)) / std::fabs(r.alpha);
    switch (d) {
    case GM_U8:
    case GM_S8: *p = (uint8_t)t_rand(); break; // full range (|x| * 255 < 2^31)
    case GM_U16:
    case GM_S16: { uint16_t v = (uint16_t)t_rand(); memcpy(p, &v, 2); break; }
    case GM_S32: {
        int64_t l = (int64_t)std::min(lim, 2147483647.0);
        int32_t v = (int32_t)rand_int(-l, l);
        memcpy(p, &v, 4);
        break;
    }
    case GM_F32: { float v = (float)rand_real(lim); memcpy(p, &v, 4); break; }
    case GM_F64: { double v = rand_real(lim); memcpy(p, &v, 8); break; }
    case GM_F16: { uint16_t v = cv::float16_t((float)rand_real(std::min(lim, 6e4))).bits(); memcpy(p, &v, 2); break; }
    default: { uint16_t v = float_to_bf16((float)rand_real(lim)); memcpy(p, &v, 2); break; }
    }
}

// Fills every element of m (any view) with random values of d. An image of
// more than kPool elements draws a pool of max(kPool, 2 rows) of them, and
// each row is a span of the pool at a random offset: drawing every element
// of the larger images had taken two thirds of the oracle's time.
const size_t kPool = 1 << 14;
void fill(cv::Mat& m, gm_dtype d, const Range& r = Range())
{
    size_t es = gm_dtype_size(d), n = (size_t)m.cols * m.channels();
    if (n * (size_t)m.rows <= kPool) {
        for (int y = 0; y < m.rows; ++y)
            for (size_t i = 0; i < n; ++i)
                rand_elem(d, m.ptr(y) + i * es, r);
        return;
    }
    size_t count = std::max(kPool, 2 * n);
    std::vector<uint8_t> pool(count * es);
    for (size_t i = 0; i < count; ++i)
        rand_elem(d, pool.data() + i * es, r);
    for (int y = 0; y < m.rows; ++y)
        memcpy(m.ptr(y), pool.data() + t_rand() % (count - n + 1) * es, n * es);
}

// Random bytes over a whole (continuous) allocation: the sentinel pattern,
// one random block of 64 KiB over again.
void fill_bytes(cv::Mat& m)
{
    uint64_t block[8192];
    for (uint64_t& b : block)
        b = t_rand();
    size_t n = m.total() * m.elemSize();
    for (size_t i = 0; i < n; i += sizeof block)
        memcpy(m.data + i, block, std::min(sizeof block, n - i));
}

// ------------------------------------------------------- images and padding

// An image inside a parent allocation: interleaved (one view) or planar (one
// view per plane, stacked with gaps). The parent starts as random sentinel
// bytes; arm() records it, intact() says whether anything outside live changed.
struct Region {
    cv::Mat parent, saved;
    std::vector<cv::Rect> live; // where the operation may write
    std::vector<cv::Mat> views; // interleaved: the image; planar: one per plane
    gm_mat m{};
    std::string error;          // gm_wrap's complaint, if any

    cv::Mat& view() { return views[0]; }
    void arm() { saved = parent.clone(); }
};

int pad(bool roi) { return roi ? (int)rand_int(5, 15) : 0; }

// A w x h interleaved image of d with ch channels; roi: padded by 5-15 px.
Region interleaved(gm_dtype d, int ch, int w, int h, bool roi, int extra_right = 0)
{
    Region r;
    int l = pad(roi), t = pad(roi), rt = pad(roi) + (roi ? extra_right : 0), b = pad(roi);
    r.parent.create(h + t + b, w + l + rt, CV_MAKETYPE(cv_depth(d), ch));
    fill_bytes(r.parent);
    cv::Rect rect(l, t, w, h);
    r.live = {rect};
    r.views = {r.parent(rect)};
    if (gm_wrap(&r.m, r.view().data, w, h, d, ch, GM_HWC, (int64_t)r.view().step, GM_HOST) != GM_OK)
        r.error = strf("gm_wrap: %s", gm_last_error());
    return r;
}

// A planar (CHW) image: planes one above the other in a 1-channel parent,
// separated by a gap of sentinel rows when roi, so plane_pitch is foreign too.
// count w x h rectangles of cn-channel elements one above the other in a
// parent, gap sentinel rows apart (padded by 5-15 px where roi): views[i]
// is rectangle i; m is desc at the first, the parent's pitch, and the bytes
// from one rectangle to the next in its field `between` (plane_pitch,
// batch_pitch).
Region stack_of(gm_dtype d, int cn, int w, int h, int count, int gap, bool roi, gm_desc desc,
                int64_t gm_desc::*between)
{
    Region r;
    int l = pad(roi), t = pad(roi), rt = pad(roi), b = pad(roi);
    r.parent.create(t + count * h + (count - 1) * gap + b, w + l + rt, CV_MAKETYPE(cv_depth(d), cn));
    fill_bytes(r.parent);
    for (int i = 0; i < count; ++i) {
        cv::Rect rect(l, t + i * (h + gap), w, h);
        r.live.push_back(rect);
        r.views.push_back(r.parent(rect));
    }
    desc.pitch = (int64_t)r.parent.step;
    desc.*between = (int64_t)(h + gap) * desc.pitch;
    if (gm_wrap_desc(&r.m, r.view().data, &desc, GM_HOST) != GM_OK)
        r.error = strf("gm_wrap_desc: %s", gm_last_error());
    return r;
}

Region planar(gm_dtype d, int ch, int w, int h, bool roi)
{
    gm_desc desc{};
    const int gap = pad(roi);
    desc.width = w;
    desc.height = h;
    desc.channels = ch;
    desc.dtype = d;
    desc.layout = GM_CHW;
    return stack_of(d, 1, w, h, ch, gap, roi, desc, &gm_desc::plane_pitch);
}

// "" when nothing outside r.live changed since arm(); else where it did.
std::string intact(Region& r, const char* what)
{
    for (const cv::Rect& rc : r.live)
        r.parent(rc).copyTo(r.saved(rc));
    size_t n = r.parent.total() * r.parent.elemSize();
    if (memcmp(r.parent.data, r.saved.data, n) == 0)
        return "";
    for (size_t i = 0; i < n; ++i)
        if (r.parent.data[i] != r.saved.data[i])
            return strf("wrote into %s at parent byte %zu (row %zu)", what, i, i / r.parent.step);
    return "";
}

// Number of elements of got that differ bit for bit from exp (same rows,
// columns, channels and element size); prints the first few. channel0 names
// the channel of a 1-channel plane; src (same layout as got), when given, is
// shown beside them.
long compare(const std::string& name, const cv::Mat& got, const cv::Mat& exp, gm_dtype d, int channel0 = 0,
             const cv::Mat* src = nullptr, gm_dtype sd = GM_U8)
{
    size_t es = gm_dtype_size(d);
    int cn = got.channels();
    if (got.rows != exp.rows || got.cols != exp.cols || got.elemSize() != exp.elemSize()) {
        printf("  %s: shape mismatch %dx%d x%zu vs %dx%d x%zu\n", name.c_str(), got.cols, got.rows, got.elemSize(),
               exp.cols, exp.rows, exp.elemSize());
        return (long)got.total() * cn;
    }
    long bad = 0;
    size_t row = (size_t)got.cols * cn * es;
    for (int y = 0; y < got.rows; ++y) {
        const uint8_t *g = got.ptr(y), *e = exp.ptr(y);
        if (memcmp(g, e, row) == 0)
            continue;
        for (size_t i = 0; i < (size_t)got.cols * cn; ++i) {
            if (memcmp(g + i * es, e + i * es, es) == 0)
                continue;
            if (g_case_lines < kDetailPerCase && g_detail_lines < kDetailTotal) {
                ++g_case_lines;
                ++g_detail_lines;
                std::string from = src ? " from " + show(sd, src->ptr(y) + i * gm_dtype_size(sd)) : "";
                printf("  %s: pixel (x=%zu, y=%d) channel %d: got %s, expected %s%s\n", name.c_str(), i / cn, y,
                       channel0 + (int)(i % cn), show(d, g + i * es).c_str(), show(d, e + i * es).c_str(),
                       from.c_str());
            }
            ++bad;
        }
    }
    return bad;
}

// Accumulates a case's problems into one message.
struct Problems {
    std::string text;
    void add(const std::string& p)
    {
        if (!p.empty())
            text += (text.empty() ? "" : "; ") + p;
    }
    void status(const char* fn, gm_status s)
    {
        if (s != GM_OK)
            add(strf("%s returned %s: %s", fn, gm_status_string(s), gm_last_error()));
    }
    void diff(long bad, long total, const char* what = "elements")
    {
        if (bad)
            add(strf("%ld of %ld %s differ", bad, total, what));
    }
};

struct Size2 {
    int w, h;
};

// Odd sizes, a tall and a wide one, and a camera frame (used sparingly).
const Size2 kSizes[] = {{1, 1}, {1, 13}, {13, 1}, {3, 2}, {7, 4}, {113, 113}, {176, 113}, {1921, 1079}};
const int kSizeCount = (int)(sizeof kSizes / sizeof kSizes[0]);
const int kBig = kSizeCount - 1;

std::string size_name(const Size2& s, bool roi) { return strf("%dx%d%s", s.w, s.h, roi ? " roi" : ""); }

// ------------------------------------------------------------------ convert

// The source as OpenCV sees it: bf16 becomes the f32 values it stands for
// (exactly representable), every other dtype is its own OpenCV depth.
cv::Mat opencv_source(const cv::Mat& src, gm_dtype sd)
{
    if (sd != GM_BF16)
        return src;
    cv::Mat f(src.rows, src.cols, CV_32FC(src.channels()));
    for (int y = 0; y < src.rows; ++y)
        for (int i = 0; i < src.cols * src.channels(); ++i)
            f.ptr<float>(y)[i] = bf16_to_float(src.ptr<uint16_t>(y)[i]);
    return f;
}

// One source element as OpenCV's float path (cvt_32f) loads it.
float load_float(gm_dtype d, const uint8_t* p)
{
    int32_t i;
    float f;
    double v;
    uint16_t h;
    switch (d) {
    case GM_U8: return (float)*p;
    case GM_S8: return (float)*(const int8_t*)p;
    case GM_U16: memcpy(&h, p, 2); return (float)h;
    case GM_S16: memcpy(&h, p, 2); return (float)(int16_t)h;
    case GM_S32: memcpy(&i, p, 4); return (float)i;
    case GM_F32: memcpy(&f, p, 4); return f;
    case GM_F64: memcpy(&v, p, 8); return (float)v;
    case GM_F16: memcpy(&h, p, 2); return (float)cv::float16_t::fromBits(h);
    default: memcpy(&h, p, 2); return bf16_to_float(h);
    }
}

// Reference for conversions into bf16, which OpenCV 4 lacks: what OpenCV
// does for a float-computed pair (cvt_32f, as for the f16 destination):
// load as float, v = fma(x, (float)alpha, (float)beta) (alpha 1, beta 0 is a
// plain conversion, no arithmetic), then round float -> bf16 to nearest even.
cv::Mat convert_to_bf16(const cv::Mat& src, gm_dtype sd, double alpha, double beta)
{
    cv::Mat out(src.rows, src.cols, CV_16UC(src.channels()));
    size_t es = gm_dtype_size(sd);
    bool plain = alpha == 1.0 && beta == 0.0;
    for (int y = 0; y < src.rows; ++y)
        for (int i = 0; i < src.cols * src.channels(); ++i) {
            float x = load_float(sd, src.ptr(y) + i * es);
            out.ptr<uint16_t>(y)[i] = float_to_bf16(plain ? x : std::fma(x, (float)alpha, (float)beta));
        }
    return out;
}

// OpenCV 4.6 is not consistent with itself for f64 -> 8- and 16-bit integers
// with scaling (cvtScale64f8u etc., cvt_32f): its SIMD body converts x to
// float and computes in float, but its scalar loop, which runs only for rows
// shorter than one SIMD block (16 elements with AVX2: 1x13, 3x2, ROI rows),
// computes double x * float alpha in double. gpumat follows the SIMD body
// (gen/model.py wide()), so for this case the expected values come from a
// layout OpenCV processes entirely with SIMD: all elements in one continuous
// row of at least 256. Without scaling OpenCV's plain conversion rounds the
// double directly at every width, and that is what is compared.
bool opencv_tail_differs(gm_dtype sd, gm_dtype dd, double alpha, double beta)
{
    bool plain = alpha == 1.0 && beta == 0.0;
    return sd == GM_F64 && !plain && (dd == GM_U8 || dd == GM_S8 || dd == GM_U16 || dd == GM_S16);
}

cv::Mat convert_simd_layout(const cv::Mat& src, int ddepth, double alpha, double beta)
{
    int n = (int)src.total() * src.channels();
    cv::Mat row(1, std::max(n, 256), src.depth(), cv::Scalar(0));
    src.clone().reshape(1, 1).copyTo(row.colRange(0, n));
    cv::Mat out;
    row.convertTo(out, ddepth, alpha, beta);
    return out.colRange(0, n).clone().reshape(src.channels(), src.rows);
}

cv::Mat expected_convert(const cv::Mat& src, gm_dtype sd, gm_dtype dd, double alpha, double beta)
{
    if (dd == GM_BF16)
        return convert_to_bf16(src, sd, alpha, beta);
    if (opencv_tail_differs(sd, dd, alpha, beta))
        return convert_simd_layout(src, cv_depth(dd), alpha, beta);
    cv::Mat out;
    opencv_source(src, sd).convertTo(out, cv_depth(dd), alpha, beta);
    return out;
}

struct AlphaBeta {
    double alpha, beta;
};

// (1, 0) is OpenCV's plain conversion; 1/255 the usual normalisation; -1.5,
// 7.25 and 255, 0.5 saturate narrow types; 0.5, 0 and 1, 0.5 put integers on
// exact .5 ties; 1/3, -0.1 has a float alpha that differs from the double one,
// so computing a pair in the wrong precision shows.
const AlphaBeta kAlphaBeta[] = {{1, 0},     {1 / 255., 0}, {-1.5, 7.25},  {255, 0.5},
                                {0.5, 0},   {1, 0.5},      {1 / 3., -0.1}};
const int kAlphaBetaCount = (int)(sizeof kAlphaBeta / sizeof kAlphaBeta[0]);

void convert_case(Group& g, gm_dtype sd, gm_dtype dd, int ch, const Size2& sz, bool roi, const AlphaBeta& ab)
{
    std::string name = strf("convert %s->%s c%d %s a=%g b=%g", gm_dtype_name(sd), gm_dtype_name(dd), ch,
                            size_name(sz, roi).c_str(), ab.alpha, ab.beta);
    Problems p;
    Range range;
    range.alpha = ab.alpha;
    range.beta = ab.beta;
    Region src = interleaved(sd, ch, sz.w, sz.h, roi);
    Region dst = interleaved(dd, ch, sz.w, sz.h, roi);
    p.add(src.error);
    p.add(dst.error);
    if (p.text.empty()) {
        fill(src.view(), sd, range);
        src.arm();
        dst.arm();
        p.status("gm_convert", gm_convert(&src.m, &dst.m, ab.alpha, ab.beta, NULL));
        p.add(intact(src, "the source"));
        p.add(intact(dst, "the padding of the destination"));
        cv::Mat exp = expected_convert(src.view(), sd, dd, ab.alpha, ab.beta);
        p.diff(compare(name, dst.view(), exp, dd, 0, &src.view(), sd), (long)exp.total() * ch);
    }
    verdict(g, name, p.text);
}

void test_convert()
{
    Group g("convert");
    int pair = 0;
    for (gm_dtype sd : kDtypes)
        for (gm_dtype dd : kDtypes) {
            for (int ch = 1; ch <= 4; ++ch)
                for (int s = 0; s < kBig; ++s)
                    for (const AlphaBeta& ab : kAlphaBeta)
                        for (bool roi : {false, true})
                            convert_case(g, sd, dd, ch, kSizes[s], roi, ab);
            // The camera-sized frame once per pair (time): as an ROI, with
            // alpha/beta and channels cycling over the pairs.
            convert_case(g, sd, dd, 1 + pair % 4, kSizes[kBig], true, kAlphaBeta[pair % kAlphaBetaCount]);
            ++pair;
        }
}

// -------------------------------------------------------------- split/merge

// Values for data-movement tests: integers are any bits; floats are finite
// values plus signed zeros, infinities and subnormals, which must move
// unchanged. (NaN payloads are the separate "payloads" group.)
void fill_moved(cv::Mat& m, gm_dtype d)
{
    fill(m, d);
    if (!is_float(d))
        return;
    size_t es = gm_dtype_size(d), n = (size_t)m.cols * m.channels();
    for (int y = 0; y < m.rows; ++y)
        for (size_t i = 0; i < n; ++i) {
            if (t_rand() % 8)
                continue;
            uint8_t* p = m.ptr(y) + i * es;
            uint64_t sign = t_rand() & 1, kind = t_rand() % 3;
            if (d == GM_F64) {
                uint64_t v = (sign << 63) | (kind == 0 ? 0 : kind == 1 ? 0x7ff0000000000000ull : (t_rand() >> 12));
                memcpy(p, &v, 8);
            } else if (d == GM_F32) {
                uint32_t v = (uint32_t)(sign << 31) | (kind == 0 ? 0u : kind == 1 ? 0x7f800000u : (uint32_t)(t_rand() >> 41));
                memcpy(p, &v, 4);
            } else { // f16 and bf16: exponent field 5 resp. 8 bits
                uint16_t inf = d == GM_F16 ? 0x7c00 : 0x7f80, mant = d == GM_F16 ? 0x3ff : 0x7f;
                uint16_t v = (uint16_t)((sign << 15) | (kind == 0 ? 0 : kind == 1 ? inf : (1 + t_rand() % mant)));
                memcpy(p, &v, 2);
            }
        }
}

// How a test fills its source.
using Filler = void (*)(cv::Mat&, gm_dtype);

// gm_split into one planar image, and gm_split_planes into separately
// allocated planes (different pitches when roi: the one-plane-at-a-time
// path; the same pitch when compact: the all-planes path), against cv::split.
void split_case(Group& g, gm_dtype d, int ch, const Size2& sz, bool roi, bool separate, Filler filler)
{
    std::string name = strf("%s %s c%d %s", separate ? "split_planes" : "split", gm_dtype_name(d), ch,
                            size_name(sz, roi).c_str());
    Problems p;
    Region src = interleaved(d, ch, sz.w, sz.h, roi);
    std::vector<Region> dst;
    if (separate)
        for (int c = 0; c < ch; ++c)
            dst.push_back(interleaved(d, 1, sz.w, sz.h, roi, c)); // extra right padding: pitches differ
    else
        dst.push_back(planar(d, ch, sz.w, sz.h, roi));
    p.add(src.error);
    for (Region& r : dst)
        p.add(r.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    filler(src.view(), d);
    src.arm();
    for (Region& r : dst)
        r.arm();
    if (separate) {
        std::vector<gm_mat> planes;
        for (Region& r : dst)
            planes.push_back(r.m);
        p.status("gm_split_planes", gm_split_planes(&src.m, planes.data(), NULL));
    } else {
        p.status("gm_split", gm_split(&src.m, &dst[0].m, NULL));
    }
    p.add(intact(src, "the source"));
    for (Region& r : dst)
        p.add(intact(r, "the padding of the destination"));
    std::vector<cv::Mat> exp;
    cv::split(src.view(), exp);
    long bad = 0;
    for (int c = 0; c < ch; ++c)
        bad += compare(name, separate ? dst[c].view() : dst[0].views[c], exp[c], d, c);
    p.diff(bad, (long)sz.w * sz.h * ch);
    verdict(g, name, p.text);
}

// gm_merge from one planar image and gm_merge_planes from separate planes,
// against cv::merge.
void merge_case(Group& g, gm_dtype d, int ch, const Size2& sz, bool roi, bool separate, Filler filler)
{
    std::string name = strf("%s %s c%d %s", separate ? "merge_planes" : "merge", gm_dtype_name(d), ch,
                            size_name(sz, roi).c_str());
    Problems p;
    std::vector<Region> src;
    if (separate)
        for (int c = 0; c < ch; ++c)
            src.push_back(interleaved(d, 1, sz.w, sz.h, roi, c));
    else
        src.push_back(planar(d, ch, sz.w, sz.h, roi));
    Region dst = interleaved(d, ch, sz.w, sz.h, roi);
    for (Region& r : src)
        p.add(r.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    std::vector<cv::Mat> planes;
    for (Region& r : src)
        for (cv::Mat& v : r.views) {
            filler(v, d);
            planes.push_back(v);
        }
    for (Region& r : src)
        r.arm();
    dst.arm();
    if (separate) {
        std::vector<gm_mat> ms;
        for (Region& r : src)
            ms.push_back(r.m);
        p.status("gm_merge_planes", gm_merge_planes(ms.data(), ch, &dst.m, NULL));
    } else {
        p.status("gm_merge", gm_merge(&src[0].m, &dst.m, NULL));
    }
    for (Region& r : src)
        p.add(intact(r, "the source"));
    p.add(intact(dst, "the padding of the destination"));
    cv::Mat exp;
    cv::merge(planes, exp);
    p.diff(compare(name, dst.view(), exp, d), (long)sz.w * sz.h * ch);
    verdict(g, name, p.text);
}

// One of split, split_planes, merge, merge_planes by number.
void relayout_case(Group& g, int op, gm_dtype d, int ch, const Size2& sz, bool roi, Filler filler)
{
    if (op < 2)
        split_case(g, d, ch, sz, roi, op == 1, filler);
    else
        merge_case(g, d, ch, sz, roi, op == 3, filler);
}

void test_split_merge()
{
    Group g("split");
    for (gm_dtype d : kDtypes)
        for (int ch = 2; ch <= 4; ++ch) {
            for (int s = 0; s < kBig; ++s)
                for (bool roi : {false, true})
                    for (int op = 0; op < 4; ++op)
                        relayout_case(g, op, d, ch, kSizes[s], roi, fill_moved);
            // The camera frame (time): one operation per dtype and channel count, as an ROI.
            relayout_case(g, ((int)d + ch) % 4, d, ch, kSizes[kBig], true, fill_moved);
        }
}

// NaN bit patterns of every kind: quiet and signaling, both signs, payloads.
// cv::split/merge/cvtColor move bits; a path that passes a float through
// arithmetic or a float <-> double conversion quiets signaling NaNs.
void fill_nans(cv::Mat& m, gm_dtype d)
{
    size_t es = gm_dtype_size(d), n = (size_t)m.cols * m.channels();
    for (int y = 0; y < m.rows; ++y)
        for (size_t i = 0; i < n; ++i) {
            uint8_t* p = m.ptr(y) + i * es;
            uint64_t r = t_rand(), sign = r & 1, quiet = (r >> 1) & 1, pay = r >> 2;
            if (d == GM_F64) {
                uint64_t v = (sign << 63) | 0x7ff0000000000000ull | (quiet << 51) | (pay & 0x7ffffffffffffull) | 1;
                memcpy(p, &v, 8);
            } else if (d == GM_F32) {
                uint32_t v = (uint32_t)(sign << 31) | 0x7f800000u | (uint32_t)(quiet << 22) | ((uint32_t)pay & 0x3fffffu) | 1u;
                memcpy(p, &v, 4);
            } else if (d == GM_F16) {
                uint16_t v = (uint16_t)((sign << 15) | 0x7c00u | (quiet << 9) | (pay & 0x1ffu) | 1u);
                memcpy(p, &v, 2);
            } else {
                uint16_t v = (uint16_t)((sign << 15) | 0x7f80u | (quiet << 6) | (pay & 0x3fu) | 1u);
                memcpy(p, &v, 2);
            }
        }
}

// -------------------------------------------------------- cvtColor swaps

struct Swap {
    const char* name;
    int code, src_ch, dst_ch;
    int map[4];
};

// The channel swaps cvtColor does, as gm_xform channel maps. BGR2BGRA's
// alpha is GM_CONST with offset = OpenCV's alpha for the depth.
const Swap kSwaps[] = {
    {"BGR2RGB", cv::COLOR_BGR2RGB, 3, 3, {2, 1, 0, 0}},
    {"BGRA2BGR", cv::COLOR_BGRA2BGR, 4, 3, {0, 1, 2, 0}},
    {"BGR2BGRA", cv::COLOR_BGR2BGRA, 3, 4, {0, 1, 2, GM_CONST}},
    {"GRAY2BGR", cv::COLOR_GRAY2BGR, 1, 3, {0, 0, 0, 0}},
    {"RGBA2BGRA", cv::COLOR_RGBA2BGRA, 4, 4, {2, 1, 0, 3}},
};

double opencv_alpha(gm_dtype d) { return d == GM_U8 ? 255.0 : d == GM_U16 ? 65535.0 : 1.0; }

void swap_case(Group& g, const Swap& sw, gm_dtype d, const Size2& sz, bool roi, Filler filler)
{
    std::string name = strf("cvtColor %s %s %s", sw.name, gm_dtype_name(d), size_name(sz, roi).c_str());
    Problems p;
    Region src = interleaved(d, sw.src_ch, sz.w, sz.h, roi);
    Region dst = interleaved(d, sw.dst_ch, sz.w, sz.h, roi);
    p.add(src.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    filler(src.view(), d);
    src.arm();
    dst.arm();
    gm_xform x = gm_xform_identity();
    for (int c = 0; c < 4; ++c)
        x.map[c] = sw.map[c];
    x.offset[3] = sw.map[3] == GM_CONST ? opencv_alpha(d) : 0.0;
    p.status("gm_transform", gm_transform(&src.m, &dst.m, &x, NULL));
    p.add(intact(src, "the source"));
    p.add(intact(dst, "the padding of the destination"));
    cv::Mat exp;
    cv::cvtColor(src.view(), exp, sw.code);
    p.diff(compare(name, dst.view(), exp, d), (long)sz.w * sz.h * sw.dst_ch);
    verdict(g, name, p.text);
}

void test_swaps()
{
    Group g("cvtColor");
    for (const Swap& sw : kSwaps)
        for (gm_dtype d : {GM_U8, GM_U16, GM_F32})
            for (int s = 0; s < kSizeCount; ++s)
                for (bool roi : {false, true})
                    if (s != kBig || (roi && d == GM_U8)) // the camera frame: u8, ROI
                        swap_case(g, sw, d, kSizes[s], roi, fill_moved);
}

// Signaling and quiet NaNs through the pure data movements.
void test_payloads()
{
    Group g("payloads");
    Size2 sz{13, 7};
    for (gm_dtype d : {GM_F32, GM_F64, GM_F16, GM_BF16})
        for (bool roi : {false, true}) {
            split_case(g, d, 3, sz, roi, false, fill_nans);
            split_case(g, d, 3, sz, roi, true, fill_nans);
            merge_case(g, d, 3, sz, roi, false, fill_nans);
            merge_case(g, d, 3, sz, roi, true, fill_nans);
            if (d == GM_F32)
                for (const Swap& sw : kSwaps)
                    if (sw.map[3] != GM_CONST)
                        swap_case(g, sw, d, sz, roi, fill_nans);
        }
}

// -------------------------------------------------------------------- blobs

// OpenCV's blob for images (sizes unchanged, no crop, CV_32F). blobFromImage
// subtracts the mean in place on float inputs (images[i] -= mean on a header
// of the caller's data), so it gets copies.
cv::Mat opencv_blob(const std::vector<cv::Mat>& images, double sf, const cv::Scalar& mean, bool swap_rb)
{
    std::vector<cv::Mat> copies;
    for (const cv::Mat& m : images)
        copies.push_back(m.clone());
    return cv::dnn::blobFromImages(copies, sf, cv::Size(), mean, swap_rb, false, CV_32F);
}

// Plane (n, c) of an NCHW blob as an h x w Mat.
cv::Mat blob_plane(const cv::Mat& blob, int n, int c)
{
    return cv::Mat(blob.size[2], blob.size[3], blob.type(), const_cast<uchar*>(blob.ptr(n, c)));
}

// What gpumat's blob with std computes: OpenCV's (x - mean) (scalefactor 1),
// then each channel multiplied in float by (float)(scalefactor / std[c]),
// one rounding, as gpumat's fma(v, s, 0) rounds once. Bit-exact expected.
void scale_by_std(cv::Mat& blob, double sf, const double* std_)
{
    for (int n = 0; n < blob.size[0]; ++n)
        for (int c = 0; c < blob.size[1]; ++c) {
            float k = (float)(sf / std_[c]);
            cv::Mat pl = blob_plane(blob, n, c);
            for (int y = 0; y < pl.rows; ++y)
                for (int x = 0; x < pl.cols; ++x)
                    pl.ptr<float>(y)[x] *= k;
        }
}

// The expected blob for the parameters, as NCHW f32.
cv::Mat expected_blob(const std::vector<cv::Mat>& images, double sf, const double* mean, const double* std_, bool swap_rb)
{
    cv::Scalar m(mean[0], mean[1], mean[2], mean[3]);
    if (!std_)
        return opencv_blob(images, sf, m, swap_rb);
    cv::Mat b = opencv_blob(images, 1.0, m, swap_rb);
    scale_by_std(b, sf, std_);
    return b;
}

// Compares image n of gpumat's blob (dst: planar planes or one interleaved
// image) with image n of the NCHW blob exp (f32; converted to f16 for an f16 dst).
long compare_blob(const std::string& name, const std::vector<cv::Mat>& got, bool nhwc, const cv::Mat& exp, int n, gm_dtype dd)
{
    int ch = exp.size[1];
    std::vector<cv::Mat> planes;
    for (int c = 0; c < ch; ++c) {
        cv::Mat pl = blob_plane(exp, n, c);
        if (dd == GM_F16)
            pl.convertTo(pl, CV_16F);
        planes.push_back(pl);
    }
    if (nhwc) { // NHWC: the blob transposed, i.e. its planes interleaved
        cv::Mat hwc;
        cv::merge(planes, hwc);
        return compare(name, got[0], hwc, dd);
    }
    long bad = 0;
    for (int c = 0; c < ch; ++c)
        bad += compare(name, got[c], planes[c], dd, c);
    return bad;
}

struct BlobParams {
    double sf;
    const double* mean;
    const double* std_;
    bool swap_rb;
};

const double kMeanZero[4] = {0, 0, 0, 0};
const double kMeanBGR[4] = {104, 117, 123, 0};
const double kMeanImagenet[4] = {123.675, 116.28, 103.53, 127.5};
const double kStdImagenet[4] = {58.395, 57.12, 57.375, 64.0};

std::string blob_params_name(const BlobParams& b)
{
    return strf("sf=%g mean=(%g,%g,%g,%g)%s%s", b.sf, b.mean[0], b.mean[1], b.mean[2], b.mean[3],
                b.std_ ? " std=imagenet" : "", b.swap_rb ? " swapRB" : "");
}

// gm_blob_from_image on one image into NCHW or NHWC, f32 or f16, padded.
void blob_case(Group& g, gm_dtype sd, int ch, const Size2& sz, bool roi, const BlobParams& b, bool nhwc, gm_dtype dd)
{
    std::string name = strf("blob %s c%d -> %s %s %s %s", gm_dtype_name(sd), ch, gm_dtype_name(dd), nhwc ? "NHWC" : "NCHW",
                            size_name(sz, roi).c_str(), blob_params_name(b).c_str());
    Problems p;
    Region src = interleaved(sd, ch, sz.w, sz.h, roi);
    Region dst = nhwc ? interleaved(dd, ch, sz.w, sz.h, roi) : planar(dd, ch, sz.w, sz.h, roi);
    p.add(src.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    Range r; // f32 sources: the reals of rand_real, exact halves included
    fill(src.view(), sd, r);
    src.arm();
    dst.arm();
    p.status("gm_blob_from_image", gm_blob_from_image(&src.m, &dst.m, b.sf, b.mean, b.std_, b.swap_rb, NULL));
    p.add(intact(src, "the source"));
    p.add(intact(dst, "the padding of the destination"));
    cv::Mat exp = expected_blob({src.view()}, b.sf, b.mean, b.std_, b.swap_rb);
    p.diff(compare_blob(name, dst.views, nhwc, exp, 0, dd), (long)sz.w * sz.h * ch);
    verdict(g, name, p.text);
}

// gm_blob_from_images: 3 ROI images into a batched gm_alloc_desc'd dst.
void blobs_case(Group& g, gm_dtype sd, int ch, const Size2& sz, bool roi, const BlobParams& b, bool nhwc)
{
    const int n = 3;
    std::string name = strf("blobs x%d %s c%d -> f32 %s %s %s", n, gm_dtype_name(sd), ch, nhwc ? "NHWC" : "NCHW",
                            size_name(sz, roi).c_str(), blob_params_name(b).c_str());
    Problems p;
    std::vector<Region> src;
    std::vector<cv::Mat> views;
    std::vector<gm_mat> ms;
    for (int i = 0; i < n; ++i) {
        src.push_back(interleaved(sd, ch, sz.w, sz.h, roi));
        p.add(src.back().error);
    }
    gm_desc desc{};
    desc.width = sz.w;
    desc.height = sz.h;
    desc.channels = ch;
    desc.batch = n;
    desc.dtype = GM_F32;
    desc.layout = nhwc ? GM_HWC : GM_CHW;
    gm_mat dst{};
    p.status("gm_alloc_desc", gm_alloc_desc(&dst, &desc, GM_HOST));
    if (!p.text.empty())
        return verdict(g, name, p.text);
    for (Region& r : src) {
        fill(r.view(), sd);
        r.arm();
        views.push_back(r.view());
        ms.push_back(r.m);
    }
    p.status("gm_blob_from_images", gm_blob_from_images(ms.data(), n, &dst, b.sf, b.mean, b.std_, b.swap_rb, NULL));
    for (Region& r : src)
        p.add(intact(r, "a source"));
    cv::Mat exp = expected_blob(views, b.sf, b.mean, b.std_, b.swap_rb);
    long bad = 0;
    for (int i = 0; i < n; ++i) {
        std::vector<cv::Mat> got;
        uint8_t* base = (uint8_t*)dst.data + i * dst.batch_pitch;
        if (nhwc)
            got.push_back(cv::Mat(sz.h, sz.w, CV_32FC(ch), base, (size_t)dst.pitch));
        else
            for (int c = 0; c < ch; ++c)
                got.push_back(cv::Mat(sz.h, sz.w, CV_32F, base + c * dst.plane_pitch, (size_t)dst.pitch));
        bad += compare_blob(name + strf(" image %d", i), got, nhwc, exp, i, GM_F32);
    }
    p.diff(bad, (long)n * sz.w * sz.h * ch);
    gm_free(&dst);
    verdict(g, name, p.text);
}

// gm_blob_from_image_with_params in float (GM_BLOB_FLOAT, OpenCV 4.6's
// arithmetic) with a scale for each channel: plane c is OpenCV's blob of
// scalefactor scale[c] (4.6 has one scale for all). With divide, plane c
// is OpenCV's x - mean (scalefactor 1) divided in float by (float)scale[c],
// as torchvision's Normalize divides.
void blob_params_case(Group& g, gm_dtype sd, int ch, const Size2& sz, bool roi, bool swap_rb, bool divide, bool nhwc)
{
    std::string name = strf("blob params %s c%d -> f32 %s %s%s%s", gm_dtype_name(sd), ch, nhwc ? "NHWC" : "NCHW",
                            size_name(sz, roi).c_str(), swap_rb ? " swapRB" : "", divide ? " divide" : "");
    Problems p;
    Region src = interleaved(sd, ch, sz.w, sz.h, roi);
    Region dst = nhwc ? interleaved(GM_F32, ch, sz.w, sz.h, roi) : planar(GM_F32, ch, sz.w, sz.h, roi);
    p.add(src.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    gm_blob_params bp{};
    for (int c = 0; c < 4; ++c) {
        bp.mean[c] = kMeanImagenet[c];
        bp.scale[c] = divide ? kStdImagenet[c] : 1 / kStdImagenet[c];
    }
    bp.swap_rb = swap_rb;
    bp.divide = divide;
    Range r;
    fill(src.view(), sd, r);
    src.arm();
    dst.arm();
    p.status("gm_blob_from_image_with_params", gm_blob_from_image_with_params(&src.m, &dst.m, &bp, NULL));
    p.add(intact(src, "the source"));
    p.add(intact(dst, "the padding of the destination"));
    cv::Scalar m(bp.mean[0], bp.mean[1], bp.mean[2], bp.mean[3]);
    cv::Mat exp = opencv_blob({src.view()}, 1.0, m, swap_rb);
    for (int c = 0; c < ch; ++c) {
        cv::Mat pl = blob_plane(exp, 0, c);
        if (divide) {
            float k = (float)bp.scale[c];
            for (int y = 0; y < pl.rows; ++y)
                for (int x = 0; x < pl.cols; ++x)
                    pl.ptr<float>(y)[x] /= k;
        } else {
            blob_plane(opencv_blob({src.view()}, bp.scale[c], m, swap_rb), 0, c).copyTo(pl);
        }
    }
    p.diff(compare_blob(name, dst.views, nhwc, exp, 0, GM_F32), (long)sz.w * sz.h * ch);
    verdict(g, name, p.text);
}

void test_blobs()
{
    Group g("blob");
    const double sfs[] = {1.0, 1 / 255., 0.017};
    const double* means[] = {kMeanZero, kMeanBGR, kMeanImagenet};
    for (gm_dtype sd : {GM_U8, GM_F32})
        for (int ch : {1, 3, 4})
            for (int s = 0; s < kBig; ++s)
                for (bool roi : {false, true})
                    for (int k = 0; k < 3; ++k)
                        for (int swap = 0; swap < (ch >= 3 ? 2 : 1); ++swap) {
                            // every scalefactor with every mean, across the sizes
                            BlobParams b{sfs[k], means[(k + s) % 3], nullptr, swap != 0};
                            for (bool nhwc : {false, true})
                                for (gm_dtype dd : {GM_F32, GM_F16})
                                    blob_case(g, sd, ch, kSizes[s], roi, b, nhwc, dd);
                            b.std_ = kStdImagenet;
                            blob_case(g, sd, ch, kSizes[s], roi, b, s % 2 == 1, GM_F32);
                        }
    // The camera frame, the way an inference program calls it.
    BlobParams cam{1 / 255., kMeanImagenet, nullptr, true};
    blob_case(g, GM_U8, 3, kSizes[kBig], true, cam, false, GM_F32);
    cam.std_ = kStdImagenet;
    blob_case(g, GM_U8, 3, kSizes[kBig], true, cam, false, GM_F16);

    for (gm_dtype sd : {GM_U8, GM_F32})
        for (int ch : {1, 3, 4})
            for (int s : {0, 2, 4, 5})
                for (bool nhwc : {false, true}) {
                    BlobParams b{s == 4 ? 1 / 255. : 0.017, s == 0 ? kMeanZero : kMeanImagenet,
                                 s == 5 ? kStdImagenet : nullptr, ch >= 3 && s != 2};
                    blobs_case(g, sd, ch, kSizes[s], s != 0, b, nhwc);
                }
    for (gm_dtype sd : {GM_U8, GM_F32})
        for (int ch : {1, 3, 4})
            for (int s = 0; s < kBig; ++s)
                for (bool divide : {false, true})
                    blob_params_case(g, sd, ch, kSizes[s], s % 2 == 1, ch >= 3 && s % 3 != 0, divide, s % 2 == 0);
}

// ------------------------------------------------------------------- resize

// OpenCV's INTER_* flag of each gm_interp (gpumat numbers its own: zero is LINEAR).
const int kCvInterp[] = {cv::INTER_LINEAR, cv::INTER_NEAREST, cv::INTER_AREA, cv::INTER_LINEAR_EXACT};

// OpenCV's result in a wider dtype back in d (bf16 rounded to nearest
// even, the others by convertTo; s32 clamped first: gpumat saturates where
// x86 OpenCV's rounding gives INT_MIN, as codec.inc says, and a cubic warp
// overshoots). The resize's and the warp's expectations both end here.
cv::Mat narrow_back(const cv::Mat& out, gm_dtype d)
{
    cv::Mat back;
    if (d == GM_S32) {
        cv::Mat clamped = cv::min(cv::max(out, -2147483648.0), 2147483647.0);
        clamped.convertTo(back, CV_32S);
        return back;
    }
    if (d == GM_BF16) {
        back.create(out.rows, out.cols, CV_16UC(out.channels()));
        for (int y = 0; y < out.rows; ++y)
            for (int i = 0; i < out.cols * out.channels(); ++i)
                back.ptr<uint16_t>(y)[i] = float_to_bf16(out.ptr<float>(y)[i]);
        return back;
    }
    if (out.depth() == cv_depth(d))
        return out;
    out.convertTo(back, cv_depth(d));
    return back;
}

// cv::resize of src (dtype d) to w x h, or at fx, fy when fx > 0. The dtypes
// OpenCV 4 cannot resize are resized as the wider dtype holding the same
// values and rounded back, as gpumat documents: s8 as s16, s32 as f64, f16
// and bf16 as f32 (to nearest even). (OpenCV's LINEAR_EXACT takes s8 with
// the fixed point of s16, but not its exact 2x, which it reroutes to an AREA
// it has no s8 code for: s16 stands in for s8 throughout. It takes s32 too,
// as itself, but for the exact 2x it reroutes to an AREA it has no s32
// code for: there, as for the other samplers, f64.)
cv::Mat expected_resize(const cv::Mat& src, gm_dtype d, int w, int h, double fx, double fy, int interp)
{
    cv::Mat wide, out;
    double sx = 1 / (fx > 0 ? fx : (double)w / src.cols), sy = 1 / (fx > 0 ? fy : (double)h / src.rows);
    bool area_2x = std::fabs(sx - 2) < DBL_EPSILON && std::fabs(sy - 2) < DBL_EPSILON && src.channels() != 2;
    bool exact_s32 = d == GM_S32 && interp == cv::INTER_LINEAR_EXACT && !area_2x; // resize_bitExact has s32
    int via = d == GM_S8 ? CV_16S : d == GM_S32 && !exact_s32 ? CV_64F : d == GM_F16 || d == GM_BF16 ? CV_32F : -1;
    if (via < 0)
        wide = src;
    else if (d == GM_BF16)
        wide = opencv_source(src, d);
    else
        src.convertTo(wide, via);
    if (fx > 0)
        cv::resize(wide, out, cv::Size(), fx, fy, interp);
    else
        cv::resize(wide, out, cv::Size(w, h), 0, 0, interp);
    return via < 0 ? out : narrow_back(out, d);
}

// Source values for resize: integers over their whole range, floats finite
// and mixed in magnitude (rand_real); bf16 as the bits of such floats.
void fill_resize(cv::Mat& m, gm_dtype d)
{
    if (d == GM_BF16) {
        for (int y = 0; y < m.rows; ++y)
            for (int i = 0; i < m.cols * m.channels(); ++i)
                m.ptr<uint16_t>(y)[i] = float_to_bf16((float)rand_real(1e30));
        return;
    }
    fill(m, d);
}

// One resize from sw x sh to dw x dh (fx > 0: the explicit-scale form, whose
// destination size follows from fx, fy), source and destination each
// interleaved or planar, compact or as ROIs; the planar side is compared
// plane by plane with the interleaved expectation.
void resize_case(Group& g, gm_dtype d, int ch, int sw, int sh, int dw, int dh, double fx, double fy, int interp,
                 bool roi, bool src_planar, bool dst_planar)
{
    std::string name = strf("resize %s c%d %dx%d -> %dx%d fx=%g fy=%g interp %d%s%s%s", gm_dtype_name(d), ch, sw, sh,
                            dw, dh, fx, fy, interp, roi ? " roi" : "", src_planar ? " planar src" : "",
                            dst_planar ? " planar dst" : "");
    Problems p;
    Region src = src_planar ? planar(d, ch, sw, sh, roi) : interleaved(d, ch, sw, sh, roi);
    Region dst = dst_planar ? planar(d, ch, dw, dh, roi) : interleaved(d, ch, dw, dh, roi);
    p.add(src.error);
    p.add(dst.error);
    if (p.text.empty()) {
        cv::Mat image(sh, sw, CV_MAKETYPE(cv_depth(d), ch));
        fill_resize(image, d);
        if (src_planar) {
            std::vector<cv::Mat> planes;
            cv::split(image, planes);
            for (int c = 0; c < ch; ++c)
                planes[c].copyTo(src.views[c]);
        } else {
            image.copyTo(src.view());
        }
        src.arm();
        dst.arm();
        if (fx > 0)
            p.status("gm_resize_scale", gm_resize_scale(&src.m, &dst.m, fx, fy, (gm_interp)interp, NULL));
        else
            p.status("gm_resize", gm_resize(&src.m, &dst.m, (gm_interp)interp, NULL));
        p.add(intact(src, "the source"));
        p.add(intact(dst, "the padding of the destination"));
        cv::Mat exp = expected_resize(image, d, dw, dh, fx, fy, kCvInterp[interp]);
        if (dst_planar) {
            std::vector<cv::Mat> planes;
            cv::split(exp, planes);
            long bad = 0;
            for (int c = 0; c < ch; ++c)
                bad += compare(name, dst.views[c], planes[c], d, c);
            p.diff(bad, (long)exp.total() * ch);
        } else {
            p.diff(compare(name, dst.view(), exp, d), (long)exp.total() * ch);
        }
    }
    verdict(g, name, p.text);
}

// Source and destination sizes that reach every path of cv::resize: 1-pixel
// edges (1xN, Nx1, 1x1), exact 2x and other whole-factor downscales (area's
// cell means, and linear's reroutes: to them for 2x, to one tap for odd
// factors, some with a factor 1 along one axis), non-integer downscales (area's
// partial cells), upscales (area as bilinear), equal sizes (a copy), and a
// camera frame to a network input.
struct ResizeSizes {
    int sw, sh, dw, dh;
};
const ResizeSizes kResizeSizes[] = {{1, 1, 3, 2},   {1, 13, 4, 5},  {13, 1, 6, 1},   {7, 5, 1, 1},   {16, 10, 8, 5},
                                    {17, 11, 8, 5}, {30, 12, 10, 4}, {24, 18, 6, 9},  {37, 23, 11, 7}, {9, 7, 23, 19},
                                    {40, 30, 31, 17}, {10, 8, 10, 8}, {20, 9, 7, 30},  {33, 15, 11, 5}, {25, 15, 5, 3},
                                    {21, 10, 7, 10}, {18, 9, 6, 1}};
// Explicit scales, among them factors whose size rounds (0.5 of an odd
// width: cells the image cuts) and ones that differ from the size ratio.
const double kResizeScales[][2] = {{0.5, 0.5}, {0.4667, 0.4667}, {1.7, 0.3}, {0.25, 0.5}, {3.0, 2.0}, {1.0 / 3, 0.2}};

void test_resize()
{
    Group g("resize");
    const int interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_AREA, GM_INTER_LINEAR_EXACT};
    int n = 0;
    for (gm_dtype d : kDtypes) {
        for (int ch = 1; ch <= 4; ++ch)
            for (int interp : interps) {
                for (const ResizeSizes& z : kResizeSizes) {
                    ++n;
                    resize_case(g, d, ch, z.sw, z.sh, z.dw, z.dh, 0, 0, interp, n % 2 == 0, n % 5 == 1, n % 7 == 3);
                }
                for (const auto& f : kResizeScales) {
                    int sw = 11 + (int)(t_rand() % 40), sh = 9 + (int)(t_rand() % 30);
                    ++n;
                    resize_case(g, d, ch, sw, sh, (int)std::nearbyint(sw * f[0]), (int)std::nearbyint(sh * f[1]), f[0],
                                f[1], interp, n % 2 == 0, false, n % 3 == 0);
                }
                // random sizes up and down
                for (int r = 0; r < 6; ++r) {
                    ++n;
                    resize_case(g, d, ch, 1 + (int)(t_rand() % 90), 1 + (int)(t_rand() % 60), 1 + (int)(t_rand() % 90),
                                1 + (int)(t_rand() % 60), 0, 0, interp, n % 2 == 0, n % 4 == 1, n % 3 == 2);
                }
            }
    }
    // A camera frame to network sizes (u8, 3 channels: the common case).
    for (int interp : interps) {
        resize_case(g, GM_U8, 3, 1920, 1080, 640, 360, 0, 0, interp, true, false, false);
        resize_case(g, GM_U8, 3, 1920, 1080, 608, 342, 0, 0, interp, false, false, true);
        resize_case(g, GM_F32, 3, 1280, 720, 224, 224, 0, 0, interp, true, false, false);
    }
    // u8 halved by AREA (the CPU path's AVX2 loop), rows long enough for it
    for (int ch : {1, 3, 4}) {
        resize_case(g, GM_U8, ch, 1918, 1082, 959, 541, 0, 0, GM_INTER_AREA, true, false, false);
        resize_case(g, GM_U8, ch, 1920, 1080, 960, 540, 0, 0, GM_INTER_AREA, false, false, ch == 3);
    }
}

// --------------------------------------------------------------- preprocess

// The placement each letterbox rule documents (gpumat/prep.h, and the
// sources in shared/reference/preprocessing-semantics.md 2.1-2.3), derived
// here from the frameworks' own expressions: (resized width, height, left,
// top).
// A letterbox: the resized size, its top-left pixel, and the size of the
// image made (the target's, or with ultralytics' auto its own).
struct Place {
    int w, h, left, top, out_w, out_h;
};

Place rule_place(int rule, int W, int H, int Wn, int Hn, bool top_left, bool no_upscale, int stride = 0)
{
    Place p{};
    p.out_w = Wn, p.out_h = Hn;
    if (rule == GM_LETTERBOX_ULTRALYTICS) { // LetterBox: Python floats, round() half to even
        double r = std::min((double)Hn / H, (double)Wn / W);
        if (no_upscale)
            r = std::min(r, 1.0);
        p.w = std::max((int)std::nearbyint(W * r), 1);
        p.h = std::max((int)std::nearbyint(H * r), 1);
        double dw = Wn - p.w, dh = Hn - p.h;
        if (stride) // auto: np.mod
            dw = std::fmod(dw, stride), dh = std::fmod(dh, stride);
        if (!top_left) // center
            dw /= 2, dh /= 2;
        p.left = top_left ? 0 : (int)std::nearbyint(dw - 0.1);
        p.top = top_left ? 0 : (int)std::nearbyint(dh - 0.1);
        p.out_w = p.w + p.left + (int)std::nearbyint(dw + 0.1); // copyMakeBorder's left + right
        p.out_h = p.h + p.top + (int)std::nearbyint(dh + 0.1);
    } else if (rule == GM_LETTERBOX_OPENCV_DNN) { // Image2BlobParams: float factor, int() casts; no options
        float f = std::min(Wn / (float)W, Hn / (float)H);
        p.h = int(H * f);
        p.w = int(W * f);
        p.top = top_left ? 0 : (Hn - p.h) / 2;
        p.left = top_left ? 0 : (Wn - p.w) / 2;
    } else { // nvinfer: hdest = width * src_height / (double)src_width, (guint) casts
        double hdest = (double)(Wn * H) / (double)W;
        if (hdest <= Hn) {
            p.w = Wn;
            p.h = (int)(unsigned)hdest;
        } else {
            p.w = (int)(unsigned)((double)(Hn * W) / (double)H);
            p.h = Hn;
        }
        p.left = top_left ? 0 : (Wn - p.w) / 2; // without symmetric-padding: top left
        p.top = top_left ? 0 : (Hn - p.h) / 2;
    }
    return p;
}

// Whether pp's letterbox rule has top_left and no_upscale, as its framework
// does (gpumat/prep.h refuses the others): ultralytics both, DeepStream
// top_left (no symmetric-padding), OpenCV dnn neither.
bool has_top_left(const gm_prep& pp)
{
    return pp.fit == GM_FIT_LETTERBOX && pp.rule != GM_LETTERBOX_OPENCV_DNN;
}

bool has_no_upscale(const gm_prep& pp)
{
    return pp.fit == GM_FIT_LETTERBOX && pp.rule == GM_LETTERBOX_ULTRALYTICS;
}

// The source image as OpenCV's chain leaves it before the arithmetic, in
// the source dtype: cv::resize of the crop, then copyMakeBorder's pad
// (letterbox) or the centre cut of blobFromImage(crop = true).
cv::Mat prep_placed(const cv::Mat& crop, const gm_prep& pp, int Wn, int Hn)
{
    int interp = kCvInterp[pp.interp];
    cv::Mat resized, out;
    if (pp.fit == GM_FIT_STRETCH) {
        cv::resize(crop, out, cv::Size(Wn, Hn), 0, 0, interp);
    } else if (pp.fit == GM_FIT_CROP_CENTER) {
        float f = std::max(Wn / (float)crop.cols, Hn / (float)crop.rows);
        cv::resize(crop, resized, cv::Size(), f, f, interp);
        cv::Rect r(cv::Point(int(0.5 * (resized.cols - Wn)), int(0.5 * (resized.rows - Hn))), cv::Size(Wn, Hn));
        out = resized(r).clone();
    } else {
        Place p = rule_place(pp.rule, crop.cols, crop.rows, Wn, Hn, pp.top_left != 0, pp.no_upscale != 0, pp.stride);
        cv::resize(crop, resized, cv::Size(p.w, p.h), 0, 0, interp);
        cv::copyMakeBorder(resized, out, p.top, p.out_h - p.h - p.top, p.left, p.out_w - p.w - p.left,
                           cv::BORDER_CONSTANT, cv::Scalar(pp.pad[0], pp.pad[1], pp.pad[2], pp.pad[3]));
    }
    return out;
}

// Destination channel c's source channel under pp (gpumat/prep.h).
int prep_source_channel(const gm_prep& pp, int c, int src_channels)
{
    if (pp.channel_map)
        return pp.channel_map[c];
    if (pp.swap_rb && (c == 0 || c == 2))
        return 2 - c;
    return src_channels == 1 ? 0 : c;
}

// blobFromImage's arithmetic on one value, in float, then stored as dd:
// (x - (float)mean) * (float)scale, two roundings as its subtract and
// multiply make them (or the true division).
void prep_store(gm_dtype dd, uint8_t* out, float x, const gm_prep& pp, int c)
{
    float s = (float)(pp.scale[c] == 0 ? 1.0 : pp.scale[c]);
    float t = x - (float)pp.mean[c];
    float v = pp.divide ? t / s : t * s;
    bool plain = pp.mean[c] == 0 && s == 1.0f && !pp.divide;
    switch (dd) {
    case GM_F32: memcpy(out, &v, 4); break;
    case GM_F16: { uint16_t h = cv::float16_t(v).bits(); memcpy(out, &h, 2); break; }
    case GM_BF16: { uint16_t h = float_to_bf16(v); memcpy(out, &h, 2); break; }
    default: *out = plain ? cv::saturate_cast<uint8_t>(x) : cv::saturate_cast<uint8_t>(v); break;
    }
}

// The expected destination planes (one Mat of dd per destination channel;
// with ultralytics' auto, smaller than Wn x Hn).
std::vector<cv::Mat> expected_prep(const cv::Mat& crop, gm_dtype sd, gm_dtype dd, int dch, const gm_prep& pp, int Wn,
                                   int Hn)
{
    cv::Mat placed = prep_placed(crop, pp, Wn, Hn), f;
    placed.convertTo(f, CV_32F);
    std::vector<cv::Mat> planes;
    (void)sd;
    for (int c = 0; c < dch; ++c) {
        cv::Mat pl(placed.rows, placed.cols, cv_depth(dd));
        int k = prep_source_channel(pp, c, crop.channels());
        for (int y = 0; y < placed.rows; ++y)
            for (int x = 0; x < placed.cols; ++x)
                prep_store(dd, pl.ptr(y) + x * gm_dtype_size(dd), f.ptr<float>(y)[x * crop.channels() + k], pp, c);
        planes.push_back(pl);
    }
    return planes;
}

// Where OpenCV 4.6's dnn can say it itself (u8 or f32 sources, one scale, no
// channel map, f32 out), the test's arithmetic must equal blobFromImage's on
// the placed image: the oracle checks itself.
std::string check_against_blob(const cv::Mat& crop, gm_dtype sd, int dch, const gm_prep& pp, int Wn, int Hn,
                               const std::vector<cv::Mat>& exp)
{
    if ((sd != GM_U8 && sd != GM_F32) || pp.channel_map || pp.divide || dch != crop.channels() ||
        (crop.channels() != 1 && crop.channels() != 3 && crop.channels() != 4))
        return "";
    for (int c = 1; c < dch; ++c)
        if (pp.scale[c] != pp.scale[0])
            return "";
    cv::Mat placed = prep_placed(crop, pp, Wn, Hn);
    cv::Scalar mean(pp.mean[0], pp.mean[1], pp.mean[2], pp.mean[3]); // both in destination order
    cv::Mat blob = cv::dnn::blobFromImage(placed.clone(), pp.scale[0] == 0 ? 1.0 : pp.scale[0], cv::Size(), mean,
                                          pp.swap_rb != 0, false, CV_32F);
    long bad = 0;
    for (int c = 0; c < dch && exp[c].depth() == CV_32F; ++c)
        bad += compare("the test's arithmetic vs blobFromImage", exp[c], blob_plane(blob, 0, c), GM_F32, c);
    return bad ? strf("the test's arithmetic differs from blobFromImage in %ld elements", bad) : "";
}

std::string prep_name(gm_dtype sd, int ch, gm_dtype dd, int dch, bool nchw, const gm_prep& pp, int sw, int sh,
                      const cv::Rect& cr, int Wn, int Hn)
{
    static const char* fits[] = {"stretch", "letterbox", "crop-centre"};
    static const char* rules[] = {"ultralytics", "opencv-dnn", "deepstream"};
    return strf("prep %s c%d %dx%d crop %dx%d@%d,%d -> %s c%d %s %dx%d %s%s%s interp %d%s%s%s%s%s", gm_dtype_name(sd),
                ch, sw, sh, cr.width, cr.height, cr.x, cr.y, gm_dtype_name(dd), dch, nchw ? "NCHW" : "NHWC", Wn, Hn,
                fits[pp.fit], pp.fit == GM_FIT_LETTERBOX ? " " : "", pp.fit == GM_FIT_LETTERBOX ? rules[pp.rule] : "",
                (int)pp.interp, pp.top_left ? " top-left" : "", pp.no_upscale ? " no-upscale" : "",
                pp.swap_rb ? " swapRB" : pp.channel_map ? " map" : "", pp.divide ? " divide" : "",
                pp.stride ? strf(" auto stride %d", pp.stride).c_str() : "");
}

// What `run` (a gm_preprocess of crop `cropped` of a source, as sd, into
// dst, a Wn x Hn destination, setting *geo) writes, against OpenCV's chain
// (with ultralytics' auto: its top-left, the rest of dst unchanged): its
// problems into p; the name's suffix (an empty letterbox) into *suffix.
void prep_check(Problems& p, const std::string& name, const cv::Mat& cropped, gm_dtype sd, gm_dtype dd, int dch,
                bool nchw, const gm_prep& pp, int Wn, int Hn, Region& dst,
                const std::function<gm_status(gm_prep_geometry*)>& run, std::string* suffix)
{
    gm_prep_geometry geo{};
    Place e = rule_place(pp.rule, cropped.cols, cropped.rows, Wn, Hn, pp.top_left != 0, pp.no_upscale != 0,
                         pp.stride);
    cv::Rect made = pp.fit == GM_FIT_LETTERBOX ? cv::Rect(0, 0, e.out_w, e.out_h) : cv::Rect(0, 0, Wn, Hn);
    std::vector<cv::Mat> before;
    for (const cv::Mat& v : dst.views)
        before.push_back(v.clone());
    if (pp.fit == GM_FIT_LETTERBOX && (e.w < 1 || e.h < 1)) { // OpenCV dnn truncates a thin crop to nothing
        gm_status s = run(&geo);
        if (s != GM_ERR_SIZE)
            p.add(strf("an empty letterbox (%dx%d) gave %s, GM_ERR_SIZE expected", e.w, e.h, gm_status_string(s)));
        p.add(intact(dst, "the destination"));
        *suffix = " (empty)";
        return;
    }
    p.status(name.c_str(), run(&geo));
    p.add(intact(dst, "the padding of the destination"));
    std::vector<cv::Mat> exp = expected_prep(cropped, sd, dd, dch, pp, Wn, Hn);
    p.add(check_against_blob(cropped, sd, dch, pp, Wn, Hn, exp));
    long bad = 0, moved = 0;
    if (nchw) {
        for (int c = 0; c < dch; ++c)
            bad += compare(name, dst.views[c](made), exp[c], dd, c);
    } else {
        cv::Mat hwc;
        cv::merge(exp, hwc);
        bad = compare(name, dst.view()(made), hwc, dd);
    }
    p.diff(bad, (long)made.area() * dch);
    for (size_t i = 0; i < before.size(); ++i) { // outside `made`, what dst held
        cv::Mat was = before[i], now = dst.views[i].clone();
        was(made).setTo(0);
        now(made).setTo(0);
        for (int y = 0; y < was.rows; ++y)
            moved += memcmp(was.ptr(y), now.ptr(y), was.cols * was.elemSize()) != 0;
    }
    if (moved)
        p.add(strf("%ld rows of the destination changed outside the %dx%d image made", moved, made.width,
                   made.height));
    if (pp.fit == GM_FIT_LETTERBOX) {
        if (geo.width != e.w || geo.height != e.h || geo.left != e.left || geo.top != e.top ||
            geo.dst_width != e.out_w || geo.dst_height != e.out_h)
            p.add(strf("geometry %lldx%lld at (%lld, %lld) in %lldx%lld, expected %dx%d at (%d, %d) in %dx%d",
                       (long long)geo.width, (long long)geo.height, (long long)geo.left, (long long)geo.top,
                       (long long)geo.dst_width, (long long)geo.dst_height, e.w, e.h, e.left, e.top, e.out_w,
                       e.out_h));
    }
}

// One gm_preprocess of a crop of an sw x sh source (a ROI of a padded
// parent) into a Wn x Hn destination (ROI too), compared with OpenCV's chain.
void prep_case(Group& g, gm_dtype sd, int ch, gm_dtype dd, int dch, bool nchw, const gm_prep& pp, int sw, int sh,
               cv::Rect cr, int Wn, int Hn)
{
    std::string name = prep_name(sd, ch, dd, dch, nchw, pp, sw, sh, cr, Wn, Hn), suffix;
    Problems p;
    Region src = interleaved(sd, ch, sw, sh, true);
    Region dst = nchw ? planar(dd, dch, Wn, Hn, true) : interleaved(dd, dch, Wn, Hn, true);
    p.add(src.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    fill_resize(src.view(), sd);
    src.arm();
    dst.arm();
    gm_rect crop{cr.x, cr.y, cr.width, cr.height};
    prep_check(p, name, src.view()(cr), sd, dd, dch, nchw, pp, Wn, Hn, dst, [&](gm_prep_geometry* geo) {
        return gm_preprocess(&src.m, &crop, &dst.m, &pp, geo, NULL);
    }, &suffix);
    p.add(intact(src, "the source"));
    verdict(g, name + suffix, p.text);
}

// The sizes where the rules disagree (shared/reference 2.5): into 640x640,
// ultralytics keeps 360 / 524 / 524 rows where OpenCV dnn and DeepStream
// truncate to 359 / 523 / 523, and the common frames on which all agree.
void prep_rule_sizes(Group& g)
{
    struct Row {
        int W, H, ultralytics, others, top;
    };
    const Row rows[] = {{1366, 768, 360, 359, 140}, {704, 576, 524, 523, 58}, {352, 288, 524, 523, 58},
                        {1920, 1080, 360, 360, 140}, {1280, 717, 358, 358, 141}};
    for (const Row& r : rows)
        for (int rule : {GM_LETTERBOX_ULTRALYTICS, GM_LETTERBOX_OPENCV_DNN, GM_LETTERBOX_DEEPSTREAM}) {
            gm_prep pp{};
            pp.fit = GM_FIT_LETTERBOX;
            pp.rule = (gm_letterbox_rule)rule;
            gm_rect crop{0, 0, r.W, r.H};
            gm_prep_geometry geo{};
            int h = rule == GM_LETTERBOX_ULTRALYTICS ? r.ultralytics : r.others;
            std::string name = strf("letterbox rule %d %dx%d -> 640x640", rule, r.W, r.H), problem;
            if (gm_prep_geometry_of(&crop, 640, 640, &pp, &geo) != GM_OK)
                problem = gm_last_error();
            else if (geo.width != 640 || geo.height != h || geo.left != 0 || geo.top != r.top)
                problem = strf("%lldx%lld at (%lld, %lld), expected 640x%d at (0, %d)", (long long)geo.width,
                               (long long)geo.height, (long long)geo.left, (long long)geo.top, h, r.top);
            verdict(g, name, problem);
        }
    // Two whole frames through the chain, the disagreeing one among them.
    gm_prep pp{};
    pp.fit = GM_FIT_LETTERBOX;
    pp.pad[0] = pp.pad[1] = pp.pad[2] = 114;
    pp.swap_rb = 1;
    pp.scale[0] = pp.scale[1] = pp.scale[2] = 1 / 255.0;
    prep_case(g, GM_U8, 3, GM_F32, 3, true, pp, 1366, 768, cv::Rect(0, 0, 1366, 768), 640, 640);
    pp.rule = GM_LETTERBOX_OPENCV_DNN;
    prep_case(g, GM_U8, 3, GM_F16, 3, true, pp, 1366, 768, cv::Rect(0, 0, 1366, 768), 640, 640);
    pp.rule = GM_LETTERBOX_ULTRALYTICS;
    prep_case(g, GM_U8, 3, GM_F32, 3, true, pp, 1920, 1080, cv::Rect(0, 0, 1920, 1080), 640, 640);
    // ultralytics' auto at YOLO's stride: a 16:9 frame comes to 640x384 (its
    // logs' "384x640"); then whole chains, an odd pad (1000x333: 11 rows,
    // 5 above) among them.
    for (int W : {1280, 1920}) {
        gm_prep au{};
        au.fit = GM_FIT_LETTERBOX;
        au.stride = 32;
        gm_rect crop{0, 0, W, W * 9 / 16};
        gm_prep_geometry geo{};
        std::string name = strf("letterbox auto %dx%d -> 640x640", W, W * 9 / 16), problem;
        if (gm_prep_geometry_of(&crop, 640, 640, &au, &geo) != GM_OK)
            problem = gm_last_error();
        else if (geo.dst_width != 640 || geo.dst_height != 384 || geo.top != 12 || geo.height != 360)
            problem = strf("%lldx%lld at (%lld, %lld) in %lldx%lld, expected 640x360 at (0, 12) in 640x384",
                           (long long)geo.width, (long long)geo.height, (long long)geo.left, (long long)geo.top,
                           (long long)geo.dst_width, (long long)geo.dst_height);
        verdict(g, name, problem);
    }
    pp.stride = 32;
    prep_case(g, GM_U8, 3, GM_F32, 3, true, pp, 1366, 768, cv::Rect(0, 0, 1366, 768), 640, 640);
    prep_case(g, GM_U8, 3, GM_F16, 3, false, pp, 1000, 333, cv::Rect(0, 0, 1000, 333), 640, 640);
    pp.top_left = 1;
    prep_case(g, GM_U8, 3, GM_F32, 3, true, pp, 1000, 333, cv::Rect(0, 0, 1000, 333), 640, 640);
    pp.top_left = 0;
    pp.stride = 7;
    prep_case(g, GM_U8, 3, GM_F32, 3, true, pp, 300, 200, cv::Rect(10, 20, 251, 101), 96, 128);
}

// gm_prep_rect_to_source_cv against Image2BlobParams' formulas as OpenCV 5
// writes them (4.6 has no Image2BlobParams), and GM_BOX_EXACT (what an
// OPENCV_DNN letterbox, a stretch and a crop-centre map with) as the exact
// inverse of the sampling: the resized crop's corners land at the crop's
// origin and its size over the factor cv::resize took, the sizes' ratio or
// crop-centre's fx (which OpenCV's crop-centre, here the chain's, passes).
void prep_mapping(Group& g)
{
    for (int fit : {GM_FIT_STRETCH, GM_FIT_LETTERBOX, GM_FIT_CROP_CENTER})
        for (int k = 0; k < 40; ++k) {
            int W, H, w, h;
            do { // a letterbox of at least a pixel each way (an empty one is refused)
                W = (int)rand_int(20, 2000), H = (int)rand_int(20, 2000), w = (int)rand_int(32, 700),
                h = (int)rand_int(32, 700);
            } while (fit == GM_FIT_LETTERBOX && (int(W * std::min(w / (float)W, h / (float)H)) < 1 ||
                                                 int(H * std::min(w / (float)W, h / (float)H)) < 1));
            gm_prep pp{};
            pp.fit = (gm_fit)fit;
            pp.rule = GM_LETTERBOX_OPENCV_DNN;
            gm_rect crop{(int)rand_int(0, 50), (int)rand_int(0, 50), W, H};
            gm_prep_geometry geo{};
            gm_rect r{(int)rand_int(0, w - 1), (int)rand_int(0, h - 1), (int)rand_int(1, w), (int)rand_int(1, h)};
            std::string name = strf("rect mapping fit %d %dx%d -> %dx%d", fit, W, H, w, h), problem;
            if (gm_prep_geometry_of(&crop, w, h, &pp, &geo) != GM_OK) {
                verdict(g, name, gm_last_error());
                continue;
            }
            gm_rect got = gm_prep_rect_to_source_cv(&geo, r);
            cv::Rect e;
            int x = (int)r.x, y = (int)r.y, rw = (int)r.width, rh = (int)r.height;
            if (fit == GM_FIT_CROP_CENTER) {
                float f = std::max(w / (float)W, h / (float)H);
                e = cv::Rect((x + 0.5 * (W * f - w)) / f, (y + 0.5 * (H * f - h)) / f, rw / f, rh / f);
            } else if (fit == GM_FIT_LETTERBOX) {
                float f = std::min(w / (float)W, h / (float)H);
                int top = (h - int(H * f)) / 2, left = (w - int(W * f)) / 2;
                e = cv::Rect((x - left) / f, (y - top) / f, rw / f, rh / f);
            } else {
                e = cv::Rect(x * (float)W / w, y * (float)H / h, rw * (float)W / w, rh * (float)H / h);
            }
            if (got.x != e.x + crop.x || got.y != e.y + crop.y || got.width != e.width || got.height != e.height)
                problem = strf("got (%lld, %lld, %lld, %lld), expected (%d, %d, %d, %d)", (long long)got.x,
                               (long long)got.y, (long long)got.width, (long long)got.height, e.x + (int)crop.x,
                               e.y + (int)crop.y, e.width, e.height);
            double box[4] = {(double)geo.left, (double)geo.top, (double)(geo.left + geo.width),
                             (double)(geo.top + geo.height)}, out[4];
            double fx = (double)geo.width / W, fy = (double)geo.height / H;
            if (fit == GM_FIT_CROP_CENTER && (geo.width != W || geo.height != H)) // prep_placed's fx, fy
                fx = fy = std::max(w / (float)W, h / (float)H);
            gm_prep_box_to_source(&geo, box, out);
            if (geo.map != GM_BOX_EXACT || std::fabs(out[0] - crop.x) > 1e-9 || std::fabs(out[1] - crop.y) > 1e-9 ||
                std::fabs(out[2] - (crop.x + geo.width / fx)) > 1e-9 ||
                std::fabs(out[3] - (crop.y + geo.height / fy)) > 1e-9)
                problem += strf(" box maps to (%g, %g, %g, %g) by map %d, expected (%g, %g, %g, %g) by GM_BOX_EXACT",
                                out[0], out[1], out[2], out[3], (int)geo.map, (double)crop.x, (double)crop.y,
                                crop.x + geo.width / fx, crop.y + geo.height / fy);
            verdict(g, name, problem);
        }
}

// A random rectangle inside a cols x rows image.
cv::Rect random_rect(int cols, int rows)
{
    int w = (int)rand_int(1, cols), h = (int)rand_int(1, rows);
    return cv::Rect((int)rand_int(0, cols - w), (int)rand_int(0, rows - h), w, h);
}

// A count x 3 x Hn x Wn batch of dd in host memory, planar where nchw.
gm_status alloc_batch(gm_mat* dst, int Wn, int Hn, int count, gm_dtype dd, bool nchw)
{
    gm_desc desc{};
    desc.width = Wn;
    desc.height = Hn;
    desc.channels = 3;
    desc.batch = count;
    desc.dtype = dd;
    desc.layout = nchw ? GM_CHW : GM_HWC;
    return gm_alloc_desc(dst, &desc, GM_HOST);
}

// Image i of a batch from alloc_batch against its expected planes: the
// elements that differ.
long compare_item(const std::string& name, const gm_mat& dst, int i, const std::vector<cv::Mat>& exp, gm_dtype dd,
                  bool nchw)
{
    const int Wn = (int)dst.width, Hn = (int)dst.height;
    uint8_t* base = (uint8_t*)dst.data + i * dst.batch_pitch;
    long bad = 0;
    for (int c = 0; c < 3; ++c) {
        cv::Mat got = nchw ? cv::Mat(Hn, Wn, cv_depth(dd), base + c * dst.plane_pitch, (size_t)dst.pitch)
                           : cv::Mat(Hn, Wn, CV_MAKETYPE(cv_depth(dd), 3), base, (size_t)dst.pitch);
        if (!nchw) {
            std::vector<cv::Mat> planes;
            cv::split(got, planes);
            got = planes[c];
        }
        bad += compare(name + strf(" item %d", i), got, exp[c], dd, c);
    }
    return bad;
}

// gm_preprocess_batch: items of different sizes and crops into one batched
// destination (over GM__PREP_ITEMS: the _many layout; over
// GM__PREP_ITEMS_MANY: more than one launch's worth); each image must equal
// the single-image chain.
void prep_batch_case(Group& g, int count, gm_dtype sd, int ch, gm_dtype dd, bool nchw, const gm_prep& pp, int Wn,
                     int Hn, bool one_frame)
{
    std::string name = strf("prep batch x%d %s c%d -> %s %s %dx%d fit %d%s", count, gm_dtype_name(sd), ch,
                            gm_dtype_name(dd), nchw ? "NCHW" : "NHWC", Wn, Hn, (int)pp.fit,
                            one_frame ? " (ROIs of one frame)" : "");
    Problems p;
    std::vector<Region> src;
    std::vector<gm_mat> ms;
    std::vector<gm_rect> crops;
    std::vector<cv::Rect> rects;
    for (int i = 0; i < count; ++i) {
        if (!one_frame || i == 0) {
            src.push_back(interleaved(sd, ch, (int)rand_int(4, 70), (int)rand_int(4, 50), i % 2 == 0));
            p.add(src.back().error);
            fill_resize(src.back().view(), sd);
        }
        Region& s = src.back();
        rects.push_back(random_rect(s.view().cols, s.view().rows));
        crops.push_back(gm_rect{rects.back().x, rects.back().y, rects.back().width, rects.back().height});
        ms.push_back(s.m);
    }
    gm_mat dst{};
    p.status("gm_alloc_desc", alloc_batch(&dst, Wn, Hn, count, dd, nchw));
    if (!p.text.empty())
        return verdict(g, name, p.text);
    for (Region& r : src)
        r.arm();
    std::vector<gm_prep_geometry> geo(count);
    p.status("gm_preprocess_batch", gm_preprocess_batch(ms.data(), crops.data(), count, &dst, &pp, geo.data(), NULL));
    for (Region& r : src)
        p.add(intact(r, "a source"));
    long bad = 0;
    for (int i = 0; i < count; ++i) {
        const Region& s = src[one_frame ? 0 : i];
        std::vector<cv::Mat> exp = expected_prep(const_cast<Region&>(s).views[0](rects[i]), sd, dd, 3, pp, Wn, Hn);
        bad += compare_item(name, dst, i, exp, dd, nchw);
        if (geo[i].crop.x != rects[i].x || geo[i].crop.width != rects[i].width)
            p.add(strf("geometry[%d] names another crop", i));
    }
    p.diff(bad, (long)count * Wn * Hn * 3);
    gm_free(&dst);
    verdict(g, name, p.text);
}

void test_preprocess()
{
    Group g("preprocess");
    const double means[4] = {123.675, 116.28, 103.53, 127.5};
    const double scales[4] = {1 / 58.395, 1 / 57.12, 1 / 57.375, 1 / 64.0};
    const int map_gray[4] = {0, 0, 0, 0}, map_bgra[4] = {2, 1, 0, 3};
    int n = 0;
    for (gm_dtype sd : {GM_U8, GM_U16, GM_F32})
        for (int ch : {1, 3, 4})
            for (gm_dtype dd : {GM_F32, GM_F16, GM_BF16, GM_U8})
                for (int fit = 0; fit < 5; ++fit) // stretch, crop-centre, letterbox by each rule
                    for (int interp = 0; interp < 4; ++interp) {
                        ++n;
                        gm_prep pp{};
                        pp.fit = fit == 0 ? GM_FIT_STRETCH : fit == 1 ? GM_FIT_CROP_CENTER : GM_FIT_LETTERBOX;
                        pp.rule = (gm_letterbox_rule)(fit >= 2 ? fit - 2 : 0);
                        pp.interp = (gm_prep_interp)interp;
                        pp.top_left = n % 7 == 3 && has_top_left(pp);
                        pp.no_upscale = n % 5 == 2 && has_no_upscale(pp);
                        for (int c = 0; c < 4; ++c)
                            pp.pad[c] = n % 3 == 0 ? 114 : 7 + 30 * c;
                        int dch = ch;
                        if (dd != GM_U8) {
                            for (int c = 0; c < 4; ++c) {
                                pp.mean[c] = n % 4 == 0 ? 0 : means[c];
                                pp.scale[c] = n % 4 == 1 ? 1 / 255.0 : n % 4 == 2 ? 0 : scales[c];
                            }
                            pp.divide = n % 9 == 4;
                            if (pp.divide)
                                for (int c = 0; c < 4; ++c)
                                    pp.scale[c] = 58.0 - c;
                        }
                        if (ch == 1 && n % 2 == 0) {
                            dch = 3; // gray fills three channels
                            pp.channel_map = n % 4 == 0 ? map_gray : nullptr;
                        } else if (ch >= 3) {
                            pp.swap_rb = n % 3 == 1;
                            pp.channel_map = n % 3 == 2 ? map_bgra : nullptr;
                            dch = pp.channel_map && ch == 4 && n % 2 ? 4 : 3;
                        }
                        int sw = (int)rand_int(5, 80), sh = (int)rand_int(5, 60);
                        int cw = n % 3 == 0 ? sw : (int)rand_int(1, sw), chh = n % 3 == 0 ? sh : (int)rand_int(1, sh);
                        int odd = n % 13 == 8 && cw >= 3 && chh >= 5; // odd whole factors: linear's one-tap reroute
                        if (odd)
                            cw -= cw % 3, chh -= chh % 5;
                        cv::Rect cr((int)rand_int(0, sw - cw), (int)rand_int(0, sh - chh), cw, chh);
                        int Wn = (int)rand_int(1, 64), Hn = (int)rand_int(1, 64);
                        if (n % 6 == 5) // exact halves and equal sizes: cv::resize's reroutes
                            Wn = std::max(cw / 2, 1), Hn = std::max(chh / 2, 1);
                        if (n % 11 == 7)
                            Wn = cw, Hn = chh;
                        if (odd)
                            Wn = cw / 3, Hn = chh / 5;
                        prep_case(g, sd, ch, dd, dch, n % 2 == 0, pp, sw, sh, cr, Wn, Hn);
                    }
    prep_rule_sizes(g);
    prep_mapping(g);
    gm_prep pp{};
    pp.fit = GM_FIT_LETTERBOX;
    pp.pad[0] = pp.pad[1] = pp.pad[2] = 114;
    pp.scale[0] = pp.scale[1] = pp.scale[2] = 1 / 255.0;
    prep_batch_case(g, 5, GM_U8, 3, GM_F32, true, pp, 40, 40, false);
    prep_batch_case(g, 40, GM_U8, 3, GM_F16, false, pp, 24, 20, true);
    pp.fit = GM_FIT_CROP_CENTER;
    pp.swap_rb = 1;
    prep_batch_case(g, 33, GM_F32, 4, GM_F32, true, pp, 16, 16, true);
    prep_batch_case(g, 250, GM_U8, 3, GM_U8, false, pp, 12, 10, true);
}

} // namespace

// --------------------------------------------------------------------- fill

// A value for setTo: ties (half to even), values off a tie by less than a
// float ulp (rounding them through float gives another integer), each
// integer type's limits and one past them, f16's largest value and its
// overflow to infinity, -0 and 1/3; or a random one.
double fill_value()
{
    static const double special[] = {2.5,      -3.5,      0.5 + 1e-9, 127.5,    -128.5,        255.5,
                                     65535.5,  -32768.5,  32767.5,    65504.0,  65520.0,       -0.0,
                                     1.0 / 3,  300.0,     -300.0,     1e-300,   2147483000.5, -2147483000.5};
    const int n = (int)(sizeof special / sizeof special[0]);
    return t_rand() & 1 ? special[t_rand() % n] : rand_real(2e9);
}

// What setTo(Scalar(v)) leaves in a w x h image of d with ch channels;
// bf16, which OpenCV 4 lacks, as saturate_cast would store it: by way of
// float, to nearest even.
cv::Mat expected_fill(gm_dtype d, int ch, int w, int h, const double* v)
{
    cv::Mat e(h, w, CV_MAKETYPE(cv_depth(d), ch));
    if (d != GM_BF16) {
        e.setTo(cv::Scalar(v[0], v[1], v[2], v[3]));
        return e;
    }
    for (int y = 0; y < h; ++y)
        for (int i = 0; i < w * ch; ++i)
            e.ptr<uint16_t>(y)[i] = float_to_bf16((float)v[i % ch]);
    return e;
}

// gm_fill of an interleaved or planar image against cv::Mat::setTo.
void fill_case(Group& g, gm_dtype d, int ch, bool chw, const Size2& sz, bool roi)
{
    double v[4];
    for (double& x : v)
        x = fill_value();
    std::string name = strf("fill %s c%d %s %s (%.17g, %.17g, %.17g, %.17g)", gm_dtype_name(d), ch,
                            chw ? "CHW" : "HWC", size_name(sz, roi).c_str(), v[0], v[1], v[2], v[3]);
    Problems p;
    Region dst = chw ? planar(d, ch, sz.w, sz.h, roi) : interleaved(d, ch, sz.w, sz.h, roi);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    dst.arm();
    p.status("gm_fill", gm_fill(&dst.m, v, NULL));
    p.add(intact(dst, "the padding of the destination"));
    cv::Mat exp = expected_fill(d, ch, sz.w, sz.h, v);
    long bad = 0;
    if (chw) {
        std::vector<cv::Mat> planes;
        cv::split(exp, planes);
        for (int c = 0; c < ch; ++c)
            bad += compare(name, dst.views[c], planes[c], d, c);
    } else {
        bad = compare(name, dst.view(), exp, d);
    }
    p.diff(bad, (long)sz.w * sz.h * ch);
    verdict(g, name, p.text);
}

// run(chw, size, roi, k) for ch channels: every small size, whole and as an
// ROI, interleaved and (ch > 1) planar, k = 0..2; then the camera frame as
// an ROI once, planar where `planar`, k = ch % 3.
template <class Run> void each_shape(int ch, bool planar, Run run)
{
    for (int s = 0; s < kBig; ++s)
        for (bool roi : {false, true})
            for (bool chw : {false, true})
                if (!chw || ch > 1)
                    for (int k = 0; k < 3; ++k)
                        run(chw, kSizes[s], roi, k);
    run(planar, kSizes[kBig], true, ch % 3);
}

void test_fill()
{
    Group g("fill");
    int n = 0;
    for (gm_dtype d : kDtypes)
        for (int ch = 1; ch <= 4; ++ch)
            each_shape(ch, n++ % 2 == 1,
                       [&](bool chw, const Size2& sz, bool roi, int) { fill_case(g, d, ch, chw, sz, roi); });
}

// ------------------------------------------------------------- add_weighted

// Weights for addWeighted: the common blends (one weight the complement of
// the other, sums landing on halves: ties), negative weights and offsets
// that saturate both ways, and random ones.
void blend_weights(double* w)
{
    switch (t_rand() % 4) {
    case 0: w[0] = 0.5, w[1] = 0.5, w[2] = (double)rand_int(-3, 3) * 0.5; break;
    case 1: w[0] = t_uniform(0, 1), w[1] = 1 - w[0], w[2] = 0; break;
    case 2: w[0] = t_uniform(-2, 2), w[1] = t_uniform(-2, 2), w[2] = t_uniform(-300, 300); break;
    default: w[0] = (double)rand_int(1, 9) / 10, w[1] = (double)rand_int(1, 9) / 10, w[2] = 0.5; break;
    }
}

long g_tail_values, g_tail_differ; // OpenCV's scalar tail values, and those gpumat computes otherwise

// OpenCV 4.6 (Debian's build) runs addWeighted over each row, or over the
// whole image where the three are continuous, 16 values at a time with
// fused multiply-adds, x * alpha + (y * beta + gamma) as gpumat does; the
// last (run length mod 16) values go through its scalar code, which rounds
// y * beta on its own: (x * alpha + y * beta) fused, then + gamma. Checks
// that OpenCV's tail values are that, and replaces them in exp by gpumat's
// documented form, counting where the two differ; "" or the problem.
std::string scalar_tail(const cv::Mat& a, const cv::Mat& b, cv::Mat& exp, const double* w)
{
    const float alpha = (float)w[0], beta = (float)w[1], gamma = (float)w[2];
    const bool one_run = a.isContinuous() && b.isContinuous() && exp.isContinuous();
    const long run = one_run ? (long)exp.total() * exp.channels() : (long)exp.cols * exp.channels();
    for (int y = 0; y < exp.rows; ++y)
        for (long i = 0; i < (long)exp.cols * exp.channels(); ++i) {
            long at = one_run ? (long)y * exp.cols * exp.channels() + i : i;
            if (at < run - run % 16)
                continue;
            float x = a.ptr<uint8_t>(y)[i], v = b.ptr<uint8_t>(y)[i];
            volatile float vb = v * beta; // rounded on its own
            int tail = cv::saturate_cast<uint8_t>(std::rint(std::fma(x, alpha, (float)vb) + gamma));
            int ours = cv::saturate_cast<uint8_t>(std::rint(std::fma(x, alpha, std::fma(v, beta, gamma))));
            uint8_t& e = exp.ptr<uint8_t>(y)[i];
            if (e != tail)
                return strf("OpenCV's tail value at (%ld, %d) is %d, not its scalar form's %d", i, y, e, tail);
            ++g_tail_values;
            g_tail_differ += tail != ours;
            e = (uint8_t)ours;
        }
    return "";
}

// gm_add_weighted of u8 images against cv::addWeighted: interleaved, or
// planar plane by plane; in_place 1 or 2: dst is src1 or src2 itself.
void add_weighted_case(Group& g, int ch, bool chw, const Size2& sz, bool roi, int in_place)
{
    double w[3];
    blend_weights(w);
    std::string name = strf("add_weighted c%d %s %s (%.17g, %.17g, %.17g)%s", ch, chw ? "CHW" : "HWC",
                            size_name(sz, roi).c_str(), w[0], w[1], w[2],
                            in_place ? (in_place == 1 ? " into src1" : " into src2") : "");
    Problems p;
    Region src[2] = {chw ? planar(GM_U8, ch, sz.w, sz.h, roi) : interleaved(GM_U8, ch, sz.w, sz.h, roi),
                     chw ? planar(GM_U8, ch, sz.w, sz.h, roi) : interleaved(GM_U8, ch, sz.w, sz.h, roi)};
    Region out = chw ? planar(GM_U8, ch, sz.w, sz.h, roi) : interleaved(GM_U8, ch, sz.w, sz.h, roi);
    Region& dst = in_place ? src[in_place - 1] : out;
    for (Region* r : {&src[0], &src[1], &out})
        p.add(r->error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    std::vector<cv::Mat> exp(src[0].views.size());
    for (size_t c = 0; c < exp.size(); ++c) {
        cv::addWeighted(src[0].views[c], w[0], src[1].views[c], w[1], w[2], exp[c]);
        p.add(scalar_tail(src[0].views[c], src[1].views[c], exp[c], w));
    }
    dst.arm();
    p.status("gm_add_weighted", gm_add_weighted(&src[0].m, w[0], &src[1].m, w[1], w[2], &dst.m, NULL));
    p.add(intact(dst, "the padding of the destination"));
    long bad = 0;
    for (size_t c = 0; c < exp.size(); ++c)
        bad += compare(name, dst.views[c], exp[c], GM_U8, (int)c);
    p.diff(bad, (long)sz.w * sz.h * ch);
    verdict(g, name, p.text);
}

// OpenCV's u8 addWeighted fuses its multiply-adds where its AVX2 code runs;
// elsewhere its results differ from gpumat's documented FMA form.
void test_add_weighted()
{
    if (!cv::checkHardwareSupport(CV_CPU_AVX2) || !cv::checkHardwareSupport(CV_CPU_FMA3)) {
        SKIP("add_weighted: this CPU has no AVX2 and FMA, where OpenCV's addWeighted fuses as gpumat does");
        return;
    }
    Group g("add_weighted");
    int n = 0;
    for (int ch = 1; ch <= 4; ++ch)
        each_shape(ch, n++ % 2 == 1, [&](bool chw, const Size2& sz, bool roi, int k) {
            add_weighted_case(g, ch, chw, sz, roi, k);
        });
    printf("add_weighted: %ld of OpenCV's %ld scalar-tail values round otherwise (gm_add_weighted documents it)\n",
           g_tail_differ, g_tail_values);
}

// -------------------------------------------------------------------- yuv

// cvtColor's codes by [format][output]: gray, BGR, RGB, BGRA, RGBA.
const int kYuvCodes[4][5] = {
    {cv::COLOR_YUV2GRAY_NV12, cv::COLOR_YUV2BGR_NV12, cv::COLOR_YUV2RGB_NV12, cv::COLOR_YUV2BGRA_NV12,
     cv::COLOR_YUV2RGBA_NV12},
    {cv::COLOR_YUV2GRAY_NV21, cv::COLOR_YUV2BGR_NV21, cv::COLOR_YUV2RGB_NV21, cv::COLOR_YUV2BGRA_NV21,
     cv::COLOR_YUV2RGBA_NV21},
    {cv::COLOR_YUV2GRAY_I420, cv::COLOR_YUV2BGR_I420, cv::COLOR_YUV2RGB_I420, cv::COLOR_YUV2BGRA_I420,
     cv::COLOR_YUV2RGBA_I420},
    {cv::COLOR_YUV2GRAY_YV12, cv::COLOR_YUV2BGR_YV12, cv::COLOR_YUV2RGB_YV12, cv::COLOR_YUV2BGRA_YV12,
     cv::COLOR_YUV2RGBA_YV12}};
const char* const kYuvNames[4] = {"NV12", "NV21", "I420", "YV12"};
const int kYuvChannels[5] = {1, 3, 3, 4, 4};

// A w x h frame of `format` as OpenCV takes it (one continuous Mat of 3h/2
// rows), copied into a buffer of `pitch` bytes a row whose chroma starts
// at row `coded` (gm_yuv_wrap's layout), the rest random.
std::vector<uint8_t> yuv_buffer(const cv::Mat& cv_frame, gm_yuv_format format, int w, int h, int pitch, int coded)
{
    std::vector<uint8_t> buf((size_t)pitch * (coded + coded / 2) + 16);
    for (size_t i = 0; i < buf.size(); ++i)
        buf[i] = (uint8_t)t_rand();
    const uint8_t* in = cv_frame.data;
    for (int y = 0; y < h; ++y)
        memcpy(&buf[(size_t)y * pitch], in + (size_t)y * w, w);
    in += (size_t)w * h;
    uint8_t* chroma = &buf[(size_t)pitch * coded];
    if (format == GM_YUV_NV12 || format == GM_YUV_NV21) {
        for (int y = 0; y < h / 2; ++y)
            memcpy(chroma + (size_t)y * pitch, in + (size_t)y * w, w);
        return buf;
    }
    for (int p = 0; p < 2; ++p, in += (size_t)w / 2 * (h / 2), chroma += (size_t)pitch / 2 * (coded / 2))
        for (int y = 0; y < h / 2; ++y)
            memcpy(chroma + (size_t)y * (pitch / 2), in + (size_t)y * (w / 2), w / 2);
    return buf;
}

// gm_yuv_convert of a random frame against cvtColor: the frame in one
// buffer, compact or (roi) with a wider pitch, a taller coded height and a
// padded destination, planar where chw; `crop`: an even rectangle of it
// (gm_yuv_roi) against the same rectangle of OpenCV's whole result.
void yuv_case(Group& g, gm_yuv_format format, int out, int w, int h, bool roi, bool chw, bool crop)
{
    const int ch = kYuvChannels[out], pitch = roi ? w + 2 * (int)rand_int(1, 40) : w;
    const int coded = roi ? h + 2 * (int)rand_int(1, 8) : h;
    cv::Rect r(0, 0, w, h);
    if (crop) {
        r.x = 2 * (int)rand_int(0, w / 4), r.y = 2 * (int)rand_int(0, h / 4);
        r.width = 2 * (int)rand_int(1, (w - r.x) / 2), r.height = 2 * (int)rand_int(1, (h - r.y) / 2);
    }
    std::string name = strf("yuv %s -> %d (%s) %dx%d pitch %d coded %d%s rect %d,%d %dx%d", kYuvNames[format], out,
                            chw ? "CHW" : "HWC", w, h, pitch, coded, roi ? " padded" : "", r.x, r.y, r.width,
                            r.height);
    Problems p;
    cv::Mat cv_frame(h + h / 2, w, CV_8UC1), exp;
    fill_bytes(cv_frame);
    cv::cvtColor(cv_frame, exp, kYuvCodes[format][out]);
    std::vector<uint8_t> buf = yuv_buffer(cv_frame, format, w, h, pitch, coded);
    gm_yuv frame, view;
    p.status("gm_yuv_wrap", gm_yuv_wrap(&frame, format, buf.data(), w, h, pitch, coded, GM_HOST));
    if (!p.text.empty())
        return verdict(g, name, p.text);
    p.status("gm_yuv_roi", gm_yuv_roi(&frame, &view, r.x, r.y, r.width, r.height));
    Region dst = chw && ch > 1 ? planar(GM_U8, ch, r.width, r.height, roi) : interleaved(GM_U8, ch, r.width, r.height, roi);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    dst.arm();
    p.status("gm_yuv_convert", gm_yuv_convert(&view, &dst.m, out == 2 || out == 4, NULL));
    p.add(intact(dst, "the padding of the destination"));
    cv::Mat want = exp(r);
    long bad = 0;
    if (chw && ch > 1) {
        std::vector<cv::Mat> planes;
        cv::split(want, planes);
        for (int c = 0; c < ch; ++c)
            bad += compare(name, dst.views[c], planes[c], GM_U8, c);
    } else {
        bad = compare(name, dst.view(), want, GM_U8);
    }
    p.diff(bad, (long)r.width * r.height * ch);
    verdict(g, name, p.text);
}

// NV12 as two planes of their own steps (cvtColorTwoPlane), the chroma plane
// wrapped as u8 x2, into BGR or RGB.
void yuv_two_plane_case(Group& g, int w, int h, bool rgb)
{
    std::string name = strf("yuv two-plane NV12 %dx%d %s", w, h, rgb ? "RGB" : "BGR");
    Problems p;
    cv::Mat ybig(h + 3, w + 11, CV_8UC1), uvbig(h / 2 + 2, w / 2 + 7, CV_8UC2), exp;
    fill_bytes(ybig);
    fill_bytes(uvbig);
    cv::Mat y = ybig(cv::Rect(5, 2, w, h)), uv = uvbig(cv::Rect(3, 1, w / 2, h / 2));
    cv::cvtColorTwoPlane(y, uv, exp, rgb ? cv::COLOR_YUV2RGB_NV12 : cv::COLOR_YUV2BGR_NV12);
    gm_yuv frame{};
    frame.format = GM_YUV_NV12;
    if (gm_wrap(&frame.y, y.data, w, h, GM_U8, 1, GM_HWC, (int64_t)y.step, GM_HOST) != GM_OK ||
        gm_wrap(&frame.u, uv.data, w / 2, h / 2, GM_U8, 2, GM_HWC, (int64_t)uv.step, GM_HOST) != GM_OK)
        return verdict(g, name, strf("gm_wrap: %s", gm_last_error()));
    Region dst = interleaved(GM_U8, 3, w, h, true);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    dst.arm();
    p.status("gm_yuv_convert", gm_yuv_convert(&frame, &dst.m, rgb, NULL));
    p.add(intact(dst, "the padding of the destination"));
    p.diff(compare(name, dst.view(), exp, GM_U8), (long)w * h * 3);
    verdict(g, name, p.text);
}

// A P016 frame whose samples are an NV12 frame's shifted up by 8 (other
// samples of its buffer random) into u8 (out 0-4 as for yuv_case) against
// cvtColor of the NV12 frame: gpumat's 16-bit arithmetic rounds such
// frames to the 8-bit result exactly. A wider pitch and a taller coded
// height where roi.
void yuv_p016_case(Group& g, int out, int w, int h, bool roi)
{
    const int ch = kYuvChannels[out], row = roi ? w + 2 * (int)rand_int(1, 40) : w;
    const int coded = roi ? h + 2 * (int)rand_int(1, 8) : h;
    std::string name = strf("yuv P016 of 8-bit samples -> %d %dx%d row %d coded %d", out, w, h, row, coded);
    Problems p;
    cv::Mat cv_frame(h + h / 2, w, CV_8UC1), exp;
    fill_bytes(cv_frame);
    cv::cvtColor(cv_frame, exp, kYuvCodes[GM_YUV_NV12][out]);
    std::vector<uint16_t> buf((size_t)row * (coded + coded / 2));
    for (size_t i = 0; i < buf.size(); ++i)
        buf[i] = (uint16_t)t_rand();
    for (int y = 0; y < h + h / 2; ++y)
        for (int x = 0; x < w; ++x)
            buf[(size_t)(y < h ? y : coded + y - h) * row + x] = (uint16_t)(cv_frame.at<uint8_t>(y, x) << 8);
    gm_yuv frame;
    p.status("gm_yuv_wrap", gm_yuv_wrap(&frame, GM_YUV_P016, buf.data(), w, h, 2 * row, coded, GM_HOST));
    Region dst = interleaved(GM_U8, ch, w, h, roi);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    dst.arm();
    p.status("gm_yuv_convert", gm_yuv_convert(&frame, &dst.m, out == 2 || out == 4, NULL));
    p.add(intact(dst, "the padding of the destination"));
    p.diff(compare(name, dst.view(), exp, GM_U8), (long)w * h * ch);
    verdict(g, name, p.text);
}

// cvtColor's codes from an image by [planar format: I420, YV12][input]:
// BGR, RGB, BGRA, RGBA.
const int kYuvFromCodes[2][4] = {
    {cv::COLOR_BGR2YUV_I420, cv::COLOR_RGB2YUV_I420, cv::COLOR_BGRA2YUV_I420, cv::COLOR_RGBA2YUV_I420},
    {cv::COLOR_BGR2YUV_YV12, cv::COLOR_RGB2YUV_YV12, cv::COLOR_BGRA2YUV_YV12, cv::COLOR_RGBA2YUV_YV12}};

// gm_yuv_from_image of a random image (input 0-3: BGR, RGB, BGRA, RGBA;
// planar where chw; padded where roi) into a frame in one buffer (a wider
// pitch and a taller coded height where roi; `crop`: an even rectangle of
// the frame, gm_yuv_roi), against cvtColor into I420 (NV12 and NV21: its U
// and V interleaved): the whole buffer must equal the random one it was
// with OpenCV's planes written in, so nothing else changes.
void yuv_from_case(Group& g, gm_yuv_format format, int input, int w, int h, bool roi, bool chw, bool crop)
{
    const int ch = input < 2 ? 3 : 4, pitch = roi ? 2 * (w / 2 + (int)rand_int(1, 20)) : w;
    const int coded = roi ? h + 2 * (int)rand_int(1, 8) : h;
    const bool planar_chroma = format == GM_YUV_I420 || format == GM_YUV_YV12;
    cv::Rect r(0, 0, w, h);
    if (crop) {
        r.x = 2 * (int)rand_int(0, w / 4), r.y = 2 * (int)rand_int(0, h / 4);
        r.width = 2 * (int)rand_int(1, (w - r.x) / 2), r.height = 2 * (int)rand_int(1, (h - r.y) / 2);
    }
    std::string name = strf("yuv from %d (%s) -> %s %dx%d pitch %d coded %d%s rect %d,%d %dx%d", input,
                            chw ? "CHW" : "HWC", kYuvNames[format], w, h, pitch, coded, roi ? " padded" : "", r.x,
                            r.y, r.width, r.height);
    Problems p;
    Region src = chw ? planar(GM_U8, ch, r.width, r.height, roi) : interleaved(GM_U8, ch, r.width, r.height, roi);
    p.add(src.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    cv::Mat image, exp;
    if (chw)
        cv::merge(src.views, image);
    else
        image = src.view();
    cv::cvtColor(image, exp, kYuvFromCodes[format == GM_YUV_YV12][input]);
    const int cw = r.width / 2, chh = r.height / 2;
    cv::Mat first(chh, cw, CV_8UC1, exp.data + (size_t)r.width * r.height),
        second(chh, cw, CV_8UC1, exp.data + (size_t)r.width * r.height + (size_t)cw * chh);
    std::vector<uint8_t> buf((size_t)pitch * (coded + coded / 2));
    for (uint8_t& b : buf)
        b = (uint8_t)t_rand();
    std::vector<uint8_t> want = buf;
    uint8_t* chroma = &want[(size_t)pitch * coded];
    exp(cv::Rect(0, 0, r.width, r.height)).copyTo(cv::Mat(r.height, r.width, CV_8UC1, &want[(size_t)r.y * pitch + r.x], pitch));
    if (planar_chroma) { /* exp's planes are in the format's order already */
        const size_t half = (size_t)(pitch / 2), at = (size_t)(r.y / 2) * half + r.x / 2;
        first.copyTo(cv::Mat(chh, cw, CV_8UC1, chroma + at, half));
        second.copyTo(cv::Mat(chh, cw, CV_8UC1, chroma + half * (coded / 2) + at, half));
    } else {
        std::vector<cv::Mat> uv = {first, second}; /* U, V */
        if (format == GM_YUV_NV21)
            std::swap(uv[0], uv[1]);
        cv::merge(uv, cv::Mat(chh, cw, CV_8UC2, chroma + (size_t)(r.y / 2) * pitch + r.x, pitch));
    }
    gm_yuv frame, view;
    p.status("gm_yuv_wrap", gm_yuv_wrap(&frame, format, buf.data(), w, h, pitch, coded, GM_HOST));
    p.status("gm_yuv_roi", gm_yuv_roi(&frame, &view, r.x, r.y, r.width, r.height));
    if (!p.text.empty())
        return verdict(g, name, p.text);
    src.arm();
    p.status("gm_yuv_from_image", gm_yuv_from_image(&src.m, &view, input % 2, NULL));
    p.add(intact(src, "the source's padding"));
    long bad = 0;
    for (size_t i = 0; i < buf.size(); ++i)
        bad += buf[i] != want[i];
    p.diff(bad, (long)buf.size(), "bytes of the frame's buffer");
    verdict(g, name, p.text);
}

// A random w x h frame of `format` in a buffer of its own (a wider pitch
// and a taller coded height where padded), wrapped with matrix and range,
// and the BGR image cvtColor makes of it (gm_yuv_convert's for the matrices
// and ranges OpenCV has not, which test_cpu checks against float64).
struct Frame {
    std::vector<uint8_t> buf;
    gm_yuv yuv{};
    cv::Mat bgr;
    std::string error;
};

void make_frame(Frame& f, gm_yuv_format format, gm_yuv_matrix matrix, gm_yuv_range range, int w, int h, bool padded)
{
    const int pitch = padded ? 2 * (w / 2 + (int)rand_int(1, 40)) : w, coded = padded ? h + 2 * (int)rand_int(1, 8) : h;
    cv::Mat cv_frame(h + h / 2, w, CV_8UC1);
    fill_bytes(cv_frame);
    f.buf = yuv_buffer(cv_frame, format, w, h, pitch, coded);
    if (gm_yuv_wrap(&f.yuv, format, f.buf.data(), w, h, pitch, coded, GM_HOST) != GM_OK) {
        f.error = strf("gm_yuv_wrap: %s", gm_last_error());
        return;
    }
    f.yuv.matrix = matrix;
    f.yuv.range = range;
    if (matrix == GM_YUV_BT601 && range == GM_YUV_LIMITED) {
        cv::cvtColor(cv_frame, f.bgr, kYuvCodes[format][1]);
        return;
    }
    f.bgr.create(h, w, CV_8UC3);
    gm_mat m;
    if (gm_wrap(&m, f.bgr.data, w, h, GM_U8, 3, GM_HWC, (int64_t)f.bgr.step, GM_HOST) != GM_OK ||
        gm_yuv_convert(&f.yuv, &m, 0, NULL) != GM_OK)
        f.error = strf("gm_yuv_convert: %s", gm_last_error());
}

// gm_preprocess_yuv of crop cr of a random frame against cvtColor (or
// gm_yuv_convert) and OpenCV's chain; the frame must not change.
void prep_yuv_case(Group& g, gm_yuv_format format, gm_yuv_matrix matrix, gm_yuv_range range, int w, int h,
                   bool padded, gm_dtype dd, bool nchw, const gm_prep& pp, cv::Rect cr, int Wn, int Hn)
{
    std::string name = strf("%s m%d r%d%s ", kYuvNames[format], (int)matrix, (int)range, padded ? " padded" : "") +
                       prep_name(GM_U8, 3, dd, 3, nchw, pp, w, h, cr, Wn, Hn),
                suffix;
    Problems p;
    Frame f;
    make_frame(f, format, matrix, range, w, h, padded);
    Region dst = nchw ? planar(dd, 3, Wn, Hn, true) : interleaved(dd, 3, Wn, Hn, true);
    p.add(f.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    dst.arm();
    std::vector<uint8_t> was = f.buf;
    gm_rect crop{cr.x, cr.y, cr.width, cr.height};
    prep_check(p, name, f.bgr(cr), GM_U8, dd, 3, nchw, pp, Wn, Hn, dst, [&](gm_prep_geometry* geo) {
        return gm_preprocess_yuv(&f.yuv, &crop, &dst.m, &pp, geo, NULL);
    }, &suffix);
    if (f.buf != was)
        p.add("the frame's buffer changed");
    verdict(g, name + suffix, p.text);
}

// gm_preprocess_yuv_batch of count crops of frames of three layouts (formats
// and pitches: launches of their own) into one batched destination, each
// image against its frame's chain; ROIs of one frame where one_frame.
void prep_yuv_batch_case(Group& g, int count, gm_dtype dd, bool nchw, const gm_prep& pp, int Wn, int Hn,
                         bool one_frame)
{
    std::string name = strf("prep yuv batch x%d -> %s %s %dx%d fit %d interp %d%s", count, gm_dtype_name(dd),
                            nchw ? "NCHW" : "NHWC", Wn, Hn, (int)pp.fit, (int)pp.interp,
                            one_frame ? " (ROIs of one frame)" : "");
    Problems p;
    std::vector<Frame> frames(one_frame ? 1 : 3);
    std::vector<gm_yuv> items;
    std::vector<gm_rect> crops;
    std::vector<cv::Rect> rects;
    for (size_t k = 0; k < frames.size(); ++k) {
        make_frame(frames[k], (gm_yuv_format)(k % 4), k == 2 ? GM_YUV_BT709 : GM_YUV_BT601, GM_YUV_LIMITED,
                   2 * (int)rand_int(2, 40), 2 * (int)rand_int(2, 30), k > 0);
        p.add(frames[k].error);
    }
    if (!p.text.empty())
        return verdict(g, name, p.text);
    for (int i = 0; i < count; ++i) {
        const Frame& f = frames[i % frames.size()];
        rects.push_back(random_rect(f.bgr.cols, f.bgr.rows));
        crops.push_back(gm_rect{rects.back().x, rects.back().y, rects.back().width, rects.back().height});
        items.push_back(f.yuv);
    }
    gm_mat dst{};
    p.status("gm_alloc_desc", alloc_batch(&dst, Wn, Hn, count, dd, nchw));
    if (!p.text.empty())
        return verdict(g, name, p.text);
    std::vector<gm_prep_geometry> geo(count);
    p.status("gm_preprocess_yuv_batch",
             gm_preprocess_yuv_batch(items.data(), crops.data(), count, &dst, &pp, geo.data(), NULL));
    long bad = 0;
    for (int i = 0; i < count; ++i) {
        std::vector<cv::Mat> exp = expected_prep(frames[i % frames.size()].bgr(rects[i]), GM_U8, dd, 3, pp, Wn, Hn);
        bad += compare_item(name, dst, i, exp, dd, nchw);
    }
    p.diff(bad, (long)count * Wn * Hn * 3);
    gm_free(&dst);
    verdict(g, name, p.text);
}

// The frames a pre-process takes, by every interpolation a frame takes and
// every placement, random sizes, odd crops, and the decoder frames of the
// benchmarks; AREA refused.
void test_prep_yuv(Group& g)
{
    const gm_dtype dds[] = {GM_F32, GM_F16, GM_BF16, GM_U8};
    const gm_prep_interp interps[] = {GM_PREP_LINEAR, GM_PREP_NEAREST, GM_PREP_LINEAR_EXACT};
    int n = 0;
    for (int f = 0; f < 4; ++f)
        for (gm_prep_interp interp : interps)
            for (int fit = 0; fit < 5; ++fit) {
                ++n;
                gm_prep pp{};
                pp.fit = fit == 0 ? GM_FIT_STRETCH : fit == 1 ? GM_FIT_CROP_CENTER : GM_FIT_LETTERBOX;
                pp.rule = (gm_letterbox_rule)(fit >= 2 ? fit - 2 : 0);
                pp.interp = interp;
                pp.swap_rb = n % 3 == 1;
                pp.top_left = n % 7 == 3 && has_top_left(pp);
                gm_dtype dd = dds[n % 4];
                for (int c = 0; c < 3; ++c) {
                    pp.pad[c] = 100 + 7 * c;
                    pp.mean[c] = dd == GM_U8 ? 0 : 100 + 10 * c;
                    pp.scale[c] = dd == GM_U8 ? 0 : 1 / (50.0 + c);
                }
                const int w = 2 * (int)rand_int(1, 90), h = 2 * (int)rand_int(1, 60);
                int cw = (int)rand_int(1, w), ch = (int)rand_int(1, h);
                cv::Rect cr((int)rand_int(0, w - cw), (int)rand_int(0, h - ch), cw, ch);
                if (n % 5 == 0) // whole frames, halved: LINEAR is the 2x2 mean
                    cr = cv::Rect(0, 0, w, h);
                int Wn = n % 5 == 0 ? w / 2 + (w / 2 == 0) : (int)rand_int(1, 80);
                int Hn = n % 5 == 0 ? h / 2 + (h / 2 == 0) : (int)rand_int(1, 60);
                prep_yuv_case(g, (gm_yuv_format)f, (gm_yuv_matrix)(n % 3), (gm_yuv_range)(n % 4 == 1), w, h,
                              n % 2 == 0, dd, n % 3 != 2, pp, cr, Wn, Hn);
            }
    gm_prep yolo{};
    yolo.fit = GM_FIT_LETTERBOX;
    yolo.swap_rb = 1;
    for (int c = 0; c < 3; ++c)
        yolo.pad[c] = 114, yolo.scale[c] = 1 / 255.0;
    prep_yuv_case(g, GM_YUV_NV12, GM_YUV_BT601, GM_YUV_LIMITED, 1920, 1080, true, GM_F32, true, yolo,
                  cv::Rect(0, 0, 1920, 1080), 640, 640);
    prep_yuv_case(g, GM_YUV_NV12, GM_YUV_BT709, GM_YUV_LIMITED, 1280, 720, true, GM_F16, true, yolo,
                  cv::Rect(0, 0, 1280, 720), 640, 640);
    yolo.rule = GM_LETTERBOX_DEEPSTREAM;
    prep_yuv_case(g, GM_YUV_I420, GM_YUV_BT601, GM_YUV_FULL, 1366, 768, false, GM_F32, false, yolo,
                  cv::Rect(3, 1, 1361, 765), 640, 640);
    for (int k = 0; k < 4; ++k) {
        gm_prep pp{};
        pp.fit = (gm_fit)(k % 3);
        pp.interp = k == 3 ? GM_PREP_NEAREST : GM_PREP_LINEAR;
        pp.scale[0] = pp.scale[1] = pp.scale[2] = 1 / 255.0;
        prep_yuv_batch_case(g, k < 2 ? 5 : 35, k % 2 ? GM_F16 : GM_F32, k != 1, pp, 48, 40, k == 1);
    }
    Frame f;
    make_frame(f, GM_YUV_NV12, GM_YUV_BT601, GM_YUV_LIMITED, 64, 48, false);
    gm_prep area{};
    area.interp = GM_PREP_AREA;
    gm_mat dst{};
    std::string problem = f.error;
    if (problem.empty() && gm_alloc_host(&dst, 32, 24, GM_F32, 3, GM_CHW, 0) != GM_OK)
        problem = gm_last_error();
    if (problem.empty() && (gm_preprocess_yuv(&f.yuv, NULL, &dst, &area, NULL, NULL) != GM_ERR_ARG ||
                            !strstr(gm_last_error(), "gm_preprocess_yuv") || !strstr(gm_last_error(), "interp")))
        problem = strf("AREA from a frame: %s", gm_last_error());
    gm_free(&dst);
    verdict(g, "prep yuv: AREA refused", problem);
}

void test_yuv()
{
    Group g("yuv");
    for (int f = 0; f < 4; ++f)
        for (int out = 0; out < 5; ++out)
            for (int k = 0; k < 6; ++k) {
                const int w = 2 * (int)rand_int(1, 90), h = 2 * (int)rand_int(1, 60);
                yuv_case(g, (gm_yuv_format)f, out, w, h, k % 2 == 1, k % 3 == 1, k >= 4);
            }
    for (int f = 0; f < 4; ++f)
        yuv_case(g, (gm_yuv_format)f, 1 + f, 1920, 1080, true, f == 2, f == 3);
    for (int k = 0; k < 8; ++k)
        yuv_two_plane_case(g, 2 * (int)rand_int(1, 90), 2 * (int)rand_int(1, 60), k % 2 == 1);
    for (int out = 0; out < 5; ++out)
        for (int k = 0; k < 2; ++k)
            yuv_p016_case(g, out, 2 * (int)rand_int(1, 90), 2 * (int)rand_int(1, 60), k == 1);
    for (int f = 0; f < 4; ++f)
        for (int input = 0; input < 4; ++input)
            for (int k = 0; k < 6; ++k) {
                const int w = 2 * (int)rand_int(1, 90), h = 2 * (int)rand_int(1, 60);
                yuv_from_case(g, (gm_yuv_format)f, input, w, h, k % 2 == 1, k % 3 == 1, k >= 4);
            }
    for (int f = 0; f < 4; ++f)
        yuv_from_case(g, (gm_yuv_format)f, f, 1920, 1080, true, f == 1, f == 3);
    test_prep_yuv(g);
}

// Usage: oracle [default | baseline]: the CPU path as it runs by default,
// then the baseline loops (impl/cpu.h) on 3 threads cutting every image into
// parts, writing past the caches; one of the two alone where named (make
// check runs oracle default, make test that and oracle_cxx).
// ------------------------------------------------------------ warp matrices

// Where the doubles a and b (n of them) differ bit for bit: a description.
std::string matrix_problem(const double* a, const double* b, int n)
{
    for (int i = 0; i < n; ++i)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0)
            return strf("entry %d: gpumat %.17g, OpenCV %.17g", i, a[i], b[i]);
    return "";
}

// A random coordinate: mostly within a frame, some far outside, some on
// few bits (integers, halves) where ties and cancellations happen.
float warp_coord()
{
    const int kind = (int)rand_int(0, 3);
    return kind == 0 ? (float)(int)rand_int(-50, 2000) : kind == 1 ? (float)(int)rand_int(-4000, 4000) * 0.5f
                                                         : (float)t_uniform(-3000.0, 5000.0);
}

// The similarity by Umeyama's algorithm as written (the SVD of the
// covariance, the reflection correction, the scale from the singular
// values), in double through OpenCV's SVD.
void umeyama(const double* src, const double* dst, int n, double* M)
{
    double ms[2] = {0, 0}, md[2] = {0, 0}, var = 0;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 2; ++k)
            ms[k] += src[2 * i + k] / n, md[k] += dst[2 * i + k] / n;
    cv::Matx22d cov(0, 0, 0, 0);
    for (int i = 0; i < n; ++i) {
        const double s[2] = {src[2 * i] - ms[0], src[2 * i + 1] - ms[1]};
        const double d[2] = {dst[2 * i] - md[0], dst[2 * i + 1] - md[1]};
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c)
                cov(r, c) += d[r] * s[c] / n;
        var += (s[0] * s[0] + s[1] * s[1]) / n;
    }
    cv::Mat w, u, vt;
    cv::SVD::compute(cv::Mat(cov), w, u, vt);
    // the reflection correction as skimage makes it: by the sign of det(U) det(V), which is det(cov)'s
    // where the covariance has full rank and still defined where it has rank 1 (two points)
    const double d = cv::determinant(u) * cv::determinant(vt) < 0 ? -1 : 1;
    cv::Matx22d D(1, 0, 0, d), U(u), Vt(vt), R = U * D * Vt;
    const double scale = (w.at<double>(0) + d * w.at<double>(1)) / var;
    M[0] = scale * R(0, 0), M[1] = scale * R(0, 1), M[3] = scale * R(1, 0), M[4] = scale * R(1, 1);
    M[2] = md[0] - (M[0] * ms[0] + M[1] * ms[1]);
    M[5] = md[1] - (M[3] * ms[0] + M[4] * ms[1]);
}

// gm_rotation_matrix, gm_affine_from_points, gm_perspective_from_points
// and gm_invert_affine against OpenCV bit for bit (where OpenCV finds a
// system singular it returns zeros, and gpumat refuses: both are checked);
// gm_similarity_from_points against umeyama above.
void test_warp_matrices()
{
    Group g("warp_mat");
    static const double kAngles[] = {0, 90, -90, 180, 270, 45, 30, -135, 360, 720.5};
    for (int i = 0; i < 400; ++i) {
        const float cx = warp_coord(), cy = warp_coord();
        const double angle = i < 10 ? kAngles[i] : t_uniform(-720.0, 720.0);
        const double scale = i % 5 == 0 ? 1.0 : t_uniform(0.01, 8.0);
        double M[6];
        const gm_status s = gm_rotation_matrix(cx, cy, angle, scale, M);
        cv::Mat cv_m = cv::getRotationMatrix2D(cv::Point2f(cx, cy), angle, scale);
        verdict(g, strf("rotation about (%.9g, %.9g) by %.17g, scale %.17g", cx, cy, angle, scale),
                s != GM_OK ? gm_last_error() : matrix_problem(M, cv_m.ptr<double>(), 6));
    }
    for (int i = 0; i < 1200; ++i) {
        const int n = i % 2 ? 3 : 4;
        cv::Point2f sp[4], dp[4];
        float src[8], dst[8];
        for (int k = 0; k < n; ++k) {
            sp[k] = cv::Point2f(warp_coord(), warp_coord()), dp[k] = cv::Point2f(warp_coord(), warp_coord());
            if (i % 50 == 7 && k == n - 1) // collinear with the first two (or the same point): singular
                sp[k] = sp[0] + (sp[1] - sp[0]) * (float)(int)rand_int(0, 3);
            src[2 * k] = sp[k].x, src[2 * k + 1] = sp[k].y, dst[2 * k] = dp[k].x, dst[2 * k + 1] = dp[k].y;
        }
        double M[9];
        const gm_status s = n == 3 ? gm_affine_from_points(src, dst, M) : gm_perspective_from_points(src, dst, M);
        cv::Mat cv_m = n == 3 ? cv::getAffineTransform(sp, dp) : cv::getPerspectiveTransform(sp, dp);
        const int entries = n == 3 ? 6 : 9;
        bool zeros = true;
        for (int k = 0; k < 8 && k < entries; ++k)
            zeros = zeros && cv_m.ptr<double>()[k] == 0.0;
        std::string problem;
        if (s != GM_OK && !zeros)
            problem = strf("gpumat refused (%s) where OpenCV solved", gm_last_error());
        else if (s == GM_OK && zeros)
            problem = "gpumat solved where OpenCV found the system singular";
        else if (s == GM_OK)
            problem = matrix_problem(M, cv_m.ptr<double>(), entries);
        verdict(g, strf("%s from points %d", n == 3 ? "affine" : "perspective", i), problem);
        if (n == 3 && s == GM_OK) {
            double inv[6];
            cv::Mat cv_inv;
            cv::invertAffineTransform(cv_m, cv_inv);
            const gm_status si = gm_invert_affine(M, inv);
            verdict(g, strf("inverse of affine %d", i), si != GM_OK ? gm_last_error() : matrix_problem(inv, cv_inv.ptr<double>(), 6));
        }
    }
    for (int i = 0; i < 300; ++i) {
        const int n = 2 + i % 6;
        double src[14], dst[14], M[6], want[6];
        const double angle = t_uniform(-3.2, 3.2), scale = t_uniform(0.05, 6.0);
        for (int k = 0; k < n; ++k) { // a similarity of the points, plus noise
            src[2 * k] = t_uniform(-500.0, 1500.0), src[2 * k + 1] = t_uniform(-500.0, 1500.0);
            dst[2 * k] = scale * (cos(angle) * src[2 * k] - sin(angle) * src[2 * k + 1]) + 40 + t_uniform(-3.0, 3.0);
            dst[2 * k + 1] = scale * (sin(angle) * src[2 * k] + cos(angle) * src[2 * k + 1]) - 7 + t_uniform(-3.0, 3.0);
        }
        if (i % 7 == 3) // a reflection of the points: the best rotation is what Umeyama's correction gives
            for (int k = 0; k < n; ++k)
                dst[2 * k] = -dst[2 * k];
        umeyama(src, dst, n, want);
        std::string problem;
        if (gm_similarity_from_points(src, dst, n, M) != GM_OK)
            problem = gm_last_error();
        for (int k = 0; k < 6 && problem.empty(); ++k)
            if (!(fabs(M[k] - want[k]) <= 1e-9 * (1 + fabs(want[k]))))
                problem = strf("entry %d: gpumat %.17g, Umeyama %.17g", k, M[k], want[k]);
        verdict(g, strf("similarity of %d points, case %d", n, i), problem);
    }
    static const double ref[10] = GM_ARCFACE_112;
    static const double identity[6] = {1, 0, 0, 0, 1, 0};
    double M[6];
    std::string problem = gm_similarity_from_points(ref, ref, 5, M) != GM_OK ? gm_last_error() : "";
    for (int k = 0; k < 6 && problem.empty(); ++k)
        if (M[k] != identity[k]) // by value: sin 0 may come out as -0
            problem = strf("entry %d: %.17g, not %g", k, M[k], identity[k]);
    verdict(g, "similarity of ArcFace's landmarks onto themselves", problem);
}

// -------------------------------------------------------------------- warps

// A forward matrix (source to destination; 9 entries where perspective)
// of one of several kinds for a sw x sh source and a dw x dh destination:
// a rotation and scale about a point, random entries, entries on halves
// and whole numbers (ties in the fixed point), scales far from 1, and for
// perspective a quad's corners moved about; kind 4, a shift of millions of
// pixels, past the int range of the affine's 1/1024 fixed point (x86
// OpenCV's cvRound gives INT_MIN there, and its int sums wrap), or a
// perspective whose divisor is zero on a line through the destination.
void warp_matrix(int kind, bool perspective, int sw, int sh, int dw, int dh, double* M)
{
    if (kind == 4) {
        static const double kFar[] = {2.5e6, -2.5e6, 4.2e6, -7e6};
        const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(M, id, 9 * sizeof(double));
        M[0] = t_uniform(-1.5, 1.5), M[4] = t_uniform(-1.5, 1.5), M[1] = t_uniform(-0.2, 0.2);
        M[2] = kFar[rand_int(0, 3)], M[5] = rand_int(0, 1) ? kFar[rand_int(0, 3)] : t_uniform(-dh, dh);
        if (perspective) // W = 0 where x = dw / 2
            M[2] = t_uniform(-sw, sw), M[5] = t_uniform(-sh, sh), M[6] = -2.0 / dw, M[8] = 1;
        return;
    }
    if (perspective) {
        cv::Point2f s[4] = {{0, 0}, {(float)sw, 0}, {(float)sw, (float)sh}, {0, (float)sh}}, d[4];
        const float spread = kind == 3 ? 3.0f : 0.3f;
        for (int k = 0; k < 4; ++k) {
            d[k] = cv::Point2f((float)(s[k].x * dw / sw), (float)(s[k].y * dh / sh));
            d[k] += cv::Point2f((float)t_uniform(-spread, spread) * dw, (float)t_uniform(-spread, spread) * dh);
            if (kind == 2)
                d[k] = cv::Point2f(std::round(d[k].x * 2) / 2, std::round(d[k].y * 2) / 2);
        }
        cv::Mat m = cv::getPerspectiveTransform(s, d);
        memcpy(M, m.ptr<double>(), 9 * sizeof(double));
        return;
    }
    if (kind == 0) {
        const double scale = (double)dw / sw * t_uniform(0.5, 2.0);
        cv::Mat m = cv::getRotationMatrix2D(cv::Point2f((float)t_uniform(0, sw), (float)t_uniform(0, sh)),
                                            t_uniform(-180, 180), scale);
        memcpy(M, m.ptr<double>(), 6 * sizeof(double));
        M[2] += t_uniform(-dw, dw), M[5] += t_uniform(-dh, dh);
        return;
    }
    static const double kSteps[] = {-2, -1, -0.5, 0, 0.5, 1, 1.5, 2};
    for (int k = 0; k < 6; ++k) {
        const bool shift = k == 2 || k == 5;
        const double size = k < 3 ? dw : dh;
        M[k] = kind == 2 ? (shift ? (double)rand_int(-2 * (int64_t)size, 2 * (int64_t)size) / 2 : kSteps[rand_int(0, 7)])
                         : shift ? t_uniform(-size, size) : t_uniform(-2, 2);
        if (kind == 3 && !shift)
            M[k] *= rand_int(0, 1) ? 1e-3 : 40.0;
    }
}

// The source values of a warp as OpenCV warps them: the dtypes it has as
// they are, s8 as s16, s32 as f64, f16 as f32 and bf16's floats.
cv::Mat warp_wide(const cv::Mat& m, gm_dtype d)
{
    cv::Mat wide;
    const int via = d == GM_S8 ? CV_16S : d == GM_S32 ? CV_64F : d == GM_F16 ? CV_32F : -1;
    if (d == GM_BF16)
        return opencv_source(m, d);
    if (via < 0)
        return m.clone();
    m.convertTo(wide, via);
    return wide;
}


// A border value as gpumat stores it in dtype d (the floats narrower than
// f32 by way of f32), read back as double: what OpenCV's warp of the wider
// dtype must be given to warp what gpumat does.
double warp_value_in(gm_dtype d, double v)
{
    float f = (float)v;
    uint8_t bits[8];
    gm_mat wide, one;
    const bool narrow_float = d == GM_F16 || d == GM_BF16;
    gm_wrap(&wide, narrow_float ? (void*)&f : (void*)&v, 1, 1, narrow_float ? GM_F32 : GM_F64, 1, GM_HWC, 8, GM_HOST);
    gm_wrap(&one, bits, 1, 1, d, 1, GM_HWC, 8, GM_HOST);
    gm_convert(&wide, &one, 1.0, 0.0, NULL);
    gm_convert(&one, &wide, 1.0, 0.0, NULL);
    return narrow_float ? (double)f : v;
}

// A batch of items interleaved w x h images, one above the other in one
// parent with rows of sentinels between them (batch_pitch foreign too): views[i] is item i.
Region stacked(gm_dtype d, int ch, int w, int h, int items, bool roi)
{
    gm_desc desc{};
    desc.width = w;
    desc.height = h;
    desc.channels = ch;
    desc.batch = items;
    desc.dtype = d;
    return stack_of(d, ch, w, h, items, (int)rand_int(1, 9), roi, desc, &gm_desc::batch_pitch);
}

// One warp of an sw x sh image into dw x dh (items: a batch, each item its
// own matrix where per_item, from one source image where shared), compared
// item by item with cv::warpAffine / cv::warpPerspective of the same flags.
void warp_case(Group& g, gm_dtype d, int ch, int sw, int sh, int dw, int dh, bool perspective, int kind, int interp,
               int border, bool inverse, bool roi, bool src_planar, bool dst_planar, int items = 1,
               bool per_item = false, bool shared = false)
{
    static const int kCv[] = {cv::INTER_LINEAR, cv::INTER_NEAREST, cv::INTER_AREA, -1, cv::INTER_CUBIC};
    const int n = perspective ? 9 : 6, src_items = shared ? 1 : items;
    std::vector<double> M((size_t)n * items);
    for (int i = 0; i < items; ++i) {
        double* m = &M[(size_t)i * n];
        do // a forward matrix must have an inverse (gpumat refuses one without, OpenCV warps by zeros)
            warp_matrix(kind, perspective, sw, sh, dw, dh, m);
        while (!inverse && (perspective ? cv::determinant(cv::Mat(3, 3, CV_64F, m)) : m[0] * m[4] - m[1] * m[3]) == 0);
    }
    gm_warp_params params{};
    params.interp = (gm_interp)interp;
    params.border = (gm_border)border;
    params.inverse = inverse;
    params.per_item = per_item;
    cv::Scalar value;
    for (int c = 0; c < 4; ++c)
        params.value[c] = value[c] = is_float(d) ? rand_real(1e4) : (double)rand_int(-300, 70000) * 0.25;
    std::string name = strf("warp%s %s c%d %dx%d -> %dx%d kind %d interp %d border %d%s%s%s%s x%d%s%s",
                            perspective ? " perspective" : " affine", gm_dtype_name(d), ch, sw, sh, dw, dh, kind,
                            interp, border, inverse ? " inverse" : "", roi ? " roi" : "",
                            src_planar ? " planar src" : "", dst_planar ? " planar dst" : "", items,
                            per_item ? " per item" : "", shared ? " shared source" : "");
    Problems p;
    // one item: interleaved or planar; a batch: stacked interleaved items
    Region src = items > 1 ? stacked(d, ch, sw, sh, src_items, roi)
                           : src_planar ? planar(d, ch, sw, sh, roi) : interleaved(d, ch, sw, sh, roi);
    Region dst = items > 1 ? stacked(d, ch, dw, dh, items, roi)
                           : dst_planar ? planar(d, ch, dw, dh, roi) : interleaved(d, ch, dw, dh, roi);
    src_planar = src_planar && items == 1, dst_planar = dst_planar && items == 1;
    std::vector<cv::Mat> image, before;
    for (int i = 0; i < src_items; ++i) {
        image.emplace_back(sh, sw, CV_MAKETYPE(cv_depth(d), ch));
        fill_resize(image.back(), d);
    }
    for (int i = 0; i < items; ++i) {
        before.emplace_back(dh, dw, CV_MAKETYPE(cv_depth(d), ch));
        fill_resize(before.back(), d); // what a transparent border leaves
    }
    p.add(src.error);
    p.add(dst.error);
    if (p.text.empty()) {
        // item i of r (a plane of the one item where planar)
        auto put = [&](Region& r, const std::vector<cv::Mat>& m, bool planar_side) {
            for (size_t i = 0; i < m.size(); ++i) {
                if (planar_side) {
                    std::vector<cv::Mat> planes;
                    cv::split(m[i], planes);
                    for (int c = 0; c < ch; ++c)
                        planes[c].copyTo(r.views[c]);
                } else {
                    m[i].copyTo(r.views[i]);
                }
            }
            r.arm();
        };
        put(src, image, src_planar);
        put(dst, before, dst_planar);
        gm_mat s = src.m, t = dst.m;
        const gm_status st = perspective ? gm_warp_perspective(&s, &t, M.data(), &params, NULL)
                                         : gm_warp_affine(&s, &t, M.data(), &params, NULL);
        p.status(perspective ? "gm_warp_perspective" : "gm_warp_affine", st);
        long bad = 0, total = 0;
        for (int i = 0; i < items && p.text.empty(); ++i) {
            cv::Scalar v = value;
            for (int c = 0; c < 4; ++c) // the value as the dtype holds it, for the dtypes warped as wider ones
                v[c] = d == GM_S8 || d == GM_S32 || d == GM_F16 || d == GM_BF16 ? warp_value_in(d, value[c]) : value[c];
            cv::Mat out = warp_wide(before[i], d), in = warp_wide(image[shared ? 0 : i], d);
            cv::Mat m(perspective ? 3 : 2, 3, CV_64F, &M[(size_t)(per_item ? i : 0) * n]);
            const int flags = kCv[interp] | (inverse ? cv::WARP_INVERSE_MAP : 0);
            if (perspective)
                cv::warpPerspective(in, out, m, cv::Size(dw, dh), flags, border, v);
            else
                cv::warpAffine(in, out, m, cv::Size(dw, dh), flags, border, v);
            cv::Mat exp = narrow_back(out, d);
            if (dst_planar) {
                std::vector<cv::Mat> planes;
                cv::split(exp, planes);
                for (int c = 0; c < ch; ++c)
                    bad += compare(name, dst.views[c], planes[c], d, c);
            } else {
                bad += compare(name, dst.views[i], exp, d);
            }
            total += (long)exp.total() * ch;
        }
        p.add(intact(src, "the source"));
        p.add(intact(dst, "the padding of the destination"));
        p.diff(bad, total);
    }
    verdict(g, name, p.text);
}

// cv::warpAffine and cv::warpPerspective against gm_warp_affine and
// gm_warp_perspective: every dtype, channel count, interpolation and
// border, matrices of every kind, forward and inverse, ROIs and planar
// sides; then batches (each item its matrix, or one source for all).
void test_warps()
{
    Group g("warp");
    const int interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_CUBIC};
    int n = 0;
    for (gm_dtype d : kDtypes)
        for (int ch = 1; ch <= 4; ++ch)
            for (int interp : interps)
                for (int border = GM_BORDER_CONSTANT; border <= GM_BORDER_TRANSPARENT; ++border)
                    for (int r = 0; r < 2; ++r) {
                        ++n;
                        const bool perspective = n % 3 == 0;
                        const int sw = r ? (int)rand_int(1, 6) : (int)rand_int(2, 48);
                        const int sh = r ? (int)rand_int(1, 6) : (int)rand_int(2, 40);
                        warp_case(g, d, ch, sw, sh, (int)rand_int(1, 40), (int)rand_int(1, 36), perspective,
                                  (int)rand_int(0, 3), n % 17 == 0 ? GM_INTER_AREA : interp, border, n % 4 == 1,
                                  n % 2 == 0, n % 5 == 1, n % 7 == 3);
                    }
    // a frame's faces into 112x112, a rotated box upright, a plate rectified
    for (int interp : interps) {
        warp_case(g, GM_U8, 3, 640, 360, 112, 112, false, 0, interp, GM_BORDER_CONSTANT, false, true, false, false);
        warp_case(g, GM_U8, 3, 333, 250, 200, 64, true, 0, interp, GM_BORDER_REPLICATE, false, false, false, true);
        warp_case(g, GM_F32, 1, 120, 90, 130, 70, false, 1, interp, GM_BORDER_REFLECT_101, true, true, true, false);
    }
    for (int i = 0; i < 24; ++i)
        warp_case(g, kDtypes[i % 9], 1 + i % 4, 30, 20, 17, 15, i % 2 == 1, i % 4, interps[i % 3], i % 6, i % 5 == 0,
                  false, false, i % 3 == 0, 3, i % 2 == 0, i % 4 < 2);
    // positions past the fixed point's range, and a perspective's divisor of zero
    for (int i = 0; i < 72; ++i)
        warp_case(g, i % 2 ? GM_U8 : GM_F32, 1 + i % 3, 23, 17, 19, 13, i % 4 >= 2, 4, interps[i % 3], i % 6,
                  i % 8 < 4, i % 5 == 0, false, false);
    // more items than one launch's matrices: 80 affine, 53 perspective
    warp_case(g, GM_U8, 3, 20, 15, 6, 5, false, 1, GM_INTER_LINEAR, GM_BORDER_CONSTANT, false, false, false, false, 90,
              true, true);
    warp_case(g, GM_F32, 2, 9, 7, 5, 4, true, 1, GM_INTER_CUBIC, GM_BORDER_WRAP, false, true, false, false, 60, true,
              false);
}

// gm_preprocess's warp placement (GM_FIT_WARP) of a crop of a u8 BGR image
// into an f32 NCHW blob against OpenCV's two calls: cv::warpAffine (or
// warpPerspective) of the crop as a Mat ROI, the pad as the border's value,
// then cv::dnn::blobFromImage of the result (one scale factor, mean in the
// swapped order, swapRB), as OpenCV 4.6 computes both. A transparent
// border's pixels are found by warping twice onto two fillings: there dst
// keeps what it held.
void warp_prep_case(Group& g, int sw, int sh, cv::Rect cr, int dw, int dh, bool perspective, int kind, int interp,
                    int border, bool inverse)
{
    static const int kCv[] = {cv::INTER_LINEAR, cv::INTER_NEAREST, cv::INTER_AREA, -1, cv::INTER_CUBIC};
    std::vector<double> M(perspective ? 9 : 6);
    do
        warp_matrix(kind, perspective, cr.width, cr.height, dw, dh, M.data());
    while (!inverse && (perspective ? cv::determinant(cv::Mat(3, 3, CV_64F, M.data())) : M[0] * M[4] - M[1] * M[3]) == 0);
    gm_prep pp{};
    pp.fit = GM_FIT_WARP;
    pp.warp = M.data();
    pp.perspective = perspective, pp.inverse = inverse, pp.border = (gm_border)border;
    pp.interp = (gm_interp)interp;
    pp.swap_rb = 1;
    const double scale = t_uniform(0.002, 0.05);
    cv::Scalar pad, mean;
    for (int c = 0; c < 3; ++c) {
        pad[c] = pp.pad[c] = (double)rand_int(0, 255);
        mean[c] = pp.mean[c] = t_uniform(0, 160);
        pp.scale[c] = scale;
    }
    std::string name = strf("warp placement%s u8 c3 %dx%d crop %dx%d at (%d, %d) -> f32 3x%dx%d kind %d interp %d "
                            "border %d%s", perspective ? " perspective" : " affine", sw, sh, cr.width, cr.height, cr.x,
                            cr.y, dh, dw, kind, interp, border, inverse ? " inverse" : "");
    Problems p;
    Region src = interleaved(GM_U8, 3, sw, sh, true), dst = planar(GM_F32, 3, dw, dh, true);
    p.add(src.error);
    p.add(dst.error);
    if (!p.text.empty())
        return verdict(g, name, p.text);
    fill_resize(src.view(), GM_U8);
    for (int c = 0; c < 3; ++c)
        fill_resize(dst.views[c], GM_F32);
    src.arm();
    dst.arm();
    std::vector<cv::Mat> before;
    for (const cv::Mat& v : dst.views)
        before.push_back(v.clone());
    gm_rect crop{cr.x, cr.y, cr.width, cr.height};
    p.status("gm_preprocess", gm_preprocess(&src.m, &crop, &dst.m, &pp, NULL, NULL));
    cv::Mat warped[2] = {cv::Mat(dh, dw, CV_8UC3), cv::Mat(dh, dw, CV_8UC3)};
    const int flags = kCv[interp] | (inverse ? cv::WARP_INVERSE_MAP : 0);
    cv::Mat m(perspective ? 3 : 2, 3, CV_64F, M.data());
    cv::randu(warped[1], 0, 256);
    cv::bitwise_not(warped[1], warped[0]); // two fillings apart in every byte
    for (int k = 0; k < 2; ++k) {
        if (perspective)
            cv::warpPerspective(src.view()(cr), warped[k], m, cv::Size(dw, dh), flags, border, pad);
        else
            cv::warpAffine(src.view()(cr), warped[k], m, cv::Size(dw, dh), flags, border, pad);
    }
    cv::Mat blob = cv::dnn::blobFromImage(warped[0], scale, cv::Size(), mean, true, false, CV_32F);
    long bad = 0;
    for (int c = 0; c < 3 && p.text.empty(); ++c) {
        cv::Mat exp = blob_plane(blob, 0, c).clone();
        for (int y = 0; y < dh; ++y)
            for (int x = 0; x < dw; ++x)
                if (warped[0].at<cv::Vec3b>(y, x) != warped[1].at<cv::Vec3b>(y, x)) // left by the border
                    exp.at<float>(y, x) = before[c].at<float>(y, x);
        bad += compare(name, dst.views[c], exp, GM_F32, c);
    }
    p.add(intact(src, "the source"));
    p.add(intact(dst, "the padding of the destination"));
    p.diff(bad, (long)dw * dh * 3);
    verdict(g, name, p.text);
}

// The warp placement against OpenCV: every interpolation and border, 2x3
// and 3x3, forward and inverse, crops and ROIs.
void test_warp_prep()
{
    Group g("warp_prep");
    const int interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_CUBIC, GM_INTER_AREA};
    for (int i = 0; i < 96; ++i) {
        const int sw = (int)rand_int(4, 60), sh = (int)rand_int(4, 50);
        const int x = (int)rand_int(0, sw / 3), y = (int)rand_int(0, sh / 3);
        const cv::Rect cr(x, y, (int)rand_int(1, sw - x), (int)rand_int(1, sh - y));
        warp_prep_case(g, sw, sh, cr, (int)rand_int(1, 40), (int)rand_int(1, 36), i % 3 == 2, (int)rand_int(0, 3),
                       interps[i % 4], i / 4 % 6, i % 5 == 1);
    }
}

int main(int argc, char** argv)
{
    std::string pass = argc > 1 ? argv[1] : "";
    if (argc > 2 || (pass != "" && pass != "default" && pass != "baseline")) {
        fprintf(stderr, "usage: oracle [default | baseline]\n");
        return 2;
    }
    t_seed_from_env("oracle");
    if (pass != "baseline") {
        test_convert();
        test_split_merge();
        test_swaps();
        test_payloads();
        test_blobs();
        test_resize();
        test_preprocess();
        test_fill();
        test_add_weighted();
        test_yuv();
        test_warp_matrices();
        test_warps();
        test_warp_prep();
    }
    if (pass != "default") {
        gm__tune.cpu_isa = 0;
        gm__tune.cpu_part_bytes = 1;
        gm__tune.cpu_stream_bytes = 0;
        gm_set_threads(3);
        test_convert();
        test_split_merge();
        test_swaps();
        test_blobs();
        test_resize();
        test_preprocess();
        test_fill();
        test_add_weighted();
        test_warps();
    }
    return t_summary("oracle");
}
