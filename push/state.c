/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state file: which captures were sent whole, and which profiles of
 * the one being sent.  Small (a line per file the directory still has),
 * rewritten whole on each change: temporary file, fsync, rename, fsync of
 * the directory.  A file or profile is marked only after the server said
 * 2xx, so a crash costs a profile sent twice at worst, never one lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "push-internal.h"

#define STATE_MAGIC	"perfrec-push state 1"
/* A state file larger than this is no state file of ours. */
#define STATE_MAX_BYTES	(64u << 20)

struct sent {
	char *name;
	uint64_t window;
	char *series;
};

struct push_state {
	char *path;
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

static int parse(struct push_state *s, char *text, struct prf_error *error)
{
	char *saveptr = NULL, *line = strtok_r(text, "\n", &saveptr);
	size_t number = 1;

	if (!line || strcmp(line, STATE_MAGIC) != 0) {
		return prf_set_error(error, -EINVAL,
				     "%s: not a perfrec-push state file (its first line is not \"%s\")",
				     s->path, STATE_MAGIC);
	}
	while ((line = strtok_r(NULL, "\n", &saveptr))) {
		char *fields[4], *inner = NULL, *end;
		size_t n = 0;
		int ret = 0;

		number++;
		for (char *f = strtok_r(line, "\t", &inner); f && n < 4; f = strtok_r(NULL, "\t", &inner))
			fields[n++] = f;
		if (n == 2 && strcmp(fields[0], "done") == 0) {
			ret = add_done(s, fields[1]);
		} else if (n == 4 && strcmp(fields[0], "sent") == 0) {
			uint64_t window;

			errno = 0;
			window = strtoull(fields[2], &end, 10);
			if (errno || *end || end == fields[2])
				goto bad;
			ret = add_sent(s, fields[1], window, fields[3]);
		} else {
			goto bad;
		}
		if (ret < 0) {
			return prf_set_error(error, ret, "%s: %s", s->path, strerror(-ret));
		}
		continue;
bad:
		return prf_set_error(error, -EINVAL,
				     "%s: line %zu is not \"done NAME\" nor \"sent NAME WINDOW SERIES\"",
				     s->path, number);
	}
	return 0;
}

int push_state_load(struct push_state **out, const char *path, struct prf_error *error)
{
	struct push_state *s = calloc(1, sizeof(*s));
	struct stat st;
	char *text = NULL;
	ssize_t got;
	int fd, ret;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return prf_set_error(error, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		*out = s;
		return 0;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		prf_set_error(error, ret, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > STATE_MAX_BYTES) {
		ret = -EINVAL;
		prf_set_error(error, ret, "%s: %s", path, S_ISREG(st.st_mode) ?
			      "larger than a state file can be" : "not a regular file");
		goto fail;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = -ENOMEM;
		prf_set_error(error, ret, "%s: %s", path, strerror(ENOMEM));
		goto fail;
	}
	got = read(fd, text, (size_t)st.st_size);
	if (got < 0) {
		ret = -errno;
		prf_set_error(error, ret, "%s: %s", path, strerror(errno));
		goto fail;
	}
	text[got] = 0;
	ret = parse(s, text, error);
	if (ret < 0)
		goto fail;
	free(text);
	close(fd);
	*out = s;
	return 0;
fail:
	free(text);
	if (fd >= 0)
		close(fd);
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
	free(s->done);
	free(s->sent);
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

/* The directory entry of the rename must reach the disk too. */
static int sync_directory(const char *path)
{
	char *copy = strdup(path);
	int fd, ret = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
	return ret;
}

static int save(const struct push_state *s)
{
	size_t length = strlen(s->path);
	char *temp = malloc(length + 5);
	FILE *f;
	int fd, ret = 0;

	if (!temp)
		return -ENOMEM;
	memcpy(temp, s->path, length);
	memcpy(temp + length, ".tmp", 5);
	/* Never through a link planted where the temporary file goes. */
	unlink(temp);
	fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = -errno;
		free(temp);
		return ret;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out;
	}
	fprintf(f, "%s\n", STATE_MAGIC);
	for (size_t i = 0; i < s->done_count; i++)
		fprintf(f, "done\t%s\n", s->done[i]);
	for (size_t i = 0; i < s->sent_count; i++)
		fprintf(f, "sent\t%s\t%" PRIu64 "\t%s\n", s->sent[i].name, s->sent[i].window,
			s->sent[i].series);
	if (fflush(f) || fsync(fileno(f)) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(temp, s->path) < 0)
		ret = -errno;
	if (!ret)
		ret = sync_directory(s->path);
out:
	if (ret)
		unlink(temp);
	free(temp);
	return ret;
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
