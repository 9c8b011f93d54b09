/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binaries and debug files from debuginfod servers, for build-ids found
 * nowhere on this host.  libdwfl and libdw would ask the servers of
 * DEBUGINFOD_URLS themselves, for every module whose debug file is not
 * local, each Dwfl with a client of its own (a DSO here): a server that
 * does not answer would cost its timeout, three times with libdebuginfod's
 * retries, per DSO, silently.  So symbolizer_new() takes DEBUGINFOD_URLS
 * out of the environment, and the symbolizer asks through one client of
 * its own, putting the variable back only for the length of its queries:
 *  - each build-id is asked at most once per kind (executable, debuginfo)
 *    a run, found or not;
 *  - one attempt per query unless DEBUGINFOD_RETRY_LIMIT says otherwise,
 *    so a silent server costs DEBUGINFOD_TIMEOUT once;
 *  - a failure that is no "not there" (no connection, no answer, a bad
 *    URL, an unusable cache) is the servers' or ours, not the build-id's:
 *    it is told once and no server is asked again in this run.
 * libdebuginfod reads DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT and the
 * others itself, at each query.
 */
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbolize-internal.h"

enum fetch_state { FETCH_UNASKED, FETCH_FOUND, FETCH_MISSING };

struct fetched {
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_size;
	enum fetch_state state[2];	/* [0] executable, [1] debuginfo */
	const char *path[2];		/* interned, in libdebuginfod's cache */
};

struct debuginfod_state {
	char *urls;
	debuginfod_client *client;
	int down;			/* a query failed for another reason than ENOENT */
	struct fetched *fetched;
	size_t fetched_count, fetched_capacity;
	unsigned long queries;
};

int symbolizer_debuginfod_init(struct symbolizer *s, const char *urls)
{
	/* Out of libdwfl's sight, whether or not we ask. */
	unsetenv(DEBUGINFOD_URLS_ENV_VAR);
	if (!urls || !urls[strspn(urls, " ")])
		return 0;
	s->debuginfod = calloc(1, sizeof(*s->debuginfod));
	if (!s->debuginfod)
		return -ENOMEM;
	s->debuginfod->urls = strdup(urls);
	return s->debuginfod->urls ? 0 : -ENOMEM;
}

void symbolizer_debuginfod_free(struct symbolizer *s)
{
	struct debuginfod_state *d = s->debuginfod;

	if (!d)
		return;
	if (d->client)
		debuginfod_end(d->client);
	free(d->fetched);
	free(d->urls);
	free(d);
	s->debuginfod = NULL;
}

unsigned long symbolizer_debuginfod_queries(const struct symbolizer *s)
{
	return s->debuginfod ? s->debuginfod->queries : 0;
}

static struct fetched *fetched_entry(struct debuginfod_state *d, const struct dso *dso)
{
	for (size_t i = 0; i < d->fetched_count; i++)
		if (d->fetched[i].build_id_size == dso->build_id_size &&
		    !memcmp(d->fetched[i].build_id, dso->build_id, dso->build_id_size))
			return &d->fetched[i];
	if (d->fetched_count == d->fetched_capacity) {
		size_t capacity = d->fetched_capacity ? 2 * d->fetched_capacity : 64;
		struct fetched *grown = realloc(d->fetched, capacity * sizeof(*grown));

		if (!grown)
			return NULL;
		d->fetched = grown;
		d->fetched_capacity = capacity;
	}
	memset(&d->fetched[d->fetched_count], 0, sizeof(d->fetched[0]));
	memcpy(d->fetched[d->fetched_count].build_id, dso->build_id, dso->build_id_size);
	d->fetched[d->fetched_count].build_id_size = dso->build_id_size;
	return &d->fetched[d->fetched_count++];
}

static void warn_down(struct symbolizer *s, int error)
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
	symbolizer_warn(s, "debuginfod (%s): %s; not asked again in this run",
			s->debuginfod->urls, cause);
}

