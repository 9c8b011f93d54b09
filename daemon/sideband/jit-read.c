/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening the JIT files and reading them: perf maps as whole lines,
 * jitdumps' code loads as map lines.  The files are the profiled
 * processes': any of them may be hostile.  perfrecd is root, so a file
 * is opened only inside the process's own root, without following a
 * symlink or blocking on a FIFO, only if it is a regular file owned by
 * the process, and never on FUSE (whose server could make a read hang).
 * A file is read a window at a time, within its visit's work
 * (jit-budget.c), so that no file costs more than its share.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include "jit-internal.h"
#include "service.h"

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif

/* Processes followed at once; more JIT processes than this are not copied. */
#define SOURCES_MAX		4096
/* The longest jitdump name kept. */
#define NAME_MAX_BYTES		4096u

#define JITDUMP_MAGIC		0x4A695444u	/* "JiTD" as the runtime wrote it */
#define JITDUMP_HEADER_MIN	40u
#define JITDUMP_RECORD_MAX	(64u << 20)
#define JITDUMP_CODE_LOAD	0u

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

/*
 * Whether the file is there to read now; says why one is refused (once
 * per user and file).  Once it is open, the root is no longer needed: a
 * process holds one descriptor.
 */
int prd_jit_source_ready(struct jit_maps *maps, struct jit_source *source)
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
		if (prd_jit_user_may_say(maps, source))
			prd_log_notice("process %u: not reading /%s: %s", source->pid, source->path,
				       fd == -EPERM ? "not owned by the process" :
				       fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return 0;
	}
	source->fd = fd;
	close(source->root_fd);
	source->root_fd = -1;
	return 1;
}

struct jit_source *prd_jit_source_find(struct jit_maps *maps, uint32_t pid, uint32_t type)
{
	for (size_t i = 0; i < maps->count; i++)
		if (maps->sources[i].pid == pid && maps->sources[i].type == type &&
		    !maps->sources[i].exit_time)
			return &maps->sources[i];
	return NULL;
}

/* Whether one more descriptor may be held; says once per file when not. */
static int descriptor_free(struct jit_maps *maps, uint32_t pid)
{
	if (maps->descriptors < maps->limits.descriptors)
		return 1;
	if (!maps->descriptors_said++)
		prd_log_warning("JIT symbols: %u files held open, as many as the limit on open files leaves (ulimit -n, LimitNOFILE=): process %u's and later ones are not read",
				maps->descriptors, pid);
	return 0;
}

struct jit_source *prd_jit_source_add(struct jit_maps *maps, uint32_t pid, uint32_t type,
				      const char *path)
{
	struct jit_source *source;
	char root[4096];

	if (maps->count == SOURCES_MAX) {
		if (!maps->full_said++)
			prd_log_warning("more than %u processes with JIT code: the others' maps are not copied",
					SOURCES_MAX);
		return NULL;
	}
	if (!descriptor_free(maps, pid) ||
	    prf_ensure_mem((void **)&maps->sources, &maps->capacity, sizeof(*maps->sources),
			   maps->count + 1) < 0)
		return NULL;
	source = &maps->sources[maps->count];
	memset(source, 0, sizeof(*source));
	source->pid = pid;
	source->type = type;
	source->fd = -1;
	snprintf(root, sizeof(root), "%s/%u/root", maps->proc_root, pid);
	source->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (source->root_fd >= 0)
		maps->descriptors++;
	source->path = strdup(path);
	if (source->root_fd < 0 || !source->path ||
	    read_uids(maps->proc_root, pid, source->uids) < 0 ||
	    !(source->user = prd_jit_user_of(maps, source->uids[0]))) {
		prd_jit_source_close(maps, source);
		return NULL;	/* gone already, or not ours to see */
	}
	jit_source_user(maps, source)->sources++;
	maps->count++;
	return source;
}

/* ---- perf maps: whole lines ------------------------------------------ */

/* Reads the map on from source->offset: its new whole lines, within the visit's work. */
enum visit_end prd_jit_read_map(struct jit_maps *maps, struct jit_source *source,
				struct visit *v, const struct record_sink *sink)
{
	uint64_t offset = source->offset;
	enum visit_end end = VISIT_END;
	enum jit_cut cut = CUT_NONE;

	while ((end = jit_visit_check(v)) == VISIT_END) {
		ssize_t n = pread(source->fd, maps->window, WINDOW, (off_t)offset);
		size_t used = 0;

		if (n <= 0)
			break;
		jit_visit_spend(v, (uint64_t)n);
		while (used < (size_t)n) {
			char *nl = memchr(maps->window + used, '\n', (size_t)n - used);
			size_t length;

			if (!nl)
				break;
			if (!v->life_left) {
				end = VISIT_CUT;
				break;
			}
			jit_visit_spend(v, RECORD_COST);
			length = (size_t)(nl - (maps->window + used)) + 1;
			if (source->skipping)
				source->skipping = 0;
			else if ((cut = prd_jit_add_line(maps, source, maps->window + used, length,
							 offset + used, sink)) != CUT_NONE)
				break;
			used += length;
		}
		if (cut != CUT_NONE || end != VISIT_END) {
			offset += used;
			break;
		}
		if (!used && (size_t)n == WINDOW) {	/* a line longer than we keep */
			source->skipping = 1;
			used = (size_t)n;
		}
		if (!used)
			break;			/* a partial last line: wait for the rest */
		offset += used;
	}
	source->offset = offset;
	if (cut != CUT_NONE) {
		prd_jit_cut_source(maps, source, cut, sink);
		return VISIT_CUT;
	}
	return end;
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

/* Of a code load: the prefix, the load and the name's NUL at most. */
#define CODE_LOAD_HEAD	(sizeof(struct jitdump_prefix) + sizeof(struct jitdump_code_load) + \
			 NAME_MAX_BYTES + 1)

