/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binaries and debug files from debuginfod servers, for build-ids found
 * nowhere on this host: a struct symbolizer_source over libdebuginfod.
 * It is a library of its own so that programs that never ask a server
 * (perfrec-archive) do not carry it.
 *
 * libdwfl and libdw would ask the servers of DEBUGINFOD_URLS themselves,
 * for every module whose debug file is not local, each Dwfl with a client
 * of its own (a DSO here): a server that does not answer would cost its
 * timeout, three times with libdebuginfod's retries, per DSO, silently.
 * So symbolizer_new() takes DEBUGINFOD_URLS out of the environment, and
 * this source asks through one client of its own, putting the variable
 * back only for the length of its queries:
 *  - each build-id is asked at most once per kind (executable, debuginfo)
 *    a run, found or not;
 *  - one attempt per query unless DEBUGINFOD_RETRY_LIMIT says otherwise,
 *    so a silent server costs DEBUGINFOD_TIMEOUT once;
 *  - a failure that is no "not there" (no connection, no answer, a bad
 *    URL, an unusable cache) is the servers' or ours, not the build-id's:
 *    it is told once and no server is asked again in this run.
 * libdebuginfod reads DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT and the
 * others itself, at each query.
 *
 * libdebuginfod is opened at the first query, as libdwfl does it: linked,
 * it brings libcurl and its TLS, Kerberos and LDAP libraries, 30 DSOs
 * whose relocation was most of a short report's start-up, in every run
 * whether a server is asked or not.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "debuginfod.h"

/* The SONAME since elfutils 0.179, the first release with this API. */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

enum fetch_state { FETCH_UNASKED, FETCH_FOUND, FETCH_MISSING };

struct fetched {
	uint8_t build_id[PRF_BUILD_ID_MAX];
	size_t build_id_size;
	enum fetch_state state[2];	/* [0] executable, [1] debuginfo */
	char *path[2];			/* in libdebuginfod's cache */
};

/* The calls used, typed by the library's own header. */
struct debuginfod_api {
	void *handle;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
};

struct debuginfod_source {
	struct symbolizer_source source;	/* first: the symbolizer holds this */
	char *urls;
	void (*warn)(void *context, const char *message);
	void *warn_context;
	struct debuginfod_api api;
	debuginfod_client *client;
	int down;			/* a query failed for another reason than ENOENT */
	struct fetched *fetched;
	size_t fetched_count, fetched_capacity;
};

static struct debuginfod_source *of_source(const struct symbolizer_source *source)
{
	return (struct debuginfod_source *)((char *)source -
					    offsetof(struct debuginfod_source, source));
}

static void tell(struct debuginfod_source *d, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void tell(struct debuginfod_source *d, const char *format, ...)
{
	char message[1024];
	va_list args;

	if (!d->warn)
		return;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	d->warn(d->warn_context, message);
}

static struct fetched *fetched_entry(struct debuginfod_source *d, const uint8_t *build_id,
				     size_t size)
{
	for (size_t i = 0; i < d->fetched_count; i++)
		if (d->fetched[i].build_id_size == size &&
		    !memcmp(d->fetched[i].build_id, build_id, size))
			return &d->fetched[i];
	if (prf_ensure_mem((void **)&d->fetched, &d->fetched_capacity, sizeof(*d->fetched),
			   d->fetched_count + 1) < 0)
		return NULL;
	memset(&d->fetched[d->fetched_count], 0, sizeof(d->fetched[0]));
	memcpy(d->fetched[d->fetched_count].build_id, build_id, size);
	d->fetched[d->fetched_count].build_id_size = size;
	return &d->fetched[d->fetched_count++];
}

static void warn_down(struct debuginfod_source *d, int error)
{
	const char *timeout = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	char cause[128];

	switch (error) {
	case -ETIME:
		snprintf(cause, sizeof(cause), "no answer within %s s (DEBUGINFOD_TIMEOUT)",
			 timeout ? timeout : "90");
		break;
	case -ECONNREFUSED:
		snprintf(cause, sizeof(cause), "connection refused");
		break;
	case -EHOSTUNREACH:
		snprintf(cause, sizeof(cause), "host not found");
		break;
	default:
		snprintf(cause, sizeof(cause), "%s", strerror(-error));
		break;
	}
	tell(d, "debuginfod (%s): %s; not asked again in this run", d->urls, cause);
}

/* 0, or a negative errno having told why no server is asked. */
static int load_api(struct debuginfod_source *d)
{
	struct debuginfod_api *api = &d->api;

	api->handle = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!api->handle) {
		tell(d, "debuginfod (%s): cannot use %s: %s; no server asked in this run",
		     d->urls, DEBUGINFOD_SONAME, dlerror());
		return -ENOENT;
	}
	api->begin = (__typeof__(api->begin))dlsym(api->handle, "debuginfod_begin");
	api->end = (__typeof__(api->end))dlsym(api->handle, "debuginfod_end");
	api->find_debuginfo = (__typeof__(api->find_debuginfo))
		dlsym(api->handle, "debuginfod_find_debuginfo");
	api->find_executable = (__typeof__(api->find_executable))
		dlsym(api->handle, "debuginfod_find_executable");
	if (!api->begin || !api->end || !api->find_debuginfo || !api->find_executable) {
		dlclose(api->handle);
		memset(api, 0, sizeof(*api));
		tell(d, "debuginfod (%s): cannot use %s: it lacks the debuginfod_find_* calls; "
		     "no server asked in this run", d->urls, DEBUGINFOD_SONAME);
		return -ENOSYS;
	}
	return 0;
}

