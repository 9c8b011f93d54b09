/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file: perf's header (written first as a placeholder, again at the
 * end when the sections' places are known), the attrs and their ids, the
 * data section of side-band then samples, the feature sections.  perf
 * orders the records by time itself (they all carry one), so the
 * side-band can come first, sorted, and the samples in the capture's
 * order.  perf takes the feature sections from right after the data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "perfdata-internal.h"

void perfdata_put(struct perfdata_writer *w, const void *data, size_t size)
{
	if (!w->error && size && fwrite(data, 1, size, w->out) != size)
		w->error = errno ? -errno : -EIO;
}

size_t perfdata_clean_name(char *out, size_t size, const char *s)
{
	size_t n = s ? strnlen(s, size - 1) : 0;

	memcpy(out, s ? s : "", n);
	out[n] = '\0';
	/* A name cut inside a character ends in an invalid byte: '?' too. */
	return prf_text_make_safe(out);
}

void perfdata_put_string(struct perfdata_writer *w, const char *s)
{
	static const char zeros[64];
	char text[PERFDATA_NAME_MAX];
	size_t n = perfdata_clean_name(text, sizeof(text), s);
	uint32_t length = (uint32_t)((n + 1 + 63) & ~(size_t)63);

	perfdata_put(w, &length, sizeof(length));
	perfdata_put(w, text, n);
	perfdata_put(w, zeros, length - n);
}

/* The inputs' events the samples may be of: the filter's, or all. */
static int make_attrs(struct perfdata_writer *w)
{
	const struct session_summary *h = w->summary;

	w->attrs = calloc(h->event_count ? h->event_count : 1, sizeof(*w->attrs));
	if (!w->attrs)
		return -ENOMEM;
	for (size_t i = 0; i < h->event_count; i++) {
		const struct session_event *e = &h->events[i];
		struct perfdata_attr *a = &w->attrs[w->attr_count];

		if (w->options.event && strcmp(w->options.event, e->name))
			continue;
		a->name = e->name;
		a->id = w->attr_count + 1;
		a->attr.type = e->type;
		a->attr.size = sizeof(a->attr);
		a->attr.config = e->config;
		a->attr.sample_type = PERFDATA_SAMPLE_TYPE;
		a->attr.freq = e->sampling.frequency != 0;
		a->attr.sample_period = e->sampling.frequency ? e->sampling.frequency :
				       e->sampling.period;
		a->attr.sample_id_all = 1;
		/* The capture clock; CLOCK_DATA ties it to the wall clock. */
		a->attr.use_clockid = 1;
		a->attr.clockid = CLOCK_MONOTONIC;
		/* The first carries the side-band, as perf record's first event does. */
		if (!w->attr_count) {
			a->attr.mmap = a->attr.comm = a->attr.task = 1;
			a->attr.mmap2 = a->attr.comm_exec = 1;
		}
		w->attr_count++;
	}
	return w->attr_count ? 0 : -ENOENT;
}

