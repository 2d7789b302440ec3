/* Stage: export. The schedule as the CSV of torch.distributed.pipelining.
 *
 *   0F0,0F1,0B0,0F2,0B1,...
 *   1F0,1B0,1F1,1B1,...
 *
 * One row per rank (device) 0 .. D-1, the rank's actions in execution order
 * separated by commas, as _PipelineScheduleRuntime._load_csv reads them. A
 * compute action is "{stage}{F|B|I|W}{micro-batch}": F a forward, B a full
 * backward, I the input-gradient part of a split backward (a backward whose
 * stage also has a weight block), W the weight-gradient part.
 *
 * With communication (PyTorch's "compute_comms" format):
 *   - "{stage}SEND_F{mb}" / "{stage}SEND_B{mb}" when a forward's output goes
 *     to the next stage on another rank / a backward's input gradient to the
 *     previous stage on another rank, at the step the producer finishes;
 *   - "{stage}RECV_F{mb}" / "{stage}RECV_B{mb}" on the consumer's rank,
 *     posted as early as the producer allows: at the step the producer
 *     finishes (the step of its send), not just before the consumer. This is
 *     where PyTorch's own lowering (_add_send_recv) puts a receive: on the
 *     receiver's list when the sender computes, so that the transfer
 *     overlaps the receiver's compute;
 *   - "{stage}REDUCE_GRAD" after the last backward-like action of the stage
 *     (its N-th B, or its N-th W when the backward is split), as PyTorch's
 *     _add_reduce_grad puts it: the runtime scales the gradients by 1/N
 *     and runs the data-parallel reduction there.
 * Actions of one step: sends, then REDUCE_GRAD, then receives, then the
 *   - "{stage}UNSHARD" / "{stage}RESHARD" (FSDP's all-gather of a stage's
 *     parameters and their release; no-ops in PyTorch's runtime for a stage
 *     without FSDP), each once per stage: the first three stages of a rank
 *     (by first compute; PyTorch's _add_unshard_reshard keeps three active)
 *     unshard at the start of its row, a later one when the stage three
 *     before it reshards, or just before its own first compute when that
 *     is earlier (then more than three are unsharded for a while: a stage
 *     is never resharded and gathered again within a step); a stage
 *     reshards just after its REDUCE_GRAD (its last compute).
 * Actions of one step: sends, then REDUCE_GRAD, RESHARD, UNSHARD, then
 * receives, then the compute that starts at that step. The plain format
 * has none of REDUCE_GRAD, UNSHARD, RESHARD nor communication: PyTorch's
 * lowering adds them and refuses non-compute actions there.
 * The spelling follows _Action.__repr__ ("3SEND_F1", "0REDUCE_GRAD").
 *
 * Stages: the blocks' stage numbers when every block has one. When no
 * block has one they are derived: the forward blocks must form one chain
 * (stage = position in it), each backward block follows the chain back one
 * stage at a time (the backward after the last forward is the last stage),
 * a weight block takes its backward's stage. V-shapes (stage s and
 * 2D-1-s on one rank) and any other stage-to-rank mapping come out as the
 * placement gives them; PyTorch's _validate_schedule infers the mapping
 * from the CSV.
 *
 * PyTorch's model: one chain of stages, every stage on one rank, a stage's
 * activations go to the next stage only (gradients to the previous one),
 * and every stage runs a forward and a backward of every micro-batch
 * (_validate_schedule: "expected N total backwards"). Graphs outside it
 * give TESSEL_EUNSUPPORTED naming the block or stage: a block on several
 * devices, two pipelines (xshape, Chimera-like), a stage without a backward
 * (an inference placement), blocks with and without stages.
 *
 * Nor can the CSV say that an activation is recomputed or offloaded: a
 * schedule whose entries do not all keep their activation is refused
 * (TESSEL_EINVAL, naming the first such entry) rather than exported
 * without its choices. A graph that declares alternatives is fine; only
 * the choices of the schedule count.
 * Contract: every row holds its rank's compute actions in the schedule's
 * order, or the export fails before writing anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_torch.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

typedef struct torch_map {
	const tessel_graph *g;
	int nstages;
	int *stage;           /* stage of each block */
	int *stage_dev;       /* rank of each stage, -1 while unseen */
	int *stage_gid;       /* the block that set stage_dev (messages) */
	unsigned char *has_weight; /* per stage: it has a weight block */
	int *recv_from;       /* per block: producer it receives from, -1 */
	unsigned char *sends_to; /* per block: it sends its output (1) */
} torch_map;

