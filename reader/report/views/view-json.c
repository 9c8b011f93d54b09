/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flat profile, the call tree and the timeline's start as JSON, for
 * scripts.
 *
 * Schema, version 1.  Integers are exact (64-bit: a reader in JavaScript
 * loses precision past 2^53); percentages are numbers with four decimals,
 * of total_period; strings are UTF-8 (invalid bytes become U+FFFD),
 * null when unknown.  Keys are always present; new keys may be added.
 *
 * Every view, at the top level:
 *   "view":          "flat" | "tree" | "timeline"
 *   "version":       1
 *   "header": {
 *     "hostname", "kernel_release", "machine":   string | null  (the first file's)
 *     "hosts":       [string, ...]      every host of the files, by name
 *     "event":       string | null      as the user wrote it: "cpu-clock"
 *     "sampling":    string | null      "97 Hz", "period 100000"
 *     "start_ns", "end_ns":             the capture clock (CLOCK_MONOTONIC)
 *     "realtime_offset_ns":             signed; add it for wall-clock time
 *     "start_time":  string | null      UTC: "2024-05-01T12:00:00.000000000Z"
 *     "duration_ns"
 *     "range": {"since", "until",       only with --since or --until: UTC,
 *               "since_ns", "until_ns"} "2026-12-07T01:02:03.000Z" (the start
 *                                       or end for one not given), and on
 *                                       the capture clock (signed)
 *     "samples":                        after filters
 *     "samples_total":                  in the files
 *     "lost":                           samples the kernel could not record
 *     "off_cpu_lost":                   off-CPU blocks the recorder had no room for
 *     "dropped":                        records the collector could not write
 *     "files", "damaged_files"
 *     "incomplete_files":               without a trailer but not damaged: still
 *                                       being written, or their writer stopped
 *     "file_names":  [string, ...]
 *   }
 *   "total_period", "total_samples":    what percentages are of
 *   "profile":       "off-cpu" | "wall" only in those profiles (with the
 *                                       header's "range", the exceptions to
 *                                       keys always present: a CPU profile's
 *                                       JSON is as before)
 *   "weight_unit":   "nanoseconds"      with "profile": every *_period and
 *                                       period is time, *_samples count
 *                                       samples and off-CPU blocks
 *   "percent_limit": number             entries/nodes below it are left out
 *
 * Flat (view_flat_json), heaviest self first, limited like the text view:
 *   "sort_keys":     [string, ...]      of "comm" "pid" "tid" "dso" "sym" "srcline"
 *                                       "unit" "container" "cgroup" "host"
 *   "entries": [ {
 *     "host":        string             only with the host sort key
 *     "comm":        string | null      null unless a sort key
 *     "unit", "container", "cgroup": string | null   only when a sort key;
 *                                       null: unknown, or no container
 *     "pid", "tid":  integer | null     null unless a sort key
 *     "ns_pid", "ns_tid": integer       with pid, tid, for a task in another
 *                                       pid namespace: its ids there
 *     "symbol":      string | null      function, "[unknown]"; the DSO's
 *                                       name when sorting by DSO alone
 *     "dso":         string | null      short name: "libc.so.6"
 *     "srcline":     string | null      "file.c:42"
 *     "kernel", "inlined", "resolved":  boolean
 *     "unknown_offset": integer | null  unresolved: the address in the DSO
 *     "self_percent", "total_percent":  number
 *     "self_samples", "total_samples", "self_period", "total_period"
 *   }, ... ]
 *   "hidden_entries":                   left out by the limit or top N
 *
 * Tree (view_tree_json):
 *   "order":         "caller" | "callee"   the outermost caller or the
 *                                          leaf right below the comm
 *   "children":      [node, ...]           one per comm, heaviest first
 *   "hidden_nodes":                        subtrees left out by the limit
 *   node: {
 *     "kind":        "comm" | "frame"  "comm" for the first level, also
 *                                       when it is the unit (--sort unit)
 *     "name":        string             comm, function or "[unknown]"
 *     "dso", "srcline":  string | null  null for a comm
 *     "kernel", "inlined", "resolved":  boolean
 *     "unknown_offset": integer | null
 *     "percent", "self_percent":        number: with its subtree, alone
 *     "samples", "self_samples", "period", "self_period"
 *     "truncated":   boolean            children left out: the node is
 *                                       json_max_depth deep (80 unless
 *                                       set; comm nodes are 1 deep)
 *     "children":    [node, ...]        heaviest first
 *   }
 *
 * Timeline (view_timeline_json, --view=timeline --json), a key being a
 * flat row (by "sort_keys"), each its self time:
 *   "sort_keys":     [string, ...]      as the flat view's
 *   "interval_ns":                      each interval's length
 *   "start", "end":  string             UTC, "2026-12-07T01:02:03.000Z": the
 *                                       first interval's start, the last's end
 *   "start_ns", "end_ns":               the same on the capture clock
 *   "top_n":                            keys an interval (--top, default 3)
 *   "intervals": [ {                    every interval, empty ones too
 *     "start":       string             UTC, as above
 *     "start_ns"
 *     "samples", "period":              in the interval (off-CPU: blocks, ns)
 *     "top": [ {                        its heaviest keys, by period
 *       "key":       string             the row's keys as the flat view prints
 *                                       them, apart by a space:
 *                                       "[.] main workload", "[k] schedule
 *                                       [kernel.kallsyms]", "bash 4242"
 *       "samples", "period"
 *       "share":     number             percent of the interval's period
 *     }, ... ]
 *   }, ... ]
 *   "keys": [ ... ]                     the whole range's top_n, as "top" is,
 *                                       "share" of total_period
 *
 * Samples (view_sample_json, --view=samples --json): not one document
 * but a JSON object a line, a line per sample, in the files' order:
 *   "comm":          string             the thread's name then
 *   "pid", "tid", "cpu", "period", "time_ns" (the capture clock)
 *   "ns_pid", "ns_tid": integer | null  in another pid namespace: its ids there
 *   "kind":          "sample" | "off-cpu"  a block's period is its duration (ns)
 *   "event":         string | null      "cpu-clock", "sched:sched_process_exec"
 *   "unit", "container": string | null
 *   "waker":         {"comm", "pid", "tid"} | null   who woke an off-CPU block
 *   "fields":        object | null      a tracepoint's, by name, as its file's
 *                                       format names them: integers as numbers,
 *                                       pointers as "0x..." strings, strings as
 *                                       strings, other arrays as arrays of bytes;
 *                                       null for a value outside the sample's data
 *   "frames": [ {                       the leaf first
 *     "address":     integer
 *     "symbol", "dso", "srcline": string | null
 *     "kernel", "inlined": boolean
 *   }, ... ]
 *
 * The tree is written with an explicit stack, never recursion, however
 * deep the capture's stacks.  It nests two containers per node: jq 1.6
 * counts three (an object and its key, an array) against a limit of
 * 256, so 84 nodes is as deep as it reads; Python's json stops near 490.
 * Hence the cut at json_max_depth, VIEW_JSON_MAX_DEPTH (80) by default.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include "views.h"

/* ---- values ---------------------------------------------------------- */

/* The escape JSON has for a control character, 0 when \u00XX it is. */
static char short_escape(uint32_t code)
{
	switch (code) {
	case '\b':	return 'b';
	case '\f':	return 'f';
	case '\n':	return 'n';
	case '\r':	return 'r';
	case '\t':	return 't';
	default:	return 0;
	}
}

/*
 * Capture strings may hold anything.  Quotes and backslashes are escaped,
 * control characters (C1 too, for the terminals jq's output may reach)
 * become \u00XX, and each byte that is not part of valid UTF-8 becomes
 * U+FFFD, so that the output is valid JSON whatever came in.
 */
void view_json_string(FILE *out, const char *s)
{
	uint32_t code;
	size_t n;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s += n) {
		n = prf_utf8_char(s, &code);
		if (!n) {
			fputs("\\ufffd", out);
			n = 1;
		} else if (code == '"' || code == '\\') {
			fprintf(out, "\\%c", (char)code);
		} else if (short_escape(code)) {
			fprintf(out, "\\%c", short_escape(code));
		} else if (prf_is_control(code)) {
			fprintf(out, "\\u%04x", (unsigned)code);
		} else {
			fwrite(s, 1, n, out);
		}
	}
	fputc('"', out);
}

