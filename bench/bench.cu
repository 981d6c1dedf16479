// bench/bench.cu: gpumat against a naive one-pass CUDA kernel and NPP call
// chains, as a fraction of the device-to-device copy ceiling measured in the
// same run; plus a gm_transform sweep over every dtype pair, the host cost of
// one gpumat call and NVRTC cold-compile times. Writes one JSON object per
// line to the file named on the command line; bench/report.py turns those
// rows (and bench/bench_torch.py's) into bench/RESULTS.md.
//
// gm_resize's throughput is its own section (resize_section), and so is
// gm_preprocess's (prep_section); each of their rows also times a launch
// that moves only the row's floor of bytes (bytes_peer).
//
// Build and run: `make bench` (on a GPU machine), or by hand:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude bench/bench.cu -o build/bench -ldl -lpthread
//   build/bench bench/bench_rows.jsonl
// NPP is used when <nppi.h> is found (link -lnppc -lnppial -lnppidei ...);
// -DBENCH_NO_NPP leaves it out.
//
// Timing, the same for every implementation (time_call): warm-up, then 200
// back-to-back calls over 6 rotating input/output sets with CUDA events
// around the whole loop (time / 200), and latency as the median of 50 calls
// with events around each one. Bytes per op = bytes read + bytes written,
// each input read once and each output written once.
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#if __has_include(<nppi.h>) && !defined(BENCH_NO_NPP)
#define BENCH_NPP 1
#include <nppi.h>
#else
#define BENCH_NPP 0
#endif

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <time.h>
#include <vector>

