/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening the sampling events, and saying clearly why when the kernel
 * refuses: the errno alone ("Permission denied") rarely tells a user what
 * to change, so the messages name the sysctl, capability or limit.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "format.h"
#include "event-set.h"

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static long read_sysctl(const char *path, long fallback)
{
	FILE *f = fopen(path, "re");
	long value = fallback;

	if (f) {
		if (fscanf(f, "%ld", &value) != 1)
			value = fallback;
		fclose(f);
	}
	return value;
}

/* Online CPUs from "0-3,5,7-8" in SYSFS/devices/system/cpu/online. */
static int online_cpus(const char *sysfs_root, int **cpus, size_t *count)
{
	char path[4096], text[4096];
	size_t n = 0, capacity = 0;
	int *list = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs_root);
	f = fopen(path, "re");
	if (!f || !fgets(text, sizeof(text), f)) {
		if (f)
			fclose(f);
		return -ENOENT;
	}
	fclose(f);
	for (char *p = text; *p && *p != '\n';) {
		char *end;
		long first = strtol(p, &end, 10), last = first;

		if (end == p)
			break;
		if (*end == '-')
			last = strtol(end + 1, &end, 10);
		for (long cpu = first; cpu <= last && cpu < 65536; cpu++) {
			if (prf_ensure_mem((void **)&list, &capacity, sizeof(*list), n + 1) < 0) {
				free(list);
				return -ENOMEM;
			}
			list[n++] = (int)cpu;
		}
		p = *end == ',' ? end + 1 : end;
	}
	*cpus = list;
	*count = n;
	return n ? 0 : -ENOENT;
}

static int list_threads(const char *proc_root, pid_t pid, pid_t **tids, size_t *count)
{
	char path[4096];
	size_t n = 0, capacity = 0;
	pid_t *list = NULL;
	struct dirent *entry;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%d/task", proc_root, (int)pid);
	dir = opendir(path);
	if (!dir || prf_ensure_mem((void **)&list, &capacity, sizeof(*list), 16) < 0) {
		int ret = dir ? -ENOMEM : -errno;

		if (dir)
			closedir(dir);
		return ret;
	}
	/* The main thread first: its fds own the rings. */
	list[n++] = pid;
	while ((entry = readdir(dir))) {
		pid_t tid = (pid_t)atoi(entry->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		if (prf_ensure_mem((void **)&list, &capacity, sizeof(*list), n + 1) < 0)
			break;
		list[n++] = tid;
	}
	closedir(dir);
	*tids = list;
	*count = n;
	return 0;
}

static void explain_open_error(int err, const struct set_event *set, int cpu,
			       pid_t pid, struct prf_error *error)
{
	char *message = error->message;
	size_t size = sizeof(error->message);
	long paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid", 2);
	int n;

	error->code = -err;
	n = snprintf(message, size, "perf_event_open(%s, %s %d): %s: ", set->name,
		     pid > 0 ? "pid" : "cpu", pid > 0 ? (int)pid : cpu, strerror(err));
	if ((size_t)n >= size)
		return;
	message += n;
	size -= (size_t)n;
	switch (err) {
	case EACCES:
	case EPERM:
		if (pid > 0)
			snprintf(message, size,
				 "kernel.perf_event_paranoid is %ld; profiling another user's process needs CAP_PERFMON (or root), and kernel sampling needs paranoid <= 1 (try --user-only)",
				 paranoid);
		else
			snprintf(message, size,
				 "kernel.perf_event_paranoid is %ld; system-wide sampling needs CAP_PERFMON (or root), or perf_event_paranoid <= 0 (sysctl kernel.perf_event_paranoid=0)",
				 paranoid);
		break;
	case EMFILE:
	case ENFILE:
		snprintf(message, size, "one descriptor per CPU (and thread) is needed; raise the limit (ulimit -n, LimitNOFILE=)");
		break;
	case ENOSYS:
	case EOPNOTSUPP:
		if (set->attr.sample_type & PERF_SAMPLE_STACK_USER) {
			snprintf(message, size, "this kernel cannot sample user registers and stacks (--call-graph dwarf); use --call-graph fp");
			break;
		}
		/* fall through */
	case ENOENT:
	case ENODEV:
		snprintf(message, size, "this machine does not support the event; 'perf list' shows what it has");
		break;
	case EINVAL:
		if (set->attr.freq && set->attr.sample_freq >
		    (uint64_t)read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000))
			snprintf(message, size, "the frequency %llu Hz is above kernel.perf_event_max_sample_rate (%ld)",
				 (unsigned long long)set->attr.sample_freq,
				 read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 0));
		else if (set->attr.sample_max_stack >
			 (uint32_t)read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127))
			snprintf(message, size, "--max-stack %u is above kernel.perf_event_max_stack (%ld)",
				 set->attr.sample_max_stack,
				 read_sysctl("/proc/sys/kernel/perf_event_max_stack", 0));
		else if (set->attr.sample_type & PERF_SAMPLE_STACK_USER)
			snprintf(message, size, "the kernel refused --call-graph dwarf (registers 0x%llx, %u bytes of stack); try a smaller SIZE, or --call-graph fp",
				 (unsigned long long)set->attr.sample_regs_user,
				 set->attr.sample_stack_user);
		else
			snprintf(message, size, "the kernel refused these event settings");
		break;
	case ESRCH:
		snprintf(message, size, "no such process");
		break;
	default:
		snprintf(message, size, "cannot open the event");
		break;
	}
}

