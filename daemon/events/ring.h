/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_RING_H
#define PERFRECD_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* The kernel's ring buffer of one event fd, as mapped by us. */
struct cpu_ring {
	int cpu;
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t data_size;		/* a power of two */
	size_t mapped_size;		/* meta page + data */
	uint8_t *wrap_buffer;		/* a record that straddles the end */
	uint64_t overruns;		/* times the ring held an impossible record */
};

int prd_ring_map(struct cpu_ring *ring, int fd, int cpu, size_t data_pages);
void prd_ring_unmap(struct cpu_ring *ring);

/*
 * Called for each record in the ring, in order; record is contiguous and
 * valid only during the call.  A non-zero return stops the drain there.
 */
typedef int (*ring_record_fn)(void *context, const struct perf_event_header *record,
			      int cpu);

/* Hands every complete record to fn and frees their space. */
int prd_ring_drain(struct cpu_ring *ring, ring_record_fn fn, void *context);

#endif
