/* List scheduling of all N micro-batches at once: parallel schedule
 * generation with the rules of pipeline schedulers.
 *
 * Time moves forward over events (a device becomes free, an instance
 * becomes ready on a device). At an event of device d at time t, the
 * instances ready on d (every dependency finished, plus its latency when
 * the devices differ) are looked at rank by rank (tsl_list_rule: backward
 * first, say); the first that can start now (every device of it free, its
 * memory delta within the limit of each) starts. A weight block may be
 * kept for the gaps: it starts only when it ends before the next instance
 * becomes ready on d, unless memory holds a better-ranked instance back (a
 * weight block frees memory); a forward likewise, for the instances of
 * better rank (the backward pass then never waits for a forward begun
 * just before it arrived). An instance blocked only by a busy device
 * of its own lets d take instances that end before that device is free;
 * a device with nothing else to look at than a block on many devices
 * (wide: more than TSL_LIST_WIDE) that waits for its others sleeps until
 * they are all free, and then the first such device looks at it.
 * Every instance starts at its final time, so memory only ever grows by
 * what starts now: the limits hold at every step. The events wait in a
 * ring of time buckets (every event pending is at most the longest span
 * and latency after the one served), or beyond a few thousand steps in a
 * heap of one-word keys; ties of time go by device, either way. The Zero Bubble
 * authors' greedy scheduler follows the same kind of rules on one
 * pipeline; these work on any placement. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "complete_list.h"
#include "complete_hshape.h"
#include "complete_interleaved.h"
#include "complete_vshape.h"
#include "error.h"
#include "graph.h"
#include "util.h"

#define ALL (1 << 30)
const tsl_list_rule tsl_list_rules[TSL_LIST_NRULES] = {
	/* ranks of forward, backward, weight; weight in the gaps; memory
	 * kept for earlier micro-batches; slack of the cap on those in
	 * flight; forward in the gaps */
	{{1, 0, 2}, 1, 1, 0, 0},  /* backward first, weight in the gaps, 1F1B's
				* flight */
	{{1, 0, 2}, 0, 1, 0, 0},  /* weight whenever nothing better */
	{{1, 0, 2}, 1, 1, 1, 0},
	{{1, 0, 2}, 0, 1, 1, 0},
	{{2, 0, 1}, 0, 1, 0, 0},  /* backward, then weight, then forward */
	{{2, 0, 1}, 0, 1, 1, 0},
	{{1, 0, 2}, 1, 1, -1, 0}, /* no cap: as many as memory allows */
	{{1, 0, 2}, 0, 1, -1, 0},
	{{2, 0, 1}, 0, 1, -1, 0},
	{{0, 1, 2}, 1, 1, -1, 0}, /* forward first (GPipe-like) */
	{{1, 0, 2}, 1, ALL, 0, 0}, /* every earlier micro-batch's memory kept */
	{{1, 0, 2}, 0, ALL, 0, 0},
	{{1, 0, 2}, 1, ALL, 1, 0},
	{{1, 0, 2}, 0, ALL, 1, 0},
	{{1, 0, 2}, 1, ALL, -1, 0},
	{{1, 0, 2}, 0, ALL, -1, 0},
	{{2, 0, 1}, 0, ALL, -1, 0},
	{{0, 1, 2}, 1, ALL, -1, 0},
	{{1, 0, 2}, 1, 2, 0, 0},
	{{1, 0, 2}, 0, 2, 0, 0},
	{{1, 0, 2}, 1, 2, -1, 0},
	{{1, 0, 2}, 0, 2, -1, 0},
	{{2, 0, 1}, 0, 2, -1, 0},
	{{0, 1, 2}, 1, 2, -1, 0},
	/* backward first, a forward only when it does not hold up the
	 * next backward, weight whenever nothing better: the backward
	 * pass runs through the pipeline without waiting */
	{{1, 0, 2}, 0, 1, -1, 1},
};

/* A binary min-heap of (k1, k2, id). */
typedef struct hent {
	int64_t k1, k2, id;
} hent;

typedef struct heap {
	hent *a;
	size_t n, cap;
} heap;

static int hless(const hent *x, const hent *y)
{
	if (x->k1 != y->k1)
		return x->k1 < y->k1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2;
	return x->id < y->id;
}

static int heap_push(heap *h, hent e)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		hent *a = tsl_reallocarray(h->a, cap, sizeof *a);
		if (!a)
			return -1;
		h->a = a;
		h->cap = cap;
	}
	size_t i = h->n++;
	while (i > 0 && hless(&e, &h->a[(i - 1) / 2])) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = e;
	return 0;
}

static void heap_pop(heap *h)
{
	hent last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && hless(&h->a[c + 1], &h->a[c]))
			c++;
		if (!hless(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n > 0)
		h->a[i] = last;
}

/* A binary min-heap of one-word keys: the events (psg.ev_keys). */
typedef struct kheap {
	uint64_t *a;
	size_t n, cap;
} kheap;

static int kheap_push(kheap *h, uint64_t k)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		uint64_t *a = tsl_reallocarray(h->a, cap, sizeof *a);
		if (!a)
			return -1;
		h->a = a;
		h->cap = cap;
	}
	size_t i = h->n++;
	while (i > 0 && k < h->a[(i - 1) / 2]) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = k;
	return 0;
}

static void kheap_pop(kheap *h)
{
	uint64_t last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1] < h->a[c])
			c++;
		if (h->a[c] >= last)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n > 0)
		h->a[i] = last;
}

/* The events as a ring of time buckets, when every event pending lies
 * within `W` (a power of two) steps of the one being served: an end
 * follows its start by a span, a ready time an end by a latency, and a
 * look again or a watch falls on one of those. A bucket holds the events
 * of one time as a list (nodes: who, the next node); a bit per bucket
 * says it holds any, so the next time is found a word of 64 buckets at a
 * step. The events of the time being served are taken out sorted by who
 * (cur), where a later event of that same time goes in its place. */
/* The most buckets of the ring. */
#define TSL_LIST_RING ((uint64_t)4096)

typedef struct enode {
	int32_t who;  /* device + nwide (a watch: its wide block's index
		       * below nwide) */
	int32_t next; /* the next node of its bucket or the free list; -1 */
} enode;

typedef struct ering {
	int64_t now;     /* the time served (its bucket taken out: opened) */
	int opened;
	uint64_t mask;   /* W - 1 */
	int32_t *head;   /* per bucket: its first node, -1 none */
	uint64_t *bits;  /* per bucket: a bit, set when it holds nodes */
	enode *node;
	size_t nnode, capnode;
	int32_t free;    /* the first free node, -1 none */
	int32_t *cur;    /* now's events not yet served: cur[icur .. ncur) */
	size_t icur, ncur, capcur;
	size_t n;        /* events held */
	/* the sort of a large bucket by counting: who ranges over
	 * [0, nwho); per who its count (0 between sorts) and a bit when
	 * it is nonzero */
	int32_t nwho;
	uint32_t *count;
	uint64_t *seen;
} ering;

static int ering_init(ering *r, uint64_t w, int32_t nwho)
{
	memset(r, 0, sizeof *r);
	r->mask = w - 1;
	r->free = -1;
	r->nwho = nwho;
	r->head = tsl_malloc((size_t)w * sizeof *r->head);
	r->bits = tsl_calloc((size_t)(w + 63) / 64, sizeof *r->bits);
	r->count = tsl_calloc((size_t)nwho, sizeof *r->count);
	r->seen = tsl_calloc(((size_t)nwho + 63) / 64, sizeof *r->seen);
	if (!r->head || !r->bits || !r->count || !r->seen)
		return -1;
	memset(r->head, 0xff, (size_t)w * sizeof *r->head); /* all -1 */
	return 0;
}

