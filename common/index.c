/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hash index's growth; its lookups are inline in common.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "common.h"

#define INDEX_FIRST	64u

int prf_index_grow(struct prf_index *x)
{
	struct prf_index_slot *grown;
	size_t capacity;

	if ((x->count + 1) * 2 <= x->capacity)
		return 0;
	/* ids are 32 bits, and so is the tag that places a slot */
	if (x->count >= UINT32_MAX / 2 || x->capacity > SIZE_MAX / 4)
		return -ENOMEM;
	capacity = x->capacity ? x->capacity * 2 : INDEX_FIRST;
	grown = calloc(capacity, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	for (size_t i = 0; i < x->capacity; i++) {
		size_t k;

		if (!x->slots[i].id)
			continue;
		k = x->slots[i].tag & (capacity - 1);
		while (grown[k].id)
			k = (k + 1) & (capacity - 1);
		grown[k] = x->slots[i];
	}
	free(x->slots);
	x->slots = grown;
	x->capacity = capacity;
	return 0;
}

void prf_index_clear(struct prf_index *x)
{
	if (x->slots)
		memset(x->slots, 0, x->capacity * sizeof(*x->slots));
	x->count = 0;
}

void prf_index_free(struct prf_index *x)
{
	free(x->slots);
	memset(x, 0, sizeof(*x));
}

uint64_t prf_hash_seed(void)
{
	static uint64_t seed;
	uint64_t mine = __atomic_load_n(&seed, __ATOMIC_RELAXED), expected = 0;

	if (mine)
		return mine;
	/* Without the kernel's randomness, the clock's and the stack's: still unknown to a file. */
	if (getrandom(&mine, sizeof(mine), GRND_NONBLOCK) != (ssize_t)sizeof(mine))
		mine = prf_hash_mix((uint64_t)time(NULL) ^ (uintptr_t)&mine);
	mine |= 1;
	if (!__atomic_compare_exchange_n(&seed, &expected, mine, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		mine = expected;
	return mine;
}

uint64_t prf_hash_bytes(const void *data, size_t size)
{
	const uint8_t *p = data;
	uint64_t h = prf_hash_mix(prf_hash_seed() ^ size), word;

	for (; size >= 8; p += 8, size -= 8) {
		memcpy(&word, p, 8);
		h = prf_hash_mix(h ^ word);
	}
	if (size) {
		word = 0;
		memcpy(&word, p, size);
		h = prf_hash_mix(h ^ word);
	}
	return h;
}
