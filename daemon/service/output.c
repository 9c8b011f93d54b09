/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rotating output files.  Losing data to a full disk is acceptable; losing
 * the files, or the daemon, is not: write errors are absorbed here, counted
 * and noted, and the writer keeps every file whole.
 *
 * The directory is the one at the configured path: perfrec-push, the
 * retention and the people reading the files look there.  At each flush
 * and each new file the path is checked against the directory held open;
 * one removed, moved away or replaced while we run is said once, the next
 * file is held in memory (bounded) and moved into the directory at the
 * path when one is back, with the start's checks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "output.h"

struct output {
	char *directory;
	char *real_directory;		/* its absolute path when it was opened */
	char hostname[64];		/* made safe for a file name */
	struct output_config config;
	int dir_fd;
	int lock_fd;			/* LOCK_FILE, flock()ed while we run */
	dev_t dir_dev;			/* dir_fd's: does the path still lead there? */
	ino_t dir_ino;
	int managed;			/* the service manager's ($STATE_DIRECTORY) */
	int dir_gone;			/* no directory we may use at the path */
	dev_t file_dev;			/* the directory the current file is in */
	ino_t file_ino;
	int refusal_said;		/* a directory at the path refused, while gone */
	int held;			/* the current file is in memory: fd is a memfd */
	int move_failing;		/* moving it into the directory failed, said */
	uint64_t held_max;		/* bytes it may take; past them records drop */
	uint64_t held_dropped_records, held_dropped_bytes;
	unsigned directory_changes;	/* times another directory was taken */
	gid_t group;			/* config.group's; (gid_t)-1: none */
	mode_t file_mode;		/* 0600, or 0640 for the group */

	int fd;
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
	struct prf_writer *writer;
	uint64_t started_ns;
	unsigned sequence;

	int failing;			/* in a write-error episode */
	int start_failing;		/* the last new file could not be made */
	int episode_error;		/* errno of the failure that began it */
	uint64_t episode_chunks;	/* writer chunks when the episode began */
	/*
	 * The writer's drop counts when writing last worked (the file's
	 * start, or the end of the last episode): an episode's note counts
	 * from here, the chunk whose failure began the episode included.
	 */
	uint64_t episode_dropped_records, episode_dropped_bytes;

	struct output_totals totals;	/* of finished files */
};

/* In the output directory, held with flock() by the daemon writing there. */
#define LOCK_FILE ".perfrecd.lock"

static const char *user_name(uid_t uid, char *buffer, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buffer, size, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(buffer, size, "uid %u", (unsigned)uid);
	return buffer;
}

/*
 * The files hold the whole machine's samples, its kernel symbols and
 * every process's maps: the directory must be ours (or root's), and no
 * one else may write there (replace a file, plant a link, fill it).
 */
static int check_directory(const char *directory, const struct stat *st,
			   struct prf_error *error)
{
	char owner[96], us[96];

	if (st->st_uid != geteuid() && st->st_uid != 0)
		return prf_set_error(error, -EPERM, "output directory %s belongs to %s, not to %s%s: "
				     "refusing to write captures there", directory,
				     user_name(st->st_uid, owner, sizeof(owner)),
				     user_name(geteuid(), us, sizeof(us)), geteuid() ? " or root" : "");
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return prf_set_error(error, -EPERM, "output directory %s has mode %04o: writable by %s, "
				     "who could replace or plant files there (chmod go-w it)", directory,
				     (unsigned)(st->st_mode & 07777),
				     st->st_mode & S_IWOTH ? "everyone" : "its group");
	return 0;
}