namespace {

const int SETS = 6;       // rotating input/output sets
const int CALLS = 200;    // calls in the throughput loop
const int LAT_CALLS = 50; // single calls timed for latency
const int WARMUP = 2 * SETS;

// ---------------------------------------------------------------- errors, rows

char g_err[2048];       // why the last failing call failed
cudaStream_t g_stream;  // every operation runs here
std::string g_device;   // device name, in every row
double g_copy_gbps = 0; // the ceiling, from the first copy measurement
FILE* g_out;            // JSON lines

bool fail(const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return false;
}

bool cuda_ok(cudaError_t e, const char* what)
{
    return e == cudaSuccess || fail("%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}
#define CUDA_OK(call) cuda_ok((call), #call)

bool gm_ok(gm_status s) { return s == GM_OK || fail("%s", gm_last_error()); }

std::string json_str(const std::string& s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += (char)c;
        } else if (c < 0x20) {
            char b[8];
            snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += (char)c;
        }
    }
    return o + "\"";
}

std::string json_num(double v)
{
    char b[32];
    if (!std::isfinite(v))
        return "null";
    snprintf(b, sizeof b, "%.9g", v);
    return b;
}

// One result. us/latency_us/bytes NaN where not measured; extra holds more
// "key": value pairs, already JSON, each starting with a comma.
struct Row {
    std::string section, op, size, impl, note, extra;
    double us = NAN, latency_us = NAN, bytes = NAN;
    Row(const char* section_, std::string op_, std::string size_, std::string impl_)
        : section(section_), op(op_), size(size_), impl(impl_)
    {
    }
    // Marks the row failed, with g_err as the reason.
    Row& error()
    {
        us = latency_us = NAN;
        note = std::string("error: ") + g_err;
        return *this;
    }
};

void emit(const Row& r)
{
    double gbps = r.bytes / (r.us * 1e3);
    double pct = g_copy_gbps > 0 ? 100.0 * gbps / g_copy_gbps : NAN;
    fprintf(g_out,
            "{\"section\": %s, \"op\": %s, \"size\": %s, \"impl\": %s, \"us\": %s, \"gbps\": %s, "
            "\"pct_of_copy\": %s, \"latency_us\": %s, \"bytes\": %s, \"device\": %s, \"note\": %s%s}\n",
            json_str(r.section).c_str(), json_str(r.op).c_str(), json_str(r.size).c_str(), json_str(r.impl).c_str(),
            json_num(r.us).c_str(), json_num(gbps).c_str(), json_num(pct).c_str(), json_num(r.latency_us).c_str(),
            json_num(r.bytes).c_str(), json_str(g_device).c_str(), json_str(r.note).c_str(), r.extra.c_str());
    fflush(g_out);
    if (r.section != "sweep") /* the sweep prints its own summary */
        printf("%-8s %-18s %-12s %-16s %10.2f us %8.1f GB/s %6.1f%%  lat %8.2f us  %s\n", r.section.c_str(),
               r.op.c_str(), r.size.c_str(), r.impl.c_str(), r.us, gbps, pct, r.latency_us, r.note.c_str());
}

// ---------------------------------------------------------------- timing

// Enqueues one operation on g_stream reading and writing input/output set
// `set`; false (with g_err) on failure.
typedef std::function<bool(int set)> Call;

struct Timing {
    double us = NAN, latency_us = NAN;
};

// The one timing procedure of every implementation (see the top of the file).
bool time_call(const Call& call, bool latency, Timing* t)
{
    cudaEvent_t a = 0, b = 0;
    std::vector<float> lat;
    float ms = 0;
    bool ok = CUDA_OK(cudaEventCreate(&a)) && CUDA_OK(cudaEventCreate(&b));
    for (int i = 0; ok && i < WARMUP; ++i)
        ok = call(i % SETS);
    ok = ok && CUDA_OK(cudaStreamSynchronize(g_stream)) && CUDA_OK(cudaGetLastError());
    ok = ok && CUDA_OK(cudaEventRecord(a, g_stream));
    for (int i = 0; ok && i < CALLS; ++i)
        ok = call(i % SETS);
    ok = ok && CUDA_OK(cudaEventRecord(b, g_stream)) && CUDA_OK(cudaEventSynchronize(b)) &&
         CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    if (ok)
        t->us = 1e3 * ms / CALLS;
    for (int i = 0; ok && latency && i < LAT_CALLS; ++i) {
        ok = CUDA_OK(cudaEventRecord(a, g_stream)) && call(i % SETS) && CUDA_OK(cudaEventRecord(b, g_stream)) &&
             CUDA_OK(cudaEventSynchronize(b)) && CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        lat.push_back(ms);
    }
    if (ok && latency) {
        std::sort(lat.begin(), lat.end());
        t->latency_us = 1e3 * (lat[LAT_CALLS / 2 - 1] + lat[LAT_CALLS / 2]) / 2;
    }
    ok = CUDA_OK(cudaStreamSynchronize(g_stream)) && ok; /* leave nothing in flight after a failure */
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    return ok;
}

// ---------------------------------------------------------------- data

uint64_t g_rng = 0x9e3779b97f4a7c15ull;

uint64_t splitmix64(uint64_t* state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t rnd() { return splitmix64(&g_rng); }

// The 64 regions of the ROI case, from their own seed so that
// bench/bench_torch.py (roi_rects) draws the same ones.
std::vector<gm_rect> roi_rects()
{
    std::vector<gm_rect> rois;
    uint64_t state = 1;
    for (int i = 0; i < 64; ++i) {
        int64_t w = 64 + (int64_t)(splitmix64(&state) % 600), h = 64 + (int64_t)(splitmix64(&state) % 600);
        int64_t x = (int64_t)(splitmix64(&state) % (3840 - w)), y = (int64_t)(splitmix64(&state) % (2160 - h));
        rois.push_back(gm_rect{x, y, w, h});
    }
    return rois;
}

bool is_float(gm_dtype t) { return t == GM_F32 || t == GM_F64 || t == GM_F16 || t == GM_BF16; }

// Random contents for bytes of device memory holding dtype elements: random
// bytes for integer types, finite values uniform in [lo, hi) for float types.
// Filled on the host and uploaded.
bool fill_random(void* dev, size_t bytes, gm_dtype dt, double lo, double hi)
{
    std::vector<unsigned char> h(bytes + 8);
    size_t es = gm_dtype_size(dt), n = bytes / es;
    if (!is_float(dt)) {
        for (size_t i = 0; i < bytes; i += 8) {
            uint64_t r = rnd();
            memcpy(&h[i], &r, 8);
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            double v = lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0;
            float f = (float)v;
            unsigned char* p = &h[i * es];
            if (dt == GM_F32) {
                memcpy(p, &f, 4);
            } else if (dt == GM_F64) {
                memcpy(p, &v, 8);
            } else if (dt == GM_F16) {
                __half x = __float2half_rn(f);
                memcpy(p, &x, 2);
            } else {
                __nv_bfloat16 x = __float2bfloat16_rn(f);
                memcpy(p, &x, 2);
            }
        }
    }
    /* a pageable upload may return before its DMA is done: wait for it */
    return CUDA_OK(cudaMemcpy(dev, h.data(), bytes, cudaMemcpyHostToDevice)) && CUDA_OK(cudaDeviceSynchronize());
}

gm_desc desc_of(int w, int h, int batch, int channels, gm_dtype dt, gm_layout lay)
{
    gm_desc d;
    memset(&d, 0, sizeof d);
    d.width = w;
    d.height = h;
    d.channels = channels;
    d.batch = batch;
    d.dtype = dt;
    d.layout = lay;
    return d;
}

// A 3-channel device image (batch >= 1) as gm_alloc_desc makes it: rows 256-byte aligned.
bool alloc_image(gm_mat* m, int w, int h, int batch, gm_dtype dt, gm_layout lay)
{
    gm_desc d = desc_of(w, h, batch, 3, dt, lay);
    memset(m, 0, sizeof *m);
    return gm_ok(gm_alloc_desc(m, &d, GM_DEVICE));
}

// Element (n, y, x, c) as a double, from the compact host copy gm_download makes.
double element(const std::vector<unsigned char>& h, const gm_mat& m, int64_t i)
{
    const unsigned char* p = &h[(size_t)i * gm_dtype_size(m.dtype)];
    switch (m.dtype) {
    case GM_U8: return *p;
    case GM_F32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case GM_F16: {
        __half x;
        memcpy(&x, p, 2);
        return __half2float(x);
    }
    default: return NAN; /* the ops below produce only these */
    }
}

// ---------------------------------------------------------------- the ops

// One operation of the benchmark. The same numbers drive every
// implementation: dst[c] = (src[swap_rb ? 2 - c : c] - mean[c]) * scale / std[c]
// (mean NULL: 0, std NULL: 1), saturated to the destination type.
struct Op;
struct Set {
    gm_mat src, dst, tmp; /* tmp: f32 HWC scratch for NPP chains that need one */
};
typedef gm_status (*GpumatFn)(const Op& op, Set& s, gm_stream st);
typedef bool (*NppFn)(const Op& op, const gm_mat& src, const gm_mat& dst, const gm_mat& tmp);
struct NaiveArgs;
typedef bool (*NaiveFn)(const NaiveArgs& a);

struct Op {
    const char* name;
    gm_dtype sdt;
    gm_layout slay;
    gm_dtype ddt;
    gm_layout dlay;
    int swap_rb;
    const double* mean;
    const double* std;
    double scale;
    GpumatFn gpumat;
    NaiveFn naive;
    NppFn npp;    /* NULL: no NPP chain, npp_why says why */
    bool npp_tmp; /* the NPP chain needs an f32 HWC scratch image */
    const char* npp_why;
};

const double kMean[4] = {123.675, 116.28, 103.53, 0}; /* RGB order, as the blob's channels */
const double kStd[4] = {58.395, 57.12, 57.375, 1};

gm_status gpumat_blob(const Op& op, Set& s, gm_stream st)
{
    return gm_blob_from_image(&s.src, &s.dst, op.scale, op.mean, op.std, op.swap_rb, st);
}

gm_status gpumat_convert(const Op& op, Set& s, gm_stream st) { return gm_convert(&s.src, &s.dst, op.scale, 0.0, st); }

gm_status gpumat_split(const Op&, Set& s, gm_stream st) { return gm_split(&s.src, &s.dst, st); }

// gm_convert keeps the layout, so planar -> interleaved with a scale is a transform.
gm_status gpumat_transform(const Op& op, Set& s, gm_stream st)
{
    gm_xform x = gm_xform_identity();
    for (int c = 0; c < 4; ++c)
        x.scale[c] = op.scale;
    return gm_transform(&s.src, &s.dst, &x, st);
}

// ---- the naive kernel: one thread per pixel, one pass, plain loads and stores

// Element (n, y, x, c) of an image lives at data + n*bstride + y*pitch + x*xstride + c*cstride.
struct View {
    char* data;
    long long pitch, xstride, cstride, bstride;
};

View view_of(const gm_mat& m)
{
    long long es = (long long)gm_dtype_size(m.dtype);
    View v = {(char*)m.data, m.pitch, m.layout == GM_HWC ? m.channels * es : es,
              m.layout == GM_HWC ? es : m.plane_pitch, m.batch_pitch};
    return v;
}

struct NaiveArgs {
    View src, dst;
    int width, height, batch;
    int map[3];
    float pre[3], scale[3];
};

__device__ float to_float(uint8_t v) { return (float)v; }
__device__ float to_float(float v) { return v; }
template <class D> __device__ D from_float(float v);
template <> __device__ float from_float<float>(float v) { return v; }
template <> __device__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ uint8_t from_float<uint8_t>(float v) { return (uint8_t)min(max(__float2int_rn(v), 0), 255); }

template <class S, class D> __global__ void naive_kernel(NaiveArgs a)
{
    long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x, y = blockIdx.y, n = blockIdx.z;
    if (x >= a.width)
        return;
    const char* s = a.src.data + n * a.src.bstride + y * a.src.pitch + x * a.src.xstride;
    char* d = a.dst.data + n * a.dst.bstride + y * a.dst.pitch + x * a.dst.xstride;
#pragma unroll
    for (int c = 0; c < 3; ++c) {
        float v = to_float(*(const S*)(s + a.map[c] * a.src.cstride));
        *(D*)(d + c * a.dst.cstride) = from_float<D>((v + a.pre[c]) * a.scale[c]);
    }
}

template <class S, class D> bool naive_launch(const NaiveArgs& a)
{
    dim3 block(256), grid((unsigned)((a.width + 255) / 256), (unsigned)a.height, (unsigned)a.batch);
    naive_kernel<S, D><<<grid, block, 0, g_stream>>>(a);
    return CUDA_OK(cudaGetLastError());
}

NaiveArgs naive_args(const Op& op, const Set& s)
{
    NaiveArgs a;
    a.src = view_of(s.src);
    a.dst = view_of(s.dst);
    a.width = (int)s.src.width;
    a.height = (int)s.src.height;
    a.batch = s.src.batch;
    for (int c = 0; c < 3; ++c) {
        a.map[c] = op.swap_rb ? 2 - c : c;
        a.pre[c] = op.mean ? (float)-op.mean[c] : 0.0f;
        a.scale[c] = (float)(op.std ? op.scale / op.std[c] : op.scale);
    }
    return a;
}

// ---- NPP call chains, one image at a time (the batch loops over its images)

#if BENCH_NPP
NppStreamContext g_npp;

bool npp_ok(NppStatus s, const char* what)
{
    return s >= 0 || fail("%s returned NppStatus %d", what, (int)s); /* > 0 are warnings */
}
#define NPP_OK(call) npp_ok((call), #call)

template <class T> T* plane(const gm_mat& m, int c) { return (T*)((char*)m.data + c * m.plane_pitch); }
NppiSize roi(const gm_mat& m) { return NppiSize{(int)m.width, (int)m.height}; }
int step(const gm_mat& m) { return (int)m.pitch; }

// Convert 8u->32f, SubC mean, MulC 1/std (constants in the source's BGR
// order), Copy C3P3R with the plane pointers reversed so B,G,R land in R,G,B order.
bool npp_blob(const Op& op, const gm_mat& s, const gm_mat& d, const gm_mat& t)
{
    Npp32f mean[3], mul[3];
    for (int c = 0; c < 3; ++c) {
        int k = op.swap_rb ? 2 - c : c; /* source channel c feeds blob channel k */
        mean[c] = (Npp32f)op.mean[k];
        mul[c] = (Npp32f)(op.scale / op.std[k]);
    }
    Npp32f* const planes[3] = {plane<Npp32f>(d, op.swap_rb ? 2 : 0), plane<Npp32f>(d, 1),
                               plane<Npp32f>(d, op.swap_rb ? 0 : 2)};
    Npp32f* tp = plane<Npp32f>(t, 0);
    return NPP_OK(nppiConvert_8u32f_C3R_Ctx(plane<Npp8u>(s, 0), step(s), tp, step(t), roi(s), g_npp)) &&
           NPP_OK(nppiSubC_32f_C3IR_Ctx(mean, tp, step(t), roi(t), g_npp)) &&
           NPP_OK(nppiMulC_32f_C3IR_Ctx(mul, tp, step(t), roi(t), g_npp)) &&
           NPP_OK(nppiCopy_32f_C3P3R_Ctx(tp, step(t), planes, step(d), roi(d), g_npp));
}

// Convert 8u->32f, MulC scale.
bool npp_convert(const Op& op, const gm_mat& s, const gm_mat& d, const gm_mat&)
{
    const Npp32f mul[3] = {(Npp32f)op.scale, (Npp32f)op.scale, (Npp32f)op.scale};
    return NPP_OK(
               nppiConvert_8u32f_C3R_Ctx(plane<Npp8u>(s, 0), step(s), plane<Npp32f>(d, 0), step(d), roi(s), g_npp)) &&
           NPP_OK(nppiMulC_32f_C3IR_Ctx(mul, plane<Npp32f>(d, 0), step(d), roi(d), g_npp));
}

// Copy C3P3R.
bool npp_split(const Op&, const gm_mat& s, const gm_mat& d, const gm_mat&)
{
    Npp32f* const planes[3] = {plane<Npp32f>(d, 0), plane<Npp32f>(d, 1), plane<Npp32f>(d, 2)};
    return NPP_OK(nppiCopy_32f_C3P3R_Ctx(plane<Npp32f>(s, 0), step(s), planes, step(d), roi(s), g_npp));
}

// Copy P3C3R into scratch, MulC scale, Convert 32f->8u rounding to nearest (saturating).
bool npp_merge(const Op& op, const gm_mat& s, const gm_mat& d, const gm_mat& t)
{
    const Npp32f* const planes[3] = {plane<Npp32f>(s, 0), plane<Npp32f>(s, 1), plane<Npp32f>(s, 2)};
    const Npp32f mul[3] = {(Npp32f)op.scale, (Npp32f)op.scale, (Npp32f)op.scale};
    Npp32f* tp = plane<Npp32f>(t, 0);
    return NPP_OK(nppiCopy_32f_P3C3R_Ctx(planes, step(s), tp, step(t), roi(s), g_npp)) &&
           NPP_OK(nppiMulC_32f_C3IR_Ctx(mul, tp, step(t), roi(t), g_npp)) &&
           NPP_OK(nppiConvert_32f8u_C3R_Ctx(tp, step(t), plane<Npp8u>(d, 0), step(d), roi(d), NPP_RND_NEAR, g_npp));
}

bool npp_setup()
{
    cudaDeviceProp p;
    int dev = 0;
    unsigned flags = 0;
    memset(&g_npp, 0, sizeof g_npp);
    if (!CUDA_OK(cudaGetDevice(&dev)) || !CUDA_OK(cudaGetDeviceProperties(&p, dev)) ||
        !CUDA_OK(cudaStreamGetFlags(g_stream, &flags)))
        return false;
    g_npp.hStream = g_stream;
    g_npp.nCudaDeviceId = dev;
    g_npp.nMultiProcessorCount = p.multiProcessorCount;
    g_npp.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    g_npp.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    g_npp.nSharedMemPerBlock = p.sharedMemPerBlock;
    g_npp.nCudaDevAttrComputeCapabilityMajor = p.major;
    g_npp.nCudaDevAttrComputeCapabilityMinor = p.minor;
    g_npp.nStreamFlags = flags;
    return true;
}
#define NPP_CHAIN(f) f
const char* const kNoNpp = NULL;
#else
#define NPP_CHAIN(f) NULL
const char* const kNoNpp = "not run: built without NPP (nppi.h not found, or linking NPP failed; see the build log)";
#endif

const Op kOps[] = {
    {"blob_f32", GM_U8, GM_HWC, GM_F32, GM_CHW, 1, kMean, kStd, 1.0, gpumat_blob, naive_launch<uint8_t, float>,
     NPP_CHAIN(npp_blob), true, NULL},
    {"blob_f16", GM_U8, GM_HWC, GM_F16, GM_CHW, 1, kMean, kStd, 1.0, gpumat_blob, naive_launch<uint8_t, __half>, NULL,
     false, "not run: NPP has no f16 output in this chain (Convert/SubC/MulC/Copy are 32f)"},
    {"convert_u8_f32_c3", GM_U8, GM_HWC, GM_F32, GM_HWC, 0, NULL, NULL, 1.0 / 255.0, gpumat_convert,
     naive_launch<uint8_t, float>, NPP_CHAIN(npp_convert), false, NULL},
    {"split_f32_c3", GM_F32, GM_HWC, GM_F32, GM_CHW, 0, NULL, NULL, 1.0, gpumat_split, naive_launch<float, float>,
     NPP_CHAIN(npp_split), false, NULL},
    {"merge_f32_u8", GM_F32, GM_CHW, GM_U8, GM_HWC, 0, NULL, NULL, 255.0, gpumat_transform,
     naive_launch<float, uint8_t>, NPP_CHAIN(npp_merge), true, NULL},
};

struct Size {
    const char* name;
    int w, h, batch;
};
const Size kSizes[] = {
    {"320x240", 320, 240, 1}, {"1920x1080", 1920, 1080, 1}, {"3840x2160", 3840, 2160, 1}, {"32x640x640", 640, 640, 32}};

// ---- the implementations, as one table

struct Case {
    const Op* op;
    Set sets[SETS];
};

bool run_gpumat(const Case& k, Set& s) { return gm_ok(k.op->gpumat(*k.op, s, (gm_stream)g_stream)); }

bool run_naive(const Case& k, Set& s) { return k.op->naive(naive_args(*k.op, s)); }

bool run_npp(const Case& k, Set& s)
{
    for (int i = 0; i < s.src.batch; ++i) {
        gm_mat src, dst, tmp;
        memset(&tmp, 0, sizeof tmp);
        if (!gm_ok(gm_item(&s.src, &src, i)) || !gm_ok(gm_item(&s.dst, &dst, i)) ||
            (k.op->npp_tmp && !gm_ok(gm_item(&s.tmp, &tmp, i))) || !k.op->npp(*k.op, src, dst, tmp))
            return false;
    }
    return true;
}

// Why an implementation cannot run an op, or NULL when it can.
const char* npp_skip(const Op& op) { return kNoNpp ? kNoNpp : op.npp ? NULL : op.npp_why; }
const char* never_skip(const Op&) { return NULL; }

struct Impl {
    const char* name;
    bool (*run)(const Case& k, Set& s);
    const char* (*skip)(const Op& op);
};
const Impl kImpls[] = {
    {"gpumat", run_gpumat, never_skip}, {"naive", run_naive, never_skip}, {"npp", run_npp, npp_skip}};

// ---------------------------------------------------------------- sections

void free_case(Case* k)
{
    for (Set& s : k->sets) {
        gm_free(&s.src);
        gm_free(&s.dst);
        gm_free(&s.tmp);
    }
}

bool alloc_case(Case* k, const Op& op, const Size& z)
{
    memset(k->sets, 0, sizeof k->sets);
    k->op = &op;
    for (Set& s : k->sets) {
        if (!alloc_image(&s.src, z.w, z.h, z.batch, op.sdt, op.slay) ||
            !alloc_image(&s.dst, z.w, z.h, z.batch, op.ddt, op.dlay) ||
            (BENCH_NPP && op.npp_tmp && !alloc_image(&s.tmp, z.w, z.h, z.batch, GM_F32, GM_HWC)) ||
            !fill_random(s.src.data, (size_t)gm_span_bytes(&s.src), op.sdt, -0.5, 1.5))
            return false;
    }
    return true;
}

// Set 0's output, compact, for comparing implementations.
bool read_output(const Case& k, std::vector<unsigned char>* h)
{
    const gm_mat& d = k.sets[0].dst;
    h->assign((size_t)(d.width * d.height * d.channels * d.batch) * gm_dtype_size(d.dtype), 0);
    return gm_ok(gm_download_sync(&d, h->data(), 0));
}

// "check: ..." comparing h with gpumat's output ref; tolerance by output type.
std::string compare(const Case& k, const std::vector<unsigned char>& ref, const std::vector<unsigned char>& h)
{
    const gm_mat& d = k.sets[0].dst;
    double tol = d.dtype == GM_U8 ? 1.0 : d.dtype == GM_F16 ? 2e-2 : 1e-4, worst = 0;
    int64_t n = (int64_t)(ref.size() / gm_dtype_size(d.dtype)), bad = 0;
    char b[160];
    for (int64_t i = 0; i < n; ++i) {
        double diff = std::fabs(element(ref, d, i) - element(h, d, i));
        if (!(diff <= tol)) /* NaN (unwritten poison) counts as bad */
            ++bad;
        if (!(diff <= worst))
            worst = diff;
    }
    if (bad)
        snprintf(b, sizeof b, "MISMATCH vs gpumat: %lld of %lld elements differ by more than %g (max %g)",
                 (long long)bad, (long long)n, tol, worst);
    else
        snprintf(b, sizeof b, "matches gpumat (max diff %g)", worst);
    return b;
}

// The reference itself: NaN in a float output of finite inputs means an
// element was left unwritten (still the poison).
std::string unwritten(const Case& k, const std::vector<unsigned char>& ref)
{
    const gm_mat& d = k.sets[0].dst;
    int64_t n = (int64_t)(ref.size() / gm_dtype_size(d.dtype)), nan = 0;
    for (int64_t i = 0; i < n; ++i)
        nan += std::isnan(element(ref, d, i));
    return nan ? "ERROR: " + std::to_string(nan) + " output elements unwritten (NaN)" : "";
}

// Every implementation on one op and size: rows with time, latency and a
// comparison of its output with gpumat's.
void run_case(const Op& op, const Size& z)
{
    Case k;
    double bytes = (double)z.w * z.h * z.batch * 3 * (gm_dtype_size(op.sdt) + gm_dtype_size(op.ddt));
    std::vector<unsigned char> ref, out;
    if (!alloc_case(&k, op, z)) {
        emit(Row("op", op.name, z.name, "(setup)").error());
        free_case(&k);
        return;
    }
    for (const Impl& impl : kImpls) {
        Row r("op", op.name, z.name, impl.name);
        Timing t;
        const char* skip = impl.skip(op);
        r.bytes = bytes;
        if (skip) {
            r.note = skip;
            emit(r);
            continue;
        }
        bool ok = true;
        for (Set& s : k.sets) /* poison: an output nobody wrote reads as NaN / 255 */
            ok = ok && CUDA_OK(cudaMemsetAsync(s.dst.data, 0xff, (size_t)gm_span_bytes(&s.dst), g_stream));
        ok = ok && time_call([&](int i) { return impl.run(k, k.sets[i]); }, true, &t) && read_output(k, &out);
        if (!ok) {
            emit(r.error());
            continue;
        }
        r.us = t.us;
        r.latency_us = t.latency_us;
        if (impl.run == run_gpumat) {
            ref.swap(out);
            r.note = unwritten(k, ref);
        } else
            r.note = ref.empty() ? "unchecked (no gpumat output)" : compare(k, ref, out);
        emit(r);
    }
    free_case(&k);
}

// The device-to-device copy ceiling: cudaMemcpyAsync of 256 MiB buffers,
// bytes read + written over time.
void copy_section(const char* when)
{
    const size_t n = (size_t)256 << 20;
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    Timing t;
    Row r("copy", "copy", "256MiB", "cudaMemcpyAsync");
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&src[i], n)) && CUDA_OK(cudaMalloc(&dst[i], n)) && fill_random(src[i], n, GM_U8, 0, 0);
    ok = ok &&
         time_call(
             [&](int i) { return CUDA_OK(cudaMemcpyAsync(dst[i], src[i], n, cudaMemcpyDeviceToDevice, g_stream)); },
             true, &t);
    r.us = t.us;
    r.latency_us = t.latency_us;
    r.bytes = 2.0 * n;
    r.extra = std::string(", \"when\": ") + json_str(when);
    if (!ok)
        r.error();
    else if (g_copy_gbps == 0)
        g_copy_gbps = r.bytes / (r.us * 1e3);
    emit(r);
    for (int i = 0; i < SETS; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
    }
}

