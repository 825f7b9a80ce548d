/* Opening the store's folders and files so that nobody else's code can be
 * loaded: the roots are reached once, component by component from "/", and
 * kept open; everything in them is opened relative to a folder already
 * checked, never through a symbolic link, and checked again by fstat on the
 * descriptor that is then read (no window between the check and the use).
 *
 * The rules (DESIGN.md, "The store"):
 * - a folder or file of the store: owned by this user (user store) or by root
 *   or this user (system store), and not writable by group or others;
 * - a folder on the way to a root: owned by root or this user, and writable
 *   by group or others only with the sticky bit (as /tmp), so that nobody
 *   else can rename the store away and put another in its place (ssh checks
 *   the folders above its key files the same way). A symbolic link on the
 *   way is followed only from such a folder, and its target is walked and
 *   checked the same way; the root itself must not be a link. */
#include "store_files.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINKS 40 /* as the kernel's ELOOP bound */

static const char *store_name(int system)
{
    return system ? "system store" : "store";
}

/* Whether `st`'s owner may have put it in a store: this user (`me`, the
 * caller's one geteuid), or for the system store root too. */
static int owner_ok(const struct stat *st, int system, uid_t me)
{
    return st->st_uid == me || (system && st->st_uid == 0);
}

int cuspec__store_dir_ok(const struct stat *st, int system, uid_t me)
{
    return S_ISDIR(st->st_mode) && owner_ok(st, system, me) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether `st`, of a folder or file inside a store, may be trusted; when not,
 * why in `why`. */
static int owned_safely(const struct stat *st, int system, uid_t me, const char *path, char *why,
                        size_t size)
{
    if (!owner_ok(st, system, me)) {
        cuspec__store_format(why, size,
                             "%s is owned by uid %u, not by you (uid %u)%s: loading a cubin runs "
                             "its code (fix: chown %u %s)",
                             path, (unsigned)st->st_uid, (unsigned)me, system ? " or root" : "",
                             (unsigned)me, path);
        return 0;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        cuspec__store_format(why, size,
                             "%s is writable by group or others (mode %03o): loading a cubin runs "
                             "its code (fix: chmod go-w %s)",
                             path, (unsigned)(st->st_mode & 0777), path);
        return 0;
    }
    return 1;
}

/* The same for a folder on the way to a store's root. */
static int ancestor_safe(const struct stat *st, uid_t me, const char *path, char *why, size_t size)
{
    if (st->st_uid != me && st->st_uid != 0) {
        cuspec__store_format(why, size,
                             "the folder %s on the way to it is owned by uid %u, who could put "
                             "another store in its place",
                             path, (unsigned)st->st_uid);
        return 0;
    }
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
        cuspec__store_format(why, size,
                             "the folder %s on the way to it is writable by group or others "
                             "without the sticky bit (mode %04o), so they could put another "
                             "store in its place",
                             path, (unsigned)(st->st_mode & 07777));
        return 0;
    }
    return 1;
}

