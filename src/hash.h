/* Hashes (hash.c): xxHash XXH3 from the system library, header-only. */
#ifndef CUSPEC_HASH_H
#define CUSPEC_HASH_H

#include "config.h"

#include <stddef.h>
#include <stdint.h>

/* XXH3-128 of data as 32 lowercase hex digits and a terminating NUL. */
void cuspec__hash128_hex(const void *data, size_t len, char hex[33]);
uint64_t cuspec__hash64(const void *data, size_t len);
/* XXH3-64 of a's bytes followed by b's. */
/* A value no other process or thread gets now, for a file name: the pid
 * keeps processes apart, a counter threads, the clock a reused pid. */
uint64_t cuspec__unique64(void);
uint64_t cuspec__hash64_pair(const void *a, size_t a_len, const void *b, size_t b_len);

#endif /* CUSPEC_HASH_H */
