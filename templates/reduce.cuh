// cuspec reduction kernels: sum, min, max, dot, argmin and argmax over one
// contiguous array.
//
// CUDA C++17 with two #includes, prior_grid.cuh and reduce_types.cuh beside
// it, so NVRTC can compile it given those headers (-std=c++17,
// --gpu-architecture=compute_75 or sm_XY); it also compiles when #included
// from an nvcc .cu file.
//
// ---------------------------------------------------------------------------
// ENTRY POINTS (global namespace, launched by NVRTC name expression, e.g.
// "cuspec_reduce<float, float, 0, 256, 4, 4, 1>", "cuspec_argreduce<cuspec_f16, 5, 256, 4, 8>")
//
//   template <typename T, typename Acc, int OP, int BLOCK, int ITEMS, int VEC, int SINGLE>
//   __global__ void cuspec_reduce(const T *a, const T *b, unsigned long long n,
//                                 Out *out, Acc *partials, unsigned int *ticket,
//                                 unsigned int l1);
//   template <typename T, typename Acc, int OP, int BLOCK>
//   __global__ void cuspec_reduce_final(const Acc *partials, unsigned int count, Out *out);
//   template <typename T, int OP, int BLOCK, int ITEMS, int VEC>
//   __global__ void cuspec_argreduce(const T *a, unsigned long long n, T *value,
//                                    long long *index, arg<V> *partials, unsigned int *ticket,
//                                    unsigned int l1);
//
// TEMPLATE PARAMETERS
//   OP     0 = sum, 1 = min, 2 = max, 3 = dot (sum of a[i]*b[i]); b is only read
//          for OP 3 and may be NULL otherwise. cuspec_argreduce: 4 = argmin,
//          5 = argmax.
//   T      the element: float, double, int, unsigned int, long long, unsigned
//          long long, signed char, unsigned char, short, unsigned short,
//          cuspec_f16, cuspec_bf16 (reduce_types.cuh). V is the type its
//          values are computed in (elem<T>::V: float for the 16-bit floats,
//          int / unsigned int for 8- and 16-bit integers, else T).
//   Acc    sum/dot: float for float and the 16-bit floats, double for double,
//          long long for signed integers, unsigned long long for unsigned ones
//          (also compile-checked, not in the library's table: (float, double)
//          and 32-bit Acc for 32-bit integers); min/max: V.
//   Out    what *out holds: Acc for sum/dot, T for min/max (the winning element).
//   BLOCK  threads per block: 128, 256, 512 or 1024 (any multiple of 32 works).
//          BLOCK 1024 caps registers at 64/thread: there keep ITEMS*VEC small
//          (8-byte Acc with ITEMS*VEC = 32 spills heavily; still correct), and
//          argmin/argmax's ITEMS small (each of its scans holds a load: one
//          scan per load of the ITEMS, two in all for 1-byte values).
//   ITEMS  vector loads per thread per loop iteration, all issued before any is
//          used (memory-level parallelism): 1, 2, 4 or 8.
//   VEC    elements per vector load, VEC*sizeof(T) <= 16: 1, 2, 4, 8 or 16.
//   SINGLE 1: one launch (last-block-done finish: each block stores its partial,
//          then takes a ticket with an acq_rel atomic; the block that takes the
//          last ticket combines all partials; where one word can hold the
//          result, each block combines its own into it with an atomic and the
//          last block's thread 0 takes it: see WORKSPACE); 0: the host launches
//          cuspec_reduce_final<T,Acc,OP,BLOCK><<<1,BLOCK>>>(partials, grid, out)
//          after cuspec_reduce. cuspec_argreduce is always one launch.
//
// ACCUMULATORS
//   Floats and 4- and 8-byte integers (sum, min, max, dot): one accumulator per
//   element of a thread's ITEMS loads (VEC*ITEMS), so no add waits on another.
//   8- and 16-bit integers: one per load; a load's elements are folded first,
//   exactly, in 32 bits (dp4a / dp2a for sums and 8-bit dots: at most 16 bytes
//   of values under 2^31), 16-bit dots as 32-bit products added in 64 bits.
//   min/max of 8- and 16-bit types (f16 and bf16 too): one per load, the load's
//   extreme taken with packed min/max two lanes a word where the arch has them
//   (sm_80 for the 16-bit floats, sm_90 for integers; reduce_types.cuh: lanes).
//   argmin/argmax: one scan per load (struct scan; two in all, the even and
//   the odd loads, for 1-byte values): each load's extreme, as for min/max,
//   against the best so far in one compare; the load that first held the
//   best is kept whole and its lanes searched once, at the end.
//
// LOADS
//   l1 = 0: ld.global.cs (cache streaming, evict-first), so that a read-once
//   stream does not flush the L2 for other kernels; l1 != 0: ld.global.nc,
//   allocated in L1 (docs/experiments/reduce.md: "Load policy"). The host's
//   choice, a kernel argument rather than template text, so one kernel
//   serves both. A thread's next tile is loaded before its current one is
//   consumed.
//
// LAUNCH GEOMETRY (host's job)
//   block = BLOCK threads, no dynamic shared memory (static shared only).
//   grid  = G with 1 <= G <= blocks_per_sm * SMs and G <= max(1, ceil(n / (BLOCK*ITEMS*VEC))).
//   The kernel uses grid-stride loops, so ANY G >= 1 gives the right answer
//   (extra blocks just contribute the identity); the bound above is for speed.
//   cuspec_reduce_final: grid 1, block BLOCK (the same BLOCK), count = G.
//
// WORKSPACE
//   partials: at least G elements of Acc (cuspec_argreduce: of arg<V>, 16 bytes
//             each); not read by the host; no initialisation.
//   ticket:   four unsigned ints, 8-byte aligned, that must be 0 before the FIRST
//             launch that uses them: ticket[0] the ticket, ticket[2..3] the word.
//             SINGLE=1 leaves them 0 again on exit (the last block's wrapping atomic
//             increment stores 0, and it takes the word with an exchange for 0), so
//             one workspace serves back-to-back launches on one stream and
//             CUDA-graph replays with no memset. Do not share one workspace between
//             launches that may run concurrently (different streams).
//   SINGLE=1 with G == 1 writes *out directly and touches neither partials nor ticket.
//   SINGLE=1 combines its blocks in the word, with no partials, for min/max,
//   integer sums and dots, and cuspec_argreduce of 32-bit values (elem<T>::V:
//   every T but the 8-byte ones) with n < 2^31 (its partials otherwise).
//
// POLICIES
//   n == 0    : *out = identity: sum/dot 0; min +inf (floats) or the type's max;
//               max -inf (floats) or the type's min (0 for unsigned).
//               cuspec_argreduce needs n >= 1 (no index to give).
//   NaN       : float min/max PROPAGATE NaN: if any element is NaN the result is
//               NaN (which NaN payload is unspecified). The combine returns a NaN
//               operand from either side and +-inf identities never hide one.
//               (CUDA fast-math does not assume finite values, so this holds with
//               --use_fast_math too.) Sum/dot propagate NaN by IEEE arithmetic.
//   argmin/max: the extreme value and the smallest index that holds it; a NaN
//               beats every number, and the first NaN's index is given (NumPy's
//               and PyTorch's rule). -0.0 and +0.0 are equal. value and index
//               may each be NULL (not written).
//   Integers  : sums and dots wrap modulo 2^64 (two's complement for signed Acc),
//               computed with unsigned arithmetic, so results are exact mod 2^64
//               and independent of order. Narrower inputs are widened to 64 bits
//               (sign- or zero-extended) before adding, so an integer sum or dot
//               of 8-, 16- or 32-bit elements is exact unless its true value
//               leaves the 64-bit range.
//   Determinism: for a fixed (variant, n, pointer alignment mod VEC*sizeof(T), G)
//               the result is bitwise reproducible (no float atomics).
//
// FLOAT SUM / DOT ACCURACY (accumulation in Acc: f32 and the 16-bit floats in
// f32, f64 in f64; a 16-bit float widens to f32 exactly)
//   Each thread keeps K = VEC*ITEMS independent accumulators, each summing
//   m <= ceil(n / (G*BLOCK*K)) + 2 elements in sequence; then a pairwise
//   tree in the thread (log2 K levels), a warp butterfly (5), a shared-memory
//   tree over warps (log2(BLOCK/32)), and the partials: ceil(G/BLOCK) in
//   sequence per thread, then a block tree (log2 BLOCK). The tree depth is
//     h = m + log2 K + 2*log2(BLOCK) + ceil(G/BLOCK),
//   so the rigorous bound is |err| <= h*u/(1-h*u) * sum|x_i|   (u = 2^-24 for f32).
//   n = 2^28, BLOCK 256, ITEMS*VEC = 16, G = 4*132 = 528:  m <= 127, h ~ 150,
//   |err| <= ~150 u sum|x| ~ 8.9e-6 * sum|x|  (worst case, all roundings aligned;
//   16-bit floats, with ITEMS*VEC = 32, have m <= 64 and h ~ 90).
//   For zero-mean data (e.g. uniform [-1,1)), the rounding errors are
//   independent and partial sums are random walks, giving a standard deviation
//   of about u * sqrt(sum x^2 * (m/2 + levels) / 3) ~ 3e-3 absolute at
//   n = 2^28, i.e. ~3e-7 of |sum| (~9.5e3) and ~2e-11 of sum|x|. That is far below
//   the 1e-5 target, so f32 is accumulated in f32 (double per thread would not
//   help here and costs FP64 and conversion throughput, which consumer GPUs lack).
//   Dot uses fused multiply-add (one rounding per element).
//
// One default for all types and ops (BLOCK 256, VEC = 16/sizeof(T), ITEMS 4,
// G = 4*SMs, SINGLE 1): about 64 KB of loads in flight per SM read at the copy
// rate (docs/experiments/reduce.md: "Loads in flight"); l1 from 32 MB read.
// ---------------------------------------------------------------------------

