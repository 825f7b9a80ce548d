// cuspec lessons coalescing and reverse: how the addresses of a warp's accesses
// decide what memory moves, as it is taught (kernels short and readable).

// Offset: a[i + s] += 1 over n = gridDim.x * blockDim.x floats. A warp's 128
// bytes start s floats past a 128-byte boundary, so for 0 < s < 32 they span
// one more segment than they fill. Launch: a of at least n + s floats.
__global__ void lessons_offset(float *a, int s)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x + s;
    a[i] = a[i] + 1;
}

// Stride: a[i * s] += 1: a warp's 32 floats lie s apart, so it moves s times
// the segments (up to one 32-byte sector per float) to use one float of each.
// Launch: a of at least n * s floats.
__global__ void lessons_stride(float *a, int s)
{
    int i = (blockDim.x * blockIdx.x + threadIdx.x) * s;
    a[i] = a[i] + 1;
}

// Reverse through global memory only: each block reads its piece in order and
// writes it reversed to the mirror block (G80: no coalescing of such writes).
// n = gridDim.x * blockDim.x ints.
__global__ void lessons_reverse_global(const int *in, int *out)
{
    int in_offset = blockDim.x * blockIdx.x;
    int out_offset = blockDim.x * (gridDim.x - 1 - blockIdx.x);
    out[out_offset + (blockDim.x - 1 - threadIdx.x)] = in[in_offset + threadIdx.x];
}

// Reverse staged in shared memory: the block reverses its piece there, so a
// warp reads and writes consecutive words. Dynamic shared memory: blockDim.x
// ints.
__global__ void lessons_reverse_shared(const int *in, int *out)
{
    extern __shared__ int s[];
    int in_offset = blockDim.x * blockIdx.x;
    s[blockDim.x - 1 - threadIdx.x] = in[in_offset + threadIdx.x];
    __syncthreads();
    int out_offset = blockDim.x * (gridDim.x - 1 - blockIdx.x);
    out[out_offset + threadIdx.x] = s[threadIdx.x];
}
