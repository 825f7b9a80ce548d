/* The store against another user and a careless administrator (unit, CPU,
 * root only): root sets up what the other user planted (another uid, modes,
 * links, hard links, FIFOs), and each scenario then runs as nobody, the
 * store's user, in a child process. Also the compile lock, leftovers, the
 * quarantine's bound and the checksum over the header. */
#include "store_files.h" /* first: config.h picks the system interfaces */
#include "tap.h"
#include "store_test.h"
#include "error.h"
#include "hash.h"
#include "store.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/file.h>

#define NOBODY 65534
#define OTHER 1 /* another user: daemon */

/* snprintf for paths built from the scratch folder's, which is short: a
 * function, so that the compiler does not warn of truncations that cannot
 * happen. */
static void pathf(char *buf, size_t size, const char *fmt, ...) CUSPEC__PRINTF(3, 4);
static void pathf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(buf, size, fmt, ap) >= (int)size)
        TAP_FAIL("path too long: %s", buf);
    va_end(ap);
}

/* Runs as nobody from here on, with a watchdog: a store call that hangs (a
 * FIFO read without O_NONBLOCK) fails the scenario instead of the suite. */
static void as_nobody(void)
{
    CHECK(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0);
    if (geteuid() != NOBODY)
        exit(1);
    alarm(20);
}

/* <base>/<rel>, made as a folder of `uid` with `mode`. */
static const char *folder(char *buf, size_t size, const char *rel, uid_t uid, mode_t mode)
{
    in_base(buf, size, rel);
    CHECK(mkdir(buf, mode) == 0 || errno == EEXIST);
    CHECK(chown(buf, uid, uid) == 0 && chmod(buf, mode) == 0);
    return buf;
}

/* The folder holding `key`'s entry in `store`. */
static const char *fan_of(const char *store, const char *key, char *buf, size_t size)
{
    entry_path(store, key, buf, size);
    *strrchr(buf, '/') = '\0';
    return buf;
}

/* Makes every folder on the way to `key`'s entry in `store` (as root), each
 * of `uid` and 0700 (0755 for root's), so that a test can then spoil one. */
static void make_fan(const char *store, const char *key, uid_t uid)
{
    mode_t mode = uid == 0 ? 0755 : 0700;
    char fan[1024], top[1024];
    fan_of(store, key, fan, sizeof fan);
    pathf(top, sizeof top, "%s", fan);
    *strrchr(top, '/') = '\0';
    CHECK(mkdir(top, mode) == 0 || errno == EEXIST);
    CHECK(mkdir(fan, mode) == 0 || errno == EEXIST);
    CHECK(chown(top, uid, uid) == 0 && chown(fan, uid, uid) == 0);
}

/* Publishes put(key, kind, len, seed) into <base>/<rel> from a child running
 * as `uid` (the store must be that user's). */
static const char *fill_key;
static unsigned fill_seed;
static void fill_child(void)
{
    CHECK(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0);
    put(fill_key, CUSPEC_KIND_CUBIN, 200, fill_seed);
}
static void fill(const char *rel, const char *key, unsigned seed)
{
    fill_key = key;
    fill_seed = seed;
    in_child(rel, fill_child);
}

/* Copies `key`'s entry from store `from` to store `to` as a file of `uid`
 * (what another user would plant). */
static void plant(const char *from, const char *to, const char *key, uid_t uid)
{
    char src[1024], dst[1024];
    make_fan(to, key, NOBODY);
    copy_file(entry_path(from, key, src, sizeof src), entry_path(to, key, dst, sizeof dst));
    CHECK(chown(dst, uid, uid) == 0);
}

/* ## The root and the folders on the way to it */

static char moved[1024], decoy[1024];

/* Opens the store (a hit), then the path is re-pointed: the process keeps
 * the folder it opened. */
static void repointed_child(void)
{
    as_nobody();
    CHECK(loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    /* The store's folder renamed away and a decoy put in its place. */
    CHECK(rename(scenario, moved) == 0);
    CHECK(rename(decoy, scenario) == 0);
    CHECK(loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 2));
    CHECK(!loads("other kernel", CUSPEC_KIND_CUBIN, 200, 3));
    CHECK_INT_EQ(n_warnings, 0);
}

