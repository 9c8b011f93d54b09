/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading a capture: bounded and validated, chunk by chunk. */
#ifndef PRF_FORMAT_READER_H
#define PRF_FORMAT_READER_H

#include <stddef.h>
#include <stdint.h>
#include "format-info.h"

/* Reading                                                                 */
/* ---------------------------------------------------------------------- */

struct prf_reader;

/* Called once for each problem met while reading, in file order. */
typedef void (*prf_diag_fn)(void *context, uint64_t offset,
			    const char *message);

int prf_reader_open(struct prf_reader **reader, const char *path,
		    struct prf_error *error);
/* name is used in messages; the reader does not close fd. */
int prf_reader_open_fd(struct prf_reader **reader, int fd, const char *name,
		       struct prf_error *error);
void prf_reader_close(struct prf_reader *reader);

void prf_reader_set_diag(struct prf_reader *reader, prf_diag_fn fn,
			 void *context);

const struct prf_file_info *prf_reader_info(const struct prf_reader *reader);

/*
 * The event a record belongs to (by its sample id), or NULL: one of the
 * info's events, or of its hidden ones (a perf.data's dummy event).
 */
const struct prf_event *prf_reader_event_for(const struct prf_reader *reader,
					     const void *record, size_t size);

struct prf_chunk {
	uint64_t offset;		/* of the chunk header in the file */
	uint64_t sequence;
	uint32_t flags;
	uint32_t codec;
	uint32_t record_count;		/* records it yields; skipped: its samples */
	uint32_t stored_size;
	uint64_t first_time, last_time;
	uint32_t raw_size;		/* of the payload as stored, decompressed */
	uint32_t stack_count;		/* compact samples: stacks defined; else 0 */
	/*
	 * The records, 8-byte aligned.  Compact samples come here expanded
	 * into the kernel's PERF_RECORD_SAMPLEs, byte for byte as they were
	 * given to the writer, and record_count counts them.
	 */
	const uint8_t *data;
	size_t size;
	const struct prf_stack_ref *stacks;	/* a record's stack; NULL: none */
	/* With prf_reader_keep_compact(): the compact samples, not in data. */
	const struct prf_compact_sample *compact;
	size_t compact_count;
	const struct prf_compact_node *nodes;	/* their stacks */
	/* iteration state for prf_chunk_next_record() */
	size_t position;
	uint32_t index;
};

/*
 * Reads the next whole, valid chunk into chunk (valid until the next
 * call).  Returns 1 for a chunk, 0 at the end, a negative errno for an
 * I/O error.  A damaged chunk is reported through the diag callback and
 * skipped; reading resumes at the next chunk header found after it.
 */
int prf_reader_next_chunk(struct prf_reader *reader, struct prf_chunk *chunk);

/*
 * With skip set, chunks flagged PRF_CHUNK_SAMPLES come from
 * prf_reader_next_chunk() checked against their payload checksum but not
 * decompressed: their header fields are there (record_count, times), and
 * no records.  For a pass over everything but the samples.
 */
void prf_reader_skip_samples(struct prf_reader *reader, int skip);

/*
 * From now on a thread of the reader's own reads and decompresses the
 * next chunks while the caller works on the one it has (each chunk stays
 * valid until the next call, as without).  Returns 0, or a negative errno
 * when no thread could be started (reading goes on without).  The diag
 * callback is then called on that thread; prf_reader_skip_samples() must
 * come before.
 */
int prf_reader_read_ahead(struct prf_reader *reader);

/*
 * With keep set, a chunk's compact samples come as prf_compact_sample,
 * in chunk->compact, rather than as records in its data (which keeps the
 * chunk's other records, whole samples among them): for a reader that
 * takes samples alike together.  They are checked as fully as when
 * expanded: a chunk that would not expand is skipped as damaged either
 * way.  Before prf_reader_read_ahead().
 */
void prf_reader_keep_compact(struct prf_reader *reader, int keep);

/*
 * A compact sample's fields, 0 where its event has none (as decoding its
 * record gives them); the callchain is the chunk's stack.
 */
struct prf_compact_sample {
	const struct prf_event *event;
	uint64_t identifier, id, stream_id;
	uint64_t ip, time, addr, period;
	uint32_t pid, tid, cpu, res;
	uint32_t stack;			/* the chunk's number, 1..; 0: no callchain */
	uint16_t misc;
	uint16_t tail_size;
	const uint8_t *tail;		/* the fields after the callchain, as the kernel's */
};

/*
 * The PERF_RECORD_SAMPLE s was made of, byte for byte as expanding gives
 * it, into out (UINT16_MAX bytes); its size.
 */
size_t prf_compact_sample_record(const struct prf_chunk *chunk,
				 const struct prf_compact_sample *s, void *out);

/* A kept compact sample's stack hash, as prf_stack_ref's (0 for stack 0). */
uint64_t prf_compact_stack_hash(const struct prf_chunk *chunk, uint32_t stack);

/*
 * The callchain of a compact sample: its stack number in the chunk (1..,
 * 0 for none) and a 64-bit hash of its words, equal for equal callchains
 * in any chunk and file this process reads.  User addresses mean
 * something only with the sample's pid.
 */
struct prf_stack_ref {
	uint32_t id;
	uint32_t reserved;
	uint64_t hash;
};

struct prf_record {
	uint32_t type;
	uint16_t misc;
	const void *data;		/* the whole record, header included */
	size_t size;
	uint64_t offset;		/* within the chunk's records */
	struct prf_stack_ref stack;	/* compact samples only; else zero */
};

/*
 * Next record of chunk: 1 for a record, 0 at the end, -EBADMSG when a
 * record's size is impossible (the rest of the chunk is then unusable).
 */
int prf_chunk_next_record(struct prf_chunk *chunk, struct prf_record *record);

struct prf_read_stats {
	uint64_t file_size;
	uint64_t chunks;		/* valid data chunks returned */
	uint64_t records;
	uint64_t raw_bytes;
	uint64_t stored_bytes;
	uint64_t damaged_chunks;	/* skipped for a bad crc, length or codec */
	uint64_t skipped_bytes;		/* of damaged regions inside the file */
	uint64_t truncated_bytes;	/* of a cut-short chunk at the end */
	int complete;			/* a valid trailer ended the file */
	struct prf_trailer trailer;	/* if complete */
};

void prf_reader_get_stats(const struct prf_reader *reader,
			  struct prf_read_stats *stats);

/*
 * Whether the file open at fd ends with a sound trailer, i.e. its writer
 * finished it: 1; 0 when it is still being written, was cut short or its
 * trailer is damaged; a negative errno (-EINVAL: not a regular file).
 * Reads the trailer alone (the file's last 128 bytes), so it costs the
 * same for a file of any size.
 */
int prf_file_is_complete(int fd);

/* ---------------------------------------------------------------------- */

#endif
