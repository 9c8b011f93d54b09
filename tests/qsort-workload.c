/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qsort-workload: spends its time in cmp(), called by glibc's qsort(),
 * called by sorter(), called by main(): a stack that only DWARF unwinding
 * sees whole when built with -fomit-frame-pointer.  With "deep", it
 * recurses instead through deep(), whose frames are large, then spins at
 * the bottom: a stack deeper than a small stack copy.
 *
 *   qsort-workload [SECONDS]          sort for SECONDS (default 2)
 *   qsort-workload deep [SECONDS]     recurse 64 levels of 4 KiB, then spin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) static int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	/* Some work per comparison, so that cmp holds most samples. */
	for (int i = 0; i < 20; i++) {
		x = x * 2654435761u >> 1 | (x & 1);
		y = y * 2654435761u >> 1 | (y & 1);
	}
	return x < y ? -1 : x > y;
}

__attribute__((noinline, noclone)) static void sorter(unsigned *values, size_t count)
{
	for (size_t i = 0; i < count; i++)
		values[i] = (unsigned)(i * 2246822519u);
	qsort(values, count, sizeof(*values), cmp);
	sink += values[count / 2];	/* no tail call: sorter keeps its frame */
}

__attribute__((noinline)) static void spin(double until)
{
	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * i;
}

__attribute__((noinline)) static void deep(int level, double until)
{
	volatile char frame[4096];

	frame[0] = (char)level;
	frame[sizeof(frame) - 1] = (char)level;
	if (level)
		deep(level - 1, until);
	else
		spin(until);
	sink += (unsigned long)frame[0] + (unsigned long)frame[sizeof(frame) - 1];
}

int main(int argc, char **argv)
{
	int recurse = argc > 1 && strcmp(argv[1], "deep") == 0;
	double seconds = argc > 1 + recurse ? atof(argv[1 + recurse]) : 2;
	double until = now() + seconds;
	static unsigned values[20000];

	if (recurse) {
		deep(64, until);
		return 0;
	}
	while (now() < until)
		sorter(values, sizeof(values) / sizeof(values[0]));
	printf("%lu\n", sink + values[0]);
	return 0;
}
