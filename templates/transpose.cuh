/*
 * cuspec transpose kernel template (out-of-place, batched, any shape).
 *
 * CUDA C++17 with one #include, prior_grid.cuh beside it, so NVRTC can
 * compile this file given that header (-std=c++17 --gpu-architecture=sm_XY
 * or compute_75) and an nvcc .cu can #include it.  Only builtins (vector
 * types, __ldg, __byte_perm, __syncthreads) and inline PTX are used.
 * What was measured for it, kept and dropped: docs/experiments/transpose.md
 * (cited below by entry).
 *
 * ---------------------------------------------------------------------------
 * WHAT IT COMPUTES
 *   For b in [0, batch):  out_b = in_b^T, where
 *     in_b  = in  + b*stride_in   is rows x cols, row-major, leading dim ld_in
 *     out_b = out + b*stride_out  is cols x rows, row-major, leading dim ld_out
 *   i.e. out_b[j*ld_out + i] = in_b[i*ld_in + j] for i < rows, j < cols.
 *   Nothing else in `out` is written (columns rows..ld_out-1 of each output
 *   row and the gaps between batch entries stay untouched).
 *   Elements are opaque words; nothing is computed on them.
 *
 * ENTRY POINT (NVRTC name expression, e.g.
 *   "cuspec_transpose<unsigned int, 32, 8, 1, 1, 0>")
 *
 *   template <typename E, int TILE, int ROWS, int PAD, int VEC, int SH, int WIDE = 0>
 *   __global__ void cuspec_transpose(const E *in, E *out,
 *       unsigned long long rows,      unsigned long long cols,
 *       unsigned long long ld_in,     unsigned long long ld_out,
 *       unsigned long long stride_in, unsigned long long stride_out);
 *
 *   template <typename E, int TILE, int ROWS, int VEC>
 *   __global__ void cuspec_transpose_regs(...same parameters...);
 *     The register kernel (see the end of the file): no shared memory, for
 *     1- and 2-byte elements with VEC * S = 16; the host enforces R1-R4.
 *
 *   template <typename E, int NT, int VEC>
 *   __global__ void cuspec_transpose_narrow(...same parameters...);
 *     The narrow kernel (see the end of the file): NT threads, for at most
 *     32 rows (or, with more rows, at most 32 columns) and a long other
 *     side; grid (ceil(N / CH), 1, batch) with CH as it says.
 *
 *   All six scalar parameters are 8-byte unsigned (kernelParams[] entries
 *   point to unsigned long long).  Strides/lds are in ELEMENTS.  The batch
 *   count is the grid's z dimension (below).
 *
 * TEMPLATE PARAMETERS AND LEGAL VALUES (illegal ones fail a static_assert)
 *   E     unsigned char | unsigned short | unsigned int | unsigned long long
 *         (S = sizeof(E) = 1, 2, 4, 8).  Use the unsigned type of the right
 *         size for any payload (float -> unsigned int, double/complex<float>
 *         -> unsigned long long, half -> unsigned short).
 *   TILE  16, 32, 64; also 128 as an extension where the shared tile fits in
 *         48 KB (i.e. S <= 2).  Tile = TILE x TILE elements.
 *   VEC   1, 2, 4, 8, 16 with VEC*S <= 16 and TILE % VEC == 0.  Elements per
 *         vector access: a thread loads VEC consecutive elements of an input
 *         row and stores VEC consecutive elements of an output row.
 *   SH    0 or 1.  1 = shift each output row's segment so that it starts on
 *         a 32-byte sector (see WRITE-SIDE SHIFT below).  Needs TILE * S a
 *         multiple of 32.  For S <= 2 it changes the kernel (PK, below):
 *         VEC must be a multiple of 4/S, TILE % (ROWS * VEC) == 0, and the
 *         block has NT = TC * ROWS threads (TC: WIDE, below).
 *   WIDE  0 or 1 (1 only for PK, below): the tile has TC = TILE << WIDE
 *         columns (TILE rows) (docs/experiments/transpose.md: "Wide tiles").
 *   PAD   0 or 1.  1 = pad every shared-tile row by PADU units (see below)
 *         so column accesses spread over the banks; 0 = no padding.
 *   ROWS  tile rows covered per pass.  Must be a power of two with
 *         (TILE / K) % ROWS == 0, where K is the row-packing factor
 *             K = 1                      if S >= 4
 *             K = min(VEC, 4 / S)        if S <= 2   (1-, 2- or 4-way)
 *             K = 4 / S                  if S <= 2 and SH (PK)
 *         (so ROWS <= TILE/K) and NT = (TILE / VEC) * ROWS must satisfy
 *         1 <= NT <= 1024.
 *         Each thread loads TILE/ROWS vectors (all issued before first use)
 *         and stores TILE/ROWS vectors.  Recommended: NT a multiple of 32
 *         (whole warps; the bank-conflict-avoiding lane mapping below only
 *         kicks in then).
 *
 * DERIVED CONSTANTS (what the C catalogue needs)
 *   K    = as above;  U = K*S bytes per shared "unit" (1, 2, 4 or 8)
 *   TC   = TILE << WIDE                               tile columns
 *   NT   = (TILE / VEC) * ROWS, PK: TC * ROWS         threads per block
 *   PADU = PAD ? (U >= 4 ? 1 : 4 / U) : 0             pad, in units
 *   XR   = SH ? 32 / S - 1 : 0, PK: 32 / S            extra input rows
 *   SMEM = (TILE + XR) / K * (TC + PADU) * U    bytes STATIC shared memory
 *        (SH = 0: TILE*TILE*S + PAD * (TILE/K) * max(U, 4)); the host keeps
 *        it within 48 KB (SH = 1, S = 8, TILE = 64, PAD = 1: 34,840 B).
 *   Registers: whatever ptxas picks under __launch_bounds__(NT), no
 *   min-blocks (docs/experiments/transpose.md: "Launch bounds without
 *   min-blocks", "More blocks per SM for the shifted sub-word kernels",
 *   "Fewer blocks per SM").
 *
 * LAUNCH FORMULA (cuLaunchKernel)
 *   blockDim = (NT, 1, 1)
 *   gridDim  = (tiles_y, tiles_x, batch), exactly: one tile per block, with
 *       tiles_x = ceil(cols / TC), tiles_y = ceil((rows + XR) / TR)
 *       (TR = TILE; the register kernel's TR is ROWS * 8 * VEC)
 *   sharedMemBytes = 0 (all shared memory is static), any stream.
 *   Where tiles_y > 2^31 - 1 or tiles_x or batch > 65535, the host launches
 *   pieces: bands of whole tiles of rows or columns, runs of batch entries,
 *   each a transpose of its own with in and out moved to its first element.
 *   rows, cols and batch are then unlimited (64-bit index math everywhere
 *   products can exceed 2^31).  rows == 0 || cols == 0 || batch == 0: no
 *   launch.
 *
 * LEGALITY RULES THE HOST MUST ENFORCE (the kernel does not check them)
 *   R1  in and out are aligned to S bytes (always) and to VEC*S bytes.
 *   R2  ld_in % VEC == 0 and ld_out % VEC == 0.
 *   R3  if batch > 1: stride_in % VEC == 0 and stride_out % VEC == 0.
 *       (R1-R3 together: every vector address is VEC*S aligned.  With
 *       VEC == 1 there is no rule beyond natural alignment of E.)
 *   R4  ld_in >= cols, ld_out >= rows.  Output matrices must not overlap
 *       each other (batch > 1: stride_out >= (cols-1)*ld_out + rows), and
 *       the output must not overlap the input at all (out-of-place; the
 *       pointers are __restrict__).  Input matrices may overlap (read only).
 *   R5  the template rules above (TILE, VEC, ROWS, PAD, K, NT, SH).
 *   rows and cols need NOT be multiples of TILE or VEC: edge tiles are
 *   handled in the kernel (below).
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
 *   PK (SH with S <= 2): input rows of bytes and halves that start anywhere
 *   in a word cannot be read as vectors, so these kernels read aligned
 *   words, realign them with a funnel shift (see tile_pk), pack 4/S rows per
 *   4-byte unit, and write VEC-element vectors: the shift makes every output
 *   vector aligned whatever ld_out is, and a vector that starts at a unit's
 *   middle is put together with a funnel shift.  XR is a whole sector (SE
 *   rows) here so the tile holds whole units (docs/experiments/transpose.md:
 *   "Shifted sub-word kernels").
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
 * DESIGN (why it looks like this)
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
 *   * One tile per block, at the block's (x, y, z): no loop, no division
 *     (docs/experiments/transpose.md: "One tile per block").
 *   * Programmatic dependent launch (sm_90+): each block waits for the grid
 *     before it (griddepcontrol.wait) before it touches memory, then lets
 *     the next grid launch, so that grid's blocks are placed while this one
 *     drains; the host launches this way only calls up to 16 MB
 *     (docs/experiments/transpose.md: "Programmatic dependent launch").
 *   * Tiles are numbered down the columns of tiles: block (x, y) takes tile
 *     row x of tile column y, and x varies fastest.  Blocks running together
 *     then write long runs of the same output rows (and read short pieces of
 *     many input rows), which DRAM takes better than the other way round
 *     (docs/experiments/transpose.md: "Tiles numbered down the columns").
 */
