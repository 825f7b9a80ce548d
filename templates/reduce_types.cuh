// cuspec reduction element types: what reduce.cuh reads and how it widens it.
//
// CUDA C++17 with no #include, so NVRTC compiles it with no CUDA header (no
// cuda_fp16.h either: halves and bfloat16s are their bits, converted with PTX).
//
//   cuspec_f16, cuspec_bf16   an IEEE half and a bfloat16, as 16 bits; name
//                             expressions use them as T ("cuspec_reduce<cuspec_f16, ...>").
//   elem<T>                   per element type: V, the type its values are
//                             computed in (float for halves and bfloat16s, int or
//                             unsigned for 8- and 16-bit integers, else T);
//                             val(x) (exact), put(v) (back to T: exact for
//                             every value val gives), hi() / lo() (the range, as
//                             V: +-inf for floats), is_float, is_signed.
//   vec<T, V>                 V elements of T in one aligned load (VT = type),
//                             get(v, k) the k-th: CUDA's vector types for 4- and
//                             8-byte T, else the bytes as unsigned words.

#ifndef CUSPEC_REDUCE_TYPES_CUH_
#define CUSPEC_REDUCE_TYPES_CUH_

struct cuspec_f16 {
    unsigned short bits;
};
struct cuspec_bf16 {
    unsigned short bits;
};

namespace cuspec_reduce_detail
{

template <typename A, typename B> struct same {
    enum : bool { value = false };
};
template <typename A> struct same<A, A> {
    enum : bool { value = true };
};

// ---- element traits (no <limits> in NVRTC) ---------------------------------
// One line per type that is its own value type: T, float?, signed?, hi, lo.
template <typename T> struct elem;
#define CUSPEC_ELEM_SELF(T, FLOAT, SIGNED, HI, LO)                                                 \
    template <> struct elem<T> {                                                                   \
        typedef T V;                                                                               \
        enum : bool { is_float = FLOAT, is_signed = SIGNED };                                      \
        static __device__ __forceinline__ V val(T x)                                               \
        {                                                                                          \
            return x;                                                                              \
        }                                                                                          \
        static __device__ __forceinline__ T put(V v)                                               \
        {                                                                                          \
            return v;                                                                              \
        }                                                                                          \
        static __device__ __forceinline__ V hi()                                                   \
        {                                                                                          \
            return HI;                                                                             \
        }                                                                                          \
        static __device__ __forceinline__ V lo()                                                   \
        {                                                                                          \
            return LO;                                                                             \
        }                                                                                          \
    };
// 8- and 16-bit integers are computed in 32 bits (shuffles and compares take
// no narrower type); from_bits takes the element from the low bits of a word.
#define CUSPEC_ELEM_NARROW(T, VT, SIGNED, HI, LO)                                                  \
    template <> struct elem<T> {                                                                   \
        typedef VT V;                                                                              \
        enum : bool { is_float = false, is_signed = SIGNED };                                      \
        static __device__ __forceinline__ V val(T x)                                               \
        {                                                                                          \
            return (V)x;                                                                           \
        }                                                                                          \
        static __device__ __forceinline__ T put(V v)                                               \
        {                                                                                          \
            return (T)v;                                                                           \
        }                                                                                          \
        static __device__ __forceinline__ T from_bits(unsigned int b)                              \
        {                                                                                          \
            return (T)b;                                                                           \
        }                                                                                          \
        static __device__ __forceinline__ V hi()                                                   \
        {                                                                                          \
            return HI;                                                                             \
        }                                                                                          \
        static __device__ __forceinline__ V lo()                                                   \
        {                                                                                          \
            return LO;                                                                             \
        }                                                                                          \
    };
// clang-format off
CUSPEC_ELEM_SELF(float, true, true, __int_as_float(0x7f800000), __int_as_float((int)0xff800000u))
CUSPEC_ELEM_SELF(double, true, true, __longlong_as_double(0x7ff0000000000000LL),
                 __longlong_as_double((long long)0xfff0000000000000ULL))
CUSPEC_ELEM_SELF(int, false, true, 2147483647, -2147483647 - 1)
CUSPEC_ELEM_SELF(unsigned int, false, false, 0xffffffffu, 0u)
CUSPEC_ELEM_SELF(long long, false, true, 9223372036854775807LL, -9223372036854775807LL - 1)
CUSPEC_ELEM_SELF(unsigned long long, false, false, 0xffffffffffffffffULL, 0ULL)
CUSPEC_ELEM_NARROW(signed char, int, true, 127, -128)
CUSPEC_ELEM_NARROW(unsigned char, unsigned int, false, 255u, 0u)
CUSPEC_ELEM_NARROW(short, int, true, 32767, -32768)
CUSPEC_ELEM_NARROW(unsigned short, unsigned int, false, 65535u, 0u)
// clang-format on
#undef CUSPEC_ELEM_SELF
#undef CUSPEC_ELEM_NARROW

// Halves widen exactly to float (cvt.f32.f16); a float that came from a half
// goes back exactly (cvt.rn), a NaN as some NaN.
template <> struct elem<cuspec_f16> {
    typedef float V;
    enum : bool { is_float = true, is_signed = true };
    static __device__ __forceinline__ V val(cuspec_f16 x)
    {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
        return f;
    }
    static __device__ __forceinline__ cuspec_f16 put(V v)
    {
        cuspec_f16 h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(v));
        return h;
    }
    static __device__ __forceinline__ cuspec_f16 from_bits(unsigned int b)
    {
        return cuspec_f16{(unsigned short)b};
    }
    static __device__ __forceinline__ V hi()
    {
        return __int_as_float(0x7f800000);
    }
    static __device__ __forceinline__ V lo()
    {
        return __int_as_float((int)0xff800000u);
    }
};

