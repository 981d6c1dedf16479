/* SPDX-License-Identifier: MIT */
/* Implementation: gpumat/draw.h. */
#include <limits.h>
#include <stdlib.h>


/* A fill is a transform whose every channel is a constant: it reads no
 * source, so dst stands in for one (the kernel of dtype -> dtype). Each
 * value is stored once here as setTo stores it and read back; that stored
 * value is exact in float and in double, so the constant path, whichever of
 * the two it works in, writes it unchanged. */
static gm_status gm__fill_ops(const gm_mat* dst, const double* value, gm__ops* d)
{
    static const char fn[] = "gm_fill";
    gm_xform x = gm_xform_identity();
    gm__side side;
    unsigned char stored[8];
    int c;
    gm_status s;
    if ((s = gm__check(fn, "dst", dst)) != GM_OK)
        return s;
    if (!value)
        return gm__fail(GM_ERR_ARG, "%s: value is NULL", fn);
    for (c = 0; c < dst->channels; ++c) {
        gm__encode_d(dst->dtype, stored, value[c]);
        x.map[c] = GM_CONST;
        x.offset[c] = gm__decode_d(dst->dtype, stored);
    }
    side = gm__side_of(dst);
    d->op[d->n++] = gm__op_of(fn, &side, &side, dst, &x);
    return GM_OK;
}

GM_API gm_status gm_fill(gm_mat* dst, const double* value, gm_stream stream)
{
    gm__ops d;
    d.n = 0;
    return gm__run_described(gm__fill_ops(dst, value, &d), &d, stream);
}

/* One draw's buffers: a pinned staging buffer and the device buffer it is
 * uploaded to, alike in size, and the event recorded after the draw. */
typedef struct gm__overlay_slot {
    void* staging;
    gm__CUdeviceptr scratch;
    size_t size;
    gm__CUevent done; /* 0 before the slot's first draw */
} gm__overlay_slot;

/* A visible sprite of one draw: its index, the frame pixels [r0, r2) x
 * [r1, r3) it covers, whether it is in host memory, and for a host sprite
 * where its rows go in the staging buffer; row: the host sprites' rows
 * before its own. */
typedef struct gm__overlay_visible {
    int64_t r[4];
    int index, host;
    size_t at;
    long long row;
} gm__overlay_visible;

/* Two slots, taken in turn, so that a draw stages its sprites while the
 * GPU still runs the one before it. */
struct gm_overlay {
    gm__overlay_slot slot[2];
    int turn;
    uint64_t ctx_key;            /* the slots' context (gm__ctx_key): the first draw's */
    gm__overlay_visible* seen;   /* the draw's visible sprites */
    size_t seen_size;
    int* per_tile;               /* sprites over each frame tile; all 0 between draws */
    size_t per_tile_size;
};

GM_API gm_status gm_overlay_create(gm_overlay** overlay)
{
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "gm_overlay_create: overlay is NULL");
    *overlay = (gm_overlay*)GM_MALLOC(sizeof **overlay);
    if (!*overlay)
        return gm__fail(GM_ERR_NO_MEMORY, "gm_overlay_create: malloc failed");
    memset(*overlay, 0, sizeof **overlay);
    return GM_OK;
}

GM_API void gm_overlay_destroy(gm_overlay* overlay)
{
    int i;
    if (!overlay)
        return;
    for (i = 0; i < 2; ++i) {
        gm__overlay_slot* sl = &overlay->slot[i];
        if (sl->done) {
            gm__cu.cuEventSynchronize(sl->done); /* the buffers may still be in use */
            gm__cu.cuEventDestroy(sl->done);
        }
        if (sl->staging)
            gm__cu.cuMemFreeHost(sl->staging);
        if (sl->scratch)
            gm__cu.cuMemFree(sl->scratch);
    }
    GM_FREE(overlay->seen);
    GM_FREE(overlay->per_tile);
    GM_FREE(overlay);
}

/* Tiles of size pixels that pixels [a0, a1) of one axis touch: [*t0, *t1]. */
static void gm__tile_span(int64_t a0, int64_t a1, int size, long long* t0, long long* t1)
{
    *t0 = a0 / size;
    *t1 = (a1 - 1) / size;
}

static size_t gm__align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Grows *buffer (*size bytes) to at least need bytes, all 0. */
static gm_status gm__overlay_reserve(const char* fn, void** buffer, size_t* size, size_t need)
{
    void* grown;
    if (need <= *size)
        return GM_OK;
    if (!(grown = GM_MALLOC(need)))
        return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %zu bytes failed", fn, need);
    memset(grown, 0, need);
    GM_FREE(*buffer);
    *buffer = grown;
    *size = need;
    return GM_OK;
}

