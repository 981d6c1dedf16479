/* SPDX-License-Identifier: MIT */
/* Implementation: a plan on the CPU. A transform's rows are cut into
 * blocks of GM__CPU_PIXELS pixels; in a block, each source channel becomes
 * a contiguous run (where it is not one already), each destination channel
 * is converted from its source channel's run, and interleaved destination
 * channels are put together (impl/cpu.h's loops); large destinations are
 * written past the caches. Resize and the pre-process sample along rows
 * (gm__cpu_rows), every sampler; the kernels' per-pixel loops run only
 * where memory runs short. The blocks or rows are shared out among the
 * pool's threads (pool.h). */

/* Pixels a block: a block's staged runs (4 channels of 8 bytes each way,
 * 16 KB) stay in the first-level cache. A transform that stages nothing
 * (every run contiguous in place) takes blocks GM__CPU_DIRECT times as
 * long, since each block costs a call per channel. */
#define GM__CPU_PIXELS 256
#define GM__CPU_DIRECT 16

/* A transform on the CPU: its arguments, source and destination dtypes and
 * channels, the channels' arithmetic, its loops and blocks a row. */
typedef struct gm__cpu_job {
    const gm__xform_args* a;
    int es, ed, cs, cd, unzip, zip;
    int moves; /* unzip or zip straight between source and destination: every channel copied as it is */
    int stream; /* the destination written past the caches */
    int shuffle; /* each pixel's bytes reordered, by gm__cpu_shuffle_avx2's mask, step bytes a shuffle */
    unsigned char mask[16];
    int step;
    unsigned long long first; /* the source's first channel in memory */
    long long pixels; /* a block */
    gm__cpu_chan chan[4];
    gm__cpu_convert_fn convert;
    gm__cpu_unzip_fn unzipper;
    gm__cpu_zip_fn zipper;
    gm__cpu_stream_fn streamer;
    long long blocks;
} gm__cpu_job;

/* Whether a side's `channels` channels (addresses base[c], pixels xstride
 * apart) interleave: a pixel's channels adjacent, e bytes each. */
static int gm__cpu_interleaved(const unsigned long long* base, int channels, long long xstride, int e)
{
    int c;
    if (channels < 2 || xstride != (long long)channels * e)
        return 0;
    for (c = 1; c < channels; ++c)
        if (base[c] != base[0] + (unsigned long long)(c * e))
            return 0;
    return 1;
}

/* Whether the transform J of a (gm__cpu_xform's, its chan, zip and moves
 * set) only reorders the channels within each pixel, on a CPU with AVX2:
 * one dtype, every channel plain and read from a channel, both sides
 * packed interleaved pixels of P bytes (16 at most), the source's channels
 * those of its pixel in some order. Then J's mask and step. OpenCV's
 * cvtColor swaps shuffle in registers too, faster than unzipping and
 * zipping again (bench/RESULTS.md). */
static int gm__cpu_shuffles(gm__cpu_job* J, const gm__xform_args* a, int S, int D, int isa)
{
    const int P = J->cs * J->es;
    unsigned long long base = a->src.chan[0];
    unsigned seen = 0;
    int c, j;
    if (isa != 1 || S != D || J->cs != J->cd || !J->zip || J->moves || P > 16 || a->src.xstride != P)
        return 0;
    for (c = 1; c < J->cs; ++c)
        base = a->src.chan[c] < base ? a->src.chan[c] : base;
    for (c = 0; c < J->cs; ++c) {
        const unsigned long long at = a->src.chan[c] - base;
        if (at % (unsigned)J->es || at >= (unsigned)P || (seen >> at / J->es & 1) || J->chan[c].kind != GM__PLAIN ||
            a->map[c] < 0)
            return 0;
        seen |= 1u << at / J->es;
    }
    J->first = base, J->step = 16 / P * P;
    for (j = 0; j < 16; ++j)
        J->mask[j] = j < J->step ? (unsigned char)(j / P * P + (a->src.chan[a->map[j % P / J->es]] - base) + j % J->es)
                                 : 0x80;
    return 1;
}

/* n elements of e bytes, step bytes apart from s, to contiguous d; and back. */
static void gm__cpu_gather(const unsigned char* s, long long step, unsigned char* d, int e, long long n)
{
    long long i;
    for (i = 0; i < n; ++i)
        memcpy(d + i * e, s + i * step, (size_t)e);
}

static void gm__cpu_scatter(const unsigned char* s, unsigned char* d, long long step, int e, long long n)
{
    long long i;
    for (i = 0; i < n; ++i)
        memcpy(d + i * step, s + i * e, (size_t)e);
}

/* Blocks [begin, end) of a transform: block u is the u % blocks-th of row
 * u / blocks (rows numbered over the batch). */
