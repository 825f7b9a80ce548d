/* libFuzzer harness: the parser of tuning exports (`cuspec tune --import`)
 * on any bytes. It checks every record as an import does, so a file it
 * accepts would be published whole; here ASan and UBSan watch it. */
#include "records_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cuspec__import *records;
    unsigned n;
    int rc = cuspec__tuning_parse((const char *)data, size, "fuzz", &records, &n);
    if (rc != CUSPEC_OK && (records != NULL || n != 0))
        abort(); /* a refused file yields nothing */
    if (rc != CUSPEC_OK && cuspec_last_error()[0] == '\0')
        abort(); /* and says why */
    for (unsigned i = 0; i < n; i++)
        if (strncmp(records[i].key, "cuspec tuning record\n", 21) != 0 ||
            records[i].payload[0] == '\0')
            abort();
    cuspec__tuning_parsed_free(records, n);
    return 0;
}
