/* cuspec example: a sum and a transpose on device memory from cuMemAlloc.
 *
 * Build against an installed cuspec and the CUDA toolkit's driver API (cuspec
 * itself opens the driver at run time; this program calls it to allocate):
 *
 *   cc reduce_transpose.c $(pkg-config --cflags --libs cuspec) \
 *      -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
 *
 * or with CMake: examples/CMakeLists.txt. Exit status: 0 the results are
 * right, 1 a call failed or a result is wrong, 77 no usable driver or GPU. */
#include <cuda.h>
#include <cuspec.h>

#include <stdio.h>
#include <stdlib.h>

#define ROWS 300
#define COLS 200

/* A failed cuspec call: its status, and the detail of what went wrong. */
static int cuspec_failed(const char *what, int status)
{
    fprintf(stderr, "%s: %s: %s\n", what, cuspec_strerror(status), cuspec_last_error());
    return status == CUSPEC_ERR_NO_DRIVER || status == CUSPEC_ERR_NO_DEVICE ? 77 : 1;
}

static int cuda_failed(const char *what, CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "%s: %s\n", what, name != NULL ? name : "unknown CUDA error");
    return 1;
}

int main(void)
{
    static float a[ROWS * COLS], t[COLS * ROWS];
    double sum = 0, got = 0;
    for (int i = 0; i < ROWS * COLS; i++) {
        a[i] = (float)(i % 17);
        sum += a[i];
    }

    /* cuspec retains the device's primary context; make it current here too,
     * for this program's own allocations and copies. */
    cuspec_ctx *ctx = NULL;
    int rc = cuspec_ctx_create(&ctx, 0);
    if (rc != CUSPEC_OK)
        return cuspec_failed("cuspec_ctx_create", rc);
    CUdevice dev;
    CUcontext primary;
    CUresult r = cuDeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS)
        r = cuDevicePrimaryCtxRetain(&primary, dev);
    if (r != CUDA_SUCCESS) {
        cuspec_ctx_destroy(ctx);
        return cuda_failed("cuDevicePrimaryCtxRetain", r);
    }
    int status = 1;
    CUdeviceptr d_a = 0, d_t = 0, d_sum = 0;
    if ((r = cuCtxSetCurrent(primary)) != CUDA_SUCCESS ||
        (r = cuMemAlloc(&d_a, sizeof a)) != CUDA_SUCCESS ||
        (r = cuMemAlloc(&d_t, sizeof t)) != CUDA_SUCCESS ||
        (r = cuMemAlloc(&d_sum, sizeof(float))) != CUDA_SUCCESS ||
        (r = cuMemcpyHtoD(d_a, a, sizeof a)) != CUDA_SUCCESS) {
        status = cuda_failed("allocating and filling device memory", r);
        goto out;
    }

    /* Both run on the legacy default stream (NULL), in order. */
    float device_sum = 0;
    if ((rc = cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, d_a, ROWS * COLS, d_sum, NULL)) !=
        CUSPEC_OK) {
        status = cuspec_failed("cuspec_reduce", rc);
        goto out;
    }
    if ((rc = cuspec_transpose(ctx, CUSPEC_F32, d_a, ROWS, COLS, COLS, d_t, ROWS, NULL)) !=
        CUSPEC_OK) {
        status = cuspec_failed("cuspec_transpose", rc);
        goto out;
    }
    if ((r = cuMemcpyDtoH(&device_sum, d_sum, sizeof device_sum)) != CUDA_SUCCESS ||
        (r = cuMemcpyDtoH(t, d_t, sizeof t)) != CUDA_SUCCESS) {
        status = cuda_failed("cuMemcpyDtoH", r);
        goto out;
    }
    got = device_sum;

    int wrong = 0;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            wrong += t[j * ROWS + i] != a[i * COLS + j];
    printf("sum of %d floats: %.1f (expected %.1f)\n", ROWS * COLS, got, sum);
    printf("transpose %dx%d: %d of %d elements wrong\n", ROWS, COLS, wrong, ROWS * COLS);
    status = got == sum && wrong == 0 ? 0 : 1; /* small integers: the sum is exact */
out:
    for (CUdeviceptr *p = (CUdeviceptr[]){d_a, d_t, d_sum}, *e = p + 3; p < e; p++)
        if (*p != 0)
            cuMemFree(*p);
    cuDevicePrimaryCtxRelease(dev);
    cuspec_ctx_destroy(ctx);
    return status;
}
