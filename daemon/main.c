/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfrecd: the system-wide sampling collector.  See perfrecd(8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collector.h"
#include "events.h"
#include "service.h"

/* What --check-config can know without opening events: the events resolve. */
static int check_config(const struct perfrecd_options *o)
{
	struct perf_event_attr attr;
	struct prf_error error;

	for (size_t i = 0; i < o->event_count; i++)
		if (prd_event_parse(o->events[i], o->sysfs_root, &attr, &error) < 0) {
			prd_log_usage_error("event '%s': %s", o->events[i], error.message);
			return 2;
		}
	printf("perfrecd: configuration OK (%s)\n", o->config_path);
	return 0;
}

int main(int argc, char **argv)
{
	struct perfrecd_options options;
	int ret;

	/* Errors in the options are said as such; the verbosity comes later. */
	prd_log_init("perfrecd", 0);
	prd_options_init(&options);
	ret = prd_options_parse(&options, argc, argv);
	if (ret != 0) {
		prd_options_fini(&options);
		return ret > 0 ? 0 : 2;
	}
	if (options.check_config) {
		ret = check_config(&options);
		prd_options_fini(&options);
		return ret;
	}
	prd_log_init("perfrecd", options.verbosity);
	ret = prd_notify_open();
	if (ret < 0)
		prd_log_warning("NOTIFY_SOCKET or WATCHDOG_USEC is unusable (%s); not telling systemd our state",
				strerror(-ret));
	ret = prd_collector_run(&options);
	prd_notify_close();
	prd_options_fini(&options);
	return ret;
}
