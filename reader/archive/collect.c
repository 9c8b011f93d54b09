/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which ELF files a bundle holds: the DSOs that samples hit (the session
 * replay resolves every leaf and callchain address), each found with the
 * build-id the capture recorded, read through /proc/PID/root while the
 * process still runs (containers see other files at the same path), then
 * at its host path, then in perfrecd's binary cache next to the capture
 * (DIR/.build-id); plus its separate debug file from the debug
 * directories' .build-id trees.  Kernel modules are found under
 * /lib/modules/$(uname -r) by name, uncompressed only.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include "common.h"
#include "format.h"
#include "archive.h"
#include "session.h"
#include "symbolize.h"
#include "unwind.h"

struct hit {
	struct dso *dso;
	uint32_t pid;
};

struct collection {
	struct session *session;
	struct symbolizer *symbolizer;
	struct hit *hits;		/* by DSO in hit_index, in the order met */
	size_t hit_count, hit_capacity;
	struct prf_index hit_index;
	int user_stacks;		/* a sample with a copy of its user stack */
	int failed;
};

static int hit_equal(const void *context, uint32_t id, const void *key)
{
	return ((const struct collection *)context)->hits[id - 1].dso == key;
}

static void note_dso(struct collection *c, struct dso *dso, uint32_t pid)
{
	uint64_t h = prf_hash_mix((uintptr_t)dso);
	struct prf_index_slot *slot = prf_index_place(&c->hit_index, h, hit_equal, c, dso);

	if (slot && slot->id)
		return;
	if (!slot || prf_ensure_mem((void **)&c->hits, &c->hit_capacity, sizeof(*c->hits),
				    c->hit_count + 1) < 0) {
		c->failed = 1;
		return;
	}
	c->hits[c->hit_count++] = (struct hit){ dso, pid };
	prf_index_insert(&c->hit_index, slot, h, (uint32_t)c->hit_count);
}

static void note_address(struct collection *c, const struct session_sample *sample,
			 uint64_t address, int kernel)
{
	struct resolved_address where;

	session_resolve(c->session, sample, address, kernel, &where);
	if (!where.dso || dso_is_jit(where.dso))	/* JIT symbols are in the capture */
		return;
	if (dso_is_kernel(where.dso)) {
		struct symbol_answer answer;

		/* Only the lookup tells which module a kernel address is in. */
		symbolizer_lookup(c->symbolizer, where.dso, where.address, &answer);
		if (answer.dso && answer.dso != where.dso)
			note_dso(c, (struct dso *)answer.dso, 0);
		return;
	}
	note_dso(c, where.dso, sample->pid);
}

static void on_sample(void *context, const struct session_sample *sample)
{
	struct collection *c = context;
	struct prf_callchain_walk walk;
	struct prf_frame frame;

	if (sample->record && (sample->record->sample_type & PERF_SAMPLE_STACK_USER))
		c->user_stacks = 1;
	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr,
				 prf_misc_is_kernel(sample->misc));
	if (!sample->callchain_nr)
		note_address(c, sample, sample->ip, walk.kernel);
	while (prf_callchain_next(&walk, &frame))
		if (!frame.marker)
			note_address(c, sample, frame.address, frame.kernel);
}

/*
 * A line on stderr.  It names the capture's paths, which another host's
 * processes chose: made safe to print as perfrec-report's views print
 * names, and always one line.
 */
__attribute__((format(printf, 1, 2)))
static void say(const char *format, ...)
{
	char message[2 * PATH_MAX + 256];
	va_list ap;

	va_start(ap, format);
	vsnprintf(message, sizeof(message), format, ap);
	va_end(ap);
	prf_text_make_safe(message);
	fprintf(stderr, "perfrec-archive: %s\n", message);
}

static void warn(void *context, const char *message)
{
	if (!*(int *)context)
		say("warning: %s", message);
}

/* The build-id of the ELF open at fd, as hex, or "" when it has none. */
static int elf_build_id_hex(int fd, char *hex, size_t size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	ssize_t n;

	hex[0] = '\0';
	if (!elf)
		return -1;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -1;
	}
	n = dwelf_elf_gnu_build_id(elf, &id);
	for (ssize_t i = 0; i < n && (size_t)(2 * i + 2) < size; i++)
		sprintf(hex + 2 * i, "%02x", ((const unsigned char *)id)[i]);
	elf_end(elf);
	return 0;
}

/*
 * Opens path if it is an ELF with the build-id want (a prefix: the
 * kernel records 20 bytes at most).  fd, -1 when absent or not an ELF,
 * -2 with found set when its build-id differs.
 */
static int open_matching(const char *path, const char *want, char *found, size_t found_size)
{
	/* A recorded path may name a FIFO now: never block on it. */
	int fd = prf_open_regular(path);

	found[0] = '\0';
	if (fd < 0)
		return -1;
	if (elf_build_id_hex(fd, found, found_size) < 0) {
		close(fd);
		return -1;
	}
	if (strncmp(found, want, strlen(want)) || !want[0]) {
		close(fd);
		return -2;
	}
	return fd;
}

