/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols as they are hit.  A file that carried all of
 * /proc/kallsyms paid more for it than for its samples; a file now
 * carries the symbols its samples meet.
 *
 * The table is common/'s prf_ksym_table, the one a reader of the whole
 * snapshot builds too (perfrec-format(5), "Kernel symbols as hit"): text
 * symbols only, the best name at each address, each symbol
 * ending at the next or, at the end of a module, at a page bound.  The
 * record of a symbol carries that end, so that a reader of the records
 * alone names each address exactly as a reader of the snapshot.
 *
 * Modules and BPF programs come and go: an address that misses rereads
 * the table, at once after prd_ksyms_invalidate(), else at most every
 * KSYMS_RELOAD_NS, and half as often after each reread that did not name
 * the address (down to once in KSYMS_RELOAD_MAX_NS): the kernel's
 * printing of kallsyms costs CPU, and some addresses no reread names
 * (BPF programs without kallsyms entries).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "ksyms.h"
#include "service.h"
#include "synth-internal.h"

#define CACHE_SIZE		4096u	/* direct-mapped, a power of 2 */
#define KSYMS_RELOAD_NS		(30ull * 1000000000u)
#define KSYMS_RELOAD_MAX_NS	(16 * KSYMS_RELOAD_NS)
#define NO_SYMBOL		UINT32_MAX
#define BATCH			256

/* The kallsyms table, and what of it the current file has. */
struct ksym_table {
	struct prf_ksym_table k;
	uint8_t *emitted;		/* a bit per symbol: in this file */
	uint8_t *module_emitted;	/* a byte per module */
};

struct cache_slot {
	uint64_t ip;		/* 0: empty */
	uint32_t symbol;	/* NO_SYMBOL: the ip is in none */
};

struct ksyms {
	char *proc_root, *sys_root;
	struct ksym_table table;
	struct cache_slot cache[CACHE_SIZE];
	uint64_t loaded_ns;
	uint64_t reload_ns;		/* the least time between rereads */
	int stale;
	struct ksyms_stats stats;
};

static void table_free(struct ksym_table *t)
{
	prf_ksym_table_free(&t->k);
	free(t->emitted);
	free(t->module_emitted);
	memset(t, 0, sizeof(*t));
}

/* A line of the text: its symbol into the table, if it is one and fits. */
static int parse_line(struct prf_ksym_table *t, const char *p, const char *end)
{
	struct prf_kallsyms_line line;
	int err;

	if (!prf_kallsyms_parse_line(p, end, &line))
		return 0;
	err = prf_ksym_table_add(t, &line, 0);
	return err == -E2BIG ? 0 : err;	/* what fits is the table */
}

#define READ_SIZE	(64u << 10)