// NVRTC cold compile of 20 kernels spread evenly over the catalogue
// (generic and fast ones, many dtype pairs), for sm_90; run first, so that
// the first call also loads NVRTC.
void nvrtc_section()
{
    const int count = gm_kernel_count(), picks = 20;
    for (int k = 0; k < picks; ++k) {
        int index = (int)((long long)k * count / picks);
        size_t size = 0;
        timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        gm_status s = gm_kernel_compile(index, 90, &size);
        clock_gettime(CLOCK_MONOTONIC, &b);
        Row r("nvrtc", "nvrtc_compile", "sm_90", "gpumat");
        r.us = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
        r.note = k == 0 ? "first call in the process (loads NVRTC)" : "";
        if (!gm_ok(s))
            r.error();
        r.extra = ", \"kernel\": " + json_str(gm_kernel_name(index)) + ", \"first\": " + (k == 0 ? "true" : "false") +
                  ", \"image_bytes\": " + std::to_string(size);
        emit(r);
    }
}

double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

// Host time per call with the kernel cached: 10000 gm_convert calls on an
// 8x8 image against 10000 bare launches of the same kernel with the same
// arguments and geometry (gm__run's launch, without the description, the
// plan and the lookup before it).
void host_section()
{
    const int n = 10000;
    gm_mat s, d;
    memset(&s, 0, sizeof s);
    memset(&d, 0, sizeof d);
    gm_stream st = (gm_stream)g_stream;
    const char* impls[2] = {"gm_convert", "bare launch"};
    double us[2] = {NAN, NAN};
    std::string why[2]; /* per row: empty, or why it failed */
    bool ok = gm_ok(gm_alloc(&s, 8, 8, GM_U8, 3, GM_HWC)) && gm_ok(gm_alloc(&d, 8, 8, GM_F32, 3, GM_HWC)) &&
              fill_random(s.data, (size_t)gm_span_bytes(&s), GM_U8, 0, 0) &&
              gm_ok(gm_convert(&s, &d, 1.0 / 255.0, 0.0, st)) && CUDA_OK(cudaStreamSynchronize(g_stream));
    if (ok) {
        double t0 = now_us();
        for (int i = 0; ok && i < n; ++i)
            ok = gm_ok(gm_convert(&s, &d, 1.0 / 255.0, 0.0, st));
        us[0] = (now_us() - t0) / n;
        ok = CUDA_OK(cudaStreamSynchronize(g_stream)) && ok;
    }
    why[0] = ok ? "" : g_err;
    if (ok) {
        // gm_convert's description of itself, planned once and made ready as
        // gm__run does (plan.h, run.h); then only run's launch, repeated.
        gm__ops ops;
        gm__plan plan;
        gm__ready ready;
        ops.n = 0;
        ok = gm_ok(gm__convert_ops(NULL, &s, &d, 1.0 / 255.0, 0.0, &ops)) && (ops.n == 1 || fail("%d ops", ops.n));
        if (ok)
            gm__plan_op(&ops.op[0], &plan);
        ok = ok && (gm__kernels[plan.kernel].family == GM__FAMILY_XFORM_FAST || fail("no fast kernel for the 8x8 convert")) &&
             gm_ok(gm__prepare(&plan, &ready));
        void* params[1] = {&plan.args};
        const char* api = "";
        double t0 = now_us();
        for (int i = 0; ok && i < n; ++i) {
            int rc = gm__launch(&ready, st, params, &api);
            ok = rc == 0 || fail("%s returned %d", api, rc);
        }
        us[1] = (now_us() - t0) / n;
        ok = CUDA_OK(cudaStreamSynchronize(g_stream)) && ok;
    }
    why[1] = ok ? "" : g_err;
    for (int i = 0; i < 2; ++i) {
        Row r("host", "host_overhead", "8x8", impls[i]);
        r.us = us[i];
        r.note = "host microseconds per call, 10000 calls, clock_gettime around the loop";
        if (!why[i].empty())
            r.error().note = "error: " + why[i];
        emit(r);
    }
    gm_free(&s);
    gm_free(&d);
}

// The sweep: gm_transform with the identity xform for every dtype pair x
// channels 1-4 x layout pair at 3840x2160, throughput only. Views of each
// configuration are wrapped onto 6 buffers per side, each big enough for 4
// channels of f64.
const int SWEEP_W = 3840, SWEEP_H = 2160;
const gm_layout kLayouts[4][2] = {{GM_HWC, GM_HWC}, {GM_HWC, GM_CHW}, {GM_CHW, GM_HWC}, {GM_CHW, GM_CHW}};
const char* const kLayoutNames[4] = {"hwc->hwc", "hwc->chw", "chw->hwc", "chw->chw"};

// Whether CASE (main) selects a configuration: NULL selects all, else its
// "transform SRC DST cN LAYOUT" must contain it.
bool sweep_selected(const char* only, gm_dtype sdt, gm_dtype ddt, int cn, int lay)
{
    std::string name = std::string("transform ") + gm_dtype_name(sdt) + " " + gm_dtype_name(ddt) + " c" +
                       std::to_string(cn) + " " + kLayoutNames[lay];
    return !only || strstr(name.c_str(), only);
}

// One configuration: its row, and its % of copy (NaN when it failed).
double sweep_one(void* const* src, void* const* dst, gm_dtype sdt, gm_dtype ddt, int cn, int lay)
{
    gm_desc sd = desc_of(SWEEP_W, SWEEP_H, 1, cn, sdt, kLayouts[lay][0]);
    gm_desc dd = desc_of(SWEEP_W, SWEEP_H, 1, cn, ddt, kLayouts[lay][1]);
    gm_mat sv[SETS], dv[SETS];
    gm_xform x = gm_xform_identity();
    Timing t;
    Row r("sweep", "transform", "3840x2160", "gpumat");
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i)
        ok = gm_ok(gm_wrap_desc(&sv[i], src[i], &sd, GM_DEVICE)) && gm_ok(gm_wrap_desc(&dv[i], dst[i], &dd, GM_DEVICE));
    ok =
        ok && time_call([&](int i) { return gm_ok(gm_transform(&sv[i], &dv[i], &x, (gm_stream)g_stream)); }, false, &t);
    r.us = t.us;
    r.bytes = (double)SWEEP_W * SWEEP_H * cn * (gm_dtype_size(sdt) + gm_dtype_size(ddt));
    r.extra = std::string(", \"src\": ") + json_str(gm_dtype_name(sdt)) + ", \"dst\": " + json_str(gm_dtype_name(ddt)) +
              ", \"channels\": " + std::to_string(cn) + ", \"layout\": " + json_str(kLayoutNames[lay]);
    if (!ok) {
        emit(r.error());
        printf("sweep    %s -> %s c%d %s: %s\n", gm_dtype_name(sdt), gm_dtype_name(ddt), cn, kLayoutNames[lay],
               r.note.c_str());
        return NAN;
    }
    emit(r);
    return g_copy_gbps > 0 ? 100.0 * r.bytes / (r.us * 1e3) / g_copy_gbps : NAN;
}

// only: main's CASE (sweep_selected).
void sweep_section(const char* only)
{
    const size_t cap = (size_t)SWEEP_W * SWEEP_H * 4 * 8;
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&src[i], cap)) && CUDA_OK(cudaMalloc(&dst[i], cap));
    for (int sd = 0; sd < GM_DTYPE_COUNT; ++sd) {
        gm_dtype sdt = (gm_dtype)sd;
        bool any = false;
        for (int dd = 0; dd < GM_DTYPE_COUNT; ++dd)
            for (int cn = 1; cn <= 4; ++cn)
                for (int lay = 0; lay < 4; ++lay)
                    any = any || sweep_selected(only, sdt, (gm_dtype)dd, cn, lay);
        if (!any)
            continue;
        for (int i = 0; ok && i < SETS; ++i) /* new random sources for each source dtype */
            ok = fill_random(src[i], (size_t)SWEEP_W * SWEEP_H * 4 * gm_dtype_size(sdt), sdt, -300, 300);
        if (!ok) {
            emit(Row("sweep", "transform", "3840x2160", "gpumat").error());
            break;
        }
        for (int dd = 0; dd < GM_DTYPE_COUNT; ++dd) {
            gm_dtype ddt = (gm_dtype)dd;
            std::vector<double> pcts;
            for (int cn = 1; cn <= 4; ++cn)
                for (int lay = 0; lay < 4; ++lay) {
                    double pct = sweep_selected(only, sdt, ddt, cn, lay) ? sweep_one(src, dst, sdt, ddt, cn, lay) : NAN;
                    if (!std::isnan(pct))
                        pcts.push_back(pct);
                }
            std::sort(pcts.begin(), pcts.end());
            if (!pcts.empty())
                printf("sweep    %-4s -> %-4s  %% of copy: min %5.1f  median %5.1f  max %5.1f  (%zu of 16)\n",
                       gm_dtype_name(sdt), gm_dtype_name(ddt), pcts.front(), pcts[pcts.size() / 2], pcts.back(),
                       pcts.size());
        }
    }
    for (int i = 0; i < SETS; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
    }
}

// ---------------------------------------------------------------- resize

// Source rows a resize reads (the floor counts each once): the rows of each
// destination row's taps (resize.inc's gm__taps).
double rows_read(const gm__resize_args& a, int sampler)
{
    std::vector<char> used((size_t)a.map.src_height, 0);
    for (long long y = 0; y < a.height; ++y) {
        gm__taps t = gm__taps_y(GM_U8, sampler, &a, 0, y);
        long long lo = std::max(t.s0, 0LL), hi = lo;
        if (sampler == GM__SAMPLER_LINEAR)
            hi = t.s1;
        else if (sampler == GM__SAMPLER_LINEAR_EXACT)
            hi = t.s0 < 0 || t.s0 >= a.map.src_height - 1 ? lo : lo + 1;
        else if (sampler == GM__SAMPLER_AREA_FAST)
            hi = lo + t.n - 1;
        else if (sampler == GM__SAMPLER_AREA)
            hi = t.s1 - 1;
        for (long long r = lo; r <= hi; ++r)
            used[(size_t)r] = 1;
    }
    return (double)std::count(used.begin(), used.end(), 1);
}

// The naive resize: one thread a pixel, float bilinear at half-pixel
// centres (torch's and cv::cuda's arithmetic, not OpenCV's fixed point).
template <class T>
__global__ void naive_resize_kernel(const T* src, int sw, int sh, long long spitch, T* dst, int dw, int dh,
                                    long long dpitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= dw)
        return;
    float fx = fmaxf((x + 0.5f) * sw / dw - 0.5f, 0.0f), fy = fmaxf((y + 0.5f) * sh / dh - 0.5f, 0.0f);
    int x0 = min((int)fx, sw - 1), y0 = min((int)fy, sh - 1), x1 = min(x0 + 1, sw - 1), y1 = min(y0 + 1, sh - 1);
    float wx = fx - x0, wy = fy - y0;
    const T *r0 = (const T*)((const char*)src + y0 * spitch), *r1 = (const T*)((const char*)src + y1 * spitch);
    T* d = (T*)((char*)dst + y * dpitch) + 3 * x;
    for (int c = 0; c < 3; ++c) {
        float v = (1 - wy) * ((1 - wx) * (float)r0[3 * x0 + c] + wx * (float)r0[3 * x1 + c]) +
                  wy * ((1 - wx) * (float)r1[3 * x0 + c] + wx * (float)r1[3 * x1 + c]);
        d[c] = sizeof(T) == 1 ? (T)min(max(__float2int_rn(v), 0), 255) : (T)v;
    }
}

