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
#include "common.h"
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

int session_new(struct session **out, const struct session_options *options)
{
	struct session *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->options = *options;
	s->strings = string_table_new();
	if (s->strings)
		s->swapper = string_intern(s->strings, "swapper");
	if (!s->strings || !s->swapper) {
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
	for (size_t i = 0; i < s->process_count; i++)
		session_process_free(s->processes[i]);
	free(s->processes);
	prf_index_free(&s->process_index);
	for (size_t i = 0; i < s->input_count; i++) {
		free(s->inputs[i].path);
		for (size_t t = 0; t < s->inputs[i].tracepoint_count; t++)
			prf_tracepoint_fields_free(s->inputs[i].tracepoints[t].fields);
		free(s->inputs[i].tracepoints);
		if (s->inputs[i].fd >= 0)
			close(s->inputs[i].fd);
	}
	free(s->inputs);
	session_jit_free(s);
	free(s->hosts);
	prf_index_free(&s->host_index);
	free(s->sorted_hosts);
	free(s->kernels);
	free(s->host_infos);
	free(s->ksyms);
	free(s->kernel_claims);
	free(s->input_names);
	free(s->sideband);
	free(s->build_ids);
	free(s->cgroup_ids);
	free(s->events);
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
		    asprintf(&names[count], "%s/%s", path, entry->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		count++;
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

/*
 * Hosts have no limit but memory: a report may read a fleet's captures.
 * Their names are interned, so the index is found by pointer.
 */
static int host_equal(const void *context, uint32_t id, const void *key)
{
	return ((const struct session *)context)->hosts[id - 1] == key;
}

static int host_index(struct session *s, const struct prf_file_info *info, uint32_t *index)
{
	const char *name = string_intern(s->strings, info->hostname);
	struct prf_index_slot *slot;
	uint64_t h;

	if (!name)
		return -ENOMEM;
	h = prf_hash_mix((uintptr_t)name);
	slot = prf_index_place(&s->host_index, h, host_equal, s, name);
	if (!slot)
		return -ENOMEM;
	if (slot->id) {
		*index = slot->id - 1;
		return 0;
	}
	if (s->host_count >= UINT32_MAX - 1)
		return -E2BIG;
	if (GROW(s->hosts, s->host_capacity, s->host_count + 1) < 0 ||
	    GROW(s->kernels, s->kernel_capacity, s->host_count + 1) < 0 ||
	    GROW(s->host_infos, s->host_info_capacity, s->host_count + 1) < 0)
		return -ENOMEM;
	s->hosts[s->host_count] = name;
	s->kernels[s->host_count] = NULL;
	s->host_infos[s->host_count] = (struct session_host_info){
		.name = name,
		.kernel_release = string_intern(s->strings, info->kernel_release),
		.machine = string_intern(s->strings, info->machine),
		.nr_cpus_online = info->nr_cpus_online,
		.nr_cpus_configured = info->nr_cpus_configured,
	};
	if (!s->host_infos[s->host_count].kernel_release || !s->host_infos[s->host_count].machine)
		return -ENOMEM;
	*index = (uint32_t)s->host_count++;
	prf_index_insert(&s->host_index, slot, h, (uint32_t)s->host_count);
	return 0;
}

/* The events of a file not yet met, by name; 0 or -ENOMEM. */
static int note_events(struct session *s, const struct prf_file_info *info)
{
	for (size_t i = 0; i < info->event_count; i++)
		if (info->events[i].attr.sample_type & PERF_SAMPLE_STACK_USER)
			s->facts.user_stacks = 1;
	for (size_t i = 0; i < info->event_count && s->event_count < SESSION_EVENTS_MAX; i++) {
		const struct prf_event *event = &info->events[i];
		const char *name = string_intern(s->strings, event->name);
		struct session_event *e;
		size_t k;

		if (!name)
			return -ENOMEM;
		for (k = 0; k < s->event_count && s->events[k].name != name; k++)
			;
		if (k < s->event_count)
			continue;
		if (GROW(s->events, s->event_capacity, s->event_count + 1) < 0)
			return -ENOMEM;
		e = &s->events[s->event_count++];
		*e = (struct session_event){
			.name = name,
			.type = event->attr.type,
			.config = event->attr.config,
			.sampling.clock = prf_event_is_clock(&event->attr),
		};
		if (event->attr.freq)
			e->sampling.frequency = event->attr.sample_freq;
		else
			e->sampling.period = event->attr.sample_period;
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

static int is_this_machine(const struct prf_file_info *info)
{
	struct prf_host host;

	return prf_host_read(&host) == 0 && strcmp(host.hostname, info->hostname) == 0 &&
	       strcmp(host.kernel_release, info->kernel_release) == 0;
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

		in->fd = prf_open_regular(in->path);
		if (in->fd < 0)
			return load_error(error, in->fd, "%s: %s", in->path,
					     in->fd == -EINVAL ? "not a regular file" : strerror(-in->fd));
		ret = prf_reader_open_fd(&reader, in->fd, in->path, error);
		if (ret < 0)
			return ret;
		in->start_ns = prf_reader_info(reader)->start_time_ns;
		in->perf_data = prf_reader_info(reader)->perf_data;
		if (in->perf_data)
			in->local = is_this_machine(prf_reader_info(reader));
		ret = host_index(s, prf_reader_info(reader), &in->host);
		if (ret >= 0) {
			note_file_facts(s, prf_reader_info(reader));
			ret = note_events(s, prf_reader_info(reader));
		}
		prf_reader_close(reader);
		if (ret < 0)
			return load_error(error, ret, "%s: %s", in->path, strerror(-ret));
	}
	if (s->input_count)
		qsort(s->inputs, s->input_count, sizeof(*s->inputs), compare_inputs);
	s->input_names = calloc(s->input_count + 1, sizeof(*s->input_names));
	if (!s->input_names)
		return load_error(error, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->input_count; i++)
		s->input_names[i] = s->inputs[i].path;
	free(s->kernel_claims);
	s->kernel_claims = calloc(s->host_count ? s->host_count : 1, sizeof(*s->kernel_claims));
	if (!s->kernel_claims)
		return load_error(error, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->host_count; i++)
		s->kernel_claims[i] = SIZE_MAX;
	ret = session_read_sidebands(s, error);
	if (ret == -ENOMEM && !error->code)
		return load_error(error, ret, "out of memory");
	if (ret < 0)
		return ret;
	ret = session_make_hit_kernels(s);
	if (ret >= 0)
		ret = session_local_kernels(s);
	if (ret < 0)
		return load_error(error, ret, "the kernel symbols of the captures: %s", strerror(-ret));
	s->facts.files = s->input_count;
	s->facts.file_names = s->input_names;
	s->facts.events = s->events;
	s->facts.event_count = s->event_count;
	if (s->host_count) {
		s->sorted_hosts = calloc(s->host_count, sizeof(*s->sorted_hosts));
		if (!s->sorted_hosts)
			return load_error(error, -ENOMEM, "out of memory");
		memcpy(s->sorted_hosts, s->hosts, s->host_count * sizeof(*s->sorted_hosts));
		qsort(s->sorted_hosts, s->host_count, sizeof(*s->sorted_hosts), compare_names);
	}
	s->facts.hosts = s->sorted_hosts;
	s->facts.host_count = s->host_count;
	if (s->event_count) {
		s->facts.event = s->events[0].name;
		s->facts.sampling = s->events[0].sampling;
	}
	session_replay(s);
	session_finish_cgroups(s);
	session_jit_attach(s);
	return 0;
}

const char *session_host(struct session *s, const char *name)
{
	for (size_t i = 0; i < s->host_count; i++)
		if (strcmp(s->hosts[i], name) == 0)
			return s->hosts[i];
	return NULL;
}

int session_host_info(struct session *s, const char *host, struct session_host_info *info)
{
	for (size_t i = 0; i < s->host_count; i++)
		if (!host || s->hosts[i] == host) {
			*info = s->host_infos[i];
			info->kernel = s->kernels[i];
			return 0;
		}
	return -ENOENT;
}

void session_get_summary(const struct session *s, struct session_summary *summary)
{
	*summary = s->facts;
}
