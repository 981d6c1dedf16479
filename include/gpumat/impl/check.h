/* SPDX-License-Identifier: MIT */
/* Implementation: the check step. Descriptor arithmetic (overflow-checked),
 * whether two descriptors overlap, and every check a public function makes
 * of the descriptors and frames it is given, with its message: one
 * descriptor, a pair, a frame's planes, sprites, the blend's images, a
 * copy. An operation checks through these before it describes itself
 * (plan.h), so nothing is planned or written for bad input. */

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int gm__mul(int64_t a, int64_t b, int64_t* r)
{
    if (a < 0 || b < 0 || (b != 0 && a > INT64_MAX / b))
        return 0;
    *r = a * b;
    return 1;
}

static int gm__add(int64_t a, int64_t b, int64_t* r)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return 0;
    *r = a + b;
    return 1;
}

/* Bytes between horizontally adjacent pixels of one channel. */
static int64_t gm__xstride(const gm_mat* m)
{
    return (int64_t)gm_dtype_size(m->dtype) * (m->layout == GM_HWC ? m->channels : 1);
}

/* Bytes of a row's pixels, -1 on overflow (a bad descriptor). */
static int64_t gm__row_bytes(const gm_mat* m)
{
    int64_t r;
    return gm__mul(m->width, gm__xstride(m), &r) ? r : -1;
}

/* Image i of a batch (0 <= i < m->batch) as a view of its own. */
static gm_mat gm__item_at(const gm_mat* m, int i)
{
    gm_mat v = *m;
    v.data = (char*)m->data + i * m->batch_pitch;
    v.batch = 1;
    v.owned = NULL;
    return v;
}

/* Offset of the last byte + 1, or -1 on overflow. Every term is non-negative,
 * so the last element is at the sum of the largest index times each stride. */
static int64_t gm__span(const gm_mat* m)
{
    int64_t t, span;
    if (!gm__mul(m->width, gm__xstride(m), &span) || !gm__mul(m->height - 1, m->pitch, &t) ||
        !gm__add(span, t, &span))
        return -1;
    if (m->layout == GM_CHW && (!gm__mul(m->channels - 1, m->plane_pitch, &t) || !gm__add(span, t, &span)))
        return -1;
    if (!gm__mul(m->batch - 1, m->batch_pitch, &t) || !gm__add(span, t, &span))
        return -1;
    return span;
}

/* The fields of a descriptor, before any size arithmetic relies on them.
 * Messages name the descriptor as arg ("src") and its fields with the prefix
 * pre ("src->pitch"; just "pitch" where the user passed them as parameters). */
static gm_status gm__check_fields(const char* fn, const char* arg, const char* pre, const gm_mat* m)
{
    if (!m)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, arg);
    if ((unsigned)m->dtype >= GM_DTYPE_COUNT)
        return gm__fail(GM_ERR_TYPE, "%s: %sdtype %d is not a gm_dtype", fn, pre, (int)m->dtype);
    if (m->channels < 1 || m->channels > 4)
        return gm__fail(GM_ERR_TYPE, "%s: %schannels %d is outside 1..4", fn, pre, (int)m->channels);
    if (m->layout != GM_HWC && m->layout != GM_CHW)
        return gm__fail(GM_ERR_TYPE, "%s: %slayout %d is not a gm_layout", fn, pre, (int)m->layout);
    if (m->where != GM_HOST && m->where != GM_PINNED && m->where != GM_DEVICE)
        return gm__fail(GM_ERR_ARG, "%s: %swhere %d is not GM_HOST, GM_PINNED or GM_DEVICE", fn, pre, (int)m->where);
    if (m->width <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld is not positive", fn, pre, (long long)m->width);
    if (m->height <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %sheight %lld is not positive", fn, pre, (long long)m->height);
    if (m->batch <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %sbatch %d is not positive", fn, pre, (int)m->batch);
    return GM_OK;
}

/* Everything gpumat relies on about one descriptor but its data pointer;
 * arg and pre as for gm__check_fields. */
static gm_status gm__check_layout(const char* fn, const char* arg, const char* pre, const gm_mat* m)
{
    int64_t es, row, image, t;
    gm_status s = gm__check_fields(fn, arg, pre, m);
    if (s != GM_OK)
        return s;
    es = (int64_t)gm_dtype_size(m->dtype);
    if (!gm__mul(m->width, gm__xstride(m), &row))
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld overflows a row", fn, pre, (long long)m->width);
    if (m->pitch < row)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is less than a row (%lld bytes)", fn, pre, (long long)m->pitch,
                        (long long)row);
    if (m->pitch % es)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is not a multiple of the %lld-byte %s element", fn, pre,
                        (long long)m->pitch, (long long)es, gm_dtype_name(m->dtype));
    if (!gm__mul(m->height - 1, m->pitch, &image) || !gm__add(image, row, &image))
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    if (m->layout == GM_CHW && m->channels > 1) {
        /* planes one after the other, or rows of all planes side by side */
        int planes_apart = m->plane_pitch >= image;
        int rows_apart = m->plane_pitch >= row && m->pitch / m->channels >= m->plane_pitch;
        if (m->plane_pitch % es || !(planes_apart || rows_apart))
            return gm__fail(GM_ERR_SIZE, "%s: %splane_pitch %lld makes planes overlap", fn, pre,
                            (long long)m->plane_pitch);
        if (!gm__mul(m->channels - 1, m->plane_pitch, &t) || !gm__add(image, t, &image))
            return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    }
    if (m->batch > 1 && (m->batch_pitch < image || m->batch_pitch % es))
        return gm__fail(GM_ERR_SIZE, "%s: %sbatch_pitch %lld is less than one image (%lld bytes)", fn, pre,
                        (long long)m->batch_pitch, (long long)image);
    if (gm__span(m) < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    return GM_OK;
}

/* The data pointer of a descriptor, named data in messages. */
static gm_status gm__check_data(const char* fn, const char* data, const gm_mat* m)
{
    int64_t es = (int64_t)gm_dtype_size(m->dtype);
    if (!m->data)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, data);
    if ((uintptr_t)m->data % (uintptr_t)es)
        return gm__fail(GM_ERR_ARG, "%s: %s %p is not aligned to its %lld-byte %s elements", fn, data, m->data,
                        (long long)es, gm_dtype_name(m->dtype));
    return GM_OK;
}

/* Everything gpumat relies on about one descriptor; arg names it in messages. */
static gm_status gm__check(const char* fn, const char* arg, const gm_mat* m)
{
    char pre[64], data[72];
    gm_status s;
    /* The checks do nothing but fail, so the names are formatted only for a
     * descriptor that fails, checked again to name it: a call with many
     * descriptors (an overlay's sprites) would spend more on names than on
     * its work. */
    if (gm__check_layout(fn, arg, "", m) == GM_OK && gm__check_data(fn, "data", m) == GM_OK)
        return GM_OK;
    snprintf(pre, sizeof pre, "%s->", arg);
    snprintf(data, sizeof data, "%sdata", pre);
    if ((s = gm__check_layout(fn, arg, pre, m)) != GM_OK)
        return s;
    return gm__check_data(fn, data, m);
}


static int gm__on_host(const gm_mat* m) { return m->where != GM_DEVICE; }

/* Whether two descriptors share a byte, exactly, without allocating: what
 * keeps every operation from reading what it writes. */

/* The rows of a descriptor (every image, plane and row) as a nested lattice:
 * row starts base + sum of i[k] * stride[k], 0 <= i[k] < count[k], levels
 * outermost first, each stride past the whole extent of the levels inside it,
 * so rows in index order are in address order. Positions are bytes from an
 * origin the two descriptors being compared share. */
typedef struct gm__rows {
    uint64_t base, row;
    uint64_t stride[3];
    int64_t count[3];
    int levels;
} gm__rows;

/* 0 when m's rows do not nest (gm__check never accepts such a descriptor). */
static int gm__rows_of(const gm_mat* m, uint64_t base, gm__rows* r)
{
    int64_t st[3], cnt[3], extent = gm__row_bytes(m), t;
    int n = 0, i, k;
    if (m->batch > 1)
        st[n] = m->batch_pitch, cnt[n++] = m->batch;
    if (m->layout == GM_CHW && m->channels > 1)
        st[n] = m->plane_pitch, cnt[n++] = m->channels;
    if (m->height > 1)
        st[n] = m->pitch, cnt[n++] = m->height;
    r->base = base;
    r->row = (uint64_t)extent;
    r->levels = n;
    for (i = 0; i < n; ++i) { /* widest stride first (rows side by side: planes inside rows) */
        for (k = i; k > 0 && st[k] > st[k - 1]; --k) {
            int64_t ts = st[k], tc = cnt[k];
            st[k] = st[k - 1], cnt[k] = cnt[k - 1];
            st[k - 1] = ts, cnt[k - 1] = tc;
        }
    }
    if (extent <= 0)
        return 0;
    for (k = n - 1; k >= 0; --k) { /* each stride clears everything inside it */
        if (st[k] < extent || !gm__mul(cnt[k] - 1, st[k], &t) || !gm__add(extent, t, &extent))
            return 0;
        r->stride[k] = (uint64_t)st[k];
        r->count[k] = cnt[k];
    }
    return 1;
}

/* The first row of r that starts at or after t; 0 when there is none. */
static int gm__rows_seek(const gm__rows* r, uint64_t t, uint64_t* at)
{
    uint64_t pos = r->base, o, i, idx[3];
    int k;
    if (t <= pos) {
        *at = pos;
        return 1;
    }
    o = t - pos;
    for (k = 0; k < r->levels; ++k) { /* the last row starting at or before t */
        i = o / r->stride[k];
        if (i > (uint64_t)(r->count[k] - 1))
            i = (uint64_t)(r->count[k] - 1);
        idx[k] = i;
        pos += i * r->stride[k];
        o -= i * r->stride[k];
    }
    if (o == 0) {
        *at = pos;
        return 1;
    }
    for (k = r->levels - 1; k >= 0; --k) { /* then the row after it */
        pos -= idx[k] * r->stride[k];
        if (idx[k] + 1 < (uint64_t)r->count[k]) {
            *at = pos + (idx[k] + 1) * r->stride[k];
            return 1;
        }
    }
    return 0;
}

/* Whether two row lists (in address order) share a byte: each jumps straight
 * to the first of its rows that reaches the other's current row, so the cost
 * is the number of times the two interleave. */
