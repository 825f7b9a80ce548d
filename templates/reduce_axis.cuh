// cuspec reductions along a matrix axis: sum, min, max, argmin, argmax and
// dot of `batch` row-major rows x cols matrices, one result per row
// (cuspec_reduce_rows) or per column (cuspec_reduce_cols).
//
// CUDA C++17 with three #includes, prior_grid.cuh, reduce.cuh and
// reduce_types.cuh beside it, so NVRTC can compile it given those headers; it
// also compiles when #included from an nvcc .cu file.
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
//   __global__ void cuspec_reduce_rows_block(the arguments of cuspec_reduce_rows);
//   template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
//   __global__ void cuspec_reduce_rows_split(the arguments of cuspec_reduce_rows, lanes_log2
//                                            read as chunk_log2);
//   template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
//   __global__ void cuspec_reduce_rows_flat(the arguments of cuspec_reduce_rows; b, cols,
//                                           ld, stride, total, splits, partials and
//                                           tickets unused);
//   template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
//   __global__ void cuspec_reduce_cols(const T *a, const T *b, u64 rows, u64 cols, u64 ld,
//                                      u64 stride, int tx_log2, unsigned splits,
//                                      Out *value, long long *index, void *partials,
//                                      unsigned *tickets);
//   template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
//   __global__ void cuspec_reduce_cols_flat(the arguments of cuspec_reduce_cols; b, cols,
//                                           ld, stride, splits and partials unused);
//
// TEMPLATE PARAMETERS
//   T      float, double, int, long long, unsigned int, unsigned long long, signed char,
//          unsigned char, short, unsigned short, cuspec_f16, cuspec_bf16
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
// ROWS_BLOCK: the whole block takes a row, grid-stride over rows, with loads through L1
//   (lanes_log2, splits, partials and tickets unused).
// ROWS_SPLIT: few long rows. Block (x, y) takes chunk y of row x (gridDim.x = total,
//   gridDim.y = splits; with splits > 1 the row's ticket as for ROWS), a chunk
//   ceil(cols / splits) rounded up to a multiple of 1 << chunk_log2 elements (a
//   vector's, or the block's tile of ITEMS vectors a thread). A thread keeps an
//   accumulator a load, not one an element, so few registers.
//   argmin/argmax: each row a whole array of reduce.cuh's cuspec_argreduce, its
//   blocks x of gridDim.x (grid-stride along the row), row z * gridDim.y + y (rows
//   past total return); row r's ticket and word (WORKSPACE there) at tickets + 4 * r,
//   its partials at partials + r * gridDim.x (16 bytes each: 8-byte values, or rows
//   of 2^31 elements or more); loads streamed (chunk_log2 unused).
// ROWS_FLAT: sum, min, max, argmin or argmax of 4-byte types, one matrix whose rows are
// contiguous (ld == cols) and G = 4 << lanes_log2 vectors of VEC elements (16 bytes, a
// 16-byte aligned a), 4 <= G <= 32: the matrix read as one array of rows * G / 4 groups
// of 4 vectors of a row, grid-stride in tiles of BLOCK * ITEMS / 4 groups (ITEMS a
// multiple of 4; the next tile's loads issued before this one is folded). A thread folds
// each of its groups, the row's L = G / 4 lanes combine theirs by shuffles
// (argmin/argmax as packed keys), and the row's first lane stores the result: no
// partials, no atomics.
// COLS: TX = 1 << tx_log2 (1..BLOCK) threads along the columns, each owning VEC adjacent
// columns, by BLOCK / TX along the rows; block (x, y, z) takes column tile x, rows
// chunk y of `splits`, matrix z. With splits > 1, partials hold batch * splits * cols
// A and tickets[z * gridDim.x + x] the tile's count. Where ld and the pointers are
// multiples of VEC, the last tile's vectors read past cols into the padding between
// rows (never past a matrix's last row, which is read element by element).
// COLS_FLAT: argmin/argmax of types compared in 4 bytes (elem<T>::V), one matrix
// whose rows are contiguous (ld == cols) and G = 1 << tx_log2 vectors of VEC elements
// (16 bytes, a 16-byte aligned a), G <= 32, rows < 2^31 - 1: the matrix read as one
// array of rows * G vectors, grid-stride in tiles of BLOCK * ITEMS (the next tile's
// loads issued before this one is folded), so a thread's columns never change. Each
// column's best of a block goes as a packed key into its 64-bit word at tickets + 2
// + 2c (atomicMax), the last block (ticket tickets[0]) writes the results and zeroes
// the words (all zero before the first launch, left zero).
//
// POLICIES
//   An empty reduction (cols = 0 for rows, rows = 0 for columns) writes the identity:
//   sum 0; min +inf or the type's largest; max -inf or the type's smallest (the host
//   refuses it for argmin/argmax). Float min/max propagate NaN; argmin/argmax return
//   the first NaN where there is one, else the first extreme element (ties: the
//   smallest index). Integer sums wrap modulo 2^64. Floats accumulate in S with VEC *
//   ITEMS independent sums per thread (rows; rows_flat VEC chains of a group's 4
//   vectors, then a tree and the row's lanes) or one per column and thread (columns),
//   then trees: no float atomics, so results are reproducible for a fixed launch
//   (rows_split's argmin/argmax combine a row's blocks by a 64-bit atomicMax of
//   (value, index) keys, whose result is the same in any order).
// ---------------------------------------------------------------------------

#ifndef CUSPEC_REDUCE_AXIS_CUH_
#define CUSPEC_REDUCE_AXIS_CUH_

// The streamed input is read once: evict-first, as reduce.cuh does (rows_block's
// loads go through L1: load's L1).
#ifndef CUSPEC_AXIS_LOAD
#define CUSPEC_AXIS_LOAD(p) __ldcs(p)
#endif

#include "prior_grid.cuh"
#include "reduce.cuh"
#include "reduce_types.cuh"

