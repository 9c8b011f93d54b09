/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The loop: look at perfrecd's directory (inotify, else every --poll
 * seconds), take the captures oldest first, send each one's profiles in
 * order and mark them in the state file as the server takes them.  A
 * server that does not answer (or answers 5xx, 408, 429) stops the loop
 * at that profile: it is tried again after a delay that doubles up to
 * --max-backoff, jittered so that a fleet does not come back at once (or
 * the server's Retry-After when that is longer, still at most
 * --max-backoff), and nothing later is sent before it.  A profile the
 * server refuses (another 4xx) is said and never sent again; 401, 403,
 * 404 and redirects refuse every profile alike, so they stop everything
 * until the next attempt at --max-backoff (with --once: exit 1).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "format.h"
#include "push-internal.h"
#include "symbolize.h"

/* --once gives a server that does not answer this many tries. */
#define ONCE_TRIES	3
/*
 * The symbolizer is made anew after this many files: each file brings
 * its kernel symbols, and binaries replaced by upgrades stay open in it,
 * so a daemon that runs for months must let go of them now and then.
 * Four hours of perfrecd's default 10-minute files.
 */
#define SYMBOLIZER_FILES	24

void push_log(const char *format, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, format);
	vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	/* File names and what a server answered: one line, whatever they hold. */
	prf_text_make_safe(line);
	fprintf(stderr, "perfrec-push: %s\n", line);
}

struct runner {
	const struct push_options *options;
	struct push_state *state;
	struct push_http *http;
	struct symbolizer *symbolizer;
	unsigned symbolizer_files;	/* read with it */
	volatile int *stop;
	int inotify;
	char **names;			/* this look at the directory, oldest first */
	size_t name_count;
	char **pending;			/* not sent whole at the last look */
	size_t pending_count;
	unsigned failures;		/* in a row: the backoff's exponent */
	double delay_s;			/* before the next try, after STEP_WAIT */
	int status;
};

/* ---- the directory ------------------------------------------------------ */

static int capture_name(const char *name)
{
	size_t length = strlen(name);

	return strncmp(name, "perfrec-", 8) == 0 && length > 12 &&
	       strcmp(name + length - 4, ".prf") == 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/*
 * The captures in the directory, regular files only, by name: perfrecd
 * names them perfrec-HOST-UTCSTART-SEQ.prf, so that is oldest first.
 */
static int list_captures(struct runner *r)
{
	DIR *dir = opendir(r->options->dir);
	char **names = NULL;
	size_t count = 0, capacity = 0;
	struct dirent *e;

	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		struct stat st;

		if (!capture_name(e->d_name) ||
		    fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (prf_ensure_mem((void **)&names, &capacity, sizeof(*names), count + 1) < 0)
			goto fail;
		if (!(names[count] = strdup(e->d_name)))
			goto fail;
		count++;
	}
	closedir(dir);
	if (count)
		qsort(names, count, sizeof(*names), compare_names);
	free_names(r->names, r->name_count);
	r->names = names;
	r->name_count = count;
	return 0;
fail:
	closedir(dir);
	free_names(names, count);
	return -ENOMEM;
}

static int listed(void *context, const char *name)
{
	const struct runner *r = context;

	return bsearch(&name, r->names, r->name_count, sizeof(*r->names), compare_names) != NULL;
}

/* Said once; nothing more is sent, since nothing sent could be marked. */
static void state_unwritable(struct runner *r, int error)
{
	push_log("%s: cannot be written: %s; stopping, not to send profiles twice",
		 push_state_path(r->state), strerror(-error));
	r->status = 1;
}

/*
 * Files that were waiting at the last look and are gone now: perfrecd's
 * retention deleted them (or someone did) before they were sent whole.
 * Said once; the state forgets them.  0, or a negative errno when the
 * state cannot be written.
 */
static int note_deleted(struct runner *r)
{
	char **pending = NULL;
	size_t count = 0;

	for (size_t i = 0; i < r->pending_count; i++)
		if (!listed(r, r->pending[i]))
			push_log("%s: deleted before it was sent whole (perfrecd's retention?): "
				 "its profiles not yet sent are lost", r->pending[i]);
	free_names(r->pending, r->pending_count);
	r->pending = NULL;
	r->pending_count = 0;
	if (r->name_count && (pending = calloc(r->name_count, sizeof(*pending)))) {
		for (size_t i = 0; i < r->name_count; i++)
			if (!push_state_file_done(r->state, r->names[i]) &&
			    (pending[count] = strdup(r->names[i])))
				count++;
		r->pending = pending;
		r->pending_count = count;
	}
	return push_state_prune(r->state, listed, r);
}

/* A sound trailer ends the file: perfrecd finished it. */
static int has_trailer(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	int complete;

	if (fd < 0)
		return 0;
	complete = prf_file_is_complete(fd) > 0;
	close(fd);
	return complete;
}

/* ---- waiting ------------------------------------------------------------- */

static uint64_t now_s(void)
{
	return (uint64_t)time(NULL);
}

/* Until seconds have passed or stop; inotify events end it early when early. */
static void wait_for(struct runner *r, double seconds, int early)
{
	uint64_t start = prf_clock_ns(CLOCK_MONOTONIC);

	while (!*r->stop) {
		struct pollfd p = { .fd = r->inotify, .events = POLLIN };
		double left;
		char buffer[4096];

		left = seconds - (double)(prf_clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
		if (left <= 0)
			return;
		if (r->inotify < 0) {
			struct timespec t = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };

			nanosleep(&t, NULL);
			continue;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) > 0 && (p.revents & POLLIN)) {
			/* The events only say "look again": their contents do not matter. */
			while (read(r->inotify, buffer, sizeof(buffer)) > 0)
				;
			if (early)
				return;
		}
	}
}