static int gm__rows_meet(const gm__rows* a, const gm__rows* b)
{
    uint64_t x = a->base, y = b->base;
    for (;;) {
        if (x <= y) {
            if (y - x < a->row)
                return 1;
            if (!gm__rows_seek(a, y - a->row + 1, &x))
                return 0;
        } else {
            if (x - y < b->row)
                return 1;
            if (!gm__rows_seek(b, x - b->row + 1, &y))
                return 0;
        }
    }
}

/* Whether rows x + i*p (i < nx, ra bytes each) and y + j*p (j < ny, rb
 * bytes) share a byte, in O(1): some i - j puts a row of x within (y' - ra,
 * y' + rb) of y' = y + (ny-1)*p, the last row of y, for i - j + ny - 1 in
 * 0 .. nx + ny - 2. */
static int gm__prog_meet(uint64_t x, int64_t nx, uint64_t ra, uint64_t y, int64_t ny, uint64_t rb, uint64_t p)
{
    uint64_t last = y + (uint64_t)(ny - 1) * p, lo = last + 1 > ra ? last + 1 - ra : 0, k;
    k = lo <= x ? 0 : (lo - x + p - 1) / p;
    return k <= (uint64_t)(nx + ny - 2) && x + k * p < last + rb;
}

/* r's innermost level as blocks: the lattice of block starts (each block
 * row bytes long: its whole extent) and the progression inside a block. */
static void gm__blocks_of(const gm__rows* r, gm__rows* blocks, uint64_t* stride, int64_t* count)
{
    *blocks = *r;
    *stride = r->row, *count = 1; /* one row: a block of one */
    if (r->levels > 0) {
        blocks->levels = r->levels - 1;
        *stride = r->stride[blocks->levels];
        *count = r->count[blocks->levels];
        blocks->row = (uint64_t)(*count - 1) * *stride + r->row;
    }
}

/* Whether a and b (checked descriptors on the same side) share a byte, exactly.
 * Their address ranges are the quick answer; only ranges that intersect
 * (planes or items of one buffer, side-by-side ROIs) are compared block by
 * block (a block: the rows of one plane of one image, or the planes of one
 * row where rows hold planes side by side), blocks walked in address order,
 * each block pair whose extents intersect tested in O(1) when their rows
 * share a pitch (else row by row). No allocation. */
static int gm__overlap(const gm_mat* a, const gm_mat* b)
{
    uint64_t a0 = (uint64_t)(uintptr_t)a->data, b0 = (uint64_t)(uintptr_t)b->data, o = a0 < b0 ? a0 : b0;
    uint64_t sa = (uint64_t)gm__span(a), sb = (uint64_t)gm__span(b), x, y, pa, pb;
    int64_t na, nb;
    gm__rows ra, rb, ba, bb;
    if ((int64_t)sa < 0 || (int64_t)sb < 0)
        return 1; /* unchecked and overflowing: assume the worst */
    a0 -= o, b0 -= o; /* one of them is 0 */
    if (!(a0 < b0 + sb && b0 < a0 + sa))
        return 0;
    if (!gm__rows_of(a, a0, &ra) || !gm__rows_of(b, b0, &rb))
        return 1; /* not a layout gm__check accepts: assume the worst */
    gm__blocks_of(&ra, &ba, &pa, &na);
    gm__blocks_of(&rb, &bb, &pb, &nb);
    x = ba.base, y = bb.base;
    for (;;) {
        if (x <= y && y - x >= ba.row) { /* block x ends before block y: skip a's blocks that do */
            if (!gm__rows_seek(&ba, y - ba.row + 1, &x))
                return 0;
        } else if (y < x && x - y >= bb.row) {
            if (!gm__rows_seek(&bb, x - bb.row + 1, &y))
                return 0;
        } else { /* the two blocks' extents intersect */
            if (na == 1 || nb == 1 || pa == pb) {
                if (gm__prog_meet(x, na, ra.row, y, nb, rb.row, na > 1 ? pa : nb > 1 ? pb : 1))
                    return 1;
            } else {
                gm__rows one_a, one_b;
                one_a.base = x, one_a.row = ra.row, one_a.levels = 1, one_a.stride[0] = pa, one_a.count[0] = na;
                one_b.base = y, one_b.row = rb.row, one_b.levels = 1, one_b.stride[0] = pb, one_b.count[0] = nb;
                if (gm__rows_meet(&one_a, &one_b))
                    return 1;
            }
            /* the block that ends first meets no later block of the other */
            if (x + ba.row <= y + bb.row ? !gm__rows_seek(&ba, x + 1, &x) : !gm__rows_seek(&bb, y + 1, &y))
                return 0;
        }
    }
}

/* Two descriptors: what an operation needs of its source and destination. */

static const char* gm__layout_name(const gm_mat* m)
{
    return m->channels == 1 ? "1-channel" : m->layout == GM_HWC ? "interleaved (HWC)" : "planar (CHW)";
}

/* Whether a and b (named so in messages) are of one size and batch. */
static gm_status gm__check_size(const char* fn, const char* a_name, const gm_mat* a, const char* b_name, const gm_mat* b)
{
    if (a->width == b->width && a->height == b->height && a->batch == b->batch)
        return GM_OK;
    return gm__fail(GM_ERR_SIZE, "%s: %s is %lldx%lld, batch %d, but %s is %lldx%lld, batch %d", fn, a_name,
                    (long long)a->width, (long long)a->height, (int)a->batch, b_name, (long long)b->width,
                    (long long)b->height, (int)b->batch);
}

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

/* Where two checked images are: the same memory (host, or one device) and
 * not overlapping. */
static gm_status gm__check_place(const char* fn, const char* src_name, const gm_mat* src, const char* dst_name,
                                 const gm_mat* dst)
{
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
    if ((s = gm__check_size(fn, src_name, src, dst_name, dst)) != GM_OK)
        return s;
    return gm__check_place(fn, src_name, src, dst_name, dst);
}

static gm_status gm__check_pair(const char* fn, const gm__typed* t, const gm_mat* src, const char* dst_name,
                                const gm_mat* dst)
{
    return gm__check_two(fn, t, "src", src, dst_name, dst);
}

/* The transforms, resize and the blob's arithmetic (gpumat/ops.h). */

/* A transform's xform of a checked pair, and (from a typed function t)
 * that its generated kernel is the catalogue's. */
static gm_status gm__check_xform(const char* fn, const gm__typed* t, const gm_mat* src, const gm_mat* dst,
                                 const gm_xform* xform)
{
    int c, kernel;
    if (!xform)
        return gm__fail(GM_ERR_ARG, "%s: xform is NULL", fn);
    for (c = 0; c < dst->channels; ++c)
        if (xform->map[c] != GM_CONST && (xform->map[c] < 0 || xform->map[c] >= src->channels))
            return gm__fail(GM_ERR_ARG, "%s: xform->map[%d] = %d is not a channel of src (0..%d) or GM_CONST", fn, c,
                            xform->map[c], (int)src->channels - 1);
    /* A typed function names its generic kernel at compile time; a views.h
     * generated from another model than catalogue.h (headers vendored from two
     * versions) would name another kernel, which must not run. */
    kernel = gm__xform_row[src->dtype][dst->dtype][dst->channels - 1];
    if (t && t->kernel != kernel)
        return gm__fail(GM_ERR_TYPE, "%s: kernel %d is not %s -> %s x%d (%d): gpumat/gen/views.h and "
                        "gpumat/gen/catalogue.h come from different generator runs", fn, t->kernel,
                        gm_dtype_name(src->dtype), gm_dtype_name(dst->dtype), (int)dst->channels, kernel);
    return GM_OK;
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

/* gm_convert's pair: one shape and layout, any dtypes. */
static gm_status gm__check_convert(const char* fn, const gm__typed* t, const gm_mat* src, const gm_mat* dst)
{
    gm_status s;
    if ((s = gm__check_pair(fn, t, src, "dst", dst)) != GM_OK || (s = gm__same_shape(fn, src, dst, 0)) != GM_OK)
        return s;
    if (src->layout != dst->layout && src->channels > 1)
        return gm__fail(GM_ERR_TYPE, "%s: src is %s, dst %s (gm_split / gm_merge change layout)", fn,
                        gm__layout_name(src), gm__layout_name(dst));
    return GM_OK;
}

/* gm_split's (from GM_HWC) or gm_merge's pair: one dtype and shape, src
 * of layout `from`, dst of the other. */
static gm_status gm__check_relayout(const char* fn, const gm__typed* t, const gm_mat* src, const gm_mat* dst,
                                    gm_layout from)
{
    gm_status s;
    if ((s = gm__check_pair(fn, t, src, "dst", dst)) != GM_OK || (s = gm__same_shape(fn, src, dst, 1)) != GM_OK)
        return s;
    if (src->channels > 1 && src->layout != from)
        return gm__fail(GM_ERR_TYPE, "%s: src is %s; %s expected", fn, gm__layout_name(src),
                        from == GM_HWC ? "interleaved (HWC)" : "planar (CHW)");
    if (src->channels > 1 && dst->layout == from)
        return gm__fail(GM_ERR_TYPE, "%s: dst is %s; %s expected", fn, gm__layout_name(dst),
                        from == GM_HWC ? "planar (CHW)" : "interleaved (HWC)");
    return GM_OK;
}

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

/* The arithmetic fields of a gm_prep or a gm_blob_params (owner in
 * messages: "prep" or "params"): arith a gm_blob_arith, GM_BLOB_FLOAT
 * where divide is set (a division has no double form in OpenCV). */
static gm_status gm__check_arith(const char* fn, const char* owner, int divide, gm_blob_arith arith)
{
    if ((unsigned)arith > GM_BLOB_DOUBLE)
        return gm__fail(GM_ERR_ARG, "%s: %s->arith %d is not a gm_blob_arith (GM_BLOB_FLOAT 0, GM_BLOB_DOUBLE 1)", fn,
                        owner, (int)arith);
    if (divide && arith != GM_BLOB_FLOAT)
        return gm__fail(GM_ERR_ARG, "%s: %s->divide is set with %s->arith GM_BLOB_DOUBLE; the division is in float: "
                        "set one of them", fn, owner, owner);
    return GM_OK;
}

/* One blob_from_image(src -> dst), src named src_name in messages: an
 * interleaved 1-, 3- or 4-channel source, and params' mean and scale (p
 * set) or std finite for each channel. */
static gm_status gm__check_blob(const char* fn, const gm__typed* t, const char* src_name, const gm_mat* src,
                                const gm_mat* dst, const gm_blob_params* p, int swap_rb, const double* std)
{
    int c;
    gm_status s;
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
    for (c = 0; c < src->channels; ++c) {
        if (p && (!isfinite(p->mean[c]) || !isfinite(p->scale[c])))
            return gm__fail(GM_ERR_ARG, "%s: params->mean[%d] %g and params->scale[%d] %g must be finite", fn, c,
                            p->mean[c], c, p->scale[c]);
        if (!p && std && (std[c] == 0.0 || !isfinite(std[c]))) /* NaN and infinities too */
            return gm__fail(GM_ERR_ARG, "%s: std[%d] is %g; must be finite and non-zero", fn, c, std[c]);
    }
    return GM_OK;
}

/* count images (fn: gm_blob_from_images or its _with_params form) into
 * batched dst, each a blob as gm__check_blob's; a bad images[count - 1] is
 * found before anything is written. */
static gm_status gm__check_blob_images(const char* fn, const gm_mat* images, int count, const gm_mat* dst,
                                       const gm_blob_params* p, int swap_rb, const double* std)
{
    char name[32];
    gm_mat item;
    int i;
    gm_status s;
    if (!images)
        return gm__fail(GM_ERR_ARG, "%s: images is NULL", fn);
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (count < 1 || count != dst->batch)
        return gm__fail(GM_ERR_ARG, "%s: count %d does not match dst->batch %d", fn, count, (int)dst->batch);
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
        item = gm__item_at(dst, i);
        if ((s = gm__check_blob(fn, NULL, name, &images[i], &item, p, swap_rb, std)) != GM_OK)
            return s;
        /* read while other items are written: no byte of dst at all */
        if (gm__overlap(&images[i], dst))
            return gm__fail(GM_ERR_OVERLAP, "%s: %s and dst overlap", fn, name);
    }
    return GM_OK;
}

