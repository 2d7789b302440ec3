/* Stage: common. A stable sort of (key, tie, at) records: least
 * significant digit first (radix), 11 bits a digit, the tie's digits
 * before the key's; a digit that is the same in every record costs no
 * pass, so keys below 2^22 (steps, entry indices) take two passes each,
 * and ties already in order none.
 * Few records go through insertion. Contract: a[0 .. n) ends ascending
 * by (key, tie), records equal in both in the order they came. */
#include "sort.h"

#include <string.h>

#include "error.h"
#include "util.h"

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)
#define DIGITS 6 /* of a 64-bit field: 6 x 11 >= 64 */
/* Below this many records, insertion (no buffer). */
#define FEW 48

static int rec_less(const tsl_sort_rec *x, const tsl_sort_rec *y)
{
	return x->key != y->key ? x->key < y->key : x->tie < y->tie;
}

static void insertion(tsl_sort_rec *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		tsl_sort_rec r = a[i];
		size_t j = i;
		for (; j > 0 && rec_less(&r, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = r;
	}
}

/* Digit k of record r: k < DIGITS of the tie, the others of the key. */
static unsigned digit(const tsl_sort_rec *r, int k)
{
	uint64_t v = k < DIGITS ? r->tie : r->key;
	return (unsigned)(v >> ((k % DIGITS) * DIGIT_BITS)) & (BUCKETS - 1);
}

int tsl_sort_recs(tsl_sort_rec *a, size_t n)
{
	if (n <= FEW) {
		insertion(a, n);
		return TSL_OK;
	}
	size_t *count = tsl_calloc((size_t)2 * DIGITS * BUCKETS, sizeof *count);
	tsl_sort_rec *b = tsl_reallocarray(NULL, n, sizeof *b);
	if (!count || !b) {
		tsl_free(count);
		tsl_free(b);
		return tsl_error_nomem();
	}
	/* records made in the order of their ties (an entry index, say)
	 * need no pass on the tie: the passes on the key keep that order */
	int tie_sorted = 1;
	for (size_t i = 1; i < n && tie_sorted; i++)
		tie_sorted = a[i - 1].tie <= a[i].tie;
	for (size_t i = 0; i < n; i++)
		for (int k = tie_sorted ? DIGITS : 0; k < 2 * DIGITS; k++)
			count[(size_t)k * BUCKETS + digit(&a[i], k)]++;
	tsl_sort_rec *src = a, *dst = b;
	for (int k = tie_sorted ? DIGITS : 0; k < 2 * DIGITS; k++) {
		size_t *c = count + (size_t)k * BUCKETS;
		if (c[digit(&src[0], k)] == n)
			continue; /* the same in every record: no order to add */
		size_t sum = 0;
		for (unsigned j = 0; j < BUCKETS; j++) {
			size_t here = c[j];
			c[j] = sum;
			sum += here;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[digit(&src[i], k)]++] = src[i];
		tsl_sort_rec *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	tsl_free(count);
	tsl_free(b);
	return TSL_OK;
}
