/*
 * cuspec transposes: what every transpose kernel shares.
 *
 * For b in [0, batch): out_b = in_b^T, where
 *   in_b  = in  + b*stride_in   is rows x cols, row-major, leading dim ld_in
 *   out_b = out + b*stride_out  is cols x rows, row-major, leading dim ld_out
 * i.e. out_b[j*ld_out + i] = in_b[i*ld_in + j] for i < rows, j < cols.
 * Nothing else in `out` is written (columns rows..ld_out-1 of each output
 * row and the gaps between batch entries stay untouched).  Elements are
 * opaque words: E is unsigned char, short, int or long long (S = sizeof(E)
 * = 1, 2, 4, 8), the unsigned type of the payload's size (float -> unsigned
 * int, double -> unsigned long long, half -> unsigned short).
 *
 * The kernels, one template each; NVRTC compiles a template with the files
 * it includes (this one and prior_grid.cuh) as headers, and an nvcc .cu can
 * #include it:
 *   transpose_tile.cuh             cuspec_transpose<E, TILE, ROWS, PAD, VEC, SH>
 *                                  through a shared tile
 *   transpose_shifted_subword.cuh  cuspec_transpose_shifted_subword<E, TILE, ROWS,
 *                                  PAD, VEC, WIDE>: 1- and 2-byte rows that start
 *                                  anywhere in a word, output rows shifted to sectors
 *   transpose_regs.cuh             cuspec_transpose_regs<E, TILE, ROWS, VEC>:
 *                                  16-byte squares in registers
 *   transpose_narrow.cuh           cuspec_transpose_narrow<E, NT, VEC>: at most 32
 *                                  rows or columns
 * Each takes (const E *in, E *out, rows, cols, ld_in, ld_out, stride_in,
 * stride_out), the six scalars unsigned long long (kernelParams[] entries
 * point to unsigned long long), strides and leading dimensions in ELEMENTS.
 * blockDim = (NT, 1, 1); sharedMemBytes = 0 (all shared memory is static);
 * any stream.
 *
 * LAUNCH (the tiled kernels: all but the narrow one)
 *   gridDim = (ceil((rows + XR) / TR), ceil(cols / TC), batch) exactly: one
 *   tile of TR input rows by TC columns per block (this_tile), XR the rows
 *   a shifted kernel reads before its tile.  Where the grid's x would pass
 *   2^31 - 1 or its y or z 65535, the host launches pieces: bands of whole
 *   tiles of rows or columns, runs of batch entries, each a transpose of its
 *   own with in and out moved to its first element.  rows, cols and batch
 *   are then unlimited (64-bit index math wherever products can pass 2^31).
 *   rows == 0 || cols == 0 || batch == 0: no launch.
 *
 * LEGALITY RULES THE HOST MUST ENFORCE (the kernels do not check them)
 *   R1  in and out are aligned to S bytes (always) and to VEC*S bytes.
 *   R2  ld_in % VEC == 0 and ld_out % VEC == 0.
 *   R3  if batch > 1: stride_in % VEC == 0 and stride_out % VEC == 0.
 *       (R1-R3 together: every vector address is VEC*S aligned.  With
 *       VEC == 1 there is no rule beyond natural alignment of E.)
 *   R4  ld_in >= cols, ld_out >= rows.  Output matrices must not overlap
 *       each other (batch > 1: stride_out >= (cols-1)*ld_out + rows), and
 *       the output must not overlap the input at all (out-of-place; the
 *       pointers are __restrict__).  Input matrices may overlap (read only).
 *   R5  each kernel's template rules (its static_asserts).
 *   rows and cols need NOT be multiples of a tile or of VEC: edge tiles are
 *   handled in the kernels.
 *
 * Measurements behind these kernels: docs/experiments/transpose.md.
 */
#ifndef CUSPEC_TRANSPOSE_COMMON_CUH
#define CUSPEC_TRANSPOSE_COMMON_CUH

#include "prior_grid.cuh"

