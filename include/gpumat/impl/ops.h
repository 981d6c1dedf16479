/* SPDX-License-Identifier: MIT */
/* Implementation: the operations. Each one checks its arguments, describes
 * itself as a gm__xform_args (per-channel addresses, strides, map, scale) and
 * runs one specialization of the transform, on the GPU or the CPU. */

#include <float.h>

GM_API gm_xform gm_xform_identity(void)
{
    gm_xform x;
    int c;
    for (c = 0; c < 4; ++c) {
        x.map[c] = c;
        x.pre[c] = 0.0;
        x.scale[c] = 1.0;
        x.offset[c] = 0.0;
    }
    return x;
}

static const char* gm__layout_name(const gm_mat* m)
{
    return m->channels == 1 ? "1-channel" : m->layout == GM_HWC ? "interleaved (HWC)" : "planar (CHW)";
}

/* The name messages give the operation: the typed function the user called,
 * else the untyped one. */
static const char* gm__fn(const gm__typed* t, const char* untyped) { return t ? t->fn : untyped; }

/* "f32 x3 HWC"; "f32 x1" where the layout means nothing (one channel). */
static const char* gm__type_text(char* buf, size_t size, gm_dtype dtype, int channels, gm_layout layout)
{
    snprintf(buf, size, "%s x%d%s", gm_dtype_name(dtype), channels,
             channels == 1 ? "" : layout == GM_HWC ? " HWC" : " CHW");
    return buf;
}

/* A typed function's promise about one of its views (a C99 caller, or a
 * function pointer, can hand over a view holding something else). */
static gm_status gm__check_view(const char* fn, const char* name, const gm_mat* m, const gm__view_type* v)
{
    char held[32], is[32];
    if (m->dtype == v->dtype && m->channels == v->channels && (m->channels == 1 || m->layout == v->layout))
        return GM_OK;
    return gm__fail(GM_ERR_TYPE, "%s: %s holds %s; a %s is %s", fn, name,
                    gm__type_text(held, sizeof held, m->dtype, m->channels, m->layout), v->name,
                    gm__type_text(is, sizeof is, v->dtype, v->channels, v->layout));
}

/* What every operation needs of a source and a destination (and, from a
 * typed function t, that they are what its view types say); src_name and
 * dst_name are what messages call them. */
static gm_status gm__check_two(const char* fn, const gm__typed* t, const char* src_name, const gm_mat* src,
                               const char* dst_name, const gm_mat* dst)
{
    gm_status s;
    if ((s = gm__check(fn, src_name, src)) != GM_OK || (s = gm__check(fn, dst_name, dst)) != GM_OK)
        return s;
    if (t && ((s = gm__check_view(fn, src_name, src, &t->src)) != GM_OK ||
              (s = gm__check_view(fn, dst_name, dst, &t->dst)) != GM_OK))
        return s;
    if (src->width != dst->width || src->height != dst->height || src->batch != dst->batch)
        return gm__fail(GM_ERR_SIZE, "%s: %s is %lldx%lld, batch %d, but %s is %lldx%lld, batch %d", fn, src_name,
                        (long long)src->width, (long long)src->height, (int)src->batch, dst_name,
                        (long long)dst->width, (long long)dst->height, (int)dst->batch);
    if (gm__on_host(src) != gm__on_host(dst))
        return gm__fail(GM_ERR_LOCATION, "%s: %s is %s memory but %s is %s memory (gm_copy moves between them)", fn,
                        src_name, gm__on_host(src) ? "host" : "device", dst_name,
                        gm__on_host(dst) ? "host" : "device");
    if (!gm__on_host(src) && src->device != dst->device)
        return gm__fail(GM_ERR_LOCATION, "%s: %s is on device %d, %s on device %d", fn, src_name, (int)src->device,
                        dst_name, (int)dst->device);
    if (gm__overlap(src, dst))
        return gm__fail(GM_ERR_OVERLAP, "%s: %s and %s overlap", fn, src_name, dst_name);
    return GM_OK;
}

static gm_status gm__check_pair(const char* fn, const gm__typed* t, const gm_mat* src, const char* dst_name,
                                const gm_mat* dst)
{
    return gm__check_two(fn, t, "src", src, dst_name, dst);
}