static void gm__cpu_xform_part(void* p, long long begin, long long end)
{
    const gm__cpu_job* J = (const gm__cpu_job*)p;
    const gm__xform_args* a = J->a;
    /* 8 bytes an element at most */
    unsigned long long in_buf[4][GM__CPU_PIXELS] GM__CPU_LINE_ALIGNED, out_buf[4][GM__CPU_PIXELS] GM__CPU_LINE_ALIGNED;
    const long long pixels = J->pixels;
    unsigned char *in[4], *out[4];
    long long u;
    int c;
    for (u = begin; u < end; ++u) {
        long long row = u / J->blocks, x0 = u % J->blocks * pixels, b = row / a->height, y = row % a->height;
        long long n = a->width - x0 < pixels ? a->width - x0 : pixels;
        long long so = b * a->src.bstride + y * a->src.pitch + x0 * a->src.xstride;
        long long dof = b * a->dst.bstride + y * a->dst.pitch + x0 * a->dst.xstride;
        for (c = 0; c < 4; ++c)
            in[c] = (unsigned char*)in_buf[c], out[c] = (unsigned char*)out_buf[c];
#ifdef GM__CPU_AVX2
        if (J->shuffle) {
            const unsigned char* s = (const unsigned char*)(uintptr_t)(J->first + so);
            unsigned char* d = (unsigned char*)(uintptr_t)(a->dst.chan[0] + dof);
            gm__cpu_shuffle_avx2(s, d, n * a->src.xstride, J->mask, J->step, (int)a->src.xstride);
            continue;
        }
#endif
        if (J->moves) {
            for (c = 0; c < J->cd; ++c) {
                in[c] = (unsigned char*)(uintptr_t)(a->src.chan[c] + so);
                out[c] = (unsigned char*)(uintptr_t)(a->dst.chan[c] + dof);
            }
            if (J->unzip)
                J->unzipper(in[0], out[0], out[1], out[2], out[3], n, J->stream);
            else
                J->zipper(in[0], in[1], in[2], in[3], out[0], n, J->stream);
            continue;
        }
        if (J->unzip) {
            J->unzipper((const unsigned char*)(uintptr_t)(a->src.chan[0] + so), in[0], in[1], in[2], in[3], n, 0);
        } else {
            for (c = 0; c < J->cs; ++c) {
                const unsigned char* s = (const unsigned char*)(uintptr_t)(a->src.chan[c] + so);
                if (a->src.xstride == J->es)
                    in[c] = (unsigned char*)s; /* read only */
                else
                    gm__cpu_gather(s, a->src.xstride, in[c], J->es, n);
            }
        }
        for (c = 0; c < J->cd; ++c) {
            unsigned char* d = (unsigned char*)(uintptr_t)(a->dst.chan[c] + dof);
            int direct = !J->zip && a->dst.xstride == J->ed;
            if (direct && !J->stream)
                out[c] = d;
            J->convert(in[a->map[c] < 0 ? 0 : a->map[c]], out[c], n, &J->chan[c]);
            if (direct && J->stream)
                J->streamer(d, out[c], n * J->ed);
            else if (!J->zip && !direct)
                gm__cpu_scatter(out[c], d, a->dst.xstride, J->ed, n);
        }
        if (J->zip)
            J->zipper(out[0], out[1], out[2], out[3], (unsigned char*)(uintptr_t)(a->dst.chan[0] + dof), n, J->stream);
    }
    if (J->stream)
        gm__cpu_fence();
}

/* Transform a (gm__xform_args of the generic kernel) of S with cs source
 * channels to D on the CPU. */
static void gm__cpu_xform(const gm__xform_args* a, int S, int D, int cs, int cd)
{
    gm__cpu_job J;
    int isa = gm__cpu_isa(), c, finite = gm__finite_params(a, cd);
    long long rows = a->batch * a->height, bytes;
    memset(&J, 0, sizeof J);
    J.a = a;
    J.es = gm__dtype_sizes[S], J.ed = gm__dtype_sizes[D], J.cs = cs, J.cd = cd;
    J.unzip = gm__cpu_interleaved(a->src.chan, cs, a->src.xstride, J.es);
    J.zip = gm__cpu_interleaved(a->dst.chan, cd, a->dst.xstride, J.ed);
    J.convert = gm__cpu_converts[S][D][isa];
    J.unzipper = J.unzip ? gm__cpu_unzips[J.es][cs - 2][isa] : NULL;
    J.zipper = J.zip ? gm__cpu_zips[J.ed][cd - 2][isa] : NULL;
    for (c = 0; c < cd; ++c) {
        gm__cpu_chan* k = &J.chan[c];
        k->pre = a->pre[c], k->scale = a->scale[c], k->offset = a->offset[c];
        k->fpre = (float)k->pre, k->fscale = (float)k->scale, k->foffset = (float)k->offset;
        k->kind = a->map[c] < 0 ? GM__CPU_CONST : gm__is_plain(0, k->pre, k->scale, k->offset) ? GM__PLAIN : GM__SCALED;
    }
    J.moves = S == D && cs == cd && (J.unzip ? a->dst.xstride == J.ed : J.zip && a->src.xstride == J.es);
    for (c = 0; c < cd; ++c) {
        J.chan[c].number = finite;
        J.moves &= a->map[c] == c && J.chan[c].kind == GM__PLAIN;
    }
    J.stream = GM__CPU_NT && (J.zip || a->dst.xstride == J.ed) &&
               rows * a->width * cd * J.ed >= (J.moves ? gm__tune.cpu_stream_bytes / 16 : gm__tune.cpu_stream_bytes);
    J.streamer = gm__cpu_streams[isa];
    if ((J.shuffle = gm__cpu_shuffles(&J, a, S, D, isa)))
        J.stream = 0; /* staged to stream, BGR swaps took longer (bench/RESULTS.md) */
    J.pixels = GM__CPU_PIXELS;
    if (J.moves || J.shuffle ||
        (!J.stream && !J.unzip && !J.zip && a->src.xstride == J.es && a->dst.xstride == J.ed))
        J.pixels *= GM__CPU_DIRECT;
    J.blocks = (a->width + J.pixels - 1) / J.pixels;
    bytes = J.pixels * (long long)(cs * J.es + cd * J.ed);
    if (rows > 0 && J.blocks > 0)
        gm__parallel(gm__cpu_xform_part, &J, rows * J.blocks, gm__tune.cpu_part_bytes / bytes + 1);
}

