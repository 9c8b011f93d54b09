/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf's perf.data files, read through the capture reader: the header's
 * attributes and features become the file's description (this file), and
 * the data section, whose records are the kernel's as perfrec's files
 * carry them, comes out as chunks of bounded size (perfdata-data.c).
 * Little-endian files only, in file mode or pipe mode (perfdata-pipe.c).
 *
 * A perf.data comes from anywhere: every offset, size and count is checked
 * against the file and fixed maxima before it is used or allocated.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include "perfdata-reader.h"

/* ---- the header and its features ------------------------------------ */

int prf_perfdata_error(struct prf_reader *r, struct prf_error *error, int code, const char *what)
{
	return prf_set_error(error, code, "%s: perf.data: %s", r->name, what);
}

/* A section's bytes, read whole after checking it lies in the file. */
static int read_section(struct prf_reader *r, const struct prf_perfdata_section *s, uint64_t max,
			uint8_t **out)
{
	uint8_t *buf;
	int ret;

	*out = NULL;
	if (s->size > max || s->offset > r->file_size || s->size > r->file_size - s->offset)
		return -EBADMSG;
	buf = malloc(s->size + 1);
	if (!buf)
		return -ENOMEM;
	ret = prf_read_at(r->fd, buf, (size_t)s->size, s->offset);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	buf[s->size] = '\0';
	*out = buf;
	return 0;
}

void *prf_perfdata_own(struct prf_perfdata *pd, void *buf)
{
	if (pd->owned_count == sizeof(pd->owned) / sizeof(pd->owned[0])) {
		free(buf);
		return NULL;
	}
	return pd->owned[pd->owned_count++] = buf;
}

/* A name for later (name_events()); past PD_IDS_MAX of them, the rest are left. */
void prf_perfdata_name_event(struct prf_perfdata *pd, const struct prf_perfdata_name *name)
{
	if (pd->name_count < PD_IDS_MAX &&
	    prf_ensure_mem((void **)&pd->names, &pd->name_capacity, sizeof(*pd->names),
			   pd->name_count + 1) == 0)
		pd->names[pd->name_count++] = *name;
}

/* The names, in the file's order (the last one for an event wins), by the id index. */
static void name_events(struct prf_reader *r)
{
	struct prf_perfdata *pd = r->perfdata;

	for (size_t i = 0; i < pd->name_count; i++) {
		const struct prf_perfdata_name *n = &pd->names[i];
		const struct prf_event *event = n->by_place ? prf_reader_event_at(r, n->place) :
					       prf_reader_event_of_id(r, n->id);

		if (event)
			r->events[event - r->events].name = n->name;
	}
}

/*
 * perf's string: a u32 length (NULs included, padded), then the bytes.
 * *cursor moves past it; NULL when it does not fit in end.
 */
static const char *take_string(uint8_t **cursor, const uint8_t *end)
{
	uint32_t length;
	char *s;

	if (end - *cursor < 4)
		return NULL;
	memcpy(&length, *cursor, 4);
	if (length == 0 || length > PD_STRING_MAX || length > (size_t)(end - *cursor) - 4)
		return NULL;
	s = (char *)*cursor + 4;
	s[length - 1] = '\0';		/* a lying length still ends the string in bounds */
	*cursor += 4 + (size_t)length;
	return s;
}

/* A one-string feature (hostname, osrelease ...), or NULL. */
static const char *feature_string(struct prf_reader *r, const struct prf_perfdata_section *s)
{
	uint8_t *buf, *cursor;

	if (read_section(r, s, PD_STRING_MAX + 4, &buf) < 0)
		return NULL;
	if (!prf_perfdata_own(r->perfdata, buf))
		return NULL;
	cursor = buf;
	return take_string(&cursor, buf + s->size);
}

/* Pipe mode may repeat a feature: the first of each key is kept. */
static void add_meta(struct prf_reader *r, const char *key, const char *value)
{
	for (size_t i = 0; i < r->info.meta_count; i++)
		if (strcmp(r->meta[i].key, key) == 0)
			return;
	if (r->info.meta_count < PD_META_MAX)
		r->meta[r->info.meta_count++] = (struct prf_meta){ key, value };
}

