/* Twin archs: one PTX, several archs' cubins (ahead of time, CUSPEC_PTXAS).
 * NVRTC makes the same PTX for two archs, but for its .target line, when
 * the template's code never tells them apart (cuspec__template_same_code)
 * and NVRTC generates code for both alike (CUDA 13.0: sm_100 and sm_120 for
 * every template, sm_75 and sm_80 for those whose only test is 900's).
 * Where CUSPEC_PTXAS names the ptxas of NVRTC's release (its own
 * PTX-to-SASS step), each cubin compile keeps its PTX, and a compile of the
 * same kernel for a twin arch gives that PTX, retargeted, to ptxas: the
 * same code without the front end and optimizer, about half of a compile.
 * That NVRTC generates code alike is checked once for each template and
 * pair of archs: its first kernel compiled for both, the PTX compared.
 * What ptxas fails at, NVRTC compiles. */
#include "twins.h"
#include "ptxas.h"
#include "store.h"
#include "text.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEPT_BYTES (512u << 20)

struct kept {
    struct kept *next;
    const struct cuspec__file *tmpl;
    int arch;
    char *name, *lowered, *ptx;
};
struct pair {
    const struct cuspec__file *tmpl;
    int lo, hi, same; /* same: 0 not known, PROBING, 1 the same PTX, -1 not */
};
enum { PROBING = 2 };
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t settled = PTHREAD_COND_INITIALIZER;
static struct kept *kept;
static size_t kept_bytes;
static struct pair *pairs; /* grown as needed: pair_of's pointers last until the next call */
static unsigned n_pairs, room;

/* With share_lock held: what is known of tmpl's PTX on sm_a and sm_b. */
static struct pair *pair_of(const struct cuspec__file *tmpl, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (unsigned i = 0; i < n_pairs; i++)
        if (pairs[i].tmpl == tmpl && pairs[i].lo == lo && pairs[i].hi == hi)
            return &pairs[i];
    if (n_pairs == room) {
        struct pair *more = room < 65536 ? realloc(pairs, 2 * (room + 64) * sizeof *pairs) : NULL;
        if (more == NULL)
            return NULL;
        pairs = more;
        room = 2 * (room + 64);
    }
    pairs[n_pairs] = (struct pair){tmpl, lo, hi, 0};
    return &pairs[n_pairs++];
}

/* With share_lock held: the pair of k's arch and sm_`arch` when k is name
 * of tmpl from an arch tmpl's code cannot tell from it; else NULL. */
static struct pair *twin_pair(const struct kept *k, const struct cuspec__file *tmpl,
                              const char *name, int arch)
{
    return k->tmpl == tmpl && k->arch != arch && strcmp(k->name, name) == 0 &&
                   cuspec__template_same_code(tmpl, k->arch, arch)
               ? pair_of(tmpl, k->arch, arch)
               : NULL;
}

/* ptx (made for sm_from) with its .target sm_`to` instead; NULL when its
 * .target line is not exactly sm_from's. */
static char *retarget(const char *ptx, int from, int to, size_t *len)
{
    char was[32], now[32];
    snprintf(was, sizeof was, "\n.target sm_%d\n", from);
    snprintf(now, sizeof now, "\n.target sm_%d\n", to);
    const char *at = strstr(ptx, was);
    if (at == NULL)
        return NULL;
    size_t head = (size_t)(at - ptx), mid = strlen(now), tail = strlen(at + strlen(was));
    char *out = malloc(head + mid + tail + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, ptx, head);
    memcpy(out + head, now, mid);
    memcpy(out + head + mid, at + strlen(was), tail + 1);
    *len = head + mid + tail;
    return out;
}

static void kept_free(struct kept *k)
{
    if (k != NULL) {
        free(k->name);
        free(k->lowered);
        free(k->ptx);
        free(k);
    }
}

/* The kept PTX of name from a twin arch of sm_`arch`, retargeted, and the
 * kernel's lowered name; NULL when there is none. A pair not known yet is
 * this compile's to settle (*probe); one another compile settles is
 * waited for. With share_lock held. */
