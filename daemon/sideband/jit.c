/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JIT symbol files copied into the capture; see jit.h.  The files are
 * the profiled processes': any of them may be hostile.  perfrecd is
 * root, so a file is opened only inside the process's own root, without
 * following a symlink or blocking on a FIFO, only if it is a regular
 * file owned by the process, and never on FUSE (whose server could make
 * a read hang).
 *
 * The reading runs between drains of the rings, so its bounds are on
 * what it costs, not on what a file holds.  A poll takes POLL_TIME_MAX_NS
 * at most and a user half of it, the clock read between windows of a
 * file (the text a window adds is compressed within it): what is left
 * waits for the next poll, which visits first the files served least
 * recently.  Work is counted as the bytes read plus RECORD_COST for each
 * line or jitdump record, however small: over its life a process may
 * cost READ_FACTOR times what it may yield, and a user as much within a
 * file, so that a sparse or endless file is cut there.  The text taken
 * is kept, to be stated again at each new file; what a user adds to a
 * file, and all users together, is bounded relative to --rotate-size
 * (jit_budgets()), so that nobody's JIT text rotates files or pushes
 * older ones out of the retention.
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
/* Read at a time; also the longest perf map line kept. */
#define WINDOW			(256u << 10)
/* The longest jitdump name kept. */
#define NAME_MAX_BYTES		4096u
/* Text a record carries at most, so records stay well inside a chunk. */
#define RECORD_TEXT_MAX		(256u << 10)
/* The work of a line or record beyond its bytes: parsing, formatting, copying. */
#define RECORD_COST		256u
/* One poll's time, and one user's share of it. */
#define POLL_TIME_MAX_NS	(20u * 1000000u)
#define USER_POLL_TIME_NS	(POLL_TIME_MAX_NS / 2)
/* At the end, sampling stopped: how long polls may go on. */
#define FINISH_TIME_NS		(2000u * 1000000ull)
/* Work a process may cost over its life, and a user within a file, per byte it may yield. */
#define READ_FACTOR		16u
/* The text kept in memory for the new files, all processes together. */
#define KEPT_MAX		(64ull << 20)

#define JITDUMP_MAGIC		0x4A695444u	/* "JiTD" as the runtime wrote it */
#define JITDUMP_HEADER_MIN	40u
#define JITDUMP_RECORD_MAX	(64u << 20)
#define JITDUMP_CODE_LOAD	0u

/* Why a process's text stops: each said in its own words. */
enum jit_cut {
	CUT_NONE,
	CUT_PROCESS,		/* --jit-map-size */
	CUT_USER,		/* its user's text in this file */
	CUT_ALL,		/* all users' text in this file */
	CUT_WORK,		/* the work it may cost over its life */
	CUT_USER_WORK,		/* the work its user may cost in this file */
	CUT_MEMORY,
};

/* A visit ends at the end of what the file has, at the poll's bound, or cut. */
enum visit_end { VISIT_END, VISIT_DEFERRED, VISIT_CUT };

/* A record as the earlier files got it: its text runs to the next chunk's start. */
struct kept_chunk {
	uint64_t offset;
	size_t start;
};

struct jit_source {
	uint32_t pid;
	uint32_t type;			/* PRF_RECORD_JIT_MAP or _JIT_DUMP */
	uint32_t user;			/* 1 + index in maps->users */
	int root_fd;			/* the process's root, held until the file opens */
	int fd;				/* -1 until it exists */
	char *path;			/* relative to that root */
	uid_t uids[4];			/* real, effective, saved, filesystem */
	uint64_t offset;		/* next byte of the file to read */
	uint64_t work;			/* spent on it over its life */
	uint64_t exit_time;		/* of its EXIT; 0 while it runs */
	uint64_t served;		/* the last poll that read it */
	size_t restate_next;		/* the next chunk the current file has not had */
	int restating;			/* until the current file has every chunk */
	enum jit_cut cut;		/* the bound that stopped it */
	int skipping;			/* within a line too long to keep */
	int refused;			/* said once: not a file we read */
	int finished;			/* exited and read: to be forgotten */
	/* The text taken, kept for each new file, and what of it is in no record yet. */
	char *text;
	size_t text_used, text_capacity, emitted;
	uint64_t pending_offset;	/* of the first line not in a record */
	struct kept_chunk *chunks;
	size_t chunk_count, chunk_capacity;
};

