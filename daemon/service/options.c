/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options: one table serves the command line and the config file, so a
 * setting has one name, one parser and one error message wherever it is
 * given.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "options.h"

enum value_kind {
	KIND_STRING,
	KIND_U32,
	KIND_U64,
	KIND_SIZE,		/* bytes, K/M/G/T suffixes */
	KIND_SECONDS,		/* u64 seconds, s/m/h/d suffixes */
	KIND_MILLISECONDS,	/* u32 ms, ms/s/m suffixes */
	KIND_NANOSECONDS,	/* u64 ns, ns/us/ms/s suffixes */
	KIND_DURATION,		/* double seconds */
	KIND_FLAG,		/* yes/no; on the command line: present */
	KIND_CALL_GRAPH,
	KIND_KERNEL_SYMBOLS,	/* hit, all, none */
	KIND_ENCODING,		/* compact or verbatim */
	KIND_PID,
	KIND_LEVEL,		/* zstd level 0..19 */
	KIND_EVENTS,		/* appended to the list; a comma list is several */
	KIND_CPUS,		/* "0-3,8" */
};

struct setting {
	const char *name;
	int short_name;
	enum value_kind kind;
	size_t offset;
	int config_file;	/* may be set in perfrecd.conf */
	uint64_t min, max;	/* for numbers; 0,0: no bound */
};

#define AT(field) offsetof(struct perfrecd_options, field)

static const struct setting settings[] = {
	{ "event", 'e', KIND_EVENTS, AT(events), 1, 0, 0 },
	{ "frequency", 'F', KIND_U64, AT(frequency), 1, 1, 1000000 },
	{ "period", 'c', KIND_U64, AT(period), 1, 1, UINT64_MAX },
	{ "call-graph", 0, KIND_CALL_GRAPH, AT(call_graph), 1, 0, 0 },
	{ "max-stack", 0, KIND_U32, AT(max_stack), 1, 1, 1024 },
	{ "no-kernel-callchain", 0, KIND_FLAG, AT(exclude_kernel_callchain), 1, 0, 0 },
	{ "no-user-callchain", 0, KIND_FLAG, AT(exclude_user_callchain), 1, 0, 0 },
	{ "user-only", 0, KIND_FLAG, AT(exclude_kernel), 1, 0, 0 },
	{ "off-cpu", 0, KIND_FLAG, AT(off_cpu), 1, 0, 0 },
	{ "off-cpu-min", 0, KIND_NANOSECONDS, AT(off_cpu_min_ns), 1, 1000, 60000000000ull },
	{ "ring-pages", 0, KIND_U32, AT(ring_pages), 1, 1, 1u << 20 },
	{ "mmap-pages", 'm', KIND_U32, AT(ring_pages), 0, 1, 1u << 20 },	/* perf's name */
	{ "cpu", 'C', KIND_CPUS, AT(cpus), 1, 0, PERFRECD_CPU_MAX },
	{ "all-cpus", 'a', KIND_FLAG, AT(all_cpus), 0, 0, 0 },
	{ "flush-interval", 0, KIND_MILLISECONDS, AT(flush_interval_ms), 1, 10, 3600000 },
	{ "output", 'o', KIND_STRING, AT(output_dir), 1, 0, 0 },
	{ "rotate-size", 0, KIND_SIZE, AT(rotate_size), 1, 1u << 20, UINT64_MAX },
	{ "rotate-age", 0, KIND_SECONDS, AT(rotate_age_s), 1, 1, UINT64_MAX },
	{ "retain-size", 0, KIND_SIZE, AT(retain_size), 1, 0, UINT64_MAX },
	{ "retain-age", 0, KIND_SECONDS, AT(retain_age_s), 1, 0, UINT64_MAX },
	{ "compression-level", 0, KIND_LEVEL, AT(zstd_level), 1, 0, 19 },
	{ "kernel-symbols", 0, KIND_KERNEL_SYMBOLS, AT(kernel_symbols), 1, 0, 0 },
	{ "sample-encoding", 0, KIND_ENCODING, AT(sample_encoding), 1, 0, 0 },
	{ "group", 0, KIND_STRING, AT(group), 1, 0, 0 },
	{ "binary-cache", 0, KIND_SIZE, AT(binary_cache_size), 1, 0, UINT64_MAX },
	{ "jit-map-size", 0, KIND_SIZE, AT(jit_map_size), 1, 0, UINT64_MAX },
	{ "duration", 'd', KIND_DURATION, AT(duration_s), 1, 0, 0 },
	{ "pid", 'p', KIND_PID, AT(pid), 0, 1, INT_MAX },
	{ "sysfs-root", 0, KIND_STRING, AT(sysfs_root), 0, 0, 0 },
	{ "proc-root", 0, KIND_STRING, AT(proc_root), 0, 0, 0 },
};

