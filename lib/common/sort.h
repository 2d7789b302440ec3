/* Internal: a stable sort of records by a 64-bit key, then a 64-bit tie
 * (sort.c). The sorts of a million entries and more (the relaxation's
 * orders, the peaks of a schedule with copies) took seconds through qsort
 * and its comparison calls. */
#ifndef TESSEL_SORT_H
#define TESSEL_SORT_H

#include <stddef.h>
#include <stdint.h>

/* A record: sorted by key, then tie; `at` is the caller's (an index,
 * usually) and travels with them. */
typedef struct tsl_sort_rec {
	uint64_t key;
	uint64_t tie;
	size_t at;
} tsl_sort_rec;

/* The key of a signed value: the same order as the values. */
static inline uint64_t tsl_sort_key(int64_t v)
{
	return (uint64_t)v ^ ((uint64_t)1 << 63);
}

/* The value of a key made by tsl_sort_key. */
static inline int64_t tsl_sort_value(uint64_t key)
{
	return (int64_t)(key ^ ((uint64_t)1 << 63));
}

/* Sort a[0 .. n) ascending by (key, tie); records equal in both keep
 * their order, so the result is a function of the records alone.
 * TSL_OK, or TESSEL_ENOMEM (reported) when the buffer of n records it
 * needs is not there (a is then as it was). */
int tsl_sort_recs(tsl_sort_rec *a, size_t n);

#endif
