/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=pprof, the samples: each sample's callchain becomes a stack of
 * Locations (pprof-location.c), and samples of equal stacks and labels
 * are one Sample with their counts and periods added.  Memory grows with
 * what is distinct (addresses, stacks, threads), not with the samples.
 *
 * Callers' entries of a callchain are return addresses; as in the other
 * views, the instruction before (address - 1, the call) is looked up,
 * and that is the Location's address, so symbolizing it again gives the
 * call's line, not the next one's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pprof-internal.h"
#include "unwind.h"

/* ---- builder ------------------------------------------------------------ */

struct pprof_builder *pprof_new(struct session *session, struct symbolizer *symbolizer,
				const struct pprof_options *options)
{
	struct pprof_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->options = *options;
	b->session = session;
	b->symbolizer = symbolizer;
	b->t.inline_frames = options->inline_frames;
	/* The table's first string is "", as profile.proto requires. */
	pprof_string_of(b, "");
	b->unknown_string = pprof_string_of(b, "[unknown]");
	if (b->error) {
		pprof_free(b);
		return NULL;
	}
	return b;
}

void pprof_free(struct pprof_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->t.string_count; i++)
		free(b->t.strings[i]);
	for (size_t i = 0; i < b->t.location_count; i++)
		free(b->t.locations[i].lines);
	free(b->t.strings);
	free(b->t.mappings);
	free(b->t.locations);
	free(b->t.functions);
	free(b->t.samples);
	free(b->t.stacks);
	free(b->location_keys);
	prf_index_free(&b->string_index);
	prf_index_free(&b->mapping_index);
	prf_index_free(&b->location_index);
	prf_index_free(&b->function_index);
	prf_index_free(&b->sample_index);
	free(b);
}

/* ---- samples --------------------------------------------------------------- */

static void push(struct pprof_builder *b, size_t *depth, uint32_t id)
{
	if (id && *depth < PPROF_MAX_STACK)
		b->stack[(*depth)++] = id;
}

/*
 * The sample's Locations, leaf first, from the frames build_stack() in
 * aggregate.c counts for the tree view (so the flat view's leaf is ours
 * too): contexts switch between kernel and user, a context's first entry
 * is where it was interrupted, the others are return addresses.
 */
static size_t build_stack(struct pprof_builder *b, const struct session_sample *sample)
{
	size_t depth = 0, frames = 0;
	struct prf_callchain_walk walk;
	struct prf_frame frame;

	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr,
				 prf_misc_is_kernel(sample->misc));
	while (frames < PPROF_MAX_FRAMES && prf_callchain_next(&walk, &frame)) {
		if (frame.marker) {
			if (frame.address == UNWIND_FRAME_TRUNCATED ||
			    frame.address == UNWIND_FRAME_UNKNOWN)
				push(b, &depth, pprof_marker_location(b, frame.address));
			continue;
		}
		push(b, &depth, pprof_location_of(b, sample, frame.pc, frame.kernel));
		frames++;
	}
	/* No callchain, or only markers: the sample's ip is its leaf. */
	if (!frames) {
		uint32_t leaf = pprof_location_of(b, sample, sample->ip,
						   prf_misc_is_kernel(sample->misc));

		if (leaf && depth < PPROF_MAX_STACK) {
			memmove(b->stack + 1, b->stack, depth * sizeof(*b->stack));
			b->stack[0] = leaf;
			depth++;
		}
	}
	return depth;
}

/* --focus: whether a function of that name is on the stack, inlined or not. */
static int stack_has(const struct pprof_builder *b, size_t depth, const char *name)
{
	for (size_t i = 0; i < depth; i++) {
		const struct pprof_location *l = &b->t.locations[b->stack[i] - 1];

		for (size_t j = 0; j < l->line_count; j++) {
			uint32_t f = l->lines[j].function;

			if (f && strcmp(b->t.strings[b->t.functions[f - 1].name], name) == 0)
				return 1;
		}
	}
	return 0;
}