#ifndef CUSPEC_TRANSPOSE_CUH
#define CUSPEC_TRANSPOSE_CUH

#include "prior_grid.cuh"

namespace cuspec_transpose_detail {

typedef unsigned long long u64;

/* ---- element types: only the four unsigned words are accepted ---------- */
template <typename T> struct IsWord { static constexpr bool value = false; };
template <> struct IsWord<unsigned char> { static constexpr bool value = true; };
template <> struct IsWord<unsigned short> { static constexpr bool value = true; };
template <> struct IsWord<unsigned int> { static constexpr bool value = true; };
template <> struct IsWord<unsigned long long> { static constexpr bool value = true; };

template <int U> struct UnitT;
template <> struct UnitT<1> { typedef unsigned char T; };
template <> struct UnitT<2> { typedef unsigned short T; };
template <> struct UnitT<4> { typedef unsigned int T; };
template <> struct UnitT<8> { typedef unsigned long long T; };

/* ---- read-only loads with an L2 prefetch hint ----------------------------
 * ld.global.nc (the read-only path, as __ldg) with .L2::128B: the L2 fetches
 * the whole 128-byte line a load falls in (docs/experiments/transpose.md: "L2
 * prefetch hint").  PTX ISA 7.4, sm_75 and up. */
#ifdef __CUDA_ARCH__
#define CUSPEC_TR_LD(ty, reg, v, p) \
  asm("ld.global.nc.L2::128B." ty " %0, [%1];" : "=" reg(v) : "l"(p))
__device__ __forceinline__ unsigned ld_hint1(const void *p) {
  unsigned short v;
  CUSPEC_TR_LD("u8", "h", v, p);
  return v & 0xffu;
}
__device__ __forceinline__ unsigned ld_hint2(const void *p) {
  unsigned short v;
  CUSPEC_TR_LD("u16", "h", v, p);
  return v;
}
__device__ __forceinline__ unsigned ld_hint4(const void *p) {
  unsigned v;
  CUSPEC_TR_LD("u32", "r", v, p);
  return v;
}
__device__ __forceinline__ uint2 ld_hint8(const void *p) {
  uint2 v;
  asm("ld.global.nc.L2::128B.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 ld_hint16(const void *p) {
  uint4 v;
  asm("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}
#undef CUSPEC_TR_LD
#else
__device__ __forceinline__ unsigned ld_hint1(const void *p) { return *(const unsigned char *)p; }
__device__ __forceinline__ unsigned ld_hint2(const void *p) { return *(const unsigned short *)p; }
__device__ __forceinline__ unsigned ld_hint4(const void *p) { return *(const unsigned *)p; }
__device__ __forceinline__ uint2 ld_hint8(const void *p) { return *(const uint2 *)p; }
__device__ __forceinline__ uint4 ld_hint16(const void *p) { return *(const uint4 *)p; }
#endif

/* ---- raw vector of B bytes held as NW 32-bit words ----------------------
 * Loads are the hinted read-only loads above.  8- and 16-byte stores are
 * inline PTX st.global.v2/v4: NVVM was seen to split a plain uint4 store
 * here into four 4-byte STGs, and __stwb compiles to STG.E.STRONG.SM.
 * (The #else branches are for CPU emulation only.) */
template <int B> struct Raw;
template <> struct Raw<1> {
  static constexpr int NW = 1;
  static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[1]) { w[0] = ld_hint1(p); }
  static __device__ __forceinline__ void st(void *p, const unsigned (&w)[1]) {
    *static_cast<unsigned char *>(p) = (unsigned char)w[0];
  }
};
template <> struct Raw<2> {
  static constexpr int NW = 1;
  static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[1]) { w[0] = ld_hint2(p); }
  static __device__ __forceinline__ void st(void *p, const unsigned (&w)[1]) {
    *static_cast<unsigned short *>(p) = (unsigned short)w[0];
  }
};
template <> struct Raw<4> {
  static constexpr int NW = 1;
  static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[1]) { w[0] = ld_hint4(p); }
  static __device__ __forceinline__ void st(void *p, const unsigned (&w)[1]) {
    *static_cast<unsigned int *>(p) = w[0];
  }
};
template <> struct Raw<8> {
  static constexpr int NW = 2;
  static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[2]) {
    const uint2 v = ld_hint8(p);
    w[0] = v.x; w[1] = v.y;
  }
  static __device__ __forceinline__ void st(void *p, const unsigned (&w)[2]) {
#ifdef __CUDA_ARCH__
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(w[0]), "r"(w[1]));
#else
    uint2 v; v.x = w[0]; v.y = w[1];
    *static_cast<uint2 *>(p) = v;
#endif
  }
};
template <> struct Raw<16> {
  static constexpr int NW = 4;
  static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[4]) {
    const uint4 v = ld_hint16(p);
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  }
  static __device__ __forceinline__ void st(void *p, const unsigned (&w)[4]) {
#ifdef __CUDA_ARCH__
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                 "r"(w[3]));
#else
    uint4 v; v.x = w[0]; v.y = w[1]; v.z = w[2]; v.w = w[3];
    *static_cast<uint4 *>(p) = v;
