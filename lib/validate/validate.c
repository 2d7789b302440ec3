/* The schedule validator.
 *
 * It exists to catch the search's mistakes, so it shares no code with the
 * search (nor with the schedule readers): it reads the graph and the entries
 * directly and checks the rules of a schedule in this order, reporting the
 * first violation:
 *   (a) every (block, micro-batch) is placed;
 *   (b) on every device, no two entries overlap in time;
 *   (c) every dependency is respected within each micro-batch: a block
 *       starts no earlier than each block it waits for finishes, plus the
 *       dependency's latency when it counts (the consumer occupies a device
 *       the producer does not). The latency is read here from the graph
 *       (the dependency's own, else the graph's) with a device test of the
 *       validator's own;
 *   (d) on every device with a limit, the running memory sum (deltas applied
 *       at the start of each block, in start order) never exceeds the limit;
 *   (e) every chosen alternative is declared, and every offload's copies
 *       run one at a time on each device's copy channel, the offload after
 *       its block finishes, the reload after the offload and finished when
 *       the backward starts.
 * A recompute makes its backward's instance longer by the extra steps and
 * moves its saves from the block's delta to the backward's; an offload
 * frees its saves when it ends and takes them back when its reload starts
 * (at one step: the offloads' ends, then the block, then the reloads).
 * These effects are recomputed here from the entries' choices, not read
 * from the figures the schedule keeps.
 * Cost: O(n log n + E) for n entries and E (entry, device) pairs; O(n + E)
 * when the starts span at most 2n steps (sorted by counting). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "graph_alt.h"
#include "schedule.h"
#include "util.h"
#include "validate.h"

typedef struct v_key {
	int64_t start;
	int64_t tie; /* gid * nmicros + mid */
} v_key;

static int v_less(const v_key *a, const v_key *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return a->tie < b->tie;
}

/* Merge sort (tmp holds n / 2 + 1 keys); runs already in order are not
 * merged again. */
/* Returns 1 when the hard end of dl (may be NULL) passed: the keys are
 * then left unsorted. */
