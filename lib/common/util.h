/* Internal helpers shared by the library's files: allocation, strings, time. */
#ifndef TESSEL_UTIL_H
#define TESSEL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

/* Allocation wrappers; NULL on failure (the caller reports TESSEL_ENOMEM). */
void *tsl_malloc(size_t size);
void *tsl_calloc(size_t count, size_t size);
void *tsl_realloc(void *ptr, size_t size);
/* Array allocation with overflow check. */
void *tsl_reallocarray(void *ptr, size_t count, size_t size);
char *tsl_strdup(const char *s);
void tsl_free(void *ptr);

/* Test-only allocation failure injection, not exported from the shared
 * library (no TESSEL_API, not in libtessel.sym): with n >= 0 the n+1-th
 * allocation from now through the wrappers above or a tsl_buf growth fails
 * (only that one); n < 0: never fail. Process-wide; white-box tests link
 * libtessel_internal to use it. tsl_alloc_fail_triggered() tells whether
 * the injected failure has happened since the last tsl_alloc_fail_after. */
void tsl_alloc_fail_after(long n);
int tsl_alloc_fail_triggered(void);
/* The same by call site: with k >= 0 the first allocation made from the
 * k+1-th distinct call site (a statement calling one of the wrappers; the
 * sites counted in the order of their first allocation from now) fails,
 * only that one; k < 0: never fail. tsl_alloc_fail_after ends it.
 * Each allocating statement is failed once with far fewer runs than by
 * count. */
void tsl_alloc_fail_site(long k);

/* Greatest common divisor of a, b >= 0 (a when b is 0). */
int64_t tsl_gcd64(int64_t a, int64_t b);

/* Decimal digits of v >= 0 (1 for 0 .. 9). */
int tsl_digits(int64_t v);

/* Monotonic clock in microseconds. */
int64_t tsl_now_us(void);

/* Growable text buffer used by the text and JSON writers. With a sink
 * (tsl_buf_stream) the text goes out in pieces: at each flush point, once
 * TSL_BUF_PIECE bytes have gathered, they are handed to the sink and the
 * buffer starts again, so a writer never holds the whole document. */
typedef struct tsl_buf {
	char *data;
	size_t len;
	size_t cap;
	int failed; /* an allocation failed or the sink refused; the content
		     * is incomplete */
	tessel_write_fn sink; /* NULL: the text stays in data */
	void *sink_payload;
	int sink_failed;      /* the sink returned nonzero */
} tsl_buf;

#define TSL_BUF_PIECE ((size_t)1 << 16)

void tsl_buf_init(tsl_buf *b);
/* An empty buffer that hands its text to sink(payload, ...) in pieces. */
void tsl_buf_stream(tsl_buf *b, tessel_write_fn sink, void *payload);
/* A point where the writer no longer looks back at what it wrote: with a
 * sink, the text so far goes out once a piece has gathered. */
void tsl_buf_flush_point(tsl_buf *b);
/* End of a streamed writer: with rc an error, drop the buffer and return
 * rc; else hand what is left to the sink: TESSEL_OK, TESSEL_EIO when the
 * sink refused a piece, TESSEL_ENOMEM when an allocation failed. */
int tsl_buf_stream_end(tsl_buf *b, int rc);
void tsl_buf_append(tsl_buf *b, const char *s, size_t n);
void tsl_buf_puts(tsl_buf *b, const char *s);
void tsl_buf_printf(tsl_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append s with the escapes a JSON string needs (no quotes around): \", \\,
 * \b \f \n \r \t, other control characters as \u00XX; other bytes as they
 * are. */
void tsl_buf_json_escaped(tsl_buf *b, const char *s);
/* The same between double quotes: a JSON string. The one escaper of the
 * library (the JSON writers of json_util.c use it too). */
void tsl_buf_json_string(tsl_buf *b, const char *s);

/* Length of the valid UTF-8 sequence at p (1 .. 4), or 0 if invalid
 * (overlong, surrogate, above U+10FFFF, truncated). */
int tsl_utf8_len(const unsigned char *p);
/* Whether the integer v converts to a double without rounding. */
int tsl_int_exact_double(long long v);

/* Whether the NUL-terminated s is valid UTF-8. */
int tsl_utf8_valid(const char *s);

/* Hand the text over (NUL-terminated, release with tessel_free), or NULL
 * if an allocation failed (the buffer is released then). */
char *tsl_buf_take(tsl_buf *b);
void tsl_buf_release(tsl_buf *b);

/* End of a writer: with rc an error, release the buffer and return rc;
 * otherwise hand the text to *out (TESSEL_ENOMEM if an allocation failed). */
int tsl_buf_finish(char **out, tsl_buf *b, int rc);

#endif
