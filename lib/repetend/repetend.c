/* The repetend: what every stage of a search passes on. */
#include <string.h>

#include "repetend.h"
#include "util.h"

void tsl_repetend_release(tsl_repetend *r)
{
	tsl_free(r->T);
	memset(r, 0, sizeof *r);
}

int tsl_residue_cmp(const void *x, const void *y)
{
	const tsl_residue *a = x, *b = y;
	if (a->r != b->r)
		return (a->r > b->r) - (a->r < b->r);
	return (a->b > b->b) - (a->b < b->b);
}