int cuspec__store_open_root(const char *path, int system, int create, int *fd, char *why,
                            size_t size)
{
    /* `rest` holds the components still to walk; a link met on the way
     * splices its target in front of them. */
    char rest[2 * CUSPEC__STORE_PATH_MAX], walked[2 * CUSPEC__STORE_PATH_MAX] = "";
    int cur = -1, links = 0, status = CUSPEC_ERR_STORE;
    uid_t me = geteuid();
    struct stat st;
    *fd = -1;
    if (path[0] != '/') {
        cuspec__store_format(why, size, "the %s path %s is not absolute", store_name(system), path);
        return CUSPEC_ERR_STORE;
    }
    /* The store's own folder must be named (not "x/." or "x/.."), so that
     * the walk knows which component must not be a link. */
    size_t stop = strlen(path);
    while (stop > 1 && path[stop - 1] == '/')
        stop--;
    size_t start = stop;
    while (start > 0 && path[start - 1] != '/')
        start--;
    if ((stop - start == 1 && path[start] == '.') ||
        (stop - start == 2 && path[start] == '.' && path[start + 1] == '.')) {
        cuspec__store_format(why, size, "the %s path %s ends in . or ..: name its folder",
                             store_name(system), path);
        return CUSPEC_ERR_STORE;
    }
    cuspec__strlcpy(rest, path, sizeof rest);
restart:
    if (cur >= 0)
        close(cur);
    walked[0] = '\0';
    cur = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0 || fstat(cur, &st) != 0 || !ancestor_safe(&st, me, "/", why, size))
        goto fail;
    for (char *p = rest;;) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        char *end = strchr(p, '/');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        int last = end == NULL || end[strspn(end, "/")] == '\0';
        char comp[256];
        if (n >= sizeof comp) {
            cuspec__store_format(why, size, "a name in the %s path %s is too long",
                                 store_name(system), path);
            goto fail;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        p += n;
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            /* Lexically: `walked` holds no link (each was spliced away), so
             * this is the folder above, which is then walked and checked. */
            char again[2 * CUSPEC__STORE_PATH_MAX], *up = strrchr(walked, '/');
            if (up != NULL)
                *up = '\0';
            int n_again = snprintf(again, sizeof again, "%s%s", walked, p);
            if (n_again < 0 || (size_t)n_again >= sizeof rest) {
                cuspec__store_format(why, size, "the %s path %s is too long", store_name(system),
                                     path);
                goto fail;
            }
            cuspec__strlcpy(rest, again[0] != '\0' ? again : "/", sizeof rest);
            goto restart;
        }
        size_t wl = strlen(walked);
        if (snprintf(walked + wl, sizeof walked - wl, "/%s", comp) >= (int)(sizeof walked - wl)) {
            cuspec__store_format(why, size, "the %s path %s is too long", store_name(system), path);
            goto fail;
        }
        int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create) {
            if (mkdirat(cur, comp, 0700) != 0 && errno != EEXIST) {
                cuspec__store_format(why, size, "cannot create the %s folder %s: %s",
                                     store_name(system), walked, strerror(errno));
                status = CUSPEC_ERR_IO;
                goto fail;
            }
            fsync(cur);
            next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0 && (errno == ELOOP || errno == ENOTDIR) &&
            fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
            char target[CUSPEC__STORE_PATH_MAX], spliced[2 * CUSPEC__STORE_PATH_MAX];
            ssize_t len = readlinkat(cur, comp, target, sizeof target - 1);
            if (last) {
                cuspec__store_format(why, size,
                                     "the %s path %s is a symbolic link: set it to the folder "
                                     "the link names",
                                     store_name(system), walked);
                goto fail;
            }
            /* As the kernel's protected_symlinks: a link someone else made
             * (in /tmp, say) could send us to any folder of ours. */
            if (st.st_uid != me && st.st_uid != 0) {
                cuspec__store_format(why, size,
                                     "the link %s on the way to it is owned by uid %u, who could "
                                     "point it anywhere",
                                     walked, (unsigned)st.st_uid);
                goto fail;
            }
            if (len <= 0 || (size_t)len >= sizeof target - 1 || ++links > MAX_LINKS) {
                cuspec__store_format(why, size, "cannot follow the link %s", walked);
                goto fail;
            }
            target[len] = '\0';
            *strrchr(walked, '/') = '\0';
            /* A relative target continues from the folder holding the link. */
            int n_spliced = target[0] == '/'
                                ? snprintf(spliced, sizeof spliced, "%s%s", target, p)
                                : snprintf(spliced, sizeof spliced, "%s/%s%s", walked, target, p);
            if (n_spliced < 0 || (size_t)n_spliced >= sizeof rest) {
                cuspec__store_format(why, size, "the %s path %s is too long once its links are "
                                     "followed", store_name(system), path);
                goto fail;
            }
            cuspec__strlcpy(rest, spliced, sizeof rest);
            goto restart;
        }
        if (next < 0) {
            cuspec__store_format(why, size, "cannot use the %s folder %s: %s",
                                 store_name(system), walked, strerror(errno));
            status = errno == ENOENT ? CUSPEC_ERR_NOT_FOUND : CUSPEC_ERR_IO;
            goto fail;
        }
        close(cur);
        cur = next;
        if (fstat(cur, &st) != 0) {
            cuspec__store_format(why, size, "cannot stat %s: %s", walked, strerror(errno));
            goto fail;
        }
        if (!last && !ancestor_safe(&st, me, walked, why, size))
            goto fail;
    }
    if (walked[0] == '\0') {
        cuspec__store_format(why, size, "the %s cannot be / itself", store_name(system));
        goto fail;
    }
    if (!owned_safely(&st, system, me, walked, why, size))
        goto fail;
    *fd = cur;
    return CUSPEC_OK;
