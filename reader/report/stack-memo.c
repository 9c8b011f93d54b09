/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A chunk's stacks to the raw stacks their samples were counted as (stack-memo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "stack-memo.h"

struct memo_entry {
	uint64_t chunk;			/* 0: empty */
	const void *process;
	uint64_t generation, ip;
	uint16_t misc;
	int by_ip;
	struct raw_stack keys;
	uint32_t number;
};

/*
 * By stack number, which the format library checked against the chunk's
 * table: no more entries than a chunk has stacks.  A new chunk's samples
 * find the last one's entries stale by their chunk; none is cleared.
 */
struct stack_memo {
	struct memo_entry *entries;
	size_t capacity;
};

struct stack_memo *report_memo_new(void)
{
	return calloc(1, sizeof(struct stack_memo));
}

void report_memo_free(struct stack_memo *m)
{
	if (m)
		free(m->entries);
	free(m);
}

static int same_keys(const struct raw_stack *x, const struct raw_stack *y)
{
	return x->comm == y->comm && x->pid == y->pid && x->tid == y->tid &&
	       x->host == y->host && x->unit == y->unit && x->container == y->container &&
	       x->cgroup == y->cgroup && x->ns_pid == y->ns_pid && x->ns_tid == y->ns_tid;
}

int64_t report_memo_find(struct stack_memo *m, const struct stack_memo_key *k)
{
	const struct memo_entry *e;

	if (k->stack >= m->capacity)
		return -1;
	e = &m->entries[k->stack];
	if (e->chunk != k->chunk || e->process != k->process || e->generation != k->generation ||
	    (e->by_ip && e->ip != k->ip) || e->misc != k->misc || !same_keys(&e->keys, k->keys))
		return -1;
	return e->number;
}

int report_memo_add(struct stack_memo *m, const struct stack_memo_key *k, uint32_t number)
{
	if (k->stack >= m->capacity) {
		size_t capacity = m->capacity;

		if (prf_ensure_mem((void **)&m->entries, &capacity, sizeof(*m->entries),
				   (size_t)k->stack + 1) < 0)
			return -ENOMEM;
		memset(m->entries + m->capacity, 0,
		       (capacity - m->capacity) * sizeof(*m->entries));
		m->capacity = capacity;
	}
	m->entries[k->stack] = (struct memo_entry){
		.chunk = k->chunk, .process = k->process, .generation = k->generation,
		.ip = k->ip, .misc = k->misc, .by_ip = k->by_ip, .keys = *k->keys,
		.number = number,
	};
	return 0;
}
