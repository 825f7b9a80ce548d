/* The store under concurrency and crashes (unit, CPU): processes and threads
 * publishing the same keys at once, and writers killed mid-publish. Each
 * scenario runs in a child process with its own store (see store_test.h). */
#include "store_files.h" /* first: config.h picks the system interfaces */
#include "tap.h"
#include "store_test.h"
#include "store.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#define N_WRITERS 8
#define ROUNDS 30
#define SHARED_LEN 65536

/* One writer: publishes the shared key and keys of its own, and reads the
 * shared key back after each publish. Returns the number of failures. */
static int write_rounds(unsigned id)
{
    int failures = 0;
    unsigned char *shared = make_payload(SHARED_LEN, 1);
    for (unsigned r = 0; r < ROUNDS; r++) {
        char key[64];
        snprintf(key, sizeof key, "writer %u round %u", id, r);
        unsigned char *own = make_payload(1000 + r, id * 100 + r);
        failures += cuspec__store_put("shared", CUSPEC_KIND_CUBIN, "nvrtc=13.0\n", shared,
                                      SHARED_LEN) != CUSPEC_OK;
        failures +=
            cuspec__store_put(key, CUSPEC_KIND_CUBIN, "nvrtc=13.0\n", own, 1000 + r) != CUSPEC_OK;
        /* Once published, the shared key never reads as missing or torn. */
        failures += !loads("shared", CUSPEC_KIND_CUBIN, SHARED_LEN, 1);
        failures += !loads(key, CUSPEC_KIND_CUBIN, 1000 + r, id * 100 + r);
        free(own);
    }
    free(shared);
    return failures;
}

static void check_all_written(unsigned n_writers)
{
    uint64_t n_bad = 99;
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 0);
    CHECK_INT_EQ(count_in_store(scenario, ".tmp-"), 0);
    CHECK_INT_EQ(count_in_store(scenario, ""), 1 + n_writers * ROUNDS);
    CHECK(loads("shared", CUSPEC_KIND_CUBIN, SHARED_LEN, 1));
    for (unsigned id = 0; id < n_writers; id++)
        for (unsigned r = 0; r < ROUNDS; r++) {
            char key[64];
            snprintf(key, sizeof key, "writer %u round %u", id, r);
            if (!loads(key, CUSPEC_KIND_CUBIN, 1000 + r, id * 100 + r))
                TAP_FAIL("%s does not load", key);
        }
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.bad_entries, 0);
    CHECK_UINT_EQ(s.write_failures, 0);
}

static void processes_child(void)
{
    pid_t pids[N_WRITERS];
    for (unsigned id = 0; id < N_WRITERS; id++) {
        fflush(stdout);
        pids[id] = fork();
        if (pids[id] == 0) {
            int failures = write_rounds(id);
            cuspec_store_stats s = stats();
            _exit(failures != 0 || s.bad_entries != 0 || s.write_failures != 0 ||
                  s.publishes != 2 * ROUNDS);
        }
    }
    for (unsigned id = 0; id < N_WRITERS; id++)
        if (!child_ok(pids[id]))
            TAP_FAIL("writer process %u failed", id);
    check_all_written(N_WRITERS);
}

TEST(processes_publish_the_same_keys_at_once)
{
    in_child("processes", processes_child);
}

static void *thread_rounds(void *arg)
{
    return (void *)(intptr_t)write_rounds((unsigned)(uintptr_t)arg);
}

static void threads_child(void)
{
    pthread_t threads[N_WRITERS];
    for (unsigned id = 0; id < N_WRITERS; id++)
        CHECK_INT_EQ(pthread_create(&threads[id], NULL, thread_rounds, (void *)(uintptr_t)id), 0);
    for (unsigned id = 0; id < N_WRITERS; id++) {
        void *failures = NULL;
        CHECK_INT_EQ(pthread_join(threads[id], &failures), 0);
        CHECK_INT_EQ((intptr_t)failures, 0);
    }
    check_all_written(N_WRITERS);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.publishes, 2 * N_WRITERS * ROUNDS);
    CHECK_UINT_EQ(s.hits, 2 * N_WRITERS * ROUNDS + 1 + N_WRITERS * ROUNDS);
}

