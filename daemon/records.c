/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rings' records into the current file, and the sink of synthesized ones. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include "collector-internal.h"

static uint64_t record_time(const struct collector *c,
			    const struct perf_event_header *record)
{
	uint64_t time = 0;

	if (record->type == PERF_RECORD_SAMPLE) {
		if (c->sample_time_offset && c->sample_time_offset + 8 <= record->size)
			memcpy(&time, (const uint8_t *)record + c->sample_time_offset, 8);
	} else if (c->trailer_time_from_end &&
		   c->trailer_time_from_end + sizeof(*record) <= record->size) {
		memcpy(&time, (const uint8_t *)record + record->size -
		       c->trailer_time_from_end, 8);
	}
	return time;
}

void prd_collector_time_offsets(struct collector *c)
{
	uint64_t type = c->events.events[0].attr.sample_type;
	size_t trailer = 0;

	c->sample_time_offset = 0;
	if (type & PERF_SAMPLE_TIME)
		c->sample_time_offset = sizeof(struct perf_event_header) +
			8 * (!!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP) +
			     !!(type & PERF_SAMPLE_TID));
	/* The trailer is TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
	if (!c->events.events[0].attr.sample_id_all || !(type & PERF_SAMPLE_TIME))
		return;
	trailer = 8 * (!!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ID) +
		       !!(type & PERF_SAMPLE_STREAM_ID) + !!(type & PERF_SAMPLE_CPU) +
		       !!(type & PERF_SAMPLE_IDENTIFIER));
	c->trailer_time_from_end = trailer;
}

/* MMAP2 without a build-id from the kernel: find it, once per file. */
static void note_mapping_build_id(struct collector *c,
				  const struct perf_event_header *record,
				  uint64_t time)
{
	const uint8_t *p = (const uint8_t *)record;
	uint32_t pid, dev_major = 0, dev_minor = 0;
	uint64_t start, length, inode = 0, inode_generation = 0;
	const char *filename = (const char *)p + 72;
	size_t room = record->size > 72 ? record->size - 72 : 0;
	struct buildid_entry *entry;

	if (!room || !memchr(filename, '\0', room) || filename[0] != '/')
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&length, p + 24, 8);
	if (record->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		char path[4352];
		struct stat st;

		if (p[40] != 0)
			return;		/* the kernel gave it */
		/* The kernel could not read it: find the file ourselves. */
		snprintf(path, sizeof(path), "%s/%u/root%s", c->options->proc_root, pid, filename);
		if (stat(path, &st) < 0 && stat(filename, &st) < 0)
			return;
		dev_major = major(st.st_dev);
		dev_minor = minor(st.st_dev);
		inode = st.st_ino;
	} else {
		memcpy(&dev_major, p + 40, 4);
		memcpy(&dev_minor, p + 44, 4);
		memcpy(&inode, p + 48, 8);
		memcpy(&inode_generation, p + 56, 8);
	}
	entry = prd_buildid_lookup(c->buildids, c->options->proc_root, (pid_t)pid, start,
				   start + length, filename, dev_major, dev_minor, inode);
	if (entry)
		prd_buildid_emit(entry, c->generation, (pid_t)pid, filename, dev_major, dev_minor,
				 inode, inode_generation, &c->sink, time);
}

/*
 * perfrec-format(5), "User stack samples": the kernel reserves the whole
 * sample_stack_user in each sample but fills only dyn_size bytes of it;
 * the file gets the filled part.  A sample that does not decode (which a
 * sane kernel never writes) is kept as it came, for the reader to judge.
 */
static void append_trimmed(struct collector *c, const struct perf_event_attr *attr,
			   const struct perf_event_header *record, uint64_t time)
{
	int size = attr ? prf_sample_trim_stack_user(attr, record, record->size,
						     c->trim_buffer, TRIM_BUFFER_SIZE) : -EBADMSG;

	if (size < 0 && !c->stats.samples_not_trimmed++)
		prd_log_warning("a sample from the kernel does not decode (%s); keeping it untrimmed",
				strerror(-size));
	c->stats.sample_bytes_in += record->size;
	if (size > 0) {
		c->stats.sample_bytes_out += (uint64_t)size;
		prd_output_append(c->output, c->trim_buffer, (size_t)size, time);
	} else {
		c->stats.sample_bytes_out += record->size;
		prd_output_append(c->output, record, record->size, time);
	}
}

/*
 * Our events never ask for build-ids (build_attr()), but Linux 6.18 sets
 * MMAP_BUILD_ID in every event's MMAP2 records while any event on the
 * machine asks (perf record --buildid-mmap), over our bodies of device
 * and inode.  The flag is cleared, so that the file says what the body is.
 */
