/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroups: the id a sample carries (PERF_SAMPLE_CGROUP) named by the
 * PERF_RECORD_CGROUP records of its host, or where the kernel could not
 * tag samples, the process's path as perfrecd read it; and what a path
 * tells a person: the systemd unit, the container.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "session-internal.h"

/* ---- names from a path ------------------------------------------------ */

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static void put(char *out, size_t size, const char *s, size_t len)
{
	if (!size)
		return;
	if (len >= size)
		len = size - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/* The next non-empty component of *path: its start (NULL at the end) and length. */
static const char *next_component(const char **path, size_t *len)
{
	const char *c = *path;

	while (*c == '/')
		c++;
	if (!*c)
		return NULL;
	*len = strcspn(c, "/");
	*path = c + *len;
	return c;
}

const char *session_cgroup_unit(const char *path, char *out, size_t size)
{
	const char *unit = NULL, *slice = NULL, *c, *p = path;
	size_t unit_len = 0, slice_len = 0, len;

	while ((c = next_component(&p, &len))) {
		if (ends_with(c, len, ".service") || ends_with(c, len, ".scope")) {
			unit = c;
			unit_len = len;
		} else if (ends_with(c, len, ".slice")) {
			slice = c;
			slice_len = len;
		}
	}
	if (unit)
		put(out, size, unit, unit_len);
	else if (slice)
		put(out, size, slice, slice_len);
	else if (next_component(&(const char *){ path }, &len))
		put(out, size, path, strlen(path));
	else
		put(out, size, "-.slice", 7);
	return out;
}

/* At least 12 hex digits and nothing else: a container id. */
static int is_id(const char *s, size_t len)
{
	if (len < 12)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* systemd's cgroup driver: each container a scope "<prefix><id>.scope". */
static const struct {
	const char *prefix;
	const char *runtime;
} scopes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "libpod-", "podman" },
};

/* "pod:UID/", with the systemd driver's '_' for '-' turned back; its length. */
static size_t put_pod(char *out, size_t size, const char *uid, size_t len)
{
	int n = snprintf(out, size, "pod:%.*s/", (int)len, uid);

	for (int i = 4; i < n && (size_t)i < size; i++)
		if (out[i] == '_')
			out[i] = '-';
	return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
}

/* A container's runtime and id in component c, or NULL. */
static const char *container_id(const char *c, size_t len, const char *prev, size_t prev_len,
				const char **id, size_t *id_len)
{
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t n = strlen(scopes[i].prefix);

		if (starts_with(c, len, scopes[i].prefix) && ends_with(c, len, ".scope") &&
		    is_id(c + n, len - n - 6)) {
			*id = c + n;
			*id_len = len - n - 6;
			return scopes[i].runtime;
		}
	}
	/* the cgroupfs driver: /docker/<id>, /kubepods/<qos>/pod<uid>/<id> */
	if (len == 64 && is_id(c, len)) {
		*id = c;
		*id_len = len;
		return prev && prev_len == 6 && memcmp(prev, "docker", 6) == 0 ? "docker" :
		       "container";
	}
	return NULL;
}

const char *session_cgroup_container(const char *path, char *out, size_t size)
{
	const char *prev = NULL, *c, *p = path, *id, *runtime;
	size_t used = 0, len, prev_len = 0, id_len;
	int kubepods = 0;

	if (!size)
		return NULL;
	out[0] = '\0';
	for (; (c = next_component(&p, &len)); prev = c, prev_len = len) {
		const char *pod = len > 10 ? memmem(c, len, "-pod", 4) : NULL;

		if (starts_with(c, len, "kubepods"))
			kubepods = 1;
		if (kubepods && !used && pod && ends_with(c, len, ".slice")) {
			used = put_pod(out, size, pod + 4, (size_t)(c + len - 6 - (pod + 4)));
			continue;
		}
		if (kubepods && !used && starts_with(c, len, "pod") && len > 3) {
			used = put_pod(out, size, c + 3, len - 3);
			continue;
		}
		if ((runtime = container_id(c, len, prev, prev_len, &id, &id_len))) {
			snprintf(out + used, size - used, "%s:%.*s", runtime,
				 (int)(id_len > 12 ? 12 : id_len), id);
			return out;
		}
		if (used)
			continue;
		if (starts_with(c, len, "lxc.payload.") && len > 12) {
			snprintf(out, size, "lxc:%.*s", (int)(len - 12), c + 12);
			return out;
		}
		if (starts_with(c, len, "machine-") && ends_with(c, len, ".scope") && len > 14) {
			snprintf(out, size, "machine:%.*s", (int)(len - 14), c + 8);
			return out;
		}
		if (starts_with(c, len, "systemd-nspawn@") && ends_with(c, len, ".service") &&
		    len > 23) {
			snprintf(out, size, "machine:%.*s", (int)(len - 23), c + 15);
			return out;
		}
	}
	if (!used)
		return NULL;
	out[used - 1] = '\0';		/* the pod alone: its infrastructure */
	return out;
}

