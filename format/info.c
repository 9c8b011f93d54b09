/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A new file's description of its host and clock. */
#include <time.h>
#include "internal.h"

int prf_file_info_detect(struct prf_file_info *info, struct prf_host *host)
{
	int err = prf_host_read(host);

	if (err < 0)
		return err;
	info->hostname = host->hostname;
	info->kernel_release = host->kernel_release;
	info->kernel_version = host->kernel_version;
	info->machine = host->machine;
	info->boot_id = host->boot_id;
	info->nr_cpus_online = host->nr_cpus_online;
	info->nr_cpus_configured = host->nr_cpus_configured;
	info->page_size = host->page_size;
	/* Two reads close together: the offset is good to a microsecond. */
	info->clockid = CLOCK_MONOTONIC;
	info->start_time_ns = prf_clock_ns(CLOCK_MONOTONIC);
	info->realtime_offset_ns = (int64_t)(prf_clock_ns(CLOCK_REALTIME) - info->start_time_ns);
	return 0;
}
