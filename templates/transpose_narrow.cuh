/*
 * cuspec transpose of narrow matrices (see transpose_common.cuh):
 *
 *   template <typename E, int NT, int VEC>
 *   __global__ void cuspec_transpose_narrow(const E *in, E *out, rows, cols,
 *       ld_in, ld_out, stride_in, stride_out);
 *   e.g. "cuspec_transpose_narrow<unsigned int, 256, 4>"
 *
 * NT threads, for at most NMAX = 32 rows (or, with more rows, at most 32
 * columns) and a long other side N, where the tiled kernels' tiles would be
 * mostly empty (docs/experiments/transpose.md: "Narrow kernel").  Grid
 * (ceil(N / CH), 1, batch) with CH the chunk below.
 */
#ifndef CUSPEC_TRANSPOSE_NARROW_CUH
#define CUSPEC_TRANSPOSE_NARROW_CUH

#include "transpose_common.cuh"

namespace cuspec_transpose_detail
{

/* ---- the narrow kernel (cuspec_transpose_narrow) --------------------------
 * For matrices with at most NMAX rows (wide) or columns (tall) and a long
 * other side N, where the tiled kernels' tiles would be mostly empty.  R,
 * the narrow side, and N are read at run time.  A block takes a chunk of
 * CH elements along N, the largest power of two with R * CH * S <= SMEM,
 * held in shared memory as R planes of CH elements.  The "planar" side of
 * the transpose is R rows of the matrix (wide: the input's, tall: the
 * output's), moved as VEC-element vectors.  The "flat" side is CH records
 * of R elements (wide: the output's rows, tall: the input's): where its
 * leading dimension is R they are contiguous, and are moved as vectors too,
 * whose elements are gathered from (or scattered to) the planes one by one;
 * otherwise element by element.  The host launches ceil(N / CH) blocks by
 * the batch and enforces R1-R3 on both sides. */
template <typename E, int NT, int VEC> struct NCfg {
    enum : int { S = (int)sizeof(E) };
    enum : int { B = VEC * S };
    enum : int { NW = B >= 4 ? B / 4 : 1 };
    enum : int { LV = VEC >= 16 ? 4 : VEC >= 8 ? 3 : VEC >= 4 ? 2 : VEC >= 2 ? 1 : 0 };
    enum : int { SMEM = 32768 }; /* bytes of planes */
    enum : int { NMAX = 32 };    /* the narrow side, at most */
    enum : int { VEC_ = VEC };
    static_assert(IsWord<E>::value, "E must be unsigned char/short/int/long long");
    static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8 || VEC == 16,
                  "VEC must be 1,2,4,8,16");
    static_assert(B <= 16, "VEC*sizeof(E) must be <= 16");
    static_assert(NT % 32 == 0 && NT >= 32 && NT <= 1024, "NT must be whole warps, <= 1024");
    static_assert(SMEM / (S * NMAX) >= 32 * VEC, "a chunk must hold 32 vectors");
};

/* A B-byte vector in shared memory, as NW words. */
template <int B> struct Sh {
    enum : int { NW = B >= 4 ? B / 4 : 1 };
    static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[NW])
    {
        if constexpr (B == 16) {
            const uint4 v = *static_cast<const uint4 *>(p);
            w[0] = v.x;
            w[1] = v.y;
            w[2] = v.z;
            w[3] = v.w;
        } else if constexpr (B == 8) {
            const uint2 v = *static_cast<const uint2 *>(p);
            w[0] = v.x;
            w[1] = v.y;
        } else {
            w[0] = *static_cast<const typename UnitT<B>::T *>(p);
        }
    }
    static __device__ __forceinline__ void st(void *p, const unsigned (&w)[NW])
    {
        if constexpr (B == 16) {
            *static_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
        } else if constexpr (B == 8) {
            *static_cast<uint2 *>(p) = make_uint2(w[0], w[1]);
        } else {
            *static_cast<typename UnitT<B>::T *>(p) = (typename UnitT<B>::T)w[0];
        }
    }
};

/* Sets element e (S bytes) of a little-endian word array that starts zeroed. */
template <int S, int NW> __device__ __forceinline__ void put_elem(unsigned (&w)[NW], int e, u64 v)
{
    if constexpr (S == 8) {
        w[2 * e] = (unsigned)v;
        w[2 * e + 1] = (unsigned)(v >> 32);
    } else if constexpr (S == 4) {
        w[e] = (unsigned)v;
    } else {
        w[(e * S) / 4] |= (unsigned)v << (8 * ((e * S) % 4));
    }
}

/* The planar side: R rows of n elements at mat + i * ld, against plane i
 * (planes + i * 2^lg).  LOAD: matrix to planes, else planes to matrix. */
