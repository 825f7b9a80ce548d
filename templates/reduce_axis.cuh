// cuspec reductions along a matrix axis: sum, min, max, argmin, argmax and
// dot of `batch` row-major rows x cols matrices, one result per row
// (cuspec_reduce_rows) or per column (cuspec_reduce_cols).
//
// CUDA C++17 with one #include, prior_grid.cuh beside it, so NVRTC can compile
// it given that header; it also compiles when #included from an nvcc .cu file.
//
// ---------------------------------------------------------------------------
// ENTRY POINTS (launched by NVRTC name expression, e.g.
// "cuspec_reduce_rows<float, 0, 256, 4, 4>")
//
//   template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
//   __global__ void cuspec_reduce_rows(const T *a, const T *b, u64 rows, u64 cols, u64 ld,
//                                      u64 stride, u64 total, int lanes_log2, unsigned splits,
//                                      Out *value, long long *index, void *partials,
//                                      unsigned *tickets);
//   template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
//   __global__ void cuspec_reduce_cols(const T *a, const T *b, u64 rows, u64 cols, u64 ld,
//                                      u64 stride, int tx_log2, unsigned splits,
//                                      Out *value, long long *index, void *partials,
//                                      unsigned *tickets);
//
// TEMPLATE PARAMETERS
//   T      float, double, int, long long, unsigned int, unsigned long long, signed char,
//          unsigned char, short, unsigned short, cuspec_axis::f16, cuspec_axis::bf16
//          (elem<T> below: one entry per type).
//   OP     0 sum, 1 min, 2 max, 3 argmin, 4 argmax, 5 dot (sum of a*b; b only read for 5).
//   BLOCK  threads per block, a multiple of 32.
//   VEC    elements per vector load (VEC * sizeof(T) <= 16, a power of two).
//   ITEMS  loads in flight per thread: vectors along a long row, rows of a short row or
//          of a column strip.
//
// OUTPUT (op<T, OP>): sums and dots write S (elem<T>::S: f32 for f32/f16/bf16, f64, and
// 64-bit integers for integers); min, max write T; argmin/argmax write the winning
// value as T to `value` and its index (the column for rows, the row for columns) to
// `index`, either of which may be NULL. Results are contiguous: matrix m's row r (or
// column c) at m * rows + r (m * cols + c).
//
// ROWS: groups of L = 1 << lanes_log2 lanes (1..32; lanes_log2 < 0: the whole block)
// each take a row. total = rows * batch rows, matrix m's row r at a + m*stride + r*ld;
// the host passes rows = total where the batch is contiguous (no division then).
//   splits == 1: grid-stride over rows, any grid. Rows of at most L*VEC elements are
//     read ITEMS rows at a time (each lane its VEC elements), longer ones ITEMS vectors
//     at a time along the row, from its first 16-byte-aligned element.
//   splits > 1: gridDim.y = splits blocks per row, gridDim.x * (BLOCK / L) >= total;
//     each writes its partial (partials: total * splits A), takes the row's ticket
//     (tickets[r], zero before the first launch, left zero), and the last combines.
// COLS: TX = 1 << tx_log2 (1..32) threads along the columns, each owning VEC adjacent
// columns, by BLOCK / TX along the rows; block (x, y, z) takes column tile x, rows
// chunk y of `splits`, matrix z. With splits > 1, partials hold batch * splits * cols
// A and tickets[z * gridDim.x + x] the tile's count.
//
// POLICIES
//   An empty reduction (cols = 0 for rows, rows = 0 for columns) writes the identity:
//   sum 0; min +inf or the type's largest; max -inf or the type's smallest (the host
//   refuses it for argmin/argmax). Float min/max propagate NaN; argmin/argmax return
//   the first NaN where there is one, else the first extreme element (ties: the
//   smallest index). Integer sums wrap modulo 2^64. Floats accumulate in S with VEC *
//   ITEMS independent sums per thread (rows) or one per column and thread (columns),
//   then trees: no atomics, so results are reproducible for a fixed launch.
// ---------------------------------------------------------------------------

#ifndef CUSPEC_REDUCE_AXIS_CUH_
#define CUSPEC_REDUCE_AXIS_CUH_

