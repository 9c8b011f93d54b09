/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbolizer's core: options, interned DSOs and the answer cache.
 * Every answer is computed once per (DSO, address) and kept until
 * symbolizer_free(), so the cost of a report grows with its unique
 * addresses, not its samples.
 */
#include <errno.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "common.h"
#include "intern.h"
#include "symbolize-internal.h"

/* ---- the symbolizer ------------------------------------------------- */

void *symbolizer_alloc(struct symbolizer *s, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return prf_arena_alloc(&s->arena, count * size);
}

const char *symbolizer_intern(struct symbolizer *s, const char *string)
{
	return string ? string_intern(s->strings, string) : NULL;
}

static int is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* in[0..length) with control characters as \xNN, into out (4 * length + 1 bytes). */
static void escape_controls(char *out, const char *in, size_t length)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < length; i++) {
		if (!is_control(in[i])) {
			*out++ = in[i];
			continue;
		}
		*out++ = '\\';
		*out++ = 'x';
		*out++ = digits[(unsigned char)in[i] >> 4];
		*out++ = digits[in[i] & 15];
	}
	*out = '\0';
}

/*
 * Names for display come from the capture (paths, kallsyms) or from ELF
 * files of other hosts: escape control characters, which would reach a
 * terminal through every view.
 */
const char *symbolizer_intern_shown_n(struct symbolizer *s, const char *string, size_t length)
{
	const char *interned;
	char *escaped;
	size_t i;

	for (i = 0; i < length && !is_control(string[i]); i++)
		;
	if (i == length)
		return string_intern_n(s->strings, string, length);
	/* \xNN for each, and the NUL */
	escaped = length < SIZE_MAX ? reallocarray(NULL, length + 1, 4) : NULL;
	if (!escaped)
		return NULL;
	escape_controls(escaped, string, length);
	interned = string_intern(s->strings, escaped);
	free(escaped);
	return interned;
}

const char *symbolizer_intern_shown(struct symbolizer *s, const char *string)
{
	return string ? symbolizer_intern_shown_n(s, string, strlen(string)) : NULL;
}

/* One line, whatever the capture's paths hold. */
void symbolizer_warn(struct symbolizer *s, const char *format, ...)
{
	char message[2 * PATH_MAX + 256], escaped[4 * sizeof(message)];
	va_list args;
	int n;

	if (!s->warn)
		return;
	va_start(args, format);
	n = vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (n < 0)
		return;
	escape_controls(escaped, message, strlen(message));
	s->warn(s->warn_context, escaped);
}

/*
 * Every DSO keeps its ELF and debug file open for the whole run, two
 * descriptors each; a profile of a whole system maps far more files than
 * the usual soft limit of 1024 allows.  (An unlimited hard limit is no
 * value setrlimit() takes for files: 65536 is plenty.)
 */
#define FILE_LIMIT_WANTED 65536

static void raise_file_limit(void)
{
	struct rlimit limit;
	rlim_t wanted = FILE_LIMIT_WANTED;

	if (getrlimit(RLIMIT_NOFILE, &limit) < 0 || limit.rlim_cur >= wanted)
		return;
	limit.rlim_cur = limit.rlim_max < wanted ? limit.rlim_max : wanted;
	setrlimit(RLIMIT_NOFILE, &limit);
}

/*
 * libdwfl's search path: "+" checks the CRC of .gnu_debuglink files
 * (when there is no build-id to check instead), "" and ".debug" look next
 * to the binary, then each debug directory (whose .build-id trees libdwfl
 * also searches).  ':' separates entries, so a directory containing one
 * cannot be listed; our own build-id search still uses it.
 */
static int build_debuginfo_path(struct symbolizer *s)
{
	size_t size = sizeof("+:.debug");

	for (size_t i = 0; i < s->debug_dir_count; i++)
		size += strlen(s->debug_dirs[i]) + 1;
	s->debuginfo_path = malloc(size);
	if (!s->debuginfo_path)
		return -ENOMEM;
	strcpy(s->debuginfo_path, "+:.debug");
	for (size_t i = 0; i < s->debug_dir_count; i++) {
		if (strchr(s->debug_dirs[i], ':'))
			continue;
		strcat(s->debuginfo_path, ":");
		strcat(s->debuginfo_path, s->debug_dirs[i]);
	}
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = symbolizer_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	return 0;
}

static int copy_options(struct symbolizer *s, const struct symbolizer_options *o)
{
	static const char *const default_debug_dirs[] = { "/usr/lib/debug" };
	const char *const *dirs = o->debug_dirs ? o->debug_dirs : default_debug_dirs;
	size_t count = o->debug_dirs ? o->debug_dir_count : 1;

	if (o->symfs && o->symfs[0]) {
		s->symfs = strdup(o->symfs);
		if (!s->symfs)
			return -ENOMEM;
	}
	s->debug_dirs = calloc(count ? count : 1, sizeof(*s->debug_dirs));
	if (!s->debug_dirs)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		if (!dirs[i] || !dirs[i][0])
			continue;
		s->debug_dirs[s->debug_dir_count] = strdup(dirs[i]);
		if (!s->debug_dirs[s->debug_dir_count])
			return -ENOMEM;
		s->debug_dir_count++;
	}
	s->want_lines = o->want_lines;
	s->want_inlines = o->want_inlines;
	s->source = o->source;
	s->warn = o->warn;
	s->warn_context = o->warn_context;
	return 0;
}