static void json_key(FILE *out, const char *key)
{
	fprintf(out, "\"%s\":", key);
}

static void json_u64(FILE *out, const char *key, uint64_t value)
{
	fprintf(out, "\"%s\":%" PRIu64 ",", key, value);
}

static void json_bool(FILE *out, const char *key, int value)
{
	fprintf(out, "\"%s\":%s,", key, value ? "true" : "false");
}

static void json_text(FILE *out, const char *key, const char *value)
{
	json_key(out, key);
	view_json_string(out, value);
	fputc(',', out);
}

static void json_percent(FILE *out, const char *key, uint64_t part, uint64_t total)
{
	uint64_t fixed = view_percent_fixed(part, total, 4);

	fprintf(out, "\"%s\":%" PRIu64 ".%04" PRIu64 ",", key, fixed / 10000,
		fixed % 10000);
}

/* ---- the header ------------------------------------------------------ */

static void json_start_time(FILE *out, const struct session_summary *header)
{
	uint32_t nanoseconds;
	char text[64];
	struct tm tm;

	json_key(out, "start_time");
	if (view_start_time(header, &tm, &nanoseconds) ||
	    !strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm))
		fputs("null,", out);
	else
		fprintf(out, "\"%s.%09" PRIu32 "Z\",", text, nanoseconds);
}

