/*
 * cuspec transpose of 1- and 2-byte elements whose rows start anywhere in a
 * word, output rows shifted onto sectors (see transpose_common.cuh):
 *
 *   template <typename E, int TILE, int ROWS, int PAD, int VEC, int WIDE>
 *   __global__ void cuspec_transpose_shifted_subword(const E *in, E *out, rows,
 *       cols, ld_in, ld_out, stride_in, stride_out);
 *   e.g. "cuspec_transpose_shifted_subword<unsigned char, 128, 2, 1, 16, 0>"
 *
 * Input rows of bytes and halves that start anywhere in a word cannot be
 * read as vectors, so this kernel reads aligned words, realigns them with a
 * funnel shift (subword_tile), packs K = 4/S rows per 4-byte unit, and
 * writes VEC-element vectors with the write-side shift of transpose_tile.cuh
 * (SH): the shift makes every output vector aligned whatever ld_out is, and
 * a vector that starts at a unit's middle is put together with a funnel
 * shift.  So it needs none of R1-R3's vector alignment, only E's.  XR is a
 * whole sector (SE = 32/S rows) so that the tile holds whole units
 * (docs/experiments/transpose.md: "Shifted sub-word kernels").
 *
 * TEMPLATE PARAMETERS AND LEGAL VALUES (illegal ones fail a static_assert)
 *   E     unsigned char or unsigned short.
 *   TILE  16, 32, 64, 128 rows, TILE * S a multiple of 32; VEC 1..16 with
 *         VEC*S <= 16, a multiple of K, and TILE % (ROWS * VEC) == 0.
 *   WIDE  0 or 1: the tile has TC = TILE << WIDE columns
 *         (docs/experiments/transpose.md: "Wide tiles").
 *   PAD   0 or 1 (one unit per shared row); ROWS a power of two with
 *         (TILE / K) % ROWS == 0.
 * DERIVED: NT = TC * ROWS threads per block, XR = 32 / S, TR = TILE,
 *   SMEM = (TILE + XR) / K * (TC + PAD) * 4 bytes, within 48 KB.
 */
#ifndef CUSPEC_TRANSPOSE_SHIFTED_SUBWORD_CUH
#define CUSPEC_TRANSPOSE_SHIFTED_SUBWORD_CUH

#include "transpose_common.cuh"

namespace cuspec_transpose_detail
{

/* The constants of a shifted sub-word kernel (cf. Cfg in
 * transpose_tile.cuh): K = 4/S rows packed per 4-byte unit, a tile of TILE
 * rows by TC columns, and XR = SE rows read before it. */
template <typename E, int TILE, int ROWS, int PAD, int VEC, int WIDE>
struct SCfg : TileRules<E, TILE, ROWS, PAD, VEC> {
    enum : int { S = (int)sizeof(E) };
    enum : int { K = 4 / S };            /* rows packed per unit */
    enum : int { D = VEC / K };          /* units per output vector */
    enum : int { TC = TILE << WIDE };    /* tile columns */
    enum : int { NX = TILE / VEC };      /* threads along an output row segment */
    enum : int { NT = TC * ROWS };       /* threads per block */
    enum : int { SE = 32 / S };          /* elements per 32-byte sector */
    enum : int { XR = SE };              /* extra input rows read: a whole sector */
    enum : int { UR = (TILE + XR) / K }; /* unit rows in the shared tile */
    enum : int { RW = NT / NX };         /* output rows per write pass */
    enum : int { P = TC / RW };          /* output vectors per thread */
    enum : int { PADU = PAD };           /* pad, in units */
    enum : int { PU = TC + PADU };       /* shared row pitch, in units */
    enum : long long { SMEM = (long long)UR * PU * 4 };
    enum : int { VEC_ = VEC };
    enum : int { TILE_ = TILE };

