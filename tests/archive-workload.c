/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The archive tests' workload: most of its time in main_spin (here), 4 to
 * 10 % in lib_spin (libarchive-lib.so), for SECONDS seconds
 * (argv[1], default 1.5).  It links libarchive-idle.so without calling
 * it: a mapped file no sample hits.
 */
#include <stdlib.h>
#include <time.h>

void lib_spin(unsigned long n);
void idle_never(void);

volatile unsigned long archive_sink;

__attribute__((noinline)) static void main_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		archive_sink ^= i * 7;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.5);

	if (argc > 2)
		idle_never();	/* never: keeps the library needed */
	while (now() < end) {
		lib_spin(200000);
		main_spin(400000);
	}
	return 0;
}
