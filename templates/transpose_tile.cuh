/*
 * cuspec transpose through a shared tile (see transpose_common.cuh):
 *
 *   template <typename E, int TILE, int ROWS, int PAD, int VEC, int SH>
 *   __global__ void cuspec_transpose(const E *in, E *out, rows, cols, ld_in,
 *                                    ld_out, stride_in, stride_out);
 *   e.g. "cuspec_transpose<unsigned int, 32, 8, 1, 1, 0>"
 *
 * TEMPLATE PARAMETERS AND LEGAL VALUES (illegal ones fail a static_assert)
 *   TILE  16, 32, 64; also 128 where the shared tile fits in 48 KB (S <= 2).
 *         Tile = TILE x TILE elements.
 *   VEC   1, 2, 4, 8, 16 with VEC*S <= 16 and TILE % VEC == 0.  Elements per
 *         vector access: a thread loads VEC consecutive elements of an input
 *         row and stores VEC consecutive elements of an output row.
 *   SH    0 or 1.  1 = shift each output row's segment so that it starts on
 *         a 32-byte sector (WRITE-SIDE SHIFT below); 4- and 8-byte elements
 *         only, with TILE * S a multiple of 32.
 *   PAD   0 or 1.  1 = pad every shared-tile row by PADU units (below) so
 *         column accesses spread over the banks.
 *   ROWS  tile rows covered per pass: a power of two with (TILE / K) % ROWS
 *         == 0, where K is the row-packing factor
 *             K = 1                      if S >= 4
 *             K = min(VEC, 4 / S)        if S <= 2   (1-, 2- or 4-way)
 *         and NT = (TILE / VEC) * ROWS in 1..1024 (whole warps recommended:
 *         the bank-conflict-avoiding lane mapping below needs them).  Each
 *         thread loads TILE/ROWS vectors (all issued before first use) and
 *         stores TILE/ROWS vectors.
 *
 * DERIVED CONSTANTS (what the C catalogue needs)
 *   U    = K*S bytes per shared "unit" (1, 2, 4 or 8)
 *   NT   = (TILE / VEC) * ROWS                        threads per block
 *   PADU = PAD ? (U >= 4 ? 1 : 4 / U) : 0             pad, in units
 *   XR   = SH ? 32 / S - 1 : 0                        extra input rows
 *   SMEM = (TILE + XR) / K * (TILE + PADU) * U        bytes of static shared
 *        memory; the host keeps it within 48 KB (SH = 1, S = 8, TILE = 64,
 *        PAD = 1: 34,840 B).
 *   Launch (transpose_common.cuh): TR = TC = TILE.
 *   Registers: whatever ptxas picks under __launch_bounds__(NT), no
 *   min-blocks (docs/experiments/transpose.md: "Launch bounds without
 *   min-blocks").
 *
 * WRITE-SIDE SHIFT (SH = 1)
 *   When output rows do not start on 32-byte sectors (an odd ld_out), a
 *   TILE-wide segment of an output row covers parts of two sectors at each
 *   end, which the neighbouring block also writes, and those partial
 *   sectors cost about a third of the bandwidth (docs/experiments/transpose.md:
 *   "Write-side shift").  With SH the block writes output row j's elements
 *   [r0 - sh_j, r0 - sh_j + TILE), sh_j = (row j's offset in its sector) / S
 *   < SE = 32 / S, so every segment is whole sectors; it reads the XR = SE-1
 *   input rows before r0 as well, and the tiles along the rows number
 *   ceil((rows + XR) / TILE).  Input rows need no such care: partial
 *   sectors on reads cost almost nothing.
 *
 * EDGE HANDLING
 *   Each tile is classified (block-uniform branch) as interior (fully inside
 *   rows x cols) or edge.  Interior tiles run with no per-element checks.
 *   Edge tiles check every row/column: a vector that is fully inside is
 *   still accessed as one vector; a vector that straddles the right edge
 *   (input) or bottom edge (output row end, i.e. i >= rows) is split into
 *   scalar element accesses of the valid elements only.  Rules R1-R3 make
 *   every vector start aligned, so VEC only needs those rules.
 *
 * DESIGN
 *   * Read phase: thread (x, y) of the TILE/VEC x ROWS grid loads VEC
 *     consecutive elements (one 1..16-byte vector) of an input row; all
 *     TILE/ROWS loads of a thread are issued before any is used, so each
 *     thread keeps several independent 16-byte loads in flight.
 *   * Sub-word elements (S = 1, 2) are packed in registers before they go to
 *     shared memory: a thread loads K rows at the same columns and byte-
 *     permutes them (PRMT) so that each 32-bit "unit" holds the K elements
 *     of ONE input column from K consecutive input rows -- which are K
 *     consecutive elements of an OUTPUT row.  The shared tile is therefore a
 *     (TILE/K) x TILE array of 4-byte units (8-byte for S = 8) and all
 *     shared traffic is in whole 32/64-bit words, never single bytes.
 *   * Write phase: thread (x, y) writes VEC consecutive elements of an output
 *     row = D = VEC/K units read down one column of the shared tile, stored
 *     as one vector.  So 1- and 2-byte types also get 16-byte stores.
 *   * Banks: PAD=1 makes the row pitch TILE+1 words (== 1 mod 32 for TILE >=
 *     32).  Which threads share a warp is chosen per phase at compile time
 *     (cuspec_tr_pick_wx): among warp footprints of WX x (32/WX) threads
 *     that keep >= 32 contiguous bytes per row per warp access (full
 *     sectors), take the one with the fewest bank conflicts, computed by a
 *     constexpr model of the addresses.  E.g. f32 TILE=64 VEC=4 uses 8x4
 *     warps (conflict-free) instead of 16x2 (2-way).
 */
