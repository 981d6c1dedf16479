/* SPDX-License-Identifier: MIT */
/* Implementation: a warp on the CPU: the kernel's per-pixel code
 * (templates/warp.inc) over the destination's rows, on the pool. */

static void gm__cpu_warp_part(void* p, long long begin, long long end)
{
    const gm__plan* plan = (const gm__plan*)p;
    const gm__kernel_row* k = &gm__kernels[plan->kernel];
    gm__cpu_warp_fns[k->src](&plan->args.warp, k->channels, k->sampler, begin, end);
}

/* A warp plan on the CPU: its rows (numbered over the batch) on the pool,
 * parts of about gm__tune.cpu_part_bytes of work (a cubic pixel reads 16
 * taps a channel). */
static void gm__cpu_run_warp(const gm__plan* p)
{
    const gm__warp_args* a = &p->args.warp;
    const long long row_bytes = a->width * gm__kernels[p->kernel].channels * 64 + 1;
    gm__parallel(gm__cpu_warp_part, (void*)p, a->batch * a->height, gm__tune.cpu_part_bytes / row_bytes + 1);
}
