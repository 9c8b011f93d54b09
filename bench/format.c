/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark of libperfrec-format on real perf records.
 *
 *   format-bench convert PERF.DATA OUT.raw [RING.raw]
 *	Takes the kernel records (types below PERF_RECORD_USER_TYPE_START)
 *	out of a perf.data file, decompressing PERF_RECORD_COMPRESSED ones
 *	(perf record -z), and writes them as a raw stream.  RING.raw gets
 *	only those that came compressed, i.e. from the ring buffers, so that
 *	perfrec can be compared with perf on exactly the bytes perf
 *	compressed.  Prints perf's own sizes as key=value lines.
 *
 *   format-bench run RAW [--min-mb N] [--ratio-only] [--chunk-size BYTES]
 *		       [--compare LABEL=BYTES]...
 *	Reads RAW into memory and measures the writer and the reader at
 *	each codec: best of 3 runs of a stream repeated to at least N MB
 *	(default 256), into a memfd.  The ratio is that of a single pass:
 *	raw record bytes over the bytes of the whole perfrec file.  Each
 *	--compare adds a row: another encoding of the same records.
 *	--ratio-only writes each codec once and times nothing.
 *
 * A raw stream is what perf writes in pipe mode, minus the noise: one
 * PERF_RECORD_HEADER_ATTR per event (the attr, then its ids), then the
 * kernel records, each framed by its perf_event_header.  MB are 10^6
 * bytes; throughputs are of raw record bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include "format.h"

#define MB 1e6
#define RUNS 3
#define USER_TYPE_START		64	/* PERF_RECORD_USER_TYPE_START */
#define RECORD_HEADER_ATTR	64
#define RECORD_COMPRESSED	81	/* perf 5.2 to 6.x */
#define PERF_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "format-bench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory for %zu bytes", size);
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The whole file, in a buffer malloc() aligned for u64 reads. */
static uint8_t *read_whole(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *data;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		die("%s: %s", path, strerror(errno));
	data = xmalloc((size_t)st.st_size);
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, data + done, (size_t)st.st_size - done);

		if (n <= 0)
			die("%s: %s", path, n < 0 ? strerror(errno) : "shrank");
		done += (size_t)n;
	}
	close(fd);
	*size = done;
	return data;
}

static FILE *create(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

static void put(FILE *f, const void *data, size_t size, const char *path)
{
	if (fwrite(data, 1, size, f) != size)
		die("%s: %s", path, strerror(errno));
}

/* ---- convert: perf.data to a raw stream ---------------------------- */

struct perf_file_section {
	uint64_t offset, size;
};

/* tools/perf/util/header.h */
struct perf_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	uint64_t adds_features[4];
};

struct converter {
	const uint8_t *file;
	size_t file_size;
	FILE *out, *ring;
	const char *out_path, *ring_path;
	ZSTD_DStream *zstd;
	uint8_t *pending;		/* decompressed, not yet whole records */
	size_t pending_size, pending_capacity;
	/* what is reported */
	uint64_t records, raw_bytes, ring_records, ring_bytes;
	uint64_t user_records, user_bytes;
	uint64_t compressed_records, compressed_bytes, decompressed_bytes;
};

static int section_ok(const struct converter *c, const struct perf_file_section *s)
{
	return s->offset <= c->file_size && s->size <= c->file_size - s->offset;
}

/* One PERF_RECORD_HEADER_ATTR: the attr as perf stored it, then the ids. */
static void convert_attr(struct converter *c, const uint8_t *attr,
			 size_t attr_size, const struct perf_file_section *ids)
{
	struct perf_event_header h = { .type = RECORD_HEADER_ATTR };
	size_t size = sizeof(h) + ((attr_size + 7) & ~(size_t)7) + ids->size;
	static const uint8_t zeros[8];

	if (!section_ok(c, ids) || ids->size % 8 || size > UINT16_MAX)
		die("perf.data: bad event ids");
	h.size = (uint16_t)size;
	put(c->out, &h, sizeof(h), c->out_path);
	put(c->out, attr, attr_size, c->out_path);
	put(c->out, zeros, (8 - attr_size % 8) % 8, c->out_path);
	put(c->out, c->file + ids->offset, ids->size, c->out_path);
	if (c->ring) {
		put(c->ring, &h, sizeof(h), c->ring_path);
		put(c->ring, attr, attr_size, c->ring_path);
		put(c->ring, zeros, (8 - attr_size % 8) % 8, c->ring_path);
		put(c->ring, c->file + ids->offset, ids->size, c->ring_path);
	}
}

