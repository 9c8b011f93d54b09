/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfrec-dump: what its parts share.  Every output line is a keyword or
 * a record location followed by " key=value" fields; the field printers
 * below are the only place that decides how a value looks.
 */
#ifndef PERFREC_DUMP_H
#define PERFREC_DUMP_H

#include <stdint.h>
#include <stdio.h>
#include "format.h"

/* field.c */

struct flag_name {
	uint64_t bit;
	const char *name;
};

void field_u64(FILE *out, const char *key, uint64_t value);
void field_s64(FILE *out, const char *key, int64_t value);
void field_hex(FILE *out, const char *key, uint64_t value);
void field_string(FILE *out, const char *key, const char *value);
void field_time(FILE *out, const char *key, uint64_t ns);
void field_build_id(FILE *out, const char *key, const uint8_t *build_id,
		    size_t size);
void field_flags(FILE *out, const char *key, uint64_t value,
		 const struct flag_name *names, size_t count);
void print_time(FILE *out, uint64_t ns);

/* header.c */

void dump_header(FILE *out, const char *path, uint64_t file_size,
		 const struct prf_file_info *info);
void dump_events(FILE *out, const struct prf_file_info *info);

/* record.c */

/* A record decoded far enough to print it and to count what it holds. */
struct dump_record {
	const struct prf_record *record;
	const char *name;		/* NULL for a type nobody defined */
	const struct prf_event *event;	/* NULL: belongs to no event */
	int name_event;			/* the file has several events */
	int status;			/* 1 decoded, 0 not decodable, < 0 errno */
	struct prf_decoded kernel;
	union {				/* fixed parts, copied out aligned */
		struct prf_build_id_record build_id;
		struct prf_kallsyms_record kallsyms;
		struct prf_kernel_module_record kernel_module;
		struct prf_kernel_symbol_record kernel_symbol;
		struct prf_snapshot_record snapshot;
		struct prf_stats_record stats;
		struct prf_lost_note_record lost_note;
		struct prf_task_cgroup_record task_cgroup;
		struct prf_nspid_record nspid;
		struct prf_jit_map_record jit_map;
	} perfrec;
	struct prf_tracepoint_format tracepoint;	/* TRACEPOINT_FORMAT: into the record */
	struct prf_off_cpu off_cpu;	/* OFF_CPU: into the record */
	const char *text;		/* BUILD_ID path, KERNEL_MODULE, KERNEL_SYMBOL name, JIT_* text */
	const char *module;		/* KERNEL_SYMBOL's, "" for the kernel */
	uint64_t kallsyms_lines;	/* also JIT_* lines */
};

void dump_record_decode(const struct prf_reader *reader,
			const struct prf_record *record,
			struct dump_record *decoded);
void dump_record_print(FILE *out, const struct prf_chunk *chunk,
		       const struct dump_record *decoded);

#endif
