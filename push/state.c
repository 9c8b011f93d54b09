/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state file: which captures were sent whole, and which profiles of
 * the one being sent.  Small (a line per file the directory still has),
 * rewritten whole on each change: temporary file, fsync, rename, fsync of
 * the directory.  A file or profile is marked only after the server said
 * 2xx, so a crash costs a profile sent twice at worst, never one lost.
 *
 * What the file says decides what is sent again, so a file that is not
 * exactly what perfrec-push wrote is refused rather than read in part:
 * the last line is a checksum of all before it.  The directory is opened
 * once and every write goes through that descriptor, so the state cannot
 * be sent elsewhere by a link or a rename under it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "push-internal.h"

#define STATE_MAGIC		"perfrec-push state 2"
/* The versions before: the same lines without the checksum; read, then rewritten. */
#define STATE_MAGIC_UNCHECKED	"perfrec-push state 1"
/* A state file larger than this is no state file of ours. */
#define STATE_MAX_BYTES		(64u << 20)
/* What ends every refusal of a damaged file: the way out, and its cost. */
#define STATE_WAY_OUT		"nothing is sent (remove the file to send every capture again)"

struct sent {
	char *name;
	uint64_t window;
	char *series;
};

struct push_state {
	char *path;			/* as given: for messages */
	int dir_fd;			/* the directory it is in */
	int lock_fd;			/* NAME.lock, flock()ed while we run */
	char *name, *temp_name;		/* in dir_fd */
	char **done;
	size_t done_count, done_capacity;
	struct sent *sent;
	size_t sent_count, sent_capacity;
};

static int add_done(struct push_state *s, const char *name)
{
	char *copy = strdup(name);

	if (!copy || prf_ensure_mem((void **)&s->done, &s->done_capacity, sizeof(*s->done),
				    s->done_count + 1) < 0) {
		free(copy);
		return -ENOMEM;
	}
	s->done[s->done_count++] = copy;
	return 0;
}

static int add_sent(struct push_state *s, const char *name, uint64_t window, const char *series)
{
	struct sent e = { strdup(name), window, strdup(series) };

	if (!e.name || !e.series ||
	    prf_ensure_mem((void **)&s->sent, &s->sent_capacity, sizeof(*s->sent),
			   s->sent_count + 1) < 0) {
		free(e.name);
		free(e.series);
		return -ENOMEM;
	}
	s->sent[s->sent_count++] = e;
	return 0;
}

/* Names and series are written between tabs: neither may hold one or a newline. */
static int plain(const char *s)
{
	return *s && !strpbrk(s, "\t\n\r");
}

/* ---- reading --------------------------------------------------------------- */

/*
 * A line's fields, split at each tab (not at runs of them: an empty
 * field is a damaged line, not one field fewer).  The count, at most max.
 */