/* The delay before try failures + 1: 1 s doubling, at most --max-backoff, jittered. */
static double backoff(const struct runner *r)
{
	double delay = 1;
	uint32_t random = 0;

	for (unsigned i = 1; i < r->failures && delay < r->options->max_backoff_s; i++)
		delay *= 2;
	if (delay > r->options->max_backoff_s)
		delay = r->options->max_backoff_s;
	/* Between half of it and all of it: hosts that failed together spread out. */
	if (getrandom(&random, sizeof(random), GRND_NONBLOCK) != sizeof(random))
		random = (uint32_t)rand();
	return delay / 2 + delay / 2 * (random / 4294967296.0);
}

/*
 * The delay before the next try: the backoff's, or the server's
 * Retry-After (-1: none) when that is longer (a Retry-After of 0 repeated
 * must not make a storm of requests), and at most --max-backoff (a
 * hostile or confused server must not park perfrec-push for a day).  Why,
 * when not the backoff's, in why for the log.
 */
static double retry_delay(const struct runner *r, long retry_after, char *why, size_t size)
{
	double delay = backoff(r);

	*why = 0;
	if (retry_after > (long)r->options->max_backoff_s) {
		snprintf(why, size, " (the server's Retry-After, %ld s, is longer than "
			 "--max-backoff)", retry_after);
		return r->options->max_backoff_s;
	}
	if (retry_after >= delay) {
		snprintf(why, size, " (the server's Retry-After)");
		return (double)retry_after;
	}
	return delay;
}

/* ---- sending --------------------------------------------------------------- */

enum step { STEP_DONE, STEP_WAIT, STEP_STOP };

static const char *age_text(uint64_t seconds, char *text, size_t size)
{
	if (seconds >= 3600)
		snprintf(text, size, "%" PRIu64 " h %" PRIu64 " min", seconds / 3600,
			 seconds % 3600 / 60);
	else
		snprintf(text, size, "%" PRIu64 " min", seconds / 60);
	return text;
}

/* One profile's answer; STEP_DONE to go on with the next. */
static enum step answered(struct runner *r, const char *name, const struct push_profile *p,
			  enum push_result result, const char *message)
{
	int ret;

	switch (result) {
	case PUSH_SENT:
		r->failures = 0;
		if (r->options->verbose)
			push_log("%s: sent %s%s from %" PRIu64 " until %" PRIu64 " (%" PRIu64
				 " %s, %zu bytes)", name, p->name, p->off_cpu ? " off-CPU" : "",
				 p->from, p->until, p->samples, p->off_cpu ? "blocks" : "samples",
				 p->body_size);
		break;
	case PUSH_REFUSED:
		r->failures = 0;
		r->status = 1;
		push_log("%s: the server refused the %sprofile of %s from %" PRIu64 " until %" PRIu64
			 ": %s; it is not sent again", name, p->off_cpu ? "off-CPU " : "", p->name,
			 p->from, p->until, message);
		break;
	case PUSH_RETRY: {
		char why[128];

		r->failures++;
		if (r->options->once && r->failures >= ONCE_TRIES) {
			push_log("%s: %s: %s; giving up after %u tries (--once): run again later, "
				 "what was sent is in %s", name, r->options->url, message, r->failures,
				 push_state_path(r->state));
			r->status = 1;
			return STEP_STOP;
		}
		r->delay_s = retry_delay(r, push_http_retry_after(r->http), why, sizeof(why));
		push_log("%s: %s: %s; trying again in %.1f s%s", name, r->options->url, message,
			 r->delay_s, why);
		return STEP_WAIT;
	}
	case PUSH_BLOCKED:
		r->failures = 0;
		r->status = 1;
		if (r->options->once) {
			push_log("%s: %s; nothing is sent until the credentials or the URL change",
				 r->options->url, message);
			return STEP_STOP;
		}
		push_log("%s: %s; nothing is sent until the credentials or the URL change "
			 "(next try in %u s)", r->options->url, message, r->options->max_backoff_s);
		r->failures = 64;	/* the longest delay */
		r->delay_s = backoff(r);
		return STEP_WAIT;
	}
	ret = push_state_mark_sent(r->state, name, p->window, p->key);
	if (ret < 0) {
		state_unwritable(r, ret);
		return STEP_STOP;
	}
	return STEP_DONE;
}

