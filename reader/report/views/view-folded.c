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

/*
 * A node on the walk's path.  Its frame's text is written once, when the
 * walk enters it, after its parent's in the walk's text (after a ';'
 * below the first): a line is then that text up to the node, where
 * naming every frame of every line again cost a third of the view.
 */
struct frame {
	const struct call_node *node;
	size_t next;			/* the child to visit next */
	size_t text_start, text_end;	/* its frame's text in the walk's */
};

int view_text_put(struct view_text *text, const char *s, size_t size)
{
	/* Nothing to copy: data may still be NULL, which memcpy() must not get. */
	if (!size)
		return 0;
	if (prf_ensure_mem((void **)&text->data, &text->capacity, 1, text->size + size) < 0)
		return -ENOMEM;
	memcpy(text->data + text->size, s, size);
	text->size += size;
	return 0;
}

/* s safely, ';' as ':'; the runs of units kept as they are copied at once. */
static int put_name(struct view_text *text, const char *s)
{
	const char *run = s, *unit;
	size_t size, n;

	for (; (n = prf_text_unit(s, &unit, &size)); s += n) {
		if (unit == s && *s != ';')
			continue;
		if (view_text_put(text, run, (size_t)(s - run)) < 0 ||
		    view_text_put(text, unit == s ? ":" : unit, size) < 0)
			return -ENOMEM;
		run = s + n;
	}
	return view_text_put(text, run, (size_t)(s - run));
}

int view_folded_name(struct view_text *text, const struct report_symbol *symbol)
{
	const char *dso, *suffix = symbol->inlined ? "_[i]" : symbol->kernel ? "_[k]" : "";
	int err;

	if (symbol->resolved && symbol->name && *symbol->name) {
		err = put_name(text, symbol->name);
	} else {
		dso = symbol->dso && *symbol->dso ? symbol->dso : "unknown";
		if (*dso == '[') {
			err = put_name(text, dso);
		} else {
			err = view_text_put(text, "[", 1);
			if (!err)
				err = put_name(text, dso);
			if (!err)
				err = view_text_put(text, "]", 1);
		}
	}
	return err ? err : view_text_put(text, suffix, strlen(suffix));
}

static int put_node(struct view_text *text, const struct call_node *node)
{
	if (node->symbol)
		return view_folded_name(text, node->symbol);
	return put_name(text, node->comm && *node->comm ? node->comm : "[unknown]");
}

static void put_count(FILE *out, uint64_t count)
{
	char digits[24], *p = digits + sizeof(digits);

	*--p = '\n';
	do {
		*--p = (char)('0' + count % 10);
		count /= 10;
	} while (count);
	*--p = ' ';
	fwrite(p, 1, (size_t)(digits + sizeof(digits) - p), out);
}

/*
 * path[1..count) is the node's path below the root.  A callee tree has
 * the leaf first under the comm: its frames are put back in caller order.
 */
static void print_stack(FILE *out, const struct view_text *text, const struct frame *path,
			size_t count, int callee, int time)
{
	const struct call_node *node = path[count - 1].node;
	size_t comms = 1;

	if (callee)
		while (comms < count && !path[comms].node->symbol)
			comms++;
	if (!callee || comms >= count) {
		fwrite(text->data, 1, path[count - 1].text_end, out);
	} else {
		fwrite(text->data, 1, path[comms - 1].text_end, out);
		for (size_t i = count - 1; i >= comms; i--) {
			if (i < count - 1 || comms > 1)
				fputc(';', out);
			fwrite(text->data + path[i].text_start, 1,
			       path[i].text_end - path[i].text_start, out);
		}
	}
	put_count(out, time ? node->self_period : node->self_samples);
}

/* Enters node: its frame's text after its parent's. */
static int enter(struct view_text *text, struct frame *path, size_t depth,
		 const struct call_node *node)
{
	struct frame *f = &path[depth];

	*f = (struct frame){ .node = node };
	text->size = depth > 1 ? path[depth - 1].text_end : 0;
	if (depth > 1 && view_text_put(text, ";", 1) < 0)
		return -ENOMEM;
	f->text_start = text->size;
	if (depth && put_node(text, node) < 0)
		return -ENOMEM;
	f->text_end = text->size;
	return 0;
}

int view_folded(const struct report_data *data, FILE *out)
{
	struct view_text text = { 0 };
	struct frame *path = NULL;
	size_t depth = 0, capacity = 0;
	int err = 0;

	if (!data->tree)
		return view_finish(out);
	for (struct call_node *node = data->tree; node;) {
		if (prf_ensure_mem((void **)&path, &capacity, sizeof(*path), depth + 1) < 0 ||
		    enter(&text, path, depth, node) < 0) {
			err = -ENOMEM;
			break;
		}
		depth++;
		if (depth > 1 && node->self_samples)
			print_stack(out, &text, path, depth, data->tree_callee,
				    data->weight_unit != NULL);
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
	free(text.data);
	free(path);
	return err ? err : view_finish(out);
}
