/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collector: per-CPU rings drained on wakeups into rotating files.
 * One thread, one epoll loop: ring fds wake it when wakeup_watermark
 * bytes are waiting, a timerfd makes sure low rates are still written
 * within the flush interval, a signalfd turns signals into events.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "collector.h"
#include "events.h"
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
	char event_names[1024];		/* "cpu-clock, page-faults", for people */
	struct prf_meta meta[8];
	char meta_values[8][128];
};


/* ---- records from the rings ---------------------------------------- */

/* A record's size is a u16. */
#define TRIM_BUFFER_SIZE	65536

static uint64_t record_time(const struct collector *c,
			    const struct perf_event_header *record)
{
	uint64_t time = 0;

	if (record->type == PERF_RECORD_SAMPLE) {
		if (c->sample_time_offset && c->sample_time_offset + 8 <= record->size)
			memcpy(&time, (const uint8_t *)record + c->sample_time_offset, 8);
	} else if (c->trailer_time_from_end &&
		   c->trailer_time_from_end + sizeof(*record) <= record->size) {
		memcpy(&time, (const uint8_t *)record + record->size -
		       c->trailer_time_from_end, 8);
	}
	return time;
}

static void layout_time_offsets(struct collector *c)
{
	uint64_t type = c->events.events[0].attr.sample_type;
	size_t trailer = 0;

	c->sample_time_offset = 0;
	if (type & PERF_SAMPLE_TIME)
		c->sample_time_offset = sizeof(struct perf_event_header) +
			8 * (!!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP) +
			     !!(type & PERF_SAMPLE_TID));
	/* The trailer is TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
	if (!c->events.events[0].attr.sample_id_all || !(type & PERF_SAMPLE_TIME))
		return;
	trailer = 8 * (!!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ID) +
		       !!(type & PERF_SAMPLE_STREAM_ID) + !!(type & PERF_SAMPLE_CPU) +
		       !!(type & PERF_SAMPLE_IDENTIFIER));
	c->trailer_time_from_end = trailer;
}

/* MMAP2 without a build-id from the kernel: find it, once per file. */
static void note_mapping_build_id(struct collector *c,
				  const struct perf_event_header *record,
				  uint64_t time)
{
	const uint8_t *p = (const uint8_t *)record;
	uint32_t pid, dev_major = 0, dev_minor = 0;
	uint64_t start, length, inode = 0, inode_generation = 0;
	const char *filename = (const char *)p + 72;
	size_t room = record->size > 72 ? record->size - 72 : 0;
	struct buildid_entry *entry;

	if (!room || !memchr(filename, '\0', room) || filename[0] != '/')
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&length, p + 24, 8);
	if (record->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		char path[4352];
		struct stat st;

		if (p[40] != 0)
			return;		/* the kernel gave it */
		/* The kernel could not read it: find the file ourselves. */
		snprintf(path, sizeof(path), "%s/%u/root%s", c->options->proc_root, pid, filename);
		if (stat(path, &st) < 0 && stat(filename, &st) < 0)
			return;
		dev_major = major(st.st_dev);
		dev_minor = minor(st.st_dev);
		inode = st.st_ino;
	} else {
		memcpy(&dev_major, p + 40, 4);
		memcpy(&dev_minor, p + 44, 4);
		memcpy(&inode, p + 48, 8);
		memcpy(&inode_generation, p + 56, 8);
	}
	entry = prd_buildid_lookup(c->buildids, c->options->proc_root, (pid_t)pid, start,
				   start + length, filename, dev_major, dev_minor, inode);
	if (entry)
		prd_buildid_emit(entry, c->generation, (pid_t)pid, filename, dev_major, dev_minor,
				 inode, inode_generation, &c->sink, time);
}

/*
 * perfrec-format(5), "User stack samples": the kernel reserves the whole
 * sample_stack_user in each sample but fills only dyn_size bytes of it;
 * the file gets the filled part.  A sample that does not decode (which a
 * sane kernel never writes) is kept as it came, for the reader to judge.
 */
static void append_trimmed(struct collector *c, const struct perf_event_header *record,
			   uint64_t time)
{
	int size = prf_sample_trim_stack_user(&c->events.events[0].attr, record, record->size,
					      c->trim_buffer, TRIM_BUFFER_SIZE);

	if (size < 0 && !c->stats.samples_not_trimmed++)
		prd_log_warning("a sample from the kernel does not decode (%s); keeping it untrimmed",
				strerror(-size));
	c->stats.sample_bytes_in += record->size;
	if (size > 0) {
		c->stats.sample_bytes_out += (uint64_t)size;
		prd_output_append(c->output, c->trim_buffer, (size_t)size, time);
	} else {
		c->stats.sample_bytes_out += record->size;
		prd_output_append(c->output, record, record->size, time);
	}
}

/*
 * Our events never ask for build-ids (build_attr()), but Linux 6.18 sets
 * MMAP_BUILD_ID in every event's MMAP2 records while any event on the
 * machine asks (perf record --buildid-mmap), over our bodies of device
 * and inode.  The flag is cleared, so that the file says what the body is.
 */
