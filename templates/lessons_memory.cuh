// cuspec lessons memory: the bandwidth of each memory space, as it is taught.
// Each thread leaves one float in out[thread] that the host checks against its
// own sum, so no load can be optimized away. Launch: 1-D blocks of 256
// threads, any grid.

#define LESSONS_CONSTANT_FLOATS 1024

// Registers: eight independent FMA chains on values that never leave the
// register file; each FMA reads three 4-byte operands.
__global__ void lessons_registers(const float *in, float *out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.5f * in[i], b = in[i];
    float x0 = 0, x1 = 1, x2 = 2, x3 = 3, x4 = 4, x5 = 5, x6 = 6, x7 = 7;
    for (int k = 0; k < iters; k++) {
        x0 = fmaf(x0, a, b);
        x1 = fmaf(x1, a, b);
        x2 = fmaf(x2, a, b);
        x3 = fmaf(x3, a, b);
        x4 = fmaf(x4, a, b);
        x5 = fmaf(x5, a, b);
        x6 = fmaf(x6, a, b);
        x7 = fmaf(x7, a, b);
    }
    out[i] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

// Shared memory: the block copies 1024 float4 (16 KB) of in into shared
// memory, then each thread reads float4s from it; a warp reads 512
// consecutive bytes, free of bank conflicts.
__global__ void lessons_shared(const float4 *in, float *out, int iters)
{
    __shared__ float4 s[1024];
    for (int j = threadIdx.x; j < 1024; j += blockDim.x)
        s[j] = in[j];
    __syncthreads();
    float4 sum = make_float4(0, 0, 0, 0);
    for (int k = 0; k < iters; k++) {
        float4 v = s[(threadIdx.x + k * 32) & 1023];
        sum.x += v.x;
        sum.y += v.y;
        sum.z += v.z;
        sum.w += v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (sum.x + sum.y) + (sum.z + sum.w);
}

// Reading memory: each thread sums every (gridDim.x * blockDim.x)-th float4
// of in, `rounds` times over. __ldcg caches in L2 only, not L1, so a buffer
// that fits in L2 is read from L2 from the second round on; one much larger
// than L2 comes from device memory, and mapped host memory over the bus.
__global__ void lessons_read(const float4 *in, unsigned long long n4, int rounds, float *out)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    float4 sum = make_float4(0, 0, 0, 0);
    for (int r = 0; r < rounds; r++)
#pragma unroll 4 // four loads in flight per thread: enough to cover the latency
        for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            float4 v = __ldcg(&in[i]);
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
            sum.w += v.w;
        }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (sum.x + sum.y) + (sum.z + sum.w);
}

// The host fills this (cuModuleGetGlobal) before the constant kernels run.
__constant__ float lessons_constant_data[LESSONS_CONSTANT_FLOATS];

// Constant memory read uniformly: all threads of a warp read the same word,
// which the constant cache broadcasts in one go.
__global__ void lessons_constant_uniform(float *out, int iters)
{
    float sum = 0;
    for (int k = 0; k < iters; k++)
        sum += lessons_constant_data[k & (LESSONS_CONSTANT_FLOATS - 1)];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Constant memory read divergently: each thread of a warp reads a different
// word, and the constant cache serves the 32 addresses one after another.
__global__ void lessons_constant_divergent(float *out, int iters)
{
    float sum = 0;
    for (int k = 0; k < iters; k++)
        sum += lessons_constant_data[(k + threadIdx.x) & (LESSONS_CONSTANT_FLOATS - 1)];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
