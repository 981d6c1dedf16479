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

struct gm_overlay {
    void* staging; /* pinned: the tables and the host sprites' rows of one draw */
    size_t staging_size;
    gm__CUdeviceptr scratch; /* where staging goes, for the kernel */
    size_t scratch_size;
    gm__CUevent done;   /* recorded after the last draw's launch; 0 before the first */
    gm__CUcontext ctx;  /* the buffers' context: the first draw's */
    void* pairs;        /* the binning's (tile, sprite) pairs */
    size_t pairs_size;
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
    if (!overlay)
        return;
    if (overlay->done) {
        gm__cu.cuEventSynchronize(overlay->done); /* the buffers may still be in use */
        gm__cu.cuEventDestroy(overlay->done);
    }
    if (overlay->staging)
        gm__cu.cuMemFreeHost(overlay->staging);
    if (overlay->scratch)
        gm__cu.cuMemFree(overlay->scratch);
    GM_FREE(overlay->pairs);
    GM_FREE(overlay);
}

/* The frame pixels [x0, x1) x [y0, y1) that a sprite at (x, y) covers, 0
 * where it covers none (the sums cannot overflow: x < width first). */
static int gm__sprite_clip(const gm_mat* frame, const gm_sprite* s, int64_t r[4])
{
    if (s->x >= frame->width || s->y >= frame->height || s->x <= -s->image.width || s->y <= -s->image.height)
        return 0;
    r[0] = s->x < 0 ? 0 : s->x;
    r[1] = s->y < 0 ? 0 : s->y;
    r[2] = s->x + s->image.width < frame->width ? s->x + s->image.width : frame->width;
    r[3] = s->y + s->image.height < frame->height ? s->y + s->image.height : frame->height;
    return 1;
}

/* Bytes of a sprite's pixel. */
static int gm__sprite_bytes(const gm_sprite* s) { return s->kind == GM_SPRITE_MASK ? 1 : 4; }

static gm_status gm__overlay_check(const char* fn, const gm_overlay* overlay, const gm_mat* frame,
                                   const gm_sprite* sprites, int count)
{
    char name[48];
    int i;
    gm_status s;
    if (!overlay)
        return gm__fail(GM_ERR_ARG, "%s: overlay is NULL", fn);
    if ((s = gm__check(fn, "frame", frame)) != GM_OK)
        return s;
    if (frame->dtype != GM_U8 || (frame->channels != 3 && frame->channels != 4) || frame->layout != GM_HWC)
        return gm__fail(GM_ERR_TYPE, "%s: frame is %s x%d %s; u8 x3 or x4 interleaved (BGR, RGB, BGRA, RGBA) expected",
                        fn, gm_dtype_name(frame->dtype), (int)frame->channels, gm__layout_name(frame));
    if (frame->batch != 1)
        return gm__fail(GM_ERR_ARG, "%s: frame->batch is %d; one image expected (gm_item takes one)", fn,
                        (int)frame->batch);
    if (frame->width > INT_MAX - GM__OVERLAY_TILE_W || frame->height > INT_MAX - GM__OVERLAY_TILE_H)
        return gm__fail(GM_ERR_SIZE, "%s: frame is %lldx%lld; at most 2^31 - 33 pixels a side", fn,
                        (long long)frame->width, (long long)frame->height);
    if (count < 0 || (count > 0 && !sprites))
        return gm__fail(GM_ERR_ARG, count < 0 ? "%s: count %d is negative" : "%s: sprites is NULL (count %d)", fn,
                        count);
    for (i = 0; i < count; ++i) {
        const gm_sprite* sp = &sprites[i];
        snprintf(name, sizeof name, "sprites[%d].image", i);
        if ((int)sp->kind < GM_SPRITE_RGBA || (int)sp->kind > GM_SPRITE_MASK)
            return gm__fail(GM_ERR_ARG, "%s: sprites[%d].kind %d is not a gm_sprite_kind", fn, i, (int)sp->kind);
        if ((s = gm__check(fn, name, &sp->image)) != GM_OK)
            return s;
        if (sp->image.dtype != GM_U8 || sp->image.channels != gm__sprite_bytes(sp) || sp->image.batch != 1)
            return gm__fail(GM_ERR_TYPE, "%s: %s is %s x%d, batch %d; one u8 x%d image expected for its kind", fn,
                            name, gm_dtype_name(sp->image.dtype), (int)sp->image.channels, (int)sp->image.batch,
                            gm__sprite_bytes(sp));
        if (gm__on_host(frame) && !gm__on_host(&sp->image))
            return gm__fail(GM_ERR_LOCATION, "%s: %s is device memory but frame is host memory", fn, name);
        if (!gm__on_host(&sp->image) && sp->image.device != frame->device)
            return gm__fail(GM_ERR_LOCATION, "%s: %s is on device %d, frame on device %d", fn, name,
                            (int)sp->image.device, (int)frame->device);
        if (gm__overlap(&sp->image, frame))
            return gm__fail(GM_ERR_OVERLAP, "%s: %s and frame overlap", fn, name);
    }
    return GM_OK;
}