struct jit_user {
	uid_t uid;
	unsigned sources;
	uint64_t text;			/* added to the current file */
	uint64_t work;			/* spent in the current file */
	uint64_t poll_ns;		/* spent in this poll */
	int said;			/* in the current file */
};

struct jit_maps {
	char *proc_root;
	struct jit_limits limits;
	uint64_t user_text_max, all_text_max;	/* in a file */
	struct jit_source *sources;
	size_t count, capacity;
	uint32_t *order;		/* of a poll's visits */
	size_t order_capacity;
	uint64_t polls;
	struct jit_user *users;
	size_t user_count, user_capacity;
	struct prf_index user_index;
	unsigned descriptors;		/* held by the sources */
	uint64_t text;			/* all users' in the current file */
	uint64_t poll_deadline;
	uint64_t file_start;		/* the time of the restated records */
	int deferred;			/* the last poll left work */
	int all_said, full_said, descriptors_said;
	char *window;
	uint8_t *record;		/* header and text */
};

/*
 * A user may add a quarter of --rotate-size to a file, all of them half
 * of it, so that JIT text alone never fills a file (nor starts the next
 * one at once by stating it again); and what the files restate is kept
 * in memory, so all of it is capped.
 */
static void jit_budgets(struct jit_maps *maps)
{
	uint64_t file = maps->limits.file_bytes ? maps->limits.file_bytes : UINT64_MAX;

	maps->all_text_max = file / 2 < KEPT_MAX ? file / 2 : KEPT_MAX;
	maps->user_text_max = file / 4 < maps->all_text_max / 2 ? file / 4 :
			      maps->all_text_max / 2;
}

struct jit_maps *prd_jit_maps_new(const char *proc_root, const struct jit_limits *limits)
{
	struct jit_maps *maps;

	if (!limits->process_bytes)
		return NULL;
	maps = calloc(1, sizeof(*maps));
	if (!maps)
		return NULL;
	maps->proc_root = strdup(proc_root);
	maps->limits = *limits;
	jit_budgets(maps);
	maps->window = malloc(WINDOW);
	maps->record = malloc(sizeof(struct prf_jit_map_record) + RECORD_TEXT_MAX + 8);
	if (!maps->proc_root || !maps->window || !maps->record) {
		prd_jit_maps_free(maps);
		return NULL;
	}
	return maps;
}

static void source_close_files(struct jit_maps *maps, struct jit_source *source)
{
	if (source->root_fd >= 0) {
		close(source->root_fd);
		maps->descriptors--;
	}
	if (source->fd >= 0) {
		close(source->fd);
		maps->descriptors--;
	}
	source->root_fd = source->fd = -1;
}

static void source_close(struct jit_maps *maps, struct jit_source *source)
{
	source_close_files(maps, source);
	if (source->user)
		maps->users[source->user - 1].sources--;
	free(source->path);
	free(source->text);
	free(source->chunks);
	memset(source, 0, sizeof(*source));
	source->root_fd = source->fd = -1;
}

void prd_jit_maps_free(struct jit_maps *maps)
{
	if (!maps)
		return;
	for (size_t i = 0; i < maps->count; i++)
		source_close(maps, &maps->sources[i]);
	free(maps->sources);
	free(maps->order);
	free(maps->users);
	prf_index_free(&maps->user_index);
	free(maps->window);
	free(maps->record);
	free(maps->proc_root);
	free(maps);
}

/* ---- users ------------------------------------------------------------ */

static int same_uid(const void *context, uint32_t id, const void *key)
{
	return ((const struct jit_maps *)context)->users[id - 1].uid == *(const uid_t *)key;
}

/* 1 + the user's index, added if new; 0 without memory. */
static uint32_t user_of(struct jit_maps *maps, uid_t uid)
{
	uint64_t hash = prf_hash_mix(uid);
	struct prf_index_slot *slot = prf_index_place(&maps->user_index, hash, same_uid, maps, &uid);

	if (!slot)
		return 0;
	if (slot->id)
		return slot->id;
	if (prf_ensure_mem((void **)&maps->users, &maps->user_capacity, sizeof(*maps->users),
			   maps->user_count + 1) < 0)
		return 0;
	maps->users[maps->user_count] = (struct jit_user){ .uid = uid };
	prf_index_insert(&maps->user_index, slot, hash, (uint32_t)++maps->user_count);
	return (uint32_t)maps->user_count;
}

