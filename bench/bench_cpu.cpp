// SPDX-License-Identifier: MIT
// make bench-cpu: gpumat's CPU path against OpenCV (the same operations in
// this program, cv::setNumThreads matched) and a naive C loop, on host
// memory, with one thread and with every core. Each figure is the median
// of RUNS calls, each after an untimed one of its own, the three
// contenders timed in turns (record). Writes one JSON line per case to
// argv[1] and a table to stdout; argv[2], where given, keeps the cases
// whose op contains it ("warp").
#define GPUMAT_IMPLEMENTATION
#include <gpumat.h>

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

const int RUNS = 15;

void check(gm_status s, const char* what)
{
    if (s != GM_OK) {
        std::fprintf(stderr, "bench_cpu: %s: %s\n", what, gm_last_error());
        std::exit(1);
    }
}

// A batch of images as one OpenCV matrix per item and one gpumat view of
// them all: interleaved items are rows of one cv::Mat of n * h rows,
// planar items n * c planes of h rows.
struct Images {
    int n, w, h, c, depth;
    bool planar;
    cv::Mat all;               // every item, one after another
    std::vector<cv::Mat> item; // item i (interleaved) or plane i * c + k (planar)
    gm_mat m{};

    Images(int n_, int w_, int h_, int c_, int depth_, bool planar_, gm_dtype dt)
        : n(n_), w(w_), h(h_), c(c_), depth(depth_), planar(planar_)
    {
        all.create(n * h * (planar ? c : 1), w, CV_MAKETYPE(depth, planar ? 1 : c));
        cv::randu(all, 0, 256);
        for (int i = 0; i < n * (planar ? c : 1); ++i)
            item.push_back(all.rowRange(i * h, (i + 1) * h));
        gm_desc d{};
        d.width = w;
        d.height = h;
        d.dtype = dt;
        d.channels = c;
        d.layout = planar ? GM_CHW : GM_HWC;
        d.batch = n;
        check(gm_wrap_desc(&m, all.data, &d, GM_HOST), "gm_wrap_desc");
    }
    cv::Mat plane(int i, int k) const { return item[i * c + k]; }
};

const double MEAN[3] = {104.0, 117.0, 123.0};
const float SCALE = 1.0f / 255.0f;

struct Row {
    std::string op, size;
    int threads;
    double gpumat, opencv, naive;
};

std::vector<Row> rows;
const char* g_only; // record only the ops containing it (NULL: all)

// Times gpumat (g), OpenCV (o) and the naive loop (n) in turns, RUNS
// calls each, so that a change in the machine's load during a case falls
// on all three alike; records their medians. Each timed call follows an
// untimed one of the same contender: it starts from its own steady state,
// not from the caches the contender before it left (the naive loop's
// dirty destination lines slowed whoever came next at 1080p,
// bench/RESULTS.md).
void record(FILE* out, const std::string& op, const std::string& size, int threads, const std::function<void()>& g,
            const std::function<void()>& o, const std::function<void()>& n)
{
    const std::function<void()>* f[3] = {&g, &o, &n};
    std::vector<double> t[3];
    double ms[3];
    if (g_only && op.find(g_only) == std::string::npos)
        return;
    for (int r = 0; r < RUNS; ++r)
        for (int k = 0; k < 3; ++k) {
            (*f[k])();
            auto a = std::chrono::steady_clock::now();
            (*f[k])();
            t[k].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
        }
    for (int k = 0; k < 3; ++k) {
        std::sort(t[k].begin(), t[k].end());
        ms[k] = t[k][t[k].size() / 2];
    }
    rows.push_back({op, size, threads, ms[0], ms[1], ms[2]});
    std::printf("%-28s %-14s %2d  %9.3f %9.3f %9.3f  %5.2fx\n", op.c_str(), size.c_str(), threads, ms[0], ms[1], ms[2],
                ms[0] / ms[1]);
    std::fflush(stdout);
    std::fprintf(out,
                 "{\"suite\": \"cpu\", \"op\": \"%s\", \"size\": \"%s\", \"threads\": %d, \"gpumat_ms\": %.4f, "
                 "\"opencv_ms\": %.4f, \"naive_ms\": %.4f, \"runs\": %d}\n",
                 op.c_str(), size.c_str(), threads, ms[0], ms[1], ms[2], RUNS);
    std::fflush(out);
}