/* The CPU path: each sprite's visible pixels in turn. */
static void gm__overlay_host(gm_mat* frame, const gm_sprite* sprites, int count, const gm_overlay_params* p)
{
    int64_t r[4], x, y;
    int i, bytes;
    for (i = 0; i < count; ++i) {
        const gm_sprite* s = &sprites[i];
        if (!gm__sprite_clip(frame, s, r))
            continue;
        bytes = gm__sprite_bytes(s);
        for (y = r[1]; y < r[3]; ++y) {
            unsigned char* d = (unsigned char*)frame->data + y * frame->pitch + r[0] * frame->channels;
            const unsigned char* q =
                (const unsigned char*)s->image.data + (y - s->y) * s->image.pitch + (r[0] - s->x) * bytes;
            for (x = r[0]; x < r[2]; ++x, d += frame->channels, q += bytes)
                gm__overlay_pixel(d, (int)frame->channels, p->rgb, p->alpha_over, s->kind, q, s->color);
        }
    }
}

/* A (tile, sprite) pair of the binning: the sprite (its index among the
 * visible ones) lies over the tile (row * tiles across + column). */
typedef struct gm__overlay_pair {
    long long tile;
    int sprite;
} gm__overlay_pair;

static int gm__pair_order(const void* a, const void* b)
{
    const gm__overlay_pair *p = (const gm__overlay_pair*)a, *q = (const gm__overlay_pair*)b;
    return p->tile != q->tile ? (p->tile < q->tile ? -1 : 1) : (p->sprite > q->sprite) - (p->sprite < q->sprite);
}

/* Tiles of size pixels that pixels [a0, a1) of one axis touch. */
static long long gm__tile_span(int64_t a0, int64_t a1, int size) { return (a1 - 1) / size - a0 / size + 1; }

static size_t gm__align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Grows the overlay's staging and device buffers (alike) to at least need
 * bytes, half as much again so that a few growing draws settle; its last
 * draw has run. */
static gm_status gm__overlay_grow(const char* fn, gm_overlay* o, size_t need)
{
    int rc;
    if (need <= o->staging_size)
        return GM_OK;
    need += need / 2;
    if (o->staging)
        gm__cu.cuMemFreeHost(o->staging);
    if (o->scratch)
        gm__cu.cuMemFree(o->scratch);
    o->staging = NULL;
    o->scratch = 0;
    o->staging_size = o->scratch_size = 0;
    if ((rc = gm__cu.cuMemHostAlloc(&o->staging, need, 0)) != 0)
        return gm__cuda_fail(fn, "cuMemHostAlloc", rc);
    if ((rc = gm__cu.cuMemAlloc(&o->scratch, need)) != 0) {
        gm__cu.cuMemFreeHost(o->staging);
        o->staging = NULL;
        return gm__cuda_fail(fn, "cuMemAlloc", rc);
    }
    o->staging_size = o->scratch_size = need;
    return GM_OK;
}

/* The GPU path: the visible sprites binned into frame tiles on the host;
 * the tables and the host sprites' visible rows staged and uploaded in one
 * copy; one launch; the event that the next draw waits for. */
