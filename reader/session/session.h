/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SESSION_H
#define PERFREC_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include "perfrec-format.h"

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

/* One event of the inputs: the name the files give it, and its rate. */
struct session_event {
	const char *name;
	const char *sampling;		/* "97 Hz" or "period 100000" */
	uint32_t type;			/* what it counts: perf_event_attr's */
	uint64_t config;
};

/*
 * Distinct event names a session keeps; a file may name more, but
 * perfrecd writes at most 32 a run.
 */
#define SESSION_EVENTS_MAX	256

/* What the inputs are, as a report's header says it. */
struct session_summary {
	const char *hostname;
	const char *kernel_release;
	const char *machine;
	const char *event;		/* as the user wrote it: cpu-clock, cycles */
	const char *sampling;		/* "97 Hz" or "period 100000" */
	const struct session_event *events;	/* every event, in the order first met */
	size_t event_count;
	uint64_t start_ns, end_ns;	/* on the capture clock (CLOCK_MONOTONIC) */
	int64_t realtime_offset_ns;	/* add to get wall-clock time */
	uint64_t samples;		/* after filters: the caller's to fill */
	uint64_t samples_total;		/* in the files */
	uint64_t lost;			/* PERF_RECORD_LOST + LOST_SAMPLES */
	uint64_t dropped;		/* records the collector could not write */
	size_t files;
	size_t damaged_files;		/* cut short or with damaged chunks */
	const char *const *file_names;
};

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
	struct symbolizer *symbolizer;	/* names the DSOs of the maps */
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
	size_t callchain_nr;		/* as recorded; the unwinder may replace them */
	uint64_t ip;
	uint16_t misc;			/* PERF_RECORD_MISC_* cpumode */
	const void *process;		/* for session_resolve() */
	size_t file_index;
	const struct prf_sample *record;	/* all its fields: registers, stack copy */
};

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

/*
 * Calls fn for every sample that passes filter, file by file, reading
 * the files pass 1 opened.  A file that cannot be read to its end (an
 * I/O error) is warned about, counted in the summary's damaged files,
 * and the others are read: then -EIO, else 0.
 */
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

/* What the inputs are; summary->samples is the caller's to fill. */
void session_get_summary(const struct session *session, struct session_summary *summary);

struct string_table *session_strings(struct session *session);

/* Says it through the options' warn callback (a line, no newline). */
void session_warn(struct session *session, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

#endif
