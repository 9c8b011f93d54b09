/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One capture into profiles: the session replays it, the symbolizer of
 * this host names its addresses (the binaries are here, build-ids and
 * addresses are kept), and each sample goes to the pprof builder of its
 * series and interval.  Intervals are aligned to the wall clock (a
 * minute's profile of every host covers the same minute), so a file
 * begins and ends inside one: those two are sent clipped to the file,
 * and the next file's part of the interval is a profile of its own that
 * the server adds up.  One pass over the samples, whatever the count of
 * series and intervals.
 *
 * A capture with off-CPU records gives each series and interval a second
 * profile, its blocks weighed in nanoseconds (off_cpu/nanoseconds, the
 * pprof of perfrec-report --profile=off-cpu), sent as a request of its
 * own: Pyroscope names a request's series after its sample types, and
 * the two profiles' "samples" (CPU samples, blocks) must not add up.
 * Read in the same pass; a block counts in the interval it ended in.  Captures without them read CPU samples alone,
 * as before, and send the same requests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "push-internal.h"
#include "pprof.h"
#include "session.h"
#include "symbolize.h"
#include "unwind.h"

#define NS	1000000000ull
/*
 * The file being written: an interval is sent once its end is this far
 * behind the last whole chunk, since the CPUs' rings are drained at
 * different times and a later chunk may still hold its samples.
 */
#define PARTIAL_MARGIN_NS	(10 * NS)

struct slot {
	uint64_t window;
	const char *series;		/* interned by the session */
	int is_unit;
	int off_cpu;			/* the series' off-CPU profile */
	struct pprof_builder *builder;
	uint64_t samples;
};

struct router {
	const struct push_options *options;
	const struct push_state *state;
	const char *file_name;
	const char *host;
	struct session *session;
	struct symbolizer *symbolizer;
	int64_t realtime_offset_ns;
	uint64_t interval_ns;
	uint64_t last_window;		/* partial: later windows are not sent yet */
	int partial;
	struct slot *slots;
	size_t slot_count, slot_capacity;
	size_t last;			/* the slot of the sample before: runs are common */
	int error;
};

static uint64_t realtime(const struct router *r, uint64_t capture_ns)
{
	int64_t t = (int64_t)capture_ns + r->realtime_offset_ns;

	return t > 0 ? (uint64_t)t : 0;
}

static int slot_is(const struct slot *s, uint64_t window, const char *series, int off_cpu)
{
	return s->window == window && s->series == series && s->off_cpu == off_cpu;
}

static struct slot *slot_for(struct router *r, uint64_t window, const char *series, int is_unit,
			     int off_cpu)
{
	struct pprof_options options = {
		.inline_frames = 1,
		.kind = off_cpu ? REPORT_PROFILE_OFF_CPU : REPORT_PROFILE_CPU,
	};

	if (r->last < r->slot_count && slot_is(&r->slots[r->last], window, series, off_cpu))
		return &r->slots[r->last];
	for (size_t i = r->slot_count; i-- > 0;)
		if (slot_is(&r->slots[i], window, series, off_cpu))
			return &r->slots[r->last = i];
	if (prf_ensure_mem((void **)&r->slots, &r->slot_capacity, sizeof(*r->slots),
			   r->slot_count + 1) < 0)
		return NULL;
	/* The window in capture time, for the profile's time_nanos and duration. */
	options.since_ns = window * r->interval_ns - (uint64_t)r->realtime_offset_ns;
	options.until_ns = options.since_ns + r->interval_ns;
	r->slots[r->slot_count] = (struct slot){ window, series, is_unit, off_cpu,
		pprof_new(r->session, r->symbolizer, &options), 0 };
	if (!r->slots[r->slot_count].builder)
		return NULL;
	r->last = r->slot_count;
	return &r->slots[r->slot_count++];
}

/*
 * A sample's interval; a block's is the one it ended in (switch-out time
 * plus duration): it is recorded only when it ends, so the margin of the
 * file being written holds for it as for a sample, and a long block is
 * not left out of an interval already sent.
 */
static uint64_t window_of(const struct router *r, const struct session_sample *sample)
{
	uint64_t at = sample->time;

	if (sample->kind == SESSION_SAMPLE_OFF_CPU && at + sample->period > at)
		at += sample->period;
	return realtime(r, at) / r->interval_ns;
}

static void route(void *context, const struct session_sample *sample)
{
	struct router *r = context;
	uint64_t window = window_of(r, sample);
	int is_unit;
	const char *series = push_series_of(sample, &is_unit);
	struct slot *slot;

	if (r->error || (r->partial && window > r->last_window))
		return;
	slot = slot_for(r, window, series, is_unit, sample->kind == SESSION_SAMPLE_OFF_CPU);
	if (!slot) {
		r->error = -ENOMEM;
		return;
	}
	pprof_add(slot->builder, sample);
	slot->samples++;
}

static void quiet(void *context, const char *message)
{
	const struct router *r = context;

	if (r->options->verbose)
		push_log("%s: %s", r->file_name, message);
}

/* Missing or rebuilt binaries: worth a line with -v only, once a symbolizer. */
static void symbolizer_warn(void *context, const char *message)
{
	const struct push_options *options = context;

	if (options->verbose)
		push_log("%s", message);
}

struct symbolizer *push_symbolizer_new(const struct push_options *options)
{
	struct symbolizer_options sym_options = {
		.want_lines = 1, .want_inlines = 1,
		.warn = symbolizer_warn, .warn_context = (void *)options,
	};

	return symbolizer_new(&sym_options);
}

static int compare_profiles(const void *a, const void *b)
{
	const struct push_profile *x = a, *y = b;

	int by_name;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	by_name = strcmp(x->name, y->name);
	return by_name ? by_name : x->off_cpu - y->off_cpu;
}

/*
 * What the state file calls a profile: its ingest name, and for the
 * off-CPU one the name and " off_cpu" (the CPU one's as before, so that
 * old state files stay true; an ingest name has no space (series.c), so
 * no name is another's key).  malloc'd, or NULL.
 */
static char *profile_key(const char *name, int off_cpu)
{
	char *key;

	if (!off_cpu)
		return strdup(name);
	return asprintf(&key, "%s off_cpu", name) < 0 ? NULL : key;
}

/* The slots into profiles, those sent before left out; 0 or a negative errno. */
static int write_profiles(struct router *r, struct push_capture *capture,
			  const struct session_summary *summary)
{
	uint64_t file_start = realtime(r, summary->start_ns);
	uint64_t file_end = realtime(r, summary->end_ns);

	capture->profiles = calloc(r->slot_count ? r->slot_count : 1, sizeof(*capture->profiles));
	if (!capture->profiles)
		return -ENOMEM;
	for (size_t i = 0; i < r->slot_count; i++) {
		struct slot *slot = &r->slots[i];
		struct push_profile *p = &capture->profiles[capture->count];
		struct session_summary header = *summary;
		uint64_t start = slot->window * r->interval_ns, end = start + r->interval_ns;
		FILE *f;
		int ret;

		p->name = push_series_name(r->options, r->host, slot->series, slot->is_unit);
		p->key = p->name ? profile_key(p->name, slot->off_cpu) : NULL;
		if (!p->key) {
			free(p->name);
			p->name = NULL;
			return -ENOMEM;
		}
		if (push_state_sent(r->state, r->file_name, slot->window, p->key)) {
			free(p->name);
			free(p->key);
			p->name = p->key = NULL;
			continue;
		}
		capture->count++;
		p->window = slot->window;
		p->off_cpu = slot->off_cpu;
		p->samples = slot->samples;
		/* Seconds, as /ingest takes them: the file's part of the interval. */
		if (file_start > start)
			start = file_start;
		if (file_end && file_end < end)
			end = file_end;
		p->from = start / NS;
		p->until = (end + NS - 1) / NS;
		if (p->until <= p->from)
			p->until = p->from + 1;
		header.samples = slot->samples;
		f = open_memstream(&p->body, &p->body_size);
		if (!f)
			return -ENOMEM;
		ret = pprof_write(slot->builder, &header, f);
		if (fclose(f) && !ret)
			ret = -ENOMEM;
		if (ret)
			return ret;
	}
	if (capture->count)
		qsort(capture->profiles, capture->count, sizeof(*capture->profiles),
		      compare_profiles);
	return 0;
}

/* summary's event: report_choose_event()'s. */
static void capture_facts(struct push_capture *capture, const struct session_summary *summary)
{
	if (summary->sampling.frequency <= 1000000)
		capture->sample_rate = (unsigned)summary->sampling.frequency;
	/* As pprof-write.c names the sample type: the server's config must match. */
	if (summary->sampling.clock) {
		capture->sample_type = "cpu";
		capture->sample_unit = "nanoseconds";
	} else {
		capture->sample_type = NULL;
		capture->sample_unit = "count";
	}
}

int push_capture_read(struct push_capture *capture, const struct push_options *options,
		      struct symbolizer *symbolizer, const char *path, const char *name,
		      const struct push_state *state, int partial, struct prf_error *error)
{
	struct router r = { .options = options, .state = state, .file_name = name,
			    .partial = partial, .symbolizer = symbolizer };
	struct session_options session_options = { .warn = quiet, .warn_context = &r,
						   .symbolizer = symbolizer };
	struct session_filter filter = { 0 };
	struct session_summary summary;
	struct unwinder *unwinder = NULL;
	struct prf_error message = { 0 };
	int ret;

	memset(capture, 0, sizeof(*capture));
	capture->partial = partial;
	r.interval_ns = (uint64_t)options->interval_s * NS;
	if (session_new(&r.session, &session_options) < 0 ||
	    !(unwinder = unwinder_new(r.session, r.symbolizer))) {
		ret = -ENOMEM;
		prf_set_error(error, ret, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	ret = session_add_input(r.session, path, error);
	if (ret >= 0)
		ret = session_load(r.session, error);
	if (ret < 0)
		goto out;
	session_get_summary(r.session, &summary);
	/* The event perfrec-report would show, and its filter. */
	if (report_choose_event(&summary, NULL, &filter.event, &message) > 0)
		quiet(&r, message.message);
	r.host = summary.hostname;
	r.realtime_offset_ns = summary.realtime_offset_ns;
	if (summary.off_cpu_total)
		filter.kinds = SESSION_SAMPLE_CPU | SESSION_SAMPLE_OFF_CPU;
	if (partial) {
		uint64_t end = realtime(&r, summary.end_ns);

		/* Windows that end PARTIAL_MARGIN_NS before the last whole chunk. */
		if (end < PARTIAL_MARGIN_NS + r.interval_ns)
			goto out;
		r.last_window = (end - PARTIAL_MARGIN_NS) / r.interval_ns;
		if (!r.last_window)
			goto out;
		r.last_window--;
	}
	capture_facts(capture, &summary);
	ret = unwinder_for_each_sample(unwinder, &filter, route, &r);
	if (ret == -EIO && partial)
		ret = 0;	/* the chunk being written: what is whole is read */
	if (!ret)
		ret = r.error;
	session_get_summary(r.session, &summary);
	report_choose_event(&summary, filter.event, &filter.event, &message);
	if (!ret)
		ret = write_profiles(&r, capture, &summary);
	if (ret < 0)
		prf_set_error(error, ret, "%s: %s", path, strerror(-ret));
out:
	for (size_t i = 0; i < r.slot_count; i++)
		pprof_free(r.slots[i].builder);
	free(r.slots);
	unwinder_free(unwinder);
	session_free(r.session);
	if (ret < 0)
		push_capture_free(capture);
	return ret;
}

void push_capture_free(struct push_capture *capture)
{
	for (size_t i = 0; i < capture->count; i++) {
		free(capture->profiles[i].name);
		free(capture->profiles[i].key);
		free(capture->profiles[i].body);
	}
	free(capture->profiles);
	capture->profiles = NULL;
	capture->count = 0;
}
