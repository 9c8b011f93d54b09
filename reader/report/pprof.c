/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=pprof, the tables: each sample's callchain becomes a stack of
 * Locations, each Location an address of a Mapping with the functions and
 * lines the symbolizer found there, and equal (stack, labels) samples are
 * one Sample with their counts and periods added.  Memory grows with what
 * is distinct (addresses, stacks, threads), not with the samples.
 *
 * Addresses.  A Mapping is a DSO, but processes map a DSO at different
 * addresses (ASLR): its range is the executable map where a sample first
 * met it, and every address of it, in whichever process, is given at the
 * place it would have in that map (start + file offset - page offset).
 * That is what pprof needs to symbolize a Location again from the binary
 * (file offset = address - memory_start + file_offset).  The kernel's
 * addresses are its own, and its Mapping spans those the samples hit.
 *
 * Callers' entries of a callchain are return addresses; as in the other
 * views, the instruction before (address - 1, the call) is looked up,
 * and that is the Location's address, so symbolizing it again gives the
 * call's line, not the next one's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "pprof.h"
#include "symbolize.h"
#include "unwind.h"
#include "view.h"

/* Per sample, as the aggregator does: deeper callchains are cut. */
#define PPROF_MAX_FRAMES	1024
/* Markers of an unwound stack come on top of its frames. */
#define PPROF_MAX_STACK		(PPROF_MAX_FRAMES + 16)
#define PAGE_MASK		((uint64_t)4095)

/* Open addressing, id 0 empty; each slot keeps its hash for growing. */
struct slot {
	uint64_t hash;
	uint32_t id;
};

struct index {
	struct slot *slots;
	size_t capacity, count;
};

struct location_key {
	const struct dso *dso;		/* NULL: no map, or a marker */
	uint64_t address;		/* file offset, kernel or raw address */
	int kind;			/* 0 user, 1 kernel, 2 unwinding marker */
};

struct pprof_builder {
	struct pprof_options options;
	struct session *session;
	struct symbolizer *symbolizer;
	struct pprof_tables t;
	size_t string_capacity, mapping_capacity, location_capacity, function_capacity,
	       sample_capacity, stack_capacity, location_key_capacity;
	size_t stack_size;		/* location ids used in t.stacks */
	struct location_key *location_keys;
	struct index string_index, mapping_index, location_index, function_index,
		     sample_index;
	uint32_t stack[PPROF_MAX_STACK];
	uint32_t unknown_string;	/* "[unknown]" */
	int error;			/* -ENOMEM: a sample could not be counted */
};

/* ---- the hash tables --------------------------------------------------- */

typedef int (*equal_fn)(const struct pprof_builder *b, uint32_t id, const void *key);

/*
 * The slot of key: its own, or the empty one where it goes.  Grows first,
 * so that an insert into the slot returned keeps the table half empty.
 */
static struct slot *find(struct index *x, uint64_t hash, equal_fn equal,
			 const struct pprof_builder *b, const void *key)
{
	size_t k;

	if (x->count * 2 >= x->capacity) {
		size_t capacity = x->capacity ? x->capacity * 2 : 1024;
		struct slot *grown = calloc(capacity, sizeof(*grown));

		if (!grown)
			return NULL;
		for (size_t i = 0; i < x->capacity; i++) {
			if (!x->slots[i].id)
				continue;
			k = x->slots[i].hash & (capacity - 1);
			while (grown[k].id)
				k = (k + 1) & (capacity - 1);
			grown[k] = x->slots[i];
		}
		free(x->slots);
		x->slots = grown;
		x->capacity = capacity;
	}
	k = hash & (x->capacity - 1);
	while (x->slots[k].id) {
		if (x->slots[k].hash == hash && equal(b, x->slots[k].id, key))
			return &x->slots[k];
		k = (k + 1) & (x->capacity - 1);
	}
	return &x->slots[k];
}

static void insert(struct index *x, struct slot *slot, uint64_t hash, uint32_t id)
{
	slot->hash = hash;
	slot->id = id;
	x->count++;
}

