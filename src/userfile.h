/* Files outside the store that a user names (userfile.c). */
#ifndef CUSPEC_USERFILE_H
#define CUSPEC_USERFILE_H

#include "error.h"

/* ## Files at paths the user names, outside the store (userfile.c) */
/* Creates a new file next to `path` to write it through, exclusively (never
 * through a link), mode 0644 before the umask; its name goes to tmp (`size`
 * bytes) and an fd open for writing to *fd. CUSPEC_ERR_IO saying why. */
int cuspec__file_create(const char *path, char *tmp, size_t size, int *fd);
/* Renames tmp (written and closed) over `path`; on failure removes tmp and
 * returns CUSPEC_ERR_IO saying why. */
int cuspec__file_replace(const char *tmp, const char *path);
/* Reads the regular file at `path`, of at most `max` bytes, into a malloc'd,
 * NUL-terminated *text of *len bytes. A directory, FIFO, device or socket
 * is refused at once (never waited on), CUSPEC_ERR_IO saying what it is;
 * CUSPEC_ERR_NOMEM. */
int cuspec__file_read(const char *path, size_t max, char **text, size_t *len);
/* The same for `path` relative to the folder open as `dir` (openat): ptxas.c
 * reads what ptxas left in its own folder so. */
int cuspec__file_read_at(int dir, const char *path, size_t max, char **text, size_t *len);
/* Writes all len bytes of buf to fd (retrying short writes and EINTR): 0,
 * or -1 with errno set. The store's entries and ptxas.c's PTX too. */
int cuspec__write_all(int fd, const void *buf, size_t len);

#endif /* CUSPEC_USERFILE_H */