enum { OPTION_SETTING_BASE = 0x1000, OPTION_CHECK_CONFIG = 0x2000, OPTION_CONFIG };

void prd_options_init(struct perfrecd_options *o)
{
	memset(o, 0, sizeof(*o));
	o->frequency = 97;
	o->call_graph = CALL_GRAPH_FP;
	o->stack_user_size = STACK_USER_SIZE_DEFAULT;
	o->max_stack = 127;
	o->off_cpu_min_ns = OFF_CPU_MIN_DEFAULT_NS;
	o->flush_interval_ms = 10000;
	o->output_dir = strdup(PERFRECD_OUTPUT_DIR);
	o->rotate_size = 64ull << 20;
	o->rotate_age_s = 600;
	o->retain_size = 1ull << 30;
	o->binary_cache_size = 256ull << 20;
	o->zstd_level = 3;
	o->jit_map_size = 16ull << 20;
	o->sample_encoding = PRF_ENCODING_COMPACT;
	o->sysfs_root = strdup("/sys");
	o->proc_root = strdup("/proc");
}

void prd_options_fini(struct perfrecd_options *o)
{
	free(o->config_path);
	free(o->cpus);
	for (size_t i = 0; i < o->event_count; i++)
		free(o->events[i]);
	free(o->events);
	free(o->output_dir);
	free(o->group);
	free(o->sysfs_root);
	free(o->proc_root);
	free(o->command);
	memset(o, 0, sizeof(*o));
}

/*
 * A number as people write it: decimal ("010" is ten, not eight, and
 * "08" is eight), or hexadecimal with 0x.  Digits first: no sign, no
 * blanks.  *end is where the digits stop.
 */
static int parse_number(const char *value, uint64_t *out, char **end)
{
	int hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
	const char *digits = hex ? value + 2 : value;

	if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
		return -EINVAL;
	errno = 0;
	*out = strtoull(digits, end, hex ? 16 : 10);
	return errno ? -errno : 0;
}

/* A number with an optional unit suffix: the unit's multiplier or 0. */
static int parse_scaled(const char *value, const char *const *units,
			const uint64_t *scales, uint64_t *out)
{
	char *end;
	uint64_t n;

	if (parse_number(value, &n, &end) < 0)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (*end == '\0') {
		*out = n * scales[0];
		return n && *out / n != scales[0] ? -ERANGE : 0;
	}
	for (size_t i = 0; units[i]; i++) {
		if (strcasecmp(end, units[i]) != 0)
			continue;
		if (n && (n * scales[i]) / n != scales[i])
			return -ERANGE;
		*out = n * scales[i];
		return 0;
	}
	return -EINVAL;
}

static int parse_size(const char *value, uint64_t *out)
{
	static const char *const units[] = { "", "k", "m", "g", "t", "KiB", "MiB",
					     "GiB", "TiB", "B", NULL };
	static const uint64_t scales[] = { 1, 1ull << 10, 1ull << 20, 1ull << 30,
					   1ull << 40, 1ull << 10, 1ull << 20,
					   1ull << 30, 1ull << 40, 1 };

	return parse_scaled(value, units, scales, out);
}