// The streamed input is read once: evict-first, as reduce.cuh does.
#ifndef CUSPEC_AXIS_LOAD
#define CUSPEC_AXIS_LOAD(p) __ldcs(p)
#endif

#include "prior_grid.cuh"

namespace cuspec_axis
{

enum { SUM = 0, MIN = 1, MAX = 2, ARGMIN = 3, ARGMAX = 4, DOT = 5 };

// Half-precision elements by their bits: no toolkit header, and a type of their own.
struct f16 {
    unsigned short bits;
};
struct bf16 {
    unsigned short bits;
};

template <bool B, typename X, typename Y> struct pick {
    typedef X type;
};
template <typename X, typename Y> struct pick<false, X, Y> {
    typedef Y type;
};

// ---- element traits: C, the type elements are compared in; S, the type their sums
// accumulate in; the range (identities); reading (get) and writing back (put).
template <typename T> struct elem;

#define CUSPEC_AXIS_INT(T_, C_, S_, HI, LO)                                                        \
    template <> struct elem<T_> {                                                                  \
        typedef C_ C;                                                                              \
        typedef S_ S;                                                                              \
        enum : bool { is_float = false };                                                          \
        static __device__ __forceinline__ C get(T_ x)                                              \
        {                                                                                          \
            return (C)x;                                                                           \
        }                                                                                          \
        static __device__ __forceinline__ T_ put(C x)                                              \
        {                                                                                          \
            return (T_)x;                                                                          \
        }                                                                                          \
        static __device__ __forceinline__ C hi()                                                   \
        {                                                                                          \
            return HI;                                                                             \
        }                                                                                          \
        static __device__ __forceinline__ C lo()                                                   \
        {                                                                                          \
            return LO;                                                                             \
        }                                                                                          \
    };
// clang-format off
CUSPEC_AXIS_INT(int,                int,                long long,          2147483647, -2147483647 - 1)
CUSPEC_AXIS_INT(unsigned int,       unsigned int,       unsigned long long, 0xffffffffu, 0u)
CUSPEC_AXIS_INT(long long,          long long,          long long,          9223372036854775807LL, -9223372036854775807LL - 1)
CUSPEC_AXIS_INT(unsigned long long, unsigned long long, unsigned long long, 0xffffffffffffffffULL, 0ULL)
CUSPEC_AXIS_INT(signed char,        int,                long long,          127, -128)
CUSPEC_AXIS_INT(unsigned char,      unsigned int,       unsigned long long, 255u, 0u)
CUSPEC_AXIS_INT(short,              int,                long long,          32767, -32768)
CUSPEC_AXIS_INT(unsigned short,     unsigned int,       unsigned long long, 65535u, 0u)
// clang-format on
#undef CUSPEC_AXIS_INT

// Floats: C and S are float for f32, f16 and bf16 (halves convert exactly both ways).
template <typename T, typename C_> struct float_elem {
    typedef C_ C;
    typedef C_ S;
    enum : bool { is_float = true };
    static __device__ __forceinline__ C hi()
    {
        return (C)__int_as_float(0x7f800000); // +inf
    }
    static __device__ __forceinline__ C lo()
    {
        return (C)__int_as_float((int)0xff800000u); // -inf
    }
};
template <> struct elem<float> : float_elem<float, float> {
    static __device__ __forceinline__ float get(float x)
    {
        return x;
    }
    static __device__ __forceinline__ float put(float x)
    {
        return x;
    }
};
template <> struct elem<double> : float_elem<double, double> {
    static __device__ __forceinline__ double get(double x)
    {
        return x;
    }
    static __device__ __forceinline__ double put(double x)
    {
        return x;
    }
};
template <> struct elem<f16> : float_elem<f16, float> {
    static __device__ __forceinline__ float get(f16 x)
    {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
        return f;
    }
    static __device__ __forceinline__ f16 put(float x)
    {
        f16 h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(x));
        return h;
    }
};
template <> struct elem<bf16> : float_elem<bf16, float> {
    static __device__ __forceinline__ float get(bf16 x)
    {
        return __uint_as_float((unsigned)x.bits << 16);
    }
    static __device__ __forceinline__ bf16 put(float x)
    {
        return bf16{(unsigned short)(__float_as_uint(x) >> 16)}; // exact: x came from a bf16
    }
};

