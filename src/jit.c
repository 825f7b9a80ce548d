/* NVRTC: one template instance, named by its name expression, compiled to a
 * cubin for the device's own sm_XY (or to PTX for the newest arch NVRTC
 * knows, which the driver then compiles). The log is always read first and
 * kept for the error report. */
#include "jit.h"
#include "error.h"
#include "nvrtc_loader.h"
#include "ptxas.h"
#include "store.h"
#include "text.h"
#include "twins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STD_OPTION "-std=c++17"
/* Leaves out texture, surface and device-runtime declarations the templates
 * never use: a shorter compile (NVRTC 12.4 and newer). Part of every key,
 * though older NVRTC compiles without it: the code is the same. */
#define MINIMAL_OPTION "-minimal"

void cuspec__jit_options(int arch, char *buf, size_t size)
{
    snprintf(buf, size, STD_OPTION " " MINIMAL_OPTION " --gpu-architecture=sm_%d", arch);
}

/* The arch to compile for: sm_`arch` itself when NVRTC knows it (cubin), else
 * the newest compute arch it knows (PTX, which a newer driver can JIT). */
static int pick_target(const cuspec_nvrtc_info *info, int arch, int *ptx)
{
    int best = 0;
    for (int i = 0; i < info->n_archs; i++) {
        if (info->archs[i] == arch) {
            *ptx = 0;
            return arch;
        }
        if (info->archs[i] < arch && info->archs[i] > best)
            best = info->archs[i];
    }
    *ptx = 1;
    return best;
}

/* NVRTC's PTX of prog (a cubin compile), kept for the twin archs. */
static void keep_ptx(const struct cuspec__nvrtc *nv, nvrtcProgram prog,
                     const struct cuspec__file *tmpl, const char *name, int arch,
                     const char *lowered, int probe)
{
    size_t len = 0;
    char *ptx = NULL;
    if (nv->nvrtcGetPTXSize(prog, &len) == NVRTC_SUCCESS && len > 0 &&
        (ptx = malloc(len)) != NULL && nv->nvrtcGetPTX(prog, ptx) == NVRTC_SUCCESS) {
        ptx[len - 1] = '\0';
        cuspec__twin_keep(tmpl, name, arch, lowered, ptx, probe);
    } else {
        free(ptx);
        cuspec__twin_drop(probe);
    }
}

int cuspec__jit(const struct cuspec__file *tmpl, const char *name, int arch, int twins,
                struct cuspec__image *img, char nvrtc_version[16])
{
    const struct cuspec__nvrtc *nv;
    nvrtcProgram prog = NULL;
    char *log = NULL;
    int rc = cuspec__nvrtc(&nv);
    if (rc != CUSPEC_OK)
        return rc;
    memset(img, 0, sizeof *img);
    snprintf(nvrtc_version, 16, "%d.%d", nv->info.major, nv->info.minor);

    int ptx, target = pick_target(&nv->info, arch, &ptx);
    if (target == 0)
        return cuspec__fail(CUSPEC_ERR_UNSUPPORTED,
                            "NVRTC %d.%d (%s) knows no arch at or below sm_%d", nv->info.major,
                            nv->info.minor, nv->info.path, arch);
    const char *ptxas = ptx || !twins ? NULL : cuspec__ptxas(nv->info.major, nv->info.minor);
    int probe = -1;
    if (ptxas != NULL && cuspec__twin_cubin(ptxas, tmpl, name, arch, img, &probe) == CUSPEC_OK)
        return CUSPEC_OK;
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", target);
    const char *opts[] = {STD_OPTION, arch_opt, MINIMAL_OPTION};
    int n_opts = nv->info.major * 100 + nv->info.minor >= 1204 ? 3 : 2;

    /* The embedded files the template includes, by the names it uses. */
    const struct cuspec__file *headers[CUSPEC__MAX_HEADERS];
    const char *header_texts[CUSPEC__MAX_HEADERS], *header_names[CUSPEC__MAX_HEADERS];
    int n_headers = (int)cuspec__template_headers(tmpl, headers);
    for (int h = 0; h < n_headers; h++) {
        header_texts[h] = headers[h]->text;
        header_names[h] = headers[h]->name;
    }
    nvrtcResult r = nv->nvrtcCreateProgram(&prog, tmpl->text, tmpl->name, n_headers, header_texts,
                                           header_names);
    if (r == NVRTC_SUCCESS)
        r = nv->nvrtcAddNameExpression(prog, name);
    if (r != NVRTC_SUCCESS) {
        rc = cuspec__fail(CUSPEC_ERR_COMPILE, "NVRTC could not set up %s: %s", name,
                          nv->nvrtcGetErrorString(r));
        goto out;
    }
    nvrtcResult compiled = nv->nvrtcCompileProgram(prog, n_opts, opts);

    /* The log first: it explains a failure, and warnings matter too. */
    size_t log_size = 0;
    nv->nvrtcGetProgramLogSize(prog, &log_size);
    log = calloc(1, log_size + 1);
    if (log != NULL && log_size > 0)
        nv->nvrtcGetProgramLog(prog, log);
    if (compiled != NVRTC_SUCCESS) {
        rc = cuspec__fail(CUSPEC_ERR_COMPILE, "NVRTC failed to compile %s of %s with %s %s: %s\n%s",
                          name, tmpl->name, opts[0], opts[1], nv->nvrtcGetErrorString(compiled),
                          log ? log : "(no log)");
        goto out;
    }

    const char *lowered = NULL;
    r = nv->nvrtcGetLoweredName(prog, name, &lowered);
    if (r != NVRTC_SUCCESS || lowered == NULL) {
        rc = cuspec__fail(CUSPEC_ERR_COMPILE, "NVRTC has no lowered name for %s: %s", name,
                          nv->nvrtcGetErrorString(r));
        goto out;
    }
    cuspec__strlcpy(img->lowered, lowered, sizeof img->lowered);

    r = ptx ? nv->nvrtcGetPTXSize(prog, &img->len) : nv->nvrtcGetCUBINSize(prog, &img->len);
    img->data = r == NVRTC_SUCCESS ? malloc(img->len + 1) : NULL;
    if (img->data == NULL) {
        rc = cuspec__fail(r == NVRTC_SUCCESS ? CUSPEC_ERR_NOMEM : CUSPEC_ERR_COMPILE,
                          "cannot fetch the compiled %s of %s", ptx ? "PTX" : "cubin", name);
        goto out;
    }
    r = ptx ? nv->nvrtcGetPTX(prog, img->data) : nv->nvrtcGetCUBIN(prog, img->data);
    if (r != NVRTC_SUCCESS) {
        rc = cuspec__fail(CUSPEC_ERR_COMPILE, "cannot fetch the compiled image of %s: %s", name,
                          nv->nvrtcGetErrorString(r));
        goto out;
    }
    img->data[img->len] = '\0';
    img->kind = ptx ? CUSPEC_KIND_PTX : CUSPEC_KIND_CUBIN;
    img->tier = CUSPEC_TIER_NVRTC;
    img->arch = ptx ? 0 : target;
    cuspec__store_count_compile();
    if (ptxas != NULL)
        keep_ptx(nv, prog, tmpl, name, arch, img->lowered, probe);
    rc = CUSPEC_OK;
out:
    if (rc != CUSPEC_OK) {
        cuspec__twin_drop(probe);
        cuspec__image_free(img);
    }
    free(log);
    if (prog != NULL)
        nv->nvrtcDestroyProgram(&prog);
    return rc;
}
