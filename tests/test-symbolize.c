/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbolizer against eu-addr2line.  Addresses come from nm and the
 * program headers from eu-readelf, both run here, so the expected answers
 * owe nothing to the code under test: every byte of the test programs'
 * code and a sample of libc's (with libc6-dbg's debug file) must resolve
 * to the function, file:line and inline chain `eu-addr2line --relative
 * -f -i` prints and the symbol `eu-addr2line -S` prints, also from
 * stripped copies found through a debug dir, .gnu_debuglink or
 * .gnu_debugdata, and from a debug file alone.  A rebuilt binary is
 * refused with one warning; kallsyms, demangling and hostile inputs are
 * checked on their own, and the speed is measured.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <gelf.h>
#include "debuginfod.h"
#include "symbolize.h"
#include "symbolize-internal.h"

/*
 * Checks that cannot run here (a tool or a debug file missing) say so
 * and are counted: Check runs each in a child process, so the count
 * lives in shared memory, and main() exits 77 (SKIP) when any was
 * skipped and none failed: never a pass for what did not run.
 */
static unsigned *skipped;

__attribute__((format(printf, 1, 2)))
static void skip_check(const char *format, ...)
{
	va_list args;

	printf("SKIP: ");
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	printf("\n");
	__atomic_add_fetch(skipped, 1, __ATOMIC_SEQ_CST);
}

#define REF_FRAMES 64

/* ---- running tools ---------------------------------------------------- */

static char fixture_dir[PATH_MAX];
static char temp_dir[PATH_MAX];
static char libc_path[PATH_MAX];	/* the libc.so.6 this test runs with */

static void find_fixtures(void)
{
	ssize_t n = readlink("/proc/self/exe", fixture_dir, sizeof(fixture_dir) - 1);
	char *slash;

	ck_assert_int_gt(n, 0);
	fixture_dir[n] = '\0';
	slash = strrchr(fixture_dir, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
}

/* The libc this process has mapped, whatever the distribution's layout. */
static void find_libc(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];

	libc_path[0] = '\0';
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		char *path = strchr(line, '/');
		size_t n = path ? strcspn(path, "\n") : 0;

		if (n > 10 && n < sizeof(libc_path) && !strncmp(path + n - 10, "/libc.so.6", 10)) {
			memcpy(libc_path, path, n);
			libc_path[n] = '\0';
			break;
		}
	}
	fclose(maps);
}

static const char *fixture(const char *name)
{
	static char paths[4][PATH_MAX];
	static unsigned next;
	char *path = paths[next++ % 4];
	int n = snprintf(path, PATH_MAX, "%s/%s", fixture_dir, name);

	ck_assert(n > 0 && n < PATH_MAX);
	return path;
}

static const char *temp_path(const char *name)
{
	static char paths[8][PATH_MAX];
	static unsigned next;
	char *path = paths[next++ % 8];
	int n = snprintf(path, PATH_MAX, "%s/%s", temp_dir, name);

	ck_assert(n > 0 && n < PATH_MAX);
	return path;
}

static void make_temp_dir(void)
{
	strcpy(temp_dir, "/tmp/test-symbolize-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(temp_dir));
}

static int shell(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int shell(const char *format, ...)
{
	char command[8192];
	va_list args;
	int n;

	va_start(args, format);
	n = vsnprintf(command, sizeof(command), format, args);
	va_end(args);
	ck_assert_int_lt(n, (int)sizeof(command));
	return system(command);
}

static void remove_temp_dir(void)
{
	if (temp_dir[0])
		shell("rm -rf '%s'", temp_dir);
	temp_dir[0] = '\0';
}

/* Outside any test too: no ck_assert here. */
static int have_tool(const char *tool)
{
	char command[256];

	snprintf(command, sizeof(command), "command -v %s >/dev/null 2>&1", tool);
	return system(command) == 0;
}

/* The whole standard output of a command. */
static char *capture(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *capture(const char *format, ...)
{
	char command[8192], *text = NULL;
	size_t size = 0, used = 0, n;
	va_list args;
	FILE *pipe;

	va_start(args, format);
	vsnprintf(command, sizeof(command), format, args);
	va_end(args);
	pipe = popen(command, "r");
	ck_assert_ptr_nonnull(pipe);
	do {
		if (size - used < 65536) {
			size = size ? 2 * size : 1 << 20;
			text = realloc(text, size);
			ck_assert_ptr_nonnull(text);
		}
		n = fread(text + used, 1, size - used - 1, pipe);
		used += n;
	} while (n);
	pclose(pipe);
	text[used] = '\0';
	return text;
}

static size_t hex_decode(const char *hex, uint8_t *bytes, size_t max)
{
	size_t n = 0;
	unsigned byte;

	while (n < max && sscanf(hex + 2 * n, "%2x", &byte) == 1)
		bytes[n++] = (uint8_t)byte;
	return n;
}

/* The build-id as eu-readelf -n prints it. */
static size_t build_id_of(const char *path, uint8_t *id)
{
	char *notes = capture("eu-readelf -n '%s' 2>/dev/null", path);
	char *at = strstr(notes, "Build ID: ");
	size_t n = at ? hex_decode(at + strlen("Build ID: "), id, 20) : 0;

	free(notes);
	ck_assert_msg(n > 0, "no build-id in %s", path);
	return n;
}

static void build_id_hex(const uint8_t *id, size_t size, char *hex)
{
	for (size_t i = 0; i < size; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * size] = '\0';
}

/* The debug file libc6-dbg installed for libc, by its build-id. */
static const char *libc_debug_file(void)
{
	static char path[PATH_MAX];
	uint8_t id[20];
	char hex[41];
	size_t n;

	if (!libc_path[0])
		return NULL;
	n = build_id_of(libc_path, id);
	build_id_hex(id, n, hex);
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return access(path, R_OK) == 0 ? path : NULL;
}

/* ---- segments and addresses ------------------------------------------ */

struct segment {
	uint64_t offset, vaddr, filesz;
	int exec;
};

struct layout {
	struct segment segments[16];
	size_t count;
};

/* The PT_LOADs as eu-readelf -l prints them. */
static void read_layout(const char *path, struct layout *layout)
{
	char *text = capture("eu-readelf -l '%s'", path);
	char *line = text;

	layout->count = 0;
	while ((line = strstr(line, "  LOAD "))) {
		unsigned long long off, vaddr, paddr, filesz, memsz;
		char flags[8] = "";

		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx %7[RWE ]", &off, &vaddr, &paddr,
			   &filesz, &memsz, flags) >= 5 && layout->count < 16)
			layout->segments[layout->count++] = (struct segment){
				off, vaddr, filesz, strchr(flags, 'E') != NULL
			};
		line++;
	}
	free(text);
	ck_assert_uint_gt(layout->count, 0);
}

static int vaddr_to_offset(const struct layout *layout, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < layout->count; i++) {
		const struct segment *s = &layout->segments[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -1;
}

struct addresses {
	uint64_t *vaddrs;
	size_t count, capacity;
};

static void add_address(struct addresses *a, uint64_t vaddr)
{
	if (a->count == a->capacity) {
		a->capacity = a->capacity ? 2 * a->capacity : 4096;
		a->vaddrs = realloc(a->vaddrs, a->capacity * sizeof(*a->vaddrs));
		ck_assert_ptr_nonnull(a->vaddrs);
	}
	a->vaddrs[a->count++] = vaddr;
}

/* Every byte of the executable segments, or every stride-th byte. */
static void add_code(struct addresses *a, const struct layout *layout, uint64_t stride)
{
	for (size_t i = 0; i < layout->count; i++) {
		const struct segment *s = &layout->segments[i];

		if (!s->exec)
			continue;
		for (uint64_t v = s->vaddr; v < s->vaddr + s->filesz; v += stride)
			add_address(a, v);
	}
}

/* Every byte of the functions nm lists under these names (all if NULL). */
static size_t add_functions(struct addresses *a, const char *nm_file,
			    const char *const *names, uint64_t stride)
{
	char *text = capture("nm -S --defined-only '%s'", nm_file);
	size_t found = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long start, size;
		char type, name[512];
		int wanted = !names;

		if (sscanf(line, "%llx %llx %c %511s", &start, &size, &type, name) != 4 ||
		    !strchr("TtWwi", type))
			continue;
		for (size_t i = 0; names && names[i]; i++)
			wanted |= !strcmp(names[i], name);
		if (!wanted)
			continue;
		found++;
		for (uint64_t v = start; v < start + size; v += stride)
			add_address(a, v);
	}
	free(text);
	return found;
}

/* ---- eu-addr2line's answers ------------------------------------------- */

struct ref_frame {
	char *name;		/* as printed: mangled, "??" when unknown */
	char *file;		/* NULL for ??:0 */
	unsigned line;
};

struct reference {
	struct ref_frame frames[REF_FRAMES];
	size_t count;
	char *symbol;		/* eu-addr2line -S: NULL for ?? */
	uint64_t symbol_offset;
};

/* "FILE:LINE[:COLUMN]", "??:0" */
static void parse_location(const char *text, struct ref_frame *frame)
{
	char *colon;

	frame->file = strdup(text);
	frame->line = 0;
	for (int field = 0; field < 2; field++) {
		colon = strrchr(frame->file, ':');
		if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
			break;
		frame->line = (unsigned)strtoul(colon + 1, NULL, 10);
		*colon = '\0';
	}
	if (!strcmp(frame->file, "??")) {
		free(frame->file);
		frame->file = NULL;
	}
}

/* "NAME at FILE:LINE[:COLUMN]" */
static void parse_frame(char *text, struct ref_frame *frame)
{
	char *at = strstr(text, " at ");

	ck_assert_ptr_nonnull(at);
	for (char *next; (next = strstr(at + 1, " at "));)
		at = next;
	*at = '\0';
	frame->name = strdup(text);
	parse_location(at + 4, frame);
}

static void write_addresses(const struct addresses *a, const char *path)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < a->count; i++)
		fprintf(f, "%#llx\n", (unsigned long long)a->vaddrs[i]);
	ck_assert_int_eq(fclose(f), 0);
}