static void map_release(torch_map *m)
{
	tsl_free(m->stage);
	tsl_free(m->stage_dev);
	tsl_free(m->stage_gid);
	tsl_free(m->has_weight);
	tsl_free(m->recv_from);
	tsl_free(m->sends_to);
}

/* The only dependency of block b of kind `kind`, -1 when none, -2 when
 * several. */
static int only_dep(const tessel_graph *g, int b, int kind)
{
	int found = -1;
	for (int i = 0; i < g->blocks[b].ndeps; i++) {
		int a = g->blocks[b].deps[i];
		if ((int)g->blocks[a].kind != kind)
			continue;
		if (found >= 0)
			return -2;
		found = a;
	}
	return found;
}

/* The first block of the one forward chain: -1 when there is no forward
 * block, -2 (error set) when forward blocks start several pipelines or
 * join. */
static int one_chain_root(const tessel_graph *g)
{
	int root = -1;
	for (int b = 0; b < g->nblocks; b++) {
		if (g->blocks[b].kind != TESSEL_KIND_FORWARD)
			continue;
		int d = only_dep(g, b, TESSEL_KIND_FORWARD);
		if (d == -2) {
			tsl_error(TESSEL_EUNSUPPORTED,
				  "torch CSV: forward block \"%s\" follows "
				  "several forward blocks; PyTorch runs one "
				  "chain of stages", g->blocks[b].name);
			return -2;
		}
		if (d != -1)
			continue;
		if (root >= 0) {
			tsl_error(TESSEL_EUNSUPPORTED,
				  "torch CSV: forward blocks \"%s\" and \"%s\" "
				  "each start a pipeline; PyTorch runs one chain "
				  "of stages (two pipelines, as in xshape, are two "
				  "schedules there)",
				  g->blocks[root].name, g->blocks[b].name);
			return -2;
		}
		root = b;
	}
	return root;
}

/* Stages of a graph none of whose blocks has one (see the top). */
static int derive_stages(torch_map *m)
{
	const tessel_graph *g = m->g;
	int n = g->nblocks;
	int root = one_chain_root(g);
	if (root < 0)
		return root == -2 ? TESSEL_EUNSUPPORTED
			: tsl_error(TESSEL_EUNSUPPORTED,
				    "torch CSV: the placement has no forward block");
	for (int b = 0; b < n; b++)
		m->stage[b] = -1;
	/* the chain from the root, one forward successor at a time */
	int cur = root, k = 0;
	m->stage[cur] = k++;
	for (;;) {
		int next = -1;
		for (int c = 0; c < n; c++) {
			if (g->blocks[c].kind != TESSEL_KIND_FORWARD
			    || only_dep(g, c, TESSEL_KIND_FORWARD) != cur)
				continue;
			if (next >= 0)
				return tsl_error(TESSEL_EUNSUPPORTED,
						 "torch CSV: forward block \"%s\" "
						 "feeds several forward blocks; "
						 "PyTorch runs one chain of stages",
						 g->blocks[cur].name);
			next = c;
		}
		if (next < 0)
			break;
		m->stage[next] = k++;
		cur = next;
	}
	int last = cur, nstages = k, progress = 1;
	while (progress) {
		progress = 0;
		for (int b = 0; b < n; b++) {
			const tsl_block *blk = &g->blocks[b];
			if (m->stage[b] >= 0 || blk->kind == TESSEL_KIND_FORWARD)
				continue;
			int bd = only_dep(g, b, TESSEL_KIND_BACKWARD);
			if (blk->kind == TESSEL_KIND_BACKWARD) {
				if (bd >= 0 && m->stage[bd] > 0)
					m->stage[b] = m->stage[bd] - 1;
				else if (bd == -1 && only_dep(g, b, TESSEL_KIND_FORWARD) == last)
					m->stage[b] = nstages - 1;
			} else if (bd >= 0 && m->stage[bd] >= 0) {
				m->stage[b] = m->stage[bd];
			}
			if (m->stage[b] >= 0)
				progress = 1;
		}
	}
	for (int b = 0; b < n; b++)
		if (m->stage[b] < 0)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: block \"%s\" has no stage and "
					 "none can be derived (forward blocks not "
					 "in the chain, or a backward that does not "
					 "follow it back one stage at a time)",
					 g->blocks[b].name);
	return TSL_OK;
}

