/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compact samples, the reading half: a chunk's STACKS and COMPACT_SAMPLES
 * records become the PERF_RECORD_SAMPLEs they were made of, byte for
 * byte, so that everything above the format library reads them as it
 * reads any sample.  Each sample also gets its stack: the number the
 * chunk gave it and a hash of its words, computed once per stack.
 *
 * The records come from other hosts: every varint, index and length is
 * checked, a stack refers only to the stacks before it, and no chunk
 * expands past PRF_CHUNK_RAW_MAX.  Anything wrong makes the whole chunk
 * damaged; other chunks do not depend on it.
 */
#include <errno.h>
#include "internal.h"

struct prf_compact_node {
	uint64_t frame;
	uint64_t hash;
	uint32_t parent;
	uint32_t depth;
	uint64_t first_address;		/* past the context markers; 0: none */
	int has_address;
};

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

/*
 * A varint cut short by its column's end, or over 10 bytes, makes the
 * cursor bad.  Inline: it runs for every field of every sample.
 */
static inline uint64_t get_varint(struct cursor *c)
{
	uint64_t v;

	if (prf_varint_get(&c->p, c->end, &v) < 0) {
		c->bad = 1;
		return 0;
	}
	return v;
}

static uint32_t get_u32(struct cursor *c)
{
	uint64_t v = get_varint(c);

	if (v > UINT32_MAX)
		c->bad = 1;
	return (uint32_t)v;
}

void prf_compact_buffers_free(struct prf_compact_buffers *b)
{
	free(b->records);
	free(b->refs);
	free(b->nodes);
	free(b->frames);
	free(b->samples);
	memset(b, 0, sizeof(*b));
}

/* ---- the stack table ------------------------------------------------- */

static int read_stacks(const uint8_t *record, size_t size, struct prf_compact_buffers *b,
		       uint32_t *count, struct prf_error *error)
{
	static const char malformed[] = "stack table is malformed";
	struct prf_stacks_record head;
	struct cursor frames, parents, indexes;
	uint64_t total, address = 0;
	const uint8_t *at;

	if (size < sizeof(head))
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	memcpy(&head, record, sizeof(head));
	total = (uint64_t)head.frames_size + head.parents_size + head.indexes_size;
	if (total > size - sizeof(head))
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	/* A varint takes a byte or more: this bounds the allocations. */
	if (head.frame_count > head.frames_size || head.count > head.parents_size ||
	    head.count > head.indexes_size)
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	if (prf_ensure_mem((void **)&b->nodes, &b->nodes_capacity, sizeof(*b->nodes),
			   (size_t)head.count + 1) < 0 ||
	    prf_ensure_mem((void **)&b->frames, &b->frames_capacity, sizeof(*b->frames),
			   (size_t)head.frame_count + 1) < 0)
		return -ENOMEM;
	at = record + sizeof(head);
	frames = (struct cursor){ at, at + head.frames_size, 0 };
	at += head.frames_size;
	parents = (struct cursor){ at, at + head.parents_size, 0 };
	at += head.parents_size;
	indexes = (struct cursor){ at, at + head.indexes_size, 0 };
	for (uint32_t i = 0; i < head.frame_count; i++) {
		uint64_t delta = get_varint(&frames);

		/* Ascending, so the same address is never there twice. */
		if (i && (!delta || address + delta < address))
			frames.bad = 1;
		address += delta;
		b->frames[i] = address;
	}
	if (frames.bad || frames.p != frames.end)
		return prf_set_error(error, -EBADMSG, "stack table's addresses are malformed");
	b->nodes[0] = (struct prf_compact_node){ .hash = 0 };
	for (uint32_t n = 1; n <= head.count; n++) {
		uint64_t back = get_varint(&parents);
		uint64_t index = get_varint(&indexes);
		struct prf_compact_node *node = &b->nodes[n];
		const struct prf_compact_node *parent;

		if (parents.bad || indexes.bad)
			return prf_set_error(error, -EBADMSG, "stack table runs past its record");
		if (back >= n)
			return prf_set_error(error, -EBADMSG, "a stack names a stack after it");
		if (index >= head.frame_count)
			return prf_set_error(error, -EBADMSG,
					     "a stack names an address the table does not have");
		node->parent = back ? n - (uint32_t)back : 0;
		parent = &b->nodes[node->parent];
		node->depth = parent->depth + 1;
		if (node->depth > PRF_CALLCHAIN_MAX)
			return prf_set_error(error, -EBADMSG, "a stack is deeper than a sample can be");
		node->frame = b->frames[index];
		node->hash = prf_stack_hash_step(node->parent ? parent->hash : PRF_STACK_HASH_ROOT,
						 node->frame);
		if (node->frame < PERF_CONTEXT_MAX) {
			node->first_address = node->frame;
			node->has_address = 1;
		} else {
			node->first_address = parent->first_address;
			node->has_address = node->parent && parent->has_address;
		}
	}
	if (parents.p != parents.end || indexes.p != indexes.end)
		return prf_set_error(error, -EBADMSG, "stack table has bytes past its last entry");
	*count = head.count;
	return 0;
}

