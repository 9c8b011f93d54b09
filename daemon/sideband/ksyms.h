/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFRECD_KSYMS_H
#define PERFRECD_KSYMS_H

#include <stddef.h>
#include <stdint.h>
#include "sink.h"

/*
 * Kernel symbols as they are hit (--kernel-symbols=hit): /proc/kallsyms
 * held as a sorted table, and each text symbol a kernel address of the
 * current file falls in written once to that file, as a
 * PRF_RECORD_KERNEL_SYMBOL (its module's PRF_RECORD_KERNEL_MODULE first),
 * before the records that need it.
 */
struct ksyms;

struct ksyms_stats {
	uint64_t symbols;		/* in the table */
	uint64_t emitted;		/* symbol records, all files */
	uint64_t loads;			/* reads of /proc/kallsyms */
	uint64_t lookups, cache_hits, misses;
};

/* Reads proc_root/kallsyms; 0 or a negative errno (-ENOENT: none). */
int prd_ksyms_new(struct ksyms **out, const char *proc_root, const char *sys_root);
void prd_ksyms_free(struct ksyms *ks);

/* A new file: every symbol is written again when it is next hit. */
void prd_ksyms_file_started(struct ksyms *ks);

/* The kernel added or removed symbols (PERF_RECORD_KSYMBOL): reread at the next miss. */
void prd_ksyms_invalidate(struct ksyms *ks);

/*
 * Looks up count kernel addresses and writes the symbols not yet in this
 * file to sink.  Returns 0 or the sink's error.
 */
int prd_ksyms_note_ips(struct ksyms *ks, const uint64_t *ips, size_t count,
		       const struct record_sink *sink, uint64_t time);

/*
 * The kernel entries of a callchain in PERF_SAMPLE_CALLCHAIN's layout
 * (an OFF_CPU record's), as prd_ksyms_note_sample() takes a sample's.
 */
int prd_ksyms_note_callchain(struct ksyms *ks, const uint64_t *callchain, uint64_t nr,
			     const struct record_sink *sink, uint64_t time);

/*
 * The kernel addresses of a PERF_RECORD_SAMPLE laid out by attr, through
 * prd_ksyms_note_ips(): ip when misc says kernel mode, and of the
 * callchain the kernel entries, callers' less one, as readers look up a
 * call.
 */
int prd_ksyms_note_sample(struct ksyms *ks, const struct perf_event_attr *attr,
			  const void *record, size_t size,
			  const struct record_sink *sink, uint64_t time);

void prd_ksyms_get_stats(const struct ksyms *ks, struct ksyms_stats *stats);

#endif
