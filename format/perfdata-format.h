/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf's perf.data layout, as far as perfrec reads it (format/perfdata-*.c)
 * and writes it (reader/report/perfdata/): the file header, its sections,
 * the feature and record numbers of perf's own (tools/perf/util/header.h,
 * tools/perf/Documentation/perf.data-file-format.txt).  Little-endian.
 */
#ifndef PRF_PERFDATA_FORMAT_H
#define PRF_PERFDATA_FORMAT_H

#include <stdint.h>

#define PRF_PERFDATA_MAGIC	"PERFILE2"
#define PRF_PERFDATA_FEAT_BITS	256

struct prf_perfdata_section {
	uint64_t offset, size;
};

struct prf_perfdata_header {
	char magic[8];
	uint64_t size;			/* of this header; 16 in pipe mode */
	uint64_t attr_size;		/* of an attrs entry: the attr, then its ids' section */
	struct prf_perfdata_section attrs, data, event_types;
	uint64_t features[PRF_PERFDATA_FEAT_BITS / 64];	/* a bit per feature present */
};

/* Feature sections (perf's HEADER_* numbers): those perfrec reads or writes. */
enum {
	PRF_PERFDATA_FEAT_BUILD_ID = 2,
	PRF_PERFDATA_FEAT_HOSTNAME = 3,
	PRF_PERFDATA_FEAT_OSRELEASE = 4,
	PRF_PERFDATA_FEAT_VERSION = 5,
	PRF_PERFDATA_FEAT_ARCH = 6,
	PRF_PERFDATA_FEAT_NRCPUS = 7,
	PRF_PERFDATA_FEAT_CPUDESC = 8,
	PRF_PERFDATA_FEAT_CMDLINE = 11,
	PRF_PERFDATA_FEAT_EVENT_DESC = 12,
	PRF_PERFDATA_FEAT_SAMPLE_TIME = 21,
	PRF_PERFDATA_FEAT_CLOCKID = 23,
	PRF_PERFDATA_FEAT_COMPRESSED = 27,
	PRF_PERFDATA_FEAT_CLOCK_DATA = 29,
};

/* perf's own record types (the kernel's are below 64). */
enum {
	PRF_PERFDATA_RECORD_USER_BASE = 64,
	PRF_PERFDATA_RECORD_HEADER_ATTR = 64,	/* pipe mode: an attr, then its ids */
	PRF_PERFDATA_RECORD_HEADER_TRACING_DATA = 66,	/* its u32 size of data follows it */
	PRF_PERFDATA_RECORD_HEADER_BUILD_ID = 67,
	PRF_PERFDATA_RECORD_FINISHED_ROUND = 68,
	PRF_PERFDATA_RECORD_AUXTRACE = 71,	/* its u64 size of data follows it */
	PRF_PERFDATA_RECORD_EVENT_UPDATE = 78,	/* pipe mode: an event's name, among others */
	PRF_PERFDATA_RECORD_HEADER_FEATURE = 80,	/* pipe mode: a u64 feature, its section */
	PRF_PERFDATA_RECORD_COMPRESSED = 81,
	PRF_PERFDATA_RECORD_FINISHED_INIT = 82,
	PRF_PERFDATA_RECORD_COMPRESSED2 = 83,	/* newer perf: a u64 data size, then the data */
};

#define PRF_PERFDATA_MISC_MMAP_BUILD_ID	(1u << 14)
#define PRF_PERFDATA_MISC_BUILD_ID_SIZE	(1u << 15)

_Static_assert(sizeof(struct prf_perfdata_section) == 16, "perf.data's on-disk layout");
_Static_assert(sizeof(struct prf_perfdata_header) == 104, "perf.data's on-disk layout");

#endif