#ifndef CUSPEC_TRANSPOSE_TILE_CUH
#define CUSPEC_TRANSPOSE_TILE_CUH

#include "transpose_common.cuh"

namespace cuspec_transpose_detail
{

/* ---- partial vectors at the right/bottom edge ----------------------------
 * load_partial: only the first n (1..VEC-1) elements are valid.  store_bytes
 * (transpose_common.cuh): only bytes lo..hi-1.  Deliberately rolled loops with shift
 * accumulators: unrolled scalar accesses would all be hoisted
 * and keep up to 64 loaded bytes in separate registers, raising the register
 * count of the whole kernel (interior tiles included).  Edge vectors are
 * rare, so their speed does not matter. */
template <typename E, int NW>
__device__ __forceinline__ void load_partial(const E *p, int n, unsigned (&w)[NW])
{
    constexpr int S = (int)sizeof(E);
    u64 lo = 0, hi = 0;
#pragma unroll 1
    for (int e = 0; e < n; ++e) {
        const u64 v = (u64)__ldg(p + e);
        const int bit = 8 * S * e;
        if (bit < 64)
            lo |= v << bit;
        else
            hi |= v << (bit - 64);
    }
#pragma unroll
    for (int k = 0; k < NW; ++k)
        w[k] = (unsigned)((k < 2 ? lo : hi) >> (32 * (k & 1)));
}

/* ---- D units -> the output vector's words -------------------------------- */
template <int U, int D, int NW, typename Ut>
__device__ __forceinline__ void unpack_units(const Ut (&v)[D], unsigned (&w)[NW])
{
    if constexpr (U >= 4) {
#pragma unroll
        for (int q = 0; q < D; ++q)
#pragma unroll
            for (int k = 0; k < U / 4; ++k)
                w[q * (U / 4) + k] = (unsigned)((u64)v[q] >> (32 * k));
    } else {
        static_assert(D == 1 && NW == 1, "sub-word units come one per vector");
        w[0] = (unsigned)v[0];
    }
}

/* ---- compile-time bank-conflict model -------------------------------------
 * A warp of WX x (32/WX) lanes; lane (lx, ly) touches shared unit
 * sx*lx + sy*ly (plus a warp-uniform offset).  Returns the worst number of
 * distinct 32-bit words any bank must serve = shared wavefronts needed. */
__host__ __device__ constexpr int cuspec_tr_bank_cost(int WX, int sx, int sy, int U)
{
    int words[64] = {};
    int n = 0;
    const int WY = 32 / WX;
    const int nw = U >= 4 ? U / 4 : 1;
    for (int ly = 0; ly < WY; ++ly)
        for (int lx = 0; lx < WX; ++lx) {
            const long long byte = ((long long)sx * lx + (long long)sy * ly) * U;
            for (int k = 0; k < nw; ++k)
                words[n++] = (int)(byte / 4) + k;
        }
    int worst = 0;
    for (int b = 0; b < 32; ++b) {
        int cnt = 0;
        for (int i = 0; i < n; ++i) {
            if (words[i] % 32 != b)
                continue;
            bool dup = false;
            for (int j = 0; j < i; ++j)
                if (words[j] == words[i]) {
                    dup = true;
                    break;
                }
            if (!dup)
                ++cnt;
        }
        if (cnt > worst)
            worst = cnt;
    }
    return worst;
}

/* Threads per row of a warp's footprint (power of two, <= min(NX, 32)).
 * Natural layout (tid = x + NX*y) is WX = min(NX, 32).  A smaller WX is
 * taken only if it has strictly fewer bank conflicts, keeps >= 32 bytes
 * (a full sector) per row per warp access, and tiles the block exactly. */
__host__ __device__ constexpr int cuspec_tr_pick_wx(int NX, int ROWS, int NT, int bytes_per_thread,
                                                    int sx, int sy, int U)
{
    const int natural = NX < 32 ? NX : 32;
    if (NT % 32 != 0)
        return natural;
    int best = natural;
    int best_cost = cuspec_tr_bank_cost(natural, sx, sy, U);
    for (int wx = natural / 2; wx >= 1; wx /= 2) {
        if (ROWS % (32 / wx) != 0)
            continue;
        if (wx * bytes_per_thread < 32)
            continue;
        const int c = cuspec_tr_bank_cost(wx, sx, sy, U);
        if (c < best_cost) {
            best = wx;
            best_cost = c;
        }
    }
    return best;
}
template <typename E, int TILE, int ROWS, int PAD, int VEC, int SH>
struct Cfg : TileRules<E, TILE, ROWS, PAD, VEC> {
    enum : int { S = (int)sizeof(E) };
    enum : int { K = S >= 4 ? 1 : (VEC < 4 / S ? VEC : 4 / S) };
    enum : int { U = K * S };
    enum : int { D = VEC / K }; /* units per output vector */
    enum : int { B = VEC * S }; /* bytes per vector access */
    enum : int { NW = B >= 4 ? B / 4 : 1 };
    enum : int { TC = TILE };                  /* tile columns */
    enum : int { NX = TILE / VEC };            /* threads along a tile row */
    enum : int { NT = NX * ROWS };             /* threads per block */
    enum : int { SE = 32 / S };                /* elements per 32-byte sector */
    enum : int { XR = SH ? SE - 1 : 0 };       /* extra input rows read (SH) */
    enum : int { UR = (TILE + XR) / K };       /* unit rows in the shared tile */
    enum : int { G = (UR + ROWS - 1) / ROWS }; /* unit-row groups per thread */
    enum : int { RW = ROWS };                  /* output rows per write pass */
    enum : int { P = TC / RW };                /* output vectors per thread */
    enum : int { PADU = PAD ? (U >= 4 ? 1 : 4 / U) : 0 };
    enum : int { PU = TC + PADU }; /* shared row pitch, in units */
    enum : long long { SMEM = (long long)UR * PU * U };
    enum : int { VEC_ = VEC };
    enum : int { ROWS_ = ROWS };
    enum : int { TILE_ = TILE };
    typedef typename UnitT<U>::T Ut;