#ifndef CUSPEC_REDUCE_CUH_
#define CUSPEC_REDUCE_CUH_

#include "prior_grid.cuh"
#include "reduce_types.cuh"

namespace cuspec_reduce_detail
{

enum { OP_SUM = 0, OP_MIN = 1, OP_MAX = 2, OP_DOT = 3, OP_ARGMIN = 4, OP_ARGMAX = 5 };

template <int OP> struct is_arg {
    enum : bool { value = OP == OP_ARGMIN || OP == OP_ARGMAX };
};

template <bool C, typename A, typename B> struct pick {
    typedef A type;
};
template <typename A, typename B> struct pick<false, A, B> {
    typedef B type;
};

// argmin / argmax: a value and its index; i is EMPTY until an element is seen
// (the largest index, so that any element wins a tie with it).
template <typename X> struct arg {
    X v;
    unsigned long long i;
};
enum : unsigned long long { EMPTY = ~0ULL };

// What a thread accumulates, and what cuspec_reduce writes.
template <typename T, typename Acc, int OP> struct acc_of {
    typedef typename pick<is_arg<OP>::value, arg<typename elem<T>::V>, Acc>::type type;
};
template <typename T, typename Acc, int OP> struct out_of {
    typedef typename pick<OP == OP_SUM || OP == OP_DOT, Acc, T>::type type;
};

// ---- identities ------------------------------------------------------------
template <typename T, typename A, int OP> __device__ __forceinline__ A identity()
{
    if constexpr (OP == OP_MIN)
        return (A)elem<T>::hi();
    else if constexpr (OP == OP_MAX)
        return (A)elem<T>::lo();
    else if constexpr (OP == OP_ARGMIN)
        return A{elem<T>::hi(), EMPTY};
    else if constexpr (OP == OP_ARGMAX)
        return A{elem<T>::lo(), EMPTY};
    else
        return A(0);
}

// ---- combine two partial results -----------------------------------------
// Integer adds go through unsigned 64-bit (or 32-bit) arithmetic: wrap-around
// is defined there, and it is bit-identical to two's-complement signed wrap.
template <typename Acc> __device__ __forceinline__ Acc add(Acc x, Acc y)
{
    if constexpr (elem<Acc>::is_float)
        return x + y;
    else if constexpr (sizeof(Acc) == 8)
        return (Acc)((unsigned long long)x + (unsigned long long)y);
    else
        return (Acc)((unsigned int)x + (unsigned int)y);
}

// The smaller (LOW) or the larger of x and y. For floats, x if x is NaN;
// otherwise if y is NaN the comparison is false and y (NaN) is returned. So
// NaN wins from either side. f32 from sm_80: one min/max.NaN instruction
// instead of two compares and a select (the combines of partials are a
// chain of them).
template <bool LOW, typename Acc> __device__ __forceinline__ Acc minmax(Acc x, Acc y)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (same<Acc, float>::value) {
        float r;
        if constexpr (LOW)
            asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
        else
            asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
        return r;
    }
#endif
    if constexpr (elem<Acc>::is_float)
        return ((LOW ? x < y : x > y) || x != x) ? x : y;
    else
        return (LOW ? y < x : y > x) ? y : x;
}

