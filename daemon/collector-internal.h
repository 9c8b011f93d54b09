/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the collector's files share: the collector's state, and each
 * file's calls into the others.  records.c takes the rings' records into
 * the current file, files.c starts files (header, snapshot) and says what
 * was recorded, setup.c opens the events, the command and the loop's
 * descriptors, collector.c runs the loop.
 */
#ifndef PERFRECD_COLLECTOR_INTERNAL_H
#define PERFRECD_COLLECTOR_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>
#include "collector.h"
#include "events.h"
#include "offcpu.h"
#include "service.h"
#include "sideband.h"

struct collector_stats {
	uint64_t samples;
	uint64_t lost;
	uint64_t lost_samples;
	uint64_t throttled;
	/* --call-graph dwarf: sample bytes from the rings, and after the trim */
	uint64_t sample_bytes_in;
	uint64_t sample_bytes_out;
	uint64_t samples_not_trimmed;	/* did not decode: kept verbatim */
	uint64_t off_cpu;		/* OFF_CPU records written */
	uint64_t off_cpu_lost;		/* events the BPF ring had no room for */
};

struct collector {
	const struct perfrecd_options *options;
	struct event_set events;
	struct output *output;
	struct buildid_cache *buildids;
	struct task_meta tasks;		/* cgroups, pid namespaces */
	struct ksyms *ksyms;		/* --kernel-symbols=hit */
	struct bincache *binaries;	/* --binary-cache; NULL: off */
	struct jit_maps *jit;		/* NULL: --jit-map-size 0 */
	struct prd_offcpu *offcpu;	/* NULL: no --off-cpu */
	uint8_t *offcpu_buffer;		/* one OFF_CPU record, encoded */
	unsigned output_changes;	/* prd_output_directory_changes() seen */
	int output_gone;		/* prd_output_directory_gone() seen */
	unsigned generation;		/* of the current file, for build-ids */
	struct record_sink sink;
	struct synth_layout layout;
	uint8_t *trim_buffer;		/* a sample with its dead stack dropped */

	/* where TIME sits in records, from sample_type */
	size_t sample_time_offset;	/* 0: samples have no time */
	size_t trailer_time_from_end;	/* 0: other records have no time */

	struct collector_stats stats;
	int epoll_fd, signal_fd, timer_fd;
	uint64_t started_ns, deadline_ns, last_flush_ns, last_drain_ns, last_watchdog_ns;
	uint64_t watchdog_ns;
	pid_t child;			/* -- COMMAND */
	int child_status;
	unsigned char *ring_hung_up;	/* per ring: its task exited (--pid, COMMAND) */
	size_t rings_hung_up;
	unsigned char *cpu_online;	/* per ring, as follow_cpus() last read it */
	int stopping;
	int kallsyms_hidden_said;
	struct prf_host host;
	struct prf_file_info info;
	struct prf_event file_events[PERFRECD_EVENTS_MAX];
	/* Tracepoint events' TRACEPOINT_FORMAT records, written at each file's start. */
	void *tracepoint_formats[PERFRECD_EVENTS_MAX];
	size_t tracepoint_format_sizes[PERFRECD_EVENTS_MAX];
	char event_names[1024];		/* "cpu-clock, page-faults", for people */
	struct prf_meta meta[8];
	char meta_values[8][128];
};

/* A record's size is a u16. */
#define TRIM_BUFFER_SIZE	65536
/* The largest OFF_CPU the BPF program's bounds allow (two 2 x 127-frame chains, 17 regs, 16 KiB of stack). */
#define OFF_CPU_BUFFER_SIZE	24576

/*
 * Whether the events follow tasks (--pid, or the COMMAND's tree) rather
 * than CPUs: -a and --cpu sample CPUs even while a COMMAND runs.
 */
static inline int follows_tasks(const struct perfrecd_options *o)
{
	return o->pid || (o->command && !o->all_cpus && !o->cpu_count);
}

/*
 * The rings and the side-band that needs /proc while the task lives (JIT
 * maps, container pids, CPUs coming back) are read at least once a
 * second; the chunks are written once per flush interval.  Each chunk
 * defines the stacks it uses again (it must read alone), so chunks of a
 * longer interval store fewer definitions a sample.
 */
#define DRAIN_INTERVAL_NS	1000000000u

static inline uint64_t flush_interval_ns(const struct collector *c)
{
	return (uint64_t)c->options->flush_interval_ms * 1000000u;
}

static inline uint64_t drain_interval_ns(const struct collector *c)
{
	uint64_t flush = flush_interval_ns(c);

	return flush < DRAIN_INTERVAL_NS ? flush : DRAIN_INTERVAL_NS;
}

/* records.c */
void prd_collector_time_offsets(struct collector *c);
int prd_collector_sink_emit(void *context, const void *record, size_t size, uint64_t time);
void prd_collector_note_loss(struct collector *c, enum prf_lost_reason reason, int cpu);
void prd_collector_drain_ring(struct collector *c, struct cpu_ring *ring);
void prd_collector_drain_all(struct collector *c);
void prd_collector_drain_offcpu(struct collector *c);

/* files.c */
void prd_collector_describe_file(struct collector *c);
int prd_collector_start_file(struct collector *c);
void prd_collector_fill_stats(struct collector *c, struct prf_stats_record *r);
void prd_collector_log_stats(struct collector *c, enum log_level level);
void prd_collector_rotate(struct collector *c);
void prd_collector_follow_output(struct collector *c);
void prd_collector_notify_status(struct collector *c, const char *state);
void prd_collector_reload(struct collector *c);

/* setup.c: 0, or perfrecd's exit status (1: failed, 2: bad settings). */
int prd_collector_setup(struct collector *c, int *go_fd, int *failed_fd);
int prd_collector_release_command(int go_fd, int failed_fd);

#endif
