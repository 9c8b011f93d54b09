/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_SINK_H
#define PERFRECD_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * Where synthesized and copied records go: the collector's current file.
 * emit() returns 0 or a negative errno.
 */
struct record_sink {
	int (*emit)(void *context, const void *record, size_t size,
		    uint64_t time);
	void *context;
};

/*
 * How synthesized kernel records are laid out so that readers decode them
 * like the kernel's own: the event's sample_id_all trailer (from attr),
 * carrying this id and cpu.
 */
struct synth_layout {
	const struct perf_event_attr *attr;
	uint64_t id;
	uint32_t cpu;
};

#endif
