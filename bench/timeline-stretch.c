/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline-stretch IN OUT SECONDS: a capture of SECONDS made of the real
 * capture IN, for bench/timeline-page.sh (the page of an hour or a day
 * without recording one).  Through the format library, as tests/rehost.c
 * and tests/recode.c copy files:
 *   - every record of IN but its samples, once, as they were (header
 *     facts, events, the side-band: comm, mmap, the STATS of perfrecd);
 *   - IN's samples again and again, copy k with its time (the sample's
 *     PERF_SAMPLE_TIME, the writer's chunk times) moved by k spans, a
 *     span being IN's first to last sample rounded up to a whole second,
 *     until SECONDS are covered: the same stacks, processes and CPUs,
 *     the same rate (IN's), a later time.
 * Prints the copies and the samples written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format.h"

struct kept {
	void *data;
	size_t size;
	size_t time_at;		/* byte offset of the sample's time */
	uint64_t time;
};

/* Where PERF_SAMPLE_TIME is in a sample record: after the header, id, ip, tid. */
static int sample_time(const struct prf_reader *reader, const struct prf_record *record,
		       size_t *at, uint64_t *time)
{
	const struct prf_event *event = prf_reader_event_for(reader, record->data, record->size);
	struct prf_sample sample;
	size_t offset = 8;

	if (!event || prf_decode_sample(&event->attr, record->data, record->size, &sample) < 0 ||
	    !(sample.sample_type & PERF_SAMPLE_TIME))
		return -1;
	offset += sample.sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	offset += sample.sample_type & PERF_SAMPLE_IP ? 8 : 0;
	offset += sample.sample_type & PERF_SAMPLE_TID ? 8 : 0;
	if (offset + 8 > record->size || memcmp((const char *)record->data + offset, &sample.time, 8))
		return -1;
	*at = offset;
	*time = sample.time;
	return 0;
}

int main(int argc, char **argv)
{
	struct prf_reader *reader;
	struct prf_writer *writer;
	struct prf_error error;
	struct prf_chunk chunk;
	struct prf_record record;
	struct kept *samples = NULL;
	size_t count = 0, capacity = 0;
	uint64_t first = UINT64_MAX, last = 0, span, seconds, copies, written = 0;
	int fd, ret;

	if (argc != 4 || !(seconds = strtoull(argv[3], NULL, 10)) || seconds > 30 * 86400) {
		fprintf(stderr, "usage: timeline-stretch IN OUT SECONDS (1 to 2592000)\n");
		return 2;
	}
	if (prf_reader_open(&reader, argv[1], &error) < 0) {
		fprintf(stderr, "timeline-stretch: %s\n", error.message);
		return 1;
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || prf_writer_open(&writer, fd, prf_reader_info(reader), NULL, &error) < 0) {
		fprintf(stderr, "timeline-stretch: %s: %s\n", argv[2],
			fd < 0 ? strerror(errno) : error.message);
		return 1;
	}
	/* The side-band as it was; the samples kept to be written again and again. */
	while ((ret = prf_reader_next_chunk(reader, &chunk)) == 1) {
		while (prf_chunk_next_record(&chunk, &record) == 1) {
			struct kept k = { 0 };

			if (record.type != PERF_RECORD_SAMPLE) {
				if (prf_writer_append(writer, record.data, record.size, 0) < 0)
					goto write_error;
				continue;
			}
			if (sample_time(reader, &record, &k.time_at, &k.time) < 0) {
				fprintf(stderr, "timeline-stretch: a sample without a time\n");
				return 1;
			}
			if (count == capacity) {
				capacity = capacity ? 2 * capacity : 4096;
				samples = realloc(samples, capacity * sizeof(*samples));
				if (!samples)
					return 1;
			}
			k.size = record.size;
			k.data = malloc(record.size);
			if (!k.data)
				return 1;
			memcpy(k.data, record.data, record.size);
			samples[count++] = k;
			first = k.time < first ? k.time : first;
			last = k.time > last ? k.time : last;
		}
	}
	if (ret < 0 || !count) {
		fprintf(stderr, "timeline-stretch: %s: %s\n", argv[1], ret < 0 ? strerror(-ret) : "no samples");
		return 1;
	}
	if (prf_writer_flush(writer) < 0)
		goto write_error;
	span = (last - first) / 1000000000 * 1000000000 + 1000000000;
	copies = (seconds * 1000000000 + span - 1) / span;
	for (uint64_t c = 0; c < copies; c++) {
		for (size_t i = 0; i < count; i++) {
			uint64_t time = samples[i].time + c * span;

			memcpy((char *)samples[i].data + samples[i].time_at, &time, 8);
			if (prf_writer_append(writer, samples[i].data, samples[i].size, time) < 0)
				goto write_error;
			written++;
		}
	}
	if (prf_writer_finish(writer) < 0 || close(fd) < 0)
		goto write_error;
	prf_writer_close(writer);
	prf_reader_close(reader);
	printf("%llu copies of %.3f s, %llu samples\n", (unsigned long long)copies, span / 1e9,
	       (unsigned long long)written);
	return 0;
write_error:
	fprintf(stderr, "timeline-stretch: %s: %s\n", argv[2], prf_writer_last_error(writer));
	return 1;
}
