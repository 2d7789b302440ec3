/* Completion: the N-micro-batch schedule from a repetend.
 *
 * Micro-batch m of block b starts at T_b + m P in the periodic schedule; it
 * belongs to repetition k = m + q_b (q_b = T_b / P). Repetitions in which
 * every block runs a real micro-batch form the steady state; those before are
 * the warm-up, those after the cool-down. The periodic schedule is then
 * compacted: entries are taken in periodic start order and each starts as
 * early as its dependencies (their finish plus the latency of each) and
 * its devices allow, keeping every device's order; a local search then
 * reorders instances on the critical path while that shortens the
 * makespan within the memory limits (complete_compact.c). Serial
 * schedule generation (complete_sgs.c) gives a second completion, and forward-
 * backward passes improve the shorter one. */
#include <stdlib.h>
#include <string.h>

#include "complete.h"
#include "complete_compact.h"
#include "complete_sgs.h"
#include "error.h"
#include "repetend.h"
#include "util.h"

/* Local-search effort from which the forward-backward improvement gets all
 * its rounds (the heuristic mode uses less and gets one). */
#define TSL_FBI_FULL_EFFORT ((int64_t)1000000)

typedef struct inst {
	int64_t start;
	int gid;
	int64_t mid;
} inst;

static int cmp_inst(const void *x, const void *y)
{
	const inst *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	return (a->mid > b->mid) - (a->mid < b->mid);
}

/* Sort a[0..count) by (start, gid, mid) when it is already in (gid, mid)
 * order: a stable radix sort of the starts (at most 11 bits a pass, as
 * few passes as their range needs, the bits shared evenly between them)
 * into tmp and back; qsort when tmp is NULL. Time linear in count: the
 * completion sorts every candidate's instances. 0, or -1 when the hard
 * end of dl (NULL: none) passed before a pass (a pass over 10^6 instances
 * takes tens of milliseconds; a unsorted). */
#define RADIX_BITS 11
static int sort_insts(inst *a, inst *tmp, size_t count,
		      const tsl_deadline *dl)
{
	if (!tmp || count < 64) {
		qsort(a, count, sizeof *a, cmp_inst);
		return 0;
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < count; i++) {
		lo = a[i].start < lo ? a[i].start : lo;
		hi = a[i].start > hi ? a[i].start : hi;
	}
	uint64_t range = (uint64_t)hi - (uint64_t)lo;
	int range_bits = 0;
	while (range_bits < 64 && (range >> range_bits) != 0)
		range_bits++;
	if (range_bits == 0)
		return 0; /* one start: in order already */
	int passes = (range_bits + RADIX_BITS - 1) / RADIX_BITS;
	int bits = (range_bits + passes - 1) / passes;
	uint64_t mask = ((uint64_t)1 << bits) - 1;
	size_t cnt[1 << RADIX_BITS];
	inst *src = a, *dst = tmp;
	for (int shift = 0; shift < range_bits; shift += bits) {
		if (dl && tsl_deadline_hard_passed(dl))
			return -1;
		memset(cnt, 0, ((size_t)1 << bits) * sizeof *cnt);
		for (size_t i = 0; i < count; i++)
			cnt[(((uint64_t)src[i].start - (uint64_t)lo) >> shift) & mask]++;
		size_t sum = 0;
		for (size_t d = 0; d <= mask; d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < count; i++)
			dst[cnt[(((uint64_t)src[i].start - (uint64_t)lo) >> shift) & mask]++] =
				src[i];
		inst *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, count * sizeof *a);
	return 0;
}

/* Micro-batch m = i k + j of block b belongs to repetition i + q(j, b),
 * q(j, b) = T[j n + b] / P. The repetitions in which every block of every
 * one of the k copies runs a micro-batch below N form the steady state. */
static void label_phases(tessel_schedule *s, const tsl_repetend *rep)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks, k = tsl_repetend_k(rep);
	int64_t P = rep->period, N = s->nmicros;
	int64_t minq = INT64_MAX, maxq = 0;
	for (size_t x = 0; x < (size_t)k * (size_t)n; x++) {
		int64_t q = rep->T[x] / P;
		if (q < minq)
			minq = q;
		if (q > maxq)
			maxq = q;
	}
	int64_t groups = N / k; /* complete groups of k micro-batches */
	for (int b = 0; b < n; b++)
		for (int64_t m = 0; m < N; m++) {
			int64_t r = m / k + rep->T[(size_t)(m % k) * (size_t)n + (size_t)b] / P;
			struct tessel_entry *e = tsl_entry_at(s, b, m);
			if (r < maxq)
				e->phase = TESSEL_PHASE_WARMUP;
			else if (r > minq + groups - 1)
				e->phase = TESSEL_PHASE_COOLDOWN;
			else
				e->phase = TESSEL_PHASE_REPETEND;
		}
}

