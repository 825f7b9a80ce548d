// cuspec reduction kernels: sum, min, max and dot over one contiguous array.
//
// CUDA C++17 with one #include, prior_grid.cuh beside it, so NVRTC can compile
// it given that header (-std=c++17, --gpu-architecture=compute_75 or sm_XY);
// it also compiles when #included from an nvcc .cu file.
//
// ---------------------------------------------------------------------------
// ENTRY POINTS (global namespace, launched by NVRTC name expression, e.g.
// "cuspec_reduce<float, float, 0, 256, 4, 4, 1>")
//
//   template <typename T, typename Acc, int OP, int BLOCK, int ITEMS, int VEC, int SINGLE>
//   __global__ void cuspec_reduce(const T *a, const T *b, unsigned long long n,
//                                 Acc *out, Acc *partials, unsigned int *ticket);
//   template <typename Acc, int OP, int BLOCK>
//   __global__ void cuspec_reduce_final(const Acc *partials, unsigned int count, Acc *out);
//
// TEMPLATE PARAMETERS
//   OP     0 = sum, 1 = min, 2 = max, 3 = dot (sum of a[i]*b[i]); b is only read
//          for OP 3 and may be NULL otherwise.
//   T/Acc  (float,float) (double,double) (long long,long long)
//          (int,long long) for sum/dot,          (int,int) for min/max
//          (unsigned int,unsigned long long) for sum/dot,
//          (unsigned int,unsigned int) for min/max.
//          (Also compile-checked, not in the library's table: (float,double)
//          sum/dot, (unsigned long long, unsigned long long).)
//   BLOCK  threads per block: 128, 256, 512 or 1024 (any multiple of 32 works).
//          BLOCK 1024 caps registers at 64/thread: there keep ITEMS*VEC small
//          (8-byte Acc with ITEMS*VEC = 32 spills heavily; still correct).
//   ITEMS  vector loads per thread per loop iteration, all issued before any is
//          used (memory-level parallelism): 1, 2, 4 or 8.
//   VEC    elements per vector load, VEC*sizeof(T) <= 16: 1, 2, 4 for 4-byte T;
//          1, 2 for 8-byte T.
//   SINGLE 1: one launch (last-block-done finish: each block stores its partial,
//          then takes a ticket with an acq_rel atomic; the block that takes the
//          last ticket combines all partials); 0: the host launches
//          cuspec_reduce_final<Acc,OP,BLOCK><<<1,BLOCK>>>(partials, grid, out)
//          after cuspec_reduce.
//
// LAUNCH GEOMETRY (host's job)
//   block = BLOCK threads, no dynamic shared memory (static shared only).
//   grid  = G with 1 <= G <= blocks_per_sm * SMs and G <= max(1, ceil(n / (BLOCK*ITEMS*VEC))).
//   The kernel uses grid-stride loops, so ANY G >= 1 gives the right answer
//   (extra blocks just contribute the identity); the bound above is for speed.
//   cuspec_reduce_final: grid 1, block BLOCK (the same BLOCK), count = G.
//
// WORKSPACE
//   partials: at least G elements of Acc (not read by the host; no initialisation).
//   ticket:   one unsigned int that must be 0 before the FIRST launch that uses it.
//             SINGLE=1 leaves it 0 again on exit (the last block's wrapping atomic
//             increment stores 0), so one workspace serves back-to-back launches on one stream and
//             CUDA-graph replays with no memset. Do not share one workspace between
//             launches that may run concurrently (different streams).
//   SINGLE=1 with G == 1 writes *out directly and touches neither partials nor ticket.
//
// POLICIES
//   n == 0    : *out = identity: sum/dot 0; min +inf (floats) or the type's max;
//               max -inf (floats) or the type's min (0 for unsigned).
//   NaN       : float min/max PROPAGATE NaN: if any element is NaN the result is
//               NaN (which NaN payload is unspecified). The combine returns a NaN
//               operand from either side and +-inf identities never hide one.
//               (CUDA fast-math does not assume finite values, so this holds with
//               --use_fast_math too.) Sum/dot propagate NaN by IEEE arithmetic.
//   Integers  : sums and dots wrap modulo 2^64 (two's complement for signed Acc),
//               computed with unsigned arithmetic, so results are exact mod 2^64
//               and independent of order. int/unsigned inputs are widened to
//               64 bits before adding / multiplying, so an int sum or dot is
//               exact unless its true value leaves the 64-bit range.
//   Determinism: for a fixed (variant, n, pointer alignment mod VEC*sizeof(T), G)
//               the result is bitwise reproducible (no float atomics).
//
// FLOAT SUM / DOT ACCURACY (accumulation in T: f32 in f32, f64 in f64)
//   Each thread keeps K = VEC*ITEMS independent accumulators, each summing
//   m <= ceil(n / (G*BLOCK*K)) + 2 elements in sequence; then a pairwise
//   tree in the thread (log2 K levels), a warp butterfly (5), a shared-memory
//   tree over warps (log2(BLOCK/32)), and the partials: ceil(G/BLOCK) in
//   sequence per thread, then a block tree (log2 BLOCK). The tree depth is
//     h = m + log2 K + 2*log2(BLOCK) + ceil(G/BLOCK),
//   so the rigorous bound is |err| <= h*u/(1-h*u) * sum|x_i|   (u = 2^-24 for f32).
//   n = 2^28, BLOCK 256, ITEMS*VEC = 16, G = 4*132 = 528:  m <= 127, h ~ 150,
//   |err| <= ~150 u sum|x| ~ 8.9e-6 * sum|x|  (worst case, all roundings aligned).
//   For zero-mean data (e.g. uniform [-1,1)), the rounding errors are
//   independent and partial sums are random walks, giving a standard deviation
//   of about u * sqrt(sum x^2 * (m/2 + levels) / 3) ~ 3e-3 absolute at
//   n = 2^28, i.e. ~3e-7 of |sum| (~9.5e3) and ~2e-11 of sum|x|. That is far below
//   the 1e-5 target, so f32 is accumulated in f32 (double per thread would not
//   help here and costs FP64 and conversion throughput, which consumer GPUs lack).
//   Dot uses fused multiply-add (one rounding per element).
//
// One default for all types (BLOCK 256, VEC = 16/sizeof(T), ITEMS 4, G = 4*SMs,
// SINGLE 1): about 64 KB of loads in flight per SM read at the copy rate
// (docs/experiments/reduce.md: "Loads in flight").
// ---------------------------------------------------------------------------