// The traffic alone: a launch that reads `reads` and writes `writes` 16-byte
// chunks, each warp's loads and stores whole coalesced 512-byte runs, with
// no arithmetic. Timed on a row's floor (its reads from the source buffer,
// wrapping past its `have` chunks, and its writes), it shows how near the
// copy ceiling one launch of that traffic comes at all: far below it for
// small or write-heavy floors (bench/RESULTS.md).
__global__ void bytes_kernel(const uint4* src, long long reads, long long have, uint4* dst, long long writes)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, n = (long long)gridDim.x * blockDim.x;
    uint4 v = make_uint4(0, 0, 0, 0);
#pragma unroll 4
    for (long long i = t; i < reads; i += n) {
        uint4 w = __ldg(src + (i < have ? i : i % have));
        v.x ^= w.x, v.y ^= w.y, v.z ^= w.z, v.w ^= w.w;
    }
    for (long long i = t; i < writes; i += n)
        dst[i] = v;
}

// Times bytes_kernel on row `base`'s floor, of which `written` bytes are the
// destination's, over the sets' buffers (src[i] holding `have` bytes).
void bytes_peer(Row base, double written, void* const* src, size_t have, void* const* dst)
{
    long long reads = (long long)((base.bytes - written) / 16), writes = (long long)(written / 16);
    long long threads = std::max(1LL, std::min(reads, writes));
    Timing t;
    base.impl = "bytes", base.extra = "";
    base.note = "the floor's bytes moved, no arithmetic";
    bool ok = time_call(
        [&](int i) {
            bytes_kernel<<<(unsigned)((threads + 255) / 256), 256, 0, g_stream>>>(
                (const uint4*)src[i], reads, (long long)(have / 16), (uint4*)dst[i], writes);
            return CUDA_OK(cudaGetLastError());
        },
        false, &t);
    emit(ok ? (base.us = t.us, base) : base.error());
}

// gm_resize throughput: bytes = the source rows read (whole rows) + the
// destination written, over time; interleaved 3-channel images. LINEAR
// rows also time the naive kernel and NPP's nppiResize (u8, f32).
void resize_one(int sw, int sh, int dw, int dh, gm_dtype dt, gm_interp interp, const char* name)
{
    gm_desc sd = desc_of(sw, sh, 1, 3, dt, GM_HWC), dd = desc_of(dw, dh, 1, 3, dt, GM_HWC);
    gm_mat sv[SETS], dv[SETS];
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    size_t es = gm_dtype_size(dt), sbytes = (size_t)sw * sh * 3 * es, dbytes = (size_t)dw * dh * 3 * es;
    std::string size = std::to_string(sw) + "x" + std::to_string(sh) + "->" + std::to_string(dw) + "x" +
                       std::to_string(dh);
    Row r("resize", std::string("resize_") + gm_dtype_name(dt) + "_c3_" + name, size, "gpumat");
    Timing t;
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&src[i], sbytes)) && CUDA_OK(cudaMalloc(&dst[i], dbytes)) &&
             fill_random(src[i], sbytes, dt, 0, 255) && gm_ok(gm_wrap_desc(&sv[i], src[i], &sd, GM_DEVICE)) &&
             gm_ok(gm_wrap_desc(&dv[i], dst[i], &dd, GM_DEVICE));
    if (ok) {
        gm__ops ops;
        ops.n = 0;
        ok = gm_ok(gm__resize_ops("gm_resize", &sv[0], &dv[0], interp, 0, 0, &ops));
        if (ok) {
            gm__plan plan;
            gm__plan_op(&ops.op[0], &plan);
            int sampler = gm__kernels[plan.kernel].sampler;
            r.bytes = rows_read(plan.args.resize, sampler) * sw * 3 * es + (double)dbytes;
            r.extra = std::string(", \"kernel\": ") + json_str(gm__kernels[plan.kernel].name);
        }
    }
    Row naive = r, npp = r;
    naive.impl = "naive", npp.impl = "npp";
    naive.extra = npp.extra = "";
    ok = ok && time_call([&](int i) { return gm_ok(gm_resize(&sv[i], &dv[i], interp, (gm_stream)g_stream)); }, true,
                         &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    if (ok)
        bytes_peer(r, (double)dbytes, src, sbytes, dst);
    if (ok && interp == GM_INTER_LINEAR && (dt == GM_U8 || dt == GM_F32)) {
        dim3 block(128), grid((unsigned)((dw + 127) / 128), (unsigned)dh);
        bool peer = time_call(
            [&](int i) {
                if (dt == GM_U8)
                    naive_resize_kernel<uint8_t><<<grid, block, 0, g_stream>>>(
                        (const uint8_t*)src[i], sw, sh, sv[i].pitch, (uint8_t*)dst[i], dw, dh, dv[i].pitch);
                else
                    naive_resize_kernel<float><<<grid, block, 0, g_stream>>>((const float*)src[i], sw, sh, sv[i].pitch,
                                                                             (float*)dst[i], dw, dh, dv[i].pitch);
                return CUDA_OK(cudaGetLastError());
            },
            true, &t);
        emit(peer ? (naive.us = t.us, naive.latency_us = t.latency_us, naive) : naive.error());
#if BENCH_NPP
        NppiSize ss{sw, sh}, ds{dw, dh};
        NppiRect sr{0, 0, sw, sh}, dr{0, 0, dw, dh};
        peer = time_call(
            [&](int i) {
                if (dt == GM_U8)
                    return NPP_OK(nppiResize_8u_C3R_Ctx((const Npp8u*)src[i], (int)sv[i].pitch, ss, sr, (Npp8u*)dst[i],
                                                        (int)dv[i].pitch, ds, dr, NPPI_INTER_LINEAR, g_npp));
                return NPP_OK(nppiResize_32f_C3R_Ctx((const Npp32f*)src[i], (int)sv[i].pitch, ss, sr, (Npp32f*)dst[i],
                                                     (int)dv[i].pitch, ds, dr, NPPI_INTER_LINEAR, g_npp));
            },
            true, &t);
        emit(peer ? (npp.us = t.us, npp.latency_us = t.latency_us, npp) : npp.error());
#endif
    }
    for (int i = 0; i < SETS; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
    }
}

// ---------------------------------------------------------------- preprocess

// The least gm_preprocess can move: for each item the crop's source rows its
// resize reads (whole crop rows) and the destination image written.
double prep_floor(const std::vector<gm_mat>& srcs, const std::vector<gm_rect>& crops, const gm_mat& dst,
                  const gm_prep& pp)
{
    double bytes = (double)crops.size() * dst.width * dst.height * dst.channels * gm_dtype_size(dst.dtype);
    std::vector<gm__prep_place> places(crops.size());
    gm__plan plan;
    unsigned kinds;
    if (gm__check_prep("bench", srcs.data(), NULL, crops.data(), (int)crops.size(), &dst, &pp) != GM_OK ||
        gm__prep_plan("bench", srcs.data(), NULL, crops.data(), (int)crops.size(), &dst, &pp, &plan, places.data(),
                      &kinds) != GM_OK)
        return NAN;
    for (size_t i = 0; i < crops.size(); ++i) {
        const gm__prep_item& it = places[i].item.item;
        gm__resize_args a;
        memset(&a, 0, sizeof a);
        a.height = it.height;
        a.map = it.map;
        bytes += rows_read(a, it.map.sampler) * crops[i].width * srcs[i].channels * gm_dtype_size(srcs[i].dtype);
    }
    return bytes;
}

// The peers of gm_preprocess, given the placement gpumat reports for each
// item: a naive one-pass kernel (float bilinear at half-pixel centres, as
// torch and cv::cuda compute, not OpenCV's fixed point) with all items in
// one launch, and NPP's chain (resize, border, convert, subtract, multiply,
// reorder) item by item. u8 BGR in, f32 planar out, channel c from source
// channel map[c].
struct PeerItem {
    const uint8_t* src; // the crop's top-left pixel
    int pitch, cw, ch;  // the source's pitch, the crop's size
    int left, top, w, h; // the resized crop's place and size
    char* dst;          // the item's first plane
};

struct PeerArith {
    float pad[3], mean[3], mul[3]; // pad in source order; mean and mul in destination order
    int map[3], dw, dh;
    long long pitch, plane;
};

__global__ void naive_prep_kernel(const PeerItem* items, PeerArith a)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    const PeerItem it = items[blockIdx.z];
    if (x >= a.dw)
        return;
    int rx = x - it.left, ry = y - it.top;
    float v[3] = {a.pad[0], a.pad[1], a.pad[2]};
    if (rx >= 0 && rx < it.w && ry >= 0 && ry < it.h) {
        float fx = fmaxf((rx + 0.5f) * it.cw / it.w - 0.5f, 0.0f), fy = fmaxf((ry + 0.5f) * it.ch / it.h - 0.5f, 0.0f);
        int x0 = min((int)fx, it.cw - 1), y0 = min((int)fy, it.ch - 1);
        int x1 = min(x0 + 1, it.cw - 1), y1 = min(y0 + 1, it.ch - 1);
        float wx = fx - x0, wy = fy - y0;
        const uint8_t *r0 = it.src + (size_t)y0 * it.pitch, *r1 = it.src + (size_t)y1 * it.pitch;
        for (int c = 0; c < 3; ++c)
            v[c] = (1 - wy) * ((1 - wx) * r0[3 * x0 + c] + wx * r0[3 * x1 + c]) +
                   wy * ((1 - wx) * r1[3 * x0 + c] + wx * r1[3 * x1 + c]);
    }
    for (int c = 0; c < 3; ++c)
        ((float*)(it.dst + c * a.plane + y * a.pitch))[x] = (v[a.map[c]] - a.mean[c]) * a.mul[c];
}

PeerArith peer_arith(const gm_prep& pp, const gm_mat& dst)
{
    PeerArith a;
    for (int c = 0; c < 3; ++c) {
        a.pad[c] = (float)pp.pad[c];
        a.map[c] = pp.swap_rb ? 2 - c : c;
        a.mean[c] = (float)pp.mean[c];
        a.mul[c] = (float)(pp.scale[c] == 0 ? 1.0 : pp.scale[c]);
    }
    a.dw = (int)dst.width, a.dh = (int)dst.height;
    a.pitch = dst.pitch, a.plane = dst.plane_pitch;
    return a;
}

std::vector<PeerItem> peer_items(const std::vector<gm_mat>& srcs, const std::vector<gm_rect>& crops, const gm_mat& dst,
                                 const gm_prep& pp)
{
    std::vector<PeerItem> items;
    for (size_t i = 0; i < crops.size(); ++i) {
        gm_prep_geometry g;
        gm_prep_geometry_of(&crops[i], dst.width, dst.height, &pp, &g);
        const gm_mat& s = srcs[i];
        items.push_back(PeerItem{(const uint8_t*)s.data + crops[i].y * s.pitch + crops[i].x * 3, (int)s.pitch,
                                 (int)crops[i].width, (int)crops[i].height, (int)g.left, (int)g.top, (int)g.width,
                                 (int)g.height, (char*)dst.data + i * dst.batch_pitch});
    }
    return items;
}

#if BENCH_NPP
// Scratch for one item at a time: the resized crop, the placed image, its
// floats, for a dw x dh destination (make), freed with the struct.
struct NppScratch {
    Npp8u *resized = nullptr, *placed = nullptr;
    Npp32f* f = nullptr;
    bool make(int dw, int dh)
    {
        return CUDA_OK(cudaMalloc(&resized, (size_t)dw * dh * 3)) && CUDA_OK(cudaMalloc(&placed, (size_t)dw * dh * 3)) &&
               CUDA_OK(cudaMalloc(&f, (size_t)dw * dh * 3 * 4));
    }
    ~NppScratch()
    {
        cudaFree(resized);
        cudaFree(placed);
        cudaFree(f);
    }
};

bool npp_prep(const PeerItem& it, const PeerArith& a, const NppScratch& t)
{
    NppiSize cs{it.cw, it.ch}, rs{it.w, it.h}, ds{a.dw, a.dh};
    Npp8u pad[3];
    Npp32f mean[3], mul[3];
    Npp32f* planes[3];
    for (int c = 0; c < 3; ++c) {
        pad[c] = (Npp8u)a.pad[c];
        mean[a.map[c]] = a.mean[c];
        mul[a.map[c]] = a.mul[c];
        planes[a.map[c]] = (Npp32f*)(it.dst + c * a.plane);
    }
    int rp = a.dw * 3, fp = a.dw * 3 * 4;
    return NPP_OK(nppiResize_8u_C3R_Ctx(it.src, it.pitch, cs, NppiRect{0, 0, it.cw, it.ch}, t.resized, rp, rs,
                                        NppiRect{0, 0, it.w, it.h}, NPPI_INTER_LINEAR, g_npp)) &&
           NPP_OK(nppiCopyConstBorder_8u_C3R_Ctx(t.resized, rp, rs, t.placed, rp, ds, it.top, it.left, pad, g_npp)) &&
           NPP_OK(nppiConvert_8u32f_C3R_Ctx(t.placed, rp, t.f, fp, ds, g_npp)) &&
           NPP_OK(nppiSubC_32f_C3IR_Ctx(mean, t.f, fp, ds, g_npp)) &&
           NPP_OK(nppiMulC_32f_C3IR_Ctx(mul, t.f, fp, ds, g_npp)) &&
           NPP_OK(nppiCopy_32f_C3P3R_Ctx(t.f, fp, planes, (int)a.pitch, ds, g_npp));
}
#endif

