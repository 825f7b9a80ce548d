/* The parts of `cuspec tune` (tune.c, the command): the plan of operations
 * it tunes (tune_plan.c), their progress on stderr (tune_progress.c), the
 * reports on stdout (tune_report.c) and the thread that compiles the
 * transposes ahead (tune_ahead.c). */
#ifndef CUSPEC_CLI_TUNE_H
#define CUSPEC_CLI_TUNE_H

#include "cli.h"

#include <pthread.h>
#include <stddef.h>

/* ## The plan (tune_plan.c) */

/* The most values of one list (--op, --dtype, --n, --shape). */
#define PLAN_MAX_LIST 64

enum { PENDING, TUNED, STOPPED, FAILED };

/* One operation to tune, and what came of it. */
struct item {
    cuspec_tune_spec spec;
    char dtype[8], op[8], size[96]; /* as the table shows them */
    int state;
    cuspec_tune_result res;
    double seconds;
    char error[512];
};

struct plan {
    struct item *items;
    size_t n, cap;
};

/* What the command line asks for: a family (NULL: the default suite) and
 * the comma-separated lists that replace the suite's (NULL: the suite's). */
struct plan_request {
    const char *family;
    char *ops, *dtypes, *ns, *shapes;
    struct cli_layout layout; /* transpose: --pitch, --pad */
};

/* Appends the operations asked for to p (the caller frees p->items): 0, or
 * the exit status of a usage error that names the word that is wrong. */
int plan_build(struct plan *p, const struct plan_request *o);
/* The operation in words, "reduce f32 sum n=2^20", in buf. */
void plan_label(const struct item *it, char *buf, size_t size);

/* ## Progress (tune_progress.c) */

/* Seconds on the monotonic clock. */
double now_s(void);
/* s as "3.1s", "40s", "12m05s" or "2h03m" in buf; returns buf. */
const char *duration(double s, char *buf, size_t size);

struct progress {
    const struct plan *p;
    size_t i;          /* the operation being tuned */
    double t0;         /* the run's start */
    double spec_t0;    /* this operation's start */
    double finished_s; /* time spent on the operations finished so far */
    double budget_s;
};

/* Redraws the progress line (stderr is a terminal) with `state`, and done
 * of total candidates for the time left. */
void progress_draw(const struct progress *g, const char *state, unsigned done, unsigned total);
/* cuspec_tune's progress callback; user is the struct progress. */
void progress_on_tune(const cuspec_tune_progress *pr, void *user);
/* The library's warnings, on a line of their own under the progress line. */
void progress_warning(const char *message, void *user);
/* One line on stderr for a finished operation, when stderr is no terminal. */
void progress_item(const struct progress *g, const struct item *it);

/* ## Reports (tune_report.c); copy is the copy bandwidth in GB/s */

/* Tuned over default GB/s; 0 when the default was not timed. */
double tune_speedup(const cuspec_tune_result *r);
/* The device, the copy bandwidth and the number of operations. */
void report_header(const cuspec_device_info *d, double memcpy_gbs, double kernel_gbs, double copy,
                   size_t n, int json);
/* The JSON line of a finished operation. */
void report_item_json(const struct item *it, double copy);
/* The table of the operations that finished. */
void report_table(const struct plan *p, double copy);
/* The end of a run: counts, geometric mean speedup and wall time. */
void report_summary(const struct plan *p, double wall, int interrupted, int json);

/* ## Compiling the transposes ahead (tune_ahead.c) */

struct ahead {
    pthread_t thread;
    int arch, jobs, running;
    cuspec_compile_report report;
};

/* Starts the thread when reductions come before the first transpose of p:
 * on jobs threads (0: half the cores) for d's arch. */
void ahead_start(struct ahead *a, const struct plan *p, const cuspec_device_info *d, int jobs);
/* Waits for it: before the transposes, or at the end of a run cut short
 * (compiler threads are not left running into the process's exit). */
void ahead_finish(struct ahead *a, int interrupted, int tty);

#endif
