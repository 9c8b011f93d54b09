/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfrec-report: profiles from perfrec captures.  See perfrec-report(1). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flame.h"
#include "options.h"
#include "perfdata.h"
#include "pprof.h"
#include "report.h"
#include "speedscope.h"
#include "symbolize.h"
#include "unwind.h"
#include "views.h"

/*
 * A line on stderr.  Messages name files and what is in them (paths of
 * other hosts, names): printed safely, as the views print them, and
 * always one line.
 */
static void say(const char *kind, const char *message)
{
	fputs("perfrec-report: ", stderr);
	fputs(kind, stderr);
	view_put(stderr, message, 0);
	fputc('\n', stderr);
}

static void warn_line(void *context, const char *message)
{
	const struct report_options *o = context;

	if (!o->quiet)
		say("warning: ", message);
}

static struct view_options view_options_of(const struct report_options *o)
{
	return (struct view_options){
		.percent_limit = o->percent_limit,
		.top = o->top,
		.width = o->width ? o->width : view_terminal_width(stdout),
		.show_children = o->children,
		.flame_inverted = o->callee,
	};
}

static int print_view(const struct report_options *o, const struct report_data *data,
		      FILE *out)
{
	struct view_options view = view_options_of(o);

	if (o->format == FORMAT_HTML)
		return flame_html(&data, 1, 0, &view, out);
	if (o->format == FORMAT_SVG)
		return flame_svg(data, &view, out);
	if (o->view == VIEW_FOLDED)
		return view_folded(data, out);
	if (o->view == VIEW_TREE)
		return o->json ? view_tree_json(data, &view, out) : view_tree(data, &view, out);
	return o->json ? view_flat_json(data, &view, out) : view_flat(data, &view, out);
}

/*
 * The profile against --baseline's, both normalised by their totals; the
 * flame graphs are data's, coloured by the change (data's tree is matched
 * with base's for them).
 */
static int print_diff(const struct report_options *o, struct report_data *base,
		      struct report_data *data, FILE *out)
{
	struct view_options view = {
		.percent_limit = o->percent_limit,
		.top = o->top,
		.width = o->width ? o->width : view_terminal_width(stdout),
	};

	if (o->format == FORMAT_HTML || o->format == FORMAT_SVG) {
		int ret = report_match_baseline(data, base);

		return ret < 0 ? ret : print_view(o, data, out);
	}
	if (o->view == VIEW_FOLDED)
		return view_folded_diff(base, data, out);
	return view_flat_diff(base, data, &view, out);
}

/* A line that is no warning, as the report's own. */
__attribute__((format(printf, 2, 3)))
static void note_line(void *context, const char *format, ...)
{
	const struct report_options *o = context;
	char message[PATH_MAX + 512];	/* a path and what is said of it */
	va_list ap;

	if (o->quiet)
		return;
	va_start(ap, format);
	vsnprintf(message, sizeof(message), format, ap);
	va_end(ap);
	say("", message);
}

/*
 * Freeing a million tree nodes and cache slots one by one is a large
 * share of a large report; the kernel takes the memory back at exit at
 * once.  PRF_REPORT_FREE=1 frees it (for leak checking by hand); kept
 * reachable here otherwise, so LeakSanitizer does not call it a leak.
 */
struct report_profile report_kept[4];

static void profile_release(struct report_profile *p)
{
	if (getenv("PRF_REPORT_FREE"))
		report_profile_free(p);
}

/*
 * Inlined frames come from DWARF, which a debug file keeps compressed.
 * The flat view charges the function the code was inlined into, which
 * the symbol table names: it needs them only with --inline, or for
 * --focus, which may name an inlined function.
 */
static int wants_inlines(const struct report_options *o)
{
	if (o->view == VIEW_TIMELINE && o->format == FORMAT_TEXT)
		return o->inline_leaf || o->focus;	/* the flat view's keys */
	return o->view != VIEW_FLAT || o->format != FORMAT_TEXT || o->json || o->inline_leaf ||
	       o->focus;
}

