/* The costs of a model profile's layers (model.h): as measured on one
 * device, and on t devices from the layer's tensor-parallel cost, for the
 * exploration of placements. */
#include "model.h"

#include "error.h"
#include "util.h"

static const tsl_tp *layer_tp(const tessel_model *m, int i)
{
	return m->layers[i].tp.given ? &m->layers[i].tp : &m->tp;
}

int tsl_model_layer_tp(const tessel_model *m, int i)
{
	return layer_tp(m, i)->given;
}

int tsl_model_all_tp(const tessel_model *m)
{
	for (int i = 0; i < m->nlayers; i++)
		if (!tsl_model_layer_tp(m, i))
			return 0;
	return 1;
}

double tsl_model_layer_time(const tessel_model *m, int i, int t,
			    tsl_pass pass)
{
	const tsl_layer *L = &m->layers[i];
	double one = pass == TSL_PASS_FORWARD ? L->f
		     : pass == TSL_PASS_BACKWARD ? L->b : L->w;
	if (t <= 1)
		return one;
	const tsl_tp *tp = layer_tp(m, i);
	double extra = pass == TSL_PASS_WEIGHT ? 0 : tp->allreduce;
	for (int k = 0; k < tp->ntimes; k++)
		if (tp->times[k].devices == t) {
			const tsl_tp_time *x = &tp->times[k];
			double given = pass == TSL_PASS_FORWARD ? x->f
				       : pass == TSL_PASS_BACKWARD ? x->b : x->w;
			if (given >= 0)
				return given + extra;
			break; /* not measured: from the efficiency */
		}
	if (one <= 0)
		return 0;
	return one / ((double)t * tp->efficiency) + extra;
}

static void tp_release(tsl_tp *tp)
{
	tsl_free(tp->times);
	tp->times = NULL;
	tp->ntimes = 0;
}

void tsl_model_release(tessel_model *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nlayers; i++) {
		tsl_free(m->layers[i].name);
		tsl_free(m->layers[i].after);
		tp_release(&m->layers[i].tp);
	}
	tsl_free(m->layers);
	tp_release(&m->tp);
	tsl_free(m->name);
	tsl_free(m->unit);
	tsl_free(m->memory_unit);
	tsl_free(m);
}

TESSEL_API void tessel_model_free(tessel_model *model)
{
	tsl_model_release(model);
}

TESSEL_API int tessel_model_get(int64_t *out, const tessel_model *model,
				tessel_model_attr attr)
{
	TSL_CHECK_ARG(out, "tessel_model_get", "out");
	*out = 0;
	TSL_CHECK_ARG(model, "tessel_model_get", "model");
	switch (attr) {
	case TESSEL_MODEL_DEVICES: *out = model->devices; return TSL_OK;
	case TESSEL_MODEL_LAYERS: *out = model->nlayers; return TSL_OK;
	case TESSEL_MODEL_MICRO_BATCHES: *out = model->micros; return TSL_OK;
	case TESSEL_MODEL_INFERENCE: *out = model->infer; return TSL_OK;
	}
	return tsl_error(TESSEL_EINVAL, "tessel_model_get: unknown attribute %d",
			 (int)attr);
}

TESSEL_API int tessel_model_units(const char **out_unit,
				  const char **out_memory_unit,
				  const tessel_model *model)
{
	if (out_unit)
		*out_unit = NULL;
	if (out_memory_unit)
		*out_memory_unit = NULL;
	TSL_CHECK_ARG(model, "tessel_model_units", "model");
	if (out_unit)
		*out_unit = model->unit;
	if (out_memory_unit)
		*out_memory_unit = model->memory_unit;
	return TSL_OK;
}
