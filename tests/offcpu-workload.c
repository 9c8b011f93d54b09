/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu-workload: a thread that blocks in three known ways, for the
 * off-CPU tests and bench.  Its main thread, in phases one after the
 * other,
 *   sleeps (nanosleep) in block_sleep(),
 *   waits on a pipe in block_pipe() that the "answerer" thread answers
 *     after a delay from answer_pipe() (the waker),
 *   waits on a pthread mutex in block_mutex() that the "holder" thread
 *     holds for a while in hold_mutex(),
 * each ROUNDS times for MS milliseconds, and prints what its own clock
 * (CLOCK_MONOTONIC around each wait) measured:
 *
 *   offcpu-workload SLEEP_MS PIPE_MS MUTEX_MS ROUNDS
 *
 *   tid MAIN answerer TID holder TID
 *   fn block_sleep ADDRESS    (and the others: runtime addresses)
 *   phase sleep START END BLOCKED_NS COUNT    (CLOCK_MONOTONIC ns)
 *   phase pipe ...
 *   phase mutex ...
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int request[2], reply[2];
static long pipe_ms, mutex_ms;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int holder_round, holder_locked;
static atomic_int answerer_tid, holder_tid;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0)
		;
}

__attribute__((noinline)) static uint64_t block_sleep(long ms)
{
	uint64_t start = now_ns();

	sleep_ms(ms);
	return now_ns() - start;
}

__attribute__((noinline)) static uint64_t block_pipe(void)
{
	char byte = 'q';
	uint64_t start;

	if (write(request[1], &byte, 1) != 1)
		exit(1);
	start = now_ns();
	if (read(reply[0], &byte, 1) != 1)
		exit(1);
	return now_ns() - start;
}

__attribute__((noinline)) static uint64_t block_mutex(void)
{
	uint64_t start = now_ns();

	pthread_mutex_lock(&lock);
	start = now_ns() - start;
	pthread_mutex_unlock(&lock);
	return start;
}

/* The waker of block_pipe(): its write ends the main thread's wait. */
__attribute__((noinline)) static void answer_pipe(void)
{
	char byte = 'a';

	sleep_ms(pipe_ms);
	if (write(reply[1], &byte, 1) != 1)
		exit(1);
}

__attribute__((noinline)) static void hold_mutex(void)
{
	pthread_mutex_lock(&lock);
	atomic_store(&holder_locked, 1);
	sleep_ms(mutex_ms);
	pthread_mutex_unlock(&lock);
}

static void *answerer(void *arg)
{
	char byte;

	(void)arg;
	pthread_setname_np(pthread_self(), "answerer");
	atomic_store(&answerer_tid, (int)syscall(SYS_gettid));
	while (read(request[0], &byte, 1) == 1)
		answer_pipe();
	return NULL;
}

static void *holder(void *arg)
{
	int done = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	atomic_store(&holder_tid, (int)syscall(SYS_gettid));
	for (;;) {
		int round = atomic_load(&holder_round);

		if (round < 0)
			return NULL;
		if (round == done) {
			usleep(200);
			continue;
		}
		hold_mutex();
		done = round;
	}
}

static void phase(const char *name, uint64_t start, uint64_t blocked, long count)
{
	printf("phase %s %llu %llu %llu %ld\n", name, (unsigned long long)start,
	       (unsigned long long)now_ns(), (unsigned long long)blocked, count);
}

/*
 * Each kind's loop in a function of its own: a frame-pointer walk from a
 * frameless libc wrapper (read, nanosleep) skips its caller, block_*(),
 * and starts at that caller's return address, in phase_*().
 */
__attribute__((noinline)) static void phase_sleep(long ms, long rounds)
{
	uint64_t start = now_ns(), blocked = 0;

	for (long i = 0; i < rounds; i++)
		blocked += block_sleep(ms);
	phase("sleep", start, blocked, rounds);
}

__attribute__((noinline)) static void phase_pipe(long rounds)
{
	uint64_t start = now_ns(), blocked = 0;

	for (long i = 0; i < rounds; i++)
		blocked += block_pipe();
	phase("pipe", start, blocked, rounds);
}

__attribute__((noinline)) static void phase_mutex(long rounds)
{
	uint64_t start = now_ns(), blocked = 0;

	for (long i = 0; i < rounds; i++) {
		atomic_store(&holder_locked, 0);
		atomic_store(&holder_round, (int)i + 1);
		while (!atomic_load(&holder_locked))
			sched_yield();	/* runnable: only the lock itself is a wait */
		blocked += block_mutex();
	}
	phase("mutex", start, blocked, rounds);
}

int main(int argc, char **argv)
{
	pthread_t threads[2];
	long sleep_ms_each, rounds;

	if (argc != 5) {
		fputs("usage: offcpu-workload SLEEP_MS PIPE_MS MUTEX_MS ROUNDS\n", stderr);
		return 2;
	}
	sleep_ms_each = atol(argv[1]);
	pipe_ms = atol(argv[2]);
	mutex_ms = atol(argv[3]);
	rounds = atol(argv[4]);
	if (pipe(request) < 0 || pipe(reply) < 0)
		return 1;
	pthread_create(&threads[0], NULL, answerer, NULL);
	pthread_create(&threads[1], NULL, holder, NULL);
	while (!atomic_load(&answerer_tid) || !atomic_load(&holder_tid))
		usleep(100);
	printf("tid %ld answerer %d holder %d\n", (long)syscall(SYS_gettid),
	       atomic_load(&answerer_tid), atomic_load(&holder_tid));
	printf("fn block_sleep %p\nfn block_pipe %p\nfn block_mutex %p\nfn answer_pipe %p\nfn hold_mutex %p\n",
	       (void *)block_sleep, (void *)block_pipe, (void *)block_mutex,
	       (void *)answer_pipe, (void *)hold_mutex);
	printf("fn phase_sleep %p\nfn phase_pipe %p\nfn phase_mutex %p\nfn answerer %p\nfn holder %p\n",
	       (void *)phase_sleep, (void *)phase_pipe, (void *)phase_mutex,
	       (void *)answerer, (void *)holder);
	fflush(stdout);

	phase_sleep(sleep_ms_each, rounds);
	phase_pipe(rounds);
	phase_mutex(rounds);

	atomic_store(&holder_round, -1);
	close(request[1]);
	pthread_join(threads[0], NULL);
	pthread_join(threads[1], NULL);
	return 0;
}
