/* SPDX-License-Identifier: MIT */
/* Implementation: the pre-process on the CPU: each item's crop sampled
 * along rows as a resize's (impl/cpu_resize.h), a frame's through a window
 * of its rows converted as cvtColor's BGR (gm__cpu_frame), then the
 * blob's arithmetic; the kernels' per-pixel loops only where memory runs
 * short. The rows are shared out among the pool's threads (pool.h). */

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

/* A pre-process plan on the CPU: its rows, over the items, on the pool. */
static void gm__cpu_run_prep(const gm__plan* p)
{
    const gm__prep_args* a = gm__prep_args_of(p);
    const long long row_bytes = a->width * gm__kernels[p->kernel].channels * 8 + 1;
    gm__parallel(gm__cpu_prep_part, (void*)p, a->count * a->height, gm__tune.cpu_part_bytes / row_bytes + 1);
}

static void gm__cpu_prep_warp_part(void* p, long long begin, long long end)
{
    const gm__plan* plan = (const gm__plan*)p;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    gm__cpu_prep_warp_fns[k->src][k->dst](gm__prep_args_of(plan), k->channels, k->sampler,
                                          k->family == GM__FAMILY_PREP_YUV_WARP, begin, end);
}

/* A warp placement on the CPU (templates/prep_warp.inc per pixel): its
 * rows (numbered over the items) on the pool, parts of about
 * gm__tune.cpu_part_bytes of work (a cubic pixel reads 16 taps a
 * channel). */
static void gm__cpu_run_prep_warp(const gm__plan* p)
{
    const gm__prep_args* a = gm__prep_args_of(p);
    const long long row_bytes = a->width * gm__kernels[p->kernel].channels * 64 + 1;
    gm__parallel(gm__cpu_prep_warp_part, (void*)p, a->count * a->height, gm__tune.cpu_part_bytes / row_bytes + 1);
}
