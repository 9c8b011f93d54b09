/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfrec-report's command line.  See perfrec-report(1). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: perfrec-report [OPTIONS] FILE|DIR...\n"
"Profiles from perfrec captures: every .prf of a directory, merged in time order;\n"
"a perf.data file (perf record -o FILE) is read as one.\n"
"\n"
"Views and formats:\n"
"      --view=flat|tree|folded   flat profile (default), call tree, collapsed stacks\n"
"      --view=samples            every sample with its symbolized frames, and a\n"
"                                tracepoint's fields by name\n"
"      --view=timeline           a line per interval of time: its UTC start, its\n"
"                                samples (or time) and its top --sort keys with\n"
"                                their shares; then a sparkline per top key\n"
"      --interval TIME           timeline: the interval, 1s, 10s, 500ms, 1m, 1h\n"
"                                (default: at most 60 lines for the range)\n"
"      --json                    flat, tree or timeline as JSON, samples as a\n"
"                                JSON object a line (schema in perfrec-report(1))\n"
"      --format=FORMAT           flat, tree, folded, samples, json (the views), or\n"
"                                pprof (gzipped profile.proto), html (a flame graph\n"
"                                to open in a browser), svg (a static flame graph),\n"
"                                perf.data (for perf report, perf script, hotspot;\n"
"                                needs -o FILE; FILE.kallsyms and FILE.jit/ beside)\n"
"                                perf-script (perf script's text: for\n"
"                                stackcollapse-perf.pl, speedscope, Firefox\n"
"                                Profiler), speedscope (its JSON, a profile a thread)\n"
"      --profile=cpu|off-cpu|wall  what the weights are: CPU samples (default),\n"
"                                time blocked off the CPU (ns), or per thread\n"
"                                on-CPU time (samples x period of a clock event)\n"
"                                plus off-CPU time (ns)\n"
"      --waker                   off-cpu, wall: the waker's stack above each\n"
"                                blocked one after a frame \"--\" (tree, folded,\n"
"                                html, svg)\n"
"  -o, --output FILE             write to FILE, whole or not at all; its suffix\n"
"                                picks the format: .pb.gz, .pprof, .html, .svg,\n"
"                                .speedscope.json\n"
"  -i, --input FILE              a capture file or directory (repeatable), as the\n"
"                                operands are\n"
"      --baseline FILE|DIR       compare with this capture (repeatable): the flat\n"
"                                view's shares and their change, sorted by size;\n"
"                                the folded view's counts of both, per stack;\n"
"                                html and svg: frames coloured by the change\n"
"      --baseline-since TIME, --baseline-until TIME\n"
"                                compare with this window of --baseline's\n"
"                                captures, or without --baseline of the inputs\n"
"  -s, --sort KEYS               flat keys: host,comm,pid,tid,dso,sym,srcline, and\n"
"                                unit,container,cgroup (default sym); with one\n"
"                                of the last three, the tree, the flame graphs\n"
"                                and pprof start from it, not from the process\n"
"      --lines                   attribute to file:line (same as adding srcline)\n"
"      --inline                  flat: charge the innermost inlined function\n"
"      --no-inline               tree: no inlined frames of their own\n"
"      --children                flat: add a total (with callees) column\n"
"      --callee                  tree: inverted, leaf functions at the top\n"
"      --focus SYMBOL            only stacks through SYMBOL\n"
"      --percent-limit PCT       hide entries below PCT %% (tree default 0.5)\n"
"      --top N                   flat: at most N rows; timeline: keys a line (3)\n"
"      --max-stack N             at most N frames of each stack (default 1024)\n"
"  -w, --width N                 fit N columns (default: the terminal's)\n"
"\n"
"Filters:\n"
"      --since TIME, --until TIME  only the samples from / until TIME: ISO 8601\n"
"                                 with Z or an offset (2026-12-07T17:30:00.250Z,\n"
"                                 17:30:00+01:00), local time under TZ without\n"
"                                 one (17:30 is on the capture's start day);\n"
"                                 +30s, 10s (after the capture's start), -10m\n"
"                                 (before its end); units ms, s, m, min, h, d\n"
"      --pid PID[,PID], --tid TID[,TID], --comm NAME[,NAME], --cpu N[-M][,N]\n"
"      --event NAME, --unit NAME[,NAME], --cgroup PATH (and below it),\n"
"      --host NAME[,NAME]\n"
"\n"
"Symbols:\n"
"      --symfs DIR               look for the captured paths under DIR\n"
"      --debug-dir DIR           .build-id tree of debug files (repeatable;\n"
"                                default /usr/lib/debug)\n"
"      --symbols BUNDLE          a perfrec-archive bundle (.tar, .tar.zst, or\n"
"                                extracted directory; repeatable)\n"
"      --no-debuginfod           do not ask the servers of DEBUGINFOD_URLS for\n"
"                                binaries and debug files found nowhere here\n"
"\n"
"  -j, --jobs N                  read the files on N threads (default: the CPUs\n"
"                                this may run on)\n"
"      --no-unwind               callchains as recorded: no DWARF unwinding of\n"
"                                the user stacks of --call-graph dwarf captures\n"
"  -q, --quiet                   no warnings\n"
"  -n, --show-nr-samples, --stdio  perf's; accepted, and what is done anyway\n"
"  -h, --help, -V, --version\n");
}

