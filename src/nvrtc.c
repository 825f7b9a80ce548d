/* NVRTC, opened at run time and only when first needed: a process that never
 * compiles never opens it, and a machine without it still serves everything
 * the store or the shipped PTX holds. */
#include "error.h"
#include "nvrtc_loader.h"
#include "text.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cuspec__nvrtc table;
static int load_status;
static char load_detail[4096];

/* Appends "path (dlerror)" to the list of what was tried. */
static void *try_open(const char *path, char *tried, size_t size)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        size_t len = strlen(tried);
        snprintf(tried + len, size - len, "%s%s (%s)", len ? "; " : "", path, dlerror());
    }
    return lib;
}

static int resolve(void *lib, const char *path)
{
#define RESOLVE(name)                                                                              \
    table.name = (__typeof__(table.name))dlsym(lib, #name);                                        \
    if (table.name == NULL) {                                                                      \
        snprintf(load_detail, sizeof load_detail, "%s lacks %s: not a usable NVRTC", path, #name); \
        return CUSPEC_ERR_NO_NVRTC;                                                                \
    }
    CUSPEC__NVRTC_SYMBOLS(RESOLVE)
#undef RESOLVE
    cuspec_nvrtc_info *info = &table.info;
    if (table.nvrtcVersion(&info->major, &info->minor) != NVRTC_SUCCESS ||
        table.nvrtcGetNumSupportedArchs(&info->n_archs) != NVRTC_SUCCESS ||
        info->n_archs > CUSPEC_MAX_ARCHS ||
        table.nvrtcGetSupportedArchs(info->archs) != NVRTC_SUCCESS) {
        snprintf(load_detail, sizeof load_detail, "%s did not report its version and archs", path);
        return CUSPEC_ERR_NO_NVRTC;
    }
    /* dladdr names the file actually mapped (a soname resolves to a path). */
    Dl_info where;
    if (dladdr((void *)table.nvrtcVersion, &where) && where.dli_fname != NULL)
        path = where.dli_fname;
    cuspec__strlcpy(info->path, path, sizeof info->path);
    return CUSPEC_OK;
}

static void load(void)
{
    char tried[3072] = "";
    void *lib = NULL;
    const char *path = getenv("CUSPEC_LIBNVRTC");
    char buf[1024];

    if (path != NULL && *path != '\0') {
        lib = try_open(path, tried, sizeof tried);
    } else {
        for (size_t i = 0; lib == NULL && i < sizeof sonames / sizeof *sonames; i++)
            lib = try_open(path = sonames[i], tried, sizeof tried);
        for (size_t i = 0; lib == NULL && i < sizeof sonames / sizeof *sonames; i++) {
            snprintf(buf, sizeof buf, "%s/%s", CUSPEC_NVRTC_DIR, sonames[i]);
            lib = try_open(path = buf, tried, sizeof tried);
        }
    }
    if (lib == NULL) {
        load_status = CUSPEC_ERR_NO_NVRTC;
        snprintf(load_detail, sizeof load_detail,
                 "NVRTC not found (tried %s); install the CUDA toolkit's NVRTC (libnvrtc.so.13 "
                 "or .12) or set CUSPEC_LIBNVRTC to its path",
                 tried);
        return;
    }
    load_status = resolve(lib, path);
    if (load_status != CUSPEC_OK)
        dlclose(lib);
}

int cuspec__nvrtc(const struct cuspec__nvrtc **nv)
{
    pthread_once(&once, load);
    if (load_status != CUSPEC_OK)
        return cuspec__fail(load_status, "%s", load_detail);
    *nv = &table;
    return CUSPEC_OK;
}

int cuspec_nvrtc_get_info(cuspec_nvrtc_info *info)
{
    const struct cuspec__nvrtc *nv;
    CUSPEC__RETURN_IF(info == NULL, CUSPEC_ERR_INVALID, "cuspec_nvrtc_get_info: info is NULL");
    int rc = cuspec__nvrtc(&nv);
    if (rc == CUSPEC_OK)
        *info = nv->info;
    return rc;
}
