/* The on-disk store (unit, CPU): round trips, misses, every kind of bad
 * entry, verify and repair, stores that cannot be written or must not be
 * trusted, where the store is, the size bound, clear and prune. Each scenario
 * runs in a child process with its own store (see store_test.h). */
#include "store_files.h" /* first: config.h picks the system interfaces */
#include "tap.h"
#include "store_test.h"
#include "store.h"

#define META "lowered=_Z4testv\nnvrtc=13.0\n"

/* ## Round trips and misses */

static void round_trip_child(void)
{
    char path[1024];
    struct stat st;
    for (int kind = CUSPEC_KIND_CUBIN; kind <= CUSPEC_KIND_TUNING; kind++) {
        char key[32];
        snprintf(key, sizeof key, "key of kind %d", kind);
        put(key, kind, 1000 + (size_t)kind, (unsigned)kind);
    }
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.publishes, 3);
    CHECK_STR_EQ(s.path, scenario);
    CHECK(s.writable);
    CHECK_UINT_EQ(s.max_bytes, 1ull << 30);
    for (int kind = CUSPEC_KIND_CUBIN; kind <= CUSPEC_KIND_TUNING; kind++) {
        char key[32];
        snprintf(key, sizeof key, "key of kind %d", kind);
        struct cuspec__entry e;
        int tier = 0;
        CHECK_INT_EQ(cuspec__store_get(key, kind, &e, &tier), CUSPEC_OK);
        CHECK_INT_EQ(tier, CUSPEC_TIER_STORE);
        CHECK_INT_EQ(e.kind, kind);
        CHECK(same_payload(&e, 1000 + (size_t)kind, (unsigned)kind));
        CHECK_STR_EQ(e.meta, META);
        cuspec__entry_free(&e);
        CHECK_UINT_EQ(s.entries[kind], 1);
        CHECK_UINT_EQ(s.bytes[kind], file_size(entry_path(scenario, key, path, sizeof path)));
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    }
    CHECK(loads("key of kind 1", CUSPEC_KIND_CUBIN, 1001, 1)); /* again: a hit */
    s = stats();
    CHECK_UINT_EQ(s.hits, 4);
    CHECK_UINT_EQ(s.misses, 0);
    CHECK_UINT_EQ(s.bad_entries, 0);
    CHECK(stat(scenario, &st) == 0 && (st.st_mode & 0777) == 0700);

    put("empty payload", CUSPEC_KIND_TUNING, 0, 0);
    CHECK(loads("empty payload", CUSPEC_KIND_TUNING, 0, 0));
    /* Publishing a key again replaces its entry. */
    put("key of kind 1", CUSPEC_KIND_CUBIN, 500, 9);
    CHECK(loads("key of kind 1", CUSPEC_KIND_CUBIN, 500, 9));
    cuspec__store_count_compile();
    CHECK_UINT_EQ(stats().compiles, 1);
    CHECK_INT_EQ(n_warnings, 0);
}

TEST(round_trip_of_each_kind)
{
    in_child("roundtrip", round_trip_child);
}

static void miss_child(void)
{
    struct cuspec__entry e;
    CHECK_INT_EQ(cuspec__store_get("never published", CUSPEC_KIND_CUBIN, &e, NULL),
                 CUSPEC_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(cuspec_last_error(), "no cubin entry");
    CHECK_UINT_EQ(stats().misses, 1);
    /* The same key text as another kind is a plain miss, not a bad entry. */
    put("published as ptx", CUSPEC_KIND_PTX, 100, 1);
    CHECK_INT_EQ(cuspec__store_get("published as ptx", CUSPEC_KIND_CUBIN, &e, NULL),
                 CUSPEC_ERR_NOT_FOUND);
    CHECK(loads("published as ptx", CUSPEC_KIND_PTX, 100, 1));
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.misses, 2);
    CHECK_UINT_EQ(s.hits, 1);
    CHECK_UINT_EQ(s.bad_entries, 0);
    CHECK_INT_EQ(n_warnings, 0);
}

TEST(absent_key_is_a_miss)
{
    in_child("miss", miss_child);
}