// ---- the operation: its accumulator A, its output, and how elements fold in.
template <typename T, int OP> struct op {
    typedef elem<T> E;
    typedef typename E::C C;
    typedef typename E::S S;
    enum : bool { ARG = OP == ARGMIN || OP == ARGMAX };
    enum : bool { SUMS = OP == SUM || OP == DOT };
    struct pair {
        C v;
        long long i;
    };
    typedef typename pick<SUMS, S, typename pick<ARG, pair, C>::type>::type A;
    typedef typename pick<SUMS, S, T>::type Out;

    static __device__ __forceinline__ A identity()
    {
        if constexpr (SUMS)
            return A(0);
        else if constexpr (OP == MIN)
            return E::hi();
        else if constexpr (OP == MAX)
            return E::lo();
        else // an index past any element's: every element wins a tie with it
            return A{OP == ARGMIN ? E::hi() : E::lo(), 0x7fffffffffffffffLL};
    }

    // Integer sums add as unsigned: wrap-around is defined there and bit-identical.
    // Float min/max: a NaN operand wins from either side. Arg: a NaN wins, then the
    // better value, then the smaller index, so the combine is order-free.
    static __device__ __forceinline__ A combine(A x, A y)
    {
        if constexpr (SUMS) {
            if constexpr (E::is_float)
                return x + y;
            else
                return (A)((unsigned long long)x + (unsigned long long)y);
        } else if constexpr (OP == MIN) {
            if constexpr (E::is_float)
                return (x < y || x != x) ? x : y;
            else
                return y < x ? y : x;
        } else if constexpr (OP == MAX) {
            if constexpr (E::is_float)
                return (x > y || x != x) ? x : y;
            else
                return y > x ? y : x;
        } else {
            if constexpr (E::is_float) {
                const bool xn = x.v != x.v, yn = y.v != y.v;
                if (xn || yn)
                    return xn && (!yn || x.i < y.i) ? x : y;
            }
            const bool better = OP == ARGMIN ? y.v < x.v : y.v > x.v;
            return better || (y.v == x.v && y.i < x.i) ? y : x;
        }
    }

    // Folds element x (and b's y, for dot) at index i into acc.
    static __device__ __forceinline__ A step(A acc, T x, T y, long long i)
    {
        if constexpr (OP == DOT) {
            if constexpr (E::is_float && sizeof(S) == 4)
                return __fmaf_rn(E::get(x), E::get(y), acc);
            else if constexpr (E::is_float)
                return __fma_rn(E::get(x), E::get(y), acc);
            else // widened first, multiplied and added modulo 2^64
                return (A)((unsigned long long)acc +
                           (unsigned long long)(S)E::get(x) * (unsigned long long)(S)E::get(y));
        } else if constexpr (SUMS) {
            return combine(acc, (A)E::get(x));
        } else if constexpr (ARG) {
            return combine(acc, A{E::get(x), i});
        } else {
            return combine(acc, E::get(x));
        }
    }

    static __device__ __forceinline__ A shfl_xor(A x, int off)
    {
        if constexpr (ARG) {
            A r;
            r.v = __shfl_xor_sync(0xffffffffu, x.v, off);
            r.i = __shfl_xor_sync(0xffffffffu, x.i, off);
            return r;
        } else {
            return __shfl_xor_sync(0xffffffffu, x, off);
        }
    }

    // Another block's partial: read at L2, never a stale L1 line.
    static __device__ __forceinline__ A load_cg(const A *p)
    {
        if constexpr (ARG) {
            A r;
            r.v = __ldcg(&p->v);
            r.i = __ldcg(&p->i);
            return r;
        } else {
            return __ldcg(p);
        }
    }

    static __device__ __forceinline__ void store(A x, Out *value, long long *index,
                                                 unsigned long long o)
    {
        if constexpr (SUMS) {
            value[o] = x;
        } else if constexpr (ARG) {
            if (value != nullptr)
                value[o] = E::put(x.v);
            if (index != nullptr)
                index[o] = x.i;
        } else {
            value[o] = E::put(x);
        }
    }
};

