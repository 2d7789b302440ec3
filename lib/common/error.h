/* Internal: setting the calling thread's last error. */
#ifndef TESSEL_ERROR_H
#define TESSEL_ERROR_H

#include "tessel.h"

/* Record `code` with a formatted message as the thread's last error and
 * return `code`, so callers can write `return tsl_error(...)`. */
int tsl_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Shorthand for an allocation failure. */
int tsl_error_nomem(void);

/* TESSEL_EINVAL with "NAME is NULL", or "FN: NAME is NULL" when fn is not
 * NULL; returns TESSEL_EINVAL. */
int tsl_error_null(const char *fn, const char *name);

/* The argument check of the library's functions: return
 * tsl_error_null(fn, name) from the calling function when p is NULL. */
#define TSL_CHECK_ARG(p, fn, name)                                            \
	do {                                                                  \
		if (!(p))                                                     \
			return tsl_error_null((fn), (name));                  \
	} while (0)

/* Success: leaves the last error alone (like errno) and returns TESSEL_OK. */
#define TSL_OK TESSEL_OK

#endif
