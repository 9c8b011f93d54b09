/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SPEEDSCOPE_H
#define PERFREC_SPEEDSCOPE_H

/*
 * --format=speedscope: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), one "sampled"
 * profile per thread, its samples in time order, each a stack of frame
 * indices from the root to the leaf.  Frames are named as the collapsed
 * stacks name them (view_folded_name(): "schedule_[k]", "helper_[i]",
 * "[libc.so.6]"), their "file" the DSO, and shared by content.  A CPU
 * profile weighs samples (unit "none"); off-CPU and wall ones
 * nanoseconds.
 */
#include <stdio.h>
#include "report.h"

struct speedscope;

struct speedscope_options {
	enum report_profile_kind kind;	/* the weights: samples, or nanoseconds */
	size_t max_frames;		/* addresses a stack; 0: 1024 */
	const char *name;		/* of the file: what was read */
};

/* NULL without memory. */
struct speedscope *speedscope_new(struct session *session, struct symbolizer *symbolizer,
				  const struct speedscope_options *options);
void speedscope_free(struct speedscope *speedscope);

/* A session_sample_fn: pass the builder as context. */
void speedscope_add(void *speedscope, const struct session_sample *sample);

/* The file; 0, or a negative errno (-ENOMEM: a sample could not be kept). */
int speedscope_write(struct speedscope *speedscope, FILE *out);

#endif