/* HEADER_CMDLINE: u32 count, then the words; kept as one line, a "cmdline" meta. */
static void take_cmdline(struct prf_reader *r, const struct prf_perfdata_section *s)
{
	uint8_t *buf, *cursor, *end;
	char *line;
	uint32_t count;
	size_t used = 0;

	if (read_section(r, s, PD_STRING_MAX, &buf) < 0 || !prf_perfdata_own(r->perfdata, buf) ||
	    s->size < 4)
		return;
	line = prf_perfdata_own(r->perfdata, malloc(s->size + 1));
	if (!line)
		return;
	memcpy(&count, buf, 4);
	cursor = buf + 4;
	end = buf + s->size;
	for (uint32_t i = 0; i < count; i++) {
		const char *word = take_string(&cursor, end);
		size_t n;

		if (!word)
			break;
		n = strlen(word);	/* a word is shorter than its u32 and padding */
		if (used)
			line[used++] = ' ';
		memcpy(line + used, word, n);
		used += n;
	}
	line[used] = '\0';
	add_meta(r, "cmdline", line);
}

/* HEADER_EVENT_DESC: the events' names, matched to the attrs by their ids. */
static void take_event_desc(struct prf_reader *r, const struct prf_perfdata_section *s)
{
	uint32_t nr, attr_size;
	uint8_t *buf, *cursor, *end;

	if (read_section(r, s, PD_FEATURE_MAX, &buf) < 0 || !prf_perfdata_own(r->perfdata, buf))
		return;
	end = buf + s->size;
	if (s->size < 8)
		return;
	memcpy(&nr, buf, 4);
	memcpy(&attr_size, buf + 4, 4);
	cursor = buf + 8;
	if (nr > PRF_EVENT_MAX || attr_size < PERF_ATTR_SIZE_VER0 || attr_size > PD_ATTR_ENTRY_MAX)
		return;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids;
		const char *name;
		uint64_t first_id;

		if ((size_t)(end - cursor) < attr_size + 4)
			return;
		cursor += attr_size;
		memcpy(&nr_ids, cursor, 4);
		cursor += 4;
		name = take_string(&cursor, end);
		if (!name || nr_ids > PD_IDS_MAX || (size_t)(end - cursor) / 8 < nr_ids)
			return;
		/* In attr order as perf writes it; an event without ids is matched by place. */
		if (nr_ids) {
			memcpy(&first_id, cursor, 8);
			prf_perfdata_name_event(r->perfdata, &(struct prf_perfdata_name){
							.id = first_id, .name = name });
		} else {
			prf_perfdata_name_event(r->perfdata, &(struct prf_perfdata_name){
						.place = i, .by_place = 1, .name = name });
		}
		cursor += (size_t)nr_ids * 8;
	}
}

/*
 * HEADER_BUILD_ID: perf's build_id_events, kept as perfrec's BUILD_ID
 * records (by path: perf has no device and inode for them), given as the
 * file's first chunk.
 */
void prf_perfdata_take_build_ids(struct prf_reader *r, const struct prf_perfdata_section *s)
{
	struct prf_perfdata *pd = r->perfdata;
	uint8_t *buf;
	size_t at = 0;

	if (read_section(r, s, PD_FEATURE_MAX, &buf) < 0)
		return;
	while (s->size - at >= 8 + 4 + 24) {
		struct perf_event_header h;
		struct prf_build_id_record b = { 0 };
		const char *path;
		size_t path_max, path_length, record_size;

		memcpy(&h, buf + at, sizeof(h));
		if (h.size < 8 + 4 + 24 || h.size > s->size - at)
			break;
		path = (const char *)buf + at + 8 + 4 + 24;
		path_max = h.size - (8 + 4 + 24);
		path_length = strnlen(path, path_max);
		b.header.type = PRF_RECORD_BUILD_ID;
		memcpy(&b.pid, buf + at + 8, 4);
		b.build_id_size = (h.misc & PRF_PERFDATA_MISC_BUILD_ID_SIZE) ? buf[at + 8 + 4 + 20] : 20;
		if (b.build_id_size > PRF_BUILD_ID_MAX)
			b.build_id_size = PRF_BUILD_ID_MAX;
		memcpy(b.build_id, buf + at + 8 + 4, b.build_id_size);
		record_size = PRF_ALIGN8(sizeof(b) + path_length + 1);
		b.header.size = (uint32_t)record_size;
		if (path_length && prf_ensure_mem((void **)&pd->build_ids, &pd->build_ids_capacity, 1,
						   pd->build_ids_size + record_size) == 0) {
			uint8_t *out = pd->build_ids + pd->build_ids_size;

			memset(out, 0, record_size);
			memcpy(out, &b, sizeof(b));
			memcpy(out + sizeof(b), path, path_length);
			pd->build_ids_size += record_size;
		}
		at += h.size;
	}
	free(buf);
}

