/* Tuning records in the store, and the lookup every call makes: exact
 * bucket, nearest bucket on this device within NEAREST_MAX, built-in
 * defaults. */
#include "records.h"
#include "catalogue.h"
#include "error.h"
#include "store.h"
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cuspec__bucket(const struct cuspec__spec *s)
{
    return cuspec__ops(s->family)->bucket(s);
}

void cuspec__bucket_text(const struct cuspec__spec *s, int bucket, char *buf, size_t size)
{
    cuspec__ops(s->family)->bucket_text(bucket, buf, size);
}

void cuspec__tuning_key(const char *device, const struct cuspec__spec *s, int bucket, int session,
                        char *key, size_t size)
{
    char b[64];
    cuspec__bucket_text(s, bucket, b, sizeof b);
    /* A session's times are the tuner's clock's (tune.c, measure): one
     * timed another way is not resumed from. */
    snprintf(key, size,
             "cuspec tuning %s\nformat=%d\nlibrary=%s\ndevice=%s\nfamily=%s\ndtype=%s\nop=%d\n"
             "bucket=%s\n%s",
             session ? "session" : "record", CUSPEC__TUNING_FORMAT, PACKAGE_VERSION, device,
             cuspec__family(s->family)->name, cuspec_dtype_name(s->dtype), s->op, b,
             session ? "clock=graphs of 20-64 calls, L2 flushed\n" : "");
}

/* Parameters written before the transposes' wide. */
enum { OLD_PARAMS = 6 };

int cuspec__params_read(const char *text, int count, int p[CUSPEC__MAX_PARAMS])
{
    if (count != OLD_PARAMS && count != CUSPEC__MAX_PARAMS)
        return -1;
    const char *s = text;
    for (int i = 0; i < CUSPEC__MAX_PARAMS; i++) {
        p[i] = 0;
        if (i >= count)
            continue;
        char *end;
        errno = 0;
        long x = strtol(s, &end, 10);
        if (end == s || errno != 0 || x < INT_MIN || x > INT_MAX ||
            (*end != '\0' && !isspace((unsigned char)*end)))
            return -1;
        p[i] = (int)x;
        s = end;
    }
    return (int)(s - text);
}

void cuspec__params_write(const int p[CUSPEC__MAX_PARAMS], char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < CUSPEC__MAX_PARAMS && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? " " : "", p[i]);
}

void cuspec__record_encode(const struct cuspec__record *r, char *buf, size_t size)
{
    char params[16 * CUSPEC__MAX_PARAMS];
    cuspec__params_write(r->p, params, sizeof params);
    snprintf(buf, size,
             "params=%s\nkernel=%s\nmedian_us=%.6g\ngbs=%.6g\ndefault_gbs=%.6g\n"
             "copy_gbs=%.6g\nspread=%.6g\ncandidates=%u\nsearched=%u\nwhen=%lld\n",
             params, r->kernel, r->median_us, r->gbs, r->default_gbs, r->copy_gbs, r->spread,
             r->candidates, r->searched, r->when);
}

/* A finite number, > 0 with `positive`, else >= 0. */
static int number(const char *v, double *d, int positive)
{
    char tail;
    return sscanf(v, "%lf%c", d, &tail) == 1 && isfinite(*d) && (positive ? *d > 0 : *d >= 0);
}

