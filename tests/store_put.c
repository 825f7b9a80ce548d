/* store_put KEY KIND FILE [META]: publishes FILE's bytes to the store as an
 * entry of KIND (cubin, ptx or tuning) under KEY, the way the library does
 * after a compile. For the CLI tests, which have no compiler to fill a store
 * with; not itself a test. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int kind = 0, rc = 1;
    char *data = NULL;
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: store_put KEY KIND FILE [META]\n");
        return 2;
    }
    for (int k = CUSPEC_KIND_CUBIN; k <= CUSPEC_KIND_TUNING; k++)
        if (strcmp(argv[2], cuspec_kind_name(k)) == 0)
            kind = k;
    FILE *f = fopen(argv[3], "rb");
    if (kind == 0 || f == NULL) {
        fprintf(stderr, "store_put: bad kind '%s' or unreadable file '%s'\n", argv[2], argv[3]);
        goto done;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    data = malloc(len > 0 ? (size_t)len : 1);
    if (data == NULL || fread(data, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "store_put: cannot read '%s'\n", argv[3]);
        goto done;
    }
    int status = cuspec__store_put(argv[1], kind, argc == 5 ? argv[4] : "", data, (size_t)len);
    if (status != CUSPEC_OK) {
        fprintf(stderr, "store_put: %s: %s\n", cuspec_strerror(status), cuspec_last_error());
        goto done;
    }
    rc = 0;
done:
    if (f != NULL)
        fclose(f);
    free(data);
    return rc;
}