int prd_output_check_directory(const char *directory, struct prf_error *error)
{
	struct stat st;

	if (stat(directory, &st) < 0)
		return errno == ENOENT ? 0 : prf_set_error(error, -errno, "output directory %s: %s",
							   directory, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return prf_set_error(error, -ENOTDIR, "output directory %s: %s", directory, strerror(ENOTDIR));
	return check_directory(directory, &st, error);
}

/* One daemon a directory: two would delete each other's current files. */
static int lock_directory(const char *directory, int dir_fd, int *lock_fd,
			  struct prf_error *error)
{
	char text[32] = "";
	ssize_t n;
	int fd;

	fd = openat(dir_fd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return prf_set_error(error, -errno, "%s/%s: %s", directory, LOCK_FILE, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;

		if (err != EWOULDBLOCK) {
			close(fd);
			return prf_set_error(error, -err, "%s/%s: %s", directory, LOCK_FILE, strerror(err));
		}
		n = pread(fd, text, sizeof(text) - 1, 0);
		close(fd);
		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		return prf_set_error(error, -EBUSY, "output directory %s is in use by another perfrecd (pid %s)",
				     directory, text[0] ? text : "unknown");
	}
	n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)n, 0) != n)
		prd_log_warning("%s/%s: %s", directory, LOCK_FILE, strerror(errno));
	*lock_fd = fd;
	return 0;
}

/*
 * The way to the directory just opened (dir: its stat): a symbolic link
 * on it is followed only when it is root's or ours, as the kernel's
 * fs.protected_symlinks does in sticky directories, whatever that sysctl
 * says; one of another user's, planted where the directory was removed,
 * would send the captures and the binary cache to a directory of that
 * user's choosing.  What is at the path itself must be that directory or
 * such a link, so that a link swapped in and out while it was opened is
 * caught too.
 */
static int check_way(const char *directory, const struct stat *dir,
		     struct prf_error *error)
{
	char path[PATH_MAX], owner[96];
	size_t length = strlen(directory);
	struct stat st;

	if (length >= sizeof(path))
		return prf_set_error(error, -ENAMETOOLONG, "output directory %s: %s", directory,
				     strerror(ENAMETOOLONG));
	memcpy(path, directory, length + 1);
	for (size_t end = 1; end <= length; end++) {
		if (end < length && path[end] != '/')
			continue;
		path[end] = '\0';
		if (lstat(path, &st) < 0)
			return prf_set_error(error, -errno, "output directory %s: %s: %s", directory,
					     path, strerror(errno));
		if (S_ISLNK(st.st_mode) && st.st_uid != 0 && st.st_uid != geteuid())
			return prf_set_error(error, -EPERM, "output directory %s%s%s is a symbolic "
					     "link of %s: not followed", directory,
					     end < length ? ": " : "", end < length ? path : "",
					     user_name(st.st_uid, owner, sizeof(owner)));
		if (end == length && !S_ISLNK(st.st_mode) &&
		    (st.st_dev != dir->st_dev || st.st_ino != dir->st_ino))
			return prf_set_error(error, -EAGAIN, "output directory %s: replaced while "
					     "it was opened", directory);
		path[end] = end < length ? '/' : '\0';
	}
	return 0;
}

/*
 * Opens the directory at o->directory and checks it as the start does
 * (writable, ours, written by no one else, not another perfrecd's, not
 * reached through another user's link); then it is the one in use, in
 * place of the one before.
 */