/* Times in milliseconds; a bare number is in `bare_unit_ms`. */
static int parse_time_ms(const char *value, uint64_t bare_unit_ms, uint64_t *out)
{
	static const char *const units[] = { "", "ms", "s", "m", "min", "h", "d", NULL };
	uint64_t scales[] = { bare_unit_ms, 1, 1000, 60000, 60000, 3600000,
			      86400000 };

	return parse_scaled(value, units, scales, out);
}

/* Times in nanoseconds; a bare number is in nanoseconds. */
static int parse_time_ns(const char *value, uint64_t *out)
{
	static const char *const units[] = { "", "ns", "us", "ms", "s", NULL };
	static const uint64_t scales[] = { 1, 1, 1000, 1000000, 1000000000 };

	return parse_scaled(value, units, scales, out);
}

static int parse_flag(const char *value, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(value, yes[i]) == 0)
			return *out = 1, 0;
		if (strcasecmp(value, no[i]) == 0)
			return *out = 0, 0;
	}
	return -EINVAL;
}

static int parse_kernel_symbols(struct perfrecd_options *o, const char *value,
				struct prf_error *error)
{
	static const char *const names[] = {
		[KERNEL_SYMBOLS_HIT] = "hit",
		[KERNEL_SYMBOLS_ALL] = "all",
		[KERNEL_SYMBOLS_NONE] = "none",
	};

	for (size_t i = 0; i < PRF_ARRAY_SIZE(names); i++) {
		if (strcmp(value, names[i]) == 0) {
			o->kernel_symbols = (enum kernel_symbols_mode)i;
			return 0;
		}
	}
	return prf_set_error(error, -EINVAL, "kernel-symbols: '%s' is not one of hit, all, none",
			     value);
}

/* fp, none, dwarf or dwarf,SIZE (bytes of user stack per sample, K allowed). */
static int parse_call_graph(struct perfrecd_options *o, const char *value,
			    struct prf_error *error)
{
	uint64_t size = STACK_USER_SIZE_DEFAULT;

	if (strcmp(value, "fp") == 0) {
		o->call_graph = CALL_GRAPH_FP;
		return 0;
	}
	if (strcmp(value, "none") == 0 || strcmp(value, "no") == 0) {
		o->call_graph = CALL_GRAPH_NONE;
		return 0;
	}
	if (strncmp(value, "dwarf", 5) != 0 || (value[5] && value[5] != ','))
		return prf_set_error(error, -EINVAL,
				     "call-graph: '%s' is not one of fp, dwarf[,SIZE], none", value);
	if (value[5] == ',' &&
	    (parse_size(value + 6, &size) < 0 || !size || size % 8 ||
	     size > STACK_USER_SIZE_MAX))
		return prf_set_error(error, -EINVAL,
				     "call-graph dwarf,SIZE: SIZE must be a multiple of 8 between 8 and %u, not '%s'",
				     STACK_USER_SIZE_MAX, value + 6);
	o->call_graph = CALL_GRAPH_DWARF;
	o->stack_user_size = (uint32_t)size;
	return 0;
}

/*
 * "cpu-clock,page-faults" is two events, but "cpu/config=1,period=3/" is
 * one: commas inside a PMU's slashes separate its terms.  Each event is
 * added once; a name given twice would only double a descriptor per CPU.
 */
static int add_events(struct perfrecd_options *o, const char *value,
		      struct prf_error *error)
{
	const char *p = value;

