/* SPDX-License-Identifier: MIT */
/* Implementation: the runner. A plan (plan.h) runs on the CPU, its
 * family's loop (cpu_xform.h, cpu_resize.h, cpu_prep.h, cpu_yuv.h,
 * cpu_draw.h, cpu_warp.h), done on return, or as one launch of its kernel, queued on
 * the stream, in a geometry its family gives. */

#include <string.h>

/* A launch's grid and block. */
typedef struct gm__geometry {
    unsigned grid[3], block[2];
} gm__geometry;

/* A plan made ready to launch in the current context: its kernel's
 * function, the geometry, whether the launch may overlap the kernel before
 * it (the function waits for it, gm__function), the shared memory a block
 * takes, and what the trace hook is told of the launch (GM_TRACE_LAUNCH,
 * or the path or blocks it took). */
typedef struct gm__ready {
    gm__CUfunction f;
    gm__geometry geometry;
    int waits;
    unsigned shared;
    gm_trace_event event;
} gm__ready;

/* What starting a run of the tile path costs a warp (its columns' taps,
 * its first source rows), in rows of the run: a grid of several waves of
 * blocks takes the run length whose waves cost least, since a grid's last
 * wave runs partly empty (bench/RESULTS.md). */
#define GM__TILE_START 4

/* The blocks of a tile-path grid of columns blocks across, whose warps take
 * runs of `run` rows. */
static long long gm__tile_blocks(long long columns, long long height, long long images, long long run)
{
    return columns * ((height + GM__BLOCK_WARPS * run - 1) / (GM__BLOCK_WARPS * run)) * images;
}

/* A grid's y or z extent: the kernels loop over what lies past 65535. */
static unsigned gm__extent(long long n) { return (unsigned)(n < 65535 ? n : 65535); }

/* Blocks of 32 threads by GM__BLOCK_WARPS, each thread `across` / 32
 * columns and `run` rows of width x height, the items along z. */
static gm__geometry gm__grid_of_rows(long long width, long long height, long long batch, long long across, int run)
{
    gm__geometry g;
    g.block[0] = 32, g.block[1] = GM__BLOCK_WARPS;
    g.grid[0] = (unsigned)((width + across - 1) / across);
    g.grid[1] = gm__extent((height + GM__BLOCK_WARPS * run - 1) / (GM__BLOCK_WARPS * run));
    g.grid[2] = gm__extent(batch);
    return g;
}

/* The tile path (templates/resize.cu): blocks of 32 lanes of `pixels`
 * columns by GM__BLOCK_WARPS runs of rows, the runs as long as leaves a
 * wave of blocks (up to 16 rows; 4 where the wave is unknown), since a
 * longer run computes its columns' taps and its source rows' passes for
 * more rows; a grid of more than a wave may take shorter runs
 * (GM__TILE_START). */
static gm__geometry gm__grid_of_tiles(long long width, long long height, long long batch, int pixels, int wave)
{
    gm__geometry g;
    long long images = gm__extent(batch), columns = (width + 32 * pixels - 1) / (32 * pixels);
    long long run = wave > 0 ? 16 : 4, per_wave = wave / GM__BLOCK_WARPS, r, cost, least = -1;
    while (run > 1 && gm__tile_blocks(columns, height, images, run) < per_wave)
        run /= 2;
    if (run == 16) /* a wave or more: the run whose waves cost least, each its run and a start */
        for (r = 16; r >= 4; r /= 2) {
            cost = (gm__tile_blocks(columns, height, images, r) + per_wave - 1) / per_wave * (r + GM__TILE_START);
            if (least < 0 || cost < least)
                least = cost, run = r;
        }
    g.block[0] = 32, g.block[1] = GM__BLOCK_WARPS;
    g.grid[0] = (unsigned)columns;
    g.grid[1] = gm__extent(gm__tile_blocks(1, height, 1, run));
    g.grid[2] = (unsigned)images;
    return g;
}