// ---- loads: V elements of T as one aligned word of V * sizeof(T) bytes ------
template <int B> struct raw;
template <> struct raw<1> {
    typedef unsigned char type;
};
template <> struct raw<2> {
    typedef unsigned short type;
};
template <> struct raw<4> {
    typedef unsigned int type;
};
template <> struct raw<8> {
    typedef unsigned long long type;
};
template <> struct raw<16> {
    typedef uint4 type;
};
template <typename T, int V> union pack {
    typename raw<sizeof(T) * V>::type r;
    T x[V];
};
template <int V, typename T> __device__ __forceinline__ pack<T, V> load(const T *p)
{
    pack<T, V> k;
    k.r = CUSPEC_AXIS_LOAD(reinterpret_cast<const typename raw<sizeof(T) * V>::type *>(p));
    return k;
}
template <typename T> __device__ __forceinline__ T load1(const T *p)
{
    return load<1>(p).x[0];
}
template <int V, typename T> __device__ __forceinline__ bool aligned(const T *p)
{
    return (reinterpret_cast<unsigned long long>(p) & (V * sizeof(T) - 1)) == 0;
}

// ---- combining across threads ------------------------------------------------
// Lanes in aligned groups of L (a power of two <= 32); every lane of the warp
// calls it. The result is in every lane of the group.
template <typename R> __device__ __forceinline__ typename R::A lanes_reduce(typename R::A v, int L)
{
    for (int off = L >> 1; off > 0; off >>= 1)
        v = R::combine(v, R::shfl_xor(v, off));
    return v;
}

