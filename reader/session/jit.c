/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JIT symbols from the captures (JIT_MAP and JIT_DUMP records): their
 * lines are taken in pass 1, given to the process each belongs to once
 * the replay knows the processes, and made one symbolizer DSO per
 * process, "[JIT] tid PID" as perf names it.  Where ranges overlap, the
 * later line holds (a runtime that reuses code memory names it again),
 * as perf does.  They name addresses of a process that no file covers:
 * anonymous memory, or no map at all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "intern.h"
#include "session-internal.h"
#include "symbolize.h"

/* Longer names are cut here. */
#define NAME_MAX_BYTES		4096u
/* A symbol longer than this is no JIT code: the line is ignored. */
#define SYMBOL_SIZE_MAX		(1ull << 30)

struct jit_line {
	uint64_t time, order;		/* of the record: replay order */
	uint64_t file_offset;		/* in the runtime's file, for restated lines */
	uint64_t start, size;
	const char *name;		/* interned */
	uint32_t host, pid;
	uint32_t type;
};

struct session_jit {
	struct jit_line *lines;
	size_t count, capacity;
};

/* Pass 1 reads files on several threads; their lines go to one array. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

struct jit_table {
	struct symbolizer_jit_symbol *symbols;
	size_t count;
	struct dso *dso;
	uint64_t seen_end[2];		/* JIT_MAP, JIT_DUMP: file offsets taken */
	struct jit_line *pending;	/* while attaching */
	size_t pending_count, pending_capacity;
};

size_t session_jit_symbols(const struct process *p, const struct symbolizer_jit_symbol **out)
{
	*out = p->jit ? p->jit->symbols : NULL;
	return p->jit && p->jit->dso ? p->jit->count : 0;
}

void session_jit_free(struct session *s)
{
	if (!s->jit)
		return;
	free(s->jit->lines);
	free(s->jit);
	s->jit = NULL;
}

void session_jit_free_process(struct process *p)
{
	if (!p->jit)
		return;
	free(p->jit->symbols);
	free(p->jit->pending);
	free(p->jit);
	p->jit = NULL;
}

/* ---- pass 1: the records' lines --------------------------------------- */

static int hex_field(const char **p, const char *end, uint64_t *value)
{
	const char *q = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; q < end; q++, digits++) {
		int d = *q >= '0' && *q <= '9' ? *q - '0' :
			*q >= 'a' && *q <= 'f' ? *q - 'a' + 10 :
			*q >= 'A' && *q <= 'F' ? *q - 'A' + 10 : -1;

		if (d < 0)
			break;
		if (v >> 60)
			return -1;	/* more than 64 bits */
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || q == end || *q != ' ')
		return -1;
	*value = v;
	*p = q + 1;
	return 0;
}

/* "START SIZE NAME", hex without or with 0x; 0 when it is no symbol. */
static int parse_line(struct session *s, const char *line, const char *end,
		      struct jit_line *out)
{
	const char *p = line;
	char name[NAME_MAX_BYTES + 1];
	size_t length;

	if (hex_field(&p, end, &out->start) < 0 || hex_field(&p, end, &out->size) < 0)
		return 0;
	if (end > p && end[-1] == '\r')
		end--;
	length = (size_t)(end - p);
	if (!length || !out->size || out->size > SYMBOL_SIZE_MAX ||
	    out->start + out->size < out->start)
		return 0;
	if (length > NAME_MAX_BYTES)
		length = NAME_MAX_BYTES;
	memcpy(name, p, length);
	name[length] = '\0';
	if (strlen(name) != length)
		return 0;	/* a NUL inside: no name we could show whole */
	out->name = string_intern(s->strings, name);
	return out->name != NULL;
}

static int jit_take_locked(struct session *s, uint32_t host, uint64_t order, uint64_t *room,
			   const struct prf_record *record)
{
	struct prf_jit_map_record r;
	const char *text, *end;
	struct session_jit *jit;

	if (record->size < sizeof(r))
		return 0;
	memcpy(&r, record->data, sizeof(r));
	if (r.text_size > record->size - sizeof(r))
		return 0;
	if (!s->jit && !(s->jit = calloc(1, sizeof(*s->jit))))
		return -ENOMEM;
	jit = s->jit;
	text = (const char *)record->data + sizeof(r);
	end = text + r.text_size;
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		const char *line_end = nl ? nl : end;
		struct jit_line line = { .time = r.time, .order = order, .host = host, .pid = r.pid,
					 .type = record->type,
					 .file_offset = r.offset +
							(uint64_t)(text - ((const char *)record->data + sizeof(r))) };

		if (parse_line(s, text, line_end, &line)) {
			if (!*room)
				return -E2BIG;
			if (GROW(jit->lines, jit->capacity, jit->count + 1) < 0)
				return -ENOMEM;
			jit->lines[jit->count++] = line;
			--*room;
		}
		text = line_end + 1;
	}
	return 0;
}

int session_jit_take(struct session *s, uint32_t host, uint64_t order, uint64_t *room,
		     const struct prf_record *record)
{
	int ret;

	pthread_mutex_lock(&jit_lock);
	ret = jit_take_locked(s, host, order, room, record);
	pthread_mutex_unlock(&jit_lock);
	return ret;
}

/* ---- after the replay: a table per process ----------------------------- */

