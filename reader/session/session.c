/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay.  Two passes over the inputs: the first collects the side-band
 * (maps, names, build-ids, kernel symbols) of every file (sideband.c),
 * sorts it by time and rebuilds each process's address space as a
 * timeline (replay.c); the second streams the samples (samples.c), which
 * then resolve against the maps valid at their own timestamps, whatever
 * order the CPUs' rings were drained in.  This file: the session, its
 * inputs, and the files' headers.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "intern.h"
#include "session-internal.h"

void session_warn(struct session *s, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (!s->options.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	s->options.warn(s->options.warn_context, message);
}

int session_grow(void **array, size_t *capacity, size_t need, size_t element)
{
	/* Most processes have a name or two: small arrays start small. */
	size_t n = *capacity ? *capacity : 4;
	void *grown;

	if (need <= *capacity)
		return 0;
	while (n < need)
		n *= 2;
	grown = realloc(*array, n * element);
	if (!grown)
		return -ENOMEM;
	*array = grown;
	*capacity = n;
	return 0;
}

int session_create(struct session **out, const struct session_options *options)
{
	struct session *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->options = *options;
	s->strings = string_table_new();
	s->table_capacity = 4096;
	s->table = calloc(s->table_capacity, sizeof(*s->table));
	if (!s->strings || !s->table) {
		session_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->table_capacity && s->table; i++) {
		struct process *p = s->table[i];

		while (p) {
			struct process *next = p->next_in_table;

			session_process_free(p);
			p = next;
		}
	}
	for (size_t i = 0; i < s->input_count; i++) {
		free(s->inputs[i].path);
		if (s->inputs[i].fd >= 0)
			close(s->inputs[i].fd);
	}
	free(s->inputs);
	free(s->hosts);
	free(s->kernels);
	free(s->input_names);
	free(s->sideband);
	free(s->build_ids);
	free(s->events);
	free(s->table);
	string_table_free(s->strings);
	free(s);
}

struct string_table *session_strings(struct session *s)
{
	return s->strings;
}

/* ---- inputs --------------------------------------------------------- */

static int add_file(struct session *s, const char *path)
{
	if (GROW(s->inputs, s->input_capacity, s->input_count + 1) < 0)
		return -ENOMEM;
	s->inputs[s->input_count] = (struct input){ .path = strdup(path), .fd = -1 };
	if (!s->inputs[s->input_count].path)
		return -ENOMEM;
	s->input_count++;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_directory(struct session *s, const char *path, struct prf_error *error)
{
	DIR *dir = opendir(path);
	struct dirent *entry;
	char **names = NULL;
	size_t count = 0, capacity = 0;
	int ret = 0;

	if (!dir)
		goto fail;
	while ((entry = readdir(dir))) {
		size_t n = strlen(entry->d_name);

		if (n < 5 || strcmp(entry->d_name + n - 4, ".prf") != 0)
			continue;
		if (GROW(names, capacity, count + 1) < 0 ||
		    !(names[count] = malloc(strlen(path) + n + 2))) {
			ret = -ENOMEM;
			break;
		}
		sprintf(names[count++], "%s/%s", path, entry->d_name);
	}
	closedir(dir);
	if (count)
		qsort(names, count, sizeof(*names), compare_names);
	for (size_t i = 0; i < count; i++) {
		if (!ret)
			ret = add_file(s, names[i]);
		free(names[i]);
	}
	free(names);
	if (!ret && !count) {
		error->code = -ENOENT;
		snprintf(error->message, sizeof(error->message), "%s: no .prf files in this directory", path);
		return -ENOENT;
	}
	return ret;
fail:
	error->code = -errno;
	snprintf(error->message, sizeof(error->message), "%s: %s", path, strerror(errno));
	return error->code;
}

int session_add_input(struct session *s, const char *path, struct prf_error *error)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		error->code = -errno;
		snprintf(error->message, sizeof(error->message), "%s: %s", path, strerror(errno));
		return error->code;
	}
	if (S_ISDIR(st.st_mode))
		return add_directory(s, path, error);
	return add_file(s, path);
}

/* ---- the files' headers ----------------------------------------------- */

static int host_index(struct session *s, const char *hostname)
{
	const char *name = string_intern(s->strings, hostname);

	if (!name)
		return -ENOMEM;
	for (size_t i = 0; i < s->host_count; i++)
		if (s->hosts[i] == name)
			return (int)i;
	if (s->host_count == UINT16_MAX)
		return -E2BIG;
	if (GROW(s->hosts, s->host_capacity, s->host_count + 1) < 0 ||
	    GROW(s->kernels, s->kernel_capacity, s->host_count + 1) < 0)
		return -ENOMEM;
	s->hosts[s->host_count] = name;
	s->kernels[s->host_count] = NULL;
	return (int)s->host_count++;
}

