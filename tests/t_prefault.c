/* cuspec__prefault_code: after it, every page of the code that holds the
 * library (here: this test program, which links it in) is mapped. */
#include "config.h"
#include "prefault.h"
#include "cuspec.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The Size and Rss (kB) of the executable mapping of this program's code
 * in /proc/self/smaps; 0 when not found. */
static int code_mapping(unsigned long *size, unsigned long *rss)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0, found = 0;
    uintptr_t me = (uintptr_t)&code_mapping;
    *size = *rss = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        unsigned long start, end;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3) {
            in = me >= start && me < end && perms[2] == 'x';
            found |= in;
        } else if (in) {
            sscanf(line, "Size: %lu kB", size);
            sscanf(line, "Rss: %lu kB", rss);
        }
    }
    if (f != NULL)
        fclose(f);
    return found;
}

static unsigned long size_before, rss_before;
static int populated;

TEST(every_page_of_the_code_is_mapped)
{
    unsigned long size, rss;
    CHECK(code_mapping(&size, &rss));
    CHECK_UINT_EQ(size, size_before);
    CHECK_UINT_EQ(rss, size);
    CHECK(rss_before < rss); /* this program ran only part of its code */
    printf("# code %lu kB, mapped %lu kB before, %lu kB after\n", size, rss_before, rss);
}

TEST(once_and_says_so_again)
{
    CHECK_INT_EQ(cuspec__prefault_code(), populated);
}

int main(void)
{
    /* Code enough to be mapped only in part by the calls below: the
     * library's compile path, linked in and never run. */
    static int (*volatile keep)(const char *, int, int, int, cuspec_progress_fn, void *,
                                cuspec_compile_report *) = cuspec_compile;
    (void)keep;
    if (!code_mapping(&size_before, &rss_before))
        tap_skip("no executable mapping of this program in /proc/self/smaps");
    populated = cuspec__prefault_code();
    if (!populated)
        tap_skip("this kernel has no MADV_POPULATE_READ (Linux 5.14)");
    static const struct tap_test tests[] = {TAP_ENTRY(every_page_of_the_code_is_mapped),
                                            TAP_ENTRY(once_and_says_so_again)};
    return tap_run(tests, sizeof tests / sizeof *tests);
}
