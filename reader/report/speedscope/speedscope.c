/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=speedscope, the samples: each sample's callchain becomes a
 * stack of frames, root first, appended to its thread's samples in the
 * order the session gives them (time).  Addresses are symbolized once
 * each, frames and stacks kept once by content.
 *
 * The frames are those of the call tree: an address gives its function
 * and, outside it, the functions inlined into it, innermost last; a
 * callchain's return addresses are looked up at the call (pc - 1), as
 * everywhere in the report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "speedscope-internal.h"
#include "symbolize.h"
#include "unwind.h"
#include "views.h"

#define GROW(s, table, count, need) \
	prf_ensure_mem((void **)&(s)->table, &(s)->count##_capacity, sizeof(*(s)->table), (need))

struct speedscope *speedscope_new(struct session *session, struct symbolizer *symbolizer,
				  const struct speedscope_options *options)
{
	struct speedscope *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->options = *options;
	if (!s->options.max_frames || s->options.max_frames > SPEEDSCOPE_MAX_FRAMES)
		s->options.max_frames = SPEEDSCOPE_MAX_FRAMES;
	s->session = session;
	s->symbolizer = symbolizer;
	return s;
}

void speedscope_free(struct speedscope *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->frame_count; i++)
		free(s->frames[i].name);
	for (size_t i = 0; i < s->thread_count; i++)
		free(s->threads[i].runs);
	free(s->frames);
	free(s->addresses);
	free(s->frame_ids);
	free(s->stacks);
	free(s->stack_words);
	free(s->threads);
	prf_index_free(&s->frame_index);
	prf_index_free(&s->address_index);
	prf_index_free(&s->stack_index);
	prf_index_free(&s->thread_index);
	free(s);
}

/* ---- frames ------------------------------------------------------------- */

static int frame_equal(const void *context, uint32_t id, const void *key)
{
	const struct speedscope *s = context;
	const struct speedscope_frame *f = &s->frames[id - 1], *k = key;

	/* By content: two DSOs of one path (another build, a process's own copy) are one file. */
	return (f->file == k->file || (f->file && k->file && strcmp(f->file, k->file) == 0)) &&
	       strcmp(f->name, k->name) == 0;
}

/* The frame of symbol, its index + 1; 0 without memory. */
static uint32_t frame_of(struct speedscope *s, const struct report_symbol *symbol,
			 const char *file)
{
	struct speedscope_frame key = { .file = file };
	struct view_text name = { 0 };
	struct prf_index_slot *slot;
	uint64_t hash;

	if (view_folded_name(&name, symbol) < 0 || view_text_put(&name, "", 1) < 0) {
		free(name.data);
		return 0;
	}
	key.name = name.data;
	/* The file's hash mixed again: a name equal to its file must not cancel it. */
	hash = prf_hash_bytes(key.name, name.size - 1) ^
	       (file ? prf_hash_mix(prf_hash_bytes(file, strlen(file)) + 1) : 0);
	slot = prf_index_place(&s->frame_index, hash, frame_equal, s, &key);
	if (slot && slot->id) {
		free(key.name);
		return slot->id;
	}
	if (!slot || GROW(s, frames, frame, s->frame_count + 1) < 0) {
		free(key.name);
		return 0;
	}
	s->frames[s->frame_count++] = key;
	prf_index_insert(&s->frame_index, slot, hash, (uint32_t)s->frame_count);
	return (uint32_t)s->frame_count;
}

/* ---- addresses ---------------------------------------------------------- */

static int address_equal(const void *context, uint32_t id, const void *key)
{
	const struct speedscope *s = context;
	const struct speedscope_address *a = &s->addresses[id - 1], *k = key;

	return a->dso == k->dso && a->address == k->address && a->kernel == k->kernel;
}

