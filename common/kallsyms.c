/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /proc/kallsyms: its lines, and the table made of them.  perfrecd
 * writes, of the symbols its samples hit, the one a reader of the whole
 * text would pick at that address, with the end that reader would give
 * it: both sides parse, rank and end symbols here, so that they cannot
 * disagree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

static int parse_hex(const char **p, const char *end, uint64_t *value)
{
	const char *start = *p;

	*value = 0;
	for (; *p < end && *p - start < 16; (*p)++) {
		char c = **p;
		unsigned digit;

		if (c >= '0' && c <= '9')
			digit = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			digit = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			digit = (unsigned)(c - 'A' + 10);
		else
			break;
		*value = *value << 4 | digit;
	}
	return *p > start && *p < end && **p == ' ' ? 0 : -EINVAL;
}

/* perf's preference at one address: global, then weak, then local; fewer '_'. */
static unsigned symbol_rank(char type, const char *name, size_t length)
{
	unsigned underscores = 0;

	while (underscores < length && name[underscores] == '_' && underscores < 15)
		underscores++;
	switch (type) {
	case 'T':
		return underscores;
	case 'W':
		return 16 + underscores;
	case 'w':
		return 32 + underscores;
	default:
		return 48 + underscores;
	}
}

int prf_kallsyms_parse_line(const char *p, const char *end, struct prf_kallsyms_line *line)
{
	const char *close;
	size_t length = 0;

	if (parse_hex(&p, end, &line->address) < 0 || !line->address)
		return 0;
	p++;
	if (end - p < 3 || p[1] != ' ')
		return 0;
	line->type = p[0];
	if (line->type != 't' && line->type != 'T' && line->type != 'w' && line->type != 'W')
		return 0;
	p += 2;
	while (p + length < end && p[length] != ' ' && p[length] != '\t')
		length++;
	if (!length || length >= PRF_KSYM_NAME_MAX)
		return 0;
	line->name = p;
	line->name_length = length;
	line->rank = symbol_rank(line->type, p, length);
	line->module = NULL;
	line->module_length = 0;
	for (p += length; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	if (p == end || *p != '[')
		return 1;
	close = memchr(p, ']', (size_t)(end - p));
	if (close && close - p >= 2 && close - p <= PRF_MODULE_NAME_MAX) {
		line->module = p + 1;
		line->module_length = (size_t)(close - p - 1);
	}
	return 1;
}

#define SYMBOL_SPAN_MAX	(1u << 20)
#define KERNEL_PAGE	4096u
#define MODULES_MAX	65535u

/* The module of line: 1 + its index in t, 0 for the kernel proper. */
static int module_of(struct prf_ksym_table *t, const struct prf_kallsyms_line *line,
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
	if (t->module_count == MODULES_MAX || length >= PRF_MODULE_NAME_MAX)
		return 0;
	if (prf_ensure_mem((void **)&t->modules, &t->module_capacity, sizeof(*t->modules),
			   t->module_count + 1) < 0)
		return -ENOMEM;
	memcpy(t->modules[t->module_count], line->module, length);
	t->modules[t->module_count][length] = '\0';
	*module = (uint16_t)++t->module_count;
	return 0;
}

int prf_ksym_table_add(struct prf_ksym_table *t, const struct prf_kallsyms_line *line,
		       uint64_t end)
{
	struct prf_ksym k = {
		.start = line->address,
		.end = end,
		.index = (uint32_t)t->count,
		.type = (uint8_t)line->type,
		.rank = (uint8_t)line->rank,
	};

	if (t->count >= UINT32_MAX || t->names_used >= UINT32_MAX - PRF_KSYM_NAME_MAX)
		return -E2BIG;
	if (module_of(t, line, &k.module) < 0 ||
	    prf_ensure_mem((void **)&t->names, &t->names_capacity, 1,
			   t->names_used + line->name_length + 1) < 0 ||
	    prf_ensure_mem((void **)&t->syms, &t->capacity, sizeof(*t->syms), t->count + 1) < 0)
		return -ENOMEM;
	k.name = (uint32_t)t->names_used;
	memcpy(t->names + t->names_used, line->name, line->name_length);
	t->names[t->names_used + line->name_length] = '\0';
	t->names_used += line->name_length + 1;
	t->syms[t->count++] = k;
	return 0;
}

int prf_ksym_table_parse(struct prf_ksym_table *t, const char *text, size_t size)
{
	const char *end = text + size;
	/* sized for /proc/kallsyms: about 44 bytes a line, 20 of them the name */
	int err = prf_ensure_mem((void **)&t->syms, &t->capacity, sizeof(*t->syms),
				 size / 32 + 64);

	if (!err)
		err = prf_ensure_mem((void **)&t->names, &t->names_capacity, 1, size / 2 + 64);
	for (const char *p = text; !err && p < end;) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = newline ? newline : end;
		struct prf_kallsyms_line line;

		if (prf_kallsyms_parse_line(p, line_end, &line)) {
			err = prf_ksym_table_add(t, &line, 0);
			if (err == -E2BIG)
				err = 0;	/* what fits is the table */
		}
		p = line_end + 1;
	}
	return err;
}

static int compare_ksyms(const void *a, const void *b)
{
	const struct prf_ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void prf_ksym_table_finish(struct prf_ksym_table *t)
{
	size_t kept = 0, in_order = 1;

	if (!t->count)		/* qsort(NULL) is undefined */
		return;
	/* /proc/kallsyms is all but sorted: check before paying for a sort */
	while (in_order < t->count && compare_ksyms(&t->syms[in_order - 1], &t->syms[in_order]) < 0)
		in_order++;
	if (in_order < t->count)
		qsort(t->syms, t->count, sizeof(*t->syms), compare_ksyms);
	for (size_t i = 0; i < t->count; i++)
		if (!kept || t->syms[kept - 1].start != t->syms[i].start)
			t->syms[kept++] = t->syms[i];
	t->count = kept;
	for (size_t i = 0; i < t->count; i++) {
		const struct prf_ksym *next = i + 1 < t->count ? &t->syms[i + 1] : NULL;
		uint64_t start = t->syms[i].start, span, end;

		if (t->syms[i].end)
			continue;	/* as recorded */
		if (next && next->module == t->syms[i].module)
			span = SYMBOL_SPAN_MAX;
		else	/* to the next page boundary, then one page */
			span = (KERNEL_PAGE - (start & (KERNEL_PAGE - 1))) % KERNEL_PAGE + KERNEL_PAGE;
		end = start + span < start ? UINT64_MAX : start + span;
		t->syms[i].end = next && next->start < end ? next->start : end;
	}
}

void prf_ksym_table_free(struct prf_ksym_table *t)
{
	free(t->syms);
	free(t->names);
	free(t->modules);
	memset(t, 0, sizeof(*t));
}
