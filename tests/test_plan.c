/* The planner, without a GPU: every operation (transform, convert, split,
 * merge, blob, split_planes, merge_planes, resize, warp) on every dtype pair, channel
 * count and layout pair, on device descriptors (never dereferenced) that are
 * aligned with padded rows, aligned and dense, or misaligned, asks the
 * planner which kernel each of its ops would launch. That kernel must be in
 * gm_kernels_for's list for the operation's dtypes and channels written;
 * every kernel of every list must be picked by some such operation; and
 * every kernel of the catalogue by some operation (no kernel exists that
 * nothing runs). Run alone: make build/test_plan && build/test_plan */
#define GPUMAT_IMPLEMENTATION
#include "gpumat.h"
#include "check.h"

enum { PADDED, DENSE, MISALIGNED, SHAPES };

/* For each (src, dst, channels): which positions of its list were picked. */
static unsigned long long reached_in_list[GM_DTYPE_COUNT][GM_DTYPE_COUNT][4];
static unsigned char reached[GM__KERNEL_COUNT];

/* A device image at base, never touched: rows padded to 256 bytes, dense,
 * or misaligned by one element with an odd pitch. */
static gm_mat fake_sized(gm_dtype dt, int cn, gm_layout lay, int batch, int shape, uintptr_t base, int64_t width,
                         int64_t height)
{
    gm_mat m;
    int64_t es = (int64_t)gm_dtype_size(dt), row;
    memset(&m, 0, sizeof m);
    m.dtype = dt;
    m.channels = cn;
    m.layout = lay;
    m.width = width;
    m.height = height;
    m.batch = batch;
    m.where = GM_DEVICE;
    row = m.width * es * (lay == GM_HWC ? cn : 1);
    m.pitch = shape == PADDED ? (row + 255) / 256 * 256 : shape == DENSE ? row : row + es;
    m.plane_pitch = lay == GM_CHW ? m.pitch * m.height : 0;
    m.batch_pitch = m.pitch * m.height * (lay == GM_CHW ? cn : 1);
    m.data = (void*)(base + (shape == MISALIGNED ? (uintptr_t)es : 0));
    return m;
}

static gm_mat fake(gm_dtype dt, int cn, gm_layout lay, int batch, int shape, uintptr_t base)
{
    return fake_sized(dt, cn, lay, batch, shape, base, 67, 5);
}

/* Plans every op of d (described by an operation from src to dst writing
 * channels) and checks each kernel against gm_kernels_for. */
static void check_ops(const char* what, gm_status described, const gm__ops* d, gm_dtype src, gm_dtype dst, int channels)
{
    int list[64], n = gm_kernels_for(src, dst, channels, list, 64), i, k;
    CHECK(described == GM_OK && d->n > 0, "%s: not described: %s", what, gm_last_error());
    for (i = 0; described == GM_OK && i < d->n; ++i) {
        gm__plan p;
        gm__plan_op(&d->op[i], &p);
        reached[p.kernel] = 1;
        for (k = 0; k < n && list[k] != p.kernel; ++k)
            ;
        CHECK(k < n, "%s: op %d runs %s, which gm_kernels_for(%s, %s, %d) does not list", what, i,
              gm__kernels[p.kernel].name, gm_dtype_name(src), gm_dtype_name(dst), channels);
        if (k < n)
            reached_in_list[src][dst][channels - 1] |= 1ull << k;
    }
}

#define SRC_BASE ((uintptr_t)1 << 32)
#define DST_BASE ((uintptr_t)2 << 32)
#define PLANE_BASE(c) (((uintptr_t)3 << 32) + ((uintptr_t)(c) << 28))

/* The xforms transform is tried with: identity, channels scaled alike
 * but differently from one another, reversed, a constant last channel, and
 * every channel a constant (the fill kernel). */
