/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * soak-jit: the load of bench/soak.sh, processes that look like JIT
 * runtimes to perfrecd.  perfrecd looks for /tmp/perf-PID.map when a
 * process maps anonymous executable memory, and reads jit-PID.dump when a
 * process maps a file of that name; each mode below does one or the
 * other, the attacks with files built to cost perfrecd as much as they
 * can.
 *
 *   soak-jit churn RATE LIFE_MS
 *       forks RATE processes a second until SIGTERM; each maps a page of
 *       anonymous executable memory, writes a perf map of a few lines,
 *       lives LIFE_MS and exits.  Its map is deleted when it is reaped.
 *       Prints "forks N alive M" once a second.
 *   soak-jit jitdump PROCS MIB SECONDS DIR
 *       PROCS processes, each mapping DIR/jit-PID.dump of MIB MiB made of
 *       16-byte records (a prefix alone: the smallest record there is).
 *   soak-jit bigmap PROCS MIB SECONDS
 *       PROCS processes, each with a perf map of MIB MiB.
 *   soak-jit sparse PROCS SECONDS
 *       PROCS processes, each with a perf map of 1 TiB, a hole after a
 *       first line that never ends (no newline).
 *   soak-jit flood MIB_PER_S MIB SECONDS
 *       one process after another, each growing its perf map by MIB_PER_S
 *       MiB a second of distinct names up to MIB MiB (perfrecd's
 *       --jit-map-size, 16M by default), then exiting: without a bound per
 *       user, perfrecd's files rotate as fast as the maps grow.
 *   soak-jit inject SECONDS DIR
 *       names made to rewrite a terminal or forge log lines (ESC, BEL, CR,
 *       BS, newlines, "<0>"), where perfrecd logs them: a jitdump with a
 *       bad magic in a directory of such a name, a copy of this program
 *       run from such a directory and deleted while it runs, a perf map
 *       and a command name made of them.
 *   soak-jit hold SECONDS
 *       sleeps (what the deleted copy of inject runs).
 *
 * Every mode but churn ends after SECONDS or at SIGTERM or SIGINT, and
 * then kills its processes, reaps them and deletes what they wrote; the
 * processes die with it (PR_SET_PDEATHSIG) if it is killed outright.
 * Every map starts with a line whose name begins with "soakjit", so that
 * a map left behind is known for one of these.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Children of one mode at most (churn: alive at once). */
#define CHILDREN_MAX	8192
#define JITDUMP_MAGIC	0x4A695444u
/* A record type no runtime writes: a reader can only step over it by its size. */
#define JITDUMP_FILLER	0x5041u
/* What the names of the inject mode are made of. */
#define EVIL "\033[2J\033[H\033[31msoakjit\a\r\b\b\nperfrecd: <0>forged line\n<0>"

static volatile sig_atomic_t stopping;
static pid_t children[CHILDREN_MAX];
static size_t child_count;

static void on_stop(int signo)
{
	(void)signo;
	stopping = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "soak-jit: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long number(const char *text, long min, long max)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno || end == text || *end || value < min || value > max) {
		fprintf(stderr, "soak-jit: %s: not a number from %ld to %ld\n", text, min, max);
		exit(2);
	}
	return value;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&t, NULL);
}

/* Sleeps until the deadline or a stop signal. */
static void sleep_until(uint64_t deadline)
{
	uint64_t now;

	while (!stopping && (now = now_ns()) < deadline)
		sleep_ns(deadline - now < 100000000u ? deadline - now : 100000000u);
}

static void write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		p += n;
		size -= (size_t)n;
	}
}

/*
 * A page of anonymous executable memory: the mapping perfrecd sees (an
 * MMAP2 of "//anon" with PROT_EXEC) and then looks for the perf map.
 */
static uintptr_t map_code(void)
{
	void *code = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED)
		die("mmap");
	return (uintptr_t)code;
}

static void map_path(char *path, size_t size, pid_t pid)
{
	snprintf(path, size, "/tmp/perf-%d.map", (int)pid);
}