	if (!*value)
		return prf_set_error(error, -EINVAL, "event: empty value");
	while (*p) {
		const char *start = p;
		int in_pmu = 0;
		char *name, **grown;

		for (; *p && (in_pmu || *p != ','); p++)
			if (*p == '/')
				in_pmu = !in_pmu;
		name = strndup(start, (size_t)(p - start));
		if (!name)
			return -ENOMEM;
		if (!*name) {
			prf_set_error(error, -EINVAL, "event: '%s' has an empty event in its list",
				      value);
			free(name);
			return -EINVAL;
		}
		for (size_t i = 0; i < o->event_count; i++)
			if (strcmp(o->events[i], name) == 0) {
				prf_set_error(error, -EINVAL, "event: '%s' is given twice", name);
				free(name);
				return -EINVAL;
			}
		if (o->event_count == PERFRECD_EVENTS_MAX) {
			prf_set_error(error, -E2BIG, "event: more than %d events (at '%s')",
				      PERFRECD_EVENTS_MAX, name);
			free(name);
			return -E2BIG;
		}
		grown = reallocarray(o->events, o->event_count + 1, sizeof(*grown));
		if (!grown) {
			free(name);
			return -ENOMEM;
		}
		o->events = grown;
		o->events[o->event_count++] = name;
		if (*p == ',')
			p++;
	}
	return 0;
}

/*
 * A CPU list as perf and sysfs write it, "0-3,8": sorted and each CPU
 * once, whatever the order given, so the collector opens each once.
 */
static int parse_cpus(struct perfrecd_options *o, const struct setting *s, const char *value,
		      struct prf_error *error)
{
	unsigned char *seen = calloc(PERFRECD_CPU_MAX + 1, 1);
	const char *p = value;
	size_t count = 0;
	int *cpus;

	if (!seen)
		return -ENOMEM;
	while (*p) {
		unsigned long first, last;
		char *end;

		if (!isdigit((unsigned char)*p))
			goto bad;
		first = last = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			last = strtoul(end + 1, &end, 10);
		}
		if ((*end && *end != ',') || first > last || last > PERFRECD_CPU_MAX)
			goto bad;
		for (unsigned long cpu = first; cpu <= last; cpu++)
			seen[cpu] = 1;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			goto bad;
	}
	for (size_t cpu = 0; cpu <= PERFRECD_CPU_MAX; cpu++)
		count += seen[cpu];
	cpus = count ? calloc(count, sizeof(*cpus)) : NULL;
	if (!count || !cpus) {
		free(seen);
		if (!count)
			goto bad_empty;
		return -ENOMEM;
	}
	count = 0;
	for (int cpu = 0; cpu <= PERFRECD_CPU_MAX; cpu++)
		if (seen[cpu])
			cpus[count++] = cpu;
	free(seen);
	free(o->cpus);
	o->cpus = cpus;
	o->cpu_count = count;
	return 0;
bad:
	free(seen);
bad_empty:
	/* -C was the config file before 0.2: a path given to it says so. */
	return prf_set_error(error, -EINVAL,
			     "%s: '%s' is not a CPU list such as 0-3,8 (CPUs 0 to %d)%s",
			     s->name, value, PERFRECD_CPU_MAX,
			     strchr(value, '/') || strchr(value, '.') ?
			     "; a config file is --config FILE" : "");
}

static const struct setting *find_setting(const char *name)
{
	for (size_t i = 0; i < PRF_ARRAY_SIZE(settings); i++)
		if (strcmp(settings[i].name, name) == 0)
			return &settings[i];
	return NULL;
}

/* A bound in nanoseconds as the man page writes it (1us, 60s): 60000000000 tells little to whoever typed 61s. */
static const char *ns_text(uint64_t ns, char *text, size_t size)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 1000000000ull, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" },
	};
	size_t i = 0;

	while (ns % units[i].ns)
		i++;
	snprintf(text, size, "%llu%s", (unsigned long long)(ns / units[i].ns), units[i].unit);
	return text;
}

