/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_PERFDATA_INTERNAL_H
#define PERFREC_PERFDATA_INTERNAL_H

/*
 * What the perfdata*.c files share: the writer, and the records they
 * put in the file.  Little-endian, as the host writes it: perf reads a
 * file of the other byte order by its magic, and the captures are read
 * on a host of their own order.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include "common.h"
#include "perfdata.h"

/*
 * Every record's layout: samples of IDENTIFIER, IP, TID, TIME, CPU,
 * PERIOD and CALLCHAIN, the others with the sample_id_all trailer of
 * TID, TIME, CPU and IDENTIFIER.
 */
#define PERFDATA_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
				 PERF_SAMPLE_CALLCHAIN)

/* A record is at most 64 KiB (its size is 16 bits). */
#define PERFDATA_RECORD_MAX	65528u
/* Names perf reads are cut here (a path of PATH_MAX, a comm of 16). */
#define PERFDATA_NAME_MAX	4096u

struct perfdata_attr {
	const char *name;		/* interned */
	struct perf_event_attr attr;
	uint64_t id;			/* its one id: index + 1 */
};

struct perfdata_thread {
	uint32_t pid, tid;
	const char *comm;		/* interned: compared by pointer */
};

struct perfdata_writer {
	struct session *session;
	const struct session_summary *summary;
	struct session_host_info host;	/* the one the file is of */
	struct perfdata_options options;
	FILE *out;
	int error;			/* the first write's failure */
	struct prf_perfdata_header header;
	struct perfdata_attr *attrs;
	size_t attr_count;
	const struct prf_event *last_event;	/* a sample's event, and its attr */
	size_t last_attr;
	uint64_t samples, cut;
	uint64_t first_time, last_time;
	uint64_t buffer[PERFDATA_RECORD_MAX / 8];	/* the record being made */
	/* side-band: the DSOs met, for the build-id section (perfdata-sideband.c) */
	struct dso **dsos;
	size_t dso_count, dso_capacity;
	struct prf_index dso_index;
	struct dso *kernel;
	uint64_t kernel_start, kernel_end;	/* its map */
	char kernel_ref[128];		/* the symbol at kernel_start perf relocates by */
	/* the name each thread was last given in the file, by (pid, tid) */
	struct perfdata_thread *threads;
	size_t thread_count, thread_capacity;
	struct prf_index thread_index;
};

/* perfdata.c */
void perfdata_put(struct perfdata_writer *w, const void *data, size_t size);
/* A string as perf's headers hold it: a length, NUL-padded to 64 bytes. */
void perfdata_put_string(struct perfdata_writer *w, const char *s);
/* s copied to out (size bytes, size > 0), cut, unsafe bytes made '?'; its length. */
size_t perfdata_clean_name(char *out, size_t size, const char *s);

/* perfdata-records.c: each record made in w->buffer and written. */
struct perfdata_mmap {
	uint32_t pid, tid;
	uint64_t start, length, pgoff;
	const uint8_t *build_id;	/* NULL: none */
	size_t build_id_size;
	const char *name;
	int kernel;			/* PERF_RECORD_MMAP of the kernel (pid -1) */
};
void perfdata_record_mmap(struct perfdata_writer *w, const struct perfdata_mmap *m,
			  uint64_t time);
void perfdata_record_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid,
			  const char *comm, uint64_t time);
void perfdata_record_task(struct perfdata_writer *w, uint32_t type, uint32_t pid,
			  uint32_t ppid, uint64_t time);
/* 0, or 1 when its callchain was cut to fit. */
int perfdata_record_sample(struct perfdata_writer *w, uint64_t id,
			   const struct session_sample *sample);
void perfdata_record_round(struct perfdata_writer *w);
void perfdata_record_build_id(struct perfdata_writer *w, int kernel, const uint8_t *build_id,
			      size_t size, const char *name);

/* perfdata-sideband.c */
int perfdata_write_sideband(struct perfdata_writer *w);
void perfdata_write_build_ids(struct perfdata_writer *w);

/* perfdata-features.c: the feature sections after the data, their bits in the header. */
void perfdata_write_features(struct perfdata_writer *w);

#endif