/*
 * With --since or --until: "range":{"since","until"} in UTC (the
 * capture's start or end for a bound not given), "since_ns", "until_ns"
 * on the capture clock.
 */
static void json_range(FILE *out, const struct report_data *data)
{
	const struct report_range *range = &data->range;
	int64_t offset = data->header.realtime_offset_ns, since, until;
	char text[REPORT_TIME_ISO_MAX];

	if (!range->since_given && !range->until_given)
		return;
	if (report_range_bounds(range, &data->header, &since, &until) < 0) {
		fputs("\"range\":null,", out);
		return;
	}
	fprintf(out, "\"range\":{\"since\":\"%s\",",
		report_time_iso((uint64_t)since, offset, text, sizeof(text)));
	fprintf(out, "\"until\":\"%s\",", report_time_iso((uint64_t)until, offset, text, sizeof(text)));
	fprintf(out, "\"since_ns\":%" PRId64 ",\"until_ns\":%" PRId64 "},", since, until);
}

static void json_header(FILE *out, const struct report_data *data)
{
	const struct session_summary *header = &data->header;
	char sampling[REPORT_SAMPLING_TEXT_MAX];

	fputs("\"header\":{", out);
	json_text(out, "hostname", header->hostname);
	json_text(out, "kernel_release", header->kernel_release);
	json_text(out, "machine", header->machine);
	json_text(out, "event", header->event);
	json_text(out, "sampling", report_sampling_text(&header->sampling, sampling,
							  sizeof(sampling)));
	json_u64(out, "start_ns", header->start_ns);
	json_u64(out, "end_ns", header->end_ns);
	fprintf(out, "\"realtime_offset_ns\":%" PRId64 ",", header->realtime_offset_ns);
	json_start_time(out, header);
	json_u64(out, "duration_ns", header->end_ns > header->start_ns ?
				     header->end_ns - header->start_ns : 0);
	json_range(out, data);
	json_u64(out, "samples", header->samples);
	json_u64(out, "samples_total", header->samples_total);
	json_u64(out, "lost", header->lost);
	json_u64(out, "off_cpu_lost", header->off_cpu_lost);
	json_u64(out, "dropped", header->dropped);
	json_u64(out, "files", header->files);
	json_u64(out, "damaged_files", header->damaged_files);
	json_u64(out, "incomplete_files", header->incomplete_files);
	fputs("\"hosts\":[", out);
	for (size_t i = 0; header->hosts && i < header->host_count; i++) {
		if (i)
			fputc(',', out);
		view_json_string(out, header->hosts[i]);
	}
	fputs("],", out);
	fputs("\"file_names\":[", out);
	for (size_t i = 0; header->file_names && i < header->files; i++) {
		if (i)
			fputc(',', out);
		view_json_string(out, header->file_names[i]);
	}
	fputs("]}", out);
}

