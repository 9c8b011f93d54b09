/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_STACK_MEMO_H
#define PERFREC_REPORT_STACK_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include "stacks.h"

/*
 * Phase 1's shortcut for compact samples: the raw stack a recorded
 * callchain was counted as, by all that decided it (the callchain's
 * words, the host, the process and maps generation it was resolved in,
 * the sample's mode and keys, its ip where the chain has no frame to
 * give), so that the next sample alike, in any chunk, is counted without
 * a frame resolved: its words are compared, not resolved and hashed
 * three to a frame.  The format library's hash of the chain finds them.
 */
struct stack_memo_key {
	const uint64_t *chain;		/* as recorded; NULL: only the leaf counts */
	size_t chain_nr;
	uint64_t stack_hash;		/* the chain's (prf_stack_ref's) */
	const char *host;		/* a process-less sample's kernel is its host's */
	const void *process;
	uint64_t generation, ip;
	uint16_t misc;
	const struct raw_stack *keys;	/* the sort keys (chain_nr unused) */
};

struct stack_memo;

struct stack_memo *report_memo_new(void);
void report_memo_free(struct stack_memo *memo);
/*
 * The number in raw of the stack key was counted as, or -1; a memo is of
 * one table of raw stacks.
 */
int64_t report_memo_find(struct stack_memo *memo, const struct stack_table *raw,
			 const struct stack_memo_key *key);
/* key counted as number (report_stacks_add()'s in raw): 0, or -ENOMEM. */
int report_memo_add(struct stack_memo *memo, const struct stack_table *raw,
		    const struct stack_memo_key *key, uint32_t number);

#endif
