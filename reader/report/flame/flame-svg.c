/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flame graph as a static SVG, for tickets and wikis: no script, one
 * <g class="frame"> per frame with a <title> (the tooltip: function,
 * DSO, samples, share), a <rect> as wide as the frame's period, and its
 * name elided to fit.  Callers at the bottom, or with --callee (the tree
 * inverted) leaf functions at the top; the first level above "all" is one
 * frame per process.
 *
 * Frames narrower than MIN_WIDTH pixels are left out with their subtrees
 * (children are sorted heaviest first, so the rest of a row goes too):
 * they could not be seen or hovered, and a system-wide tree has
 * hundreds of thousands of them.
 *
 * The file is XML: capture strings are escaped, and characters XML does
 * not allow (controls, invalid UTF-8) become U+FFFD (flame_next_char).
 *
 * Against a baseline (data->baseline) the widths stay this profile's and
 * the colours say the change (flame_diff_color()); the titles give both
 * shares; more lines of facts name the baseline and say what of it is
 * not drawn, and one what the colours mean.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "flame-internal.h"

#define WIDTH		1200.0		/* of the image, pixels */
#define PAD		10.0		/* left and right */
#define ROW		16.0		/* a frame's height and its gap */
#define TOP		84.0		/* title and facts above the frames */
#define DIFF_TOP	138.0		/* ... with the baseline's, what is gone, the legend */
#define FONT		12.0
#define CHAR_WIDTH	7.3		/* a 12 px monospace character, a little over */
#define MIN_WIDTH	0.1

/* Writes s escaped for XML, at most max characters (0: all), ".." when cut. */
static void xml_put(FILE *out, const char *s, size_t max)
{
	size_t count = 0, n;
	uint32_t code;

	if (max) {
		for (const char *p = s; (n = flame_next_char(p, &code)); p += n)
			count++;
		if (count <= max)
			max = 0;
		else
			max = max > 2 ? max - 2 : 0;
	}
	count = 0;
	for (; (n = flame_next_char(s, &code)); s += n) {
		if (max && count++ == max) {
			fputs("..", out);
			return;
		}
		switch (code) {
		case '&':	fputs("&amp;", out); break;
		case '<':	fputs("&lt;", out); break;
		case '>':	fputs("&gt;", out); break;
		case '"':	fputs("&quot;", out); break;
		case '\'':	fputs("&apos;", out); break;
		case 0xfffd:	fputs("\xef\xbf\xbd", out); break;
		default:	fwrite(s, 1, n, out); break;
		}
	}
}

struct svg_writer {
	FILE *out;
	const struct report_data *data;
	double limit;
	double scale;			/* pixels a period */
	size_t rows;			/* deepest shown frame + 1 */
	size_t frames;
	double top;			/* TOP or DIFF_TOP */
};

/* Children shown: above the limit and at least MIN_WIDTH wide. */
static size_t shown_children(const struct svg_writer *w, const struct call_node *node)
{
	size_t n = flame_shown_children(node, w->data->total_period, w->limit);

	while (n && node->children[n - 1]->total_period * w->scale < MIN_WIDTH)
		n--;
	return n;
}

static void write_title(struct svg_writer *w, const struct call_node *node, int root)
{
	const struct report_symbol *s = node->symbol;
	char percent[32];
	FILE *out = w->out;

	fputs("<title>", out);
	if (!root && !s)
		fputs("process ", out);
	xml_put(out, flame_label(node, root), 0);
	if (s && s->kernel)
		fputs(" [kernel]", out);
	if (s && s->inlined)
		fputs(" (inlined)", out);
	if (s && s->dso) {
		fputs("\nDSO: ", out);
		xml_put(out, s->dso, 0);
		if (!s->resolved)
			fprintf(out, " +0x%" PRIx64, s->unknown_offset);
	}
	if (s && s->srcline) {
		fputs("\nSource: ", out);
		xml_put(out, s->srcline, 0);
	}
	/* A time profile's frames are worth their time. */
	fprintf(out, "\n%" PRIu64 " samples, ", node->total_samples);
	if (w->data->weight_unit) {
		char ms[32];

		fprintf(out, "%s ms, ", view_milliseconds(ms, sizeof(ms), node->total_period));
	}
	if (w->data->baseline) {
		char text[96];

		flame_diff_text(text, sizeof(text), node->total_period, w->data->total_period,
				node->base_total_period, w->data->baseline->total_period);
		fprintf(out, "%s</title>", text);
		return;
	}
	fprintf(out, "%s</title>", view_percent(percent, sizeof(percent), node->total_period,
						w->data->total_period));
}

static void write_frame(struct svg_writer *w, const struct call_node *node, int root,
			double x, size_t depth)
{
	double width = (double)node->total_period * w->scale;
	double y = w->data->tree_callee ? w->top + (double)depth * ROW :
		   w->top + (double)(w->rows - 1 - depth) * ROW;
	const char *label = flame_label(node, root);
	size_t fit = width > 6 ? (size_t)((width - 6) / CHAR_WIDTH) : 0;
	char color[8];

	flame_color(label, node->symbol && node->symbol->kernel, !root && !node->symbol, color);
	if (root)
		strcpy(color, "#c8ccd4");
	if (w->data->baseline)
		flame_diff_color(node->total_period, w->data->total_period, node->base_total_period,
				 w->data->baseline->total_period, color);
	fputs("<g class=\"frame\">", w->out);
	write_title(w, node, root);
	fprintf(w->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>",
		PAD + x, y, width, ROW - 1, color);
	if (fit >= 3) {
		fprintf(w->out, "<text x=\"%.2f\" y=\"%.1f\">", PAD + x + 3, y + ROW - 4.5);
		xml_put(w->out, label, fit);
		fputs("</text>", w->out);
	}
	fputs("</g>\n", w->out);
	w->frames++;
}

