/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event names: perf's generic, cache and raw spellings, and the sysfs
 * "pmu/term=value,.../" syntax against a fake sysfs tree built at test time
 * (bit placement, aliases, parameters, overrides, every error), then the
 * real /sys of this machine: msr/tsc/ and the default event.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "events.h"
#include "format.h"

#define DEVICES		"bus/event_source/devices"
#define REAL_MSR	"/sys/" DEVICES "/msr"

static char fake_root[PATH_MAX];	/* a PMU tree with a "cpu" PMU */
static char bare_root[PATH_MAX];	/* software PMUs only, like this VM */

/* ---- the fake sysfs tree ------------------------------------------- */

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			ck_abort_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
	f = fopen(path, "w");
	ck_assert_msg(f, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* Written as the kernel writes them: one line with a newline. */
static const char *const cpu_pmu[][2] = {
	{ "type", "4\n" },
	{ "format/event", "config:0-7\n" },
	{ "format/umask", "config:8-15\n" },
	{ "format/edge", "config:18\n" },
	{ "format/any", "config:21\n" },
	{ "format/inv", "config:23\n" },
	{ "format/cmask", "config:24-31\n" },
	{ "format/ldlat", "config1:0-15\n" },
	{ "format/frontend", "config1:0-23\n" },
	{ "format/scattered", "config:0-3,32-35\n" },
	{ "events/cycles", "event=0x3c\n" },
	{ "events/ref-cycles", "event=0x00,umask=0x03\n" },
	{ "events/mem-loads", "event=0xcd,umask=0x1,ldlat=?\n" },
	{ "events/edge-cycles", "event=0x3c,edge\n" },
	{ "events/cycles.scale", "1e-3\n" },
	{ "events/cycles.unit", "Joules\n" },
};

static const char *const other_pmus[][2] = {
	{ "software/type", "1\n" },
	{ "uncore/type", "17\n" },
	{ "uncore/format/event", "config2:4-11\n" },
	{ "broken/type", "20\n" },
	{ "broken/format/bad", "config:7-3\n" },
	{ "broken/format/weird", "config3:0-7\n" },
	{ "broken/events/badalias", "event=0x1,nosuch=1\n" },
	{ "broken/events/empty", "\n" },
	{ "broken/events/badvalue", "event=0xq\n" },
	{ "broken/format/event", "config:0-7\n" },
	{ "badtype/type", "cpu\n" },
};

static void make_root(char *root, const char *tag)
{
	snprintf(root, PATH_MAX, "/tmp/test-events-%s.XXXXXX", tag);
	if (!mkdtemp(root))
		ck_abort_msg("mkdtemp: %s", strerror(errno));
}

static void tree_setup(void)
{
	char rel[PATH_MAX];

	make_root(fake_root, "cpu");
	for (size_t i = 0; i < sizeof(cpu_pmu) / sizeof(cpu_pmu[0]); i++) {
		snprintf(rel, sizeof(rel), DEVICES "/cpu/%s", cpu_pmu[i][0]);
		write_file(fake_root, rel, cpu_pmu[i][1]);
	}
	for (size_t i = 0; i < sizeof(other_pmus) / sizeof(other_pmus[0]); i++) {
		snprintf(rel, sizeof(rel), DEVICES "/%s", other_pmus[i][0]);
		write_file(fake_root, rel, other_pmus[i][1]);
	}
	make_root(bare_root, "bare");
	write_file(bare_root, DEVICES "/software/type", "1\n");
	write_file(bare_root, DEVICES "/tracepoint/type", "2\n");
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	return remove(path);
}

static void tree_teardown(void)
{
	nftw(fake_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	nftw(bare_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- helpers --------------------------------------------------------- */

static struct perf_event_attr parse_ok(const char *name, const char *root)
{
	struct perf_event_attr attr;
	struct prf_error error = { .message = "x" };
	int err = prd_event_parse(name, root, &attr, &error);

	ck_assert_msg(err == 0, "'%s': %d %s", name, err, error.message);
	ck_assert_msg(error.message[0] == '\0', "'%s' left an error: %s", name, error.message);
	ck_assert_uint_eq(attr.size, sizeof(attr));
	return attr;
}

static void check_config(const char *name, __u32 type, __u64 config, __u64 config1,
			 __u64 config2)
{
	struct perf_event_attr attr = parse_ok(name, fake_root);

	ck_assert_msg(attr.type == type, "'%s': type %u, want %u", name, attr.type, type);
	ck_assert_msg(attr.config == config, "'%s': config %#llx, want %#llx", name,
		      (unsigned long long)attr.config, (unsigned long long)config);
	ck_assert_msg(attr.config1 == config1, "'%s': config1 %#llx, want %#llx", name,
		      (unsigned long long)attr.config1, (unsigned long long)config1);
	ck_assert_msg(attr.config2 == config2, "'%s': config2 %#llx, want %#llx", name,
		      (unsigned long long)attr.config2, (unsigned long long)config2);
}

/* Checks the errno, a substring of the message, and that attr is intact. */
static void parse_fails(const char *name, const char *root, int want, const char *text)
{
	struct perf_event_attr attr, before;
	struct prf_error error = { 0 };
	int err;

	memset(&attr, 0xa5, sizeof(attr));
	before = attr;
	err = prd_event_parse(name, root, &attr, &error);
	ck_assert_msg(err == want, "'%s': returned %d (%s), want %d", name, err, error.message,
		      want);
	ck_assert_msg(strstr(error.message, text), "'%s': message '%s' lacks '%s'", name,
		      error.message, text);
	ck_assert_msg(!strchr(error.message, '\n'), "'%s': message has a newline", name);
	ck_assert_msg(!memcmp(&attr, &before, sizeof(attr)), "'%s' changed attr on failure", name);
}

static void parse_fails_exactly(const char *name, const char *root, int want,
				const char *message)
{
	struct prf_error error = { 0 };
	struct perf_event_attr attr;
	int err = prd_event_parse(name, root, &attr, &error);

	ck_assert_int_eq(err, want);
	ck_assert_str_eq(error.message, message);
}

static long open_event(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* ---- generic, cache and raw names ------------------------------------ */

START_TEST(test_generic)
{
	static const struct { const char *name; __u32 type; __u64 config; } names[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
		{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
		{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
		{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
		{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
		{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
		{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_config(names[i].name, names[i].type, names[i].config, 0, 0);
}
END_TEST

START_TEST(test_generic_leaves_the_rest_zero)
{
	struct perf_event_attr attr = parse_ok("cycles", NULL), zero;

	memset(&zero, 0, sizeof(zero));
	zero.size = sizeof(zero);
	ck_assert(!memcmp(&attr, &zero, sizeof(attr)));
}
END_TEST

#define CACHE(id, op, result) (PERF_COUNT_HW_CACHE_##id | \
	PERF_COUNT_HW_CACHE_OP_##op << 8 | PERF_COUNT_HW_CACHE_RESULT_##result << 16)

START_TEST(test_cache)
{
	static const struct { const char *name; __u64 config; } names[] = {
		{ "L1-dcache-loads", CACHE(L1D, READ, ACCESS) },
		{ "L1-dcache-load-misses", CACHE(L1D, READ, MISS) },
		{ "L1-dcache-stores", CACHE(L1D, WRITE, ACCESS) },
		{ "L1-dcache-store-miss", CACHE(L1D, WRITE, MISS) },
		{ "L1-icache-load-misses", CACHE(L1I, READ, MISS) },
		{ "L1-icache-prefetches", CACHE(L1I, PREFETCH, ACCESS) },
		{ "LLC-loads", CACHE(LL, READ, ACCESS) },
		{ "LLC-load-misses", CACHE(LL, READ, MISS) },
		{ "LLC-prefetch-misses", CACHE(LL, PREFETCH, MISS) },
		{ "dTLB-loads", CACHE(DTLB, READ, ACCESS) },
		{ "dTLB-store-misses", CACHE(DTLB, WRITE, MISS) },
		{ "iTLB-load-misses", CACHE(ITLB, READ, MISS) },
		{ "branch-loads", CACHE(BPU, READ, ACCESS) },
		{ "branch-load-misses", CACHE(BPU, READ, MISS) },
		{ "node-loads", CACHE(NODE, READ, ACCESS) },
		{ "node-store-misses", CACHE(NODE, WRITE, MISS) },
		{ "node-prefetch", CACHE(NODE, PREFETCH, ACCESS) },
		{ "llc-LOAD-MISSES", CACHE(LL, READ, MISS) },	/* perf ignores case */
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_config(names[i].name, PERF_TYPE_HW_CACHE, names[i].config, 0, 0);
	ck_assert_uint_eq(CACHE(DTLB, WRITE, MISS), 0x10103);
	parse_fails("L1-dcache", NULL, -ENOENT, "unknown event 'L1-dcache'");
	parse_fails("L1-dcache-misses", NULL, -ENOENT, "unknown event");
	parse_fails("LLC-loads-", NULL, -ENOENT, "unknown event");
	parse_fails("LLC-load-hits", NULL, -ENOENT, "unknown event");
	parse_fails("L2-loads", NULL, -ENOENT, "unknown event");
}
END_TEST

START_TEST(test_raw)
{
	check_config("r1a2b", PERF_TYPE_RAW, 0x1a2b, 0, 0);
	check_config("r0", PERF_TYPE_RAW, 0, 0, 0);
	check_config("rC0", PERF_TYPE_RAW, 0xc0, 0, 0);
	check_config("rffffffffffffffff", PERF_TYPE_RAW, ~0ULL, 0, 0);
	check_config("r00000000000000000001", PERF_TYPE_RAW, 1, 0, 0);
	parse_fails("r10000000000000000", NULL, -EINVAL, "does not fit in 64 bits");
	parse_fails("r12zz", NULL, -ENOENT, "a raw event is 'r' and up to 16 hex digits");
	parse_fails("r0x12", NULL, -ENOENT, "unknown event 'r0x12'");
	parse_fails("r", NULL, -ENOENT, "unknown event 'r'");
	parse_fails("r-1", NULL, -ENOENT, "unknown event 'r-1'");
}
END_TEST

START_TEST(test_modifiers)
{
	struct perf_event_attr attr;

	attr = parse_ok("cycles:u", NULL);
	ck_assert(!attr.exclude_user && attr.exclude_kernel && attr.exclude_hv);
	attr = parse_ok("cpu-clock:k", NULL);
	ck_assert(attr.exclude_user && !attr.exclude_kernel && attr.exclude_hv);
	ck_assert_uint_eq(attr.type, PERF_TYPE_SOFTWARE);
	attr = parse_ok("cycles:uk", NULL);
	ck_assert(!attr.exclude_user && !attr.exclude_kernel && attr.exclude_hv);
	attr = parse_ok("cycles:p", NULL);
	ck_assert(!attr.exclude_user && !attr.exclude_kernel && !attr.exclude_hv);
	ck_assert_uint_eq(attr.precise_ip, 1);
	attr = parse_ok("r3c:upp", NULL);
	ck_assert_uint_eq(attr.precise_ip, 2);
	ck_assert(attr.exclude_kernel && !attr.exclude_user);
	attr = parse_ok("LLC-load-misses:ppp", NULL);
	ck_assert_uint_eq(attr.precise_ip, 3);
	attr = parse_ok("cpu/cycles/u", fake_root);
	ck_assert(attr.exclude_kernel && attr.config == 0x3c);
	attr = parse_ok("cpu/event=0x3c/:kp", fake_root);
	ck_assert(attr.exclude_user && attr.precise_ip == 1);
	parse_fails("cycles:pppp", NULL, -EINVAL, "too many 'p' modifiers");
	parse_fails("cycles:x", NULL, -EINVAL, "unknown modifier 'x' in 'cycles:x'");
	parse_fails("cycles:", NULL, -EINVAL, "empty modifier");
	parse_fails("cpu/cycles/q", fake_root, -EINVAL, "unknown modifier 'q'");
	parse_fails("cycels:u", NULL, -ENOENT, "did you mean 'cycles'");
	/* Tracepoint names become a path in tracefs: nothing but words on either side. */
	parse_fails("sched:sched-switch", NULL, -EINVAL, "is not a tracepoint name");
	parse_fails("sched:..", NULL, -EINVAL, "is not a tracepoint name");
	parse_fails("sched:a:b", NULL, -EINVAL, "is not a tracepoint name");
}
END_TEST

START_TEST(test_unknown_names)
{
	parse_fails_exactly("cycels", NULL, -ENOENT,
			    "unknown event 'cycels' (did you mean 'cycles'?)");
	parse_fails("instrucions", NULL, -ENOENT, "did you mean 'instructions'");
	parse_fails("cpu-clok", NULL, -ENOENT, "did you mean 'cpu-clock'");
	parse_fails_exactly("zzzz", NULL, -ENOENT, "unknown event 'zzzz'");
	parse_fails("", NULL, -EINVAL, "empty event name");
	parse_fails(NULL, NULL, -EINVAL, "empty event name");
	parse_fails("cycles ", NULL, -ENOENT, "unknown event");
}
END_TEST

/*
 * A NULL error changes no return code; a message longer than
 * prf_error.message is cut there, NUL-terminated.
 */
START_TEST(test_error_buffers)
{
	static const char prefix[] = "unknown event '";
	struct perf_event_attr attr;
	struct prf_error error;
	char big[5000], want[sizeof(error.message)];

	ck_assert_int_eq(prd_event_parse("cycels", NULL, &attr, NULL), -ENOENT);
	ck_assert_int_eq(prd_event_parse("cpu/nosuch/", fake_root, &attr, NULL), -ENOENT);
	memset(big, 'a', 600);
	big[600] = '\0';
	memset(want, 'a', sizeof(want) - 1);
	memcpy(want, prefix, sizeof(prefix) - 1);
	want[sizeof(want) - 1] = '\0';
	memset(&error, 'x', sizeof(error));
	ck_assert_int_eq(prd_event_parse(big, NULL, &attr, &error), -ENOENT);
	ck_assert_int_eq(error.code, -ENOENT);
	ck_assert_str_eq(error.message, want);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	parse_fails(big, NULL, -ENAMETOOLONG, "event name too long");
	/* a name too long for a path component is simply not an event */
	memcpy(big, "cpu/", 4);
	big[1000] = '/';
	big[1001] = '\0';
	parse_fails(big, fake_root, -ENOENT, "unknown term or event 'aaaa");
}
END_TEST

/* ---- sysfs PMU terms ------------------------------------------------- */

START_TEST(test_pmu_terms)
{
	check_config("cpu/event=0x3c/", 4, 0x3c, 0, 0);
	check_config("cpu/event=60/", 4, 0x3c, 0, 0);
	check_config("cpu/event=0X3C/", 4, 0x3c, 0, 0);
	check_config("cpu/umask=0xff/", 4, 0xff00, 0, 0);
	check_config("cpu/event=0xd1,umask=0x20,cmask=3/", 4, 0x030020d1, 0, 0);
	/* bare terms are 1 */
	check_config("cpu/inv/", 4, 1u << 23, 0, 0);
	check_config("cpu/event=0x3c,edge,any,inv/", 4, 0x3c | 1u << 18 | 1u << 21 | 1u << 23, 0, 0);
	check_config("cpu/inv=0/", 4, 0, 0, 0);
	check_config("cpu/cmask=0xff/", 4, 0xff000000, 0, 0);
	check_config("cpu/ldlat=3/", 4, 0, 3, 0);
	check_config("cpu/ldlat=0xffff,event=1/", 4, 1, 0xffff, 0);
	check_config("cpu/frontend=0xffffff/", 4, 0, 0xffffff, 0);
	check_config("uncore/event=0xff/", 17, 0, 0, 0xff0);
	check_config("software/config=0/", PERF_TYPE_SOFTWARE, 0, 0, 0);
	check_config("cpu//", 4, 0, 0, 0);
	/* a later term for the same bits wins */
	check_config("cpu/event=1,event=2/", 4, 2, 0, 0);
}
END_TEST

START_TEST(test_pmu_scattered_bits)
{
	/* value bits fill bits 0-3 first, then 32-35 */
	check_config("cpu/scattered=0x5/", 4, 0x5, 0, 0);
	check_config("cpu/scattered=0x10/", 4, 1ULL << 32, 0, 0);
	check_config("cpu/scattered=0xab/", 4, 0xb | 0xaULL << 32, 0, 0);
	check_config("cpu/scattered=0xff/", 4, 0xf | 0xfULL << 32, 0, 0);
	check_config("cpu/scattered=0x81,umask=0x12/", 4, 0x1 | 0x1200 | 0x8ULL << 32, 0, 0);
	/* the second term replaces only its own bits */
	check_config("cpu/scattered=0xff,event=0/", 4, 0xfULL << 32, 0, 0);
	parse_fails_exactly("cpu/scattered=0x100/", fake_root, -EINVAL,
			    "value 0x100 is too wide for term 'scattered' of PMU 'cpu' (8 bits)");
}
END_TEST

START_TEST(test_pmu_config_pseudo_terms)
{
	check_config("cpu/config=0x1234/", 4, 0x1234, 0, 0);
	check_config("cpu/config=0xffffffffffffffff/", 4, ~0ULL, 0, 0);
	check_config("cpu/config1=5,config2=7/", 4, 0, 5, 7);
	/* in order: a term after config= edits it, config= after a term replaces */
	check_config("cpu/config=0x1234,event=0x56/", 4, 0x1256, 0, 0);
	check_config("cpu/event=0x56,config=0x1234/", 4, 0x1234, 0, 0);
	check_config("cpu/cycles,config1=9/", 4, 0x3c, 9, 0);
	parse_fails("cpu/event=1,time=0/", fake_root, -EOPNOTSUPP,
		    "term 'time' is not supported");
	parse_fails("cpu/event=1,inherit=1/", fake_root, -EOPNOTSUPP, "term 'inherit'");
	parse_fails("cpu/config=0x10000000000000000/", fake_root, -EINVAL,
		    "does not fit in 64 bits");
}
END_TEST

/* period= and freq= are the event's own; the other fields stay zero. */
START_TEST(test_sampling_terms)
{
	struct perf_event_attr attr;

	attr = parse_ok("page-faults/period=64/", fake_root);
	ck_assert_uint_eq(attr.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	ck_assert_uint_eq(attr.sample_period, 64);
	ck_assert_uint_eq(attr.freq, 0);
	attr = parse_ok("cpu-clock/freq=4999/:u", fake_root);
	ck_assert_uint_eq(attr.config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_uint_eq(attr.sample_freq, 4999);
	ck_assert_uint_eq(attr.freq, 1);
	ck_assert_uint_eq(attr.exclude_kernel, 1);
	attr = parse_ok("L1-dcache-load-misses/period=0x1000/", fake_root);
	ck_assert_uint_eq(attr.type, PERF_TYPE_HW_CACHE);
	ck_assert_uint_eq(attr.sample_period, 0x1000);
	attr = parse_ok("r1a8/period=100003/", fake_root);
	ck_assert_uint_eq(attr.config, 0x1a8);
	ck_assert_uint_eq(attr.sample_period, 100003);
	/* around a PMU's own terms, which still fill the config words */
	attr = parse_ok("cpu/period=2000,event=0xd1,umask=0x20/", fake_root);
	ck_assert_uint_eq(attr.type, 4);
	ck_assert_uint_eq(attr.config, 0x20d1);
	ck_assert_uint_eq(attr.sample_period, 2000);
	attr = parse_ok("cpu/event=0x3c,freq=99,inv/", fake_root);
	ck_assert_uint_eq(attr.config, 0x3c | 1u << 23);
	ck_assert_uint_eq(attr.sample_freq, 99);
	ck_assert_uint_eq(attr.freq, 1);
	/* without one, the caller's defaults apply: both words stay zero */
	attr = parse_ok("page-faults", fake_root);
	ck_assert_uint_eq(attr.sample_period, 0);
	ck_assert_uint_eq(attr.freq, 0);

	parse_fails("page-faults/period=0/", fake_root, -EINVAL,
		    "period=0 is not a number from 1 to 9223372036854775807");
	parse_fails("page-faults/period=9223372036854775808/", fake_root, -EINVAL,
		    "period=9223372036854775808 is not");
	parse_fails("page-faults/period=010x/", fake_root, -EINVAL, "period=010x is not");
	parse_fails("page-faults/freq=/", fake_root, -EINVAL, "freq= is not");
	parse_fails("page-faults/freq=0x/", fake_root, -EINVAL, "freq=0x is not");
	parse_fails("page-faults/period=64,freq=99/", fake_root, -EINVAL,
		    "period= or freq= given twice");
	parse_fails("cpu-clock/period=1,period=2/", fake_root, -EINVAL, "given twice");
	parse_fails("page-faults/inv/", fake_root, -EINVAL,
		    "'page-faults' takes only the terms period= and freq=, not 'inv'");
	parse_fails("page-faults/period=64,call-graph=fp/", fake_root, -EINVAL,
		    "not 'call-graph=fp'");
	parse_fails("page-faults/period=64", fake_root, -EINVAL, "missing closing '/'");
}
END_TEST

START_TEST(test_pmu_aliases)
{
	check_config("cpu/cycles/", 4, 0x3c, 0, 0);
	check_config("cpu/ref-cycles/", 4, 0x0300, 0, 0);
	check_config("cpu/edge-cycles/", 4, 0x3c | 1u << 18, 0, 0);
	check_config("cpu/mem-loads,ldlat=30/", 4, 0x1cd, 30, 0);
	check_config("cpu/ldlat=0x1f,mem-loads/", 4, 0x1cd, 0x1f, 0);
	/* explicit terms override the alias's, wherever they stand */
	check_config("cpu/ref-cycles,umask=0x5/", 4, 0x0500, 0, 0);
	check_config("cpu/umask=0x5,ref-cycles/", 4, 0x0500, 0, 0);
	check_config("cpu/cycles,event=0x11,cmask=1/", 4, 0x01000011, 0, 0);
	check_config("cpu/edge-cycles,edge=0/", 4, 0x3c, 0, 0);
	check_config("cpu/mem-loads,ldlat=3,umask=0/", 4, 0xcd, 3, 0);
}
END_TEST

START_TEST(test_pmu_alias_parameters)
{
	parse_fails_exactly("cpu/mem-loads/", fake_root, -EINVAL,
			    "event 'mem-loads' of PMU 'cpu' needs parameter 'ldlat' "
			    "(e.g. cpu/mem-loads,ldlat=N/)");
	parse_fails("cpu/mem-loads,umask=2/", fake_root, -EINVAL, "needs parameter 'ldlat'");
	parse_fails_exactly("cpu/mem-loads,ldlat=0x10000/", fake_root, -EINVAL,
			    "value 0x10000 is too wide for term 'ldlat' of PMU 'cpu' (16 bits)");
	/* only aliases have parameters */
	parse_fails("cpu/ldlat=?/", fake_root, -EINVAL, "invalid value '?' for term 'ldlat'");
	parse_fails("cpu/cycles,mem-loads,ldlat=1/", fake_root, -EINVAL,
		    "more than one event in 'cpu/cycles,mem-loads,ldlat=1/': 'cycles' and 'mem-loads'");
}
END_TEST

START_TEST(test_pmu_too_wide)
{
	parse_fails_exactly("cpu/event=0x100/", fake_root, -EINVAL,
			    "value 0x100 is too wide for term 'event' of PMU 'cpu' (8 bits)");
	parse_fails_exactly("cpu/inv=2/", fake_root, -EINVAL,
			    "value 0x2 is too wide for term 'inv' of PMU 'cpu' (1 bit)");
	parse_fails("cpu/frontend=0x1000000/", fake_root, -EINVAL, "'frontend' of PMU 'cpu' (24 bits)");
	parse_fails("cpu/cycles,event=256/", fake_root, -EINVAL, "term 'event'");
	parse_fails("uncore/event=0x100/", fake_root, -EINVAL, "(8 bits)");
}
END_TEST

START_TEST(test_pmu_unknown)
{
	parse_fails_exactly("cpu/foo=1/", fake_root, -ENOENT,
			    "unknown term 'foo' for PMU 'cpu' (valid: any, cmask, edge, event, "
			    "frontend, inv, ldlat, scattered, umask, config, config1, config2)");
	parse_fails_exactly("cpu/nosuch/", fake_root, -ENOENT,
			    "unknown term or event 'nosuch' for PMU 'cpu' (terms: any, cmask, "
			    "edge, event, frontend, inv, ldlat, scattered, umask; events: cycles, "
			    "edge-cycles, mem-loads, ref-cycles)");
	parse_fails("software/cycles/", fake_root, -ENOENT,
		    "unknown term or event 'cycles' for PMU 'software' (terms: none; events: none)");
	/* counting metadata is not an event */
	parse_fails("cpu/cycles.scale/", fake_root, -ENOENT, "unknown term or event 'cycles.scale'");
	parse_fails("cpu/mem-loads,ldlat=1,foo=1/", fake_root, -ENOENT, "unknown term 'foo' for PMU 'cpu'");
}
END_TEST

START_TEST(test_pmu_not_found)
{
	char want[PATH_MAX + 200];

	snprintf(want, sizeof(want), "PMU 'foo' not found under %s/" DEVICES
		 " (have: badtype, broken, cpu, software, uncore)", fake_root);
	parse_fails_exactly("foo/event=1/", fake_root, -ENOENT, want);
	snprintf(want, sizeof(want), "this machine has no 'cpu' PMU under %s/" DEVICES
		 " (have: software, tracepoint)", bare_root);
	parse_fails_exactly("cpu/cycles/", bare_root, -ENOENT, want);
	parse_fails("foo/event=1/", "/nonexistent", -ENOENT, "(have: none)");
}
END_TEST

START_TEST(test_pmu_syntax_errors)
{
	parse_fails("cpu/event=0x3c", fake_root, -EINVAL, "missing closing '/'");
	parse_fails("cpu/", fake_root, -EINVAL, "missing closing '/'");
	parse_fails("cpu/event=1/x/", fake_root, -EINVAL, "unexpected '/'");
	parse_fails("cpu/event=/", fake_root, -EINVAL, "invalid value '' for term 'event'");
	parse_fails("cpu/event=0x/", fake_root, -EINVAL, "expected decimal or 0x hex");
	parse_fails("cpu/event=0xzz/", fake_root, -EINVAL, "invalid value '0xzz'");
	parse_fails("cpu/event=-1/", fake_root, -EINVAL, "invalid value '-1'");
	parse_fails("cpu/event=99999999999999999999/", fake_root, -EINVAL, "does not fit in 64 bits");
	parse_fails("cpu/event=1,,umask=1/", fake_root, -EINVAL, "empty term in 'cpu/event=1,,umask=1/'");
	parse_fails("cpu/,/", fake_root, -EINVAL, "empty term");
	parse_fails("cpu/event=1,/", fake_root, -EINVAL, "empty term");
	parse_fails("cpu/=1/", fake_root, -EINVAL, "invalid term name ''");
	parse_fails("cpu/../", fake_root, -EINVAL, "invalid term name '..'");
	parse_fails("cpu/ev ent=1/", fake_root, -EINVAL, "invalid term name 'ev ent'");
	parse_fails("/event=1/", fake_root, -EINVAL, "invalid PMU name ''");
	parse_fails("../cpu/", fake_root, -EINVAL, "invalid PMU name '..'");
	parse_fails("badtype/event=1/", fake_root, -EINVAL, "malformed PMU type");
}
END_TEST

START_TEST(test_pmu_broken_sysfs)
{
	parse_fails("broken/bad=1/", fake_root, -EINVAL, "malformed format file");
	parse_fails("broken/weird=1/", fake_root, -EOPNOTSUPP,
		    "term 'weird' of PMU 'broken' uses a config word perfrecd does not know: "
		    "'config3:0-7'");
	parse_fails("broken/badalias/", fake_root, -ENOENT,
		    "unknown term 'nosuch' in event 'badalias' of PMU 'broken'");
	parse_fails("broken/empty/", fake_root, -EINVAL, "event 'empty' of PMU 'broken' is empty");
	parse_fails("broken/badvalue/", fake_root, -EINVAL,
		    "invalid value '0xq' for term 'event' in event 'badvalue' of PMU 'broken'");
}
END_TEST

/* ---- this machine's /sys --------------------------------------------- */

/* Expected msr/tsc/ config from the real files: "event=0xNN", "config:LO-HI". */
static int real_tsc_config(__u64 *config)
{
	char alias[256], format[256];
	unsigned long long value;
	unsigned int lo, hi;

	if (read_line(REAL_MSR "/events/tsc", alias, sizeof(alias)) ||
	    read_line(REAL_MSR "/format/event", format, sizeof(format)))
		return -ENOENT;
	ck_assert_msg(sscanf(alias, "event=%llx", &value) == 1, "events/tsc: '%s'", alias);
	ck_assert_msg(sscanf(format, "config:%u-%u", &lo, &hi) == 2, "format/event: '%s'", format);
	*config = value << lo;
	return 0;
}

START_TEST(test_live_msr_tsc)
{
	struct perf_event_attr attr;
	char type[64];
	__u64 config;
	long fd;

	if (real_tsc_config(&config)) {
		fprintf(stderr, "no msr PMU with a tsc event here: skipped\n");
		return;
	}
	ck_assert_int_eq(read_line(REAL_MSR "/type", type, sizeof(type)), 0);
	attr = parse_ok("msr/tsc/", "/sys");
	ck_assert_uint_eq(attr.type, strtoul(type, NULL, 10));
	ck_assert_uint_eq(attr.config, config);
	ck_assert_uint_eq(attr.config1, 0);
	ck_assert(parse_ok("msr/tsc/", NULL).type == attr.type);
	/* msr counts but cannot sample: open it as a counting event */
	fd = open_event(&attr);
	ck_assert_msg(fd >= 0, "perf_event_open(msr/tsc/): %s", strerror(errno));
	close(fd);
	ck_assert(parse_ok("msr/event=0x4/", "/sys").config == 4);
}
END_TEST

START_TEST(test_live_no_cpu_pmu)
{
	struct perf_event_attr attr;
	struct prf_error error;
	struct stat st;

	if (!stat("/sys/" DEVICES "/cpu", &st)) {
		fprintf(stderr, "this machine has a cpu PMU: skipped\n");
		return;
	}
	ck_assert_int_eq(prd_event_parse("cpu/cycles/", "/sys", &attr, &error), -ENOENT);
	ck_assert_msg(strstr(error.message, "this machine has no 'cpu' PMU"), "%s", error.message);
	ck_assert_msg(strstr(error.message, "software"), "%s", error.message);
}
END_TEST

START_TEST(test_live_default)
{
	struct perf_event_attr attr, probe = {
		.size = sizeof(probe), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES, .sample_freq = 97, .freq = 1,
		.disabled = 1,
	};
	struct prf_error notice = { .message = "x" };
	char name[32] = "x", want[256];
	long fd = open_event(&probe);
	int probe_errno = fd < 0 ? errno : 0;
	int err;

	if (fd >= 0)
		close(fd);
	err = prd_event_default(&attr, name, sizeof(name), &notice);
	if (probe_errno == 0) {
		ck_assert_int_eq(err, 0);
		ck_assert_str_eq(name, "cycles");
		ck_assert_str_eq(notice.message, "");
		ck_assert(attr.type == PERF_TYPE_HARDWARE && attr.config == PERF_COUNT_HW_CPU_CYCLES);
	} else if (probe_errno == ENOENT || probe_errno == EOPNOTSUPP || probe_errno == ENODEV) {
		ck_assert_int_eq(err, 0);
		ck_assert_str_eq(name, "cpu-clock");
		snprintf(want, sizeof(want), "no hardware cycles counter on this machine (%s): "
			 "sampling cpu-clock instead", strerror(probe_errno));
		ck_assert_str_eq(notice.message, want);
		ck_assert(attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_CPU_CLOCK);
	} else {
		ck_assert_int_eq(err, -probe_errno);
		ck_assert_str_eq(notice.message, "");
		return;
	}
	/* the event it chose, as the caller gets it, is one prd_event_parse() gives */
	ck_assert(!memcmp(&attr, (struct perf_event_attr[]){ parse_ok(name, NULL) },
			  sizeof(attr)));
	ck_assert_int_eq(prd_event_default(&attr, name, 3, &notice), -ENOSPC);
}
END_TEST

/* live: this process may open system-wide events (root, or CAP_PERFMON). */
static Suite *events_suite(int live_events)
{
	Suite *s = suite_create("events");
	TCase *names = tcase_create("names");
	TCase *pmu = tcase_create("pmu");
	TCase *live;

	tcase_add_unchecked_fixture(names, tree_setup, tree_teardown);
	tcase_add_test(names, test_generic);
	tcase_add_test(names, test_generic_leaves_the_rest_zero);
	tcase_add_test(names, test_cache);
	tcase_add_test(names, test_raw);
	tcase_add_test(names, test_modifiers);
	tcase_add_test(names, test_unknown_names);
	tcase_add_test(names, test_error_buffers);
	suite_add_tcase(s, names);

	tcase_add_unchecked_fixture(pmu, tree_setup, tree_teardown);
	tcase_add_test(pmu, test_pmu_terms);
	tcase_add_test(pmu, test_pmu_scattered_bits);
	tcase_add_test(pmu, test_pmu_config_pseudo_terms);
	tcase_add_test(pmu, test_sampling_terms);
	tcase_add_test(pmu, test_pmu_aliases);
	tcase_add_test(pmu, test_pmu_alias_parameters);
	tcase_add_test(pmu, test_pmu_too_wide);
	tcase_add_test(pmu, test_pmu_unknown);
	tcase_add_test(pmu, test_pmu_not_found);
	tcase_add_test(pmu, test_pmu_syntax_errors);
	tcase_add_test(pmu, test_pmu_broken_sysfs);
	suite_add_tcase(s, pmu);

	if (!live_events)
		return s;
	live = tcase_create("live");
	tcase_add_test(live, test_live_msr_tsc);
	tcase_add_test(live, test_live_no_cpu_pmu);
	tcase_add_test(live, test_live_default);
	suite_add_tcase(s, live);
	return s;
}

int main(void)
{
	/* The live checks open events on every CPU: root's, as perfrecd's. */
	int live_events = geteuid() == 0;
	SRunner *runner = srunner_create(events_suite(live_events));
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	if (failed)
		return EXIT_FAILURE;
	if (!live_events) {
		printf("SKIP: not root: the live checks (opening events) did not run; the others passed\n");
		return 77;
	}
	return EXIT_SUCCESS;
}
