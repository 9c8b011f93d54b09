/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_UNWIND_H
#define PERFREC_REPORT_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "perfrec-format.h"
#include "session.h"

struct symbolizer;

/*
 * DWARF unwinding of user stacks recorded with PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER (perfrecd --call-graph dwarf), with libdw's CFI
 * rows kept per pc, and libdwfl's dwfl_getthread_frames where those do not do.
 * One Dwfl per process image, kept across samples (CFI is parsed once per
 * module), its modules reported again only when the process's map set
 * changes.  x86_64 only: other machines unwind nothing.
 */
struct unwinder;

/* Why a user stack ends where it does. */
enum unwind_end {
	UNWIND_COMPLETE,	/* the outermost frame (CFI: no return address) */
	UNWIND_TRUNCATED,	/* the stack copy (or the depth limit) ran out */
	UNWIND_UNKNOWN,		/* no CFI, an unmapped pc, a cycle, unreadable memory */
};

/* At most this many user frames; deeper stacks end UNWIND_TRUNCATED. */
#define UNWIND_MAX_FRAMES 512

/* NULL without memory, or for a machine other than x86_64. */
struct unwinder *unwinder_new(struct session *session, struct symbolizer *symbolizer,
			      const char *machine);
void unwinder_free(struct unwinder *unwinder);

/*
 * Whether decoded carries what unwinding needs: user registers of the
 * 64-bit ABI with IP and SP among them, and a user stack copy.
 */
int unwind_possible(const struct prf_sample *decoded);

/*
 * Unwinds the user stack of a sample: pcs[0] is the interrupted user ip,
 * the others return addresses (as in a callchain: a lookup wants
 * address - 1), at most capacity of them.  Returns how many, 0 when
 * nothing could be unwound; *end says why the stack stops there.
 */
size_t unwind_user_stack(struct unwinder *unwinder, const struct session_sample *sample,
			 const struct prf_sample *decoded, uint64_t *pcs, size_t capacity,
			 enum unwind_end *end);

/*
 * With PERFREC_UNWIND=check in the environment, every stack is unwound
 * both by the cached CFI rows and by libdwfl alone (whose answer is kept);
 * this prints to stderr how many stacks there were, how many the rows
 * followed, and how many of those came out different.  Nothing otherwise.
 * PERFREC_UNWIND=libdwfl leaves every stack to libdwfl.
 */
void unwinder_print_check(const struct unwinder *unwinder);

#endif
