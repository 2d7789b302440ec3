/* Allocation, strings, clock and a growable text buffer. */
#include "util.h"

#include "error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Allocation failure injection (tests only; see util.h). By count: the
 * number of allocations left before the one that fails; -1: never fail;
 * -2: the injected failure has happened. By site: the index, in the order
 * of their first allocation, of the call site whose first allocation
 * fails (-1: none), with the sites seen so far under a lock. */
static _Atomic long alloc_fail_left = -1;
static _Atomic long alloc_site_target = -1;
static _Atomic int alloc_site_hit;
#define TSL_ALLOC_SITES 4096
static pthread_mutex_t alloc_site_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *alloc_sites[TSL_ALLOC_SITES];
static long alloc_nsites;

void tsl_alloc_fail_after(long n)
{
	alloc_site_target = -1;
	alloc_site_hit = 0;
	alloc_fail_left = n < 0 ? -1 : n;
}

void tsl_alloc_fail_site(long k)
{
	pthread_mutex_lock(&alloc_site_lock);
	alloc_nsites = 0;
	alloc_fail_left = -1;
	alloc_site_hit = 0;
	alloc_site_target = k < 0 ? -1 : k;
	pthread_mutex_unlock(&alloc_site_lock);
}

int tsl_alloc_fail_triggered(void)
{
	return alloc_fail_left == -2 || alloc_site_hit;
}

/* By site: whether this allocation is the first of the target site. */
static int site_should_fail(const void *site)
{
	int fail = 0;
	pthread_mutex_lock(&alloc_site_lock);
	long k = 0;
	while (k < alloc_nsites && alloc_sites[k] != site)
		k++;
	if (k == alloc_nsites && k < TSL_ALLOC_SITES) {
		alloc_sites[alloc_nsites++] = site;
		if (k == alloc_site_target) {
			alloc_site_target = -1;
			alloc_site_hit = 1;
			fail = 1;
		}
	}
	pthread_mutex_unlock(&alloc_site_lock);
	return fail;
}

/* Whether the injected failure hits this allocation, made at `site`. */
static int alloc_should_fail(const void *site)
{
	if (alloc_site_target >= 0)
		return site_should_fail(site);
	long left = alloc_fail_left;
	while (left >= 0) {
		long next = left == 0 ? -2 : left - 1;
		if (atomic_compare_exchange_strong(&alloc_fail_left, &left, next))
			return left == 0;
	}
	return 0;
}

/* A large block (the arrays of a schedule's instances, of list
 * scheduling, of the validator: tens of megabytes at 10^6 instances) is
 * asked to be backed by huge pages where the system offers them on
 * request (Linux's transparent huge pages, "madvise" mode): its first
 * touch then faults once per 2 MiB instead of once per 4 KiB (a third of
 * the time a 64 MB array of entries took to fill). Only a hint: nothing
 * changes where it is refused. */
#define TSL_HUGE_MIN ((size_t)4 << 20)

static void *advise_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	if (p && size >= TSL_HUGE_MIN) {
		uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
		uintptr_t e = ((uintptr_t)p + size) & ~(uintptr_t)4095;
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	}
#else
	(void)size;
#endif
	return p;
}

static void *malloc_at(size_t size, const void *site)
{
	if (alloc_should_fail(site))
		return NULL;
	return advise_huge(malloc(size ? size : 1), size);
}

static void *realloc_at(void *ptr, size_t size, const void *site)
{
	if (alloc_should_fail(site))
		return NULL;
	return advise_huge(realloc(ptr, size ? size : 1), size);
}

void *tsl_malloc(size_t size)
{
	return malloc_at(size, __builtin_return_address(0));
}

void *tsl_calloc(size_t count, size_t size)
{
	if (alloc_should_fail(__builtin_return_address(0)))
		return NULL;
	if (count == 0 || size == 0)
		return calloc(1, 1);
	if (count > SIZE_MAX / size)
		return NULL;
	return advise_huge(calloc(count, size), count * size);
}

void *tsl_realloc(void *ptr, size_t size)
{
	return realloc_at(ptr, size, __builtin_return_address(0));
}

void *tsl_reallocarray(void *ptr, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return realloc_at(ptr, count * size, __builtin_return_address(0));
}

char *tsl_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc_at(n, __builtin_return_address(0));
	if (d)
		memcpy(d, s, n);
	return d;
}