static gm_xform xform_variant(int v, int src_channels, int dst_channels)
{
    gm_xform x = gm_xform_identity();
    int c;
    for (c = 0; c < dst_channels; ++c) {
        x.map[c] = v == 2 ? (src_channels - 1 - c % src_channels) : c % src_channels;
        if (v == 1)
            x.scale[c] = 2.0 + c;
    }
    if (v == 3)
        x.map[dst_channels - 1] = GM_CONST;
    for (c = 0; v == 4 && c < dst_channels; ++c)
        x.map[c] = GM_CONST;
    return x;
}

static void transforms(void)
{
    int S, D, cs, cd, ls, ld, shape, v, batch;
    char what[160];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (D = 0; D < GM_DTYPE_COUNT; ++D)
            for (cs = 1; cs <= 4; ++cs)
                for (cd = 1; cd <= 4; ++cd)
                    for (ls = 0; ls < 2; ++ls)
                        for (ld = 0; ld < 2; ++ld)
                            for (shape = 0; shape < SHAPES; ++shape)
                                for (v = 0; v < 5; ++v) {
                                    gm__ops d;
                                    gm_xform x = xform_variant(v, cs, cd);
                                    gm_mat src, dst;
                                    batch = 1 + (S + D + v) % 2;
                                    src = fake((gm_dtype)S, cs, (gm_layout)ls, batch, shape, SRC_BASE);
                                    dst = fake((gm_dtype)D, cd, (gm_layout)ld, batch, shape, DST_BASE);
                                    d.n = 0;
                                    snprintf(what, sizeof what, "transform %s x%d %d -> %s x%d %d, shape %d, xform %d",
                                             gm_dtype_name((gm_dtype)S), cs, ls, gm_dtype_name((gm_dtype)D), cd, ld,
                                             shape, v);
                                    check_ops(what, gm__transform_ops(&src, &dst, &x, &d), &d, (gm_dtype)S,
                                              (gm_dtype)D, cd);
                                }
}

static void converts_and_relayouts(void)
{
    int S, D, c, lay, shape, scaled;
    char what[160];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (c = 1; c <= 4; ++c)
            for (shape = 0; shape < SHAPES; ++shape) {
                for (D = 0; D < GM_DTYPE_COUNT; ++D)
                    for (lay = 0; lay < 2; ++lay)
                        for (scaled = 0; scaled < 2; ++scaled) {
                            gm__ops d;
                            gm_mat src = fake((gm_dtype)S, c, (gm_layout)lay, 2, shape, SRC_BASE);
                            gm_mat dst = fake((gm_dtype)D, c, (gm_layout)lay, 2, shape, DST_BASE);
                            d.n = 0;
                            snprintf(what, sizeof what, "convert %s -> %s x%d layout %d shape %d%s",
                                     gm_dtype_name((gm_dtype)S), gm_dtype_name((gm_dtype)D), c, lay, shape,
                                     scaled ? " scaled" : "");
                            check_ops(what, gm__convert_ops(NULL, &src, &dst, scaled ? 0.5 : 1.0, 0.0, &d), &d,
                                      (gm_dtype)S, (gm_dtype)D, c);
                        }
                for (lay = 0; lay < 2; ++lay) {
                    gm__ops d;
                    gm_mat src = fake((gm_dtype)S, c, (gm_layout)lay, 1, shape, SRC_BASE);
                    gm_mat dst = fake((gm_dtype)S, c, (gm_layout)!lay, 1, shape, DST_BASE);
                    d.n = 0;
                    snprintf(what, sizeof what, "%s %s x%d shape %d", lay == GM_HWC ? "split" : "merge",
                             gm_dtype_name((gm_dtype)S), c, shape);
                    check_ops(what, gm__relayout_ops(NULL, &src, &dst, (gm_layout)lay, &d), &d, (gm_dtype)S,
                              (gm_dtype)S, c);
                }
            }
}