static void invalid_child(void)
{
    struct cuspec__entry e;
    CHECK_INT_EQ(cuspec__store_get(NULL, CUSPEC_KIND_CUBIN, &e, NULL), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec__store_get("k", 0, &e, NULL), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec__store_put("k", 4, "", "x", 1), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec__store_put("", CUSPEC_KIND_CUBIN, "", "x", 1), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec__store_put("k", CUSPEC_KIND_CUBIN, "", NULL, 1), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_store_get_stats(NULL), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_store_list(NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_store_clear(1u, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "kind_mask");
    CHECK_INT_EQ(cuspec_store_clear(1u << 4, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_EQ(cuspec_kind_name(CUSPEC_KIND_CUBIN), "cubin");
    CHECK_STR_EQ(cuspec_kind_name(CUSPEC_KIND_PTX), "ptx");
    CHECK_STR_EQ(cuspec_kind_name(CUSPEC_KIND_TUNING), "tuning");
    CHECK_STR_EQ(cuspec_kind_name(7), "unknown");
}

TEST(invalid_arguments)
{
    in_child("invalid", invalid_child);
}

/* ## Bad entries */

struct damage {
    const char *name;
    void (*apply)(const char *path);
};

static void flip_payload(const char *path)
{
    flip_byte(path, -1);
}
static void flip_key(const char *path)
{
    flip_byte(path, 40);
}
static void flip_meta(const char *path)
{
    flip_byte(path, 40 + (long)strlen("damaged key: flip_meta"));
}
static void flip_version(const char *path)
{
    flip_byte(path, 8);
}
static void flip_checksum(const char *path)
{
    flip_byte(path, 35);
}
static void unknown_kind(const char *path)
{
    write_at(path, 12, "\x09\0\0\0", 4);
}
static void huge_lengths(const char *path)
{
    write_at(path, 16, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 16);
}
static void truncated(const char *path)
{
    CHECK(truncate(path, file_size(path) - 10) == 0);
}
static void extended(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
}
static void shorter_than_header(const char *path)
{
    CHECK(truncate(path, 20) == 0);
}
static void emptied(const char *path)
{
    CHECK(truncate(path, 0) == 0);
}
static void wrong_magic(const char *path)
{
    write_at(path, 0, "NOTCUSPE", 8);
}
static void swapped(const char *path)
{
    char other[1024];
    put("another key", CUSPEC_KIND_CUBIN, 300, 77);
    copy_file(entry_path(scenario, "another key", other, sizeof other), path);
}
static void replaced_by_link(const char *path)
{
    char other[1024];
    put("link target", CUSPEC_KIND_CUBIN, 300, 78);
    CHECK(unlink(path) == 0);
    CHECK(symlink(entry_path(scenario, "link target", other, sizeof other), path) == 0);
}
static void random_bytes(const char *path)
{
    unsigned char junk[4096];
    srand(7);
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)rand();
    write_file(path, junk, sizeof junk);
}

static const struct damage damages[] = {
    {"flip_payload", flip_payload},
    {"flip_key", flip_key},
    {"flip_meta", flip_meta},
    {"flip_version", flip_version},
    {"flip_checksum", flip_checksum},
    {"unknown_kind", unknown_kind},
    {"huge_lengths", huge_lengths},
    {"truncated", truncated},
    {"extended", extended},
    {"shorter_than_header", shorter_than_header},
    {"emptied", emptied},
    {"wrong_magic", wrong_magic},
    {"swapped", swapped},
    {"replaced_by_link", replaced_by_link},
    {"random_bytes", random_bytes},
};
#define N_DAMAGES (sizeof damages / sizeof *damages)

static void bad_entry_child(void)
{
    char quarantine[1024], path[1024];
    snprintf(quarantine, sizeof quarantine, "%s/quarantine", scenario);
    for (size_t i = 0; i < N_DAMAGES; i++) {
        char key[64];
        snprintf(key, sizeof key, "damaged key: %s", damages[i].name);
        entry_path(scenario, key, path, sizeof path);
        put(key, CUSPEC_KIND_CUBIN, 4000, (unsigned)i);
        damages[i].apply(path);
        uint64_t bad_before = stats().bad_entries;
        int warned_before = n_warnings;

        struct cuspec__entry e;
        int rc = cuspec__store_get(key, CUSPEC_KIND_CUBIN, &e, NULL);
        if (rc != CUSPEC_ERR_NOT_FOUND)
            TAP_FAIL("%s: get returned %d", damages[i].name, rc);
        CHECK_UINT_EQ(stats().bad_entries, bad_before + 1);
        CHECK_INT_EQ(n_warnings, warned_before + 1);
        CHECK_STR_CONTAINS(warnings, path);
        CHECK_INT_EQ(count_names(quarantine, ""), (int)i + 1);
        struct stat st;
        if (lstat(path, &st) == 0)
            TAP_FAIL("%s: the bad entry is still in place", damages[i].name);

        /* Recompiled and published again, it loads. */
        put(key, CUSPEC_KIND_CUBIN, 4000, (unsigned)i);
        if (!loads(key, CUSPEC_KIND_CUBIN, 4000, (unsigned)i))
            TAP_FAIL("%s: the entry published again does not load", damages[i].name);
    }
    CHECK_STR_CONTAINS(warnings, "checksum mismatch");
    CHECK_STR_CONTAINS(warnings, "another key");
    CHECK_STR_CONTAINS(warnings, "wrong magic");
    CHECK_STR_CONTAINS(warnings, "moved to");
    /* The entries bad ones were copied from are unharmed. */
    CHECK(loads("another key", CUSPEC_KIND_CUBIN, 300, 77));
    CHECK(loads("link target", CUSPEC_KIND_CUBIN, 300, 78));
}

TEST(bad_entries_are_quarantined_misses)
{
    in_child("bad", bad_entry_child);
}

/* A thousand random mutations of a good entry: each is a miss, none
 * crashes or loads. */
static void mutation_child(void)
{
    char path[1024];
    unsigned char *orig, *copy;
    const char *key = "mutated";
    entry_path(scenario, key, path, sizeof path);
    put(key, CUSPEC_KIND_CUBIN, 2000, 5);
    size_t len = (size_t)file_size(path);
    orig = malloc(len);
    copy = malloc(len);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && read(fd, orig, len) == (ssize_t)len);
    close(fd);
    srand(11);
    int wrong = 0;
    for (int i = 0; i < 1000; i++) {
        memcpy(copy, orig, len);
        size_t n = len;
        int flips = 1 + rand() % 4;
        for (int f = 0; f < flips; f++) {
            /* Mostly the header, where the lengths are. */
            size_t at = rand() % 2 ? (size_t)rand() % 40 : (size_t)rand() % len;
            copy[at] ^= (unsigned char)(1 + rand() % 255);
        }
        if (rand() % 4 == 0)
            n = (size_t)rand() % len;
        write_file(path, copy, n);
        struct cuspec__entry e;
        wrong += cuspec__store_get(key, CUSPEC_KIND_CUBIN, &e, NULL) != CUSPEC_ERR_NOT_FOUND;
        cuspec__entry_free(&e);
    }
    CHECK_INT_EQ(wrong, 0);
    CHECK_UINT_EQ(stats().bad_entries, 1000);
    free(orig);
    free(copy);
}

TEST(random_mutations_never_load)
{
    in_child("mutations", mutation_child);
}

/* ## List, verify and repair */

struct seen {
    int n, n_bad;
    char problems[4096];
};

static int record_entry(const cuspec_store_entry *e, void *user)
{
    struct seen *s = user;
    size_t len = strlen(s->problems);
    s->n++;
    if (e->problem[0] != '\0') {
        s->n_bad++;
        CHECK_INT_EQ(e->kind, 0);
        snprintf(s->problems + len, sizeof s->problems - len, "%s\n", e->problem);
    }
    return 0;
}

static int check_listed(const cuspec_store_entry *e, void *user)
{
    if (strcmp(e->key, "listed") != 0)
        return 0;
    CHECK_INT_EQ(e->kind, CUSPEC_KIND_PTX);
    CHECK_STR_EQ(e->meta, META);
    CHECK_STR_EQ(e->problem, "");
    CHECK_UINT_EQ(e->size, file_size(e->path));
    CHECK(e->last_use > time(NULL) - 100 && e->last_use <= time(NULL));
    ++*(int *)user;
    return 0;
}

static int stop_walk(const cuspec_store_entry *e, void *user)
{
    ++*(int *)user;
    return 42;
}

static void verify_child(void)
{
    char path[1024], other[1024], tmp[1100], quarantine[1024];
    for (unsigned i = 0; i < 6; i++) {
        char key[32];
        snprintf(key, sizeof key, "good %u", i);
        put(key, CUSPEC_KIND_CUBIN, 3000, i);
    }
    put("listed", CUSPEC_KIND_PTX, 10, 1);
    put("bad payload", CUSPEC_KIND_CUBIN, 3000, 10);
    flip_payload(entry_path(scenario, "bad payload", path, sizeof path));
    put("bad swap", CUSPEC_KIND_CUBIN, 3000, 11);
    put("swap source", CUSPEC_KIND_CUBIN, 3000, 12);
    CHECK(rename(entry_path(scenario, "swap source", other, sizeof other),
                 entry_path(scenario, "bad swap", path, sizeof path)) == 0);
    put("bad length", CUSPEC_KIND_TUNING, 3000, 13);
    truncated(entry_path(scenario, "bad length", path, sizeof path));
    /* One bad entry met by a get, now in quarantine. */
    put("quarantined", CUSPEC_KIND_CUBIN, 100, 14);
    wrong_magic(entry_path(scenario, "quarantined", path, sizeof path));
    CHECK(!loads("quarantined", CUSPEC_KIND_CUBIN, 100, 14));
    snprintf(quarantine, sizeof quarantine, "%s/quarantine", scenario);
    CHECK_INT_EQ(count_names(quarantine, ""), 1);
    /* Temporary files: one a dead writer left long ago, one being written. */
    entry_path(scenario, "good 0", path, sizeof path);
    *strrchr(path, '/') = '\0';
    snprintf(tmp, sizeof tmp, "%s/.tmp-1-dead", path);
    write_file(tmp, "partial", 7);
    set_age(tmp, 120);
    snprintf(tmp, sizeof tmp, "%s/.tmp-2-live", path);
    write_file(tmp, "partial", 7);

    /* ls reads keys and headers: it sees the swapped and truncated ones. */
    struct seen listed = {0};
    CHECK_INT_EQ(cuspec_store_list(record_entry, &listed), CUSPEC_OK);
    CHECK_INT_EQ(listed.n, 10);
    CHECK_INT_EQ(listed.n_bad, 2);
    CHECK_STR_CONTAINS(listed.problems, "does not match its key");
    CHECK_STR_CONTAINS(listed.problems, "header says");
    int n = 0;
    CHECK_INT_EQ(cuspec_store_list(check_listed, &n), CUSPEC_OK);
    CHECK_INT_EQ(n, 1);
    n = 0;
    CHECK_INT_EQ(cuspec_store_list(stop_walk, &n), 42);
    CHECK_INT_EQ(n, 1);

    /* verify reads everything: the checksum too. */
    struct seen found = {0};
    uint64_t n_bad = 0;
    CHECK_INT_EQ(cuspec_store_verify(0, record_entry, &found, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 3);
    CHECK_INT_EQ(found.n_bad, 3);
    CHECK_STR_CONTAINS(found.problems, "checksum mismatch");
    CHECK_STR_CONTAINS(found.problems, "does not match its key");
    CHECK_STR_CONTAINS(found.problems, "header says");
    CHECK_INT_EQ(count_in_store(scenario, ""), 12); /* nothing removed */

    found = (struct seen){0};
    CHECK_INT_EQ(cuspec_store_verify(1, record_entry, &found, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 3);
    CHECK_INT_EQ(count_in_store(scenario, ".tmp-1-dead"), 0);
    CHECK_INT_EQ(count_in_store(scenario, ".tmp-2-live"), 1);
    CHECK_INT_EQ(count_in_store(scenario, ""), 8);
    CHECK_INT_EQ(count_names(quarantine, ""), 0);

    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 0);
    for (unsigned i = 0; i < 6; i++) {
        char key[32];
        snprintf(key, sizeof key, "good %u", i);
        CHECK(loads(key, CUSPEC_KIND_CUBIN, 3000, i));
    }
}

TEST(verify_finds_and_repair_removes_bad_entries)
{
    in_child("verify", verify_child);
}

/* ## Stores that cannot be written */

static void fill_system_child(void)
{
    put("shipped", CUSPEC_KIND_CUBIN, 700, 3);
    put("shipped tuning", CUSPEC_KIND_TUNING, 70, 4);
}

static void use_system_store(void)
{
    char sys[1024];
    setenv("CUSPEC_SYSTEM_STORE", in_base(sys, sizeof sys, "system"), 1);
}

/* The system store answers when the user store cannot. */
static void check_system_tier(void)
{
    struct cuspec__entry e;
    int tier = 0;
    CHECK_INT_EQ(cuspec__store_get("shipped", CUSPEC_KIND_CUBIN, &e, &tier), CUSPEC_OK);
    CHECK_INT_EQ(tier, CUSPEC_TIER_SYSTEM);
    CHECK(same_payload(&e, 700, 3));
    cuspec__entry_free(&e);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.system_entries, 2);
    CHECK_STR_CONTAINS(s.system_path, "/system");
}

static void system_tier_child(void)
{
    use_system_store();
    check_system_tier();
}

static void unwritable_child(void)
{
    char path[1024];
    /* Files where the keys' folders should be: their entries cannot be
     * written, whoever runs this (root included). */
    entry_path(scenario, "compiled here", path, sizeof path);
    *strrchr(path, '/') = '\0';
    write_file(path, "", 0);
    entry_path(scenario, "compiled here too", path, sizeof path);
    *strrchr(path, '/') = '\0';
    write_file(path, "", 0);
    use_system_store();
    put("compiled here", CUSPEC_KIND_CUBIN, 100, 1);
    put("compiled here too", CUSPEC_KIND_CUBIN, 100, 2);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.write_failures, 2);
    CHECK_UINT_EQ(s.publishes, 0);
    /* One for each folder, naming it. */
    CHECK_INT_EQ(n_warnings, 2);
    CHECK_STR_CONTAINS(warnings, "is not a folder; nothing is read from it or kept in it");
    CHECK_STR_CONTAINS(warnings, scenario);
    CHECK(!loads("compiled here", CUSPEC_KIND_CUBIN, 100, 1));
    check_system_tier();
}

TEST(unwritable_store_degrades_with_one_warning)
{
    char v1[1024];
    in_child("system", fill_system_child);
    CHECK(mkdir(in_base(v1, sizeof v1, "unwritable"), 0700) == 0);
    CHECK(mkdir(in_base(v1, sizeof v1, "unwritable/" CUSPEC__ENTRIES_DIR), 0700) == 0);
    in_child("unwritable", unwritable_child);
}

static void uncreatable_child(void)
{
    uint64_t removed;
    /* No folder can be made under /proc, even by root. */
    setenv("CUSPEC_CACHE_DIR", "/proc/cuspec-test/store", 1);
    use_system_store();
    put("compiled here", CUSPEC_KIND_CUBIN, 100, 1);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.write_failures, 1);
    CHECK(!s.writable);
    CHECK_STR_EQ(s.path, "/proc/cuspec-test/store");
    CHECK_INT_EQ(n_warnings, 1);
    CHECK_STR_CONTAINS(warnings, "cannot create the store folder /proc/cuspec-test");
    CHECK_INT_EQ(cuspec_store_clear(0, &removed), CUSPEC_ERR_STORE);
    CHECK_STR_CONTAINS(cuspec_last_error(), "/proc/cuspec-test/store");
    check_system_tier();
}

