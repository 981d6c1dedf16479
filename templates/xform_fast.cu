/* The fast transform: P pixels per thread, moved with the widest loads and
 * stores their byte counts allow (16 bytes where the generator could choose P
 * so), for transforms that keep the channel count and treat every channel
 * alike, all plain or all scaled (convert, split, merge, channel swaps, blob). The host takes it only where every row, plane and
 * image start is aligned to those widths; otherwise it launches gm__xform.
 * The arithmetic is gm__channel, shared with the CPU path, so both kernels
 * and the CPU agree bit for bit. S, D: dtypes; C: channels; LS, LD: source
 * and destination layout (0 interleaved, 1 planar); P: pixels per unit; R:
 * units per thread. */

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

/* A unit: P consecutive pixels, element (p, c) at [p * C + c] interleaved,
 * [c * P + p] planar. */
template <int S, int C, int L, int P>
__device__ __forceinline__ void gm__load_unit(typename gm__raw<gm__esize[S]>::t* e, const gm__xform_args& a,
                                              long long off)
{
    if (L == 0) {
        gm__vcopy<P * C * gm__esize[S]>((unsigned char*)e, (const unsigned char*)(a.src[0] + off));
    } else {
#pragma unroll
        for (int c = 0; c < C; ++c)
            gm__vcopy<P * gm__esize[S]>((unsigned char*)(e + c * P), (const unsigned char*)(a.src[c] + off));
    }
}

/* Converts one loaded unit and stores it; KIND fixed so the per-element
 * tests fold, the channel parameters already in registers. */
template <int S, int D, int C, int LS, int LD, int P, int KIND>
__device__ __forceinline__ void gm__store_unit(const typename gm__raw<gm__esize[S]>::t* in, const gm__xform_args& a,
                                               long long off, const int* m, const double* pre, const double* scale,
                                               const double* offset)
{
    typedef typename gm__raw<gm__esize[S]>::t TS;
    typedef typename gm__raw<gm__esize[D]>::t TD;
    union { gm__v16 align; TD e[P * C]; } out;
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
        for (int c = 0; c < C; ++c) {
            TS v = in[LS == 0 ? p * C : p];
#pragma unroll
            for (int k = 1; k < C; ++k)
                v = m[c] == k ? in[LS == 0 ? p * C + k : k * P + p] : v;
            gm__channel(KIND, S, D, (const unsigned char*)&v, (unsigned char*)&out.e[LD == 0 ? p * C + c : c * P + p],
                        0, pre[c], scale[c], offset[c]);
        }
    if (LD == 0) {
        gm__vcopy<P * C * gm__esize[D]>((unsigned char*)(a.dst[0] + off), (const unsigned char*)out.e);
    } else {
#pragma unroll
        for (int c = 0; c < C; ++c)
            gm__vcopy<P * gm__esize[D]>((unsigned char*)(a.dst[c] + off), (const unsigned char*)(out.e + c * P));
    }
}

/* Each thread takes R units of a row, blockDim.x units apart, so every load
 * and store instruction of a warp covers one contiguous run of memory; all R
 * loads are issued before the first store. */
template <int S, int D, int C, int LS, int LD, int P, int R, int KIND>
__device__ __forceinline__ void gm__rows_fast(const gm__xform_args& a)
{
    typedef typename gm__raw<gm__esize[S]>::t TS;
    int m[C];
    double pre[C], scale[C], offset[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        m[c] = a.map[c];
        pre[c] = a.pre[c];
        scale[c] = a.scale[c];
        offset[c] = a.offset[c];
    }
    long long u0 = (long long)blockIdx.x * blockDim.x * R + threadIdx.x;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < a.height;
             y += (long long)gridDim.y * blockDim.y) {
            long long so = b * a.src_bstride + y * a.src_pitch, dof = b * a.dst_bstride + y * a.dst_pitch;
            union { gm__v16 align; TS e[R][P * C]; } in;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                long long x0 = (u0 + (long long)r * blockDim.x) * P;
                if (x0 + P <= a.width)
                    gm__load_unit<S, C, LS, P>(in.e[r], a, so + x0 * a.src_xstride);
            }
#pragma unroll
            for (int r = 0; r < R; ++r) {
                long long x0 = (u0 + (long long)r * blockDim.x) * P;
                if (x0 + P <= a.width)
                    gm__store_unit<S, D, C, LS, LD, P, KIND>(in.e[r], a, dof + x0 * a.dst_xstride, m, pre, scale,
                                                             offset);
                else /* the row's ragged end */
                    for (long long x = x0; x < a.width; ++x)
                        gm__pixel(S, D, C, &a, b, y, x);
            }
        }
}

template <int S, int D, int C, int LS, int LD, int P, int R>
__device__ __forceinline__ void gm__xform_fast(const gm__xform_args& a)
{
    if (a.kind == GM__PLAIN)
        gm__rows_fast<S, D, C, LS, LD, P, R, GM__PLAIN>(a);
    else
        gm__rows_fast<S, D, C, LS, LD, P, R, GM__SCALED>(a);
}