/* Stages and ranks: each block on one device, with a stage; each stage on
 * one device, with a forward and a backward. */
/* Every block's stage: its own (every block has one), or derived from
 * the chains when none has; TESSEL_EUNSUPPORTED for a block on several
 * devices or a mix of blocks with and without a stage. */
static int block_stages(torch_map *m)
{
	const tessel_graph *g = m->g;
	int n = g->nblocks, with = 0;
	m->stage = tsl_reallocarray(NULL, n > 0 ? (size_t)n : 1, sizeof *m->stage);
	m->recv_from = tsl_reallocarray(NULL, n > 0 ? (size_t)n : 1,
					sizeof *m->recv_from);
	m->sends_to = tsl_calloc(n > 0 ? (size_t)n : 1, 1);
	if (!m->stage || !m->recv_from || !m->sends_to)
		return tsl_error_nomem();
	for (int b = 0; b < n; b++) {
		const tsl_block *blk = &g->blocks[b];
		m->recv_from[b] = -1;
		if (blk->ndevices != 1)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: block \"%s\" occupies %d devices; "
					 "PyTorch runs each stage on one rank",
					 blk->name, blk->ndevices);
		if (blk->stage >= 0)
			with++;
	}
	if (one_chain_root(g) == -2)
		return TESSEL_EUNSUPPORTED;
	if (with == 0)
		return derive_stages(m);
	for (int b = 0; b < n; b++) {
		if (g->blocks[b].stage < 0)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: block \"%s\" has no stage "
					 "while others have (set one with "
					 "tessel_graph_set_stage, or none to "
					 "have them derived)",
					 g->blocks[b].name);
		m->stage[b] = g->blocks[b].stage;
	}
	return TSL_OK;
}

/* Each stage's device (the one of its blocks, which must agree) and
 * whether it has a weight block; count[3 s + kind] counts its blocks of
 * each kind (at most one). */
static int stage_devices(torch_map *m, int *count)
{
	const tessel_graph *g = m->g;
	for (int s = 0; s < m->nstages; s++)
		m->stage_dev[s] = -1;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *blk = &g->blocks[b];
		int s = m->stage[b], d = blk->devices[0];
		int k = blk->kind == TESSEL_KIND_FORWARD ? 0
			: blk->kind == TESSEL_KIND_BACKWARD ? 1 : 2;
		if (++count[3 * s + k] > 1)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: stage %d has more than one %s "
					 "block (\"%s\"); PyTorch runs one of each "
					 "kind per stage and micro-batch",
					 s, tsl_kind_name(blk->kind), blk->name);
		if (m->stage_dev[s] < 0) {
			m->stage_dev[s] = d;
			m->stage_gid[s] = b;
		} else if (m->stage_dev[s] != d) {
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: stage %d is on device %d (block "
					 "\"%s\") and on device %d (block \"%s\"); "
					 "PyTorch runs each stage on one rank",
					 s, m->stage_dev[s],
					 g->blocks[m->stage_gid[s]].name, d,
					 blk->name);
		}
		if (blk->kind == TESSEL_KIND_WEIGHT)
			m->has_weight[s] = 1;
	}
	return TSL_OK;
}