static int v_sort(v_key *a, v_key *tmp, size_t n, const tsl_deadline *dl)
{
	if (n < 2)
		return 0;
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			v_key k = a[i];
			size_t j = i;
			for (; j > 0 && v_less(&k, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = k;
		}
		return 0;
	}
	if (n > 65536 && tsl_deadline_hard_passed(dl))
		return 1;
	size_t half = n / 2;
	if (v_sort(a, tmp, half, dl) || v_sort(a + half, tmp, n - half, dl))
		return 1;
	if (!v_less(&a[half], &a[half - 1]))
		return 0;
	memcpy(tmp, a, half * sizeof *a);
	size_t i = 0, j = half, k = 0;
	while (i < half && j < n)
		a[k++] = v_less(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
	while (i < half)
		a[k++] = tmp[i++];
	return 0;
}

/* The n entries of s as keys sorted by (start, tie) into keys (tmp:
 * n / 2 + 1 keys of room). A counting sort by start where the starts
 * span at most 2n steps (a first schedule's, say: its makespan is far
 * below its entries), the entries put in tie order so that it is
 * stable; else the keys in the entries' order in memory, merge sorted.
 * Returns 1 when the hard end of dl (may be NULL) passed. */
static int v_sort_entries(v_key *keys, v_key *tmp, const tessel_schedule *s,
			  size_t n, const tsl_deadline *dl)
{
	int64_t last = 0;
	for (size_t k = 0; k < n; k++)
		if (s->entries[k].start > last)
			last = s->entries[k].start;
	size_t *at = n > 16 && (uint64_t)last <= 2 * (uint64_t)n
		     ? tsl_calloc((size_t)last + 2, sizeof *at) : NULL;
	const tessel_graph *g = s->graph;
	if (!at) {
		size_t k = 0;
		for (int64_t m = 0; m < s->nmicros; m++)
			for (int b = 0; b < g->nblocks; b++, k++)
				keys[k] = (v_key){s->entries[k].start,
						  (int64_t)b * s->nmicros + m};
		return v_sort(keys, tmp, n, dl);
	}
	for (size_t k = 0; k < n; k++)
		at[s->entries[k].start + 1]++;
	for (int64_t t = 0; t <= last; t++)
		at[t + 1] += at[t];
	for (int b = 0; b < g->nblocks; b++)
		for (int64_t m = 0; m < s->nmicros; m++) {
			int64_t start = tsl_entry_at(s, b, m)->start;
			keys[at[start]++] = (v_key){start,
						    (int64_t)b * s->nmicros + m};
		}
	tsl_free(at);
	return 0;
}

static int v_timeout(const tessel_schedule *s)
{
	return tsl_error(TESSEL_ETIMEOUT,
			 "time limit reached while checking the schedule of %lld entries",
			 (long long)s->nmicros * s->graph->nblocks);
}

/* "device 3" or "devices 0,1,2" (truncated with "..." when long). */
static void v_devices(char *buf, size_t size, const tsl_block *b)
{
	size_t len = (size_t)snprintf(buf, size, "device%s ",
				      b->ndevices > 1 ? "s" : "");
	for (int i = 0; i < b->ndevices && len < size; i++) {
		if (len + 16 >= size) {
			snprintf(buf + len, size - len, "...");
			return;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%d",
					i ? "," : "", b->devices[i]);
	}
}

/* (a) every entry placed. */
static int v_check_placed(const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	for (int64_t m = 0; m < s->nmicros; m++) {
		for (int b = 0; b < g->nblocks; b++) {
			if (tsl_entry_at(s, b, m)->start >= 0)
				continue;
			char devs[64];
			v_devices(devs, sizeof devs, &g->blocks[b]);
			return tsl_error(TESSEL_EVIOLATION,
					 "block '%s' (gid %d) micro-batch %lld "
					 "(%s) is not placed",
					 g->blocks[b].name, b, (long long)m,
					 devs);
		}
	}
	return TSL_OK;
}

/* (a') the first block starts at step 0 (the schedule format's rule: a
 * schedule does not begin with every device idle). */
static int v_check_origin(const tessel_schedule *s)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros, first = 0;
	for (size_t i = 1; i < n; i++)
		if (s->entries[i].start < s->entries[first].start)
			first = i;
	if (n == 0 || s->entries[first].start == 0)
		return TSL_OK;
	const struct tessel_entry *e = &s->entries[first];
	return tsl_error(TESSEL_EVIOLATION,
			 "the schedule starts at step %lld, not 0: its first block, "
			 "'%s' (gid %d) micro-batch %lld, must start at step 0 "
			 "(every step less %lld)",
			 (long long)e->start, s->graph->blocks[e->gid].name,
			 e->gid, (long long)e->mid, (long long)e->start);
}

/* The first memory violation seen, reported only after (b) and (c). */
typedef struct v_memory {
	int found;
	int device;
	int gid;
	int64_t mid;
	int64_t step;
	int64_t value;
	int64_t limit;
} v_memory;

/* The effects of the entries' choices, per entry index (NULL when every
 * entry keeps its activation). */
typedef struct v_alt {
	int64_t *span;   /* steps added by recomputes */
	int64_t *mem;    /* added to the delta at the start */
	int copies;      /* some entry is offloaded */
} v_alt;

static size_t v_at(const tessel_schedule *s, int b, int64_t m)
{
	return (size_t)m * (size_t)s->graph->nblocks + (size_t)b;
}

static int64_t v_span(const tessel_schedule *s, const v_alt *alt, int b,
		      int64_t m)
{
	return s->graph->blocks[b].span + (alt->span ? alt->span[v_at(s, b, m)] : 0);
}

static void v_alt_release(v_alt *alt)
{
	tsl_free(alt->span);
	tsl_free(alt->mem);
}

