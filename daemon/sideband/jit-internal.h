/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the JIT files' code shares: the state of the maps, and each file's
 * calls into the others; the collector's contract is jit.h.  jit.c is
 * what the collector calls (the maps' lifecycle, its hooks, the polls),
 * jit-read.c opens the files and reads them, jit-budget.c bounds what
 * each may cost and add and says when one is cut, jit-restate.c makes
 * the records and states the text they kept again in each new file.
 */
#ifndef PERFRECD_JIT_INTERNAL_H
#define PERFRECD_JIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "jit.h"
#include "format.h"

/* Read at a time; also the longest perf map line kept. */
#define WINDOW			(256u << 10)
/* Text a record carries at most, so records stay well inside a chunk. */
#define RECORD_TEXT_MAX		(256u << 10)
/* The work of a line or record beyond its bytes: parsing, formatting, copying. */
#define RECORD_COST		256u
/* One poll's time, and one user's share of it. */
#define POLL_TIME_MAX_NS	(20u * 1000000u)
#define USER_POLL_TIME_NS	(POLL_TIME_MAX_NS / 2)

/* Why a process's text stops: each said in its own words. */
enum jit_cut {
	CUT_NONE,
	CUT_PROCESS,		/* --jit-map-size */
	CUT_USER,		/* its user's text in this file */
	CUT_ALL,		/* all users' text in this file */
	CUT_WORK,		/* the work it may cost over its life */
	CUT_USER_WORK,		/* the work its user may cost in this file */
	CUT_MEMORY,
};

/* A visit ends at the end of what the file has, at the poll's bound, or cut. */
enum visit_end { VISIT_END, VISIT_DEFERRED, VISIT_CUT };

/* A record as the earlier files got it: its text runs to the next chunk's start. */
struct kept_chunk {
	uint64_t offset;
	size_t start;
};

struct jit_source {
	uint32_t pid;
	uint32_t type;			/* PRF_RECORD_JIT_MAP or _JIT_DUMP */
	uint32_t user;			/* 1 + index in maps->users */
	int root_fd;			/* the process's root, held until the file opens */
	int fd;				/* -1 until it exists */
	char *path;			/* relative to that root */
	uid_t uids[4];			/* real, effective, saved, filesystem */
	uint64_t offset;		/* next byte of the file to read */
	uint64_t work;			/* spent on it over its life */
	uint64_t exit_time;		/* of its EXIT; 0 while it runs */
	uint64_t served;		/* the last poll that read it */
	size_t restate_next;		/* the next chunk the current file has not had */
	int restating;			/* until the current file has every chunk */
	enum jit_cut cut;		/* the bound that stopped it */
	int skipping;			/* within a line too long to keep */
	int refused;			/* said once: not a file we read */
	int finished;			/* exited and read: to be forgotten */
	/* The text taken, kept for each new file, and what of it is in no record yet. */
	char *text;
	size_t text_used, text_capacity, emitted;
	uint64_t pending_offset;	/* of the first line not in a record */
	struct kept_chunk *chunks;
	size_t chunk_count, chunk_capacity;
};

struct jit_user {
	uid_t uid;
	unsigned sources;
	uint64_t text;			/* added to the current file */
	uint64_t work;			/* spent in the current file */
	uint64_t poll_ns;		/* spent in this poll */
	int said;			/* in the current file */
};

struct jit_maps {
	char *proc_root;
	struct jit_limits limits;
	uint64_t user_text_max, all_text_max;	/* in a file */
	struct jit_source *sources;
	size_t count, capacity;
	uint32_t *order;		/* of a poll's visits */
	size_t order_capacity;
	uint64_t polls;
	struct jit_user *users;
	size_t user_count, user_capacity;
	struct prf_index user_index;
	unsigned descriptors;		/* held by the sources */
	uint64_t text;			/* all users' in the current file */
	uint64_t poll_deadline;
	uint64_t file_start;		/* the time of the restated records */
	int deferred;			/* the last poll left work */
	int all_said, full_said, descriptors_said;
	char *window;
	uint8_t *record;		/* header and text */
};

/*
 * A visit may spend what the process and its user may still cost (then
 * it is cut), and the time the poll and the user have left (then it is
 * deferred); the clock is read once a window.
 */
struct visit {
	uint64_t life_left, spent;
	uint64_t started, deadline;
	enum jit_cut spent_out;		/* what it is when life_left runs out */
};

static inline uint64_t jit_min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline struct jit_user *jit_source_user(struct jit_maps *maps,
					       const struct jit_source *source)
{
	return &maps->users[source->user - 1];
}

/* Before a window: VISIT_END if it may be read, else _DEFERRED or _CUT. */
static inline enum visit_end jit_visit_check(const struct visit *v)
{
	if (!v->life_left)
		return VISIT_CUT;
	if (prf_clock_ns(CLOCK_MONOTONIC) >= v->deadline)
		return VISIT_DEFERRED;
	return VISIT_END;
}

static inline void jit_visit_spend(struct visit *v, uint64_t amount)
{
	v->life_left -= jit_min_u64(amount, v->life_left);
	v->spent += amount;
}

/* jit.c */
void prd_jit_source_close(struct jit_maps *maps, struct jit_source *source);
void prd_jit_poll_start(struct jit_maps *maps);

/* jit-budget.c */
void prd_jit_budgets(struct jit_maps *maps);
uint32_t prd_jit_user_of(struct jit_maps *maps, uid_t uid);
int prd_jit_user_may_say(struct jit_maps *maps, const struct jit_source *source);
void prd_jit_users_new_file(struct jit_maps *maps);
void prd_jit_cut_source(struct jit_maps *maps, struct jit_source *source, enum jit_cut why,
			const struct record_sink *sink);
void prd_jit_visit_start(struct jit_maps *maps, struct jit_source *source, struct visit *v);
void prd_jit_visit_done(struct jit_maps *maps, struct jit_source *source, const struct visit *v);
enum jit_cut prd_jit_add_line(struct jit_maps *maps, struct jit_source *source, const char *line,
			      size_t length, uint64_t line_offset, const struct record_sink *sink);

/* jit-read.c */
int prd_jit_source_ready(struct jit_maps *maps, struct jit_source *source);
struct jit_source *prd_jit_source_find(struct jit_maps *maps, uint32_t pid, uint32_t type);
struct jit_source *prd_jit_source_add(struct jit_maps *maps, uint32_t pid, uint32_t type,
				      const char *path);
enum visit_end prd_jit_read_map(struct jit_maps *maps, struct jit_source *source,
				struct visit *v, const struct record_sink *sink);
enum visit_end prd_jit_read_dump(struct jit_maps *maps, struct jit_source *source,
				 struct visit *v, const struct record_sink *sink);

/* jit-restate.c */
void prd_jit_emit_pending(struct jit_maps *maps, struct jit_source *source, uint32_t flags,
			  const struct record_sink *sink);
int prd_jit_restate_step(struct jit_maps *maps, struct jit_source *source,
			 const struct record_sink *sink);

#endif