template <typename C, bool LOAD, typename E, typename M>
__device__ __forceinline__ void narrow_planar(E *planes, M *mat, u64 ld, unsigned R, int lg, u64 n)
{
    constexpr int VEC = C::VEC_, B = C::B;
    const int lgv = lg - C::LV; /* vectors per plane: 2^lgv */
    const unsigned total = R << lgv;
#pragma unroll 4
    for (unsigned f = threadIdx.x; f < total; f += blockDim.x) {
        const unsigned i = f >> lgv, j = (f & ((1u << lgv) - 1)) * VEC;
        if (j >= n)
            continue;
        E *pl = planes + ((size_t)i << lg) + j;
        M *m = mat + i * ld + j;
        if (j + VEC <= n) {
            unsigned w[C::NW];
            if constexpr (LOAD) {
                Raw<B>::ld(m, w);
                Sh<B>::st(pl, w);
            } else {
                Sh<B>::ld(pl, w);
                Raw<B>::st(m, w);
            }
        } else {
#pragma unroll 1
            for (unsigned e = 0; e < n - j; ++e) {
                if constexpr (LOAD)
                    pl[e] = __ldg(m + e);
                else
                    m[e] = pl[e];
            }
        }
    }
}

/* The flat side: n records of R elements at mat + j * ld, element i of
 * record j against plane i's element j. */
template <typename C, bool LOAD, typename E, typename M>
__device__ __forceinline__ void narrow_flat(E *planes, M *mat, u64 ld, unsigned R, int lg, u64 n)
{
    constexpr int VEC = C::VEC_, B = C::B, S = C::S;
    const unsigned total = (unsigned)n * R; /* <= SMEM / S */
    if (ld == R) {
#pragma unroll 2
        for (unsigned k = threadIdx.x * VEC; k < total; k += blockDim.x * VEC) {
            unsigned j = k / R, i = k % R;
            const unsigned cnt = total - k < (unsigned)VEC ? total - k : (unsigned)VEC;
            unsigned w[C::NW];
            if constexpr (LOAD) {
                if (cnt == VEC) {
                    Raw<B>::ld(mat + k, w);
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        planes[((size_t)i << lg) + j] = (E)get_elem<S>(w, e);
                        if (++i == R) {
                            i = 0;
                            ++j;
                        }
                    }
                } else {
#pragma unroll 1
                    for (unsigned e = 0; e < cnt; ++e) {
                        planes[((size_t)i << lg) + j] = __ldg(mat + k + e);
                        if (++i == R) {
                            i = 0;
                            ++j;
                        }
                    }
                }
            } else {
                if (cnt == VEC) {
#pragma unroll
                    for (int k2 = 0; k2 < C::NW; ++k2)
                        w[k2] = 0u;
#pragma unroll
                    for (int e = 0; e < VEC; ++e) {
                        put_elem<S>(w, e, planes[((size_t)i << lg) + j]);
                        if (++i == R) {
                            i = 0;
                            ++j;
                        }
                    }
                    Raw<B>::st(mat + k, w);
                } else {
#pragma unroll 1
                    for (unsigned e = 0; e < cnt; ++e) {
                        mat[k + e] = planes[((size_t)i << lg) + j];
                        if (++i == R) {
                            i = 0;
                            ++j;
                        }
                    }
                }
            }
        }
    } else {
#pragma unroll 4
        for (unsigned k = threadIdx.x; k < total; k += blockDim.x) {
            const unsigned j = k / R, i = k % R;
            if constexpr (LOAD)
                planes[((size_t)i << lg) + j] = __ldg(mat + j * ld + i);
            else
                mat[j * ld + i] = planes[((size_t)i << lg) + j];
        }
    }
}

} /* namespace cuspec_transpose_detail */

template <typename E, int NT, int VEC>
__global__ void __launch_bounds__(NT)
    cuspec_transpose_narrow(const E *__restrict__ in, E *__restrict__ out, unsigned long long rows,
                            unsigned long long cols, unsigned long long ld_in,
                            unsigned long long ld_out, unsigned long long stride_in,
                            unsigned long long stride_out)
{
    using namespace cuspec_transpose_detail;
    typedef NCfg<E, NT, VEC> C;
    __shared__ __align__(16) unsigned char smem[C::SMEM];
    E *planes = reinterpret_cast<E *>(smem);
    CUSPEC_AFTER_PRIOR_GRID();
    CUSPEC_LET_NEXT_GRID();
    in += blockIdx.z * stride_in;
    out += blockIdx.z * stride_out;
    const bool wide = rows <= (u64)C::NMAX;
    const unsigned R = (unsigned)(wide ? rows : cols);
    const u64 N = wide ? cols : rows;
    int lg = C::LV + 5; /* the chunk: the host computes the same */
    while ((2ull << lg) * R * C::S <= (u64)C::SMEM)
        ++lg;
    const u64 n0 = (u64)blockIdx.x << lg;
    const u64 n = N - n0 < (1ull << lg) ? N - n0 : (1ull << lg);
    if (wide) {
        narrow_planar<C, true>(planes, in + n0, ld_in, R, lg, n);
        __syncthreads();
        narrow_flat<C, false>(planes, out + n0 * ld_out, ld_out, R, lg, n);
    } else {
        narrow_flat<C, true>(planes, in + n0 * ld_in, ld_in, R, lg, n);
        __syncthreads();
        narrow_planar<C, false>(planes, out + n0, ld_out, R, lg, n);
    }
}

#endif /* CUSPEC_TRANSPOSE_NARROW_CUH */