/* The effects of the choices into *alt; (e) for undeclared choices. */
static int v_alt_build(v_alt *alt, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	memset(alt, 0, sizeof *alt);
	for (size_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->choice == TESSEL_CHOICE_KEEP)
			continue;
		const tsl_block *f = &g->blocks[e->gid];
		if (!tsl_block_allows(f, e->choice)) {
			v_alt_release(alt);
			return tsl_error(TESSEL_EVIOLATION,
					 "block '%s' (gid %d) micro-batch %lld chooses %s, which the block does not declare",
					 f->name, e->gid, (long long)e->mid,
					 tessel_choice_name(e->choice));
		}
		if (e->choice == TESSEL_CHOICE_OFFLOAD) {
			alt->copies = 1;
			continue;
		}
		if (!alt->span) {
			alt->span = tsl_calloc(n, sizeof *alt->span);
			alt->mem = tsl_calloc(n, sizeof *alt->mem);
			if (!alt->span || !alt->mem) {
				v_alt_release(alt);
				return tsl_error_nomem();
			}
		}
		size_t bi = v_at(s, f->rc_backward, e->mid);
		alt->mem[i] -= f->rc_saves;
		alt->mem[bi] += f->rc_saves;
		alt->span[bi] += f->rc_extra;
	}
	return TSL_OK;
}

/* The error of two entries of device d that overlap. */
static int v_overlap(const tessel_schedule *s, int d, const v_key *prev,
		     const v_key *cur, int64_t pspan)
{
	const tessel_graph *g = s->graph;
	int pg = (int)(prev->tie / s->nmicros), cg = (int)(cur->tie / s->nmicros);
	int64_t pm = prev->tie % s->nmicros, cm = cur->tie % s->nmicros;
	const tsl_block *pb = &g->blocks[pg], *cb = &g->blocks[cg];
	return tsl_error(TESSEL_EVIOLATION,
			 "device %d runs two blocks at once: block '%s' "
			 "(gid %d) micro-batch %lld runs steps %lld..%lld and "
			 "block '%s' (gid %d) micro-batch %lld starts at step "
			 "%lld", d, pb->name, pg, (long long)pm,
			 (long long)prev->start,
			 (long long)(prev->start + pspan - 1), cb->name, cg,
			 (long long)cm, (long long)cur->start);
}

/* A memory event of a device: a block's start (order 1) or an offload's
 * end (order 0) or a reload's start (order 2) at `start`. */
typedef struct v_event {
	int64_t start;
	int order;
	int64_t tie;   /* gid * nmicros + mid */
	int64_t delta;
} v_event;

static int v_event_cmp(const void *pa, const void *pb)
{
	const v_event *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return (a->tie > b->tie) - (a->tie < b->tie);
}

static void v_memory_note(v_memory *mv, const tessel_schedule *s, int d,
			  int64_t tie, int64_t step, int64_t sum)
{
	int64_t limit = s->graph->memory_limit[d];
	if (limit == TESSEL_UNLIMITED || sum <= limit || mv->found)
		return;
	mv->found = 1;
	mv->device = d;
	mv->gid = (int)(tie / s->nmicros);
	mv->mid = tie % s->nmicros;
	mv->step = step;
	mv->value = sum;
	mv->limit = limit;
}

/* The copies' memory events (an offload's end, order 0; a reload's
 * start, order 2) of every offloaded entry, sorted as the devices see
 * them; *out NULL when there are none. */
static int v_copy_events(v_event **out, size_t *count, const tessel_schedule *s,
			 const v_alt *alt)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros, k = 0;
	*out = NULL;
	*count = 0;
	if (!alt->copies || !s->copies)
		return TSL_OK;
	for (size_t i = 0; i < n; i++)
		k += s->entries[i].choice == TESSEL_CHOICE_OFFLOAD ? 2 : 0;
	v_event *ev = tsl_reallocarray(NULL, k + 1, sizeof *ev);
	if (!ev)
		return tsl_error_nomem();
	k = 0;
	for (int b = 0; b < g->nblocks; b++)
		for (int64_t m = 0; m < s->nmicros; m++) {
			size_t at = v_at(s, b, m);
			if (s->entries[at].choice != TESSEL_CHOICE_OFFLOAD)
				continue;
			const tsl_block *f = &g->blocks[b];
			int64_t tie = (int64_t)b * s->nmicros + m;
			ev[k++] = (v_event){s->copies[2 * at] + f->of_transfer, 0,
					    tie, -(int64_t)f->of_saves};
			ev[k++] = (v_event){s->copies[2 * at + 1], 2, tie,
					    f->of_saves};
		}
	qsort(ev, k, sizeof *ev, v_event_cmp);
	*out = ev;
	*count = k;
	return TSL_OK;
}

