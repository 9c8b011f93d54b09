/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compact samples, the writing half (perfrec-format(5), "Compact
 * samples").  Most of what a kernel sample carries repeats: its
 * callchain, pid, CPU, event.  Each chunk interns its callchains into a
 * tree of frames (a stack names its first frame and the stack of its
 * callers) and writes each sample as a few varints in columns, so that
 * zstd sees far fewer bytes and like bytes side by side.  The tables
 * start empty in every chunk: a chunk never needs another to be read.
 *
 * This runs for every sample the collector writes, so the common case,
 * a callchain seen before in this chunk, is one hash over its words and
 * one probe of an open-addressing table; nothing is allocated per sample.
 */
#include <errno.h>
#include "internal.h"

struct node {
	uint64_t hash;			/* of the whole callchain from here */
	uint64_t frame;
	uint32_t parent;		/* 0: none */
	uint32_t depth;			/* frames from here to the root */
	uint32_t frame_number;		/* in the chunk's frames, 1.. */
	uint32_t reserved;
};

/* An address of the chunk's frames, and its number before sorting. */
struct frame {
	uint64_t address;
	uint32_t number;
	uint32_t rank;
};

struct buffer {
	uint8_t *data;
	size_t used, capacity;
};

struct event_slot {
	uint64_t id;
	uint32_t index;
};

struct prf_compact_writer {
	/* the file's events: their layouts and who owns which id */
	uint64_t *sample_types;
	uint8_t *clocks;		/* prf_event_is_clock() of each */
	size_t event_count;
	struct event_slot *ids;		/* sorted by id */
	size_t id_count;
	int by_identifier;		/* several events, told apart by IDENTIFIER */

	struct node *nodes;		/* 1..node_count; [0] unused */
	size_t node_count, node_capacity;
	uint32_t *slots;		/* node numbers, 0: empty */
	size_t slot_mask;
	uint64_t *hashes;		/* of each suffix of the callchain at hand */

	struct frame *frames;		/* 1..frame_count, in order of appearance */
	struct frame *sorted;		/* the same, by address, at emit time */
	uint32_t *rank;			/* a frame number's place in sorted */
	size_t frame_count, frames_capacity, sorted_capacity, rank_capacity;
	uint32_t *frame_slots;		/* frame numbers, 0: empty */
	size_t frame_slot_mask;
	size_t parents_size;		/* bytes the parents part will take */
	struct buffer columns[PRF_COLUMN_COUNT];
	uint32_t count;
	size_t expanded;

	/* the sample before, which the next is written against */
	uint32_t event;			/* UINT32_MAX: none yet */
	uint64_t identifier, id, stream_id;
	uint16_t misc;
	uint32_t pid, tid, cpu, res;
	uint64_t period, addr, ip;
	struct prf_cpu_times times;
};

#define SLOTS_INITIAL	4096

static int buffer_reserve(struct buffer *b, size_t more)
{
	return prf_ensure_mem((void **)&b->data, &b->capacity, 1, b->used + more);
}

/* Room reserved beforehand. */
static void put_varint(struct buffer *b, uint64_t v)
{
	b->used = (size_t)(prf_varint_put(b->data + b->used, v) - b->data);
}

static int compare_slots(const void *a, const void *b)
{
	const struct event_slot *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int prf_compact_writer_new(struct prf_compact_writer **out, const struct prf_file_info *info)
{
	struct prf_compact_writer *cw = calloc(1, sizeof(*cw));
	size_t ids = 0;

	*out = NULL;
	if (!cw)
		return -ENOMEM;
	cw->event_count = info->event_count;
	for (size_t i = 0; i < info->event_count; i++)
		ids += info->events[i].id_count;
	cw->sample_types = calloc(info->event_count + 1, sizeof(*cw->sample_types));
	cw->clocks = calloc(info->event_count + 1, 1);
	cw->ids = calloc(ids + 1, sizeof(*cw->ids));
	cw->slots = calloc(SLOTS_INITIAL, sizeof(*cw->slots));
	cw->frame_slots = calloc(SLOTS_INITIAL, sizeof(*cw->frame_slots));
	cw->hashes = calloc(PRF_CALLCHAIN_MAX + 1, sizeof(*cw->hashes));
	if (!cw->sample_types || !cw->clocks || !cw->ids || !cw->slots || !cw->frame_slots ||
	    !cw->hashes) {
		prf_compact_writer_free(cw);
		return -ENOMEM;
	}
	cw->slot_mask = SLOTS_INITIAL - 1;
	cw->frame_slot_mask = SLOTS_INITIAL - 1;
	for (size_t i = 0; i < info->event_count; i++) {
		const struct prf_event *ev = &info->events[i];

		cw->sample_types[i] = ev->attr.sample_type;
		cw->clocks[i] = (uint8_t)prf_event_is_clock(&ev->attr);
		for (uint32_t k = 0; k < ev->id_count; k++)
			cw->ids[cw->id_count++] = (struct event_slot){ ev->ids[k], (uint32_t)i };
	}
	qsort(cw->ids, cw->id_count, sizeof(*cw->ids), compare_slots);
	/* The reader's rule (prf_reader_event_for()): only IDENTIFIER is found blind. */
	cw->by_identifier = info->event_count > 1 &&
			    (cw->sample_types[0] & PERF_SAMPLE_IDENTIFIER);
	prf_compact_writer_reset(cw);
	*out = cw;
	return 0;
}

void prf_compact_writer_free(struct prf_compact_writer *cw)
{
	if (!cw)
		return;
	free(cw->sample_types);
	free(cw->clocks);
	free(cw->ids);
	free(cw->nodes);
	free(cw->slots);
	free(cw->frame_slots);
	free(cw->frames);
	free(cw->sorted);
	free(cw->rank);
	free(cw->hashes);
	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++)
		free(cw->columns[i].data);
	free(cw);
}

void prf_compact_writer_reset(struct prf_compact_writer *cw)
{
	memset(cw->slots, 0, (cw->slot_mask + 1) * sizeof(*cw->slots));
	memset(cw->frame_slots, 0, (cw->frame_slot_mask + 1) * sizeof(*cw->frame_slots));
	cw->node_count = 0;
	cw->frame_count = 0;
	cw->parents_size = 0;
	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++)
		cw->columns[i].used = 0;
	cw->count = 0;
	cw->expanded = 0;
	cw->event = UINT32_MAX;
	cw->identifier = cw->id = cw->stream_id = 0;
	cw->misc = 0;
	cw->pid = cw->tid = cw->cpu = cw->res = 0;
	cw->period = cw->addr = cw->ip = 0;
	prf_cpu_times_reset(&cw->times);
}