static int apply(struct perfrecd_options *o, const struct setting *s,
		 const char *value, struct prf_error *error)
{
	void *field = (char *)o + s->offset;
	uint64_t n = 0;
	int ret = 0;

	switch (s->kind) {
	case KIND_STRING:
		if (!*value)
			return prf_set_error(error, -EINVAL, "%s: empty value", s->name);
		free(*(char **)field);
		*(char **)field = strdup(value);
		return 0;
	case KIND_FLAG:
		ret = parse_flag(value, field);
		if (ret < 0)
			return prf_set_error(error, ret, "%s: '%s' is not yes or no", s->name, value);
		return 0;
	case KIND_CALL_GRAPH:
		return parse_call_graph(o, value, error);
	case KIND_KERNEL_SYMBOLS:
		return parse_kernel_symbols(o, value, error);
	case KIND_ENCODING:
		if (strcmp(value, "compact") == 0)
			*(enum prf_sample_encoding *)field = PRF_ENCODING_COMPACT;
		else if (strcmp(value, "verbatim") == 0)
			*(enum prf_sample_encoding *)field = PRF_ENCODING_VERBATIM;
		else
			return prf_set_error(error, -EINVAL, "%s: '%s' is not compact or verbatim",
					     s->name, value);
		return 0;
	case KIND_CPUS:
		ret = parse_cpus(o, s, value, error);
		if (ret == -ENOMEM)
			return prf_set_error(error, ret, "%s: out of memory", s->name);
		return ret;
	case KIND_EVENTS:
		ret = add_events(o, value, error);
		if (ret == -ENOMEM)
			return prf_set_error(error, ret, "event: out of memory");
		return ret;
	case KIND_DURATION: {
		char *end;
		double seconds = strtod(value, &end);
		uint64_t ms;

		/* Accept a plain or fractional number of seconds, or 10m, 2h. */
		if (end != value && *end == '\0' && seconds >= 0) {
			*(double *)field = seconds;
			return 0;
		}
		if (parse_time_ms(value, 1000, &ms) == 0) {
			*(double *)field = (double)ms / 1000.0;
			return 0;
		}
		return prf_set_error(error, -EINVAL, "%s: '%s' is not a time (e.g. 10, 2.5, 30s, 5m)",
				     s->name, value);
	}
	case KIND_SIZE:
		ret = parse_size(value, &n);
		if (ret < 0)
			return prf_set_error(error, ret, "%s: '%s' is not a size (e.g. 64M, 1G)",
					     s->name, value);
		break;
	case KIND_NANOSECONDS:
		ret = parse_time_ns(value, &n);
		if (ret < 0)
			return prf_set_error(error, ret, "%s: '%s' is not a time (e.g. 500us, 1ms, 2s)",
					     s->name, value);
		break;
	case KIND_SECONDS:
	case KIND_MILLISECONDS:
		ret = parse_time_ms(value, s->kind == KIND_SECONDS ? 1000 : 1, &n);
		if (ret < 0)
			return prf_set_error(error, ret, "%s: '%s' is not a time (e.g. %s)",
					     s->name, value,
					     s->kind == KIND_SECONDS ? "600, 10m, 1h" : "500ms, 1s");
		if (s->kind == KIND_SECONDS) {
			if (n % 1000)
				return prf_set_error(error, -EINVAL, "%s: '%s' is not a whole number of seconds",
						     s->name, value);
			n /= 1000;
		}
		break;
	default: {
		char *end;

		if (parse_number(value, &n, &end) < 0 || *end)
			return prf_set_error(error, -EINVAL, "%s: '%s' is not a number", s->name,
					     value);
		break;
	}
	}
	if ((s->min || s->max) && (n < s->min || n > s->max) && s->kind == KIND_NANOSECONDS) {
		char min[32], max[32];

		return prf_set_error(error, -ERANGE, "%s: %s is out of range (%s to %s)", s->name,
				     value, ns_text(s->min, min, sizeof(min)),
				     ns_text(s->max, max, sizeof(max)));
	}
	if ((s->min || s->max) && (n < s->min || n > s->max))
		return prf_set_error(error, -ERANGE, "%s: %s is out of range (%llu to %llu)",
				     s->name, value, (unsigned long long)s->min,
				     (unsigned long long)s->max);
	/*
	 * The kernel maps 2^n data pages only; said here, this is exit status
	 * 2, which the service does not restart on, rather than a failure at
	 * run time that it would restart every RestartSec for good.
	 */
	if (s->offset == AT(ring_pages) && (n & (n - 1)))
		return prf_set_error(error, -EINVAL, "%s: %s is not a power of two", s->name,
				     value);
	switch (s->kind) {
	case KIND_U32:
	case KIND_MILLISECONDS:
		*(uint32_t *)field = (uint32_t)n;
		break;
	case KIND_PID:
		*(pid_t *)field = (pid_t)n;
		break;
	case KIND_LEVEL:
		*(int *)field = (int)n;
		break;
	default:
		*(uint64_t *)field = n;
		break;
	}
	return 0;
}

