/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroups for the files: each sample carries its task's cgroup v2 id
 * (PERF_SAMPLE_CGROUP) and the kernel announces new cgroups
 * (attr.cgroup, PERF_RECORD_CGROUP), so each file begins with the
 * cgroups that exist already, as PERF_RECORD_CGROUP records of the same
 * shape, which lets a reader name every id.
 *
 * The id is what the kernel calls cgroup_id(): the kernfs node id of the
 * cgroup's directory, which is its file handle on the cgroup2 mount (and
 * its inode number on 64-bit kernels); perf reads it the same way.  The
 * path is the kernel's cgroup_path(): from the root of the hierarchy,
 * whatever part of it this mount shows.
 *
 * Kernels before 5.7 have neither: then each process's path from
 * /proc/PID/cgroup goes in a PRF_RECORD_TASK_CGROUP, in the snapshot and
 * for each new process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "synth-internal.h"
#include "task-meta.h"

/* Deeper or wider than any real hierarchy: a bound, not a limit met. */
#define CGROUP_DEPTH_MAX	64
#define CGROUP_COUNT_MAX	65536u

struct cgroup_body {
	struct perf_event_header header;
	uint64_t id;
	char path[];
};

int prd_cgroup_kernel_support(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_CGROUP;
	attr.cgroup = 1;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * "36 25 0:31 ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER":
 * the first cgroup2 mount, its mount point and the hierarchy's part it shows.
 */
int prd_cgroup_find_mount(const char *proc_root, char *mount, size_t mount_size,
			  char *root, size_t root_size)
{
	char path[PATH_MAX], *line = NULL;
	size_t line_size = 0;
	int found = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/mountinfo", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (found < 0 && getline(&line, &line_size, f) > 0) {
		struct prf_mount_line m;

		if (prf_mountinfo_parse(line, &m) < 0 || strcmp(m.type, "cgroup2"))
			continue;
		if (strlen(m.point) >= mount_size || strlen(m.root) >= root_size)
			continue;
		strcpy(mount, m.point);
		strcpy(root, strcmp(m.root, "/") == 0 ? "" : m.root);
		found = 0;
	}
	free(line);
	fclose(f);
	return found;
}

/* The kernel's cgroup_id() of the directory name in dir_fd. */
static int cgroup_id(int dir_fd, const char *name, uint64_t *id)
{
	struct {
		struct file_handle handle;
		uint64_t id;
	} h;
	struct stat st;
	int mount_id;

	h.handle.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(dir_fd, name, &h.handle, &mount_id, 0) == 0 &&
	    h.handle.handle_bytes == sizeof(h.id)) {
		memcpy(id, h.handle.f_handle, sizeof(*id));
		return 0;
	}
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	*id = st.st_ino;
	return 0;
}

struct cgroup_walk {
	const struct synth_layout *layout;
	const struct record_sink *sink;
	uint64_t time;
	uint64_t count;
	char path[PATH_MAX];
	uint64_t record[(sizeof(struct cgroup_body) + PATH_MAX + PRF_SAMPLE_ID_MAX) / 8 + 1];
};

static int emit_cgroup(struct cgroup_walk *w, uint64_t id, size_t path_len)
{
	struct cgroup_body *body = (void *)w->record;
	size_t size;

	/* A record's size is a u16: a longer path than that is not kept. */
	if (path_len >= 60000)
		return 0;
	memset(body, 0, sizeof(*body));
	body->id = id;
	size = sizeof(*body) + synth_put_string(body->path, path_len ? w->path : "/",
						path_len ? path_len : 1);
	size += synth_trailer(w->layout, (char *)w->record + size, UINT32_MAX, UINT32_MAX,
			      w->time);
	body->header.type = PERF_RECORD_CGROUP;
	body->header.size = (uint16_t)size;
	w->count++;
	return w->sink->emit(w->sink->context, w->record, size, w->time);
}

/* Emits dir_fd's cgroups below w->path (path_len long), depth first. */
static int walk_cgroups(struct cgroup_walk *w, int dir_fd, size_t path_len, int depth)
{
	struct dirent *d;
	DIR *dir;
	int err = 0;

	if (depth > CGROUP_DEPTH_MAX)
		return 0;
	dir = fdopendir(dir_fd);
	if (!dir) {
		close(dir_fd);
		return 0;
	}
	while (!err && w->count < CGROUP_COUNT_MAX && (d = readdir(dir))) {
		size_t name_len = strlen(d->d_name);
		uint64_t id;
		int fd;

		if (d->d_type != DT_DIR || d->d_name[0] == '.' ||
		    path_len + 1 + name_len >= sizeof(w->path))
			continue;
		if (cgroup_id(dirfd(dir), d->d_name, &id) < 0)
			continue;	/* removed meanwhile */
		w->path[path_len] = '/';
		memcpy(w->path + path_len + 1, d->d_name, name_len + 1);
		err = emit_cgroup(w, id, path_len + 1 + name_len);
		if (err)
			break;
		fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0)
			err = walk_cgroups(w, fd, path_len + 1 + name_len, depth + 1);
		w->path[path_len] = '\0';
	}
	closedir(dir);
	return err;
}

int prd_synthesize_cgroups(const char *mount, const char *root,
			   const struct synth_layout *layout,
			   const struct record_sink *sink, uint64_t *count)
{
	struct cgroup_walk *w;
	size_t root_len = strlen(root);
	uint64_t id;
	int fd, err;

	if (root_len >= PATH_MAX)
		return -ENAMETOOLONG;
	fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->layout = layout;
	w->sink = sink;
	w->time = prf_clock_ns(CLOCK_MONOTONIC);
	memcpy(w->path, root, root_len + 1);
	err = cgroup_id(fd, ".", &id);
	if (!err)
		err = emit_cgroup(w, id, root_len);
	if (!err)
		err = walk_cgroups(w, fd, root_len, 0);
	else
		close(fd);
	if (count)
		*count = w->count;
	free(w);
	return err;
}

/* ---- kernels without PERF_SAMPLE_CGROUP ------------------------------ */

int prd_synthesize_task_cgroup(int proc_fd, pid_t pid, const struct record_sink *sink,
			       uint64_t time)
{
	uint64_t record[(sizeof(struct prf_task_cgroup_record) + PATH_MAX + 8) / 8];
	struct prf_task_cgroup_record *r = (void *)record;
	char name[32], text[PATH_MAX + 64], *line;
	size_t len, size;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "%d/cgroup", (int)pid);
	fd = openat(proc_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	text[n] = '\0';
	/* v1 hierarchies have lines of their own; the v2 one is "0::PATH". */
	line = strncmp(text, "0::", 3) == 0 ? text : strstr(text, "\n0::");
	if (!line)
		return -ENOENT;
	line += line == text ? 3 : 4;
	len = strcspn(line, "\n");
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	memset(r, 0, sizeof(*r));
	r->header.type = PRF_RECORD_TASK_CGROUP;
	r->time = time;
	r->pid = (uint32_t)pid;
	size = sizeof(*r) + synth_put_string((char *)(r + 1), line, len);
	r->header.size = (uint32_t)size;
	return sink->emit(sink->context, r, size, time);
}