void tsl_repetend_range(tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	int64_t begin = INT64_MAX, end = 0;
	for (int64_t m = 0; m < s->nmicros; m++)
		for (int b = 0; b < g->nblocks; b++) {
			const struct tessel_entry *e = tsl_entry_at(s, b, m);
			if (e->phase != TESSEL_PHASE_REPETEND)
				continue;
			if (e->start < begin)
				begin = e->start;
			if (e->start + g->blocks[b].span > end)
				end = e->start + g->blocks[b].span;
		}
	if (begin == INT64_MAX)
		begin = end = 0;
	s->rep_begin = begin;
	s->rep_end = end;
}

/* `passes` passes over count instances that order them, charged to dl
 * (NULL: none): at least a tick a pass. */
static void charge_order(const tsl_deadline *dl, size_t count, int passes)
{
	int64_t per = ((int64_t)count + TSL_ORDER_ENTRIES_PER_TICK - 1) /
		      TSL_ORDER_ENTRIES_PER_TICK;
	tsl_charge(dl, per * passes);
}

/* seq = the instances sorted by a key, ties by block then micro-batch:
 * the periodic start when rep is given, else the schedule's current start,
 * or with by_finish its finish, latest first (the order of a backward pass;
 * a dependency's finish is strictly earlier, so successors come first).
 * TESSEL_ETIMEOUT when the hard end of dl (NULL: none) passes first. */
static int sorted_instances_until(tsl_inst *seq, const tessel_schedule *s,
				  const tsl_repetend *rep, int by_finish,
				  const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	size_t count = (size_t)g->nblocks * (size_t)s->nmicros;
	inst *order = tsl_reallocarray(NULL, count, sizeof *order);
	if (!order)
		return tsl_error_nomem();
	inst *tmp = tsl_reallocarray(NULL, count, sizeof *tmp);
	size_t i = 0;
	/* in (block, micro-batch) order: the ties of sort_insts */
	for (int b = 0; b < g->nblocks; b++) {
		if ((b & 1023) == 0 && tsl_deadline_hard_passed(dl)) {
			tsl_free(tmp);
			tsl_free(order);
			return tsl_error(TESSEL_ETIMEOUT,
					 "time limit reached while ordering the instances");
		}
		for (int64_t m = 0; m < s->nmicros; m++) {
			int64_t start = tsl_entry_at(s, b, m)->start;
			order[i].start = rep ? tsl_periodic_start(rep, g->nblocks, b, m)
				       : by_finish ? -(start + g->blocks[b].span)
						   : start;
			order[i].gid = b;
			order[i].mid = m;
			i++;
		}
	}
	if (sort_insts(order, tmp, count, dl)) {
		tsl_free(tmp);
		tsl_free(order);
		return tsl_error(TESSEL_ETIMEOUT,
				 "time limit reached while ordering the instances");
	}
	for (i = 0; i < count; i++) {
		seq[i].gid = order[i].gid;
		seq[i].mid = order[i].mid;
	}
	tsl_free(tmp);
	tsl_free(order);
	charge_order(dl, count, 1);
	return TSL_OK;
}

static int sorted_instances(tsl_inst *seq, const tessel_schedule *s,
			    const tsl_repetend *rep, int by_finish)
{
	return sorted_instances_until(seq, s, rep, by_finish, NULL);
}

typedef struct slot_key {
	int64_t r;
	int b;   /* block */
	int gid; /* j n + b for copy j of block b */
} slot_key;

/* By residue, then block (ties at one start go by block, as in
 * sorted_instances; two copies of one block never share a residue). */
static int cmp_slot(const void *x, const void *y)
{
	const slot_key *a = x, *b = y;
	if (a->r != b->r)
		return a->r < b->r ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return (a->gid > b->gid) - (a->gid < b->gid);
}

/* seq = the instances in periodic order (the order of sorted_instances
 * with rep), without sorting them all: micro-batch m of block b starts at
 * (q_b + m) P + r_b, so repetition k holds the blocks with q_b <= k <
 * q_b + N, by residue. Gives up at the hard end of dl (TESSEL_ETIMEOUT).
 * Where repetitions hold few instances (deep repetends), the sort. */
static int periodic_order(tsl_inst *seq, const tessel_schedule *s,
			  const tsl_repetend *rep, const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks, k = tsl_repetend_k(rep);
	size_t kn = (size_t)k * (size_t)n;
	int64_t P = rep->period, N = s->nmicros, minq = INT64_MAX, maxq = 0;
	for (size_t x = 0; x < kn; x++) {
		int64_t q = rep->T[x] / P;
		minq = q < minq ? q : minq;
		maxq = q > maxq ? q : maxq;
	}
	int64_t groups = (N + k - 1) / k;
	int64_t slices = groups + maxq - minq;
	if (slices > 4 * groups)
		return sorted_instances_until(seq, s, rep, 0, dl);
	slot_key *key = tsl_calloc(kn, sizeof *key);
	if (!key)
		return tsl_error_nomem();
	/* one key per copy and block: gid j n + b */
	for (size_t x = 0; x < kn; x++) {
		key[x].r = rep->T[x] % P;
		key[x].b = (int)(x % (size_t)n);
		key[x].gid = (int)x;
	}
	qsort(key, kn, sizeof *key, cmp_slot);
	size_t i = 0, check = 65536;
	for (int64_t r = minq; r < maxq + groups; r++) {
		if (i >= check) {
			check = i + 65536;
			if (tsl_deadline_hard_passed(dl)) {
				tsl_free(key);
				return tsl_error(TESSEL_ETIMEOUT,
						 "time limit reached while ordering %zu instances",
						 (size_t)n * (size_t)N);
			}
		}
		for (size_t x = 0; x < kn; x++) {
			int c = key[x].gid / n, b = key[x].gid % n;
			int64_t grp = r - rep->T[key[x].gid] / P, m = grp * k + c;
			if (grp < 0 || m >= N)
				continue;
			seq[i].gid = b;
			seq[i].mid = m;
			i++;
		}
	}
	tsl_free(key);
	return TSL_OK;
}