// The naive loops: what a user writes by hand, one thread.
void naive_blob(const Images& s, float* dst)
{
    for (int i = 0; i < s.n; ++i)
        for (int y = 0; y < s.h; ++y) {
            const unsigned char* p = s.item[i].ptr<unsigned char>(y);
            for (int x = 0; x < s.w; ++x)
                for (int k = 0; k < 3; ++k)
                    dst[(((size_t)i * 3 + k) * s.h + y) * s.w + x] = ((float)p[3 * x + 2 - k] - (float)MEAN[k]) * SCALE;
        }
}

void naive_resize(const Images& s, Images& d)
{
    const float sx = (float)s.w / d.w, sy = (float)s.h / d.h;
    for (int i = 0; i < s.n; ++i)
        for (int y = 0; y < d.h; ++y) {
            float fy = std::max((y + 0.5f) * sy - 0.5f, 0.0f);
            int y0 = std::min((int)fy, s.h - 1), y1 = std::min(y0 + 1, s.h - 1);
            const unsigned char *r0 = s.item[i].ptr<unsigned char>(y0), *r1 = s.item[i].ptr<unsigned char>(y1);
            unsigned char* o = d.item[i].ptr<unsigned char>(y);
            fy -= y0;
            for (int x = 0; x < d.w; ++x) {
                float fx = std::max((x + 0.5f) * sx - 0.5f, 0.0f);
                int x0 = std::min((int)fx, s.w - 1), x1 = std::min(x0 + 1, s.w - 1);
                fx -= x0;
                for (int k = 0; k < 3; ++k) {
                    float top = r0[3 * x0 + k] + (r0[3 * x1 + k] - r0[3 * x0 + k]) * fx;
                    float bottom = r1[3 * x0 + k] + (r1[3 * x1 + k] - r1[3 * x0 + k]) * fx;
                    o[3 * x + k] = (unsigned char)(top + (bottom - top) * fy + 0.5f);
                }
            }
        }
}

// n frames of `format`, each w x h in one compact buffer, one after another
// from data, as one batched gm_yuv.
gm_yuv yuv_frames(unsigned char* data, gm_yuv_format format, int n, int w, int h)
{
    gm_yuv f;
    check(gm_yuv_wrap(&f, format, data, w, h, 0, 0, GM_HOST), "gm_yuv_wrap");
    for (gm_mat* m : {&f.y, &f.u, &f.v})
        m->batch = n, m->batch_pitch = (int64_t)w * h * 3 / 2;
    return f;
}

// The pad and blob of a letterbox: images s placed at (left, top) of
// 640x640 RGB planes of dst, the rest 114, all scaled by SCALE.
void naive_letterbox_blob(const Images& s, int left, int top, float* dst)
{
    for (int i = 0; i < s.n; ++i)
        for (int k = 0; k < 3; ++k)
            for (int y = 0; y < 640; ++y)
                for (int x = 0; x < 640; ++x) {
                    const bool in = x >= left && x < left + s.w && y >= top && y < top + s.h;
                    const float v = in ? s.item[i].ptr<unsigned char>(y - top)[3 * (x - left) + 2 - k] : 114.0f;
                    dst[(((size_t)i * 3 + k) * 640 + y) * 640 + x] = v * SCALE;
                }
}

unsigned char sat_u8(int v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

void naive_nv12(const unsigned char* f, int w, int h, unsigned char* bgr)
{
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const unsigned char* uv = f + w * h + (y / 2) * w + (x / 2) * 2;
            int l = std::max(f[y * w + x] - 16, 0) * 1220542 + (1 << 19), u = uv[0] - 128, v = uv[1] - 128;
            unsigned char* d = bgr + ((size_t)y * w + x) * 3;
            d[0] = sat_u8((l + 2116026 * u) >> 20);
            d[1] = sat_u8((l - 852492 * v - 409993 * u) >> 20);
            d[2] = sat_u8((l + 1673527 * v) >> 20);
        }
}