/* A resize's rows on the CPU, every sampler as OpenCV runs it. Linear (and
 * LINEAR_EXACT, gm__cpu_exact_h and _v): each source row's pass along the
 * row (gm__cpu_linear_h) computed once, into one of two row buffers, for
 * every destination row that reads it; two such rows combined down the
 * columns (gm__cpu_linear_v). Nearest: each element copied from its tap.
 * A destination element's taps are found once (resize.inc's gm__taps_x).
 * Whole-factor area: u8 2x2 cells with AVX2 by gm__cpu_quad_avx2, other
 * cells that sum exactly in int added down the columns into planes, then
 * along them (gm__cpu_area_down, _across); else each tap in turn
 * (gm__cpu_area_fast_row). General area: each source row weighted along
 * it, then added down the columns (gm__cpu_area_row). */
typedef struct gm__cpu_rows {
    const gm__resize_args* a;
    int S, I, C, isa, quad;     /* quad: area cells of OpenCV's integer 2x2 mean */
    long long n, edge, held[2]; /* held: the source rows (byte offsets) in h */
    long long *o0, *o1, *q;     /* q: LINEAR_EXACT's weights */
    gm__cpu_lin_w* w;
    unsigned char* h[2];
    int* plane;       /* whole-factor area: C planes of m sums, `cells` whole cells and a cut one `last` wide */
    long long m, cells, last;
    int quad_avx2;    /* u8 2x2 means, no cut cell, AVX2: rows of whole cells by gm__cpu_quad_avx2 */
    long long* first; /* general area: pixel x's weights wx[first[x]] to wx[first[x + 1] - 1] */
    float* wx;
    int* px;          /* u8 LINEAR: the first `fast` pixels' taps and weights (gm__cpu_linear_px_avx2) */
    unsigned* pq;
    long long fast;
} gm__cpu_rows;

static void gm__cpu_rows_free(gm__cpu_rows* L)
{
    GM_FREE(L->o0), GM_FREE(L->w), GM_FREE(L->q), GM_FREE(L->h[0]), GM_FREE(L->plane), GM_FREE(L->first),
        GM_FREE(L->wx), GM_FREE(L->px), GM_FREE(L->pq);
}

/* For LINEAR u8 of 3 or 4 interleaved channels on a CPU with AVX2 (L's
 * per-element taps made): the pixels' taps and weights for
 * gm__cpu_linear_px_avx2, as many leading pixels as take two taps, read
 * no byte past the row and have weights of 16 bits. 0 where memory runs
 * out. */
static int gm__cpu_rows_init_px(gm__cpu_rows* L)
{
    const gm__resize_args* a = L->a;
    const long long bytes = a->map.src_width * L->C;
    long long x;
    int c;
    if (L->S != GM_U8 || L->I != GM__SAMPLER_LINEAR || L->C < 3 || L->isa != 1 || a->src.xstride != L->C)
        return 1;
    for (c = 1; c < L->C; ++c)
        if ((long long)(a->src.chan[c] - a->src.chan[0]) != c)
            return 1;
    L->px = (int*)GM_MALLOC((size_t)a->width * 2 * sizeof *L->px);
    L->pq = (unsigned*)GM_MALLOC((size_t)a->width * sizeof *L->pq);
    if (!L->px || !L->pq)
        return 0;
    for (x = 0; x < a->width && (x + 1) * L->C <= L->edge; ++x) {
        const long long i = x * L->C, o0 = L->o0[i], o1 = L->o1[i];
        const int q0 = L->w[i].q0, q1 = L->w[i].q1;
        if (o0 < 0 || o1 < 0 || o0 + 4 > bytes || o1 + 4 > bytes || q0 != (short)q0 || q1 != (short)q1)
            break;
        L->px[2 * x] = (int)o0, L->px[2 * x + 1] = (int)o1;
        L->pq[x] = (unsigned)(unsigned short)q0 | (unsigned)(unsigned short)q1 << 16;
    }
    L->fast = x;
    return 1;
}

/* Whether the rows above take resize a by sampler I: every sampler, but
 * whole-factor area only where every cell has a tap. */
static int gm__cpu_rows_take(const gm__resize_args* a, int I)
{
    if (I == GM__SAMPLER_AREA_FAST)
        return (a->width - 1) * a->map.iscale_x < a->map.src_width &&
               (a->height - 1) * a->map.iscale_y < a->map.src_height;
    return 1;
}

