/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=pprof, the Profile message from pprof.c's tables.  Field
 * numbers are profile.proto's (github.com/google/pprof, proto/).
 *
 * Sample types: "samples/count", then the weight, the sample's period as
 * the text views count it (so pprof's percentages are the flat view's):
 * "cpu/nanoseconds" for the clock events (cpu-clock, task-clock), whose
 * periods are nanoseconds; for others the event's name and "count"
 * ("page_faults/count", "cycles/count").  Off-CPU and wall profiles
 * weigh time: "off_cpu/nanoseconds", "wall/nanoseconds".  Names have no
 * '-', which Pyroscope refuses in sample types.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pprof-internal.h"

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12, PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3 };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

/* The profile's own strings, interned before the string table is written. */
struct profile_strings {
	uint32_t samples, count, type, unit;
	uint32_t comm, pid, tid, event;
	uint32_t unit_label, container, ns_pid, ns_tid;
	uint32_t comments[5];
	size_t comment_count;
};

/* The event the samples are of: --event's, or the one the header names. */
static const struct session_event *report_event(const struct session_summary *h)
{
	for (size_t i = 0; h->event && i < h->event_count; i++)
		if (strcmp(h->events[i].name, h->event) == 0)
			return &h->events[i];
	return h->event_count ? &h->events[0] : NULL;
}

static int is_clock(const struct session_event *e)
{
	return e && e->sampling.clock;
}

/*
 * A sample type's name from an event's: without its own period= and
 * freq= terms ("page-faults/period=64/" is page-faults), and each run of
 * characters other than letters, digits and '_' as one '_'
 * ("page_faults", "cpu_event_0x3c").
 */
static void type_name(const char *event, char *out, size_t size)
{
	char text[256], kept[256] = "", *terms, *saveptr = NULL;
	size_t n = 0;

	snprintf(text, sizeof(text), "%s", event ? event : "");
	terms = strchr(text, '/');
	if (terms && text[strlen(text) - 1] == '/') {
		*terms++ = '\0';
		terms[strlen(terms) - 1] = '\0';
		for (char *t = strtok_r(terms, ",", &saveptr); t; t = strtok_r(NULL, ",", &saveptr))
			if (strncmp(t, "period=", 7) && strncmp(t, "freq=", 5))
				snprintf(kept + strlen(kept), sizeof(kept) - strlen(kept), "_%s", t);
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", kept);
	}
	for (const char *p = text; *p && n + 1 < size; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9');

		if (plain)
			out[n++] = *p;
		else if (n && out[n - 1] != '_')
			out[n++] = '_';
	}
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "events");
}

/*
 * The period: the sampling interval, 1e9 / frequency nanoseconds for a
 * clock at a frequency; the fixed period otherwise; for other events at
 * a frequency, whose period the kernel varies, the mean one.
 */
static int64_t profile_period(const struct session_event *e, const struct pprof_tables *t)
{
	uint64_t count = 0, period = 0;

	if (e && !e->sampling.frequency)
		return (int64_t)(e->sampling.period > INT64_MAX ? INT64_MAX : e->sampling.period);
	if (is_clock(e)) {
		uint64_t hz = e->sampling.frequency;

		return (int64_t)((1000000000ull + hz / 2) / hz);
	}
	for (size_t i = 0; i < t->sample_count; i++) {
		count += t->samples[i].count;
		period += t->samples[i].period;
	}
	return count ? (int64_t)(period / count) : 0;
}

static int intern_strings(struct pprof_builder *b, const struct session_summary *h,
			  struct profile_strings *s)
{
	const struct session_event *event = report_event(h);
	char name[128], text[512];
	int ret = 0;

	int time = b->options.kind != REPORT_PROFILE_CPU;

