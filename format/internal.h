/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared inside libperfrec-format only; never installed. */
#ifndef PRF_INTERNAL_H
#define PRF_INTERNAL_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
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