    static_assert((TILE / K) % ROWS == 0, "(TILE/K) % ROWS != 0  (K = row packing factor)");
    static_assert(SH == 0 || (SH == 1 && S >= 4 && (TILE * S) % 32 == 0),
                  "SH must be 0, or 1 for 4- and 8-byte elements with whole sectors per tile row "
                  "(shifted 1- and 2-byte elements: cuspec_transpose_shifted_subword)");
    static_assert(NT >= 1 && NT <= 1024, "threads per block must be in 1..1024");
    static_assert(SMEM <= 48 * 1024, "shared tile exceeds 48 KB (TILE=128 needs sizeof(E) <= 2)");

    /* Whether unit row y + g*ROWS of the read phase is in the tile: only the
     * last group can run past it, where XR rows were added. */
    static __device__ __forceinline__ bool in_tile(int g, unsigned y)
    {
        return UR % ROWS == 0 || g + 1 < G || y + g * ROWS < (unsigned)UR;
    }

    /* read phase: lane (lx,ly) stores unit ly*PU + VEC*lx (+e) */
    enum : int { WXR = cuspec_tr_pick_wx(NX, ROWS, NT, B, VEC, PU, U) };
    /* write phase: lane (lx,ly) loads unit (D*lx)*PU + ly (+q*PU) */
    enum : int { WXW = cuspec_tr_pick_wx(NX, ROWS, NT, B, (D * PU), 1, U) };
};

/* tid -> (x, y) on the NX x ROWS thread grid with warps of WX x (32/WX). */
template <int NX, int WX>
__device__ __forceinline__ void map_thread(unsigned tid, unsigned &x, unsigned &y)
{
    if constexpr (WX >= NX || WX >= 32) {
        x = tid % NX;
        y = tid / NX;
    } else {
        const unsigned w = tid / 32, l = tid % 32;
        const unsigned xb = w % (NX / WX), yb = w / (NX / WX);
        x = xb * WX + l % WX;
        y = yb * (32 / WX) + l / WX;
    }
}

/* One TILE x TILE tile.  EDGE = some row or column of the tile is outside
 * the matrix (block-uniform). */
template <typename C, typename E, bool EDGE>
__device__ __forceinline__ void
tile_xpose(typename C::Ut (&tile)[C::UR][C::PU], const E *__restrict__ inb, E *__restrict__ outb,
           u64 rows, u64 cols, u64 ld_in, u64 ld_out, u64 r0, u64 c0, unsigned rx, unsigned ry,
           unsigned wx, unsigned wy)
{
    typedef typename C::Ut Ut;
    constexpr int S = C::S, K = C::K, VEC = C::VEC_, NW = C::NW, G = C::G, D = C::D, P = C::P;
    constexpr int ROWS = C::ROWS_;

    /* ---- read phase: all G*K = TILE/ROWS loads first ---- */
    const u64 cc = c0 + (u64)(VEC * rx);          /* first column of my vector */
    const u64 rbase = r0 - C::XR + (u64)(K * ry); /* my first input row (may wrap: SH) */
    const E *p0 = inb + rbase * ld_in + cc;
    unsigned w[G][K][NW];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int m = 0; m < K; ++m) {
            const E *p = p0 + (u64)(K * ROWS * g + m) * ld_in;
            if constexpr (!EDGE) {
                if (C::in_tile(g, ry))
                    Raw<C::B>::ld(p, w[g][m]);
            } else {
#pragma unroll
                for (int k = 0; k < NW; ++k)
                    w[g][m][k] = 0u;
                if (C::in_tile(g, ry) && rbase + (u64)(K * ROWS * g + m) < rows) {
                    if constexpr (VEC == 1) {
                        if (cc < cols)
                            Raw<C::B>::ld(p, w[g][m]);
                    } else {
                        if (cc + VEC <= cols)
                            Raw<C::B>::ld(p, w[g][m]);
                        else if (cc < cols)
                            load_partial<E>(p, (int)(cols - cc), w[g][m]);
                    }
                }
            }
        }
#pragma unroll
    for (int g = 0; g < G; ++g) {
        Ut u[VEC];
        pack_units<S, K, VEC, NW, Ut>(w[g], u);
        if (C::in_tile(g, ry)) {
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                tile[ry + g * ROWS][VEC * rx + e] = u[e];
        }
    }
    __syncthreads();