/* Address of channel c at pixel (0,0) of image 0. */
static unsigned long long gm__channel_addr(const gm_mat* m, int c)
{
    int64_t off = m->layout == GM_CHW ? c * m->plane_pitch : c * (int64_t)gm_dtype_size(m->dtype);
    return (unsigned long long)(uintptr_t)((const char*)m->data + off);
}

/* Launch arguments for src -> dst through x; dst_planes (count dst->channels
 * 1-channel images sharing dst's pitches) replaces dst's own channel addresses. */
static gm__xform_args gm__args(const gm_mat* src, const gm_mat* dst, const gm_mat* dst_planes, const gm_xform* x)
{
    gm__xform_args a;
    int c;
    memset(&a, 0, sizeof a);
    for (c = 0; c < src->channels; ++c)
        a.src[c] = gm__channel_addr(src, c);
    for (c = 0; c < dst->channels; ++c) {
        a.map[c] = x->map[c] == GM_CONST ? -1 : x->map[c];
        a.dst[c] = dst_planes ? (unsigned long long)(uintptr_t)dst_planes[c].data : gm__channel_addr(dst, c);
        a.pre[c] = x->pre[c];
        a.scale[c] = x->scale[c];
        a.offset[c] = x->offset[c];
    }
    a.kind = GM__ANY;
    for (c = 0; c < dst->channels; ++c) {
        int plain = gm__is_plain(a.map[c] < 0, a.pre[c], a.scale[c], a.offset[c]);
        int k = plain ? GM__PLAIN : a.map[c] < 0 ? GM__ANY : GM__SCALED;
        a.kind = c == 0 || k == a.kind ? k : GM__ANY;
    }
    a.width = src->width;
    a.height = src->height;
    a.batch = src->batch;
    a.src_pitch = src->pitch;
    a.src_xstride = gm__xstride(src);
    a.src_bstride = src->batch_pitch;
    a.dst_pitch = dst->pitch;
    a.dst_xstride = gm__xstride(dst);
    a.dst_bstride = dst->batch_pitch;
    return a;
}

/* For tests: which kernels ran, and how many fast launches took half blocks. */
static long gm__fast_launches, gm__generic_launches, gm__half_block_launches;

/* The widest of 16, 8, 4, 2, 1 bytes dividing k: the unit the fast kernel
 * moves a run of k bytes in. */
static long long gm__unit_bytes(long long k)
{
    long long u = 16;
    while (k % u)
        u /= 2;
    return u;
}

/* Whether every start the fast kernel loads or stores from is aligned to its
 * unit: one interleaved run of p * channels elements, or one run of p per
 * plane, at each row and image. */
static int gm__aligned(const unsigned long long* base, int channels, gm_layout layout, long long pitch,
                       long long bstride, int batch, long long es, int p)
{
    long long u = gm__unit_bytes(p * es * (layout == GM_HWC ? channels : 1));
    int c, planes = layout == GM_HWC ? 1 : channels;
    if (pitch % u || (batch > 1 && bstride % u))
        return 0;
    for (c = 0; c < planes; ++c)
        if (base[c] % (unsigned long long)u)
            return 0;
    return 1;
}

/* Rewrites a so its map is the identity, where that is free: a planar
 * source reads channel map[c] through plane address src[map[c]]; a planar
 * destination of a permutation writes source channel k to the plane (and
 * with the parameters) of the channel that reads it. 0 where it cannot. */
static int gm__fold_map(gm__xform_args* a, int channels, gm_layout ls, gm_layout ld)
{
    gm__xform_args t = *a;
    int c, identity = 1, seen = 0;
    for (c = 0; c < channels; ++c) {
        identity &= a->map[c] == c;
        seen |= 1 << a->map[c];
    }
    if (identity)
        return 1;
    if (ls == GM_CHW || channels == 1) {
        for (c = 0; c < channels; ++c)
            t.src[c] = a->src[a->map[c]];
    } else if (ld == GM_CHW && seen == (1 << channels) - 1) {
        for (c = 0; c < channels; ++c) {
            int k = a->map[c];
            t.dst[k] = a->dst[c];
            t.pre[k] = a->pre[c];
            t.scale[k] = a->scale[c];
            t.offset[k] = a->offset[c];
        }
    } else {
        return 0;
    }
    for (c = 0; c < channels; ++c)
        t.map[c] = c;
    *a = t;
    return 1;
}