// argmin/argmax: whether x, which comes after y, takes y's place: x is
// strictly better, or a NaN where y is none (the first NaN stays). For floats
// !(x >= y) is x < y or x NaN, and y == y says y is no NaN.
template <int OP, typename X> __device__ __forceinline__ bool ahead(X x, X y)
{
    if constexpr (elem<X>::is_float)
        return !(OP == OP_ARGMIN ? x >= y : x <= y) && y == y;
    else
        return OP == OP_ARGMIN ? x < y : x > y;
}

// Two (value, index) in any order: the better value, the smaller index on a
// tie (two NaNs tie). P: arg, or a scan (below) by its best and its index.
// Every compare is independent (& and |, no branch), so that the chains of
// combines in warp_reduce are short: b is strictly better, or the first NaN
// (a none), or they tie and b comes first.
template <int OP, typename P> __device__ __forceinline__ P pick_arg(const P &a, const P &b)
{
    const bool better = OP == OP_ARGMIN ? b.v < a.v : b.v > a.v, first = b.i < a.i;
    bool wins = better | ((a.v == b.v) & first);
    if constexpr (elem<decltype(a.v)>::is_float) {
        const bool an = a.v != a.v, bn = b.v != b.v;
        wins = wins | (bn & !an) | (an & bn & first);
    }
    return wins ? b : a;
}

template <typename A, int OP> __device__ __forceinline__ A combine(A x, A y)
{
    if constexpr (OP == OP_MIN)
        return minmax<true>(x, y);
    else if constexpr (OP == OP_MAX)
        return minmax<false>(x, y);
    else if constexpr (is_arg<OP>::value)
        return pick_arg<OP>(x, y);
    else
        return add(x, y); // sum and dot combine partials by adding
}

// Fold one input element (and b's element for dot) into an accumulator.
template <typename T, typename Acc, int OP> __device__ __forceinline__ Acc step(Acc acc, T x, T y)
{
    const auto vx = elem<T>::val(x);
    if constexpr (OP == OP_DOT) {
        const auto vy = elem<T>::val(y);
        if constexpr (same<Acc, float>::value)
            return __fmaf_rn(vx, vy, acc);
        else if constexpr (same<Acc, double>::value)
            return __fma_rn(vx, vy, acc);
        else if constexpr (sizeof(T) < 4)
            return add(acc, (Acc)(vx * vy)); // |x*y| < 2^32: exact in V (int or unsigned)
        else if constexpr (sizeof(Acc) == 8) {
            // Widen (sign- or zero-extend per T) then multiply mod 2^64.
            unsigned long long p = (unsigned long long)(Acc)x * (unsigned long long)(Acc)y;
            return (Acc)((unsigned long long)acc + p);
        } else {
            unsigned int p = (unsigned int)(Acc)x * (unsigned int)(Acc)y;
            return (Acc)((unsigned int)acc + p);
        }
    } else {
        (void)y;
        return combine<Acc, OP>(acc, (Acc)vx);
    }
}

// One element at index i (argmin/argmax) or one step (the others).
template <typename T, typename Acc, int OP, typename A>
__device__ __forceinline__ A take(A acc, T x, T y, unsigned long long i)
{
    if constexpr (is_arg<OP>::value)
        return combine<A, OP>(acc, A{elem<T>::val(x), i});
    else
        return step<T, Acc, OP>(acc, x, y);
}

// A load of the streamed input: ld.global.cs (cache streaming, evict-first),
// or with l1 ld.global.nc, allocated in L1 (the host's choice, the same for
// the whole grid: docs/experiments/reduce.md, "Load policy").
template <bool L1, typename P> __device__ __forceinline__ P load(const P *p)
{
    if constexpr (L1)
        return __ldg(p);
    else
        return __ldcs(p);
}

template <typename T> __device__ __forceinline__ T load1(const T *p, bool l1)
{
    typedef typename vec<T, 1>::type R;
    const R *q = reinterpret_cast<const R *>(p);
    return vec<T, 1>::get(l1 ? load<true>(q) : load<false>(q), 0);
}

// ---- one vector load's elements --------------------------------------------
// Accumulators per load: one per element, or one for the whole load (see
// ACCUMULATORS above).
template <typename T, int OP, int V> struct slots {
    enum : int {
        value = is_arg<OP>::value ||
                        (sizeof(T) < 4 && (!elem<T>::is_float || OP == OP_MIN || OP == OP_MAX))
                    ? 1
                    : V
    };
};

// The extreme (min when LOW, else max) of elements LO..LO+N-1 of a load, a
// NaN if any is one: a pairwise tree of minmax.
template <typename T, bool LOW, int V, int LO, int N>
__device__ __forceinline__ typename elem<T>::V extreme_of(const typename vec<T, V>::type &x)
{
    if constexpr (N == 1) {
        return elem<T>::val(vec<T, V>::get(x, LO));
    } else {
        const auto p = extreme_of<T, LOW, V, LO, N / 2>(x);
        const auto q = extreme_of<T, LOW, V, LO + N / 2, N - N / 2>(x);
        return minmax<LOW>(p, q);
    }
}

// Lane words w[0..N-1] folded pairwise into w[0] (lanes<T>::pick).
template <typename T, bool LOW, int N, int K>
__device__ __forceinline__ void lane_tree(unsigned int (&w)[K])
{
    if constexpr (N > 1) {
        constexpr int H = (N + 1) / 2;
#pragma unroll
        for (int i = 0; i < N / 2; ++i)
            w[i] = lanes<T>::template pick<LOW>(w[i], w[i + H]);
        lane_tree<T, LOW, H, K>(w);
    }
}

