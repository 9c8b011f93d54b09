/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_VIEWS_H
#define PERFREC_VIEWS_H

/*
 * The text views of a profile (flat, tree, folded, JSON, the diffs
 * against a baseline) and of samples, and the printing they and the
 * flame graphs share: safe printing, columns, percentages.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report.h"

struct view_options {
	double percent_limit;		/* hide entries/nodes below this % of total */
	size_t top;			/* flat: at most this many rows; 0 = all */
	int width;			/* columns to fit; 0 = unlimited */
	int show_children;		/* flat: a total % column (callers' view) */
	size_t json_max_depth;		/* tree JSON: deeper nodes are cut; 0 = VIEW_JSON_MAX_DEPTH */
	int flame_inverted;		/* HTML: the page opens in its inverted view */
	uint64_t until_ns;		/* timeline: its range's end (capture clock); 0: its last slot's */
	int ascii;			/* timeline: sparklines in ASCII, not block elements */
};

/*
 * The views.  Each returns 0, or a negative errno when writing to out
 * failed (-EPIPE included) or memory ran out: the caller decides whether
 * that is worth a message.  Percentages are of data->total_period; when it is 0 the text
 * views print "# no samples" after the header instead of dividing by it.
 * percent_limit compares the exact share (not the rounded one printed)
 * and hidden rows and nodes are counted in one "# N ... not shown" line.
 *
 * Text views (flat, tree) start with view_print_header() and mark every
 * line that is not data with "# ".  Names from the capture are printed
 * safely: control characters and bytes that are not UTF-8 become '?'.
 *
 * Flat columns: Self% [Total%] [ms] [Total ms] Samples|Blocks [Command]
 * [Pid] [Tid] [Symbol] [DSO] [Source], by data->sort_keys (0 stands for
 * SORT_SYM | SORT_DSO): the milliseconds for time profiles (off-CPU,
 * wall), Blocks as an off-CPU profile's count, Symbol with SORT_SYM, DSO
 * with SORT_SYM or SORT_DSO, Source with SORT_SRCLINE.  width elides
 * Source, then Symbol, never the DSO.
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
/* Text growing at its end; data is not NUL-terminated. */
struct view_text {
	char *data;
	size_t size, capacity;
};
/* s[0..size) appended: 0, or -ENOMEM (text as it was). */
int view_text_put(struct view_text *text, const char *s, size_t size);
/*
 * A frame as the collapsed stacks name it, appended to text: "burn_hot",
 * "schedule_[k]", "helper_[i]", "[libc.so.6]" for an address nothing
 * names; safe, ';' as ':'.  The speedscope file names its frames so too.
 * 0, or -ENOMEM.
 */
int view_folded_name(struct view_text *text, const struct report_symbol *symbol);

/*
 * data against base (--baseline), each normalised by its total: the flat
 * rows of either with both shares and the change, largest change first;
 * the collapsed stacks of either with both counts, base's scaled to
 * data's total.
 */
int view_flat_diff(const struct report_data *base, const struct report_data *data,
		   const struct view_options *options, FILE *out);
int view_folded_diff(const struct report_data *base, const struct report_data *data, FILE *out);

int view_flat_json(const struct report_data *data, const struct view_options *options,
		   FILE *out);
int view_tree_json(const struct report_data *data, const struct view_options *options,
		   FILE *out);

/*
 * The timeline (--view=timeline): a line per interval of data->timeline
 * (its slots, from its origin_ns to options->until_ns, empty intervals
 * too), "START SAMPLES SHARE KEY  SHARE KEY ...": its UTC start, its
 * samples (a time profile: its milliseconds and samples or blocks), and
 * its top flat rows (options->top, VIEW_TIMELINE_TOP when 0) by weight,
 * each its share of the interval (none below percent_limit of it) and its
 * key as view_flat_key() makes it; then "# " lines, a sparkline per row of the whole range's top N,
 * a column per interval (or per few, to fit the width), scaled to the
 * busiest column.  Slots past the last interval are counted in it.  The
 * JSON's schema is at the top of view-json.c.
 */
#define VIEW_TIMELINE_TOP		3
#define VIEW_TIMELINE_LINES		60	/* at most, with the default interval */
#define VIEW_TIMELINE_MAX_INTERVALS	100000
int view_timeline(const struct report_data *data, const struct view_options *options,
		  FILE *out);
int view_timeline_json(const struct report_data *data, const struct view_options *options,
		       FILE *out);
/*
 * The intervals of interval_ns from start_ns to end_ns (at least 1) the
 * timeline prints; past VIEW_TIMELINE_MAX_INTERVALS it would not.
 */
uint64_t view_timeline_intervals(uint64_t start_ns, uint64_t end_ns, uint64_t interval_ns);

/*
 * The header lines every text view starts with ("# host: ..."; with more
 * than one host, "# hosts: N: a, b, ..." lists them all), then "#".  An
 * off-CPU or wall profile says so, its blocks and its total time.
 */
void view_print_header(const struct report_data *data, FILE *out);

/* Nanoseconds as milliseconds, "1234.567" (rounded to the microsecond), locale-free. */
const char *view_milliseconds(char *buffer, size_t size, uint64_t ns);

/*
 * Fits s into width columns by eliding its middle with "..", keeping more
 * of the end (a C++ method name) than of the start.  The result is
 * sanitized as the text views print names; it is s itself when that
 * needs no change, else buffer (cut to size - 1 bytes).
 */