static void blobs(void)
{
    static const int channels[] = {1, 3, 4};
    static const double mean[4] = {1, 2, 3, 4}, std[4] = {2, 3, 4, 5};
    int S, D, i, lay, shape, swap;
    char what[160];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (D = 0; D < GM_DTYPE_COUNT; ++D)
            for (i = 0; i < 3; ++i)
                for (lay = 0; lay < 2; ++lay)
                    for (shape = 0; shape < SHAPES; ++shape)
                        for (swap = 0; swap < (channels[i] > 1 ? 2 : 1); ++swap) {
                            gm__ops d;
                            gm_mat src = fake((gm_dtype)S, channels[i], GM_HWC, 1, shape, SRC_BASE);
                            gm_mat dst = fake((gm_dtype)D, channels[i], (gm_layout)lay, 1, shape, DST_BASE);
                            d.n = 0;
                            snprintf(what, sizeof what, "blob %s x%d -> %s %s shape %d swap %d",
                                     gm_dtype_name((gm_dtype)S), channels[i], gm_dtype_name((gm_dtype)D),
                                     lay ? "NCHW" : "NHWC", shape, swap);
                            check_ops(what,
                                      gm__blob_ops(NULL, &src, &dst, 1 / 255.0, swap ? mean : NULL, std, swap, &d),
                                      &d, (gm_dtype)S, (gm_dtype)D, channels[i]);
                        }
}

/* Separate planes with one pitch (one op), or another pitch for plane 1
 * (one op a plane). */
static void planes(void)
{
    int S, c, k, lay, shape, same;
    char what[160];
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (c = 1; c <= 4; ++c)
            for (lay = 0; lay < 2; ++lay)
                for (shape = 0; shape < SHAPES; ++shape)
                    for (same = 0; same < 2; ++same) {
                        gm__ops d;
                        gm_mat m = fake((gm_dtype)S, c, (gm_layout)lay, 1, shape, SRC_BASE), p[4];
                        for (k = 0; k < c; ++k) {
                            p[k] = fake((gm_dtype)S, 1, GM_HWC, 1, shape, PLANE_BASE(k));
                            if (!same && k == 1)
                                p[k].pitch += 256;
                        }
                        d.n = 0;
                        snprintf(what, sizeof what, "split_planes %s x%d layout %d shape %d%s",
                                 gm_dtype_name((gm_dtype)S), c, lay, shape, same ? "" : ", plane 1 wider");
                        check_ops(what, gm__split_planes_ops(&m, p, &d), &d, (gm_dtype)S, (gm_dtype)S, c);
                        d.n = 0;
                        m.data = (void*)((uintptr_t)m.data - SRC_BASE + DST_BASE);
                        snprintf(what, sizeof what, "merge_planes %s x%d layout %d shape %d%s",
                                 gm_dtype_name((gm_dtype)S), c, lay, shape, same ? "" : ", plane 1 wider");
                        check_ops(what, gm__merge_planes_ops(p, c, &m, &d), &d, (gm_dtype)S, (gm_dtype)S, c);
                    }
}

/* gm_resize at sizes that reach each sampler (cv::resize's reroutes): an
 * exact 2x downscale, 3x by 2x, a non-integer downscale, an upscale, equal
 * sizes (a copy), an exact 2x upscale, and the explicit-scale form, each
 * interpolation, in every layout pair (the exact 2x of interleaved u8: the
 * whole-2x kernels). */
