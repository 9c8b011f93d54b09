/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay.  Two passes over the inputs: the first collects the side-band
 * (maps, names, build-ids, kernel symbols) of every file, sorts it by
 * time and rebuilds each process's address space as a timeline; the
 * second streams the samples, which then resolve against the maps valid
 * at their own timestamps, whatever order the CPUs' rings were drained in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "intern.h"
#include "session.h"
#include "symbolize.h"

#define NO_END UINT64_MAX

struct map {
	uint64_t start, end, pgoff;
	uint64_t from, to;		/* valid for from <= time < to */
	struct dso *dso;
};

struct name_change {
	uint64_t time;
	uint32_t tid;
	const char *comm;
};

struct process {
	uint32_t pid;
	uint64_t born;
	struct map *maps;
	size_t map_count, map_capacity;
	uint64_t longest_map;
	uint64_t *changes;		/* times the live maps change, sorted, unique */
	size_t change_count;
	struct name_change *names;
	size_t name_count, name_capacity;
	struct process *older;		/* an earlier process with this pid */
	struct process *next_in_table;
};

enum sideband_kind { SIDEBAND_MMAP, SIDEBAND_FORK, SIDEBAND_COMM };

struct sideband {
	uint64_t time;
	uint64_t order;			/* file and position: ties keep file order */
	uint8_t kind;
	uint8_t snapshot;
	uint8_t exec;
	uint8_t build_id_size;
	uint16_t host;
	uint32_t pid, tid, ppid, ptid;
	uint64_t start, length, pgoff;
	uint32_t major, minor;
	uint64_t inode;
	const char *name;		/* file name or comm, interned */
	uint8_t build_id[PRF_BUILD_ID_MAX];
};

struct build_id_entry {
	uint16_t host;
	uint32_t major, minor;
	uint64_t inode;
	const char *path;		/* interned: also looked up by path */
	uint8_t size;
	uint8_t build_id[PRF_BUILD_ID_MAX];
};

struct input {
	char *path;
	uint64_t start_ns;
	uint16_t host;
	int damaged;
	uint64_t damaged_chunks;	/* as pass 1 found them */
	int samples_damage_told;
};

struct session {
	struct session_options options;
	struct string_table *strings;

	struct input *inputs;
	size_t input_count, input_capacity;
	const char **input_names;

	struct sideband *sideband;
	size_t sideband_count, sideband_capacity;
	struct build_id_entry *build_ids;
	size_t build_id_count, build_id_capacity;

	struct process **table;		/* by pid: the newest process */
	size_t table_capacity;

	const char *hosts[64];
	size_t host_count;
	struct dso *kernels[64];	/* by host */

	struct session_summary facts;	/* samples_total counted, samples not */
	char first_event[256];
	char sampling[64];
};

