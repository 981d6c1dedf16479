/* JIT prelude: what templates/pixel.inc expects from its includer, for NVRTC.
 * No #include: the user's machine has no toolkit headers. */
#define GM__FN __device__ __forceinline__ static
#define GM__F32_BITS(f) __float_as_uint(f)
#define GM__BITS_F32(u) __uint_as_float(u)