void naive_i420(const unsigned char* bgr, int w, int h, unsigned char* f)
{
    unsigned char *u = f + w * h, *v = u + w / 2 * (h / 2);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const unsigned char* p = bgr + ((size_t)y * w + x) * 3;
            const int b = p[0], g = p[1], r = p[2];
            f[y * w + x] = sat_u8((269484 * r + 528482 * g + 102760 * b + (1 << 19) + (16 << 20)) >> 20);
            if (x % 2 == 0 && y % 2 == 0) {
                u[y / 2 * (w / 2) + x / 2] = sat_u8((-155188 * r - 305135 * g + 460324 * b + (1 << 19) + (128 << 20)) >> 20);
                v[y / 2 * (w / 2) + x / 2] = sat_u8((460324 * r - 385875 * g - 74448 * b + (1 << 19) + (128 << 20)) >> 20);
            }
        }
}

// A rotation by the destination -> source matrix M, bilinear in float with
// zero outside, rounded (not OpenCV's bits).
void naive_warp(const Images& s, Images& d, const double* M)
{
    for (int i = 0; i < s.n; ++i) {
        const cv::Mat& src = s.item[i];
        cv::Mat& dst = d.item[i];
        for (int y = 0; y < dst.rows; ++y)
            for (int x = 0; x < dst.cols; ++x) {
                const float fx = (float)(M[0] * x + M[1] * y + M[2]), fy = (float)(M[3] * x + M[4] * y + M[5]);
                const int x0 = (int)std::floor(fx), y0 = (int)std::floor(fy);
                const float ax = fx - x0, ay = fy - y0;
                for (int k = 0; k < 3; ++k) {
                    float v = 0;
                    for (int t = 0; t < 4; ++t) {
                        const int tx = x0 + (t & 1), ty = y0 + (t >> 1);
                        if (tx >= 0 && ty >= 0 && tx < src.cols && ty < src.rows)
                            v += (t & 1 ? ax : 1 - ax) * (t >> 1 ? ay : 1 - ay) * src.ptr<unsigned char>(ty)[tx * 3 + k];
                    }
                    dst.ptr<unsigned char>(y)[x * 3 + k] = (unsigned char)std::min(std::max(std::lrint(v), 0L), 255L);
                }
            }
    }
}

