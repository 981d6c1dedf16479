/* SPDX-License-Identifier: MIT */
/* Implementation: the launch planner. An operation describes itself as one or
 * more gm__op (which channels of which pixels go where, through which
 * per-channel arithmetic); gm__plan_op picks the catalogue's kernel for it
 * and rewrites its arguments for that kernel; run.h runs the plan. Planning
 * touches neither memory nor GPU, so tests ask it what would run. */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* One side of an operation: the image as the kernels address it
 * (templates/pixel.inc), its dtype and channels. */
typedef struct gm__side {
    gm__view view;
    gm_dtype dtype;
    int channels;
} gm__side;

/* What an operation does, over width x height pixels of batch items:
 * destination channel c = saturate((source channel xform.map[c] + pre[c]) *
 * scale[c] + offset[c]), or saturate(offset[c]) where map[c] is GM_CONST;
 * or, with a resize, destination pixel (x, y) = the source resampled there
 * (same dtype and channels). */
typedef struct gm__op {
    const char* fn; /* the function the user called, for messages */
    gm__side src, dst;
    long long width, height, batch;
    gm_xform xform;
    gm__resize_map resize; /* sampler -1: no resize, the pixels map one to one */
    int on_host; /* both sides in host memory: the CPU path */
    int device;  /* otherwise the device both sides are on */
} gm__op;

/* What runs: a kernel of the catalogue and its arguments (as its family
 * takes them), on the GPU or (on the CPU path) its family's CPU loop
 * (run.h). many: a pre-process's arguments for the kernel's _many entry
 * point, which then runs instead of args (prep.h). */
typedef struct gm__plan {
    const char* fn;
    int kernel; /* index into gm__kernels */
    union {
        gm__xform_args xform;
        gm__resize_args resize;
        gm__prep_args prep;
        gm__fill_args fill;
        gm__yuv_args yuv;
        gm__blend_args blend;
        gm__overlay_args overlay;
        gm__warp_args warp;
    } args;
    const gm__prep_many* many;
    int on_host, device;
    int src_channels; /* a transform's source channels as args.xform has them */
    const void* host; /* what the CPU loop takes besides args (the overlay's sprites, cpu_draw.h) */
} gm__plan;

/* A plan of kernel row `kernel` for function fn, on the memory of checked m
 * (host: the CPU path), its arguments left to the caller. */
static void gm__plan_of(gm__plan* p, const char* fn, int kernel, const gm_mat* m)
{
    memset(p, 0, sizeof *p);
    p->fn = fn;
    p->kernel = kernel;
    p->on_host = gm__on_host(m);
    p->device = (int)m->device;
}

/* Address of channel c at pixel (0,0) of item 0. */
static unsigned long long gm__channel_addr(const gm_mat* m, int c)
{
    int64_t off = m->layout == GM_CHW ? c * m->plane_pitch : c * (int64_t)gm_dtype_size(m->dtype);
    return (unsigned long long)(uintptr_t)((const char*)m->data + off);
}

/* The whole of checked m. */
static gm__side gm__side_of(const gm_mat* m)
{
    gm__side s;
    int c;
    memset(&s, 0, sizeof s);
    for (c = 0; c < m->channels; ++c)
        s.view.chan[c] = gm__channel_addr(m, c);
    s.view.pitch = m->pitch;
    s.view.xstride = gm__xstride(m);
    s.view.bstride = m->batch_pitch;
    s.dtype = m->dtype;
    s.channels = m->channels;
    return s;
}

/* count separate 1-channel images with planes[0]'s pitches, as the planes of
 * one image. */
static gm__side gm__side_of_planes(const gm_mat* planes, int count)
{
    gm__side s = gm__side_of(&planes[0]);
    int c;
    for (c = 0; c < count; ++c)
        s.view.chan[c] = (unsigned long long)(uintptr_t)planes[c].data;
    s.channels = count;
    return s;
}

/* Channel c of checked m alone. */
static gm__side gm__side_of_channel(const gm_mat* m, int c)
{
    gm__side s = gm__side_of(m);
    s.view.chan[0] = s.view.chan[c];
    memset(s.view.chan + 1, 0, sizeof s.view.chan - sizeof s.view.chan[0]);
    s.channels = 1;
    return s;
}

/* src to dst through x over the pixels of shape (checked, where the
 * operation's memory is). */