namespace cuspec_axis
{

// Element traits and raw vector words are the whole-array family's
// (reduce_types.cuh): elem<T>::V, the type elements are compared in (float
// for halves, int or unsigned for 8- and 16-bit integers), val / put, hi /
// lo, is_float, is_signed.
using cuspec_reduce_detail::elem;
using cuspec_reduce_detail::raw;
using cuspec_reduce_detail::word;

enum { SUM = 0, MIN = 1, MAX = 2, ARGMIN = 3, ARGMAX = 4, DOT = 5 };

template <bool B, typename X, typename Y> struct pick {
    typedef X type;
};
template <typename X, typename Y> struct pick<false, X, Y> {
    typedef Y type;
};

// ---- loads: V elements of T as one aligned word of V * sizeof(T) bytes ------
template <typename T, int V> union pack {
    typename raw<sizeof(T) * V>::type r;
    T x[V];
};
// L1: through the L1 (ld.global.nc), as cuspec_reduce_rows_block reads its rows.
template <int V, bool L1 = false, typename T> __device__ __forceinline__ pack<T, V> load(const T *p)
{
    typedef typename raw<sizeof(T) * V>::type W;
    pack<T, V> k;
    if constexpr (L1)
        k.r = __ldg(reinterpret_cast<const W *>(p));
    else
        k.r = CUSPEC_AXIS_LOAD(reinterpret_cast<const W *>(p));
    return k;
}
template <bool L1 = false, typename T> __device__ __forceinline__ T load1(const T *p)
{
    return load<1, L1>(p).x[0];
}
template <int V, typename T> __device__ __forceinline__ bool aligned(const T *p)
{
    return (reinterpret_cast<unsigned long long>(p) & (V * sizeof(T) - 1)) == 0;
}

// ---- a vector's extreme, NaN-propagating, by the cheapest operations -------
// argmin/argmax test a whole vector against their best with it and locate
// the element only when it wins (rare once a row is under way).
template <bool MX, typename C> __device__ __forceinline__ C pick_extreme(C a, C b)
{
    if constexpr (elem<C>::is_float)
        return (MX ? a > b : a < b) || a != a ? a : b;
    else
        return (MX ? a > b : a < b) ? a : b;
}

// Byte or half-word lanes of two words, each against its own (SIMD).
template <typename T, bool MX> __device__ __forceinline__ unsigned lanes2(unsigned a, unsigned b)
{
    if constexpr (sizeof(T) == 1 && elem<T>::is_signed)
        return MX ? __vmaxs4(a, b) : __vmins4(a, b);
    else if constexpr (sizeof(T) == 1)
        return MX ? __vmaxu4(a, b) : __vminu4(a, b);
    else if constexpr (elem<T>::is_signed)
        return MX ? __vmaxs2(a, b) : __vmins2(a, b);
    else
        return MX ? __vmaxu2(a, b) : __vminu2(a, b);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUSPEC_AXIS_NAN_MINMAX 1 // max.NaN / min.NaN: sm_80 and later
// Two halves (bfloat16s) of two words, each against its own.
template <typename T, bool MX> __device__ __forceinline__ unsigned halves2(unsigned a, unsigned b)
{
    unsigned r;
    if constexpr (cuspec_reduce_detail::same<T, cuspec_f16>::value && MX)
        asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else if constexpr (cuspec_reduce_detail::same<T, cuspec_f16>::value)
        asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else if constexpr (MX)
        asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else
        asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
template <bool MX> __device__ __forceinline__ float nan_extreme(float a, float b)
{
    float r;
    if constexpr (MX)
        asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else
        asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
#else
#define CUSPEC_AXIS_NAN_MINMAX 0
#endif

// Words of byte or half-word lanes (integers, or halves with max.NaN) fold
// lane-wise, then lane 0 against the others (the upper lanes go stale).
template <bool MX, typename T, int V>
__device__ __forceinline__ typename elem<T>::V extreme(const pack<T, V> &x)
{
    typedef typename elem<T>::V C;
    constexpr int WORDS = V * (int)sizeof(T) / 4;
    constexpr bool NARROW_INT = sizeof(T) < 4 && !elem<T>::is_float;
    if constexpr (NARROW_INT && WORDS >= 1) {
        unsigned w = word(x.r, 0);
#pragma unroll
        for (int i = 1; i < WORDS; ++i)
            w = lanes2<T, MX>(w, word(x.r, i));
        w = lanes2<T, MX>(w, w >> 16);
        if constexpr (sizeof(T) == 1)
            w = lanes2<T, MX>(w, w >> 8);
        return elem<T>::val(elem<T>::from_bits(w));
    }
#if CUSPEC_AXIS_NAN_MINMAX
    else if constexpr (sizeof(T) == 2 && elem<T>::is_float && WORDS >= 1) {
        unsigned w = word(x.r, 0);
#pragma unroll
        for (int i = 1; i < WORDS; ++i)
            w = halves2<T, MX>(w, word(x.r, i));
        w = halves2<T, MX>(w, w >> 16);
        return elem<T>::val(elem<T>::from_bits(w));
    } else if constexpr (sizeof(T) == 4 && elem<T>::is_float) {
        C m = x.x[0];
#pragma unroll
        for (int k = 1; k < V; ++k)
            m = nan_extreme<MX>(m, x.x[k]);
        return m;
    }
#endif
    else {
        C m = elem<T>::val(x.x[0]);
#pragma unroll
        for (int k = 1; k < V; ++k)
            m = pick_extreme<MX>(m, elem<T>::val(x.x[k]));
        return m;
    }
}

// ---- the operation: its accumulator A, its output, and how elements fold in.
// COLS: the columns kernel's, whose argmin/argmax of 4-byte floats and
// halves combine by selects (SELECTS; the rows kernels and the other types
// lost with them).
template <typename T, int OP, bool COLS = false> struct op {
    typedef elem<T> E;
    typedef typename E::V C; // elements are compared in C
    // sums accumulate in S: floats in C (f32 for halves), integers in 64 bits
    typedef typename pick<E::is_float, C,
                          typename pick<E::is_signed, long long, unsigned long long>::type>::type S;
    enum : bool { ARG = OP == ARGMIN || OP == ARGMAX, LOW = OP == ARGMIN };
    enum : bool { SUMS = OP == SUM || OP == DOT };
    enum : bool { SELECTS = COLS && ARG && E::is_float && sizeof(C) == 4 };
    struct pair {
        C v;
        long long i;
    };
    typedef typename pick<SUMS, S, typename pick<ARG, pair, C>::type>::type A;
    // A load takes one accumulator, not one per element, for argmin/argmax
    // (step_after) and for sums and dots of 8- and 16-bit integers, which
    // add a whole load up in W first (exactly: W holds V of them).
    enum : bool { PER_LOAD = ARG || (SUMS && !E::is_float && sizeof(T) < 4) };
    typedef typename pick<sizeof(T) == 1 || OP == SUM, C, S>::type W;
    typedef typename pick<SUMS, S, T>::type Out;
    // An index past any element's: every element wins a tie with it.
    static constexpr long long EMPTY = 0x7fffffffffffffffLL;

    static __device__ __forceinline__ A identity()
    {
        if constexpr (SUMS)
            return A(0);
        else if constexpr (OP == MIN)
            return E::hi();
        else if constexpr (OP == MAX)
            return E::lo();
        else
            return A{OP == ARGMIN ? E::hi() : E::lo(), EMPTY};
    }

    // argmin/argmax: x strictly better than y, or a NaN where y is none (the
    // first NaN stays). For floats !(x <= y) is x > y or x NaN; y == y: y is
    // no NaN.
    static __device__ __forceinline__ bool wins(C x, C y)
    {
        if constexpr (E::is_float)
            return !(OP == ARGMIN ? x >= y : x <= y) && y == y;
        else
            return OP == ARGMIN ? x < y : x > y;
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
        } else if constexpr (!SELECTS) {
            if constexpr (E::is_float) {
                const bool xn = x.v != x.v, yn = y.v != y.v;
                if (xn || yn)
                    return xn && (!yn || x.i < y.i) ? x : y;
            }
            const bool better = OP == ARGMIN ? y.v < x.v : y.v > x.v;
            return better || (y.v == x.v && y.i < x.i) ? y : x;
        } else {
            // By selects, with no branch, so that the loads of the next pairs
            // need not wait on it (docs/experiments/reduce_axis.md, "Columns:
            // what the finish costs, and argmin/argmax combined without a branch").
            const bool first = y.i < x.i;
            bool take = (OP == ARGMIN ? y.v < x.v : y.v > x.v) || (y.v == x.v && first);
            if constexpr (E::is_float) {
                const bool xn = x.v != x.v, yn = y.v != y.v;
                take = xn || yn ? yn && (!xn || first) : take;
            }
            return take ? y : x;
        }
    }

    // Folds element x (and b's y, for dot) at index i into acc, in any order.
    static __device__ __forceinline__ A step(A acc, T x, T y, long long i)
    {
        if constexpr (OP == DOT) {
            if constexpr (E::is_float && sizeof(S) == 4)
                return __fmaf_rn(E::val(x), E::val(y), acc);
            else if constexpr (E::is_float)
                return __fma_rn(E::val(x), E::val(y), acc);
            else // widened first, multiplied and added modulo 2^64
                return (A)((unsigned long long)acc +
                           (unsigned long long)(S)E::val(x) * (unsigned long long)(S)E::val(y));
        } else if constexpr (SUMS) {
            return combine(acc, (A)E::val(x));
        } else if constexpr (ARG) {
            return combine(acc, A{E::val(x), i});
        } else {
            return combine(acc, E::val(x));
        }
    }

    // argmin/argmax of the V elements of x, at indices i .. i + V - 1, all
    // past acc's (or acc empty): the vector's extreme against acc, and only
    // where it wins, its first element (the first NaN where it is one).
    template <int V> static __device__ __forceinline__ A step_after(A acc, const pack<T, V> &x, long long i)
    {
        const C m = extreme<OP == ARGMAX>(x);
        if (wins(m, acc.v) || acc.i == EMPTY) {
            C v = E::val(x.x[V - 1]);
            int at = V - 1;
#pragma unroll
            for (int k = V - 2; k >= 0; --k) {
                const C c = E::val(x.x[k]);
                if (c == m || c != c) {
                    v = c;
                    at = k;
                }
            }
            acc = A{v, i + at};
        }
        return acc;
    }

    template <int V>
    static __device__ __forceinline__ A step_load(A acc, const pack<T, V> &x, const pack<T, V> &y)
    {
        W w = 0;
#pragma unroll
        for (int k = 0; k < V; ++k)
            w += OP == DOT ? (W)E::val(x.x[k]) * (W)E::val(y.x[k]) : (W)E::val(x.x[k]);
        return combine(acc, (A)w);
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

    static __device__ __forceinline__ Out out(A x)
    {
        if constexpr (SUMS)
            return x;
        else if constexpr (ARG)
            return E::put(x.v);
        else
            return E::put(x);
    }

    // The value and (argmin/argmax) the index, each unless left out or NULL.
    template <bool VALUE = true, bool INDEX = true>
    static __device__ __forceinline__ void store(A x, Out *value, long long *index,
                                                 unsigned long long o)
    {
        if (VALUE && (!ARG || value != nullptr))
            value[o] = out(x);
        if constexpr (ARG && INDEX)
            if (index != nullptr)
                index[o] = x.i;
    }
};

// ---- combining across threads ------------------------------------------------
// Lanes in aligned groups of L (a power of two <= 32); every lane of the warp
// calls it. The result is in every lane of the group. A whole warp's
// argmin/argmax of 32-bit values through redux where the arch has it
// (reduce_types.cuh: warp_arg).
template <typename R> __device__ __forceinline__ typename R::A lanes_reduce(typename R::A v, int L)
{
    if constexpr (cuspec_reduce_detail::warp_arg_fits<typename R::A>::value) {
        if (L == 32)
            return cuspec_reduce_detail::warp_arg<R::LOW>(v);
    }
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

// Takes ticket t for one of `count` arrivals (release: the partials this
// thread stored, or saw stored before a barrier, are published; acquire:
// the last sees every other's). The last arrival's wrap stores 0, ready
// for the next launch. 1 for the last.
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
// Load j of V elements (at index i) into its accumulators: one per element,
// or one per load (BY_LOAD: op::PER_LOAD, argmin/argmax its vectors in index
// order; or an array of one a load, for the fewer registers).
template <typename R, typename T, int V, bool TWO, bool BY_LOAD, int K>
__device__ __forceinline__ void consume(typename R::A (&acc)[K], int j, const pack<T, V> &x,
                                        const pack<T, V> &y, long long i)
{
    if constexpr (R::ARG) {
        acc[j] = R::template step_after<V>(acc[j], x, i);
    } else if constexpr (R::PER_LOAD) {
        acc[j] = R::template step_load<V>(acc[j], x, y);
    } else {
#pragma unroll
        for (int k = 0; k < V; ++k) {
            const int a = BY_LOAD ? j : j * V + k;
            acc[a] = R::step(acc[a], x.x[k], TWO ? y.x[k] : x.x[k], i + k);
        }
    }
}

// Vectors: lane takes vectors lane, lane + L, ... of each tile of L * IT, all IT
// loads issued before any is used.
template <typename R, typename T, int V, int IT, bool TWO, bool L1 = false, int K>
__device__ __forceinline__ void row_vectors(const T *p, const T *q, unsigned long long nv,
                                            long long i0, unsigned lane, unsigned L,
                                            typename R::A (&acc)[K])
{
    static_assert(K == IT || (!R::PER_LOAD && K == V * IT),
                  "an accumulator per load or per element");
    constexpr bool BY_LOAD = K == IT;
    const unsigned long long tile = (unsigned long long)L * IT;
    unsigned long long v0 = 0;
#pragma unroll 1
    for (; v0 + tile <= nv; v0 += tile) {
        pack<T, V> x[IT], y[IT];
#pragma unroll
        for (int j = 0; j < IT; ++j)
            x[j] = load<V, L1>(p + (v0 + lane + (unsigned long long)j * L) * V);
        if constexpr (TWO) {
#pragma unroll
            for (int j = 0; j < IT; ++j)
                y[j] = load<V, L1>(q + (v0 + lane + (unsigned long long)j * L) * V);
        }
#pragma unroll
        for (int j = 0; j < IT; ++j)
            consume<R, T, V, TWO, BY_LOAD>(acc, j, x[j], TWO ? y[j] : x[j],
                                           i0 + (long long)((v0 + lane + j * L) * V));
    }
#pragma unroll
    for (int j = 0; j < IT; ++j) {
        const unsigned long long v = v0 + lane + (unsigned long long)j * L;
        if (v < nv) {
            pack<T, V> x = load<V, L1>(p + v * V), y = x;
            if constexpr (TWO)
                y = load<V, L1>(q + v * V);
            consume<R, T, V, TWO, BY_LOAD>(acc, j, x, y, i0 + (long long)(v * V));
        }
    }
}

// Elements before p's first VEC-aligned one and after the last whole vector go
// one by one; a dot whose inputs are misaligned differently goes by elements,
// VEC * ITEMS of them in flight.
template <typename R, typename T, int VEC, int ITEMS, bool TWO, bool L1 = false, int K>
__device__ __forceinline__ void row_segment(const T *p, const T *q, unsigned long long n,
                                            long long i0, unsigned lane, unsigned L,
                                            typename R::A (&acc)[K])
{
    constexpr unsigned long long VB = VEC * sizeof(T);
    const unsigned long long mis = reinterpret_cast<unsigned long long>(p) & (VB - 1);
    if constexpr (TWO) {
        if ((reinterpret_cast<unsigned long long>(q) & (VB - 1)) != mis) {
            row_vectors<R, T, 1, K, TWO, L1>(p, q, n, i0, lane, L, acc);
            return;
        }
    }
    unsigned long long head = mis ? (VB - mis) / sizeof(T) : 0;
    head = head < n ? head : n;
    const unsigned long long nv = (n - head) / VEC, tail = n - head - nv * VEC;
    row_vectors<R, T, VEC, ITEMS, TWO, L1>(p + head, q + head, nv, i0 + (long long)head, lane, L,
                                           acc);
    for (unsigned long long e = lane; e < head; e += L)
        acc[0] = R::step(acc[0], load1<L1>(p + e), load1<L1>(TWO ? q + e : p + e),
                         i0 + (long long)e);
    for (unsigned long long e = n - tail + lane; e < n; e += L)
        acc[K - 1] = R::step(acc[K - 1], load1<L1>(p + e), load1<L1>(TWO ? q + e : p + e),
                             i0 + (long long)e);
}

// A row's n elements: whole aligned vectors skip row_segment's head and tail
// (sums only; why: docs/experiments/reduce_axis.md, "The rows kernel's setup").
template <typename R, typename T, int VEC, int ITEMS, bool TWO, bool L1 = false, int K>
__device__ __forceinline__ void row_any(const T *p, const T *q, unsigned long long n, long long i0,
                                        unsigned lane, unsigned L, typename R::A (&acc)[K])
{
    if (!R::ARG && n % VEC == 0 && aligned<VEC>(p) && (!TWO || aligned<VEC>(q)))
        row_vectors<R, T, VEC, ITEMS, TWO, L1>(p, q, n / VEC, i0, lane, L, acc);
    else
        row_segment<R, T, VEC, ITEMS, TWO, L1>(p, q, n, i0, lane, L, acc);
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
// The strip's row at `row` into x: a vector, or where the strip is cut short
// (!FULL) its first cnt elements one by one.
template <typename T, int VEC, bool FULL>
__device__ __forceinline__ void strip_row(pack<T, VEC> &x, const T *row, unsigned cnt)
{
    if constexpr (FULL) {
        x = load<VEC>(row);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (k < (int)cnt)
                x.x[k] = load1(row + k);
    }
}

// Rows r, r + TY, .. r + (ITEMS - 1) * TY of the strip (those below hi; ALL:
// every one is) into x (and q's into y, for dot). MOVE: row r at pr (qr),
// each next gap elements on; else pr (qr) is the strip's row 0 and gap its
// rows' distance (ld).
template <typename T, int VEC, int ITEMS, bool TWO, bool FULL, bool MOVE, bool ALL>
__device__ __forceinline__ void strip_rows(pack<T, VEC> (&x)[ITEMS], pack<T, VEC> (&y)[ITEMS],
                                           const T *pr, const T *qr, unsigned long long r,
                                           unsigned TY, unsigned long long hi,
                                           unsigned long long gap, unsigned cnt)
{
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const unsigned long long rr = r + (unsigned long long)j * TY;
        if (ALL || rr < hi) {
            strip_row<T, VEC, FULL>(x[j], MOVE ? pr : pr + rr * gap, cnt);
            if constexpr (TWO)
                strip_row<T, VEC, FULL>(y[j], MOVE ? qr : qr + rr * gap, cnt);
        }
        if constexpr (MOVE) {
            pr += gap;
            qr += gap;
        }
    }
}

// A tile of rows from r (below hi) on: without a test a row where all of
// them are below hi.
template <typename T, int VEC, int ITEMS, bool TWO, bool FULL, bool MOVE>
__device__ __forceinline__ void strip_tile(pack<T, VEC> (&x)[ITEMS], pack<T, VEC> (&y)[ITEMS],
                                           const T *pr, const T *qr, unsigned long long r,
                                           unsigned TY, unsigned long long hi,
                                           unsigned long long gap, unsigned cnt, bool all)
{
    if (all)
        strip_rows<T, VEC, ITEMS, TWO, FULL, MOVE, true>(x, y, pr, qr, r, TY, hi, gap, cnt);
    else
        strip_rows<T, VEC, ITEMS, TWO, FULL, MOVE, false>(x, y, pr, qr, r, TY, hi, gap, cnt);
}

// Folds a tile's rows (those below hi; ALL: every one is) into each column's
// best and its row count (BEST), or acc.
template <typename R, typename T, int VEC, int ITEMS, bool TWO, bool FULL, bool BEST, bool ALL>
__device__ __forceinline__ void strip_fold(const pack<T, VEC> (&x)[ITEMS],
                                           const pack<T, VEC> (&y)[ITEMS], unsigned long long r,
                                           unsigned TY, unsigned long long hi, unsigned n,
                                           unsigned cnt, typename R::C (&best)[VEC],
                                           unsigned (&at)[VEC], typename R::A (&acc)[VEC])
{
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const unsigned long long rr = r + (unsigned long long)j * TY;
        if (ALL || rr < hi)
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                if (FULL || k < (int)cnt) {
                    if constexpr (BEST) {
                        const typename R::C c = R::E::val(x[j].x[k]);
                        if (R::wins(c, best[k])) {
                            best[k] = c;
                            at[k] = n + j;
                        }
                    } else if constexpr (R::ARG) { // rows come in order
                        pack<T, 1> e;
                        e.x[0] = x[j].x[k];
                        acc[k] = R::template step_after<1>(acc[k], e, (long long)rr);
                    } else {
                        acc[k] = R::step(acc[k], x[j].x[k], TWO ? y[j].x[k] : x[j].x[k],
                                         (long long)rr);
                    }
                }
    }
}

// argmin/argmax of types narrower than 8 bytes (BEST) keep each column's best
// value and which of the thread's rows (a 32-bit count: the host splits the
// rows so that a thread takes fewer than 2^31) held it, from the thread's
// first row on: one test and two selects an element (8-byte types were
// slower so: docs/experiments/reduce_axis.md, "Columns' argmax").
template <typename R, typename T, int VEC, int ITEMS, bool TWO, bool FULL>
__device__ __forceinline__ void column_strip(const T *p, const T *q, unsigned long long ld,
                                             unsigned long long lo, unsigned long long hi,
                                             unsigned ty, unsigned TY, unsigned cnt,
                                             typename R::A (&acc)[VEC])
{
    typedef typename R::C C;
    constexpr bool BEST = R::ARG && sizeof(T) < 8;
    const unsigned long long r0 = lo + ty;
    if (r0 >= hi)
        return;
    C best[VEC];
    unsigned at[VEC];
    if constexpr (BEST) {
        pack<T, VEC> x;
        strip_row<T, VEC, FULL>(x, p + r0 * ld, cnt);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (FULL || k < (int)cnt) {
                best[k] = R::E::val(x.x[k]);
                at[k] = 0;
            }
    }
    // Steps pr, qr a tile at a time (docs/experiments/reduce_axis.md: "addresses a tile").
    constexpr bool MOVE = BEST || !R::ARG;
    const unsigned long long step = (unsigned long long)TY * ITEMS, gap = MOVE ? TY * ld : ld;
    // Whole tiles (every row below hi) with no test a row (the same file: "whole tiles").
    constexpr bool WHOLE = R::ARG ? R::E::is_float && sizeof(T) >= 4
                                  : !TWO && (sizeof(T) == 4 ||
                                             (R::SUMS && R::E::is_float && sizeof(T) == 8));
    const T *pr = MOVE ? p + r0 * ld : p, *qr = MOVE ? q + r0 * ld : q;
    pack<T, VEC> x[ITEMS], y[ITEMS];
    unsigned n = 0; // the thread's rows before r
#pragma unroll 1
    for (unsigned long long r = r0; r < hi; r += step, n += ITEMS) {
        const bool all = WHOLE && hi - r > step - TY; // the tile's last row is below hi
        strip_tile<T, VEC, ITEMS, TWO, FULL, MOVE>(x, y, pr, qr, r, TY, hi, gap, cnt, all);
        if (all)
            strip_fold<R, T, VEC, ITEMS, TWO, FULL, BEST, true>(x, y, r, TY, hi, n, cnt, best, at,
                                                                acc);
        else
            strip_fold<R, T, VEC, ITEMS, TWO, FULL, BEST, false>(x, y, r, TY, hi, n, cnt, best, at,
                                                                 acc);
        if constexpr (MOVE) {
            pr += ITEMS * gap;
            qr += ITEMS * gap;
        }
    }
    if constexpr (BEST) {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (FULL || k < (int)cnt)
                acc[k] = typename R::A{best[k], (long long)(r0 + (unsigned long long)at[k] * TY)};
    }
}

// Of n columns (a power of two) of `each` bytes, as many as fit in `bytes`
// (at least one).
__host__ __device__ constexpr int columns_in(int n, int each, int bytes)
{
    return n > 1 && n * each > bytes ? columns_in(n / 2, each, bytes) : n;
}

// Combines the block's rows of threads: afterwards thread t < TX holds its
// columns' results. Every thread calls it. TX <= 32: a warp holds one or
// more rows of threads (shuffles first); TX > 32: each row of threads is
// TX / 32 whole warps, and with TX = BLOCK there is nothing to combine.
// Across warps, G columns a barrier, as many as fit in 8 KB, and no barrier
// after the last round: the caller's own come before the array's next use.
// docs/experiments/reduce_axis.md: "the block's combine in fewer barriers".
template <typename R, int BLOCK, int VEC>
__device__ __forceinline__ void columns_reduce(typename R::A (&acc)[VEC], unsigned TX)
{
    typedef typename R::A A;
    // Within a warp, lanes l and l ^ (TX << s) own the same columns.
    for (int off = 16; off >= (int)TX; off >>= 1)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            acc[k] = R::combine(acc[k], R::shfl_xor(acc[k], off));
    constexpr int WARPS = BLOCK / 32;
    if constexpr (WARPS > 1) {
        if (TX == BLOCK)
            return;
        constexpr int G = columns_in(VEC, WARPS * 32 * (int)sizeof(A), 8192);
        __shared__ A warp_vals[G][WARPS][32];
        const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
        for (int k0 = 0; k0 < VEC; k0 += G) {
            if (lane < TX)
#pragma unroll
                for (int g = 0; g < G; ++g)
                    warp_vals[g][warp][lane] = acc[k0 + g];
            __syncthreads();
            if (threadIdx.x < TX)
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    A v = warp_vals[g][warp][lane];
                    if (TX <= 32) {
#pragma unroll
                        for (int w = 1; w < WARPS; ++w)
                            v = R::combine(v, warp_vals[g][w][lane]);
                    } else {
#pragma unroll 1
                        for (unsigned w = warp + TX / 32; w < WARPS; w += TX / 32)
                            v = R::combine(v, warp_vals[g][w][lane]);
                    }
                    acc[k0 + g] = v;
                }
            if (k0 + G < VEC)
                __syncthreads();
        }
    }
}

// ---- the block's results -------------------------------------------------------
// Thread t < TX holds columns t * VEC .. t * VEC + VEC - 1 of its block's. Where
// its results are 8 bytes each and far apart (sums of 8- and 16-bit integers,
// 64 bytes or more; argmin/argmax's indices, 32 or more), each of a warp's
// stores straight from registers would touch 32 sectors or more for 8 bytes of
// each: the warp passes them through shared memory instead, G lanes at a
// time, and writes their G * VEC columns in order (docs/experiments/
// reduce_axis.md: "Columns' results through shared memory").
template <typename X, int VEC, int APART> struct staging {
    enum { STAGED = sizeof(X) == 8 && VEC * 8 >= APART, ROW = (VEC + 1) * 8 }; // no bank conflicts
    enum { G = ROW * 32 <= 1280 ? 32 : ROW * 16 <= 1280 ? 16 : ROW * 8 <= 1280 ? 8 : 4 };
    enum { BYTES = STAGED ? G * ROW : 0 };
};

// Lane l's x are columns c + l * VEC ..; those at and past `end` are not written.
template <unsigned G, int VEC, typename X>
__device__ __forceinline__ void warp_write(const X (&x)[VEC], X *dst, unsigned long long c,
                                           unsigned long long end, X *buf)
{
    const unsigned lane = threadIdx.x & 31;
#pragma unroll 1
    for (unsigned l0 = 0; l0 < 32; l0 += G) {
        if (lane - l0 < G)
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                buf[(lane - l0) * (VEC + 1) + k] = x[k];
        __syncwarp();
        const unsigned long long first = c + (unsigned long long)l0 * VEC;
#pragma unroll 1
        for (unsigned e = lane; e < G * VEC; e += 32)
            if (first + e < end)
                dst[first + e] = buf[e + e / VEC];
        __syncwarp();
    }
}

// The results of threads t < TX to value and index (argmin/argmax: either
// may be NULL): thread t's cnt from column c0 on, the block's from `tile` to
// `end`. Every thread calls it.
template <typename R, int BLOCK, int VEC>
__device__ __forceinline__ void columns_write(const typename R::A (&acc)[VEC], unsigned TX,
                                              unsigned cnt, unsigned long long c0,
                                              unsigned long long tile, unsigned long long end,
                                              typename R::Out *value, long long *index)
{
    typedef typename R::Out Out;
    typedef staging<Out, VEC, 64> values;
    typedef staging<long long, VEC, 32> indices;
    constexpr bool VALUES = values::STAGED, INDICES = R::ARG && indices::STAGED;
    if (threadIdx.x < TX)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (k < (int)cnt)
                R::template store<!VALUES, !INDICES>(acc[k], value, index, c0 + k);
    if constexpr (VALUES || INDICES) {
        constexpr int WARPS = BLOCK / 32, AT_ONCE = WARPS < 8 ? WARPS : 8; // 10 KB at most
        constexpr int BYTES = VALUES ? values::BYTES : indices::BYTES;
        __shared__ __align__(8) unsigned char stage[AT_ONCE][BYTES];
        const unsigned w = threadIdx.x >> 5;
        const unsigned long long c = tile + 32ull * w * VEC;
#pragma unroll 1
        for (unsigned first = 0; first < WARPS; first += AT_ONCE) {
            if (w >= first && w < first + AT_ONCE && 32 * w < TX) {
                unsigned char *buf = stage[w - first];
                if constexpr (VALUES) {
                    Out v[VEC];
#pragma unroll
                    for (int k = 0; k < VEC; ++k)
                        v[k] = R::out(acc[k]);
                    warp_write<values::G>(v, value, c, end, reinterpret_cast<Out *>(buf));
                }
                if constexpr (INDICES) {
                    if (index != nullptr) {
                        long long i[VEC];
#pragma unroll
                        for (int k = 0; k < VEC; ++k)
                            i[k] = acc[k].i;
                        warp_write<indices::G>(i, index, c, end, reinterpret_cast<long long *>(buf));
                    }
                }
            }
            if constexpr (WARPS > AT_ONCE)
                __syncthreads();
        }
    }
}

// A split row's chunk partial v (in its group's lane 0), then the row's
// ticket: the row's last group combines the partials and writes row r's
// result. Every lane of the group calls it (the shuffles need them).
template <typename R, int BLOCK>
__device__ __forceinline__ void split_finish(typename R::A v, bool whole, unsigned lane, unsigned L,
                                             unsigned long long r, bool has_row, unsigned splits,
                                             void *partials, unsigned *tickets,
                                             typename R::Out *value, long long *index)
{
    typename R::A *part = reinterpret_cast<typename R::A *>(partials);
    bool last = false;
    if (lane == 0 && has_row) {
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

// The flat kernels' first tile (BLOCK * ITEMS vectors of VEC elements from
// vector `first`, of nv) asked of the L2 before the wait, a part of 32 *
// ITEMS vectors by each warp's first lane (docs/experiments/reduce_axis.md).
template <int BLOCK, int VEC, int ITEMS, typename T>
__device__ __forceinline__ void flat_tile_to_l2(const T *a, unsigned long long first,
                                                unsigned long long nv)
{
    const unsigned long long part = first + threadIdx.x / 32 * (32ULL * ITEMS);
    if ((threadIdx.x & 31) == 0 && part < nv)
        cuspec_first_to_l2(a + part * VEC, (nv - part) * VEC, 32ULL * ITEMS * VEC);
}

// The flat kernels' loop over whole tiles: from this thread's tile t (below
// full) by gstride, ITEMS loads of VEC elements a tile at at(t, j), the
// next tile's issued before fold(x, t) folds this one's.
template <typename T, int VEC, int ITEMS, typename At, typename Fold>
__device__ __forceinline__ void flat_tiles(unsigned long long t, unsigned long long full,
                                           unsigned long long gstride, At at, Fold fold)
{
    if (t >= full)
        return;
    pack<T, VEC> x[ITEMS], y[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
        x[j] = load<VEC>(at(t, j));
#pragma unroll 1
    for (;;) {
        const bool more = t + gstride < full;
        if (more)
#pragma unroll
            for (int j = 0; j < ITEMS; ++j)
                y[j] = load<VEC>(at(t + gstride, j));
        fold(x, t);
        if (!more)
            break;
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            x[j] = y[j];
        t += gstride;
    }
}

// The template parameters every entry point checks.
template <typename T, int OP, int BLOCK, int VEC, int ITEMS> struct legal {
    static_assert(OP >= 0 && OP <= 5, "OP: 0 sum, 1 min, 2 max, 3 argmin, 4 argmax, 5 dot");
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK: a multiple of 32");
    static_assert((VEC & (VEC - 1)) == 0 && VEC * sizeof(T) <= 16, "VEC: a power of two, <= 16 B");
    static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1..16");
    static constexpr bool value = true;
};

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
    constexpr int K = R::PER_LOAD ? ITEMS : VEC * ITEMS; // accumulators (row_vectors)
    static_assert(legal<T, OP, BLOCK, VEC, ITEMS>::value, "");
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
                if constexpr (R::ARG) {
                    // The vector's extreme, located; the places past the row
                    // repeat its first element, which is found first.
#pragma unroll
                    for (int k = 1; k < VEC; ++k)
                        if (k >= (int)cnt[j])
                            x[j].x[k] = x[j].x[0];
                    if (cnt[j] > 0)
                        v = R::template step_after<VEC>(v, x[j], (long long)c);
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; ++k)
                        if (k < (int)cnt[j])
                            v = R::step(v, x[j].x[k], TWO ? y[j].x[k] : x[j].x[k],
                                        (long long)(c + k));
                }
                v = group_reduce<R, BLOCK>(v, whole, L);
                const unsigned long long r = r0 + j * stride_rows;
                if (lane == 0 && r < total)
                    R::store(v, value, index, r);
            }
        }
        CUSPEC_LET_NEXT_GRID();
        return;
    }

    // Long rows: a group per row, grid-stride (splits == 1), or with splits > 1
    // per row and chunk blockIdx.y (the grid has a group for every row).
    const unsigned long long stride_rows = gridDim.x * per_block;
    const unsigned long long chunk =
        splits == 1 ? cols : ((cols + splits - 1) / splits + VEC - 1) / VEC * VEC;
    const unsigned long long lo = blockIdx.y * chunk;
    const unsigned long long n = lo < cols ? (cols - lo < chunk ? cols - lo : chunk) : 0;
#pragma unroll 1
    for (unsigned long long r = group, f = first; f < total; r += stride_rows, f += stride_rows) {
        A acc[K];
#pragma unroll
        for (int i = 0; i < K; ++i)
            acc[i] = R::identity();
        if (r < total && n > 0) {
            const unsigned long long off = row_offset(r, rows, total, ld, stride) + lo;
            row_any<R, T, VEC, ITEMS, TWO>(a + off, bb + off, n, (long long)lo, lane, L, acc);
        }
        fold<R, K, K>::run(acc);
        A v = group_reduce<R, BLOCK>(acc[0], whole, L);
        if (splits == 1) {
            if (lane == 0 && r < total)
                R::store(v, value, index, r);
            continue;
        }

        split_finish<R, BLOCK>(v, whole, lane, L, r, r < total, splits, partials, tickets, value,
                               index);
    }
    CUSPEC_LET_NEXT_GRID();
}

// ROWS_BLOCK in the contract above.
template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_rows_block(const T *__restrict__ a, const T *__restrict__ b,
                             unsigned long long rows, unsigned long long cols,
                             unsigned long long ld, unsigned long long stride,
                             unsigned long long total, int, unsigned,
                             typename cuspec_axis::op<T, OP>::Out *__restrict__ value,
                             long long *__restrict__ index, void *, unsigned *)
{
    using namespace cuspec_axis;
    typedef op<T, OP> R;
    typedef typename R::A A;
    constexpr bool TWO = OP == DOT;
    constexpr int K = R::PER_LOAD ? ITEMS : VEC * ITEMS;
    static_assert(legal<T, OP, BLOCK, VEC, ITEMS>::value, "");
    CUSPEC_AFTER_PRIOR_GRID();
    const T *bb = TWO ? b : a;
#pragma unroll 1
    for (unsigned long long r = blockIdx.x; r < total; r += gridDim.x) {
        A acc[K];
#pragma unroll
        for (int i = 0; i < K; ++i)
            acc[i] = R::identity();
        const unsigned long long off = row_offset(r, rows, total, ld, stride);
        row_any<R, T, VEC, ITEMS, TWO, true>(a + off, bb + off, cols, 0, threadIdx.x, BLOCK, acc);
        fold<R, K, K>::run(acc);
        const A v = block_reduce<R, BLOCK>(acc[0]);
        if (threadIdx.x == 0)
            R::store(v, value, index, r);
    }
    CUSPEC_LET_NEXT_GRID();
}

// ROWS_SPLIT in the contract above.
template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_rows_split(const T *__restrict__ a, const T *__restrict__ b,
                             unsigned long long rows, unsigned long long cols,
                             unsigned long long ld, unsigned long long stride,
                             unsigned long long total, int chunk_log2, unsigned splits,
                             typename cuspec_axis::op<T, OP>::Out *__restrict__ value,
                             long long *__restrict__ index, void *__restrict__ partials,
                             unsigned *__restrict__ tickets)
{
    using namespace cuspec_axis;
    typedef op<T, OP> R;
    typedef typename R::A A;
    constexpr bool TWO = OP == DOT;
    static_assert(legal<T, OP, BLOCK, VEC, ITEMS>::value, "");
    if constexpr (R::ARG) {
        // ROWS_SPLIT's argmin/argmax in the contract above.
        namespace w = cuspec_reduce_detail;
        static_assert(w::OP_ARGMIN == ARGMIN + 1 && w::OP_ARGMAX == ARGMAX + 1, "");
        typedef w::arg<typename elem<T>::V> P;
        const unsigned long long r = (unsigned long long)blockIdx.z * gridDim.y + blockIdx.y;
        if (r >= total)
            return;
        w::reduce_body<T, typename elem<T>::V, OP + 1, BLOCK, ITEMS, VEC, 1>(
            a + row_offset(r, rows, total, ld, stride), (const T *)nullptr, cols,
            value != nullptr ? value + r : nullptr, index != nullptr ? index + r : nullptr,
            static_cast<P *>(partials) + r * gridDim.x, tickets + 4 * r, false);
    } else {
        const unsigned long long grain = 1ull << chunk_log2;
        const unsigned long long chunk =
            ((cols + splits - 1) / splits + grain - 1) >> chunk_log2 << chunk_log2;
        const unsigned long long lo = blockIdx.y * chunk;
        const unsigned long long n = lo < cols ? (cols - lo < chunk ? cols - lo : chunk) : 0;
        const unsigned long long r = blockIdx.x;
        const unsigned long long off = row_offset(r, rows, total, ld, stride) + lo;
        // Half the chunk's first tile asked of the L2 (prior_grid.cuh).
        constexpr unsigned long long HALF = (unsigned long long)BLOCK * VEC * ITEMS / 2;
        if (threadIdx.x == 0 && n > 0) {
            cuspec_first_to_l2(a + off, n, HALF); // at most 128 KB
            if constexpr (TWO)
                cuspec_first_to_l2(b + off, n, HALF);
        }
        CUSPEC_AFTER_PRIOR_GRID();
        A acc[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            acc[i] = R::identity();
        if (n > 0) {
            row_any<R, T, VEC, ITEMS, TWO>(a + off, (TWO ? b : a) + off, n, (long long)lo,
                                           threadIdx.x, BLOCK, acc);
        }
        fold<R, ITEMS, ITEMS>::run(acc);
        const A v = block_reduce<R, BLOCK>(acc[0]);
        // Warp 0 alone writes the result, or takes the ticket and, the row's
        // last, combines its chunks: no barrier after block_reduce's.
        if (threadIdx.x < 32) {
            if (splits == 1) {
                if (threadIdx.x == 0)
                    R::store(v, value, index, r);
            } else {
                split_finish<R, BLOCK>(v, false, threadIdx.x, 32, r, true, splits, partials,
                                       tickets, value, index);
            }
        }
        CUSPEC_LET_NEXT_GRID();
    }
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
    typedef op<T, OP, true> R;
    typedef typename R::A A;
    constexpr bool TWO = OP == DOT;
    static_assert(legal<T, OP, BLOCK, VEC, ITEMS>::value, "");

    const unsigned TX = 1u << tx_log2, TY = BLOCK >> tx_log2;
    const unsigned tx = threadIdx.x & (TX - 1), ty = threadIdx.x >> tx_log2;
    const unsigned long long m = blockIdx.z;
    const unsigned long long c0 = ((unsigned long long)blockIdx.x * TX + tx) * VEC;
    const unsigned cnt = c0 < cols ? (cols - c0 < VEC ? (unsigned)(cols - c0) : VEC) : 0;
    const unsigned long long chunk = (rows + splits - 1) / splits;
    const unsigned long long lo = blockIdx.y * chunk;
    const unsigned long long hi = lo >= rows ? lo : rows - lo < chunk ? rows : lo + chunk;
    const T *p = a + m * stride + c0, *q = (TWO ? b : a) + m * stride + c0;
    // The first half of the block's first tile of rows, a thread a row (prior_grid.cuh).
    const unsigned long long cb = (unsigned long long)blockIdx.x * TX * VEC;
    if (threadIdx.x < TY * ITEMS / 2 && lo + threadIdx.x < hi && cb < cols) {
        const unsigned long long off = m * stride + (lo + threadIdx.x) * ld + cb;
        cuspec_first_to_l2(a + off, cols - cb, TX * VEC); // at most 1024 x 16 B
        if constexpr (TWO)
            cuspec_first_to_l2(b + off, cols - cb, TX * VEC);
    }
    CUSPEC_AFTER_PRIOR_GRID();

    A acc[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        acc[k] = R::identity();
    // Whole vectors where ld and the pointers are on them, the edge strip's too
    // (0 < cnt < VEC): its vectors end in the padding between rows, but for
    // the matrix's last row, which may end its allocation: the first row of
    // threads adds that row's cnt elements last. Element by element, a row at
    // a time, where ld or a pointer is off the vector.
    const bool vectors = ld % VEC == 0 && aligned<VEC>(p) && (!TWO || aligned<VEC>(q));
    const bool edge_end = vectors && cnt > 0 && cnt < VEC && hi == rows && lo < rows;
    if (cnt > 0 && vectors)
        column_strip<R, T, VEC, ITEMS, TWO, true>(p, q, ld, lo, edge_end ? rows - 1 : hi, ty, TY,
                                                  cnt, acc);
    else if (cnt > 0)
        column_strip<R, T, VEC, 1, TWO, false>(p, q, ld, lo, hi, ty, TY, cnt, acc);
    if (edge_end && ty == 0) {
        const unsigned long long last = (rows - 1) * ld;
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (k < (int)cnt)
                acc[k] = R::step(acc[k], load1(p + last + k), load1(q + last + k),
                                 (long long)(rows - 1));
    }
    CUSPEC_LET_NEXT_GRID();

    // One combine serves both passes (one copy of its code): the block's
    // rows of threads, then, where rows are split, in the tile's last block
    // the partials of every chunk (columns_reduce's next writes are past the
    // two barriers below).
    const unsigned long long out0 = m * cols + c0;
    A *part = reinterpret_cast<A *>(partials) + m * splits * cols + c0;
#pragma unroll 1
    for (unsigned pass = 0;; ++pass) {
        columns_reduce<R, BLOCK, VEC>(acc, TX);
        if (splits == 1 || pass == 1)
            break;
        // Split rows: this block's partials, then the tile's ticket.
        if (threadIdx.x < TX)
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                if (k < (int)cnt)
                    part[blockIdx.y * cols + k] = acc[k];
        // The barrier orders these stores before thread 0's release, which
        // publishes them with its own (cumulative): no fence a thread.
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
    }
    const unsigned long long tile = (unsigned long long)blockIdx.x * TX * VEC;
    columns_write<R, BLOCK, VEC>(acc, TX, cnt, out0, m * cols + tile,
                                 m * cols + (cols - tile < TX * VEC ? cols : tile + TX * VEC),
                                 value, index);
}

// COLS_FLAT in the contract above.
template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_cols_flat(const T *__restrict__ a, const T *__restrict__, unsigned long long rows,
                            unsigned long long, unsigned long long, unsigned long long, int tx_log2,
                            unsigned, typename cuspec_axis::op<T, OP>::Out *__restrict__ value,
                            long long *__restrict__ index, void *, unsigned *__restrict__ tickets)
{
    using namespace cuspec_axis;
    namespace w = cuspec_reduce_detail;
    typedef op<T, OP, true> R;
    typedef typename R::C C;
    static_assert(legal<T, OP, BLOCK, VEC, ITEMS>::value, "");
    static_assert(R::ARG && sizeof(C) == 4 && VEC * sizeof(T) == 16,
                  "COLS_FLAT: argmin/argmax of types compared in 4 bytes, 16-byte vectors");
    static_assert(w::OP_ARGMIN == ARGMIN + 1 && w::OP_ARGMAX == ARGMAX + 1, "");
    constexpr unsigned NONE = 0xffffffffu; // no row seen
    constexpr unsigned long long TILE = (unsigned long long)BLOCK * ITEMS;
    const unsigned long long nv = rows << tx_log2, full = nv / TILE * TILE;
    const unsigned long long gstride = (unsigned long long)gridDim.x * TILE;
    unsigned long long v = (unsigned long long)blockIdx.x * TILE + threadIdx.x;
    flat_tile_to_l2<BLOCK, VEC, ITEMS>(a, v - threadIdx.x, nv);
    CUSPEC_AFTER_PRIOR_GRID();

    // Vector v is row v >> tx_log2; its columns are this thread's for every v it
    // reads (BLOCK, the tile and the grid's stride are multiples of G), in
    // rows that only grow: the first of equal values stays.
    C best[VEC];
    unsigned at[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        best[k] = R::identity().v;
        at[k] = NONE;
    }
    auto fold = [&](const pack<T, VEC> &x, unsigned row) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const C c = R::E::val(x.x[k]);
            const bool take = R::wins(c, best[k]) || at[k] == NONE; // selects, no branch
            best[k] = take ? c : best[k];
            at[k] = take ? row : at[k];
        }
    };
    flat_tiles<T, VEC, ITEMS>(
        v, full, gstride,
        [&](unsigned long long t, int j) { return a + (t + (unsigned long long)j * BLOCK) * VEC; },
        [&](const pack<T, VEC>(&x)[ITEMS], unsigned long long t) {
            // rows in 32 bits from the tile's first, so that the next tile's
            // loads issue first (docs/experiments/reduce_axis.md)
            const unsigned row = (unsigned)(t >> tx_log2);
#pragma unroll
            for (int j = 0; j < ITEMS; ++j)
                fold(x[j], row + (unsigned)j * (BLOCK >> tx_log2));
        });
    for (unsigned long long i = full + (unsigned long long)blockIdx.x * BLOCK + threadIdx.x; i < nv;
         i += (unsigned long long)gridDim.x * BLOCK)
        fold(load<VEC>(a + i * VEC), (unsigned)(i >> tx_log2));
    CUSPEC_LET_NEXT_GRID(); // the input is read

    // Each column's best as a packed key (whole arrays' pack): the lanes of
    // its columns by shuffles, the block in shared memory, the grid in the
    // column's word, which the last block takes and zeroes.
    const unsigned G = 1u << tx_log2, cols = G * VEC, g = threadIdx.x & (G - 1);
    __shared__ unsigned long long block_word[32 * VEC];
    for (unsigned c = threadIdx.x; c < cols; c += BLOCK)
        block_word[c] = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        unsigned long long key =
            w::pack<OP + 1, C>(w::arg<C>{best[k], at[k] == NONE ? w::EMPTY : at[k]});
        for (unsigned off = G; off < 32; off <<= 1) {
            const unsigned long long o = __shfl_xor_sync(0xffffffffu, key, (int)off);
            key = o > key ? o : key;
        }
        if ((threadIdx.x & 31) < G && key != 0)
            atomicMax(&block_word[g * VEC + k], key);
    }
    __syncthreads();
    unsigned long long *words = reinterpret_cast<unsigned long long *>(tickets + 2);
    for (unsigned c = threadIdx.x; c < cols; c += BLOCK)
        if (block_word[c] != 0)
            atomicMax(&words[c], block_word[c]);
    // The barrier orders these atomics before thread 0's release (last_ticket).
    __syncthreads();
    __shared__ int s_last;
    if (threadIdx.x == 0)
        s_last = w::last_ticket(tickets);
    __syncthreads();
    if (!s_last)
        return;
    for (unsigned c = threadIdx.x; c < cols; c += BLOCK) {
        const w::arg<C> r = w::unpack<OP + 1, C>(atomicExch(&words[c], 0ULL));
        R::store(typename R::A{r.v, (long long)r.i}, value, index, c);
    }
}