static struct reference *addr2line(const char *file, const struct addresses *a)
{
	struct reference *refs = calloc(a->count, sizeof(*refs));
	const char *list = temp_path("addresses");
	char *pretty, *symbols, *line, *save;
	size_t i = 0;

	ck_assert_ptr_nonnull(refs);
	write_addresses(a, list);
	pretty = capture("eu-addr2line --relative -a --pretty-print -f -i -e '%s' < '%s'", file, list);
	symbols = capture("eu-addr2line --relative -a -S -e '%s' < '%s'", file, list);
	for (line = strtok_r(pretty, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct reference *r;

		if (!strncmp(line, " (inlined by) ", 14)) {
			ck_assert_uint_gt(i, 0);
			r = &refs[i - 1];
			if (r->count < REF_FRAMES)
				parse_frame(line + 14, &r->frames[r->count++]);
			continue;
		}
		ck_assert_uint_lt(i, a->count);
		ck_assert_uint_eq(strtoull(line, NULL, 16), a->vaddrs[i]);
		line = strstr(line, ": ");
		ck_assert_ptr_nonnull(line);
		r = &refs[i++];
		parse_frame(line + 2, &r->frames[r->count++]);
	}
	ck_assert_uint_eq(i, a->count);
	/* Three lines each: address, symbol[+offset], file:line. */
	line = strtok_r(symbols, "\n", &save);
	for (i = 0; i < a->count; i++) {
		char *symbol = strtok_r(NULL, "\n", &save), *plus;

		ck_assert_ptr_nonnull(line);
		ck_assert_ptr_nonnull(symbol);
		ck_assert_uint_eq(strtoull(line, NULL, 16), a->vaddrs[i]);
		plus = strstr(symbol, "+0x");
		if (plus) {
			refs[i].symbol_offset = strtoull(plus + 1, NULL, 16);
			*plus = '\0';
		}
		/* "??" or "(section)+offset": no symbol. */
		if (strcmp(symbol, "??") && symbol[0] != '(')
			refs[i].symbol = strdup(symbol);
		strtok_r(NULL, "\n", &save);
		line = strtok_r(NULL, "\n", &save);
	}
	free(pretty);
	free(symbols);
	return refs;
}

static void free_references(struct reference *refs, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		for (size_t j = 0; j < refs[i].count; j++) {
			free(refs[i].frames[j].name);
			free(refs[i].frames[j].file);
		}
		free(refs[i].symbol);
	}
	free(refs);
}

/* ---- comparing ---------------------------------------------------------- */

static int same_string(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same_position(const struct symbol_frame *f, const struct ref_frame *r)
{
	return same_string(f->file, r->file) && (r->file ? f->line == r->line : 1);
}

/* The name eu-addr2line would show demangled: "??" is none. */
static const char *ref_name(struct symbolizer *s, const char *name)
{
	return !name || !strcmp(name, "??") ? NULL : symbolizer_demangle(s, name);
}

/*
 * An answer that is only a name after the CFI extent, "[DSO+0xSTART]":
 * what eu-addr2line calls ??.  (test-report-stripped.sh checks the
 * extents against the symbols of the unstripped binary.)
 */
static int cfi_only(const struct symbol_answer *answer)
{
	const struct symbol_frame *f = answer->frames;

	return answer->frame_count == 1 && f->cfi_extent && !f->file && f->function &&
	       f->function[0] == '[' && strstr(f->function, "+0x");
}

/*
 * Inlined frames: name and position as eu-addr2line -f -i.  The last
 * frame: position as eu-addr2line, name and offset as eu-addr2line -S
 * (the symbol table), or the DWARF name when no symbol covers it.
 */
static int matches(struct symbolizer *s, const struct symbol_answer *answer,
		   const struct reference *r, int lines, int inlines)
{
	size_t count = inlines ? r->count : 1;
	const struct ref_frame *ref_last = &r->frames[count - 1];
	/* No symbol: the function DWARF names, outermost in the chain. */
	const char *expect_last = r->symbol ? ref_name(s, r->symbol) :
				  ref_name(s, r->frames[r->count - 1].name);
	const struct symbol_frame *last;

	if (!expect_last && count == 1 && (!lines || !ref_last->file))
		return answer->frame_count == 0 || cfi_only(answer);
	if (answer->frame_count != count)
		return 0;
	for (size_t i = 0; i + 1 < count; i++) {
		const struct symbol_frame *f = &answer->frames[i];

		if (!f->inlined || !same_string(f->function, ref_name(s, r->frames[i].name)))
			return 0;
		if (lines ? !same_position(f, &r->frames[i]) : f->file != NULL)
			return 0;
	}
	last = &answer->frames[count - 1];
	if (last->inlined || (lines ? !same_position(last, ref_last) : last->file != NULL))
		return 0;
	/* What nothing names may have a name after its CFI extent. */
	if (last->cfi_extent ? expect_last != NULL : !same_string(last->function, expect_last))
		return 0;
	return !r->symbol || last->symbol_offset == r->symbol_offset;
}

static void print_mismatch(const struct symbol_answer *answer, const struct reference *r,
			   uint64_t vaddr)
{
	fprintf(stderr, "%#llx: eu-addr2line: symbol %s+%#llx;", (unsigned long long)vaddr,
		r->symbol ? r->symbol : "??", (unsigned long long)r->symbol_offset);
	for (size_t i = 0; i < r->count; i++)
		fprintf(stderr, " %s at %s:%u;", r->frames[i].name,
			r->frames[i].file ? r->frames[i].file : "??", r->frames[i].line);
	fprintf(stderr, "\n        symbolizer:");
	for (size_t i = 0; i < answer->frame_count; i++) {
		const struct symbol_frame *f = &answer->frames[i];

		fprintf(stderr, " %s+%#llx%s at %s:%u;", f->function ? f->function : "(null)",
			(unsigned long long)f->symbol_offset, f->inlined ? " (inlined)" : "",
			f->file ? f->file : "??", f->line);
	}
	fprintf(stderr, "\n");
}

/*
 * eu-addr2line -i looks the inline chain up where the address's line
 * table row starts but names the innermost function at the address
 * itself, so where a scope starts inside a row its two halves disagree.
 * The symbolizer takes both at the address: there it must agree with
 * eu-addr2line's plain -f answer, "NAME" or "NAME inlined at CALL in
 * ...", then FILE:LINE.
 */
static int matches_at_address(struct symbolizer *s, const char *file, uint64_t vaddr,
			      const struct symbol_answer *answer, const struct reference *r)
{
	char *text = capture("eu-addr2line --relative -f -e '%s' %#llx", file,
			     (unsigned long long)vaddr);
	char *name = strtok(text, "\n"), *where = strtok(NULL, "\n");
	struct ref_frame here = { 0 }, call = { 0 };
	const struct symbol_frame *f = answer->frames;
	char *inlined = name ? strstr(name, " inlined at ") : NULL;
	int ok;

	ck_assert_ptr_nonnull(where);
	parse_location(where, &here);
	if (inlined) {
		char *in = strstr(inlined, " in ");

		*inlined = '\0';
		if (in)
			*in = '\0';
		parse_location(inlined + strlen(" inlined at "), &call);
	}
	if (!answer->frame_count || cfi_only(answer))
		ok = !strcmp(name, "??") && !here.file;
	else if (inlined)
		ok = same_position(f, &here) && f->inlined && answer->frame_count >= 2 &&
		     same_string(f->function, ref_name(s, name)) && same_position(f + 1, &call);
	else
		ok = same_position(f, &here) && !f->inlined && answer->frame_count == 1 &&
		     (same_string(f->function, ref_name(s, name)) ||
		      (r->symbol && same_string(f->function, ref_name(s, r->symbol))));
	free(here.file);
	free(call.file);
	free(text);
	return ok;
}

struct comparison {
	const char *what;
	const char *reference_file;	/* what eu-addr2line reads */
	const char *layout_file;	/* whose offsets the capture has */
	int lines;			/* lines expected (no .gnu_debugdata) */
	int inlines;			/* inline chains expected */
	int only_named;			/* skip addresses without a symbol */
};

/* Every address must match eu-addr2line's answer. */
static void compare(struct symbolizer *s, struct dso *dso, const struct addresses *a,
		    const struct comparison *c)
{
	struct reference *refs = addr2line(c->reference_file, a);
	size_t compared = 0, matched = 0, at_address = 0;
	struct layout layout;

	read_layout(c->layout_file, &layout);
	for (size_t i = 0; i < a->count; i++) {
		struct symbol_answer answer;
		uint64_t offset;

		if (vaddr_to_offset(&layout, a->vaddrs[i], &offset) < 0)
			continue;
		if (c->only_named && !refs[i].symbol)
			continue;
		symbolizer_lookup(s, dso, offset, &answer);
		compared++;
		if (matches(s, &answer, &refs[i], c->lines, c->inlines)) {
			matched++;
		} else if (c->lines && c->inlines &&
			   matches_at_address(s, c->reference_file, a->vaddrs[i], &answer, &refs[i])) {
			matched++;
			at_address++;
		} else if (compared - matched <= 5) {
			print_mismatch(&answer, &refs[i], a->vaddrs[i]);
		}
	}
	printf("%s: %zu addresses compared with eu-addr2line, %zu match", c->what, compared,
	       matched);
	if (at_address)
		printf(" (%zu of them its answer at the address, not at its line row's start)",
		       at_address);
	printf("\n");
	free_references(refs, a->count);
	ck_assert_uint_gt(compared, 0);
	ck_assert_uint_eq(matched, compared);
}

/* ---- symbolizers ---------------------------------------------------------- */

struct warnings {
	unsigned count;
	char last[8192];
};

static void record_warning(void *context, const char *message)
{
	struct warnings *w = context;

	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", message);
}

static struct warnings warnings;

static struct symbolizer *new_symbolizer(const char *symfs, const char *const *dirs,
					 size_t dir_count, int lines, int inlines)
{
	struct symbolizer_options o = {
		.symfs = symfs,
		.debug_dirs = dirs,
		.debug_dir_count = dir_count,
		.want_lines = lines,
		.want_inlines = inlines,
		.warn = record_warning,
		.warn_context = &warnings,
	};
	struct symbolizer *s;

	memset(&warnings, 0, sizeof(warnings));
	s = symbolizer_new(&o);
	ck_assert_ptr_nonnull(s);
	return s;
}

static struct dso *dso_with_id_of(struct symbolizer *s, const char *path, const char *id_file)
{
	uint8_t id[20];
	size_t n = build_id_of(id_file, id);
	struct dso *dso = symbolizer_dso(s, path, id, n);

	ck_assert_ptr_nonnull(dso);
	return dso;
}

/* ---- the test programs --------------------------------------------------- */

static void setup(void)
{
	find_fixtures();
	find_libc();
	make_temp_dir();
}

static void teardown(void)
{
	remove_temp_dir();
}

static void compare_all_code(const char *name, int lines, int inlines)
{
	const char *file = fixture(name);
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, lines, inlines);
	struct dso *dso = dso_with_id_of(s, file, file);
	struct addresses a = { 0 };
	struct layout layout;
	struct comparison c = { name, file, file, lines, inlines, 0 };

	read_layout(file, &layout);
	add_code(&a, &layout, 1);
	compare(s, dso, &a, &c);
	ck_assert_str_eq(dso_elf_path(dso), file);
	ck_assert_uint_eq(warnings.count, 0);
	free(a.vaddrs);
	symbolizer_free(s);
}

