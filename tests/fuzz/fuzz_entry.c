/* libFuzzer harness: the store's entry reader on any bytes, at each depth.
 * Whatever a file holds, the reader returns a status and allocates no more
 * than the file's size; here ASan and UBSan watch it do so. */
#include "store_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("cuspec-fuzz-entry", MFD_CLOEXEC)) < 0) {
        perror("memfd_create");
        abort();
    }
    if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("writing the memfd");
        abort();
    }
    static const enum cuspec__read_depth depths[] = {CUSPEC__READ_HEADER, CUSPEC__READ_KEY,
                                                     CUSPEC__READ_ALL};
    for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
        struct cuspec__entry_file f;
        char problem[256];
        int rc = cuspec__entry_read_fd(fd, depths[i], &f, problem, sizeof problem);
        /* What the reader promises: a known status, and with CUSPEC_OK
         * lengths that add up to the file and a body that ends in a NUL. */
        if (rc != CUSPEC_OK && rc != CUSPEC_ERR_CORRUPT && rc != CUSPEC_ERR_IO &&
            rc != CUSPEC_ERR_NOMEM)
            abort();
        if (rc == CUSPEC_OK) {
            if (40 + (uint64_t)f.key_len + f.meta_len + f.payload_len != size)
                abort();
            if (depths[i] != CUSPEC__READ_HEADER) {
                size_t body = (size_t)f.key_len + f.meta_len +
                              (depths[i] == CUSPEC__READ_ALL ? (size_t)f.payload_len : 0);
                if (f.body == NULL || f.body[body] != '\0')
                    abort();
            }
        } else if (rc == CUSPEC_ERR_CORRUPT && problem[0] == '\0') {
            abort(); /* a refusal always says why */
        }
        cuspec__entry_file_free(&f);
    }
    return 0;
}
