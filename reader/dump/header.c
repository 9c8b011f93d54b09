/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-dump: the file header (host facts, clock, metadata) and the
 * events, with their perf_event_attr spelled out the way perf(1) and the
 * kernel headers name things.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "dump.h"

static const char *clock_name(int32_t clockid)
{
	switch (clockid) {
	case CLOCK_REALTIME:	return "CLOCK_REALTIME";
	case CLOCK_MONOTONIC:	return "CLOCK_MONOTONIC";
	case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
	case CLOCK_BOOTTIME:	return "CLOCK_BOOTTIME";
	case CLOCK_TAI:		return "CLOCK_TAI";
	default:		return NULL;
	}
}

/* The wall-clock time the file was started at, as ISO 8601 UTC. */
static void field_start_utc(FILE *out, const struct prf_file_info *info)
{
	/* Unsigned: a hostile header must not overflow a signed sum. */
	int64_t realtime = (int64_t)(info->start_time_ns +
				     (uint64_t)info->realtime_offset_ns);
	time_t seconds = (time_t)(realtime / 1000000000);
	struct tm tm;
	char text[64];

	if (realtime < 0 || !gmtime_r(&seconds, &tm) ||
	    !strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm))
		return;
	fprintf(out, " start_utc=%s.%09" PRId64 "Z", text, realtime % 1000000000);
}

static void dump_clock(FILE *out, const struct prf_file_info *info)
{
	const char *name = clock_name(info->clockid);

	fputs("CLOCK", out);
	if (name)
		field_string(out, "clock", name);
	else
		field_s64(out, "clock", info->clockid);
	field_time(out, "start_time", info->start_time_ns);
	field_s64(out, "realtime_offset_ns", info->realtime_offset_ns);
	field_start_utc(out, info);
	fputc('\n', out);
}

void dump_header(FILE *out, const char *path, uint64_t file_size,
		 const struct prf_file_info *info)
{
	fputs("FILE", out);
	field_string(out, "name", path);
	field_u64(out, "size", file_size);
	fputc('\n', out);

	fprintf(out, "HEADER version=%u.%u", info->version_major,
		info->version_minor);
	field_string(out, "hostname", info->hostname);
	field_string(out, "machine", info->machine);
	field_string(out, "kernel_release", info->kernel_release);
	field_string(out, "kernel_version", info->kernel_version);
	field_string(out, "boot_id", info->boot_id);
	field_u64(out, "cpus_online", info->nr_cpus_online);
	field_u64(out, "cpus_configured", info->nr_cpus_configured);
	field_u64(out, "page_size", info->page_size);
	fputc('\n', out);

	dump_clock(out, info);
	for (size_t i = 0; i < info->meta_count; i++) {
		fputs("META", out);
		field_string(out, "key", info->meta[i].key);
		field_string(out, "value", info->meta[i].value);
		fputc('\n', out);
	}
}

/* ---- events -------------------------------------------------------- */

static const char *const type_names[] = {
	[PERF_TYPE_HARDWARE]	= "hardware",
	[PERF_TYPE_SOFTWARE]	= "software",
	[PERF_TYPE_TRACEPOINT]	= "tracepoint",
	[PERF_TYPE_HW_CACHE]	= "hw-cache",
	[PERF_TYPE_RAW]		= "raw",
	[PERF_TYPE_BREAKPOINT]	= "breakpoint",
};

/* type and config by name where the kernel's uapi defines one. */
static void field_type_config(FILE *out, const struct perf_event_attr *attr)
{
	const char *type = attr->type < PRF_ARRAY_SIZE(type_names) ? type_names[attr->type] : NULL;
	const char *config = prf_event_name(attr->type, attr->config);

	if (type)
		field_string(out, "type", type);
	else
		field_u64(out, "type", attr->type);
	if (config)
		field_string(out, "config", config);
	else
		field_hex(out, "config", attr->config);
}

#define FLAG(prefix, name) { prefix##name, #name }

static const struct flag_name sample_type_names[] = {
	FLAG(PERF_SAMPLE_, IP),
	FLAG(PERF_SAMPLE_, TID),
	FLAG(PERF_SAMPLE_, TIME),
	FLAG(PERF_SAMPLE_, ADDR),
	FLAG(PERF_SAMPLE_, READ),
	FLAG(PERF_SAMPLE_, CALLCHAIN),
	FLAG(PERF_SAMPLE_, ID),
	FLAG(PERF_SAMPLE_, CPU),
	FLAG(PERF_SAMPLE_, PERIOD),
	FLAG(PERF_SAMPLE_, STREAM_ID),
	FLAG(PERF_SAMPLE_, RAW),
	FLAG(PERF_SAMPLE_, BRANCH_STACK),
	FLAG(PERF_SAMPLE_, REGS_USER),
	FLAG(PERF_SAMPLE_, STACK_USER),
	FLAG(PERF_SAMPLE_, WEIGHT),
	FLAG(PERF_SAMPLE_, DATA_SRC),
	FLAG(PERF_SAMPLE_, IDENTIFIER),
	FLAG(PERF_SAMPLE_, TRANSACTION),
	FLAG(PERF_SAMPLE_, REGS_INTR),
	FLAG(PERF_SAMPLE_, PHYS_ADDR),
	FLAG(PERF_SAMPLE_, AUX),
	FLAG(PERF_SAMPLE_, CGROUP),
	FLAG(PERF_SAMPLE_, DATA_PAGE_SIZE),
	FLAG(PERF_SAMPLE_, CODE_PAGE_SIZE),
	FLAG(PERF_SAMPLE_, WEIGHT_STRUCT),
};