/* cv::resize's explicit scales. */
static gm_status gm__check_scale(const char* fn, double fx, double fy)
{
    if (!(fx > 0.0 && isfinite(fx)) || !(fy > 0.0 && isfinite(fy)))
        return gm__fail(GM_ERR_ARG, "%s: fx %g and fy %g must be positive and finite", fn, fx, fy);
    return GM_OK;
}

/* An interpolation, named name in messages. */
static gm_status gm__check_interp(const char* fn, const char* name, gm_interp interp)
{
    if ((unsigned)interp > GM_INTER_LINEAR_EXACT)
        return gm__fail(GM_ERR_ARG, "%s: %s %d is not a resize's gm_interp (GM_INTER_LINEAR, _NEAREST, _AREA or "
                        "_LINEAR_EXACT)", fn, name, (int)interp);
    return GM_OK;
}

/* The index of the first of the count values at v that is not finite,
 * else -1. */
static int gm__nonfinite_at(const double* v, int count)
{
    int i;
    for (i = 0; i < count; ++i)
        if (!isfinite(v[i]))
            return i;
    return -1;
}

/* count values of v, named name, where v is not NULL and each is finite. */
static gm_status gm__check_values(const char* fn, const char* name, const double* v, int count)
{
    int i;
    if (!v)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, name);
    if ((i = gm__nonfinite_at(v, count)) >= 0)
        return gm__fail(GM_ERR_ARG, "%s: %s[%d] is %g, not finite", fn, name, i, v[i]);
    return GM_OK;
}

/* A warp's interpolation and border (gm_warp_params', or gm_prep's
 * where prefix names it). */
static gm_status gm__check_warp_sampling(const char* fn, const char* prefix, gm_interp interp, gm_border border)
{
    if (interp != GM_INTER_LINEAR && interp != GM_INTER_NEAREST && interp != GM_INTER_AREA && interp != GM_INTER_CUBIC)
        return gm__fail(GM_ERR_ARG, "%s: %sinterp %d is not a warp's (GM_INTER_LINEAR, _NEAREST, _CUBIC or "
                        "_AREA, which is LINEAR)", fn, prefix, (int)interp);
    if ((unsigned)border > GM_BORDER_TRANSPARENT)
        return gm__fail(GM_ERR_ARG, "%s: %sborder %d is not a gm_border (GM_BORDER_CONSTANT to "
                        "_TRANSPARENT, 0-5)", fn, prefix, (int)border);
    return GM_OK;
}

/* A resize of src into dst by interp, at cv::resize's explicit scales fx,
 * fy (0: the size ratio, any size). */
static gm_status gm__check_resize(const char* fn, const gm_mat* src, const gm_mat* dst, gm_interp interp, double fx,
                                  double fy)
{
    gm_status s;
    if ((s = gm__check(fn, "src", src)) != GM_OK || (s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if ((s = gm__check_interp(fn, "interp", interp)) != GM_OK)
        return s;
    if (src->dtype != dst->dtype || src->channels != dst->channels) {
        char from_text[32], to_text[32];
        return gm__fail(GM_ERR_TYPE, "%s: src is %s but dst is %s; resize keeps the dtype and channels", fn,
                        gm__type_text(from_text, sizeof from_text, src->dtype, src->channels, src->layout),
                        gm__type_text(to_text, sizeof to_text, dst->dtype, dst->channels, dst->layout));
    }
    if (src->batch != dst->batch)
        return gm__fail(GM_ERR_SIZE, "%s: src is a batch of %d but dst of %d", fn, (int)src->batch, (int)dst->batch);
    if (fx > 0.0) {
        double w = rint((double)src->width * fx), h = rint((double)src->height * fy);
        if (w != (double)dst->width || h != (double)dst->height)
            return gm__fail(GM_ERR_SIZE, "%s: src %lldx%lld at fx %g, fy %g makes %.0fx%.0f, but dst is %lldx%lld", fn,
                            (long long)src->width, (long long)src->height, fx, fy, w, h, (long long)dst->width,
                            (long long)dst->height);
    }
    return gm__check_place(fn, "src", src, "dst", dst);
}

/* A 4:2:0 frame (gm_yuv): its planes alike and beside each other. */

static int gm__yuv_planar(const gm_yuv* f) { return f->format == GM_YUV_I420 || f->format == GM_YUV_YV12; }

/* The dtype of a frame's samples. */
static gm_dtype gm__yuv_sample(gm_yuv_format format) { return format == GM_YUV_P016 ? GM_U16 : GM_U8; }

/* One chroma plane of f (name "u" or "v"), beside its luma. */
static gm_status gm__yuv_check_chroma(const char* fn, const char* name, const gm_mat* c, const gm_yuv* f)
{
    char arg[32];
    int channels = gm__yuv_planar(f) ? 1 : 2;
    gm_dtype sample = gm__yuv_sample(f->format);
    gm_status s;
    snprintf(arg, sizeof arg, "frame->%s", name);
    if ((s = gm__check(fn, arg, c)) != GM_OK)
        return s;
    if (c->dtype != sample || c->channels != channels || (channels > 1 && c->layout != GM_HWC))
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d %s; a %s frame's is %s x%d%s", fn, arg,
                        gm_dtype_name(c->dtype), (int)c->channels, gm__layout_name(c),
                        gm__yuv_planar(f) ? "planar" : "semi-planar", gm_dtype_name(sample), channels,
                        channels > 1 ? " interleaved" : "");
    if (c->width != f->y.width / 2 || c->height != f->y.height / 2 || c->batch != f->y.batch)
        return gm__fail(GM_ERR_SIZE, "%s: %s is %lldx%lld, batch %d; the luma's %lldx%lld, batch %d, needs %lldx%lld",
                        fn, arg, (long long)c->width, (long long)c->height, (int)c->batch, (long long)f->y.width,
                        (long long)f->y.height, (int)f->y.batch, (long long)f->y.width / 2,
                        (long long)f->y.height / 2);
    if (gm__on_host(c) != gm__on_host(&f->y) || (!gm__on_host(c) && c->device != f->y.device))
        return gm__fail(GM_ERR_LOCATION, "%s: %s and frame->y are not in the same memory", fn, arg);
    if (gm__overlap(c, &f->y))
        return gm__fail(GM_ERR_OVERLAP, "%s: %s and frame->y overlap", fn, arg);
    return GM_OK;
}

/* What every function of a frame needs of it. */
static gm_status gm__yuv_check(const char* fn, const gm_yuv* f)
{
    gm_status s;
    if (!f)
        return gm__fail(GM_ERR_ARG, "%s: frame is NULL", fn);
    if ((unsigned)f->format > GM_YUV_P016 || (unsigned)f->matrix > GM_YUV_BT2020 || (unsigned)f->range > GM_YUV_FULL)
        return gm__fail(GM_ERR_ARG, "%s: frame->format %d, matrix %d or range %d is not one gpumat/yuv.h names", fn,
                        (int)f->format, (int)f->matrix, (int)f->range);
    if ((s = gm__check(fn, "frame->y", &f->y)) != GM_OK)
        return s;
    if (f->y.dtype != gm__yuv_sample(f->format) || f->y.channels != 1)
        return gm__fail(GM_ERR_TYPE, "%s: frame->y is %s x%d; the luma is %s x1", fn, gm_dtype_name(f->y.dtype),
                        (int)f->y.channels, gm_dtype_name(gm__yuv_sample(f->format)));
    if (f->y.width % 2 || f->y.height % 2)
        return gm__fail(GM_ERR_SIZE, "%s: frame->y is %lldx%lld; 4:2:0 needs an even width and height", fn,
                        (long long)f->y.width, (long long)f->y.height);
    if ((s = gm__yuv_check_chroma(fn, "u", &f->u, f)) != GM_OK)
        return s;
    if (!gm__yuv_planar(f))
        return GM_OK;
    if ((s = gm__yuv_check_chroma(fn, "v", &f->v, f)) != GM_OK)
        return s;
    if (gm__overlap(&f->u, &f->v))
        return gm__fail(GM_ERR_OVERLAP, "%s: frame->u and frame->v overlap", fn);
    return GM_OK;
}

/* gm_yuv_wrap's frame (zeroed first), format and sizes; *pitch and
 * *coded_height given their defaults (0: compact, the height). */
static gm_status gm__check_yuv_wrap(const char* fn, gm_yuv* frame, gm_yuv_format format, int64_t width,
                                    int64_t height, int64_t* pitch, int64_t* coded_height)
{
    const int planar = format == GM_YUV_I420 || format == GM_YUV_YV12;
    const int64_t esize = (int64_t)gm_dtype_size(gm__yuv_sample(format));
    if (!frame)
        return gm__fail(GM_ERR_ARG, "%s: frame is NULL", fn);
    memset(frame, 0, sizeof *frame);
    if ((unsigned)format > GM_YUV_P016)
        return gm__fail(GM_ERR_ARG, "%s: format %d is not one gpumat/yuv.h names", fn, (int)format);
    *coded_height = *coded_height ? *coded_height : height;
    if (width <= 0 || height <= 0 || width % 2 || height % 2 || width > INT64_MAX / 2)
        return gm__fail(GM_ERR_SIZE, "%s: %lldx%lld; 4:2:0 needs an even width and height", fn, (long long)width,
                        (long long)height);
    *pitch = *pitch ? *pitch : width * esize;
    if (*coded_height < height || *coded_height % 2 || (planar && *pitch % 2))
        return gm__fail(GM_ERR_SIZE, "%s: coded_height %lld (pitch %lld) for height %lld; it must be even, at least "
                        "the height, and a planar frame's pitch even", fn, (long long)*coded_height, (long long)*pitch,
                        (long long)height);
    if (*pitch < width * esize || *pitch > INT64_MAX / 3 / (*coded_height / 2))
        return gm__fail(GM_ERR_SIZE, "%s: pitch %lld for width %lld of %s samples", fn, (long long)*pitch,
                        (long long)width, gm_dtype_name(gm__yuv_sample(format)));
    return GM_OK;
}

/* gm_yuv_roi's rectangle of frame. */
static gm_status gm__check_yuv_roi(const char* fn, const gm_yuv* frame, const gm_yuv* view, int64_t x, int64_t y,
                                   int64_t width, int64_t height)
{
    gm_status s = gm__yuv_check(fn, frame);
    if (s != GM_OK)
        return s;
    if (!view)
        return gm__fail(GM_ERR_ARG, "%s: view is NULL", fn);
    if (x % 2 || y % 2 || width % 2 || height % 2)
        return gm__fail(GM_ERR_ARG, "%s: (%lld, %lld) %lldx%lld; a 4:2:0 rectangle's values are even", fn,
                        (long long)x, (long long)y, (long long)width, (long long)height);
    if (x < 0 || y < 0 || width <= 0 || height <= 0 || x > frame->y.width - width || y > frame->y.height - height)
        return gm__fail(GM_ERR_SIZE, "%s: (%lld, %lld) %lldx%lld is not inside frame->y (%lldx%lld)", fn,
                        (long long)x, (long long)y, (long long)width, (long long)height, (long long)frame->y.width,
                        (long long)frame->y.height);
    return GM_OK;
}

/* A frame and the image gm_yuv_convert (from 0) or gm_yuv_from_image
 * (from 1) converts it into or from, named `name`. */
static gm_status gm__yuv_image_check(const char* fn, const gm_yuv* frame, const char* name, const gm_mat* image,
                                     int from)
{
    gm_status s = gm__yuv_check(fn, frame);
    if (s != GM_OK || (s = gm__check(fn, name, image)) != GM_OK)
        return s;
    if (from && frame->format == GM_YUV_P016)
        return gm__fail(GM_ERR_TYPE, "%s: frame->format is P016; images go into 8-bit frames only", fn);
    if (frame->format == GM_YUV_P016 ? gm__yuv16_row[image->dtype] < 0 : image->dtype != GM_U8)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s; %s frames convert to %s", fn, name, gm_dtype_name(image->dtype),
                        frame->format == GM_YUV_P016 ? "P016" : "8-bit",
                        frame->format == GM_YUV_P016 ? "u8, u16 or f32" : "u8");
    if (image->channels == 2 || (from && image->channels == 1))
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d; %sx3 or x4 expected", fn, name, gm_dtype_name(image->dtype),
                        (int)image->channels, from ? "" : "x1 (gray), ");
    if ((s = gm__check_size(fn, name, image, "the frame", &frame->y)) != GM_OK ||
        (s = gm__check_place(fn, "frame->y", &frame->y, name, image)) != GM_OK ||
        (s = gm__check_place(fn, "frame->u", &frame->u, name, image)) != GM_OK ||
        (gm__yuv_planar(frame) && (s = gm__check_place(fn, "frame->v", &frame->v, name, image)) != GM_OK))
        return s;
    return GM_OK;
}