START_TEST(target_matches_addr2line)
{
	compare_all_code("symbolize-target", 1, 1);
}
END_TEST

START_TEST(library_matches_addr2line)
{
	compare_all_code("libsymbolize-lib.so", 1, 1);
}
END_TEST

START_TEST(without_lines_or_inlines)
{
	compare_all_code("symbolize-target", 0, 0);
	compare_all_code("symbolize-target", 1, 0);
	compare_all_code("symbolize-target", 0, 1);
}
END_TEST

/* The inline chain of mix_outer, spelled out. */
START_TEST(inline_chain)
{
	const char *file = fixture("symbolize-target");
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	struct dso *dso = dso_with_id_of(s, file, file);
	struct addresses a = { 0 };
	static const char *const names[] = { "mix_outer", NULL };
	const char *outer = NULL, *inner_file = NULL;
	struct layout layout;
	size_t deepest = 0;

	read_layout(file, &layout);
	ck_assert_uint_eq(add_functions(&a, file, names, 1), 1);
	for (size_t i = 0; i < a.count; i++) {
		struct symbol_answer answer, again;
		uint64_t offset;

		ck_assert_int_eq(vaddr_to_offset(&layout, a.vaddrs[i], &offset), 0);
		symbolizer_lookup(s, dso, offset, &answer);
		ck_assert_uint_gt(answer.frame_count, 0);
		ck_assert_str_eq(answer.frames[answer.frame_count - 1].function, "mix_outer");
		/* Interned: one string for every address of the function. */
		if (!outer)
			outer = answer.frames[answer.frame_count - 1].function;
		ck_assert_ptr_eq(answer.frames[answer.frame_count - 1].function, outer);
		ck_assert_uint_eq(answer.frames[answer.frame_count - 1].symbol_offset,
				  a.vaddrs[i] - a.vaddrs[0]);
		if (answer.frame_count == 3) {
			ck_assert_str_eq(answer.frames[0].function, "mix_inner");
			ck_assert_str_eq(answer.frames[1].function, "mix_middle");
			ck_assert(answer.frames[0].inlined && answer.frames[1].inlined);
			ck_assert_ptr_nonnull(strstr(answer.frames[0].file, "symbolize-target.c"));
			if (!inner_file)
				inner_file = answer.frames[0].file;
			ck_assert_ptr_eq(answer.frames[0].file, inner_file);
		}
		if (answer.frame_count > deepest)
			deepest = answer.frame_count;
		/* Cached: the same frames, not a new copy. */
		symbolizer_lookup(s, dso, offset, &again);
		ck_assert_ptr_eq(again.frames, answer.frames);
		ck_assert_ptr_eq(again.dso, dso);
	}
	ck_assert_uint_eq(deepest, 3);
	free(a.vaddrs);
	symbolizer_free(s);
}
END_TEST

START_TEST(mangled_names_in_the_target)
{
	const char *file = fixture("symbolize-target");
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	struct dso *dso = dso_with_id_of(s, file, file);
	static const char *const mangled[] = {
		"_ZN2ns5klass6methodEi",
		"_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE",
		"_RNvCs15kBYyAo9fc_7mycrate7example",
		NULL,
	};
	static const char *const shown[] = {
		"ns::klass::method(int)", "core::fmt::Write::write_fmt", "mycrate::example",
	};
	struct layout layout;

	read_layout(file, &layout);
	for (size_t i = 0; mangled[i]; i++) {
		struct addresses a = { 0 };
		const char *names[] = { mangled[i], NULL };
		struct symbol_answer answer;
		uint64_t offset;

		ck_assert_uint_eq(add_functions(&a, file, names, 1), 1);
		ck_assert_int_eq(vaddr_to_offset(&layout, a.vaddrs[0], &offset), 0);
		symbolizer_lookup(s, dso, offset, &answer);
		ck_assert_uint_eq(answer.frame_count, 1);
		ck_assert_str_eq(answer.frames[0].function, shown[i]);
		free(a.vaddrs);
	}
	symbolizer_free(s);
}
END_TEST

START_TEST(demangling)
{
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 0, 0);
	static const char *const cases[][2] = {
		{ "_ZN3foo3barEv", "foo::bar()" },
		{ "_ZNK3foo3bazERKSt6vectorIiSaIiEE",
		  "foo::baz(std::vector<int, std::allocator<int> > const&) const" },
		{ "_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE", "core::fmt::Write::write_fmt" },
		{ "_ZN3std2io5stdio6_print17h7b3bd6ce3fd1c83cE", "std::io::stdio::_print" },
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
		{ "_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar" },
		{ "_Z3maxIiET_S0_S0_", "int max<int>(int, int)" },
		{ "_ZN9__gnu_cxx13new_allocatorIcED2Ev.cold",
		  "__gnu_cxx::new_allocator<char>::~new_allocator() [clone .cold]" },
	};
	static const char *const plain[] = { "main", "memcpy", "_Zgarbage", "_R", "_", "", "_Z" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *shown = symbolizer_demangle(s, cases[i][0]);

		ck_assert_str_eq(shown, cases[i][1]);
		/* Interned: asking again gives the same string. */
		ck_assert_ptr_eq(symbolizer_demangle(s, cases[i][0]), shown);
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		ck_assert_ptr_eq(symbolizer_demangle(s, plain[i]), plain[i]);
	ck_assert_ptr_null(symbolizer_demangle(s, NULL));
	symbolizer_free(s);
}
END_TEST

/* ---- libc with libc6-dbg ---------------------------------------------- */

static const char *const libc_functions[] = {
	"__libc_malloc", "_int_malloc", "_int_free", "__qsort_r", "msort_with_tmp.part.0",
	"__memmove_avx_unaligned_erms", "__memcpy_avx_unaligned", "__memmove_sse2_unaligned_erms",
	"__strlen_avx2", "__strchr_sse2", "__vfprintf_internal", "__printf_fp_l", NULL,
};

static void libc_addresses(struct addresses *a, const char *debug)
{
	struct layout layout;

	ck_assert_uint_ge(add_functions(a, debug, libc_functions, 1), 6);
	read_layout(libc_path, &layout);
	add_code(a, &layout, 251);
}

START_TEST(libc_matches_addr2line)
{
	const char *debug = libc_debug_file();
	struct symbolizer *s;
	struct dso *dso;
	struct addresses a = { 0 };
	struct comparison c = { "libc.so.6", libc_path, libc_path, 1, 1, 0 };

	if (!debug) {
		skip_check("libc.so.6: no libc6-dbg debug file (apt-get install libc6-dbg)");
		return;
	}
	s = new_symbolizer(NULL, NULL, 0, 1, 1);
	dso = dso_with_id_of(s, libc_path, libc_path);
	libc_addresses(&a, debug);
	compare(s, dso, &a, &c);
	ck_assert_uint_eq(warnings.count, 0);
	free(a.vaddrs);
	symbolizer_free(s);
}
END_TEST