static int open_map(void)
{
	char path[64];
	int fd;

	map_path(path, sizeof(path), getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

/* In a child: dies with the parent, however it dies. */
static void child_start(void)
{
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(0);
}

/* Forks a child that runs body(arg) and exits; the parent keeps its pid. */
static pid_t spawn(void (*body)(long), long arg)
{
	pid_t pid;

	if (child_count == CHILDREN_MAX)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		child_start();
		body(arg);
		_exit(0);
	}
	children[child_count++] = pid;
	return pid;
}

/* Forgets pid (reaped) and deletes its perf map and, with dir, its jitdump. */
static void forget(pid_t pid, const char *dir)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < child_count; i++)
		if (children[i] == pid) {
			children[i] = children[--child_count];
			break;
		}
	map_path(path, sizeof(path), pid);
	unlink(path);
	if (dir) {
		snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)pid);
		unlink(path);
	}
}

/* Reaps what has exited (all, when block), deleting their files. */
static void reap(int block, const char *dir)
{
	pid_t pid;

	while (child_count && (pid = waitpid(-1, NULL, block ? 0 : WNOHANG)) > 0)
		forget(pid, dir);
}

static void end_children(const char *dir)
{
	for (size_t i = 0; i < child_count; i++)
		kill(children[i], SIGKILL);
	reap(1, dir);
}

/* ---- churn ----------------------------------------------------------- */

static void churn_child(long life_ms)
{
	uintptr_t code = map_code();
	char text[256];
	int fd = open_map(), length = 0;

	for (int i = 0; i < 4; i++)
		length += snprintf(text + length, sizeof(text) - (size_t)length,
				   "%lx 40 soakjit_churn_%d\n",
				   (unsigned long)(code + 64u * (unsigned)i), i);
	write_all(fd, text, (size_t)length);
	close(fd);
	sleep_ns((uint64_t)life_ms * 1000000u);
}

static int churn(long rate, long life_ms)
{
	uint64_t period = 1000000000u / (uint64_t)rate, start = now_ns();
	uint64_t next_report = start + 1000000000u;
	unsigned long long forks = 0, due = 0, failed = 0;

	while (!stopping) {
		uint64_t now = now_ns();

		reap(0, NULL);
		due = (now - start) / period;
		/* Behind by more than a second (the machine is busy): no burst to catch up. */
		if (due > forks + (unsigned long long)rate) {
			start += (due - forks - (unsigned long long)rate) * period;
			due = forks + (unsigned long long)rate;
		}
		while (forks < due && !stopping) {
			if (spawn(churn_child, life_ms) < 0) {
				failed++;
				break;
			}
			forks++;
		}
		if (now >= next_report) {
			printf("forks %llu alive %zu failed %llu\n", forks, child_count, failed);
			fflush(stdout);
			next_report += 1000000000u;
		}
		sleep_ns(period < 1000000u ? period : 1000000u);
	}
	end_children(NULL);
	return 0;
}

/* ---- attacks --------------------------------------------------------- */

static long bytes_each;		/* per process, for the modes that take MIB */
static const char *dump_dir;

static void hold_forever(void)
{
	for (;;)
		pause();
}

/* A perf map of bytes_each: lines of distinct names, each about 48 bytes. */
static void bigmap_child(long unused)
{
	uintptr_t code = map_code();
	static char block[1 << 16];
	int fd = open_map();
	unsigned long line = 0;

	for (long written = 0; written < bytes_each;) {
		size_t used = 0;

		while (used < sizeof(block) - 64) {
			used += (size_t)snprintf(block + used, sizeof(block) - used,
						 "%lx 10 soakjit_big_%016lx\n",
						 (unsigned long)code + (line & 0xff) * 16u, line);
			line++;
		}
		write_all(fd, block, used);
		written += (long)used;
	}
	close(fd);
	hold_forever();
}

/* A first line that never ends: 1 TiB of hole after it. */
static void sparse_child(long unused)
{
	static const char start[] = "0 1 soakjit_sparse_";
	int fd;

	map_code();
	fd = open_map();

	write_all(fd, start, sizeof(start) - 1);
	if (ftruncate(fd, (off_t)1 << 40) < 0)
		die("ftruncate");
	close(fd);
	hold_forever();
}

