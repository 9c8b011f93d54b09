/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SESSION_H
#define PERFREC_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include "format.h"

struct symbolizer;
struct dso;
struct prf_off_cpu;
struct symbolizer_jit_symbol;

/*
 * A session replays one or more capture files: it rebuilds every
 * process's address space over time (MMAP2 splitting what it overlaps,
 * FORK copying the parent's maps, exec clearing them, EXIT ending them),
 * so that each sample resolves with the maps valid at its timestamp.
 * Records of different CPUs reach a file out of time order; the replay
 * sorts the side-band records by time before applying them.
 */
struct session;

/*
 * How an event samples: at a frequency, the kernel varying the period to
 * hold it, or every period events.  Both 0: not known.
 */
struct session_sampling {
	uint64_t frequency;		/* Hz; 0: by period */
	uint64_t period;		/* events between samples, when frequency is 0 */
	int clock;			/* a clock event: its period counts nanoseconds */
};

/* One event of the inputs: the name the files give it, and its rate. */
struct session_event {
	const char *name;
	struct session_sampling sampling;
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
	struct session_sampling sampling;	/* that event's */
	const struct session_event *events;	/* every event, in the order first met */
	size_t event_count;
	uint64_t start_ns, end_ns;	/* on the capture clock (CLOCK_MONOTONIC) */
	int64_t realtime_offset_ns;	/* add to get wall-clock time */
	uint64_t samples;		/* after filters: the caller's to fill */
	uint64_t samples_total;		/* in the files */
	uint64_t lost;			/* PERF_RECORD_LOST + LOST_SAMPLES */
	uint64_t dropped;		/* records the collector could not write */
	const char *const *hosts;	/* every host of the inputs, by name */
	size_t host_count;
	size_t files;
	size_t damaged_files;		/* cut short or with damaged chunks */
	/*
	 * Without a trailer, nothing else wrong: still being written, or
	 * their writer stopped before closing them.  Not among the damaged.
	 */
	size_t incomplete_files;
	const char *const *file_names;
	int user_stacks;		/* samples with user stack copies (dwarf mode) */
	uint64_t off_cpu_total;		/* OFF_CPU records in the files */
	uint64_t off_cpu_lost;		/* blocks the recorder had no room for */
};

/*
 * What session_for_each_sample() yields: CPU samples (PERF_RECORD_SAMPLE)
 * and off-CPU blocks (PRF_RECORD_OFF_CPU), as bits of a filter's kinds.
 */
enum session_sample_kind {
	SESSION_SAMPLE_CPU = 1u << 0,
	SESSION_SAMPLE_OFF_CPU = 1u << 1,
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
	const char *const *hosts;	/* session_host()'s names: any other matches none */
	size_t host_count;
	const char *const *units;	/* session_sample's unit is one of these */
	size_t unit_count;
	const char *const *cgroups;	/* its cgroup is one of these or below one */
	size_t cgroup_count;
	/*
	 * enum session_sample_kind bits; 0: CPU samples only, as before
	 * off-CPU records existed.  event filters CPU samples only: a block
	 * is of no event.
	 */
	unsigned kinds;
	/*
	 * For a reader that only counts: a chunk's compact samples alike in
	 * all but their time, period and CPU (one process, thread, event,
	 * stack, leaf, cgroup...) given as one session_sample, its period
	 * theirs summed and samples their count, where the process, maps,
	 * name and cgroup the replay gives are the same over their times.
	 * With merge_window_ns, only samples in one window of that length
	 * from merge_origin_ns (all before it in the first) are taken
	 * together, so that a count by time keeps what windows it was of.
	 */
	int merge_alike;
	uint64_t merge_origin_ns, merge_window_ns;
	int merge_leaf_only;		/* and samples apart only in their callchains */
};

