/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event names as perf spells them: generic hardware and software events,
 * hardware cache events, raw rNNNN codes, and (through pmu.c) the sysfs
 * "pmu/term=value,.../" syntax, each with optional ":ukhp" modifiers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "events.h"
#include "format.h"
#include "pmu.h"

#define NAME_SIZE	1024


/* Indexed by PERF_COUNT_HW_CACHE_*; perf matches them case-insensitively. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};

static const struct {
	const char *name;
	unsigned int op;
} cache_ops[] = {
	{ "loads", PERF_COUNT_HW_CACHE_OP_READ },
	{ "load", PERF_COUNT_HW_CACHE_OP_READ },
	{ "stores", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

static void attr_init(struct perf_event_attr *attr, __u32 type, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

static int parse_generic(const char *name, struct perf_event_attr *attr)
{
	size_t count;
	const struct prf_event_name *names = prf_event_names(&count);

	for (size_t i = 0; i < count; i++) {
		const struct prf_event_name *e = &names[i];

		if (!strcmp(name, e->name)) {
			attr->type = e->type;
			attr->config = e->config;
			return 0;
		}
	}
	return -ENOENT;
}

/* Returns the length of the prefix of s that is word plus '-', or 0. */
static size_t match_dash(const char *s, const char *word)
{
	size_t len = strlen(word);

	return !strncasecmp(s, word, len) && s[len] == '-' ? len + 1 : 0;
}

/* CACHE-OP[-misses]: config is cache | op << 8 | result << 16. */
static int parse_cache(const char *name, struct perf_event_attr *attr)
{
	for (unsigned int cache = 0; cache < PRF_ARRAY_SIZE(cache_names); cache++) {
		size_t skip = match_dash(name, cache_names[cache]);
		unsigned int result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
		const char *rest;

		if (!skip)
			continue;
		for (size_t i = 0; i < PRF_ARRAY_SIZE(cache_ops); i++) {
			size_t len = strlen(cache_ops[i].name);

			rest = name + skip;
			if (strncasecmp(rest, cache_ops[i].name, len))
				continue;
			rest += len;
			if (!strcasecmp(rest, "-misses") || !strcasecmp(rest, "-miss"))
				result = PERF_COUNT_HW_CACHE_RESULT_MISS;
			else if (*rest)
				continue;
			attr->type = PERF_TYPE_HW_CACHE;
			attr->config = cache | cache_ops[i].op << 8 | result << 16;
			return 0;
		}
	}
	return -ENOENT;
}

/* rNNNN: -ENOENT if name is not all hex digits, -ERANGE past 64 bits. */
static int parse_raw(const char *name, struct perf_event_attr *attr)
{
	uint64_t value = 0;
	const char *p;

	if (name[0] != 'r' || !name[1])
		return -ENOENT;
	if (strspn(name + 1, "0123456789abcdefABCDEF") != strlen(name + 1))
		return -ENOENT;
	for (p = name + 1; *p; p++) {
		unsigned int digit = isdigit((unsigned char)*p) ? *p - '0' :
				     (tolower((unsigned char)*p) - 'a' + 10);

		if (value >> 60)
			return -ERANGE;
		value = value << 4 | digit;
	}
	attr->type = PERF_TYPE_RAW;
	attr->config = value;
	return 0;
}

/* Optimal string alignment distance: typos are mostly one edit or a swap. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la >= 32 || lb >= 32)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], best = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

static const char *suggest(const char *name)
{
	size_t limit = strlen(name) >= 6 ? 2 : 1, best = limit + 1;
	const char *match = NULL;

	size_t count;
	const struct prf_event_name *names = prf_event_names(&count);

	for (size_t i = 0; i < count; i++) {
		size_t d = edit_distance(name, names[i].name);

		if (d < best) {
			best = d;
			match = names[i].name;
		}
	}
	return match;
}

static int unknown_event(const char *name, int raw_err, struct prf_error *error)
{
	const char *match = suggest(name);

	if (raw_err == -ERANGE)
		return prf_set_error(error, -EINVAL, "raw event '%s' does not fit in 64 bits",
				     name);
	if (match)
		return prf_set_error(error, -ENOENT, "unknown event '%s' (did you mean '%s'?)",
				     name, match);
	if (name[0] == 'r' && isxdigit((unsigned char)name[1]))
		return prf_set_error(error, -ENOENT, "unknown event '%s' (a raw event is 'r' "
				     "and up to 16 hex digits)", name);
	return prf_set_error(error, -ENOENT, "unknown event '%s'", name);
}

/*
 * perf's modifiers: u, k, h name the privilege levels to count and exclude
 * the others; each p asks for one more level of precise_ip (skid).
 */
