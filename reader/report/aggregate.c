/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counting samples into the flat profile, and their stacks into the call tree (call-tree.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "call-tree.h"
#include "common.h"
#include "counts.h"
#include "intern.h"
#include "report.h"
#include "stack-memo.h"
#include "stacks.h"
#include "symbolize.h"
#include "unwind.h"

/* An address's frames, innermost inlined first, the function last. */
struct address_frames {
	const struct dso *dso;
	uint64_t address;
	int kernel;
	const struct report_symbol **frames;
	size_t count;
	const struct report_symbol *with_line;	/* leaf symbol with its file:line */
	/* tree_lines: the frames again, each with the line it is at (NULL otherwise) */
	const struct report_symbol **lines;
};

/*
 * A resolved stack, leaf first: two words a frame, the DSO with a tag in
 * its low bits (a struct dso holds pointers: its address is a multiple
 * of 8), and the address in it (the raw address where no map covers it),
 * a marker's code or a waker's name.  It is what phase 1 counts samples
 * by: two samples with the same resolved frames get the same symbols,
 * whatever process or time they are of; the raw stacks hold millions of
 * frames, hence no word of a tag's own.
 */
enum frame_tag { FRAME_USER, FRAME_KERNEL, FRAME_MARKER, FRAME_WAKER, FRAME_WAKER_NAME };
#define FRAME_WORDS 2
#define FRAME_TAG_MASK 7u
_Static_assert(FRAME_WAKER_NAME <= FRAME_TAG_MASK, "a frame's tag fits below a pointer's alignment");

struct resolved_stack {
	uint64_t *words;
	size_t count, capacity;		/* in words */
};

struct flat_slot {
	struct flat_entry entry;
	uint64_t last_sample;		/* counts a stack's total once */
	uint32_t sorted;		/* its index in the sorted rows */
};


struct aggregator {
	struct aggregate_options options;
	struct session *session;
	struct symbolizer *symbolizer;
	struct string_table *strings;
	const struct dso *last_dso;	/* dso_name_of()'s */
	const char *last_dso_name;

	/* report_symbols, interned by content: their addresses are kept */
	struct report_symbol **symbols;
	size_t symbol_count, symbol_capacity;
	struct prf_index symbol_index;
	struct prf_arena symbol_arena;

	/* Each address symbolized once: its frames. */
	struct address_frames *addresses;
	size_t address_count, address_capacity;
	struct prf_index address_index;

	struct flat_slot *flat;
	size_t flat_count, flat_capacity;
	struct prf_index flat_index;
	struct flat_entry *flat_sorted;

	struct call_tree *tree;		/* with options.want_tree */
	struct tree_feed *feed;		/* phase 2: the stacks to the tree */
	struct call_node no_tree;	/* the tree of a report without one */

	struct stack_table *raw;	/* phase 1: the samples by resolved stack */
	struct count_table *heat;	/* phase 1: with time_bucket_ns, by bucket */
	struct count_table *slots;	/* phase 1: with time_slot_ns, by slot and raw stack */
	uint32_t *raw_flat;		/* phase 2: each raw stack's flat slot; UINT32_MAX: none */
	struct report_time_entry *time_entries;
	struct resolved_stack scratch;	/* phase 1: the current sample's */
	struct stack_memo *memo;	/* phase 1: report_aggregator_add()'s */
	const struct report_symbol **stack;	/* the current stack, leaf first */
	size_t stack_capacity;
	size_t blocked_from;		/* the stack's first frame below a waker's */
	uint64_t sample_number;
	uint64_t total_period, total_samples;
	int out_of_memory;
};

struct aggregator *report_aggregator_new(struct session *session, struct symbolizer *symbolizer,
					 const struct aggregate_options *options)
{
	struct aggregator *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->options = *options;
	if (!a->options.max_frames)
		a->options.max_frames = 1024;
	a->session = session;
	a->symbolizer = symbolizer;
	a->strings = session_strings(session);
	a->tree = a->options.want_tree ? report_tree_new(a->options.callee) : NULL;
	a->stack_capacity = a->options.max_frames * 4;
	a->stack = calloc(a->stack_capacity, sizeof(*a->stack));
	a->raw = report_stacks_new();
	a->heat = a->options.time_bucket_ns ? report_counts_new() : NULL;
	a->slots = a->options.time_slot_ns ? report_counts_new() : NULL;
	a->memo = report_memo_new();
	if ((a->options.want_tree && !a->tree) || !a->stack || !a->raw || !a->memo ||
	    (a->options.time_bucket_ns && !a->heat) || (a->options.time_slot_ns && !a->slots)) {
		report_aggregator_free(a);
		return NULL;
	}
	return a;
}

void report_aggregator_free(struct aggregator *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->address_count; i++) {
		free(a->addresses[i].frames);
		free(a->addresses[i].lines);
	}
	prf_arena_free(&a->symbol_arena);
	free(a->symbols);
	prf_index_free(&a->symbol_index);
	free(a->addresses);
	prf_index_free(&a->address_index);
	free(a->flat);
	prf_index_free(&a->flat_index);
	free(a->flat_sorted);
	report_tree_free(a->tree);
	free(a->stack);
	report_stacks_free(a->raw);
	report_counts_free(a->heat);
	report_counts_free(a->slots);
	free(a->raw_flat);
	free(a->time_entries);
	free(a->scratch.words);
	report_memo_free(a->memo);
	free(a);
}

/* ---- interned report symbols ---------------------------------------- */