/* Every stage 0 .. nstages-1 present, with a forward and a backward. */
static int check_stages(const torch_map *m, const int *count)
{
	for (int s = 0; s < m->nstages; s++) {
		if (m->stage_dev[s] < 0)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: no block has stage %d; PyTorch "
					 "numbers the stages 0 .. %d without gaps",
					 s, m->nstages - 1);
		if (!count[3 * s])
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: stage %d has no forward block",
					 s);
		if (!count[3 * s + 1])
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: stage %d has no backward block "
					 "(an inference placement?): PyTorch's "
					 "runtime loads a schedule only when every "
					 "stage runs a backward of every micro-batch "
					 "(_validate_schedule), so a forward-only "
					 "schedule cannot be given to it; export "
					 "the training placement", s);
	}
	return TSL_OK;
}

static int map_stages(torch_map *m)
{
	int rc = block_stages(m);
	if (rc)
		return rc;
	int maxstage = -1;
	for (int b = 0; b < m->g->nblocks; b++)
		if (m->stage[b] > maxstage)
			maxstage = m->stage[b];
	m->nstages = maxstage + 1;
	size_t ns = (size_t)m->nstages;
	m->stage_dev = tsl_reallocarray(NULL, ns ? ns : 1, sizeof *m->stage_dev);
	m->stage_gid = tsl_reallocarray(NULL, ns ? ns : 1, sizeof *m->stage_gid);
	m->has_weight = tsl_calloc(ns ? ns : 1, 1);
	int *count = tsl_calloc(3 * (ns ? ns : 1), sizeof *count);
	if (!m->stage_dev || !m->stage_gid || !m->has_weight || !count) {
		tsl_free(count);
		return tsl_error_nomem();
	}
	rc = stage_devices(m, count);
	if (!rc)
		rc = check_stages(m, count);
	tsl_free(count);
	return rc;
}

/* Communication of each block: a dependency that crosses devices is a
 * SEND_F/RECV_F pair (forward to the next stage's forward) or a
 * SEND_B/RECV_B pair (backward to the previous stage's backward). */
static int map_comms(torch_map *m)
{
	const tessel_graph *g = m->g;
	for (int c = 0; c < g->nblocks; c++) {
		const tsl_block *cb = &g->blocks[c];
		for (int i = 0; i < cb->ndeps; i++) {
			int p = cb->deps[i];
			const tsl_block *pb = &g->blocks[p];
			int ps = m->stage[p], cs = m->stage[c];
			if (pb->devices[0] == cb->devices[0])
				continue;
			if ((pb->kind == TESSEL_KIND_FORWARD
			     && cb->kind == TESSEL_KIND_FORWARD && cs == ps + 1)
			    || (pb->kind == TESSEL_KIND_BACKWARD
				&& cb->kind == TESSEL_KIND_BACKWARD
				&& cs == ps - 1)) {
				m->sends_to[p] = 1;
				m->recv_from[c] = p;
			} else {
				return tsl_error(TESSEL_EUNSUPPORTED,
						 "torch CSV: the dependency of block \"%s\" "
						 "(%s, stage %d) on block \"%s\" (%s, stage %d) "
						 "crosses devices; PyTorch only sends forward "
						 "activations to the next stage and backward "
						 "gradients to the previous one",
						 cb->name, tsl_kind_name(cb->kind), cs,
						 pb->name, tsl_kind_name(pb->kind), ps);
			}
		}
	}
	return TSL_OK;
}

/* One item of a rank's row with communication. */
enum { IT_SEND = 0, IT_REDUCE, IT_RESHARD, IT_UNSHARD, IT_RECV, IT_COMPUTE };

