/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The call tree (call-tree.h), and the feed that builds it beside the symbolizing. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "call-tree.h"
#include "common.h"

#define NODE_BLOCK	4096

struct call_tree {
	int callee;
	struct call_node root;
	struct prf_index index;		/* by (parent, node_key()): ids are nodes' order */
	size_t count;
	/*
	 * A big tree has millions of nodes: they come from blocks, and every
	 * node's children array is a slice of one array, not an allocation each.
	 */
	struct call_node **blocks;
	size_t block_count, block_capacity, nodes_left;
	struct call_node **child_pool;
	/* Each tagged stack's self node, by tag (report_tree_tagged()). */
	struct call_node **tagged;
	size_t tagged_capacity;
};

struct call_tree *report_tree_new(int callee)
{
	struct call_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->callee = callee;
	return t;
}

void report_tree_free(struct call_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->block_count; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->child_pool);
	free(t->tagged);
	prf_index_free(&t->index);
	free(t);
}

struct call_node *report_tree_root(struct call_tree *t)
{
	return &t->root;
}

static struct call_node *new_node(struct call_tree *t)
{
	if (!t->nodes_left) {
		struct call_node *block;

		if (t->block_count == t->block_capacity) {
			size_t capacity = t->block_capacity ? 2 * t->block_capacity : 64;
			struct call_node **grown = reallocarray(t->blocks, capacity,
								 sizeof(*grown));

			if (!grown)
				return NULL;
			t->blocks = grown;
			t->block_capacity = capacity;
		}
		block = calloc(NODE_BLOCK, sizeof(*block));
		if (!block)
			return NULL;
		t->blocks[t->block_count++] = block;
		t->nodes_left = NODE_BLOCK;
	}
	return &t->blocks[t->block_count - 1][NODE_BLOCK - t->nodes_left--];
}

static uint64_t node_hash(const struct call_node *parent, const void *key)
{
	return prf_hash_mix((uintptr_t)parent ^ prf_hash_mix((uintptr_t)key));
}

/* What tells a node from its siblings: its symbol, or at the top its name. */
static const void *node_key(const struct call_node *node)
{
	return node->symbol ? (const void *)node->symbol : (const void *)node->comm;
}

/* The node made id-th (1 the first), in its block. */
static struct call_node *node_at(const struct call_tree *t, uint32_t id)
{
	return &t->blocks[(id - 1) / NODE_BLOCK][(id - 1) % NODE_BLOCK];
}

struct node_lookup {
	const struct call_node *parent;
	const void *key;
};

static int node_equal(const void *context, uint32_t id, const void *key)
{
	const struct call_node *n = node_at(context, id);
	const struct node_lookup *l = key;

	return n->parent == l->parent && node_key(n) == l->key;
}

static struct call_node *child_of(struct call_tree *t, struct call_node *parent,
				  const void *key, const struct report_symbol *symbol,
				  const char *comm)
{
	struct node_lookup lookup = { parent, key };
	uint64_t hash = node_hash(parent, key);
	struct prf_index_slot *slot = prf_index_place(&t->index, hash, node_equal, t, &lookup);
	struct call_node *node;

	if (!slot)
		return NULL;
	if (slot->id)
		return node_at(t, slot->id);
	node = new_node(t);
	if (!node)
		return NULL;
	node->symbol = symbol;
	node->comm = comm;
	node->parent = parent;
	parent->child_count++;
	prf_index_insert(&t->index, slot, hash, (uint32_t)++t->count);
	return node;
}

/* The node that takes a stack's self time is kept under its tag (none: REPORT_TREE_UNTAGGED). */
static int tag_node(struct call_tree *t, size_t tag, struct call_node *node)
{
	size_t had = t->tagged_capacity;

	if (tag == REPORT_TREE_UNTAGGED)
		return 0;
	if (prf_ensure_mem((void **)&t->tagged, &t->tagged_capacity, sizeof(*t->tagged),
			   tag + 1) < 0)
		return -ENOMEM;
	if (t->tagged_capacity > had)
		memset(t->tagged + had, 0, (t->tagged_capacity - had) * sizeof(*t->tagged));
	t->tagged[tag] = node;
	return 0;
}

struct call_node *report_tree_tagged(const struct call_tree *t, size_t tag)
{
	return tag < t->tagged_capacity ? t->tagged[tag] : NULL;
}