/* ---- the session's table ---------------------------------------------- */

void session_cgroup_names(struct session *s, const char *path, struct cgroup_names *out)
{
	char unit[512], container[512];

	out->path = path;
	out->unit = string_intern(s->strings, session_cgroup_unit(path, unit, sizeof(unit)));
	out->container = session_cgroup_container(path, container, sizeof(container)) ?
			 string_intern(s->strings, container) : NULL;
}

/* Pass 1 reads files on several threads; their cgroups go to one array. */
static pthread_mutex_t cgroup_lock = PTHREAD_MUTEX_INITIALIZER;

int session_add_cgroup(struct session *s, uint32_t host, uint64_t order, uint64_t id,
		       const char *path)
{
	int ret;

	if (!path)
		return -ENOMEM;		/* not interned */
	pthread_mutex_lock(&cgroup_lock);
	ret = GROW(s->cgroup_ids, s->cgroup_id_capacity, s->cgroup_id_count + 1);
	if (!ret)
		s->cgroup_ids[s->cgroup_id_count++] = (struct cgroup_entry){
			.host = host, .id = id, .order = order, .names = { .path = path } };
	pthread_mutex_unlock(&cgroup_lock);
	return ret;
}

static int compare_cgroups(const void *a, const void *b)
{
	const struct cgroup_entry *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorted by host and id; of the same id (a file each) the last one read stays. */
void session_finish_cgroups(struct session *s)
{
	size_t n = 0;

	if (!s->cgroup_id_count)
		return;
	qsort(s->cgroup_ids, s->cgroup_id_count, sizeof(*s->cgroup_ids), compare_cgroups);
	for (size_t i = 0; i < s->cgroup_id_count; i++) {
		struct cgroup_entry *e = &s->cgroup_ids[i];

		if (n && s->cgroup_ids[n - 1].host == e->host && s->cgroup_ids[n - 1].id == e->id) {
			if (e->order > s->cgroup_ids[n - 1].order)
				s->cgroup_ids[n - 1] = *e;
			continue;
		}
		s->cgroup_ids[n++] = *e;
	}
	s->cgroup_id_count = n;
	for (size_t i = 0; i < n; i++)
		session_cgroup_names(s, s->cgroup_ids[i].names.path, &s->cgroup_ids[i].names);
}

static const struct cgroup_entry *cgroup_find(const struct session *s, uint32_t host,
					      uint64_t id)
{
	struct cgroup_entry key = { .host = host, .id = id };

	if (!s->cgroup_id_count)
		return NULL;
	return bsearch(&key, s->cgroup_ids, s->cgroup_id_count, sizeof(key), compare_cgroups);
}

static int compare_tids(const void *a, const void *b)
{
	const struct ns_ids *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Where the process's cgroup at time is: the count of its moves up to then. */
static size_t cgroup_index(const struct process *p, uint64_t time)
{
	size_t lo = 0, hi = p->cgroup_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->cgroups[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int session_cgroup_same(const struct process *p, uint64_t from, uint64_t to)
{
	return !p || !p->cgroup_count || cgroup_index(p, from) == cgroup_index(p, to);
}

void session_sample_cgroup(struct session *s, struct session_sample *sample,
			   struct cgroup_hint *hint)
{
	const struct process *p = sample->process;
	const struct cgroup_names *names = NULL;
	uint64_t id = 0;
	int has_id = 0;

	if (sample->record && (sample->record->sample_type & PERF_SAMPLE_CGROUP)) {
		id = sample->record->cgroup;
		has_id = 1;
	} else if (sample->off_cpu && sample->off_cpu->cgroup) {
		id = sample->off_cpu->cgroup;	/* 0: not known, as without the field */
		has_id = 1;
	}
	if (has_id) {
		uint32_t host = s->inputs[sample->file_index].host;

		if (!hint->used || hint->host != host || hint->id != id || s->options.no_shortcuts)
			*hint = (struct cgroup_hint){ host, id, cgroup_find(s, host, id), 1 };
		if (hint->entry)
			names = &hint->entry->names;
	} else if (p && p->cgroup_count) {
		/* The last one from before the sample, else the first. */
		size_t lo = cgroup_index(p, sample->time);

		names = &p->cgroups[lo ? lo - 1 : 0].names;
	}
	if (names) {
		sample->cgroup = names->path;
		sample->unit = names->unit;
		sample->container = names->container;
	}
	if (p && p->ns_count) {
		struct ns_ids key = { .tid = sample->tid };
		const struct ns_ids *found = bsearch(&key, p->ns, p->ns_count, sizeof(key),
						     compare_tids);

		if (found) {
			sample->ns_pid = found->ns_pid;
			sample->ns_tid = found->ns_tid;
		} else if (sample->tid == UINT32_MAX) {
			/*
			 * The kernel gives tid -1 to a thread that is exiting;
			 * its process, and so its pid namespace, is still
			 * known: all threads of a process share one.
			 */
			sample->ns_pid = p->ns[0].ns_pid;
			sample->ns_tid = UINT32_MAX;
		}
	}
}