// The whole block; the result in thread 0. Every thread calls it.
template <typename R, int BLOCK>
__device__ __forceinline__ typename R::A block_reduce(typename R::A v)
{
    constexpr int WARPS = BLOCK / 32;
    __shared__ typename R::A warp_vals[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = lanes_reduce<R>(v, 32);
    if constexpr (WARPS > 1) {
        if (lane == 0)
            warp_vals[warp] = v;
        __syncthreads();
        if (warp == 0)
            v = lanes_reduce<R>(lane < WARPS ? warp_vals[lane] : R::identity(), 32);
        __syncthreads(); // warp_vals is free again
    }
    return v;
}

// A row's group: lanes L (<= 32) or the block; the result in its lane 0.
template <typename R, int BLOCK>
__device__ __forceinline__ typename R::A group_reduce(typename R::A v, bool whole_block, int L)
{
    return whole_block ? block_reduce<R, BLOCK>(v) : lanes_reduce<R>(v, L);
}

// Pairwise over a thread's K accumulators, every index a constant so they stay
// in registers.
template <typename R, int W, int K> struct fold {
    static __device__ __forceinline__ void run(typename R::A (&acc)[K])
    {
        constexpr int H = (W + 1) / 2;
#pragma unroll
        for (int i = 0; i < W / 2; ++i)
            acc[i] = R::combine(acc[i], acc[i + H]);
        fold<R, H, K>::run(acc);
    }
};
template <typename R, int K> struct fold<R, 1, K> {
    static __device__ __forceinline__ void run(typename R::A (&)[K]) {}
};

// Takes ticket t for one of `count` arrivals (release: this thread's partials
// are published; acquire: the last sees every other's). The last arrival's
// wrap stores 0, ready for the next launch. 1 for the last.
__device__ __forceinline__ bool last_arrival(unsigned *t, unsigned count)
{
    unsigned prev;
    asm volatile("atom.acq_rel.gpu.inc.u32 %0, [%1], %2;"
                 : "=r"(prev)
                 : "l"(t), "r"(count - 1)
                 : "memory");
    return prev == count - 1;
}

// ---- one row's segment: n elements from p (q: b's), indices from i0 ----------
// Vectors: lane takes vectors lane, lane + L, ... of each tile of L * IT, all IT
// loads issued before any is used, each element its own accumulator.
template <typename R, typename T, int V, int IT, bool TWO>
__device__ __forceinline__ void row_vectors(const T *p, const T *q, unsigned long long nv,
                                            long long i0, unsigned lane, unsigned L,
                                            typename R::A (&acc)[V * IT])
{
    const unsigned long long tile = (unsigned long long)L * IT;
    unsigned long long v0 = 0;
#pragma unroll 1
    for (; v0 + tile <= nv; v0 += tile) {
        pack<T, V> x[IT], y[IT];
#pragma unroll
        for (int j = 0; j < IT; ++j)
            x[j] = load<V>(p + (v0 + lane + (unsigned long long)j * L) * V);
        if constexpr (TWO) {
#pragma unroll
            for (int j = 0; j < IT; ++j)
                y[j] = load<V>(q + (v0 + lane + (unsigned long long)j * L) * V);
        }
#pragma unroll
        for (int j = 0; j < IT; ++j)
#pragma unroll
            for (int k = 0; k < V; ++k)
                acc[j * V + k] = R::step(acc[j * V + k], x[j].x[k], TWO ? y[j].x[k] : x[j].x[k],
                                         i0 + (long long)((v0 + lane + j * L) * V + k));
    }
#pragma unroll
    for (int j = 0; j < IT; ++j) {
        const unsigned long long v = v0 + lane + (unsigned long long)j * L;
        if (v < nv) {
            pack<T, V> x = load<V>(p + v * V), y = x;
            if constexpr (TWO)
                y = load<V>(q + v * V);
#pragma unroll
            for (int k = 0; k < V; ++k)
                acc[j * V + k] =
                    R::step(acc[j * V + k], x.x[k], y.x[k], i0 + (long long)(v * V + k));
        }
    }
}

// Elements before p's first VEC-aligned one and after the last whole vector go
// one by one; a dot whose inputs are misaligned differently goes by elements,
// VEC * ITEMS of them in flight.
template <typename R, typename T, int VEC, int ITEMS, bool TWO>
__device__ __forceinline__ void row_segment(const T *p, const T *q, unsigned long long n,
                                            long long i0, unsigned lane, unsigned L,
                                            typename R::A (&acc)[VEC * ITEMS])
{
    constexpr unsigned long long VB = VEC * sizeof(T);
    const unsigned long long mis = reinterpret_cast<unsigned long long>(p) & (VB - 1);
    if constexpr (TWO) {
        if ((reinterpret_cast<unsigned long long>(q) & (VB - 1)) != mis) {
            row_vectors<R, T, 1, VEC * ITEMS, TWO>(p, q, n, i0, lane, L, acc);
            return;
        }
    }
    unsigned long long head = mis ? (VB - mis) / sizeof(T) : 0;
    head = head < n ? head : n;
    const unsigned long long nv = (n - head) / VEC, tail = n - head - nv * VEC;
    row_vectors<R, T, VEC, ITEMS, TWO>(p + head, q + head, nv, i0 + (long long)head, lane, L, acc);
    for (unsigned long long e = lane; e < head; e += L)
        acc[0] = R::step(acc[0], load1(p + e), load1(TWO ? q + e : p + e), i0 + (long long)e);
    for (unsigned long long e = n - tail + lane; e < n; e += L)
        acc[VEC * ITEMS - 1] = R::step(acc[VEC * ITEMS - 1], load1(p + e),
                                       load1(TWO ? q + e : p + e), i0 + (long long)e);
}

__device__ __forceinline__ unsigned long long
row_offset(unsigned long long r, unsigned long long rows, unsigned long long total,
           unsigned long long ld, unsigned long long stride)
{
    if (rows == total)
        return r * ld;
    const unsigned long long m = r / rows;
    return m * stride + (r - m * rows) * ld;
}

// ---- columns: one thread's VEC columns, its rows of [lo, hi) -------------------
template <typename R, typename T, int VEC, int ITEMS, bool TWO, bool FULL>
__device__ __forceinline__ void column_strip(const T *p, const T *q, unsigned long long ld,
                                             unsigned long long lo, unsigned long long hi,
                                             unsigned ty, unsigned TY, unsigned cnt,
                                             typename R::A (&acc)[VEC])
{
#pragma unroll 1
    for (unsigned long long r = lo + ty; r < hi; r += (unsigned long long)TY * ITEMS) {
        pack<T, VEC> x[ITEMS], y[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned long long rr = r + (unsigned long long)j * TY;
            if (rr < hi) {
                if constexpr (FULL) {
                    x[j] = load<VEC>(p + rr * ld);
                    if constexpr (TWO)
                        y[j] = load<VEC>(q + rr * ld);
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; ++k)
                        if (k < (int)cnt) {
                            x[j].x[k] = load1(p + rr * ld + k);
                            if constexpr (TWO)
                                y[j].x[k] = load1(q + rr * ld + k);
                        }
                }
            }
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned long long rr = r + (unsigned long long)j * TY;
            if (rr < hi)
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    if (FULL || k < (int)cnt)
                        acc[k] =
                            R::step(acc[k], x[j].x[k], TWO ? y[j].x[k] : x[j].x[k], (long long)rr);
        }
    }
}

