/* The fast transform: units of P pixels, moved with the widest loads and
 * stores their byte counts allow (16 bytes where the generator could choose P
 * so), for transforms that keep the channel count, treat every channel alike
 * (all plain or all scaled) and read channel c into channel c: the host folds
 * a channel map into the plane addresses (convert, split, merge, blob with
 * swap_rb). A runtime map inside the kernel would cost registers spilled to
 * local memory, so other maps take the generic kernel. The host takes it only where every row, plane and
 * image start is aligned to those widths; otherwise it launches gm__xform.
 * The arithmetic is gm__channel, shared with the CPU path, so both kernels
 * and the CPU agree bit for bit. S, D: dtypes; C: channels; LS, LD: source
 * and destination layout (0 interleaved, 1 planar); P: pixels per unit; R:
 * units per thread. */

/* An element's bytes as one integer, so values stay in registers. */
template <int N> struct gm__raw;
template <> struct gm__raw<1> { typedef unsigned char t; };
template <> struct gm__raw<2> { typedef unsigned short t; };
template <> struct gm__raw<4> { typedef unsigned int t; };
template <> struct gm__raw<8> { typedef unsigned long long t; };

/* K bytes held as words (4 bytes where K allows, else 2 or 1), every index
 * known at compile time so the compiler keeps them in registers. */
template <int K>
struct gm__bytes {
    enum { WB = K % 4 == 0 ? 4 : K % 2 == 0 ? 2 : 1, N = K / WB };
    typedef typename gm__raw<WB>::t W;
    W w[N];

    /* K bytes from global memory aligned to the widest unit dividing K. The
     * 16- and 8-byte moves are written in PTX: left to itself the compiler
     * may split a vector store into scalar ones. */
    __device__ __forceinline__ void load(unsigned long long addr)
    {
        if constexpr (WB == 4 && K % 16 == 0) {
#pragma unroll
            for (int i = 0; i < K / 16; ++i)
                asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(w[4 * i]), "=r"(w[4 * i + 1]), "=r"(w[4 * i + 2]), "=r"(w[4 * i + 3])
                             : "l"(addr + 16 * i));
        } else if constexpr (WB == 4 && K % 8 == 0) {
#pragma unroll
            for (int i = 0; i < K / 8; ++i)
                asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(w[2 * i]), "=r"(w[2 * i + 1]) : "l"(addr + 8 * i));
        } else {
#pragma unroll
            for (int i = 0; i < N; ++i)
                w[i] = ((const W*)addr)[i];
        }
    }

    __device__ __forceinline__ void store(unsigned long long addr) const
    {
        if constexpr (WB == 4 && K % 16 == 0) {
#pragma unroll
            for (int i = 0; i < K / 16; ++i)
                asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(addr + 16 * i), "r"(w[4 * i]),
                             "r"(w[4 * i + 1]), "r"(w[4 * i + 2]), "r"(w[4 * i + 3])
                             : "memory");
        } else if constexpr (WB == 4 && K % 8 == 0) {
#pragma unroll
            for (int i = 0; i < K / 8; ++i)
                asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(addr + 8 * i), "r"(w[2 * i]), "r"(w[2 * i + 1])
                             : "memory");
        } else {
#pragma unroll
            for (int i = 0; i < N; ++i)
                ((W*)addr)[i] = w[i];
        }
    }

    /* Element i of ES bytes. */
    template <int ES>
    __device__ __forceinline__ typename gm__raw<ES>::t get(int i) const
    {
        typedef typename gm__raw<ES>::t T;
        if (ES == 8)
            return (T)w[2 * i] | ((T)w[2 * i + 1] << 32);
        if (ES == WB)
            return (T)w[i];
        return (T)(w[i * ES / WB] >> (8 * (i * ES % WB)));
    }

    template <int ES>
    __device__ __forceinline__ void set(int i, typename gm__raw<ES>::t v)
    {
        if (ES == 8) {
            w[2 * i] = (W)v;
            w[2 * i + 1] = (W)((unsigned long long)v >> 32);
        } else if (ES == WB) {
            w[i] = (W)v;
        } else {
            int sh = 8 * (i * ES % WB);
            W mask = (W)((((unsigned long long)1 << (8 * ES)) - 1) << sh);
            w[i * ES / WB] = (W)((w[i * ES / WB] & ~mask) | ((W)v << sh));
        }
    }
};