	if (b->options.kind == REPORT_PROFILE_OFF_CPU)
		snprintf(name, sizeof(name), "off_cpu");
	else if (b->options.kind == REPORT_PROFILE_WALL)
		snprintf(name, sizeof(name), "wall");
	else if (is_clock(event))
		snprintf(name, sizeof(name), "cpu");
	else
		type_name(event ? event->name : h->event, name, sizeof(name));
	ret |= pprof_string(b, "samples", &s->samples);
	ret |= pprof_string(b, "count", &s->count);
	ret |= pprof_string(b, name, &s->type);
	ret |= pprof_string(b, time || is_clock(event) ? "nanoseconds" : "count", &s->unit);
	ret |= pprof_string(b, "comm", &s->comm);
	ret |= pprof_string(b, "pid", &s->pid);
	ret |= pprof_string(b, "tid", &s->tid);
	ret |= pprof_string(b, "event", &s->event);
	ret |= pprof_string(b, "unit", &s->unit_label);
	ret |= pprof_string(b, "container", &s->container);
	ret |= pprof_string(b, "ns_pid", &s->ns_pid);
	ret |= pprof_string(b, "ns_tid", &s->ns_tid);
	/* What the text views' header says, for pprof -comments and the UIs. */
	s->comment_count = 0;
	snprintf(text, sizeof(text), "host %s, kernel %s, %s", h->hostname ? h->hostname : "?",
		 h->kernel_release ? h->kernel_release : "?", h->machine ? h->machine : "?");
	ret |= pprof_string(b, text, &s->comments[s->comment_count++]);
	if (event) {
		char sampling[REPORT_SAMPLING_TEXT_MAX];

		snprintf(text, sizeof(text), "event %s, %s", event->name,
			 report_sampling_text(&event->sampling, sampling, sizeof(sampling)) ?: "");
		ret |= pprof_string(b, text, &s->comments[s->comment_count++]);
	}
	if (time) {
		snprintf(text, sizeof(text), "%s profile: %s", name,
			 b->options.kind == REPORT_PROFILE_OFF_CPU ?
			 "time blocked off the CPU, in nanoseconds" :
			 "on-CPU time (samples x period) plus off-CPU time, in nanoseconds");
		ret |= pprof_string(b, text, &s->comments[s->comment_count++]);
	}
	if (h->lost || h->dropped) {
		snprintf(text, sizeof(text), "%llu samples lost, %llu records dropped",
			 (unsigned long long)h->lost, (unsigned long long)h->dropped);
		ret |= pprof_string(b, text, &s->comments[s->comment_count++]);
	}
	if (h->damaged_files) {
		snprintf(text, sizeof(text), "%zu of %zu files damaged or cut short",
			 h->damaged_files, h->files);
		ret |= pprof_string(b, text, &s->comments[s->comment_count++]);
	}
	return ret ? -ENOMEM : 0;
}

static void put_value_type(struct pprof_buffer *out, struct pprof_buffer *m, uint32_t field,
			   uint32_t type, uint32_t unit)
{
	pprof_buffer_reset(m);
	pprof_put_uint(m, VALUE_TYPE_TYPE, type);
	pprof_put_uint(m, VALUE_TYPE_UNIT, unit);
	pprof_put_message(out, field, m);
}

static void put_label(struct pprof_buffer *sample, struct pprof_buffer *m, uint32_t key,
		      uint32_t str, uint64_t num)
{
	pprof_buffer_reset(m);
	pprof_put_uint(m, LABEL_KEY, key);
	pprof_put_uint(m, LABEL_STR, str);
	pprof_put_int(m, LABEL_NUM, (int64_t)num);
	pprof_put_message(sample, SAMPLE_LABEL, m);
}

/* The fields of the Profile before the tables: types, times, comments. */
static void encode_header(struct pprof_buffer *out, struct pprof_buffer *m,
			  const struct profile_strings *s, const struct session_summary *h,
			  const struct pprof_options *o, int64_t period)
{
	uint64_t start = h->start_ns, end = h->end_ns;
	uint64_t comments[5];

	put_value_type(out, m, PROFILE_SAMPLE_TYPE, s->samples, s->count);
	put_value_type(out, m, PROFILE_SAMPLE_TYPE, s->type, s->unit);
	put_value_type(out, m, PROFILE_PERIOD_TYPE, s->type, s->unit);
	pprof_put_int(out, PROFILE_PERIOD, period);
	pprof_put_int(out, PROFILE_DEFAULT_SAMPLE_TYPE, s->type);
	/* The span the samples may come from: the capture's, cut by --since, --until. */
	if (o->since_ns > start)
		start = o->since_ns;
	if (o->until_ns && o->until_ns < end)
		end = o->until_ns;
	if (start) {
		pprof_put_int(out, PROFILE_TIME_NANOS, (int64_t)start + h->realtime_offset_ns);
		pprof_put_int(out, PROFILE_DURATION_NANOS, end > start ? (int64_t)(end - start) : 0);
	}
	for (size_t i = 0; i < s->comment_count; i++)
		comments[i] = s->comments[i];
	pprof_put_packed(out, PROFILE_COMMENT, comments, s->comment_count);
}