static void append_mmap2(struct collector *c, const struct perf_event_header *record,
			 uint64_t time)
{
	/* The kernel's MMAP2: 72 bytes, a path of up to PATH_MAX, a trailer. */
	uint64_t copy[(72 + PATH_MAX + 64) / 8];

	if (record->misc & PERF_RECORD_MISC_MMAP_BUILD_ID &&
	    !c->events.events[0].attr.build_id && record->size <= sizeof(copy)) {
		memcpy(copy, record, record->size);
		record = (const struct perf_event_header *)copy;
		((struct perf_event_header *)copy)->misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	note_mapping_build_id(c, record, time);
	prd_output_append(c->output, record, record->size, time);
	prd_jit_maps_note_mmap(c->jit, record, &c->sink);
}

static int handle_record(void *context, const struct perf_event_header *record,
			 int cpu)
{
	struct collector *c = context;
	uint64_t time = record_time(c, record);
	uint64_t value;

	switch (record->type) {
	case PERF_RECORD_SAMPLE:
		c->stats.samples++;
		prd_ksyms_note_sample(c->ksyms, &c->events.events[0].attr, record, record->size,
				      &c->sink, time);
		if (c->trim_buffer) {
			append_trimmed(c, record, time);
			return 0;
		}
		break;
	case PERF_RECORD_LOST:
		if (record->size >= 24) {
			memcpy(&value, (const uint8_t *)record + 16, 8);
			c->stats.lost += value;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (record->size >= 16) {
			memcpy(&value, (const uint8_t *)record + 8, 8);
			c->stats.lost_samples += value;
		}
		break;
	case PERF_RECORD_THROTTLE:
		c->stats.throttled++;
		break;
	case PERF_RECORD_MMAP2:
		append_mmap2(c, record, time);
		return 0;
	case PERF_RECORD_EXIT:
		prd_output_append(c->output, record, record->size, time);
		prd_jit_maps_note_exit(c->jit, record, &c->sink);
		return 0;
	default:
		break;
	}
	prd_output_append(c->output, record, record->size, time);
	/* After the FORK, so that readers know the task when they meet these. */
	if (record->type == PERF_RECORD_FORK && record->size >= 32) {
		uint32_t pid, tid;
		uint64_t fork_time;

		memcpy(&pid, (const uint8_t *)record + 8, 4);
		memcpy(&tid, (const uint8_t *)record + 16, 4);
		/* The FORK's own time, which readers order it by; not its trailer's. */
		memcpy(&fork_time, (const uint8_t *)record + 24, 8);
		prd_task_meta_new_task(&c->tasks, (pid_t)pid, (pid_t)tid, fork_time, &c->sink);
	}
	return 0;
}

static int sink_emit(void *context, const void *record, size_t size, uint64_t time)
{
	struct collector *c = context;
	const struct perf_event_header *header = record;

	prd_output_append(c->output, record, size, time);
	/* The snapshot's maps name the processes already running JIT code. */
	if (header->type == PERF_RECORD_MMAP2)
		prd_jit_maps_note_mmap(c->jit, header, &c->sink);
	return 0;
}

/* A LOST_NOTE: data of this CPU the collector could not keep. */
static void note_loss(struct collector *c, enum prf_lost_reason reason, int cpu)
{
	struct prf_lost_note_record note = { 0 };

	note.header.type = PRF_RECORD_LOST_NOTE;
	note.header.size = sizeof(note);
	note.time = prf_clock_ns(CLOCK_MONOTONIC);
	note.reason = reason;
	note.cpu = cpu;
	prd_output_append(c->output, &note, sizeof(note), note.time);
}

static void drain_ring(struct collector *c, struct cpu_ring *ring)
{
	uint64_t overruns = ring->overruns;

	if (!ring->meta)
		return;
	prd_ring_drain(ring, handle_record, c);
	if (ring->overruns != overruns) {
		note_loss(c, PRF_LOST_RING_OVERRUN, ring->cpu);
		prd_log_warning("CPU %d: the ring buffer held an impossible record; its contents were dropped",
				ring->cpu);
	}
}

static void drain_all(struct collector *c)
{
	for (size_t i = 0; i < c->events.ring_count; i++)
		drain_ring(c, &c->events.rings[i]);
}

/*
 * Whether the events follow tasks (--pid, or the COMMAND's tree) rather
 * than CPUs: -a and --cpu sample CPUs even while a COMMAND runs.
 */
static int follows_tasks(const struct perfrecd_options *o)
{
	return o->pid || (o->command && !o->all_cpus && !o->cpu_count);
}

/* "0-3,8": the --cpu list as a reader sees it in the header. */
static void format_cpus(const int *cpus, size_t count, char *text, size_t size)
{
	size_t used = 0;

	text[0] = '\0';
	for (size_t i = 0; i < count && used < size; i++) {
		size_t last = i;
		int n;

		while (last + 1 < count && cpus[last + 1] == cpus[last] + 1)
			last++;
		n = last > i ? snprintf(text + used, size - used, "%s%d-%d", i ? "," : "",
					cpus[i], cpus[last]) :
			       snprintf(text + used, size - used, "%s%d", i ? "," : "", cpus[i]);
		used += n > 0 ? (size_t)n : 0;
		i = last;
	}
}

/* ---- files: header, snapshot, statistics ---------------------------- */

static void add_meta(struct collector *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_meta(struct collector *c, const char *key, const char *fmt, ...)
{
	size_t i = c->info.meta_count;
	va_list ap;

	if (i >= sizeof(c->meta) / sizeof(c->meta[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(c->meta_values[i], sizeof(c->meta_values[i]), fmt, ap);
	va_end(ap);
	c->meta[i] = (struct prf_meta){ key, c->meta_values[i] };
	c->info.meta_count++;
}

static void describe_file(struct collector *c)
{
	const struct perfrecd_options *o = c->options;

	c->info.meta = c->meta;
	/* The ids arrays are the set's: a CPU back online updates them in place. */
	for (size_t e = 0; e < c->events.event_count; e++) {
		const struct set_event *event = &c->events.events[e];

		c->file_events[e] = (struct prf_event){ .attr = event->attr, .name = event->name,
							.ids = event->ids,
							.id_count = (uint32_t)event->id_count };
	}
	c->info.events = c->file_events;
	c->info.event_count = c->events.event_count;
	add_meta(c, "collector", "perfrecd %s", PACKAGE_VERSION);
	if (o->period)
		add_meta(c, "period", "%llu", (unsigned long long)o->period);
	else
		add_meta(c, "frequency", "%llu", (unsigned long long)o->frequency);
	if (o->call_graph == CALL_GRAPH_DWARF)
		add_meta(c, "call-graph", "dwarf,%u", o->stack_user_size);
	else
		add_meta(c, "call-graph", "%s", o->call_graph == CALL_GRAPH_FP ? "fp" : "none");
	if (o->pid)
		add_meta(c, "target", "pid %d", (int)o->pid);
	else if (follows_tasks(o))
		add_meta(c, "target", "command %s", o->command[0]);
	else if (o->cpu_count) {
		char cpus[256];

		format_cpus(o->cpus, o->cpu_count, cpus, sizeof(cpus));
		add_meta(c, "target", "cpus %s", cpus);
	}
	else
		add_meta(c, "target", "system-wide");
}

static void snapshot(struct collector *c)
{
	struct synth_stats processes = { 0 };
	struct kernel_stats kernel = { 0 };
	pid_t only = c->options->pid ? c->options->pid : c->child;
	uint64_t start = prf_clock_ns(CLOCK_MONOTONIC);
	int ret;

	ret = prd_synthesize_processes(c->options->proc_root, only, &c->layout,
				       c->buildids, c->generation, &c->sink, &processes);
	if (ret < 0)
		prd_log_warning("reading the processes from %s: %s", c->options->proc_root,
				strerror(-ret));
	ret = prd_buildid_emit_vdso(c->buildids, &c->sink, prf_clock_ns(CLOCK_MONOTONIC));
	if (ret < 0)
		prd_log_warning("recording the vDSO's build-id: %s", strerror(-ret));
	ret = prd_task_meta_snapshot(&c->tasks, &c->layout, &c->sink);
	if (ret < 0)
		prd_log_warning("reading the cgroups from %s: %s", c->tasks.cgroup_mount,
				strerror(-ret));
	ret = (c->options->kernel_symbols == KERNEL_SYMBOLS_ALL ? prd_synthesize_kernel :
	       prd_synthesize_kernel_without_symbols)(c->options->proc_root, c->options->sysfs_root,
						      &c->layout, &c->sink, &kernel);
	prd_ksyms_file_started(c->ksyms);
	if (ret < 0)
		prd_log_warning("reading the kernel's symbols: %s", strerror(-ret));
	if (kernel.kallsyms_hidden && !c->kallsyms_hidden_said) {
		prd_log_notice("kernel symbol addresses are hidden (kernel.kptr_restrict, or no CAP_SYSLOG); kernel frames will not resolve");
		c->kallsyms_hidden_said = 1;
	}
	prd_log_debug("snapshot: %llu processes, %llu threads, %llu mappings, %llu build-ids, %llu cgroups, %llu threads in other pid namespaces, %llu kernel symbols in KALLSYMS, in %.1f ms",
		      (unsigned long long)processes.processes,
		      (unsigned long long)processes.threads,
		      (unsigned long long)processes.mappings,
		      (unsigned long long)processes.build_ids,
		      (unsigned long long)c->tasks.cgroups, (unsigned long long)c->tasks.nspids,
		      (unsigned long long)kernel.symbols, (double)(prf_clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
}

static int start_file(struct collector *c)
{
	uint64_t now = prf_clock_ns(CLOCK_MONOTONIC);
	int ret;

	c->info.start_time_ns = now;
	ret = prd_output_start_file(c->output, &c->info, now);
	if (ret < 0)
		return ret;
	c->generation++;
	snapshot(c);
	prd_jit_maps_restate(c->jit, &c->sink);
	return 0;
}

static uint64_t rss_bytes(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void fill_stats(struct collector *c, struct prf_stats_record *r)
{
	struct output_totals totals;
	struct rusage usage;

	prd_output_get_totals(c->output, &totals);
	getrusage(RUSAGE_SELF, &usage);
	memset(r, 0, sizeof(*r));
	r->header.type = PRF_RECORD_STATS;
	r->header.size = sizeof(*r);
	r->time = prf_clock_ns(CLOCK_MONOTONIC);
	r->samples = c->stats.samples;
	r->lost = c->stats.lost;
	r->lost_samples = c->stats.lost_samples;
	r->throttled = c->stats.throttled;
	r->raw_bytes = totals.raw_bytes;
	r->stored_bytes = totals.bytes;
	r->dropped_records = totals.dropped_records;
	r->cpu_user_ns = (uint64_t)usage.ru_utime.tv_sec * 1000000000u +
			 (uint64_t)usage.ru_utime.tv_usec * 1000u;
	r->cpu_system_ns = (uint64_t)usage.ru_stime.tv_sec * 1000000000u +
			   (uint64_t)usage.ru_stime.tv_usec * 1000u;
	r->rss_bytes = rss_bytes();
}

static void log_stats(struct collector *c, enum log_level level)
{
	struct prf_stats_record r;
	double elapsed = (double)(prf_clock_ns(CLOCK_MONOTONIC) - c->started_ns) / 1e9;

	fill_stats(c, &r);
	prd_log_message(level,
			"%llu samples in %.1f s (%.0f/s), %llu lost, %llu lost samples, %llu throttled; %.1f MiB written (%.1f MiB raw), %llu records dropped; CPU %.2f s user %.2f s system, RSS %.1f MiB",
			(unsigned long long)r.samples, elapsed,
			elapsed > 0 ? (double)r.samples / elapsed : 0.0,
			(unsigned long long)r.lost, (unsigned long long)r.lost_samples,
			(unsigned long long)r.throttled, (double)r.stored_bytes / 1048576.0,
			(double)r.raw_bytes / 1048576.0, (unsigned long long)r.dropped_records,
			(double)r.cpu_user_ns / 1e9, (double)r.cpu_system_ns / 1e9,
			(double)r.rss_bytes / 1048576.0);
}

static void rotate(struct collector *c)
{
	struct timespec realtime;

	drain_all(c);
	if (start_file(c) < 0)
		return;		/* said by output; the current file goes on */
	clock_gettime(CLOCK_REALTIME, &realtime);
	prd_output_enforce_retention(c->output, (uint64_t)realtime.tv_sec);
}

static void follow_cpus(struct collector *c);

static void notify_status(struct collector *c, const char *state)
{
	const char *path = prd_output_current_path(c->output);

	prd_notify_send("%sSTATUS=%llu samples, %llu lost; writing %s", state,
			(unsigned long long)c->stats.samples,
			(unsigned long long)(c->stats.lost + c->stats.lost_samples),
			path ? path : "nothing");
}

/*
 * SIGHUP, which `systemctl reload` sends: systemd shows the unit reloading
 * until the new file is started.  MONOTONIC_USEC is how Type=notify-reload
 * (systemd 253) tells this reload from an earlier one; 252 ignores it.
 * READY=1 ends the reload even when no new file could be started, or the
 * unit would stay "reloading" until systemd's timeout.
 */
static void reload(struct collector *c)
{
	prd_notify_send("RELOADING=1\nMONOTONIC_USEC=%llu",
			(unsigned long long)(prf_clock_ns(CLOCK_MONOTONIC) / 1000u));
	rotate(c);
	notify_status(c, "READY=1\n");
}

/*
 * The rings and the side-band that needs /proc while the task lives (JIT
 * maps, container pids, CPUs coming back) are read at least once a
 * second; the chunks are written once per flush interval.  Each chunk
 * defines the stacks it uses again (it must read alone), so chunks of a
 * longer interval store fewer definitions a sample.
 */
#define DRAIN_INTERVAL_NS	1000000000u

static uint64_t flush_interval_ns(const struct collector *c)
{
	return (uint64_t)c->options->flush_interval_ms * 1000000u;
}

static uint64_t drain_interval_ns(const struct collector *c)
{
	uint64_t flush = flush_interval_ns(c);

	return flush < DRAIN_INTERVAL_NS ? flush : DRAIN_INTERVAL_NS;
}

/* Every drain interval: drain; every flush interval, or to rotate: note statistics, write. */
static void periodic(struct collector *c, uint64_t now)
{
	struct prf_stats_record stats;
	int rotation_due;

	drain_all(c);
	prd_jit_maps_poll(c->jit, &c->sink);
	follow_cpus(c);
	c->last_drain_ns = now;
	rotation_due = prd_output_rotation_due(c->output, now);
	if (rotation_due || now - c->last_flush_ns >= flush_interval_ns(c)) {
		fill_stats(c, &stats);
		prd_output_append(c->output, &stats, sizeof(stats), stats.time);
		prd_output_flush(c->output, now);
		c->last_flush_ns = now;
	}
	notify_status(c, "");
	if (rotation_due)
		rotate(c);
}

/* ---- setting up ----------------------------------------------------- */

/* notice gets the default event's fallback, said once the events are open. */
/* The attr of event (NULL: the default one); -F/-c unless the event names its own. */
static int build_attr(struct collector *c, const char *event, struct perf_event_attr *attr,
		      char *name, size_t name_size, char *notice, size_t notice_size)
{
	const struct perfrecd_options *o = c->options;
	char error[512];
	int ret;

	memset(attr, 0, sizeof(*attr));
	if (event) {
		ret = prd_event_parse(event, o->sysfs_root, attr, error, sizeof(error));
		if (ret < 0) {
			prd_log_error("-e %s: %s", event, error);
			return ret;
		}
		snprintf(name, name_size, "%s", event);
	} else {
		ret = prd_event_default(attr, name, name_size, notice, notice_size);
		if (ret < 0) {
			prd_log_error("probing the default event: %s%s", strerror(-ret),
				      ret == -EACCES || ret == -EPERM ?
				      "; system-wide sampling needs CAP_PERFMON (or root), or kernel.perf_event_paranoid <= 0" : "");
			return ret;
		}
	}
	attr->size = sizeof(*attr);
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (o->call_graph != CALL_GRAPH_NONE) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->sample_max_stack = (uint16_t)o->max_stack;
		attr->exclude_callchain_kernel = !!o->exclude_kernel_callchain;
		attr->exclude_callchain_user = !!o->exclude_user_callchain;
	}
	if (o->call_graph == CALL_GRAPH_DWARF) {
		struct prf_error failure;

		ret = prd_user_stack_configure(attr, o->stack_user_size, &failure);
		if (ret < 0) {
			prd_log_error("%s", failure.message);
			return ret;
		}
	}
	/* sample_period and sample_freq share a word: set, the event named its own. */
	if (!attr->sample_period && o->period) {
		attr->sample_period = o->period;
	} else if (!attr->sample_period) {
		attr->freq = 1;
		attr->sample_freq = o->frequency;
	}
	/*
	 * Only a frequency needs each sample's period.  With a fixed period
	 * the reader takes it from the attr, and asking for it anyway makes
	 * the kernel sample a software event (page-faults) at every count
	 * (perf_swevent_event()), whatever the period says.
	 */
	if (attr->freq)
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	/* Each sample's cgroup, and new cgroups' paths: their units, their containers. */
	if (c->tasks.kernel_cgroups && c->tasks.have_cgroup2) {
		attr->sample_type |= PERF_SAMPLE_CGROUP;
		attr->cgroup = 1;
	}
	attr->exclude_kernel |= !!o->exclude_kernel;
	attr->disabled = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/*
	 * No attr.build_id: on Linux 6.18 it leaks PERF_RECORD_MISC_MMAP_BUILD_ID
	 * into the MMAP2 records other tools' events receive, whose bodies hold
	 * dev/inode, and crashes perf 6.1 reading them.  Build-ids are read
	 * from the mapped files instead, once per (dev, inode).
	 */
	attr->watermark = 1;
	if (follows_tasks(o))
		attr->inherit = 1;
	if (follows_tasks(o) && o->command)
		attr->enable_on_exec = 1;
	return 0;
}

/* What a sample of attr takes in the ring, for sizing it. */
static size_t sample_bytes_estimate(const struct perf_event_attr *attr)
{
	size_t bytes = 96;

	/* Callchains average well under 400 bytes. */
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN)
		bytes = 384;
	/* The kernel writes the whole stack reservation, live or not. */
	if (attr->sample_type & PERF_SAMPLE_STACK_USER)
		bytes += prd_user_stack_record_bytes(attr->sample_regs_user,
						     attr->sample_stack_user);
	return bytes;
}

/*
 * The child waits on a pipe until its events are open, then execs; a
 * second pipe, closed by a successful exec, carries errno back if not.
 */
static pid_t start_command(char **command, int *go_fd, int *failed_fd)
{
	int go[2], failed[2];
	pid_t child;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(failed, O_CLOEXEC) < 0) {
		int err = errno;

		close(go[0]);
		close(go[1]);
		return -err;
	}
	child = fork();
	if (child < 0) {
		int err = errno;

		close(go[0]);
		close(go[1]);
		close(failed[0]);
		close(failed[1]);
		return -err;
	}
	if (child == 0) {
		char byte;
		int err;

		close(go[1]);
		close(failed[0]);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(command[0], command);
		err = errno;
		if (write(failed[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(failed[1]);
	*go_fd = go[1];
	*failed_fd = failed[0];
	return child;
}

/* Lets the command exec; 0 once it runs, or the errno of its exec. */
static int release_command(int go_fd, int failed_fd)
{
	int err = 0;
	ssize_t n;

	if (write(go_fd, "x", 1) != 1)
		err = errno;
	close(go_fd);
	do {
		n = read(failed_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(failed_fd);
	return n == (ssize_t)sizeof(err) ? -err : 0;
}

static int open_signals(struct collector *c)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	c->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return c->signal_fd < 0 ? -errno : 0;
}

static int open_loop(struct collector *c)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t tick_ns = drain_interval_ns(c);
	struct itimerspec timer = { 0 };

	c->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->epoll_fd < 0 || c->timer_fd < 0)
		return -errno;
	if (c->watchdog_ns && c->watchdog_ns / 2 < tick_ns)
		tick_ns = c->watchdog_ns / 2;
	/* A one-shot run ticks often enough to end on time; a service does not. */
	if (c->options->duration_s > 0 && tick_ns > 100000000u)
		tick_ns = 100000000u;
	timer.it_interval.tv_sec = (time_t)(tick_ns / 1000000000u);
	timer.it_interval.tv_nsec = (long)(tick_ns % 1000000000u);
	timer.it_value = timer.it_interval;
	if (timerfd_settime(c->timer_fd, 0, &timer, NULL) < 0)
		return -errno;
	for (size_t i = 0; i < c->events.ring_count; i++) {
		ev.data.u64 = i;
		if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->events.rings[i].fd, &ev) < 0)
			return -errno;
	}
	ev.data.u64 = UINT64_MAX - 1;
	if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->signal_fd, &ev) < 0)
		return -errno;
	ev.data.u64 = UINT64_MAX - 2;
	if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->timer_fd, &ev) < 0)
		return -errno;
	return 0;
}

/* ---- running -------------------------------------------------------- */

static void cpu_gone(struct collector *c, struct cpu_ring *ring)
{
	drain_ring(c, ring);
	epoll_ctl(c->epoll_fd, EPOLL_CTL_DEL, ring->fd, NULL);
	prd_event_set_cpu_gone(&c->events, (size_t)(ring - c->events.rings));
	note_loss(c, PRF_LOST_CPU_OFFLINE, ring->cpu);
	prd_log_notice("CPU %d went offline; sampling goes on on the others", ring->cpu);
}

/*
 * The kernel stops a CPU's event when the CPU goes offline, without a
 * hang-up, and does not restart it when it comes back: so the online
 * CPUs are read at every flush.  One gone is closed (its data so far
 * drained, the loss noted); one back gets its event again.  The new
 * event's id is unknown to the header of the current file, so a new file
 * starts (its header lists the new id) before the event is enabled:
 * every sample of it lands in a file that names it.
 */
static void follow_cpus(struct collector *c)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct prf_error error;

	if (follows_tasks(c->options) || prd_event_set_online(&c->events, c->cpu_online) < 0)
		return;
	for (size_t i = 0; i < c->events.ring_count; i++) {
		struct cpu_ring *ring = &c->events.rings[i];

		if (ring->fd >= 0 && !c->cpu_online[i])
			cpu_gone(c, ring);
		if (ring->fd >= 0 || !c->cpu_online[i])
			continue;
		if (prd_event_set_reopen_cpu(&c->events, i, &error) < 0) {
			prd_log_warning("CPU %d is online again, but: %s", ring->cpu, error.message);
			continue;
		}
		if (i == 0)	/* synthesized records carry the first ring's id */
			c->layout.id = c->events.events[0].ids[0];
		ev.data.u64 = i;
		if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, ring->fd, &ev) < 0) {
			prd_log_warning("CPU %d: epoll: %s", ring->cpu, strerror(errno));
			cpu_gone(c, ring);
			continue;
		}
		rotate(c);
		if (prd_event_set_enable_cpu(&c->events, i) < 0)
			prd_log_warning("CPU %d: enabling its event: %s", ring->cpu, strerror(errno));
		else
			prd_log_notice("CPU %d is online again: sampling it", ring->cpu);
	}
}