// A bfloat16 is the top half of a float: widening is a shift, and a float
// that came from one goes back by dropping the (zero) low half.
template <> struct elem<cuspec_bf16> {
    typedef float V;
    enum : bool { is_float = true, is_signed = true };
    static __device__ __forceinline__ V val(cuspec_bf16 x)
    {
        return __uint_as_float((unsigned int)x.bits << 16);
    }
    static __device__ __forceinline__ cuspec_bf16 put(V v)
    {
        return cuspec_bf16{(unsigned short)(__float_as_uint(v) >> 16)};
    }
    static __device__ __forceinline__ cuspec_bf16 from_bits(unsigned int b)
    {
        return cuspec_bf16{(unsigned short)b};
    }
    static __device__ __forceinline__ V hi()
    {
        return __int_as_float(0x7f800000);
    }
    static __device__ __forceinline__ V lo()
    {
        return __int_as_float((int)0xff800000u);
    }
};

// ---- vector loads: VT = V elements of T in one aligned load ----------------
// Elements of 1 and 2 bytes load as unsigned words of the vector's size (the
// cache-streaming loads take those) and are taken out of them by shifts.
template <int BYTES> struct raw;
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
    typedef uint2 type;
};
template <> struct raw<16> {
    typedef uint4 type;
};

// 32-bit word w of a raw vector (w a constant once unrolled).
__device__ __forceinline__ unsigned int word(unsigned char v, int)
{
    return v;
}
__device__ __forceinline__ unsigned int word(unsigned short v, int)
{
    return v;
}
__device__ __forceinline__ unsigned int word(unsigned int v, int)
{
    return v;
}
__device__ __forceinline__ unsigned int word(const uint2 &v, int w)
{
    return w == 0 ? v.x : v.y;
}
__device__ __forceinline__ unsigned int word(const uint4 &v, int w)
{
    return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

template <typename T, int V> struct vec {
    static_assert(sizeof(T) < 4, "4- and 8-byte elements have their own vector types below");
    typedef typename raw<V * sizeof(T)>::type type;
    static __device__ __forceinline__ T get(const type &v, int k)
    {
        constexpr int S = sizeof(T);
        return elem<T>::from_bits(word(v, k * S / 4) >> (k * S % 4 * 8));
    }
};
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

} // namespace cuspec_reduce_detail

