/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel from the capture's /proc/kallsyms: text symbols ("ADDR t
 * name", "ADDR T name\t[module]") sorted into one table, one symbol per
 * address.  kallsyms has no sizes: a symbol ends where the next begins,
 * bounded so that an address in a hole or past the last symbol resolves
 * to nothing rather than to a wrong name.
 *
 * The table is common's (struct prf_ksym_table), the one perfrecd's
 * ksyms.c builds too.  A kernel has over a hundred thousand symbols and a
 * profile meets a few hundred of them: names stay in the table's block
 * and are only interned when a lookup asks for one.
 *
 * Captures of --kernel-symbols=hit carry only those few hundred, each with
 * the end the whole table would have given it (symbolizer_kernel_hit()):
 * every symbol keeps its end, so both kinds resolve by one rule.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "symbolize-internal.h"

/* Several captures of one host carry one kallsyms: they share a DSO. */
static int same_table(const struct prf_ksym_table *a, const struct prf_ksym_table *b)
{
	if (a->count != b->count)
		return 0;
	for (size_t i = 0; i < a->count; i++) {
		const struct prf_ksym *p = &a->syms[i], *q = &b->syms[i];

		if (p->start != q->start || p->end != q->end ||
		    strcmp(prf_ksym_name(a, p), prf_ksym_name(b, q)) ||
		    strcmp(prf_ksym_module(a, p), prf_ksym_module(b, q)))
			return 0;
	}
	return 1;
}

static struct dso *same_kernel(struct symbolizer *s, const struct prf_ksym_table *table,
			       const uint8_t *build_id, size_t build_id_size)
{
	for (struct dso *k = s->files; k; k = k->next)
		if (k->kind == DSO_KERNEL && k->build_id_size == build_id_size &&
		    (!build_id_size || !memcmp(k->build_id, build_id, build_id_size)) &&
		    same_table(&k->ksyms, table))
			return k;
	return NULL;
}

/* A DSO per module, named "[ext4]" as the kernel's are shown. */
static struct dso *module_dso(struct symbolizer *s, struct dso *kernel, const char *name)
{
	struct dso *module = symbolizer_alloc(s, 1, sizeof(*module));
	size_t length = strlen(name);
	char bracketed[PRF_MODULE_NAME_MAX + 2];

	if (!module)
		return NULL;
	bracketed[0] = '[';
	memcpy(bracketed + 1, name, length);
	bracketed[length + 1] = ']';
	module->kind = DSO_MODULE;
	module->state = DSO_OPEN;
	module->path = module->short_name = symbolizer_intern_shown_n(s, bracketed, length + 2);
	if (!module->path)
		return NULL;
	module->next = kernel->modules;
	kernel->modules = module;
	return module;
}

/* The kernel's DSO, taking table (finished) as its symbols. */
static struct dso *kernel_create(struct symbolizer *s, struct prf_ksym_table *table,
				 const uint8_t *build_id, size_t build_id_size)
{
	struct dso *kernel = symbolizer_alloc(s, 1, sizeof(*kernel));

	if (!kernel)
		return NULL;
	kernel->kind = DSO_KERNEL;
	kernel->state = DSO_OPEN;
	kernel->path = kernel->short_name = symbolizer_intern(s, "[kernel.kallsyms]");
	kernel->ksym_names = calloc(table->count ? table->count : 1, sizeof(*kernel->ksym_names));
	kernel->module_dsos = calloc(table->module_count ? table->module_count : 1,
				     sizeof(*kernel->module_dsos));
	if (!kernel->path || !kernel->ksym_names || !kernel->module_dsos)
		goto fail;
	for (size_t i = 0; i < table->module_count; i++) {
		kernel->module_dsos[i] = module_dso(s, kernel, table->modules[i]);
		if (!kernel->module_dsos[i])
			goto fail;
	}
	kernel->ksyms = *table;		/* the kernel's now */
	memset(table, 0, sizeof(*table));
	if (build_id_size)
		memcpy(kernel->build_id, build_id, build_id_size);
	kernel->build_id_size = build_id_size;
	build_id_to_hex(kernel->build_id_hex, build_id, build_id_size);
	kernel->next = s->files;
	s->files = kernel;
	return kernel;
fail:
	free(kernel->ksym_names);
	free(kernel->module_dsos);
	return NULL;
}