static int parse_sort(struct report_options *o, const char *text)
{
	static const struct { const char *name; unsigned bit; } keys[] = {
		{ "comm", SORT_COMM }, { "pid", SORT_PID }, { "tid", SORT_TID },
		{ "dso", SORT_DSO }, { "sym", SORT_SYM }, { "symbol", SORT_SYM },
		{ "srcline", SORT_SRCLINE }, { "unit", SORT_UNIT },
		{ "container", SORT_CONTAINER }, { "cgroup", SORT_CGROUP },
		{ "host", SORT_HOST },
	};
	char copy[256], *saveptr = NULL;

	snprintf(copy, sizeof(copy), "%s", text);
	o->sort_keys = 0;
	for (char *k = strtok_r(copy, ",", &saveptr); k; k = strtok_r(NULL, ",", &saveptr)) {
		size_t i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(k, keys[i].name) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			fprintf(stderr, "perfrec-report: --sort: unknown key '%s' (have host, comm, pid, tid, dso, sym, srcline, unit, container, cgroup)\n", k);
			return -EINVAL;
		}
		o->sort_keys |= keys[i].bit;
	}
	return o->sort_keys ? 0 : -EINVAL;
}

/* Appends item (size bytes) to a growable array; 0 or -ENOMEM. */
static int list_append(void *array, size_t *count, size_t *capacity, size_t size,
		       const void *item)
{
	void **items = array;

	if (prf_ensure_mem(items, capacity, size, *count + 1) < 0)
		return -ENOMEM;
	memcpy((char *)*items + *count * size, item, size);
	(*count)++;
	return 0;
}

