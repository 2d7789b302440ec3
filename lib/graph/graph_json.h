/* Internal: the placement JSON of graph_json.c as jansson values, for the
 * schedule JSON, which holds a placement. */
#ifndef TESSEL_GRAPH_JSON_H
#define TESSEL_GRAPH_JSON_H

#include "graph.h"
#include "json_util.h"

/* Build and validate a graph from a parsed placement object. Errors name
 * the block (index and name) and the field. *out: new, NULL on error. */
int tsl_graph_from_jansson(tessel_graph **out, const json_t *root);

/* The placement object of a graph. *out: new reference. TESSEL_EINVAL if
 * a block name is not valid UTF-8, TESSEL_ENOMEM. */
int tsl_graph_to_jansson(json_t **out, const tessel_graph *g);

#endif
