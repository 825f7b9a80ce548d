/* Programmatic dependent launch (sm_90+).  Code compiled for sm_90 or later
 * starts every kernel with CUSPEC_AFTER_PRIOR_GRID(): wait for the grid
 * before this one in the stream, all of it and its memory, before touching
 * memory.  The host launches the kernels of families that say so
 * (waits_for_prior_grid in src/catalogue.h), from code made for sm_90 or
 * later, with programmatic stream serialization, so that a
 * kernel's blocks are placed while the one before it drains (reductions at
 * every size, transposes and copies only when small: see
 * CUSPEC__PDL_TILED_BYTES in src/context.h).  The next
 * grid launches once every block has run CUSPEC_LET_NEXT_GRID() or ended:
 * transposes run it first thing, reductions once their input is read
 * (the one block of a final pass, first thing).  Reductions ask the L2
 * for their first loads before the wait (cuspec_to_l2, below).
 * Shipped PTX (compute_75) has none of these.
 *
 * Every template includes this file (NVRTC gets it as a header, and the
 * store keys hash it with each template); it may be included more than
 * once in one translation unit. */
#ifndef CUSPEC_AFTER_PRIOR_GRID
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CUSPEC_AFTER_PRIOR_GRID() asm volatile("griddepcontrol.wait;" ::: "memory")
#define CUSPEC_LET_NEXT_GRID() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#else
#define CUSPEC_AFTER_PRIOR_GRID() ((void)0)
#define CUSPEC_LET_NEXT_GRID() ((void)0)
#endif

/* Before the wait, a kernel may ask the L2 for [p, p + bytes) of global
 * memory (rounded in to 16 bytes; sm_90+, else nothing): a hint, which no
 * write of the grid before can make stale, as the L2 is the point of
 * coherence and the loads still come after the wait (docs/experiments/
 * reduce.md: "The first tile asked of the L2 before the wait"). */
__device__ __forceinline__ void cuspec_to_l2(const void *p, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const unsigned long long g = __cvta_generic_to_global(p);
    const unsigned long long lo = (g + 15) & ~15ULL, hi = (g + bytes) & ~15ULL;
    if (hi > lo)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"((unsigned)(hi - lo))
                     : "memory");
#else
    (void)p;
    (void)bytes;
#endif
}

/* The first min(left, most) elements of p asked of the L2 (cuspec_to_l2):
 * a tile's worth, or what is left of the data when less. */
template <typename T>
__device__ __forceinline__ void cuspec_first_to_l2(const T *p, unsigned long long left,
                                                   unsigned long long most)
{
    cuspec_to_l2(p, (unsigned)((left < most ? left : most) * sizeof(T)));
}
#endif