// Combines the block's rows of threads: afterwards thread t < TX holds its
// columns' results. Every thread calls it.
template <typename R, int BLOCK, int VEC>
__device__ __forceinline__ void columns_reduce(typename R::A (&acc)[VEC], unsigned TX)
{
    // Within a warp, lanes l and l ^ (TX << s) own the same columns.
    for (int off = 16; off >= (int)TX; off >>= 1)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            acc[k] = R::combine(acc[k], R::shfl_xor(acc[k], off));
    constexpr int WARPS = BLOCK / 32;
    if constexpr (WARPS > 1) {
        __shared__ typename R::A warp_vals[WARPS][32];
        const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            if (lane < TX)
                warp_vals[warp][lane] = acc[k];
            __syncthreads();
            if (threadIdx.x < TX) {
                typename R::A v = warp_vals[0][threadIdx.x];
#pragma unroll
                for (int w = 1; w < WARPS; ++w)
                    v = R::combine(v, warp_vals[w][threadIdx.x]);
                acc[k] = v;
            }
            __syncthreads();
        }
    }
}

} // namespace cuspec_axis

// ---------------------------------------------------------------------------
template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_rows(const T *__restrict__ a, const T *__restrict__ b, unsigned long long rows,
                       unsigned long long cols, unsigned long long ld, unsigned long long stride,
                       unsigned long long total, int lanes_log2, unsigned splits,
                       typename cuspec_axis::op<T, OP>::Out *__restrict__ value,
                       long long *__restrict__ index, void *__restrict__ partials,
                       unsigned *__restrict__ tickets)
{
    using namespace cuspec_axis;
    typedef op<T, OP> R;
    typedef typename R::A A;
    constexpr bool TWO = OP == DOT;
    constexpr int K = VEC * ITEMS;
    static_assert(OP >= 0 && OP <= 5, "OP: 0 sum, 1 min, 2 max, 3 argmin, 4 argmax, 5 dot");
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK: a multiple of 32");
    static_assert((VEC & (VEC - 1)) == 0 && VEC * sizeof(T) <= 16, "VEC: a power of two, <= 16 B");
    static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1..16");
    CUSPEC_AFTER_PRIOR_GRID();

    const bool whole = lanes_log2 < 0; // uniform: the block is one group
    const unsigned L = whole ? BLOCK : 1u << lanes_log2;
    const unsigned lane = whole ? threadIdx.x : threadIdx.x & (L - 1);
    const unsigned long long per_block = whole ? 1 : BLOCK >> lanes_log2;
    const unsigned long long group =
        blockIdx.x * per_block + (whole ? 0 : threadIdx.x >> lanes_log2);
    // The first group of this thread's warp: loops run while it has a row, so
    // every lane of a warp reaches the shuffles.
    const unsigned long long first = group - (L < 32 ? (threadIdx.x & 31) >> lanes_log2 : 0);
    const T *bb = TWO ? b : a;

    if (splits == 1 && cols <= (unsigned long long)L * VEC) {
        // Short rows: ITEMS rows at a time, each lane its VEC elements of each.
        const unsigned long long stride_rows = gridDim.x * per_block;
        const unsigned long long c = (unsigned long long)lane * VEC;
#pragma unroll 1
        for (unsigned long long r0 = group, f0 = first; f0 < total;
             r0 += stride_rows * ITEMS, f0 += stride_rows * ITEMS) {
            pack<T, VEC> x[ITEMS], y[ITEMS];
            unsigned cnt[ITEMS];
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const unsigned long long r = r0 + j * stride_rows;
                cnt[j] = 0;
                if (r < total && c < cols) {
                    const unsigned long long off = row_offset(r, rows, total, ld, stride) + c;
                    const unsigned long long left = cols - c;
                    cnt[j] = left < VEC ? (unsigned)left : VEC;
                    if (cnt[j] == VEC && aligned<VEC>(a + off) &&
                        (!TWO || aligned<VEC>(bb + off))) {
                        x[j] = load<VEC>(a + off);
                        if constexpr (TWO)
                            y[j] = load<VEC>(bb + off);
                    } else {
#pragma unroll
                        for (int k = 0; k < VEC; ++k)
                            if (k < (int)cnt[j]) {
                                x[j].x[k] = load1(a + off + k);
                                if constexpr (TWO)
                                    y[j].x[k] = load1(bb + off + k);
                            }
                    }
                }
            }
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                A v = R::identity();
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    if (k < (int)cnt[j])
                        v = R::step(v, x[j].x[k], TWO ? y[j].x[k] : x[j].x[k], (long long)(c + k));
                v = group_reduce<R, BLOCK>(v, whole, L);
                const unsigned long long r = r0 + j * stride_rows;
                if (lane == 0 && r < total)
                    R::store(v, value, index, r);
            }
        }
        CUSPEC_LET_NEXT_GRID();
        return;
    }

    if (splits == 1) {
        // Long rows: a group per row, grid-stride.
        const unsigned long long stride_rows = gridDim.x * per_block;
#pragma unroll 1
        for (unsigned long long r = group, f = first; f < total;
             r += stride_rows, f += stride_rows) {
            A acc[K];
#pragma unroll
            for (int i = 0; i < K; ++i)
                acc[i] = R::identity();
            if (r < total) {
                const unsigned long long off = row_offset(r, rows, total, ld, stride);
                row_segment<R, T, VEC, ITEMS, TWO>(a + off, bb + off, cols, 0, lane, L, acc);
            }
            fold<R, K, K>::run(acc);
            const A v = group_reduce<R, BLOCK>(acc[0], whole, L);
            if (lane == 0 && r < total)
                R::store(v, value, index, r);
        }
        CUSPEC_LET_NEXT_GRID();
        return;
    }

    // Split rows: group takes row `group`, this block's chunk of it.
    const unsigned long long r = group;
    const unsigned long long chunk = ((cols + splits - 1) / splits + VEC - 1) / VEC * VEC;
    const unsigned long long lo = blockIdx.y * chunk;
    const unsigned long long n = lo < cols ? (cols - lo < chunk ? cols - lo : chunk) : 0;
    A acc[K];