static void resizes(void)
{
    static const int64_t sizes[][4] = {{64, 40, 32, 20}, {66, 40, 22, 20}, {67, 5, 30, 3},
                                       {20, 10, 45, 23}, {67, 5, 67, 5},   {64, 40, 33, 21}, {32, 10, 64, 20}};
    static const gm_interp interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_AREA, GM_INTER_LINEAR_EXACT};
    int T, c, ls, ld, z, i, scaled;
    char what[160];
    for (T = 0; T < GM_DTYPE_COUNT; ++T)
        for (c = 1; c <= 4; ++c)
            for (ls = 0; ls < 2; ++ls)
                for (ld = 0; ld < 2; ++ld)
                    for (z = 0; z < (int)(sizeof sizes / sizeof sizes[0]); ++z)
                        for (i = 0; i < 4; ++i)
                            for (scaled = 0; scaled < 2; ++scaled) {
                                gm__ops d;
                                const int64_t* sz = sizes[z];
                                gm_mat src = fake_sized((gm_dtype)T, c, (gm_layout)ls, 2, PADDED, SRC_BASE, sz[0], sz[1]);
                                gm_mat dst = fake_sized((gm_dtype)T, c, (gm_layout)ld, 2, DENSE, DST_BASE, sz[2], sz[3]);
                                /* a scale whose product rounds to the same size */
                                double fx = scaled ? ((double)sz[2] + 0.25) / (double)sz[0] : 0.0;
                                double fy = scaled ? ((double)sz[3] + 0.25) / (double)sz[1] : 0.0;
                                gm_status s;
                                d.n = 0;
                                snprintf(what, sizeof what, "resize %s x%d %d -> %d, %lldx%lld -> %lldx%lld, interp %d%s",
                                         gm_dtype_name((gm_dtype)T), c, ls, ld, (long long)sz[0], (long long)sz[1],
                                         (long long)sz[2], (long long)sz[3], (int)interps[i], scaled ? ", scaled" : "");
                                s = gm__resize_ops(what, &src, &dst, interps[i], fx, fy, &d);
                                check_ops(what, s, &d, (gm_dtype)T, (gm_dtype)T, c);
                            }
}

/* The kernels (rows[sampler]) a described pre-process runs, one per sampler
 * its kinds name, as reached: each must exist and gm_kernels_for(S, D, C)
 * must list it, or not where listed is 0 (the product in double, whose rows
 * it leaves out: gpumat/jit.h). */
static void reach_prep(const char* what, unsigned kinds, const short* rows, gm_dtype S, gm_dtype D, int C, int listed)
{
    int list[64], n = gm_kernels_for(S, D, C, list, 64), I, k, kernel;
    for (I = 0; I < GM__SAMPLER_COUNT; ++I) {
        if (!(kinds >> 2 * I & 3))
            continue;
        kernel = rows[I];
        CHECK(kernel >= 0, "%s resizes by sampler %d, which has no kernel", what, I);
        if (kernel < 0)
            continue;
        reached[kernel] = 1;
        for (k = 0; k < n && list[k] != kernel; ++k)
            ;
        CHECK((k < n) == listed, "%s runs %s, which gm_kernels_for %s", what, gm__kernels[kernel].name,
              listed ? "does not list" : "lists");
        if (k < n)
            reached_in_list[S][D][C - 1] |= 1ull << k;
    }
}

/* The interpolations preps and prep_frames plan by (a frame's, the first
 * four: LINEAR again at half the size), each of a letterbox's resize, and
 * each of a warp placement (warp, by warp_matrices). */
static const int resize_interps[] = {GM_PREP_LINEAR, GM_PREP_NEAREST, GM_PREP_AREA, GM_PREP_LINEAR_EXACT,
                                     GM_PREP_AREA};
static const int frame_interps[] = {GM_PREP_LINEAR, GM_PREP_NEAREST, GM_PREP_LINEAR_EXACT, GM_PREP_LINEAR};
static const int warp_interps[] = {GM_INTER_LINEAR, GM_INTER_NEAREST, GM_INTER_CUBIC, GM_INTER_AREA, GM_INTER_LINEAR};
static const double warp_matrices[18] = {1.5, 0.25, 3, -0.25, 1.5, 2, 1, 0, 0, 0, 1, 0, 0.5, 0, 1, 0, 0.5, 1};

/* gm_preprocess of each source dtype and channel count it takes into each
 * destination dtype, one item and a batch, by each interpolation (AREA also
 * by a whole factor), the product in float and (into f32 and f16) in
 * double: every sampler's kernel; letterboxed, or (warp) by the warp
 * placement. */