void session_warn(struct session *s, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (!s->options.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	s->options.warn(s->options.warn_context, message);
}

static int grow(void **array, size_t *capacity, size_t need, size_t element)
{
	size_t n = *capacity ? *capacity : 16;
	void *grown;

	if (need <= *capacity)
		return 0;
	while (n < need)
		n *= 2;
	grown = realloc(*array, n * element);
	if (!grown)
		return -ENOMEM;
	*array = grown;
	*capacity = n;
	return 0;
}

#define GROW(array, capacity, need) \
	grow((void **)&(array), &(capacity), (need), sizeof(*(array)))

int session_create(struct session **out, const struct session_options *options)
{
	struct session *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->options = *options;
	s->strings = string_table_new();
	s->table_capacity = 4096;
	s->table = calloc(s->table_capacity, sizeof(*s->table));
	if (!s->strings || !s->table) {
		session_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

static void process_free(struct process *p)
{
	while (p) {
		struct process *older = p->older;

		free(p->maps);
		free(p->changes);
		free(p->names);
		free(p);
		p = older;
	}
}

void session_free(struct session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->table_capacity && s->table; i++) {
		struct process *p = s->table[i];

		while (p) {
			struct process *next = p->next_in_table;

			process_free(p);
			p = next;
		}
	}
	for (size_t i = 0; i < s->input_count; i++)
		free(s->inputs[i].path);
	free(s->inputs);
	free(s->input_names);
	free(s->sideband);
	free(s->build_ids);
	free(s->table);
	string_table_free(s->strings);
	free(s);
}

struct string_table *session_strings(struct session *s)
{
	return s->strings;
}

/* ---- inputs --------------------------------------------------------- */

static int add_file(struct session *s, const char *path)
{
	if (GROW(s->inputs, s->input_capacity, s->input_count + 1) < 0)
		return -ENOMEM;
	s->inputs[s->input_count] = (struct input){ .path = strdup(path) };
	if (!s->inputs[s->input_count].path)
		return -ENOMEM;
	s->input_count++;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_directory(struct session *s, const char *path, struct prf_error *error)
{
	DIR *dir = opendir(path);
	struct dirent *entry;
	char **names = NULL;
	size_t count = 0, capacity = 0;
	int ret = 0;

	if (!dir)
		goto fail;
	while ((entry = readdir(dir))) {
		size_t n = strlen(entry->d_name);

		if (n < 5 || strcmp(entry->d_name + n - 4, ".prf") != 0)
			continue;
		if (GROW(names, capacity, count + 1) < 0 ||
		    !(names[count] = malloc(strlen(path) + n + 2))) {
			ret = -ENOMEM;
			break;
		}
		sprintf(names[count++], "%s/%s", path, entry->d_name);
	}
	closedir(dir);
	if (count)
		qsort(names, count, sizeof(*names), compare_names);
	for (size_t i = 0; i < count; i++) {
		if (!ret)
			ret = add_file(s, names[i]);
		free(names[i]);
	}
	free(names);
	if (!ret && !count) {
		error->code = -ENOENT;
		snprintf(error->message, sizeof(error->message), "%s: no .prf files in this directory", path);
		return -ENOENT;
	}
	return ret;
fail:
	error->code = -errno;
	snprintf(error->message, sizeof(error->message), "%s: %s", path, strerror(errno));
	return error->code;
}

int session_add_input(struct session *s, const char *path, struct prf_error *error)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		error->code = -errno;
		snprintf(error->message, sizeof(error->message), "%s: %s", path, strerror(errno));
		return error->code;
	}
	if (S_ISDIR(st.st_mode))
		return add_directory(s, path, error);
	return add_file(s, path);
}

/* ---- processes ------------------------------------------------------ */

static struct process **table_slot(struct session *s, uint32_t pid)
{
	struct process **slot = &s->table[hash_mix(pid) & (s->table_capacity - 1)];

	while (*slot && (*slot)->pid != pid)
		slot = &(*slot)->next_in_table;
	return slot;
}

static struct process *process_current(struct session *s, uint32_t pid)
{
	return *table_slot(s, pid);
}

/* A new process takes the pid's place in the table; the old one stays. */
static struct process *process_new(struct session *s, uint32_t pid, uint64_t born)
{
	struct process **slot = table_slot(s, pid);
	struct process *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->born = born;
	if (*slot) {
		p->older = *slot;
		p->next_in_table = (*slot)->next_in_table;
		(*slot)->next_in_table = NULL;
	}
	*slot = p;
	return p;
}

static struct process *process_get(struct session *s, uint32_t pid)
{
	struct process *p = process_current(s, pid);

	return p ? p : process_new(s, pid, 0);
}

static int map_add(struct process *p, const struct map *m)
{
	if (GROW(p->maps, p->map_capacity, p->map_count + 1) < 0)
		return -ENOMEM;
	p->maps[p->map_count++] = *m;
	return 0;
}

static int map_live(const struct map *m, uint64_t time)
{
	return m->from <= time && time < m->to;
}

/* As the kernel does: a new mapping replaces whatever it overlaps. */
static void maps_punch(struct process *p, uint64_t start, uint64_t end, uint64_t time)
{
	size_t count = p->map_count;

	for (size_t i = 0; i < count; i++) {
		struct map m = p->maps[i];

		if (!map_live(&m, time) || m.end <= start || m.start >= end)
			continue;
		p->maps[i].to = time;
		if (m.start < start)
			map_add(p, &(struct map){ m.start, start, m.pgoff, time, m.to, m.dso });
		if (m.end > end)
			map_add(p, &(struct map){ end, m.end, m.pgoff + (end - m.start),
						  time, m.to, m.dso });
	}
}

static void maps_end_all(struct process *p, uint64_t time)
{
	for (size_t i = 0; i < p->map_count; i++)
		if (map_live(&p->maps[i], time))
			p->maps[i].to = time;
}

static void name_add(struct process *p, uint64_t time, uint32_t tid, const char *comm)
{
	if (GROW(p->names, p->name_capacity, p->name_count + 1) < 0)
		return;
	p->names[p->name_count++] = (struct name_change){ time, tid, comm };
}

/* ---- build-ids ------------------------------------------------------ */

static void build_id_remember(struct session *s, const struct build_id_entry *e)
{
	if (GROW(s->build_ids, s->build_id_capacity, s->build_id_count + 1) == 0)
		s->build_ids[s->build_id_count++] = *e;
}

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

static struct dso *mapping_dso(struct session *s, const struct sideband *m)
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

/* ---- pass 1: side-band ---------------------------------------------- */

struct pass_one {
	struct session *s;
	struct prf_reader *reader;
	size_t file_index;
	uint16_t host;
	int in_snapshot;
	uint64_t position;
	uint64_t stats_dropped;
};

static int sideband_push(struct pass_one *p, const struct sideband *entry)
{
	struct session *s = p->s;

	if (GROW(s->sideband, s->sideband_capacity, s->sideband_count + 1) < 0)
		return -ENOMEM;
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
		s->facts.samples_total++;
		return;
	}
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
	case PERF_RECORD_LOST:
		s->facts.lost += d.lost.lost;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		s->facts.lost += d.lost.lost;
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

	if (record->size < sizeof(r))
		return;
	memcpy(&r, record->data, sizeof(r));
	if (r.build_id_size > PRF_BUILD_ID_MAX || !memchr(path, '\0', room))
		return;
	e.host = p->host;
	e.major = r.major;
	e.minor = r.minor;
	e.inode = r.inode;
	e.size = r.build_id_size;
	memcpy(e.build_id, r.build_id, r.build_id_size);
	e.path = string_intern(p->s->strings, path);
	build_id_remember(p->s, &e);
}