static size_t split_fields(char *line, char **fields, size_t max)
{
	size_t n = 0;

	while (n < max) {
		fields[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			return n;
		*line++ = 0;
	}
	return max + 1;
}

static int parse_window(const char *text, uint64_t *window)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*window = strtoull(text, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* One line of a done file or a sent profile; -EINVAL when it is neither. */
static int parse_line(struct push_state *s, char *line)
{
	char *fields[4];
	size_t n = split_fields(line, fields, 4);
	uint64_t window;

	for (size_t i = 0; i < n && i < 4; i++)
		if (!*fields[i])
			return -EINVAL;
	if (n == 2 && strcmp(fields[0], "done") == 0)
		return add_done(s, fields[1]);
	if (n == 4 && strcmp(fields[0], "sent") == 0 && parse_window(fields[2], &window) == 0)
		return add_sent(s, fields[1], window, fields[3]);
	return -EINVAL;
}

/* The number of the line at offset in text (from 1). */
static size_t line_at(const char *text, size_t offset)
{
	size_t number = 1;

	for (size_t i = 0; i < offset; i++)
		number += text[i] == '\n';
	return number;
}

/*
 * What no file perfrec-push wrote holds, in either format: a NUL, a
 * carriage return (CRLF line ends: an editor's, or a copy's), a last line
 * without its newline (cut).  Said with the line.
 */
static int check_bytes(const struct push_state *s, const char *text, size_t size,
		       struct prf_error *error)
{
	size_t bad = strcspn(text, "\r");

	/* strcspn() stops at a NUL too: which of the two is at bad says which. */
	if (bad < size) {
		return prf_set_error(error, -EBADMSG, "%s: line %zu holds %s: damaged; " STATE_WAY_OUT,
				     s->path, line_at(text, bad), text[bad] ? "a carriage return "
				     "(CRLF line ends?)" : "a NUL byte");
	}
	if (size == 0)
		return prf_set_error(error, -EBADMSG, "%s: empty: damaged; " STATE_WAY_OUT, s->path);
	if (text[size - 1] != '\n') {
		return prf_set_error(error, -EBADMSG, "%s: its last line (%zu) is cut: damaged; "
				     STATE_WAY_OUT, s->path, line_at(text, size - 1));
	}
	return 0;
}

/*
 * The current format ends with "end\tCRC", the crc32c of every byte
 * before that line as 8 lowercase hex digits: *size becomes where that
 * line starts.
 */
static int check_sum(const struct push_state *s, const char *text, size_t *size,
		     struct prf_error *error)
{
	size_t start = *size - 1;
	uint32_t want = 0;
	const char *digit;

	while (start && text[start - 1] != '\n')
		start--;
	if (strncmp(text + start, "end\t", 4) != 0) {
		return prf_set_error(error, -EBADMSG, "%s: cut after line %zu (no end line): damaged; "
				     STATE_WAY_OUT, s->path, line_at(text, *size) - 1);
	}
	for (digit = text + start + 4; digit < text + start + 12; digit++) {
		const char *hex = "0123456789abcdef", *at = *digit ? strchr(hex, *digit) : NULL;

		if (!at)
			break;
		want = want << 4 | (uint32_t)(at - hex);
	}
	if (digit != text + start + 12 || *digit != '\n' || want != prf_crc32c(0, text, start)) {
		return prf_set_error(error, -EBADMSG, "%s: its checksum does not match its lines: "
				     "altered (edited, or damaged on disk); " STATE_WAY_OUT, s->path);
	}
	*size = start;
	return 0;
}

static int parse(struct push_state *s, char *text, size_t size, struct prf_error *error)
{
	size_t number = 1, length = strcspn(text, "\n");
	int ret = check_bytes(s, text, size, error);

	if (ret < 0)
		return ret;
	if (length == strlen(STATE_MAGIC) && strncmp(text, STATE_MAGIC, length) == 0)
		ret = check_sum(s, text, &size, error);
	else if (length != strlen(STATE_MAGIC_UNCHECKED) ||
		 strncmp(text, STATE_MAGIC_UNCHECKED, length) != 0)
		return prf_set_error(error, -EINVAL, "%s: not a perfrec-push state file (its first "
				     "line is not \"%s\")", s->path, STATE_MAGIC);
	if (ret < 0)
		return ret;
	for (char *line = text + length + 1; line < text + size; line += length + 1) {
		number++;
		length = strcspn(line, "\n");
		line[length] = 0;
		ret = parse_line(s, line);
		if (ret == -ENOMEM)
			return prf_set_error(error, ret, "%s: %s", s->path, strerror(ENOMEM));
		if (ret < 0) {
			return prf_set_error(error, -EBADMSG, "%s: line %zu is not \"done NAME\" nor "
					     "\"sent NAME WINDOW SERIES\": damaged; " STATE_WAY_OUT,
					     s->path, number);
		}
	}
	return 0;
}

/* ---- the directory and the file: what perfrec-push may trust --------------- */

/*
 * The state's directory: made (0700) when missing, as the unit's
 * StateDirectory= does; a real directory, root's or ours, that nobody
 * else may write to but where the sticky bit keeps others' hands off
 * our files (/tmp).  Otherwise another user could replace the state and
 * choose what is sent again, or never.
 */
static int open_directory(struct push_state *s, const char *dir, struct prf_error *error)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, made = 0;
	struct stat st;

	s->dir_fd = open(dir, flags);
	if (s->dir_fd < 0 && errno == ENOENT) {
		if (mkdir(dir, 0700) == 0)
			made = 1;
		else if (errno != EEXIST)
			return prf_set_error(error, -errno, "%s: cannot make its directory %s: %s",
					     s->path, dir, strerror(errno));
		s->dir_fd = open(dir, flags);
	}
	if (s->dir_fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(dir, &st) == 0 &&
	    S_ISLNK(st.st_mode)) {
		return prf_set_error(error, -ELOOP, "%s: its directory %s is a symbolic link (not "
				     "followed)", s->path, dir);
	}
	if (s->dir_fd < 0 || fstat(s->dir_fd, &st) < 0)
		return prf_set_error(error, -errno, "%s: its directory %s: %s", s->path, dir,
				     strerror(errno));
	/* Exactly 0700, whatever the umask took away. */
	if (made && fchmod(s->dir_fd, 0700) < 0)
		return prf_set_error(error, -errno, "%s: %s", dir, strerror(errno));
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		return prf_set_error(error, -EPERM, "%s: its directory %s is owned by uid %u, neither "
				     "root nor uid %u that perfrec-push runs as", s->path, dir,
				     (unsigned)st.st_uid, (unsigned)geteuid());
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		return prf_set_error(error, -EPERM, "%s: its directory %s has mode %03o: others may "
				     "replace the state (chmod go-w)", s->path, dir,
				     (unsigned)(st.st_mode & 0777));
	}
	return 0;
}

