/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_STACK_MEMO_H
#define PERFREC_REPORT_STACK_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include "stacks.h"

/*
 * Phase 1's shortcut for compact samples: what the last sample of each of
 * a chunk's stacks was counted as, with what decided it (its process and
 * maps generation, its keys, and its ip where the chain had no frame to
 * give), so that the next sample of that stack alike is counted into the
 * same raw stack without a frame resolved or hashed.  A chunk's samples come in a few hundred stacks, each many
 * times over; by the chunk's own numbers, one entry a stack.
 */
struct stack_memo_key {
	uint64_t chunk;			/* session_sample's */
	uint32_t stack;			/* the chunk's number of its callchain, 1.. */
	const void *process;
	uint64_t generation, ip;
	uint16_t misc;
	const struct raw_stack *keys;	/* the sort keys (chain_nr unused) */
	int by_ip;			/* adding: the stack was its ip's (no frame in the chain) */
};

struct stack_memo;

struct stack_memo *report_memo_new(void);
void report_memo_free(struct stack_memo *memo);
/* The raw stack number key was counted as, or -1. */
int64_t report_memo_find(struct stack_memo *memo, const struct stack_memo_key *key);
/* key counted as number (report_stacks_add()'s): 0, or -ENOMEM. */
int report_memo_add(struct stack_memo *memo, const struct stack_memo_key *key, uint32_t number);

#endif