namespace cuspec_transpose_detail
{

typedef unsigned long long u64;

/* ---- element types: only the four unsigned words are accepted ---------- */
/* Constants of explicit specializations are enumerators, not static
 * members: NVRTC emits such members as __device__ variables, and a module
 * with variables costs its load an allocation (docs/experiments/deploy.md). */
template <typename T> struct IsWord {
    enum : bool { value = false };
};
template <> struct IsWord<unsigned char> {
    enum : bool { value = true };
};
template <> struct IsWord<unsigned short> {
    enum : bool { value = true };
};
template <> struct IsWord<unsigned int> {
    enum : bool { value = true };
};
template <> struct IsWord<unsigned long long> {
    enum : bool { value = true };
};

template <int U> struct UnitT;
template <> struct UnitT<1> {
    typedef unsigned char T;
};
template <> struct UnitT<2> {
    typedef unsigned short T;
};
template <> struct UnitT<4> {
    typedef unsigned int T;
};
template <> struct UnitT<8> {
    typedef unsigned long long T;
};

/* The rules on E, TILE, ROWS, PAD and VEC that the shared-tile kernels
 * share (R5); their configurations derive from it and add their own. */
template <typename E, int TILE, int ROWS, int PAD, int VEC> struct TileRules {
    static_assert(IsWord<E>::value, "E must be unsigned char/short/int/long long");
    static_assert(TILE == 16 || TILE == 32 || TILE == 64 || TILE == 128,
                  "TILE must be 16, 32, 64 (or 128)");
    static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8 || VEC == 16,
                  "VEC must be 1,2,4,8,16");
    static_assert(VEC * sizeof(E) <= 16, "VEC*sizeof(E) must be <= 16");
    static_assert(TILE % VEC == 0, "TILE % VEC != 0");
    static_assert(PAD == 0 || PAD == 1, "PAD must be 0 or 1");
    static_assert(ROWS >= 1 && (ROWS & (ROWS - 1)) == 0, "ROWS must be a power of two");
};

/* ---- read-only loads with an L2 prefetch hint ----------------------------
 * ld.global.nc (the read-only path, as __ldg) with .L2::128B: the L2 fetches
 * the whole 128-byte line a load falls in (docs/experiments/transpose.md: "L2
 * prefetch hint").  PTX ISA 7.4, sm_75 and up. */
#ifdef __CUDA_ARCH__
#define CUSPEC_TR_LD(ty, reg, v, p)                                                                \
    asm("ld.global.nc.L2::128B." ty " %0, [%1];" : "=" reg(v) : "l"(p))