#ifndef CUSPEC_REDUCE_CUH_
#define CUSPEC_REDUCE_CUH_

// Load used for the streamed input. ld.global.cs ("cache streaming", evict-first)
// keeps a 1 GB read-once stream from flushing the L2 for other kernels. A harness
// may #define this before #including the file to compare e.g. __ldg.
#ifndef CUSPEC_REDUCE_LOAD
#define CUSPEC_REDUCE_LOAD(p) __ldcs(p)
#endif

#include "prior_grid.cuh"

namespace cuspec_reduce_detail
{

enum { OP_SUM = 0, OP_MIN = 1, OP_MAX = 2, OP_DOT = 3 };

template <typename A, typename B> struct same {
    static constexpr bool value = false;
};
template <typename A> struct same<A, A> {
    static constexpr bool value = true;
};

// ---- numeric limits / identities (no <limits> in NVRTC) -------------------
template <typename X> struct lim;
template <> struct lim<float> {
    static constexpr bool is_float = true;
    static __device__ __forceinline__ float hi()
    {
        return __int_as_float(0x7f800000); // +inf
    }
    static __device__ __forceinline__ float lo()
    {
        return __int_as_float((int)0xff800000u); // -inf
    }
};
template <> struct lim<double> {
    static constexpr bool is_float = true;
    static __device__ __forceinline__ double hi()
    {
        return __longlong_as_double(0x7ff0000000000000LL);
    }
    static __device__ __forceinline__ double lo()
    {
        return __longlong_as_double((long long)0xfff0000000000000ULL);
    }
};
template <> struct lim<int> {
    static constexpr bool is_float = false;
    static __device__ __forceinline__ int hi()
    {
        return 2147483647;
    }
    static __device__ __forceinline__ int lo()
    {
        return -2147483647 - 1;
    }
};
template <> struct lim<unsigned int> {
    static constexpr bool is_float = false;
    static __device__ __forceinline__ unsigned int hi()
    {
        return 0xffffffffu;
    }
    static __device__ __forceinline__ unsigned int lo()
    {
        return 0u;
    }
};
template <> struct lim<long long> {
    static constexpr bool is_float = false;
    static __device__ __forceinline__ long long hi()
    {
        return 9223372036854775807LL;
    }
    static __device__ __forceinline__ long long lo()
    {
        return -9223372036854775807LL - 1;
    }
};
template <> struct lim<unsigned long long> {
    static constexpr bool is_float = false;
    static __device__ __forceinline__ unsigned long long hi()
    {
        return 0xffffffffffffffffULL;
    }
    static __device__ __forceinline__ unsigned long long lo()
    {
        return 0ULL;
    }
};

template <typename Acc, int OP> __device__ __forceinline__ Acc identity()
{
    if constexpr (OP == OP_MIN)
        return lim<Acc>::hi();
    else if constexpr (OP == OP_MAX)
        return lim<Acc>::lo();
    else
        return Acc(0);
}

// ---- combine two partial results -----------------------------------------
// Integer adds go through unsigned 64-bit (or 32-bit) arithmetic: wrap-around
// is defined there, and it is bit-identical to two's-complement signed wrap.
template <typename Acc> __device__ __forceinline__ Acc add(Acc x, Acc y)
{
    if constexpr (lim<Acc>::is_float)
        return x + y;
    else if constexpr (sizeof(Acc) == 8)
        return (Acc)((unsigned long long)x + (unsigned long long)y);
    else
        return (Acc)((unsigned int)x + (unsigned int)y);
}

// min/max: for floats, return x if x is NaN; otherwise if y is NaN the
// comparison is false and y (NaN) is returned. So NaN wins from either side.
template <typename Acc> __device__ __forceinline__ Acc vmin(Acc x, Acc y)
{
    if constexpr (lim<Acc>::is_float)
        return (x < y || x != x) ? x : y;
    else
        return (y < x) ? y : x;
}
template <typename Acc> __device__ __forceinline__ Acc vmax(Acc x, Acc y)
{
    if constexpr (lim<Acc>::is_float)
        return (x > y || x != x) ? x : y;
    else
        return (y > x) ? y : x;
}

template <typename Acc, int OP> __device__ __forceinline__ Acc combine(Acc x, Acc y)
{
    if constexpr (OP == OP_MIN)
        return vmin(x, y);
    else if constexpr (OP == OP_MAX)
        return vmax(x, y);
    else
        return add(x, y); // sum and dot combine partials by adding
}

// Fold one input element (and b's element for dot) into an accumulator.
template <typename T, typename Acc, int OP> __device__ __forceinline__ Acc step(Acc acc, T x, T y)
{
    if constexpr (OP == OP_DOT) {
        if constexpr (same<Acc, float>::value)
            return __fmaf_rn((float)x, (float)y, acc);
        else if constexpr (same<Acc, double>::value)
            return __fma_rn((double)x, (double)y, acc);
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
        return combine<Acc, OP>(acc, (Acc)x);
    }
}

// ---- vector types: VT = VEC elements of T in one aligned load --------------
template <typename T, int V> struct vec;
#define CUSPEC_VEC1(T)                                                                             \
    template <> struct vec<T, 1> {                                                                 \
        typedef T type;                                                                            \
        static __device__ __forceinline__ T get(const type &v, int)                                \
        {                                                                                          \
            return v;                                                                              \
        }                                                                                          \
    };
#define CUSPEC_VEC2(T, VT)                                                                         \
    template <> struct vec<T, 2> {                                                                 \
        typedef VT type;                                                                           \
        static __device__ __forceinline__ T get(const type &v, int k)                              \
        {                                                                                          \
            return k == 0 ? (T)v.x : (T)v.y;                                                       \
        }                                                                                          \
    };
#define CUSPEC_VEC4(T, VT)                                                                         \
    template <> struct vec<T, 4> {                                                                 \
        typedef VT type;                                                                           \
        static __device__ __forceinline__ T get(const type &v, int k)                              \
        {                                                                                          \
            return k == 0 ? (T)v.x : k == 1 ? (T)v.y : k == 2 ? (T)v.z : (T)v.w;                   \
        }                                                                                          \
    };
// One line per element type:
// clang-format off
CUSPEC_VEC1(float)              CUSPEC_VEC2(float, float2)          CUSPEC_VEC4(float, float4)
CUSPEC_VEC1(double)             CUSPEC_VEC2(double, double2)
CUSPEC_VEC1(int)                CUSPEC_VEC2(int, int2)              CUSPEC_VEC4(int, int4)
CUSPEC_VEC1(unsigned int)       CUSPEC_VEC2(unsigned int, uint2)    CUSPEC_VEC4(unsigned int, uint4)
CUSPEC_VEC1(long long)          CUSPEC_VEC2(long long, longlong2)
CUSPEC_VEC1(unsigned long long) CUSPEC_VEC2(unsigned long long, ulonglong2)
// clang-format on
#undef CUSPEC_VEC1
#undef CUSPEC_VEC2
#undef CUSPEC_VEC4