void prf_perfdata_take_feature(struct prf_reader *r, unsigned feature,
			       const struct prf_perfdata_section *s)
{
	struct prf_file_info *info = &r->info;
	const char *string;
	uint8_t *buf;

	switch (feature) {
	case PRF_PERFDATA_FEAT_HOSTNAME:
		if ((string = feature_string(r, s)))
			info->hostname = string;
		break;
	case PRF_PERFDATA_FEAT_OSRELEASE:
		if ((string = feature_string(r, s)))
			info->kernel_release = string;
		break;
	case PRF_PERFDATA_FEAT_ARCH:
		if ((string = feature_string(r, s)))
			info->machine = string;
		break;
	case PRF_PERFDATA_FEAT_VERSION:
	case PRF_PERFDATA_FEAT_CPUDESC:
		if ((string = feature_string(r, s)))
			add_meta(r, feature == PRF_PERFDATA_FEAT_VERSION ? "perf_version" : "cpudesc",
				 string);
		break;
	case PRF_PERFDATA_FEAT_CMDLINE:
		take_cmdline(r, s);
		break;
	case PRF_PERFDATA_FEAT_NRCPUS:
		if (read_section(r, s, 8, &buf) == 0 && s->size == 8) {
			memcpy(&info->nr_cpus_configured, buf, 4);	/* perf's "available" */
			memcpy(&info->nr_cpus_online, buf + 4, 4);
		}
		free(buf);
		break;
	case PRF_PERFDATA_FEAT_SAMPLE_TIME:
		if (read_section(r, s, 16, &buf) == 0 && s->size == 16) {
			memcpy(&info->start_time_ns, buf, 8);
			memcpy(&r->perfdata->last_sample_ns, buf + 8, 8);
		}
		free(buf);
		break;
	case PRF_PERFDATA_FEAT_CLOCK_DATA:
		/* u32 version, u32 clockid, u64 wall-clock ns, u64 clockid ns: taken together */
		if (read_section(r, s, 4096, &buf) == 0 && s->size >= 24) {
			uint64_t wall, clock;

			memcpy(&info->clockid, buf + 4, 4);
			memcpy(&wall, buf + 8, 8);
			memcpy(&clock, buf + 16, 8);
			info->realtime_offset_ns = (int64_t)(wall - clock);
		}
		free(buf);
		break;
	case PRF_PERFDATA_FEAT_COMPRESSED:
		/* u32 version, type, level, ratio, mmap_len: one record inflates to mmap_len at most */
		if (read_section(r, s, 4096, &buf) == 0 && s->size >= 20) {
			uint32_t mmap_len;

			memcpy(&mmap_len, buf + 16, 4);
			if (mmap_len >= PD_INFLATE_MIN && mmap_len <= PD_INFLATE_MAX)
				r->perfdata->inflate_max = mmap_len;
		}
		free(buf);
		break;
	case PRF_PERFDATA_FEAT_EVENT_DESC:
		take_event_desc(r, s);
		break;
	case PRF_PERFDATA_FEAT_BUILD_ID:
		prf_perfdata_take_build_ids(r, s);
		break;
	default:
		break;
	}
}

