/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared inside libperfrec-format only; never installed. */
#ifndef PRF_INTERNAL_H
#define PRF_INTERNAL_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "perfrec-format.h"

#define PRF_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define PRF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

__attribute__((format(printf, 3, 4)))
int prf_set_error(struct prf_error *error, int code, const char *fmt, ...);

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

/*
 * reader.c, for read-ahead.c: the next chunk as prf_reader_next_chunk()
 * finds it, read and decompressed into buffers (swapped in for the call,
 * so that the chunk stays valid while the reader goes on), and the
 * reader's statistics after it.
 */
struct chunk_buffers {
	uint8_t *stored, *raw;
	size_t stored_capacity, raw_capacity;
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