/* 1-D blocks of one warp task a warp (the fast and fill kernels), a huge
 * image looping: blocks of GM__BLOCK_WARPS warps, or half that where the
 * tasks outnumber the kernel's wave (the warps the device holds at once in
 * full blocks; 0 unknown): the blocks of the last wave then finish closer
 * together, so less of the kernel's end runs below the copy rate; a grid
 * within one wave keeps full blocks, which the one-wave grids of small
 * elements need. */
static void gm__grid_of_tasks(long long tasks, int wave, gm__ready* r)
{
    int warps = wave > 0 && tasks > wave ? GM__BLOCK_WARPS / 2 : GM__BLOCK_WARPS;
    long long blocks = (tasks + warps - 1) / warps;
    r->geometry.grid[0] = (unsigned)(blocks < 1 << 30 ? blocks : 1 << 30);
    r->geometry.grid[1] = r->geometry.grid[2] = 1;
    r->geometry.block[0] = 32 * warps, r->geometry.block[1] = 1;
    if (warps < GM__BLOCK_WARPS)
        r->event = GM_TRACE_LAUNCH_HALF;
}

/* Each family's launch (gen/model.py FAMILY_RUNNERS): the geometry of plan
 * p of kernel k in a context whose wave is `wave`, and the shared memory
 * and the trace event where they are not the defaults (none,
 * GM_TRACE_LAUNCH). Measurements: bench/RESULTS.md. */

/* The generic transform: a thread a pixel, blocks of 32 columns by
 * GM__BLOCK_WARPS rows. */
static void gm__grid_xform(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__xform_args* a = &p->args.xform;
    (void)k, (void)wave;
    r->geometry = gm__grid_of_rows(a->width, a->height, a->batch, 32, 1);
}

/* The fast transform (xform_fast.cu): R units of P pixels a lane. */
static void gm__grid_fast(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__xform_args* a = &p->args.xform;
    gm__grid_of_tasks(a->batch * a->height * gm__tasks_per_row(a->width, k->pixels, k->units), wave, r);
}

/* The fill kernel: its rows' bytes as width, each stream's rows apart. */
static void gm__grid_fill(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__fill_args* a = &p->args.fill;
    (void)k;
    gm__grid_of_tasks(a->batch * a->height * a->streams * gm__fill_tasks_per_row(a->bytes), wave, r);
}

/* A resize: its tile path where planned (gm__tiles), else a thread
 * GM__COLUMN_ROWS rows of a column. */
static void gm__grid_resize(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__resize_args* a = &p->args.resize;
    if (!a->map.tile) {
        r->geometry = gm__grid_of_rows(a->width, a->height, a->batch, 32, GM__COLUMN_ROWS);
        return;
    }
    r->geometry = gm__grid_of_tiles(a->width, a->height, a->batch, GM__TILE_PIXELS_RESIZE, wave);
    r->shared = GM__TILE_SHARED(a->map.tile, GM__TILE_OUT(k->channels));
    r->event = GM_TRACE_LAUNCH_TILE;
}

/* The whole-2x kernels (twice.cu): a thread k->pixels source (doubling) or
 * destination columns by a destination row, or doubling GM__TWICE_RUN
 * units of the two rows between source rows (one unit more than the
 * source's rows). */
static void gm__grid_twice(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__resize_args* a = &p->args.resize;
    int up = k->sampler == GM__SAMPLER_LINEAR;
    long long groups = ((up ? a->width / 2 : a->width) + k->pixels - 1) / k->pixels;
    (void)wave;
    r->geometry = gm__grid_of_rows(groups, up ? (a->height / 2 + GM__TWICE_RUN) / GM__TWICE_RUN : a->height,
                                   a->batch, 32, 1);
}

/* The pre-process: the tile path where planned; the point path
 * (templates/prep.cu): blocks of 32 GM__POINT_PIXELS columns by
 * GM__BLOCK_WARPS runs of GM__POINT_ROWS, and where that leaves a wave of
 * blocks or more, half as many rows of blocks, so that a thread takes two
 * runs half the image apart: a letterbox's pad bands, which load nothing,
 * then share threads with its image; else as a resize. */