/* The pre-process (gpumat/prep.h). */

/* Source i of a batch as the kernels read it: srcs[i], or frames[i] as
 * the u8 BGR image that cvtColor makes of it (a stand-in that gives sizes
 * and types; its data is the luma's). */
static gm_mat gm__prep_source_at(const gm_mat* srcs, const gm_yuv* frames, int i)
{
    gm_mat m;
    if (!frames)
        return srcs[i];
    m = frames[i].y;
    m.channels = 3;
    return m;
}

/* What messages call the sources of the public function fn: src, srcs,
 * frame or frames (an internal caller's: srcs). */
static const char* gm__prep_sources_name(const char* fn)
{
    static const char* const names[][2] = {{"gm_preprocess", "src"}, {"gm_preprocess_batch", "srcs"},
                                           {"gm_preprocess_yuv", "frame"}, {"gm_preprocess_yuv_batch", "frames"}};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (!strcmp(fn, names[i][0]))
            return names[i][1];
    return "srcs";
}

/* What messages call source i (i >= 0) of sources, gm__prep_sources_name's
 * answer: src or frame alone, else srcs[i] or frames[i], into name (32
 * bytes). By hand, not by snprintf: a batch names each item before it
 * checks it, and snprintf took half of the host's time for 64 items
 * (bench/RESULTS.md). */
static void gm__prep_name(const char* sources, int i, char* name)
{
    const size_t n = strlen(sources);
    char digits[12];
    int k = 0;
    memcpy(name, sources, n + 1);
    if (sources[n - 1] != 's') /* src, frame: one item */
        return;
    do
        digits[k++] = (char)('0' + i % 10);
    while ((i /= 10) > 0);
    name[n] = '[';
    for (i = 0; i < k; ++i)
        name[n + 1 + (size_t)i] = digits[k - 1 - i];
    name[n + 1 + (size_t)k] = ']', name[n + 2 + (size_t)k] = 0;
}

/* The kernel row of a launch by sampler I, of frames or of images S x C
 * into D, whose product is computed as arith says (GM_BLOB_DOUBLE: the
 * prep_double rows, templates/prep_double.cu); -1 where there is none. */
static int gm__prep_kernel_of(int frames, gm_blob_arith arith, gm_dtype S, gm_dtype D, int C, int I)
{
    if (frames)
        return arith == GM_BLOB_DOUBLE ? gm__prep_yuv_double_row[D][I] : gm__prep_yuv_row[D][I];
    return arith == GM_BLOB_DOUBLE ? gm__prep_double_row[S][D][C - 1][I] : gm__prep_row[S][D][C - 1][I];
}

/* The warp placement's kernel row (GM_FIT_WARP) by sampler I, of frames
 * or of images S x C, into D (the product's arithmetic is an argument). */
static int gm__prep_warp_kernel_of(int frames, gm_dtype S, gm_dtype D, int C, int I)
{
    return frames ? gm__prep_yuv_warp_row[D][I] : gm__prep_warp_row[S][D][C - 1][I];
}

/* The letterbox options, and which rules' frameworks have each (prep.h):
 * bit r for rule r. */
static const struct {
    const char* name;
    unsigned rules;
} gm__prep_option_rules[] = {{"top_left", 1u << GM_LETTERBOX_ULTRALYTICS | 1u << GM_LETTERBOX_DEEPSTREAM},
                             {"no_upscale", 1u << GM_LETTERBOX_ULTRALYTICS},
                             {"stride", 1u << GM_LETTERBOX_ULTRALYTICS}};

/* A crop (named name) placed into a dst_width x dst_height image by p: the
 * sizes, p's enums, and each letterbox option set only where the
 * letterbox's rule has it. */
static gm_status gm__check_placement(const char* fn, const char* name, const gm_rect* crop, int64_t dst_width,
                                     int64_t dst_height, const gm_prep* p)
{
    static const char* const fits[] = {"GM_FIT_STRETCH", "GM_FIT_LETTERBOX", "GM_FIT_CROP_CENTER", "GM_FIT_WARP"};
    static const char* const rules[] = {"GM_LETTERBOX_ULTRALYTICS", "GM_LETTERBOX_OPENCV_DNN",
                                        "GM_LETTERBOX_DEEPSTREAM"};
    const int set[] = {p->top_left != 0, p->no_upscale != 0, p->stride != 0};
    int64_t W = crop->width, H = crop->height;
    size_t i;
    gm_status s;
    if (W < 1 || H < 1 || W > INT_MAX || H > INT_MAX || dst_width < 1 || dst_height < 1 || dst_width > INT_MAX ||
        dst_height > INT_MAX)
        return gm__fail(GM_ERR_SIZE, "%s: %s: a %lldx%lld crop into %lldx%lld; sizes must be 1 to %d", fn, name,
                        (long long)W, (long long)H, (long long)dst_width, (long long)dst_height, INT_MAX);
    if ((unsigned)p->fit > GM_FIT_WARP)
        return gm__fail(GM_ERR_ARG, "%s: prep->fit %d is not a gm_fit", fn, (int)p->fit);
    if ((unsigned)p->rule > GM_LETTERBOX_DEEPSTREAM)
        return gm__fail(GM_ERR_ARG, "%s: prep->rule %d is not a gm_letterbox_rule", fn, (int)p->rule);
    if (p->fit != GM_FIT_WARP && (p->warp || p->perspective || p->inverse || p->border != GM_BORDER_CONSTANT))
        return gm__fail(GM_ERR_ARG, "%s: prep->%s is an option of GM_FIT_WARP, and prep->fit is %s", fn,
                        p->warp ? "warp" : p->perspective ? "perspective" : p->inverse ? "inverse" : "border",
                        fits[p->fit]);
    if (p->fit == GM_FIT_WARP && (W >= 32767 || H >= 32767)) /* OpenCV's source positions are shorts */
        return gm__fail(GM_ERR_SIZE, "%s: %s: the crop is %lldx%lld; a warp's source is below 32767 pixels each way",
                        fn, name, (long long)W, (long long)H);
    if ((s = p->fit == GM_FIT_WARP ? gm__check_warp_sampling(fn, "prep->", p->interp, p->border)
                                   : gm__check_interp(fn, "prep->interp", p->interp)) != GM_OK)
        return s;
    if (p->stride < 0)
        return gm__fail(GM_ERR_ARG, "%s: prep->stride is %d; it must be 0 (off) or more", fn, p->stride);
    for (i = 0; i < sizeof set / sizeof set[0]; ++i) {
        if (!set[i])
            continue;
        if (p->fit != GM_FIT_LETTERBOX)
            return gm__fail(GM_ERR_ARG, "%s: prep->%s is an option of GM_FIT_LETTERBOX, and prep->fit is %s", fn,
                            gm__prep_option_rules[i].name, fits[p->fit]);
        if (!(gm__prep_option_rules[i].rules >> p->rule & 1))
            return gm__fail(GM_ERR_ARG, "%s: prep->%s is not an option of %s", fn, gm__prep_option_rules[i].name,
                            rules[p->rule]);
    }
    return GM_OK;
}

