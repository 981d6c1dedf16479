/* SPDX-License-Identifier: MIT */
/* The fast transform: units of P pixels, moved with the widest loads and
 * stores their byte counts allow (16 bytes where the generator could choose P
 * so), for transforms that keep the channel count, treat every channel alike
 * (all plain or all scaled) and read channel c into channel c: the host folds
 * a channel map into the plane addresses (convert, split, merge, blob with
 * swap_rb). A runtime map inside the kernel would cost registers spilled to
 * local memory, so other maps take the generic kernel. The host takes it
 * only where every row, plane and image start is aligned to those widths;
 * otherwise it launches gm__xform. Each element goes through the stages of
 * codec.inc and pixel.inc, shared with the CPU path, so both kernels and the
 * CPU agree bit for bit. S, D: dtypes; C: channels; LS, LD: source and
 * destination layout (0 interleaved, 1 planar); P: pixels per unit; R: units
 * per thread. */

/* An element's bytes as one integer, so values stay in registers. */
template <int N> struct gm__raw;
template <> struct gm__raw<1> { typedef unsigned char t; };
template <> struct gm__raw<2> { typedef unsigned short t; };
template <> struct gm__raw<4> { typedef unsigned int t; };
template <> struct gm__raw<8> { typedef unsigned long long t; };

/* Global memory moves, in PTX: left to itself the compiler may split a vector
 * store into scalar ones, and it issues generic rather than global accesses
 * for addresses held as integers. Sources are read through the read-only
 * path: gpumat never lets a destination overlap its source. */