/* The file (path) as the directory's check, for itself: regular, ours, ours alone to write. */
static int check_file(const char *path, const struct stat *st, struct prf_error *error)
{
	if (!S_ISREG(st->st_mode))
		return prf_set_error(error, -EINVAL, "%s: not a regular file", path);
	if (st->st_uid != geteuid()) {
		return prf_set_error(error, -EPERM, "%s: owned by uid %u, not by uid %u that "
				     "perfrec-push runs as", path, (unsigned)st->st_uid,
				     (unsigned)geteuid());
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		return prf_set_error(error, -EPERM, "%s: mode %03o: others may change it (chmod 600)",
				     path, (unsigned)(st->st_mode & 0777));
	}
	if (st->st_size > STATE_MAX_BYTES)
		return prf_set_error(error, -EFBIG, "%s: larger than a state file can be", path);
	return 0;
}

/*
 * One perfrec-push a state (the unit's, and one run by hand with the
 * same --state): two would each send what the other had sent but not yet
 * marked, and rename their own state over the other's.  NAME.lock beside
 * the file, held with flock() while perfrec-push runs, with its pid.
 */
static int lock_state(struct push_state *s, struct prf_error *error)
{
	char *name = NULL, *path = NULL, text[32] = "";
	struct stat st;
	ssize_t n;
	int ret;

	if (asprintf(&name, "%s.lock", s->name) < 0 || asprintf(&path, "%s.lock", s->path) < 0) {
		ret = prf_set_error(error, -ENOMEM, "%s: %s", s->path, strerror(ENOMEM));
		goto out;
	}
	s->lock_fd = openat(s->dir_fd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
			    O_NONBLOCK, 0600);
	if (s->lock_fd < 0 && errno == ELOOP) {
		ret = prf_set_error(error, -ELOOP, "%s: a symbolic link (not followed)", path);
		goto out;
	}
	if (s->lock_fd < 0 || fstat(s->lock_fd, &st) < 0) {
		ret = prf_set_error(error, -errno, "%s: cannot be written: %s; nothing is sent (it "
				    "would be sent again at every start)", s->path, strerror(errno));
		goto out;
	}
	ret = check_file(path, &st, error);
	if (ret < 0)
		goto out;
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			ret = prf_set_error(error, -errno, "%s: %s", path, strerror(errno));
			goto out;
		}
		n = pread(s->lock_fd, text, sizeof(text) - 1, 0);
		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		ret = prf_set_error(error, -EBUSY, "%s: in use by another perfrec-push (pid %s)",
				    s->path, text[0] ? text : "unknown");
		goto out;
	}
	n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (ftruncate(s->lock_fd, 0) < 0 || pwrite(s->lock_fd, text, (size_t)n, 0) != n) {
		ret = prf_set_error(error, -errno, "%s: cannot be written: %s; nothing is sent (it "
				    "would be sent again at every start)", s->path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(name);
	free(path);
	return ret;
}

static int read_state(struct push_state *s, struct prf_error *error)
{
	int fd = openat(s->dir_fd, s->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
			O_NONBLOCK);
	struct stat st;
	char *text = NULL;
	size_t size = 0;
	ssize_t got = 1;
	int ret;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = prf_set_error(error, -errno, "%s: %s", s->path, errno == ELOOP ?
				    "a symbolic link (not followed)" : strerror(errno));
		goto out;
	}
	ret = check_file(s->path, &st, error);
	if (ret < 0)
		goto out;
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = prf_set_error(error, -ENOMEM, "%s: %s", s->path, strerror(ENOMEM));
		goto out;
	}
	while (size < (size_t)st.st_size &&
	       (got = read(fd, text + size, (size_t)st.st_size - size)) > 0)
		size += (size_t)got;
	if (got < 0) {
		ret = prf_set_error(error, -errno, "%s: %s", s->path, strerror(errno));
		goto out;
	}
	text[size] = 0;
	ret = parse(s, text, size, error);