static int call_tree_add(struct call_tree *t, const char *first_level,
			 const struct report_symbol *const *stack, size_t depth,
			 uint64_t period, uint64_t samples, size_t tag)
{
	struct call_node *node = child_of(t, &t->root, first_level, NULL, first_level);

	t->root.total_period += period;
	t->root.total_samples += samples;
	for (size_t i = 0; node; i++) {
		node->total_period += period;
		node->total_samples += samples;
		/* Self belongs to the sample's leaf: the top frame when inverted. */
		if (t->callee ? i == 1 : i == depth) {
			node->self_period += period;
			node->self_samples += samples;
			if (tag_node(t, tag, node) < 0)
				return -ENOMEM;
		}
		if (i == depth)
			return 0;
		const struct report_symbol *s = t->callee ? stack[i] : stack[depth - 1 - i];

		node = child_of(t, node, s, s, NULL);
	}
	return -ENOMEM;
}

static size_t node_depth(const struct call_node *n)
{
	size_t depth = 0;

	for (; n->parent; n = n->parent)
		depth++;
	return depth;
}

int report_node_compare(const struct call_node *a, const struct call_node *b)
{
	size_t da = node_depth(a), db = node_depth(b);
	int deeper = (da > db) - (da < db);
	int order;

	for (; da > db; da--)
		a = a->parent;
	for (; db > da; db--)
		b = b->parent;
	if (a == b)
		return deeper;
	/* Up to the children of the nearest common ancestor: they tell. */
	while (a->parent != b->parent) {
		a = a->parent;
		b = b->parent;
	}
	if ((order = report_symbol_compare(a->symbol, b->symbol)))
		return order;
	return report_string_compare(a->comm, b->comm);
}

static int compare_children(const void *x, const void *y)
{
	const struct call_node *a = *(struct call_node *const *)x;
	const struct call_node *b = *(struct call_node *const *)y;
	int order;

	if (a->total_period != b->total_period)
		return a->total_period > b->total_period ? -1 : 1;
	if ((order = report_symbol_compare(a->symbol, b->symbol)))
		return order;
	return report_string_compare(a->comm, b->comm);
}

/* Every node but the root, in the order they were made: as they lie in memory. */
#define FOR_EACH_NODE(t, node)							\
	for (size_t b_ = 0; b_ < (t)->block_count; b_++)			\
		for (struct call_node *node = (t)->blocks[b_],			\
		     *end_ = node + (b_ + 1 < (t)->block_count ? NODE_BLOCK :	\
				     NODE_BLOCK - (t)->nodes_left);		\
		     node < end_; node++)

static int link_children(struct call_tree *t)
{
	size_t used = 0;

	/* The index has done its work: its memory goes first. */
	prf_index_free(&t->index);
	/* Every node knows its child count: its slice of the pool, then sorted. */
	t->child_pool = calloc(t->count + 1, sizeof(*t->child_pool));
	if (!t->child_pool)
		return -ENOMEM;
	FOR_EACH_NODE(t, node) {
		struct call_node *parent = node->parent;

		if (!parent->children) {
			parent->children = t->child_pool + used;
			used += parent->child_count;
			parent->child_count = 0;
		}
		parent->children[parent->child_count++] = node;
	}
	if (t->root.child_count)
		qsort(t->root.children, t->root.child_count, sizeof(*t->root.children),
		      compare_children);
	FOR_EACH_NODE(t, node)
		if (node->child_count > 1)
			qsort(node->children, node->child_count, sizeof(*node->children),
			      compare_children);
	return 0;
}

/* ---- the feed --------------------------------------------------------- */

#define FEED_BATCH	2048	/* stacks a batch */
#define FEED_QUEUED_MAX	8	/* batches waiting: the symbolizing side waits beyond */

struct fed_stack {
	const char *first_level;
	uint64_t period, samples;
	size_t tag;
	size_t first, depth;		/* in the batch's symbols */
};

struct feed_batch {
	struct feed_batch *next;
	size_t count;
	struct fed_stack stacks[FEED_BATCH];
	const struct report_symbol **symbols;
	size_t symbol_count, symbol_capacity;
};

struct tree_feed {
	struct call_tree *tree;
	int threaded;
	pthread_t thread;
	struct feed_batch *filling;	/* the feeding side's own */

	/* Under lock. */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct feed_batch *queue, *queue_tail, *spare;
	size_t queued;
	int done;

	int error;			/* the tree side's, read after the join */
};