void view_json_begin(FILE *out, const char *view, const struct report_data *data,
		     const struct view_options *options)
{
	double limit = options->percent_limit;
	uint64_t hundredths = limit > 0 && limit < 1e15 ? (uint64_t)(limit * 100 + 0.5) : 0;

	fprintf(out, "{\"view\":\"%s\",\"version\":1,\n", view);
	json_header(out, data);
	fprintf(out, ",\n\"total_period\":%" PRIu64 ",\"total_samples\":%" PRIu64
		",\"percent_limit\":%" PRIu64 ".%02" PRIu64 ",\n", data->total_period,
		data->total_samples, hundredths / 100, hundredths % 100);
	if (data->kind != REPORT_PROFILE_CPU)
		fprintf(out, "\"profile\":\"%s\",\"weight_unit\":\"%s\",\n",
			report_profile_kind_name(data->kind), data->weight_unit);
}

/* The symbol's fields, "dso" to "unknown_offset"; all null for a comm. */
static void json_symbol(FILE *out, const struct report_symbol *symbol)
{
	json_text(out, "dso", symbol ? symbol->dso : NULL);
	json_text(out, "srcline", symbol ? symbol->srcline : NULL);
	json_bool(out, "kernel", symbol && symbol->kernel);
	json_bool(out, "inlined", symbol && symbol->inlined);
	json_bool(out, "resolved", symbol && symbol->resolved);
	if (symbol && !symbol->resolved)
		json_u64(out, "unknown_offset", symbol->unknown_offset);
	else
		fputs("\"unknown_offset\":null,", out);
}

/* ---- flat ------------------------------------------------------------ */

void view_json_sort_keys(FILE *out, unsigned keys)
{
	/* By bit: enum sort_key. */
	static const char *const names[] = { "comm", "pid", "tid", "dso", "sym", "srcline",
					     "unit", "container", "cgroup", "host" };
	int first = 1;

	fputs("\"sort_keys\":[", out);
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (keys & 1u << i) {
			fprintf(out, "%s\"%s\"", first ? "" : ",", names[i]);
			first = 0;
		}
	fputs("],\n", out);
}

static void json_entry(FILE *out, const struct report_data *data,
		       const struct flat_entry *e)
{
	unsigned keys = data->sort_keys;

	fputc('{', out);
	if (keys & SORT_HOST)
		json_text(out, "host", e->host);
	json_text(out, "comm", keys & SORT_COMM ? e->comm : NULL);
	if (keys & SORT_UNIT)
		json_text(out, "unit", e->unit);
	if (keys & SORT_CONTAINER)
		json_text(out, "container", e->container);
	if (keys & SORT_CGROUP)
		json_text(out, "cgroup", e->cgroup);
	if (keys & SORT_PID)
		json_u64(out, "pid", e->pid);
	else
		fputs("\"pid\":null,", out);
	if (keys & SORT_TID)
		json_u64(out, "tid", e->tid);
	else
		fputs("\"tid\":null,", out);
	if ((keys & SORT_PID) && e->ns_pid)
		json_u64(out, "ns_pid", e->ns_pid);
	if ((keys & SORT_TID) && e->ns_tid)
		json_u64(out, "ns_tid", e->ns_tid);
	json_text(out, "symbol", e->symbol ? e->symbol->name : NULL);
	json_symbol(out, e->symbol);
	json_percent(out, "self_percent", e->self_period, data->total_period);
	json_percent(out, "total_percent", e->total_period, data->total_period);
	json_u64(out, "self_samples", e->self_samples);
	json_u64(out, "total_samples", e->total_samples);
	json_u64(out, "self_period", e->self_period);
	fprintf(out, "\"total_period\":%" PRIu64 "}", e->total_period);
}

int view_flat_json(const struct report_data *data, const struct view_options *options,
		   FILE *out)
{
	size_t shown = 0, hidden = 0;

	view_json_begin(out, "flat", data, options);
	view_json_sort_keys(out, data->sort_keys);
	fputs("\"entries\":[", out);
	for (size_t i = 0; i < data->flat_count; i++) {
		const struct flat_entry *e = &data->flat[i];

		if (view_below_limit(e->self_period, data->total_period,
				     options->percent_limit) ||
		    (options->top && shown >= options->top)) {
			hidden++;
			continue;
		}
		fputs(shown++ ? ",\n" : "\n", out);
		json_entry(out, data, e);
	}
	fprintf(out, "\n],\n\"hidden_entries\":%zu}\n", hidden);
	return view_finish(out);
}