out:
	free(text);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* ---- writing ------------------------------------------------------------------ */

/* The file's text: the lines, then the end line with their checksum. */
static int format_state(const struct push_state *s, char **text, size_t *size)
{
	FILE *f = open_memstream(text, size);
	int failed;

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n", STATE_MAGIC);
	for (size_t i = 0; i < s->done_count; i++)
		fprintf(f, "done\t%s\n", s->done[i]);
	for (size_t i = 0; i < s->sent_count; i++)
		fprintf(f, "sent\t%s\t%" PRIu64 "\t%s\n", s->sent[i].name, s->sent[i].window,
			s->sent[i].series);
	failed = fflush(f) != 0;
	if (!failed)
		fprintf(f, "end\t%08" PRIx32 "\n", prf_crc32c(0, *text, *size));
	failed |= fclose(f) != 0;
	if (failed) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int write_all(int fd, const char *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0)
			return -errno;
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

static int save(const struct push_state *s)
{
	char *text = NULL;
	size_t size = 0;
	int fd, ret = format_state(s, &text, &size);

	if (ret < 0)
		return ret;
	/* Never through a link planted where the temporary file goes. */
	unlinkat(s->dir_fd, s->temp_name, 0);
	fd = openat(s->dir_fd, s->temp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		    0600);
	if (fd < 0) {
		ret = -errno;
		free(text);
		return ret;
	}
	ret = write_all(fd, text, size);
	free(text);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && renameat(s->dir_fd, s->temp_name, s->dir_fd, s->name) < 0)
		ret = -errno;
	/* The directory entry of the rename must reach the disk too. */
	if (!ret && fsync(s->dir_fd) < 0 && errno != EINVAL)
		ret = -errno;
	if (ret)
		unlinkat(s->dir_fd, s->temp_name, 0);
	return ret;
}

/* ---- the state ------------------------------------------------------------------ */

