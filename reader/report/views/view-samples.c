/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The samples view: every sample as it comes, its frames symbolized, one
 * block a sample as perf script prints them, or a JSON object a line.
 * It streams: no aggregation.  An off-CPU block is one too: "off-cpu NS
 * ns" where a sample's period is, its waker, its blocked stack, then
 * "-- waker" and the waker's.  A tracepoint's sample has its fields by
 * name on its first line.
 *
 * With perf_script set, the same walk prints perf script's own text for
 * a perf record -g file, what the tools that import it parse (FlameGraph's
 * stackcollapse-perf.pl, speedscope, the Firefox Profiler):
 *
 *   comm pid/tid [cpu] secs.usecs:     period event: 
 *   \t    addr sym+0xoff (dso)
 *
 * Their patterns set the rules: the period and the event are the first
 * line's last fields, the DSO in parentheses has no space (speedscope's
 * "\((\S*)\)"), an unresolved address is "[unknown]" without an offset,
 * and inlined frames are the function's own line, "outer->inner+0xoff",
 * which stackcollapse-perf.pl splits into frames of their own ("inner_[i]").
 * Names are printed safely (a newline cannot start a line of its own);
 * spaces become '_' in the DSO and the event.  An off-CPU block is an
 * "offcpu-time" sample, its period the nanoseconds, as perf record
 * --off-cpu names them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbolize.h"
#include "unwind.h"
#include "views.h"

/* "file:line" as one JSON string; null without a file. */
static void json_srcline(FILE *out, const struct symbol_frame *f)
{
	char line[4352];

	if (!f || !f->file) {
		fputs("null", out);
		return;
	}
	snprintf(line, sizeof(line), "%s:%u", f->file, f->line);
	view_json_string(out, line);
}

static void json_frame(struct view_samples *v, uint64_t address, const char *function,
		       const struct dso *dso, const struct symbol_frame *f, int kernel)
{
	fprintf(v->out, "%s{\"address\":%" PRIu64 ",\"symbol\":", v->frames ? "," : "",
		address);
	view_json_string(v->out, function);
	fputs(",\"dso\":", v->out);
	view_json_string(v->out, dso ? dso_short_name(dso) : NULL);
	fputs(",\"srcline\":", v->out);
	json_srcline(v->out, f);
	fprintf(v->out, ",\"kernel\":%s,\"inlined\":%s}", kernel ? "true" : "false",
		f && f->inlined ? "true" : "false");
	v->frames++;
}

/* A DSO or event name as one field: safe, spaces as '_'. */
static void put_field(FILE *out, const char *s)
{
	const char *unit;
	size_t size, n;

	for (; (n = prf_text_unit(s, &unit, &size)); s += n)
		fwrite(*unit == ' ' ? "_" : unit, 1, size, out);
}

/* Whether perf script's text names a frame of dso by the sample's pid (a JIT map file). */
static int script_names_pid(const struct dso *dso)
{
	return dso && dso_is_jit(dso);
}

/* The DSO as perf names it: the kernel's and modules' in brackets, JIT code's map file. */
static void script_dso(struct view_samples *v, const struct session_sample *sample,
		       const struct dso *dso)
{
	fputs(" (", v->out);
	if (!dso) {
		fputs("[unknown]", v->out);
	} else if (script_names_pid(dso)) {
		fprintf(v->out, "/tmp/perf-%u.map", sample->pid);
	} else {
		put_field(v->out, dso_is_kernel(dso) ? dso_short_name(dso) : dso_path(dso));
	}
	fputs(")\n", v->out);
}

