/* SPDX-License-Identifier: MIT */
/* Implementation: a plan on the CPU. A transform's rows are cut into
 * blocks of GM__CPU_PIXELS pixels; in a block, each source channel becomes
 * a contiguous run (where it is not one already), each destination channel
 * is converted from its source channel's run, and interleaved destination
 * channels are put together (impl/cpu.h's loops). Resize and the
 * pre-process run their per-pixel loops row by row. The blocks or rows are
 * shared out among the pool's threads (pool.h). */

/* Pixels a block: a block's staged runs (4 channels of 8 bytes each way,
 * 16 KB) stay in the first-level cache. A transform that stages nothing
 * (every run contiguous in place) takes blocks GM__CPU_DIRECT times as
 * long, since each block costs a call per channel. */
#define GM__CPU_PIXELS 256
#define GM__CPU_DIRECT 16

/* Bytes a thread's part moves at least: waking a worker costs tens of
 * microseconds, what a core moves of a 1 MB job in about as long. The
 * tests lower it to run small images on every thread. */
static long long gm__cpu_part_bytes = 1024 * 1024;

/* The instruction set the loops run with: 1 (GM__CPU_AVX2) where the CPU
 * has AVX2 and FMA, else 0. gm__cpu_isa_forced >= 0 chooses (the tests run
 * both). */
static int gm__cpu_isa_found, gm__cpu_isa_forced = -1;
static pthread_once_t gm__cpu_isa_once = PTHREAD_ONCE_INIT;

static void gm__cpu_isa_find(void)
{
#ifdef GM__CPU_AVX2
    __builtin_cpu_init();
    gm__cpu_isa_found = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
}

static int gm__cpu_isa(void)
{
    pthread_once(&gm__cpu_isa_once, gm__cpu_isa_find);
    return gm__cpu_isa_forced >= 0 && gm__cpu_isa_forced < GM__CPU_ISAS ? gm__cpu_isa_forced : gm__cpu_isa_found;
}

/* A transform on the CPU: its arguments, source and destination dtypes and
 * channels, the channels' arithmetic, its loops and blocks a row. */
