/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output directory's build-id tree of binaries nobody could find
 * later (bincache.h).  Everything under DIR/.build-id is opened relative
 * to the directory's fd, without following symbolic links and without
 * blocking on FIFOs: anyone who could write there could plant either.  A
 * copy is written to a temporary name, its build-id read back from the
 * copy, then renamed over the final name, so a reader never sees half a
 * binary and a planted entry is replaced, never written through.
 *
 * Any user can have a binary considered (deleted while mapped, or mapped
 * in a mount namespace of its own) and choose its size and build-id, so
 * the copies are made off the drain: prd_bincache_consider() queues the
 * mapped file's descriptor, and the polls copy for POLL_TIME_NS at a
 * time, waiting for the writeback of a slice at a time.  The binaries of
 * a file owner other than root may take a quarter of the cap (a new one
 * first removes the owner's own oldest), and the owner may have that much
 * copied within a capture file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "bincache.h"
#include "service.h"
#include "format.h"
#include "synthesize.h"

/* Copies waiting at most: each holds the mapped file's descriptor. */
#define JOBS_MAX		64
/* Copied between readings of the clock. */
#define SLICE_BYTES		(4u << 20)
/* A poll's time, and at the end (sampling stopped) the time left to the copies. */
#define POLL_TIME_NS		(20u * 1000000u)
#define FINISH_TIME_NS		(10000u * 1000000ull)
/* The owner of a binary an earlier run kept. */
#define OWNER_UNKNOWN		((uid_t)-1)

/* A kept binary, for the cap: the oldest (mtime) goes first. */
struct bincache_file {
	char name[2 * 20 + 8];		/* "xx/rest" */
	uint64_t bytes;
	struct timespec seen;
	uid_t owner;			/* of the mapped file, or OWNER_UNKNOWN */
};

/* A copy waiting, or under way (the first): in_fd is the mapped file. */
struct bincache_job {
	int in_fd, sub_fd, out_fd;	/* the last two -1 until it starts */
	char *path;			/* as the process mapped it, for the log */
	uint8_t build_id[20];
	size_t build_id_size;
	char hex[2 * 20 + 1];
	char temp[64];
	uint64_t bytes, done, synced;
	uid_t owner;
	int by_read;			/* sendfile() would not: read and write */
};

/* What a file owner had copied within the current capture file. */
struct bincache_owner {
	uid_t uid;
	uint64_t copied;		/* queued copies included */
	int said;
};

struct bincache {
	int dir_fd;			/* DIR/.build-id */
	uint64_t max_bytes, bytes;
	gid_t group;			/* (gid_t)-1: none */
	struct bincache_file *files;
	size_t file_count, file_capacity;
	uint8_t (*considered)[21];	/* build-ids seen: size, then bytes */
	size_t considered_count, considered_capacity;
	struct prf_index considered_index;
	struct bincache_job jobs[JOBS_MAX];
	size_t job_count;
	struct bincache_owner *owners;
	size_t owner_count, owner_capacity;
	struct prf_index owner_index;
	int full_said;			/* in the current capture file */
};

static void make_room(struct bincache *c, uint64_t bytes);

static int add_file(struct bincache *c, const char *name, uint64_t bytes, struct timespec seen,
		    uid_t owner)
{
	if (prf_ensure_mem((void **)&c->files, &c->file_capacity, sizeof(*c->files),
			   c->file_count + 1) < 0)
		return -ENOMEM;
	snprintf(c->files[c->file_count].name, sizeof(c->files[0].name), "%s", name);
	c->files[c->file_count].bytes = bytes;
	c->files[c->file_count].seen = seen;
	c->files[c->file_count].owner = owner;
	c->file_count++;
	c->bytes += bytes;
	return 0;
}

static int is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strspn(s, "0123456789abcdef");

	return !s[n] && n >= min && n <= max;
}

/* fd read as a directory; NULL, and fd closed, if it is none. */
static DIR *dir_of(int fd)
{
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir && fd >= 0)
		close(fd);
	return dir;
}

/* The regular files of xx/ already there (another run's); the rest is left alone. */
static void scan_subdir(struct bincache *c, const char *sub)
{
	DIR *dir = dir_of(openat(c->dir_fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char name[sizeof(c->files[0].name)];
		struct stat st;

		/* A copy a crash left half written (store()'s temporary name). */
		if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp") &&
		    !fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode)) {
			unlinkat(dirfd(dir), e->d_name, 0);
			continue;
		}
		if (!is_hex(e->d_name, 2, 38) ||
		    fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		/* is_hex() bounded the name: it fits. */
		snprintf(name, sizeof(name), "%.2s/%.38s", sub, e->d_name);
		if (add_file(c, name, (uint64_t)st.st_size, st.st_mtim, OWNER_UNKNOWN) < 0)
			break;
	}
	closedir(dir);
}