/* gm_prep_geometry_of's arguments. */
static gm_status gm__check_geometry_of(const char* fn, const gm_rect* crop, int64_t dst_width, int64_t dst_height,
                                       const gm_prep* p, const gm_prep_geometry* g)
{
    if (!crop || !p || !g)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, !crop ? "crop" : !p ? "prep" : "geometry");
    return gm__check_placement(fn, "crop", crop, dst_width, dst_height, p);
}

/* The placement g the planner made of such a crop (into dst_width x
 * dst_height): not empty, and of a batch's item i > 0 the size of item 0's
 * (first), which prep->stride can make smaller than dst. */
static gm_status gm__check_placed(const char* fn, const char* name, const gm_prep_geometry* g,
                                  const gm_prep_geometry* first, int64_t dst_width, int64_t dst_height)
{
    if (g->width < 1 || g->height < 1)
        return gm__fail(GM_ERR_SIZE, "%s: %s: the letterbox of a %lldx%lld crop into %lldx%lld is empty "
                        "(%lldx%lld)", fn, name, (long long)g->crop.width, (long long)g->crop.height,
                        (long long)dst_width, (long long)dst_height, (long long)g->width, (long long)g->height);
    if (first && (g->dst_width != first->dst_width || g->dst_height != first->dst_height))
        return gm__fail(GM_ERR_ARG, "%s: prep->stride: %s comes to %lldx%lld, %s[0] to %lldx%lld; a batch's "
                        "items must come to one size", fn, name, (long long)g->dst_width, (long long)g->dst_height,
                        gm__prep_sources_name(fn), (long long)first->dst_width, (long long)first->dst_height);
    return GM_OK;
}

/* A box mapped back through geometry g by map (named map_name). */
static gm_status gm__check_box_map(const char* fn, const char* map_name, const gm_prep_geometry* g, gm_box_map map,
                                   const double* box, const double* out)
{
    if (!g || !box || !out)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, !g ? "geometry" : !box ? "box" : "out");
    if ((unsigned)map > GM_BOX_DEEPSTREAM)
        return gm__fail(GM_ERR_ARG, "%s: %s %d is not a gm_box_map", fn, map_name, (int)map);
    if (g->fit == GM_FIT_WARP)
        return gm__fail(GM_ERR_ARG, "%s: geometry is of GM_FIT_WARP, whose boxes map back by the inverse of the "
                        "item's matrix (gpumat/warp.h), not by a scale", fn);
    if (g->crop.width < 1 || g->crop.height < 1 || g->dst_width < 1 || g->dst_height < 1)
        return gm__fail(GM_ERR_ARG, "%s: geometry is of a %lldx%lld crop into %lldx%lld; sizes must be 1 or more",
                        fn, (long long)g->crop.width, (long long)g->crop.height, (long long)g->dst_width,
                        (long long)g->dst_height);
    return GM_OK;
}

/* The factors map divides by, which a geometry made by hand can lack. */
static gm_status gm__check_box_factors(const char* fn, gm_box_map map, const double div[2])
{
    if (!(div[0] > 0.0) || !(div[1] > 0.0) || isinf(div[0]) || isinf(div[1]))
        return gm__fail(GM_ERR_ARG, "%s: geometry's factors for map %d are %g and %g; they must be above 0 (a "
                        "geometry gm_prep_geometry_of made has them)", fn, (int)map, div[0], div[1]);
    return GM_OK;
}

/* The source channel that destination channel c reads (p->channel_map,
 * else swap_rb's, else the same; a gray source's only one). */
static int gm__prep_channel_of(const gm_prep* p, int src_channels, int c)
{
    return p->channel_map ? p->channel_map[c] : p->swap_rb && (c == 0 || c == 2) ? 2 - c : src_channels == 1 ? 0 : c;
}

/* p's channels, arithmetic and pad for a source of src_channels into dst. */
static gm_status gm__check_prep_channels(const char* fn, int src_channels, const gm_mat* dst, const gm_prep* p)
{
    int c, k;
    if (p->swap_rb && (src_channels < 3 || dst->channels < 3))
        return gm__fail(GM_ERR_ARG, "%s: prep->swap_rb needs 3 or 4 channels, the source has %d and dst %d", fn,
                        src_channels, (int)dst->channels);
    for (c = 0; c < dst->channels; ++c) {
        k = gm__prep_channel_of(p, src_channels, c);
        if (k < 0 || k >= src_channels)
            return gm__fail(GM_ERR_ARG, "%s: destination channel %d would read source channel %d, but the source has "
                            "%d%s", fn, c, k, src_channels, p->channel_map ? " (prep->channel_map)" : "");
        if (!isfinite(p->mean[c]) || !isfinite(p->scale[c]))
            return gm__fail(GM_ERR_ARG, "%s: prep->mean[%d] %g and prep->scale[%d] %g must be finite", fn, c,
                            p->mean[c], c, p->scale[c]);
    }
    for (k = 0; k < src_channels; ++k)
        if (!isfinite(p->pad[k]))
            return gm__fail(GM_ERR_ARG, "%s: prep->pad[%d] is %g; must be finite", fn, k, p->pad[k]);
    return GM_OK;
}

/* Frame f, source `name` of fn, as a pre-process takes it beside dst. */
static gm_status gm__check_prep_frame(const char* fn, const char* name, const gm_yuv* f, const gm_mat* dst)
{
    char at[64];
    gm_status s;
    /* gm__yuv_check's messages say "frame": a batch's say which */
    if (strcmp(name, "frame"))
        snprintf(at, sizeof at, "%s: %s", fn, name);
    else
        snprintf(at, sizeof at, "%s", fn);
    if ((s = gm__yuv_check(at, f)) != GM_OK)
        return s;
    if (f->format == GM_YUV_P016)
        return gm__fail(GM_ERR_TYPE, "%s: %s is P016; the pre-process reads 8-bit frames (gm_yuv_convert takes "
                        "P016)", fn, name);
    if (f->y.batch != 1)
        return gm__fail(GM_ERR_ARG, "%s: %s is a batch of %d; single frames expected", fn, name, (int)f->y.batch);
    if ((s = gm__check_place(at, "frame->y", &f->y, "dst", dst)) != GM_OK ||
        (s = gm__check_place(at, "frame->u", &f->u, "dst", dst)) != GM_OK ||
        (gm__yuv_planar(f) && (s = gm__check_place(at, "frame->v", &f->v, "dst", dst)) != GM_OK))
        return s;
    return GM_OK;
}

/* Source `name` of fn (a frame, where frame is not NULL; src its
 * stand-in, gm__prep_source_at) beside dst and the batch's first source. */
static gm_status gm__check_prep_source(const char* fn, const char* name, const gm_mat* src, const gm_yuv* frame,
                                       const gm_mat* first, const gm_mat* dst)
{
    gm_status s;
    if (frame)
        return gm__check_prep_frame(fn, name, frame, dst);
    if ((s = gm__check(fn, name, src)) != GM_OK || (s = gm__check_place(fn, name, src, "dst", dst)) != GM_OK)
        return s;
    if (src->batch != 1)
        return gm__fail(GM_ERR_ARG, "%s: %s is a batch of %d; single images expected", fn, name, (int)src->batch);
    if (src->dtype != first->dtype || src->channels != first->channels)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d but srcs[0] is %s x%d", fn, name, gm_dtype_name(src->dtype),
                        (int)src->channels, gm_dtype_name(first->dtype), (int)first->channels);
    return GM_OK;
}

/* The crop of source `name` (NULL: the whole), inside it and placed by p
 * into dst. */
static gm_status gm__check_prep_crop(const char* fn, const char* name, const gm_mat* src, const gm_rect* crop,
                                     const gm_mat* dst, const gm_prep* p)
{
    gm_rect whole;
    whole.x = whole.y = 0, whole.width = src->width, whole.height = src->height;
    if (!crop)
        crop = &whole;
    if (crop->width < 1 || crop->height < 1 || crop->x < 0 || crop->y < 0 || crop->x > src->width - crop->width ||
        crop->y > src->height - crop->height)
        return gm__fail(GM_ERR_ARG, "%s: the crop %lldx%lld at (%lld, %lld) is not inside %s (%lldx%lld)", fn,
                        (long long)crop->width, (long long)crop->height, (long long)crop->x, (long long)crop->y, name,
                        (long long)src->width, (long long)src->height);
    return gm__check_placement(fn, name, crop, dst->width, dst->height, p);
}

/* The warp placement's matrices (count of them) and, of frames, its
 * sampler. */
static gm_status gm__check_prep_warp(const char* fn, int frames, int count, const gm_prep* p)
{
    const int n = p->perspective ? 9 : 6;
    if (frames && p->interp == GM_INTER_CUBIC)
        return gm__fail(GM_ERR_ARG, "%s: prep->interp is GM_INTER_CUBIC, which a frame's warp does not take; "
                        "GM_INTER_LINEAR or _NEAREST", fn);
    if (!p->warp)
        return gm__fail(GM_ERR_ARG, "%s: prep->warp is NULL; GM_FIT_WARP takes a matrix an item", fn);
    if (count > INT_MAX / n)
        return gm__fail(GM_ERR_SIZE, "%s: %d items, more matrices than prep->warp can hold (%d)", fn, count,
                        INT_MAX / n);
    return gm__check_values(fn, "prep->warp", p->warp, count * n);
}

