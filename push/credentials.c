/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Credentials come from a file, never from the command line (every user
 * reads /proc/PID/cmdline) nor the environment (inherited, and dumped by
 * tools that print it).  The file must be its owner's alone, and that
 * owner must be who perfrec-push runs as: a file another user can write
 * could send the profiles to a server of theirs' liking through the
 * tenant, and one others can read gives the secret away.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "push.h"

#define CREDENTIALS_MAX_BYTES	65536

static void wipe(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void push_credentials_free(struct push_credentials *c)
{
	wipe(c->basic_auth);
	wipe(c->bearer_token);
	wipe(c->tenant);
	memset(c, 0, sizeof(*c));
}

/* A value goes into an HTTP header: no controls (a header injected), no spaces around. */
static int valid_value(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int parse_line(struct push_credentials *c, char *line, size_t number, const char *path,
		      struct prf_error *error)
{
	static const char *const keys[] = { "basic-auth", "bearer-token", "tenant" };
	char **slots[] = { &c->basic_auth, &c->bearer_token, &c->tenant };
	char *value;
	size_t k;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#')
		return 0;
	value = line + strcspn(line, " \t");
	if (*value)
		*value++ = 0;
	while (*value == ' ' || *value == '\t')
		value++;
	for (char *end = value + strlen(value); end > value && (end[-1] == ' ' || end[-1] == '\t');)
		*--end = 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(line, keys[k]) == 0)
			break;
	/* Say where, never what: the line may hold a secret. */
	if (k == sizeof(keys) / sizeof(keys[0])) {
		return prf_set_error(error, -EINVAL,
				     "%s: line %zu: unknown key (have basic-auth, bearer-token, tenant)",
				     path, number);
	}
	if (!valid_value(value) || (k == 0 && !strchr(value, ':'))) {
		return prf_set_error(error, -EINVAL,
				     "%s: line %zu: %s needs a value%s, without control characters",
				     path, number, keys[k], k == 0 ? " USER:PASSWORD" : "");
	}
	if (*slots[k]) {
		return prf_set_error(error, -EINVAL, "%s: line %zu: %s given twice", path, number,
				     keys[k]);
	}
	*slots[k] = strdup(value);
	if (!*slots[k]) {
		return prf_set_error(error, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
	}
	return 0;
}

int push_credentials_load(struct push_credentials *c, const char *path,
			  struct prf_error *error)
{
	char text[CREDENTIALS_MAX_BYTES + 1], *saveptr = NULL;
	struct stat st;
	size_t number = 0, length = 0;
	ssize_t got;
	int fd, ret = 0;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		prf_set_error(error, ret, "%s: %s%s", path, strerror(errno),
			      errno == ELOOP ? " (a symbolic link: not followed)" : "");
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		prf_set_error(error, ret, "%s: not a regular file", path);
	} else if (st.st_uid != geteuid()) {
		ret = -EPERM;
		prf_set_error(error, ret, "%s: owned by uid %u, not by uid %u that perfrec-push runs as",
			      path, (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		ret = -EPERM;
		prf_set_error(error, ret, "%s: mode %03o: others may read or change it (chmod 600)",
			      path, (unsigned)(st.st_mode & 0777));
	} else if (st.st_size > CREDENTIALS_MAX_BYTES) {
		ret = -EFBIG;
		prf_set_error(error, ret, "%s: larger than a credentials file can be", path);
	}
	if (ret)
		goto out;
	while (length < CREDENTIALS_MAX_BYTES &&
	       (got = read(fd, text + length, CREDENTIALS_MAX_BYTES - length)) > 0)
		length += (size_t)got;
	text[length] = 0;
	for (char *line = strtok_r(text, "\n", &saveptr); line && !ret;
	     line = strtok_r(NULL, "\n", &saveptr)) {
		number++;
		line[strcspn(line, "\r")] = 0;
		ret = parse_line(c, line, number, path, error);
	}
	if (!ret && c->basic_auth && c->bearer_token) {
		ret = -EINVAL;
		prf_set_error(error, ret, "%s: basic-auth and bearer-token both given: which one?",
			      path);
	}
	explicit_bzero(text, sizeof(text));
out:
	if (fd >= 0)
		close(fd);
	if (ret)
		push_credentials_free(c);
	return ret;
}
