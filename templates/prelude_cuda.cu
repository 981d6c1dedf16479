/* SPDX-License-Identifier: MIT */
/* JIT prelude: what the per-pixel templates (codec.inc, pixel.inc) expect
 * from their includer, for NVRTC. No #include: the user's machine has no
 * toolkit headers. */
#define GM__FN __device__ __forceinline__ static
#define GM__F32_BITS(f) __float_as_uint(f)
#define GM__BITS_F32(u) __uint_as_float(u)
/* 8- and 16-bit integers to float by integer arithmetic (codec.inc). */
#define GM__SMALL_INT_BY_BITS 1
/* Products rounded on their own: the _rn intrinsics are never fused into a
 * multiply-add, whatever -fmad says. */
#define GM__MUL_D(a, b) __dmul_rn(a, b)
#define GM__MUL_F(a, b) __fmul_rn(a, b)
#define GM__FMA_F(a, b, c) __fmaf_rn(a, b, c)
/* A loop of constant trip count unrolled, so arrays it indexes stay in
 * registers. */
#define GM__UNROLL _Pragma("unroll")

/* Hardware float -> f16 / bf16, round to nearest even (bf16 needs sm_80). */
__device__ __forceinline__ unsigned int gm__hw_f16(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#define GM__HW_F16(f) gm__hw_f16(f)

/* Hardware f16 -> float, exact for every number. */
__device__ __forceinline__ float gm__hw_f16_to_f32(unsigned int h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
    return f;
}
#define GM__HW_F16_TO_F32(h) gm__hw_f16_to_f32(h)
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned int gm__hw_bf16(float f)
{
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#define GM__HW_BF16(f) gm__hw_bf16(f)
#endif

/* Hardware float -> int32, round half to even; PTX clamps float-to-integer
 * conversions to the destination range. A NaN it may see gives 0, and the
 * caller's select maps NaN to 0 anyway. */
__device__ __forceinline__ int gm__hw_f2i_rn(float f)
{
    int i;
    asm("cvt.rni.s32.f32 %0, %1;" : "=r"(i) : "f"(f));
    return i;
}
#define GM__HW_F2I_RN(f) gm__hw_f2i_rn(f)

/* Hardware double -> int32, round half to even (saturating). */
__device__ __forceinline__ int gm__hw_d2i_rn(double d)
{
    int i;
    asm("cvt.rni.s32.f64 %0, %1;" : "=r"(i) : "d"(d));
    return i;
}
#define GM__HW_D2I_RN(d) gm__hw_d2i_rn(d)

/* Every kernel's first step. Launched with programmatic stream serialization
 * (sm_90+, impl/run.h), a kernel may start while the one before it in the
 * stream drains: it waits here until that kernel has finished and its
 * writes are visible. The next launch comes in as this one's blocks exit
 * (no griddepcontrol.launch_dependents: letting it in from the start made
 * most kernels slower, bench/RESULTS.md). */
__device__ __forceinline__ void gm__grid_begin()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Runs run(b, x, y, end) for every run of `rows` rows [y, end) of one column
 * x of a width x height x batch launch of the 2-D kernels: blocks of 32
 * columns by runs, one image a z block; rows and images beyond the grid are
 * covered by stride loops, so any height and batch fit in the launch
 * limits. A thread walking several rows computes what its column shares
 * once (the host sizes the grid by the same rows, impl/run.h). */
template <class Run>
__device__ __forceinline__ void gm__each_run(long long width, long long height, long long batch, int rows, Run run)
{
    long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x, step = (long long)gridDim.y * blockDim.y * rows;
    gm__grid_begin();
    if (x >= width)
        return;
    for (long long b = blockIdx.z; b < batch; b += gridDim.z)
        for (long long y = ((long long)blockIdx.y * blockDim.y + threadIdx.y) * rows; y < height; y += step)
            run(b, x, y, y + rows < height ? y + rows : height);
}