/* Room for one more item in a table: 0 or -ENOMEM. */
static int grow(void *items, size_t *capacity, size_t count, size_t size)
{
	void **array = items;
	size_t bigger;
	void *grown;

	if (count < *capacity)
		return 0;
	/* Ids are uint32_t. */
	if (count >= UINT32_MAX - 1)
		return -ENOMEM;
	bigger = *capacity ? *capacity * 2 : 256;
	grown = reallocarray(*array, bigger, size);
	if (!grown)
		return -ENOMEM;
	*array = grown;
	*capacity = bigger;
	return 0;
}

#define GROW(b, table, name) \
	grow(&(b)->t.table, &(b)->name##_capacity, (b)->t.name##_count, sizeof(*(b)->t.table))

static uint64_t hash_bytes(const void *data, size_t size)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return hash_mix(h);
}

/* ---- strings ------------------------------------------------------------ */

static int string_equal(const struct pprof_builder *b, uint32_t id, const void *key)
{
	return strcmp(b->t.strings[id - 1], key) == 0;
}

/*
 * Protobuf strings are UTF-8 and Go's decoder refuses others; names from
 * a capture may be anything, so each byte that does not start a valid
 * character becomes U+FFFD.  NULL when s is valid as it is (or without
 * memory: *failed).
 */
static char *utf8_repaired(const char *s, int *failed)
{
	size_t bad = 0, length = 0, n;
	uint32_t code;
	char *copy, *out;

	*failed = 0;
	for (const char *p = s; *p; p += n, length += n) {
		n = view_utf8_char(p, &code);
		if (!n) {
			n = 1;
			bad++;
		}
	}
	if (!bad)
		return NULL;
	copy = malloc(length + 2 * bad + 1);
	if (!copy) {
		*failed = 1;
		return NULL;
	}
	out = copy;
	for (const char *p = s; *p; p += n) {
		n = view_utf8_char(p, &code);
		if (n) {
			memcpy(out, p, n);
			out += n;
		} else {
			memcpy(out, "\xef\xbf\xbd", 3);
			out += 3;
			n = 1;
		}
	}
	*out = '\0';
	return copy;
}

int pprof_string(struct pprof_builder *b, const char *s, uint32_t *index)
{
	int failed;
	char *repaired = utf8_repaired(s, &failed);
	const char *text = repaired ? repaired : s;
	uint64_t hash;
	struct slot *slot;

	if (failed)
		return -ENOMEM;
	hash = hash_bytes(text, strlen(text));
	slot = find(&b->string_index, hash, string_equal, b, text);
	if (slot && slot->id) {
		free(repaired);
		*index = slot->id - 1;
		return 0;
	}
	if (!slot || GROW(b, strings, string) < 0) {
		free(repaired);
		return -ENOMEM;
	}
	b->t.strings[b->t.string_count] = repaired ? repaired : strdup(s);
	if (!b->t.strings[b->t.string_count])
		return -ENOMEM;
	*index = (uint32_t)b->t.string_count++;
	insert(&b->string_index, slot, hash, *index + 1);
	return 0;
}

/* A string of the tables: its index, or 0 ("") after noting the failure. */
static uint32_t string_of(struct pprof_builder *b, const char *s)
{
	uint32_t index;

	if (pprof_string(b, s ? s : "", &index) < 0) {
		b->error = -ENOMEM;
		return 0;
	}
	return index;
}

/* ---- builder ------------------------------------------------------------ */

struct pprof_builder *pprof_new(struct session *session, struct symbolizer *symbolizer,
				const struct pprof_options *options)
{
	struct pprof_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->options = *options;
	b->session = session;
	b->symbolizer = symbolizer;
	b->t.inline_frames = options->inline_frames;
	/* The table's first string is "", as profile.proto requires. */
	string_of(b, "");
	b->unknown_string = string_of(b, "[unknown]");
	if (b->error) {
		pprof_free(b);
		return NULL;
	}
	return b;
}

