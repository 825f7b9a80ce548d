/* Tuning records for people and for deployment: listing the store's
 * records, and export/import in a versioned text format (a team tunes once
 * and ships the file with its application). Import trusts nothing: one bad
 * record refuses the whole file. */
#include "tune.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT_MAGIC "cuspec-tuning 1"

/* "n=2^28" or "rows=2^13 cols=2^13 align=4" back to a bucket number. */
static int parse_bucket(int family, const char *text, int *bucket)
{
    int k, r, c, a;
    char tail;
    if (family == CUSPEC__FAM_REDUCE)
        return sscanf(text, "n=2^%d%c", &k, &tail) == 1 && k >= 0 && k < 64 && (*bucket = k, 1);
    if (sscanf(text, "rows=2^%d cols=2^%d align=%d%c", &r, &c, &a, &tail) != 3 || r < 0 || r > 63 ||
        c < 0 || c > 63 || a < 1 || a > CUSPEC__SECTOR || (a & (a - 1)))
        return 0;
    int la = 0;
    while ((1 << la) < a)
        la++;
    *bucket = r << 16 | c << 8 | la;
    return 1;
}

/* A record's identity from its key (or an export block) and its checks. */
struct ident {
    char device[512], library[32], bucket_text[64];
    struct cuspec__spec spec;
    int bucket;
};

static int parse_ident(const char *text, struct ident *id)
{
    static const char *const names[] = {"device", "library", "format", "family",
                                        "dtype",  "op",      "bucket"};
    char family[32], dtype[16], op[16], format[16], tail;
    memset(id, 0, sizeof *id);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *first = cuspec__text_find(text, names[i]);
        const char *next = first != NULL ? strchr(first, '\n') : NULL;
        CUSPEC__RETURN_IF(next != NULL && cuspec__text_find(next, names[i]) != NULL,
                          CUSPEC_ERR_CORRUPT, "a record gives its %s twice", names[i]);
    }
    if (!cuspec__text_field(text, "device", id->device, sizeof id->device) ||
        id->device[0] == '\0' ||
        !cuspec__text_field(text, "library", id->library, sizeof id->library) ||
        !cuspec__text_field(text, "format", format, sizeof format) ||
        !cuspec__text_field(text, "family", family, sizeof family) ||
        !cuspec__text_field(text, "dtype", dtype, sizeof dtype) ||
        !cuspec__text_field(text, "op", op, sizeof op) ||
        !cuspec__text_field(text, "bucket", id->bucket_text, sizeof id->bucket_text))
        return cuspec__fail(CUSPEC_ERR_CORRUPT,
                            "a record lacks one of device, library, format, family, dtype, op, "
                            "bucket");
    CUSPEC__RETURN_IF(atoi(format) != CUSPEC__TUNING_FORMAT, CUSPEC_ERR_CORRUPT,
                      "a record has format %s; this cuspec reads %d", format,
                      CUSPEC__TUNING_FORMAT);
    id->spec.family = cuspec__family_find(family);
    CUSPEC__RETURN_IF(id->spec.family != CUSPEC__FAM_REDUCE &&
                          id->spec.family != CUSPEC__FAM_TRANSPOSE,
                      CUSPEC_ERR_CORRUPT, "a record names family '%s'", family);
    const struct cuspec__family *f = cuspec__family(id->spec.family);
    id->spec.dtype = cuspec_dtype_from_name(dtype);
    int dtype_ok = 0;
    for (int i = 0; i < f->n_dtypes; i++)
        dtype_ok |= f->dtypes[i] == id->spec.dtype;
    CUSPEC__RETURN_IF(!dtype_ok, CUSPEC_ERR_CORRUPT, "a %s record names dtype '%s'", family, dtype);
    CUSPEC__RETURN_IF(sscanf(op, "%d%c", &id->spec.op, &tail) != 1 || id->spec.op < 0 ||
                          id->spec.op >= f->n_ops,
                      CUSPEC_ERR_CORRUPT, "a %s record names op '%s'", family, op);
    CUSPEC__RETURN_IF(!parse_bucket(id->spec.family, id->bucket_text, &id->bucket),
                      CUSPEC_ERR_CORRUPT, "a record names bucket '%s'", id->bucket_text);
    id->spec.align = 1 << (id->bucket & 0xff);
    return CUSPEC_OK;
}

/* Parameters the family accepts, for the record's shape. */
static int params_ok(const struct ident *id, const struct cuspec__record *r)
{
    struct cuspec__variant v;
    const struct cuspec__family *f = cuspec__family(id->spec.family);
    return cuspec__record_legal(&id->spec, r, &v) && (f->fits == NULL || f->fits(&v, &id->spec));
}

