/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared inside libperfrec-format only; never installed. */
#ifndef PRF_INTERNAL_H
#define PRF_INTERNAL_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"


/* Size of a record from its first bytes, whichever family it belongs to. */
static inline int prf_record_size(const uint8_t *p, size_t available,
				  size_t *size)
{
	uint32_t type;

	if (available < sizeof(struct perf_event_header))
		return -1;
	memcpy(&type, p, sizeof(type));
	if (type >= PRF_RECORD_BASE) {
		uint32_t size32;

		if (available < sizeof(struct prf_record_header))
			return -1;
		memcpy(&size32, p + 8, sizeof(size32));
		if (size32 < sizeof(struct prf_record_header))
			return -1;
		*size = size32;
	} else {
		uint16_t size16;

		memcpy(&size16, p + 6, sizeof(size16));
		*size = size16;
	}
	return 0;
}

/* ---- compact samples: compact-write.c, compact-read.c ------------- */

/* The sample fields a compact sample holds apart; the rest is its tail. */
#define PRF_COMPACT_HEAD_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
	PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* Words of a callchain the kernel can write into one u16-sized record. */
#define PRF_CALLCHAIN_MAX	8190u

/*
 * The times of COMPACT_SAMPLES_BY_CPU: a timer's samples on one CPU come a
 * period apart, give or take its latency, while the record interleaves
 * the CPUs as the rings were drained.  Writer and reader keep the same
 * table, empty at the start of each record.
 */
struct prf_cpu_times {
	uint64_t owner[PRF_COMPACT_CPU_SLOTS];	/* cpu + 1, 0: none yet */
	uint64_t time[PRF_COMPACT_CPU_SLOTS];
	uint64_t previous;			/* the record's last time */
};

static inline void prf_cpu_times_reset(struct prf_cpu_times *t)
{
	memset(t->owner, 0, sizeof(t->owner));
	t->previous = 0;
}

/* step: the sample's period for a clock event, else 0. */
static inline uint64_t prf_cpu_times_predict(const struct prf_cpu_times *t, uint32_t cpu,
					     uint64_t step)
{
	uint32_t slot = cpu % PRF_COMPACT_CPU_SLOTS;

	return t->owner[slot] == (uint64_t)cpu + 1 ? t->time[slot] + step : t->previous;
}

static inline void prf_cpu_times_note(struct prf_cpu_times *t, uint32_t cpu, uint64_t time)
{
	uint32_t slot = cpu % PRF_COMPACT_CPU_SLOTS;

	t->owner[slot] = (uint64_t)cpu + 1;
	t->time[slot] = time;
	t->previous = time;
}


struct compact_writer;
int compact_writer_new(struct compact_writer **out, const struct prf_file_info *info);
void compact_writer_free(struct compact_writer *cw);
/*
 * Adds a PERF_RECORD_SAMPLE; one that does not fit the compact layout is
 * kept whole.  0, or -ENOMEM (the chunk's samples so far stay sound).
 */
int compact_writer_add(struct compact_writer *cw, const void *record, size_t size);
/* Bytes the two records would take now at most, and the samples as given. */
size_t compact_writer_size(const struct compact_writer *cw);
size_t compact_writer_expanded(const struct compact_writer *cw);
uint32_t compact_writer_count(const struct compact_writer *cw);
/* Writes the two records (their size, at most compact_writer_size()) and starts over. */
size_t compact_writer_emit(struct compact_writer *cw, uint8_t *out);
void compact_writer_reset(struct compact_writer *cw);

/* Buffers of an expanded chunk, reused from chunk to chunk. */
struct compact_buffers {
	uint8_t *records;
	size_t records_capacity;
	struct prf_stack_ref *refs;	/* one per record */
	size_t refs_capacity;
	struct compact_node *nodes;
	size_t nodes_capacity;
	uint64_t *frames;
	size_t frames_capacity;
};
void compact_buffers_free(struct compact_buffers *b);

/* The sample layout of event index, for the expander; NULL past the end. */
const struct prf_event *prf_reader_event_at(const struct prf_reader *reader, uint64_t index);

/*
 * A samples chunk's records with its compact records expanded into
 * kernel samples: 1 and *out filled (data, size, record_count, stacks,
 * stack_count); 0 when the chunk holds no compact records (*out
 * untouched); -ENOMEM; -EBADMSG with *why when they do not decode.
 */
int compact_expand(const struct prf_reader *reader, const uint8_t *payload, size_t size,
		   struct compact_buffers *buffers, struct prf_chunk *out, const char **why);

/*
 * reader.c, for read-ahead.c: the next chunk as prf_reader_next_chunk()
 * finds it, read and decompressed into buffers (swapped in for the call,
 * so that the chunk stays valid while the reader goes on), and the
 * reader's statistics after it.
 */
struct chunk_buffers {
	uint8_t *stored, *raw;
	size_t stored_capacity, raw_capacity;
	struct compact_buffers compact;
};
int prf_reader_next_chunk_into(struct prf_reader *reader, struct prf_chunk *chunk,
			       struct chunk_buffers *buffers, struct prf_read_stats *stats);

/* read-ahead.c */
struct read_ahead;
int read_ahead_start(struct read_ahead **out, struct prf_reader *reader);
int read_ahead_next(struct read_ahead *ahead, struct prf_chunk *chunk);
void read_ahead_stats(const struct read_ahead *ahead, struct prf_read_stats *stats);
void read_ahead_stop(struct read_ahead *ahead);

#endif