static void save_starts(int64_t *dst, const tessel_schedule *s, size_t count)
{
	for (size_t i = 0; i < count; i++)
		dst[i] = s->entries[i].start;
}

static void load_starts(tessel_schedule *s, const int64_t *src, size_t count)
{
	for (size_t i = 0; i < count; i++)
		s->entries[i].start = src[i];
}

/* Whether `passes` passes of serial generation over s's instances, begun
 * now, may end within the work budget left: with no more work left than
 * they surely charge before their last look at the deadline
 * (tsl_sgs_pass_least_ticks), they would be cut there and their result
 * dropped, so the caller begins none. Depends on no clock. */
static int passes_fit(const tessel_schedule *s, int passes, const tsl_deadline *dl)
{
	int64_t left = tsl_work_left(dl);
	if (left == INT64_MAX || dl->exempt)
		return 1;
	int64_t least = tsl_sgs_pass_least_ticks(s->graph, s->nmicros, dl);
	return left > least * passes;
}

/* One forward-backward round: every instance as late as its successors
 * and devices allow (by decreasing finish), then as early as possible again
 * (by start); both keep the memory limits (complete_sgs.c). */
static int justify_right_then_left(tessel_schedule *s, tsl_inst *seq,
				   size_t count, const tsl_deadline *dl)
{
	/* each step is a pass over every instance: the limits are looked at
	 * before each (a cancel ends the round within one pass) */
	int rc = tsl_deadline_left_ms(dl) > 0 ? sorted_instances_until(seq, s, NULL, 1, dl)
					       : TESSEL_ETIMEOUT;
	if (!rc)
		rc = tsl_sgs_backward(s, seq, count, dl);
	if (!rc && tsl_deadline_left_ms(dl) <= 0)
		rc = TESSEL_ETIMEOUT;
	if (!rc)
		rc = sorted_instances_until(seq, s, NULL, 0, dl);
	if (!rc)
		rc = tsl_sgs(s, seq, count, dl);
	return rc;
}

/* Forward-backward improvement: rounds of justify right, then left again,
 * each followed by the compaction, while they shorten s (6 with the full
 * effort, 1 with less, none with 0). kept: work space of count starts. */
static int forward_backward_rounds(tessel_schedule *s, tsl_inst *seq,
				   int64_t *kept, size_t count, int64_t effort,
				   int64_t bound, const tsl_deadline *dl)
{
	int rc = TSL_OK;
	int rounds = effort >= TSL_FBI_FULL_EFFORT ? 6 : effort > 0 ? 1 : 0;
	for (int round = 0; round < rounds && !rc; round++) {
		int64_t best = tsl_schedule_makespan(s);
		if (best <= bound || tsl_deadline_left_ms(dl) <= 0 || !passes_fit(s, 2, dl))
			break;
		save_starts(kept, s, count);
		rc = justify_right_then_left(s, seq, count, dl);
		if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT) {
			rc = TSL_OK;
			load_starts(s, kept, count);
			break;
		}
		if (!rc)
			rc = sorted_instances_until(seq, s, NULL, 0, dl);
		if (!rc)
			rc = tsl_compact(s, seq, count, effort, bound, dl);
		if (rc == TESSEL_ETIMEOUT) {
			rc = TSL_OK; /* the limit itself: keep the last result */
			load_starts(s, kept, count);
			break;
		}
		if (!rc && tsl_schedule_makespan(s) >= best) {
			load_starts(s, kept, count);
			break;
		}
	}
	return rc;
}

/* Instances beyond which the completion leaves out the serial generation
 * from the periodic order: each pass over so many takes seconds. */
#define TSL_PERIODIC_SGS_MAX ((size_t)1 << 19)

/* Perturbed restarts of the forward-backward improvement: priorities from
 * the best schedule's starts plus a small pseudo-random delay (fixed seed,
 * so the result depends on nothing else), raised so every instance still
 * follows its dependencies, then serial generation, backward and forward
 * passes and the compaction. A result at most as long as the best is kept
 * (equal ones too: they move the search along a plateau). */
#define TSL_PERTURB_MAX_ROUNDS 1500
/* Work of all rounds, in instance visits: each round is charged six passes
 * over the instances (three forward generations, two backward ones and the
 * plain compaction; the sorts between them are not counted), then what its
 * local search spends (at most `effort`). In all, four local searches'. */
