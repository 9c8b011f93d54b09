/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload: a program with known hot functions, for the end-to-end tests
 * of perfrecd and the accuracy tests of the reader.
 *
 *   main -> run_workload -> burn_hot   about 60% of its CPU time
 *                        -> burn_warm  about 30%
 *                        -> burn_cold  about 10%
 *
 * Each burn_* function spins on integer arithmetic until its own thread
 * has spent a given amount of CPU time in it, measured with
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID), so the shares hold whatever the
 * load of the machine: a preempted thread spends no CPU time.  The clock
 * is read only every few tens of microseconds (it is a system call), so
 * nearly all the time is spent in user mode inside the burn_* function.
 *
 * Build it with -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls
 * (tests/daemon.mk does): the functions are noinline, so each has its own
 * symbol and frame, and frame-pointer callchains from a sample in burn_hot
 * go through run_workload and main (in the main thread; other threads
 * start in worker_main).
 *
 * Options:
 *   --seconds S      run for S seconds of wall-clock time (default 2)
 *   --threads N      N threads in all, the main thread included, each
 *                    running the same mix (default 1)
 *   --fork           also fork a child that runs the mix for half the time
 *                    and exits, so that FORK and EXIT records are made
 *   --touch-pages    also, after each round, map 64 fresh pages and write
 *                    to each (touch_pages): page faults with a known
 *                    function, for the tests of several events a run
 *   --mix H,W,C      split each round H/W/C percent between burn_hot,
 *                    burn_warm and burn_cold instead (they add up to 100):
 *                    two profiles that differ by a known amount, for the
 *                    tests of --baseline
 *   --print-shares   at the end print each function's measured share of
 *                    the CPU time of this process's threads (not the
 *                    child's), as lines "burn_hot=0.60"; with
 *                    --touch-pages also "touch_pages=N", the pages it wrote
 *                    to (the page faults it made there); and
 *                    "cpu_ns=N", the CPU time of the whole process (all its
 *                    threads, not the child's), in nanoseconds
 * The child, if any, is waited for before the program exits 0.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The CPU time of one round, split 60/30/10 unless --mix says otherwise. */
#define ROUND_NS	10000000ull
static uint64_t hot_round_ns = ROUND_NS * 6 / 10;
static uint64_t warm_round_ns = ROUND_NS * 3 / 10;
static uint64_t cold_round_ns = ROUND_NS * 1 / 10;
/* Iterations of arithmetic between two readings of the clock. */
#define SPIN_ITERATIONS	20000u

struct worker {
	pthread_t thread;
	double seconds;
	int touch_pages;
	uint64_t hot_ns, warm_ns, cold_ns;	/* CPU time spent in each */
	uint64_t pages_touched;			/* by touch_pages: a fault each */
};

static volatile uint64_t workload_sink;

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0) {
		perror("workload: clock_gettime");
		exit(1);
	}
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * The three functions are the same loop with different constants; each
 * spins for budget_ns of this thread's CPU time and returns what it spent.
 * The asm barrier keeps the loop a loop: the compiler may not merge the
 * functions or compute the result ahead.
 */
#define BURN(name, multiplier)							\
	__attribute__((noinline)) uint64_t name(uint64_t budget_ns,		\
						uint64_t *state);		\
	__attribute__((noinline)) uint64_t name(uint64_t budget_ns,		\
						uint64_t *state)		\
	{									\
		uint64_t start = thread_cpu_ns(), now = start;			\
		uint64_t x = *state;						\
										\
		while (now - start < budget_ns) {				\
			for (unsigned i = 0; i < SPIN_ITERATIONS; i++) {	\
				x = x * (multiplier) + i;			\
				__asm__ volatile("" : "+r"(x));			\
			}							\
			now = thread_cpu_ns();					\
		}								\
		*state = x;							\
		return now - start;						\
	}

BURN(burn_hot, 6364136223846793005ull)
BURN(burn_warm, 2862933555777941757ull)
BURN(burn_cold, 3202034522624059733ull)

/* Every write here is to a page not yet there: a page fault each. */
#define TOUCH_PAGES	64
__attribute__((noinline)) void touch_pages(void);
__attribute__((noinline)) void touch_pages(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, TOUCH_PAGES * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("workload: mmap");
		exit(1);
	}
	for (size_t i = 0; i < TOUCH_PAGES; i++)
		p[i * page] = (char)i;
	munmap((void *)p, TOUCH_PAGES * page);
}

