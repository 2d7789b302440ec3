/* The whole-search fuzz check (fuzz/fuzz_checks.h, fuzz_check_search)
 * without libFuzzer: COUNT inputs of 6 to 96 bytes from a fixed
 * pseudo-random sequence (the same inputs on every run), then every file
 * of the directories named after COUNT (seed corpus, regressions). Prints
 * the executions, the searches that returned a schedule and the findings;
 * exit status 1 on any finding.
 *
 *   test-fuzz-search COUNT [DIR...]
 *
 * SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_checks.h"
#include "helpers.h"
#include "tessel.h"

static long nruns, nbad;

static void run(const uint8_t *data, size_t len, const char *what)
{
	nruns++;
	if (fuzz_check_search(data, len)) {
		nbad++;
		fprintf(stderr, "FAIL %s:", what);
		for (size_t i = 0; i < len; i++)
			fprintf(stderr, " %02x", data[i]);
		fprintf(stderr, "\n");
	}
	tessel_error_clear();
}

static void run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return; /* no corpus yet */
	struct dirent *e;
	char path[4096];
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t len = 0;
		uint8_t *buf = (uint8_t *)th_read_file(path, &len);
		if (buf)
			run(buf, len, path);
		free(buf);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-fuzz-search COUNT [DIR...]\n");
		return 2;
	}
	long count = strtol(argv[1], NULL, 10);
	if (th_under_checker() && count > 15)
		count = 15; /* the same code paths, fewer inputs */
	uint64_t x = 0x2545f4914f6cdd1dull;
	uint8_t buf[96];
	char what[32];
	for (long i = 0; i < count; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t len = 6 + (size_t)(x % (sizeof buf - 5));
		for (size_t j = 0; j < len; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[j] = (uint8_t)(x >> 24);
		}
		snprintf(what, sizeof what, "input %ld", i);
		run(buf, len, what);
	}
	for (int a = 2; a < argc; a++)
		run_dir(argv[a]);
	printf("%ld executions: %ld searches, %ld schedules found and checked; "
	       "%ld findings\n", nruns, fuzz_search_ran, fuzz_search_found, nbad);
	return nbad ? 1 : 0;
}
