/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libperfrec-format: write and read perfrec capture files.  The one
 * header its users include; the library knows nothing of /proc or ELF:
 * it frames, checksums, compresses and decodes.
 *
 *	perfrec-format.h	the on-disk layout (perfrec-format(5))
 *	format-info.h		errors; a file's host, clock and events
 *	format-writer.h		prf_writer_*
 *	format-reader.h		prf_reader_*, prf_chunk_*, prf_file_is_complete()
 *	format-decode.h		prf_decode_*, prf_encode_sample_id()
 *	perfdata-format.h	perf's perf.data layout (read here, written by perfrec-report)
 */
#ifndef PRF_FORMAT_H
#define PRF_FORMAT_H

#include "common.h"
#include "perfrec-format.h"
#include "format-info.h"
#include "format-writer.h"
#include "format-reader.h"
#include "format-decode.h"
#include "perfdata-format.h"

#endif