/* Rounds of hot, warm, cold until the wall-clock time is up. */
__attribute__((noinline)) void run_workload(struct worker *w);
__attribute__((noinline)) void run_workload(struct worker *w)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(w->seconds * 1e9);
	uint64_t state = (uint64_t)(uintptr_t)w | 1;

	do {
		w->hot_ns += burn_hot(hot_round_ns, &state);
		w->warm_ns += burn_warm(warm_round_ns, &state);
		w->cold_ns += burn_cold(cold_round_ns, &state);
		if (w->touch_pages) {
			touch_pages();
			w->pages_touched += TOUCH_PAGES;
		}
	} while (clock_ns(CLOCK_MONOTONIC) < end);
	workload_sink = state;	/* the work has a result that is kept */
}

static void *worker_main(void *arg)
{
	run_workload(arg);
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: workload [--seconds S] [--threads N] [--fork] [--touch-pages] [--mix H,W,C]\n"
		"                [--print-shares]\n"
		"Burn CPU in burn_hot (60%%), burn_warm (30%%) and burn_cold (10%%).\n");
}

static int parse_number(const char *flag, const char *text, double min,
			double max, double *out)
{
	char *end;
	double value;

	errno = 0;
	value = text ? strtod(text, &end) : 0;
	if (!text || errno || end == text || *end || value < min || value > max) {
		fprintf(stderr, "workload: %s needs a number from %g to %g\n", flag,
			min, max);
		return -1;
	}
	*out = value;
	return 0;
}

static int parse_mix(const char *text)
{
	unsigned hot, warm, cold;
	char end;

	if (!text || sscanf(text, "%u,%u,%u%c", &hot, &warm, &cold, &end) != 3 ||
	    hot + warm + cold != 100) {
		fprintf(stderr, "workload: --mix needs three percentages adding up to 100, as 60,30,10\n");
		return -1;
	}
	hot_round_ns = ROUND_NS * hot / 100;
	warm_round_ns = ROUND_NS * warm / 100;
	cold_round_ns = ROUND_NS * cold / 100;
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 2, threads = 1;
	int fork_child = 0, print_shares = 0, touch = 0;
	struct worker *workers;
	uint64_t hot = 0, warm = 0, cold = 0, touched = 0, total;
	pid_t child = -1;
	int n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0) {
			if (parse_number("--seconds", argv[++i], 0, 3600, &seconds) < 0)
				return 2;
		} else if (strcmp(argv[i], "--threads") == 0) {
			if (parse_number("--threads", argv[++i], 1, 256, &threads) < 0)
				return 2;
		} else if (strcmp(argv[i], "--fork") == 0) {
			fork_child = 1;
		} else if (strcmp(argv[i], "--touch-pages") == 0) {
			touch = 1;
		} else if (strcmp(argv[i], "--mix") == 0) {
			if (parse_mix(argv[++i]) < 0)
				return 2;
		} else if (strcmp(argv[i], "--print-shares") == 0) {
			print_shares = 1;
		} else if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	n = (int)threads;
	/* Forked before any thread exists: the child is a plain copy. */
	if (fork_child) {
		child = fork();
		if (child < 0) {
			perror("workload: fork");
			return 1;
		}
		if (child == 0) {
			struct worker w = { .seconds = seconds / 2, .touch_pages = touch };

			run_workload(&w);
			_exit(0);
		}
	}
	workers = calloc((size_t)n, sizeof(*workers));
	if (!workers) {
		perror("workload");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		workers[i].seconds = seconds;
		workers[i].touch_pages = touch;
	}
	for (int i = 1; i < n; i++) {
		int err = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);

		if (err) {
			fprintf(stderr, "workload: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	run_workload(&workers[0]);
	for (int i = 0; i < n; i++) {
		if (i > 0)
			pthread_join(workers[i].thread, NULL);
		hot += workers[i].hot_ns;
		warm += workers[i].warm_ns;
		cold += workers[i].cold_ns;
		touched += workers[i].pages_touched;
	}
	free(workers);
	if (child > 0) {
		int status;

		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	total = hot + warm + cold;
	if (print_shares && total) {
		printf("burn_hot=%.2f\n", (double)hot / (double)total);
		printf("burn_warm=%.2f\n", (double)warm / (double)total);
		printf("burn_cold=%.2f\n", (double)cold / (double)total);
		if (touch)
			printf("touch_pages=%llu\n", (unsigned long long)touched);
		printf("cpu_ns=%llu\n",
		       (unsigned long long)clock_ns(CLOCK_PROCESS_CPUTIME_ID));
	}
	return 0;
}
