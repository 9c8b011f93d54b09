/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collapsed stacks, the input of flamegraph.pl, inferno and speedscope:
 * one line per call tree node with self samples,
 *
 *   workload;main;mid;leaf 600
 *
 * the process name first, then the frames from the outermost caller to
 * the node, then its self sample count (samples, not periods, as the
 * stackcollapse scripts count); for an off-CPU or wall profile its self
 * time in nanoseconds, as offcputime -f folds blocked time.  The names follow stackcollapse-perf.pl:
 * kernel frames end in "_[k]", inlined ones in "_[i]", an unresolved
 * address is its DSO in brackets ("[libc.so.6]", "[unknown]" without
 * one).  Since ';' separates frames it becomes ':' in names; control
 * characters and invalid UTF-8 become '?' (so no name can end a line);
 * spaces stay, the readers split the count off at the last one.
 *
 * There is no header: the readers take every line for a stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "views.h"

struct frame {
	const struct call_node *node;
	size_t next;			/* the child to visit next */
};

static void put_name(FILE *out, const char *s)
{
	const char *unit;
	size_t size, n;

	for (; (n = prf_text_unit(s, &unit, &size)); s += n)
		fwrite(*unit == ';' ? ":" : unit, 1, size, out);
}

void view_folded_frame(FILE *out, const struct report_symbol *symbol)
{
	const char *dso;

	if (symbol->resolved && symbol->name && *symbol->name) {
		put_name(out, symbol->name);
	} else {
		dso = symbol->dso && *symbol->dso ? symbol->dso : "unknown";
		if (*dso == '[') {
			put_name(out, dso);
		} else {
			fputc('[', out);
			put_name(out, dso);
			fputc(']', out);
		}
	}
	if (symbol->inlined)
		fputs("_[i]", out);
	else if (symbol->kernel)
		fputs("_[k]", out);
}

static void put_node(FILE *out, const struct call_node *node)
{
	if (node->symbol)
		view_folded_frame(out, node->symbol);
	else
		put_name(out, node->comm && *node->comm ? node->comm : "[unknown]");
}

/*
 * path[1..count) is the node's path below the root.  A callee tree has
 * the leaf first under the comm: its frames are put back in caller order.
 */
static void print_stack(FILE *out, const struct frame *path, size_t count, int callee,
			int time)
{
	const struct call_node *node = path[count - 1].node;
	size_t comms = 1;

	if (callee)
		while (comms < count && !path[comms].node->symbol)
			comms++;
	for (size_t i = 1; i < count; i++) {
		size_t at = callee && i >= comms ? comms + count - 1 - i : i;

		if (i > 1)
			fputc(';', out);
		put_node(out, path[at].node);
	}
	fprintf(out, " %" PRIu64 "\n", time ? node->self_period : node->self_samples);
}

int view_folded(const struct report_data *data, FILE *out)
{
	struct frame *path = NULL;
	size_t depth = 0, capacity = 0;

	if (!data->tree)
		return view_finish(out);
	for (struct call_node *node = data->tree; node;) {
		if (prf_ensure_mem((void **)&path, &capacity, sizeof(*path), depth + 1) < 0) {
			free(path);
			return -ENOMEM;
		}
		path[depth++] = (struct frame){ .node = node };
		if (depth > 1 && node->self_samples)
			print_stack(out, path, depth, data->tree_callee, data->weight_unit != NULL);
		/* The next node: a child of the deepest node with one left. */
		node = NULL;
		while (depth && !node) {
			struct frame *top = &path[depth - 1];

			if (top->next < top->node->child_count)
				node = top->node->children[top->next++];
			else
				depth--;
		}
	}
	free(path);
	return view_finish(out);
}
