/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JIT symbol files copied into the capture; see jit.h.  The files are
 * the profiled processes': any of them may be hostile.  perfrecd is
 * root, so a file is opened only inside the process's own root, without
 * following a symlink or blocking on a FIFO, only if it is a regular
 * file owned by the process, and never on FUSE (whose server could make
 * a read hang); what it yields is bounded per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "jit.h"
#include "service.h"
#include "format.h"

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif

/* Processes followed at once; more JIT processes than this are not copied. */
#define SOURCES_MAX		4096
/* Read at a time; also the longest perf map line or jitdump name kept. */
#define WINDOW			(256u << 10)
/* The longest jitdump name kept. */
#define NAME_MAX_BYTES		4096u
/* Text a record carries at most, so records stay well inside a chunk. */
#define RECORD_TEXT_MAX		(256u << 10)
/* A source's share of one poll: a flood waits for the next flush. */
#define POLL_BYTES_MAX		(8u << 20)

#define JITDUMP_MAGIC		0x4A695444u	/* "JiTD" as the runtime wrote it */
#define JITDUMP_HEADER_MIN	40u
#define JITDUMP_RECORD_MAX	(64u << 20)
#define JITDUMP_CODE_LOAD	0u

struct jit_source {
	uint32_t pid;
	uint32_t type;			/* PRF_RECORD_JIT_MAP or _JIT_DUMP */
	int root_fd;			/* the process's root, held until the file opens */
	int fd;				/* -1 until it exists */
	char *path;			/* relative to that root */
	uid_t uids[4];			/* real, effective, saved, filesystem */
	uint64_t offset;		/* next byte of the file to read */
	uint64_t taken;			/* text bytes written to the capture */
	int cut;			/* the bound was reached */
	int skipping;			/* within a line too long to keep */
	int refused;			/* said once: not a file we read */
};

struct jit_maps {
	char *proc_root;
	uint64_t max_bytes;
	struct jit_source *sources;
	size_t count;
	char *window;
	char *text;
	size_t text_used;
	int full_said;
};

struct jit_maps *prd_jit_maps_new(const char *proc_root, uint64_t max_bytes)
{
	struct jit_maps *maps;

	if (!max_bytes)
		return NULL;
	maps = calloc(1, sizeof(*maps));
	if (!maps)
		return NULL;
	maps->proc_root = strdup(proc_root);
	maps->max_bytes = max_bytes;
	maps->window = malloc(WINDOW);
	maps->text = malloc(RECORD_TEXT_MAX);
	if (!maps->proc_root || !maps->window || !maps->text) {
		prd_jit_maps_free(maps);
		return NULL;
	}
	return maps;
}

static void source_close(struct jit_source *source)
{
	if (source->root_fd >= 0)
		close(source->root_fd);
	if (source->fd >= 0)
		close(source->fd);
	free(source->path);
	source->root_fd = source->fd = -1;
	source->path = NULL;
}

void prd_jit_maps_free(struct jit_maps *maps)
{
	if (!maps)
		return;
	for (size_t i = 0; i < maps->count; i++)
		source_close(&maps->sources[i]);
	free(maps->sources);
	free(maps->window);
	free(maps->text);
	free(maps->proc_root);
	free(maps);
}

/* ---- records -------------------------------------------------------- */

static void emit_text(struct jit_maps *maps, const struct jit_source *source, uint64_t offset,
		      uint32_t flags, const struct record_sink *sink)
{
	struct prf_jit_map_record r = { 0 };
	size_t padded = (maps->text_used + 7) & ~(size_t)7;
	uint8_t *record;

	if (!maps->text_used && !(flags & PRF_JIT_CUT))
		return;
	record = malloc(sizeof(r) + padded);
	if (!record)
		return;
	r.header.type = source->type;
	r.header.size = (uint32_t)(sizeof(r) + padded);
	r.time = prf_clock_ns(CLOCK_MONOTONIC);
	r.pid = source->pid;
	r.flags = flags;
	r.offset = offset;
	r.text_size = maps->text_used;
	memcpy(record, &r, sizeof(r));
	memcpy(record + sizeof(r), maps->text, maps->text_used);
	memset(record + sizeof(r) + maps->text_used, 0, padded - maps->text_used);
	sink->emit(sink->context, record, sizeof(r) + padded, r.time);
	free(record);
	maps->text_used = 0;
}

/*
 * Adds a line (with its newline) to the record being built, flushing a
 * full one first.  0, or 1 when the process's bound stops it here.
 */
