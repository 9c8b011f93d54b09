/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfrec's tracing records: a tracepoint's format (so that its raw
 * sample data can be named on any host) and an off-CPU interval (a
 * thread that blocked, where, for how long, and who woke it).  Both come
 * from files: every count is checked against the bytes that are there
 * before anything points into them.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int prf_decode_tracepoint_format(const void *data, size_t size,
				 struct prf_tracepoint_format *out)
{
	struct prf_tracepoint_format_record r;
	const char *text;

	if (size < sizeof(r))
		return -EBADMSG;
	memcpy(&r, data, sizeof(r));
	if (r.header.type != PRF_RECORD_TRACEPOINT_FORMAT || r.header.size != size)
		return -EBADMSG;
	if (!r.name_size || !r.text_size ||
	    r.name_size > size - sizeof(r) || r.text_size > size - sizeof(r) - r.name_size)
		return -EBADMSG;
	text = (const char *)data + sizeof(r);
	if (text[r.name_size - 1] || memchr(text, 0, r.name_size) != text + r.name_size - 1)
		return -EBADMSG;
	if (text[r.name_size + r.text_size - 1])
		return -EBADMSG;
	out->config = r.config;
	out->name = text;
	out->text = text + r.name_size;
	out->text_size = r.text_size - 1;
	return 0;
}

ssize_t prf_encode_tracepoint_format(uint64_t config, const char *name, const char *text,
				     size_t text_size, void *out, size_t out_size)
{
	struct prf_tracepoint_format_record r = { 0 };
	size_t name_size = strlen(name) + 1, total;
	char *p = out;

	if (text_size > PRF_CHUNK_RAW_MAX || name_size > PRF_EVENT_NAME_MAX)
		return -E2BIG;
	total = pad8(sizeof(r) + name_size + text_size + 1);
	if (total > out_size)
		return -ENOSPC;
	r.header.type = PRF_RECORD_TRACEPOINT_FORMAT;
	r.header.size = (uint32_t)total;
	r.config = config;
	r.name_size = (uint32_t)name_size;
	r.text_size = (uint32_t)text_size + 1;
	memset(p, 0, total);
	memcpy(p, &r, sizeof(r));
	memcpy(p + sizeof(r), name, name_size);
	memcpy(p + sizeof(r) + name_size, text, text_size);
	return (ssize_t)total;
}

int prf_decode_off_cpu(const void *data, size_t size, struct prf_off_cpu *out)
{
	struct prf_off_cpu_record r;
	const uint64_t *words;
	size_t left, regs;

	/* Records sit 8-aligned in their chunk: the callchains are read in place. */
	if (size < sizeof(r) || ((uintptr_t)data & 7))
		return -EBADMSG;
	memcpy(&r, data, sizeof(r));
	if (r.header.type != PRF_RECORD_OFF_CPU || r.header.size != size || size % 8)
		return -EBADMSG;
	if (r.callchain_nr > PRF_OFF_CPU_CALLCHAIN_MAX ||
	    r.waker_callchain_nr > PRF_OFF_CPU_CALLCHAIN_MAX ||
	    r.user_stack_size > PRF_OFF_CPU_USER_STACK_MAX)
		return -EBADMSG;
	regs = r.user_regs_abi ? (size_t)__builtin_popcountll(r.user_regs_mask) : 0;
	if (!r.user_regs_abi && (r.user_regs_mask || r.user_stack_size))
		return -EBADMSG;
	left = (size - sizeof(r)) / 8;
	if ((size_t)r.callchain_nr + r.waker_callchain_nr + regs + pad8(r.user_stack_size) / 8 > left)
		return -EBADMSG;
	words = (const uint64_t *)((const char *)data + sizeof(r));

	memset(out, 0, sizeof(*out));
	out->time = r.time;
	out->duration = r.duration;
	out->pid = r.pid;
	out->tid = r.tid;
	out->cpu = r.cpu;
	out->flags = r.flags;
	out->cgroup = r.cgroup;
	if (r.flags & PRF_OFF_CPU_WAKER) {
		out->waker_pid = r.waker_pid;
		out->waker_tid = r.waker_tid;
		memcpy(out->waker_comm, r.waker_comm, sizeof(r.waker_comm));
	}
	out->callchain = words;
	out->callchain_nr = r.callchain_nr;
	words += r.callchain_nr;
	out->waker_callchain = r.waker_callchain_nr ? words : NULL;
	out->waker_callchain_nr = r.waker_callchain_nr;
	words += r.waker_callchain_nr;
	out->user_regs.abi = r.user_regs_abi;
	out->user_regs.mask = r.user_regs_abi ? r.user_regs_mask : 0;
	out->user_regs.regs = regs ? words : NULL;
	out->user_regs.count = (uint32_t)regs;
	words += regs;
	out->user_stack = r.user_stack_size ? (const void *)words : NULL;
	out->user_stack_size = r.user_stack_size;
	return 0;
}

size_t prf_off_cpu_record_size(const struct prf_off_cpu *in)
{
	return sizeof(struct prf_off_cpu_record) +
	       8 * (in->callchain_nr + in->waker_callchain_nr + in->user_regs.count) +
	       pad8(in->user_stack_size);
}

ssize_t prf_encode_off_cpu(const struct prf_off_cpu *in, void *out, size_t out_size)
{
	struct prf_off_cpu_record r = { 0 };
	size_t total;
	char *p = out;

	if (in->callchain_nr > PRF_OFF_CPU_CALLCHAIN_MAX ||
	    in->waker_callchain_nr > PRF_OFF_CPU_CALLCHAIN_MAX ||
	    in->user_stack_size > PRF_OFF_CPU_USER_STACK_MAX ||
	    (!in->user_regs.abi && (in->user_regs.count || in->user_stack_size)) ||
	    (in->user_regs.abi &&
	     in->user_regs.count != (uint32_t)__builtin_popcountll(in->user_regs.mask)))
		return -EINVAL;
	total = prf_off_cpu_record_size(in);
	if (total > out_size)
		return -ENOSPC;
	r.header.type = PRF_RECORD_OFF_CPU;
	r.header.size = (uint32_t)total;
	r.time = in->time;
	r.duration = in->duration;
	r.pid = in->pid;
	r.tid = in->tid;
	r.cpu = in->cpu;
	r.flags = in->flags;
	r.cgroup = in->cgroup;
	if (in->flags & PRF_OFF_CPU_WAKER) {
		r.waker_pid = in->waker_pid;
		r.waker_tid = in->waker_tid;
		memcpy(r.waker_comm, in->waker_comm, sizeof(r.waker_comm));
	}
	r.callchain_nr = (uint32_t)in->callchain_nr;
	r.waker_callchain_nr = (uint32_t)in->waker_callchain_nr;
	r.user_regs_abi = in->user_regs.abi;
	r.user_regs_mask = in->user_regs.abi ? in->user_regs.mask : 0;
	r.user_stack_size = (uint32_t)in->user_stack_size;
	memset(p, 0, total);
	memcpy(p, &r, sizeof(r));
	p += sizeof(r);
	if (in->callchain_nr)
		memcpy(p, in->callchain, 8 * in->callchain_nr);
	p += 8 * in->callchain_nr;
	if (in->waker_callchain_nr)
		memcpy(p, in->waker_callchain, 8 * in->waker_callchain_nr);
	p += 8 * in->waker_callchain_nr;
	if (in->user_regs.count)
		memcpy(p, in->user_regs.regs, 8 * in->user_regs.count);
	p += 8 * in->user_regs.count;
	if (in->user_stack_size)
		memcpy(p, in->user_stack, in->user_stack_size);
	return (ssize_t)total;
}
