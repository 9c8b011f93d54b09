/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timeline: the profile over time, from data->timeline, whose entries
 * are the self time of one flat row in one slot of time.  A line per
 * interval (a slot) from the range's start to its end, the empty ones
 * too, with the interval's heaviest rows; then a sparkline for each row
 * of the whole range's top.  Nothing re-reads samples: the memory grows
 * with the intervals and the flat rows, never with the samples.
 *
 * Rows are ranked by weight (period), as the flat view ranks them, ties
 * in the flat view's order: the output is the same however many threads
 * read the files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "views.h"

#define GAP		2	/* spaces between columns */
#define TIME_COLUMNS	24	/* "2026-12-07T01:02:03.000Z" */
#define KEY_MIN		24	/* columns an elided key keeps */
#define SPARK_ROWS_MAX	32	/* sparklines drawn at most, whatever --top says */
#define SPARK_KEY_MIN	32	/* columns a sparkline leaves its key */

/* U+2581..U+2588, 1/8 to 8/8 of a cell; and as many ASCII steps. */
static const char *const spark_blocks[8] = {
	"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
	"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
};
static const char spark_ascii[8] = { '.', ':', '-', '=', '+', '*', '#', '@' };

uint64_t view_timeline_intervals(uint64_t start_ns, uint64_t end_ns, uint64_t interval_ns)
{
	uint64_t span = end_ns > start_ns ? end_ns - start_ns : 0, n;

	if (!interval_ns)
		return 1;
	n = span / interval_ns + (span % interval_ns != 0);
	return n ? n : 1;
}

struct top_key {
	uint32_t flat;			/* the row, in data->flat */
	uint64_t period, samples;	/* its self time in the interval */
};

struct timeline {
	const struct report_data *data;
	const struct view_options *options;
	size_t lines;			/* intervals */
	size_t top;			/* rows an interval */
	uint64_t *line_period, *line_samples;	/* each interval's */
	/* The interval being walked: its rows' weights, the rows it has. */
	uint64_t *row_period, *row_samples;
	struct top_key *keys;		/* heaviest first */
	size_t key_count;		/* all its rows; the top are shown */
	size_t next;			/* the entry to walk next */
	char **texts;			/* by flat row: its key, once made */
	/* The sparklines: a row per key of the whole range's top. */
	size_t spark_rows, columns, group;	/* group: intervals a column */
	uint64_t *spark;		/* spark_rows x columns weights */
	uint64_t *column_period, *column_samples;
	uint64_t max_column;		/* the busiest column: a full cell */
	size_t max_column_index;
};

static size_t line_of(const struct timeline *t, uint32_t slot)
{
	return slot < t->lines ? slot : t->lines - 1;
}

/* Where a row is among the sparklines, or -1. */
static long spark_row(const struct timeline *t, uint32_t flat)
{
	return flat < t->spark_rows ? (long)flat : -1;
}

/* Columns of the width left to the sparklines: all intervals, or a few a column. */
static void choose_columns(struct timeline *t)
{
	size_t width = t->options->width > 0 ? (size_t)t->options->width : 0;
	size_t fixed = 2 + GAP + 7 + 1 + SPARK_KEY_MIN;	/* "# ", "100.00%", key */
	size_t room = width > fixed + 8 ? width - fixed : 8;

	t->group = 1;
	if (width && t->lines > room)
		t->group = (t->lines + room - 1) / room;
	t->columns = (t->lines + t->group - 1) / t->group;
}

/*
 * The rows of the whole range's top (the flat view's first rows with
 * self time: it is sorted by it), each interval's and column's totals.
 */