static void preps(int warp)
{
    static const gm_dtype srcs[] = {GM_U8, GM_U16, GM_F32}, dsts[] = {GM_U8, GM_F16, GM_BF16, GM_F32};
    static const int channels[] = {1, 3, 4};
    const int* interps = warp ? warp_interps : resize_interps;
    int s, d, c, batch, i, arith;
    char what[160];
    for (arith = 0; arith < 2; ++arith)
    for (s = 0; s < 3; ++s)
        for (d = 0; d < 4; ++d)
            for (c = 0; c < 3; ++c)
                for (batch = 1; batch <= 3 && (!arith || dsts[d] == GM_F32 || dsts[d] == GM_F16); batch += 2)
                    for (i = 0; i < 5; ++i) {
                        int side = i == 4 ? 128 : 67; /* 128 -> 64: area by a whole factor */
                        gm_mat src[3], dst = fake_sized(dsts[d], 3, GM_CHW, batch, DENSE, DST_BASE, 64, 64);
                        gm_prep pp;
                        gm__plan plan;
                        gm__prep_place places[3];
                        unsigned kinds;
                        gm_status st;
                        memset(&pp, 0, sizeof pp);
                        pp.fit = warp ? GM_FIT_WARP : GM_FIT_LETTERBOX;
                        pp.warp = warp ? warp_matrices : NULL;
                        pp.interp = (gm_prep_interp)interps[i];
                        pp.arith = arith ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
                        src[0] = src[1] = src[2] =
                            fake_sized(srcs[s], channels[c], GM_HWC, 1, PADDED, SRC_BASE, side, i == 4 ? 128 : 40);
                        snprintf(what, sizeof what, "preprocess %s x%d -> %s, %d items, interp %d, arith %d, fit %d",
                                 gm_dtype_name(srcs[s]), channels[c], gm_dtype_name(dsts[d]), batch, interps[i], arith,
                                 (int)pp.fit);
                        st = gm__check_prep(what, src, NULL, NULL, batch, &dst, &pp);
                        if (st == GM_OK)
                            st = gm__prep_plan(what, src, NULL, NULL, batch, &dst, &pp, &plan, places, &kinds);
                        CHECK(st == GM_OK, "%s: not described: %s", what, gm_last_error());
                        if (st != GM_OK)
                            continue;
                        reach_prep(what, kinds,
                                   (warp    ? gm__prep_warp_row
                                    : arith ? gm__prep_double_row
                                            : gm__prep_row)[srcs[s]][dsts[d]][channels[c] - 1],
                                   srcs[s], dsts[d], channels[c], warp || !arith);
                    }
}

/* gm_preprocess_yuv of an NV12 frame into each destination dtype, one
 * item and a batch, by each interpolation a frame takes (LINEAR also at
 * half the size, which OpenCV takes as the 2x2 mean), the product in
 * float and (into f32 and f16) in double: every sampler's kernel;
 * letterboxed, or (warp) by the warp placement's NEAREST and LINEAR. */
static void prep_frames(int warp)
{
    static const gm_dtype dsts[] = {GM_U8, GM_F16, GM_BF16, GM_F32};
    const int* interps = warp ? warp_interps : frame_interps;
    int d, batch, i, arith;
    char what[160];
    for (arith = 0; arith < 2; ++arith)
    for (d = 0; d < 4; ++d)
        for (batch = 1; batch <= 3 && (!arith || dsts[d] == GM_F32 || dsts[d] == GM_F16); batch += 2)
            for (i = 0; i < (warp ? 2 : 4); ++i) {
                int side = i == 3 ? 128 : 68; /* 128 -> 64: half */
                gm_mat dst = fake_sized(dsts[d], 3, GM_CHW, batch, DENSE, DST_BASE, 64, 64);
                gm_yuv frames[3];
                gm_prep pp;
                gm__plan plan;
                gm__prep_place places[3];
                unsigned kinds;
                gm_status st;
                memset(&pp, 0, sizeof pp);
                memset(frames, 0, sizeof frames);
                pp.fit = warp ? GM_FIT_WARP : GM_FIT_LETTERBOX;
                pp.warp = warp ? warp_matrices : NULL;
                pp.interp = (gm_prep_interp)interps[i];
                pp.arith = arith ? GM_BLOB_DOUBLE : GM_BLOB_FLOAT;
                frames[0].y = fake_sized(GM_U8, 1, GM_HWC, 1, PADDED, SRC_BASE, side, i == 3 ? 128 : 40);
                frames[0].u = fake_sized(GM_U8, 2, GM_HWC, 1, PADDED, SRC_BASE + (1u << 20), side / 2,
                                         frames[0].y.height / 2);
                frames[1] = frames[2] = frames[0];
                snprintf(what, sizeof what, "preprocess NV12 -> %s, %d items, interp %d, arith %d, fit %d",
                         gm_dtype_name(dsts[d]), batch, interps[i], arith, (int)pp.fit);
                st = gm__check_prep(what, NULL, frames, NULL, batch, &dst, &pp);
                if (st == GM_OK)
                    st = gm__prep_plan(what, NULL, frames, NULL, batch, &dst, &pp, &plan, places, &kinds);
                CHECK(st == GM_OK, "%s: not described: %s", what, gm_last_error());
                if (st != GM_OK)
                    continue;
                reach_prep(what, kinds,
                           (warp ? gm__prep_yuv_warp_row : arith ? gm__prep_yuv_double_row : gm__prep_yuv_row)[dsts[d]],
                           GM_U8, dsts[d], 3, warp || !arith);
            }
}

