/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_REPORT_SESSION_H
#define PERFREC_REPORT_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include "perfrec-format.h"
#include "report.h"

struct symbolizer;
struct dso;

/*
 * A session replays one or more capture files: it rebuilds every
 * process's address space over time (MMAP2 splitting what it overlaps,
 * FORK copying the parent's maps, exec clearing them, EXIT ending them),
 * so that each sample resolves with the maps valid at its timestamp.
 * Records of different CPUs reach a file out of time order; the replay
 * sorts the side-band records by time before applying them.
 */
struct session;

struct session_filter {
	uint64_t since_ns, until_ns;	/* capture clock; 0: unbounded */
	const uint32_t *pids;
	size_t pid_count;
	const uint32_t *tids;
	size_t tid_count;
	const char *const *comms;
	size_t comm_count;
	const int *cpus;
	size_t cpu_count;
	const char *event;		/* event name, or NULL */
};

struct session_options {
	struct symbolizer *symbolizer;
	/*
	 * 1: samples with user registers and a stack copy (perfrecd
	 * --call-graph dwarf) keep their recorded callchain, unwound nothing.
	 */
	int no_unwind;
	void (*warn)(void *context, const char *message);
	void *warn_context;
};

/* One sample as the views need it; valid during the callback only. */
struct session_sample {
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint64_t period;
	const char *comm;		/* interned; the thread's name at that time */
	const struct prf_event *event;
	const uint64_t *callchain;	/* with PERF_CONTEXT_* markers */
	size_t callchain_nr;
	uint64_t ip;
	uint16_t misc;			/* PERF_RECORD_MISC_* cpumode */
	const void *process;		/* for session_resolve() */
	size_t file_index;
};

/*
 * Markers a callchain of an unwound sample may end with, after its user
 * frames: where the unwinder stopped.  They lie among the PERF_CONTEXT_*
 * values, where the kernel puts nothing, so code that does not know them
 * skips them as it skips a context.
 */
#define SESSION_FRAME_TRUNCATED	((uint64_t)-4000)	/* the stack copy ran out */
#define SESSION_FRAME_UNKNOWN	((uint64_t)-4001)	/* the unwinder could not go on */

/* Where an address of a sample lives. */
struct resolved_address {
	struct dso *dso;		/* NULL: no map covers it */
	uint64_t address;		/* file offset, or the kernel address */
	int kernel;
};

int session_create(struct session **session, const struct session_options *options);
void session_free(struct session *session);

/*
 * Adds a file, or every *.prf in a directory.  An unreadable input is an
 * error with a message in error naming it and the cause.
 */
int session_add_input(struct session *session, const char *path,
		      struct prf_error *error);

/*
 * Reads the side-band of every file (maps, names, build-ids, kernel
 * symbols, statistics) and replays it.  Damage is warned about once per
 * file; an unreadable file is an error.
 */
int session_load(struct session *session, struct prf_error *error);

typedef void (*session_sample_fn)(void *context, const struct session_sample *sample);

/* Calls fn for every sample that passes filter, file by file. */
int session_for_each_sample(struct session *session,
			    const struct session_filter *filter,
			    session_sample_fn fn, void *context);

void session_resolve(struct session *session, const struct session_sample *sample,
		     uint64_t address, int kernel, struct resolved_address *out);

/*
 * For the unwinder: a number that differs between two samples of one
 * process image exactly when the maps live at their times differ (the
 * count of map changes up to the sample's time), and the maps themselves.
 */
uint64_t session_maps_generation(const struct session_sample *sample);

typedef void (*session_map_fn)(void *context, uint64_t start, uint64_t end,
			       uint64_t page_offset, struct dso *dso);
void session_for_each_map(const struct session_sample *sample, session_map_fn fn,
			  void *context);

/*
 * What the header of a report says about the inputs, as the views take it;
 * header->samples (those that pass the filters) is the caller's to fill.
 */
void session_get_header(const struct session *session, struct report_header *header);

struct string_table *session_strings(struct session *session);

#endif