/* "DIR" or "the 3 inputs", for a line about them. */
static const char *inputs_name(const char **inputs, size_t input_count, char *buffer,
			       size_t size)
{
	if (input_count == 1)
		return inputs[0];
	snprintf(buffer, size, "the %zu inputs", input_count);
	return buffer;
}

/*
 * What an off-CPU or wall profile needs of the inputs: blocks (without
 * them an off-CPU profile is an error, a wall one the CPU time alone), and
 * for wall a clock event, whose periods are nanoseconds.  0, or an exit
 * status after a message.
 */
static int check_profile(const struct report_options *o, const char **inputs, size_t input_count,
			 const struct report_profile *p)
{
	const struct session_summary *h = &p->data.header;
	char name[64], message[PATH_MAX + 128];

	if (o->profile == REPORT_PROFILE_CPU || h->off_cpu_total) {
		if (o->profile == REPORT_PROFILE_WALL && h->samples_total && !h->sampling.clock)
			note_line((void *)o, "--profile=wall: event %s is not a clock: its samples' periods are %s counts, not nanoseconds, and do not add up with the off-CPU time; record with -e cpu-clock",
				  h->event ? h->event : "[unknown]", h->event ? h->event : "event");
		return 0;
	}
	snprintf(message, sizeof(message), "no off-CPU records in %s: record with perfrecd --off-cpu",
		 inputs_name(inputs, input_count, name, sizeof(name)));
	if (o->profile == REPORT_PROFILE_OFF_CPU) {
		say("", message);
		return 1;
	}
	note_line((void *)o, "%s; the wall profile is the on-CPU time alone", message);
	return 0;
}

/* Which options give a profile's range: the inputs' or the baseline's. */
struct range_options {
	const char *option[2];
	const char *text[2];
};

static struct range_options range_of_inputs(const struct report_options *o)
{
	return (struct range_options){ { "since", "until" }, { o->since, o->until } };
}

/*
 * The baseline's window; without one --since and --until, which then
 * apply to the baseline too (relative times to each capture).
 */
static struct range_options range_of_baseline(const struct report_options *o)
{
	if (!o->baseline_since && !o->baseline_until)
		return range_of_inputs(o);
	return (struct range_options){ { "baseline-since", "baseline-until" },
				       { o->baseline_since, o->baseline_until } };
}

/*
 * The first pass over inputs: symbols, the session, the event (event, or
 * NULL for the captures' own choice), the filter and its range.  0, or an
 * exit status after a message.
 */
static int profile_load(struct report_options *o, const char **inputs, size_t input_count,
			const char *event, const struct range_options *range,
			const struct report_debug_dirs *debug_dirs, int unwind,
			struct report_profile *p)
{
	struct report_load_options load = {
		.symfs = o->symfs,
		.debug_dirs = debug_dirs->dirs,
		.debug_dir_count = debug_dirs->count,
		.debuginfod = !o->no_debuginfod,
		.want_lines = o->lines || (o->sort_keys & SORT_SRCLINE) || o->format == FORMAT_PPROF,
		.want_inlines = wants_inlines(o),
		.unwind = unwind,
		.jobs = o->jobs,
		.hosts = o->hosts,
		.host_count = o->host_count,
		.warn = warn_line,
		.warn_context = o,
		.note = note_line,
		.note_context = o,
	};
	struct prf_error error = { 0 };
	int ret;

	p->filter = (struct session_filter){
		.pids = o->pids, .pid_count = o->pid_count,
		.tids = o->tids, .tid_count = o->tid_count,
		.comms = o->comms, .comm_count = o->comm_count,
		.units = o->units, .unit_count = o->unit_count,
		.cgroups = o->cgroups, .cgroup_count = o->cgroup_count,
		.cpus = o->cpus, .cpu_count = o->cpu_count,
	};
	p->kind = o->profile;
	ret = report_profile_load(p, &load, inputs, input_count, &error);
	if (ret < 0) {
		say("", error.message);
		return 1;
	}
	ret = report_profile_choose_event(p, event, &error);
	if (ret < 0) {
		say("", error.message);
		return 2;
	}
	if (ret > 0)
		note_line(o, "%s", error.message);
	ret = check_profile(o, inputs, input_count, p);
	if (ret)
		return ret;
	if (options_parse_range(range->option, range->text, &p->data.header, &p->data.range) < 0)
		return 2;
	report_range_filter(&p->data.range, &p->filter);
	return 0;
}

