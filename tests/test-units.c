/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a cgroup path tells (session_cgroup_unit(), _container()) on a
 * table of paths as systemd, docker, containerd, CRI-O, podman, LXC,
 * systemd-nspawn and Kubernetes (both cgroup drivers) make them; and the
 * session on small files written here: a sample's cgroup id named by a
 * PERF_RECORD_CGROUP, a process's TASK_CGROUP where samples carry none
 * (and a 1.1-style file with neither: unknown), NSPID ids, and pid 0
 * named swapper.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format.h"
#include "session.h"
#include "symbolize.h"

/* ---- the names of paths ------------------------------------------------ */

static const struct {
	const char *path, *unit, *container;	/* container NULL: none */
} paths[] = {
	{ "/", "-.slice", NULL },
	{ "", "-.slice", NULL },
	{ "/init.scope", "init.scope", NULL },
	{ "/system.slice", "system.slice", NULL },
	{ "/system.slice/nginx.service", "nginx.service", NULL },
	{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service", NULL },
	{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope", NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/init.scope", "init.scope", NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope",
	  "app-firefox-1234.scope", NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/session.slice/pipewire.service",
	  "pipewire.service", NULL },
	{ "/user.slice/user-1000.slice/user@1000.service", "user@1000.service", NULL },
	{ "/system.slice/docker-3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b.scope",
	  "docker-3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b.scope",
	  "docker:3f2a9c1b7e4d" },
	/* a container with its own systemd: the innermost unit, the outer container */
	{ "/system.slice/docker-3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b.scope/system.slice/nginx.service",
	  "nginx.service", "docker:3f2a9c1b7e4d" },
	{ "/docker/3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
	  "/docker/3f2a9c1b7e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
	  "docker:3f2a9c1b7e4d" },
	{ "/system.slice/containerd.service", "containerd.service", NULL },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d2f5a1e_3c4b_4e6f_9a0b_1c2d3e4f5a6b.slice/cri-containerd-0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9.scope",
	  "cri-containerd-0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9.scope",
	  "pod:8d2f5a1e-3c4b-4e6f-9a0b-1c2d3e4f5a6b/containerd:0a1b2c3d4e5f" },
	{ "/kubepods.slice/kubepods-pod8d2f5a1e_3c4b_4e6f_9a0b_1c2d3e4f5a6b.slice/crio-0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9.scope",
	  "crio-0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9.scope",
	  "pod:8d2f5a1e-3c4b-4e6f-9a0b-1c2d3e4f5a6b/crio:0a1b2c3d4e5f" },
	/* the pod's own slice: its infrastructure */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d2f5a1e_3c4b_4e6f_9a0b_1c2d3e4f5a6b.slice",
	  "kubepods-besteffort-pod8d2f5a1e_3c4b_4e6f_9a0b_1c2d3e4f5a6b.slice",
	  "pod:8d2f5a1e-3c4b-4e6f-9a0b-1c2d3e4f5a6b" },
	/* the cgroupfs driver */
	{ "/kubepods/burstable/pod8d2f5a1e-3c4b-4e6f-9a0b-1c2d3e4f5a6b/0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
	  "/kubepods/burstable/pod8d2f5a1e-3c4b-4e6f-9a0b-1c2d3e4f5a6b/0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
	  "pod:8d2f5a1e-3c4b-4e6f-9a0b-1c2d3e4f5a6b/container:0a1b2c3d4e5f" },
	{ "/machine.slice/libpod-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope/container",
	  "libpod-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope",
	  "podman:9f8e7d6c5b4a" },
	/* podman's monitor is not the container */
	{ "/machine.slice/libpod-conmon-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope",
	  "libpod-conmon-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope", NULL },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope",
	  "libpod-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope",
	  "podman:9f8e7d6c5b4a" },
	{ "/machine.slice/machine-debian.scope/payload", "machine-debian.scope", "machine:debian" },
	{ "/machine.slice/systemd-nspawn@build.service/payload/system.slice/cron.service",
	  "cron.service", "machine:build" },
	{ "/lxc.payload.web1/system.slice/ssh.service", "ssh.service", "lxc:web1" },
	/* not systemd's: shown whole */
	{ "/payload", "/payload", NULL },
	/* names that only look like runtimes' */
	{ "/system.slice/docker-compose.service", "docker-compose.service", NULL },
	{ "/system.slice/docker-xyz.scope", "docker-xyz.scope", NULL },
};

START_TEST(test_names)
{
	char unit[256], container[256];
	const char *path = paths[_i].path;
	const char *c = session_cgroup_container(path, container, sizeof(container));

	ck_assert_str_eq(session_cgroup_unit(path, unit, sizeof(unit)), paths[_i].unit);
	if (paths[_i].container) {
		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c, paths[_i].container);
	} else {
		ck_assert_msg(!c, "%s: container %s, expected none", path, c);
	}
}
END_TEST

