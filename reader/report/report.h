/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_H
#define PERFREC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "session.h"

struct symbolizer;
struct symbolizer_source;
struct unwinder;

/*
 * Profiles from a session: the inputs read (profile.c) with one event
 * (event.c), the aggregator turning the replayed samples into a flat
 * profile and a call tree (report_data), which the views (views/), the
 * flame graphs (flame/) print; pprof/ writes the samples for other
 * tools.  Weights are sample periods (as perf report's "Overhead");
 * counts are samples.
 */

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
	const char *host;
	const char *comm;
	uint32_t pid, tid;
	const char *unit, *container, *cgroup;	/* session_sample's; NULL: unknown */
	uint32_t ns_pid, ns_tid;	/* with pid, tid: in the task's pid namespace; 0: the host's */
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
	SORT_UNIT = 1u << 6,
	SORT_CONTAINER = 1u << 7,
	SORT_CGROUP = 1u << 8,
	SORT_HOST = 1u << 9,
};

/* The keys that group by where a sample ran: the tree's first level then too. */
#define SORT_GROUPS	(SORT_UNIT | SORT_CONTAINER | SORT_CGROUP)

struct call_node {
	const struct report_symbol *symbol;	/* NULL at the root */
	struct call_node *parent;		/* NULL at the root */
	const char *comm;		/* for the first level: the process name, or
					   with --sort unit, container or cgroup that */
	uint64_t total_period, self_period;
	uint64_t total_samples, self_samples;
	struct call_node **children;	/* sorted by total_period, descending */
	size_t child_count;
	/*
	 * Against --baseline (report_match_baseline()): the baseline's node
	 * of the same stack, its periods copied here for the writers; NULL
	 * and 0 for a stack the baseline does not have, and without one.
	 * Set on the baseline's tree too, pointing back (its base_* 0).
	 */
	struct call_node *other;
	uint64_t base_total_period, base_self_period;
};

/*
 * What a profile weighs: CPU samples by their periods (the event's
 * counts, as before); off-CPU blocks by their durations; wall, per
 * thread, on-CPU time (each sample's period: nanoseconds for a clock
 * event such as cpu-clock) plus off-CPU time.  Off-CPU and wall weights
 * are nanoseconds.
 */
enum report_profile_kind {
	REPORT_PROFILE_CPU,
	REPORT_PROFILE_OFF_CPU,
	REPORT_PROFILE_WALL,
};

/* "cpu", "off-cpu", "wall"; and back: -EINVAL for another name. */
const char *report_profile_kind_name(enum report_profile_kind kind);
int report_profile_kind_parse(const char *name, enum report_profile_kind *kind);

/* The name of the frame between a blocked stack and its waker's (--waker). */
#define REPORT_WAKER_SEPARATOR	"--"

/*
 * The profile over time (aggregate_options' time_slot_ns): what each slot
 * of time holds, by flat row and by tree node, so that a timeline, a
 * range's flat profile or flame graph come from it without reading the
 * samples again.  Its size grows with the slots and the distinct stacks
 * in each, never with the samples.  An entry is the self time of the
 * stacks of one slot that end in one flat row and one tree node; a row
 * or node may have several entries a slot (stacks that differ in what
 * neither shows).  An off-CPU block is counted at its start, as the
 * filters' --since and --until take it.
 */
struct report_time_entry {
	uint32_t slot;			/* (time - origin_ns) / slot_ns */
	uint32_t flat;			/* the flat row its self time is in (index in flat) */
	const struct call_node *node;	/* the node its self time is in; NULL without a tree */
	uint64_t period, samples;
};

/*
 * The heatmap's cells (time_bucket_ns): every sample read, before
 * --focus (which needs symbols, and the buckets are counted without).
 */
struct report_time_bucket {
	uint64_t index;			/* (time - origin_ns) / bucket_ns */
	uint64_t period, samples;
};

struct report_timeline {
	uint64_t origin_ns;		/* capture clock: slot and bucket 0 start here */
	uint64_t slot_ns, bucket_ns;	/* 0: not kept */
	const struct report_time_entry *entries;	/* by slot, then flat row */
	size_t entry_count;
	uint32_t slot_count;		/* the last slot with an entry, + 1 */
	const struct report_time_bucket *buckets;	/* by index; those with samples */
	size_t bucket_count;
};

/*
 * A range of the capture clock asked for (--since, --until): a bound not
 * given is the capture's start or end.  Bounds may lie outside the
 * capture (a start before 0 too): they then select all or nothing.
 */
