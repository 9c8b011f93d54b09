/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols as they are hit.  A file that carried all of
 * /proc/kallsyms (about 1 MB compressed) paid more for it than for its
 * samples; a file now carries the few hundred symbols its samples meet.
 *
 * The table is read as a reader of the whole snapshot would read it
 * (reader/symbolize/kallsyms.c; perfrec-format(5), "Kernel symbols as
 * hit"): text symbols only, the best name at each address, each symbol
 * ending at the next or, at the end of a module, at a page bound.  The
 * record of a symbol carries that end, so that a reader of the records
 * alone names each address exactly as a reader of the snapshot.
 *
 * Modules and BPF programs come and go: an address that misses rereads
 * the table, at once after ksyms_invalidate(), else at most every
 * KSYMS_RELOAD_NS, and half as often after each reread that did not name
 * the address (down to once in KSYMS_RELOAD_MAX_NS): the kernel takes
 * about 50 ms of CPU to print its 5 MB of kallsyms, and some addresses
 * no reread names (BPF programs without kallsyms entries).
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

#define MODULES_MAX		65535u
#define SYMBOL_SPAN_MAX		(1u << 20)
#define KERNEL_PAGE		4096u
#define CACHE_SIZE		4096u	/* direct-mapped, a power of 2 */
#define KSYMS_RELOAD_NS		(30ull * 1000000000u)
#define KSYMS_RELOAD_MAX_NS	(16 * KSYMS_RELOAD_NS)
#define NO_SYMBOL		UINT32_MAX
#define BATCH			256

struct ksym {
	uint64_t start;
	uint32_t size;
	uint32_t name;		/* offset of the NUL-terminated name in names */
	uint32_t index;		/* line order, the last tie-break */
	uint16_t module;	/* 1 + index in modules; 0: the kernel proper */
	uint8_t type;
	uint8_t rank;		/* lower wins at one address */
};

struct ksym_table {
	struct ksym *syms;
	size_t count, capacity;
	char *names;
	size_t names_used, names_capacity;
	char (*modules)[PRF_MODULE_NAME_MAX];
	size_t module_count, module_capacity;
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
	free(t->syms);
	free(t->names);
	free(t->modules);
	free(t->emitted);
	free(t->module_emitted);
	memset(t, 0, sizeof(*t));
}

static int grow(void **array, size_t *capacity, size_t need, size_t element)
{
	size_t n = *capacity ? *capacity : 64;
	void *bigger;

	if (need <= *capacity)
		return 0;
	while (n < need)
		n *= 2;
	bigger = realloc(*array, n * element);
	if (!bigger)
		return -ENOMEM;
	*array = bigger;
	*capacity = n;
	return 0;
}

/* The module "name" (line->module): 1 + its index in t, 0 for none. */
static int module_of(struct ksym_table *t, const struct prf_kallsyms_line *line,
		     uint16_t *module)
{
	size_t length = line->module_length;

	*module = 0;
	if (!line->module)
		return 0;
	/* a module's symbols are listed together: the last one first */
	for (size_t i = t->module_count; i-- > 0;) {
		if (!strncmp(t->modules[i], line->module, length) && !t->modules[i][length]) {
			*module = (uint16_t)(i + 1);
			return 0;
		}
	}
	if (t->module_count == MODULES_MAX)
		return 0;
	if (grow((void **)&t->modules, &t->module_capacity, t->module_count + 1,
		 sizeof(*t->modules)) < 0)
		return -ENOMEM;
	memcpy(t->modules[t->module_count], line->module, length);
	t->modules[t->module_count][length] = '\0';
	*module = (uint16_t)++t->module_count;
	return 0;
}

static int parse_line(struct ksym_table *t, const char *p, const char *end)
{
	struct ksym k = { .index = (uint32_t)t->count };
	struct prf_kallsyms_line line;

	if (!prf_kallsyms_parse_line(p, end, &line))
		return 0;
	if (module_of(t, &line, &k.module) < 0 ||
	    grow((void **)&t->names, &t->names_capacity, t->names_used + line.name_length + 1, 1) < 0 ||
	    grow((void **)&t->syms, &t->capacity, t->count + 1, sizeof(*t->syms)) < 0)
		return -ENOMEM;
	k.start = line.address;
	k.type = (uint8_t)line.type;
	k.rank = (uint8_t)line.rank;
	k.name = (uint32_t)t->names_used;
	memcpy(t->names + t->names_used, line.name, line.name_length);
	t->names[t->names_used + line.name_length] = '\0';
	t->names_used += line.name_length + 1;
	t->syms[t->count++] = k;
	return 0;
}

static int compare_syms(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorted, the best name of each address kept, each one's end set. */
static void table_finish(struct ksym_table *t)
{
	size_t kept = 0;

	if (!t->count)		/* hidden addresses: no table, and qsort(NULL) is undefined */
		return;
	qsort(t->syms, t->count, sizeof(*t->syms), compare_syms);
	for (size_t i = 0; i < t->count; i++)
		if (!kept || t->syms[kept - 1].start != t->syms[i].start)
			t->syms[kept++] = t->syms[i];
	t->count = kept;
	for (size_t i = 0; i < t->count; i++) {
		const struct ksym *next = i + 1 < t->count ? &t->syms[i + 1] : NULL;
		uint64_t start = t->syms[i].start, span, end;

		if (next && next->module == t->syms[i].module)
			span = SYMBOL_SPAN_MAX;
		else	/* to the next page boundary, then one page */
			span = (KERNEL_PAGE - (start & (KERNEL_PAGE - 1))) % KERNEL_PAGE + KERNEL_PAGE;
		end = start + span < start ? UINT64_MAX : start + span;
		if (next && next->start < end)
			end = next->start;
		t->syms[i].size = (uint32_t)(end - start);
	}
}

#define READ_SIZE	(64u << 10)

/* Read in pieces, whole lines parsed: the 5 MB text is never held whole. */
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
			if (t->count < UINT32_MAX && t->names_used < UINT32_MAX - PRF_KSYM_NAME_MAX)
				err = parse_line(t, p, newline);
			p = newline + (newline < end);
		}
		kept = (size_t)(end - p);
		memmove(buf, p, kept);
	} while (!err && n > 0);
	close(fd);
	free(buf);
	if (!err) {
		void *smaller;

		table_finish(t);
		/* what the table keeps, no more: it lives as long as perfrecd */
		smaller = realloc(t->syms, (t->count + 1) * sizeof(*t->syms));
		t->syms = smaller ? smaller : t->syms;
		smaller = realloc(t->names, t->names_used + 1);
		t->names = smaller ? smaller : t->names;
		t->emitted = calloc(t->count / 8 + 1, 1);
		t->module_emitted = calloc(t->module_count + 1, 1);
		if (!t->emitted || !t->module_emitted)
			err = -ENOMEM;
	}
	if (err)
		table_free(t);
	return err;
}