static int timeline_open(struct timeline *t, const struct report_data *data,
			 const struct view_options *options)
{
	const struct report_timeline *tl = &data->timeline;
	size_t rows = data->flat_count + 1;
	uint64_t lines;

	*t = (struct timeline){ .data = data, .options = options };
	t->top = options->top ? options->top : VIEW_TIMELINE_TOP;
	lines = options->until_ns ? view_timeline_intervals(tl->origin_ns, options->until_ns,
							       tl->slot_ns) : tl->slot_count;
	if (!lines)
		lines = 1;
	t->lines = lines < VIEW_TIMELINE_MAX_INTERVALS ? (size_t)lines :
		   VIEW_TIMELINE_MAX_INTERVALS;
	while (t->spark_rows < data->flat_count && t->spark_rows < t->top &&
	       t->spark_rows < SPARK_ROWS_MAX && data->flat[t->spark_rows].self_samples)
		t->spark_rows++;
	choose_columns(t);
	t->line_period = calloc(t->lines, sizeof(*t->line_period));
	t->line_samples = calloc(t->lines, sizeof(*t->line_samples));
	t->row_period = calloc(rows, sizeof(*t->row_period));
	t->row_samples = calloc(rows, sizeof(*t->row_samples));
	t->keys = calloc(rows, sizeof(*t->keys));
	t->texts = calloc(rows, sizeof(*t->texts));
	t->spark = calloc(t->spark_rows * t->columns + 1, sizeof(*t->spark));
	t->column_period = calloc(t->columns, sizeof(*t->column_period));
	t->column_samples = calloc(t->columns, sizeof(*t->column_samples));
	if (!t->line_period || !t->line_samples || !t->row_period || !t->row_samples ||
	    !t->keys || !t->texts || !t->spark || !t->column_period || !t->column_samples)
		return -ENOMEM;
	for (size_t i = 0; i < tl->entry_count; i++) {
		const struct report_time_entry *e = &tl->entries[i];
		size_t line = line_of(t, e->slot), column = line / t->group;
		long row = spark_row(t, e->flat);

		if (e->flat >= data->flat_count || !e->samples)
			continue;	/* as walk_interval() skips them */
		t->line_period[line] += e->period;
		t->line_samples[line] += e->samples;
		t->column_period[column] += e->period;
		t->column_samples[column] += e->samples;
		if (row >= 0)
			t->spark[(size_t)row * t->columns + column] += e->period;
	}
	for (size_t c = 0; c < t->columns; c++)
		if (t->column_period[c] > t->max_column) {
			t->max_column = t->column_period[c];
			t->max_column_index = c;
		}
	return 0;
}

static void timeline_close(struct timeline *t)
{
	for (size_t i = 0; t->texts && i <= t->data->flat_count; i++)
		free(t->texts[i]);
	free(t->texts);
	free(t->line_period);
	free(t->line_samples);
	free(t->row_period);
	free(t->row_samples);
	free(t->keys);
	free(t->spark);
	free(t->column_period);
	free(t->column_samples);
}

static int compare_keys(const void *x, const void *y)
{
	const struct top_key *a = x, *b = y;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return (a->flat > b->flat) - (a->flat < b->flat);
}

/* The rows of interval line into t->keys, heaviest first. */
static void walk_interval(struct timeline *t, size_t line)
{
	const struct report_timeline *tl = &t->data->timeline;

	t->key_count = 0;
	for (; t->next < tl->entry_count; t->next++) {
		const struct report_time_entry *e = &tl->entries[t->next];

		if (line_of(t, e->slot) != line)
			break;
		if (e->flat >= t->data->flat_count || !e->samples)
			continue;
		/* A row's first entry here: every entry has samples. */
		if (!t->row_samples[e->flat])
			t->keys[t->key_count++].flat = e->flat;
		t->row_period[e->flat] += e->period;
		t->row_samples[e->flat] += e->samples;
	}
	for (size_t i = 0; i < t->key_count; i++) {
		struct top_key *k = &t->keys[i];

		k->period = t->row_period[k->flat];
		k->samples = t->row_samples[k->flat];
		t->row_period[k->flat] = t->row_samples[k->flat] = 0;
	}
	qsort(t->keys, t->key_count, sizeof(*t->keys), compare_keys);
	if (t->key_count > t->top)
		t->key_count = t->top;
	/* --percent-limit: of the interval's weight. */
	while (t->key_count && view_below_limit(t->keys[t->key_count - 1].period,
						t->line_period[line],
						t->options->percent_limit))
		t->key_count--;
}

