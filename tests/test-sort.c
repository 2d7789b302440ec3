/* The stable radix sort of lib/common/sort.c (white box: links
 * libtessel_internal), against a plain reference written here: insertion
 * by (key, tie), stable. Keys of every width (so that every digit pass
 * runs and every pass may be skipped), signed keys through tsl_sort_key,
 * many ties, ties already in order, few records (insertion) and many,
 * and a failed allocation
 * (the records as they were). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "sort.h"
#include "tessel.h"
#include "util.h"

/* A deterministic generator (xorshift64*). */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

/* The reference: a stable merge sort by (key, tie) (the records' `at`
 * is their place in the input, so that stability shows). */
static void reference(tsl_sort_rec *a, size_t n)
{
	tsl_sort_rec *b = malloc((n + 1) * sizeof *b);
	assert_non_null(b);
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				int right = a[j].key != a[i].key ? a[j].key < a[i].key
								 : a[j].tie < a[i].tie;
				b[k++] = right ? a[j++] : a[i++];
			}
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		memcpy(a, b, n * sizeof *a);
	}
	free(b);
}

/* n records with keys below 2^key_bits and ties below 2^tie_bits (64:
 * any; 0: each record's place, ties in order), signed keys when `sign`;
 * sorted both ways, compared. */
static void check_case(size_t n, int key_bits, int tie_bits, int sign,
		       uint64_t seed)
{
	tsl_sort_rec *a = malloc((n + 1) * sizeof *a);
	tsl_sort_rec *r = malloc((n + 1) * sizeof *r);
	assert_non_null(a);
	assert_non_null(r);
	uint64_t x = seed;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = next_random(&x), t = next_random(&x);
		if (key_bits < 64)
			k &= ((uint64_t)1 << key_bits) - 1;
		if (tie_bits == 0)
			t = i;
		else if (tie_bits < 64)
			t &= ((uint64_t)1 << tie_bits) - 1;
		if (sign)
			k = tsl_sort_key((int64_t)(k - ((uint64_t)1 << (key_bits - 1))));
		a[i] = (tsl_sort_rec){k, t, i};
	}
	memcpy(r, a, n * sizeof *a);
	reference(r, n);
	assert_int_equal(tsl_sort_recs(a, n), TESSEL_OK);
	for (size_t i = 0; i < n; i++) {
		assert_true(a[i].key == r[i].key);
		assert_true(a[i].tie == r[i].tie);
		assert_true(a[i].at == r[i].at);
	}
	free(a);
	free(r);
}

static void test_sort_matches_reference(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 2, 47, 48, 49, 1000, 70000};
	static const int bits[] = {1, 3, 11, 12, 22, 23, 40, 64};
	uint64_t seed = 1;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t k = 0; k < sizeof bits / sizeof bits[0]; k++)
			for (size_t t = 0; t < sizeof bits / sizeof bits[0]; t += 3)
				check_case(sizes[s], bits[k], bits[t], 0, seed++);
	for (size_t k = 1; k < sizeof bits / sizeof bits[0]; k++)
		check_case(5000, bits[k], 2, 1, seed++);
	/* ties in order: the passes on the key alone */
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t k = 0; k < sizeof bits / sizeof bits[0]; k++)
			check_case(sizes[s], bits[k], 0, k % 2, seed++);
}

static void test_sort_signed_keys(void **state)
{
	(void)state;
	int64_t v[] = {5, -3, INT64_MIN, 0, INT64_MAX, -1, 7, -3, 2};
	size_t n = sizeof v / sizeof v[0];
	tsl_sort_rec a[sizeof v / sizeof v[0]];
	for (size_t i = 0; i < n; i++)
		a[i] = (tsl_sort_rec){tsl_sort_key(v[i]), 0, i};
	assert_int_equal(tsl_sort_recs(a, n), TESSEL_OK);
	for (size_t i = 1; i < n; i++)
		assert_true(tsl_sort_value(a[i - 1].key) <= tsl_sort_value(a[i].key));
	assert_true(tsl_sort_value(a[0].key) == INT64_MIN);
	assert_true(tsl_sort_value(a[n - 1].key) == INT64_MAX);
	/* the two -3 in the order they came */
	assert_int_equal(a[1].at, 1);
	assert_int_equal(a[2].at, 7);
}

static void test_sort_no_memory(void **state)
{
	(void)state;
	size_t n = 1000;
	tsl_sort_rec *a = malloc(n * sizeof *a), *was = malloc(n * sizeof *a);
	assert_non_null(a);
	assert_non_null(was);
	for (size_t i = 0; i < n; i++)
		a[i] = (tsl_sort_rec){(uint64_t)(n - i), 0, i};
	memcpy(was, a, n * sizeof *a);
	for (long k = 0; k < 2; k++) {
		tsl_alloc_fail_after(k);
		assert_int_equal(tsl_sort_recs(a, n), TESSEL_ENOMEM);
		tsl_alloc_fail_after(-1);
		tessel_error_clear();
		assert_memory_equal(a, was, n * sizeof *a);
	}
	assert_int_equal(tsl_sort_recs(a, n), TESSEL_OK);
	assert_int_equal(a[0].at, n - 1);
	free(a);
	free(was);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_matches_reference),
		cmocka_unit_test(test_sort_signed_keys),
		cmocka_unit_test(test_sort_no_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
