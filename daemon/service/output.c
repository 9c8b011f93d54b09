/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rotating output files.  Losing data to a full disk is acceptable; losing
 * the files, or the daemon, is not: write errors are absorbed here, counted
 * and noted, and the writer keeps every file whole.
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
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "output.h"

struct output {
	char *directory;
	char hostname[64];		/* made safe for a file name */
	struct output_config config;
	int dir_fd;
	int lock_fd;			/* LOCK_FILE, flock()ed while we run */
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
static int lock_directory(struct output *o, struct prf_error *error)
{
	char text[32] = "";
	ssize_t n;

	o->lock_fd = openat(o->dir_fd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o->lock_fd < 0)
		return prf_set_error(error, -errno, "%s/%s: %s", o->directory, LOCK_FILE, strerror(errno));
	if (flock(o->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;

		if (err != EWOULDBLOCK)
			return prf_set_error(error, -err, "%s/%s: %s", o->directory, LOCK_FILE, strerror(err));
		n = pread(o->lock_fd, text, sizeof(text) - 1, 0);
		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		return prf_set_error(error, -EBUSY, "output directory %s is in use by another perfrecd (pid %s)",
				     o->directory, text[0] ? text : "unknown");
	}
	n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (ftruncate(o->lock_fd, 0) < 0 || pwrite(o->lock_fd, text, (size_t)n, 0) != n)
		prd_log_warning("%s/%s: %s", o->directory, LOCK_FILE, strerror(errno));
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

int prd_output_open(struct output **out, const struct output_config *config,
		    struct prf_error *error)
{
	struct output *o;
	struct statvfs vfs;
	struct stat st;
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
	o->lock_fd = -1;
	o->config = *config;
	o->directory = strdup(config->directory);
	o->config.directory = o->directory;
	for (const char *c = config->hostname; *c && n + 1 < sizeof(o->hostname); c++)
		o->hostname[n++] = (*c == '/' || *c == '-' || *c <= ' ') ? '_' : *c;
	if (!n)
		o->hostname[n++] = 'h';
	o->hostname[n] = '\0';
	o->config.hostname = o->hostname;
	o->dir_fd = open(config->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dir_fd < 0) {
		ret = -errno;
		prd_output_close(o);
		return prf_set_error(error, ret, "output directory %s: %s",
				     config->directory, strerror(-ret));
	}
	if (faccessat(o->dir_fd, ".", W_OK | X_OK, AT_EACCESS) < 0 ||
	    (fstatvfs(o->dir_fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))) {
		ret = errno && errno != EEXIST ? -errno : -EROFS;
		if (fstatvfs(o->dir_fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
			ret = -EROFS;
		prd_output_close(o);
		return prf_set_error(error, ret, "output directory %s: %s",
				     config->directory, strerror(-ret));
	}
	ret = find_group(o, error);
	if (!ret && fstat(o->dir_fd, &st) < 0)
		ret = prf_set_error(error, -errno, "output directory %s: %s", o->directory, strerror(errno));
	if (!ret)
		ret = check_directory(o->directory, &st, error);
	if (!ret)
		ret = lock_directory(o, error);
	if (ret < 0) {
		prd_output_close(o);
		return ret;
	}
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

static int close_current(struct output *o)
{
	int ret = 0;

	if (!o->writer)
		return 0;
	ret = prf_writer_finish(o->writer);
	if (ret < 0)
		prd_log_warning("%s", prf_writer_last_error(o->writer));
	else if (fsync(o->fd) < 0)
		prd_log_warning("%s: fsync: %s", o->path, strerror(errno));
	totals_add_writer(o);
	prf_writer_close(o->writer);
	close(o->fd);
	o->writer = NULL;
	o->fd = -1;
	o->failing = 0;
	return ret;
}

int prd_output_finish(struct output *o)
{
	return close_current(o);
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
	char name[NAME_MAX + 1], path[PATH_MAX];
	int fd, ret;

	for (int attempt = 0;; attempt++) {
		make_name(o, name, sizeof(name));
		/* O_EXCL: a name taken (by a planted link too) is never opened. */
		fd = openat(o->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST || attempt > 1000)
			break;
	}
	snprintf(path, sizeof(path), "%s/%s", o->directory, name);
	if (fd < 0) {
		ret = -errno;
		snprintf(message, sizeof(message), "%s: cannot create: %s", path,
			 strerror(-ret));
		start_failed(o, message);
		return ret;
	}
	/* Whatever the umask and the directory's setgid bit: ours, and the group's if named. */
	if ((o->group != (gid_t)-1 && fchown(fd, (uid_t)-1, o->group) < 0) ||
	    fchmod(fd, o->group != (gid_t)-1 ? o->file_mode : 0600) < 0) {
		ret = -errno;
		snprintf(message, sizeof(message), "%s: cannot set its owner or mode: %s", path,
			 strerror(-ret));
		close(fd);
		unlinkat(o->dir_fd, name, 0);
		start_failed(o, message);
		return ret;
	}
	options.zstd_level = o->config.zstd_level > 0 ? o->config.zstd_level : -1;
	options.name = path;
	options.sample_encoding = o->config.sample_encoding;
	ret = prf_writer_open(&writer, fd, info, &options, &error);
	if (ret < 0) {
		close(fd);
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
	o->episode_dropped_records = o->episode_dropped_bytes = 0;
	o->started_ns = now_ns;
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->path, sizeof(o->path), "%s", path);
	prd_log_info("writing %s", o->path);
	return 0;
}

int prd_output_rotation_due(const struct output *o, uint64_t now_ns)
{
	struct prf_writer_stats stats;

	if (!o->writer)
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

void prd_output_append(struct output *o, const void *record, size_t size,
		       uint64_t time)
{
	int ret;

	if (!o->writer) {
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
	int fd = dup(o->dir_fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

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
	if (o->writer) {
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
	return o->writer ? o->path : NULL;
}
