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

static int cpu_passes(const struct session_filter *f, uint32_t cpu)
{
	int found = !f->cpu_count;

	for (size_t i = 0; i < f->cpu_count; i++)
		found |= f->cpus[i] == (int)cpu;
	return found;
}

static int time_passes(const struct session_filter *f, uint64_t time)
{
	return (!f->since_ns || time >= f->since_ns) && (!f->until_ns || time <= f->until_ns);
}

static int passes(const struct session_filter *f, const struct session_sample *sample)
{
	if (!time_passes(f, sample->time))
		return 0;
	if (f->pid_count && !in_list_u32(f->pids, f->pid_count, sample->pid))
		return 0;
	if (f->tid_count && !in_list_u32(f->tids, f->tid_count, sample->tid))
		return 0;
	if (!cpu_passes(f, sample->cpu))
		return 0;
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

/* Where a pid's and a tid's answers are kept: process_of() and thread_name() fill them. */
static struct process_entry *process_set(struct task_cache *cache, uint32_t pid)
{
	return &cache->processes[2 * (pid % (TASK_CACHE_SIZE / 2))];
}

static struct name_entry *name_entry_of(struct task_cache *cache, uint32_t tid)
{
	return &cache->names[tid % TASK_CACHE_SIZE];
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
	struct process_entry *set = process_set(cache, pid);
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
	struct name_entry *e = name_entry_of(cache, tid);
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

/* A fixed period is the event's own; samples carry one only in frequency mode. */
static uint64_t sample_period(const struct prf_event *event, uint64_t sample_type,
			      uint64_t period)
{
	if (!(sample_type & PERF_SAMPLE_PERIOD))
		period = event && !event->attr.freq ? event->attr.sample_period : 1;
	return period ? period : 1;
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
	out->period = sample_period(event, type, decoded->period);
	out->samples = 1;
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
	out->samples = 1;
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
	waker->samples = 1;
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

/* ---- compact samples alike, taken together (merge_alike) -------------- */

/*
 * A chunk's samples alike: the first met stands for them all, with their
 * periods (as the light sample has them) and count, and the span of
 * their times.
 */
struct alike {
	uint32_t first;			/* index in the chunk's compact samples */
	uint64_t period_sum;		/* of max(period, 1) */
	uint64_t samples;
	uint64_t min_time, max_time;
	int split;			/* the replay's answers differ over the span */
};

struct alike_table {
	struct alike *groups;
	size_t count, capacity;
	struct prf_index index;
	uint32_t *group_of;		/* per compact sample; UINT32_MAX: filtered out */
	size_t group_of_capacity;
	uint8_t record[UINT16_MAX + 1] __attribute__((aligned(8)));
};

struct alike_key {
	const struct prf_compact_sample *sample;
	uint64_t window;
};

struct alike_context {
	const struct alike_table *table;
	const struct prf_compact_sample *samples;
	const uint64_t *windows;
	int leaf_only;			/* the stacks do not tell samples apart */
};

static uint64_t window_of(const struct session_filter *f, uint64_t time)
{
	if (!f->merge_window_ns)
		return 0;
	return time > f->merge_origin_ns ? (time - f->merge_origin_ns) / f->merge_window_ns : 0;
}

static uint64_t tail_word(const struct prf_compact_sample *c)
{
	uint64_t word = 0;

	memcpy(&word, c->tail, c->tail_size < 8 ? c->tail_size : 8);
	return word;
}

/*
 * Each field a file chooses mixed in on its own after the process's seed
 * (prf_hash_seed()): a file cannot make its samples' groups share a
 * slot and reading it quadratic.  Fields that are mostly 0 cost nothing
 * then.
 */
static uint64_t alike_hash(const struct prf_compact_sample *c, uint32_t stack, uint64_t window)
{
	uint64_t h = prf_hash_mix(prf_hash_seed() ^ c->ip);

	h = prf_hash_mix(h ^ ((uint64_t)c->pid << 32 | c->tid));
	h = prf_hash_mix(h ^ ((uint64_t)stack << 16 | c->misc) ^ (uintptr_t)c->event << 32);
	if (window)
		h = prf_hash_mix(h ^ window);
	if (c->identifier | c->id | c->stream_id) {
		h = prf_hash_mix(h ^ c->identifier);
		h = prf_hash_mix(h ^ c->id);
		h = prf_hash_mix(h ^ c->stream_id);
	}
	if (c->addr)
		h = prf_hash_mix(h ^ c->addr);
	/* A tail is mostly the cgroup's id: a word. */
	for (size_t i = 0; i < c->tail_size; i += 8) {
		uint64_t word = 0;

		memcpy(&word, c->tail + i, c->tail_size - i < 8 ? c->tail_size - i : 8);
		h = prf_hash_mix(h ^ word);
	}
	return h;
}

/* All but time, period and CPU (and with leaf_only, the callchain). */
static int alike_equal(const void *context, uint32_t id, const void *key)
{
	const struct alike_context *x = context;
	const struct alike_key *k = key;
	const struct alike *g = &x->table->groups[id - 1];
	const struct prf_compact_sample *a = &x->samples[g->first], *b = k->sample;

	return x->windows[id - 1] == k->window && a->event == b->event && a->ip == b->ip &&
	       (x->leaf_only || a->stack == b->stack) && a->misc == b->misc && a->pid == b->pid &&
	       a->tid == b->tid && a->identifier == b->identifier && a->id == b->id &&
	       a->stream_id == b->stream_id && a->addr == b->addr &&
	       a->tail_size == b->tail_size &&
	       (a->tail_size == 8 ? tail_word(a) == tail_word(b) :
				    !memcmp(a->tail, b->tail, a->tail_size));
}

static void alike_table_free(struct alike_table *t)
{
	if (!t)
		return;
	free(t->groups);
	prf_index_free(&t->index);
	free(t->group_of);
	free(t);
}

/*
 * The record of a compact sample decoded as any sample is, into sample:
 * 0, or -EBADMSG when it does not decode (counted as undecodable).
 */
static int compact_sample(struct session *s, struct task_cache *cache, const struct input *in,
			  struct prf_reader *reader, const struct prf_chunk *chunk,
			  struct alike_table *t, const struct prf_compact_sample *c, int leaf_only,
			  struct prf_sample *decoded, struct session_sample *sample)
{
	/* Where only the leaf counts, the callchain is not rebuilt: the record has none. */
	struct prf_compact_sample leaf = *c;
	size_t size;
	const struct prf_event *event;

	if (leaf_only)
		leaf.stack = 0;
	size = prf_compact_sample_record(chunk, &leaf, t->record);
	event = prf_reader_event_for(reader, t->record, size);

	if (!event || prf_decode_sample(&event->attr, t->record, size, decoded) < 0)
		return -EBADMSG;
	sample_from_record(s, cache, in->host, event, decoded, sample);
	sample->tracepoint = tracepoint_fields(in, event);
	sample->stack = leaf.stack;
	sample->stack_hash = prf_compact_stack_hash(chunk, leaf.stack);
	return 0;
}

/*
 * Whether what the replay answered for sample (its process and maps,
 * its thread's name, its cgroup) is the answer at every time from min to
 * max: then one sample can stand for all.  The cache's entries are the
 * ones sample_from_record() just used.
 */
static int answers_hold(struct task_cache *cache, const struct session_sample *sample,
			uint64_t min, uint64_t max)
{
	const struct process_entry *p = process_set(cache, sample->pid);
	const struct name_entry *n = name_entry_of(cache, sample->tid);

	return p->process == sample->process && in_span(&p->span, min) &&
	       in_span(&p->span, max) && in_span(&p->maps, min) && in_span(&p->maps, max) &&
	       n->comm == sample->comm && in_span(&n->span, min) && in_span(&n->span, max) &&
	       session_cgroup_same(sample->process, min, max);
}

/* Groups the chunk's compact samples; 0 or -ENOMEM. */
static int group_alike(struct alike_table *t, const struct prf_chunk *chunk,
		       const struct session_filter *filter, uint64_t **windows,
		       size_t *windows_capacity)
{
	struct alike_context x = { t, chunk->compact, NULL, filter->merge_leaf_only };

	t->count = 0;
	prf_index_clear(&t->index);
	if (prf_ensure_mem((void **)&t->group_of, &t->group_of_capacity, sizeof(*t->group_of),
			   chunk->compact_count) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < chunk->compact_count; i++) {
		const struct prf_compact_sample *c = &chunk->compact[i];
		struct alike_key key = { c, window_of(filter, c->time) };
		struct prf_index_slot *slot;
		struct alike *g;
		uint64_t hash;

		t->group_of[i] = UINT32_MAX;
		/* What tells alike samples apart is filtered here, the rest once a group. */
		if (!time_passes(filter, c->time) || !cpu_passes(filter, c->cpu))
			continue;
		hash = alike_hash(c, x.leaf_only ? 0 : c->stack, key.window);
		x.windows = *windows;
		slot = prf_index_place(&t->index, hash, alike_equal, &x, &key);
		if (!slot)
			return -ENOMEM;
		if (!slot->id) {
			if (prf_ensure_mem((void **)&t->groups, &t->capacity, sizeof(*t->groups),
					   t->count + 1) < 0 ||
			    prf_ensure_mem((void **)windows, windows_capacity, sizeof(**windows),
					   t->count + 1) < 0)
				return -ENOMEM;
			t->groups[t->count] = (struct alike){
				.first = (uint32_t)i, .min_time = c->time, .max_time = c->time,
			};
			(*windows)[t->count] = key.window;
			prf_index_insert(&t->index, slot, hash, (uint32_t)++t->count);
		}
		g = &t->groups[slot->id - 1];
		g->period_sum += sample_period(c->event, PERF_SAMPLE_PERIOD, c->period);
		g->samples++;
		if (c->time < g->min_time)
			g->min_time = c->time;
		if (c->time > g->max_time)
			g->max_time = c->time;
		t->group_of[i] = slot->id - 1;
	}
	return 0;
}

struct read_state {
	struct session *s;
	const struct input *in;
	size_t file_index;
	struct prf_reader *reader;
	const struct session_filter *filter;
	session_sample_fn fn;
	void *context;
	struct task_cache *cache;
	struct samples_result *result;
	uint64_t chunk_number;
	struct alike_table *alike;
	uint64_t *windows;
	size_t windows_capacity;
};

static void give(struct read_state *r, struct session_sample *sample)
{
	sample->file_index = r->file_index;
	sample->chunk = r->chunk_number;
	session_sample_cgroup(r->s, sample, &r->cache->cgroup);
	if (passes(r->filter, sample))
		r->fn(r->context, sample);
}

/*
 * A chunk's compact samples: each group of alike ones as one sample
 * where the replay's answers hold over its times, else one by one.
 */
static int read_compact(struct read_state *r, const struct prf_chunk *chunk)
{
	struct alike_table *t = r->alike;
	struct prf_sample decoded;
	struct session_sample sample;
	int ret, any_split = 0;

	if (!(r->filter->kinds & SESSION_SAMPLE_CPU) && r->filter->kinds)
		return 0;
	ret = group_alike(t, chunk, r->filter, &r->windows, &r->windows_capacity);
	if (ret < 0)
		return ret;
	for (size_t k = 0; k < t->count; k++) {
		struct alike *g = &t->groups[k];
		const struct prf_compact_sample *c = &chunk->compact[g->first];

		ret = compact_sample(r->s, r->cache, r->in, r->reader, chunk, t, c,
				     r->filter->merge_leaf_only, &decoded, &sample);
		if (ret < 0 && !r->filter->merge_leaf_only) {
			r->result->undecodable += g->samples;
			continue;
		}
		/*
		 * The record's event must be the one its fields were laid out
		 * for; else (a lying file) each is read whole, on its own.
		 */
		if (ret < 0 || sample.event != c->event ||
		    !answers_hold(r->cache, &sample, g->min_time, g->max_time)) {
			g->split = any_split = 1;
			continue;
		}
		if (g->samples > 1) {
			sample.samples = g->samples;
			sample.period = decoded.sample_type & PERF_SAMPLE_PERIOD ?
					g->period_sum :
					sample_period(sample.event, decoded.sample_type, 0) * g->samples;
		}
		give(r, &sample);
	}
	for (size_t i = 0; i < chunk->compact_count && any_split; i++) {
		if (t->group_of[i] == UINT32_MAX || !t->groups[t->group_of[i]].split)
			continue;
		if (compact_sample(r->s, r->cache, r->in, r->reader, chunk, t, &chunk->compact[i],
				   0, &decoded, &sample) < 0) {
			r->result->undecodable++;
			continue;
		}
		give(r, &sample);
	}
	return 0;
}

/* A record of a chunk's data: a sample or a block given, anything else skipped. */
static void read_record(struct read_state *r, const struct prf_record *record)
{
	unsigned kinds = r->filter->kinds ? r->filter->kinds : SESSION_SAMPLE_CPU;
	const struct prf_event *event;
	struct prf_sample decoded;
	struct prf_off_cpu block;
	struct session_sample sample;

	if (record->type == PRF_RECORD_OFF_CPU) {
		if (!(kinds & SESSION_SAMPLE_OFF_CPU))
			return;
		if (prf_decode_off_cpu(record->data, record->size, &block) < 0) {
			r->result->undecodable_off_cpu++;
			return;
		}
		sample_from_off_cpu(r->s, r->cache, r->in->host, &block, &sample);
	} else if (record->type != PERF_RECORD_SAMPLE || !(kinds & SESSION_SAMPLE_CPU)) {
		return;
	} else {
		event = prf_reader_event_for(r->reader, record->data, record->size);
		if (!event || prf_decode_sample(&event->attr, record->data, record->size,
						&decoded) < 0) {
			r->result->undecodable++;
			return;
		}
		sample_from_record(r->s, r->cache, r->in->host, event, &decoded, &sample);
		sample.tracepoint = tracepoint_fields(r->in, event);
		sample.stack = record->stack.id;
		sample.stack_hash = record->stack.hash;
	}
	give(r, &sample);
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
	struct read_state r = {
		.s = s, .in = in, .file_index = i, .filter = filter, .fn = fn,
		.context = context, .result = result,
		.chunk_number = (uint64_t)(i + 1) << 40,
	};
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_read_stats stats;
	int ret = 0;

	memset(result, 0, sizeof(*result));
	r.cache = calloc(1, sizeof(*r.cache));
	if (filter->merge_alike)
		r.alike = calloc(1, sizeof(*r.alike));
	/* The fd pass 1 read; it said what is damaged, so this pass reads quietly. */
	if (!r.cache || (filter->merge_alike && !r.alike))
		snprintf(error.message, sizeof(error.message), "%s", strerror(ENOMEM));
	else if (prf_reader_open_fd(&r.reader, in->fd, in->path, &error) == 0)
		ret = 1;
	if (!ret) {
		result->unread = 1;
		snprintf(result->cause, sizeof(result->cause), "%s", error.message);
		goto out;
	}
	prf_reader_keep_compact(r.reader, filter->merge_alike);
	/* Decompressing on the other core; without a thread, on this one. */
	if (read_ahead)
		prf_reader_read_ahead(r.reader);
	while ((ret = prf_reader_next_chunk(r.reader, &chunk)) == 1) {
		struct prf_record record;

		if (filter->until_ns && chunk.first_time > filter->until_ns)
			continue;
		if (filter->since_ns && chunk.last_time && chunk.last_time < filter->since_ns)
			continue;
		r.chunk_number++;
		while (prf_chunk_next_record(&chunk, &record) == 1)
			read_record(&r, &record);
		if (chunk.compact_count && (ret = read_compact(&r, &chunk)) < 0)
			break;
	}
	if (ret < 0) {
		result->unread = 1;
		snprintf(result->cause, sizeof(result->cause), "%s", strerror(-ret));
	}
	prf_reader_get_stats(r.reader, &stats);
	result->damaged_chunks = stats.damaged_chunks;
	prf_reader_close(r.reader);
out:
	alike_table_free(r.alike);
	free(r.windows);
	free(r.cache);
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