static struct jit_user *source_user(struct jit_maps *maps, const struct jit_source *source)
{
	return &maps->users[source->user - 1];
}

/* Once per user and file: whether this is the time to say something of it. */
static int user_may_say(struct jit_maps *maps, const struct jit_source *source)
{
	struct jit_user *user = source_user(maps, source);

	return !user->said++;
}

/* A new file: users with no process left go, the others' budgets start again. */
static void users_new_file(struct jit_maps *maps)
{
	uint32_t *moved = calloc(maps->user_count + 1, sizeof(*moved));
	size_t kept = 0;

	if (!moved)
		return;		/* the old table stands, budgets and all */
	prf_index_clear(&maps->user_index);
	for (size_t i = 0; i < maps->user_count; i++) {
		struct jit_user *user = &maps->users[i];
		uint64_t hash = prf_hash_mix(user->uid);
		struct prf_index_slot *slot;

		if (!user->sources)
			continue;
		maps->users[kept] = (struct jit_user){ .uid = user->uid, .sources = user->sources };
		/* Fewer than before: the index has room, and the uids are distinct. */
		slot = prf_index_place(&maps->user_index, hash, same_uid, maps, &maps->users[kept].uid);
		prf_index_insert(&maps->user_index, slot, hash, (uint32_t)(kept + 1));
		moved[i + 1] = (uint32_t)++kept;
	}
	maps->user_count = kept;
	for (size_t i = 0; i < maps->count; i++)
		maps->sources[i].user = moved[maps->sources[i].user];
	free(moved);
}

/* ---- records -------------------------------------------------------- */

static uint64_t source_time(const struct jit_source *source)
{
	/* An exited process's lines are its own: dated before its pid can be reused. */
	return source->exit_time ? source->exit_time : prf_clock_ns(CLOCK_MONOTONIC);
}

static void emit_record(struct jit_maps *maps, const struct jit_source *source, uint64_t time,
			uint64_t offset, const char *text, size_t size, uint32_t flags,
			const struct record_sink *sink)
{
	struct prf_jit_map_record r = { 0 };
	size_t padded = PRF_ALIGN8(size);

	r.header.type = source->type;
	r.header.size = (uint32_t)(sizeof(r) + padded);
	r.time = time;
	r.pid = source->pid;
	r.flags = flags;
	r.offset = offset;
	r.text_size = size;
	memcpy(maps->record, &r, sizeof(r));
	if (size)
		memcpy(maps->record + sizeof(r), text, size);
	memset(maps->record + sizeof(r) + size, 0, padded - size);
	sink->emit(sink->context, maps->record, sizeof(r) + padded, r.time);
}

/* The text taken since the last record, as a record; kept for the next files. */
static void emit_pending(struct jit_maps *maps, struct jit_source *source, uint32_t flags,
			 const struct record_sink *sink)
{
	size_t size = source->text_used - source->emitted;
	struct kept_chunk *last = source->chunk_count ? &source->chunks[source->chunk_count - 1] :
			     NULL;

	if (!size && !(flags & PRF_JIT_CUT))
		return;
	emit_record(maps, source, source_time(source), size ? source->pending_offset : source->offset,
		    source->text + source->emitted, size, flags, sink);
	/* A restated record carries what fits of adjacent chunks: fewer, larger records. */
	if (size && (!last || source->text_used - last->start > RECORD_TEXT_MAX)) {
		if (prf_ensure_mem((void **)&source->chunks, &source->chunk_capacity,
				   sizeof(*source->chunks), source->chunk_count + 1) == 0)
			source->chunks[source->chunk_count++] =
				(struct kept_chunk){ source->pending_offset, source->emitted };
		else
			source->text_used = source->emitted;	/* not kept: not restated */
	}
	source->emitted = source->text_used;
}

/* ---- cuts ----------------------------------------------------------- */

