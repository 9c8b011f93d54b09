/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfrec-push: perfrecd's captures to a profile server.  See perfrec-push(8). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "push.h"

static volatile int stop;

static void on_signal(int signal)
{
	(void)signal;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct push_options options;
	struct push_credentials credentials = { 0 };
	struct sigaction action = { .sa_handler = on_signal };
	struct rlimit no_core = { 0, 0 };
	struct prf_error error = { 0 };
	int ret;

	/*
	 * The credentials are in this process's memory: no core dump of it,
	 * and no ptrace or /proc/PID/mem by the same user without privilege.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || setrlimit(RLIMIT_CORE, &no_core) < 0) {
		perror("perfrec-push: no core dumps");
		return 1;
	}
	ret = push_options_parse(&options, argc, argv);
	if (ret) {
		push_options_free(&options);
		return ret == 1 ? 0 : 2;
	}
	if (options.credentials_path &&
	    push_credentials_load(&credentials, options.credentials_path, &error) < 0) {
		fprintf(stderr, "perfrec-push: %s\n", error.message);
		push_options_free(&options);
		return 2;
	}
	/* Not SA_RESTART: a wait ends at once; a request ends within --timeout. */
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = push_run(&options, options.credentials_path ? &credentials : NULL, &stop);
	push_credentials_free(&credentials);
	push_options_free(&options);
	return ret;
}
