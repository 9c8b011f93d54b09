/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each file: its header, its snapshot, its statistics; rotation and reload. */
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "collector-internal.h"

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

	if (i >= PRF_ARRAY_SIZE(c->meta))
		return;
	va_start(ap, fmt);
	vsnprintf(c->meta_values[i], sizeof(c->meta_values[i]), fmt, ap);
	va_end(ap);
	c->meta[i] = (struct prf_meta){ key, c->meta_values[i] };
	c->info.meta_count++;
}

void prd_collector_describe_file(struct collector *c)
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
		      (unsigned long long)kernel.symbols,
		      (double)(prf_clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
}

int prd_collector_start_file(struct collector *c)
{
	uint64_t now = prf_clock_ns(CLOCK_MONOTONIC);
	int ret;

	c->info.start_time_ns = now;
	ret = prd_output_start_file(c->output, &c->info, now);
	if (ret < 0)
		return ret;
	prd_collector_follow_output(c);
	c->generation++;
	/* Before any sample of theirs: a reader names their fields with these. */
	for (size_t e = 0; e < c->events.event_count; e++)
		if (c->tracepoint_formats[e])
			prd_output_append(c->output, c->tracepoint_formats[e],
					  c->tracepoint_format_sizes[e], now);
	prd_bincache_file_started(c->binaries);
	snapshot(c);
	prd_jit_maps_restate(c->jit, &c->sink);
	return 0;
}

/*
 * The binary cache is the output directory's .build-id: when the files
 * go on in another directory at the path (output.c), so does it.  While
 * no directory is there it is off: a directory removed takes no files,
 * and one moved away is no longer perfrecd's to add to or evict from.
 */
void prd_collector_follow_output(struct collector *c)
{
	const struct perfrecd_options *o = c->options;
	unsigned changes = prd_output_directory_changes(c->output);
	int gone = prd_output_directory_gone(c->output), ret;

	if (changes == c->output_changes && gone == c->output_gone)
		return;
	c->output_changes = changes;
	c->output_gone = gone;
	if (!c->buildids || !o->binary_cache_size)
		return;
	prd_buildid_cache_keep_binaries(c->buildids, NULL);
	prd_bincache_close(c->binaries);
	c->binaries = NULL;
	if (gone)
		return;
	ret = prd_bincache_open(&c->binaries, o->output_dir, o->binary_cache_size, o->group);
	if (ret < 0)
		prd_log_warning("%s/.build-id: binary cache off: %s", o->output_dir, strerror(-ret));
	else
		prd_buildid_cache_keep_binaries(c->buildids, c->binaries);
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

void prd_collector_fill_stats(struct collector *c, struct prf_stats_record *r)
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

void prd_collector_log_stats(struct collector *c, enum log_level level)
{
	struct prf_stats_record r;
	double elapsed = (double)(prf_clock_ns(CLOCK_MONOTONIC) - c->started_ns) / 1e9;

	prd_collector_fill_stats(c, &r);
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

void prd_collector_rotate(struct collector *c)
{
	prd_collector_drain_all(c);
	if (prd_collector_start_file(c) < 0)
		return;		/* said by output; the current file goes on */
	prd_output_enforce_retention(c->output, prf_clock_ns(CLOCK_REALTIME) / 1000000000u);
	/*
	 * The file just finished and the new one were both open for a moment:
	 * what the old one freed goes back to the system, or a long-running
	 * daemon's RSS would keep that peak for good.
	 */
	malloc_trim(0);
}

void prd_collector_notify_status(struct collector *c, const char *state)
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
void prd_collector_reload(struct collector *c)
{
	prd_notify_send("RELOADING=1\nMONOTONIC_USEC=%llu",
			(unsigned long long)(prf_clock_ns(CLOCK_MONOTONIC) / 1000u));
	prd_collector_rotate(c);
	prd_collector_notify_status(c, "READY=1\n");
}