/* ---- the stack table ------------------------------------------------ */

/*
 * Open addressing of its own, over node numbers, rather than struct
 * prf_index: this runs for every sample on perfrecd's drain thread, and
 * the index (twice the bytes a slot, a call to reserve each insertion)
 * measured slower here.
 */

static int chain_matches(const struct prf_compact_writer *cw, uint32_t n,
			 const uint64_t *chain, size_t length)
{
	for (size_t i = 0; i < length; i++, n = cw->nodes[n].parent)
		if (!n || cw->nodes[n].frame != chain[i])
			return 0;
	return 1;
}

static uint32_t lookup(const struct prf_compact_writer *cw, uint64_t hash,
		       const uint64_t *chain, size_t length)
{
	for (size_t slot = hash & cw->slot_mask;; slot = (slot + 1) & cw->slot_mask) {
		uint32_t n = cw->slots[slot];

		if (!n)
			return 0;
		if (cw->nodes[n].hash == hash && cw->nodes[n].depth == length &&
		    chain_matches(cw, n, chain, length))
			return n;
	}
}

static void insert_slot(struct prf_compact_writer *cw, uint32_t n)
{
	size_t slot = cw->nodes[n].hash & cw->slot_mask;

	while (cw->slots[slot])
		slot = (slot + 1) & cw->slot_mask;
	cw->slots[slot] = n;
}

