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
	size_t json_max_depth;		/* tree JSON: deeper nodes are cut; 0 = VIEW_JSON_MAX_DEPTH */
};

/*
 * The views.  Each returns 0, or -1 when writing to out failed (errno
 * set, EPIPE included): the caller decides whether that is worth a
 * message.  Percentages are of data->total_period; when it is 0 the text
 * views print "# no samples" after the header instead of dividing by it.
 * percent_limit compares the exact share (not the rounded one printed)
 * and hidden rows and nodes are counted in one "# N ... not shown" line.
 *
 * Text views (flat, tree) start with view_print_header() and mark every
 * line that is not data with "# ".  Names from the capture are printed
 * safely: control characters and bytes that are not UTF-8 become '?'.
 *
 * Flat columns: Self% [Total%] Samples [Command] [Pid] [Tid] [Symbol]
 * [DSO] [Source], by data->sort_keys (0 stands for SORT_SYM | SORT_DSO):
 * Symbol with SORT_SYM, DSO with SORT_SYM or SORT_DSO, Source with
 * SORT_SRCLINE.  width elides Source, then Symbol, never the DSO.
 *
 * Tree: one line per node, total % and self % (blank when 0), ASCII
 * guides; an only child continues its parent's column instead of
 * branching, so plain chains do not indent.  Guides are capped at 40
 * columns: deeper lines show "[+N]" for the N levels not drawn.
 *
 * Folded: no header, one "frame;frame;... COUNT" line per tree node with
 * self samples, outermost caller first even when data->tree_callee is
 * set (the frames are reversed back).  See view-folded.c for the names.
 *
 * JSON: the schema is at the top of view-json.c.  The tree nests one
 * object per node, so it is cut at json_max_depth nodes ("truncated":
 * true) for parsers to read it: jq 1.6 (Debian 12) gives up past 84 and
 * Python's json past about 490.
 */
#define VIEW_JSON_MAX_DEPTH	80

int view_flat(const struct report_data *data, const struct view_options *options,
	      FILE *out);
int view_tree(const struct report_data *data, const struct view_options *options,
	      FILE *out);
int view_folded(const struct report_data *data, FILE *out);
int view_flat_json(const struct report_data *data, const struct view_options *options,
		   FILE *out);
int view_tree_json(const struct report_data *data, const struct view_options *options,
		   FILE *out);

/* The header lines every text view starts with ("# host: ..."), then "#". */
void view_print_header(const struct report_header *header, FILE *out);

/*
 * Fits s into width columns by eliding its middle with "..", keeping more
 * of the end (a C++ method name) than of the start.  The result is
 * sanitized as the text views print names; it is s itself when that
 * needs no change, else buffer (cut to size - 1 bytes).
 */
const char *view_elide(const char *s, int width, char *buffer, size_t size);

/*
 * The columns to fit when printing to out: $COLUMNS when set, else the
 * terminal's width, else 0 (unlimited: a pipe or a file).
 */
int view_terminal_width(FILE *out);

/* ---- shared by the view-*.c files --------------------------------- */

/* Length of the valid UTF-8 character at s, its code point in *code; 0: none. */
size_t view_utf8_char(const char *s, uint32_t *code);

/*
 * Steps over one printable unit of s: a UTF-8 character as it is, or '?'
 * for a control character or an invalid byte.  Returns the bytes of s
 * consumed (0 at the end); *unit and *unit_size are what to print.
 */
size_t view_next_unit(const char *s, const char **unit, size_t *unit_size);

/* Columns s takes when printed (a unit is a column). */
size_t view_columns(const char *s);

/* Prints s safely, elided to width columns (0: whole); returns the columns. */
size_t view_put(FILE *out, const char *s, size_t width);
/* The same for a path or file:line, elided at its start to keep the end. */
size_t view_put_tail(FILE *out, const char *s, size_t width);
void view_pad(FILE *out, size_t columns);

/* part / total as a percentage scaled by 10^decimals, rounded; 0 if total is 0. */
uint64_t view_percent_fixed(uint64_t part, uint64_t total, unsigned decimals);
/* "59.21%" into buffer (at least 16 bytes), locale-free. */
const char *view_percent(char *buffer, size_t size, uint64_t part, uint64_t total);
/* Whether part is below limit percent of total (never when limit <= 0). */
int view_below_limit(uint64_t part, uint64_t total, double limit);
/* The limit as "0.50%", locale-free. */
const char *view_limit_text(char *buffer, size_t size, double limit);

/* A frame's label: "[k] name (inlined)", "[.] [unknown]". */
size_t view_symbol_columns(const struct report_symbol *symbol);
/* Prints it within width columns (0: whole), eliding only the name. */
size_t view_put_symbol(FILE *out, const struct report_symbol *symbol, size_t width);
/* Its name, "[unknown]" when there is none. */
const char *view_symbol_name(const struct report_symbol *symbol);

/* The wall-clock start of the capture, in UTC; -1 when unknown. */
struct tm;
int view_start_time(const struct report_header *header, struct tm *tm,
		    uint32_t *nanoseconds);

/* 0, or -1 with errno when out has failed. */
int view_finish(FILE *out);

#endif
