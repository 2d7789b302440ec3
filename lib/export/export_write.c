/* Stage: export. The streamed exports (tessel_schedule_write): each
 * format's writer (export_*.c, schedule_json.c) fills a tsl_buf whose sink
 * is the caller's writer, so the text goes out in pieces of
 * TSL_BUF_PIECE bytes as it is made instead of as one string.
 * Contract: the same text as the matching tessel_schedule_to_* function,
 * byte for byte; its checks run before the first piece is written. */
#include <math.h>

#include "error.h"
#include "export_actions.h"
#include "export_svg.h"
#include "export_text.h"
#include "export_torch.h"
#include "export_trace.h"
#include "schedule_json_writer.h"
#include "util.h"

static int write_format(tsl_buf *b, const tessel_schedule *s,
			tessel_format format, double step_us, const char *fn)
{
	switch (format) {
	case TESSEL_FORMAT_TEXT:
		return tsl_write_text(b, s, fn);
	case TESSEL_FORMAT_JSON:
		return tsl_write_schedule_json(b, s);
	case TESSEL_FORMAT_ACTIONS:
		return tsl_write_actions_json(b, s, fn);
	case TESSEL_FORMAT_TORCH:
		return tsl_write_torch_csv(b, s, 0, fn);
	case TESSEL_FORMAT_TORCH_COMMS:
		return tsl_write_torch_csv(b, s, 1, fn);
	case TESSEL_FORMAT_TRACE:
		return tsl_write_trace_json(b, s, step_us, fn);
	case TESSEL_FORMAT_SVG:
		return tsl_write_svg(b, s, fn);
	}
	return tsl_error(TESSEL_EINVAL, "%s: unknown format %d", fn,
			 (int)format);
}

TESSEL_API int tessel_schedule_write(const tessel_schedule *schedule,
				     tessel_format format, double step_us,
				     tessel_write_fn write, void *payload)
{
	static const char fn[] = "tessel_schedule_write";
	TSL_CHECK_ARG(schedule, fn, "schedule");
	TSL_CHECK_ARG(write, fn, "write");
	if ((int)format < TESSEL_FORMAT_TEXT || (int)format > TESSEL_FORMAT_SVG)
		return tsl_error(TESSEL_EINVAL, "%s: unknown format %d", fn,
				 (int)format);
	if (format != TESSEL_FORMAT_TRACE && step_us != 0)
		return tsl_error(TESSEL_EINVAL,
				 "%s: step_us is for the trace format only (0 "
				 "for the others), got %g", fn, step_us);
	tsl_buf b;
	tsl_buf_stream(&b, write, payload);
	int rc = write_format(&b, schedule, format, step_us, fn);
	return tsl_buf_stream_end(&b, rc);
}
