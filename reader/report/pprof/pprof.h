/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_PPROF_H
#define PERFREC_PPROF_H

#include <stdint.h>
#include <stdio.h>
#include "report.h"

/*
 * --format=pprof: the samples as a gzipped profile.proto, for pprof and
 * the profile servers (perfrec-report(1) says what it holds).  The builder
 * is a session_sample_fn, like the samples view; it keeps the distinct
 * stacks, addresses, functions and mappings of the samples, so memory
 * grows with those, not with the samples.  pprof.c, pprof-location.c
 * and pprof-table.c build the tables, pprof-write.c writes them through
 * pprof-encode.c's wire format; pprof-internal.h is what they share.
 */
struct pprof_builder;

struct pprof_options {
	const char *focus;		/* only stacks through this function */
	int event_label;		/* label each sample with its event's name */
	int inline_frames;		/* the symbolizer gives inlined frames */
	uint64_t since_ns, until_ns;	/* the filter's, for the profile's time span */
	/*
	 * Off-CPU: the weight is "off_cpu/nanoseconds", blocked time; wall:
	 * "wall/nanoseconds"; no sampling period then.
	 */
	enum report_profile_kind kind;
};

/* NULL without memory. */
struct pprof_builder *pprof_new(struct session *session, struct symbolizer *symbolizer,
				const struct pprof_options *options);
void pprof_free(struct pprof_builder *builder);
/* A session_sample_fn: pass the builder as context. */
void pprof_add(void *builder, const struct session_sample *sample);
/*
 * Writes the profile of the samples added, gzipped, to out; header names
 * the event and the capture's span.  0 or a negative errno: -ENOMEM also
 * when a sample could not be counted; for the caller to say, naming the
 * file.
 */
int pprof_write(struct pprof_builder *builder, const struct session_summary *header,
		FILE *out);

#endif
