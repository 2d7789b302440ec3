/* Internal layout of a model profile (doc/formats.md, "Model profile"):
 * the layers as measured, before any placement, and what a layer costs
 * when it runs on t devices. Read by model_json.c, used by the
 * exploration (explore*.c). */
#ifndef TESSEL_MODEL_H
#define TESSEL_MODEL_H

#include <stdint.h>

#include "tessel.h"

#define TSL_MODEL_MAX_LAYERS 10000
#define TSL_MODEL_MAX_MICROS 100000
#define TSL_MODEL_NAME_LEN 64

/* Measured times of a layer on `devices` devices (tensor_parallel.times). */
typedef struct tsl_tp_time {
	int devices;
	double f, b, w; /* b, w < 0: not given (from the efficiency) */
} tsl_tp_time;

/* How a layer runs on several devices; given 0: not known. */
typedef struct tsl_tp {
	int given;
	double efficiency;     /* 0 < e <= 1 */
	double allreduce;      /* added to forward and backward */
	tsl_tp_time *times;
	int ntimes;
} tsl_tp;

typedef struct tsl_layer {
	char *name;
	double f, b, w;        /* forward, backward (input gradient), weight */
	double activation;     /* kept from forward to backward */
	double parameters;     /* held all the time */
	int *after;            /* earlier layers it takes input from */
	int nafter;
	tsl_tp tp;             /* its own; tp.given 0: the model's */
} tsl_layer;

struct tessel_model {
	char *name;            /* "" when not given */
	char *unit;
	char *memory_unit;
	int devices;
	double memory;         /* per device */
	double transfer;
	int64_t micros;
	int infer;
	tsl_tp tp;             /* the default of every layer */
	tsl_layer *layers;
	int nlayers;
};

/* Which time of a layer. */
typedef enum tsl_pass {
	TSL_PASS_FORWARD = 0,
	TSL_PASS_BACKWARD = 1,
	TSL_PASS_WEIGHT = 2
} tsl_pass;

/* Whether layer i can run on t > 1 devices (its own cost or the model's). */
int tsl_model_layer_tp(const tessel_model *m, int i);

/* The time of `pass` of layer i on t devices (t = 1: as measured; t > 1:
 * from tensor_parallel, which must be known). */
double tsl_model_layer_time(const tessel_model *m, int i, int t,
			    tsl_pass pass);

/* Whether the model can run every layer on several devices. */
int tsl_model_all_tp(const tessel_model *m);

/* Release a model and all it owns (NULL: nothing). */
void tsl_model_release(tessel_model *m);

#endif
