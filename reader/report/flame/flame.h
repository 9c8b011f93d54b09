/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_FLAME_H
#define PERFREC_FLAME_H

#include <stdio.h>
#include "views.h"

/*
 * Flame graphs of the call tree, files for a browser (flame-html.c,
 * flame-svg.c, flame.js): nodes below percent_limit are left out with
 * their subtrees.  HTML: one page, its data the caller-first tree
 * (tree_callee must be 0: the page inverts it itself, and opens
 * inverted with flame_inverted) of each of count profiles of one capture
 * (CPU, off-CPU, wall: report_data's kind), which the page switches
 * between; profiles[shown] is shown first, and one profile has no switch.  SVG: static, inverted when the tree is.
 * With data->baseline set (report_match_baseline()), differential: the
 * widths are data's, each frame's colour is the change of its share
 * against the baseline's (flame-internal.h, flame_diff_color()).
 * Each returns 0 or a negative errno, as the text views do.
 */
int flame_html(const struct report_data *const *profiles, size_t count, size_t shown,
	       const struct view_options *options, FILE *out);
/*
 * The aggregation's time options for the page of a capture spanning
 * start_ns to end_ns (capture clock): its heatmap's buckets, its ranges'
 * slots, an origin on UTC boundaries of both (flame-time.c says the rule),
 * samples after end_ns counted at it.  None (the page has no heatmap)
 * when the start has no UTC time.
 */
void flame_time_options(uint64_t start_ns, uint64_t end_ns, int64_t realtime_offset_ns,
			struct aggregate_options *options);
int flame_svg(const struct report_data *data, const struct view_options *options,
	      FILE *out);

#endif
