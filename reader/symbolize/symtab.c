/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A DSO's symbol table, sorted once.  dwfl_module_addrinfo() scans every
 * symbol on each call (a hundred microseconds for libc); this answers the
 * same question with a binary search, choosing as it does:
 *  - a symbol whose [start, start + size) holds the address; a global or
 *    weak one before a local one, then the closest start, the stronger
 *    binding, the smaller size;
 *  - failing that a sizeless symbol (an assembly label) at or before the
 *    address, in its section (whose end address counts as inside unless
 *    another section starts there), past the end of every sized symbol
 *    that starts before the address.
 * Names point into libdwfl's string tables, alive as long as the Dwfl.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include "symbolize-internal.h"

struct symtab_entry {
	uint64_t start, end;	/* end == start: sizeless */
	uint64_t section_start, section_end;	/* sizeless only */
	const char *name;
	uint32_t index;		/* in the symbol table: the last tie-break */
	uint8_t bind, type;
};

struct symtab {
	uint64_t *section_starts;	/* sorted, of SHF_ALLOC sections */
	size_t section_count;
	Elf *section_elfs[2];		/* whose sections those are */
	struct symtab_entry *sized;	/* by start */
	uint64_t *reach;		/* reach[i]: max end of sized[0..i] */
	size_t sized_count;
	struct symtab_entry *sizeless;	/* by start */
	size_t sizeless_count;
	int complete;			/* a .symtab's, not only .dynsym's */
};

static int binding_rank(uint8_t bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int compare_entries(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The section a sizeless symbol may claim addresses in. */
static void symbol_section(struct symtab_entry *e, Elf *elf, GElf_Word shndx, GElf_Addr bias)
{
	GElf_Shdr shdr;
	Elf_Scn *scn;

	/* Absolute or odd: it claims its own address only. */
	e->section_start = e->section_end = e->start;
	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !elf)
		return;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return;
	e->section_start = shdr.sh_addr + bias;
	e->section_end = e->section_start + shdr.sh_size;
}

static int compare_addresses(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Where the sections of the ELF symbols come from start (two at most: .gnu_debugdata). */
static int add_sections(struct symtab *t, Elf *elf, GElf_Addr bias)
{
	size_t count = 0, slot;
	Elf_Scn *scn = NULL;
	uint64_t *starts;

	for (slot = 0; slot < 2 && t->section_elfs[slot]; slot++)
		if (t->section_elfs[slot] == elf)
			return 0;
	if (!elf || slot == 2 || elf_getshdrnum(elf, &count) < 0)
		return 0;
	t->section_elfs[slot] = elf;
	starts = reallocarray(t->section_starts, t->section_count + count, sizeof(*starts));
	if (!starts)
		return -ENOMEM;
	t->section_starts = starts;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_ALLOC) && shdr.sh_size)
			starts[t->section_count++] = shdr.sh_addr + bias;
	}
	qsort(starts, t->section_count, sizeof(*starts), compare_addresses);
	return 0;
}

static int section_starts_at(const struct symtab *t, uint64_t address)
{
	size_t lo = 0, hi = t->section_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->section_starts[mid] < address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->section_count && t->section_starts[lo] == address;
}

/* As libdwfl: a section's end is inside it, unless the next one starts there. */
static int in_section(const struct symtab *t, const struct symtab_entry *e, uint64_t address)
{
	if (e->section_start == e->section_end)
		return address == e->start;
	if (address < e->section_start || address > e->section_end)
		return 0;
	return address < e->section_end || !section_starts_at(t, address);
}

/* The symbols dwfl_module_addrinfo() considers. */
static int candidate(const char *name, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return name && name[0] && sym->st_shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

static int has_symtab_section(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			return 1;
	}
	return 0;
}

