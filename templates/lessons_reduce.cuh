// cuspec lessons reduce: the parallel sum of ints in six stages, as it is
// taught (kernels short and readable, not tuned; cuspec's own is reduce.cuh).
//
// Each launch writes one partial sum per block to out[blockIdx.x]; the host
// launches the same kernel on the partials until one is left. Sums wrap
// modulo 2^32 like the CPU's reference. Launch: block of a power of two
// threads from 64 up (BLOCK for lessons_reduce5), dynamic shared memory of
// blockDim.x ints (none for lessons_reduce5); grid: ceil(n / elements per
// block), where a block sums blockDim.x elements in stages 0 to 2, twice that
// in stage 3 and 32 times that in stages 4 and 5.

// Stage 0, interleaved addressing: `tid % (2 * s) == 0` keeps fewer and fewer
// threads of each warp busy, the warp diverged around them.
__global__ void lessons_reduce0(const int *in, int *out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Stage 1, strided index: the busy threads are contiguous (no divergence),
// but index = 2 * s * tid makes threads of a warp hit the same bank.
__global__ void lessons_reduce1(const int *in, int *out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Stage 2, sequential addressing: thread tid adds element tid + s, so a warp
// reads consecutive words: no bank conflicts.
__global__ void lessons_reduce2(const int *in, int *out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Stage 3, first add during load: each thread adds two elements on its way
// in, so half the threads no longer idle after the first step.
__global__ void lessons_reduce3(const int *in, int *out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    int sum = i < n ? in[i] : 0;
    if (i + blockDim.x < n)
        sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// The last warp needs no __syncthreads(). Volta and later no longer run a
// warp's threads in lockstep, so each step reads, waits for the warp
// (__syncwarp) and only then writes, where the original relied on volatile.
__device__ void lessons_warp_reduce(volatile int *sdata, unsigned tid)
{
    int v = sdata[tid];
    for (int s = 32; s > 0; s >>= 1) {
        v += sdata[tid + s];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
    }
}

// Stage 4, last warp unrolled and 32 elements per thread: each thread first
// sums 32 elements a block apart (every load coalesced), so there are 32
// times fewer blocks and tree steps per element.
__global__ void lessons_reduce4(const int *in, int *out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x * 32 + threadIdx.x;
    int sum = 0;
    for (unsigned k = 0; k < 32; k++)
        if (i + k * blockDim.x < n)
            sum += in[i + k * blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        lessons_warp_reduce(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Stage 5, completely unrolled: the block size is a template parameter, so
// every loop and every `if (BLOCK >= ...)` is resolved at compile time.
template <unsigned BLOCK> __global__ void lessons_reduce5(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x, i = blockIdx.x * BLOCK * 32 + threadIdx.x;
    int sum = 0;
#pragma unroll
    for (unsigned k = 0; k < 32; k++)
        if (i + k * BLOCK < n)
            sum += in[i + k * BLOCK];
    sdata[tid] = sum;
    __syncthreads();
    if (BLOCK >= 1024 && tid < 512)
        sdata[tid] = sum = sum + sdata[tid + 512];
    if (BLOCK >= 1024)
        __syncthreads();
    if (BLOCK >= 512 && tid < 256)
        sdata[tid] = sum = sum + sdata[tid + 256];
    if (BLOCK >= 512)
        __syncthreads();
    if (BLOCK >= 256 && tid < 128)
        sdata[tid] = sum = sum + sdata[tid + 128];
    if (BLOCK >= 256)
        __syncthreads();
    if (BLOCK >= 128 && tid < 64)
        sdata[tid] = sum = sum + sdata[tid + 64];
    if (BLOCK >= 128)
        __syncthreads();
    if (tid < 32)
        lessons_warp_reduce(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