/*
 * Applies one "key = value" setting of the config file (its keys are the
 * long flag names: frequency, event, output, rotate-size, ...).  Sizes
 * take K/M/G suffixes, times s/m/h/d.  0, or -EINVAL with the message.
 */
static int config_set(struct perfrecd_options *o, const char *key, const char *value,
		      struct prf_error *error)
{
	const struct setting *s = find_setting(key);

	if (!s || !s->config_file)
		return prf_set_error(error, -EINVAL, "unknown key '%s'", key);
	return apply(o, s, value, error);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
			   end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Returns 0, -ENOENT when the file is absent, or -EINVAL after a message. */
static int load_config(struct perfrecd_options *o, const char *path)
{
	struct prf_error error;
	char line[4096];
	unsigned number = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		int ret = -errno;

		if (ret != -ENOENT)
			prd_log_usage_error("%s: %s", path, strerror(-ret));
		return ret == -ENOENT ? ret : -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *key, *value, *equals;

		number++;
		if (!strchr(line, '\n') && !feof(f)) {
			prd_log_usage_error("%s:%u: line too long", path, number);
			goto bad;
		}
		key = trim(line);
		if (*key == '#' || *key == '\0')
			continue;
		equals = strchr(key, '=');
		if (!equals) {
			prd_log_usage_error("%s:%u: expected 'key = value'", path, number);
			goto bad;
		}
		*equals = '\0';
		key = trim(key);
		value = trim(equals + 1);
		if (config_set(o, key, value, &error) < 0) {
			prd_log_usage_error("%s:%u: %s", path, number, error.message);
			goto bad;
		}
	}
	fclose(f);
	return 0;
bad:
	fclose(f);
	return -EINVAL;
}