static uint64_t symbol_hash(const struct report_symbol *s)
{
	return prf_hash_mix((uintptr_t)s->name ^ prf_hash_mix((uintptr_t)s->dso) ^
			    prf_hash_mix((uintptr_t)s->srcline + 1) ^
			    prf_hash_mix(s->unknown_offset + 2) ^
			    (uint64_t)(s->kernel | s->inlined << 1));
}

static int symbol_equal(const void *context, uint32_t id, const void *key)
{
	const struct aggregator *a = context;
	const struct report_symbol *x = a->symbols[id - 1], *y = key;

	return x->name == y->name && x->dso == y->dso && x->srcline == y->srcline &&
	       x->unknown_offset == y->unknown_offset && x->kernel == y->kernel &&
	       x->inlined == y->inlined;
}

static const struct report_symbol *symbol_intern(struct aggregator *a,
						 const struct report_symbol *s)
{
	uint64_t hash = symbol_hash(s);
	struct prf_index_slot *slot = prf_index_place(&a->symbol_index, hash, symbol_equal, a, s);
	struct report_symbol *copy;

	if (slot && slot->id)
		return a->symbols[slot->id - 1];
	if (!slot || prf_ensure_mem((void **)&a->symbols, &a->symbol_capacity,
				    sizeof(*a->symbols), a->symbol_count + 1) < 0 ||
	    !(copy = prf_arena_alloc(&a->symbol_arena, sizeof(*copy)))) {
		a->out_of_memory = 1;
		return NULL;
	}
	*copy = *s;
	a->symbols[a->symbol_count++] = copy;
	prf_index_insert(&a->symbol_index, slot, hash, (uint32_t)a->symbol_count);
	return copy;
}

/* ---- symbolizing an address, once ----------------------------------- */

/* Seeded, a field at a time: the addresses are the capture's (prf_hash_seed()). */
static uint64_t address_hash(const struct dso *dso, uint64_t address, int kernel)
{
	uint64_t h = prf_hash_mix(prf_hash_seed() ^ address);

	return prf_hash_mix(h ^ (uintptr_t)dso << 1 ^ (uint64_t)kernel);
}

static int address_equal(const void *context, uint32_t id, const void *key)
{
	const struct aggregator *a = context;
	const struct address_frames *x = &a->addresses[id - 1];
	const struct resolved_address *y = key;

	return x->dso == y->dso && x->address == y->address && x->kernel == y->kernel;
}

static const char *srcline_of(struct aggregator *a, const struct symbol_frame *f)
{
	char text[4200];
	const char *base;

	if (!f->file)
		return NULL;
	base = strrchr(f->file, '/');
	snprintf(text, sizeof(text), "%s:%u", base ? base + 1 : f->file, f->line);
	return string_intern(a->strings, text);
}

/*
 * A DSO's short name, interned; the last one's is kept, as the addresses
 * of one binary come together.
 */
static const char *dso_name_of(struct aggregator *a, const struct dso *dso, int kernel)
{
	if (!dso)
		return string_intern(a->strings, kernel ? "[kernel.kallsyms]" : "[unknown]");
	if (dso != a->last_dso) {
		const char *name = string_intern(a->strings, dso_short_name(dso));

		if (!name)
			return NULL;
		a->last_dso = dso;
		a->last_dso_name = name;
	}
	return a->last_dso_name;
}

static void symbolize_into(struct aggregator *a, struct address_frames *slot,
			   const struct resolved_address *where, uint64_t raw_address)
{
	struct symbol_answer answer = { 0 };
	const char *dso_name;
	struct report_symbol s = { 0 };

	if (where->dso)
		symbolizer_lookup(a->symbolizer, where->dso, where->address, &answer);
	/* A kernel address in a module answers with the module as its DSO. */
	dso_name = dso_name_of(a, answer.dso ? answer.dso : where->dso, where->kernel);
	slot->count = answer.frame_count ? answer.frame_count : 1;
	slot->frames = calloc(slot->count, sizeof(*slot->frames));
	if (!slot->frames) {
		a->out_of_memory = 1;
		slot->count = 0;
		return;
	}
	s.dso = dso_name;
	s.kernel = where->kernel;
	if (!answer.frame_count) {
		s.name = string_intern(a->strings, "[unknown]");
		s.unknown_offset = where->dso ? where->address : raw_address;
		slot->frames[0] = symbol_intern(a, &s);
		slot->with_line = slot->frames[0];
		return;
	}
	s.resolved = 1;
	slot->lines = a->options.tree_lines ? calloc(slot->count, sizeof(*slot->lines)) : NULL;
	if (a->options.tree_lines && !slot->lines)
		a->out_of_memory = 1;
	for (size_t i = 0; i < answer.frame_count; i++) {
		const struct symbol_frame *f = &answer.frames[i];

		s.name = string_intern(a->strings, f->function ? f->function : "[unknown]");
		s.inlined = f->inlined;
		s.resolved = f->function != NULL;
		s.unknown_offset = f->function ? 0 : where->address;
		slot->frames[i] = symbol_intern(a, &s);
		/* Frame i's own line: the pc's in the innermost, a call site's above. */
		if (slot->lines) {
			s.srcline = srcline_of(a, f);
			slot->lines[i] = symbol_intern(a, &s);
			s.srcline = NULL;
		}
	}
	/* The leaf with its line (the innermost frame's file:line), for --sort srcline. */
	slot->with_line = slot->frames[a->options.leaf_inline ? 0 : answer.frame_count - 1];
	if (a->options.sort_keys & SORT_SRCLINE) {
		s = *slot->with_line;
		s.srcline = srcline_of(a, &answer.frames[0]);
		slot->with_line = symbol_intern(a, &s);
	}
}

