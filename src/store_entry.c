/* The entry file format: writing one into memory, reading one back with
 * every check, never trusting a length before checking it against the file.
 *
 * Layout (integers little-endian):
 *
 *      0  magic "CUSPEC\0\n"                             8 bytes
 *      8  format version (CUSPEC__STORE_FORMAT)          u32
 *     12  kind (cuspec_entry_kind)                       u32
 *     16  key length                                     u32
 *     20  meta length                                    u32
 *     24  payload length                                 u64
 *     32  checksum: XXH3-64 of the whole entry, with     u64
 *         these 8 bytes zero
 *     40  key, meta, payload
 *
 * The checksum covers the header too: a flipped kind or length is caught
 * like a flipped payload byte.
 * The full key is kept so that a read can compare it with the key asked for
 * (a hash collision or a swapped file never loads the wrong kernel) and so
 * that `cuspec cache ls` can show it. */
#include "store_files.h"
#include "error.h"
#include "hash.h"
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define HEADER_SIZE 40

static const unsigned char magic[8] = {'C', 'U', 'S', 'P', 'E', 'C', '\0', '\n'};

const char *cuspec_kind_name(int kind)
{
    switch (kind) {
    case CUSPEC_KIND_CUBIN:
        return "cubin";
    case CUSPEC_KIND_PTX:
        return "ptx";
    case CUSPEC_KIND_TUNING:
        return "tuning";
    }
    return "unknown";
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int cuspec__entry_encode(const char *key, int kind, const char *meta, const void *payload,
                         size_t len, unsigned char **buf, size_t *size)
{
    size_t key_len = strlen(key), meta_len = strlen(meta);
    size_t total = HEADER_SIZE + key_len + meta_len + len;
    unsigned char *b = malloc(total);
    if (b == NULL)
        return cuspec__fail(CUSPEC_ERR_NOMEM, "cannot allocate %zu bytes for a store entry", total);
    memcpy(b, magic, sizeof magic);
    put32(b + 8, CUSPEC__STORE_FORMAT);
    put32(b + 12, (uint32_t)kind);
    put32(b + 16, (uint32_t)key_len);
    put32(b + 20, (uint32_t)meta_len);
    put64(b + 24, len);
    memcpy(b + HEADER_SIZE, key, key_len);
    memcpy(b + HEADER_SIZE + key_len, meta, meta_len);
    if (len > 0)
        memcpy(b + HEADER_SIZE + key_len + meta_len, payload, len);
    put64(b + 32, 0);
    put64(b + 32, cuspec__hash64(b, total));
    *buf = b;
    *size = total;
    return CUSPEC_OK;
}

static int bad(char *problem, size_t size, const char *fmt, ...) CUSPEC__PRINTF(3, 4);
static int bad(char *problem, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, size, fmt, ap);
    va_end(ap);
    return CUSPEC_ERR_CORRUPT;
}