/* The debug file alone: its program headers lost the original's offsets. */
START_TEST(libc_debug_file_alone)
{
	const char *debug = libc_debug_file();
	struct symbolizer *s;
	struct dso *dso;
	struct addresses a = { 0 };
	struct comparison c = { "libc.so.6 from its debug file alone", libc_path, libc_path,
				1, 1, 0 };

	if (!debug) {
		skip_check("libc.so.6: no libc6-dbg debug file (apt-get install libc6-dbg)");
		return;
	}
	s = new_symbolizer(NULL, NULL, 0, 1, 1);
	dso = dso_with_id_of(s, "/nonexistent/libc.so.6", libc_path);
	libc_addresses(&a, debug);
	compare(s, dso, &a, &c);
	ck_assert_str_eq(dso_elf_path(dso), debug);
	ck_assert_uint_eq(warnings.count, 0);
	free(a.vaddrs);
	symbolizer_free(s);
}
END_TEST

/* ---- stripped copies -------------------------------------------------- */

/* A stripped copy of the target at bin/NAME, its debug file in a .build-id tree. */
static void strip_target(const char *name, const char *build_id_dir)
{
	const char *target = fixture("symbolize-target");
	uint8_t id[20];
	char hex[41];
	size_t n = build_id_of(target, id);

	build_id_hex(id, n, hex);
	ck_assert_int_eq(shell("mkdir -p '%s/bin' && cp '%s' '%s/bin/%s' && "
			       "objcopy --only-keep-debug '%s' '%s/target.debug' && "
			       "strip --strip-all '%s/bin/%s'",
			       temp_dir, target, temp_dir, name, target, temp_dir, temp_dir, name), 0);
	if (build_id_dir)
		ck_assert_int_eq(shell("mkdir -p '%s/%s/.build-id/%.2s' && "
				       "mv '%s/target.debug' '%s/%s/.build-id/%.2s/%s.debug'",
				       temp_dir, build_id_dir, hex, temp_dir, temp_dir,
				       build_id_dir, hex, hex + 2), 0);
}

static void compare_target_via(struct symbolizer *s, struct dso *dso, const char *what,
			       int lines, int only_named)
{
	const char *target = fixture("symbolize-target");
	struct addresses a = { 0 };
	struct layout layout;
	struct comparison c = { what, target, target, lines, lines, only_named };

	read_layout(target, &layout);
	add_code(&a, &layout, 1);
	compare(s, dso, &a, &c);
	free(a.vaddrs);
}

START_TEST(stripped_with_debug_dir)
{
	const char *dirs[] = { temp_path("debug") };
	struct symbolizer *s;
	struct dso *dso;

	strip_target("target", "debug");
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, temp_path("bin/target"), fixture("symbolize-target"));
	compare_target_via(s, dso, "stripped target with a debug dir", 1, 0);
	ck_assert_str_eq(dso_elf_path(dso), temp_path("bin/target"));
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

/*
 * Debian's debug files have compressed DWARF: the symbolizer hands libdwfl
 * an uncompressed copy (reader/symbolize/uncompress.c).  The same answers.
 */
START_TEST(compressed_debug_file)
{
	const char *dirs[] = { temp_path("debug") };
	struct symbolizer *s;
	struct dso *dso;

	strip_target("target", "debug");
	ck_assert_int_eq(shell("cd '%s/debug/.build-id'/* && f=$(ls) && "
			       "objcopy --compress-debug-sections=zlib \"$f\" \"$f.z\" && mv \"$f.z\" \"$f\" && "
			       "readelf -S -W \"$f\" | grep -q ' .debug_info .* C '", temp_dir), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, temp_path("bin/target"), fixture("symbolize-target"));
	compare_target_via(s, dso, "stripped target with a compressed debug file", 1, 0);
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

/* Each section of the file at path, inflated by libelf, against the copy at fd. */
static void check_copy(const char *path, int copy_fd)
{
	int fd = open(path, O_RDONLY);
	Elf *original = elf_begin(fd, ELF_C_READ, NULL), *copy = elf_begin(copy_fd, ELF_C_READ, NULL);
	size_t count, copy_count, inflated = 0;

	ck_assert_ptr_nonnull(original);
	ck_assert_ptr_nonnull(copy);
	ck_assert_int_eq(elf_getshdrnum(original, &count), 0);
	ck_assert_int_eq(elf_getshdrnum(copy, &copy_count), 0);
	ck_assert_uint_eq(count, copy_count);
	for (size_t i = 1; i < count; i++) {
		Elf_Scn *a = elf_getscn(original, i), *b = elf_getscn(copy, i);
		GElf_Shdr sa, sb;
		Elf_Data *da, *db;

		ck_assert(gelf_getshdr(a, &sa) && gelf_getshdr(b, &sb));
		if (sa.sh_flags & SHF_COMPRESSED) {
			ck_assert_int_eq(elf_compress(a, 0, 0), 1);
			ck_assert(gelf_getshdr(a, &sa));
			inflated++;
		}
		ck_assert_uint_eq(sb.sh_flags & SHF_COMPRESSED, 0);
		ck_assert_uint_eq(sa.sh_name, sb.sh_name);
		ck_assert_uint_eq(sa.sh_type, sb.sh_type);
		ck_assert_uint_eq(sa.sh_addr, sb.sh_addr);
		ck_assert_uint_eq(sa.sh_size, sb.sh_size);
		if (sa.sh_type == SHT_NOBITS)
			continue;
		da = elf_rawdata(a, NULL);
		db = elf_rawdata(b, NULL);
		ck_assert(da && db && da->d_size == db->d_size);
		ck_assert_int_eq(memcmp(da->d_buf, db->d_buf, da->d_size), 0);
	}
	ck_assert_uint_gt(inflated, 3);
	elf_end(original);
	elf_end(copy);
	close(fd);
}

START_TEST(uncompressed_copy)
{
	const char *target = fixture("symbolize-target");
	const char *compressed = temp_path("z.debug"), *damaged = temp_path("damaged.debug");
	int fd, copy;

	elf_version(EV_CURRENT);
	ck_assert_int_eq(shell("objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s'",
			       target, compressed), 0);
	fd = open(compressed, O_RDONLY);
	copy = debug_file_uncompressed(fd);
	ck_assert_int_ge(copy, 0);
	ck_assert_int_ne(copy, fd);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);	/* closed */
	check_copy(compressed, copy);
	close(copy);

	/* Nothing compressed: the same fd back. */
	fd = open(target, O_RDONLY);
	ck_assert_int_eq(debug_file_uncompressed(fd), fd);
	close(fd);

	/* .debug_info that does not inflate: the file as it is, for libdw to refuse. */
	ck_assert_int_eq(shell("cp '%s' '%s' && off=$(readelf -S -W '%s' | "
			       "awk '$2 == \".debug_info\" { print $5 }') && "
			       "printf '%%01000d' 0 | dd of='%s' bs=1 seek=$((0x$off + 64)) conv=notrunc status=none",
			       compressed, damaged, damaged, damaged), 0);
	fd = open(damaged, O_RDONLY);
	ck_assert_int_eq(debug_file_uncompressed(fd), fd);
	close(fd);
}
END_TEST

START_TEST(debug_file_alone)
{
	const char *dirs[] = { temp_path("debug") };
	struct symbolizer *s;
	struct dso *dso;

	strip_target("target", "debug");
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	/* Recorded at a path this host does not have. */
	dso = dso_with_id_of(s, "/opt/elsewhere/target", fixture("symbolize-target"));
	compare_target_via(s, dso, "target from its debug file alone", 1, 0);
	ck_assert_ptr_nonnull(strstr(dso_elf_path(dso), ".debug"));
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

/*
 * Every address of a PLT section is one row, "[DSO+0xSTART]", START the
 * section's file offset: from the binary (its .plt FDE, or the section)
 * and from its debug file alone (no .eh_frame there, the section header).
 */
static void check_plt_names(struct symbolizer *s, struct dso *dso, const char *dso_name,
			    const char *sections)
{
	char *text = strdup(sections), *save = NULL;
	unsigned checked = 0;

	ck_assert_ptr_nonnull(text);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long address, offset, size;
		char name[64], want[128];

		ck_assert_int_eq(sscanf(line, "%63s %llx %llx %llx", name, &address, &offset, &size), 4);
		snprintf(want, sizeof(want), "[%s+0x%llx]", dso_name, offset);
		for (unsigned long long at = offset; at < offset + size; at++) {
			struct symbol_answer answer;

			symbolizer_lookup(s, dso, at, &answer);
			ck_assert_msg(answer.frame_count == 1 && answer.frames[0].cfi_extent &&
				      !strcmp(answer.frames[0].function, want),
				      "%s at %#llx: %s, not %s", name, at,
				      answer.frame_count ? answer.frames[0].function : "nothing", want);
			checked++;
		}
	}
	printf("%s: %u PLT addresses, each named after its section\n", dso_name, checked);
	ck_assert_uint_gt(checked, 0);
	free(text);
}

