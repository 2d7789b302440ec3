/* Heuristic repetends without a solver (modulo list scheduling). */
#include "error.h"
#include "search.h"

int tsl_repetend_heuristic(tsl_repetend *rep, const tessel_graph *g,
			   const tsl_bounds *bnd)
{
	(void)rep;
	(void)g;
	(void)bnd;
	return tsl_error(TESSEL_EUNSUPPORTED, "the heuristic search is not available yet");
}