struct sample_key {
	const uint32_t *stack;
	uint32_t depth, comm, event, pid, tid;
	uint32_t unit, container, ns_pid, ns_tid;
};

static int sample_equal(const void *context, uint32_t id, const void *key)
{
	const struct pprof_builder *b = context;
	const struct pprof_sample *s = &b->t.samples[id - 1];
	const struct sample_key *k = key;

	return s->depth == k->depth && s->comm == k->comm && s->event == k->event &&
	       s->pid == k->pid && s->tid == k->tid && s->unit == k->unit &&
	       s->container == k->container && s->ns_pid == k->ns_pid && s->ns_tid == k->ns_tid &&
	       memcmp(b->t.stacks + s->stack, k->stack, k->depth * sizeof(*k->stack)) == 0;
}

static struct pprof_sample *new_sample(struct pprof_builder *b, struct prf_index_slot *slot,
				       uint64_t hash, const struct sample_key *key)
{
	struct pprof_sample *s;

	if (PPROF_GROW(b, samples, sample) < 0)
		return NULL;
	while (b->stack_capacity - b->stack_size < key->depth) {
		size_t capacity = b->stack_capacity ? 2 * b->stack_capacity : 4096;
		uint32_t *grown = reallocarray(b->t.stacks, capacity, sizeof(*grown));

		if (!grown)
			return NULL;
		b->t.stacks = grown;
		b->stack_capacity = capacity;
	}
	memcpy(b->t.stacks + b->stack_size, key->stack, key->depth * sizeof(*key->stack));
	s = &b->t.samples[b->t.sample_count++];
	memset(s, 0, sizeof(*s));
	s->stack = b->stack_size;
	s->depth = key->depth;
	s->comm = key->comm;
	s->event = key->event;
	s->pid = key->pid;
	s->tid = key->tid;
	s->unit = key->unit;
	s->container = key->container;
	s->ns_pid = key->ns_pid;
	s->ns_tid = key->ns_tid;
	b->stack_size += key->depth;
	prf_index_insert(&b->sample_index, slot, hash, (uint32_t)b->t.sample_count);
	return s;
}

void pprof_add(void *context, const struct session_sample *sample)
{
	struct pprof_builder *b = context;
	struct sample_key key = { .stack = b->stack, .pid = sample->pid, .tid = sample->tid,
				  .ns_pid = sample->ns_pid, .ns_tid = sample->ns_tid };
	struct pprof_sample *s;
	struct prf_index_slot *slot;
	uint64_t hash;

	/* Out of memory once, the profile is not written: stop working. */
	if (b->error)
		return;
	key.depth = (uint32_t)build_stack(b, sample);
	if (!key.depth || b->error)
		return;
	if (b->options.focus && !stack_has(b, key.depth, b->options.focus))
		return;
	key.comm = sample->comm ? pprof_string_of(b, sample->comm) : b->unknown_string;
	if (b->options.event_label && sample->event && sample->event->name)
		key.event = pprof_string_of(b, sample->event->name);
	if (sample->unit)
		key.unit = pprof_string_of(b, sample->unit);
	if (sample->container)
		key.container = pprof_string_of(b, sample->container);
	/* pid and tid are the capture's: seeded (prf_hash_seed()). */
	hash = prf_hash_bytes(key.stack, key.depth * sizeof(*key.stack)) ^
	       prf_hash_mix((uint64_t)key.comm << 32 | key.event) ^
	       prf_hash_mix((uint64_t)key.unit << 32 | key.container) ^
	       prf_hash_mix(prf_hash_seed() ^ ((uint64_t)key.pid << 32 | key.tid));
	slot = prf_index_place(&b->sample_index, hash, sample_equal, b, &key);
	if (slot && !slot->id)
		s = new_sample(b, slot, hash, &key);
	else
		s = slot ? &b->t.samples[slot->id - 1] : NULL;
	if (!s || b->error) {
		b->error = -ENOMEM;
		return;
	}
	s->count++;
	s->period += sample->period;
}
