/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoints as perf spells them, "subsystem:name": the id and the
 * format from tracefs, wherever /proc/self/mountinfo says it is mounted.
 * perfrecd does not mount it: that takes CAP_SYS_ADMIN, which the service
 * does not have, and a mount namespace of its own would stop it from
 * seeing later mounts (its output directory's); the error says how.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "events.h"
#include "format.h"

/* tracefs' format files are a few KiB; past this one is not. */
#define FORMAT_MAX	65536

/* [A-Za-z0-9_]+ : [A-Za-z0-9_]+, no more: the two become a path in tracefs. */
static int name_valid(const char *name)
{
	static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	size_t subsystem = strspn(name, word);

	return subsystem && name[subsystem] == ':' && name[subsystem + 1] &&
	       strspn(name + subsystem + 1, word) == strlen(name + subsystem + 1);
}

/*
 * The tracefs directory: a tracefs mount of its root, else debugfs's
 * tracing/ (where kernels automount it).  0, or -ENOENT.
 */
static int find_tracefs(char *dir, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, debugfs[4096] = "";
	size_t line_size = 0;
	int found = 0;

	if (!f)
		return -errno;
	/* Whole lines, however long a mount point: a piece of one is no mount. */
	while (!found && getline(&line, &line_size, f) > 0) {
		struct prf_mount_line m;

		if (prf_mountinfo_parse(line, &m) < 0 || strcmp(m.root, "/"))
			continue;
		if (!strcmp(m.type, "tracefs")) {
			found = snprintf(dir, size, "%s", m.point) < (int)size;
		} else if (!strcmp(m.type, "debugfs") && !debugfs[0]) {
			snprintf(debugfs, sizeof(debugfs), "%s/tracing", m.point);
		}
	}
	free(line);
	fclose(f);
	if (!found && debugfs[0] && !access(debugfs, F_OK) &&
	    snprintf(dir, size, "%s", debugfs) < (int)size)
		found = 1;
	return found ? 0 : -ENOENT;
}

/* Up to max bytes of path, NUL-terminated; -EFBIG past max. */
static int read_small(const char *path, char *buffer, size_t max, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t used = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buffer + used, max + 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buffer[used] = '\0';
	*size = used;
	return 0;
}

/* TRACEFS/events/SUBSYSTEM/NAME/FILE for a valid name. */
static int event_path(const char *name, const char *file, char *path, size_t size,
		      struct prf_error *error)
{
	char tracefs[4096];
	const char *colon = strchr(name, ':');
	int n;

	if (find_tracefs(tracefs, sizeof(tracefs)) < 0)
		return prf_set_error(error, -ENOENT, "tracepoint '%s': no tracefs is mounted "
				     "(mount -t tracefs nodev /sys/kernel/tracing)", name);
	n = snprintf(path, size, "%s/events/%.*s/%s/%s", tracefs, (int)(colon - name), name,
		     colon + 1, file);
	if (n < 0 || (size_t)n >= size)
		return prf_set_error(error, -ENAMETOOLONG, "tracepoint '%s': path too long", name);
	return 0;
}

static int read_error(const char *name, const char *path, int err, struct prf_error *error)
{
	if (err == -ENOENT)
		return prf_set_error(error, -ENOENT, "unknown tracepoint '%s' (no %s)", name, path);
	if (err == -EFBIG)
		return prf_set_error(error, -EINVAL, "tracepoint '%s': %s is too large", name, path);
	return prf_set_error(error, err, "tracepoint '%s': %s: %s%s", name, path, strerror(-err),
			     err == -EACCES || err == -EPERM ?
			     " (tracefs is root's: run as root, or with CAP_DAC_READ_SEARCH)" : "");
}

int prd_tracepoint_parse(const char *name, struct perf_event_attr *attr,
			 struct prf_error *error)
{
	char path[4352], text[32], *end;
	unsigned long long id;
	size_t size;
	int err;

	if (!name_valid(name))
		return prf_set_error(error, -EINVAL, "'%s' is not a tracepoint name "
				     "(subsystem:name, of letters, digits and '_')", name);
	err = event_path(name, "id", path, sizeof(path), error);
	if (err)
		return err;
	err = read_small(path, text, sizeof(text) - 1, &size);
	if (err)
		return read_error(name, path, err, error);
	errno = 0;
	id = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n'))
		return prf_set_error(error, -EINVAL, "tracepoint '%s': %s is not a number", name,
				     path);
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	/* Every hit, as perf samples tracepoints, unless told a period. */
	attr->sample_period = 1;
	return 0;
}

int prd_tracepoint_format(const char *name, uint64_t id, char **text, size_t *size,
			  struct prf_error *error)
{
	char path[4352], *buffer, *line;
	unsigned long long said;
	int err;

	*text = NULL;
	if (!name_valid(name))
		return prf_set_error(error, -EINVAL, "'%s' is not a tracepoint name", name);
	err = event_path(name, "format", path, sizeof(path), error);
	if (err)
		return err;
	buffer = malloc(FORMAT_MAX + 1);
	if (!buffer)
		return prf_set_error(error, -ENOMEM, "out of memory");
	err = read_small(path, buffer, FORMAT_MAX, size);
	if (err) {
		free(buffer);
		return read_error(name, path, err, error);
	}
	/* The id was read first: a module unloaded and loaded since has another. */
	line = strstr(buffer, "\nID: ");
	if (!line || sscanf(line + 5, "%llu", &said) != 1 || said != id) {
		free(buffer);
		return prf_set_error(error, -ESTALE, "tracepoint '%s': %s does not give the id %llu",
				     name, path, (unsigned long long)id);
	}
	*text = buffer;
	return 0;
}
