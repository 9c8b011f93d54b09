/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Setting up: the events' attrs and the events, the command, the loop's descriptors, the output. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "collector-internal.h"

/* The TRACEPOINT_FORMAT record of event index, kept for every file's start. */
static int keep_tracepoint_format(struct collector *c, const char *event, uint64_t id,
				  size_t index)
{
	struct prf_error error;
	size_t size;
	char *text;
	ssize_t n;
	void *record;
	int ret;

	ret = prd_tracepoint_format(event, id, &text, &size, &error);
	if (ret < 0) {
		prd_log_error("-e %s: %s", event, error.message);
		return ret;
	}
	record = malloc(sizeof(struct prf_tracepoint_format_record) + strlen(event) + size + 16);
	n = record ? prf_encode_tracepoint_format(id, event, text, size, record,
						  sizeof(struct prf_tracepoint_format_record) +
						  strlen(event) + size + 16) : -ENOMEM;
	free(text);
	if (n < 0) {
		free(record);
		prd_log_error("-e %s: its format: %s", event, strerror((int)-n));
		return (int)n;
	}
	c->tracepoint_formats[index] = record;
	c->tracepoint_format_sizes[index] = (size_t)n;
	return 0;
}

/* notice gets the default event's fallback, said once the events are open. */
/* The attr of event (NULL: the default one); -F/-c unless the event names its own. */
static int build_attr(struct collector *c, const char *event, size_t index,
		      struct perf_event_attr *attr, char *name, size_t name_size,
		      struct prf_error *notice)
{
	const struct perfrecd_options *o = c->options;
	struct prf_error error;
	int ret;

	memset(attr, 0, sizeof(*attr));
	if (event) {
		ret = prd_event_parse(event, o->sysfs_root, attr, &error);
		if (ret < 0) {
			prd_log_error("-e %s: %s", event, error.message);
			return ret;
		}
		snprintf(name, name_size, "%s", event);
		if (attr->type == PERF_TYPE_TRACEPOINT) {
			ret = keep_tracepoint_format(c, event, attr->config, index);
			if (ret < 0)
				return ret;
		}
	} else {
		ret = prd_event_default(attr, name, name_size, notice);
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
	/* A tracepoint's fields, which its TRACEPOINT_FORMAT names; every hit unless -c. */
	if (attr->type == PERF_TYPE_TRACEPOINT) {
		attr->sample_type |= PERF_SAMPLE_RAW;
		if (o->period)
			attr->sample_period = o->period;
	}
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
	/*
	 * A tracepoint fires in the kernel: excluding the kernel would drop
	 * every hit, so --user-only keeps only its user stack.
	 */
	if (attr->type == PERF_TYPE_TRACEPOINT)
		attr->exclude_callchain_kernel |= !!o->exclude_kernel;
	else
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
int prd_collector_release_command(int go_fd, int failed_fd)
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
	/*
	 * A ping is due half the watchdog's interval after the last and goes
	 * at the first tick after that: ticks at a quarter keep the longest
	 * gap at three quarters.  (At a half, a tick a hair early left the
	 * ping to the next one: a gap of the whole interval, which systemd
	 * acts on.)
	 */
	if (c->watchdog_ns && c->watchdog_ns / 4 < tick_ns)
		tick_ns = c->watchdog_ns / 4;
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
	ev.data.u64 = UINT64_MAX - 3;
	if (c->offcpu && epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, prd_offcpu_fd(c->offcpu), &ev) < 0)
		return -errno;
	ev.data.u64 = UINT64_MAX - 1;
	if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->signal_fd, &ev) < 0)
		return -errno;
	ev.data.u64 = UINT64_MAX - 2;
	if (epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->timer_fd, &ev) < 0)
		return -errno;
	return 0;
}

/*
 * --off-cpu: the BPF program, attached before the snapshot like the events
 * are enabled, so that no thread's block goes unseen in between.  Its
 * callchains follow the samples' settings; dwarf mode copies at most the
 * program's 16 KiB of user stack.
 */
