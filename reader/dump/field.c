/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How perfrec-dump prints a value.  The output is meant to be read by
 * people and by scripts alike, so every field is " key=value" with no
 * space inside the value: strings that would break that are quoted.
 */
#include <inttypes.h>
#include "dump.h"

void field_u64(FILE *out, const char *key, uint64_t value)
{
	fprintf(out, " %s=%" PRIu64, key, value);
}

void field_s64(FILE *out, const char *key, int64_t value)
{
	fprintf(out, " %s=%" PRId64, key, value);
}

void field_hex(FILE *out, const char *key, uint64_t value)
{
	fprintf(out, " %s=0x%" PRIx64, key, value);
}

/*
 * Strings come from the recorded host (file names, process names) and may
 * hold anything.  Only printable ASCII other than space, quote and
 * backslash goes out as it is; anything else quotes the whole value and is
 * escaped, so that a hostile name can neither split a line into fields
 * nor send control sequences to a terminal.
 */
static int needs_quotes(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\')
			return 1;
	}
	return 0;
}

static void print_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < ' ' || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void field_string(FILE *out, const char *key, const char *value)
{
	fprintf(out, " %s=", key);
	if (needs_quotes(value))
		print_quoted(out, value);
	else
		fputs(value, out);
}

/* Seconds and nanoseconds of the file's clock, exact, as perf script does. */
void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
		ns % 1000000000u);
}

void field_time(FILE *out, const char *key, uint64_t ns)
{
	fprintf(out, " %s=", key);
	print_time(out, ns);
}

void field_build_id(FILE *out, const char *key, const uint8_t *build_id,
		    size_t size)
{
	fprintf(out, " %s=", key);
	if (!size)
		fputs("none", out);
	for (size_t i = 0; i < size; i++)
		fprintf(out, "%02x", build_id[i]);
}

/* Names of the set bits joined by '|'; bits without a name in hex; 0 if none. */
void field_flags(FILE *out, const char *key, uint64_t value,
		 const struct flag_name *names, size_t count)
{
	const char *separator = "";

	fprintf(out, " %s=", key);
	if (!value) {
		fputc('0', out);
		return;
	}
	for (size_t i = 0; i < count; i++) {
		if (!(value & names[i].bit))
			continue;
		fprintf(out, "%s%s", separator, names[i].name);
		value &= ~names[i].bit;
		separator = "|";
	}
	if (value)
		fprintf(out, "%s0x%" PRIx64, separator, value);
}