#define TSL_PERTURB_WORK(effort) (4 * (effort))
/* Largest delay, in the placement's longest spans. */
#define TSL_PERTURB_DELAY 2

static uint64_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

/* Instance x's priority key, at least its dependencies' keys + 1 (they
 * were keyed first), kept in kk at x's entry slot. */
static void set_key(inst *kk, const tessel_graph *g, tsl_inst x, int64_t key)
{
	const tsl_block *B = &g->blocks[x.gid];
	size_t n = (size_t)g->nblocks;
	for (int k = 0; k < B->ndeps; k++) {
		int64_t kd = kk[(size_t)x.mid * n + (size_t)B->deps[k]].start;
		if (kd + 1 > key)
			key = kd + 1;
	}
	kk[(size_t)x.mid * n + (size_t)x.gid] = (inst){key, x.gid, x.mid};
}

/* seq = the instances by their keys in kk (kk has room for 2 count). */
/* seq = the order sorted last by order_by_keys (kk + count). */
static void seq_from_sorted(tsl_inst *seq, const inst *kk, size_t count)
{
	const inst *order = kk + count;
	for (size_t i = 0; i < count; i++)
		seq[i] = (tsl_inst){order[i].gid, order[i].mid};
}

/* seq = the instances by their keys in kk; kk + count keeps them sorted. */
static void order_by_keys(tsl_inst *seq, inst *kk, size_t count, int n)
{
	inst *order = kk + count;
	size_t N = count / (size_t)n;
	/* in (block, micro-batch) order: the ties of sort_insts */
	for (size_t b = 0, i = 0; b < (size_t)n; b++)
		for (size_t m = 0; m < N; m++)
			order[i++] = kk[m * (size_t)n + b];
	inst *tmp = tsl_reallocarray(NULL, count, sizeof *tmp);
	sort_insts(order, tmp, count, NULL); /* qsort without tmp */
	tsl_free(tmp);
	seq_from_sorted(seq, kk, count);
}

/* seq = the instances by perturbed key; key of an instance: 4 start +
 * delay, at least its dependencies' keys + 1 (they start earlier, so
 * visiting by start sees them first). */
static int perturbed_order(tsl_inst *seq, inst *kk, const tessel_schedule *s,
			   uint64_t *rnd, int64_t delay)
{
	const tessel_graph *g = s->graph;
	size_t count = (size_t)g->nblocks * (size_t)s->nmicros;
	int rc = sorted_instances(seq, s, NULL, 0);
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		tsl_inst x = seq[i];
		int64_t key = 4 * tsl_entry_at(s, x.gid, x.mid)->start +
			      (int64_t)(next_random(rnd) % (uint64_t)(4 * delay + 1));
		set_key(kk, g, x, key);
	}
	order_by_keys(seq, kk, count, g->nblocks);
	return TSL_OK;
}

static int perturb_rounds(tessel_schedule *s, tsl_inst *seq, size_t count,
			  int64_t effort, int64_t work, int64_t bound,
			  const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int64_t span = 1;
	for (int b = 0; b < g->nblocks; b++)
		span = g->blocks[b].span > span ? g->blocks[b].span : span;
	inst *kk = tsl_reallocarray(NULL, 2 * count, sizeof *kk);
	int64_t *best_starts = tsl_reallocarray(NULL, count, sizeof *best_starts);
	if (!kk || !best_starts) {
		tsl_free(kk);
		tsl_free(best_starts);
		return tsl_error_nomem();
	}
	uint64_t rnd = 0x9e3779b97f4a7c15ULL ^ count;
	int64_t best = tsl_schedule_makespan(s);
	save_starts(best_starts, s, count);
	int rc = TSL_OK;
	int64_t longest = 0; /* microseconds of the longest round */
	for (int round = 0; round < TSL_PERTURB_MAX_ROUNDS && work > 0 && !rc; round++) {
		/* (a round is three generations and two backward passes) */
		if (best <= bound || tsl_deadline_left_ms(dl) <= 0 || !passes_fit(s, 5, dl))
			break;
		/* no round that might not end before the deadline: what
		 * follows (the check of the result) needs its time */
		int64_t t0 = tsl_now_us();
		if (dl && dl->end_us && t0 + 2 * longest > dl->end_us)
			break;
		rc = perturbed_order(seq, kk, s, &rnd, TSL_PERTURB_DELAY * span);
		charge_order(dl, count, 3); /* a sort, the keys, a sort */
		if (!rc)
			rc = tsl_sgs(s, seq, count, dl);
		for (int pass = 0; pass < 2 && !rc; pass++)
			rc = justify_right_then_left(s, seq, count, dl);
		if (!rc)
			rc = sorted_instances_until(seq, s, NULL, 0, dl);
		/* the passes' work, then the local search's within what is left */
		work -= 6 * (int64_t)count;
		int64_t budget = work < effort ? work : effort, given = budget;
		if (!rc)
			rc = tsl_compact_within(s, seq, count, &budget, bound, dl);
		work -= given - budget;
		if (tsl_now_us() - t0 > longest)
			longest = tsl_now_us() - t0;
		if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT) {
			rc = TSL_OK; /* nothing from this round */
			load_starts(s, best_starts, count);
			continue;
		}
		if (rc)
			break;
		if (tsl_schedule_makespan(s) <= best) {
			best = tsl_schedule_makespan(s);
			save_starts(best_starts, s, count);
		} else {
			load_starts(s, best_starts, count);
		}
	}
	if (!rc)
		load_starts(s, best_starts, count);
	tsl_free(kk);
	tsl_free(best_starts);
	return rc;
}

