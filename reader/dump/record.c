/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-dump: one record, one line.  Decoding is kept apart from
 * printing because --summary decodes every record (to count samples per
 * CPU and malformed records) without printing any.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "dump.h"

/* ---- decoding ------------------------------------------------------ */

static size_t perfrec_fixed_size(uint32_t type)
{
	switch (type) {
	case PRF_RECORD_BUILD_ID:	return sizeof(struct prf_build_id_record);
	case PRF_RECORD_KALLSYMS:	return sizeof(struct prf_kallsyms_record);
	case PRF_RECORD_KERNEL_MODULE:	return sizeof(struct prf_kernel_module_record);
	case PRF_RECORD_SNAPSHOT_BEGIN:
	case PRF_RECORD_SNAPSHOT_END:	return sizeof(struct prf_snapshot_record);
	case PRF_RECORD_STATS:		return sizeof(struct prf_stats_record);
	case PRF_RECORD_LOST_NOTE:	return sizeof(struct prf_lost_note_record);
	case PRF_RECORD_TASK_CGROUP:	return sizeof(struct prf_task_cgroup_record);
	case PRF_RECORD_NSPID:		return sizeof(struct prf_nspid_record);
	case PRF_RECORD_KERNEL_SYMBOL:	return sizeof(struct prf_kernel_symbol_record);
	case PRF_RECORD_JIT_MAP:
	case PRF_RECORD_JIT_DUMP:	return sizeof(struct prf_jit_map_record);
	default:			return 0;
	}
}

/* The NUL-terminated string after the fixed part, or NULL if it never ends. */
static const char *tail_string(const struct prf_record *record, size_t fixed)
{
	const char *string = (const char *)record->data + fixed;

	return memchr(string, '\0', record->size - fixed) ? string : NULL;
}

/* A last line without its newline still counts. */
static uint64_t count_lines(const char *text, uint64_t size)
{
	uint64_t lines = 0;

	for (uint64_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	if (size && text[size - 1] != '\n')
		lines++;
	return lines;
}

/* perfrec-format(5): too short, or a string without its NUL, is malformed. */
static int decode_perfrec(const struct prf_record *record,
			  struct dump_record *decoded)
{
	size_t fixed = perfrec_fixed_size(record->type);

	/* Records of a variable layout: format/ decodes them, bounds and all. */
	if (record->type == PRF_RECORD_TRACEPOINT_FORMAT)
		return prf_decode_tracepoint_format(record->data, record->size,
						    &decoded->tracepoint) < 0 ? -EBADMSG : 1;
	if (record->type == PRF_RECORD_OFF_CPU)
		return prf_decode_off_cpu(record->data, record->size, &decoded->off_cpu) < 0 ?
		       -EBADMSG : 1;
	if (!fixed)
		return 0;
	if (record->size < fixed)
		return -EBADMSG;
	memcpy(&decoded->perfrec, record->data, fixed);
	switch (record->type) {
	case PRF_RECORD_BUILD_ID:
		if (decoded->perfrec.build_id.build_id_size > PRF_BUILD_ID_MAX)
			return -EBADMSG;
		decoded->text = tail_string(record, fixed);
		return decoded->text ? 1 : -EBADMSG;
	case PRF_RECORD_KERNEL_MODULE:
		if (decoded->perfrec.kernel_module.build_id_size > PRF_BUILD_ID_MAX)
			return -EBADMSG;
		decoded->text = tail_string(record, fixed);
		return decoded->text ? 1 : -EBADMSG;
	case PRF_RECORD_TASK_CGROUP:
		decoded->text = tail_string(record, fixed);
		return decoded->text ? 1 : -EBADMSG;
	case PRF_RECORD_KERNEL_SYMBOL:
		decoded->text = tail_string(record, fixed);
		if (!decoded->text)
			return -EBADMSG;
		fixed += strlen(decoded->text) + 1;
		decoded->module = fixed < record->size ? tail_string(record, fixed) : NULL;
		return decoded->module ? 1 : -EBADMSG;
	case PRF_RECORD_KALLSYMS:
		if (decoded->perfrec.kallsyms.text_size > record->size - fixed)
			return -EBADMSG;
		decoded->kallsyms_lines =
			count_lines((const char *)record->data + fixed,
				    decoded->perfrec.kallsyms.text_size);
		return 1;
	case PRF_RECORD_JIT_MAP:
	case PRF_RECORD_JIT_DUMP:
		if (decoded->perfrec.jit_map.text_size > record->size - fixed)
			return -EBADMSG;
		decoded->text = (const char *)record->data + fixed;
		decoded->kallsyms_lines = count_lines(decoded->text,
						      decoded->perfrec.jit_map.text_size);
		return 1;
	default:
		return 1;
	}
}

void dump_record_decode(const struct prf_reader *reader,
			const struct prf_record *record,
			struct dump_record *decoded)
{
	const struct perf_event_attr *attr;

	memset(decoded, 0, sizeof(*decoded));
	decoded->record = record;
	decoded->name = prf_record_type_name(record->type);
	if (record->type >= PRF_RECORD_BASE) {
		decoded->status = decode_perfrec(record, decoded);
		return;
	}
	decoded->name_event = prf_reader_info(reader)->event_count > 1;
	decoded->event = prf_reader_event_for(reader, record->data, record->size);
	/* Without its attr a sample's layout is unknown; side-band is not. */
	if (record->type == PERF_RECORD_SAMPLE && !decoded->event) {
		decoded->status = -ENOENT;
		return;
	}
	attr = decoded->event ? &decoded->event->attr : NULL;
	decoded->status = prf_decode_record(attr, record->data, record->size,
					    &decoded->kernel);
}

/* ---- printing: kernel records -------------------------------------- */

static const char *cpumode_name(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:		return "kernel";
	case PERF_RECORD_MISC_USER:		return "user";
	case PERF_RECORD_MISC_HYPERVISOR:	return "hypervisor";
	case PERF_RECORD_MISC_GUEST_KERNEL:	return "guest_kernel";
	case PERF_RECORD_MISC_GUEST_USER:	return "guest_user";
	default:				return "unknown";
	}
}