/*
 * With --pid or a COMMAND the rings belong to the events of the target's
 * first thread, and hang up when it exits: that is not a CPU going
 * offline.  Threads of the target that were running when perfrecd started
 * have events of their own that write into the same rings, so a ring is
 * not unmapped but only no longer waited on; drain_all still empties it.
 * With --pid, perfrecd stops once every ring has hung up and the process
 * is gone (a COMMAND is waited for through SIGCHLD).
 */
static void task_gone(struct collector *c, size_t index)
{
	struct cpu_ring *ring = &c->events.rings[index];

	drain_ring(c, ring);
	epoll_ctl(c->epoll_fd, EPOLL_CTL_DEL, ring->fd, NULL);
	if (!c->ring_hung_up[index]) {
		c->ring_hung_up[index] = 1;
		c->rings_hung_up++;
	}
}

/* Gone, or a zombie that its parent has not reaped yet. */
static int process_gone(const char *proc_root, pid_t pid)
{
	char path[4096], text[512], *end;
	FILE *f;
	int gone = 1;

	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	if (fgets(text, sizeof(text), f) && (end = strrchr(text, ')')) && end[1] == ' ')
		gone = end[2] == 'Z' || end[2] == 'X';
	fclose(f);
	return gone;
}

static void check_target_gone(struct collector *c)
{
	pid_t pid = c->options->pid;

	if (!pid || c->rings_hung_up < c->events.ring_count)
		return;
	if (process_gone(c->options->proc_root, pid)) {
		prd_log_notice("process %d exited: finishing", (int)pid);
		c->stopping = 1;
	}
}