static int parse_modifiers(const char *mods, const char *event,
			   struct perf_event_attr *attr, struct prf_error *error)
{
	bool user = false, kernel = false, hv = false;
	unsigned int precise = 0;

	if (!*mods)
		return prf_set_error(error, -EINVAL, "empty modifier in '%s'", event);
	for (const char *p = mods; *p; p++) {
		switch (*p) {
		case 'u': user = true; break;
		case 'k': kernel = true; break;
		case 'h': hv = true; break;
		case 'p': precise++; break;
		default:
			return prf_set_error(error, -EINVAL, "unknown modifier '%c' in '%s' "
					     "(valid: u, k, h, p)", *p, event);
		}
	}
	if (precise > 3)
		return prf_set_error(error, -EINVAL, "too many 'p' modifiers in '%s' (at most 3)",
				     event);
	if (user || kernel || hv) {
		attr->exclude_user = !user;
		attr->exclude_kernel = !kernel;
		attr->exclude_hv = !hv;
	}
	attr->precise_ip = precise;
	return 0;
}

/*
 * A number of a sampling term: decimal, or hexadecimal with 0x, above
 * zero; perf_event_attr holds 64 bits but the kernel refuses a period with
 * bit 63 set, so that is refused here with the term named.
 */
static int parse_sampling_value(const char *text, const char *term, uint64_t *value,
				struct prf_error *error)
{
	int base = text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? 16 : 10;
	const char *digits = base == 16 ? text + 2 : text;
	uint64_t v = 0;

	if (!*digits || strspn(digits, base == 16 ? "0123456789abcdefABCDEF" :
			       "0123456789") != strlen(digits))
		goto bad;
	for (const char *p = digits; *p; p++) {
		unsigned int digit = isdigit((unsigned char)*p) ? *p - '0' :
				     (tolower((unsigned char)*p) - 'a' + 10);

		if (v > ((uint64_t)INT64_MAX - digit) / (unsigned int)base)
			goto bad;
		v = v * (unsigned int)base + digit;
	}
	if (v) {
		*value = v;
		return 0;
	}
bad:
	return prf_set_error(error, -EINVAL, "%s=%s is not a number from 1 to %lld",
			     term, text, (long long)INT64_MAX);
}

/*
 * Takes period=N and freq=N out of the terms text, in place, into attr:
 * they are an event's own sampling, which the caller keeps over its
 * defaults (perf spells them so, "page-faults/period=64/").
 */
static int take_sampling_terms(char *terms,
			       struct perf_event_attr *attr, struct prf_error *error)
{
	char *out = terms, *item = terms;
	bool period = false, freq = false;
	unsigned int kept = 0;

	while (item) {
		char *next = strchr(item, ',');
		uint64_t value = 0;	/* gcc cannot tell prf_set_error() returned nonzero */
		int err;

		if (next)
			*next++ = '\0';
		if (!strncmp(item, "period=", 7) || !strncmp(item, "freq=", 5)) {
			bool is_period = item[0] == 'p';

			if (period || freq)
				return prf_set_error(error, -EINVAL, "period= or freq= given twice "
						     "(an event samples one way)");
			err = parse_sampling_value(item + (is_period ? 7 : 5),
						   is_period ? "period" : "freq",
						   &value, error);
			if (err)
				return err;
			if (is_period) {
				attr->sample_period = value;
				period = true;
			} else {
				attr->sample_freq = value;
				attr->freq = 1;
				freq = true;
			}
		} else {
			if (kept++)	/* empty terms stay, for prd_pmu_parse to refuse */
				*out++ = ',';
			memmove(out, item, strlen(item) + 1);
			out += strlen(out);
		}
		item = next;
	}
	*out = '\0';
	return 0;
}

/*
 * "pmu/terms/" then optional modifiers, with or without a ':'.  A generic
 * name in place of the PMU ("page-faults/period=64/") takes sampling terms
 * only.
 */