/* Whether every channel reads its own source channel with the same
 * parameters, so interleaved pixels are just a longer row of one channel. */
static int gm__uniform(const gm__xform_args* a, int channels)
{
    int c;
    for (c = 0; c < channels; ++c)
        if (a->map[c] != c || a->pre[c] != a->pre[0] || a->scale[c] != a->scale[0] || a->offset[c] != a->offset[0])
            return 0;
    return 1;
}

/* Whether every channel's parameters are finite, also once rounded to float
 * (at most FLT_MAX): the fast kernel counts on it (an integer source then
 * gives no NaN); the generic kernel takes the rest. */
static int gm__finite_params(const gm__xform_args* a, int channels)
{
    int c;
    for (c = 0; c < channels; ++c)
        if (!(fabs(a->pre[c]) <= FLT_MAX && fabs(a->scale[c]) <= FLT_MAX && fabs(a->offset[c]) <= FLT_MAX))
            return 0;
    return 1;
}

/* Rows that follow each other without padding, in source and destination,
 * as one long row (images too, where they follow each other likewise), so
 * that the fast kernel's warps are full everywhere but at the very end. The
 * joined pitch is a multiple of the old one, so an aligned pitch stays
 * aligned (an unaligned one may keep the fast kernel off needlessly). */
static void gm__join_rows(gm__xform_args* a)
{
    if (a->height < 2 || a->src_pitch != a->width * a->src_xstride || a->dst_pitch != a->width * a->dst_xstride)
        return;
    if (a->batch > 1 && a->src_bstride == a->height * a->src_pitch && a->dst_bstride == a->height * a->dst_pitch) {
        a->height *= a->batch;
        a->batch = 1;
    }
    a->width *= a->height;
    a->height = 1;
    a->src_pitch = a->width * a->src_xstride;
    a->dst_pitch = a->width * a->dst_xstride;
}

/* The fast kernel for a (C channels in and out, no constants, finite
 * parameters), rewriting a for it: channels alike and interleaved on both
 * sides become one channel C times as wide, a channel map folds into plane
 * addresses, rows without padding join into one, and every run the kernel
 * moves must be aligned to its unit. -1, a untouched, where it cannot. */
static int gm__fast(gm__xform_args* a, int S, int D, int channels, gm_layout ls, gm_layout ld)
{
    gm__xform_args t = *a;
    int fast, p;
    if (!gm__finite_params(&t, channels))
        return -1;
    if (channels > 1 && ls == GM_HWC && ld == GM_HWC && gm__uniform(&t, channels)) {
        t.width *= channels;
        t.src_xstride /= channels;
        t.dst_xstride /= channels;
        channels = 1;
    }
    if (channels == 1)
        ls = ld = GM_HWC;
    if (!gm__fold_map(&t, channels, ls, ld))
        return -1;
    gm__join_rows(&t);
    fast = GM__FAST_SPEC(S, D, channels, ls, ld);
    p = gm__fast_pr[fast - GM__GENERIC_COUNT][0];
    if (!gm__aligned(t.src, channels, ls, t.src_pitch, t.src_bstride, (int)t.batch, gm__dtype_sizes[S], p) ||
        !gm__aligned(t.dst, channels, ld, t.dst_pitch, t.dst_bstride, (int)t.batch, gm__dtype_sizes[D], p))
        return -1;
    *a = t;
    return fast;
}

/* A launch's grid and block. */
typedef struct gm__geometry {
    unsigned grid[3], block[2];
} gm__geometry;

