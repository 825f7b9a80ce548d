/* Hashes from the system's xxHash, used header-only (XXH_INLINE_ALL) so the
 * installed library has no run-time dependency on libxxhash. */
#include "hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void cuspec__hash128_hex(const void *data, size_t len, char hex[33])
{
    XXH128_hash_t h = XXH3_128bits(data, len);
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

uint64_t cuspec__hash64(const void *data, size_t len)
{
    return XXH3_64bits(data, len);
}

uint64_t cuspec__hash64_pair(const void *a, size_t a_len, const void *b, size_t b_len)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, a, a_len);
    XXH3_64bits_update(&st, b, b_len);
    return XXH3_64bits_digest(&st);
}

static _Atomic uint64_t n_unique;

uint64_t cuspec__unique64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed[4] = {(uint64_t)getpid(), atomic_fetch_add(&n_unique, 1), (uint64_t)ts.tv_sec,
                        (uint64_t)ts.tv_nsec};
    return cuspec__hash64(seed, sizeof seed);
}
