/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-report -o FILE: the report goes to a temporary file beside FILE
 * and is renamed over it only when complete, so a failed or interrupted
 * report never leaves half a profile where a browser or pprof would read
 * it, and never truncates the previous one first.  What exists and is
 * not a regular file (/dev/null, a FIFO, a terminal) is written in
 * place: a rename would replace the device with a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report.h"

int report_output_open(struct report_output *output, const char *path)
{
	mode_t mask;
	int fd;

	struct stat st;

	memset(output, 0, sizeof(*output));
	if (!path) {
		output->file = stdout;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (!(output->file = fdopen(fd, "w"))) {
			int err = -errno;

			close(fd);
			return err;
		}
		output->path = path;
		return 0;
	}
	if (asprintf(&output->temp_path, "%s.XXXXXX", path) < 0) {
		output->temp_path = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(output->temp_path);
	if (fd < 0) {
		int err = -errno;

		free(output->temp_path);
		output->temp_path = NULL;
		return err;
	}
	/* mkstemp() makes 0600; a report is as readable as any new file. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(output->file = fdopen(fd, "w"))) {
		int err = -errno;

		close(fd);
		unlink(output->temp_path);
		free(output->temp_path);
		output->temp_path = NULL;
		return err;
	}
	output->path = path;
	return 0;
}

int report_output_open_beside(struct report_output *output, const char *path)
{
	struct stat st;

	/* A FIFO planted there would hold the write forever, a symlink lead elsewhere. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return -EEXIST;
	return report_output_open(output, path);
}

int report_output_close(struct report_output *output, int complete)
{
	int err = 0;

	if (!output->path)
		return fflush(output->file) ? -errno : 0;
	if (!output->temp_path) {
		err = fclose(output->file) ? -errno : 0;
		output->file = NULL;
		return err;
	}
	if (fflush(output->file) || fsync(fileno(output->file)))
		err = -errno;
	if (fclose(output->file) && !err)
		err = -errno;
	output->file = NULL;
	if (complete && !err && rename(output->temp_path, output->path) < 0)
		err = -errno;
	if (!complete || err)
		unlink(output->temp_path);
	free(output->temp_path);
	output->temp_path = NULL;
	return err;
}