TEST(threads_publish_the_same_keys_at_once)
{
    in_child("threads", threads_child);
}

/* ## Killed writers */

#define BIG_LEN (128u << 20)
#define BIG_KEY "a large kernel"

static void big_writer(void)
{
    unsigned char *p = make_payload(BIG_LEN, 42);
    cuspec__store_put(BIG_KEY, CUSPEC_KIND_CUBIN, "nvrtc=13.0\n", p, BIG_LEN);
    _exit(0);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000};
    nanosleep(&t, NULL);
}

/* Whatever a killed writer left, nothing is bad: the key is missing or
 * loads in full. */
static void after_kill(void)
{
    uint64_t n_bad = 99;
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 0);
    struct cuspec__entry e;
    int rc = cuspec__store_get(BIG_KEY, CUSPEC_KIND_CUBIN, &e, NULL);
    if (rc == CUSPEC_OK)
        CHECK(same_payload(&e, BIG_LEN, 42));
    else
        CHECK_INT_EQ(rc, CUSPEC_ERR_NOT_FOUND);
    cuspec__entry_free(&e);
    CHECK_UINT_EQ(stats().bad_entries, 0);
}

static void repair_child(void)
{
    char dir[1024], fresh[1100];
    entry_path(scenario, BIG_KEY, dir, sizeof dir);
    *strrchr(dir, '/') = '\0';
    int left = count_names(dir, ".tmp-");
    CHECK_INT_GE(left, 1); /* the writer killed as it began left its file */
    /* Files of writers that died long ago, and one of a live writer. */
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL)
        if (strncmp(de->d_name, ".tmp-", 5) == 0) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            set_age(path, 120);
        }
    if (d != NULL)
        closedir(d);
    snprintf(fresh, sizeof fresh, "%s/.tmp-1-live", dir);
    write_file(fresh, "x", 1);
    uint64_t n_bad = 99;
    CHECK_INT_EQ(cuspec_store_verify(1, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 0);
    CHECK_INT_EQ(count_names(dir, ".tmp-"), 1);
    CHECK_INT_EQ(access(fresh, F_OK), 0);
}

static void killed_writer_child(void)
{
    static const long delays_ms[] = {0, 2, 20, 150, 600};
    char dir[1024];
    entry_path(scenario, BIG_KEY, dir, sizeof dir);
    *strrchr(dir, '/') = '\0';
    for (size_t i = 0; i < sizeof delays_ms / sizeof *delays_ms; i++) {
        int before = count_names(dir, ".tmp-");
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            big_writer();
        /* Waits until the writer has its temporary file (or is done), so
         * the kill lands in the publish and not in the setup before it. */
        int waited = 0, st = 0;
        while (count_names(dir, ".tmp-") == before && waitpid(pid, &st, WNOHANG) == 0 &&
               waited++ < 20000)
            sleep_ms(1);
        sleep_ms(delays_ms[i]);
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        char path[1024];
        printf("# killed %ld ms into the publish: %d temporary files, entry %s\n", delays_ms[i],
               count_names(dir, ".tmp-"),
               access(entry_path(scenario, BIG_KEY, path, sizeof path), F_OK) == 0 ? "present"
                                                                                   : "absent");
        in_child("killed", after_kill);
    }
    in_child("killed", repair_child);
}

TEST(writers_killed_mid_publish_leave_nothing_bad)
{
    in_child("killed", killed_writer_child);
}

int main(void)
{
    static const struct tap_test tests[] = {
        TAP_ENTRY(processes_publish_the_same_keys_at_once),
        TAP_ENTRY(threads_publish_the_same_keys_at_once),
        TAP_ENTRY(writers_killed_mid_publish_leave_nothing_bad),
    };
    return store_test_main(tests, sizeof tests / sizeof *tests);
}