static void handle_signals(struct collector *c)
{
	struct signalfd_siginfo info;

	while (read(c->signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
		switch (info.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			prd_log_info("%s: finishing", strsignal((int)info.ssi_signo));
			c->stopping = 1;
			break;
		case SIGHUP:
			prd_log_info("SIGHUP: starting a new file");
			reload(c);
			break;
		case SIGUSR1:
			log_stats(c, LOG_LEVEL_NOTICE);
			break;
		case SIGCHLD:
			if (c->child > 0 && waitpid(c->child, &c->child_status, WNOHANG) == c->child) {
				c->child = 0;
				c->stopping = 1;
			}
			break;
		}
	}
}

static int run_loop(struct collector *c)
{
	struct epoll_event events[64];

	while (!c->stopping) {
		int n = epoll_wait(c->epoll_fd, events, 64, -1);
		uint64_t now;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			prd_log_error("epoll_wait: %s", strerror(errno));
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			uint64_t which = events[i].data.u64;

			if (which == UINT64_MAX - 1) {
				handle_signals(c);
			} else if (which == UINT64_MAX - 2) {
				uint64_t expirations;

				if (read(c->timer_fd, &expirations, sizeof(expirations)) < 0)
					continue;
			} else if (which < c->events.ring_count) {
				struct cpu_ring *ring = &c->events.rings[which];

				if (!(events[i].events & (EPOLLHUP | EPOLLERR)))
					drain_ring(c, ring);
				else if (follows_tasks(c->options))
					task_gone(c, (size_t)which);
				else
					cpu_gone(c, ring);
			}
		}
		now = prf_clock_ns(CLOCK_MONOTONIC);
		if (c->watchdog_ns && now - c->last_watchdog_ns >= c->watchdog_ns / 2) {
			prd_notify_send("WATCHDOG=1");
			c->last_watchdog_ns = now;
		}
		if (now - c->last_drain_ns >= drain_interval_ns(c)) {
			periodic(c, now);
			check_target_gone(c);
		}
		if (c->deadline_ns && now >= c->deadline_ns)
			c->stopping = 1;
	}
	return 0;
}