const char *view_elide(const char *s, int width, char *buffer, size_t size);

/*
 * The columns to fit when printing to out: a terminal's width, else
 * $COLUMNS on a terminal that does not say; 0 (unlimited) for a pipe or
 * a file.
 */
int view_terminal_width(FILE *out);

struct view_samples {
	struct session *session;
	struct symbolizer *symbolizer;
	FILE *out;
	int json;			/* view_sample_json()'s */
	size_t frames;			/* of the sample being written */
	struct view_frame_memo *frame_memo;	/* each frame's text, once */
	int no_shortcuts;		/* each frame's written on its own */
	/*
	 * view_sample_perf_script()'s: each sample's text kept, to be put
	 * in time order by view_samples_finish() (a file's samples are in
	 * the order of their CPUs' ring buffers, not of time).
	 */
	int perf_script;
	FILE *kept;
	char *kept_text;
	size_t kept_size;
	struct view_kept_sample *kept_samples;
	size_t kept_count, kept_capacity;
	uint64_t newest, written_until;	/* sample times: the newest kept, the last written */
	uint64_t late;			/* written out of order: later than the window */
	size_t kept_text_max;		/* 0: 256 MiB of text kept at most */
	int error;			/* -ENOMEM: a sample could not be kept */
};

/*
 * A block per sample as perf script prints it; a tracepoint's sample has
 * its event and fields on its first line ("sched:sched_process_exec:
 * filename=/usr/bin/true pid=1 old_pid=1").  view_sample_json() is the
 * same as a JSON object a line (the schema is at the top of view-json.c).
 */
void view_sample(void *view_samples, const struct session_sample *sample);
void view_sample_json(void *view_samples, const struct session_sample *sample);
/*
 * The same walk as perf script's default text for a perf record -g file
 * (what stackcollapse-perf.pl, speedscope and the Firefox Profiler
 * import): "comm pid/tid [cpu] secs.usecs: period event: ", then a line
 * "\t    addr sym+0xoff (dso)" a frame, leaf first, and a blank line.
 * The rules the readers' patterns set are at the top of view-samples.c.
 */
void view_sample_perf_script(void *view_samples, const struct session_sample *sample);
/*
 * After any of the three: the view's memory freed, and perf script's kept
 * samples to out in time order (of equal times, as they came): 0, or a
 * negative errno (-ENOMEM: a sample could not be kept; out failed).  The
 * text is held whole until then, as perf script's sorting holds its
 * samples.
 */
int view_samples_finish(struct view_samples *view_samples);

/*
 * A tracepoint sample's fields, "name=value" apart by spaces (nothing for
 * other samples); as a JSON object, null for other samples.
 */
void view_put_tracepoint_fields(FILE *out, const struct session_sample *sample);
void view_json_tracepoint_fields(FILE *out, const struct session_sample *sample);


/* ---- what the views and the flame graphs share ------------------------ */

/* s as a JSON string, escaped whatever it holds; null for NULL. */
void view_json_string(FILE *out, const char *s);

/* Columns s takes when printed (a unit of prf_text_unit() is a column). */
size_t view_columns(const char *s);
/* The decimal digits of n: the columns it takes. */
size_t view_digits(uint64_t n);
/*
 * n in decimal into out, right-aligned in width columns by pad ('0' or
 * ' ', as printf's "%0*" or "%*" PRIu64): its length, at most
 * max(width, 20) bytes.
 */
size_t view_format_u64(char *out, uint64_t n, size_t width, char pad);
/*
 * prefix, then n in lower-case hex right-aligned in width columns (as
 * printf's "%*" PRIx64), then suffix: the samples view prints millions.
 */
void view_put_hex(FILE *out, const char *prefix, uint64_t n, int width, const char *suffix);

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
/* The label unescaped, for a text to print with view_put() or write as JSON. */
void view_symbol_label(FILE *out, const struct report_symbol *symbol);

/*
 * A flat row's keys as the flat view prints its cells (Host ... Command,
 * Pid, Tid, Symbol "[.] name", DSO "libc.so.6+0x1234", Source, by
 * data->sort_keys), apart by a space and unescaped: print it with
 * view_put(), write it with view_json_string().  Allocated; NULL
 * without memory.
 */
char *view_flat_key(const struct report_data *data, const struct flat_entry *e);

/*
 * The JSON views' start: {"view", "version", "header", the totals,
 * "percent_limit", an off-CPU or wall profile's "profile" and
 * "weight_unit"; and the flat keys as "sort_keys".
 */
void view_json_begin(FILE *out, const char *view, const struct report_data *data,
		     const struct view_options *options);
void view_json_sort_keys(FILE *out, unsigned keys);

/* Whether the locale (LC_ALL, LC_CTYPE, LANG) is UTF-8: blocks, or ASCII. */
int view_locale_utf8(void);

/* The wall-clock start of the capture, in UTC; -1 when unknown. */
struct tm;
int view_start_time(const struct session_summary *header, struct tm *tm,
		    uint32_t *nanoseconds);

/*
 * When --since or --until gave data its range, a header line "# LABEL:
 * 2026-12-07T01:02:03.000Z to 2026-12-07T01:02:05.000Z (2.000 s)" (UTC);
 * nothing otherwise.
 */
void view_print_range(const char *label, const struct report_data *data, FILE *out);

/* 0, or a negative errno when out has failed. */
int view_finish(FILE *out);

#endif
