/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One address of a file DSO as frames: the symbol from .symtab/.dynsym,
 * file:line from the DWARF line table, and the inlined frames from DWARF
 * scopes, innermost first, as `eu-addr2line -f -i` prints them.
 */
#include <dwarf.h>
#include <stdlib.h>
#include "symbolize-internal.h"

/* Where a frame is: file:line, NULL and 0 when unknown. */
struct position {
	const char *file;
	unsigned line;
};

/* The ELF vaddr holding a file offset: the PT_LOAD whose file part has it. */
static int offset_to_vaddr(const struct dso *dso, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < dso->segment_count; i++) {
		const struct load_segment *seg = &dso->segments[i];

		if (offset >= seg->offset && offset - seg->offset < seg->filesz) {
			*vaddr = offset - seg->offset + seg->vaddr;
			return 0;
		}
	}
	return -1;
}

/* Mangled names go through the demangler; others are just interned. */
static const char *shown_name(struct symbolizer *s, const char *raw)
{
	const char *name;

	if (!raw || !raw[0])
		return NULL;
	if (raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R')) {
		name = symbolizer_demangle(s, raw);
		if (name != raw)
			return name;
	}
	return symbolizer_intern_shown(s, raw);
}

/* The code symbol holding addr, from a table sorted at the first lookup. */
static const char *symtab_name(struct dso *dso, Dwarf_Addr addr, uint64_t *offset)
{
	if (!dso->symtab)
		dso->symtab = symtab_load(dso->module);
	return dso->symtab ? symtab_lookup(dso->symtab, addr, offset) : NULL;
}

/* As eu-addr2line: the linkage name when there is one, through abstract origins. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	return name ? name : dwarf_diename(die);
}

/* The caller's position: where the inlined subroutine was called from. */
static struct position call_site(struct symbolizer *s, Dwarf_Die *inlined, Dwarf_Files *files,
				 size_t file_count)
{
	struct position pos = { NULL, 0 };
	Dwarf_Attribute attr;
	Dwarf_Word value;

	if (files && !dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &value) &&
	    value < file_count)
		pos.file = symbolizer_intern_shown(s, dwarf_filesrc(files, value, NULL, NULL));
	if (!dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &value) &&
	    value <= UINT32_MAX)
		pos.line = (unsigned)value;
	return pos;
}

struct inline_walk {
	struct symbol_frame *frames;
	size_t count;
	struct position pos;	/* of the frame the walk is in */
	Dwarf_Die function;	/* the innermost enclosing subprogram, when found */
	int has_function;
	Dwarf_Addr bias;	/* module address = DWARF address + bias */
};

/*
 * Out from the innermost scope holding addr: each inlined subroutine is
 * a frame at the walk's position, and its call site is where the next
 * one out is, up to the function.
 */
static void walk_inlines(struct symbolizer *s, struct dso *dso, Dwarf_Addr addr,
			 struct inline_walk *walk)
{
	struct scope_chain *chain = malloc(sizeof(*chain));
	Dwarf_Files *files = NULL;
	size_t file_count = 0;

	if (!chain)
		return;
	if (scopes_at(dso, addr, chain) < 0)
		goto out;
	walk->bias = chain->bias;
	if (dwarf_getsrcfiles(&chain->cu, &files, &file_count) < 0)
		files = NULL;
	for (size_t i = chain->count; i-- > 0;) {
		Dwarf_Die *die = &chain->dies[i];
		int tag = dwarf_tag(die);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) {
			walk->function = *die;
			walk->has_function = 1;
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		/* The function keeps a slot; deeper chains lose their outer part. */
		if (walk->count < FRAMES_MAX - 1)
			walk->frames[walk->count++] = (struct symbol_frame){
				.function = shown_name(s, die_name(die)),
				.file = walk->pos.file,
				.line = walk->pos.line,
				.inlined = 1,
			};
		if (s->want_lines)
			walk->pos = call_site(s, die, files, file_count);
	}
out:
	free(chain);
}

/* The line table row holding addr. */
static struct position line_at(struct symbolizer *s, const struct dso *dso, Dwarf_Addr addr)
{
	struct position pos = { NULL, 0 };
	Dwfl_Line *line = dwfl_module_getsrc(dso->module, addr);
	Dwarf_Addr row_addr;
	const char *file;
	int lineno = 0;

	if (!line)
		return pos;
	file = dwfl_lineinfo(line, &row_addr, &lineno, NULL, NULL, NULL);
	if (!file)
		return pos;
	pos.file = symbolizer_intern_shown(s, file);
	pos.line = lineno > 0 ? (unsigned)lineno : 0;
	return pos;
}

size_t dso_file_resolve(struct symbolizer *s, struct dso *dso, uint64_t offset,
			struct symbol_frame *frames)
{
	struct inline_walk walk = { .frames = frames };
	const char *symbol, *function = NULL;
	uint64_t vaddr, symbol_offset = 0;
	struct position line = { NULL, 0 };
	int cfi_extent = 0;
	Dwarf_Addr addr;

	if (offset_to_vaddr(dso, offset, &vaddr) < 0)
		return 0;
	addr = vaddr + dso->bias;
	symbol = symtab_name(dso, addr, &symbol_offset);
	if (s->want_lines)
		line = line_at(s, dso, addr);
	walk.pos = line;
	/*
	 * Without a symbol, DWARF may still name the function, unless the
	 * symbols are a .symtab's: asking would inflate the DWARF for nothing.
	 */
	if (s->want_inlines || (!symbol && !symtab_complete(dso->symtab)))
		walk_inlines(s, dso, addr, &walk);
	if (!s->want_inlines) {
		walk.count = 0;
		walk.pos = line;
	}
	if (symbol) {
		function = shown_name(s, symbol);
	} else if (walk.has_function) {
		Dwarf_Addr low;

		function = shown_name(s, die_name(&walk.function));
		if (function && !dwarf_lowpc(&walk.function, &low) && addr >= low + walk.bias)
			symbol_offset = addr - (low + walk.bias);
	}
	if (!function) {
		function = cfi_extent_name(s, dso, addr, &symbol_offset);
		cfi_extent = function != NULL;
	}
	if (!function && !walk.pos.file && !walk.count)
		return 0;
	frames[walk.count] = (struct symbol_frame){
		.function = function,
		.file = walk.pos.file,
		.line = walk.pos.line,
		.symbol_offset = symbol_offset,
		.cfi_extent = cfi_extent,
	};
	return walk.count + 1;
}