static const struct address_frames *frames_of(struct aggregator *a, struct dso *dso,
					      uint64_t address, int kernel)
{
	struct resolved_address where = { .dso = dso, .address = address, .kernel = kernel };
	uint64_t hash = address_hash(dso, address, kernel);
	struct prf_index_slot *index_slot = prf_index_place(&a->address_index, hash,
							    address_equal, a, &where);
	struct address_frames *slot;

	if (index_slot && index_slot->id)
		return &a->addresses[index_slot->id - 1];
	if (!index_slot || prf_ensure_mem((void **)&a->addresses, &a->address_capacity,
					  sizeof(*a->addresses), a->address_count + 1) < 0) {
		a->out_of_memory = 1;
		return NULL;
	}
	slot = &a->addresses[a->address_count];
	*slot = (struct address_frames){ .dso = dso, .address = address, .kernel = kernel };
	symbolize_into(a, slot, &where, address);
	if (!slot->frames)
		return NULL;
	prf_index_insert(&a->address_index, index_slot, hash, (uint32_t)++a->address_count);
	return slot;
}

/* A flat profile of self time needs only where the sample hit. */
static int wants_chain(const struct aggregator *a)
{
	return a->options.want_tree || a->options.children || a->options.focus;
}

/* Only comm, pid or tid rows of self time: no address matters. */
static int wants_symbols(const struct aggregator *a)
{
	return wants_chain(a) || (a->options.sort_keys & (SORT_SYM | SORT_DSO | SORT_SRCLINE));
}

/* ---- a sample's stack ------------------------------------------------ */

static int push(struct aggregator *a, size_t *depth, const struct report_symbol *s)
{
	if (!s || *depth == a->stack_capacity)
		return 0;
	a->stack[(*depth)++] = s;
	return 1;
}

static void push_address(struct aggregator *a, struct dso *dso, uint64_t address, int kernel,
			 size_t *depth, const struct report_symbol **leaf)
{
	const struct address_frames *f = frames_of(a, dso, address, kernel);

	if (!f)
		return;
	if (!*leaf)
		*leaf = a->options.sort_keys & SORT_SRCLINE ? f->with_line :
			f->frames[a->options.leaf_inline ? 0 : f->count - 1];
	const struct report_symbol **frames = f->lines ? f->lines : f->frames;

	if (a->options.tree_inlines) {
		for (size_t i = 0; i < f->count; i++)
			push(a, depth, frames[i]);
	} else {
		push(a, depth, frames[f->count - 1]);
	}
}

/*
 * Where an unwound user stack stops short: a frame of its own, outermost,
 * named in brackets like the kernel's pseudo-DSOs.
 */
static const struct report_symbol *marker_symbol(struct aggregator *a, uint64_t marker)
{
	struct report_symbol s = {
		.name = string_intern(a->strings, marker == UNWIND_FRAME_TRUNCATED ?
					"[truncated]" : "[unknown]"),
		.dso = string_intern(a->strings, "[unwind]"),
		.resolved = 1,
	};

	return symbol_intern(a, &s);
}

static int add_frame(struct resolved_stack *r, const struct dso *dso, uint64_t value,
		     enum frame_tag tag)
{
	if (r->count + FRAME_WORDS > r->capacity) {
		size_t capacity = r->capacity ? 2 * r->capacity : 64 * FRAME_WORDS;
		uint64_t *words = reallocarray(r->words, capacity, sizeof(*words));

		if (!words)
			return -ENOMEM;
		r->words = words;
		r->capacity = capacity;
	}
	r->words[r->count++] = (uintptr_t)dso | tag;
	r->words[r->count++] = value;
	return 0;
}

static void reverse_frames(struct resolved_stack *r, size_t from)
{
	for (size_t i = from, j = r->count - FRAME_WORDS; i < j; i += FRAME_WORDS, j -= FRAME_WORDS)
		for (size_t k = 0; k < FRAME_WORDS; k++) {
			uint64_t word = r->words[i + k];

			r->words[i + k] = r->words[j + k];
			r->words[j + k] = word;
		}
}

static int add_address(const struct aggregator *a, struct resolved_stack *r,
		       const struct session_sample *sample, uint64_t address, int kernel)
{
	struct resolved_address where;

	session_resolve(a->session, sample, address, kernel, &where);
	if (!where.dso && !kernel)
		where.address = address;	/* no map: key on the raw address */
	return add_frame(r, where.dso, where.address, kernel ? FRAME_KERNEL : FRAME_USER);
}

/*
 * The frames of a sample's stack as the report walks them: a flat
 * profile of self time needs only where the sample hit; callers'
 * entries are return addresses, so the call itself is looked up.
 */
static int resolve_stack(const struct aggregator *a, const struct session_sample *sample,
			 struct resolved_stack *r)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;
	size_t frames = 0;

	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr,
				 prf_misc_is_kernel(sample->misc));
	if (!wants_chain(a) || !sample->callchain_nr)
		return add_address(a, r, sample, sample->ip, walk.kernel);
	while (frames < a->options.max_frames && prf_callchain_next(&walk, &frame)) {
		if (frame.marker) {
			if ((frame.address == UNWIND_FRAME_TRUNCATED ||
			     frame.address == UNWIND_FRAME_UNKNOWN) &&
			    add_frame(r, NULL, frame.address, FRAME_MARKER) < 0)
				return -ENOMEM;
			continue;
		}
		if (add_address(a, r, sample, frame.pc, frame.kernel) < 0)
			return -ENOMEM;
		frames++;
	}
	if (!frames)
		return add_address(a, r, sample, sample->ip, walk.kernel);
	return 0;
}