static void usage(FILE *out)
{
	fprintf(out,
"Usage: perfrecd [OPTIONS] [-- COMMAND [ARGS...]]\n"
"Sample the whole machine (or one process tree) and write perfrec files.\n"
"\n"
"Sampling:\n"
"  -e, --event NAME[,NAME]   event: cycles, cpu-clock, rNNNN, pmu/term=val,.../\n"
"                            (default: cycles, or cpu-clock without a PMU);\n"
"                            repeat or list for several (at most 32);\n"
"                            NAME/period=N/ or NAME/freq=HZ/ for its own sampling;\n"
"                            a tracepoint as subsystem:name (sched:sched_switch),\n"
"                            every hit with its fields (needs tracefs mounted)\n"
"  -F, --frequency HZ        samples per second per CPU (default 97)\n"
"  -c, --period N            sample every N events instead of a frequency\n"
"  -g                        frame-pointer callchains (the default)\n"
"      --call-graph MODE     fp, none, or dwarf[,SIZE]: copy SIZE bytes of user\n"
"                            stack (default 8192) for perfrec-report to unwind\n"
"      --max-stack N         deepest callchain kept (default 127)\n"
"      --no-kernel-callchain, --no-user-callchain\n"
"      --user-only           sample user mode only (exclude the kernel)\n"
"      --off-cpu             also record where threads block, for how long and\n"
"                            who woke them (a BPF program; needs CAP_BPF)\n"
"      --off-cpu-min TIME    the shortest block recorded (default 1ms;\n"
"                            ns, us, ms, s)\n"
"  -p, --pid PID             profile PID and its children only\n"
"  -C, --cpu LIST            these CPUs only, e.g. 0-3,8 (default: all online)\n"
"  -a, --all-cpus            every CPU, also while a COMMAND runs (without one,\n"
"                            the default)\n"
"\n"
"Output:\n"
"  -o, --output DIR          where files go (default " PERFRECD_OUTPUT_DIR ")\n"
"      --rotate-size SIZE    start a new file at this size (default 64M)\n"
"      --rotate-age TIME     ... or at this age (default 10m)\n"
"      --retain-size SIZE    delete the oldest files above this total (1G; 0 off)\n"
"      --retain-age TIME     delete files older than this (default 0: off)\n"
"      --compression-level N zstd level, 0 for none (default 3)\n"
"      --kernel-symbols WHAT hit: the kernel symbols the samples hit (default);\n"
"                            all: /proc/kallsyms whole in each file; none\n"
"      --sample-encoding ENC compact (interned stacks, the default) or verbatim\n"
"      --group NAME          files readable by this group (0640); default none (0600)\n"
"      --binary-cache SIZE   keep binaries of other mount namespaces and deleted\n"
"                            ones in DIR/.build-id, up to SIZE (256M; 0 off)\n"
"      --flush-interval TIME write buffered data at least this often (10s)\n"
"      --jit-map-size SIZE   JIT symbols (perf maps, jitdump) copied per process\n"
"                            (default 16M; 0: none)\n"
"  -m, --ring-pages N        ring buffer data pages per CPU (power of 2;\n"
"                            --mmap-pages N, as perf names it)\n"
"\n"
"Running:\n"
"  -d, --duration TIME       stop after TIME (e.g. 10, 30s, 5m)\n"
"      --config FILE         settings file (default " PERFRECD_CONFIG_PATH ")\n"
"      --check-config        validate the settings and exit\n"
"  -v, --verbose / -q, --quiet\n"
"  -h, --help / -V, --version\n"
"\n"
"Signals: TERM/INT finish and exit, HUP rotates, USR1 logs statistics.\n"
"See perfrecd(8).\n");
}

static void build_long_options(struct option *long_options)
{
	static const struct option fixed[] = {
		{ "config", required_argument, NULL, OPTION_CONFIG },
		{ "check-config", no_argument, NULL, OPTION_CHECK_CONFIG },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	size_t n = 0;

	for (size_t i = 0; i < PRF_ARRAY_SIZE(settings); i++)
		long_options[n++] = (struct option){
			settings[i].name,
			settings[i].kind == KIND_FLAG ? no_argument : required_argument,
			NULL, (int)(OPTION_SETTING_BASE + i) };
	for (size_t i = 0; i < PRF_ARRAY_SIZE(fixed); i++)
		long_options[n++] = fixed[i];
	long_options[n] = (struct option){ 0 };
}

/* '+': options stop at the first argument (the COMMAND); ':': a missing value is told apart. */
static const char short_options[] = "+:e:F:c:gp:o:d:C:m:avqhV";

/*
 * What getopt stopped at, in one line: an unknown option, a value missing,
 * or a value given to an option that takes none ("--user-only=yes").
 */
static void bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	int known = optopt >= 128 || (optopt > 0 && strchr(short_options + 2, optopt));
	char text[256];

	if (c == '?' && optopt && !known) {
		snprintf(text, sizeof(text), "-%c", optopt);
	} else if (c == ':' && optopt < 128 && strncmp(arg, "--", 2) != 0) {
		snprintf(text, sizeof(text), "-%c", optopt);
	} else {
		snprintf(text, sizeof(text), "%s", arg);
		text[strcspn(text, "=")] = '\0';
	}
	if (c == ':')
		prd_log_usage_error("option '%s' needs a value (see perfrecd --help)", text);
	else if (known)
		prd_log_usage_error("option '%s' takes no value (see perfrecd --help)", text);
	else
		prd_log_usage_error("unknown %soption '%s' (see perfrecd --help)",
			strncmp(text, "--", 2) == 0 ? "or ambiguous " : "", text);
}

