/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Samples counted by raw stack (stacks.h): an array in the order met, hashed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "stacks.h"

struct stack_table {
	struct raw_stack *stacks;	/* in the order first met */
	size_t count, capacity;
	uint32_t *index;		/* open addressing: 1 + position in stacks, 0 empty */
	size_t index_capacity;
	uint64_t *chains;		/* every stack's addresses, one after another */
	size_t chain_used, chain_capacity;
};

struct stack_table *stack_table_new(void)
{
	struct stack_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->index_capacity = 1024;
	t->index = calloc(t->index_capacity, sizeof(*t->index));
	if (!t->index) {
		free(t);
		return NULL;
	}
	return t;
}

void stack_table_free(struct stack_table *t)
{
	if (!t)
		return;
	free(t->stacks);
	free(t->index);
	free(t->chains);
	free(t);
}

static uint64_t key_hash(const struct raw_stack *k, const uint64_t *chain)
{
	uint64_t h = hash_mix((uintptr_t)k->comm ^ hash_mix(((uint64_t)k->pid << 32 | k->tid) + 1) ^
			      k->chain_nr);

	if (k->host || k->unit || k->container || k->cgroup)
		h ^= hash_mix((uintptr_t)k->host ^ (uintptr_t)k->unit << 1 ^
			      (uintptr_t)k->container << 2 ^ (uintptr_t)k->cgroup << 3);

	/* Cheap per word: the final mix spreads it. */
	for (uint32_t i = 0; i < k->chain_nr; i++)
		h = ((h ^ chain[i]) * 0x9e3779b97f4a7c15ull) ^ (h >> 29);
	return hash_mix(h);
}

static int key_equal(const struct stack_table *t, const struct raw_stack *s,
		     const struct raw_stack *k, const uint64_t *chain)
{
	return s->comm == k->comm && s->pid == k->pid && s->tid == k->tid &&
	       s->host == k->host && s->unit == k->unit && s->container == k->container &&
	       s->cgroup == k->cgroup && s->chain_nr == k->chain_nr &&
	       (!k->chain_nr ||
		!memcmp(t->chains + s->chain_offset, chain, k->chain_nr * sizeof(*chain)));
}

static int grow_index(struct stack_table *t)
{
	size_t capacity = t->index_capacity * 2;
	uint32_t *index = calloc(capacity, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < t->count; i++) {
		size_t k = t->stacks[i].hash & (capacity - 1);

		while (index[k])
			k = (k + 1) & (capacity - 1);
		index[k] = (uint32_t)(i + 1);
	}
	free(t->index);
	t->index = index;
	t->index_capacity = capacity;
	return 0;
}

static int grow(void **array, size_t *capacity, size_t need, size_t element)
{
	size_t n = *capacity ? *capacity : 256;
	void *grown;

	if (need <= *capacity)
		return 0;
	while (n < need)
		n *= 2;
	grown = reallocarray(*array, n, element);
	if (!grown)
		return -ENOMEM;
	*array = grown;
	*capacity = n;
	return 0;
}

static int add_hashed(struct stack_table *t, const struct raw_stack *key, uint64_t hash,
		      const uint64_t *chain, uint64_t period, uint64_t samples)
{
	struct raw_stack *s;
	size_t k;

	if (t->count * 2 >= t->index_capacity &&
	    (t->count >= UINT32_MAX - 1 || grow_index(t) < 0))
		return -ENOMEM;
	k = hash & (t->index_capacity - 1);
	while (t->index[k]) {
		s = &t->stacks[t->index[k] - 1];
		if (s->hash == hash && key_equal(t, s, key, chain)) {
			s->period += period;
			s->samples += samples;
			return 0;
		}
		k = (k + 1) & (t->index_capacity - 1);
	}
	if (grow((void **)&t->stacks, &t->capacity, t->count + 1, sizeof(*t->stacks)) < 0 ||
	    grow((void **)&t->chains, &t->chain_capacity, t->chain_used + key->chain_nr + 1,
		 sizeof(*t->chains)) < 0)
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
	t->index[k] = (uint32_t)++t->count;
	return 0;
}

int stack_table_add(struct stack_table *t, const struct raw_stack *key, const uint64_t *chain,
		    uint64_t period, uint64_t samples)
{
	return add_hashed(t, key, key_hash(key, chain), chain, period, samples);
}

int stack_table_merge(struct stack_table *t, const struct stack_table *from)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct raw_stack *s = &from->stacks[i];

		if (add_hashed(t, s, s->hash, from->chains + s->chain_offset, s->period,
			       s->samples) < 0)
			return -ENOMEM;
	}
	return 0;
}

size_t stack_table_count(const struct stack_table *t)
{
	return t->count;
}

const struct raw_stack *stack_table_at(const struct stack_table *t, size_t i,
				       const uint64_t **chain)
{
	*chain = t->chains + t->stacks[i].chain_offset;
	return &t->stacks[i];
}