/* Its frames into frame_ids, as the aggregator names them (aggregate.c). */
static int symbolize(struct speedscope *s, struct speedscope_address *a,
		     const struct resolved_address *where)
{
	struct symbol_answer answer = { 0 };
	struct report_symbol symbol = { .kernel = where->kernel };
	const struct dso *dso;
	const char *file;
	size_t count;

	if (where->dso)
		symbolizer_lookup(s->symbolizer, where->dso, where->address, &answer);
	/* A kernel address in a module answers with the module. */
	dso = answer.dso ? answer.dso : where->dso;
	symbol.dso = dso ? dso_short_name(dso) : where->kernel ? "[kernel.kallsyms]" : "[unknown]";
	file = !dso ? NULL : dso_is_kernel(dso) || dso_is_jit(dso) ? dso_short_name(dso) :
	       dso_path(dso);
	count = answer.frame_count ? answer.frame_count : 1;
	if (GROW(s, frame_ids, frame_id, s->frame_id_count + count) < 0)
		return -ENOMEM;
	a->first = s->frame_id_count;
	a->count = (uint32_t)count;
	for (size_t i = 0; i < count; i++) {
		const struct symbol_frame *f = answer.frame_count ? &answer.frames[i] : NULL;
		uint32_t id;

		symbol.name = f && f->function ? f->function : "[unknown]";
		symbol.resolved = f && f->function;
		symbol.inlined = f && f->inlined;
		id = frame_of(s, &symbol, file);
		if (!id)
			return -ENOMEM;
		s->frame_ids[s->frame_id_count++] = id;
	}
	return 0;
}

static const struct speedscope_address *address_of(struct speedscope *s,
						   const struct session_sample *sample,
						   uint64_t pc, int kernel)
{
	struct resolved_address where;
	struct speedscope_address key;
	struct prf_index_slot *slot;
	uint64_t hash;

	session_resolve(s->session, sample, pc, kernel, &where);
	if (!where.dso && !kernel)
		where.address = pc;	/* no map: the raw address */
	key = (struct speedscope_address){ .dso = where.dso, .address = where.address,
					   .kernel = kernel };
	/* Seeded, a field at a time: the addresses are the capture's (prf_hash_seed()). */
	hash = prf_hash_mix(prf_hash_mix(prf_hash_seed() ^ where.address) ^
			    (uintptr_t)where.dso << 1 ^ (uint64_t)!!kernel);
	slot = prf_index_place(&s->address_index, hash, address_equal, s, &key);
	if (slot && slot->id)
		return &s->addresses[slot->id - 1];
	if (!slot || GROW(s, addresses, address, s->address_count + 1) < 0)
		return NULL;
	if (symbolize(s, &key, &where) < 0)
		return NULL;
	s->addresses[s->address_count++] = key;
	prf_index_insert(&s->address_index, slot, hash, (uint32_t)s->address_count);
	return &s->addresses[s->address_count - 1];
}

/* ---- a sample's stack ---------------------------------------------------- */

static void push(struct speedscope *s, size_t *depth, uint32_t id)
{
	if (!id)
		s->error = -ENOMEM;
	else if (*depth < SPEEDSCOPE_MAX_STACK)
		s->stack[(*depth)++] = id;
}

static void push_address(struct speedscope *s, const struct session_sample *sample,
			 uint64_t pc, int kernel, size_t *depth)
{
	const struct speedscope_address *a = address_of(s, sample, pc, kernel);

	if (!a) {
		s->error = -ENOMEM;
		return;
	}
	for (uint32_t i = 0; i < a->count; i++)
		push(s, depth, s->frame_ids[a->first + i]);
}

/* Where an unwound user stack stops short: a frame of its own, as in the tree. */
static uint32_t marker_frame(struct speedscope *s, uint64_t marker)
{
	struct report_symbol symbol = {
		.name = marker == UNWIND_FRAME_TRUNCATED ? "[truncated]" : "[unknown]",
		.dso = "[unwind]",
		.resolved = 1,
	};

	return frame_of(s, &symbol, NULL);
}

/* The sample's frames, leaf first (frame index + 1); their count. */
static size_t build_stack(struct speedscope *s, const struct session_sample *sample)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;
	size_t depth = 0, frames = 0;

	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr,
				 prf_misc_is_kernel(sample->misc));
	while (frames < s->options.max_frames && prf_callchain_next(&walk, &frame)) {
		if (frame.marker) {
			if (frame.address == UNWIND_FRAME_TRUNCATED ||
			    frame.address == UNWIND_FRAME_UNKNOWN)
				push(s, &depth, marker_frame(s, frame.address));
			continue;
		}
		push_address(s, sample, frame.pc, frame.kernel, &depth);
		frames++;
	}
	/* No callchain, or only markers: the sample's ip is its leaf. */
	if (!frames) {
		size_t markers = depth;

		push_address(s, sample, sample->ip, prf_misc_is_kernel(sample->misc), &depth);
		/* Those frames are the leaf's: before the markers, which are outermost. */
		if (depth > markers) {
			uint32_t leaf[SPEEDSCOPE_MAX_STACK];
			size_t added = depth - markers;

			memcpy(leaf, s->stack + markers, added * sizeof(*leaf));
			memmove(s->stack + added, s->stack, markers * sizeof(*leaf));
			memcpy(s->stack, leaf, added * sizeof(*leaf));
		}
	}
	return depth;
}