/* Stages of a rank unsharded from the start of its row (PyTorch's
 * _add_unshard_reshard keeps as many active). */
#define TORCH_ACTIVE_STAGES 3

typedef struct row_item {
	int64_t step;
	int cls;
	int gid;
	int64_t mid;
	int64_t tie; /* order of the compute on the device */
} row_item;

static int row_item_cmp(const void *pa, const void *pb)
{
	const row_item *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->tie != b->tie)
		return a->tie < b->tie ? -1 : 1;
	return 0;
}

static char action_letter(const torch_map *m, int gid)
{
	switch (m->g->blocks[gid].kind) {
	case TESSEL_KIND_FORWARD: return 'F';
	case TESSEL_KIND_WEIGHT: return 'W';
	default: return m->has_weight[m->stage[gid]] ? 'I' : 'B';
	}
}

static void put_action(tsl_buf *b, int *first, int stage, const char *what,
		       int64_t mid)
{
	tsl_buf_printf(b, "%s%d%s", *first ? "" : ",", stage, what);
	if (mid >= 0)
		tsl_buf_printf(b, "%lld", (long long)mid);
	*first = 0;
}

/* The last backward-like block of each stage: W when split, else B. */
static int ends_stage(const torch_map *m, int gid)
{
	int kind = m->g->blocks[gid].kind;
	if (kind == TESSEL_KIND_WEIGHT)
		return 1;
	return kind == TESSEL_KIND_BACKWARD && !m->has_weight[m->stage[gid]];
}

/* UNSHARD and RESHARD of each stage of the rank (items[0 .. *n-1], its
 * compute, send, receive and REDUCE_GRAD items): the stages in the order
 * of their first compute; the first TORCH_ACTIVE_STAGES unshard at the
 * row's start, each later one when the stage TORCH_ACTIVE_STAGES before it
 * reshards (or just before its own first compute, when that comes
 * earlier); a stage reshards just after its REDUCE_GRAD, that is after
 * its last compute. For a stage without FSDP both are no-ops in
 * PyTorch's runtime. */
static int add_unshard_reshard(row_item **items, size_t *n, size_t *cap,
			       const torch_map *m)
{
	int ns = m->nstages > 0 ? m->nstages : 1, nused = 0;
	int64_t *first = tsl_calloc((size_t)ns, sizeof *first);
	int64_t *last = tsl_calloc((size_t)ns, sizeof *last);
	int *gid = tsl_calloc((size_t)ns, sizeof *gid);
	int *used = tsl_calloc((size_t)ns, sizeof *used);
	int rc = !first || !last || !gid || !used ? tsl_error_nomem() : TSL_OK;
	for (int st = 0; st < ns && !rc; st++)
		first[st] = -1;
	for (size_t i = 0; i < *n && !rc; i++) {
		const row_item *r = &(*items)[i];
		int st = m->stage[r->gid];
		if (r->cls == IT_COMPUTE && (first[st] < 0 || r->step < first[st])) {
			if (first[st] < 0)
				used[nused++] = st;
			first[st] = r->step;
			gid[st] = r->gid;
		}
		if (r->step > last[st])
			last[st] = r->step;
	}
	/* stages by first compute (few per rank: insertion sort) */
	for (int a = 1; a < nused; a++)
		for (int b = a; b > 0 && first[used[b]] < first[used[b - 1]]; b--) {
			int t = used[b];
			used[b] = used[b - 1];
			used[b - 1] = t;
		}
	if (!rc && *n + 2 * (size_t)nused > *cap) {
		size_t want = *n + 2 * (size_t)nused;
		row_item *bigger = tsl_reallocarray(*items, want, sizeof **items);
		if (!bigger)
			rc = tsl_error_nomem();
		else {
			*items = bigger;
			*cap = want;
		}
	}
	for (int k = 0; k < nused && !rc; k++) {
		int st = used[k];
		int64_t at = -1;
		if (k >= TORCH_ACTIVE_STAGES) {
			at = last[used[k - TORCH_ACTIVE_STAGES]];
			if (at > first[st])
				at = first[st];
		}
		(*items)[(*n)++] = (row_item){at, IT_UNSHARD, gid[st], -1, k};
		(*items)[(*n)++] = (row_item){last[st], IT_RESHARD, gid[st], -1, k};
	}
	tsl_free(first);
	tsl_free(last);
	tsl_free(gid);
	tsl_free(used);
	return rc;
}

