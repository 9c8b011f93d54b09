/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Writing a capture: chunks of records, zstd, crc32c, a trailer. */
#ifndef PRF_FORMAT_WRITER_H
#define PRF_FORMAT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "format-info.h"

/* Writing                                                                 */
/* ---------------------------------------------------------------------- */

struct prf_writer;

enum prf_sample_encoding {
	PRF_ENCODING_VERBATIM = 0,	/* samples as the kernel wrote them */
	PRF_ENCODING_COMPACT = 1,	/* interned stacks, varint columns (1.2) */
};

struct prf_writer_options {
	int zstd_level;			/* 0: default (3); < 0: no compression */
	size_t chunk_size;		/* raw bytes per chunk; 0: default 1 MiB */
	const char *name;		/* the file's name, for messages */
	enum prf_sample_encoding sample_encoding;
};

#define PRF_ZSTD_LEVEL_DEFAULT	3
#define PRF_CHUNK_SIZE_DEFAULT	(1u << 20)

struct prf_writer_stats {
	uint64_t chunks;
	uint64_t records;
	uint64_t raw_bytes;
	uint64_t stored_bytes;		/* chunk payloads as written */
	uint64_t file_bytes;		/* all bytes of the file so far */
	uint64_t dropped_records;
	uint64_t dropped_bytes;
};

/*
 * Starts a file on fd (which the writer does not close) by writing its
 * header.  info's host facts, clock, metadata and events are copied.
 */
int prf_writer_open(struct prf_writer **writer, int fd,
		    const struct prf_file_info *info,
		    const struct prf_writer_options *options,
		    struct prf_error *error);

/*
 * Appends one record (a kernel record or a prf_record_header record; its
 * size must match the one in its header and be a multiple of 8).  time is
 * the record's timestamp, 0 if unknown.  When the chunk is full it is
 * compressed and written; a failed write returns the error, the writer
 * cuts the file back to its last whole chunk and counts what it dropped.
 */
int prf_writer_append(struct prf_writer *writer, const void *record,
		      size_t size, uint64_t time);

/* Writes the records appended so far as a chunk (nothing if none). */
int prf_writer_flush(struct prf_writer *writer);

/* Flushes and writes the trailer that marks the file complete. */
int prf_writer_finish(struct prf_writer *writer);

/* Frees the writer; a file not finished stays readable to its last chunk. */
void prf_writer_close(struct prf_writer *writer);

void prf_writer_get_stats(const struct prf_writer *writer,
			  struct prf_writer_stats *stats);

/* Bytes appended but not yet written. */
size_t prf_writer_pending(const struct prf_writer *writer);

/* The message of the last failed call, naming the file and the cause. */
const char *prf_writer_last_error(const struct prf_writer *writer);

/* ---------------------------------------------------------------------- */

#endif