// ROWS_FLAT in the contract above.
template <typename T, int OP, int BLOCK, int VEC, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_rows_flat(const T *__restrict__ a, const T *__restrict__, unsigned long long rows,
                            unsigned long long, unsigned long long, unsigned long long,
                            unsigned long long, int lanes_log2, unsigned,
                            typename cuspec_axis::op<T, OP>::Out *__restrict__ value,
                            long long *__restrict__ index, void *, unsigned *)
{
    using namespace cuspec_axis;
    namespace w = cuspec_reduce_detail;
    typedef op<T, OP> R;
    typedef typename R::C C;
    typedef typename R::A A;
    constexpr int P = 4; // a group: P vectors of one row, a thread's
    static_assert(legal<T, OP, BLOCK, VEC, ITEMS>::value, "");
    static_assert(OP != DOT && sizeof(T) == 4 && VEC * sizeof(T) == 16 && ITEMS % P == 0,
                  "ROWS_FLAT: one input of 4-byte elements, 16-byte vectors, ITEMS a multiple "
                  "of 4");
    static_assert(w::OP_ARGMIN == ARGMIN + 1 && w::OP_ARGMAX == ARGMAX + 1, "");
    constexpr int GROUPS = ITEMS / P; // a thread's groups a tile
    constexpr unsigned long long TILE = (unsigned long long)BLOCK * GROUPS;
    const unsigned L = 1u << lanes_log2;
    const unsigned long long ng = rows << lanes_log2, full = ng / TILE * TILE;
    const unsigned long long gstride = (unsigned long long)gridDim.x * TILE;
    unsigned long long q = (unsigned long long)blockIdx.x * TILE + threadIdx.x;
    flat_tile_to_l2<BLOCK, VEC, ITEMS>(a, (q - threadIdx.x) * P, ng * P);
    CUSPEC_AFTER_PRIOR_GRID();

    // Group g's result K: for argmin/argmax its best as a packed key (whole
    // arrays' pack: 0 is none), its elements in order, the first of equals
    // staying; else its A, VEC chains of P elements and a tree. Then its
    // row's L lanes' by shuffles (every lane of the warp calls finish), which
    // the row's first lane stores. g: the group, past the last (ng) for a
    // lane with none.
    typedef typename pick<R::ARG, unsigned long long, A>::type K;
    auto group = [&](const pack<T, VEC> *x, unsigned long long g) -> K {
        if constexpr (R::ARG) {
            C best = R::E::val(x[0].x[0]);
            unsigned at = 0;
#pragma unroll
            for (int e = 1; e < P * VEC; ++e) {
                const C c = R::E::val(x[e / VEC].x[e % VEC]);
                const bool take = R::wins(c, best); // selects, no branch
                best = take ? c : best;
                at = take ? (unsigned)e : at;
            }
            const unsigned col = (unsigned)(g & (L - 1)) * (P * VEC) + at;
            return w::pack<OP + 1, C>(w::arg<C>{best, col});
        } else {
            A acc[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                acc[e] = R::identity();
#pragma unroll
                for (int k = 0; k < P; ++k)
                    acc[e] = R::step(acc[e], x[k].x[e], x[k].x[e], 0);
            }
            fold<R, VEC, VEC>::run(acc);
            return acc[0];
        }
    };
    auto finish = [&](K key, unsigned long long g) {
        for (unsigned off = 1; off < L; off <<= 1) {
            if constexpr (R::ARG) {
                const unsigned long long o = __shfl_xor_sync(0xffffffffu, key, (int)off);
                key = o > key ? o : key;
            } else {
                key = R::combine(key, R::shfl_xor(key, (int)off));
            }
        }
        if (g < ng && (g & (L - 1)) == 0) {
            if constexpr (R::ARG) {
                const w::arg<C> r = w::unpack<OP + 1, C>(key);
                R::store(A{r.v, (long long)r.i}, value, index, g >> lanes_log2);
            } else {
                R::store(key, value, index, g >> lanes_log2);
            }
        }
    };
    flat_tiles<T, VEC, ITEMS>(
        q, full, gstride,
        [&](unsigned long long t, int j) {
            return a + ((t + (unsigned long long)(j / P) * BLOCK) * P + j % P) * VEC;
        },
        [&](const pack<T, VEC>(&x)[ITEMS], unsigned long long t) {
#pragma unroll
            for (int j = 0; j < GROUPS; ++j) {
                const unsigned long long g = t + (unsigned long long)j * BLOCK;
                finish(group(x + j * P, g), g);
            }
        });
    // The groups past the whole tiles, a warp's lanes together: g less its
    // lane is the warp's first group (full and the strides are multiples of
    // 32), and a row's L lanes are all in or all out (ng is a multiple of L).
    for (unsigned long long g = full + (unsigned long long)blockIdx.x * BLOCK + threadIdx.x;
         g - (threadIdx.x & 31) < ng; g += (unsigned long long)gridDim.x * BLOCK) {
        K key;
        if constexpr (R::ARG)
            key = 0;
        else
            key = R::identity();
        if (g < ng) {
            pack<T, VEC> x[P];
#pragma unroll
            for (int k = 0; k < P; ++k)
                x[k] = load<VEC>(a + (g * P + k) * VEC);
            key = group(x, g);
        }
        finish(key, g);
    }
    CUSPEC_LET_NEXT_GRID();
}

#endif // CUSPEC_REDUCE_AXIS_CUH_
