/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A set of inputs read into a profile: the debug directories (bundles
 * extracted, the captures' own .build-id trees), the symbolizer, the
 * session and its first pass, the hosts and the event chosen; then the
 * second pass into the aggregator.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bundle.h"
#include "debuginfod.h"
#include "report.h"
#include "symbolize.h"
#include "unwind.h"

static int no_memory(struct prf_error *error)
{
	return prf_set_error(error, -ENOMEM, "out of memory");
}

/* ---- debug directories ---------------------------------------------- */

static int add_dir(const char ***dirs, size_t *count, size_t *capacity, const char *dir)
{
	if (prf_ensure_mem((void **)dirs, capacity, sizeof(**dirs), *count + 1) < 0)
		return -ENOMEM;
	(*dirs)[(*count)++] = dir;
	return 0;
}

/* A directory the list owns (freed with it). */
static int add_owned(struct report_debug_dirs *d, char *dir)
{
	if (prf_ensure_mem((void **)&d->owned, &d->owned_capacity, sizeof(*d->owned),
			   d->owned_count + 1) < 0) {
		free(dir);
		return -ENOMEM;
	}
	d->owned[d->owned_count++] = dir;
	return 0;
}

/*
 * perfrecd's binary cache: the .build-id tree of each capture's directory
 * (an input directory, or the directory of an input file), if it has one.
 */
static int add_capture_trees(struct report_debug_dirs *d, const char *const *inputs,
			     size_t input_count)
{
	for (size_t i = 0; i < input_count; i++) {
		const char *slash = strrchr(inputs[i], '/');
		struct stat st;
		char *dir, *tree;
		int dup = 0;

		if (stat(inputs[i], &st) < 0)
			continue;	/* said when it is read */
		if (S_ISDIR(st.st_mode))
			dir = strdup(inputs[i]);
		else
			dir = slash ? strndup(inputs[i], (size_t)(slash - inputs[i]) + 1) :
				      strdup(".");
		if (!dir || asprintf(&tree, "%s/.build-id", dir) < 0) {
			free(dir);
			return -ENOMEM;
		}
		if (lstat(tree, &st) < 0 || !S_ISDIR(st.st_mode))
			dup = 1;
		free(tree);
		for (size_t k = 0; k < d->count && !dup; k++)
			dup = !strcmp(d->dirs[k], dir);
		if (dup) {
			free(dir);
			continue;
		}
		if (add_owned(d, dir) < 0 || add_dir(&d->dirs, &d->count, &d->capacity, dir) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A bundle's .build-id tree: a directory as it is, a tar extracted into the scratch directory. */
static int add_bundle(struct report_debug_dirs *d, const char *bundle, size_t index,
		      struct prf_error *error)
{
	struct stat st;
	struct prf_error why;
	char *dir;

	if (stat(bundle, &st) < 0)
		return prf_set_error(error, -errno, "--symbols %s: %s", bundle, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (add_dir(&d->dirs, &d->count, &d->capacity, bundle) < 0)
			return no_memory(error);
		return 0;
	}
	if (!d->scratch && bundle_scratch_dir(&d->scratch, &why) < 0)
		return prf_set_error(error, -EIO, "--symbols %s: %s", bundle, why.message);
	if (asprintf(&dir, "%s/%zu", d->scratch, index) < 0 || add_owned(d, dir) < 0)
		return no_memory(error);
	if (mkdir(dir, 0700) < 0)
		return prf_set_error(error, -errno, "--symbols %s: %s: %s", bundle, dir, strerror(errno));
	if (bundle_extract(bundle, dir, &why) < 0)
		return prf_set_error(error, -EIO, "--symbols %s: %s", bundle, why.message);
	return add_dir(&d->dirs, &d->count, &d->capacity, dir) < 0 ? no_memory(error) : 0;
}

int report_debug_dirs_make(struct report_debug_dirs *d, const struct report_symbol_sources *s,
			   struct prf_error *error)
{
	int ret;

	memset(d, 0, sizeof(*d));
	if (!s->debug_dir_count &&
	    add_dir(&d->dirs, &d->count, &d->capacity, "/usr/lib/debug") < 0)
		return no_memory(error);
	for (size_t i = 0; i < s->debug_dir_count; i++)
		if (add_dir(&d->dirs, &d->count, &d->capacity, s->debug_dirs[i]) < 0)
			return no_memory(error);
	for (size_t i = 0; i < s->bundle_count; i++) {
		ret = add_bundle(d, s->bundles[i], i, error);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < PRF_ARRAY_SIZE(s->captures); i++)
		if (add_capture_trees(d, s->captures[i], s->capture_count[i]) < 0)
			return no_memory(error);
	return 0;
}

void report_debug_dirs_free(struct report_debug_dirs *d)
{
	if (d->scratch)
		bundle_remove_tree(d->scratch);
	free(d->scratch);
	for (size_t i = 0; i < d->owned_count; i++)
		free(d->owned[i]);
	free(d->owned);
	free(d->dirs);
	memset(d, 0, sizeof(*d));
}

/* ---- the profile ---------------------------------------------------- */

/*
 * PRF_REPORT_NO_SHORTCUTS=1: every sample read, resolved and counted on
 * its own, as the tests' reference for the shortcuts that give the same.
 */
static int no_shortcuts(void)
{
	const char *value = getenv("PRF_REPORT_NO_SHORTCUTS");

	return value && *value && strcmp(value, "0") != 0;
}

/*
 * --host: the session's names of the hosts given; a name no capture has
 * is said, and none at all is an error.
 */
static int choose_hosts(struct report_profile *p, const struct report_load_options *o,
			struct prf_error *error)
{
	if (!o->host_count)
		return 0;
	p->hosts = calloc(o->host_count, sizeof(*p->hosts));
	if (!p->hosts)
		return no_memory(error);
	for (size_t i = 0; i < o->host_count; i++) {
		const char *host = session_host(p->session, o->hosts[i]);

		if (host)
			p->hosts[p->host_count++] = host;
		else if (o->note)
			o->note(o->note_context, "--host %s: no capture of that host", o->hosts[i]);
	}
	if (!p->host_count)
		return prf_set_error(error, -ENOENT, "--host: none of the hosts named is in the captures");
	p->filter.hosts = p->hosts;
	p->filter.host_count = p->host_count;
	return 0;
}

/*
 * The session's summary with the hosts asked for (the header lists the
 * hosts the report is of) and the event chosen: report_choose_event().
 */
static int summarize(struct report_profile *p, const char *wanted, struct prf_error *message)
{
	session_get_summary(p->session, &p->data.header);
	if (p->host_count) {
		p->data.header.hosts = p->hosts;
		p->data.header.host_count = p->host_count;
	}
	return report_choose_event(&p->data.header, wanted, &p->filter.event, message);
}

void report_profile_summary(struct report_profile *p)
{
	struct prf_error ignored;

	summarize(p, p->filter.event, &ignored);
}

static const char *const kind_names[] = {
	[REPORT_PROFILE_CPU] = "cpu",
	[REPORT_PROFILE_OFF_CPU] = "off-cpu",
	[REPORT_PROFILE_WALL] = "wall",
};

const char *report_profile_kind_name(enum report_profile_kind kind)
{
	return (unsigned)kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "cpu";
}

int report_profile_kind_parse(const char *name, enum report_profile_kind *kind)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (strcmp(name, kind_names[i]) == 0) {
			*kind = (enum report_profile_kind)i;
			return 0;
		}
	return -EINVAL;
}

/* The session_filter kinds a profile reads. */
static unsigned sample_kinds(enum report_profile_kind kind)
{
	switch (kind) {
	case REPORT_PROFILE_OFF_CPU:
		return SESSION_SAMPLE_OFF_CPU;
	case REPORT_PROFILE_WALL:
		return SESSION_SAMPLE_CPU | SESSION_SAMPLE_OFF_CPU;
	default:
		return SESSION_SAMPLE_CPU;
	}
}

int report_profile_load(struct report_profile *p, const struct report_load_options *o,
			const char *const *inputs, size_t input_count, struct prf_error *error)
{
	struct symbolizer_options sym_options = {
		.symfs = o->symfs,
		.debug_dirs = o->debug_dirs,
		.debug_dir_count = o->debug_dir_count,
		.want_lines = o->want_lines,
		.want_inlines = o->want_inlines,
		.warn = o->warn,
		.warn_context = o->warn_context,
	};
	struct session_options session_options = {
		.warn = o->warn,
		.warn_context = o->warn_context,
		.note = o->note,
		.note_context = o->note_context,
		.jobs = o->jobs,
	};
	struct prf_error message;
	int ret;

	if (o->debuginfod) {
		p->debuginfod = debuginfod_source_new(getenv("DEBUGINFOD_URLS"), o->warn,
						      o->warn_context);
		if (!p->debuginfod && errno != ENOENT)
			return no_memory(error);
		sym_options.source = p->debuginfod;
	}
	p->no_shortcuts = session_options.no_shortcuts = no_shortcuts();
	p->symbolizer = symbolizer_new(&sym_options);	/* it keeps copies of the dirs */
	session_options.symbolizer = p->symbolizer;
	if (!p->symbolizer || session_new(&p->session, &session_options) < 0 ||
	    (o->unwind && !(p->unwinder = unwinder_new(p->session, p->symbolizer))))
		return no_memory(error);
	for (size_t i = 0; i < input_count; i++) {
		ret = session_add_input(p->session, inputs[i], error);
		if (ret < 0)
			return ret;
	}
	ret = session_load(p->session, error);
	if (ret < 0)
		return ret;
	ret = choose_hosts(p, o, error);
	if (ret < 0)
		return ret;
	summarize(p, NULL, &message);
	p->filter.event = NULL;
	p->filter.kinds = sample_kinds(p->kind);
	p->data.kind = p->kind;
	p->data.weight_unit = p->kind == REPORT_PROFILE_CPU ? NULL : "nanoseconds";
	return 0;
}

int report_profile_choose_event(struct report_profile *p, const char *wanted,
				struct prf_error *message)
{
	return summarize(p, wanted, message);
}

static int for_each_sample(struct report_profile *p, const struct session_filter *filter,
			   session_sample_fn fn, void *context)
{
	if (p->unwinder)
		return unwinder_for_each_sample(p->unwinder, filter, fn, context);
	return session_for_each_sample(p->session, filter, fn, context);
}

int report_for_each_sample(struct report_profile *p, session_sample_fn fn, void *context)
{
	return for_each_sample(p, &p->filter, fn, context);
}

int report_profile_aggregate(struct report_profile *p, const struct aggregate_options *given)
{
	struct aggregate_options options = *given;
	struct session_filter filter = p->filter;

	if (p->kind == REPORT_PROFILE_OFF_CPU && !p->data.header.off_cpu_total)
		return -ENOENT;
	options.no_shortcuts |= p->no_shortcuts;
	p->aggregator = report_aggregator_new(p->session, p->symbolizer, &options);
	if (!p->aggregator)
		return -ENOMEM;
	/*
	 * Files on several threads, unless libdwfl (one thread) unwinds their
	 * stacks; samples alike taken together unless each is unwound.
	 */
	if (!p->unwinder || !p->data.header.user_stacks)
		report_aggregator_filter(p->aggregator, &filter);
	if (options.jobs > 1 && (!p->unwinder || !p->data.header.user_stacks))
		p->read_error = report_aggregator_read(p->aggregator, &filter, options.jobs) < 0;
	else
		p->read_error = for_each_sample(p, &filter, report_aggregator_add,
						p->aggregator) < 0;
	if (report_aggregator_finish(p->aggregator, &p->data) < 0)
		return -ENOMEM;
	/* Again: pass 2 may have found more damage. */
	report_profile_summary(p);
	p->data.header.samples = p->data.total_samples;
	return 0;
}

void report_profile_free(struct report_profile *p)
{
	report_aggregator_free(p->aggregator);
	unwinder_free(p->unwinder);
	session_free(p->session);
	symbolizer_free(p->symbolizer);
	debuginfod_source_free(p->debuginfod);
	free(p->hosts);
	memset(p, 0, sizeof(*p));
}