    static_assert(S <= 2, "E must be unsigned char or unsigned short");
    static_assert((TILE / K) % ROWS == 0, "(TILE/K) % ROWS != 0  (K = 4/sizeof(E))");
    static_assert((TILE * S) % 32 == 0 && VEC % K == 0 && TILE % (ROWS * VEC) == 0,
                  "whole sectors per tile row, VEC a multiple of 4/S and TILE % (ROWS*VEC) == 0");
    static_assert(WIDE == 0 || WIDE == 1, "WIDE must be 0 or 1");
    static_assert(NT >= 1 && NT <= 1024, "threads per block must be in 1..1024");
    static_assert(SMEM <= 48 * 1024, "shared tile exceeds 48 KB");
};

/* The aligned word at w, or where it runs past `end`, only its bytes before
 * `end` (in its low bytes; the others zero). */
__device__ __forceinline__ unsigned ld_upto(const unsigned char *w, const unsigned char *end)
{
    if (w + 4 <= end)
        return ld_hint4(w);
    const unsigned n = (unsigned)(end - w); /* 1..3 */
    unsigned v = n & 2 ? ld_hint2(w) : 0u;
    if (n & 1)
        v |= ld_hint1(w + (n & 2)) << (8 * (n & 2));
    return v;
}

/* One tile.
 * Read: input rows may start anywhere in a word (odd ld_in), so thread x
 * of a tile row loads the x-th aligned 4-byte word from the word holding
 * the row's first element, takes the next word from lane x+1 (a shuffle;
 * the row's last lane loads it itself) and funnel-shifts the pair, which
 * gives it K = 4/S elements of the row.  It does that for K consecutive
 * rows and byte-permutes the K x K block into K units: unit e holds column
 * c0+Kx+e of the K rows, K consecutive elements of an output row.  The
 * warp's units go to shared memory in an order rotated per group of 32/K
 * lanes, so the stores meet 32 different banks.
 * Write: thread (wx, wy) of the TILE/VEC x ROWS*VEC grid takes VEC elements
 * of output row c0+jj from D+1 units, funnel-shifted where the row's shift
 * sh is not a multiple of K, and stores them as one vector: the shift puts
 * every output segment on a sector, so the vectors are aligned whatever
 * ld_out is.  MODE: 0 a tile inside the matrix, 1 an edge tile, 2 any
 * edge tile, with the checks for the matrix's last row.  Edge tiles load
 * only words that hold an element of the matrix, on its last row only the
 * bytes before its end, and store the part of a vector inside columns
 * [0, rows). */
template <typename C, typename E, int MODE>
__device__ __forceinline__ void
subword_tile(unsigned (&tile)[C::UR][C::PU], const E *__restrict__ inb, E *__restrict__ outb,
             u64 rows, u64 cols, u64 ld_in, u64 ld_out, u64 r0, u64 c0, unsigned tid)
{
    constexpr int S = C::S, K = C::K, VEC = C::VEC_, D = C::D, P = C::P;
    constexpr int TILE = C::TILE_, TC = C::TC, NX = C::NX, RW = C::RW, UR = C::UR;
    constexpr bool EDGE = MODE != 0;
    constexpr int NWR = TC / K;            /* words per tile row */
    constexpr int YQ = C::NT / NWR;        /* unit rows per pass */
    constexpr int GQ = (UR + YQ - 1) / YQ; /* passes */

    constexpr int LW = NWR < 32 ? NWR : 32; /* lanes that share a row */
    constexpr int NR = GQ * K;              /* input rows per thread */
    constexpr int NE = (NR + LW - 1) / LW;  /* words past the lanes' last */

    const unsigned x = tid % NWR, yq = tid / NWR, li = tid % LW;
    const u64 nbytes = (EDGE && cols - c0 < (u64)TC ? cols - c0 : (u64)TC) * S;
    const u64 ldb = ld_in * S; /* bytes from one input row to the next */
                               /* row i of this thread is input row r0 - XR + K*yq + ROW(i) */
#define CUSPEC_TR_ROW(i) ((i) / K * YQ * K + (i) % K)
    const unsigned char *p0 =
        reinterpret_cast<const unsigned char *>(inb + (r0 - C::XR + (u64)K * yq) * ld_in + c0);
    const u64 q0 = (u64)p0 + 4 * x; /* word x of row 0, plus the row's misalignment */
    /* lo[i]: word x of row i.  The word after the LW lanes' last, which only
     * lane LW-1 needs, is loaded for row i = li + LW*j by lane li into ex[j]:
     * one register per LW rows rather than one per row, and one load per lane
     * (predicated loads into one register would wait for each other).
     * MODE 2: the matrix's last row (this thread's row ROW(i) == dlast, if it
     * has it) is left out here and read below without the bytes past its end. */
    int dlast = -1;
    if constexpr (MODE == 2) {
        const long long d = (long long)(rows - 1 - (r0 - C::XR + (u64)K * yq)); /* mod 2^64 */
        dlast = d >= 0 && d < TILE + C::XR ? (int)d : -1;
    }
    unsigned lo[NR], ex[NE];
#pragma unroll
    for (int i = 0; i < NR; ++i) {
        const unsigned y = yq + i / K * YQ;
        const u64 r = r0 - C::XR + (u64)K * yq + CUSPEC_TR_ROW(i); /* may wrap below row 0 */
        const u64 q = q0 + CUSPEC_TR_ROW(i) * ldb;
        lo[i] = 0u;
        if ((UR % YQ == 0 || y < (unsigned)UR) && (!EDGE || r < rows) &&
            (!EDGE || 4 * x < q % 4 + nbytes) && (MODE != 2 || dlast != CUSPEC_TR_ROW(i)))
            lo[i] = ld_hint4(reinterpret_cast<const void *>(q & ~3ull));
    }
#pragma unroll
    for (int j = 0; j < NE; ++j) {
        const unsigned i = li + LW * j, y = yq + i / K * YQ;
        const u64 r = r0 - C::XR + (u64)K * yq + CUSPEC_TR_ROW(i);
        const unsigned char *row = p0 + CUSPEC_TR_ROW(i) * ldb;
        const unsigned mis = (unsigned)((unsigned long long)row % 4);
        const unsigned xe = x - li + LW;
        ex[j] = 0u;
        if ((NR % LW == 0 || i < (unsigned)NR) && (UR % YQ == 0 || y < (unsigned)UR) &&
            (!EDGE || r < rows) && mis != 0 && (!EDGE || 4 * xe < mis + nbytes)) {
            const unsigned char *w = row - mis + 4 * xe;
            ex[j] = MODE == 2 && r + 1 == rows ? ld_upto(w, row + (cols - c0) * S) : ld_hint4(w);
        }
    }
    if constexpr (MODE == 2) {
        /* Where the last row does not end on a word, the word that holds its
         * last byte runs past the matrix, maybe past its allocation: only the
         * bytes before the end are read.  (The hardware would read the whole
         * word, which lies in one page; memory checkers would count the bytes
         * past the allocation.) */
        if (dlast >= 0 && dlast % (K * YQ) < K) {
            const u64 q = q0 + (u64)dlast * ldb;
            const unsigned y = yq + dlast / (K * YQ) * YQ;
            unsigned v = 0u;
            if ((UR % YQ == 0 || y < (unsigned)UR) && 4 * x < q % 4 + nbytes)
                v = ld_upto(reinterpret_cast<const unsigned char *>(q & ~3ull),
                            reinterpret_cast<const unsigned char *>(q - 4 * x) + (cols - c0) * S);
#pragma unroll
            for (int i = 0; i < NR; ++i)
                if (dlast == CUSPEC_TR_ROW(i))
                    lo[i] = v;
        }
    }
    /* Bank spread: the lanes of a row store K units each, at columns K*x+e;
     * lanes 32/K apart would meet in one bank, so each group of 32/K lanes
     * rotates its K elements by rot before packing, and unit e then holds
     * column K*x + (e + rot) % K. */
    /* Row i's misalignment is that of row i % K: K * YQ = K * K * ROWS rows
     * apart are a multiple of 4 rows, which keeps every row's misalignment. */
    static_assert(K * YQ % 4 == 0, "rows K * YQ apart share their misalignment");
    unsigned shift[K];
#pragma unroll
    for (int m = 0; m < K; ++m)
        shift[m] = 8 * (unsigned)((q0 + (u64)m * ldb) % 4);
    const unsigned rot = (tid % 32) / (32 / K) % K;
    unsigned *const st0 = &tile[yq][0];
    unsigned col[K];
#pragma unroll
    for (int e = 0; e < K; ++e)
        col[e] = K * x + (e + rot) % K;
#pragma unroll
    for (int g = 0; g < GQ; ++g) {
        unsigned wr[K][1], u[K];
#pragma unroll
        for (int m = 0; m < K; ++m) {
            const int i = g * K + m;
            const unsigned next = __shfl_down_sync(0xffffffffu, lo[i], 1, LW);
            const unsigned after = __shfl_sync(0xffffffffu, ex[i / LW], i % LW, LW);
            const unsigned w = __funnelshift_r(lo[i], li == LW - 1 ? after : next, shift[m]);
            wr[m][0] = __funnelshift_r(w, w, 8 * S * rot);
        }
        pack_units<S, K, K, 1, unsigned>(wr, u);
        if (UR % YQ == 0 || yq + g * YQ < (unsigned)UR) {
#pragma unroll
            for (int e = 0; e < K; ++e)
                st0[g * YQ * C::PU + col[e]] = u[e];
        }
    }
#undef CUSPEC_TR_ROW
    __syncthreads();

    const unsigned wx = tid % NX, wy = tid / NX;
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const unsigned jj = wy + p * RW;
        E *orow = outb + (c0 + jj) * ld_out;
        const unsigned sh = (unsigned)(((unsigned long long)orow % 32) / S);
        const unsigned t0 = C::XR - sh + VEC * wx; /* first element row in the tile */
        const unsigned u0 = t0 / K, o = t0 % K;
        unsigned v[D + 1], ow[D];
#pragma unroll
        for (int q = 0; q <= D; ++q)
            v[q] = (q < D || o != 0) ? tile[u0 + q][jj] : 0u;
#pragma unroll
        for (int q = 0; q < D; ++q)
            ow[q] = __funnelshift_r(v[q], v[q + 1], 8 * S * o);
        const long long sc = (long long)r0 - (long long)sh + VEC * (long long)wx;
        E *dst = orow + sc;
        if constexpr (!EDGE) {
            Raw<VEC * S>::st(dst, ow);
        } else if (c0 + jj < cols) {
            const long long lo = sc < 0 ? -sc : 0;
            const long long left = (long long)rows - sc;
            const long long hi = left < VEC ? left : VEC;
            if (lo == 0 && hi == VEC)
                Raw<VEC * S>::st(dst, ow);
            else if (lo < hi)
                store_bytes<D>(reinterpret_cast<unsigned char *>(dst), (int)lo * S, (int)hi * S,
                               ow);
        }
    }
}