/* Whether whole-factor area of resize a (S, C channels) takes the integer
 * planes: a cell sums exactly in int (u8, or OpenCV's integer 2x2 mean)
 * and the source's channels interleave. */
static int gm__cpu_area_planes(const gm__resize_args* a, int S, int C)
{
    const long long e = gm__dtype_sizes[S];
    int c, interleaved = a->src.xstride == C * e;
    for (c = 1; c < C; ++c)
        interleaved &= (long long)(a->src.chan[c] - a->src.chan[0]) == c * e;
    return interleaved && gm__cpu_area_downs[S][C - 1][0] && (S == GM_U8 || gm__area_quad_int(S, C, a)) &&
           a->map.iscale_x * a->map.iscale_y <= 1LL << 23;
}

/* L's taps for the general area sampler; 0 where memory runs out. */
static int gm__cpu_rows_init_area(gm__cpu_rows* L)
{
    const gm__resize_args* a = L->a;
    long long x, s, taps = 0;
    int c;
    L->first = (long long*)GM_MALLOC((size_t)(a->width + 1) * sizeof *L->first);
    L->o0 = (long long*)GM_MALLOC((size_t)L->n * sizeof *L->o0);
    L->h[0] = (unsigned char*)GM_MALLOC((size_t)L->n * 8);
    for (x = 0; L->first && x < a->width; ++x) {
        gm__taps tx = gm__taps_x(L->S, L->I, a, x);
        L->first[x] = taps;
        taps += tx.s1 - tx.s0;
    }
    L->wx = (float*)GM_MALLOC((size_t)(taps > 0 ? taps : 1) * sizeof *L->wx);
    if (!L->first || !L->o0 || !L->h[0] || !L->wx) {
        gm__cpu_rows_free(L);
        return 0;
    }
    L->first[a->width] = taps;
    for (x = 0; x < a->width; ++x) {
        gm__taps tx = gm__taps_x(L->S, L->I, a, x);
        for (s = tx.s0; s < tx.s1; ++s)
            L->wx[L->first[x] + s - tx.s0] = gm__area_weight(&tx.cell, s);
        for (c = 0; c < L->C; ++c)
            L->o0[x * L->C + c] = (long long)(a->src.chan[c] - a->src.chan[0]) + tx.o0;
    }
    return 1;
}

/* L for resize a (its source, map and destination size) of S, C channels
 * by sampler I (gm__cpu_rows_take); 0 where memory runs out. */
static int gm__cpu_rows_init(gm__cpu_rows* L, const gm__resize_args* a, int S, int C, int I)
{
    long long x, i, channel, ix = a->map.iscale_x;
    int c;
    memset(L, 0, sizeof *L);
    L->a = a, L->S = S, L->I = I, L->C = C, L->isa = gm__cpu_isa();
    L->n = a->width * C, L->edge = L->n, L->held[0] = L->held[1] = -1;
    if (I == GM__SAMPLER_AREA_FAST && gm__cpu_area_planes(a, S, C)) {
        L->quad = gm__area_quad_int(S, C, a);
        L->m = a->width * ix < a->map.src_width ? a->width * ix : a->map.src_width;
        L->cells = L->m / ix, L->last = L->m - L->cells * ix;
        L->plane = (int*)GM_MALLOC((size_t)(C * L->m) * sizeof *L->plane);
        L->quad_avx2 = L->quad && S == GM_U8 && !L->last && L->isa == 1;
        return L->plane != NULL;
    }
    if (I == GM__SAMPLER_AREA_FAST) { /* each tap in turn: a part and a sum an element */
        if (!(L->h[0] = (unsigned char*)GM_MALLOC((size_t)L->n * 16)))
            return 0;
        L->h[1] = L->h[0] + L->n * 8;
        return 1;
    }
    if (I == GM__SAMPLER_AREA)
        return gm__cpu_rows_init_area(L);
    L->o0 = (long long*)GM_MALLOC((size_t)L->n * 2 * sizeof *L->o0);
    L->w = (gm__cpu_lin_w*)GM_MALLOC((size_t)L->n * sizeof *L->w);
    L->h[0] = (unsigned char*)GM_MALLOC((size_t)L->n * 16);
    if (I == GM__SAMPLER_LINEAR_EXACT)
        L->q = (long long*)GM_MALLOC((size_t)L->n * sizeof *L->q);
    if (!L->o0 || !L->w || !L->h[0] || (I == GM__SAMPLER_LINEAR_EXACT && !L->q)) {
        gm__cpu_rows_free(L);
        return 0;
    }
    L->o1 = L->o0 + L->n, L->h[1] = L->h[0] + L->n * 8;
    for (x = 0; x < a->width; ++x) {
        gm__taps tx = gm__taps_x(S, I, a, x);
        /* LINEAR_EXACT's edge columns: one tap (weight 0 on a second) */
        const int two = I != GM__SAMPLER_LINEAR_EXACT || (tx.s0 >= 0 && tx.s0 < a->map.src_width - 1);
        if (tx.s1 < 0 && L->edge == L->n)
            L->edge = x * C; /* the right edge's one-tap columns: the last ones */
        for (c = 0; c < C; ++c) {
            i = x * C + c, channel = (long long)(a->src.chan[c] - a->src.chan[0]);
            L->o0[i] = channel + tx.o0, L->o1[i] = channel + (two ? tx.o1 : tx.o0);
            L->w[i].q0 = tx.q0, L->w[i].q1 = tx.q1, L->w[i].w0 = 1.0f - tx.f, L->w[i].w1 = tx.f;
            if (L->q)
                L->q[i] = tx.w;
        }
    }
    if (!gm__cpu_rows_init_px(L)) {
        gm__cpu_rows_free(L);
        return 0;
    }
    return 1;
}

