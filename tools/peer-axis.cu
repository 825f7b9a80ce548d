// peer-axis: reductions along an axis, cuspec against its peers on the same
// inputs, timed the same way: f32 sum and argmax of a rows x cols matrix, one
// result per row (rows) or per column (cols), by cuspec_reduce_rows/_cols,
// CUB's DeviceSegmentedReduce (fixed-size segments: rows only) and, read from
// the file tools/peer-axis.py writes, PyTorch (torch.sum / torch.argmax along
// a dim). Each call's input is one of a pool of matrices larger than 256 MB
// in all (so the L2 holds none), calls captured in a CUDA graph, device time
// per call. Prints us, GB/s (bytes read), the ratios to the copy ceiling
// (cudaMemcpy's bytes read + written per second) and to the read ceiling
// (cuspec's f32 sum of 2^28 elements, GB/s read: issue 26 asks 0.9 of it),
// and the fastest peer's time over cuspec's (> 1: cuspec is faster); and
// for each shape the read floor, a kernel that only reads the matrix, and
// for each call that floor writing the call's results' bytes alongside.
//
// Build and run: tools/peer-axis.sh (nvcc, the tree's libcuspec).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "cuspec.h"
}

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CS(x)                                                                                      \
    do {                                                                                           \
        int s_ = (x);                                                                              \
        if (s_ != CUSPEC_OK) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cuspec_last_error());       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const size_t POOL_BYTES = 256u << 20;

__global__ void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (float)(h & 0xffff) / 32768.0f - 1.0f;
    }
}

__global__ void offsets(long long *begin, long long *end, size_t rows, size_t cols)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < rows) {
        begin[i] = (long long)(i * cols);
        end[i] = (long long)(i * cols + cols);
    }
}

// The floor of a matrix: each block reads a 16 KB tile once through L1 and
// adds it up (`keep`, which would add it to *out, is never set); where w4 is
// not 0, each block then writes its share of w4 16-byte vectors to w, a run
// of them, as a reduction writes its results behind its reads. With w4 = 0
// no reduction of the same bytes takes less; with its results' bytes,
// none that writes them (docs/experiments/reduce_axis.md, "A floor in the
// same run", "A floor with the results' writes in the same run"). n4:
// 16-byte vectors (a last partial one is not read).
__global__ void __launch_bounds__(256)
    floor_kernel(const float4 *x, size_t n4, int keep, float *out, float4 *w, size_t w4)
{
    const size_t i = blockIdx.x * (size_t)1024 + threadIdx.x;
    float4 v[4];
    for (int j = 0; j < 4; j++)
        v[j] = i + j * 256 < n4 ? __ldg(x + i + j * 256) : make_float4(0, 0, 0, 0);
    float s = 0;
    for (int j = 0; j < 4; j++)
        s += v[j].x + v[j].y + v[j].z + v[j].w;
    if (keep)
        atomicAdd(out, s);
    const size_t share = (w4 + gridDim.x - 1) / gridDim.x, first = blockIdx.x * share;
    for (size_t k = first + threadIdx.x; k < first + share && k < w4; k += 256)
        w[k] = make_float4(s, s, s, s);
}

// The warm-up before each timing: the clocks of an idle GPU take
// milliseconds to rise.
static const float WARM_MS = 50.0f;

// Device milliseconds of `times` runs of `run()` between two events, after a
// warm-up: single runs, each waited for, until their time adds up to WARM_MS.
template <typename F> static float warm_then_ms(cudaStream_t st, int times, F run)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    auto timed = [&](int k) {
        CK(cudaEventRecord(a, st));
        for (int r = 0; r < k; r++)
            run();
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        return ms;
    };
    for (float warm = 0; warm < WARM_MS;)
        warm += timed(1);
    float ms = timed(times);
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms;
}

// Device microseconds per call of `call(i)` (i: the pool slot), `n` calls
// captured in one graph, the graph launched `reps` times after the warm-up.
template <typename F> static double graph_us(cudaStream_t st, int n, int reps, F call)
{
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
    for (int i = 0; i < n; i++)
        call(i);
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    float ms = warm_then_ms(st, reps, [&]() { CK(cudaGraphLaunch(ge, st)); });
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    return ms * 1e3 / ((double)n * reps);
}