// gm_preprocess(_batch) throughput: crops[i] of frame i % frames (u8,
// 3 channels, fw x fh) into image i of a count x 3 x dh x dw NCHW dst; the
// peers (f32 only) beside it.
void prep_one(const char* op, int fw, int fh, int frames, const std::vector<gm_rect>& crops, int dw, int dh,
              gm_dtype dd, const gm_prep& pp)
{
    int count = (int)crops.size();
    gm_desc fd = desc_of(fw, fh, frames, 3, GM_U8, GM_HWC), dd_ = desc_of(dw, dh, count, 3, dd, GM_CHW);
    size_t sbytes = (size_t)fw * fh * 3 * frames, dbytes = (size_t)dw * dh * 3 * count * gm_dtype_size(dd);
    std::vector<gm_mat> srcs[SETS];
    std::vector<PeerItem> items[SETS];
    PeerItem* table[SETS] = {0};
    gm_mat dv[SETS];
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    std::string size = std::to_string(count) + " x " + std::to_string(fw) + "x" + std::to_string(fh) + "->" +
                       std::to_string(dw) + "x" + std::to_string(dh);
    Row r("preprocess", op, size, "gpumat");
    Timing t;
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i) {
        gm_mat all;
        ok = CUDA_OK(cudaMalloc(&src[i], sbytes)) && CUDA_OK(cudaMalloc(&dst[i], dbytes)) &&
             fill_random(src[i], sbytes, GM_U8, 0, 255) && gm_ok(gm_wrap_desc(&all, src[i], &fd, GM_DEVICE)) &&
             gm_ok(gm_wrap_desc(&dv[i], dst[i], &dd_, GM_DEVICE));
        for (int k = 0; ok && k < count; ++k) {
            gm_mat m;
            ok = gm_ok(gm_item(&all, &m, k % frames));
            srcs[i].push_back(m);
        }
        if (ok) {
            items[i] = peer_items(srcs[i], crops, dv[i], pp);
            ok = CUDA_OK(cudaMalloc(&table[i], count * sizeof(PeerItem))) &&
                 CUDA_OK(cudaMemcpy(table[i], items[i].data(), count * sizeof(PeerItem), cudaMemcpyHostToDevice));
        }
    }
    if (ok) {
        r.bytes = prep_floor(srcs[0], crops, dv[0], pp);
        char note[64];
        snprintf(note, sizeof note, "%d item%s", count, count > 1 ? "s" : "");
        r.note = note;
    }
    Row naive = r, npp = r;
    naive.impl = "naive", npp.impl = "npp";
    ok = ok && time_call(
                   [&](int i) {
                       return gm_ok(gm_preprocess_batch(srcs[i].data(), crops.data(), count, &dv[i], &pp, NULL,
                                                        (gm_stream)g_stream));
                   },
                   true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    if (ok)
        bytes_peer(r, (double)dbytes, src, sbytes, dst);
    if (ok && dd == GM_F32) {
        PeerArith a = peer_arith(pp, dv[0]);
        dim3 block(128), grid((unsigned)((dw + 127) / 128), (unsigned)dh, (unsigned)count);
        bool peer = time_call(
            [&](int i) {
                naive_prep_kernel<<<grid, block, 0, g_stream>>>(table[i], a);
                return CUDA_OK(cudaGetLastError());
            },
            true, &t);
        emit(peer ? (naive.us = t.us, naive.latency_us = t.latency_us, naive) : naive.error());
#if BENCH_NPP
        NppScratch s;
        peer = s.make(dw, dh) &&
               time_call(
                   [&](int i) {
                       for (const PeerItem& it : items[i])
                           if (!npp_prep(it, a, s))
                               return false;
                       return true;
                   },
                   true, &t);
        emit(peer ? (npp.us = t.us, npp.latency_us = t.latency_us, npp) : npp.error());
#endif
    }
    for (int i = 0; i < SETS; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
        cudaFree(table[i]);
    }
}

// The issue's cases: a YOLO letterbox of a 1080p frame (f32, f16; a
// factor of 3, one tap: the point path), and of 1366x768 (no whole factor:
// the tile path), 32 frames in one call, 64 regions of different sizes of
// one 4K frame into a 224x224 classifier batch; 4K <-> 1080p into f16.
void prep_section()
{
    gm_prep yolo;
    memset(&yolo, 0, sizeof yolo);
    yolo.fit = GM_FIT_LETTERBOX;
    yolo.swap_rb = 1;
    for (int c = 0; c < 3; ++c) {
        yolo.pad[c] = 114;
        yolo.scale[c] = 1 / 255.0;
    }
    std::vector<gm_rect> one(1, gm_rect{0, 0, 1920, 1080}), frames32(32, gm_rect{0, 0, 1920, 1080});
    prep_one("prep_letterbox_u8_f32", 1920, 1080, 1, one, 640, 640, GM_F32, yolo);
    prep_one("prep_letterbox_u8_f32", 1366, 768, 1, std::vector<gm_rect>(1, gm_rect{0, 0, 1366, 768}), 640, 640, GM_F32,
             yolo);
    prep_one("prep_letterbox_u8_f16", 1920, 1080, 1, one, 640, 640, GM_F16, yolo);
    prep_one("prep_letterbox_batch_u8_f32", 1920, 1080, 32, frames32, 640, 640, GM_F32, yolo);
    gm_prep cls;
    memset(&cls, 0, sizeof cls);
    const double mean[3] = {123.675, 116.28, 103.53}, stdv[3] = {58.395, 57.12, 57.375};
    for (int c = 0; c < 3; ++c) {
        cls.mean[c] = mean[c];
        cls.scale[c] = 1 / stdv[c];
    }
    cls.swap_rb = 1;
    prep_one("prep_rois_u8_f32", 3840, 2160, 1, roi_rects(), 224, 224, GM_F32, cls);
    // The gm_resize bar's sizes with f16 output, read as the fused call: a
    // u8 frame stretched to 1080p or 4K by LINEAR into f16 NCHW, scaled
    // 1/255.
    gm_prep stretch;
    memset(&stretch, 0, sizeof stretch);
    for (int c = 0; c < 3; ++c)
        stretch.scale[c] = 1 / 255.0;
    prep_one("prep_stretch_u8_f16", 3840, 2160, 1, std::vector<gm_rect>(1, gm_rect{0, 0, 3840, 2160}), 1920, 1080,
             GM_F16, stretch);
    prep_one("prep_stretch_u8_f16", 1920, 1080, 1, one, 3840, 2160, GM_F16, stretch);
}

void resize_section()
{
    resize_one(3840, 2160, 1920, 1080, GM_U8, GM_INTER_LINEAR, "linear");
    resize_one(3840, 2160, 1920, 1080, GM_U8, GM_INTER_AREA, "area");
    resize_one(1920, 1080, 3840, 2160, GM_U8, GM_INTER_LINEAR, "linear");
    resize_one(1920, 1080, 640, 360, GM_U8, GM_INTER_LINEAR, "linear");
    resize_one(1920, 1080, 608, 342, GM_U8, GM_INTER_LINEAR, "linear");
    resize_one(1920, 1080, 608, 342, GM_U8, GM_INTER_AREA, "area");
    resize_one(1920, 1080, 640, 360, GM_U8, GM_INTER_NEAREST, "nearest");
    resize_one(1920, 1080, 640, 360, GM_U8, GM_INTER_LINEAR_EXACT, "linear_exact");
    resize_one(3840, 2160, 1920, 1080, GM_F32, GM_INTER_LINEAR, "linear");
    resize_one(1920, 1080, 3840, 2160, GM_F32, GM_INTER_LINEAR, "linear");
    resize_one(3840, 2160, 1920, 1080, GM_F16, GM_INTER_LINEAR, "linear");
    resize_one(1920, 1080, 3840, 2160, GM_F16, GM_INTER_LINEAR, "linear");
}

// gm_fill of a w x h image of dt with 3 or 4 channels, bytes written over
// time, beside NPP's nppiSet (which takes u8 and f32 with 3 or 4 channels).
void fill_one(int w, int h, gm_dtype dt, int channels)
{
    gm_desc d = desc_of(w, h, 1, channels, dt, GM_HWC);
    gm_mat dv[SETS];
    void* dst[SETS] = {0};
    size_t bytes = (size_t)w * h * channels * gm_dtype_size(dt);
    const double value[4] = {114, 37.5, 255, 128};
    Row r("draw", std::string("fill_") + gm_dtype_name(dt) + "_c" + std::to_string(channels),
          std::to_string(w) + "x" + std::to_string(h), "gpumat");
    Timing t;
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&dst[i], bytes)) && gm_ok(gm_wrap_desc(&dv[i], dst[i], &d, GM_DEVICE));
    r.bytes = (double)bytes;
    Row npp = r;
    npp.impl = "npp";
    ok = ok && time_call([&](int i) { return gm_ok(gm_fill(&dv[i], value, (gm_stream)g_stream)); }, true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
#if BENCH_NPP
    if (ok) {
        NppiSize roi{w, h};
        const Npp8u v8[4] = {114, 38, 255, 128};
        const Npp32f v32[4] = {114, 37.5f, 255, 128};
        bool peer = time_call(
            [&](int i) {
                int p = (int)dv[i].pitch;
                if (dt == GM_U8)
                    return NPP_OK(channels == 3 ? nppiSet_8u_C3R_Ctx(v8, (Npp8u*)dst[i], p, roi, g_npp)
                                                : nppiSet_8u_C4R_Ctx(v8, (Npp8u*)dst[i], p, roi, g_npp));
                return NPP_OK(channels == 3 ? nppiSet_32f_C3R_Ctx(v32, (Npp32f*)dst[i], p, roi, g_npp)
                                            : nppiSet_32f_C4R_Ctx(v32, (Npp32f*)dst[i], p, roi, g_npp));
            },
            true, &t);
        emit(peer ? (npp.us = t.us, npp.latency_us = t.latency_us, npp) : npp.error());
    }
#endif
    for (int i = 0; i < SETS; ++i)
        cudaFree(dst[i]);
}

// The blend without gpumat: a thread a byte, cv::addWeighted's arithmetic.
__global__ void naive_blend(const unsigned char* a, const unsigned char* b, unsigned char* d, size_t pitch,
                            int row_bytes, int h, float alpha, float beta, float gamma)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= row_bytes || y >= h)
        return;
    size_t at = (size_t)y * pitch + x;
    float v = rintf(__fmaf_rn((float)a[at], alpha, __fmaf_rn((float)b[at], beta, gamma)));
    d[at] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f);
}

// gm_add_weighted of two u8 x3 images into a third, beside a naive kernel
// and NPP's constant-alpha composite (nppiAlphaCompC: another arithmetic,
// the same bytes moved): two images read, one written.
void blend_one(int w, int h)
{
    const int channels = 3;
    gm_desc d = desc_of(w, h, 1, channels, GM_U8, GM_HWC);
    gm_mat m[3][SETS];
    void* buf[3][SETS] = {{0}};
    size_t bytes = (size_t)w * h * channels;
    const double alpha = 0.3, beta = 0.7, gamma = 0;
    const std::string op = "add_weighted_u8_c3", size = std::to_string(w) + "x" + std::to_string(h);
    Row r("draw", op, size, "gpumat"), naive("draw", op, size, "naive"), npp("draw", op, size, "npp alphacomp");
    Timing t;
    bool ok = true;
    for (int k = 0; k < 3; ++k)
        for (int i = 0; ok && i < SETS; ++i)
            ok = CUDA_OK(cudaMalloc(&buf[k][i], bytes)) && fill_random(buf[k][i], bytes, GM_U8, 0, 0) &&
                 gm_ok(gm_wrap_desc(&m[k][i], buf[k][i], &d, GM_DEVICE));
    r.bytes = naive.bytes = npp.bytes = 3.0 * (double)bytes;
    ok = ok && time_call([&](int i) { return gm_ok(gm_add_weighted(&m[0][i], alpha, &m[1][i], beta, gamma, &m[2][i],
                                                                   (gm_stream)g_stream)); },
                         true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    bool peer = ok && time_call(
                          [&](int i) {
                              naive_blend<<<dim3((w * channels + 255) / 256, h), 256, 0, g_stream>>>(
                                  (const unsigned char*)buf[0][i], (const unsigned char*)buf[1][i],
                                  (unsigned char*)buf[2][i], (size_t)m[0][i].pitch, w * channels, h, (float)alpha,
                                  (float)beta, (float)gamma);
                              return CUDA_OK(cudaGetLastError());
                          },
                          true, &t);
    emit(peer ? (naive.us = t.us, naive.latency_us = t.latency_us, naive) : naive.error());
#if BENCH_NPP
    peer = ok && time_call(
                     [&](int i) {
                         int p = (int)m[0][i].pitch;
                         return NPP_OK(nppiAlphaCompC_8u_C3R_Ctx((const Npp8u*)buf[0][i], p, 77, (const Npp8u*)buf[1][i],
                                                                 p, 178, (Npp8u*)buf[2][i], p, NppiSize{w, h},
                                                                 NPPI_OP_ALPHA_PLUS, g_npp));
                     },
                     true, &t);
    emit(peer ? (npp.us = t.us, npp.latency_us = t.latency_us, npp) : npp.error());
#endif
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < SETS; ++i)
            cudaFree(buf[k][i]);
}

// The full-frame way's composite without NPP: a straight-alpha RGBA overlay
// OVER a BGRA frame, a thread a pixel, with gm_overlay_draw's arithmetic.
__global__ void naive_over(const uchar4* over, size_t over_pitch, uchar4* frame, size_t frame_pitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    uchar4 s = ((const uchar4*)((const char*)over + y * over_pitch))[x];
    uchar4* d = (uchar4*)((char*)frame + y * frame_pitch) + x;
    uchar4 f = *d;
    unsigned a = s.w, k = 255 - a;
    f.x = (unsigned char)((s.z * a + f.x * k + 127) / 255);
    f.y = (unsigned char)((s.y * a + f.y * k + 127) / 255);
    f.z = (unsigned char)((s.x * a + f.z * k + 127) / 255);
    f.w = (unsigned char)(a + (f.w * k + 127) / 255);
    *d = f;
}