/* ---- tree ------------------------------------------------------------ */

struct open_node {
	const struct call_node *node;
	size_t next;			/* the child to look at next */
	size_t written;			/* children written so far */
};

struct tree_writer {
	const struct report_data *data;
	const struct view_options *options;
	FILE *out;
	struct open_node *stack;
	size_t depth, capacity;
	size_t max_depth;
	size_t hidden;
};

static int shown(const struct tree_writer *w, const struct call_node *node)
{
	return !view_below_limit(node->total_period, w->data->total_period,
				 w->options->percent_limit);
}

static int has_shown_child(const struct tree_writer *w, const struct call_node *node)
{
	for (size_t i = 0; i < node->child_count; i++)
		if (shown(w, node->children[i]))
			return 1;
	return 0;
}

/* Writes the node up to its open children array; 1 if it is to be filled. */
static int json_node_open(struct tree_writer *w, const struct call_node *node)
{
	const struct report_symbol *symbol = node->symbol;
	uint64_t total = w->data->total_period;
	int truncated = w->depth >= w->max_depth && has_shown_child(w, node);
	FILE *out = w->out;

	fprintf(out, "{\"kind\":\"%s\",", symbol ? "frame" : "comm");
	json_text(out, "name", symbol ? view_symbol_name(symbol) :
			       node->comm ? node->comm : "[unknown]");
	json_symbol(out, symbol);
	json_percent(out, "percent", node->total_period, total);
	json_percent(out, "self_percent", node->self_period, total);
	json_u64(out, "samples", node->total_samples);
	json_u64(out, "self_samples", node->self_samples);
	json_u64(out, "period", node->total_period);
	json_u64(out, "self_period", node->self_period);
	json_bool(out, "truncated", truncated);
	fputs("\"children\":[", out);
	if (w->depth >= w->max_depth) {
		fputs("]}", out);
		return 0;
	}
	return 1;
}

static int push(struct tree_writer *w, const struct call_node *node)
{
	if (prf_ensure_mem((void **)&w->stack, &w->capacity, sizeof(*w->stack), w->depth + 1) < 0)
		return -ENOMEM;
	w->stack[w->depth++] = (struct open_node){ .node = node };
	return 0;
}

/* The next shown child of the innermost open node, or NULL. */
static const struct call_node *next_child(struct tree_writer *w)
{
	struct open_node *top = &w->stack[w->depth - 1];

	while (top->next < top->node->child_count) {
		const struct call_node *child = top->node->children[top->next++];

		if (shown(w, child))
			return child;
		w->hidden++;
	}
	return NULL;
}

/* stack[0] is the root, whose children array is the top-level one. */
static int json_tree(struct tree_writer *w)
{
	if (push(w, w->data->tree))
		return -ENOMEM;
	while (w->depth) {
		const struct call_node *child = next_child(w);

		if (!child) {
			fputs(--w->depth ? "]}" : "\n]", w->out);
			continue;
		}
		fputs(w->stack[w->depth - 1].written++ ? ",\n" : "\n", w->out);
		if (json_node_open(w, child) && push(w, child))
			return -ENOMEM;
	}
	return 0;
}

int view_tree_json(const struct report_data *data, const struct view_options *options,
		   FILE *out)
{
	struct tree_writer w = { .data = data, .options = options, .out = out };
	int err = 0;

	w.max_depth = options->json_max_depth ? options->json_max_depth :
		      VIEW_JSON_MAX_DEPTH;
	view_json_begin(out, "tree", data, options);
	fprintf(out, "\"order\":\"%s\",\n\"children\":[",
		data->tree_callee ? "callee" : "caller");
	if (data->tree)
		err = json_tree(&w);
	else
		fputs("]", out);
	free(w.stack);
	if (err)
		return err;
	fprintf(out, ",\n\"hidden_nodes\":%zu}\n", w.hidden);
	return view_finish(out);
}