START_TEST(plt_named_alike)
{
	const char *dirs[] = { temp_path("debug") };
	const char *target = fixture("symbolize-target");
	/* "NAME ADDRESS OFFSET SIZE" of .plt, .plt.got, .plt.sec: the file's own. */
	char *sections = capture("readelf -SW '%s' | sed 's/^ *\\[ *[0-9]*\\]//' | "
				 "awk '$1 ~ /^\\.plt(\\.got|\\.sec)?$/ { print $1, $3, $4, $5 }'",
				 target);
	struct symbolizer *s;

	ck_assert_msg(strstr(sections, ".plt "), "no .plt in %s", target);
	s = new_symbolizer(NULL, NULL, 0, 1, 1);
	check_plt_names(s, dso_with_id_of(s, target, target), "symbolize-target", sections);
	symbolizer_free(s);

	strip_target("target", "debug");
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	check_plt_names(s, dso_with_id_of(s, "/opt/elsewhere/target", target), "target", sections);
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
	free(sections);
}
END_TEST

/* eu-strip keeps the program headers objcopy --only-keep-debug rewrites. */
START_TEST(eu_strip_debug_file_alone)
{
	const char *target = fixture("symbolize-target");
	const char *dirs[] = { temp_path("debug") };
	uint8_t id[20];
	char hex[41];
	size_t n = build_id_of(target, id);
	struct symbolizer *s;
	struct dso *dso;

	if (!have_tool("eu-strip")) {
		skip_check("no eu-strip: its debug files not tested (apt-get install elfutils)");
		return;
	}
	build_id_hex(id, n, hex);
	ck_assert_int_eq(shell("mkdir -p '%s/debug/.build-id/%.2s' && cp '%s' '%s/copy' && "
			       "eu-strip -f '%s/debug/.build-id/%.2s/%s.debug' '%s/copy'",
			       temp_dir, hex, target, temp_dir, temp_dir, hex, hex + 2, temp_dir), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, "/opt/elsewhere/target", target);
	compare_target_via(s, dso, "target from its eu-strip debug file alone", 1, 0);
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

START_TEST(binary_in_build_id_tree)
{
	const char *target = fixture("symbolize-target");
	const char *dirs[] = { temp_path("ids") };
	uint8_t id[20];
	char hex[41];
	size_t n = build_id_of(target, id);
	struct symbolizer *s;
	struct dso *dso;

	build_id_hex(id, n, hex);
	ck_assert_int_eq(shell("mkdir -p '%s/ids/.build-id/%.2s' && ln -s '%s' '%s/ids/.build-id/%.2s/%s'",
			       temp_dir, hex, target, temp_dir, hex, hex + 2), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, "/opt/elsewhere/target", target);
	compare_target_via(s, dso, "target from .build-id/xx/rest", 1, 0);
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

START_TEST(stripped_with_debuglink)
{
	const char *dirs[] = { temp_path("empty") };
	struct symbolizer *s;
	struct dso *dso;

	strip_target("target", NULL);
	/* The debug file next to the binary, named by .gnu_debuglink only. */
	ck_assert_int_eq(shell("mkdir -p '%s/empty' && mv '%s/target.debug' '%s/bin/target.debug' && "
			       "cd '%s/bin' && objcopy --add-gnu-debuglink=target.debug target",
			       temp_dir, temp_dir, temp_dir, temp_dir), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, temp_path("bin/target"), fixture("symbolize-target"));
	compare_target_via(s, dso, "stripped target with .gnu_debuglink", 1, 0);
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

/* MiniDebugInfo as Fedora makes it: function symbols, xz'd, no DWARF. */
START_TEST(stripped_with_gnu_debugdata)
{
	const char *dirs[] = { temp_path("empty") };
	const char *target = fixture("symbolize-target");
	struct symbolizer *s;
	struct dso *dso;

	if (!have_tool("xz")) {
		skip_check("no xz: .gnu_debugdata not tested (apt-get install xz-utils)");
		return;
	}
	strip_target("target", NULL);
	ck_assert_int_eq(shell("cd '%s' && mkdir -p empty && "
			       "nm -D '%s' --format=posix --defined-only | awk '{ print $1 }' | "
			       "sort > dynsyms && "
			       "nm '%s' --format=posix --defined-only | "
			       "awk '$2 ~ /[TtW]/ { print $1 }' | sort > funcsyms && "
			       "comm -13 dynsyms funcsyms > keep && "
			       "objcopy -S --remove-section .gdb_index --remove-section .comment "
			       "--keep-symbols=keep target.debug mini && xz mini && "
			       "objcopy --add-section .gnu_debugdata=mini.xz bin/target && rm target.debug",
			       temp_dir, target, target), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, temp_path("bin/target"), target);
	compare_target_via(s, dso, "stripped target with .gnu_debugdata", 0, 1);
	symbolizer_free(s);
}
END_TEST

/*
 * Stripped, nothing else: no static function is named, never after a
 * neighbour; each of its addresses is named after its function's extent
 * in .eh_frame, "[target+0xSTART]", START the file offset of the symbol
 * nm gives in the unstripped binary, and symbol_offset from there.
 */
START_TEST(stripped_alone_claims_nothing_wrong)
{
	const char *dirs[] = { temp_path("empty") };
	const char *target = fixture("symbolize-target");
	static const char *const names[] = { "local_sum.constprop.0", "mix_outer", "main" };
	struct layout layout;
	struct symbolizer *s;
	struct dso *dso;

	strip_target("target", NULL);
	ck_assert_int_eq(shell("rm '%s/target.debug' && mkdir -p '%s/empty'", temp_dir, temp_dir), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, temp_path("bin/target"), target);
	read_layout(target, &layout);
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		const char *one[] = { names[n], NULL };
		struct addresses a = { 0 };
		uint64_t start;
		char expect[64];

		ck_assert_uint_eq(add_functions(&a, target, one, 1), 1);
		ck_assert_int_eq(vaddr_to_offset(&layout, a.vaddrs[0], &start), 0);
		snprintf(expect, sizeof(expect), "[target+%#llx]", (unsigned long long)start);
		for (size_t i = 0; i < a.count; i++) {
			struct symbol_answer answer;
			uint64_t offset;

			ck_assert_int_eq(vaddr_to_offset(&layout, a.vaddrs[i], &offset), 0);
			symbolizer_lookup(s, dso, offset, &answer);
			ck_assert_uint_eq(answer.frame_count, 1);
			ck_assert_int_eq(answer.frames[0].cfi_extent, 1);
			ck_assert_str_eq(answer.frames[0].function, expect);
			ck_assert_uint_eq(answer.frames[0].symbol_offset, offset - start);
			ck_assert_ptr_null(answer.frames[0].file);
		}
		free(a.vaddrs);
	}
	symbolizer_free(s);
}
END_TEST

/* ---- finding and refusing files --------------------------------------- */

START_TEST(rebuilt_binary_is_not_used)
{
	const char *dirs[] = { temp_path("empty") };
	const char *v1 = fixture("symbolize-target"), *v2 = fixture("symbolize-target-v2");
	uint8_t id1[20], id2[20];
	char hex1[41], hex2[41];
	size_t n1 = build_id_of(v1, id1), n2 = build_id_of(v2, id2);
	struct addresses a = { 0 };
	struct layout layout;
	struct symbolizer *s;
	struct dso *dso;

	build_id_hex(id1, n1, hex1);
	build_id_hex(id2, n2, hex2);
	ck_assert_str_ne(hex1, hex2);
	ck_assert_int_eq(mkdir(dirs[0], 0700), 0);
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	/* The capture saw v1 at v2's path; v2 is what this host has there. */
	dso = symbolizer_dso(s, v2, id1, n1);
	ck_assert_ptr_nonnull(dso);
	read_layout(v2, &layout);
	add_code(&a, &layout, 1);
	for (size_t i = 0; i < a.count; i++) {
		struct symbol_answer answer;
		uint64_t offset;

		ck_assert_int_eq(vaddr_to_offset(&layout, a.vaddrs[i], &offset), 0);
		symbolizer_lookup(s, dso, offset, &answer);
		ck_assert_uint_eq(answer.frame_count, 0);
		ck_assert_ptr_eq(answer.dso, dso);
	}
	ck_assert_uint_eq(warnings.count, 1);
	ck_assert_ptr_nonnull(strstr(warnings.last, v2));
	ck_assert_ptr_nonnull(strstr(warnings.last, hex1));
	ck_assert_ptr_nonnull(strstr(warnings.last, hex2));
	ck_assert_ptr_nonnull(strstr(warnings.last, "not used"));
	ck_assert_ptr_null(dso_elf_path(dso));
	printf("rebuilt binary: %s\n", warnings.last);
	free(a.vaddrs);
	symbolizer_free(s);
}
END_TEST

START_TEST(rebuilt_binary_but_debug_file_found)
{
	const char *dirs[] = { temp_path("debug") };
	struct symbolizer *s;
	struct dso *dso;

	strip_target("unused", "debug");
	s = new_symbolizer(NULL, dirs, 1, 1, 1);
	dso = dso_with_id_of(s, fixture("symbolize-target-v2"), fixture("symbolize-target"));
	compare_target_via(s, dso, "target rebuilt, debug file of the old one", 1, 0);
	ck_assert_uint_eq(warnings.count, 0);
	symbolizer_free(s);
}
END_TEST

START_TEST(no_build_id_uses_the_path)
{
	const char *target = fixture("symbolize-target");
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	struct dso *dso = symbolizer_dso(s, target, NULL, 0);
	struct dso *missing = symbolizer_dso(s, "/nonexistent/file.so", NULL, 0);
	struct dso *rebuilt = symbolizer_dso(s, fixture("symbolize-target-v2"), NULL, 0);
	struct comparison c = { "target without build-id", target, target, 1, 1, 0 };
	struct addresses a = { 0 };
	struct layout layout;
	struct symbol_answer answer;

	ck_assert_ptr_nonnull(dso);
	ck_assert_str_eq(dso_build_id_hex(dso), "");
	read_layout(target, &layout);
	add_code(&a, &layout, 1);
	compare(s, dso, &a, &c);
	symbolizer_lookup(s, missing, 0x1000, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	/* Unchecked: whatever is there now is used. */
	symbolizer_lookup(s, rebuilt, 0x1080, &answer);
	ck_assert_ptr_nonnull(dso_elf_path(rebuilt));
	ck_assert_uint_eq(warnings.count, 0);
	free(a.vaddrs);
	symbolizer_free(s);
}
END_TEST

START_TEST(symfs_root)
{
	const char *target = fixture("symbolize-target");
	const char *dirs[] = { temp_path("empty") };
	struct symbolizer *s;
	struct dso *dso, *escape, *escape_no_id;
	struct symbol_answer answer;

	ck_assert_int_eq(shell("mkdir -p '%s/root/usr/bin' '%s/empty' && cp '%s' '%s/root/usr/bin/prog' && "
			       "cp '%s' '%s/outside'",
			       temp_dir, temp_dir, target, temp_dir, target, temp_dir), 0);
	s = new_symbolizer(temp_path("root"), dirs, 1, 1, 1);
	dso = dso_with_id_of(s, "/usr/bin/prog", target);
	compare_target_via(s, dso, "target under --symfs", 1, 0);
	ck_assert_str_eq(dso_elf_path(dso), temp_path("root/usr/bin/prog"));
	ck_assert_uint_eq(warnings.count, 0);
	/* ".." would leave the root for temp_dir/outside: refused. */
	escape = dso_with_id_of(s, "/../outside", target);
	symbolizer_lookup(s, escape, 0x1080, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	ck_assert_ptr_null(dso_elf_path(escape));
	ck_assert_uint_eq(warnings.count, 1);
	escape_no_id = symbolizer_dso(s, "/usr/bin/../../../outside", NULL, 0);
	symbolizer_lookup(s, escape_no_id, 0x1080, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	ck_assert_uint_eq(warnings.count, 1);
	symbolizer_free(s);
}
END_TEST

START_TEST(interning_and_names)
{
	const char *target = fixture("symbolize-target");
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	uint8_t id[20], other[20];
	size_t n = build_id_of(target, id);
	char hex[41];
	struct dso *a, *b, *c, *d;

	memcpy(other, id, sizeof(other));
	other[0] ^= 1;
	a = symbolizer_dso(s, target, id, n);
	b = symbolizer_dso(s, target, id, n);
	c = symbolizer_dso(s, target, other, n);
	d = symbolizer_dso(s, target, NULL, 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_ne(a, c);
	ck_assert_ptr_ne(a, d);
	ck_assert_ptr_ne(c, d);
	ck_assert_str_eq(dso_path(a), target);
	ck_assert_str_eq(dso_short_name(a), "symbolize-target");
	build_id_hex(id, n, hex);
	ck_assert_str_eq(dso_build_id_hex(a), hex);
	ck_assert_int_eq(dso_is_kernel(a), 0);
	ck_assert_ptr_null(dso_elf_path(a));	/* not looked up yet */
	ck_assert_str_eq(dso_short_name(symbolizer_dso(s, "[vdso]", NULL, 0)), "[vdso]");
	symbolizer_free(s);
}
END_TEST

START_TEST(hostile_inputs)
{
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	const char *target = fixture("symbolize-target");
	uint8_t id[32] = { 1, 2, 3 };
	char *long_path = malloc(PATH_MAX + 16);
	struct symbol_answer answer;
	struct dso *dso, *text, *fifo, *vdso;
	FILE *f;

	ck_assert_ptr_nonnull(long_path);
	memset(long_path, 'a', PATH_MAX + 15);
	long_path[0] = '/';
	long_path[PATH_MAX + 15] = '\0';
	ck_assert_ptr_null(symbolizer_dso(s, long_path, NULL, 0));
	long_path[PATH_MAX] = '\0';
	ck_assert_ptr_null(symbolizer_dso(s, long_path, NULL, 0));
	long_path[PATH_MAX - 1] = '\0';
	dso = symbolizer_dso(s, long_path, id, 20);
	ck_assert_ptr_nonnull(dso);
	symbolizer_lookup(s, dso, 0, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	free(long_path);
	ck_assert_ptr_null(symbolizer_dso(s, target, id, 21));
	ck_assert_ptr_null(symbolizer_dso(s, NULL, NULL, 0));
	symbolizer_lookup(s, NULL, 0x1000, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	ck_assert_ptr_null(answer.dso);

	/* Offsets past every segment, and the file header. */
	dso = dso_with_id_of(s, target, target);
	symbolizer_lookup(s, dso, UINT64_MAX, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	symbolizer_lookup(s, dso, 1ull << 40, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	symbolizer_lookup(s, dso, 0, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);

	/* Not ELF, a FIFO (must not block), a pseudo-path. */
	f = fopen(temp_path("text"), "w");
	ck_assert_ptr_nonnull(f);
	fputs("not an ELF file\n", f);
	fclose(f);
	text = symbolizer_dso(s, temp_path("text"), id, 20);
	symbolizer_lookup(s, text, 0, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	ck_assert_uint_eq(warnings.count, 2);	/* the long path, the text file */
	ck_assert_int_eq(mkfifo(temp_path("fifo"), 0600), 0);
	fifo = symbolizer_dso(s, temp_path("fifo"), NULL, 0);
	symbolizer_lookup(s, fifo, 0, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	vdso = symbolizer_dso(s, "[vdso]", id, 20);
	symbolizer_lookup(s, vdso, 0x1000, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	ck_assert_uint_eq(warnings.count, 2);
	symbolizer_free(s);
	symbolizer_free(NULL);
}
END_TEST

/* ---- the kernel --------------------------------------------------------- */

static const char synthetic_kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000000 t _text\n"
	"ffffffff81000100 t local_function\n"
	"ffffffff81000200 W weak_function\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T before_a_hole\n"
	"ffffffff81400000 T after_the_hole\n"
	"ffffffff81400800 T _etext\n"
	"ffffffff81400900 r not_text\n"
	"ffffffffc0000000 t mod_start\t[dummy]\n"
	"ffffffffc0000080 T mod_end\t[dummy]\n"
	"ffffffffc0004000 t other_start\t[other]\n"
	"this line is garbage\n"
	"ffffffffffffffffff T too_long_an_address\n"
	"ffffffffc0005000 T no_newline_at_the_end";

static const char *kernel_name(struct symbolizer *s, struct dso *kernel, uint64_t address,
			       const char **dso_name, uint64_t *offset)
{
	struct symbol_answer answer;

	symbolizer_lookup(s, kernel, address, &answer);
	if (!answer.frame_count)
		return NULL;
	ck_assert_uint_eq(answer.frame_count, 1);
	ck_assert_ptr_nonnull(answer.dso);
	ck_assert(dso_is_kernel(answer.dso));
	if (dso_name)
		*dso_name = dso_short_name(answer.dso);
	if (offset)
		*offset = answer.frames[0].symbol_offset;
	return answer.frames[0].function;
}

/* Control characters from a capture never reach a terminal raw. */
START_TEST(control_characters_escaped)
{
	static const char kallsyms[] = "ffffffff81000000 T \x1b]0;title\x07\x1b[31mred\n"
				       "ffffffff81000100 t in_module\t[m\x1b[0m]\n";
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	uint8_t id[20] = { 0 };
	struct dso *dso = symbolizer_dso(s, "/tmp/\x1b[2J\x1b[H\nsecond line", id, 20);
	struct dso *kernel = symbolizer_kernel(s, kallsyms, sizeof(kallsyms) - 1, NULL, 0);
	struct symbol_answer answer;
	const char *dso_name = NULL;

	ck_assert_ptr_nonnull(dso);
	ck_assert_str_eq(dso_short_name(dso), "\\x1b[2J\\x1b[H\\x0asecond line");
	ck_assert_str_eq(dso_path(dso), "/tmp/\x1b[2J\x1b[H\nsecond line");
	symbolizer_lookup(s, dso, 0, &answer);
	ck_assert_uint_eq(answer.frame_count, 0);
	ck_assert_uint_eq(warnings.count, 1);
	ck_assert_ptr_null(strchr(warnings.last, '\x1b'));
	ck_assert_ptr_null(strchr(warnings.last, '\n'));
	ck_assert_ptr_nonnull(strstr(warnings.last, "/tmp/\\x1b[2J\\x1b[H\\x0asecond line"));
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000010ull, NULL, NULL),
			 "\\x1b]0;title\\x07\\x1b[31mred");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000110ull, &dso_name, NULL), "in_module");
	ck_assert_str_eq(dso_name, "[m\\x1b[0m]");
	symbolizer_free(s);
}
END_TEST

START_TEST(kernel_synthetic)
{
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	uint8_t id[20] = { 0xab, 0xcd };
	struct dso *kernel = symbolizer_kernel(s, synthetic_kallsyms, sizeof(synthetic_kallsyms) - 1,
					       id, 20);
	const char *dso_name = NULL;
	uint64_t offset = 0;

	ck_assert_ptr_nonnull(kernel);
	ck_assert_str_eq(dso_short_name(kernel), "[kernel.kallsyms]");
	ck_assert(dso_is_kernel(kernel));
	ck_assert_str_eq(dso_build_id_hex(kernel), "abcd000000000000000000000000000000000000");
	/* The same text is the same kernel. */
	ck_assert_ptr_eq(symbolizer_kernel(s, synthetic_kallsyms, sizeof(synthetic_kallsyms) - 1,
					   id, 20), kernel);
	ck_assert_ptr_null(kernel_name(s, kernel, 0xffffffff80ffffffull, NULL, NULL));
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000000ull, &dso_name, NULL), "startup_64");
	ck_assert_str_eq(dso_name, "[kernel.kallsyms]");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff810000ffull, NULL, &offset), "startup_64");
	ck_assert_uint_eq(offset, 0xff);
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000100ull, NULL, NULL), "local_function");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000350ull, NULL, NULL), "weak_function");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000400ull, NULL, NULL), "before_a_hole");
	/* 1 MiB past a symbol is a hole, not the symbol. */
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff810fffffull, NULL, NULL), "before_a_hole");
	ck_assert_ptr_null(kernel_name(s, kernel, 0xffffffff81100400ull, NULL, NULL));
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81400000ull, NULL, NULL), "after_the_hole");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffffc0000010ull, &dso_name, NULL), "mod_start");
	ck_assert_str_eq(dso_name, "[dummy]");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffffc00000f0ull, &dso_name, NULL), "mod_end");
	ck_assert_str_eq(dso_name, "[dummy]");
	/* Past a module's last symbol: a page and a bit, not up to the next module. */
	ck_assert_ptr_null(kernel_name(s, kernel, 0xffffffffc0003000ull, NULL, NULL));
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffffc0004010ull, &dso_name, NULL), "other_start");
	ck_assert_str_eq(dso_name, "[other]");
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffffc0005010ull, &dso_name, NULL),
			 "no_newline_at_the_end");
	ck_assert_ptr_null(kernel_name(s, kernel, 0xffffffffc0007000ull, NULL, NULL));
	ck_assert_ptr_null(kernel_name(s, kernel, UINT64_MAX, NULL, NULL));
	ck_assert_ptr_null(kernel_name(s, kernel, 0, NULL, NULL));
	/*
	 * Names are kept in a copy of the text until looked up: the caller's
	 * text may go at once.  One name changed is another kernel.
	 */
	{
		size_t size = sizeof(synthetic_kallsyms) - 1;
		char *text = malloc(size);
		char *name;
		struct dso *other;

		ck_assert_ptr_nonnull(text);
		memcpy(text, synthetic_kallsyms, size);
		name = memmem(text, size, "local_function", strlen("local_function"));
		ck_assert_ptr_nonnull(name);
		name[0] = 'L';
		other = symbolizer_kernel(s, text, size, id, 20);
		ck_assert_ptr_nonnull(other);
		ck_assert_ptr_ne(other, kernel);
		memset(text, 'x', size);
		free(text);
		ck_assert_str_eq(kernel_name(s, other, 0xffffffff81000100ull, NULL, NULL),
				 "Local_function");
		ck_assert_str_eq(kernel_name(s, other, 0xffffffff81000000ull, NULL, NULL),
				 "startup_64");
		ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000100ull, NULL, NULL),
				 "local_function");
	}
	/* Another build-id: another kernel. */
	id[0] = 0;
	ck_assert_ptr_ne(symbolizer_kernel(s, synthetic_kallsyms, sizeof(synthetic_kallsyms) - 1,
					   id, 20), kernel);
	ck_assert_ptr_null(symbolizer_kernel(s, synthetic_kallsyms, 10, id, 21));
	symbolizer_free(s);
}
END_TEST

