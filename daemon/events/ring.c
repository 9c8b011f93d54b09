/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Draining the perf ring buffer.  The protocol of perf_event_open(2): the
 * kernel publishes data_head after writing records, so it is read with
 * acquire ordering before the records; we publish data_tail with release
 * ordering after we are done with them, which hands the space back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ring.h"

int prd_ring_map(struct cpu_ring *ring, int fd, int cpu, size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *base;

	if (!data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	ring->cpu = cpu;
	ring->data_size = data_pages * page;
	ring->mapped_size = ring->data_size + page;
	base = mmap(NULL, ring->mapped_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	/* A record is at most 64 KiB: its u16 size says so. */
	ring->wrap_buffer = malloc(65536);
	if (!ring->wrap_buffer) {
		munmap(base, ring->mapped_size);
		return -ENOMEM;
	}
	ring->meta = base;
	ring->data = (uint8_t *)base + page;
	return 0;
}

void prd_ring_unmap(struct cpu_ring *ring)
{
	if (ring->meta)
		munmap(ring->meta, ring->mapped_size);
	free(ring->wrap_buffer);
	ring->meta = NULL;
	ring->data = NULL;
	ring->wrap_buffer = NULL;
}

int prd_ring_drain(struct cpu_ring *ring, ring_record_fn fn, void *context)
{
	uint64_t head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ring->meta->data_tail;	/* only we write it */
	uint64_t mask = ring->data_size - 1;
	int ret = 0;

	while (tail < head) {
		size_t offset = (size_t)(tail & mask);
		size_t until_end = ring->data_size - offset;
		const struct perf_event_header *record;
		struct perf_event_header header;

		/* Even the header may straddle the end of the buffer. */
		if (until_end >= sizeof(header)) {
			memcpy(&header, ring->data + offset, sizeof(header));
		} else {
			memcpy(&header, ring->data + offset, until_end);
			memcpy((uint8_t *)&header + until_end, ring->data,
			       sizeof(header) - until_end);
		}
		if (header.size < sizeof(header) || header.size > head - tail) {
			/* Cannot happen with a sane kernel; never loop on it. */
			ring->overruns++;
			tail = head;
			break;
		}
		if (header.size <= until_end) {
			record = (const void *)(ring->data + offset);
		} else {
			memcpy(ring->wrap_buffer, ring->data + offset, until_end);
			memcpy(ring->wrap_buffer + until_end, ring->data,
			       header.size - until_end);
			record = (const void *)ring->wrap_buffer;
		}
		ret = fn(context, record, ring->cpu);
		if (ret)
			break;
		tail += header.size;
	}
	__atomic_store_n(&ring->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}
