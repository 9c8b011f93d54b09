/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CFI rows kept per pc.  libdwfl asks libdw for the row of every frame of
 * every sample: find the FDE, run the CIE's and the FDE's instructions up
 * to the pc, allocate a frame state, turn each register's rule into a
 * DWARF expression and evaluate it.  Sampled stacks repeat the same few
 * thousand return addresses, so unwind.c asks for each row once, here,
 * and keeps it in the plain form below: on x86_64 nearly every row is
 * "CFA = register + offset; each register undefined, unchanged, saved at
 * CFA + offset, or CFA + offset".  Rows that are anything else are kept
 * as not followable and unwind.c leaves those samples to libdwfl.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "rules.h"

/* Beyond this many rows a DSO's table stops growing; later rows are looked up each time. */
#define ROWS_MAX	(1u << 20)

struct frame_rules {
	struct frame_rule *rows;	/* by vaddr in index */
	size_t count, capacity;
	struct prf_index index;
	struct frame_rule scratch;	/* a row the full table could not take */
};

struct frame_rules *frame_rules_new(void)
{
	return calloc(1, sizeof(struct frame_rules));
}

void frame_rules_free(struct frame_rules *rules)
{
	if (!rules)
		return;
	free(rules->rows);
	prf_index_free(&rules->index);
	free(rules);
}

static int row_equal(const void *context, uint32_t id, const void *key)
{
	return ((const struct frame_rules *)context)->rows[id - 1].vaddr == *(const uint64_t *)key;
}

static int fits_int32(int64_t value)
{
	return value >= INT32_MIN && value <= INT32_MAX;
}

/*
 * One register's rule, from the expression libdw makes of it: nothing
 * (undefined or same value), DW_OP_call_frame_cfa with an optional
 * DW_OP_plus_uconst (an offset, negative ones wrapped), and a trailing
 * DW_OP_stack_value for a value rather than a location.
 */
static int take_register(Dwarf_Frame *frame, int regno, struct frame_rule *row)
{
	Dwarf_Op ops_mem[3], *ops;
	size_t nops, i = 1;
	int64_t offset = 0;
	int value = 0;

	if (dwarf_frame_register(frame, regno, ops_mem, &ops, &nops) != 0)
		return 0;
	if (nops == 0) {
		if (ops && ops != ops_mem)
			return 0;
		row->kind[regno] = ops ? REGISTER_UNDEFINED : REGISTER_SAME;
		return 1;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		offset = (int64_t)ops[i++].number;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		value = 1;
		i++;
	}
	if (i != nops || !fits_int32(offset))
		return 0;
	row->kind[regno] = value ? REGISTER_CFA_PLUS : REGISTER_SAVED;
	row->offset[regno] = (int32_t)offset;
	return 1;
}

static int take_frame_state(Dwarf_Frame *frame, struct frame_rule *row)
{
	Dwarf_Op *ops;
	size_t nops;
	bool signal;
	int ra = dwarf_frame_info(frame, NULL, NULL, &signal);

	/* A signal frame's caller is an exact pc, not a return address: libdwfl's. */
	if (ra < 0 || ra >= RULE_REGISTERS || signal)
		return 0;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || ops[0].number >= RULE_REGISTERS ||
	    !fits_int32((int64_t)ops[0].number2))
		return 0;
	row->return_register = (uint8_t)ra;
	row->cfa_register = (uint8_t)ops[0].number;
	row->cfa_offset = (int32_t)(int64_t)ops[0].number2;
	for (int regno = 0; regno < RULE_REGISTERS; regno++)
		if (!take_register(frame, regno, row))
			return 0;
	return 1;
}

/* A row from libdw, tried in libdwfl's order: .eh_frame, then .debug_frame. */
static void look_up(Dwfl_Module *module, uint64_t pc, struct frame_rule *row)
{
	for (int debug = 0; debug <= 1; debug++) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfi = debug ? dwfl_module_dwarf_cfi(module, &bias) :
					 dwfl_module_eh_cfi(module, &bias);
		Dwarf_Frame *frame;

		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
			continue;
		/* libdwfl goes with the first row found, whatever it says. */
		row->followable = take_frame_state(frame, row);
		free(frame);
		return;
	}
}

const struct frame_rule *frame_rule_at(struct frame_rules *rules, Dwfl_Module *module,
				       uint64_t vaddr, uint64_t pc)
{
	uint64_t h = prf_hash_mix(prf_hash_seed() ^ vaddr);	/* vaddr: the capture's */
	struct prf_index_slot *slot = NULL;
	struct frame_rule *row;
	uint32_t id = prf_index_lookup(&rules->index, h, row_equal, rules, &vaddr);

	if (id)
		return &rules->rows[id - 1];
	if (rules->count < ROWS_MAX) {
		slot = prf_index_place(&rules->index, h, row_equal, rules, &vaddr);
		if (!slot || prf_ensure_mem((void **)&rules->rows, &rules->capacity,
					    sizeof(*rules->rows), rules->count + 1) < 0)
			return NULL;
		row = &rules->rows[rules->count];
	} else {
		row = &rules->scratch;
	}
	memset(row, 0, sizeof(*row));
	row->vaddr = vaddr;
	if (module)
		look_up(module, pc, row);
	if (slot)
		prf_index_insert(&rules->index, slot, h, (uint32_t)++rules->count);
	return row;
}
