/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compact samples (perfrec-format(5), "Compact samples"): what the
 * writing half (compact-write.c, behind prf_writer_append()) and the
 * reading half (compact-read.c, behind prf_reader_next_chunk()) share.
 * Inside libperfrec-format only; never installed.
 */
#ifndef PRF_COMPACT_H
#define PRF_COMPACT_H

#include <string.h>
#include "format.h"

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

/* ---- writing: compact-write.c ----------------------------------------- */

struct prf_compact_writer;
int prf_compact_writer_new(struct prf_compact_writer **out, const struct prf_file_info *info);
void prf_compact_writer_free(struct prf_compact_writer *cw);
/*
 * Adds a PERF_RECORD_SAMPLE; one that does not fit the compact layout is
 * kept whole.  0, or -ENOMEM (the chunk's samples so far stay sound).
 */
int prf_compact_writer_add(struct prf_compact_writer *cw, const void *record, size_t size);
/* Bytes the two records would take now at most, and the samples as given. */
size_t prf_compact_writer_size(const struct prf_compact_writer *cw);
size_t prf_compact_writer_expanded(const struct prf_compact_writer *cw);
/*
 * Writes the two records (their size, at most prf_compact_writer_size())
 * and starts over.
 */
size_t prf_compact_writer_emit(struct prf_compact_writer *cw, uint8_t *out);
void prf_compact_writer_reset(struct prf_compact_writer *cw);

/* ---- reading: compact-read.c ------------------------------------------ */

/* Buffers of an expanded chunk, reused from chunk to chunk. */
struct prf_compact_buffers {
	uint8_t *records;
	size_t records_capacity;
	struct prf_stack_ref *refs;	/* one per record */
	size_t refs_capacity;
	struct prf_compact_node *nodes;
	size_t nodes_capacity;
	uint64_t *frames;
	size_t frames_capacity;
	struct prf_compact_sample *samples;	/* prf_reader_keep_compact()'s */
	size_t samples_capacity;
};
void prf_compact_buffers_free(struct prf_compact_buffers *b);

/*
 * A samples chunk's records with its compact records expanded into
 * kernel samples: 1 and *out filled (data, size, record_count, stacks,
 * stack_count); 0 when the chunk holds no compact records (*out
 * untouched); -ENOMEM; -EBADMSG when they do not decode, error saying
 * why (the reader's diagnostic names the file and the chunk).
 */
int prf_compact_expand(const struct prf_reader *reader, const uint8_t *payload, size_t size,
		       struct prf_compact_buffers *buffers, struct prf_chunk *out,
		       struct prf_error *error);
/* reader.c, for the expander: whether compact samples are kept as they are. */
int prf_reader_keeps_compact(const struct prf_reader *reader);

/* reader.c, for the expander: the sample layout of event index; NULL past the end. */
const struct prf_event *prf_reader_event_at(const struct prf_reader *reader, uint64_t index);

#endif
