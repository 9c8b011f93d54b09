/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call tree, one node a line, with ASCII guides so that it survives
 * any terminal, pager or mail:
 *
 *   # Total     Self  Call tree (callers first)
 *   100.00%           workload
 *   100.00%           `-- [.] main  [workload]
 *    70.00%   10.00%      |-- [.] mid
 *    60.00%   60.00%      |   [.] leaf
 *    30.00%   30.00%      `-- [.] other
 *
 * Total is the node with everything below it, Self the samples that
 * ended in it (blank when none).  A node's only shown child goes on in
 * the node's column rather than branching, as in perf's graphs, so a
 * long plain chain reads as a list instead of drifting right.  The DSO is
 * printed in brackets when it differs from the frame above (and always
 * for an unresolved address, with its offset).
 *
 * Guides take at most GUIDE_MAX columns: a deeper line starts with
 * "[+N]", N being the levels of guides left out on its left.  Nodes below
 * the percent limit are left out with everything under them and
 * accounted for in one last line.
 *
 * The walk keeps its own stack, so a hostile capture's chain of many
 * thousands of frames costs memory, never the C stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "views.h"

#define CELL		4	/* columns per level of guides */
#define GUIDE_MAX	40	/* guides never take more */
#define LEVELS_DRAWN	8	/* past GUIDE_MAX, after the "[+N]" mark */
#define PERCENTS	18	/* "100.00%   10.00%  " */
#define LABEL_MIN	16	/* a symbol keeps this much however narrow */

struct item {
	const struct call_node *node;
	const char *above_dso;		/* of the frame above; NULL below a comm */
	size_t level;			/* guide cells before the label */
	int branch;			/* its last cell is "|-- " or "`-- " */
	int last;			/* the last shown child of its parent */
};

struct walk {
	const struct report_data *data;
	const struct view_options *options;
	FILE *out;
	struct item *stack;
	size_t depth, capacity;
	unsigned char *more;		/* per level: siblings still to come */
	size_t levels;
	size_t hidden;			/* subtrees below the limit */
	uint64_t hidden_period;
};

static int push(struct walk *w, const struct item *item)
{
	if (prf_ensure_mem((void **)&w->stack, &w->capacity, sizeof(*w->stack), w->depth + 1) < 0)
		return -ENOMEM;
	w->stack[w->depth++] = *item;
	return 0;
}

static int set_more(struct walk *w, size_t level, int more)
{
	if (level >= w->levels) {
		size_t levels = 2 * level + 16;
		unsigned char *grown = realloc(w->more, levels);

		if (!grown)
			return -ENOMEM;
		w->more = grown;
		w->levels = levels;
	}
	w->more[level] = more;
	return 0;
}

static int shown(const struct walk *w, const struct call_node *node)
{
	return !view_below_limit(node->total_period, w->data->total_period,
				 w->options->percent_limit);
}

static size_t print_guides(struct walk *w, const struct item *item)
{
	size_t from = 0, columns = 0;

	if (item->level * CELL > GUIDE_MAX) {
		from = item->level - LEVELS_DRAWN;
		columns = fprintf(w->out, "[+%zu]", from);
		for (; columns < GUIDE_MAX - LEVELS_DRAWN * CELL; columns++)
			fputc(' ', w->out);
	}
	for (size_t level = from; level < item->level; level++, columns += CELL) {
		if (item->branch && level == item->level - 1)
			fputs(item->last ? "`-- " : "|-- ", w->out);
		else
			fputs(w->more[level] ? "|   " : "    ", w->out);
	}
	return columns;
}

static int is_bracketed(const char *dso)
{
	size_t length = strlen(dso);

	return length >= 2 && dso[0] == '[' && dso[length - 1] == ']';
}

/* "[libc.so.6]", "[kernel.kallsyms]", "[libc.so.6]+0x1234": 0 when none. */
static size_t dso_columns(const struct item *item, const char **dso)
{
	const struct report_symbol *symbol = item->node->symbol;
	char offset[24];
	size_t columns;

	*dso = symbol->dso && *symbol->dso ? symbol->dso : "[unknown]";
	if (symbol->resolved && item->above_dso && !strcmp(item->above_dso, *dso))
		return 0;
	columns = view_columns(*dso) + (is_bracketed(*dso) ? 0 : 2);
	if (!symbol->resolved)
		columns += snprintf(offset, sizeof(offset), "+0x%" PRIx64,
				    symbol->unknown_offset);
	return columns;
}

