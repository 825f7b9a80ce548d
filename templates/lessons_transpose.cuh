// cuspec lessons transpose: the matrix transpose, step by step, as it is taught
// (kernels short and readable, not tuned; cuspec's own are transpose_*.cuh).
//
// out (cols x rows) = in (rows x cols) transposed, both row-major floats, rows
// and cols multiples of TILE. Launch: grid (cols / TILE, rows / TILE); block
// (TILE, TILE), but (TILE, SIDE) for lessons_transpose_unrolled.

// Naive: one element per thread; a warp reads a row (coalesced) but writes a
// column, one 32-byte sector for each 4-byte element.
template <int TILE>
__global__ void lessons_transpose_naive(const float *in, float *out, int rows, int cols)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    out[x * rows + y] = in[y * cols + x];
}

// Coalesced: the block stages a TILE x TILE tile in shared memory, so that a
// warp writes a row of the output too; reading a column of the tile hits one
// bank 32 times.
template <int TILE>
__global__ void lessons_transpose_coalesced(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

// No bank conflicts: one column of padding puts the 32 elements of a tile
// column in 32 different banks.
template <int TILE>
__global__ void lessons_transpose_padded(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

// Loop unrolled: SIDE rows of threads, each moving TILE / SIDE elements: fewer
// threads share the index arithmetic and keep more loads in flight.
template <int TILE, int SIDE>
__global__ void lessons_transpose_unrolled(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += SIDE)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += SIDE)
        out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
