/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1: the side-band of one file (maps, forks, names, build-ids,
 * kernel symbols, statistics) collected for the replay, and its damage
 * told once.  Sample chunks are checked against their checksums only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "intern.h"
#include "session-internal.h"
#include "symbolize.h"

/* ---- build-ids ------------------------------------------------------ */

static int compare_build_ids(const void *a, const void *b)
{
	const struct build_id_entry *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

void session_sort_build_ids(struct session *s)
{
	if (s->build_id_count)
		qsort(s->build_ids, s->build_id_count, sizeof(*s->build_ids), compare_build_ids);
}

static const struct build_id_entry *build_id_find(const struct session *s,
						  const struct sideband *m)
{
	struct build_id_entry key = { .host = m->host, .major = m->major,
				      .minor = m->minor, .inode = m->inode };
	const struct build_id_entry *found;

	if (m->inode && s->build_id_count) {
		found = bsearch(&key, s->build_ids, s->build_id_count,
				sizeof(*s->build_ids), compare_build_ids);
		if (found)
			return found;
	}
	/* The kernel's build-id MMAP2 carries no inode: match the path. */
	for (size_t i = 0; i < s->build_id_count; i++)
		if (s->build_ids[i].path == m->name && s->build_ids[i].host == m->host)
			return &s->build_ids[i];
	return NULL;
}

struct dso *session_mapping_dso(struct session *s, const struct sideband *m)
{
	const struct build_id_entry *known;

	if (m->build_id_size)
		return symbolizer_dso(s->options.symbolizer, m->name, m->build_id,
				      m->build_id_size);
	known = build_id_find(s, m);
	if (known && known->size)
		return symbolizer_dso(s->options.symbolizer, m->name, known->build_id,
				      known->size);
	return symbolizer_dso(s->options.symbolizer, m->name, NULL, 0);
}

/* ---- the records ---------------------------------------------------- */

static void sideband_warn(struct sideband_part *part, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

struct pass_one {
	struct session *s;
	struct sideband_part *part;	/* what the file brings, merged afterwards */
	struct prf_reader *reader;
	size_t file_index;
	uint32_t host;
	int in_snapshot;
	uint64_t position;
	uint64_t stats_dropped;
	uint64_t taken, limit;		/* side-band records, SIDEBAND_* */
	int full;			/* the limit or memory ran out: no more */
	uint64_t jit_room;		/* JIT symbol lines, up to limit */
	int jit_full;
	/* A perf.data reader's note (offset 0: of the file) and first damage */
	char note[256], first_damage[256];
};

/* Whether one more side-band record may be taken; says once why not. */
static int room_for_one(struct pass_one *p)
{
	struct input *in = &p->s->inputs[p->file_index];

	if (p->full)
		return 0;
	if (p->taken < p->limit) {
		p->taken++;
		return 1;
	}
	p->full = 1;
	in->damaged = 1;
	sideband_warn(p->part, "%s: more than %llu maps, forks, names and build-ids for its %s: "
		     "a hostile or broken file; the rest of them are skipped",
		     in->path, (unsigned long long)p->limit,
		     p->limit == SIDEBAND_MAX ? "limit" : "size");
	return 0;
}

static void out_of_memory(struct pass_one *p)
{
	if (p->full)
		return;
	p->full = 1;
	p->s->inputs[p->file_index].damaged = 1;
	sideband_warn(p->part, "%s: out of memory for its maps, forks and names; the rest are skipped",
		     p->s->inputs[p->file_index].path);
}

static int sideband_push(struct pass_one *p, const struct sideband *entry)
{
	struct sideband_part *s = p->part;

	if (GROW(s->sideband, s->sideband_capacity, s->sideband_count + 1) < 0) {
		out_of_memory(p);
		return -ENOMEM;
	}
	s->sideband[s->sideband_count] = *entry;
	s->sideband[s->sideband_count].order = ((uint64_t)p->file_index << 40) | p->position++;
	s->sideband[s->sideband_count].snapshot = (uint8_t)p->in_snapshot;
	s->sideband[s->sideband_count].host = p->host;
	s->sideband_count++;
	return 0;
}

static void take_kernel_record(struct pass_one *p, const struct prf_record *record)
{
	struct session *s = p->s;
	const struct perf_event_attr *attr;
	const struct prf_event *event = prf_reader_event_for(p->reader, record->data,
							     record->size);
	struct prf_decoded d;
	struct sideband entry = { 0 };

	attr = event ? &event->attr : NULL;
	if (record->type == PERF_RECORD_SAMPLE) {
		p->part->samples_total++;
		return;
	}
	if ((record->type == PERF_RECORD_MMAP || record->type == PERF_RECORD_MMAP2 ||
	     record->type == PERF_RECORD_FORK || record->type == PERF_RECORD_COMM ||
	     record->type == PERF_RECORD_CGROUP) &&
	    !room_for_one(p))
		return;
	if (prf_decode_record(attr, record->data, record->size, &d) != 1)
		return;
	entry.time = d.id.time;
	switch (record->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (d.mmap.pid == UINT32_MAX)
			return;		/* the kernel: resolved through kallsyms */
		entry.kind = SIDEBAND_MMAP;
		entry.pid = d.mmap.pid;
		entry.tid = d.mmap.tid;
		entry.start = d.mmap.start;
		entry.length = d.mmap.length;
		entry.pgoff = d.mmap.page_offset;
		entry.major = d.mmap.major;
		entry.minor = d.mmap.minor;
		entry.inode = d.mmap.inode;
		if (d.mmap.has_build_id && d.mmap.build_id_size <= PRF_BUILD_ID_MAX) {
			entry.build_id_size = d.mmap.build_id_size;
			memcpy(entry.build_id, d.mmap.build_id, d.mmap.build_id_size);
		}
		entry.name = string_intern(s->strings, d.mmap.filename);
		break;
	case PERF_RECORD_FORK:
		entry.kind = SIDEBAND_FORK;
		entry.time = d.task.time;
		entry.pid = d.task.pid;
		entry.ppid = d.task.ppid;
		entry.ptid = d.task.ptid;
		entry.tid = d.task.tid;
		break;
	case PERF_RECORD_COMM:
		entry.kind = SIDEBAND_COMM;
		entry.pid = d.comm.pid;
		entry.tid = d.comm.tid;
		entry.exec = (uint8_t)d.comm.exec;
		entry.name = string_intern(s->strings, d.comm.comm);
		break;
	case PERF_RECORD_CGROUP:
		if (session_add_cgroup(s, p->host, ((uint64_t)p->file_index << 40) | p->position++,
				       d.cgroup.id, string_intern(s->strings, d.cgroup.path)) < 0)
			out_of_memory(p);
		return;
	case PERF_RECORD_LOST:
		p->part->lost += d.lost.lost;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		p->part->lost += d.lost.lost;
		return;
	default:
		return;
	}
	if (entry.name || entry.kind == SIDEBAND_FORK)
		sideband_push(p, &entry);
}

static void take_build_id(struct pass_one *p, const struct prf_record *record)
{
	struct prf_build_id_record r;
	const char *path = (const char *)record->data + sizeof(r);
	size_t room = record->size - sizeof(r);
	struct build_id_entry e = { 0 };
	struct sideband_part *s = p->part;

	if (record->size < sizeof(r))
		return;
	memcpy(&r, record->data, sizeof(r));
	if (r.build_id_size > PRF_BUILD_ID_MAX || !memchr(path, '\0', room) ||
	    !room_for_one(p))
		return;
	e.host = p->host;
	e.major = r.major;
	e.minor = r.minor;
	e.inode = r.inode;
	e.size = r.build_id_size;
	memcpy(e.build_id, r.build_id, r.build_id_size);
	e.path = string_intern(p->s->strings, path);
	if (GROW(s->build_ids, s->build_id_capacity, s->build_id_count + 1) < 0) {
		out_of_memory(p);
		return;
	}
	s->build_ids[s->build_id_count++] = e;
}

/* perfrec-format(5), "cgroups and namespaces". */
static void take_task_cgroup(struct pass_one *p, const struct prf_record *record)
{
	struct prf_task_cgroup_record r;
	const char *path = (const char *)record->data + sizeof(r);
	struct sideband entry = { .kind = SIDEBAND_CGROUP };

	if (record->size <= sizeof(r))
		return;
	memcpy(&r, record->data, sizeof(r));
	if (!memchr(path, '\0', record->size - sizeof(r)) || !room_for_one(p))
		return;
	entry.time = r.time;
	entry.pid = r.pid;
	entry.name = string_intern(p->s->strings, path);
	if (entry.name)
		sideband_push(p, &entry);
}

static void take_nspid(struct pass_one *p, const struct prf_record *record)
{
	struct prf_nspid_record r;
	struct sideband entry = { .kind = SIDEBAND_NSPID };

	if (record->size < sizeof(r) || !room_for_one(p))
		return;
	memcpy(&r, record->data, sizeof(r));
	entry.time = r.time;
	entry.pid = r.pid;
	entry.tid = r.tid;
	entry.ppid = r.ns_pid;
	entry.ptid = r.ns_tid;
	sideband_push(p, &entry);
}

static void take_jit(struct pass_one *p, const struct prf_record *record)
{
	struct input *in = &p->s->inputs[p->file_index];
	int ret;

	if (p->full || p->jit_full)
		return;
	ret = session_jit_take(p->s, p->host, ((uint64_t)p->file_index << 40) | p->position++,
			       &p->jit_room, record);
	if (ret == -E2BIG) {
		p->jit_full = 1;
		in->damaged = 1;
		sideband_warn(p->part, "%s: more than %llu JIT symbols for its size: "
			      "a hostile or broken file; the rest are skipped",
			      in->path, (unsigned long long)p->limit);
	} else if (ret < 0) {
		out_of_memory(p);
	}
}

static void take_kallsyms(struct pass_one *p, const struct prf_record *record)
{
	struct prf_kallsyms_record r;

	size_t *claim = &p->s->kernel_claims[p->host];
	size_t seen = __atomic_load_n(claim, __ATOMIC_ACQUIRE);

	/*
	 * The symbolizer is not for threads: session_sideband_merge() gives it
	 * the table of the first file of the host that has one.  A file after
	 * one that has it keeps no copy (a directory of a week of files would
	 * hold a thousand).
	 */
	if (record->size < sizeof(r) || p->part->kallsyms || seen < p->file_index)
		return;
	while (seen > p->file_index &&
	       !__atomic_compare_exchange_n(claim, &seen, p->file_index, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
	if (seen < p->file_index)
		return;
	memcpy(&r, record->data, sizeof(r));
	if (r.text_size > record->size - sizeof(r))
		return;
	p->part->kallsyms = malloc(r.text_size + 1);
	if (!p->part->kallsyms)
		return;
	memcpy(p->part->kallsyms, (const char *)record->data + sizeof(r), (size_t)r.text_size);
	p->part->kallsyms_size = (size_t)r.text_size;
}

/*
 * A tracepoint's format, for its samples' fields: the first for each
 * config is kept; one that does not parse is said once and its samples
 * show no fields.
 */
static void take_tracepoint_format(struct pass_one *p, const struct prf_record *record)
{
	struct input *in = &p->s->inputs[p->file_index];
	struct prf_tracepoint_format format;
	struct prf_tracepoint_fields *fields;
	int err;

	err = prf_decode_tracepoint_format(record->data, record->size, &format);
	if (err) {
		sideband_warn(p->part, "%s: a TRACEPOINT_FORMAT record that does not decode; skipped",
			      in->path);
		return;
	}
	for (size_t i = 0; i < in->tracepoint_count; i++)
		if (in->tracepoints[i].config == format.config)
			return;
	if (in->tracepoint_count == INPUT_TRACEPOINTS_MAX)
		return;
	err = prf_tracepoint_fields_parse(format.text, format.text_size, &fields);
	if (err == -ENOMEM) {
		out_of_memory(p);
		return;
	}
	if (err) {
		sideband_warn(p->part, "%s: the format of tracepoint config %llu does not parse (%s); "
			      "its samples show no fields", in->path,
			      (unsigned long long)format.config, strerror(-err));
		return;
	}
	if (GROW(in->tracepoints, in->tracepoint_capacity, in->tracepoint_count + 1) < 0) {
		prf_tracepoint_fields_free(fields);
		out_of_memory(p);
		return;
	}
	in->tracepoints[in->tracepoint_count++] = (struct input_tracepoint){ format.config, fields };
}

static void take_perfrec_record(struct pass_one *p, const struct prf_record *record)
{
	switch (record->type) {
	case PRF_RECORD_SNAPSHOT_BEGIN:
		p->in_snapshot = 1;
		break;
	case PRF_RECORD_SNAPSHOT_END:
		p->in_snapshot = 0;
		break;
	case PRF_RECORD_BUILD_ID:
		take_build_id(p, record);
		break;
	case PRF_RECORD_KALLSYMS:
		take_kallsyms(p, record);
		break;
	case PRF_RECORD_TASK_CGROUP:
		take_task_cgroup(p, record);
		break;
	case PRF_RECORD_NSPID:
		take_nspid(p, record);
		break;
	case PRF_RECORD_KERNEL_SYMBOL:
		if (room_for_one(p) &&
		    session_take_kernel_symbol(p->s, p->host,
					       ((uint64_t)p->file_index << 40) | p->position++,
					       record) < 0)
			out_of_memory(p);
		break;
	case PRF_RECORD_JIT_MAP:
	case PRF_RECORD_JIT_DUMP:
		take_jit(p, record);
		break;
	case PRF_RECORD_OFF_CPU:
		/* Pass 2 reads them as samples; counted here for the summary. */
		p->part->off_cpu_total++;
		if (record->size >= sizeof(struct prf_off_cpu_record)) {
			struct prf_off_cpu_record r;

			memcpy(&r, record->data, sizeof(r));
			if (r.user_stack_size && r.user_regs_abi)
				p->part->off_cpu_stacks = 1;
		}
		break;
	case PRF_RECORD_TRACEPOINT_FORMAT:
		take_tracepoint_format(p, record);
		break;
	case PRF_RECORD_LOST_NOTE:
		if (record->size >= sizeof(struct prf_lost_note_record)) {
			struct prf_lost_note_record r;

			memcpy(&r, record->data, sizeof(r));
			if (r.reason == PRF_LOST_OFF_CPU &&
			    r.records <= UINT64_MAX - p->part->off_cpu_lost)
				p->part->off_cpu_lost += r.records;
		}
		break;
	case PRF_RECORD_STATS:
		if (record->size >= sizeof(struct prf_stats_record)) {
			struct prf_stats_record r;

			memcpy(&r, record->data, sizeof(r));
			if (r.dropped_records > p->stats_dropped)
				p->stats_dropped = r.dropped_records;
		}
		break;
	default:
		break;
	}
}

static void note_time(struct sideband_part *s, uint64_t first, uint64_t last)
{
	if (first && (!s->start_ns || first < s->start_ns))
		s->start_ns = first;
	if (last > s->end_ns)
		s->end_ns = last;
}

static void take_diag(void *context, uint64_t offset, const char *message)
{
	struct pass_one *p = context;
	char *slot = offset ? p->first_damage : p->note;

	if (!slot[0])
		snprintf(slot, sizeof(p->note), "%s", message);
}

/* A reader's message without the path it begins with. */
static const char *without_path(const char *message, const char *path)
{
	size_t n = strlen(path);

	return strncmp(message, path, n) == 0 && strncmp(message + n, ": ", 2) == 0 ?
	       message + n + 2 : message;
}

/*
 * A perf.data's damage is said with its first cause (a record of size 0,
 * a compressed record that inflates past its bound), its note (data size
 * 0, its feature sections cut off: no host facts, no event names) on a
 * line of its own.
 */
static void report_damage(struct sideband_part *s, struct input *in,
			  const struct prf_read_stats *stats, const struct pass_one *p)
{
	const char *damage = in->perf_data ? without_path(p->first_damage, in->path) : "";
	char what[512] = "";
	size_t n = 0;

	if (stats->damaged_chunks)
		n += (size_t)snprintf(what + n, sizeof(what) - n,
				      "skipped %llu damaged chunk%s (%llu bytes)%s%s",
				      (unsigned long long)stats->damaged_chunks,
				      stats->damaged_chunks == 1 ? "" : "s",
				      (unsigned long long)stats->skipped_bytes, *damage ? ": " : "",
				      damage);
	if (stats->truncated_bytes && n < sizeof(what))
		n += (size_t)snprintf(what + n, sizeof(what) - n, "%scut short: discarded %llu bytes",
				      n ? "; " : "", (unsigned long long)stats->truncated_bytes);
	in->damaged_chunks = stats->damaged_chunks;
	if (in->perf_data && p->note[0])
		sideband_warn(s, "%s: %s", in->path, without_path(p->note, in->path));
	if (n) {
		in->damaged = 1;
		sideband_warn(s, "%s: %s; read the rest", in->path, what);
	} else if (!stats->complete) {
		/* Whole chunks to its end and no trailer: perfrecd's current file, or a crashed one's. */
		in->incomplete = 1;
	}
}

int session_read_sideband(struct session *s, size_t index, struct sideband_part *part)
{
	struct input *in = &s->inputs[index];
	struct pass_one p = { .s = s, .part = part, .file_index = index };
	struct prf_error *error = &part->error;
	struct prf_read_stats stats;
	struct prf_chunk chunk;
	struct stat st;
	int ret;

	ret = prf_reader_open_fd(&p.reader, in->fd, in->path, error);
	if (ret < 0)
		return ret;
	prf_reader_set_diag(p.reader, take_diag, &p);
	p.host = in->host;
	p.limit = SIDEBAND_MAX;
	if (fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < SIDEBAND_MAX / SIDEBAND_PER_BYTE)
		p.limit = (uint64_t)st.st_size * SIDEBAND_PER_BYTE;
	if (p.limit < SIDEBAND_FLOOR)
		p.limit = SIDEBAND_FLOOR;
	p.jit_room = p.limit;
	/* The samples are pass 2's: their chunks (perfrec 1.1 files) are not decompressed here. */
	prf_reader_skip_samples(p.reader, 1);
	while ((ret = prf_reader_next_chunk(p.reader, &chunk)) == 1) {
		struct prf_record record;

		note_time(part, chunk.first_time, chunk.last_time);
		if ((chunk.flags & PRF_CHUNK_SAMPLES) && !chunk.size)
			part->samples_total += chunk.record_count;
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			if (record.type >= PRF_RECORD_BASE)
				take_perfrec_record(&p, &record);
			else
				take_kernel_record(&p, &record);
		}
	}
	if (ret < 0) {
		error->code = ret;
		snprintf(error->message, sizeof(error->message), "%s: %s", in->path,
			 strerror(-ret));
		prf_reader_close(p.reader);
		return ret;
	}
	prf_reader_get_stats(p.reader, &stats);
	part->dropped = stats.trailer.dropped_records > p.stats_dropped ?
			stats.trailer.dropped_records : p.stats_dropped;
	report_damage(part, in, &stats, &p);
	prf_reader_close(p.reader);
	return 0;
}

/* A warning of pass 1, said when its file is merged. */
static void sideband_warn(struct sideband_part *part, const char *format, ...)
{
	va_list ap;

	if (part->warning_count == SIDEBAND_PART_WARNINGS)
		return;
	va_start(ap, format);
	vsnprintf(part->warnings[part->warning_count++], sizeof(part->warnings[0]), format, ap);
	va_end(ap);
}

static int load_nomem(struct prf_error *error, const char *path)
{
	error->code = -ENOMEM;
	snprintf(error->message, sizeof(error->message), "%s: %s", path, strerror(ENOMEM));
	return -ENOMEM;
}

int session_sideband_merge(struct session *s, size_t index, struct sideband_part *part,
			   struct prf_error *error)
{
	struct input *in = &s->inputs[index];
	int ret = 0;

	for (size_t i = 0; i < part->warning_count; i++)
		session_warn(s, "%s", part->warnings[i]);
	if (part->error.code < 0) {
		*error = part->error;
		ret = part->error.code;
		goto out;
	}
	/* A file too hostile to read whole is damaged, trailer or not. */
	if (in->damaged)
		in->incomplete = 0;
	if (in->incomplete && s->options.note)
		s->options.note(s->options.note_context,
				"%s: no trailer: still being written, or its writer stopped before "
				"closing it; the samples so far are read", in->path);
	if (part->kallsyms && !s->kernels[in->host])
		s->kernels[in->host] = symbolizer_kernel(s->options.symbolizer, part->kallsyms,
							 part->kallsyms_size, NULL, 0);
	if (GROW(s->sideband, s->sideband_capacity, s->sideband_count + part->sideband_count) < 0 ||
	    GROW(s->build_ids, s->build_id_capacity, s->build_id_count + part->build_id_count) < 0) {
		ret = load_nomem(error, in->path);
		goto out;
	}
	if (part->sideband_count)
		memcpy(s->sideband + s->sideband_count, part->sideband,
		       part->sideband_count * sizeof(*part->sideband));
	s->sideband_count += part->sideband_count;
	if (part->build_id_count)
		memcpy(s->build_ids + s->build_id_count, part->build_ids,
		       part->build_id_count * sizeof(*part->build_ids));
	s->build_id_count += part->build_id_count;
	s->facts.samples_total += part->samples_total;
	s->facts.off_cpu_total += part->off_cpu_total;
	if (part->off_cpu_lost <= UINT64_MAX - s->facts.off_cpu_lost)
		s->facts.off_cpu_lost += part->off_cpu_lost;
	s->facts.user_stacks |= part->off_cpu_stacks;
	s->facts.lost += part->lost;
	s->facts.dropped += part->dropped;
	if (part->start_ns && (!s->facts.start_ns || part->start_ns < s->facts.start_ns))
		s->facts.start_ns = part->start_ns;
	if (part->end_ns > s->facts.end_ns)
		s->facts.end_ns = part->end_ns;
out:
	free(part->sideband);
	free(part->build_ids);
	free(part->kallsyms);
	memset(part, 0, sizeof(*part));
	return ret;
}
