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
 * (the one block of a final pass, first thing).
 * Shipped PTX (compute_75) has neither.
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
#endif