static void encode_sample(struct pprof_buffer *out, struct pprof_buffer *m,
			  const struct pprof_tables *t, const struct pprof_sample *sample,
			  const struct profile_strings *s)
{
	uint64_t values[2] = {
		sample->count,
		sample->period > INT64_MAX ? INT64_MAX : sample->period,
	};

	pprof_put_packed32(out, SAMPLE_LOCATION_ID, t->stacks + sample->stack, sample->depth);
	pprof_put_packed(out, SAMPLE_VALUE, values, 2);
	/* pid and tid as numbers, as perf_data_converter (perf to pprof) has them. */
	put_label(out, m, s->comm, sample->comm, 0);
	put_label(out, m, s->pid, 0, sample->pid);
	put_label(out, m, s->tid, 0, sample->tid);
	if (sample->event)
		put_label(out, m, s->event, sample->event, 0);
	/* pprof -tagroot=unit starts the graph from the systemd unit. */
	if (sample->unit)
		put_label(out, m, s->unit_label, sample->unit, 0);
	if (sample->container)
		put_label(out, m, s->container, sample->container, 0);
	if (sample->ns_pid) {
		put_label(out, m, s->ns_pid, 0, sample->ns_pid);
		put_label(out, m, s->ns_tid, 0, sample->ns_tid);
	}
}

/* A shared library by pprof's rule: ".so" at the end, or ".so." and a digit. */
static int is_library(const char *path)
{
	size_t length = strlen(path);

	for (const char *p = strstr(path, ".so"); p; p = strstr(p + 1, ".so"))
		if (!p[3] || ((p[3] == '.' || p[3] == '_') && p[4] >= '0' && p[4] <= '9'))
			return 1;
	return length == 0;
}

/*
 * pprof takes the first Mapping for the program's (its reports' "File:"
 * and "Build ID:", and it warns when that one has no file): of the
 * executables that are not libraries nor the kernel, the one the most
 * weight lands in goes first, the others keep their order.  ids[i] is
 * mapping i's id; order[k] the mapping with id k + 1.  0 or -ENOMEM.
 */
static int order_mappings(const struct pprof_tables *t, uint32_t **ids, uint32_t **order)
{
	uint64_t *weight = calloc(t->mapping_count + 1, sizeof(*weight));
	size_t main = 0, k = 0;

	*ids = calloc(t->mapping_count + 1, sizeof(**ids));
	*order = calloc(t->mapping_count + 1, sizeof(**order));
	if (!weight || !*ids || !*order) {
		free(weight);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->sample_count; i++) {
		const struct pprof_sample *s = &t->samples[i];
		uint32_t mapping = t->locations[t->stacks[s->stack] - 1].mapping;

		if (mapping)
			weight[mapping - 1] += s->period;
	}
	for (size_t i = 0; i < t->mapping_count; i++) {
		const struct pprof_mapping *m = &t->mappings[i];
		const char *file = t->strings[m->filename];

		if (!m->kernel && file[0] != '[' && !is_library(file) &&
		    (main == 0 || weight[i] > weight[main - 1]))
			main = i + 1;
	}
	if (main)
		(*order)[k++] = (uint32_t)(main - 1);
	for (size_t i = 0; i < t->mapping_count; i++)
		if (i + 1 != main)
			(*order)[k++] = (uint32_t)i;
	for (k = 0; k < t->mapping_count; k++)
		(*ids)[(*order)[k]] = (uint32_t)(k + 1);
	free(weight);
	return 0;
}

static void encode_mapping(struct pprof_buffer *out, const struct pprof_tables *t, size_t i,
			   uint32_t id)
{
	const struct pprof_mapping *m = &t->mappings[i];

	pprof_put_uint(out, MAPPING_ID, id);
	pprof_put_uint(out, MAPPING_MEMORY_START, m->start);
	pprof_put_uint(out, MAPPING_MEMORY_LIMIT, m->limit);
	pprof_put_uint(out, MAPPING_FILE_OFFSET, m->offset);
	pprof_put_uint(out, MAPPING_FILENAME, m->filename);
	pprof_put_uint(out, MAPPING_BUILD_ID, m->build_id);
	/* pprof symbolizes again only mappings with none of the first three set. */
	pprof_put_uint(out, MAPPING_HAS_FUNCTIONS, (uint64_t)m->all_functions);
	pprof_put_uint(out, MAPPING_HAS_FILENAMES, (uint64_t)(m->all_functions && m->all_filenames));
	pprof_put_uint(out, MAPPING_HAS_LINE_NUMBERS, (uint64_t)(m->all_functions && m->all_lines));
	/* Inlined frames come from the DWARF that gave the files. */
	pprof_put_uint(out, MAPPING_HAS_INLINE_FRAMES,
		       (uint64_t)(t->inline_frames && m->all_functions && m->all_filenames));
}

