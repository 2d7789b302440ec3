/* Build a 4-device pipeline through the API, search a schedule for 8
 * micro-batches, and print each device's blocks in time order. */
#include <stdio.h>
#include <tessel.h>

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, tessel_error_last());
	return 1;
}

int main(void)
{
	tessel_graph *g = NULL;
	tessel_options *opts = NULL;
	tessel_schedule *s = NULL;
	int status = 1;
	enum { D = 4 };
	int gid[2 * D];

	if (tessel_graph_new(&g, D))
		return fail("graph");
	for (int i = 0; i < 2 * D; i++) { /* F on 0..3, then B on 3..0 */
		int fwd = i < D, dev = fwd ? i : 2 * D - 1 - i;
		char name[16];
		snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', dev);
		if (tessel_graph_add_block(&gid[i], g, name,
					   fwd ? TESSEL_KIND_FORWARD : TESSEL_KIND_BACKWARD,
					   fwd ? 1 : 3, fwd ? 1 : -1) ||
		    tessel_graph_place(g, gid[i], &dev, 1) ||
		    (i > 0 && tessel_graph_add_dep(g, gid[i - 1], gid[i]))) {
			fail("block");
			goto out;
		}
	}
	if (tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 4) ||
	    tessel_options_new(&opts) ||
	    tessel_options_set(opts, TESSEL_OPT_MICRO_BATCHES, 8)) {
		fail("setup");
		goto out;
	}
	if (tessel_search(&s, g, opts)) {
		fail("search");
		goto out;
	}

	int64_t period, makespan, bound;
	tessel_schedule_get(&period, s, TESSEL_SCHED_PERIOD);
	tessel_schedule_get(&makespan, s, TESSEL_SCHED_MAKESPAN);
	tessel_schedule_get(&bound, s, TESSEL_SCHED_LOWER_BOUND);
	printf("period %lld, makespan %lld (lower bound %lld)\n",
	       (long long)period, (long long)makespan, (long long)bound);

	for (int d = 0; d < D; d++) {
		tessel_iter *it = NULL;
		const tessel_entry *e;
		if (tessel_iter_new(&it, s, d)) {
			fail("iterator");
			goto out;
		}
		printf("device %d:", d);
		while (tessel_iter_next(&e, it) == TESSEL_OK) {
			const char *name;
			int64_t mb, start;
			tessel_entry_name(&name, e);
			tessel_entry_get(&mb, e, TESSEL_ENTRY_MICRO_BATCH);
			tessel_entry_get(&start, e, TESSEL_ENTRY_START);
			printf(" %s/%lld@%lld", name, (long long)mb, (long long)start);
		}
		printf("\n");
		tessel_iter_free(it);
	}
	status = 0;
out:
	tessel_schedule_free(s);
	tessel_options_free(opts);
	tessel_graph_free(g);
	return status;
}
