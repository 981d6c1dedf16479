/* SPDX-License-Identifier: MIT */
/* Implementation: a transform on the CPU. Its rows are cut into blocks of
 * GM__CPU_PIXELS pixels; in a block, each source channel becomes a
 * contiguous run (where it is not one already), each destination channel
 * is converted from its source channel's run, and interleaved destination
 * channels are put together (impl/cpu.h's loops); large destinations are
 * written past the caches. The blocks are shared out among the pool's
 * threads (pool.h). */

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

/* A transform plan on the CPU, done on return. */
static void gm__cpu_run_xform(const gm__plan* p)
{
    const gm__kernel_row* k = &gm__kernels[p->kernel];
    gm__cpu_xform(&p->args.xform, k->src, k->dst, p->src_channels, k->channels);
}