static const char *module_name(const struct ksym_table *t, const struct ksym *k)
{
	return k->module ? t->modules[k->module - 1] : "";
}

static int is_emitted(const struct ksym_table *t, size_t i)
{
	return t->emitted[i / 8] >> (i % 8) & 1;
}

static size_t table_find(const struct ksym_table *t, uint64_t ip)
{
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip - t->syms[lo - 1].start >= t->syms[lo - 1].size)
		return NO_SYMBOL;
	return lo - 1;
}

/* What this file has of the old table, the same symbol at the same address. */
static void carry_emitted(struct ksym_table *to, const struct ksym_table *from)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct ksym *old = &from->syms[i];
		size_t j;

		if (!is_emitted(from, i))
			continue;
		j = table_find(to, old->start);
		if (j != NO_SYMBOL && to->syms[j].start == old->start &&
		    !strcmp(to->names + to->syms[j].name, from->names + old->name) &&
		    !strcmp(module_name(to, &to->syms[j]), module_name(from, old)))
			to->emitted[j / 8] |= (uint8_t)(1u << (j % 8));
	}
	for (size_t i = 0; i < from->module_count; i++) {
		if (!from->module_emitted[i])
			continue;
		for (size_t j = 0; j < to->module_count; j++)
			if (!strcmp(to->modules[j], from->modules[i]))
				to->module_emitted[j] = 1;
	}
}