/* The first record's offset, after the file header; 0 until it is whole. */
static uint64_t jitdump_start(struct jit_maps *maps, struct jit_source *source)
{
	uint32_t header[3];

	if (pread(source->fd, header, sizeof(header), 0) != (ssize_t)sizeof(header))
		return 0;
	if (header[0] != JITDUMP_MAGIC || header[2] < JITDUMP_HEADER_MIN ||
	    header[2] > WINDOW) {
		source->refused = 1;
		if (prd_jit_user_may_say(maps, source))
			prd_log_notice("process %u: /%s is no jitdump this host writes: not copied",
				       source->pid, source->path);
		return 0;
	}
	return header[2];
}

/* A code load's line, at pos of the window (room bytes of it, the record's size). */
static enum jit_cut code_load(struct jit_maps *maps, struct jit_source *source, size_t pos,
			      size_t room, uint32_t total_size, uint64_t offset,
			      const struct record_sink *sink)
{
	const size_t head = sizeof(struct jitdump_prefix) + sizeof(struct jitdump_code_load);
	char line[NAME_MAX_BYTES + 64];
	struct jitdump_code_load load;
	const char *name = maps->window + pos + head;
	size_t name_room = room - head;
	int length;

	memcpy(&load, maps->window + pos + sizeof(struct jitdump_prefix), sizeof(load));
	if (name_room > total_size - head)
		name_room = total_size - head;
	/* The name ends at its NUL, or at a newline that would start a line of its own. */
	name_room = strnlen(name, name_room < NAME_MAX_BYTES ? name_room : NAME_MAX_BYTES);
	if (memchr(name, '\n', name_room))
		name_room = (size_t)((const char *)memchr(name, '\n', name_room) - name);
	length = snprintf(line, sizeof(line), "%" PRIx64 " %" PRIx64 " %.*s\n",
			  load.code_addr, load.code_size, (int)name_room, name);
	if (length <= 0 || (size_t)length >= sizeof(line))
		return CUT_NONE;
	return prd_jit_add_line(maps, source, line, (size_t)length, offset, sink);
}

/*
 * Reads the jitdump's records on from source->offset, a window at a time:
 * its size is taken once a visit, so a record still being written waits.
 */
enum visit_end prd_jit_read_dump(struct jit_maps *maps, struct jit_source *source,
				 struct visit *v, const struct record_sink *sink)
{
	const size_t head = sizeof(struct jitdump_prefix) + sizeof(struct jitdump_code_load);
	uint64_t offset = source->offset, size;
	enum visit_end end = VISIT_END;
	enum jit_cut cut = CUT_NONE;
	struct stat st;

	jit_visit_spend(v, RECORD_COST);
	if (!offset && !(offset = jitdump_start(maps, source)))
		return VISIT_END;
	if (fstat(source->fd, &st) < 0)
		return VISIT_END;
	size = (uint64_t)st.st_size;
	while (offset + sizeof(struct jitdump_prefix) <= size &&
	       (end = jit_visit_check(v)) == VISIT_END) {
		size_t want = size - offset < WINDOW ? (size_t)(size - offset) : WINDOW;
		ssize_t n = pread(source->fd, maps->window, want, (off_t)offset);
		uint64_t pos = 0;

		if (n < (ssize_t)sizeof(struct jitdump_prefix))
			break;			/* it shrank */
		jit_visit_spend(v, (uint64_t)n);
		while (pos + sizeof(struct jitdump_prefix) <= (uint64_t)n) {
			struct jitdump_prefix prefix;

			memcpy(&prefix, maps->window + pos, sizeof(prefix));
			if (prefix.total_size < sizeof(prefix) ||
			    prefix.total_size > JITDUMP_RECORD_MAX) {
				source->refused = 1;	/* no record boundary to find again */
				break;
			}
			if (offset + pos + prefix.total_size > size)
				break;			/* still being written */
			/* What the line needs is past the window: read on from this record. */
			if (prefix.id == JITDUMP_CODE_LOAD && pos &&
			    pos + jit_min_u64(prefix.total_size, CODE_LOAD_HEAD) > (uint64_t)n)
				break;
			if (!v->life_left) {
				end = VISIT_CUT;
				break;
			}
			jit_visit_spend(v, RECORD_COST);
			if (prefix.id == JITDUMP_CODE_LOAD && prefix.total_size >= head + 1 &&
			    (uint64_t)n >= pos + head + 1 &&
			    (cut = code_load(maps, source, (size_t)pos, (size_t)((uint64_t)n - pos),
					     prefix.total_size, offset + pos, sink)) != CUT_NONE)
				break;
			pos += prefix.total_size;
		}
		/* pos may be past the window: a record's code is skipped, not read. */
		offset += pos;
		if (cut != CUT_NONE || end != VISIT_END || source->refused || !pos)
			break;
	}
	source->offset = offset;
	if (cut != CUT_NONE) {
		prd_jit_cut_source(maps, source, cut, sink);
		return VISIT_CUT;
	}
	return end;
}