#endif
  }
};

/* ---- element e (S bytes) of a little-endian word array ------------------ */
template <int S, int NW>
__device__ __forceinline__ u64 get_elem(const unsigned (&w)[NW], int e) {
  if constexpr (S == 8) {
    return (u64)w[2 * e] | ((u64)w[2 * e + 1] << 32);
  } else if constexpr (S == 4) {
    return w[e];
  } else {
    return (w[(e * S) / 4] >> (8 * ((e * S) % 4))) & ((1u << (8 * S)) - 1u);
  }
}
/* ---- partial vectors at the right/bottom edge ----------------------------
 * load_partial: only the first n (1..VEC-1) elements are valid.  store_bytes
 * (below): only bytes lo..hi-1.  Deliberately rolled loops with shift
 * accumulators: unrolled scalar accesses would all be hoisted
 * and keep up to 64 loaded bytes in separate registers, raising the register
 * count of the whole kernel (interior tiles included).  Edge vectors are
 * rare, so their speed does not matter. */
template <typename E, int NW>
__device__ __forceinline__ void load_partial(const E *p, int n, unsigned (&w)[NW]) {
  constexpr int S = (int)sizeof(E);
  u64 lo = 0, hi = 0;
#pragma unroll 1
  for (int e = 0; e < n; ++e) {
    const u64 v = (u64)__ldg(p + e);
    const int bit = 8 * S * e;
    if (bit < 64) lo |= v << bit;
    else hi |= v << (bit - 64);
  }
#pragma unroll
  for (int k = 0; k < NW; ++k) w[k] = (unsigned)((k < 2 ? lo : hi) >> (32 * (k & 1)));
}
/* Bytes lo..hi-1 of a vector whose block is aligned to its size, as the
 * widest naturally aligned pieces (8, 4, 2, 1 bytes) that fit. */
template <int NW>
__device__ __forceinline__ void store_bytes(unsigned char *blk, int lo, int hi,
                                            const unsigned (&w)[NW]) {
  u64 l = w[0], h = 0;
  if constexpr (NW > 1) l |= (u64)w[1] << 32;
  if constexpr (NW > 2) h = (u64)w[2] | ((u64)w[3] << 32);
#pragma unroll 1
  for (int o = lo; o < hi;) {
    int n = 8;
    while (n > 1 && ((o & (n - 1)) != 0 || o + n > hi)) n >>= 1;
    const u64 v = o >= 8 ? h >> (8 * (o - 8)) : o == 0 ? l : (l >> (8 * o)) | (h << (64 - 8 * o));
    if (n == 8) *reinterpret_cast<u64 *>(blk + o) = v;
    else if (n == 4) *reinterpret_cast<unsigned *>(blk + o) = (unsigned)v;
    else if (n == 2) *reinterpret_cast<unsigned short *>(blk + o) = (unsigned short)v;
    else blk[o] = (unsigned char)v;
    o += n;
  }
}

