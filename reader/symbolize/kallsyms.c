/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel from the capture's /proc/kallsyms: text symbols ("ADDR t
 * name", "ADDR T name\t[module]") sorted into one table, one symbol per
 * address.  kallsyms has no sizes: a symbol ends where the next begins,
 * bounded so that an address in a hole or past the last symbol resolves
 * to nothing rather than to a wrong name.
 *
 * A kernel has over a hundred thousand symbols and a profile meets a few
 * hundred of them: names are copied into one block as they are parsed,
 * and only interned when a lookup asks for one.
 *
 * Captures of --kernel-symbols=hit carry only those few hundred, each with
 * the end this file would have given it in the whole table
 * (symbolizer_kernel_hit()): every symbol keeps its end, so both kinds
 * resolve by one rule.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "symbolize-internal.h"

#define SYMBOL_SPAN_MAX (1u << 20)
#define KERNEL_PAGE 4096u

struct parsed_symbol {
	uint64_t address;
	uint64_t end;		/* set once the list is sorted, or as recorded */
	uint32_t name_offset;	/* in the list's names */
	uint16_t name_length;
	const char *module;	/* interned "[name]", NULL for the kernel proper */
	unsigned rank;		/* lower wins among symbols at one address */
	size_t index;		/* order in the text, the last tie-break */
};

struct symbol_list {
	struct parsed_symbol *symbols;
	size_t count, capacity;
	char *names;		/* each name, without a terminator */
	size_t names_used, names_capacity;
};

static int list_add(struct symbol_list *list, const struct parsed_symbol *symbol)
{
	if (list->count == list->capacity) {
		size_t capacity = 2 * list->capacity;
		struct parsed_symbol *symbols = realloc(list->symbols, capacity * sizeof(*symbols));

		if (!symbols)
			return -ENOMEM;
		list->symbols = symbols;
		list->capacity = capacity;
	}
	list->symbols[list->count++] = *symbol;
	return 0;
}

/* One line; lines that are no text symbol (or hide their address) are skipped. */
static int name_add(struct symbol_list *list, const char *name, size_t length,
		    struct parsed_symbol *symbol)
{
	if (list->names_capacity - list->names_used < length) {
		size_t capacity = 2 * list->names_capacity + length;
		char *names = capacity > UINT32_MAX ? NULL : realloc(list->names, capacity);

		if (!names)
			return -ENOMEM;
		list->names = names;
		list->names_capacity = capacity;
	}
	memcpy(list->names + list->names_used, name, length);
	symbol->name_offset = (uint32_t)list->names_used;
	symbol->name_length = (uint16_t)length;
	list->names_used += length;
	return 0;
}

static int parse_line(struct symbolizer *s, const char *p, const char *end,
		      struct symbol_list *list)
{
	struct parsed_symbol symbol = { .index = list->count };
	struct prf_kallsyms_line line;

	if (!prf_kallsyms_parse_line(p, end, &line))
		return 0;
	if (name_add(list, line.name, line.name_length, &symbol) < 0)
		return -ENOMEM;
	symbol.address = line.address;
	symbol.rank = line.rank;
	/* interned with its brackets, "[ext4]", as modules' DSOs are named */
	symbol.module = line.module ? symbolizer_intern_shown_n(s, line.module - 1,
								line.module_length + 2) : NULL;
	return list_add(list, &symbol);
}

static int parse_kallsyms(struct symbolizer *s, const char *text, size_t size,
			  struct symbol_list *list)
{
	const char *end = text + size;

	/* Sized for /proc/kallsyms (about 44 bytes a line, 20 of them the name). */
	list->capacity = size / 32 + 64;
	list->names_capacity = size / 2 + 64;
	list->symbols = malloc(list->capacity * sizeof(*list->symbols));
	list->names = malloc(list->names_capacity);
	if (!list->symbols || !list->names)
		return -ENOMEM;
	for (const char *p = text; p < end;) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = newline ? newline : end;
		int err = parse_line(s, p, line_end, list);

		if (err < 0)
			return err;
		p = line_end + 1;
	}
	return 0;
}

static int compare_parsed(const void *a, const void *b)
{
	const struct parsed_symbol *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Where each symbol ends: the next symbol, within 1 MiB; at the end of a
 * module (or of the table) the next page boundary past its start, as perf
 * bounds the last kallsyms symbol.  perfrecd's ksyms.c gives hit symbols
 * the same end.
 */
static void set_ends(struct symbol_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		struct parsed_symbol *symbol = &list->symbols[i];
		const struct parsed_symbol *next = i + 1 < list->count ? symbol + 1 : NULL;
		uint64_t start = symbol->address, span, end;

		if (next && next->module == symbol->module)
			span = SYMBOL_SPAN_MAX;
		else	/* to the next page boundary, then one page */
			span = (KERNEL_PAGE - (start & (KERNEL_PAGE - 1))) % KERNEL_PAGE + KERNEL_PAGE;
		end = start + span < start ? UINT64_MAX : start + span;
		symbol->end = next && next->address < end ? next->address : end;
	}
}

