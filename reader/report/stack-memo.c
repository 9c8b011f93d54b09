/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Recorded callchains to the raw stacks their samples were counted as (stack-memo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "format.h"
#include "stack-memo.h"

/* The keys are the raw stack's own, compared there. */
struct memo_entry {
	uint64_t stack_hash;
	const char *host;
	const void *process;
	uint64_t generation, ip;
	size_t chain_offset, chain_nr;
	uint32_t number;
	uint16_t misc;
	uint8_t leaf_only, by_ip;
};

/* As many entries as raw stacks at most, times the processes that share one. */
struct stack_memo {
	struct memo_entry *entries;
	size_t count, capacity;
	struct prf_index index;
	uint64_t *chains;		/* the entries' callchains, one after another */
	size_t chain_used, chain_capacity;
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
	free(m->chains);
	free(m);
}

/* As the aggregator resolves a chain: from its ip where it gives no frame. */
static int by_ip(const struct stack_memo_key *k)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;

	if (!k->chain)
		return 1;
	prf_callchain_walk_start(&walk, k->chain, k->chain_nr, 0);
	while (prf_callchain_next(&walk, &frame))
		if (!frame.marker)
			return 0;
	return 1;
}

/* Seeded (prf_hash_seed()): a file cannot make its stacks share a slot. */
static uint64_t key_hash(const struct stack_memo_key *k, int ip)
{
	const struct raw_stack *s = k->keys;
	uint64_t h = prf_hash_mix(prf_hash_seed() ^ k->stack_hash);

	h = prf_hash_mix(h ^ (uintptr_t)k->process ^ (uintptr_t)k->host << 1);
	h = prf_hash_mix(h ^ (k->generation << 16 | k->misc));
	h = prf_hash_mix(h ^ (uintptr_t)s->comm ^ ((uint64_t)s->pid << 32 | s->tid));
	if (s->host || s->unit || s->container || s->cgroup)
		h = prf_hash_mix(h ^ (uintptr_t)s->host ^ (uintptr_t)s->unit << 1 ^
				 (uintptr_t)s->container << 2 ^ (uintptr_t)s->cgroup << 3);
	return ip ? prf_hash_mix(h ^ k->ip) : h;
}

static int same_keys(const struct raw_stack *x, const struct raw_stack *y)
{
	return x->comm == y->comm && x->pid == y->pid && x->tid == y->tid &&
	       x->host == y->host && x->unit == y->unit && x->container == y->container &&
	       x->cgroup == y->cgroup && x->ns_pid == y->ns_pid && x->ns_tid == y->ns_tid;
}

struct lookup {
	const struct stack_memo_key *key;
	int by_ip;
};

static int key_equal(const void *context, uint32_t id, const void *lookup)
{
	const struct stack_memo *m = context;
	const struct memo_entry *e = &m->entries[id - 1];
	const struct lookup *l = lookup;
	const struct stack_memo_key *k = l->key;
	const uint64_t *chain;

	return e->stack_hash == k->stack_hash && e->process == k->process &&
	       e->host == k->host && e->generation == k->generation && e->misc == k->misc &&
	       e->leaf_only == !k->chain && e->by_ip == l->by_ip &&
	       (!e->by_ip || e->ip == k->ip) && e->chain_nr == (k->chain ? k->chain_nr : 0) &&
	       (!e->chain_nr ||
		!memcmp(m->chains + e->chain_offset, k->chain, e->chain_nr * sizeof(*k->chain))) &&
	       same_keys(report_stacks_at(m->raw, e->number, &chain), k->keys);
}

int64_t report_memo_find(struct stack_memo *m, const struct stack_table *raw,
			 const struct stack_memo_key *key)
{
	struct lookup l = { key, by_ip(key) };
	uint32_t id;

	m->raw = raw;
	id = prf_index_lookup(&m->index, key_hash(key, l.by_ip), key_equal, m, &l);
	return id ? (int64_t)m->entries[id - 1].number : -1;
}

int report_memo_add(struct stack_memo *m, const struct stack_table *raw,
		    const struct stack_memo_key *key, uint32_t number)
{
	struct lookup l = { key, by_ip(key) };
	uint64_t hash = key_hash(key, l.by_ip);
	size_t chain_nr = key->chain ? key->chain_nr : 0;
	struct prf_index_slot *slot;

	m->raw = raw;
	slot = prf_index_place(&m->index, hash, key_equal, m, &l);
	if (!slot || m->count >= UINT32_MAX - 1 ||
	    prf_ensure_mem((void **)&m->entries, &m->capacity, sizeof(*m->entries),
			   m->count + 1) < 0 ||
	    prf_ensure_mem((void **)&m->chains, &m->chain_capacity, sizeof(*m->chains),
			   m->chain_used + chain_nr + 1) < 0)
		return -ENOMEM;
	if (slot->id)
		return 0;
	m->entries[m->count] = (struct memo_entry){
		.stack_hash = key->stack_hash, .host = key->host, .process = key->process,
		.generation = key->generation, .ip = key->ip, .chain_offset = m->chain_used,
		.chain_nr = chain_nr, .number = number, .misc = key->misc,
		.leaf_only = !key->chain, .by_ip = (uint8_t)l.by_ip,
	};
	if (chain_nr)
		memcpy(m->chains + m->chain_used, key->chain, chain_nr * sizeof(*key->chain));
	m->chain_used += chain_nr;
	prf_index_insert(&m->index, slot, hash, (uint32_t)++m->count);
	return 0;
}
