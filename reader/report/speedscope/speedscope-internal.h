/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SPEEDSCOPE_INTERNAL_H
#define PERFREC_SPEEDSCOPE_INTERNAL_H

/*
 * What speedscope.c (the tables, filled sample by sample) and
 * speedscope-write.c (the file) share.  Every table is an array whose
 * index + 1 is its id in a prf_index; its index is what the file names.
 * Memory grows with what is distinct (addresses, frames, stacks,
 * threads), and by 24 bytes a sample.
 */
#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "speedscope.h"

#define SPEEDSCOPE_MAX_FRAMES	1024
/* Unwinding markers come on top of a stack's frames. */
#define SPEEDSCOPE_MAX_STACK	(SPEEDSCOPE_MAX_FRAMES + 16)

struct speedscope_frame {
	char *name;			/* view_folded_name()'s, owned */
	const char *file;		/* the DSO's path; NULL: none */
};

/* An address's frames, innermost inlined first, in frame_ids. */
struct speedscope_address {
	const struct dso *dso;		/* NULL: no map (address raw), or none for the kernel */
	uint64_t address;
	int kernel;
	size_t first;
	uint32_t count;
};

/* A stack: frame indices from the root, in stack_words. */
struct speedscope_stack {
	size_t first;
	uint32_t depth;
};

/*
 * A sample: a file's samples are in the order of their CPUs' ring
 * buffers, not of time, so a thread's are sorted before they are
 * written (and those of one stack in a row weighed together).
 */
struct speedscope_run {
	uint64_t time;
	uint64_t weight;
	uint32_t stack;			/* index */
};

struct speedscope_thread {
	const char *host;		/* interned by the session */
	uint32_t pid, tid;
	const char *comm;		/* at its latest sample (exec renames); interned */
	uint64_t comm_time;
	uint64_t total;
	struct speedscope_run *runs;
	size_t run_count, run_capacity;
};

struct speedscope {
	struct speedscope_options options;
	struct session *session;
	struct symbolizer *symbolizer;
	struct speedscope_frame *frames;
	size_t frame_count, frame_capacity;
	struct speedscope_address *addresses;
	size_t address_count, address_capacity;
	uint32_t *frame_ids;		/* the addresses' frames */
	size_t frame_id_count, frame_id_capacity;
	struct speedscope_stack *stacks;
	size_t stack_count, stack_capacity;
	uint32_t *stack_words;		/* the stacks' frames */
	size_t stack_word_count, stack_word_capacity;
	struct speedscope_thread *threads;	/* in the order of their first samples */
	size_t thread_count, thread_capacity;
	struct prf_index frame_index, address_index, stack_index, thread_index;
	uint32_t stack[SPEEDSCOPE_MAX_STACK];	/* the sample's, leaf first */
	int error;			/* -ENOMEM: a sample could not be kept */
};

#endif
