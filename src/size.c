/* Sizes as people write them ("64K", "16m", "2G", "2^16"): one reading for
 * the library's environment variables and for the CLI's options. */
#include "error.h"

#include <errno.h>
#include <stdlib.h>

int cuspec_parse_size(const char *text, uint64_t *value)
{
    CUSPEC__RETURN_IF(text == NULL || value == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_parse_size: text or value is NULL");
    /* strtoull alone would take spaces, a sign and "0x" */
    CUSPEC__RETURN_IF(*text < '0' || *text > '9', CUSPEC_ERR_INVALID,
                      "'%.64s' is not a size (digits, then K, M or G; or 2^K)", text);
    char *end;
    if (text[0] == '2' && text[1] == '^') {
        CUSPEC__RETURN_IF(text[2] < '0' || text[2] > '9', CUSPEC_ERR_INVALID,
                          "'%.64s' is not a size (digits, then K, M or G; or 2^K)", text);
        errno = 0;
        unsigned long long e = strtoull(text + 2, &end, 10);
        CUSPEC__RETURN_IF(*end != '\0', CUSPEC_ERR_INVALID,
                          "'%.64s' is not a size (digits, then K, M or G; or 2^K)", text);
        CUSPEC__RETURN_IF(errno != 0 || e > 63, CUSPEC_ERR_INVALID,
                          "'%.64s' is more than 2^64 - 1 bytes", text);
        *value = (uint64_t)1 << e;
        return CUSPEC_OK;
    }
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    }
    if (shift != 0)
        end++;
    CUSPEC__RETURN_IF(*end != '\0', CUSPEC_ERR_INVALID,
                      "'%.64s' is not a size (digits, then K, M or G; or 2^K)", text);
    CUSPEC__RETURN_IF(errno != 0 || v > UINT64_MAX >> shift, CUSPEC_ERR_INVALID,
                      "'%.64s' is more than 2^64 - 1 bytes", text);
    *value = (uint64_t)v << shift;
    return CUSPEC_OK;
}