static int grow_slots(uint32_t **slots, size_t *mask, size_t need)
{
	size_t count = *mask + 1;
	uint32_t *grown;

	if (2 * need <= count)
		return 0;
	while (2 * need > count)
		count *= 2;
	grown = calloc(count, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	free(*slots);
	*slots = grown;
	*mask = count - 1;
	return 1;
}

static void insert_frame_slot(struct prf_compact_writer *cw, uint32_t f)
{
	size_t slot = prf_stack_hash_step(0, cw->frames[f].address) & cw->frame_slot_mask;

	while (cw->frame_slots[slot])
		slot = (slot + 1) & cw->frame_slot_mask;
	cw->frame_slots[slot] = f;
}

/* Room for more nodes and as many new frames; tables at most half full. */
static int make_room(struct prf_compact_writer *cw, size_t more)
{
	size_t need = cw->node_count + more + 1;
	size_t frames = cw->frame_count + more + 1;
	int ret;

	if (prf_ensure_mem((void **)&cw->nodes, &cw->node_capacity, sizeof(*cw->nodes),
			   need) < 0)
		return -ENOMEM;
	/* The frames' arrays grow together, rank last: room in it is room in all. */
	if (frames > cw->rank_capacity &&
	    (prf_ensure_mem((void **)&cw->frames, &cw->frames_capacity, sizeof(*cw->frames),
			    frames) < 0 ||
	     prf_ensure_mem((void **)&cw->sorted, &cw->sorted_capacity, sizeof(*cw->sorted),
			    frames) < 0 ||
	     prf_ensure_mem((void **)&cw->rank, &cw->rank_capacity, sizeof(*cw->rank),
			    frames) < 0))
		return -ENOMEM;
	ret = grow_slots(&cw->slots, &cw->slot_mask, need);
	if (ret < 0)
		return ret;
	if (ret)
		for (uint32_t n = 1; n <= cw->node_count; n++)
			insert_slot(cw, n);
	ret = grow_slots(&cw->frame_slots, &cw->frame_slot_mask, frames);
	if (ret < 0)
		return ret;
	if (ret)
		for (uint32_t f = 1; f <= cw->frame_count; f++)
			insert_frame_slot(cw, f);
	return 0;
}

/* The number of address in the chunk's frames, added if new; room made. */
static uint32_t frame_number(struct prf_compact_writer *cw, uint64_t address)
{
	size_t slot = prf_stack_hash_step(0, address) & cw->frame_slot_mask;
	uint32_t f;

	for (; (f = cw->frame_slots[slot]); slot = (slot + 1) & cw->frame_slot_mask)
		if (cw->frames[f].address == address)
			return f;
	f = (uint32_t)++cw->frame_count;
	cw->frames[f] = (struct frame){ .address = address, .number = f };
	cw->frame_slots[slot] = f;
	return f;
}

/* The stack number of chain (0 for an empty one), interned if new. */
static int intern(struct prf_compact_writer *cw, const uint64_t *chain, size_t length,
		  uint32_t *out)
{
	uint64_t *hashes = cw->hashes;
	uint32_t parent = 0;
	size_t k;

	*out = 0;
	if (!length)
		return 0;
	hashes[length] = PRF_STACK_HASH_ROOT;
	for (size_t i = length; i-- > 0;)
		hashes[i] = prf_stack_hash_step(hashes[i + 1], chain[i]);
	*out = lookup(cw, hashes[0], chain, length);
	if (*out)
		return 0;
	/* New: below the longest run of callers already known. */
	for (k = 1; k < length; k++) {
		parent = lookup(cw, hashes[k], chain + k, length - k);
		if (parent)
			break;
	}
	if (make_room(cw, k) < 0)
		return -ENOMEM;
	while (k-- > 0) {
		uint32_t n = (uint32_t)++cw->node_count;

		cw->nodes[n] = (struct node){
			.hash = hashes[k],
			.frame = chain[k],
			.parent = parent,
			.depth = (uint32_t)(length - k),
			.frame_number = frame_number(cw, chain[k]),
		};
		insert_slot(cw, n);
		cw->parents_size += prf_varint_size(parent ? n - parent : 0);
		parent = n;
	}
	*out = parent;
	return 0;
}

/* ---- samples -------------------------------------------------------- */

/* Which of the file's events a sample is, as a reader will find it. */
static int event_of(const struct prf_compact_writer *cw, const uint8_t *record, size_t size,
		    uint32_t *index)
{
	size_t lo = 0, hi = cw->id_count;
	uint64_t id;

	if (cw->event_count == 1) {
		*index = 0;
		return 0;
	}
	if (!cw->by_identifier || size < 16)
		return -1;
	memcpy(&id, record + 8, 8);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cw->ids[mid].id == id) {
			*index = cw->ids[mid].index;
			return 0;
		}
		if (cw->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct parsed {
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu, res;
	const uint64_t *chain;
	size_t chain_length;
	const uint8_t *tail;
	size_t tail_size;
};

static uint64_t take_u64(const uint8_t *record, size_t *at)
{
	uint64_t v;

	memcpy(&v, record + *at, 8);
	*at += 8;
	return v;
}

static void take_pair(const uint8_t *record, size_t *at, uint32_t *a, uint32_t *b)
{
	memcpy(a, record + *at, 4);
	memcpy(b, record + *at + 4, 4);
	*at += 8;
}

/* The fields of a sample laid out by sample_type; -1 when it is not that. */
static int parse(uint64_t type, const uint8_t *record, size_t size, struct parsed *p)
{
	size_t at = sizeof(struct perf_event_header);
	size_t fixed = 8 * (size_t)__builtin_popcountll(type & PRF_COMPACT_HEAD_FIELDS);
	uint64_t nr = 0;

	memset(p, 0, sizeof(*p));
	if (type & PERF_SAMPLE_READ)
		return -1;	/* between the fields and the callchain: kept whole */
	if (size < at + fixed)
		return -1;
	if (type & PERF_SAMPLE_IDENTIFIER)
		p->identifier = take_u64(record, &at);
	if (type & PERF_SAMPLE_IP)
		p->ip = take_u64(record, &at);
	if (type & PERF_SAMPLE_TID)
		take_pair(record, &at, &p->pid, &p->tid);
	if (type & PERF_SAMPLE_TIME)
		p->time = take_u64(record, &at);
	if (type & PERF_SAMPLE_ADDR)
		p->addr = take_u64(record, &at);
	if (type & PERF_SAMPLE_ID)
		p->id = take_u64(record, &at);
	if (type & PERF_SAMPLE_STREAM_ID)
		p->stream_id = take_u64(record, &at);
	if (type & PERF_SAMPLE_CPU)
		take_pair(record, &at, &p->cpu, &p->res);
	if (type & PERF_SAMPLE_PERIOD)
		p->period = take_u64(record, &at);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (size - at < 8)
			return -1;
		nr = take_u64(record, &at);
		if (nr > PRF_CALLCHAIN_MAX || nr * 8 > size - at)
			return -1;
		p->chain = (const uint64_t *)(record + at);
		p->chain_length = (size_t)nr;
		at += (size_t)nr * 8;
	}
	p->tail = record + at;
	p->tail_size = size - at;
	/* Nothing after the callchain: a tail is then damage, kept whole. */
	if (p->tail_size && !(type & ~(PRF_COMPACT_HEAD_FIELDS | PERF_SAMPLE_CALLCHAIN)))
		return -1;
	return 0;
}

/* The first address of a callchain, past its context markers. */
static uint64_t first_address(const struct node *nodes, uint32_t n, uint64_t otherwise)
{
	for (; n; n = nodes[n].parent)
		if (nodes[n].frame < PERF_CONTEXT_MAX)
			return nodes[n].frame;
	return otherwise;
}

static int add_verbatim(struct prf_compact_writer *cw, const void *record, size_t size)
{
	if (buffer_reserve(&cw->columns[PRF_COLUMN_FLAGS], 1) < 0 ||
	    buffer_reserve(&cw->columns[PRF_COLUMN_FIELDS], PRF_VARINT_MAX) < 0 ||
	    buffer_reserve(&cw->columns[PRF_COLUMN_TAILS], size) < 0)
		return -ENOMEM;
	cw->columns[PRF_COLUMN_FLAGS].data[cw->columns[PRF_COLUMN_FLAGS].used++] =
		PRF_COMPACT_VERBATIM;
	put_varint(&cw->columns[PRF_COLUMN_FIELDS], size);
	memcpy(cw->columns[PRF_COLUMN_TAILS].data + cw->columns[PRF_COLUMN_TAILS].used,
	       record, size);
	cw->columns[PRF_COLUMN_TAILS].used += size;
	cw->count++;
	cw->expanded += size;
	return 0;
}

int prf_compact_writer_add(struct prf_compact_writer *cw, const void *record, size_t size)
{
	const uint8_t *bytes = record;
	struct buffer *fields = &cw->columns[PRF_COLUMN_FIELDS];
	struct parsed p;
	uint32_t event, stack = 0;
	uint64_t type, predicted;
	uint16_t misc;
	uint8_t flags = 0;

	if (event_of(cw, bytes, size, &event) < 0)
		return add_verbatim(cw, record, size);
	type = cw->sample_types[event];
	if (parse(type, bytes, size, &p) < 0)
		return add_verbatim(cw, record, size);
	/* Room first, so that a failure leaves the columns as they were. */
	if (buffer_reserve(&cw->columns[PRF_COLUMN_FLAGS], 1) < 0 ||
	    buffer_reserve(fields, 14 * PRF_VARINT_MAX) < 0 ||
	    buffer_reserve(&cw->columns[PRF_COLUMN_STACKS], PRF_VARINT_MAX) < 0 ||
	    buffer_reserve(&cw->columns[PRF_COLUMN_TIMES], PRF_VARINT_MAX) < 0 ||
	    buffer_reserve(&cw->columns[PRF_COLUMN_TAILS], p.tail_size) < 0)
		return -ENOMEM;
	if (intern(cw, p.chain, p.chain_length, &stack) < 0)
		return -ENOMEM;
	memcpy(&misc, bytes + 4, sizeof(misc));

	if (event != cw->event || p.identifier != cw->identifier || p.id != cw->id ||
	    p.stream_id != cw->stream_id) {
		flags |= PRF_COMPACT_EVENT;
		put_varint(fields, event);
		if (type & PERF_SAMPLE_IDENTIFIER)
			put_varint(fields, p.identifier);
		if (type & PERF_SAMPLE_ID)
			put_varint(fields, p.id);
		if (type & PERF_SAMPLE_STREAM_ID)
			put_varint(fields, p.stream_id);
		cw->event = event;
		cw->identifier = p.identifier;
		cw->id = p.id;
		cw->stream_id = p.stream_id;
	}
	if (misc != cw->misc) {
		flags |= PRF_COMPACT_MISC;
		put_varint(fields, misc);
		cw->misc = misc;
	}
	if ((type & PERF_SAMPLE_TID) && (p.pid != cw->pid || p.tid != cw->tid)) {
		flags |= PRF_COMPACT_TID;
		put_varint(fields, p.pid);
		put_varint(fields, p.tid);
		cw->pid = p.pid;
		cw->tid = p.tid;
	}
	if ((type & PERF_SAMPLE_CPU) && (p.cpu != cw->cpu || p.res != cw->res)) {
		flags |= PRF_COMPACT_CPU;
		put_varint(fields, p.cpu);
		put_varint(fields, p.res);
		cw->cpu = p.cpu;
		cw->res = p.res;
	}
	if ((type & PERF_SAMPLE_PERIOD) && p.period != cw->period) {
		flags |= PRF_COMPACT_PERIOD;
		put_varint(fields, p.period);
		cw->period = p.period;
	}
	if ((type & PERF_SAMPLE_ADDR) && p.addr != cw->addr) {
		flags |= PRF_COMPACT_ADDR;
		put_varint(fields, p.addr);
		cw->addr = p.addr;
	}
	predicted = first_address(cw->nodes, stack, cw->ip);
	if ((type & PERF_SAMPLE_IP) && p.ip != predicted) {
		flags |= PRF_COMPACT_IP;
		put_varint(fields, prf_zigzag(p.ip - predicted));
	}
	if (type & PERF_SAMPLE_IP)
		cw->ip = p.ip;
	if (type & ~(PRF_COMPACT_HEAD_FIELDS | PERF_SAMPLE_CALLCHAIN)) {
		struct buffer *tails = &cw->columns[PRF_COLUMN_TAILS];

		put_varint(fields, p.tail_size);
		memcpy(tails->data + tails->used, p.tail, p.tail_size);
		tails->used += p.tail_size;
	}
	if (type & PERF_SAMPLE_CALLCHAIN)
		put_varint(&cw->columns[PRF_COLUMN_STACKS], stack);
	if (type & PERF_SAMPLE_TIME) {
		uint64_t step = cw->clocks[event] ? p.period : 0;
		uint64_t predicted_time = prf_cpu_times_predict(&cw->times, p.cpu, step);

		put_varint(&cw->columns[PRF_COLUMN_TIMES], prf_zigzag(p.time - predicted_time));
		prf_cpu_times_note(&cw->times, p.cpu, p.time);
	}
	cw->columns[PRF_COLUMN_FLAGS].data[cw->columns[PRF_COLUMN_FLAGS].used++] = flags;
	cw->count++;
	cw->expanded += size;
	return 0;
}

/* ---- the records ------------------------------------------------------ */

static size_t columns_size(const struct prf_compact_writer *cw)
{
	size_t total = 0;

	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++)
		total += cw->columns[i].used;
	return total;
}

