/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the JIT files may cost and add, and what is said when a bound
 * stops one: the users, the work of a visit, the cuts.  They are here
 * together so that each bound is checked, and told, in one place.
 *
 * Work is counted as the bytes read plus RECORD_COST for each line or
 * jitdump record, however small: over its life a process may cost
 * READ_FACTOR times what it may yield, and a user as much within a file,
 * so that a sparse or endless file is cut there.  What a user adds to a
 * file, and all users together, is bounded relative to --rotate-size
 * (prd_jit_budgets()), so that nobody's JIT text rotates files or pushes
 * older ones out of the retention.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jit-internal.h"
#include "service.h"

/* Work a process may cost over its life, and a user within a file, per byte it may yield. */
#define READ_FACTOR		16u
/* The text kept in memory for the new files, all processes together. */
#define KEPT_MAX		(64ull << 20)

/*
 * A user may add a quarter of --rotate-size to a file, all of them half
 * of it, so that JIT text alone never fills a file (nor starts the next
 * one at once by stating it again); and what the files restate is kept
 * in memory, so all of it is capped.
 */
void prd_jit_budgets(struct jit_maps *maps)
{
	uint64_t file = maps->limits.file_bytes ? maps->limits.file_bytes : UINT64_MAX;

	maps->all_text_max = file / 2 < KEPT_MAX ? file / 2 : KEPT_MAX;
	maps->user_text_max = file / 4 < maps->all_text_max / 2 ? file / 4 :
			      maps->all_text_max / 2;
}

/* ---- users ------------------------------------------------------------ */

static int same_uid(const void *context, uint32_t id, const void *key)
{
	return ((const struct jit_maps *)context)->users[id - 1].uid == *(const uid_t *)key;
}

/* 1 + the user's index, added if new; 0 without memory. */
uint32_t prd_jit_user_of(struct jit_maps *maps, uid_t uid)
{
	uint64_t hash = prf_hash_mix(uid);
	struct prf_index_slot *slot = prf_index_place(&maps->user_index, hash, same_uid, maps, &uid);

	if (!slot)
		return 0;
	if (slot->id)
		return slot->id;
	if (prf_ensure_mem((void **)&maps->users, &maps->user_capacity, sizeof(*maps->users),
			   maps->user_count + 1) < 0)
		return 0;
	maps->users[maps->user_count] = (struct jit_user){ .uid = uid };
	prf_index_insert(&maps->user_index, slot, hash, (uint32_t)++maps->user_count);
	return (uint32_t)maps->user_count;
}

/* Once per user and file: whether this is the time to say something of it. */
int prd_jit_user_may_say(struct jit_maps *maps, const struct jit_source *source)
{
	struct jit_user *user = jit_source_user(maps, source);

	return !user->said++;
}

/* A new file: users with no process left go, the others' budgets start again. */
void prd_jit_users_new_file(struct jit_maps *maps)
{
	uint32_t *moved = calloc(maps->user_count + 1, sizeof(*moved));
	size_t kept = 0;

	if (!moved)
		return;		/* the old table stands, budgets and all */
	prf_index_clear(&maps->user_index);
	for (size_t i = 0; i < maps->user_count; i++) {
		struct jit_user *user = &maps->users[i];
		uint64_t hash = prf_hash_mix(user->uid);
		struct prf_index_slot *slot;

		if (!user->sources)
			continue;
		maps->users[kept] = (struct jit_user){ .uid = user->uid, .sources = user->sources };
		/* Fewer than before: the index has room, and the uids are distinct. */
		slot = prf_index_place(&maps->user_index, hash, same_uid, maps, &maps->users[kept].uid);
		prf_index_insert(&maps->user_index, slot, hash, (uint32_t)(kept + 1));
		moved[i + 1] = (uint32_t)++kept;
	}
	maps->user_count = kept;
	for (size_t i = 0; i < maps->count; i++)
		maps->sources[i].user = moved[maps->sources[i].user];
	free(moved);
}

/* ---- cuts ----------------------------------------------------------- */