static int add_line(struct jit_maps *maps, struct jit_source *source, const char *line,
		    size_t length, uint64_t line_offset, uint64_t *record_offset,
		    uint32_t flags, const struct record_sink *sink)
{
	if (source->taken + length > maps->max_bytes)
		return 1;
	if (maps->text_used + length > RECORD_TEXT_MAX) {
		emit_text(maps, source, *record_offset, flags, sink);
		*record_offset = line_offset;
	}
	if (!maps->text_used)
		*record_offset = line_offset;
	memcpy(maps->text + maps->text_used, line, length);
	maps->text_used += length;
	source->taken += length;
	return 0;
}

/* ---- opening -------------------------------------------------------- */

static int read_uids(const char *proc_root, uint32_t pid, uid_t uids[4])
{
	char path[4096], line[256];
	unsigned long u[4];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%u/status", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4) {
			for (int i = 0; i < 4; i++)
				uids[i] = (uid_t)u[i];
			found = 1;
			break;
		}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/*
 * The source's file, inside the process's root: no symlink followed at
 * its end, none leading out of that root, no FIFO waited on.
 */
static int open_in_root(struct jit_source *source)
{
	struct open_how how = { 0 };
	struct stat st;
	struct statfs sf;
	int fd, err;

	how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, source->root_fd, source->path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	err = 0;
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
		err = errno;
	else if (!S_ISREG(st.st_mode) || sf.f_type == FUSE_SUPER_MAGIC)
		err = EINVAL;
	else if (st.st_uid != source->uids[0] && st.st_uid != source->uids[1] &&
		 st.st_uid != source->uids[2] && st.st_uid != source->uids[3])
		err = EPERM;
	if (!err)
		return fd;
	close(fd);
	return -err;
}

/* Whether the file is there to read now; says once why one is refused. */
static int source_ready(struct jit_source *source)
{
	int fd;

	if (source->fd >= 0)
		return 1;
	if (source->root_fd < 0 || source->refused)
		return 0;
	fd = open_in_root(source);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		source->refused = 1;
		prd_log_notice("process %u: not reading /%s: %s", source->pid, source->path,
			       fd == -EPERM ? "not owned by the process" :
			       fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return 0;
	}
	source->fd = fd;
	return 1;
}

static struct jit_source *source_find(struct jit_maps *maps, uint32_t pid, uint32_t type)
{
	for (size_t i = 0; i < maps->count; i++)
		if (maps->sources[i].pid == pid && maps->sources[i].type == type)
			return &maps->sources[i];
	return NULL;
}

static struct jit_source *source_add(struct jit_maps *maps, uint32_t pid, uint32_t type,
				     const char *path)
{
	struct jit_source *source, *grown;
	char root[4096];

	if (maps->count == SOURCES_MAX) {
		if (!maps->full_said++)
			prd_log_warning("more than %u processes with JIT code: the others' maps are not copied",
					SOURCES_MAX);
		return NULL;
	}
	grown = reallocarray(maps->sources, maps->count + 1, sizeof(*grown));
	if (!grown)
		return NULL;
	maps->sources = grown;
	source = &maps->sources[maps->count];
	memset(source, 0, sizeof(*source));
	source->pid = pid;
	source->type = type;
	source->fd = -1;
	snprintf(root, sizeof(root), "%s/%u/root", maps->proc_root, pid);
	source->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	source->path = strdup(path);
	if (source->root_fd < 0 || !source->path ||
	    read_uids(maps->proc_root, pid, source->uids) < 0) {
		source_close(source);
		return NULL;	/* gone already, or not ours to see */
	}
	maps->count++;
	return source;
}

static void source_remove(struct jit_maps *maps, struct jit_source *source)
{
	source_close(source);
	*source = maps->sources[--maps->count];
}

/*
 * The end of a read of source to offset: where the next one starts (when
 * it went to the end), the text as a record, and once, that --jit-map-size
 * cut it ("is larger than", "has more code than").
 */
static void read_done(struct jit_maps *maps, struct jit_source *source, uint64_t offset,
		      uint64_t limit, uint64_t record_offset, uint32_t flags, int cut,
		      const char *too_big, const struct record_sink *sink)
{
	if (limit == UINT64_MAX)
		source->offset = offset;
	if (cut && !(flags & PRF_JIT_RESTATED)) {
		source->cut = 1;
		prd_log_notice("process %u: /%s %s --jit-map-size (%" PRIu64 " bytes): the rest is not copied",
			       source->pid, source->path, too_big, maps->max_bytes);
	}
	emit_text(maps, source, record_offset, flags | (cut ? PRF_JIT_CUT : 0), sink);
}