/* At most: the frames' and indexes' varints are known only when sorted. */
size_t prf_compact_writer_size(const struct prf_compact_writer *cw)
{
	size_t index_size = prf_varint_size(cw->frame_count);

	if (!cw->count)
		return 0;
	return sizeof(struct prf_stacks_record) +
	       PRF_ALIGN8(PRF_VARINT_MAX * cw->frame_count + cw->parents_size +
			  index_size * cw->node_count) +
	       sizeof(struct prf_compact_samples_record) + PRF_ALIGN8(columns_size(cw));
}

size_t prf_compact_writer_expanded(const struct prf_compact_writer *cw)
{
	return cw->expanded;
}

static int compare_frames(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

/* The STACKS record: the frames sorted, so that their deltas are small. */
static size_t emit_stacks(struct prf_compact_writer *cw, uint8_t *out)
{
	struct prf_stacks_record head = { 0 };
	uint8_t *start = out + sizeof(head), *p = start, *mark;
	uint64_t previous = 0;
	size_t size;

	/* Samples without callchains: no frames, and maybe no arrays yet. */
	if (cw->frame_count) {
		memcpy(cw->sorted, cw->frames + 1, cw->frame_count * sizeof(*cw->sorted));
		qsort(cw->sorted, cw->frame_count, sizeof(*cw->sorted), compare_frames);
	}
	for (uint32_t i = 0; i < cw->frame_count; i++) {
		cw->rank[cw->sorted[i].number] = i;
		p = prf_varint_put(p, cw->sorted[i].address - previous);
		previous = cw->sorted[i].address;
	}
	head.frames_size = (uint32_t)(p - start);
	mark = p;
	for (uint32_t n = 1; n <= cw->node_count; n++)
		p = prf_varint_put(p, cw->nodes[n].parent ? n - cw->nodes[n].parent : 0);
	head.parents_size = (uint32_t)(p - mark);
	mark = p;
	for (uint32_t n = 1; n <= cw->node_count; n++)
		p = prf_varint_put(p, cw->rank[cw->nodes[n].frame_number]);
	head.indexes_size = (uint32_t)(p - mark);
	size = sizeof(head) + PRF_ALIGN8((size_t)(p - start));
	memset(p, 0, out + size - p);
	head.header.type = PRF_RECORD_STACKS;
	head.header.size = (uint32_t)size;
	head.count = (uint32_t)cw->node_count;
	head.frame_count = (uint32_t)cw->frame_count;
	memcpy(out, &head, sizeof(head));
	return size;
}

size_t prf_compact_writer_emit(struct prf_compact_writer *cw, uint8_t *out)
{
	struct prf_compact_samples_record samples = { 0 };
	size_t stacks_size = emit_stacks(cw, out);
	size_t at;

	out += stacks_size;
	samples.header.type = PRF_RECORD_COMPACT_SAMPLES_BY_CPU;
	samples.header.size = (uint32_t)(sizeof(samples) + PRF_ALIGN8(columns_size(cw)));
	samples.count = cw->count;
	at = sizeof(samples);
	for (size_t i = 0; i < PRF_COLUMN_COUNT; i++) {
		samples.column_size[i] = (uint32_t)cw->columns[i].used;
		if (cw->columns[i].used)
			memcpy(out + at, cw->columns[i].data, cw->columns[i].used);
		at += cw->columns[i].used;
	}
	memcpy(out, &samples, sizeof(samples));
	memset(out + at, 0, samples.header.size - at);
	at = stacks_size + samples.header.size;
	prf_compact_writer_reset(cw);
	return at;
}