static void print_dso(FILE *out, const struct report_symbol *symbol, const char *dso)
{
	int brackets = !is_bracketed(dso);

	fputs(brackets ? "  [" : "  ", out);
	view_put(out, dso, 0);
	if (brackets)
		fputc(']', out);
	if (!symbol->resolved)
		fprintf(out, "+0x%" PRIx64, symbol->unknown_offset);
}

static void print_label(struct walk *w, const struct item *item, size_t used)
{
	const struct report_symbol *symbol = item->node->symbol;
	size_t width = w->options->width > 0 ? (size_t)w->options->width : 0;
	size_t room = 0, columns;
	const char *dso;

	if (!symbol) {
		const char *comm = item->node->comm;

		if (width)
			room = width > used + LABEL_MIN ? width - used : LABEL_MIN;
		view_put(w->out, comm && *comm ? comm : "[unknown]", room);
		return;
	}
	columns = dso_columns(item, &dso);
	used += columns ? 2 + columns : 0;	/* the DSO, after two spaces */
	if (width)
		room = width > used + LABEL_MIN ? width - used : LABEL_MIN;
	view_put_symbol(w->out, symbol, room);
	if (columns)
		print_dso(w->out, symbol, dso);
}

static void print_line(struct walk *w, const struct item *item)
{
	const struct call_node *node = item->node;
	uint64_t total = w->data->total_period;
	char percent[32];

	fprintf(w->out, "%7s  ", view_percent(percent, sizeof(percent),
					      node->total_period, total));
	if (node->self_period)
		fprintf(w->out, "%7s  ", view_percent(percent, sizeof(percent),
						      node->self_period, total));
	else
		fputs("         ", w->out);
	print_label(w, item, PERCENTS + print_guides(w, item));
	fputc('\n', w->out);
}

/* Pushed last first, so that they come off the stack in their order. */
static int push_children(struct walk *w, const struct item *item)
{
	const struct call_node *node = item->node;
	size_t count = 0, last = 0;
	int straight;

	for (size_t i = 0; i < node->child_count; i++) {
		if (shown(w, node->children[i])) {
			count++;
			last = i;
		} else {
			w->hidden++;
			w->hidden_period += node->children[i]->total_period;
		}
	}
	/*
	 * The root's children are the top lines, without guides.  Under a
	 * comm the first frames always branch, to set the comm off.
	 */
	straight = node == w->data->tree || (count == 1 && node->symbol);
	for (size_t i = node->child_count; i-- > 0;) {
		struct item child = {
			.node = node->children[i],
			.above_dso = node->symbol ? node->symbol->dso : NULL,
			.level = straight ? item->level : item->level + 1,
			.branch = !straight,
			.last = i == last,
		};

		if (i <= last && shown(w, child.node) && push(w, &child))
			return -ENOMEM;
	}
	return 0;
}

static int walk_tree(struct walk *w)
{
	struct item root = { .node = w->data->tree };
	size_t comms = 0;

	if (push_children(w, &root))
		return -ENOMEM;
	while (w->depth) {
		struct item item = w->stack[--w->depth];

		if (item.branch && set_more(w, item.level - 1, !item.last))
			return -ENOMEM;
		if (!item.level && !item.node->symbol && comms++)
			fputc('\n', w->out);
		print_line(w, &item);
		if (push_children(w, &item))
			return -ENOMEM;
	}
	return 0;
}

static void print_hidden(const struct walk *w)
{
	char limit[32], percent[32];

	if (!w->hidden)
		return;
	fprintf(w->out, "# %zu branches below %s not shown (%s in all)\n", w->hidden,
		view_limit_text(limit, sizeof(limit), w->options->percent_limit),
		view_percent(percent, sizeof(percent), w->hidden_period,
			     w->data->total_period));
}

int view_tree(const struct report_data *data, const struct view_options *options,
	      FILE *out)
{
	struct walk w = { .data = data, .options = options, .out = out };
	int err;

	view_print_header(data, out);
	if (!data->tree || !data->total_period) {
		fputs("# no samples\n", out);
		return view_finish(out);
	}
	fprintf(out, "# Total     Self  Call tree (%s first)\n",
		data->tree_callee ? "callees" : "callers");
	err = walk_tree(&w);
	free(w.stack);
	free(w.more);
	if (err)
		return err;
	print_hidden(&w);
	return view_finish(out);
}
