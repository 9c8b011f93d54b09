/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_PPROF_INTERNAL_H
#define PERFREC_PPROF_INTERNAL_H

/*
 * What the pprof*.c files share: the tables the builder fills from the
 * samples (pprof.c, pprof-location.c, pprof-table.c), which
 * pprof-write.c turns into a Profile message with the wire format of
 * pprof-encode.c.  pprof.h declares what the programs call.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common.h"
#include "pprof.h"

/* ---- the tables ------------------------------------------------------- */

/*
 * Every table is an array whose index + 1 is the message's id, so ids
 * are dense, 1..N in array order (Parca checks that; pprof only wants
 * them unique and non-zero).  Strings are indexes into the string table,
 * whose entry 0 is "".
 */
struct pprof_line {
	uint32_t function;		/* id */
	uint32_t line;			/* 0: unknown */
};

struct pprof_location {
	uint32_t mapping;		/* id; 0: no mapping covers the address */
	uint64_t address;		/* in the mapping's range (see pprof.c) */
	struct pprof_line *lines;	/* innermost inlined frame first; NULL: */
	size_t line_count;		/*   address only, for a server to symbolize */
};

struct pprof_function {
	uint32_t name, filename;	/* strings */
};

struct pprof_mapping {
	const struct dso *dso;
	uint64_t start, limit, offset;	/* memory_start, memory_limit, file_offset */
	uint32_t filename, build_id;	/* strings */
	int kernel;
	/* Whether every location of the mapping got a function, file, line. */
	int all_functions, all_filenames, all_lines;
};

struct pprof_sample {
	size_t stack;			/* into the stack arena: location ids */
	uint32_t depth;
	uint32_t comm, event;		/* strings; event 0: no label */
	uint32_t unit, container;	/* strings; 0: unknown, none */
	uint32_t pid, tid;
	uint32_t ns_pid, ns_tid;	/* in its pid namespace; 0: the host's */
	uint64_t count, period;
};

/* The tables, filled by pprof_add() (pprof.c). */
struct pprof_tables {
	char **strings;
	size_t string_count;
	struct pprof_mapping *mappings;
	size_t mapping_count;
	struct pprof_location *locations;
	size_t location_count;
	struct pprof_function *functions;
	size_t function_count;
	struct pprof_sample *samples;
	size_t sample_count;
	uint32_t *stacks;		/* the samples' location ids, leaf first */
	int inline_frames;		/* the symbolizer looked inlined frames up */
};

/* ---- the builder (pprof.c) --------------------------------------------- */

/* Per sample, as the aggregator does: deeper callchains are cut. */
#define PPROF_MAX_FRAMES	1024
/* Unwinding markers come on top of a stack's frames. */
#define PPROF_MAX_STACK		(PPROF_MAX_FRAMES + 16)

/* What tells a Location from the others (pprof-location.c). */
struct pprof_location_key {
	const struct dso *dso;		/* NULL: no map, or a marker */
	uint64_t address;		/* file offset, kernel or raw address */
	int kind;			/* 0 user, 1 kernel, 2 unwinding marker */
};

struct pprof_builder {
	struct pprof_options options;
	struct session *session;
	struct symbolizer *symbolizer;
	struct pprof_tables t;
	size_t string_capacity, mapping_capacity, location_capacity, function_capacity,
	       sample_capacity, stack_capacity, location_key_capacity;
	size_t stack_size;		/* location ids used in t.stacks */
	struct pprof_location_key *location_keys;
	struct prf_index string_index, mapping_index, location_index, function_index,
			   sample_index;
	uint32_t stack[PPROF_MAX_STACK];	/* the sample's, leaf first */
	uint32_t unknown_string;	/* "[unknown]" */
	int error;			/* -ENOMEM: a sample could not be counted */
};

/* ---- the string table (pprof-table.c) --------------------------------- */

/* Room for one more entry of a table: 0 or -ENOMEM. */
#define PPROF_GROW(b, table, name) \
	prf_ensure_mem((void **)&(b)->t.table, &(b)->name##_capacity, sizeof(*(b)->t.table), \
		       (b)->t.name##_count + 1)

/*
 * The string's index, interned (0 or -ENOMEM); bytes that are not UTF-8
 * become U+FFFD, as protobuf strings must be UTF-8.  pprof-write.c adds the
 * profile's own strings (sample types, label keys) with it.
 */
int pprof_string(struct pprof_builder *builder, const char *s, uint32_t *index);
/* The same, NULL as ""; without memory 0 ("") and builder->error set. */
uint32_t pprof_string_of(struct pprof_builder *builder, const char *s);

/* ---- locations (pprof-location.c) ------------------------------------- */

/* The id of the Location of a sample's address (a caller's less one already). */
uint32_t pprof_location_of(struct pprof_builder *builder, const struct session_sample *sample,
			   uint64_t address, int kernel);
/* The Location where an unwound stack stops short (UNWIND_FRAME_*). */
uint32_t pprof_marker_location(struct pprof_builder *builder, uint64_t marker);

/* ---- the wire format (pprof-encode.c) --------------------------------- */

/*
 * A message being encoded.  Writers never fail on their own: a buffer
 * that cannot grow remembers it (error = -ENOMEM) and ignores the rest,
 * so encoding code checks once at the end.
 */
struct pprof_buffer {
	uint8_t *data;
	size_t size, capacity;
	int error;
};

void pprof_buffer_reset(struct pprof_buffer *buffer);
void pprof_buffer_free(struct pprof_buffer *buffer);

/* Scalar fields; zero is the default and is left out, as proto3 does. */
void pprof_put_uint(struct pprof_buffer *buffer, uint32_t field, uint64_t value);
void pprof_put_int(struct pprof_buffer *buffer, uint32_t field, int64_t value);
/* Length-delimited: a string (written even when empty) or a message. */
void pprof_put_bytes(struct pprof_buffer *buffer, uint32_t field, const void *data,
		     size_t size);
void pprof_put_message(struct pprof_buffer *buffer, uint32_t field,
		       const struct pprof_buffer *message);
/* A packed repeated varint field (nothing when count is 0). */
void pprof_put_packed(struct pprof_buffer *buffer, uint32_t field, const uint64_t *values,
		      size_t count);
void pprof_put_packed32(struct pprof_buffer *buffer, uint32_t field, const uint32_t *values,
			size_t count);

/*
 * The Profile as gzip: its fields are written one after the other, so the
 * whole message never sits in memory.  All return 0 or a negative errno.
 */
struct pprof_stream;

int pprof_stream_open(struct pprof_stream **stream, FILE *out);
/* Fields encoded already (a buffer's bytes), as they are. */
int pprof_stream_write(struct pprof_stream *stream, const void *data, size_t size);
/* A length-delimited field of the top-level message: a string or a message. */
int pprof_stream_field(struct pprof_stream *stream, uint32_t field, const void *data,
		       size_t size);
/* Ends the gzip member (when finish) and frees the stream. */
int pprof_stream_close(struct pprof_stream *stream, int finish);

#endif