START_TEST(kernel_hidden_addresses)
{
	static const char hidden[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 T startup_64\n"
		"0000000000000000 t mod_start\t[dummy]\n";
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	struct dso *kernel = symbolizer_kernel(s, hidden, sizeof(hidden) - 1, NULL, 0);
	struct dso *empty = symbolizer_kernel(s, "", 0, NULL, 0);

	ck_assert_ptr_nonnull(kernel);
	ck_assert_ptr_nonnull(empty);
	ck_assert_ptr_null(kernel_name(s, kernel, 0, NULL, NULL));
	ck_assert_ptr_null(kernel_name(s, kernel, 0xffffffff81000000ull, NULL, NULL));
	ck_assert_ptr_null(kernel_name(s, empty, 0xffffffff81000000ull, NULL, NULL));
	symbolizer_free(s);
}
END_TEST

static char *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	size_t capacity = 1 << 20, n;
	char *text = malloc(capacity);

	if (!f)
		return NULL;
	ck_assert_ptr_nonnull(text);
	*size = 0;
	while ((n = fread(text + *size, 1, capacity - *size, f)) > 0) {
		*size += n;
		if (*size == capacity) {
			capacity *= 2;
			text = realloc(text, capacity);
			ck_assert_ptr_nonnull(text);
		}
	}
	fclose(f);
	return text;
}

