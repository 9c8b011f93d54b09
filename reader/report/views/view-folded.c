/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collapsed stacks, the input of flamegraph.pl, inferno and speedscope:
 * a line per stack that has self samples,
 *
 *   workload;main;mid;leaf 600
 *
 * the process name first, then the frames from the outermost caller to
 * the leaf, then its self sample count (samples, not periods, as the
 * stackcollapse scripts count); for an off-CPU or wall profile its self
 * time in nanoseconds, as offcputime -f folds blocked time.  A stack is
 * its text: call tree nodes that print alike make one line.  The names
 * follow stackcollapse-perf.pl:
 * kernel frames end in "_[k]", inlined ones in "_[i]", an unresolved
 * address is its DSO in brackets ("[libc.so.6]", "[unknown]" without
 * one).  Since ';' separates frames it becomes ':' in names; control
 * characters and invalid UTF-8 become '?' (so no name can end a line);
 * spaces stay, the readers split the count off at the last one.
 *
 * There is no header: the readers take every line for a stack.
 */
#include <errno.h>
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
	char line[24] = " ";
	size_t size = 1 + view_format_u64(line + 1, count, 0, ' ');

	line[size++] = '\n';
	fwrite(line, 1, size, out);
}

/*
 * The lines, each text once: nodes apart in the tree can print alike (the
 * addresses nothing names, in one DSO or none; one name in two DSOs), and
 * their lines are one, their counts added, as stackcollapse-perf.pl adds
 * them.  Kept in the order first met.
 */
struct folded_line {
	size_t offset, size;		/* in the lines' text */
	uint64_t count;
};

struct folded_lines {
	struct view_text text;
	struct folded_line *lines;
	size_t count, capacity;
	struct prf_index index;
	struct view_text callee;	/* a callee line put back in caller order */
};

struct line_key {
	const char *text;
	size_t size;
};

static int line_equal(const void *context, uint32_t id, const void *key)
{
	const struct folded_lines *l = context;
	const struct folded_line *line = &l->lines[id - 1];
	const struct line_key *k = key;

	return line->size == k->size && !memcmp(l->text.data + line->offset, k->text, k->size);
}

static int add_line(struct folded_lines *l, const char *text, size_t size, uint64_t count)
{
	struct line_key key = { text, size };
	uint64_t hash = prf_hash_bytes(text, size);	/* seeded: names are the capture's */
	struct prf_index_slot *slot = prf_index_place(&l->index, hash, line_equal, l, &key);

	if (!slot)
		return -ENOMEM;
	if (slot->id) {
		l->lines[slot->id - 1].count += count;
		return 0;
	}
	if (l->count >= UINT32_MAX - 1 ||
	    prf_ensure_mem((void **)&l->lines, &l->capacity, sizeof(*l->lines), l->count + 1) < 0)
		return -ENOMEM;
	l->lines[l->count] = (struct folded_line){ l->text.size, size, count };
	if (view_text_put(&l->text, text, size) < 0)
		return -ENOMEM;
	prf_index_insert(&l->index, slot, hash, (uint32_t)++l->count);
	return 0;
}

/*
 * path[1..count) is the node's path below the root.  A callee tree has
 * the leaf first under the comm: its frames are put back in caller order.
 */
static int add_stack(struct folded_lines *l, const struct view_text *text,
		     const struct frame *path, size_t count, int callee, int time)
{
	const struct call_node *node = path[count - 1].node;
	uint64_t weight = time ? node->self_period : node->self_samples;
	size_t comms = 1;

	if (callee)
		while (comms < count && !path[comms].node->symbol)
			comms++;
	if (!callee || comms >= count)
		return add_line(l, text->data, path[count - 1].text_end, weight);
	l->callee.size = 0;
	if (view_text_put(&l->callee, text->data, path[comms - 1].text_end) < 0)
		return -ENOMEM;
	for (size_t i = count - 1; i >= comms; i--) {
		if ((i < count - 1 || comms > 1) && view_text_put(&l->callee, ";", 1) < 0)
			return -ENOMEM;
		if (view_text_put(&l->callee, text->data + path[i].text_start,
				  path[i].text_end - path[i].text_start) < 0)
			return -ENOMEM;
	}
	return add_line(l, l->callee.data, l->callee.size, weight);
}

static void print_lines(FILE *out, const struct folded_lines *l)
{
	for (size_t i = 0; i < l->count; i++) {
		fwrite(l->text.data + l->lines[i].offset, 1, l->lines[i].size, out);
		put_count(out, l->lines[i].count);
	}
}

static void folded_lines_free(struct folded_lines *l)
{
	free(l->text.data);
	free(l->lines);
	prf_index_free(&l->index);
	free(l->callee.data);
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
	struct folded_lines lines = { 0 };
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
		if (depth > 1 && node->self_samples &&
		    add_stack(&lines, &text, path, depth, data->tree_callee,
			      data->weight_unit != NULL) < 0) {
			err = -ENOMEM;
			break;
		}
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
	if (!err)
		print_lines(out, &lines);
	folded_lines_free(&lines);
	free(text.data);
	free(path);
	return err ? err : view_finish(out);
}