/* ---- samples ----------------------------------------------------------- */

struct sample_state {
	const struct prf_event *event;
	uint64_t type;
	uint64_t identifier, id, stream_id;
	uint16_t misc;
	uint32_t pid, tid, cpu, res;
	uint64_t period, addr, ip, time;
	int clock;			/* prf_event_is_clock(&event->attr) */
	struct prf_cpu_times *times;	/* COMPACT_SAMPLES_BY_CPU; else NULL */
};

struct output {
	struct prf_compact_buffers *b;
	size_t used;			/* bytes of records */
	size_t expanded;		/* bytes the chunk's records take expanded */
	size_t count;			/* records, and refs */
	int keep;			/* compact samples kept as samples */
	size_t sample_count;
};

/* Room for a record of bytes; with write 0, only the chunk's limit checked. */
static int output_room(struct output *o, size_t bytes, int write, struct prf_error *error)
{
	if (bytes > PRF_CHUNK_RAW_MAX - o->expanded)
		return prf_set_error(error, -EBADMSG, "compact samples expand past the chunk limit");
	if (!write)
		return 0;
	if (prf_ensure_mem((void **)&o->b->records, &o->b->records_capacity, 1,
			   o->used + bytes) < 0 ||
	    prf_ensure_mem((void **)&o->b->refs, &o->b->refs_capacity, sizeof(*o->b->refs),
			   o->count + 1) < 0)
		return -ENOMEM;
	return 0;
}

static int output_reserve(struct output *o, size_t bytes, struct prf_error *error)
{
	return output_room(o, bytes, 1, error);
}

/* A record of size bytes written at o->b->records + o->used. */
static void output_wrote(struct output *o, size_t size, struct prf_stack_ref ref)
{
	o->b->refs[o->count++] = ref;
	o->used += size;
	o->expanded += size;
}