/* gm_fill of every dtype, channel count and layout: the fill kernel on
 * the device, whatever the alignment. */
static void fills(void)
{
    static const double value[4] = {1, 2, 3, 4};
    int T, c, lay, shape;
    char what[160];
    for (T = 0; T < GM_DTYPE_COUNT; ++T)
        for (c = 1; c <= 4; ++c)
            for (lay = 0; lay < 2; ++lay)
                for (shape = 0; shape < SHAPES; ++shape) {
                    gm__ops d;
                    gm__plan p;
                    gm_mat m = fake((gm_dtype)T, c, (gm_layout)lay, 2, shape, DST_BASE);
                    d.n = 0;
                    snprintf(what, sizeof what, "fill %s x%d layout %d shape %d", gm_dtype_name((gm_dtype)T), c, lay,
                             shape);
                    check_ops(what, gm__fill_ops(&m, value, &d), &d, (gm_dtype)T, (gm_dtype)T, c);
                    if (d.n == 1)
                        gm__plan_op(&d.op[0], &p);
                    CHECK(d.n == 1 && p.kernel == GM__FILL_ROW, "%s: not one launch of the fill kernel", what);
                }
}

/* The warps' row for each dtype, channel count, interpolation (AREA
 * takes LINEAR's, as in OpenCV) and mode (OpenCV 5's float rows for u8,
 * u16, f32, f16 and bf16 of 1, 3 or 4 channels, the 4.x rows elsewhere;
 * it has no CUBIC): a warp row of those fields, which gm_kernels_for
 * lists for the dtype and channels. */
static void warps(void)
{
    static const gm_interp interps[] = {GM_INTER_NEAREST, GM_INTER_LINEAR, GM_INTER_AREA, GM_INTER_CUBIC};
    static const int samplers[2][4] = {
        {GM__SAMPLER_NEAREST, GM__SAMPLER_LINEAR, GM__SAMPLER_LINEAR, GM__SAMPLER_CUBIC},
        {GM__SAMPLER_FLOAT_NEAREST, GM__SAMPLER_FLOAT_LINEAR, GM__SAMPLER_FLOAT_LINEAR, -1}};
    int T, c, i, k, n, mode, list[64];
    for (T = 0; T < GM_DTYPE_COUNT; ++T)
        for (c = 1; c <= 4; ++c)
            for (i = 0; i < 8; ++i) {
                const gm_mat dst = fake((gm_dtype)T, c, (gm_layout)(i & 1), 2, DENSE, DST_BASE);
                const int floating = c != 2 && (T == GM_U8 || T == GM_U16 || T == GM_F32 || T == GM_F16 ||
                                                T == GM_BF16);
                gm_warp_params wp;
                int row, want;
                const gm__kernel_row* r;
                memset(&wp, 0, sizeof wp);
                mode = i / 4, wp.interp = interps[i % 4], wp.mode = (gm_warp_mode)mode;
                if (mode && wp.interp == GM_INTER_CUBIC)
                    continue;
                row = gm__warp_kernel(&dst, &wp);
                r = &gm__kernels[row < 0 ? 0 : row];
                want = samplers[mode && floating][i % 4];
                CHECK(row >= 0 && r->family == GM__FAMILY_WARP && r->src == T && r->channels == c &&
                          r->sampler == want, "warp %s x%d interp %d mode %d: row %d", gm_dtype_name((gm_dtype)T), c,
                      (int)wp.interp, mode, row);
                if (row < 0)
                    continue;
                reached[row] = 1;
                n = gm_kernels_for((gm_dtype)T, (gm_dtype)T, c, list, 64);
                for (k = 0; k < n && list[k] != row; ++k)
                    ;
                CHECK(k < n, "gm_kernels_for(%s, %s, %d) lacks %s", gm_dtype_name((gm_dtype)T),
                      gm_dtype_name((gm_dtype)T), c, r->name);
                if (k < n)
                    reached_in_list[T][T][c - 1] |= 1ull << k;
            }
}