/* Grows a slot's buffers (alike) to at least need bytes, half as much again
 * so that a few growing draws settle; its last draw has run. */
static gm_status gm__overlay_grow(const char* fn, gm__overlay_slot* sl, size_t need)
{
    int rc;
    if (need <= sl->size)
        return GM_OK;
    need += need / 2;
    if (sl->staging)
        gm__cu.cuMemFreeHost(sl->staging);
    if (sl->scratch)
        gm__cu.cuMemFree(sl->scratch);
    sl->staging = NULL;
    sl->scratch = 0;
    sl->size = 0;
    if ((rc = gm__cu.cuMemHostAlloc(&sl->staging, need, 0)) != 0)
        return gm__cuda_fail(fn, "cuMemHostAlloc", rc);
    if ((rc = gm__cu.cuMemAlloc(&sl->scratch, need)) != 0) {
        gm__cu.cuMemFreeHost(sl->staging);
        sl->staging = NULL;
        return gm__cuda_fail(fn, "cuMemAlloc", rc);
    }
    sl->size = need;
    return GM_OK;
}

/* Copying the host sprites' visible rows into the staging buffer, in
 * parts of rows for the pool's threads. A sprite whose visible rows are
 * one run of its memory (whole rows, no padding) is copied by stream,
 * past the caches: the DMA engine reads the buffer, not the CPU. */
typedef struct gm__overlay_staging {
    const gm__overlay_visible* seen;
    int count; /* seen[0 .. count) */
    const gm_sprite* sprites;
    unsigned char* staged;
    gm__cpu_stream_fn stream;
} gm__overlay_staging;

