/* Tuning records: what `cuspec tune` found, kept in the store as entries of
 * kind tuning (never evicted by size), keyed by the device's identity, the
 * library version, the family, dtype, op and size bucket. Internal. */
#ifndef CUSPEC_RECORDS_H
#define CUSPEC_RECORDS_H

#include "ops.h"

#define CUSPEC__TUNING_FORMAT 1

/* The size bucket of s and its text (its family's hooks). */
int cuspec__bucket(const struct cuspec__spec *s);
void cuspec__bucket_text(const struct cuspec__spec *s, int bucket, char *buf, size_t size);

/* The store key of the record for (device, spec, bucket); with `session`,
 * the key of the tuner's per-candidate log for it instead. */
void cuspec__tuning_key(const char *device, const struct cuspec__spec *s, int bucket, int session,
                        char *key, size_t size);

/* A best-parameters record. */
struct cuspec__record {
    int p[CUSPEC__MAX_PARAMS];
    char kernel[256];
    double median_us, gbs, default_gbs, copy_gbs, spread;
    unsigned candidates;
    unsigned searched; /* the candidate limit the search ran under */
    long long when;
};
/* Parameters as records and the tuner's logs write them: `count`
 * integers, CUSPEC__MAX_PARAMS or the 6 written before the transposes'
 * seventh (wide), which then reads 0: the kernels those were timed with.
 * Returns the characters read, or -1 when the text does not start with
 * `count` integers or count is neither. */
int cuspec__params_read(const char *text, int count, int p[CUSPEC__MAX_PARAMS]);
/* Writes p as CUSPEC__MAX_PARAMS integers separated by spaces. */
void cuspec__params_write(const int p[CUSPEC__MAX_PARAMS], char *buf, size_t size);
/* Text payload <-> record; decode checks every field (CUSPEC_ERR_CORRUPT). */
void cuspec__record_encode(const struct cuspec__record *r, char *buf, size_t size);
int cuspec__record_decode(const char *text, size_t len, struct cuspec__record *r);

/* Whether r's parameters are legal for spec s (each among its family's
 * values, the family's rules met), as variant *v. */
int cuspec__record_legal(const struct cuspec__spec *s, const struct cuspec__record *r,
                         struct cuspec__variant *v);

/* Publishes a record's key and payload (text), after the index entry
 * that tells lookups its device, family, dtype and op have records. */
int cuspec__record_publish(const char *key, const char *payload);
/* Publishes / reads the record for (device, spec, bucket). A record the
 * store cannot keep is CUSPEC_ERR_IO, saying why. */
int cuspec__record_put(const char *device, const struct cuspec__spec *s, int bucket,
                       const struct cuspec__record *r);
int cuspec__record_get(const char *device, const struct cuspec__spec *s, int bucket,
                       struct cuspec__record *r);

/* Whether the record `key` has its index entry: without it, no call finds
 * the record. */
int cuspec__record_indexed(const char *key);
/* Publishes the index entry of (device, spec's family, dtype and op) where
 * it is missing (lost to `cache verify --repair` or a damaged file): the
 * tuner, finding a record it will not search again, keeps it findable. */
int cuspec__record_keep_index(const char *device, const struct cuspec__spec *s, int bucket);

/* The record to use for spec on this device: exact bucket, else the nearest
 * bucket that has one, at most two powers of two away. CUSPEC_ERR_NOT_FOUND
 * when there is none. *bucket gets the bucket it came from. */
int cuspec__record_find(const char *device, const struct cuspec__spec *s, struct cuspec__record *r,
                        int *bucket);

#endif /* CUSPEC_RECORDS_H */