/*
 * Above a blocked stack, leaf first as the stack is: the waker's name,
 * its stack root to leaf (resolved in its own process), the separator.
 * Walked root to leaf, a flame graph shows the blocked stack, "--", then
 * the waker's from its leaf down to its name, as offwaketime folds it.
 */
static int resolve_waker(const struct aggregator *a, const struct session_sample *block,
			 struct resolved_stack *r)
{
	struct session_sample waker;
	struct prf_callchain_walk walk;
	struct prf_frame frame;
	size_t frames = 0, from;

	if (!a->options.waker || !wants_chain(a) || session_waker_sample(block, &waker) < 0)
		return 0;
	if (add_frame(r, NULL, (uintptr_t)waker.comm, FRAME_WAKER_NAME) < 0)
		return -ENOMEM;
	from = r->count;
	prf_callchain_walk_start(&walk, waker.callchain, waker.callchain_nr, 1);
	while (frames < a->options.max_frames && prf_callchain_next(&walk, &frame)) {
		if (frame.marker)
			continue;
		if (add_address(a, r, &waker, frame.pc, frame.kernel) < 0)
			return -ENOMEM;
		frames++;
	}
	if (frames)
		reverse_frames(r, from);
	return add_frame(r, NULL, 0, FRAME_WAKER);
}

static const struct report_symbol *waker_symbol(struct aggregator *a, const char *name)
{
	struct report_symbol s = {
		.name = string_intern(a->strings, name ? name : "[unknown]"),
		.dso = string_intern(a->strings, "[waker]"),
		.resolved = 1,
	};

	return symbol_intern(a, &s);
}

/*
 * Phase 2: a resolved stack's symbols, leaf first; the depth, and the
 * flat view's leaf: the blocked stack's, below any waker's frames.
 */
static size_t build_stack(struct aggregator *a, const uint64_t *words, size_t count,
			  const struct report_symbol **leaf)
{
	size_t depth = 0;

	*leaf = NULL;
	a->blocked_from = 0;
	for (size_t i = 0; i + FRAME_WORDS <= count; i += FRAME_WORDS) {
		enum frame_tag tag = (enum frame_tag)(words[i] & FRAME_TAG_MASK);
		struct dso *dso = (struct dso *)(uintptr_t)(words[i] & ~(uint64_t)FRAME_TAG_MASK);

		if (tag == FRAME_MARKER) {
			push(a, &depth, marker_symbol(a, words[i + 1]));
		} else if (tag == FRAME_WAKER_NAME) {
			push(a, &depth, waker_symbol(a, (const char *)(uintptr_t)words[i + 1]));
		} else if (tag == FRAME_WAKER) {
			push(a, &depth, waker_symbol(a, REPORT_WAKER_SEPARATOR));
			*leaf = NULL;
			a->blocked_from = depth;
		} else
			push_address(a, dso, words[i + 1], tag == FRAME_KERNEL, &depth, leaf);
	}
	return depth;
}

/* ---- flat ------------------------------------------------------------ */

static const struct report_symbol *flat_symbol(struct aggregator *a,
					       const struct report_symbol *s)
{
	struct report_symbol only_dso = { 0 };

	if (a->options.sort_keys & (SORT_SYM | SORT_SRCLINE))
		return s;
	if (!(a->options.sort_keys & SORT_DSO))
		return NULL;
	only_dso.name = s->dso;
	only_dso.dso = s->dso;
	only_dso.kernel = s->kernel;
	only_dso.resolved = 1;
	return symbol_intern(a, &only_dso);
}

static uint64_t flat_hash(const struct flat_entry *e)
{
	return prf_hash_mix((uintptr_t)e->symbol ^ prf_hash_mix((uintptr_t)e->comm) ^
			    prf_hash_mix((uintptr_t)e->host + 1) ^
			    prf_hash_mix(prf_hash_seed() ^ ((uint64_t)e->pid << 32 | e->tid)) ^
			    prf_hash_mix((uintptr_t)e->unit ^ (uintptr_t)e->container << 1 ^
					 (uintptr_t)e->cgroup << 2));
}

static int flat_equal(const void *context, uint32_t id, const void *key)
{
	const struct aggregator *a = context;
	const struct flat_entry *e = &a->flat[id - 1].entry, *k = key;

	return e->symbol == k->symbol && e->comm == k->comm && e->host == k->host &&
	       e->pid == k->pid && e->tid == k->tid && e->unit == k->unit &&
	       e->container == k->container && e->cgroup == k->cgroup;
}

