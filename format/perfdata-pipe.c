/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data in pipe mode (perf record -o -, the stream saved to a file):
 * a 16-byte header, then the description as records, HEADER_ATTR (an
 * attr and its ids), HEADER_FEATURE (a feature and its section, as in
 * file mode), EVENT_UPDATE (an event's name), HEADER_BUILD_ID and
 * HEADER_TRACING_DATA (its data after it), up to the first of the
 * kernel's records: the data, to the end of the file.
 */
#include <errno.h>
#include <stdio.h>
#include "perfdata-reader.h"

#define PD_EVENT_UPDATE_NAME	1

struct pipe_scan {
	size_t attrs, ids, attr_bytes, names_bytes;
	uint8_t *attr_store, *names;	/* the attrs' bytes, the names (kept) */
	size_t attr_used, names_used;
	uint64_t *ids_store;
	size_t ids_used;
};

/* The header record at *at: its header, and where the next one starts; 0 at the data. */
static int next_header_record(struct prf_reader *r, uint64_t *at, struct perf_event_header *h,
			      uint64_t *next)
{
	uint64_t extra = 0;

	if (r->file_size - *at < sizeof(*h) || prf_read_at(r->fd, h, sizeof(*h), *at) < 0)
		return 0;
	if (h->type < PRF_PERFDATA_RECORD_USER_BASE || h->type == PRF_PERFDATA_RECORD_FINISHED_ROUND ||
	    h->type == PRF_PERFDATA_RECORD_COMPRESSED || h->type == PRF_PERFDATA_RECORD_COMPRESSED2 ||
	    h->type == PRF_PERFDATA_RECORD_FINISHED_INIT)
		return 0;
	if (h->size < sizeof(*h) || h->size > r->file_size - *at)
		return -EBADMSG;
	if (h->type == PRF_PERFDATA_RECORD_HEADER_TRACING_DATA && h->size >= 12) {
		uint32_t size;

		if (prf_read_at(r->fd, &size, 4, *at + 8) < 0)
			return -EBADMSG;
		extra = size;
	}
	if (extra > r->file_size - *at - h->size)
		return -EBADMSG;
	*next = *at + h->size + extra;
	return 1;
}

/* HEADER_ATTR: the attr's own size, bounded by the record. */
static uint32_t attr_size_of(struct prf_reader *r, uint64_t at, const struct perf_event_header *h)
{
	uint32_t size;

	if (h->size < 8 + PERF_ATTR_SIZE_VER0 ||
	    prf_read_at(r->fd, &size, 4, at + 8 + offsetof(struct perf_event_attr, size)) < 0 ||
	    size < PERF_ATTR_SIZE_VER0 || size > h->size - 8u || size % 8)
		return 0;
	return size;
}

static void take_attr(struct prf_reader *r, struct pipe_scan *scan, uint64_t at,
		      const struct perf_event_header *h)
{
	uint32_t size = attr_size_of(r, at, h);
	struct prf_event *ev = &r->events[r->info.event_count];
	size_t ids = size ? (h->size - 8u - size) / 8 : 0;
	uint8_t *attr = scan->attr_store + scan->attr_used;

	if (!size || r->info.event_count == scan->attrs ||
	    scan->attr_used + size > scan->attr_bytes || scan->ids_used + ids > scan->ids ||
	    prf_read_at(r->fd, attr, size, at + 8) < 0 ||
	    (ids && prf_read_at(r->fd, scan->ids_store + scan->ids_used, ids * 8,
				at + 8 + size) < 0))
		return;
	scan->attr_used += size;
	ev->attr_bytes = attr;
	ev->attr_size = size;
	memcpy(&ev->attr, attr, size < sizeof(ev->attr) ? size : sizeof(ev->attr));
	ev->ids = scan->ids_store + scan->ids_used;
	ev->id_count = (uint32_t)ids;
	scan->ids_used += ids;
	ev->name = prf_event_name(ev->attr.type, ev->attr.config);
	if (!ev->name)
		ev->name = "unknown";
	r->info.event_count++;
}

/* EVENT_UPDATE of the NAME kind: u64 type, u64 id, the name. */
static void take_event_update(struct prf_reader *r, struct pipe_scan *scan, uint64_t at,
			      const struct perf_event_header *h)
{
	uint64_t head[2];
	size_t length = h->size > 24 ? h->size - 24u : 0;
	char *name = (char *)scan->names + scan->names_used;

	if (!length || scan->names_used + length + 1 > scan->names_bytes ||
	    prf_read_at(r->fd, head, sizeof(head), at + 8) < 0 || head[0] != PD_EVENT_UPDATE_NAME ||
	    prf_read_at(r->fd, name, length, at + 24) < 0)
		return;
	name[length] = '\0';
	scan->names_used += strlen(name) + 1;
	prf_perfdata_name_event(r->perfdata, &(struct prf_perfdata_name){ .id = head[1],
									  .name = name });
}

int prf_perfdata_open_pipe(struct prf_reader *r, struct prf_error *error)
{
	struct prf_perfdata *pd = r->perfdata;
	struct pipe_scan scan = { 0 };
	struct perf_event_header h;
	uint64_t at, next = 0;
	int ret;

	/* First the sizes, to allocate once; then the records. */
	for (at = 16; (ret = next_header_record(r, &at, &h, &next)) == 1; at = next) {
		uint32_t size;

		if (h.type == PRF_PERFDATA_RECORD_HEADER_ATTR && (size = attr_size_of(r, at, &h))) {
			scan.attrs++;
			scan.attr_bytes += size;
			scan.ids += (h.size - 8u - size) / 8;
		} else if (h.type == PRF_PERFDATA_RECORD_EVENT_UPDATE) {
			scan.names_bytes += h.size;
		}
	}
	if (ret < 0)
		return prf_perfdata_error(r, error, -EBADMSG, "a header record runs past the file");
	if (scan.attrs == 0 || scan.attrs > PRF_EVENT_MAX)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "no events, or more than this reader takes");
	if (scan.ids > PD_IDS_MAX)
		return prf_perfdata_error(r, error, -EBADMSG,
					  "more event ids than this reader takes");
	r->events = calloc(scan.attrs + 1, sizeof(*r->events));
	scan.ids_store = calloc(scan.ids + 1, 8);
	r->header = (uint8_t *)scan.ids_store;	/* freed with the reader */
	scan.attr_store = prf_perfdata_own(pd, malloc(scan.attr_bytes + 1));
	scan.names = prf_perfdata_own(pd, malloc(scan.names_bytes + 1));
	if (!r->events || !scan.ids_store || !scan.attr_store || !scan.names)
		return prf_perfdata_error(r, error, -ENOMEM, "out of memory");
	r->info.events = r->events;
	for (at = 16; next_header_record(r, &at, &h, &next) == 1; at = next)
		if (h.type == PRF_PERFDATA_RECORD_HEADER_ATTR)
			take_attr(r, &scan, at, &h);
	for (at = 16; next_header_record(r, &at, &h, &next) == 1; at = next) {
		struct prf_perfdata_section s = { at + 16, h.size - 16u };

		if (h.type == PRF_PERFDATA_RECORD_EVENT_UPDATE)
			take_event_update(r, &scan, at, &h);
		else if (h.type == PRF_PERFDATA_RECORD_HEADER_FEATURE && h.size >= 16) {
			uint64_t feature;

			if (prf_read_at(r->fd, &feature, 8, at + 8) == 0 && feature < 256)
				prf_perfdata_take_feature(r, (unsigned)feature, &s);
		} else if (h.type == PRF_PERFDATA_RECORD_HEADER_BUILD_ID) {
			struct prf_perfdata_section record = { at, h.size };

			prf_perfdata_take_build_ids(r, &record);
		}
	}
	if (r->info.event_count == 0)
		return prf_perfdata_error(r, error, -EBADMSG, "no event of a readable size");
	/* The data: from the first of the kernel's records (or perf's rounds) to the end. */
	pd->data_start = pd->position = at;
	pd->data_declared_end = pd->data_end = r->file_size;
	return 0;
}