int cuspec__record_decode(const char *text, size_t len, struct cuspec__record *r)
{
    /* The first four must be there. */
    static const char *const fields[] = {"params",      "kernel",   "median_us", "gbs",
                                         "default_gbs", "copy_gbs", "spread",    "candidates",
                                         "searched",    "when"};
    char buf[2048];
    CUSPEC__RETURN_IF(len >= sizeof buf, CUSPEC_ERR_CORRUPT, "tuning record too long (%zu)", len);
    memcpy(buf, text, len);
    buf[len] = '\0';
    memset(r, 0, sizeof *r);
    double *const numbers[] = {&r->median_us, &r->gbs, &r->default_gbs, &r->copy_gbs,
                               &r->spread}; /* fields 2 to 6 */
    unsigned seen = 0;
    char *save;
    for (char *line = strtok_r(buf, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        CUSPEC__RETURN_IF(eq == NULL, CUSPEC_ERR_CORRUPT, "tuning record line '%.60s'", line);
        *eq = '\0';
        const char *v = eq + 1;
        unsigned f = 0;
        while (f < sizeof fields / sizeof *fields && strcmp(line, fields[f]) != 0)
            f++;
        CUSPEC__RETURN_IF(f == sizeof fields / sizeof *fields, CUSPEC_ERR_CORRUPT,
                          "tuning record field '%.60s' is not one cuspec knows", line);
        CUSPEC__RETURN_IF(seen >> f & 1, CUSPEC_ERR_CORRUPT,
                          "tuning record field '%s' appears twice", line);
        seen |= 1u << f;
        char tail;
        int ok;
        if (f == 0) {
            ok = cuspec__params_read(v, cuspec__words(v), r->p) >= 0;
        } else if (f == 1) {
            ok = strlen(v) < sizeof r->kernel;
            if (ok)
                strcpy(r->kernel, v);
        } else if (f <= 6) {
            ok = number(v, numbers[f - 2], f == 2); /* a time must be > 0 */
        } else if (f <= 8) {
            ok = sscanf(v, "%u%c", f == 7 ? &r->candidates : &r->searched, &tail) == 1;
        } else {
            ok = sscanf(v, "%lld%c", &r->when, &tail) == 1;
        }
        CUSPEC__RETURN_IF(!ok, CUSPEC_ERR_CORRUPT, "tuning record field '%s' is not valid: '%.60s'",
                          line, v);
    }
    CUSPEC__RETURN_IF((seen & 0xf) != 0xf, CUSPEC_ERR_CORRUPT,
                      "tuning record lacks params, kernel, median_us or gbs");
    return CUSPEC_OK;
}

/* The key of the index entry that says (device, family, dtype, op) has
 * records: the record key's lines before its bucket, under another first
 * line. A call whose index entry is missing skips its record lookups. */
static int index_key(const char *record_key, char *key, size_t size)
{
    static const char head[] = "cuspec tuning record\n";
    const char *bucket = strstr(record_key, "\nbucket=");
    if (strncmp(record_key, head, sizeof head - 1) != 0 || bucket == NULL)
        return cuspec__fail(CUSPEC_ERR_INVALID, "'%.40s' is not a tuning record's key", record_key);
    int n = snprintf(key, size, "cuspec tuning index\n%.*s",
                     (int)(bucket + 1 - (record_key + sizeof head - 1)),
                     record_key + sizeof head - 1);
    CUSPEC__RETURN_IF(n < 0 || (size_t)n >= size, CUSPEC_ERR_INVALID, "tuning record key too long");
    return CUSPEC_OK;
}

static const char index_payload[] = "records=1\n";

static int index_publish(const char *index)
{
    return cuspec__store_publish(index, CUSPEC_KIND_TUNING, "", index_payload,
                                 sizeof index_payload - 1);
}

/* Looks up the index entry of the record `key` and leaves its key in
 * `index`. */
static int index_lookup(const char *key, char *index, size_t size)
{
    struct cuspec__entry e;
    int tier;
    int rc = index_key(key, index, size);
    if (rc == CUSPEC_OK && (rc = cuspec__store_get(index, CUSPEC_KIND_TUNING, &e, &tier)) ==
                               CUSPEC_OK)
        cuspec__entry_free(&e);
    return rc;
}

static int index_get(const char *device, const struct cuspec__spec *s, int bucket, char *index,
                     size_t size)
{
    char key[2048];
    cuspec__tuning_key(device, s, bucket, 0, key, sizeof key);
    return index_lookup(key, index, size);
}

int cuspec__record_indexed(const char *key)
{
    char index[2048];
    return index_lookup(key, index, sizeof index) == CUSPEC_OK;
}

int cuspec__record_publish(const char *key, const char *payload)
{
    char index[2048];
    /* The index first: a reader that finds it and not yet the record uses
     * the defaults once, never the other way round (a record nobody finds). */
    int rc = index_key(key, index, sizeof index);
    if (rc == CUSPEC_OK)
        rc = index_publish(index);
    if (rc == CUSPEC_OK)
        rc = cuspec__store_publish(key, CUSPEC_KIND_TUNING, "", payload, strlen(payload));
    return rc;
}

int cuspec__record_put(const char *device, const struct cuspec__spec *s, int bucket,
                       const struct cuspec__record *r)
{
    char key[2048], payload[2048];
    cuspec__tuning_key(device, s, bucket, 0, key, sizeof key);
    cuspec__record_encode(r, payload, sizeof payload);
    /* Strict: a record is the tuner's whole result, and one the store did not
     * keep would be tuned again by every run that believed it was there. */
    return cuspec__record_publish(key, payload);
}

int cuspec__record_get(const char *device, const struct cuspec__spec *s, int bucket,
                       struct cuspec__record *r)
{
    char key[2048];
    struct cuspec__entry e;
    int tier;
    cuspec__tuning_key(device, s, bucket, 0, key, sizeof key);
    int rc = cuspec__store_get(key, CUSPEC_KIND_TUNING, &e, &tier);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__record_decode(e.payload, e.len, r);
    cuspec__entry_free(&e);
    return rc;
}

int cuspec__record_legal(const struct cuspec__spec *s, const struct cuspec__record *r,
                         struct cuspec__variant *v)
{
    memset(v, 0, sizeof *v);
    v->family = s->family;
    v->dtype = s->dtype;
    v->op = s->op;
    memcpy(v->p, r->p, sizeof v->p);
    /* A helper kernel's parameters (a reduction's final pass) are no
     * tuning result: such a record would launch the helper alone. */
    const struct cuspec__family *f = cuspec__family(s->family);
    for (int i = 0; f != NULL && i < f->n_params; i++)
        if (f->params[i].not_tuned && v->p[i] != f->params[i].values[0])
            return 0;
    return cuspec__variant_legal(v);
}

/* A record whose parameters its family rejects is not used (one imported
 * from a file made by hand, say). */
static int usable(const struct cuspec__spec *s, const struct cuspec__record *r)
{
    struct cuspec__variant v;
    return cuspec__record_legal(s, r, &v);
}

/* How far, in powers of two (a matrix's rows and cols together), a record
 * stands in for a bucket without one: farther, the defaults do better
 * (docs/experiments/transpose.md: "Nearest record"). */
enum { NEAREST_MAX = 2 };

struct near {
    const char *device;
    const struct cuspec__spec *s;
    struct cuspec__record *r;
    int *bucket;
};

static int found_near(int bucket, void *user)
{
    struct near *n = user;
    if (cuspec__record_get(n->device, n->s, bucket, n->r) != CUSPEC_OK || !usable(n->s, n->r))
        return 0;
    *n->bucket = bucket;
    return 1;
}

int cuspec__record_keep_index(const char *device, const struct cuspec__spec *s, int bucket)
{
    char index[2048];
    int rc = index_get(device, s, bucket, index, sizeof index);
    return rc == CUSPEC_ERR_NOT_FOUND ? index_publish(index) : rc;
}

int cuspec__walk_near(int rows, int cols, int d, int (*visit)(int rows, int cols, void *user),
                      void *user)
{
    for (int dr = -d; dr <= d; dr++) {
        int rest = d - abs(dr);
        for (int sign = -1; sign <= 1; sign += 2) {
            int nr = rows + dr, nc = cols + sign * rest, rc;
            if (nr < 0 || nc < 0 || nr > 63 || nc > 63 || (rest == 0 && sign > 0))
                continue;
            if ((rc = visit(nr, nc, user)) != 0)
                return rc;
        }
    }
    return 0;
}

int cuspec__record_find(const char *device, const struct cuspec__spec *s, struct cuspec__record *r,
                        int *bucket)
{
    struct near n = {device, s, r, bucket};
    int b = cuspec__bucket(s);
    char index[2048];
    /* One lookup when this device has no record of the family, dtype and op
     * (an untuned process's every first call), instead of up to five. */
    int rc = index_get(device, s, b, index, sizeof index);
    if (rc != CUSPEC_OK)
        return rc;
    /* Its own bucket, then the nearest first, by distance in log2 size (in
     * all of the bucket's sizes together, at the same alignment class),
     * each where the family lets its record serve s. */
    for (int d = 0; d <= NEAREST_MAX; d++)
        if (cuspec__ops(s->family)->nearby(s, b, d, found_near, &n))
            return CUSPEC_OK;
    return cuspec__fail(CUSPEC_ERR_NOT_FOUND, "no tuning record for this device near %s",
                        cuspec__family(s->family)->name);
}