static void ering_release(ering *r)
{
	tsl_free(r->head);
	tsl_free(r->bits);
	tsl_free(r->node);
	tsl_free(r->cur);
	tsl_free(r->count);
	tsl_free(r->seen);
}

static int ering_push(ering *r, int64_t t, int32_t who)
{
	if (r->opened && t == r->now) {
		/* (a later event of the time served: into its place) */
		if (r->ncur == r->capcur) {
			size_t cap = r->capcur ? 2 * r->capcur : 16;
			int32_t *a = tsl_reallocarray(r->cur, cap, sizeof *a);
			if (!a)
				return -1;
			r->cur = a;
			r->capcur = cap;
		}
		size_t i = r->ncur++;
		while (i > r->icur && r->cur[i - 1] > who) {
			r->cur[i] = r->cur[i - 1];
			i--;
		}
		r->cur[i] = who;
		r->n++;
		return 0;
	}
	int32_t k = r->free;
	if (k >= 0) {
		r->free = r->node[k].next;
	} else {
		if (r->nnode == r->capnode) {
			size_t cap = r->capnode ? 2 * r->capnode : 64;
			enode *a = cap <= INT32_MAX ? tsl_reallocarray(r->node, cap, sizeof *a)
						    : NULL;
			if (!a)
				return -1;
			r->node = a;
			r->capnode = cap;
		}
		k = (int32_t)r->nnode++;
	}
	size_t b = (size_t)((uint64_t)t & r->mask);
	r->node[k] = (enode){who, r->head[b]};
	r->head[b] = k;
	r->bits[b / 64] |= (uint64_t)1 << (b % 64);
	r->n++;
	return 0;
}

static int cmp_who(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	return (a > b) - (a < b);
}

/* cur[0 .. count) sorted (every who in [0, nwho)): by counting when the
 * words of marks between the least and the most who are at most four
 * per event (each who counted and marked, then the marks read a word at
 * a time), else by qsort. */