namespace cuspec_reduce_detail
{

// ---- two 16-bit lanes per word: packed min and max -------------------------
// lanes<T>::ok where this arch has lane-wise min and max for T: f16 and bf16
// from sm_80 (min/max.NaN.{f16,bf16}x2: a NaN lane gives NaN), 16-bit
// integers from sm_90 ({s,u}16x2), and 8-bit integers widened to 16-bit lanes
// (prmt, which sign-extends in its default mode). Then:
//   PER             words of lanes per input word (2 for 8-bit T, else 1)
//   split(w, k)     the k-th of them
//   pick<LOW>(a, b) lane-wise min (LOW) or max
//   first(w), second(w)  the two lanes as elem<T>::V
// Used by reduce.cuh's extreme(); which lane holds which element is not kept.

template <typename T> struct lanes {
    enum : bool { ok = false };
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUSPEC_LANES_OK(PTX_TYPE, PER_WORD)                                                     \
    enum : bool { ok = true };                                                                     \
    enum : int { PER = PER_WORD };                                                                 \
    template <bool LOW> static __device__ __forceinline__ unsigned int pick(unsigned int a,        \
                                                                            unsigned int b)        \
    {                                                                                              \
        unsigned int r;                                                                            \
        if constexpr (LOW)                                                                         \
            asm("min." PTX_TYPE " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                        \
        else                                                                                       \
            asm("max." PTX_TYPE " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                        \
        return r;                                                                                  \
    }

template <> struct lanes<cuspec_f16> {
    CUSPEC_LANES_OK("NaN.f16x2", 1)
    static __device__ __forceinline__ unsigned int split(unsigned int w, int)
    {
        return w;
    }
    static __device__ __forceinline__ float first(unsigned int w)
    {
        return elem<cuspec_f16>::val(cuspec_f16{(unsigned short)w});
    }
    static __device__ __forceinline__ float second(unsigned int w)
    {
        return elem<cuspec_f16>::val(cuspec_f16{(unsigned short)(w >> 16)});
    }
};
template <> struct lanes<cuspec_bf16> {
    CUSPEC_LANES_OK("NaN.bf16x2", 1)
    static __device__ __forceinline__ unsigned int split(unsigned int w, int)
    {
        return w;
    }
    static __device__ __forceinline__ float first(unsigned int w)
    {
        return __uint_as_float(w << 16);
    }
    static __device__ __forceinline__ float second(unsigned int w)
    {
        return __uint_as_float(w & 0xffff0000u);
    }
};
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Signed lanes as int, unsigned ones as unsigned int (elem<T>::V of every
// 8- and 16-bit integer); SELECT: prmt selectors of bytes 0 and 2, then 1
// and 3, each into a 16-bit lane, sign-extended (8 set) or zero-extended.
#define CUSPEC_LANES_INT(T, PTX_TYPE, PER_WORD, SIGNED, SELECT0, SELECT1)                          \
    template <> struct lanes<T> {                                                                  \
        CUSPEC_LANES_OK(PTX_TYPE, PER_WORD)                                                     \
        static __device__ __forceinline__ unsigned int split(unsigned int w, int k)                \
        {                                                                                          \
            if constexpr (PER_WORD == 1)                                                           \
                return w;                                                                          \
            unsigned int r;                                                                        \
            asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(w), "r"(k == 0 ? SELECT0 : SELECT1));    \
            return r;                                                                              \
        }                                                                                          \
        static __device__ __forceinline__ typename elem<T>::V first(unsigned int w)                \
        {                                                                                          \
            if constexpr (SIGNED)                                                                  \
                return (int)(short)(unsigned short)w;                                              \
            else                                                                                   \
                return w & 0xffffu;                                                                \
        }                                                                                          \
        static __device__ __forceinline__ typename elem<T>::V second(unsigned int w)               \
        {                                                                                          \
            if constexpr (SIGNED)                                                                  \
                return (int)w >> 16;                                                               \
            else                                                                                   \
                return w >> 16;                                                                    \
        }                                                                                          \
    };
CUSPEC_LANES_INT(short, "s16x2", 1, true, 0, 0)
CUSPEC_LANES_INT(unsigned short, "u16x2", 1, false, 0, 0)
CUSPEC_LANES_INT(signed char, "s16x2", 2, true, 0xA280, 0xB391)
CUSPEC_LANES_INT(unsigned char, "u16x2", 2, false, 0x4240, 0x4341)
#undef CUSPEC_LANES_INT
#endif
#undef CUSPEC_LANES_OK

// ---- argmin / argmax across a warp: redux (sm_80 and later) ----------------
// warp_arg<LOW>(a) for a.v of 32 bits (elem<T>::V of every type but the
// 64-bit ones) and a.i a 64-bit index, not negative, the empty one the
// largest: the warp's best in every lane, the same as combining pairwise
// (NaN first, then the better value, then the smaller index), in three
// redux.sync, a ballot and a shuffle instead of five levels of three
// shuffles and the combine's compares. Every lane of the warp calls it;
// only where arg_redux is true.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
enum : bool { arg_redux = true };
#else
enum : bool { arg_redux = false };
#endif

// A rank of 32 (64) bits for a value of 32 (64): a better value has the
// larger key, both zeros one key, NaN the largest of all (LOW: argmin or
// min, the smaller value is better). key_value is its inverse.
template <int BYTES> struct key_bits;
template <> struct key_bits<4> {
    typedef unsigned int type;
};
template <> struct key_bits<8> {
    typedef unsigned long long type;
};

template <bool LOW, typename X>
__device__ __forceinline__ typename key_bits<sizeof(X)>::type arg_key(X v)
{
    typedef typename key_bits<sizeof(X)>::type K;
    constexpr K TOP = (K)1 << (sizeof(K) * 8 - 1);
    K u;
    if constexpr (elem<X>::is_float) {
        if constexpr (sizeof(X) == 8)
            u = (K)__double_as_longlong(v);
        else
            u = __float_as_uint(v);
        u = (u << 1) == 0 ? TOP : (u & TOP) ? ~u : u | TOP;
    } else if constexpr (elem<X>::is_signed) {
        u = (K)v ^ TOP;
    } else {
        u = (K)v;
    }
    if constexpr (LOW)
        u = ~u;
    if constexpr (elem<X>::is_float)
        u = v != v ? ~(K)0 : u;
    return u;
}

// The value of key k; a zero's sign from `negative`, a NaN some NaN.
template <bool LOW, typename X>
__device__ __forceinline__ X key_value(typename key_bits<sizeof(X)>::type k, bool negative)
{
    typedef typename key_bits<sizeof(X)>::type K;
    constexpr K TOP = (K)1 << (sizeof(K) * 8 - 1);
    if constexpr (elem<X>::is_float) {
        K u;
        if (k == ~(K)0) {
            u = ~TOP;
        } else {
            if constexpr (LOW)
                k = ~k;
            u = k == TOP ? (negative ? TOP : 0) : (k & TOP) ? k & ~TOP : ~k;
        }
        if constexpr (sizeof(X) == 8)
            return __longlong_as_double((long long)u);
        else
            return __uint_as_float(u);
    } else {
        if constexpr (LOW)
            k = ~k;
        if constexpr (elem<X>::is_signed)
            return (X)(k ^ TOP);
        else
            return (X)k;
    }
}

template <bool MAX> __device__ __forceinline__ unsigned int redux(unsigned int x)
{
    unsigned int r;
    if constexpr (MAX)
        asm volatile("redux.sync.max.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(x));
    else
        asm volatile("redux.sync.min.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(x));
    return r;
}

// The best key; among its lanes the smallest index, high word then low
// word; that lane's value (the exact element: -0.0 stays -0.0).
template <bool LOW, typename A> __device__ __forceinline__ A warp_arg(A a)
{
    const unsigned int k = arg_key<LOW>(a.v);
    const unsigned long long i = (unsigned long long)a.i;
    const unsigned int ih = (unsigned int)(i >> 32), il = (unsigned int)i;
    const bool best = k == redux<true>(k);
    const unsigned int h = redux<false>(best ? ih : 0xffffffffu);
    const bool first = best && ih == h;
    const unsigned int l = redux<false>(first ? il : 0xffffffffu);
    const int from = __ffs(__ballot_sync(0xffffffffu, first && il == l)) - 1;
    A r = a;
    r.v = __shfl_sync(0xffffffffu, a.v, from);
    r.i = (decltype(a.i))(((unsigned long long)h << 32) | l);
    return r;
}

// Whether warp_arg serves accumulator A: a value v of 32 bits and an index
// i, on an arch with redux (sums' and min/max's accumulators have no index).
template <typename A, typename = void> struct warp_arg_fits {
    enum : bool { value = false };
};
template <typename A> struct warp_arg_fits<A, decltype((void)((A *)nullptr)->i)> {
    enum : bool { value = arg_redux && sizeof(((A *)nullptr)->v) == 4 };
};

} // namespace cuspec_reduce_detail

#endif // CUSPEC_REDUCE_TYPES_CUH_
