// cuspec lessons dot: the dot product of two float arrays as it is taught
// (kernels short and readable, not tuned; cuspec's own is reduce.cuh).

// Shared memory, one partial per block: each thread sums its products in a
// grid-stride loop, the block adds its threads' sums in shared memory, and
// the host adds the blocks' partials. Launch: block THREADS (a power of two),
// any grid (as taught: min(32, ceil(n / THREADS)) blocks).
template <int THREADS> __global__ void lessons_dot(const float *a, const float *b, float *c, int n)
{
    __shared__ float cache[THREADS];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;
    float temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0)
        c[blockIdx.x] = cache[0];
}

// The pairwise (cascading) sum, first pass: the n products into p.
__global__ void lessons_products(const float *a, const float *b, float *p, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = a[i] * b[i];
}

// The pairwise sum, one pass of log2(n): the upper part of x[0 .. m) added to
// the lower, x[i] += x[i + h] for i + h < m, leaving h = ceil(m / 2) values.
// Every pass reads and writes what the one before left: the error grows with
// log2(n), not n, but the bytes moved are twice the input's.
__global__ void lessons_pairwise(float *x, unsigned m, unsigned h)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + h < m)
        x[i] += x[i + h];
}
