/* A small TAP test helper: typed checks that print both values, a plan
 * printed before any test runs (so a crash shows as too few tests), and
 * tap_skip() for tests that cannot run here. Header-only; one per test
 * program. */
#ifndef CUSPEC_TAP_H
#define CUSPEC_TAP_H

#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct tap_test {
    const char *name;
    void (*fn)(void);
};

static int tap_current_failed;

#define TEST(name) static void name(void)
#define TAP_ENTRY(name)                                                                            \
    {                                                                                              \
#name, name                                                                                \
    }

/* Every check records a failure and lets the test go on, so one run shows
 * every broken assertion. */
#define TAP_FAIL(...)                                                                              \
    do {                                                                                           \
        printf("#   %s:%d: ", __FILE__, __LINE__);                                                 \
        printf(__VA_ARGS__);                                                                       \
        putchar('\n');                                                                             \
        tap_current_failed = 1;                                                                    \
    } while (0)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            TAP_FAIL("CHECK(%s) failed", #cond);                                                   \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
    do {                                                                                           \
        long long tap_a = (long long)(a), tap_b = (long long)(b);                                  \
        if (tap_a != tap_b)                                                                        \
            TAP_FAIL("%s == %s: %lld != %lld", #a, #b, tap_a, tap_b);                              \
    } while (0)

#define CHECK_INT_GE(a, b)                                                                         \
    do {                                                                                           \
        long long tap_a = (long long)(a), tap_b = (long long)(b);                                  \
        if (!(tap_a >= tap_b))                                                                     \
            TAP_FAIL("%s >= %s: %lld < %lld", #a, #b, tap_a, tap_b);                               \
    } while (0)

#define CHECK_INT_LT(a, b)                                                                         \
    do {                                                                                           \
        long long tap_a = (long long)(a), tap_b = (long long)(b);                                  \
        if (!(tap_a < tap_b))                                                                      \
            TAP_FAIL("%s < %s: %lld >= %lld", #a, #b, tap_a, tap_b);                               \
    } while (0)

/* |a - b| <= tol, for floating-point values (NaN is never near). */
#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double tap_a = (double)(a), tap_b = (double)(b), tap_t = (double)(tol);                    \
        double tap_d = tap_a > tap_b ? tap_a - tap_b : tap_b - tap_a;                              \
        if (!(tap_d <= tap_t))                                                                     \
            TAP_FAIL("%s near %s: %.17g and %.17g differ by %.3g > %.3g", #a, #b, tap_a, tap_b,    \
                     tap_d, tap_t);                                                                \
    } while (0)

#define CHECK_UINT_EQ(a, b)                                                                        \
    do {                                                                                           \
        unsigned long long tap_a = (unsigned long long)(a), tap_b = (unsigned long long)(b);       \
        if (tap_a != tap_b)                                                                        \
            TAP_FAIL("%s == %s: %llu != %llu", #a, #b, tap_a, tap_b);                              \
    } while (0)

#define CHECK_UINT_LE(a, b)                                                                        \
    do {                                                                                           \
        unsigned long long tap_a = (unsigned long long)(a), tap_b = (unsigned long long)(b);       \
        if (!(tap_a <= tap_b))                                                                     \
            TAP_FAIL("%s <= %s: %llu > %llu", #a, #b, tap_a, tap_b);                               \
    } while (0)

#define CHECK_UINT_LT(a, b)                                                                        \
    do {                                                                                           \
        unsigned long long tap_a = (unsigned long long)(a), tap_b = (unsigned long long)(b);       \
        if (!(tap_a < tap_b))                                                                      \
            TAP_FAIL("%s < %s: %llu >= %llu", #a, #b, tap_a, tap_b);                               \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *tap_a = (a), *tap_b = (b);                                                     \
        if (tap_a == NULL || tap_b == NULL || strcmp(tap_a, tap_b) != 0)                           \
            TAP_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, tap_a ? tap_a : "(null)",               \
                     tap_b ? tap_b : "(null)");                                                    \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                            \
    do {                                                                                           \
        const char *tap_h = (hay), *tap_n = (needle);                                              \
        if (tap_h == NULL || strstr(tap_h, tap_n) == NULL)                                         \
            TAP_FAIL("%s contains \"%s\": got \"%s\"", #hay, tap_n, tap_h ? tap_h : "(null)");     \
    } while (0)

/* Runs fn(arg) in a child process: for scenarios that depend on what a
 * process fixes once (environment read on first use, libraries opened). The
 * child's checks print their own diagnostics; its exit status carries
 * pass/fail into the current test. */
static inline void tap_in_child(void (*fn)(void *), void *arg)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        tap_current_failed = 0;
        fn(arg);
        fflush(stdout);
        _exit(tap_current_failed);
    }
    int st = 0;
    if (pid <= 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        TAP_FAIL("the child process failed (status 0x%x)", st);
}

/* Prints "1..0 # SKIP reason" and exits 77. */
static inline void tap_skip(const char *reason)
{
    printf("1..0 # SKIP %s\n", reason);
    fflush(stdout);
    exit(77);
}

/* Runs every test in order; exits non-zero when any failed. */
static int tap_keep_root; /* tap_remove_tree's argument, for its nftw callback */

static inline int tap_remove_entry(const char *path, const struct stat *st, int flag,
                                   struct FTW *ftw)
{
    (void)st;
    (void)flag;
    return ftw->level == 0 && tap_keep_root ? 0 : remove(path);
}

/* Removes the folder `dir` and everything below it, or with keep_root only
 * what is below it. 0 when all went. */
static inline int tap_remove_tree(const char *dir, int keep_root)
{
    tap_keep_root = keep_root;
    return nftw(dir, tap_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether `name` is one of the comma-separated names in `list`. */
static inline int tap_listed(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = list;; p++) {
        const size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p += n;
        if (*p == '\0')
            return 0;
    }
}

/* Runs the tests; with TAP_ONLY set (names, comma-separated), only those
 * (the others report as skipped), as for a run under compute-sanitizer. */
static inline int tap_run(const struct tap_test *tests, size_t n)
{
    int failed = 0, ran = 0;
    const char *only = getenv("TAP_ONLY");
    printf("1..%zu\n", n);
    fflush(stdout);
    for (size_t i = 0; i < n; i++) {
        if (only != NULL && !tap_listed(only, tests[i].name)) {
            printf("ok %zu - %s # SKIP TAP_ONLY=%s\n", i + 1, tests[i].name, only);
            continue;
        }
        tap_current_failed = 0;
        tests[i].fn();
        printf("%s %zu - %s\n", tap_current_failed ? "not ok" : "ok", i + 1, tests[i].name);
        fflush(stdout);
        failed += tap_current_failed;
        ran++;
    }
    if (only != NULL && ran == 0) {
        printf("Bail out! TAP_ONLY=%s names none of these tests\n", only);
        return 1;
    }
    return failed ? 1 : 0;
}

#define TAP_MAIN(...)                                                                              \
    int main(void)                                                                                 \
    {                                                                                              \
        static const struct tap_test tap_tests[] = {__VA_ARGS__};                                  \
        return tap_run(tap_tests, sizeof tap_tests / sizeof *tap_tests);                           \
    }

#endif
