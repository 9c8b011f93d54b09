/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PERFREC_SYMBOLIZE_DEBUGINFOD_H
#define PERFREC_SYMBOLIZE_DEBUGINFOD_H

#include "symbolize.h"

/*
 * A symbolizer_source that asks debuginfod servers (urls in
 * DEBUGINFOD_URLS syntax: URLs separated by spaces) through
 * libdebuginfod; link libperfrec-debuginfod.a and libdebuginfod for it.
 * libdebuginfod reads DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT and the
 * like itself; without DEBUGINFOD_RETRY_LIMIT, a query is tried once.
 * Each build-id is asked at most once a run for its executable and once
 * for its debug file, found or not; after a failure other than "not
 * there" (no connection, nothing within DEBUGINFOD_TIMEOUT) no server is
 * asked again, and warn hears of it once.
 *
 * NULL with errno ENOENT when urls names no server, ENOMEM.  Call it
 * before symbolizer_new(), which takes DEBUGINFOD_URLS out of the
 * environment.  It must outlive the symbolizer it is given to.
 */
struct symbolizer_source *debuginfod_source_new(const char *urls,
						void (*warn)(void *context, const char *message),
						void *warn_context);
void debuginfod_source_free(struct symbolizer_source *source);

#endif
