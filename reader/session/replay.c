/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay: side-band records sorted by time (ties keep their file
 * order) and applied to per-process timelines.  MMAP2 splits the maps it
 * overlaps, FORK copies the parent's maps, exec clears them, EXIT ends
 * them; a map is live from its start to its end, so a sample finds the
 * maps and names valid at its own time.  A pid used again is a new
 * process; the old one stays behind it for earlier samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "intern.h"
#include "session-internal.h"
#include "symbolize.h"

/* ---- processes ------------------------------------------------------ */

void session_process_free(struct process *p)
{
	while (p) {
		struct process *older = p->older;

		free(p->maps);
		free(p->changes);
		free(p->names);
		free(p->cgroups);
		free(p->ns);
		session_jit_free_process(p);
		free(p);
		p = older;
	}
}

struct process_key {
	uint32_t host, pid;
};

static uint64_t process_hash(uint32_t host, uint32_t pid)
{
	/* Seeded: pids are the capture's (prf_hash_seed()). */
	return prf_hash_mix(prf_hash_seed() ^ ((uint64_t)host << 32 | pid));
}

static int process_equal(const void *context, uint32_t id, const void *key)
{
	const struct process *p = ((const struct session *)context)->processes[id - 1];
	const struct process_key *k = key;

	return p->pid == k->pid && p->host == k->host;
}

/* The newest process of pid, or NULL. */
static inline struct process *process_current(const struct session *s, uint32_t host,
					      uint32_t pid)
{
	struct process_key key = { host, pid };
	uint32_t id = prf_index_lookup(&s->process_index, process_hash(host, pid), process_equal,
				       s, &key);

	return id ? s->processes[id - 1] : NULL;
}

/* A new process takes the pid's place in the table; the old one stays. */
static struct process *process_new(struct session *s, uint32_t host, uint32_t pid,
				   uint64_t born)
{
	struct process_key key = { host, pid };
	uint64_t h = process_hash(host, pid);
	struct prf_index_slot *slot = prf_index_place(&s->process_index, h, process_equal, s, &key);
	struct process *p;

	if (!slot || (!slot->id && GROW(s->processes, s->process_capacity,
					s->process_count + 1) < 0))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->host = host;
	p->pid = pid;
	p->born = born;
	if (slot->id) {
		p->older = s->processes[slot->id - 1];
		s->processes[slot->id - 1] = p;
	} else {
		s->processes[s->process_count++] = p;
		prf_index_insert(&s->process_index, slot, h, (uint32_t)s->process_count);
	}
	return p;
}

static struct process *process_get(struct session *s, uint32_t host, uint32_t pid)
{
	struct process *p = process_current(s, host, pid);

	return p ? p : process_new(s, host, pid, 0);
}

static int map_add(struct process *p, const struct map *m)
{
	if (GROW(p->maps, p->map_capacity, p->map_count + 1) < 0)
		return -ENOMEM;
	p->maps[p->map_count++] = *m;
	return 0;
}

/* As the kernel does: a new mapping replaces whatever it overlaps. */
static void maps_punch(struct process *p, uint64_t start, uint64_t end, uint64_t time)
{
	size_t count = p->map_count;

	for (size_t i = 0; i < count; i++) {
		struct map m = p->maps[i];

		if (!map_live(&m, time) || m.end <= start || m.start >= end)
			continue;
		p->maps[i].to = time;
		if (m.start < start)
			map_add(p, &(struct map){ m.start, start, m.pgoff, time, m.to, m.dso });
		if (m.end > end)
			map_add(p, &(struct map){ end, m.end, m.pgoff + (end - m.start),
						  time, m.to, m.dso });
	}
}

static void maps_end_all(struct process *p, uint64_t time)
{
	for (size_t i = 0; i < p->map_count; i++)
		if (map_live(&p->maps[i], time))
			p->maps[i].to = time;
}

static void name_add(struct process *p, uint64_t time, uint32_t tid, const char *comm)
{
	if (GROW(p->names, p->name_capacity, p->name_count + 1) < 0)
		return;
	p->names[p->name_count++] = (struct name_change){ time, tid, comm };
}

/* ---- replay --------------------------------------------------------- */

