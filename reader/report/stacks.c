/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Samples counted by raw stack (stacks.h): an array in the order met, hashed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "stacks.h"

struct stack_table {
	struct raw_stack *stacks;	/* in the order first met; id - 1 in index */
	size_t count, capacity;
	struct prf_index index;
	uint64_t *chains;		/* every stack's addresses, one after another */
	size_t chain_used, chain_capacity;
};

struct stack_table *report_stacks_new(void)
{
	return calloc(1, sizeof(struct stack_table));
}

void report_stacks_free(struct stack_table *t)
{
	if (!t)
		return;
	free(t->stacks);
	prf_index_free(&t->index);
	free(t->chains);
	free(t);
}

static uint64_t key_hash(const struct raw_stack *k, const uint64_t *chain)
{
	/* Seeded: pid and tid are the capture's (prf_hash_seed()). */
	uint64_t task = prf_hash_mix(prf_hash_seed() ^ ((uint64_t)k->pid << 32 | k->tid));
	uint64_t h = prf_hash_mix((uintptr_t)k->comm ^ task ^ k->chain_nr);

	if (k->host || k->unit || k->container || k->cgroup)
		h ^= prf_hash_mix((uintptr_t)k->host ^ (uintptr_t)k->unit << 1 ^
				  (uintptr_t)k->container << 2 ^ (uintptr_t)k->cgroup << 3);

	/* Cheap per word: the final mix spreads it. */
	for (uint32_t i = 0; i < k->chain_nr; i++)
		h = prf_stack_hash_step(h, chain[i]);
	return prf_hash_mix(h);
}

/* What a lookup compares: a stack's key, its addresses and its whole hash. */
struct stack_key {
	const struct raw_stack *key;
	const uint64_t *chain;
	uint64_t hash;
};

static int key_equal(const void *context, uint32_t id, const void *lookup)
{
	const struct stack_table *t = context;
	const struct stack_key *l = lookup;
	const struct raw_stack *s = &t->stacks[id - 1], *k = l->key;

	return s->hash == l->hash && s->comm == k->comm && s->pid == k->pid &&
	       s->tid == k->tid && s->host == k->host && s->unit == k->unit &&
	       s->container == k->container && s->cgroup == k->cgroup &&
	       s->chain_nr == k->chain_nr &&
	       (!k->chain_nr ||
		!memcmp(t->chains + s->chain_offset, l->chain, k->chain_nr * sizeof(*l->chain)));
}

static int64_t add_hashed(struct stack_table *t, const struct raw_stack *key, uint64_t hash,
			  const uint64_t *chain, uint64_t period, uint64_t samples)
{
	struct stack_key lookup = { key, chain, hash };
	struct prf_index_slot *slot = prf_index_place(&t->index, hash, key_equal, t, &lookup);
	struct raw_stack *s;

	if (!slot)
		return -ENOMEM;
	if (slot->id) {
		s = &t->stacks[slot->id - 1];
		s->period += period;
		s->samples += samples;
		return slot->id - 1;
	}
	if (t->count >= UINT32_MAX - 1 ||
	    prf_ensure_mem((void **)&t->stacks, &t->capacity, sizeof(*t->stacks),
			   t->count + 1) < 0 ||
	    prf_ensure_mem((void **)&t->chains, &t->chain_capacity, sizeof(*t->chains),
			   t->chain_used + key->chain_nr + 1) < 0)
		return -ENOMEM;
	s = &t->stacks[t->count];
	*s = *key;
	s->hash = hash;
	s->period = period;
	s->samples = samples;
	s->chain_offset = t->chain_used;
	if (key->chain_nr)
		memcpy(t->chains + t->chain_used, chain, key->chain_nr * sizeof(*chain));
	t->chain_used += key->chain_nr;
	prf_index_insert(&t->index, slot, hash, (uint32_t)++t->count);
	return (int64_t)t->count - 1;
}

int64_t report_stacks_add(struct stack_table *t, const struct raw_stack *key,
			  const uint64_t *chain, uint64_t period, uint64_t samples)
{
	return add_hashed(t, key, key_hash(key, chain), chain, period, samples);
}

void report_stacks_add_at(struct stack_table *t, size_t number, uint64_t period,
			  uint64_t samples)
{
	t->stacks[number].period += period;
	t->stacks[number].samples += samples;
}

int report_stacks_merge(struct stack_table *t, const struct stack_table *from, uint32_t *map)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct raw_stack *s = &from->stacks[i];
		int64_t number = add_hashed(t, s, s->hash, from->chains + s->chain_offset,
					    s->period, s->samples);

		if (number < 0)
			return -ENOMEM;
		if (map)
			map[i] = (uint32_t)number;
	}
	return 0;
}

size_t report_stacks_count(const struct stack_table *t)
{
	return t->count;
}

const struct raw_stack *report_stacks_at(const struct stack_table *t, size_t i,
					 const uint64_t **chain)
{
	*chain = t->chains + t->stacks[i].chain_offset;
	return &t->stacks[i];
}