/* A destination row of whole-factor area, its cells' source rows ty, to
 * out. */
static void gm__cpu_rows_area(const gm__cpu_rows* L, const gm__taps* ty, unsigned char* out)
{
    const gm__resize_args* a = L->a;
    const long long ix = a->map.iscale_x, iy = a->map.iscale_y;
    int* p[4];
    long long i;
    int c;
#ifdef GM__CPU_AVX2
    if (L->quad_avx2 && ty->n == 2) {
        const unsigned char* s0 = (const unsigned char*)(uintptr_t)(a->src.chan[0] + ty->o0);
        gm__cpu_quad_avx2(L->C, s0, s0 + ty->step, L->cells, out);
        return;
    }
#endif
    for (c = 0; c < 4; ++c) /* a channel the image lacks is never read */
        p[c] = L->plane + (c < L->C ? c : 0) * L->m;
    for (i = 0; i < ty->n; ++i)
        gm__cpu_area_downs[L->S][L->C - 1][L->isa]((const unsigned char*)(uintptr_t)(a->src.chan[0] + ty->o0 + i * ty->step),
                                                   p[0], p[1], p[2], p[3], L->m, i == 0);
    gm__cpu_area_acrosses[L->S][L->C - 1][L->isa](p[0], p[1], p[2], p[3], ix, L->cells, L->last, ty->n, ty->n == iy,
                                                  L->quad, 1.0f / (float)(ix * iy), out);
}

/* Destination row y of item b, its n elements (as S) to out. */
static void gm__cpu_rows_row(gm__cpu_rows* L, long long b, long long y, unsigned char* out)
{
    const gm__taps ty = gm__taps_y(L->S, L->I, L->a, b, y);
    const int exact = L->I == GM__SAMPLER_LINEAR_EXACT, e = gm__dtype_sizes[L->S];
    /* LINEAR_EXACT's edge rows: the first row alone (the second may lie past the image) */
    const int flat = exact && (ty.s0 < 0 || ty.s0 >= L->a->map.src_height - 1);
    const long long want[2] = {ty.o0, flat ? ty.o0 : ty.o1};
    int slot[2], k;
    long long i;
    if (L->I == GM__SAMPLER_AREA_FAST && L->plane) {
        gm__cpu_rows_area(L, &ty, out);
        return;
    }
    if (L->I == GM__SAMPLER_AREA_FAST) {
        gm__cpu_area_fast_rows[L->S](L->a, L->C, &ty, (double*)(void*)L->h[0], (double*)(void*)L->h[1], out);
        return;
    }
    if (L->I == GM__SAMPLER_AREA) {
        gm__cpu_area_rows[L->S](L->a, L->o0, L->first, L->wx, L->C, &ty, L->h[0], out);
        return;
    }
    if (L->I == GM__SAMPLER_NEAREST) {
        const unsigned char* row = (const unsigned char*)(uintptr_t)(L->a->src.chan[0] + ty.o0);
        for (i = 0; i < L->n; ++i)
            gm__copy_bits(L->S, row + L->o0[i], out + i * e);
        return;
    }
    for (k = 0; k < 2; ++k) {
        const unsigned char* row = (const unsigned char*)(uintptr_t)(L->a->src.chan[0] + want[k]);
        slot[k] = L->held[0] == want[k] ? 0 : L->held[1] == want[k] ? 1 : -1;
        if (slot[k] < 0) { /* the buffer the other row does not hold */
            slot[k] = k == 1 ? 1 - slot[0] : L->held[0] == want[1] ? 1 : 0;
            if (exact)
                gm__cpu_exact_hs[L->S][L->isa](row, L->o0, L->o1, L->q, L->n, L->h[slot[k]]);
            else {
                const long long f = L->fast * L->C; /* elements the pixel pass takes */
#ifdef GM__CPU_AVX2
                if (L->fast)
                    gm__cpu_linear_px_avx2(row, L->px, L->pq, L->fast, L->C, (int*)(void*)L->h[slot[k]]);
#endif
                gm__cpu_linear_hs[L->S][L->isa](row, L->o0 + f, L->o1 + f, L->w + f, L->edge - f, L->n - f,
                                                (int*)(void*)L->h[slot[k]] + f);
            }
            L->held[slot[k]] = want[k];
        }
    }
    if (exact)
        gm__cpu_exact_vs[L->S][L->isa](L->h[slot[0]], L->h[slot[1]], ty.w, flat, out, L->n);
    else
        gm__cpu_linear_vs[L->S][L->isa](L->h[slot[0]], L->h[slot[1]], &ty, out, L->n);
}