static struct dso *kernel_of(struct symbolizer *s, struct prf_ksym_table *table,
			     const uint8_t *build_id, size_t build_id_size)
{
	struct dso *kernel;

	prf_ksym_table_finish(table);
	kernel = same_kernel(s, table, build_id, build_id_size);
	if (!kernel)
		kernel = kernel_create(s, table, build_id, build_id_size);
	prf_ksym_table_free(table);
	if (!kernel)
		errno = ENOMEM;
	return kernel;
}

struct dso *symbolizer_kernel(struct symbolizer *s, const char *kallsyms, size_t size,
			      const uint8_t *build_id, size_t build_id_size)
{
	struct prf_ksym_table table = { 0 };

	if (!s || (size && !kallsyms) || build_id_size > PRF_BUILD_ID_MAX ||
	    (build_id_size && !build_id)) {
		errno = EINVAL;
		return NULL;
	}
	if (prf_ksym_table_parse(&table, kallsyms, size) < 0) {
		prf_ksym_table_free(&table);
		errno = ENOMEM;
		return NULL;
	}
	return kernel_of(s, &table, build_id, build_id_size);
}

/*
 * One recorded symbol, with its end; those no reader of kallsyms would
 * have are skipped.  All rank alike: at an address given twice the first
 * is kept.
 */
static int hit_add(struct prf_ksym_table *table, const struct symbolizer_ksym *in)
{
	struct prf_kallsyms_line line = { .address = in->start, .name = in->name, .type = 'T' };
	uint64_t end = in->start + in->size < in->start ? UINT64_MAX : in->start + in->size;
	int err;

	line.name_length = in->name ? strnlen(in->name, PRF_KSYM_NAME_MAX) : 0;
	line.module_length = in->module ? strnlen(in->module, PRF_MODULE_NAME_MAX) : 0;
	if (!in->start || !in->size || !line.name_length ||
	    line.name_length >= PRF_KSYM_NAME_MAX || line.module_length > PRF_MODULE_NAME_MAX - 1)
		return 0;
	if (line.module_length)
		line.module = in->module;
	err = prf_ksym_table_add(table, &line, end);
	return err == -E2BIG ? 0 : err;
}

struct dso *symbolizer_kernel_hit(struct symbolizer *s, const struct symbolizer_ksym *symbols,
				  size_t count)
{
	struct prf_ksym_table table = { 0 };

	if (!s || (count && !symbols)) {
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < count; i++) {
		if (hit_add(&table, &symbols[i]) < 0) {
			prf_ksym_table_free(&table);
			errno = ENOMEM;
			return NULL;
		}
	}
	return kernel_of(s, &table, NULL, 0);
}

size_t dso_kernel_resolve(struct symbolizer *s, struct dso *kernel, uint64_t address,
			  struct symbol_frame *frame, const struct dso **owner)
{
	const struct prf_ksym_table *t = &kernel->ksyms;
	size_t lo = 0, hi = t->count;
	const struct prf_ksym *symbol;

	/* The first symbol past address; the one before it may hold it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || address >= t->syms[lo - 1].end)
		return 0;
	symbol = &t->syms[lo - 1];
	if (!kernel->ksym_names[lo - 1])
		kernel->ksym_names[lo - 1] = symbolizer_intern_shown(s, prf_ksym_name(t, symbol));
	if (!kernel->ksym_names[lo - 1])
		return 0;
	*frame = (struct symbol_frame){
		.function = kernel->ksym_names[lo - 1],
		.symbol_offset = address - symbol->start,
	};
	*owner = symbol->module ? kernel->module_dsos[symbol->module - 1] : kernel;
	return 1;
}

void dso_kernel_for_each_symbol(const struct dso *kernel,
				void (*fn)(void *context, const struct symbolizer_ksym *symbol),
				void *context)
{
	const struct prf_ksym_table *t = &kernel->ksyms;

	if (kernel->kind != DSO_KERNEL)
		return;
	for (size_t i = 0; i < t->count; i++) {
		const struct prf_ksym *k = &t->syms[i];
		struct symbolizer_ksym out = {
			.start = k->start, .size = k->end - k->start,
			.name = prf_ksym_name(t, k), .module = prf_ksym_module(t, k),
		};

		fn(context, &out);
	}
}

void dso_kernel_free(struct dso *kernel)
{
	if (kernel->kind != DSO_KERNEL)
		return;
	prf_ksym_table_free(&kernel->ksyms);
	free(kernel->ksym_names);
	free(kernel->module_dsos);
	kernel->ksym_names = NULL;
	kernel->module_dsos = NULL;
}