/* The fast kernel (p pixels a unit, r units a lane; p 0 for the generic
 * kernel): 1-D blocks, one warp task a warp (xform_fast.cu), a huge image
 * looping. Blocks of GM__BLOCK_WARPS warps, or half that where the tasks
 * outnumber the kernel's wave (the warps the device holds at once in full
 * blocks, gm__kernel): the blocks of the last wave then finish closer
 * together, so less of the kernel's end runs below the copy rate. On the
 * H200 that took split f32 at 4K from 95.7% of copy to 96.2-96.4, blob f32
 * at 32x640x640 from 90.7 to 92.5-93.0 and convert u8 -> f32 at 1080p from
 * 71.8 to 78.5; a grid within one wave keeps full blocks, as half blocks cost
 * the one-channel 1-byte copies at 4K (0.96 waves) 2.7-4.7 points. The
 * generic kernel: blocks of 32 pixels by GM__BLOCK_WARPS rows. */
static gm__geometry gm__geometry_for(const gm__xform_args* a, int p, int r, int wave)
{
    gm__geometry g;
    if (p) {
        long long tasks = a->batch * a->height * gm__tasks_per_row(a->width, p, r);
        int warps = wave > 0 && tasks > wave ? GM__BLOCK_WARPS / 2 : GM__BLOCK_WARPS;
        long long blocks = (tasks + warps - 1) / warps;
        g.grid[0] = (unsigned)(blocks < 1 << 30 ? blocks : 1 << 30);
        g.grid[1] = g.grid[2] = 1;
        g.block[0] = 32 * warps, g.block[1] = 1;
    } else {
        long long rows = (a->height + GM__BLOCK_WARPS - 1) / GM__BLOCK_WARPS;
        g.block[0] = 32, g.block[1] = GM__BLOCK_WARPS;
        g.grid[0] = (unsigned)((a->width + 31) / 32);
        g.grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
        g.grid[2] = (unsigned)(a->batch < 65535 ? a->batch : 65535);
    }
    return g;
}

/* Launches f on stream, overlapping the kernel before it (programmatic
 * stream serialization, loader.h) where f waits for it (gm__kernel's waits)
 * and the driver has cuLaunchKernelEx. The driver's code; *api names the
 * call made. */
static int gm__launch(gm__CUfunction f, const gm__geometry* g, int waits, gm_stream stream, void** params,
                      const char** api)
{
    gm__launch_attr pdl;
    gm__launch_config cfg;
    if (!waits || !gm__cu.cuLaunchKernelEx) {
        *api = "cuLaunchKernel";
        return gm__cu.cuLaunchKernel(f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], 1, 0, stream,
                                     params, NULL);
    }
    memset(&pdl, 0, sizeof pdl);
    pdl.id = GM__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    pdl.v.value = 1;
    memcpy(cfg.grid, g->grid, sizeof cfg.grid);
    cfg.block[0] = g->block[0], cfg.block[1] = g->block[1], cfg.block[2] = 1;
    cfg.shared = 0;
    cfg.stream = stream;
    cfg.attrs = &pdl;
    cfg.nattrs = 1;
    *api = "cuLaunchKernelEx";
    return gm__cu.cuLaunchKernelEx(&cfg, f, params, NULL);
}

/* Runs a over the CPU for host memory; on the GPU, the fast kernel when the
 * channel count is kept, the channels are all plain or all scaled (no
 * constants, finite parameters) and the memory is aligned for it, else the
 * generic kernel (spec), queued on stream in the current context. ls, ld, cs: the
 * source and destination layouts and the source channel count (0 keeps the
 * fast kernel off, for arguments with rewritten strides). */