// Replaces graph g by the kernels it holds (a captured draw's upload of its
// tables is left out: the tables are on the device already).
bool keep_kernels(cudaGraph_t g)
{
    size_t n = 0;
    if (!CUDA_OK(cudaGraphGetNodes(g, NULL, &n)))
        return false;
    std::vector<cudaGraphNode_t> nodes(n);
    bool ok = CUDA_OK(cudaGraphGetNodes(g, nodes.data(), &n)), kernel = false;
    for (size_t i = 0; ok && i < n; ++i) {
        cudaGraphNodeType t;
        ok = CUDA_OK(cudaGraphNodeGetType(nodes[i], &t)) &&
             (t == cudaGraphNodeTypeKernel ? (kernel = true) : CUDA_OK(cudaGraphDestroyNode(nodes[i])));
    }
    return ok && (kernel || fail("the captured draw launched no kernel"));
}

// Issue 18's case: 100 RGBA sprites of 200x50 over a 1080p BGRA frame
// (Porter-Duff OVER of the frame's alpha, as cv::cuda::alphaComp's
// ALPHA_OVER). Per frame, gm_overlay_draw of the sprites from pageable host
// memory beside the full-frame way (Savant's): the sprites drawn into a
// frame-sized RGBA image in host memory, which is uploaded whole and
// composited (nppiAlphaComp, or a naive kernel); then the overlay kernel
// alone (sprites on the device; a graph of the captured draws' kernels),
// over its floor: the sprite bytes read plus the frame pixels under them
// read and written. The kernel's KSETS frames and sprite copies, 0.1 GB
// read and written, are more than the L2 cache holds. And the draw onto
// the frames as NV12 (gm_overlay_draw_yuv), per frame.
void overlay_one()
{
    const int W = 1920, H = 1080, N = 100, SW = 200, SH = 50, KSETS = 16;
    const size_t sprite_bytes = (size_t)SW * SH * 4, frame_bytes = (size_t)W * H * 4;
    gm_desc fd = desc_of(W, H, 1, 4, GM_U8, GM_HWC), sd = desc_of(SW, SH, 1, 4, GM_U8, GM_HWC);
    gm_overlay_params params = {0, 1};
    std::vector<unsigned char> pixels(N * sprite_bytes), full(frame_bytes, 0);
    std::vector<gm_sprite> on_host(N), on_device(N * KSETS);
    std::vector<char> covered((size_t)W * H, 0);
    gm_mat frame[KSETS];
    void *fdev[KSETS] = {0}, *sdev[KSETS] = {0};
    void *odev = NULL, *pinned = NULL;
    gm_overlay* ov[KSETS + 1] = {0};
    cudaGraph_t kernels[KSETS] = {0}, all = 0;
    cudaGraphExec_t exec = 0;
    Timing t;
    double under = 0;
    for (auto& b : pixels)
        b = (unsigned char)rnd();
    bool ok = CUDA_OK(cudaMalloc(&odev, frame_bytes)) && CUDA_OK(cudaMallocHost(&pinned, frame_bytes));
    for (int k = 0; ok && k < KSETS; ++k)
        ok = CUDA_OK(cudaMalloc(&sdev[k], pixels.size())) &&
             CUDA_OK(cudaMemcpy(sdev[k], pixels.data(), pixels.size(), cudaMemcpyHostToDevice));
    for (int i = 0; ok && i < N; ++i) {
        int64_t x = (int64_t)(rnd() % (W - SW + 1)), y = (int64_t)(rnd() % (H - SH + 1));
        gm_sprite& h = on_host[i];
        memset(&h, 0, sizeof h);
        h.x = x, h.y = y, h.kind = GM_SPRITE_RGBA;
        ok = gm_ok(gm_wrap_desc(&h.image, &pixels[i * sprite_bytes], &sd, GM_HOST));
        for (int k = 0; ok && k < KSETS; ++k) {
            on_device[k * N + i] = h;
            ok = gm_ok(gm_wrap_desc(&on_device[k * N + i].image, (char*)sdev[k] + i * sprite_bytes, &sd, GM_DEVICE));
        }
        for (int64_t r = 0; r < SH; ++r) {
            memcpy(&full[(size_t)((y + r) * W + x) * 4], &pixels[i * sprite_bytes + r * SW * 4], SW * 4);
            for (int64_t c = 0; c < SW; ++c)
                covered[(size_t)((y + r) * W + x + c)] = 1;
        }
    }
    for (char c : covered)
        under += c;
    memcpy(pinned, full.data(), frame_bytes);
    for (int i = 0; ok && i < KSETS; ++i)
        ok = CUDA_OK(cudaMalloc(&fdev[i], frame_bytes)) && fill_random(fdev[i], frame_bytes, GM_U8, 0, 0) &&
             gm_ok(gm_wrap_desc(&frame[i], fdev[i], &fd, GM_DEVICE));
    for (int i = 0; ok && i <= KSETS; ++i)
        ok = gm_ok(gm_overlay_create(&ov[i]));
    const std::string op = "overlay_100x200x50", size = "1920x1080";
    char note[96];
    snprintf(note, sizeof note, "per frame: %.2f MB uploaded", N * sprite_bytes / 1e6);
    Row r("draw", op, size, "gpumat"), naive("draw", op, size, "full-frame naive"),
        npp("draw", op, size, "full-frame npp"), npp_pinned("draw", op, size, "full-frame npp pinned"),
        kernel("draw", "overlay_kernel", size, "gpumat");
    r.note = note;
    snprintf(note, sizeof note, "per frame: %.2f MB uploaded", frame_bytes / 1e6);
    naive.note = npp.note = npp_pinned.note = note;
    ok = ok && time_call([&](int i) { return gm_ok(gm_overlay_draw(ov[KSETS], &frame[i], on_host.data(), N, &params,
                                                                   (gm_stream)g_stream)); },
                         true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    double ours = t.us;
    /* the same sprites over the frames' bytes as 1080p NV12 (gm_overlay_draw_yuv) */
    Row yuv("draw", "overlay_nv12_100x200x50", size, "gpumat");
    gm_yuv nv12[KSETS];
    for (int i = 0; ok && i < KSETS; ++i)
        ok = gm_ok(gm_yuv_wrap(&nv12[i], GM_YUV_NV12, fdev[i], W, H, 0, 0, GM_DEVICE));
    yuv.note = r.note;
    ok = ok && time_call([&](int i) { return gm_ok(gm_overlay_draw_yuv(ov[KSETS], &nv12[i], on_host.data(), N,
                                                                       (gm_stream)g_stream)); },
                         true, &t);
    emit(ok ? (yuv.us = t.us, yuv.latency_us = t.latency_us, yuv) : yuv.error());
    auto full_frame = [&](Row& row, const void* src, bool use_npp) {
        Timing p;
        bool done = time_call(
            [&](int i) {
                if (!CUDA_OK(cudaMemcpyAsync(odev, src, frame_bytes, cudaMemcpyHostToDevice, g_stream)))
                    return false;
#if BENCH_NPP
                if (use_npp)
                    return NPP_OK(nppiAlphaComp_8u_AC4R_Ctx((const Npp8u*)odev, W * 4, (const Npp8u*)fdev[i], W * 4,
                                                            (Npp8u*)fdev[i], W * 4, NppiSize{W, H},
                                                            NPPI_OP_ALPHA_OVER, g_npp));
#endif
                naive_over<<<dim3((W + 31) / 32, (H + 7) / 8), dim3(32, 8), 0, g_stream>>>(
                    (const uchar4*)odev, W * 4, (uchar4*)fdev[i], W * 4, W, H);
                return CUDA_OK(cudaGetLastError());
            },
            true, &p);
        if (done)
            snprintf(note, sizeof note, "; gpumat %.2fx faster", p.us / ours);
        emit(done ? (row.us = p.us, row.latency_us = p.latency_us, row.note += note, row) : row.error());
    };
    if (ok) {
        full_frame(naive, full.data(), false);
#if BENCH_NPP
        full_frame(npp, full.data(), true);
        full_frame(npp_pinned, pinned, true);
#endif
    }
    /* the kernel alone: each set's draw twice for real, so that its tables
     * reach the device in both of the overlay's buffer sets (draws take them
     * in turn), then captured, its kernel kept (it reads the tables of the
     * first draw, which are the same); one graph runs them all */
    for (int i = 0; ok && i < KSETS; ++i) {
        const gm_sprite* sp = &on_device[i * N];
        ok = gm_ok(gm_overlay_draw(ov[i], &frame[i], sp, N, &params, (gm_stream)g_stream)) &&
             gm_ok(gm_overlay_draw(ov[i], &frame[i], sp, N, &params, (gm_stream)g_stream)) &&
             CUDA_OK(cudaStreamSynchronize(g_stream)) &&
             CUDA_OK(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeRelaxed));
        bool drawn = ok && gm_ok(gm_overlay_draw(ov[i], &frame[i], sp, N, &params, (gm_stream)g_stream));
        ok = ok && CUDA_OK(cudaStreamEndCapture(g_stream, &kernels[i])) && drawn && keep_kernels(kernels[i]);
    }
    ok = ok && CUDA_OK(cudaGraphCreate(&all, 0));
    cudaGraphNode_t prev = 0, node;
    for (int i = 0; ok && i < KSETS; ++i, prev = node)
        ok = CUDA_OK(cudaGraphAddChildGraphNode(&node, all, prev ? &prev : NULL, prev ? 1 : 0, kernels[i]));
    ok = ok && CUDA_OK(cudaGraphInstantiate(&exec, all, 0)) &&
         time_call([&](int) { return CUDA_OK(cudaGraphLaunch(exec, g_stream)); }, false, &t);
    kernel.bytes = (double)(N * sprite_bytes) + 2 * 4 * under;
    snprintf(note, sizeof note, "floor: %.0f sprite + 2 x %.0f frame bytes", (double)(N * sprite_bytes), 4 * under);
    kernel.note = note;
    emit(ok ? (kernel.us = t.us / KSETS, kernel) : kernel.error());
    /* two real draws more, so that each set's event was last recorded
     * outside the capture: gm_overlay_destroy waits for it */
    for (int i = 0; ok && i < KSETS; ++i)
        for (int k = 0; ok && k < 2; ++k)
            ok = gm_ok(gm_overlay_draw(ov[i], &frame[i], &on_device[i * N], N, &params, (gm_stream)g_stream));
    if (exec)
        cudaGraphExecDestroy(exec);
    if (all)
        cudaGraphDestroy(all);
    for (int i = 0; i < KSETS; ++i) {
        if (kernels[i])
            cudaGraphDestroy(kernels[i]);
        cudaFree(fdev[i]);
        cudaFree(sdev[i]);
    }
    cudaStreamSynchronize(g_stream);
    for (gm_overlay* o : ov)
        gm_overlay_destroy(o);
    cudaFree(odev);
    cudaFreeHost(pinned);
}

void draw_section()
{
    fill_one(3840, 2160, GM_U8, 3);
    fill_one(3840, 2160, GM_U8, 4);
    fill_one(3840, 2160, GM_F32, 3);
    overlay_one();
    blend_one(1920, 1080);
    blend_one(3840, 2160);
}

// NV12 -> BGR without gpumat: a thread a pixel, OpenCV's BT.601
// limited-range arithmetic (the chroma pair read by each of its 4 pixels).
__global__ void naive_nv12(const unsigned char* frame, size_t pitch, int coded, unsigned char* dst, int w, int h,
                           int channels, bool planar)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w)
        return;
    const unsigned char* uv = frame + pitch * coded + pitch * (y / 2) + x / 2 * 2;
    int l = max(frame[pitch * y + x] - 16, 0) * 1220542 + (1 << 19), u = uv[0] - 128, v = uv[1] - 128;
    int bgr[3] = {l + 2116026 * u, l - 852492 * v - 409993 * u, l + 1673527 * v};
    for (int c = 0; c < channels; ++c) {
        int q = c < 3 ? min(max(bgr[c] >> 20, 0), 255) : 255;
        dst[planar ? ((size_t)c * h + y) * w + x : ((size_t)y * w + x) * channels + c] = (unsigned char)q;
    }
}

