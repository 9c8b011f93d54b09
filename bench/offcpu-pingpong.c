/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu-pingpong: the worst case for an off-CPU recorder.  PAIRS pairs
 * of threads bounce a byte through two pipes; every round trip is two
 * blocks and two wake-ups, a few microseconds each, so each context
 * switch's cost shows in the rate.  Prints round trips per second over
 * SECONDS:
 *
 *   offcpu-pingpong [SECONDS [PAIRS]]     (default 5 s, 2 pairs)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;

struct pair {
	int ping[2], pong[2];
	uint64_t trips;
	pthread_t threads[2];
};

static void *serve(void *arg)
{
	struct pair *p = arg;
	char byte;

	while (read(p->ping[0], &byte, 1) == 1)
		if (write(p->pong[1], &byte, 1) != 1)
			break;
	return NULL;
}

static void *drive(void *arg)
{
	struct pair *p = arg;
	char byte = 'x';

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (write(p->ping[1], &byte, 1) != 1 || read(p->pong[0], &byte, 1) != 1)
			break;
		p->trips++;
	}
	close(p->ping[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	int pairs = argc > 2 ? atoi(argv[2]) : 2;
	struct pair *p = calloc((size_t)(pairs > 0 ? pairs : 1), sizeof(*p));
	struct timespec start, end, wait;
	uint64_t trips = 0;
	double elapsed;

	if (!p || pairs < 1 || seconds <= 0) {
		fputs("usage: offcpu-pingpong [SECONDS [PAIRS]]\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 0; i < pairs; i++) {
		if (pipe(p[i].ping) < 0 || pipe(p[i].pong) < 0)
			return 1;
		pthread_create(&p[i].threads[0], NULL, serve, &p[i]);
		pthread_create(&p[i].threads[1], NULL, drive, &p[i]);
	}
	wait.tv_sec = (time_t)seconds;
	wait.tv_nsec = (long)((seconds - (double)wait.tv_sec) * 1e9);
	nanosleep(&wait, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < pairs; i++) {
		pthread_join(p[i].threads[1], NULL);
		pthread_join(p[i].threads[0], NULL);
		trips += p[i].trips;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	elapsed = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
	printf("%.0f\n", (double)trips / elapsed);
	free(p);
	return 0;
}