static void gm__grid_prep(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__prep_args* a = gm__prep_args_of(p);
    gm__geometry* g = &r->geometry;
    (void)k;
    if (a->tile) {
        *g = gm__grid_of_tiles(a->width, a->height, a->count, GM__TILE_PIXELS_PREP, wave);
        r->shared = GM__TILE_SHARED(a->tile, 0);
        r->event = GM_TRACE_LAUNCH_TILE;
    } else if (a->points) {
        *g = gm__grid_of_rows(a->width, a->height, a->count, 32 * GM__POINT_PIXELS, GM__POINT_ROWS);
        if (wave > 0 && (long long)g->grid[0] * ((g->grid[1] + 1) / 2) * g->grid[2] >= wave / GM__BLOCK_WARPS)
            g->grid[1] = (g->grid[1] + 1) / 2;
        r->event = GM_TRACE_LAUNCH_POINTS;
    } else {
        *g = gm__grid_of_rows(a->width, a->height, a->count, 32, GM__COLUMN_ROWS);
    }
}

/* The YUV kernels (yuv.cu, yuv_from.cu): blocks of GM__YUV_BLOCK_X chunks
 * along a row by GM__YUV_BLOCK_Y threads, each of GM__YUV_PAIRS pairs of
 * rows into an 8-bit image, else one (as the kernel's Op::pairs). */
static void gm__grid_yuv(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__yuv_args* a = &p->args.yuv;
    const int pairs = k->family == GM__FAMILY_YUV_FROM || a->sample == 2 ? 1 : GM__YUV_PAIRS;
    gm__geometry* g = &r->geometry;
    (void)wave;
    g->block[0] = GM__YUV_BLOCK_X, g->block[1] = GM__YUV_BLOCK_Y;
    g->grid[0] = (unsigned)((a->width + GM__YUV_BLOCK_X * GM__YUV_CHUNK - 1) / (GM__YUV_BLOCK_X * GM__YUV_CHUNK));
    g->grid[1] = gm__extent((a->height / 2 + GM__YUV_BLOCK_Y * pairs - 1) / (GM__YUV_BLOCK_Y * pairs));
    g->grid[2] = gm__extent(a->batch);
}

/* gm_add_weighted's kernel (blend.cu): GM__BLEND_BYTES a thread along a
 * row, a block a row's stretch. */
static void gm__grid_blend(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__blend_args* a = &p->args.blend;
    gm__geometry* g = &r->geometry;
    (void)k, (void)wave;
    g->block[0] = GM__BLEND_THREADS, g->block[1] = 1;
    g->grid[0] = (unsigned)((a->bytes + GM__BLEND_BYTES * GM__BLEND_THREADS - 1) / (GM__BLEND_BYTES * GM__BLEND_THREADS));
    g->grid[1] = gm__extent(a->height);
    g->grid[2] = gm__extent(a->batch);
}

/* The overlay (overlay.cu): a block a frame tile that sprites touch, a
 * thread 4 pixels of a row (a 4:2:0 frame: 2x2 pixels). */
static void gm__grid_overlay(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__overlay_args* a = &p->args.overlay;
    gm__geometry* g = &r->geometry;
    (void)k, (void)wave;
    g->block[0] = a->yuv ? GM__OVERLAY_TILE_W / 2 : GM__OVERLAY_TILE_W / 4;
    g->block[1] = a->yuv ? GM__OVERLAY_TILE_H / 2 : GM__OVERLAY_TILE_H;
    g->grid[0] = (unsigned)a->ntiles, g->grid[1] = g->grid[2] = 1;
}

/* The warp (warp.cu): a thread GM__WARP_ROWS rows of a column, blocks of
 * 32 columns by GM__BLOCK_WARPS runs. */