/* One query, with DEBUGINFOD_URLS set for its length only. */
static int ask(struct debuginfod_source *d, const uint8_t *build_id, size_t size,
	       int debuginfo, char **path)
{
	int set_retry = !getenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR);
	int fd;

	if (!d->api.handle) {
		int error = load_api(d);

		if (error) {
			d->down = 1;
			return error;
		}
	}
	if (!d->client) {
		d->client = d->api.begin();
		if (!d->client) {
			d->down = 1;
			tell(d, "debuginfod (%s): no client: %s", d->urls,
			     strerror(errno ? errno : ENOMEM));
			return -ENOMEM;
		}
	}
	if (setenv(DEBUGINFOD_URLS_ENV_VAR, d->urls, 1) < 0)
		return -ENOMEM;
	if (set_retry)
		setenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR, "0", 1);
	if (debuginfo)
		fd = d->api.find_debuginfo(d->client, build_id, (int)size, path);
	else
		fd = d->api.find_executable(d->client, build_id, (int)size, path);
	unsetenv(DEBUGINFOD_URLS_ENV_VAR);
	if (set_retry)
		unsetenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR);
	if (fd >= 0 && !*path) {
		close(fd);
		fd = -ENOMEM;
	}
	if (fd < 0 && fd != -ENOENT && fd != -EFBIG && !d->down) {
		d->down = 1;
		warn_down(d, fd);
	}
	return fd;
}

static int debuginfod_fetch(struct symbolizer_source *source, const uint8_t *build_id,
			    size_t size, int debuginfo, const char **path)
{
	struct debuginfod_source *d = of_source(source);
	struct fetched *entry;
	int fd, kind = debuginfo ? 1 : 0;

	*path = NULL;
	if (size < 2 || size > PRF_BUILD_ID_MAX)
		return -ENOENT;
	entry = fetched_entry(d, build_id, size);
	if (!entry)
		return -ENOMEM;
	if (entry->state[kind] == FETCH_FOUND) {
		/* Asked before (another DSO of this build-id): the cached file. */
		fd = open(entry->path[kind], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			*path = entry->path[kind];
			return fd;
		}
		entry->state[kind] = FETCH_MISSING;
	}
	if (entry->state[kind] == FETCH_MISSING || d->down)
		return -ENOENT;
	fd = ask(d, build_id, size, debuginfo, &entry->path[kind]);
	entry->state[kind] = fd >= 0 ? FETCH_FOUND : FETCH_MISSING;
	*path = fd >= 0 ? entry->path[kind] : NULL;
	return fd;
}

struct symbolizer_source *debuginfod_source_new(const char *urls,
						void (*warn)(void *context, const char *message),
						void *warn_context)
{
	struct debuginfod_source *d;

	if (!urls || !urls[strspn(urls, " ")]) {
		errno = ENOENT;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->source.fetch = debuginfod_fetch;
	d->warn = warn;
	d->warn_context = warn_context;
	d->urls = strdup(urls);
	if (!d->urls) {
		free(d);
		return NULL;
	}
	return &d->source;
}

void debuginfod_source_free(struct symbolizer_source *source)
{
	struct debuginfod_source *d;

	if (!source)
		return;
	d = of_source(source);
	if (d->client)
		d->api.end(d->client);
	/* Left loaded: the run ends soon after, and unloading libcurl and its
	 * libraries would only cost their destructors. */
	for (size_t i = 0; i < d->fetched_count; i++) {
		free(d->fetched[i].path[0]);
		free(d->fetched[i].path[1]);
	}
	free(d->fetched);
	free(d->urls);
	free(d);
}
