/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The side-band perf needs to resolve the samples, from the session's
 * replay (session_for_each_task_event()): the kernel's map first, then
 * for each process a FORK where it began during the capture, its
 * threads' names (COMM) and its maps (MMAP2, with the build-id the
 * capture recorded), each at the time it took effect, all in time order.
 * perf replays them as it replays its own: a pid used again is a FORK
 * that replaces the old process, a new map replaces what it overlaps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "perfdata-internal.h"
#include "symbolize.h"

struct task_record {
	uint64_t time;
	uint32_t order;			/* FORK, then names, then maps, then as met */
	uint32_t index;
	struct session_task_event event;
};

struct collect {
	struct perfdata_writer *w;
	struct task_record *records;
	size_t count, capacity;
	int error;
};

static void collect_task(void *context, const struct session_task_event *e)
{
	struct collect *c = context;

	if (c->error || (c->w->options.host && e->host != c->w->options.host))
		return;
	/* A process there from the start needs no FORK. */
	if (e->kind == SESSION_TASK_START && !e->time)
		return;
	if (prf_ensure_mem((void **)&c->records, &c->capacity, sizeof(*c->records),
			   c->count + 1) < 0) {
		c->error = -ENOMEM;
		return;
	}
	c->records[c->count] = (struct task_record){
		.time = e->time,
		.order = e->kind == SESSION_TASK_START ? 0 : e->kind == SESSION_TASK_NAME ? 1 : 2,
		.index = (uint32_t)c->count,
		.event = *e,
	};
	c->count++;
}

static int compare_records(const void *a, const void *b)
{
	const struct task_record *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* A DSO's build-id from its hex: its size (0: none). */
static size_t build_id_of(const struct dso *dso, uint8_t *out)
{
	const char *hex = dso ? dso_build_id_hex(dso) : "";
	size_t n = 0;

	for (; n < PRF_BUILD_ID_MAX && hex[2 * n] && hex[2 * n + 1]; n++) {
		char byte[3] = { hex[2 * n], hex[2 * n + 1], 0 };

		out[n] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return n;
}

static int dso_equal(const void *context, uint32_t id, const void *key)
{
	return ((struct dso *const *)context)[id - 1] == key;
}

/* The DSOs with build-ids that maps name, once each, for the build-id section. */
static void note_dso(struct perfdata_writer *w, struct dso *dso)
{
	uint64_t h = prf_hash_mix((uint64_t)(uintptr_t)dso);
	struct prf_index_slot *slot;

	if (!*dso_build_id_hex(dso))
		return;
	slot = prf_index_place(&w->dso_index, h, dso_equal, w->dsos, dso);
	if (!slot || slot->id ||
	    prf_ensure_mem((void **)&w->dsos, &w->dso_capacity, sizeof(*w->dsos),
			   w->dso_count + 1) < 0)
		return;		/* without memory, a build-id fewer */
	w->dsos[w->dso_count++] = dso;
	prf_index_insert(&w->dso_index, slot, h, (uint32_t)w->dso_count);
}

static void write_task(struct perfdata_writer *w, const struct task_record *r)
{
	const struct session_task_event *e = &r->event;
	uint8_t build_id[PRF_BUILD_ID_MAX];

	switch (e->kind) {
	case SESSION_TASK_START:
		/* Its parent is not kept: swapper's, which has no maps to copy. */
		perfdata_record_task(w, PERF_RECORD_FORK, e->pid, 0, e->time);
		break;
	case SESSION_TASK_NAME:
		perfdata_record_comm(w, e->pid, e->tid, e->comm, e->time);
		break;
	case SESSION_TASK_MAP: {
		struct perfdata_mmap m = {
			.pid = e->pid, .tid = e->pid, .start = e->start,
			.length = e->end - e->start, .pgoff = e->pgoff,
			.name = e->dso ? dso_path(e->dso) : "//anon",
			.build_id = build_id,
			.build_id_size = build_id_of(e->dso, build_id),
		};

		if (e->dso)
			note_dso(w, e->dso);
		perfdata_record_mmap(w, &m, e->time);
		break;
	}
	}
}

/* A name perf finds again as it is: the kernel's identifiers. */
static int plain_name(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");

	return n && !name[n] && n < sizeof(((struct perfdata_writer *)0)->kernel_ref);
}

/*
 * The kernel proper's extent from its reference symbol: _text where the
 * capture has it (a whole kallsyms), else the lowest symbol it recorded
 * (symbols as hit).  Symbols come by address.
 */
static void kernel_extent(void *context, const struct symbolizer_ksym *k)
{
	struct perfdata_writer *w = context;

	if (k->module && *k->module)
		return;
	if (!strcmp(k->name, "_text") || (!w->kernel_start && plain_name(k->name))) {
		if (!w->kernel_start || strcmp(w->kernel_ref, "_text")) {
			strcpy(w->kernel_ref, k->name);
			w->kernel_start = k->start;
		}
	}
	if (w->kernel_start && k->start >= w->kernel_start && k->start + k->size > w->kernel_end)
		w->kernel_end = k->start + k->size;
}

/*
 * perf's kernel map: [start, end) named "[kernel.kallsyms]" and its
 * reference symbol, whose address is its offset: perf relocates its
 * symbols by where the kallsyms it reads (--kallsyms FILE, or this
 * host's /proc/kallsyms) puts that symbol, so a symbol both have keeps
 * the addresses as they are.
 */
static void write_kernel_map(struct perfdata_writer *w)
{
	char name[sizeof(w->kernel_ref) + 32];

	w->kernel = w->host.kernel;
	if (!w->kernel)
		return;
	dso_kernel_for_each_symbol(w->kernel, kernel_extent, w);
	if (!w->kernel_start || w->kernel_end <= w->kernel_start)
		return;
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", w->kernel_ref);
	perfdata_record_mmap(w, &(struct perfdata_mmap){
		.start = w->kernel_start, .length = w->kernel_end - w->kernel_start,
		.pgoff = w->kernel_start, .name = name, .kernel = 1,
	}, 0);
}

int perfdata_write_sideband(struct perfdata_writer *w)
{
	struct collect c = { .w = w };

	write_kernel_map(w);
	session_for_each_task_event(w->session, collect_task, &c);
	if (!c.error) {
		if (c.count)
			qsort(c.records, c.count, sizeof(*c.records), compare_records);
		for (size_t i = 0; i < c.count; i++)
			write_task(w, &c.records[i]);
	}
	free(c.records);
	return c.error;
}

void perfdata_write_build_ids(struct perfdata_writer *w)
{
	uint8_t build_id[PRF_BUILD_ID_MAX];
	size_t n;

	if (w->kernel && (n = build_id_of(w->kernel, build_id)))
		perfdata_record_build_id(w, 1, build_id, n, "[kernel.kallsyms]");
	for (size_t i = 0; i < w->dso_count; i++)
		if ((n = build_id_of(w->dsos[i], build_id)))
			perfdata_record_build_id(w, 0, build_id, n, dso_path(w->dsos[i]));
}
