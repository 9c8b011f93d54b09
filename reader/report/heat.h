/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_HEAT_H
#define PERFREC_REPORT_HEAT_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

/*
 * The heatmap's fine buckets of time (aggregate_options.time_bucket_ns):
 * the samples and weight of each bucket that has any, counted in the
 * aggregation's first phase beside the stacks.  Sparse, so that a long
 * idle capture costs what its busy seconds do.  Tables of several
 * threads merge.
 */
struct heat_table;

struct heat_table *report_heat_new(void);
void report_heat_free(struct heat_table *table);
/* Counts period and samples into bucket index.  0 or -ENOMEM. */
int report_heat_add(struct heat_table *table, uint64_t index, uint64_t period, uint64_t samples);
/* Adds every bucket of from to table.  0 or -ENOMEM. */
int report_heat_merge(struct heat_table *table, const struct heat_table *from);
/*
 * The buckets, sorted by index, in the table (valid until it changes or
 * is freed); their count in *count.
 */
const struct report_time_bucket *report_heat_sorted(struct heat_table *table, size_t *count);

#endif