// A load's minimum (min, argmin) or maximum (max, argmax) as elem<T>::V; NaN
// when any element is NaN (which NaN, and which zero of two, unspecified).
// 8- and 16-bit elements two to a lane word where the arch has packed
// min/max (reduce_types.cuh: lanes), then the last word's two lanes.
template <typename T, int OP, int V>
__device__ __forceinline__ typename elem<T>::V extreme(const typename vec<T, V>::type &x)
{
    constexpr bool LOW = OP == OP_MIN || OP == OP_ARGMIN;
    constexpr int WORDS = V * (int)sizeof(T) / 4;
    if constexpr (lanes<T>::ok && WORDS >= 1) {
        constexpr int PER = lanes<T>::PER;
        unsigned int w[WORDS * PER];
#pragma unroll
        for (int k = 0; k < WORDS * PER; ++k)
            w[k] = lanes<T>::split(word(x, k / PER), k % PER);
        lane_tree<T, LOW, WORDS * PER, WORDS * PER>(w);
        const auto p = lanes<T>::first(w[0]), q = lanes<T>::second(w[0]);
        return minmax<LOW>(p, q);
    } else {
        return extreme_of<T, LOW, V, 0, V>(x);
    }
}

// 32 bits of 8-bit (16-bit) integers times those of y, added to s:
// dp4a (dp2a with y's low two bytes).
template <typename T>
__device__ __forceinline__ unsigned int dp(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned int r;
    if constexpr (sizeof(T) == 1 && elem<T>::is_signed)
        asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
    else if constexpr (sizeof(T) == 1)
        asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
    else if constexpr (elem<T>::is_signed)
        asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
    else
        asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
    return r;
}

// A load of 8- or 16-bit integers folded into one Acc, exactly.
template <typename T, typename Acc, int OP, int V>
__device__ __forceinline__ Acc fold(const typename vec<T, V>::type &xa,
                                    const typename vec<T, V>::type &xb)
{
    constexpr int BYTES = V * (int)sizeof(T);
    if constexpr (OP == OP_MIN || OP == OP_MAX) {
        return extreme<T, OP, V>(xa);
    } else if constexpr ((OP == OP_SUM || (OP == OP_DOT && sizeof(T) == 1)) && BYTES >= 4) {
        constexpr unsigned int ONES = sizeof(T) == 1 ? 0x01010101u : 0x0101u;
        unsigned int s = 0;
#pragma unroll
        for (int w = 0; w < BYTES / 4; ++w)
            s = dp<T>(word(xa, w), OP == OP_DOT ? word(xb, w) : ONES, s);
        if constexpr (elem<T>::is_signed)
            return (Acc)(int)s;
        else
            return (Acc)s;
    } else {
        Acc f = identity<T, Acc, OP>();
#pragma unroll
        for (int k = 0; k < V; ++k)
            f = step<T, Acc, OP>(f, vec<T, V>::get(xa, k), vec<T, V>::get(xb, k));
        return f;
    }
}

// argmin/argmax over a thread's loads, in index order: each load's extreme
// (cheap packed operations) against the best so far, one compare; the load
// that first held the best is kept, its elements searched once at the end
// (located). A later load only replaces it when strictly better, or with the
// first NaN, so ties keep the smallest index. v: the best; i: the index of
// x's element 0, EMPTY before any load.
template <typename T, int OP, int V> struct scan {
    typedef typename elem<T>::V X;
    typedef typename vec<T, V>::type VT;
    X v;
    unsigned long long i;
    VT x;

    __device__ __forceinline__ void start()
    {
        v = OP == OP_ARGMIN ? elem<T>::hi() : elem<T>::lo();
        i = EMPTY;
        x = VT();
    }
    __device__ __forceinline__ void see(const VT &y, unsigned long long at)
    {
        const X m = extreme<T, OP, V>(y);
        const bool take = (i == EMPTY) | ahead<OP>(m, v); // selects, no branch
        v = take ? m : v;
        i = take ? at : i;
        x = take ? y : x;
    }
    // The kept load's first element equal to the best (the first NaN when
    // it is NaN), or the identity when no load was seen. The compares are
    // independent; the last lane is taken first, so the first match stays.
    __device__ __forceinline__ arg<X> located() const
    {
        arg<X> r{v, i};
        if (i == EMPTY)
            return r;
        int at = V - 1;
#pragma unroll
        for (int k = V - 1; k >= 0; --k) {
            const X c = elem<T>::val(vec<T, V>::get(x, k));
            if (k == V - 1 || c == v || (c != c && v != v)) {
                r.v = c;
                at = k;
            }
        }
        r.i = i + at;
        return r;
    }
};

// Load j of a thread's ITEMS (elements from index `at`) into its slots (argmin/argmax:
// into scan j % K).
template <typename T, typename Acc, int OP, int V, int W, typename A, int K>
__device__ __forceinline__ void consume(A (&acc)[K], int j, const typename vec<T, V>::type &xa,
                                        const typename vec<T, V>::type &xb, unsigned long long at)
{
    if constexpr (is_arg<OP>::value) {
        acc[j % K].see(xa, at);
    } else if constexpr (W == V) {
#pragma unroll
        for (int k = 0; k < V; ++k)
            acc[j * V + k] =
                step<T, Acc, OP>(acc[j * V + k], vec<T, V>::get(xa, k), vec<T, V>::get(xb, k));
    } else {
        acc[j] = combine<Acc, OP>(acc[j], fold<T, Acc, OP, V>(xa, xb));
    }
}

// ---- per-thread accumulation over an aligned range of nv vectors ------------
// Work is cut into tiles of BLOCK*IT vectors; block t%G takes tile t (grid
// stride). Inside a tile, thread i loads vectors i, i+BLOCK, ..., i+(IT-1)*BLOCK:
// each of the IT loads is coalesced across the warp, and all IT (2*IT for dot)
// loads are issued before the first is consumed. Load j feeds slots
// j*W..j*W+W-1, W = V or 1 (slots): chains of adds that never stall the
// loads (argmin/argmax: scan j % K, so each scan sees its loads in index
// order). The < 1 tile remainder is spread over all threads. Vector 0
// starts at element index `first` (argmin/argmax).
template <int OP, int BLOCK, int IT, bool L1, typename VT>
__device__ __forceinline__ void load_tile(const VT *__restrict__ va, const VT *__restrict__ vb,
                                          unsigned long long idx, VT (&xa)[IT], VT (&xb)[IT])
{
#pragma unroll
    for (int j = 0; j < IT; ++j)
        xa[j] = load<L1>(va + idx + (unsigned long long)j * BLOCK);
    if constexpr (OP == OP_DOT) {
#pragma unroll
        for (int j = 0; j < IT; ++j)
            xb[j] = load<L1>(vb + idx + (unsigned long long)j * BLOCK);
    }
}