static gm_status gm__run(const char* fn, int spec, gm_layout ls, gm_layout ld, int cs, int on_host, int device,
                         gm__xform_args* a, gm_stream stream)
{
    gm__CUfunction f = 0;
    void* params[1];
    int cd = spec % 4 + 1, S = spec / 4 / GM_DTYPE_COUNT, D = spec / 4 % GM_DTYPE_COUNT, run = spec, p = 0, r = 1, rc;
    int fast, waits = 0, wave = 0;
    gm__geometry g;
    const char* api;
    gm_status s;
    if (on_host) {
        gm__cpu_fns[spec / 4](a, cd);
        return GM_OK;
    }
    if (cs == cd && a->kind != GM__ANY && (fast = gm__fast(a, S, D, cd, ls, ld)) >= 0) {
        run = fast;
        p = gm__fast_pr[fast - GM__GENERIC_COUNT][0];
        r = gm__fast_pr[fast - GM__GENERIC_COUNT][1];
    }
    if ((s = gm__kernel(fn, run, device, &f, &waits, &wave)) != GM_OK)
        return s;
    params[0] = a;
    g = gm__geometry_for(a, p, r, wave);
    if ((rc = gm__launch(f, &g, waits, stream, params, &api)) != 0)
        return gm__cuda_fail(fn, api, rc);
    __atomic_add_fetch(run == spec ? &gm__generic_launches : &gm__fast_launches, 1, __ATOMIC_RELAXED);
    if (p && g.block[0] < 32 * GM__BLOCK_WARPS)
        __atomic_add_fetch(&gm__half_block_launches, 1, __ATOMIC_RELAXED);
    return GM_OK;
}

/* Runs xform from src to dst once the pair has passed gm__check_pair (the
 * callers that check more than the pair do it once, not twice). */
static gm_status gm__launch_xform(const char* fn, const gm__typed* t, const gm_mat* src, gm_mat* dst,
                                  const gm_xform* xform, gm_stream stream)
{
    gm__xform_args a;
    int c, spec;
    if (!xform)
        return gm__fail(GM_ERR_ARG, "%s: xform is NULL", fn);
    for (c = 0; c < dst->channels; ++c)
        if (xform->map[c] != GM_CONST && (xform->map[c] < 0 || xform->map[c] >= src->channels))
            return gm__fail(GM_ERR_ARG, "%s: xform->map[%d] = %d is not a channel of src (0..%d) or GM_CONST", fn, c,
                            xform->map[c], (int)src->channels - 1);
    /* A typed function names its kernel slot at compile time; a views.h
     * generated from another model than kernels.h (headers vendored from two
     * versions) would name another kernel, which must not run. */
    spec = GM__SPEC(src->dtype, dst->dtype, dst->channels);
    if (t && t->spec != spec)
        return gm__fail(GM_ERR_TYPE, "%s: kernel slot %d is not %s -> %s x%d (%d): gpumat/gen/views.h and "
                        "gpumat/gen/kernels.h come from different generator runs", fn, t->spec,
                        gm_dtype_name(src->dtype), gm_dtype_name(dst->dtype), (int)dst->channels, spec);
    a = gm__args(src, dst, NULL, xform);
    return gm__run(fn, spec, src->layout, dst->layout, (int)src->channels, gm__on_host(src), (int)src->device, &a,
                   stream);
}


GM_API gm_status gm_transform(const gm_mat* src, gm_mat* dst, const gm_xform* xform, gm_stream stream)
{
    gm_status s = gm__check_pair("gm_transform", NULL, src, "dst", dst);
    return s != GM_OK ? s : gm__launch_xform("gm_transform", NULL, src, dst, xform, stream);
}

static gm_status gm__same_shape(const char* fn, const gm_mat* src, const gm_mat* dst, int same_dtype)
{
    if (src->channels != dst->channels)
        return gm__fail(GM_ERR_TYPE, "%s: src has %d channels, dst %d", fn, (int)src->channels, (int)dst->channels);
    if (same_dtype && src->dtype != dst->dtype)
        return gm__fail(GM_ERR_TYPE, "%s: src is %s, dst is %s", fn, gm_dtype_name(src->dtype),
                        gm_dtype_name(dst->dtype));
    return GM_OK;
}

GM_API gm_status gm__convert(const gm__typed* t, const gm_mat* src, gm_mat* dst, double alpha, double beta,
                             gm_stream stream)
{
    const char* fn = gm__fn(t, "gm_convert");
    gm_xform x = gm_xform_identity();
    int c;
    gm_status s;
    if ((s = gm__check_pair(fn, t, src, "dst", dst)) != GM_OK || (s = gm__same_shape(fn, src, dst, 0)) != GM_OK)
        return s;
    if (src->layout != dst->layout && src->channels > 1)
        return gm__fail(GM_ERR_TYPE, "%s: src is %s, dst %s (gm_split / gm_merge change layout)", fn,
                        gm__layout_name(src), gm__layout_name(dst));
    for (c = 0; c < 4; ++c) {
        x.scale[c] = alpha;
        x.offset[c] = beta;
    }
    return gm__launch_xform(fn, t, src, dst, &x, stream);
}