static void put_u64(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void put_pair(uint8_t **p, uint32_t a, uint32_t b)
{
	memcpy(*p, &a, 4);
	memcpy(*p + 4, &b, 4);
	*p += 8;
}

static int expand_verbatim(struct cursor *fields, struct cursor *tails, struct output *o,
			   struct prf_error *error)
{
	static const char malformed[] = "a whole sample in compact samples is malformed";
	uint64_t size = get_varint(fields);
	struct perf_event_header header;
	int ret;

	if (fields->bad || size < sizeof(header) || size % 8 || size > UINT16_MAX ||
	    size > (uint64_t)(tails->end - tails->p))
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	memcpy(&header, tails->p, sizeof(header));
	if (header.type != PERF_RECORD_SAMPLE || header.size != size)
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	ret = output_reserve(o, (size_t)size, error);
	if (ret < 0)
		return ret;
	memcpy(o->b->records + o->used, tails->p, (size_t)size);
	tails->p += size;
	output_wrote(o, (size_t)size, (struct prf_stack_ref){ 0 });
	return 0;
}

/* The fields of a sample that changed, into the state. */
static int read_fields(const struct prf_reader *reader, uint8_t flags, struct cursor *f,
		       struct sample_state *s, struct prf_error *error)
{
	if (flags & PRF_COMPACT_EVENT) {
		s->event = prf_reader_event_at(reader, get_varint(f));
		if (!s->event)
			return prf_set_error(error, -EBADMSG,
					     "a compact sample names no event of the file");
		s->type = s->event->attr.sample_type;
		s->clock = prf_event_is_clock(&s->event->attr);
		if (s->type & PERF_SAMPLE_READ)
			return prf_set_error(error, -EBADMSG,
					     "a compact sample of an event that reads counters");
		s->identifier = s->type & PERF_SAMPLE_IDENTIFIER ? get_varint(f) : 0;
		s->id = s->type & PERF_SAMPLE_ID ? get_varint(f) : 0;
		s->stream_id = s->type & PERF_SAMPLE_STREAM_ID ? get_varint(f) : 0;
	} else if (!s->event) {
		return prf_set_error(error, -EBADMSG, "the first compact sample names no event");
	}
	if (flags & PRF_COMPACT_MISC) {
		uint64_t misc = get_varint(f);

		if (misc > UINT16_MAX)
			f->bad = 1;
		s->misc = (uint16_t)misc;
	}
	if ((flags & PRF_COMPACT_TID) && (s->type & PERF_SAMPLE_TID)) {
		s->pid = get_u32(f);
		s->tid = get_u32(f);
	}
	if ((flags & PRF_COMPACT_CPU) && (s->type & PERF_SAMPLE_CPU)) {
		s->cpu = get_u32(f);
		s->res = get_u32(f);
	}
	if ((flags & PRF_COMPACT_PERIOD) && (s->type & PERF_SAMPLE_PERIOD))
		s->period = get_varint(f);
	if ((flags & PRF_COMPACT_ADDR) && (s->type & PERF_SAMPLE_ADDR))
		s->addr = get_varint(f);
	if (f->bad)
		return prf_set_error(error, -EBADMSG, "compact sample fields run past their column");
	return 0;
}

/* A sample's record: header, head fields, callchain of depth words, tail. */
static size_t record_size(uint64_t type, uint32_t depth, size_t tail)
{
	return sizeof(struct perf_event_header) +
	       8 * (size_t)__builtin_popcountll(type & PRF_COMPACT_HEAD_FIELDS) +
	       (type & PERF_SAMPLE_CALLCHAIN ? 8 + 8 * (size_t)depth : 0) + tail;
}

/* The kernel's PERF_RECORD_SAMPLE of s, size bytes (record_size()'s) at p. */
static void put_record(uint8_t *p, const struct prf_compact_sample *s,
		       const struct prf_compact_node *nodes, size_t size)
{
	uint64_t type = s->event->attr.sample_type;

	memcpy(p, &(struct perf_event_header){ PERF_RECORD_SAMPLE, s->misc, (uint16_t)size },
	       sizeof(struct perf_event_header));
	p += sizeof(struct perf_event_header);
	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(&p, s->identifier);
	if (type & PERF_SAMPLE_IP)
		put_u64(&p, s->ip);
	if (type & PERF_SAMPLE_TID)
		put_pair(&p, s->pid, s->tid);
	if (type & PERF_SAMPLE_TIME)
		put_u64(&p, s->time);
	if (type & PERF_SAMPLE_ADDR)
		put_u64(&p, s->addr);
	if (type & PERF_SAMPLE_ID)
		put_u64(&p, s->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		put_u64(&p, s->stream_id);
	if (type & PERF_SAMPLE_CPU)
		put_pair(&p, s->cpu, s->res);
	if (type & PERF_SAMPLE_PERIOD)
		put_u64(&p, s->period);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		put_u64(&p, nodes[s->stack].depth);
		for (uint32_t n = s->stack; n; n = nodes[n].parent)
			put_u64(&p, nodes[n].frame);
	}
	memcpy(p, s->tail, s->tail_size);
}

size_t prf_compact_sample_record(const struct prf_chunk *chunk,
				 const struct prf_compact_sample *s, void *out)
{
	uint64_t type = s->event->attr.sample_type;
	size_t size = record_size(type, type & PERF_SAMPLE_CALLCHAIN ?
					chunk->nodes[s->stack].depth : 0, s->tail_size);

	put_record(out, s, chunk->nodes, size);
	return size;
}

uint64_t prf_compact_stack_hash(const struct prf_chunk *chunk, uint32_t stack)
{
	return stack ? chunk->nodes[stack].hash : 0;
}

static int expand_sample(const struct prf_reader *reader, uint8_t flags,
			 struct cursor columns[], const struct prf_compact_buffers *b,
			 uint32_t stack_count, struct sample_state *s, struct output *o,
			 struct prf_error *error)
{
	struct cursor *fields = &columns[PRF_COLUMN_FIELDS];
	const struct prf_compact_node *node;
	struct prf_compact_sample sample;
	uint64_t stack = 0, tail = 0, predicted;
	size_t size;
	int ret;

	ret = read_fields(reader, flags, fields, s, error);
	if (ret < 0)
		return ret;
	if (s->type & PERF_SAMPLE_CALLCHAIN) {
		stack = get_varint(&columns[PRF_COLUMN_STACKS]);
		if (columns[PRF_COLUMN_STACKS].bad || stack > stack_count)
			return prf_set_error(error, -EBADMSG,
					     "a compact sample names a stack the chunk does not have");
	}
	node = &b->nodes[stack];
	predicted = node->has_address ? node->first_address : s->ip;
	if (s->type & PERF_SAMPLE_IP)
		s->ip = flags & PRF_COMPACT_IP ? predicted + prf_unzigzag(get_varint(fields)) :
						 predicted;
	if (s->type & ~(PRF_COMPACT_HEAD_FIELDS | PERF_SAMPLE_CALLCHAIN))
		tail = get_varint(fields);
	if (s->type & PERF_SAMPLE_TIME) {
		uint64_t delta = prf_unzigzag(get_varint(&columns[PRF_COLUMN_TIMES]));

		if (s->times) {
			/* As the writer saw them: 0 for the fields the event lacks. */
			uint32_t cpu = s->type & PERF_SAMPLE_CPU ? s->cpu : 0;
			uint64_t step = s->clock && (s->type & PERF_SAMPLE_PERIOD) ? s->period : 0;

			s->time = prf_cpu_times_predict(s->times, cpu, step) + delta;
			prf_cpu_times_note(s->times, cpu, s->time);
		} else {
			s->time += delta;
		}
		if (columns[PRF_COLUMN_TIMES].bad)
			fields->bad = 1;
	}
	size = record_size(s->type, node->depth, 0);
	if (fields->bad || tail % 8 || tail > (uint64_t)(columns[PRF_COLUMN_TAILS].end -
							 columns[PRF_COLUMN_TAILS].p) ||
	    size + tail > UINT16_MAX)
		return prf_set_error(error, -EBADMSG, "a compact sample is malformed");
	size += (size_t)tail;
	/*
	 * The state keeps what an earlier sample of another event gave: a
	 * field this one's event lacks is 0 here, as decoding its record
	 * gives it.
	 */
	sample = (struct prf_compact_sample){
		.event = s->event,
		.identifier = s->type & PERF_SAMPLE_IDENTIFIER ? s->identifier : 0,
		.id = s->type & PERF_SAMPLE_ID ? s->id : 0,
		.stream_id = s->type & PERF_SAMPLE_STREAM_ID ? s->stream_id : 0,
		.ip = s->type & PERF_SAMPLE_IP ? s->ip : 0,
		.time = s->type & PERF_SAMPLE_TIME ? s->time : 0,
		.addr = s->type & PERF_SAMPLE_ADDR ? s->addr : 0,
		.period = s->type & PERF_SAMPLE_PERIOD ? s->period : 0,
		.pid = s->type & PERF_SAMPLE_TID ? s->pid : 0,
		.tid = s->type & PERF_SAMPLE_TID ? s->tid : 0,
		.cpu = s->type & PERF_SAMPLE_CPU ? s->cpu : 0,
		.res = s->type & PERF_SAMPLE_CPU ? s->res : 0,
		.stack = (uint32_t)stack, .misc = s->misc, .tail_size = (uint16_t)tail,
		.tail = columns[PRF_COLUMN_TAILS].p,
	};
	columns[PRF_COLUMN_TAILS].p += tail;
	ret = output_room(o, size, !o->keep, error);
	if (ret < 0)
		return ret;
	if (o->keep) {
		/* Kept samples take no more memory than the chunk's records would. */
		if (o->sample_count >= PRF_CHUNK_RAW_MAX / sizeof(*o->b->samples))
			return -E2BIG;
		if (prf_ensure_mem((void **)&o->b->samples, &o->b->samples_capacity,
				   sizeof(*o->b->samples), o->sample_count + 1) < 0)
			return -ENOMEM;
		o->b->samples[o->sample_count++] = sample;
		o->expanded += size;
		return 0;
	}
	put_record(o->b->records + o->used, &sample, b->nodes, size);
	output_wrote(o, size, (struct prf_stack_ref){
		.id = (uint32_t)stack,
		.hash = stack ? node->hash : 0,
	});
	return 0;
}

/*
 * What count samples will take expanded: the kernel's fixed fields, the
 * table's average callchain and the tails; capped by the chunk limit,
 * which output_reserve() enforces anyway.
 */
static int reserve_estimate(struct output *o, uint32_t count, uint32_t tails,
			    uint32_t stack_count, struct prf_error *error)
{
	uint64_t words = 0, bytes;

	for (uint32_t i = 1; i <= stack_count; i++)
		words += o->b->nodes[i].depth;
	bytes = (uint64_t)count * (96 + 8 * (stack_count ? words / stack_count : 0)) + tails;
	if (bytes > PRF_CHUNK_RAW_MAX - o->expanded)
		bytes = PRF_CHUNK_RAW_MAX - o->expanded;
	/* A sample takes 16 bytes or more: no more refs than bytes allow. */
	if (count > bytes / 16)
		count = (uint32_t)(bytes / 16);
	if (o->keep) {
		if (count > PRF_CHUNK_RAW_MAX / sizeof(*o->b->samples) - o->sample_count)
			count = (uint32_t)(PRF_CHUNK_RAW_MAX / sizeof(*o->b->samples) -
					   o->sample_count);
		return prf_ensure_mem((void **)&o->b->samples, &o->b->samples_capacity,
				      sizeof(*o->b->samples), o->sample_count + count);
	}
	if (prf_ensure_mem((void **)&o->b->refs, &o->b->refs_capacity, sizeof(*o->b->refs),
			   o->count + count) < 0)
		return -ENOMEM;
	return output_reserve(o, (size_t)bytes, error);
}

static int expand_samples(const struct prf_reader *reader, const uint8_t *record, size_t size,
			  uint32_t stack_count, struct output *o, struct prf_error *error)
{
	static const char malformed[] = "compact samples are malformed";
	struct prf_compact_samples_record head;
	struct cursor columns[PRF_COLUMN_COUNT];
	struct sample_state state = { 0 };
	struct prf_cpu_times times;
	const uint8_t *at;
	uint64_t total = 0;
	int ret;

	if (size < sizeof(head))
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	memcpy(&head, record, sizeof(head));
	if (head.header.type == PRF_RECORD_COMPACT_SAMPLES_BY_CPU) {
		prf_cpu_times_reset(&times);
		state.times = &times;
	}
	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++)
		total += head.column_size[i];
	if (total > size - sizeof(head) || head.count != head.column_size[PRF_COLUMN_FLAGS])
		return prf_set_error(error, -EBADMSG, "%s", malformed);
	at = record + sizeof(head);
	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++) {
		columns[i] = (struct cursor){ at, at + head.column_size[i], 0 };
		at += head.column_size[i];
	}
	/* Room for about all of them at once, rather than doubling from nothing. */
	ret = reserve_estimate(o, head.count, head.column_size[PRF_COLUMN_TAILS], stack_count,
			       error);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < head.count; i++) {
		uint8_t flags = *columns[PRF_COLUMN_FLAGS].p++;

		if (flags == PRF_COMPACT_VERBATIM)
			ret = expand_verbatim(&columns[PRF_COLUMN_FIELDS], &columns[PRF_COLUMN_TAILS],
					      o, error);
		else if (flags & PRF_COMPACT_VERBATIM)
			ret = prf_set_error(error, -EBADMSG, "%s", malformed);
		else
			ret = expand_sample(reader, flags, columns, o->b, stack_count, &state, o,
					    error);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++)
		if (columns[i].p != columns[i].end)
			return prf_set_error(error, -EBADMSG,
					     "compact samples have bytes past their last sample");
	return 0;
}