template <typename T, typename Acc, int OP, int BLOCK, int V, int IT, int W, bool L1, typename A,
          int K>
__device__ __forceinline__ void accumulate(const T *__restrict__ a, const T *__restrict__ b,
                                           unsigned long long nv, unsigned long long first,
                                           A (&acc)[K])
{
    static_assert(is_arg<OP>::value ? K <= IT : K == W * IT,
                  "acc: W * IT slots, or IT scans at most");
    typedef typename vec<T, V>::type VT;
    const VT *__restrict__ va = reinterpret_cast<const VT *>(a);
    const VT *__restrict__ vb = reinterpret_cast<const VT *>(b);
    constexpr unsigned long long TILE = (unsigned long long)BLOCK * IT;
    const unsigned long long full_end = (nv / TILE) * TILE; // end of the full tiles
    const unsigned long long gstride = (unsigned long long)gridDim.x * TILE;

    // idx < full_end  <=>  this block's tile index < number of full tiles,
    // because threadIdx.x < BLOCK <= TILE. Each tile's loads are issued
    // before the tile before it is consumed (ya, yb), so that the loads of a
    // thread's next tile are in flight while its ALU work runs.
    unsigned long long idx = (unsigned long long)blockIdx.x * TILE + threadIdx.x;
    if (idx < full_end) {
        VT xa[IT];
        VT xb[IT];
        load_tile<OP, BLOCK, IT, L1>(va, vb, idx, xa, xb);
#pragma unroll 1
        for (;;) {
            VT ya[IT];
            VT yb[IT];
            const bool more = idx + gstride < full_end;
            if (more)
                load_tile<OP, BLOCK, IT, L1>(va, vb, idx + gstride, ya, yb);
#pragma unroll
            for (int j = 0; j < IT; ++j)
                consume<T, Acc, OP, V, W>(acc, j, xa[j], OP == OP_DOT ? xb[j] : xa[j],
                                          first + (idx + (unsigned long long)j * BLOCK) * V);
            if (!more)
                break;
#pragma unroll
            for (int j = 0; j < IT; ++j) {
                xa[j] = ya[j];
                if constexpr (OP == OP_DOT)
                    xb[j] = yb[j];
            }
            idx += gstride;
        }
    }

    // Remainder (< TILE vectors): thread g takes vectors full_end + g + j*G*BLOCK.
    // Since G*BLOCK >= BLOCK, IT passes cover it; pass j feeds the slots of
    // load j, so no accumulator gets more than one extra load (a scan of
    // argmin/argmax's, the loads j % K == its own, in index order). All of a
    // thread's loads are issued before the first is consumed, as in a tile.
    const unsigned long long tstride = (unsigned long long)gridDim.x * BLOCK;
    const unsigned long long rbase =
        full_end + (unsigned long long)blockIdx.x * BLOCK + threadIdx.x;
    VT ra[IT];
    VT rb[IT];
#pragma unroll
    for (int j = 0; j < IT; ++j) {
        const unsigned long long idx = rbase + (unsigned long long)j * tstride;
        if (idx < nv) {
            ra[j] = load<L1>(va + idx);
            if constexpr (OP == OP_DOT)
                rb[j] = load<L1>(vb + idx);
        }
    }
#pragma unroll
    for (int j = 0; j < IT; ++j) {
        const unsigned long long idx = rbase + (unsigned long long)j * tstride;
        if (idx < nv)
            consume<T, Acc, OP, V, W>(acc, j, ra[j], OP == OP_DOT ? rb[j] : ra[j], first + idx * V);
    }
}

// ---- warp and block reductions ---------------------------------------------
// The shuffle overloads for long long / unsigned long long / double move the
// two 32-bit halves for us.
template <typename X> __device__ __forceinline__ X shfl(X v, int off)
{
    return __shfl_xor_sync(0xffffffffu, v, off);
}
template <typename X> __device__ __forceinline__ arg<X> shfl(arg<X> v, int off)
{
    return arg<X>{shfl(v.v, off), shfl(v.i, off)};
}

// Lane 0 gets the combine of lanes 0..held-1 (the others hold the identity):
// the butterfly's levels from the largest offset below held down, so that
// few values take few levels (held: the number of warps, or of partials);
// argmin/argmax of 32-bit values through redux where the arch has it
// (reduce_types.cuh: warp_arg).
template <typename A, int OP> __device__ __forceinline__ A warp_reduce(A v, unsigned int held = 32)
{
    if constexpr (warp_arg_fits<A>::value) {
        v = warp_arg<OP == OP_ARGMIN>(v);
    } else {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            if ((unsigned int)off < held)
                v = combine<A, OP>(v, shfl(v, off));
    }
    return v;
}

// Result valid in thread 0. Uses one static shared array per <A,OP,BLOCK>;
// a caller that calls it twice must put a __syncthreads() between the calls
// (reduce_body does: the ticket broadcast barrier).
template <typename T, typename A, int OP, int BLOCK> __device__ __forceinline__ A block_reduce(A v)
{
    constexpr int WARPS = BLOCK / 32;
    __shared__ A warp_vals[WARPS];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    v = warp_reduce<A, OP>(v);
    if (WARPS == 1)
        return v;
    if (lane == 0)
        warp_vals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < WARPS) ? warp_vals[lane] : identity<T, A, OP>();
        v = warp_reduce<A, OP>(v, WARPS);
    }
    return v;
}

