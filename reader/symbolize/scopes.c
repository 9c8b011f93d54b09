/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DWARF scopes holding an address: its function, then the inlined
 * subroutines and lexical blocks nested in it, down to the innermost.
 *
 * dwarf_getscopes() finds these by walking the compilation unit from its
 * first DIE, and for an inlined instance walks the whole unit again for
 * its abstract origin; in libc that is some 50 microseconds an address.
 * Here each unit's functions are listed once, sorted by address, the
 * first time an address falls in the unit; an address then costs a
 * binary search and a walk down its function's subtree.  The chain is
 * the one `eu-addr2line -i` prints: the containment path of the
 * innermost DIE holding the address (dwarf_getscopes_die of it).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include "common.h"
#include "symbolize-internal.h"

#define CONTAINER_DEPTH_MAX 16	/* namespaces, classes, imported units */
#define OVERLAP_SCAN_MAX 16

struct function_range {
	Dwarf_Addr low, high;		/* DWARF addresses, without the bias */
	Dwarf_Die die;
};

struct cu_functions {
	Dwarf_Off cu;			/* the unit's DIE offset: the key */
	struct function_range *ranges;	/* by low */
	size_t count, capacity;
};

/* The units met so far, by their DIE offset. */
struct dwarf_index {
	struct cu_functions *units;
	size_t count, capacity;
	struct prf_index index;
};

static int add_range(struct cu_functions *f, Dwarf_Addr low, Dwarf_Addr high, Dwarf_Die *die)
{
	if (prf_ensure_mem((void **)&f->ranges, &f->capacity, sizeof(*f->ranges), f->count + 1) < 0)
		return -ENOMEM;
	f->ranges[f->count++] = (struct function_range){ low, high, *die };
	return 0;
}

/* A function's address ranges: several when it has a cold part. */
static int add_function(struct cu_functions *f, Dwarf_Die *die)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t offset = 0;

	while ((offset = dwarf_ranges(die, offset, &base, &low, &high)) > 0)
		if (low < high && add_range(f, low, high, die) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * Functions are children of the unit, or of namespaces and classes in
 * it, or of partial units it imports (dwz).
 */
static int collect_functions(struct cu_functions *f, Dwarf_Die *parent, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, imported;
	int err = 0;

	if (depth > CONTAINER_DEPTH_MAX || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_entry_point:
			err = add_function(f, &child);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			err = collect_functions(f, &child, depth + 1);
			break;
		case DW_TAG_imported_unit:
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &attr), &imported))
				err = collect_functions(f, &imported, depth + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	return err;
}

static int compare_ranges(const void *a, const void *b)
{
	const struct function_range *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return 0;
}

static int unit_equal(const void *context, uint32_t id, const void *key)
{
	return ((const struct dwarf_index *)context)->units[id - 1].cu == *(const Dwarf_Off *)key;
}

/* The unit's functions, listed at the first address met in it. */
static const struct cu_functions *unit_functions(struct dso *dso, Dwarf_Die *cu)
{
	struct dwarf_index *index = dso->dwarf;
	Dwarf_Off offset = dwarf_dieoffset(cu);
	uint64_t h = prf_hash_mix(offset);
	struct prf_index_slot *slot;
	struct cu_functions *f;

	if (!index) {
		index = dso->dwarf = calloc(1, sizeof(*index));
		if (!index)
			return NULL;
	}
	slot = prf_index_place(&index->index, h, unit_equal, index, &offset);
	if (!slot)
		return NULL;
	if (slot->id)
		return &index->units[slot->id - 1];
	if (prf_ensure_mem((void **)&index->units, &index->capacity, sizeof(*index->units),
			   index->count + 1) < 0)
		return NULL;
	f = &index->units[index->count++];
	*f = (struct cu_functions){ .cu = offset };
	prf_index_insert(&index->index, slot, h, (uint32_t)index->count);
	/* Out of memory: the functions found so far, then the next unit. */
	collect_functions(f, cu, 0);
	if (f->count)
		qsort(f->ranges, f->count, sizeof(*f->ranges), compare_ranges);
	return f;
}

/* The function holding pc: the closest start, as ranges rarely overlap. */
static const struct function_range *function_at(const struct cu_functions *f, Dwarf_Addr pc)
{
	size_t lo = 0, hi = f->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->ranges[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t scanned = 0; lo-- > 0 && scanned < OVERLAP_SCAN_MAX; scanned++)
		if (pc < f->ranges[lo].high)
			return &f->ranges[lo];
	return NULL;
}

/* The DIEs dwarf_getscopes() matches against an address. */
static int is_scope(int tag)
{
	switch (tag) {
	case DW_TAG_lexical_block:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_entry_point:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_module:
		return 1;
	default:
		return 0;
	}
}

/* Down from chain->dies[0]: at each level the first child holding pc. */
static void descend(struct scope_chain *chain, Dwarf_Addr pc)
{
	while (chain->count < SCOPES_MAX) {
		Dwarf_Die child;
		int found = 0;

		if (dwarf_child(&chain->dies[chain->count - 1], &child) != 0)
			return;
		do {
			if (is_scope(dwarf_tag(&child)) && dwarf_haspc(&child, pc) > 0) {
				chain->dies[chain->count++] = child;
				found = 1;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			return;
	}
}

int scopes_at(struct dso *dso, Dwarf_Addr addr, struct scope_chain *chain)
{
	Dwarf_Die *cu = dwfl_module_addrdie(dso->module, addr, &chain->bias);
	const struct cu_functions *functions;
	const struct function_range *function;

	chain->count = 0;
	if (!cu)
		return -ENOENT;
	chain->cu = *cu;
	functions = unit_functions(dso, cu);
	if (!functions)
		return -ENOMEM;
	function = function_at(functions, addr - chain->bias);
	if (!function)
		return -ENOENT;
	chain->dies[0] = function->die;
	chain->count = 1;
	descend(chain, addr - chain->bias);
	return 0;
}

void dwarf_index_free(struct dwarf_index *index)
{
	if (!index)
		return;
	for (size_t i = 0; i < index->count; i++)
		free(index->units[i].ranges);
	free(index->units);
	prf_index_free(&index->index);
	free(index);
}