static void say_cut(struct jit_maps *maps, const struct jit_source *source)
{
	const struct jit_user *user = source_user(maps, source);

	switch (source->cut) {
	case CUT_PROCESS:
		prd_log_notice("process %u: /%s %s --jit-map-size (%" PRIu64 " bytes): the rest is not copied",
			       source->pid, source->path,
			       source->type == PRF_RECORD_JIT_MAP ? "is larger than" :
			       "has more code than", maps->limits.process_bytes);
		break;
	case CUT_USER:
		prd_log_notice("user %u: the JIT symbols of its processes reached %" PRIu64
			       " bytes in this file, a user's share (a quarter of --rotate-size, 32M at most): process %u's rest is not copied, nor more of the user's in this file",
			       (unsigned)user->uid, maps->user_text_max, source->pid);
		break;
	case CUT_ALL:
		prd_log_notice("the JIT symbols of all processes reached %" PRIu64
			       " bytes in this file (half of --rotate-size, 64M at most): process %u's rest (user %u) is not copied",
			       maps->all_text_max, source->pid, (unsigned)user->uid);
		break;
	case CUT_WORK:
		prd_log_notice("process %u (user %u): reading its JIT symbols cost %" PRIu64
			       " bytes, %u times --jit-map-size: the rest is not read",
			       source->pid, (unsigned)user->uid, source->work, READ_FACTOR);
		break;
	case CUT_USER_WORK:
		prd_log_notice("user %u: reading the JIT symbols of its processes cost %" PRIu64
			       " bytes in this file, %u times a user's share: process %u's rest is not read, nor more of the user's in this file",
			       (unsigned)user->uid, user->work, READ_FACTOR, source->pid);
		break;
	case CUT_MEMORY:
		prd_log_warning("process %u: no memory to keep its JIT symbols: the rest is not copied",
				source->pid);
		break;
	case CUT_NONE:
		break;
	}
}

/* The process's text stops here, for good: its last record says so. */
static void cut_source(struct jit_maps *maps, struct jit_source *source, enum jit_cut why,
		       const struct record_sink *sink)
{
	source->cut = why;
	if (why == CUT_ALL ? !maps->all_said++ : user_may_say(maps, source))
		say_cut(maps, source);
	emit_pending(maps, source, PRF_JIT_CUT, sink);
}

/* ---- the work of a visit ----------------------------------------------- */

/*
 * A visit may spend what the process and its user may still cost (then
 * it is cut), and the time the poll and the user have left (then it is
 * deferred); the clock is read once a window.
 */
struct visit {
	uint64_t life_left, spent;
	uint64_t started, deadline;
	enum jit_cut spent_out;		/* what it is when life_left runs out */
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void visit_start(struct jit_maps *maps, struct jit_source *source, struct visit *v)
{
	const struct jit_user *user = source_user(maps, source);
	uint64_t process_max = maps->limits.process_bytes > UINT64_MAX / READ_FACTOR ? UINT64_MAX :
			       maps->limits.process_bytes * READ_FACTOR;
	uint64_t user_max = maps->user_text_max * READ_FACTOR;
	uint64_t process_left = process_max - min_u64(source->work, process_max);
	uint64_t user_left = user_max - min_u64(user->work, user_max);

	v->life_left = min_u64(process_left, user_left);
	v->spent_out = process_left <= user_left ? CUT_WORK : CUT_USER_WORK;
	v->spent = 0;
	v->started = prf_clock_ns(CLOCK_MONOTONIC);
	v->deadline = min_u64(maps->poll_deadline, v->started + USER_POLL_TIME_NS -
			      min_u64(user->poll_ns, USER_POLL_TIME_NS));
}

/* Before a window: VISIT_END if it may be read, else _DEFERRED or _CUT. */
static enum visit_end visit_check(const struct visit *v)
{
	if (!v->life_left)
		return VISIT_CUT;
	if (prf_clock_ns(CLOCK_MONOTONIC) >= v->deadline)
		return VISIT_DEFERRED;
	return VISIT_END;
}

static void visit_spend(struct visit *v, uint64_t amount)
{
	v->life_left -= min_u64(amount, v->life_left);
	v->spent += amount;
}

static void visit_done(struct jit_maps *maps, struct jit_source *source, const struct visit *v)
{
	struct jit_user *user = source_user(maps, source);

	source->work += v->spent;
	user->work += v->spent;
	user->poll_ns += prf_clock_ns(CLOCK_MONOTONIC) - v->started;
}

/*
 * Adds a line (with its newline) to the text, starting a record when the
 * one being built is full.  CUT_NONE, or the bound that stops it here.
 */
static enum jit_cut add_line(struct jit_maps *maps, struct jit_source *source, const char *line,
			     size_t length, uint64_t line_offset, const struct record_sink *sink)
{
	struct jit_user *user = source_user(maps, source);

	if (source->text_used + length > maps->limits.process_bytes)
		return CUT_PROCESS;
	if (user->text + length > maps->user_text_max)
		return CUT_USER;
	if (maps->text + length > maps->all_text_max)
		return CUT_ALL;
	if (source->text_used - source->emitted + length > RECORD_TEXT_MAX)
		emit_pending(maps, source, 0, sink);
	if (prf_ensure_mem((void **)&source->text, &source->text_capacity, 1,
			   source->text_used + length) < 0)
		return CUT_MEMORY;
	if (source->text_used == source->emitted)
		source->pending_offset = line_offset;
	memcpy(source->text + source->text_used, line, length);
	source->text_used += length;
	user->text += length;
	maps->text += length;
	return CUT_NONE;
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

/*
 * Whether the file is there to read now; says why one is refused (once
 * per user and file).  Once it is open, the root is no longer needed: a
 * process holds one descriptor.
 */
static int source_ready(struct jit_maps *maps, struct jit_source *source)
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
		if (user_may_say(maps, source))
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

static struct jit_source *source_find(struct jit_maps *maps, uint32_t pid, uint32_t type)
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

static struct jit_source *source_add(struct jit_maps *maps, uint32_t pid, uint32_t type,
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
	    !(source->user = user_of(maps, source->uids[0]))) {
		source_close(maps, source);
		return NULL;	/* gone already, or not ours to see */
	}
	source_user(maps, source)->sources++;
	maps->count++;
	return source;
}

/* ---- perf maps: whole lines ------------------------------------------ */

/* Reads the map on from source->offset: its new whole lines, within the visit's work. */
static enum visit_end read_map(struct jit_maps *maps, struct jit_source *source,
			       struct visit *v, const struct record_sink *sink)
{
	uint64_t offset = source->offset;
	enum visit_end end = VISIT_END;
	enum jit_cut cut = CUT_NONE;

