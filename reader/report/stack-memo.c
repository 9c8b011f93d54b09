/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Recorded callchains to the raw stacks their samples were counted as (stack-memo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "stack-memo.h"

/* The keys are the raw stack's own, compared there: an entry is 40 bytes. */
struct memo_entry {
	uint64_t stack_hash;
	const void *process;
	uint64_t generation, ip;
	uint16_t misc;
	uint8_t by_ip;
	uint32_t number;
};

/* As many entries as raw stacks at most, times the processes that share one. */
struct stack_memo {
	struct memo_entry *entries;
	size_t count, capacity;
	struct prf_index index;
	const struct stack_table *raw;	/* the one being looked up in */
};

struct stack_memo *report_memo_new(void)
{
	return calloc(1, sizeof(struct stack_memo));
}

void report_memo_free(struct stack_memo *m)
{
	if (!m)
		return;
	free(m->entries);
	prf_index_free(&m->index);
	free(m);
}

/* Not of the ip: whether it counts is the entry's to say. */
static uint64_t key_hash(const struct stack_memo_key *k)
{
	const struct raw_stack *s = k->keys;
	uint64_t h = prf_hash_mix(k->stack_hash ^ prf_hash_mix((uintptr_t)k->process) ^
				  prf_hash_mix(k->generation << 16 | k->misc));

	h ^= prf_hash_mix((uintptr_t)s->comm ^ ((uint64_t)s->pid << 32 | s->tid));
	if (s->host || s->unit || s->container || s->cgroup)
		h ^= prf_hash_mix((uintptr_t)s->host ^ (uintptr_t)s->unit << 1 ^
				  (uintptr_t)s->container << 2 ^ (uintptr_t)s->cgroup << 3);
	return prf_hash_mix(h);
}

static int same_keys(const struct raw_stack *x, const struct raw_stack *y)
{
	return x->comm == y->comm && x->pid == y->pid && x->tid == y->tid &&
	       x->host == y->host && x->unit == y->unit && x->container == y->container &&
	       x->cgroup == y->cgroup && x->ns_pid == y->ns_pid && x->ns_tid == y->ns_tid;
}

static int key_equal(const void *context, uint32_t id, const void *key)
{
	const struct stack_memo *m = context;
	const struct memo_entry *e = &m->entries[id - 1];
	const struct stack_memo_key *k = key;
	const uint64_t *chain;

	return e->stack_hash == k->stack_hash && e->process == k->process &&
	       e->generation == k->generation && e->misc == k->misc &&
	       (!e->by_ip || e->ip == k->ip) &&
	       same_keys(report_stacks_at(m->raw, e->number, &chain), k->keys);
}

int64_t report_memo_find(struct stack_memo *m, const struct stack_table *raw,
			 const struct stack_memo_key *key)
{
	uint32_t id;

	m->raw = raw;
	id = prf_index_lookup(&m->index, key_hash(key), key_equal, m, key);
	return id ? (int64_t)m->entries[id - 1].number : -1;
}

int report_memo_add(struct stack_memo *m, const struct stack_table *raw,
		    const struct stack_memo_key *key, uint32_t number)
{
	uint64_t hash = key_hash(key);
	struct prf_index_slot *slot;

	m->raw = raw;
	slot = prf_index_place(&m->index, hash, key_equal, m, key);

	if (!slot || m->count >= UINT32_MAX - 1 ||
	    prf_ensure_mem((void **)&m->entries, &m->capacity, sizeof(*m->entries),
			   m->count + 1) < 0)
		return -ENOMEM;
	if (slot->id)
		return 0;
	m->entries[m->count] = (struct memo_entry){
		.stack_hash = key->stack_hash, .process = key->process,
		.generation = key->generation, .ip = key->ip, .misc = key->misc,
		.by_ip = (uint8_t)key->by_ip, .number = number,
	};
	prf_index_insert(&m->index, slot, hash, (uint32_t)++m->count);
	return 0;
}