#define LIST_APPEND(o, name, item) \
	list_append(&(o)->name##s, &(o)->name##_count, &(o)->name##_capacity, \
		    sizeof(*(o)->name##s), &(item))

int out_of_memory(void)
{
	fprintf(stderr, "perfrec-report: out of memory\n");
	return -ENOMEM;
}

/*
 * --pid, --tid, --cpu: comma-separated decimal numbers up to max, as many
 * as given, and for --cpu ranges ("0-3,8", as perf takes them); each
 * value goes to add().
 */
static int parse_number_list(struct report_options *o, const char *option, const char *text,
			     long max, int ranges, int (*add)(struct report_options *o, long value))
{
	char *copy = strdup(text), *saveptr = NULL;
	int ret = 0;

	if (!copy)
		return out_of_memory();
	for (char *k = strtok_r(copy, ",", &saveptr); k && !ret; k = strtok_r(NULL, ",", &saveptr)) {
		char *end, *last_end;
		long v, last;

		errno = 0;
		v = strtol(k, &end, 10);
		last = v;
		last_end = end;
		if (ranges && *end == '-' && end != k)
			last = strtol(end + 1, &last_end, 10);
		if (*last_end || end == k || errno || v < 0 || v > max || last < v || last > max ||
		    (last_end != end && !isdigit((unsigned char)end[1]))) {
			fprintf(stderr, "perfrec-report: --%s: '%s' is not a number%s from 0 to %ld\n",
				option, k, ranges ? " or a range N-M" : "", max);
			ret = -EINVAL;
		}
		for (long n = v; !ret && n <= last; n++)
			if (add(o, n) < 0)
				ret = out_of_memory();
	}
	free(copy);
	return ret;
}

static int add_pid(struct report_options *o, long value)
{
	uint32_t pid = (uint32_t)value;

	return LIST_APPEND(o, pid, pid);
}

static int add_tid(struct report_options *o, long value)
{
	uint32_t tid = (uint32_t)value;

	return LIST_APPEND(o, tid, tid);
}

static int add_cpu(struct report_options *o, long value)
{
	int cpu = (int)value;

	return LIST_APPEND(o, cpu, cpu);
}

/* One of a range's bounds, said wrong in one line: 0 or -EINVAL. */
static int parse_time(const char *option, const char *text,
		      const struct session_summary *capture, int64_t *ns)
{
	int ret = report_time_parse(text, capture, ns);

	if (ret == -EDOM)
		fprintf(stderr, "perfrec-report: --%s: '%s' names no such date or time of day (or, in local time, one the clocks skipped)\n",
			option, text);
	else if (ret == -ERANGE)
		fprintf(stderr, "perfrec-report: --%s: '%s' is out of the times this can count\n",
			option, text);
	else if (ret < 0)
		fprintf(stderr, "perfrec-report: --%s: '%s' is not a time: give 2026-12-07T17:30:00Z, 17:30:00.250+01:00, 17:30 (local), +30s (after the capture's start), -10m (before its end); see perfrec-report(1)\n",
			option, text);
	return ret < 0 ? -EINVAL : 0;
}

int options_parse_range(const char *const option[2], const char *const text[2],
			const struct session_summary *capture, struct report_range *range)
{
	*range = (struct report_range){ 0 };
	if (text[0]) {
		if (parse_time(option[0], text[0], capture, &range->since_ns) < 0)
			return -EINVAL;
		range->since_given = 1;
	}
	if (text[1]) {
		if (parse_time(option[1], text[1], capture, &range->until_ns) < 0)
			return -EINVAL;
		range->until_given = 1;
	}
	if (text[0] && text[1] && range->since_ns > range->until_ns) {
		fprintf(stderr, "perfrec-report: --%s '%s' is after --%s '%s'\n", option[0], text[0],
			option[1], text[1]);
		return -EINVAL;
	}
	return 0;
}

enum {
	OPT_VIEW = 0x100, OPT_JSON, OPT_LINES, OPT_INLINE, OPT_NO_INLINE, OPT_CHILDREN,
	OPT_CALLEE, OPT_FOCUS, OPT_PERCENT, OPT_TOP, OPT_SINCE, OPT_UNTIL, OPT_PID,
	OPT_TID, OPT_COMM, OPT_HOST, OPT_CPU, OPT_EVENT, OPT_SYMFS, OPT_DEBUG_DIR, OPT_NO_UNWIND,
	OPT_SYMBOLS, OPT_NO_DEBUGINFOD, OPT_FORMAT, OPT_BASELINE, OPT_MAX_STACK, OPT_STDIO,
	OPT_UNIT, OPT_CGROUP,
	OPT_JOBS, OPT_PROFILE, OPT_WAKER, OPT_BASELINE_SINCE, OPT_BASELINE_UNTIL, OPT_INTERVAL,
};

static const struct option long_options[] = {
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "waker", no_argument, NULL, OPT_WAKER },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "baseline-since", required_argument, NULL, OPT_BASELINE_SINCE },
	{ "baseline-until", required_argument, NULL, OPT_BASELINE_UNTIL },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "show-nr-samples", no_argument, NULL, 'n' },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "jobs", required_argument, NULL, 'j' },
	{ "sort", required_argument, NULL, 's' },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "callee", no_argument, NULL, OPT_CALLEE },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "width", required_argument, NULL, 'w' },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "no-unwind", no_argument, NULL, OPT_NO_UNWIND },
	{ "symbols", required_argument, NULL, OPT_SYMBOLS },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* --format: the views by name (json: the flat or tree one), or a file format. */