void pprof_free(struct pprof_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->t.string_count; i++)
		free(b->t.strings[i]);
	for (size_t i = 0; i < b->t.location_count; i++)
		free(b->t.locations[i].lines);
	free(b->t.strings);
	free(b->t.mappings);
	free(b->t.locations);
	free(b->t.functions);
	free(b->t.samples);
	free(b->t.stacks);
	free(b->location_keys);
	free(b->string_index.slots);
	free(b->mapping_index.slots);
	free(b->location_index.slots);
	free(b->function_index.slots);
	free(b->sample_index.slots);
	free(b);
}

const struct pprof_tables *pprof_tables(const struct pprof_builder *b)
{
	return &b->t;
}

/* ---- functions ----------------------------------------------------------- */

static int function_equal(const struct pprof_builder *b, uint32_t id, const void *key)
{
	const struct pprof_function *f = &b->t.functions[id - 1], *k = key;

	return f->name == k->name && f->filename == k->filename;
}

static uint32_t function_of(struct pprof_builder *b, const char *name, const char *file)
{
	struct pprof_function key = { string_of(b, name), string_of(b, file) };
	uint64_t hash = hash_mix((uint64_t)key.name << 32 | key.filename);
	struct slot *slot = find(&b->function_index, hash, function_equal, b, &key);

	if (slot && slot->id)
		return slot->id;
	if (!slot || GROW(b, functions, function) < 0) {
		b->error = -ENOMEM;
		return 0;
	}
	b->t.functions[b->t.function_count++] = key;
	insert(&b->function_index, slot, hash, (uint32_t)b->t.function_count);
	return (uint32_t)b->t.function_count;
}

/* ---- mappings ------------------------------------------------------------ */

static int mapping_equal(const struct pprof_builder *b, uint32_t id, const void *key)
{
	return b->t.mappings[id - 1].dso == key;
}

struct map_search {
	const struct dso *dso;
	uint64_t address;
	int found;
	uint64_t start, end, pgoff;
};

static void map_search(void *context, uint64_t start, uint64_t end, uint64_t pgoff,
		       struct dso *dso)
{
	struct map_search *m = context;

	if (!m->found && dso == m->dso && m->address >= start && m->address < end) {
		m->found = 1;
		m->start = start;
		m->end = end;
		m->pgoff = pgoff;
	}
}

static void new_mapping(struct pprof_builder *b, struct pprof_mapping *m,
			const struct session_sample *sample, const struct dso *dso,
			uint64_t address, uint64_t offset, int kernel)
{
	struct map_search search = { .dso = dso, .address = address };

	memset(m, 0, sizeof(*m));
	m->dso = dso;
	m->kernel = kernel || dso_is_kernel(dso);
	if (m->kernel) {
		m->start = address;
		m->limit = address + 1;
	} else {
		session_for_each_map(sample, map_search, &search);
		if (!search.found) {	/* no map found again: the address's page */
			search.start = address & ~PAGE_MASK;
			search.end = search.start + PAGE_MASK + 1;
			search.pgoff = offset & ~PAGE_MASK;
		}
		m->start = search.start;
		m->limit = search.end;
		m->offset = search.pgoff;
	}
	/* The kernel by its bracketed name, which pprof knows not to open. */
	m->filename = string_of(b, m->kernel ? dso_short_name(dso) : dso_path(dso));
	m->build_id = string_of(b, dso_build_id_hex(dso));
	m->all_functions = m->all_filenames = m->all_lines = 1;
}

/*
 * The Mapping of dso (the kernel's, or a module's) and the address the
 * Location gets in its range: see the top of this file.  A user address
 * of another part of the file than the first map's widens the range,
 * keeping address - memory_start + file_offset its file offset.
 */