static struct flat_slot *flat_slot_for(struct aggregator *a, const struct session_sample *sample,
				       const struct report_symbol *symbol)
{
	struct flat_entry key = { 0 };
	unsigned keys = a->options.sort_keys;
	struct prf_index_slot *index_slot;
	struct flat_slot *slot;
	uint64_t hash;

	key.host = keys & SORT_HOST ? sample->host : NULL;
	key.comm = keys & SORT_COMM ? sample->comm : NULL;
	key.pid = keys & SORT_PID ? sample->pid : 0;
	key.tid = keys & SORT_TID ? sample->tid : 0;
	key.unit = keys & SORT_UNIT ? sample->unit : NULL;
	key.container = keys & SORT_CONTAINER ? sample->container : NULL;
	key.cgroup = keys & SORT_CGROUP ? sample->cgroup : NULL;
	key.symbol = flat_symbol(a, symbol);
	hash = flat_hash(&key);
	index_slot = prf_index_place(&a->flat_index, hash, flat_equal, a, &key);
	if (index_slot && index_slot->id)
		return &a->flat[index_slot->id - 1];
	if (!index_slot || prf_ensure_mem((void **)&a->flat, &a->flat_capacity, sizeof(*a->flat),
					  a->flat_count + 1) < 0)
		return NULL;
	slot = &a->flat[a->flat_count];
	slot->entry = key;
	/* Not keys: a pid is one task at a time, with one pid in its namespace. */
	slot->entry.ns_pid = keys & SORT_PID ? sample->ns_pid : 0;
	slot->entry.ns_tid = keys & SORT_TID ? sample->ns_tid : 0;
	slot->last_sample = UINT64_MAX;
	prf_index_insert(&a->flat_index, index_slot, hash, (uint32_t)++a->flat_count);
	return slot;
}

/* The leaf's flat slot: its index, or UINT32_MAX without memory. */
static uint32_t count_flat(struct aggregator *a, const struct session_sample *sample,
			   const struct report_symbol *leaf, size_t depth, uint64_t samples)
{
	struct flat_slot *slot = flat_slot_for(a, sample, leaf);
	uint32_t self;

	if (!slot) {
		a->out_of_memory = 1;
		return UINT32_MAX;
	}
	self = (uint32_t)(slot - a->flat);
	slot->entry.self_period += sample->period;
	slot->entry.self_samples += samples;
	slot->entry.total_period += sample->period;
	slot->entry.total_samples += samples;
	slot->last_sample = a->sample_number;
	/* Total: each function on the stack once, however often it recurs; not the waker's. */
	for (size_t i = a->blocked_from; i < depth && a->options.children; i++) {
		const struct report_symbol *s = a->stack[i];

		if (s->inlined && !a->options.leaf_inline)
			continue;
		slot = flat_slot_for(a, sample, s);
		if (!slot || slot->last_sample == a->sample_number)
			continue;
		slot->last_sample = a->sample_number;
		slot->entry.total_period += sample->period;
		slot->entry.total_samples += samples;
	}
	return self;
}

/* ---- tree ------------------------------------------------------------ */

/*
 * The process name, or with --sort unit (container, cgroup) that: the
 * tree then answers "which service" before "which function".  Interned,
 * so that it keys the first level.
 */
const char *report_first_level_name(unsigned sort_keys)
{
	if (sort_keys & SORT_UNIT)
		return "Unit";
	if (sort_keys & SORT_CONTAINER)
		return "Container";
	if (sort_keys & SORT_CGROUP)
		return "Cgroup";
	return "Process";
}

/* In the order of report_first_level_name(). */
static const char *tree_first_level(struct aggregator *a, const struct session_sample *sample)
{
	unsigned keys = a->options.sort_keys;
	const char *name = sample->comm;

	if (keys & SORT_UNIT)
		name = sample->unit;
	else if (keys & SORT_CONTAINER)
		name = sample->container ? sample->container : "-";
	else if (keys & SORT_CGROUP)
		name = sample->cgroup;
	return name ? name : "[unknown]";
}

static int stack_has(const struct aggregator *a, size_t depth, const char *name)
{
	for (size_t i = 0; i < depth; i++)
		if (strcmp(a->stack[i]->name, name) == 0)
			return 1;
	return 0;
}

/* ---- phase 1: samples by raw stack ---------------------------------- */

/* Where a time falls: slot or bucket number width from origin, 0 before it. */
static uint64_t time_index(uint64_t time, uint64_t origin, uint64_t width)
{
	return time > origin ? (time - origin) / width : 0;
}

/*
 * What phase 1 counts into: the raw stacks, and with time kept their
 * slots and the heatmap's buckets.  The aggregator's own, and each
 * reading thread's part.
 */
struct raw_counts {
	struct stack_table *raw;
	struct count_table *slots, *heat;
};