static int compare_sideband(const void *a, const void *b)
{
	const struct sideband *x = a, *y = b;

	/* A snapshot describes the state the file started with. */
	uint64_t tx = x->snapshot ? 0 : x->time, ty = y->snapshot ? 0 : y->time;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int same_live_map(const struct process *p, const struct sideband *e,
			 struct dso *dso, uint64_t time)
{
	for (size_t i = 0; i < p->map_count; i++) {
		const struct map *m = &p->maps[i];

		if (map_live(m, time) && m->start == e->start &&
		    m->end == e->start + e->length && m->pgoff == e->pgoff && m->dso == dso)
			return 1;
	}
	return 0;
}

static void apply_mmap(struct session *s, const struct sideband *e)
{
	struct process *p = process_get(s, e->host, e->pid);
	struct dso *dso;
	uint64_t time = e->time;

	if (!p || e->length == 0 || e->start + e->length < e->start)
		return;
	dso = session_mapping_dso(s, e);
	if (e->snapshot) {
		/*
		 * The first file's snapshot holds from the beginning of time:
		 * samples taken before it was written still resolve. A later
		 * file's snapshot only restates what replay already knows.
		 */
		if (same_live_map(p, e, dso, time))
			return;
		if (!p->map_count)
			time = 0;
	}
	maps_punch(p, e->start, e->start + e->length, time);
	map_add(p, &(struct map){ e->start, e->start + e->length, e->pgoff, time,
				  NO_END, dso });
}

static void apply_fork(struct session *s, const struct sideband *e)
{
	struct process *parent, *child;

	if (e->pid == e->ppid) {
		process_get(s, e->host, e->pid);		/* a new thread */
		return;
	}
	if (e->snapshot) {
		process_get(s, e->host, e->pid);
		return;
	}
	parent = process_current(s, e->host, e->ppid);
	child = process_new(s, e->host, e->pid, e->time);
	if (!child || !parent)
		return;
	for (size_t i = 0; i < parent->map_count; i++) {
		struct map m = parent->maps[i];

		if (!map_live(&m, e->time))
			continue;
		m.from = e->time;
		m.to = NO_END;
		map_add(child, &m);
	}
	/* The child is named after the thread that forked it. */
	struct session_span span;
	const char *comm = session_comm_at(parent, e->ptid, e->time, &span);

	if (comm)
		name_add(child, e->time, e->pid, comm);
}

static void apply_comm(struct session *s, const struct sideband *e)
{
	struct process *p = process_get(s, e->host, e->pid);

	if (!p)
		return;
	if (e->exec && !e->snapshot)
		maps_end_all(p, e->time);
	name_add(p, e->snapshot ? 0 : e->time, e->tid, e->name);
}

static void apply_cgroup(struct session *s, const struct sideband *e)
{
	struct process *p = process_get(s, e->host, e->pid);
	/* As the replay orders them: a snapshot's hold from the start. */
	struct task_cgroup c = { .time = e->snapshot ? 0 : e->time };

	if (!p || GROW(p->cgroups, p->cgroup_capacity, p->cgroup_count + 1) < 0)
		return;
	session_cgroup_names(s, e->name, &c.names);
	p->cgroups[p->cgroup_count++] = c;
}

/* Sorted by tid when the process is finished (finish_ns()). */
static void apply_nspid(struct session *s, const struct sideband *e)
{
	struct process *p = process_get(s, e->host, e->pid);

	if (!p || p->ns_count >= UINT32_MAX || GROW(p->ns, p->ns_capacity, p->ns_count + 1) < 0)
		return;
	p->ns[p->ns_count] = (struct ns_ids){ e->tid, e->ppid, e->ptid, (uint32_t)p->ns_count };
	p->ns_count++;
}

static int compare_ns_ids(const void *a, const void *b)
{
	const struct ns_ids *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One entry per tid, the last one replayed: a tid is one thread for its life. */
static void finish_ns(struct process *p)
{
	size_t n = 0;

	if (!p->ns_count)
		return;
	qsort(p->ns, p->ns_count, sizeof(*p->ns), compare_ns_ids);
	for (size_t i = 0; i < p->ns_count; i++) {
		if (n && p->ns[n - 1].tid == p->ns[i].tid)
			n--;
		p->ns[n++] = p->ns[i];
	}
	p->ns_count = n;
}

static int compare_maps(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static int compare_name_changes(const void *a, const void *b)
{
	const struct name_change *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The times the set of live maps changes, for session_maps_generation(). */
static void note_map_changes(struct process *p)
{
	size_t n = 0;

	if (!p->map_count || p->map_count > SIZE_MAX / 2)
		return;
	/* each map's start and end */
	p->changes = reallocarray(NULL, 2 * p->map_count, sizeof(*p->changes));
	if (!p->changes)
		return;
	for (size_t i = 0; i < p->map_count; i++) {
		p->changes[n++] = p->maps[i].from;
		if (p->maps[i].to != NO_END)
			p->changes[n++] = p->maps[i].to;
	}
	qsort(p->changes, n, sizeof(*p->changes), compare_u64);
	p->change_count = 0;
	for (size_t i = 0; i < n; i++)
		if (!p->change_count || p->changes[p->change_count - 1] != p->changes[i])
			p->changes[p->change_count++] = p->changes[i];
}

static void finish_process(struct process *p)
{
	if (p->map_count)
		qsort(p->maps, p->map_count, sizeof(*p->maps), compare_maps);
	for (size_t i = 0; i < p->map_count; i++)
		if (p->maps[i].end - p->maps[i].start > p->longest_map)
			p->longest_map = p->maps[i].end - p->maps[i].start;
	note_map_changes(p);
	finish_ns(p);
	/* Stable enough: names of one time come from one record stream. */
	if (p->name_count)
		qsort(p->names, p->name_count, sizeof(*p->names), compare_name_changes);
}

void session_replay(struct session *s)
{
	if (s->sideband_count)
		qsort(s->sideband, s->sideband_count, sizeof(*s->sideband), compare_sideband);
	session_sort_build_ids(s);
	for (size_t i = 0; i < s->sideband_count; i++) {
		const struct sideband *e = &s->sideband[i];

		switch (e->kind) {
		case SIDEBAND_MMAP:
			apply_mmap(s, e);
			break;
		case SIDEBAND_FORK:
			apply_fork(s, e);
			break;
		case SIDEBAND_COMM:
			apply_comm(s, e);
			break;
		case SIDEBAND_CGROUP:
			apply_cgroup(s, e);
			break;
		case SIDEBAND_NSPID:
			apply_nspid(s, e);
			break;
		}
	}
	for (size_t i = 0; i < s->process_count; i++)
		for (struct process *p = s->processes[i]; p; p = p->older)
			finish_process(p);
	free(s->sideband);
	s->sideband = NULL;
	s->sideband_count = s->sideband_capacity = 0;
}

/* ---- for the samples -------------------------------------------------- */

const struct process *session_process_at(struct session *s, uint32_t host, uint32_t pid,
					 uint64_t time, struct session_span *span)
{
	const struct process *p = process_current(s, host, pid);

	span->from = 0;
	span->until = UINT64_MAX;
	while (p && p->older && p->born > time) {
		span->until = p->born;
		p = p->older;
	}
	/* The oldest stands for every time before the next. */
	if (p && p->older)
		span->from = p->born;
	return p;
}

const char *session_comm_at(const struct process *p, uint32_t tid, uint64_t time,
			    struct session_span *span)
{
	const char *of_thread = NULL, *of_process = NULL, *first = NULL;

	span->from = 0;
	span->until = UINT64_MAX;
	if (!p)
		return NULL;
	/* The answer depends on which names come at or before time: it holds between two. */
	for (size_t i = 0; i < p->name_count; i++) {
		const struct name_change *n = &p->names[i];

		if (!first && (n->tid == tid || n->tid == p->pid))
			first = n->comm;
		if (n->time > time) {
			span->until = n->time;
			break;
		}
		span->from = n->time;
		if (n->tid == tid)
			of_thread = n->comm;
		else if (n->tid == p->pid)
			of_process = n->comm;
	}
	return of_thread ? of_thread : of_process ? of_process : first;
}

/* ---- for writers of other formats ------------------------------------ */

static void task_events(struct session *s, const struct process *p, session_task_fn fn,
			void *context)
{
	struct session_task_event e = {
		.kind = SESSION_TASK_START, .time = p->born, .host = s->hosts[p->host],
		.pid = p->pid, .tid = p->pid,
	};

	e.jit_count = session_jit_symbols(p, &e.jit);
	fn(context, &e);
	e.jit = NULL;
	e.jit_count = 0;
	e.kind = SESSION_TASK_MAP;
	for (size_t i = 0; i < p->map_count; i++) {
		const struct map *m = &p->maps[i];

		e.time = m->from;
		e.start = m->start;
		e.end = m->end;
		e.pgoff = m->pgoff;
		e.dso = m->dso;
		fn(context, &e);
	}
	e.kind = SESSION_TASK_NAME;
	e.start = e.end = e.pgoff = 0;
	e.dso = NULL;
	for (size_t i = 0; i < p->name_count; i++) {
		e.time = p->names[i].time;
		e.tid = p->names[i].tid;
		e.comm = p->names[i].comm;
		fn(context, &e);
	}
}

void session_for_each_task_event(struct session *s, session_task_fn fn, void *context)
{
	for (size_t i = 0; i < s->process_count; i++)
		for (const struct process *p = s->processes[i]; p; p = p->older)
			task_events(s, p, fn, context);
}