/* gm_overlay_draw, gm_add_weighted, gm_yuv_convert and gm_yuv_from_image
 * launch their kernels without a plan (test_gpu checks that they run):
 * gm_kernels_for must list each for the images of dtype dst it writes or
 * reads from frames of src samples (u8 for the overlay and the blend), of
 * the channel counts in `channels` (bit c - 1 for c channels: x3 and x4
 * frames for the overlay, any for the blend, gray, BGR and BGRA for the
 * conversion, BGR and BGRA for its reverse), and only there. */
static void unplanned(int row, const char* what, gm_dtype src, gm_dtype dst, unsigned channels)
{
    int list[64], n, k, c;
    for (c = 1; c <= 4; ++c) {
        n = gm_kernels_for(src, dst, c, list, 64);
        for (k = 0; k < n && list[k] != row; ++k)
            ;
        CHECK((k < n) == (int)(channels >> (c - 1) & 1), "gm_kernels_for(%s, %s, %d) %s the %s kernel",
              gm_dtype_name(src), gm_dtype_name(dst), c, k < n ? "lists" : "lacks", what);
        if (k < n) {
            reached[row] = 1;
            reached_in_list[src][dst][c - 1] |= 1ull << k;
        }
    }
}

int main(void)
{
    int S, D, c, k, n, list[64], unreached = 0;
    transforms();
    converts_and_relayouts();
    blobs();
    planes();
    resizes();
    preps(0);
    preps(1);
    prep_frames(0);
    prep_frames(1);
    fills();
    warps();
    unplanned(GM__OVERLAY_ROW, "overlay", GM_U8, GM_U8, 0xc);
    unplanned(GM__BLEND_ROW, "blend", GM_U8, GM_U8, 0xf);
    unplanned(GM__YUV_ROW, "YUV conversion", GM_U8, GM_U8, 0xd);
    unplanned(GM__YUV_FROM_ROW, "reverse YUV conversion", GM_U8, GM_U8, 0xc);
    for (D = 0; D < GM_DTYPE_COUNT; ++D)
        if (gm__yuv16_row[D] >= 0)
            unplanned(gm__yuv16_row[D], "P016 conversion", GM_U16, (gm_dtype)D, 0xd);
    for (S = 0; S < GM_DTYPE_COUNT; ++S)
        for (D = 0; D < GM_DTYPE_COUNT; ++D)
            for (c = 1; c <= 4; ++c) {
                n = gm_kernels_for((gm_dtype)S, (gm_dtype)D, c, list, 64);
                for (k = 0; k < n; ++k)
                    CHECK(reached_in_list[S][D][c - 1] >> k & 1,
                          "gm_kernels_for(%s, %s, %d) lists %s, which none of those operations ran",
                          gm_dtype_name((gm_dtype)S), gm_dtype_name((gm_dtype)D), c, gm__kernels[list[k]].name);
            }
    for (k = 0; k < gm_kernel_count(); ++k)
        unreached += !reached[k];
    CHECK(unreached == 0, "%d of %d kernels in the catalogue ran for no operation", unreached, gm_kernel_count());
    return t_summary("plan");
}
