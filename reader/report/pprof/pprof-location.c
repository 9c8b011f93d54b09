/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=pprof, addresses: a sample's address becomes a Location, once
 * per distinct address, with the Functions and lines the symbolizer found
 * there and the Mapping of its file.
 *
 * A Mapping is a DSO, but processes map a DSO at different addresses
 * (ASLR): its range is the executable map where a sample first met it,
 * and every address of it, in whichever process, is given at the place it
 * would have in that map (start + file offset - page offset).  That is
 * what pprof needs to symbolize a Location again from the binary (file
 * offset = address - memory_start + file_offset).  The kernel's addresses
 * are its own, and its Mapping spans those the samples hit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pprof-internal.h"
#include "symbolize.h"
#include "unwind.h"

#define PAGE_MASK		((uint64_t)4095)

/* ---- functions ----------------------------------------------------------- */

static int function_equal(const void *context, uint32_t id, const void *key)
{
	const struct pprof_builder *b = context;
	const struct pprof_function *f = &b->t.functions[id - 1], *k = key;

	return f->name == k->name && f->filename == k->filename;
}

static uint32_t function_of(struct pprof_builder *b, const char *name, const char *file)
{
	struct pprof_function key = { pprof_string_of(b, name), pprof_string_of(b, file) };
	uint64_t hash = prf_hash_mix((uint64_t)key.name << 32 | key.filename);
	struct prf_index_slot *slot = prf_index_place(&b->function_index, hash, function_equal, b,
						       &key);

	if (slot && slot->id)
		return slot->id;
	if (!slot || PPROF_GROW(b, functions, function) < 0) {
		b->error = -ENOMEM;
		return 0;
	}
	b->t.functions[b->t.function_count++] = key;
	prf_index_insert(&b->function_index, slot, hash, (uint32_t)b->t.function_count);
	return (uint32_t)b->t.function_count;
}

/* ---- mappings ------------------------------------------------------------ */

static int mapping_equal(const void *context, uint32_t id, const void *key)
{
	const struct pprof_builder *b = context;
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
	/* JIT code, like the kernel's, has no file: its addresses are absolute. */
	m->kernel = kernel || dso_is_kernel(dso) || dso_is_jit(dso);
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
	m->filename = pprof_string_of(b, m->kernel ? dso_short_name(dso) : dso_path(dso));
	m->build_id = pprof_string_of(b, dso_build_id_hex(dso));
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
	uint64_t hash = prf_hash_mix((uintptr_t)dso);
	struct prf_index_slot *slot = prf_index_place(&b->mapping_index, hash, mapping_equal, b,
						       dso);
	struct pprof_mapping *m;

	if (!slot) {
		b->error = -ENOMEM;
		return 0;
	}
	if (!slot->id) {
		if (PPROF_GROW(b, mappings, mapping) < 0) {
			b->error = -ENOMEM;
			return 0;
		}
		new_mapping(b, &b->t.mappings[b->t.mapping_count++], sample, dso, address,
			    offset, kernel);
		prf_index_insert(&b->mapping_index, slot, hash, (uint32_t)b->t.mapping_count);
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

static int location_equal(const void *context, uint32_t id, const void *key)
{
	const struct pprof_builder *b = context;
	const struct pprof_location_key *l = &b->location_keys[id - 1], *k = key;

	return l->dso == k->dso && l->address == k->address && l->kind == k->kind;
}

/* Its lines from the symbolizer's answer, and what that says of its mapping. */
static void symbolize_location(struct pprof_builder *b, struct pprof_location *l,
			       const struct symbol_answer *answer)
{
	struct pprof_mapping *m = l->mapping ? &b->t.mappings[l->mapping - 1] : NULL;
	int files = 1, lines = 1;

	/*
	 * An address whose function is unknown stays an address: a server may
	 * know it.  So does one named only after its CFI extent.
	 */
	if (!answer->frame_count || !answer->frames[answer->frame_count - 1].function ||
	    answer->frames[answer->frame_count - 1].cfi_extent) {
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
			     const struct pprof_location_key *key, uint64_t address, int kernel)
{
	struct pprof_location *l;
	struct symbol_answer answer = { 0 };
	const struct dso *dso;

	if (PPROF_GROW(b, locations, location) < 0 ||
	    prf_ensure_mem((void **)&b->location_keys, &b->location_key_capacity,
			   sizeof(*b->location_keys), b->t.location_count + 1) < 0) {
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
uint32_t pprof_location_of(struct pprof_builder *b, const struct session_sample *sample,
			    uint64_t address, int kernel)
{
	struct resolved_address where;
	struct pprof_location_key key = { 0 };
	uint64_t hash;
	struct prf_index_slot *slot;
	uint32_t id;

	session_resolve(b->session, sample, address, kernel, &where);
	key.dso = where.dso;
	key.address = where.dso || kernel ? where.address : address;
	key.kind = kernel;
	/* Seeded, a field at a time: the addresses are the capture's (prf_hash_seed()). */
	hash = prf_hash_mix(prf_hash_mix(prf_hash_seed() ^ key.address) ^
			    (uintptr_t)key.dso << 1 ^ (uint64_t)key.kind);
	slot = prf_index_place(&b->location_index, hash, location_equal, b, &key);
	if (!slot) {
		b->error = -ENOMEM;
		return 0;
	}
	if (slot->id)
		return slot->id;
	id = new_location(b, sample, &key, address, kernel);
	if (id)
		prf_index_insert(&b->location_index, slot, hash, id);
	return id;
}

/* Where an unwound stack stops short: a function of that name, no mapping. */
uint32_t pprof_marker_location(struct pprof_builder *b, uint64_t marker)
{
	struct pprof_location_key key = { .address = marker, .kind = 2 };
	uint64_t hash = prf_hash_mix(marker ^ 2);
	struct prf_index_slot *slot = prf_index_place(&b->location_index, hash, location_equal, b,
						       &key);
	struct pprof_location *l;

	if (!slot) {
		b->error = -ENOMEM;
		return 0;
	}
	if (slot->id)
		return slot->id;
	if (PPROF_GROW(b, locations, location) < 0 ||
	    prf_ensure_mem((void **)&b->location_keys, &b->location_key_capacity,
			   sizeof(*b->location_keys), b->t.location_count + 1) < 0 ||
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
	prf_index_insert(&b->location_index, slot, hash, (uint32_t)b->t.location_count);
	return (uint32_t)b->t.location_count;
}