static void print_summary(struct collector *c)
{
	struct output_totals totals;
	double elapsed = (double)(prf_clock_ns(CLOCK_MONOTONIC) - c->started_ns) / 1e9;

	prd_output_get_totals(c->output, &totals);
	prd_log_notice("%llu samples on %zu CPUs in %.1f s, %llu lost, %llu throttled; %llu file%s, %.1f MiB (%.1f MiB raw) in %s",
		       (unsigned long long)c->stats.samples, c->events.ring_count, elapsed,
		       (unsigned long long)(c->stats.lost + c->stats.lost_samples),
		       (unsigned long long)c->stats.throttled,
		       (unsigned long long)totals.files, totals.files == 1 ? "" : "s",
		       (double)totals.bytes / 1048576.0, (double)totals.raw_bytes / 1048576.0,
		       c->options->output_dir);
	if (c->trim_buffer)
		prd_log_notice("user stacks: %.1f MiB of samples from the kernel, %.1f MiB after dropping unused stack",
			       (double)c->stats.sample_bytes_in / 1048576.0,
			       (double)c->stats.sample_bytes_out / 1048576.0);
	if (totals.dropped_records)
		prd_log_warning("%llu records (%llu bytes) could not be written",
				(unsigned long long)totals.dropped_records,
				(unsigned long long)totals.dropped_bytes);
}

