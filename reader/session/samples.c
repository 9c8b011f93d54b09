/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2: the sample stream, file by file, each sample with its process
 * (as replayed) and its thread's name at its time; addresses resolved
 * against the maps live at that time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "session-internal.h"

static int in_list_u32(const uint32_t *list, size_t count, uint32_t value)
{
	for (size_t i = 0; i < count; i++)
		if (list[i] == value)
			return 1;
	return 0;
}

static int in_list_string(const char *const *list, size_t count, const char *value)
{
	for (size_t i = 0; i < count && value; i++)
		if (strcmp(list[i], value) == 0)
			return 1;
	return 0;
}

/* path is one of cgroups or below one; "/" and a missing leading '/' alike. */
static int under_cgroup(const char *const *cgroups, size_t count, const char *path)
{
	if (!path)
		return 0;
	path += strspn(path, "/");
	for (size_t i = 0; i < count; i++) {
		const char *c = cgroups[i] + strspn(cgroups[i], "/");
		size_t len = strlen(c);

		while (len && c[len - 1] == '/')
			len--;
		if (!len || (strncmp(path, c, len) == 0 && (path[len] == '\0' || path[len] == '/')))
			return 1;
	}
	return 0;
}

static int passes(const struct session_filter *f, const struct session_sample *sample)
{
	if (f->since_ns && sample->time < f->since_ns)
		return 0;
	if (f->until_ns && sample->time > f->until_ns)
		return 0;
	if (f->pid_count && !in_list_u32(f->pids, f->pid_count, sample->pid))
		return 0;
	if (f->tid_count && !in_list_u32(f->tids, f->tid_count, sample->tid))
		return 0;
	if (f->cpu_count) {
		int found = 0;

		for (size_t i = 0; i < f->cpu_count; i++)
			found |= f->cpus[i] == (int)sample->cpu;
		if (!found)
			return 0;
	}
	/* A block is of no event: the event chooses among the CPU samples. */
	if (f->event && sample->kind == SESSION_SAMPLE_CPU &&
	    (!sample->event || strcmp(sample->event->name, f->event) != 0))
		return 0;
	if (f->host_count) {
		int found = 0;

		/* Both interned by the session: compared by pointer. */
		for (size_t i = 0; i < f->host_count; i++)
			found |= f->hosts[i] == sample->host;
		if (!found)
			return 0;
	}
	if (f->unit_count && !in_list_string(f->units, f->unit_count, sample->unit))
		return 0;
	if (f->cgroup_count && !under_cgroup(f->cgroups, f->cgroup_count, sample->cgroup))
		return 0;
	if (f->comm_count) {
		int found = 0;

		for (size_t i = 0; i < f->comm_count && sample->comm; i++)
			found |= strcmp(f->comms[i], sample->comm) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

/*
 * What a file's samples ask of the replay again and again, each answer
 * kept with the span of time it holds for: a pid's process (until another
 * takes the pid) and its maps' generation, a thread's name (until it is
 * renamed).  Direct-mapped by pid and tid; a miss asks the replay.
 */
#define TASK_CACHE_SIZE	1024u

struct process_entry {
	const struct process *process;
	uint32_t host, pid;
	struct session_span span, maps;
	uint64_t generation;
	int used;
};

struct name_entry {
	const struct process *process;
	uint32_t pid, tid;
	struct session_span span;
	const char *comm;
	int used;
};

struct task_cache {
	struct process_entry processes[TASK_CACHE_SIZE];
	struct name_entry names[TASK_CACHE_SIZE];
	struct cgroup_hint cgroup;
};

static int in_span(const struct session_span *span, uint64_t time)
{
	return span->from <= time && time < span->until;
}

/* The count of map changes up to time, and the span it holds for. */
static uint64_t maps_generation_at(const struct process *p, uint64_t time,
				   struct session_span *span)
{
	size_t lo = 0, hi = p ? p->change_count : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->changes[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	span->from = lo ? p->changes[lo - 1] : 0;
	span->until = p && lo < p->change_count ? p->changes[lo] : UINT64_MAX;
	return lo;
}

static int process_entry_holds(const struct process_entry *e, uint32_t host, uint32_t pid,
			       uint64_t time)
{
	return e->used && e->host == host && e->pid == pid && in_span(&e->span, time);
}

/* Two ways a set: pids that share one are often busy at the same time. */
static const struct process *process_of(struct session *s, struct task_cache *cache,
					uint32_t host, uint32_t pid, uint64_t time,
					uint64_t *generation)
{
	struct process_entry *set = &cache->processes[2 * (pid % (TASK_CACHE_SIZE / 2))];
	struct process_entry *e = set;

	if (s->options.no_shortcuts)
		e->used = set[1].used = 0;
	if (!process_entry_holds(e, host, pid, time)) {
		if (process_entry_holds(&set[1], host, pid, time)) {
			struct process_entry hit = set[1];

			set[1] = set[0];
			set[0] = hit;
		} else {
			set[1] = set[0];
			e->process = session_process_at(s, host, pid, time, &e->span);
			e->host = host;
			e->pid = pid;
			e->maps = (struct session_span){ 1, 0 };	/* empty */
			e->used = 1;
		}
	}
	if (!in_span(&e->maps, time) || s->options.no_shortcuts)
		e->generation = maps_generation_at(e->process, time, &e->maps);
	*generation = e->generation;
	return e->process;
}

/* Its name at time; as perf names a thread no record names, else. */
static const char *thread_name(struct session *s, struct task_cache *cache, const void *process,
			       uint32_t pid, uint32_t tid, uint64_t time)
{
	struct name_entry *e = &cache->names[tid % TASK_CACHE_SIZE];
	const char *comm;
	char name[16];

	if (e->used && e->process == process && e->pid == pid && e->tid == tid &&
	    in_span(&e->span, time) && !s->options.no_shortcuts)
		return e->comm;
	comm = session_comm_at(process, tid, time, &e->span);

	/* The idle task is in no /proc: perf calls it swapper, as the kernel does. */
	if (!comm && pid == 0 && tid == 0)
		comm = s->swapper;
	/*
	 * A task that ended between perfrecd's start and its snapshot left no
	 * name anywhere: perf's ":TID", which says at least which one it was.
	 */
	if (!comm) {
		snprintf(name, sizeof(name), ":%u", tid);
		comm = string_intern(s->strings, name);
	}
	*e = (struct name_entry){ .process = process, .pid = pid, .tid = tid, .span = e->span,
				  .comm = comm, .used = 1 };
	return comm;
}

static void sample_from_record(struct session *s, struct task_cache *cache, uint32_t host,
			       const struct prf_event *event, const struct prf_sample *decoded,
			       struct session_sample *out)
{
	uint64_t type = decoded->sample_type;

	memset(out, 0, sizeof(*out));
	out->kind = SESSION_SAMPLE_CPU;
	out->event = event;
	out->time = type & PERF_SAMPLE_TIME ? decoded->time : 0;
	out->pid = decoded->pid;
	out->tid = decoded->tid;
	out->cpu = decoded->cpu;
	/* A fixed period is the event's own; samples carry one only in frequency mode. */
	if (type & PERF_SAMPLE_PERIOD)
		out->period = decoded->period;
	else
		out->period = event && !event->attr.freq ? event->attr.sample_period : 1;
	if (!out->period)
		out->period = 1;
	out->ip = decoded->ip;
	out->misc = decoded->misc;
	out->callchain = decoded->callchain;
	out->callchain_nr = decoded->callchain ? (size_t)decoded->callchain_nr : 0;
	out->record = decoded;
	out->process = process_of(s, cache, host, out->pid, out->time, &out->maps_generation);
	out->host = s->hosts[host];
	out->comm = thread_name(s, cache, out->process, out->pid, out->tid, out->time);
}

/*
 * An off-CPU block as a sample: its duration is its weight, where a
 * sample's period is.  The waker ran when the block ended: its process
 * and maps are those of then; its name the record's (the collector's at
 * the wake-up), else the replay's.
 */
static void sample_from_off_cpu(struct session *s, struct task_cache *cache, uint32_t host,
				const struct prf_off_cpu *block, struct session_sample *out)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;
	uint64_t waker_generation;

	memset(out, 0, sizeof(*out));
	out->kind = SESSION_SAMPLE_OFF_CPU;
	out->off_cpu = block;
	out->time = block->time;
	out->pid = block->pid;
	out->tid = block->tid;
	out->cpu = block->cpu;
	out->period = block->duration;
	out->callchain = block->callchain;
	out->callchain_nr = block->callchain ? block->callchain_nr : 0;
	/* A blocked thread is in the kernel: its chain says where it entered it. */
	out->misc = PERF_RECORD_MISC_KERNEL;
	prf_callchain_walk_start(&walk, out->callchain, out->callchain_nr, 1);
	while (prf_callchain_next(&walk, &frame))
		if (!frame.marker) {
			out->ip = frame.address;
			out->misc = frame.kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
			break;
		}
	out->process = process_of(s, cache, host, out->pid, out->time, &out->maps_generation);
	out->host = s->hosts[host];
	out->comm = thread_name(s, cache, out->process, out->pid, out->tid, out->time);
	if (!(block->flags & PRF_OFF_CPU_WAKER) || !block->waker_tid)
		return;
	out->waker_pid = block->waker_pid;
	out->waker_tid = block->waker_tid;
	out->waker_callchain = block->waker_callchain;
	out->waker_callchain_nr = block->waker_callchain ? block->waker_callchain_nr : 0;
	if (__builtin_add_overflow(block->time, block->duration, &out->waker_time))
		out->waker_time = UINT64_MAX;
	out->waker_process = process_of(s, cache, host, out->waker_pid, out->waker_time,
					&waker_generation);
	if (block->waker_comm[0])
		out->waker_comm = string_intern(s->strings, block->waker_comm);
	if (!out->waker_comm)
		out->waker_comm = thread_name(s, cache, out->waker_process, out->waker_pid,
					      out->waker_tid, out->waker_time);
}

int session_waker_sample(const struct session_sample *block, struct session_sample *waker)
{
	struct session_span span;

	if (block->kind != SESSION_SAMPLE_OFF_CPU || !block->waker_tid)
		return -ENOENT;
	memset(waker, 0, sizeof(*waker));
	waker->kind = SESSION_SAMPLE_OFF_CPU;
	waker->time = block->waker_time;
	waker->pid = block->waker_pid;
	waker->tid = block->waker_tid;
	waker->comm = block->waker_comm;
	waker->host = block->host;
	waker->file_index = block->file_index;
	waker->process = block->waker_process;
	waker->maps_generation = maps_generation_at(waker->process, waker->time, &span);
	waker->callchain = block->waker_callchain;
	waker->callchain_nr = block->waker_callchain_nr;
	waker->misc = PERF_RECORD_MISC_KERNEL;
	return 0;
}

static const struct prf_tracepoint_fields *tracepoint_fields(const struct input *in,
							     const struct prf_event *event)
{
	if (event->attr.type != PERF_TYPE_TRACEPOINT)
		return NULL;
	for (size_t i = 0; i < in->tracepoint_count; i++)
		if (in->tracepoints[i].config == event->attr.config)
			return in->tracepoints[i].fields;
	return NULL;
}

/*
 * One file's samples, read on any thread: what went wrong is kept in
 * result and said by session_samples_told() afterwards, in file order,
 * so that the warnings and the summary do not depend on the threads.
 */
void session_read_samples(struct session *s, size_t i, const struct session_filter *filter,
			  int read_ahead, session_sample_fn fn, void *context,
			  struct samples_result *result)
{
	struct input *in = &s->inputs[i];
	struct prf_reader *reader;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_read_stats stats;
	unsigned kinds = filter->kinds ? filter->kinds : SESSION_SAMPLE_CPU;
	struct task_cache *cache = calloc(1, sizeof(*cache));
	uint64_t chunk_number = (uint64_t)(i + 1) << 40;
	int ret;

	memset(result, 0, sizeof(*result));
	if (!cache) {
		result->unread = 1;
		snprintf(result->cause, sizeof(result->cause), "%s", strerror(ENOMEM));
		return;
	}
	/* The fd pass 1 read; it said what is damaged, so this pass reads quietly. */
	if (prf_reader_open_fd(&reader, in->fd, in->path, &error) < 0) {
		result->unread = 1;
		snprintf(result->cause, sizeof(result->cause), "%s", error.message);
		free(cache);
		return;
	}
	/* Decompressing on the other core; without a thread, on this one. */
	if (read_ahead)
		prf_reader_read_ahead(reader);
	while ((ret = prf_reader_next_chunk(reader, &chunk)) == 1) {
		struct prf_record record;

		if (filter->until_ns && chunk.first_time > filter->until_ns)
			continue;
		if (filter->since_ns && chunk.last_time && chunk.last_time < filter->since_ns)
			continue;
		chunk_number++;
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			const struct prf_event *event;
			struct prf_sample decoded;
			struct prf_off_cpu block;
			struct session_sample sample;

			if (record.type == PRF_RECORD_OFF_CPU) {
				if (!(kinds & SESSION_SAMPLE_OFF_CPU))
					continue;
				if (prf_decode_off_cpu(record.data, record.size, &block) < 0) {
					result->undecodable_off_cpu++;
					continue;
				}
				sample_from_off_cpu(s, cache, in->host, &block, &sample);
			} else if (record.type != PERF_RECORD_SAMPLE || !(kinds & SESSION_SAMPLE_CPU)) {
				continue;
			} else {
				event = prf_reader_event_for(reader, record.data, record.size);
				if (!event || prf_decode_sample(&event->attr, record.data,
								record.size, &decoded) < 0) {
					result->undecodable++;
					continue;
				}
				sample_from_record(s, cache, in->host, event, &decoded, &sample);
				sample.tracepoint = tracepoint_fields(in, event);
				sample.stack = record.stack.id;
				sample.chunk = chunk_number;
			}
			sample.file_index = i;
			session_sample_cgroup(s, &sample, &cache->cgroup);
			if (!passes(filter, &sample))
				continue;
			fn(context, &sample);
		}
	}
	if (ret < 0) {
		result->unread = 1;
		snprintf(result->cause, sizeof(result->cause), "%s", strerror(-ret));
	}
	prf_reader_get_stats(reader, &stats);
	result->damaged_chunks = stats.damaged_chunks;
	prf_reader_close(reader);
	free(cache);
}

/* Pass 1 checked the samples' chunks against their checksums only. */
static void damage_in_samples(struct session *s, struct input *in, uint64_t damaged_chunks)
{
	if (damaged_chunks <= in->damaged_chunks || in->samples_damage_told)
		return;
	in->samples_damage_told = 1;
	session_warn(s, "%s: skipped %llu more damaged chunk%s of samples (they do not decompress)",
	     in->path, (unsigned long long)(damaged_chunks - in->damaged_chunks),
	     damaged_chunks - in->damaged_chunks == 1 ? "" : "s");
}

/* A file pass 2 could not read to its end: said, counted, never silent. */
int session_samples_told(struct session *s, size_t i, const struct samples_result *result)
{
	struct input *in = &s->inputs[i];

	if (result->unread) {
		session_warn(s, "%s: reading its samples: %s; the rest of them are left out",
			     in->path, result->cause);
		if (!in->damaged) {
			in->damaged = 1;
			s->facts.damaged_files++;
		}
		if (in->incomplete) {
			in->incomplete = 0;
			s->facts.incomplete_files--;
		}
	}
	damage_in_samples(s, in, result->damaged_chunks);
	return result->unread ? -EIO : 0;
}

void session_undecodable_told(struct session *s, uint64_t undecodable, uint64_t off_cpu)
{
	if (undecodable)
		session_warn(s, "%llu samples could not be decoded (malformed records) and were skipped",
		     (unsigned long long)undecodable);
	if (off_cpu)
		session_warn(s, "%llu off-CPU records could not be decoded (malformed) and were skipped",
		     (unsigned long long)off_cpu);
}

int session_for_each_sample(struct session *s, const struct session_filter *filter,
			    session_sample_fn fn, void *context)
{
	uint64_t undecodable = 0, off_cpu = 0;
	int status = 0;

	for (size_t i = 0; i < s->input_count; i++) {
		struct samples_result result;

		session_read_samples(s, i, filter, 1, fn, context, &result);
		undecodable += result.undecodable;
		off_cpu += result.undecodable_off_cpu;
		if (session_samples_told(s, i, &result) < 0)
			status = -EIO;
	}
	session_undecodable_told(s, undecodable, off_cpu);
	return status;
}

/* ---- resolving addresses -------------------------------------------- */

void session_resolve(struct session *s, const struct session_sample *sample,
		     uint64_t address, int kernel, struct resolved_address *out)
{
	const struct process *p = sample->process;
	size_t lo = 0, hi;

	memset(out, 0, sizeof(*out));
	out->kernel = kernel;
	if (kernel) {
		out->dso = s->kernels[s->inputs[sample->file_index].host];
		out->address = address;
		return;
	}
	if (!p || !p->map_count) {
		session_jit_resolve(p, NULL, address, out);
		return;
	}
	/* The last map starting at or before address, then back from there. */
	hi = p->map_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct map *m = &p->maps[i];

		if (address - m->start >= p->longest_map)
			break;
		if (address < m->end && map_live(m, sample->time)) {
			/* Anonymous memory the runtime named: its JIT symbol. */
			if (!session_jit_resolve(p, m->dso, address, out)) {
				out->dso = m->dso;
				out->address = address - m->start + m->pgoff;
			}
			return;
		}
	}
	session_jit_resolve(p, NULL, address, out);
}

/* ---- for the unwinder ------------------------------------------------ */

uint64_t session_maps_generation(const struct session_sample *sample)
{
	return sample->maps_generation;
}

void session_for_each_map(const struct session_sample *sample, session_map_fn fn,
			  void *context)
{
	const struct process *p = sample->process;

	for (size_t i = 0; p && i < p->map_count; i++) {
		const struct map *m = &p->maps[i];

		if (map_live(m, sample->time) && m->dso)
			fn(context, m->start, m->end, m->pgoff, m->dso);
	}
}