static int parse_pmu_event(char *copy, const char *name, const char *sysfs_root,
			   struct perf_event_attr *attr, struct prf_error *error)
{
	char *terms = strchr(copy, '/'), *end, *mods;
	struct perf_event_attr named = *attr;
	int err;

	*terms++ = '\0';
	end = strchr(terms, '/');
	if (!end)
		return prf_set_error(error, -EINVAL, "missing closing '/' in '%s'", name);
	*end = '\0';
	mods = end + 1;
	if (strchr(mods, '/'))
		return prf_set_error(error, -EINVAL, "unexpected '/' after the terms in '%s'",
				     name);
	err = take_sampling_terms(terms, attr, error);
	if (err)
		return err;
	if (!parse_generic(copy, &named) || !parse_cache(copy, &named) ||
	    !parse_raw(copy, &named)) {
		if (*terms)
			return prf_set_error(error, -EINVAL, "'%s' takes only the terms period= "
					     "and freq=, not '%s'", copy, terms);
		attr->type = named.type;
		attr->config = named.config;
	} else {
		err = prd_pmu_parse(sysfs_root, copy, terms, attr, error);
	}
	if (err || !*mods)
		return err;
	return parse_modifiers(*mods == ':' ? mods + 1 : mods, name, attr, error);
}

static int parse_named_event(char *copy, const char *name,
			     struct perf_event_attr *attr, struct prf_error *error)
{
	char *mods = strchr(copy, ':');
	int err;

	if (mods)
		*mods++ = '\0';
	err = parse_generic(copy, attr);
	if (err)
		err = parse_cache(copy, attr);
	if (err)
		err = parse_raw(copy, attr);
	/* Not an event before the ':': a tracepoint, unless it reads as a typo's modifiers. */
	if (err && mods) {
		int tp = prd_tracepoint_parse(name, attr, error);

		if (tp == 0 || strspn(mods, "ukhp") != strlen(mods))
			return tp;
	}
	if (err)
		return unknown_event(copy, err, error);
	return mods ? parse_modifiers(mods, name, attr, error) : 0;
}

int prd_event_parse(const char *name, const char *sysfs_root,
		    struct perf_event_attr *attr, struct prf_error *error)
{
	struct perf_event_attr parsed;
	char copy[NAME_SIZE];
	int err;

	prf_set_error(error, 0, "%s", "");
	if (!name || !*name)
		return prf_set_error(error, -EINVAL, "empty event name");
	if (strlen(name) >= sizeof(copy)) {
		return prf_set_error(error, -ENAMETOOLONG,
				     "event name too long (%zu bytes, at most %zu)",
				     strlen(name), sizeof(copy) - 1);
	}
	strcpy(copy, name);
	attr_init(&parsed, 0, 0);
	if (strchr(copy, '/'))
		err = parse_pmu_event(copy, name, sysfs_root ? sysfs_root : "/sys",
				      &parsed, error);
	else
		err = parse_named_event(copy, name, &parsed, error);
	if (err)
		return err;
	*attr = parsed;	/* attr is left alone on failure */
	return 0;
}

static int set_name(char *name, size_t size, const char *value)
{
	int len = snprintf(name, size, "%s", value);

	return len < 0 || (size_t)len >= size ? -ENOSPC : 0;
}

int prd_event_default(struct perf_event_attr *attr, char *name, size_t name_size,
		      struct prf_error *notice)
{
	struct perf_event_attr probe;
	int fd, err;

	prf_set_error(notice, 0, "%s", "");
	/*
	 * Whether the PMU counts cycles does not depend on the target, so
	 * probe the calling thread in user mode: that needs no privilege
	 * (perf_event_paranoid 2), and a privilege problem of the real target
	 * is reported when the collector opens it.
	 */
	attr_init(&probe, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	probe.sample_freq = 97;
	probe.freq = 1;
	probe.disabled = 1;
	probe.exclude_kernel = 1;
	probe.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &probe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		attr_init(attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		return set_name(name, name_size, "cycles");
	}
	err = errno;
	/* Missing hardware, not missing privilege: the caller reports that. */
	if (err != ENOENT && err != EOPNOTSUPP && err != ENODEV)
		return -err;
	attr_init(attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	prf_set_error(notice, -err, "no hardware cycles counter on this machine (%s): "
		      "sampling cpu-clock instead", strerror(err));
	return set_name(name, name_size, "cpu-clock");
}
