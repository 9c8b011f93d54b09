/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counts by key (counts.h): an array in the order met, hashed by key. */
#include <errno.h>
#include <stdlib.h>
#include "common.h"
#include "counts.h"

struct count_table {
	struct report_time_bucket *buckets;	/* id - 1 in index */
	size_t count, capacity;
	struct prf_index index;
};

struct count_table *report_counts_new(void)
{
	return calloc(1, sizeof(struct count_table));
}

void report_counts_free(struct count_table *t)
{
	if (!t)
		return;
	free(t->buckets);
	prf_index_free(&t->index);
	free(t);
}

static int bucket_equal(const void *context, uint32_t id, const void *key)
{
	const struct count_table *t = context;

	return t->buckets[id - 1].index == *(const uint64_t *)key;
}

int report_counts_add(struct count_table *t, uint64_t index, uint64_t period,
		      uint64_t samples)
{
	/* Seeded: the slot (of a sample's time) and the stack's number are the capture's. */
	uint64_t hash = prf_hash_mix(prf_hash_seed() ^ index);
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

const struct report_time_bucket *report_counts_entries(const struct count_table *t,
						       size_t *count)
{
	*count = t->count;
	return t->buckets;
}

int report_counts_merge(struct count_table *t, const struct count_table *from)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct report_time_bucket *b = &from->buckets[i];

		if (report_counts_add(t, b->index, b->period, b->samples) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int compare_index(const void *x, const void *y)
{
	const struct report_time_bucket *a = x, *b = y;

	return (a->index > b->index) - (a->index < b->index);
}

const struct report_time_bucket *report_counts_sorted(struct count_table *t, size_t *count)
{
	/* Sorting moves the entries under the index, which is done with. */
	prf_index_free(&t->index);
	if (t->count)
		qsort(t->buckets, t->count, sizeof(*t->buckets), compare_index);
	*count = t->count;
	return t->buckets;
}
