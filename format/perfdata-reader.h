/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data inside libperfrec-format: perfdata-read.c reads the header
 * (file mode) and the features, perfdata-pipe.c pipe mode's header
 * records, perfdata-data.c the data section.  The layout is perf's
 * (tools/perf/Documentation/perf.data-file-format.txt).
 */
#ifndef PRF_PERFDATA_READER_H
#define PRF_PERFDATA_READER_H

#include "internal.h"


/* Bounds for what a file says. */
#define PD_ATTR_ENTRY_MAX	4096u	/* an attrs entry: perf's attr is 136 bytes today */
/* ids of all events (one per CPU each: 4096 CPUs x 256 events) */
#define PD_IDS_MAX		(1u << 20)
#define PD_FEATURE_MAX		(16u << 20)	/* a feature section we read */
#define PD_STRING_MAX		65536u
#define PD_META_MAX		4	/* source, perf_version, cpudesc, cmdline */
/* Records a chunk gathers, inflated ones aside */
#define PD_CHUNK_TARGET		(1u << 20)
#define PD_READ_BLOCK		(1u << 20)
#define PD_INFLATE_DEFAULT	(16u << 20)	/* without HEADER_COMPRESSED's mmap length */
#define PD_INFLATE_MAX		(64u << 20)
#define PD_INFLATE_MIN		(64u << 10)

/* An event's name: for the event of id, or without ids the place-th. */
struct prf_perfdata_name {
	uint64_t id;
	const char *name;
	uint32_t place;
	int by_place;
};

struct prf_perfdata {
	uint64_t data_start, data_end;	/* data_end cut to the file */
	uint64_t data_declared_end;	/* as the header says it */
	uint64_t position;		/* next record of the data section */
	int size_unknown;		/* data.size 0: perf record did not finish */
	uint64_t last_sample_ns;	/* HEADER_SAMPLE_TIME's; 0: not recorded */
	int started, finished;

	/* The file read in blocks; a record is whole inside one. */
	uint8_t *block;
	size_t block_capacity;
	uint64_t block_offset;
	size_t block_size;

	/* perf -z: one zstd stream over all COMPRESSED records, a record may straddle two */
	ZSTD_DStream *zstream;
	uint8_t *inflated;
	size_t inflated_capacity, inflated_used;
	size_t inflate_max;		/* bytes one COMPRESSED record may give */
	int zstream_broken;

	/* PRF_RECORD_BUILD_IDs from HEADER_BUILD_ID, the first chunk */
	uint8_t *build_ids;
	size_t build_ids_size, build_ids_capacity;

	/*
	 * Event names from EVENT_DESC or EVENT_UPDATE, given to their events
	 * by the id index once it exists: matched as they come, a file of
	 * many names and many ids would cost their product.
	 */
	struct prf_perfdata_name *names;
	size_t name_count, name_capacity;

	void *owned[32];		/* feature buffers the strings point into */
	size_t owned_count;
	uint64_t skipped_records;	/* of sizes no reader can frame */
	/* samples not copied under prf_reader_skip_samples(), not yet said */
	uint32_t skipped_samples;
	uint64_t skipped_first, skipped_last;
	char note[256];			/* said on the first chunk to a diag callback */
};

/* perfdata-read.c, for perfdata-pipe.c */
int prf_perfdata_error(struct prf_reader *r, struct prf_error *error, int code, const char *what);
void prf_perfdata_take_feature(struct prf_reader *r, unsigned feature,
			       const struct prf_perfdata_section *s);
void prf_perfdata_take_build_ids(struct prf_reader *r, const struct prf_perfdata_section *s);
void *prf_perfdata_own(struct prf_perfdata *pd, void *buf);
void prf_perfdata_name_event(struct prf_perfdata *pd, const struct prf_perfdata_name *name);

/* perfdata-pipe.c: pipe mode's header records, the data's start in pd */
int prf_perfdata_open_pipe(struct prf_reader *r, struct prf_error *error);

#endif
