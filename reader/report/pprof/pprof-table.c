/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=pprof, what the tables are kept in: open addressing hash
 * tables of ids (the tables' arrays hold the entries, an id is an index
 * + 1), and the string table, whose strings are made UTF-8.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"
#include "pprof-internal.h"

/* ---- the hash tables --------------------------------------------------- */

/* Linear probing; tables double at half full. */
struct pprof_slot *pprof_find(struct pprof_index *x, uint64_t hash, pprof_equal_fn equal,
			      const struct pprof_builder *b, const void *key)
{
	size_t k;

	if (x->count * 2 >= x->capacity) {
		size_t capacity = x->capacity ? x->capacity * 2 : 1024;
		struct pprof_slot *grown = calloc(capacity, sizeof(*grown));

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

void pprof_insert(struct pprof_index *x, struct pprof_slot *slot, uint64_t hash, uint32_t id)
{
	slot->hash = hash;
	slot->id = id;
	x->count++;
}

int pprof_grow(void *items, size_t *capacity, size_t count, size_t size)
{
	void **array = items;
	size_t bigger;
	void *grown;

	if (count < *capacity)
		return 0;
	/* Ids are uint32_t, and a table's id is its index + 1. */
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

uint64_t pprof_hash_bytes(const void *data, size_t size)
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
		n = report_utf8_char(p, &code);
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
		n = report_utf8_char(p, &code);
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
	struct pprof_slot *slot;

	if (failed)
		return -ENOMEM;
	hash = pprof_hash_bytes(text, strlen(text));
	slot = pprof_find(&b->string_index, hash, string_equal, b, text);
	if (slot && slot->id) {
		free(repaired);
		*index = slot->id - 1;
		return 0;
	}
	if (!slot || PPROF_GROW(b, strings, string) < 0) {
		free(repaired);
		return -ENOMEM;
	}
	b->t.strings[b->t.string_count] = repaired ? repaired : strdup(s);
	if (!b->t.strings[b->t.string_count])
		return -ENOMEM;
	*index = (uint32_t)b->t.string_count++;
	pprof_insert(&b->string_index, slot, hash, *index + 1);
	return 0;
}

uint32_t pprof_string_of(struct pprof_builder *b, const char *s)
{
	uint32_t index;

	if (pprof_string(b, s ? s : "", &index) < 0) {
		b->error = -ENOMEM;
		return 0;
	}
	return index;
}