static void convert_attrs(struct converter *c, const struct perf_file_header *h)
{
	size_t attr_size = h->attr_size - sizeof(struct perf_file_section);

	if (!section_ok(c, &h->attrs) || h->attr_size <= sizeof(struct perf_file_section) ||
	    h->attrs.size % h->attr_size)
		die("perf.data: bad attrs section");
	for (uint64_t at = 0; at < h->attrs.size; at += h->attr_size) {
		const uint8_t *entry = c->file + h->attrs.offset + at;
		struct perf_file_section ids;

		memcpy(&ids, entry + attr_size, sizeof(ids));
		convert_attr(c, entry, attr_size, &ids);
	}
}

static void emit(struct converter *c, const uint8_t *record, size_t size,
		 int from_ring)
{
	struct perf_event_header h;

	memcpy(&h, record, sizeof(h));
	if (h.type >= USER_TYPE_START) {
		c->user_records++;
		c->user_bytes += size;
		return;
	}
	if (size % 8)
		die("perf.data: a %zu-byte record of type %u", size, h.type);
	put(c->out, record, size, c->out_path);
	c->records++;
	c->raw_bytes += size;
	if (from_ring && c->ring) {
		put(c->ring, record, size, c->ring_path);
		c->ring_records++;
		c->ring_bytes += size;
	}
}

/* Hands out the whole records decompressed so far; keeps a split one. */
static void drain_pending(struct converter *c)
{
	size_t at = 0;

	while (c->pending_size - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, c->pending + at, sizeof(h));
		if (h.size < sizeof(h))
			die("perf.data: a compressed record of size %u", h.size);
		if (h.size > c->pending_size - at)
			break;
		emit(c, c->pending + at, h.size, 1);
		at += h.size;
	}
	memmove(c->pending, c->pending + at, c->pending_size - at);
	c->pending_size -= at;
}

/*
 * PERF_RECORD_COMPRESSED: zstd frames of ring-buffer data.  A record may
 * be split across two of them, as perf's own reader allows.
 */
static void convert_compressed(struct converter *c, const uint8_t *record,
			       size_t size)
{
	ZSTD_inBuffer in = { record + 8, size - 8, 0 };

	c->compressed_records++;
	c->compressed_bytes += size;
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t ret;

		if (c->pending_capacity - c->pending_size < (1 << 20)) {
			c->pending_capacity = c->pending_capacity * 2 + (1 << 20);
			c->pending = realloc(c->pending, c->pending_capacity);
			if (!c->pending)
				die("out of memory");
		}
		out = (ZSTD_outBuffer){ c->pending, c->pending_capacity,
					c->pending_size };
		ret = ZSTD_decompressStream(c->zstd, &out, &in);
		if (ZSTD_isError(ret))
			die("perf.data: zstd: %s", ZSTD_getErrorName(ret));
		c->decompressed_bytes += out.pos - c->pending_size;
		c->pending_size = out.pos;
	}
	drain_pending(c);
}

static void convert_data(struct converter *c, const struct perf_file_section *data)
{
	const uint8_t *p = c->file + data->offset, *end = p + data->size;

	if (!section_ok(c, data))
		die("perf.data: bad data section");
	while (end - p >= (ptrdiff_t)sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > end - p)
			die("perf.data: bad record at data offset %td", p - c->file);
		if (h.type == RECORD_COMPRESSED)
			convert_compressed(c, p, h.size);
		else
			emit(c, p, h.size, 0);
		p += h.size;
	}
	if (c->pending_size)
		die("perf.data: %zu decompressed bytes left over", c->pending_size);
}

