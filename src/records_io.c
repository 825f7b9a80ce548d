/* Tuning records for people and for deployment: listing the store's
 * records, and export/import in a versioned text format (a team tunes once
 * and ships the file with its application). Import trusts nothing: one bad
 * record refuses the whole file. */
#include "records_io.h"
#include "records.h"
#include "context.h"
#include "catalogue.h"
#include "error.h"
#include "store.h"
#include "userfile.h"
#include "text.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT_MAGIC "cuspec-tuning 1"

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
    char family[32], dtype[16], op[16], format[16];
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
    int n;
    CUSPEC__RETURN_IF(!cuspec__parse_int(format, '\0', 0, INT_MAX, &n) ||
                          n != CUSPEC__TUNING_FORMAT,
                      CUSPEC_ERR_CORRUPT, "a record has format %s; this cuspec reads %d", format,
                      CUSPEC__TUNING_FORMAT);
    id->spec.family = cuspec__family_find(family);
    const struct cuspec__family_ops *ops = cuspec__ops(id->spec.family);
    CUSPEC__RETURN_IF(ops == NULL, CUSPEC_ERR_CORRUPT, "a record names family '%s'", family);
    const struct cuspec__family *f = cuspec__family(id->spec.family);
    id->spec.dtype = cuspec_dtype_from_name(dtype);
    int dtype_ok = 0;
    for (int i = 0; i < f->n_dtypes; i++)
        dtype_ok |= f->dtypes[i] == id->spec.dtype;
    CUSPEC__RETURN_IF(!dtype_ok, CUSPEC_ERR_CORRUPT, "a %s record names dtype '%s'", family, dtype);
    CUSPEC__RETURN_IF(!cuspec__parse_int(op, '\0', 0, f->n_ops - 1, &id->spec.op),
                      CUSPEC_ERR_CORRUPT, "a %s record names op '%s'", family, op);
    return ops->bucket_parse(id->bucket_text, &id->bucket, &id->spec);
}

/* Parameters the family accepts, for the record's shape. */
static int params_ok(const struct ident *id, const struct cuspec__record *r)
{
    struct cuspec__variant v;
    return cuspec__record_legal(&id->spec, r, &v) && cuspec__variant_fits(&v, &id->spec);
}

static void to_public(const struct ident *id, const struct cuspec__record *r,
                      cuspec_tuning_record *out)
{
    const char *const *ops = cuspec__ops(id->spec.family)->op_names;
    struct cuspec__variant v;
    memset(out, 0, sizeof *out);
    memset(&v, 0, sizeof v);
    v.family = id->spec.family;
    memcpy(v.p, r->p, sizeof v.p);
    cuspec__strlcpy(out->device, id->device, sizeof out->device);
    cuspec__strlcpy(out->family, cuspec__family(id->spec.family)->name, sizeof out->family);
    cuspec__strlcpy(out->dtype, cuspec_dtype_name(id->spec.dtype), sizeof out->dtype);
    cuspec__strlcpy(out->op, ops != NULL ? ops[id->spec.op] : "-", sizeof out->op);
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
        if (!cuspec__record_indexed(e->key))
            cuspec__warn("the tuning record of %s %s %s on %s is not found by calls: its index "
                         "entry is missing (a damaged entry removed); `cuspec tune` of that "
                         "size or `cuspec tune --import` of it puts it back (%s)",
                         cuspec__family(id.spec.family)->name, cuspec_dtype_name(id.spec.dtype),
                         id.bucket_text, id.device, e->path);
        rc = w->fn(&id, &r, got.payload, w->user);
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
    int fd;
    int rc = cuspec__file_create(path, tmp, sizeof tmp, &fd);
    if (rc != CUSPEC_OK)
        return rc;
    struct export_user x = {fdopen(fd, "w"), 0};
    if (x.f == NULL) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return rc;
    }
    fprintf(x.f, EXPORT_MAGIC "\n# cuspec %s tuning records; load with `cuspec tune --import`\n",
            PACKAGE_VERSION);
    struct walk w = {ctx ? ctx->device_id : NULL, export_one, &x};
    rc = cuspec_store_list(visit, &w); /* a store that cannot be used fails, as for a list */
    int bad = ferror(x.f) | (fflush(x.f) != 0) | (fsync(fileno(x.f)) != 0);
    bad |= fclose(x.f) != 0;
    if (rc == CUSPEC_OK && bad)
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == CUSPEC_OK)
        rc = cuspec__file_replace(tmp, path);
    else
        unlink(tmp);
    if (rc == CUSPEC_OK && count != NULL)
        *count = x.count;
    return rc;
}

/* ## Import */

/* An import is read whole: no export comes near this (a device's default
 * suite takes some 60 KB). */
#define MAX_IMPORT_BYTES (16u << 20)
/* Characters in a line, its newline left out, and in a record's lines. */
#define MAX_LINE 1022
#define MAX_RECORD 4094

/* Checks one record's lines (between "record" and "end") and appends its
 * key and payload to *out. */
