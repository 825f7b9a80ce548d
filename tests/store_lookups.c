/* store_lookups [--no-openat2] MODE N: store lookups as a call's first use
 * makes them, for
 * t_store_syscalls.sh (which counts their system calls) and for timing; not
 * itself a test. Both stores (CUSPEC_CACHE_DIR, CUSPEC_SYSTEM_STORE) are
 * opened first, so that what follows is lookups only. MODE:
 *   put     publishes the entry the other modes hit (N is ignored)
 *   hit     looks that entry up N times
 *   miss    looks up N absent keys in that entry's fan-out folder
 *   spread  looks up N (at most 256) absent keys, each in another fan-out
 *           folder
 * --no-openat2: openat2 fails with ENOSYS, as under a seccomp filter that
 * does not know it. Prints the seconds the N lookups took; exits 1 when one
 * does not give what it should. */
#include "store_files.h"
#include "hash.h"
#include "store.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#define HIT_KEY "store_lookups hit"

/* A key that is not in the store, whose hash starts with the byte `fan`
 * (-1: any), in buf. */
static void absent_key(char *buf, size_t size, int fan, unsigned long *next)
{
    char hex[33];
    for (;; ++*next) {
        snprintf(buf, size, "store_lookups miss %lu", *next);
        cuspec__hash128_hex(buf, strlen(buf), hex);
        if (fan < 0 || strtol((char[3]){hex[0], hex[1], '\0'}, NULL, 16) == fan)
            break;
    }
    ++*next;
}

/* A seccomp filter that answers openat2 with ENOSYS. (It looks at the
 * number only: the helper makes no calls of another architecture.) */
static int refuse_openat2(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--no-openat2") == 0) {
        if (!refuse_openat2()) {
            perror("store_lookups: cannot install the seccomp filter");
            return 2;
        }
        argc--;
        argv++;
    }
    long n = argc == 3 ? strtol(argv[2], NULL, 10) : -1;
    const char *mode = argc == 3 ? argv[1] : "";
    int spread = strcmp(mode, "spread") == 0;
    if (n < 0 || (spread && n > 256) ||
        (strcmp(mode, "put") != 0 && strcmp(mode, "hit") != 0 && strcmp(mode, "miss") != 0 &&
         !spread)) {
        fprintf(stderr, "usage: store_lookups [--no-openat2] put|hit|miss|spread N (spread: N "
                        "<= 256)\n");
        return 2;
    }
    if (strcmp(mode, "put") == 0)
        return cuspec__store_publish(HIT_KEY, CUSPEC_KIND_CUBIN, "", "payload", 7) != CUSPEC_OK;
    cuspec__store_config_system();

    /* The keys first: hashing until one falls in the right folder is no
     * part of a lookup. */
    char hex[33], (*keys)[64] = malloc((size_t)(n ? n : 1) * sizeof *keys);
    unsigned long next = 0;
    cuspec__hash128_hex(HIT_KEY, strlen(HIT_KEY), hex);
    int fan = (int)strtol((char[3]){hex[0], hex[1], '\0'}, NULL, 16);
    for (long i = 0; i < n; i++) {
        if (strcmp(mode, "hit") == 0)
            snprintf(keys[i], sizeof keys[i], "%s", HIT_KEY);
        else
            absent_key(keys[i], sizeof keys[i], spread ? (int)i : fan, &next);
    }

    struct timespec t0, t1;
    int wrong = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++) {
        struct cuspec__entry e;
        int rc = cuspec__store_get(keys[i], CUSPEC_KIND_CUBIN, &e, NULL);
        wrong += rc != (strcmp(mode, "hit") == 0 ? CUSPEC_OK : CUSPEC_ERR_NOT_FOUND);
        if (rc == CUSPEC_OK)
            cuspec__entry_free(&e);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(keys);
    printf("%ld %s lookups: %.6f s\n", n, mode,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    if (wrong)
        fprintf(stderr, "store_lookups: %d of %ld lookups did not give what they should\n", wrong,
                n);
    return wrong != 0;
}
