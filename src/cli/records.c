/* cuspec tune --list, --export, --import: the tuning records of the store,
 * for people and for deployment. */
#include "cli.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct records {
    cuspec_tuning_record *r;
    size_t n, cap;
};

static int collect(const cuspec_tuning_record *r, void *user)
{
    struct records *rs = user;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        cuspec_tuning_record *a = realloc(rs->r, cap * sizeof *a);
        if (a == NULL)
            return CUSPEC_ERR_NOMEM;
        rs->r = a;
        rs->cap = cap;
    }
    rs->r[rs->n++] = *r;
    return 0;
}

/* strcmp, except that runs of digits compare as numbers: n=2^8 < n=2^10. */
static int natcmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
            if (x != y)
                return x < y ? -1 : 1;
            a = ea;
            b = eb;
        } else if (*a != *b) {
            return (unsigned char)*a - (unsigned char)*b;
        } else {
            a++;
            b++;
        }
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int by_key(const void *pa, const void *pb)
{
    const cuspec_tuning_record *a = pa, *b = pb;
    int c = strcmp(a->device, b->device);
    if (c == 0)
        c = strcmp(a->family, b->family);
    if (c == 0)
        c = natcmp(a->dtype, b->dtype);
    if (c == 0)
        c = strcmp(a->op, b->op);
    return c != 0 ? c : natcmp(a->bucket, b->bucket);
}

/* The record as a JSON object. */
static json_t *record_json(const cuspec_tuning_record *r)
{
    char date[32] = "-";
    time_t when = (time_t)r->when;
    struct tm tm;
    if (gmtime_r(&when, &tm) != NULL)
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_pack(
        "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:s}", "device", cli_json_str(r->device),
        "family", cli_json_str(r->family), "dtype", cli_json_str(r->dtype), "op",
        cli_json_str(r->op), "bucket", cli_json_str(r->bucket), "params",
        cli_json_str(r->params), "kernel", cli_json_str(r->kernel), "median_us",
        cli_json_real("%.3f", r->median_us), "gbs", cli_json_real("%.1f", r->gbs),
        "default_gbs", cli_json_real("%.1f", r->default_gbs), "when", (json_int_t)r->when,
        "date", date);
}

static void print_record(const cuspec_tuning_record *r)
{
    char date[32] = "-";
    time_t when = (time_t)r->when;
    struct tm tm;
    if (localtime_r(&when, &tm) != NULL)
        strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
    char def[16] = "-", sp[16] = "-";
    if (r->default_gbs > 0) {
        snprintf(def, sizeof def, "%.0f", r->default_gbs);
        snprintf(sp, sizeof sp, "%.2fx", r->gbs / r->default_gbs);
    }
    printf("%-9s %-5s %-4s %-27s %6.0f %7s %7s  %-16s  %s\n", r->family, r->dtype, r->op, r->bucket,
           r->gbs, def, sp, date, r->params);
}

int records_list(int device, int all_devices, int json)
{
    cuspec_ctx *ctx = NULL;
    struct records rs = {0};
    int rc, status = EXIT_OK;
    if (!all_devices && (rc = cuspec_ctx_create(&ctx, device)) != CUSPEC_OK) {
        status = cli_fail(rc, "cannot open the GPU");
        if (status == EXIT_NO_GPU)
            fprintf(stderr, "cuspec tune: --list --all-devices lists every device's records with "
                            "no GPU\n");
        return status;
    }
    rc = cuspec_tuning_list(ctx, collect, &rs);
    if (rc != CUSPEC_OK) {
        status = cli_fail(rc, "cannot list the tuning records");
        goto out;
    }
    if (rs.n > 1) /* an empty store leaves rs.r NULL, which qsort may not take */
        qsort(rs.r, rs.n, sizeof *rs.r, by_key);
    if (json) { /* one object, the records an array in it: [] when there are none */
        json_t *list = json_array();
        for (size_t i = 0; i < rs.n; i++)
            json_array_append_new(list, record_json(&rs.r[i]));
        cli_json_print(json_pack("{s:o}", "records", list));
        goto out;
    }
    const cuspec_device_info *d = ctx ? cuspec_ctx_device(ctx) : NULL;
    if (rs.n == 0) {
        if (d != NULL)
            printf("No tuning records for GPU %d (%s): 'cuspec tune' makes them.\n", d->ordinal,
                   d->name);
        else
            printf("No tuning records in the store: 'cuspec tune' makes them.\n");
        goto out;
    }
    if (d != NULL)
        printf("%zu tuning record%s for GPU %d: %s (sm_%d%d)\n", rs.n, rs.n == 1 ? "" : "s",
               d->ordinal, d->name, d->sm_major, d->sm_minor);
    for (size_t i = 0; i < rs.n; i++) {
        if (i == 0 || (d == NULL && strcmp(rs.r[i].device, rs.r[i - 1].device) != 0)) {
            if (d == NULL)
                printf("%sdevice %s\n", i ? "\n" : "", rs.r[i].device);
            printf("%-9s %-5s %-4s %-27s %6s %7s %7s  %-16s  %s\n", "family", "dtype", "op",
                   "bucket", "GB/s", "default", "speedup", "when", "params");
        }
        print_record(&rs.r[i]);
    }
out:
    free(rs.r);
    cuspec_ctx_destroy(ctx);
    return status;
}

/* "exported 3 tuning records to FILE", or its JSON object. */
static void print_moved(const char *verb, const char *prep, unsigned count, const char *path,
                        int json)
{
    if (json) {
        cli_json_print(json_pack("{s:I,s:o}", verb, (json_int_t)count, "path", cli_json_str(path)));
    } else {
        printf("%s %u tuning record%s %s %s\n", verb, count, count == 1 ? "" : "s", prep, path);
    }
}

int records_export(const char *export_path, int device, int all_devices, int json)
{
    cuspec_ctx *ctx = NULL;
    unsigned count = 0;
    int rc, status = EXIT_OK;
    char msg[1200];
    if (!all_devices && (rc = cuspec_ctx_create(&ctx, device)) != CUSPEC_OK) {
        status = cli_fail(rc, "cannot open the GPU");
        if (status == EXIT_NO_GPU)
            fprintf(stderr,
                    "cuspec tune: --export FILE --all-devices exports every device's records "
                    "with no GPU\n");
        return status;
    }
    rc = cuspec_tuning_export(ctx, export_path, &count);
    cuspec_ctx_destroy(ctx);
    if (rc != CUSPEC_OK) {
        snprintf(msg, sizeof msg, "cannot export the tuning records to '%s'", export_path);
        return cli_fail(rc, msg);
    }
    print_moved("exported", "to", count, export_path, json);
    return status;
}

int records_import(const char *import_path, int json)
{
    unsigned count = 0;
    char msg[1200];
    int rc = cuspec_tuning_import(import_path, &count);
    if (rc == CUSPEC_ERR_CORRUPT) { /* the file's fault: not "corrupt store entry" */
        fprintf(stderr, "cuspec: cannot import '%s' (nothing was imported): %s\n", import_path,
                cuspec_last_error());
        return EXIT_FAILED;
    }
    if (rc != CUSPEC_OK) {
        if (count == 0)
            snprintf(msg, sizeof msg, "cannot import '%s' (nothing was imported)", import_path);
        else
            snprintf(msg, sizeof msg, "cannot import all of '%s' (only %u record%s imported)",
                     import_path, count, count == 1 ? " was" : "s were");
        return cli_fail(rc, msg);
    }
    print_moved("imported", "from", count, import_path, json);
    return EXIT_OK;
}