/* The second pass, into p->data.  0, or 1 after a message. */
static int profile_aggregate(struct report_profile *p, const struct aggregate_options *options)
{
	return report_profile_aggregate(p, options) < 0 ? out_of_memory(), 1 : 0;
}

/*
 * The timeline's slots: from the range's start (--since, or the capture's;
 * a start before the clock's 0 is 0) to its end, not past the capture's,
 * of --interval or a length giving at most VIEW_TIMELINE_LINES lines.
 * The range's end in *end; 0, or 2 after a message.
 */
static int timeline_range(const struct report_options *o, const struct report_profile *p,
			  struct aggregate_options *aggregate, uint64_t *end)
{
	const struct session_summary *h = &p->data.header;
	uint64_t start, stop, intervals;
	int64_t since, until;

	/* The bounds on the capture clock, whether or not a wall clock can say them. */
	(void)report_range_bounds(&p->data.range, h, &since, &until);
	start = since > 0 ? (uint64_t)since : 0;
	stop = until > 0 ? (uint64_t)until : 0;
	if (h->end_ns && stop > h->end_ns)
		stop = h->end_ns;
	aggregate->time_origin_ns = start;
	aggregate->time_end_ns = stop;
	aggregate->time_slot_ns = o->interval_ns ? o->interval_ns :
		report_time_step(stop > start ? stop - start : 0, VIEW_TIMELINE_LINES);
	intervals = view_timeline_intervals(start, stop, aggregate->time_slot_ns);
	if (intervals > VIEW_TIMELINE_MAX_INTERVALS) {
		fprintf(stderr, "perfrec-report: --interval %s: %" PRIu64 " intervals in the range, more than %d: give a longer one\n",
			o->interval ? o->interval : "(default)", intervals,
			VIEW_TIMELINE_MAX_INTERVALS);
		return 2;
	}
	*end = stop;
	return 0;
}

/*
 * The page of a capture with off-CPU records: its CPU, off-CPU and wall
 * profiles, each read and aggregated once (p, --profile's, is one of
 * them and is shown first), for the page to switch between without a
 * reload.  The files' warnings were said for p: the other reads are
 * quiet.  0, or an exit status after a message.
 */
static int print_profiles_html(struct report_options *o, const char **inputs,
			       size_t input_count, const struct report_debug_dirs *debug_dirs,
			       int unwind, const struct aggregate_options *aggregate,
			       struct report_profile *p, FILE *out)
{
	static const enum report_profile_kind kinds[] = {
		REPORT_PROFILE_CPU, REPORT_PROFILE_OFF_CPU, REPORT_PROFILE_WALL,
	};
	const struct report_data *list[3];
	struct report_profile *q = &report_kept[2];
	struct view_options view = view_options_of(o);
	enum report_profile_kind profile = o->profile;
	struct range_options inputs_range = range_of_inputs(o);
	size_t shown = 0;
	int quiet = o->quiet, status = 0;

	for (size_t i = 0; i < 3; i++) {
		if (kinds[i] == p->kind) {
			shown = i;
			list[i] = &p->data;
			continue;
		}
		o->profile = kinds[i];
		o->quiet = 1;
		status = profile_load(o, inputs, input_count, o->event, &inputs_range, debug_dirs,
				      unwind, q);
		if (!status)
			status = profile_aggregate(q, aggregate);
		o->profile = profile;
		o->quiet = quiet;
		if (status)
			return status;
		if (q->read_error)
			p->read_error = q->read_error;
		list[i] = &q->data;
		q++;
	}
	return flame_html(list, 3, shown, &view, out) < 0;
}

/* The command line, for the CMDLINE section of a perf.data. */
static char **command_line;
static int command_line_count;

