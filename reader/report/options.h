/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_OPTIONS_H
#define PERFREC_REPORT_OPTIONS_H
/* perfrec-report's command line (options.c), for main.c. */
#include <stddef.h>
#include <stdint.h>
#include "report.h"

enum view { VIEW_FLAT, VIEW_TREE, VIEW_FOLDED, VIEW_SAMPLES, VIEW_TIMELINE };

/* The text views, or a file format for other tools. */
enum output_format {
	FORMAT_TEXT, FORMAT_PPROF, FORMAT_HTML, FORMAT_SVG, FORMAT_PERFDATA, FORMAT_PERF_SCRIPT,
	FORMAT_SPEEDSCOPE
};

struct report_options {
	enum view view;
	int json;
	enum output_format format;
	int format_given;
	const char *output;		/* -o FILE; NULL: stdout */
	const char **inputs;		/* -i FILE, then the operands */
	size_t input_count, input_capacity;
	const char **baselines;		/* --baseline: the profile to compare with */
	size_t baseline_count, baseline_capacity;
	unsigned sort_keys;
	int lines, inline_leaf, no_inlines, callee, children;
	const char *focus;
	double percent_limit;
	int percent_limit_given;
	size_t top;
	int width;
	const char *since, *until;
	const char *baseline_since, *baseline_until;	/* the baseline's window */
	/* Lists as long as the command line makes them (list_append()). */
	uint32_t *pids, *tids;
	size_t pid_count, pid_capacity, tid_count, tid_capacity;
	const char **comms;
	size_t comm_count, comm_capacity;
	const char **hosts;		/* --host, as given */
	size_t host_count, host_capacity;
	const char **units;
	size_t unit_count, unit_capacity;
	const char **cgroups;
	size_t cgroup_count, cgroup_capacity;
	char **comm_args;		/* the --comm, --unit and --host arguments, split in place */
	size_t comm_arg_count, comm_arg_capacity;
	int *cpus;
	size_t cpu_count, cpu_capacity;
	const char *event;
	const char *symfs;
	const char **debug_dirs;
	size_t debug_dir_count, debug_dir_capacity;
	int no_unwind;
	const char **bundles;		/* --symbols */
	size_t bundle_count, bundle_capacity;
	int no_debuginfod;
	int quiet;
	size_t max_stack;		/* frames a sample; 0: the aggregator's default */
	unsigned jobs;			/* threads reading the files */
	enum report_profile_kind profile;	/* --profile */
	int waker;			/* --waker */
	uint64_t interval_ns;		/* --interval; 0: the timeline's default */
	const char *interval;		/* as given */
};

/*
 * The command line into o (pointing into argv): -1 to go on and run, or
 * the exit status (0 after --help or --version, 2 after a message on a
 * bad argument).
 */
int options_parse(struct report_options *o, int argc, char **argv);
void options_free(struct report_options *o);

/*
 * A range's start and end as given to option[0] and option[1] (NULL: not
 * given), on capture's clock (report_time_parse()).  0, or -EINVAL after
 * a message: a bound that is not a time, or a start after the end.
 */
int options_parse_range(const char *const option[2], const char *const text[2],
			const struct session_summary *capture, struct report_range *range);

/* Says so: -ENOMEM. */
int out_of_memory(void);

#endif