/* The markers the kernel puts in a callchain where the context changes. */
static const char *callchain_context_name(uint64_t ip)
{
	switch (ip) {
	case PERF_CONTEXT_HV:		return "hv";
	case PERF_CONTEXT_KERNEL:	return "kernel";
	case PERF_CONTEXT_USER:		return "user";
	case PERF_CONTEXT_GUEST:	return "guest";
	case PERF_CONTEXT_GUEST_KERNEL:	return "guest_kernel";
	case PERF_CONTEXT_GUEST_USER:	return "guest_user";
	default:			return NULL;
	}
}

static void field_callchain(FILE *out, const struct prf_sample *sample)
{
	fputs(" callchain=[", out);
	for (uint64_t i = 0; i < sample->callchain_nr; i++) {
		const char *context = callchain_context_name(sample->callchain[i]);

		if (i)
			fputc(',', out);
		if (context)
			fputs(context, out);
		else
			fprintf(out, "0x%" PRIx64, sample->callchain[i]);
	}
	fputc(']', out);
}

static void field_u64_list(FILE *out, const char *key, const uint64_t *values,
			   uint64_t count)
{
	fprintf(out, " %s=[", key);
	for (uint64_t i = 0; i < count; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", values[i]);
	fputc(']', out);
}

/*
 * Registers as abi (none, 32, 64), the mask, then the values in bit order
 * under their perf register numbers: "regs_user_abi=64
 * regs_user_mask=0xff01ff regs_user=[0:0x1,1:0x2,...]".
 */
static void field_regs(FILE *out, const char *key, const struct prf_regs *regs)
{
	static const char *const abis[] = { "none", "32", "64" };
	uint64_t mask = regs->mask;
	char name[64];

	snprintf(name, sizeof(name), "%s_abi", key);
	if (regs->abi < sizeof(abis) / sizeof(abis[0]))
		fprintf(out, " %s=%s", name, abis[regs->abi]);
	else
		field_u64(out, name, regs->abi);
	snprintf(name, sizeof(name), "%s_mask", key);
	field_hex(out, name, regs->mask);
	if (!regs->regs)
		return;
	fprintf(out, " %s=[", key);
	for (uint32_t i = 0; i < regs->count && mask; i++) {
		int bit = __builtin_ctzll(mask);

		mask &= mask - 1;
		fprintf(out, "%s%d:0x%" PRIx64, i ? "," : "", bit, regs->regs[i]);
	}
	fputc(']', out);
}

/* The fields after PERIOD: rare enough that most print only their size. */
static void print_sample_tail(FILE *out, const struct prf_sample *sample)
{
	uint64_t type = sample->sample_type;

	if (type & PERF_SAMPLE_READ)
		field_u64_list(out, "read", sample->read_values, sample->read_size);
	if (type & PERF_SAMPLE_CALLCHAIN)
		field_callchain(out, sample);
	if (type & PERF_SAMPLE_RAW)
		field_u64(out, "raw_size", sample->raw_size);
	if (type & PERF_SAMPLE_BRANCH_STACK)
		field_u64(out, "branches", sample->branch_nr);
	if (type & PERF_SAMPLE_REGS_USER)
		field_regs(out, "regs_user", &sample->regs_user);
	if (type & PERF_SAMPLE_STACK_USER) {
		field_u64(out, "stack_user_size", sample->stack_user_size);
		if (sample->stack_user_size)
			field_u64(out, "stack_user_dyn_size", sample->stack_user_dyn_size);
	}
	if (type & PERF_SAMPLE_WEIGHT_TYPE)
		field_u64(out, "weight", sample->weight);
	if (type & PERF_SAMPLE_DATA_SRC)
		field_hex(out, "data_src", sample->data_src);
	if (type & PERF_SAMPLE_TRANSACTION)
		field_hex(out, "transaction", sample->transaction);
	if (type & PERF_SAMPLE_REGS_INTR)
		field_regs(out, "regs_intr", &sample->regs_intr);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		field_hex(out, "phys_addr", sample->phys_addr);
	if (type & PERF_SAMPLE_CGROUP)
		field_u64(out, "cgroup", sample->cgroup);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		field_u64(out, "data_page_size", sample->data_page_size);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		field_u64(out, "code_page_size", sample->code_page_size);
	if (type & PERF_SAMPLE_AUX)
		field_u64(out, "aux_size", sample->aux_size);
}

static void print_sample(FILE *out, const struct prf_sample *sample)
{
	uint64_t type = sample->sample_type;

	if (type & PERF_SAMPLE_TIME)
		field_time(out, "time", sample->time);
	if (type & PERF_SAMPLE_CPU)
		field_u64(out, "cpu", sample->cpu);
	if (type & PERF_SAMPLE_TID) {
		field_u64(out, "pid", sample->pid);
		field_u64(out, "tid", sample->tid);
	}
	if (type & PERF_SAMPLE_IP)
		field_hex(out, "ip", sample->ip);
	field_string(out, "mode", cpumode_name(sample->misc));
	if (type & PERF_SAMPLE_PERIOD)
		field_u64(out, "period", sample->period);
	if (type & PERF_SAMPLE_ADDR)
		field_hex(out, "addr", sample->addr);
	if (type & PERF_SAMPLE_ID)
		field_u64(out, "id", sample->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		field_u64(out, "stream_id", sample->stream_id);
	print_sample_tail(out, sample);
}

/*
 * time and cpu lead every line, as for samples.  FORK, EXIT and THROTTLE
 * carry their time in the body too, which is there without sample_id_all.
 */
static void print_time_and_cpu(FILE *out, const struct prf_decoded *kernel)
{
	const struct prf_sample_id *id = &kernel->id;

	switch (kernel->type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		field_time(out, "time", kernel->task.time);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		field_time(out, "time", kernel->throttle.time);
		break;
	default:
		if (id->sample_type & PERF_SAMPLE_TIME)
			field_time(out, "time", id->time);
		break;
	}
	if (id->sample_type & PERF_SAMPLE_CPU)
		field_u64(out, "cpu", id->cpu);
}

/* "r-x" when only the usual bits are set, the number otherwise. */
static void field_prot(FILE *out, uint32_t prot)
{
	char text[4] = "---";

	if (prot & ~(uint32_t)(PROT_READ | PROT_WRITE | PROT_EXEC)) {
		field_hex(out, "prot", prot);
		return;
	}
	if (prot & PROT_READ)
		text[0] = 'r';
	if (prot & PROT_WRITE)
		text[1] = 'w';
	if (prot & PROT_EXEC)
		text[2] = 'x';
	field_string(out, "prot", text);
}

/* MMAP2 holds either the device and inode or, with MMAP_BUILD_ID, a build-id. */
static void print_mmap(FILE *out, uint32_t type, uint16_t misc,
		       const struct prf_mmap *mmap)
{
	field_u64(out, "pid", mmap->pid);
	field_u64(out, "tid", mmap->tid);
	field_string(out, "mode", cpumode_name(misc));
	field_hex(out, "start", mmap->start);
	field_hex(out, "len", mmap->length);
	field_hex(out, "pgoff", mmap->page_offset);
	if (type == PERF_RECORD_MMAP2) {
		if (mmap->has_build_id) {
			field_build_id(out, "build_id", mmap->build_id,
				       mmap->build_id_size);
		} else {
			field_u64(out, "maj", mmap->major);
			field_u64(out, "min", mmap->minor);
			field_u64(out, "ino", mmap->inode);
			field_u64(out, "ino_generation", mmap->inode_generation);
		}
		field_prot(out, mmap->prot);
		field_hex(out, "flags", mmap->flags);
	}
	field_string(out, "filename", mmap->filename);
}

static void print_task(FILE *out, const struct prf_task *task)
{
	field_u64(out, "pid", task->pid);
	field_u64(out, "ppid", task->ppid);
	field_u64(out, "tid", task->tid);
	field_u64(out, "ptid", task->ptid);
}

static void print_switch(FILE *out, uint32_t type,
			 const struct prf_switch *context_switch)
{
	field_u64(out, "out", context_switch->out);
	field_u64(out, "preempt", context_switch->preempt);
	if (type == PERF_RECORD_SWITCH_CPU_WIDE) {
		field_u64(out, "next_prev_pid", context_switch->next_prev_pid);
		field_u64(out, "next_prev_tid", context_switch->next_prev_tid);
	}
}

static void print_side_band(FILE *out, const struct dump_record *decoded)
{
	const struct prf_decoded *kernel = &decoded->kernel;

	print_time_and_cpu(out, kernel);
	switch (kernel->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		print_mmap(out, kernel->type, decoded->record->misc, &kernel->mmap);
		break;
	case PERF_RECORD_COMM:
		field_u64(out, "pid", kernel->comm.pid);
		field_u64(out, "tid", kernel->comm.tid);
		field_u64(out, "exec", kernel->comm.exec);
		field_string(out, "comm", kernel->comm.comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		print_task(out, &kernel->task);
		break;
	case PERF_RECORD_LOST:
		field_u64(out, "id", kernel->lost.id);
		field_u64(out, "lost", kernel->lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		field_u64(out, "lost", kernel->lost.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		field_u64(out, "id", kernel->throttle.id);
		field_u64(out, "stream_id", kernel->throttle.stream_id);
		break;
	case PERF_RECORD_KSYMBOL:
		field_hex(out, "addr", kernel->ksymbol.addr);
		field_u64(out, "len", kernel->ksymbol.length);
		field_u64(out, "ksym_type", kernel->ksymbol.ksym_type);
		field_hex(out, "flags", kernel->ksymbol.flags);
		field_string(out, "name", kernel->ksymbol.name);
		break;
	case PERF_RECORD_CGROUP:
		field_u64(out, "id", kernel->cgroup.id);
		field_string(out, "path", kernel->cgroup.path);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		print_switch(out, kernel->type, &kernel->context_switch);
		break;
	case PERF_RECORD_NAMESPACES:
		field_u64(out, "pid", kernel->namespaces.pid);
		field_u64(out, "tid", kernel->namespaces.tid);
		field_u64(out, "namespaces", kernel->namespaces.count);
		break;
	}
}

/* ---- printing: perfrec records ------------------------------------- */

static const struct flag_name build_id_flag_names[] = {
	{ PRF_BUILD_ID_KERNEL, "kernel" },
	{ PRF_BUILD_ID_MODULE, "module" },
};

static const struct flag_name kallsyms_flag_names[] = {
	{ PRF_KALLSYMS_HIDDEN, "hidden" },
};

static const struct flag_name jit_flag_names[] = {
	{ PRF_JIT_CUT, "cut" },
	{ PRF_JIT_RESTATED, "restated" },
};

static const char *lost_reason_name(uint32_t reason)
{
	switch (reason) {
	case PRF_LOST_WRITE_ERROR:	return "write_error";
	case PRF_LOST_RING_OVERRUN:	return "ring_overrun";
	case PRF_LOST_CPU_OFFLINE:	return "cpu_offline";
	case PRF_LOST_OFF_CPU:		return "off_cpu";
	default:			return NULL;
	}
}

static void print_build_id_record(FILE *out, const struct dump_record *decoded)
{
	const struct prf_build_id_record *record = &decoded->perfrec.build_id;

	field_s64(out, "pid", (int32_t)record->pid);	/* -1: no process */
	field_flags(out, "flags", record->flags, build_id_flag_names,
		    PRF_ARRAY_SIZE(build_id_flag_names));
	field_u64(out, "maj", record->major);
	field_u64(out, "min", record->minor);
	field_u64(out, "ino", record->inode);
	field_u64(out, "ino_generation", record->inode_generation);
	field_build_id(out, "build_id", record->build_id, record->build_id_size);
	field_string(out, "path", decoded->text);
}

static void print_kernel_module(FILE *out, const struct dump_record *decoded)
{
	const struct prf_kernel_module_record *record =
		&decoded->perfrec.kernel_module;

	field_hex(out, "start", record->start);
	field_hex(out, "len", record->size);
	field_build_id(out, "build_id", record->build_id, record->build_id_size);
	field_string(out, "name", decoded->text);
}

static void print_kernel_symbol(FILE *out, const struct dump_record *decoded)
{
	const struct prf_kernel_symbol_record *record = &decoded->perfrec.kernel_symbol;
	char type[2] = { (char)record->type, '\0' };

	field_hex(out, "start", record->start);
	field_hex(out, "size", record->size);
	field_string(out, "type", type);
	field_string(out, "name", decoded->text);
	if (*decoded->module)
		field_string(out, "module", decoded->module);
}

static void print_stats(FILE *out, const struct prf_stats_record *stats)
{
	field_time(out, "time", stats->time);
	field_u64(out, "samples", stats->samples);
	field_u64(out, "lost", stats->lost);
	field_u64(out, "lost_samples", stats->lost_samples);
	field_u64(out, "throttled", stats->throttled);
	field_u64(out, "raw_bytes", stats->raw_bytes);
	field_u64(out, "stored_bytes", stats->stored_bytes);
	field_u64(out, "dropped_records", stats->dropped_records);
	field_time(out, "cpu_user", stats->cpu_user_ns);
	field_time(out, "cpu_system", stats->cpu_system_ns);
	field_u64(out, "rss_bytes", stats->rss_bytes);
}

static void field_errno(FILE *out, const char *key, int error)
{
	const char *name = error > 0 ? strerrorname_np(error) : NULL;

	if (name)
		field_string(out, key, name);
	else
		field_s64(out, key, error);
}

static void print_lost_note(FILE *out, const struct prf_lost_note_record *note)
{
	const char *reason = lost_reason_name(note->reason);

	field_time(out, "time", note->time);
	if (reason)
		field_string(out, "reason", reason);
	else
		field_u64(out, "reason", note->reason);
	field_s64(out, "cpu", note->cpu);	/* -1: all */
	field_u64(out, "records", note->records);
	field_u64(out, "bytes", note->bytes);
	field_errno(out, "error", note->error);
}

/*
 * The header's fields, then a line per symbol: "  start=0x.. len=0x..
 * name=..", as the text has it (a line that is no symbol: text=..).
 */
static void print_jit_map(FILE *out, const struct dump_record *decoded)
{
	const struct prf_jit_map_record *record = &decoded->perfrec.jit_map;
	const char *text = decoded->text, *end = text + record->text_size;

	field_time(out, "time", record->time);
	field_u64(out, "pid", record->pid);
	field_flags(out, "flags", record->flags, jit_flag_names,
		    PRF_ARRAY_SIZE(jit_flag_names));
	field_u64(out, "file_offset", record->offset);
	field_u64(out, "size", record->text_size);
	field_u64(out, "lines", decoded->kallsyms_lines);
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t length = nl ? (size_t)(nl - text) : (size_t)(end - text);
		char line[4200], *p, *name;
		unsigned long long start, size;

		snprintf(line, sizeof(line), "%.*s", (int)(length < 4096 ? length : 4096), text);
		fputs("\n ", out);
		start = strtoull(line, &p, 16);
		if (p != line && *p == ' ' && (size = strtoull(p + 1, &name, 16), name != p + 1) &&
		    *name == ' ') {
			field_hex(out, "start", start);
			field_hex(out, "len", size);
			field_string(out, "name", name + 1);
		} else {
			field_string(out, "text", line);
		}
		text += length + 1;
	}
}

/* Its name and config, the text's size and how many fields it names ("malformed": none). */
static void print_tracepoint_format(FILE *out, const struct prf_tracepoint_format *format)
{
	struct prf_tracepoint_fields *fields = NULL;
	int err;

	field_string(out, "name", format->name);
	field_u64(out, "config", format->config);
	field_u64(out, "size", format->text_size);
	err = prf_tracepoint_fields_parse(format->text, format->text_size, &fields);
	if (err)
		field_string(out, "fields", err == -ENOMEM ? "out-of-memory" : "malformed");
	else
		field_u64(out, "fields", fields->count);
	prf_tracepoint_fields_free(fields);
}

static const struct flag_name off_cpu_flag_names[] = {
	{ PRF_OFF_CPU_WAKER, "waker" },
	{ PRF_OFF_CPU_USER_LATE, "user_late" },
	{ PRF_OFF_CPU_END_LATE, "end_late" },
};

static void print_off_cpu(FILE *out, const struct prf_off_cpu *off)
{
	field_time(out, "time", off->time);
	field_u64(out, "duration", off->duration);
	field_u64(out, "pid", off->pid);
	field_u64(out, "tid", off->tid);
	field_u64(out, "cpu", off->cpu);
	field_flags(out, "flags", off->flags, off_cpu_flag_names,
		    PRF_ARRAY_SIZE(off_cpu_flag_names));
	field_u64(out, "cgroup", off->cgroup);
	if (off->flags & PRF_OFF_CPU_WAKER) {
		field_u64(out, "waker_pid", off->waker_pid);
		field_u64(out, "waker_tid", off->waker_tid);
		field_string(out, "waker_comm", off->waker_comm);
	}
	field_u64(out, "callchain", off->callchain_nr);
	field_u64(out, "waker_callchain", off->waker_callchain_nr);
	field_u64(out, "user_regs", off->user_regs.count);
	field_u64(out, "user_stack", off->user_stack_size);
}

static void print_perfrec(FILE *out, const struct dump_record *decoded)
{
	switch (decoded->record->type) {
	case PRF_RECORD_TRACEPOINT_FORMAT:
		print_tracepoint_format(out, &decoded->tracepoint);
		break;
	case PRF_RECORD_OFF_CPU:
		print_off_cpu(out, &decoded->off_cpu);
		break;
	case PRF_RECORD_BUILD_ID:
		print_build_id_record(out, decoded);
		break;
	case PRF_RECORD_KALLSYMS:
		field_flags(out, "flags", decoded->perfrec.kallsyms.flags,
			    kallsyms_flag_names, PRF_ARRAY_SIZE(kallsyms_flag_names));
		field_u64(out, "size", decoded->perfrec.kallsyms.text_size);
		field_u64(out, "lines", decoded->kallsyms_lines);
		break;
	case PRF_RECORD_KERNEL_MODULE:
		print_kernel_module(out, decoded);
		break;
	case PRF_RECORD_KERNEL_SYMBOL:
		print_kernel_symbol(out, decoded);
		break;
	case PRF_RECORD_SNAPSHOT_BEGIN:
		field_time(out, "time", decoded->perfrec.snapshot.time);
		break;
	case PRF_RECORD_SNAPSHOT_END:
		field_time(out, "time", decoded->perfrec.snapshot.time);
		field_u64(out, "processes", decoded->perfrec.snapshot.process_count);
		break;
	case PRF_RECORD_STATS:
		print_stats(out, &decoded->perfrec.stats);
		break;
	case PRF_RECORD_LOST_NOTE:
		print_lost_note(out, &decoded->perfrec.lost_note);
		break;
	case PRF_RECORD_TASK_CGROUP:
		field_time(out, "time", decoded->perfrec.task_cgroup.time);
		field_u64(out, "pid", decoded->perfrec.task_cgroup.pid);
		field_string(out, "path", decoded->text);
		break;
	case PRF_RECORD_NSPID:
		field_time(out, "time", decoded->perfrec.nspid.time);
		field_u64(out, "pid", decoded->perfrec.nspid.pid);
		field_u64(out, "tid", decoded->perfrec.nspid.tid);
		field_u64(out, "ns_pid", decoded->perfrec.nspid.ns_pid);
		field_u64(out, "ns_tid", decoded->perfrec.nspid.ns_tid);
		field_u64(out, "ns_level", decoded->perfrec.nspid.ns_level);
		break;
	case PRF_RECORD_JIT_MAP:
	case PRF_RECORD_JIT_DUMP:
		print_jit_map(out, decoded);
		break;
	}
}

/* ---- the line ------------------------------------------------------ */

/* Short words rather than strerror(3) text, to keep one field one token. */
static const char *decode_error_name(int status)
{
	switch (status) {
	case -EBADMSG:		return "malformed";
	case -EOPNOTSUPP:	return "unsupported-layout";
	case -ENOENT:		return "no-event";
	default:		return "undecodable";
	}
}

void dump_record_print(FILE *out, const struct prf_chunk *chunk,
		       const struct dump_record *decoded)
{
	const struct prf_record *record = decoded->record;

	fprintf(out, "chunk=%" PRIu64 " offset=%" PRIu64, chunk->sequence,
		record->offset);
	if (!decoded->name) {
		fprintf(out, " type=%" PRIu32 " size=%zu\n", record->type,
			record->size);
		return;
	}
	fprintf(out, " %s", decoded->name);
	if (decoded->event && decoded->name_event)
		field_string(out, "event", decoded->event->name);
	if (decoded->status <= 0) {
		/* A type known by name only, or one that did not decode. */
		field_u64(out, "size", record->size);
		if (decoded->status < 0)
			field_string(out, "error", decode_error_name(decoded->status));
	} else if (record->type >= PRF_RECORD_BASE) {
		print_perfrec(out, decoded);
	} else if (record->type == PERF_RECORD_SAMPLE) {
		print_sample(out, &decoded->kernel.sample);
	} else {
		print_side_band(out, decoded);
	}
	fputc('\n', out);
}
