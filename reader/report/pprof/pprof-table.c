/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=pprof's string table, whose strings are made UTF-8, indexed
 * by common.h's struct prf_index as the other tables are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pprof-internal.h"

/* ---- strings ------------------------------------------------------------ */

static int string_equal(const void *context, uint32_t id, const void *key)
{
	const struct pprof_builder *b = context;
	return strcmp(b->t.strings[id - 1], key) == 0;
}

/*
 * Protobuf strings are UTF-8 and Go's decoder refuses others; names from
 * a capture may be anything, so each byte that does not start a valid
 * character becomes U+FFFD.  NULL when s is valid as it is (or without
 * memory: *failed).
 */
static char *utf8_repaired(const char *s, int *failed)
{
	size_t bad = 0, length = 0, n;
	uint32_t code;
	char *copy, *out;

	*failed = 0;
	for (const char *p = s; *p; p += n, length += n) {
		n = prf_utf8_char(p, &code);
		if (!n) {
			n = 1;
			bad++;
		}
	}
	if (!bad)
		return NULL;
	copy = malloc(length + 2 * bad + 1);
	if (!copy) {
		*failed = 1;
		return NULL;
	}
	out = copy;
	for (const char *p = s; *p; p += n) {
		n = prf_utf8_char(p, &code);
		if (n) {
			memcpy(out, p, n);
			out += n;
		} else {
			memcpy(out, "\xef\xbf\xbd", 3);
			out += 3;
			n = 1;
		}
	}
	*out = '\0';
	return copy;
}

int pprof_string(struct pprof_builder *b, const char *s, uint32_t *index)
{
	int failed;
	char *repaired = utf8_repaired(s, &failed);
	const char *text = repaired ? repaired : s;
	uint64_t hash;
	struct prf_index_slot *slot;

	if (failed)
		return -ENOMEM;
	hash = prf_hash_bytes(text, strlen(text));
	slot = prf_index_place(&b->string_index, hash, string_equal, b, text);
	if (slot && slot->id) {
		free(repaired);
		*index = slot->id - 1;
		return 0;
	}
	if (!slot || PPROF_GROW(b, strings, string) < 0) {
		free(repaired);
		return -ENOMEM;
	}
	b->t.strings[b->t.string_count] = repaired ? repaired : strdup(s);
	if (!b->t.strings[b->t.string_count])
		return -ENOMEM;
	*index = (uint32_t)b->t.string_count++;
	prf_index_insert(&b->string_index, slot, hash, *index + 1);
	return 0;
}

uint32_t pprof_string_of(struct pprof_builder *b, const char *s)
{
	uint32_t index;

	if (pprof_string(b, s ? s : "", &index) < 0) {
		b->error = -ENOMEM;
		return 0;
	}
	return index;
}