/* ---- pack K rows of VEC elements into VEC units --------------------------
 * unit e = { row0[e], row1[e], ..., row(K-1)[e] }  (row m at byte m*S), i.e.
 * K consecutive elements of output row e. */
template <int S, int K, int VEC, int NW, typename Ut>
__device__ __forceinline__ void pack_units(const unsigned (&w)[K][NW], Ut (&u)[VEC]) {
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
      for (int m = 0; m < K; ++m) v |= get_elem<S>(w[m], e) << (8 * S * m);
      u[e] = (Ut)v;
    }
  }
}

/* ---- D units -> the output vector's words -------------------------------- */
template <int U, int D, int NW, typename Ut>
__device__ __forceinline__ void unpack_units(const Ut (&v)[D], unsigned (&w)[NW]) {
  if constexpr (U >= 4) {
#pragma unroll
    for (int q = 0; q < D; ++q)
#pragma unroll
      for (int k = 0; k < U / 4; ++k) w[q * (U / 4) + k] = (unsigned)((u64)v[q] >> (32 * k));
  } else {
    static_assert(D == 1 && NW == 1, "sub-word units come one per vector");
    w[0] = (unsigned)v[0];
  }
}

/* ---- compile-time bank-conflict model -------------------------------------
 * A warp of WX x (32/WX) lanes; lane (lx, ly) touches shared unit
 * sx*lx + sy*ly (plus a warp-uniform offset).  Returns the worst number of
 * distinct 32-bit words any bank must serve = shared wavefronts needed. */
__host__ __device__ constexpr int cuspec_tr_bank_cost(int WX, int sx, int sy, int U) {
  int words[64] = {};
  int n = 0;
  const int WY = 32 / WX;
  const int nw = U >= 4 ? U / 4 : 1;
  for (int ly = 0; ly < WY; ++ly)
    for (int lx = 0; lx < WX; ++lx) {
      const long long byte = ((long long)sx * lx + (long long)sy * ly) * U;
      for (int k = 0; k < nw; ++k) words[n++] = (int)(byte / 4) + k;
    }
  int worst = 0;
  for (int b = 0; b < 32; ++b) {
    int cnt = 0;
    for (int i = 0; i < n; ++i) {
      if (words[i] % 32 != b) continue;
      bool dup = false;
      for (int j = 0; j < i; ++j)
        if (words[j] == words[i]) { dup = true; break; }
      if (!dup) ++cnt;
    }
    if (cnt > worst) worst = cnt;
  }
  return worst;
}

/* Threads per row of a warp's footprint (power of two, <= min(NX, 32)).
 * Natural layout (tid = x + NX*y) is WX = min(NX, 32).  A smaller WX is
 * taken only if it has strictly fewer bank conflicts, keeps >= 32 bytes
 * (a full sector) per row per warp access, and tiles the block exactly. */
__host__ __device__ constexpr int cuspec_tr_pick_wx(int NX, int ROWS, int NT, int bytes_per_thread,
                                                    int sx, int sy, int U) {
  const int natural = NX < 32 ? NX : 32;
  if (NT % 32 != 0) return natural;
  int best = natural;
  int best_cost = cuspec_tr_bank_cost(natural, sx, sy, U);
  for (int wx = natural / 2; wx >= 1; wx /= 2) {
    if (ROWS % (32 / wx) != 0) continue;
    if (wx * bytes_per_thread < 32) continue;
    const int c = cuspec_tr_bank_cost(wx, sx, sy, U);
    if (c < best_cost) { best = wx; best_cost = c; }
  }
  return best;
}

template <typename E, int TILE, int ROWS, int PAD, int VEC, int SH, int WIDE>
struct Cfg {
  static constexpr int S = (int)sizeof(E);
  /* PK: shifted sub-word elements, read as realigned words and packed 4 bytes to a
   * unit, written as whole vectors (see WRITE-SIDE SHIFT) */
  static constexpr bool PK = SH != 0 && S < 4;
  static constexpr int K = S >= 4 ? 1 : PK ? 4 / S : (VEC < 4 / S ? VEC : 4 / S);
  static constexpr int U = K * S;
  static constexpr int D = VEC / K;          /* units per output vector */
  static constexpr int B = VEC * S;          /* bytes per vector access */
  static constexpr int NW = B >= 4 ? B / 4 : 1;
  static constexpr int TC = TILE << WIDE;    /* tile columns (WIDE: PK only) */
  static constexpr int NX = TILE / VEC;      /* threads along a tile row */
  static constexpr int NT = PK ? TC * ROWS : NX * ROWS; /* threads per block */
  static constexpr int SE = 32 / S;          /* elements per 32-byte sector */
  static constexpr int XR = SH ? (PK ? SE : SE - 1) : 0; /* extra input rows read (SH) */
  static constexpr int UR = (TILE + XR) / K; /* unit rows in the shared tile */
  static constexpr int G = (UR + ROWS - 1) / ROWS; /* unit-row groups per thread */
  static constexpr int RW = PK ? NT / NX : ROWS; /* output rows per write pass */
  static constexpr int P = TC / RW;          /* output vectors per thread */
  static constexpr int PADU = PAD ? (U >= 4 ? 1 : 4 / U) : 0;
  static constexpr int PU = TC + PADU;       /* shared row pitch, in units */
  static constexpr long long SMEM = (long long)UR * PU * U;
  static constexpr int VEC_ = VEC;
  static constexpr int ROWS_ = ROWS;
  static constexpr int TILE_ = TILE;
  typedef typename UnitT<U>::T Ut;