/* Read in pieces, whole lines parsed: the text is never held whole. */
static int table_read(struct ksym_table *t, const char *proc_root)
{
	char path[PATH_MAX], *buf;
	size_t kept = 0;
	ssize_t n;
	int fd, err = 0;

	memset(t, 0, sizeof(*t));
	if (snprintf(path, sizeof(path), "%s/kallsyms", proc_root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	buf = malloc(2 * READ_SIZE);
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	do {
		const char *p = buf, *end;

		n = read(fd, buf + kept, READ_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		end = buf + kept + n;
		while (!err && p < end) {
			const char *newline = memchr(p, '\n', (size_t)(end - p));

			if (!newline && n && end - p < (ptrdiff_t)READ_SIZE)
				break;		/* the rest of the line is still to come */
			if (!newline)
				newline = end;	/* the last line, or one too long to be a symbol */
			err = parse_line(&t->k, p, newline);
			p = newline + (newline < end);
		}
		kept = (size_t)(end - p);
		memmove(buf, p, kept);
	} while (!err && n > 0);
	close(fd);
	free(buf);
	if (!err) {
		void *smaller;

		prf_ksym_table_finish(&t->k);
		/* what the table keeps, no more: it lives as long as perfrecd */
		smaller = reallocarray(t->k.syms, t->k.count + 1, sizeof(*t->k.syms));
		if (smaller) {
			t->k.syms = smaller;
			t->k.capacity = t->k.count + 1;
		}
		smaller = realloc(t->k.names, t->k.names_used + 1);
		if (smaller) {
			t->k.names = smaller;
			t->k.names_capacity = t->k.names_used + 1;
		}
		t->emitted = calloc(t->k.count / 8 + 1, 1);
		t->module_emitted = calloc(t->k.module_count + 1, 1);
		if (!t->emitted || !t->module_emitted)
			err = -ENOMEM;
	}
	if (err)
		table_free(t);
	return err;
}

static int is_emitted(const struct ksym_table *t, size_t i)
{
	return t->emitted[i / 8] >> (i % 8) & 1;
}

static size_t table_find(const struct prf_ksym_table *t, uint64_t ip)
{
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip >= t->syms[lo - 1].end)
		return NO_SYMBOL;
	return lo - 1;
}

/* What this file has of the old table, the same symbol at the same address. */
static void carry_emitted(struct ksym_table *to, const struct ksym_table *from)
{
	const struct prf_ksym_table *a = &from->k, *b = &to->k;

	for (size_t i = 0; i < a->count; i++) {
		const struct prf_ksym *old = &a->syms[i];
		size_t j;

		if (!is_emitted(from, i))
			continue;
		j = table_find(b, old->start);
		if (j != NO_SYMBOL && b->syms[j].start == old->start &&
		    !strcmp(prf_ksym_name(b, &b->syms[j]), prf_ksym_name(a, old)) &&
		    !strcmp(prf_ksym_module(b, &b->syms[j]), prf_ksym_module(a, old)))
			to->emitted[j / 8] |= (uint8_t)(1u << (j % 8));
	}
	for (size_t i = 0; i < a->module_count; i++) {
		if (!from->module_emitted[i])
			continue;
		for (size_t j = 0; j < b->module_count; j++)
			if (!strcmp(b->modules[j], a->modules[i]))
				to->module_emitted[j] = 1;
	}
}

static int reload(struct ksyms *ks)
{
	struct ksym_table fresh;
	uint64_t start = prf_clock_ns(CLOCK_MONOTONIC);
	int err;

	ks->loaded_ns = start;
	ks->stale = 0;
	ks->stats.loads++;
	err = table_read(&fresh, ks->proc_root);
	if (err < 0)
		return err;
	prd_log_debug("kernel symbols: %zu text symbols of %zu modules read from %s/kallsyms in %.1f ms",
		      fresh.k.count, fresh.k.module_count, ks->proc_root,
		      (double)(prf_clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	carry_emitted(&fresh, &ks->table);
	table_free(&ks->table);
	ks->table = fresh;
	ks->stats.symbols = fresh.k.count;
	memset(ks->cache, 0, sizeof(ks->cache));
	return 0;
}

int prd_ksyms_new(struct ksyms **out, const char *proc_root, const char *sys_root)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	int err;

	*out = NULL;
	if (!ks)
		return -ENOMEM;
	ks->proc_root = strdup(proc_root);
	ks->sys_root = strdup(sys_root);
	ks->reload_ns = KSYMS_RELOAD_NS;
	err = ks->proc_root && ks->sys_root ? reload(ks) : -ENOMEM;
	if (err < 0) {
		prd_ksyms_free(ks);
		return err;
	}
	*out = ks;
	return 0;
}

void prd_ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	table_free(&ks->table);
	free(ks->proc_root);
	free(ks->sys_root);
	free(ks);
}

void prd_ksyms_file_started(struct ksyms *ks)
{
	if (!ks)
		return;
	memset(ks->table.emitted, 0, ks->table.k.count / 8 + 1);
	memset(ks->table.module_emitted, 0, ks->table.k.module_count + 1);
}

void prd_ksyms_invalidate(struct ksyms *ks)
{
	if (ks)
		ks->stale = 1;
}

void prd_ksyms_get_stats(const struct ksyms *ks, struct ksyms_stats *stats)
{
	if (ks)
		*stats = ks->stats;
	else
		memset(stats, 0, sizeof(*stats));
}

static uint32_t lookup(struct ksyms *ks, uint64_t ip)
{
	struct cache_slot *slot = &ks->cache[(ip ^ ip >> 12) & (CACHE_SIZE - 1)];
	size_t found;

	ks->stats.lookups++;
	if (slot->ip == ip) {
		ks->stats.cache_hits++;
		return slot->symbol;
	}
	found = table_find(&ks->table.k, ip);
	if (found == NO_SYMBOL &&
	    (ks->stale || prf_clock_ns(CLOCK_MONOTONIC) - ks->loaded_ns >= ks->reload_ns) && reload(ks) == 0) {
		found = table_find(&ks->table.k, ip);
		if (found != NO_SYMBOL)
			ks->reload_ns = KSYMS_RELOAD_NS;
		else if (ks->reload_ns < KSYMS_RELOAD_MAX_NS)
			ks->reload_ns *= 2;
	}
	if (found == NO_SYMBOL)
		ks->stats.misses++;
	slot = &ks->cache[(ip ^ ip >> 12) & (CACHE_SIZE - 1)];
	slot->ip = ip;
	slot->symbol = (uint32_t)found;
	return slot->symbol;
}

static int emit_symbol(struct ksyms *ks, uint32_t i, const struct record_sink *sink,
		       uint64_t time)
{
	union {
		struct prf_kernel_symbol_record record;
		char bytes[sizeof(struct prf_kernel_symbol_record) + PRF_KSYM_NAME_MAX +
			   PRF_MODULE_NAME_MAX + 8];
	} u;
	struct ksym_table *t = &ks->table;
	const struct prf_ksym *k = &t->k.syms[i];
	const char *name = prf_ksym_name(&t->k, k), *module = prf_ksym_module(&t->k, k);
	size_t name_size = strlen(name) + 1, module_size = strlen(module) + 1;
	size_t total = PRF_ALIGN8(sizeof(u.record) + name_size + module_size);
	int err;

	if (k->module && !t->module_emitted[k->module - 1]) {
		/* The module's record (build-id, extent) is a courtesy: its absence no error. */
		err = prd_synthesize_kernel_module(ks->proc_root, ks->sys_root, module, sink, time);
		if (err < 0 && err != -ENOENT && err != -EINVAL && err != -ENOMEM)
			return err;
		t->module_emitted[k->module - 1] = 1;
	}
	memset(&u, 0, sizeof(u));
	u.record.header.type = PRF_RECORD_KERNEL_SYMBOL;
	u.record.header.size = (uint32_t)total;
	u.record.start = k->start;
	u.record.size = (uint32_t)(k->end - k->start);
	u.record.type = k->type;
	memcpy(u.bytes + sizeof(u.record), name, name_size);
	memcpy(u.bytes + sizeof(u.record) + name_size, module, module_size);
	err = sink->emit(sink->context, &u, total, time);
	if (err < 0)
		return err;
	t->emitted[i / 8] |= (uint8_t)(1u << (i % 8));
	ks->stats.emitted++;
	return 0;
}

int prd_ksyms_note_ips(struct ksyms *ks, const uint64_t *ips, size_t count,
		       const struct record_sink *sink, uint64_t time)
{
	for (size_t n = 0; n < count; n++) {
		uint32_t i;
		int err;

		if (!ips[n])
			continue;
		i = lookup(ks, ips[n]);
		if (i == NO_SYMBOL || is_emitted(&ks->table, i))
			continue;
		err = emit_symbol(ks, i, sink, time);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * ip when misc says kernel mode (0: none), and of the callchain (its
 * PERF_CONTEXT_* markers as the kernel wrote them) the kernel entries,
 * callers' less one: the addresses readers look up.
 */
static int note_callchain(struct ksyms *ks, uint16_t misc, uint64_t ip,
			  const uint64_t *callchain, uint64_t nr,
			  const struct record_sink *sink, uint64_t time)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;
	uint64_t ips[BATCH];
	size_t n = 0;
	int err;

	if (!ks)
		return 0;
	if (prf_misc_is_kernel(misc) && ip)
		ips[n++] = ip;
	prf_callchain_walk_start(&walk, callchain, nr, prf_misc_is_kernel(misc));
	while (prf_callchain_next(&walk, &frame)) {
		/* get_perf_callchain() puts the user part last. */
		if (!frame.kernel)
			break;
		if (frame.marker)
			continue;
		ips[n++] = frame.pc;
		if (n == BATCH) {
			err = prd_ksyms_note_ips(ks, ips, n, sink, time);
			if (err < 0)
				return err;
			n = 0;
		}
	}
	return prd_ksyms_note_ips(ks, ips, n, sink, time);
}

int prd_ksyms_note_callchain(struct ksyms *ks, const uint64_t *callchain, uint64_t nr,
			     const struct record_sink *sink, uint64_t time)
{
	if (!nr || callchain[0] != PERF_CONTEXT_KERNEL)
		return 0;
	return note_callchain(ks, PERF_RECORD_MISC_KERNEL, 0, callchain, nr, sink, time);
}

int prd_ksyms_note_sample(struct ksyms *ks, const struct perf_event_attr *attr,
			  const void *record, size_t size,
			  const struct record_sink *sink, uint64_t time)
{
	const struct perf_event_header *header = record;
	const uint64_t *callchain;
	uint64_t ip, nr;

	if (!ks || size < sizeof(*header) ||
	    prf_sample_callchain(attr, record, size, &ip, &callchain, &nr) < 0)
		return 0;
	/* Most samples are of user code: nothing of theirs to look up. */
	if (!prf_misc_is_kernel(header->misc) && (!nr || callchain[0] == PERF_CONTEXT_USER))
		return 0;
	return note_callchain(ks, header->misc, ip, callchain, nr, sink, time);
}
