/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracepoint sample's fields by name, as perf script prints them
 * ("filename=/usr/bin/true pid=1234 old_pid=1234"), from the format its
 * file recorded.  The raw data and the format both come from the file:
 * every value is read through prf_tracepoint_field_value(), which checks
 * it against the raw size, and strings are printed escaped.
 */
#include <inttypes.h>
#include <string.h>
#include "views.h"

/* Longer strings are cut: a path is at most 4096 bytes. */
#define STRING_MAX	4096
/* Arrays that are not strings: this many bytes, then "..". */
#define BYTES_MAX	64

static const char *value_text(const struct prf_tracepoint_value *v, char *buffer,
				 size_t size)
{
	size_t n = v->length < size - 1 ? v->length : size - 1;

	memcpy(buffer, v->bytes, n);
	buffer[n] = '\0';
	return buffer;
}

/*
 * sched_switch's prev_state as perf shows it: the kernel's task state
 * letters (TASK_REPORT, stable since Linux 4.14, what its print fmt
 * lists), "R" for none, "+" for a preempted runnable task.
 */
static void put_task_state(FILE *out, uint64_t state)
{
	static const char letters[] = "SDTtXZPI";
	int any = 0;

	for (unsigned bit = 0; bit < sizeof(letters) - 1; bit++)
		if (state & (1u << bit)) {
			fprintf(out, "%s%c", any ? "|" : "", letters[bit]);
			any = 1;
		}
	if (!any)
		fputc('R', out);
	if (state & (1u << (sizeof(letters) - 1)))
		fputc('+', out);
}

static void put_bytes(FILE *out, const struct prf_tracepoint_value *v)
{
	size_t n = v->length < BYTES_MAX ? v->length : BYTES_MAX;

	fputs("ARRAY[", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%02x", i ? ", " : "", v->bytes[i]);
	fprintf(out, "%s]", n < v->length ? ", .." : "");
}

void view_put_tracepoint_fields(FILE *out, const struct session_sample *sample)
{
	const struct prf_tracepoint_fields *tp = sample->tracepoint;
	const struct prf_sample *record = sample->record;
	int sched_switch = sample->event && sample->event->name &&
			   !strcmp(sample->event->name, "sched:sched_switch");
	char text[STRING_MAX + 1];
	const char *separator = "";

	if (!tp || !record)
		return;
	for (size_t i = 0; i < tp->count; i++) {
		const struct prf_tracepoint_field *f = &tp->fields[i];
		struct prf_tracepoint_value v;

		if (f->is_common)
			continue;
		if (sched_switch && !strcmp(f->name, "next_comm"))
			fputs(" ==>", out);
		fputs(separator, out);
		separator = " ";
		view_put(out, f->name, 0);
		fputc('=', out);
		if (prf_tracepoint_field_value(f, record->raw, record->raw ? record->raw_size : 0,
					       &v) < 0) {
			fputs("[outside the data]", out);
			continue;
		}
		switch (v.kind) {
		case PRF_TP_INTEGER:
			if (sched_switch && !strcmp(f->name, "prev_state"))
				put_task_state(out, v.u);
			else if (f->is_signed)
				fprintf(out, "%" PRId64, v.i);
			else
				fprintf(out, "%" PRIu64, v.u);
			break;
		case PRF_TP_POINTER:
			fprintf(out, "0x%" PRIx64, v.u);
			break;
		case PRF_TP_STRING:
			view_put(out, value_text(&v, text, sizeof(text)), 0);
			break;
		case PRF_TP_BYTES:
			put_bytes(out, &v);
			break;
		}
	}
}

void view_json_tracepoint_fields(FILE *out, const struct session_sample *sample)
{
	const struct prf_tracepoint_fields *tp = sample->tracepoint;
	const struct prf_sample *record = sample->record;
	char text[STRING_MAX + 1];
	int first = 1;

	if (!tp || !record) {
		fputs("null", out);
		return;
	}
	fputc('{', out);
	for (size_t i = 0; i < tp->count; i++) {
		const struct prf_tracepoint_field *f = &tp->fields[i];
		struct prf_tracepoint_value v;

		if (f->is_common)
			continue;
		fputs(first ? "" : ",", out);
		first = 0;
		view_json_string(out, f->name);
		fputc(':', out);
		if (prf_tracepoint_field_value(f, record->raw, record->raw ? record->raw_size : 0,
					       &v) < 0) {
			fputs("null", out);
			continue;
		}
		switch (v.kind) {
		case PRF_TP_INTEGER:
			if (f->is_signed)
				fprintf(out, "%" PRId64, v.i);
			else
				fprintf(out, "%" PRIu64, v.u);
			break;
		case PRF_TP_POINTER:
			fprintf(out, "\"0x%" PRIx64 "\"", v.u);
			break;
		case PRF_TP_STRING:
			view_json_string(out, value_text(&v, text, sizeof(text)));
			break;
		case PRF_TP_BYTES:
			fputc('[', out);
			for (size_t b = 0; b < v.length && b < BYTES_MAX; b++)
				fprintf(out, "%s%u", b ? "," : "", v.bytes[b]);
			fputc(']', out);
			break;
		}
	}
	fputc('}', out);
}