static void gm__overlay_stage_part(void* job, long long begin, long long end)
{
    const gm__overlay_staging* j = (const gm__overlay_staging*)job;
    int lo = 0, hi = j->count - 1, mid;
    /* the last sprite whose first row is at most begin (rows never decrease) */
    while (lo < hi) {
        mid = (lo + hi + 1) / 2;
        if (j->seen[mid].row <= begin)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (; lo < j->count && begin < end; ++lo) {
        const gm__overlay_visible* v = &j->seen[lo];
        const gm_sprite* sp = &j->sprites[v->index];
        const long long bytes = gm__sprite_bytes(sp), width = (v->r[2] - v->r[0]) * bytes,
                        y0 = begin - v->row, y1 = y0 + (end - begin) < v->r[3] - v->r[1] ? y0 + (end - begin)
                                                                                             : v->r[3] - v->r[1];
        const unsigned char* from =
            (const unsigned char*)sp->image.data + (v->r[1] - sp->y) * sp->image.pitch + (v->r[0] - sp->x) * bytes;
        unsigned char* to = j->staged + v->at;
        long long y;
        if (!v->host || y0 >= y1)
            continue;
        if (sp->image.pitch == width)
            j->stream(to + y0 * width, from + y0 * width, (y1 - y0) * width);
        else
            for (y = y0; y < y1; ++y)
                memcpy(to + y * width, from + y * sp->image.pitch, (size_t)width);
        begin += y1 - y0;
    }
    gm__cpu_fence();
}

/* What the GPU path's tables take for one draw: the frame's tiles across
 * and down, the visible sprites (o->seen[0 .. seen], their tiles counted
 * in o->per_tile), the sprite-tile pairs, the tiles touched, and the host
 * sprites' visible rows and their staged bytes. */
typedef struct gm__overlay_census {
    long long across, down, tiles, host_rows, host_rows_bytes;
    size_t pairs;
    int seen;
} gm__overlay_census;

/* Clips each sprite to the frame once and counts the sprites of each tile
 * into o->per_tile (zero on entry), the visible ones into o->seen. */
static void gm__overlay_count(gm_overlay* o, const gm_mat* frame, const gm_sprite* sprites, int count,
                              gm__overlay_census* c)
{
    long long tx0, tx1, ty0, ty1, tx, ty;
    int i;
    for (i = 0; i < count; ++i) {
        gm__overlay_visible* v = &o->seen[c->seen];
        if (!gm__sprite_clip(frame->width, frame->height, &sprites[i], v->r))
            continue;
        ++c->seen;
        v->index = i;
        v->host = gm__on_host(&sprites[i].image);
        v->row = c->host_rows;
        gm__tile_span(v->r[0], v->r[2], GM__OVERLAY_TILE_W, &tx0, &tx1);
        gm__tile_span(v->r[1], v->r[3], GM__OVERLAY_TILE_H, &ty0, &ty1);
        c->pairs += (size_t)((tx1 - tx0 + 1) * (ty1 - ty0 + 1));
        for (ty = ty0; ty <= ty1; ++ty)
            for (tx = tx0; tx <= tx1; ++tx)
                c->tiles += o->per_tile[ty * c->across + tx]++ == 0;
        if (v->host) {
            v->at = (size_t)c->host_rows_bytes;
            c->host_rows += v->r[3] - v->r[1];
            c->host_rows_bytes += (long long)gm__align16((size_t)((v->r[2] - v->r[0]) * (v->r[3] - v->r[1])) *
                                                         (size_t)gm__sprite_bytes(&sprites[i]));
        }
    }
}

/* The tables into the staging buffer (entries | tiles | order, the rows
 * at rows_at): the touched tiles in frame order, each with the place of its
 * first sprite, a counting sort that keeps the sprites' order; the entries
 * point at device sprites where they are and at the staged rows of host
 * ones (scratch: where the buffer lands on the device). Leaves
 * o->per_tile zero. */
static void gm__overlay_tables(gm_overlay* o, const gm_sprite* sprites, const gm__overlay_census* c,
                               unsigned char* staged, unsigned long long scratch, size_t rows_at,
                               gm__overlay_tile** tiles_at, int** order_at)
{
    gm__sprite_entry* entries = (gm__sprite_entry*)staged;
    gm__overlay_tile* tiles = (gm__overlay_tile*)(staged + gm__align16((size_t)c->seen * sizeof *entries));
    int* order = (int*)((unsigned char*)tiles + gm__align16((size_t)c->tiles * sizeof *tiles));
    int *per_tile = o->per_tile, i;
    long long tx0, tx1, ty0, ty1, tx, ty, t, n = 0;
    size_t at = 0;
    for (t = 0; t < c->across * c->down; ++t) /* per_tile becomes where the next sprite of the tile goes */
        if (per_tile[t]) {
            tiles[n].x = (int)(t % c->across);
            tiles[n].y = (int)(t / c->across);
            tiles[n].first = (int)at;
            tiles[n++].count = per_tile[t];
            at += (size_t)per_tile[t];
            per_tile[t] = tiles[n - 1].first;
        }
    for (i = 0; i < c->seen; ++i) {
        const gm__overlay_visible* v = &o->seen[i];
        const gm_sprite* sp = &sprites[v->index];
        gm__sprite_entry* e = &entries[i];
        const int bytes = gm__sprite_bytes(sp);
        memset(e, 0, sizeof *e);
        e->x0 = (int)v->r[0], e->y0 = (int)v->r[1], e->x1 = (int)v->r[2], e->y1 = (int)v->r[3];
        e->kind = (int)sp->kind;
        memcpy(e->color, sp->color, 4);
        if (!v->host) {
            e->data = (unsigned long long)(uintptr_t)sp->image.data +
                      (unsigned long long)((v->r[1] - sp->y) * sp->image.pitch + (v->r[0] - sp->x) * bytes);
            e->pitch = sp->image.pitch;
        } else {
            e->data = scratch + rows_at + v->at;
            e->pitch = (v->r[2] - v->r[0]) * bytes;
        }
        e->words = e->data % 4 == 0 && e->pitch % 4 == 0;
        gm__tile_span(v->r[0], v->r[2], GM__OVERLAY_TILE_W, &tx0, &tx1);
        gm__tile_span(v->r[1], v->r[3], GM__OVERLAY_TILE_H, &ty0, &ty1);
        for (ty = ty0; ty <= ty1; ++ty)
            for (tx = tx0; tx <= tx1; ++tx)
                order[per_tile[ty * c->across + tx]++] = i;
    }
    memset(per_tile, 0, (size_t)(c->across * c->down) * sizeof *per_tile);
    *tiles_at = tiles;
    *order_at = order;
}

/* The GPU path: the visible sprites clipped once and sorted into frame
 * tiles on the host (gm__overlay_count, gm__overlay_tables); the tables and
 * the host sprites' visible rows staged and uploaded in one copy; the
 * plan's run; the event that the draw after next, which reuses the slot,
 * waits for. frame: the frame's plane of its size in pixels (its device),
 * p: the plan, its arguments of the frame made, the tables' left to fill. */
static gm_status gm__overlay_device(const char* fn, gm_overlay* o, const gm_mat* frame, gm__plan* p,
                                    const gm_sprite* sprites, int count, gm_stream stream)
{
    gm__overlay_slot* sl = &o->slot[o->turn];
    gm__overlay_census c;
    gm__overlay_staging job;
    gm__CUcontext ctx;
    uint64_t key;
    gm__overlay_tile* tiles;
    gm__overlay_args* a = &p->args.overlay;
    gm__memcpy2d copy;
    size_t rows_at, total;
    int dev, rc, *order;
    unsigned char* staged;
    gm_status s;
    memset(&c, 0, sizeof c);
    c.across = (frame->width + GM__OVERLAY_TILE_W - 1) / GM__OVERLAY_TILE_W;
    c.down = (frame->height + GM__OVERLAY_TILE_H - 1) / GM__OVERLAY_TILE_H;
    if ((s = gm__context_key(fn, (int)frame->device, &ctx, &dev, &key)) != GM_OK)
        return s;
    if (o->ctx_key && o->ctx_key != key)
        return gm__fail(GM_ERR_LOCATION, "%s: overlay holds buffers of another CUDA context (one overlay a context)",
                        fn);
    if ((s = gm__overlay_reserve(fn, (void**)&o->seen, &o->seen_size, (size_t)count * sizeof *o->seen)) != GM_OK ||
        (s = gm__overlay_reserve(fn, (void**)&o->per_tile, &o->per_tile_size,
                                 (size_t)(c.across * c.down) * sizeof *o->per_tile)) != GM_OK)
        return s;
    gm__overlay_count(o, frame, sprites, count, &c);
    if (!c.seen)
        return GM_OK;
    rows_at = gm__align16((size_t)c.seen * sizeof(gm__sprite_entry)) +
              gm__align16((size_t)c.tiles * sizeof *tiles) + gm__align16(c.pairs * sizeof *order);
    total = rows_at + (size_t)c.host_rows_bytes;
    if (c.pairs > INT_MAX)
        s = gm__fail(GM_ERR_SIZE, "%s: the sprites cover %zu frame tiles; at most 2^31 - 1", fn, c.pairs);
    if (s == GM_OK && sl->done && (rc = gm__cu.cuEventSynchronize(sl->done)) != 0)
        s = gm__cuda_fail(fn, "cuEventSynchronize", rc);
    if (s == GM_OK && !sl->done && (rc = gm__cu.cuEventCreate(&sl->done, 2 /* CU_EVENT_DISABLE_TIMING */)) != 0) {
        sl->done = 0;
        s = gm__cuda_fail(fn, "cuEventCreate", rc);
    }
    if (s == GM_OK)
        o->ctx_key = key;
    if (s == GM_OK)
        s = gm__overlay_grow(fn, sl, total);
    if (s != GM_OK) {
        memset(o->per_tile, 0, (size_t)(c.across * c.down) * sizeof *o->per_tile);
        return s;
    }
    staged = (unsigned char*)sl->staging;
    gm__overlay_tables(o, sprites, &c, staged, sl->scratch, rows_at, &tiles, &order);
    job.seen = o->seen;
    job.count = c.seen;
    job.sprites = sprites;
    job.staged = staged + rows_at;
    job.stream = gm__cpu_streams[gm__cpu_isa()];
    if (c.host_rows)
        gm__parallel(gm__overlay_stage_part, &job, c.host_rows,
                     gm__tune.overlay_part_bytes / (c.host_rows_bytes / c.host_rows + 1) + 1);
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = GM__CU_MEMORYTYPE_HOST;
    copy.srcHost = staged;
    copy.dstMemoryType = GM__CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = sl->scratch;
    copy.srcPitch = copy.dstPitch = copy.WidthInBytes = total;
    copy.Height = 1;
    if ((rc = gm__cu.cuMemcpy2DAsync(&copy, stream)) != 0)
        return gm__cuda_fail(fn, "cuMemcpy2DAsync", rc);
    a->width = (int)frame->width;
    a->height = (int)frame->height;
    a->sprites = sl->scratch;
    a->tiles = sl->scratch + (unsigned long long)((unsigned char*)tiles - staged);
    a->order = sl->scratch + (unsigned long long)((unsigned char*)order - staged);
    a->ntiles = (int)c.tiles;
    s = gm__run(p, stream);
    /* the copy is queued whatever the launch did: the slot's next draw waits for it */
    if ((rc = gm__cu.cuEventRecord(sl->done, stream)) != 0 && s == GM_OK)
        s = gm__cuda_fail(fn, "cuEventRecord", rc);
    o->turn ^= 1;
    return s;
}

GM_API gm_status gm_overlay_draw(gm_overlay* overlay, gm_mat* frame, const gm_sprite* sprites, int count,
                                 const gm_overlay_params* params, gm_stream stream)
{
    static const char fn[] = "gm_overlay_draw";
    gm_overlay_params defaults;
    gm__overlay_job job;
    gm__overlay_args* a;
    gm__plan p;
    gm_status s;
    if ((s = gm__check_overlay_draw(fn, overlay, frame, sprites, count)) != GM_OK)
        return s;
    if (!params) {
        memset(&defaults, 0, sizeof defaults);
        params = &defaults;
    }
    gm__plan_of(&p, fn, GM__OVERLAY_ROW, frame);
    a = &p.args.overlay;
    memset(a, 0, sizeof *a);
    a->frame = (unsigned long long)(uintptr_t)frame->data;
    a->pitch = frame->pitch;
    a->channels = (int)frame->channels;
    a->rgb = params->rgb != 0;
    a->over = params->alpha_over != 0;
    a->words = (a->frame | (unsigned long long)a->pitch) % (a->channels == 4 ? 16 : 4) == 0;
    job.planes = frame, job.sprites = sprites, job.count = count;
    p.host = &job;
    return p.on_host ? gm__run(&p, stream) : gm__overlay_device(fn, overlay, frame, &p, sprites, count, stream);
}

GM_API gm_status gm_overlay_draw_yuv(gm_overlay* overlay, gm_yuv* frame, const gm_sprite* sprites, int count,
                                     gm_stream stream)
{
    static const char fn[] = "gm_overlay_draw_yuv";
    gm_mat planes[3];
    gm__overlay_job job;
    gm__plan p;
    gm_status s;
    if ((s = gm__check_overlay_draw_yuv(fn, overlay, frame, sprites, count)) != GM_OK)
        return s;
    planes[0] = frame->y, planes[1] = frame->u, planes[2] = frame->v;
    gm__plan_of(&p, fn, GM__OVERLAY_ROW, &frame->y);
    memset(&p.args.overlay, 0, sizeof p.args.overlay);
    p.args.overlay.yuv = 1;
    /* the image's fields unused: the luma stands in; RGB, the sprites' order */
    gm__yuv_args_of(&p.args.overlay.planes, frame, &frame->y, 1);
    job.planes = planes, job.sprites = sprites, job.count = count;
    p.host = &job;
    return p.on_host ? gm__run(&p, stream) : gm__overlay_device(fn, overlay, &frame->y, &p, sprites, count, stream);
}

/* Rows of the three images as one launch (or the CPU loop) walks them. */
static void gm__blend_args_of(gm__blend_args* a, const gm_mat* src1, const gm_mat* src2, const gm_mat* dst,
                              double alpha, double beta, double gamma)
{
    const gm_mat* m[3];
    int k, planar = dst->layout == GM_CHW && dst->channels > 1;
    m[0] = src1, m[1] = src2, m[2] = dst;
    memset(a, 0, sizeof *a);
    a->vectors = 1;
    a->planes = planar ? (int)dst->channels : 1;
    for (k = 0; k < 3; ++k) { /* the planes lie evenly apart: planes 0 and 1 tell where they all start */
        const gm__view* v = &a->image[k];
        a->image[k] = gm__side_of(m[k]).view;
        a->vectors &= (v->chan[0] | (a->planes > 1 ? v->chan[1] : 0) | (unsigned long long)v->pitch |
                       (unsigned long long)(dst->batch > 1 ? v->bstride : 0)) % 16 == 0;
    }
    a->bytes = dst->width * (planar ? 1 : dst->channels);
    a->height = dst->height;
    a->batch = (int)dst->batch;
    a->alpha = (float)alpha;
    a->beta = (float)beta;
    a->gamma = (float)gamma;
}

GM_API gm_status gm_add_weighted(const gm_mat* src1, double alpha, const gm_mat* src2, double beta, double gamma,
                                 gm_mat* dst, gm_stream stream)
{
    static const char fn[] = "gm_add_weighted";
    gm__plan p;
    gm_status s = gm__blend_check(fn, src1, src2, dst);
    if (s != GM_OK)
        return s;
    gm__plan_of(&p, fn, GM__BLEND_ROW, dst);
    gm__blend_args_of(&p.args.blend, src1, src2, dst, alpha, beta, gamma);
    return gm__run(&p, stream);
}
