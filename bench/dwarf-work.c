/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwarf-work: CPU-bound work whose hot function is called from glibc's
 * qsort, for bench/dwarf.sh.  Built without frame pointers, as most
 * production code and Debian's libc are, so that only unwinding with call
 * frame information finds the callers:
 *
 *   main/worker_main -> sort_rounds -> qsort -> msort_with_tmp (recursive)
 *                                             -> compare_records   (hot)
 *                                  -> fill_records                 (~5%)
 *
 *   dwarf-work [--threads N] [--seconds S]
 *
 * N threads in all, the main thread included (default: the online CPUs),
 * each sorting for S seconds of wall-clock time (default 10).  Prints
 * "sorts=N" (arrays sorted, all threads) at the end.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECORDS 20000

struct record {
	uint64_t key;
	uint32_t group;
	uint32_t payload;
};

struct worker {
	pthread_t thread;
	double seconds;
	uint64_t state;
	uint64_t sorts;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Enough work per call that the comparator, not qsort, is the hot spot. */
__attribute__((noinline)) static int compare_records(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	uint64_t kx = x->key, ky = y->key;

	for (int i = 0; i < 8; i++) {
		kx = kx * 0x9e3779b97f4a7c15ULL + x->group;
		ky = ky * 0x9e3779b97f4a7c15ULL + y->group;
	}
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (kx > ky) - (kx < ky);
}

__attribute__((noinline)) static void fill_records(struct record *records, uint64_t *state)
{
	for (size_t i = 0; i < RECORDS; i++) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		records[i].key = *state;
		records[i].group = (uint32_t)(*state >> 60);
		records[i].payload = (uint32_t)i;
	}
}

__attribute__((noinline)) static void sort_rounds(struct worker *w)
{
	struct record *records = malloc(RECORDS * sizeof(*records));
	double end = now_s() + w->seconds;

	if (!records) {
		perror("dwarf-work");
		exit(1);
	}
	while (now_s() < end) {
		fill_records(records, &w->state);
		qsort(records, RECORDS, sizeof(*records), compare_records);
		w->sorts++;
	}
	free(records);
}

static void *worker_main(void *arg)
{
	sort_rounds(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	double seconds = 10;
	struct worker *workers;
	uint64_t sorts = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			threads = atol(argv[++i]);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else {
			fprintf(stderr, "Usage: dwarf-work [--threads N] [--seconds S]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 1024 || !(seconds > 0)) {
		fprintf(stderr, "dwarf-work: --threads 1..1024, --seconds > 0\n");
		return 2;
	}
	workers = calloc((size_t)threads, sizeof(*workers));
	if (!workers)
		return 1;
	for (long i = 0; i < threads; i++) {
		workers[i].seconds = seconds;
		workers[i].state = 0x2545f4914f6cdd1dULL * (uint64_t)(i + 1);
	}
	for (long i = 1; i < threads; i++)
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
			fprintf(stderr, "dwarf-work: cannot start thread %ld\n", i);
			return 1;
		}
	sort_rounds(&workers[0]);
	for (long i = 1; i < threads; i++)
		pthread_join(workers[i].thread, NULL);
	for (long i = 0; i < threads; i++)
		sorts += workers[i].sorts;
	printf("sorts=%llu\n", (unsigned long long)sorts);
	free(workers);
	return 0;
}