  static_assert(IsWord<E>::value,
                "E must be unsigned char/short/int/long long");
  static_assert(TILE == 16 || TILE == 32 || TILE == 64 || TILE == 128, "TILE must be 16, 32, 64 (or 128)");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8 || VEC == 16, "VEC must be 1,2,4,8,16");
  static_assert(VEC * S <= 16, "VEC*sizeof(E) must be <= 16");
  static_assert(TILE % VEC == 0, "TILE % VEC != 0");
  static_assert(PAD == 0 || PAD == 1, "PAD must be 0 or 1");
  static_assert(ROWS >= 1 && (ROWS & (ROWS - 1)) == 0, "ROWS must be a power of two");
  static_assert((TILE / K) % ROWS == 0, "(TILE/K) % ROWS != 0  (K = row packing factor)");
  static_assert(SH == 0 || (SH == 1 && (TILE * S) % 32 == 0 &&
                             (!PK || (VEC % K == 0 && TILE % (ROWS * VEC) == 0))),
                "SH must be 0, or 1 with whole sectors per tile row (and, for 1- and 2-byte "
                "elements, VEC a multiple of 4/S with TILE % (ROWS*VEC) == 0)");
  static_assert(WIDE == 0 || (WIDE == 1 && PK), "WIDE must be 0, or 1 for shifted 1- and 2-byte elements");
  static_assert(NT >= 1 && NT <= 1024, "threads per block must be in 1..1024");
  static_assert(SMEM <= 48 * 1024, "shared tile exceeds 48 KB (TILE=128 needs sizeof(E) <= 2)");

  /* Whether unit row y + g*ROWS of the read phase is in the tile: only the
   * last group can run past it, where XR rows were added. */
  static __device__ __forceinline__ bool in_tile(int g, unsigned y) {
    return UR % ROWS == 0 || g + 1 < G || y + g * ROWS < (unsigned)UR;
  }

  /* read phase: lane (lx,ly) stores unit ly*PU + VEC*lx (+e) */
  static constexpr int WXR = cuspec_tr_pick_wx(NX, ROWS, NT, B, VEC, PU, U);
  /* write phase: lane (lx,ly) loads unit (D*lx)*PU + ly (+q*PU) */
  static constexpr int WXW = cuspec_tr_pick_wx(NX, ROWS, NT, B, D * PU, 1, U);
};

/* This block's tile: tile row blockIdx.x of tile column blockIdx.y (tiles
 * of TR input rows by TC columns) in batch entry blockIdx.z.  Moves in and
 * out to the batch entry and gives the tile's first row r0 and column c0.
 * x varies fastest, so blocks running together take the tiles down a
 * column.  One tile per block and no loop: the host launches the exact
 * grid, in pieces where a grid dimension would overflow. */
template <int TR, int TC, typename In, typename Out>
__device__ __forceinline__ void this_tile(In &in, Out &out, u64 stride_in, u64 stride_out, u64 &r0,
                                          u64 &c0) {
  CUSPEC_AFTER_PRIOR_GRID();
  CUSPEC_LET_NEXT_GRID(); /* grids of many waves: the next one starts in the last */
  in += blockIdx.z * stride_in;
  out += blockIdx.z * stride_out;
  r0 = blockIdx.x * (u64)TR;
  c0 = blockIdx.y * (u64)TC;
}