static uint32_t mapping_of(struct pprof_builder *b, const struct session_sample *sample,
			   const struct dso *dso, uint64_t address, uint64_t offset,
			   int kernel, uint64_t *placed)
{
	uint64_t hash = hash_mix((uintptr_t)dso);
	struct slot *slot = find(&b->mapping_index, hash, mapping_equal, b, dso);
	struct pprof_mapping *m;

	if (!slot) {
		b->error = -ENOMEM;
		return 0;
	}
	if (!slot->id) {
		if (GROW(b, mappings, mapping) < 0) {
			b->error = -ENOMEM;
			return 0;
		}
		new_mapping(b, &b->t.mappings[b->t.mapping_count++], sample, dso, address,
			    offset, kernel);
		insert(&b->mapping_index, slot, hash, (uint32_t)b->t.mapping_count);
	}
	m = &b->t.mappings[slot->id - 1];
	if (m->kernel) {
		*placed = address;
		if (address < m->start)
			m->start = address;
		if (address >= m->limit && address != UINT64_MAX)
			m->limit = address + 1;
		return slot->id;
	}
	*placed = m->start + (offset - m->offset);	/* modulo 2^64, as a mapping is */
	if (offset < m->offset) {
		uint64_t below = ((m->offset - offset) + PAGE_MASK) & ~PAGE_MASK;

		if (below <= m->offset && below <= m->start) {
			m->start -= below;
			m->offset -= below;
		}
	} else if (*placed >= m->limit && *placed < UINT64_MAX - PAGE_MASK) {
		m->limit = (*placed | PAGE_MASK) + 1;
	}
	return slot->id;
}

/* ---- locations ----------------------------------------------------------- */

static int location_equal(const struct pprof_builder *b, uint32_t id, const void *key)
{
	const struct location_key *l = &b->location_keys[id - 1], *k = key;

	return l->dso == k->dso && l->address == k->address && l->kind == k->kind;
}

/* Its lines from the symbolizer's answer, and what that says of its mapping. */
static void symbolize_location(struct pprof_builder *b, struct pprof_location *l,
			       const struct symbol_answer *answer)
{
	struct pprof_mapping *m = l->mapping ? &b->t.mappings[l->mapping - 1] : NULL;
	int files = 1, lines = 1;

	/* An address whose function is unknown stays an address: a server may know it. */
	if (!answer->frame_count || !answer->frames[answer->frame_count - 1].function) {
		if (m)
			m->all_functions = m->all_filenames = m->all_lines = 0;
		return;
	}
	l->lines = calloc(answer->frame_count, sizeof(*l->lines));
	if (!l->lines) {
		b->error = -ENOMEM;
		return;
	}
	l->line_count = answer->frame_count;
	for (size_t i = 0; i < answer->frame_count; i++) {
		const struct symbol_frame *f = &answer->frames[i];

		l->lines[i].function = function_of(b, f->function ? f->function : "[unknown]",
						   f->file);
		l->lines[i].line = f->line;
		files &= f->file != NULL;
		lines &= f->line != 0;
	}
	if (m) {
		m->all_filenames &= files;
		m->all_lines &= lines;
	}
}

static uint32_t new_location(struct pprof_builder *b, const struct session_sample *sample,
			     const struct location_key *key, uint64_t address, int kernel)
{
	struct pprof_location *l;
	struct symbol_answer answer = { 0 };
	const struct dso *dso;

	if (GROW(b, locations, location) < 0 ||
	    grow(&b->location_keys, &b->location_key_capacity, b->t.location_count,
		 sizeof(*b->location_keys)) < 0) {
		b->error = -ENOMEM;
		return 0;
	}
	l = &b->t.locations[b->t.location_count];
	memset(l, 0, sizeof(*l));
	l->address = address;
	if (key->dso)
		symbolizer_lookup(b->symbolizer, (struct dso *)key->dso, key->address, &answer);
	/* A kernel address in a module answers with the module as its DSO. */
	dso = answer.dso ? answer.dso : key->dso;
	if (dso)
		l->mapping = mapping_of(b, sample, dso, address, key->address, kernel,
					&l->address);
	symbolize_location(b, l, &answer);
	b->location_keys[b->t.location_count] = *key;
	return (uint32_t)++b->t.location_count;
}