GM_API gm_status gm_convert(const gm_mat* src, gm_mat* dst, double alpha, double beta, gm_stream stream)
{
    return gm__convert(NULL, src, dst, alpha, beta, stream);
}

/* split and merge: the same-dtype transform from layout `from` to the other. */
static gm_status gm__relayout(const char* fn, const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_layout from,
                              gm_stream stream)
{
    gm_xform x = gm_xform_identity();
    gm_status s;
    if ((s = gm__check_pair(fn, t, src, "dst", dst)) != GM_OK || (s = gm__same_shape(fn, src, dst, 1)) != GM_OK)
        return s;
    if (src->channels > 1 && src->layout != from)
        return gm__fail(GM_ERR_TYPE, "%s: src is %s; %s expected", fn, gm__layout_name(src),
                        from == GM_HWC ? "interleaved (HWC)" : "planar (CHW)");
    if (src->channels > 1 && dst->layout == from)
        return gm__fail(GM_ERR_TYPE, "%s: dst is %s; %s expected", fn, gm__layout_name(dst),
                        from == GM_HWC ? "planar (CHW)" : "interleaved (HWC)");
    return gm__launch_xform(fn, t, src, dst, &x, stream);
}

GM_API gm_status gm__split(const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_stream stream)
{
    return gm__relayout(gm__fn(t, "gm_split"), t, src, dst, GM_HWC, stream);
}

GM_API gm_status gm__merge(const gm__typed* t, const gm_mat* src, gm_mat* dst, gm_stream stream)
{
    return gm__relayout(gm__fn(t, "gm_merge"), t, src, dst, GM_CHW, stream);
}

GM_API gm_status gm_split(const gm_mat* src, gm_mat* dst, gm_stream stream) { return gm__split(NULL, src, dst, stream); }

GM_API gm_status gm_merge(const gm_mat* src, gm_mat* dst, gm_stream stream) { return gm__merge(NULL, src, dst, stream); }

/* Checks count separate 1-channel images against the multi-channel one (src
 * when the planes are the destination, else dst). */
static gm_status gm__check_planes(const char* fn, const gm_mat* planes, int count, const gm_mat* m, int planes_are_dst)
{
    const char* m_name = planes_are_dst ? "src" : "dst";
    char name[32];
    int c, d;
    gm_status s;
    if (!planes)
        return gm__fail(GM_ERR_ARG, "%s: planes is NULL", fn);
    if (count != m->channels)
        return gm__fail(GM_ERR_ARG, "%s: count %d does not match %s->channels %d", fn, count, m_name,
                        (int)m->channels);
    for (c = 0; c < count; ++c) {
        snprintf(name, sizeof name, "planes[%d]", c);
        s = planes_are_dst ? gm__check_pair(fn, NULL, m, name, &planes[c])
                           : gm__check_two(fn, NULL, name, &planes[c], m_name, m);
        if (s != GM_OK)
            return s;
        if (planes[c].channels != 1 || planes[c].dtype != m->dtype)
            return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d; %s x1 expected (%s is %s)", fn, name,
                            gm_dtype_name(planes[c].dtype), (int)planes[c].channels, gm_dtype_name(m->dtype), m_name,
                            gm_dtype_name(m->dtype));
    }
    if (planes_are_dst) /* output planes must not overlap each other either: every pair */
        for (c = 0; c < count; ++c)
            for (d = c + 1; d < count; ++d)
                if (gm__overlap(&planes[c], &planes[d]))
                    return gm__fail(GM_ERR_OVERLAP, "%s: planes[%d] and planes[%d] overlap", fn, c, d);
    return GM_OK;
}

static int gm__same_pitches(const gm_mat* planes, int count)
{
    int c;
    for (c = 1; c < count; ++c)
        if (planes[c].pitch != planes[0].pitch || planes[c].batch_pitch != planes[0].batch_pitch)
            return 0;
    return 1;
}

