/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collector-work: a fixed amount of CPU-bound work, for bench/collector.sh.
 * tests/workload runs for a fixed wall-clock time; to measure the slowdown
 * a profiler causes we need the opposite: a fixed amount of work, whose
 * wall-clock time grows with whatever the profiler takes from it.
 *
 * The call structure is that of tests/workload, so the callchains are as
 * deep and the samples as big:
 *
 *   main/worker_main -> run_rounds -> burn_hot   60% of the iterations
 *                                  -> burn_warm  30%
 *                                  -> burn_cold  10%
 *
 * Options:
 *   --threads N       N threads in all, the main thread included (default 1)
 *   --rounds R        rounds of hot, warm, cold per thread (default 100)
 *   --calibrate S     run N threads for about S seconds and print the
 *                     rounds per thread they did ("rounds=R"), to pass
 *                     back as --rounds for runs of about S seconds
 * It prints "wall=SECONDS cpu=SECONDS" (wall-clock time from the start of
 * the first thread to the end of the last, and the CPU time of all of
 * them) on stdout.
 *
 * Build it with -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls,
 * as tests/workload is (bench/collector.mk does).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Iterations of one round, split 60/30/10: about 2 ms of CPU. */
#define ROUND_ITERATIONS	1000000u
#define HOT_ITERATIONS		(ROUND_ITERATIONS * 6 / 10)
#define WARM_ITERATIONS		(ROUND_ITERATIONS * 3 / 10)
#define COLD_ITERATIONS		(ROUND_ITERATIONS * 1 / 10)

struct worker {
	pthread_t thread;
	uint64_t rounds;		/* to do; 0: until stop_ns */
	uint64_t stop_ns;
	uint64_t done;			/* rounds done */
	uint64_t state;
};

static volatile uint64_t work_sink;

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define BURN(name, multiplier)							\
	__attribute__((noinline)) uint64_t name(uint64_t x, unsigned count);	\
	__attribute__((noinline)) uint64_t name(uint64_t x, unsigned count)	\
	{									\
		for (unsigned i = 0; i < count; i++) {				\
			x = x * (multiplier) + i;				\
			__asm__ volatile("" : "+r"(x));				\
		}								\
		return x;							\
	}

BURN(burn_hot, 6364136223846793005ull)
BURN(burn_warm, 2862933555777941757ull)
BURN(burn_cold, 3202034522624059733ull)

__attribute__((noinline)) void run_rounds(struct worker *w);
__attribute__((noinline)) void run_rounds(struct worker *w)
{
	uint64_t x = w->state;

	for (;;) {
		if (w->rounds ? w->done >= w->rounds :
		    (w->done % 16 == 0 && clock_ns(CLOCK_MONOTONIC) >= w->stop_ns))
			break;
		x = burn_hot(x, HOT_ITERATIONS);
		x = burn_warm(x, WARM_ITERATIONS);
		x = burn_cold(x, COLD_ITERATIONS);
		w->done++;
	}
	w->state = x;
}

static void *worker_main(void *arg)
{
	run_rounds(arg);
	return NULL;
}

static int parse_u64(const char *flag, const char *text, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char *end = NULL;
	unsigned long long value;

	errno = 0;
	value = text ? strtoull(text, &end, 10) : 0;
	if (!text || errno || end == text || *end || value < min || value > max) {
		fprintf(stderr, "collector-work: %s needs a whole number from %llu to %llu\n",
			flag, (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = value;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t threads = 1, rounds = 100, calibrate = 0, start, wall, total = 0;
	struct worker *workers;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0) {
			if (parse_u64("--threads", argv[++i], 1, 256, &threads) < 0)
				return 2;
		} else if (strcmp(argv[i], "--rounds") == 0) {
			if (parse_u64("--rounds", argv[++i], 1, 1000000000, &rounds) < 0)
				return 2;
		} else if (strcmp(argv[i], "--calibrate") == 0) {
			if (parse_u64("--calibrate", argv[++i], 1, 60, &calibrate) < 0)
				return 2;
		} else {
			fprintf(stderr, "Usage: collector-work [--threads N] [--rounds R | --calibrate SECONDS]\n");
			return 2;
		}
	}
	workers = calloc(threads, sizeof(*workers));
	if (!workers) {
		perror("collector-work");
		return 1;
	}
	start = clock_ns(CLOCK_MONOTONIC);
	for (uint64_t i = 0; i < threads; i++) {
		workers[i].rounds = calibrate ? 0 : rounds;
		workers[i].stop_ns = start + calibrate * 1000000000u;
		workers[i].state = i * 2 + 1;
		if (i && pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
			fprintf(stderr, "collector-work: cannot start thread %llu\n",
				(unsigned long long)i);
			return 1;
		}
	}
	run_rounds(&workers[0]);
	for (uint64_t i = 1; i < threads; i++)
		pthread_join(workers[i].thread, NULL);
	wall = clock_ns(CLOCK_MONOTONIC) - start;
	for (uint64_t i = 0; i < threads; i++) {
		work_sink += workers[i].state;
		total += workers[i].done;
	}
	if (calibrate)
		printf("rounds=%llu\n", (unsigned long long)(total / threads));
	printf("wall=%.3f cpu=%.3f\n", (double)wall / 1e9,
	       (double)clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9);
	free(workers);
	return 0;
}
