/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The page's time data: what the aggregation kept of time
 * (report_data.timeline) written for flame.js's heatmap and ranges, and
 * the rule that chooses its lengths (flame_time_options()).
 *
 * A profile's "time" (flame-html.c writes it after "nodes"):
 *   "origin_ns"      capture clock of slot and bucket 0 (a number: below 2^53)
 *   "origin_utc_ms"  the same as UTC milliseconds since the epoch
 *   "realtime_offset_ns"  a string: add to the capture clock for UTC
 *   "slot_ns", "bucket_ns", "rows"   the lengths, and the heatmap's rows
 *                    a column (a column is rows buckets)
 *   "slot_count", "bucket_count"
 *   "files":   the capture's file names when there are at most
 *              FLAME_COMMAND_FILES and each can be said as it is (for the
 *              command a range prints), else absent
 *   "slots":   varints: for each slot with entries, the slots skipped
 *              since the last one with entries, then its entry count
 *   "entries": varints: per entry, its code less the slot's code before
 *              (codes ascend within a slot), its period, its samples; a
 *              code is a node's index
 *              (the order of "nodes") times 2, plus 1 when the stacks
 *              end in a node the percent limit left out of the page (the
 *              node is then its nearest ancestor in the page: the time
 *              counts in that node's total, not its self)
 *   "buckets": varints: per bucket with samples, the buckets skipped
 *              since the last one, its samples, and for a profile of
 *              nanoseconds (off-CPU, wall) its period
 * each varint array LEB128 (as common.h's) in base64: a third the size of
 * JSON numbers, and decoded by a loop of the page's own.
 *
 * Sizes: entries are slots times the distinct stacks of each slot, never
 * samples, and at most FLAME_MAX_ENTRIES; buckets are bounded by
 * flame_time_options()'s budget.  bench/timeline-page.sh measures both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flame-internal.h"

/*
 * The lengths, and why:
 *  - buckets of 20 ms, 50 rows a 1 s column, as FlameScope's heatmap,
 *    while the capture has fewer than FLAME_MAX_CELLS of them (100 min):
 *    the page holds every one, and a coarse column of a long capture
 *    zooms in to 1 s columns anywhere.  Longer captures take the
 *    smallest step of report_time_step() that keeps the buckets under
 *    the budget (24 h: 500 ms buckets, 25 s columns): the heatmap's
 *    part of the page stays below about 1.5 MB however long the capture.
 *  - slots, the ranges' resolution, from report_time_step() with fewer
 *    than FLAME_MAX_SLOTS (1 h: 1 s), and beyond FLAME_LONG_NS fewer in
 *    proportion (4 h: 10 s; 24 h: 5 min), never below 100 ms and a
 *    whole number of buckets: the entries grow with slots times the
 *    distinct stacks in each, and a selection snaps to slots.  The
 *    aggregation keeps them by raw stack: a day of a busy machine
 *    (bench/README.md) took perfrec-report 3.5 GB at 30 s slots, 0.8 GB
 *    at 5 min (0.15 GB without time).
 *  - then in the page, slots merged while a profile would have more
 *    than FLAME_MAX_ENTRIES entries (pack()): a day of a busy machine's
 *    thousands of distinct stacks a slot gives 5 min ranges, not a
 *    page of 70 MB; an hour's stays at 1 s.
 *  - the origin on a UTC boundary of both the slot and the column, so
 *    that columns and slots start at whole seconds (or minutes) of UTC
 *    and a range's --since/--until in whole units names exactly its
 *    slots.
 */
#define FLAME_HEATMAP_ROWS	50
#define FLAME_FINE_BUCKET_NS	20000000ull
#define FLAME_MAX_CELLS		300000ull
#define FLAME_MAX_SLOTS		4000ull
#define FLAME_MIN_SLOT_NS	100000000ull
#define FLAME_LONG_NS		(2 * 3600 * 1000000000ull)
#define FLAME_COMMAND_FILES	16

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

void flame_time_options(uint64_t start_ns, uint64_t end_ns, int64_t realtime_offset_ns,
			struct aggregate_options *options)
{
	uint64_t duration = end_ns > start_ns ? end_ns - start_ns : 0;
	uint64_t bucket = FLAME_FINE_BUCKET_NS, slot, column, align;
	int64_t wall, phase;

	/*
	 * The page says times in UTC: a capture whose start has no wall-clock
	 * time (a realtime offset that overflows, or one before 1970) gets
	 * no heatmap, rather than times that wrap.
	 */
	if (start_ns > INT64_MAX ||
	    __builtin_add_overflow((int64_t)start_ns, realtime_offset_ns, &wall) || wall < 0)
		return;
	if (duration / FLAME_FINE_BUCKET_NS >= FLAME_MAX_CELLS)
		bucket = report_time_step(duration, FLAME_MAX_CELLS);
	slot = report_time_step(duration, duration > FLAME_LONG_NS ?
				FLAME_MAX_SLOTS * FLAME_LONG_NS / duration : FLAME_MAX_SLOTS);
	if (slot < FLAME_MIN_SLOT_NS)
		slot = FLAME_MIN_SLOT_NS;
	slot = (slot + bucket - 1) / bucket * bucket;
	column = bucket * FLAME_HEATMAP_ROWS;
	align = slot / gcd(slot, column) * column;
	phase = (wall % (int64_t)align + (int64_t)align) % (int64_t)align;
	/* A capture that starts right after boot: bucket 0 at the start itself. */
	options->time_origin_ns = start_ns >= (uint64_t)phase ? start_ns - (uint64_t)phase : start_ns;
	options->time_slot_ns = slot;
	options->time_bucket_ns = bucket;
	options->time_end_ns = end_ns;
}

/* ---- base64 of varints ---------------------------------------------- */

struct b64 {
	FILE *out;
	uint8_t held[3];
	int count;
};

static const char b64_digits[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_flush(struct b64 *b)
{
	uint32_t v = (uint32_t)b->held[0] << 16 | (uint32_t)b->held[1] << 8 | b->held[2];
	char quad[4] = { b64_digits[v >> 18], b64_digits[(v >> 12) & 63],
			 b64_digits[(v >> 6) & 63], b64_digits[v & 63] };

	if (b->count < 3)
		quad[3] = '=';
	if (b->count < 2)
		quad[2] = '=';
	fwrite(quad, 1, 4, b->out);
	memset(b->held, 0, sizeof(b->held));
	b->count = 0;
}

static void b64_varint(struct b64 *b, uint64_t v)
{
	uint8_t bytes[PRF_VARINT_MAX], *end = prf_varint_put(bytes, v);

	for (const uint8_t *p = bytes; p < end; p++) {
		b->held[b->count++] = *p;
		if (b->count == 3)
			b64_flush(b);
	}
}

static void b64_begin(struct b64 *b, FILE *out, const char *name)
{
	*b = (struct b64){ .out = out };
	fprintf(out, ",\n\"%s\":\"", name);
}

static void b64_end(struct b64 *b)
{
	if (b->count)
		b64_flush(b);
	fputc('"', b->out);
}

/* ---- the page's node of each tree node ------------------------------ */

struct node_codes {
	struct prf_index index;
	const struct call_node **keys;	/* by id - 1 */
	uint32_t *codes;
	size_t count, capacity, code_capacity;
};

static int node_equal(const void *context, uint32_t id, const void *key)
{
	const struct node_codes *c = context;

	return c->keys[id - 1] == key;
}

static int codes_add(struct node_codes *c, const struct call_node *node, uint32_t code)
{
	uint64_t hash = prf_hash_mix((uintptr_t)node);
	struct prf_index_slot *slot = prf_index_place(&c->index, hash, node_equal, c, node);

	if (!slot)
		return -1;
	if (slot->id)
		return 0;
	if (prf_ensure_mem((void **)&c->keys, &c->capacity, sizeof(*c->keys), c->count + 1) < 0 ||
	    prf_ensure_mem((void **)&c->codes, &c->code_capacity, sizeof(*c->codes),
			   c->count + 1) < 0)
		return -1;
	c->keys[c->count] = node;
	c->codes[c->count++] = code;
	prf_index_insert(&c->index, slot, hash, (uint32_t)c->count);
	return 0;
}

/* The code of node: its page index * 2, or its nearest shown ancestor's * 2 + 1. */
static int64_t node_code(struct node_codes *c, const struct call_node *node)
{
	const struct call_node *a = node;
	uint32_t id = 0;

	while (a && !(id = prf_index_lookup(&c->index, prf_hash_mix((uintptr_t)a), node_equal,
					    c, a)))
		a = a->parent;
	if (!id)
		return 1;	/* not even the root: the root's "left out" */
	if (a == node)
		return c->codes[id - 1];
	/* Remembered, so that a deep left-out subtree is walked once. */
	if (codes_add(c, node, (c->codes[id - 1] & ~1u) | 1) < 0)
		return -1;
	return (c->codes[id - 1] & ~1u) | 1;
}

static void codes_free(struct node_codes *c)
{
	prf_index_free(&c->index);
	free(c->keys);
	free(c->codes);
}

/*
 * The page's entries: a slot's entries of one page node summed (the page
 * knows nodes, not flat rows; left-out nodes fold into their shown
 * ancestor), by code within a slot.  With more than FLAME_MAX_ENTRIES
 * of them, slots are merged k at a time (k a whole number, the merged
 * length a step of report_time_step()) until they fit: the ranges get
 * coarser, the page stays bounded whatever the distinct stacks.
 */
#define FLAME_MAX_ENTRIES	1500000u

struct packed {
	uint32_t slot, code;
	uint64_t period, samples;
};

struct packing {
	struct packed *list;
	size_t count, capacity;
};

static int packed_order(const void *a, const void *b)
{
	const struct packed *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

/* codes[i] is entry i's; the entries of slots merged k at a time into p. */
static int pack(struct packing *p, const struct report_timeline *t, const uint32_t *codes,
		uint32_t k)
{
	p->count = 0;
	for (size_t i = 0; i < t->entry_count;) {
		uint32_t slot = t->entries[i].slot / k;
		size_t from = p->count, j = i;

		for (; j < t->entry_count && t->entries[j].slot / k == slot; j++) {
			if (prf_ensure_mem((void **)&p->list, &p->capacity, sizeof(*p->list),
					   p->count + 1) < 0)
				return -ENOMEM;
			p->list[p->count++] = (struct packed){ slot, codes[j], t->entries[j].period,
							       t->entries[j].samples };
		}
		qsort(p->list + from, p->count - from, sizeof(*p->list), packed_order);
		size_t out = from;

		for (size_t m = from; m < p->count; m++) {
			if (out > from && p->list[out - 1].code == p->list[m].code) {
				p->list[out - 1].period += p->list[m].period;
				p->list[out - 1].samples += p->list[m].samples;
			} else {
				p->list[out++] = p->list[m];
			}
		}
		p->count = out;
		i = j;
	}
	return 0;
}

/*
 * The command a range prints names the files: at most FLAME_COMMAND_FILES,
 * each valid UTF-8 without a control character, which the page's strings
 * would replace (a command naming the replacement reads another file).
 */
static int files_said(const struct session_summary *h)
{
	if (!h->file_names || !h->files || h->files > FLAME_COMMAND_FILES)
		return 0;
	for (size_t i = 0; i < h->files; i++)
		if (!prf_text_is_safe(h->file_names[i]))
			return 0;
	return 1;
}

int flame_time_write(FILE *out, const struct report_data *data,
		     const struct call_node *const *page_nodes, size_t page_node_count)
{
	const struct report_timeline *t = &data->timeline;
	int ns = data->weight_unit != NULL;
	struct node_codes codes = { 0 };
	struct packing packing = { 0 };
	uint32_t *entry_codes = NULL, k = 1, slot_count;
	struct b64 b;
	uint64_t origin_wall = t->origin_ns + (uint64_t)data->header.realtime_offset_ns;
	int err = 0;

	for (size_t i = 0; i < page_node_count && !err; i++)
		err = codes_add(&codes, page_nodes[i], (uint32_t)(2 * i));
	entry_codes = t->entry_count ? reallocarray(NULL, t->entry_count, sizeof(*entry_codes)) : NULL;
	if (t->entry_count && !entry_codes)
		err = -1;
	for (size_t i = 0; i < t->entry_count && !err; i++) {
		int64_t code = node_code(&codes, t->entries[i].node);

		if (code < 0)
			err = -1;
		else
			entry_codes[i] = (uint32_t)code;
	}
	if (!err)
		err = pack(&packing, t, entry_codes, k);
	while (!err && packing.count > FLAME_MAX_ENTRIES && k < t->slot_count) {
		/* Fewer slots by the share that is over, rounded to a step. */
		uint64_t want = (uint64_t)t->slot_count * FLAME_MAX_ENTRIES / packing.count;
		uint64_t step = report_time_step((uint64_t)t->slot_count * t->slot_ns, want ? want : 1);
		uint32_t next = (uint32_t)((step + t->slot_ns - 1) / t->slot_ns);

		k = next > k ? next : 2 * k;
		err = pack(&packing, t, entry_codes, k);
	}
	free(entry_codes);
	codes_free(&codes);
	if (err) {
		free(packing.list);
		return -ENOMEM;
	}
	slot_count = (t->slot_count + k - 1) / k;
	fprintf(out, ",\n\"time\":{\"origin_ns\":%" PRIu64 ",\"origin_utc_ms\":%" PRIu64 ".%06" PRIu64
		",\"realtime_offset_ns\":\"%" PRId64 "\",\"slot_ns\":%" PRIu64 ",\"bucket_ns\":%" PRIu64
		",\"rows\":%d,\"slot_count\":%" PRIu32 ",\"bucket_count\":%zu",
		t->origin_ns, origin_wall / 1000000, origin_wall % 1000000,
		data->header.realtime_offset_ns, k * t->slot_ns, t->bucket_ns, FLAME_HEATMAP_ROWS,
		slot_count, t->bucket_count);
	if (files_said(&data->header)) {
		fputs(",\"files\":[", out);
		for (size_t i = 0; i < data->header.files; i++) {
			if (i)
				fputc(',', out);
			flame_json_string(out, data->header.file_names[i]);
		}
		fputc(']', out);
	}

	/* The slots with entries, and how many each has. */
	b64_begin(&b, out, "slots");
	for (size_t i = 0, next = 0; i < packing.count;) {
		size_t j = i;

		while (j < packing.count && packing.list[j].slot == packing.list[i].slot)
			j++;
		b64_varint(&b, packing.list[i].slot - next);
		b64_varint(&b, j - i);
		next = packing.list[i].slot + 1;
		i = j;
	}
	b64_end(&b);

	/* By code within a slot: each the difference from the one before. */
	b64_begin(&b, out, "entries");
	for (size_t i = 0; i < packing.count; i++) {
		const struct packed *e = &packing.list[i];
		int first = !i || e->slot != packing.list[i - 1].slot;

		b64_varint(&b, e->code - (first ? 0 : packing.list[i - 1].code));
		b64_varint(&b, e->period);
		b64_varint(&b, e->samples);
	}
	b64_end(&b);
	free(packing.list);

	b64_begin(&b, out, "buckets");
	for (size_t i = 0; i < t->bucket_count; i++) {
		const struct report_time_bucket *bk = &t->buckets[i];

		b64_varint(&b, bk->index - (i ? t->buckets[i - 1].index + 1 : 0));
		b64_varint(&b, bk->samples);
		if (ns)
			b64_varint(&b, bk->period);
	}
	b64_end(&b);
	fputc('}', out);
	return 0;
}