/*
 * The vDSO has no file: this host's own image when the capture's build-id
 * is its (the same kernel), else what perfrecd kept (open_cached()).
 */
static int open_own_vdso(const char *want)
{
	uint8_t id[PRF_BUILD_ID_MAX], id_size;
	char hex[2 * PRF_BUILD_ID_MAX + 1];
	const void *image;
	size_t size, done = 0;
	int fd;

	if (prf_vdso_image(&image, &size, id, &id_size))
		return -1;
	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (strcmp(hex, want))
		return -1;
	fd = memfd_create("perfrec-vdso", MFD_CLOEXEC);
	while (fd >= 0 && done < size) {
		ssize_t n = write(fd, (const char *)image + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return fd;
}

static int add_entry(struct archive_set *set, const char *id, const char *suffix,
		     const char *source, int fd)
{
	struct archive_entry *e;
	struct stat st;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return -errno;
	}
	if (prf_ensure_mem((void **)&set->entries, &set->capacity, sizeof(*set->entries),
			   set->count + 1) < 0) {
		close(fd);
		return -ENOMEM;
	}
	e = &set->entries[set->count];
	snprintf(e->name, sizeof(e->name), ".build-id/%.2s/%s%s", id, id + 2, suffix);
	/* Said only, by perfrec-archive -v and its errors: made safe once. */
	e->source = strdup(source);
	if (!e->source) {
		close(fd);
		return -ENOMEM;
	}
	prf_text_make_safe(e->source);
	e->fd = fd;
	e->size = (uint64_t)st.st_size;
	set->count++;
	set->bytes += e->size;
	return 0;
}

static int has_entry(const struct archive_set *set, const char *id, const char *suffix)
{
	char name[64];

	snprintf(name, sizeof(name), ".build-id/%.2s/%s%s", id, id + 2, suffix);
	for (size_t i = 0; i < set->count; i++)
		if (!strcmp(set->entries[i].name, name))
			return 1;
	return 0;
}

/* The module's .ko under /lib/modules/RELEASE ('-' and '_' alike, as modprobe has it). */
static const char *module_wanted;
static char module_found[4096];

static int same_module_name(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return 0;
	}
	return 1;
}

static int module_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t n = strlen(module_wanted);

	(void)st;
	if (type == FTW_F && strlen(base) == n + 3 && !strcmp(base + n, ".ko") &&
	    same_module_name(base, module_wanted, n)) {
		snprintf(module_found, sizeof(module_found), "%s", path);
		return 1;
	}
	return 0;
}

static int find_module(const char *name, char *path, size_t size)
{
	struct utsname u;
	char root[512];

	if (uname(&u) < 0)
		return -1;
	snprintf(root, sizeof(root), "/lib/modules/%s", u.release);
	module_wanted = name;
	module_found[0] = '\0';
	if (nftw(root, module_visit, 16, FTW_PHYS) != 1)
		return -1;
	snprintf(path, size, "%s", module_found);
	return 0;
}

/*
 * The binary in perfrecd's binary cache next to a capture (an input
 * directory's .build-id tree, or the tree next to an input file); fd or
 * -1, candidate set to its path.
 */