#pragma unroll
    for (int i = 0; i < K; ++i)
        acc[i] = R::identity();
    if (r < total && n > 0) {
        const unsigned long long off = row_offset(r, rows, total, ld, stride) + lo;
        row_segment<R, T, VEC, ITEMS, TWO>(a + off, bb + off, n, (long long)lo, lane, L, acc);
    }
    CUSPEC_LET_NEXT_GRID();
    fold<R, K, K>::run(acc);
    A v = group_reduce<R, BLOCK>(acc[0], whole, L);

    A *part = reinterpret_cast<A *>(partials);
    bool last = false;
    if (lane == 0 && r < total) {
        part[r * splits + blockIdx.y] = v;
        last = last_arrival(tickets + r, splits);
    }
    if (whole) {
        __shared__ int s_last;
        if (threadIdx.x == 0)
            s_last = last;
        __syncthreads(); // also extends thread 0's acquire to the block
        last = s_last;
    } else {
        last = __shfl_sync(0xffffffffu, (int)last, 0, L);
        __syncwarp(); // extends lane 0's acquire to its group
    }
    // Every lane runs the loop (the shuffles need them); only the last group loads.
    v = R::identity();
    for (unsigned s = lane; s < splits; s += L)
        if (last)
            v = R::combine(v, R::load_cg(part + r * splits + s));
    v = group_reduce<R, BLOCK>(v, whole, L);
    if (last && lane == 0)
        R::store(v, value, index, r);
}