/* The Location of a sample's address (its callers' already less one). */
static uint32_t location_of(struct pprof_builder *b, const struct session_sample *sample,
			    uint64_t address, int kernel)
{
	struct resolved_address where;
	struct location_key key = { 0 };
	uint64_t hash;
	struct slot *slot;
	uint32_t id;

	session_resolve(b->session, sample, address, kernel, &where);
	key.dso = where.dso;
	key.address = where.dso || kernel ? where.address : address;
	key.kind = kernel;
	hash = hash_mix((uintptr_t)key.dso ^ hash_mix(key.address) ^ (uint64_t)key.kind);
	slot = find(&b->location_index, hash, location_equal, b, &key);
	if (!slot) {
		b->error = -ENOMEM;
		return 0;
	}
	if (slot->id)
		return slot->id;
	id = new_location(b, sample, &key, address, kernel);
	if (id)
		insert(&b->location_index, slot, hash, id);
	return id;
}

/* Where an unwound stack stops short: a function of that name, no mapping. */
static uint32_t marker_location(struct pprof_builder *b, uint64_t marker)
{
	struct location_key key = { .address = marker, .kind = 2 };
	uint64_t hash = hash_mix(marker ^ 2);
	struct slot *slot = find(&b->location_index, hash, location_equal, b, &key);
	struct pprof_location *l;

	if (!slot) {
		b->error = -ENOMEM;
		return 0;
	}
	if (slot->id)
		return slot->id;
	if (GROW(b, locations, location) < 0 ||
	    grow(&b->location_keys, &b->location_key_capacity, b->t.location_count,
		 sizeof(*b->location_keys)) < 0 ||
	    !(b->t.locations[b->t.location_count].lines = calloc(1, sizeof(struct pprof_line)))) {
		b->error = -ENOMEM;
		return 0;
	}
	l = &b->t.locations[b->t.location_count];
	l->mapping = 0;
	l->address = 0;
	l->line_count = 1;
	l->lines[0].function = function_of(b, marker == UNWIND_FRAME_TRUNCATED ?
					   "[truncated]" : "[unknown]", NULL);
	l->lines[0].line = 0;
	b->location_keys[b->t.location_count++] = key;
	insert(&b->location_index, slot, hash, (uint32_t)b->t.location_count);
	return (uint32_t)b->t.location_count;
}

/* ---- samples --------------------------------------------------------------- */

static int sample_is_kernel(const struct session_sample *sample)
{
	unsigned mode = sample->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
}

static void push(struct pprof_builder *b, size_t *depth, uint32_t id)
{
	if (id && *depth < PPROF_MAX_STACK)
		b->stack[(*depth)++] = id;
}

/*
 * The sample's Locations, leaf first, from the frames build_stack() in
 * aggregate.c counts for the tree view (so the flat view's leaf is ours
 * too): contexts switch between kernel and user, a context's first entry
 * is where it was interrupted, the others are return addresses.
 */
static size_t build_stack(struct pprof_builder *b, const struct session_sample *sample)
{
	size_t depth = 0, frames = 0;
	int kernel = sample_is_kernel(sample), first = 1;

	for (size_t i = 0; i < sample->callchain_nr && frames < PPROF_MAX_FRAMES; i++) {
		uint64_t address = sample->callchain[i];

		if (address == UNWIND_FRAME_TRUNCATED || address == UNWIND_FRAME_UNKNOWN) {
			push(b, &depth, marker_location(b, address));
			continue;
		}
		if (address >= PERF_CONTEXT_MAX) {
			kernel = address == PERF_CONTEXT_KERNEL ||
				 address == PERF_CONTEXT_GUEST_KERNEL;
			first = 1;
			continue;
		}
		if (!address)
			continue;
		push(b, &depth, location_of(b, sample, first ? address : address - 1, kernel));
		first = 0;
		frames++;
	}
	/* No callchain, or only markers: the sample's ip is its leaf. */
	if (!frames) {
		uint32_t leaf = location_of(b, sample, sample->ip, sample_is_kernel(sample));

		if (leaf && depth < PPROF_MAX_STACK) {
			memmove(b->stack + 1, b->stack, depth * sizeof(*b->stack));
			b->stack[0] = leaf;
			depth++;
		}
	}
	return depth;
}