static int parse_format(struct report_options *o, const char *arg)
{
	static const struct {
		const char *name;
		enum output_format format;
		int view;		/* -1: leave the view */
		int json;
	} formats[] = {
		{ "flat", FORMAT_TEXT, VIEW_FLAT, 0 },
		{ "tree", FORMAT_TEXT, VIEW_TREE, 0 },
		{ "folded", FORMAT_TEXT, VIEW_FOLDED, 0 },
		{ "samples", FORMAT_TEXT, VIEW_SAMPLES, 0 },
		{ "json", FORMAT_TEXT, -1, 1 },
		{ "pprof", FORMAT_PPROF, -1, 0 },
		{ "html", FORMAT_HTML, -1, 0 },
		{ "svg", FORMAT_SVG, -1, 0 },
		{ "perf.data", FORMAT_PERFDATA, -1, 0 },
		{ "perf-script", FORMAT_PERF_SCRIPT, -1, 0 },
		{ "speedscope", FORMAT_SPEEDSCOPE, -1, 0 },
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(arg, formats[i].name))
			continue;
		o->format = formats[i].format;
		o->format_given = 1;
		if (formats[i].view >= 0)
			o->view = (enum view)formats[i].view;
		o->json |= formats[i].json;
		return 0;
	}
	fprintf(stderr, "perfrec-report: --format: '%s' is not one of flat, tree, folded, samples, json, pprof, html, svg, perf.data, perf-script, speedscope\n",
		arg);
	return -EINVAL;
}

/* Without --format, -o's suffix names one ("profile.pb.gz"); else the text. */
static void format_from_output(struct report_options *o)
{
	static const struct { const char *suffix; enum output_format format; } suffixes[] = {
		{ ".pb.gz", FORMAT_PPROF }, { ".pprof", FORMAT_PPROF },
		{ ".html", FORMAT_HTML }, { ".htm", FORMAT_HTML }, { ".svg", FORMAT_SVG },
		{ ".speedscope.json", FORMAT_SPEEDSCOPE },
	};
	size_t len = o->output ? strlen(o->output) : 0;

	if (o->format_given || !len)
		return;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(suffixes[i].suffix);

		if (len > n && !strcmp(o->output + len - n, suffixes[i].suffix)) {
			o->format = suffixes[i].format;
			return;
		}
	}
}

