/* SPDX-License-Identifier: GPL-2.0-or-later */
/* String interning: open addressing over an arena of copies. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

struct string_table {
	const char **slots;
	size_t capacity, count;
	struct arena_block *blocks;
	int shared;			/* string_table_shared(): lock */
	pthread_mutex_t lock;
};

struct string_table *string_table_new(void)
{
	struct string_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->capacity = 1024;
	t->slots = calloc(t->capacity, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void string_table_free(struct string_table *t)
{
	if (!t)
		return;
	while (t->blocks) {
		struct arena_block *next = t->blocks->next;

		free(t->blocks);
		t->blocks = next;
	}
	free(t->slots);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void string_table_shared(struct string_table *t, int shared)
{
	t->shared = shared;
}

static uint64_t hash_bytes(const char *s, size_t length)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < length; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return hash_mix(h);
}

static char *arena_copy(struct string_table *t, const char *s, size_t length)
{
	struct arena_block *b = t->blocks;
	char *copy;

	if (!b || b->size - b->used < length + 1) {
		size_t size = length + 1 > 65536 ? length + 1 : 65536;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = t->blocks;
		b->used = 0;
		b->size = size;
		t->blocks = b;
	}
	copy = b->data + b->used;
	memcpy(copy, s, length);
	copy[length] = '\0';
	b->used += length + 1;
	return copy;
}

static int grow(struct string_table *t)
{
	size_t capacity = t->capacity * 2;
	const char **slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < t->capacity; i++) {
		const char *s = t->slots[i];
		size_t k;

		if (!s)
			continue;
		k = hash_bytes(s, strlen(s)) & (capacity - 1);
		while (slots[k])
			k = (k + 1) & (capacity - 1);
		slots[k] = s;
	}
	free(t->slots);
	t->slots = slots;
	t->capacity = capacity;
	return 0;
}

static const char *intern(struct string_table *t, const char *s, size_t length)
{
	size_t k;

	if (t->count * 2 >= t->capacity && grow(t) < 0)
		return NULL;
	k = hash_bytes(s, length) & (t->capacity - 1);
	while (t->slots[k]) {
		const char *other = t->slots[k];

		if (strncmp(other, s, length) == 0 && other[length] == '\0')
			return other;
		k = (k + 1) & (t->capacity - 1);
	}
	t->slots[k] = arena_copy(t, s, length);
	if (t->slots[k])
		t->count++;
	return t->slots[k];
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