GM_API gm_status gm_split_planes(const gm_mat* src, gm_mat* planes, gm_stream stream)
{
    static const char fn[] = "gm_split_planes";
    gm_xform x = gm_xform_identity();
    gm__xform_args a;
    int c, spec;
    gm_status s;
    if ((s = gm__check(fn, "src", src)) != GM_OK || (s = gm__check_planes(fn, planes, src->channels, src, 1)) != GM_OK)
        return s;
    if (gm__same_pitches(planes, src->channels)) {
        gm_mat dst = planes[0];
        dst.channels = src->channels;
        dst.layout = GM_CHW;
        spec = GM__SPEC(src->dtype, src->dtype, src->channels);
        a = gm__args(src, &dst, planes, &x);
        return gm__run(fn, spec, src->layout, GM_CHW, (int)src->channels, gm__on_host(src), (int)src->device, &a,
                       stream);
    }
    for (c = 0; c < src->channels; ++c) {
        x.map[0] = c;
        if ((s = gm__launch_xform(fn, NULL, src, &planes[c], &x, stream)) != GM_OK)
            return s;
    }
    return GM_OK;
}

GM_API gm_status gm_merge_planes(const gm_mat* planes, int count, gm_mat* dst, gm_stream stream)
{
    static const char fn[] = "gm_merge_planes";
    gm_xform x = gm_xform_identity();
    gm__xform_args a;
    gm_mat src;
    int c, spec;
    gm_status s;
    if ((s = gm__check(fn, "dst", dst)) != GM_OK || (s = gm__check_planes(fn, planes, count, dst, 0)) != GM_OK)
        return s;
    if (!gm__same_pitches(planes, count)) {
        for (c = 0; c < count; ++c) {
            gm_mat one;
            gm_xform pick = gm_xform_identity();
            /* write only channel c: a 1-channel view of dst's channel c */
            one = *dst;
            one.data = (void*)(uintptr_t)gm__channel_addr(dst, c); /* interleaved or planar dst */
            one.channels = 1;
            one.layout = GM_HWC;
            a = gm__args(&planes[c], &one, NULL, &pick);
            a.dst_xstride = gm__xstride(dst);
            if ((s = gm__run(fn, GM__SPEC(dst->dtype, dst->dtype, 1), GM_HWC, GM_HWC, 0, gm__on_host(dst),
                             (int)dst->device, &a, stream)) != GM_OK)
                return s;
        }
        return GM_OK;
    }
    src = planes[0];
    src.channels = count;
    src.layout = GM_CHW;
    a = gm__args(&src, dst, NULL, &x);
    for (c = 0; c < count; ++c)
        a.src[c] = (unsigned long long)(uintptr_t)planes[c].data;
    a.src_xstride = (long long)gm_dtype_size(dst->dtype);
    spec = GM__SPEC(dst->dtype, dst->dtype, count);
    return gm__run(fn, spec, GM_CHW, dst->layout, count, gm__on_host(dst), (int)dst->device, &a, stream);
}

/* Every check of one blob_from_image(src -> dst), src named src_name in
 * messages, and the transform it is: *x. Writes nothing else. */
static gm_status gm__blob_xform(const char* fn, const gm__typed* t, const char* src_name, const gm_mat* src,
                                const gm_mat* dst, double scalefactor, const double* mean, const double* std,
                                int swap_rb, gm_xform* x)
{
    int c;
    gm_status s;
    *x = gm_xform_identity();
    if ((s = gm__check_two(fn, t, src_name, src, "dst", dst)) != GM_OK)
        return s;
    if (src->channels != dst->channels)
        return gm__fail(GM_ERR_TYPE, "%s: %s has %d channels, dst %d", fn, src_name, (int)src->channels,
                        (int)dst->channels);
    if (src->layout != GM_HWC && src->channels > 1)
        return gm__fail(GM_ERR_TYPE, "%s: %s is planar; an interleaved image expected", fn, src_name);
    if (src->channels == 2)
        return gm__fail(GM_ERR_TYPE, "%s: %s has 2 channels; 1, 3 or 4 expected", fn, src_name);
    if (swap_rb && src->channels < 3)
        return gm__fail(GM_ERR_ARG, "%s: swap_rb needs 3 or 4 channels, %s has %d", fn, src_name,
                        (int)src->channels);
    /* mean and std hold dst->channels (== src->channels) values: no more are read */
    for (c = 0; c < src->channels; ++c) {
        if (std && (std[c] == 0.0 || !isfinite(std[c]))) /* NaN and infinities too */
            return gm__fail(GM_ERR_ARG, "%s: std[%d] is %g; must be finite and non-zero", fn, c, std[c]);
        x->map[c] = swap_rb && (c == 0 || c == 2) ? 2 - c : c;
        x->pre[c] = mean ? -mean[c] : 0.0;
        x->scale[c] = std ? scalefactor / std[c] : scalefactor;
    }
    return GM_OK;
}

