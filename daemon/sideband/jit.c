/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JIT symbol files copied into the capture; see jit.h.  This file is what
 * the collector calls: the maps' lifecycle, the hooks that make a process
 * a candidate, and the polls.  jit-internal.h says where the rest is.
 *
 * The reading runs between drains of the rings, so its bounds are on
 * what it costs, not on what a file holds.  A poll takes POLL_TIME_MAX_NS
 * at most and a user half of it, the clock read between windows of a
 * file (the text a window adds is compressed within it): what is left
 * waits for the next poll, which visits first the files served least
 * recently.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "jit-internal.h"

/* At the end, sampling stopped: how long polls may go on. */
#define FINISH_TIME_NS		(2000u * 1000000ull)

struct jit_maps *prd_jit_maps_new(const char *proc_root, const struct jit_limits *limits)
{
	struct jit_maps *maps;

	if (!limits->process_bytes)
		return NULL;
	maps = calloc(1, sizeof(*maps));
	if (!maps)
		return NULL;
	maps->proc_root = strdup(proc_root);
	maps->limits = *limits;
	prd_jit_budgets(maps);
	maps->window = malloc(WINDOW);
	maps->record = malloc(sizeof(struct prf_jit_map_record) + RECORD_TEXT_MAX + 8);
	if (!maps->proc_root || !maps->window || !maps->record) {
		prd_jit_maps_free(maps);
		return NULL;
	}
	return maps;
}

static void source_close_files(struct jit_maps *maps, struct jit_source *source)
{
	if (source->root_fd >= 0) {
		close(source->root_fd);
		maps->descriptors--;
	}
	if (source->fd >= 0) {
		close(source->fd);
		maps->descriptors--;
	}
	source->root_fd = source->fd = -1;
}

void prd_jit_source_close(struct jit_maps *maps, struct jit_source *source)
{
	source_close_files(maps, source);
	if (source->user)
		maps->users[source->user - 1].sources--;
	free(source->path);
	free(source->text);
	free(source->chunks);
	memset(source, 0, sizeof(*source));
	source->root_fd = source->fd = -1;
}

void prd_jit_maps_free(struct jit_maps *maps)
{
	if (!maps)
		return;
	for (size_t i = 0; i < maps->count; i++)
		prd_jit_source_close(maps, &maps->sources[i]);
	free(maps->sources);
	free(maps->order);
	free(maps->users);
	prf_index_free(&maps->user_index);
	free(maps->window);
	free(maps->record);
	free(maps->proc_root);
	free(maps);
}

/* ---- polls ------------------------------------------------------------ */

/* Reads what the source's file gained, within the poll's work; whether work is left. */
static int source_visit(struct jit_maps *maps, struct jit_source *source,
			const struct record_sink *sink)
{
	enum visit_end end;
	struct visit v;

	/* What the earlier files had first: a new line is not read before it. */
	if (source->restating && prd_jit_restate_step(maps, source, sink))
		return 1;
	if (source->cut || source->refused)
		source_close_files(maps, source);	/* nothing more to read */
	if (!prd_jit_source_ready(maps, source) || source->refused) {
		source->finished = source->exit_time != 0;
		return 0;
	}
	prd_jit_visit_start(maps, source, &v);
	end = jit_visit_check(&v);
	if (end == VISIT_DEFERRED)
		return 1;
	if (end == VISIT_CUT) {
		prd_jit_cut_source(maps, source, v.spent_out, sink);
		source->finished = source->exit_time != 0;
		return 0;
	}
	source->served = maps->polls;
	end = source->type == PRF_RECORD_JIT_MAP ? prd_jit_read_map(maps, source, &v, sink) :
	      prd_jit_read_dump(maps, source, &v, sink);
	prd_jit_visit_done(maps, source, &v);
	if (end == VISIT_CUT && !source->cut)
		prd_jit_cut_source(maps, source, v.spent_out, sink);
	else
		prd_jit_emit_pending(maps, source, 0, sink);
	if (end == VISIT_DEFERRED)
		return 1;
	source->finished = source->exit_time != 0;
	return 0;
}

/* The sources whose processes exited and whose files were read go. */
static void forget_finished(struct jit_maps *maps)
{
	size_t kept = 0;

	for (size_t i = 0; i < maps->count; i++) {
		if (maps->sources[i].finished) {
			prd_jit_source_close(maps, &maps->sources[i]);
			continue;
		}
		if (kept != i)
			maps->sources[kept] = maps->sources[i];
		kept++;
	}
	maps->count = kept;
}

static int less_recently_served(const void *a, const void *b, void *context)
{
	const struct jit_source *sources = context;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sources[x].served != sources[y].served)
		return sources[x].served < sources[y].served ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The order of a poll's visits: after a poll that left work, the sources
 * it served least recently first, so that neither a user's first file
 * nor the first users take every poll.
 */
