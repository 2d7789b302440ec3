/* The schedule as the CSV of torch.distributed.pipelining.
 *
 *   0F0,0F1,0B0,0F2,0B1,...
 *   1F0,1B0,1F1,1B1,...
 *
 * One row per rank (device) 0 .. D-1, the rank's actions in execution order
 * separated by commas, as _PipelineScheduleRuntime._load_csv reads them. A
 * compute action is "{stage}{F|B|I|W}{micro-batch}": F a forward, B a full
 * backward, I the input-gradient part of a split backward (a backward whose
 * stage also has weight blocks), W the weight-gradient part.
 *
 * With communication (PyTorch's "compute_comms" format) each forward is
 * preceded by "{stage}RECV_F{mb}" when its input comes from another rank and
 * followed by "{stage}SEND_F{mb}" when its output goes to another rank;
 * backwards likewise with RECV_B / SEND_B. The spelling follows PyTorch's
 * _Action.__repr__ (stage, computation type, micro-batch: "3SEND_F1") and
 * _action_regex "(\d+)(F|I|B|W|UNSHARD|RESHARD|SEND_F|RECV_F|SEND_B|RECV_B)(\d*)".
 *
 * PyTorch's model: every block belongs to a stage, every stage to one rank,
 * and a stage's activations go to the next stage only (gradients to the
 * previous one). Graphs outside that model give TESSEL_EUNSUPPORTED. */
#include <stdio.h>

#include "error.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

/* Communication needs of a block (the same in every micro-batch). */
enum {
	COMM_RECV_F = 1,
	COMM_RECV_B = 2,
	COMM_SEND_F = 4,
	COMM_SEND_B = 8
};

typedef struct torch_map {
	const tessel_graph *g;
	int nstages;
	int *stage_dev;       /* rank of each stage, -1 while unseen */
	int *stage_gid;       /* the block that set stage_dev (messages) */
	unsigned char *has_weight; /* per stage: it has weight blocks */
	unsigned char *comm;  /* per block: COMM_* bits */
} torch_map;

static void map_release(torch_map *m)
{
	tsl_free(m->stage_dev);
	tsl_free(m->stage_gid);
	tsl_free(m->has_weight);
	tsl_free(m->comm);
}

/* Stages and ranks: each block on one device, with a stage; each stage on
 * one device. */
static int map_stages(torch_map *m)
{
	const tessel_graph *g = m->g;
	int maxstage = -1;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *blk = &g->blocks[b];
		if (blk->ndevices != 1)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: block \"%s\" occupies %d devices; "
					 "PyTorch runs each stage on one rank",
					 blk->name, blk->ndevices);
		if (blk->stage < 0)
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: block \"%s\" has no stage "
					 "(set one with tessel_graph_set_stage)",
					 blk->name);
		if (blk->stage > maxstage)
			maxstage = blk->stage;
	}
	m->nstages = maxstage + 1;
	size_t n = (size_t)m->nstages;
	m->stage_dev = tsl_reallocarray(NULL, n ? n : 1, sizeof *m->stage_dev);
	m->stage_gid = tsl_reallocarray(NULL, n ? n : 1, sizeof *m->stage_gid);
	m->has_weight = tsl_calloc(n ? n : 1, 1);
	m->comm = tsl_calloc(g->nblocks > 0 ? (size_t)g->nblocks : 1, 1);
	if (!m->stage_dev || !m->stage_gid || !m->has_weight || !m->comm)
		return tsl_error_nomem();
	for (size_t s = 0; s < n; s++)
		m->stage_dev[s] = -1;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *blk = &g->blocks[b];
		int s = blk->stage, d = blk->devices[0];
		if (m->stage_dev[s] < 0) {
			m->stage_dev[s] = d;
			m->stage_gid[s] = b;
		} else if (m->stage_dev[s] != d) {
			return tsl_error(TESSEL_EUNSUPPORTED,
					 "torch CSV: stage %d is on device %d (block \"%s\") "
					 "and on device %d (block \"%s\"); PyTorch runs "
					 "each stage on one rank",
					 s, m->stage_dev[s],
					 g->blocks[m->stage_gid[s]].name, d,
					 blk->name);
		}
		if (blk->kind == TESSEL_KIND_WEIGHT)
			m->has_weight[s] = 1;
	}
	return TSL_OK;
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
			if (pb->devices[0] == cb->devices[0])
				continue;
			if (pb->kind == TESSEL_KIND_FORWARD
			    && cb->kind == TESSEL_KIND_FORWARD
			    && cb->stage == pb->stage + 1) {
				m->comm[p] |= COMM_SEND_F;
				m->comm[c] |= COMM_RECV_F;
			} else if (pb->kind == TESSEL_KIND_BACKWARD
				   && cb->kind == TESSEL_KIND_BACKWARD
				   && cb->stage == pb->stage - 1) {
				m->comm[p] |= COMM_SEND_B;
				m->comm[c] |= COMM_RECV_B;
			} else {
				return tsl_error(TESSEL_EUNSUPPORTED,
						 "torch CSV: the dependency of block \"%s\" "
						 "(%s, stage %d) on block \"%s\" (%s, stage %d) "
						 "crosses devices; PyTorch only sends forward "
						 "activations to the next stage and backward "
						 "gradients to the previous one",
						 cb->name, tsl_kind_name(cb->kind), cb->stage,
						 pb->name, tsl_kind_name(pb->kind), pb->stage);
			}
		}
	}
	return TSL_OK;
}