/* Its directory (malloc'd) and its name in it, from path. */
static int split_path(struct push_state *s, char **dir)
{
	char *copy = strdup(s->path), *base;

	*dir = NULL;
	if (!copy)
		return -ENOMEM;
	/* Either may return a string of its own ("."), not a part of copy. */
	*dir = strdup(dirname(copy));
	free(copy);
	copy = strdup(s->path);
	if (!copy || !*dir)
		goto fail;
	base = basename(copy);
	s->name = strdup(base);
	if (!s->name || asprintf(&s->temp_name, "%s.tmp", base) < 0) {
		s->temp_name = NULL;
		goto fail;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	free(*dir);
	*dir = NULL;
	return -ENOMEM;
}

int push_state_open(struct push_state **out, const char *path, struct prf_error *error)
{
	struct push_state *s = calloc(1, sizeof(*s));
	char *dir = NULL;
	int ret;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return prf_set_error(error, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
	}
	s->dir_fd = -1;
	s->lock_fd = -1;
	if (split_path(s, &dir) < 0) {
		ret = prf_set_error(error, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
		goto fail;
	}
	if (!*s->name || strcmp(s->name, "/") == 0 || strcmp(s->name, ".") == 0 ||
	    strcmp(s->name, "..") == 0) {
		ret = prf_set_error(error, -EINVAL, "%s: names a directory, not a file", path);
		goto fail;
	}
	ret = open_directory(s, dir, error);
	if (ret >= 0)
		ret = lock_state(s, error);
	if (ret >= 0)
		ret = read_state(s, error);
	if (ret < 0)
		goto fail;
	/*
	 * Written back before anything is sent: a state that cannot be
	 * written would send the same profiles again at every start.  An
	 * old file becomes the current format here.
	 */
	ret = save(s);
	if (ret < 0) {
		prf_set_error(error, ret, "%s: cannot be written: %s; nothing is sent (it would be "
			      "sent again at every start)", path, strerror(-ret));
		goto fail;
	}
	free(dir);
	*out = s;
	return 0;
fail:
	free(dir);
	push_state_free(s);
	return ret;
}

void push_state_free(struct push_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->done_count; i++)
		free(s->done[i]);
	for (size_t i = 0; i < s->sent_count; i++) {
		free(s->sent[i].name);
		free(s->sent[i].series);
	}
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd);	/* the lock goes with it; the file stays */
	free(s->done);
	free(s->sent);
	free(s->name);
	free(s->temp_name);
	free(s->path);
	free(s);
}

const char *push_state_path(const struct push_state *s)
{
	return s->path;
}

int push_state_file_done(const struct push_state *s, const char *name)
{
	for (size_t i = 0; i < s->done_count; i++)
		if (strcmp(s->done[i], name) == 0)
			return 1;
	return 0;
}

int push_state_sent(const struct push_state *s, const char *name, uint64_t window,
		    const char *series)
{
	for (size_t i = 0; i < s->sent_count; i++)
		if (s->sent[i].window == window && strcmp(s->sent[i].name, name) == 0 &&
		    strcmp(s->sent[i].series, series) == 0)
			return 1;
	return 0;
}

int push_state_mark_sent(struct push_state *s, const char *name, uint64_t window,
			 const char *series)
{
	int ret;

	if (!plain(name) || !plain(series))
		return -EINVAL;
	ret = add_sent(s, name, window, series);
	return ret < 0 ? ret : save(s);
}

int push_state_mark_done(struct push_state *s, const char *name)
{
	size_t kept = 0;
	int ret;

	if (!plain(name))
		return -EINVAL;
	if (push_state_file_done(s, name))
		return 0;
	ret = add_done(s, name);
	if (ret < 0)
		return ret;
	/* Its profiles need no line of their own any more. */
	for (size_t i = 0; i < s->sent_count; i++) {
		if (strcmp(s->sent[i].name, name) == 0) {
			free(s->sent[i].name);
			free(s->sent[i].series);
			continue;
		}
		s->sent[kept++] = s->sent[i];
	}
	s->sent_count = kept;
	return save(s);
}

int push_state_prune(struct push_state *s, int (*keep)(void *context, const char *name),
		     void *context)
{
	size_t kept = 0, before = s->done_count + s->sent_count;

	for (size_t i = 0; i < s->done_count; i++) {
		if (keep(context, s->done[i]))
			s->done[kept++] = s->done[i];
		else
			free(s->done[i]);
	}
	s->done_count = kept;
	kept = 0;
	for (size_t i = 0; i < s->sent_count; i++) {
		if (keep(context, s->sent[i].name)) {
			s->sent[kept++] = s->sent[i];
			continue;
		}
		free(s->sent[i].name);
		free(s->sent[i].series);
	}
	s->sent_count = kept;
	return before == s->done_count + s->sent_count ? 0 : save(s);
}