/* The function, then what is inlined into it outermost first: "outer->inner+0xoff". */
static void script_frame(struct view_samples *v, const struct session_sample *sample,
			 uint64_t address, uint64_t lookup, const struct resolved_address *where,
			 const struct symbol_answer *answer)
{
	const struct symbol_frame *function = answer->frame_count ?
		&answer->frames[answer->frame_count - 1] : NULL;

	view_put_hex(v->out, "\t", address, 16, " ");
	if (!function || !function->function) {
		fputs("[unknown]", v->out);
	} else {
		view_put(v->out, function->function, 0);
		for (size_t i = answer->frame_count - 1; i-- > 0;) {
			fputs("->", v->out);
			view_put(v->out, answer->frames[i].function ?
				 answer->frames[i].function : "[unknown]", 0);
		}
		/* The address's own offset, as perf prints a return address's. */
		view_put_hex(v->out, "+0x", function->symbol_offset + (address - lookup), 0, "");
	}
	script_dso(v, sample, answer->dso ? answer->dso : where->dso);
}

/* A frame's text: address as printed, lookup at it or before it (a return address). */
static void write_frame(struct view_samples *v, const struct session_sample *sample,
			uint64_t address, uint64_t lookup, int kernel,
			const struct resolved_address where)
{
	struct symbol_answer answer = { 0 };

	if (where.dso)
		symbolizer_lookup(v->symbolizer, where.dso, where.address, &answer);
	if (v->perf_script) {
		script_frame(v, sample, address, lookup, &where, &answer);
		return;
	}
	if (v->json) {
		if (!answer.frame_count)
			json_frame(v, address, NULL, where.dso, NULL, kernel);
		for (size_t i = 0; i < answer.frame_count; i++)
			json_frame(v, address, answer.frames[i].function, where.dso,
				   &answer.frames[i], kernel);
		return;
	}
	/* Functions, DSOs and files are named by the capture and its binaries: printed safely. */
	if (!answer.frame_count) {
		view_put_hex(v->out, "\t", address, 16, " [unknown] (");
		view_put(v->out, where.dso ? dso_short_name(where.dso) : "[unknown]", 0);
		view_put_hex(v->out, "+0x", where.address, 0, kernel ? ") [k]\n" : ")\n");
		return;
	}
	for (size_t i = 0; i < answer.frame_count; i++) {
		const struct symbol_frame *f = &answer.frames[i];

		view_put_hex(v->out, "\t", address, 16, " ");
		view_put(v->out, f->function ? f->function : "[unknown]", 0);
		if (!f->inlined)
			view_put_hex(v->out, "+0x", f->symbol_offset, 0, "");
		fputs(" (", v->out);
		view_put(v->out, dso_short_name(where.dso), 0);
		view_put_hex(v->out, "+0x", where.address, 0, ")");
		if (f->file) {
			fputc(' ', v->out);
			view_put(v->out, f->file, 0);
			fprintf(v->out, ":%u", f->line);
		}
		fprintf(v->out, "%s%s\n", f->inlined ? " (inlined)" : "", kernel ? " [k]" : "");
	}
}

/*
 * Each frame's text, once.  Frames recur (the same address in the same
 * binary, sample after sample), and symbolizing and formatting each one
 * was most of this view's work; a frame's text is written again from
 * here.  It depends on what the key holds and on the view's mode, but for
 * JIT code in perf script's text (named by the pid's map file), which is
 * not kept, and a JSON frame's leading comma, which is not in the text.
 * It does not change later in the run: symbolizer_lookup() keeps its
 * first answer at a DSO's offset (but where it had no memory to keep it).
 * kernel shows in the text itself (" [k]", JSON's "kernel"), first in the
 * lookup (a return address's is a byte before it) and in perf script's
 * offset.  Bounded: past FRAME_TEXT_MAX of text the memo starts anew.
 */
#define FRAME_TEXT_MAX	(4u << 20)

struct frame_key {
	uint64_t address, where_address;
	const struct dso *dso;
	int kernel, first;
};

struct frame_text {
	struct frame_key key;
	size_t offset, size;
};

struct view_frame_memo {
	struct prf_index index;
	struct frame_text *frames;
	size_t count, capacity;
	uint64_t seed;
	FILE *text;
	char *text_data;
	size_t text_size;
};

static void frame_memo_free(struct view_frame_memo *m)
{
	if (!m)
		return;
	if (m->text)
		fclose(m->text);
	free(m->text_data);
	free(m->frames);
	prf_index_free(&m->index);
	free(m);
}