static int parse_record(const char *text, struct cuspec__import **out, unsigned *n, unsigned *cap)
{
    struct ident id;
    struct cuspec__record r;
    int rc = parse_ident(text, &id);
    /* The payload: the record's own lines, after the identity. */
    const char *p = strstr(text, "\nbucket=");
    p = p ? strchr(p + 1, '\n') : NULL;
    if (rc == CUSPEC_OK && p == NULL)
        rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "record without fields");
    if (rc == CUSPEC_OK)
        rc = cuspec__record_decode(p + 1, strlen(p + 1), &r);
    if (rc == CUSPEC_OK && strcmp(id.library, PACKAGE_VERSION) != 0)
        rc = cuspec__fail(CUSPEC_ERR_UNSUPPORTED,
                          "made by cuspec %s, whose parameters this cuspec %s cannot trust; tune "
                          "again",
                          id.library, PACKAGE_VERSION);
    if (rc == CUSPEC_OK && !params_ok(&id, &r))
        rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "its parameters are not legal for %s",
                          cuspec__family(id.spec.family)->name);
    if (rc != CUSPEC_OK)
        return rc;
    if (*n == *cap) {
        unsigned grown_cap = *cap ? 2 * *cap : 16;
        struct cuspec__import *grown = realloc(*out, grown_cap * sizeof *grown);
        CUSPEC__RETURN_IF(grown == NULL, CUSPEC_ERR_NOMEM, "out of memory");
        *out = grown;
        *cap = grown_cap;
    }
    char key[2048];
    cuspec__tuning_key(id.device, &id.spec, id.bucket, 0, key, sizeof key);
    struct cuspec__import rec = {strdup(key), strdup(p + 1)};
    if (rec.key == NULL || rec.payload == NULL) {
        free(rec.key);
        free(rec.payload);
        return cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory");
    }
    (*out)[(*n)++] = rec;
    return CUSPEC_OK;
}

int cuspec__tuning_parse(const char *text, size_t len, const char *name,
                         struct cuspec__import **out, unsigned *count)
{
    static const char magic[] = EXPORT_MAGIC "\n";
    char record[MAX_RECORD + 2];
    size_t pos = sizeof magic - 1, used = 0;
    unsigned lineno = 1, n = 0, cap = 0;
    int rc = CUSPEC_OK, in_block = 0;
    *out = NULL;
    *count = 0;
    if (len < pos || memcmp(text, magic, pos) != 0)
        rc = cuspec__fail(
            CUSPEC_ERR_CORRUPT,
            "%s is not a cuspec tuning export (its first line is not '" EXPORT_MAGIC "')", name);
    while (rc == CUSPEC_OK && pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t size = nl != NULL ? (size_t)(nl - line) : len - pos;
        pos += size + (nl != NULL);
        lineno++;
        if (memchr(line, '\0', size) != NULL) {
            rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: a NUL byte: this is no text", name,
                              lineno);
        } else if (size > MAX_LINE) {
            rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: line too long", name, lineno);
        } else if (line[0] == '#' || (!in_block && size == 0)) {
            continue;
        } else if (!in_block) {
            if (size != 6 || memcmp(line, "record", 6) != 0 || nl == NULL)
                rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: expected 'record'", name, lineno);
            in_block = 1;
            used = 0;
        } else if (size == 3 && memcmp(line, "end", 3) == 0) { /* the last line may lack \n */
            in_block = 0;
            record[used] = '\0';
            rc = parse_record(record, out, &n, &cap);
            if (rc != CUSPEC_OK)
                rc = cuspec__fail_context(rc, "%s: the record ending at line %u", name, lineno);
        } else if (used + size + 1 > MAX_RECORD) {
            rc = cuspec__fail(CUSPEC_ERR_CORRUPT, "%s:%u: record too long", name, lineno);
        } else {
            memcpy(record + used, line, size);
            record[used + size] = '\n';
            used += size + 1;
        }
    }
    if (rc == CUSPEC_OK && in_block)
        rc =
            cuspec__fail(CUSPEC_ERR_CORRUPT, "%s: the last record has no 'end' (truncated?)", name);
    if (rc != CUSPEC_OK) {
        cuspec__tuning_parsed_free(*out, n);
        *out = NULL;
        n = 0;
    }
    *count = n;
    return rc;
}

void cuspec__tuning_parsed_free(struct cuspec__import *records, unsigned n)
{
    for (unsigned i = 0; records != NULL && i < n; i++) {
        free(records[i].key);
        free(records[i].payload);
    }
    free(records);
}

int cuspec_tuning_import(const char *path, unsigned *count)
{
    CUSPEC__RETURN_IF(path == NULL, CUSPEC_ERR_INVALID, "cuspec_tuning_import: path is NULL");
    if (count != NULL)
        *count = 0;
    char *text;
    size_t len;
    struct cuspec__import *records = NULL;
    unsigned n = 0, done = 0;
    int rc = cuspec__file_read(path, MAX_IMPORT_BYTES, &text, &len);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__tuning_parse(text, len, path, &records, &n);
    free(text);
    /* Everything checked: now publish, each record replaced atomically. */
    while (rc == CUSPEC_OK && done < n) {
        const struct cuspec__import *r = &records[done];
        rc = cuspec__record_publish(r->key, r->payload);
        done += rc == CUSPEC_OK;
    }
    if (count != NULL)
        *count = done;
    cuspec__tuning_parsed_free(records, n);
    return rc;
}