/* Resize: its plan, rows [begin, end) (numbered over the batch). A row is
 * sampled (gm__cpu_rows) into the destination row where that holds its
 * pixels as they come (interleaved, no gaps), else into a staged row whose
 * elements are then stored one by one; memory short, or a whole-factor
 * cell without a tap: the kernel's per-pixel loop. */
static void gm__cpu_resize_part(void* p, long long begin, long long end)
{
    const gm__plan* plan = (const gm__plan*)p;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    const gm__resize_args* a = &plan->args.resize;
    const int C = k->channels, e = gm__dtype_sizes[k->src];
    const int direct = a->dst.xstride == C * e && (C == 1 || (long long)(a->dst.chan[1] - a->dst.chan[0]) == e);
    gm__cpu_rows L;
    unsigned char* staged = NULL;
    long long r, x;
    int c;
    if (gm__cpu_rows_take(a, k->sampler) && gm__cpu_rows_init(&L, a, k->src, C, k->sampler)) {
        if (direct || (staged = (unsigned char*)GM_MALLOC((size_t)(L.n * e))) != NULL) {
            for (r = begin; r < end; ++r) {
                long long b = r / a->height, y = r % a->height;
                const long long at = gm__view_at(&a->dst, b, y, 0);
                gm__cpu_rows_row(&L, b, y, direct ? (unsigned char*)(uintptr_t)(a->dst.chan[0] + at) : staged);
                for (x = 0; !direct && x < a->width; ++x)
                    for (c = 0; c < C; ++c)
                        gm__copy_bits(k->src, staged + (x * C + c) * e,
                                      (unsigned char*)(uintptr_t)(a->dst.chan[c] + at) + x * a->dst.xstride);
            }
            GM_FREE(staged);
            gm__cpu_rows_free(&L);
            return;
        }
        gm__cpu_rows_free(&L);
    }
    gm__cpu_resize_fns[k->src](a, C, k->sampler, begin, end);
}

/* A pre-process on the CPU: its arguments, dtypes and source channels; for
 * the items sampled along rows (but where it divides or multiplies in
 * double, which the transform's loops do not), the destination channels'
 * arithmetic as a transform's (pre, scale). */
typedef struct gm__cpu_prep {
    const gm__prep_args* a;
    int S, D, C, arith, isa, es, ed, runs;
    gm__cpu_chan chan[4];
} gm__cpu_prep;

/* Row y of item b from its sampled row (gm__cpu_prep_row's): the crop's
 * span taken apart into a run per source channel (runs: C runs of the
 * item's width), each destination channel converted from its run as a
 * transform's (gm__cpu_convert; through staged where the destination's
 * pixels are not adjacent); the pad computed once a row and copied. */
static void gm__cpu_prep_row_of(const gm__cpu_prep* P, long long b, long long y, const unsigned char* sampled,
                                unsigned char* runs, unsigned char* staged)
{
    const gm__prep_args* a = P->a;
    const gm__prep_item* it = gm__prep_item_at(a, b);
    const gm__cpu_prep_fn per_pixel = gm__cpu_prep_fns[P->S][P->D];
    const long long ry = y - it->top, width = it->width;
    const unsigned char* in[4];
    unsigned char* row = (unsigned char*)(uintptr_t)(it->dst + y * a->dst_pitch);
    long long x0 = it->left < 0 ? 0 : it->left, x1 = it->left + width, x, side[2][2], pad = -1;
    int c, k;
    x1 = x1 < a->width ? x1 : a->width;
    if (!P->runs || ry < 0 || ry >= it->height || x1 <= x0)
        x0 = x1 = 0; /* all pad (or all per pixel) */
    side[0][0] = 0, side[0][1] = x0, side[1][0] = x1, side[1][1] = a->width;
    for (k = 0; k < 2; ++k) {
        long long p0 = side[k][0], p1 = side[k][1];
        if (p0 >= p1)
            continue;
        if (!P->runs) {
            per_pixel(a, P->C, P->arith, b, y, sampled, p0, p1);
            continue;
        }
        if (pad < 0) /* the pad pixel once a row (pad: its column), then copies */
            per_pixel(a, P->C, P->arith, b, y, sampled, p0, p0 + 1), pad = p0++;
        for (x = p0; x < p1; ++x)
            for (c = 0; c < a->channels; ++c)
                memcpy(row + x * a->dst_xstride + c * a->dst_cstride, row + pad * a->dst_xstride + c * a->dst_cstride,
                       (size_t)P->ed);
    }
    if (x1 <= x0)
        return;
    sampled += (x0 - it->left) * P->C * P->es;
    for (c = 0; c < P->C; ++c)
        in[c] = P->C == 1 ? sampled : runs + c * width * P->es;
    if (P->C > 1)
        gm__cpu_unzips[P->es][P->C - 2][P->isa](sampled, runs, runs + width * P->es, runs + 2 * width * P->es,
                                                runs + 3 * width * P->es, x1 - x0, 0);
    for (c = 0; c < a->channels; ++c) {
        unsigned char* d = row + x0 * a->dst_xstride + c * a->dst_cstride;
        int adjacent = a->dst_xstride == P->ed;
        gm__cpu_converts[P->S][P->D][P->isa](in[a->map[c]], adjacent ? d : staged, x1 - x0, &P->chan[c]);
        if (!adjacent)
            gm__cpu_scatter(staged, d, a->dst_xstride, P->ed, x1 - x0);
    }
}