/* ---- a chunk ----------------------------------------------------------- */

static const uint8_t no_records[8] __attribute__((aligned(8)));

static int is_compact(uint32_t type)
{
	return type >= PRF_RECORD_BASE + 0x100 && type <= PRF_RECORD_BASE + 0x1ff;
}

static int expand_chunk(const struct prf_reader *reader, const uint8_t *payload, size_t size,
			struct prf_compact_buffers *b, struct prf_chunk *out, int keep,
			struct prf_error *error);

/*
 * Kept where the reader asks, unless that would take more memory than
 * expanding (PRF_CHUNK_RAW_MAX): then the chunk is expanded after all.
 */
int prf_compact_expand(const struct prf_reader *reader, const uint8_t *payload, size_t size,
		       struct prf_compact_buffers *b, struct prf_chunk *out, struct prf_error *error)
{
	int ret = expand_chunk(reader, payload, size, b, out, prf_reader_keeps_compact(reader),
			       error);

	if (ret != -E2BIG)
		return ret;
	/* Not both at once: the kept samples' room goes before the records take theirs. */
	free(b->samples);
	b->samples = NULL;
	b->samples_capacity = 0;
	return expand_chunk(reader, payload, size, b, out, 0, error);
}

static int expand_chunk(const struct prf_reader *reader, const uint8_t *payload, size_t size,
			struct prf_compact_buffers *b, struct prf_chunk *out, int keep,
			struct prf_error *error)
{
	struct output o = { .b = b, .keep = keep };
	uint32_t stack_count = 0, stacks_defined = 0;
	int found = 0, have_table = 0;
	size_t position = 0;
	int ret;