struct session_options {
	struct symbolizer *symbolizer;	/* names the DSOs of the maps */
	void (*warn)(void *context, const char *message);
	void *warn_context;
	/* A line that is no warning (a file without a trailer yet); NULL: none. */
	void (*note)(void *context, const char *format, ...) __attribute__((format(printf, 2, 3)));
	void *note_context;
	/*
	 * Threads for the files' side-band (0 or 1: this one).  The
	 * symbolizer is used on this thread only, after the files are read.
	 */
	unsigned jobs;
	/*
	 * Each sample's process, maps and thread name asked of the replay
	 * on its own, without the answers kept for the next: the reference
	 * the tests compare the shortcuts with.
	 */
	int no_shortcuts;
};

/*
 * One sample as the views need it; valid during the callback only.  An
 * off-CPU block (kind SESSION_SAMPLE_OFF_CPU) is one too: time is when
 * the thread left the CPU, period its duration in nanoseconds (its weight
 * as a sample's period is), callchain where it blocked, event NULL, and
 * the waker's fields are set; record is NULL, off_cpu the decoded record.
 */
struct session_sample {
	enum session_sample_kind kind;	/* SESSION_SAMPLE_CPU or SESSION_SAMPLE_OFF_CPU */
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint64_t period;		/* events; for a block, nanoseconds off the CPU */
	uint64_t samples;		/* 1; more when merge_alike took them together */
	const char *comm;		/* interned; the thread's name at that time */
	const char *host;		/* interned; the capture's hostname */
	const struct prf_event *event;
	const uint64_t *callchain;	/* with PERF_CONTEXT_* markers */
	size_t callchain_nr;		/* as recorded; the unwinder may replace them */
	uint64_t ip;
	uint16_t misc;			/* PERF_RECORD_MISC_* cpumode */
	const void *process;		/* for session_resolve() */
	uint64_t maps_generation;	/* session_maps_generation() */
	size_t file_index;
	/*
	 * A compact sample's callchain as its chunk numbers it (1.., 0: not
	 * a compact sample) and its hash (prf_stack_ref's: equal for equal
	 * callchains in any chunk and file), and the read's number of that
	 * chunk (unique among a session's reads): for samples whose
	 * callchain == record->callchain, the recorded one.
	 */
	uint32_t stack;
	uint64_t stack_hash;
	uint64_t chunk;
	const struct prf_sample *record;	/* all its fields: registers, stack copy */
	/*
	 * Its cgroup v2 path ("/system.slice/nginx.service"), the systemd
	 * unit and the container that path names (session_cgroup_unit(),
	 * session_cgroup_container()); interned, NULL where the file does
	 * not tell (older files) or, for container, where it is none.
	 */
	const char *cgroup, *unit, *container;
	/* Its pid and tid in its own pid namespace, where that is not the host's; else 0. */
	uint32_t ns_pid, ns_tid;
	/*
	 * Off-CPU blocks: the record, with the user registers and stack copy
	 * the unwinder reads (dwarf mode); who woke the thread (waker_tid 0:
	 * not known), when (time + duration), its name then (interned) and
	 * its stack at the wake-up, resolved with session_waker_sample().
	 */
	const struct prf_off_cpu *off_cpu;
	uint32_t waker_pid, waker_tid;
	uint64_t waker_time;
	const char *waker_comm;
	const uint64_t *waker_callchain;	/* with PERF_CONTEXT_* markers */
	size_t waker_callchain_nr;
	const void *waker_process;
	/*
	 * A tracepoint's sample: its fields as its file's TRACEPOINT_FORMAT
	 * names them, their values in record->raw (prf_tracepoint_field_value()
	 * checks each against raw_size); NULL for other events, or where the
	 * file has no format for it.
	 */
	const struct prf_tracepoint_fields *tracepoint;
};

/* Where an address of a sample lives. */
struct resolved_address {
	struct dso *dso;		/* NULL: no map covers it */
	uint64_t address;		/* file offset, or the kernel address */
	int kernel;
};

int session_new(struct session **session, const struct session_options *options);
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
 * file, and a file without a trailer (but no damage) is noted once, in
 * file order; an unreadable file is an error.
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

