/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SYMBOLIZE_H
#define PERFREC_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Symbolization with elfutils.  A DSO is a mapped file as the capture saw
 * it: its path on the recording host and its build-id.  The symbolizer
 * finds an ELF for it (recorded path if its build-id matches, --symfs,
 * --debug-dir .build-id trees, .gnu_debuglink, .gnu_debugdata, then
 * debuginfod servers), keeps one Dwfl per DSO for the whole run and
 * caches answers per (DSO, address).
 *
 * The ELF is looked for at a DSO's first lookup, so DSOs no sample hits
 * cost nothing.  A build-id found nowhere on this host is asked of the
 * options' source, if any (debuginfod.h makes one), which hears each
 * build-id and kind at most once a run.  symbolizer_new() removes
 * DEBUGINFOD_URLS from the environment, so that libdwfl never asks
 * debuginfod servers on its own (per module, with retries, silently).
 * Not thread-safe: one symbolizer per thread.  Every DSO used keeps up to
 * two files open until symbolizer_free(), so symbolizer_new() raises the
 * soft RLIMIT_NOFILE (to 65536, or the hard limit if lower).
 */
struct symbolizer;
struct dso;

/*
 * Where files found nowhere on this host come from (debuginfod servers):
 * fetch gives an open fd of the executable (debuginfo 0) or of the debug
 * file (1) of a build-id, and its path, valid while the source lives; or
 * a negative errno (-ENOENT: not there).  Its files are checked against
 * the build-id like local ones.
 */
struct symbolizer_source {
	int (*fetch)(struct symbolizer_source *source, const uint8_t *build_id,
		     size_t build_id_size, int debuginfo, const char **path);
};

struct symbolizer_options {
	/*
	 * Root prefixed to recorded paths, or NULL.  Recorded paths with a
	 * ".." component are then refused (they could leave the root).
	 * Debug directories are used as given, without the prefix.
	 */
	const char *symfs;
	/*
	 * Trees searched by build-id: .build-id/xx/rest (the binary itself)
	 * and .build-id/xx/rest.debug (its debug file, used alone for
	 * symbols and lines when the binary is nowhere); libdwfl also looks
	 * there for .gnu_debuglink files.  NULL: /usr/lib/debug.
	 */
	const char *const *debug_dirs;
	size_t debug_dir_count;
	/*
	 * Asked for the executable, then the debug file, of a build-id with
	 * no local ELF, and for the debug file of a local ELF without one;
	 * NULL: nobody.
	 */
	struct symbolizer_source *source;
	int want_lines;			/* source file:line from DWARF */
	int want_inlines;		/* inlined frames from DWARF scopes */
	/*
	 * Called once per DSO with a build-id for which no ELF is used: a
	 * rebuilt binary ("PATH: build-id on this host is X, the capture's
	 * is Y: not used"), no file at all, not an ELF.  Never for DSOs
	 * recorded without build-id, nor for names that are no files
	 * ("[vdso]", "//anon").  One line: control characters in paths are
	 * escaped as \xNN.
	 */
	void (*warn)(void *context, const char *message);
	void *warn_context;
};

/*
 * One frame of an answer; inlined frames come first, the function last,
 * as `eu-addr2line --relative -f -i` lists them.  Each frame's file:line
 * is where execution is in that function: the address's line for the
 * first frame, the call site of the frame before for the others; file
 * names are the line table's (eu-addr2line's default prefixes relative
 * ones with DW_AT_comp_dir).  The last frame is named from .symtab or
 * .dynsym ("foo.cold", "__memmove_avx_unaligned_erms"), or from DWARF
 * when no symbol covers the address, or else after its extent in the call
 * frame information (cfi_extent); inlined frames from DWARF.  Scopes
 * are those holding the address itself (eu-addr2line -i takes them where
 * the address's line row starts).  Strings are interned: equal strings
 * are equal pointers.  Names and files come from other hosts' files and
 * captures: their control characters are escaped as \xNN.
 */
struct symbol_frame {
	const char *function;		/* demangled; NULL when unknown */
	const char *file;		/* NULL when no line info (or !want_lines) */
	unsigned line;
	int inlined;			/* 1 for frames inlined into the next */
	uint64_t symbol_offset;		/* address - symbol start; 0 in inlined frames */
	/*
	 * 1: nothing named the function, function is "[DSO+0xSTART]", the
	 * file offset where the call frame information (.eh_frame or
	 * .debug_frame) says the function holding the address starts.  A
	 * made-up name: where addresses matter (pprof), they stay addresses.
	 */
	int cfi_extent;
};

struct symbol_answer {
	const struct symbol_frame *frames;	/* owned by the symbolizer */
	size_t frame_count;		/* 0: nothing resolved this address */
	/*
	 * The DSO looked up; for a kernel address in a module, that
	 * module's DSO (short name "[ext4]", dso_is_kernel() true).
	 */
	const struct dso *dso;
};