TEST(uncreatable_store_degrades_with_one_warning)
{
    in_child("system", fill_system_child);
    in_child("uncreatable", uncreatable_child);
}

static void no_home_child(void)
{
    unsetenv("CUSPEC_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    put("compiled here", CUSPEC_KIND_CUBIN, 100, 1);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.write_failures, 1);
    CHECK_STR_EQ(s.path, "");
    CHECK(!s.writable);
    CHECK_INT_EQ(n_warnings, 1);
    CHECK_STR_CONTAINS(warnings, "no store folder");
    CHECK_STR_CONTAINS(warnings, "CUSPEC_CACHE_DIR is not set, XDG_CACHE_HOME is not set and "
                                 "HOME is not set");
    CHECK(!loads("compiled here", CUSPEC_KIND_CUBIN, 100, 1));
}

/* Set, but of no use: the warning says what each variable is. */
static void empty_home_child(void)
{
    setenv("CUSPEC_CACHE_DIR", "", 1);
    setenv("XDG_CACHE_HOME", "relative/cache", 1);
    setenv("HOME", "", 1);
    CHECK(!stats().writable);
    CHECK_INT_EQ(n_warnings, 1);
    CHECK_STR_CONTAINS(warnings, "CUSPEC_CACHE_DIR is empty, XDG_CACHE_HOME=relative/cache is "
                                 "relative (ignored, as the XDG specification asks) and HOME is "
                                 "empty");
}

TEST(no_home_degrades_with_one_warning)
{
    in_child("nohome", no_home_child);
    in_child("nohome", empty_home_child);
}

/* ## Where the store is */

static void xdg_child(void)
{
    char want[1024];
    struct stat st;
    unsetenv("CUSPEC_CACHE_DIR");
    setenv("XDG_CACHE_HOME", in_base(want, sizeof want, "xdg/cache"), 1);
    setenv("HOME", "/nonexistent", 1);
    CHECK_STR_EQ(stats().path, in_base(want, sizeof want, "xdg/cache/cuspec"));
    CHECK(stat(want, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK(stat(in_base(want, sizeof want, "xdg/cache"), &st) == 0 && (st.st_mode & 0777) == 0700);
}

static void home_child(void)
{
    char want[1024];
    unsetenv("CUSPEC_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "relative/is/ignored", 1);
    setenv("HOME", in_base(want, sizeof want, "home"), 1);
    CHECK_STR_EQ(stats().path, in_base(want, sizeof want, "home/.cache/cuspec"));
    put("at home", CUSPEC_KIND_TUNING, 10, 1);
    CHECK(loads("at home", CUSPEC_KIND_TUNING, 10, 1));
}

static void relative_child(void)
{
    char want[1024];
    CHECK(chdir(base) == 0);
    setenv("CUSPEC_CACHE_DIR", "relative/store", 1);
    CHECK_STR_EQ(stats().path, in_base(want, sizeof want, "relative/store"));
    CHECK(chdir("/") == 0); /* the store does not move with the process */
    put("relative", CUSPEC_KIND_TUNING, 10, 1);
    CHECK(loads("relative", CUSPEC_KIND_TUNING, 10, 1));
    char path[1024];
    CHECK(access(entry_path(want, "relative", path, sizeof path), R_OK) == 0);
}

TEST(store_location_from_environment)
{
    in_child("xdg", xdg_child);
    in_child("home", home_child);
    in_child("relative", relative_child);
}

/* ## Stores that must not be trusted */

static void fill_shared_child(void)
{
    put("planted", CUSPEC_KIND_CUBIN, 100, 1);
}

static void refused_child(void)
{
    struct cuspec__entry e;
    uint64_t n;
    CHECK_INT_EQ(cuspec__store_get("planted", CUSPEC_KIND_CUBIN, &e, NULL), CUSPEC_ERR_NOT_FOUND);
    put("compiled here", CUSPEC_KIND_CUBIN, 100, 2);
    cuspec_store_stats s = stats();
    CHECK(!s.writable);
    CHECK_UINT_EQ(s.entries[CUSPEC_KIND_CUBIN], 0); /* not read */
    CHECK_UINT_EQ(s.write_failures, 1);
    CHECK_INT_EQ(count_in_store(scenario, ""), 1); /* not written */
    CHECK_INT_EQ(cuspec_store_verify(1, NULL, NULL, &n), CUSPEC_ERR_STORE);
    CHECK_INT_EQ(n_warnings, 1);
    CHECK_STR_CONTAINS(warnings, scenario);
    CHECK_STR_CONTAINS(warnings, "is not used");
}

static void group_writable_child(void)
{
    refused_child();
    CHECK_STR_CONTAINS(warnings, "writable by group or others");
    CHECK_STR_CONTAINS(warnings, "chmod go-w");
}

static void trusted_again_child(void)
{
    CHECK(loads("planted", CUSPEC_KIND_CUBIN, 100, 1));
    CHECK_INT_EQ(n_warnings, 0);
}

TEST(group_or_other_writable_store_is_refused)
{
    char dir[1024];
    in_base(dir, sizeof dir, "shared");
    in_child("shared", fill_shared_child);
    CHECK(chmod(dir, 0770) == 0);
    in_child("shared", group_writable_child);
    CHECK(chmod(dir, 0702) == 0);
    in_child("shared", group_writable_child);
    CHECK(chmod(dir, 0755) == 0); /* readable by others is fine */
    in_child("shared", trusted_again_child);
}

static void foreign_child(void)
{
    refused_child();
    CHECK_STR_CONTAINS(warnings, "owned by uid");
    CHECK_STR_CONTAINS(warnings, "chown");
}

static void foreign_root_child(void)
{
    struct cuspec__entry e;
    setenv("CUSPEC_CACHE_DIR", "/", 1); /* root's, and we are not root */
    CHECK_INT_EQ(cuspec__store_get("planted", CUSPEC_KIND_CUBIN, &e, NULL), CUSPEC_ERR_NOT_FOUND);
    CHECK(!stats().writable);
    CHECK_STR_CONTAINS(warnings, "owned by uid 0");
}

TEST(store_owned_by_another_user_is_refused)
{
    char dir[1024];
    in_base(dir, sizeof dir, "foreign");
    in_child("foreign", fill_shared_child);
    if (geteuid() == 0) {
        CHECK(chown(dir, 65534, 65534) == 0); /* nobody */
        in_child("foreign", foreign_child);
        CHECK(chown(dir, 0, 0) == 0);
    } else {
        in_child("foreign", foreign_root_child);
    }
}

static void bad_system_child(void)
{
    struct cuspec__entry e;
    use_system_store();
    CHECK_INT_EQ(cuspec__store_get("shipped", CUSPEC_KIND_CUBIN, &e, NULL), CUSPEC_ERR_NOT_FOUND);
    CHECK_STR_EQ(stats().system_path, "");
    CHECK_INT_EQ(n_warnings, 1);
    CHECK_STR_CONTAINS(warnings, "system store folder");
}

static void damaged_system_child(void)
{
    struct cuspec__entry e;
    char path[1024], sys[1024];
    use_system_store();
    entry_path(in_base(sys, sizeof sys, "system"), "shipped", path, sizeof path);
    CHECK_INT_EQ(cuspec__store_get("shipped", CUSPEC_KIND_CUBIN, &e, NULL), CUSPEC_ERR_NOT_FOUND);
    CHECK_UINT_EQ(stats().bad_entries, 1);
    CHECK_STR_CONTAINS(warnings, "in the system store");
    CHECK(access(path, F_OK) == 0); /* the system store is never written */
}

TEST(system_store_rules)
{
    char dir[1024], path[1024];
    in_base(dir, sizeof dir, "system");
    in_child("system", fill_system_child);
    in_child("user", system_tier_child);
    CHECK(chmod(dir, 0775) == 0);
    in_child("user", bad_system_child);
    CHECK(chmod(dir, 0755) == 0);
    if (geteuid() == 0) {
        CHECK(chown(dir, 65534, 65534) == 0);
        in_child("user", bad_system_child);
        CHECK(chown(dir, 0, 0) == 0);
    }
    flip_payload(entry_path(dir, "shipped", path, sizeof path));
    in_child("user", damaged_system_child);
}

/* ## Size bound, clear and prune */

static void eviction_child(void)
{
    char path[1024];
    setenv("CUSPEC_CACHE_MAX_BYTES", "64K", 1);
    CHECK_UINT_EQ(stats().max_bytes, 65536);
    /* Tuning records bigger than the bound: never evicted, never counted. */
    for (unsigned i = 0; i < 3; i++) {
        char key[32];
        snprintf(key, sizeof key, "tuning %u", i);
        put(key, CUSPEC_KIND_TUNING, 30000, 100 + i);
        set_age(entry_path(scenario, key, path, sizeof path), 10000);
    }
    /* Six compiled entries of ~10 KB fit; each gets an older last use. */
    for (unsigned i = 0; i < 6; i++) {
        char key[32];
        snprintf(key, sizeof key, "compiled %u", i);
        put(key, i % 2 ? CUSPEC_KIND_PTX : CUSPEC_KIND_CUBIN, 10000, i);
        set_age(entry_path(scenario, key, path, sizeof path), 1000 - 10 * (long)i);
    }
    CHECK_UINT_EQ(stats().evictions, 0);
    /* Used now: the two oldest become the most recent. */
    CHECK(loads("compiled 0", CUSPEC_KIND_CUBIN, 10000, 0));
    CHECK(loads("compiled 1", CUSPEC_KIND_PTX, 10000, 1));
    /* Two more push the compiled entries past 64 KiB twice. */
    put("compiled 6", CUSPEC_KIND_CUBIN, 10000, 6);
    put("compiled 7", CUSPEC_KIND_CUBIN, 10000, 7);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.evictions, 2);
    CHECK(s.bytes[CUSPEC_KIND_CUBIN] + s.bytes[CUSPEC_KIND_PTX] <= 65536);
    CHECK_UINT_EQ(s.entries[CUSPEC_KIND_TUNING], 3);
    CHECK(!loads("compiled 2", CUSPEC_KIND_CUBIN, 10000, 2));
    CHECK(!loads("compiled 3", CUSPEC_KIND_PTX, 10000, 3));
    CHECK(loads("compiled 0", CUSPEC_KIND_CUBIN, 10000, 0));
    CHECK(loads("compiled 1", CUSPEC_KIND_PTX, 10000, 1));
    CHECK(loads("compiled 4", CUSPEC_KIND_CUBIN, 10000, 4));
    CHECK(loads("compiled 5", CUSPEC_KIND_PTX, 10000, 5));
    CHECK(loads("compiled 6", CUSPEC_KIND_CUBIN, 10000, 6));
    CHECK(loads("compiled 7", CUSPEC_KIND_CUBIN, 10000, 7));
    for (unsigned i = 0; i < 3; i++) {
        char key[32];
        snprintf(key, sizeof key, "tuning %u", i);
        CHECK(loads(key, CUSPEC_KIND_TUNING, 30000, 100 + i));
    }
    CHECK_UINT_EQ(stats().bad_entries, 0);
    CHECK_INT_EQ(n_warnings, 0);
}

TEST(eviction_keeps_the_bound_lru_first)
{
    in_child("eviction", eviction_child);
}

static void bound_child(const char *value, uint64_t want, int warned)
{
    setenv("CUSPEC_CACHE_MAX_BYTES", value, 1);
    CHECK_UINT_EQ(stats().max_bytes, want);
    CHECK_INT_EQ(n_warnings, warned);
    if (warned)
        CHECK_STR_CONTAINS(warnings, "CUSPEC_CACHE_MAX_BYTES");
}
static void bound_2g(void)
{
    bound_child("2G", 2ull << 30, 0);
}
static void bound_bytes(void)
{
    bound_child("123456", 123456, 0);
}
static void bound_bad_suffix(void)
{
    bound_child("12X", 1ull << 30, 1);
}
static void bound_zero(void)
{
    bound_child("0", 1ull << 30, 1);
}
static void bound_overflow(void)
{
    bound_child("99999999999999999999G", 1ull << 30, 1);
}

TEST(size_bound_from_environment)
{
    in_child("bound", bound_2g);
    in_child("bound", bound_bytes);
    in_child("bound", bound_bad_suffix);
    in_child("bound", bound_zero);
    in_child("bound", bound_overflow);
}

static void clear_prune_child(void)
{
    char path[1024], meta[64];
    uint64_t removed = 99;
    cuspec_nvrtc_info nv = {0};
    int have_nvrtc = cuspec_nvrtc_get_info(&nv) == CUSPEC_OK;
    snprintf(meta, sizeof meta, "lowered=_Z1fv\nnvrtc=%d.%d\n", nv.major, nv.minor);
    unsigned char payload[5000] = {0};
    for (unsigned i = 0; i < 4; i++) {
        char key[32];
        snprintf(key, sizeof key, "current %u", i);
        CHECK_INT_EQ(cuspec__store_put(key, CUSPEC_KIND_CUBIN, meta, payload, sizeof payload),
                     CUSPEC_OK);
        set_age(entry_path(scenario, key, path, sizeof path), 100 - (long)i);
    }
    CHECK_INT_EQ(cuspec__store_put("old nvrtc", CUSPEC_KIND_PTX, "nvrtc=1.0\n", payload, 100),
                 CUSPEC_OK);
    CHECK_INT_EQ(cuspec__store_put("no version", CUSPEC_KIND_PTX, "", payload, 100), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__store_put("tuned", CUSPEC_KIND_TUNING, "nvrtc=1.0\n", payload, 100),
                 CUSPEC_OK);
    CHECK_INT_EQ(cuspec__store_put("tuned too", CUSPEC_KIND_TUNING, "", payload, 100), CUSPEC_OK);

    if (have_nvrtc) {
        CHECK_INT_EQ(cuspec_store_prune(0, 1, &removed), CUSPEC_OK);
        CHECK_UINT_EQ(removed, 1);
        CHECK_UINT_EQ(stats().entries[CUSPEC_KIND_PTX], 1); /* "no version" stays */
    } else {
        CHECK_INT_EQ(cuspec_store_prune(0, 1, &removed), CUSPEC_ERR_NO_NVRTC);
        CHECK_UINT_EQ(stats().entries[CUSPEC_KIND_PTX], 2);
    }
    /* Tuning records survive a stale prune whatever they say. */
    CHECK_UINT_EQ(stats().entries[CUSPEC_KIND_TUNING], 2);

    /* Down to 12 KB: the oldest cubins go first. */
    CHECK_INT_EQ(cuspec_store_prune(12000, 0, &removed), CUSPEC_OK);
    cuspec_store_stats s = stats();
    CHECK(s.bytes[CUSPEC_KIND_CUBIN] + s.bytes[CUSPEC_KIND_PTX] <= 12000);
    CHECK_UINT_EQ(removed, 2);
    CHECK(access(entry_path(scenario, "current 0", path, sizeof path), F_OK) != 0);
    CHECK(access(entry_path(scenario, "current 1", path, sizeof path), F_OK) != 0);
    CHECK_INT_EQ(access(entry_path(scenario, "current 3", path, sizeof path), F_OK), 0);
    CHECK_UINT_EQ(s.entries[CUSPEC_KIND_TUNING], 2);
    CHECK_UINT_EQ(s.evictions, removed);

    CHECK_INT_EQ(cuspec_store_clear(1u << CUSPEC_KIND_TUNING, &removed), CUSPEC_OK);
    CHECK_UINT_EQ(removed, 2);
    s = stats();
    CHECK_UINT_EQ(s.entries[CUSPEC_KIND_TUNING], 0);
    CHECK(s.entries[CUSPEC_KIND_CUBIN] > 0);
    CHECK_INT_EQ(cuspec_store_clear(0, &removed), CUSPEC_OK);
    CHECK(removed > 0);
    CHECK_INT_EQ(count_in_store(scenario, ""), 0);
}

TEST(clear_and_prune)
{
    in_child("prune", clear_prune_child);
}

int main(void)
{
    static const struct tap_test tests[] = {
        TAP_ENTRY(round_trip_of_each_kind),
        TAP_ENTRY(absent_key_is_a_miss),
        TAP_ENTRY(invalid_arguments),
        TAP_ENTRY(bad_entries_are_quarantined_misses),
        TAP_ENTRY(random_mutations_never_load),
        TAP_ENTRY(verify_finds_and_repair_removes_bad_entries),
        TAP_ENTRY(unwritable_store_degrades_with_one_warning),
        TAP_ENTRY(uncreatable_store_degrades_with_one_warning),
        TAP_ENTRY(no_home_degrades_with_one_warning),
        TAP_ENTRY(store_location_from_environment),
        TAP_ENTRY(group_or_other_writable_store_is_refused),
        TAP_ENTRY(store_owned_by_another_user_is_refused),
        TAP_ENTRY(system_store_rules),
        TAP_ENTRY(eviction_keeps_the_bound_lru_first),
        TAP_ENTRY(size_bound_from_environment),
        TAP_ENTRY(clear_and_prune),
    };
    return store_test_main(tests, sizeof tests / sizeof *tests);
}