// Pairwise tree over a thread's K accumulators (keeps float error ~log2 K).
// Written as compile-time recursion so every index is a constant and acc[]
// stays in registers (docs/experiments/reduce.md: "Accumulator tree at compile time").
template <typename A, int OP, int W, int K> __device__ __forceinline__ void tree_level(A (&acc)[K])
{
    if constexpr (W > 1) {
        constexpr int H = (W + 1) / 2;
#pragma unroll
        for (int i = 0; i < W / 2; ++i)
            acc[i] = combine<A, OP>(acc[i], acc[i + H]);
        tree_level<A, OP, H, K>(acc);
    }
}
template <typename A, int OP, int K> __device__ __forceinline__ A tree(A (&acc)[K])
{
    tree_level<A, OP, K, K>(acc);
    return acc[0];
}

// The result: min/max back in T, argmin/argmax's value and index where asked.
template <typename T, int OP, typename A, typename Out>
__device__ __forceinline__ void finish(const A &r, Out *out, long long *index)
{
    if constexpr (is_arg<OP>::value) {
        if (out != nullptr)
            *out = elem<T>::put(r.v);
        if (index != nullptr)
            *index = (long long)r.i;
    } else if constexpr (OP == OP_MIN || OP == OP_MAX) {
        *out = elem<T>::put(r);
    } else {
        *out = r;
    }
}

// accumulate with the loads through L1 or streamed past it, as l1 says.
template <typename T, typename Acc, int OP, int BLOCK, int V, int IT, int W, typename S, int K>
__device__ __forceinline__ void pass(const T *__restrict__ a, const T *__restrict__ b,
                                     unsigned long long nv, unsigned long long first, bool l1,
                                     S (&slots)[K])
{
    if (l1)
        accumulate<T, Acc, OP, BLOCK, V, IT, W, true>(a, b, nv, first, slots);
    else
        accumulate<T, Acc, OP, BLOCK, V, IT, W, false>(a, b, nv, first, slots);
}

// The aligned loads' pass into acc; argmin/argmax through scans (a scan per
// load of the ITEMS; for elements of one byte two, the even and the odd
// loads, which frees the registers of the others: docs/experiments/
// reduce.md, "i8/u8 argmin and argmax in two scans"), whose best (the
// smallest index on a tie: their loads never overlap) is located into
// acc[0].
template <typename T, typename Acc, int OP, int BLOCK, int V, int IT, int W, typename A, int K>
__device__ __forceinline__ void loads(const T *__restrict__ a, const T *__restrict__ b,
                                      unsigned long long nv, unsigned long long first, bool l1,
                                      A (&acc)[K])
{
    if constexpr (is_arg<OP>::value) {
        constexpr int S = sizeof(T) == 1 && IT > 2 ? 2 : IT;
        scan<T, OP, V> s[S];
#pragma unroll
        for (int j = 0; j < S; ++j)
            s[j].start();
        pass<T, Acc, OP, BLOCK, V, IT, 1>(a, b, nv, first, l1, s);
        acc[0] = tree<scan<T, OP, V>, OP, S>(s).located();
    } else {
        pass<T, Acc, OP, BLOCK, V, IT, W>(a, b, nv, first, l1, acc);
    }
}

// Last-block-done: whether this block, whose thread 0 calls it after storing
// its partial, is the grid's last. The ticket's atomic increment has release
// semantics (publishes what the thread wrote before) and acquire semantics
// (the last block sees what every other block published). The atomicInc-style
// wrap with limit G-1 stores 0 when it returns G-1, so the last block resets
// the ticket for the next launch in the same atomic. Default (sm_70+): one
// atom.acq_rel.gpu. CUSPEC_REDUCE_CLASSIC_FENCE (or pre-sm_70) uses the
// classic __threadfence(); atomicInc(); __threadfence().
__device__ __forceinline__ bool last_ticket(unsigned int *ticket)
{
    unsigned int prev;
#if defined(CUSPEC_REDUCE_CLASSIC_FENCE) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700)
    __threadfence();
    prev = atomicInc(ticket, gridDim.x - 1);
    __threadfence();
#else
    asm volatile("atom.acq_rel.gpu.inc.u32 %0, [%1], %2;"
                 : "=r"(prev)
                 : "l"(ticket), "r"(gridDim.x - 1)
                 : "memory");
#endif
    return prev == gridDim.x - 1;
}

// Thread 0's share of a block's result combined into the word (ticket[2..3]:
// atomicMax, or atomicAdd where ADD) before it takes the ticket; true in the
// last block, whose w is then the word's final value, taken and zeroed.
template <bool ADD, typename K>
__device__ __forceinline__ bool through_word(unsigned int *ticket, K &w)
{
    K *word = reinterpret_cast<K *>(ticket + 2);
    if constexpr (ADD)
        atomicAdd(word, w);
    else
        atomicMax(word, w);
    if (!last_ticket(ticket))
        return false;
    w = atomicExch(word, (K)0);
    return true;
}

// ---- argmin/argmax of 32-bit values, fewer than 2^31 elements: one word ------
// An element as 64 bits whose larger is the better: its key (arg_key: NaN
// the largest, both zeros one key) over (2^31 - 1 - index) << 1 and the sign
// of a zero, so that the exact element comes back (a NaN comes back as
// some NaN). Equal keys: the smaller index is the larger word. 0: no element
// (an index below 2^31 - 1 leaves a low word of at least 2). A block's best
// is two redux.sync a warp level (shuffles before sm_80); the blocks combine
// theirs with a 64-bit atomicMax on ticket[2..3], which the last block takes
// and zeroes with one atomicExch: no partials and no last block's reduction.
enum : unsigned long long { PACKED_N = 0x80000000ULL };

template <int OP, typename X> __device__ __forceinline__ unsigned long long pack(const arg<X> &r)
{
    if (r.i == EMPTY)
        return 0;
    unsigned int z = 0;
    if constexpr (elem<X>::is_float)
        z = __float_as_uint(r.v) == 0x80000000u;
    const unsigned int lo = ((0x7fffffffu - (unsigned int)r.i) << 1) | z;
    return (unsigned long long)arg_key<OP == OP_ARGMIN>(r.v) << 32 | lo;
}

template <int OP, typename X> __device__ __forceinline__ arg<X> unpack(unsigned long long w)
{
    const unsigned int lo = (unsigned int)w;
    return arg<X>{key_value<OP == OP_ARGMIN, X>((unsigned int)(w >> 32), lo & 1u),
                  0x7fffffffu - (lo >> 1)};
}