/*
 * A jitdump of bytes_each: its header, then 16-byte records.  Runtimes
 * map the file's first page executable: that mapping's MMAP2 is how
 * perfrecd finds the file.
 */
static void jitdump_child(long unused)
{
	static uint32_t block[1 << 14];
	uint32_t header[10] = { JITDUMP_MAGIC, 1, 40, 62, 0, (uint32_t)getpid() };
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dump_dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path);
	write_all(fd, header, sizeof(header));
	for (size_t i = 0; i < sizeof(block) / sizeof(block[0]); i += 4) {
		block[i] = JITDUMP_FILLER;	/* id */
		block[i + 1] = 16;		/* total_size */
		block[i + 2] = (uint32_t)i;	/* timestamp */
		block[i + 3] = 0;
	}
	for (long written = 0; written < bytes_each; written += (long)sizeof(block))
		write_all(fd, block, sizeof(block));
	if (mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	    MAP_FAILED)
		die("mmap of the jitdump");
	close(fd);
	hold_forever();
}

/* Runs PROCS children of body for SECONDS, then ends them and their files. */
static int attack(long procs, long seconds, void (*body)(long), const char *dir)
{
	uint64_t deadline = now_ns() + (uint64_t)seconds * 1000000000u;

	for (long i = 0; i < procs && !stopping; i++)
		if (spawn(body, 0) < 0)
			die("fork");
	while (!stopping && now_ns() < deadline) {
		reap(0, dir);
		sleep_until(now_ns() + 200000000u < deadline ? now_ns() + 200000000u : deadline);
	}
	end_children(dir);
	return 0;
}

/* ---- flood ----------------------------------------------------------- */

static long flood_rate;		/* bytes a second */

static void flood_child(long unused)
{
	uintptr_t code = map_code();
	static char block[1 << 16];
	int fd = open_map();
	uint64_t start = now_ns();
	unsigned long line = 0;
	uint32_t x = (uint32_t)getpid() * 2654435761u | 1;

	for (long written = 0; written < bytes_each;) {
		size_t used = 0;

		/* Names of pseudo-random hex, which compress as little as a real flood's. */
		while (used < sizeof(block) - 96) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			used += (size_t)snprintf(block + used, sizeof(block) - used,
						 "%lx 10 soakjit_flood_%lx_%08x%08x\n",
						 (unsigned long)code + (line & 0xff) * 16u, line,
						 x, x * 2246822519u);
			line++;
		}
		write_all(fd, block, used);
		written += (long)used;
		/* Keep to the rate: the next block when its time has come. */
		sleep_until(start + (uint64_t)written * 1000000000u / (uint64_t)flood_rate);
	}
	close(fd);
}

static int flood(long seconds)
{
	uint64_t deadline = now_ns() + (uint64_t)seconds * 1000000000u;
	while (!stopping && now_ns() < deadline) {
		pid_t pid = spawn(flood_child, 0), done = 0;

		if (pid < 0)
			die("fork");
		while (!stopping && now_ns() < deadline && !(done = waitpid(pid, NULL, WNOHANG)))
			sleep_ns(50000000u);
		if (done == pid)
			forget(pid, NULL);	/* reaped: the next one */
	}
	end_children(NULL);
	return 0;
}

/* ---- inject ---------------------------------------------------------- */

/* A jitdump perfrecd refuses (bad magic) and says so, naming its directory. */
static void bad_jitdump_child(long unused)
{
	uint32_t header[10] = { 0x11223344u, 1, 40, 62, 0, (uint32_t)getpid() };
	char path[PATH_MAX];
	uintptr_t code;
	int fd;

	prctl(PR_SET_NAME, EVIL);
	snprintf(path, sizeof(path), "%s/" EVIL "jit/jit-%d.dump", dump_dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path);
	write_all(fd, header, sizeof(header));
	if (mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	    MAP_FAILED)
		die("mmap of the jitdump");
	close(fd);
	/* And a perf map whose names are made of the same, with C1 controls and bad UTF-8. */
	code = map_code();
	fd = open_map();
	dprintf(fd, "%lx 40 soakjit_" EVIL "\n%lx 40 \033]0;title\a\x9b" "31m\xff\xfe\n",
		(unsigned long)code, (unsigned long)code + 64);
	close(fd);
	hold_forever();
}