/* Each attr's one id, then the attrs, each pointing at its id. */
static void write_attrs(struct perfdata_writer *w)
{
	uint64_t ids = sizeof(w->header);

	for (size_t i = 0; i < w->attr_count; i++)
		perfdata_put(w, &w->attrs[i].id, sizeof(w->attrs[i].id));
	w->header.attrs.offset = ids + w->attr_count * sizeof(uint64_t);
	w->header.attr_size = sizeof(struct perf_event_attr) + sizeof(struct prf_perfdata_section);
	w->header.attrs.size = w->attr_count * w->header.attr_size;
	for (size_t i = 0; i < w->attr_count; i++) {
		struct prf_perfdata_section id = { ids + i * sizeof(uint64_t), sizeof(uint64_t) };

		perfdata_put(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		perfdata_put(w, &id, sizeof(id));
	}
	w->header.data.offset = w->header.attrs.offset + w->header.attrs.size;
}

int perfdata_new(struct perfdata_writer **writer, struct session *session,
		 const struct session_summary *summary, const struct perfdata_options *options,
		 FILE *out)
{
	struct perfdata_writer *w = calloc(1, sizeof(*w));
	int ret;

	*writer = w;
	if (!w)
		return -ENOMEM;
	w->session = session;
	w->summary = summary;
	w->options = *options;
	w->out = out;
	w->first_time = UINT64_MAX;
	if (fseeko(out, 0, SEEK_CUR) < 0)
		return -ESPIPE;
	ret = session_host_info(session, options->host, &w->host);
	if (ret < 0)
		return ret;
	ret = make_attrs(w);
	if (ret < 0)
		return ret;
	memcpy(w->header.magic, PRF_PERFDATA_MAGIC, sizeof(w->header.magic));
	w->header.size = sizeof(w->header);
	perfdata_put(w, &w->header, sizeof(w->header));
	write_attrs(w);
	ret = perfdata_write_sideband(w);
	return ret < 0 ? ret : w->error;
}

struct thread_key {
	uint32_t pid, tid;
};

static int thread_equal(const void *context, uint32_t id, const void *key)
{
	const struct perfdata_thread *t = &((const struct perfdata_thread *)context)[id - 1];
	const struct thread_key *k = key;

	return t->pid == k->pid && t->tid == k->tid;
}

/*
 * A thread's name as the session gives it at the sample, told to perf
 * first where it is not the one perf has: the replay names a thread after
 * its process until it renames itself, and knows no thread's start.
 */
static void name_thread(struct perfdata_writer *w, const struct session_sample *sample)
{
	struct thread_key key = { sample->pid, sample->tid };
	/* pid and tid are the capture's: seeded (prf_hash_seed()). */
	uint64_t h = prf_hash_mix(prf_hash_seed() ^ ((uint64_t)sample->pid << 32 | sample->tid));
	struct prf_index_slot *slot;
	struct perfdata_thread *t;

	if (!sample->comm)
		return;
	slot = prf_index_place(&w->thread_index, h, thread_equal, w->threads, &key);
	if (!slot)
		return;		/* without memory, perf's own name for it */
	if (!slot->id) {
		if (prf_ensure_mem((void **)&w->threads, &w->thread_capacity, sizeof(*w->threads),
				   w->thread_count + 1) < 0)
			return;
		w->threads[w->thread_count++] = (struct perfdata_thread){ key.pid, key.tid, NULL };
		prf_index_insert(&w->thread_index, slot, h, (uint32_t)w->thread_count);
		t = &w->threads[w->thread_count - 1];
	} else {
		t = &w->threads[slot->id - 1];
	}
	if (t->comm == sample->comm)
		return;
	t->comm = sample->comm;
	perfdata_record_comm(w, sample->pid, sample->tid, sample->comm, sample->time);
}

void perfdata_add(void *writer, const struct session_sample *sample)
{
	struct perfdata_writer *w = writer;

	if (sample->kind != SESSION_SAMPLE_CPU || w->error)
		return;
	/* Samples of one file share its event: its attr found once. */
	if (sample->event != w->last_event) {
		size_t i = 0;

		while (i + 1 < w->attr_count && sample->event &&
		       strcmp(w->attrs[i].name, sample->event->name))
			i++;
		w->last_event = sample->event;
		w->last_attr = i;
	}
	name_thread(w, sample);
	w->cut += perfdata_record_sample(w, w->attrs[w->last_attr].id, sample);
	w->samples++;
	if (sample->time < w->first_time)
		w->first_time = sample->time;
	if (sample->time > w->last_time)
		w->last_time = sample->time;
}

uint64_t perfdata_samples(const struct perfdata_writer *w)
{
	return w->samples;
}

int perfdata_finish(struct perfdata_writer *w)
{
	off_t end;

	perfdata_record_round(w);
	end = ftello(w->out);
	if (end < 0)
		return -errno;
	w->header.data.size = (uint64_t)end - w->header.data.offset;
	perfdata_write_features(w);
	if (w->error)
		return w->error;
	if (fseeko(w->out, 0, SEEK_SET) < 0)
		return -errno;
	perfdata_put(w, &w->header, sizeof(w->header));
	if (!w->error && fseeko(w->out, 0, SEEK_END) < 0)
		w->error = -errno;
	if (!w->error && fflush(w->out))
		w->error = -errno;
	return w->error;
}

void perfdata_free(struct perfdata_writer *w)
{
	if (!w)
		return;
	free(w->attrs);
	free(w->dsos);
	prf_index_free(&w->dso_index);
	free(w->threads);
	prf_index_free(&w->thread_index);
	free(w);
}