__device__ __forceinline__ unsigned long long warp_max64(unsigned long long w)
{
    if constexpr (arg_redux) {
        const unsigned int h = redux<true>((unsigned int)(w >> 32));
        const unsigned int l = redux<true>((unsigned int)(w >> 32) == h ? (unsigned int)w : 0u);
        return (unsigned long long)h << 32 | l;
    } else {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const unsigned long long o = __shfl_xor_sync(0xffffffffu, w, off);
            w = o > w ? o : w;
        }
        return w;
    }
}

// The block's best (pack) to *out and *index: thread 0 of the last block.
template <typename T, int OP, int BLOCK, typename X, typename Out>
__device__ __forceinline__ void packed_finish(const arg<X> &r, Out *out, long long *index,
                                              unsigned int *ticket)
{
    constexpr int WARPS = BLOCK / 32;
    __shared__ unsigned long long warp_w[WARPS];
    unsigned long long w = warp_max64(pack<OP>(r));
    if constexpr (WARPS > 1) {
        if ((threadIdx.x & 31) == 0)
            warp_w[threadIdx.x >> 5] = w;
        __syncthreads();
        if (threadIdx.x < 32)
            w = warp_max64(threadIdx.x < WARPS ? warp_w[threadIdx.x] : 0ULL);
    }
    if (threadIdx.x != 0 || (gridDim.x > 1 && !through_word<false>(ticket, w)))
        return;
    finish<T, OP>(unpack<OP, X>(w), out, index);
}

// ---- min/max, integer sums and dots: one word --------------------------------
// The blocks' results combined in ticket[2..3] by one atomic each, which the
// last block takes and zeroes with one atomicExch: min/max as arg_key keys
// (the word starts at 0, no key's better; a NaN comes back as some NaN, a
// zero as +0.0), sums and dots added modulo 2^64 (or 2^32 for a 32-bit Acc:
// the same as the partials' adds, in any order).
template <typename A, bool ADDS> struct int_sum {
    enum : bool { value = false };
};
template <typename A> struct int_sum<A, true> {
    enum : bool { value = !elem<A>::is_float };
};
template <typename A, int OP> struct in_word {
    enum : bool {
        value = OP == OP_MIN || OP == OP_MAX || int_sum<A, (OP == OP_SUM || OP == OP_DOT)>::value
    };
};

template <typename T, int OP, typename A, typename Out>
__device__ __forceinline__ void word_finish(A v, Out *out, unsigned int *ticket)
{
    if constexpr (OP == OP_MIN || OP == OP_MAX) {
        auto k = arg_key<OP == OP_MIN>(v);
        if (through_word<false>(ticket, k))
            finish<T, OP>(key_value<OP == OP_MIN, A>(k, false), out, (long long *)nullptr);
    } else {
        typename pick<sizeof(A) == 8, unsigned long long, unsigned int>::type u = v;
        if (through_word<true>(ticket, u))
            finish<T, OP>((A)u, out, (long long *)nullptr);
    }
}

// ---- one pass over the input, every op --------------------------------------
// Thread 0's ask of the L2 (cuspec_to_l2) for the first half of the block's
// first tile of p, vectors of VEC from p.
template <typename T, int BLOCK, int ITEMS, int VEC>
__device__ __forceinline__ void first_tile_to_l2(const T *p, unsigned long long nv)
{
    constexpr unsigned long long TILE = (unsigned long long)BLOCK * ITEMS;
    const unsigned long long v0 = (unsigned long long)blockIdx.x * TILE;
    if (threadIdx.x == 0 && v0 < nv)
        cuspec_first_to_l2(p + v0 * VEC, (nv - v0) * VEC, TILE / 2 * VEC); // at most 128 KB
}

template <typename T, typename Acc, int OP, int BLOCK, int ITEMS, int VEC, int SINGLE, typename A,
          typename Out>
__device__ __forceinline__ void reduce_body(const T *__restrict__ a, const T *__restrict__ b,
                                            unsigned long long n, Out *__restrict__ out,
                                            long long *__restrict__ index, A *__restrict__ partials,
                                            unsigned int *__restrict__ ticket, bool l1)
{
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0,
                  "BLOCK: multiple of 32 in [32,1024]");
    static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1..16 (1,2,4,8 intended)");
    static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8 || VEC == 16,
                  "VEC: 1, 2, 4, 8 or 16");
    static_assert(VEC * sizeof(T) <= 16, "VEC*sizeof(T) must be <= 16 bytes");
    static_assert(SINGLE == 0 || SINGLE == 1, "SINGLE: 0 or 1");
    // head: elements before the first VB-aligned address (< VEC of them, none
    // where VEC is 1); body: nv aligned vectors; tail: < VEC leftover elements.
    constexpr unsigned long long VB = (unsigned long long)VEC * sizeof(T);
    const unsigned long long amis = reinterpret_cast<unsigned long long>(a) & (VB - 1);
    unsigned long long head = amis ? (VB - amis) / sizeof(T) : 0;
    if (head > n)
        head = n;
    const unsigned long long nv = (n - head) / VEC;
    first_tile_to_l2<T, BLOCK, ITEMS, VEC>(a + head, nv);
    if constexpr (OP == OP_DOT)
        first_tile_to_l2<T, BLOCK, ITEMS, VEC>(b + head, nv);
    CUSPEC_AFTER_PRIOR_GRID();

    constexpr int W = slots<T, OP, VEC>::value;
    constexpr int K = is_arg<OP>::value ? 1 : W * ITEMS;
    A acc[K];
