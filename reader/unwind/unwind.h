/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_UNWIND_H
#define PERFREC_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "format.h"
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

/* At most this many user frames; deeper stacks end with UNWIND_FRAME_TRUNCATED. */
#define UNWIND_MAX_FRAMES 512

/*
 * Markers a callchain of an unwound sample may end with, after its user
 * frames: where the unwinder stopped.  They lie among the PERF_CONTEXT_*
 * values, where the kernel puts nothing, so code that does not know them
 * skips them as it skips a context.
 */
#define UNWIND_FRAME_TRUNCATED	((uint64_t)-4000)	/* the stack copy ran out */
#define UNWIND_FRAME_UNKNOWN	((uint64_t)-4001)	/* the unwinder could not go on */

/* NULL without memory. */
struct unwinder *unwinder_new(struct session *session, struct symbolizer *symbolizer);
void unwinder_free(struct unwinder *unwinder);

/*
 * session_for_each_sample() with the user stacks unwound: a sample with
 * user registers and a stack copy (perfrecd --call-graph dwarf) gets a
 * callchain of its recorded kernel part (before any PERF_CONTEXT_USER),
 * then PERF_CONTEXT_USER and the unwound user frames, then a marker when
 * the unwinder stopped short, so the views need not know it was unwound.
 * Other samples pass as recorded, and so do all of a capture of another
 * machine than x86_64 (the session warns once).
 *
 * With PERFREC_UNWIND=check in the environment, every stack is unwound
 * both by the cached CFI rows and by libdwfl alone (whose answer is
 * kept), and the end prints to stderr how many stacks there were, how
 * many the rows followed, and how many of those came out different.
 * PERFREC_UNWIND=libdwfl leaves every stack to libdwfl.
 */
int unwinder_for_each_sample(struct unwinder *unwinder, const struct session_filter *filter,
			     session_sample_fn fn, void *context);

#endif