/*
 * The same on up to jobs threads, whole files each: fn is called on
 * thread t (0 the caller's) with contexts[t], so contexts must hold jobs
 * of them, each used by one thread.  The files' samples are not in time
 * order across threads: for counting into per-thread tables that are
 * merged afterwards.  fn may use session_resolve(),
 * session_maps_generation() and session_for_each_map(), which read the
 * replay only; nothing else of the session.  Warnings come after, in file
 * order, as session_for_each_sample() says them.
 */
int session_for_each_sample_parallel(struct session *session,
				     const struct session_filter *filter, unsigned jobs,
				     session_sample_fn fn, void *const *contexts);

void session_resolve(struct session *session, const struct session_sample *sample,
		     uint64_t address, int kernel, struct resolved_address *out);

/*
 * The waker of an off-CPU block as a sample of its own (its pid, tid,
 * name, process, callchain and time, the block's host and file), for
 * session_resolve() of the waker's frames in the waker's maps.  0, or
 * -ENOENT when block names no waker.
 */
int session_waker_sample(const struct session_sample *block, struct session_sample *waker);

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
 * The session's interned copy of a host name of its inputs, for a
 * filter's hosts; NULL when no input is of that host.  After session_load().
 */
const char *session_host(struct session *session, const char *name);

/*
 * The systemd unit a cgroup v2 path stands for: its innermost *.service
 * or *.scope ("/user.slice/user-1000.slice/session-3.scope" is
 * "session-3.scope"), else its innermost *.slice, "-.slice" for the root
 * ("/" or ""); a path with none of these (not made by systemd) is its
 * own name.  Written to out (cut to size); returns out.
 */
const char *session_cgroup_unit(const char *path, char *out, size_t size);

/*
 * The container a cgroup path belongs to, from the names the usual
 * runtimes give their cgroups: "docker:ID", "containerd:ID",
 * "crio:ID", "podman:ID", "lxc:NAME", "machine:NAME" (systemd-nspawn,
 * libvirt), a Kubernetes pod as "pod:UID/" before its container's (or
 * alone); IDs cut to 12 hex digits as `docker ps` shows them.  NULL
 * when the path names none; else out.
 */
const char *session_cgroup_container(const char *path, char *out, size_t size);

/*
 * The replay's processes again, for a writer of another format that
 * replays them itself (perf.data): each process's start, its maps with
 * the time each became live, its threads' names with the time each was
 * taken, its JIT symbols.  Called process by process, not in time order
 * (the caller sorts what it needs); after session_load().
 */
enum session_task_kind {
	SESSION_TASK_START,		/* time: its FORK, 0 when there from the start */
	SESSION_TASK_MAP,		/* start, end, pgoff, dso, from time on */
	SESSION_TASK_NAME,		/* tid is called comm from time on */
};

struct session_task_event {
	enum session_task_kind kind;
	uint64_t time;
	const char *host;		/* interned: session_host()'s */
	uint32_t pid, tid;
	uint64_t start, end, pgoff;
	struct dso *dso;
	const char *comm;		/* interned, as the capture gave it */
	/* START: its JIT symbols (sorted, without overlaps), or none. */
	const struct symbolizer_jit_symbol *jit;
	size_t jit_count;
};

typedef void (*session_task_fn)(void *context, const struct session_task_event *event);
void session_for_each_task_event(struct session *session, session_task_fn fn, void *context);

/*
 * A host of the inputs as its first file describes it, and its kernel
 * DSO (made of its kallsyms or of the symbols its samples hit; NULL when
 * its files recorded no kernel symbols).  host: an interned name,
 * session_host()'s; NULL: the first host.  0, or -ENOENT for a host the
 * inputs do not have.
 */
struct session_host_info {
	const char *name, *kernel_release, *machine;	/* interned */
	uint32_t nr_cpus_online, nr_cpus_configured;
	struct dso *kernel;
};

int session_host_info(struct session *session, const char *host,
		      struct session_host_info *info);

/* What the inputs are; summary->samples is the caller's to fill. */
void session_get_summary(const struct session *session, struct session_summary *summary);

struct string_table *session_strings(struct session *session);

/* Says it through the options' warn callback (a line, no newline). */
void session_warn(struct session *session, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

#endif