struct symbolizer *symbolizer_new(const struct symbolizer_options *options)
{
	static const struct symbolizer_options defaults;
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->vdso_fd = -1;
	elf_version(EV_CURRENT);	/* libelf refuses elf_begin() before this */
	/* Out of libdwfl's sight, whether or not a source asks servers. */
	unsetenv("DEBUGINFOD_URLS");
	s->strings = string_table_new();
	if (!options)
		options = &defaults;
	if (!s->strings || copy_options(s, options) < 0 || build_debuginfo_path(s) < 0) {
		symbolizer_free(s);
		return NULL;
	}
	raise_file_limit();
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (struct dso *dso = s->files; dso; dso = dso->next) {
		dso_close(dso);
		dso_kernel_free(dso);
	}
	symbolizer_demangle_release(s);
	free(s->answers);
	prf_index_free(&s->dso_index);
	free(s->dsos);
	prf_arena_free(&s->arena);
	string_table_free(s->strings);
	free(s->debuginfo_path);
	for (size_t i = 0; i < s->debug_dir_count; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	free(s->symfs);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s);
}

/* ---- DSOs ------------------------------------------------------------ */

static uint64_t dso_hash(const char *path, const uint8_t *build_id, size_t size)
{
	return prf_hash_mix((uintptr_t)path ^ prf_hash_bytes(build_id, size));
}

struct dso_key {
	const char *path;		/* interned */
	const uint8_t *build_id;
	size_t build_id_size;
};

static int dso_equal(const void *context, uint32_t id, const void *key)
{
	const struct dso *dso = ((const struct symbolizer *)context)->dsos[id - 1];
	const struct dso_key *k = key;

	return dso->path == k->path && dso->build_id_size == k->build_id_size &&
	       (!k->build_id_size || !memcmp(dso->build_id, k->build_id, k->build_id_size));
}

void build_id_to_hex(char *hex, const uint8_t *bytes, size_t size)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < size; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 15];
	}
	hex[2 * size] = '\0';
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* A DSO not yet opened: the ELF is looked for at its first lookup. */
static struct dso *dso_create(struct symbolizer *s, const char *path,
			      const uint8_t *build_id, size_t build_id_size)
{
	struct dso *dso = symbolizer_alloc(s, 1, sizeof(*dso));

	if (!dso)
		return NULL;
	dso->symbolizer = s;
	dso->kind = DSO_FILE;
	dso->path = path;
	dso->short_name = symbolizer_intern_shown(s, base_name(path));
	if (!dso->short_name)
		return NULL;
	if (build_id_size)
		memcpy(dso->build_id, build_id, build_id_size);
	dso->build_id_size = build_id_size;
	build_id_to_hex(dso->build_id_hex, build_id, build_id_size);
	dso->next = s->files;
	s->files = dso;
	return dso;
}

struct dso *symbolizer_dso(struct symbolizer *s, const char *path,
			   const uint8_t *build_id, size_t build_id_size)
{
	struct dso_key key = { .build_id = build_id, .build_id_size = build_id_size };
	struct prf_index_slot *slot;
	struct dso *dso;
	uint64_t h;

	if (!s || !path || strnlen(path, PATH_MAX) >= PATH_MAX ||
	    build_id_size > PRF_BUILD_ID_MAX || (build_id_size && !build_id)) {
		errno = EINVAL;
		return NULL;
	}
	key.path = symbolizer_intern(s, path);
	if (!key.path)
		goto nomem;
	h = dso_hash(key.path, build_id, build_id_size);
	slot = prf_index_place(&s->dso_index, h, dso_equal, s, &key);
	if (!slot)
		goto nomem;
	if (slot->id)
		return s->dsos[slot->id - 1];
	if (prf_ensure_mem((void **)&s->dsos, &s->dso_capacity, sizeof(*s->dsos),
			   s->dso_count + 1) < 0)
		goto nomem;
	dso = dso_create(s, key.path, build_id, build_id_size);
	if (!dso)
		goto nomem;
	s->dsos[s->dso_count++] = dso;
	prf_index_insert(&s->dso_index, slot, h, (uint32_t)s->dso_count);
	return dso;
nomem:
	errno = ENOMEM;
	return NULL;
}

const char *dso_path(const struct dso *dso)
{
	return dso->path;
}

const char *dso_short_name(const struct dso *dso)
{
	return dso->short_name;
}

int dso_is_kernel(const struct dso *dso)
{
	return dso->kind == DSO_KERNEL || dso->kind == DSO_MODULE;
}

const char *dso_build_id_hex(const struct dso *dso)
{
	return dso->build_id_hex;
}

