/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs PMU events: "pmu/term=value,term,alias,param=value/".
 *
 * The kernel describes each PMU under SYSFS/bus/event_source/devices/PMU:
 * "type" is perf_event_attr.type, format/TERM says which bits of config,
 * config1 or config2 a term fills ("config:0-7,32-35"), and events/NAME is
 * an alias made of terms, where "term=?" is a parameter the user supplies
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-events).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "format.h"
#include "pmu.h"

#define PMU_DEVICES	"bus/event_source/devices"
#define MAX_TERMS	32
#define TEXT_SIZE	4096	/* sysfs attributes are at most a page */
#define LIST_SIZE	512

struct term {
	const char *name;
	uint64_t value;
	bool is_param;		/* "name=?" in an alias */
	bool bare;		/* no "=value": a flag, or an alias's name */
};

struct term_list {
	struct term terms[MAX_TERMS];
	size_t count;
};

/* Which bits of which config word a format term fills. */
struct format {
	int word;		/* 0: config, 1: config1, 2: config2 */
	uint64_t mask;
};

struct pmu {
	const char *name;
	char dir[PATH_MAX];
	struct prf_error *error;
};

/* Reads a small text file, without its trailing whitespace. */
static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	if (len < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' ||
			   buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return 0;
}

static int path_join(char *out, const char *a, const char *b, const char *c)
{
	int len = snprintf(out, PATH_MAX, "%s/%s%s%s", a, b, c ? "/" : "",
			   c ? c : "");

	return len < 0 || len >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Names from the user become path components: no "..", no "/". */
static bool valid_name(const char *name)
{
	if (!*name || *name == '.')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == strlen(name);
}

/* events/ also holds NAME.unit, NAME.scale, ...: counting metadata. */
static bool is_event_metadata(const char *name)
{
	static const char *const suffixes[] = {
		".unit", ".scale", ".per-pkg", ".snapshot",
	};
	size_t len = strlen(name);

	for (size_t i = 0; i < PRF_ARRAY_SIZE(suffixes); i++) {
		size_t n = strlen(suffixes[i]);

		if (len > n && !strcmp(name + len - n, suffixes[i]))
			return true;
	}
	return false;
}

static int keep_visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int keep_event(const struct dirent *d)
{
	return keep_visible(d) && !is_event_metadata(d->d_name);
}

/* "a, b, c", sorted so that messages are stable; "" if unreadable. */
static void list_dir(const char *dir, int (*filter)(const struct dirent *),
		     char *out, size_t size)
{
	struct dirent **names;
	size_t used = 0;
	int n;

	out[0] = '\0';
	n = scandir(dir, &names, filter, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		if (used < size)
			used += snprintf(out + used, size - used, "%s%s",
					 i ? ", " : "", names[i]->d_name);
		free(names[i]);
	}
	free(names);
	if (used >= size && size > 4)
		strcpy(out + size - 4, "...");
}

/* Term values: decimal, or hexadecimal with 0x as sysfs writes them. */
static int parse_value(const char *text, uint64_t *value)
{
	bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	unsigned int base = hex ? 16 : 10;
	const char *p = hex ? text + 2 : text;
	uint64_t v = 0;

	if (!*p)
		return -EINVAL;
	for (; *p; p++) {
		unsigned int digit;

		if (*p >= '0' && *p <= '9')
			digit = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			digit = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			digit = *p - 'A' + 10;
		else
			return -EINVAL;
		if (v > (UINT64_MAX - digit) / base)
			return -ERANGE;
		v = v * base + digit;
	}
	*value = v;
	return 0;
}

/*
 * Splits "a=1,b,c=?" in place.  A bare term means 1; "?" marks a
 * parameter and is allowed only in aliases.  where names the text.
 */
static int split_terms(struct pmu *pmu, char *text, const char *where,
		       bool allow_params, struct term_list *list)
{
	char *save = NULL, *item;

	list->count = 0;
	if (!*text)
		return 0;
	/* strtok_r would skip the empty item in "a,,b": reject it instead. */
	if (text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,"))
		return prf_set_error(pmu->error, -EINVAL, "empty term in %s", where);
	for (item = strtok_r(text, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		struct term *t = &list->terms[list->count];
		char *value = strchr(item, '=');
		int err;

		if (list->count == MAX_TERMS)
			return prf_set_error(pmu->error, -E2BIG, "too many terms in %s (at most %d)",
					     where, MAX_TERMS);
		if (value)
			*value++ = '\0';
		if (!valid_name(item))
			return prf_set_error(pmu->error, -EINVAL, "invalid term name '%s' in %s",
					     item, where);
		*t = (struct term){ .name = item, .value = 1, .bare = !value };
		if (value && allow_params && !strcmp(value, "?")) {
			t->is_param = true;
		} else if (value && (err = parse_value(value, &t->value))) {
			return prf_set_error(pmu->error, -EINVAL,
					     "invalid value '%s' for term '%s' in %s (%s)",
					     value, item, where, err == -ERANGE ?
					     "does not fit in 64 bits" : "expected decimal or 0x hex");
		}
		list->count++;
	}
	return 0;
}

/* "config1:0-7,32-35" */
static int parse_format(char *text, struct format *fmt)
{
	static const char *const words[] = { "config", "config1", "config2" };
	char *bits = strchr(text, ':'), *end;

	if (!bits)
		return -EINVAL;
	*bits++ = '\0';
	fmt->word = -1;
	for (int i = 0; i < 3; i++)
		if (!strcmp(text, words[i]))
			fmt->word = i;
	if (fmt->word < 0)
		return -EOPNOTSUPP;
	fmt->mask = 0;
	do {
		unsigned long lo, hi;

		if (*bits < '0' || *bits > '9')
			return -EINVAL;
		lo = hi = strtoul(bits, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi > 63 || (*end && *end != ','))
			return -EINVAL;
		fmt->mask |= (hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1) & ~((1ULL << lo) - 1);
		bits = end + 1;
	} while (*end);
	return 0;
}

/* Returns -ENOENT without a message when the PMU has no such term. */
static int read_format(struct pmu *pmu, const char *term, struct format *fmt)
{
	char path[PATH_MAX], text[TEXT_SIZE], copy[TEXT_SIZE];
	int err;

	err = path_join(path, pmu->dir, "format", term);
	if (!err)
		err = read_text(path, text, sizeof(text));
	if (err == -ENOENT || err == -ENAMETOOLONG)
		return -ENOENT;
	if (err)
		return prf_set_error(pmu->error, err, "cannot read %s: %s", path,
				     strerror(-err));
	memcpy(copy, text, sizeof(copy));
	err = parse_format(copy, fmt);
	if (err == -EOPNOTSUPP)
		return prf_set_error(pmu->error, err, "term '%s' of PMU '%s' uses a config word "
				     "perfrecd does not know: '%s'", term, pmu->name, text);
	if (err)
		return prf_set_error(pmu->error, err, "malformed format file %s: '%s'", path,
				     text);
	return 0;
}

static __u64 *config_word(struct perf_event_attr *attr, int word)
{
	return word == 0 ? &attr->config : word == 1 ? &attr->config1 : &attr->config2;
}

/* Spreads value's bits over mask's set bits, lowest first, as perf does. */
static uint64_t scatter_bits(uint64_t value, uint64_t mask)
{
	uint64_t out = 0;

	for (int bit = 0; bit < 64 && value; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (value & 1)
			out |= 1ULL << bit;
		value >>= 1;
	}
	return out;
}

/* perf's pseudo-terms: whole config words, or options perfrecd owns. */
static int apply_pseudo_term(struct pmu *pmu, struct perf_event_attr *attr,
			     const struct term *t)
{
	static const char *const sampling[] = {
		"period", "freq", "name", "call-graph", "time", "inherit", "no-inherit",
	};

	if (!strcmp(t->name, "config") || !strcmp(t->name, "config1") ||
	    !strcmp(t->name, "config2")) {
		*config_word(attr, t->name[6] ? t->name[6] - '0' : 0) = t->value;
		return 0;
	}
	for (size_t i = 0; i < PRF_ARRAY_SIZE(sampling); i++) {
		if (!strcmp(t->name, sampling[i])) {
			/* The caller fills sampling fields after prd_event_parse(). */
			return prf_set_error(pmu->error, -EOPNOTSUPP, "term '%s' is not supported "
					     "in event names: perfrecd sets sampling options itself",
					     t->name);
		}
	}
	return -ENOENT;
}

static int unknown_term(struct pmu *pmu, const char *name, const char *where)
{
	char path[PATH_MAX], terms[LIST_SIZE];

	if (path_join(path, pmu->dir, "format", NULL))
		path[0] = '\0';
	list_dir(path, keep_visible, terms, sizeof(terms));
	return prf_set_error(pmu->error, -ENOENT,
			     "unknown term '%s' %s (valid: %s%sconfig, config1, config2)",
			     name, where, terms, terms[0] ? ", " : "");
}

static int apply_term(struct pmu *pmu, struct perf_event_attr *attr,
		      const struct term *t, const char *where)
{
	struct format fmt;
	unsigned int width;
	int err;

	err = apply_pseudo_term(pmu, attr, t);
	if (err != -ENOENT)
		return err;
	err = read_format(pmu, t->name, &fmt);
	if (err == -ENOENT)
		return unknown_term(pmu, t->name, where);
	if (err)
		return err;
	width = __builtin_popcountll(fmt.mask);
	if (width < 64 && t->value >> width)
		return prf_set_error(pmu->error, -EINVAL,
				     "value 0x%llx is too wide for term '%s' of PMU '%s' (%u bit%s)",
				     (unsigned long long)t->value, t->name, pmu->name,
				     width, width == 1 ? "" : "s");
	*config_word(attr, fmt.word) &= ~fmt.mask;
	*config_word(attr, fmt.word) |= scatter_bits(t->value, fmt.mask);
	return 0;
}

static bool is_term(struct pmu *pmu, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (!strcmp(name, "config") || !strcmp(name, "config1") ||
	    !strcmp(name, "config2"))
		return true;
	return !path_join(path, pmu->dir, "format", name) && !stat(path, &st);
}

/* Loads events/NAME into text and its terms into list; -ENOENT if none. */
static int load_alias(struct pmu *pmu, const char *name, char *text,
		      struct term_list *list)
{
	char path[PATH_MAX], where[LIST_SIZE];
	int err;

	if (is_event_metadata(name) || path_join(path, pmu->dir, "events", name))
		return -ENOENT;
	err = read_text(path, text, TEXT_SIZE);
	if (err == -ENOENT || err == -ENAMETOOLONG)
		return -ENOENT;
	if (err)
		return prf_set_error(pmu->error, err, "cannot read %s: %s", path,
				     strerror(-err));
	snprintf(where, sizeof(where), "event '%s' of PMU '%s'", name, pmu->name);
	if (!*text)
		return prf_set_error(pmu->error, -EINVAL, "%s is empty (%s)", where, path);
	return split_terms(pmu, text, where, true, list);
}

static int unknown_word(struct pmu *pmu, const char *name)
{
	char path[PATH_MAX], terms[LIST_SIZE], events[LIST_SIZE];

	terms[0] = events[0] = '\0';
	if (!path_join(path, pmu->dir, "format", NULL))
		list_dir(path, keep_visible, terms, sizeof(terms));
	if (!path_join(path, pmu->dir, "events", NULL))
		list_dir(path, keep_event, events, sizeof(events));
	return prf_set_error(pmu->error, -ENOENT,
			     "unknown term or event '%s' for PMU '%s' (terms: %s; events: %s)",
			     name, pmu->name, terms[0] ? terms : "none",
			     events[0] ? events : "none");
}

static int missing_pmu(struct pmu *pmu, const char *devices)
{
	char have[LIST_SIZE];

	list_dir(devices, keep_visible, have, sizeof(have));
	/*
	 * cpu/ is perf's name for the core PMU: absent without hardware
	 * counters (VMs), and named otherwise on hybrid x86 or arm64.
	 */
	if (!strcmp(pmu->name, "cpu"))
		return prf_set_error(pmu->error, -ENOENT, "this machine has no 'cpu' PMU "
				     "under %s (have: %s)", devices, have[0] ? have : "none");
	return prf_set_error(pmu->error, -ENOENT, "PMU '%s' not found under %s (have: %s)",
			     pmu->name, devices, have[0] ? have : "none");
}

static int pmu_open(struct pmu *pmu, const char *sysfs_root,
		    struct perf_event_attr *attr)
{
	char devices[PATH_MAX], path[PATH_MAX], text[TEXT_SIZE];
	uint64_t type;
	struct stat st;
	int err;

	if (!valid_name(pmu->name))
		return prf_set_error(pmu->error, -EINVAL, "invalid PMU name '%s'", pmu->name);
	if (path_join(devices, sysfs_root, PMU_DEVICES, NULL) ||
	    path_join(pmu->dir, devices, pmu->name, NULL) ||
	    path_join(path, pmu->dir, "type", NULL))
		return prf_set_error(pmu->error, -ENAMETOOLONG, "path too long for PMU '%s'",
				     pmu->name);
	if (stat(pmu->dir, &st))
		return missing_pmu(pmu, devices);
	err = read_text(path, text, sizeof(text));
	if (err)
		return prf_set_error(pmu->error, err, "cannot read %s: %s", path,
				     strerror(-err));
	if (parse_value(text, &type) || type > UINT32_MAX)
		return prf_set_error(pmu->error, -EINVAL, "malformed PMU type in %s: '%s'",
				     path, text);
	attr->type = type;
	return 0;
}

/* The one bare word that is neither a term nor a pseudo-term is the alias. */
static int find_alias(struct pmu *pmu, const struct term_list *user,
		      const char *where, size_t *index)
{
	*index = user->count;
	for (size_t i = 0; i < user->count; i++) {
		if (!user->terms[i].bare || is_term(pmu, user->terms[i].name))
			continue;
		if (*index != user->count)
			return prf_set_error(pmu->error, -EINVAL,
					     "more than one event in %s: '%s' and '%s'", where,
					     user->terms[*index].name, user->terms[i].name);
		*index = i;
	}
	return 0;
}

static bool has_term(const struct term_list *list, const char *name)
{
	for (size_t i = 0; i < list->count; i++)
		if (!strcmp(list->terms[i].name, name))
			return true;
	return false;
}

/* Alias terms first, so that the user's explicit terms override them. */
static int apply_alias(struct pmu *pmu, struct perf_event_attr *attr,
		       const char *alias, const struct term_list *user)
{
	struct term_list list;
	char text[TEXT_SIZE], alias_where[LIST_SIZE];
	int err;

	err = load_alias(pmu, alias, text, &list);
	if (err == -ENOENT)
		return unknown_word(pmu, alias);
	if (err)
		return err;
	snprintf(alias_where, sizeof(alias_where), "in event '%s' of PMU '%s'",
		 alias, pmu->name);
	for (size_t i = 0; i < list.count; i++) {
		const struct term *t = &list.terms[i];

		if (!t->is_param) {
			err = apply_term(pmu, attr, t, alias_where);
		} else if (!has_term(user, t->name)) {
			err = prf_set_error(pmu->error, -EINVAL, "event '%s' of PMU '%s' needs "
					    "parameter '%s' (e.g. %s/%s,%s=N/)", alias, pmu->name,
					    t->name, pmu->name, alias, t->name);
		}
		if (err)
			return err;
	}
	return 0;
}

int prd_pmu_parse(const char *sysfs_root, const char *pmu_name, const char *terms,
		  struct perf_event_attr *attr, struct prf_error *error)
{
	struct pmu pmu = { .name = pmu_name, .error = error };
	char copy[TEXT_SIZE], where[TEXT_SIZE + 300], user_where[300];
	struct term_list user;
	size_t alias;
	int err;

	if (strlen(terms) >= sizeof(copy))
		return prf_set_error(error, -ENAMETOOLONG, "term list too long for PMU '%s'",
				     pmu_name);
	err = pmu_open(&pmu, sysfs_root, attr);
	if (err)
		return err;
	strcpy(copy, terms);
	snprintf(where, sizeof(where), "'%s/%s/'", pmu_name, terms);
	snprintf(user_where, sizeof(user_where), "for PMU '%s'", pmu_name);
	err = split_terms(&pmu, copy, where, false, &user);
	if (!err)
		err = find_alias(&pmu, &user, where, &alias);
	if (!err && alias < user.count)
		err = apply_alias(&pmu, attr, user.terms[alias].name, &user);
	for (size_t i = 0; !err && i < user.count; i++)
		if (i != alias)
			err = apply_term(&pmu, attr, &user.terms[i], user_where);
	return err;
}
