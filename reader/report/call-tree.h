/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_CALL_TREE_H
#define PERFREC_REPORT_CALL_TREE_H

#include <stddef.h>
#include <stdint.h>
#include "report.h"

/*
 * The call tree, built from the symbolized stacks aggregate.c gives it.
 * Building it is a hash probe a frame into a table of millions of nodes,
 * as long as symbolizing the stacks; neither can be split across threads
 * (one libdwfl session symbolizes, and every stack goes through the
 * tree's top nodes), but the two can run side by side: a tree_feed hands
 * the stacks over in batches to a thread that builds the tree while the
 * next ones are symbolized.  The tree it builds is the same either way.
 */
struct call_tree;

/* callee: the leaf at the top. */
struct call_tree *report_tree_new(int callee);
void report_tree_free(struct call_tree *tree);
/* The root: one child per first-level name (process, unit, ...), then frames. */
struct call_node *report_tree_root(struct call_tree *tree);

struct tree_feed;

/*
 * Feeds tree, on a thread of its own when threaded (else, or when no
 * thread can be started, at once).  NULL without memory.
 */
struct tree_feed *report_tree_feed_start(struct call_tree *tree, int threaded);
/*
 * A stack of depth symbols, leaf first (copied), under first_level
 * (interned: it must outlive the tree).  tag, unless REPORT_TREE_UNTAGGED,
 * keeps the node its self time goes to, for report_tree_tagged(): the
 * time entries of a stack point into the tree that way.  0 or -ENOMEM.
 */
#define REPORT_TREE_UNTAGGED	SIZE_MAX
int report_tree_feed_add(struct tree_feed *feed, const char *first_level,
			 const struct report_symbol *const *stack, size_t depth, uint64_t period,
			 uint64_t samples, size_t tag);
/*
 * Waits for the tree to take every stack fed, links and sorts each
 * node's children, frees feed.  0, or -ENOMEM when the tree misses some.
 */
int report_tree_feed_finish(struct tree_feed *feed);
/*
 * Two nodes of one tree in an order that is the same whichever order
 * their stacks were fed in: by their paths from the root, names compared
 * as the rows are, an ancestor before its descendants.
 */
int report_node_compare(const struct call_node *a, const struct call_node *b);
/* After report_tree_feed_finish(): the node of a stack fed with tag, or NULL. */
struct call_node *report_tree_tagged(const struct call_tree *tree, size_t tag);

/*
 * The order of equal rows: by name, DSO, source line, offset, mode, so
 * that two runs over one file print the same report (aggregate.c).
 */
int report_string_compare(const char *a, const char *b);
int report_symbol_compare(const struct report_symbol *a, const struct report_symbol *b);

#endif
