/* SPDX-License-Identifier: MIT */
/* Implementation: the internals that a program linking the implementation
 * from elsewhere (make lib's libgpumat.a, another object) can reach, declared
 * once for both sides. test_cpu links the library and reads or sets these:
 * the tuning (gm__tune, the one internal a test writes), the YUV constants
 * and the YUV launch arguments (yuv.h). They have external linkage, as
 * GM__INTERNAL gives them; with GPUMAT_STATIC they are static and declared
 * by their definitions alone. Include after gpumat.h and gpumat/gen/pixel.h
 * (gm__yuv_args). */
#ifndef GPUMAT_IMPL_INTERNAL_H
#define GPUMAT_IMPL_INTERNAL_H

/* The sizes from which work is shared out or written past the caches, and
 * the CPU loops' instruction set. The tests lower the sizes or choose the
 * instruction set to reach every path on small images; nothing else is
 * written from outside. The defaults' measurements: bench/RESULTS.md. */
typedef struct gm__tuning {
    /* A transform whose destination has at least this many bytes writes it
     * past the caches (cpu.h's GM__CPU_NT) where its runs are contiguous or
     * interleaved, a split or merge of one dtype from a 16th of it (its
     * blocks go from the first-level cache straight to whole lines). */
    long long cpu_stream_bytes;
    /* Bytes a CPU thread's part moves at least: waking a worker costs tens
     * of microseconds, what a core moves of a 1 MB job in about as long. */
    long long cpu_part_bytes;
    /* Bytes of the overlay's staging copy a thread's part moves at least. */
    long long overlay_part_bytes;
    /* The CPU loops' instruction set: 0 the baseline, 1 AVX2 with FMA
     * (where compiled, cpu.h), -1 what the CPU has. */
    int cpu_isa;
} gm__tuning;

#ifdef GPUMAT_STATIC
#define GM__INTERNAL static
#else
#define GM__INTERNAL

#ifdef __cplusplus
extern "C" {
#endif
extern gm__tuning gm__tune;
extern const int gm__yuv_constants[3][2][5];
extern const int gm__yuv_forward[3][2][8];
void gm__yuv_args_of(gm__yuv_args* a, const gm_yuv* f, const gm_mat* m, int rgb);
#ifdef __cplusplus
}
#endif
#endif

#ifdef GPUMAT_IMPLEMENTED
GM__INTERNAL gm__tuning gm__tune = {64LL << 20, 1024 * 1024, 256 * 1024, -1};
#endif

#endif