/* tid -> (x, y) on the NX x ROWS thread grid with warps of WX x (32/WX). */
template <int NX, int WX>
__device__ __forceinline__ void map_thread(unsigned tid, unsigned &x, unsigned &y) {
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
__device__ __forceinline__ void tile_xpose(typename C::Ut (&tile)[C::UR][C::PU],
                                           const E *__restrict__ inb, E *__restrict__ outb,
                                           u64 rows, u64 cols, u64 ld_in, u64 ld_out,
                                           u64 r0, u64 c0,
                                           unsigned rx, unsigned ry, unsigned wx, unsigned wy) {
  typedef typename C::Ut Ut;
  constexpr int S = C::S, K = C::K, VEC = C::VEC_, NW = C::NW, G = C::G, D = C::D, P = C::P;
  constexpr int ROWS = C::ROWS_;

  /* ---- read phase: all G*K = TILE/ROWS loads first ---- */
  const u64 cc = c0 + (u64)(VEC * rx);                 /* first column of my vector */
  const u64 rbase = r0 - C::XR + (u64)(K * ry);        /* my first input row (may wrap: SH) */
  const E *p0 = inb + rbase * ld_in + cc;
  unsigned w[G][K][NW];
#pragma unroll
  for (int g = 0; g < G; ++g)
#pragma unroll
    for (int m = 0; m < K; ++m) {
      const E *p = p0 + (u64)(K * ROWS * g + m) * ld_in;
      if constexpr (!EDGE) {
        if (C::in_tile(g, ry)) Raw<C::B>::ld(p, w[g][m]);
      } else {
#pragma unroll
        for (int k = 0; k < NW; ++k) w[g][m][k] = 0u;
        if (C::in_tile(g, ry) && rbase + (u64)(K * ROWS * g + m) < rows) {
          if constexpr (VEC == 1) {
            if (cc < cols) Raw<C::B>::ld(p, w[g][m]);
          } else {
            if (cc + VEC <= cols) Raw<C::B>::ld(p, w[g][m]);
            else if (cc < cols) load_partial<E>(p, (int)(cols - cc), w[g][m]);
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
      for (int e = 0; e < VEC; ++e) tile[ry + g * ROWS][VEC * rx + e] = u[e];
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
    const u64 oc = r0 + (u64)(VEC * wx) - sh;       /* wraps below column 0: skipped */
    Ut v[D];
#pragma unroll
    for (int q = 0; q < D; ++q) v[q] = tile[D * wx + q + C::XR - sh][jj];
    unsigned ow[NW];
    unpack_units<C::U, D, NW, Ut>(v, ow);
    E *q = orow + oc;
    if constexpr (!EDGE) {
      Raw<C::B>::st(q, ow);
    } else {
      if (c0 + jj < cols && oc < rows) {
        if (VEC == 1 || oc + VEC <= rows) Raw<C::B>::st(q, ow);
        else store_bytes<NW>(reinterpret_cast<unsigned char *>(q), 0, (int)(rows - oc) * S, ow);
      }
    }
  }
}

/* The aligned word at w, or where it runs past `end`, only its bytes before
 * `end` (in its low bytes; the others zero). */
__device__ __forceinline__ unsigned ld_upto(const unsigned char *w, const unsigned char *end) {
  if (w + 4 <= end) return ld_hint4(w);
  const unsigned n = (unsigned)(end - w); /* 1..3 */
  unsigned v = n & 2 ? ld_hint2(w) : 0u;
  if (n & 1) v |= ld_hint1(w + (n & 2)) << (8 * (n & 2));
  return v;
}

/* One tile of a PK kernel (SH with 1- or 2-byte elements).
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
__device__ __forceinline__ void tile_pk(unsigned (&tile)[C::UR][C::PU],
                                        const E *__restrict__ inb, E *__restrict__ outb,
                                        u64 rows, u64 cols, u64 ld_in, u64 ld_out,
                                        u64 r0, u64 c0, unsigned tid) {
  constexpr int S = C::S, K = C::K, VEC = C::VEC_, D = C::D, P = C::P;
  constexpr int TILE = C::TILE_, TC = C::TC, NX = C::NX, RW = C::RW, UR = C::UR;
  constexpr bool EDGE = MODE != 0;
  constexpr int NWR = TC / K;                /* words per tile row */
  constexpr int YQ = C::NT / NWR;            /* unit rows per pass */
  constexpr int GQ = (UR + YQ - 1) / YQ;     /* passes */

  constexpr int LW = NWR < 32 ? NWR : 32;    /* lanes that share a row */
  constexpr int NR = GQ * K;                 /* input rows per thread */
  constexpr int NE = (NR + LW - 1) / LW;     /* words past the lanes' last */

  const unsigned x = tid % NWR, yq = tid / NWR, li = tid % LW;
  const u64 nbytes = (EDGE && cols - c0 < (u64)TC ? cols - c0 : (u64)TC) * S;
  const u64 ldb = ld_in * S;                 /* bytes from one input row to the next */
  /* row i of this thread is input row r0 - XR + K*yq + ROW(i) */
#define CUSPEC_TR_ROW(i) ((i) / K * YQ * K + (i) % K)
  const unsigned char *p0 =
      reinterpret_cast<const unsigned char *>(inb + (r0 - C::XR + (u64)K * yq) * ld_in + c0);
  const u64 q0 = (u64)p0 + 4 * x;            /* word x of row 0, plus the row's misalignment */
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
    const u64 r = r0 - C::XR + (u64)K * yq + CUSPEC_TR_ROW(i);  /* may wrap below row 0 */
    const u64 q = q0 + CUSPEC_TR_ROW(i) * ldb;
    lo[i] = 0u;
    if ((UR % YQ == 0 || y < (unsigned)UR) && (!EDGE || r < rows) && (!EDGE || 4 * x < q % 4 + nbytes) &&
        (MODE != 2 || dlast != CUSPEC_TR_ROW(i)))
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
        if (dlast == CUSPEC_TR_ROW(i)) lo[i] = v;
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
  for (int m = 0; m < K; ++m) shift[m] = 8 * (unsigned)((q0 + (u64)m * ldb) % 4);
  const unsigned rot = (tid % 32) / (32 / K) % K;
  unsigned *const st0 = &tile[yq][0];
  unsigned col[K];
#pragma unroll
  for (int e = 0; e < K; ++e) col[e] = K * x + (e + rot) % K;
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
      for (int e = 0; e < K; ++e) st0[g * YQ * C::PU + col[e]] = u[e];
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
    const unsigned t0 = C::XR - sh + VEC * wx;     /* first element row in the tile */
    const unsigned u0 = t0 / K, o = t0 % K;
    unsigned v[D + 1], ow[D];
#pragma unroll
    for (int q = 0; q <= D; ++q) v[q] = (q < D || o != 0) ? tile[u0 + q][jj] : 0u;
#pragma unroll
    for (int q = 0; q < D; ++q) ow[q] = __funnelshift_r(v[q], v[q + 1], 8 * S * o);
    const long long sc = (long long)r0 - (long long)sh + VEC * (long long)wx;
    E *dst = orow + sc;
    if constexpr (!EDGE) {
      Raw<VEC * S>::st(dst, ow);
    } else if (c0 + jj < cols) {
      const long long lo = sc < 0 ? -sc : 0;
      const long long left = (long long)rows - sc;
      const long long hi = left < VEC ? left : VEC;
      if (lo == 0 && hi == VEC) Raw<VEC * S>::st(dst, ow);
      else if (lo < hi) store_bytes<D>(reinterpret_cast<unsigned char *>(dst), (int)lo * S, (int)hi * S, ow);
    }
  }
}

/* MODE 2 out of line (see the kernel). */
template <typename C, typename E>
__device__ __noinline__ void tile_pk_last(unsigned (&tile)[C::UR][C::PU],
                                          const E *__restrict__ inb, E *__restrict__ outb,
                                          u64 rows, u64 cols, u64 ld_in, u64 ld_out,
                                          u64 r0, u64 c0, unsigned tid) {
  tile_pk<C, E, 2>(tile, inb, outb, rows, cols, ld_in, ld_out, r0, c0, tid);
}

/* ---- the register kernel (cuspec_transpose_regs) --------------------------
 * No shared memory: each thread loads VEC rows of VEC elements (16 bytes
 * each), transposes that square in registers (pack_units) and stores VEC
 * output rows of VEC elements.  Warps are WX = 4 by WY = 8 lanes, so a warp
 * reads 64-byte pieces of input rows and writes 128-byte pieces of output
 * rows (whole sectors both ways); a block is
 * TILE / (WX * VEC) warps across and ROWS warps down, so its tile is TILE
 * columns by TR = ROWS * WY * VEC rows (docs/experiments/transpose.md: "Register
 * kernel", "Register kernel with 8 x 4 warps").  Rows that start anywhere
 * in a word need the shared tile (PK).  Squares that the matrix's edge cuts
 * go element by element, each load waiting for the store before it, so the
 * host takes this kernel only where the edge cuts no square
 * (docs/experiments/transpose.md: "Register kernel at cut edges"). */
template <typename E, int TILE, int ROWS, int VEC>
struct RCfg {
  static constexpr int S = (int)sizeof(E);
  static constexpr int K = 4 / S;            /* rows packed per word */
  static constexpr int B = VEC * S;          /* bytes per vector access */
  static constexpr int NW = B / 4;
  static constexpr int WX = 4;               /* lanes along an input row: 64 bytes */
  static constexpr int WY = 8;
  static constexpr int BX = TILE / (WX * VEC); /* warps along the tile's rows */
  static constexpr int TR = ROWS * WY * VEC; /* tile rows */
  static constexpr int NT = BX * ROWS * 32;
  static_assert(IsWord<E>::value && S <= 2, "the register kernel takes 1- and 2-byte elements");
  static_assert(B == 16, "the register kernel moves 16-byte vectors (VEC = 16 / sizeof(E))");
  static_assert(TILE % (WX * VEC) == 0 && TILE <= 256, "TILE must be a multiple of 64 bytes, <= 256");
  static_assert(ROWS >= 1 && (ROWS & (ROWS - 1)) == 0, "ROWS must be a power of two");
  static_assert(NT <= 1024, "threads per block must be <= 1024");
};

/* The VEC x VEC square at p (input) to q (output). */
template <typename C, typename E>
__device__ __forceinline__ void square_regs(const E *__restrict__ p, E *__restrict__ q, u64 ld_in,
                                            u64 ld_out) {
  constexpr int VEC = C::B / C::S;
  unsigned w[VEC / C::K][C::K][C::NW];
#pragma unroll
  for (int r = 0; r < VEC; ++r) Raw<C::B>::ld(p + r * ld_in, w[r / C::K][r % C::K]);
  unsigned o[VEC][C::NW];
#pragma unroll
  for (int g = 0; g < VEC / C::K; ++g) {
    unsigned u[VEC];
    pack_units<C::S, C::K, VEC, C::NW, unsigned>(w[g], u);
#pragma unroll
    for (int e = 0; e < VEC; ++e) o[e][g] = u[e];
  }
#pragma unroll
  for (int e = 0; e < VEC; ++e) Raw<C::B>::st(q + e * ld_out, o[e]);
}

/* ---- the narrow kernel (cuspec_transpose_narrow) --------------------------
 * For matrices with at most NMAX rows (wide) or columns (tall) and a long
 * other side N, where the tiled kernels' tiles would be mostly empty
 * (docs/experiments/transpose.md: "Narrow kernel").  R,
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
template <typename E, int NT, int VEC>
struct NCfg {
  static constexpr int S = (int)sizeof(E);
  static constexpr int B = VEC * S;
  static constexpr int NW = B >= 4 ? B / 4 : 1;
  static constexpr int LV = VEC >= 16 ? 4 : VEC >= 8 ? 3 : VEC >= 4 ? 2 : VEC >= 2 ? 1 : 0;
  static constexpr int SMEM = 32768; /* bytes of planes */
  static constexpr int NMAX = 32;    /* the narrow side, at most */
  static constexpr int VEC_ = VEC;
  static_assert(IsWord<E>::value, "E must be unsigned char/short/int/long long");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8 || VEC == 16, "VEC must be 1,2,4,8,16");
  static_assert(B <= 16, "VEC*sizeof(E) must be <= 16");
  static_assert(NT % 32 == 0 && NT >= 32 && NT <= 1024, "NT must be whole warps, <= 1024");
  static_assert(SMEM / (S * NMAX) >= 32 * VEC, "a chunk must hold 32 vectors");
};

