/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SYMBOLIZE_INTERNAL_H
#define PERFREC_SYMBOLIZE_INTERNAL_H

/*
 * What the symbolizer's files share: the DSO and symbolizer structures,
 * the arena every answer lives in, and the entry points of the parts:
 * finding ELF files (-elf.c), symbol tables (-symtab.c), DWARF scopes
 * (-scopes.c) and frames (-dwarf.c), kallsyms (-kallsyms.c), demangling
 * (-demangle.c); files from elsewhere come through a symbolizer_source.
 */
#include <elfutils/libdwfl.h>
#include <limits.h>
#include "common.h"
#include "symbolize.h"

/* Frames of one answer: deeper inline chains keep their innermost part. */
#define FRAMES_MAX 64

struct string_table;

/*
 * Zeroed memory for count objects of size that lives until
 * symbolizer_free(); NULL without memory.
 */
void *symbolizer_alloc(struct symbolizer *s, size_t count, size_t size);

enum dso_kind {
	DSO_FILE,
	DSO_KERNEL,
	DSO_MODULE,		/* a kernel module, from its kallsyms lines */
	DSO_JIT,		/* a process's JIT code, from its perf map or jitdump */
};

enum dso_state {
	DSO_UNOPENED,		/* nothing looked up yet: no file opened */
	DSO_OPEN,
	DSO_UNUSABLE,		/* no ELF: every address resolves to nothing */
};

/* A PT_LOAD of the ELF used: where file offsets land in its vaddrs. */
struct load_segment {
	uint64_t offset, filesz, vaddr;
};

struct dso {
	struct symbolizer *symbolizer;	/* its owner, for libdwfl's callbacks */
	enum dso_kind kind;
	enum dso_state state;
	const char *path;		/* interned, as recorded */
	const char *short_name;		/* interned */
	const char *elf_path;		/* interned, NULL until an ELF is used */
	uint8_t build_id[PRF_BUILD_ID_MAX];
	size_t build_id_size;
	char build_id_hex[2 * PRF_BUILD_ID_MAX + 1];

	/* DSO_FILE, once opened */
	Dwfl *dwfl;
	Dwfl_Module *module;
	Dwarf_Addr bias;		/* module address = ELF vaddr + bias */
	struct load_segment *segments;
	size_t segment_count;
	struct symtab *symtab;		/* loaded at the first lookup */
	struct dwarf_index *dwarf;	/* functions by CU, as CUs are met */
	struct cfi_extents *cfi;	/* FDE extents, read at the first need */

	/* DSO_KERNEL: the text symbols, sorted, one per address, each with its end */
	struct prf_ksym_table ksyms;
	const char **ksym_names;	/* interned at a symbol's first lookup; NULL before */
	struct dso **module_dsos;	/* by ksyms' module index */
	struct dso *modules;		/* its DSO_MODULEs, listed by next */

	/* DSO_JIT: the runtime's symbols, sorted, without overlaps (jit.c) */
	struct jit_symbol *jit_symbols;
	size_t jit_symbol_count;
	struct dso *next;		/* in the symbolizer's or kernel's list */
};

struct symbolizer {
	char *symfs;			/* NULL: none */
	char **debug_dirs;
	size_t debug_dir_count;
	int want_lines, want_inlines;
	void (*warn)(void *context, const char *message);
	void *warn_context;

	char *debuginfo_path;		/* for dwfl_standard_find_debuginfo */
	Dwfl_Callbacks callbacks;
	struct symbolizer_source *source;	/* NULL: nobody to ask */

	struct string_table *strings;
	struct prf_arena arena;		/* DSOs, answers' frames */
	struct dso *files;		/* every DSO_FILE and DSO_KERNEL */
	struct dso **dsos;		/* DSO_FILEs, by (path, build-id) in dso_index */
	size_t dso_count, dso_capacity;
	struct prf_index dso_index;
	struct cached_answer *answers;	/* open addressing by (dso, address) */
	size_t answer_count, answer_capacity;
	struct demangled *demangled;	/* mangled name -> shown name, in demangled_index */
	size_t demangled_count, demangled_capacity;
	struct prf_index demangled_index;
	int vdso_fd;			/* this host's vDSO in a memfd; -1: none */
	int vdso_tried;
};

