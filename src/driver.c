/* The CUDA driver, opened at run time: dlopen("libcuda.so.1") (or
 * $CUSPEC_LIBCUDA), every entry point resolved through cuGetProcAddress at a
 * pinned API version into one table, once. Nothing links libcuda, so the
 * library and the CLI run (and say why they cannot do GPU work) on machines
 * without a driver. */
#include "error.h"
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define INSTALL_HINT                                                                               \
    "install the NVIDIA driver (it provides libcuda.so.1), or set CUSPEC_LIBCUDA to the path of "  \
    "libcuda.so.1"

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cuspec__driver table;
static int load_status;
static char load_detail[2048];

static void fail_load(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
static void fail_load(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(load_detail, sizeof load_detail, fmt, ap);
    va_end(ap);
    load_status = status;
}

static void load(void)
{
    const char *path = getenv("CUSPEC_LIBCUDA");
    if (path == NULL || *path == '\0')
        path = "libcuda.so.1";

    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fail_load(CUSPEC_ERR_NO_DRIVER, "cannot open the CUDA driver %s (%s); " INSTALL_HINT, path,
                  dlerror());
        return;
    }
    get_proc_fn get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    if (get_proc == NULL) {
        fail_load(CUSPEC_ERR_DRIVER_TOO_OLD,
                  "%s has no cuGetProcAddress_v2: the driver is older than CUDA 12.0; install a "
                  "driver for CUDA 12.0 or newer",
                  path);
        goto fail;
    }

    CUresult r;
    CUdriverProcAddressQueryResult found;
/* `symbol` is the name as written, before cuda.h maps it to a versioned one
 * (cuDeviceTotalMem to cuDeviceTotalMem_v2): cuGetProcAddress wants it so. */
#define RESOLVE_AT(version, symbol, name, required)                                                \
    r = get_proc(symbol, (void **)&table.name, version,                                            \
                 CU_GET_PROC_ADDRESS_DEFAULT, &found);                                             \
    if (r == CUDA_ERROR_STUB_LIBRARY) {                                                            \
        fail_load(CUSPEC_ERR_NO_DRIVER,                                                            \
                  "%s is the CUDA toolkit's stub library, not a driver; " INSTALL_HINT, path);     \
        goto fail;                                                                                 \
    }                                                                                              \
    if ((r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS) && (required)) {               \
        fail_load(CUSPEC_ERR_DRIVER_TOO_OLD,                                                       \
                  "%s lacks %s (API %d.%d, error %d); install a newer NVIDIA driver", path, symbol, \
                  (version) / 1000, (version) % 1000 / 10,                          \
                  (int)r);                                                                         \
        goto fail;                                                                                 \
    }                                                                                              \
    if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS)                                  \
        table.name = NULL;
#define RESOLVE(name, required) RESOLVE_AT(CUSPEC__DRIVER_API_VERSION, #name, name, required)
#define RESOLVE_12_3(name, required)                                                               \
    RESOLVE_AT(CUSPEC__DRIVER_API_VERSION_12_3, #name, name, required)
    CUSPEC__DRIVER_SYMBOLS(RESOLVE)
    CUSPEC__DRIVER_SYMBOLS_12_3(RESOLVE_12_3)
#undef RESOLVE_12_3
#undef RESOLVE
#undef RESOLVE_AT

    r = table.cuInit(0);
    if (r == CUDA_ERROR_STUB_LIBRARY) {
        fail_load(CUSPEC_ERR_NO_DRIVER,
                  "%s is the CUDA toolkit's stub library, not a driver; " INSTALL_HINT, path);
        goto fail;
    }
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NO_DEVICE) {
        const char *name = "?", *text = "?";
        table.cuGetErrorName(r, &name);
        table.cuGetErrorString(r, &text);
        fail_load(CUSPEC_ERR_NO_DRIVER, "cuInit failed with %s (%s) using %s", name, text, path);
        goto fail;
    }
    table.no_device = (r == CUDA_ERROR_NO_DEVICE);
    if (table.cuDriverGetVersion(&table.version) != CUDA_SUCCESS ||
        table.version < CUSPEC__DRIVER_API_VERSION) {
        fail_load(CUSPEC_ERR_DRIVER_TOO_OLD,
                  "%s supports CUDA %d.%d; cuspec needs 12.0 or newer: install a newer NVIDIA "
                  "driver",
                  path, table.version / 1000, table.version % 1000 / 10);
        goto fail;
    }
    load_status = CUSPEC_OK;
    return; /* the library stays open for the life of the process */
fail:
    dlclose(lib);
}

int cuspec__driver(const struct cuspec__driver **drv)
{
    pthread_once(&once, load);
    if (load_status != CUSPEC_OK)
        return cuspec__fail(load_status, "%s", load_detail);
    *drv = &table;
    return CUSPEC_OK;
}

int cuspec__cu_check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return CUSPEC_OK;
    const char *name = "CUDA_ERROR_UNKNOWN", *text = "unrecognized error code";
    table.cuGetErrorName(r, &name);
    table.cuGetErrorString(r, &text);
    return cuspec__fail(CUSPEC_ERR_CUDA, "%s failed: %s (%s)", what, name, text);
}

int cuspec_driver_version(int *version)
{
    const struct cuspec__driver *drv;
    CUSPEC__RETURN_IF(version == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_driver_version: version is NULL");
    int rc = cuspec__driver(&drv);
    if (rc == CUSPEC_OK)
        *version = drv->version;
    return rc;
}