static void gm__grid_warp(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r)
{
    const gm__warp_args* a = &p->args.warp;
    (void)k, (void)wave;
    r->geometry = gm__grid_of_rows(a->width, a->height, a->batch, 32, GM__WARP_ROWS);
}

/* A family's launch and CPU loop (NULL: it never runs on the host). */
typedef struct gm__runner {
    void (*grid)(const gm__plan* p, const gm__kernel_row* k, int wave, gm__ready* r);
    void (*cpu)(const gm__plan* p);
} gm__runner;

#define GM__RUNNER(grid, cpu) {grid, cpu},
static const gm__runner gm__runners[GM__FAMILY_COUNT] = {GM__FAMILY_RUNNERS(GM__RUNNER)};
#undef GM__RUNNER

/* The function of p's kernel in the current context (compiled or loaded on
 * first use) and the launch's geometry. */
static gm_status gm__prepare(const gm__plan* p, gm__ready* r)
{
    int wave = 0;
    gm_status s;
    const gm__kernel_row* k = &gm__kernels[p->kernel];
    /* gcc -O2 cannot always see that gm__function sets f and waits when it
     * returns GM_OK (a GPUMAT_STATIC build warned) */
    memset(r, 0, sizeof *r);
    if ((s = gm__function(p->fn, p->kernel, p->device, p->many != NULL, &r->f, &r->waits, &wave)) != GM_OK)
        return s;
    r->event = GM_TRACE_LAUNCH;
    gm__runners[k->family].grid(p, k, wave, r);
    return GM_OK;
}

/* Launches r on stream with the arguments params, overlapping the kernel
 * before it (programmatic stream serialization, loader.h) where r's
 * function waits for it and the driver has cuLaunchKernelEx. The driver's
 * code; *api names the call made. */
static int gm__launch(const gm__ready* r, gm_stream stream, void** params, const char** api)
{
    const gm__geometry* g = &r->geometry;
    gm__launch_attr pdl;
    gm__launch_config cfg;
    if (!r->waits || !gm__cu.cuLaunchKernelEx) {
        *api = "cuLaunchKernel";
        return gm__cu.cuLaunchKernel(r->f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], 1, r->shared, stream,
                                     params, NULL);
    }
    memset(&pdl, 0, sizeof pdl);
    pdl.id = GM__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    pdl.v.value = 1;
    memcpy(cfg.grid, g->grid, sizeof cfg.grid);
    cfg.block[0] = g->block[0], cfg.block[1] = g->block[1], cfg.block[2] = 1;
    cfg.shared = r->shared;
    cfg.stream = stream;
    cfg.attrs = &pdl;
    cfg.nattrs = 1;
    *api = "cuLaunchKernelEx";
    return gm__cu.cuLaunchKernelEx(&cfg, r->f, params, NULL);
}

/* Runs p: on the CPU, its family's loop, done on return; on the GPU, its
 * kernel queued on stream in the current context. */
static gm_status gm__run(const gm__plan* p, gm_stream stream)
{
    void* params[1];
    gm__ready r;
    const char* api;
    int rc;
    gm_status s;
    if (p->on_host) {
        gm__runners[gm__kernels[p->kernel].family].cpu(p);
        GM_TRACE(GM_TRACE_CPU, p->kernel);
        return GM_OK;
    }
    if ((s = gm__prepare(p, &r)) != GM_OK)
        return s;
    params[0] = p->many ? (void*)p->many : (void*)&p->args; /* the driver only reads it */
    if ((rc = gm__launch(&r, stream, params, &api)) != 0)
        return gm__cuda_fail(p->fn, api, rc);
    GM_TRACE(r.event, p->kernel);
    return GM_OK;
}

/* Plans and runs ops[0..n) in order. */
static gm_status gm__run_ops(const gm__op* ops, int n, gm_stream stream)
{
    gm__plan p;
    int i;
    gm_status s;
    for (i = 0; i < n; ++i) {
        gm__plan_op(&ops[i], &p);
        if ((s = gm__run(&p, stream)) != GM_OK)
            return s;
    }
    return GM_OK;
}