/* One query, with DEBUGINFOD_URLS set for its length only. */
static int ask(struct symbolizer *s, const struct dso *dso, int debuginfo, char **path)
{
	struct debuginfod_state *d = s->debuginfod;
	int set_retry = !getenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR);
	int fd;

	if (!d->client) {
		d->client = debuginfod_begin();
		if (!d->client) {
			d->down = 1;
			symbolizer_warn(s, "debuginfod (%s): no client: %s", d->urls,
					strerror(errno ? errno : ENOMEM));
			return -ENOMEM;
		}
	}
	if (setenv(DEBUGINFOD_URLS_ENV_VAR, d->urls, 1) < 0)
		return -ENOMEM;
	if (set_retry)
		setenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR, "0", 1);
	d->queries++;
	if (debuginfo)
		fd = debuginfod_find_debuginfo(d->client, dso->build_id, (int)dso->build_id_size, path);
	else
		fd = debuginfod_find_executable(d->client, dso->build_id, (int)dso->build_id_size, path);
	unsetenv(DEBUGINFOD_URLS_ENV_VAR);
	if (set_retry)
		unsetenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR);
	if (fd >= 0 && !*path) {
		close(fd);
		fd = -ENOMEM;
	}
	if (fd < 0 && fd != -ENOENT && fd != -EFBIG && !d->down) {
		d->down = 1;
		warn_down(s, fd);
	}
	return fd;
}

int symbolizer_debuginfod_fetch(struct symbolizer *s, const struct dso *dso, int debuginfo,
				const char **path)
{
	struct debuginfod_state *d = s->debuginfod;
	struct fetched *entry;
	char *fetched_path = NULL;
	int fd, kind = debuginfo ? 1 : 0;

	*path = NULL;
	if (!d || dso->build_id_size < 2)
		return -ENOENT;
	entry = fetched_entry(d, dso);
	if (!entry)
		return -ENOMEM;
	if (entry->state[kind] == FETCH_FOUND) {
		/* Asked before (another DSO of this build-id): the cached file. */
		fd = open(entry->path[kind], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			*path = entry->path[kind];
			return fd;
		}
		entry->state[kind] = FETCH_MISSING;
	}
	if (entry->state[kind] == FETCH_MISSING || d->down)
		return -ENOENT;
	fd = ask(s, dso, debuginfo, &fetched_path);
	if (fd >= 0)
		entry->path[kind] = symbolizer_intern(s, fetched_path);
	free(fetched_path);
	if (fd >= 0 && !entry->path[kind]) {
		close(fd);
		fd = -ENOMEM;
	}
	entry->state[kind] = fd >= 0 ? FETCH_FOUND : FETCH_MISSING;
	*path = fd >= 0 ? entry->path[kind] : NULL;
	return fd;
}

/*
 * The build-id trees of the debug directories (symbolize-uncompress.c),
 * then libdwfl's own search (.gnu_debuglink next to the binary and in the
 * debug directories), then debuginfod for the module's build-id.  The
 * same callback finds dwz's .gnu_debugaltlink files (another name than
 * the binary's own debuglink): those are left to libdwfl, locally only,
 * as they have a build-id of their own.
 */
int symbolizer_find_debuginfo(Dwfl_Module *module, void **userdata, const char *module_name,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct dso *dso = *userdata;
	const char *own_link = NULL, *path;
	GElf_Word own_crc;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(module, &bias);
	int own, fd;

	if (elf)
		own_link = dwelf_elf_gnu_debuglink(elf, &own_crc);
	own = !debuglink_file || (own_link && !strcmp(own_link, debuglink_file));
	if (own && dso) {
		fd = debug_file_by_build_id(dso->symbolizer, module, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	fd = dwfl_standard_find_debuginfo(module, userdata, module_name, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 || !own || !dso || !dso->symbolizer->debuginfod)
		return fd;
	fd = symbolizer_debuginfod_fetch(dso->symbolizer, dso, 1, &path);
	if (fd < 0)
		return -1;
	*debuginfo_file_name = strdup(path);
	if (!*debuginfo_file_name) {
		close(fd);
		return -1;
	}
	return debug_file_uncompressed(fd);
}
