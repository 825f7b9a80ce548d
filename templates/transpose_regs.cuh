/*
 * cuspec transpose in registers (see transpose_common.cuh):
 *
 *   template <typename E, int TILE, int ROWS, int VEC>
 *   __global__ void cuspec_transpose_regs(const E *in, E *out, rows, cols,
 *       ld_in, ld_out, stride_in, stride_out);
 *   e.g. "cuspec_transpose_regs<unsigned char, 256, 1, 16>"
 *
 * No shared memory: each thread loads VEC rows of VEC elements (16 bytes
 * each), transposes that square in registers (pack_units) and stores VEC
 * output rows of VEC elements.  Warps are WX = 4 by WY = 8 lanes, so a warp
 * reads 64-byte pieces of input rows and writes 128-byte pieces of output
 * rows (whole sectors both ways); a block is TILE / (WX * VEC) warps across
 * and ROWS warps down, so its tile is TC = TILE columns by TR = ROWS * WY *
 * VEC rows, NT = TILE / (WX * VEC) * ROWS * 32 threads.  For 1- and 2-byte
 * elements with VEC * S = 16; the host enforces R1-R4 and takes this
 * kernel only where the matrix's edge cuts none of its squares, which go
 * element by element (docs/experiments/transpose.md: "Register kernel").
 * Rows that start anywhere in a word need the shifted sub-word kernel.
 */
#ifndef CUSPEC_TRANSPOSE_REGS_CUH
#define CUSPEC_TRANSPOSE_REGS_CUH

#include "transpose_common.cuh"

namespace cuspec_transpose_detail
{

template <typename E, int TILE, int ROWS, int VEC> struct RCfg {
    enum : int { S = (int)sizeof(E) };
    enum : int { K = 4 / S };   /* rows packed per word */
    enum : int { B = VEC * S }; /* bytes per vector access */
    enum : int { NW = B / 4 };
    enum : int { WX = 4 }; /* lanes along an input row: 64 bytes */
    enum : int { WY = 8 };
    enum : int { BX = TILE / (WX * VEC) }; /* warps along the tile's rows */
    enum : int { TR = ROWS * WY * VEC };   /* tile rows */
    enum : int { NT = BX * ROWS * 32 };
    static_assert(IsWord<E>::value && S <= 2, "the register kernel takes 1- and 2-byte elements");
    static_assert(B == 16, "the register kernel moves 16-byte vectors (VEC = 16 / sizeof(E))");
    static_assert(TILE % (WX * VEC) == 0 && TILE <= 256,
                  "TILE must be a multiple of 64 bytes, <= 256");
    static_assert(ROWS >= 1 && (ROWS & (ROWS - 1)) == 0, "ROWS must be a power of two");
    static_assert(NT <= 1024, "threads per block must be <= 1024");
};

/* The VEC x VEC square at p (input) to q (output). */
template <typename C, typename E>
__device__ __forceinline__ void square_regs(const E *__restrict__ p, E *__restrict__ q, u64 ld_in,
                                            u64 ld_out)
{
    constexpr int VEC = C::B / C::S;
    unsigned w[VEC / C::K][C::K][C::NW];
#pragma unroll
    for (int r = 0; r < VEC; ++r)
        Raw<C::B>::ld(p + r * ld_in, w[r / C::K][r % C::K]);
    unsigned o[VEC][C::NW];
#pragma unroll
    for (int g = 0; g < VEC / C::K; ++g) {
        unsigned u[VEC];
        pack_units<C::S, C::K, VEC, C::NW, unsigned>(w[g], u);
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            o[e][g] = u[e];
    }
#pragma unroll
    for (int e = 0; e < VEC; ++e)
        Raw<C::B>::st(q + e * ld_out, o[e]);
}

} /* namespace cuspec_transpose_detail */

template <typename E, int TILE, int ROWS, int VEC>
__global__ void __launch_bounds__(cuspec_transpose_detail::RCfg<E, TILE, ROWS, VEC>::NT)
    cuspec_transpose_regs(const E *__restrict__ in, E *__restrict__ out, unsigned long long rows,
                          unsigned long long cols, unsigned long long ld_in,
                          unsigned long long ld_out, unsigned long long stride_in,
                          unsigned long long stride_out)
{
    using namespace cuspec_transpose_detail;
    typedef RCfg<E, TILE, ROWS, VEC> C;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned tx = (warp % C::BX) * C::WX + lane % C::WX;
    const unsigned ty = (warp / C::BX) * C::WY + lane / C::WX;
    u64 r0, c0;
    this_tile<C::TR, TILE>(in, out, stride_in, stride_out, r0, c0);
    const u64 r = r0 + ty * VEC, c = c0 + tx * VEC;
    if (r + VEC <= rows && c + VEC <= cols) {
        square_regs<C, E>(in + r * ld_in + c, out + c * ld_out + r, ld_in, ld_out);
    } else if (r < rows && c < cols) { /* a square cut by the edge: element by element */
        const int nr = rows - r < VEC ? (int)(rows - r) : VEC;
        const int nc = cols - c < VEC ? (int)(cols - c) : VEC;
#pragma unroll 1
        for (int i = 0; i < nr; ++i)
#pragma unroll 1
            for (int j = 0; j < nc; ++j)
                out[(c + j) * ld_out + r + i] = in[(r + i) * ld_in + c + j];
    }
}

#endif /* CUSPEC_TRANSPOSE_REGS_CUH */