    // ---- per-thread accumulation over an aligned range of nv vectors ------------
    // Work is cut into tiles of BLOCK*IT vectors; block t%G takes tile t (grid
    // stride). Inside a tile, thread i loads vectors i, i+BLOCK, ..., i+(IT-1)*BLOCK:
    // each of the IT loads is coalesced across the warp, and all IT (2*IT for dot)
    // loads are issued before the first is consumed. acc has V*IT entries, so each
    // loaded element has its own accumulator: the FADD chains are independent and
    // never stall the loads. The < 1 tile remainder is spread over all threads.
    template <typename T, typename Acc, int OP, int BLOCK, int V, int IT>
    __device__ __forceinline__ void accumulate(const T *__restrict__ a, const T *__restrict__ b,
                                               unsigned long long nv, Acc (&acc)[V * IT])
{
    typedef typename vec<T, V>::type VT;
    const VT *__restrict__ va = reinterpret_cast<const VT *>(a);
    const VT *__restrict__ vb = reinterpret_cast<const VT *>(b);
    constexpr unsigned long long TILE = (unsigned long long)BLOCK * IT;
    const unsigned long long full_end = (nv / TILE) * TILE; // end of the full tiles
    const unsigned long long gstride = (unsigned long long)gridDim.x * TILE;

    // idx < full_end  <=>  this block's tile index < number of full tiles,
    // because threadIdx.x < BLOCK <= TILE.
#pragma unroll 1
    for (unsigned long long idx = (unsigned long long)blockIdx.x * TILE + threadIdx.x;
         idx < full_end; idx += gstride) {
        VT xa[IT];
        VT xb[IT];
#pragma unroll
        for (int j = 0; j < IT; ++j)
            xa[j] = CUSPEC_REDUCE_LOAD(va + idx + (unsigned long long)j * BLOCK);
        if constexpr (OP == OP_DOT) {
#pragma unroll
            for (int j = 0; j < IT; ++j)
                xb[j] = CUSPEC_REDUCE_LOAD(vb + idx + (unsigned long long)j * BLOCK);
        }
#pragma unroll
        for (int j = 0; j < IT; ++j) {
#pragma unroll
            for (int k = 0; k < V; ++k) {
                T y = T(0);
                if constexpr (OP == OP_DOT)
                    y = vec<T, V>::get(xb[j], k);
                acc[j * V + k] = step<T, Acc, OP>(acc[j * V + k], vec<T, V>::get(xa[j], k), y);
            }
        }
    }

    // Remainder (< TILE vectors): thread g takes vectors full_end + g + j*G*BLOCK.
    // Since G*BLOCK >= BLOCK, IT passes cover it; pass j feeds accumulators
    // j*V..j*V+V-1 so no accumulator gets more than one extra element.
    const unsigned long long tstride = (unsigned long long)gridDim.x * BLOCK;
    const unsigned long long rbase =
        full_end + (unsigned long long)blockIdx.x * BLOCK + threadIdx.x;
#pragma unroll
    for (int j = 0; j < IT; ++j) {
        const unsigned long long idx = rbase + (unsigned long long)j * tstride;
        if (idx < nv) {
            VT xa = CUSPEC_REDUCE_LOAD(va + idx);
            VT xb = xa;
            if constexpr (OP == OP_DOT)
                xb = CUSPEC_REDUCE_LOAD(vb + idx);
#pragma unroll
            for (int k = 0; k < V; ++k) {
                T y = T(0);
                if constexpr (OP == OP_DOT)
                    y = vec<T, V>::get(xb, k);
                acc[j * V + k] = step<T, Acc, OP>(acc[j * V + k], vec<T, V>::get(xa, k), y);
            }
        }
    }
}

// ---- warp and block reductions ---------------------------------------------
// The shuffle overloads for long long / unsigned long long / double move the
// two 32-bit halves for us.
template <typename Acc, int OP> __device__ __forceinline__ Acc warp_reduce(Acc v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v = combine<Acc, OP>(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

// Result valid in thread 0. Uses one static shared array per <Acc,OP,BLOCK>;
// a caller that calls it twice must put a __syncthreads() between the calls
// (cuspec_reduce does: the ticket broadcast barrier).
template <typename Acc, int OP, int BLOCK> __device__ __forceinline__ Acc block_reduce(Acc v)
{
    constexpr int WARPS = BLOCK / 32;
    __shared__ Acc warp_vals[WARPS];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    v = warp_reduce<Acc, OP>(v);
    if (WARPS == 1)
        return v;
    if (lane == 0)
        warp_vals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < WARPS) ? warp_vals[lane] : identity<Acc, OP>();
        v = warp_reduce<Acc, OP>(v);
    }
    return v;
}

// Pairwise tree over a thread's K accumulators (keeps float error ~log2 K).
// Written as compile-time recursion so every index is a constant and acc[]
// stays in registers (docs/experiments/reduce.md: "Accumulator tree at compile time").
template <typename Acc, int OP, int W, int K>
__device__ __forceinline__ void tree_level(Acc (&acc)[K])
{
    if constexpr (W > 1) {
        constexpr int H = (W + 1) / 2;
#pragma unroll
        for (int i = 0; i < W / 2; ++i)
            acc[i] = combine<Acc, OP>(acc[i], acc[i + H]);
        tree_level<Acc, OP, H, K>(acc);
    }
}
template <typename Acc, int OP, int K> __device__ __forceinline__ Acc tree(Acc (&acc)[K])
{
    tree_level<Acc, OP, K, K>(acc);
    return acc[0];
}

} // namespace cuspec_reduce_detail