struct report_range {
	int64_t since_ns, until_ns;
	int since_given, until_given;
};

struct report_data {
	struct session_summary header;
	/* Set by the caller: the header says it when a bound was given. */
	struct report_range range;
	enum report_profile_kind kind;
	/*
	 * The unit of the periods below (total_period, the entries' and
	 * nodes' *_period): NULL for a CPU profile (the event's counts, as
	 * the header's event says), "nanoseconds" for off-CPU and wall.
	 * The *_samples are samples and blocks counted.
	 */
	const char *weight_unit;
	unsigned sort_keys;		/* enum sort_key bits of the flat entries */
	struct flat_entry *flat;	/* sorted by self_period, descending */
	size_t flat_count;
	struct call_node *tree;		/* root: one child per comm, then frames */
	int tree_callee;		/* 1: inverted (leaf at the top) */
	uint64_t total_period;
	uint64_t total_samples;
	struct report_timeline timeline;
	/*
	 * Set by report_match_baseline(): the profile compared with (its
	 * header and total_period), and its stacks that have no node in this
	 * tree: the topmost such nodes and their period, the baseline's.
	 */
	const struct report_data *baseline;
	uint64_t gone_nodes, gone_period;
};

/*
 * Matches data's call tree with base's, stack by stack, for the
 * differential flame graphs: a first level by process name, then frames
 * by function name, DSO, source line (with --lines), kernel and inlined
 * flags (and the offset of an unresolved address).  Fills the nodes'
 * other and base_* fields, data->baseline and the gone counts.  Both
 * trees must be built alike (both caller-first or both inverted).  0 or
 * -ENOMEM.
 */
int report_match_baseline(struct report_data *data, struct report_data *base);
/* What the tree's first level is, by data->sort_keys: "Process", "Unit", ... */
const char *report_first_level_name(unsigned sort_keys);

/*
 * Where the report goes: stdout, or with -o FILE a temporary file beside
 * FILE that report_output_close() renames over it when complete (and
 * removes otherwise).  Both return 0 or a negative errno.
 */
struct report_output {
	FILE *file;
	const char *path;		/* NULL: stdout */
	char *temp_path;		/* NULL with path: written in place */
};

int report_output_open(struct report_output *output, const char *path);
/*
 * The same for a file the user did not name (FILE.kallsyms beside -o
 * FILE): what is there already is replaced only if it is a regular file,
 * never followed through a symlink or written in place (-EEXIST).
 */
int report_output_open_beside(struct report_output *output, const char *path);
int report_output_close(struct report_output *output, int complete);

/*
 * Aggregation: each sample's callchain becomes a stack of symbolized
 * frames (inlined frames of their own), counted into the flat profile and
 * the call tree.  Samples are first counted by their raw stack (what the
 * report's rows of it depend on: stacks.h), then each distinct stack is
 * symbolized and counted once, and symbolization is cached per (DSO,
 * address): the cost of symbols grows with the distinct stacks and
 * addresses of a capture, not with its samples.
 */
struct aggregator;

struct aggregate_options {
	unsigned sort_keys;		/* enum sort_key bits for the flat view */
	int leaf_inline;		/* flat: charge the innermost inlined function */
	int tree_inlines;		/* tree: inlined frames as nodes of their own */
	int callee;			/* tree: leaf at the top */
	int children;			/* flat: totals, and callers without self time */
	int want_tree;			/* build the call tree (tree, folded views) */
	int tree_lines;			/* tree: a frame per function and file:line */
	const char *focus;		/* only stacks through this function */
	size_t max_frames;		/* per sample; longer chains are cut */
	unsigned jobs;			/* threads: from 2 the tree builds on its own */
	/*
	 * Off-CPU blocks with a waker: above the blocked stack (root to
	 * leaf), a frame REPORT_WAKER_SEPARATOR, the waker's stack leaf to
	 * root, then a frame of the waker's name, as Brendan Gregg's
	 * offwaketime folds them.  Tree and folded stacks; the flat view
	 * charges the blocked leaf as without it.
	 */
	int waker;
	/*
	 * Time: with time_slot_ns, the self time of each slot of that length
	 * from time_origin_ns (report_data.timeline's entries); with
	 * time_bucket_ns, the samples and weight of each bucket of that
	 * length (its buckets).  Samples before the origin count in slot 0,
	 * and with time_end_ns those after it in its slot and bucket: a
	 * capture whose samples lie about their times (2^63 in a capture of
	 * seconds) keeps as many slots and buckets as its range has.
	 */
	uint64_t time_origin_ns, time_slot_ns, time_bucket_ns, time_end_ns;
	/* Every sample's stack resolved on its own (stack-memo.h): the tests' reference. */
	int no_shortcuts;
};