static void ering_sort(ering *r, size_t count)
{
	int32_t lo = INT32_MAX, hi = -1;
	for (size_t i = 0; i < count; i++) {
		int32_t v = r->cur[i];
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if ((size_t)(hi / 64 - lo / 64) > 4 * count) {
		qsort(r->cur, count, sizeof *r->cur, cmp_who);
		return;
	}
	for (size_t i = 0; i < count; i++) {
		int32_t v = r->cur[i];
		r->count[v]++;
		r->seen[v / 64] |= (uint64_t)1 << (v % 64);
	}
	size_t i = 0;
	for (int32_t word = lo / 64; word <= hi / 64; word++) {
		uint64_t bits = r->seen[word];
		r->seen[word] = 0;
		for (; bits; bits &= bits - 1) {
			int32_t v = word * 64 + __builtin_ctzll(bits);
			for (uint32_t c = r->count[v]; c > 0; c--)
				r->cur[i++] = v;
			r->count[v] = 0;
		}
	}
}

/* Take bucket b (time t) out into cur, sorted; 0 or -1. */
static int ering_open(ering *r, size_t b, int64_t t)
{
	size_t count = 0;
	for (int32_t k = r->head[b]; k >= 0; k = r->node[k].next)
		count++;
	if (count > r->capcur) {
		int32_t *a = tsl_reallocarray(r->cur, count, sizeof *a);
		if (!a)
			return -1;
		r->cur = a;
		r->capcur = count;
	}
	size_t i = 0;
	int32_t k = r->head[b];
	while (k >= 0) {
		int32_t next = r->node[k].next;
		r->cur[i++] = r->node[k].who;
		r->node[k].next = r->free;
		r->free = k;
		k = next;
	}
	r->head[b] = -1;
	r->bits[b / 64] &= ~((uint64_t)1 << (b % 64));
	if (count <= 32) {
		for (size_t x = 1; x < count; x++) {
			int32_t v = r->cur[x];
			size_t y = x;
			for (; y > 0 && r->cur[y - 1] > v; y--)
				r->cur[y] = r->cur[y - 1];
			r->cur[y] = v;
		}
	} else {
		ering_sort(r, count);
	}
	r->icur = 0;
	r->ncur = count;
	r->now = t;
	r->opened = 1;
	return 0;
}

/* The next event (r->n > 0) into *t, *who; 0 or -1. */
static int ering_pop(ering *r, int64_t *t, int32_t *who)
{
	if (r->icur == r->ncur) {
		size_t b = (size_t)((uint64_t)r->now & r->mask);
		int64_t at = r->now;
		if (r->opened || r->head[b] < 0) {
			/* the first bucket after now holding events (every
			 * time pending is below now + W) */
			size_t w = r->mask + 1, start = (b + 1) & r->mask;
			size_t word = start / 64;
			uint64_t bits = r->bits[word] & (~(uint64_t)0 << (start % 64));
			size_t walked = 0;
			while (!bits) {
				word = word + 1 < (w + 63) / 64 ? word + 1 : 0;
				bits = r->bits[word];
				if (++walked > (w + 63) / 64 + 1)
					return -1; /* (none: cannot happen with n > 0) */
			}
			size_t nb = word * 64 + (size_t)__builtin_ctzll(bits);
			at = r->now + (int64_t)((nb - b) & r->mask);
			if (nb == b)
				at = r->now + (int64_t)w;
			b = nb;
		}
		if (ering_open(r, b, at))
			return -1;
	}
	*t = r->now;
	*who = r->cur[r->icur++];
	r->n--;
	return 0;
}

#define NRANKS 3

/* What list scheduling reads of a block, packed: one array in gid order
 * with the device lists side by side (the graph's blocks are larger and
 * their device lists scattered over the heap: the cache misses of
 * reading them were a fifth of the time at 10^6 instances). */
/* A block on more devices than this is "wide" (pblock.wide). */
#define TSL_LIST_WIDE 8

typedef struct pblock {
	const int *devices;
	int ndevices;
	int wide;       /* on more than TSL_LIST_WIDE devices: its index among
			 * such blocks (psg.watch, psg.sleepers), else -1 */
	int group;      /* a wide block's group: the wide blocks on the same
			 * devices (psg.group_free), else -1 */
	int span;
	int memory;
	int kind;
} pblock;

typedef struct psg {
	const tessel_graph *g;
	const tsl_list_rule *rule;
	int64_t mem_cap; /* the memory limits it keeps to: the graph's, at most
		      * this on every device (INT64_MAX: the graph's) */
	int64_t high;    /* the most memory held on a device so far */
	int cap_free;    /* the cap holds on devices without a limit too
			  * (only when no device has one) */
	tessel_schedule *s;
	const tsl_deadline *dl;
	int n, nd;
	int64_t N;
	size_t count, placed;
	int *waiting;          /* per instance: dependencies not started */
	int64_t *ready;        /* per instance: earliest start so far */
	unsigned char *done;   /* per instance: started */
	int64_t *free_at;      /* per device */
	int64_t *wake;         /* per device: the time of the last look
				* again it asked for (-1: none); an event
				* of that time is still to come when it is
				* later than now, so it is not asked twice */
	int64_t *mem;          /* per device: memory now */
	int64_t *crit;         /* per block: span + tail */
	heap *pending;         /* per device: (ready time, id) not yet ready */
	heap *pending_better;  /* per device: the same, of the kinds ranked
				* before forward (forward_in_gaps only) */
	heap *ranked;          /* per device and rank: (micro-batch, -crit, id) */
	/* the events: (time, device), a watch event's device being
	 * -1 - its wide block; one word each, time << ev_shift | (device
	 * + nwide), the same order in one comparison (ev_packed 0: a
	 * heap of pairs, when such words could overflow) */
	int ev_packed;
	int ev_shift;
	kheap ev_keys;
	heap events;
	int ev_ringed;  /* the events in a ring of time buckets instead */
	ering ev_ring;
	int64_t *need;         /* per device and micro-batch: memory its
				* instances not started still take */
	int64_t *oldest;       /* per device: earliest micro-batch with need */
	int *left;             /* per device and micro-batch: its blocks on
				* the device not started */
	int *on_device;        /* per device: blocks on it */
	int64_t *flying;       /* per device: micro-batches in flight */
	int64_t *cap;          /* per device: most in flight */
	tsl_succ succ;
	pblock *blk;           /* per block */
	int *devs;             /* the blocks' devices, blk[b].devices */
	int64_t *group_free;   /* per group of wide blocks on the same
				* devices: the latest free_at of those
				* devices (free_at only grows, so a maximum
				* kept as each grows is exact) */
	int *dev_wide_start;   /* per device + 1: the groups on it, */
	int *dev_wide;         /* dev_wide[dev_wide_start[d] ..] */
	int *conf_start;       /* per group + 1: the groups that share a
				* device with it (itself too), */
	int *conf;             /* conf[conf_start[w] ..] (NULL: too many;
				* start then goes device by device) */
	int *waits_for;        /* per device: the wide block it sleeps on
				* (-1: none; see sleep_on) */
	int64_t *watch;        /* per wide block: the time of its pending
				* watch event (-1: none) */
	kheap *sleepers;       /* per wide block: devices that slept on it
				* (those still asleep: waits_for) */
	int nwide;
	int *wide_block;       /* per wide block: its gid */
	int ngroups;
	int *group_block;      /* per group: the gid of a block of it */
	int nomem;
	int64_t work;          /* heap operations, charged in ticks */
} psg;

static void psg_release(psg *p)
{
	tsl_free(p->waiting);
	tsl_free(p->ready);
	tsl_free(p->done);
	tsl_free(p->free_at);
	tsl_free(p->group_free);
	tsl_free(p->wide_block);
	tsl_free(p->group_block);
	tsl_free(p->dev_wide_start);
	tsl_free(p->dev_wide);
	tsl_free(p->conf_start);
	tsl_free(p->conf);
	for (int w = 0; p->sleepers && w < p->nwide; w++)
		tsl_free(p->sleepers[w].a);
	tsl_free(p->sleepers);
	tsl_free(p->waits_for);
	tsl_free(p->watch);
	tsl_free(p->wake);
	tsl_free(p->mem);
	tsl_free(p->crit);
	for (int d = 0; p->pending && d < p->nd; d++)
		tsl_free(p->pending[d].a);
	for (int d = 0; p->pending_better && d < p->nd; d++)
		tsl_free(p->pending_better[d].a);
	tsl_free(p->pending_better);
	for (int i = 0; p->ranked && i < p->nd * NRANKS; i++)
		tsl_free(p->ranked[i].a);
	tsl_free(p->pending);
	tsl_free(p->ranked);
	tsl_free(p->events.a);
	tsl_free(p->ev_keys.a);
	ering_release(&p->ev_ring);
	tsl_free(p->need);
	tsl_free(p->oldest);
	tsl_free(p->left);
	tsl_free(p->on_device);
	tsl_free(p->flying);
	tsl_free(p->cap);
	tsl_succ_release(&p->succ);
	tsl_free(p->blk);
	tsl_free(p->devs);
}

static void push(psg *p, heap *h, int64_t k1, int64_t k2, int64_t id)
{
	p->work++;
	if (heap_push(h, (hent){k1, k2, id}))
		p->nomem = 1;
}

/* Event (t, who): who a device, or -1 - w for wide block w's watch. */
static void push_event(psg *p, int64_t t, int64_t who)
{
	p->work++;
	if (p->ev_ringed) {
		if (ering_push(&p->ev_ring, t, (int32_t)(who + p->nwide)))
			p->nomem = 1;
	} else if (p->ev_packed) {
		uint64_t key = (uint64_t)t << p->ev_shift | (uint64_t)(who + p->nwide);
		if (kheap_push(&p->ev_keys, key))
			p->nomem = 1;
	} else if (heap_push(&p->events, (hent){t, who, who})) {
		p->nomem = 1;
	}
}

/* Whether an event is due. */
static int has_event(const psg *p)
{
	if (p->ev_ringed)
		return p->ev_ring.n > 0;
	return p->ev_packed ? p->ev_keys.n > 0 : p->events.n > 0;
}

/* The next event into *t, *who. */
static void pop_event(psg *p, int64_t *t, int64_t *who)
{
	if (p->ev_ringed) {
		int32_t w = 0;
		if (ering_pop(&p->ev_ring, t, &w))
			p->nomem = 1;
		*who = (int64_t)w - p->nwide;
		return;
	}
	if (p->ev_packed) {
		uint64_t key = p->ev_keys.a[0];
		kheap_pop(&p->ev_keys);
		*t = (int64_t)(key >> p->ev_shift);
		*who = (int64_t)(key & (((uint64_t)1 << p->ev_shift) - 1)) - p->nwide;
		return;
	}
	*t = p->events.a[0].k1;
	*who = p->events.a[0].k2;
	heap_pop(&p->events);
}

/* Instance id has every dependency started: waiting on its devices until
 * it is ready. */
static void make_pending(psg *p, int64_t id)
{
	const pblock *B = &p->blk[id % p->n];
	for (int k = 0; k < B->ndevices; k++) {
		int e = B->devices[k];
		push(p, &p->pending[e], p->ready[id], id, id);
		if (p->pending_better &&
		    p->rule->rank[B->kind] < p->rule->rank[TESSEL_KIND_FORWARD])
			push(p, &p->pending_better[e], p->ready[id], id, id);
		/* no event of its own when e is busy until then: the event of
		 * e's end (pushed when that started, not yet served: ready is
		 * later than now) promotes it. Charged as the push it was. */
		if (p->ready[id] > p->free_at[e] || p->free_at[e] == 0)
			push_event(p, p->ready[id], e);
		else
			p->work++;
	}
}

/* Move what is ready on device d at t from pending to its ranks. */
static void promote(psg *p, int d, int64_t t)
{
	heap *h = &p->pending[d];
	while (h->n > 0 && h->a[0].k1 <= t) {
		int64_t id = h->a[0].id;
		heap_pop(h);
		if (p->done[id])
			continue;
		const pblock *B = &p->blk[id % p->n];
		int r = p->rule->rank[B->kind];
		push(p, &p->ranked[d * NRANKS + r], id / p->n, -p->crit[id % p->n], id);
	}
}

/* The next time something not yet started becomes ready on d, or
 * INT64_MAX. */
static int64_t next_arrival(psg *p, int d)
{
	heap *h = &p->pending[d];
	while (h->n > 0 && p->done[h->a[0].id])
		heap_pop(h);
	return h->n > 0 ? h->a[0].k1 : INT64_MAX;
}

/* The next time after t an instance of a kind ranked before forward
 * becomes ready on d, or INT64_MAX (forward_in_gaps). */
static int64_t next_better_arrival(psg *p, int d, int64_t t)
{
	heap *h = &p->pending_better[d];
	while (h->n > 0 && (p->done[h->a[0].id] || h->a[0].k1 <= t))
		heap_pop(h);
	return h->n > 0 ? h->a[0].k1 : INT64_MAX;
}

/* Start instance id at t on every device of its block. */
static void start(psg *p, int64_t id, int64_t t)
{
	int b = (int)(id % p->n);
	const pblock *B = &p->blk[b];
	int64_t end = t + B->span, m = id / p->n;
	p->done[id] = 1;
	p->placed++;
	p->s->entries[id].start = t;
	for (int k = 0; k < B->ndevices; k++) {
		int e = B->devices[k];
		p->free_at[e] = end;
		if (p->dev_wide && !(B->wide >= 0 && p->conf))
			/* (stored either way: no branch to mispredict) */
			for (int x = p->dev_wide_start[e]; x < p->dev_wide_start[e + 1]; x++) {
				int64_t *f = &p->group_free[p->dev_wide[x]];
				*f = *f < end ? end : *f;
			}
		p->mem[e] += B->memory;
		if (p->mem[e] > p->high)
			p->high = p->mem[e];
		push_event(p, end, e);
		if (p->need && B->memory > 0)
			p->need[(size_t)e * (size_t)p->N + (size_t)m] -= B->memory;
		if (p->left && B->kind != TESSEL_KIND_WEIGHT) {
			int *l = &p->left[(size_t)e * (size_t)p->N + (size_t)m];
			if (*l == p->on_device[e])
				p->flying[e]++;
			/* the last block there ends the flight at its end;
			 * counted at its start (the device is busy until then) */
			if (--*l == 0)
				p->flying[e]--;
		}
	}
	if (B->wide >= 0 && p->conf)
		/* (each group once, not once per device they share) */
		for (int x = p->conf_start[B->group]; x < p->conf_start[B->group + 1]; x++) {
			int64_t *f = &p->group_free[p->conf[x]];
			*f = *f < end ? end : *f;
		}
	for (int k = p->succ.start[b]; k < p->succ.start[b + 1]; k++) {
		int c = p->succ.block[k];
		int64_t cid = m * p->n + c;
		int64_t r = end + p->succ.lat[k];
		if (r > p->ready[cid])
			p->ready[cid] = r;
		if (--p->waiting[cid] == 0)
			make_pending(p, cid);
	}
}

/* What the `reserve` earliest micro-batches other than m still take on
 * device e. */
static int64_t reserved(psg *p, int e, int64_t m)
{
	const int64_t *need = p->need + (size_t)e * (size_t)p->N;
	int64_t *o = &p->oldest[e];
	while (*o < p->N && need[*o] <= 0)
		(*o)++;
	int64_t sum = 0;
	int taken = 0;
	for (int64_t j = *o; j < p->N && j < m && taken < p->rule->reserve; j++)
		if (need[j] > 0) {
			sum += need[j];
			taken++;
		}
	return sum;
}

/* Whether instance id (of block B) fits the memory of its devices now,
 * beside what the rule keeps for earlier micro-batches. */
static int memory_fits(psg *p, const pblock *B, int64_t id)
{
	if (B->memory <= 0)
		return 1;
	for (int k = 0; k < B->ndevices; k++) {
		int e = B->devices[k];
		int64_t lim = p->g->memory_limit[e];
		if (lim == TESSEL_UNLIMITED && !p->cap_free)
			continue;
		if (lim == TESSEL_UNLIMITED || lim > p->mem_cap)
			lim = p->mem_cap; /* INT64_MAX: no cap */
		if (lim == INT64_MAX)
			continue;
		int64_t keep = p->need ? reserved(p, e, id / p->n) : 0;
		if (p->mem[e] + B->memory + keep > lim)
			return 0;
	}
	return 1;
}

/* Whether an instance of micro-batch m of block B may start under the cap
 * on micro-batches in flight. */
static int flight_fits(const psg *p, const pblock *B, int64_t m)
{
	if (!p->left)
		return 1;
	if (B->kind == TESSEL_KIND_WEIGHT)
		return 1;
	for (int k = 0; k < B->ndevices; k++) {
		int e = B->devices[k];
		if (p->left[(size_t)e * (size_t)p->N + (size_t)m] == p->on_device[e] &&
		    p->flying[e] >= p->cap[e])
			return 0;
	}
	return 1;
}

/* The latest time a device of B is busy until (t when all are free). */
static int64_t devices_free(const psg *p, const pblock *B, int64_t t)
{
	if (B->wide >= 0) /* (its devices' maximum, kept as start sets them) */
		return p->group_free[B->group] > t ? p->group_free[B->group] : t;
	int64_t at = t;
	for (int k = 0; k < B->ndevices; k++)
		if (p->free_at[B->devices[k]] > at)
			at = p->free_at[B->devices[k]];
	return at;
}

/* Look again on device d at `when` (> now), once: a device blocked again
 * and again before then (every event of a wide block's other devices)
 * would otherwise ask for the same event each time, and each of those
 * events, served alike, would ask again. */
static void wake_at(psg *p, int d, int64_t when)
{
	if (p->wake[d] == when)
		return;
	p->wake[d] = when;
	push_event(p, when, d);
}

/* Device d, with nothing to look at but wide block w, which waits for its
 * other devices, sleeps on it: one watch event of the block follows the
 * latest end of its devices, and when they are all free, wakes the first
 * sleeper (by device), which starts the block if it can. The other
 * sleepers, looking at the same block at the same time, would do nothing
 * the first did not: they sleep on. (Each sleeper looking again at every
 * later end of a device of w, as wake_at would have it, made events that
 * grew with the square of the devices.) */
static void sleep_on(psg *p, int d, int w, int64_t when)
{
	if (p->waits_for[d] != w) {
		p->waits_for[d] = w;
		p->work++;
		if (kheap_push(&p->sleepers[w], (uint64_t)d))
			p->nomem = 1;
	}
	if (p->watch[w] < 0) {
		/* (one pending watch: it moves on to the later end itself) */
		p->watch[w] = when;
		push_event(p, when, -1 - (int64_t)w);
	}
}

/* The watch event of wide block w at time t: its devices all free, wake
 * its first sleeper now; else look again at their latest end. */
static void watch_event(psg *p, int w, int64_t t)
{
	if (p->watch[w] != t)
		return;
	p->watch[w] = -1;
	int64_t busy = p->group_free[p->blk[p->wide_block[w]].group];
	if (busy > t) {
		p->watch[w] = busy;
		push_event(p, busy, -1 - (int64_t)w);
		return;
	}
	kheap *h = &p->sleepers[w];
	while (h->n > 0) {
		int d = (int)h->a[0];
		kheap_pop(h);
		p->work++;
		if (p->waits_for[d] != w)
			continue; /* woke since, for another reason */
		p->waits_for[d] = -1;
		push_event(p, t, d);
		return;
	}
}

/* The event of device d at time t: start the best instance that can. */
static void serve(psg *p, int d, int64_t t)
{
	if (p->free_at[d] > t)
		return; /* busy: an event of its end follows */
	if (p->waits_for)
		p->waits_for[d] = -1; /* (sleeps again below if still so) */
	promote(p, d, t);
	int64_t until = INT64_MAX; /* instances must end by then (a blocked
				    * better one waits for its devices) */
	int memory_held = 0;
	/* a wide block waiting for its devices: whether it was all there
	 * was to look at (then sleep on it, else come back then) */
	int wide_wait = -1, others = 0;
	int64_t wide_when = 0;
	for (int r = 0; r < NRANKS; r++) {
		heap *h = &p->ranked[d * NRANKS + r];
		while (h->n > 0 && p->done[h->a[0].id])
			heap_pop(h);
		if (h->n == 0)
			continue;
		int64_t id = h->a[0].id;
		const pblock *B = &p->blk[id % p->n];
		if (t + B->span > until) {
			others = 1;
			continue;
		}
		int64_t when = devices_free(p, B, t);
		if (when > t) {
			/* its other devices are busy: come back then */
			if (B->wide >= 0 && wide_wait < 0) {
				wide_wait = B->wide;
				wide_when = when;
			} else {
				others = 1;
				wake_at(p, d, when);
			}
			if (when < until)
				until = when;
			continue;
		}
		others = 1;
		if (!memory_fits(p, B, id)) {
			memory_held = 1;
			continue;
		}
		if (!flight_fits(p, B, id / p->n))
			continue;
		if (B->kind == TESSEL_KIND_WEIGHT && p->rule->weight_in_gaps &&
		    !memory_held) {
			int64_t next = next_arrival(p, d);
			if (next < t + B->span) {
				/* keep the gap for what arrives: look again then */
				wake_at(p, d, next);
				continue;
			}
		}
		if (B->kind == TESSEL_KIND_FORWARD && p->rule->forward_in_gaps &&
		    !memory_held) {
			int64_t next = next_better_arrival(p, d, t);
			if (next < t + B->span) {
				/* a forward would hold back what arrives:
				 * the weight blocks may take the gap */
				wake_at(p, d, next);
				continue;
			}
		}
		heap_pop(h);
		start(p, id, t);
		return;
	}
	if (wide_wait >= 0) {
		if (others)
			wake_at(p, d, wide_when);
		else
			sleep_on(p, d, wide_wait, wide_when);
	}
}

/* A wide block's device list, to find the groups (psg_init). */
typedef struct wide_key {
	const int *devices;
	int ndevices;
	int gid;
} wide_key;

static int cmp_devices(const wide_key *a, const wide_key *b)
{
	if (a->ndevices != b->ndevices)
		return a->ndevices < b->ndevices ? -1 : 1;
	for (int k = 0; k < a->ndevices; k++)
		if (a->devices[k] != b->devices[k])
			return a->devices[k] < b->devices[k] ? -1 : 1;
	return 0;
}

/* By device list, then gid: the groups numbered the same on every
 * machine. */
static int cmp_wide_key(const void *x, const void *y)
{
	const wide_key *a = x, *b = y;
	int c = cmp_devices(a, b);
	return c ? c : (a->gid > b->gid) - (a->gid < b->gid);
}

/* The most pairs of wide blocks kept in psg.conf, and the most steps
 * finding them may take. */
#define TSL_LIST_CONFLICTS ((int64_t)1 << 24)
#define TSL_LIST_CONFLICT_STEPS ((int64_t)1 << 29)

/* psg.conf: for each group of wide blocks, the groups sharing a device
 * with it, so that a wide block's start raises each of their group_free
 * once (device by device, a block on half of 2,048 devices, each device in
 * 750 wide blocks, took 375,000 steps a start). Found by marking the
 * groups of each device, or by intersecting device sets as bits,
 * whichever takes fewer steps; none when there would be too many pairs or
 * steps. */
static int build_conflicts(psg *p)
{
	int nw = p->ngroups;
	int64_t mark_steps = 0;
	for (int d = 0; d < p->nd; d++) {
		int64_t k = p->dev_wide_start[d + 1] - p->dev_wide_start[d];
		mark_steps += k * k;
	}
	size_t words = ((size_t)p->nd + 63) / 64;
	int64_t bit_steps = (int64_t)nw * nw * (int64_t)words;
	if ((int64_t)nw * nw > TSL_LIST_CONFLICTS ||
	    (mark_steps > TSL_LIST_CONFLICT_STEPS && bit_steps > TSL_LIST_CONFLICT_STEPS))
		return TSL_OK;
	int *first = tsl_calloc((size_t)nw + 1, sizeof *first);
	int *list = tsl_reallocarray(NULL, (size_t)nw * (size_t)nw + 1, sizeof *list);
	const int *wblock = p->group_block; /* group -> a block of it */
	if (!first || !list) {
		tsl_free(first);
		tsl_free(list);
		return tsl_error_nomem();
	}
	size_t n = 0;
	if (mark_steps <= bit_steps) {
		int *stamp = tsl_calloc((size_t)nw + 1, sizeof *stamp);
		if (!stamp) {
			tsl_free(first);
			tsl_free(list);
			return tsl_error_nomem();
		}
		for (int x = 0; x < nw; x++) {
			first[x] = (int)n;
			const pblock *B = &p->blk[wblock[x]];
			for (int k = 0; k < B->ndevices; k++) {
				int e = B->devices[k];
				for (int y = p->dev_wide_start[e]; y < p->dev_wide_start[e + 1]; y++)
					if (stamp[p->dev_wide[y]] != x + 1) {
						stamp[p->dev_wide[y]] = x + 1;
						list[n++] = p->dev_wide[y];
					}
			}
		}
		tsl_free(stamp);
	} else {
		uint64_t *bits = tsl_calloc((size_t)nw * words + 1, sizeof *bits);
		if (!bits) {
			tsl_free(first);
			tsl_free(list);
			return tsl_error_nomem();
		}
		for (int x = 0; x < nw; x++) {
			const pblock *B = &p->blk[wblock[x]];
			for (int k = 0; k < B->ndevices; k++)
				bits[(size_t)x * words + (size_t)B->devices[k] / 64] |=
					(uint64_t)1 << (B->devices[k] % 64);
		}
		for (int x = 0; x < nw; x++) {
			first[x] = (int)n;
			const uint64_t *a = bits + (size_t)x * words;
			for (int y = 0; y < nw; y++) {
				const uint64_t *c = bits + (size_t)y * words;
				size_t w = 0;
				while (w < words && !(a[w] & c[w]))
					w++;
				if (w < words)
					list[n++] = y;
			}
		}
		tsl_free(bits);
	}
	first[nw] = (int)n;
	int *fit = tsl_reallocarray(list, n + 1, sizeof *list); /* (the room
								 * not used) */
	p->conf_start = first;
	p->conf = fit ? fit : list;
	return TSL_OK;
}

static int psg_init(psg *p, tessel_schedule *s, const tsl_bounds *bnd,
		    const tsl_list_rule *rule, const tsl_deadline *dl,
		    int64_t cap)
{
	const tessel_graph *g = s->graph;
	memset(p, 0, sizeof *p);
	p->mem_cap = cap;
	p->g = g;
	p->rule = rule;
	p->s = s;
	p->dl = dl;
	p->n = g->nblocks;
	p->nd = g->ndevices;
	p->N = s->nmicros;
	p->count = (size_t)p->n * (size_t)p->N;
	p->waiting = tsl_reallocarray(NULL, p->count, sizeof *p->waiting);
	p->ready = tsl_calloc(p->count, sizeof *p->ready);
	p->done = tsl_calloc(p->count, 1);
	p->free_at = tsl_calloc((size_t)p->nd, sizeof *p->free_at);
	p->wake = tsl_malloc(((size_t)p->nd + 1) * sizeof *p->wake);
	p->mem = tsl_calloc((size_t)p->nd, sizeof *p->mem);
	p->crit = tsl_calloc((size_t)p->n, sizeof *p->crit);
	p->pending = tsl_calloc((size_t)p->nd, sizeof *p->pending);
	p->ranked = tsl_calloc((size_t)p->nd * NRANKS, sizeof *p->ranked);
	if (rule->forward_in_gaps) {
		p->pending_better = tsl_calloc((size_t)p->nd, sizeof *p->pending_better);
		if (!p->pending_better)
			return tsl_error_nomem();
	}
	if (!p->waiting || !p->ready || !p->done || !p->free_at || !p->mem ||
	    !p->crit || !p->pending || !p->ranked || !p->wake)
		return tsl_error_nomem();
	for (int d = 0; d < p->nd; d++)
		p->wake[d] = -1;
	int rc = tsl_succ_build(&p->succ, g);
	if (rc)
		return rc;
	size_t ndevs = 0;
	for (int b = 0; b < p->n; b++)
		ndevs += (size_t)g->blocks[b].ndevices;
	p->blk = tsl_calloc((size_t)p->n, sizeof *p->blk);
	p->devs = tsl_calloc(ndevs, sizeof *p->devs);
	if (!p->blk || !p->devs)
		return tsl_error_nomem();
	ndevs = 0;
	for (int b = 0; b < p->n; b++) {
		const tsl_block *B = &g->blocks[b];
		memcpy(p->devs + ndevs, B->devices, (size_t)B->ndevices * sizeof *p->devs);
		p->blk[b] = (pblock){.devices = p->devs + ndevs,
				     .ndevices = B->ndevices, .wide = -1,
				     .group = -1, .span = B->span,
				     .memory = B->memory, .kind = B->kind};
		ndevs += (size_t)B->ndevices;
	}
	/* blocks on many devices: whether all are free is one look, not one
	 * per device (each device's event looks at such a block, so the
	 * looks would grow with the square of the devices); the wide blocks
	 * on the same devices share that look's figure (a group): a start
	 * raises it once per group on the device, not once per wide block
	 * (9,441 blocks on 64 devices, 1,941 of them wide in 409 groups:
	 * that loop was more than a third of the time) */
	int nwide = 0;
	for (int b = 0; b < p->n; b++) {
		p->blk[b].group = -1;
		if (p->blk[b].ndevices > TSL_LIST_WIDE)
			p->blk[b].wide = nwide++;
	}
	if (nwide > 0) {
		p->nwide = nwide;
		p->wide_block = tsl_malloc((size_t)nwide * sizeof *p->wide_block);
		p->group_block = tsl_malloc((size_t)nwide * sizeof *p->group_block);
		p->waits_for = tsl_malloc((size_t)p->nd * sizeof *p->waits_for);
		p->watch = tsl_malloc((size_t)nwide * sizeof *p->watch);
		p->sleepers = tsl_calloc((size_t)nwide, sizeof *p->sleepers);
		p->dev_wide_start = tsl_calloc((size_t)p->nd + 1, sizeof *p->dev_wide_start);
		wide_key *key = tsl_malloc((size_t)nwide * sizeof *key);
		if (!p->wide_block || !p->group_block || !p->waits_for ||
		    !p->watch || !p->sleepers || !p->dev_wide_start || !key) {
			tsl_free(key);
			return tsl_error_nomem();
		}
		for (int d = 0; d < p->nd; d++)
			p->waits_for[d] = -1;
		for (int w = 0; w < nwide; w++)
			p->watch[w] = -1;
		for (int b = 0; b < p->n; b++)
			if (p->blk[b].wide >= 0) {
				p->wide_block[p->blk[b].wide] = b;
				key[p->blk[b].wide] = (wide_key){p->blk[b].devices,
								 p->blk[b].ndevices, b};
			}
		qsort(key, (size_t)nwide, sizeof *key, cmp_wide_key);
		size_t ngroup_devs = 0;
		for (int i = 0; i < nwide; i++) {
			if (i == 0 || cmp_devices(&key[i - 1], &key[i]) != 0) {
				p->group_block[p->ngroups++] = key[i].gid;
				ngroup_devs += (size_t)key[i].ndevices;
			}
			p->blk[key[i].gid].group = p->ngroups - 1;
		}
		tsl_free(key);
		p->group_free = tsl_calloc((size_t)p->ngroups, sizeof *p->group_free);
		p->dev_wide = tsl_calloc(ngroup_devs + 1, sizeof *p->dev_wide);
		int *fill = tsl_calloc((size_t)p->nd, sizeof *fill);
		if (!p->group_free || !p->dev_wide || !fill) {
			tsl_free(fill);
			return tsl_error_nomem();
		}
		for (int x = 0; x < p->ngroups; x++) {
			const pblock *B = &p->blk[p->group_block[x]];
			for (int k = 0; k < B->ndevices; k++)
				p->dev_wide_start[B->devices[k] + 1]++;
		}
		for (int d = 0; d < p->nd; d++)
			p->dev_wide_start[d + 1] += p->dev_wide_start[d];
		for (int x = 0; x < p->ngroups; x++) {
			const pblock *B = &p->blk[p->group_block[x]];
			for (int k = 0; k < B->ndevices; k++) {
				int e = B->devices[k];
				p->dev_wide[p->dev_wide_start[e] + fill[e]++] = x;
			}
		}
		tsl_free(fill);
		int crc = build_conflicts(p);
		if (crc)
			return crc;
	}
	for (int b = 0; b < p->n; b++)
		p->crit[b] = g->blocks[b].span + bnd->tail[b];
	int limited = 0;
	for (int d = 0; d < p->nd; d++)
		limited |= g->memory_limit[d] != TESSEL_UNLIMITED;
	p->cap_free = !limited;
	limited |= cap != INT64_MAX;
	if (rule->reserve > 0 && limited) {
		p->need = tsl_calloc((size_t)p->nd * (size_t)p->N, sizeof *p->need);
		p->oldest = tsl_calloc((size_t)p->nd, sizeof *p->oldest);
		if (!p->need || !p->oldest)
			return tsl_error_nomem();
		for (int b = 0; b < p->n; b++) {
			const tsl_block *B = &g->blocks[b];
			if (B->memory <= 0)
				continue;
			for (int k = 0; k < B->ndevices; k++)
				for (int64_t m = 0; m < p->N; m++)
					p->need[(size_t)B->devices[k] * (size_t)p->N +
						(size_t)m] += B->memory;
		}
	}
	if (rule->flight_slack >= 0 && p->nd > 1) {
		/* cap per device: the span of one micro-batch there (from its
		 * first block's earliest start to its last block's end) over
		 * the device's load, rounded up, plus the slack */
		p->left = tsl_calloc((size_t)p->nd * (size_t)p->N, sizeof *p->left);
		p->on_device = tsl_calloc((size_t)p->nd, sizeof *p->on_device);
		p->flying = tsl_calloc((size_t)p->nd, sizeof *p->flying);
		p->cap = tsl_calloc((size_t)p->nd, sizeof *p->cap);
		if (!p->left || !p->on_device || !p->flying || !p->cap)
			return tsl_error_nomem();
		for (int d = 0; d < p->nd; d++) {
			int64_t lo = INT64_MAX, hi = 0;
			/* weight blocks fill gaps: the flight ends with the
			 * last other block */
			for (int x = bnd->dev_start[d]; x < bnd->dev_start[d + 1]; x++) {
				int b = bnd->dev_block[x];
				if (g->blocks[b].kind == TESSEL_KIND_WEIGHT)
					continue;
				p->on_device[d]++;
				lo = bnd->head[b] < lo ? bnd->head[b] : lo;
				if (bnd->head[b] + g->blocks[b].span > hi)
					hi = bnd->head[b] + g->blocks[b].span;
			}
			int64_t load = bnd->load[d] > 0 ? bnd->load[d] : 1;
			p->cap[d] = hi > lo ? (hi - lo + load - 1) / load : 1;
			p->cap[d] += rule->flight_slack;
			for (int64_t m = 0; m < p->N; m++)
				p->left[(size_t)d * (size_t)p->N + (size_t)m] = p->on_device[d];
		}
	}
	/* every event's time is at most the sum over the instances of
	 * span and longest latency after it (an event follows a start by
	 * at most those, and each instance starts once, later than the
	 * start its own event followed): one word holds the events when
	 * that sum fits above the devices' bits */
	uint64_t who_count = (uint64_t)p->nd + (uint64_t)p->nwide;
	while (((uint64_t)1 << p->ev_shift) < who_count)
		p->ev_shift++;
	uint64_t horizon = 1, most = ((uint64_t)1 << (63 - p->ev_shift)) - 1;
	uint64_t N = (uint64_t)(p->N > 0 ? p->N : 1);
	for (int b = 0; b < p->n && horizon <= most; b++) {
		int64_t lat = 0;
		for (int k = p->succ.start[b]; k < p->succ.start[b + 1]; k++)
			lat = p->succ.lat[k] > lat ? p->succ.lat[k] : lat;
		uint64_t per = (uint64_t)g->blocks[b].span + (uint64_t)lat;
		horizon = per > (most - horizon) / N ? most + 1 : horizon + per * N;
	}
	p->ev_packed = horizon <= most;
	/* the ring: W above the longest span and latency (an event pushed
	 * is at most that after the one served), at most TSL_LIST_RING
	 * buckets: the walk to the next time reads a word of 64 buckets a
	 * step, and the times walked are at most the spans of the
	 * instances, so at most TSL_LIST_RING / 64 words an instance (the
	 * heap of words beyond: spans of thousands of steps) */
	int64_t far = 0, lat_most = 0;
	for (int b = 0; b < p->n; b++)
		far = g->blocks[b].span > far ? g->blocks[b].span : far;
	for (int k = 0; k < p->succ.start[p->n]; k++)
		lat_most = p->succ.lat[k] > lat_most ? p->succ.lat[k] : lat_most;
	uint64_t W = 64;
	while (W <= (uint64_t)far + (uint64_t)lat_most && W <= TSL_LIST_RING)
		W *= 2;
	if (W <= TSL_LIST_RING && p->nd + p->nwide < INT32_MAX / 2) {
		if (ering_init(&p->ev_ring, W, (int32_t)(p->nd + p->nwide)))
			return tsl_error_nomem();
		p->ev_ringed = 1;
	}
	for (size_t i = 0; i < p->count; i++)
		p->waiting[i] = g->blocks[i % (size_t)p->n].ndeps;
	/* (a block on many devices without dependencies makes many
	 * entries a micro-batch: the time limit and a cancel hold here too) */
	for (size_t i = 0; i < p->count && !p->nomem; i++) {
		if ((i & 65535) == 65535 &&
		    tsl_deadline_must_stop(dl))
			return TESSEL_ETIMEOUT; /* no message: the caller goes on */
		if (p->waiting[i] == 0)
			make_pending(p, (int64_t)i);
	}
	return p->nomem ? tsl_error_nomem() : TSL_OK;
}

/* tsl_list_schedule keeping every device to at most `cap` of memory;
 * *high (unless NULL) the most memory it held on a device. */
static int list_scaled(tessel_schedule *s, const tsl_bounds *bnd,
		       const tsl_list_rule *rule, const tsl_deadline *dl,
		       int64_t cap, int64_t *high)
{
	psg p;
	int rc = psg_init(&p, s, bnd, rule, dl, cap);
	int64_t looks = 0, charged = 0;
	while (!rc && has_event(&p)) {
		int64_t t, who;
		pop_event(&p, &t, &who);
		if (p.nomem) {
			rc = tsl_error_nomem();
			break;
		}
		if (who < 0)
			watch_event(&p, (int)(-1 - who), t);
		else
			serve(&p, (int)who, t);
		if (p.nomem) {
			rc = tsl_error_nomem();
			break;
		}
		if ((++looks & 4095) == 0) {
			tsl_charge(dl, (p.work - charged) / TSL_LIST_STEPS_PER_TICK);
			charged = p.work - (p.work - charged) % TSL_LIST_STEPS_PER_TICK;
			if (tsl_deadline_must_stop(dl))
				rc = TESSEL_ETIMEOUT; /* no message: the caller goes on */
		}
	}
	tsl_charge(dl, (p.work - charged) / TSL_LIST_STEPS_PER_TICK);
	if (!rc && p.placed < p.count)
		rc = TESSEL_EINFEASIBLE; /* no message: memory held the rest */
	if (high)
		*high = p.high;
	psg_release(&p);
	return rc;
}

int tsl_list_schedule(tessel_schedule *s, const tsl_stage *st,
		      const tsl_list_rule *rule)
{
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	return list_scaled(s, bnd, rule, dl, INT64_MAX, NULL);
}

/* How many of the shortest rules run again under tighter limits, and
 * under how many caps each. */
#define TSL_LIST_TIGHTER 4
#define TSL_LIST_CAPS 8
/* How many of the shortest results tsl_list_top keeps. */
#define TSL_LIST_KEEP (1 + TSL_LIST_MORE)

/* The caps below `top` (> 0) and at least top / 2, largest first, into
 * caps (TSL_LIST_CAPS room), distinct; their count. The caps are the
 * points 2^(e + i/8) (rounded down) of a grid of the memory axis, the same
 * for every limit: fixed-point ratios, no floating point. */
static int tighter_caps(int64_t *caps, int64_t top)
{
	static const int64_t ratio[8] = {65536, 71468, 77936, 84990,
					 92682, 101070, 110218, 120194};
	int n = 0;
	if (top < 2 || top > ((int64_t)1 << 50))
		return 0; /* (limits are at most 2^50: no overflow below) */
	int e = 0;
	while (e < 62 && ((int64_t)1 << (e + 1)) <= top)
		e++;
	/* 2^e <= top < 2^(e+1): the grid points of [2^(e-1), 2^(e+1)) */
	for (int ee = e; ee >= e - 1 && ee >= 0; ee--)
		for (int i = 7; i >= 0; i--) {
			int64_t c = ee >= 16 ? (((int64_t)1 << (ee - 16)) * ratio[i])
					     : (((int64_t)1 << ee) * ratio[i]) >> 16;
			if (c >= top || 2 * c < top || n == TSL_LIST_CAPS ||
			    (n && caps[n - 1] == c))
				continue;
			caps[n++] = c;
		}
	return n;
}

/* The shortest schedules met so far, distinct makespans, shortest first:
 * their starts. */
typedef struct list_top {
	int n;
	size_t count;                 /* instances */
	int64_t ms[TSL_LIST_KEEP];
	int64_t *starts[TSL_LIST_KEEP];
} list_top;

/* Offer s's starts to t; TESSEL_ENOMEM. */
static int top_offer(list_top *t, const tessel_schedule *s)
{
	int64_t m = tsl_schedule_makespan(s);
	int at = t->n;
	for (int i = 0; i < t->n; i++)
		if (t->ms[i] == m)
			return TSL_OK; /* (one schedule per makespan) */
	while (at > 0 && t->ms[at - 1] > m)
		at--;
	if (at >= TSL_LIST_KEEP)
		return TSL_OK;
	int64_t *buf;
	if (t->n == TSL_LIST_KEEP) {
		buf = t->starts[TSL_LIST_KEEP - 1];
		t->n--;
	} else {
		buf = tsl_reallocarray(NULL, t->count ? t->count : 1, sizeof *buf);
		if (!buf)
			return tsl_error_nomem();
	}
	memmove(&t->ms[at + 1], &t->ms[at], (size_t)(t->n - at) * sizeof t->ms[0]);
	memmove(&t->starts[at + 1], &t->starts[at],
		(size_t)(t->n - at) * sizeof t->starts[0]);
	for (size_t i = 0; i < t->count; i++)
		buf[i] = s->entries[i].start;
	t->ms[at] = m;
	t->starts[at] = buf;
	t->n++;
	return TSL_OK;
}

static int list_top_run(tessel_schedule *s, int *found, const tsl_stage *st,
			list_top *top)
{
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	int64_t best_makespan = INT64_MAX;
	int rc = TSL_OK;
	*found = 0;
	/* a V pipeline's rounds first (none when the graph is no such
	 * pipeline) */
	if (!rc) {
		int vfound = 0;
		rc = tsl_vshape_schedule(s, &vfound, dl);
		if (rc == TESSEL_ETIMEOUT)
			rc = TSL_OK; /* the rules may still find one */
		if (!rc && vfound) {
			best_makespan = tsl_schedule_makespan(s);
			*found = 1;
			rc = top_offer(top, s);
		}
	}
	/* a pipeline of one stage per device by the Zero Bubble authors'
	 * greedy (none when the graph is no such pipeline) */
	if (!rc) {
		int hfound = 0;
		rc = tsl_hshape_schedule(s, &hfound, dl);
		if (rc == TESSEL_ETIMEOUT)
			rc = TSL_OK; /* the rules may still find one */
		int64_t m = !rc && hfound ? tsl_schedule_makespan(s) : INT64_MAX;
		if (m < best_makespan) {
			best_makespan = m;
			*found = 1;
		}
		if (m < INT64_MAX)
			rc = top_offer(top, s);
	}
	/* an interleaved pipeline's order (none when the graph is no such
	 * pipeline) */
	if (!rc) {
		int ifound = 0;
		rc = tsl_interleaved_schedule(s, &ifound, dl);
		if (rc == TESSEL_ETIMEOUT)
			rc = TSL_OK; /* the rules may still find one */
		int64_t m = !rc && ifound ? tsl_schedule_makespan(s) : INT64_MAX;
		if (m < best_makespan) {
			best_makespan = m;
			*found = 1;
		}
		if (m < INT64_MAX)
			rc = top_offer(top, s);
	}
	/* the best rule: when it won, or (in heuristic mode, whose other
	 * phases do not make up for it) also when the V rounds or the
	 * interleaved order won */
	int rule_won = 0, nbest = 0;
	/* the most memory a rule held on a device (without limits, the caps
	 * are those under it: those of a limit no rule reaches) */
	int64_t rules_high = 0;
	int ranked[TSL_LIST_TIGHTER];
	int64_t ranked_makespan[TSL_LIST_TIGHTER];
	for (int r = 0; r < TSL_LIST_NRULES && !rc; r++) {
		if (*found && tsl_deadline_left_ms(dl) <= 0)
			break;
		int64_t high = 0;
		rc = list_scaled(s, bnd, &tsl_list_rules[r], dl, INT64_MAX, &high);
		if (!rc && high > rules_high)
			rules_high = high;
		if (rc == TESSEL_EINFEASIBLE || (rc == TESSEL_ETIMEOUT && *found)) {
			rc = TSL_OK;
			continue;
		}
		if (rc)
			break;
		int64_t m = tsl_schedule_makespan(s);
		/* the TSL_LIST_TIGHTER shortest rules (ties: the earlier) */
		int at = nbest < TSL_LIST_TIGHTER ? nbest : TSL_LIST_TIGHTER - 1;
		if (nbest == TSL_LIST_TIGHTER && m >= ranked_makespan[at])
			at = -1;
		for (; at > 0 && ranked_makespan[at - 1] > m; at--) {
			ranked[at] = ranked[at - 1];
			ranked_makespan[at] = ranked_makespan[at - 1];
		}
		if (at >= 0) {
			ranked[at] = r;
			ranked_makespan[at] = m;
			if (nbest < TSL_LIST_TIGHTER)
				nbest++;
		}
		if (m < best_makespan) {
			best_makespan = m;
			*found = 1;
			rule_won = 1;
		}
		rc = top_offer(top, s);
	}
	if (!rule_won && !(st->opts && st->opts->fast))
		nbest = 0;
	/* the best rules again under tighter limits: a greedy rule may start
	 * more forwards than pay when memory lets it, so a looser limit
	 * would give a longer schedule than a tighter one (where the tighter
	 * limit makes the rule beat the V rounds, too). The caps are points
	 * of a grid that does not depend on the limits (tighter_caps): a
	 * looser limit tries the caps a tighter one tried, but for the
	 * lowest, so that more memory seldom loses what less finds. Cap by
	 * cap (every rule under the largest first), within half the work
	 * left when they begin: the rest is the improvement's (list_candidate
	 * in search_graph.c), which a looser limit, with more caps, would otherwise
	 * lose to them. */
	int64_t caps[TSL_LIST_CAPS];
	int ncaps = 0, limited = 0;
	int64_t largest = 0;
	for (int d = 0; d < s->graph->ndevices; d++) {
		int64_t lim = s->graph->memory_limit[d];
		limited |= lim != TESSEL_UNLIMITED;
		if (lim != TESSEL_UNLIMITED && lim > largest)
			largest = lim;
	}
	if (limited)
		ncaps = tighter_caps(caps, largest);
	else
		ncaps = tighter_caps(caps, rules_high);
	tsl_deadline half;
	const tsl_deadline *tdl = dl;
	if (dl && nbest > 0 && ncaps > 0) {
		int64_t left = tsl_work_left(dl);
		half = *dl;
		if (left != INT64_MAX)
			half.work_end = tsl_work_end_after(dl, left / 2 > 0 ? left / 2 : 1);
		tdl = &half;
	}
	for (int k = 0; k < ncaps && !rc; k++)
		for (int r = 0; r < nbest && !rc; r++) {
			if (tsl_deadline_left_ms(tdl) <= 0)
				return TSL_OK;
			rc = list_scaled(s, bnd, &tsl_list_rules[ranked[r]], tdl,
					 caps[k], NULL);
			if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT) {
				rc = TSL_OK;
				continue;
			}
			if (!rc)
				rc = top_offer(top, s);
		}
	return rc;
}

int tsl_list_top(tessel_schedule *s, int *found, const tsl_stage *st,
		 int64_t **more, int *nmore)
{
	list_top top = {0};
	top.count = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	int rc = list_top_run(s, found, st, &top);
	*found = !rc && top.n > 0;
	if (*found)
		for (size_t i = 0; i < top.count; i++)
			s->entries[i].start = top.starts[0][i];
	if (nmore)
		*nmore = 0;
	for (int i = 1; i < top.n && !rc && more && nmore; i++) {
		more[(*nmore)++] = top.starts[i];
		top.starts[i] = NULL;
	}
	for (int i = 0; i < top.n; i++)
		tsl_free(top.starts[i]);
	return rc;
}

int tsl_list_best(tessel_schedule *s, int *found, const tsl_stage *st)
{
	return tsl_list_top(s, found, st, NULL, NULL);
}