// gm_yuv_convert of an NVDEC-shaped NV12 frame (rows `pitch` apart, the
// chroma after `coded` rows) into u8 BGR(A) or planar RGB, beside the bytes
// alone, the naive kernel and NPP's nppiNV12ToRGB (RGB order, its own
// arithmetic; 3-channel interleaved only). Bytes: the planes' pixels read,
// the destination written. from: gm_yuv_from_image the other way, beside
// the bytes alone. p016: a P016 frame (pitch in bytes) into dtype dt,
// beside the bytes alone. count > 1: that many NV12 frames, one after
// another in a buffer, as one batch into a batch of images in one call (the
// naive kernel and NPP a frame a call).
void yuv_one(int w, int h, int pitch, int coded, int channels, bool planar, bool from = false, bool p016 = false,
             gm_dtype dt = GM_U8, int count = 1)
{
    const size_t one_frame = (size_t)pitch * coded * 3 / 2, one_image = (size_t)w * h * channels * gm_dtype_size(dt);
    const size_t frame_bytes = one_frame * count, dbytes = one_image * count;
    const double sample = p016 ? 2 : 1;
    gm_desc dd = desc_of(w, h, count, channels, dt, planar ? GM_CHW : GM_HWC);
    gm_yuv f[SETS];
    gm_mat d[SETS];
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    const std::string image = std::string(planar ? "rgb_chw" : channels == 4 ? "bgra" : "bgr") +
                              (dt == GM_U8 ? "" : std::string("_") + gm_dtype_name(dt)),
                      op = from ? image + "_to_nv12" : (p016 ? "p016_to_" : "nv12_to_") + image,
                      size = (count > 1 ? std::to_string(count) + "x" : std::string()) + std::to_string(w) + "x" +
                             std::to_string(h);
    Row r("yuv", op, size, "gpumat"), naive("yuv", op, size, "naive"), npp("yuv", op, size, "npp");
    std::vector<unsigned char> ref, out;
    Timing t;
    bool ok = true;
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&src[i], frame_bytes)) && CUDA_OK(cudaMalloc(&dst[i], dbytes)) &&
             fill_random(src[i], frame_bytes, GM_U8, 0, 0) && fill_random(dst[i], dbytes, GM_U8, 0, 0) &&
             gm_ok(gm_yuv_wrap(&f[i], p016 ? GM_YUV_P016 : GM_YUV_NV12, src[i], w, h, pitch, coded, GM_DEVICE)) &&
             gm_ok(gm_wrap_desc(&d[i], dst[i], &dd, GM_DEVICE));
    for (int i = 0; ok && count > 1 && i < SETS; ++i) { /* the planes as batches of frames one_frame apart */
        gm_desc y = desc_of(w, h, count, 1, GM_U8, GM_HWC), uv = desc_of(w / 2, h / 2, count, 2, GM_U8, GM_HWC);
        y.pitch = uv.pitch = pitch;
        y.batch_pitch = uv.batch_pitch = (int64_t)one_frame;
        ok = gm_ok(gm_wrap_desc(&f[i].y, src[i], &y, GM_DEVICE)) &&
             gm_ok(gm_wrap_desc(&f[i].u, (char*)src[i] + (size_t)pitch * coded, &uv, GM_DEVICE));
    }
    r.bytes = naive.bytes = npp.bytes = (1.5 * w * h * sample) * count + (double)dbytes;
    r.extra = std::string(", \"pitch\": ") + std::to_string(pitch) + ", \"coded_height\": " + std::to_string(coded);
    ok = ok && time_call(
                   [&](int i) {
                       return gm_ok(from ? gm_yuv_from_image(&d[i], &f[i], planar, (gm_stream)g_stream)
                                         : gm_yuv_convert(&f[i], &d[i], planar, (gm_stream)g_stream));
                   },
                   true, &t);
    if (ok && !from) /* what the naive kernel must match */
        ref.resize(dbytes), ok = CUDA_OK(cudaMemcpy(ref.data(), dst[0], dbytes, cudaMemcpyDeviceToHost));
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    if (!ok)
        goto done;
    if (from) {
        bytes_peer(r, 1.5 * w * h, dst, dbytes, src);
        goto done;
    }
    bytes_peer(r, (double)dbytes, src, frame_bytes, dst);
    if (p016)
        goto done;
    ok = CUDA_OK(cudaMemset(dst[0], 0, dbytes)) &&
         time_call(
             [&](int i) {
                 for (int k = 0; k < count; ++k)
                     naive_nv12<<<dim3((w + 255) / 256, h), 256, 0, g_stream>>>(
                         (const unsigned char*)src[i] + k * one_frame, (size_t)pitch, coded,
                         (unsigned char*)dst[i] + k * one_image, w, h, channels, planar);
                 return CUDA_OK(cudaGetLastError());
             },
             true, &t);
    if (ok)
        out.resize(dbytes), ok = CUDA_OK(cudaMemcpy(out.data(), dst[0], dbytes, cudaMemcpyDeviceToHost));
    naive.note = ok && planar ? "unchecked (BGR plane order)" : out == ref ? "matches gpumat" : "MISMATCH vs gpumat";
    emit(ok ? (naive.us = t.us, naive.latency_us = t.latency_us, naive) : naive.error());
#if BENCH_NPP
    if (channels == 3 && !planar) {
        ok = time_call(
            [&](int i) {
                bool good = true;
                for (int k = 0; good && k < count; ++k) {
                    const Npp8u* frame = (const Npp8u*)src[i] + k * one_frame;
                    const Npp8u* planes[2] = {frame, frame + (size_t)pitch * coded};
                    good = NPP_OK(nppiNV12ToRGB_8u_P2C3R_Ctx(planes, pitch, (Npp8u*)dst[i] + k * one_image, w * 3,
                                                              NppiSize{w, h}, g_npp));
                }
                return good;
            },
            true, &t);
        npp.note = "RGB order, NPP's own arithmetic: unchecked";
        emit(ok ? (npp.us = t.us, npp.latency_us = t.latency_us, npp) : npp.error());
    }
#endif
done:
    for (int i = 0; i < SETS; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
    }
}

// gm_preprocess_yuv(_batch) throughput: count 1080p NV12 frames as NVDEC
// lays them out (pitch 2048, coded height 1088; a buffer each, as a
// decoder's pool) letterboxed by pp into a count x 3 x 640 x 640 NCHW batch
// of dd. Bytes: the destination, and of each frame the luma rows the
// sampler reads and as many chroma rows (at most all of them). Beside it
// the bytes alone; gpumat in two steps (gm_yuv_convert into a BGR image
// each, then gm_preprocess_batch); f32: NPP's NV12ToRGB then its chain
// (npp_prep) item by item.
void prep_yuv_one(const char* op, int count, gm_dtype dd, const gm_prep& pp)
{
    const int w = 1920, h = 1080, pitch = 2048, coded = 1088, dw = 640, dh = 640;
    const size_t fbytes = (size_t)pitch * coded * 3 / 2, dbytes = (size_t)dw * dh * 3 * count * gm_dtype_size(dd);
    gm_desc ddesc = desc_of(dw, dh, count, 3, dd, GM_CHW), bgr = desc_of(w, h, count, 3, GM_U8, GM_HWC);
    std::vector<gm_yuv> f[SETS];
    gm_mat dv[SETS], images;
    std::vector<gm_mat> image(count);
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    void* scratch = nullptr;
    const std::vector<gm_rect> crops(count, gm_rect{0, 0, w, h});
    const std::string size = std::to_string(count) + " x 1920x1080->640x640";
    Row r("preprocess", op, size, "gpumat"), two = r, npp = r;
    two.impl = "gpumat 2-step", npp.impl = "npp";
    Timing t;
    bool ok = CUDA_OK(cudaMalloc(&scratch, (size_t)w * h * 3 * count)) &&
              gm_ok(gm_wrap_desc(&images, scratch, &bgr, GM_DEVICE));
    for (int k = 0; ok && k < count; ++k)
        ok = gm_ok(gm_item(&images, &image[k], k));
    for (int i = 0; ok && i < SETS; ++i) {
        ok = CUDA_OK(cudaMalloc(&src[i], fbytes * count)) && CUDA_OK(cudaMalloc(&dst[i], dbytes)) &&
             fill_random(src[i], fbytes * count, GM_U8, 0, 255) && gm_ok(gm_wrap_desc(&dv[i], dst[i], &ddesc, GM_DEVICE));
        f[i].resize(count);
        for (int k = 0; ok && k < count; ++k)
            ok = gm_ok(gm_yuv_wrap(&f[i][k], GM_YUV_NV12, (char*)src[i] + k * fbytes, w, h, pitch, coded, GM_DEVICE));
    }
    if (ok) {
        std::vector<gm__prep_place> places(count);
        gm__plan plan;
        unsigned kinds;
        ok = gm_ok(gm__check_prep("bench", NULL, f[0].data(), crops.data(), count, &dv[0], &pp)) &&
             gm_ok(gm__prep_plan("bench", NULL, f[0].data(), crops.data(), count, &dv[0], &pp, &plan, places.data(),
                                 &kinds));
        const gm__prep_item& it = places[0].item.item;
        gm__resize_args a;
        memset(&a, 0, sizeof a);
        a.height = it.height;
        a.map = it.map;
        double rows = rows_read(a, it.map.sampler);
        r.bytes = two.bytes = npp.bytes = (double)dbytes + count * (rows * w + std::min(rows, h / 2.0) * w);
        r.note = std::to_string(count) + (count > 1 ? " frames" : " frame");
    }
    ok = ok && time_call(
                   [&](int i) {
                       return gm_ok(gm_preprocess_yuv_batch(f[i].data(), NULL, count, &dv[i], &pp, NULL,
                                                            (gm_stream)g_stream));
                   },
                   true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    if (ok)
        bytes_peer(r, (double)dbytes, src, fbytes * count, dst);
    bool peer = ok && time_call(
                          [&](int i) {
                              for (int k = 0; k < count; ++k)
                                  if (!gm_ok(gm_yuv_convert(&f[i][k], &image[k], 0, (gm_stream)g_stream)))
                                      return false;
                              return gm_ok(gm_preprocess_batch(image.data(), NULL, count, &dv[i], &pp, NULL,
                                                               (gm_stream)g_stream));
                          },
                          true, &t);
    if (ok)
        emit(peer ? (two.us = t.us, two.latency_us = t.latency_us, two) : two.error());
#if BENCH_NPP
    if (ok && dd == GM_F32) {
        PeerArith a = peer_arith(pp, dv[0]);
        NppScratch s;
        std::vector<PeerItem> items[SETS];
        for (int i = 0; i < SETS; ++i)
            items[i] = peer_items(image, crops, dv[i], pp);
        peer = s.make(dw, dh) &&
               time_call(
                   [&](int i) {
                       for (int k = 0; k < count; ++k) {
                           const Npp8u* planes[2] = {(const Npp8u*)f[i][k].y.data, (const Npp8u*)f[i][k].u.data};
                           if (!NPP_OK(nppiNV12ToRGB_8u_P2C3R_Ctx(planes, pitch, (Npp8u*)image[k].data,
                                                                 (int)image[k].pitch, NppiSize{w, h}, g_npp)) ||
                               !npp_prep(items[i][k], a, s))
                               return false;
                       }
                       return true;
                   },
                   true, &t);
        npp.note = "NV12ToRGB, then the chain item by item";
        emit(peer ? (npp.us = t.us, npp.latency_us = t.latency_us, npp) : npp.error());
    }
#endif
    for (int i = 0; i < SETS; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
    }
    cudaFree(scratch);
}

// 1080p decoded as NVDEC lays it out (pitch 2048, coded height 1088), and
// 4K; then the same frames made from BGR images; then the issue's
// pre-process of decoded frames: a YOLO letterbox of one frame into f32
// (a factor of 3, one tap) and f16, and 32 frames into one batch.
void yuv_section()
{
    yuv_one(1920, 1080, 2048, 1088, 3, false);
    yuv_one(1920, 1080, 2048, 1088, 4, false);
    yuv_one(1920, 1080, 2048, 1088, 3, true);
    yuv_one(3840, 2160, 4096, 2160, 3, false);
    yuv_one(1920, 1080, 2048, 1088, 3, false, false, false, GM_U8, 32);
    yuv_one(1920, 1080, 2048, 1088, 3, true, false, false, GM_U8, 32);
    yuv_one(1920, 1080, 2048, 1088, 4, false, false, false, GM_U8, 32);
    yuv_one(1920, 1080, 2048, 1088, 3, false, true);
    yuv_one(3840, 2160, 4096, 2160, 3, false, true);
    yuv_one(1920, 1080, 4096, 1088, 3, false, false, true, GM_U8);
    yuv_one(1920, 1080, 4096, 1088, 3, false, false, true, GM_U16);
    yuv_one(1920, 1080, 4096, 1088, 3, true, false, true, GM_U16);
    yuv_one(1920, 1080, 4096, 1088, 3, false, false, true, GM_F32);
    yuv_one(1920, 1080, 4096, 1088, 3, true, false, true, GM_F32);
    gm_prep yolo;
    memset(&yolo, 0, sizeof yolo);
    yolo.fit = GM_FIT_LETTERBOX;
    yolo.swap_rb = 1;
    for (int c = 0; c < 3; ++c) {
        yolo.pad[c] = 114;
        yolo.scale[c] = 1 / 255.0;
    }
    prep_yuv_one("prep_letterbox_nv12_f32", 1, GM_F32, yolo);
    prep_yuv_one("prep_letterbox_nv12_f16", 1, GM_F16, yolo);
    prep_yuv_one("prep_letterbox_batch_nv12_f32", 32, GM_F32, yolo);
}

// ---------------------------------------------------------------- warps

// A naive warp of u8 pixels: a thread a destination pixel of item z, its
// source position in float from that item's destination -> source matrix,
// bilinear in float with zero outside, rounded; what a float-sampling warp
// (CV-CUDA's) does, not OpenCV's bits.
__global__ void naive_warp(const unsigned char* src, size_t spitch, int sw, int sh, unsigned char* dst, int w, int h,
                           const float* M, int channels)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, b = blockIdx.z;
    if (x >= w)
        return;
    const float* m = M + 6 * b;
    const float fx = m[0] * x + m[1] * y + m[2], fy = m[3] * x + m[4] * y + m[5];
    const int x0 = (int)floorf(fx), y0 = (int)floorf(fy);
    const float ax = fx - x0, ay = fy - y0;
    unsigned char* d = dst + (((size_t)b * h + y) * w + x) * channels;
    for (int c = 0; c < channels; ++c) {
        float v = 0;
        for (int k = 0; k < 4; ++k) {
            const int tx = x0 + (k & 1), ty = y0 + (k >> 1);
            const float wt = (k & 1 ? ax : 1 - ax) * (k >> 1 ? ay : 1 - ay);
            if (tx >= 0 && ty >= 0 && tx < sw && ty < sh)
                v += wt * src[ty * spitch + (size_t)tx * channels + c];
        }
        d[c] = (unsigned char)min(max(__float2int_rn(v), 0), 255);
    }
}