static gm_status gm__overlay_device(const char* fn, gm_overlay* o, gm_mat* frame, const gm_sprite* sprites,
                                    int count, const gm_overlay_params* p, gm_stream stream)
{
    const long long across = (frame->width + GM__OVERLAY_TILE_W - 1) / GM__OVERLAY_TILE_W;
    gm__CUcontext ctx;
    gm__overlay_pair* pairs;
    gm__sprite_entry* entries;
    gm__overlay_tile* tiles;
    gm__overlay_args a;
    gm__memcpy2d copy;
    gm__ready r;
    void* params[1];
    const char* api;
    int64_t clip[4];
    size_t npairs = 0, ntiles = 0, host_bytes = 0, at, k, n;
    int dev, rc, i, nvis = 0;
    unsigned char* staged;
    int* order;
    gm_status s;
    if ((s = gm__context(fn, (int)frame->device, &ctx, &dev)) != GM_OK)
        return s;
    if (o->ctx && o->ctx != ctx)
        return gm__fail(GM_ERR_LOCATION, "%s: overlay holds buffers of another CUDA context (one overlay a context)",
                        fn);
    for (i = 0; i < count; ++i)
        if (gm__sprite_clip(frame, &sprites[i], clip)) {
            ++nvis;
            npairs += (size_t)(gm__tile_span(clip[0], clip[2], GM__OVERLAY_TILE_W) *
                               gm__tile_span(clip[1], clip[3], GM__OVERLAY_TILE_H));
            if (gm__on_host(&sprites[i].image))
                host_bytes += gm__align16((size_t)((clip[2] - clip[0]) * (clip[3] - clip[1])) *
                                          (size_t)gm__sprite_bytes(&sprites[i]));
        }
    if (!nvis)
        return GM_OK;
    if (npairs > INT_MAX)
        return gm__fail(GM_ERR_SIZE, "%s: the sprites cover %zu frame tiles; at most 2^31 - 1", fn, npairs);
    if (npairs * sizeof *pairs > o->pairs_size) {
        void* grown = GM_REALLOC(o->pairs, npairs * sizeof *pairs);
        if (!grown)
            return gm__fail(GM_ERR_NO_MEMORY, "%s: malloc of %zu tile pairs failed", fn, npairs);
        o->pairs = grown;
        o->pairs_size = npairs * sizeof *pairs;
    }
    pairs = (gm__overlay_pair*)o->pairs;
    for (i = 0, nvis = 0, k = 0; i < count; ++i) {
        long long tx, ty;
        if (!gm__sprite_clip(frame, &sprites[i], clip))
            continue;
        for (ty = clip[1] / GM__OVERLAY_TILE_H; ty <= (clip[3] - 1) / GM__OVERLAY_TILE_H; ++ty)
            for (tx = clip[0] / GM__OVERLAY_TILE_W; tx <= (clip[2] - 1) / GM__OVERLAY_TILE_W; ++tx) {
                pairs[k].tile = ty * across + tx;
                pairs[k++].sprite = nvis;
            }
        ++nvis;
    }
    qsort(pairs, npairs, sizeof *pairs, gm__pair_order);
    /* staging: entries | tiles (at most one a pair) | order | host sprites' rows */
    at = gm__align16((size_t)nvis * sizeof *entries) + gm__align16(npairs * sizeof *tiles) +
         gm__align16(npairs * sizeof *order);
    if (o->done && (rc = gm__cu.cuEventSynchronize(o->done)) != 0)
        return gm__cuda_fail(fn, "cuEventSynchronize", rc);
    if (!o->done && (rc = gm__cu.cuEventCreate(&o->done, 2 /* CU_EVENT_DISABLE_TIMING */)) != 0) {
        o->done = 0;
        return gm__cuda_fail(fn, "cuEventCreate", rc);
    }
    o->ctx = ctx;
    if ((s = gm__overlay_grow(fn, o, at + host_bytes)) != GM_OK)
        return s;
    staged = (unsigned char*)o->staging;
    entries = (gm__sprite_entry*)staged;
    tiles = (gm__overlay_tile*)(staged + gm__align16((size_t)nvis * sizeof *entries));
    order = (int*)((unsigned char*)tiles + gm__align16(npairs * sizeof *tiles));
    for (i = 0, nvis = 0; i < count; ++i) {
        const gm_sprite* sp = &sprites[i];
        gm__sprite_entry* e = &entries[nvis];
        int bytes = gm__sprite_bytes(sp);
        int64_t y;
        if (!gm__sprite_clip(frame, sp, clip))
            continue;
        ++nvis;
        memset(e, 0, sizeof *e);
        e->x0 = (int)clip[0], e->y0 = (int)clip[1], e->x1 = (int)clip[2], e->y1 = (int)clip[3];
        e->kind = (int)sp->kind;
        memcpy(e->color, sp->color, 4);
        if (!gm__on_host(&sp->image)) {
            e->data = (unsigned long long)(uintptr_t)sp->image.data +
                      (unsigned long long)((clip[1] - sp->y) * sp->image.pitch + (clip[0] - sp->x) * bytes);
            e->pitch = sp->image.pitch;
            continue;
        }
        e->data = o->scratch + at;
        e->pitch = (clip[2] - clip[0]) * bytes;
        for (y = clip[1]; y < clip[3]; ++y)
            memcpy(staged + at + (size_t)((y - clip[1]) * e->pitch),
                   (const unsigned char*)sp->image.data + (y - sp->y) * sp->image.pitch + (clip[0] - sp->x) * bytes,
                   (size_t)e->pitch);
        at += gm__align16((size_t)(e->pitch * (clip[3] - clip[1])));
    }
    for (k = 0; k < npairs; k = n) {
        for (n = k; n < npairs && pairs[n].tile == pairs[k].tile; ++n)
            order[n] = pairs[n].sprite;
        tiles[ntiles].x = (int)(pairs[k].tile % across);
        tiles[ntiles].y = (int)(pairs[k].tile / across);
        tiles[ntiles].first = (int)k;
        tiles[ntiles++].count = (int)(n - k);
    }
    memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = GM__CU_MEMORYTYPE_HOST;
    copy.srcHost = staged;
    copy.dstMemoryType = GM__CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = o->scratch;
    copy.srcPitch = copy.dstPitch = copy.WidthInBytes = at;
    copy.Height = 1;
    if ((rc = gm__cu.cuMemcpy2DAsync(&copy, stream)) != 0)
        return gm__cuda_fail(fn, "cuMemcpy2DAsync", rc);
    memset(&a, 0, sizeof a);
    a.frame = (unsigned long long)(uintptr_t)frame->data;
    a.pitch = frame->pitch;
    a.width = (int)frame->width;
    a.height = (int)frame->height;
    a.channels = (int)frame->channels;
    a.rgb = p->rgb != 0;
    a.over = p->alpha_over != 0;
    a.sprites = o->scratch;
    a.tiles = o->scratch + (unsigned long long)((unsigned char*)tiles - staged);
    a.order = o->scratch + (unsigned long long)((unsigned char*)order - staged);
    memset(&r, 0, sizeof r);
    s = gm__function(fn, GM__OVERLAY_ROW, dev, 0, &r.f, &r.waits, NULL);
    r.geometry.grid[0] = (unsigned)ntiles, r.geometry.grid[1] = r.geometry.grid[2] = 1;
    r.geometry.block[0] = GM__OVERLAY_TILE_W, r.geometry.block[1] = GM__OVERLAY_TILE_H;
    params[0] = &a;
    if (s == GM_OK && (rc = gm__launch(&r, stream, params, &api)) != 0)
        s = gm__cuda_fail(fn, api, rc);
    if (s == GM_OK)
        GM_TRACE(GM_TRACE_LAUNCH, GM__OVERLAY_ROW);
    /* the copy is queued whatever the launch did: the next draw waits for it */
    if ((rc = gm__cu.cuEventRecord(o->done, stream)) != 0 && s == GM_OK)
        s = gm__cuda_fail(fn, "cuEventRecord", rc);
    return s;
}

GM_API gm_status gm_overlay_draw(gm_overlay* overlay, gm_mat* frame, const gm_sprite* sprites, int count,
                                 const gm_overlay_params* params, gm_stream stream)
{
    static const char fn[] = "gm_overlay_draw";
    gm_overlay_params defaults;
    gm_status s = gm__overlay_check(fn, overlay, frame, sprites, count);
    if (s != GM_OK)
        return s;
    if (!params) {
        memset(&defaults, 0, sizeof defaults);
        params = &defaults;
    }
    if (gm__on_host(frame)) {
        gm__overlay_host(frame, sprites, count, params);
        return GM_OK;
    }
    return gm__overlay_device(fn, overlay, frame, sprites, count, params, stream);
}