static int open_offcpu(struct collector *c)
{
	const struct perfrecd_options *o = c->options;
	struct prd_offcpu_config config = {
		.min_ns = o->off_cpu_min_ns,
		.kernel_callchain = o->call_graph != CALL_GRAPH_NONE &&
				    !o->exclude_kernel_callchain && !o->exclude_kernel,
		.user_callchain = o->call_graph != CALL_GRAPH_NONE && !o->exclude_user_callchain,
		.stack_user_size = o->call_graph == CALL_GRAPH_DWARF ? o->stack_user_size : 0,
	};
	struct prf_error error;
	int ret;

	if (!o->off_cpu)
		return 0;
	ret = prd_offcpu_open(&c->offcpu, &config, &error);
	if (ret < 0) {
		prd_log_error("%s", error.message);
		return ret == -EOPNOTSUPP ? 2 : 1;
	}
	prd_log_info("--off-cpu: blocked threads' user stacks read at %s",
		     prd_offcpu_resume_hook(c->offcpu));
	c->offcpu_buffer = malloc(OFF_CPU_BUFFER_SIZE);
	if (!c->offcpu_buffer) {
		prd_log_error("out of memory");
		return 1;
	}
	return 0;
}

/* What a file's start and the loop may open at once: the snapshot's walks, the binary cache's copies. */
#define DESCRIPTORS_RESERVE	128

/*
 * The descriptors JIT symbol files may hold: the limit on open files less
 * those open now, the events of CPUs coming back online, and the reserve,
 * so that the followed files never leave a snapshot without descriptors.
 */
static unsigned jit_descriptors(const struct collector *c)
{
	uint64_t open_now = 0, need;
	struct rlimit limit;
	DIR *dir = opendir("/proc/self/fd");

	if (dir) {
		while (readdir(dir))
			open_now++;
		closedir(dir);
	} else {
		open_now = 64;
	}
	if (getrlimit(RLIMIT_NOFILE, &limit) < 0)
		return 0;
	need = open_now + DESCRIPTORS_RESERVE + c->events.event_count * c->events.ring_count;
	if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur - need > UINT32_MAX)
		return UINT32_MAX;
	return limit.rlim_cur > need ? (unsigned)(limit.rlim_cur - need) : 0;
}

int prd_collector_setup(struct collector *c, int *go_fd, int *failed_fd)
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
	struct prf_error notice = { 0 };
	struct jit_limits jit_limits;
	int ret;

	/* A directory that cannot be ours stops it before any event opens. */
	ret = prd_output_check_directory(o->output_dir, &error);
	if (ret < 0) {
		prd_log_error("%s", error.message);
		return ret == -EPERM ? 2 : 1;
	}
	prd_task_meta_open(&c->tasks, o->proc_root);
	for (size_t e = 0; e < count; e++) {
		ret = build_attr(c, o->event_count ? o->events[e] : NULL, e, &attrs[e], names[e],
				 sizeof(names[e]), &notice);
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
	 * rates; a period gives no rate, so it is counted as 1 kHz, and a
	 * tracepoint's every hit as 4 kHz: sched_switch under a busy pipe
	 * lost samples from rings sized for less (bench/README.md).
	 */
	for (size_t e = 0; e < count; e++)
		rate += attrs[e].freq ? attrs[e].sample_freq :
			attrs[e].type == PERF_TYPE_TRACEPOINT ? 4000 : 1000;
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
	if (notice.message[0])
		prd_log_notice("%s", notice.message);
	/* Before the output's first file exists: whoever waits for it sees every block. */
	ret = open_offcpu(c);
	if (ret)
		return ret;
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
	prd_collector_time_offsets(c);

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
	prd_collector_describe_file(c);
	c->buildids = prd_buildid_cache_new();
	if (c->buildids && o->binary_cache_size) {
		/* Without it the capture only loses container binaries: not fatal. */
		ret = prd_bincache_open(&c->binaries, o->output_dir, o->binary_cache_size,
					o->group);
		if (ret < 0)
			prd_log_warning("%s/.build-id: binary cache off: %s", o->output_dir, strerror(-ret));
		else
			prd_buildid_cache_keep_binaries(c->buildids, c->binaries);
	}
	jit_limits = (struct jit_limits){ .process_bytes = o->jit_map_size,
					  .file_bytes = o->rotate_size,
					  .descriptors = jit_descriptors(c) };
	c->jit = prd_jit_maps_new(o->proc_root, &jit_limits);
	c->sink = (struct record_sink){ prd_collector_sink_emit, c };
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
	ret = prd_collector_start_file(c);
	if (ret < 0) {
		prd_log_error("cannot write to %s: %s", o->output_dir, strerror(-ret));
		return 1;
	}
	return 0;
}
