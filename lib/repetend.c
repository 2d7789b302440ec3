/* The repetend: what every stage of a search passes on. */
#include <string.h>

#include "repetend.h"
#include "util.h"

void tsl_repetend_release(tsl_repetend *r)
{
	tsl_free(r->T);
	memset(r, 0, sizeof *r);
}