static int convert(int argc, char **argv)
{
	struct converter c = { 0 };
	struct perf_file_header h;

	if (argc != 2 && argc != 3)
		die("usage: format-bench convert PERF.DATA OUT.raw [RING.raw]");
	c.file = read_whole(argv[0], &c.file_size);
	if (c.file_size < sizeof(h))
		die("%s: too short for perf.data", argv[0]);
	memcpy(&h, c.file, sizeof(h));
	if (h.magic != PERF_MAGIC)
		die("%s: not a perf.data file (or not from a little-endian host)", argv[0]);
	c.out_path = argv[1];
	c.out = create(argv[1]);
	if (argc == 3) {
		c.ring_path = argv[2];
		c.ring = create(argv[2]);
	}
	c.zstd = ZSTD_createDStream();
	if (!c.zstd || ZSTD_isError(ZSTD_initDStream(c.zstd)))
		die("zstd: cannot make a decompression stream");
	convert_attrs(&c, &h);
	convert_data(&c, &h.data);
	if (fclose(c.out) != 0 || (c.ring && fclose(c.ring) != 0))
		die("%s: %s", argv[1], strerror(errno));
	printf("perf_file_bytes=%zu\nperf_data_bytes=%llu\n", c.file_size,
	       (unsigned long long)h.data.size);
	printf("perf_compressed_records=%llu\nperf_compressed_bytes=%llu\n",
	       (unsigned long long)c.compressed_records,
	       (unsigned long long)c.compressed_bytes);
	printf("perf_decompressed_bytes=%llu\n",
	       (unsigned long long)c.decompressed_bytes);
	printf("perf_user_records=%llu\nperf_user_bytes=%llu\n",
	       (unsigned long long)c.user_records,
	       (unsigned long long)c.user_bytes);
	printf("records=%llu\nraw_bytes=%llu\nring_records=%llu\nring_bytes=%llu\n",
	       (unsigned long long)c.records, (unsigned long long)c.raw_bytes,
	       (unsigned long long)c.ring_records,
	       (unsigned long long)c.ring_bytes);
	ZSTD_freeDStream(c.zstd);
	free(c.pending);
	free((void *)c.file);
	return 0;
}

/* ---- run: the stream in memory ------------------------------------- */

struct stream {
	uint8_t *data;
	const uint8_t **records;
	uint16_t *sizes;
	uint64_t *times;
	size_t count;
	uint64_t bytes;
	struct prf_event *events;
	size_t event_count;
};

static void add_event(struct stream *s, const uint8_t *record, size_t size)
{
	struct prf_event *ev;
	uint32_t attr_size;
	size_t padded;

	memcpy(&attr_size, record + 8 + offsetof(struct perf_event_attr, size), 4);
	padded = (attr_size + 7) & ~(size_t)7;
	if (attr_size < PERF_ATTR_SIZE_VER0 || 8 + padded > size)
		die("raw stream: bad HEADER_ATTR record");
	s->events = realloc(s->events, (s->event_count + 1) * sizeof(*s->events));
	if (!s->events)
		die("out of memory");
	ev = &s->events[s->event_count++];
	*ev = (struct prf_event){ 0 };
	memcpy(&ev->attr, record + 8, attr_size < sizeof(ev->attr) ?
				       attr_size : sizeof(ev->attr));
	ev->attr_bytes = record + 8;
	ev->attr_size = attr_size;
	ev->name = "perf-record";
	ev->ids = (const uint64_t *)(record + 8 + padded);
	ev->id_count = (uint32_t)((size - 8 - padded) / 8);
}

/* The time a collector would pass to the writer: not part of the timing. */
static uint64_t record_time(const struct stream *s, const uint8_t *record,
			    size_t size)
{
	struct prf_decoded d;

	if (!s->event_count ||
	    prf_decode_record(&s->events[0].attr, record, size, &d) != 1)
		return 0;
	return d.type == PERF_RECORD_SAMPLE ? d.sample.time : d.id.time;
}

static void load_stream(struct stream *s, const char *path)
{
	size_t size, at = 0;

	*s = (struct stream){ 0 };
	s->data = read_whole(path, &size);
	s->records = xmalloc(size / 8 * sizeof(*s->records));
	s->sizes = xmalloc(size / 8 * sizeof(*s->sizes));
	while (size - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, s->data + at, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > size - at)
			die("%s: bad record at offset %zu", path, at);
		if (h.type == RECORD_HEADER_ATTR) {
			add_event(s, s->data + at, h.size);
		} else {
			s->records[s->count] = s->data + at;
			s->sizes[s->count++] = h.size;
			s->bytes += h.size;
		}
		at += h.size;
	}
	s->times = xmalloc(s->count * sizeof(*s->times));
	for (size_t i = 0; i < s->count; i++)
		s->times[i] = record_time(s, s->records[i], s->sizes[i]);
}

