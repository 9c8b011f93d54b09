/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_PMU_H
#define PERFRECD_PMU_H

#include <stddef.h>
#include <linux/perf_event.h>

/*
 * The sysfs half of prd_event_parse(): resolves "pmu/terms/" given as the PMU
 * name and the text between the slashes.  Sets attr->type and the config
 * fields; leaves every other field alone.  Returns 0 or a negative errno
 * with a one-line message in error.
 */
int prd_pmu_parse(const char *sysfs_root, const char *pmu, const char *terms,
		  struct perf_event_attr *attr, char *error, size_t error_size);

#endif
