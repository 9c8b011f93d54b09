/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_OFFCPU_H
#define PERFRECD_OFFCPU_H

#include <stddef.h>
#include <stdint.h>
#include "format.h"

/*
 * Off-CPU recording (--off-cpu): a BPF program (offcpu.bpf.c) notes each
 * thread that leaves a CPU without being runnable and, for blocks of at
 * least min_ns, where it blocked, for how long and who woke it; the
 * events wait in a BPF ring buffer whose descriptor the collector polls.
 */
struct prd_offcpu;

struct prd_offcpu_config {
	uint64_t min_ns;		/* the threshold */
	uint32_t stack_user_size;	/* dwarf: user stack bytes; 0: frame pointers only */
	int kernel_callchain, user_callchain;
	size_t ring_bytes;		/* a power of two of pages; 0: the default */
};

/*
 * Loads and attaches the program.  0, or a negative errno with a one-line
 * message naming the cause (no BTF, no CAP_BPF, the verifier, built
 * without libbpf: -EOPNOTSUPP).
 */
int prd_offcpu_open(struct prd_offcpu **out, const struct prd_offcpu_config *config,
		    struct prf_error *error);
/*
 * The tracepoint where a blocked thread's user part is read as it
 * returns to user space: "rseq_update" where the kernel has it, else
 * "sys_exit" (every system call's).
 */
const char *prd_offcpu_resume_hook(const struct prd_offcpu *o);
/* Readable when the ring is a quarter full. */
int prd_offcpu_fd(const struct prd_offcpu *o);

/* emit's record points into a buffer that lives until emit returns. */
typedef int (*prd_offcpu_emit_fn)(void *context, const struct prf_off_cpu *record);
/* Hands every waiting event to emit.  The count, or a negative errno. */
int prd_offcpu_drain(struct prd_offcpu *o, prd_offcpu_emit_fn emit, void *context);
/* Events the ring had no room for, since open. */
uint64_t prd_offcpu_lost(const struct prd_offcpu *o);
void prd_offcpu_close(struct prd_offcpu *o);

#endif
