/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by synthesize.c, buildid.c and kernel.c only; the
 * daemon's contract with them is synthesize.h.
 */
#ifndef PERFRECD_SYNTH_INTERNAL_H
#define PERFRECD_SYNTH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include "format.h"
#include "synthesize.h"

/*
 * Writes the layout's sample_id_all trailer at out (room for
 * PRF_SAMPLE_ID_MAX bytes) so that readers take the record for one of
 * the event's own; returns its size.  No attr: no trailer.
 */
static inline size_t synth_trailer(const struct synth_layout *layout,
				   void *out, uint32_t pid, uint32_t tid,
				   uint64_t time)
{
	struct prf_sample_id id;

	if (!layout || !layout->attr)
		return 0;
	memset(&id, 0, sizeof(id));
	id.pid = pid;
	id.tid = tid;
	id.time = time;
	id.id = layout->id;
	id.stream_id = layout->id;
	id.cpu = layout->cpu;
	id.identifier = layout->id;
	return prf_encode_sample_id(layout->attr, &id, out);
}

/*
 * Copies len bytes of s and a NUL to out, zero-padded to 8 bytes; returns
 * the padded size.  Record bodies before strings are multiples of 8.
 */
static inline size_t synth_put_string(char *out, const char *s, size_t len)
{
	size_t padded = PRF_ALIGN8(len + 1);

	memcpy(out, s, len);
	memset(out + len, 0, padded - len);
	return padded;
}

/*
 * Reads fd to its end into *buf from offset on, growing *buf (of *cap
 * bytes) as needed.  Leaves at least 8 bytes free after the data, the
 * first of them NUL.  Returns the bytes read or -errno.
 */
ssize_t prd_synth_read_all(int fd, char **buf, size_t *cap, size_t offset);

/* The PRF_RECORD_BUILD_ID record itself (path truncated to PATH_MAX). */
int prd_buildid_emit_record(const struct record_sink *sink, uint64_t time,
			    uint32_t pid, uint32_t flags, uint32_t major,
			    uint32_t minor, uint64_t inode,
			    uint64_t inode_generation, const uint8_t *build_id,
			    uint8_t size, const char *path);

#endif