    /* ---- write phase: output row c0+jj, output columns oc .. oc+VEC-1 ----
     * SH: each output row's segment starts sh = (its offset in a 32-byte
     * sector) elements before r0, so the block writes whole sectors: the
     * segments of neighbouring blocks never share one, and L2 never merges
     * partial sectors.  sh < SE, and the shared tile holds XR = SE-1 rows
     * from before r0 for it.  sh is a multiple of VEC (the host's R1, R2). */
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const unsigned jj = wy + p * ROWS;
        E *orow = outb + (c0 + jj) * ld_out;
        const unsigned sh = C::XR ? (unsigned)(((unsigned long long)orow % 32) / S) : 0u;
        const u64 oc = r0 + (u64)(VEC * wx) - sh; /* wraps below column 0: skipped */
        Ut v[D];
#pragma unroll
        for (int q = 0; q < D; ++q)
            v[q] = tile[D * wx + q + C::XR - sh][jj];
        unsigned ow[NW];
        unpack_units<C::U, D, NW, Ut>(v, ow);
        E *q = orow + oc;
        if constexpr (!EDGE) {
            Raw<C::B>::st(q, ow);
        } else {
            if (c0 + jj < cols && oc < rows) {
                if (VEC == 1 || oc + VEC <= rows)
                    Raw<C::B>::st(q, ow);
                else
                    store_bytes<NW>(reinterpret_cast<unsigned char *>(q), 0, (int)(rows - oc) * S,
                                    ow);
            }
        }
    }
}
} /* namespace cuspec_transpose_detail */

template <typename E, int TILE, int ROWS, int PAD, int VEC, int SH>
__global__ void __launch_bounds__(cuspec_transpose_detail::Cfg<E, TILE, ROWS, PAD, VEC, SH>::NT)
    cuspec_transpose(const E *__restrict__ in, E *__restrict__ out, unsigned long long rows,
                     unsigned long long cols, unsigned long long ld_in, unsigned long long ld_out,
                     unsigned long long stride_in, unsigned long long stride_out)
{
    using namespace cuspec_transpose_detail;
    typedef Cfg<E, TILE, ROWS, PAD, VEC, SH> C;
    __shared__ typename C::Ut tile[C::UR][C::PU];

    unsigned rx, ry, wx, wy;
    map_thread<C::NX, C::WXR>(threadIdx.x, rx, ry);
    map_thread<C::NX, C::WXW>(threadIdx.x, wx, wy);

    u64 r0, c0;
    this_tile<TILE, C::TC>(in, out, stride_in, stride_out, r0, c0);
    const bool inside = (C::XR == 0 || r0 >= (u64)C::XR) && r0 + TILE <= rows && c0 + C::TC <= cols;
    if (inside) {
        tile_xpose<C, E, false>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, rx, ry, wx, wy);
    } else {
        tile_xpose<C, E, true>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, rx, ry, wx, wy);
    }
}

#endif /* CUSPEC_TRANSPOSE_TILE_CUH */
