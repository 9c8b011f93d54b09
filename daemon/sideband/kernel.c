/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's part of a file: its symbols (/proc/kallsyms as read), its
 * build-id, its modules, and the MMAP of its text that perf record writes
 * so that readers place kernel addresses.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "synth-internal.h"

#define KERNEL_MMAP_NAME	"[kernel.kallsyms]"
#define NOTES_MAX		(64u << 10)
#define MODULE_NAME_MAX		64	/* MODULE_NAME_LEN */

struct mmap_body {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[];
};

struct kallsyms {
	char *buf;			/* a prf_kallsyms_record, then the text */
	size_t cap;
	size_t text_size;
	uint64_t symbols;
	int hidden;
	uint64_t text_start;		/* of the reference symbol, 0 if none */
	const char *text_symbol;	/* "_text" or "_stext" */
};

static int open_at_root(const char *root, const char *path)
{
	char buf[PATH_MAX];
	int n;

	n = snprintf(buf, sizeof(buf), "%s/%s", root, path);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	n = open(buf, O_RDONLY | O_CLOEXEC);
	return n < 0 ? -errno : n;
}

/* A whole small file (notes, modules) into a fresh buffer. */
static ssize_t read_at_root(const char *root, const char *path, char **buf)
{
	size_t cap = 0;
	ssize_t n;
	int fd;

	*buf = NULL;
	fd = open_at_root(root, path);
	if (fd < 0)
		return fd;
	n = prd_synth_read_all(fd, buf, &cap, 0);
	close(fd);
	if (n < 0) {
		free(*buf);
		*buf = NULL;
	}
	return n;
}

static int line_address_is_zero(const char *line, const char *end)
{
	for (; line < end && *line != ' '; line++) {
		if (*line != '0')
			return 0;
	}
	return 1;
}

/* The line "ADDRESS T name": name exact, so " name\n" with its space. */
static uint64_t symbol_address(const char *text, size_t size,
			       const char *name)
{
	char needle[32];
	const char *hit, *line;
	int n;

	n = snprintf(needle, sizeof(needle), " %s\n", name);
	hit = memmem(text, size, needle, (size_t)n);
	if (!hit)
		return 0;
	line = hit;
	while (line > text && line[-1] != '\n')
		line--;
	return strtoull(line, NULL, 16);
}

/*
 * One pass over the text: symbols counted, and the addresses are hidden
 * when every one of them reads as zero (kptr_restrict).
 */
static void kallsyms_scan(struct kallsyms *ks)
{
	const char *text = ks->buf + sizeof(struct prf_kallsyms_record);
	const char *end = text + ks->text_size, *line, *next;
	int all_zero = 1;

	for (line = text; line < end; line = next) {
		next = memchr(line, '\n', (size_t)(end - line));
		next = next ? next + 1 : end;
		if (all_zero && !line_address_is_zero(line, next))
			all_zero = 0;
		ks->symbols++;
	}
	ks->hidden = ks->symbols && all_zero;
	if (ks->hidden)
		return;
	/* perf's reference symbols for relocation, in its order */
	ks->text_symbol = "_text";
	ks->text_start = symbol_address(text, ks->text_size, "_text");
	if (!ks->text_start) {
		ks->text_symbol = "_stext";
		ks->text_start = symbol_address(text, ks->text_size, "_stext");
	}
}

/* Read whole, the record header left room for in front. */
static int kallsyms_read(const char *proc_root, struct kallsyms *ks)
{
	ssize_t n;
	int fd;

	fd = open_at_root(proc_root, "kallsyms");
	if (fd < 0)
		return fd;
	ks->cap = 8u << 20;
	ks->buf = malloc(ks->cap);
	if (!ks->buf) {
		close(fd);
		return -ENOMEM;
	}
	n = prd_synth_read_all(fd, &ks->buf, &ks->cap,
			       sizeof(struct prf_kallsyms_record));
	close(fd);
	if (n < 0)
		return (int)n;
	ks->text_size = (size_t)n;
	kallsyms_scan(ks);
	return 0;
}

/*
 * What the kernel's MMAP needs, without the text kept: the reference
 * symbol's address, and whether all addresses read as zero.  Read in
 * pieces, and only up to _text (the third line here): the kernel makes
 * the text as it is read, and the whole of it cost more CPU than a
 * short capture's samples.  Hidden addresses are all zero, _text's too:
 * then it is read to the end to be sure.  (--kernel-symbols=hit or none:
 * the file gets no KALLSYMS, and no symbol count.)
 */