template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_cols(const T *__restrict__ a, const T *__restrict__ b, unsigned long long rows,
                       unsigned long long cols, unsigned long long ld, unsigned long long stride,
                       int tx_log2, unsigned splits,
                       typename cuspec_axis::op<T, OP>::Out *__restrict__ value,
                       long long *__restrict__ index, void *__restrict__ partials,
                       unsigned *__restrict__ tickets)
{
    using namespace cuspec_axis;
    typedef op<T, OP> R;
    typedef typename R::A A;
    constexpr bool TWO = OP == DOT;
    static_assert(OP >= 0 && OP <= 5, "OP: 0 sum, 1 min, 2 max, 3 argmin, 4 argmax, 5 dot");
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK: a multiple of 32");
    static_assert((VEC & (VEC - 1)) == 0 && VEC * sizeof(T) <= 16, "VEC: a power of two, <= 16 B");
    static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1..16");
    CUSPEC_AFTER_PRIOR_GRID();

    const unsigned TX = 1u << tx_log2, TY = BLOCK >> tx_log2;
    const unsigned tx = threadIdx.x & (TX - 1), ty = threadIdx.x >> tx_log2;
    const unsigned long long m = blockIdx.z;
    const unsigned long long c0 = ((unsigned long long)blockIdx.x * TX + tx) * VEC;
    const unsigned cnt = c0 < cols ? (cols - c0 < VEC ? (unsigned)(cols - c0) : VEC) : 0;
    const unsigned long long chunk = (rows + splits - 1) / splits;
    const unsigned long long lo = blockIdx.y * chunk;
    const unsigned long long hi = lo >= rows ? lo : rows - lo < chunk ? rows : lo + chunk;
    const T *p = a + m * stride + c0, *q = (TWO ? b : a) + m * stride + c0;

    A acc[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        acc[k] = R::identity();
    if (cnt == VEC && ld % VEC == 0 && aligned<VEC>(p) && (!TWO || aligned<VEC>(q)))
        column_strip<R, T, VEC, ITEMS, TWO, true>(p, q, ld, lo, hi, ty, TY, cnt, acc);
    else if (cnt > 0)
        column_strip<R, T, VEC, ITEMS, TWO, false>(p, q, ld, lo, hi, ty, TY, cnt, acc);
    CUSPEC_LET_NEXT_GRID();
    columns_reduce<R, BLOCK, VEC>(acc, TX);

    const unsigned long long out0 = m * cols + c0;
    if (splits == 1) {
        if (threadIdx.x < TX)
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                if (k < (int)cnt)
                    R::store(acc[k], value, index, out0 + k);
        return;
    }

    // Split rows: this block's partials, then the tile's ticket; the tile's
    // last block combines its chunks.
    A *part = reinterpret_cast<A *>(partials) + m * splits * cols + c0;
    if (threadIdx.x < TX) {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (k < (int)cnt)
                part[blockIdx.y * cols + k] = acc[k];
        __threadfence();
    }
    __syncthreads();
    __shared__ int s_last;
    if (threadIdx.x == 0)
        s_last = last_arrival(tickets + m * gridDim.x + blockIdx.x, splits);
    __syncthreads();
    if (!s_last)
        return;
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        acc[k] = R::identity();
#pragma unroll 4 // the partials' loads in flight: the grid's tail waits on them
    for (unsigned y = ty; y < splits; y += TY)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (k < (int)cnt)
                acc[k] = R::combine(acc[k], R::load_cg(part + (unsigned long long)y * cols + k));
    columns_reduce<R, BLOCK, VEC>(acc, TX);
    if (threadIdx.x < TX)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (k < (int)cnt)
                R::store(acc[k], value, index, out0 + k);
}

#endif // CUSPEC_REDUCE_AXIS_CUH_