static void read_features(struct prf_reader *r, const struct prf_perfdata_header *h)
{
	struct prf_perfdata *pd = r->perfdata;
	uint64_t table = pd->data_declared_end;
	unsigned index = 0;

	if (pd->size_unknown)
		return;			/* written at the end: perf did not get there */
	for (unsigned feature = 1; feature < PRF_PERFDATA_FEAT_BITS; feature++) {
		struct prf_perfdata_section s;

		if (!(h->features[feature / 64] >> (feature % 64) & 1))
			continue;
		if (table > r->file_size ||
		    r->file_size - table < (uint64_t)(index + 1) * sizeof(s) ||
		    prf_read_at(r->fd, &s, sizeof(s), table + (uint64_t)index * sizeof(s)) < 0) {
			snprintf(pd->note, sizeof(pd->note),
				 "%s: perf.data: its feature sections are missing (cut short?); "
				 "host facts and event names not known", r->name);
			return;
		}
		index++;
		prf_perfdata_take_feature(r, feature, &s);
	}
}

/*
 * The attrs section: an entry per event of attr_size bytes, the attr then
 * the section of its ids.  Attrs and ids are kept in r->header.
 */
static int read_attrs(struct prf_reader *r, const struct prf_perfdata_header *h,
		      struct prf_error *error)
{
	uint64_t count, total_ids = 0;
	size_t attr_bytes;
	uint8_t *entries;
	uint64_t *ids;
	int ret;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct prf_perfdata_section) ||
	    h->attr_size > PD_ATTR_ENTRY_MAX || h->attr_size % 8)
		return prf_perfdata_error(r, error, -EBADMSG, "impossible attr size in the header");
	if (h->attrs.size % h->attr_size)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "the attrs section is not a whole number of attrs");
	count = h->attrs.size / h->attr_size;
	if (count == 0 || count > PRF_EVENT_MAX)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "no events, or more than this reader takes");
	ret = read_section(r, &h->attrs, (uint64_t)PRF_EVENT_MAX * PD_ATTR_ENTRY_MAX, &entries);
	if (ret == -ENOMEM)
		return prf_perfdata_error(r, error, ret, "out of memory");
	if (ret < 0)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "the attrs section lies outside the file");
	if (!prf_perfdata_own(r->perfdata, entries))
		return prf_perfdata_error(r, error, -ENOMEM, "out of memory");
	attr_bytes = (size_t)h->attr_size - sizeof(struct prf_perfdata_section);
	for (uint64_t i = 0; i < count; i++) {
		struct prf_perfdata_section s;

		memcpy(&s, entries + i * h->attr_size + attr_bytes, sizeof(s));
		if (s.size % 8 || s.size / 8 > PD_IDS_MAX || s.offset > r->file_size ||
		    s.size > r->file_size - s.offset)
			return prf_perfdata_error(r, error, -EBADMSG,
						  "an event's ids lie outside the file");
		total_ids += s.size / 8;
	}
	if (total_ids > PD_IDS_MAX)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "more event ids than this reader takes");
	r->events = calloc(count + 1, sizeof(*r->events));
	ids = calloc(total_ids + 1, 8);
	r->header = (uint8_t *)ids;	/* freed with the reader */
	if (!r->events || !ids)
		return prf_perfdata_error(r, error, -ENOMEM, "out of memory");
	for (uint64_t i = 0; i < count; i++) {
		struct prf_event *ev = &r->events[i];
		const uint8_t *attr = entries + i * h->attr_size;
		struct prf_perfdata_section s;
		uint32_t size;

		memcpy(&s, attr + attr_bytes, sizeof(s));
		memcpy(&size, attr + offsetof(struct perf_event_attr, size), 4);
		/* The attr's own size, where it is smaller than the entry: perf reads that much. */
		ev->attr_size = size >= PERF_ATTR_SIZE_VER0 && size < attr_bytes ?
				size : (uint32_t)attr_bytes;
		ev->attr_bytes = attr;
		memcpy(&ev->attr, attr,
		       ev->attr_size < sizeof(ev->attr) ? ev->attr_size : sizeof(ev->attr));
		ev->ids = ids;
		ev->id_count = (uint32_t)(s.size / 8);
		if (s.size && prf_read_at(r->fd, ids, (size_t)s.size, s.offset) < 0)
			return prf_perfdata_error(r, error, -EBADMSG,
						  "an event's ids cannot be read");
		ids += s.size / 8;
		ev->name = prf_event_name(ev->attr.type, ev->attr.config);
		if (!ev->name)
			ev->name = "unknown";
	}
	r->info.events = r->events;
	r->info.event_count = (size_t)count;
	return 0;
}

