/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening files whose path came from elsewhere: a capture, a process's
 * maps, the command line.  O_NONBLOCK makes open() return at once on a
 * FIFO (it would wait for a writer) or a device; the fstat() then refuses
 * anything but a regular file, on which O_NONBLOCK has no effect.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>
#include "common.h"

int prf_open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else
		return fd;
	close(fd);
	return -err;
}