// Device microseconds per call of `call()`, `n` calls launched one by one
// after the warm-up.
template <typename F> static double events_us(cudaStream_t st, int n, F call)
{
    return warm_then_ms(st, n, call) * 1e3 / n;
}

// One line of the table: `who` took `us` a call to read `bytes`; x peer
// where x_peer is not negative.
static void print_row(const char *shape, const char *axis, const char *op, const char *who,
                      double us, size_t bytes, double copy_gbs, double read_gbs, double x_peer)
{
    const double gbs = bytes / us / 1e3;
    printf("%-12s %-4s %-6s %-16s %10.2f %9.0f %8.3f %8.3f", shape, axis, op, who, us, gbs,
           gbs / copy_gbs, gbs / read_gbs);
    if (x_peer >= 0)
        printf(" %9.3f", x_peer);
    printf("\n");
}

struct torch_row {
    std::string shape, axis, op;
    double us;
};

static std::vector<torch_row> read_torch(const char *path)
{
    std::vector<torch_row> rows;
    FILE *f = path ? fopen(path, "r") : nullptr;
    char shape[64], axis[16], op[16];
    double us;
    while (f && fscanf(f, "%63s %15s %15s %lf", shape, axis, op, &us) == 4)
        rows.push_back({shape, axis, op, us});
    if (f)
        fclose(f);
    return rows;
}