static int put_rank(tsl_buf *b, const torch_map *m, const tessel_schedule *s,
		    int d, int with_comms)
{
	const tessel_graph *g = m->g;
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, s, d);
	if (rc)
		return rc;
	size_t cap = 64, n = 0;
	row_item *items = tsl_reallocarray(NULL, cap, sizeof *items);
	int64_t *done = tsl_calloc(m->nstages > 0 ? (size_t)m->nstages : 1,
				   sizeof *done);
	if (!items || !done) {
		tsl_free(items);
		tsl_free(done);
		tessel_iter_free(it);
		return tsl_error_nomem();
	}
	const tessel_entry *e;
	int64_t order = 0;
	while (tessel_iter_next(&e, it) == TESSEL_OK && !rc) {
		int64_t start = e->start, finish = e->start + tsl_entry_span(s, e);
		row_item add[4];
		int na = 0;
		add[na++] = (row_item){start, IT_COMPUTE, e->gid, e->mid, order};
		if (with_comms) {
			int p = m->recv_from[e->gid];
			if (p >= 0) {
				const struct tessel_entry *pe = tsl_entry_at(s, p, e->mid);
				add[na++] = (row_item){pe->start + tsl_entry_span(s, pe),
						       IT_RECV, e->gid, e->mid,
						       order};
			}
			if (m->sends_to[e->gid])
				add[na++] = (row_item){finish, IT_SEND, e->gid,
						       e->mid, order};
			if (ends_stage(m, e->gid)
			    && ++done[m->stage[e->gid]] == s->nmicros)
				add[na++] = (row_item){finish, IT_REDUCE,
						       e->gid, -1, order};
		}
		order++;
		if (n + (size_t)na > cap) {
			cap *= 2;
			row_item *bigger = tsl_reallocarray(items, cap,
							    sizeof *items);
			if (!bigger) {
				rc = tsl_error_nomem();
				break;
			}
			items = bigger;
		}
		for (int i = 0; i < na; i++)
			items[n++] = add[i];
	}
	tessel_iter_free(it);
	if (!rc && with_comms)
		rc = add_unshard_reshard(&items, &n, &cap, m);
	if (!rc) {
		qsort(items, n, sizeof *items, row_item_cmp);
		int first = 1;
		for (size_t i = 0; i < n; i++) {
			const row_item *r = &items[i];
			int st = m->stage[r->gid];
			int fwd = g->blocks[r->gid].kind == TESSEL_KIND_FORWARD;
			char what[2] = {action_letter(m, r->gid), '\0'};
			switch (r->cls) {
			case IT_SEND:
				put_action(b, &first, st, fwd ? "SEND_F" : "SEND_B",
					   r->mid);
				break;
			case IT_REDUCE:
				put_action(b, &first, st, "REDUCE_GRAD", -1);
				break;
			case IT_RESHARD:
				put_action(b, &first, st, "RESHARD", -1);
				break;
			case IT_UNSHARD:
				put_action(b, &first, st, "UNSHARD", -1);
				break;
			case IT_RECV:
				put_action(b, &first, st, fwd ? "RECV_F" : "RECV_B",
					   r->mid);
				break;
			default:
				put_action(b, &first, st, what, r->mid);
				break;
			}
		}
		tsl_buf_puts(b, "\n");
	}
	tsl_free(items);
	tsl_free(done);
	return rc;
}