/* Everything a pre-process of count sources (srcs, or frames) into dst by
 * p needs before its placements are made (gm__check_placed checks those):
 * nothing is planned or written unless every item is good. */
static gm_status gm__check_prep(const char* fn, const gm_mat* srcs, const gm_yuv* frames, const gm_rect* crops,
                                int count, const gm_mat* dst, const gm_prep* p)
{
    const char* sources = gm__prep_sources_name(fn);
    gm_mat first, src;
    char name[32];
    int i;
    gm_status s;
    if ((!srcs && !frames) || !dst || !p)
        return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, !srcs && !frames ? sources : !dst ? "dst" : "prep");
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (count < 1 || count != dst->batch)
        return gm__fail(GM_ERR_ARG, "%s: %d items but dst->batch is %d", fn, count, (int)dst->batch);
    if ((s = gm__check_arith(fn, "prep", p->divide, p->arith)) != GM_OK)
        return s;
    if (frames && p->interp == GM_INTER_AREA)
        return gm__fail(GM_ERR_ARG, "%s: prep->interp is GM_INTER_AREA, which a frame does not take; "
                        "GM_INTER_LINEAR, _NEAREST%s", fn, p->fit == GM_FIT_WARP ? "" : " or _LINEAR_EXACT");
    first = gm__prep_source_at(srcs, frames, 0);
    for (i = 0; i < count; ++i) {
        gm__prep_name(sources, i, name);
        src = gm__prep_source_at(srcs, frames, i);
        if ((s = gm__check_prep_source(fn, name, &src, frames ? &frames[i] : NULL, &first, dst)) != GM_OK)
            return s;
    }
    if (frames && gm__prep_yuv_row[dst->dtype][GM__SAMPLER_LINEAR] < 0)
        return gm__fail(GM_ERR_TYPE, "%s: dst is %s; a frame's pre-process writes u8, f16, bf16 or f32", fn,
                        gm_dtype_name(dst->dtype));
    if (gm__prep_row[first.dtype][dst->dtype][first.channels - 1][GM__SAMPLER_LINEAR] < 0)
        return gm__fail(GM_ERR_TYPE, "%s: %s x%d -> %s: the source must be u8, u16 or f32 with 1, 3 or 4 channels, "
                        "dst u8, f16, bf16 or f32", fn, gm_dtype_name(first.dtype), (int)first.channels,
                        gm_dtype_name(dst->dtype));
    if (gm__prep_kernel_of(frames != NULL, p->arith, first.dtype, dst->dtype, (int)first.channels,
                           GM__SAMPLER_LINEAR) < 0)
        return gm__fail(GM_ERR_TYPE, "%s: dst is %s; with prep->arith GM_BLOB_DOUBLE it must be f32 or f16 (OpenCV's "
                        "CV_32F blob, or that rounded)", fn, gm_dtype_name(dst->dtype));
    if ((s = gm__check_prep_channels(fn, (int)first.channels, dst, p)) != GM_OK)
        return s;
    for (i = 0; i < count; ++i) {
        gm__prep_name(sources, i, name);
        src = gm__prep_source_at(srcs, frames, i);
        if ((s = gm__check_prep_crop(fn, name, &src, crops ? &crops[i] : NULL, dst, p)) != GM_OK)
            return s;
    }
    return p->fit == GM_FIT_WARP ? gm__check_prep_warp(fn, frames != NULL, count, p) : GM_OK;
}

/* The blob with params (gpumat/ops.h) that divides or multiplies in
 * double, which the pre-process kernel computes: a source (named src_name)
 * and dst it has a row for. */
static gm_status gm__check_blob_prep(const char* fn, const char* src_name, const gm_mat* src, const gm_mat* dst,
                                     const gm_blob_params* params)
{
    if (gm__prep_kernel_of(0, params->arith, src->dtype, dst->dtype, (int)src->channels, GM__SAMPLER_NEAREST) < 0)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s, dst %s; with params->%s the source must be u8, u16 or f32, dst %s "
                        "(the float product takes any)", fn, src_name, gm_dtype_name(src->dtype),
                        gm_dtype_name(dst->dtype), params->divide ? "divide" : "arith GM_BLOB_DOUBLE",
                        params->divide ? "u8, f16, bf16 or f32" : "f32 or f16");
    return GM_OK;
}

/* The overlay's sprites. */

/* The pixels [x0, x1) x [y0, y1) of a width x height frame that a sprite
 * at (x, y) covers, 0 where it covers none (the sums cannot overflow: x <
 * width first); the CPU and the GPU path draw these alone. */
static int gm__sprite_clip(int64_t width, int64_t height, const gm_sprite* s, int64_t r[4])
{
    if (s->x >= width || s->y >= height || s->x <= -s->image.width || s->y <= -s->image.height)
        return 0;
    r[0] = s->x < 0 ? 0 : s->x;
    r[1] = s->y < 0 ? 0 : s->y;
    r[2] = s->x + s->image.width < width ? s->x + s->image.width : width;
    r[3] = s->y + s->image.height < height ? s->y + s->image.height : height;
    return 1;
}

/* Bytes of a sprite's pixel. */
static int gm__sprite_bytes(const gm_sprite* s) { return s->kind == GM_SPRITE_MASK ? 1 : 4; }

/* Sprite i of a draw onto the frame of planes[0 .. nplanes) (one memory);
 * name: its image in messages. */
static gm_status gm__sprite_check(const char* fn, int i, const char* name, const gm_mat* planes, int nplanes,
                                  const gm_sprite* sp)
{
    const gm_mat* frame = &planes[0];
    int k;
    gm_status s;
    if ((int)sp->kind < GM_SPRITE_RGBA || (int)sp->kind > GM_SPRITE_MASK)
        return gm__fail(GM_ERR_ARG, "%s: sprites[%d].kind %d is not a gm_sprite_kind", fn, i, (int)sp->kind);
    if ((s = gm__check(fn, name, &sp->image)) != GM_OK)
        return s;
    if (sp->image.dtype != GM_U8 || sp->image.channels != gm__sprite_bytes(sp) || sp->image.batch != 1)
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d, batch %d; one u8 x%d image expected for its kind", fn, name,
                        gm_dtype_name(sp->image.dtype), (int)sp->image.channels, (int)sp->image.batch,
                        gm__sprite_bytes(sp));
    if (gm__on_host(frame) && !gm__on_host(&sp->image))
        return gm__fail(GM_ERR_LOCATION, "%s: %s is device memory but frame is host memory", fn, name);
    if (!gm__on_host(&sp->image) && sp->image.device != frame->device)
        return gm__fail(GM_ERR_LOCATION, "%s: %s is on device %d, frame on device %d", fn, name,
                        (int)sp->image.device, (int)frame->device);
    for (k = 0; k < nplanes; ++k)
        if (gm__overlap(&sp->image, &planes[k]))
            return gm__fail(GM_ERR_OVERLAP, "%s: %s and frame overlap", fn, name);
    return GM_OK;
}

/* What every draw needs of its sprites, onto the frame of planes[0 ..
 * nplanes) (checked; the first of its size in pixels): batch is the
 * frame's batch, named so in messages. */
static gm_status gm__overlay_check(const char* fn, const char* batch, const gm_mat* planes, int nplanes,
                                   const gm_sprite* sprites, int count)
{
    char name[48];
    int i;
    if (planes[0].batch != 1)
        return gm__fail(GM_ERR_ARG, "%s: %s is %d; one image expected (gm_item takes one)", fn, batch,
                        (int)planes[0].batch);
    if (planes[0].width > INT_MAX - GM__OVERLAY_TILE_W || planes[0].height > INT_MAX - GM__OVERLAY_TILE_H)
        return gm__fail(GM_ERR_SIZE, "%s: frame is %lldx%lld; at most 2^31 - 65 pixels wide, 2^31 - 9 high", fn,
                        (long long)planes[0].width, (long long)planes[0].height);
    if (count < 0 || (count > 0 && !sprites))
        return gm__fail(GM_ERR_ARG, count < 0 ? "%s: count %d is negative" : "%s: sprites is NULL (count %d)", fn,
                        count);
    /* a sprite's name is formatted only where it fails (as gm__check's) */
    for (i = 0; i < count; ++i)
        if (gm__sprite_check(fn, i, "sprite", planes, nplanes, &sprites[i]) != GM_OK) {
            snprintf(name, sizeof name, "sprites[%d].image", i);
            return gm__sprite_check(fn, i, name, planes, nplanes, &sprites[i]);
        }
    return GM_OK;
}

/* gm_overlay_draw's overlay, frame (u8 x3 or x4 interleaved) and sprites. */
static gm_status gm__check_overlay_draw(const char* fn, const gm_overlay* overlay, const gm_mat* frame,
                                        const gm_sprite* sprites, int count)
{
    gm_status s;
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "%s: overlay is NULL", fn);
    if ((s = gm__check(fn, "frame", frame)) != GM_OK)
        return s;
    if (frame->dtype != GM_U8 || (frame->channels != 3 && frame->channels != 4) || frame->layout != GM_HWC)
        return gm__fail(GM_ERR_TYPE, "%s: frame is %s x%d %s; u8 x3 or x4 interleaved (BGR, RGB, BGRA, RGBA) expected",
                        fn, gm_dtype_name(frame->dtype), (int)frame->channels, gm__layout_name(frame));
    return gm__overlay_check(fn, "frame->batch", frame, 1, sprites, count);
}

/* gm_overlay_draw_yuv's overlay, 8-bit 4:2:0 frame and sprites. */
static gm_status gm__check_overlay_draw_yuv(const char* fn, const gm_overlay* overlay, const gm_yuv* frame,
                                            const gm_sprite* sprites, int count)
{
    gm_mat planes[3];
    gm_status s;
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "%s: overlay is NULL", fn);
    if ((s = gm__yuv_check(fn, frame)) != GM_OK)
        return s;
    if (frame->format == GM_YUV_P016)
        return gm__fail(GM_ERR_TYPE, "%s: frame->format is P016; the overlay draws on 8-bit frames (NV12, NV21, "
                        "I420, YV12)", fn);
    planes[0] = frame->y, planes[1] = frame->u, planes[2] = frame->v;
    return gm__overlay_check(fn, "frame->y.batch", planes, gm__yuv_planar(frame) ? 3 : 2, sprites, count);
}