/* Restarts from the schedule's own micro-batches. The improvements move
 * steady-state instances too, so a micro-batch (a group of k, the
 * repetend's micro-batches) of the current schedule may run a pattern that
 * repeats better than the repetend's: the priority of instance (b, m') is
 * then the start of (b, g0 + m' mod k) plus (m' / k - g0 / k) P, raised so
 * dependencies come first, followed by serial generation (memory kept),
 * a compaction, one forward-backward round and a compaction. A shorter
 * result becomes the current schedule and the next round samples its
 * groups again. At most TSL_GROUP_SAMPLES groups g0 per round (evenly
 * spread over the middle, equal patterns once), TSL_GROUP_ROUNDS rounds
 * and a quarter of one local search's work (each restart charged six
 * passes over the instances plus its compactions' local search; none when
 * one restart does not fit in it). */
#define TSL_GROUP_SAMPLES 48
#define TSL_GROUP_ROUNDS 4
#define TSL_GROUP_LOCAL_SHARE 256
#define TSL_GROUP_WORK_SHARE 4

/* seq = the instances by the pattern of group g0 of s. */
static int group_order(tsl_inst *seq, inst *kk, const tessel_schedule *s,
		       int64_t g0, int k, int64_t P)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks, count = n * (size_t)s->nmicros;
	int rc = sorted_instances(seq, s, NULL, 0);
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		tsl_inst x = seq[i];
		int64_t src = g0 + x.mid % k;
		int64_t key = 2 * (tsl_entry_at(s, x.gid, src)->start +
				   (x.mid / k - g0 / k) * P);
		set_key(kk, g, x, key);
	}
	order_by_keys(seq, kk, count, g->nblocks);
	return TSL_OK;
}

/* A fingerprint of group g0's pattern: its starts relative to its first. */
static uint64_t group_pattern(const tessel_schedule *s, int64_t g0, int k)
{
	const tessel_graph *g = s->graph;
	int64_t first = INT64_MAX;
	for (int j = 0; j < k; j++)
		for (int b = 0; b < g->nblocks; b++)
			if (tsl_entry_at(s, b, g0 + j)->start < first)
				first = tsl_entry_at(s, b, g0 + j)->start;
	uint64_t h = 1469598103934665603ULL;
	for (int j = 0; j < k; j++)
		for (int b = 0; b < g->nblocks; b++) {
			h ^= (uint64_t)(tsl_entry_at(s, b, g0 + j)->start - first);
			h *= 1099511628211ULL;
		}
	return h;
}

/* A compaction whose local search takes at most `each` of *work, which
 * is charged what it spent. */
static int compact_charged(tessel_schedule *s, tsl_inst *seq, size_t count,
			   int64_t *work, int64_t each, int64_t bound,
			   const tsl_deadline *dl)
{
	int64_t budget = *work < each ? *work : each, given = budget;
	int rc = tsl_compact_within(s, seq, count, &budget, bound, dl);
	*work -= given - budget;
	return rc;
}

/* One restart from group g0 of the schedule whose starts are `from`:
 * (a) the compaction in the pattern's order, (b) serial generation in it,
 * then a compaction; the shorter gets one forward-backward round and a
 * compaction. TESSEL_EINFEASIBLE / TESSEL_ETIMEOUT: nothing from it.
 * a_starts: work space of count starts. */
static int group_restart(tessel_schedule *s, tsl_inst *seq, inst *kk,
			 int64_t *a_starts, const int64_t *from, size_t count,
			 int64_t g0, int k, int64_t P, int64_t *work,
			 int64_t each, int64_t bound, const tsl_deadline *dl)
{
	int rc = group_order(seq, kk, s, g0, k, P);
	charge_order(dl, count, 3); /* a sort, the keys, a sort */
	if (!rc)
		rc = compact_charged(s, seq, count, work, each, bound, dl);
	*work -= 6 * (int64_t)count;
	int64_t a = rc ? INT64_MAX : tsl_schedule_makespan(s);
	if (!rc)
		save_starts(a_starts, s, count);
	if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT)
		rc = TSL_OK;
	if (!rc) {
		/* the same order again (compaction left kk as it was) */
		load_starts(s, from, count);
		seq_from_sorted(seq, kk, count);
	}
	if (!rc)
		rc = tsl_sgs(s, seq, count, dl);
	if (!rc)
		rc = sorted_instances_until(seq, s, NULL, 0, dl);
	if (!rc)
		rc = compact_charged(s, seq, count, work, each, bound, dl);
	if (a != INT64_MAX && (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT ||
			       (!rc && tsl_schedule_makespan(s) > a))) {
		rc = TSL_OK; /* (a) it is */
		load_starts(s, a_starts, count);
	}
	if (!rc)
		rc = justify_right_then_left(s, seq, count, dl);
	if (!rc)
		rc = sorted_instances_until(seq, s, NULL, 0, dl);
	if (!rc)
		rc = compact_charged(s, seq, count, work, each, bound, dl);
	return rc;
}