/*
 * --format=perf.data: the samples written to out (-o's temporary file),
 * FILE.kallsyms and FILE.jit/ beside it, and a line saying how perf
 * reads them.  0, or 1 after a message.
 */
static int write_perf_data(struct report_options *o, struct report_profile *p, FILE *out)
{
	struct perfdata_options options = {
		.host = p->host_count == 1 ? p->hosts[0] : NULL,
		.event = p->filter.event,
		.cmdline = (const char *const *)command_line,
		.cmdline_count = (size_t)command_line_count,
	};
	struct perfdata_writer *w = NULL;
	char *kallsyms = NULL, *jit = NULL;
	int ret, status = 1;

	if (asprintf(&kallsyms, "%s.kallsyms", o->output) < 0 ||
	    asprintf(&jit, "%s.jit", o->output) < 0) {
		out_of_memory();
		goto out;
	}
	/* perf.data is one machine's: pids of two hosts would mix. */
	if (!options.host && p->data.header.host_count > 1) {
		say("", "a perf.data holds one host's processes: choose one with --host");
		goto out;
	}
	ret = perfdata_new(&w, p->session, &p->data.header, &options, out);
	if (!ret) {
		p->read_error = report_for_each_sample(p, perfdata_add, w) < 0;
		ret = perfdata_finish(w);
	}
	if (ret < 0) {
		fprintf(stderr, "perfrec-report: writing %s: %s\n", o->output,
			ret == -ENOENT ? "no event to write" : strerror(-ret));
		goto out;
	}
	ret = perfdata_write_kallsyms(w, kallsyms);
	if (ret < 0) {
		fprintf(stderr, "perfrec-report: writing %s: %s\n", kallsyms, strerror(-ret));
		goto out;
	}
	note_line(o, "%" PRIu64 " samples; perf report -i %s%s%s", perfdata_samples(w),
		  o->output, ret ? " --kallsyms " : "", ret ? kallsyms : "");
	ret = perfdata_write_jit_maps(w, jit);
	if (ret < 0) {
		fprintf(stderr, "perfrec-report: writing %s: %s\n", jit, strerror(-ret));
		goto out;
	}
	if (ret)
		note_line(o, "JIT symbols of %d processes in %s/: perf reads them as /tmp/perf-PID.map",
			  ret, jit);
	status = p->read_error;
out:
	perfdata_free(w);
	free(kallsyms);
	free(jit);
	return status;
}

/* --format=speedscope: the samples in time order, a profile a thread.  0, or 1 after a message. */
static int print_speedscope(const struct report_options *o, const char **inputs,
			    size_t input_count, struct report_profile *p, FILE *out)
{
	char name[64];
	struct speedscope_options options = {
		.kind = o->profile, .max_frames = o->max_stack,
		.name = inputs_name(inputs, input_count, name, sizeof(name)),
	};
	struct speedscope *speedscope = speedscope_new(p->session, p->symbolizer, &options);
	int read_error, ret;

	if (!speedscope)
		return out_of_memory(), 1;
	read_error = report_for_each_sample(p, speedscope_add, speedscope);
	ret = speedscope_write(speedscope, out);
	speedscope_free(speedscope);
	if (ret < 0) {
		fprintf(stderr, "perfrec-report: writing %s: %s\n",
			o->output ? o->output : "the profile", strerror(-ret));
		return 1;
	}
	return read_error < 0;
}

