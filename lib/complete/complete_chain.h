/* Internal: the stages of a forward-backward-weight chain, the shape the
 * Zero Bubble authors' schedulers take (complete_chain.c), recognised for
 * the H pipeline (complete_hshape.c) and the V pipeline
 * (complete_vshape.c). */
#ifndef TESSEL_COMPLETE_CHAIN_H
#define TESSEL_COMPLETE_CHAIN_H

#include "graph.h"

/* Whether g is a chain of S stages of forward, backward and weight
 * blocks: every block on a single device with at most one dependency;
 * one block without a dependency, a forward, F0; forwards F0 -> F1 ->
 * ... -> F(S-1); backwards in the reverse chain, B(S-1) after F(S-1),
 * B(s) after B(s+1); a weight block W(s) after B(s); each the first
 * unused successor of its kind that waits for its predecessor alone. The
 * devices are not looked at (the caller checks where the stages run),
 * nor whether g has other blocks (the caller compares g's block count
 * with 3 S). F, Bk, W (S entries each, the caller's) get the stages'
 * block indices when the chain is there. Returns 1 when it is, 0 when
 * not (F, Bk, W then partly written), TESSEL_ENOMEM. S >= 1. Time linear
 * in the blocks and dependencies. */
int tsl_chain_stages(int *F, int *Bk, int *W, const tessel_graph *g, int S);

#endif