typedef struct gm__cpu_job {
    const gm__xform_args* a;
    int es, ed, cs, cd, unzip, zip;
    int moves; /* unzip or zip straight between source and destination: every channel copied as it is */
    long long pixels; /* a block */
    gm__cpu_chan chan[4];
    gm__cpu_convert_fn convert;
    gm__cpu_unzip_fn unzipper;
    gm__cpu_zip_fn zipper;
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
    unsigned long long in_buf[4][GM__CPU_PIXELS], out_buf[4][GM__CPU_PIXELS]; /* 8 bytes an element at most */
    const long long pixels = J->pixels;
    unsigned char *in[4], *out[4];
    long long u;
    int c;
    for (u = begin; u < end; ++u) {
        long long row = u / J->blocks, x0 = u % J->blocks * pixels, b = row / a->height, y = row % a->height;
        long long n = a->width - x0 < pixels ? a->width - x0 : pixels;
        long long so = b * a->src_bstride + y * a->src_pitch + x0 * a->src_xstride;
        long long dof = b * a->dst_bstride + y * a->dst_pitch + x0 * a->dst_xstride;
        for (c = 0; c < 4; ++c)
            in[c] = (unsigned char*)in_buf[c], out[c] = (unsigned char*)out_buf[c];
        if (J->moves) {
            for (c = 0; c < J->cd; ++c) {
                in[c] = (unsigned char*)(uintptr_t)(a->src[c] + so);
                out[c] = (unsigned char*)(uintptr_t)(a->dst[c] + dof);
            }
            if (J->unzip)
                J->unzipper(in[0], out[0], out[1], out[2], out[3], n);
            else
                J->zipper(in[0], in[1], in[2], in[3], out[0], n);
            continue;
        }
        if (J->unzip) {
            J->unzipper((const unsigned char*)(uintptr_t)(a->src[0] + so), in[0], in[1], in[2], in[3], n);
        } else {
            for (c = 0; c < J->cs; ++c) {
                const unsigned char* s = (const unsigned char*)(uintptr_t)(a->src[c] + so);
                if (a->src_xstride == J->es)
                    in[c] = (unsigned char*)s; /* read only */
                else
                    gm__cpu_gather(s, a->src_xstride, in[c], J->es, n);
            }
        }
        for (c = 0; c < J->cd; ++c) {
            unsigned char* d = (unsigned char*)(uintptr_t)(a->dst[c] + dof);
            if (!J->zip && a->dst_xstride == J->ed)
                out[c] = d;
            J->convert(in[a->map[c] < 0 ? 0 : a->map[c]], out[c], n, &J->chan[c]);
            if (!J->zip && a->dst_xstride != J->ed)
                gm__cpu_scatter(out[c], d, a->dst_xstride, J->ed, n);
        }
        if (J->zip)
            J->zipper(out[0], out[1], out[2], out[3], (unsigned char*)(uintptr_t)(a->dst[0] + dof), n);
    }
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
    J.unzip = gm__cpu_interleaved(a->src, cs, a->src_xstride, J.es);
    J.zip = gm__cpu_interleaved(a->dst, cd, a->dst_xstride, J.ed);
    J.convert = gm__cpu_converts[S][D][isa];
    J.unzipper = J.unzip ? gm__cpu_unzips[J.es][cs - 2][isa] : NULL;
    J.zipper = J.zip ? gm__cpu_zips[J.ed][cd - 2][isa] : NULL;
    for (c = 0; c < cd; ++c) {
        gm__cpu_chan* k = &J.chan[c];
        k->pre = a->pre[c], k->scale = a->scale[c], k->offset = a->offset[c];
        k->fpre = (float)k->pre, k->fscale = (float)k->scale, k->foffset = (float)k->offset;
        k->kind = a->map[c] < 0 ? GM__CPU_CONST : gm__is_plain(0, k->pre, k->scale, k->offset) ? GM__PLAIN : GM__SCALED;
    }
    J.moves = S == D && cs == cd && (J.unzip ? a->dst_xstride == J.ed : J.zip && a->src_xstride == J.es);
    for (c = 0; c < cd; ++c) {
        J.chan[c].number = finite;
        J.moves &= a->map[c] == c && J.chan[c].kind == GM__PLAIN;
    }
    J.pixels = GM__CPU_PIXELS;
    if (J.moves || (!J.unzip && !J.zip && a->src_xstride == J.es && a->dst_xstride == J.ed))
        J.pixels *= GM__CPU_DIRECT;
    J.blocks = (a->width + J.pixels - 1) / J.pixels;
    bytes = J.pixels * (long long)(cs * J.es + cd * J.ed);
    if (rows > 0 && J.blocks > 0)
        gm__parallel(gm__cpu_xform_part, &J, rows * J.blocks, gm__cpu_part_bytes / bytes + 1);
}

/* Resize and pre-process: their plan, rows [begin, end). */
static void gm__cpu_resize_part(void* p, long long begin, long long end)
{
    const gm__plan* plan = (const gm__plan*)p;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    gm__cpu_resize_fns[k->src](&plan->args.resize, k->channels, k->sampler, begin, end);
}

static void gm__cpu_prep_part(void* p, long long begin, long long end)
{
    const gm__plan* plan = (const gm__plan*)p;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    const gm__prep_args* a = gm__prep_args_of(plan);
    gm__cpu_prep_fns[k->src][k->dst](a, k->channels, begin, end);
}

/* Runs plan p on the CPU, done on return. */
static void gm__cpu_run(const gm__plan* p)
{
    const gm__kernel_row* k = &gm__kernels[p->kernel];
    long long row_bytes;
    if (k->family == GM__FAMILY_RESIZE) {
        const gm__resize_args* a = &p->args.resize;
        row_bytes = a->width * k->channels * 8 + 1;
        gm__parallel(gm__cpu_resize_part, (void*)p, a->batch * a->height, gm__cpu_part_bytes / row_bytes + 1);
    } else if (k->family == GM__FAMILY_PREP) {
        const gm__prep_args* a = gm__prep_args_of(p);
        row_bytes = a->width * k->channels * 8 + 1;
        gm__parallel(gm__cpu_prep_part, (void*)p, a->count * a->height, gm__cpu_part_bytes / row_bytes + 1);
    } else {
        gm__cpu_xform(&p->args.xform, k->src, k->dst, p->src_channels, k->channels);
    }
}