TEST(a_running_process_keeps_the_store_it_opened)
{
    char dir[1024];
    folder(dir, sizeof dir, "rp", NOBODY, 0700); /* nobody's, who renames in it */
    folder(dir, sizeof dir, "rp/store", NOBODY, 0700);
    folder(decoy, sizeof decoy, "rp/decoy", NOBODY, 0700);
    in_base(moved, sizeof moved, "rp/store.moved");
    fill("rp/store", "kernel", 1);
    fill("rp/decoy", "kernel", 2);
    fill("rp/decoy", "other kernel", 3);
    in_child("rp/store", repointed_child);
}

/* Through a link in a folder of ours: followed once, at the start; the link
 * re-pointed later changes nothing. */
static char via_link[1024], link_path[1024], link_target_b[1024];
static void link_child(void)
{
    as_nobody();
    setenv("CUSPEC_CACHE_DIR", via_link, 1);
    CHECK(loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK(unlink(link_path) == 0 && symlink(link_target_b, link_path) == 0);
    CHECK(loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK_INT_EQ(n_warnings, 0);
    CHECK_STR_EQ(stats().path, via_link);
}

static void root_link_child(void)
{
    as_nobody();
    setenv("CUSPEC_CACHE_DIR", link_path, 1);
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK(!stats().writable);
    CHECK_STR_CONTAINS(warnings, "is a symbolic link: set it to the folder the link names");
}

/* A link another user made, in a folder both may write (/tmp): it could
 * send the store to any folder of nobody's. */
static void foreign_link_child(void)
{
    as_nobody();
    setenv("CUSPEC_CACHE_DIR", via_link, 1);
    put("kernel", CUSPEC_KIND_CUBIN, 200, 1);
    CHECK(!stats().writable);
    CHECK_STR_CONTAINS(warnings, "on the way to it is owned by uid 1, who could point it anywhere");
}

static void dot_root_child(void)
{
    as_nobody();
    setenv("CUSPEC_CACHE_DIR", via_link, 1);
    CHECK(!stats().writable);
    CHECK_STR_CONTAINS(warnings, "ends in . or ..: name its folder");
}

TEST(links_on_the_way_are_followed_once_the_root_is_no_link)
{
    char a[1024], b[1024], home[1024];
    folder(home, sizeof home, "linkhome", NOBODY, 0700);
    folder(a, sizeof a, "linkhome/a", NOBODY, 0700);
    folder(b, sizeof b, "linkhome/b", NOBODY, 0700);
    folder(a, sizeof a, "linkhome/a/store", NOBODY, 0700);
    folder(b, sizeof b, "linkhome/b/store", NOBODY, 0700);
    fill("linkhome/a/store", "kernel", 1);
    fill("linkhome/b/store", "kernel", 2);
    in_base(link_path, sizeof link_path, "linkhome/cache");
    in_base(link_target_b, sizeof link_target_b, "linkhome/b");
    CHECK(symlink("a", link_path) == 0); /* relative, as ~/.cache -> elsewhere often is */
    CHECK(lchown(link_path, NOBODY, NOBODY) == 0);
    pathf(via_link, sizeof via_link, "%s/store", link_path);
    in_child("linkhome", link_child);
    CHECK(unlink(link_path) == 0 && symlink(a, link_path) == 0); /* the store itself a link */
    in_child("linkhome", root_link_child);
    pathf(via_link, sizeof via_link, "%s/.", link_path); /* ... or named through "." */
    in_child("linkhome", dot_root_child);

    char shared[1024], victim[1024];
    folder(shared, sizeof shared, "linkshared", 0, 01777);
    folder(victim, sizeof victim, "linkhome/victim", NOBODY, 0700);
    in_base(link_path, sizeof link_path, "linkshared/cache");
    CHECK(symlink(victim, link_path) == 0 && lchown(link_path, OTHER, OTHER) == 0);
    pathf(via_link, sizeof via_link, "%s/store", link_path);
    in_child("linkhome", foreign_link_child);
    CHECK_INT_EQ(count_names(victim, ""), 0); /* nothing made where the link pointed */
}

static const char *ancestor_expect;
static void ancestor_child(void)
{
    as_nobody();
    int ok = loads("kernel", CUSPEC_KIND_CUBIN, 200, 1);
    if (ancestor_expect == NULL) {
        CHECK(ok);
        CHECK_INT_EQ(n_warnings, 0);
    } else {
        CHECK(!ok);
        CHECK_STR_CONTAINS(warnings, ancestor_expect);
    }
}

TEST(a_store_others_could_replace_is_refused)
{
    char parent[1024], store[1024];
    folder(parent, sizeof parent, "anc", NOBODY, 0755);
    folder(store, sizeof store, "anc/store", NOBODY, 0700);
    fill("anc/store", "kernel", 1);
    ancestor_expect = NULL;
    in_child("anc/store", ancestor_child);
    CHECK(chmod(parent, 0777) == 0);
    ancestor_expect = "on the way to it is writable by group or others without the sticky bit";
    in_child("anc/store", ancestor_child);
    CHECK(chmod(parent, 01777) == 0); /* as /tmp: others cannot rename what is ours */
    ancestor_expect = NULL;
    in_child("anc/store", ancestor_child);
    CHECK(chmod(parent, 0755) == 0 && chown(parent, OTHER, OTHER) == 0);
    ancestor_expect = "on the way to it is owned by uid 1";
    in_child("anc/store", ancestor_child);
}

/* ## Folders and files inside a trusted root */

static const char *refused_expect;
static int refused_top; /* the entries' folder itself is refused */
static void refused_inside_child(void)
{
    cuspec_store_stats s;
    as_nobody();
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK_STR_CONTAINS(warnings, refused_expect);
    CHECK_STR_CONTAINS(warnings, "nothing is read from it or kept in it");
    /* The management calls do not enter it either: a refused entries'
     * folder is the store's failure, a refused fan-out folder is skipped. */
    CHECK_INT_EQ(cuspec_store_get_stats(&s), refused_top ? CUSPEC_ERR_STORE : CUSPEC_OK);
    CHECK_UINT_EQ(s.entries[CUSPEC_KIND_CUBIN], 0);
    put("kernel", CUSPEC_KIND_CUBIN, 200, 5); /* nor is anything kept there */
    cuspec_store_get_stats(&s);
    CHECK_UINT_EQ(s.write_failures, 1);
}

/* `dir` of the store "inside" given to another user, then made writable
 * by others (`mode`): each refused in turn. */
static void spoil(const char *dir, int top, mode_t mode, const char *writable)
{
    refused_top = top;
    CHECK(chown(dir, OTHER, OTHER) == 0);
    refused_expect = "is owned by uid 1";
    in_child("inside", refused_inside_child);
    CHECK(chown(dir, NOBODY, NOBODY) == 0 && chmod(dir, mode) == 0);
    refused_expect = writable;
    in_child("inside", refused_inside_child);
    CHECK(chmod(dir, 0700) == 0);
}

/* What another user planted in a store that is ours. */
TEST(folders_inside_the_store_are_checked)
{
    char good[1024], store[1024], top[1024], fan[1024], elsewhere[1024];
    folder(good, sizeof good, "good", NOBODY, 0700);
    fill("good", "kernel", 1);

    folder(store, sizeof store, "inside", NOBODY, 0700);
    plant(good, store, "kernel", NOBODY);
    pathf(top, sizeof top, "%s/" CUSPEC__ENTRIES_DIR, store);
    fan_of(store, "kernel", fan, sizeof fan);

    spoil(top, 1, 0777, "is writable by group or others (mode 777)");
    spoil(fan, 0, 0757, "is writable by group or others (mode 757)");

    /* The entries' folder a link to a folder with the entry in it. */
    pathf(elsewhere, sizeof elsewhere, "%s.elsewhere", top);
    CHECK(rename(top, elsewhere) == 0 && symlink(elsewhere, top) == 0);
    CHECK(lchown(top, NOBODY, NOBODY) == 0);
    refused_top = 1;
    refused_expect = "is a symbolic link, not a folder";
    in_child("inside", refused_inside_child);
}

static void foreign_entry_child(void)
{
    char path[1024];
    as_nobody();
    entry_path(scenario, "kernel", path, sizeof path);
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK_STR_CONTAINS(warnings, refused_expect);
    CHECK(access(path, F_OK) != 0); /* moved aside: the link is ours to move */
    CHECK_UINT_EQ(stats().bad_entries, 1);
    uint64_t n_bad = 9;
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 0);
}

TEST(entry_files_of_another_user_or_writable_are_not_loaded)
{
    char good[1024], store[1024], path[1024], held[1024];
    folder(good, sizeof good, "good2", NOBODY, 0700);
    fill("good2", "kernel", 1);
    folder(store, sizeof store, "foreign-entry", NOBODY, 0700);

    /* A hard link to another user's file, as they could make with
     * protected_hardlinks off. */
    plant(good, store, "kernel", OTHER);
    in_base(held, sizeof held, "held-by-other");
    entry_path(store, "kernel", path, sizeof path);
    CHECK(link(path, held) == 0);
    refused_expect = "owned by another user (uid 1";
    in_child("foreign-entry", foreign_entry_child);
    CHECK(access(held, F_OK) == 0); /* the other user's file itself is untouched */

    plant(good, store, "kernel", NOBODY);
    CHECK(chmod(entry_path(store, "kernel", path, sizeof path), 0622) == 0);
    refused_expect = "writable by group or others (mode 622)";
    in_child("foreign-entry", foreign_entry_child);
}

static void system_sub_child(void)
{
    char sys[1024];
    as_nobody();
    setenv("CUSPEC_SYSTEM_STORE", in_base(sys, sizeof sys, "sys"), 1);
    struct cuspec__entry e;
    int tier = 0;
    int rc = cuspec__store_get("kernel", CUSPEC_KIND_CUBIN, &e, &tier);
    if (refused_expect == NULL) {
        CHECK_INT_EQ(rc, CUSPEC_OK);
        CHECK_INT_EQ(tier, CUSPEC_TIER_SYSTEM);
        cuspec__entry_free(&e);
        CHECK_INT_EQ(n_warnings, 0);
    } else {
        CHECK_INT_EQ(rc, CUSPEC_ERR_NOT_FOUND);
        CHECK_STR_CONTAINS(warnings, refused_expect);
    }
}

TEST(the_system_store_is_checked_below_its_root)
{
    char good[1024], sys[1024], user[1024], top[1024], path[1024];
    folder(good, sizeof good, "good3", NOBODY, 0700);
    fill("good3", "kernel", 1);
    folder(sys, sizeof sys, "sys", 0, 0755);
    folder(user, sizeof user, "sysuser", NOBODY, 0700);
    plant(good, sys, "kernel", 0);
    pathf(top, sizeof top, "%s/" CUSPEC__ENTRIES_DIR, sys);
    CHECK(chown(top, 0, 0) == 0 && chmod(top, 0755) == 0);
    CHECK(chown(fan_of(sys, "kernel", path, sizeof path), 0, 0) == 0 && chmod(path, 0755) == 0);
    CHECK(chmod(entry_path(sys, "kernel", path, sizeof path), 0644) == 0);
    refused_expect = NULL; /* root's and not writable by others: served */
    in_child("sysuser", system_sub_child);
    CHECK(chmod(top, 0777) == 0);
    refused_expect = "is writable by group or others (mode 777)";
    in_child("sysuser", system_sub_child);
    CHECK(chmod(top, 0755) == 0 && chown(path, OTHER, OTHER) == 0);
    refused_expect = "owned by another user";
    in_child("sysuser", system_sub_child);
    CHECK(access(path, F_OK) == 0); /* the system store is never written */
}

/* ## FIFOs, the quarantine, the checksum */

static void fifo_child(void)
{
    char sys[1024];
    cuspec_store_stats s;
    uint64_t n_bad = 0;
    as_nobody();
    setenv("CUSPEC_SYSTEM_STORE", in_base(sys, sizeof sys, "fifo-sys"), 1);
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK(!loads("system kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK_STR_CONTAINS(warnings, "not a regular file");
    CHECK_INT_EQ(cuspec_store_get_stats(&s), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
    put("kernel", CUSPEC_KIND_CUBIN, 200, 1);
    CHECK(loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
}

TEST(a_fifo_where_an_entry_belongs_hangs_nobody)
{
    char store[1024], sys[1024], path[1024];
    folder(store, sizeof store, "fifo", NOBODY, 0700);
    folder(sys, sizeof sys, "fifo-sys", 0, 0755);
    make_fan(store, "kernel", NOBODY);
    CHECK(mkfifo(entry_path(store, "kernel", path, sizeof path), 0600) == 0);
    CHECK(chown(path, NOBODY, NOBODY) == 0);
    make_fan(sys, "system kernel", 0);
    CHECK(mkfifo(entry_path(sys, "system kernel", path, sizeof path), 0644) == 0);
    /* The first hard lookup blocks in open() without O_NONBLOCK: the alarm
     * of as_nobody fails the child then. */
    in_child("fifo", fifo_child);
}

static char outside[1024];
static void quarantine_link_child(void)
{
    uint64_t removed = 0;
    as_nobody();
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1)); /* bad: removed, not moved through the link */
    CHECK_STR_CONTAINS(warnings, "quarantine is a symbolic link, not a folder");
    CHECK_INT_EQ(count_names(outside, ""), 1);
    CHECK_INT_EQ(cuspec_store_clear(0, &removed), CUSPEC_OK);
    CHECK_INT_EQ(count_names(outside, ""), 1); /* what the link named is left alone */
    char q[1024];
    pathf(q, sizeof q, "%s/" CUSPEC__QUARANTINE_DIR, scenario);
    struct stat st;
    CHECK(lstat(q, &st) != 0); /* the link itself is gone */
}

static void quarantine_file_child(void)
{
    uint64_t n_bad = 0;
    as_nobody();
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    CHECK_INT_EQ(cuspec_store_verify(1, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_STR_CONTAINS(warnings, "quarantine is not a folder");
}

static void quarantine_bound_child(void)
{
    char path[1024], q[1024];
    as_nobody();
    for (unsigned i = 0; i < CUSPEC__QUARANTINE_MAX + 6; i++) {
        put("kernel", CUSPEC_KIND_CUBIN, 200, i);
        flip_byte(entry_path(scenario, "kernel", path, sizeof path), -1);
        CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, i));
    }
    pathf(q, sizeof q, "%s/" CUSPEC__QUARANTINE_DIR, scenario);
    CHECK_INT_EQ(count_names(q, ""), CUSPEC__QUARANTINE_MAX);
    CHECK_UINT_EQ(stats().quarantined, CUSPEC__QUARANTINE_MAX);
}

TEST(the_quarantine_is_never_followed_and_is_bounded)
{
    char store[1024], path[1024], q[1024], victim[1024];
    folder(store, sizeof store, "qlink", NOBODY, 0700);
    folder(outside, sizeof outside, "qlink-outside", NOBODY, 0700);
    pathf(victim, sizeof victim, "%s/precious", outside);
    write_file(victim, "keep me", 7);
    fill("qlink", "kernel", 1);
    flip_byte(entry_path(store, "kernel", path, sizeof path), -1);
    pathf(q, sizeof q, "%s/" CUSPEC__QUARANTINE_DIR, store);
    CHECK(symlink(outside, q) == 0 && lchown(q, NOBODY, NOBODY) == 0);
    in_child("qlink", quarantine_link_child);

    fill("qlink", "kernel", 1);
    flip_byte(entry_path(store, "kernel", path, sizeof path), -1);
    write_file(q, "a file", 6);
    CHECK(chown(q, NOBODY, NOBODY) == 0);
    in_child("qlink", quarantine_file_child);

    folder(store, sizeof store, "qbound", NOBODY, 0700);
    in_child("qbound", quarantine_bound_child);
}

static void relabelled_child(void)
{
    uint64_t n_bad = 0;
    as_nobody();
    CHECK(!loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    struct cuspec__entry e;
    CHECK_INT_EQ(cuspec__store_get("kernel", CUSPEC_KIND_PTX, &e, NULL), CUSPEC_ERR_NOT_FOUND);
    CHECK_UINT_EQ(stats().bad_entries, 1);
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
}

static void verify_relabelled_child(void)
{
    uint64_t n_bad = 0;
    as_nobody();
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK_UINT_EQ(n_bad, 1);
}

TEST(the_checksum_covers_the_header)
{
    char store[1024], path[1024];
    const unsigned char ptx[4] = {CUSPEC_KIND_PTX, 0, 0, 0};
    folder(store, sizeof store, "relabel", NOBODY, 0700);
    fill("relabel", "kernel", 1);
    write_at(entry_path(store, "kernel", path, sizeof path), 12, ptx, sizeof ptx);
    in_child("relabel", verify_relabelled_child);
    in_child("relabel", relabelled_child);
}

/* ## Leftovers, the size bound, the compile lock */

static void leftovers_child(void)
{
    char fan[1024], tmp[1200], lock[1200];
    as_nobody();
    put("kernel", CUSPEC_KIND_CUBIN, 200, 1); /* the first publish walks the store */
    fan_of(scenario, "kernel", fan, sizeof fan);
    pathf(tmp, sizeof tmp, "%s/" CUSPEC__TMP_PREFIX "1-dead", fan);
    pathf(lock, sizeof lock, "%s/0123456789abcdef0123456789abcd" CUSPEC__LOCK_SUFFIX, fan);
    write_file(tmp, "half an entry", 13);
    write_file(lock, "", 0);
    set_age(tmp, 3600);
    cuspec_store_stats s = stats();
    CHECK_UINT_EQ(s.leftovers, 2);
    CHECK_UINT_EQ(s.leftover_bytes, 13);
    /* Later publishes under the bound do not walk the store again. */
    for (unsigned i = 0; i < 20; i++) {
        char key[32];
        snprintf(key, sizeof key, "kernel %u", i);
        put(key, CUSPEC_KIND_CUBIN, 200, i);
    }
    CHECK(access(tmp, F_OK) == 0);
    uint64_t n_bad = 0;
    CHECK_INT_EQ(cuspec_store_verify(1, NULL, NULL, &n_bad), CUSPEC_OK);
    CHECK(access(tmp, F_OK) != 0);
    CHECK(access(lock, F_OK) != 0);
    CHECK_UINT_EQ(stats().leftovers, 0);
}

TEST(leftovers_are_counted_and_removed)
{
    char store[1024];
    folder(store, sizeof store, "leftovers", NOBODY, 0700);
    in_child("leftovers", leftovers_child);
}

/* A folder with something in it where the oldest entry belongs: warned
 * about, and the others are evicted all the same. */
static void stuck_eviction_child(void)
{
    char path[1024], inside[1100];
    as_nobody();
    setenv("CUSPEC_CACHE_MAX_BYTES", "64K", 1);
    put("stuck", CUSPEC_KIND_CUBIN, 200, 1);
    entry_path(scenario, "stuck", path, sizeof path);
    CHECK(unlink(path) == 0 && mkdir(path, 0700) == 0);
    pathf(inside, sizeof inside, "%s/x", path);
    write_file(inside, "x", 1);
    set_age(path, 100000);
    for (unsigned i = 0; i < 12; i++) {
        char key[32];
        snprintf(key, sizeof key, "kernel %u", i);
        put(key, CUSPEC_KIND_CUBIN, 10000, i);
        set_age(entry_path(scenario, key, path, sizeof path), 1000 - (long)i);
    }
    uint64_t removed = 0;
    CHECK_INT_EQ(cuspec_store_prune(0, 0, &removed), CUSPEC_OK);
    cuspec_store_stats s = stats();
    CHECK(s.bytes[CUSPEC_KIND_CUBIN] <= 65536);
    CHECK_INT_GE(s.evictions, 6);
    CHECK_STR_CONTAINS(warnings, "it is left in the store");
}

TEST(one_entry_that_cannot_be_removed_stops_no_eviction)
{
    char store[1024];
    folder(store, sizeof store, "stuck", NOBODY, 0700);
    in_child("stuck", stuck_eviction_child);
}

static void tiny_bound_child(void)
{
    setenv("CUSPEC_CACHE_MAX_BYTES", "1", 1);
    CHECK_UINT_EQ(stats().max_bytes, 1ull << 30);
    CHECK_STR_CONTAINS(warnings, "is not a size of at least 64K");
}

TEST(a_bound_too_small_to_hold_a_kernel_is_refused)
{
    in_child("tinybound", tiny_bound_child);
}

/* The lock of "kernel", held by a child that then stops or dies. */
static void hold_lock(void *how)
{
    struct cuspec__store_lock lk;
    char store[1024];
    setenv("CUSPEC_CACHE_DIR", in_base(store, sizeof store, "lock"), 1);
    cuspec__store_lock("kernel", &lk);
    if (lk.fd < 0)
        exit(1);
    raise(SIGSTOP); /* the parent knows the lock is held */
    if (*(const char *)how == 'p') { /* publish the entry, then let go */
        usleep(300000);
        put("kernel", CUSPEC_KIND_CUBIN, 200, 1);
        cuspec__store_unlock(&lk);
    }
    exit(0);
}

static pid_t holder(const char *how)
{
    char store[1024];
    mkdir(in_base(store, sizeof store, "lock"), 0700);
    pid_t pid = fork();
    if (pid == 0)
        hold_lock((void *)how);
    int st;
    CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st));
    if (*how == 'p')
        CHECK(kill(pid, SIGCONT) == 0);
    return pid;
}

/* Puts a FIFO at the lock of "kernel" in the folder `fan`. */
static void lock_fifo(const char *fan, char *lock, size_t size)
{
    char hex[33];
    cuspec__hash128_hex("kernel", 6, hex);
    snprintf(lock, size, "%s/%s" CUSPEC__LOCK_SUFFIX, fan, hex + 2);
    CHECK(mkfifo(lock, 0600) == 0);
}

static void lock_child(void)
{
    struct cuspec__store_lock lk;
    char store[1024];
    setenv("CUSPEC_CACHE_DIR", in_base(store, sizeof store, "lock"), 1);

    /* A holder that stopped: waited for, then gone on without. */
    pid_t pid = holder("stop");
    cuspec__store_lock_wait_ms = 300;
    cuspec__store_lock("kernel", &lk);
    CHECK_INT_EQ(lk.fd, -1);
    CHECK(lk.waited);
    CHECK_STR_CONTAINS(warnings, "for another process compiling the same kernel");
    cuspec__store_unlock(&lk);

    /* The same holder killed: its lock goes with it. */
    CHECK(kill(pid, SIGKILL) == 0 && waitpid(pid, NULL, 0) == pid);
    cuspec__store_lock_wait_ms = 20000;
    cuspec__store_lock("kernel", &lk);
    CHECK_INT_GE(lk.fd, 0);
    CHECK(!lk.waited);
    cuspec__store_unlock(&lk);

    /* A holder that publishes: the waiter finds the entry after. */
    pid = holder("publish");
    cuspec__store_lock("kernel", &lk);
    CHECK_INT_GE(lk.fd, 0);
    CHECK(lk.waited);
    CHECK(loads("kernel", CUSPEC_KIND_CUBIN, 200, 1));
    cuspec__store_unlock(&lk);
    CHECK(child_ok(pid));
    char fan[1024], lock[1100];
    CHECK_INT_EQ(count_names(fan_of(store, "kernel", fan, sizeof fan), ""), 1); /* no lock left */

    /* A FIFO where the lock goes: compiled without it, and said. */
    lock_fifo(fan, lock, sizeof lock);
    cuspec__store_lock("kernel", &lk);
    CHECK_INT_EQ(lk.fd, -1);
    CHECK_STR_CONTAINS(warnings, "is not a file of yours");
    cuspec__store_unlock(&lk);
}

TEST(one_process_compiles_a_key_the_others_wait)
{
    in_child("lock", lock_child);
}

int main(void)
{
    if (geteuid() != 0)
        tap_skip("not root: these tests set up what another user planted, then act as nobody");
    static const struct tap_test tests[] = {
        TAP_ENTRY(a_running_process_keeps_the_store_it_opened),
        TAP_ENTRY(links_on_the_way_are_followed_once_the_root_is_no_link),
        TAP_ENTRY(a_store_others_could_replace_is_refused),
        TAP_ENTRY(folders_inside_the_store_are_checked),
        TAP_ENTRY(entry_files_of_another_user_or_writable_are_not_loaded),
        TAP_ENTRY(the_system_store_is_checked_below_its_root),
        TAP_ENTRY(a_fifo_where_an_entry_belongs_hangs_nobody),
        TAP_ENTRY(the_quarantine_is_never_followed_and_is_bounded),
        TAP_ENTRY(the_checksum_covers_the_header),
        TAP_ENTRY(leftovers_are_counted_and_removed),
        TAP_ENTRY(one_entry_that_cannot_be_removed_stops_no_eviction),
        TAP_ENTRY(a_bound_too_small_to_hold_a_kernel_is_refused),
        TAP_ENTRY(one_process_compiles_a_key_the_others_wait),
    };
    return store_test_main(tests, sizeof tests / sizeof *tests);
}
