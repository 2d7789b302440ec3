/* Internal layout of the options object. */
#ifndef TESSEL_OPTIONS_H
#define TESSEL_OPTIONS_H

#include <stdint.h>

#include "tessel.h"

#define TSL_NOPTIONS 8

struct tessel_options {
	int64_t value[TSL_NOPTIONS];
};

void tsl_options_defaults(tessel_options *o);

#endif