/* NULL without memory.  options may be NULL (no lines, no inlines). */
struct symbolizer *symbolizer_new(const struct symbolizer_options *options);
void symbolizer_free(struct symbolizer *symbolizer);

/*
 * The DSO for a mapped file, interned: the same (path, build-id) gives the
 * same pointer.  build_id may be NULL (size 0) when the capture has none;
 * the file at path is then used unchecked.  NULL with errno EINVAL for a
 * path of PATH_MAX characters or more or a build-id over 20 bytes (the kernel
 * records at most 20: a longer local build-id matches on its prefix), or
 * ENOMEM.
 */
struct dso *symbolizer_dso(struct symbolizer *symbolizer, const char *path,
			   const uint8_t *build_id, size_t build_id_size);

/*
 * The kernel, from the capture's /proc/kallsyms text (module symbols
 * included, text symbols only) and the kernel's build-id; addresses are
 * absolute.  The same text and build-id give the same DSO.  All-zero
 * addresses (kptr_restrict) resolve nothing.  NULL with errno set on
 * failure.
 */
struct dso *symbolizer_kernel(struct symbolizer *symbolizer, const char *kallsyms,
			      size_t size, const uint8_t *build_id,
			      size_t build_id_size);

/* A kernel symbol as a capture recorded it, hit (PRF_RECORD_KERNEL_SYMBOL). */
struct symbolizer_ksym {
	uint64_t start, size;		/* it covers [start, start + size) */
	const char *name;		/* NUL-terminated, shorter than 512 */
	const char *module;		/* "ext4"; NULL or "" for the kernel proper */
};

/*
 * The kernel from the symbols a capture recorded as its samples hit them:
 * each address resolves as it did in the capture's whole kallsyms.  At an
 * address given twice the first is kept.  NULL with errno set on failure.
 */
struct dso *symbolizer_kernel_hit(struct symbolizer *symbolizer,
				  const struct symbolizer_ksym *symbols, size_t count);
/*
 * Every symbol of a kernel DSO (symbolizer_kernel()'s or _hit()'s), by
 * address, as it resolves them: size the end the table gave it, module
 * "" for the kernel proper; name and module valid during the call only,
 * as the capture gave them (not escaped).  Nothing for another DSO.
 */
void dso_kernel_for_each_symbol(const struct dso *kernel,
				void (*fn)(void *context, const struct symbolizer_ksym *symbol),
				void *context);

/* A symbol of JIT-compiled code: [start, end) in the process, and its name. */
struct symbolizer_jit_symbol {
	uint64_t start, end;
	const char *name;
};

/*
 * A process's JIT code, named name ("[JIT] tid 1234"), from the symbols
 * its runtime wrote, sorted by start and without overlaps (the caller
 * decides which of overlapping symbols holds).  Addresses are absolute.
 * Each call makes a new DSO.  NULL with errno EINVAL (unsorted or
 * overlapping symbols) or ENOMEM.
 */
struct dso *symbolizer_jit(struct symbolizer *symbolizer, const char *name,
			   const struct symbolizer_jit_symbol *symbols, size_t count);
/* Whether dso is one of those. */
int dso_is_jit(const struct dso *dso);

/*
 * Resolves an address of dso: for files, an offset into the file (sample
 * ip - map start + map page offset); for the kernel, the address itself.
 * Never fails: an unresolved address (or a NULL dso) gives frame_count 0.
 * The answer stays valid until symbolizer_free().
 */
void symbolizer_lookup(struct symbolizer *symbolizer, struct dso *dso,
		       uint64_t address, struct symbol_answer *answer);

const char *dso_path(const struct dso *dso);	/* as recorded, unescaped */
/* Basename, "[kernel.kallsyms]", "[ext4]"; control characters as \xNN. */
const char *dso_short_name(const struct dso *dso);
int dso_is_kernel(const struct dso *dso);	/* the kernel or a module */
/* The build-id as lower-case hex ("" when none). */
const char *dso_build_id_hex(const struct dso *dso);
/* The ELF actually used, NULL when none matched (or not looked up yet). */
const char *dso_elf_path(const struct dso *dso);

/*
 * Demangles C++ and Rust (legacy, hash dropped, and v0) names; returns
 * name itself when not mangled, else the demangled name, interned.
 */
const char *symbolizer_demangle(struct symbolizer *symbolizer, const char *name);

/*
 * For the unwinder, which reads the same files: forces dso's lookup (as
 * symbolizer_lookup() would) and gives the ELF used and its separate
 * debug file (NULL when the ELF holds its own DWARF or there is none;
 * asking for it loads the DWARF).  Either pointer may be NULL.  0, or
 * -ENOENT when no ELF matched (or dso is the kernel).
 */
int symbolizer_dso_files(struct symbolizer *symbolizer, struct dso *dso,
			 const char **elf_path, const char **debug_path);

#endif