static const struct flag_name read_format_names[] = {
	FLAG(PERF_FORMAT_, TOTAL_TIME_ENABLED),
	FLAG(PERF_FORMAT_, TOTAL_TIME_RUNNING),
	FLAG(PERF_FORMAT_, ID),
	FLAG(PERF_FORMAT_, GROUP),
	{ 1u << 4, "LOST" },	/* PERF_FORMAT_LOST: Linux 6.0, not in every uapi */
};

/* The one-bit fields of perf_event_attr, by their C names. */
static void field_attr_bits(FILE *out, const struct perf_event_attr *attr)
{
	const char *separator = "";

	fputs(" flags=", out);
#define ATTR_BIT(name)							\
	do {								\
		if (attr->name) {					\
			fprintf(out, "%s%s", separator, #name);		\
			separator = "|";				\
		}							\
	} while (0)
	ATTR_BIT(disabled);
	ATTR_BIT(inherit);
	ATTR_BIT(pinned);
	ATTR_BIT(exclusive);
	ATTR_BIT(exclude_user);
	ATTR_BIT(exclude_kernel);
	ATTR_BIT(exclude_hv);
	ATTR_BIT(exclude_idle);
	ATTR_BIT(mmap);
	ATTR_BIT(comm);
	ATTR_BIT(freq);
	ATTR_BIT(inherit_stat);
	ATTR_BIT(enable_on_exec);
	ATTR_BIT(task);
	ATTR_BIT(watermark);
	ATTR_BIT(mmap_data);
	ATTR_BIT(sample_id_all);
	ATTR_BIT(exclude_host);
	ATTR_BIT(exclude_guest);
	ATTR_BIT(exclude_callchain_kernel);
	ATTR_BIT(exclude_callchain_user);
	ATTR_BIT(mmap2);
	ATTR_BIT(comm_exec);
	ATTR_BIT(use_clockid);
	ATTR_BIT(context_switch);
	ATTR_BIT(write_backward);
	ATTR_BIT(namespaces);
	ATTR_BIT(ksymbol);
	ATTR_BIT(bpf_event);
	ATTR_BIT(aux_output);
	ATTR_BIT(cgroup);
	ATTR_BIT(text_poke);
	ATTR_BIT(build_id);
	ATTR_BIT(inherit_thread);
	ATTR_BIT(remove_on_exec);
	ATTR_BIT(sigtrap);
#undef ATTR_BIT
	if (!*separator)
		fputc('0', out);
}

/* The fields that matter only when set, so that common events stay short. */
static void field_attr_extras(FILE *out, const struct perf_event_attr *attr)
{
	if (attr->precise_ip)
		field_u64(out, "precise_ip", attr->precise_ip);
	if (attr->sample_type & PERF_SAMPLE_READ)
		field_flags(out, "read_format", attr->read_format,
			    read_format_names, PRF_ARRAY_SIZE(read_format_names));
	if (attr->config1)
		field_hex(out, "config1", attr->config1);
	if (attr->config2)
		field_hex(out, "config2", attr->config2);
	if (attr->branch_sample_type)
		field_hex(out, "branch_sample_type", attr->branch_sample_type);
	if (attr->sample_regs_user)
		field_hex(out, "sample_regs_user", attr->sample_regs_user);
	if (attr->sample_stack_user)
		field_u64(out, "sample_stack_user", attr->sample_stack_user);
	if (attr->sample_regs_intr)
		field_hex(out, "sample_regs_intr", attr->sample_regs_intr);
	if (attr->use_clockid)
		field_s64(out, "clockid", attr->clockid);
	if (attr->sample_max_stack)
		field_u64(out, "sample_max_stack", attr->sample_max_stack);
	if (attr->wakeup_events)
		field_u64(out, attr->watermark ? "wakeup_watermark" :
			  "wakeup_events", attr->wakeup_events);
}

static void field_ids(FILE *out, const struct prf_event *event)
{
	fputs(" ids=[", out);
	for (uint32_t i = 0; i < event->id_count; i++) {
		uint64_t id;

		/* ids point into the header as read: copy, as the reader does. */
		memcpy(&id, &event->ids[i], sizeof(id));
		fprintf(out, "%s%" PRIu64, i ? "," : "", id);
	}
	fputc(']', out);
}

void dump_events(FILE *out, const struct prf_file_info *info)
{
	for (size_t i = 0; i < info->event_count; i++) {
		const struct prf_event *event = &info->events[i];
		const struct perf_event_attr *attr = &event->attr;

		fprintf(out, "EVENT index=%zu", i);
		field_string(out, "name", event->name);
		field_type_config(out, attr);
		field_u64(out, "attr_size", event->attr_size);
		field_flags(out, "sample_type", attr->sample_type,
			    sample_type_names, PRF_ARRAY_SIZE(sample_type_names));
		field_u64(out, attr->freq ? "freq" : "period",
			  attr->sample_period);
		field_attr_bits(out, attr);
		field_attr_extras(out, attr);
		field_ids(out, event);
		fputc('\n', out);
	}
}
