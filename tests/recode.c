/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recode: write the records of a perfrec file again, through the format
 * library's writer, with the sample encoding asked for.  The same samples
 * in both encodings, for the round-trip tests (test-compact.sh) and for
 * measuring what an encoding costs on a real capture (bench/).
 *
 *   recode [--encoding compact|verbatim] [--chunk-size BYTES] [--level N] IN OUT
 *
 * Chunks of samples end where the input's did (or sooner, at the chunk
 * size), so a file recoded twice holds its samples in the same chunks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format.h"

static uint64_t record_time(const struct prf_reader *reader, const struct prf_record *record)
{
	const struct prf_event *event = prf_reader_event_for(reader, record->data, record->size);
	struct prf_decoded decoded;

	uint64_t time;

	switch (record->type) {
	/* perfrec's records with a time, all at offset 16: as perfrecd gave it. */
	case PRF_RECORD_SNAPSHOT_BEGIN:
	case PRF_RECORD_SNAPSHOT_END:
	case PRF_RECORD_STATS:
	case PRF_RECORD_LOST_NOTE:
	case PRF_RECORD_TASK_CGROUP:
	case PRF_RECORD_NSPID:
	case PRF_RECORD_JIT_MAP:
		if (record->size < 24)
			return 0;
		memcpy(&time, (const char *)record->data + 16, sizeof(time));
		return time;
	default:
		break;
	}
	if (!event || record->type >= PRF_RECORD_BASE ||
	    prf_decode_record(&event->attr, record->data, record->size, &decoded) != 1)
		return 0;
	if (record->type == PERF_RECORD_SAMPLE)
		return decoded.sample.sample_type & PERF_SAMPLE_TIME ? decoded.sample.time : 0;
	return decoded.id.time;
}

static int usage(void)
{
	fputs("usage: recode [--encoding compact|verbatim] [--chunk-size BYTES] [--level N] IN OUT\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct prf_writer_options options = { .sample_encoding = PRF_ENCODING_COMPACT };
	struct prf_writer_stats stats;
	struct prf_reader *reader;
	struct prf_writer *writer;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_record record;
	const char *in = NULL, *out = NULL;
	int fd, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--encoding") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "compact"))
				options.sample_encoding = PRF_ENCODING_COMPACT;
			else if (!strcmp(argv[i], "verbatim"))
				options.sample_encoding = PRF_ENCODING_VERBATIM;
			else
				return usage();
		} else if (!strcmp(argv[i], "--chunk-size") && i + 1 < argc) {
			options.chunk_size = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
			options.zstd_level = atoi(argv[++i]);
		} else if (argv[i][0] == '-' || (in && out)) {
			return usage();
		} else if (!in) {
			in = argv[i];
		} else {
			out = argv[i];
		}
	}
	if (!in || !out)
		return usage();
	if (prf_reader_open(&reader, in, &error) < 0) {
		fprintf(stderr, "recode: %s\n", error.message);
		return 1;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "recode: %s: %s\n", out, strerror(errno));
		return 1;
	}
	options.name = out;
	if (prf_writer_open(&writer, fd, prf_reader_info(reader), &options, &error) < 0) {
		fprintf(stderr, "recode: %s\n", error.message);
		return 1;
	}
	while ((ret = prf_reader_next_chunk(reader, &chunk)) == 1) {
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			ret = prf_writer_append(writer, record.data, record.size,
						record_time(reader, &record));
			if (ret < 0) {
				fprintf(stderr, "recode: %s\n", prf_writer_last_error(writer));
				return 1;
			}
		}
		if ((chunk.flags & PRF_CHUNK_SAMPLES) && prf_writer_flush(writer) < 0) {
			fprintf(stderr, "recode: %s\n", prf_writer_last_error(writer));
			return 1;
		}
	}
	if (ret < 0) {
		fprintf(stderr, "recode: %s: %s\n", in, strerror(-ret));
		return 1;
	}
	if (prf_writer_finish(writer) < 0) {
		fprintf(stderr, "recode: %s\n", prf_writer_last_error(writer));
		return 1;
	}
	prf_writer_get_stats(writer, &stats);
	prf_writer_close(writer);
	prf_reader_close(reader);
	if (close(fd) < 0) {
		fprintf(stderr, "recode: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return 0;
}
