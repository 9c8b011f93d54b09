/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_PERFDATA_H
#define PERFREC_PERFDATA_H

#include <stddef.h>
#include <stdio.h>
#include "report.h"

/*
 * --format=perf.data: the samples a report would count, as a file perf
 * report, perf script and hotspot read (perf's tools/perf/Documentation/
 * perf.data-file-format.txt): one attr per event, the side-band records
 * that let perf resolve every sample (MMAP2 with build-ids, COMM, FORK,
 * the kernel's MMAP), the samples, the feature sections perf shows.
 * Beside it, a kallsyms file of the capture's kernel symbols and perf
 * map files of its JIT code, which perf takes from elsewhere.
 * perfdata.c writes the file, perfdata-records.c its records,
 * perfdata-sideband.c the processes, perfdata-features.c the header's
 * sections, perfdata-symbols.c the files beside it;
 * perfdata-internal.h is what they share.
 */
struct perfdata_writer;

struct perfdata_options {
	const char *host;		/* interned (session_host()); NULL: the only one */
	const char *event;		/* the filter's event name; NULL: every event */
	const char *const *cmdline;	/* what wrote the file, for its CMDLINE */
	size_t cmdline_count;
};

/*
 * Starts the file on out, which must be seekable (the header is written
 * again at the end): the header, the attrs, the side-band.  0, or a
 * negative errno (-ESPIPE: not seekable).
 */
int perfdata_new(struct perfdata_writer **writer, struct session *session,
		 const struct session_summary *summary, const struct perfdata_options *options,
		 FILE *out);
void perfdata_free(struct perfdata_writer *writer);
/* A session_sample_fn: pass the writer as context.  CPU samples only. */
void perfdata_add(void *writer, const struct session_sample *sample);
/* The feature sections and the header again: 0 or a negative errno. */
int perfdata_finish(struct perfdata_writer *writer);
/* Samples written, and those cut (callchains too long for a record). */
uint64_t perfdata_samples(const struct perfdata_writer *writer);

/*
 * The capture's kernel symbols as /proc/kallsyms text at path (for
 * perf report --kallsyms), written whole or not at all: 1, 0 when the
 * capture recorded none (nothing written), or a negative errno.
 */
int perfdata_write_kallsyms(struct perfdata_writer *writer, const char *path);
/*
 * Each JIT process's symbols as perf-PID.map in dir (made if missing):
 * how many files, or a negative errno.
 */
int perfdata_write_jit_maps(struct perfdata_writer *writer, const char *dir);

#endif