__device__ __forceinline__ unsigned ld_hint1(const void *p)
{
    unsigned short v;
    CUSPEC_TR_LD("u8", "h", v, p);
    return v & 0xffu;
}
__device__ __forceinline__ unsigned ld_hint2(const void *p)
{
    unsigned short v;
    CUSPEC_TR_LD("u16", "h", v, p);
    return v;
}
__device__ __forceinline__ unsigned ld_hint4(const void *p)
{
    unsigned v;
    CUSPEC_TR_LD("u32", "r", v, p);
    return v;
}
__device__ __forceinline__ uint2 ld_hint8(const void *p)
{
    uint2 v;
    asm("ld.global.nc.L2::128B.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    return v;
}
__device__ __forceinline__ uint4 ld_hint16(const void *p)
{
    uint4 v;
    asm("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
}
#undef CUSPEC_TR_LD
#else
__device__ __forceinline__ unsigned ld_hint1(const void *p)
{
    return *(const unsigned char *)p;
}
__device__ __forceinline__ unsigned ld_hint2(const void *p)
{
    return *(const unsigned short *)p;
}
__device__ __forceinline__ unsigned ld_hint4(const void *p)
{
    return *(const unsigned *)p;
}
__device__ __forceinline__ uint2 ld_hint8(const void *p)
{
    return *(const uint2 *)p;
}
__device__ __forceinline__ uint4 ld_hint16(const void *p)
{
    return *(const uint4 *)p;
}
#endif

/* ---- raw vector of B bytes held as NW 32-bit words ----------------------
 * Loads are the hinted read-only loads above.  8- and 16-byte stores are
 * inline PTX st.global.v2/v4: NVVM was seen to split a plain uint4 store
 * here into four 4-byte STGs, and __stwb compiles to STG.E.STRONG.SM.
 * (The #else branches are for CPU emulation only.) */
template <int B> struct Raw;
template <> struct Raw<1> {
    enum { NW = 1 };
    static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[1])
    {
        w[0] = ld_hint1(p);
    }
    static __device__ __forceinline__ void st(void *p, const unsigned (&w)[1])
    {
        *static_cast<unsigned char *>(p) = (unsigned char)w[0];
    }
};
template <> struct Raw<2> {
    enum { NW = 1 };
    static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[1])
    {
        w[0] = ld_hint2(p);
    }
    static __device__ __forceinline__ void st(void *p, const unsigned (&w)[1])
    {
        *static_cast<unsigned short *>(p) = (unsigned short)w[0];
    }
};
template <> struct Raw<4> {
    enum { NW = 1 };
    static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[1])
    {
        w[0] = ld_hint4(p);
    }
    static __device__ __forceinline__ void st(void *p, const unsigned (&w)[1])
    {
        *static_cast<unsigned int *>(p) = w[0];
    }
};
template <> struct Raw<8> {
    enum { NW = 2 };
    static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[2])
    {
        const uint2 v = ld_hint8(p);
        w[0] = v.x;
        w[1] = v.y;
    }
    static __device__ __forceinline__ void st(void *p, const unsigned (&w)[2])
    {
#ifdef __CUDA_ARCH__
        asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(w[0]), "r"(w[1]));
#else
        uint2 v;
        v.x = w[0];
        v.y = w[1];
        *static_cast<uint2 *>(p) = v;
#endif
    }
};
template <> struct Raw<16> {
    enum { NW = 4 };
    static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[4])
    {
        const uint4 v = ld_hint16(p);
        w[0] = v.x;
        w[1] = v.y;
        w[2] = v.z;
        w[3] = v.w;
    }
    static __device__ __forceinline__ void st(void *p, const unsigned (&w)[4])
    {
#ifdef __CUDA_ARCH__
        asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w[0]), "r"(w[1]),
                     "r"(w[2]), "r"(w[3]));
#else
        uint4 v;
        v.x = w[0];
        v.y = w[1];
        v.z = w[2];
        v.w = w[3];
        *static_cast<uint4 *>(p) = v;
#endif
    }
};

/* ---- element e (S bytes) of a little-endian word array ------------------ */
template <int S, int NW> __device__ __forceinline__ u64 get_elem(const unsigned (&w)[NW], int e)
{
    if constexpr (S == 8) {
        return (u64)w[2 * e] | ((u64)w[2 * e + 1] << 32);
    } else if constexpr (S == 4) {
        return w[e];
    } else {
        return (w[(e * S) / 4] >> (8 * ((e * S) % 4))) & ((1u << (8 * S)) - 1u);
    }
}
/* Bytes lo..hi-1 of a vector whose block is aligned to its size, as the
 * widest naturally aligned pieces (8, 4, 2, 1 bytes) that fit. */
template <int NW>
__device__ __forceinline__ void store_bytes(unsigned char *blk, int lo, int hi,
                                            const unsigned (&w)[NW])
{
    u64 l = w[0], h = 0;
    if constexpr (NW > 1)
        l |= (u64)w[1] << 32;
    if constexpr (NW > 2)
        h = (u64)w[2] | ((u64)w[3] << 32);
#pragma unroll 1
    for (int o = lo; o < hi;) {
        int n = 8;
        while (n > 1 && ((o & (n - 1)) != 0 || o + n > hi))
            n >>= 1;
        const u64 v = o >= 8   ? h >> (8 * (o - 8))
                      : o == 0 ? l
                               : (l >> (8 * o)) | (h << (64 - 8 * o));
        if (n == 8)
            *reinterpret_cast<u64 *>(blk + o) = v;
        else if (n == 4)
            *reinterpret_cast<unsigned *>(blk + o) = (unsigned)v;
        else if (n == 2)
            *reinterpret_cast<unsigned short *>(blk + o) = (unsigned short)v;
        else
            blk[o] = (unsigned char)v;
        o += n;
    }
}