/* What the sweep of v_check_devices reads of a block, packed: one array
 * in gid order with the device lists side by side (read in start order,
 * the graph's blocks and their scattered device lists were most of the
 * sweep's cache misses). */
typedef struct v_packed {
	int span, memory;
	int ndevices;
	size_t first; /* its devices: devs[first ..] */
} v_packed;

static int v_pack_blocks(v_packed **pk, int **devs, const tessel_graph *g)
{
	size_t total = 0;
	for (int b = 0; b < g->nblocks; b++)
		total += (size_t)g->blocks[b].ndevices;
	*pk = tsl_reallocarray(NULL, (size_t)g->nblocks + 1, sizeof **pk);
	*devs = tsl_reallocarray(NULL, total + 1, sizeof **devs);
	if (!*pk || !*devs)
		return tsl_error_nomem();
	size_t at = 0;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *B = &g->blocks[b];
		(*pk)[b] = (v_packed){B->span, B->memory, B->ndevices, at};
		memcpy(*devs + at, B->devices, (size_t)B->ndevices * sizeof **devs);
		at += (size_t)B->ndevices;
	}
	return TSL_OK;
}

/* The state of each device in the sweep of v_check_devices: its last
 * entry, its running memory and the first violation of each kind. */
typedef struct v_device {
	v_key prev;        /* prev.start < 0: none yet */
	int64_t prev_span;
	int64_t sum;
	int overlap;       /* the first overlap, between ov_prev and ov_cur */
	v_key ov_prev, ov_cur;
	int64_t ov_span;
	v_memory mem;      /* the first memory excess */
} v_device;

/* (b) on every device, and the first memory excess into *mv: every
 * entry, with its copies' memory events, in one sweep in start order
 * (ties: an offload's end, then the entries by block and micro-batch,
 * then a reload), each applied to every device of its block. Each
 * device sees its own entries in the order a sort of them alone gives,
 * so the violation reported is the same: the first on the device of
 * least index (an overlap before a memory excess). One sort of the
 * entries, not one per device: a million entries over 512 devices, 37
 * million device entries, took seconds sorted device by device. */
