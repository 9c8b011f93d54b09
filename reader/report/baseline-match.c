/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call tree against the baseline's, node by node, for the
 * differential flame graphs (report.h, report_match_baseline()).
 *
 * The two trees were built by two aggregators from two sessions, so their
 * symbols are different pointers: frames are matched by what the graphs
 * print of them, compared as strings.  Siblings are distinct by those
 * (the aggregator interns symbols by content, the session interns comms),
 * so each node has at most one match.
 *
 * Trees of a system-wide capture have hundreds of thousands of nodes and
 * thousands of children under a process: each pair of sibling lists is
 * sorted by key and merged, O(n log n) in all, and the walk keeps its own
 * stack (stacks are deep; no recursion).  The children arrays keep their
 * order (heaviest first, what the writers rely on): copies are sorted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static int compare_text(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

/* What identifies a frame among its siblings; the first level is the comm. */
static int compare_frames(const struct call_node *a, const struct call_node *b)
{
	const struct report_symbol *x = a->symbol, *y = b->symbol;
	int order;

	if (!x || !y)
		return x || y ? (x ? 1 : -1) : compare_text(a->comm, b->comm);
	if ((order = compare_text(x->name, y->name)) ||
	    (order = compare_text(x->dso, y->dso)) ||
	    (order = compare_text(x->srcline, y->srcline)))
		return order;
	if (x->kernel != y->kernel)
		return x->kernel - y->kernel;
	if (x->inlined != y->inlined)
		return x->inlined - y->inlined;
	if (x->resolved != y->resolved)
		return x->resolved - y->resolved;
	/* [unknown] frames are told apart by their offset in the DSO. */
	if (!x->resolved && x->unknown_offset != y->unknown_offset)
		return x->unknown_offset < y->unknown_offset ? -1 : 1;
	return 0;
}

static int compare_children(const void *x, const void *y)
{
	return compare_frames(*(struct call_node *const *)x, *(struct call_node *const *)y);
}

struct pair {
	struct call_node *node, *base;
};

struct matcher {
	struct pair *pairs;		/* the stack of matched pairs to visit */
	size_t count, capacity;
	struct call_node **sorted;	/* scratch: both sibling lists, sorted */
	size_t sorted_capacity;
};

static int push(struct matcher *m, struct call_node *node, struct call_node *base)
{
	if (m->count == m->capacity) {
		size_t capacity = m->capacity ? 2 * m->capacity : 256;
		struct pair *grown = reallocarray(m->pairs, capacity, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		m->pairs = grown;
		m->capacity = capacity;
	}
	node->other = base;
	base->other = node;
	node->base_total_period = base->total_period;
	node->base_self_period = base->self_period;
	m->pairs[m->count++] = (struct pair){ node, base };
	return 0;
}

/* Matches the children of one pair, pushing the matched ones. */
static int match_children(struct matcher *m, struct report_data *data, const struct pair *p)
{
	size_t n = p->node->child_count, b = p->base->child_count, i = 0, j = 0;
	struct call_node **x, **y;

	if (n + b > m->sorted_capacity) {
		size_t capacity = (n + b) * 2;
		struct call_node **grown = reallocarray(m->sorted, capacity, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		m->sorted = grown;
		m->sorted_capacity = capacity;
	}
	x = m->sorted;
	y = m->sorted + n;
	if (n)
		memcpy(x, p->node->children, n * sizeof(*x));
	if (b)
		memcpy(y, p->base->children, b * sizeof(*y));
	if (n > 1)
		qsort(x, n, sizeof(*x), compare_children);
	if (b > 1)
		qsort(y, b, sizeof(*y), compare_children);
	while (i < n || j < b) {
		int order = i == n ? 1 : j == b ? -1 : compare_frames(x[i], y[j]);

		if (order < 0) {
			i++;		/* new in this profile: base_* stay 0 */
		} else if (order > 0) {
			/* Only in the baseline: not drawn, but counted. */
			data->gone_nodes++;
			data->gone_period += y[j++]->total_period;
		} else if (push(m, x[i++], y[j++]) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

int report_match_baseline(struct report_data *data, struct report_data *base)
{
	struct matcher m = { 0 };
	int ret = 0;

	data->baseline = base;
	data->gone_nodes = data->gone_period = 0;
	if (!data->tree || !base->tree) {
		/* Nothing to match: all of the baseline is gone. */
		if (base->tree && base->total_period) {
			data->gone_nodes = base->tree->child_count;
			data->gone_period = base->total_period;
		}
		return 0;
	}
	ret = push(&m, data->tree, base->tree);
	while (!ret && m.count) {
		struct pair p = m.pairs[--m.count];

		ret = match_children(&m, data, &p);
	}
	free(m.pairs);
	free(m.sorted);
	return ret;
}