static int group_rounds(tessel_schedule *s, tsl_inst *seq, size_t count,
			int64_t effort, int64_t bound, int k, int64_t P,
			const tsl_deadline *dl)
{
	int64_t N = s->nmicros;
	int64_t groups = N / k;
	/* not even one restart within the work: none */
	if (groups < 3 || P <= 0 || 6 * (int64_t)count > effort / TSL_GROUP_WORK_SHARE)
		return TSL_OK;
	int64_t stride = (groups - 2 + TSL_GROUP_SAMPLES - 1) / TSL_GROUP_SAMPLES;
	inst *kk = tsl_reallocarray(NULL, 2 * count, sizeof *kk);
	int64_t *best_starts = tsl_reallocarray(NULL, count, sizeof *best_starts);
	int64_t *a_starts = tsl_reallocarray(NULL, count, sizeof *a_starts);
	uint64_t *seen = tsl_calloc(TSL_GROUP_SAMPLES * TSL_GROUP_ROUNDS, sizeof *seen);
	if (!kk || !best_starts || !a_starts || !seen) {
		tsl_free(kk);
		tsl_free(best_starts);
		tsl_free(a_starts);
		tsl_free(seen);
		return tsl_error_nomem();
	}
	int64_t work = effort / TSL_GROUP_WORK_SHARE, best = tsl_schedule_makespan(s), longest = 0;
	/* each compaction's local search: a share of the work, so that
	 * the restarts are many and short */
	int64_t each = effort / TSL_GROUP_LOCAL_SHARE;
	if (each < (int64_t)count)
		each = (int64_t)count;
	save_starts(best_starts, s, count);
	int rc = TSL_OK, nseen = 0, improved = 1;
	for (int round = 0; round < TSL_GROUP_ROUNDS && improved && !rc; round++) {
		improved = 0;
		/* the groups of the round's schedule, read before it changes */
		int64_t picks[TSL_GROUP_SAMPLES];
		int npicks = 0;
		for (int64_t gi = 1; gi + 1 < groups && npicks < TSL_GROUP_SAMPLES;
		     gi += stride) {
			uint64_t h = group_pattern(s, gi * k, k);
			int dup = 0;
			for (int i = 0; i < nseen && !dup; i++)
				dup = seen[i] == h;
			if (!dup && nseen < TSL_GROUP_SAMPLES * TSL_GROUP_ROUNDS) {
				seen[nseen++] = h;
				picks[npicks++] = gi * k;
			}
		}
		int64_t *from = tsl_reallocarray(NULL, count, sizeof *from);
		if (!from) {
			rc = tsl_error_nomem();
			break;
		}
		save_starts(from, s, count);
		for (int i = 0; i < npicks && !rc && work > 0; i++) {
			if (best <= bound || tsl_deadline_left_ms(dl) <= 0)
				break;
			int64_t t0 = tsl_now_us();
			if (dl && dl->end_us && t0 + 2 * longest > dl->end_us)
				break;
			/* the pattern is read from the round's schedule */
			load_starts(s, from, count);
			rc = group_restart(s, seq, kk, a_starts, from, count, picks[i],
					   k, P, &work, each, bound, dl);
			if (tsl_now_us() - t0 > longest)
				longest = tsl_now_us() - t0;
			if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT) {
				rc = TSL_OK; /* nothing from this group */
				continue;
			}
			if (!rc && tsl_schedule_makespan(s) < best) {
				best = tsl_schedule_makespan(s);
				save_starts(best_starts, s, count);
				improved = 1;
			}
		}
		tsl_free(from);
		load_starts(s, best_starts, count);
	}
	tsl_free(kk);
	tsl_free(best_starts);
	tsl_free(a_starts);
	tsl_free(seen);
	return rc;
}

int tsl_complete_regroup(tessel_schedule *s, const tsl_stage *st,
			 int64_t effort)
{
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	size_t count = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	int k = s->rep_k > 1 ? (int)s->rep_k : 1;
	if (effort <= 0 || s->period <= 0 || count == 0)
		return TSL_OK;
	tsl_inst *seq = tsl_reallocarray(NULL, count, sizeof *seq);
	if (!seq)
		return tsl_error_nomem();
	int rc = group_rounds(s, seq, count, effort, tsl_bounds_lower(bnd, s->nmicros),
			      k, s->period, dl);
	tsl_free(seq);
	return rc;
}

/* The perturbed walk (perturb_rounds), from the schedule after the
 * restarts from its own micro-batches (group_rounds) when those shorten
 * it, and from the schedule before them, each with the walk's full work;
 * the shorter result is kept (the first on ties). kept: work space of
 * count starts. */
