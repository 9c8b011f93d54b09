/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_USER_STACK_H
#define PERFRECD_USER_STACK_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * --call-graph dwarf: each sample carries the user registers and a copy of
 * the top of the user stack, for perfrec-report to unwind with the
 * binaries' CFI.  The kernel still walks the kernel part of the callchain.
 */

/*
 * Sets attr up for dwarf callchains with stack_size bytes of stack per
 * sample (a multiple of 8, at most STACK_USER_SIZE_MAX).  Returns 0, or
 * -EOPNOTSUPP with a one-line message when this architecture has no mask.
 */
struct prf_error;
int prd_user_stack_configure(struct perf_event_attr *attr, uint32_t stack_size,
			     struct prf_error *error);

/* The most bytes of a sample that regs and stack add in the ring. */
size_t prd_user_stack_record_bytes(uint64_t regs_mask, uint32_t stack_size);

#endif
