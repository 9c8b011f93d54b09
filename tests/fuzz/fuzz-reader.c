/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the reader and the record decoders: whatever the bytes,
 * opening, iterating and decoding must neither crash nor read outside what
 * the library hands out.
 *
 * Built twice from this file: with PRF_LIBFUZZER defined it is a libFuzzer
 * target (clang -fsanitize=fuzzer); without, main() below replays files and
 * directories given on the command line, so that the seed corpus and the
 * saved crashes run under the ordinary (gcc, maybe ASan) build of make check.
 *
 * Two things the harness does beyond calling the API:
 *
 *  - Each record is copied into a buffer of exactly its size before it is
 *    decoded.  In place, a record sits inside a chunk buffer of up to
 *    64 MiB, and ASan would not notice a decoder reading past the record
 *    into the next one.  Every pointer a decoder returns is also checked
 *    to lie inside the record, before its sample_id trailer, and to be
 *    aligned for its type.
 *
 *  - Every input is read twice: as it is, and with the file header's and
 *    each chunk's checksums recomputed.  A mutation of a chunk otherwise
 *    only ever reaches the crc check, and the decoders would see nothing
 *    but the records of the seeds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the sums go, so that the compiler cannot drop the reads. */
static volatile uint64_t sink;

static void touch(const void *data, size_t size)
{
	const uint8_t *p = data;
	uint64_t sum = 0;

	for (size_t i = 0; i < size; i++)
		sum += p[i];
	sink += sum;
}

static void touch_string(const char *s)
{
	if (s)
		sink += strlen(s);
}

