/* cuspec tune: compiling ahead. The default suite tunes the reductions
 * first. Meanwhile a thread compiles every transpose kernel into the store
 * on half the cores, so that the transposes' searches find their kernels
 * there instead of waiting for NVRTC. */
#include "tune.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *compile_ahead(void *arg)
{
    struct ahead *a = arg;
    /* A kernel that fails here is compiled again, and reported, by the
     * search that needs it. */
    (void)cuspec_compile("transpose", a->arch, 1, a->jobs, NULL, NULL, &a->report);
    return NULL;
}

void ahead_start(struct ahead *a, const struct plan *p, const cuspec_device_info *d, int jobs)
{
    size_t first = 0;
    while (first < p->n && strcmp(p->items[first].spec.family, "transpose") != 0)
        first++;
    a->running = 0;
    if (first == 0 || first == p->n)
        return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->arch = d->sm_major * 10 + d->sm_minor;
    a->jobs = jobs > 0 ? jobs : cores > 1 ? (int)(cores / 2) : 1;
    a->running = pthread_create(&a->thread, NULL, compile_ahead, a) == 0;
}

void ahead_finish(struct ahead *a, int interrupted, int tty)
{
    if (!a->running)
        return;
    if (interrupted)
        fprintf(stderr,
                "%scuspec tune: waiting for the transpose kernels being compiled (Ctrl-C again "
                "quits at once)\n",
                tty ? "\r\033[K" : "");
    pthread_join(a->thread, NULL);
    a->running = 0;
}
