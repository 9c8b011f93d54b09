/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_COUNTS_H
#define PERFREC_REPORT_COUNTS_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

/*
 * Samples and weight by a 64-bit key, counted in the aggregation's first
 * phase beside the stacks: the heatmap's buckets of time (the key a
 * bucket's number), and each stack's slots of time (the slot and the
 * stack's number in its stack table, slot << 32 | number).  Sparse, so
 * that a long idle capture costs what its busy seconds do, and a stack
 * seen in many slots is kept once with a count a slot.  Tables of
 * several threads merge.
 */
struct count_table;

struct count_table *report_counts_new(void);
void report_counts_free(struct count_table *table);
/* Counts period and samples under key.  0 or -ENOMEM. */
int report_counts_add(struct count_table *table, uint64_t key, uint64_t period,
		      uint64_t samples);
/* The entries (index is the key), in the order first met; their count in *count. */
const struct report_time_bucket *report_counts_entries(const struct count_table *table,
						       size_t *count);
/* Adds every entry of from to table.  0 or -ENOMEM. */
int report_counts_merge(struct count_table *table, const struct count_table *from);
/*
 * The entries sorted by key, in the table, which takes no more counts
 * (valid until it is freed); their count in *count.
 */
const struct report_time_bucket *report_counts_sorted(struct count_table *table, size_t *count);

#endif