/* MODE 2 out of line (see the kernel). */
template <typename C, typename E>
__device__ __noinline__ void
subword_tile_last(unsigned (&tile)[C::UR][C::PU], const E *__restrict__ inb, E *__restrict__ outb,
                  u64 rows, u64 cols, u64 ld_in, u64 ld_out, u64 r0, u64 c0, unsigned tid)
{
    subword_tile<C, E, 2>(tile, inb, outb, rows, cols, ld_in, ld_out, r0, c0, tid);
}

} /* namespace cuspec_transpose_detail */

template <typename E, int TILE, int ROWS, int PAD, int VEC, int WIDE>
__global__ void __launch_bounds__(cuspec_transpose_detail::SCfg<E, TILE, ROWS, PAD, VEC, WIDE>::NT)
    cuspec_transpose_shifted_subword(const E *__restrict__ in, E *__restrict__ out,
                                     unsigned long long rows, unsigned long long cols,
                                     unsigned long long ld_in, unsigned long long ld_out,
                                     unsigned long long stride_in, unsigned long long stride_out)
{
    using namespace cuspec_transpose_detail;
    typedef SCfg<E, TILE, ROWS, PAD, VEC, WIDE> C;
    __shared__ unsigned tile[C::UR][C::PU];

    u64 r0, c0;
    this_tile<TILE, C::TC>(in, out, stride_in, stride_out, r0, c0);
    const bool inside = r0 >= (u64)C::XR && r0 + TILE <= rows && c0 + C::TC <= cols;
    /* The tiles with the matrix's last row take MODE 2; the paths are laid
     * out per element size as ptxas schedules the hot one (MODE 0) best
     * (docs/experiments/transpose.md: "Shifted sub-word paths"). */
    if constexpr (sizeof(E) == 1) {
        if (r0 + TILE >= rows)
            subword_tile_last<C, E>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
        else if (inside)
            subword_tile<C, E, 0>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
        else
            subword_tile<C, E, 1>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
    } else if (inside && r0 + TILE < rows) {
        subword_tile<C, E, 0>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
    } else {
        subword_tile<C, E, 2>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
    }
}

#endif /* CUSPEC_TRANSPOSE_SHIFTED_SUBWORD_CUH */