static int open_one(struct set_event *event, pid_t pid, int cpu)
{
	int fd = perf_event_open(&event->attr, pid, cpu);

	return fd < 0 ? -errno : fd;
}

/* The kernel's id of the event at fd, which its samples and records carry. */
static int read_id(int fd, uint64_t *id, struct prf_error *error)
{
	if (ioctl(fd, PERF_EVENT_IOC_ID, id) == 0)
		return 0;
	return prf_set_error(error, -errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
}

uint32_t prd_event_ring_pages_for(uint64_t frequency, size_t sample_bytes)
{
	/*
	 * Half a second of samples, from 256 KiB to 4 MiB: rings are locked
	 * memory, per CPU, and the drain keeps up long before they fill.  At
	 * 97 Hz that is 64 pages without user stacks and 128 with 8 KiB of
	 * them, which still fits the default kernel.perf_event_mlock_kb.
	 */
	uint64_t bytes = frequency * (uint64_t)sample_bytes / 2;
	uint64_t pages = bytes / (uint64_t)sysconf(_SC_PAGESIZE);
	uint32_t result = 64;

	while (result < pages && result < 1024)
		result *= 2;
	return result;
}

static int explain_mmap_error(int err, uint32_t pages, struct prf_error *error)
{
	return prf_set_error(error, -err, "mapping a %u KiB ring buffer: %s%s",
			     pages * (unsigned)(sysconf(_SC_PAGESIZE) / 1024), strerror(err),
			     err == EPERM ? "; it is above kernel.perf_event_mlock_kb: use --ring-pages, or run with CAP_IPC_LOCK" : "");
}

/*
 * Opens event on (pid, cpu) writing into ring_fd's ring, and reads its
 * id into *id.  The fd, or a negative errno with a message.
 */
static int open_redirected(struct set_event *event, pid_t pid, int cpu, int ring_fd,
			   uint64_t *id, struct prf_error *error)
{
	int fd = open_one(event, pid, cpu), ret;

	if (fd < 0) {
		explain_open_error(-fd, event, cpu, pid, error);
		return fd;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
		ret = prf_set_error(error, -errno, "%s: redirecting %s %d into the ring of CPU %d: %s",
				    event->name, pid > 0 ? "thread" : "CPU", pid > 0 ? (int)pid : cpu,
				    cpu, strerror(errno));
		close(fd);
		return ret;
	}
	ret = read_id(fd, id, error);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Every event on one CPU: the first maps the ring, the others write into it. */
static int open_cpu(struct event_set *set, size_t index, pid_t pid,
		    struct prf_error *error)
{
	struct cpu_ring *ring = &set->rings[index];
	struct set_event *first = &set->events[0];
	int cpu = ring->cpu, fd, ret;

	fd = open_one(first, pid, cpu);
	if (fd < 0) {
		explain_open_error(-fd, first, cpu, pid, error);
		return fd;
	}
	ret = read_id(fd, &first->ids[index], error);
	if (!ret) {
		ret = prd_ring_map(ring, fd, cpu, set->ring_pages);
		if (ret < 0)
			explain_mmap_error(-ret, set->ring_pages, error);
	}
	if (ret < 0) {
		close(fd);
		ring->fd = -1;
		ring->cpu = cpu;
		return ret;
	}
	for (size_t e = 1; e < set->event_count; e++) {
		struct set_event *event = &set->events[e];

		fd = open_redirected(event, pid, cpu, ring->fd, &event->ids[index], error);
		if (fd < 0) {
			prd_event_set_cpu_gone(set, index);
			return fd;
		}
		event->cpu_fds[index] = fd;
	}
	return 0;
}

static int alloc_events(struct event_set *set, const struct perf_event_attr *attrs,
			const char *const *names, size_t count, size_t cpu_count,
			size_t thread_count)
{
	set->events = calloc(count, sizeof(*set->events));
	set->rings = calloc(cpu_count, sizeof(*set->rings));
	set->extra_fds = calloc(cpu_count * thread_count * count, sizeof(*set->extra_fds));
	if (!set->events || !set->rings || !set->extra_fds)
		return -ENOMEM;
	set->event_count = count;
	for (size_t e = 1; e < count; e++)
		if (attrs[e].sample_type != attrs[0].sample_type ||
		    attrs[e].sample_regs_user != attrs[0].sample_regs_user ||
		    attrs[e].read_format != attrs[0].read_format)
			set->mixed_layouts = 1;
	for (size_t r = 0; r < cpu_count; r++)
		set->rings[r].fd = -1;
	for (size_t e = 0; e < count; e++) {
		struct set_event *event = &set->events[e];

		event->attr = attrs[e];
		snprintf(event->name, sizeof(event->name), "%s", names[e]);
		event->ids = calloc(cpu_count * thread_count, sizeof(*event->ids));
		if (!event->ids)
			return -ENOMEM;
		event->id_count = cpu_count;
		if (e == 0)
			continue;
		/* The first event's records describe the processes once for all. */
		event->attr.mmap = event->attr.mmap2 = 0;
		event->attr.comm = event->attr.comm_exec = event->attr.task = 0;
		event->attr.cgroup = 0;
		event->cpu_fds = calloc(cpu_count, sizeof(*event->cpu_fds));
		if (!event->cpu_fds)
			return -ENOMEM;
		for (size_t r = 0; r < cpu_count; r++)
			event->cpu_fds[r] = -1;
	}
	return 0;
}

/*
 * --cpu: the online CPUs narrowed to the list, in place.  A listed CPU
 * that is not online is an error: perf record -C says so too, and a
 * silent gap would look like an idle CPU.
 */
static int keep_listed_cpus(int *cpus, size_t *count, const int *listed, size_t listed_count,
			    struct prf_error *error)
{
	size_t kept = 0;

	for (size_t i = 0; i < listed_count; i++) {
		size_t j = 0;

		while (j < *count && cpus[j] != listed[i])
			j++;
		if (j == *count)
			return prf_set_error(error, -ENODEV, "--cpu: CPU %d is not online", listed[i]);
	}
	for (size_t j = 0; j < *count; j++)
		for (size_t i = 0; i < listed_count; i++)
			if (cpus[j] == listed[i]) {
				cpus[kept++] = cpus[j];
				break;
			}
	*count = kept;
	return 0;
}

static int open_set(struct event_set *set, const struct perf_event_attr *attrs,
		    const char *const *names, size_t count,
		    const struct event_target *target, struct prf_error *error)
{
	pid_t *tids = NULL, pid;
	size_t thread_count = 1;
	int *cpus = NULL;
	size_t cpu_count = 0;
	int ret;

	memset(set, 0, sizeof(*set));
	ret = online_cpus(target->sysfs_root, &cpus, &cpu_count);
	if (ret < 0)
		return prf_set_error(error, ret, "%s/devices/system/cpu/online: cannot read the online CPUs",
				     target->sysfs_root);
	if (target->cpu_count) {
		ret = keep_listed_cpus(cpus, &cpu_count, target->cpus, target->cpu_count, error);
		if (ret < 0) {
			free(cpus);
			return ret;
		}
	}
	if (target->pid > 0 && target->all_threads) {
		ret = list_threads(target->proc_root, target->pid, &tids, &thread_count);
		if (ret < 0) {
			free(cpus);
			return prf_set_error(error, ret == -ENOENT ? -ESRCH : ret, "process %d: %s",
					     (int)target->pid,
					     ret == -ENOENT ? "no such process" : strerror(-ret));
		}
	}
	set->ring_pages = target->ring_pages;
	set->sysfs_root = target->sysfs_root;
	ret = alloc_events(set, attrs, names, count, cpu_count, thread_count);
	if (ret < 0) {
		prf_set_error(error, ret, "out of memory");
		goto fail;
	}
	pid = target->pid > 0 ? (tids ? tids[0] : target->pid) : -1;
	for (size_t c = 0; c < cpu_count; c++) {
		set->rings[c].cpu = cpus[c];
		set->ring_count++;
		ret = open_cpu(set, c, pid, error);
		if (ret < 0)
			goto fail;
	}
	/* Other threads of the process write into the same per-CPU rings. */
	for (size_t t = 1; t < thread_count; t++) {
		for (size_t c = 0; c < cpu_count; c++) {
			for (size_t e = 0; e < count; e++) {
				struct set_event *event = &set->events[e];
				int fd = open_redirected(event, tids[t], cpus[c], set->rings[c].fd,
							 &event->ids[event->id_count], error);

				if (fd == -ESRCH)
					goto next_thread;	/* it exited meanwhile */
				if (fd < 0) {
					ret = fd;
					goto fail;
				}
				set->extra_fds[set->extra_count++] = fd;
				event->id_count++;
			}
		}
next_thread:;
	}
	free(tids);
	free(cpus);
	return 0;
fail:
	free(tids);
	free(cpus);
	prd_event_set_close(set);
	return ret;
}

int prd_event_set_online(const struct event_set *set, unsigned char *online)
{
	int *cpus, ret;
	size_t count;

	ret = online_cpus(set->sysfs_root, &cpus, &count);
	if (ret < 0)
		return ret;
	for (size_t r = 0; r < set->ring_count; r++) {
		online[r] = 0;
		for (size_t i = 0; i < count && !online[r]; i++)
			online[r] = cpus[i] == set->rings[r].cpu;
	}
	free(cpus);
	return 0;
}

void prd_event_set_cpu_gone(struct event_set *set, size_t index)
{
	struct cpu_ring *ring = &set->rings[index];
	int cpu = ring->cpu;

	for (size_t e = 1; e < set->event_count; e++) {
		int *fd = &set->events[e].cpu_fds[index];

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	if (ring->fd >= 0)
		close(ring->fd);
	prd_ring_unmap(ring);
	ring->fd = -1;
	ring->cpu = cpu;
}

int prd_event_set_open(struct event_set *set, const struct perf_event_attr *attrs,
		       const char *const *names, size_t count,
		       const struct event_target *target, struct prf_error *error)
{
	error->code = open_set(set, attrs, names, count, target, error);
	return error->code;
}

int prd_event_set_reopen_cpu(struct event_set *set, size_t index, struct prf_error *error)
{
	error->code = open_cpu(set, index, -1, error);
	return error->code;
}

int prd_event_set_enable_cpu(struct event_set *set, size_t index)
{
	int ret = 0;

	if (set->rings[index].fd >= 0 &&
	    ioctl(set->rings[index].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		ret = -errno;
	for (size_t e = 1; e < set->event_count; e++) {
		int fd = set->events[e].cpu_fds[index];

		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			ret = -errno;
	}
	return ret;
}

void prd_event_set_close(struct event_set *set)
{
	for (size_t i = 0; i < set->extra_count; i++)
		close(set->extra_fds[i]);
	for (size_t i = 0; i < set->ring_count; i++)
		prd_event_set_cpu_gone(set, i);
	for (size_t e = 0; e < set->event_count; e++) {
		free(set->events[e].cpu_fds);
		free(set->events[e].ids);
	}
	free(set->events);
	free(set->rings);
	free(set->extra_fds);
	memset(set, 0, sizeof(*set));
}

const struct perf_event_attr *prd_event_set_attr_of(struct event_set *set,
						    const void *sample, size_t size)
{
	uint64_t identifier;

	if (!set->mixed_layouts)
		return &set->events[0].attr;
	/* build_attr() gives every event PERF_SAMPLE_IDENTIFIER: it is first. */
	if (size < sizeof(struct perf_event_header) + 8)
		return NULL;
	memcpy(&identifier, (const uint8_t *)sample + sizeof(struct perf_event_header), 8);
	/* A ring's samples come in runs of one event: the last answer mostly holds. */
	if (set->last_attr && identifier == set->last_identifier)
		return set->last_attr;
	for (size_t e = 0; e < set->event_count; e++)
		for (size_t i = 0; i < set->events[e].id_count; i++)
			if (set->events[e].ids[i] == identifier) {
				set->last_identifier = identifier;
				set->last_attr = &set->events[e].attr;
				return set->last_attr;
			}
	return NULL;
}

int prd_event_set_enable(struct event_set *set, int enable)
{
	unsigned long request = enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int ret = 0;

	for (size_t i = 0; i < set->ring_count; i++) {
		if (set->rings[i].fd >= 0 && ioctl(set->rings[i].fd, request, 0) < 0)
			ret = -errno;
		for (size_t e = 1; e < set->event_count; e++) {
			int fd = set->events[e].cpu_fds[i];

			if (fd >= 0 && ioctl(fd, request, 0) < 0)
				ret = -errno;
		}
	}
	for (size_t i = 0; i < set->extra_count; i++)
		if (ioctl(set->extra_fds[i], request, 0) < 0)
			ret = -errno;
	return ret;
}