static struct view_frame_memo *frame_memo_new(void)
{
	struct view_frame_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	/* Seeded: the addresses are the capture's, and must not share a slot at its choice. */
	m->seed = prf_hash_seed();
	m->text = open_memstream(&m->text_data, &m->text_size);
	if (!m->text) {
		free(m);
		return NULL;
	}
	return m;
}

/*
 * Each field mixed onto the hash of those before it: mixes of two fields
 * XORed cancel where the capture makes them equal (a frame without a DSO
 * looked up at its own address has the address as its offset).
 */
static uint64_t frame_hash(const struct view_frame_memo *m, const struct frame_key *k)
{
	uint64_t h = prf_hash_mix(m->seed ^ k->address);

	h = prf_hash_mix(h ^ k->where_address);
	h = prf_hash_mix(h ^ (uintptr_t)k->dso);
	return prf_hash_mix(h ^ (uint64_t)(k->kernel << 1 | k->first));
}

static int frame_equal(const void *context, uint32_t id, const void *key)
{
	const struct frame_key *x = &((const struct view_frame_memo *)context)->frames[id - 1].key;
	const struct frame_key *y = key;

	return x->address == y->address && x->where_address == y->where_address &&
	       x->dso == y->dso && x->kernel == y->kernel && x->first == y->first;
}

/*
 * The frame's text from the memo, written there first when new; NULL
 * without the memory to keep it: the caller writes it.
 */
static const struct frame_text *frame_text_of(struct view_samples *v,
					      const struct session_sample *sample,
					      const struct frame_key *key, uint64_t lookup,
					      const struct resolved_address where)
{
	struct view_frame_memo *m = v->frame_memo;
	uint64_t hash;
	struct prf_index_slot *slot;
	struct frame_text *t;
	FILE *out = v->out;
	size_t frames = v->frames;
	long start;

	if (m && m->text_size > FRAME_TEXT_MAX) {
		frame_memo_free(m);
		m = v->frame_memo = NULL;
	}
	if (!m && !(m = v->frame_memo = frame_memo_new()))
		return NULL;
	hash = frame_hash(m, key);
	slot = prf_index_place(&m->index, hash, frame_equal, m, key);
	if (!slot)
		return NULL;
	if (slot->id)
		return &m->frames[slot->id - 1];
	if (m->count >= UINT32_MAX - 1 ||
	    prf_ensure_mem((void **)&m->frames, &m->capacity, sizeof(*m->frames),
			   m->count + 1) < 0 || (start = ftell(m->text)) < 0)
		return NULL;
	v->out = m->text;
	v->frames = 0;
	write_frame(v, sample, key->address, lookup, key->kernel, where);
	v->out = out;
	v->frames = frames;
	if (fflush(m->text) != 0 || ferror(m->text) || m->text_size < (size_t)start)
		return NULL;
	t = &m->frames[m->count];
	*t = (struct frame_text){ *key, (size_t)start, m->text_size - (size_t)start };
	prf_index_insert(&m->index, slot, hash, (uint32_t)++m->count);
	return t;
}

static void print_frame(struct view_samples *v, const struct session_sample *sample,
			uint64_t address, int kernel, int first)
{
	uint64_t lookup = first ? address : address - 1;
	struct resolved_address where;
	const struct frame_text *text = NULL;

	session_resolve(v->session, sample, lookup, kernel, &where);
	if (!v->no_shortcuts && !(v->perf_script && script_names_pid(where.dso))) {
		struct frame_key key = { address, where.address, where.dso, kernel, first };

		text = frame_text_of(v, sample, &key, lookup, where);
	}
	if (!text) {
		write_frame(v, sample, address, lookup, kernel, where);
		return;
	}
	if (v->json && v->frames)
		fputc(',', v->out);
	fwrite(v->frame_memo->text_data + text->offset, 1, text->size, v->out);
	v->frames++;
}