static int collect(struct symtab *t, Dwfl_Module *module, int count)
{
	Elf *checked = NULL;

	for (int i = 0; i < count; i++) {
		struct symtab_entry e = { 0 };
		GElf_Addr value, bias = 0;
		GElf_Word shndx = SHN_UNDEF;
		Elf *elf = NULL;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(module, i, &sym, &value, &shndx,
							   &elf, &bias);

		if (!candidate(name, &sym))
			continue;
		/* The ELF whose table libdwfl read: the binary's, its debug file's. */
		if (elf && elf != checked && !t->complete) {
			checked = elf;
			t->complete = has_symtab_section(elf);
		}
		e.start = value;
		e.end = value + sym.st_size < value ? UINT64_MAX : value + sym.st_size;
		e.name = name;
		e.index = (uint32_t)i;
		e.bind = (uint8_t)GELF_ST_BIND(sym.st_info);
		e.type = (uint8_t)GELF_ST_TYPE(sym.st_info);
		if (sym.st_size) {
			t->sized[t->sized_count++] = e;
		} else {
			symbol_section(&e, elf, shndx, bias);
			t->sizeless[t->sizeless_count++] = e;
			if (add_sections(t, elf, bias) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

struct symtab *symtab_load(Dwfl_Module *module)
{
	struct symtab *t = calloc(1, sizeof(*t));
	int count = dwfl_module_getsymtab(module);

	if (!t)
		return NULL;
	if (count <= 0)
		return t;	/* no symbols: nothing resolves by name */
	t->sized = calloc((size_t)count, sizeof(*t->sized));
	t->sizeless = calloc((size_t)count, sizeof(*t->sizeless));
	t->reach = calloc((size_t)count, sizeof(*t->reach));
	if (!t->sized || !t->sizeless || !t->reach) {
		symtab_free(t);
		return NULL;
	}
	if (collect(t, module, count) < 0) {
		symtab_free(t);
		return NULL;
	}
	qsort(t->sized, t->sized_count, sizeof(*t->sized), compare_entries);
	qsort(t->sizeless, t->sizeless_count, sizeof(*t->sizeless), compare_entries);
	for (size_t i = 0; i < t->sized_count; i++) {
		uint64_t end = t->sized[i].end;

		t->reach[i] = i && t->reach[i - 1] > end ? t->reach[i - 1] : end;
	}
	return t;
}

void symtab_free(struct symtab *t)
{
	if (!t)
		return;
	free(t->section_starts);
	free(t->sized);
	free(t->sizeless);
	free(t->reach);
	free(t);
}

/* The number of entries starting at or before address. */
static size_t upper_bound(const struct symtab_entry *entries, size_t count, uint64_t address)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (entries[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int better_sized(const struct symtab_entry *x, const struct symtab_entry *best)
{
	int x_global = x->bind == STB_GLOBAL || x->bind == STB_WEAK;
	int best_global = best->bind == STB_GLOBAL || best->bind == STB_WEAK;

	if (x_global != best_global)
		return x_global;
	if (x->start != best->start)
		return x->start > best->start;
	if (binding_rank(x->bind) != binding_rank(best->bind))
		return binding_rank(x->bind) > binding_rank(best->bind);
	if (x->end - x->start != best->end - best->start)
		return x->end - x->start < best->end - best->start;
	return x->index < best->index;
}

static const struct symtab_entry *find_sized(const struct symtab *t, size_t below,
					     uint64_t address)
{
	const struct symtab_entry *best = NULL;

	/* Back from the last start <= address while anything reaches it. */
	for (size_t j = below; j-- > 0 && t->reach[j] > address;) {
		const struct symtab_entry *e = &t->sized[j];

		if (e->end > address && (!best || better_sized(e, best)))
			best = e;
	}
	return best;
}

#define SIZELESS_SCAN_MAX 64

static const struct symtab_entry *find_sizeless(const struct symtab *t, uint64_t address,
						uint64_t min_start)
{
	const struct symtab_entry *best = NULL;
	size_t j = upper_bound(t->sizeless, t->sizeless_count, address);

	for (size_t scanned = 0; j-- > 0 && t->sizeless[j].start >= min_start &&
				 scanned < SIZELESS_SCAN_MAX; scanned++) {
		const struct symtab_entry *e = &t->sizeless[j];

		if (best && e->start != best->start)
			break;
		if (!in_section(t, e, address))
			continue;
		if (!best || binding_rank(e->bind) > binding_rank(best->bind))
			best = e;
	}
	return best;
}

const char *symtab_lookup(const struct symtab *t, uint64_t address, uint64_t *offset)
{
	size_t below = upper_bound(t->sized, t->sized_count, address);
	const struct symtab_entry *e = find_sized(t, below, address);

	if (!e)
		e = find_sizeless(t, address, below ? t->reach[below - 1] : 0);
	if (!e)
		return NULL;
	/* A data symbol is no function, whatever the address. */
	if (e->type != STT_FUNC && e->type != STT_GNU_IFUNC && e->type != STT_NOTYPE)
		return NULL;
	*offset = address - e->start;
	return e->name;
}

/*
 * A .symtab names every function, static ones too: an address outside
 * all its symbols (a PLT, padding) is in none that DWARF would name.
 */
int symtab_complete(const struct symtab *t)
{
	return t && t->complete;
}