/* The sample's stack counted, with its time where it is kept: 0 or -ENOMEM. */
static int count_raw(const struct aggregator *a, const struct raw_counts *to,
		     struct resolved_stack *scratch, struct stack_memo *memo,
		     const struct session_sample *sample)
{
	const struct aggregate_options *o = &a->options;
	unsigned keys = a->options.sort_keys;
	uint64_t time = sample->time;
	int64_t number;
	struct raw_stack key = {
		.comm = keys & SORT_COMM || a->options.want_tree ? sample->comm : NULL,
		.pid = keys & SORT_PID ? sample->pid : 0,
		.tid = keys & SORT_TID ? sample->tid : 0,
		.ns_pid = keys & SORT_PID ? sample->ns_pid : 0,
		.ns_tid = keys & SORT_TID ? sample->ns_tid : 0,
		.host = keys & SORT_HOST ? sample->host : NULL,
		/* The tree's first level may be one of these. */
		.unit = keys & SORT_UNIT ? sample->unit : NULL,
		.container = keys & SORT_CONTAINER ? sample->container : NULL,
		.cgroup = keys & SORT_CGROUP ? sample->cgroup : NULL,
	};

	/*
	 * Compact samples' callchains only, as recorded (the unwinder may
	 * give another), whose hash the format library made once a stack; a
	 * block's stack is two, its waker's with it.
	 */
	int leaf_only = !wants_chain(a);
	int remembered = !o->no_shortcuts && sample->kind == SESSION_SAMPLE_CPU &&
			 sample->stack && (leaf_only || sample->callchain == sample->record->callchain);
	/* Where only the leaf counts, the ip is what decides; else the chain too. */
	struct stack_memo_key seen = {
		.chain = leaf_only ? NULL : sample->callchain, .chain_nr = sample->callchain_nr,
		.stack_hash = leaf_only ? 0 : sample->stack_hash, .host = sample->host,
		.process = sample->process, .generation = sample->maps_generation,
		.ip = sample->ip, .misc = sample->misc, .keys = &key,
	};

	number = remembered ? report_memo_find(memo, to->raw, &seen) : -1;
	if (number >= 0) {
		report_stacks_add_at(to->raw, (size_t)number, sample->period, sample->samples);
	} else {
		scratch->count = 0;
		if (wants_symbols(a) && (resolve_waker(a, sample, scratch) < 0 ||
					 resolve_stack(a, sample, scratch) < 0))
			return -ENOMEM;
		if (scratch->count > UINT32_MAX)
			return -ENOMEM;
		key.chain_nr = (uint32_t)scratch->count;
		number = report_stacks_add(to->raw, &key, scratch->words, sample->period,
					   sample->samples);
		if (number < 0 ||
		    (remembered && report_memo_add(memo, to->raw, &seen, (uint32_t)number) < 0))
			return -ENOMEM;
	}
	/* A time past the range (a lying capture's 2^63) counts at its end, not in a slot of its own. */
	if (o->time_end_ns && time > o->time_end_ns)
		time = o->time_end_ns;
	if (to->slots) {
		uint64_t slot = time_index(time, o->time_origin_ns, o->time_slot_ns);

		/* Four billion slots: past them, the last one (no such capture is read). */
		if (slot >= UINT32_MAX)
			slot = UINT32_MAX - 1;
		if (report_counts_add(to->slots, slot << 32 | (uint64_t)number, sample->period,
				      sample->samples) < 0)
			return -ENOMEM;
	}
	if (to->heat && report_counts_add(to->heat, time_index(time, o->time_origin_ns,
								o->time_bucket_ns),
					  sample->period, sample->samples) < 0)
		return -ENOMEM;
	return 0;
}

void report_aggregator_add(void *context, const struct session_sample *sample)
{
	struct aggregator *a = context;
	struct raw_counts to = { a->raw, a->slots, a->heat };

	if (count_raw(a, &to, &a->scratch, a->memo, sample) < 0)
		a->out_of_memory = 1;
}

/*
 * A thread's samples, counted as report_aggregator_add() does, then
 * merged into the aggregator, which a part only reads.
 */
struct aggregator_part {
	const struct aggregator *aggregator;
	struct raw_counts counts;
	struct resolved_stack scratch;
	struct stack_memo *memo;
	int out_of_memory;
};

static void raw_counts_free(struct raw_counts *c)
{
	report_stacks_free(c->raw);
	report_counts_free(c->slots);
	report_counts_free(c->heat);
}

static struct aggregator_part *part_new(struct aggregator *a)
{
	struct aggregator_part *part = calloc(1, sizeof(*part));

	if (!part)
		return NULL;
	part->aggregator = a;
	part->counts.raw = report_stacks_new();
	part->counts.slots = a->slots ? report_counts_new() : NULL;
	part->counts.heat = a->heat ? report_counts_new() : NULL;
	part->memo = report_memo_new();
	if (!part->counts.raw || (a->slots && !part->counts.slots) ||
	    (a->heat && !part->counts.heat) || !part->memo) {
		raw_counts_free(&part->counts);
		report_memo_free(part->memo);
		free(part);
		return NULL;
	}
	return part;
}

static void part_add(void *context, const struct session_sample *sample)
{
	struct aggregator_part *part = context;

	if (count_raw(part->aggregator, &part->counts, &part->scratch, part->memo, sample) < 0)
		part->out_of_memory = 1;
}

/*
 * from's counts added to into's: a stack's slots follow it to its number
 * in into's table.  0 or -ENOMEM.
 */
static int raw_counts_merge(struct raw_counts *into, const struct raw_counts *from)
{
	size_t count = 0;
	const struct report_time_bucket *e = into->slots ?
					     report_counts_entries(from->slots, &count) : NULL;
	uint32_t *map = NULL;
	int ret = -ENOMEM;

	if (into->slots && !(map = calloc(report_stacks_count(from->raw) + 1, sizeof(*map))))
		return -ENOMEM;
	if (report_stacks_merge(into->raw, from->raw, map) < 0)
		goto out;
	for (size_t i = 0; i < count; i++)
		if (report_counts_add(into->slots, (e[i].index >> 32) << 32 | map[(uint32_t)e[i].index],
				      e[i].period, e[i].samples) < 0)
			goto out;
	if (into->heat && report_counts_merge(into->heat, from->heat) < 0)
		goto out;
	ret = 0;
out:
	free(map);
	return ret;
}

