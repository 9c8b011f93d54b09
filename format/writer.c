/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writer: header, then records collected into chunks that are
 * compressed and written whole.  A chunk is the unit of crash tolerance,
 * so the writer never leaves a partial chunk behind when it can help it:
 * a failed write is cut back to the end of the last whole chunk.
 *
 * Samples and everything else go into chunks of their own, the samples'
 * flagged PRF_CHUNK_SAMPLES: a reader after the maps, names and symbols
 * of a file (a report's first pass) skips the samples' chunks without
 * decompressing them, which with dwarf stacks is most of the file.  The
 * other records are written before the samples that came with them, so
 * a file cut short never has samples whose maps are lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>
#include "internal.h"

struct prf_writer {
	int fd;
	char *name;
	int level;			/* < 0: store uncompressed */
	ZSTD_CCtx *cctx;

	struct open_chunk {
		uint8_t *data;		/* its raw records */
		size_t used, capacity;
		uint32_t records;
		uint64_t first_time, last_time;
		uint8_t flags;
	} sideband, samples;
	size_t chunk_target;

	uint8_t *compressed;
	size_t compressed_capacity;
	struct prf_compact_writer *compact;	/* samples go here when compact */
	size_t expanded_limit;		/* of a compact chunk's samples as given */

	uint64_t sequence;
	uint64_t good_offset;		/* end of the last whole chunk */
	uint64_t first_time, last_time;
	struct prf_writer_stats stats;
	int finished;
	char error[512];
};

__attribute__((format(printf, 3, 4)))
static int writer_fail(struct prf_writer *w, int code, const char *fmt, ...)
{
	char cause[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	snprintf(w->error, sizeof(w->error), "%s: %s", w->name, cause);
	return code;
}

static void time_range_add(uint64_t *first, uint64_t *last, uint64_t time)
{
	if (!time)
		return;
	if (!*first || time < *first)
		*first = time;
	if (time > *last)
		*last = time;
}

/* ---- the header ---------------------------------------------------- */

struct header_builder {
	uint8_t *data;
	size_t size, capacity;
	int failed;
};

/* The padding of what is put is zero: new room is zeroed. */
static void header_reserve(struct header_builder *b, size_t more)
{
	size_t need = b->size + more, before = b->capacity;

	if (b->failed || need <= b->capacity)
		return;
	if (need > PRF_HEADER_MAX) {
		b->failed = -E2BIG;
		return;
	}
	if (prf_ensure_mem((void **)&b->data, &b->capacity, 1, need) < 0) {
		b->failed = -ENOMEM;
		return;
	}
	memset(b->data + before, 0, b->capacity - before);
}

static void header_put(struct header_builder *b, const void *data, size_t size)
{
	header_reserve(b, PRF_ALIGN8(size));
	if (b->failed)
		return;
	if (size)
		memcpy(b->data + b->size, data, size);
	b->size += PRF_ALIGN8(size);	/* the padding is already zero */
}

static void header_property(struct header_builder *b, uint16_t tag,
			    const void *value, size_t length)
{
	struct prf_property property = { .tag = tag, .length = (uint32_t)length };

	if (length > PRF_HEADER_MAX) {
		b->failed = -E2BIG;
		return;
	}
	header_put(b, &property, sizeof(property));
	header_put(b, value, length);
}

static void header_string(struct header_builder *b, uint16_t tag,
			  const char *s)
{
	if (s && *s)
		header_property(b, tag, s, strlen(s));
}

static void header_event(struct header_builder *b, const struct prf_event *ev)
{
	struct prf_event_property property = { 0 };
	const void *attr = ev->attr_bytes;
	uint32_t attr_size = ev->attr_size;
	size_t name_length = ev->name ? strlen(ev->name) : 0;
	size_t length;

	if (!attr || !attr_size) {
		attr = &ev->attr;
		attr_size = ev->attr.size && ev->attr.size < sizeof(ev->attr) ?
			    ev->attr.size : sizeof(ev->attr);
	}
	if (attr_size < PERF_ATTR_SIZE_VER0) {
		b->failed = -EINVAL;
		return;
	}
	if (ev->id_count > PRF_EVENT_IDS_MAX || name_length > PRF_EVENT_NAME_MAX) {
		b->failed = -E2BIG;
		return;
	}
	property.attr_size = attr_size;
	property.name_length = (uint32_t)name_length;
	property.id_count = ev->id_count;
	length = sizeof(property) + PRF_ALIGN8(attr_size) +
		 PRF_ALIGN8(name_length) + ev->id_count * sizeof(uint64_t);

	struct prf_property head = { .tag = PRF_PROP_EVENT,
				     .length = (uint32_t)length };
	header_put(b, &head, sizeof(head));
	header_put(b, &property, sizeof(property));
	header_put(b, attr, attr_size);
	if (attr == (const void *)&ev->attr && !b->failed) {
		/* The kernel's own size field must say what was stored. */
		uint32_t size = attr_size;

		memcpy(b->data + b->size - PRF_ALIGN8(attr_size) +
		       offsetof(struct perf_event_attr, size), &size, sizeof(size));
	}
	header_put(b, ev->name, name_length);
	header_put(b, ev->ids, ev->id_count * sizeof(uint64_t));
}

static int header_build(struct header_builder *b,
			const struct prf_file_info *info)
{
	struct prf_file_header fixed = { 0 };
	struct prf_clock_property clock = {
		.clockid = info->clockid,
		.realtime_offset_ns = info->realtime_offset_ns,
		.start_time_ns = info->start_time_ns,
	};
	uint32_t cpus[2] = { info->nr_cpus_online, info->nr_cpus_configured };
	uint32_t crc;

	if (info->event_count > PRF_EVENT_MAX)
		return -E2BIG;
	memcpy(fixed.magic, PRF_FILE_MAGIC, sizeof(fixed.magic));
	fixed.version_major = PRF_VERSION_MAJOR;
	fixed.version_minor = PRF_VERSION_MINOR;
	fixed.byte_order = PRF_BYTE_ORDER_MARK;
	header_put(b, &fixed, sizeof(fixed));

	header_string(b, PRF_PROP_HOSTNAME, info->hostname);
	header_string(b, PRF_PROP_KERNEL_RELEASE, info->kernel_release);
	header_string(b, PRF_PROP_KERNEL_VERSION, info->kernel_version);
	header_string(b, PRF_PROP_MACHINE, info->machine);
	header_string(b, PRF_PROP_BOOT_ID, info->boot_id);
	header_property(b, PRF_PROP_NR_CPUS, cpus, sizeof(cpus));
	header_property(b, PRF_PROP_PAGE_SIZE, &info->page_size,
			sizeof(info->page_size));
	header_property(b, PRF_PROP_CLOCK, &clock, sizeof(clock));
	for (size_t i = 0; i < info->meta_count; i++) {
		const struct prf_meta *m = &info->meta[i];
		size_t key = strlen(m->key), value = strlen(m->value);
		char *kv = malloc(key + 1 + value);

		if (!kv) {
			b->failed = -ENOMEM;
			break;
		}
		memcpy(kv, m->key, key + 1);
		memcpy(kv + key + 1, m->value, value);
		header_property(b, PRF_PROP_META, kv, key + 1 + value);
		free(kv);
	}
	for (size_t i = 0; i < info->event_count; i++)
		header_event(b, &info->events[i]);
	if (b->failed)
		return b->failed;

	struct prf_file_header *out = (struct prf_file_header *)b->data;
	out->header_size = (uint32_t)b->size;
	crc = prf_crc32c(0, b->data, b->size);
	out->header_crc = crc;
	return 0;
}

/* ---- writing ------------------------------------------------------- */

/* Writes all of iov, restarting after short writes and signals. */
static int write_all(int fd, struct iovec *iov, int count)
{
	while (count > 0) {
		ssize_t n = writev(fd, iov, count);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		while (count > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			count--;
		}
		if (count > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/*
 * A failed write may have left part of a chunk: cut the file back to the
 * last whole chunk so that what is on disk stays a valid, readable file.
 */
static void cut_back(struct prf_writer *w)
{
	if (ftruncate(w->fd, (off_t)w->good_offset) == 0)
		lseek(w->fd, (off_t)w->good_offset, SEEK_SET);
}

static int write_chunk(struct prf_writer *w, uint8_t codec, uint8_t flags,
		       const void *payload, uint32_t stored_size,
		       uint32_t raw_size, uint32_t records, uint32_t samples,
		       uint64_t first_time, uint64_t last_time)
{
	static const uint8_t zeros[8];
	struct prf_chunk_header header = { 0 };
	struct iovec iov[3];
	int ret;

	memcpy(header.magic, PRF_CHUNK_MAGIC, sizeof(header.magic));
	header.codec = codec;
	header.flags = flags;
	header.header_size = PRF_CHUNK_HEADER_SIZE;
	header.raw_size = raw_size;
	header.stored_size = stored_size;
	header.record_count = records;
	header.samples = samples;
	header.payload_crc = prf_crc32c(0, payload, stored_size);
	header.sequence = w->sequence;
	header.first_time = first_time;
	header.last_time = last_time;
	header.header_crc = prf_crc32c(0, &header,
				       offsetof(struct prf_chunk_header, header_crc));

	iov[0] = (struct iovec){ &header, sizeof(header) };
	iov[1] = (struct iovec){ (void *)payload, stored_size };
	iov[2] = (struct iovec){ (void *)zeros, PRF_ALIGN8(stored_size) - stored_size };
	ret = write_all(w->fd, iov, 3);
	if (ret < 0) {
		cut_back(w);
		return ret;
	}
	w->sequence++;
	w->good_offset += sizeof(header) + PRF_ALIGN8(stored_size);
	w->stats.file_bytes = w->good_offset;
	return 0;
}

static void chunk_reset(struct prf_writer *w, struct open_chunk *c)
{
	c->used = 0;
	c->records = 0;
	c->first_time = c->last_time = 0;
	/* One huge record (a kallsyms snapshot) must not pin its buffers. */
	if (c->capacity > 2 * w->chunk_target) {
		uint8_t *data = realloc(c->data, w->chunk_target);

		/* Shrinking rarely fails; when it does the old buffer stays. */
		if (data) {
			c->data = data;
			c->capacity = w->chunk_target;
		}
	}
	if (w->compressed_capacity > 2 * ZSTD_compressBound(w->chunk_target) &&
	    w->sideband.capacity <= 2 * w->chunk_target &&
	    w->samples.capacity <= 2 * w->chunk_target) {
		size_t bound = ZSTD_compressBound(w->chunk_target);
		uint8_t *compressed = realloc(w->compressed, bound);

		if (compressed) {
			w->compressed = compressed;
			w->compressed_capacity = bound;
		}
	}
}

static int chunk_grow(struct prf_writer *w, struct open_chunk *c, size_t need);

/* The compact samples become the chunk's two records. */
static int compact_to_chunk(struct prf_writer *w, struct open_chunk *c)
{
	size_t size = prf_compact_writer_size(w->compact);

	if (!size)
		return 0;
	if (chunk_grow(w, c, size) < 0) {
		prf_compact_writer_reset(w->compact);
		return writer_fail(w, -ENOMEM, "no memory for a chunk of %zu bytes", size);
	}
	c->used = prf_compact_writer_emit(w->compact, c->data);
	return 0;
}

static int flush_chunk(struct prf_writer *w, struct open_chunk *c)
{
	const void *payload;
	size_t stored;
	uint32_t records = c->records;
	uint8_t codec = PRF_CODEC_NONE;
	int ret;

	/* Compact samples are two records, whatever their number. */
	if (c == &w->samples && w->compact) {
		ret = compact_to_chunk(w, c);
		if (ret < 0)
			goto drop;
		records = c->used ? 2 : 0;
	}
	payload = c->data;
	stored = c->used;
	if (!c->used)
		return 0;
	if (w->level >= 0) {
		size_t n = ZSTD_compressCCtx(w->cctx, w->compressed,
					     w->compressed_capacity, c->data,
					     c->used, w->level);

		if (ZSTD_isError(n)) {
			ret = writer_fail(w, -EIO, "zstd: %s", ZSTD_getErrorName(n));
			goto drop;
		}
		/* Incompressible data is stored as it is: never worse than raw. */
		if (n < c->used) {
			payload = w->compressed;
			stored = n;
			codec = PRF_CODEC_ZSTD;
		}
	}
	ret = write_chunk(w, codec, c->flags, payload, (uint32_t)stored,
			  (uint32_t)c->used, records,
			  c == &w->samples ? c->records : 0, c->first_time, c->last_time);
	if (ret < 0) {
		writer_fail(w, ret, "writing chunk %llu: %s",
			    (unsigned long long)w->sequence, strerror(-ret));
		goto drop;
	}
	w->stats.chunks++;
	w->stats.records += records;
	w->stats.raw_bytes += c->used;
	w->stats.stored_bytes += stored;
	time_range_add(&w->first_time, &w->last_time, c->first_time);
	time_range_add(&w->first_time, &w->last_time, c->last_time);
	chunk_reset(w, c);
	return 0;
drop:
	w->stats.dropped_records += c->records;
	w->stats.dropped_bytes += c->used;
	chunk_reset(w, c);
	return ret;
}

/* The samples' chunk always after the other records that came before it. */
int prf_writer_flush(struct prf_writer *w)
{
	int ret = flush_chunk(w, &w->sideband);
	int samples = flush_chunk(w, &w->samples);

	return ret < 0 ? ret : samples;
}

/* Room for need bytes in c, and for them compressed. */
static int chunk_grow(struct prf_writer *w, struct open_chunk *c, size_t need)
{
	size_t bound;

	if (need <= c->capacity)
		return 0;
	if (prf_ensure_mem((void **)&c->data, &c->capacity, 1, need) < 0)
		return -ENOMEM;
	bound = ZSTD_compressBound(c->capacity);
	if (bound > w->compressed_capacity) {
		uint8_t *compressed = realloc(w->compressed, bound);

		if (!compressed)
			return -ENOMEM;
		w->compressed = compressed;
		w->compressed_capacity = bound;
	}
	return 0;
}

static int record_check(struct prf_writer *w, const void *record, size_t size)
{
	size_t framed;

	if (size < sizeof(struct perf_event_header) || size % 8 ||
	    size > PRF_CHUNK_RAW_MAX)
		return writer_fail(w, -EINVAL, "record of %zu bytes: sizes are multiples of 8 from 8 to %u",
				   size, PRF_CHUNK_RAW_MAX);
	if (prf_record_size(record, size, &framed) < 0 || framed != size)
		return writer_fail(w, -EINVAL, "record size %zu does not match its header",
				   size);
	return 0;
}

/*
 * A compact chunk is full at chunk_target bytes of its own, or when its
 * samples would expand past what a reader accepts (PRF_CHUNK_RAW_MAX).
 */
static int append_compact(struct prf_writer *w, const void *record, size_t size,
			  uint64_t time)
{
	struct open_chunk *c = &w->samples;
	int ret = 0;

	if (c->records &&
	    (prf_compact_writer_size(w->compact) + size > w->chunk_target ||
	     prf_compact_writer_expanded(w->compact) + size > w->expanded_limit))
		ret = prf_writer_flush(w);
	if (prf_compact_writer_add(w->compact, record, size) < 0) {
		w->stats.dropped_records++;
		w->stats.dropped_bytes += size;
		return writer_fail(w, -ENOMEM, "no memory for a %zu-byte record", size);
	}
	c->records++;
	time_range_add(&c->first_time, &c->last_time, time);
	return ret;
}

int prf_writer_append(struct prf_writer *w, const void *record, size_t size,
		      uint64_t time)
{
	int ret = record_check(w, record, size);
	struct open_chunk *c;

	if (ret < 0)
		return ret;
	if (w->finished)
		return writer_fail(w, -EINVAL, "append after finish");
	uint32_t type;

	memcpy(&type, record, sizeof(type));
	c = type == PERF_RECORD_SAMPLE ? &w->samples : &w->sideband;
	if (c == &w->samples && w->compact)
		return append_compact(w, record, size, time);
	/* A failed flush drops the full chunk; this record starts the next. */
	if (c->used && c->used + size > w->chunk_target)
		ret = c == &w->samples ? prf_writer_flush(w) : flush_chunk(w, c);
	if (chunk_grow(w, c, c->used + size) < 0) {
		w->stats.dropped_records++;
		w->stats.dropped_bytes += size;
		return writer_fail(w, -ENOMEM, "no memory for a %zu-byte record", size);
	}
	memcpy(c->data + c->used, record, size);
	c->used += size;
	c->records++;
	time_range_add(&c->first_time, &c->last_time, time);
	return ret;
}

int prf_writer_finish(struct prf_writer *w)
{
	struct prf_trailer trailer = { 0 };
	int ret;

	if (w->finished)
		return 0;
	ret = prf_writer_flush(w);
	if (ret < 0)
		return ret;
	trailer.chunk_count = w->stats.chunks;
	trailer.record_count = w->stats.records;
	trailer.raw_bytes = w->stats.raw_bytes;
	trailer.stored_bytes = w->stats.stored_bytes;
	trailer.first_time = w->first_time;
	trailer.last_time = w->last_time;
	trailer.dropped_records = w->stats.dropped_records;
	trailer.dropped_bytes = w->stats.dropped_bytes;
	ret = write_chunk(w, PRF_CODEC_NONE, PRF_CHUNK_FINAL, &trailer,
			  sizeof(trailer), sizeof(trailer), 0, 0,
			  w->first_time, w->last_time);
	if (ret < 0)
		return writer_fail(w, ret, "writing the trailer: %s", strerror(-ret));
	w->finished = 1;
	return 0;
}

int prf_writer_open(struct prf_writer **out, int fd,
		    const struct prf_file_info *info,
		    const struct prf_writer_options *options,
		    struct prf_error *error)
{
	struct prf_writer_options defaults = { 0 };
	struct header_builder header = { 0 };
	struct prf_writer *w;
	struct iovec iov;
	int ret;

	*out = NULL;
	if (!options)
		options = &defaults;
	const char *name = options->name ? options->name : "(perfrec file)";
	if (options->chunk_size > PRF_CHUNK_RAW_MAX)
		return prf_set_error(error, -EINVAL, "%s: chunk size %zu is over the limit of %u",
				     name, options->chunk_size, PRF_CHUNK_RAW_MAX);
	w = calloc(1, sizeof(*w));
	if (!w)
		return prf_set_error(error, -ENOMEM, "%s: out of memory", name);
	w->fd = fd;
	w->name = strdup(name);
	w->level = options->zstd_level ? options->zstd_level : PRF_ZSTD_LEVEL_DEFAULT;
	if (w->level > ZSTD_maxCLevel())
		w->level = ZSTD_maxCLevel();
	w->chunk_target = options->chunk_size ? options->chunk_size : PRF_CHUNK_SIZE_DEFAULT;
	if (w->chunk_target < 4096)
		w->chunk_target = 4096;
	w->samples.flags = PRF_CHUNK_SAMPLES;
	w->expanded_limit = PRF_CHUNK_RAW_MAX / 2;
	if (options->sample_encoding == PRF_ENCODING_COMPACT &&
	    prf_compact_writer_new(&w->compact, info) < 0) {
		prf_writer_close(w);
		return prf_set_error(error, -ENOMEM, "%s: out of memory", name);
	}
	w->cctx = ZSTD_createCCtx();
	if (!w->name || !w->cctx || chunk_grow(w, &w->sideband, 4096) < 0 ||
	    chunk_grow(w, &w->samples, w->chunk_target) < 0) {
		prf_writer_close(w);
		return prf_set_error(error, -ENOMEM, "%s: out of memory", name);
	}

	ret = header_build(&header, info);
	if (ret < 0) {
		free(header.data);
		prf_writer_close(w);
		return prf_set_error(error, ret, "%s: cannot build the header: %s",
				     name, strerror(-ret));
	}
	iov = (struct iovec){ header.data, header.size };
	ret = write_all(fd, &iov, 1);
	w->good_offset = header.size;
	w->stats.file_bytes = header.size;
	free(header.data);
	if (ret < 0) {
		prf_writer_close(w);
		return prf_set_error(error, ret, "%s: writing the header: %s",
				     name, strerror(-ret));
	}
	*out = w;
	return 0;
}

void prf_writer_close(struct prf_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	prf_compact_writer_free(w->compact);
	free(w->sideband.data);
	free(w->samples.data);
	free(w->compressed);
	free(w->name);
	free(w);
}

void prf_writer_get_stats(const struct prf_writer *w,
			  struct prf_writer_stats *stats)
{
	*stats = w->stats;
}

size_t prf_writer_pending(const struct prf_writer *w)
{
	return w->sideband.used + w->samples.used +
	       (w->compact ? prf_compact_writer_size(w->compact) : 0);
}

const char *prf_writer_last_error(const struct prf_writer *w)
{
	return w->error;
}
