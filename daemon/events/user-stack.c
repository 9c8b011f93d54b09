/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What --call-graph dwarf asks of the kernel.  perf asks for every
 * register the architecture has (PERF_REGS_MASK); perfrecd asks for the
 * ones call frame information can name, since each costs 8 bytes in every
 * sample, and keeps IP and SP, without which no unwinder can start.
 */
#include <errno.h>
#include <stdio.h>
#include "format.h"
#include "user-stack.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>

/*
 * The 16 general-purpose registers and IP (DWARF registers 0-16, what an
 * x86_64 unwinder's initial frame holds).  The callee-saved BX, BP and
 * R12-R15 are what CFI restores in callers; the others can be the CFA's
 * base register in a frame that realigns its stack (gcc's DRAP uses R10)
 * or in hand-written assembly.  FLAGS, CS and SS never appear in CFI (the
 * sample's abi tells 64-bit from 32-bit code), and the kernel refuses DS,
 * ES, FS and GS on x86_64.  17 registers: 136 bytes a sample, 24 less
 * than perf's mask.
 */
#define REG(name)	(1ULL << PERF_REG_X86_##name)
static const uint64_t regs_mask =
	REG(AX) | REG(BX) | REG(CX) | REG(DX) | REG(SI) | REG(DI) | REG(BP) |
	REG(SP) | REG(IP) | REG(R8) | REG(R9) | REG(R10) | REG(R11) |
	REG(R12) | REG(R13) | REG(R14) | REG(R15);
#undef REG

#elif defined(__aarch64__)
#include <asm/perf_regs.h>

/* X0-X30, SP and PC: CFI may name any X register, X29 and X30 most. */
static const uint64_t regs_mask = (1ULL << PERF_REG_ARM64_MAX) - 1;

#else
static const uint64_t regs_mask = 0;
#endif

int prd_user_stack_configure(struct perf_event_attr *attr, uint32_t stack_size,
			     struct prf_error *error)
{
	if (!regs_mask)
		return prf_set_error(error, -EOPNOTSUPP,
				     "--call-graph dwarf is not supported on this architecture (no register mask for it); use fp");
	attr->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER;
	attr->sample_regs_user = regs_mask;
	attr->sample_stack_user = stack_size;
	/* The user part comes from unwinding the copy, as perf does it. */
	attr->exclude_callchain_user = 1;
	return 0;
}

size_t prd_user_stack_record_bytes(uint64_t mask, uint32_t stack_size)
{
	/* abi and registers; size, data and dyn_size */
	return 8 + 8 * (size_t)__builtin_popcountll(mask) + 16 + stack_size;
}
