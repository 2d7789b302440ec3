/* An outside program: built against an installed libtessel with nothing but
 * `cc outside.c $(pkg-config --cflags --libs libtessel)`. */
#include <stdio.h>
#include <tessel.h>

int main(void)
{
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	int64_t makespan = 0;
	int rc;

	rc = tessel_preset(&g, "mshape", 4, 0, 6);
	if (rc == TESSEL_OK)
		rc = tessel_options_new(&o);
	if (rc == TESSEL_OK)
		rc = tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 16);
	if (rc == TESSEL_OK)
		rc = tessel_search(&s, g, o);
	if (rc == TESSEL_OK)
		rc = tessel_schedule_get(&makespan, s, TESSEL_SCHED_MAKESPAN);
	if (rc != TESSEL_OK)
		fprintf(stderr, "outside: %s\n", tessel_error_last());
	else
		printf("libtessel %s: mshape makespan %lld\n", tessel_version(),
		       (long long)makespan);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
	return rc == TESSEL_OK ? 0 : 1;
}