static int v_check_devices(const tessel_schedule *s, v_memory *mv,
			   const v_alt *alt, const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros, nc = 0;
	v_key *keys = tsl_reallocarray(NULL, n + 1, sizeof *keys);
	v_key *tmp = tsl_reallocarray(NULL, n / 2 + 1, sizeof *tmp);
	v_device *dev = tsl_calloc((size_t)g->ndevices + 1, sizeof *dev);
	v_event *ev = NULL;
	v_packed *pk = NULL;
	int *devs = NULL;
	int rc = keys && tmp && dev ? TSL_OK : tsl_error_nomem();
	if (!rc)
		rc = v_copy_events(&ev, &nc, s, alt);
	if (rc)
		goto out;
	rc = v_pack_blocks(&pk, &devs, g);
	if (rc)
		goto out;
	if (v_sort_entries(keys, tmp, s, n, dl)) {
		rc = v_timeout(s);
		goto out;
	}
	for (int d = 0; d < g->ndevices; d++)
		dev[d].prev.start = -1;
	size_t i = 0, c = 0;
	while (i < n || c < nc) {
		/* the next event: an entry (order 1) or a copy's */
		int entry = c >= nc ||
			    (i < n && v_event_cmp(&(v_event){keys[i].start, 1,
							      keys[i].tie, 0},
						  &ev[c]) < 0);
		int64_t tie = entry ? keys[i].tie : ev[c].tie;
		int b = (int)(tie / s->nmicros);
		int64_t m = tie % s->nmicros;
		const v_packed *B = &pk[b];
		const int *on = devs + B->first;
		int64_t step = entry ? keys[i].start : ev[c].start;
		int64_t delta = !entry ? ev[c].delta
			      : B->memory + (alt->mem ? alt->mem[v_at(s, b, m)] : 0);
		int64_t span = !entry ? 0
			     : B->span + (alt->span ? alt->span[v_at(s, b, m)] : 0);
		for (int j = 0; j < B->ndevices; j++) {
			v_device *x = &dev[on[j]];
			if (entry) {
				if (x->prev.start >= 0 && !x->overlap &&
				    x->prev.start + x->prev_span > keys[i].start) {
					x->overlap = 1;
					x->ov_prev = x->prev;
					x->ov_cur = keys[i];
					x->ov_span = x->prev_span;
				}
				x->prev = keys[i];
				x->prev_span = span;
			}
			x->sum += delta;
			v_memory_note(&x->mem, s, on[j], tie, step, x->sum);
		}
		if (entry)
			i++;
		else
			c++;
		if (((i + c) & 65535) == 0 && tsl_deadline_hard_passed(dl)) {
			rc = v_timeout(s);
			goto out;
		}
	}
	for (int d = 0; d < g->ndevices && !rc; d++)
		if (dev[d].overlap)
			rc = v_overlap(s, d, &dev[d].ov_prev, &dev[d].ov_cur,
				       dev[d].ov_span);
	for (int d = 0; d < g->ndevices && !rc && !mv->found; d++)
		if (dev[d].mem.found)
			*mv = dev[d].mem;
out:
	tsl_free(keys);
	tsl_free(tmp);
	tsl_free(dev);
	tsl_free(ev);
	tsl_free(pk);
	tsl_free(devs);
	return rc;
}

static int v_broken_dep(const tessel_schedule *s, int b, int a, int64_t m,
			int64_t lat, int64_t fin)
{
	const tessel_graph *g = s->graph;
	const tsl_block *bb = &g->blocks[b], *ab = &g->blocks[a];
	int64_t start = tsl_entry_at(s, b, m)->start;
	int64_t early = fin + lat - start;
	char bdevs[64], adevs[64];
	v_devices(bdevs, sizeof bdevs, bb);
	v_devices(adevs, sizeof adevs, ab);
	if (lat == 0)
		return tsl_error(TESSEL_EVIOLATION,
				 "dependency broken in micro-batch %lld: block '%s' "
				 "(gid %d, %s) starts at step %lld but block '%s' "
				 "(gid %d, %s) it waits for finishes at step %lld "
				 "(%lld step%s too early)", (long long)m, bb->name,
				 b, bdevs, (long long)start, ab->name, a, adevs,
				 (long long)fin, (long long)early,
				 early == 1 ? "" : "s");
	return tsl_error(TESSEL_EVIOLATION,
			 "dependency broken in micro-batch %lld: block '%s' "
			 "(gid %d, %s) starts at step %lld but block '%s' "
			 "(gid %d, %s) it waits for finishes at step %lld and "
			 "its output needs a latency of %lld step%s to arrive, "
			 "at step %lld (%lld step%s too early)", (long long)m,
			 bb->name, b, bdevs, (long long)start, ab->name, a, adevs,
			 (long long)fin, (long long)lat, lat == 1 ? "" : "s",
			 (long long)(fin + lat), (long long)early,
			 early == 1 ? "" : "s");
}

/* Whether consumer c occupies a device that producer p does not: then the
 * output must travel, and the dependency's latency counts. */
static int v_travels(const tsl_block *c, const tsl_block *p)
{
	for (int i = 0; i < c->ndevices; i++) {
		int found = 0;
		for (int k = 0; k < p->ndevices && !found; k++)
			found = p->devices[k] == c->devices[i];
		if (!found)
			return 1;
	}
	return 0;
}

