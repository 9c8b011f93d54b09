/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output directory's build-id tree of binaries nobody could find
 * later (bincache.h).  Everything under DIR/.build-id is opened relative
 * to the directory's fd, without following symbolic links and without
 * blocking on FIFOs: anyone who could write there could plant either.  A
 * copy is written to a temporary name, its build-id read back from the
 * copy, then renamed over the final name, so a reader never sees half a
 * binary and a planted entry is replaced, never written through.
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

/* A kept binary, for the cap: the oldest (mtime) goes first. */
struct bincache_file {
	char name[2 * 20 + 8];		/* "xx/rest" */
	uint64_t bytes;
	struct timespec seen;
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
};

static void make_room(struct bincache *c, uint64_t bytes);

static int add_file(struct bincache *c, const char *name, uint64_t bytes, struct timespec seen)
{
	if (prf_ensure_mem((void **)&c->files, &c->file_capacity, sizeof(*c->files),
			   c->file_count + 1) < 0)
		return -ENOMEM;
	snprintf(c->files[c->file_count].name, sizeof(c->files[0].name), "%s", name);
	c->files[c->file_count].bytes = bytes;
	c->files[c->file_count].seen = seen;
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
		if (add_file(c, name, (uint64_t)st.st_size, st.st_mtim) < 0)
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

void prd_bincache_close(struct bincache *c)
{
	if (!c)
		return;
	close(c->dir_fd);
	free(c->files);
	free(c->considered);
	prf_index_free(&c->considered_index);
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

/*
 * Copies all of in to out; -errno on failure.  It runs in the poll loop:
 * sendfile() keeps the copy in the kernel, read and write are the
 * fallback.
 */
static int copy_all(int in, int out, uint64_t bytes)
{
	char buf[65536];
	uint64_t done = 0;
	off_t offset = 0;

	while (done < bytes) {
		uint64_t chunk = bytes - done < (1u << 30) ? bytes - done : (1u << 30);
		ssize_t n = sendfile(out, in, &offset, (size_t)chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
	if (done && done < bytes)
		return -EIO;	/* shrank under us, or failed half way */
	while (done < bytes) {
		ssize_t n = pread(in, buf, sizeof(buf), (off_t)done), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;	/* shrank under us */
		for (ssize_t at = 0; at < n; at += w) {
			w = write(out, buf + at, (size_t)(n - at));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				return -errno;
		}
		done += (uint64_t)n;
	}
	return 0;
}

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

/* fd copied to xx/rest through a temporary name, its build-id checked. */
static int store(const struct bincache *c, int fd, int sub_fd, const char *rest,
		 uint64_t bytes, const uint8_t *build_id, size_t size)
{
	char temp[64];
	uint8_t id[20];
	uint8_t id_size = 0;
	int out, err;

	snprintf(temp, sizeof(temp), ".%s.tmp%ld", rest, (long)getpid());
	unlinkat(sub_fd, temp, 0);
	out = openat(sub_fd, temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return -errno;
	err = copy_all(fd, out, bytes);
	if (!err && c->group != (gid_t)-1 && fchown(out, (uid_t)-1, c->group) == 0 &&
	    fchmod(out, 0640) < 0)
		err = -errno;
	if (!err && fsync(out) < 0)
		err = -errno;
	if (!err && (prd_buildid_read_file(out, id, &id_size) || id_size != size ||
		     memcmp(id, build_id, size)))
		err = -EILSEQ;		/* changed while copied */
	close(out);
	/* rename() replaces whatever is at the name (a planted FIFO or link), never follows it. */
	if (!err && renameat(sub_fd, temp, sub_fd, rest) < 0)
		err = -errno;
	if (err)
		unlinkat(sub_fd, temp, 0);
	return err;
}

void prd_bincache_consider(struct bincache *c, int fd, const char *path, uint32_t major,
			   uint32_t minor, uint64_t inode, const uint8_t *build_id, size_t size)
{
	char hex[2 * 20 + 1], sub[3], name[sizeof(c->files[0].name)];
	struct timespec now;
	struct stat st;
	int sub_fd, err;

	if (!c || size < 2 || size > 20 || considered(c, build_id, size) ||
	    reachable(path, major, minor, inode))
		return;
	for (size_t i = 0; i < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	snprintf(sub, sizeof(sub), "%.2s", hex);
	snprintf(name, sizeof(name), "%s/%s", sub, hex + 2);
	sub_fd = open_sub(c, sub, 1);
	if (sub_fd < 0) {
		prd_log_warning("binary cache: cannot keep %s (build-id %s): .build-id/%s: %s", path,
				hex, sub, strerror(-sub_fd));
		return;
	}
	if (have_entry(sub_fd, hex + 2, build_id, size) || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode)) {
		close(sub_fd);
		return;
	}
	if ((uint64_t)st.st_size > c->max_bytes) {
		prd_log_warning("binary cache: not keeping %s (build-id %s): %" PRIu64
			   " bytes, over the cap of %" PRIu64, path, hex, (uint64_t)st.st_size,
			   c->max_bytes);
		close(sub_fd);
		return;
	}
	make_room(c, (uint64_t)st.st_size);
	err = store(c, fd, sub_fd, hex + 2, (uint64_t)st.st_size, build_id, size);
	close(sub_fd);
	if (err) {
		prd_log_warning("binary cache: cannot keep %s (build-id %s) in .build-id/%s: %s",
				path, hex, name, strerror(-err));
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	add_file(c, name, (uint64_t)st.st_size, now);
	prd_log_info("binary cache: kept %s (build-id %s, %" PRIu64 " bytes): not reachable at its path here",
		     path, hex, (uint64_t)st.st_size);
}
