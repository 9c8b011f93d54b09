/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_H
#define PERFREC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What the views print: a header, a flat profile and a call tree, all
 * made by aggregate.c from the replayed samples.  Weights are sample
 * periods (as perf report's "Overhead"); counts are samples.
 */

struct report_header {
	const char *hostname;
	const char *kernel_release;
	const char *machine;
	const char *event;		/* as the user wrote it: cpu-clock, cycles */
	const char *sampling;		/* "97 Hz" or "period 100000" */
	uint64_t start_ns, end_ns;	/* on the capture clock (CLOCK_MONOTONIC) */
	int64_t realtime_offset_ns;	/* add to get wall-clock time */
	uint64_t samples;		/* after filters */
	uint64_t samples_total;		/* in the files */
	uint64_t lost;			/* PERF_RECORD_LOST + LOST_SAMPLES */
	uint64_t dropped;		/* records the collector could not write */
	size_t files;
	size_t damaged_files;		/* cut short or with damaged chunks */
	const char *const *file_names;
};

/* One printable frame: a function (or an unresolved address) in a DSO. */
struct report_symbol {
	const char *name;		/* function, or "[unknown]" */
	const char *dso;		/* short DSO name: "libc.so.6", "[kernel.kallsyms]" */
	const char *srcline;		/* "file.c:42", or NULL */
	uint64_t unknown_offset;	/* for [unknown]: the offset in dso */
	int kernel;			/* a kernel frame: printed [k] */
	int inlined;			/* inlined into its caller */
	int resolved;			/* name is a real symbol */
};

/* Flat profile keys chosen with --sort; unused keys are NULL/0. */
struct flat_entry {
	const char *comm;
	uint32_t pid, tid;
	const struct report_symbol *symbol;	/* when sorting by sym, dso or srcline */
	uint64_t self_period, total_period;
	uint64_t self_samples, total_samples;
};

enum sort_key {
	SORT_COMM = 1u << 0,
	SORT_PID = 1u << 1,
	SORT_TID = 1u << 2,
	SORT_DSO = 1u << 3,
	SORT_SYM = 1u << 4,
	SORT_SRCLINE = 1u << 5,
};

struct call_node {
	const struct report_symbol *symbol;	/* NULL at the root */
	const char *comm;		/* for the first level: the process name */
	uint64_t total_period, self_period;
	uint64_t total_samples, self_samples;
	struct call_node **children;	/* sorted by total_period, descending */
	size_t child_count;
};

struct report_data {
	struct report_header header;
	unsigned sort_keys;		/* enum sort_key bits of the flat entries */
	struct flat_entry *flat;	/* sorted by self_period, descending */
	size_t flat_count;
	struct call_node *tree;		/* root: one child per comm, then frames */
	int tree_callee;		/* 1: inverted (leaf at the top) */
	uint64_t total_period;
	uint64_t total_samples;
};

struct view_options {
	double percent_limit;		/* hide entries/nodes below this % of total */
	size_t top;			/* flat: at most this many rows; 0 = all */
	int width;			/* columns to fit; 0 = unlimited */
	int show_children;		/* flat: a total % column (callers' view) */
};

int view_flat(const struct report_data *data, const struct view_options *options,
	      FILE *out);
int view_tree(const struct report_data *data, const struct view_options *options,
	      FILE *out);
int view_folded(const struct report_data *data, FILE *out);
int view_flat_json(const struct report_data *data, const struct view_options *options,
		   FILE *out);
int view_tree_json(const struct report_data *data, const struct view_options *options,
		   FILE *out);

/* The header lines every text view starts with ("# host: ..."). */
void view_print_header(const struct report_header *header, FILE *out);

/* Fits s into width columns by eliding its middle with "..". */
const char *view_elide(const char *s, int width, char *buffer, size_t size);

#endif