/* Whether some line of kallsyms names address as name (aliases share one). */
static int kallsyms_has(const char *text, size_t size, unsigned long long address,
			const char *name)
{
	char line[64];
	const char *at = text, *end = text + size;
	int n = snprintf(line, sizeof(line), "%016llx ", address);

	while (at < end && (at = memmem(at, (size_t)(end - at), line, (size_t)n))) {
		if (!strncmp(at + n + 2, name, strlen(name)) &&
		    strchr(" \t\n", at[n + 2 + strlen(name)]))
			return 1;
		at += n;
	}
	return 0;
}

static const char *const known_kernel_functions[] = {
	"schedule", "vfs_read", "do_sys_openat2", "__x64_sys_getpid", "kmem_cache_alloc", NULL,
};

/* One line of kallsyms worth checking: a known function, or a module's first. */
static int check_kallsyms_line(struct symbolizer *s, struct dso *kernel, const char *text,
			       size_t size, const char *line, int *module_checked)
{
	char type, name[512], module[80] = "";
	const char *dso_name = NULL, *got;
	unsigned long long address;
	int fields = sscanf(line, "%llx %c %511s %79s", &address, &type, name, module);
	int wanted = fields == 4 && !*module_checked;

	if (fields < 3 || !address || !strchr("tT", type))
		return 0;
	for (size_t i = 0; known_kernel_functions[i]; i++)
		wanted |= fields == 3 && !strcmp(known_kernel_functions[i], name);
	if (!wanted)
		return 0;
	got = kernel_name(s, kernel, address, &dso_name, NULL);
	ck_assert_ptr_nonnull(got);
	/* The name of that address, or of an alias there. */
	ck_assert_msg(kallsyms_has(text, size, address, got), "%s at %llx", got, address);
	ck_assert_ptr_eq(kernel_name(s, kernel, address + 1, NULL, NULL), got);
	ck_assert_str_eq(dso_name, fields == 4 ? module : "[kernel.kallsyms]");
	*module_checked |= fields == 4;
	return 1;
}

START_TEST(kernel_from_proc)
{
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	size_t size = 0, resolved = 0;
	char *text = read_whole("/proc/kallsyms", &size);
	int module_checked = 0;
	struct dso *kernel;

	if (!text) {
		skip_check("no /proc/kallsyms");
		symbolizer_free(s);
		return;
	}
	kernel = symbolizer_kernel(s, text, size, NULL, 0);
	ck_assert_ptr_nonnull(kernel);
	for (char *line = text; line < text + size;) {
		char *newline = memchr(line, '\n', (size_t)(text + size - line));

		if (!newline)
			break;
		*newline = '\0';
		resolved += (size_t)check_kallsyms_line(s, kernel, text, size, line, &module_checked);
		*newline = '\n';
		line = newline + 1;
	}
	if (resolved)
		printf("/proc/kallsyms: %zu known functions resolved%s\n", resolved,
		       module_checked ? ", and a module's" : "");
	else
		printf("/proc/kallsyms: addresses hidden (kptr_restrict), nothing resolved\n");
	free(text);
	symbolizer_free(s);
}
END_TEST

/* Garbage and near-misses of kallsyms: no crash, nothing resolves wrongly. */
START_TEST(kernel_garbage)
{
	struct symbolizer *s = new_symbolizer(NULL, NULL, 0, 1, 1);
	static const char *const texts[] = {
		"ffffffff81000000",
		"ffffffff81000000 T",
		"ffffffff81000000 T ",
		"ffffffff81000000 Tname",
		"ffffffff81000000  T name",
		"ffffffff81000000 T name\t[",
		"ffffffff81000000 T name\t[]",
		"ffffffff81000000 T name\t[unterminated",
		"\n\n\n",
		"ffffffff81000000 T ok\nxyz T bad\n",
	};
	static const char alphabet[] = "0123456789abcdef tTwW\t[]\n_x";
	char *noise = malloc(1 << 16);
	unsigned seed = 12345;
	struct dso *kernel;

	ck_assert_ptr_nonnull(noise);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		kernel = symbolizer_kernel(s, texts[i], strlen(texts[i]), NULL, 0);
		ck_assert_ptr_nonnull(kernel);
		kernel_name(s, kernel, 0xffffffff81000000ull, NULL, NULL);
	}
	ck_assert_str_eq(kernel_name(s, kernel, 0xffffffff81000010ull, NULL, NULL), "ok");
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < 1 << 16; i++) {
			seed = seed * 1103515245u + 12345u;
			noise[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		kernel = symbolizer_kernel(s, noise, 1 << 16, NULL, 0);
		ck_assert_ptr_nonnull(kernel);
		for (uint64_t a = 0; a < 64; a++)
			kernel_name(s, kernel, (uint64_t)seed * a, NULL, NULL);
	}
	free(noise);
	symbolizer_free(s);
}
END_TEST