#pragma unroll
    for (int i = 0; i < K; ++i)
        acc[i] = identity<T, A, OP>();

    if constexpr (VEC == 1) {
        loads<T, Acc, OP, BLOCK, 1, ITEMS, 1>(a, b, n, 0, l1, acc);
    } else {
        bool vec_ok = true;
        if constexpr (OP == OP_DOT) {
            vec_ok = (reinterpret_cast<unsigned long long>(b) & (VB - 1)) == amis;
            // a and b misaligned differently: no common vector body. Scalar loads,
            // one per slot in flight, streamed whatever l1 says (one copy of
            // this rare path's loop).
            if (!vec_ok)
                accumulate<T, Acc, OP, BLOCK, 1, K, 1, false>(a, b, n, 0, acc);
        }
        if (vec_ok) {
            const unsigned long long tail = (n - head) - nv * VEC;
            const T *bb = nullptr;
            if constexpr (OP == OP_DOT)
                bb = b + head;
            loads<T, Acc, OP, BLOCK, VEC, ITEMS, W>(a + head, bb, nv, head, l1, acc);
            const unsigned long long g = (unsigned long long)blockIdx.x * BLOCK + threadIdx.x;
            if (g < head) {
                T y = T();
                if constexpr (OP == OP_DOT)
                    y = load1(b + g, l1);
                acc[0] = take<T, Acc, OP>(acc[0], load1(a + g, l1), y, g);
            }
            if (g < tail) {
                const unsigned long long i = n - tail + g;
                T y = T();
                if constexpr (OP == OP_DOT)
                    y = load1(b + i, l1);
                acc[K - 1] = take<T, Acc, OP>(acc[K - 1], load1(a + i, l1), y, i);
            }
        }
    }

    CUSPEC_LET_NEXT_GRID(); // the input is read: the grid's tail is what is left
    if constexpr (is_arg<OP>::value && sizeof(typename elem<T>::V) == 4) {
        if (n < PACKED_N) {
            packed_finish<T, OP, BLOCK>(acc[0], out, index, ticket);
            return;
        }
    }
    A v = block_reduce<T, A, OP, BLOCK>(tree<A, OP, K>(acc));

    if constexpr (SINGLE) {
        if (gridDim.x == 1) { // nothing to combine across blocks
            if (threadIdx.x == 0)
                finish<T, OP>(v, out, index);
            return;
        }
        if constexpr (in_word<A, OP>::value) {
            if (threadIdx.x == 0)
                word_finish<T, OP>(v, out, ticket);
            return;
        }
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
    if constexpr (!SINGLE)
        return;

    // Last-block-done (last_ticket); the __syncthreads() below extends thread
    // 0's acquire to the whole block.
    __shared__ unsigned int s_last;
    if (threadIdx.x == 0)
        s_last = last_ticket(ticket);
    __syncthreads();
    if (!s_last)
        return;

    // Up to 32 partials: one warp, no shared-memory stage (small calls, whose
    // time is this chain's latency).
    const bool one_warp = gridDim.x <= 32;
    if (one_warp && threadIdx.x >= 32)
        return;
    A r = identity<T, A, OP>();
    // __ldcg: read at L2 (coherence point), never a stale L1 line.
    for (unsigned int i = threadIdx.x; i < gridDim.x; i += BLOCK) {
        if constexpr (is_arg<OP>::value)
            r = combine<A, OP>(r, A{__ldcg(&partials[i].v), __ldcg(&partials[i].i)});
        else
            r = combine<A, OP>(r, __ldcg(partials + i));
    }
    r = one_warp ? warp_reduce<A, OP>(r, gridDim.x) : block_reduce<T, A, OP, BLOCK>(r);
    if (threadIdx.x == 0)
        finish<T, OP>(r, out, index);
}

} // namespace cuspec_reduce_detail

// ---------------------------------------------------------------------------
template <typename T, typename Acc, int OP, int BLOCK, int ITEMS, int VEC, int SINGLE>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce(const T *__restrict__ a, const T *__restrict__ b, unsigned long long n,
                  typename cuspec_reduce_detail::out_of<T, Acc, OP>::type *__restrict__ out,
                  Acc *__restrict__ partials, unsigned int *__restrict__ ticket, unsigned int l1)
{
    using namespace cuspec_reduce_detail;
    typedef typename elem<T>::V V;
    static_assert(OP >= 0 && OP <= 3, "OP: 0 sum, 1 min, 2 max, 3 dot (argmin, argmax: "
                                      "cuspec_argreduce)");
    static_assert(elem<T>::is_float == elem<Acc>::is_float,
                  "T and Acc: both float or both integer");
    static_assert((OP != OP_MIN && OP != OP_MAX) || same<V, Acc>::value,
                  "min/max: Acc must be T's value type");
    static_assert(sizeof(Acc) >= sizeof(V), "Acc narrower than T");
    reduce_body<T, Acc, OP, BLOCK, ITEMS, VEC, SINGLE>(a, b, n, out, (long long *)nullptr, partials,
                                                       ticket, l1 != 0);
}

// Second pass for SINGLE=0: one block of BLOCK threads combines `count` partials.
template <typename T, typename Acc, int OP, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_final(const Acc *__restrict__ partials, unsigned int count,
                        typename cuspec_reduce_detail::out_of<T, Acc, OP>::type *__restrict__ out)
{
    using namespace cuspec_reduce_detail;
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0,
                  "BLOCK: multiple of 32 in [32,1024]");
    static_assert(OP >= 0 && OP <= 3, "OP: 0 sum, 1 min, 2 max, 3 dot");
    CUSPEC_AFTER_PRIOR_GRID();
    CUSPEC_LET_NEXT_GRID(); // one block: the next grid's blocks fill the other SMs meanwhile
    Acc r = identity<T, Acc, OP>();
    for (unsigned int i = threadIdx.x; i < count; i += BLOCK)
        r = combine<Acc, OP>(r, partials[i]);
    r = block_reduce<T, Acc, OP, BLOCK>(r);
    if (threadIdx.x == 0)
        finish<T, OP>(r, out, (long long *)nullptr);
}

// argmin (OP 4) / argmax (OP 5): the value to *value and its index to *index
// (either may be NULL); n >= 1. One launch.
template <typename T, int OP, int BLOCK, int ITEMS, int VEC>
__global__ void __launch_bounds__(BLOCK) cuspec_argreduce(
    const T *__restrict__ a, unsigned long long n, T *__restrict__ value,
    long long *__restrict__ index,
    cuspec_reduce_detail::arg<typename cuspec_reduce_detail::elem<T>::V> *__restrict__ partials,
    unsigned int *__restrict__ ticket, unsigned int l1)
{
    using namespace cuspec_reduce_detail;
    static_assert(OP == OP_ARGMIN || OP == OP_ARGMAX, "OP: 4 argmin, 5 argmax");
    reduce_body<T, typename elem<T>::V, OP, BLOCK, ITEMS, VEC, 1>(a, (const T *)nullptr, n, value,
                                                                  index, partials, ticket, l1 != 0);
}

#endif // CUSPEC_REDUCE_CUH_
