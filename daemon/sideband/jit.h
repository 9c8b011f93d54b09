/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_JIT_H
#define PERFRECD_JIT_H

#include <stdint.h>
#include <linux/perf_event.h>
#include "sink.h"

/*
 * The symbols JIT runtimes write for perf: /tmp/perf-PID.map (node
 * --perf-basic-prof, Java's perf map, .NET, LuaJIT) and jit-PID.dump
 * (announced by the runtime mapping it), copied into the capture as
 * PRF_RECORD_JIT_MAP and PRF_RECORD_JIT_DUMP records so that a capture
 * read after the process and its files are gone still names JIT frames.
 *
 * A process becomes a candidate when it maps anonymous executable memory
 * (or a jitdump file); its root directory is held from then on, so the
 * map it writes as it exits can still be read after its EXIT record.
 * Files are opened inside the process's root (openat2 RESOLVE_IN_ROOT),
 * never through a symlink, only when regular and owned by one of the
 * process's uids; they are read as they grow, whole lines only.
 *
 * Every file is its user's (the process's real uid), who may be hostile,
 * and the reading is done by the thread that drains the rings: so it is
 * bounded by the work it costs (bytes read, and each line or jitdump
 * record counted as a minimum whatever its size), in slices per poll.
 * What one process, one user in a capture file and all users in a file
 * may add is bounded (struct jit_limits); past a bound the process's last
 * record says the map was cut, and the log says so once per user and file.
 */
struct jit_maps;

struct jit_limits {
	uint64_t process_bytes;		/* --jit-map-size: text a process yields; 0: none */
	uint64_t file_bytes;		/* --rotate-size: a user's text in a file is a quarter of it */
	unsigned descriptors;		/* the most descriptors the followed files may hold */
};

/* limits->process_bytes 0: JIT maps are not copied (NULL is returned, and every call is a no-op). */
struct jit_maps *prd_jit_maps_new(const char *proc_root, const struct jit_limits *limits);
void prd_jit_maps_free(struct jit_maps *maps);

/* An MMAP2 record, the kernel's or synthesized: the file is opened, not read. */
void prd_jit_maps_note_mmap(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink);

/* A PERF_RECORD_EXIT: the rest of the process's files is read by the next polls, dated at its exit. */
void prd_jit_maps_note_exit(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink);

/* Each drain interval: a bounded slice of what the files gained since. */
void prd_jit_maps_poll(struct jit_maps *maps, const struct record_sink *sink);

/* At the end, sampling stopped: what is left, for 2 seconds at most. */
void prd_jit_maps_finish(struct jit_maps *maps, const struct record_sink *sink);

/*
 * A new file: everything taken so far from the processes still running,
 * again (the text taken, kept in memory), so that the file stands alone;
 * what a poll's time does not cover is stated by the next polls, dated at
 * the file's start.  The budgets of a file begin again.
 */
void prd_jit_maps_restate(struct jit_maps *maps, const struct record_sink *sink);

#endif