/* The latency each dependency needs, in the order of the blocks' deps
 * lists: lat[off[b] + i] for the i-th dependency of block b. */
static int v_latencies(int64_t **lat, size_t **off, const tessel_graph *g)
{
	*off = tsl_calloc((size_t)g->nblocks + 1, sizeof **off);
	if (!*off)
		return tsl_error_nomem();
	for (int b = 0; b < g->nblocks; b++)
		(*off)[b + 1] = (*off)[b] + (size_t)g->blocks[b].ndeps;
	size_t n = (*off)[g->nblocks];
	*lat = tsl_calloc(n ? n : 1, sizeof **lat);
	if (!*lat) {
		tsl_free(*off);
		*off = NULL;
		return tsl_error_nomem();
	}
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *bb = &g->blocks[b];
		for (int i = 0; i < bb->ndeps; i++) {
			int own = bb->deplat ? bb->deplat[i] : -1;
			int64_t l = own >= 0 ? own : g->latency;
			if (l > 0 && !v_travels(bb, &g->blocks[bb->deps[i]]))
				l = 0;
			(*lat)[(*off)[b] + (size_t)i] = l;
		}
	}
	return TSL_OK;
}

/* (c) every dependency in every micro-batch. */
static int v_check_deps(const tessel_schedule *s, const v_alt *alt,
			const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int64_t *lat = NULL;
	size_t *off = NULL;
	int rc = v_latencies(&lat, &off, g);
	for (int64_t m = 0; m < s->nmicros && !rc; m++) {
		for (int b = 0; b < g->nblocks && !rc; b++) {
			if ((b & 4095) == 4095 && tsl_deadline_hard_passed(dl)) {
				rc = v_timeout(s);
				break;
			}
			const tsl_block *bb = &g->blocks[b];
			int64_t start = tsl_entry_at(s, b, m)->start;
			for (int i = 0; i < bb->ndeps; i++) {
				int a = bb->deps[i];
				int64_t l = lat[off[b] + (size_t)i];
				int64_t fin = tsl_entry_at(s, a, m)->start
					      + v_span(s, alt, a, m);
				if (fin + l > start) {
					rc = v_broken_dep(s, b, a, m, l, fin);
					break;
				}
			}
		}
	}
	tsl_free(lat);
	tsl_free(off);
	return rc;
}

/* A copy on a device's channel: entry index, which copy, start, end. */
typedef struct v_copy {
	int64_t start, end;
	size_t at;
	int reload;
} v_copy;

static int v_copy_cmp(const void *pa, const void *pb)
{
	const v_copy *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->reload - b->reload;
}

static int v_copy_violation(const tessel_schedule *s, size_t at,
			    const char *what, int64_t step, int64_t bound)
{
	const struct tessel_entry *e = &s->entries[at];
	const tsl_block *f = &s->graph->blocks[e->gid];
	return tsl_error(TESSEL_EVIOLATION,
			 "block '%s' (gid %d) micro-batch %lld: %s at step %lld (bound %lld)",
			 f->name, e->gid, (long long)e->mid, what,
			 (long long)step, (long long)bound);
}