const char *dso_elf_path(const struct dso *dso)
{
	return dso->elf_path;
}

/* ---- answers ----------------------------------------------------------- */

/*
 * Not a prf_index: a cached answer is found with one cache line here
 * (key and answer in the slot), where an index costs two (its slot, then
 * the entry), and the samples view asks for every frame of every sample.
 */
struct cached_answer {
	const struct dso *dso;		/* NULL: an empty slot */
	uint64_t address;
	const struct symbol_frame *frames;
	size_t frame_count;
	const struct dso *answer_dso;
};

static uint64_t answer_hash(const struct dso *dso, uint64_t address)
{
	return prf_hash_mix((uintptr_t)dso ^ prf_hash_mix(address));
}

static int grow_answers(struct symbolizer *s)
{
	size_t capacity = s->answer_capacity ? 2 * s->answer_capacity : 4096;
	struct cached_answer *answers = calloc(capacity, sizeof(*answers));

	if (!answers)
		return -ENOMEM;
	for (size_t i = 0; i < s->answer_capacity; i++) {
		const struct cached_answer *a = &s->answers[i];
		size_t k;

		if (!a->dso)
			continue;
		k = answer_hash(a->dso, a->address) & (capacity - 1);
		while (answers[k].dso)
			k = (k + 1) & (capacity - 1);
		answers[k] = *a;
	}
	free(s->answers);
	s->answers = answers;
	s->answer_capacity = capacity;
	return 0;
}

/* The slot of (dso, address): its answer, or the empty slot to fill. */
static struct cached_answer *answer_slot(struct symbolizer *s, const struct dso *dso,
					 uint64_t address)
{
	size_t k;

	if (s->answer_count * 2 >= s->answer_capacity && grow_answers(s) < 0)
		return NULL;
	k = answer_hash(dso, address) & (s->answer_capacity - 1);
	while (s->answers[k].dso &&
	       (s->answers[k].dso != dso || s->answers[k].address != address))
		k = (k + 1) & (s->answer_capacity - 1);
	return &s->answers[k];
}

static size_t resolve(struct symbolizer *s, struct dso *dso, uint64_t address,
		      struct symbol_frame *frames, const struct dso **owner)
{
	*owner = dso;
	switch (dso->kind) {
	case DSO_FILE:
		if (dso->state == DSO_UNOPENED)
			dso_open(s, dso);
		return dso->state == DSO_OPEN ? dso_file_resolve(s, dso, address, frames) : 0;
	case DSO_KERNEL:
		return dso_kernel_resolve(s, dso, address, frames, owner);
	case DSO_JIT:
		return dso_jit_resolve(dso, address, frames);
	case DSO_MODULE:
		break;
	}
	return 0;
}

void symbolizer_lookup(struct symbolizer *s, struct dso *dso, uint64_t address,
		       struct symbol_answer *answer)
{
	struct symbol_frame frames[FRAMES_MAX];
	struct cached_answer *slot;
	struct symbol_frame *kept = NULL;
	const struct dso *owner;
	size_t count;

	memset(answer, 0, sizeof(*answer));
	answer->dso = dso;
	if (!s || !dso)
		return;
	slot = answer_slot(s, dso, address);
	if (slot && slot->dso) {
		answer->frames = slot->frames;
		answer->frame_count = slot->frame_count;
		answer->dso = slot->answer_dso;
		return;
	}
	count = resolve(s, dso, address, frames, &owner);
	if (count) {
		kept = symbolizer_alloc(s, count, sizeof(*kept));
		if (!kept)
			return;		/* out of memory: unresolved, not cached */
		memcpy(kept, frames, count * sizeof(*kept));
	}
	answer->frames = kept;
	answer->frame_count = count;
	answer->dso = owner;
	if (!slot)
		return;
	*slot = (struct cached_answer){ dso, address, kept, count, owner };
	s->answer_count++;
}

/* ---- for the unwinder -------------------------------------------------- */

int symbolizer_dso_files(struct symbolizer *s, struct dso *dso, const char **elf_path,
			 const char **debug_path)
{
	const char *main_file = NULL, *debug_file = NULL;
	Dwarf_Addr bias;

	if (elf_path)
		*elf_path = NULL;
	if (debug_path)
		*debug_path = NULL;
	if (!s || !dso || dso->kind != DSO_FILE)
		return -ENOENT;
	if (dso->state == DSO_UNOPENED)
		dso_open(s, dso);
	if (dso->state != DSO_OPEN)
		return -ENOENT;
	if (elf_path)
		*elf_path = dso->elf_path;
	if (debug_path) {
		dwfl_module_getdwarf(dso->module, &bias);	/* looks for it, once */
		dwfl_module_info(dso->module, NULL, NULL, NULL, NULL, NULL, &main_file,
				 &debug_file);
		if (debug_file && (!main_file || strcmp(debug_file, main_file) != 0))
			*debug_path = symbolizer_intern(s, debug_file);
	}
	return 0;
}