fail:
    if (cur >= 0)
        close(cur);
    return status;
}

int cuspec__store_open_dir(int parent, const char *name, int system, int create,
                           const char *path, int *fd, char *why, size_t size)
{
    struct stat st;
    uid_t me = geteuid();
    *fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0 && errno == ENOENT && create) {
        if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST) {
            cuspec__store_format(why, size, "cannot create %s: %s", path, strerror(errno));
            return CUSPEC_ERR_IO;
        }
        /* The new folder's name is durable before anything is put in it. */
        fsync(parent);
        *fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (*fd < 0) {
        int err = errno;
        cuspec__store_format(why, size, "%s is gone (removed meanwhile)", path);
        if (err == ENOENT)
            return CUSPEC_ERR_NOT_FOUND;
        if (err == ELOOP || err == ENOTDIR) {
            int link = fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            cuspec__store_format(why, size, "%s is %s", path,
                                 link ? "a symbolic link, not a folder" : "not a folder");
            return CUSPEC_ERR_STORE;
        }
        /* Another user's folder is often closed to us too: say whose it is. */
        if (err == EACCES && fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            !owned_safely(&st, system, me, path, why, size))
            return CUSPEC_ERR_STORE;
        cuspec__store_format(why, size, "cannot open %s: %s", path, strerror(err));
        return CUSPEC_ERR_IO;
    }
    if (fstat(*fd, &st) != 0 || !owned_safely(&st, system, me, path, why, size)) {
        close(*fd);
        *fd = -1;
        return CUSPEC_ERR_STORE;
    }
    return CUSPEC_OK;
}

int cuspec__store_check_file(const struct stat *st, int system, uid_t me, char *why, size_t size)
{
    const char *problem = NULL;
    int owner = owner_ok(st, system, me);
    if (!S_ISREG(st->st_mode))
        problem = "not a regular file";
    else if (!owner)
        problem = "owned by another user";
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        problem = "writable by group or others";
    if (problem == NULL)
        return CUSPEC_OK;
    if (!owner && S_ISREG(st->st_mode))
        cuspec__store_format(why, size, "%s (uid %u, you are uid %u): not loaded", problem,
                             (unsigned)st->st_uid, (unsigned)me);
    else
        cuspec__store_format(why, size, "%s (mode %03o): not loaded", problem,
                             (unsigned)(st->st_mode & 0777));
    return CUSPEC_ERR_CORRUPT;
}

int cuspec__store_open_file(int dir, const char *name, int system, int *fd, struct stat *st,
                            char *why, size_t size)
{
    /* O_NONBLOCK: a FIFO planted here must not hang the reader; it is then
     * refused as not a regular file. */
    *fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int err = errno;
    if (*fd < 0 && err == ENOENT)
        return CUSPEC_ERR_NOT_FOUND;
    uid_t me = geteuid();
    if (*fd < 0 && fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st->st_mode)) {
        cuspec__store_format(why, size, "a symbolic link, not an entry file");
        return CUSPEC_ERR_CORRUPT;
    }
    /* Another user's file is often closed to us too: its fstatat tells. */
    if (*fd < 0 && (err != EACCES || fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) != 0 ||
                    owner_ok(st, system, me))) {
        cuspec__store_format(why, size, "cannot open it: %s", strerror(err));
        return CUSPEC_ERR_IO;
    }
    if (*fd >= 0 && fstat(*fd, st) != 0) {
        cuspec__store_format(why, size, "cannot stat it: %s", strerror(errno));
        close(*fd);
        *fd = -1;
        return CUSPEC_ERR_IO;
    }
    int rc = cuspec__store_check_file(st, system, me, why, size);
    if (rc != CUSPEC_OK && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}
