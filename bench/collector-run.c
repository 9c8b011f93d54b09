/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collector-run: runs a command and reports its resource usage, for
 * bench/collector.sh.  GNU time would do, but it prints CPU times to the
 * hundredth of a second, too coarse for a collector that uses 0.05 s.
 *
 *   collector-run PIDFILE USAGEFILE COMMAND [ARGS...]
 *
 * The command's pid is written to PIDFILE as soon as it is forked (signal
 * the command itself, not collector-run); when it ends USAGEFILE gets one
 * line, from wait4():
 *   user=SECONDS system=SECONDS maxrss_kb=KIB exit=CODE|signal=NUMBER
 * The exit status is the command's (128 + the signal if it was killed).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage usage;
	FILE *out;
	pid_t child;
	int status;

	if (argc < 4) {
		fprintf(stderr, "Usage: collector-run PIDFILE USAGEFILE COMMAND [ARGS...]\n");
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("collector-run: fork");
		return 1;
	}
	if (child == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "collector-run: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	/* The signals are for the command; we only wait for it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	out = fopen(argv[1], "w");
	if (out) {
		fprintf(out, "%d\n", (int)child);
		fclose(out);
	}
	while (wait4(child, &status, 0, &usage) < 0) {
		if (errno != EINTR) {
			perror("collector-run: wait4");
			return 1;
		}
	}
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "user=%ld.%06ld system=%ld.%06ld maxrss_kb=%ld ",
		(long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec,
		(long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec,
		usage.ru_maxrss);
	if (WIFSIGNALED(status))
		fprintf(out, "signal=%d\n", WTERMSIG(status));
	else
		fprintf(out, "exit=%d\n", WEXITSTATUS(status));
	fclose(out);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
