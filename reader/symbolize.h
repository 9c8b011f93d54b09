/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_SYMBOLIZE_H
#define PERFREC_REPORT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Symbolization with elfutils.  A DSO is a mapped file as the capture saw
 * it: its path on the recording host and its build-id.  The symbolizer
 * finds an ELF for it (recorded path if its build-id matches, --symfs,
 * --debug-dir .build-id trees, .gnu_debuglink, .gnu_debugdata), keeps one
 * Dwfl per DSO for the whole run and caches answers per (DSO, address).
 */
struct symbolizer;
struct dso;

struct symbolizer_options {
	const char *symfs;		/* root prefixed to recorded paths, or NULL */
	const char *const *debug_dirs;	/* .build-id/xx/rest.debug trees; NULL: /usr/lib/debug */
	size_t debug_dir_count;
	int want_lines;			/* source file:line from DWARF */
	int want_inlines;		/* inlined frames from DWARF scopes */
	/* Called once per problem worth telling (rebuilt binary, no ELF). */
	void (*warn)(void *context, const char *message);
	void *warn_context;
};

/* One frame of an answer; inlined frames come first, the function last. */
struct symbol_frame {
	const char *function;		/* demangled; NULL when unknown */
	const char *file;		/* NULL when no line info */
	unsigned line;
	int inlined;			/* 1 for frames inlined into the next */
	uint64_t symbol_offset;		/* address - symbol start (outermost frame) */
};

struct symbol_answer {
	const struct symbol_frame *frames;	/* owned by the symbolizer */
	size_t frame_count;		/* 0: nothing resolved this address */
	const struct dso *dso;
};

struct symbolizer *symbolizer_new(const struct symbolizer_options *options);
void symbolizer_free(struct symbolizer *symbolizer);

/*
 * The DSO for a mapped file, interned: the same (path, build-id) gives the
 * same pointer.  build_id may be NULL (size 0) when the capture has none.
 */
struct dso *symbolizer_dso(struct symbolizer *symbolizer, const char *path,
			   const uint8_t *build_id, size_t build_id_size);

/*
 * The kernel, from the capture's /proc/kallsyms text (module symbols
 * included) and the kernel's build-id; addresses are absolute.
 */
struct dso *symbolizer_kernel(struct symbolizer *symbolizer, const char *kallsyms,
			      size_t size, const uint8_t *build_id,
			      size_t build_id_size);

/*
 * Resolves an address of dso: for files, an offset into the file (sample
 * ip - map start + map page offset); for the kernel, the address itself.
 * Never fails: an unresolved address gives frame_count 0.  The answer
 * stays valid until symbolizer_free().
 */
void symbolizer_lookup(struct symbolizer *symbolizer, struct dso *dso,
		       uint64_t address, struct symbol_answer *answer);

const char *dso_path(const struct dso *dso);	/* as recorded */
const char *dso_short_name(const struct dso *dso);	/* basename, [kernel.kallsyms] */
int dso_is_kernel(const struct dso *dso);
/* The build-id as lower-case hex ("" when none). */
const char *dso_build_id_hex(const struct dso *dso);
/* The ELF actually used, NULL when none matched. */
const char *dso_elf_path(const struct dso *dso);

/* Demangles C++ and Rust names; returns name itself when not mangled. */
const char *symbolizer_demangle(struct symbolizer *symbolizer, const char *name);

#endif