static void free_stream(struct stream *s)
{
	free(s->events);
	free(s->times);
	free(s->sizes);
	free(s->records);
	free(s->data);
}

/* ---- the measurements ---------------------------------------------- */

struct options {
	double min_mb;
	int ratio_only;			/* skip the timed runs */
	size_t chunk_size;
	const char *compare_label[16];
	uint64_t compare_bytes[16];
	int compare_count;
};

struct result {
	const char *codec;
	uint64_t file_bytes;		/* single pass */
	double write_mbs, read_mbs, decode_mbs;
};

static void fill_info(struct prf_file_info *info, const struct stream *s,
		      struct prf_host *host)
{
	*info = (struct prf_file_info){ 0 };
	if (prf_file_info_detect(info, host) < 0)
		die("prf_file_info_detect failed");
	info->events = s->events;
	info->event_count = s->event_count;
}

/* Writes the stream passes times over into fd, from its start. */
static void write_stream(const struct stream *s, int fd, int level,
			 const struct options *o, unsigned passes)
{
	struct prf_writer_options wo = { .zstd_level = level,
					 .chunk_size = o->chunk_size,
					 .name = "bench" };
	struct prf_file_info info;
	struct prf_writer *w;
	struct prf_error error;
	struct prf_host host;

	fill_info(&info, s, &host);
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		die("ftruncate: %s", strerror(errno));
	if (prf_writer_open(&w, fd, &info, &wo, &error) < 0)
		die("%s", error.message);
	for (unsigned pass = 0; pass < passes; pass++)
		for (size_t i = 0; i < s->count; i++)
			if (prf_writer_append(w, s->records[i], s->sizes[i],
					      s->times[i]) < 0)
				die("%s", prf_writer_last_error(w));
	if (prf_writer_finish(w) < 0)
		die("%s", prf_writer_last_error(w));
	prf_writer_close(w);
}

/* Returns the records read; with decode, decodes each one as well. */
static uint64_t read_stream(int fd, int decode)
{
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_record record;
	struct prf_decoded d;
	uint64_t count = 0, decoded = 0;

	if (prf_reader_open_fd(&r, fd, "bench", &error) < 0)
		die("%s", error.message);
	while (prf_reader_next_chunk(r, &chunk) == 1)
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			count++;
			if (decode) {
				const struct prf_event *ev =
					prf_reader_event_for(r, record.data, record.size);

				decoded += prf_decode_record(ev ? &ev->attr : NULL,
							     record.data, record.size,
							     &d) == 1;
			}
		}
	prf_reader_close(r);
	if (decode && !decoded)
		die("nothing decoded: prf_decode_record still a stub?");
	return count;
}

static double best_write(const struct stream *s, int fd, int level,
			 const struct options *o, unsigned passes)
{
	double best = 1e99;

	for (int run = 0; run < RUNS; run++) {
		double start = now(), elapsed;

		write_stream(s, fd, level, o, passes);
		elapsed = now() - start;
		if (elapsed < best)
			best = elapsed;
	}
	return best;
}

static double best_read(int fd, int decode, uint64_t expect)
{
	double best = 1e99;

	for (int run = 0; run < RUNS; run++) {
		double start = now(), elapsed;
		uint64_t count = read_stream(fd, decode);

		elapsed = now() - start;
		if (elapsed < best)
			best = elapsed;
		if (count != expect)
			die("read %llu records of %llu", (unsigned long long)count,
			    (unsigned long long)expect);
	}
	return best;
}

static uint64_t file_size(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);

	if (size < 0)
		die("lseek: %s", strerror(errno));
	return (uint64_t)size;
}

static void measure(const struct stream *s, int level, const struct options *o,
		    unsigned passes, struct result *res)
{
	int fd = memfd_create("format-bench", MFD_CLOEXEC);
	double total = (double)s->bytes * passes;

	if (fd < 0)
		die("memfd_create: %s", strerror(errno));
	write_stream(s, fd, level, o, 1);
	res->file_bytes = file_size(fd);
	if (o->ratio_only) {
		close(fd);
		return;
	}
	res->write_mbs = total / best_write(s, fd, level, o, passes) / MB;
	res->read_mbs = total / best_read(fd, 0, s->count * passes) / MB;
	res->decode_mbs = total / best_read(fd, 1, s->count * passes) / MB;
	close(fd);
}