static int walk_from_both(tessel_schedule *s, tsl_inst *seq, int64_t *kept,
			  size_t count, int64_t effort, int64_t bound,
			  const tsl_repetend *rep, const tsl_deadline *dl)
{
	int64_t work = TSL_PERTURB_WORK(effort), before = tsl_schedule_makespan(s);
	save_starts(kept, s, count);
	int rc = group_rounds(s, seq, count, effort, bound, tsl_repetend_k(rep),
			      rep->period, dl);
	if (rc || tsl_schedule_makespan(s) >= before)
		return rc ? rc : perturb_rounds(s, seq, count, effort, work, bound, dl);
	int64_t *walked = tsl_reallocarray(NULL, count, sizeof *walked);
	if (!walked)
		return tsl_error_nomem();
	rc = perturb_rounds(s, seq, count, effort, work, bound, dl);
	int64_t grouped = tsl_schedule_makespan(s);
	if (!rc) {
		save_starts(walked, s, count);
		load_starts(s, kept, count);
		rc = perturb_rounds(s, seq, count, effort, work, bound, dl);
	}
	if (!rc && grouped <= tsl_schedule_makespan(s))
		load_starts(s, walked, count);
	tsl_free(walked);
	return rc;
}

/* Two completions, the shorter one kept: (a) the periodic order compacted
 * and improved by local search; (b) serial generation with insertion in
 * periodic priority, then the same compaction on its order. The plain
 * compaction of (a) always runs (time linear in the instances, after a
 * sort): it is the result when the deadline leaves no time for the rest.
 * Every later step stops at the deadline and is dropped unless it ended
 * with a shorter schedule, so the result is always a complete one. */
int tsl_complete(tessel_schedule *s, const tsl_repetend *rep,
		 const tsl_stage *st, int64_t effort)
{
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	const tessel_graph *g = s->graph;
	size_t count = (size_t)g->nblocks * (size_t)s->nmicros;
	int64_t bound = tsl_bounds_lower(bnd, s->nmicros);
	tsl_inst *seq = tsl_reallocarray(NULL, count, sizeof *seq);
	/* the starts kept across the improvement passes, when they run */
	int64_t *kept = effort > 0 ? tsl_reallocarray(NULL, count, sizeof *kept) : NULL;
	int rc = TSL_OK;
	if (!seq || (effort > 0 && !kept)) {
		rc = tsl_error_nomem();
		goto out;
	}
	label_phases(s, rep);
	rc = periodic_order(seq, s, rep, dl);
	if (!rc)
		rc = tsl_compact(s, seq, count, effort, bound, dl);
	if (rc)
		goto out;
	int64_t best = tsl_schedule_makespan(s);
	/* effort 0 (ranking candidates): the plain compaction only; very
	 * many instances: the forward-backward round below only (it runs
	 * the same serial generation, from the compaction) */
	if (effort > 0 && best > bound && count <= TSL_PERIODIC_SGS_MAX &&
	    tsl_deadline_left_ms(dl) > 0 && passes_fit(s, 1, dl)) {
		save_starts(kept, s, count);
		rc = periodic_order(seq, s, rep, dl);
		if (!rc)
			rc = tsl_sgs(s, seq, count, dl);
		if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT) {
			rc = TSL_OK; /* (b) found nothing in time: keep (a) */
			load_starts(s, kept, count);
		} else if (!rc) {
			rc = sorted_instances_until(seq, s, NULL, 0, dl);
			if (!rc)
				rc = tsl_compact(s, seq, count, effort, bound, dl);
			if (rc == TESSEL_ETIMEOUT)
				rc = TSL_OK; /* the limit itself: keep (a) */
			if (rc || tsl_schedule_makespan(s) >= best)
				load_starts(s, kept, count);
		}
		if (rc)
			goto out;
	}
	rc = forward_backward_rounds(s, seq, kept, count, effort, bound, dl);
	/* at the resource bound the steps above LB(N) are the completion's:
	 * perturbed restarts look for them (above it, LB(N) is weaker and
	 * they seldom pay for their time). When the restarts from the
	 * schedule's own micro-batches (group_rounds) shorten it first, the
	 * perturbed walk runs from both schedules,
	 * and the shorter result is kept. */
	if (!rc && effort >= TSL_FBI_FULL_EFFORT &&
	    rep->period <= bnd->resource_bound * tsl_repetend_k(rep))
		rc = walk_from_both(s, seq, kept, count, effort, bound, rep, dl);
	/* patterns the improvements made, repeated (last: it only keeps a
	 * shorter schedule) */
	if (!rc && effort > 0)
		rc = group_rounds(s, seq, count, effort, bound,
				  tsl_repetend_k(rep), rep->period, dl);
	if (rc)
		goto out;
	tsl_repetend_range(s);
	s->period = rep->period;
	s->period_optimal = rep->optimal;
	s->depth = rep->depth;
	s->rep_k = tsl_repetend_k(rep);