struct aggregator *report_aggregator_new(struct session *session,
					 struct symbolizer *symbolizer,
					 const struct aggregate_options *options);
void report_aggregator_free(struct aggregator *aggregator);

/* filter, set to give samples as the aggregator can count them fastest. */
void report_aggregator_filter(const struct aggregator *aggregator, struct session_filter *filter);

/* A session_sample_fn: pass the aggregator as context. */
void report_aggregator_add(void *aggregator, const struct session_sample *sample);

/*
 * The session's samples (as recorded: no unwinding) read on up to jobs
 * threads (session_for_each_sample_parallel()), each counting into a
 * part of its own, merged: the report is the same as of
 * report_aggregator_add() alone, whatever thread read which file.  -EIO
 * when a file could not be read to its end (warned about), else 0; no
 * memory shows in report_aggregator_finish().
 */
int report_aggregator_read(struct aggregator *aggregator, const struct session_filter *filter,
			   unsigned jobs);

/*
 * Symbolizes each distinct stack once and counts it with its weight,
 * sorts and fills data; it points into the aggregator, which must live on.
 */
int report_aggregator_finish(struct aggregator *aggregator, struct report_data *data);

/* ---- time (time-step.c) ---------------------------------------------- */

/*
 * The smallest step a reader counts in (1, 2, 5 ms ... 500 ms; 1, 2, 5,
 * 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; days) that cuts
 * duration_ns into fewer than max_steps: the timeline's default interval,
 * the page's slots.
 */
uint64_t report_time_step(uint64_t duration_ns, uint64_t max_steps);

/*
 * A time of the capture clock as UTC ISO 8601 with milliseconds,
 * "2026-12-07T01:02:03.000Z", in buffer (REPORT_TIME_ISO_MAX bytes):
 * what every view prints a time as.
 */
#define REPORT_TIME_ISO_MAX	32
const char *report_time_iso(uint64_t time_ns, int64_t realtime_offset_ns, char *buffer,
			    size_t size);

/* ---- times (time-range.c) -------------------------------------------- */

/*
 * A time as perfrec-report(1) takes it ("Times"), on capture's clock
 * (its start_ns, end_ns, realtime_offset_ns): ISO 8601 with Z or an
 * offset; without a zone local time under TZ; a time of day alone on the
 * capture's start day; fractions of a second; a duration
 * (report_duration_parse()) or +duration after the capture's start,
 * -duration before its end.  0; -EINVAL for a text that is not
 * a time, -EDOM for a date or time of day that does not exist (February
 * 30, 24:00, a local time the clocks skipped), -ERANGE for one that does
 * not fit in signed 64-bit nanoseconds (or, for local time, in time_t).
 */
int report_time_parse(const char *text, const struct session_summary *capture, int64_t *ns);

/*
 * A length as perfrec-report(1) takes one, N[.F][UNIT] (ms, s: the
 * default, m or min, h, d), in nanoseconds: --interval's, and a relative
 * time's after its sign.  0; -EINVAL for a text that is not one, -ERANGE
 * past 2^63 ns.
 */
int report_duration_parse(const char *text, int64_t *ns);

/*
 * The range's bounds on the capture clock, the capture's start or end
 * where none was given.  0, or -ERANGE when one is no wall-clock time
 * (adding capture's realtime_offset_ns overflows): report_time_iso()
 * cannot print it.
 */
int report_range_bounds(const struct report_range *range, const struct session_summary *capture,
			int64_t *since_ns, int64_t *until_ns);

/* The range's bounds into filter's since_ns and until_ns. */
void report_range_filter(const struct report_range *range, struct session_filter *filter);

/* ---- the event (event.c) --------------------------------------------- */

/*
 * An event's sampling as the headers say it, "97 Hz" or "period 100000",
 * in buffer; NULL when not known.
 */
#define REPORT_SAMPLING_TEXT_MAX	32
const char *report_sampling_text(const struct session_sampling *sampling, char *buffer,
				 size_t size);