/* A B-byte vector in shared memory, as NW words. */
template <int B>
struct Sh {
  static constexpr int NW = B >= 4 ? B / 4 : 1;
  static __device__ __forceinline__ void ld(const void *p, unsigned (&w)[NW]) {
    if constexpr (B == 16) {
      const uint4 v = *static_cast<const uint4 *>(p);
      w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
    } else if constexpr (B == 8) {
      const uint2 v = *static_cast<const uint2 *>(p);
      w[0] = v.x; w[1] = v.y;
    } else {
      w[0] = *static_cast<const typename UnitT<B>::T *>(p);
    }
  }
  static __device__ __forceinline__ void st(void *p, const unsigned (&w)[NW]) {
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
template <int S, int NW>
__device__ __forceinline__ void put_elem(unsigned (&w)[NW], int e, u64 v) {
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
__device__ __forceinline__ void narrow_planar(E *planes, M *mat, u64 ld, unsigned R, int lg, u64 n) {
  constexpr int VEC = C::VEC_, B = C::B;
  const int lgv = lg - C::LV; /* vectors per plane: 2^lgv */
  const unsigned total = R << lgv;
#pragma unroll 4
  for (unsigned f = threadIdx.x; f < total; f += blockDim.x) {
    const unsigned i = f >> lgv, j = (f & ((1u << lgv) - 1)) * VEC;
    if (j >= n) continue;
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
        if constexpr (LOAD) pl[e] = __ldg(m + e);
        else m[e] = pl[e];
      }
    }
  }
}

/* The flat side: n records of R elements at mat + j * ld, element i of
 * record j against plane i's element j. */
template <typename C, bool LOAD, typename E, typename M>
__device__ __forceinline__ void narrow_flat(E *planes, M *mat, u64 ld, unsigned R, int lg, u64 n) {
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
            if (++i == R) { i = 0; ++j; }
          }
        } else {
#pragma unroll 1
          for (unsigned e = 0; e < cnt; ++e) {
            planes[((size_t)i << lg) + j] = __ldg(mat + k + e);
            if (++i == R) { i = 0; ++j; }
          }
        }
      } else {
        if (cnt == VEC) {
#pragma unroll
          for (int k2 = 0; k2 < C::NW; ++k2) w[k2] = 0u;
#pragma unroll
          for (int e = 0; e < VEC; ++e) {
            put_elem<S>(w, e, planes[((size_t)i << lg) + j]);
            if (++i == R) { i = 0; ++j; }
          }
          Raw<B>::st(mat + k, w);
        } else {
#pragma unroll 1
          for (unsigned e = 0; e < cnt; ++e) {
            mat[k + e] = planes[((size_t)i << lg) + j];
            if (++i == R) { i = 0; ++j; }
          }
        }
      }
    }
  } else {
#pragma unroll 4
    for (unsigned k = threadIdx.x; k < total; k += blockDim.x) {
      const unsigned j = k / R, i = k % R;
      if constexpr (LOAD) planes[((size_t)i << lg) + j] = __ldg(mat + j * ld + i);
      else mat[j * ld + i] = planes[((size_t)i << lg) + j];
    }
  }
}

} /* namespace cuspec_transpose_detail */

