/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The feature sections after the data, as perf's util/header.c reads
 * them: a table of (offset, size), one per bit set in the header, in bit
 * order, then the sections.  What the capture knows goes in (its host,
 * kernel, CPUs, events, build-ids, time span and clock); what it does
 * not (the CPU's model) is said to be unknown rather than made up.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "perfdata-internal.h"
#include "symbolize.h"

static void write_build_id(struct perfdata_writer *w)
{
	perfdata_write_build_ids(w);
}

static void write_hostname(struct perfdata_writer *w)
{
	perfdata_put_string(w, w->host.name);
}

static void write_osrelease(struct perfdata_writer *w)
{
	perfdata_put_string(w, w->host.kernel_release);
}

static void write_version(struct perfdata_writer *w)
{
	perfdata_put_string(w, "perfrec-report " PACKAGE_VERSION);
}

static void write_arch(struct perfdata_writer *w)
{
	perfdata_put_string(w, w->host.machine);
}

/* perf's order: CPUs available, then online. */
static void write_nrcpus(struct perfdata_writer *w)
{
	uint32_t cpus[2] = { w->host.nr_cpus_configured, w->host.nr_cpus_online };

	perfdata_put(w, cpus, sizeof(cpus));
}

static void write_cpudesc(struct perfdata_writer *w)
{
	perfdata_put_string(w, "unknown (not recorded)");
}

static void write_cmdline(struct perfdata_writer *w)
{
	uint32_t n = (uint32_t)w->options.cmdline_count;

	perfdata_put(w, &n, sizeof(n));
	for (size_t i = 0; i < n; i++)
		perfdata_put_string(w, w->options.cmdline[i]);
}

static void write_event_desc(struct perfdata_writer *w)
{
	uint32_t head[2] = { (uint32_t)w->attr_count, sizeof(struct perf_event_attr) };
	uint32_t one = 1;

	perfdata_put(w, head, sizeof(head));
	for (size_t i = 0; i < w->attr_count; i++) {
		perfdata_put(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		perfdata_put(w, &one, sizeof(one));
		perfdata_put_string(w, w->attrs[i].name);
		perfdata_put(w, &w->attrs[i].id, sizeof(w->attrs[i].id));
	}
}

static void write_sample_time(struct perfdata_writer *w)
{
	uint64_t span[2] = { w->samples ? w->first_time : 0, w->last_time };

	perfdata_put(w, span, sizeof(span));
}

/* The clock's resolution: CLOCK_MONOTONIC's, nanoseconds. */
static void write_clockid(struct perfdata_writer *w)
{
	uint64_t resolution = 1;

	perfdata_put(w, &resolution, sizeof(resolution));
}

/* A time of the capture clock and the wall clock's then: perf script --clock-data. */
static void write_clock_data(struct perfdata_writer *w)
{
	struct {
		uint32_t version, clockid;
		uint64_t wall_ns, clock_ns;
	} data = {
		.version = 1, .clockid = CLOCK_MONOTONIC,
		.clock_ns = w->summary->start_ns,
		.wall_ns = w->summary->start_ns + (uint64_t)w->summary->realtime_offset_ns,
	};

	perfdata_put(w, &data, sizeof(data));
}

static const struct {
	unsigned bit;
	void (*write)(struct perfdata_writer *w);
} features[] = {
	{ PRF_PERFDATA_FEAT_BUILD_ID, write_build_id },
	{ PRF_PERFDATA_FEAT_HOSTNAME, write_hostname },
	{ PRF_PERFDATA_FEAT_OSRELEASE, write_osrelease },
	{ PRF_PERFDATA_FEAT_VERSION, write_version },
	{ PRF_PERFDATA_FEAT_ARCH, write_arch },
	{ PRF_PERFDATA_FEAT_NRCPUS, write_nrcpus },
	{ PRF_PERFDATA_FEAT_CPUDESC, write_cpudesc },
	{ PRF_PERFDATA_FEAT_CMDLINE, write_cmdline },
	{ PRF_PERFDATA_FEAT_EVENT_DESC, write_event_desc },
	{ PRF_PERFDATA_FEAT_SAMPLE_TIME, write_sample_time },
	{ PRF_PERFDATA_FEAT_CLOCKID, write_clockid },
	{ PRF_PERFDATA_FEAT_CLOCK_DATA, write_clock_data },
};

#define FEATURE_COUNT	(sizeof(features) / sizeof(features[0]))

void perfdata_write_features(struct perfdata_writer *w)
{
	struct prf_perfdata_section table[FEATURE_COUNT] = { { 0 } };
	off_t start = ftello(w->out), at;
	size_t present = 0;

	if (start < 0) {
		w->error = -errno;
		return;
	}
	perfdata_put(w, table, sizeof(table));
	at = start + (off_t)sizeof(table);
	for (size_t i = 0; i < FEATURE_COUNT && !w->error; i++) {
		uint64_t offset = (uint64_t)at;

		features[i].write(w);
		at = ftello(w->out);
		if (at < 0) {
			w->error = -errno;
			return;
		}
		/*
		 * An empty section (no build-ids) is not announced: the table
		 * has an entry per bit set, the slots left over stay zero.
		 */
		if ((uint64_t)at == offset)
			continue;
		table[present++] = (struct prf_perfdata_section){ offset, (uint64_t)at - offset };
		w->header.features[features[i].bit / 64] |= 1ull << (features[i].bit % 64);
	}
	if (w->error)
		return;
	if (fseeko(w->out, start, SEEK_SET) < 0) {
		w->error = -errno;
		return;
	}
	perfdata_put(w, table, sizeof(table));
}