static int compare_lines(const void *a, const void *b)
{
	const struct jit_line *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A max-heap of line indexes: the latest line covering the sweep's point on top. */
static void heap_push(size_t *heap, size_t *count, size_t value)
{
	size_t i = (*count)++;

	heap[i] = value;
	while (i && heap[(i - 1) / 2] < heap[i]) {
		size_t parent = (i - 1) / 2, t = heap[parent];

		heap[parent] = heap[i];
		heap[i] = t;
		i = parent;
	}
}

static void heap_pop(size_t *heap, size_t *count)
{
	size_t i = 0, n = --(*count);

	heap[0] = heap[n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i, t;

		if (l < n && heap[l] > heap[top])
			top = l;
		if (r < n && heap[r] > heap[top])
			top = r;
		if (top == i)
			break;
		t = heap[top];
		heap[top] = heap[i];
		heap[i] = t;
		i = top;
	}
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int compare_by_start(const void *a, const void *b, void *lines)
{
	const struct jit_line *x = &((const struct jit_line *)lines)[*(const size_t *)a];
	const struct jit_line *y = &((const struct jit_line *)lines)[*(const size_t *)b];

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The lines (in the order the runtime wrote them) as ranges without
 * overlaps: every point goes to the latest line covering it.  A sweep
 * over the ranges' ends with the covering lines in a heap.
 */
static int flatten(struct jit_table *t)
{
	size_t n = t->pending_count, point_count = 0, heap_count = 0, next = 0, used = 0;
	size_t last_winner = SIZE_MAX;
	/* each line's two ends; a range between each two points at most */
	uint64_t *points = n < SIZE_MAX / 2 ? reallocarray(NULL, 2 * n, sizeof(*points)) : NULL;
	size_t *by_start = reallocarray(NULL, n, sizeof(*by_start));
	size_t *heap = reallocarray(NULL, n, sizeof(*heap));
	struct symbolizer_jit_symbol *out = n < SIZE_MAX / 2 ?
		reallocarray(NULL, 2 * n, sizeof(*out)) : NULL;
	int ret = -ENOMEM;

	if (!points || !by_start || !heap || !out)
		goto done;
	for (size_t i = 0; i < n; i++) {
		points[point_count++] = t->pending[i].start;
		points[point_count++] = t->pending[i].start + t->pending[i].size;
		by_start[i] = i;
	}
	qsort(points, point_count, sizeof(*points), compare_u64);
	qsort_r(by_start, n, sizeof(*by_start), compare_by_start, t->pending);
	for (size_t k = 0; k + 1 < point_count; k++) {
		uint64_t x = points[k], y = points[k + 1];
		const struct jit_line *top;

		if (x == y)
			continue;
		while (next < n && t->pending[by_start[next]].start <= x)
			heap_push(heap, &heap_count, by_start[next++]);
		while (heap_count && t->pending[heap[0]].start + t->pending[heap[0]].size <= x)
			heap_pop(heap, &heap_count);
		if (!heap_count)
			continue;
		top = &t->pending[heap[0]];
		if (used && out[used - 1].end == x && last_winner == heap[0])
			out[used - 1].end = y;	/* the same line goes on */
		else
			out[used++] = (struct symbolizer_jit_symbol){ x, y, top->name };
		last_winner = heap[0];
	}
	t->symbols = out;
	t->count = used;
	out = NULL;
	ret = 0;
done:
	free(points);
	free(by_start);
	free(heap);
	free(out);
	return ret;
}

static void finish_table(struct session *s, struct process *p)
{
	struct jit_table *t = p->jit;
	char name[64];

	if (flatten(t) == 0 && t->count) {
		snprintf(name, sizeof(name), "[JIT] tid %u", p->pid);
		t->dso = symbolizer_jit(s->options.symbolizer, name, t->symbols, t->count);
	}
	free(t->pending);
	t->pending = NULL;
	t->pending_count = t->pending_capacity = 0;
}

void session_jit_attach(struct session *s)
{
	struct session_jit *jit = s->jit;
	struct process *last = NULL;

	if (!jit)
		return;
	if (jit->count)
		qsort(jit->lines, jit->count, sizeof(*jit->lines), compare_lines);
	for (size_t i = 0; i < jit->count; i++) {
		const struct jit_line *line = &jit->lines[i];
		struct session_span span;
		struct process *p = (struct process *)session_process_at(s, line->host, line->pid,
									  line->time, &span);
		size_t slot = line->type == PRF_RECORD_JIT_DUMP;
		struct jit_table *t;

		if (!p)
			continue;
		if (p != last && last && last->jit)
			finish_table(s, last);
		last = p;
		if (!p->jit && !(p->jit = calloc(1, sizeof(*p->jit))))
			break;
		t = p->jit;
		/* A new file says again what the earlier ones had. */
		if (line->file_offset < t->seen_end[slot])
			continue;
		t->seen_end[slot] = line->file_offset + 1;
		if (GROW(t->pending, t->pending_capacity, t->pending_count + 1) < 0)
			break;
		t->pending[t->pending_count++] = *line;
	}
	if (last && last->jit)
		finish_table(s, last);
	session_jit_free(s);
}

/* ---- for the samples ---------------------------------------------------- */

/* perf's test for memory with no file behind it, where JIT code lives. */
static int anonymous(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "[anon", 5) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14);
}

int session_jit_resolve(const struct process *p, const struct dso *map_dso, uint64_t address,
			struct resolved_address *out)
{
	const struct jit_table *t = p ? p->jit : NULL;
	size_t lo = 0, hi;

	if (!t || !t->dso || (map_dso && !anonymous(dso_path(map_dso))))
		return 0;
	hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->symbols[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || address >= t->symbols[lo - 1].end)
		return 0;
	out->dso = t->dso;
	out->address = address;
	out->kernel = 0;
	return 1;
}