static void scan(struct bincache *c)
{
	DIR *dir = dir_of(dup(c->dir_fd));
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (is_hex(e->d_name, 2, 2))
			scan_subdir(c, e->d_name);
	closedir(dir);
}

int prd_bincache_open(struct bincache **out, const char *output_dir, uint64_t max_bytes,
		      const char *group)
{
	struct bincache *c = calloc(1, sizeof(*c));
	int parent, err;
	struct stat st;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->max_bytes = max_bytes;
	c->group = (gid_t)-1;
	if (group) {
		struct group *g = getgrnam(group);

		if (g)
			c->group = g->gr_gid;
	}
	parent = open(output_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0) {
		err = -errno;
		free(c);
		return err;
	}
	if (mkdirat(parent, ".build-id", 0700) < 0 && errno != EEXIST) {
		err = -errno;
		close(parent);
		free(c);
		return err;
	}
	c->dir_fd = openat(parent, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = -errno;
	close(parent);
	if (c->dir_fd < 0) {
		free(c);
		return err == -ENOTDIR || err == -ELOOP ? -ENOTDIR : err;
	}
	/* Ours, as the capture files are: not another user's, writable by nobody else. */
	if (fstat(c->dir_fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(c->dir_fd);
		free(c);
		return -EPERM;
	}
	if (c->group != (gid_t)-1 && fchown(c->dir_fd, (uid_t)-1, c->group) == 0)
		fchmod(c->dir_fd, 0750);
	scan(c);
	make_room(c, 0);	/* a smaller cap than the last run's */
	*out = c;
	return 0;
}

static void job_close(struct bincache *c, struct bincache_job *job)
{
	if (job->out_fd >= 0) {
		close(job->out_fd);
		unlinkat(job->sub_fd, job->temp, 0);
	}
	if (job->sub_fd >= 0)
		close(job->sub_fd);
	close(job->in_fd);
	free(job->path);
	memmove(job, job + 1, (size_t)(c->jobs + c->job_count - (job + 1)) * sizeof(*job));
	c->job_count--;
}

void prd_bincache_close(struct bincache *c)
{
	if (!c)
		return;
	while (c->job_count)
		job_close(c, &c->jobs[0]);
	close(c->dir_fd);
	free(c->files);
	free(c->considered);
	prf_index_free(&c->considered_index);
	free(c->owners);
	prf_index_free(&c->owner_index);
	free(c);
}

/* xx/ of the tree, never through a symbolic link; -errno. */
static int open_sub(const struct bincache *c, const char *sub, int create)
{
	int fd;

	if (create && mkdirat(c->dir_fd, sub, c->group != (gid_t)-1 ? 0750 : 0700) < 0 &&
	    errno != EEXIST)
		return -errno;
	fd = openat(c->dir_fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (create && c->group != (gid_t)-1 && fchown(fd, (uid_t)-1, c->group) == 0)
		fchmod(fd, 0750);
	return fd;
}

/* Removes xx/rest (name) of the tree; 0 when it is gone. */
static int remove_entry(const struct bincache *c, const char *name)
{
	char sub[3];
	int fd, ret;

	snprintf(sub, sizeof(sub), "%.2s", name);
	fd = open_sub(c, sub, 0);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	ret = unlinkat(fd, name + 3, 0) == 0 || errno == ENOENT ? 0 : -errno;
	close(fd);
	return ret;
}

static int same_build_id(const void *context, uint32_t id, const void *key)
{
	const uint8_t *seen = ((const struct bincache *)context)->considered[id - 1], *k = key;

	return seen[0] == k[0] && !memcmp(seen + 1, k + 1, k[0]);
}

/* Whether the build-id was considered before; remembers it if not. */
static int considered(struct bincache *c, const uint8_t *build_id, size_t size)
{
	uint8_t key[21] = { (uint8_t)size };
	uint64_t hash = prf_hash_bytes(build_id, size);
	struct prf_index_slot *slot;

	memcpy(key + 1, build_id, size);
	slot = prf_index_place(&c->considered_index, hash, same_build_id, c, key);
	if (slot && slot->id)
		return 1;
	if (!slot || prf_ensure_mem((void **)&c->considered, &c->considered_capacity,
				    sizeof(*c->considered), c->considered_count + 1) < 0)
		return 1;	/* without memory, nothing new is kept */
	memcpy(c->considered[c->considered_count++], key, sizeof(key));
	prf_index_insert(&c->considered_index, slot, hash, (uint32_t)c->considered_count);
	return 0;
}

/* Whether path, in our own mount namespace, is the mapped file itself. */
static int reachable(const char *path, uint32_t major, uint32_t minor, uint64_t inode)
{
	int fd = prf_open_regular(path);
	struct stat st;
	int same;

	if (fd < 0)
		return 0;
	same = !fstat(fd, &st) && st.st_ino == inode && major(st.st_dev) == major &&
	       minor(st.st_dev) == minor;
	close(fd);
	return same;
}

static int oldest_first(const void *a, const void *b)
{
	const struct bincache_file *x = a, *y = b;

	if (x->seen.tv_sec != y->seen.tv_sec)
		return x->seen.tv_sec < y->seen.tv_sec ? -1 : 1;
	return (x->seen.tv_nsec > y->seen.tv_nsec) - (x->seen.tv_nsec < y->seen.tv_nsec);
}

/* Removes the least recently seen binaries until bytes more fit. */
static void make_room(struct bincache *c, uint64_t bytes)
{
	size_t gone = 0;

	if (!c->file_count)
		return;
	qsort(c->files, c->file_count, sizeof(*c->files), oldest_first);
	while (gone < c->file_count && c->bytes + bytes > c->max_bytes) {
		if (remove_entry(c, c->files[gone].name) == 0) {
			prd_log_info("binary cache: removed .build-id/%s (%" PRIu64 " bytes), the least recently seen",
				     c->files[gone].name, c->files[gone].bytes);
			c->bytes -= c->files[gone].bytes;
		}
		gone++;
	}
	memmove(c->files, c->files + gone, (c->file_count - gone) * sizeof(*c->files));
	c->file_count -= gone;
}

/* A file owner's share of the cap; root's binaries are the system's. */
static uint64_t owner_share(const struct bincache *c, uid_t owner)
{
	return owner == 0 ? c->max_bytes : c->max_bytes / 4;
}

/* Removes owner's own least recently seen binaries until bytes more fit in its share. */
static void make_room_within_share(struct bincache *c, uid_t owner, uint64_t bytes)
{
	uint64_t share = owner_share(c, owner), kept = 0;
	size_t i = 0;

	for (size_t k = 0; k < c->file_count; k++)
		if (c->files[k].owner == owner)
			kept += c->files[k].bytes;
	if (kept + bytes <= share)
		return;
	qsort(c->files, c->file_count, sizeof(*c->files), oldest_first);
	while (i < c->file_count && kept + bytes > share) {
		struct bincache_file *f = &c->files[i];

		if (f->owner != owner || remove_entry(c, f->name) < 0) {
			i++;
			continue;
		}
		prd_log_info("binary cache: removed .build-id/%s (%" PRIu64 " bytes), its owner's (uid %u) least recently seen",
			     f->name, f->bytes, (unsigned)owner);
		kept -= f->bytes;
		c->bytes -= f->bytes;
		memmove(f, f + 1, (c->file_count - i - 1) * sizeof(*f));
		c->file_count--;
	}
}

/* ---- owners' copies within a capture file ------------------------------- */

static int same_owner(const void *context, uint32_t id, const void *key)
{
	return ((const struct bincache *)context)->owners[id - 1].uid == *(const uid_t *)key;
}

/* The owner's entry of the current capture file; NULL without memory. */
static struct bincache_owner *owner_of(struct bincache *c, uid_t uid)
{
	uint64_t hash = prf_hash_mix(uid);
	struct prf_index_slot *slot = prf_index_place(&c->owner_index, hash, same_owner, c, &uid);

	if (!slot)
		return NULL;
	if (slot->id)
		return &c->owners[slot->id - 1];
	if (prf_ensure_mem((void **)&c->owners, &c->owner_capacity, sizeof(*c->owners),
			   c->owner_count + 1) < 0)
		return NULL;
	c->owners[c->owner_count] = (struct bincache_owner){ .uid = uid };
	prf_index_insert(&c->owner_index, slot, hash, (uint32_t)++c->owner_count);
	return &c->owners[c->owner_count - 1];
}

void prd_bincache_file_started(struct bincache *c)
{
	if (!c)
		return;
	prf_index_clear(&c->owner_index);
	c->owner_count = 0;
	c->full_said = 0;
}

/* ---- copies ----------------------------------------------------------- */

/* An existing xx/rest of that build-id: a regular file (nothing planted) with it. */
static int have_entry(int sub_fd, const char *rest, const uint8_t *build_id, size_t size)
{
	int fd = openat(sub_fd, rest, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	uint8_t id[20];
	uint8_t id_size = 0;
	struct stat st;
	int ok;

	if (fd < 0)
		return 0;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) && !prd_buildid_read_file(fd, id, &id_size) &&
	     id_size == size && !memcmp(id, build_id, size);
	if (ok)
		futimens(fd, NULL);	/* seen again: the last to go */
	close(fd);
	return ok;
}

/* The job's output, xx/.rest.tmpPID, made; 0, 1 (nothing to copy) or -errno. */
static int job_start(struct bincache *c, struct bincache_job *job)
{
	char sub[3];

	snprintf(sub, sizeof(sub), "%.2s", job->hex);
	job->sub_fd = open_sub(c, sub, 1);
	if (job->sub_fd < 0)
		return job->sub_fd;
	if (have_entry(job->sub_fd, job->hex + 2, job->build_id, job->build_id_size))
		return 1;
	make_room_within_share(c, job->owner, job->bytes);
	make_room(c, job->bytes);
	snprintf(job->temp, sizeof(job->temp), ".%s.tmp%ld", job->hex + 2, (long)getpid());
	unlinkat(job->sub_fd, job->temp, 0);
	job->out_fd = openat(job->sub_fd, job->temp,
			     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return job->out_fd < 0 ? -errno : 0;
}

/*
 * A slice of the copy: sendfile() keeps it in the kernel, read and write
 * are the fallback.  The writeback of the slice before is waited for, so
 * the fsync() at the end waits for a slice at most.
 */
static int job_copy_slice(struct bincache_job *job)
{
	uint64_t want = job->bytes - job->done < SLICE_BYTES ? job->bytes - job->done : SLICE_BYTES;
	off_t offset = (off_t)job->done;
	char buf[65536];
	ssize_t n;

	if (!job->by_read) {
		n = sendfile(job->out_fd, job->in_fd, &offset, (size_t)want);
		if (n < 0 && errno == EINTR)
			return 0;
		if (n <= 0 && !job->done) {
			job->by_read = 1;
			return 0;
		}
		if (n <= 0)
			return -EIO;	/* shrank under us, or failed half way */
	} else {
		ssize_t w;

		n = pread(job->in_fd, buf, want < sizeof(buf) ? (size_t)want : sizeof(buf), offset);
		if (n < 0 && errno == EINTR)
			return 0;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;	/* shrank under us */
		for (ssize_t at = 0; at < n; at += w) {
			w = write(job->out_fd, buf + at, (size_t)(n - at));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				return -errno;
		}
	}
	if (job->done > job->synced)
		sync_file_range(job->out_fd, (off_t)job->synced, (off_t)(job->done - job->synced),
				SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				SYNC_FILE_RANGE_WAIT_AFTER);
	job->synced = job->done;
	job->done += (uint64_t)n;
	sync_file_range(job->out_fd, (off_t)job->synced, n, SYNC_FILE_RANGE_WRITE);
	return 0;
}

/* The whole copy written: its owner, its build-id read back, renamed into place. */
static int job_store(const struct bincache *c, struct bincache_job *job)
{
	uint8_t id[20];
	uint8_t id_size = 0;
	int err = 0;

	if (c->group != (gid_t)-1 && fchown(job->out_fd, (uid_t)-1, c->group) == 0 &&
	    fchmod(job->out_fd, 0640) < 0)
		err = -errno;
	if (!err && fsync(job->out_fd) < 0)
		err = -errno;
	if (!err && (prd_buildid_read_file(job->out_fd, id, &id_size) ||
		     id_size != job->build_id_size || memcmp(id, job->build_id, id_size)))
		err = -EILSEQ;		/* changed while copied */
	/* rename() replaces whatever is at the name (a planted FIFO or link), never follows it. */
	if (!err && renameat(job->sub_fd, job->temp, job->sub_fd, job->hex + 2) < 0)
		err = -errno;
	if (!err) {
		close(job->out_fd);
		job->out_fd = -1;	/* in place: not removed with the job */
	}
	return err;
}

/* Works on the first copy until deadline: 1 when it is done (or failed), 0 if not. */
static int job_work(struct bincache *c, struct bincache_job *job, uint64_t deadline)
{
	char name[sizeof(c->files[0].name)];
	struct timespec now;
	int err = 0;

	if (job->out_fd < 0) {
		err = job_start(c, job);
		if (err > 0)
			return 1;	/* the tree has it already */
	}
	while (!err && job->done < job->bytes && prf_clock_ns(CLOCK_MONOTONIC) < deadline)
		err = job_copy_slice(job);
	if (!err && job->done < job->bytes)
		return 0;
	if (!err)
		err = job_store(c, job);
	snprintf(name, sizeof(name), "%.2s/%s", job->hex, job->hex + 2);
	if (err) {
		prd_log_warning("binary cache: cannot keep %s (build-id %s) in .build-id/%s: %s",
				job->path, job->hex, name, strerror(-err));
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	add_file(c, name, job->bytes, now, job->owner);
	prd_log_info("binary cache: kept %s (build-id %s, %" PRIu64 " bytes): not reachable at its path here",
		     job->path, job->hex, job->bytes);
	return 1;
}

static void work_until(struct bincache *c, uint64_t deadline)
{
	while (c->job_count && prf_clock_ns(CLOCK_MONOTONIC) < deadline)
		if (job_work(c, &c->jobs[0], deadline))
			job_close(c, &c->jobs[0]);
}

void prd_bincache_poll(struct bincache *c)
{
	if (c)
		work_until(c, prf_clock_ns(CLOCK_MONOTONIC) + POLL_TIME_NS);
}

void prd_bincache_finish(struct bincache *c)
{
	if (!c)
		return;
	work_until(c, prf_clock_ns(CLOCK_MONOTONIC) + FINISH_TIME_NS);
	if (c->job_count)
		prd_log_warning("binary cache: %zu binaries not copied in time: not kept", c->job_count);
	while (c->job_count)
		job_close(c, &c->jobs[0]);
}

/*
 * Whether the owner (not root) may have size bytes more copied in this
 * capture file, and a quarter of the queue; says once per file when not,
 * naming the first binary.
 */
static int owner_admits(struct bincache *c, uid_t uid, uint64_t size, const char *hex)
{
	struct bincache_owner *owner = owner_of(c, uid);
	size_t queued = 0;

	if (!owner)
		return 0;
	for (size_t i = 0; i < c->job_count; i++)
		queued += c->jobs[i].owner == uid;
	if (owner->copied + size <= owner_share(c, uid) && queued < JOBS_MAX / 4) {
		owner->copied += size;
		return 1;
	}
	if (!owner->said++)
		prd_log_notice("binary cache: uid %u: not keeping its binary of build-id %s (%" PRIu64
			       " bytes), nor more of its own in this file: a user's binaries may take a quarter of --binary-cache (%" PRIu64 " bytes) and of the copies waiting",
			       (unsigned)uid, hex, size, owner_share(c, uid));
	return 0;
}

void prd_bincache_consider(struct bincache *c, int fd, const char *path, uint32_t major,
			   uint32_t minor, uint64_t inode, const uint8_t *build_id, size_t size)
{
	struct bincache_job *job;
	char hex[2 * 20 + 1];
	struct stat st;
	int in_fd;

	if (!c || size < 2 || size > 20 || considered(c, build_id, size) ||
	    reachable(path, major, minor, inode) || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	if (!st.st_uid && (uint64_t)st.st_size > c->max_bytes) {
		prd_log_warning("binary cache: not keeping %s (build-id %s): %" PRIu64
				" bytes, over the cap of %" PRIu64, path, hex, (uint64_t)st.st_size,
				c->max_bytes);
		return;
	}
	if (c->job_count == JOBS_MAX) {
		if (!c->full_said++)
			prd_log_notice("binary cache: %u copies waiting: build-id %s and more in this file are not kept",
				       JOBS_MAX, hex);
		return;
	}
	if (st.st_uid && !owner_admits(c, st.st_uid, (uint64_t)st.st_size, hex))
		return;
	in_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (in_fd < 0)
		return;
	job = &c->jobs[c->job_count];
	*job = (struct bincache_job){ .in_fd = in_fd, .sub_fd = -1, .out_fd = -1,
				      .path = strdup(path), .build_id_size = size,
				      .bytes = (uint64_t)st.st_size, .owner = st.st_uid };
	if (!job->path) {
		close(in_fd);
		return;
	}
	memcpy(job->build_id, build_id, size);
	memcpy(job->hex, hex, sizeof(hex));
	c->job_count++;
}