/* ---- pack K rows of VEC elements into VEC units --------------------------
 * unit e = { row0[e], row1[e], ..., row(K-1)[e] }  (row m at byte m*S), i.e.
 * K consecutive elements of output row e. */
template <int S, int K, int VEC, int NW, typename Ut>
__device__ __forceinline__ void pack_units(const unsigned (&w)[K][NW], Ut (&u)[VEC])
{
    if constexpr (S == 1 && K == 4) {
        /* 4x4 byte transpose per word column: 8 PRMT per 4 units. */
#pragma unroll
        for (int i = 0; i < NW; ++i) {
            const unsigned a = w[0][i], b = w[1][i], c = w[2][i], d = w[3][i];
            const unsigned ab_lo = __byte_perm(a, b, 0x5140); /* a0 b0 a1 b1 */
            const unsigned cd_lo = __byte_perm(c, d, 0x5140); /* c0 d0 c1 d1 */
            const unsigned ab_hi = __byte_perm(a, b, 0x7362); /* a2 b2 a3 b3 */
            const unsigned cd_hi = __byte_perm(c, d, 0x7362); /* c2 d2 c3 d3 */
            u[4 * i + 0] = __byte_perm(ab_lo, cd_lo, 0x5410); /* a0 b0 c0 d0 */
            u[4 * i + 1] = __byte_perm(ab_lo, cd_lo, 0x7632); /* a1 b1 c1 d1 */
            u[4 * i + 2] = __byte_perm(ab_hi, cd_hi, 0x5410);
            u[4 * i + 3] = __byte_perm(ab_hi, cd_hi, 0x7632);
        }
    } else if constexpr (S == 2 && K == 2) {
#pragma unroll
        for (int i = 0; i < NW; ++i) {
            u[2 * i + 0] = __byte_perm(w[0][i], w[1][i], 0x5410); /* lo halves */
            u[2 * i + 1] = __byte_perm(w[0][i], w[1][i], 0x7632); /* hi halves */
        }
    } else {
        /* K == 1 (any S), or S == 1 && K == 2 (16-bit units). */
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            u64 v = 0;
#pragma unroll
            for (int m = 0; m < K; ++m)
                v |= get_elem<S>(w[m], e) << (8 * S * m);
            u[e] = (Ut)v;
        }
    }
}

/* This block's tile: tile row blockIdx.x of tile column blockIdx.y (tiles
 * of TR input rows by TC columns) in batch entry blockIdx.z.  Moves in and
 * out to the batch entry and gives the tile's first row r0 and column c0.
 * x varies fastest, so blocks running together take the tiles down a
 * column (docs/experiments/transpose.md: "Tiles numbered down the columns").
 * One tile per block and no loop: the host launches the exact grid, in
 * pieces where a grid dimension would overflow (docs/experiments/transpose.md:
 * "One tile per block").  Each block waits for the grid before it, then
 * lets the next one launch (prior_grid.cuh). */
template <int TR, int TC, typename In, typename Out>
__device__ __forceinline__ void this_tile(In &in, Out &out, u64 stride_in, u64 stride_out, u64 &r0,
                                          u64 &c0)
{
    CUSPEC_AFTER_PRIOR_GRID();
    CUSPEC_LET_NEXT_GRID(); /* grids of many waves: the next one starts in the last */
    in += blockIdx.z * stride_in;
    out += blockIdx.z * stride_out;
    r0 = blockIdx.x * (u64)TR;
    c0 = blockIdx.y * (u64)TC;
}

} /* namespace cuspec_transpose_detail */

#endif /* CUSPEC_TRANSPOSE_COMMON_CUH */