/* The config file comes first, so find --config before parsing the rest. */
static int find_config_path(struct perfrecd_options *o, int argc, char **argv,
			    const struct option *long_options)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		if (c == OPTION_CONFIG) {
			free(o->config_path);
			o->config_path = strdup(optarg);
			o->config_given = 1;
		}
	}
	optind = 1;
	if (!o->config_path)
		o->config_path = strdup(PERFRECD_CONFIG_PATH);
	return 0;
}

int prd_options_parse(struct perfrecd_options *o, int argc, char **argv)
{
	struct option long_options[PRF_ARRAY_SIZE(settings) + 8];
	struct prf_error error;
	int c, ret;

	build_long_options(long_options);
	find_config_path(o, argc, argv, long_options);
	ret = load_config(o, o->config_path);
	if (ret == -ENOENT && o->config_given) {
		prd_log_usage_error("%s: %s", o->config_path, strerror(ENOENT));
		return -EINVAL;
	}
	if (ret < 0 && ret != -ENOENT)
		return -EINVAL;

	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		const struct setting *s = NULL;
		const char *value = optarg;

		switch (c) {
		case OPTION_CONFIG:
			continue;
		case OPTION_CHECK_CONFIG:
			o->check_config = 1;
			continue;
		case 'g':
			o->call_graph = CALL_GRAPH_FP;
			continue;
		case 'v':
			o->verbosity++;
			continue;
		case 'q':
			o->verbosity--;
			continue;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("perfrecd %s\n", PACKAGE_VERSION);
			return 1;
		case '?':
		case ':':
			bad_option(c, argv);
			return -EINVAL;
		default:
			break;
		}
		if (c >= OPTION_SETTING_BASE && c < OPTION_CHECK_CONFIG) {
			s = &settings[c - OPTION_SETTING_BASE];
		} else {
			for (size_t i = 0; i < PRF_ARRAY_SIZE(settings); i++)
				if (settings[i].short_name == c)
					s = &settings[i];
		}
		if (!s)
			return -EINVAL;
		/* The command line's events replace the config file's; several -e add up. */
		if (s->kind == KIND_EVENTS && !o->events_from_command_line++) {
			for (size_t i = 0; i < o->event_count; i++)
				free(o->events[i]);
			o->event_count = 0;
		}
		if (s->kind == KIND_FLAG)
			value = "yes";
		if (apply(o, s, value, &error) < 0) {
			prd_log_usage_error("--%s", error.message);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		size_t n = (size_t)(argc - optind);

		o->command = calloc(n + 1, sizeof(char *));
		if (!o->command)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			o->command[i] = argv[optind + (int)i];
	}
	if (o->command && o->pid) {
		prd_log_usage_error("--pid and a COMMAND exclude each other");
		return -EINVAL;
	}
	if (o->pid && (o->all_cpus || o->cpu_count)) {
		prd_log_usage_error("--pid samples one process wherever it runs; it cannot go with -a or --cpu");
		return -EINVAL;
	}
	if (o->call_graph == CALL_GRAPH_DWARF && o->exclude_user_callchain) {
		prd_log_usage_error("--call-graph dwarf records user stacks to unwind; it cannot go with --no-user-callchain");
		return -EINVAL;
	}
	return 0;
}