/* --focus: whether a function of that name is on the stack, inlined or not. */
static int stack_has(const struct pprof_builder *b, size_t depth, const char *name)
{
	for (size_t i = 0; i < depth; i++) {
		const struct pprof_location *l = &b->t.locations[b->stack[i] - 1];

		for (size_t j = 0; j < l->line_count; j++) {
			uint32_t f = l->lines[j].function;

			if (f && strcmp(b->t.strings[b->t.functions[f - 1].name], name) == 0)
				return 1;
		}
	}
	return 0;
}

struct sample_key {
	const uint32_t *stack;
	uint32_t depth, comm, event, pid, tid;
};

static int sample_equal(const struct pprof_builder *b, uint32_t id, const void *key)
{
	const struct pprof_sample *s = &b->t.samples[id - 1];
	const struct sample_key *k = key;

	return s->depth == k->depth && s->comm == k->comm && s->event == k->event &&
	       s->pid == k->pid && s->tid == k->tid &&
	       memcmp(b->t.stacks + s->stack, k->stack, k->depth * sizeof(*k->stack)) == 0;
}

static struct pprof_sample *new_sample(struct pprof_builder *b, struct slot *slot,
				       uint64_t hash, const struct sample_key *key)
{
	struct pprof_sample *s;

	if (GROW(b, samples, sample) < 0)
		return NULL;
	while (b->stack_capacity - b->stack_size < key->depth) {
		size_t capacity = b->stack_capacity ? 2 * b->stack_capacity : 4096;
		uint32_t *grown = reallocarray(b->t.stacks, capacity, sizeof(*grown));

		if (!grown)
			return NULL;
		b->t.stacks = grown;
		b->stack_capacity = capacity;
	}
	memcpy(b->t.stacks + b->stack_size, key->stack, key->depth * sizeof(*key->stack));
	s = &b->t.samples[b->t.sample_count++];
	memset(s, 0, sizeof(*s));
	s->stack = b->stack_size;
	s->depth = key->depth;
	s->comm = key->comm;
	s->event = key->event;
	s->pid = key->pid;
	s->tid = key->tid;
	b->stack_size += key->depth;
	insert(&b->sample_index, slot, hash, (uint32_t)b->t.sample_count);
	return s;
}

void pprof_add(void *context, const struct session_sample *sample)
{
	struct pprof_builder *b = context;
	struct sample_key key = { b->stack, 0, 0, 0, sample->pid, sample->tid };
	struct pprof_sample *s;
	struct slot *slot;
	uint64_t hash;

	/* Out of memory once, the profile is not written: stop working. */
	if (b->error)
		return;
	key.depth = (uint32_t)build_stack(b, sample);
	if (!key.depth || b->error)
		return;
	if (b->options.focus && !stack_has(b, key.depth, b->options.focus))
		return;
	key.comm = sample->comm ? string_of(b, sample->comm) : b->unknown_string;
	if (b->options.event_label && sample->event && sample->event->name)
		key.event = string_of(b, sample->event->name);
	hash = hash_bytes(key.stack, key.depth * sizeof(*key.stack)) ^
	       hash_mix((uint64_t)key.comm << 32 | key.event) ^
	       hash_mix(((uint64_t)key.pid << 32 | key.tid) + 1);
	slot = find(&b->sample_index, hash, sample_equal, b, &key);
	if (slot && !slot->id)
		s = new_sample(b, slot, hash, &key);
	else
		s = slot ? &b->t.samples[slot->id - 1] : NULL;
	if (!s || b->error) {
		b->error = -ENOMEM;
		return;
	}
	s->count++;
	s->period += sample->period;
}

int pprof_error(const struct pprof_builder *b)
{
	return b->error;
}

const struct pprof_options *pprof_builder_options(const struct pprof_builder *b)
{
	return &b->options;
}
