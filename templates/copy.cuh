// cuspec copy family: a vectorized device-to-device copy, the bandwidth
// ceiling that the reduction and transpose benchmarks are measured against.
//
// cuspec_copy<W, BLOCK, ITEMS>(src, dst, n) copies n bytes.
//   W      the word each access moves: unsigned int (4 B), uint2 (8 B), uint4 (16 B)
//   BLOCK  threads per block: 128, 256, 512, 1024
//   ITEMS  independent word loads in flight per thread before the first store: 1, 2, 4, 8
// Launch: 1-D grid of any size (grid-stride loops), BLOCK threads, no shared memory.
// Alignment: the body moves whole words when src and dst share their
// misalignment modulo sizeof(W); the head and tail (and everything, when they
// do not) move byte by byte, so any pointers and any n are correct.

#include "prior_grid.cuh"

template <typename W, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    cuspec_copy(const unsigned char *__restrict__ src, unsigned char *__restrict__ dst,
                unsigned long long n)
{
    typedef unsigned long long u64;
    CUSPEC_AFTER_PRIOR_GRID();
    const u64 tid = (u64)blockIdx.x * BLOCK + threadIdx.x;
    const u64 nthreads = (u64)gridDim.x * BLOCK;

    u64 head = (sizeof(W) - (u64)src % sizeof(W)) % sizeof(W);
    if (((u64)src - (u64)dst) % sizeof(W) != 0 || head > n)
        head = n; // no common alignment: bytes only
    for (u64 i = tid; i < head; i += nthreads)
        dst[i] = src[i];

    const W *s = reinterpret_cast<const W *>(src + head);
    W *d = reinterpret_cast<W *>(dst + head);
    const u64 words = (n - head) / sizeof(W);
    u64 i = tid;
    // ITEMS loads issued before any store keeps enough bytes in flight to
    // cover the memory latency.
    for (; i + (u64)(ITEMS - 1) * nthreads < words; i += (u64)ITEMS * nthreads) {
        W v[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            v[k] = s[i + k * nthreads];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            d[i + k * nthreads] = v[k];
    }
    for (; i < words; i += nthreads)
        d[i] = s[i];

    for (u64 j = head + words * sizeof(W) + tid; j < n; j += nthreads)
        dst[j] = src[j];
}