/* Where the staged run lies in the buffer of a sampled row and the runs
 * (es bytes an element): after both, on 8 bytes, since the destination's
 * elements are stored there. */
static long long gm__cpu_staged_at(const gm__cpu_rows* L, int es)
{
    return (L->n * es * 2 + 7) / 8 * 8;
}

/* A frame item's crop as cvtColor's BGR image, for the rows above: the
 * pairs of frame rows that cover the crop, from an even column, converted
 * by the YUV rows (impl/yuv.h, the kernel's arithmetic) into a window of
 * two pairs that follows the destination rows down, the source (src) moved
 * so that the rows a destination row reads lie in it: those are at most
 * two rows, so at most two pairs. Each tap converted, then resampled, as
 * the kernel does, so the result is the same. */
typedef struct gm__cpu_frame {
    gm__yuv_args pairs; /* the covering pairs of rows, pair 0 into bgr */
    unsigned char* bgr; /* the window: 4 rows */
    long long held[2];  /* the pairs in the window's halves (-1: none) */
    long long skip;     /* the crop's row 0 in pair 0: 0 or 1 */
    long long column;   /* the crop's column 0 in a row of bgr, in bytes */
} gm__cpu_frame;

/* F for item it, of frame layout f, and src, its crop as a resize source;
 * 0 where memory runs out. */
static int gm__cpu_frame_init(gm__cpu_frame* F, const gm__prep_frame* f, const gm__prep_item* it,
                              gm__resize_args* src)
{
    /* the crop's column and row in the frame (gm__prep_item), and the even ones at or before them */
    const long long x0 = it->at.crop.x, y0 = it->at.crop.y, ex = x0 & ~1LL, ey = y0 & ~1LL;
    const long long w = ((x0 + it->map.src_width + 1) & ~1LL) - ex, h = ((y0 + it->map.src_height + 1) & ~1LL) - ey;
    gm__yuv_args* y = &F->pairs;
    int c;
    memset(F, 0, sizeof *F);
    if (!(F->bgr = (unsigned char*)GM_MALLOC((size_t)(w * 3 * 4))))
        return 0;
    y->y = it->src + (unsigned long long)(ey * it->src_pitch + ex);
    y->u = it->src + (unsigned long long)(f->u + ey / 2 * f->u_pitch + ex / 2 * f->step);
    y->v = it->src + (unsigned long long)(f->v + ey / 2 * f->v_pitch + ex / 2 * f->step);
    y->image = (unsigned long long)(uintptr_t)F->bgr;
    y->y_pitch = it->src_pitch, y->u_pitch = f->u_pitch, y->v_pitch = f->v_pitch, y->image_pitch = 3 * w;
    y->image_xstride = 3, y->image_cstride = 1;
    y->width = w, y->height = h, y->batch = 1;
    y->sample = 1, y->step = f->step, y->channels = 3, y->dtype = GM_U8;
    y->cy = f->cy, y->yoff = f->yoff;
    memcpy(y->ku, f->ku, sizeof y->ku), memcpy(y->kv, f->kv, sizeof y->kv), memcpy(y->bias, f->bias, sizeof y->bias);
    F->held[0] = F->held[1] = -1;
    F->skip = y0 - ey, F->column = (x0 - ex) * 3;
    memset(src, 0, sizeof *src);
    for (c = 0; c < 3; ++c) /* where the window starts; gm__cpu_frame_rows moves it */
        src->src.chan[c] = y->image + (unsigned long long)(F->column + c);
    src->src.pitch = y->image_pitch, src->src.xstride = 3;
    src->map = it->map;
    return 1;
}

/* Pair q of F into half k of its window. */
static void gm__cpu_frame_pair(gm__cpu_frame* F, long long q, int k)
{
    gm__yuv_args at = F->pairs;
    at.image = F->pairs.image + (unsigned long long)((2 * k - 2 * q) * at.image_pitch); /* pair q's rows there */
    gm__yuv_host_rows(&at, 0, 0, q);
    F->held[k] = q;
}

/* The window of F over the rows that destination row ry of its crop
 * (resized as src by sampler I) reads, and src moved onto it. */
static void gm__cpu_frame_rows(gm__cpu_frame* F, gm__resize_args* src, int I, long long ry)
{
    const gm__taps ty = gm__taps_y(GM_U8, I, src, 0, ry);
    const long long pitch = src->src.pitch, last = src->map.src_height - 1;
    /* ty's offsets are rows of src, whatever its window */
    const long long first = ty.o0 / pitch;
    long long end = ty.o1 / pitch, q;
    int c;
    end = end > first + ty.n - 1 ? end : first + ty.n - 1;
    end = end < last ? end : last;
    q = (first + F->skip) / 2;
    if (F->held[0] != q) {
        if (F->held[1] == q) /* one pair further down: the lower half moves up */
            memcpy(F->bgr, F->bgr + 2 * pitch, (size_t)(2 * pitch)), F->held[0] = q;
        else
            gm__cpu_frame_pair(F, q, 0);
        F->held[1] = -1;
    }
    if ((end + F->skip) / 2 > q && F->held[1] != q + 1)
        gm__cpu_frame_pair(F, q + 1, 1);
    for (c = 0; c < 3; ++c) /* crop row r at window row r + skip - 2 q */
        src->src.chan[c] = (unsigned long long)(uintptr_t)F->bgr +
                      (unsigned long long)((F->skip - 2 * q) * pitch + F->column + c);
}

