/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fallback name of an address no symbol and no DWARF covers: the
 * function its call frame information says it is in.  Stripped binaries
 * (most of a distribution's libraries) keep .eh_frame for unwinding and
 * exceptions, and compilers emit one FDE per function (and one per split
 * part, like a .cold one), so an FDE's [start, end) is a function's
 * extent.  Without it every sampled address of a stripped DSO is a row of
 * its own; with it the samples of one function add up under one name,
 * "[DSO+0xSTART]", START the function's file offset as the report prints
 * offsets of unresolved addresses.
 *
 * libdw's dwarf_cfi_addrframe() + dwarf_frame_info() give the extent of a
 * CFI row (a stretch of one CFA rule), not of its FDE, so the FDEs of
 * .eh_frame and .debug_frame are read here once per DSO, at the first
 * address that needs them, into one table sorted by start.  Their sizes
 * are the file's: the table has at most one entry per 8 bytes of section
 * data, and one per PLT section (is_plt).
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbolize-internal.h"

struct cfi_extent {
	uint64_t start, end;		/* module addresses */
};

struct cfi_extents {
	struct cfi_extent *items;	/* sorted by start */
	size_t count, capacity;
};

/* A CIE's pointer encoding, by its offset in the section. */
struct cie_encoding {
	uint64_t offset;
	uint8_t encoding;		/* DW_EH_PE_*; DW_EH_PE_omit: not understood */
};

struct section_walk {
	Elf_Data *data;
	uint64_t address;		/* the section's module address */
	int eh_frame;
	int big_endian;
	unsigned address_size;
	struct cie_encoding *cies;	/* in section order */
	size_t cie_count, cie_capacity;
};

static uint64_t read_unsigned(const struct section_walk *w, const uint8_t *p, unsigned size)
{
	uint64_t value = 0;

	for (unsigned i = 0; i < size; i++)
		value |= (uint64_t)p[w->big_endian ? i : size - 1 - i] << (8 * (size - 1 - i));
	return value;
}

/*
 * The pointer at *p (and *p past it) as encoding says; pcrel is relative
 * to where the pointer is.  -1: an encoding of no use here (indirect,
 * datarel, LEB128 locations) or past end.
 */
static int read_pointer(const struct section_walk *w, const uint8_t **p, const uint8_t *end,
			uint8_t encoding, int relative, uint64_t *value)
{
	static const unsigned sizes[16] = {
		[DW_EH_PE_udata2] = 2, [DW_EH_PE_udata4] = 4, [DW_EH_PE_udata8] = 8,
		[DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4, [DW_EH_PE_sdata8] = 8,
	};
	unsigned size = (encoding & 0x0f) == DW_EH_PE_absptr ? w->address_size :
			sizes[encoding & 0x0f];
	uint64_t where = w->address + (uint64_t)(*p - (const uint8_t *)w->data->d_buf);
	uint64_t raw;

	if (!size || (uint64_t)(end - *p) < size || (encoding & DW_EH_PE_indirect))
		return -1;
	raw = read_unsigned(w, *p, size);
	if ((encoding & DW_EH_PE_signed) && size < 8 && (raw >> (8 * size - 1)) & 1)
		raw |= ~(uint64_t)0 << (8 * size);
	*p += size;
	if (!relative) {
		*value = raw;
		return 0;
	}
	switch (encoding & 0x70) {
	case DW_EH_PE_absptr:
		*value = raw;
		return 0;
	case DW_EH_PE_pcrel:
		*value = where + raw;
		return 0;
	default:
		return -1;
	}
}

static int skip_leb128(const uint8_t **p, const uint8_t *end)
{
	while (*p < end)
		if (!(*(*p)++ & 0x80))
			return 0;
	return -1;
}

/* The FDE pointer encoding of a CIE ('R' of a "z" augmentation). */
static uint8_t cie_fde_encoding(const struct section_walk *w, const Dwarf_CIE *cie)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	uint64_t ignored;

	if (!cie->augmentation || !cie->augmentation[0])
		return DW_EH_PE_absptr;
	if (cie->augmentation[0] != 'z' || !p)
		return DW_EH_PE_omit;
	for (const char *a = cie->augmentation + 1; *a; a++) {
		switch (*a) {
		case 'R':
			return p < end ? *p : DW_EH_PE_omit;
		case 'L':
			if (p++ >= end)
				return DW_EH_PE_omit;
			break;
		case 'P': {
			uint8_t personality;

			if (p >= end)
				return DW_EH_PE_omit;
			personality = *p++;
			if ((personality & 0x0f) == DW_EH_PE_uleb128 ||
			    (personality & 0x0f) == DW_EH_PE_sleb128) {
				if (skip_leb128(&p, end) < 0)
					return DW_EH_PE_omit;
			} else if (read_pointer(w, &p, end, personality, 0, &ignored) < 0) {
				return DW_EH_PE_omit;
			}
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return DW_EH_PE_omit;
		}
	}
	return DW_EH_PE_absptr;
}

static int remember_cie(struct section_walk *w, uint64_t offset, uint8_t encoding)
{
	if (prf_ensure_mem((void **)&w->cies, &w->cie_capacity, sizeof(*w->cies),
			   w->cie_count + 1) < 0)
		return -ENOMEM;
	w->cies[w->cie_count++] = (struct cie_encoding){ offset, encoding };
	return 0;
}

/* The encoding of the CIE at offset; CIEs come in section order. */
static uint8_t cie_encoding_at(const struct section_walk *w, uint64_t offset)
{
	size_t low = 0, high = w->cie_count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (w->cies[mid].offset < offset)
			low = mid + 1;
		else
			high = mid;
	}
	return low < w->cie_count && w->cies[low].offset == offset ? w->cies[low].encoding :
	       DW_EH_PE_omit;
}

static int add_extent(struct cfi_extents *x, uint64_t start, uint64_t end)
{
	if (prf_ensure_mem((void **)&x->items, &x->capacity, sizeof(*x->items), x->count + 1) < 0)
		return -ENOMEM;
	x->items[x->count++] = (struct cfi_extent){ start, end };
	return 0;
}

/* Every FDE of one section; a CIE that comes after its FDEs leaves them out. */
static void read_section(struct cfi_extents *x, struct section_walk *w, const unsigned char *ident)
{
	Dwarf_Off offset = 0, next;
	Dwarf_CFI_Entry entry;

	while (offset < w->data->d_size &&
	       dwarf_next_cfi(ident, w->data, w->eh_frame, offset, &next, &entry) == 0) {
		if (next <= offset)
			break;
		if (dwarf_cfi_cie_p(&entry)) {
			if (remember_cie(w, offset, cie_fde_encoding(w, &entry.cie)) < 0)
				break;
		} else {
			uint8_t encoding = cie_encoding_at(w, entry.fde.CIE_pointer);
			const uint8_t *p = entry.fde.start;
			uint64_t start, range;

			if (encoding != DW_EH_PE_omit &&
			    !read_pointer(w, &p, entry.fde.end, encoding, 1, &start) &&
			    !read_pointer(w, &p, entry.fde.end, encoding & 0x0f, 0, &range) &&
			    range && start + range > start && add_extent(x, start, start + range) < 0)
				break;
		}
		offset = next;
	}
	free(w->cies);
	w->cies = NULL;
	w->cie_count = w->cie_capacity = 0;
}

static int compare_extents(const void *a, const void *b)
{
	const struct cfi_extent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/*
 * A PLT section is one extent too.  The linker gives .plt an FDE of its
 * own, but a separate debug file (the only file of a --debug-only
 * bundle) has no .eh_frame: its section headers, which it keeps, name
 * the same extent, so that a PLT stub's samples add up under one name
 * whichever file is at hand.
 */
static int is_plt(const char *name, const GElf_Shdr *shdr)
{
	return (shdr->sh_flags & SHF_EXECINSTR) && shdr->sh_size &&
	       shdr->sh_addr + shdr->sh_size > shdr->sh_addr &&
	       (!strcmp(name, ".plt") || !strcmp(name, ".plt.got") || !strcmp(name, ".plt.sec"));
}

/* The FDEs of the ELF's .eh_frame and .debug_frame, and its PLT sections. */
static struct cfi_extents *extents_load(Dwfl_Module *module)
{
	struct cfi_extents *x = calloc(1, sizeof(*x));
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(module, &bias);
	const unsigned char *ident;
	size_t strndx;
	Elf_Scn *scn = NULL;

	if (!x || !elf || elf_getshdrstrndx(elf, &strndx) < 0)
		return x;
	ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!ident)
		return x;
	while ((scn = elf_nextscn(elf, scn))) {
		struct section_walk w = { 0 };
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || !(name = elf_strptr(elf, strndx, shdr.sh_name)))
			continue;
		if (is_plt(name, &shdr)) {
			if (add_extent(x, shdr.sh_addr + bias, shdr.sh_addr + bias + shdr.sh_size) < 0)
				break;
			continue;
		}
		if (shdr.sh_type != SHT_PROGBITS ||
		    (strcmp(name, ".eh_frame") && strcmp(name, ".debug_frame")))
			continue;
		w.eh_frame = !strcmp(name, ".eh_frame");
		w.data = elf_rawdata(scn, NULL);
		if (!w.data || !w.data->d_buf || !w.data->d_size)
			continue;
		w.address = shdr.sh_addr + bias;
		w.big_endian = ident[EI_DATA] == ELFDATA2MSB;
		w.address_size = ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
		read_section(x, &w, ident);
	}
	if (x->count)
		qsort(x->items, x->count, sizeof(*x->items), compare_extents);
	return x;
}

