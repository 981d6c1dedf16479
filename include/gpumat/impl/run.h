/* SPDX-License-Identifier: MIT */
/* Implementation: the runner. A plan (plan.h) runs on the CPU, done on
 * return, or as one launch of its kernel, queued on the stream. */

#include <string.h>

/* A launch's grid and block. */
typedef struct gm__geometry {
    unsigned grid[3], block[2];
} gm__geometry;

/* A plan made ready to launch in the current context: its kernel's
 * function, the geometry, whether the launch may overlap the kernel before
 * it (the function waits for it, gm__function), the bytes of the tile
 * path's slots (0: the launch does not take it), whether it takes the
 * pre-process's point path, and the shared memory a block takes. */
typedef struct gm__ready {
    gm__CUfunction f;
    gm__geometry geometry;
    int waits, tile, points;
    unsigned shared;
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

/* The fast kernel k: 1-D blocks, one warp task a warp (xform_fast.cu), a
 * huge image looping. Blocks of GM__BLOCK_WARPS warps, or half that where
 * the tasks outnumber the kernel's wave (the warps the device holds at once
 * in full blocks; 0 unknown): the blocks of the last wave then finish closer
 * together, so less of the kernel's end runs below the copy rate; a grid
 * within one wave keeps full blocks, which the one-wave grids of small
 * elements need. The fill kernel likewise, its rows' bytes as width. The
 * other kernels: blocks of 32 columns by GM__BLOCK_WARPS
 * runs of rows (one row a thread in the generic kernel, GM__COLUMN_ROWS in
 * the resize and pre-process kernels). Their tile path (tile set,
 * templates/resize.cu): blocks of 32 GM__TILE_PIXELS_... columns by
 * GM__BLOCK_WARPS runs of rows, the runs as long as leaves a wave of
 * blocks (up to 16 rows; 4 where the wave is unknown), since a longer run
 * computes its columns' taps and its source rows' passes for more rows;
 * a grid of more than a wave may take shorter runs (GM__TILE_START).
 * The pre-process's point path (points set, templates/prep.cu): blocks of
 * 32 GM__POINT_PIXELS columns by GM__BLOCK_WARPS runs of GM__POINT_ROWS;
 * where that leaves a wave of blocks or more, half as many rows of blocks,
 * so that a thread takes two runs half the image apart: a letterbox's pad
 * bands, which load nothing, then share threads with its image.
 * Measurements: bench/RESULTS.md. */
static gm__geometry gm__geometry_for(const gm__kernel_row* k, long long width, long long height, long long batch,
                                     int wave, int tile, int points)
{
    gm__geometry g;
    long long images = batch < 65535 ? batch : 65535;
    if (tile) {
        long long across = 32 * (k->family == GM__FAMILY_RESIZE ? GM__TILE_PIXELS_RESIZE : GM__TILE_PIXELS_PREP);
        long long columns = (width + across - 1) / across, run = wave > 0 ? 16 : 4, bands;
        long long per_wave = wave / GM__BLOCK_WARPS, r, cost, least = -1;
        while (run > 1 && gm__tile_blocks(columns, height, images, run) < per_wave)
            run /= 2;
        if (run == 16) /* a wave or more: the run whose waves cost least, each its run and a start */
            for (r = 16; r >= 4; r /= 2) {
                cost = (gm__tile_blocks(columns, height, images, r) + per_wave - 1) / per_wave * (r + GM__TILE_START);
                if (least < 0 || cost < least)
                    least = cost, run = r;
            }
        bands = gm__tile_blocks(1, height, 1, run);
        g.block[0] = 32, g.block[1] = GM__BLOCK_WARPS;
        g.grid[0] = (unsigned)columns;
        g.grid[1] = (unsigned)(bands < 65535 ? bands : 65535);
        g.grid[2] = (unsigned)images;
        return g;
    }
    if (k->family == GM__FAMILY_TWICE) {
        /* a thread k->pixels source (doubling) or destination columns
         * by a destination row, or doubling GM__TWICE_RUN units of the two
         * rows between source rows (one unit more than the source's rows) */
        int up = k->sampler == GM__SAMPLER_LINEAR;
        long long groups = ((up ? width / 2 : width) + k->pixels - 1) / k->pixels;
        long long units = up ? (height / 2 + GM__TWICE_RUN) / GM__TWICE_RUN : height;
        long long rows = (units + GM__BLOCK_WARPS - 1) / GM__BLOCK_WARPS;
        g.block[0] = 32, g.block[1] = GM__BLOCK_WARPS;
        g.grid[0] = (unsigned)((groups + 31) / 32);
        g.grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
        g.grid[2] = (unsigned)images;
    } else if (k->family == GM__FAMILY_XFORM_FAST || k->family == GM__FAMILY_FILL) {
        long long tasks = batch * height *
                          (k->family == GM__FAMILY_FILL ? gm__fill_tasks_per_row(width)
                                                        : gm__tasks_per_row(width, k->pixels, k->units));
        int warps = wave > 0 && tasks > wave ? GM__BLOCK_WARPS / 2 : GM__BLOCK_WARPS;
        long long blocks = (tasks + warps - 1) / warps;
        g.grid[0] = (unsigned)(blocks < 1 << 30 ? blocks : 1 << 30);
        g.grid[1] = g.grid[2] = 1;
        g.block[0] = 32 * warps, g.block[1] = 1;
    } else {
        int run = k->family == GM__FAMILY_XFORM ? 1 : points ? GM__POINT_ROWS : GM__COLUMN_ROWS;
        long long rows = (height + GM__BLOCK_WARPS * run - 1) / (GM__BLOCK_WARPS * run);
        long long across = points ? 32 * GM__POINT_PIXELS : 32;
        g.block[0] = 32, g.block[1] = GM__BLOCK_WARPS;
        g.grid[0] = (unsigned)((width + across - 1) / across);
        g.grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
        g.grid[2] = (unsigned)images;
        if (points && wave > 0 && (long long)g.grid[0] * ((g.grid[1] + 1) / 2) * g.grid[2] >= wave / GM__BLOCK_WARPS)
            g.grid[1] = (g.grid[1] + 1) / 2;
    }
    return g;
}

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
    r->tile = k->family == GM__FAMILY_RESIZE ? p->args.resize.map.tile
              : gm__is_prep(k) ? gm__prep_args_of(p)->tile
                                             : 0;
    r->points = gm__is_prep(k) && gm__prep_args_of(p)->points;
    r->shared = r->tile ? GM__TILE_SHARED(r->tile, k->family == GM__FAMILY_RESIZE ? GM__TILE_OUT(k->channels) : 0) : 0;
    if (k->family == GM__FAMILY_RESIZE || k->family == GM__FAMILY_TWICE)
        r->geometry = gm__geometry_for(k, p->args.resize.width, p->args.resize.height, p->args.resize.batch, wave,
                                       r->tile, 0);
    else if (k->family == GM__FAMILY_FILL)
        r->geometry = gm__geometry_for(k, p->args.fill.bytes, p->args.fill.height * p->args.fill.streams,
                                       p->args.fill.batch, wave, 0, 0);
    else if (gm__is_prep(k))
        r->geometry = gm__geometry_for(k, gm__prep_args_of(p)->width, gm__prep_args_of(p)->height,
                                       gm__prep_args_of(p)->count, wave, r->tile, r->points);
    else
        r->geometry = gm__geometry_for(k, p->args.xform.width, p->args.xform.height, p->args.xform.batch, wave, 0, 0);
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

/* Launches catalogue row `row` without a plan (the overlay, blend and YUV
 * kernels, which take arguments of their own) on stream, in device dev's
 * context made current (gm__context): grid blocks of block threads, the
 * one argument at args. */
static gm_status gm__launch_row(const char* fn, int row, int dev, const unsigned* grid, const unsigned* block,
                                void* args, gm_stream stream)
{
    gm__ready r;
    void* params[1];
    const char* api;
    int rc;
    gm_status s;
    memset(&r, 0, sizeof r);
    if ((s = gm__function(fn, row, dev, 0, &r.f, &r.waits, NULL)) != GM_OK)
        return s;
    memcpy(r.geometry.grid, grid, sizeof r.geometry.grid);
    memcpy(r.geometry.block, block, sizeof r.geometry.block);
    params[0] = args; /* the driver only reads it */
    if ((rc = gm__launch(&r, stream, params, &api)) != 0)
        return gm__cuda_fail(fn, api, rc);
    GM_TRACE(GM_TRACE_LAUNCH, row);
    return GM_OK;
}

/* Runs p: on the CPU (cpu_run.h), done on return; on the GPU, its kernel
 * queued on stream in the current context. */
static gm_status gm__run(const gm__plan* p, gm_stream stream)
{
    void* params[1];
    gm__ready r;
    const char* api;
    int rc;
    gm_status s;
    if (p->on_host) {
        gm__cpu_run(p);
        GM_TRACE(GM_TRACE_CPU, p->kernel);
        return GM_OK;
    }
    if ((s = gm__prepare(p, &r)) != GM_OK)
        return s;
    params[0] = p->many ? (void*)p->many : (void*)&p->args; /* the driver only reads it */
    if ((rc = gm__launch(&r, stream, params, &api)) != 0)
        return gm__cuda_fail(p->fn, api, rc);
    GM_TRACE(r.tile     ? GM_TRACE_LAUNCH_TILE
             : r.points ? GM_TRACE_LAUNCH_POINTS
             : r.geometry.block[0] * r.geometry.block[1] < 32 * GM__BLOCK_WARPS ? GM_TRACE_LAUNCH_HALF
                                                                                : GM_TRACE_LAUNCH,
             p->kernel);
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
