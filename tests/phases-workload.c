/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * phases-workload: CPU time that moves between two functions at known
 * times, for the tests of the time views (the timeline, --since/--until,
 * windows compared, the page's heatmap).
 *
 *   main -> run_phase -> burn_phase_a   for --phase seconds, then
 *                     -> burn_phase_b   for as long, then a again, ...
 *
 * Each phase spins on integer arithmetic for its length of wall-clock
 * time (CLOCK_MONOTONIC, the captures' clock), so a phase's samples fall
 * inside it whatever the machine's load.  At the start of each phase it
 * prints a line
 *
 *   phase a 1733533323.123456789 8123.456789012
 *
 * (the phase, the UTC time from CLOCK_REALTIME and the CLOCK_MONOTONIC
 * time, both in seconds), flushed at once, and a last line "end ..." of
 * the same form.
 *
 * Options: --phase S (seconds a phase, default 2), --cycles N (a then b,
 * N times; default 2).  Built with frame pointers (tests/time.mk): the
 * functions are noinline, each with its own symbol and frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(const char *what)
{
	uint64_t wall = now_ns(CLOCK_REALTIME), mono = now_ns(CLOCK_MONOTONIC);

	printf("%s %llu.%09llu %llu.%09llu\n", what, (unsigned long long)(wall / 1000000000u),
	       (unsigned long long)(wall % 1000000000u), (unsigned long long)(mono / 1000000000u),
	       (unsigned long long)(mono % 1000000000u));
	fflush(stdout);
}

/*
 * Spins until the monotonic clock reaches end, the clock read every few
 * µs.  A macro, so that each phase's samples have its own function as
 * their leaf (no inlined frame), and a constant of each phase's own, so
 * that the compiler cannot fold the two functions into one.
 */
#define SPIN_UNTIL(end, step)								\
	do {										\
		uint64_t x_ = sink;							\
											\
		while (now_ns(CLOCK_MONOTONIC) < (end))					\
			for (int i_ = 0; i_ < 2000; i_++)				\
				x_ = x_ * 6364136223846793005ull + (step);		\
		sink = x_;								\
	} while (0)

static __attribute__((noinline)) void burn_phase_a(uint64_t end)
{
	SPIN_UNTIL(end, 1442695040888963407ull);
}

static __attribute__((noinline)) void burn_phase_b(uint64_t end)
{
	SPIN_UNTIL(end, 1013904223ull);
}

static __attribute__((noinline)) void run_phase(int which, uint64_t length_ns)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + length_ns;

	say(which ? "phase b" : "phase a");
	if (which)
		burn_phase_b(end);
	else
		burn_phase_a(end);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	double phase = 2;
	long cycles = 2;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--phase") == 0 && i + 1 < argc)
			phase = atof(argv[++i]);
		else if (strcmp(argv[i], "--cycles") == 0 && i + 1 < argc)
			cycles = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: phases-workload [--phase S] [--cycles N]\n");
			return 2;
		}
	}
	if (phase <= 0 || phase > 3600 || cycles < 1 || cycles > 10000) {
		fprintf(stderr, "phases-workload: --phase 0-3600, --cycles 1-10000\n");
		return 2;
	}
	for (long c = 0; c < cycles; c++)
		for (int which = 0; which < 2; which++)
			run_phase(which, (uint64_t)(phase * 1e9));
	say("end");
	return 0;
}
