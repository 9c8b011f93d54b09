/* SPDX-License-Identifier: GPL-2.0-or-later */
/* String interning: the common hash index over an arena of copies. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "intern.h"

struct interned {
	const char *s;
	size_t length;
};

struct string_table {
	struct interned *strings;	/* by id - 1 */
	size_t count, capacity;
	struct prf_index index;
	struct prf_arena arena;
	int shared;			/* string_table_shared(): lock */
	pthread_mutex_t lock;
};

struct string_table *string_table_new(void)
{
	struct string_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void string_table_free(struct string_table *t)
{
	if (!t)
		return;
	prf_arena_free(&t->arena);
	prf_index_free(&t->index);
	free(t->strings);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void string_table_shared(struct string_table *t, int shared)
{
	t->shared = shared;
}

static int interned_equal(const void *context, uint32_t id, const void *key)
{
	const struct interned *a = &((const struct string_table *)context)->strings[id - 1];
	const struct interned *b = key;

	return a->length == b->length && !memcmp(a->s, b->s, b->length);
}

static const char *intern(struct string_table *t, const char *s, size_t length)
{
	struct interned key = { s, length };
	uint64_t h = prf_hash_bytes(s, length);
	uint32_t id = prf_index_lookup(&t->index, h, interned_equal, t, &key);
	struct prf_index_slot *slot;
	char *copy;

	if (id)
		return t->strings[id - 1].s;
	slot = prf_index_place(&t->index, h, interned_equal, t, &key);
	if (!slot || prf_ensure_mem((void **)&t->strings, &t->capacity, sizeof(*t->strings),
				    t->count + 1) < 0 ||
	    !(copy = prf_arena_strndup(&t->arena, s, length)))
		return NULL;
	t->strings[t->count++] = (struct interned){ copy, length };
	prf_index_insert(&t->index, slot, h, (uint32_t)t->count);
	return copy;
}

const char *string_intern_n(struct string_table *t, const char *s, size_t length)
{
	const char *interned;

	if (!t->shared)
		return intern(t, s, length);
	pthread_mutex_lock(&t->lock);
	interned = intern(t, s, length);
	pthread_mutex_unlock(&t->lock);
	return interned;
}

const char *string_intern(struct string_table *t, const char *s)
{
	return string_intern_n(t, s, strlen(s));
}