/* The pre-process: its plan, rows [begin, end) (numbered over the items).
 * An item resized by a sampler gm__cpu_rows takes has its rows sampled as
 * gm_resize's are (a frame's from its window of BGR rows, gm__cpu_frame),
 * into a row the destination row is made from (gm__cpu_prep_row_of); the
 * other items, and any where memory is short, run the kernel's per-pixel
 * code. */
static void gm__cpu_prep_part(void* p, long long begin, long long end)
{
    const gm__plan* plan = (const gm__plan*)p;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    gm__cpu_prep P;
    gm__resize_args src;
    gm__cpu_rows L;
    gm__cpu_frame F;
    unsigned char* sampled = NULL;
    long long r, item = -1;
    int c, finite = 1, framed = 0;
    memset(&P, 0, sizeof P);
    P.a = gm__prep_args_of(plan);
    P.S = k->src, P.D = k->dst, P.C = k->channels, P.arith = gm__prep_double(k), P.isa = gm__cpu_isa();
    P.es = gm__dtype_sizes[P.S], P.ed = gm__dtype_sizes[P.D];
    for (c = 0; c < P.a->channels; ++c) {
        gm__cpu_chan* ch = &P.chan[c];
        ch->pre = P.a->pre[c], ch->scale = P.a->scale[c];
        ch->fpre = (float)ch->pre, ch->fscale = (float)ch->scale;
        ch->kind = gm__is_plain(0, ch->pre, ch->scale, 0.0) ? GM__PLAIN : GM__SCALED;
        finite &= fabs(ch->pre) <= FLT_MAX && fabs(ch->scale) <= FLT_MAX;
    }
    for (c = 0; c < P.a->channels; ++c)
        P.chan[c].number = finite;
    for (r = begin; r < end; ++r) {
        long long b = r / P.a->height, y = r % P.a->height, ry;
        const gm__prep_item* it = gm__prep_item_at(P.a, b);
        if (b != item) { /* an item's own taps */
            if (sampled)
                GM_FREE(sampled), gm__cpu_rows_free(&L), sampled = NULL;
            if (framed)
                GM_FREE(F.bgr), framed = 0;
            item = b;
            memset(&src, 0, sizeof src);
            if (P.a->frame.step)
                framed = it->width > 0 && gm__cpu_frame_init(&F, &P.a->frame, it, &src);
            else
                gm__prep_source(it, P.C, &src);
            src.width = it->width, src.height = it->height, src.batch = 1;
            /* the sampled row, the runs and a staged run */
            if ((framed || !P.a->frame.step) && gm__cpu_rows_take(&src, it->map.sampler) && it->width > 0 &&
                gm__cpu_rows_init(&L, &src, P.S, P.C, it->map.sampler) &&
                (sampled = (unsigned char*)GM_MALLOC((size_t)(gm__cpu_staged_at(&L, P.es) + it->width * 8))) == NULL)
                gm__cpu_rows_free(&L);
            P.runs = sampled && !P.a->divide && !P.arith;
        }
        ry = y - it->top;
        if (sampled && ry >= 0 && ry < it->height) {
            if (framed)
                gm__cpu_frame_rows(&F, &src, it->map.sampler, ry);
            gm__cpu_rows_row(&L, 0, ry, sampled);
        }
        if (sampled)
            gm__cpu_prep_row_of(&P, b, y, sampled, sampled + L.n * P.es, sampled + gm__cpu_staged_at(&L, P.es));
        else
            gm__cpu_prep_fns[P.S][P.D](P.a, P.C, P.arith, b, y, NULL, 0, P.a->width);
    }
    if (sampled)
        GM_FREE(sampled), gm__cpu_rows_free(&L);
    if (framed)
        GM_FREE(F.bgr);
}

/* A transform plan on the CPU, done on return. */
static void gm__cpu_run_xform(const gm__plan* p)
{
    const gm__kernel_row* k = &gm__kernels[p->kernel];
    gm__cpu_xform(&p->args.xform, k->src, k->dst, p->src_channels, k->channels);
}

/* A resize plan on the CPU: its rows on the pool. */
static void gm__cpu_run_resize(const gm__plan* p)
{
    const gm__resize_args* a = &p->args.resize;
    const long long row_bytes = a->width * gm__kernels[p->kernel].channels * 8 + 1;
    gm__parallel(gm__cpu_resize_part, (void*)p, a->batch * a->height, gm__tune.cpu_part_bytes / row_bytes + 1);
}

/* A pre-process plan on the CPU: its rows, over the items, on the pool. */
static void gm__cpu_run_prep(const gm__plan* p)
{
    const gm__prep_args* a = gm__prep_args_of(p);
    const long long row_bytes = a->width * gm__kernels[p->kernel].channels * 8 + 1;
    gm__parallel(gm__cpu_prep_part, (void*)p, a->count * a->height, gm__tune.cpu_part_bytes / row_bytes + 1);
}