static char *twin_ptx(const struct cuspec__file *tmpl, const char *name, int arch, size_t *len,
                      char *lowered, size_t size, int *from, int *probe)
{
    const struct kept *k = kept;
    while (k != NULL) {
        struct pair *p = twin_pair(k, tmpl, name, arch);
        if (p != NULL && p->same == PROBING) {
            pthread_cond_wait(&settled, &share_lock);
            k = kept; /* the list and the pairs may have changed: look again */
            continue;
        }
        if (p != NULL && p->same == 0) {
            p->same = PROBING;
            *probe = (int)(p - pairs);
            return NULL;
        }
        char *ptx = p != NULL && p->same == 1 ? retarget(k->ptx, k->arch, arch, len) : NULL;
        if (ptx != NULL) {
            cuspec__strlcpy(lowered, k->lowered, size);
            *from = k->arch;
            return ptx;
        }
        k = k->next;
    }
    return NULL;
}

int cuspec__twin_cubin(const char *ptxas, const struct cuspec__file *tmpl, const char *name,
                       int arch, struct cuspec__image *img, int *probe)
{
    size_t len;
    int from = 0;
    *probe = -1;
    pthread_mutex_lock(&share_lock);
    char *ptx = twin_ptx(tmpl, name, arch, &len, img->lowered, sizeof img->lowered, &from, probe);
    pthread_mutex_unlock(&share_lock);
    if (ptx == NULL)
        return CUSPEC_ERR_NOT_FOUND;
    int rc = cuspec__ptxas_cubin(ptxas, ptx, len, arch, &img->data, &img->len);
    free(ptx);
    if (rc != CUSPEC_OK) {
        pthread_mutex_lock(&share_lock);
        struct pair *p = pair_of(tmpl, from, arch);
        if (p != NULL)
            p->same = -1;
        pthread_mutex_unlock(&share_lock);
        return CUSPEC_ERR_NOT_FOUND;
    }
    img->kind = CUSPEC_KIND_CUBIN;
    img->tier = CUSPEC_TIER_NVRTC;
    img->arch = arch;
    img->ptx_of = from;
    cuspec__store_count_compile();
    return CUSPEC_OK;
}

void cuspec__twin_drop(int probe)
{
    if (probe < 0)
        return;
    pthread_mutex_lock(&share_lock);
    if (pairs[probe].same == PROBING)
        pairs[probe].same = 0;
    pthread_cond_broadcast(&settled);
    pthread_mutex_unlock(&share_lock);
}

void cuspec__twin_keep(const struct cuspec__file *tmpl, const char *name, int arch,
                       const char *lowered, char *ptx, int probe)
{
    struct kept *k = calloc(1, sizeof *k);
    if (k != NULL) {
        k->ptx = ptx;
        k->name = strdup(name);
        k->lowered = strdup(lowered);
    }
    if (k == NULL || k->name == NULL || k->lowered == NULL) {
        if (k == NULL)
            free(ptx);
        kept_free(k);
        cuspec__twin_drop(probe);
        return;
    }
    size_t len = strlen(ptx) + 1;
    k->tmpl = tmpl;
    k->arch = arch;
    pthread_mutex_lock(&share_lock);
    for (const struct kept *o = kept; o != NULL; o = o->next) {
        struct pair *p = twin_pair(o, tmpl, name, arch);
        size_t n;
        char *as_here = p != NULL && (p->same == 0 || (p->same == PROBING && p - pairs == probe))
                            ? retarget(o->ptx, o->arch, arch, &n)
                            : NULL;
        if (as_here != NULL)
            p->same = strcmp(as_here, k->ptx) == 0 ? 1 : -1;
        free(as_here);
    }
    if (probe >= 0 && pairs[probe].same == PROBING) /* settled by none: let another try */
        pairs[probe].same = 0;
    pthread_cond_broadcast(&settled);
    if (kept_bytes + len <= MAX_KEPT_BYTES) {
        kept_bytes += len;
        k->next = kept;
        kept = k;
        k = NULL;
    }
    pthread_mutex_unlock(&share_lock);
    kept_free(k); /* over the bound: not kept */
}
