/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A line of /proc/kallsyms.  perfrecd writes, of the symbols its samples
 * hit, the one a reader of the whole text would pick at that address:
 * both sides parse and rank lines here, so that they cannot disagree.
 */
#include <errno.h>
#include "internal.h"

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
