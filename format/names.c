/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names of record types, as tools print them: the kernel's PERF_RECORD_*
 * without the prefix, and perfrec's PRF_RECORD_* likewise; and of the
 * generic events, as perf spells them (perfrecd parses them, perfrec-dump
 * prints them).
 */
#include "internal.h"

/* Every type of enum perf_event_type in the uapi header we build against. */
static const char *const kernel_record_names[] = {
	[PERF_RECORD_MMAP]		= "MMAP",
	[PERF_RECORD_LOST]		= "LOST",
	[PERF_RECORD_COMM]		= "COMM",
	[PERF_RECORD_EXIT]		= "EXIT",
	[PERF_RECORD_THROTTLE]		= "THROTTLE",
	[PERF_RECORD_UNTHROTTLE]	= "UNTHROTTLE",
	[PERF_RECORD_FORK]		= "FORK",
	[PERF_RECORD_READ]		= "READ",
	[PERF_RECORD_SAMPLE]		= "SAMPLE",
	[PERF_RECORD_MMAP2]		= "MMAP2",
	[PERF_RECORD_AUX]		= "AUX",
	[PERF_RECORD_ITRACE_START]	= "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES]	= "LOST_SAMPLES",
	[PERF_RECORD_SWITCH]		= "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE]	= "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES]	= "NAMESPACES",
	[PERF_RECORD_KSYMBOL]		= "KSYMBOL",
	[PERF_RECORD_BPF_EVENT]		= "BPF_EVENT",
	[PERF_RECORD_CGROUP]		= "CGROUP",
	[PERF_RECORD_TEXT_POKE]		= "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID]	= "AUX_OUTPUT_HW_ID",
};

/* Indexed by type - PRF_RECORD_BASE. */
static const char *const perfrec_record_names[] = {
	[PRF_RECORD_BUILD_ID - PRF_RECORD_BASE]		= "BUILD_ID",
	[PRF_RECORD_KALLSYMS - PRF_RECORD_BASE]		= "KALLSYMS",
	[PRF_RECORD_KERNEL_MODULE - PRF_RECORD_BASE]	= "KERNEL_MODULE",
	[PRF_RECORD_SNAPSHOT_BEGIN - PRF_RECORD_BASE]	= "SNAPSHOT_BEGIN",
	[PRF_RECORD_SNAPSHOT_END - PRF_RECORD_BASE]	= "SNAPSHOT_END",
	[PRF_RECORD_STATS - PRF_RECORD_BASE]		= "STATS",
	[PRF_RECORD_LOST_NOTE - PRF_RECORD_BASE]	= "LOST_NOTE",
	[PRF_RECORD_TASK_CGROUP - PRF_RECORD_BASE]	= "TASK_CGROUP",
	[PRF_RECORD_NSPID - PRF_RECORD_BASE]		= "NSPID",
	[PRF_RECORD_KERNEL_SYMBOL - PRF_RECORD_BASE]	= "KERNEL_SYMBOL",
	[PRF_RECORD_JIT_MAP - PRF_RECORD_BASE]	= "JIT_MAP",
	[PRF_RECORD_JIT_DUMP - PRF_RECORD_BASE]	= "JIT_DUMP",
	[PRF_RECORD_TRACEPOINT_FORMAT - PRF_RECORD_BASE] = "TRACEPOINT_FORMAT",
	[PRF_RECORD_OFF_CPU - PRF_RECORD_BASE]	= "OFF_CPU",
};

/* Holes in the tables (type 0, PRF_RECORD_BASE itself) stay NULL. */
const char *prf_record_type_name(uint32_t type)
{
	if (type < PRF_ARRAY_SIZE(kernel_record_names))
		return kernel_record_names[type];
	if (type >= PRF_RECORD_BASE &&
	    type - PRF_RECORD_BASE < PRF_ARRAY_SIZE(perfrec_record_names))
		return perfrec_record_names[type - PRF_RECORD_BASE];
	return NULL;
}

#define HW(name, id)	{ name, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##id }
#define SW(name, id)	{ name, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##id }

/* perf list's name of each event first, then perf's aliases of it. */
static const struct prf_event_name event_names[] = {
	HW("cpu-cycles", CPU_CYCLES),
	HW("cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branch-instructions", BRANCH_INSTRUCTIONS),
	HW("branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("idle-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("idle-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", REF_CPU_CYCLES),
	SW("cpu-clock", CPU_CLOCK),
	SW("task-clock", TASK_CLOCK),
	SW("page-faults", PAGE_FAULTS),
	SW("faults", PAGE_FAULTS),
	SW("context-switches", CONTEXT_SWITCHES),
	SW("cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS),
	SW("migrations", CPU_MIGRATIONS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
	SW("dummy", DUMMY),
	SW("bpf-output", BPF_OUTPUT),
	SW("cgroup-switches", CGROUP_SWITCHES),	/* linux-libc-dev >= 5.13 */
};

#undef HW
#undef SW

const struct prf_event_name *prf_event_names(size_t *count)
{
	*count = PRF_ARRAY_SIZE(event_names);
	return event_names;
}

const char *prf_event_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < PRF_ARRAY_SIZE(event_names); i++)
		if (event_names[i].type == type && event_names[i].config == config)
			return event_names[i].name;
	return NULL;
}
