/* Files at paths the user names, outside the store (a tuning export to
 * write, one to import). A file is written through a new one made
 * exclusively next to it and renamed over it: a link planted at a name
 * cuspec would use is never followed, and a failed write leaves nothing
 * behind. A file is read only when it is a regular file, opened without
 * blocking first: a FIFO or a device named by mistake cannot hang the call. */
#include "error.h"
#include "hash.h"
#include "userfile.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

int cuspec__file_create(const char *path, char *tmp, size_t size, int *fd)
{
    int err = EEXIST;
    *fd = -1;
    /* A name nobody can guess (pid, counter and clock, hashed); O_EXCL makes
     * even a guessed one harmless: it is refused, not followed. */
    for (int tries = 0; tries < 16 && err == EEXIST; tries++) {
        int len = snprintf(tmp, size, "%s.tmp-%016llx", path,
                           (unsigned long long)cuspec__unique64());
        if (len < 0 || (size_t)len >= size) {
            tmp[0] = '\0';
            return cuspec__fail(CUSPEC_ERR_INVALID, "the path '%s' is too long", path);
        }
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (*fd >= 0)
            return CUSPEC_OK;
        err = errno;
    }
    tmp[0] = '\0';
    return cuspec__fail(CUSPEC_ERR_IO, "cannot create a file next to %s: %s", path, strerror(err));
}

int cuspec__file_replace(const char *tmp, const char *path)
{
    if (rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        return cuspec__fail(CUSPEC_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(err));
    }
    /* The rename made durable; the file is in place already, so a failure
     * here is not one of the write. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        cuspec__strlcpy(dir, ".", sizeof dir);
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return CUSPEC_OK;
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

int cuspec__write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int cuspec__file_read(const char *path, size_t max, char **text, size_t *len)
{
    return cuspec__file_read_at(AT_FDCWD, path, max, text, len);
}

int cuspec__file_read_at(int dir, const char *path, size_t max, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int fd = openat(dir, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    CUSPEC__RETURN_IF(fd < 0, CUSPEC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    int rc = CUSPEC_OK;
    if (fstat(fd, &st) != 0)
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: it is %s, not a regular file", path,
                          file_kind(st.st_mode));
    else if ((uint64_t)st.st_size > max)
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: it has %llu bytes, more than %zu", path,
                          (unsigned long long)st.st_size, max);
    /* The file may grow while it is read: the bound holds whatever it does.
     * A byte past its size, to see the end without another allocation. */
    size_t cap = rc == CUSPEC_OK ? (size_t)st.st_size + 1 : 0, n = 0;
    char *buf = rc == CUSPEC_OK ? malloc(cap + 1) : NULL;
    if (rc == CUSPEC_OK && buf == NULL)
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory reading %s", path);
    while (rc == CUSPEC_OK) {
        if (n == cap && cap > max) {
            rc = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: it has more than %zu bytes", path,
                              max);
            break;
        }
        if (n == cap) {
            size_t want = 2 * cap < max + 1 ? 2 * cap : max + 1;
            char *grown = realloc(buf, want + 1);
            if (grown == NULL) {
                rc = cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            buf = grown;
            cap = want;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rc = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
        else if (got == 0)
            break;
        else
            n += (size_t)got;
    }
    close(fd);
    if (rc != CUSPEC_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return CUSPEC_OK;
}