static int build_batch(struct call_tree *tree, const struct feed_batch *b)
{
	for (size_t i = 0; i < b->count; i++) {
		const struct fed_stack *s = &b->stacks[i];

		if (call_tree_add(tree, s->first_level, b->symbols + s->first, s->depth, s->period,
				  s->samples, s->tag) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void *feed_loop(void *arg)
{
	struct tree_feed *f = arg;
	struct feed_batch *b;

	for (;;) {
		pthread_mutex_lock(&f->lock);
		while (!f->queue && !f->done)
			pthread_cond_wait(&f->changed, &f->lock);
		b = f->queue;
		if (b) {
			f->queue = b->next;
			if (!f->queue)
				f->queue_tail = NULL;
			f->queued--;
		}
		pthread_mutex_unlock(&f->lock);
		if (!b)
			break;
		/* After an error the rest are only taken, so that the feeding side never waits. */
		if (!f->error)
			f->error = build_batch(f->tree, b);
		b->count = b->symbol_count = 0;
		pthread_mutex_lock(&f->lock);
		b->next = f->spare;
		f->spare = b;
		pthread_cond_broadcast(&f->changed);
		pthread_mutex_unlock(&f->lock);
	}
	if (!f->error)
		f->error = link_children(f->tree);
	return NULL;
}

struct tree_feed *report_tree_feed_start(struct call_tree *tree, int threaded)
{
	struct tree_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->tree = tree;
	if (threaded && pthread_mutex_init(&f->lock, NULL) == 0) {
		if (pthread_cond_init(&f->changed, NULL) == 0) {
			if (pthread_create(&f->thread, NULL, feed_loop, f) == 0) {
				f->threaded = 1;
				return f;
			}
			pthread_cond_destroy(&f->changed);
		}
		pthread_mutex_destroy(&f->lock);
	}
	return f;
}

/* b at the end of the queue, for the tree's thread; under the lock. */
static void enqueue(struct tree_feed *f, struct feed_batch *b)
{
	b->next = NULL;
	if (f->queue_tail)
		f->queue_tail->next = b;
	else
		f->queue = b;
	f->queue_tail = b;
	f->queued++;
	pthread_cond_broadcast(&f->changed);
}

/* The filled batch to the tree's thread; a spare one back, or a new one. */
static int feed_publish(struct tree_feed *f)
{
	struct feed_batch *b = f->filling;

	pthread_mutex_lock(&f->lock);
	if (b) {
		while (f->queued >= FEED_QUEUED_MAX)
			pthread_cond_wait(&f->changed, &f->lock);
		enqueue(f, b);
	}
	f->filling = f->spare;
	if (f->filling) {
		f->spare = f->filling->next;
		f->filling->next = NULL;
	}
	pthread_mutex_unlock(&f->lock);
	if (!f->filling)
		f->filling = calloc(1, sizeof(*f->filling));
	return f->filling ? 0 : -ENOMEM;
}

int report_tree_feed_add(struct tree_feed *f, const char *first_level,
			 const struct report_symbol *const *stack, size_t depth, uint64_t period,
			 uint64_t samples, size_t tag)
{
	struct feed_batch *b;

	if (!f->threaded)
		return call_tree_add(f->tree, first_level, stack, depth, period, samples, tag);
	if ((!f->filling || f->filling->count == FEED_BATCH) && feed_publish(f) < 0)
		return -ENOMEM;
	b = f->filling;
	if (b->symbol_count + depth > b->symbol_capacity) {
		size_t capacity = b->symbol_capacity ? 2 * b->symbol_capacity : 16384;
		const struct report_symbol **grown;

		while (capacity < b->symbol_count + depth)
			capacity *= 2;
		grown = reallocarray(b->symbols, capacity, sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		b->symbols = grown;
		b->symbol_capacity = capacity;
	}
	memcpy(b->symbols + b->symbol_count, stack, depth * sizeof(*stack));
	b->stacks[b->count++] = (struct fed_stack){
		.first_level = first_level, .period = period, .samples = samples, .tag = tag,
		.first = b->symbol_count, .depth = depth,
	};
	b->symbol_count += depth;
	return 0;
}

static void free_batches(struct feed_batch *b)
{
	while (b) {
		struct feed_batch *next = b->next;

		free(b->symbols);
		free(b);
		b = next;
	}
}

int report_tree_feed_finish(struct tree_feed *f)
{
	int error;

	if (!f->threaded) {
		error = link_children(f->tree);
		free(f);
		return error;
	}
	pthread_mutex_lock(&f->lock);
	if (f->filling && f->filling->count) {
		enqueue(f, f->filling);
		f->filling = NULL;
	}
	f->done = 1;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	error = f->error;
	free_batches(f->filling);
	free_batches(f->spare);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	free(f);
	return error;
}