static void take_kallsyms(struct pass_one *p, const struct prf_record *record)
{
	struct prf_kallsyms_record r;

	if (record->size < sizeof(r) || p->s->kernels[p->host])
		return;
	memcpy(&r, record->data, sizeof(r));
	if (r.text_size > record->size - sizeof(r))
		return;
	p->s->kernels[p->host] = symbolizer_kernel(p->s->options.symbolizer,
						   (const char *)record->data + sizeof(r),
						   (size_t)r.text_size, NULL, 0);
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

static uint16_t host_index(struct session *s, const char *hostname)
{
	for (size_t i = 0; i < s->host_count; i++)
		if (strcmp(s->hosts[i], hostname) == 0)
			return (uint16_t)i;
	if (s->host_count == sizeof(s->hosts) / sizeof(s->hosts[0]))
		return (uint16_t)(s->host_count - 1);
	s->hosts[s->host_count] = string_intern(s->strings, hostname);
	return (uint16_t)s->host_count++;
}

static void note_file_facts(struct session *s, const struct prf_file_info *info)
{
	if (s->facts.hostname)
		return;
	s->facts.hostname = string_intern(s->strings, info->hostname);
	s->facts.kernel_release = string_intern(s->strings, info->kernel_release);
	s->facts.machine = string_intern(s->strings, info->machine);
	s->facts.realtime_offset_ns = info->realtime_offset_ns;
	if (info->event_count) {
		const struct perf_event_attr *attr = &info->events[0].attr;

		snprintf(s->first_event, sizeof(s->first_event), "%s", info->events[0].name);
		s->facts.event = s->first_event;
		s->facts.sampling = s->sampling;
		if (attr->freq)
			snprintf(s->sampling, sizeof(s->sampling), "%llu Hz",
				 (unsigned long long)attr->sample_freq);
		else
			snprintf(s->sampling, sizeof(s->sampling), "period %llu",
				 (unsigned long long)attr->sample_period);
	}
}

static void note_time(struct session *s, uint64_t first, uint64_t last)
{
	if (first && (!s->facts.start_ns || first < s->facts.start_ns))
		s->facts.start_ns = first;
	if (last > s->facts.end_ns)
		s->facts.end_ns = last;
}

static void report_damage(struct session *s, struct input *in,
			  const struct prf_read_stats *stats)
{
	char what[512] = "";
	size_t n = 0;

	if (stats->damaged_chunks)
		n += (size_t)snprintf(what + n, sizeof(what) - n,
				      "skipped %llu damaged chunk%s (%llu bytes)",
				      (unsigned long long)stats->damaged_chunks,
				      stats->damaged_chunks == 1 ? "" : "s",
				      (unsigned long long)stats->skipped_bytes);
	if (stats->truncated_bytes && n < sizeof(what))
		n += (size_t)snprintf(what + n, sizeof(what) - n, "%scut short: discarded %llu bytes",
				      n ? "; " : "", (unsigned long long)stats->truncated_bytes);
	in->damaged_chunks = stats->damaged_chunks;
	if (n) {
		in->damaged = 1;
		session_warn(s, "%s: %s; read the rest", in->path, what);
	}
}

static int read_sideband(struct session *s, size_t index, struct prf_error *error)
{
	struct input *in = &s->inputs[index];
	struct pass_one p = { .s = s, .file_index = index };
	struct prf_read_stats stats;
	struct prf_chunk chunk;
	int ret;

	ret = prf_reader_open(&p.reader, in->path, error);
	if (ret < 0)
		return ret;
	p.host = in->host;
	/* The samples are pass 2's: their chunks (perfrec 1.1 files) are not decompressed here. */
	prf_reader_skip_samples(p.reader, 1);
	while ((ret = prf_reader_next_chunk(p.reader, &chunk)) == 1) {
		struct prf_record record;

		note_time(s, chunk.first_time, chunk.last_time);
		if ((chunk.flags & PRF_CHUNK_SAMPLES) && !chunk.size)
			s->facts.samples_total += chunk.record_count;
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
	s->facts.dropped += stats.trailer.dropped_records > p.stats_dropped ?
			    stats.trailer.dropped_records : p.stats_dropped;
	report_damage(s, in, &stats);
	prf_reader_close(p.reader);
	return 0;
}

/* ---- replay --------------------------------------------------------- */

static int compare_sideband(const void *a, const void *b)
{
	const struct sideband *x = a, *y = b;

	/* A snapshot describes the state the file started with. */
	uint64_t tx = x->snapshot ? 0 : x->time, ty = y->snapshot ? 0 : y->time;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int same_live_map(const struct process *p, const struct sideband *e,
			 struct dso *dso, uint64_t time)
{
	for (size_t i = 0; i < p->map_count; i++) {
		const struct map *m = &p->maps[i];

		if (map_live(m, time) && m->start == e->start &&
		    m->end == e->start + e->length && m->pgoff == e->pgoff && m->dso == dso)
			return 1;
	}
	return 0;
}

static void apply_mmap(struct session *s, const struct sideband *e)
{
	struct process *p = process_get(s, e->pid);
	struct dso *dso;
	uint64_t time = e->time;

	if (!p || e->length == 0 || e->start + e->length < e->start)
		return;
	dso = mapping_dso(s, e);
	if (e->snapshot) {
		/*
		 * The first file's snapshot holds from the beginning of time:
		 * samples taken before it was written still resolve. A later
		 * file's snapshot only restates what replay already knows.
		 */
		if (same_live_map(p, e, dso, time))
			return;
		if (!p->map_count)
			time = 0;
	}
	maps_punch(p, e->start, e->start + e->length, time);
	map_add(p, &(struct map){ e->start, e->start + e->length, e->pgoff, time,
				  NO_END, dso });
}

static const char *comm_at(const struct process *p, uint32_t tid, uint64_t time);

static void apply_fork(struct session *s, const struct sideband *e)
{
	struct process *parent, *child;

	if (e->pid == e->ppid) {
		process_get(s, e->pid);		/* a new thread */
		return;
	}
	if (e->snapshot) {
		process_get(s, e->pid);
		return;
	}
	parent = process_current(s, e->ppid);
	child = process_new(s, e->pid, e->time);
	if (!child || !parent)
		return;
	for (size_t i = 0; i < parent->map_count; i++) {
		struct map m = parent->maps[i];

		if (!map_live(&m, e->time))
			continue;
		m.from = e->time;
		m.to = NO_END;
		map_add(child, &m);
	}
	/* The child is named after the thread that forked it. */
	const char *comm = comm_at(parent, e->ptid, e->time);

	if (comm)
		name_add(child, e->time, e->pid, comm);
}

static void apply_comm(struct session *s, const struct sideband *e)
{
	struct process *p = process_get(s, e->pid);

	if (!p)
		return;
	if (e->exec && !e->snapshot)
		maps_end_all(p, e->time);
	name_add(p, e->snapshot ? 0 : e->time, e->tid, e->name);
}

static int compare_maps(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static int compare_name_changes(const void *a, const void *b)
{
	const struct name_change *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The times the set of live maps changes, for session_maps_generation(). */
static void note_map_changes(struct process *p)
{
	size_t n = 0;

	if (!p->map_count || p->map_count > SIZE_MAX / 2 / sizeof(*p->changes))
		return;
	p->changes = malloc(2 * p->map_count * sizeof(*p->changes));
	if (!p->changes)
		return;
	for (size_t i = 0; i < p->map_count; i++) {
		p->changes[n++] = p->maps[i].from;
		if (p->maps[i].to != NO_END)
			p->changes[n++] = p->maps[i].to;
	}
	qsort(p->changes, n, sizeof(*p->changes), compare_u64);
	p->change_count = 0;
	for (size_t i = 0; i < n; i++)
		if (!p->change_count || p->changes[p->change_count - 1] != p->changes[i])
			p->changes[p->change_count++] = p->changes[i];
}

static void finish_process(struct process *p)
{
	if (p->map_count)
		qsort(p->maps, p->map_count, sizeof(*p->maps), compare_maps);
	for (size_t i = 0; i < p->map_count; i++)
		if (p->maps[i].end - p->maps[i].start > p->longest_map)
			p->longest_map = p->maps[i].end - p->maps[i].start;
	note_map_changes(p);
	/* Stable enough: names of one time come from one record stream. */
	if (p->name_count)
		qsort(p->names, p->name_count, sizeof(*p->names), compare_name_changes);
}

static void replay(struct session *s)
{
	if (s->sideband_count)
		qsort(s->sideband, s->sideband_count, sizeof(*s->sideband), compare_sideband);
	if (s->build_id_count)
		qsort(s->build_ids, s->build_id_count, sizeof(*s->build_ids), compare_build_ids);
	for (size_t i = 0; i < s->sideband_count; i++) {
		const struct sideband *e = &s->sideband[i];

		switch (e->kind) {
		case SIDEBAND_MMAP:
			apply_mmap(s, e);
			break;
		case SIDEBAND_FORK:
			apply_fork(s, e);
			break;
		case SIDEBAND_COMM:
			apply_comm(s, e);
			break;
		}
	}
	for (size_t i = 0; i < s->table_capacity; i++)
		for (struct process *p = s->table[i]; p; p = p->next_in_table)
			for (struct process *q = p; q; q = q->older)
				finish_process(q);
	free(s->sideband);
	s->sideband = NULL;
	s->sideband_count = s->sideband_capacity = 0;
}

static int compare_inputs(const void *a, const void *b)
{
	const struct input *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

int session_load(struct session *s, struct prf_error *error)
{
	int ret;

	/* Headers first: files are replayed in the order they were started. */
	for (size_t i = 0; i < s->input_count; i++) {
		struct prf_reader *reader;

		ret = prf_reader_open(&reader, s->inputs[i].path, error);
		if (ret < 0)
			return ret;
		s->inputs[i].start_ns = prf_reader_info(reader)->start_time_ns;
		s->inputs[i].host = host_index(s, prf_reader_info(reader)->hostname);
		note_file_facts(s, prf_reader_info(reader));
		prf_reader_close(reader);
	}
	if (s->input_count)
		qsort(s->inputs, s->input_count, sizeof(*s->inputs), compare_inputs);
	s->input_names = calloc(s->input_count + 1, sizeof(*s->input_names));
	if (!s->input_names)
		return -ENOMEM;
	for (size_t i = 0; i < s->input_count; i++) {
		s->input_names[i] = s->inputs[i].path;
		ret = read_sideband(s, i, error);
		if (ret < 0)
			return ret;
		s->facts.damaged_files += (size_t)s->inputs[i].damaged;
	}
	s->facts.files = s->input_count;
	s->facts.file_names = s->input_names;
	replay(s);
	return 0;
}

void session_get_summary(const struct session *s, struct session_summary *summary)
{
	*summary = s->facts;
}

/* ---- pass 2: samples ------------------------------------------------ */

static const struct process *process_at(struct session *s, uint32_t pid, uint64_t time)
{
	const struct process *p = process_current(s, pid);

	while (p && p->older && p->born > time)
		p = p->older;
	return p;
}

static const char *comm_at(const struct process *p, uint32_t tid, uint64_t time)
{
	const char *of_thread = NULL, *of_process = NULL, *first = NULL;

	if (!p)
		return NULL;
	for (size_t i = 0; i < p->name_count; i++) {
		const struct name_change *n = &p->names[i];

		if (!first && (n->tid == tid || n->tid == p->pid))
			first = n->comm;
		if (n->time > time)
			break;
		if (n->tid == tid)
			of_thread = n->comm;
		else if (n->tid == p->pid)
			of_process = n->comm;
	}
	return of_thread ? of_thread : of_process ? of_process : first;
}

static int in_list_u32(const uint32_t *list, size_t count, uint32_t value)
{
	for (size_t i = 0; i < count; i++)
		if (list[i] == value)
			return 1;
	return 0;
}

static int passes(const struct session_filter *f, const struct session_sample *sample)
{
	if (f->since_ns && sample->time < f->since_ns)
		return 0;
	if (f->until_ns && sample->time > f->until_ns)
		return 0;
	if (f->pid_count && !in_list_u32(f->pids, f->pid_count, sample->pid))
		return 0;
	if (f->tid_count && !in_list_u32(f->tids, f->tid_count, sample->tid))
		return 0;
	if (f->cpu_count) {
		int found = 0;

		for (size_t i = 0; i < f->cpu_count; i++)
			found |= f->cpus[i] == (int)sample->cpu;
		if (!found)
			return 0;
	}
	if (f->event && (!sample->event || strcmp(sample->event->name, f->event) != 0))
		return 0;
	if (f->comm_count) {
		int found = 0;

		for (size_t i = 0; i < f->comm_count && sample->comm; i++)
			found |= strcmp(f->comms[i], sample->comm) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

static void sample_from_record(struct session *s, const struct prf_event *event,
			       const struct prf_sample *decoded,
			       struct session_sample *out)
{
	uint64_t type = decoded->sample_type;

	memset(out, 0, sizeof(*out));
	out->event = event;
	out->time = type & PERF_SAMPLE_TIME ? decoded->time : 0;
	out->pid = decoded->pid;
	out->tid = decoded->tid;
	out->cpu = decoded->cpu;
	out->period = type & PERF_SAMPLE_PERIOD ? decoded->period : 1;
	if (!out->period)
		out->period = 1;
	out->ip = decoded->ip;
	out->misc = decoded->misc;
	out->callchain = decoded->callchain;
	out->callchain_nr = decoded->callchain ? (size_t)decoded->callchain_nr : 0;
	out->record = decoded;
	out->process = process_at(s, out->pid, out->time);
	out->comm = comm_at(out->process, out->tid, out->time);
}

/* Pass 1 checked the samples' chunks against their checksums only. */
static void damage_in_samples(struct session *s, struct input *in, struct prf_reader *reader)
{
	struct prf_read_stats stats;

	prf_reader_get_stats(reader, &stats);
	if (stats.damaged_chunks <= in->damaged_chunks || in->samples_damage_told)
		return;
	in->samples_damage_told = 1;
	session_warn(s, "%s: skipped %llu more damaged chunk%s of samples (they do not decompress)",
	     in->path, (unsigned long long)(stats.damaged_chunks - in->damaged_chunks),
	     stats.damaged_chunks - in->damaged_chunks == 1 ? "" : "s");
}

int session_for_each_sample(struct session *s, const struct session_filter *filter,
			    session_sample_fn fn, void *context)
{
	uint64_t undecodable = 0;

	for (size_t i = 0; i < s->input_count; i++) {
		struct prf_reader *reader;
		struct prf_error error;
		struct prf_chunk chunk;
		int ret;

		/* Pass 1 said what is damaged: this pass reads quietly. */
		if (prf_reader_open(&reader, s->inputs[i].path, &error) < 0)
			continue;
		/* Decompressing on the other core; without a thread, on this one. */
		prf_reader_read_ahead(reader);
		while ((ret = prf_reader_next_chunk(reader, &chunk)) == 1) {
			struct prf_record record;

			if (filter->until_ns && chunk.first_time > filter->until_ns)
				continue;
			if (filter->since_ns && chunk.last_time && chunk.last_time < filter->since_ns)
				continue;
			while (prf_chunk_next_record(&chunk, &record) == 1) {
				const struct prf_event *event;
				struct prf_sample decoded;
				struct session_sample sample;

				if (record.type != PERF_RECORD_SAMPLE)
					continue;
				event = prf_reader_event_for(reader, record.data, record.size);
				if (!event || prf_decode_sample(&event->attr, record.data,
								record.size, &decoded) < 0) {
					undecodable++;
					continue;
				}
				sample_from_record(s, event, &decoded, &sample);
				sample.file_index = i;
				if (!passes(filter, &sample))
					continue;
				fn(context, &sample);
			}
		}
		damage_in_samples(s, &s->inputs[i], reader);
		prf_reader_close(reader);
	}
	if (undecodable)
		session_warn(s, "%llu samples could not be decoded (malformed records) and were skipped",
		     (unsigned long long)undecodable);
	return 0;
}

/* ---- resolving addresses -------------------------------------------- */

void session_resolve(struct session *s, const struct session_sample *sample,
		     uint64_t address, int kernel, struct resolved_address *out)
{
	const struct process *p = sample->process;
	size_t lo = 0, hi;

	memset(out, 0, sizeof(*out));
	out->kernel = kernel;
	if (kernel) {
		out->dso = s->kernels[s->inputs[sample->file_index].host];
		out->address = address;
		return;
	}
	if (!p || !p->map_count)
		return;
	/* The last map starting at or before address, then back from there. */
	hi = p->map_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct map *m = &p->maps[i];

		if (address - m->start >= p->longest_map)
			break;
		if (address < m->end && map_live(m, sample->time)) {
			out->dso = m->dso;
			out->address = address - m->start + m->pgoff;
			return;
		}
	}
}

/* ---- for the unwinder ------------------------------------------------ */

uint64_t session_maps_generation(const struct session_sample *sample)
{
	const struct process *p = sample->process;
	size_t lo = 0, hi;

	if (!p)
		return 0;
	hi = p->change_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->changes[mid] <= sample->time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void session_for_each_map(const struct session_sample *sample, session_map_fn fn,
			  void *context)
{
	const struct process *p = sample->process;

	for (size_t i = 0; p && i < p->map_count; i++) {
		const struct map *m = &p->maps[i];

		if (map_live(m, sample->time) && m->dso)
			fn(context, m->start, m->end, m->pgoff, m->dso);
	}
}
