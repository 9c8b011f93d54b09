/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_STACKS_H
#define PERFREC_REPORT_STACKS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The aggregation's first phase: samples counted by their stack, each
 * address resolved through the replayed maps to (DSO, offset), before
 * anything is symbolized.  A capture repeats a few thousand stacks a
 * million times; the second phase (aggregate.c) symbolizes and counts
 * each distinct one once, with its weight.  The key holds the frames and
 * the sort keys: two samples of one key would have given the same report
 * rows one by one.  Tables of several threads merge.
 */
struct raw_stack {
	/*
	 * The sort keys the report asks for (0/NULL when not asked).  A new
	 * key is a field here, set by the aggregator, and compared in
	 * stacks.c.
	 */
	const char *comm;
	uint32_t pid, tid;
	const char *host, *unit, *container, *cgroup;	/* interned */
	uint32_t ns_pid, ns_tid;	/* with pid, tid: not keys, a task has one */
	/* The stack, as many words as the aggregator makes of its frames. */
	uint32_t chain_nr;
	/* The counts. */
	uint64_t period, samples;
	/* The table's own. */
	uint64_t hash;
	size_t chain_offset;
};

struct stack_table;

struct stack_table *report_stacks_new(void);
void report_stacks_free(struct stack_table *table);

/*
 * Counts period and samples for key's stack, whose chain_nr addresses are
 * chain (copied when new).  Its number in the table (the i of
 * report_stacks_at()), or -ENOMEM.
 */
int64_t report_stacks_add(struct stack_table *table, const struct raw_stack *key,
			  const uint64_t *chain, uint64_t period, uint64_t samples);

/* Counts period and samples for the stack number (report_stacks_add()'s) is. */
void report_stacks_add_at(struct stack_table *table, size_t number, uint64_t period,
			  uint64_t samples);

/*
 * Adds every stack of from to table; with map (from's count of them),
 * each one's number in table at its number in from.  0 or -ENOMEM.
 */
int report_stacks_merge(struct stack_table *table, const struct stack_table *from,
			uint32_t *map);

size_t report_stacks_count(const struct stack_table *table);
/* The i-th distinct stack, in the order first met, and its addresses. */
const struct raw_stack *report_stacks_at(const struct stack_table *table, size_t i,
					 const uint64_t **chain);

#endif