/* Sorted, keeping the best name of each address. */
static void sort_unique(struct symbol_list *list)
{
	size_t kept = 0, in_order = 1;

	/* /proc/kallsyms is all but sorted: check before paying for a sort. */
	while (in_order < list->count &&
	       compare_parsed(&list->symbols[in_order - 1], &list->symbols[in_order]) < 0)
		in_order++;
	if (in_order < list->count)
		qsort(list->symbols, list->count, sizeof(*list->symbols), compare_parsed);
	for (size_t i = 0; i < list->count; i++)
		if (!kept || list->symbols[kept - 1].address != list->symbols[i].address)
			list->symbols[kept++] = list->symbols[i];
	list->count = kept;
}

static const char *owner_module(const struct dso *kernel, const struct kernel_symbol *symbol)
{
	return symbol->owner == kernel ? NULL : symbol->owner->short_name;
}

/* Several captures of one host carry one kallsyms: they share a DSO. */
static struct dso *same_kernel(struct symbolizer *s, const struct symbol_list *list,
			       const uint8_t *build_id, size_t build_id_size)
{
	for (struct dso *k = s->files; k; k = k->next) {
		size_t i;

		if (k->kind != DSO_KERNEL || k->symbol_count != list->count ||
		    k->build_id_size != build_id_size ||
		    (build_id_size && memcmp(k->build_id, build_id, build_id_size)))
			continue;
		for (i = 0; i < list->count; i++) {
			const struct parsed_symbol *p = &list->symbols[i];
			const struct kernel_symbol *q = &k->symbols[i];

			if (p->address != q->address || p->end != q->end ||
			    p->name_length != q->name_length ||
			    memcmp(list->names + p->name_offset, k->kallsyms_names + q->name_offset,
				   p->name_length) || p->module != owner_module(k, q))
				break;
		}
		if (i == list->count)
			return k;
	}
	return NULL;
}

static struct dso *module_dso(struct symbolizer *s, struct dso *kernel, const char *name)
{
	struct dso *module;

	for (module = kernel->modules; module; module = module->next)
		if (module->short_name == name)
			return module;
	module = symbolizer_alloc(s, sizeof(*module));
	if (!module)
		return NULL;
	module->kind = DSO_MODULE;
	module->state = DSO_OPEN;
	module->path = module->short_name = name;
	module->next = kernel->modules;
	kernel->modules = module;
	return module;
}

static struct dso *kernel_create(struct symbolizer *s, struct symbol_list *list,
				 const uint8_t *build_id, size_t build_id_size)
{
	struct dso *kernel = symbolizer_alloc(s, sizeof(*kernel));

	if (!kernel)
		return NULL;
	kernel->kind = DSO_KERNEL;
	kernel->state = DSO_OPEN;
	kernel->path = kernel->short_name = symbolizer_intern(s, "[kernel.kallsyms]");
	kernel->symbols = calloc(list->count ? list->count : 1, sizeof(*kernel->symbols));
	if (!kernel->path || !kernel->symbols) {
		free(kernel->symbols);
		kernel->symbols = NULL;
		return NULL;
	}
	for (size_t i = 0; i < list->count; i++) {
		const struct parsed_symbol *p = &list->symbols[i];
		struct dso *owner = p->module ? module_dso(s, kernel, p->module) : kernel;

		if (!owner) {
			free(kernel->symbols);
			kernel->symbols = NULL;
			return NULL;
		}
		kernel->symbols[i] = (struct kernel_symbol){
			.address = p->address,
			.end = p->end,
			.name_offset = p->name_offset,
			.name_length = p->name_length,
			.owner = owner,
		};
	}
	kernel->symbol_count = list->count;
	kernel->kallsyms_names = list->names;	/* the kernel's now */
	list->names = NULL;
	if (build_id_size)
		memcpy(kernel->build_id, build_id, build_id_size);
	kernel->build_id_size = build_id_size;
	build_id_to_hex(kernel->build_id_hex, build_id, build_id_size);
	kernel->next = s->files;
	s->files = kernel;
	return kernel;
}

