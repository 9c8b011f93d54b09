/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The samples view: every sample as it comes, its frames symbolized, one
 * block a sample as perf script prints them.  It streams: no aggregation.
 * An off-CPU block is one too: "off-cpu NS ns" where a sample's period
 * is, its waker, its blocked stack, then "-- waker" and the waker's.
 */
#include <inttypes.h>
#include "symbolize.h"
#include "unwind.h"
#include "views.h"

static void print_frame(struct view_samples *v, const struct session_sample *sample,
			uint64_t address, int kernel, int first)
{
	struct resolved_address where;
	struct symbol_answer answer = { 0 };
	uint64_t lookup = first ? address : address - 1;

	session_resolve(v->session, sample, lookup, kernel, &where);
	if (where.dso)
		symbolizer_lookup(v->symbolizer, where.dso, where.address, &answer);
	/* Functions, DSOs and files are named by the capture and its binaries: printed safely. */
	if (!answer.frame_count) {
		fprintf(v->out, "\t%16llx [unknown] (", (unsigned long long)address);
		view_put(v->out, where.dso ? dso_short_name(where.dso) : "[unknown]", 0);
		fprintf(v->out, "+0x%llx)%s\n", (unsigned long long)where.address,
			kernel ? " [k]" : "");
		return;
	}
	for (size_t i = 0; i < answer.frame_count; i++) {
		const struct symbol_frame *f = &answer.frames[i];

		fprintf(v->out, "\t%16llx ", (unsigned long long)address);
		view_put(v->out, f->function ? f->function : "[unknown]", 0);
		if (!f->inlined)
			fprintf(v->out, "+0x%llx", (unsigned long long)f->symbol_offset);
		fputs(" (", v->out);
		view_put(v->out, dso_short_name(where.dso), 0);
		fprintf(v->out, "+0x%llx)", (unsigned long long)where.address);
		if (f->file) {
			fputc(' ', v->out);
			view_put(v->out, f->file, 0);
			fprintf(v->out, ":%u", f->line);
		}
		fprintf(v->out, "%s%s\n", f->inlined ? " (inlined)" : "", kernel ? " [k]" : "");
	}
}

/* Lookups at address - 1 for return addresses, as for the other views. */
static void print_chain(struct view_samples *v, const struct session_sample *sample)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;

	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr,
				 prf_misc_is_kernel(sample->misc));
	if (!sample->callchain_nr)
		print_frame(v, sample, sample->ip, walk.kernel, 1);
	while (prf_callchain_next(&walk, &frame)) {
		if (!frame.marker)
			print_frame(v, sample, frame.address, frame.kernel, frame.first);
		else if (frame.address == UNWIND_FRAME_TRUNCATED || frame.address == UNWIND_FRAME_UNKNOWN)
			fprintf(v->out, "\t%16s %s (unwinding stopped)\n", "",
				frame.address == UNWIND_FRAME_TRUNCATED ? "[truncated]" : "[unknown]");
	}
}

/* The waker's name and ids; "-- waker ..." and its stack, in its own maps. */
static void print_waker(struct view_samples *v, const struct session_sample *block, int stack)
{
	struct session_sample waker;

	if (session_waker_sample(block, &waker) < 0)
		return;
	fputs(stack ? "\t-- waker " : " waker=", v->out);
	view_put(v->out, waker.comm ? waker.comm : "[unknown]", 0);
	fprintf(v->out, " %u/%u", waker.pid, waker.tid);
	if (!stack)
		return;
	fputc('\n', v->out);
	if (waker.callchain_nr)
		print_chain(v, &waker);
}

void view_sample(void *context, const struct session_sample *sample)
{
	struct view_samples *v = context;
	int block = sample->kind == SESSION_SAMPLE_OFF_CPU;

	/* Names come from the capture: printed safely, like every view's. */
	view_put(v->out, sample->comm ? sample->comm : "[unknown]", 0);
	fprintf(v->out, " %u/%u", sample->pid, sample->tid);
	/* In a container: its own pid too, as its logs and its people know it. */
	if (sample->ns_pid)
		fprintf(v->out, " (ns %u/%u)", sample->ns_pid, sample->ns_tid);
	fprintf(v->out, " [%03u] %llu.%09llu: %s%llu%s",
		sample->cpu, (unsigned long long)(sample->time / 1000000000u),
		(unsigned long long)(sample->time % 1000000000u), block ? "off-cpu " : "",
		(unsigned long long)sample->period, block ? " ns" : "");
	if (block)
		print_waker(v, sample, 0);
	if (sample->unit) {
		fputs(" unit=", v->out);
		view_put(v->out, sample->unit, 0);
	}
	if (sample->container) {
		fputs(" container=", v->out);
		view_put(v->out, sample->container, 0);
	}
	fputc('\n', v->out);
	print_chain(v, sample);
	if (block)
		print_waker(v, sample, 1);
	fputc('\n', v->out);
}