/*
 * This program, copied under a directory of such a name and run from
 * there, then deleted: perfrecd keeps deleted binaries and logs their
 * paths.
 */
static pid_t deleted_binary(const char *dir, long seconds, char *copy, size_t size)
{
	char buf[1 << 16], arg[32];
	int in, out;
	ssize_t n;
	pid_t pid;

	snprintf(copy, size, "%s/" EVIL "bin", dir);
	mkdir(copy, 0755);
	snprintf(copy, size, "%s/" EVIL "bin/soak-jit " EVIL, dir);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		die("copying /proc/self/exe");
	while ((n = read(in, buf, sizeof(buf))) > 0)
		write_all(out, buf, (size_t)n);
	close(in);
	close(out);
	snprintf(arg, sizeof(arg), "%ld", seconds);
	pid = fork();
	if (pid == 0) {
		child_start();
		execl(copy, EVIL, "hold", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		die("fork");
	children[child_count++] = pid;
	return pid;
}

static int inject(long seconds, const char *dir)
{
	uint64_t deadline = now_ns() + (uint64_t)seconds * 1000000000u;
	char path[PATH_MAX], copy[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" EVIL "jit", dir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("mkdir");
	deleted_binary(dir, seconds, copy, sizeof(copy));
	/* Once it runs, the binary goes: its mapping says "(deleted)". */
	sleep_until(now_ns() + 300000000u);
	unlink(copy);
	/* The jitdump's path is said once per process: a few of them. */
	for (int i = 0; i < 4 && !stopping; i++) {
		dump_dir = dir;
		if (spawn(bad_jitdump_child, 0) < 0)
			die("fork");
		sleep_until(now_ns() + 1000000000u);
	}
	snprintf(path, sizeof(path), "%s/" EVIL "jit", dir);
	sleep_until(deadline);
	end_children(path);
	rmdir(path);
	unlink(copy);
	*strrchr(copy, '/') = '\0';
	rmdir(copy);
	return 0;
}

/* ---- main ------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr, "usage: soak-jit churn RATE LIFE_MS\n"
			"       soak-jit jitdump PROCS MIB SECONDS DIR\n"
			"       soak-jit bigmap PROCS MIB SECONDS\n"
			"       soak-jit sparse PROCS SECONDS\n"
			"       soak-jit flood MIB_PER_S MIB SECONDS\n"
			"       soak-jit inject SECONDS DIR\n"
			"       soak-jit hold SECONDS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction stop = { .sa_handler = on_stop };
	const char *mode = argc > 1 ? argv[1] : "";

	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	if (!strcmp(mode, "churn") && argc == 4)
		return churn(number(argv[2], 1, 100000), number(argv[3], 0, 60000));
	if (!strcmp(mode, "jitdump") && argc == 6) {
		bytes_each = number(argv[3], 1, 1024) << 20;
		dump_dir = argv[5];
		return attack(number(argv[2], 1, 256), number(argv[4], 1, 86400), jitdump_child,
			      dump_dir);
	}
	if (!strcmp(mode, "bigmap") && argc == 5) {
		bytes_each = number(argv[3], 1, 1024) << 20;
		return attack(number(argv[2], 1, 256), number(argv[4], 1, 86400), bigmap_child, NULL);
	}
	if (!strcmp(mode, "sparse") && argc == 4)
		return attack(number(argv[2], 1, 256), number(argv[3], 1, 86400), sparse_child, NULL);
	if (!strcmp(mode, "flood") && argc == 5) {
		flood_rate = number(argv[2], 1, 1024) << 20;
		bytes_each = number(argv[3], 1, 1024) << 20;
		return flood(number(argv[4], 1, 86400));
	}
	if (!strcmp(mode, "inject") && argc == 4)
		return inject(number(argv[2], 1, 86400), argv[3]);
	if (!strcmp(mode, "hold") && argc == 3) {
		child_start();
		sleep_until(now_ns() + (uint64_t)number(argv[2], 0, 86400) * 1000000000u);
		return 0;
	}
	usage();
	return 2;
}