/* Frees part; without memory, report_aggregator_finish() says -ENOMEM. */
static void part_merge(struct aggregator *a, struct aggregator_part *part)
{
	struct raw_counts mine = { a->raw, a->slots, a->heat };

	if (!part)
		return;
	/* The smaller table goes into the larger: half the copying of both into a new one. */
	if (report_stacks_count(part->counts.raw) > report_stacks_count(mine.raw)) {
		struct raw_counts larger = part->counts;

		part->counts = mine;
		mine = larger;
	}
	if (part->out_of_memory || raw_counts_merge(&mine, &part->counts) < 0)
		a->out_of_memory = 1;
	a->raw = mine.raw;
	a->slots = mine.slots;
	a->heat = mine.heat;
	raw_counts_free(&part->counts);
	free(part->scratch.words);
	report_memo_free(part->memo);
	free(part);
}

/*
 * filter, with samples alike taken together where counting them one by
 * one gives the same: in windows that keep each within one slot and one
 * bucket of the time kept (the greatest common divisor of their widths).
 */
void report_aggregator_filter(const struct aggregator *a, struct session_filter *filter)
{
	const struct aggregate_options *o = &a->options;
	uint64_t x = o->time_slot_ns, y = o->time_bucket_ns;

	if (o->no_shortcuts)
		return;
	while (y) {
		uint64_t r = x % y;

		x = y;
		y = r;
	}
	filter->merge_alike = 1;
	filter->merge_origin_ns = o->time_origin_ns;
	filter->merge_window_ns = x;
	filter->merge_leaf_only = !wants_chain(a);
}

int report_aggregator_read(struct aggregator *a, const struct session_filter *filter, unsigned jobs)
{
	struct aggregator_part **parts = calloc(jobs ? jobs : 1, sizeof(*parts));
	int ret;

	if (!parts) {
		a->out_of_memory = 1;
		return 0;
	}
	for (unsigned t = 0; t < jobs; t++)
		if (!(parts[t] = part_new(a)))
			a->out_of_memory = 1;
	ret = a->out_of_memory ? 0 :
	      session_for_each_sample_parallel(a->session, filter, jobs, part_add,
					       (void *const *)parts);
	if (ret == -ENOMEM)
		a->out_of_memory = 1;
	for (unsigned t = 0; t < jobs; t++)
		part_merge(a, parts[t]);
	free(parts);
	return ret == -EIO ? -EIO : 0;
}

/* ---- phase 2: each distinct stack symbolized and counted once -------- */

/* Raw stack number index: its rows, and with time kept, where its self time went. */
static void count_stack(struct aggregator *a, size_t index, const struct raw_stack *raw,
			const uint64_t *words)
{
	size_t tag = a->raw_flat ? index : REPORT_TREE_UNTAGGED;
	uint32_t self;

	struct session_sample sample = {
		.pid = raw->pid, .tid = raw->tid, .period = raw->period, .comm = raw->comm,
		.ns_pid = raw->ns_pid, .ns_tid = raw->ns_tid, .host = raw->host,
		.unit = raw->unit, .container = raw->container, .cgroup = raw->cgroup,
	};
	static const struct report_symbol no_symbol;
	const struct report_symbol *leaf = &no_symbol;
	size_t depth = 1;

	a->blocked_from = 0;
	if (wants_symbols(a))
		depth = build_stack(a, words, raw->chain_nr, &leaf);
	if (!leaf || !depth)
		return;
	if (a->options.focus && !stack_has(a, depth, a->options.focus))
		return;
	a->sample_number++;
	a->total_period += raw->period;
	a->total_samples += raw->samples;
	self = count_flat(a, &sample, leaf, depth, raw->samples);
	if (a->raw_flat)
		a->raw_flat[index] = self;
	if (a->feed && report_tree_feed_add(a->feed, tree_first_level(a, &sample), a->stack, depth,
					    raw->period, raw->samples, tag) < 0)
		a->out_of_memory = 1;
}

static void count_stacks(struct aggregator *a)
{
	size_t n = report_stacks_count(a->raw);

	if (a->slots) {
		a->raw_flat = malloc((n + 1) * sizeof(*a->raw_flat));
		if (!a->raw_flat) {
			a->out_of_memory = 1;
			return;
		}
		memset(a->raw_flat, 0xff, (n + 1) * sizeof(*a->raw_flat));
	}
	for (size_t i = 0; i < n && !a->out_of_memory; i++) {
		const uint64_t *chain;
		const struct raw_stack *raw = report_stacks_at(a->raw, i, &chain);

		count_stack(a, i, raw, chain);
	}
}

/* ---- finishing ------------------------------------------------------- */

int report_string_compare(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	return strcmp(a, b);
}

/*
 * Rows of equal weight are ordered by everything that tells them apart,
 * so two runs over one file print the same report, byte for byte.
 */
int report_symbol_compare(const struct report_symbol *a, const struct report_symbol *b)
{
	int order;

	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	if ((order = report_string_compare(a->name, b->name)) ||
	    (order = report_string_compare(a->dso, b->dso)) ||
	    (order = report_string_compare(a->srcline, b->srcline)))
		return order;
	if (a->unknown_offset != b->unknown_offset)
		return a->unknown_offset < b->unknown_offset ? -1 : 1;
	return (a->kernel - b->kernel) * 2 + (a->inlined - b->inlined);
}