static enum step send_capture(struct runner *r, const char *name, int complete)
{
	struct push_capture capture;
	char path[4096];
	struct prf_error error = { 0 };
	uint64_t oldest_ok = now_s() - r->options->max_age_s;
	int ret, warned = 0;

	if (snprintf(path, sizeof(path), "%s/%s", r->options->dir, name) >= (int)sizeof(path))
		return STEP_DONE;
	if (r->symbolizer && r->symbolizer_files >= SYMBOLIZER_FILES) {
		symbolizer_free(r->symbolizer);
		r->symbolizer = NULL;
	}
	if (!r->symbolizer) {
		r->symbolizer = push_symbolizer_new(r->options);
		r->symbolizer_files = 0;
		if (!r->symbolizer) {
			push_log("%s: %s", name, strerror(ENOMEM));
			r->delay_s = backoff(r);
			return STEP_WAIT;
		}
	}
	r->symbolizer_files++;
	ret = push_capture_read(&capture, r->options, r->symbolizer, path, name, r->state,
				!complete, &error);
	if (ret < 0) {
		if (!complete)
			return STEP_DONE;	/* tried again at the next look */
		push_log("%s; not sent", error.message);
		r->status = 1;
		ret = push_state_mark_done(r->state, name);
		if (ret < 0) {
			state_unwritable(r, ret);
			return STEP_STOP;
		}
		return STEP_DONE;
	}
	for (size_t i = 0; i < capture.count && !*r->stop; i++) {
		const struct push_profile *p = &capture.profiles[i];
		char message[1024] = "", age[64];
		enum step step;

		if (!warned && p->until < oldest_ok) {
			warned = 1;
			push_log("%s: its profiles are %s old, older than %u s: the server may refuse "
				 "them (Pyroscope's default window is 1 h)", name,
				 age_text(now_s() - p->until, age, sizeof(age)), r->options->max_age_s);
		}
		step = answered(r, name, p, push_http_send(r->http, &capture, p, message,
							      sizeof(message)), message);
		if (step != STEP_DONE) {
			push_capture_free(&capture);
			return step;
		}
	}
	push_capture_free(&capture);
	if (*r->stop)
		return STEP_STOP;
	ret = complete ? push_state_mark_done(r->state, name) : 0;
	if (ret < 0) {
		state_unwritable(r, ret);
		return STEP_STOP;
	}
	return STEP_DONE;
}

/* One look at the directory: every capture not yet sent, oldest first. */
static enum step pass(struct runner *r)
{
	int dir_fd, ret = list_captures(r);

	if (ret < 0) {
		push_log("%s: %s", r->options->dir, strerror(-ret));
		r->status = 1;
		return r->options->once ? STEP_STOP : STEP_DONE;
	}
	ret = note_deleted(r);
	if (ret < 0) {
		state_unwritable(r, ret);
		return STEP_STOP;
	}
	dir_fd = open(r->options->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return STEP_DONE;
	for (size_t i = 0; i < r->name_count && !*r->stop; i++) {
		const char *name = r->names[i];
		/* A file with a newer one behind it is finished, trailer or not (a crash). */
		int complete = i + 1 < r->name_count || has_trailer(dir_fd, name);
		enum step step;

		if (push_state_file_done(r->state, name) || (!complete && !r->options->current))
			continue;
		step = send_capture(r, name, complete);
		if (step != STEP_DONE) {
			close(dir_fd);
			return step;
		}
	}
	close(dir_fd);
	return *r->stop ? STEP_STOP : STEP_DONE;
}

int push_run(const struct push_options *options, const struct push_credentials *credentials,
	     volatile int *stop)
{
	struct runner r = { .options = options, .stop = stop, .inotify = -1 };
	struct prf_error error = { 0 };

	if (push_state_open(&r.state, options->state_path, &error) < 0) {
		push_log("%s", error.message);
		return 1;
	}
	r.http = push_http_new(options, credentials);
	if (!r.http) {
		push_log("cannot start libcurl: %s", strerror(ENOMEM));
		push_state_free(r.state);
		return 1;
	}
	if (!options->once) {
		r.inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (r.inotify >= 0 &&
		    inotify_add_watch(r.inotify, options->dir, IN_CLOSE_WRITE | IN_MOVED_TO |
				      IN_CREATE | IN_DELETE) < 0) {
			push_log("%s: inotify: %s; looking every %u s instead", options->dir,
				 strerror(errno), options->poll_s);
			close(r.inotify);
			r.inotify = -1;
		}
	}
	while (!*stop) {
		enum step step = pass(&r);

		if (step == STEP_STOP || (options->once && step == STEP_DONE))
			break;
		if (step == STEP_WAIT)
			wait_for(&r, r.delay_s, 0);
		else
			/* Writes come every flush: with --current, look once an interval. */
			wait_for(&r, options->current ? options->interval_s : options->poll_s,
				 !options->current);
	}
	if (r.inotify >= 0)
		close(r.inotify);
	free_names(r.names, r.name_count);
	free_names(r.pending, r.pending_count);
	push_http_free(r.http);
	symbolizer_free(r.symbolizer);
	push_state_free(r.state);
	return r.status;
}
