/* Error codes, their descriptions and the per-thread last error. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[1024];
static _Thread_local int last_code;

int tsl_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_message, sizeof last_message, fmt, ap);
	va_end(ap);
	last_code = code;
	return code;
}

int tsl_error_nomem(void)
{
	return tsl_error(TESSEL_ENOMEM, "out of memory");
}

TESSEL_API const char *tessel_error_last(void)
{
	return last_message;
}

TESSEL_API int tessel_error_last_code(void)
{
	return last_code;
}

TESSEL_API void tessel_error_clear(void)
{
	last_message[0] = '\0';
	last_code = TESSEL_OK;
}

TESSEL_API const char *tessel_strerror(int code)
{
	switch (code) {
	case TESSEL_OK: return "success";
	case TESSEL_ERROR: return "internal error";
	case TESSEL_EINVAL: return "invalid argument";
	case TESSEL_ENOMEM: return "out of memory";
	case TESSEL_ENOTFOUND: return "not found";
	case TESSEL_EEXISTS: return "already exists";
	case TESSEL_ECYCLE: return "dependency cycle";
	case TESSEL_EPARSE: return "malformed input";
	case TESSEL_EINFEASIBLE: return "no schedule satisfies the memory limits";
	case TESSEL_ETIMEOUT: return "time limit reached";
	case TESSEL_ECANCELLED: return "cancelled";
	case TESSEL_ESOLVER: return "solver failure";
	case TESSEL_EIO: return "input/output error";
	case TESSEL_EVIOLATION: return "schedule violates a rule";
	case TESSEL_EUNSUPPORTED: return "unsupported";
	case TESSEL_ERANGE: return "value out of range";
	case TESSEL_ITEROVER: return "iteration over";
	default: return "unknown error";
	}
}

TESSEL_API const char *tessel_version(void)
{
	return TESSEL_VERSION_STRING;
}

TESSEL_API int tessel_version_number(void)
{
	return TESSEL_VERSION_NUMBER;
}

int tsl_error_null(const char *fn, const char *name)
{
	if (fn)
		return tsl_error(TESSEL_EINVAL, "%s: %s is NULL", fn, name);
	return tsl_error(TESSEL_EINVAL, "%s is NULL", name);
}