	/* The framing was checked: every record is whole. */
	for (position = 0; position < size && !found;) {
		uint32_t type;
		size_t record_size = 8;

		memcpy(&type, payload + position, 4);
		found = is_compact(type);
		prf_record_size(payload + position, size - position, &record_size);
		position += record_size;
	}
	if (!found)
		return 0;
	if (prf_ensure_mem((void **)&b->nodes, &b->nodes_capacity, sizeof(*b->nodes), 1) < 0)
		return -ENOMEM;
	b->nodes[0] = (struct prf_compact_node){ 0 };
	for (position = 0; position < size;) {
		const uint8_t *record = payload + position;
		size_t record_size = 8;
		uint32_t type;

		memcpy(&type, record, 4);
		prf_record_size(record, size - position, &record_size);
		position += record_size;
		if (type == PRF_RECORD_STACKS) {
			/* One table a chunk: a second would renumber the stacks. */
			if (have_table)
				return prf_set_error(error, -EBADMSG, "a second stack table in a chunk");
			have_table = 1;
			ret = read_stacks(record, record_size, b, &stack_count, error);
			if (ret < 0)
				return ret;
			stacks_defined = stack_count;
		} else if (type == PRF_RECORD_COMPACT_SAMPLES ||
			   type == PRF_RECORD_COMPACT_SAMPLES_BY_CPU) {
			ret = expand_samples(reader, record, record_size, stack_count, &o, error);
			if (ret < 0)
				return ret;
		} else if (!is_compact(type)) {
			/* Another record (none today): kept where it was. */
			ret = output_reserve(&o, record_size, error);
			if (ret < 0)
				return ret;
			memcpy(b->records + o.used, record, record_size);
			output_wrote(&o, record_size, (struct prf_stack_ref){ 0 });
		}
		/* A compact record type of a later minor: skipped. */
	}
	if (o.count > UINT32_MAX)
		return prf_set_error(error, -EBADMSG, "too many records");
	out->data = o.used ? b->records : no_records;
	out->size = o.used;
	out->record_count = (uint32_t)o.count;
	out->stacks = b->refs;
	out->stack_count = stacks_defined;
	out->compact = o.sample_count ? b->samples : NULL;
	out->compact_count = o.sample_count;
	out->nodes = b->nodes;
	return 1;
}
