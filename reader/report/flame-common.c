/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the HTML and SVG flame graphs share; see flame.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "flame.h"

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

int flame_facts(const struct session_summary *h, struct flame_fact *facts)
{
	uint64_t span = h->end_ns > h->start_ns ? h->end_ns - h->start_ns : 0;
	char start[64], end[64];
	int count = 0, ok = 1;

	ok &= !fact(facts, &count, "Host", 0, "%s (%s)", or_unknown(h->hostname),
		    or_unknown(h->machine));
	ok &= !fact(facts, &count, "Kernel", 0, "%s", or_unknown(h->kernel_release));
	ok &= !fact(facts, &count, "Event", 0, "%s%s%s", or_unknown(h->event),
		    h->sampling && *h->sampling ? ", " : "", h->sampling ? h->sampling : "");
	wall_time(h, h->start_ns, 1, start, sizeof(start));
	wall_time(h, h->end_ns, span >= 86400ull * 1000000000, end, sizeof(end));
	if (!h->start_ns && !h->end_ns)
		ok &= !fact(facts, &count, "Time", 0, "unknown");
	else if (*start && *end)
		ok &= !fact(facts, &count, "Time", 0, "%s \u2013 %s UTC (%" PRIu64 ".%03" PRIu64 " s)",
			    start, end, span / 1000000000, span % 1000000000 / 1000000);
	else
		ok &= !fact(facts, &count, "Time", 0, "%" PRIu64 " ns on the capture clock, %"
			    PRIu64 ".%03" PRIu64 " s", h->start_ns, span / 1000000000,
			    span % 1000000000 / 1000000);
	if (h->samples != h->samples_total)
		ok &= !fact(facts, &count, "Samples", 0, "%" PRIu64 " of %" PRIu64 " (filtered)",
			    h->samples, h->samples_total);
	else
		ok &= !fact(facts, &count, "Samples", 0, "%" PRIu64, h->samples);
	/* Lost data skews every share: the page shows it as a warning. */
	ok &= !fact(facts, &count, "Lost", h->lost || h->dropped,
		    "%" PRIu64 " samples, %" PRIu64 " records dropped", h->lost, h->dropped);
	ok &= !fact(facts, &count, "Files", h->damaged_files != 0, "%zu%s", h->files,
		    h->damaged_files ? " (some damaged or cut short: only their readable parts)" : "");
	if (!ok) {
		flame_facts_free(facts, count);
		return -1;
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
	} else if (name[0] == '[') {		/* [unknown], [truncated] */
		hue = 0, s = 0, l = 0.72 + (h % 6) / 100.0;
	} else if (kernel) {
		hue = 195 + h % 30, s = 0.50 + (h >> 8) % 20 / 100.0, l = 0.62 + (h >> 16) % 12 / 100.0;
	} else {
		hue = 5 + h % 50, s = 0.75 + (h >> 8) % 20 / 100.0, l = 0.55 + (h >> 16) % 12 / 100.0;
	}
	snprintf(out, 8, "#%02x%02x%02x", channel(hue, s, l, 0), channel(hue, s, l, 8),
		 channel(hue, s, l, 4));
}

/* ---- characters ------------------------------------------------------ */

size_t flame_next_char(const char *s, uint32_t *code)
{
	size_t n;

	if (!*s)
		return 0;
	n = view_utf8_char(s, code);
	if (!n) {
		*code = 0xfffd;
		return 1;
	}
	if (*code < 0x20 || (*code >= 0x7f && *code < 0xa0) || *code == 0xfffe ||
	    *code == 0xffff)
		*code = 0xfffd;
	return n;
}
