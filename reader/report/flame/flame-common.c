/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the HTML and SVG flame graphs share; see flame-internal.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "flame-internal.h"

/* ---- the header's facts ---------------------------------------------- */

static int fact(struct flame_fact *facts, int *count, const char *label, int warn,
		const char *format, ...) __attribute__((format(printf, 5, 6)));

static int fact(struct flame_fact *facts, int *count, const char *label, int warn,
		const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = vasprintf(&facts[*count].value, format, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	facts[*count].label = label;
	facts[*count].warn = warn;
	(*count)++;
	return 0;
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

/* "2024-05-01 12:00:00.123" of a capture clock time, or "" when unknown. */
static void wall_time(const struct session_summary *header, uint64_t ns, int with_date,
		      char *text, size_t size)
{
	struct session_summary at = *header;
	uint32_t nanoseconds;
	struct tm tm;
	size_t n;

	text[0] = '\0';
	at.start_ns = ns;
	if (view_start_time(&at, &tm, &nanoseconds))
		return;
	n = strftime(text, size, with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	if (n)
		snprintf(text + n, size - n, ".%03" PRIu32, nanoseconds / 1000000);
}

/* The capture's span: "2024-05-01 12:00:00.123 – 12:00:04.123 UTC (4.000 s)". */
static int time_text(const struct session_summary *h, char **text)
{
	uint64_t span = h->end_ns > h->start_ns ? h->end_ns - h->start_ns : 0;
	char start[64], end[64];

	wall_time(h, h->start_ns, 1, start, sizeof(start));
	wall_time(h, h->end_ns, span >= 86400ull * 1000000000, end, sizeof(end));
	if (!h->start_ns && !h->end_ns)
		return asprintf(text, "unknown");
	if (*start && *end)
		return asprintf(text, "%s \u2013 %s UTC (%" PRIu64 ".%03" PRIu64 " s)",
				start, end, span / 1000000000, span % 1000000000 / 1000000);
	return asprintf(text, "%" PRIu64 " ns on the capture clock, %" PRIu64 ".%03" PRIu64 " s",
			h->start_ns, span / 1000000000, span % 1000000000 / 1000000);
}

/* Captures of many hosts: "N: a, b, ..." (the Host fact is the first file's). */
static int hosts_fact(const struct session_summary *h, struct flame_fact *facts, int *count)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	if (h->host_count < 2)
		return 0;
	f = open_memstream(&text, &size);
	if (!f)
		return -1;
	fprintf(f, "%zu: ", h->host_count);
	for (size_t i = 0; i < h->host_count; i++)
		fprintf(f, "%s%s", i ? ", " : "", h->hosts[i]);
	if (fclose(f)) {
		free(text);
		return -1;
	}
	facts[*count].label = "Hosts";
	facts[*count].warn = 0;
	facts[*count].value = text;
	(*count)++;
	return 0;
}

/* Nanoseconds as a header says them: "1.234 s", "12.34 ms", "5.6 µs". */
static void duration_text(uint64_t ns, char *text, size_t size)
{
	if (ns >= 1000000000)
		snprintf(text, size, "%" PRIu64 ".%03" PRIu64 " s", ns / 1000000000,
			 ns % 1000000000 / 1000000);
	else if (ns >= 1000000)
		snprintf(text, size, "%" PRIu64 ".%02" PRIu64 " ms", ns / 1000000,
			 ns % 1000000 / 10000);
	else if (ns >= 1000)
		snprintf(text, size, "%" PRIu64 ".%" PRIu64 " \xc2\xb5s", ns / 1000, ns % 1000 / 100);
	else
		snprintf(text, size, "%" PRIu64 " ns", ns);
}

const char *flame_profile_label(enum report_profile_kind kind)
{
	switch (kind) {
	case REPORT_PROFILE_OFF_CPU:	return "Off-CPU";
	case REPORT_PROFILE_WALL:	return "Wall";
	default:			return "CPU";
	}
}

/*
 * The profile's total in its unit: samples for CPU (as before), time for
 * off-CPU and wall, whose samples are blocks, or samples and blocks.
 */
static int total_fact(const struct report_data *data, struct flame_fact *facts, int *count)
{
	const struct session_summary *h = &data->header;
	char time[32];

	if (!data->weight_unit) {
		if (h->samples != h->samples_total)
			return fact(facts, count, "Samples", 0, "%" PRIu64 " of %" PRIu64 " (filtered)",
				    h->samples, h->samples_total);
		return fact(facts, count, "Samples", 0, "%" PRIu64, h->samples);
	}
	duration_text(data->total_period, time, sizeof(time));
	if (data->kind == REPORT_PROFILE_OFF_CPU)
		return fact(facts, count, "Off-CPU", 0, "%s blocked, %" PRIu64 " block%s", time,
			    data->total_samples, data->total_samples == 1 ? "" : "s");
	return fact(facts, count, "Wall", 0, "%s of threads' time, on and off the CPU (%" PRIu64
		    " samples and blocks)", time, data->total_samples);
}

int flame_facts(const struct report_data *data, struct flame_fact *facts)
{
	const struct session_summary *h = &data->header;
	char buffer[REPORT_SAMPLING_TEXT_MAX];
	const char *sampling = report_sampling_text(&h->sampling, buffer, sizeof(buffer));
	char *time = NULL;
	int count = 0, ok = 1;

	ok &= !fact(facts, &count, "Host", 0, "%s (%s)", or_unknown(h->hostname),
		    or_unknown(h->machine));
	ok &= !hosts_fact(h, facts, &count);
	ok &= !fact(facts, &count, "Kernel", 0, "%s", or_unknown(h->kernel_release));
	ok &= !fact(facts, &count, "Event", 0, "%s%s%s", or_unknown(h->event),
		    sampling ? ", " : "", sampling ? sampling : "");
	ok &= time_text(h, &time) >= 0 && !fact(facts, &count, "Time", 0, "%s", time);
	free(time);
	ok &= !total_fact(data, facts, &count);
	/* Lost data skews every share: the page shows it as a warning. */
	ok &= !fact(facts, &count, "Lost", h->lost || h->dropped,
		    "%" PRIu64 " samples, %" PRIu64 " records dropped", h->lost, h->dropped);
	ok &= !fact(facts, &count, "Files", h->damaged_files != 0, "%zu%s", h->files,
		    h->damaged_files ? " (some damaged or cut short: only their readable parts)" : "");
	if (!ok) {
		flame_facts_free(facts, count);
		return -ENOMEM;
	}
	return count;
}

int flame_baseline_facts(const struct report_data *data, struct flame_fact *facts, int count)
{
	const struct report_data *base = data->baseline;
	const struct session_summary *h;
	char *time = NULL, percent[32];
	int ok = 1;

	if (!base)
		return count;
	h = &base->header;
	/* Damage or lost data in the baseline skews its shares as much. */
	ok &= time_text(h, &time) >= 0 &&
	      !fact(facts, &count, "Baseline", h->lost || h->dropped || h->damaged_files,
		    "%" PRIu64 " samples, %zu file%s (%s%s), %s%s", h->samples, h->files,
		    h->files == 1 ? "" : "s",
		    h->file_names && h->files ? h->file_names[0] : "unknown",
		    h->files > 1 ? ", ..." : "", time,
		    h->lost || h->dropped || h->damaged_files ? "; lost data or damaged files" : "");
	free(time);
	if (data->gone_nodes)
		ok &= !fact(facts, &count, "Gone", 0, "%" PRIu64 " stack%s of the baseline, %s of its "
			    "samples, have no frame here: not drawn", data->gone_nodes,
			    data->gone_nodes == 1 ? "" : "s",
			    view_percent(percent, sizeof(percent), data->gone_period,
					 base->total_period));
	else
		ok &= !fact(facts, &count, "Gone", 0, "none: every stack of the baseline is here");
	if (!ok) {
		flame_facts_free(facts, count);
		return -ENOMEM;
	}
	return count;
}

void flame_facts_free(struct flame_fact *facts, int count)
{
	for (int i = 0; i < count; i++)
		free(facts[i].value);
}

/* ---- the tree -------------------------------------------------------- */

size_t flame_shown_children(const struct call_node *node, uint64_t total, double limit)
{
	size_t n = 0;

	while (n < node->child_count &&
	       !view_below_limit(node->children[n]->total_period, total, limit))
		n++;
	return n;
}

const char *flame_label(const struct call_node *node, int root)
{
	if (root)
		return "all";
	if (!node->symbol)
		return node->comm && *node->comm ? node->comm : "[unknown]";
	return view_symbol_name(node->symbol);
}

struct flame_frame *flame_push(struct flame_stack *stack, const struct call_node *node,
			       size_t shown, double x)
{
	struct flame_frame *frame;

	if (stack->count == stack->capacity) {
		size_t capacity = stack->capacity ? 2 * stack->capacity : 64;
		struct flame_frame *grown = reallocarray(stack->frames, capacity, sizeof(*grown));

		if (!grown)
			return NULL;
		stack->frames = grown;
		stack->capacity = capacity;
	}
	frame = &stack->frames[stack->count];
	*frame = (struct flame_frame){ .node = node, .shown = shown, .x = x, .child_x = x,
				       .depth = stack->count };
	stack->count++;
	return frame;
}

void flame_stack_free(struct flame_stack *stack)
{
	free(stack->frames);
	stack->frames = NULL;
	stack->count = stack->capacity = 0;
}

/* ---- colours --------------------------------------------------------- */

static unsigned channel(double hue, double s, double l, double shift)
{
	double k = hue / 30 + shift, a = s * (l < 1 - l ? l : 1 - l), v;

	k -= 12 * (double)(int)(k / 12);
	v = k - 3 < 9 - k ? k - 3 : 9 - k;
	v = v < 1 ? v : 1;
	v = v > -1 ? v : -1;
	return (unsigned)((l - a * v) * 255 + 0.5);
}

void flame_color(const char *name, int kernel, int comm, char out[8])
{
	uint32_t h = 2166136261u;
	double hue, s, l;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	if (comm) {
		hue = 210, s = 0.15, l = 0.70 + (h % 8) / 100.0;
	} else if (name[0] == '[' || !strcmp(name, REPORT_WAKER_SEPARATOR)) {
		/* [unknown], [truncated]; --waker's line between blocked and waker stacks */
		hue = 0, s = 0, l = 0.72 + (h % 6) / 100.0;
	} else if (kernel) {
		hue = 195 + h % 30, s = 0.50 + (h >> 8) % 20 / 100.0, l = 0.62 + (h >> 16) % 12 / 100.0;
	} else {
		hue = 5 + h % 50, s = 0.75 + (h >> 8) % 20 / 100.0, l = 0.55 + (h >> 16) % 12 / 100.0;
	}
	snprintf(out, 8, "#%02x%02x%02x", channel(hue, s, l, 0), channel(hue, s, l, 8),
		 channel(hue, s, l, 4));
}

/* ---- differential colours --------------------------------------------- */

/* The change of a frame's share, in points. */
static double share_change(uint64_t period, uint64_t total, uint64_t base_period,
			   uint64_t base_total)
{
	double now = total ? 100.0 * (double)period / (double)total : 0.0;
	double before = base_total ? 100.0 * (double)base_period / (double)base_total : 0.0;

	return now - before;
}

/* Neutral, then the ends of the scale: growth and shrinkage. */
static const unsigned char neutral[3] = { 224, 224, 224 };
static const unsigned char grown[3] = { 232, 62, 48 };
static const unsigned char shrunk[3] = { 52, 108, 232 };

void flame_diff_color(uint64_t period, uint64_t total, uint64_t base_period,
		      uint64_t base_total, char out[8])
{
	double delta = share_change(period, total, base_period, base_total);
	double t = (delta < 0 ? -delta : delta) / FLAME_DIFF_SCALE;
	const unsigned char *end = delta < 0 ? shrunk : grown;
	unsigned c[3];

	if (!base_period)
		t = 1, end = grown;		/* new: nothing to compare with */
	t = t < 1 ? t : 1;
	for (int i = 0; i < 3; i++)
		c[i] = (unsigned)(neutral[i] + (end[i] - neutral[i]) * t + 0.5);
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

void flame_diff_text(char *buffer, size_t size, uint64_t period, uint64_t total,
		     uint64_t base_period, uint64_t base_total)
{
	char now[32], before[32];

	view_percent(now, sizeof(now), period, total);
	if (!base_period)
		snprintf(buffer, size, "%s (new: not in the baseline)", now);
	else
		snprintf(buffer, size, "%s (baseline %s, %+.2f)", now,
			 view_percent(before, sizeof(before), base_period, base_total),
			 share_change(period, total, base_period, base_total));
}

/* ---- characters ------------------------------------------------------ */

size_t flame_next_char(const char *s, uint32_t *code)
{
	size_t n;

	if (!*s)
		return 0;
	n = prf_utf8_char(s, code);
	if (!n) {
		*code = 0xfffd;
		return 1;
	}
	if (prf_is_control(*code) || *code == 0xfffe ||
	    *code == 0xffff)
		*code = 0xfffd;
	return n;
}