/* A unit: P consecutive pixels, each stream (the interleaved run, or each
 * plane) P * C or P elements, loaded or stored in one go. */
template <int ES, int C, int L, int P>
struct gm__unit {
    enum { STREAMS = L == 0 ? 1 : C, PER = L == 0 ? P * C : P };
    gm__bytes<PER * ES> s[STREAMS];

    /* Element (p, c). */
    __device__ __forceinline__ typename gm__raw<ES>::t get(int p, int c) const
    {
        return L == 0 ? s[0].template get<ES>(p * C + c) : s[c].template get<ES>(p);
    }

    __device__ __forceinline__ void set(int p, int c, typename gm__raw<ES>::t v)
    {
        if (L == 0)
            s[0].template set<ES>(p * C + c, v);
        else
            s[c].template set<ES>(p, v);
    }

    __device__ __forceinline__ void load(const unsigned long long* base, long long off)
    {
#pragma unroll
        for (int k = 0; k < STREAMS; ++k)
            s[k].load(base[k] + off);
    }

    __device__ __forceinline__ void store(const unsigned long long* base, long long off) const
    {
#pragma unroll
        for (int k = 0; k < STREAMS; ++k)
            s[k].store(base[k] + off);
    }
};

/* Converts one loaded unit into out; KIND fixed so the per-element tests
 * fold, the channel parameters already in registers. */
template <int S, int D, int C, int LS, int LD, int P, int KIND>
__device__ __forceinline__ void gm__convert_unit(const gm__unit<gm__esize[S], C, LS, P>& in,
                                                 gm__unit<gm__esize[D], C, LD, P>& out, const double* pre, const double* scale, const double* offset)
{
    typedef typename gm__raw<gm__esize[S]>::t TS;
    typedef typename gm__raw<gm__esize[D]>::t TD;
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
        for (int c = 0; c < C; ++c) {
            TS v = in.get(p, c);
            TD o;
            gm__channel(KIND, S, D, (const unsigned char*)&v, (unsigned char*)&o, 0, pre[c], scale[c], offset[c]);
            out.set(p, c, o);
        }
}

/* Each thread takes R units of a row, blockDim.x units apart, so every load
 * and store instruction of a warp covers one contiguous run of memory; all R
 * loads are issued before the first store. */
template <int S, int D, int C, int LS, int LD, int P, int R, int KIND>
__device__ __forceinline__ void gm__rows_fast(const gm__xform_args& a)
{
    double pre[C], scale[C], offset[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        pre[c] = a.pre[c];
        scale[c] = a.scale[c];
        offset[c] = a.offset[c];
    }
    long long u0 = (long long)blockIdx.x * blockDim.x * R + threadIdx.x;
    for (long long b = blockIdx.z; b < a.batch; b += gridDim.z)
        for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < a.height;
             y += (long long)gridDim.y * blockDim.y) {
            long long so = b * a.src_bstride + y * a.src_pitch, dof = b * a.dst_bstride + y * a.dst_pitch;
            if ((u0 + (long long)(R - 1) * blockDim.x) * P + P <= a.width) { /* all R units inside the row */
                gm__unit<gm__esize[S], C, LS, P> in[R];
#pragma unroll
                for (int r = 0; r < R; ++r)
                    in[r].load(a.src, so + (u0 + (long long)r * blockDim.x) * P * a.src_xstride);
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    gm__unit<gm__esize[D], C, LD, P> out;
                    gm__convert_unit<S, D, C, LS, LD, P, KIND>(in[r], out, pre, scale, offset);
                    out.store(a.dst, dof + (u0 + (long long)r * blockDim.x) * P * a.dst_xstride);
                }
                continue;
            }
            for (int r = 0; r < R; ++r) { /* the row's ragged end: whole units, then single pixels */
                long long x0 = (u0 + (long long)r * blockDim.x) * P;
                if (x0 + P <= a.width) {
                    gm__unit<gm__esize[S], C, LS, P> in;
                    gm__unit<gm__esize[D], C, LD, P> out;
                    in.load(a.src, so + x0 * a.src_xstride);
                    gm__convert_unit<S, D, C, LS, LD, P, KIND>(in, out, pre, scale, offset);
                    out.store(a.dst, dof + x0 * a.dst_xstride);
                } else {
                    for (long long x = x0; x < a.width; ++x)
                        gm__pixel(S, D, C, &a, b, y, x);
                }
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