	while ((end = visit_check(v)) == VISIT_END) {
		ssize_t n = pread(source->fd, maps->window, WINDOW, (off_t)offset);
		size_t used = 0;

		if (n <= 0)
			break;
		visit_spend(v, (uint64_t)n);
		while (used < (size_t)n) {
			char *nl = memchr(maps->window + used, '\n', (size_t)n - used);
			size_t length;

			if (!nl)
				break;
			if (!v->life_left) {
				end = VISIT_CUT;
				break;
			}
			visit_spend(v, RECORD_COST);
			length = (size_t)(nl - (maps->window + used)) + 1;
			if (source->skipping)
				source->skipping = 0;
			else if ((cut = add_line(maps, source, maps->window + used, length,
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
		cut_source(maps, source, cut, sink);
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
		if (user_may_say(maps, source))
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
	return add_line(maps, source, line, (size_t)length, offset, sink);
}

/*
 * Reads the jitdump's records on from source->offset, a window at a time:
 * its size is taken once a visit, so a record still being written waits.
 */
static enum visit_end read_dump(struct jit_maps *maps, struct jit_source *source,
				struct visit *v, const struct record_sink *sink)
{
	const size_t head = sizeof(struct jitdump_prefix) + sizeof(struct jitdump_code_load);
	uint64_t offset = source->offset, size;
	enum visit_end end = VISIT_END;
	enum jit_cut cut = CUT_NONE;
	struct stat st;

	visit_spend(v, RECORD_COST);
	if (!offset && !(offset = jitdump_start(maps, source)))
		return VISIT_END;
	if (fstat(source->fd, &st) < 0)
		return VISIT_END;
	size = (uint64_t)st.st_size;
	while (offset + sizeof(struct jitdump_prefix) <= size &&
	       (end = visit_check(v)) == VISIT_END) {
		size_t want = size - offset < WINDOW ? (size_t)(size - offset) : WINDOW;
		ssize_t n = pread(source->fd, maps->window, want, (off_t)offset);
		uint64_t pos = 0;

		if (n < (ssize_t)sizeof(struct jitdump_prefix))
			break;			/* it shrank */
		visit_spend(v, (uint64_t)n);
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
			    pos + min_u64(prefix.total_size, CODE_LOAD_HEAD) > (uint64_t)n)
				break;
			if (!v->life_left) {
				end = VISIT_CUT;
				break;
			}
			visit_spend(v, RECORD_COST);
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
		cut_source(maps, source, cut, sink);
		return VISIT_CUT;
	}
	return end;
}

/* ---- restating ---------------------------------------------------------- */

/*
 * The kept chunks the current file has not had yet, within the poll's
 * time (a user's share of a file is bounded already): 1 if some are left
 * for the next poll.  They are dated at the file's start, before any line
 * read since, so that a reader takes them as what the earlier files had.
 */
static int restate_step(struct jit_maps *maps, struct jit_source *source,
			const struct record_sink *sink)
{
	struct jit_user *user = source_user(maps, source);
	uint64_t started = prf_clock_ns(CLOCK_MONOTONIC);
	int left = 0;

	/* Each chunk is as large a record as emit_pending() could make it. */
	while (source->restate_next < source->chunk_count) {
		const struct kept_chunk *chunk = &source->chunks[source->restate_next];
		size_t end = source->restate_next + 1 < source->chunk_count ? chunk[1].start :
			     source->emitted;

		if (prf_clock_ns(CLOCK_MONOTONIC) >= maps->poll_deadline) {
			left = 1;
			break;
		}
		emit_record(maps, source, maps->file_start, chunk->offset,
			    source->text + chunk->start, end - chunk->start, PRF_JIT_RESTATED, sink);
		source->restate_next++;
	}
	if (!left && source->cut)	/* the new file says so too */
		emit_record(maps, source, maps->file_start, source->offset, NULL, 0,
			    PRF_JIT_RESTATED | PRF_JIT_CUT, sink);
	source->restating = left;
	user->poll_ns += prf_clock_ns(CLOCK_MONOTONIC) - started;
	return left;
}

/* ---- polls ------------------------------------------------------------ */

/* Reads what the source's file gained, within the poll's work; whether work is left. */
static int source_visit(struct jit_maps *maps, struct jit_source *source,
			const struct record_sink *sink)
{
	enum visit_end end;
	struct visit v;

	/* What the earlier files had first: a new line is not read before it. */
	if (source->restating && restate_step(maps, source, sink))
		return 1;
	if (source->cut || source->refused)
		source_close_files(maps, source);	/* nothing more to read */
	if (!source_ready(maps, source) || source->refused) {
		source->finished = source->exit_time != 0;
		return 0;
	}
	visit_start(maps, source, &v);
	end = visit_check(&v);
	if (end == VISIT_DEFERRED)
		return 1;
	if (end == VISIT_CUT) {
		cut_source(maps, source, v.spent_out, sink);
		source->finished = source->exit_time != 0;
		return 0;
	}
	source->served = maps->polls;
	end = source->type == PRF_RECORD_JIT_MAP ? read_map(maps, source, &v, sink) :
	      read_dump(maps, source, &v, sink);
	visit_done(maps, source, &v);
	if (end == VISIT_CUT && !source->cut)
		cut_source(maps, source, v.spent_out, sink);
	else
		emit_pending(maps, source, 0, sink);
	if (end == VISIT_DEFERRED)
		return 1;
	source->finished = source->exit_time != 0;
	return 0;
}

/* The sources whose processes exited and whose files were read go. */
static void forget_finished(struct jit_maps *maps)
{
	size_t kept = 0;

	for (size_t i = 0; i < maps->count; i++) {
		if (maps->sources[i].finished) {
			source_close(maps, &maps->sources[i]);
			continue;
		}
		if (kept != i)
			maps->sources[kept] = maps->sources[i];
		kept++;
	}
	maps->count = kept;
}

static int less_recently_served(const void *a, const void *b, void *context)
{
	const struct jit_source *sources = context;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sources[x].served != sources[y].served)
		return sources[x].served < sources[y].served ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The order of a poll's visits: after a poll that left work, the sources
 * it served least recently first, so that neither a user's first file
 * nor the first users take every poll.
 */
static const uint32_t *poll_order(struct jit_maps *maps)
{
	if (prf_ensure_mem((void **)&maps->order, &maps->order_capacity, sizeof(*maps->order),
			   maps->count) < 0)
		return NULL;
	for (size_t i = 0; i < maps->count; i++)
		maps->order[i] = (uint32_t)i;
	if (maps->deferred)
		qsort_r(maps->order, maps->count, sizeof(*maps->order), less_recently_served,
			maps->sources);
	return maps->order;
}

/* A poll's budget of time begins. */
static void poll_start(struct jit_maps *maps)
{
	maps->poll_deadline = prf_clock_ns(CLOCK_MONOTONIC) + POLL_TIME_MAX_NS;
	for (size_t i = 0; i < maps->user_count; i++)
		maps->users[i].poll_ns = 0;
}

void prd_jit_maps_poll(struct jit_maps *maps, const struct record_sink *sink)
{
	const uint32_t *order;

	if (!maps || !(order = poll_order(maps)))
		return;
	maps->polls++;
	maps->deferred = 0;
	poll_start(maps);
	for (size_t k = 0; k < maps->count; k++) {
		if (prf_clock_ns(CLOCK_MONOTONIC) >= maps->poll_deadline) {
			maps->deferred = 1;
			break;
		}
		if (source_visit(maps, &maps->sources[order[k]], sink))
			maps->deferred = 1;
	}
	forget_finished(maps);
}

void prd_jit_maps_finish(struct jit_maps *maps, const struct record_sink *sink)
{
	uint64_t end = prf_clock_ns(CLOCK_MONOTONIC) + FINISH_TIME_NS;

	if (!maps)
		return;
	do
		prd_jit_maps_poll(maps, sink);
	while (maps->deferred && prf_clock_ns(CLOCK_MONOTONIC) < end);
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
	uint32_t pid, prot;
	char path[64];
	struct jit_source *source;

	(void)sink;
	if (!maps || record->type != PERF_RECORD_MMAP2 || record->size <= 72 ||
	    !memchr(name, '\0', record->size - 72u))
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&prot, p + 64, 4);
	if (pid == UINT32_MAX || pid == 0)
		return;
	if (jitdump_name(name, pid) && name[0] == '/') {
		if (!source_find(maps, pid, PRF_RECORD_JIT_DUMP) &&
		    (source = source_add(maps, pid, PRF_RECORD_JIT_DUMP, name + 1)))
			source_ready(maps, source);
		return;
	}
	if (!(prot & PROT_EXEC) || !anonymous(name) ||
	    source_find(maps, pid, PRF_RECORD_JIT_MAP))
		return;
	snprintf(path, sizeof(path), "tmp/perf-%u.map", pid);
	/* Opened now, so that a map deleted before the next poll is still read. */
	source = source_add(maps, pid, PRF_RECORD_JIT_MAP, path);
	if (source)
		source_ready(maps, source);
}

void prd_jit_maps_note_exit(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink)
{
	uint32_t pid, tid;
	uint64_t time = 0;

	(void)sink;
	if (!maps || record->size < 24)
		return;
	memcpy(&pid, (const uint8_t *)record + 8, 4);
	memcpy(&tid, (const uint8_t *)record + 16, 4);
	if (record->size >= 32)
		memcpy(&time, (const uint8_t *)record + 24, 8);
	if (pid != tid)
		return;		/* a thread, not the process */
	for (size_t i = 0; i < maps->count; i++) {
		struct jit_source *source = &maps->sources[i];

		if (source->pid != pid || source->exit_time)
			continue;
		source->exit_time = time ? time : prf_clock_ns(CLOCK_MONOTONIC);
		/* A map written as it exited: opened while its root is held, read by the polls. */
		if (!source_ready(maps, source) || source->cut) {
			source->finished = 1;
			source_close_files(maps, source);
		}
	}
}

void prd_jit_maps_restate(struct jit_maps *maps, const struct record_sink *sink)
{
	if (!maps)
		return;
	users_new_file(maps);
	maps->text = 0;
	maps->all_said = 0;
	maps->descriptors_said = 0;
	maps->file_start = prf_clock_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < maps->count; i++) {
		struct jit_source *source = &maps->sources[i];
		struct jit_user *user = source_user(maps, source);

		/* An exited process has no samples in the new file: its lines are not needed there. */
		source->restate_next = 0;
		source->restating = !source->exit_time && (source->chunk_count || source->cut);
		if (!source->restating)
			continue;
		/* In this file's budgets too: what was taken before fits, it was within them. */
		user->text += source->emitted;
		maps->text += source->emitted;
	}
	/* As much as a poll may do now; the polls do the rest. */
	poll_start(maps);
	for (size_t i = 0; i < maps->count; i++)
		if (maps->sources[i].restating && restate_step(maps, &maps->sources[i], sink))
			maps->deferred = 1;
}
