/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_UNWIND_RULES_H
#define PERFREC_UNWIND_RULES_H

/*
 * The CFI rows of one DSO, as unwind.c steps frames with them: looked up
 * with libdw once per pc, kept for the run.  Private to reader/unwind/.
 */
#include <stdint.h>
#include <elfutils/libdwfl.h>

/* x86_64's DWARF registers 0..15 and the return address column, 16. */
#define RULE_REGISTERS	17

enum register_rule {
	REGISTER_UNDEFINED,	/* call-clobbered: unknown in the caller */
	REGISTER_SAME,		/* the caller's value is this frame's */
	REGISTER_SAVED,		/* saved at CFA + offset */
	REGISTER_CFA_PLUS,	/* the value is CFA + offset */
};

struct frame_rule {
	uint64_t vaddr;			/* the key: an ELF address of the DSO */
	int32_t cfa_offset;
	uint8_t cfa_register;
	uint8_t return_register;
	uint8_t followable;		/* 0: only libdwfl can step this frame */
	uint8_t kind[RULE_REGISTERS];	/* enum register_rule */
	int32_t offset[RULE_REGISTERS];
};

struct frame_rules;

struct frame_rules *frame_rules_new(void);
void frame_rules_free(struct frame_rules *rules);

/*
 * The row for pc (an address in the process; vaddr the same in the DSO),
 * from the cache or from module's .eh_frame then .debug_frame, in the
 * order libdwfl tries them.  NULL without memory.  A row that is not
 * followable (no CFI there, a DWARF expression, a signal frame) is cached
 * as well, so the next sample gives up on it at once.
 */
const struct frame_rule *frame_rule_at(struct frame_rules *rules, Dwfl_Module *module,
				       uint64_t vaddr, uint64_t pc);

#endif
