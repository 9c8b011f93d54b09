/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_EVENT_SET_H
#define PERFRECD_EVENT_SET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "ring.h"

struct prf_error;

/*
 * One of a run's events: its descriptors are those of the first event's
 * CPUs, redirected into that event's rings, so that samples of every
 * event reach the reader in one time-ordered stream per CPU.
 */
struct set_event {
	struct perf_event_attr attr;	/* as the kernel accepted it */
	char name[256];
	int *cpu_fds;			/* events but the first: one per ring, -1 closed */
	uint64_t *ids;			/* of every fd: the CPUs' in ring order, then threads' */
	size_t id_count;
};

/*
 * The sampling events of one run: one ring per CPU, owned by the first
 * event (the one that also tracks mmap, comm and task); in process mode
 * one descriptor per (event, thread, CPU), each writing into its CPU's ring.
 */
struct event_set {
	struct set_event *events;
	size_t event_count;
	int mixed_layouts;		/* events whose samples are laid out apart */
	uint64_t last_identifier;	/* prd_event_set_attr_of()'s last answer */
	const struct perf_event_attr *last_attr;
	struct cpu_ring *rings;		/* one per online CPU */
	size_t ring_count;
	int *extra_fds;			/* process mode: threads but the first */
	size_t extra_count;
	uint32_t ring_pages;		/* of each ring, as opened */
	const char *sysfs_root;		/* where the online CPUs are read */
};

struct event_target {
	pid_t pid;			/* -1: every process */
	int all_threads;		/* pid given: open each thread of it */
	const char *proc_root;
	const char *sysfs_root;
	uint32_t ring_pages;
	const int *cpus;		/* these online CPUs only; NULL: every one */
	size_t cpu_count;
};

/*
 * Opens count events (attrs[i] named names[i]) on every online CPU for
 * target, maps the first event's rings and leaves the events disabled.
 * The events after the first are opened without side-band tracking.  On
 * failure returns a negative errno with a one-line message naming the
 * event, the cause and what to do about it.
 */
int prd_event_set_open(struct event_set *set, const struct perf_event_attr *attrs,
		       const char *const *names, size_t count,
		       const struct event_target *target, struct prf_error *error);
void prd_event_set_close(struct event_set *set);

/*
 * For a system-wide set: online[i] is 1 when the CPU of ring i is online
 * now (one read of sysfs); 0, or a negative errno.  A CPU that goes
 * offline stops its events for good (no hang-up is signalled):
 * prd_event_set_cpu_gone() closes them and unmaps the ring (drain it first).
 * Once the CPU is back, prd_event_set_reopen_cpu() opens every event there
 * anew (disabled): new fds, ring and ids in their places, enabled by
 * prd_event_set_enable_cpu().  0 or a negative errno with a one-line message.
 */
int prd_event_set_online(const struct event_set *set, unsigned char *online);
void prd_event_set_cpu_gone(struct event_set *set, size_t index);
int prd_event_set_reopen_cpu(struct event_set *set, size_t index, struct prf_error *error);
int prd_event_set_enable_cpu(struct event_set *set, size_t index);
int prd_event_set_enable(struct event_set *set, int enable);

/*
 * The attr that lays out a sample of the set (found by its
 * PERF_SAMPLE_IDENTIFIER when the events' layouts differ: a tracepoint's
 * raw data, a period of its own); NULL for an id of none of them.
 */
const struct perf_event_attr *prd_event_set_attr_of(struct event_set *set,
						    const void *sample, size_t size);

/*
 * Data pages per ring for a sampling rate and the bytes a sample takes in
 * the ring, when not told (a power of 2).
 */
uint32_t prd_event_ring_pages_for(uint64_t frequency, size_t sample_bytes);

#endif