static void encode_location(struct pprof_buffer *out, struct pprof_buffer *m,
			    const struct pprof_tables *t, size_t i, const uint32_t *mapping_ids)
{
	const struct pprof_location *l = &t->locations[i];

	pprof_put_uint(out, LOCATION_ID, i + 1);
	pprof_put_uint(out, LOCATION_MAPPING_ID, l->mapping ? mapping_ids[l->mapping - 1] : 0);
	pprof_put_uint(out, LOCATION_ADDRESS, l->address);
	for (size_t j = 0; j < l->line_count; j++) {
		pprof_buffer_reset(m);
		pprof_put_uint(m, LINE_FUNCTION_ID, l->lines[j].function);
		pprof_put_int(m, LINE_LINE, l->lines[j].line);
		pprof_put_message(out, LOCATION_LINE, m);
	}
}

static void encode_function(struct pprof_buffer *out, const struct pprof_tables *t, size_t i)
{
	const struct pprof_function *f = &t->functions[i];

	pprof_put_uint(out, FUNCTION_ID, i + 1);
	pprof_put_uint(out, FUNCTION_NAME, f->name);
	/* Names are demangled already; the raw one is not kept. */
	pprof_put_uint(out, FUNCTION_SYSTEM_NAME, f->name);
	pprof_put_uint(out, FUNCTION_FILENAME, f->filename);
}

/* A field of the Profile from its encoded message. */
static int put_field(struct pprof_stream *stream, uint32_t field,
		     const struct pprof_buffer *message)
{
	if (message->error)
		return message->error;
	return pprof_stream_field(stream, field, message->data, message->size);
}

/*
 * Each table's entries go to the stream one by one, so only the tables
 * and one entry's encoding are in memory.  The string table is last: the
 * others add no strings, but the profile's own are interned first.
 */
static int write_tables(struct pprof_stream *stream, const struct pprof_tables *t,
			const struct profile_strings *s, struct pprof_buffer *item,
			struct pprof_buffer *m)
{
	uint32_t *mapping_ids, *mapping_order;
	int ret = order_mappings(t, &mapping_ids, &mapping_order);

	for (size_t i = 0; i < t->sample_count && !ret; i++) {
		pprof_buffer_reset(item);
		encode_sample(item, m, t, &t->samples[i], s);
		ret = put_field(stream, PROFILE_SAMPLE, item);
	}
	for (size_t i = 0; i < t->mapping_count && !ret; i++) {
		pprof_buffer_reset(item);
		encode_mapping(item, t, mapping_order[i], (uint32_t)i + 1);
		ret = put_field(stream, PROFILE_MAPPING, item);
	}
	for (size_t i = 0; i < t->location_count && !ret; i++) {
		pprof_buffer_reset(item);
		encode_location(item, m, t, i, mapping_ids);
		ret = put_field(stream, PROFILE_LOCATION, item);
	}
	for (size_t i = 0; i < t->function_count && !ret; i++) {
		pprof_buffer_reset(item);
		encode_function(item, t, i);
		ret = put_field(stream, PROFILE_FUNCTION, item);
	}
	for (size_t i = 0; i < t->string_count && !ret; i++)
		ret = pprof_stream_field(stream, PROFILE_STRING_TABLE, t->strings[i],
					 strlen(t->strings[i]));
	free(mapping_ids);
	free(mapping_order);
	return ret;
}

int pprof_write(struct pprof_builder *b, const struct session_summary *h, FILE *file)
{
	const struct pprof_tables *t = &b->t;
	struct pprof_buffer item = { 0 }, m = { 0 };
	struct pprof_stream *stream = NULL;
	struct profile_strings s;
	int ret = b->error;

	if (ret == 0)
		ret = intern_strings(b, h, &s);
	if (ret == 0)
		ret = pprof_stream_open(&stream, file);
	if (ret == 0) {
		/* Blocks are not sampled: no period to them. */
		encode_header(&item, &m, &s, h, &b->options,
			      b->options.kind == REPORT_PROFILE_CPU ?
			      profile_period(report_event(h), t) : 0);
		ret = item.error ? item.error : pprof_stream_write(stream, item.data, item.size);
	}
	if (ret == 0)
		ret = write_tables(stream, t, &s, &item, &m);
	if (stream) {
		int closed = pprof_stream_close(stream, ret == 0);

		if (ret == 0)
			ret = closed;
	}
	pprof_buffer_free(&item);
	pprof_buffer_free(&m);
	return ret;
}