static void append_mmap2(struct collector *c, const struct perf_event_header *record,
			 uint64_t time)
{
	/* The kernel's MMAP2: 72 bytes, a path of up to PATH_MAX, a trailer. */
	uint64_t copy[(72 + PATH_MAX + 64) / 8];

	if (record->misc & PERF_RECORD_MISC_MMAP_BUILD_ID &&
	    !c->events.events[0].attr.build_id && record->size <= sizeof(copy)) {
		memcpy(copy, record, record->size);
		record = (const struct perf_event_header *)copy;
		((struct perf_event_header *)copy)->misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	note_mapping_build_id(c, record, time);
	prd_output_append(c->output, record, record->size, time);
	prd_jit_maps_note_mmap(c->jit, record, &c->sink);
}

static int handle_record(void *context, const struct perf_event_header *record,
			 int cpu)
{
	struct collector *c = context;
	uint64_t time = record_time(c, record);
	const struct perf_event_attr *attr;
	uint64_t value;

	switch (record->type) {
	case PERF_RECORD_SAMPLE:
		c->stats.samples++;
		/* Each event's own layout: a tracepoint's samples carry raw data. */
		attr = prd_event_set_attr_of(&c->events, record, record->size);
		if (attr)
			prd_ksyms_note_sample(c->ksyms, attr, record, record->size, &c->sink, time);
		if (c->trim_buffer) {
			append_trimmed(c, attr, record, time);
			return 0;
		}
		break;
	case PERF_RECORD_LOST:
		if (record->size >= 24) {
			memcpy(&value, (const uint8_t *)record + 16, 8);
			c->stats.lost += value;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (record->size >= 16) {
			memcpy(&value, (const uint8_t *)record + 8, 8);
			c->stats.lost_samples += value;
		}
		break;
	case PERF_RECORD_THROTTLE:
		c->stats.throttled++;
		break;
	case PERF_RECORD_MMAP2:
		append_mmap2(c, record, time);
		return 0;
	case PERF_RECORD_EXIT:
		prd_output_append(c->output, record, record->size, time);
		prd_jit_maps_note_exit(c->jit, record, &c->sink);
		return 0;
	default:
		break;
	}
	prd_output_append(c->output, record, record->size, time);
	/* After the FORK, so that readers know the task when they meet these. */
	if (record->type == PERF_RECORD_FORK && record->size >= 32) {
		uint32_t pid, tid;
		uint64_t fork_time;

		memcpy(&pid, (const uint8_t *)record + 8, 4);
		memcpy(&tid, (const uint8_t *)record + 16, 4);
		/* The FORK's own time, which readers order it by; not its trailer's. */
		memcpy(&fork_time, (const uint8_t *)record + 24, 8);
		prd_task_meta_new_task(&c->tasks, (pid_t)pid, (pid_t)tid, fork_time, &c->sink);
	}
	return 0;
}

int prd_collector_sink_emit(void *context, const void *record, size_t size, uint64_t time)
{
	struct collector *c = context;
	const struct perf_event_header *header = record;

	prd_output_append(c->output, record, size, time);
	/* The snapshot's maps name the processes already running JIT code. */
	if (header->type == PERF_RECORD_MMAP2)
		prd_jit_maps_note_mmap(c->jit, header, &c->sink);
	return 0;
}

/* A LOST_NOTE: data of this CPU the collector could not keep. */
void prd_collector_note_loss(struct collector *c, enum prf_lost_reason reason, int cpu)
{
	struct prf_lost_note_record note = { 0 };

	note.header.type = PRF_RECORD_LOST_NOTE;
	note.header.size = sizeof(note);
	note.time = prf_clock_ns(CLOCK_MONOTONIC);
	note.reason = reason;
	note.cpu = cpu;
	prd_output_append(c->output, &note, sizeof(note), note.time);
}

void prd_collector_drain_ring(struct collector *c, struct cpu_ring *ring)
{
	uint64_t overruns = ring->overruns;

	if (!ring->meta)
		return;
	prd_ring_drain(ring, handle_record, c);
	if (ring->overruns != overruns) {
		prd_collector_note_loss(c, PRF_LOST_RING_OVERRUN, ring->cpu);
		prd_log_warning("CPU %d: the ring buffer held an impossible record; its contents were dropped",
				ring->cpu);
	}
}

void prd_collector_drain_all(struct collector *c)
{
	for (size_t i = 0; i < c->events.ring_count; i++)
		prd_collector_drain_ring(c, &c->events.rings[i]);
	prd_collector_drain_offcpu(c);
}

static int append_off_cpu(void *context, const struct prf_off_cpu *r)
{
	struct collector *c = context;
	ssize_t size = prf_encode_off_cpu(r, c->offcpu_buffer, OFF_CPU_BUFFER_SIZE);

	if (size < 0)
		return 0;	/* the program's bounds are the format's: cannot happen */
	/* Readers name the kernel frames from the symbols the file carries. */
	prd_ksyms_note_callchain(c->ksyms, r->callchain, r->callchain_nr, &c->sink, r->time);
	prd_ksyms_note_callchain(c->ksyms, r->waker_callchain, r->waker_callchain_nr, &c->sink,
				 r->time);
	prd_output_append(c->output, c->offcpu_buffer, (size_t)size, r->time);
	c->stats.off_cpu++;
	return 0;
}

/* The BPF ring's events, and what it dropped since the last drain, said once a drain. */
void prd_collector_drain_offcpu(struct collector *c)
{
	uint64_t lost;

	if (!c->offcpu)
		return;
	prd_offcpu_drain(c->offcpu, append_off_cpu, c);
	lost = prd_offcpu_lost(c->offcpu);
	if (lost != c->stats.off_cpu_lost) {
		struct prf_lost_note_record note = { 0 };

		prd_log_warning("off-CPU: %llu blocks lost: the BPF ring buffer was full",
				(unsigned long long)(lost - c->stats.off_cpu_lost));
		/* In the file, where readers count them: STATS' lost is the kernel's. */
		note.header.type = PRF_RECORD_LOST_NOTE;
		note.header.size = sizeof(note);
		note.time = prf_clock_ns(CLOCK_MONOTONIC);
		note.reason = PRF_LOST_OFF_CPU;
		note.cpu = -1;
		note.records = lost - c->stats.off_cpu_lost;
		prd_output_append(c->output, &note, sizeof(note), note.time);
		c->stats.off_cpu_lost = lost;
	}
}
