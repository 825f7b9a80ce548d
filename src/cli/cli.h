/* Shared pieces of the cuspec command-line tool. The CLI uses only the public
 * header, like any other client of the library. */
#ifndef CUSPEC_CLI_H
#define CUSPEC_CLI_H

#include "cuspec.h"

#include <stdio.h>

/* Exit statuses, documented in `cuspec --help`. */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1, /* the operation failed (details on stderr) */
    EXIT_USAGE = 2,  /* bad command line */
    EXIT_NO_GPU = 3, /* no usable driver or device */
};

struct command {
    const char *name;
    const char *summary;
    const char *help; /* full text for `cuspec help NAME` / `NAME --help` */
    int (*run)(int argc, char **argv);
};

extern const struct command cmd_devices;
extern const struct command cmd_cache;
extern const struct command cmd_compile;
extern const struct command cmd_bench;
extern const struct command cmd_tune;
extern const struct command cmd_run;
extern const struct command cmd_lessons;

/* ## Failures (main.c) */

/* --quiet was given: draw no progress (stdout and warnings are already
 * silenced, but for --json output). */
extern int cli_quiet;

/* Prints `msg: status text: detail` on stderr and returns the exit status
 * that fits the status (EXIT_NO_GPU for a missing driver or device). */
int cli_fail(int status, const char *msg);

/* ## The command line (options.c) */

/* Usage error: "cuspec NAME: msg" and a pointer to the help; returns
 * EXIT_USAGE. */
int cli_usage(const struct command *cmd, const char *fmt, ...);
/* Handles the options every subcommand takes (--help, --json); returns -1 to
 * go on, or an exit status. Leaves optind at the first operand. */
int cli_parse_common(const struct command *cmd, int argc, char **argv, int *json);
/* An option that takes an integer from lo to hi (a multiple of step, when
 * step > 1): getopt's code for it, its long name, what it takes for the
 * usage error "--NAME takes TAKES, not 'VALUE'" (NULL: "a number from LO to
 * HI") and where its value goes. A zero code ends a table of them. */
struct cli_int_option {
    int code;
    const char *name;
    int lo, hi, step;
    const char *takes;
    int *value;
};
/* The integer options of several commands, each defined once. */
/* clang-format off */
#define CLI_OPT_DEVICE(v) {'d', "device", 0, 1023, 0, "a GPU ordinal", (v)}
#define CLI_OPT_PITCH(v) {'p', "pitch", 8, 1 << 20, 8, "bytes, a multiple of 8 up to 1048576", (v)}
#define CLI_OPT_PAD(v) {'P', "pad", 0, 1 << 20, 0, "elements from 0 to 1048576", (v)}
/* clang-format on */
/* The cases a subcommand's getopt switch shares: --json ('J'), --help ('h'),
 * the integer options of `ints` (NULL: none) and what getopt did not know.
 * Returns -1 to go on, or an exit status. */
int cli_option(const struct command *cmd, int c, char **argv, int *json,
               const struct cli_int_option *ints);

/* The name of names[0..n) nearest to `word` (a letter or two mistyped,
 * missing, added or swapped), or NULL when none is near. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);
/* "; did you mean 'NAME'?" in buf for the nearest name, or "" when none is
 * near: for the end of a usage error. */
const char *cli_did_you_mean(const char *word, const char *const *names, size_t n, char *buf,
                             size_t size);
/* The usage error for a command-line word getopt did not take (`arg`, as
 * written): "--NAME needs a value" for an option the command's help names,
 * else "unknown option" with the nearest of them suggested. */
int cli_unknown_option(const struct command *cmd, const char *arg);

/* Splits a comma-separated list in place into items; returns the count, or
 * -1 when it has more than max. */
int cli_split(char *list, char **items, int max);
/* An integer from lo to hi in *v, written as sizes are ("1000", "4K",
 * "2^10"; lo may be negative: then "-" and digits too): 0, or -1 when s is
 * not one. */
int cli_parse_int(const char *s, int lo, int hi, int *v);

/* ## The operation a command line names (specs.c) */

/* A size as cuspec_parse_size reads it ("1000", "64K", "16m", "2^28"): a
 * count; 0 when malformed, 0 or 2^63 and more. */
size_t cli_parse_count(const char *s);
/* "8192x8192", each side a count as above: 0, or -1 when malformed. */
int cli_parse_shape(const char *s, size_t *rows, size_t *cols);
/* Transposes on padded matrices (--pitch B, --pad N): each leading dimension
 * is its row rounded up to a multiple of pitch bytes (0: not rounded), as
 * cuMemAllocPitch would give, then pad elements longer. */
struct cli_layout {
    int pitch, pad;
};
/* The leading dimensions of a rows x cols matrix of size-byte elements and
 * of its transpose: 0, or -1 when one would overflow. */
int cli_layout_lds(const struct cli_layout *l, size_t rows, size_t cols, size_t size, size_t *ld_in,
                   size_t *ld_out);
/* The first transpose-only flag given: "--shape" when shape is not NULL,
 * then "--pitch", "--pad" (from l), else NULL: for the usage error of one
 * given to a reduction. */
const char *cli_transpose_flag(const char *shape, const struct cli_layout *l);

/* The checked spec of one reduction (op, dtype and element count) or one
 * transpose (dtype and shape, with the layout's leading dimensions), from
 * the words of a command line: 0, or the exit status of a usage error that
 * names the word that is wrong. */
int cli_reduce_spec(const struct command *cmd, const char *op, const char *dtype, const char *n,
                    cuspec_tune_spec *s);
int cli_transpose_spec(const struct command *cmd, const char *dtype, const char *shape,
                       const struct cli_layout *l, cuspec_tune_spec *s);

/* ## Tuning records (records.c) */

/* cuspec tune --list / --export / --import; exit statuses.
 * all_devices: every device's records, with no GPU needed. */
int records_list(int device, int all_devices, int json);
int records_export(const char *path, int device, int all_devices, int json);
int records_import(const char *path, int json);

#endif