void cases(FILE* out, const std::string& size, int n, int w, int h, int threads)
{
    cv::setNumThreads(threads);
    check(gm_set_threads(threads), "gm_set_threads");
    Images bgr(n, w, h, 3, CV_8U, false, GM_U8), f32(n, w, h, 3, CV_32F, false, GM_F32),
        planes(n, w, h, 3, CV_32F, true, GM_F32);
    Images blob(n, w, h, 3, CV_32F, true, GM_F32), blob16(n, w, h, 3, CV_16F, true, GM_F16),
        f32out(n, w, h, 3, CV_32F, false, GM_F32), split(n, w, h, 3, CV_32F, true, GM_F32),
        merged(n, w, h, 3, CV_8U, false, GM_U8);
    std::vector<cv::Mat> cv_in(bgr.item.begin(), bgr.item.end());
    cv::Mat cv_blob, tmp;
    std::vector<cv::Mat> outs(3);
    const size_t px = (size_t)w * h;

    auto cv_blob_f32 = [&] {
        cv_blob = n == 1 ? cv::dnn::blobFromImage(bgr.item[0], SCALE, cv::Size(), cv::Scalar(MEAN[0], MEAN[1], MEAN[2]),
                                                  true, false, CV_32F)
                         : cv::dnn::blobFromImages(cv_in, SCALE, cv::Size(), cv::Scalar(MEAN[0], MEAN[1], MEAN[2]),
                                                   true, false, CV_32F);
    };
    record(out, "blob u8 -> f32 NCHW", size, threads,
           [&] { check(gm_blob_from_image(&bgr.m, &blob.m, SCALE, MEAN, NULL, 1, NULL), "blob"); },
           cv_blob_f32, [&] { naive_blob(bgr, (float*)blob.all.data); });

    record(out, "blob u8 -> f16 NCHW", size, threads,
           [&] { check(gm_blob_from_image(&bgr.m, &blob16.m, SCALE, MEAN, NULL, 1, NULL), "blob f16"); },
           [&] {
               cv_blob_f32();
               cv_blob.convertTo(tmp, CV_16F);
           },
           [&] {
               naive_blob(bgr, (float*)blob.all.data);
               blob.all.convertTo(blob16.all, CV_16F);
           });

    record(out, "convert u8 -> f32 x3", size, threads,
           [&] { check(gm_convert(&bgr.m, &f32out.m, 1.0, 0.0, NULL), "convert"); },
           [&] {
               for (int i = 0; i < n; ++i)
                   bgr.item[i].convertTo(f32out.item[i], CV_32F);
           },
           [&] {
               const unsigned char* s = bgr.all.data;
               float* d = (float*)f32out.all.data;
               for (size_t i = 0; i < (size_t)n * px * 3; ++i)
                   d[i] = (float)s[i];
           });

    record(out, "convert u8 -> f32 x3 /255", size, threads,
           [&] { check(gm_convert(&bgr.m, &f32out.m, SCALE, 0.0, NULL), "convert"); },
           [&] {
               for (int i = 0; i < n; ++i)
                   bgr.item[i].convertTo(f32out.item[i], CV_32F, SCALE);
           },
           [&] {
               const unsigned char* s = bgr.all.data;
               float* d = (float*)f32out.all.data;
               for (size_t i = 0; i < (size_t)n * px * 3; ++i)
                   d[i] = (float)s[i] * SCALE;
           });

    record(out, "split f32 x3", size, threads, [&] { check(gm_split(&f32.m, &split.m, NULL), "split"); },
           [&] {
               for (int i = 0; i < n; ++i) {
                   for (int k = 0; k < 3; ++k)
                       outs[k] = split.plane(i, k);
                   cv::split(f32.item[i], outs);
               }
           },
           [&] {
               const float* s = (const float*)f32.all.data;
               float* d = (float*)split.all.data;
               for (int i = 0; i < n; ++i)
                   for (size_t p = 0; p < px; ++p)
                       for (int k = 0; k < 3; ++k)
                           d[((size_t)i * 3 + k) * px + p] = s[((size_t)i * px + p) * 3 + k];
           });

    gm_xform swap = gm_xform_identity();
    swap.map[0] = 2, swap.map[2] = 0;
    record(out, "swap BGR -> RGB u8", size, threads,
           [&] { check(gm_transform(&bgr.m, &merged.m, &swap, NULL), "swap"); },
           [&] {
               for (int i = 0; i < n; ++i)
                   cv::cvtColor(bgr.item[i], merged.item[i], cv::COLOR_BGR2RGB);
           },
           [&] {
               const unsigned char* s = bgr.all.data;
               unsigned char* d = merged.all.data;
               for (size_t p = 0; p < (size_t)n * px; ++p)
                   for (int k = 0; k < 3; ++k)
                       d[p * 3 + k] = s[p * 3 + 2 - k];
           });

    // resize: LINEAR and LINEAR_EXACT to 2/3 of the size (no exact factor),
    // AREA to 1/2 (whole 2x2 cells) and to 5/16 (cells of 3.2 pixels); the
    // naive loop samples bilinearly in float
    const struct {
        const char* name;
        gm_interp interp;
        int cv_interp, num, den;
    } resizes[] = {{"resize u8 x3 LINEAR 2/3", GM_INTER_LINEAR, cv::INTER_LINEAR, 2, 3},
                   {"resize u8 x3 LINEAR_EXACT 2/3", GM_INTER_LINEAR_EXACT, cv::INTER_LINEAR_EXACT, 2, 3},
                   {"resize u8 x3 AREA 1/2", GM_INTER_AREA, cv::INTER_AREA, 1, 2},
                   {"resize u8 x3 AREA 5/16", GM_INTER_AREA, cv::INTER_AREA, 5, 16}};
    for (const auto& z : resizes) {
        Images small(n, w * z.num / z.den, h * z.num / z.den, 3, CV_8U, false, GM_U8);
        record(out, z.name, size, threads,
               [&] { check(gm_resize(&bgr.m, &small.m, z.interp, NULL), "resize"); },
               [&] {
                   for (int i = 0; i < n; ++i)
                       cv::resize(bgr.item[i], small.item[i], small.item[i].size(), 0, 0, z.cv_interp);
               },
               [&] { naive_resize(bgr, small); });
    }

    // the pre-process: resized (LINEAR) to 640x640 and made a blob in one
    // call; OpenCV's blobFromImage(s) with a size does the same, the naive
    // loop resizes then makes the blob
    {
        Images sized(n, 640, 640, 3, CV_8U, false, GM_U8), blob640(n, 640, 640, 3, CV_32F, true, GM_F32);
        gm_prep prep{};
        prep.swap_rb = 1;
        for (int k = 0; k < 3; ++k)
            prep.mean[k] = MEAN[2 - k], prep.scale[k] = SCALE;
        record(out, "blob u8 -> f32 640x640 resized", size, threads, [&] {
                   for (int i = 0; i < n; ++i) {
                       gm_mat one, item;
                       check(gm_item(&bgr.m, &one, i), "item");
                       check(gm_item(&blob640.m, &item, i), "item");
                       check(gm_preprocess(&one, NULL, &item, &prep, NULL, NULL), "preprocess");
                   }
               },
               [&] {
                   cv_blob = cv::dnn::blobFromImages(cv_in, SCALE, cv::Size(640, 640),
                                                     cv::Scalar(MEAN[0], MEAN[1], MEAN[2]), true, false, CV_32F);
               },
               [&] {
                   naive_resize(bgr, sized);
                   naive_blob(sized, (float*)blob640.all.data);
               });
    }

    // YUV 4:2:0: n NV12 frames (each a Mat of 3h/2 rows, as OpenCV takes
    // them) into BGR, and the BGR images into I420 frames; the naive loops
    // take OpenCV's BT.601 limited-range formulas pixel by pixel
    {
        cv::Mat nv12(n * h * 3 / 2, w, CV_8UC1), i420(n * h * 3 / 2, w, CV_8UC1);
        cv::randu(nv12, 0, 256);
        const gm_yuv from = yuv_frames(nv12.data, GM_YUV_NV12, n, w, h);
        gm_yuv to = yuv_frames(i420.data, GM_YUV_I420, n, w, h);
        const size_t frame = px * 3 / 2;
        record(out, "NV12 -> BGR u8", size, threads,
               [&] { check(gm_yuv_convert(&from, &merged.m, 0, NULL), "yuv convert"); },
               [&] {
                   for (int i = 0; i < n; ++i)
                       cv::cvtColor(nv12.rowRange(i * h * 3 / 2, (i + 1) * h * 3 / 2), merged.item[i],
                                    cv::COLOR_YUV2BGR_NV12);
               },
               [&] {
                   for (int i = 0; i < n; ++i)
                       naive_nv12(nv12.data + i * frame, w, h, merged.item[i].data);
               });
        record(out, "BGR u8 -> I420", size, threads,
               [&] { check(gm_yuv_from_image(&bgr.m, &to, 0, NULL), "yuv from image"); },
               [&] {
                   for (int i = 0; i < n; ++i)
                       cv::cvtColor(bgr.item[i], i420.rowRange(i * h * 3 / 2, (i + 1) * h * 3 / 2),
                                    cv::COLOR_BGR2YUV_I420);
               },
               [&] {
                   for (int i = 0; i < n; ++i)
                       naive_i420(bgr.item[i].data, w, h, i420.data + i * frame);
               });

        // the frames' pre-process: a YOLO letterbox into 640x640 f32 RGB
        // NCHW in one call; OpenCV converts, resizes, pads, then makes the
        // blob; the naive loops likewise
        Images letterboxed(n, 640, 640, 3, CV_32F, true, GM_F32);
        std::vector<gm_yuv> frames;
        for (int i = 0; i < n; ++i)
            frames.push_back(yuv_frames(nv12.data + i * frame, GM_YUV_NV12, 1, w, h));
        gm_prep yolo{};
        yolo.fit = GM_FIT_LETTERBOX;
        yolo.swap_rb = 1;
        for (int k = 0; k < 3; ++k)
            yolo.pad[k] = 114, yolo.scale[k] = SCALE;
        gm_prep_geometry g;
        gm_mat first;
        check(gm_item(&letterboxed.m, &first, 0), "item");
        check(gm_preprocess_yuv(&frames[0], NULL, &first, &yolo, &g, NULL), "preprocess yuv");
        Images sized(n, (int)g.width, (int)g.height, 3, CV_8U, false, GM_U8);
        std::vector<cv::Mat> padded(n);
        record(out, "NV12 -> f32 640x640 letterbox", size, threads,
               [&] {
                   check(gm_preprocess_yuv_batch(frames.data(), NULL, n, &letterboxed.m, &yolo, NULL, NULL),
                         "preprocess yuv");
               },
               [&] {
                   for (int i = 0; i < n; ++i) {
                       cv::cvtColor(nv12.rowRange(i * h * 3 / 2, (i + 1) * h * 3 / 2), merged.item[i],
                                    cv::COLOR_YUV2BGR_NV12);
                       cv::resize(merged.item[i], sized.item[i], sized.item[i].size(), 0, 0, cv::INTER_LINEAR);
                       cv::copyMakeBorder(sized.item[i], padded[i], (int)g.top, 640 - (int)(g.top + g.height),
                                          (int)g.left, 640 - (int)(g.left + g.width), cv::BORDER_CONSTANT,
                                          cv::Scalar::all(114));
                   }
                   cv_blob = cv::dnn::blobFromImages(padded, SCALE, cv::Size(), cv::Scalar(), true, false, CV_32F);
               },
               [&] {
                   for (int i = 0; i < n; ++i)
                       naive_nv12(nv12.data + i * frame, w, h, merged.item[i].data);
                   naive_resize(merged, sized);
                   naive_letterbox_blob(sized, (int)g.left, (int)g.top, (float*)letterboxed.all.data);
               });
    }

    // warps: each image turned by 10 degrees about its centre into one of
    // its size (the constant border of 0), bilinear and bicubic
    {
        Images turned(n, w, h, 3, CV_8U, false, GM_U8);
        double M[6], back[6];
        check(gm_rotation_matrix(w / 2.0f, h / 2.0f, 10, 1, M), "gm_rotation_matrix");
        check(gm_invert_affine(M, back), "gm_invert_affine");
        const cv::Mat m(2, 3, CV_64F, M);
        for (gm_interp interp : {GM_INTER_LINEAR, GM_INTER_CUBIC}) {
            gm_warp_params p{};
            p.interp = interp;
            record(out, interp == GM_INTER_LINEAR ? "warp_affine u8 x3 LINEAR" : "warp_affine u8 x3 CUBIC", size,
                   threads, [&] { check(gm_warp_affine(&bgr.m, &turned.m, M, &p, NULL), "warp_affine"); },
                   [&] {
                       for (int i = 0; i < n; ++i)
                           cv::warpAffine(bgr.item[i], turned.item[i], m, turned.item[i].size(),
                                          interp == GM_INTER_LINEAR ? cv::INTER_LINEAR : cv::INTER_CUBIC);
                   },
                   [&] { naive_warp(bgr, turned, back); });
        }
    }

    gm_xform id = gm_xform_identity();
    record(out, "merge f32 planar -> u8", size, threads,
           [&] { check(gm_transform(&planes.m, &merged.m, &id, NULL), "merge"); },
           [&] {
               for (int i = 0; i < n; ++i) {
                   std::vector<cv::Mat> in = {planes.plane(i, 0), planes.plane(i, 1), planes.plane(i, 2)};
                   cv::merge(in, tmp);
                   tmp.convertTo(merged.item[i], CV_8U);
               }
           },
           [&] {
               const float* s = (const float*)planes.all.data;
               unsigned char* d = merged.all.data;
               for (int i = 0; i < n; ++i)
                   for (size_t p = 0; p < px; ++p)
                       for (int k = 0; k < 3; ++k) {
                           float v = std::nearbyint(s[((size_t)i * 3 + k) * px + p]);
                           d[((size_t)i * px + p) * 3 + k] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
                       }
           });
}

} // namespace

int main(int argc, char** argv)
{
    FILE* out = std::fopen(argc > 1 ? argv[1] : "bench_cpu_rows.jsonl", "w");
    g_only = argc > 2 ? argv[2] : NULL;
    int cores = (int)std::thread::hardware_concurrency();
    struct {
        const char* name;
        int n, w, h;
    } sizes[] = {{"320x240", 1, 320, 240}, {"1920x1080", 1, 1920, 1080}, {"3840x2160", 1, 3840, 2160},
                 {"32x640x640", 32, 640, 640}};
    if (!out) {
        std::perror("bench_cpu: the output file");
        return 1;
    }
    std::printf("gpumat %s CPU path, OpenCV %s, %d cores; median of %d, ms\n", gm_version(), CV_VERSION, cores, RUNS);
    std::printf("%-28s %-14s %2s  %9s %9s %9s  %6s\n", "op", "size", "th", "gpumat", "opencv", "naive", "g/cv");
    for (auto& s : sizes)
        for (int t : {1, cores})
            cases(out, s.name, s.n, s.w, s.h, t);
    std::fclose(out);
    return 0;
}
