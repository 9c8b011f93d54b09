/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_PMU_H
#define PERFRECD_PMU_H

#include <stddef.h>
#include <linux/perf_event.h>

struct prf_error;

/*
 * The sysfs half of prd_event_parse(): resolves "pmu/terms/" given as the PMU
 * name and the text between the slashes.  Sets attr->type and the config
 * fields; leaves every other field alone.  Returns 0 or a negative errno,
 * error (may be NULL) filled with it and a one-line message.
 */
int prd_pmu_parse(const char *sysfs_root, const char *pmu, const char *terms,
		  struct perf_event_attr *attr, struct prf_error *error);

#endif