static int compare_flat(const void *x, const void *y)
{
	const struct flat_entry *a = x, *b = y;
	int order;

	if (a->self_period != b->self_period)
		return a->self_period > b->self_period ? -1 : 1;
	if (a->total_period != b->total_period)
		return a->total_period > b->total_period ? -1 : 1;
	if ((order = report_symbol_compare(a->symbol, b->symbol)) ||
	    (order = report_string_compare(a->host, b->host)) ||
	    (order = report_string_compare(a->comm, b->comm)) ||
	    (order = report_string_compare(a->unit, b->unit)) ||
	    (order = report_string_compare(a->container, b->container)) ||
	    (order = report_string_compare(a->cgroup, b->cgroup)))
		return order;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static int compare_flat_slots(const void *x, const void *y, void *context)
{
	const struct flat_slot *flat = context;

	return compare_flat(&flat[*(const uint32_t *)x].entry, &flat[*(const uint32_t *)y].entry);
}

/*
 * The flat rows, sorted, in a->flat_sorted, each slot told its place
 * there (the time entries name rows by it): their count, or -ENOMEM.
 */
static ssize_t sort_flat(struct aggregator *a)
{
	uint32_t *order = calloc(a->flat_count + 1, sizeof(*order));
	size_t n = 0;

	a->flat_sorted = calloc(a->flat_count + 1, sizeof(*a->flat_sorted));
	if (!a->flat_sorted || !order) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->flat_count; i++)
		if (a->flat[i].entry.self_samples)
			order[n++] = (uint32_t)i;
	/* Functions only ever callers matter only with a total column. */
	for (size_t i = 0; i < a->flat_count && a->options.children; i++)
		if (!a->flat[i].entry.self_samples)
			order[n++] = (uint32_t)i;
	if (n)
		qsort_r(order, n, sizeof(*order), compare_flat_slots, a->flat);
	for (size_t i = 0; i < n; i++) {
		a->flat_sorted[i] = a->flat[order[i]].entry;
		a->flat[order[i]].sorted = (uint32_t)i;
	}
	free(order);
	return (ssize_t)n;
}

static int compare_time_entries(const void *x, const void *y)
{
	const struct report_time_entry *a = x, *b = y;

	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	if (a->flat != b->flat)
		return a->flat < b->flat ? -1 : 1;
	if (a->node == b->node)
		return 0;
	return a->node && b->node ? report_node_compare(a->node, b->node) : a->node ? 1 : -1;
}

/*
 * The time entries: each raw stack that was counted (--focus drops some),
 * its slot with the flat row and tree node its self time went to, in an
 * order that is the same for any number of threads.  0 or -ENOMEM.
 */
static int make_timeline(struct aggregator *a, struct report_timeline *timeline)
{
	size_t n = 0, count = 0, kept = 0;
	const struct report_time_bucket *slots;

	*timeline = (struct report_timeline){
		.origin_ns = a->options.time_origin_ns,
		.slot_ns = a->options.time_slot_ns,
		.bucket_ns = a->options.time_bucket_ns,
	};
	if (a->heat)
		timeline->buckets = report_counts_sorted(a->heat, &timeline->bucket_count);
	if (!a->raw_flat)
		return 0;
	slots = report_counts_entries(a->slots, &n);
	a->time_entries = calloc(n + 1, sizeof(*a->time_entries));
	if (!a->time_entries)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)(slots[i].index >> 32), stack = (uint32_t)slots[i].index;

		if (a->raw_flat[stack] == UINT32_MAX)
			continue;
		a->time_entries[count++] = (struct report_time_entry){
			.slot = slot,
			.flat = a->flat[a->raw_flat[stack]].sorted,
			.node = a->tree ? report_tree_tagged(a->tree, stack) : NULL,
			.period = slots[i].period,
			.samples = slots[i].samples,
		};
		if (slot >= timeline->slot_count)
			timeline->slot_count = slot + 1;
	}
	if (count)
		qsort(a->time_entries, count, sizeof(*a->time_entries), compare_time_entries);
	/* Stacks apart only in what no row or node shows are one entry. */
	for (size_t i = 0; i < count; i++) {
		struct report_time_entry *e = &a->time_entries[i];

		if (kept && !compare_time_entries(&a->time_entries[kept - 1], e)) {
			a->time_entries[kept - 1].period += e->period;
			a->time_entries[kept - 1].samples += e->samples;
		} else
			a->time_entries[kept++] = *e;
	}
	count = kept;
	timeline->entries = a->time_entries;
	timeline->entry_count = count;
	return 0;
}

int report_aggregator_finish(struct aggregator *a, struct report_data *data)
{
	ssize_t n = 0;

	/* Phase 1's alone: its memory goes before the tree takes its own. */
	report_memo_free(a->memo);
	a->memo = NULL;
	if (a->tree && !a->out_of_memory &&
	    !(a->feed = report_tree_feed_start(a->tree, a->options.jobs > 1)))
		a->out_of_memory = 1;
	if (!a->out_of_memory)
		count_stacks(a);
	/* The flat rows are sorted while the tree's thread links its nodes. */
	if (!a->out_of_memory && (n = sort_flat(a)) < 0)
		a->out_of_memory = 1;
	if (a->feed && report_tree_feed_finish(a->feed) < 0)
		a->out_of_memory = 1;
	a->feed = NULL;
	if (!a->out_of_memory && make_timeline(a, &data->timeline) < 0)
		a->out_of_memory = 1;
	if (a->out_of_memory)
		return -ENOMEM;
	data->sort_keys = a->options.sort_keys;
	data->flat = a->flat_sorted;
	data->flat_count = (size_t)n;
	data->tree = a->tree ? report_tree_root(a->tree) : &a->no_tree;
	data->tree_callee = a->options.callee;
	data->total_period = a->total_period;
	data->total_samples = a->total_samples;
	return 0;
}