template <typename E, int TILE, int ROWS, int VEC>
__global__ void __launch_bounds__(cuspec_transpose_detail::RCfg<E, TILE, ROWS, VEC>::NT)
cuspec_transpose_regs(const E *__restrict__ in, E *__restrict__ out,
                      unsigned long long rows, unsigned long long cols,
                      unsigned long long ld_in, unsigned long long ld_out,
                      unsigned long long stride_in, unsigned long long stride_out) {
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
      for (int j = 0; j < nc; ++j) out[(c + j) * ld_out + r + i] = in[(r + i) * ld_in + c + j];
  }
}

template <typename E, int TILE, int ROWS, int PAD, int VEC, int SH, int WIDE = 0>
__global__ void __launch_bounds__(cuspec_transpose_detail::Cfg<E, TILE, ROWS, PAD, VEC, SH, WIDE>::NT)
cuspec_transpose(const E *__restrict__ in, E *__restrict__ out,
                 unsigned long long rows, unsigned long long cols,
                 unsigned long long ld_in, unsigned long long ld_out,
                 unsigned long long stride_in, unsigned long long stride_out) {
  using namespace cuspec_transpose_detail;
  typedef Cfg<E, TILE, ROWS, PAD, VEC, SH, WIDE> C;
  __shared__ typename C::Ut tile[C::UR][C::PU];

  unsigned rx, ry, wx, wy;
  map_thread<C::NX, C::WXR>(threadIdx.x, rx, ry);
  map_thread<C::NX, C::WXW>(threadIdx.x, wx, wy);

  u64 r0, c0;
  this_tile<TILE, C::TC>(in, out, stride_in, stride_out, r0, c0);
  const bool inside = (C::XR == 0 || r0 >= (u64)C::XR) && r0 + TILE <= rows && c0 + C::TC <= cols;
  if constexpr (C::PK) {
    /* The tiles with the matrix's last row take MODE 2 (tile_pk); the paths
     * are laid out per element size as ptxas schedules the hot one (MODE 0)
     * best (docs/experiments/transpose.md: "Shifted sub-word paths"). */
    if constexpr (sizeof(E) == 1) {
      if (r0 + TILE >= rows)
        tile_pk_last<C, E>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
      else if (inside)
        tile_pk<C, E, 0>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
      else
        tile_pk<C, E, 1>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
    } else if (inside && r0 + TILE < rows) {
      tile_pk<C, E, 0>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
    } else {
      tile_pk<C, E, 2>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, threadIdx.x);
    }
  } else if (inside) {
    tile_xpose<C, E, false>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, rx, ry, wx, wy);
  } else {
    tile_xpose<C, E, true>(tile, in, out, rows, cols, ld_in, ld_out, r0, c0, rx, ry, wx, wy);
  }
}

template <typename E, int NT, int VEC>
__global__ void __launch_bounds__(NT)
cuspec_transpose_narrow(const E *__restrict__ in, E *__restrict__ out,
                        unsigned long long rows, unsigned long long cols,
                        unsigned long long ld_in, unsigned long long ld_out,
                        unsigned long long stride_in, unsigned long long stride_out) {
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
  while ((2ull << lg) * R * C::S <= (u64)C::SMEM) ++lg;
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

#endif /* CUSPEC_TRANSPOSE_CUH */