static void to_public(const struct ident *id, const struct cuspec__record *r,
                      cuspec_tuning_record *out)
{
    static const char *const ops[] = {"sum", "min", "max", "dot"};
    struct cuspec__variant v;
    memset(out, 0, sizeof *out);
    memset(&v, 0, sizeof v);
    v.family = id->spec.family;
    memcpy(v.p, r->p, sizeof v.p);
    cuspec__strlcpy(out->device, id->device, sizeof out->device);
    cuspec__strlcpy(out->family, cuspec__family(id->spec.family)->name, sizeof out->family);
    cuspec__strlcpy(out->dtype, cuspec_dtype_name(id->spec.dtype), sizeof out->dtype);
    cuspec__strlcpy(out->op, id->spec.family == CUSPEC__FAM_REDUCE ? ops[id->spec.op] : "-",
                    sizeof out->op);
    cuspec__strlcpy(out->bucket, id->bucket_text, sizeof out->bucket);
    cuspec__strlcpy(out->kernel, r->kernel, sizeof out->kernel);
    cuspec__params_text(&v, out->params, sizeof out->params);
    out->median_us = r->median_us;
    out->gbs = r->gbs;
    out->default_gbs = r->default_gbs;
    out->when = r->when;
}

struct walk {
    const char *device; /* NULL: every device */
    int (*fn)(const struct ident *id, const struct cuspec__record *r, const char *payload,
              void *user);
    void *user;
};

static int visit(const cuspec_store_entry *e, void *user)
{
    struct walk *w = user;
    struct ident id;
    struct cuspec__entry got;
    struct cuspec__record r;
    int tier;
    if (e->kind != CUSPEC_KIND_TUNING || strncmp(e->key, "cuspec tuning record\n", 21) != 0)
        return 0;
    if (parse_ident(e->key, &id) != CUSPEC_OK) {
        cuspec__warn("the tuning record in %s is skipped: %s", e->path, cuspec_last_error());
        return 0;
    }
    if (strcmp(id.library, PACKAGE_VERSION) != 0 ||
        (w->device != NULL && strcmp(id.device, w->device) != 0))
        return 0;
    if (cuspec__store_get(e->key, CUSPEC_KIND_TUNING, &got, &tier) != CUSPEC_OK)
        return 0;
    int rc = 0;
    /* A record no call would use is skipped, and said to be: its bucket
     * looks tuned and is not (tuning that size again replaces it). */
    const char *why = NULL;
    if (cuspec__record_decode(got.payload, got.len, &r) != CUSPEC_OK)
        why = cuspec_last_error();
    else if (!params_ok(&id, &r))
        why = "its parameters are not among its family's legal ones";
    if (why != NULL) {
        cuspec__warn("the tuning record of %s %s %s on %s is skipped: %s (%s); tune that size "
                     "again to replace it",
                     cuspec__family(id.spec.family)->name, cuspec_dtype_name(id.spec.dtype),
                     id.bucket_text, id.device, why, e->path);
    } else {
        char *payload = malloc(got.len + 1);
        if (payload != NULL) {
            memcpy(payload, got.payload, got.len);
            payload[got.len] = '\0';
            rc = w->fn(&id, &r, payload, w->user);
            free(payload);
        }
    }
    cuspec__entry_free(&got);
    return rc;
}

struct list_user {
    int (*fn)(const cuspec_tuning_record *r, void *user);
    void *user;
};

static int list_one(const struct ident *id, const struct cuspec__record *r, const char *payload,
                    void *user)
{
    struct list_user *l = user;
    cuspec_tuning_record pub;
    (void)payload;
    to_public(id, r, &pub);
    return l->fn(&pub, l->user);
}

int cuspec_tuning_list(cuspec_ctx *ctx, int (*fn)(const cuspec_tuning_record *r, void *user),
                       void *user)
{
    CUSPEC__RETURN_IF(fn == NULL, CUSPEC_ERR_INVALID, "cuspec_tuning_list: fn is NULL");
    struct list_user l = {fn, user};
    struct walk w = {ctx ? ctx->device_id : NULL, list_one, &l};
    return cuspec_store_list(visit, &w);
}

/* ## Export */

struct export_user {
    FILE *f;
    unsigned count;
};

static int export_one(const struct ident *id, const struct cuspec__record *r, const char *payload,
                      void *user)
{
    struct export_user *x = user;
    (void)r;
    fprintf(x->f,
            "record\ndevice=%s\nlibrary=%s\nformat=%d\nfamily=%s\ndtype=%s\nop=%d\n"
            "bucket=%s\n%send\n",
            id->device, id->library, CUSPEC__TUNING_FORMAT, cuspec__family(id->spec.family)->name,
            cuspec_dtype_name(id->spec.dtype), id->spec.op, id->bucket_text, payload);
    x->count++;
    return 0;
}