/* perf's sample_id layout, from the first event (perf makes all agree). */
static void place_ids(struct prf_reader *r)
{
	uint64_t type = r->events[0].attr.sample_type;

	if (type & PERF_SAMPLE_IDENTIFIER) {
		r->sample_id_at = 8;
		r->other_id_from_end = r->events[0].attr.sample_id_all ? 8 : 0;
		return;
	}
	if (!(type & PERF_SAMPLE_ID))
		return;
	r->sample_id_at = 8 + 8 * (!!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID) +
				   !!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ADDR));
	if (r->events[0].attr.sample_id_all)
		r->other_id_from_end = 8 * (1 + !!(type & PERF_SAMPLE_STREAM_ID) +
					    !!(type & PERF_SAMPLE_CPU));
}

/*
 * perf record adds a dummy event (software, never sampling) for the
 * side-band: its ids stay indexed, for the records that carry them, but
 * it is not among the file's events a report offers: moved last (before
 * the ids are indexed), the count of the others returned.
 */
static size_t hide_dummies(struct prf_reader *r)
{
	size_t kept = 0, count = r->info.event_count;
	struct prf_event *order = calloc(count, sizeof(*order));

	if (!order)
		return count;
	for (int dummies = 0; dummies < 2; dummies++)
		for (size_t i = 0; i < count; i++) {
			const struct perf_event_attr *a = &r->events[i].attr;

			int dummy = a->type == PERF_TYPE_SOFTWARE &&
				    a->config == PERF_COUNT_SW_DUMMY;

			if (dummy == dummies)
				order[kept++] = r->events[i];
		}
	memcpy(r->events, order, count * sizeof(*order));
	free(order);
	for (kept = 0; kept < count; kept++)
		if (r->events[kept].attr.type == PERF_TYPE_SOFTWARE &&
		    r->events[kept].attr.config == PERF_COUNT_SW_DUMMY)
			break;
	return kept ? kept : count;
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
}

/*
 * perf.data has no wall clock without -k (HEADER_CLOCK_DATA).  perf's
 * clock is the kernel's local_clock, CLOCK_MONOTONIC's base: on this host
 * in this boot the offset is today's; elsewhere, the file was last
 * written as perf took its last sample (HEADER_SAMPLE_TIME's last).
 */
static void estimate_wall_clock(struct prf_reader *r)
{
	struct prf_host host;
	struct stat st;
	uint64_t boot_ns;

	if (fstat(r->fd, &st) < 0)
		return;
	boot_ns = prf_clock_ns(CLOCK_REALTIME) - prf_clock_ns(CLOCK_MONOTONIC);
	if (prf_host_read(&host) == 0 && strcmp(host.hostname, r->info.hostname) == 0 &&
	    strcmp(host.kernel_release, r->info.kernel_release) == 0 && mtime_ns(&st) > boot_ns) {
		r->info.realtime_offset_ns = (int64_t)boot_ns;
		if (!r->info.start_time_ns)
			r->info.start_time_ns = mtime_ns(&st) - boot_ns;
	} else if (r->perfdata->last_sample_ns) {
		r->info.realtime_offset_ns = (int64_t)(mtime_ns(&st) - r->perfdata->last_sample_ns);
	}
}