/* Cut to the room given, NUL-terminated; nothing written with none. */
START_TEST(test_short_buffers)
{
	char small[8];

	ck_assert_str_eq(session_cgroup_unit("/system.slice/nginx.service", small, sizeof(small)),
			 "nginx.s");
	ck_assert_str_eq(session_cgroup_container("/docker-3f2a9c1b7e4d5a6b.scope", small,
						  sizeof(small)), "docker:");
	ck_assert_ptr_null(session_cgroup_container("/docker-3f2a9c1b7e4d5a6b.scope", small, 0));
}
END_TEST

/* ---- the session ----------------------------------------------------- */

struct file {
	struct prf_writer *writer;
	int fd;
	char path[64];
};

static const struct perf_event_attr *test_attr(int with_cgroup)
{
	static struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | (with_cgroup ? PERF_SAMPLE_CGROUP : 0);
	return &attr;
}

static void file_open(struct file *f, int with_cgroup)
{
	static const uint64_t ids[] = { 1 };
	struct prf_event event = { .attr = *test_attr(with_cgroup), .name = "cpu-clock",
				   .ids = ids, .id_count = 1 };
	struct prf_file_info info = { .hostname = "units-host", .events = &event,
				      .event_count = 1, .clockid = 1 };
	struct prf_error error;

	snprintf(f->path, sizeof(f->path), "/tmp/test-units-XXXXXX");
	f->fd = mkstemp(f->path);
	ck_assert_int_ge(f->fd, 0);
	ck_assert_int_eq(prf_writer_open(&f->writer, f->fd, &info, NULL, &error), 0);
}

static void append(struct file *f, const void *record, size_t size, uint64_t time)
{
	ck_assert_int_eq(prf_writer_append(f->writer, record, size, time), 0);
}

static void add_comm(struct file *f, uint32_t pid, const char *comm)
{
	struct {
		struct perf_event_header header;
		uint32_t pid, tid;
		char comm[16];
	} r = { { PERF_RECORD_COMM, 0, sizeof(r) }, pid, pid, "" };

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	append(f, &r, sizeof(r), 0);
}

static void add_cgroup(struct file *f, uint64_t id, const char *path)
{
	struct {
		struct perf_event_header header;
		uint64_t id;
		char path[64];
	} r = { { PERF_RECORD_CGROUP, 0, sizeof(r) }, id, "" };

	snprintf(r.path, sizeof(r.path), "%s", path);
	append(f, &r, sizeof(r), 0);
}

static void add_task_cgroup(struct file *f, uint32_t pid, uint64_t time, const char *path)
{
	struct {
		struct prf_task_cgroup_record r;
		char path[64];
	} r = { .r = { .header = { .type = PRF_RECORD_TASK_CGROUP, .size = sizeof(r) },
		       .time = time, .pid = pid } };

	snprintf(r.path, sizeof(r.path), "%s", path);
	append(f, &r, sizeof(r), time);
}

static void add_nspid(struct file *f, uint32_t pid, uint32_t tid, uint32_t ns_pid,
		      uint32_t ns_tid)
{
	struct prf_nspid_record r = { .header = { .type = PRF_RECORD_NSPID, .size = sizeof(r) },
				      .time = 10, .pid = pid, .tid = tid, .ns_pid = ns_pid,
				      .ns_tid = ns_tid, .ns_level = 1 };

	append(f, &r, sizeof(r), 10);
}

static void add_sample(struct file *f, int with_cgroup, uint32_t pid, uint32_t tid,
		       uint64_t time, uint64_t cgroup)
{
	uint64_t r[7] = { 0, 1, 0x1000, (uint64_t)tid << 32 | pid, time, cgroup };
	struct perf_event_header header = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					    (uint16_t)(with_cgroup ? 48 : 40) };

	memcpy(r, &header, sizeof(header));
	append(f, r, header.size, time);
}

static void file_close(struct file *f)
{
	ck_assert_int_eq(prf_writer_finish(f->writer), 0);
	prf_writer_close(f->writer);
	close(f->fd);
}

struct seen {
	size_t count;
	struct {
		uint32_t pid, tid, ns_pid, ns_tid;
		char comm[32], unit[64], container[64], cgroup[96];
	} s[16];
};

static void copy(char *out, size_t size, const char *s)
{
	snprintf(out, size, "%s", s ? s : "(null)");
}

static void collect(void *context, const struct session_sample *sample)
{
	struct seen *seen = context;

	if (seen->count == 16)
		return;
	seen->s[seen->count].pid = sample->pid;
	seen->s[seen->count].tid = sample->tid;
	seen->s[seen->count].ns_pid = sample->ns_pid;
	seen->s[seen->count].ns_tid = sample->ns_tid;
	copy(seen->s[seen->count].comm, sizeof(seen->s[0].comm), sample->comm);
	copy(seen->s[seen->count].unit, sizeof(seen->s[0].unit), sample->unit);
	copy(seen->s[seen->count].container, sizeof(seen->s[0].container), sample->container);
	copy(seen->s[seen->count].cgroup, sizeof(seen->s[0].cgroup), sample->cgroup);
	seen->count++;
}

static void read_file(const char *path, const struct session_filter *filter,
		      struct seen *seen)
{
	struct symbolizer_options options = { 0 };
	struct symbolizer *symbolizer = symbolizer_new(&options);
	struct session_options session_options = { .symbolizer = symbolizer };
	struct session *session;
	struct prf_error error;

