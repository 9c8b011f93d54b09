/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rehost IN OUT HOSTNAME [KEEP]: a copy of the capture IN as if recorded
 * on HOSTNAME, through the format library (header facts, events and
 * every record kept; chunks written anew).  With KEEP, only every KEEP-th
 * sample is kept, so that copies of one capture differ in their counts.
 * Prints the number of samples written: what a report of OUT must count.
 * For the many-hosts tests (test-report-hosts.sh).
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
	struct prf_sample sample;

	if (record->type != PERF_RECORD_SAMPLE || !event ||
	    prf_decode_sample(&event->attr, record->data, record->size, &sample) < 0 ||
	    !(sample.sample_type & PERF_SAMPLE_TIME))
		return 0;
	return sample.time;
}

int main(int argc, char **argv)
{
	struct prf_reader *reader;
	struct prf_writer *writer;
	struct prf_file_info info;
	struct prf_error error;
	struct prf_chunk chunk;
	unsigned long keep = 1;
	uint64_t samples = 0, kept = 0;
	int fd, ret;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: rehost IN OUT HOSTNAME [KEEP]\n");
		return 2;
	}
	if (argc == 5 && (keep = strtoul(argv[4], NULL, 10)) == 0)
		keep = 1;
	if (prf_reader_open(&reader, argv[1], &error) < 0) {
		fprintf(stderr, "rehost: %s\n", error.message);
		return 1;
	}
	info = *prf_reader_info(reader);
	info.hostname = argv[3];
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "rehost: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (prf_writer_open(&writer, fd, &info, NULL, &error) < 0) {
		fprintf(stderr, "rehost: %s\n", error.message);
		return 1;
	}
	while ((ret = prf_reader_next_chunk(reader, &chunk)) == 1) {
		struct prf_record record;

		while (prf_chunk_next_record(&chunk, &record) == 1) {
			if (record.type == PERF_RECORD_SAMPLE && samples++ % keep)
				continue;
			kept += record.type == PERF_RECORD_SAMPLE;
			if (prf_writer_append(writer, record.data, record.size,
					      record_time(reader, &record)) < 0) {
				fprintf(stderr, "rehost: %s\n", prf_writer_last_error(writer));
				return 1;
			}
		}
	}
	if (ret < 0 || prf_writer_finish(writer) < 0 || close(fd) < 0) {
		fprintf(stderr, "rehost: %s: cannot copy\n", argv[1]);
		return 1;
	}
	prf_writer_close(writer);
	prf_reader_close(reader);
	printf("%llu\n", (unsigned long long)kept);
	return 0;
}
