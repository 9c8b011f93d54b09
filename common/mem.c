/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growth of arrays and the arena: the allocation rules, written once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

int prf_grow_mem(void **data, size_t *capacity, size_t elem_size, size_t need)
{
	size_t most = elem_size ? SIZE_MAX / elem_size : SIZE_MAX, grown;
	void *bigger;

	if (need <= *capacity)
		return 0;
	/* checked here, not left to reallocarray(): ASan aborts on its overflow */
	if (need > most)
		return -ENOMEM;
	grown = *capacity + *capacity / 2;
	if (grown < need)
		grown = need;
	if (grown < 16)
		grown = 16;
	if (grown > most)
		grown = need;
	bigger = realloc(*data, grown * elem_size);
	if (!bigger)
		return -ENOMEM;
	*data = bigger;
	*capacity = grown;
	return 0;
}

#define ARENA_BLOCK	(64u << 10)

struct prf_arena_block {
	struct prf_arena_block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

void *prf_arena_alloc(struct prf_arena *arena, size_t size)
{
	struct prf_arena_block *b = arena->blocks;
	void *p;

	/* bounded before it is rounded up, so that the rounding cannot wrap */
	if (!size || size > SIZE_MAX - sizeof(*b) - ARENA_BLOCK - 15)
		return NULL;
	size = (size + 15) & ~(size_t)15;
	if (!b || b->size - b->used < size) {
		size_t block = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		b = malloc(sizeof(*b) + block);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = block;
		/* a block made for one large object goes behind the current one */
		if (block > ARENA_BLOCK && arena->blocks) {
			b->next = arena->blocks->next;
			arena->blocks->next = b;
		} else {
			b->next = arena->blocks;
			arena->blocks = b;
		}
	}
	p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *prf_arena_strndup(struct prf_arena *arena, const char *s, size_t length)
{
	char *copy = length < SIZE_MAX ? prf_arena_alloc(arena, length + 1) : NULL;

	if (copy)
		memcpy(copy, s, length);
	return copy;
}

void prf_arena_free(struct prf_arena *arena)
{
	while (arena->blocks) {
		struct prf_arena_block *next = arena->blocks->next;

		free(arena->blocks);
		arena->blocks = next;
	}
}