static int open_cached(char **inputs, int input_count, const char *id, char *candidate,
		       size_t size)
{
	char found[128];

	for (int i = 0; i < input_count; i++) {
		const char *slash = strrchr(inputs[i], '/');
		struct stat st;
		int dir_len, fd;

		if (stat(inputs[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			dir_len = (int)strlen(inputs[i]);
		else
			dir_len = slash ? (int)(slash - inputs[i]) : -1;
		if (dir_len < 0)
			snprintf(candidate, size, ".build-id/%.2s/%s", id, id + 2);
		else
			snprintf(candidate, size, "%.*s/.build-id/%.2s/%s", dir_len, inputs[i], id,
				 id + 2);
		fd = open_matching(candidate, id, found, sizeof(found));
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static int add_dso(const struct archive_options *o, struct archive_set *set,
		   const struct hit *hit, char **inputs, int input_count)
{
	const char *id = dso_build_id_hex(hit->dso), *path = dso_path(hit->dso);
	char candidate[4096 + 64], found[128] = "", debug[4096 + 128];
	int fd = -1, module = dso_is_kernel(hit->dso), have_debug = 0, ret;

	if (!id[0] || strlen(id) < 4 || strlen(id) > 40) {
		if (!o->quiet && path[0] == '/')
			say("%s: no build-id in the capture: left out", path);
		return 0;
	}
	if (has_entry(set, id, "") || has_entry(set, id, ".debug"))
		return 0;
	/* The separate debug file, where the host has one. */
	for (size_t i = 0; i < o->debug_dir_count && !have_debug; i++) {
		snprintf(debug, sizeof(debug), "%s/.build-id/%.2s/%s.debug", o->debug_dirs[i], id, id + 2);
		fd = open_matching(debug, id, found, sizeof(found));
		if (fd >= 0) {
			ret = add_entry(set, id, ".debug", debug, fd);
			if (ret < 0)
				return ret;
			set->debug_files++;
			have_debug = 1;
		}
	}
	if (o->debug_only) {
		if (!have_debug && !o->quiet)
			say("%s: build-id %s: no separate debug file: left out (--debug-only)", path, id);
		return 0;
	}
	fd = -1;
	if (module) {
		char name[256];
		const char *short_name = dso_short_name(hit->dso);
		size_t n = strlen(short_name);

		if (n < 3 || n - 2 >= sizeof(name) || short_name[0] != '[')
			return 0;
		memcpy(name, short_name + 1, n - 2);
		name[n - 2] = '\0';
		if (find_module(name, candidate, sizeof(candidate)) < 0) {
			if (!o->quiet)
				say("%s: no uncompressed %s.ko under /lib/modules: left out",
				    short_name, name);
			return 0;
		}
		fd = open_matching(candidate, id, found, sizeof(found));
	} else if (path[0] == '/') {
		if (hit->pid) {
			snprintf(candidate, sizeof(candidate), "/proc/%u/root%s", hit->pid, path);
			fd = open_matching(candidate, id, found, sizeof(found));
		}
		if (fd < 0) {
			snprintf(candidate, sizeof(candidate), "%s", path);
			fd = open_matching(candidate, id, found, sizeof(found));
		}
	} else if (!strcmp(path, "[vdso]")) {
		fd = open_own_vdso(id);
		snprintf(candidate, sizeof(candidate), "%s", path);
	} else {
		return 0;	/* //anon and the like: no file */
	}
	/* Containers' and deleted binaries: what perfrecd kept of them. */
	if (fd < 0 && !module) {
		char cached[sizeof(candidate)];
		int cached_fd = open_cached(inputs, input_count, id, cached, sizeof(cached));

		if (cached_fd >= 0) {
			fd = cached_fd;
			memcpy(candidate, cached, sizeof(candidate));
		}
	}
	if (fd == -2) {
		say("%s: build-id %s expected, %s found: left out", candidate, id,
		    found[0] ? found : "none");
		return 0;
	}
	if (fd < 0) {
		if (!o->quiet)
			say("%s: build-id %s: no such ELF on this host%s", path, id,
			    have_debug ? " (its debug file is stored)" : ": left out");
		return 0;
	}
	ret = add_entry(set, id, "", candidate, fd);
	if (ret < 0)
		return ret;
	if (module)
		set->modules++;
	else
		set->binaries++;
	return 0;
}

int archive_collect(const struct archive_options *o, char **inputs, int input_count,
		    struct archive_set *set, struct prf_error *error)
{
	int quiet = o->quiet;
	struct symbolizer_options sym_options = { .warn = warn, .warn_context = &quiet };
	struct session_options session_options = { .warn = warn, .warn_context = &quiet };
	struct session_filter filter = { 0 };
	struct collection c = { 0 };
	struct unwinder *unwinder = NULL;
	int ret = -ENOMEM;

	elf_version(EV_CURRENT);
	c.symbolizer = symbolizer_new(&sym_options);
	session_options.symbolizer = c.symbolizer;
	if (!c.symbolizer || session_new(&c.session, &session_options) < 0 ||
	    !(unwinder = unwinder_new(c.session, c.symbolizer))) {
		prf_set_error(error, ret, "out of memory");
		goto out;
	}
	for (int i = 0; i < input_count; i++) {
		ret = session_add_input(c.session, inputs[i], error);
		if (ret < 0)
			goto out;
	}
	ret = session_load(c.session, error);
	if (ret < 0)
		goto out;
	/* Frames that only unwinding finds are in DSOs the bundle needs too. */
	unwinder_for_each_sample(unwinder, &filter, on_sample, &c);
	if (c.failed) {
		ret = prf_set_error(error, -ENOMEM, "out of memory");
		goto out;
	}
	/* Said even with -q: the bundle would lack what the report needs. */
	if (o->debug_only && c.user_stacks)
		fprintf(stderr, "perfrec-archive: warning: the capture has user stacks to unwind "
			"(--call-graph dwarf) and debug files keep none of the binaries' .eh_frame: "
			"with --debug-only, their call chains will stop at the sampled function\n");
	for (size_t i = 0; i < c.hit_count; i++) {
		ret = add_dso(o, set, &c.hits[i], inputs, input_count);
		if (ret < 0) {
			prf_set_error(error, ret, "%s: %s", dso_path(c.hits[i].dso), strerror(-ret));
			goto out;
		}
	}
	ret = 0;
out:
	free(c.hits);
	prf_index_free(&c.hit_index);
	unwinder_free(unwinder);
	session_free(c.session);
	symbolizer_free(c.symbolizer);
	return ret;
}

void archive_set_free(struct archive_set *set)
{
	for (size_t i = 0; i < set->count; i++) {
		close(set->entries[i].fd);
		free(set->entries[i].source);
	}
	free(set->entries);
}