static int use_directory(struct output *o, struct prf_error *error)
{
	struct statvfs vfs;
	struct stat st;
	int dir_fd, lock_fd = -1, ret = 0;

	dir_fd = open(o->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return prf_set_error(error, -errno, "output directory %s: %s", o->directory,
				     strerror(errno));
	if (fstatvfs(dir_fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		ret = -EROFS;
	else if (faccessat(dir_fd, ".", W_OK | X_OK, AT_EACCESS) < 0)
		ret = -errno;
	else if (fstat(dir_fd, &st) < 0)
		ret = -errno;
	if (ret < 0)
		prf_set_error(error, ret, "output directory %s: %s", o->directory, strerror(-ret));
	if (!ret)
		ret = check_directory(o->directory, &st, error);
	if (!ret)
		ret = check_way(o->directory, &st, error);
	if (!ret)
		ret = lock_directory(o->directory, dir_fd, &lock_fd, error);
	if (ret < 0) {
		close(dir_fd);
		return ret;
	}
	if (o->dir_fd >= 0)
		close(o->dir_fd);
	if (o->lock_fd >= 0)
		close(o->lock_fd);	/* the old directory's lock goes with it */
	o->dir_fd = dir_fd;
	o->lock_fd = lock_fd;
	o->dir_dev = st.st_dev;
	o->dir_ino = st.st_ino;
	return 0;
}

/*
 * Whether the directory is one the service manager makes when it starts
 * us (systemd's StateDirectory=, passed as $STATE_DIRECTORY, a list).
 */
static int is_managed(const struct output *o)
{
	const char *list = getenv("STATE_DIRECTORY");
	char path[PATH_MAX];
	struct stat st;

	while (list && *list) {
		size_t n = strcspn(list, ":");

		if (n < sizeof(path)) {
			memcpy(path, list, n);
			path[n] = '\0';
			if (stat(path, &st) == 0 && st.st_dev == o->dir_dev && st.st_ino == o->dir_ino)
				return 1;
		}
		list += n + (list[n] == ':');
	}
	return 0;
}

static int find_group(struct output *o, struct prf_error *error)
{
	struct group *g;

	o->group = (gid_t)-1;
	o->file_mode = 0600;
	if (!o->config.group)
		return 0;
	errno = 0;
	g = getgrnam(o->config.group);
	if (!g)
		return prf_set_error(error, -EINVAL, "group %s: %s", o->config.group,
				     errno ? strerror(errno) : "no such group");
	o->group = g->gr_gid;
	o->file_mode = 0640;
	return 0;
}

/* The bound of a file held in memory while the directory is gone. */
#define HELD_BYTES_MAX	(64ull << 20)

int prd_output_open(struct output **out, const struct output_config *config,
		    struct prf_error *error)
{
	struct output *o;
	size_t n = 0;
	int ret;

	*out = NULL;
	if (mkdir(config->directory, 0750) < 0 && errno != EEXIST)
		return prf_set_error(error, -errno, "output directory %s: %s",
				     config->directory, strerror(errno));
	o = calloc(1, sizeof(*o));
	if (!o)
		return prf_set_error(error, -ENOMEM, "out of memory");
	o->fd = -1;
	o->dir_fd = -1;
	o->lock_fd = -1;
	o->config = *config;
	o->directory = strdup(config->directory);
	o->real_directory = realpath(config->directory, NULL);
	o->config.directory = o->directory;
	for (const char *c = config->hostname; *c && n + 1 < sizeof(o->hostname); c++)
		o->hostname[n++] = (*c == '/' || *c == '-' || *c <= ' ') ? '_' : *c;
	if (!n)
		o->hostname[n++] = 'h';
	o->hostname[n] = '\0';
	o->config.hostname = o->hostname;
	o->held_max = config->rotate_size && config->rotate_size < HELD_BYTES_MAX ?
		      config->rotate_size : HELD_BYTES_MAX;
	ret = o->directory ? find_group(o, error) :
			     prf_set_error(error, -ENOMEM, "out of memory");
	if (!ret)
		ret = use_directory(o, error);
	if (ret < 0) {
		prd_output_close(o);
		return ret;
	}
	o->managed = is_managed(o);
	*out = o;
	return 0;
}

void prd_output_close(struct output *o)
{
	if (!o)
		return;
	prf_writer_close(o->writer);
	if (o->fd >= 0)
		close(o->fd);
	if (o->dir_fd >= 0)
		close(o->dir_fd);
	if (o->lock_fd >= 0)
		close(o->lock_fd);	/* the lock goes with it; the file stays */
	free(o->directory);
	free(o->real_directory);
	free(o);
}

static void totals_add_writer(struct output *o)
{
	struct prf_writer_stats stats;

	prf_writer_get_stats(o->writer, &stats);
	o->totals.files++;
	o->totals.bytes += stats.file_bytes;
	o->totals.raw_bytes += stats.raw_bytes;
	o->totals.records += stats.records;
	o->totals.dropped_records += stats.dropped_records;
	o->totals.dropped_bytes += stats.dropped_bytes;
}

/*
 * The file held in memory when perfrecd stops before a directory is back
 * at the path, or before it could be moved into one (a full disk): what
 * it held is lost, and counted so.
 */
static int held_file_lost(struct output *o)
{
	struct prf_writer_stats stats;

	prf_writer_get_stats(o->writer, &stats);
	o->totals.dropped_records += stats.records;
	o->totals.dropped_bytes += stats.raw_bytes;
	if (o->dir_gone)
		prd_log_error("no directory came back at %s: %s, held in memory (%llu records, %.1f MiB), is lost",
			      o->directory, o->name, (unsigned long long)stats.records,
			      (double)stats.file_bytes / 1048576.0);
	else
		prd_log_error("%s/%s, held in memory (%llu records, %.1f MiB), could not be written there and is lost",
			      o->directory, o->name, (unsigned long long)stats.records,
			      (double)stats.file_bytes / 1048576.0);
	return -ENOENT;
}

static int close_current(struct output *o)
{
	int ret = 0;

	if (!o->writer)
		return 0;
	if (o->held) {
		ret = held_file_lost(o);
	} else {
		ret = prf_writer_finish(o->writer);
		if (ret < 0)
			prd_log_warning("%s", prf_writer_last_error(o->writer));
		else if (fsync(o->fd) < 0)
			prd_log_warning("%s: fsync: %s", o->path, strerror(errno));
		totals_add_writer(o);
	}
	prf_writer_close(o->writer);
	close(o->fd);
	o->writer = NULL;
	o->fd = -1;
	o->failing = 0;
	o->held = 0;
	return ret;
}

static void make_name(struct output *o, char *name, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(name, size, "perfrec-%s-%s-%04u.prf", o->hostname, stamp,
		 o->sequence++);
}

/*
 * Makes a file in the directory in use: named name if name[0] is set and
 * free, else the next free name (written to name); ours, and the group's
 * if one is named.  The fd, or -errno with the cause in message.
 */
static int create_file(struct output *o, char *name, size_t name_size,
		       char *message, size_t message_size)
{
	int fd = -1, ret;

	for (int attempt = 0;; attempt++) {
		if (attempt || !name[0])
			make_name(o, name, name_size);
		/* O_EXCL: a name taken (by a planted link too) is never opened. */
		fd = openat(o->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST || attempt > 1000)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		snprintf(message, message_size, "%s/%s: cannot create: %s", o->directory, name,
			 strerror(-ret));
		return ret;
	}
	/* Whatever the umask and the directory's setgid bit: ours, and the group's if named. */
	if ((o->group != (gid_t)-1 && fchown(fd, (uid_t)-1, o->group) < 0) ||
	    fchmod(fd, o->group != (gid_t)-1 ? o->file_mode : 0600) < 0) {
		ret = -errno;
		snprintf(message, message_size, "%s/%s: cannot set its owner or mode: %s",
			 o->directory, name, strerror(-ret));
		close(fd);
		unlinkat(o->dir_fd, name, 0);
		return ret;
	}
	return fd;
}

/* ---- the directory at the path ------------------------------------- */

/* The current file is on disk, not in the directory at the path. */
static int file_elsewhere(const struct output *o)
{
	return o->writer && !o->held &&
	       (o->dir_gone || o->file_dev != o->dir_dev || o->file_ino != o->dir_ino);
}

/* Says once what became of the directory in use, and what happens now. */
static void directory_lost(struct output *o)
{
	char link[64], where[PATH_MAX] = "", what[PATH_MAX + 64];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", o->dir_fd);
	n = readlink(link, where, sizeof(where) - 1);
	where[n > 0 ? n : 0] = '\0';
	/* A count of links, or the kernel's mark where directories count them otherwise. */
	if ((fstat(o->dir_fd, &st) == 0 && st.st_nlink == 0) ||
	    (n > 10 && !strcmp(where + n - 10, " (deleted)")))
		snprintf(what, sizeof(what), "was removed, and the files in it");
	else if (n > 0 && where[0] == '/' && (!o->real_directory || strcmp(where, o->real_directory)))
		snprintf(what, sizeof(what), "was moved to %s: the files written so far are there", where);
	else
		snprintf(what, sizeof(what), "is no longer the directory at that path");
	o->dir_gone = 1;
	if (o->managed)
		prd_log_error("output directory %s %s; stopping: the service manager makes it again when it starts perfrecd again",
			      o->directory, what);
	else
		prd_log_error("output directory %s %s; the next file is held in memory (up to %llu MiB, then records are dropped) until a directory is back there",
			      o->directory, what, (unsigned long long)(o->held_max >> 20));
}

/* A record in the file of what was dropped while it was held in memory. */
static void note_held_drops(struct output *o)
{
	struct prf_lost_note_record note = { 0 };

	if (!o->held_dropped_records)
		return;
	note.header.type = PRF_RECORD_LOST_NOTE;
	note.header.size = sizeof(note);
	note.time = prf_clock_ns(CLOCK_MONOTONIC);
	note.reason = PRF_LOST_WRITE_ERROR;
	note.cpu = -1;
	note.records = o->held_dropped_records;
	note.bytes = o->held_dropped_bytes;
	note.error = ENOENT;
	prd_log_notice("%s: %llu records (%llu bytes) were dropped while it was held in memory",
		       o->path, (unsigned long long)note.records, (unsigned long long)note.bytes);
	o->held_dropped_records = o->held_dropped_bytes = 0;
	prd_output_append(o, &note, sizeof(note), note.time);
}

/*
 * A directory is back: the file held in memory is copied there whole,
 * and the copy takes the memfd's descriptor number, its offset at the
 * same end, so that the writer goes on in it unaware.
 */
static void move_held_file(struct output *o)
{
	char message[PATH_MAX + 600];
	struct prf_writer_stats stats;
	struct statvfs vfs;
	off_t offset = 0;
	int fd, err = 0;

	prf_writer_get_stats(o->writer, &stats);
	/*
	 * A copy that cannot fit would fill the disk, for every other
	 * program too, only to be removed, and again at every flush.
	 */
	if (fstatvfs(o->dir_fd, &vfs) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < stats.file_bytes) {
		snprintf(message, sizeof(message), "%s: %s (%.1f MiB free, %.1f MiB held)",
			 o->directory, strerror(ENOSPC),
			 (double)vfs.f_bavail * (double)vfs.f_frsize / 1048576.0,
			 (double)stats.file_bytes / 1048576.0);
		fd = -1;
	} else {
		fd = create_file(o, o->name, sizeof(o->name), message, sizeof(message));
	}
	while (fd >= 0 && (uint64_t)offset < stats.file_bytes) {
		ssize_t n = sendfile(fd, o->fd, &offset, (size_t)(stats.file_bytes - (uint64_t)offset));

		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
	}
	if (fd >= 0 && !err && (dup2(fd, o->fd) < 0 || fdatasync(o->fd) < 0))
		err = errno;
	if (fd >= 0 && err) {
		snprintf(message, sizeof(message), "%s/%s: %s", o->directory, o->name, strerror(err));
		close(fd);
		unlinkat(o->dir_fd, o->name, 0);
		fd = -1;
	}
	if (fd < 0) {
		if (!o->move_failing)
			prd_log_warning("%s; the file held in memory stays there", message);
		o->move_failing = 1;
		return;
	}
	close(fd);
	o->held = 0;
	o->move_failing = 0;
	o->file_dev = o->dir_dev;
	o->file_ino = o->dir_ino;
	snprintf(o->path, sizeof(o->path), "%s/%s", o->directory, o->name);
	prd_log_notice("writing %s, held in memory until now (%.0f KiB)", o->path,
		       (double)stats.file_bytes / 1024.0);
	note_held_drops(o);
}

/*
 * At each flush and each new file: whether the path still leads to the
 * directory in use.  If not, said once; a directory at the path (back,
 * or a new one) is taken when it passes the start's checks, and the file
 * held in memory, if any, goes there.  Never made here: a directory that
 * went was removed by someone, and one made again at its path could be
 * on another file system than the one meant (a mount point's).
 */
static void follow_directory(struct output *o)
{
	struct prf_error error;
	struct stat st;
	int there = stat(o->directory, &st) == 0;

	if (there && st.st_dev == o->dir_dev && st.st_ino == o->dir_ino) {
		if (o->dir_gone)	/* moved away and back */
			prd_log_notice("output directory %s is back", o->directory);
		o->dir_gone = 0;
		o->refusal_said = 0;
	} else {
		if (!o->dir_gone)
			directory_lost(o);
		if (o->managed || !there)
			return;
		if (use_directory(o, &error) < 0) {
			/*
			 * Once while it is gone: whoever may make things at the
			 * path could make one to refuse at every flush.
			 */
			prd_log_message(o->refusal_said ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING,
					"%s; the files wait in memory for a directory perfrecd may use",
					error.message);
			o->refusal_said = 1;
			return;
		}
		o->dir_gone = 0;
		o->refusal_said = 0;
		o->directory_changes++;
		prd_log_notice("output directory %s is back: a new directory, used from now on",
			       o->directory);
	}
	if (o->held)
		move_held_file(o);
}

int prd_output_finish(struct output *o)
{
	int ret;

	follow_directory(o);	/* the last chance of a file held in memory */
	ret = close_current(o);
	return ret < 0 ? ret : o->dir_gone ? -ENOENT : 0;
}

int prd_output_must_stop(const struct output *o)
{
	return o->dir_gone && o->managed;
}

unsigned prd_output_directory_changes(const struct output *o)
{
	return o->directory_changes;
}

int prd_output_directory_gone(const struct output *o)
{
	return o->dir_gone;
}

/*
 * A new file could not be made.  With a current file, the collector goes
 * on writing it and retries at every flush: say so once, not at every
 * try, and not at all while a write-error episode has already been told
 * (a full disk refuses both).  Without one, the caller reports the error.
 * The sequence number is used again by the next try.
 */
static void start_failed(struct output *o, const char *message)
{
	o->sequence--;
	if (!o->writer)
		return;
	if (!o->failing && !o->start_failing)
		prd_log_warning("%s; going on with %s", message, o->path);
	else
		prd_log_debug("%s", message);
	o->start_failing = 1;
}

int prd_output_start_file(struct output *o, const struct prf_file_info *info,
			  uint64_t now_ns)
{
	char message[PATH_MAX + 600];
	struct prf_writer_options options = { 0 };
	struct prf_writer *writer;
	struct prf_error error;
	char name[NAME_MAX + 1] = "", path[PATH_MAX];
	int fd, ret;

	follow_directory(o);
	/* Said when the directory went: one file at a time in memory. */
	if (o->held || (o->dir_gone && o->managed))
		return -ENOENT;
	if (o->dir_gone) {
		make_name(o, name, sizeof(name));
		fd = memfd_create("perfrecd-held", MFD_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			snprintf(message, sizeof(message), "%s: memfd_create: %s", name, strerror(-fd));
		}
	} else {
		fd = create_file(o, name, sizeof(name), message, sizeof(message));
	}
	if (fd < 0) {
		start_failed(o, message);
		return fd;
	}
	snprintf(path, sizeof(path), "%s/%s", o->directory, name);
	options.zstd_level = o->config.zstd_level > 0 ? o->config.zstd_level : -1;
	options.name = path;
	options.sample_encoding = o->config.sample_encoding;
	ret = prf_writer_open(&writer, fd, info, &options, &error);
	if (ret < 0) {
		close(fd);
		if (!o->dir_gone)
			unlinkat(o->dir_fd, name, 0);
		start_failed(o, error.message);
		return ret;
	}
	if (o->start_failing)
		prd_log_notice("%s: new files can be made again", o->directory);
	o->start_failing = 0;
	close_current(o);
	o->writer = writer;
	o->fd = fd;
	o->held = o->dir_gone;
	o->file_dev = o->dir_dev;
	o->file_ino = o->dir_ino;
	o->episode_dropped_records = o->episode_dropped_bytes = 0;
	o->started_ns = now_ns;
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (o->held)
		prd_log_info("holding %s in memory until %s is back", o->name, o->directory);
	else
		prd_log_info("writing %s", o->path);
	return 0;
}

int prd_output_rotation_due(const struct output *o, uint64_t now_ns)
{
	struct prf_writer_stats stats;

	if (!o->writer || file_elsewhere(o))
		return 1;
	prf_writer_get_stats(o->writer, &stats);
	if (o->config.rotate_size &&
	    stats.file_bytes + prf_writer_pending(o->writer) / 4 >= o->config.rotate_size)
		return 1;
	return o->config.rotate_age_ns && now_ns - o->started_ns >= o->config.rotate_age_ns;
}

static void begin_episode(struct output *o, const char *message, int error)
{
	struct prf_writer_stats stats;

	if (o->failing)
		return;
	prf_writer_get_stats(o->writer, &stats);
	o->failing = 1;
	o->episode_error = error < 0 ? -error : error;
	o->episode_chunks = stats.chunks;
	prd_log_warning("%s; still sampling, dropping data until it can be written", message);
}

/*
 * The episode ends with the first chunk written: note what it cost, and
 * write the note at once, so that the gap is marked in the file even if
 * the disk fills up again before the next flush.
 */
static void check_recovery(struct output *o, uint64_t now_ns)
{
	struct prf_writer_stats stats;
	struct prf_lost_note_record note = { 0 };
	int ret;

	if (!o->failing)
		return;
	prf_writer_get_stats(o->writer, &stats);
	if (stats.chunks == o->episode_chunks)
		return;
	o->failing = 0;
	note.header.type = PRF_RECORD_LOST_NOTE;
	note.header.size = sizeof(note);
	note.time = now_ns;
	note.reason = PRF_LOST_WRITE_ERROR;
	note.cpu = -1;
	note.records = stats.dropped_records - o->episode_dropped_records;
	note.bytes = stats.dropped_bytes - o->episode_dropped_bytes;
	note.error = o->episode_error;
	prd_log_notice("%s: writing again; %llu records (%llu bytes) were dropped",
		       o->path, (unsigned long long)note.records,
		       (unsigned long long)note.bytes);
	prd_output_append(o, &note, sizeof(note), now_ns);
	ret = prf_writer_flush(o->writer);
	if (ret < 0) {
		/*
		 * The note itself was dropped: the next episode keeps this one's
		 * starting point, so its note counts both gaps (and this note).
		 */
		begin_episode(o, prf_writer_last_error(o->writer), ret);
		return;
	}
	o->episode_dropped_records = stats.dropped_records;
	o->episode_dropped_bytes = stats.dropped_bytes;
}

/*
 * Whether the file held in memory has reached its bound: its chunks
 * written, not the open one's raw bytes, so that a big snapshot record
 * (kallsyms) still fits in a bound of a few MiB.  The open chunk (1 MiB)
 * is what it may go over by.
 */
static int held_full(const struct output *o)
{
	struct prf_writer_stats stats;

	prf_writer_get_stats(o->writer, &stats);
	return stats.file_bytes >= o->held_max;
}

void prd_output_append(struct output *o, const void *record, size_t size,
		       uint64_t time)
{
	int ret;

	if (!o->writer) {
		o->totals.dropped_records++;
		o->totals.dropped_bytes += size;
		return;
	}
	if (o->held && held_full(o)) {
		if (!o->held_dropped_records)
			prd_log_warning("%s: %llu MiB held in memory, the bound: dropping records until %s is back",
					o->name, (unsigned long long)(o->held_max >> 20), o->directory);
		o->held_dropped_records++;
		o->held_dropped_bytes += size;
		o->totals.dropped_records++;
		o->totals.dropped_bytes += size;
		return;
	}
	ret = prf_writer_append(o->writer, record, size, time);
	if (ret < 0)
		begin_episode(o, prf_writer_last_error(o->writer), ret);
}

void prd_output_flush(struct output *o, uint64_t now_ns)
{
	struct prf_writer_stats before, after;
	int ret;

	follow_directory(o);
	if (!o->writer)
		return;
	prf_writer_get_stats(o->writer, &before);
	ret = prf_writer_flush(o->writer);
	if (ret < 0) {
		begin_episode(o, prf_writer_last_error(o->writer), ret);
		return;
	}
	prf_writer_get_stats(o->writer, &after);
	/* Durable within one flush interval, power loss included. */
	if (after.chunks != before.chunks && fdatasync(o->fd) < 0) {
		char message[PATH_MAX + 64];
		int err = errno;

		snprintf(message, sizeof(message), "%s: fdatasync: %s", o->path,
			 strerror(err));
		begin_episode(o, message, err);
		return;
	}
	check_recovery(o, now_ns);
}

struct old_file {
	char name[NAME_MAX + 1];
	uint64_t size;
	int64_t mtime;
};

static int compare_age(const void *a, const void *b)
{
	const struct old_file *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int is_capture_name(const char *name)
{
	size_t n = strlen(name);

	return strncmp(name, "perfrec-", 8) == 0 && n > 12 &&
	       strcmp(name + n - 4, ".prf") == 0;
}

void prd_output_enforce_retention(struct output *o, uint64_t realtime_s)
{
	struct old_file *files = NULL;
	size_t count = 0, capacity = 0;
	uint64_t total = 0;
	struct prf_writer_stats stats;
	struct dirent *entry;
	DIR *dir;
	int fd;

	/* Not in a directory moved away: its files are someone else's now. */
	follow_directory(o);
	if (o->dir_gone)
		return;
	fd = dup(o->dir_fd);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(dir);
	while ((entry = readdir(dir))) {
		struct stat st;

		if (!is_capture_name(entry->d_name) || strcmp(entry->d_name, o->name) == 0)
			continue;
		if (fstatat(o->dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (prf_ensure_mem((void **)&files, &capacity, sizeof(*files), count + 1) < 0)
			break;
		snprintf(files[count].name, sizeof(files[count].name), "%s", entry->d_name);
		files[count].size = (uint64_t)st.st_size;
		files[count].mtime = st.st_mtime;
		total += files[count].size;
		count++;
	}
	closedir(dir);
	if (o->writer && !o->held && !file_elsewhere(o)) {
		prf_writer_get_stats(o->writer, &stats);
		total += stats.file_bytes;
	}
	if (count)
		qsort(files, count, sizeof(*files), compare_age);
	for (size_t i = 0; i < count; i++) {
		int too_big = o->config.retain_size && total > o->config.retain_size;
		int too_old = o->config.retain_age_s &&
			      files[i].mtime + (int64_t)o->config.retain_age_s < (int64_t)realtime_s;

		if (!too_big && !too_old)
			continue;
		if (unlinkat(o->dir_fd, files[i].name, 0) < 0) {
			prd_log_warning("%s/%s: cannot delete: %s", o->directory,
					files[i].name, strerror(errno));
			continue;
		}
		total -= files[i].size;
		o->totals.deleted_files++;
		prd_log_info("deleted %s/%s (%s)", o->directory, files[i].name,
			     too_big ? "over the size limit" : "over the age limit");
	}
	free(files);
}

void prd_output_get_totals(const struct output *o, struct output_totals *totals)
{
	*totals = o->totals;
	if (o->writer) {
		struct prf_writer_stats stats;

		prf_writer_get_stats(o->writer, &stats);
		totals->files++;
		totals->bytes += stats.file_bytes;
		totals->raw_bytes += stats.raw_bytes;
		totals->records += stats.records;
		totals->dropped_records += stats.dropped_records;
		totals->dropped_bytes += stats.dropped_bytes;
	}
}

const char *prd_output_current_path(const struct output *o)
{
	if (o->held)
		return "memory, until the output directory is back";
	return o->writer ? o->path : NULL;
}