static int setup(struct collector *c, int *go_fd, int *failed_fd)
{
	const struct perfrecd_options *o = c->options;
	struct output_config output_config = { 0 };
	struct event_target target = { .pid = -1 };
	struct perf_event_attr attrs[PERFRECD_EVENTS_MAX];
	char names[PERFRECD_EVENTS_MAX][256];
	const char *name_list[PERFRECD_EVENTS_MAX];
	size_t count = o->event_count ? o->event_count : 1, used = 0;
	uint64_t rate = 0;
	struct prf_error error;
	char notice[512] = "";
	int ret;

	/* A directory that cannot be ours stops it before any event opens. */
	ret = prd_output_check_directory(o->output_dir, &error);
	if (ret < 0) {
		prd_log_error("%s", error.message);
		return ret == -EPERM ? 2 : 1;
	}
	prd_task_meta_open(&c->tasks, o->proc_root);
	for (size_t e = 0; e < count; e++) {
		ret = build_attr(c, o->event_count ? o->events[e] : NULL, &attrs[e], names[e],
				 sizeof(names[e]), notice, sizeof(notice));
		if (ret < 0)	/* refused (permissions) at run time; else a bad setting */
			return ret == -EACCES || ret == -EPERM ? 1 : 2;
		name_list[e] = names[e];
		ret = snprintf(c->event_names + used, sizeof(c->event_names) - used, "%s%s",
			       e ? ", " : "", names[e]);
		used = ret < 0 ? used : used + (size_t)ret < sizeof(c->event_names) ?
		       used + (size_t)ret : sizeof(c->event_names) - 1;
	}
	target.proc_root = o->proc_root;
	target.sysfs_root = o->sysfs_root;
	/*
	 * Every event's samples share the CPU's ring, sized for their summed
	 * rates; a period gives no rate, so it is counted as 1 kHz.
	 */
	for (size_t e = 0; e < count; e++)
		rate += attrs[e].freq ? attrs[e].sample_freq : 1000;
	target.ring_pages = o->ring_pages ? o->ring_pages :
			    prd_event_ring_pages_for(rate, sample_bytes_estimate(&attrs[0]));
	for (size_t e = 0; e < count; e++)
		attrs[e].wakeup_watermark =
			(uint32_t)(target.ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	if (o->pid) {
		target.pid = o->pid;
		target.all_threads = 1;
	} else if (o->command) {
		c->child = start_command(o->command, go_fd, failed_fd);
		if (c->child < 0) {
			prd_log_error("starting %s: %s", o->command[0], strerror(-c->child));
			return 1;
		}
		if (follows_tasks(o))
			target.pid = c->child;
	}
	target.cpus = o->cpus;
	target.cpu_count = o->cpu_count;
	ret = prd_event_set_open(&c->events, attrs, name_list, count, &target, &error);
	if (ret < 0) {
		prd_log_error("%s", error.message);	/* the one line a failure prints */
		return ret == -EINVAL || ret == -ENOENT || ret == -EOPNOTSUPP ? 2 : 1;
	}
	if (*notice)
		prd_log_notice("%s", notice);
	c->ring_hung_up = calloc(c->events.ring_count, 1);
	c->cpu_online = calloc(c->events.ring_count, 1);
	if (c->events.events[0].attr.sample_type & PERF_SAMPLE_STACK_USER)
		c->trim_buffer = malloc(TRIM_BUFFER_SIZE);
	if (!c->ring_hung_up || !c->cpu_online || ((c->events.events[0].attr.sample_type & PERF_SAMPLE_STACK_USER) &&
				 !c->trim_buffer)) {
		prd_log_error("out of memory");
		return 1;
	}
	c->layout = (struct synth_layout){ .attr = &c->events.events[0].attr,
					   .id = c->events.events[0].ids[0],
					   .cpu = (uint32_t)c->events.rings[0].cpu };
	layout_time_offsets(c);

	prf_file_info_detect(&c->info, &c->host);
	output_config.directory = o->output_dir;
	output_config.hostname = c->info.hostname;
	output_config.rotate_size = o->rotate_size;
	output_config.rotate_age_ns = o->rotate_age_s * 1000000000u;
	output_config.retain_size = o->retain_size;
	output_config.retain_age_s = o->retain_age_s;
	output_config.zstd_level = o->zstd_level;
	output_config.sample_encoding = o->sample_encoding;
	output_config.group = o->group;
	ret = prd_output_open(&c->output, &output_config, &error);
	if (ret < 0) {
		prd_log_error("%s", error.message);
		/* A directory others control, another daemon's, a group unknown: retrying cannot help. */
		return ret == -EPERM || ret == -EBUSY || ret == -EINVAL ? 2 : 1;
	}
	describe_file(c);
	c->buildids = prd_buildid_cache_new();
	if (c->buildids && o->binary_cache_size) {
		/* Without it the capture only loses container binaries: not fatal. */
		ret = prd_bincache_open(&c->binaries, o->output_dir, o->binary_cache_size, o->group);
		if (ret < 0)
			prd_log_warning("%s/.build-id: binary cache off: %s", o->output_dir, strerror(-ret));
		else
			prd_buildid_cache_keep_binaries(c->buildids, c->binaries);
	}
	c->jit = prd_jit_maps_new(o->proc_root, o->jit_map_size);
	c->sink = (struct record_sink){ sink_emit, c };
	if (o->kernel_symbols == KERNEL_SYMBOLS_HIT && !o->exclude_kernel) {
		ret = prd_ksyms_new(&c->ksyms, o->proc_root, o->sysfs_root);
		if (ret < 0 && ret != -ENOENT)
			prd_log_warning("reading %s/kallsyms: %s; kernel frames will not be named",
					o->proc_root, strerror(-ret));
	}
	if (open_signals(c) < 0 || open_loop(c) < 0) {
		prd_log_error("setting up the event loop: %s", strerror(errno));
		return 1;
	}
	/* Enabled before the snapshot: a process starting in between is seen twice, never missed. */
	if (!(follows_tasks(o) && o->command))
		prd_event_set_enable(&c->events, 1);
	ret = start_file(c);
	if (ret < 0) {
		prd_log_error("cannot write to %s: %s", o->output_dir, strerror(-ret));
		return 1;
	}
	return 0;
}

int prd_collector_run(const struct perfrecd_options *options)
{
	struct collector c = { .options = options, .epoll_fd = -1, .signal_fd = -1,
			       .timer_fd = -1, .tasks = { .proc_fd = -1 } };
	int go_fd = -1, failed_fd = -1, status;

	c.watchdog_ns = prd_notify_watchdog_usec() * 1000u;
	c.started_ns = prf_clock_ns(CLOCK_MONOTONIC);
	status = setup(&c, &go_fd, &failed_fd);
	if (status) {
		if (c.child > 0) {
			kill(c.child, SIGKILL);
			waitpid(c.child, NULL, 0);
		}
		goto out;
	}
	/* The duration counts from when sampling starts, not from setup. */
	c.started_ns = prf_clock_ns(CLOCK_MONOTONIC);
	if (options->duration_s > 0)
		c.deadline_ns = c.started_ns + (uint64_t)(options->duration_s * 1e9 + 0.5);
	c.last_flush_ns = c.last_drain_ns = c.last_watchdog_ns = prf_clock_ns(CLOCK_MONOTONIC);
	prd_notify_send("READY=1\nSTATUS=sampling %s on %zu CPUs", c.event_names,
			c.events.ring_count);
	prd_log_info("sampling %s at %s %llu on %zu CPUs into %s", c.event_names,
		     options->period ? "period" : "frequency",
		     (unsigned long long)(options->period ? options->period : options->frequency),
		     c.events.ring_count, options->output_dir);
	if (go_fd >= 0) {
		int ret = release_command(go_fd, failed_fd);

		if (ret < 0) {
			prd_log_error("cannot run %s: %s", options->command[0], strerror(-ret));
			waitpid(c.child, NULL, 0);
			c.child = 0;
			c.stopping = 1;
			status = 1;
		}
	}

	if (!c.stopping && run_loop(&c) < 0)
		status = 1;
	prd_notify_send("STOPPING=1");
	prd_event_set_enable(&c.events, 0);
	drain_all(&c);
	prd_jit_maps_poll(c.jit, &c.sink);
	{
		struct prf_stats_record stats;

		fill_stats(&c, &stats);
		prd_output_append(c.output, &stats, sizeof(stats), stats.time);
	}
	if (prd_output_finish(c.output) < 0)
		status = 1;
	print_summary(&c);
	if (c.child > 0) {
		kill(c.child, SIGTERM);
		waitpid(c.child, &c.child_status, 0);
	}
out:
	prd_output_close(c.output);
	prd_event_set_close(&c.events);
	prd_buildid_cache_free(c.buildids);
	prd_task_meta_close(&c.tasks);
	prd_ksyms_free(c.ksyms);
	prd_bincache_close(c.binaries);
	prd_jit_maps_free(c.jit);
	free(c.ring_hung_up);
	free(c.cpu_online);
	free(c.trim_buffer);
	if (c.epoll_fd >= 0)
		close(c.epoll_fd);
	if (c.signal_fd >= 0)
		close(c.signal_fd);
	if (c.timer_fd >= 0)
		close(c.timer_fd);
	return status;
}