int main(int argc, char **argv)
{
    const char *shapes = "8192x8192,4096x4096,65536x1024,1048576x32,32x1048576";
    const char *torch_path = nullptr;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--shapes"))
            shapes = argv[i + 1];
        else if (!strcmp(argv[i], "--torch"))
            torch_path = argv[i + 1];
    }
    std::vector<torch_row> torch = read_torch(torch_path);
    CK(cudaFree(0)); // the primary context, which cuspec shares
    cuspec_ctx *ctx;
    CS(cuspec_ctx_create(&ctx, 0));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));

    // The ceiling: 1 GiB copies, read + written, launched one by one (a graph's
    // memcpy node may run on the copy engine, slower than the SMs' copy).
    size_t cbytes = 1u << 30;
    void *src, *dst;
    CK(cudaMalloc(&src, cbytes));
    CK(cudaMalloc(&dst, cbytes));
    double copy_us = events_us(st, 20, [&]() {
        CK(cudaMemcpyAsync(dst, src, cbytes, cudaMemcpyDeviceToDevice, st));
    });
    double copy_gbs = 2.0 * cbytes / copy_us / 1e3;
    // The read ceiling (issue 26's): cuspec's f32 sum of 2^28 elements, the same 1 GiB.
    double read_us = graph_us(st, 4, 5, [&](int) {
        CS(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, (cuspec_devptr)src, cbytes / 4,
                         (cuspec_devptr)dst, st));
    });
    double read_gbs = cbytes / read_us / 1e3;
    CK(cudaFree(src));
    CK(cudaFree(dst));
    printf("%s: copy ceiling %.0f GB/s (read + written); read ceiling %.0f GB/s (f32 sum of "
           "2^28)\n\n",
           prop.name, copy_gbs, read_gbs);
    printf("%-12s %-4s %-6s %-16s %10s %9s %8s %8s %9s\n", "shape", "axis", "op", "who", "us",
           "GB/s", "x copy", "x read", "x peer");

    char list[1024];
    snprintf(list, sizeof list, "%s", shapes);
    for (char *tok = strtok(list, ","); tok; tok = strtok(nullptr, ",")) {
        size_t rows = strtoull(tok, nullptr, 10),
               cols = strtoull(strchr(tok, 'x') + 1, nullptr, 10);
        size_t n = rows * cols, bytes = n * sizeof(float);
        int pool = (int)((POOL_BYTES + bytes - 1) / bytes);
        pool = pool < 2 ? 2 : pool;
        int calls = pool < 20 ? 20 : pool;
        std::vector<float *> in(pool);
        for (int p = 0; p < pool; p++) {
            CK(cudaMalloc(&in[p], bytes));
            fill<<<1024, 256>>>(in[p], n, 1234u + p);
        }
        size_t most = rows > cols ? rows : cols;
        float *val;
        long long *idx, *begin, *end;
        cub::KeyValuePair<int, float> *kv;
        CK(cudaMalloc(&val, most * sizeof(float)));
        CK(cudaMalloc(&idx, most * sizeof(long long)));
        float4 *written; // the floor's results: a value and an index each, at most
        CK(cudaMalloc(&written, most * (sizeof(float) + sizeof(long long)) + 16));
        CK(cudaMalloc(&kv, rows * sizeof *kv));
        CK(cudaMalloc(&begin, rows * sizeof(long long)));
        CK(cudaMalloc(&end, rows * sizeof(long long)));
        offsets<<<(unsigned)((rows + 255) / 256), 256>>>(begin, end, rows, cols);
        size_t temp_sum = 0, temp_arg = 0;
        CK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_sum, in[0], val, (int)rows, begin, end));
        CK(cub::DeviceSegmentedReduce::ArgMax(nullptr, temp_arg, in[0], kv, (int)rows, begin, end));
        void *temp;
        CK(cudaMalloc(&temp, temp_sum > temp_arg ? temp_sum : temp_arg));
        CK(cudaDeviceSynchronize());
        cuspec_matrix m = {rows, cols, cols, 1, 0};
        // The floor reading the matrix and writing `results` bytes (a vector at least).
        auto floor_us = [&](size_t results) {
            return graph_us(st, calls, 3, [&](int i) {
                floor_kernel<<<(unsigned)((n / 4 + 1023) / 1024), 256, 0, st>>>(
                    (const float4 *)in[i % pool], n / 4, 0, val, written, (results + 15) / 16);
            });
        };
        if (n >= 4)
            print_row(tok, "-", "read", "floor", floor_us(0), bytes, copy_gbs, read_gbs, -1);

        for (int axis = 0; axis < 2; axis++)
            for (int op = 0; op < 2; op++) {
                const char *an = axis ? "cols" : "rows", *on = op ? "argmax" : "sum";
                double us = graph_us(st, calls, 3, [&](int i) {
                    float *x = in[i % pool];
                    int o = op ? CUSPEC_ARGMAX : CUSPEC_SUM;
                    CS((axis ? cuspec_reduce_cols : cuspec_reduce_rows)(
                        ctx, o, CUSPEC_F32, (cuspec_devptr)x, &m, (cuspec_devptr)val,
                        op ? (cuspec_devptr)idx : 0, st));
                });
                double best_peer = 0;
                struct {
                    const char *who;
                    double us;
                } peers[2];
                int n_peers = 0;
                if (!axis) {
                    size_t tb = op ? temp_arg : temp_sum;
                    peers[n_peers].who = "cub segmented";
                    peers[n_peers++].us = graph_us(st, calls, 3, [&](int i) {
                        float *x = in[i % pool];
                        size_t t = tb;
                        if (op)
                            CK(cub::DeviceSegmentedReduce::ArgMax(temp, t, x, kv, (int)rows, begin,
                                                                  end, st));
                        else
                            CK(cub::DeviceSegmentedReduce::Sum(temp, t, x, val, (int)rows, begin,
                                                               end, st));
                    });
                }
                for (const torch_row &t : torch)
                    if (t.shape == tok && t.axis == an && t.op == on) {
                        peers[n_peers].who = "torch";
                        peers[n_peers++].us = t.us;
                    }
                for (int p = 0; p < n_peers; p++)
                    if (best_peer == 0 || peers[p].us < best_peer)
                        best_peer = peers[p].us;
                print_row(tok, an, on, "cuspec", us, bytes, copy_gbs, read_gbs,
                          best_peer > 0 ? best_peer / us : 0.0);
                for (int p = 0; p < n_peers; p++)
                    print_row(tok, an, on, peers[p].who, peers[p].us, bytes, copy_gbs, read_gbs,
                              -1);
                // The floor with this call's results: a value (and argmax's 8-byte
                // index) a row or a column.
                if (n >= 4)
                    print_row(tok, an, on, "floor + results",
                              floor_us((axis ? cols : rows) * (op ? 12 : 4)), bytes, copy_gbs,
                              read_gbs, -1);
            }
        for (int p = 0; p < pool; p++)
            CK(cudaFree(in[p]));
        CK(cudaFree(val));
        CK(cudaFree(idx));
        CK(cudaFree(written));
        CK(cudaFree(kv));
        CK(cudaFree(begin));
        CK(cudaFree(end));
        CK(cudaFree(temp));
    }
    CK(cudaStreamDestroy(st));
    cuspec_ctx_destroy(ctx);
    return 0;
}
