/* SPDX-License-Identifier: MIT */
/* Implementation: a resize on the CPU: each destination row made from
 * source rows sampled along them once (gm__cpu_rows), every sampler as
 * OpenCV runs it, the kernels' per-pixel loops only where memory runs
 * short; the pre-process samples its crops with the same rows
 * (impl/cpu_prep.h). The rows are shared out among the pool's threads
 * (pool.h). */

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

/* A resize plan on the CPU: its rows on the pool. */
static void gm__cpu_run_resize(const gm__plan* p)
{
    const gm__resize_args* a = &p->args.resize;
    const long long row_bytes = a->width * gm__kernels[p->kernel].channels * 8 + 1;
    gm__parallel(gm__cpu_resize_part, (void*)p, a->batch * a->height, gm__tune.cpu_part_bytes / row_bytes + 1);
}