/* (e) the times of every offload's copies, then each channel. */
static int v_check_copies(const tessel_schedule *s, const v_alt *alt)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros, nc = 0;
	if (!s->copies)
		return tsl_error(TESSEL_EVIOLATION,
				 "an entry is offloaded but no copy step is set");
	for (size_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->choice != TESSEL_CHOICE_OFFLOAD)
			continue;
		const tsl_block *f = &g->blocks[e->gid];
		int64_t off = s->copies[2 * i], rel = s->copies[2 * i + 1];
		int64_t fin = e->start + v_span(s, alt, e->gid, e->mid);
		int64_t need = tsl_entry_at(s, f->of_backward, e->mid)->start;
		if (off < fin)
			return v_copy_violation(s, i, "the offload starts before the block finishes",
						off, fin);
		if (rel < off + f->of_transfer)
			return v_copy_violation(s, i, "the reload starts before the offload ends",
						rel, off + f->of_transfer);
		if (rel + f->of_transfer > need)
			return v_copy_violation(s, i, "the reload ends after its backward starts",
						rel + f->of_transfer, need);
		nc += 2 * (size_t)f->ndevices;
	}
	/* the copies by device: device d's are c[off[d] .. off[d + 1]) */
	v_copy *c = tsl_reallocarray(NULL, nc + 1, sizeof *c);
	size_t *off = tsl_calloc((size_t)g->ndevices + 2, sizeof *off);
	if (!c || !off) {
		tsl_free(c);
		tsl_free(off);
		return tsl_error_nomem();
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct tessel_entry *e = &s->entries[i];
			const tsl_block *f = &g->blocks[e->gid];
			if (e->choice != TESSEL_CHOICE_OFFLOAD)
				continue;
			for (int k = 0; k < f->ndevices; k++) {
				int d = f->devices[k];
				if (pass == 0) {
					off[d + 2] += 2;
					continue;
				}
				for (int r = 0; r < 2; r++)
					c[off[d + 1]++] = (v_copy){
						s->copies[2 * i + r],
						s->copies[2 * i + r] + f->of_transfer,
						i, r};
			}
		}
		if (pass == 0)
			for (int d = 0; d < g->ndevices; d++)
				off[d + 2] += off[d + 1];
	}
	int rc = TSL_OK;
	for (int d = 0; d < g->ndevices && !rc; d++) {
		v_copy *cd = c + off[d];
		size_t k = off[d + 1] - off[d];
		qsort(cd, k, sizeof *cd, v_copy_cmp);
		for (size_t i = 1; i < k && !rc; i++)
			if (cd[i].start < cd[i - 1].end)
				rc = v_copy_violation(s, cd[i].at,
						      cd[i].reload ? "the reload overlaps another copy on the device's copy channel"
								   : "the offload overlaps another copy on the device's copy channel",
						      cd[i].start, cd[i - 1].end);
	}
	tsl_free(off);
	tsl_free(c);
	return rc;
}

static int v_report_memory(const tessel_schedule *s, const v_memory *mv)
{
	const tsl_block *b = &s->graph->blocks[mv->gid];
	return tsl_error(TESSEL_EVIOLATION,
			 "memory over the limit on device %d: %lld at step "
			 "%lld, limit %lld; block '%s' (gid %d) micro-batch "
			 "%lld starting at step %lld pushed it over",
			 mv->device, (long long)mv->value, (long long)mv->step,
			 (long long)mv->limit, b->name, mv->gid,
			 (long long)mv->mid, (long long)mv->step);
}

TESSEL_API int tessel_schedule_validate(const tessel_schedule *schedule)
{
	return tsl_schedule_check(schedule, NULL);
}

int tsl_schedule_check(const tessel_schedule *schedule, const tsl_deadline *dl)
{
	TSL_CHECK_ARG(schedule, "tessel_schedule_validate", "schedule");
	int rc = v_check_placed(schedule);
	if (!rc)
		rc = v_check_origin(schedule);
	if (rc)
		return rc;
	v_alt alt;
	rc = v_alt_build(&alt, schedule);
	if (rc)
		return rc;
	v_memory mv;
	memset(&mv, 0, sizeof mv);
	rc = v_check_devices(schedule, &mv, &alt, dl);
	if (!rc)
		rc = v_check_deps(schedule, &alt, dl);
	if (!rc && alt.copies)
		rc = v_check_copies(schedule, &alt);
	v_alt_release(&alt);
	if (rc)
		return rc;
	/* a sort and a few passes over the entries */
	tsl_charge(dl, schedule->nmicros * schedule->graph->nblocks /
			       TSL_ENTRIES_PER_TICK);
	if (mv.found)
		return v_report_memory(schedule, &mv);
	return TSL_OK;
}
