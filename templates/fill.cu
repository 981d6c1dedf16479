/* SPDX-License-Identifier: MIT */
/* The fill: every channel of a launch a constant, so the kernel only
 * stores, and stores bytes: one kernel serves every dtype, the host
 * encoding the pattern (templates/fill.inc, impl/plan.h). A warp takes a
 * task of 32 * GM__FILL_CHUNKS 16-byte chunks of a row, counted from the
 * 16-byte boundary at or before the row's start, lane l chunks l, l + 32,
 * ..., so that each store instruction of the warp covers 512 contiguous
 * bytes. A chunk inside the row is one 16-byte store of the pattern from
 * the chunk's phase; the chunks the row starts or ends inside store their
 * bytes in the row one at a time. */

/* Byte i (below 64) of a stream's repeated pattern. */
__device__ __forceinline__ unsigned char gm__fill_byte(const unsigned int* pattern, long long i)
{
    return (unsigned char)(pattern[i >> 2] >> 8 * (i & 3));
}

__device__ __forceinline__ void gm__fill(const gm__fill_args& a)
{
    __shared__ unsigned int pattern[4][16];
    if (threadIdx.x < 64)
        pattern[threadIdx.x / 16][threadIdx.x % 16] = a.pattern[threadIdx.x / 16][threadIdx.x % 16];
    __syncthreads();
    gm__grid_begin();
    const int lane = threadIdx.x % 32, period = a.period, step = 512 % period;
    const long long per_row = gm__fill_tasks_per_row(a.bytes), tasks = a.streams * a.batch * a.height * per_row;
    for (long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < tasks;
         t += (long long)gridDim.x * blockDim.x / 32) {
        long long row = t / per_row, y = row % a.height, b = row / a.height % a.batch;
        int s = (int)(row / a.height / a.batch);
        const unsigned int* p = pattern[s];
        unsigned long long start = a.dst.chan[s] + (unsigned long long)gm__view_at(&a.dst, b, y, 0), end = start + a.bytes;
        unsigned long long q = (start & ~15ull) + 16 * (t % per_row * 32 * GM__FILL_CHUNKS + lane);
        int phase = (int)((long long)(q - start) % period);
        phase += phase < 0 ? period : 0;
#pragma unroll
        for (int k = 0; k < GM__FILL_CHUNKS && q < end; ++k) {
            if (q >= start && q + 16 <= end) {
                const unsigned int* w = p + (phase >> 2);
                unsigned int o[4];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    o[i] = __funnelshift_r(w[i], w[i + 1], 8 * (phase & 3));
                gm__st16(q, o);
            } else {
                for (int i = 0; i < 16; ++i)
                    if (q + i >= start && q + i < end)
                        gm__st(q + i, gm__fill_byte(p, (long long)(q + i - start) % period));
            }
            q += 512;
            phase += phase + step >= period ? step - period : step;
        }
    }
}

/* The entry point of the fill's one catalogue row (its fields unused). */
#define GM__ENTRY_FILL(name, S, D, C, LS, LD, P, R, B, I) \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS) name(gm__fill_args a) { gm__fill(a); }