/* The events in r->events: ids placed and indexed, the dummy hidden; the clock. */
static int pd_finish_events(struct prf_reader *r, struct prf_error *error)
{
	size_t kept;

	place_ids(r);
	/* Indexed twice: for the names in the file's event order, then as read. */
	if (prf_reader_index_ids(r) < 0)
		return prf_perfdata_error(r, error, -ENOMEM, "out of memory");
	name_events(r);
	free(r->ids);
	r->ids = NULL;
	r->id_count = 0;
	kept = hide_dummies(r);
	if (prf_reader_index_ids(r) < 0)
		return prf_perfdata_error(r, error, -ENOMEM, "out of memory");
	r->info.hidden_event_count = r->info.event_count - kept;
	r->info.event_count = kept;
	if (!r->info.realtime_offset_ns)
		estimate_wall_clock(r);
	return 0;
}

/* File mode: the header's sections, the data section's bounds. */
static int open_file_mode(struct prf_reader *r, const struct prf_perfdata_header *h,
			  struct prf_error *error)
{
	struct prf_perfdata *pd = r->perfdata;
	int ret;

	if (h->size != sizeof(*h))
		return prf_perfdata_error(r, error, -EBADMSG, "unknown header size");
	if (h->data.offset < sizeof(*h) || h->data.offset > r->file_size ||
	    h->data.size > UINT64_MAX - h->data.offset)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "the data section lies outside the file");
	pd->data_start = pd->position = h->data.offset;
	pd->size_unknown = h->data.size == 0;
	pd->data_declared_end = pd->size_unknown ? r->file_size : h->data.offset + h->data.size;
	pd->data_end = pd->data_declared_end < r->file_size ? pd->data_declared_end : r->file_size;
	if (pd->size_unknown)
		snprintf(pd->note, sizeof(pd->note),
			 "%s: perf.data: data size 0 in the header (perf record did not finish?); "
			 "read to the end of the file", r->name);
	ret = read_attrs(r, h, error);
	if (ret < 0)
		return ret;
	read_features(r, h);
	return 0;
}

int prf_perfdata_open(struct prf_reader *r, struct prf_error *error)
{
	struct prf_perfdata *pd;
	struct prf_perfdata_header h = { 0 };
	int ret;

	/* Pipe mode's header is the magic and a size of 16. */
	if (r->file_size < 16)
		return prf_perfdata_error(r, error, -EBADMSG, "too short for its header");
	ret = prf_read_at(r->fd, &h, r->file_size < sizeof(h) ? 16 : sizeof(h), 0);
	if (ret < 0)
		return prf_set_error(error, ret, "%s: reading the header: %s", r->name,
				     strerror(-ret));
	if (memcmp(h.magic, PRF_PERFDATA_MAGIC, 8) != 0)
		return prf_perfdata_error(r, error, -EPROTONOSUPPORT,
				"a big-endian file: byte order not supported by this reader");
	if (h.size != 16 && r->file_size < sizeof(h))
		return prf_perfdata_error(r, error, -EBADMSG, "too short for its header");
	pd = calloc(1, sizeof(*pd));
	r->perfdata = pd;
	r->meta = calloc(PD_META_MAX, sizeof(*r->meta));
	if (!pd || !r->meta)
		return prf_perfdata_error(r, error, -ENOMEM, "out of memory");
	pd->inflate_max = PD_INFLATE_DEFAULT;
	r->meta[r->info.meta_count++] = (struct prf_meta){ "source", "perf.data" };
	r->info.meta = r->meta;
	r->info.hostname = r->info.kernel_release = r->info.kernel_version = "";
	r->info.machine = r->info.boot_id = "";
	r->info.perf_data = 1;
	/* perf's clock is the kernel's local_clock, CLOCK_MONOTONIC's base on the same host. */
	r->info.clockid = CLOCK_MONOTONIC;
	ret = h.size == 16 ? prf_perfdata_open_pipe(r, error) : open_file_mode(r, &h, error);
	if (ret < 0)
		return ret;
	return pd_finish_events(r, error);
}

void prf_perfdata_free(struct prf_perfdata *pd)
{
	if (!pd)
		return;
	free(pd->block);
	free(pd->inflated);
	free(pd->build_ids);
	free(pd->names);
	ZSTD_freeDStream(pd->zstream);
	for (size_t i = 0; i < pd->owned_count; i++)
		free(pd->owned[i]);
	free(pd);
}