static int reload(struct ksyms *ks)
{
	struct ksym_table fresh;
	uint64_t start = synth_now();
	int err;

	ks->loaded_ns = start;
	ks->stale = 0;
	ks->stats.loads++;
	err = table_read(&fresh, ks->proc_root);
	if (err < 0)
		return err;
	log_debug("kernel symbols: %zu text symbols of %zu modules read from %s/kallsyms in %.1f ms",
		  fresh.count, fresh.module_count, ks->proc_root,
		  (double)(synth_now() - start) / 1e6);
	carry_emitted(&fresh, &ks->table);
	table_free(&ks->table);
	ks->table = fresh;
	ks->stats.symbols = fresh.count;
	memset(ks->cache, 0, sizeof(ks->cache));
	return 0;
}

int ksyms_new(struct ksyms **out, const char *proc_root, const char *sys_root)
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
		ksyms_free(ks);
		return err;
	}
	*out = ks;
	return 0;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	table_free(&ks->table);
	free(ks->proc_root);
	free(ks->sys_root);
	free(ks);
}

void ksyms_file_started(struct ksyms *ks)
{
	if (!ks)
		return;
	memset(ks->table.emitted, 0, ks->table.count / 8 + 1);
	memset(ks->table.module_emitted, 0, ks->table.module_count + 1);
}

void ksyms_invalidate(struct ksyms *ks)
{
	if (ks)
		ks->stale = 1;
}

void ksyms_get_stats(const struct ksyms *ks, struct ksyms_stats *stats)
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
	found = table_find(&ks->table, ip);
	if (found == NO_SYMBOL &&
	    (ks->stale || synth_now() - ks->loaded_ns >= ks->reload_ns) && reload(ks) == 0) {
		found = table_find(&ks->table, ip);
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
	const struct ksym *k = &t->syms[i];
	const char *name = t->names + k->name, *module = module_name(t, k);
	size_t name_size = strlen(name) + 1, module_size = strlen(module) + 1;
	size_t total = SYNTH_ALIGN8(sizeof(u.record) + name_size + module_size);
	int err;

	if (k->module && !t->module_emitted[k->module - 1]) {
		/* The module's record (build-id, extent) is a courtesy: its absence no error. */
		err = synthesize_kernel_module(ks->proc_root, ks->sys_root, module, sink, time);
		if (err < 0 && err != -ENOENT && err != -EINVAL && err != -ENOMEM)
			return err;
		t->module_emitted[k->module - 1] = 1;
	}
	memset(&u, 0, sizeof(u));
	u.record.header.type = PRF_RECORD_KERNEL_SYMBOL;
	u.record.header.size = (uint32_t)total;
	u.record.start = k->start;
	u.record.size = k->size;
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

int ksyms_note_ips(struct ksyms *ks, const uint64_t *ips, size_t count,
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

static int is_kernel_mode(uint16_t misc)
{
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
}

/* The addresses readers look up (reader/report/aggregate.c's build_stack()). */
int ksyms_note_callchain(struct ksyms *ks, uint16_t misc, uint64_t ip,
			 const uint64_t *callchain, uint64_t nr,
			 const struct record_sink *sink, uint64_t time)
{
	uint64_t ips[BATCH];
	size_t n = 0;
	int kernel, first = 1, err;

	if (!ks)
		return 0;
	kernel = is_kernel_mode(misc);
	if (kernel && ip)
		ips[n++] = ip;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t address = callchain[i];

		/* get_perf_callchain() puts the user part last. */
		if (address == PERF_CONTEXT_USER)
			break;
		if (address >= PERF_CONTEXT_MAX) {
			kernel = address == PERF_CONTEXT_KERNEL ||
				 address == PERF_CONTEXT_GUEST_KERNEL;
			first = 1;
			continue;
		}
		if (!address)
			continue;
		if (kernel)
			ips[n++] = first ? address : address - 1;
		first = 0;
		if (n == BATCH) {
			err = ksyms_note_ips(ks, ips, n, sink, time);
			if (err < 0)
				return err;
			n = 0;
		}
	}
	return ksyms_note_ips(ks, ips, n, sink, time);
}

int ksyms_note_sample(struct ksyms *ks, const struct perf_event_attr *attr,
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
	if (!is_kernel_mode(header->misc) && (!nr || callchain[0] == PERF_CONTEXT_USER))
		return 0;
	return ksyms_note_callchain(ks, header->misc, ip, callchain, nr, sink, time);
}
