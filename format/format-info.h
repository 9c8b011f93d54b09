/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Errors, and what a file describes: its host, clock and events. */
#ifndef PRF_FORMAT_INFO_H
#define PRF_FORMAT_INFO_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "perfrec-format.h"

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * Functions return 0 (or a count) on success and a negative errno on
 * failure.  Where a struct prf_error is passed, it receives a one-line
 * message naming the file, the offset where it matters, and the cause.
 */
struct prf_error {
	int code;			/* negative errno */
	char message[512];
};

/* Fills error (if any) with code and the message; returns code. */
__attribute__((format(printf, 3, 4)))
int prf_set_error(struct prf_error *error, int code, const char *fmt, ...);

/* crc32c (Castagnoli), as in iSCSI and ext4: init ~0, final xor ~0. */
uint32_t prf_crc32c(uint32_t crc, const void *data, size_t size);

/* ---------------------------------------------------------------------- */
/* What a file describes                                                   */
/* ---------------------------------------------------------------------- */

struct prf_meta {
	const char *key;
	const char *value;
};

struct prf_event {
	struct perf_event_attr attr;	/* zero-extended or cut to our size */
	const void *attr_bytes;		/* as recorded, attr_size bytes */
	uint32_t attr_size;
	const char *name;
	const uint64_t *ids;
	uint32_t id_count;
};

struct prf_file_info {
	uint16_t version_major, version_minor;
	const char *hostname;
	const char *kernel_release;
	const char *kernel_version;
	const char *machine;
	const char *boot_id;
	uint32_t nr_cpus_online, nr_cpus_configured;
	uint32_t page_size;
	int32_t clockid;
	int64_t realtime_offset_ns;
	uint64_t start_time_ns;
	const struct prf_meta *meta;
	size_t meta_count;
	const struct prf_event *events;
	size_t event_count;
	/*
	 * Events after those, in the same array, that records may belong to
	 * (prf_reader_event_for()) but that sample nothing a report offers:
	 * a perf.data's dummy event, which perf adds for the side-band.
	 */
	size_t hidden_event_count;
	/*
	 * Read from perf's perf.data (perfdata-read.c), not written by
	 * perfrec: it carries no kernel symbols, and start_time_ns and
	 * realtime_offset_ns are estimates where perf recorded no clock.
	 */
	int perf_data;
};

/*
 * Fills host (prf_host_read()) and, from it, the host facts of info, its
 * clock (CLOCK_MONOTONIC), start time and realtime offset: a new file's
 * description.  info's strings point into host.  0 or -errno.
 */
int prf_file_info_detect(struct prf_file_info *info, struct prf_host *host);

#endif
