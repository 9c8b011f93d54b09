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
 * map it writes as it exits can still be read at its EXIT record.  Files
 * are opened inside the process's root (openat2 RESOLVE_IN_ROOT), never
 * through a symlink, only when regular and owned by one of the process's
 * uids; they are read as they grow, whole lines only, up to max_bytes a
 * process, after which the last record says the map was cut.
 */
struct jit_maps;

/* max_bytes 0: JIT maps are not copied (NULL is returned, and every call is a no-op). */
struct jit_maps *prd_jit_maps_new(const char *proc_root, uint64_t max_bytes);
void prd_jit_maps_free(struct jit_maps *maps);

/* An MMAP2 record, the kernel's or synthesized. */
void prd_jit_maps_note_mmap(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink);

/* A PERF_RECORD_EXIT: the process's last lines, then it is forgotten. */
void prd_jit_maps_note_exit(struct jit_maps *maps, const struct perf_event_header *record,
			    const struct record_sink *sink);

/* Each flush and at the end: what the files gained since. */
void prd_jit_maps_poll(struct jit_maps *maps, const struct record_sink *sink);

/* A new file: everything taken so far, again, so that the file stands alone. */
void prd_jit_maps_restate(struct jit_maps *maps, const struct record_sink *sink);

#endif