/* Preorder with an explicit stack; write = 0 only measures the depth. */
static int walk(struct svg_writer *w, int write)
{
	const struct call_node *root = w->data->tree;
	struct flame_stack stack = { 0 };

	if (!root || !flame_push(&stack, root, shown_children(w, root), 0))
		return root ? -1 : 0;
	if (write)
		write_frame(w, root, 1, 0, 0);
	w->rows = write ? w->rows : 1;
	while (stack.count) {
		struct flame_frame *top = &stack.frames[stack.count - 1];
		const struct call_node *child;
		double x;

		if (top->next == top->shown) {
			stack.count--;
			continue;
		}
		child = top->node->children[top->next++];
		/* Siblings side by side from the parent's left edge, heaviest first. */
		x = top->child_x;
		top->child_x += (double)child->total_period * w->scale;
		if (write)
			write_frame(w, child, 0, x, stack.count);
		else if (stack.count + 1 > w->rows)
			w->rows = stack.count + 1;
		if (!flame_push(&stack, child, shown_children(w, child), x)) {
			flame_stack_free(&stack);
			return -1;
		}
	}
	flame_stack_free(&stack);
	return 0;
}

/*
 * Lines of facts under the title, each elided to the image's width: host,
 * kernel, event; then time, samples, lost, files; then the baseline and
 * what is gone of it.
 */
static void write_facts(FILE *out, const struct flame_fact *facts, int count, int lines)
{
	static const int first[] = { 0, 3, 7, 8 }, end[] = { 3, 7, 8, 9 };
	size_t fit = (size_t)((WIDTH - 2 * PAD) / CHAR_WIDTH);

	for (int line = 0; line < lines; line++) {
		char text[2048];
		size_t used = 0;
		int warn = 0;

		text[0] = '\0';
		for (int i = first[line]; i < end[line] && i < count; i++) {
			int n = snprintf(text + used, sizeof(text) - used, "%s%s: %s",
					 used ? " \xc2\xb7 " : "", facts[i].label, facts[i].value);

			if (n < 0 || used + (size_t)n >= sizeof(text))
				break;
			used += (size_t)n;
			warn |= facts[i].warn;
		}
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\"%s>", PAD, 48 + line * 18.0,
			warn ? " fill=\"#b00020\"" : "");
		xml_put(out, text, fit);
		fputs("</text>\n", out);
	}
}

/* What the colours of a differential graph mean, in them. */
static void write_legend(FILE *out, double y)
{
	char grew[8], shrank[8];

	flame_diff_color(2, 10, 1, 10, grew);
	flame_diff_color(1, 10, 2, 10, shrank);
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">Widths: this profile. Colours: the change of a "
		"frame's share against the baseline, full at %.0f points: "
		"<tspan fill=\"%s\" font-weight=\"bold\">red grew</tspan> (or is new), "
		"<tspan fill=\"%s\" font-weight=\"bold\">blue shrank</tspan>, grey the same."
		"</text>\n", PAD, y, FLAME_DIFF_SCALE, grew, shrank);
}

/* "off-CPU (1234.567 ms blocked) ", "wall (... ms) "; nothing for CPU. */
static const char *profile_title(const struct report_data *data, char *text, size_t size)
{
	char ms[32];

	if (data->kind == REPORT_PROFILE_CPU)
		return "";
	view_milliseconds(ms, sizeof(ms), data->total_period);
	snprintf(text, size, "%s (%s ms%s) ", data->kind == REPORT_PROFILE_OFF_CPU ?
		 "off-CPU" : "wall-clock", ms, data->kind == REPORT_PROFILE_OFF_CPU ?
		 " blocked" : " on and off the CPU");
	return text;
}

int flame_svg(const struct report_data *data, const struct view_options *options, FILE *out)
{
	char kind[96];
	struct svg_writer w = { .out = out, .data = data, .limit = options->percent_limit };
	struct flame_fact facts[FLAME_MAX_FACTS];
	int fact_count;
	double height;

	w.top = data->baseline ? DIFF_TOP : TOP;
	w.scale = data->total_period ? (WIDTH - 2 * PAD) / (double)data->total_period : 0;
	if (walk(&w, 0) < 0)
		return -ENOMEM;
	height = w.top + (double)w.rows * ROW + PAD;
	fact_count = flame_facts(data, facts);
	if (fact_count >= 0)
		fact_count = flame_baseline_facts(data, facts, fact_count);
	if (fact_count < 0)
		return fact_count;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" "
		"font-size=\"%.0f\">\n", WIDTH, height, WIDTH, height, FONT);
	fputs("<style>.frame rect{stroke:#fff;stroke-width:.5}.frame text{fill:#000;"
	      "pointer-events:none}.frame:hover rect{stroke:#000}</style>\n", out);
	fprintf(out, "<rect class=\"background\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f6\"/>\n"
		"<text x=\"%.0f\" y=\"24\" font-size=\"17\" font-family=\"sans-serif\">"
		"perfrec %s%sflame graph%s</text>\n", PAD, data->baseline ? "differential " : "",
		profile_title(data, kind, sizeof(kind)),
		data->tree_callee ? " (inverted: callees first)" : "");
	write_facts(out, facts, fact_count, data->baseline ? 4 : 2);
	flame_facts_free(facts, fact_count);
	if (data->baseline)
		write_legend(out, 120);
	if (!data->total_period)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">no samples</text>\n", PAD, w.top + FONT);
	else if (walk(&w, 1) < 0)
		return -ENOMEM;
	fputs("</svg>\n", out);
	return view_finish(out);
}
