/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flame graph as one HTML page: no network, no other file.  The page
 * is a fixed skeleton, flame.css and flame.js (embedded at build time by
 * flame-embed.sh), and the call tree as JSON in a
 * <script type="application/json"> block that flame.js parses and draws
 * on a canvas.
 *
 * The data, version 2 (flame.js is its only reader):
 *   "percent_limit"                           the limit subtrees were left out by
 *   "inverted":  boolean                      open in the inverted view
 *   "first_level": "Process", "Unit", ...     what the root's children are
 *   "shown":     index                        the profile shown first
 *   "profiles":  [{...}, ...]                 one, or with off-CPU records
 *                                             the CPU, off-CPU and wall ones
 *   "strings":   [string, ...]                every name, once
 *   "symbols":   [name, dso, srcline, flags, offset, ...]  five numbers a
 *                symbol: string indexes (-1: none); flags 1 kernel, 2
 *                inlined, 4 resolved, 8 a process (name is its comm);
 *                offset the "0x..." of an unresolved address
 * and each profile:
 *   "kind", "label"  "cpu", "off-cpu", "wall"; "CPU", "Off-CPU", "Wall"
 *   "unit":      "samples" (periods are the event's; samples shown) or
 *                "ns" (periods are nanoseconds of blocked or wall time)
 *   "facts":     [[label, value, warn], ...]   the header, in order
 *   "total_period", "total_samples"           what shares are of
 *   "nodes":     [symbol, children, period, self_period, samples,
 *                self_samples, ...]  six numbers a node, in preorder from
 *                the root (symbol -1), each node followed by its
 *                "children" shown children's subtrees, heaviest first
 *   "hidden_nodes", "hidden_period"           subtrees left out by the limit
 *
 * The profiles share the names: the page grows with the distinct stacks
 * of each profile, not with samples or blocks.  With --waker, the
 * off-CPU and wall trees hold the wakers' stacks above a "--" frame;
 * they are frames like any other here.
 *
 * Only the caller-first tree is embedded: a node's self samples are the
 * stacks that end there, so the tree is the capture's stacks, shared
 * prefixes written once, and flame.js inverts it when asked.
 *
 * Against a baseline (report_match_baseline()), the one profile's "baseline":
 * {"total_period", "total_samples", "gone_nodes", "gone_period", "scale"}
 * and eight numbers a node: the six, then the baseline's period and self
 * period of the same stack (0: new).  The baseline's stacks that have no
 * node here follow each node's own children, with periods and samples 0
 * (never drawn: they have no width), so that the inverted tree flame.js
 * computes has the baseline's shares whole; their symbols are the
 * baseline's, equal in content to this profile's (flame.js merges them).
 *
 * Capture strings are untrusted.  They are only ever JSON strings here,
 * with '<', '>', '&', U+2028 and U+2029 escaped, so nothing in them can
 * close the script element or start markup; flame.js puts them into the
 * page with textContent and fillText, never as HTML.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flame-internal.h"

enum { SYMBOL_KERNEL = 1, SYMBOL_INLINED = 2, SYMBOL_RESOLVED = 4, SYMBOL_COMM = 8 };

/* Pointer -> index; interned names make pointers keys. */
struct index_entry {
	const void *key;
	uint32_t value;
};

struct index_table {
	struct prf_index index;
	struct index_entry *entries;	/* by id - 1 */
	size_t count, capacity;
};

/*
 * Names and symbols are written once, by content: the profiles of one
 * page come from sessions of their own, whose pointers differ for equal
 * names.  Pointers are a cache in front (symbols, comms); strings and
 * symbol_content go by the bytes and the five fields.
 */
struct html_writer {
	FILE *out;
	const struct report_data *data;
	double limit;
	struct index_table symbols, comms;
	struct prf_index strings;	/* ids: string_list's index + 1 */
	struct prf_index symbol_content;	/* ids: symbol_fields' index + 1 */
	const char **string_list;
	char **offset_texts;		/* the "0x..." strings, owned */
	size_t offset_count;
	int32_t *symbol_fields;		/* five a symbol */
	size_t symbol_count, symbol_capacity, string_count, string_capacity;
	uint64_t hidden_nodes, hidden_period;
	size_t written;			/* nodes, for line breaks */
	/* With time data: the nodes written, in order (flame_time_write()). */
	int keep_nodes;
	const struct call_node **page_nodes;
	size_t page_node_capacity;
};

static int key_equal(const void *context, uint32_t id, const void *key)
{
	const struct index_table *t = context;

	return t->entries[id - 1].key == key;
}

/* Finds key or adds it as value; returns its index, or -1 without memory. */
static int64_t table_get(struct index_table *t, const void *key, uint32_t value, int *added)
{
	uint64_t hash = prf_hash_mix((uintptr_t)key);
	struct prf_index_slot *slot = prf_index_place(&t->index, hash, key_equal, t, key);

	*added = 0;
	if (!slot)
		return -1;
	if (slot->id)
		return t->entries[slot->id - 1].value;
	if (prf_ensure_mem((void **)&t->entries, &t->capacity, sizeof(*t->entries), t->count + 1) < 0)
		return -1;
	t->entries[t->count++] = (struct index_entry){ key, value };
	prf_index_insert(&t->index, slot, hash, (uint32_t)t->count);
	*added = 1;
	return value;
}

static void table_free(struct index_table *t)
{
	prf_index_free(&t->index);
	free(t->entries);
}

static int string_equal(const void *context, uint32_t id, const void *key)
{
	const struct html_writer *w = context;

	return strcmp(w->string_list[id - 1], key) == 0;
}

/* s's index in the page's strings, added when new; -1 without memory. */
static int64_t string_index(struct html_writer *w, const char *s)
{
	uint64_t hash;
	struct prf_index_slot *slot;

	if (!s)
		return -1;
	hash = prf_hash_bytes(s, strlen(s));
	slot = prf_index_place(&w->strings, hash, string_equal, w, s);
	if (!slot)
		return -1;
	if (slot->id)
		return slot->id - 1;
	if (prf_ensure_mem((void **)&w->string_list, &w->string_capacity, sizeof(*w->string_list),
			   w->string_count + 1) < 0)
		return -1;
	w->string_list[w->string_count++] = s;
	prf_index_insert(&w->strings, slot, hash, (uint32_t)w->string_count);
	return (int64_t)w->string_count - 1;
}

static int symbol_equal(const void *context, uint32_t id, const void *key)
{
	const struct html_writer *w = context;

	return memcmp(w->symbol_fields + 5 * (id - 1), key, 5 * sizeof(int32_t)) == 0;
}

/*
 * A symbol's five fields; the comm's when symbol is NULL.  Its index,
 * the same for equal fields of another profile's symbol.
 */
static int64_t symbol_index(struct html_writer *w, const struct call_node *node)
{
	const struct report_symbol *s = node->symbol;
	const char *comm = node->comm ? node->comm : "[unknown]";
	struct index_table *cache = s ? &w->symbols : &w->comms;
	int32_t fields[5] = { -1, -1, -1, 0, -1 };
	struct prf_index_slot *slot;
	uint64_t hash;
	int added;
	int64_t i;

	i = table_get(cache, s ? (const void *)s : comm, (uint32_t)w->symbol_count, &added);
	if (i < 0 || !added)
		return i;
	if (s) {
		int64_t name = string_index(w, view_symbol_name(s));
		int64_t dso = string_index(w, s->dso);
		int64_t line = string_index(w, s->srcline);

		if (name < 0 || (s->dso && dso < 0) || (s->srcline && line < 0))
			return -1;
		fields[0] = (int32_t)name;
		fields[1] = (int32_t)dso;
		fields[2] = (int32_t)line;
		fields[3] = (s->kernel ? SYMBOL_KERNEL : 0) | (s->inlined ? SYMBOL_INLINED : 0) |
			    (s->resolved ? SYMBOL_RESOLVED : 0);
		if (!s->resolved) {
			char **grown = reallocarray(w->offset_texts, w->offset_count + 1,
						    sizeof(*grown));
			int64_t offset;

			if (!grown)
				return -1;
			w->offset_texts = grown;
			if (asprintf(&grown[w->offset_count], "0x%" PRIx64, s->unknown_offset) < 0)
				return -1;
			offset = string_index(w, grown[w->offset_count++]);
			if (offset < 0)
				return -1;
			fields[4] = (int32_t)offset;
		}
	} else {
		int64_t name = string_index(w, comm);

		if (name < 0)
			return -1;
		fields[0] = (int32_t)name;
		fields[3] = SYMBOL_COMM;
	}
	hash = prf_hash_bytes(fields, sizeof(fields));
	slot = prf_index_place(&w->symbol_content, hash, symbol_equal, w, fields);
	if (!slot)
		return -1;
	if (slot->id) {
		cache->entries[cache->count - 1].value = slot->id - 1;
		return slot->id - 1;
	}
	if (w->symbol_count == w->symbol_capacity) {
		size_t capacity = w->symbol_capacity ? 2 * w->symbol_capacity : 1024;
		int32_t *grown = reallocarray(w->symbol_fields, capacity, 5 * sizeof(*grown));

		if (!grown)
			return -1;
		w->symbol_fields = grown;
		w->symbol_capacity = capacity;
	}
	memcpy(w->symbol_fields + 5 * w->symbol_count, fields, sizeof(fields));
	w->symbol_count++;
	prf_index_insert(&w->symbol_content, slot, hash, (uint32_t)w->symbol_count);
	return i;
}

/* ---- JSON for a script element --------------------------------------- */

void flame_json_string(FILE *out, const char *s)
{
	uint32_t code;
	size_t n;

	fputc('"', out);
	for (; (n = flame_next_char(s, &code)); s += n) {
		switch (code) {
		case '"':	fputs("\\\"", out); break;
		case '\\':	fputs("\\\\", out); break;
		/* "</script>", "<!--" and entities must not appear, even in a string. */
		case '<':	fputs("\\u003c", out); break;
		case '>':	fputs("\\u003e", out); break;
		case '&':	fputs("\\u0026", out); break;
		/* Line terminators to older JavaScript parsers. */
		case 0x2028:	fputs("\\u2028", out); break;
		case 0x2029:	fputs("\\u2029", out); break;
		case 0xfffd:	fputs("\\ufffd", out); break;
		default:	fwrite(s, 1, n, out); break;
		}
	}
	fputc('"', out);
}

/*
 * A node: gone, one of the baseline's tree only (its periods are the
 * baseline's); children, those written after it, its own and gone ones.
 */
static int write_node(struct html_writer *w, const struct call_node *node, int root,
		      int gone, size_t shown, size_t children)
{
	int64_t symbol = root ? -1 : symbol_index(w, node);

	if (!root && symbol < 0)
		return -1;
	fprintf(w->out, "%s%" PRId64 ",%zu,", w->written ? (w->written % 8 ? "," : ",\n") : "",
		symbol, children);
	if (gone)
		fprintf(w->out, "0,0,0,0,%" PRIu64 ",%" PRIu64, node->total_period,
			node->self_period);
	else
		fprintf(w->out, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, node->total_period,
			node->self_period, node->total_samples, node->self_samples);
	if (w->data->baseline && !gone)
		fprintf(w->out, ",%" PRIu64 ",%" PRIu64, node->base_total_period,
			node->base_self_period);
	if (w->keep_nodes) {
		if (prf_ensure_mem((void **)&w->page_nodes, &w->page_node_capacity,
				   sizeof(*w->page_nodes), w->written + 1) < 0)
			return -1;
		w->page_nodes[w->written] = node;
	}
	w->written++;
	if (gone)
		return 0;
	w->hidden_nodes += node->child_count - shown;
	for (size_t i = shown; i < node->child_count; i++)
		w->hidden_period += node->children[i]->total_period;
	return 0;
}

/* Whether a child of the baseline's node is written as a gone node. */
static int gone_shown(const struct html_writer *w, const struct call_node *base_child)
{
	return !base_child->other && !view_below_limit(base_child->total_period,
						       w->data->baseline->total_period, w->limit);
}

/*
 * How many children node has in the page: shown of its own, then for a
 * node with a baseline's the children of that which have no match here.
 * A gone node's children are all gone; they are under the limit by the
 * baseline's total.
 */
static size_t page_children(const struct html_writer *w, const struct call_node *node,
			    int gone, size_t *shown)
{
	size_t n;

	if (gone) {
		*shown = flame_shown_children(node, w->data->baseline->total_period, w->limit);
		return *shown;
	}
	*shown = flame_shown_children(node, w->data->total_period, w->limit);
	n = *shown;
	for (size_t i = 0; node->other && i < node->other->child_count; i++)
		n += gone_shown(w, node->other->children[i]);
	return n;
}

/* The next child of the top frame, NULL when there is none; *gone for a gone one. */
static const struct call_node *next_child(const struct html_writer *w, struct flame_frame *top,
					  int *gone)
{
	const struct call_node *other = top->gone ? NULL : top->node->other;

	*gone = top->gone;
	if (top->next < top->shown)
		return top->node->children[top->next++];
	while (other && top->base_next < other->child_count) {
		const struct call_node *child = other->children[top->base_next++];

		if (gone_shown(w, child)) {
			*gone = 1;
			return child;
		}
	}
	return NULL;
}

/* The nodes in preorder, with an explicit stack: stacks can be thousands deep. */
static int write_nodes(struct html_writer *w)
{
	static const struct call_node empty;
	const struct call_node *root = w->data->tree ? w->data->tree : &empty;
	struct flame_stack stack = { 0 };
	size_t shown, children = page_children(w, root, 0, &shown);
	int err = 0;

	if (write_node(w, root, 1, 0, shown, children) < 0 || !flame_push(&stack, root, shown, 0))
		err = -1;
	while (!err && stack.count) {
		struct flame_frame *top = &stack.frames[stack.count - 1], *pushed;
		const struct call_node *child;
		int gone;

		child = next_child(w, top, &gone);
		if (!child) {
			stack.count--;
			continue;
		}
		children = page_children(w, child, gone, &shown);
		if (write_node(w, child, 0, gone, shown, children) < 0 ||
		    !(pushed = flame_push(&stack, child, shown, 0)))
			err = -1;
		else
			pushed->gone = gone;
	}
	flame_stack_free(&stack);
	return err;
}

static void write_facts(FILE *out, const struct flame_fact *facts, int count)
{
	fputs("\n\"facts\":[", out);
	for (int i = 0; i < count; i++) {
		fputs(i ? ",[" : "[", out);
		flame_json_string(out, facts[i].label);
		fputc(',', out);
		flame_json_string(out, facts[i].value);
		fprintf(out, ",%d]", facts[i].warn);
	}
	fputs("],\n", out);
}

/* One profile: its header, totals and tree; w's names shared with the others. */
static int write_profile(struct html_writer *w, const struct report_data *data)
{
	struct flame_fact facts[FLAME_MAX_FACTS];
	int fact_count = flame_facts(data, facts);
	FILE *out = w->out;

	if (fact_count >= 0)
		fact_count = flame_baseline_facts(data, facts, fact_count);
	if (fact_count < 0)
		return -1;
	w->data = data;
	w->hidden_nodes = w->hidden_period = 0;
	w->written = 0;
	/*
	 * Time data where there is time and a tree; not against a baseline
	 * (the page's ranges compare within the capture instead).
	 */
	w->keep_nodes = data->timeline.slot_ns && data->tree && !data->baseline &&
			data->timeline.entry_count;
	fprintf(out, "{\"kind\":\"%s\",\"label\":\"%s\",\"unit\":\"%s\",",
		report_profile_kind_name(data->kind), flame_profile_label(data->kind),
		data->weight_unit ? "ns" : "samples");
	write_facts(out, facts, fact_count);
	flame_facts_free(facts, fact_count);
	fprintf(out, "\"total_period\":%" PRIu64 ",\"total_samples\":%" PRIu64 ",\n",
		data->total_period, data->total_samples);
	if (data->baseline)
		fprintf(out, "\"baseline\":{\"total_period\":%" PRIu64 ",\"total_samples\":%" PRIu64
			",\"gone_nodes\":%" PRIu64 ",\"gone_period\":%" PRIu64 ",\"scale\":%.0f},\n",
			data->baseline->total_period, data->baseline->total_samples,
			data->gone_nodes, data->gone_period, FLAME_DIFF_SCALE);
	fputs("\"nodes\":[\n", out);
	if (write_nodes(w) < 0)
		return -1;
	fprintf(out, "],\n\"hidden_nodes\":%" PRIu64 ",\"hidden_period\":%" PRIu64,
		w->hidden_nodes, w->hidden_period);
	if (w->keep_nodes && flame_time_write(out, data, w->page_nodes, w->written) < 0)
		return -1;
	fputc('}', out);
	return 0;
}

static int write_data(struct html_writer *w, const struct report_data *const *profiles,
		      size_t count, size_t shown, const struct view_options *options)
{
	double limit = options->percent_limit;
	uint64_t hundredths = limit > 0 && limit < 1e15 ? (uint64_t)(limit * 100 + 0.5) : 0;
	FILE *out = w->out;

	fprintf(out, "{\"version\":2,\n\"percent_limit\":%" PRIu64 ".%02" PRIu64
		",\"inverted\":%s,\n", hundredths / 100, hundredths % 100,
		options->flame_inverted ? "true" : "false");
	fputs("\"first_level\":", out);
	flame_json_string(out, report_first_level_name(profiles[0]->sort_keys));
	fprintf(out, ",\n\"shown\":%zu,\n\"profiles\":[", shown < count ? shown : 0);
	for (size_t i = 0; i < count; i++) {
		if (i)
			fputs(",\n", out);
		if (write_profile(w, profiles[i]) < 0)
			return -1;
	}
	fputs("],\n\"symbols\":[", out);
	for (size_t i = 0; i < w->symbol_count; i++) {
		const int32_t *f = w->symbol_fields + 5 * i;

		fprintf(out, "%s%d,%d,%d,%d,%d", i ? (i % 16 ? "," : ",\n") : "",
			f[0], f[1], f[2], f[3], f[4]);
	}
	fputs("],\n\"strings\":[", out);
	for (size_t i = 0; i < w->string_count; i++) {
		fputs(i ? ",\n" : "\n", out);
		flame_json_string(out, w->string_list[i]);
	}
	fputs("]}\n", out);
	return 0;
}

/* ---- the page -------------------------------------------------------- */

/*
 * default-src 'none': the page can fetch nothing, whatever a bug in
 * flame.js or a browser extension tried; its own inline style and
 * script are all it runs.
 */
static const char page_head[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<meta name=\"generator\" content=\"perfrec-report " PACKAGE_VERSION "\">\n"
	"<title>perfrec flame graph</title>\n<style>\n";

static const char page_body[] =
	"</style>\n</head>\n<body>\n"
	"<header>\n<h1 id=\"title\">perfrec flame graph</h1>\n<dl id=\"facts\"></dl>\n"
	"<p id=\"legend\" hidden></p>\n</header>\n"
	"<div id=\"toolbar\">\n"
	"<span id=\"profiles\" role=\"group\" aria-label=\"Profile\" hidden></span>\n"
	"<button type=\"button\" id=\"reset\" title=\"Show everything again (Esc)\">Reset zoom</button>\n"
	"<label title=\"Leaf functions at the root, their callers below (i)\">"
	"<input type=\"checkbox\" id=\"invert\"> Inverted</label>\n"
	"<label><span id=\"first-level\">Process</span> <select id=\"process\"><option value=\"-1\">all</option></select></label>\n"
	"<input type=\"search\" id=\"search\" placeholder=\"Search functions (/)\" "
	"spellcheck=\"false\" autocomplete=\"off\">\n"
	"<label title=\"Take the search as a JavaScript regular expression\">"
	"<input type=\"checkbox\" id=\"regex\"> Regex</label>\n"
	"<span id=\"match\" aria-live=\"polite\"></span>\n"
	"</div>\n"
	"<section id=\"timeline\" hidden>\n"
	"<div id=\"heat-bar\">\n"
	"<button type=\"button\" id=\"heat-overview\" hidden title=\"Back to the whole capture\">Whole capture</button>\n"
	"<button type=\"button\" id=\"range-clear\" disabled title=\"The whole capture again (c)\">Clear range</button>\n"
	"<button type=\"button\" id=\"range-baseline\" disabled title=\"Compare the next range with this one (b)\">Use as baseline</button>\n"
	"<span id=\"heat-readout\" aria-live=\"polite\"></span>\n"
	"</div>\n"
	"<div id=\"heat-wrap\"><canvas id=\"heatmap\"></canvas><canvas id=\"heat-axis\"></canvas></div>\n"
	"<div id=\"series-wrap\"><canvas id=\"series\"></canvas><div id=\"series-keys\"></div></div>\n"
	"<p id=\"heat-help\"></p>\n"
	"<p id=\"range\"></p>\n"
	"<p id=\"range-command-line\" hidden>In a terminal: <code id=\"range-command\"></code></p>\n"
	"</section>\n"
	"<div id=\"status\"></div>\n"
	"<div id=\"chart\"><canvas id=\"flame\"></canvas></div>\n"
	"<div id=\"tip\" role=\"tooltip\" hidden></div>\n"
	"<noscript><p>This flame graph is drawn by JavaScript: allow it for this file.</p></noscript>\n"
	"<script type=\"application/json\" id=\"flame-data\">\n";

static const char page_script[] = "</script>\n<script>\n";
static const char page_end[] = "</script>\n</body>\n</html>\n";

int flame_html(const struct report_data *const *profiles, size_t count, size_t shown,
	       const struct view_options *options, FILE *out)
{
	struct html_writer w = { .out = out, .limit = options->percent_limit };
	int err;

	if (!count)
		return -EINVAL;
	fputs(page_head, out);
	fwrite(flame_css, 1, flame_css_size, out);
	fputs(page_body, out);
	err = write_data(&w, profiles, count, shown, options);
	if (!err) {
		fputs(page_script, out);
		fwrite(flame_js, 1, flame_js_size, out);
		fputs(page_end, out);
	}
	prf_index_free(&w.strings);
	prf_index_free(&w.symbol_content);
	table_free(&w.symbols);
	table_free(&w.comms);
	free(w.string_list);
	free(w.symbol_fields);
	free(w.page_nodes);
	for (size_t i = 0; i < w.offset_count; i++)
		free(w.offset_texts[i]);
	free(w.offset_texts);
	if (err)
		return -ENOMEM;
	return view_finish(out);
}