/* ---- stacks and threads -------------------------------------------------- */

struct stack_key {
	const uint32_t *words;		/* root first */
	uint32_t depth;
};

static int stack_equal(const void *context, uint32_t id, const void *key)
{
	const struct speedscope *s = context;
	const struct speedscope_stack *t = &s->stacks[id - 1];
	const struct stack_key *k = key;

	return t->depth == k->depth &&
	       memcmp(s->stack_words + t->first, k->words, k->depth * sizeof(*k->words)) == 0;
}

/* The stack's index + 1, interned; 0 without memory. */
static uint32_t stack_of(struct speedscope *s, const uint32_t *words, size_t depth)
{
	struct stack_key key = { words, (uint32_t)depth };
	uint64_t hash = prf_hash_bytes(words, depth * sizeof(*words));
	struct prf_index_slot *slot = prf_index_place(&s->stack_index, hash, stack_equal, s, &key);

	if (slot && slot->id)
		return slot->id;
	if (!slot || GROW(s, stacks, stack, s->stack_count + 1) < 0 ||
	    GROW(s, stack_words, stack_word, s->stack_word_count + depth) < 0)
		return 0;
	memcpy(s->stack_words + s->stack_word_count, words, depth * sizeof(*words));
	s->stacks[s->stack_count++] = (struct speedscope_stack){ s->stack_word_count,
								 (uint32_t)depth };
	s->stack_word_count += depth;
	prf_index_insert(&s->stack_index, slot, hash, (uint32_t)s->stack_count);
	return (uint32_t)s->stack_count;
}

static int thread_equal(const void *context, uint32_t id, const void *key)
{
	const struct speedscope *s = context;
	const struct speedscope_thread *t = &s->threads[id - 1], *k = key;

	return t->host == k->host && t->pid == k->pid && t->tid == k->tid;
}

static struct speedscope_thread *thread_of(struct speedscope *s,
					   const struct session_sample *sample)
{
	struct speedscope_thread key = { .host = sample->host, .pid = sample->pid,
					 .tid = sample->tid, .comm = sample->comm,
					 .comm_time = sample->time };
	/* pid and tid are the capture's: seeded (prf_hash_seed()). */
	uint64_t hash = prf_hash_mix(prf_hash_mix(prf_hash_seed() ^
						  ((uint64_t)sample->pid << 32 | sample->tid)) ^
				     (uintptr_t)sample->host);
	struct prf_index_slot *slot = prf_index_place(&s->thread_index, hash, thread_equal, s,
						       &key);

	if (slot && slot->id) {
		struct speedscope_thread *t = &s->threads[slot->id - 1];

		if (sample->time >= t->comm_time) {
			t->comm = sample->comm;
			t->comm_time = sample->time;
		}
		return t;
	}
	if (!slot || GROW(s, threads, thread, s->thread_count + 1) < 0)
		return NULL;
	s->threads[s->thread_count++] = key;
	prf_index_insert(&s->thread_index, slot, hash, (uint32_t)s->thread_count);
	return &s->threads[s->thread_count - 1];
}

void speedscope_add(void *context, const struct session_sample *sample)
{
	struct speedscope *s = context;
	uint32_t root_first[SPEEDSCOPE_MAX_STACK];
	struct speedscope_thread *thread;
	uint64_t weight;
	size_t depth;
	uint32_t stack;

	/* Out of memory once, the file is not written: stop working. */
	if (s->error)
		return;
	depth = build_stack(s, sample);
	if (!depth || s->error)
		return;
	for (size_t i = 0; i < depth; i++)
		root_first[i] = s->stack[depth - 1 - i] - 1;
	stack = stack_of(s, root_first, depth);
	thread = stack ? thread_of(s, sample) : NULL;
	if (!thread) {
		s->error = -ENOMEM;
		return;
	}
	/* Nanoseconds for the time profiles, as the folded view weighs them; else samples. */
	weight = s->options.kind == REPORT_PROFILE_CPU ? 1 : sample->period;
	thread->total += weight;
	if (prf_ensure_mem((void **)&thread->runs, &thread->run_capacity, sizeof(*thread->runs),
			   thread->run_count + 1) < 0) {
		s->error = -ENOMEM;
		return;
	}
	thread->runs[thread->run_count++] = (struct speedscope_run){ sample->time, weight,
								     stack - 1 };
}
