/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host facts for a file header, and the library's error messages. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

int prf_set_error(struct prf_error *error, int code, const char *fmt, ...)
{
	va_list ap;

	if (error) {
		error->code = code;
		va_start(ap, fmt);
		vsnprintf(error->message, sizeof(error->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Appends s to the string area; returns the copy or "" when out of room. */
static const char *store_string(char **cursor, char *end, const char *s)
{
	size_t length = strlen(s) + 1;
	char *copy = *cursor;

	if ((size_t)(end - copy) < length)
		return "";
	memcpy(copy, s, length);
	*cursor += length;
	return copy;
}

static void read_boot_id(char *out, size_t size)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	out[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, out, size - 1);
	close(fd);
	if (n <= 0) {
		out[0] = '\0';
		return;
	}
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int prf_host_detect(struct prf_file_info *info, char *buf, size_t buf_size)
{
	char *cursor = buf, *end = buf + buf_size;
	struct utsname uts;
	char boot_id[64];
	long n;

	if (uname(&uts) < 0)
		return -errno;
	read_boot_id(boot_id, sizeof(boot_id));
	info->hostname = store_string(&cursor, end, uts.nodename);
	info->kernel_release = store_string(&cursor, end, uts.release);
	info->kernel_version = store_string(&cursor, end, uts.version);
	info->machine = store_string(&cursor, end, uts.machine);
	info->boot_id = store_string(&cursor, end, boot_id);

	n = sysconf(_SC_NPROCESSORS_ONLN);
	info->nr_cpus_online = n > 0 ? (uint32_t)n : 0;
	n = sysconf(_SC_NPROCESSORS_CONF);
	info->nr_cpus_configured = n > 0 ? (uint32_t)n : 0;
	n = sysconf(_SC_PAGESIZE);
	info->page_size = n > 0 ? (uint32_t)n : 0;

	/* Two reads close together: the offset is good to a microsecond. */
	info->clockid = CLOCK_MONOTONIC;
	info->start_time_ns = clock_ns(CLOCK_MONOTONIC);
	info->realtime_offset_ns = (int64_t)(clock_ns(CLOCK_REALTIME) -
					     info->start_time_ns);
	return cursor <= end ? 0 : -ENOSPC;
}