// ---------------------------------------------------------------------------
template <typename T, typename Acc, int OP, int BLOCK, int ITEMS, int VEC, int SINGLE>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce(const T *__restrict__ a, const T *__restrict__ b, unsigned long long n,
                  Acc *__restrict__ out, Acc *__restrict__ partials,
                  unsigned int *__restrict__ ticket)
{
    using namespace cuspec_reduce_detail;
    static_assert(OP >= 0 && OP <= 3, "OP: 0 sum, 1 min, 2 max, 3 dot");
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0,
                  "BLOCK: multiple of 32 in [32,1024]");
    static_assert(ITEMS >= 1 && ITEMS <= 16, "ITEMS: 1..16 (1,2,4,8 intended)");
    static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC: 1, 2 or 4");
    static_assert(VEC * sizeof(T) <= 16, "VEC*sizeof(T) must be <= 16 bytes");
    static_assert(SINGLE == 0 || SINGLE == 1, "SINGLE: 0 or 1");
    static_assert(lim<T>::is_float == lim<Acc>::is_float, "T and Acc: both float or both integer");
    static_assert((OP != OP_MIN && OP != OP_MAX) || same<T, Acc>::value, "min/max: Acc must be T");
    static_assert(sizeof(Acc) >= sizeof(T), "Acc narrower than T");
    CUSPEC_AFTER_PRIOR_GRID();

    constexpr int K = VEC * ITEMS;
    Acc acc[K];
