/* SPDX-License-Identifier: MIT */
/* Implementation: whether two descriptors share a byte, exactly, without
 * allocating: what keeps every operation from reading what it writes. */

#include <stdint.h>

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