/* Reads up to n bytes at off; the count read (short at end of file), or -1. */
static ssize_t read_at(int fd, void *buf, size_t n, off_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, off + (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

/* The largest file an entry can be: a bigger one is read no further than
 * its header, which then says what is wrong. */
#define MAX_ENTRY_SIZE                                                                             \
    (HEADER_SIZE + (uint64_t)CUSPEC__MAX_KEY_LEN + CUSPEC__MAX_META_LEN + CUSPEC__MAX_PAYLOAD_LEN)

/* Reads the header into h and the len bytes after it into body with one
 * call (a lookup's cost is its system calls); a short read goes on a piece
 * at a time. The count read (short at end of file), or -1. */
static ssize_t read_entry(int fd, unsigned char *h, unsigned char *body, size_t len)
{
    struct iovec iov[2] = {{h, HEADER_SIZE}, {body, len}};
    ssize_t r;
    do
        r = preadv(fd, iov, len > 0 ? 2 : 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0 || (size_t)r == HEADER_SIZE + len)
        return r;
    size_t done = (size_t)r;
    ssize_t more = 0;
    if (done < HEADER_SIZE) {
        more = read_at(fd, h + done, HEADER_SIZE - done, (off_t)done);
        if (more < 0)
            return -1;
        done += (size_t)more;
    }
    if (done >= HEADER_SIZE && done < HEADER_SIZE + len) {
        more = read_at(fd, body + (done - HEADER_SIZE), HEADER_SIZE + len - done, (off_t)done);
        if (more < 0)
            return -1;
        done += (size_t)more;
    }
    return (ssize_t)done;
}

int cuspec__entry_read_fd(int fd, enum cuspec__read_depth depth, struct cuspec__entry_file *f,
                          char *problem, size_t size)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    problem[0] = '\0';
    if (fstat(fd, &st) != 0) {
        snprintf(problem, size, "cannot stat it: %s", strerror(errno));
        return CUSPEC_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        f->st = st;
        return bad(problem, size, "not a regular file");
    }
    return cuspec__entry_read_opened(fd, &st, depth, f, problem, size);
}

int cuspec__entry_read_opened(int fd, const struct stat *st, enum cuspec__read_depth depth,
                              struct cuspec__entry_file *f, char *problem, size_t size)
{
    unsigned char h[HEADER_SIZE];
    int status = CUSPEC_OK;
    struct stat seen = *st; /* st may be f->st */
    memset(f, 0, sizeof *f);
    problem[0] = '\0';
    f->st = seen;
    uint64_t file_size = (uint64_t)st->st_size;
    if (file_size < HEADER_SIZE) {
        status = bad(problem, size, "%llu bytes, shorter than the %d-byte header",
                     (unsigned long long)file_size, HEADER_SIZE);
        goto done;
    }
    /* A whole entry is read with its header: the body is the file less the
     * header, as the header must then confirm. */
    size_t whole = 0;
    if (depth == CUSPEC__READ_ALL && file_size <= MAX_ENTRY_SIZE) {
        whole = (size_t)(file_size - HEADER_SIZE);
        f->body = malloc(whole + 1);
        if (f->body == NULL) {
            status = cuspec__fail(CUSPEC_ERR_NOMEM,
                                  "cannot allocate %zu bytes to read a store entry", whole);
            goto done;
        }
    }
    ssize_t got = read_entry(fd, h, f->body, whole);
    if (got < 0) {
        snprintf(problem, size, "cannot read it: %s", strerror(errno));
        status = CUSPEC_ERR_IO;
        goto done;
    }
    if (got < HEADER_SIZE) {
        status = bad(problem, size, "shorter than its size (truncated while read)");
        goto done;
    }
    uint32_t version = get32(h + 8), kind = get32(h + 12);
    f->key_len = get32(h + 16);
    f->meta_len = get32(h + 20);
    f->payload_len = get64(h + 24);
    if (memcmp(h, magic, sizeof magic) != 0)
        status = bad(problem, size, "wrong magic: not a cuspec store entry");
    else if (version != CUSPEC__STORE_FORMAT)
        status = bad(problem, size, "format version %u, not %d", version, CUSPEC__STORE_FORMAT);
    else if (kind < CUSPEC_KIND_CUBIN || kind > CUSPEC_KIND_TUNING)
        status = bad(problem, size, "unknown kind %u", kind);
    else if (f->key_len == 0 || f->key_len > CUSPEC__MAX_KEY_LEN ||
             f->meta_len > CUSPEC__MAX_META_LEN || f->payload_len > CUSPEC__MAX_PAYLOAD_LEN)
        status = bad(problem, size, "lengths out of range (key %u, meta %u, payload %llu bytes)",
                     f->key_len, f->meta_len, (unsigned long long)f->payload_len);
    else if (HEADER_SIZE + (uint64_t)f->key_len + f->meta_len + f->payload_len != file_size)
        status = bad(problem, size, "%llu bytes, but its header says %llu (truncated or extended)",
                     (unsigned long long)file_size,
                     (unsigned long long)(HEADER_SIZE + (uint64_t)f->key_len + f->meta_len +
                                          f->payload_len));
    if (status != CUSPEC_OK)
        goto done;
    f->kind = (int)kind;
    if (depth == CUSPEC__READ_HEADER)
        goto done;

    size_t want = (size_t)f->key_len + f->meta_len;
    if (depth == CUSPEC__READ_ALL)
        want += (size_t)f->payload_len; /* == whole: the size check above */
    if (f->body == NULL) {
        f->body = malloc(want + 1);
        if (f->body == NULL) {
            status = cuspec__fail(CUSPEC_ERR_NOMEM,
                                  "cannot allocate %zu bytes to read a store entry", want);
            goto done;
        }
        got = read_at(fd, f->body, want, HEADER_SIZE);
        if (got < 0) {
            snprintf(problem, size, "cannot read it: %s", strerror(errno));
            status = CUSPEC_ERR_IO;
            goto done;
        }
    } else {
        got -= HEADER_SIZE;
    }
    if ((size_t)got < want) {
        status = bad(problem, size, "shorter than its size (truncated while read)");
        goto done;
    }
    f->body[want] = '\0';
    uint64_t sum = get64(h + 32);
    put64(h + 32, 0);
    if (depth == CUSPEC__READ_ALL && cuspec__hash64_pair(h, HEADER_SIZE, f->body, want) != sum) {
        status = bad(problem, size, "checksum mismatch: its bytes changed after it was written");
        goto done;
    }
done:
    return status;
}

int cuspec__entry_read(int dir, const char *name, int system, enum cuspec__read_depth depth,
                       struct cuspec__entry_file *f, char *problem, size_t size)
{
    int fd;
    memset(f, 0, sizeof *f);
    problem[0] = '\0';
    int status = cuspec__store_open_file(dir, name, system, &fd, &f->st, problem, size);
    if (status != CUSPEC_OK)
        return status;
    status = cuspec__entry_read_opened(fd, &f->st, depth, f, problem, size);
    close(fd);
    return status;
}

void cuspec__entry_file_free(struct cuspec__entry_file *f)
{
    free(f->body);
    f->body = NULL;
}

void cuspec__entry_free(struct cuspec__entry *e)
{
    if (e == NULL)
        return;
    free(e->meta);
    free(e->payload);
    memset(e, 0, sizeof *e);
}