static const uint32_t *poll_order(struct jit_maps *maps)
{
	if (prf_ensure_mem((void **)&maps->order, &maps->order_capacity, sizeof(*maps->order),
			   maps->count) < 0)
		return NULL;
	for (size_t i = 0; i < maps->count; i++)
		maps->order[i] = (uint32_t)i;
	if (maps->deferred)
		qsort_r(maps->order, maps->count, sizeof(*maps->order), less_recently_served,
			maps->sources);
	return maps->order;
}

/* A poll's budget of time begins. */
void prd_jit_poll_start(struct jit_maps *maps)
{
	maps->poll_deadline = prf_clock_ns(CLOCK_MONOTONIC) + POLL_TIME_MAX_NS;
	for (size_t i = 0; i < maps->user_count; i++)
		maps->users[i].poll_ns = 0;
}

void prd_jit_maps_poll(struct jit_maps *maps, const struct record_sink *sink)
{
	const uint32_t *order;

	if (!maps || !(order = poll_order(maps)))
		return;
	maps->polls++;
	maps->deferred = 0;
	prd_jit_poll_start(maps);
	for (size_t k = 0; k < maps->count; k++) {
		if (prf_clock_ns(CLOCK_MONOTONIC) >= maps->poll_deadline) {
			maps->deferred = 1;
			break;
		}
		if (source_visit(maps, &maps->sources[order[k]], sink))
			maps->deferred = 1;
	}
	forget_finished(maps);
}

void prd_jit_maps_finish(struct jit_maps *maps, const struct record_sink *sink)
{
	uint64_t end = prf_clock_ns(CLOCK_MONOTONIC) + FINISH_TIME_NS;

	if (!maps)
		return;
	do
		prd_jit_maps_poll(maps, sink);
	while (maps->deferred && prf_clock_ns(CLOCK_MONOTONIC) < end);
}

/* ---- the collector's hooks ----------------------------------------- */

/* perf's test for memory with no file behind it, where JIT code lives. */
static int anonymous(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "[anon", 5) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14);
}

/* jit-PID.dump, as perf inject --jit recognises the runtime's mapping of it. */
static int jitdump_name(const char *name, uint32_t pid)
{
	const char *base = strrchr(name, '/');
	char want[32];

	snprintf(want, sizeof(want), "jit-%u.dump", pid);
	return base && !strcmp(base + 1, want);
}

void prd_jit_maps_note_mmap(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink)
{
	const uint8_t *p = (const uint8_t *)record;
	const char *name = (const char *)p + 72;
	uint32_t pid, prot;
	char path[64];
	struct jit_source *source;

	(void)sink;
	if (!maps || record->type != PERF_RECORD_MMAP2 || record->size <= 72 ||
	    !memchr(name, '\0', record->size - 72u))
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&prot, p + 64, 4);
	if (pid == UINT32_MAX || pid == 0)
		return;
	if (jitdump_name(name, pid) && name[0] == '/') {
		if (!prd_jit_source_find(maps, pid, PRF_RECORD_JIT_DUMP) &&
		    (source = prd_jit_source_add(maps, pid, PRF_RECORD_JIT_DUMP, name + 1)))
			prd_jit_source_ready(maps, source);
		return;
	}
	if (!(prot & PROT_EXEC) || !anonymous(name) ||
	    prd_jit_source_find(maps, pid, PRF_RECORD_JIT_MAP))
		return;
	snprintf(path, sizeof(path), "tmp/perf-%u.map", pid);
	/* Opened now, so that a map deleted before the next poll is still read. */
	source = prd_jit_source_add(maps, pid, PRF_RECORD_JIT_MAP, path);
	if (source)
		prd_jit_source_ready(maps, source);
}

void prd_jit_maps_note_exit(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink)
{
	uint32_t pid, tid;
	uint64_t time = 0;

	(void)sink;
	if (!maps || record->size < 24)
		return;
	memcpy(&pid, (const uint8_t *)record + 8, 4);
	memcpy(&tid, (const uint8_t *)record + 16, 4);
	if (record->size >= 32)
		memcpy(&time, (const uint8_t *)record + 24, 8);
	if (pid != tid)
		return;		/* a thread, not the process */
	for (size_t i = 0; i < maps->count; i++) {
		struct jit_source *source = &maps->sources[i];

		if (source->pid != pid || source->exit_time)
			continue;
		source->exit_time = time ? time : prf_clock_ns(CLOCK_MONOTONIC);
		/* A map written as it exited: opened while its root is held, read by the polls. */
		if (!prd_jit_source_ready(maps, source) || source->cut) {
			source->finished = 1;
			source_close_files(maps, source);
		}
	}
}