/* A row's key text, made once; NULL without memory. */
static const char *key_text(struct timeline *t, uint32_t flat)
{
	if (!t->texts[flat])
		t->texts[flat] = view_flat_key(t->data, &t->data->flat[flat]);
	return t->texts[flat];
}

/* Interval line's start on the capture clock (saturating: a lying capture's). */
static uint64_t line_start(const struct timeline *t, size_t line)
{
	const struct report_timeline *tl = &t->data->timeline;
	uint64_t offset, start;

	if (__builtin_mul_overflow((uint64_t)line, tl->slot_ns, &offset) ||
	    __builtin_add_overflow(tl->origin_ns, offset, &start))
		return UINT64_MAX;
	return start;
}

static const char *iso(const struct timeline *t, uint64_t time, char *buffer, size_t size)
{
	return report_time_iso(time, t->data->header.realtime_offset_ns, buffer, size);
}

/* "1s", "500ms", "2m", "1h", "1d": the interval as --interval takes it. */
static const char *length_text(uint64_t ns, char *buffer, size_t size)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 86400000000000ull, "d" }, { 3600000000000ull, "h" }, { 60000000000ull, "m" },
		{ 1000000000ull, "s" }, { 1000000ull, "ms" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns && ns % units[i].ns == 0) {
			snprintf(buffer, size, "%" PRIu64 "%s", ns / units[i].ns, units[i].unit);
			return buffer;
		}
	snprintf(buffer, size, "%" PRIu64 "ns", ns);
	return buffer;
}

/* ---- text -------------------------------------------------------------- */

struct text_layout {
	int time_profile;		/* an ms column */
	size_t ms_width, count_width;
	const char *count_title;
	size_t width;			/* to fit; 0: none */
};

static void text_layout(struct text_layout *layout, const struct timeline *t)
{
	char ms[32];

	*layout = (struct text_layout){
		.time_profile = t->data->weight_unit != NULL,
		.ms_width = 2,
		.count_title = t->data->kind == REPORT_PROFILE_OFF_CPU ? "Blocks" : "Samples",
		.width = t->options->width > 0 ? (size_t)t->options->width : 0,
	};
	layout->count_width = strlen(layout->count_title);
	for (size_t i = 0; i < t->lines; i++) {
		size_t columns = strlen(view_milliseconds(ms, sizeof(ms), t->line_period[i]));

		if (layout->time_profile && columns > layout->ms_width)
			layout->ms_width = columns;
		if (view_digits(t->line_samples[i]) > layout->count_width)
			layout->count_width = view_digits(t->line_samples[i]);
	}
}

static void print_title(FILE *out, const struct timeline *t)
{
	uint64_t end = line_start(t, t->lines);
	char start_text[REPORT_TIME_ISO_MAX], end_text[REPORT_TIME_ISO_MAX], length[32];

	fprintf(out, "# timeline: %zu interval%s of %s, %s to %s; the top %zu keys of each,"
		" with their shares of it\n", t->lines, t->lines == 1 ? "" : "s",
		length_text(t->data->timeline.slot_ns, length, sizeof(length)),
		iso(t, t->data->timeline.origin_ns, start_text, sizeof(start_text)),
		iso(t, end, end_text, sizeof(end_text)), t->top);
}

static void print_titles(FILE *out, const struct text_layout *layout)
{
	fprintf(out, "%-*s", TIME_COLUMNS, "# Start (UTC)");
	if (layout->time_profile)
		fprintf(out, "%*s%*s", GAP, "", (int)layout->ms_width, "ms");
	fprintf(out, "%*s%*s%*sTop\n", GAP, "", (int)layout->count_width, layout->count_title,
		GAP, "");
}

/*
 * The interval's keys, each "SHARE KEY", elided to share what is left of
 * the width (a key that needs less leaves the rest to the next); as many
 * as fit with KEY_MIN columns each, and always the first.
 */