static void say_cut(struct jit_maps *maps, const struct jit_source *source)
{
	const struct jit_user *user = jit_source_user(maps, source);

	switch (source->cut) {
	case CUT_PROCESS:
		prd_log_notice("process %u: /%s %s --jit-map-size (%" PRIu64 " bytes): the rest is not copied",
			       source->pid, source->path,
			       source->type == PRF_RECORD_JIT_MAP ? "is larger than" :
			       "has more code than", maps->limits.process_bytes);
		break;
	case CUT_USER:
		prd_log_notice("user %u: the JIT symbols of its processes reached %" PRIu64
			       " bytes in this file, a user's share (a quarter of --rotate-size, 32M at most): process %u's rest is not copied, nor more of the user's in this file",
			       (unsigned)user->uid, maps->user_text_max, source->pid);
		break;
	case CUT_ALL:
		prd_log_notice("the JIT symbols of all processes reached %" PRIu64
			       " bytes in this file (half of --rotate-size, 64M at most): process %u's rest (user %u) is not copied",
			       maps->all_text_max, source->pid, (unsigned)user->uid);
		break;
	case CUT_WORK:
		prd_log_notice("process %u (user %u): reading its JIT symbols cost %" PRIu64
			       " bytes, %u times --jit-map-size: the rest is not read",
			       source->pid, (unsigned)user->uid, source->work, READ_FACTOR);
		break;
	case CUT_USER_WORK:
		prd_log_notice("user %u: reading the JIT symbols of its processes cost %" PRIu64
			       " bytes in this file, %u times a user's share: process %u's rest is not read, nor more of the user's in this file",
			       (unsigned)user->uid, user->work, READ_FACTOR, source->pid);
		break;
	case CUT_MEMORY:
		prd_log_warning("process %u: no memory to keep its JIT symbols: the rest is not copied",
				source->pid);
		break;
	case CUT_NONE:
		break;
	}
}

/* The process's text stops here, for good: its last record says so. */
void prd_jit_cut_source(struct jit_maps *maps, struct jit_source *source, enum jit_cut why,
			const struct record_sink *sink)
{
	source->cut = why;
	if (why == CUT_ALL ? !maps->all_said++ : prd_jit_user_may_say(maps, source))
		say_cut(maps, source);
	prd_jit_emit_pending(maps, source, PRF_JIT_CUT, sink);
}

/* ---- the work of a visit ----------------------------------------------- */

void prd_jit_visit_start(struct jit_maps *maps, struct jit_source *source, struct visit *v)
{
	const struct jit_user *user = jit_source_user(maps, source);
	uint64_t process_max = maps->limits.process_bytes > UINT64_MAX / READ_FACTOR ? UINT64_MAX :
			       maps->limits.process_bytes * READ_FACTOR;
	uint64_t user_max = maps->user_text_max * READ_FACTOR;
	uint64_t process_left = process_max - jit_min_u64(source->work, process_max);
	uint64_t user_left = user_max - jit_min_u64(user->work, user_max);

	v->life_left = jit_min_u64(process_left, user_left);
	v->spent_out = process_left <= user_left ? CUT_WORK : CUT_USER_WORK;
	v->spent = 0;
	v->started = prf_clock_ns(CLOCK_MONOTONIC);
	v->deadline = jit_min_u64(maps->poll_deadline, v->started + USER_POLL_TIME_NS -
				  jit_min_u64(user->poll_ns, USER_POLL_TIME_NS));
}

void prd_jit_visit_done(struct jit_maps *maps, struct jit_source *source, const struct visit *v)
{
	struct jit_user *user = jit_source_user(maps, source);

	source->work += v->spent;
	user->work += v->spent;
	user->poll_ns += prf_clock_ns(CLOCK_MONOTONIC) - v->started;
}

/*
 * Adds a line (with its newline) to the text, starting a record when the
 * one being built is full.  CUT_NONE, or the bound that stops it here.
 */
enum jit_cut prd_jit_add_line(struct jit_maps *maps, struct jit_source *source, const char *line,
			      size_t length, uint64_t line_offset, const struct record_sink *sink)
{
	struct jit_user *user = jit_source_user(maps, source);

	if (source->text_used + length > maps->limits.process_bytes)
		return CUT_PROCESS;
	if (user->text + length > maps->user_text_max)
		return CUT_USER;
	if (maps->text + length > maps->all_text_max)
		return CUT_ALL;
	if (source->text_used - source->emitted + length > RECORD_TEXT_MAX)
		prd_jit_emit_pending(maps, source, 0, sink);
	if (prf_ensure_mem((void **)&source->text, &source->text_capacity, 1,
			   source->text_used + length) < 0)
		return CUT_MEMORY;
	if (source->text_used == source->emitted)
		source->pending_offset = line_offset;
	memcpy(source->text + source->text_used, line, length);
	source->text_used += length;
	user->text += length;
	maps->text += length;
	return CUT_NONE;
}