/* Whether block `from` is `to` or one of its ancestors: a walk back from
 * `to` (seen[] holds `gen` for the blocks met; stack has room for every
 * block); *budget counts the blocks visited, and the answer is 1 (no
 * verdict) once it is spent. */
static int reaches(const tessel_graph *g, int from, int to, unsigned *seen,
		   unsigned gen, int *stack, int64_t *budget)
{
	int top = 0;
	stack[top++] = to;
	seen[to] = gen;
	while (top > 0) {
		int b = stack[--top];
		if (b == from)
			return 1;
		if (--*budget < 0)
			return 1;
		for (int i = 0; i < g->blocks[b].ndeps; i++) {
			int d = g->blocks[b].deps[i];
			if (seen[d] != gen) {
				seen[d] = gen;
				stack[top++] = d;
			}
		}
	}
	return 0;
}

/* The order PyTorch runs a micro-batch's stages in must be one the
 * dependencies make: stage s's forward before stage s+1's, the last
 * forward before the last backward, stage s+1's backward before stage
 * s's, a stage's backward before its weight block. PyTorch lowers the
 * plain CSV by that order alone (_add_send_recv): a placement whose stage
 * numbers go against its dependencies would give a CSV that waits
 * forever. Checked for both formats; each pair by a walk back from the
 * later block, within a bound on the blocks visited (beyond it, no
 * verdict). */
#define TORCH_ORDER_VISITS ((int64_t)20000000)
static int map_order(const torch_map *m)
{
	const tessel_graph *g = m->g;
	int S = m->nstages, n = g->nblocks, rc = TSL_OK;
	size_t ns = (size_t)(S > 0 ? S : 1);
	int *fwd = tsl_reallocarray(NULL, ns, sizeof *fwd);
	int *bwd = tsl_reallocarray(NULL, ns, sizeof *bwd);
	int *wgt = tsl_reallocarray(NULL, ns, sizeof *wgt);
	unsigned *seen = tsl_calloc(n > 0 ? (size_t)n : 1, sizeof *seen);
	int *stack = tsl_reallocarray(NULL, n > 0 ? (size_t)n : 1, sizeof *stack);
	if (!fwd || !bwd || !wgt || !seen || !stack) {
		rc = tsl_error_nomem();
		goto out;
	}
	for (int s = 0; s < S; s++)
		fwd[s] = bwd[s] = wgt[s] = -1;
	for (int b = 0; b < n; b++) {
		int k = g->blocks[b].kind;
		int *at = k == TESSEL_KIND_FORWARD ? fwd
			  : k == TESSEL_KIND_BACKWARD ? bwd : wgt;
		at[m->stage[b]] = b;
	}
	int64_t budget = TORCH_ORDER_VISITS;
	unsigned gen = 0;
	for (int i = 0; i < 4 * S && !rc; i++) {
		int s = i / 4, from = -1, to = -1;
		const char *what = "";
		switch (i % 4) {
		case 0:
			if (s + 1 < S)
				from = fwd[s], to = fwd[s + 1];
			what = "a stage's forward before the next stage's";
			break;
		case 1:
			if (s + 1 == S)
				from = fwd[s], to = bwd[s];
			what = "the last stage's forward before its backward";
			break;
		case 2:
			if (s + 1 < S)
				from = bwd[s + 1], to = bwd[s];
			what = "a stage's backward before the previous stage's";
			break;
		default:
			from = bwd[s], to = wgt[s];
			what = "a stage's backward before its weight block";
			break;
		}
		if (from < 0 || to < 0)
			continue;
		if (++gen == 0) {
			memset(seen, 0, (size_t)n * sizeof *seen);
			gen = 1;
		}
		if (!reaches(g, from, to, seen, gen, stack, &budget))
			rc = tsl_error(TESSEL_EUNSUPPORTED,
				       "torch CSV: PyTorch runs %s, but block \"%s\" "
				       "(%s, stage %d) does not depend on block \"%s\" "
				       "(%s, stage %d): the stage numbers go against "
				       "the dependencies, and PyTorch would wait for "
				       "what the schedule runs later",
				       what, g->blocks[to].name,
				       tsl_kind_name(g->blocks[to].kind), m->stage[to],
				       g->blocks[from].name,
				       tsl_kind_name(g->blocks[from].kind), m->stage[from]);
	}
out:
	tsl_free(fwd);
	tsl_free(bwd);
	tsl_free(wgt);
	tsl_free(seen);
	tsl_free(stack);
	return rc;
}