/* gm_add_weighted's images. */

/* Whether a and b are one view: the same memory in the same shape. */
static int gm__same_view(const gm_mat* a, const gm_mat* b)
{
    return a->data == b->data && a->pitch == b->pitch && a->batch_pitch == b->batch_pitch &&
           (a->layout == GM_HWC || a->channels == 1 || a->plane_pitch == b->plane_pitch);
}

static gm_status gm__blend_check(const char* fn, const gm_mat* src1, const gm_mat* src2, const gm_mat* dst)
{
    const gm_mat* m[3];
    const char* names[3] = {"src1", "src2", "dst"};
    gm_status s;
    int k;
    m[0] = src1, m[1] = src2, m[2] = dst;
    for (k = 0; k < 3; ++k) {
        if ((s = gm__check(fn, names[k], m[k])) != GM_OK)
            return s;
        if (m[k]->dtype != GM_U8)
            return gm__fail(GM_ERR_TYPE, "%s: %s is %s; u8 expected", fn, names[k], gm_dtype_name(m[k]->dtype));
    }
    for (k = 0; k < 2; ++k) {
        if ((s = gm__check_size(fn, names[k], m[k], "dst", dst)) != GM_OK)
            return s;
        if (m[k]->channels != dst->channels || (dst->channels > 1 && m[k]->layout != dst->layout))
            return gm__fail(GM_ERR_TYPE, "%s: %s is x%d %s but dst is x%d %s", fn, names[k], (int)m[k]->channels,
                            gm__layout_name(m[k]), (int)dst->channels, gm__layout_name(dst));
        /* dst may be the source itself, in the same place; the sources may
         * overlap each other */
        if ((gm__on_host(m[k]) != gm__on_host(dst) || (!gm__on_host(dst) && m[k]->device != dst->device) ||
             !gm__same_view(m[k], dst)) &&
            (s = gm__check_place(fn, names[k], m[k], "dst", dst)) != GM_OK)
            return s;
    }
    return GM_OK;
}

/* Memory and copies (gpumat/mem.h). */

static gm_status gm__check_where(const char* fn, gm_where where, int allow_auto)
{
    if (where == GM_HOST || where == GM_PINNED || where == GM_DEVICE || (allow_auto && where == GM_AUTO))
        return GM_OK;
    return gm__fail(GM_ERR_ARG, "%s: where %d is not GM_HOST, GM_PINNED, GM_DEVICE%s", fn, (int)where,
                    allow_auto ? " or GM_AUTO" : " (GM_AUTO is for allocation only)");
}

/* What gm_copy asks of a pair before it copies. */
static gm_status gm__copy_check(const char* fn, const char* src_name, const gm_mat* src, const char* dst_name,
                                const gm_mat* dst)
{
    gm_status s;
    if ((s = gm__check(fn, src_name, src)) != GM_OK || (s = gm__check(fn, dst_name, dst)) != GM_OK)
        return s;
    if ((s = gm__check_size(fn, src_name, src, dst_name, dst)) != GM_OK)
        return s;
    if (src->dtype != dst->dtype || src->channels != dst->channels ||
        (src->layout != dst->layout && src->channels > 1))
        return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d %s, %s is %s x%d %s (use gm_transform to change)", fn,
                        src_name, gm_dtype_name(src->dtype), (int)src->channels,
                        src->layout == GM_HWC ? "HWC" : "CHW", dst_name, gm_dtype_name(dst->dtype),
                        (int)dst->channels, dst->layout == GM_HWC ? "HWC" : "CHW");
    return GM_OK;
}

/* Pair i of gm_copy_many, named src[i] and dst[i] in messages where it
 * fails (formatted then alone, as gm__check's names). */
static gm_status gm__copy_many_check(const char* fn, const gm_mat* src, const gm_mat* dst, int i)
{
    char sn[32], dn[32];
    if (gm__copy_check(fn, "src", &src[i], "dst", &dst[i]) == GM_OK)
        return GM_OK;
    snprintf(sn, sizeof sn, "src[%d]", i);
    snprintf(dn, sizeof dn, "dst[%d]", i);
    return gm__copy_check(fn, sn, &src[i], dn, &dst[i]);
}

/* How the allocating and wrapping functions got their image's description:
 * a gm_desc (zero fields mean defaults, messages say desc->width) or plain
 * parameters (zero is zero, messages say width). */
typedef enum gm__given { GM__GIVEN_DESC, GM__GIVEN_PARAMS } gm__given;

