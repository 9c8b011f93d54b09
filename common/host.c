/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* This host's facts, as a file header records them. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "common.h"

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

static uint32_t sysconf_u32(int name)
{
	long n = sysconf(name);

	return n > 0 && n <= (long)UINT32_MAX ? (uint32_t)n : 0;
}

int prf_host_read(struct prf_host *host)
{
	struct utsname uts;

	memset(host, 0, sizeof(*host));
	if (uname(&uts) < 0)
		return -errno;
	/* utsname's fields are 65 bytes on Linux, NUL-terminated */
	memcpy(host->hostname, uts.nodename, sizeof(host->hostname) - 1);
	memcpy(host->kernel_release, uts.release, sizeof(host->kernel_release) - 1);
	memcpy(host->kernel_version, uts.version, sizeof(host->kernel_version) - 1);
	memcpy(host->machine, uts.machine, sizeof(host->machine) - 1);
	read_boot_id(host->boot_id, sizeof(host->boot_id));
	host->nr_cpus_online = sysconf_u32(_SC_NPROCESSORS_ONLN);
	host->nr_cpus_configured = sysconf_u32(_SC_NPROCESSORS_CONF);
	host->page_size = sysconf_u32(_SC_PAGESIZE);
	return 0;
}