static int run(struct report_options *o, const char **inputs, size_t input_count)
{
	/* The flame graphs draw the call tree. */
	int flame = o->format == FORMAT_HTML || o->format == FORMAT_SVG;
	/* A flat profile of self time looks at no callchain: nothing to unwind. */
	int unwind = !o->no_unwind && ((o->view != VIEW_FLAT && o->view != VIEW_TIMELINE) ||
				       o->children || o->focus || o->format != FORMAT_TEXT);
	struct aggregate_options aggregate = {
		.sort_keys = o->sort_keys | (o->lines ? SORT_SRCLINE : 0),
		.leaf_inline = o->inline_leaf,
		.tree_inlines = !o->no_inlines,
		/*
		 * Collapsed stacks are caller-first whatever the tree's order;
		 * so is the page's data: it inverts the tree itself.
		 */
		.callee = o->callee && o->view != VIEW_FOLDED && o->format != FORMAT_HTML,
		.children = o->children,
		.want_tree = o->view == VIEW_TREE || o->view == VIEW_FOLDED || flame,
		/* --lines: the flame graphs' frames per source line, shown on hover. */
		.tree_lines = flame && o->lines,
		.focus = o->focus,
		.max_frames = o->max_stack,
		.jobs = o->jobs,
		.waker = o->waker,
	};
	struct report_symbol_sources sources = {
		.debug_dirs = o->debug_dirs, .debug_dir_count = o->debug_dir_count,
		.bundles = o->bundles, .bundle_count = o->bundle_count,
		.captures = { inputs, o->baselines },
		.capture_count = { input_count, o->baseline_count },
	};
	struct report_profile *p = &report_kept[0], *base = NULL;
	struct range_options inputs_range = range_of_inputs(o), base_range = range_of_baseline(o);
	struct report_debug_dirs debug_dirs = { 0 };
	struct prf_error error = { 0 };
	struct report_output output;
	uint64_t timeline_end = 0;
	int status, ret;

	/* Before any work: a FILE that cannot be written is said at once. */
	ret = report_output_open(&output, o->output);
	if (ret < 0) {
		fprintf(stderr, "perfrec-report: %s: %s\n", o->output, strerror(-ret));
		return 1;
	}
	status = 1;
	if (report_debug_dirs_make(&debug_dirs, &sources, &error) < 0) {
		say("", error.message);
		goto out;
	}
	/* A window as the baseline is of --baseline's captures, or of the inputs. */
	if (o->baseline_count || o->baseline_since || o->baseline_until) {
		base = &report_kept[1];
		status = profile_load(o, o->baseline_count ? o->baselines : inputs,
				      o->baseline_count ? o->baseline_count : input_count, o->event,
				      &base_range, &debug_dirs, unwind, base);
		if (!status)
			status = profile_aggregate(base, &aggregate);
		if (status)
			goto out;
	}
	/* Compared with a baseline, the captures are read as the event it chose. */
	status = profile_load(o, inputs, input_count, base ? base->filter.event : o->event,
			      &inputs_range, &debug_dirs, unwind, p);
	if (status)
		goto out;
	if (o->format == FORMAT_PERFDATA) {
		status = write_perf_data(o, p, output.file);
		goto out;
	}
	if ((o->view == VIEW_SAMPLES && !flame && o->format != FORMAT_SPEEDSCOPE) ||
	    o->format == FORMAT_PERF_SCRIPT) {
		struct view_samples v = { .session = p->session, .symbolizer = p->symbolizer,
					  .out = output.file, .json = o->json,
					  .perf_script = o->format == FORMAT_PERF_SCRIPT,
					  .no_shortcuts = p->no_shortcuts };
		const char *kept_max = getenv("PRF_REPORT_SCRIPT_KEPT");

		/* The bound of the text sorted in memory, smaller for the tests of its window. */
		if (kept_max)
			v.kept_text_max = strtoul(kept_max, NULL, 10);
		session_sample_fn fn = o->format == FORMAT_PERF_SCRIPT ? view_sample_perf_script :
				       o->json ? view_sample_json : view_sample;

		/* What was read is shown; a file cut short by an I/O error still fails the run. */
		status = report_for_each_sample(p, fn, &v) < 0;
		ret = view_samples_finish(&v);
		if (v.late)
			note_line(o, "%" PRIu64 " samples were out of time order by more than the 30 s the text is sorted within, and come out of order",
				  v.late);
		if (ret < 0 && ret != -EPIPE) {
			fprintf(stderr, "perfrec-report: writing %s: %s\n",
				o->output ? o->output : "the samples", strerror(-ret));
			status = 1;
		}
		goto out;
	}
	if (o->format == FORMAT_SPEEDSCOPE) {
		status = print_speedscope(o, inputs, input_count, p, output.file);
		goto out;
	}
	if (o->format == FORMAT_PPROF) {
		struct pprof_options pprof_options = {
			.focus = o->focus, .event_label = p->data.header.event_count > 1,
			.inline_frames = 1,	/* profile_load() asks the symbolizer for them */
			.since_ns = p->filter.since_ns, .until_ns = p->filter.until_ns,
			.kind = o->profile,
		};
		struct pprof_builder *pprof = pprof_new(p->session, p->symbolizer, &pprof_options);
		int read_error;

		if (!pprof) {
			out_of_memory();
			status = 1;
			goto out;
		}
		read_error = report_for_each_sample(p, pprof_add, pprof);
		report_profile_summary(p);
		ret = pprof_write(pprof, &p->data.header, output.file);
		pprof_free(pprof);
		if (ret < 0) {
			fprintf(stderr, "perfrec-report: writing %s: %s\n",
				o->output ? o->output : "the profile", strerror(-ret));
			status = 1;
			goto out;
		}
		status = read_error < 0;
		goto out;
	}
	if (o->view == VIEW_TIMELINE && (status = timeline_range(o, p, &aggregate, &timeline_end)))
		goto out;
	if (o->format == FORMAT_HTML && !base && o->view != VIEW_TIMELINE) {
		/* The page's heatmap and ranges over what is read (flame-time.c's rule). */
		const struct session_summary *h = &p->data.header;
		uint64_t since = p->filter.since_ns > h->start_ns ? p->filter.since_ns : h->start_ns;
		uint64_t until = p->filter.until_ns && p->filter.until_ns < h->end_ns ?
				 p->filter.until_ns : h->end_ns;

		flame_time_options(since, until, h->realtime_offset_ns, &aggregate);
	}
	status = profile_aggregate(p, &aggregate);
	if (status)
		goto out;
	if (o->view == VIEW_TIMELINE) {
		struct view_options view = view_options_of(o);

		view.until_ns = timeline_end;
		view.ascii = !view_locale_utf8();
		ret = o->json ? view_timeline_json(&p->data, &view, output.file) :
				view_timeline(&p->data, &view, output.file);
		status = ret < 0 || p->read_error;
		goto out;
	}
	if (o->format == FORMAT_HTML && !base && p->data.header.off_cpu_total) {
		status = print_profiles_html(o, inputs, input_count, &debug_dirs, unwind,
					     &aggregate, p, output.file);
		status = status || p->read_error;
		goto out;
	}
	if (base)
		ret = print_diff(o, &base->data, &p->data, output.file);
	else
		ret = print_view(o, &p->data, output.file);
	status = ret < 0 || p->read_error || (base && base->read_error) ? 1 : 0;
out:
	report_debug_dirs_free(&debug_dirs);
	ret = report_output_close(&output, status == 0);
	if (ret < 0 && (o->output || ret != -EPIPE)) {
		fprintf(stderr, "perfrec-report: writing %s: %s\n",
			o->output ? o->output : "the report", strerror(-ret));
		status = 1;
	}
	profile_release(p);
	if (base)
		profile_release(base);
	for (size_t i = 2; i < 4; i++)
		if (report_kept[i].session)
			profile_release(&report_kept[i]);
	return status;
}

/*
 * Each file's reader takes chunk buffers of megabytes and frees them when
 * the file ends.  glibc gives such blocks back to the kernel, so the next
 * file faulted the same amount in again, page by page; on a directory of
 * files that was most of the report's system time.  One heap that keeps
 * what is freed, shared by the reading threads, reuses it instead.
 */
static void keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);	/* glibc's largest */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_ARENA_MAX, 1);
}

int main(int argc, char **argv)
{
	struct report_options options;
	int status;

	keep_freed_memory();
	command_line = argv;
	command_line_count = argc;
	/* A report piped into head(1) just stops. */
	signal(SIGPIPE, SIG_DFL);
	status = options_parse(&options, argc, argv);
	if (status < 0)
		status = run(&options, options.inputs, options.input_count);
	options_free(&options);
	return status;
}