int cuspec_tuning_export(cuspec_ctx *ctx, const char *path, unsigned *count)
{
    CUSPEC__RETURN_IF(path == NULL, CUSPEC_ERR_INVALID, "cuspec_tuning_export: path is NULL");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
    struct export_user x = {fopen(tmp, "w"), 0};
    CUSPEC__RETURN_IF(x.f == NULL, CUSPEC_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    fprintf(x.f, EXPORT_MAGIC "\n# cuspec %s tuning records; load with `cuspec tune --import`\n",
            PACKAGE_VERSION);
    struct walk w = {ctx ? ctx->device_id : NULL, export_one, &x};
    int rc = cuspec_store_list(visit, &w); /* a store that cannot be used fails, as for a list */
    int bad = ferror(x.f) | (fflush(x.f) != 0) | (fsync(fileno(x.f)) != 0);
    bad |= fclose(x.f) != 0;
    if (rc == CUSPEC_OK && bad)
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == CUSPEC_OK && rename(tmp, path) != 0)
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc != CUSPEC_OK)
        unlink(tmp);
    else if (count != NULL)
        *count = x.count;
    return rc;
}

/* ## Import */

struct block {
    struct ident id;
    struct cuspec__record r;
    char payload[2048];
};

int cuspec_tuning_import(const char *path, unsigned *count)
{
    CUSPEC__RETURN_IF(path == NULL, CUSPEC_ERR_INVALID, "cuspec_tuning_import: path is NULL");
    FILE *f = fopen(path, "r");
    CUSPEC__RETURN_IF(f == NULL, CUSPEC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    struct block *blocks = NULL;
    unsigned n = 0, cap = 0, lineno = 1;
    char line[1024], text[4096];
    size_t len = 0;
    int rc = CUSPEC_OK, in_block = 0;
    if (fgets(line, sizeof line, f) == NULL || strcmp(line, EXPORT_MAGIC "\n") != 0)
        rc = cuspec__fail(CUSPEC_ERR_CORRUPT,
                          "%s is not a cuspec tuning export (its first line "
                          "is not '" EXPORT_MAGIC "')",
                          path);
    while (rc == CUSPEC_OK && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        if (strchr(line, '\n') == NULL && !feof(f)) {
            rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: line too long", path, lineno);
        } else if (line[0] == '#' || (!in_block && strcmp(line, "\n") == 0)) {
            continue;
        } else if (!in_block) {
            if (strcmp(line, "record\n") != 0)
                rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: expected 'record'", path, lineno);
            in_block = 1;
            len = 0;
        } else if (strcmp(line, "end\n") == 0 || strcmp(line, "end") == 0) { /* the last line */
            in_block = 0;
            text[len] = '\0';
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                struct block *grown = realloc(blocks, cap * sizeof *grown);
                if (grown == NULL) {
                    rc = cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory reading %s", path);
                    break;
                }
                blocks = grown;
            }
            struct block *b = &blocks[n];
            rc = parse_ident(text, &b->id);
            /* The payload: the record's own lines, after the identity. */
            const char *p = strstr(text, "\nbucket=");
            p = p ? strchr(p + 1, '\n') : NULL;
            if (rc == CUSPEC_OK && p == NULL)
                rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "record without fields");
            if (rc == CUSPEC_OK) {
                cuspec__strlcpy(b->payload, p + 1, sizeof b->payload);
                rc = cuspec__record_decode(b->payload, strlen(b->payload), &b->r);
            }
            if (rc == CUSPEC_OK && strcmp(b->id.library, PACKAGE_VERSION) != 0)
                rc = cuspec__fail(CUSPEC_ERR_UNSUPPORTED,
                                  "made by cuspec %s, whose parameters this cuspec %s cannot "
                                  "trust; tune again",
                                  b->id.library, PACKAGE_VERSION);
            if (rc == CUSPEC_OK && !params_ok(&b->id, &b->r))
                rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "its parameters are not legal for %s",
                                  cuspec__family(b->id.spec.family)->name);
            if (rc != CUSPEC_OK)
                rc = cuspec__fail_context(rc, "%s: the record ending at line %u", path, lineno);
            n++;
        } else if (len + strlen(line) >= sizeof text - 1) {
            rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: record too long", path, lineno);
        } else {
            memcpy(text + len, line, strlen(line));
            len += strlen(line);
        }
    }
    if (rc == CUSPEC_OK && ferror(f))
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    if (rc == CUSPEC_OK && in_block)
        rc =
            cuspec__fail(CUSPEC_ERR_CORRUPT, "%s: the last record has no 'end' (truncated?)", path);
    fclose(f);
    /* Everything checked: now publish, each record replaced atomically. */
    unsigned done = 0;
    while (rc == CUSPEC_OK && done < n) {
        const struct block *b = &blocks[done];
        char key[2048];
        cuspec__tuning_key(b->id.device, &b->id.spec, b->id.bucket, 0, key, sizeof key);
        rc = cuspec__store_publish(key, CUSPEC_KIND_TUNING, "", b->payload, strlen(b->payload));
        done += rc == CUSPEC_OK;
    }
    if (count != NULL)
        *count = done;
    free(blocks);
    return rc;
}
