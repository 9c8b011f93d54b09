/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The heatmap's buckets (heat.h): an array in the order met, hashed by index. */
#include <errno.h>
#include <stdlib.h>
#include "common.h"
#include "heat.h"

struct heat_table {
	struct report_time_bucket *buckets;	/* id - 1 in index */
	size_t count, capacity;
	struct prf_index index;
};

struct heat_table *report_heat_new(void)
{
	return calloc(1, sizeof(struct heat_table));
}

void report_heat_free(struct heat_table *t)
{
	if (!t)
		return;
	free(t->buckets);
	prf_index_free(&t->index);
	free(t);
}

static int bucket_equal(const void *context, uint32_t id, const void *key)
{
	const struct heat_table *t = context;

	return t->buckets[id - 1].index == *(const uint64_t *)key;
}

int report_heat_add(struct heat_table *t, uint64_t index, uint64_t period, uint64_t samples)
{
	uint64_t hash = prf_hash_mix(index);
	struct prf_index_slot *slot = prf_index_place(&t->index, hash, bucket_equal, t, &index);
	struct report_time_bucket *b;

	if (!slot)
		return -ENOMEM;
	if (slot->id) {
		b = &t->buckets[slot->id - 1];
		b->period += period;
		b->samples += samples;
		return 0;
	}
	if (t->count >= UINT32_MAX - 1 ||
	    prf_ensure_mem((void **)&t->buckets, &t->capacity, sizeof(*t->buckets),
			   t->count + 1) < 0)
		return -ENOMEM;
	t->buckets[t->count] = (struct report_time_bucket){ index, period, samples };
	prf_index_insert(&t->index, slot, hash, (uint32_t)++t->count);
	return 0;
}

int report_heat_merge(struct heat_table *t, const struct heat_table *from)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct report_time_bucket *b = &from->buckets[i];

		if (report_heat_add(t, b->index, b->period, b->samples) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int compare_index(const void *x, const void *y)
{
	const struct report_time_bucket *a = x, *b = y;

	return (a->index > b->index) - (a->index < b->index);
}

const struct report_time_bucket *report_heat_sorted(struct heat_table *t, size_t *count)
{
	/* Sorting moves the entries under the index, which is done with. */
	prf_index_free(&t->index);
	if (t->count)
		qsort(t->buckets, t->count, sizeof(*t->buckets), compare_index);
	*count = t->count;
	return t->buckets;
}
