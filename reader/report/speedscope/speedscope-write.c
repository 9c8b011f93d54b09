/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=speedscope, the file: speedscope's file format (its
 * src/lib/file-format-spec.ts),
 *
 *   {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *    "exporter": "perfrec-report 0.1", "name": "DIR",
 *    "activeProfileIndex": 0,
 *    "shared": {"frames": [{"name": "main", "file": "/usr/bin/app"}, ...]},
 *    "profiles": [{"type": "sampled", "name": "app 12/12", "unit": "none",
 *                  "startValue": 0, "endValue": 812,
 *                  "samples": [[0, 3, 7], ...], "weights": [1, ...]}, ...]}
 *
 * a profile per thread in the order of their first samples, each opened
 * at its first value; speedscope opens the heaviest (activeProfileIndex).
 * Strings are written as the JSON views write them: whatever a capture
 * holds, the file is valid JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include "speedscope-internal.h"
#include "views.h"

static void write_frames(const struct speedscope *s, FILE *out)
{
	fputs("\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < s->frame_count; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		view_json_string(out, s->frames[i].name);
		if (s->frames[i].file) {
			fputs(",\"file\":", out);
			view_json_string(out, s->frames[i].file);
		}
		fputc('}', out);
	}
	fputs("]},\n", out);
}

/* By time; samples of one instant by stack, so that the file is the same each time. */
static int run_compare(const void *a, const void *b)
{
	const struct speedscope_run *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Sorted, and the samples of one stack in a row made one: the number left. */
static void sort_runs(struct speedscope_thread *t)
{
	size_t count = 0;

	qsort(t->runs, t->run_count, sizeof(*t->runs), run_compare);
	for (size_t i = 0; i < t->run_count; i++) {
		if (count && t->runs[count - 1].stack == t->runs[i].stack)
			t->runs[count - 1].weight += t->runs[i].weight;
		else
			t->runs[count++] = t->runs[i];
	}
	t->run_count = count;
}

static void write_thread(const struct speedscope *s, struct speedscope_thread *t, FILE *out)
{
	char name[512];

	sort_runs(t);

	snprintf(name, sizeof(name), "%s %u/%u", t->comm ? t->comm : "[unknown]", t->pid,
		 t->tid);
	fputs("{\"type\":\"sampled\",\"name\":", out);
	view_json_string(out, name);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		s->options.kind == REPORT_PROFILE_CPU ? "none" : "nanoseconds", t->total);
	for (size_t i = 0; i < t->run_count; i++) {
		const struct speedscope_stack *stack = &s->stacks[t->runs[i].stack];

		fputs(i ? ",\n[" : "\n[", out);
		for (uint32_t j = 0; j < stack->depth; j++)
			fprintf(out, j ? ",%" PRIu32 : "%" PRIu32, s->stack_words[stack->first + j]);
		fputc(']', out);
	}
	fputs("],\n\"weights\":[", out);
	for (size_t i = 0; i < t->run_count; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, t->runs[i].weight);
	fputs("]}", out);
}

int speedscope_write(struct speedscope *s, FILE *out)
{
	size_t heaviest = 0;

	if (s->error)
		return s->error;
	for (size_t i = 1; i < s->thread_count; i++)
		if (s->threads[i].total > s->threads[heaviest].total)
			heaviest = i;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"perfrec-report " PACKAGE_VERSION "\",\n\"name\":", out);
	view_json_string(out, s->options.name ? s->options.name : "perfrec");
	fprintf(out, ",\n\"activeProfileIndex\":%zu,\n", heaviest);
	write_frames(s, out);
	fputs("\"profiles\":[", out);
	for (size_t i = 0; i < s->thread_count; i++) {
		fputs(i ? ",\n" : "\n", out);
		write_thread(s, &s->threads[i], out);
	}
	fputs("]}\n", out);
	return view_finish(out);
}