out:
	tsl_free(seq);
	tsl_free(kept);
	return rc;
}

int tsl_complete_improve(tessel_schedule *s, const tsl_stage *st,
			 int64_t effort)
{
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	size_t count = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	int64_t bound = tsl_bounds_lower(bnd, s->nmicros);
	if (effort <= 0 || count == 0 || tsl_schedule_makespan(s) <= bound)
		return TSL_OK;
	tsl_inst *seq = tsl_reallocarray(NULL, count, sizeof *seq);
	int64_t *kept = tsl_reallocarray(NULL, count, sizeof *kept);
	int rc = seq && kept ? TSL_OK : tsl_error_nomem();
	int64_t before = tsl_schedule_makespan(s);
	if (!rc) {
		save_starts(kept, s, count);
		rc = sorted_instances_until(seq, s, NULL, 0, dl);
	}
	/* the compaction in the schedule's own order, kept when not longer */
	if (!rc)
		rc = tsl_compact(s, seq, count, effort, bound, dl);
	if (rc == TESSEL_ETIMEOUT || (!rc && tsl_schedule_makespan(s) > before)) {
		rc = TSL_OK;
		load_starts(s, kept, count);
		if (!rc)
			rc = sorted_instances_until(seq, s, NULL, 0, dl);
	}
	if (!rc)
		rc = forward_backward_rounds(s, seq, kept, count, effort, bound, dl);
	if (!rc && effort >= TSL_FBI_FULL_EFFORT)
		rc = perturb_rounds(s, seq, count, effort, TSL_PERTURB_WORK(effort),
				    bound, dl);
	tsl_free(seq);
	tsl_free(kept);
	return rc;
}

/* Whether micro-batches m and m + k of s run the same pattern shifted by
 * the same time (*shift set from the first block). */
static int same_pattern(const tessel_schedule *s, int64_t m, int k,
			int64_t *shift)
{
	int n = s->graph->nblocks;
	int64_t d = tsl_entry_at(s, 0, m + k)->start - tsl_entry_at(s, 0, m)->start;
	for (int b = 1; b < n; b++)
		if (tsl_entry_at(s, b, m + k)->start - tsl_entry_at(s, b, m)->start != d)
			return 0;
	*shift = d;
	return 1;
}

void tsl_repetend_detect(tessel_schedule *s, const tsl_bounds *bnd)
{
	const tessel_graph *g = s->graph;
	int64_t N = s->nmicros;
	/* the longest run of micro-batches m .. m + len - 1 in which m + k
	 * repeats m, the same shift all along, over k = 1 .. 8 */
	int64_t best_len = 0, best_from = 0, best_P = 0;
	int best_k = 1;
	for (int k = 1; k <= 8 && k < N; k++) {
		int64_t from = 0, run = 0, P = 0;
		for (int64_t m = 0; m + k < N; m++) {
			int64_t d = 0;
			int same = same_pattern(s, m, k, &d);
			if (same && run > 0 && d == P) {
				run++;
			} else if (same) {
				from = m;
				run = 1;
				P = d;
			} else {
				run = 0;
			}
			/* micro-batches covered: the run's repetitions plus k */
			if (run > 0 && P > 0 && run + k > best_len + best_k * (best_len > 0)) {
				best_len = run;
				best_from = from;
				best_P = P;
				best_k = k;
			}
		}
	}
	int64_t begin = best_len > 0 ? best_from : 0;
	int64_t end = best_len > 0 ? best_from + best_len + best_k : N;
	if (best_len == 0) {
		/* no pattern repeats: the whole schedule, its throughput */
		int64_t first = INT64_MAX, last = 0;
		for (int b = 0; b < g->nblocks; b++) {
			if (tsl_entry_at(s, b, 0)->start < first)
				first = tsl_entry_at(s, b, 0)->start;
			if (tsl_entry_at(s, b, N - 1)->start > last)
				last = tsl_entry_at(s, b, N - 1)->start;
		}
		best_k = 1;
		best_P = N > 1 ? (last - first + N - 2) / (N - 1) : bnd->critical_path;
	}
	for (int64_t m = 0; m < N; m++)
		for (int b = 0; b < g->nblocks; b++)
			tsl_entry_at(s, b, m)->phase =
				m < begin ? TESSEL_PHASE_WARMUP
				: m >= end ? TESSEL_PHASE_COOLDOWN
					   : TESSEL_PHASE_REPETEND;
	tsl_repetend_range(s);
	int64_t lo = INT64_MAX, hi = 0;
	for (int b = 0; b < g->nblocks; b++) {
		const struct tessel_entry *e = tsl_entry_at(s, b, begin);
		if (e->start < lo)
			lo = e->start;
		if (e->start + g->blocks[b].span > hi)
			hi = e->start + g->blocks[b].span;
	}
	if (best_P < bnd->resource_bound * best_k)
		best_P = bnd->resource_bound * best_k; /* never below the bound */
	s->period = best_P;
	s->rep_k = best_k;
	s->depth = hi - lo;
	s->period_optimal = best_P == bnd->resource_bound * best_k;
}