void cfi_extents_free(struct cfi_extents *x)
{
	if (x)
		free(x->items);
	free(x);
}

/* The extent holding addr: the last one starting at or before it. */
static const struct cfi_extent *extent_at(const struct cfi_extents *x, uint64_t addr)
{
	size_t low = 0, high = x->count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (x->items[mid].start <= addr)
			low = mid + 1;
		else
			high = mid;
	}
	/* Nested FDEs are odd but harmless: look back past shorter ones. */
	for (size_t i = low; i-- > 0 && low - i <= 4;)
		if (addr < x->items[i].end)
			return &x->items[i];
	return NULL;
}

/* The file offset of an ELF vaddr: the PT_LOAD whose file part holds it. */
static int vaddr_to_offset(const struct dso *dso, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < dso->segment_count; i++) {
		const struct load_segment *seg = &dso->segments[i];

		if (vaddr >= seg->vaddr && vaddr - seg->vaddr < seg->filesz) {
			*offset = vaddr - seg->vaddr + seg->offset;
			return 0;
		}
	}
	return -1;
}

const char *cfi_extent_name(struct symbolizer *s, struct dso *dso, Dwarf_Addr addr,
			    uint64_t *extent_offset)
{
	const struct cfi_extent *extent;
	uint64_t offset;
	char name[PATH_MAX + 32];

	if (!dso->cfi)
		dso->cfi = extents_load(dso->module);
	if (!dso->cfi || !(extent = extent_at(dso->cfi, addr)))
		return NULL;
	if (extent->start < dso->bias ||
	    vaddr_to_offset(dso, extent->start - dso->bias, &offset) < 0)
		return NULL;
	*extent_offset = addr - extent->start;
	snprintf(name, sizeof(name), "[%s+0x%" PRIx64 "]", dso->short_name, offset);
	return symbolizer_intern(s, name);
}