static gm__op gm__op_of(const char* fn, const gm__side* src, const gm__side* dst, const gm_mat* shape,
                        const gm_xform* x)
{
    gm__op op;
    op.fn = fn;
    op.src = *src;
    op.dst = *dst;
    op.width = shape->width;
    op.height = shape->height;
    op.batch = shape->batch;
    op.xform = *x;
    op.resize.sampler = -1;
    op.on_host = shape->where != GM_DEVICE;
    op.device = (int)shape->device;
    return op;
}

/* The layout a side's addresses make: GM_HWC where a pixel's channels are
 * adjacent elements (one channel: adjacent pixels), GM_CHW where each
 * channel's pixels are, -1 where neither (one channel of an interleaved
 * image, taken alone), which only the generic kernel reads or writes. */
static int gm__side_layout(const gm__side* s)
{
    long long es = gm__dtype_sizes[s->dtype];
    const gm__view* v = &s->view;
    int c, adjacent = v->xstride == es * s->channels;
    for (c = 1; adjacent && c < s->channels; ++c)
        adjacent = v->chan[c] == v->chan[0] + (unsigned long long)(c * es);
    return adjacent ? GM_HWC : s->channels > 1 && v->xstride == es ? GM_CHW : -1;
}

/* The generic kernel's arguments for op. */
static gm__xform_args gm__args(const gm__op* op)
{
    const gm_xform* x = &op->xform;
    gm__xform_args a;
    int c;
    memset(&a, 0, sizeof a);
    a.src = op->src.view;
    a.dst = op->dst.view;
    for (c = 0; c < op->dst.channels; ++c) {
        a.map[c] = x->map[c] == GM_CONST ? -1 : x->map[c];
        a.pre[c] = x->pre[c];
        a.scale[c] = x->scale[c];
        a.offset[c] = x->offset[c];
    }
    a.kind = GM__ANY;
    for (c = 0; c < op->dst.channels; ++c) {
        int plain = gm__is_plain(a.map[c] < 0, a.pre[c], a.scale[c], a.offset[c]);
        int k = plain ? GM__PLAIN : a.map[c] < 0 ? GM__ANY : GM__SCALED;
        a.kind = c == 0 || k == a.kind ? k : GM__ANY;
    }
    a.width = op->width;
    a.height = op->height;
    a.batch = op->batch;
    return a;
}

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
static int gm__aligned(const unsigned long long* base, int channels, int layout, long long pitch, long long bstride,
                       long long batch, long long es, int p)
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
static int gm__fold_map(gm__xform_args* a, int channels, int ls, int ld)
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
            t.src.chan[c] = a->src.chan[a->map[c]];
    } else if (ld == GM_CHW && seen == (1 << channels) - 1) {
        for (c = 0; c < channels; ++c) {
            int k = a->map[c];
            t.dst.chan[k] = a->dst.chan[c];
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
    if (a->height < 2 || a->src.pitch != a->width * a->src.xstride || a->dst.pitch != a->width * a->dst.xstride)
        return;
    if (a->batch > 1 && a->src.bstride == a->height * a->src.pitch && a->dst.bstride == a->height * a->dst.pitch) {
        a->height *= a->batch;
        a->batch = 1;
    }
    a->width *= a->height;
    a->height = 1;
    a->src.pitch = a->width * a->src.xstride;
    a->dst.pitch = a->width * a->dst.xstride;
}

/* The fast kernel for op, rewriting *a (op's generic arguments) for it: it
 * keeps the channel count, every channel plain or every one scaled (no
 * constants) with finite parameters, both sides interleaved or planar.
 * Channels alike and interleaved on both sides become one channel C times
 * as wide, a channel map folds into plane addresses, rows without padding
 * join into one, and every run the kernel moves must be aligned to its
 * unit. -1, *a untouched, where there is none. */
static int gm__fast(const gm__op* op, gm__xform_args* a)
{
    gm__xform_args t = *a;
    int channels = op->dst.channels, ls = gm__side_layout(&op->src), ld = gm__side_layout(&op->dst), row;
    const gm__kernel_row* k;
    if (op->src.channels != channels || a->kind == GM__ANY || ls < 0 || ld < 0 || !gm__finite_params(&t, channels))
        return -1;
    if (channels > 1 && ls == GM_HWC && ld == GM_HWC && gm__uniform(&t, channels)) {
        t.width *= channels;
        t.src.xstride /= channels;
        t.dst.xstride /= channels;
        channels = 1;
    }
    if (!gm__fold_map(&t, channels, ls, ld))
        return -1;
    gm__join_rows(&t);
    row = gm__fast_row[op->src.dtype][op->dst.dtype][channels - 1][ls][ld];
    k = &gm__kernels[row];
    if (!gm__aligned(t.src.chan, channels, ls, t.src.pitch, t.src.bstride, t.batch, gm__dtype_sizes[k->src], k->pixels) ||
        !gm__aligned(t.dst.chan, channels, ld, t.dst.pitch, t.dst.bstride, t.batch, gm__dtype_sizes[k->dst], k->pixels))
        return -1;
    *a = t;
    return row;
}

/* Whether a resize of a dtype source of channels (a pixel xstride bytes
 * after the one before, channel c c * cstride bytes after channel 0) by m
 * to dw x dh may take its kernel's tile path (templates/resize.cu), and the
 * bytes of its slots (0: it may not): u8 with the channels interleaved, a
 * source 2 pixels wide or more, and LINEAR or the 2x2 area mean of whole
 * cells (OpenCV's integer mean: not 2 channels); a row under 2 GB, whose
 * column offsets the path holds in 32 bits. A slot holds the source bytes
 * 32 `pixels` columns read (LINEAR: the columns' first taps at most
 * (32 pixels - 1) scale_x + 2 apart, one more for the float map, and the
 * second taps), from the 16-byte word of the first; the launch's slots and
 * `out` bytes a warp must fit GM__TILE_SHARED_MAX. */
static int gm__tiles(gm_dtype dtype, int channels, long long xstride, long long cstride, const gm__resize_map* m,
                     long long dw, long long dh, int pixels, int out)
{
    long long span, slot;
    if (dtype != GM_U8 || xstride != channels || (channels > 1 && cstride != 1) || m->src_width < 2 ||
        m->src_width > (1LL << 31) / channels)
        return 0;
    if (m->sampler == GM__SAMPLER_LINEAR)
        span = (long long)ceil((32 * pixels - 1) * m->scale_x) + 4;
    else if (m->sampler == GM__SAMPLER_AREA_FAST && m->iscale_x == 2 && m->iscale_y == 2 && channels != 2 &&
             2 * dw <= m->src_width && 2 * dh <= m->src_height)
        span = 64 * pixels;
    else
        return 0;
    span = span < m->src_width ? span : m->src_width;
    slot = (span * channels + 15 + 15) & ~15LL;
    return GM__TILE_SHARED(slot, out) <= GM__TILE_SHARED_MAX ? (int)slot : 0;
}

/* The whole-2x kernel (templates/twice.cu) that may run a resize on the
 * GPU with arguments a, -1 where none may: u8 or a floating dtype with the
 * channels interleaved on both sides, by LINEAR to exactly twice the
 * source's size (OpenCV's scales 0.5) from sides of at most 2^22 (past
 * that, OpenCV's float coordinate rounds some weights of 0.25 to 0) or by
 * the 2x2 mean of whole cells, every row and image of both sides starting
 * on 16 bytes (the kernels' widest accesses). */
static int gm__twice_kernel(const gm__op* op, const gm__resize_args* a)
{
    const gm__resize_map* m = &a->map;
    int c = op->src.channels;
    long long e = (long long)gm_dtype_size(op->src.dtype);
    int up = m->sampler == GM__SAMPLER_LINEAR && !m->area_coeffs && m->scale_x == 0.5 && m->scale_y == 0.5 &&
             a->width == 2 * m->src_width && a->height == 2 * m->src_height && m->src_width <= 1LL << 22 &&
             m->src_height <= 1LL << 22;
    int down = m->sampler == GM__SAMPLER_AREA_FAST && m->iscale_x == 2 && m->iscale_y == 2 &&
               2 * a->width <= m->src_width && 2 * a->height <= m->src_height;
    unsigned long long starts = a->src.chan[0] | a->dst.chan[0] | (unsigned long long)a->src.pitch |
                                (unsigned long long)a->dst.pitch |
                                (a->batch > 1 ? (unsigned long long)(a->src.bstride | a->dst.bstride) : 0);
    if (op->on_host || !(up || down) || starts % 16 || a->src.xstride != c * e || a->dst.xstride != c * e ||
        (c > 1 && ((long long)(a->src.chan[1] - a->src.chan[0]) != e || (long long)(a->dst.chan[1] - a->dst.chan[0]) != e)))
        return -1;
    return gm__twice_row[op->src.dtype][c - 1][m->sampler];
}

/* The resize kernel's arguments for op. */
static gm__resize_args gm__resize_args_of(const gm__op* op)
{
    gm__resize_args a;
    memset(&a, 0, sizeof a);
    a.src = op->src.view;
    a.dst = op->dst.view;
    a.width = op->width;
    a.height = op->height;
    a.batch = op->batch;
    a.map = op->resize;
    a.map.tile = gm__tiles(op->src.dtype, op->src.channels, a.src.xstride, (long long)(a.src.chan[1] - a.src.chan[0]), &a.map,
                           a.width, a.height, GM__TILE_PIXELS_RESIZE, GM__TILE_OUT(op->src.channels));
    return a;
}

/* The CPU path's form of a transform (cpu_xform.h): channels alike and
 * interleaved on both sides become one channel C times as wide, and rows
 * without padding join, so that its runs are long. The channels left. */
static int gm__cpu_shape(const gm__op* op, gm__xform_args* a)
{
    int channels = op->dst.channels;
    if (channels > 1 && op->src.channels == channels && gm__side_layout(&op->src) == GM_HWC &&
        gm__side_layout(&op->dst) == GM_HWC && gm__uniform(a, channels)) {
        a->width *= channels;
        a->src.xstride /= channels;
        a->dst.xstride /= channels;
        channels = 1;
    }
    gm__join_rows(a);
    return channels;
}

/* Whether op writes constants alone, into a side that the fill kernel
 * takes (interleaved, or planar). */
static int gm__fills(const gm__op* op)
{
    int c;
    for (c = 0; c < op->dst.channels; ++c)
        if (op->xform.map[c] != GM_CONST)
            return 0;
    return op->resize.sampler < 0 && gm__side_layout(&op->dst) >= 0;
}

/* The fill kernel's arguments for op (gm__fills): each stream's pattern, a
 * pixel (interleaved) or one element (a plane), as pixel.inc's constant
 * path stores it; rows without padding join into one. */
static gm__fill_args gm__fill_args_of(const gm__op* op)
{
    gm__fill_args a;
    unsigned char value[4][8];
    int es = gm__dtype_sizes[op->dst.dtype], planar = gm__side_layout(&op->dst) == GM_CHW, c, s, i;
    memset(&a, 0, sizeof a);
    a.dst = op->dst.view;
    for (c = 0; c < op->dst.channels; ++c)
        gm__constant(op->src.dtype, op->dst.dtype, value[c], op->xform.offset[c]);
    a.streams = planar ? op->dst.channels : 1;
    a.period = planar ? es : es * op->dst.channels;
    for (s = 0; s < a.streams; ++s) {
        unsigned char* p = (unsigned char*)a.pattern[s];
        for (i = 0; i < (int)sizeof a.pattern[s]; ++i)
            p[i] = value[planar ? s : i % a.period / es][i % es];
    }
    a.bytes = op->width * a.period;
    a.height = op->height;
    a.batch = op->batch;
    if (a.height > 1 && a.dst.pitch == a.bytes) {
        if (a.batch > 1 && a.dst.bstride == a.height * a.dst.pitch) {
            a.height *= a.batch;
            a.batch = 1;
        }
        a.bytes *= a.height;
        a.height = 1;
    }
    return a;
}

/* The plan of op: a resize runs its whole-2x kernel where it may, else
 * its sampler's kernel for its dtype and channels; a transform, on the
 * GPU, the fill kernel where it writes constants alone, its fast kernel
 * where there is one, else the generic kernel of its
 * dtype pair and destination channels. The CPU path runs the loop of the
 * kernel planned, a transform in its CPU form (as that kernel would run it
 * too). */
static void gm__plan_op(const gm__op* op, gm__plan* plan)
{
    int fast = -1, channels = op->dst.channels;
    plan->fn = op->fn;
    plan->many = NULL;
    plan->host = NULL;
    plan->on_host = op->on_host;
    plan->device = op->device;
    plan->src_channels = op->src.channels;
    if (op->resize.sampler >= 0) {
        plan->args.resize = gm__resize_args_of(op);
        plan->kernel = gm__twice_kernel(op, &plan->args.resize);
        if (plan->kernel < 0)
            plan->kernel = gm__resize_row[op->dst.dtype][op->dst.channels - 1][op->resize.sampler];
        return;
    }
    if (!op->on_host && gm__fills(op)) {
        plan->args.fill = gm__fill_args_of(op);
        plan->kernel = GM__FILL_ROW;
        return;
    }
    plan->args.xform = gm__args(op);
    if (!op->on_host)
        fast = gm__fast(op, &plan->args.xform);
    else if ((channels = gm__cpu_shape(op, &plan->args.xform)) != op->dst.channels)
        plan->src_channels = channels;
    plan->kernel = fast >= 0 ? fast : gm__xform_row[op->src.dtype][op->dst.dtype][channels - 1];
}

/* A pre-process plan's arguments (the header of p->many where set). */
static const gm__prep_args* gm__prep_args_of(const gm__plan* p)
{
    return p->many ? &p->many->a : &p->args.prep;
}

/* A warp's sampler for a checked interp (AREA is LINEAR, as
 * cv::warpAffine takes it). */
static int gm__warp_sampler(gm_interp interp)
{
    return interp == GM_INTER_NEAREST ? GM__SAMPLER_NEAREST
           : interp == GM_INTER_CUBIC ? GM__SAMPLER_CUBIC
                                      : GM__SAMPLER_LINEAR;
}

/* The warp's catalogue row for checked dst and p: in the OpenCV 5 mode
 * the float row where there is one, else (and in the OpenCV 4 mode) the
 * 4.x row (gpumat/warp.h's table). */
static int gm__warp_kernel(const gm_mat* dst, const gm_warp_params* p)
{
    const short* rows = gm__warp_row[dst->dtype][dst->channels - 1];
    const int sampler = gm__warp_sampler(p->interp);
    const int float_row = sampler == GM__SAMPLER_NEAREST ? rows[GM__SAMPLER_FLOAT_NEAREST]
                          : sampler == GM__SAMPLER_LINEAR ? rows[GM__SAMPLER_FLOAT_LINEAR]
                                                          : -1;
    return p->mode == GM_WARP_OPENCV5 && float_row >= 0 ? float_row : rows[sampler];
}

/* OpenCV's warpPerspective computes positions from the start of blocks
 * of 16 rows (fewer where the destination has fewer) by 1024 / those rows'
 * columns: the block's width for a width x height destination. */
static int gm__warp_block_width(int64_t width, int64_t height)
{
    const int64_t rows = height < 16 ? height : 16;
    return (int)(1024 / rows < width ? 1024 / rows : width);
}

/* One warp launch's arguments: items [first, first + count) of checked dst
 * from src (its items alike, or its one image for all), by the matrices
 * at M (n doubles each: every item's where per_item, else M's one) as
 * they are; p's border and value, the value stored as the dtype. */
static void gm__warp_args_of(gm__warp_args* a, const gm_mat* src, const gm_mat* dst, const double* M, int n,
                             long long first, long long count, const gm_warp_params* p)
{
    int c, i;
    memset(a, 0, sizeof *a);
    a->src.view = gm__side_of(src).view;
    a->dst = gm__side_of(dst).view;
    for (c = 0; c < dst->channels; ++c) {
        a->dst.chan[c] += (unsigned long long)(first * a->dst.bstride);
        a->src.view.chan[c] += (unsigned long long)(src->batch > 1 ? first * a->src.view.bstride : 0);
        gm__encode_d(dst->dtype, a->value[c], p->value[c]);
    }
    if (src->batch == 1)
        a->src.view.bstride = 0;
    a->src.width = src->width, a->src.height = src->height;
    a->width = dst->width, a->height = dst->height, a->batch = count;
    a->matrices = p->per_item ? (int)count : 1;
    for (i = 0; i < a->matrices; ++i)
        memcpy(a->M + i * n, M + (p->per_item ? (first + i) * n : 0), (size_t)n * sizeof *M);
    a->perspective = n == 9;
    a->src.border = (int)p->border;
    a->src.interleaved = src->layout == GM_HWC || src->channels == 1;
    a->dst_interleaved = dst->layout == GM_HWC || dst->channels == 1;
    a->block_width = gm__warp_block_width(dst->width, dst->height);
}