GM_API gm_status gm__blob(const gm__typed* t, const gm_mat* src, gm_mat* dst, double scalefactor, const double* mean,
                          const double* std, int swap_rb, gm_stream stream)
{
    const char* fn = gm__fn(t, "gm_blob_from_image");
    gm_xform x;
    gm_status s = gm__blob_xform(fn, t, "src", src, dst, scalefactor, mean, std, swap_rb, &x);
    if (s != GM_OK)
        return s;
    return gm__launch_xform(fn, t, src, dst, &x, stream);
}

GM_API gm_status gm_blob_from_image(const gm_mat* src, gm_mat* dst, double scalefactor, const double* mean,
                                    const double* std, int swap_rb, gm_stream stream)
{
    return gm__blob(NULL, src, dst, scalefactor, mean, std, swap_rb, stream);
}

GM_API gm_status gm_blob_from_images(const gm_mat* images, int count, gm_mat* dst, double scalefactor,
                                     const double* mean, const double* std, int swap_rb, gm_stream stream)
{
    static const char fn[] = "gm_blob_from_images";
    char name[32];
    gm_xform x;
    gm_mat item;
    int i;
    gm_status s;
    if (!images)
        return gm__fail(GM_ERR_ARG, "%s: images is NULL", fn);
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (count < 1 || count != dst->batch)
        return gm__fail(GM_ERR_ARG, "%s: count %d does not match dst->batch %d", fn, count, (int)dst->batch);
    /* every image checked before the first write: a bad images[count - 1]
     * leaves dst untouched */
    for (i = 0; i < count; ++i) {
        snprintf(name, sizeof name, "images[%d]", i);
        if (images[i].batch != 1)
            return gm__fail(GM_ERR_ARG, "%s: %s is a batch of %d; single images expected", fn, name,
                            (int)images[i].batch);
        if (i > 0 && (images[i].width != images[0].width || images[i].height != images[0].height ||
                      images[i].dtype != images[0].dtype || images[i].channels != images[0].channels)) {
            char is[32], first[32];
            return gm__fail(images[i].width != images[0].width || images[i].height != images[0].height ? GM_ERR_SIZE
                                                                                                        : GM_ERR_TYPE,
                            "%s: %s is %lldx%lld %s but images[0] is %lldx%lld %s", fn, name,
                            (long long)images[i].width, (long long)images[i].height,
                            gm__type_text(is, sizeof is, images[i].dtype, images[i].channels, images[i].layout),
                            (long long)images[0].width, (long long)images[0].height,
                            gm__type_text(first, sizeof first, images[0].dtype, images[0].channels, images[0].layout));
        }
        if ((s = gm_item(dst, &item, i)) != GM_OK ||
            (s = gm__blob_xform(fn, NULL, name, &images[i], &item, scalefactor, mean, std, swap_rb, &x)) != GM_OK)
            return s;
        /* read while other items are written: no byte of dst at all */
        if (gm__overlap(&images[i], dst))
            return gm__fail(GM_ERR_OVERLAP, "%s: %s and dst overlap", fn, name);
    }
    for (i = 0; i < count; ++i)
        if ((s = gm_item(dst, &item, i)) != GM_OK ||
            (s = gm__launch_xform(fn, NULL, &images[i], &item, &x, stream)) != GM_OK)
            return s;
    return GM_OK;
}