/* Lower-case hex of size bytes and a NUL: hex has 2 * size + 1 bytes. */
void build_id_to_hex(char *hex, const uint8_t *bytes, size_t size);
/* Interns s (NULL stays NULL, and NULL when out of memory). */
const char *symbolizer_intern(struct symbolizer *s, const char *string);
/* The same for names shown to users: control characters become \xNN. */
const char *symbolizer_intern_shown(struct symbolizer *s, const char *string);
const char *symbolizer_intern_shown_n(struct symbolizer *s, const char *string, size_t length);
void symbolizer_warn(struct symbolizer *s, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* elf.c: finds the DSO's ELF and reports it to its own Dwfl. */
void dso_open(struct symbolizer *s, struct dso *dso);
void dso_close(struct dso *dso);

/* dwarf.c: frames for a file offset of an open DSO_FILE. */
size_t dso_file_resolve(struct symbolizer *s, struct dso *dso, uint64_t offset,
			struct symbol_frame *frames);

/* scopes.c: the DWARF scopes holding a module address. */
#define SCOPES_MAX 128

struct scope_chain {
	Dwarf_Die dies[SCOPES_MAX];	/* the function first, the innermost last */
	size_t count;
	Dwarf_Die cu;
	Dwarf_Addr bias;		/* module address = DWARF address + bias */
};

int scopes_at(struct dso *dso, Dwarf_Addr addr, struct scope_chain *chain);
void dwarf_index_free(struct dwarf_index *index);

/* symtab.c: the code symbol holding a module address. */
struct symtab *symtab_load(Dwfl_Module *module);
void symtab_free(struct symtab *symtab);
const char *symtab_lookup(const struct symtab *symtab, uint64_t address, uint64_t *offset);
/* Whether the table is a .symtab (every function), not only .dynsym. */
int symtab_complete(const struct symtab *symtab);

/*
 * cfi-extent.c: for a module address of an open DSO_FILE that nothing
 * names, "[DSO+0xSTART]" (interned) of the function extent its CFI gives,
 * with addr's distance from START in *extent_offset; NULL when no FDE
 * holds it.
 */
const char *cfi_extent_name(struct symbolizer *s, struct dso *dso, Dwarf_Addr addr,
			    uint64_t *extent_offset);
void cfi_extents_free(struct cfi_extents *extents);

/* kallsyms.c */
size_t dso_kernel_resolve(struct symbolizer *s, struct dso *kernel, uint64_t address,
			  struct symbol_frame *frame, const struct dso **owner);
void dso_kernel_free(struct dso *kernel);

/* jit.c */
size_t dso_jit_resolve(const struct dso *dso, uint64_t address, struct symbol_frame *frame);

/*
 * uncompress.c: for a debug file with SHF_COMPRESSED sections,
 * the fd of an uncompressed copy in memory (fd closed); otherwise fd.
 */
int debug_file_uncompressed(int fd);
/* That, when the symbolizer wants lines or inlined frames; otherwise fd. */
int debug_file_for(const struct symbolizer *s, int fd);

/*
 * The module's debug file in the build-id tree of a debug directory
 * (<dir>/.build-id/xx/rest.debug, its build-id checked), uncompressed as
 * debug_file_for() says, with its path in *name; -1 when there is none.
 */
int debug_file_by_build_id(const struct symbolizer *s, Dwfl_Module *module, char **name);
/*
 * The .gnu_debuglink places (beside the binary, in its .debug directory,
 * under each debug directory at the binary's path) for a debug file with
 * the module's build-id, as debug_file_by_build_id(); -1 when none is
 * there, -2 when this search cannot tell (no build-id): libdwfl's then.
 */
int debug_file_by_debuglink(const struct symbolizer *s, Dwfl_Module *module,
			    const char *file_name, const char *debuglink, char **name);

/* elf.c: the Dwfl_Callbacks find_debuginfo; the module's userdata is its DSO. */
int symbolizer_find_debuginfo(Dwfl_Module *module, void **userdata, const char *module_name,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name);

/* demangle.c */
void symbolizer_demangle_release(struct symbolizer *s);

#endif