#pragma unroll
    for (int i = 0; i < K; ++i)
        acc[i] = identity<Acc, OP>();

    if constexpr (VEC == 1) {
        accumulate<T, Acc, OP, BLOCK, 1, ITEMS>(a, b, n, acc);
    } else {
        constexpr unsigned long long VB = (unsigned long long)VEC * sizeof(T);
        const unsigned long long amis = reinterpret_cast<unsigned long long>(a) & (VB - 1);
        bool vec_ok = true;
        if constexpr (OP == OP_DOT)
            vec_ok = (reinterpret_cast<unsigned long long>(b) & (VB - 1)) == amis;
        if (!vec_ok) {
            // a and b misaligned differently: no common vector body. Scalar loads,
            // with ITEMS*VEC of them in flight so the byte volume in flight matches.
            accumulate<T, Acc, OP, BLOCK, 1, K>(a, b, n, acc);
        } else {
            // head: elements before the first VB-aligned address (< VEC of them);
            // body: aligned vectors; tail: < VEC leftover elements.
            unsigned long long head = amis ? (VB - amis) / sizeof(T) : 0;
            if (head > n)
                head = n;
            const unsigned long long nv = (n - head) / VEC;
            const unsigned long long tail = (n - head) - nv * VEC;
            const T *bb = nullptr;
            if constexpr (OP == OP_DOT)
                bb = b + head;
            accumulate<T, Acc, OP, BLOCK, VEC, ITEMS>(a + head, bb, nv, acc);
            const unsigned long long g = (unsigned long long)blockIdx.x * BLOCK + threadIdx.x;
            if (g < head) {
                T y = T(0);
                if constexpr (OP == OP_DOT)
                    y = CUSPEC_REDUCE_LOAD(b + g);
                acc[0] = step<T, Acc, OP>(acc[0], CUSPEC_REDUCE_LOAD(a + g), y);
            }
            if (g < tail) {
                const unsigned long long i = n - tail + g;
                T y = T(0);
                if constexpr (OP == OP_DOT)
                    y = CUSPEC_REDUCE_LOAD(b + i);
                acc[K - 1] = step<T, Acc, OP>(acc[K - 1], CUSPEC_REDUCE_LOAD(a + i), y);
            }
        }
    }

    CUSPEC_LET_NEXT_GRID(); // the input is read: the grid's tail is what is left
    Acc v = block_reduce<Acc, OP, BLOCK>(tree<Acc, OP, K>(acc));

    if constexpr (SINGLE) {
        if (gridDim.x == 1) { // nothing to combine across blocks
            if (threadIdx.x == 0)
                *out = v;
            return;
        }
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
    if constexpr (!SINGLE)
        return;

    // Last-block-done. Thread 0 has stored this block's partial; it then takes a
    // ticket with an atomic increment that has release semantics (publishes the
    // partial) and acquire semantics (the last block sees every other partial).
    // atomicInc-style wrap with limit G-1 stores 0 when it returns G-1, so the
    // last block resets the ticket for the next launch in the same atomic.
    // The __syncthreads() below extends thread 0's acquire to the whole block.
    // Default (sm_70+): one atom.acq_rel.gpu. CUSPEC_REDUCE_CLASSIC_FENCE (or
    // pre-sm_70) uses the classic __threadfence(); atomicInc(); __threadfence().
    __shared__ unsigned int s_last;
    if (threadIdx.x == 0) {
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
        s_last = (prev == gridDim.x - 1);
    }
    __syncthreads();
    if (!s_last)
        return;

    Acc r = identity<Acc, OP>();
    // __ldcg: read at L2 (coherence point), never a stale L1 line.
    for (unsigned int i = threadIdx.x; i < gridDim.x; i += BLOCK)
        r = combine<Acc, OP>(r, __ldcg(partials + i));
    r = block_reduce<Acc, OP, BLOCK>(r);
    if (threadIdx.x == 0)
        *out = r;
}

// Second pass for SINGLE=0: one block of BLOCK threads combines `count` partials.
template <typename Acc, int OP, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    cuspec_reduce_final(const Acc *__restrict__ partials, unsigned int count, Acc *__restrict__ out)
{
    using namespace cuspec_reduce_detail;
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0,
                  "BLOCK: multiple of 32 in [32,1024]");
    CUSPEC_AFTER_PRIOR_GRID();
    Acc r = identity<Acc, OP>();
    for (unsigned int i = threadIdx.x; i < count; i += BLOCK)
        r = combine<Acc, OP>(r, partials[i]);
    r = block_reduce<Acc, OP, BLOCK>(r);
    if (threadIdx.x == 0)
        *out = r;
}

#endif // CUSPEC_REDUCE_CUH_