/* Every (block, micro-batch) must be placed: PyTorch runs them all. */
static int check_placed(const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	for (int64_t mid = 0; mid < s->nmicros; mid++)
		for (int b = 0; b < g->nblocks; b++)
			if (tsl_entry_at(s, b, mid)->start < 0)
				return tsl_error(TESSEL_EINVAL,
						 "torch CSV: block \"%s\" of micro-batch %lld "
						 "is not placed",
						 g->blocks[b].name, (long long)mid);
	return TSL_OK;
}

static char action_letter(const torch_map *m, const tsl_block *blk)
{
	switch (blk->kind) {
	case TESSEL_KIND_FORWARD: return 'F';
	case TESSEL_KIND_WEIGHT: return 'W';
	default: return m->has_weight[blk->stage] ? 'I' : 'B';
	}
}

static void put_action(tsl_buf *b, int *first, int stage, const char *what,
		       int64_t mid)
{
	tsl_buf_printf(b, "%s%d%s%lld", *first ? "" : ",", stage, what,
		       (long long)mid);
	*first = 0;
}

static int put_rank(tsl_buf *b, const torch_map *m, const tessel_schedule *s,
		    int d, int with_comms)
{
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	int first = 1;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		const tsl_block *blk = &m->g->blocks[e->gid];
		int comm = with_comms ? m->comm[e->gid] : 0;
		char what[2] = {action_letter(m, blk), '\0'};
		if (comm & COMM_RECV_F)
			put_action(b, &first, blk->stage, "RECV_F", e->mid);
		if (comm & COMM_RECV_B)
			put_action(b, &first, blk->stage, "RECV_B", e->mid);
		put_action(b, &first, blk->stage, what, e->mid);
		if (comm & COMM_SEND_F)
			put_action(b, &first, blk->stage, "SEND_F", e->mid);
		if (comm & COMM_SEND_B)
			put_action(b, &first, blk->stage, "SEND_B", e->mid);
	}
	tessel_iter_free(it);
	tsl_buf_puts(b, "\n");
	return TSL_OK;
}

TESSEL_API int tessel_schedule_to_torch_csv(char **out,
					    const tessel_schedule *schedule,
					    int with_comms)
{
	static const char fn[] = "tessel_schedule_to_torch_csv";
	if (!out)
		return tsl_error(TESSEL_EINVAL, "%s: out is NULL", fn);
	*out = NULL;
	if (!schedule)
		return tsl_error(TESSEL_EINVAL, "%s: schedule is NULL", fn);
	if (with_comms != 0 && with_comms != 1)
		return tsl_error(TESSEL_EINVAL,
				 "%s: with_comms must be 0 or 1, got %d", fn,
				 with_comms);
	torch_map m = {.g = schedule->graph};
	int rc = map_stages(&m);
	if (!rc && with_comms)
		rc = map_comms(&m);
	if (!rc)
		rc = check_placed(schedule);
	tsl_buf b;
	tsl_buf_init(&b);
	for (int d = 0; d < m.g->ndevices && !rc; d++)
		rc = put_rank(&b, &m, schedule, d, with_comms);
	map_release(&m);
	return tsl_buf_finish(out, &b, rc);
}