	ck_assert_ptr_nonnull(symbolizer);
	ck_assert_int_eq(session_new(&session, &session_options), 0);
	ck_assert_int_eq(session_add_input(session, path, &error), 0);
	ck_assert_int_eq(session_load(session, &error), 0);
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(session_for_each_sample(session, filter, collect, seen), 0);
	session_free(session);
	symbolizer_free(symbolizer);
}

/* Samples carry cgroup ids; the file names them; pid 0 is swapper. */
START_TEST(test_session_cgroup_ids)
{
	const char *units[] = { "nginx.service" };
	struct session_filter filter = { 0 };
	struct seen seen;
	struct file f;

	file_open(&f, 1);
	add_cgroup(&f, 1, "/");
	add_cgroup(&f, 77, "/system.slice/nginx.service");
	add_cgroup(&f, 78, "/system.slice/docker-3f2a9c1b7e4d5a6b.scope");
	add_comm(&f, 100, "nginx");
	add_comm(&f, 200, "app");
	add_nspid(&f, 200, 201, 1, 6);
	add_nspid(&f, 200, 201, 1, 7);		/* the latest stands */
	add_sample(&f, 1, 0, 0, 20, 1);
	add_sample(&f, 1, 100, 100, 21, 77);
	add_sample(&f, 1, 200, 201, 22, 78);
	add_sample(&f, 1, 200, 200, 23, 999);	/* an id no record names */
	add_sample(&f, 1, 200, UINT32_MAX, 24, 78);	/* a thread exiting: tid -1 */
	file_close(&f);

	read_file(f.path, &filter, &seen);
	ck_assert_uint_eq(seen.count, 5);
	ck_assert_str_eq(seen.s[0].comm, "swapper");
	ck_assert_str_eq(seen.s[0].unit, "-.slice");
	ck_assert_str_eq(seen.s[0].cgroup, "/");
	ck_assert_str_eq(seen.s[0].container, "(null)");
	ck_assert_str_eq(seen.s[1].comm, "nginx");
	ck_assert_str_eq(seen.s[1].unit, "nginx.service");
	ck_assert_uint_eq(seen.s[1].ns_pid, 0);
	ck_assert_str_eq(seen.s[2].container, "docker:3f2a9c1b7e4d");
	ck_assert_uint_eq(seen.s[2].ns_pid, 1);
	ck_assert_uint_eq(seen.s[2].ns_tid, 7);
	ck_assert_str_eq(seen.s[3].unit, "(null)");
	ck_assert_uint_eq(seen.s[3].ns_pid, 0);		/* tid 200 has no NSPID */
	ck_assert_uint_eq(seen.s[4].ns_pid, 1);		/* its process's namespace */
	ck_assert_uint_eq(seen.s[4].ns_tid, UINT32_MAX);

	filter.units = units;
	filter.unit_count = 1;
	read_file(f.path, &filter, &seen);
	ck_assert_uint_eq(seen.count, 1);
	ck_assert_uint_eq(seen.s[0].pid, 100);

	const char *cgroups[] = { "system.slice/" };

	filter.unit_count = 0;
	filter.cgroups = cgroups;
	filter.cgroup_count = 1;
	read_file(f.path, &filter, &seen);
	ck_assert_uint_eq(seen.count, 3);
	unlink(f.path);
}
END_TEST

/* Without PERF_SAMPLE_CGROUP: each process's TASK_CGROUP, or nothing. */
START_TEST(test_session_task_cgroups)
{
	struct session_filter filter = { 0 };
	struct seen seen;
	struct file f;

	file_open(&f, 0);
	add_comm(&f, 100, "nginx");
	add_comm(&f, 300, "old");
	add_task_cgroup(&f, 100, 10, "/system.slice/nginx.service");
	/* moved later: the samples after it are the new unit's */
	add_task_cgroup(&f, 100, 30, "/system.slice/nginx-canary.service");
	add_sample(&f, 0, 100, 100, 20, 0);
	add_sample(&f, 0, 300, 300, 21, 0);
	add_sample(&f, 0, 100, 100, 31, 0);
	file_close(&f);

	read_file(f.path, &filter, &seen);
	ck_assert_uint_eq(seen.count, 3);
	ck_assert_str_eq(seen.s[2].unit, "nginx-canary.service");
	ck_assert_str_eq(seen.s[0].unit, "nginx.service");
	ck_assert_str_eq(seen.s[0].cgroup, "/system.slice/nginx.service");
	ck_assert_str_eq(seen.s[1].unit, "(null)");
	ck_assert_str_eq(seen.s[1].comm, "old");
	unlink(f.path);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("units");
	TCase *names = tcase_create("names");
	TCase *session = tcase_create("session");
	SRunner *runner;
	int failed;

	tcase_add_loop_test(names, test_names, 0, (int)(sizeof(paths) / sizeof(paths[0])));
	tcase_add_test(names, test_short_buffers);
	tcase_add_test(session, test_session_cgroup_ids);
	tcase_add_test(session, test_session_task_cgroups);
	suite_add_tcase(suite, names);
	suite_add_tcase(suite, session);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