__device__ __forceinline__ void gm__ld16(unsigned long long addr, unsigned int* w)
{
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(addr));
}
__device__ __forceinline__ void gm__st16(unsigned long long addr, const unsigned int* w)
{
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(addr), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                 : "memory");
}
__device__ __forceinline__ void gm__ld8(unsigned long long addr, unsigned int* w)
{
    asm volatile("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(addr));
}
__device__ __forceinline__ void gm__st8(unsigned long long addr, const unsigned int* w)
{
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(addr), "r"(w[0]), "r"(w[1]) : "memory");
}
template <typename W> __device__ __forceinline__ W gm__ld(unsigned long long addr);
template <> __device__ __forceinline__ unsigned int gm__ld<unsigned int>(unsigned long long addr)
{
    unsigned int v;
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(addr));
    return v;
}
template <> __device__ __forceinline__ unsigned short gm__ld<unsigned short>(unsigned long long addr)
{
    unsigned short v;
    asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(v) : "l"(addr));
    return v;
}
template <> __device__ __forceinline__ unsigned char gm__ld<unsigned char>(unsigned long long addr)
{
    unsigned short v;
    asm volatile("ld.global.nc.u8 %0, [%1];" : "=h"(v) : "l"(addr));
    return (unsigned char)v;
}
__device__ __forceinline__ void gm__st(unsigned long long addr, unsigned int v)
{
    asm volatile("st.global.u32 [%0], %1;" ::"l"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void gm__st(unsigned long long addr, unsigned short v)
{
    asm volatile("st.global.u16 [%0], %1;" ::"l"(addr), "h"(v) : "memory");
}
__device__ __forceinline__ void gm__st(unsigned long long addr, unsigned char v)
{
    asm volatile("st.global.u8 [%0], %1;" ::"l"(addr), "h"((unsigned short)v) : "memory");
}

/* 16 bytes of a warp's staging area in shared memory. */
struct alignas(16) gm__chunk {
    unsigned int w[4];
};

/* K bytes held as words (4 bytes where K allows, else 2 or 1), every index
 * known at compile time so the compiler keeps them in registers. */
template <int K>
struct gm__bytes {
    enum { WB = K % 4 == 0 ? 4 : K % 2 == 0 ? 2 : 1, N = K / WB };
    /* More than 16 bytes per thread, as whole chunks: a warp moves its 32
     * units as one run of chunks (lane, lane + 32, ...), so that every
     * instruction covers 512 contiguous bytes rather than 16 bytes every K,
     * and the lanes trade chunks through shared memory. STRIDE, the chunks
     * between two lanes' units there, is odd so that neither side of the
     * trade has bank conflicts to speak of. Up to 128 bytes, so a block's
     * area stays at 36 KB; wider runs (loads of a few wide sources) read
     * through L1 as they are. */
    enum { STAGED = WB == 4 && K > 16 && K <= 128 && K % 16 == 0, NB = K / 16, STRIDE = (K / 16) | 1 };
    typedef typename gm__raw<WB>::t W;
    W w[N];

    /* K bytes from global memory aligned to the widest unit dividing K. */
    __device__ __forceinline__ void load(unsigned long long addr)
    {
        if constexpr (WB == 4 && K % 16 == 0) {
#pragma unroll
            for (int i = 0; i < K / 16; ++i)
                gm__ld16(addr + 16 * i, &w[4 * i]);
        } else if constexpr (WB == 4 && K % 8 == 0) {
#pragma unroll
            for (int i = 0; i < K / 8; ++i)
                gm__ld8(addr + 8 * i, &w[2 * i]);
        } else {
#pragma unroll
            for (int i = 0; i < N; ++i)
                w[i] = gm__ld<W>(addr + WB * i);
        }
    }

    __device__ __forceinline__ void store(unsigned long long addr) const
    {
        if constexpr (WB == 4 && K % 16 == 0) {
#pragma unroll
            for (int i = 0; i < K / 16; ++i)
                gm__st16(addr + 16 * i, &w[4 * i]);
        } else if constexpr (WB == 4 && K % 8 == 0) {
#pragma unroll
            for (int i = 0; i < K / 8; ++i)
                gm__st8(addr + 8 * i, &w[2 * i]);
        } else {
#pragma unroll
            for (int i = 0; i < N; ++i)
                gm__st(addr + WB * i, w[i]);
        }
    }

    /* Staged only: chunks lane + 32 k of the warp's run at run, those below
     * chunks (the run's length). */
    __device__ __forceinline__ void load_run(unsigned long long run, int lane, int chunks)
    {
#pragma unroll
        for (int k = 0; k < NB; ++k)
            if (lane + 32 * k < chunks)
                gm__ld16(run + 16ull * (lane + 32 * k), &w[4 * k]);
    }

    __device__ __forceinline__ void store_run(unsigned long long run, int lane, int chunks) const
    {
#pragma unroll
        for (int k = 0; k < NB; ++k)
            if (lane + 32 * k < chunks)
                gm__st16(run + 16ull * (lane + 32 * k), &w[4 * k]);
    }

    /* Staged only: the chunks held as loaded by load_run become this lane's
     * own K bytes (run chunk g is chunk g % NB of lane g / NB). */
    __device__ __forceinline__ void run_to_own(gm__chunk* area, int lane)
    {
#pragma unroll
        for (int k = 0; k < NB; ++k) {
            int g = lane + 32 * k;
            area[g / NB * STRIDE + g % NB] = *(const gm__chunk*)&w[4 * k];
        }
        __syncwarp();
#pragma unroll
        for (int k = 0; k < NB; ++k)
            *(gm__chunk*)&w[4 * k] = area[lane * STRIDE + k];
        __syncwarp();
    }

    /* The reverse, before store_run. */
    __device__ __forceinline__ void own_to_run(gm__chunk* area, int lane)
    {
#pragma unroll
        for (int k = 0; k < NB; ++k)
            area[lane * STRIDE + k] = *(const gm__chunk*)&w[4 * k];
        __syncwarp();
#pragma unroll
        for (int k = 0; k < NB; ++k) {
            int g = lane + 32 * k;
            *(gm__chunk*)&w[4 * k] = area[g / NB * STRIDE + g % NB];
        }
        __syncwarp();
    }

    /* Element i of ES bytes. */
    template <int ES>
    __device__ __forceinline__ typename gm__raw<ES>::t get(int i) const
    {
        typedef typename gm__raw<ES>::t T;
        if constexpr (ES == 8)
            return (T)w[2 * i] | ((T)w[2 * i + 1] << 32);
        else if constexpr (ES == WB)
            return (T)w[i];
        else
            return (T)(w[i * ES / WB] >> (8 * (i * ES % WB)));
    }

    /* Sets element i of ES bytes, the elements of a fresh gm__bytes in
     * increasing i (as gm__convert_put does): a word's first element
     * replaces it, the others are or-ed in, with no masking. */
    template <int ES>
    __device__ __forceinline__ void set(int i, typename gm__raw<ES>::t v)
    {
        if constexpr (ES == 8) {
            w[2 * i] = (W)v;
            w[2 * i + 1] = (W)((unsigned long long)v >> 32);
        } else if constexpr (ES == WB) {
            w[i] = (W)v;
        } else if (i * ES % WB == 0) {
            w[i * ES / WB] = (W)v;
        } else {
            w[i * ES / WB] = (W)(w[i * ES / WB] | ((W)v << (8 * (i * ES % WB))));
        }
    }
};

/* A unit: P consecutive pixels, each stream (the interleaved run, or each
 * plane) P * C or P elements, K bytes. A warp's 32 units are adjacent in
 * every stream, so lane 0's offset starts the warp's run. */
template <int ES, int C, int L, int P>
struct gm__unit {
    enum { STREAMS = L == 0 ? 1 : C, PER = L == 0 ? P * C : P, K = PER * ES };
    typedef gm__bytes<K> B;
    B s[STREAMS];

    /* Element (p, c). */
    __device__ __forceinline__ typename gm__raw<ES>::t get(int p, int c) const
    {
        return L == 0 ? s[0].template get<ES>(p * C + c) : s[c].template get<ES>(p);
    }

    /* Issues the loads of this lane's unit at off, where the warp's first n
     * lanes (1 to 32) have units and their run starts at off0. */
    __device__ __forceinline__ void fetch(const unsigned long long* base, long long off, long long off0, int lane,
                                          int n)
    {
#pragma unroll
        for (int k = 0; k < STREAMS; ++k) {
            if constexpr (B::STAGED)
                s[k].load_run(base[k] + off0, lane, n * B::NB);
            else if (lane < n)
                s[k].load(base[k] + off);
        }
    }

    /* After fetch, with the whole warp: the unit's own bytes in registers. */
    __device__ __forceinline__ void settle(gm__chunk* area, int lane)
    {
        if constexpr (B::STAGED) {
#pragma unroll
            for (int k = 0; k < STREAMS; ++k)
                s[k].run_to_own(area, lane);
        }
    }
};

/* The channel parameters, rounded to float once where the pair works in
 * float (gm__channel would round them per element). */
template <int S, int D, int C>
struct gm__params {
    double pre[C], scale[C], offset[C];
    float fpre[C], fscale[C], foffset[C];

    __device__ __forceinline__ explicit gm__params(const gm__xform_args& a)
    {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            pre[c] = a.pre[c];
            scale[c] = a.scale[c];
            offset[c] = a.offset[c];
            fpre[c] = (float)pre[c];
            fscale[c] = (float)scale[c];
            foffset[c] = (float)offset[c];
        }
    }
};

/* Plain u8 <-> s8 saturation of the bytes of w at once: prmt's sign mode
 * (selectors 8-b) spreads each byte's top bit over the byte, marking the
 * bytes out of the other type's range; they become 0 (s8 -> u8) or 127. */
template <int S, typename W>
__device__ __forceinline__ W gm__saturate_bytes(W w)
{
    unsigned int x = w, top;
    asm("prmt.b32 %0, %1, 0, 0xba98;" : "=r"(top) : "r"(x));
    return (W)(S == GM_S8 ? x & ~top : (x & ~top) | (top & 0x7f7f7f7fu));
}

/* Converts a loaded unit and stores it, one destination stream at a time
 * (so only one is held in registers), with the whole warp: fetch's off, off0,
 * lane and n. KIND is fixed so the per-element tests fold. The host sends
 * only finite parameters here, so integer sources give no NaN. */
template <int S, int D, int C, int LS, int LD, int P, int KIND>
__device__ __forceinline__ void gm__convert_put(const gm__unit<gm__esize[S], C, LS, P>& in,
                                                const gm__params<S, D, C>& k, const unsigned long long* base,
                                                long long off, long long off0, gm__chunk* area, int lane, int n)
{
    typedef gm__unit<gm__esize[D], C, LD, P> Out;
    typedef typename gm__raw<gm__esize[S]>::t TS;
    typedef typename gm__raw<gm__esize[D]>::t TD;
    /* u8 <-> s8 without arithmetic saturates whole words first; the
     * elements then move as they are. */
    enum { BYTEWISE = KIND == GM__PLAIN && ((S == GM_U8 && D == GM_S8) || (S == GM_S8 && D == GM_U8)) };
    typedef gm__unit<gm__esize[S], C, LS, P> In;
    In src = in;
    if constexpr (BYTEWISE) {
#pragma unroll
        for (int k = 0; k < In::STREAMS; ++k)
#pragma unroll
            for (int i = 0; i < In::B::N; ++i)
                src.s[k].w[i] = gm__saturate_bytes<S>(src.s[k].w[i]);
    }
#pragma unroll
    for (int st = 0; st < Out::STREAMS; ++st) {
        typename Out::B o;
#pragma unroll
        for (int p = 0; p < P; ++p)
#pragma unroll
            for (int c = 0; c < C; ++c) {
                if (LD == 1 && c != st)
                    continue;
                TS v = src.get(p, c);
                TD r;
                const unsigned char* sp = (const unsigned char*)&v;
                unsigned char* dp = (unsigned char*)&r;
                if (BYTEWISE)
                    r = (TD)v;
                else if (KIND == GM__PLAIN)
                    gm__convert_plain(S, D, sp, dp);
                else if (gm__wide(S, D))
                    gm__scale_d(S, D, sp, dp, k.pre[c], k.scale[c], k.offset[c]);
                else
                    gm__scale_f(S, D, sp, dp, k.fpre[c], k.fscale[c], k.foffset[c], gm__is_int(S));
                o.template set<gm__esize[D]>(LD == 0 ? p * C + c : p, r);
            }
        if constexpr (Out::B::STAGED) {
            o.own_to_run(area, lane);
            o.store_run(base[st] + off0, lane, n * Out::B::NB);
        } else if (lane < n) {
            o.store(base[st] + off);
        }
    }
}

template <int A, int B> struct gm__max { enum { v = A > B ? A : B }; };

/* The work is cut into warp tasks: R * 32 consecutive units of one row (a
 * row's last task also covers its last width % P pixels), numbered row by
 * row over every image, so warps stay busy whatever the row length. Lane l
 * takes units l, l + 32, ... of its task, so every load and store
 * instruction of a warp covers one contiguous run of memory; all R loads are
 * issued before the first store. A warp whose units pass the row's last whole unit keeps its
 * first n lanes at work (n is the same for the whole warp, as staging
 * needs); the lane whose unit would come next converts the row's last
 * width % P pixels one by one. */
template <int S, int D, int C, int LS, int LD, int P, int R, int KIND>
__device__ __forceinline__ void gm__rows_fast(const gm__xform_args& a, gm__chunk* area)
{
    typedef gm__unit<gm__esize[S], C, LS, P> In;
    const gm__params<S, D, C> k(a);
    const int lane = threadIdx.x % 32;
    const long long whole = a.width / P, per_row = gm__tasks_per_row(a.width, P, R), tasks = a.batch * a.height * per_row;
    for (long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < tasks;
         t += (long long)gridDim.x * blockDim.x / 32) {
        long long w0, b, y;
        if (tasks <= 0xffffffffll) { /* 32-bit division, a fraction of the 64-bit routine's cost */
            unsigned r32 = (unsigned)t / (unsigned)per_row, h = (unsigned)a.height;
            w0 = (long long)((unsigned)t - r32 * (unsigned)per_row) * 32 * R;
            b = r32 / h;
            y = r32 - (unsigned)b * h;
        } else {
            long long row = t / per_row;
            w0 = t % per_row * 32 * R;
            b = row / a.height;
            y = row % a.height;
        }
        long long so = b * a.src.bstride + y * a.src.pitch, dof = b * a.dst.bstride + y * a.dst.pitch;
        In in[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            long long w = w0 + 32 * r, n = whole - w;
            if (n > 0)
                in[r].fetch(a.src.chan, so + (w + lane) * P * a.src.xstride, so + w * P * a.src.xstride, lane,
                            n < 32 ? (int)n : 32);
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            long long w = w0 + 32 * r, n = whole - w;
            if (n > 0) {
                in[r].settle(area, lane);
                gm__convert_put<S, D, C, LS, LD, P, KIND>(in[r], k, a.dst.chan, dof + (w + lane) * P * a.dst.xstride,
                                                          dof + w * P * a.dst.xstride, area, lane, n < 32 ? (int)n : 32);
            }
            if (w + lane == whole)
                for (long long x = whole * P; x < a.width; ++x)
                    gm__pixel(S, D, C, &a, b, y, x);
        }
    }
}

/* The staging area: per warp of a block, 32 units' chunks of the
 * widest staged stream (one chunk where nothing is staged). */
template <int S, int D, int C, int LS, int LD, int P, int R>
__device__ __forceinline__ void gm__xform_fast(const gm__xform_args& a)
{
    typedef typename gm__unit<gm__esize[S], C, LS, P>::B BS;
    typedef typename gm__unit<gm__esize[D], C, LD, P>::B BD;
    enum { AREA = 32 * gm__max<BS::STAGED ? (int)BS::STRIDE : 0, BD::STAGED ? (int)BD::STRIDE : 0>::v };
    __shared__ gm__chunk stage[GM__BLOCK_WARPS][AREA ? AREA : 1];
    gm__chunk* area = stage[threadIdx.x / 32];
    gm__grid_begin();
    if (a.kind == GM__PLAIN)
        gm__rows_fast<S, D, C, LS, LD, P, R, GM__PLAIN>(a, area);
    else
        gm__rows_fast<S, D, C, LS, LD, P, R, GM__SCALED>(a, area);
}

/* The entry point of one catalogue row of this family: B is the row's
 * min_blocks, the blocks of 32 * GM__BLOCK_WARPS threads a multiprocessor
 * must fit. */
#define GM__ENTRY_XFORM_FAST(name, S, D, C, LS, LD, P, R, B, I)                                    \
    extern "C" __global__ void __launch_bounds__(32 * GM__BLOCK_WARPS, B) name(gm__xform_args a) \
    { gm__xform_fast<S, D, C, LS, LD, P, R>(a); }