static void print_table(const struct stream *s, const struct result *res,
			int count, const struct options *o, unsigned passes)
{
	size_t chunk = o->chunk_size ? o->chunk_size : PRF_CHUNK_SIZE_DEFAULT;

	printf("records: %zu (%.2f MB raw, %zu events), chunks of %zu bytes\n",
	       s->count, s->bytes / MB, s->event_count, chunk);
	if (!o->ratio_only)
		printf("timed: %u passes of the stream = %.1f MB per run, best of %d, into a memfd\n",
		       passes, s->bytes * (double)passes / MB, RUNS);
	printf("%-34s %12s %8s %11s %11s %13s\n", "encoding", "bytes", "ratio",
	       "write MB/s", "read MB/s", "read+decode");
	for (int i = 0; i < count; i++)
		if (o->ratio_only)
			printf("%-34s %12llu %8.2f %11s %11s %13s\n", res[i].codec,
			       (unsigned long long)res[i].file_bytes,
			       (double)s->bytes / res[i].file_bytes, "-", "-", "-");
		else
			printf("%-34s %12llu %8.2f %11.0f %11.0f %13.0f\n", res[i].codec,
			       (unsigned long long)res[i].file_bytes,
			       (double)s->bytes / res[i].file_bytes, res[i].write_mbs,
			       res[i].read_mbs, res[i].decode_mbs);
	for (int i = 0; i < o->compare_count; i++)
		printf("%-34s %12llu %8.2f %11s %11s %13s\n", o->compare_label[i],
		       (unsigned long long)o->compare_bytes[i],
		       (double)s->bytes / o->compare_bytes[i], "-", "-", "-");
}

static void parse_run_options(int argc, char **argv, struct options *o,
			      const char **path)
{
	*o = (struct options){ .min_mb = 256 };
	*path = NULL;
	for (int i = 0; i < argc; i++) {
		char *eq;

		if (!strcmp(argv[i], "--min-mb") && i + 1 < argc) {
			o->min_mb = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--ratio-only")) {
			o->ratio_only = 1;
		} else if (!strcmp(argv[i], "--chunk-size") && i + 1 < argc) {
			o->chunk_size = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--compare") && i + 1 < argc &&
			   (eq = strchr(argv[++i], '=')) && o->compare_count < 16) {
			*eq = '\0';
			o->compare_label[o->compare_count] = argv[i];
			o->compare_bytes[o->compare_count++] = strtoull(eq + 1, NULL, 0);
		} else if (argv[i][0] != '-' && !*path) {
			*path = argv[i];
		} else {
			die("usage: format-bench run RAW [--min-mb N] [--ratio-only] [--chunk-size BYTES] [--compare LABEL=BYTES]...");
		}
	}
	if (!*path)
		die("run: no raw stream given");
}

static int run(int argc, char **argv)
{
	static const struct { const char *name; int level; } codecs[] = {
		{ "perfrec, uncompressed", -1 },
		{ "perfrec, zstd level 1", 1 },
		{ "perfrec, zstd level 3 (default)", 3 },
	};
	struct result res[3];
	struct options o;
	struct stream s;
	const char *path;
	unsigned passes;

	parse_run_options(argc, argv, &o, &path);
	load_stream(&s, path);
	if (!s.bytes)
		die("%s: no records", path);
	/*
	 * The copies of a record are a pass apart: a pass no longer than a
	 * chunk would put two into one chunk, and zstd would find them.
	 */
	if (!o.ratio_only && s.bytes <= (o.chunk_size ? o.chunk_size :
					 PRF_CHUNK_SIZE_DEFAULT))
		die("%s: %.2f MB is not more than a chunk; record for longer to time it",
		    path, s.bytes / MB);
	passes = (unsigned)(o.min_mb * MB / s.bytes) + 1;
	for (int i = 0; i < 3; i++) {
		res[i].codec = codecs[i].name;
		measure(&s, codecs[i].level, &o, passes, &res[i]);
	}
	print_table(&s, res, 3, &o, passes);
	free_stream(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "convert"))
		return convert(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc - 2, argv + 2);
	fprintf(stderr, "usage: format-bench convert PERF.DATA OUT.raw [RING.raw]\n"
		"       format-bench run RAW [--min-mb N] [--ratio-only] [--chunk-size BYTES] [--compare LABEL=BYTES]...\n");
	return 2;
}