/* ---- speed ---------------------------------------------------------------- */

/* CPU time: other work on the machine does not slow the count. */
static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

START_TEST(throughput)
{
	const char *debug = libc_debug_file();
	struct symbolizer *s;
	struct dso *dso;
	struct addresses a = { 0 };
	struct layout layout;
	struct timespec start;
	uint64_t *offsets;
	size_t count = 0, resolved = 0, rounds = 20;
	double unique_time, cached_time;

	if (!libc_path[0]) {
		skip_check("throughput: no libc.so.6 found");
		return;
	}
	s = new_symbolizer(NULL, NULL, 0, 1, 1);
	dso = dso_with_id_of(s, libc_path, libc_path);
	read_layout(libc_path, &layout);
	add_code(&a, &layout, 7);
	offsets = malloc(a.count * sizeof(*offsets));
	ck_assert_ptr_nonnull(offsets);
	for (size_t i = 0; i < a.count; i++)
		if (!vaddr_to_offset(&layout, a.vaddrs[i], &offsets[count]))
			count++;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
	for (size_t i = 0; i < count; i++) {
		struct symbol_answer answer;

		symbolizer_lookup(s, dso, offsets[i], &answer);
		resolved += answer.frame_count > 0;
	}
	unique_time = seconds_since(&start);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
	for (size_t r = 0; r < rounds; r++)
		for (size_t i = 0; i < count; i++) {
			struct symbol_answer answer;

			symbolizer_lookup(s, dso, offsets[(i * 7919) % count], &answer);
		}
	cached_time = seconds_since(&start);
	printf("throughput (libc.so.6%s, lines and inlines): %zu unique addresses in %.3f s of CPU "
	       "(%.0f/s, %zu resolved, opening included); %zu cached lookups in %.3f s (%.0f/s)\n",
	       debug ? " with libc6-dbg" : "", count, unique_time, count / unique_time, resolved,
	       rounds * count, cached_time, rounds * count / cached_time);
	ck_assert_uint_gt(resolved, count / 2);
	free(offsets);
	free(a.vaddrs);
	symbolizer_free(s);
}
END_TEST

/* ---- debuginfod ----------------------------------------------------------- */

/* A socket listening on 127.0.0.1 (nobody accepts: the kernel completes
 * handshakes into its backlog); its port in *port. */
static int listen_loopback(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t size = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 64), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &size), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Three DSOs, two of them one build-id at two paths, none on this host;
 * each looked up at ten addresses. */
static void look_up_missing(struct symbolizer *s)
{
	static const uint8_t ids[2][20] = { { 0xde, 0xad, 1 }, { 0xbe, 0xef, 2 } };
	struct dso *dsos[3];

	dsos[0] = symbolizer_dso(s, "/nonexistent/one", ids[0], 20);
	dsos[1] = symbolizer_dso(s, "/nonexistent/one-again", ids[0], 20);
	dsos[2] = symbolizer_dso(s, "/nonexistent/two", ids[1], 20);
	for (int round = 0; round < 10; round++)
		for (int i = 0; i < 3; i++) {
			struct symbol_answer answer;

			ck_assert_ptr_nonnull(dsos[i]);
			symbolizer_lookup(s, dsos[i], 0x1000 + 16 * round, &answer);
			ck_assert_uint_eq(answer.frame_count, 0);
		}
}

static struct symbolizer *debuginfod_symbolizer(const char *urls,
						 struct symbolizer_source **source)
{
	const char *dirs[] = { temp_path("empty") };
	struct symbolizer_options o = {
		.debug_dirs = dirs,
		.debug_dir_count = 1,
		.warn = record_warning,
		.warn_context = &warnings,
	};
	struct symbolizer *s;

	mkdir(dirs[0], 0700);
	setenv("DEBUGINFOD_CACHE_PATH", temp_path("debuginfod-cache"), 1);
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	memset(&warnings, 0, sizeof(warnings));
	*source = debuginfod_source_new(urls, record_warning, &warnings);
	ck_assert_ptr_nonnull(*source);
	o.source = *source;
	s = symbolizer_new(&o);
	ck_assert_ptr_nonnull(s);
	/* Out of libdwfl's sight. */
	ck_assert_ptr_null(getenv("DEBUGINFOD_URLS"));
	return s;
}

static unsigned debuginfod_warnings(void)
{
	return strstr(warnings.last, "debuginfod (") ? 1 : 0;
}

/* A server that answers 404 to everything: each build-id is asked once
 * for its executable and once for its debug file, not per DSO or lookup. */
START_TEST(debuginfod_asked_once_per_build_id)
{
	int fds[2], port, listener = listen_loopback(&port);
	char urls[64], byte;
	unsigned requests = 0;
	struct symbolizer_source *source;
	struct symbolizer *s;
	pid_t server;

	ck_assert_int_eq(pipe(fds), 0);
	server = fork();
	ck_assert_int_ge(server, 0);
	if (server == 0) {
		static const char reply[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
					    "Connection: close\r\n\r\n";
		char request[4096];

		close(fds[0]);
		for (;;) {
			int c = accept(listener, NULL, NULL);

			if (c < 0)
				_exit(1);
			if (read(c, request, sizeof(request)) > 0 &&
			    write(c, reply, sizeof(reply) - 1) > 0 && write(fds[1], "r", 1) != 1)
				_exit(1);
			close(c);
		}
	}
	close(fds[1]);
	close(listener);
	snprintf(urls, sizeof(urls), "http://127.0.0.1:%d", port);
	s = debuginfod_symbolizer(urls, &source);
	look_up_missing(s);
	symbolizer_free(s);
	debuginfod_source_free(source);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	while (read(fds[0], &byte, 1) == 1)
		requests++;
	close(fds[0]);
	printf("debuginfod answering 404: %u requests for 2 build-ids (3 DSOs, 30 lookups); "
	       "%u warnings, the last: %s\n", requests, warnings.count, warnings.last);
	ck_assert_uint_eq(requests, 4);
	ck_assert_uint_eq(warnings.count, 3);	/* one "no ELF found" per DSO */
	ck_assert_uint_eq(debuginfod_warnings(), 0);
}
END_TEST

/* ---- the suite ---------------------------------------------------------- */

static Suite *symbolize_suite(void)
{
	Suite *suite = suite_create("symbolize");
	TCase *programs = tcase_create("test programs");
	TCase *libc = tcase_create("libc");
	TCase *files = tcase_create("finding files");
	TCase *names = tcase_create("names");
	TCase *kernel = tcase_create("kernel");
	TCase *speed = tcase_create("speed");
	TCase *all[] = { programs, libc, files, names, kernel, speed };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		tcase_set_timeout(all[i], 600);
		suite_add_tcase(suite, all[i]);
	}
	tcase_add_test(programs, target_matches_addr2line);
	tcase_add_test(programs, library_matches_addr2line);
	tcase_add_test(programs, without_lines_or_inlines);
	tcase_add_test(programs, inline_chain);
	tcase_add_test(libc, libc_matches_addr2line);
	tcase_add_test(libc, libc_debug_file_alone);
	tcase_add_test(files, stripped_with_debug_dir);
	tcase_add_test(files, debug_file_alone);
	tcase_add_test(files, compressed_debug_file);
	tcase_add_test(files, uncompressed_copy);
	tcase_add_test(files, eu_strip_debug_file_alone);
	tcase_add_test(files, binary_in_build_id_tree);
	tcase_add_test(files, stripped_with_debuglink);
	tcase_add_test(files, stripped_with_gnu_debugdata);
	tcase_add_test(files, stripped_alone_claims_nothing_wrong);
	tcase_add_test(files, rebuilt_binary_is_not_used);
	tcase_add_test(files, rebuilt_binary_but_debug_file_found);
	tcase_add_test(files, no_build_id_uses_the_path);
	tcase_add_test(files, symfs_root);
	tcase_add_test(files, interning_and_names);
	tcase_add_test(files, hostile_inputs);
	tcase_add_test(files, control_characters_escaped);
	tcase_add_test(files, debuginfod_asked_once_per_build_id);
	tcase_add_test(files, plt_named_alike);
	tcase_add_test(names, demangling);
	tcase_add_test(names, mangled_names_in_the_target);
	tcase_add_test(kernel, kernel_synthetic);
	tcase_add_test(kernel, kernel_hidden_addresses);
	tcase_add_test(kernel, kernel_from_proc);
	tcase_add_test(kernel, kernel_garbage);
	tcase_add_test(speed, throughput);
	return suite;
}

int main(void)
{
	static const char *const tools[] = { "eu-addr2line", "eu-readelf", "nm", "objcopy", "strip" };
	SRunner *runner;
	int failed;

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!have_tool(tools[i])) {
			printf("%s not found (elfutils, binutils): skipped\n", tools[i]);
			return 77;
		}
	skipped = mmap(NULL, sizeof(*skipped), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (skipped == MAP_FAILED) {
		perror("mmap");
		return 99;
	}
	runner = srunner_create(symbolize_suite());
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	if (failed)
		return EXIT_FAILURE;
	if (*skipped) {
		printf("SKIP: %u checks could not run here (above); the others passed\n", *skipped);
		return 77;
	}
	return EXIT_SUCCESS;
}
