/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_EVENT_SET_H
#define PERFRECD_EVENT_SET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "ring.h"

/*
 * The sampling events of one run: one ring per CPU; in process mode one
 * event per (thread, CPU) whose output is redirected into that CPU's ring.
 */
struct event_set {
	struct perf_event_attr attr;	/* as the kernel accepted it */
	char name[256];
	struct cpu_ring *rings;		/* one per online CPU */
	size_t ring_count;
	int *extra_fds;			/* process mode: threads but the first */
	size_t extra_count;
	uint64_t *ids;			/* of every fd, rings first */
	size_t id_count;
	uint32_t ring_pages;		/* of each ring, as opened */
	const char *sysfs_root;		/* where the online CPUs are read */
};

struct event_target {
	pid_t pid;			/* -1: every process */
	int all_threads;		/* pid given: open each thread of it */
	const char *proc_root;
	const char *sysfs_root;
	uint32_t ring_pages;
};

/*
 * Opens attr on every online CPU for target, maps the rings and leaves the
 * events disabled.  On failure returns a negative errno with a one-line
 * message naming the cause and what to do about it.
 */
int event_set_open(struct event_set *set, const struct perf_event_attr *attr,
		   const char *name, const struct event_target *target,
		   char *error, size_t error_size);
void event_set_close(struct event_set *set);

/*
 * For a system-wide set: online[i] is 1 when the CPU of ring i is online
 * now (one read of sysfs); 0, or a negative errno.  A CPU that goes
 * offline stops its event for good (no hang-up is signalled); once it is
 * back, event_set_reopen_cpu() opens the event there anew (disabled): a
 * new fd, ring and id in their places.  0 or a negative errno with a
 * one-line message.
 */
int event_set_online(const struct event_set *set, unsigned char *online);
int event_set_reopen_cpu(struct event_set *set, size_t index, char *error, size_t error_size);
int event_set_enable(struct event_set *set, int enable);

/*
 * Data pages per ring for a sampling rate and the bytes a sample takes in
 * the ring, when not told (a power of 2).
 */
uint32_t event_ring_pages_for(uint64_t frequency, size_t sample_bytes);

#endif
