/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_STACK_MEMO_H
#define PERFREC_REPORT_STACK_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include "stacks.h"

/*
 * Phase 1's shortcut for compact samples: the raw stack a recorded
 * callchain was counted as, by what decided it (the callchain's hash,
 * the process and maps generation it was resolved in, the sample's mode,
 * keys, and its ip where the chain gave no frame), so that the next
 * sample alike, in any chunk, is counted without a frame resolved or
 * hashed.  The hash is the format library's identity of a callchain
 * (prf_stack_ref): equal for equal callchains in any chunk and file.
 */
struct stack_memo_key {
	uint64_t stack_hash;
	const void *process;
	uint64_t generation, ip;
	uint16_t misc;
	const struct raw_stack *keys;	/* the sort keys (chain_nr unused) */
	int by_ip;			/* adding: the stack was its ip's (no frame in the chain) */
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
