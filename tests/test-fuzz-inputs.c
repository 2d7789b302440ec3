/* Replays fuzzing inputs without libFuzzer: every file named on the command
 * line (or found in a directory named there, or in the directories listed,
 * separated by ':', in TESSEL_FUZZ_INPUTS) goes through the three checks of
 * the fuzz targets (fuzz/fuzz_checks.h): placement JSON round trip,
 * schedule JSON round trip, graph API program. Exit status 1 when any check
 * reports a finding. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_checks.h"
#include "helpers.h"
#include "tessel.h"

static int nfiles, nbad;

static void run_file(const char *path)
{
	size_t len = 0;
	uint8_t *buf = (uint8_t *)th_read_file(path, &len);
	if (!buf) {
		fprintf(stderr, "%s: cannot read\n", path);
		nbad++;
		return;
	}
	int bad = fuzz_check_placement(buf, len);
	bad |= fuzz_check_schedule(buf, len);
	bad |= fuzz_check_graph(buf, len);
	tessel_error_clear();
	free(buf);
	nfiles++;
	if (bad) {
		fprintf(stderr, "FAIL %s\n", path);
		nbad++;
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: no such file or directory\n", path);
		nbad++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: cannot read the directory\n", path);
		nbad++;
		return;
	}
	char **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		size_t sz = strlen(path) + strlen(e->d_name) + 2;
		names[count] = malloc(sz);
		if (!names[count])
			break;
		snprintf(names[count], sz, "%s/%s", path, e->d_name);
		count++;
	}
	closedir(d);
	if (count)
		qsort(names, count, sizeof *names, cmp_names);
	for (size_t i = 0; i < count; i++) {
		run_path(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		run_path(argv[i]);
	const char *env = getenv("TESSEL_FUZZ_INPUTS");
	if (env && *env) {
		char *list = strdup(env);
		for (char *save = NULL, *dir = list ? strtok_r(list, ":", &save) : NULL;
		     dir; dir = strtok_r(NULL, ":", &save))
			run_path(dir);
		free(list);
	}
	printf("%d input(s), %d failure(s)\n", nfiles, nbad);
	if (nfiles == 0) {
		fprintf(stderr, "no inputs: pass files or directories, or set TESSEL_FUZZ_INPUTS\n");
		return 1;
	}
	return nbad ? 1 : 0;
}