/* Fills the defaults of d into m (without data); row_align for pitch 0. */
static gm_status gm__from_desc(const char* fn, gm_mat* m, const gm_desc* d, gm__given given, gm_where where,
                               int64_t row_align)
{
    const char* pre = given == GM__GIVEN_DESC ? "desc->" : "";
    const char* arg = given == GM__GIVEN_DESC ? "desc" : "the image";
    int defaults = given == GM__GIVEN_DESC;
    gm_mat t;
    int64_t row;
    gm_status s;
    if (!m)
        return gm__fail(GM_ERR_ARG, "%s: m is NULL", fn);
    memset(m, 0, sizeof *m);
    if (!d)
        return gm__fail(GM_ERR_ARG, "%s: desc is NULL", fn);
    memset(&t, 0, sizeof t);
    t.width = d->width;
    t.height = d->height;
    t.channels = d->channels || !defaults ? d->channels : 1;
    t.batch = d->batch || !defaults ? d->batch : 1;
    t.dtype = d->dtype;
    t.layout = d->layout;
    t.where = where;
    if ((s = gm__check_fields(fn, arg, pre, &t)) != GM_OK)
        return s;
    if (d->width > INT32_MAX || d->height > INT32_MAX)
        return gm__fail(GM_ERR_SIZE, "%s: %swidth %lld and %sheight %lld must be below 2^31", fn, pre,
                        (long long)d->width, pre, (long long)d->height);
    if (!gm__mul(t.width, gm__xstride(&t), &row) || row > INT64_MAX / 2)
        return gm__fail(GM_ERR_SIZE, "%s: a row of %swidth %lld overflows", fn, pre, (long long)t.width);
    if (d->pitch < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %spitch %lld is negative", fn, pre, (long long)d->pitch);
    t.pitch = d->pitch ? d->pitch : (row + row_align - 1) / row_align * row_align;
    if (!gm__mul(t.pitch, t.height, &t.plane_pitch))
        return gm__fail(GM_ERR_SIZE, "%s: %lld rows of %spitch %lld bytes overflow", fn, (long long)t.height, pre,
                        (long long)t.pitch);
    if (d->plane_pitch)
        t.plane_pitch = d->plane_pitch;
    if (t.layout != GM_CHW)
        t.plane_pitch = 0;
    if (!gm__mul(t.layout == GM_CHW ? t.plane_pitch : t.pitch, t.layout == GM_CHW ? t.channels : t.height,
                 &t.batch_pitch))
        return gm__fail(GM_ERR_SIZE, "%s: %s overflows 64-bit sizes", fn, arg);
    if (d->batch_pitch)
        t.batch_pitch = d->batch_pitch;
    if ((s = gm__check_layout(fn, arg, pre, &t)) != GM_OK)
        return s;
    *m = t;
    return GM_OK;
}

/* For a checked GM_DEVICE descriptor: asks the driver whether m->data is
 * device memory (GM_ERR_LOCATION if not) and whether every byte m spans lies
 * inside that allocation (GM_ERR_SIZE if not); sets m->device. */
static gm_status gm__check_device_memory(const char* fn, const char* arg, gm_mat* m)
{
    unsigned int type = 0;
    int ordinal = 0, rc;
    gm__CUdeviceptr start = 0;
    size_t size = 0;
    uintptr_t p = (uintptr_t)m->data;
    gm_status s = gm__driver_ready(fn);
    if (s != GM_OK)
        return s;
    rc = gm__cu.cuPointerGetAttribute(&type, GM__CU_POINTER_MEMORY_TYPE, (gm__CUdeviceptr)p);
    if (rc != 0 || type != GM__CU_MEMORYTYPE_DEVICE)
        return gm__fail(GM_ERR_LOCATION, "%s: %s %p is not device memory", fn, arg, m->data);
    gm__cu.cuPointerGetAttribute(&ordinal, GM__CU_POINTER_DEVICE_ORDINAL, (gm__CUdeviceptr)p);
    m->device = ordinal;
    if (gm__cu.cuPointerGetAttribute(&start, GM__CU_POINTER_RANGE_START, (gm__CUdeviceptr)p) == 0 &&
        gm__cu.cuPointerGetAttribute(&size, GM__CU_POINTER_RANGE_SIZE, (gm__CUdeviceptr)p) == 0 &&
        (uint64_t)gm__span(m) > (uint64_t)(start + size - p))
        return gm__fail(GM_ERR_SIZE, "%s: %s spans %lld bytes but its allocation has %lld from there", fn, arg,
                        (long long)gm__span(m), (long long)(start + size - p));
    return GM_OK;
}

/* What every view function (gm_roi, gm_plane, gm_item) needs. */
static gm_status gm__view_of(const char* fn, const gm_mat* m, const gm_mat* view)
{
    gm_status s = gm__check(fn, "m", m);
    if (s != GM_OK)
        return s;
    if (!view)
        return gm__fail(GM_ERR_ARG, "%s: view is NULL", fn);
    return GM_OK;
}

/* gm_roi's rectangle of m. */
static gm_status gm__check_roi(const char* fn, const gm_mat* m, const gm_mat* view, int64_t x, int64_t y,
                               int64_t width, int64_t height)
{
    gm_status s = gm__view_of(fn, m, view);
    if (s != GM_OK)
        return s;
    if (width <= 0 || height <= 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s %lld is not positive", fn, width <= 0 ? "width" : "height",
                        (long long)(width <= 0 ? width : height));
    if (x < 0 || y < 0)
        return gm__fail(GM_ERR_SIZE, "%s: %s %lld is negative", fn, x < 0 ? "x" : "y", (long long)(x < 0 ? x : y));
    if (x > m->width - width || y > m->height - height)
        return gm__fail(GM_ERR_SIZE, "%s: the rectangle x %lld, y %lld, width %lld, height %lld is not inside m (%lldx%lld)",
                        fn, (long long)x, (long long)y, (long long)width, (long long)height, (long long)m->width,
                        (long long)m->height);
    return GM_OK;
}

/* gm_plane's channel of m. */
static gm_status gm__check_plane(const char* fn, const gm_mat* m, const gm_mat* view, int channel)
{
    gm_status s = gm__view_of(fn, m, view);
    if (s != GM_OK)
        return s;
    if (m->layout != GM_CHW && m->channels > 1)
        return gm__fail(GM_ERR_TYPE, "%s: m is interleaved; only a planar image has planes", fn);
    if (channel < 0 || channel >= m->channels)
        return gm__fail(GM_ERR_ARG, "%s: channel %d is outside 0..%d", fn, channel, (int)m->channels - 1);
    return GM_OK;
}

/* gm_item's image of m. */
static gm_status gm__check_item(const char* fn, const gm_mat* m, const gm_mat* view, int index)
{
    gm_status s = gm__view_of(fn, m, view);
    if (s != GM_OK)
        return s;
    if (index < 0 || index >= m->batch)
        return gm__fail(GM_ERR_ARG, "%s: index %d is outside 0..%d", fn, index, (int)m->batch - 1);
    return GM_OK;
}

/* A copy's checked pair (named as gm__copy_check): no shared byte where
 * both are on one side. */
static gm_status gm__check_copy_apart(const char* fn, const char* src_name, const gm_mat* src, const char* dst_name,
                                      const gm_mat* dst)
{
    if (gm__on_host(src) == gm__on_host(dst) && gm__overlap(src, dst))
        return gm__fail(GM_ERR_OVERLAP, "%s: %s and %s overlap", fn, src_name, dst_name);
    return GM_OK;
}

/* Whether a and b are in the same memory (the host, or one device) and
 * share a byte. */
static int gm__overlap_in_place(const gm_mat* a, const gm_mat* b)
{
    return gm__on_host(a) == gm__on_host(b) && (gm__on_host(a) || a->device == b->device) && gm__overlap(a, b);
}

/* gm_copy_many's count pairs: each as gm_copy's, their device pairs on one
 * device (*device, -1 where every pair is on the host), no destination
 * sharing a byte with another pair's source or destination. */
static gm_status gm__check_copies(const char* fn, const gm_mat* src, const gm_mat* dst, int count, int* device)
{
    int i, j;
    gm_status s;
    *device = -1;
    if (count < 0 || (count > 0 && (!src || !dst)))
        return gm__fail(GM_ERR_ARG, count < 0 ? "%s: count %d is negative" : "%s: src or dst is NULL (count %d)", fn,
                        count);
    for (i = 0; i < count; ++i) {
        const gm_mat* d = gm__on_host(&src[i]) ? &dst[i] : &src[i];
        if ((s = gm__copy_many_check(fn, src, dst, i)) != GM_OK)
            return s;
        if (!gm__on_host(d) && *device >= 0 && d->device != *device)
            return gm__fail(GM_ERR_LOCATION, "%s: pair %d is on device %d, an earlier pair on device %d (one device "
                            "a call)", fn, i, (int)d->device, *device);
        if (!gm__on_host(d))
            *device = (int)d->device;
    }
    /* the pairs run in no given order among themselves */
    for (i = 0; i < count; ++i)
        for (j = 0; j < count; ++j) {
            if (gm__overlap_in_place(&dst[i], &src[j]))
                return gm__fail(GM_ERR_OVERLAP, "%s: dst[%d] and src[%d] overlap", fn, i, j);
            if (j < i && gm__overlap_in_place(&dst[i], &dst[j]))
                return gm__fail(GM_ERR_OVERLAP, "%s: dst[%d] and dst[%d] overlap", fn, i, j);
        }
    return GM_OK;
}

/* A host descriptor laid out like m (checked) at host: rows host_pitch apart
 * (0: compact), planes and images packed. Messages name host and host_pitch. */
static gm_status gm__host_like(const char* fn, const gm_mat* m, const void* host, int64_t host_pitch, gm_mat* out)
{
    int64_t row = gm__row_bytes(m), es = (int64_t)gm_dtype_size(m->dtype);
    gm_mat t;
    if (!host)
        return gm__fail(GM_ERR_ARG, "%s: host is NULL", fn);
    if (host_pitch < 0)
        return gm__fail(GM_ERR_SIZE, "%s: host_pitch %lld is negative", fn, (long long)host_pitch);
    if (host_pitch && host_pitch < row)
        return gm__fail(GM_ERR_SIZE, "%s: host_pitch %lld is less than a row (%lld bytes)", fn, (long long)host_pitch,
                        (long long)row);
    if (host_pitch % es)
        return gm__fail(GM_ERR_SIZE, "%s: host_pitch %lld is not a multiple of the %lld-byte %s element", fn,
                        (long long)host_pitch, (long long)es, gm_dtype_name(m->dtype));
    t = *m;
    t.data = (void*)(uintptr_t)host;
    t.where = GM_HOST;
    t.device = 0;
    t.owned = NULL;
    t.pitch = host_pitch ? host_pitch : row;
    if (!gm__mul(t.pitch, t.height, &t.plane_pitch) ||
        !gm__mul(t.layout == GM_CHW ? t.plane_pitch : t.pitch, t.layout == GM_CHW ? t.channels : t.height,
                 &t.batch_pitch))
        return gm__fail(GM_ERR_SIZE, "%s: host: %lld rows of host_pitch %lld bytes overflow 64-bit sizes", fn,
                        (long long)t.height, (long long)t.pitch);
    if (t.layout != GM_CHW)
        t.plane_pitch = 0;
    *out = t;
    return gm__check(fn, "host", out);
}

/* Warp matrices (gpumat/warp.h). */

static gm_status gm__check_rotation(const char* fn, float center_x, float center_y, double angle, double scale,
                                    const double* M)
{
    const double v[4] = {center_x, center_y, angle, scale};
    static const char* const names[4] = {"center_x", "center_y", "angle", "scale"};
    const int i = gm__nonfinite_at(v, 4);
    if (!M)
        return gm__fail(GM_ERR_ARG, "%s: M is NULL", fn);
    if (i >= 0)
        return gm__fail(GM_ERR_ARG, "%s: %s is %g, not finite", fn, names[i], v[i]);
    return GM_OK;
}

/* count (x, y) points at src and dst (single precision), M the result. */
static gm_status gm__check_warp_points(const char* fn, const float* src, const float* dst, int count, const double* M)
{
    const float* p[2];
    static const char* const names[2] = {"src", "dst"};
    int k, i;
    p[0] = src, p[1] = dst;
    for (k = 0; k < 2; ++k) {
        if (!p[k])
            return gm__fail(GM_ERR_ARG, "%s: %s is NULL", fn, names[k]);
        for (i = 0; i < 2 * count; ++i)
            if (!isfinite(p[k][i]))
                return gm__fail(GM_ERR_ARG, "%s: %s[%d] is %g, not finite", fn, names[k], i, (double)p[k][i]);
    }
    return M ? GM_OK : gm__fail(GM_ERR_ARG, "%s: M is NULL", fn);
}

static gm_status gm__check_affine(const char* fn, const double* M, const double* inverse)
{
    const gm_status s = gm__check_values(fn, "M", M, 6);
    return s != GM_OK || inverse ? s : gm__fail(GM_ERR_ARG, "%s: inverse is NULL", fn);
}

static gm_status gm__check_similarity(const char* fn, const double* src, const double* dst, int count, const double* M)
{
    gm_status s;
    if (count < 2)
        return gm__fail(GM_ERR_ARG, "%s: count %d is less than 2 points", fn, count);
    if ((s = gm__check_values(fn, "src", src, 2 * count)) != GM_OK ||
        (s = gm__check_values(fn, "dst", dst, 2 * count)) != GM_OK)
        return s;
    return M ? GM_OK : gm__fail(GM_ERR_ARG, "%s: M is NULL", fn);
}

/* A warp of src into dst by M (n doubles a matrix: 6 or 9) and params
 * (NULL: the defaults, into *p either way). */
static gm_status gm__check_warp(const char* fn, const gm_mat* src, const gm_mat* dst, const double* M, int n,
                                const gm_warp_params* params, gm_warp_params* p)
{
    gm_status s;
    if ((s = gm__check(fn, "src", src)) != GM_OK || (s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (params)
        *p = *params;
    else
        memset(p, 0, sizeof *p);
    if ((s = gm__check_warp_sampling(fn, "params->", p->interp, p->border)) != GM_OK)
        return s;
    if ((unsigned)p->mode > GM_WARP_OPENCV5)
        return gm__fail(GM_ERR_ARG, "%s: params->mode %d is not a gm_warp_mode (GM_WARP_OPENCV4 or _OPENCV5)", fn,
                        (int)p->mode);
    if (p->mode == GM_WARP_OPENCV5 && p->interp == GM_INTER_CUBIC)
        return gm__fail(GM_ERR_ARG, "%s: params->interp is GM_INTER_CUBIC, which GM_WARP_OPENCV5 does not "
                        "reproduce (OpenCV 5.0's cubic warp; gpumat/warp.h)", fn);
    if (src->dtype != dst->dtype || src->channels != dst->channels) {
        char from_text[32], to_text[32];
        return gm__fail(GM_ERR_TYPE, "%s: src is %s but dst is %s; a warp keeps the dtype and channels", fn,
                        gm__type_text(from_text, sizeof from_text, src->dtype, src->channels, src->layout),
                        gm__type_text(to_text, sizeof to_text, dst->dtype, dst->channels, dst->layout));
    }
    if (src->batch != dst->batch && src->batch != 1)
        return gm__fail(GM_ERR_SIZE, "%s: src is a batch of %d but dst of %d (src must be one image or as many)", fn,
                        (int)src->batch, (int)dst->batch);
    if (src->width >= 32767 || src->height >= 32767) /* OpenCV's source positions are shorts */
        return gm__fail(GM_ERR_SIZE, "%s: src is %lldx%lld; a warp's source is below 32767 pixels each way", fn,
                        (long long)src->width, (long long)src->height);
    if (p->per_item && dst->batch > INT_MAX / n)
        return gm__fail(GM_ERR_SIZE, "%s: dst is a batch of %d, more matrices than M can hold (%d)", fn,
                        (int)dst->batch, INT_MAX / n);
    if ((s = gm__check_values(fn, "M", M, n * (p->per_item ? (int)dst->batch : 1))) != GM_OK)
        return s;
    return gm__check_place(fn, "src", src, "dst", dst);
}