/* A broken promise of the library: stop here, with a message. */
__attribute__((noreturn, format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz-reader: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* ---- checking what the decoders return ----------------------------- */

struct span {
	const uint8_t *start;
	size_t size;
};

/*
 * A decoded array: count elements of element_size bytes at p, which must
 * lie inside the record and be aligned as align; then read them all.
 */
static void check_array(const struct span *record, const void *p,
			uint64_t count, size_t element_size, size_t align,
			const char *what)
{
	const uint8_t *start = p;

	if (!count)
		return;
	if (!p)
		fail("%s: %llu elements at NULL", what, (unsigned long long)count);
	if (start < record->start || start > record->start + record->size ||
	    count > (uint64_t)(record->start + record->size - start) / element_size)
		fail("%s: %llu x %zu bytes at record offset %td run past its fields, which end at %zu",
		     what, (unsigned long long)count, element_size,
		     start - record->start, record->size);
	if ((uintptr_t)start % align)
		fail("%s: misaligned at record offset %td", what,
		     start - record->start);
	touch(p, count * element_size);
}

/* A decoded string must end inside the record. */
static void check_string(const struct span *record, const char *s,
			 const char *what)
{
	const uint8_t *start = (const uint8_t *)s;

	if (!s)
		return;
	if (start < record->start || start >= record->start + record->size ||
	    !memchr(s, '\0', record->start + record->size - start))
		fail("%s: string not NUL-terminated inside the record", what);
	touch_string(s);
}

static void check_regs(const struct span *record, const struct prf_regs *regs,
		       const char *what)
{
	if (regs->regs && regs->count != (uint32_t)__builtin_popcountll(regs->mask))
		fail("%s: %u registers for mask 0x%llx", what, regs->count,
		     (unsigned long long)regs->mask);
	check_array(record, regs->regs, regs->regs ? regs->count : 0,
		    sizeof(uint64_t), 8, what);
}

static void check_sample(const struct span *record, const struct prf_sample *s)
{
	check_array(record, s->read_values, s->read_size, sizeof(uint64_t), 8,
		    "read values");
	check_array(record, s->callchain, s->callchain_nr, sizeof(uint64_t), 8,
		    "callchain");
	check_array(record, s->raw, s->raw_size, 1, 1, "raw data");
	check_array(record, s->branches, s->branch_nr,
		    sizeof(struct perf_branch_entry), 8, "branch stack");
	check_regs(record, &s->regs_user, "user registers");
	check_array(record, s->stack_user, s->stack_user_size, 1, 1,
		    "user stack");
	if (s->stack_user_dyn_size > s->stack_user_size)
		fail("user stack: dyn_size %llu > size %llu",
		     (unsigned long long)s->stack_user_dyn_size,
		     (unsigned long long)s->stack_user_size);
	check_regs(record, &s->regs_intr, "interrupt registers");
	check_array(record, s->aux, s->aux_size, 1, 1, "aux data");
}

static void check_decoded(const struct span *record,
			  const struct prf_decoded *d)
{
	switch (d->type) {
	case PERF_RECORD_SAMPLE:
		check_sample(record, &d->sample);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (d->mmap.build_id_size > PRF_BUILD_ID_MAX)
			fail("mmap: build-id of %u bytes", d->mmap.build_id_size);
		check_string(record, d->mmap.filename, "mmap filename");
		break;
	case PERF_RECORD_COMM:
		check_string(record, d->comm.comm, "comm");
		break;
	case PERF_RECORD_KSYMBOL:
		check_string(record, d->ksymbol.name, "ksymbol name");
		break;
	case PERF_RECORD_CGROUP:
		check_string(record, d->cgroup.path, "cgroup path");
		break;
	case PERF_RECORD_NAMESPACES:
		check_array(record, d->namespaces.links, d->namespaces.count,
			    sizeof(struct perf_ns_link_info), 8,
			    "namespace links");
		break;
	}
}

/*
 * The fields of a side-band record end where its sample_id trailer starts:
 * what a decoder hands out must lie before it, or it has taken the trailer
 * for data.  A sample has no trailer; its fields fill the whole record.
 */
static void decode_with(const struct span *record,
			const struct perf_event_attr *attr)
{
	struct span body = *record;
	struct prf_decoded decoded;
	struct prf_sample sample;
	struct prf_sample_id id;
	size_t body_size;

	if (prf_decode_sample_id(attr, record->start, record->size, &id,
				 &body_size) == 0) {
		if (body_size > record->size ||
		    body_size < sizeof(struct perf_event_header))
			fail("sample id: body of %zu bytes in a %zu-byte record",
			     body_size, record->size);
		body.size = body_size;
	}
	if (prf_decode_record(attr, record->start, record->size, &decoded) == 1)
		check_decoded(decoded.type == PERF_RECORD_SAMPLE ? record : &body,
			      &decoded);
	if (attr && prf_decode_sample(attr, record->start, record->size,
				      &sample) == 0)
		check_sample(record, &sample);
}

/* ---- walking a file ------------------------------------------------ */

static void diag_touch(void *context, uint64_t offset, const char *message)
{
	(void)context;
	sink += offset;
	touch_string(message);
}

static void touch_info(const struct prf_file_info *info)
{
	touch_string(info->hostname);
	touch_string(info->kernel_release);
	touch_string(info->kernel_version);
	touch_string(info->machine);
	touch_string(info->boot_id);
	for (size_t i = 0; i < info->meta_count; i++) {
		touch_string(info->meta[i].key);
		touch_string(info->meta[i].value);
	}
	for (size_t i = 0; i < info->event_count; i++) {
		const struct prf_event *ev = &info->events[i];

		touch(ev->attr_bytes, ev->attr_size);
		touch_string(ev->name);
		touch(ev->ids, ev->id_count * sizeof(uint64_t));
	}
}

static int event_index(const struct prf_file_info *info,
		       const struct prf_event *ev)
{
	for (size_t i = 0; i < info->event_count + info->hidden_event_count; i++)
		if (ev == &info->events[i])
			return (int)i;
	return -1;
}

/*
 * A tracepoint's format: its fields parsed, and each read from the record's
 * own bytes as if they were a sample's raw data (bytes it does not own
 * would be a heap overflow).
 */
static void decode_tracepoint_format(const struct span *record)
{
	struct prf_tracepoint_format format;
	struct prf_tracepoint_fields *fields;
	struct prf_tracepoint_value value;

	if (prf_decode_tracepoint_format(record->start, record->size, &format) < 0)
		return;
	touch_string(format.name);
	touch(format.text, format.text_size);
	if (prf_tracepoint_fields_parse(format.text, format.text_size, &fields) < 0)
		return;
	for (size_t i = 0; i < fields->count; i++) {
		touch_string(fields->fields[i].name);
		if (prf_tracepoint_field_value(&fields->fields[i], record->start, record->size,
					       &value) == 0 && value.bytes)
			touch(value.bytes, value.length);
	}
	prf_tracepoint_fields_free(fields);
}

/*
 * An off-CPU block: every pointer into the record and read whole, the
 * waker's name NUL-terminated, as the session reads them in place.
 */
static void decode_off_cpu(const struct span *record)
{
	struct prf_off_cpu block;

	if (prf_decode_off_cpu(record->start, record->size, &block) < 0)
		return;
	check_array(record, block.callchain, block.callchain_nr, sizeof(uint64_t), 8,
		    "off-CPU callchain");
	check_array(record, block.waker_callchain, block.waker_callchain_nr,
		    sizeof(uint64_t), 8, "off-CPU waker callchain");
	check_regs(record, &block.user_regs, "off-CPU user registers");
	check_array(record, block.user_stack, block.user_stack_size, 1, 1, "off-CPU user stack");
	if (!memchr(block.waker_comm, '\0', sizeof(block.waker_comm)))
		fail("off-CPU waker name not NUL-terminated");
	touch_string(block.waker_comm);
	sink += block.time + block.duration + block.pid + block.tid + block.cgroup;
}

static void read_record(struct prf_reader *r, const struct prf_record *in)
{
	const struct prf_file_info *info = prf_reader_info(r);
	const struct prf_event *ev;
	struct span record;
	uint8_t *copy;

	/* Exactly the record: any read past it is a heap overflow. */
	copy = malloc(in->size);
	if (!copy)
		fail("out of memory for a %zu-byte record", in->size);
	memcpy(copy, in->data, in->size);
	record = (struct span){ copy, in->size };

	touch_string(prf_record_type_name(in->type));
	ev = prf_reader_event_for(r, copy, in->size);
	if (ev && event_index(info, ev) < 0)
		fail("event_for: an event not among the file's");
	if (in->type == PRF_RECORD_TRACEPOINT_FORMAT)
		decode_tracepoint_format(&record);
	if (in->type == PRF_RECORD_OFF_CPU)
		decode_off_cpu(&record);
	decode_with(&record, ev ? &ev->attr : NULL);
	for (size_t i = 0; i < FUZZ_ARRAY_SIZE(fuzz_attrs); i++)
		decode_with(&record, &fuzz_attrs[i]);
	free(copy);
}

/* The reader checked the framing, so the records must tile the chunk. */
static void read_chunk(struct prf_reader *r, struct prf_chunk *chunk)
{
	struct prf_record record;
	uint32_t count = 0;
	int ret;

	if ((uintptr_t)chunk->data % 8)
		fail("chunk at %llu: payload not 8-aligned",
		     (unsigned long long)chunk->offset);
	while ((ret = prf_chunk_next_record(chunk, &record)) == 1) {
		read_record(r, &record);
		count++;
	}
	if (ret < 0)
		fail("chunk at %llu: record %u unreadable after the reader accepted the chunk",
		     (unsigned long long)chunk->offset, count);
	if (count != chunk->record_count)
		fail("chunk at %llu: %u records, header says %u",
		     (unsigned long long)chunk->offset, count,
		     chunk->record_count);
}

/*
 * What a chunk holds, whatever the order: its records counted and their
 * hashes summed.  Kept compact samples (prf_reader_keep_compact()) come
 * apart from the chunk's other records, so the two readings of a file
 * are compared chunk by chunk so.
 */
struct chunk_print {
	uint64_t records, hash_sum;
};

struct file_print {
	struct chunk_print *chunks;
	size_t count, capacity;
	uint64_t damaged;
};

static void print_add(struct chunk_print *p, const void *record, size_t size)
{
	p->records++;
	p->hash_sum += prf_hash_bytes(record, size);
}

static void file_print_add(struct file_print *f, struct chunk_print p)
{
	if (f->count == f->capacity) {
		f->capacity = f->capacity ? 2 * f->capacity : 16;
		f->chunks = realloc(f->chunks, f->capacity * sizeof(*f->chunks));
		if (!f->chunks)
			fail("out of memory for %zu chunks", f->capacity);
	}
	f->chunks[f->count++] = p;
}

static void print_chunk(const struct prf_chunk *chunk, struct file_print *f)
{
	static uint8_t rebuilt[UINT16_MAX + 1] __attribute__((aligned(8)));
	struct chunk_print p = { 0 };
	struct prf_chunk copy = *chunk;
	struct prf_record record;

	copy.position = 0;
	copy.index = 0;
	while (prf_chunk_next_record(&copy, &record) == 1)
		print_add(&p, record.data, record.size);
	for (size_t i = 0; i < chunk->compact_count; i++)
		print_add(&p, rebuilt,
			  prf_compact_sample_record(chunk, &chunk->compact[i], rebuilt));
	file_print_add(f, p);
}

/* The file again with its compact samples kept: the same records, chunks and damage. */
static void read_kept(int fd, const struct file_print *expanded)
{
	struct file_print kept = { 0 };
	struct prf_read_stats stats;
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;

	if (prf_reader_open_fd(&r, fd, "fuzz", &error) < 0)
		fail("kept: the file no longer opens: %s", error.message);
	prf_reader_keep_compact(r, 1);
	while (prf_reader_next_chunk(r, &chunk) == 1)
		print_chunk(&chunk, &kept);
	prf_reader_get_stats(r, &stats);
	kept.damaged = stats.damaged_chunks;
	prf_reader_close(r);
	if (kept.count != expanded->count || kept.damaged != expanded->damaged)
		fail("kept compact samples: %zu chunks (%llu damaged), expanded: %zu (%llu)",
		     kept.count, (unsigned long long)kept.damaged, expanded->count,
		     (unsigned long long)expanded->damaged);
	for (size_t i = 0; i < kept.count; i++)
		if (kept.chunks[i].records != expanded->chunks[i].records ||
		    kept.chunks[i].hash_sum != expanded->chunks[i].hash_sum)
			fail("chunk %zu: kept compact samples give %llu records, expanded %llu, or others",
			     i, (unsigned long long)kept.chunks[i].records,
			     (unsigned long long)expanded->chunks[i].records);
	free(kept.chunks);
}

static void read_fd(int fd)
{
	struct prf_read_stats stats;
	struct prf_reader *r;
	struct prf_error error;
	struct prf_chunk chunk;
	struct file_print expanded = { 0 };
	int ret;

	if (prf_reader_open_fd(&r, fd, "fuzz", &error) < 0) {
		touch_string(error.message);
		return;
	}
	prf_reader_set_diag(r, diag_touch, NULL);
	touch_info(prf_reader_info(r));
	while ((ret = prf_reader_next_chunk(r, &chunk)) == 1) {
		print_chunk(&chunk, &expanded);
		read_chunk(r, &chunk);
	}
	prf_reader_get_stats(r, &stats);
	if (stats.skipped_bytes + stats.truncated_bytes > stats.file_size)
		fail("stats: %llu skipped and %llu truncated of %llu bytes",
		     (unsigned long long)stats.skipped_bytes,
		     (unsigned long long)stats.truncated_bytes,
		     (unsigned long long)stats.file_size);
	expanded.damaged = stats.damaged_chunks;
	prf_reader_close(r);
	if (ret == 0)
		read_kept(fd, &expanded);
	free(expanded.chunks);
}

/* ---- the entry point ----------------------------------------------- */

static int input_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("fuzz-reader", MFD_CLOEXEC);
	if (fd < 0)
		fail("memfd_create: %s", strerror(errno));
	return fd;
}

/* The reader wants a regular file: reuse one memfd for every input. */
static void read_bytes(const uint8_t *data, size_t size)
{
	int fd = input_fd();
	size_t done = 0;

	if (ftruncate(fd, 0) < 0)
		fail("ftruncate: %s", strerror(errno));
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			fail("pwrite: %s", n < 0 ? strerror(errno) : "wrote nothing");
		done += (size_t)n;
	}
	read_fd(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;

	read_bytes(data, size);
	fixed = malloc(size ? size : 1);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	fuzz_fix_checksums(fixed, size);
	if (memcmp(fixed, data, size) != 0)
		read_bytes(fixed, size);
	free(fixed);
	return 0;
}

#ifndef PRF_LIBFUZZER
/* ---- the replay driver --------------------------------------------- */

static int verbose;

static int replay_file(const char *path)
{
	uint8_t *data = NULL;
	struct stat st;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto out;
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data || read(fd, data, (size_t)st.st_size) != st.st_size)
		goto out;
	if (verbose)
		fprintf(stderr, "fuzz-reader: %s (%lld bytes)\n", path,
			(long long)st.st_size);
	LLVMFuzzerTestOneInput(data, (size_t)st.st_size);
	ret = 0;
out:
	if (ret < 0)
		fprintf(stderr, "fuzz-reader: %s: %s\n", path, strerror(errno));
	free(data);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int skip_dots(const struct dirent *entry)
{
	return entry->d_name[0] != '.';
}

/* Every file of a directory, not recursing, in name order. */
static int replay_dir(const char *path, size_t *count)
{
	struct dirent **entries;
	int n, failed = 0;

	n = scandir(path, &entries, skip_dots, alphasort);
	if (n < 0) {
		fprintf(stderr, "fuzz-reader: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char file[4096];
		struct stat st;

		snprintf(file, sizeof(file), "%s/%s", path, entries[i]->d_name);
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			failed |= replay_file(file) < 0;
			++*count;
		}
		free(entries[i]);
	}
	free(entries);
	return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int failed = 0;

	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		verbose = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s [-v] FILE|DIR...\n"
			"Replays each file through the fuzz target.\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			failed |= replay_dir(argv[i], &count) < 0;
		} else {
			failed |= replay_file(argv[i]) < 0;
			count++;
		}
	}
	printf("fuzz-reader: replayed %zu inputs\n", count);
	return failed;
}
#endif
