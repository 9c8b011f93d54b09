/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_FLAME_INTERNAL_H
#define PERFREC_FLAME_INTERNAL_H

/*
 * What the two flame graphs (flame-html.c, flame-svg.c) share: the facts
 * of their header, which nodes of the call tree they show, the colour of
 * a frame, and strings from captures made safe for markup.  views.h's
 * helpers print for terminals; these write for a browser, where the
 * danger is markup and invalid characters rather than escape sequences.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "flame.h"

/* The facts of the header: label, value, and whether it is a warning. */
struct flame_fact {
	const char *label;
	char *value;			/* malloc'd; from the capture: escape it */
	int warn;			/* lost or dropped data, damaged files */
};

#define FLAME_MAX_FACTS	10

/*
 * Fills facts (FLAME_MAX_FACTS of room) of data's header, its total in
 * its unit (samples, or blocked or wall time); returns how many, -ENOMEM
 * without memory.
 */
int flame_facts(const struct report_data *data, struct flame_fact *facts);
/* "CPU", "Off-CPU", "Wall": what the page's switch and header call a profile. */
const char *flame_profile_label(enum report_profile_kind kind);

/*
 * With data->baseline: appends "Baseline" (its samples, files and time)
 * and "Gone" (its stacks this profile does not have) to the count facts
 * of flame_facts(); returns the new count, -ENOMEM without memory (facts are
 * freed then).  Without a baseline returns count.
 */
int flame_baseline_facts(const struct report_data *data, struct flame_fact *facts, int count);
void flame_facts_free(struct flame_fact *facts, int count);

/*
 * How many of node's children are shown: children are sorted heaviest
 * first, so those at or above the limit are a prefix of them.
 */
size_t flame_shown_children(const struct call_node *node, uint64_t total, double limit);

/* A frame's label: the function, the process name, or "all" at the root. */
const char *flame_label(const struct call_node *node, int root);

/*
 * The frame's colour as "#rrggbb": warm for user code, blue for the
 * kernel, grey for [unknown], the processes and --waker's "--".  flame.js computes the
 * same from the same name (FNV-1a over its bytes: equal for ASCII names),
 * so the page and the SVG of one capture look alike.
 */
void flame_color(const char *name, int kernel, int comm, char out[8]);

/*
 * Differential graphs: a frame's colour says how its share (of each
 * side's own total) changed against the baseline: red it grew, blue it
 * shrank, the stronger the larger the change, full at FLAME_DIFF_SCALE
 * points; light grey when unchanged; full red for a stack the baseline
 * does not have (base_period 0).  flame.js computes the same.
 */
#define FLAME_DIFF_SCALE	10.0
void flame_diff_color(uint64_t period, uint64_t total, uint64_t base_period,
		      uint64_t base_total, char out[8]);
/* "19.33% (baseline 57.22%, -37.89)", or "19.33% (new: not in the baseline)". */
void flame_diff_text(char *buffer, size_t size, uint64_t period, uint64_t total,
		     uint64_t base_period, uint64_t base_total);

/*
 * The next character of s for markup: *code is its code point, or
 * U+FFFD for a byte that is not part of valid UTF-8, for what XML 1.0
 * does not allow (C0 controls, U+FFFE, U+FFFF), and for tabs, newlines,
 * DEL and C1 controls, which a one-line label cannot show either.
 * Returns the bytes consumed, 0 at the end.
 */
size_t flame_next_char(const char *s, uint32_t *code);

/* A growable stack of the walk over the tree (no recursion: trees are deep). */
struct flame_frame {
	const struct call_node *node;
	size_t next;			/* next child to visit */
	size_t shown;			/* children shown */
	double x;			/* SVG: left edge, pixels */
	double child_x;			/* SVG: where the next child starts */
	size_t depth;
	int gone;			/* HTML diff: a node of the baseline's tree only */
	size_t base_next;		/* HTML diff: next child of node->other to look at */
};

struct flame_stack {
	struct flame_frame *frames;
	size_t count, capacity;
};

/* Pushes a frame; NULL without memory. */
struct flame_frame *flame_push(struct flame_stack *stack, const struct call_node *node,
			       size_t shown, double x);
void flame_stack_free(struct flame_stack *stack);

/*
 * s as a JSON string for the page's data block: '<', '>', '&', U+2028 and
 * U+2029 escaped (nothing can close the script element), invalid UTF-8
 * and control characters as U+FFFD (flame_next_char()).
 */
void flame_json_string(FILE *out, const char *s);

/*
 * A profile's "time" for the page (flame-time.c): data's timeline, its
 * entries' nodes named by their index among page_nodes (the nodes the
 * page has, in its order).  0 or -ENOMEM.
 */
int flame_time_write(FILE *out, const struct report_data *data,
		     const struct call_node *const *page_nodes, size_t page_node_count);

/* The CSS and JavaScript of the page, from flame.css and flame.js (flame-embed.sh). */
extern const char flame_css[];
extern const size_t flame_css_size;
extern const char flame_js[];
extern const size_t flame_js_size;

#endif
