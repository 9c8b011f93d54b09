/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collector: per-CPU rings drained on wakeups into rotating files.
 * One thread, one epoll loop: ring fds wake it when wakeup_watermark
 * bytes are waiting, a timerfd makes sure low rates are still written
 * within the flush interval, a signalfd turns signals into events.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "collector-internal.h"

static void follow_cpus(struct collector *c);

/* Every drain interval: drain; every flush interval, or to rotate: note statistics, write. */
static void periodic(struct collector *c, uint64_t now)
{
	struct prf_stats_record stats;
	int rotation_due;

	prd_collector_drain_all(c);
	prd_jit_maps_poll(c->jit, &c->sink);
	prd_bincache_poll(c->binaries);
	follow_cpus(c);
	c->last_drain_ns = now;
	rotation_due = prd_output_rotation_due(c->output, now);
	if (rotation_due || now - c->last_flush_ns >= flush_interval_ns(c)) {
		prd_collector_fill_stats(c, &stats);
		prd_output_append(c->output, &stats, sizeof(stats), stats.time);
		prd_output_flush(c->output, now);
		c->last_flush_ns = now;
	}
	/* The flush checks the directory: a file in one gone is due now. */
	rotation_due = rotation_due || prd_output_rotation_due(c->output, now);
	prd_collector_follow_output(c);
	prd_collector_notify_status(c, "");
	if (rotation_due)
		prd_collector_rotate(c);
	if (prd_output_must_stop(c->output))
		c->stopping = 1;
}

/* ---- running -------------------------------------------------------- */

static void cpu_gone(struct collector *c, struct cpu_ring *ring)
{
	prd_collector_drain_ring(c, ring);
	epoll_ctl(c->epoll_fd, EPOLL_CTL_DEL, ring->fd, NULL);
	prd_event_set_cpu_gone(&c->events, (size_t)(ring - c->events.rings));
	prd_collector_note_loss(c, PRF_LOST_CPU_OFFLINE, ring->cpu);
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
		prd_collector_rotate(c);
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

	prd_collector_drain_ring(c, ring);
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
			prd_collector_reload(c);
			break;
		case SIGUSR1:
			prd_collector_log_stats(c, LOG_LEVEL_NOTICE);
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
			} else if (which == UINT64_MAX - 3) {
				prd_collector_drain_offcpu(c);
			} else if (which == UINT64_MAX - 2) {
				uint64_t expirations;

				if (read(c->timer_fd, &expirations, sizeof(expirations)) < 0)
					continue;
			} else if (which < c->events.ring_count) {
				struct cpu_ring *ring = &c->events.rings[which];

				if (!(events[i].events & (EPOLLHUP | EPOLLERR)))
					prd_collector_drain_ring(c, ring);
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
	if (c->offcpu)
		prd_log_notice("off-CPU: %llu blocks of %.3f ms or more recorded, %llu lost",
			       (unsigned long long)c->stats.off_cpu,
			       (double)c->options->off_cpu_min_ns / 1e6,
			       (unsigned long long)c->stats.off_cpu_lost);
	if (c->trim_buffer)
		prd_log_notice("user stacks: %.1f MiB of samples from the kernel, %.1f MiB after dropping unused stack",
			       (double)c->stats.sample_bytes_in / 1048576.0,
			       (double)c->stats.sample_bytes_out / 1048576.0);
	if (totals.dropped_records)
		prd_log_warning("%llu records (%llu bytes) could not be written",
				(unsigned long long)totals.dropped_records,
				(unsigned long long)totals.dropped_bytes);
}

int prd_collector_run(const struct perfrecd_options *options)
{
	struct collector c = { .options = options, .epoll_fd = -1, .signal_fd = -1,
			       .timer_fd = -1, .tasks = { .proc_fd = -1 } };
	int go_fd = -1, failed_fd = -1, status;

	c.watchdog_ns = prd_notify_watchdog_usec() * 1000u;
	c.started_ns = prf_clock_ns(CLOCK_MONOTONIC);
	status = prd_collector_setup(&c, &go_fd, &failed_fd);
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
		int ret = prd_collector_release_command(go_fd, failed_fd);

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
	prd_collector_drain_all(&c);
	prd_jit_maps_finish(c.jit, &c.sink);
	prd_bincache_finish(c.binaries);
	{
		struct prf_stats_record stats;

		prd_collector_fill_stats(&c, &stats);
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
	prd_offcpu_close(c.offcpu);
	free(c.offcpu_buffer);
	free(c.ring_hung_up);
	free(c.cpu_online);
	free(c.trim_buffer);
	for (size_t e = 0; e < PERFRECD_EVENTS_MAX; e++)
		free(c.tracepoint_formats[e]);
	if (c.epoll_fd >= 0)
		close(c.epoll_fd);
	if (c.signal_fd >= 0)
		close(c.signal_fd);
	if (c.timer_fd >= 0)
		close(c.timer_fd);
	return status;
}