static int print_keys(FILE *out, struct timeline *t, uint64_t total, size_t room)
{
	size_t fit = room / (GAP + 8 + KEY_MIN);	/* "100.00% " */

	if (room && fit < t->key_count)
		t->key_count = fit ? fit : 1;
	for (size_t i = 0; i < t->key_count; i++) {
		const char *text = key_text(t, t->keys[i].flat);
		char share[32];
		size_t used, key_room = 0, printed;

		if (!text)
			return -ENOMEM;
		view_percent(share, sizeof(share), t->keys[i].period, total);
		fprintf(out, "%*s%s ", i ? GAP : 0, "", share);
		used = (i ? GAP : 0) + strlen(share) + 1;
		if (room) {
			size_t fair = room / (t->key_count - i);

			key_room = fair > used + KEY_MIN ? fair - used : KEY_MIN;
		}
		printed = view_put(out, text, key_room);
		room = room > used + printed ? room - used - printed : room ? 1 : 0;
	}
	return 0;
}

static int print_interval(FILE *out, struct timeline *t, const struct text_layout *layout,
			  size_t line)
{
	char start[REPORT_TIME_ISO_MAX], ms[32];
	size_t used = TIME_COLUMNS + GAP + layout->count_width + GAP;

	walk_interval(t, line);
	fprintf(out, "%-*s", TIME_COLUMNS, iso(t, line_start(t, line), start, sizeof(start)));
	if (layout->time_profile) {
		fprintf(out, "%*s%*s", GAP, "", (int)layout->ms_width,
			view_milliseconds(ms, sizeof(ms), t->line_period[line]));
		used += GAP + layout->ms_width;
	}
	fprintf(out, "%*s%*" PRIu64, GAP, "", (int)layout->count_width, t->line_samples[line]);
	if (t->key_count) {
		fprintf(out, "%*s", GAP, "");
		if (print_keys(out, t, t->line_period[line],
			       layout->width > used ? layout->width - used : layout->width ? 1 : 0))
			return -ENOMEM;
	}
	fputc('\n', out);
	return 0;
}

/* A cell: nothing for none, else 1/8 to 8/8 of the busiest column. */
static void put_cell(FILE *out, const struct timeline *t, uint64_t weight)
{
	uint64_t hundredths, level;

	if (!weight || !t->max_column) {
		fputc(' ', out);
		return;
	}
	hundredths = view_percent_fixed(weight, t->max_column, 2);
	level = (hundredths * 8 + 9999) / 10000;
	level = level < 1 ? 1 : level > 8 ? 8 : level;
	if (t->options->ascii)
		fputc(spark_ascii[level - 1], out);
	else
		fputs(spark_blocks[level - 1], out);
}

static int print_sparklines(FILE *out, struct timeline *t)
{
	size_t width = t->options->width > 0 ? (size_t)t->options->width : 0;
	char ms[32], length[32];

	if (!t->spark_rows)
		return 0;
	fprintf(out, "#\n# The top %zu keys of the range, a column per ", t->spark_rows);
	if (t->group == 1)
		fputs("interval", out);
	else
		fprintf(out, "%zu intervals (%s)", t->group, length_text(t->group *
			t->data->timeline.slot_ns, length, sizeof(length)));
	fputs("; a full cell (", out);
	if (t->options->ascii)
		fputc(spark_ascii[7], out);
	else
		fputs(spark_blocks[7], out);
	fputs(") is the busiest column: ", out);
	if (t->data->weight_unit)
		fprintf(out, "%s ms", view_milliseconds(ms, sizeof(ms), t->max_column));
	else
		fprintf(out, "%" PRIu64 " samples",
			t->columns ? t->column_samples[t->max_column_index] : 0);
	fputs("\n", out);
	for (size_t row = 0; row < t->spark_rows; row++) {
		const struct flat_entry *e = &t->data->flat[row];
		const char *text = key_text(t, (uint32_t)row);
		size_t used = 2 + t->columns + GAP;
		char share[32];

		if (!text)
			return -ENOMEM;
		fputs("# ", out);
		for (size_t c = 0; c < t->columns; c++)
			put_cell(out, t, t->spark[row * t->columns + c]);
		view_percent(share, sizeof(share), e->self_period, t->data->total_period);
		fprintf(out, "%*s%7s ", GAP, "", share);
		used += 8;
		view_put(out, text, width ? (width > used + SPARK_KEY_MIN ? width - used :
					     SPARK_KEY_MIN) : 0);
		fputc('\n', out);
	}
	return 0;
}

