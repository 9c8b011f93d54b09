/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of the data section, in the layout the attrs say
 * (PERFDATA_SAMPLE_TYPE, sample_id_all): each made in the writer's
 * buffer, 8-byte aligned and at most 64 KiB, then written.  Names are
 * NUL-terminated and padded to 8 bytes, cut to what perf reads and made
 * safe: a name from a capture is another host's text.
 */
#include <string.h>
#include <sys/mman.h>
#include "common.h"
#include "perfdata-internal.h"

/* The side-band's own id: the first attr's, which asks for it. */
#define SIDEBAND_ID	1

struct cursor {
	uint8_t *p;
};

static void put_u32(struct cursor *c, uint32_t v)
{
	memcpy(c->p, &v, 4);
	c->p += 4;
}

static void put_u64(struct cursor *c, uint64_t v)
{
	memcpy(c->p, &v, 8);
	c->p += 8;
}

/* name, NUL-padded to 8 bytes; room: at most PERFDATA_NAME_MAX + 8 bytes. */
static void put_name(struct cursor *c, const char *name)
{
	size_t n = perfdata_clean_name((char *)c->p, PERFDATA_NAME_MAX, name);
	size_t padded = (n + 1 + 7) & ~(size_t)7;

	memset(c->p + n, 0, padded - n);
	c->p += padded;
}

/* sample_id_all's trailer: TID, TIME, CPU, IDENTIFIER. */
static void put_sample_id(struct cursor *c, uint32_t pid, uint32_t tid, uint64_t time)
{
	put_u32(c, pid);
	put_u32(c, tid);
	put_u64(c, time);
	put_u32(c, 0);
	put_u32(c, 0);
	put_u64(c, SIDEBAND_ID);
}

static struct cursor begin(struct perfdata_writer *w)
{
	return (struct cursor){ (uint8_t *)w->buffer + sizeof(struct perf_event_header) };
}

static void end(struct perfdata_writer *w, struct cursor *c, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {
		.type = type, .misc = misc, .size = (uint16_t)(c->p - (uint8_t *)w->buffer),
	};

	memcpy(w->buffer, &h, sizeof(h));
	perfdata_put(w, w->buffer, h.size);
}

void perfdata_record_mmap(struct perfdata_writer *w, const struct perfdata_mmap *m,
			  uint64_t time)
{
	struct cursor c = begin(w);
	uint16_t misc = PERF_RECORD_MISC_USER;

	put_u32(&c, m->kernel ? UINT32_MAX : m->pid);
	put_u32(&c, m->kernel ? 0 : m->tid);
	put_u64(&c, m->start);
	put_u64(&c, m->length);
	put_u64(&c, m->pgoff);
	if (m->kernel) {
		put_name(&c, m->name);
		put_sample_id(&c, UINT32_MAX, 0, time);
		end(w, &c, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
		return;
	}
	if (m->build_id_size) {
		/* the build-id in place of device and inode */
		uint8_t id[24] = { (uint8_t)m->build_id_size };

		memcpy(id + 4, m->build_id, m->build_id_size);
		memcpy(c.p, id, sizeof(id));
		c.p += sizeof(id);
		misc |= PRF_PERFDATA_MISC_MMAP_BUILD_ID;
	} else {
		memset(c.p, 0, 24);
		c.p += 24;
	}
	/* Only code is mapped in a capture: perf names anonymous code from perf-PID.map. */
	put_u32(&c, PROT_READ | PROT_EXEC);
	put_u32(&c, MAP_PRIVATE);
	put_name(&c, m->name);
	put_sample_id(&c, m->pid, m->tid, time);
	end(w, &c, PERF_RECORD_MMAP2, misc);
}

void perfdata_record_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid,
			  const char *comm, uint64_t time)
{
	struct cursor c = begin(w);
	char name[16];

	put_u32(&c, pid);
	put_u32(&c, tid);
	/* the kernel's TASK_COMM_LEN */
	perfdata_clean_name(name, sizeof(name), comm);
	put_name(&c, name);
	put_sample_id(&c, pid, tid, time);
	end(w, &c, PERF_RECORD_COMM, 0);
}