static int kallsyms_scan_file(const char *proc_root, struct kallsyms *ks)
{
	enum { PIECE = 64u << 10 };
	uint64_t text = 0, stext = 0, lines = 0;
	size_t kept = 0;
	int all_zero = 1, fd;
	ssize_t n;
	char *buf;

	fd = open_at_root(proc_root, "kallsyms");
	if (fd < 0)
		return fd;
	buf = malloc(2 * PIECE);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (!text) {
		const char *p = buf, *end;

		n = read(fd, buf + kept, PIECE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		end = buf + kept + n;
		while (p < end) {
			const char *next = memchr(p, '\n', (size_t)(end - p));

			if (!next && n && end - p < PIECE)
				break;
			next = next ? next + 1 : end;
			if (all_zero && !line_address_is_zero(p, next))
				all_zero = 0;
			if (!text && next - p > 7 && !memcmp(next - 7, " _text\n", 7))
				text = strtoull(p, NULL, 16);
			if (!stext && next - p > 8 && !memcmp(next - 8, " _stext\n", 8))
				stext = strtoull(p, NULL, 16);
			lines++;
			p = next;
		}
		kept = (size_t)(end - p);
		memmove(buf, p, kept);
		if (n == 0)
			break;
	}
	n = n < 0 ? -errno : 0;
	close(fd);
	free(buf);
	if (n < 0)
		return (int)n;
	ks->hidden = lines && all_zero;
	if (!ks->hidden) {
		ks->text_symbol = text ? "_text" : "_stext";
		ks->text_start = text ? text : stext;
	}
	return 0;
}

static int kallsyms_emit(struct kallsyms *ks, const struct record_sink *sink,
			 uint64_t time)
{
	struct prf_kallsyms_record *record = (void *)ks->buf;
	size_t total = sizeof(*record) + PRF_ALIGN8(ks->text_size);

	if (total > UINT32_MAX)
		return -EFBIG;
	/* prd_synth_read_all() left 8 bytes after the text for this */
	memset(ks->buf + sizeof(*record) + ks->text_size, 0,
	       total - sizeof(*record) - ks->text_size);
	memset(record, 0, sizeof(*record));
	record->header.type = PRF_RECORD_KALLSYMS;
	record->header.size = (uint32_t)total;
	record->flags = ks->hidden ? PRF_KALLSYMS_HIDDEN : 0;
	record->text_size = ks->text_size;
	return sink->emit(sink->context, record, total, time);
}

/*
 * As perf_event__synthesize_kernel_mmap(): pid -1, the map from the
 * reference symbol to the top of the address space, pgoff the symbol's
 * address, named after the symbol so that perf can relocate.
 */
static int kernel_mmap_emit(const struct kallsyms *ks,
			    const struct synth_layout *layout,
			    const struct record_sink *sink, uint64_t time)
{
	uint64_t record[(sizeof(struct mmap_body) + 32 + PRF_SAMPLE_ID_MAX) / 8];
	struct mmap_body *body = (void *)record;
	char name[32];
	size_t size;
	int n;

	n = snprintf(name, sizeof(name), KERNEL_MMAP_NAME "%s", ks->text_symbol);
	memset(body, 0, sizeof(*body));
	size = sizeof(*body) + synth_put_string(body->filename, name, (size_t)n);
	body->header.type = PERF_RECORD_MMAP;
	body->header.misc = PERF_RECORD_MISC_KERNEL;
	body->pid = UINT32_MAX;
	body->tid = 0;
	body->start = ks->text_start;
	body->len = ~0ull - ks->text_start;
	body->pgoff = ks->text_start;
	size += synth_trailer(layout, (char *)record + size, UINT32_MAX, 0, time);
	body->header.size = (uint16_t)size;
	return sink->emit(sink->context, record, size, time);
}

static int notes_file_build_id(const char *root, const char *path,
			       uint8_t id[20], uint8_t *id_size)
{
	char *buf;
	ssize_t n;
	int err;

	*id_size = 0;
	n = read_at_root(root, path, &buf);
	if (n < 0)
		return (int)n;
	err = prf_notes_build_id(buf, (size_t)n, id, id_size);
	free(buf);
	return err;
}

static int kernel_build_id_emit(const char *sys_root,
				const struct record_sink *sink,
				uint64_t time, struct kernel_stats *stats)
{
	uint8_t id[PRF_BUILD_ID_MAX], size;
	int err;

	if (notes_file_build_id(sys_root, "kernel/notes", id, &size))
		return 0;
	err = prd_buildid_emit_record(sink, time, UINT32_MAX, PRF_BUILD_ID_KERNEL,
				      0, 0, 0, 0, id, size, KERNEL_MMAP_NAME);
	if (!err)
		stats->have_build_id = 1;
	return err;
}

/* "name size refcount deps state address [taints]" */
static int module_emit(char *line, const char *sys_root,
		       const struct record_sink *sink, uint64_t time)
{
	union {
		struct prf_kernel_module_record record;
		char bytes[sizeof(struct prf_kernel_module_record) +
			   MODULE_NAME_MAX];
	} u;
	struct prf_kernel_module_record *record = &u.record;
	char *field[6], *save = NULL, path[MODULE_NAME_MAX + 48];
	size_t name_len, total;
	int count = 0;

	for (char *f = strtok_r(line, " ", &save); f && count < 6;
	     f = strtok_r(NULL, " ", &save))
		field[count++] = f;
	if (count < 6)
		return -EINVAL;
	name_len = strnlen(field[0], MODULE_NAME_MAX - 1);
	memset(record, 0, sizeof(*record));
	total = sizeof(*record) + synth_put_string(u.bytes + sizeof(*record),
						   field[0], name_len);
	record->header.type = PRF_RECORD_KERNEL_MODULE;
	record->header.size = (uint32_t)total;
	record->size = strtoull(field[1], NULL, 10);
	record->start = strtoull(field[5], NULL, 16);
	snprintf(path, sizeof(path), "module/%s/notes/.note.gnu.build-id",
		 u.bytes + sizeof(*record));
	notes_file_build_id(sys_root, path, record->build_id,
			    &record->build_id_size);
	return sink->emit(sink->context, record, total, time);
}

/* No /proc/modules (a kernel without modules) is none loaded. */
static int modules_emit(const char *proc_root, const char *sys_root,
			const struct record_sink *sink, uint64_t time,
			struct kernel_stats *stats)
{
	char *buf, *line, *next;
	ssize_t n;
	int err = 0;

	n = read_at_root(proc_root, "modules", &buf);
	if (n < 0)
		return n == -ENOENT ? 0 : (int)n;
	for (line = buf; !err && line < buf + n; line = next) {
		next = memchr(line, '\n', (size_t)(buf + n - line));
		if (next)
			*next++ = '\0';
		else
			next = buf + n;
		err = module_emit(line, sys_root, sink, time);
		if (!err)
			stats->modules++;
		else if (err == -EINVAL)
			err = 0;
	}
	free(buf);
	return err;
}

/* The line of /proc/modules for the module name, emitted; -ENOENT if none. */
int prd_synthesize_kernel_module(const char *proc_root, const char *sys_root,
				 const char *name, const struct record_sink *sink,
				 uint64_t time)
{
	size_t length = strlen(name);
	char *buf, *line, *next;
	ssize_t n;
	int err = -ENOENT;

	n = read_at_root(proc_root, "modules", &buf);
	if (n < 0)
		return (int)n;
	for (line = buf; line < buf + n; line = next) {
		next = memchr(line, '\n', (size_t)(buf + n - line));
		if (next)
			*next++ = '\0';
		else
			next = buf + n;
		if (!strncmp(line, name, length) && line[length] == ' ') {
			err = module_emit(line, sys_root, sink, time);
			break;
		}
	}
	free(buf);
	return err;
}

/*
 * Only the sink's errors stop it.  A kallsyms that cannot be read leaves
 * out the KALLSYMS and the MMAP and is returned once the rest is out;
 * none at all (no CONFIG_KALLSYMS) is no error.  Without symbols, the
 * KALLSYMS and the modules are left out: the collector writes the ones
 * the samples hit (ksyms.c).
 */
static int kernel_emit(const char *proc_root, const char *sys_root,
		       const struct synth_layout *layout,
		       const struct record_sink *sink,
		       struct kernel_stats *stats, int with_symbols)
{
	struct kernel_stats local;
	struct kallsyms ks;
	uint64_t time = prf_clock_ns(CLOCK_MONOTONIC);
	int read_err, err;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	memset(&ks, 0, sizeof(ks));
	read_err = with_symbols ? kallsyms_read(proc_root, &ks) : kallsyms_scan_file(proc_root, &ks);
	if (read_err == -ENOENT)
		read_err = 0;
	else if (!read_err) {
		stats->kallsyms_hidden = ks.hidden;
		stats->symbols = ks.symbols;
	}
	err = with_symbols && ks.buf && !read_err ? kallsyms_emit(&ks, sink, time) : 0;
	if (!err)
		err = kernel_build_id_emit(sys_root, sink, time, stats);
	if (!err && ks.text_start)
		err = kernel_mmap_emit(&ks, layout, sink, time);
	if (!err && with_symbols)
		err = modules_emit(proc_root, sys_root, sink, time, stats);
	free(ks.buf);
	return err ? err : read_err;
}

int prd_synthesize_kernel(const char *proc_root, const char *sys_root,
			  const struct synth_layout *layout,
			  const struct record_sink *sink,
			  struct kernel_stats *stats)
{
	return kernel_emit(proc_root, sys_root, layout, sink, stats, 1);
}

int prd_synthesize_kernel_without_symbols(const char *proc_root, const char *sys_root,
					  const struct synth_layout *layout,
					  const struct record_sink *sink,
					  struct kernel_stats *stats)
{
	return kernel_emit(proc_root, sys_root, layout, sink, stats, 0);
}
