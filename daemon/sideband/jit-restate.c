/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records a process's text makes, and that text kept to be stated
 * again in each new file, so that a file read alone still names the JIT
 * frames of the processes running through it.  Both are here because a
 * restated record is made of the chunks prd_jit_emit_pending() kept as
 * the first records were made.  The text kept is bounded with what a
 * file may add (jit-budget.c); what the current file has not had yet is
 * stated before any new line of the process is read, dated at the file's
 * start.
 */
#include <string.h>
#include <time.h>
#include "jit-internal.h"

/* ---- records -------------------------------------------------------- */

static uint64_t source_time(const struct jit_source *source)
{
	/* An exited process's lines are its own: dated before its pid can be reused. */
	return source->exit_time ? source->exit_time : prf_clock_ns(CLOCK_MONOTONIC);
}

static void emit_record(struct jit_maps *maps, const struct jit_source *source, uint64_t time,
			uint64_t offset, const char *text, size_t size, uint32_t flags,
			const struct record_sink *sink)
{
	struct prf_jit_map_record r = { 0 };
	size_t padded = PRF_ALIGN8(size);

	r.header.type = source->type;
	r.header.size = (uint32_t)(sizeof(r) + padded);
	r.time = time;
	r.pid = source->pid;
	r.flags = flags;
	r.offset = offset;
	r.text_size = size;
	memcpy(maps->record, &r, sizeof(r));
	if (size)
		memcpy(maps->record + sizeof(r), text, size);
	memset(maps->record + sizeof(r) + size, 0, padded - size);
	sink->emit(sink->context, maps->record, sizeof(r) + padded, r.time);
}

/* The text taken since the last record, as a record; kept for the next files. */
void prd_jit_emit_pending(struct jit_maps *maps, struct jit_source *source, uint32_t flags,
			  const struct record_sink *sink)
{
	size_t size = source->text_used - source->emitted;
	struct kept_chunk *last = source->chunk_count ? &source->chunks[source->chunk_count - 1] :
			     NULL;

	if (!size && !(flags & PRF_JIT_CUT))
		return;
	emit_record(maps, source, source_time(source), size ? source->pending_offset : source->offset,
		    source->text + source->emitted, size, flags, sink);
	/* A restated record carries what fits of adjacent chunks: fewer, larger records. */
	if (size && (!last || source->text_used - last->start > RECORD_TEXT_MAX)) {
		if (prf_ensure_mem((void **)&source->chunks, &source->chunk_capacity,
				   sizeof(*source->chunks), source->chunk_count + 1) == 0)
			source->chunks[source->chunk_count++] =
				(struct kept_chunk){ source->pending_offset, source->emitted };
		else
			source->text_used = source->emitted;	/* not kept: not restated */
	}
	source->emitted = source->text_used;
}

/* ---- restating ---------------------------------------------------------- */

/*
 * The kept chunks the current file has not had yet, within the poll's
 * time (a user's share of a file is bounded already): 1 if some are left
 * for the next poll.  They are dated at the file's start, before any line
 * read since, so that a reader takes them as what the earlier files had.
 */
int prd_jit_restate_step(struct jit_maps *maps, struct jit_source *source,
			 const struct record_sink *sink)
{
	struct jit_user *user = jit_source_user(maps, source);
	uint64_t started = prf_clock_ns(CLOCK_MONOTONIC);
	int left = 0;

	/* Each chunk is as large a record as prd_jit_emit_pending() could make it. */
	while (source->restate_next < source->chunk_count) {
		const struct kept_chunk *chunk = &source->chunks[source->restate_next];
		size_t end = source->restate_next + 1 < source->chunk_count ? chunk[1].start :
			     source->emitted;

		if (prf_clock_ns(CLOCK_MONOTONIC) >= maps->poll_deadline) {
			left = 1;
			break;
		}
		emit_record(maps, source, maps->file_start, chunk->offset,
			    source->text + chunk->start, end - chunk->start, PRF_JIT_RESTATED, sink);
		source->restate_next++;
	}
	if (!left && source->cut)	/* the new file says so too */
		emit_record(maps, source, maps->file_start, source->offset, NULL, 0,
			    PRF_JIT_RESTATED | PRF_JIT_CUT, sink);
	source->restating = left;
	user->poll_ns += prf_clock_ns(CLOCK_MONOTONIC) - started;
	return left;
}

void prd_jit_maps_restate(struct jit_maps *maps, const struct record_sink *sink)
{
	if (!maps)
		return;
	prd_jit_users_new_file(maps);
	maps->text = 0;
	maps->all_said = 0;
	maps->descriptors_said = 0;
	maps->file_start = prf_clock_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < maps->count; i++) {
		struct jit_source *source = &maps->sources[i];
		struct jit_user *user = jit_source_user(maps, source);

		/* An exited process has no samples in the new file: its lines are not needed there. */
		source->restate_next = 0;
		source->restating = !source->exit_time && (source->chunk_count || source->cut);
		if (!source->restating)
			continue;
		/* In this file's budgets too: what was taken before fits, it was within them. */
		user->text += source->emitted;
		maps->text += source->emitted;
	}
	/* As much as a poll may do now; the polls do the rest. */
	prd_jit_poll_start(maps);
	for (size_t i = 0; i < maps->count; i++)
		if (maps->sources[i].restating &&
		    prd_jit_restate_step(maps, &maps->sources[i], sink))
			maps->deferred = 1;
}
