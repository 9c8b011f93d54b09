/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory bundles are extracted into, and the one thing that
 * removes it whatever ends this process.  atexit() does not run when a
 * signal kills the process (perfrec-report ... | head: SIGPIPE), and no
 * handler runs on SIGKILL; a child that waits for the end of a pipe only
 * this process holds sees every one of those ends.  The child keeps no
 * other file open (a pipe into `head` or a command substitution must see
 * its end when this process exits) and sits in a session of its own, so
 * that ^C or a signal to the job leaves it to finish its work.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bundle.h"

static void janitor(int end, const char *dir)
{
	static const int ignored[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGTSTP };
	char byte;

	setsid();
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	if (end > 0)
		close_range(0, (unsigned)end - 1, 0);
	close_range((unsigned)end + 1, UINT_MAX, 0);
	while (read(end, &byte, 1) != 0 && errno == EINTR)
		;
	bundle_remove_tree(dir);
	_exit(0);
}

int bundle_scratch_dir(char **path, struct prf_error *error)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;
	int ends[2];
	pid_t pid;

	*path = NULL;
	if (asprintf(&dir, "%s/perfrec-symbols.XXXXXX", tmp && tmp[0] ? tmp : "/tmp") < 0)
		return prf_set_error(error, -ENOMEM, "out of memory");
	if (!mkdtemp(dir)) {
		int err = errno;

		prf_set_error(error, -err, "cannot make a directory %s: %s", dir, strerror(err));
		free(dir);
		return -err;
	}
	if (pipe2(ends, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		int err = errno;

		prf_set_error(error, -err, "cannot start the process that removes %s: %s", dir,
			      strerror(err));
		rmdir(dir);
		free(dir);
		return -err;
	}
	if (pid == 0)
		janitor(ends[0], dir);
	/* Ours stays open, unwritten, until this process ends. */
	close(ends[0]);
	*path = dir;
	return 0;
}