/* The stages, the order PyTorch runs them in (both formats), and with
 * the communication actions the dependencies across ranks. */
static int check_graph(torch_map *m, int with_comms)
{
	int rc = map_stages(m);
	if (!rc)
		rc = map_order(m);
	if (!rc && with_comms)
		rc = map_comms(m);
	return rc;
}

TESSEL_API int tessel_graph_check_torch(const tessel_graph *graph,
					int with_comms)
{
	static const char fn[] = "tessel_graph_check_torch";
	TSL_CHECK_ARG(graph, fn, "graph");
	if (with_comms != 0 && with_comms != 1)
		return tsl_error(TESSEL_EINVAL,
				 "%s: with_comms must be 0 or 1, got %d", fn,
				 with_comms);
	/* an invalid graph (no blocks, a block on no device, a cycle):
	 * the validator's error, not what the CSV makes of it */
	int rc = tsl_graph_check_structure(graph);
	if (rc)
		return rc;
	torch_map m = {.g = graph};
	rc = check_graph(&m, with_comms);
	map_release(&m);
	return rc;
}

/* TESSEL_EINVAL naming the first entry (in entry order) that does not
 * keep its activation: the CSV has no action for its choice. */
static int check_choices(const tessel_schedule *s, const char *fn)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	for (size_t i = 0; i < n && s->nchoices > 0; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->choice == TESSEL_CHOICE_KEEP)
			continue;
		return tsl_error(TESSEL_EINVAL,
				 "%s: block \"%s\" of micro-batch %lld %s its "
				 "activation (choice \"%s\"); the torch CSV has "
				 "no action for recomputation or offload, so a "
				 "schedule is exported only when every entry "
				 "keeps its activation (search with "
				 "TESSEL_OPT_ALTERNATIVES = 0)",
				 fn, s->graph->blocks[e->gid].name,
				 (long long)e->mid,
				 e->choice == TESSEL_CHOICE_RECOMPUTE ? "recomputes"
								     : "offloads",
				 tessel_choice_name(e->choice));
	}
	return TSL_OK;
}

int tsl_write_torch_csv(tsl_buf *b, const tessel_schedule *schedule,
			int with_comms, const char *fn)
{
	TSL_CHECK_ARG(schedule, fn, "schedule");
	if (with_comms != 0 && with_comms != 1)
		return tsl_error(TESSEL_EINVAL,
				 "%s: with_comms must be 0 or 1, got %d", fn,
				 with_comms);
	torch_map m = {.g = schedule->graph};
	int rc = check_graph(&m, with_comms);
	if (!rc)
		rc = tsl_schedule_check_placed(schedule, fn);
	if (!rc)
		rc = check_choices(schedule, fn);
	for (int d = 0; d < m.g->ndevices && !rc && !b->failed; d++) {
		rc = put_rank(b, &m, schedule, d, with_comms);
		tsl_buf_flush_point(b);
	}
	map_release(&m);
	return rc;
}

TESSEL_API int tessel_schedule_to_torch_csv(char **out,
					    const tessel_schedule *schedule,
					    int with_comms)
{
	static const char fn[] = "tessel_schedule_to_torch_csv";
	TSL_CHECK_ARG(out, fn, "out");
	*out = NULL;
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = tsl_write_torch_csv(&b, schedule, with_comms, fn);
	return tsl_buf_finish(out, &b, rc);
}
