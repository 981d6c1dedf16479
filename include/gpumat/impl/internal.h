/* SPDX-License-Identifier: MIT */
/* Implementation: the internals that a program linking the implementation
 * from elsewhere (make lib's libgpumat.a, another object) can reach, declared
 * once for both sides. test_cpu links the library and reads or sets these:
 * the CPU path's tuning and instruction set (cpu_run.h), the YUV constants
 * and the YUV launch arguments (yuv.h). They have external linkage, as
 * GM__INTERNAL gives them; with GPUMAT_STATIC they are static and declared
 * by their definitions alone. Include after gpumat.h and gpumat/gen/pixel.h
 * (gm__yuv_args). */
#ifndef GPUMAT_IMPL_INTERNAL_H
#define GPUMAT_IMPL_INTERNAL_H

#ifdef GPUMAT_STATIC
#define GM__INTERNAL static
#else
#define GM__INTERNAL

#ifdef __cplusplus
extern "C" {
#endif
extern long long gm__cpu_stream_bytes, gm__cpu_part_bytes;
extern int gm__cpu_isa_forced;
extern const int gm__yuv_constants[3][2][5];
extern const int gm__yuv_forward[3][2][8];
void gm__yuv_args_of(gm__yuv_args* a, const gm_yuv* f, const gm_mat* m, int rgb);
#ifdef __cplusplus
}
#endif
#endif

#endif
