/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tracepoint's fields from tracefs' format text, and their values in a
 * sample's raw data.  The text comes from a file (a TRACEPOINT_FORMAT
 * record) and the data from the kernel through a file: nothing in either
 * is trusted, every offset and size is checked where it is used.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* The bounds of one line, [start, end), end at its '\n' or the text's end. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* "key:NUMBER;" somewhere in [p, end): 0 and *value, or -EBADMSG. */
static int find_number(const char *p, const char *end, const char *key, uint32_t *value)
{
	size_t key_size = strlen(key);
	uint64_t v = 0;
	const char *q;

	for (q = p; (size_t)(end - q) >= key_size; q++)
		if (!memcmp(q, key, key_size))
			break;
	if ((size_t)(end - q) < key_size)
		return -EBADMSG;
	q += key_size;
	if (q == end || *q < '0' || *q > '9')
		return -EBADMSG;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (uint64_t)(*q - '0');
		if (v > UINT32_MAX)
			return -EBADMSG;
	}
	if (q == end || *q != ';')
		return -EBADMSG;
	*value = (uint32_t)v;
	return 0;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Whether word appears in [p, end) as a whole word. */
static int has_word(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	for (const char *q = p; (size_t)(end - q) >= n; q++)
		if (!memcmp(q, word, n) && (q == p || !is_word(q[-1])) &&
		    (q + n == end || !is_word(q[n])))
			return 1;
	return 0;
}

/* "TYPE NAME", "TYPE NAME[N]", "__data_loc TYPE[] NAME", in [p, end). */
static int parse_declaration(const char *p, const char *end, struct prf_tracepoint_field *f)
{
	const char *name_end, *name;
	int array = 0;

	while (end > p && end[-1] == ' ')
		end--;
	name_end = end;
	if (end > p && end[-1] == ']') {
		const char *open = end - 1;

		while (open > p && *open != '[')
			open--;
		if (*open != '[')
			return -EBADMSG;
		array = 1;
		name_end = open;
	}
	name = name_end;
	while (name > p && is_word(name[-1]))
		name--;
	if (name == name_end || (size_t)(name_end - name) >= sizeof(f->name))
		return -EBADMSG;
	memcpy(f->name, name, (size_t)(name_end - name));
	f->name[name_end - name] = '\0';
	f->is_common = !strncmp(f->name, "common_", 7);
	f->dynamic = has_word(p, name, "__data_loc") || has_word(p, name, "__rel_loc");
	f->relative = has_word(p, name, "__rel_loc");
	if (f->dynamic || array)
		f->kind = has_word(p, name, "char") ? PRF_TP_STRING : PRF_TP_BYTES;
	else if (memchr(p, '*', (size_t)(name - p)))
		f->kind = f->size == 4 || f->size == 8 ? PRF_TP_POINTER : PRF_TP_BYTES;
	else
		f->kind = f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8 ?
			  PRF_TP_INTEGER : PRF_TP_BYTES;
	if (f->dynamic && f->size != 4)
		return -EBADMSG;
	return 0;
}

static int parse_field(const char *p, const char *end, struct prf_tracepoint_field *f)
{
	const char *semicolon = memchr(p, ';', (size_t)(end - p));
	uint32_t is_signed = 0;
	int err;

	if (!semicolon)
		return -EBADMSG;
	memset(f, 0, sizeof(*f));
	err = find_number(semicolon, end, "offset:", &f->offset);
	if (!err)
		err = find_number(semicolon, end, "size:", &f->size);
	if (err)
		return err;
	/* Kernels before 2.6.35 did not say; unsigned then. */
	if (!find_number(semicolon, end, "signed:", &is_signed))
		f->is_signed = is_signed != 0;
	return parse_declaration(p, semicolon, f);
}

int prf_tracepoint_fields_parse(const char *text, size_t size,
				struct prf_tracepoint_fields **out)
{
	struct prf_tracepoint_fields *fields;
	const char *p = text, *end = text + size;
	size_t capacity = 0;
	int err = 0;

	*out = NULL;
	fields = calloc(1, sizeof(*fields));
	if (!fields)
		return -ENOMEM;
	while (p < end) {
		const char *eol = line_end(p, end), *q = p;

		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(eol - q) > 6 && !memcmp(q, "field:", 6)) {
			if (fields->count == PRF_TRACEPOINT_FIELDS_MAX) {
				err = -E2BIG;
				break;
			}
			if (prf_ensure_mem((void **)&fields->fields, &capacity,
					   sizeof(*fields->fields), fields->count + 1) < 0) {
				err = -ENOMEM;
				break;
			}
			err = parse_field(q + 6, eol, &fields->fields[fields->count]);
			if (err)
				break;
			fields->count++;
		}
		p = eol + 1;
	}
	if (!err && !fields->count)
		err = -EBADMSG;
	if (err) {
		prf_tracepoint_fields_free(fields);
		return err;
	}
	*out = fields;
	return 0;
}

void prf_tracepoint_fields_free(struct prf_tracepoint_fields *fields)
{
	if (!fields)
		return;
	free(fields->fields);
	free(fields);
}

int prf_tracepoint_field_value(const struct prf_tracepoint_field *f, const void *raw,
			       size_t raw_size, struct prf_tracepoint_value *v)
{
	const uint8_t *data = raw;
	uint64_t u = 0;

	memset(v, 0, sizeof(*v));
	v->kind = f->kind;
	if (f->offset > raw_size || f->size > raw_size - f->offset)
		return -ERANGE;
	if (f->dynamic) {
		uint32_t location;
		size_t start, length;

		memcpy(&location, data + f->offset, 4);
		start = location & 0xffffu;
		length = location >> 16;
		if (f->relative)
			start += (size_t)f->offset + 4;
		if (start > raw_size || length > raw_size - start)
			return -ERANGE;
		v->bytes = data + start;
		v->length = length;
	} else if (f->kind == PRF_TP_STRING || f->kind == PRF_TP_BYTES) {
		v->bytes = data + f->offset;
		v->length = f->size;
	}
	if (f->kind == PRF_TP_STRING) {
		const uint8_t *nul = memchr(v->bytes, 0, v->length);

		if (nul)
			v->length = (size_t)(nul - v->bytes);
		return 0;
	}
	if (f->kind == PRF_TP_BYTES)
		return 0;
	/* Integers and pointers: 1, 2, 4 or 8 bytes in the host's order, as the file's. */
	switch (f->size) {
	case 1: { uint8_t x; memcpy(&x, data + f->offset, 1); u = x;
		  v->i = f->is_signed ? (int8_t)x : (int64_t)x; break; }
	case 2: { uint16_t x; memcpy(&x, data + f->offset, 2); u = x;
		  v->i = f->is_signed ? (int16_t)x : (int64_t)x; break; }
	case 4: { uint32_t x; memcpy(&x, data + f->offset, 4); u = x;
		  v->i = f->is_signed ? (int32_t)x : (int64_t)x; break; }
	default: memcpy(&u, data + f->offset, 8); v->i = (int64_t)u; break;
	}
	v->u = u;
	return 0;
}