/* ---- perf maps: whole lines ------------------------------------------ */

/*
 * Reads the map from source->offset to limit (UINT64_MAX: its end) and
 * writes its new whole lines, flags on every record.
 */
static void read_map(struct jit_maps *maps, struct jit_source *source, uint64_t from,
		     uint64_t limit, uint32_t flags, const struct record_sink *sink)
{
	uint64_t offset = from, record_offset = from, budget = POLL_BYTES_MAX;
	int cut = 0;

	while (offset < limit && budget) {
		size_t want = limit - offset < WINDOW ? (size_t)(limit - offset) : WINDOW;
		ssize_t n = pread(source->fd, maps->window, want, (off_t)offset);
		size_t used = 0;

		if (n <= 0)
			break;
		while (used < (size_t)n) {
			char *nl = memchr(maps->window + used, '\n', (size_t)n - used);
			size_t length;

			if (!nl)
				break;
			length = (size_t)(nl - (maps->window + used)) + 1;
			if (source->skipping) {
				source->skipping = 0;
			} else if (add_line(maps, source, maps->window + used, length, offset + used,
					    &record_offset, flags, sink)) {
				cut = 1;
				break;
			}
			used += length;
		}
		if (cut)
			break;
		if (!used && (size_t)n == WINDOW) {	/* a line longer than we keep */
			source->skipping = 1;
			used = (size_t)n;
		}
		if (!used)
			break;			/* a partial last line: wait for the rest */
		offset += used;
		budget = budget > used ? budget - used : 0;
	}
	read_done(maps, source, offset, limit, record_offset, flags, cut, "is larger than", sink);
}

/* ---- jitdump: code loads as map lines --------------------------------- */

struct jitdump_prefix {
	uint32_t id, total_size;
	uint64_t timestamp;
};

struct jitdump_code_load {
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

/* The first record's offset, after the file header; 0 until it is whole. */
static uint64_t jitdump_start(struct jit_source *source)
{
	uint32_t header[3];

	if (pread(source->fd, header, sizeof(header), 0) != (ssize_t)sizeof(header))
		return 0;
	if (header[0] != JITDUMP_MAGIC || header[2] < JITDUMP_HEADER_MIN ||
	    header[2] > WINDOW) {
		if (!source->refused)
			prd_log_notice("process %u: /%s is no jitdump this host writes: not copied",
				       source->pid, source->path);
		source->refused = 1;
		return 0;
	}
	return header[2];
}

static void read_dump(struct jit_maps *maps, struct jit_source *source, uint64_t from,
		      uint64_t limit, uint32_t flags, const struct record_sink *sink)
{
	uint64_t offset = from, record_offset = from, budget = POLL_BYTES_MAX;
	char line[NAME_MAX_BYTES + 64];
	int cut = 0;

	if (!offset && !(offset = jitdump_start(source)))
		return;
	while (offset < limit && budget && !cut) {
		struct jitdump_prefix prefix;
		struct jitdump_code_load load;
		ssize_t n = pread(source->fd, maps->window, WINDOW, (off_t)offset);
		struct stat st;
		const char *name;
		size_t name_room;
		int length;

		if (n < (ssize_t)sizeof(prefix) || fstat(source->fd, &st) < 0)
			break;
		memcpy(&prefix, maps->window, sizeof(prefix));
		if (prefix.total_size < sizeof(prefix) || prefix.total_size > JITDUMP_RECORD_MAX) {
			source->refused = 1;	/* no record boundary to find again */
			break;
		}
		if (offset + prefix.total_size > (uint64_t)st.st_size)
			break;			/* still being written */
		if (prefix.id == JITDUMP_CODE_LOAD &&
		    prefix.total_size >= sizeof(prefix) + sizeof(load) + 1 &&
		    (size_t)n >= sizeof(prefix) + sizeof(load) + 1) {
			memcpy(&load, maps->window + sizeof(prefix), sizeof(load));
			name = maps->window + sizeof(prefix) + sizeof(load);
			name_room = (size_t)n - sizeof(prefix) - sizeof(load);
			if (name_room > prefix.total_size - sizeof(prefix) - sizeof(load))
				name_room = prefix.total_size - sizeof(prefix) - sizeof(load);
			/* The name ends at its NUL, or at a newline that would start a line of its own. */
			name_room = strnlen(name, name_room < NAME_MAX_BYTES ? name_room : NAME_MAX_BYTES);
			if (memchr(name, '\n', name_room))
				name_room = (size_t)((const char *)memchr(name, '\n', name_room) - name);
			length = snprintf(line, sizeof(line), "%" PRIx64 " %" PRIx64 " %.*s\n",
					  load.code_addr, load.code_size, (int)name_room, name);
			if (length > 0 && (size_t)length < sizeof(line) &&
			    add_line(maps, source, line, (size_t)length, offset, &record_offset,
				     flags, sink))
				cut = 1;
		}
		if (cut)
			break;
		offset += prefix.total_size;
		budget = budget > prefix.total_size ? budget - prefix.total_size : 0;
	}
	read_done(maps, source, offset, limit, record_offset, flags, cut, "has more code than", sink);
}

static void source_poll(struct jit_maps *maps, struct jit_source *source,
			const struct record_sink *sink)
{
	if (source->cut || !source_ready(source))
		return;
	if (source->type == PRF_RECORD_JIT_MAP)
		read_map(maps, source, source->offset, UINT64_MAX, 0, sink);
	else if (!source->refused)
		read_dump(maps, source, source->offset, UINT64_MAX, 0, sink);
}

/* ---- the collector's hooks ----------------------------------------- */

/* perf's test for memory with no file behind it, where JIT code lives. */
static int anonymous(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "[anon", 5) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14);
}

