/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_AGGREGATE_H
#define PERFREC_REPORT_AGGREGATE_H

#include "report.h"
#include "session.h"

/*
 * Aggregation: each sample's callchain becomes a stack of symbolized
 * frames (inlined frames of their own), counted into the flat profile and
 * the call tree.  Symbolization is cached per (DSO, address), so the cost
 * grows with the unique addresses of a capture, not with its samples.
 */
struct aggregator;

struct aggregate_options {
	unsigned sort_keys;		/* enum sort_key bits for the flat view */
	int leaf_inline;		/* flat: charge the innermost inlined function */
	int tree_inlines;		/* tree: inlined frames as nodes of their own */
	int callee;			/* tree: leaf at the top */
	int children;			/* flat: totals, and callers without self time */
	int want_tree;			/* build the call tree (tree, folded views) */
	const char *focus;		/* only stacks through this function */
	size_t max_frames;		/* per sample; longer chains are cut */
};

struct aggregator *aggregator_new(struct session *session,
				  struct symbolizer *symbolizer,
				  const struct aggregate_options *options);
void aggregator_free(struct aggregator *aggregator);

/* A session_sample_fn: pass the aggregator as context. */
void aggregator_add(void *aggregator, const struct session_sample *sample);

/* Sorts and fills data; it points into the aggregator, which must live on. */
int aggregator_finish(struct aggregator *aggregator, struct report_data *data);

#endif