/* --max-stack, --jobs: a number from 1 to 1024.  0, or -EINVAL after a message. */
static int parse_count(const char *option, const char *arg, unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || errno || v < 1 || v > 1024 || !isdigit((unsigned char)*arg)) {
		fprintf(stderr, "perfrec-report: --%s: '%s' is not a number from 1 to 1024\n",
			option, arg);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/*
 * --interval: a length (report_duration_parse(): "1s", "500ms", "1.5m",
 * "1h", "1d", seconds without a unit) in whole milliseconds, what the
 * timeline prints its times in, from 1 ms to 366 days.  0, or -EINVAL
 * after a message.
 */
static int parse_interval(const char *arg, uint64_t *out)
{
	int64_t ns;

	if (report_duration_parse(arg, &ns) < 0 || ns < 1000000 ||
	    ns > 366 * 86400 * 1000000000ll || ns % 1000000) {
		fprintf(stderr, "perfrec-report: --interval: '%s' is not a time in whole milliseconds from 1ms to 366d (1s, 10s, 500ms, 1m, 1h)\n",
			arg);
		return -EINVAL;
	}
	*out = (uint64_t)ns;
	return 0;
}

static int parse_option(struct report_options *o, int c, const char *arg)
{
	char *end;

	switch (c) {
	case OPT_VIEW:
		if (strcmp(arg, "flat") == 0)
			o->view = VIEW_FLAT;
		else if (strcmp(arg, "tree") == 0)
			o->view = VIEW_TREE;
		else if (strcmp(arg, "folded") == 0)
			o->view = VIEW_FOLDED;
		else if (strcmp(arg, "samples") == 0)
			o->view = VIEW_SAMPLES;
		else if (strcmp(arg, "timeline") == 0)
			o->view = VIEW_TIMELINE;
		else {
			fprintf(stderr, "perfrec-report: --view: '%s' is not one of flat, tree, folded, samples, timeline\n", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_PROFILE:
		if (report_profile_kind_parse(arg, &o->profile) < 0) {
			fprintf(stderr, "perfrec-report: --profile: '%s' is not one of cpu, off-cpu, wall\n", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_WAKER: o->waker = 1; return 0;
	case OPT_INTERVAL:
		o->interval = arg;
		return parse_interval(arg, &o->interval_ns);
	case OPT_JSON: o->json = 1; return 0;
	case OPT_FORMAT: return parse_format(o, arg);
	case 'o': o->output = arg; return 0;
	case 'i': return LIST_APPEND(o, input, arg) < 0 ? out_of_memory() : 0;
	case OPT_BASELINE: return LIST_APPEND(o, baseline, arg) < 0 ? out_of_memory() : 0;
	case 's': return parse_sort(o, arg);
	case OPT_LINES: o->lines = 1; return 0;
	case OPT_INLINE: o->inline_leaf = 1; return 0;
	case OPT_NO_INLINE: o->no_inlines = 1; return 0;
	case OPT_CHILDREN: o->children = 1; return 0;
	case OPT_CALLEE: o->callee = 1; return 0;
	case OPT_FOCUS: o->focus = arg; return 0;
	case OPT_PERCENT:
		o->percent_limit = strtod(arg, &end);
		if (end == arg || *end || o->percent_limit < 0 || o->percent_limit > 100) {
			fprintf(stderr, "perfrec-report: --percent-limit: '%s' is not a percentage\n", arg);
			return -EINVAL;
		}
		o->percent_limit_given = 1;
		return 0;
	case OPT_TOP:
	case 'w': {
		long v = strtol(arg, &end, 10);

		if (end == arg || *end || v < 0 || v > 1000000) {
			fprintf(stderr, "perfrec-report: --%s: '%s' is not a number\n",
				c == 'w' ? "width" : "top", arg);
			return -EINVAL;
		}
		if (c == 'w')
			o->width = (int)v;
		else
			o->top = (size_t)v;
		return 0;
	}
	case OPT_SINCE: o->since = arg; return 0;
	case OPT_UNTIL: o->until = arg; return 0;
	case OPT_BASELINE_SINCE: o->baseline_since = arg; return 0;
	case OPT_BASELINE_UNTIL: o->baseline_until = arg; return 0;
	case OPT_PID: return parse_number_list(o, "pid", arg, 0x7fffffff, 0, add_pid);
	case OPT_TID: return parse_number_list(o, "tid", arg, 0x7fffffff, 0, add_tid);
	case OPT_CPU: return parse_number_list(o, "cpu", arg, 65535, 1, add_cpu);
	case OPT_MAX_STACK: {
		unsigned v;

		if (parse_count("max-stack", arg, &v) < 0)
			return -EINVAL;
		o->max_stack = v;
		return 0;
	}
	case 'j':
		return parse_count("jobs", arg, &o->jobs);
	case 'n':		/* the Samples column is always there */
	case OPT_STDIO:		/* text is the default */
		return 0;
	case OPT_COMM:
	case OPT_HOST:
	case OPT_UNIT: {
		/* Kept as given; split on commas in place. */
		char *copy = strdup(arg), *saveptr = NULL;

		if (!copy || LIST_APPEND(o, comm_arg, copy) < 0) {
			free(copy);
			return out_of_memory();
		}
		for (char *k = strtok_r(copy, ",", &saveptr); k; k = strtok_r(NULL, ",", &saveptr)) {
			const char *name = k;

			if ((c == OPT_COMM ? LIST_APPEND(o, comm, name) :
			     c == OPT_UNIT ? LIST_APPEND(o, unit, name) :
			     LIST_APPEND(o, host, name)) < 0)
				return out_of_memory();
		}
		return 0;
	}
	case OPT_CGROUP:
		return LIST_APPEND(o, cgroup, arg) < 0 ? out_of_memory() : 0;
	case OPT_EVENT: o->event = arg; return 0;
	case OPT_SYMFS: o->symfs = arg; return 0;
	case OPT_DEBUG_DIR:
		return LIST_APPEND(o, debug_dir, arg) < 0 ? out_of_memory() : 0;
	case OPT_NO_UNWIND: o->no_unwind = 1; return 0;
	case OPT_SYMBOLS:
		return LIST_APPEND(o, bundle, arg) < 0 ? out_of_memory() : 0;
	case OPT_NO_DEBUGINFOD: o->no_debuginfod = 1; return 0;
	case 'q': o->quiet = 1; return 0;
	default:
		return -EINVAL;
	}
}

void options_free(struct report_options *o)
{
	for (size_t i = 0; i < o->comm_arg_count; i++)
		free(o->comm_args[i]);
	free(o->comm_args);
	free(o->comms);
	free(o->hosts);
	free(o->units);
	free(o->cgroups);
	free(o->pids);
	free(o->tids);
	free(o->cpus);
	free(o->debug_dirs);
	free(o->bundles);
	free(o->inputs);
	free(o->baselines);
}

static int usage_error(const char *message)
{
	if (message)
		fprintf(stderr, "perfrec-report: %s\n", message);
	fprintf(stderr, "Try 'perfrec-report --help' for more information.\n");
	return 2;
}

/* The CPUs this process may run on (fewer than online under taskset). */
static unsigned default_jobs(void)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return online > 0 ? (unsigned)(online < 1024 ? online : 1024) : 1;
}

/* The checks of options that go together, then -1 to run. */
int options_parse(struct report_options *o, int argc, char **argv)
{
	int c, status = -1;

	*o = (struct report_options){ .sort_keys = SORT_SYM, .jobs = default_jobs() };
	while (status < 0 && (c = getopt_long(argc, argv, "s:w:o:i:j:nqhV", long_options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			status = 0;
		} else if (c == 'V') {
			printf("perfrec-report %s\n", PACKAGE_VERSION);
			status = 0;
		} else if (c == '?' || parse_option(o, c, optarg) < 0) {
			status = usage_error(NULL);
		}
	}
	for (int i = optind; status < 0 && i < argc; i++)
		if (LIST_APPEND(o, input, argv[i]) < 0)
			status = 1;
	format_from_output(o);
	if (status >= 0)
		return status;
	if (!o->input_count)
		return usage_error("no input: give capture files or directories");
	if (o->baseline_count && o->format != FORMAT_HTML && o->format != FORMAT_SVG &&
	    (o->format != FORMAT_TEXT || o->json || (o->view != VIEW_FLAT && o->view != VIEW_FOLDED)))
		return usage_error("--baseline goes with the flat and folded views and the html and svg formats");
	if ((o->baseline_since || o->baseline_until) && o->format != FORMAT_HTML &&
	    o->format != FORMAT_SVG &&
	    (o->format != FORMAT_TEXT || o->json || (o->view != VIEW_FLAT && o->view != VIEW_FOLDED)))
		return usage_error("--baseline-since and --baseline-until go with the flat and folded views and the html and svg formats");
	/* Its header is written again at the end, and files go beside it. */
	if (o->format == FORMAT_PERFDATA && !o->output)
		return usage_error("perf.data is written to a file: give -o FILE");
	if (o->format == FORMAT_PERFDATA && o->profile != REPORT_PROFILE_CPU)
		return usage_error("--format=perf.data holds CPU samples: not with --profile=off-cpu or wall");
	if (o->format != FORMAT_TEXT && o->format != FORMAT_PERF_SCRIPT && !o->output &&
	    isatty(STDOUT_FILENO))
		return usage_error("pprof, html, svg and speedscope are files for other tools: give -o FILE");
	if (o->waker && o->profile == REPORT_PROFILE_CPU)
		return usage_error("--waker goes with --profile=off-cpu or wall: a CPU sample has no waker");
	if (o->json && o->view == VIEW_FOLDED)
		return usage_error("--json goes with the flat, tree, samples and timeline views");
	if (o->view == VIEW_TIMELINE && o->format != FORMAT_TEXT)
		return usage_error("--view=timeline is text, or JSON with --json");
	if (o->interval && o->view != VIEW_TIMELINE)
		return usage_error("--interval goes with --view=timeline");
	/* The flame graphs keep every node: narrow ones are just not drawn. */
	if (o->view == VIEW_TREE && o->format == FORMAT_TEXT && !o->percent_limit_given)
		o->percent_limit = 0.5;
	return -1;
}