void tsl_free(void *ptr)
{
	free(ptr);
}

TESSEL_API void tessel_free(void *ptr)
{
	free(ptr);
}

int64_t tsl_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void tsl_buf_init(tsl_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = 0;
	b->sink = NULL;
	b->sink_payload = NULL;
	b->sink_failed = 0;
}

void tsl_buf_stream(tsl_buf *b, tessel_write_fn sink, void *payload)
{
	tsl_buf_init(b);
	b->sink = sink;
	b->sink_payload = payload;
}

/* Hand the text gathered to the sink and start again. */
static void buf_drain(tsl_buf *b)
{
	if (b->failed || !b->sink || b->len == 0)
		return;
	if (b->sink(b->sink_payload, b->data, b->len) != 0) {
		b->failed = 1;
		b->sink_failed = 1;
	}
	b->len = 0;
	b->data[0] = '\0';
}

void tsl_buf_flush_point(tsl_buf *b)
{
	if (b->sink && b->len >= TSL_BUF_PIECE)
		buf_drain(b);
}

int tsl_buf_stream_end(tsl_buf *b, int rc)
{
	if (!rc)
		buf_drain(b);
	if (!rc && b->failed)
		rc = b->sink_failed
			     ? tsl_error(TESSEL_EIO, "the writer refused the output")
			     : tsl_error_nomem();
	tsl_buf_release(b);
	return rc;
}

static int buf_reserve(tsl_buf *b, size_t extra)
{
	if (b->failed)
		return -1;
	if (extra > SIZE_MAX / 2 - b->len) {
		b->failed = 1;
		return -1;
	}
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *d = realloc_at(b->data, cap, __builtin_return_address(0));
	if (!d) {
		b->failed = 1;
		return -1;
	}
	b->data = d;
	b->cap = cap;
	return 0;
}

void tsl_buf_append(tsl_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void tsl_buf_puts(tsl_buf *b, const char *s)
{
	tsl_buf_append(b, s, strlen(s));
}

void tsl_buf_printf(tsl_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof small) {
		tsl_buf_append(b, small, (size_t)n);
		return;
	}
	if (buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void tsl_buf_json_escaped(tsl_buf *b, const char *s)
{
	const char *run = s;
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		const char *esc = NULL;
		char hex[8];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (c < 0x20 || c == 0x7f) {
				snprintf(hex, sizeof hex, "\\u%04x", c);
				esc = hex;
			}
		}
		if (!esc)
			continue;
		tsl_buf_append(b, run, (size_t)(p - run));
		tsl_buf_puts(b, esc);
		run = p + 1;
	}
	tsl_buf_puts(b, run);
}

void tsl_buf_json_string(tsl_buf *b, const char *s)
{
	tsl_buf_puts(b, "\"");
	tsl_buf_json_escaped(b, s);
	tsl_buf_puts(b, "\"");
}

int64_t tsl_gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int tsl_digits(int64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

char *tsl_buf_take(tsl_buf *b)
{
	if (!b->failed && !b->data)
		buf_reserve(b, 0);
	if (b->failed) {
		tsl_buf_release(b);
		return NULL;
	}
	b->data[b->len] = '\0';
	char *d = b->data;
	tsl_buf_init(b);
	return d;
}

void tsl_buf_release(tsl_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = 0;
}

int tsl_buf_finish(char **out, tsl_buf *b, int rc)
{
	if (rc) {
		tsl_buf_release(b);
		return rc;
	}
	*out = tsl_buf_take(b);
	return *out ? TSL_OK : tsl_error_nomem();
}

int tsl_utf8_len(const unsigned char *p)
{
	int n;
	unsigned min;
	unsigned cp;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2, cp = p[0] & 0x1f, min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3, cp = p[0] & 0x0f, min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4, cp = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* (the noncharacters U+FFFE and U+FFFF are valid UTF-8 and JSON:
	 * only XML refuses them, which the SVG writer sees to) */
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int tsl_int_exact_double(long long v)
{
	if (v >= -(1LL << 53) && v <= (1LL << 53))
		return 1;
	double d = (double)v;
	/* (2^63 itself is beyond long long: not v) */
	if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
		return 0;
	return (long long)d == v;
}

int tsl_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = tsl_utf8_len(p);
		if (!n)
			return 0;
		p += n;
	}
	return 1;
}
