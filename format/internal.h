/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared inside libperfrec-format only; never installed. */
#ifndef PRF_INTERNAL_H
#define PRF_INTERNAL_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include <zstd.h>
#include "compact.h"	/* struct prf_compact_buffers, in struct prf_chunk_buffers */

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

struct event_id {
	uint64_t id;
	const struct prf_event *event;
};

struct prf_perfdata;

/* reader.c's, here for perfdata-read.c, which fills it for a perf.data file. */
struct prf_reader {
	int fd;
	int owns_fd;
	char *name;
	uint64_t file_size;

	uint8_t *header;		/* the whole header area, kept */
	char *strings;			/* NUL-terminated copies of strings */
	struct prf_event *events;
	struct prf_meta *meta;
	struct event_id *ids;		/* sorted by id */
	size_t id_count;
	struct prf_file_info info;

	uint64_t offset;		/* where the next chunk starts */
	uint8_t *stored;
	size_t stored_capacity;
	uint8_t *raw;
	size_t raw_capacity;
	struct prf_compact_buffers compact;	/* compact samples, expanded */
	ZSTD_DCtx *dctx;
	int skip_samples;		/* prf_reader_skip_samples() */
	int keep_compact;		/* prf_reader_keep_compact() */
	struct prf_read_ahead *ahead;	/* prf_reader_read_ahead(): it reads the chunks */

	prf_diag_fn diag;
	void *diag_context;
	struct prf_read_stats stats;

	/*
	 * Where a record's event id is, when not only PERF_SAMPLE_IDENTIFIER
	 * says it (perf.data: PERF_SAMPLE_ID, placed by the first event's
	 * sample_type, which perf makes every event share): bytes from a
	 * sample's start, from the end of another record; 0: nowhere.
	 */
	size_t sample_id_at, other_id_from_end;
	struct prf_perfdata *perfdata;	/* a perf.data file: perfdata-read.c's state */
};

__attribute__((format(printf, 3, 4)))
void prf_reader_diag(struct prf_reader *r, uint64_t offset, const char *fmt, ...);
/* pread of exactly size bytes: 0, -ENODATA past the end, or -errno. */
int prf_read_at(int fd, void *buf, size_t size, uint64_t offset);
/* r->ids from r->events' ids, sorted: 0 or -ENOMEM. */
int prf_reader_index_ids(struct prf_reader *r);
/* The event of an id, by the index; NULL for none. */
const struct prf_event *prf_reader_event_of_id(const struct prf_reader *r, uint64_t id);

/*
 * perfdata-read.c: perf's perf.data files through the same reader.  open
 * fills r's info, events and ids from the file's header and features;
 * next_chunk is next_chunk()'s for such a file (records into r->raw).
 */
int prf_perfdata_open(struct prf_reader *r, struct prf_error *error);
int prf_perfdata_next_chunk(struct prf_reader *r, struct prf_chunk *chunk);
void prf_perfdata_free(struct prf_perfdata *pd);

/*
 * reader.c, for read-ahead.c: the next chunk as prf_reader_next_chunk()
 * finds it, read and decompressed into buffers (swapped in for the call,
 * so that the chunk stays valid while the reader goes on), and the
 * reader's statistics after it.
 */
struct prf_chunk_buffers {
	uint8_t *stored, *raw;
	size_t stored_capacity, raw_capacity;
	struct prf_compact_buffers compact;
};
int prf_reader_next_chunk_into(struct prf_reader *reader, struct prf_chunk *chunk,
			       struct prf_chunk_buffers *buffers, struct prf_read_stats *stats);

/* read-ahead.c */
struct prf_read_ahead;
int prf_read_ahead_start(struct prf_read_ahead **out, struct prf_reader *reader);
int prf_read_ahead_next(struct prf_read_ahead *ahead, struct prf_chunk *chunk);
void prf_read_ahead_stats(const struct prf_read_ahead *ahead, struct prf_read_stats *stats);
void prf_read_ahead_stop(struct prf_read_ahead *ahead);

#endif