/* Lookups at address - 1 for return addresses, as for the other views. */
static int chain_has_address(const struct session_sample *sample)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;

	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr, 0);
	while (prf_callchain_next(&walk, &frame))
		if (!frame.marker)
			return 1;
	return 0;
}

static void print_chain(struct view_samples *v, const struct session_sample *sample)
{
	struct prf_callchain_walk walk;
	struct prf_frame frame;

	prf_callchain_walk_start(&walk, sample->callchain, sample->callchain_nr,
				 prf_misc_is_kernel(sample->misc));
	/* A chain of markers alone: the ip is the leaf, as the tree and folded views take it. */
	if (!sample->callchain_nr || (v->perf_script && !chain_has_address(sample)))
		print_frame(v, sample, sample->ip, walk.kernel, 1);
	while (prf_callchain_next(&walk, &frame)) {
		if (!frame.marker)
			print_frame(v, sample, frame.address, frame.kernel, frame.first);
		else if (v->perf_script && (frame.address == UNWIND_FRAME_TRUNCATED ||
					       frame.address == UNWIND_FRAME_UNKNOWN))
			/* Named as the folded view names it; "[unknown]" has no DSO for the readers. */
			fprintf(v->out, "\t%16x %s ([unknown])\n", 0,
				frame.address == UNWIND_FRAME_TRUNCATED ? "[truncated]" : "[unknown]");
		else if (!v->json && (frame.address == UNWIND_FRAME_TRUNCATED ||
				      frame.address == UNWIND_FRAME_UNKNOWN))
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

static char *put_text(char *p, const char *s)
{
	size_t size = strlen(s);

	memcpy(p, s, size);
	return p + size;
}

/*
 * " pid/tid (ns pid/tid) [cpu] s.ns: period" as printf would, a line's
 * worth built in memory: millions of them through printf were a tenth
 * of the samples view.
 */
static void put_ids(struct view_samples *v, const struct session_sample *sample, int block)
{
	char line[192], *p = line;

	p = put_text(p, " ");
	p += view_format_u64(p, sample->pid, 0, ' ');
	p = put_text(p, "/");
	p += view_format_u64(p, sample->tid, 0, ' ');
	/* In a container: its own pid too, as its logs and its people know it. */
	if (sample->ns_pid) {
		p = put_text(p, " (ns ");
		p += view_format_u64(p, sample->ns_pid, 0, ' ');
		p = put_text(p, "/");
		p += view_format_u64(p, sample->ns_tid, 0, ' ');
		p = put_text(p, ")");
	}
	p = put_text(p, " [");
	p += view_format_u64(p, sample->cpu, 3, '0');
	p = put_text(p, "] ");
	p += view_format_u64(p, sample->time / 1000000000u, 0, ' ');
	p = put_text(p, ".");
	p += view_format_u64(p, sample->time % 1000000000u, 9, '0');
	p = put_text(p, block ? ": off-cpu " : ": ");
	p += view_format_u64(p, sample->period, 0, ' ');
	p = put_text(p, block ? " ns" : "");
	fwrite(line, 1, (size_t)(p - line), v->out);
}

void view_sample(void *context, const struct session_sample *sample)
{
	struct view_samples *v = context;
	int block = sample->kind == SESSION_SAMPLE_OFF_CPU;

	/* Names come from the capture: printed safely, like every view's. */
	view_put(v->out, sample->comm ? sample->comm : "[unknown]", 0);
	put_ids(v, sample, block);
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
	if (sample->tracepoint) {
		fputc(' ', v->out);
		view_put(v->out, sample->event->name, 0);
		fputs(": ", v->out);
		view_put_tracepoint_fields(v->out, sample);
	}
	fputc('\n', v->out);
	print_chain(v, sample);
	if (block)
		print_waker(v, sample, 1);
	fputc('\n', v->out);
}

struct view_kept_sample {
	uint64_t time;
	size_t offset, size;		/* of its text in kept_text */
};

/*
 * The text kept to be sorted is bounded: past VIEW_KEPT_TEXT_MAX (or
 * view_samples' kept_text_max) the
 * samples older than the newest by VIEW_KEPT_WINDOW_NS go out, sorted,
 * and the rest stay.  A capture's samples are out of order by a
 * collector's flush interval (seconds), so the window sorts them all;
 * one later than the text already written goes out at once, counted in
 * late for the caller to say.
 */
#define VIEW_KEPT_TEXT_MAX	(256u << 20)
#define VIEW_KEPT_WINDOW_NS	(30 * 1000000000ull)

static int kept_compare(const void *a, const void *b)
{
	const struct view_kept_sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Writes the kept samples up to time bound (all with UINT64_MAX), in time
 * order, and keeps the rest in a text of their own.  0 or -ENOMEM.
 */
static int kept_write(struct view_samples *v, uint64_t bound)
{
	size_t kept = 0, written = 0, rest_size = 0, at = 0;
	char *rest;

	if (fflush(v->kept) != 0)
		return -ENOMEM;
	qsort(v->kept_samples, v->kept_count, sizeof(*v->kept_samples), kept_compare);
	/* Always some progress: at least the older half when the window holds them all. */
	while (written < v->kept_count && (v->kept_samples[written].time <= bound ||
					   written < v->kept_count / 2))
		written++;
	for (size_t i = 0; i < written; i++)
		fwrite(v->kept_text + v->kept_samples[i].offset, 1, v->kept_samples[i].size,
		       v->out);
	if (written)
		v->written_until = v->kept_samples[written - 1].time;
	/* The rest, in order, into a new text: the old one goes. */
	for (size_t i = written; i < v->kept_count; i++)
		rest_size += v->kept_samples[i].size;
	rest = malloc(rest_size + 1);
	if (!rest)
		return -ENOMEM;
	for (size_t i = written; i < v->kept_count; i++) {
		struct view_kept_sample *k = &v->kept_samples[i];

		memcpy(rest + at, v->kept_text + k->offset, k->size);
		v->kept_samples[kept++] = (struct view_kept_sample){ k->time, at, k->size };
		at += k->size;
	}
	fclose(v->kept);
	free(v->kept_text);
	v->kept_text = NULL;
	v->kept_count = kept;
	v->kept = open_memstream(&v->kept_text, &v->kept_size);
	if (!v->kept || fwrite(rest, 1, rest_size, v->kept) != rest_size) {
		free(rest);
		return -ENOMEM;
	}
	free(rest);
	return 0;
}

int view_samples_finish(struct view_samples *v)
{
	int ret = v->error;

	frame_memo_free(v->frame_memo);
	v->frame_memo = NULL;
	if (!v->perf_script)
		return ret;

	if (v->kept) {
		if (!ret)
			ret = kept_write(v, UINT64_MAX);
		fclose(v->kept);
		free(v->kept_text);
		v->kept = NULL;
		v->kept_text = NULL;
	}
	free(v->kept_samples);
	v->kept_samples = NULL;
	v->kept_count = v->kept_capacity = 0;
	return ret < 0 ? ret : view_finish(v->out);
}

static void script_sample(struct view_samples *v, const struct session_sample *sample);

void view_sample_perf_script(void *context, const struct session_sample *sample)
{
	struct view_samples *v = context;
	FILE *out = v->out;
	long start, end;

	if (v->error)
		return;
	if (v->written_until && sample->time < v->written_until) {
		v->late++;
		script_sample(v, sample);
		return;
	}
	if (!v->kept && !(v->kept = open_memstream(&v->kept_text, &v->kept_size))) {
		v->error = -ENOMEM;
		return;
	}
	start = ftell(v->kept);
	v->out = v->kept;
	script_sample(v, sample);
	v->out = out;
	end = ftell(v->kept);
	if (start < 0 || end < start ||
	    prf_ensure_mem((void **)&v->kept_samples, &v->kept_capacity,
			   sizeof(*v->kept_samples), v->kept_count + 1) < 0) {
		v->error = -ENOMEM;
		return;
	}
	v->kept_samples[v->kept_count++] = (struct view_kept_sample){
		sample->time, (size_t)start, (size_t)(end - start) };
	if (sample->time > v->newest)
		v->newest = sample->time;
	if ((size_t)end > (v->kept_text_max ? v->kept_text_max : VIEW_KEPT_TEXT_MAX) &&
	    kept_write(v, v->newest > VIEW_KEPT_WINDOW_NS ? v->newest - VIEW_KEPT_WINDOW_NS : 0) < 0)
		v->error = -ENOMEM;
}

/* " %5u/%-5u [%03u] %5lu.%06lu: %10lu " of pid, tid, cpu, seconds, microseconds, period. */
static void script_ids(struct view_samples *v, const struct session_sample *sample)
{
	char line[128], *p = line, *tid;

	p = put_text(p, " ");
	p += view_format_u64(p, sample->pid, 5, ' ');
	p = put_text(p, "/");
	tid = p;
	p += view_format_u64(p, sample->tid, 0, ' ');
	while (p - tid < 5)
		*p++ = ' ';
	p = put_text(p, " [");
	p += view_format_u64(p, sample->cpu, 3, '0');
	p = put_text(p, "] ");
	p += view_format_u64(p, sample->time / 1000000000u, 5, ' ');
	p = put_text(p, ".");
	p += view_format_u64(p, sample->time % 1000000000u / 1000u, 6, '0');
	p = put_text(p, ": ");
	p += view_format_u64(p, sample->period, 10, ' ');
	p = put_text(p, " ");
	fwrite(line, 1, (size_t)(p - line), v->out);
}

static void script_sample(struct view_samples *v, const struct session_sample *sample)
{
	int block = sample->kind == SESSION_SAMPLE_OFF_CPU;
	const char *comm = sample->comm && *sample->comm ? sample->comm : "[unknown]";

	/* The readers take the comm from the first non-space up to " pid": none leads. */
	if (*comm == ' ')
		fputc('_', v->out);
	view_put(v->out, *comm == ' ' ? comm + 1 : comm, 0);
	/* perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,dso: microseconds */
	script_ids(v, sample);
	put_field(v->out, block ? "offcpu-time" :
		  sample->event && sample->event->name ? sample->event->name : "[unknown]");
	fputs(": \n", v->out);
	v->perf_script = 1;
	print_chain(v, sample);
	fputc('\n', v->out);
}

void view_sample_json(void *context, const struct session_sample *sample)
{
	struct view_samples *v = context;
	int block = sample->kind == SESSION_SAMPLE_OFF_CPU;
	struct session_sample waker;

	fputs("{\"comm\":", v->out);
	view_json_string(v->out, sample->comm);
	fprintf(v->out, ",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"period\":%" PRIu64
		",\"time_ns\":%" PRIu64, sample->pid, sample->tid, sample->cpu, sample->period,
		sample->time);
	if (sample->ns_pid)
		fprintf(v->out, ",\"ns_pid\":%u,\"ns_tid\":%u", sample->ns_pid, sample->ns_tid);
	else
		fputs(",\"ns_pid\":null,\"ns_tid\":null", v->out);
	fprintf(v->out, ",\"kind\":\"%s\",\"event\":", block ? "off-cpu" : "sample");
	view_json_string(v->out, sample->event ? sample->event->name : NULL);
	fputs(",\"unit\":", v->out);
	view_json_string(v->out, sample->unit);
	fputs(",\"container\":", v->out);
	view_json_string(v->out, sample->container);
	fputs(",\"waker\":", v->out);
	if (block && session_waker_sample(sample, &waker) == 0) {
		fputs("{\"comm\":", v->out);
		view_json_string(v->out, waker.comm);
		fprintf(v->out, ",\"pid\":%u,\"tid\":%u}", waker.pid, waker.tid);
	} else {
		fputs("null", v->out);
	}
	fputs(",\"fields\":", v->out);
	view_json_tracepoint_fields(v->out, sample);
	fputs(",\"frames\":[", v->out);
	v->frames = 0;
	print_chain(v, sample);
	fputs("]}\n", v->out);
}