/*
 * Samples of different events do not add up (a millisecond of CPU and a
 * page fault are not one unit): a profile is of one event.  wanted names
 * it (whole, or without its terms when only one event fits: "page-faults"
 * for "page-faults/period=64/"); without it, events that count one thing
 * (one type and config) under several names or sample layouts are one
 * profile, and of events that count different things the first is taken.
 * summary's event and sampling become the event's; *filter is the
 * session_filter's event (NULL: all).  0; 1 when the first of several was
 * taken, a line saying so in message; -EINVAL when wanted names none or
 * several of the events (message says which there are).
 */
int report_choose_event(struct session_summary *summary, const char *wanted,
			const char **filter, struct prf_error *message);

/* ---- a profile from inputs (profile.c) ------------------------------ */

/* Where debug files are looked for, besides the captured paths. */
struct report_symbol_sources {
	const char *const *debug_dirs;	/* .build-id trees; none: /usr/lib/debug */
	size_t debug_dir_count;
	const char *const *bundles;	/* perfrec-archive bundles: tar, tar.zst or a directory */
	size_t bundle_count;
	const char *const *captures[2];	/* inputs whose directories' .build-id trees count */
	size_t capture_count[2];
};

/* The debug directories of report_symbol_sources, bundles extracted. */
struct report_debug_dirs {
	const char **dirs;
	size_t count, capacity;
	char *scratch;			/* where tar bundles went; removed when freed */
	char **owned;
	size_t owned_count, owned_capacity;
};

/*
 * The given directories, then each bundle's tree, then the captures'
 * own (perfrecd's binary cache).  0, or a negative errno with a message.
 */
int report_debug_dirs_make(struct report_debug_dirs *dirs,
			   const struct report_symbol_sources *sources, struct prf_error *error);
void report_debug_dirs_free(struct report_debug_dirs *dirs);

struct report_load_options {
	const char *symfs;
	const char *const *debug_dirs;	/* report_debug_dirs' */
	size_t debug_dir_count;
	int debuginfod;			/* ask DEBUGINFOD_URLS' servers */
	int want_lines, want_inlines;	/* of the symbolizer */
	int unwind;			/* dwarf user stacks unwound */
	unsigned jobs;			/* threads reading the files */
	const char *const *hosts;	/* only these, as given */
	size_t host_count;
	void (*warn)(void *context, const char *message);
	void *warn_context;
	/* A line worth saying that is no warning: the event chosen, a host absent. */
	void (*note)(void *context, const char *format, ...) __attribute__((format(printf, 2, 3)));
	void *note_context;
};

/* A set of inputs read: a profile, or the baseline's. */
struct report_profile {
	/*
	 * Set by the caller before report_profile_load(): which profile;
	 * it sets filter.kinds.  report_profile_aggregate() fails with
	 * -ENOENT for off-CPU when the inputs hold no OFF_CPU record.
	 */
	enum report_profile_kind kind;
	struct symbolizer_source *debuginfod;
	struct symbolizer *symbolizer;
	struct session *session;
	struct unwinder *unwinder;
	struct aggregator *aggregator;
	struct session_filter filter;	/* the caller's, then the hosts and event chosen */
	const char **hosts;		/* the session's names of the hosts asked for */
	size_t host_count;
	struct report_data data;
	int read_error;			/* pass 2 could not read a file to its end */
	int no_shortcuts;		/* PRF_REPORT_NO_SHORTCUTS, read at the load */
};

/*
 * The first pass over inputs: the symbolizer, the session, the hosts
 * (into p->filter, set by the caller before), p->data.header.  0, or a
 * negative errno with a message in error.
 */
int report_profile_load(struct report_profile *p, const struct report_load_options *options,
			const char *const *inputs, size_t input_count, struct prf_error *error);
/* The event of the profile, into p->filter and the header: as report_choose_event(). */
int report_profile_choose_event(struct report_profile *p, const char *wanted,
				struct prf_error *message);
/* The header again (a pass may have found damage): p->data.header. */
void report_profile_summary(struct report_profile *p);
/*
 * p's samples that pass p->filter, unwound where it has an unwinder; as
 * session_for_each_sample().
 */
int report_for_each_sample(struct report_profile *p, session_sample_fn fn, void *context);
/* The second pass, into p->data: 0 or -ENOMEM. */
int report_profile_aggregate(struct report_profile *p, const struct aggregate_options *options);
void report_profile_free(struct report_profile *p);

#endif