/* jit-PID.dump, as perf inject --jit recognises the runtime's mapping of it. */
static int jitdump_name(const char *name, uint32_t pid)
{
	const char *base = strrchr(name, '/');
	char want[32];

	snprintf(want, sizeof(want), "jit-%u.dump", pid);
	return base && !strcmp(base + 1, want);
}

void prd_jit_maps_note_mmap(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink)
{
	const uint8_t *p = (const uint8_t *)record;
	const char *name = (const char *)p + 72;
	uint32_t pid, tid, prot;
	char path[64];
	struct jit_source *source;

	if (!maps || record->type != PERF_RECORD_MMAP2 || record->size <= 72 ||
	    !memchr(name, '\0', record->size - 72u))
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&prot, p + 64, 4);
	if (pid == UINT32_MAX || pid == 0)
		return;
	if (jitdump_name(name, pid) && name[0] == '/') {
		if (!source_find(maps, pid, PRF_RECORD_JIT_DUMP) &&
		    (source = source_add(maps, pid, PRF_RECORD_JIT_DUMP, name + 1)))
			source_poll(maps, source, sink);
		return;
	}
	if (!(prot & PROT_EXEC) || !anonymous(name) ||
	    source_find(maps, pid, PRF_RECORD_JIT_MAP))
		return;
	snprintf(path, sizeof(path), "tmp/perf-%u.map", pid);
	source = source_add(maps, pid, PRF_RECORD_JIT_MAP, path);
	if (source)
		source_poll(maps, source, sink);
	(void)tid;
}

void prd_jit_maps_note_exit(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink)
{
	uint32_t pid, tid;

	if (!maps || record->size < 24)
		return;
	memcpy(&pid, (const uint8_t *)record + 8, 4);
	memcpy(&tid, (const uint8_t *)record + 16, 4);
	if (pid != tid)
		return;		/* a thread, not the process */
	for (size_t i = maps->count; i-- > 0;) {
		struct jit_source *source = &maps->sources[i];

		if (source->pid != pid)
			continue;
		source_poll(maps, source, sink);
		source_remove(maps, source);
	}
}

void prd_jit_maps_poll(struct jit_maps *maps, const struct record_sink *sink)
{
	if (!maps)
		return;
	for (size_t i = 0; i < maps->count; i++)
		source_poll(maps, &maps->sources[i], sink);
}

void prd_jit_maps_restate(struct jit_maps *maps, const struct record_sink *sink)
{
	if (!maps)
		return;
	for (size_t i = 0; i < maps->count; i++) {
		struct jit_source *source = &maps->sources[i];
		uint64_t taken = source->taken;
		int skipping = source->skipping;

		if (source->fd < 0 || !source->offset)
			continue;
		/* What the earlier files had, read again up to where they stopped. */
		source->taken = 0;
		source->skipping = 0;
		if (source->type == PRF_RECORD_JIT_MAP)
			read_map(maps, source, 0, source->offset, PRF_JIT_RESTATED, sink);
		else
			read_dump(maps, source, 0, source->offset, PRF_JIT_RESTATED, sink);
		source->taken = taken;
		source->skipping = skipping;
		if (source->cut)	/* the new file says so too */
			emit_text(maps, source, source->offset, PRF_JIT_RESTATED | PRF_JIT_CUT, sink);
	}
}