struct dso *symbolizer_kernel(struct symbolizer *s, const char *kallsyms, size_t size,
			      const uint8_t *build_id, size_t build_id_size)
{
	struct symbol_list list = { 0 };
	struct dso *kernel = NULL;

	if (!s || (size && !kallsyms) || build_id_size > BUILD_ID_MAX ||
	    (build_id_size && !build_id)) {
		errno = EINVAL;
		return NULL;
	}
	if (parse_kallsyms(s, kallsyms, size, &list) < 0)
		goto out;
	sort_unique(&list);
	set_ends(&list);
	kernel = same_kernel(s, &list, build_id, build_id_size);
	if (!kernel)
		kernel = kernel_create(s, &list, build_id, build_id_size);
out:
	if (!kernel)
		errno = ENOMEM;
	free(list.symbols);
	free(list.names);
	return kernel;
}

/* One recorded symbol; those no reader of kallsyms would have are skipped. */
static int hit_add(struct symbolizer *s, const struct symbolizer_ksym *in,
		   struct symbol_list *list)
{
	struct parsed_symbol symbol = { .address = in->start, .index = list->count };
	size_t length = in->name ? strnlen(in->name, PRF_KSYM_NAME_MAX) : 0;
	size_t module_length = in->module ? strnlen(in->module, PRF_MODULE_NAME_MAX) : 0;

	if (!in->start || !in->size || !length || length >= PRF_KSYM_NAME_MAX ||
	    module_length > PRF_MODULE_NAME_MAX - 1)
		return 0;
	symbol.end = in->start + in->size < in->start ? UINT64_MAX : in->start + in->size;
	if (module_length) {
		char bracketed[PRF_MODULE_NAME_MAX + 2];

		snprintf(bracketed, sizeof(bracketed), "[%s]", in->module);
		symbol.module = symbolizer_intern_shown_n(s, bracketed, module_length + 2);
		if (!symbol.module)
			return -ENOMEM;
	}
	if (name_add(list, in->name, length, &symbol) < 0)
		return -ENOMEM;
	return list_add(list, &symbol);
}

static int compare_hit(const void *a, const void *b)
{
	const struct parsed_symbol *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct dso *symbolizer_kernel_hit(struct symbolizer *s, const struct symbolizer_ksym *symbols,
				  size_t count)
{
	struct symbol_list list = { 0 };
	struct dso *kernel = NULL;
	size_t kept = 0;

	if (!s || (count && !symbols)) {
		errno = EINVAL;
		return NULL;
	}
	list.capacity = count + 1;
	list.names_capacity = 32 * count + 64;
	list.symbols = malloc(list.capacity * sizeof(*list.symbols));
	list.names = malloc(list.names_capacity);
	if (!list.symbols || !list.names)
		goto out;
	for (size_t i = 0; i < count; i++)
		if (hit_add(s, &symbols[i], &list) < 0)
			goto out;
	qsort(list.symbols, list.count, sizeof(*list.symbols), compare_hit);
	for (size_t i = 0; i < list.count; i++)
		if (!kept || list.symbols[kept - 1].address != list.symbols[i].address)
			list.symbols[kept++] = list.symbols[i];
	list.count = kept;
	kernel = same_kernel(s, &list, NULL, 0);
	if (!kernel)
		kernel = kernel_create(s, &list, NULL, 0);
out:
	if (!kernel)
		errno = ENOMEM;
	free(list.symbols);
	free(list.names);
	return kernel;
}

size_t kernel_resolve(struct symbolizer *s, struct dso *kernel, uint64_t address,
		      struct symbol_frame *frame, const struct dso **owner)
{
	size_t lo = 0, hi = kernel->symbol_count;
	struct kernel_symbol *symbol;

	/* The first symbol past address; the one before it may hold it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (kernel->symbols[mid].address <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || address >= kernel->symbols[lo - 1].end)
		return 0;
	symbol = &kernel->symbols[lo - 1];
	if (!symbol->name)
		symbol->name = symbolizer_intern_shown_n(s, kernel->kallsyms_names + symbol->name_offset,
							 symbol->name_length);
	if (!symbol->name)
		return 0;
	*frame = (struct symbol_frame){
		.function = symbol->name,
		.symbol_offset = address - symbol->address,
	};
	*owner = symbol->owner;
	return 1;
}

void kernel_free_symbols(struct dso *kernel)
{
	if (kernel->kind != DSO_KERNEL)
		return;
	free(kernel->symbols);
	free(kernel->kallsyms_names);
	kernel->symbols = NULL;
	kernel->kallsyms_names = NULL;
	kernel->symbol_count = 0;
}