/* FORK or EXIT of a process's main thread. */
void perfdata_record_task(struct perfdata_writer *w, uint32_t type, uint32_t pid,
			  uint32_t ppid, uint64_t time)
{
	struct cursor c = begin(w);

	put_u32(&c, pid);
	put_u32(&c, ppid);
	put_u32(&c, pid);
	put_u32(&c, ppid);
	put_u64(&c, time);
	put_sample_id(&c, pid, pid, time);
	end(w, &c, type, 0);
}

int perfdata_record_sample(struct perfdata_writer *w, uint64_t id,
			   const struct session_sample *sample)
{
	/* header, identifier, ip, pid and tid, time, cpu, period, nr */
	size_t room = (PERFDATA_RECORD_MAX - 8 * 8) / 8;
	size_t nr = sample->callchain ? sample->callchain_nr : 0;
	struct cursor c = begin(w);
	int cut = nr > room;
	uint64_t kept = 0;
	uint8_t *nr_at;
	int guest = 0;

	if (cut)
		nr = room;
	put_u64(&c, id);
	put_u64(&c, sample->ip);
	put_u32(&c, sample->pid);
	put_u32(&c, sample->tid);
	put_u64(&c, sample->time);
	put_u32(&c, sample->cpu);
	put_u32(&c, 0);
	put_u64(&c, sample->period);
	nr_at = c.p;
	put_u64(&c, 0);
	/*
	 * Leaf first: a long chain loses its outermost callers.  perf reads
	 * the host's contexts only: at any other value past PERF_CONTEXT_MAX
	 * (a guest's context, garbage a user stack walk read, our unwinder's
	 * stop mark) perf drops the whole chain and hotspot's perfparser
	 * fails, so such a value is left out, and a guest context's frames
	 * with it (no host map holds them).
	 */
	for (size_t i = 0; i < nr; i++) {
		uint64_t v = sample->callchain[i];

		if (v >= PERF_CONTEXT_MAX) {
			guest = v == PERF_CONTEXT_GUEST || v == PERF_CONTEXT_GUEST_KERNEL ||
				v == PERF_CONTEXT_GUEST_USER;
			if (v != PERF_CONTEXT_HV && v != PERF_CONTEXT_KERNEL &&
			    v != PERF_CONTEXT_USER)
				continue;
		} else if (guest) {
			continue;
		}
		put_u64(&c, v);
		kept++;
	}
	memcpy(nr_at, &kept, sizeof(kept));
	end(w, &c, PERF_RECORD_SAMPLE, sample->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	return cut;
}

/* The build-id section's entry: pid -1 is the host, as perf writes it. */
void perfdata_record_build_id(struct perfdata_writer *w, int kernel, const uint8_t *build_id,
			      size_t size, const char *name)
{
	static const char zeros[64];
	struct {
		struct perf_event_header header;
		int32_t pid;
		uint8_t build_id[20];
		uint8_t size, reserved[3];
	} __attribute__((packed)) b = {
		.header.type = PRF_PERFDATA_RECORD_HEADER_BUILD_ID,
		.header.misc = (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
			       PRF_PERFDATA_MISC_BUILD_ID_SIZE,
		.pid = -1,
		.size = (uint8_t)size,
	};
	char text[PERFDATA_NAME_MAX];
	size_t n = perfdata_clean_name(text, sizeof(text), name);
	size_t padded = (n + 1 + 63) & ~(size_t)63;

	memcpy(b.build_id, build_id, size);
	b.header.size = (uint16_t)(sizeof(b) + padded);
	perfdata_put(w, &b, sizeof(b));
	perfdata_put(w, text, n);
	perfdata_put(w, zeros, padded - n);
}

/*
 * The end of a round: perf has every record before it and sorts them by
 * time.  One at the end of the data, as perf record ends its own; it also
 * keeps the data section of a capture without records from being empty,
 * which perf refuses.
 */
void perfdata_record_round(struct perfdata_writer *w)
{
	struct cursor c = begin(w);

	end(w, &c, PRF_PERFDATA_RECORD_FINISHED_ROUND, 0);
}
