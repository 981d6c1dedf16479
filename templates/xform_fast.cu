/* The fast transform: P pixels per thread, moved with the widest loads and
 * stores their byte counts allow (16 bytes where the generator could choose P
 * so), for transforms that keep the channel count and treat every channel
 * alike, all plain or all scaled (convert, split, merge, channel swaps, blob). The host takes it only where every row, plane and
 * image start is aligned to those widths; otherwise it launches gm__xform.
 * The arithmetic is gm__channel, shared with the CPU path, so both kernels
 * and the CPU agree bit for bit. S, D: dtypes; C: channels; LS, LD: source
 * and destination layout (0 interleaved, 1 planar); P: pixels per thread. */

struct alignas(16) gm__v16 { unsigned int x, y, z, w; };
struct alignas(8) gm__v8 { unsigned int x, y; };

/* K bytes from (or to) global memory aligned to the widest unit dividing K. */
template <int K>
__device__ __forceinline__ void gm__vcopy(unsigned char* to, const unsigned char* from)
{
    if (K % 16 == 0) {
#pragma unroll
        for (int i = 0; i < K / 16; ++i)
            ((gm__v16*)to)[i] = ((const gm__v16*)from)[i];
    } else if (K % 8 == 0) {
#pragma unroll
        for (int i = 0; i < K / 8; ++i)
            ((gm__v8*)to)[i] = ((const gm__v8*)from)[i];
    } else if (K % 4 == 0) {
#pragma unroll
        for (int i = 0; i < K / 4; ++i)
            ((unsigned int*)to)[i] = ((const unsigned int*)from)[i];
    } else if (K % 2 == 0) {
#pragma unroll
        for (int i = 0; i < K / 2; ++i)
            ((unsigned short*)to)[i] = ((const unsigned short*)from)[i];
    } else {
#pragma unroll
        for (int i = 0; i < K; ++i)
            to[i] = from[i];
    }
}

/* An element's bytes as one integer, so the channel map selects in registers. */
template <int N> struct gm__raw;
template <> struct gm__raw<1> { typedef unsigned char t; };
template <> struct gm__raw<2> { typedef unsigned short t; };
template <> struct gm__raw<4> { typedef unsigned int t; };
template <> struct gm__raw<8> { typedef unsigned long long t; };

/* One row run of P pixels at x0; KIND fixed so the per-element tests fold. */
template <int S, int D, int C, int LS, int LD, int P, int KIND>
__device__ __forceinline__ void gm__run_fast(const gm__xform_args& a, long long so, long long dof)
{
    typedef typename gm__raw<gm__esize[S]>::t TS;
    typedef typename gm__raw<gm__esize[D]>::t TD;
    /* element (p, c) sits at [p * C + c] interleaved, [c * P + p] planar */
    union { gm__v16 align; TS e[P * C]; } in;
    union { gm__v16 align; TD e[P * C]; } out;
    if (LS == 0) {
        gm__vcopy<P * C * gm__esize[S]>((unsigned char*)in.e, (const unsigned char*)(a.src[0] + so));
    } else {
#pragma unroll
        for (int c = 0; c < C; ++c)
            gm__vcopy<P * gm__esize[S]>((unsigned char*)(in.e + c * P), (const unsigned char*)(a.src[c] + so));
    }
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
        for (int c = 0; c < C; ++c) {
            int m = a.map[c];
            TS v = in.e[LS == 0 ? p * C : p];
#pragma unroll
            for (int k = 1; k < C; ++k)
                v = m == k ? in.e[LS == 0 ? p * C + k : k * P + p] : v;
            gm__channel(KIND, S, D, (const unsigned char*)&v, (unsigned char*)&out.e[LD == 0 ? p * C + c : c * P + p],
                        m < 0, a.pre[c], a.scale[c], a.offset[c]);
        }
    if (LD == 0) {
        gm__vcopy<P * C * gm__esize[D]>((unsigned char*)(a.dst[0] + dof), (const unsigned char*)out.e);
    } else {
#pragma unroll
        for (int c = 0; c < C; ++c)
            gm__vcopy<P * gm__esize[D]>((unsigned char*)(a.dst[c] + dof), (const unsigned char*)(out.e + c * P));
    }
}

template <int S, int D, int C, int LS, int LD, int P>
__device__ __forceinline__ void gm__xform_fast(const gm__xform_args& a)
{
    long long x0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * P;
    if (x0 >= a.width)
        return;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < a.height;
             y += (long long)gridDim.y * blockDim.y) {
            long long so = b * a.src_bstride + y * a.src_pitch + x0 * a.src_xstride;
            long long dof = b * a.dst_bstride + y * a.dst_pitch + x0 * a.dst_xstride;
            if (x0 + P > a.width) { /* the row's ragged end */
                for (long long x = x0; x < a.width; ++x)
                    gm__pixel(S, D, C, &a, b, y, x);
            } else if (a.kind == GM__PLAIN) {
                gm__run_fast<S, D, C, LS, LD, P, GM__PLAIN>(a, so, dof);
            } else {
                gm__run_fast<S, D, C, LS, LD, P, GM__SCALED>(a, so, dof);
            }
        }
}
