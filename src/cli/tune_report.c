/* cuspec tune: what a run reports on stdout: the header with the device and
 * its copy bandwidth, then a JSON line per finished operation (--json) or
 * the table at the end, and the summary. */
#include "json.h"
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double tune_speedup(const cuspec_tune_result *r)
{
    return r->default_gbs > 0 ? r->gbs / r->default_gbs : 0;
}

void report_header(const cuspec_device_info *d, double memcpy_gbs, double kernel_gbs, double copy,
                   size_t n, int json)
{
    if (json) {
        char sm[16];
        snprintf(sm, sizeof sm, "sm_%d%d", d->sm_major, d->sm_minor);
        cli_json_print(json_pack("{s:o,s:i,s:s,s:o,s:o,s:o,s:I}", "device", cli_json_str(d->name),
                                 "ordinal", d->ordinal, "sm", sm, "memcpy_gbs",
                                 cli_json_real("%.1f", memcpy_gbs), "copy_kernel_gbs",
                                 cli_json_real("%.1f", kernel_gbs), "copy_gbs",
                                 cli_json_real("%.1f", copy), "operations", (json_int_t)n));
    } else {
        printf("GPU %d: %s (sm_%d%d, %d SMs, peak %.0f GB/s)\n", d->ordinal, d->name, d->sm_major,
               d->sm_minor, d->sm_count, d->peak_bandwidth / 1e9);
        printf("copy bandwidth (read + write): %.0f GB/s (cuMemcpyDtoD %.0f, cuspec copy %.0f)\n",
               copy, memcpy_gbs, kernel_gbs);
        printf("tuning %zu operation%s\n", n, n == 1 ? "" : "s");
    }
    fflush(stdout);
}

void report_item_json(const struct item *it, double copy)
{
    static const char *const states[] = {"pending", "tuned", "interrupted", "failed"};
    const cuspec_tune_result *r = &it->res;
    json_t *j = json_pack("{s:s,s:s}", "family", it->spec.family, "dtype", it->dtype);
    if (strcmp(it->spec.family, "reduce") == 0)
        j = cli_json_extend(j, json_pack("{s:s,s:I}", "op", it->op, "n", (json_int_t)it->spec.n));
    else /* transposes have no op ("-" in the table) */
        j = cli_json_extend(j, json_pack("{s:o,s:I,s:I}", "op",
                                         strcmp(it->op, "-") ? json_string(it->op) : json_null(),
                                         "rows", (json_int_t)it->spec.rows, "cols",
                                         (json_int_t)it->spec.cols));
    j = cli_json_extend(j, json_pack("{s:s,s:o}", "status", states[it->state], "seconds",
                                     cli_json_real("%.3f", it->seconds)));
    if (it->state == TUNED)
        j = cli_json_extend(
            j, json_pack(
                   "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "default_gbs",
                   cli_json_real("%.1f", r->default_gbs), "gbs", cli_json_real("%.1f", r->gbs),
                   "speedup", cli_json_real("%.4f", tune_speedup(r)), "copy_fraction",
                   cli_json_real("%.4f", copy > 0 ? r->gbs / copy : 0), "median_us",
                   cli_json_real("%.3f", r->median_us), "default_us",
                   cli_json_real("%.3f", r->default_us), "spread", cli_json_real("%.4f", r->spread),
                   "params", cli_json_str(r->params), "kernel", cli_json_str(r->kernel)));
    if (it->state != FAILED)
        j = cli_json_extend(j,
                            json_pack("{s:I,s:I,s:I,s:I}", "candidates", (json_int_t)r->candidates,
                                      "timed", (json_int_t)r->timed, "reused",
                                      (json_int_t)r->reused, "failed", (json_int_t)r->failed));
    else
        j = cli_json_extend(j, json_pack("{s:o}", "error", cli_json_str(it->error)));
    cli_json_print(j);
}

void report_table(const struct plan *p, double copy)
{
    printf("\nGB/s: the bytes an operation must move per second (reduce: read; transpose:\n"
           "read + write). speedup: tuned / default. x copy: tuned / the copy bandwidth\n"
           "(%.0f GB/s).\n\n",
           copy);
    printf("%-9s %-5s %-4s %-13s %7s %7s %7s %6s %5s %6s %6s  %s\n", "family", "dtype", "op",
           "size", "default", "tuned", "speedup", "x copy", "timed", "reused", "failed", "params");
    for (size_t i = 0; i < p->n; i++) {
        const struct item *it = &p->items[i];
        const cuspec_tune_result *r = &it->res;
        if (it->state == PENDING)
            continue;
        printf("%-9s %-5s %-4s %-13s ", it->spec.family, it->dtype, it->op, it->size);
        if (it->state == STOPPED) {
            printf("interrupted after %u of %u candidates: a re-run resumes\n",
                   r->timed + r->reused, r->candidates);
            continue;
        }
        if (it->state == FAILED) {
            printf("failed: %.100s\n", it->error);
            continue;
        }
        char def[16] = "-", sp[16] = "-";
        if (r->default_gbs > 0) {
            snprintf(def, sizeof def, "%.0f", r->default_gbs);
            snprintf(sp, sizeof sp, "%.2fx", tune_speedup(r));
        }
        printf("%7s %7.0f %7s %6.2f %5u %6u %6u  %s\n", def, r->gbs, sp,
               copy > 0 ? r->gbs / copy : 0, r->timed, r->reused, r->failed, r->params);
    }
}

void report_summary(const struct plan *p, double wall, int interrupted, int json)
{
    size_t tuned = 0, failed = 0, stopped = 0, n_sp = 0;
    double log_sum = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct item *it = &p->items[i];
        tuned += it->state == TUNED;
        failed += it->state == FAILED;
        stopped += it->state == STOPPED;
        if (it->state == TUNED && tune_speedup(&it->res) > 0) {
            log_sum += log(tune_speedup(&it->res));
            n_sp++;
        }
    }
    double geo = n_sp ? exp(log_sum / (double)n_sp) : 0;
    if (json) {
        cli_json_print(json_pack(
            "{s:I,s:I,s:I,s:b,s:o,s:o}", "operations", (json_int_t)p->n, "tuned", (json_int_t)tuned,
            "failed", (json_int_t)failed, "interrupted", interrupted || stopped, "geomean_speedup",
            cli_json_real("%.4f", geo), "wall_s", cli_json_real("%.3f", wall)));
        return;
    }
    char t[16];
    printf("\n%zu of %zu operations tuned", tuned, p->n);
    if (failed)
        printf(", %zu failed", failed);
    if (n_sp)
        printf("; geometric mean speedup %.2fx", geo);
    printf("; wall time %s\n", duration(wall, t, sizeof t));
}