// The matrices (n doubles each: 9 where perspective) of count warps of a w
// x h frame into dw x dh: count > 1, the frame's faces, each box (60-300
// pixels) by its own similarity onto dw x dh; else the whole frame by one
// matrix, rotated by 10 degrees about its centre (mildly tilted where
// perspective).
std::vector<double> face_matrices(int w, int h, int dw, int dh, int count, bool perspective)
{
    const int n = perspective ? 9 : 6;
    std::vector<double> M((size_t)count * n);
    for (int i = 0; i < count; ++i) {
        double* m = &M[(size_t)i * n];
        const double box = count > 1 ? 60 + (double)(rnd() % 240) : 0;
        const float cx = count > 1 ? (float)(box / 2 + (double)(rnd() % (uint64_t)(w - box))) : w / 2.0f;
        const float cy = count > 1 ? (float)(box / 2 + (double)(rnd() % (uint64_t)(h - box))) : h / 2.0f;
        gm_rotation_matrix(cx, cy, count > 1 ? (double)(rnd() % 60) - 30 : 10, count > 1 ? dw / box : 1, m);
        m[2] += dw / 2.0 - cx, m[5] += dh / 2.0 - cy; /* the box's centre onto the destination's */
        if (perspective)
            m[6] = 2e-5, m[7] = -1e-5, m[8] = 1;
    }
    return M;
}

// gm_warp_affine (gm_warp_perspective where perspective) of a w x h u8 x3
// frame into count images of dw x dh by face_matrices (one an item where
// count > 1), in OpenCV 4's arithmetic or 5's (mode). Beside the bytes
// alone and, for LINEAR affine in OpenCV 4's, the naive kernel. Bytes: the
// destination written and as many read.
void warp_one(int w, int h, int dw, int dh, int count, gm_interp interp, bool perspective,
              gm_warp_mode mode = GM_WARP_OPENCV4)
{
    const int channels = 3, n = perspective ? 9 : 6;
    const size_t sbytes = (size_t)w * h * channels, dbytes = (size_t)dw * dh * channels * count;
    static const char* const interps[] = {"linear", "nearest", "area", "linear_exact", "cubic"};
    const std::string op = std::string(perspective ? "warp_perspective" : "warp_affine") + "_u8_c3_" + interps[interp] +
                          (mode == GM_WARP_OPENCV5 ? "_opencv5" : ""),
                      size = std::to_string(w) + "x" + std::to_string(h) + "->" +
                             (count > 1 ? std::to_string(count) + "x" : std::string()) + std::to_string(dw) + "x" +
                             std::to_string(dh);
    gm_desc sd = desc_of(w, h, 1, channels, GM_U8, GM_HWC), dd = desc_of(dw, dh, count, channels, GM_U8, GM_HWC);
    gm_mat s[SETS], d[SETS];
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    float* inv = NULL;
    const std::vector<double> M = face_matrices(w, h, dw, dh, count, perspective);
    std::vector<float> inverse((size_t)count * 6);
    gm_warp_params params;
    Row r("warp", op, size, "gpumat"), naive("warp", op, size, "naive");
    Timing t;
    bool ok = true;
    memset(&params, 0, sizeof params);
    params.interp = interp;
    params.per_item = count > 1;
    params.mode = mode;
    for (int i = 0; i < count && !perspective; ++i) {
        double back[6];
        gm_invert_affine(&M[(size_t)i * n], back);
        for (int k = 0; k < 6; ++k)
            inverse[(size_t)i * 6 + k] = (float)back[k];
    }
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&src[i], sbytes)) && CUDA_OK(cudaMalloc(&dst[i], dbytes)) &&
             fill_random(src[i], sbytes, GM_U8, 0, 0) && gm_ok(gm_wrap_desc(&s[i], src[i], &sd, GM_DEVICE)) &&
             gm_ok(gm_wrap_desc(&d[i], dst[i], &dd, GM_DEVICE));
    ok = ok && CUDA_OK(cudaMalloc(&inv, inverse.size() * sizeof(float))) &&
         CUDA_OK(cudaMemcpy(inv, inverse.data(), inverse.size() * sizeof(float), cudaMemcpyHostToDevice));
    r.bytes = naive.bytes = 2.0 * (double)dbytes;
    ok = ok && time_call(
                   [&](int i) {
                       return gm_ok(perspective ? gm_warp_perspective(&s[i], &d[i], M.data(), &params, (gm_stream)g_stream)
                                                : gm_warp_affine(&s[i], &d[i], M.data(), &params, (gm_stream)g_stream));
                   },
                   true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    if (ok)
        bytes_peer(r, (double)dbytes, src, sbytes, dst);
    if (ok && !perspective && interp == GM_INTER_LINEAR && mode == GM_WARP_OPENCV4) {
        ok = time_call(
            [&](int i) {
                naive_warp<<<dim3((dw + 127) / 128, dh, count), 128, 0, g_stream>>>(
                    (const unsigned char*)src[i], (size_t)w * channels, w, h, (unsigned char*)dst[i], dw, dh, inv,
                    channels);
                return CUDA_OK(cudaGetLastError());
            },
            true, &t);
        emit(ok ? (naive.us = t.us, naive.latency_us = t.latency_us, naive) : naive.error());
    }
    for (int i = 0; i < SETS; ++i)
        cudaFree(src[i]), cudaFree(dst[i]);
    cudaFree(inv);
}

// The warp placement of the pre-process (GM_FIT_WARP): count faces of one
// w x h BGR u8 frame (or NV12, where frame) by face_matrices into a count x
// 3 x dh x dw NCHW tensor of dt, normalised (ArcFace's (x - 127.5) /
// 127.5, RGB), in one call. Beside the bytes alone; bytes: the tensor
// written and a u8 BGR pixel read for each of its pixels (a face's box is
// scaled up or down about as much).
void warp_prep_one(int w, int h, int dw, int dh, int count, gm_dtype dt, bool frame)
{
    const size_t sbytes = (size_t)w * h * 3 / (frame ? 2 : 1),
                 dbytes = (size_t)dw * dh * 3 * count * gm_dtype_size(dt);
    const std::string op = std::string(frame ? "warp_prep_nv12_" : "warp_prep_u8_c3_") + gm_dtype_name(dt),
                      size = std::to_string(w) + "x" + std::to_string(h) + "->" + std::to_string(count) + "x3x" +
                             std::to_string(dh) + "x" + std::to_string(dw);
    const std::vector<double> M = face_matrices(w, h, dw, dh, count, false);
    gm_desc sd = desc_of(w, h, 1, 3, GM_U8, GM_HWC), dd = desc_of(dw, dh, count, 3, dt, GM_CHW);
    gm_mat s[SETS], d[SETS];
    gm_yuv f[SETS];
    std::vector<gm_mat> srcs[SETS];
    std::vector<gm_yuv> frames[SETS];
    void* src[SETS] = {0};
    void* dst[SETS] = {0};
    gm_prep pp;
    Row r("warp", op, size, "gpumat");
    Timing t;
    bool ok = true;
    memset(&pp, 0, sizeof pp);
    pp.fit = GM_FIT_WARP;
    pp.warp = M.data();
    pp.swap_rb = 1;
    for (int c = 0; c < 3; ++c)
        pp.mean[c] = 127.5, pp.scale[c] = 1 / 127.5;
    for (int i = 0; ok && i < SETS; ++i)
        ok = CUDA_OK(cudaMalloc(&src[i], sbytes)) && CUDA_OK(cudaMalloc(&dst[i], dbytes)) &&
             fill_random(src[i], sbytes, GM_U8, 0, 0) && gm_ok(gm_wrap_desc(&d[i], dst[i], &dd, GM_DEVICE)) &&
             (frame ? gm_ok(gm_yuv_wrap(&f[i], GM_YUV_NV12, src[i], w, h, 0, 0, GM_DEVICE))
                    : gm_ok(gm_wrap_desc(&s[i], src[i], &sd, GM_DEVICE)));
    for (int i = 0; ok && i < SETS; ++i) /* every item from the set's one frame */
        srcs[i].assign((size_t)count, s[i]), frames[i].assign((size_t)count, f[i]);
    r.bytes = (double)dbytes + (double)dw * dh * 3 * count;
    ok = ok && time_call(
                   [&](int i) {
                       return gm_ok(frame ? gm_preprocess_yuv_batch(frames[i].data(), NULL, count, &d[i], &pp, NULL,
                                                                    (gm_stream)g_stream)
                                          : gm_preprocess_batch(srcs[i].data(), NULL, count, &d[i], &pp, NULL,
                                                                (gm_stream)g_stream));
                   },
                   true, &t);
    emit(ok ? (r.us = t.us, r.latency_us = t.latency_us, r) : r.error());
    if (ok)
        bytes_peer(r, (double)dbytes, src, sbytes, dst);
    for (int i = 0; i < SETS; ++i)
        cudaFree(src[i]), cudaFree(dst[i]);
}

// The warps: 64 faces of a 1080p frame into 112x112 (ArcFace's input) by
// each interpolation, and whole frames rotated or tilted (LINEAR also in
// OpenCV 5's float arithmetic); the faces into a recogniser's normalised
// tensor in one call, from BGR and from NV12.
void warp_section()
{
    for (bool frame : {false, true})
        for (gm_dtype dt : {GM_F32, GM_F16})
            warp_prep_one(1920, 1080, 112, 112, 64, dt, frame);
    for (gm_interp interp : {GM_INTER_LINEAR, GM_INTER_NEAREST, GM_INTER_CUBIC})
        warp_one(1920, 1080, 112, 112, 64, interp, false);
    warp_one(1920, 1080, 112, 112, 8, GM_INTER_LINEAR, false);
    for (gm_interp interp : {GM_INTER_LINEAR, GM_INTER_CUBIC}) {
        warp_one(1920, 1080, 1920, 1080, 1, interp, false);
        warp_one(1920, 1080, 1920, 1080, 1, interp, true);
    }
    warp_one(1920, 1080, 112, 112, 64, GM_INTER_LINEAR, false, GM_WARP_OPENCV5);
    warp_one(1920, 1080, 1920, 1080, 1, GM_INTER_LINEAR, false, GM_WARP_OPENCV5);
    warp_one(1920, 1080, 1920, 1080, 1, GM_INTER_LINEAR, true, GM_WARP_OPENCV5);
}

// The CUDA runtime's primary context, made current here, is the one gpumat
// then uses (it takes the context current on the calling thread).
bool setup()
{
    cudaDeviceProp p;
    if (!CUDA_OK(cudaSetDevice(0)) || !CUDA_OK(cudaFree(0)) || !CUDA_OK(cudaGetDeviceProperties(&p, 0)) ||
        !CUDA_OK(cudaStreamCreate(&g_stream))) /* ordered with the legacy default stream, so plain cudaMemcpy is too */
        return false;
    g_device = p.name;
#if BENCH_NPP
    if (!npp_setup())
        return false;
#endif
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    /* CASE (optional): only the cases whose "op size" contains it, e.g.
     * "merge_f32_u8 3840", for a profiler run (ncu), or "host" for the host
     * overhead alone, "resize" for gm_resize alone, "preprocess" for gm_preprocess alone, "draw" for gm_fill, the overlay and gm_add_weighted alone, "yuv" for gm_yuv_convert and gm_yuv_from_image alone, "warp" for the warps alone, or the sweep's configurations whose "transform SRC DST
     * cN LAYOUT" contains it, e.g. "transform u8 f32 c1"; no NVRTC section
     * then. */
    const char* only = argc == 3 ? argv[2] : NULL;
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s ROWS.jsonl [CASE]\n", argv[0]);
        return 2;
    }
    g_out = fopen(argv[1], "w");
    if (!g_out) {
        perror(argv[1]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    bool ok = setup();
    std::string why = g_err;
    if (!only)
        nvrtc_section(); /* needs no GPU; first, so that its first call loads NVRTC */
    if (!ok) {
        snprintf(g_err, sizeof g_err, "%s", why.c_str());
        emit(Row("setup", "setup", "", "cuda").error());
        fclose(g_out);
        return 1;
    }
    printf("device: %s; NPP %s\n", g_device.c_str(), BENCH_NPP ? "built in" : "not built");
    copy_section("start");
    for (const Op& op : kOps)
        for (const Size& z : kSizes)
            if (!only || strstr((std::string(op.name) + " " + z.name).c_str(), only))
                run_case(op, z);
    if (!only || !strcmp(only, "host"))
        host_section();
    if (!only || !strcmp(only, "resize"))
        resize_section();
    if (!only || !strcmp(only, "preprocess"))
        prep_section();
    if (!only || !strcmp(only, "draw"))
        draw_section();
    if (!only || !strcmp(only, "yuv"))
        yuv_section();
    if (!only || !strcmp(only, "warp"))
        warp_section();
    if (!only || !strncmp(only, "transform", 9))
        sweep_section(only);
    if (!only)
        copy_section("end");
    fclose(g_out);
    return 0;
}