int view_timeline(const struct report_data *data, const struct view_options *options,
		  FILE *out)
{
	struct text_layout layout;
	struct timeline t;
	int err;

	view_print_header(data, out);
	if (!data->total_samples) {
		fputs("# no samples\n", out);
		return view_finish(out);
	}
	err = timeline_open(&t, data, options);
	if (!err) {
		text_layout(&layout, &t);
		print_title(out, &t);
		print_titles(out, &layout);
		for (size_t line = 0; line < t.lines && !err; line++)
			err = print_interval(out, &t, &layout, line);
	}
	if (!err)
		err = print_sparklines(out, &t);
	timeline_close(&t);
	return err ? err : view_finish(out);
}

/* ---- JSON -------------------------------------------------------------- */

static void json_share(FILE *out, uint64_t part, uint64_t total)
{
	uint64_t fixed = view_percent_fixed(part, total, 4);

	fprintf(out, "\"share\":%" PRIu64 ".%04" PRIu64, fixed / 10000, fixed % 10000);
}

/* {"key", "samples", "period", "share"} of a row, its share of total. */
static int json_key(FILE *out, struct timeline *t, uint32_t flat, uint64_t samples,
		    uint64_t period, uint64_t total)
{
	const char *text = key_text(t, flat);

	if (!text)
		return -ENOMEM;
	fputs("{\"key\":", out);
	view_json_string(out, text);
	fprintf(out, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",", samples, period);
	json_share(out, period, total);
	fputc('}', out);
	return 0;
}

static int json_interval(FILE *out, struct timeline *t, size_t line)
{
	char start[REPORT_TIME_ISO_MAX];
	uint64_t time = line_start(t, line);

	walk_interval(t, line);
	fprintf(out, "%s{\"start\":\"%s\",\"start_ns\":%" PRIu64 ",\"samples\":%" PRIu64
		",\"period\":%" PRIu64 ",\"top\":[", line ? ",\n" : "\n",
		iso(t, time, start, sizeof(start)), time, t->line_samples[line],
		t->line_period[line]);
	for (size_t i = 0; i < t->key_count; i++) {
		if (i)
			fputc(',', out);
		if (json_key(out, t, t->keys[i].flat, t->keys[i].samples, t->keys[i].period,
			     t->line_period[line]))
			return -ENOMEM;
	}
	fputs("]}", out);
	return 0;
}

int view_timeline_json(const struct report_data *data, const struct view_options *options,
		       FILE *out)
{
	const struct report_timeline *tl = &data->timeline;
	char start[REPORT_TIME_ISO_MAX], end[REPORT_TIME_ISO_MAX];
	struct timeline t;
	size_t keys = 0;
	int err;

	err = timeline_open(&t, data, options);
	if (err) {
		timeline_close(&t);
		return err;
	}
	view_json_begin(out, "timeline", data, options);
	view_json_sort_keys(out, data->sort_keys);
	fprintf(out, "\"interval_ns\":%" PRIu64 ",\"start\":\"%s\",\"start_ns\":%" PRIu64
		",\"end\":\"%s\",\"end_ns\":%" PRIu64 ",\"top_n\":%zu,\n\"intervals\":[",
		tl->slot_ns, iso(&t, tl->origin_ns, start, sizeof(start)), tl->origin_ns,
		iso(&t, line_start(&t, t.lines), end, sizeof(end)), line_start(&t, t.lines),
		t.top);
	for (size_t line = 0; line < t.lines && !err; line++)
		err = json_interval(out, &t, line);
	/* The whole range's top: the flat view's first rows with self time. */
	if (!err)
		fputs("\n],\n\"keys\":[", out);
	for (size_t i = 0; !err && i < data->flat_count && keys < t.top; i++) {
		const struct flat_entry *e = &data->flat[i];

		if (!e->self_samples)
			break;
		fputs(keys++ ? ",\n" : "\n", out);
		err = json_key(out, &t, (uint32_t)i, e->self_samples, e->self_period,
			       data->total_period);
	}
	if (!err)
		fputs("\n]}\n", out);
	timeline_close(&t);
	return err ? err : view_finish(out);
}
