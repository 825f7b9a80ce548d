/* ptxas as a child process, for ahead-of-time compiles of several archs
 * (jit.c): its files in a folder of its own (mode 0700, made with mkdtemp
 * under $TMPDIR, checked to be ours, removed after), named relative to it
 * (ptxas runs in it), so that no other user can swap them; what it leaves
 * is read back only when it is a regular file of bounded size, and a cubin
 * only when it is a CUDA ELF file. */
#define _GNU_SOURCE /* secure_getenv */
#include "ptxas.h"
#include "error.h"
#include "userfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_OUTPUT (256u << 20) /* the largest cubin or log read back */

struct workdir {
    char path[PATH_MAX];
    int fd;
};

static int workdir_open(struct workdir *w)
{
    const char *tmp = secure_getenv("TMPDIR");
    struct stat st;
    if (tmp == NULL || tmp[0] != '/')
        tmp = "/tmp";
    w->fd = -1;
    if ((size_t)snprintf(w->path, sizeof w->path, "%s/cuspec-ptxas-XXXXXX", tmp) >= sizeof w->path)
        return cuspec__fail(CUSPEC_ERR_IO, "TMPDIR %s is too long a path", tmp);
    if (mkdtemp(w->path) == NULL)
        return cuspec__fail(CUSPEC_ERR_IO, "cannot make a folder for ptxas in %s: %s", tmp,
                            strerror(errno));
    w->fd = open(w->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    /* The folder opened is the one made: ours, and no one else's to write. */
    if (w->fd < 0 || fstat(w->fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        if (w->fd >= 0)
            close(w->fd);
        w->fd = -1;
        return cuspec__fail(CUSPEC_ERR_IO, "the folder %s made for ptxas is not ours alone",
                            w->path);
    }
    return CUSPEC_OK;
}

/* Removes the folder and whatever is in it (ptxas's files: no folders). */
static void workdir_close(struct workdir *w)
{
    int fd = dup(w->fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    const struct dirent *e;
    if (d == NULL && fd >= 0)
        close(fd);
    while (d != NULL && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(w->fd, e->d_name, 0);
    if (d != NULL)
        closedir(d);
    close(w->fd);
    rmdir(w->path);
}

/* w's file `name`, at most MAX_OUTPUT bytes, NUL-terminated. */
static int read_file(const struct workdir *w, const char *name, char **data, size_t *len)
{
    return cuspec__file_read_at(w->fd, name, MAX_OUTPUT, data, len);
}

/* Runs argv[0] in w's folder, with nothing of ours but its output and
 * errors going to w's "log" (stdin /dev/null, no other descriptor, default
 * signals); its exit status, -1 when it could not start, died of a signal
 * or could not be waited for (a host that ignores SIGCHLD). */
static int run(const struct workdir *w, char *const argv[])
{
    int log = openat(w->fd, "log", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (log < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int status = -1, ready = posix_spawn_file_actions_init(&fa) == 0;
    if (ready && posix_spawnattr_init(&attr) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        ready = 0;
    }
    pid_t pid;
    if (ready &&
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0) == 0 &&
        posix_spawn_file_actions_adddup2(&fa, log, STDOUT_FILENO) == 0 &&
        posix_spawn_file_actions_adddup2(&fa, log, STDERR_FILENO) == 0 &&
        posix_spawn_file_actions_addfchdir_np(&fa, w->fd) == 0 &&
        posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1) == 0 &&
        posix_spawnattr_setsigmask(&attr, &none) == 0 &&
        posix_spawnattr_setsigdefault(&attr, &all) == 0 &&
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) == 0 &&
        posix_spawn(&pid, argv[0], &fa, &attr, argv, environ) == 0) {
        int ws = 0;
        pid_t got;
        while ((got = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
            ;
        status = got == pid && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    }
    if (ready) {
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&fa);
    }
    close(log);
    return status;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char checked[PATH_MAX];
static int checked_major, checked_minor;

/* CUSPEC_PTXAS's ptxas and its CUDA version, from `ptxas --version`. */
static void check_ptxas(void)
{
    const char *path = secure_getenv("CUSPEC_PTXAS");
    struct workdir w;
    if (path == NULL || path[0] != '/' || strlen(path) >= sizeof checked ||
        access(path, X_OK) != 0 || workdir_open(&w) != CUSPEC_OK)
        return;
    char *argv[] = {(char *)path, "--version", NULL}, *log = NULL;
    size_t len;
    const char *release;
    if (run(&w, argv) == 0 && read_file(&w, "log", &log, &len) == CUSPEC_OK &&
        (release = strstr(log, "release ")) != NULL &&
        sscanf(release, "release %d.%d", &checked_major, &checked_minor) == 2)
        memcpy(checked, path, strlen(path) + 1);
    free(log);
    workdir_close(&w);
}

const char *cuspec__ptxas(int major, int minor)
{
    pthread_once(&once, check_ptxas);
    return checked[0] != '\0' && checked_major == major && checked_minor == minor ? checked : NULL;
}

/* Whether data is a CUDA ELF file: the magic, and e_machine EM_CUDA (190). */
static int is_cubin(const char *data, size_t len)
{
    return len >= 20 && memcmp(data, "\177ELF", 4) == 0 && (unsigned char)data[18] == 190 &&
           (unsigned char)data[19] == 0;
}

int cuspec__ptxas_cubin(const char *path, const char *ptx, size_t len, int arch, char **cubin,
                        size_t *cubin_len)
{
    struct workdir w;
    *cubin = NULL;
    int rc = workdir_open(&w);
    if (rc != CUSPEC_OK)
        return rc;
    int fd = openat(w.fd, "in.ptx", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int written = fd >= 0 && cuspec__write_all(fd, ptx, len) == 0, err = errno;
    if (fd >= 0 && close(fd) != 0 && written) {
        written = 0;
        err = errno;
    }
    if (!written) {
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot write the PTX for ptxas in %s: %s", w.path,
                          strerror(err));
        goto out;
    }
    char arch_opt[32];
    snprintf(arch_opt, sizeof arch_opt, "-arch=sm_%d", arch);
    char *argv[] = {(char *)path, arch_opt, "-o", "out.cubin", "in.ptx", NULL};
    int status = run(&w, argv);
    if (status != 0) {
        char *log = NULL;
        size_t log_len;
        read_file(&w, "log", &log, &log_len);
        rc = cuspec__fail(CUSPEC_ERR_COMPILE, "%s %s failed (exit status %d): %s", path, arch_opt,
                          status, log != NULL ? log : "(no output)");
        free(log);
        goto out;
    }
    rc = read_file(&w, "out.cubin", cubin, cubin_len);
    if (rc == CUSPEC_OK && !is_cubin(*cubin, *cubin_len)) {
        free(*cubin);
        *cubin = NULL;
        rc = cuspec__fail(CUSPEC_ERR_COMPILE, "%s %s made no CUDA ELF file", path, arch_opt);
    }
out:
    workdir_close(&w);
    return rc;
}
