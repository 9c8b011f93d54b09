/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reader.  Files come from other hosts, so nothing in them is trusted:
 * every size is checked against the file and against fixed maxima before
 * anything is allocated or read, and a damaged chunk costs only itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "internal.h"

void prf_reader_diag(struct prf_reader *r, uint64_t offset, const char *fmt, ...)
{
	char message[512];
	va_list ap;

	if (!r->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	r->diag(r->diag_context, offset, message);
}

int prf_read_at(int fd, void *buf, size_t size, uint64_t offset)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = pread(fd, (uint8_t *)buf + done, size - done,
				  (off_t)(offset + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA;	/* the file shrank under us */
		done += (size_t)n;
	}
	return 0;
}

/* ---- the header ---------------------------------------------------- */

struct header_parser {
	struct prf_reader *r;
	struct prf_error *error;
	char *strings_end;		/* next free byte of r->strings */
	size_t meta_count, event_count;
};

static const char *copy_string(struct header_parser *p, const uint8_t *value,
			       uint32_t length)
{
	char *copy = p->strings_end;

	memcpy(copy, value, length);
	copy[length] = '\0';
	p->strings_end += length + 1;
	return copy;
}

static int parse_event(struct header_parser *p, const uint8_t *value,
		       uint32_t length, uint64_t offset)
{
	struct prf_reader *r = p->r;
	struct prf_event_property property;
	struct prf_event *ev = &r->events[p->event_count];
	uint64_t need;

	if (length < sizeof(property))
		goto bad;
	memcpy(&property, value, sizeof(property));
	if (property.id_count > PRF_EVENT_IDS_MAX || property.attr_size < PERF_ATTR_SIZE_VER0 ||
	    property.name_length > PRF_EVENT_NAME_MAX)
		goto bad;
	need = sizeof(property) + PRF_ALIGN8((uint64_t)property.attr_size) +
	       PRF_ALIGN8((uint64_t)property.name_length) +
	       (uint64_t)property.id_count * 8;
	if (need > length)
		goto bad;
	value += sizeof(property);
	ev->attr_bytes = value;
	ev->attr_size = property.attr_size;
	memcpy(&ev->attr, value, property.attr_size < sizeof(ev->attr) ?
				 property.attr_size : sizeof(ev->attr));
	value += PRF_ALIGN8(property.attr_size);
	ev->name = copy_string(p, value, property.name_length);
	value += PRF_ALIGN8(property.name_length);
	ev->ids = (const uint64_t *)value;	/* 8-aligned in an 8-aligned buffer */
	ev->id_count = property.id_count;
	p->event_count++;
	return 0;
bad:
	return prf_set_error(p->error, -EBADMSG,
			     "%s: offset %llu: malformed event description",
			     r->name, (unsigned long long)offset);
}

static int parse_property(struct header_parser *p, uint16_t tag,
			  const uint8_t *value, uint32_t length, uint64_t offset)
{
	struct prf_reader *r = p->r;
	struct prf_file_info *info = &r->info;

	switch (tag) {
	case PRF_PROP_HOSTNAME:
		info->hostname = copy_string(p, value, length);
		break;
	case PRF_PROP_KERNEL_RELEASE:
		info->kernel_release = copy_string(p, value, length);
		break;
	case PRF_PROP_KERNEL_VERSION:
		info->kernel_version = copy_string(p, value, length);
		break;
	case PRF_PROP_MACHINE:
		info->machine = copy_string(p, value, length);
		break;
	case PRF_PROP_BOOT_ID:
		info->boot_id = copy_string(p, value, length);
		break;
	case PRF_PROP_NR_CPUS:
		if (length >= 8) {
			memcpy(&info->nr_cpus_online, value, 4);
			memcpy(&info->nr_cpus_configured, value + 4, 4);
		}
		break;
	case PRF_PROP_PAGE_SIZE:
		if (length >= 4)
			memcpy(&info->page_size, value, 4);
		break;
	case PRF_PROP_CLOCK:
		if (length >= sizeof(struct prf_clock_property)) {
			struct prf_clock_property clock;

			memcpy(&clock, value, sizeof(clock));
			info->clockid = clock.clockid;
			info->realtime_offset_ns = clock.realtime_offset_ns;
			info->start_time_ns = clock.start_time_ns;
		}
		break;
	case PRF_PROP_META: {
		const uint8_t *nul = memchr(value, '\0', length);
		struct prf_meta *m = &r->meta[p->meta_count];

		if (!nul)
			return prf_set_error(p->error, -EBADMSG,
					     "%s: offset %llu: metadata without a key",
					     r->name, (unsigned long long)offset);
		m->key = copy_string(p, value, (uint32_t)(nul - value));
		m->value = copy_string(p, nul + 1, (uint32_t)(length - (nul - value) - 1));
		p->meta_count++;
		break;
	}
	case PRF_PROP_EVENT:
		return parse_event(p, value, length, offset);
	default:
		break;		/* a newer minor's property: skip it */
	}
	return 0;
}

/* Calls fn for each property; also used to count them before allocating. */
static int walk_properties(struct prf_reader *r, struct prf_error *error,
			   struct header_parser *parser, size_t *metas,
			   size_t *events)
{
	uint32_t header_size;
	uint64_t offset = sizeof(struct prf_file_header);

	memcpy(&header_size, r->header + offsetof(struct prf_file_header, header_size), 4);
	while (offset < header_size) {
		struct prf_property property;
		int ret;

		if (header_size - offset < sizeof(property))
			goto bad;
		memcpy(&property, r->header + offset, sizeof(property));
		if (property.length > header_size - offset - sizeof(property))
			goto bad;
		const uint8_t *value = r->header + offset + sizeof(property);
		if (parser) {
			ret = parse_property(parser, property.tag, value,
					     property.length, offset);
			if (ret < 0)
				return ret;
		} else if (property.tag == PRF_PROP_META) {
			++*metas;
		} else if (property.tag == PRF_PROP_EVENT) {
			++*events;
		}
		offset += sizeof(property) + PRF_ALIGN8((uint64_t)property.length);
	}
	return 0;
bad:
	return prf_set_error(error, -EBADMSG, "%s: offset %llu: property runs past the header",
			     r->name, (unsigned long long)offset);
}

static int compare_ids(const void *a, const void *b)
{
	const struct event_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int prf_reader_index_ids(struct prf_reader *r)
{
	size_t total = 0;

	for (size_t i = 0; i < r->info.event_count; i++)
		total += r->events[i].id_count;
	r->ids = calloc(total ? total : 1, sizeof(*r->ids));
	if (!r->ids)
		return -ENOMEM;
	for (size_t i = 0; i < r->info.event_count; i++)
		for (uint32_t k = 0; k < r->events[i].id_count; k++) {
			uint64_t id;

			memcpy(&id, &r->events[i].ids[k], sizeof(id));
			r->ids[r->id_count++] = (struct event_id){ id, &r->events[i] };
		}
	qsort(r->ids, r->id_count, sizeof(*r->ids), compare_ids);
	return 0;
}

static int read_header(struct prf_reader *r, struct prf_error *error)
{
	struct prf_file_header fixed;
	struct header_parser parser = { .r = r, .error = error };
	size_t metas = 0, events = 0;
	uint32_t crc;
	int ret;

	if (r->file_size < sizeof(fixed))
		return prf_set_error(error, -EBADMSG, "%s: %llu bytes is too short for a perfrec file",
				     r->name, (unsigned long long)r->file_size);
	ret = prf_read_at(r->fd, &fixed, sizeof(fixed), 0);
	if (ret < 0)
		return prf_set_error(error, ret, "%s: reading the header: %s",
				     r->name, strerror(-ret));
	if (memcmp(fixed.magic, PRF_FILE_MAGIC, sizeof(fixed.magic)) != 0)
		return prf_set_error(error, -EBADMSG, "%s: not a perfrec file (bad magic)", r->name);
	if (fixed.byte_order == __builtin_bswap32(PRF_BYTE_ORDER_MARK))
		return prf_set_error(error, -EPROTONOSUPPORT,
				     "%s: big-endian file: byte order not supported by this reader",
				     r->name);
	if (fixed.byte_order != PRF_BYTE_ORDER_MARK)
		return prf_set_error(error, -EBADMSG, "%s: offset 12: bad byte-order mark 0x%08x",
				     r->name, fixed.byte_order);
	if (fixed.version_major != PRF_VERSION_MAJOR)
		return prf_set_error(error, -EPROTONOSUPPORT,
				     "%s: format version %u.%u is not supported by this reader (version %u.%u)",
				     r->name, fixed.version_major, fixed.version_minor,
				     PRF_VERSION_MAJOR, PRF_VERSION_MINOR);
	if (fixed.header_size < sizeof(fixed) || fixed.header_size % 8 ||
	    fixed.header_size > PRF_HEADER_MAX || fixed.header_size > r->file_size)
		return prf_set_error(error, -EBADMSG, "%s: offset 16: impossible header size %u",
				     r->name, fixed.header_size);

	r->header = malloc(fixed.header_size);
	/* Every property takes 8 bytes or more, so this bounds the NULs. */
	r->strings = malloc(fixed.header_size + fixed.header_size / 8 * 2 + 8);
	if (!r->header || !r->strings)
		return prf_set_error(error, -ENOMEM, "%s: out of memory", r->name);
	ret = prf_read_at(r->fd, r->header, fixed.header_size, 0);
	if (ret < 0)
		return prf_set_error(error, ret, "%s: reading the header: %s",
				     r->name, strerror(-ret));
	memset(r->header + offsetof(struct prf_file_header, header_crc), 0, 4);
	crc = prf_crc32c(0, r->header, fixed.header_size);
	memcpy(r->header + offsetof(struct prf_file_header, header_crc), &fixed.header_crc, 4);
	if (crc != fixed.header_crc)
		return prf_set_error(error, -EBADMSG,
				     "%s: header checksum mismatch (stored 0x%08x, computed 0x%08x)",
				     r->name, fixed.header_crc, crc);

	ret = walk_properties(r, error, NULL, &metas, &events);
	if (ret < 0)
		return ret;
	if (events > PRF_EVENT_MAX)
		return prf_set_error(error, -EBADMSG, "%s: %zu events is over the limit of %u",
				     r->name, events, PRF_EVENT_MAX);
	r->meta = calloc(metas + 1, sizeof(*r->meta));
	r->events = calloc(events + 1, sizeof(*r->events));
	if (!r->meta || !r->events)
		return prf_set_error(error, -ENOMEM, "%s: out of memory", r->name);
	r->info.version_major = fixed.version_major;
	r->info.version_minor = fixed.version_minor;
	r->info.hostname = r->info.kernel_release = r->info.kernel_version = "";
	r->info.machine = r->info.boot_id = "";
	parser.strings_end = r->strings;
	ret = walk_properties(r, error, &parser, NULL, NULL);
	if (ret < 0)
		return ret;
	r->info.meta = r->meta;
	r->info.meta_count = parser.meta_count;
	r->info.events = r->events;
	r->info.event_count = parser.event_count;
	if (prf_reader_index_ids(r) < 0)
		return prf_set_error(error, -ENOMEM, "%s: out of memory", r->name);
	r->offset = fixed.header_size;
	return 0;
}

/* perf's own files, told apart by their magic whatever their name. */
static int is_perfdata(struct prf_reader *r)
{
	char magic[8];

	return r->file_size >= sizeof(magic) && prf_read_at(r->fd, magic, sizeof(magic), 0) == 0 &&
	       (memcmp(magic, PRF_PERFDATA_MAGIC, 8) == 0 || memcmp(magic, "2ELIFREP", 8) == 0);
}

int prf_reader_open_fd(struct prf_reader **out, int fd, const char *name,
		       struct prf_error *error)
{
	struct prf_reader *r;
	struct stat st;
	int ret;

	*out = NULL;
	if (!name)
		name = "(perfrec file)";
	if (fstat(fd, &st) < 0)
		return prf_set_error(error, -errno, "%s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return prf_set_error(error, -EINVAL, "%s: not a regular file", name);
	r = calloc(1, sizeof(*r));
	if (!r)
		return prf_set_error(error, -ENOMEM, "%s: out of memory", name);
	r->fd = fd;
	r->name = strdup(name);
	r->file_size = (uint64_t)st.st_size;
	r->stats.file_size = r->file_size;
	r->dctx = ZSTD_createDCtx();
	if (!r->name || !r->dctx) {
		prf_reader_close(r);
		return prf_set_error(error, -ENOMEM, "%s: out of memory", name);
	}
	ret = is_perfdata(r) ? prf_perfdata_open(r, error) : read_header(r, error);
	if (ret < 0) {
		prf_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

int prf_reader_open(struct prf_reader **out, const char *path,
		    struct prf_error *error)
{
	int fd = prf_open_regular(path);
	int ret;

	*out = NULL;
	if (fd < 0)
		return prf_set_error(error, fd, "%s: %s", path,
				     fd == -EINVAL ? "not a regular file" : strerror(-fd));
	ret = prf_reader_open_fd(out, fd, path, error);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	(*out)->owns_fd = 1;
	return 0;
}

void prf_reader_close(struct prf_reader *r)
{
	if (!r)
		return;
	prf_read_ahead_stop(r->ahead);
	prf_perfdata_free(r->perfdata);
	if (r->owns_fd)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->stored);
	free(r->raw);
	prf_compact_buffers_free(&r->compact);
	free(r->ids);
	free(r->events);
	free(r->meta);
	free(r->strings);
	free(r->header);
	free(r->name);
	free(r);
}

void prf_reader_set_diag(struct prf_reader *r, prf_diag_fn fn, void *context)
{
	r->diag = fn;
	r->diag_context = context;
}

const struct prf_file_info *prf_reader_info(const struct prf_reader *r)
{
	return &r->info;
}

void prf_reader_get_stats(const struct prf_reader *r,
			  struct prf_read_stats *stats)
{
	if (r->ahead)
		prf_read_ahead_stats(r->ahead, stats);
	else
		*stats = r->stats;
}

const struct prf_event *prf_reader_event_at(const struct prf_reader *r, uint64_t index)
{
	return index < r->info.event_count ? &r->events[index] : NULL;
}

const struct prf_event *prf_reader_event_of_id(const struct prf_reader *r, uint64_t id)
{
	size_t lo = 0, hi = r->id_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ids[mid].id == id)
			return r->ids[mid].event;
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct prf_event *prf_reader_event_for(const struct prf_reader *r,
					     const void *record, size_t size)
{
	const struct perf_event_attr *attr;
	const struct prf_event *event;
	struct perf_event_header header;
	uint64_t id;

	if (size < sizeof(header))
		return NULL;
	memcpy(&header, record, sizeof(header));
	if (header.type >= PRF_RECORD_BASE)
		return NULL;		/* perfrec's own records have no event */
	/*
	 * A perf.data's dummy event is not counted, but its records are its
	 * own (its attr may ask for build-ids where the sampling one does not);
	 * without ids its events share one layout.
	 */
	if ((r->info.event_count == 1 && !r->perfdata) ||
	    (r->perfdata && !r->sample_id_at && !r->other_id_from_end))
		return &r->events[0];
	if (r->info.event_count == 0 || size < sizeof(header) + 8)
		return NULL;
	/*
	 * In a perfrec file only IDENTIFIER sits where a reader can find it
	 * without the attr; a perf.data's events share one layout, so its
	 * PERF_SAMPLE_ID is placed by the first event's (perfdata-read.c).
	 */
	attr = &r->events[0].attr;
	if (r->sample_id_at || r->other_id_from_end) {
		size_t at = header.type == PERF_RECORD_SAMPLE ? r->sample_id_at :
			    r->other_id_from_end <= size ? size - r->other_id_from_end : 0;

		if (!at || at + 8 > size)
			return &r->events[0];	/* perf: the first event's, as perf report takes it */
		memcpy(&id, (const uint8_t *)record + at, 8);
	} else if (!(attr->sample_type & PERF_SAMPLE_IDENTIFIER)) {
		return NULL;
	} else if (header.type == PERF_RECORD_SAMPLE) {
		memcpy(&id, (const uint8_t *)record + sizeof(header), 8);
	} else if (attr->sample_id_all) {
		memcpy(&id, (const uint8_t *)record + size - 8, 8);
	} else {
		return NULL;
	}
	event = prf_reader_event_of_id(r, id);
	/* perf.data's synthesized records carry id 0: perf reads them with its first event. */
	return event || !r->perfdata ? event : &r->events[0];
}

/* ---- chunks -------------------------------------------------------- */

enum chunk_verdict {
	CHUNK_OK,
	CHUNK_TRUNCATED,	/* runs past the end of the file */
	CHUNK_BAD_HEADER,	/* lengths untrustworthy: search for the next */
	CHUNK_BAD_PAYLOAD,	/* header sound: skip exactly this chunk */
};

static int header_crc_ok(const struct prf_chunk_header *h)
{
	return prf_crc32c(0, h, offsetof(struct prf_chunk_header, header_crc)) ==
	       h->header_crc;
}

/* The verdict on the chunk header at offset; damage says what is wrong. */
static enum chunk_verdict check_chunk_header(uint64_t file_size, const struct prf_chunk_header *h,
					     uint64_t offset, struct prf_error *damage)
{
	if (memcmp(h->magic, PRF_CHUNK_MAGIC, 4) != 0) {
		prf_set_error(damage, -EBADMSG, "bad chunk magic");
		return CHUNK_BAD_HEADER;
	}
	if (!header_crc_ok(h)) {
		prf_set_error(damage, -EBADMSG, "chunk header checksum mismatch");
		return CHUNK_BAD_HEADER;
	}
	if (h->header_size < PRF_CHUNK_HEADER_SIZE || h->header_size % 8) {
		prf_set_error(damage, -EBADMSG, "impossible chunk header size");
		return CHUNK_BAD_HEADER;
	}
	if (offset + h->header_size + PRF_ALIGN8((uint64_t)h->stored_size) > file_size)
		return CHUNK_TRUNCATED;
	if (h->raw_size > PRF_CHUNK_RAW_MAX) {
		prf_set_error(damage, -EBADMSG, "raw size over the limit");
		return CHUNK_BAD_PAYLOAD;
	}
	if (h->codec == PRF_CODEC_NONE ? h->stored_size != h->raw_size :
	    h->codec == PRF_CODEC_ZSTD ? h->stored_size > ZSTD_compressBound(h->raw_size) :
	    1) {
		prf_set_error(damage, -EBADMSG, "%s", h->codec > PRF_CODEC_ZSTD ? "unknown codec" :
			      "stored size does not fit the raw size");
		return CHUNK_BAD_PAYLOAD;
	}
	if (h->record_count > h->raw_size / 8) {
		prf_set_error(damage, -EBADMSG, "more records than the payload can hold");
		return CHUNK_BAD_PAYLOAD;
	}
	return CHUNK_OK;
}

/* The first offset past from, 8-aligned, holding a sound chunk header. */
static uint64_t find_next_chunk(struct prf_reader *r, uint64_t from)
{
	uint8_t block[65536];
	uint64_t base = (from + 7) & ~(uint64_t)7;

	while (base + PRF_CHUNK_HEADER_SIZE <= r->file_size) {
		size_t n = sizeof(block);

		if (r->file_size - base < n)
			n = (size_t)(r->file_size - base);
		if (prf_read_at(r->fd, block, n, base) < 0)
			break;
		for (size_t i = 0; i + 4 <= n; i += 8) {
			struct prf_chunk_header h;

			if (memcmp(block + i, PRF_CHUNK_MAGIC, 4) != 0)
				continue;
			if (base + i + sizeof(h) > r->file_size)
				return r->file_size;
			if (prf_read_at(r->fd, &h, sizeof(h), base + i) == 0 && header_crc_ok(&h))
				return base + i;
		}
		base += n;
	}
	return r->file_size;
}

/* A valid chunk's records must tile its payload exactly: 0 or -EBADMSG. */
static int check_framing(const uint8_t *data, size_t size, uint32_t record_count,
			 struct prf_error *damage)
{
	size_t position = 0;
	uint32_t count = 0;

	while (position < size) {
		size_t record_size;

		if (prf_record_size(data + position, size - position, &record_size) < 0 ||
		    record_size < sizeof(struct perf_event_header) ||
		    record_size % 8 || record_size > size - position)
			return prf_set_error(damage, -EBADMSG, "record framing is broken");
		position += record_size;
		count++;
	}
	if (count != record_count)
		return prf_set_error(damage, -EBADMSG, "record count does not match");
	return 0;
}

static void skip_damage(struct prf_reader *r, uint64_t offset, uint64_t next,
			const char *why)
{
	r->stats.damaged_chunks++;
	r->stats.skipped_bytes += next - offset;
	if (next >= r->file_size)
		prf_reader_diag(r, offset, "%s: offset %llu: %s; skipped the %llu bytes to the end of the file",
			    r->name, (unsigned long long)offset, why,
			    (unsigned long long)(next - offset));
	else
		prf_reader_diag(r, offset, "%s: offset %llu: %s; skipped %llu bytes to the next chunk at %llu",
			    r->name, (unsigned long long)offset, why,
			    (unsigned long long)(next - offset),
			    (unsigned long long)next);
	r->offset = next;
}

static void end_truncated(struct prf_reader *r, uint64_t offset)
{
	r->stats.truncated_bytes = r->file_size - offset;
	prf_reader_diag(r, offset, "%s: offset %llu: file cut short inside a chunk; discarded its %llu bytes",
		    r->name, (unsigned long long)offset,
		    (unsigned long long)r->stats.truncated_bytes);
	r->offset = r->file_size;
}

/* A skipped chunk's payload: no bytes, at an address that is not NULL. */
static const uint8_t no_records[8] __attribute__((aligned(8)));

/*
 * The chunk's raw payload at *raw: 0, or 2 for a samples chunk skipped
 * (checksum checked, not decompressed); 1 for damage, which damage
 * says; a negative errno for an I/O error.
 */
static int load_payload(struct prf_reader *r, const struct prf_chunk_header *h,
			uint64_t offset, const uint8_t **raw, struct prf_error *damage)
{
	int ret;

	/* At least a byte: an empty payload is still at an address. */
	ret = prf_ensure_mem((void **)&r->stored, &r->stored_capacity, 1,
			     h->stored_size ? h->stored_size : 1);
	if (ret < 0)
		return ret;
	ret = prf_read_at(r->fd, r->stored, h->stored_size, offset + h->header_size);
	if (ret < 0)
		return ret;
	if (prf_crc32c(0, r->stored, h->stored_size) != h->payload_crc) {
		prf_set_error(damage, -EBADMSG, "payload checksum mismatch");
		return 1;
	}
	if (r->skip_samples && (h->flags & PRF_CHUNK_SAMPLES) && !(h->flags & PRF_CHUNK_FINAL)) {
		*raw = no_records;
		return 2;
	}
	if (h->codec == PRF_CODEC_NONE) {
		*raw = r->stored;
		return 0;
	}
	ret = prf_ensure_mem((void **)&r->raw, &r->raw_capacity, 1, h->raw_size ? h->raw_size : 1);
	if (ret < 0)
		return ret;
	if (ZSTD_getFrameContentSize(r->stored, h->stored_size) != h->raw_size) {
		prf_set_error(damage, -EBADMSG, "zstd frame size does not match the raw size");
		return 1;
	}
	size_t n = ZSTD_decompressDCtx(r->dctx, r->raw, h->raw_size, r->stored,
				       h->stored_size);
	if (ZSTD_isError(n) || n != h->raw_size) {
		prf_set_error(damage, -EBADMSG, "zstd payload does not decompress");
		return 1;
	}
	*raw = r->raw;
	return 0;
}

static void take_trailer(struct prf_reader *r, const struct prf_chunk_header *h,
			 const uint8_t *payload, uint64_t end)
{
	if (h->raw_size < sizeof(struct prf_trailer)) {
		prf_reader_diag(r, r->offset, "%s: offset %llu: trailer too short",
			    r->name, (unsigned long long)r->offset);
		return;
	}
	memcpy(&r->stats.trailer, payload, sizeof(r->stats.trailer));
	if (end == r->file_size)
		r->stats.complete = 1;
	else
		prf_reader_diag(r, r->offset, "%s: offset %llu: trailer before the end of the file",
			    r->name, (unsigned long long)r->offset);
}

/*
 * The trailer is the file's last 128 bytes (perfrec-format(5)), so its
 * verdict needs no walk over the chunks: the reader's own checks of a
 * chunk header, then those of a trailer.
 */
int prf_file_is_complete(int fd)
{
	struct {
		struct prf_chunk_header header;
		struct prf_trailer trailer;
	} tail;
	struct prf_error damage;
	struct stat st;
	uint64_t offset;
	int ret;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size < sizeof(struct prf_file_header) + sizeof(tail))
		return 0;
	offset = (uint64_t)st.st_size - sizeof(tail);
	ret = prf_read_at(fd, &tail, sizeof(tail), offset);
	if (ret < 0)
		return ret == -ENODATA ? 0 : ret;	/* cut short since the fstat() */
	return check_chunk_header((uint64_t)st.st_size, &tail.header, offset, &damage) == CHUNK_OK &&
	       (tail.header.flags & PRF_CHUNK_FINAL) && tail.header.codec == PRF_CODEC_NONE &&
	       tail.header.header_size == sizeof(tail.header) &&
	       tail.header.stored_size == sizeof(tail.trailer) &&
	       prf_crc32c(0, &tail.trailer, sizeof(tail.trailer)) == tail.header.payload_crc;
}

static int next_chunk(struct prf_reader *r, struct prf_chunk *chunk)
{
	if (r->perfdata)
		return prf_perfdata_next_chunk(r, chunk);
	while (r->offset < r->file_size) {
		uint64_t offset = r->offset;
		struct prf_chunk_header h;
		const uint8_t *payload = NULL;
		struct prf_error damage;
		int ret, skipped;

		if (r->file_size - offset < sizeof(h)) {
			end_truncated(r, offset);
			break;
		}
		ret = prf_read_at(r->fd, &h, sizeof(h), offset);
		if (ret < 0)
			return ret;
		switch (check_chunk_header(r->file_size, &h, offset, &damage)) {
		case CHUNK_OK:
			break;
		case CHUNK_TRUNCATED:
			end_truncated(r, offset);
			return 0;
		case CHUNK_BAD_HEADER:
			skip_damage(r, offset, find_next_chunk(r, offset + 8), damage.message);
			continue;
		case CHUNK_BAD_PAYLOAD:
			skip_damage(r, offset, offset + h.header_size +
				    PRF_ALIGN8((uint64_t)h.stored_size), damage.message);
			continue;
		}
		uint64_t end = offset + h.header_size + PRF_ALIGN8((uint64_t)h.stored_size);
		ret = load_payload(r, &h, offset, &payload, &damage);
		if (ret < 0)
			return ret;
		skipped = ret == 2;
		if (ret == 1 || (ret == 0 && !(h.flags & PRF_CHUNK_FINAL) &&
				 check_framing(payload, h.raw_size, h.record_count, &damage) < 0)) {
			skip_damage(r, offset, end, damage.message);
			continue;
		}
		*chunk = (struct prf_chunk){
			.data = payload,
			.size = skipped ? 0 : h.raw_size,
			.record_count = skipped && h.samples ? h.samples : h.record_count,
		};
		if (!skipped && !(h.flags & PRF_CHUNK_FINAL)) {
			ret = prf_compact_expand(r, payload, h.raw_size, &r->compact, chunk, &damage);
			if (ret == -ENOMEM)
				return ret;
			if (ret < 0) {
				skip_damage(r, offset, end, damage.message);
				continue;
			}
		}
		if (h.flags & PRF_CHUNK_FINAL) {
			take_trailer(r, &h, payload, end);
			r->offset = end;
			continue;
		}
		r->offset = end;
		r->stats.chunks++;
		r->stats.records += h.record_count;
		r->stats.raw_bytes += h.raw_size;
		r->stats.stored_bytes += h.stored_size;
		chunk->offset = offset;
		chunk->sequence = h.sequence;
		chunk->flags = h.flags;
		chunk->codec = h.codec;
		chunk->stored_size = h.stored_size;
		chunk->raw_size = h.raw_size;
		chunk->first_time = h.first_time;
		chunk->last_time = h.last_time;
		return 1;
	}
	return 0;
}

int prf_chunk_next_record(struct prf_chunk *chunk, struct prf_record *record)
{
	size_t remaining = chunk->size - chunk->position;
	const uint8_t *p = chunk->data + chunk->position;
	size_t size;

	if (!remaining)
		return 0;
	if (prf_record_size(p, remaining, &size) < 0 || size < 8 || size % 8 ||
	    size > remaining)
		return -EBADMSG;
	record->data = p;
	record->size = size;
	record->offset = chunk->position;
	memcpy(&record->type, p, 4);
	memcpy(&record->misc, p + 4, 2);
	record->stack = chunk->stacks ? chunk->stacks[chunk->index] :
					(struct prf_stack_ref){ 0 };
	chunk->position += size;
	chunk->index++;
	return 1;
}

void prf_reader_skip_samples(struct prf_reader *r, int skip)
{
	r->skip_samples = skip != 0;
}

void prf_reader_keep_compact(struct prf_reader *r, int keep)
{
	r->keep_compact = keep != 0;
}

int prf_reader_keeps_compact(const struct prf_reader *r)
{
	return r->keep_compact;
}

int prf_reader_next_chunk(struct prf_reader *r, struct prf_chunk *chunk)
{
	return r->ahead ? prf_read_ahead_next(r->ahead, chunk) : next_chunk(r, chunk);
}

static void swap_buffers(struct prf_reader *r, struct prf_chunk_buffers *b)
{
	struct prf_chunk_buffers mine = { r->stored, r->raw, r->stored_capacity, r->raw_capacity,
				      r->compact };

	r->stored = b->stored;
	r->raw = b->raw;
	r->stored_capacity = b->stored_capacity;
	r->raw_capacity = b->raw_capacity;
	r->compact = b->compact;
	*b = mine;
}

int prf_reader_next_chunk_into(struct prf_reader *r, struct prf_chunk *chunk,
			       struct prf_chunk_buffers *buffers, struct prf_read_stats *stats)
{
	int ret;

	swap_buffers(r, buffers);
	ret = next_chunk(r, chunk);
	swap_buffers(r, buffers);
	*stats = r->stats;
	return ret;
}

int prf_reader_read_ahead(struct prf_reader *r)
{
	return r->ahead ? 0 : prf_read_ahead_start(&r->ahead, r);
}
