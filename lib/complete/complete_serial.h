/* Internal: one micro-batch at a time, the schedule of least memory
 * (complete_serial.c). */
#ifndef TESSEL_COMPLETE_SERIAL_H
#define TESSEL_COMPLETE_SERIAL_H

#include <stdint.h>

#include "budget.h"
#include "graph.h"
#include "schedule.h"

/* The order of one micro-batch's blocks that needs the least memory of the
 * orders tried (order: nblocks gids), and the memory each device needs
 * when nmicros micro-batches run one after another in it (need: ndevices
 * values, each >= 0). TESSEL_ENOMEM, TESSEL_ECYCLE. */
int tsl_serial_order(int *order, int64_t *need, const tessel_graph *g,
		     int64_t nmicros);

/* Whether need (from tsl_serial_order) fits every device's limit of g. */
int tsl_serial_fits(const tessel_graph *g, const int64_t *need);

/* Fill the empty schedule s: every device runs its instances in the order
 * (micro-batch, position in `order`), each as early as its dependencies
 * (with their latencies) and its devices allow. Its memory on each device
 * is then what tsl_serial_order said. TESSEL_ETIMEOUT at dl's hard end,
 * TESSEL_ENOMEM. */
int tsl_serial_schedule(tessel_schedule *s, const int *order,
			const tsl_deadline *dl);

#endif
