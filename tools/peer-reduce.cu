// peer-reduce: whole-array reductions, cuspec against CUB's DeviceReduce on the
// same inputs in the same run, each call timed the same way.
//
// Built and run by tools/peer-reduce.sh (nvcc, CUB from the toolkit, the
// built libcuspec). For each dtype, op and n:
//   - the inputs: random values (floats uniform in [-1, 1), integers over
//     their range) in a pool of at least 256 MB and 4 x L2, cut into slices
//     of n elements (at least 2, so that even 2^28-element calls
//     alternate), and as many again for a dot's second inputs;
//   - one call of each library checked against the other (integer sums and
//     dots and every min, max, argmin and argmax exactly; float sums and
//     dots within 2^-20 * n of each other);
//   - C = 20..64 calls captured in one CUDA graph, call i on slice
//     i * (slices / C) (far apart in the pool) where there are 2 C slices
//     or more, else on slice i mod slices: a slice is read again only after
//     the whole pool, so no call finds its input in the L2
//     (docs/experiments/reduce.md: "tools/peer-reduce read some inputs from
//     the L2"); a dot's second input the
//     same slice of the second half (CUB's: DeviceReduce::Sum over
//     a[i] * b[i], in f32 or 64 bits as cuspec_dot); the
//     graph launched `reps` times, each launch timed alone with events after
//     the L2 is flushed (a 2 x L2 memset, not timed): device time per call
//     is the median over the launches of the launch's time / C.
// Prints one row per case: microseconds per call, GB/s of the input read (both
// inputs for dot), and
// CUB's time over cuspec's (> 1: cuspec is faster); then, at the largest n,
// each case's cuspec GB/s over cuspec's f32 sum's (the read ceiling).
//
// Usage: peer-reduce [--dtype f32,f64,f16,bf16,i8,u8,i16,u16,i32]
//                    [--op sum,min,max,argmin,argmax,dot] [--min K] [--max K] [--n N,...]
//                    [--reps R] [--device D]
// (n = 2^K for K from --min to --max in steps of 2, defaults 10 and 28; or
// the sizes --n lists, each N or 2^K.)

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuspec.h"

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "peer-reduce: %s: %s\n", #call, cudaGetErrorString(e_));               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CUSPEC_OK(call)                                                                            \
    do {                                                                                           \
        int s_ = (call);                                                                           \
        if (s_ != CUSPEC_OK) {                                                                     \
            fprintf(stderr, "peer-reduce: %s: %s: %s\n", #call, cuspec_strerror(s_),               \
                    cuspec_last_error());                                                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum Op { SUM, MIN, MAX, ARGMIN, ARGMAX, DOT };
static const char *const op_names[] = {"sum", "min", "max", "argmin", "argmax", "dot"};
enum { N_OPS = 6 };

// ---- inputs ----------------------------------------------------------------
__device__ __forceinline__ unsigned long long mix(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

template <typename T> __device__ __forceinline__ T value_of(unsigned long long r)
{
    if constexpr (std::is_integral<T>::value) {
        return (T)r;
    } else {
        float f = (float)(r >> 40) * 0x1p-23f - 1.0f; // uniform in [-1, 1)
        return (T)f;
    }
}

template <typename T> __global__ void fill_kernel(T *p, size_t count, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = value_of<T>(mix(seed + i));
}

// ---- what a library call writes ----------------------------------------------
// A sum's accumulator: i64 for the integers, f64 for f64, f32 for the other
// floats (as cuspec).
template <typename T> struct sum_of {
    typedef typename std::conditional<
        std::is_integral<T>::value, long long,
        typename std::conditional<std::is_same<T, double>::value, double, float>::type>::type type;
};
// Summed as they are: the integers and f64; halves and bfloat16s widened to f32.
template <typename T>
constexpr bool sums_itself = std::is_integral<T>::value || std::is_same<T, double>::value;

struct to_float {
    template <typename T> __host__ __device__ float operator()(T x) const
    {
        return (float)x;
    }
};

// Element i of a dot: a[i] * b[i] in the sum's type (halves widened to f32
// first, integers to 64 bits), as cuspec_dot computes it.
template <typename T> struct product {
    const T *a, *b;
    __host__ __device__ typename sum_of<T>::type operator()(long long i) const
    {
        typedef typename sum_of<T>::type S;
        if constexpr (sums_itself<T>)
            return (S)a[i] * (S)b[i];
        else
            return (float)a[i] * (float)b[i];
    }
};
template <typename T>
static thrust::transform_iterator<product<T>, thrust::counting_iterator<long long>>
products(const T *a, const T *b)
{
    return thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                           product<T>{a, b});
}

// cuspec's dtype of T.
template <typename T> constexpr int dtype_id()
{
    if constexpr (std::is_same<T, float>::value)
        return CUSPEC_F32;
    else if constexpr (std::is_same<T, double>::value)
        return CUSPEC_F64;
    else if constexpr (std::is_same<T, __half>::value)
        return CUSPEC_F16;
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        return CUSPEC_BF16;
    else if constexpr (std::is_same<T, int8_t>::value)
        return CUSPEC_I8;
    else if constexpr (std::is_same<T, uint8_t>::value)
        return CUSPEC_U8;
    else if constexpr (std::is_same<T, int16_t>::value)
        return CUSPEC_I16;
    else if constexpr (std::is_same<T, uint16_t>::value)
        return CUSPEC_U16;
    else {
        static_assert(std::is_same<T, int32_t>::value, "a dtype peer-reduce times");
        return CUSPEC_I32;
    }
}

// Output slots of one call: 8 bytes of value (or sum), then the index.
struct Out {
    unsigned char value[8];
    long long index;
};

// One CUB call (temp: the caller's scratch, large enough).
template <typename T>
static void cub_call(Op op, const T *in, const T *in2, size_t n, Out *out, void *temp,
                     size_t temp_bytes, cudaStream_t s)
{
    size_t bytes = temp_bytes;
    T *value = reinterpret_cast<T *>(out->value);
    switch (op) {
    case SUM:
        if constexpr (sums_itself<T>) {
            CUDA_OK(cub::DeviceReduce::Sum(temp, bytes, in,
                                           reinterpret_cast<typename sum_of<T>::type *>(value),
                                           (long long)n, s));
        } else {
            // Halves and bfloat16s summed in f32, as cuspec does.
            auto wide = thrust::make_transform_iterator(in, to_float());
            CUDA_OK(cub::DeviceReduce::Sum(temp, bytes, wide, reinterpret_cast<float *>(value),
                                           (long long)n, s));
        }
        break;
    case MIN:
        CUDA_OK(cub::DeviceReduce::Min(temp, bytes, in, value, (long long)n, s));
        break;
    case MAX:
        CUDA_OK(cub::DeviceReduce::Max(temp, bytes, in, value, (long long)n, s));
        break;
    case ARGMIN:
        CUDA_OK(cub::DeviceReduce::ArgMin(temp, bytes, in, value,
                                          reinterpret_cast<int64_t *>(&out->index), (int64_t)n, s));
        break;
    case ARGMAX:
        CUDA_OK(cub::DeviceReduce::ArgMax(temp, bytes, in, value,
                                          reinterpret_cast<int64_t *>(&out->index), (int64_t)n, s));
        break;
    case DOT:
        CUDA_OK(cub::DeviceReduce::Sum(temp, bytes, products(in, in2),
                                       reinterpret_cast<typename sum_of<T>::type *>(value),
                                       (long long)n, s));
        break;
    }
}

// The scratch CUB asks for, for op on n elements.
template <typename T> static size_t cub_temp(Op op, size_t n)
{
    size_t bytes = 0;
    T *in = nullptr;
    Out *out = nullptr;
    T *value = reinterpret_cast<T *>(out);
    switch (op) {
    case SUM:
        if constexpr (sums_itself<T>)
            CUDA_OK(cub::DeviceReduce::Sum(nullptr, bytes, in, (typename sum_of<T>::type *)value,
                                           (long long)n));
        else
            CUDA_OK(cub::DeviceReduce::Sum(nullptr, bytes,
                                           thrust::make_transform_iterator(in, to_float()),
                                           (float *)value, (long long)n));
        break;
    case MIN:
        CUDA_OK(cub::DeviceReduce::Min(nullptr, bytes, in, value, (long long)n));
        break;
    case MAX:
        CUDA_OK(cub::DeviceReduce::Max(nullptr, bytes, in, value, (long long)n));
        break;
    case ARGMIN:
        CUDA_OK(
            cub::DeviceReduce::ArgMin(nullptr, bytes, in, value, (int64_t *)nullptr, (int64_t)n));
        break;
    case ARGMAX:
        CUDA_OK(
            cub::DeviceReduce::ArgMax(nullptr, bytes, in, value, (int64_t *)nullptr, (int64_t)n));
        break;
    case DOT:
        CUDA_OK(cub::DeviceReduce::Sum(nullptr, bytes, products(in, in),
                                       (typename sum_of<T>::type *)value, (long long)n));
        break;
    }
    return bytes;
}

static cuspec_ctx *ctx;

template <typename T>
static void cuspec_call(Op op, const T *in, const T *in2, size_t n, Out *out, cudaStream_t s)
{
    cuspec_devptr p = (cuspec_devptr)(uintptr_t)in, o = (cuspec_devptr)(uintptr_t)out;
    if (op == DOT)
        CUSPEC_OK(cuspec_dot(ctx, dtype_id<T>(), p, (cuspec_devptr)(uintptr_t)in2, n, o, s));
    else if (op == ARGMIN || op == ARGMAX)
        CUSPEC_OK(cuspec_argreduce(ctx, op == ARGMIN ? CUSPEC_ARGMIN : CUSPEC_ARGMAX, dtype_id<T>(),
                                   p, n, o, o + offsetof(Out, index), s));
    else
        CUSPEC_OK(cuspec_reduce(ctx, op, dtype_id<T>(), p, n, o, s));
}

// ---- timing ------------------------------------------------------------------
struct Bench {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush; // 2 x L2 bytes, memset before each timed launch
    size_t flush_bytes;
    int reps;
};

// Median device microseconds per call of `calls` calls of fn(i) in one graph.
template <typename F> static double graph_us(Bench &b, int calls, F fn)
{
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeRelaxed));
    for (int i = 0; i < calls; i++)
        fn(i);
    CUDA_OK(cudaStreamEndCapture(b.stream, &g));
    CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_OK(cudaGraphLaunch(exec, b.stream)); // uploads the graph; warms up
    std::vector<double> t;
    for (int r = 0; r < b.reps; r++) {
        float ms;
        CUDA_OK(cudaMemsetAsync(b.flush, r & 0xff, b.flush_bytes, b.stream));
        CUDA_OK(cudaEventRecord(b.start, b.stream));
        CUDA_OK(cudaGraphLaunch(exec, b.stream));
        CUDA_OK(cudaEventRecord(b.stop, b.stream));
        CUDA_OK(cudaEventSynchronize(b.stop));
        CUDA_OK(cudaEventElapsedTime(&ms, b.start, b.stop));
        t.push_back(ms * 1e3 / calls);
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(g));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// The two results agree: integer sums and every other op exactly (the same
// element, the same index), float sums within 2^-20 * n.
template <typename T> static bool agree(Op op, size_t n, const Out &a, const Out &b)
{
    if (op == SUM || op == DOT) {
        typedef typename sum_of<T>::type S;
        S x, y;
        memcpy(&x, a.value, sizeof x);
        memcpy(&y, b.value, sizeof y);
        if constexpr (std::is_integral<S>::value)
            return x == y;
        else
            return std::abs((double)x - (double)y) <= 0x1p-20 * (double)n;
    }
    return memcmp(a.value, b.value, sizeof(T)) == 0 && (op < ARGMIN || a.index == b.index);
}

struct Row {
    std::string dtype;
    Op op;
    size_t n;
    double cuspec_gbs;
};
static std::vector<Row> rows;

template <typename T>
static void run_dtype(Bench &b, const char *name, const std::vector<Op> &ops,
                      const std::vector<size_t> &sizes)
{
    const size_t pool_min = std::max<size_t>(256u << 20, 2 * b.flush_bytes);
    for (size_t n : sizes) {
        size_t bytes = n * sizeof(T);
        size_t slice = (bytes + 255) / 256 * 256;
        size_t slices = std::max<size_t>(2, (pool_min + slice - 1) / slice);
        int calls = (int)std::min<size_t>(64, std::max<size_t>(20, slices));
        size_t stride = slices >= 2 * (size_t)calls ? slices / calls : 1;
        size_t halves = std::count(ops.begin(), ops.end(), DOT) ? 2 : 1; // the second: dots'
        unsigned char *pool;
        Out *outs;
        CUDA_OK(cudaMalloc(&pool, halves * slices * slice));
        CUDA_OK(cudaMalloc(&outs, 2 * (size_t)calls * sizeof(Out)));
        fill_kernel<T><<<4096, 256, 0, b.stream>>>(reinterpret_cast<T *>(pool),
                                                   halves * slices * slice / sizeof(T),
                                                   0x9E3779B97F4A7C15ULL * (unsigned long long)n);
        CUDA_OK(cudaGetLastError());
        auto at = [&](int i) {
            return reinterpret_cast<const T *>(pool + (size_t)i * stride % slices * slice);
        };
        // A dot's second input: the same slice of the second half.
        auto at2 = [&](int i) { return at(i) + (halves - 1) * slices * slice / sizeof(T); };
        for (Op op : ops) {
            size_t temp_bytes = cub_temp<T>(op, n);
            void *temp;
            CUDA_OK(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
            Out got[2];
            cub_call<T>(op, at(0), at2(0), n, outs, temp, temp_bytes, b.stream);
            cuspec_call<T>(op, at(0), at2(0), n, outs + 1, b.stream);
            CUDA_OK(cudaMemcpyAsync(got, outs, sizeof got, cudaMemcpyDeviceToHost, b.stream));
            CUDA_OK(cudaStreamSynchronize(b.stream));
            bool same = agree<T>(op, n, got[0], got[1]);
            // Each call writes its own output; CUB's calls share its scratch,
            // as back-to-back calls on one stream may.
            double cub_us = graph_us(b, calls, [&](int i) {
                cub_call<T>(op, at(i), at2(i), n, outs + i, temp, temp_bytes, b.stream);
            });
            double cuspec_us = graph_us(b, calls, [&](int i) {
                cuspec_call<T>(op, at(i), at2(i), n, outs + calls + i, b.stream);
            });
            const double read = (op == DOT ? 2.0 : 1.0) * bytes; // a dot reads two inputs
            double cuspec_gbs = read / cuspec_us / 1e3, cub_gbs = read / cub_us / 1e3;
            printf("%-6s %-6s %11zu %10.2f %10.2f %9.0f %9.0f %7.3f  %s\n", name, op_names[op], n,
                   cub_us, cuspec_us, cub_gbs, cuspec_gbs, cub_us / cuspec_us,
                   same ? "ok" : "DIFFER");
            fflush(stdout);
            rows.push_back({name, op, n, cuspec_gbs});
            CUDA_OK(cudaFree(temp));
        }
        CUDA_OK(cudaFree(outs));
        CUDA_OK(cudaFree(pool));
    }
}

static std::vector<std::string> split(const char *s)
{
    std::vector<std::string> v;
    std::string cur;
    for (const char *p = s;; p++) {
        if (*p == ',' || *p == '\0') {
            if (!cur.empty())
                v.push_back(cur);
            cur.clear();
            if (*p == '\0')
                break;
        } else {
            cur += *p;
        }
    }
    return v;
}

static const char usage_text[] = "Usage: peer-reduce [--dtype f32,f64,f16,bf16,i8,u8,i16,u16,i32] "
                                 "[--op sum,min,max,argmin,argmax,dot] [--min K] [--max K] "
                                 "[--n N,...] [--reps R] [--device D]\n"
                                 "  n: 2^K for every other K from --min to --max (10, 28), "
                                 "or the sizes --n lists (N or 2^K; then --min and --max are not used)\n";

static void usage(const char *why)
{
    fprintf(stderr, "peer-reduce: %s\n%s", why, usage_text);
    exit(2);
}

int main(int argc, char **argv)
{
    std::vector<std::string> dtypes = split("f32,f16,bf16,i8,i32");
    std::vector<Op> ops = {SUM, MIN, MAX, ARGMIN, ARGMAX};
    int kmin = 10, kmax = 28, device = 0;
    std::vector<size_t> sizes;
    Bench b;
    b.reps = 15;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--help") {
            fputs(usage_text, stdout);
            return 0;
        }
        if (i + 1 >= argc)
            usage(("'" + a + "' needs a value").c_str());
        const char *v = argv[++i];
        if (a == "--dtype") {
            dtypes = split(v);
        } else if (a == "--op") {
            ops.clear();
            for (const std::string &o : split(v)) {
                int k = 0;
                while (k < N_OPS && o != op_names[k])
                    k++;
                if (k == N_OPS)
                    usage(("unknown op '" + o + "'").c_str());
                ops.push_back((Op)k);
            }
        } else if (a == "--n") {
            sizes.clear();
            for (const std::string &x : split(v)) {
                uint64_t n = 0;
                if (cuspec_parse_size(x.c_str(), &n) != CUSPEC_OK || n == 0 || n > (1ULL << 30))
                    usage(("--n: '" + x + "' is not a size from 1 to 2^30").c_str());
                sizes.push_back((size_t)n);
            }
            if (sizes.empty())
                usage("--n: no size given");
        } else if (a == "--min" || a == "--max" || a == "--reps" || a == "--device") {
            int x = atoi(v);
            if (a == "--min")
                kmin = x;
            else if (a == "--max")
                kmax = x;
            else if (a == "--reps")
                b.reps = x;
            else
                device = x;
        } else {
            usage(("unknown option '" + a + "'").c_str());
        }
    }
    if (kmin < 0 || kmax > 30 || kmin > kmax || b.reps < 1)
        usage("--min and --max: 0 <= min <= max <= 30; --reps: at least 1");
    if (sizes.empty())
        for (int k = kmin; k <= kmax; k += 2)
            sizes.push_back((size_t)1 << k);

    CUDA_OK(cudaSetDevice(device));
    CUDA_OK(cudaFree(nullptr)); // the primary context, which cuspec retains too
    CUSPEC_OK(cuspec_ctx_create(&ctx, device));
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, device));
    CUDA_OK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&b.start));
    CUDA_OK(cudaEventCreate(&b.stop));
    b.flush_bytes = 2 * (size_t)prop.l2CacheSize;
    CUDA_OK(cudaMalloc(&b.flush, b.flush_bytes));
    printf("# %s (sm_%d%d, %d SMs, L2 %d MB); cuspec %s; CUB %d.%d.%d\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, cuspec_version(),
           CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    printf("# device us per call: median of %d graph launches of 20-64 calls, L2 flushed before "
           "each; GB/s of the input read\n",
           b.reps);
    printf("%-6s %-6s %11s %10s %10s %9s %9s %7s  %s\n", "dtype", "op", "n", "cub_us", "cuspec_us",
           "cub_GB/s", "cus_GB/s", "cub/cus", "check");
    for (const std::string &d : dtypes) {
        if (d == "f32")
            run_dtype<float>(b, "f32", ops, sizes);
        else if (d == "f16")
            run_dtype<__half>(b, "f16", ops, sizes);
        else if (d == "bf16")
            run_dtype<__nv_bfloat16>(b, "bf16", ops, sizes);
        else if (d == "i8")
            run_dtype<int8_t>(b, "i8", ops, sizes);
        else if (d == "u8")
            run_dtype<uint8_t>(b, "u8", ops, sizes);
        else if (d == "i16")
            run_dtype<int16_t>(b, "i16", ops, sizes);
        else if (d == "u16")
            run_dtype<uint16_t>(b, "u16", ops, sizes);
        else if (d == "i32")
            run_dtype<int32_t>(b, "i32", ops, sizes);
        else if (d == "f64")
            run_dtype<double>(b, "f64", ops, sizes);
        else
            usage(
                ("unknown dtype '" + d + "' (f32, f64, f16, bf16, i8, u8, i16, u16, i32)").c_str());
    }

    // Against the read ceiling: cuspec's f32 sum at the largest n.
    double ceiling = 0;
    size_t top = 0;
    for (const Row &r : rows)
        top = std::max(top, r.n);
    for (const Row &r : rows)
        if (r.n == top && r.dtype == "f32" && r.op == SUM)
            ceiling = r.cuspec_gbs;
    if (ceiling > 0) {
        printf("\n# at n = %zu, cuspec's GB/s over its f32 sum's (%.0f GB/s):\n", top, ceiling);
        for (const Row &r : rows)
            if (r.n == top)
                printf("%-6s %-6s %7.3f\n", r.dtype.c_str(), op_names[r.op],
                       r.cuspec_gbs / ceiling);
    }
    cuspec_ctx_destroy(ctx);
    return 0;
}
