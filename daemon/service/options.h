/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_OPTIONS_H
#define PERFRECD_OPTIONS_H

#include <stdint.h>
#include <sys/types.h>
#include "format.h"

#ifndef PERFRECD_CONFIG_PATH		/* the build sets it from sysconfdir */
#define PERFRECD_CONFIG_PATH	"/etc/perfrec/perfrecd.conf"
#endif
#define PERFRECD_OUTPUT_DIR	"/var/lib/perfrec"

enum call_graph_mode { CALL_GRAPH_NONE, CALL_GRAPH_FP, CALL_GRAPH_DWARF };
/* What each file carries of /proc/kallsyms. */
enum kernel_symbols_mode { KERNEL_SYMBOLS_HIT, KERNEL_SYMBOLS_ALL, KERNEL_SYMBOLS_NONE };

/*
 * --call-graph dwarf,SIZE: the kernel takes sample_stack_user below
 * USHRT_MAX and 8-aligned (perf_copy_attr() in kernel/events/core.c).
 */
#define STACK_USER_SIZE_DEFAULT	8192u
#define STACK_USER_SIZE_MAX	65528u

/* The highest CPU number --cpu takes. */
#define PERFRECD_CPU_MAX	8191

/* Events a run: each is a descriptor per CPU (and thread) and a slot in every file's header. */
#define PERFRECD_EVENTS_MAX	32

/* --off-cpu-min's default: see perfrecd(8) and bench/README.md. */
#define OFF_CPU_MIN_DEFAULT_NS	1000000u

/*
 * Everything perfrecd can be told.  Defaults, then the config file, then
 * the command line: each later source overrides the earlier.
 */
struct perfrecd_options {
	char *config_path;		/* -C/--config */
	int config_given;		/* an explicit -C: the file must exist */
	int check_config;		/* --check-config: validate and exit */

	char **events;			/* -e/--event, in order; none: the default event */
	size_t event_count;
	int events_from_command_line;	/* a first -e drops the config file's events */
	int *cpus;			/* -C/--cpu: these CPUs only, sorted; none: all */
	size_t cpu_count;
	int all_cpus;			/* -a: every CPU even with a COMMAND */
	uint64_t frequency;		/* -F Hz (default 97) */
	uint64_t period;		/* -c events; overrides frequency */
	enum call_graph_mode call_graph;	/* -g/--call-graph fp|dwarf[,SIZE]|none */
	uint32_t stack_user_size;	/* dwarf: user stack bytes per sample (8192) */
	uint32_t max_stack;		/* --max-stack (sample_max_stack) */
	int exclude_kernel_callchain;	/* --no-kernel-callchain */
	int exclude_user_callchain;	/* --no-user-callchain */
	int exclude_kernel;		/* --user-only: sample user mode only */
	int off_cpu;			/* --off-cpu: record blocks (BPF) */
	uint64_t off_cpu_min_ns;	/* --off-cpu-min: the shortest block kept */

	uint32_t ring_pages;		/* --ring-pages: data pages per CPU, 0 auto */
	uint32_t flush_interval_ms;	/* --flush-interval (default 1000) */

	char *output_dir;		/* -o/--output */
	uint64_t rotate_size;		/* --rotate-size bytes (64 MiB) */
	uint64_t rotate_age_s;		/* --rotate-age seconds (600) */
	uint64_t retain_size;		/* --retain-size bytes (1 GiB), 0 off */
	uint64_t retain_age_s;		/* --retain-age seconds, 0 off */
	int zstd_level;			/* --compression-level (3) */
	enum kernel_symbols_mode kernel_symbols;	/* --kernel-symbols (hit) */
	enum prf_sample_encoding sample_encoding;	/* --sample-encoding (compact) */
	char *group;			/* --group: files readable by it; NULL: 0600 */
	uint64_t binary_cache_size;	/* --binary-cache bytes (256 MiB), 0 off */
	uint64_t jit_map_size;		/* --jit-map-size: JIT symbols a process (16 MiB), 0 off */

	double duration_s;		/* -d/--duration; 0: until a signal */
	pid_t pid;			/* -p/--pid: one process tree */
	char **command;			/* -- COMMAND ARGS... */

	char *sysfs_root;		/* --sysfs-root (tests), "/sys" */
	char *proc_root;		/* --proc-root (tests), "/proc" */
	int verbosity;			/* -v (more), -q (less) */
};

void prd_options_init(struct perfrecd_options *options);
void prd_options_fini(struct perfrecd_options *options);

/*
 * Parses argv into options, reading the config file first (the one named
 * by -C, or PERFRECD_CONFIG_PATH when it exists).  Returns 0, 1 when the
 * program should exit successfully (--help, --version), or -EINVAL after
 * printing one line naming the bad flag, file:line or value.
 */
int prd_options_parse(struct perfrecd_options *options, int argc, char **argv);

#endif