/* The events of a file not yet met, by name; 0 or -ENOMEM. */
static int note_events(struct session *s, const struct prf_file_info *info)
{
	for (size_t i = 0; i < info->event_count && s->event_count < SESSION_EVENTS_MAX; i++) {
		const struct prf_event *event = &info->events[i];
		const char *name = string_intern(s->strings, event->name);
		char sampling[64];
		size_t k;

		if (!name)
			return -ENOMEM;
		for (k = 0; k < s->event_count && s->events[k].name != name; k++)
			;
		if (k < s->event_count)
			continue;
		if (event->attr.freq)
			snprintf(sampling, sizeof(sampling), "%llu Hz",
				 (unsigned long long)event->attr.sample_freq);
		else
			snprintf(sampling, sizeof(sampling), "period %llu",
				 (unsigned long long)event->attr.sample_period);
		if (GROW(s->events, s->event_capacity, s->event_count + 1) < 0)
			return -ENOMEM;
		s->events[s->event_count].name = name;
		s->events[s->event_count].type = event->attr.type;
		s->events[s->event_count].config = event->attr.config;
		s->events[s->event_count].sampling = string_intern(s->strings, sampling);
		if (!s->events[s->event_count].sampling)
			return -ENOMEM;
		s->event_count++;
	}
	return 0;
}

static void note_file_facts(struct session *s, const struct prf_file_info *info)
{
	if (s->facts.hostname)
		return;
	s->facts.hostname = string_intern(s->strings, info->hostname);
	s->facts.kernel_release = string_intern(s->strings, info->kernel_release);
	s->facts.machine = string_intern(s->strings, info->machine);
	s->facts.realtime_offset_ns = info->realtime_offset_ns;
}

static int compare_inputs(const void *a, const void *b)
{
	const struct input *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int load_error(struct prf_error *error, int code, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static int load_error(struct prf_error *error, int code, const char *format, ...)
{
	va_list args;

	error->code = code;
	va_start(args, format);
	vsnprintf(error->message, sizeof(error->message), format, args);
	va_end(args);
	return code;
}

int session_load(struct session *s, struct prf_error *error)
{
	int ret;

	/*
	 * Headers first: files are replayed in the order they were started.
	 * Each stays open for both passes, so that what pass 1 read is what
	 * pass 2 reads, even if retention deletes the file in between.
	 */
	for (size_t i = 0; i < s->input_count; i++) {
		struct input *in = &s->inputs[i];
		struct prf_reader *reader;
		int host;

		in->fd = prf_open_regular(in->path);
		if (in->fd < 0)
			return load_error(error, in->fd, "%s: %s", in->path,
					     in->fd == -EINVAL ? "not a regular file" : strerror(-in->fd));
		ret = prf_reader_open_fd(&reader, in->fd, in->path, error);
		if (ret < 0)
			return ret;
		in->start_ns = prf_reader_info(reader)->start_time_ns;
		host = host_index(s, prf_reader_info(reader)->hostname);
		if (host >= 0) {
			note_file_facts(s, prf_reader_info(reader));
			if (note_events(s, prf_reader_info(reader)) < 0)
				host = -ENOMEM;
		}
		prf_reader_close(reader);
		if (host < 0)
			return load_error(error, host, "%s: %s", in->path,
					     host == -E2BIG ? "more than 65535 hosts in one report" :
					     strerror(-host));
		in->host = (uint16_t)host;
	}
	if (s->input_count)
		qsort(s->inputs, s->input_count, sizeof(*s->inputs), compare_inputs);
	s->input_names = calloc(s->input_count + 1, sizeof(*s->input_names));
	if (!s->input_names)
		return -ENOMEM;
	for (size_t i = 0; i < s->input_count; i++) {
		s->input_names[i] = s->inputs[i].path;
		ret = session_read_sideband(s, i, error);
		if (ret < 0)
			return ret;
		s->facts.damaged_files += (size_t)s->inputs[i].damaged;
	}
	s->facts.files = s->input_count;
	s->facts.file_names = s->input_names;
	s->facts.events = s->events;
	s->facts.event_count = s->event_count;
	if (s->event_count) {
		s->facts.event = s->events[0].name;
		s->facts.sampling = s->events[0].sampling;
	}
	session_replay(s);
	return 0;
}

void session_get_summary(const struct session *s, struct session_summary *summary)
{
	*summary = s->facts;
}
