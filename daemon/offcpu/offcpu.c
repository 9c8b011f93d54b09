/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The off-CPU program's loader and reader: offcpu.bpf.c through its
 * skeleton (generated at build time by bpftool), its ring buffer's
 * events into PRF_RECORD_OFF_CPU's decoded form for the collector.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "offcpu.h"
#include "offcpu-event.h"
#include "offcpu.skel.h"

/* 2^n pages: 8 MiB holds some 17,000 events of 500 bytes (30 frames, fp). */
#define RING_BYTES_DEFAULT	(8u << 20)

/* The registers copy_regs() in offcpu.bpf.c reads, in its order: perf's bit order. */
#define REG(name)	(1ULL << PERF_REG_X86_##name)
static const uint64_t regs_mask =
	REG(AX) | REG(BX) | REG(CX) | REG(DX) | REG(SI) | REG(DI) | REG(BP) |
	REG(SP) | REG(IP) | REG(R8) | REG(R9) | REG(R10) | REG(R11) |
	REG(R12) | REG(R13) | REG(R14) | REG(R15);
#undef REG

struct prd_offcpu {
	struct offcpu_bpf *skel;
	struct ring_buffer *ring;
	prd_offcpu_emit_fn emit;
	void *context;
	int emit_error;
	int resume_rseq;	/* the user part at rseq_update, else sys_exit */
	/* a callchain with its PERF_CONTEXT_* markers, as the record holds it */
	uint64_t callchain[2 * OFFCPU_STACK_MAX + 2];
	uint64_t waker_callchain[2 * OFFCPU_STACK_MAX + 2];
};

/*
 * Whether the user part can be read at rseq_update rather than sys_exit:
 * the kernel has the tracepoint (its BTF) and task_struct's rseq is the
 * pointer the program reads to tell the threads that pass there.
 */
static int rseq_usable(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id, usable = 0;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	if (btf__find_by_name_kind(btf, "btf_trace_rseq_update", BTF_KIND_TYPEDEF) > 0 && id > 0) {
		t = btf__type_by_id(btf, id);
		m = btf_members(t);
		for (int i = 0; i < btf_vlen(t); i++, m++) {
			if (strcmp(btf__name_by_offset(btf, m->name_off), "rseq"))
				continue;
			usable = btf_is_ptr(btf__type_by_id(btf, m->type));
			break;
		}
	}
	btf__free(btf);
	return usable;
}

static const char *hook_env(void)
{
	return getenv("PERFRECD_OFF_CPU_HOOK");
}

/*
 * rseq_update where it can be, unless PERFRECD_OFF_CPU_HOOK says (to
 * compare, to test): NULL, or why the setting cannot be.
 */
static const char *choose_hook(struct prd_offcpu *o)
{
	const char *hook = hook_env();
	int usable = rseq_usable();

	o->resume_rseq = usable;
	if (!hook || !*hook)
		return NULL;
	o->resume_rseq = !strcmp(hook, "rseq_update");
	if (!o->resume_rseq && strcmp(hook, "sys_exit"))
		return "neither sys_exit nor rseq_update";
	if (o->resume_rseq && !usable)
		return "this kernel has no rseq_update tracepoint or no task_struct.rseq pointer";
	return NULL;
}

static int quiet(enum libbpf_print_level level, const char *format, va_list args)
{
	(void)level;
	(void)format;
	(void)args;
	return 0;
}

/* A kernel part and a user part into PERF_SAMPLE_CALLCHAIN's layout. */
static size_t lay_out(uint64_t *out, const __u64 *kernel, uint32_t kernel_nr,
		      const __u64 *user, uint32_t user_nr)
{
	size_t n = 0;

	if (kernel_nr) {
		out[n++] = PERF_CONTEXT_KERNEL;
		memcpy(out + n, kernel, 8 * (size_t)kernel_nr);
		n += kernel_nr;
	}
	if (user_nr) {
		out[n++] = PERF_CONTEXT_USER;
		memcpy(out + n, user, 8 * (size_t)user_nr);
		n += user_nr;
	}
	return n;
}

static int handle_event(void *context, void *data, size_t size)
{
	struct prd_offcpu *o = context;
	const struct offcpu_event *e = data;
	const struct offcpu_head *h = &e->head;
	struct prf_off_cpu r = { 0 };
	int ret;
	uint32_t k = h->kernel_nr, wk = h->waker_kernel_nr, wu = h->waker_user_nr, u = h->user_nr;

	/* The kernel's ring holds what the program sent: bounded by it, checked anyway. */
	if (size < OFFCPU_HEAD_BYTES(0) || k > OFFCPU_STACK_MAX || wk > OFFCPU_STACK_MAX ||
	    wu > OFFCPU_STACK_MAX || u > OFFCPU_STACK_MAX ||
	    size < OFFCPU_HEAD_BYTES((size_t)k + wk + wu + u))
		return 0;
	if ((h->flags & OFFCPU_EVENT_REGS) &&
	    (size < sizeof(*h) || h->stack_size > size - sizeof(*h)))
		return 0;
	r.time = h->time;
	r.duration = h->duration;
	r.pid = h->pid;
	r.tid = h->tid;
	r.cpu = h->cpu;
	r.cgroup = h->cgroup;
	if (h->flags & OFFCPU_EVENT_USER)
		r.flags |= PRF_OFF_CPU_USER_LATE;
	if (h->flags & OFFCPU_EVENT_END_LATE)
		r.flags |= PRF_OFF_CPU_END_LATE;
	if (h->flags & OFFCPU_EVENT_WAKER) {
		r.flags |= PRF_OFF_CPU_WAKER;
		r.waker_pid = h->waker_pid;
		r.waker_tid = h->waker_tid;
		memcpy(r.waker_comm, h->waker_comm, sizeof(h->waker_comm));
	}
	r.callchain = o->callchain;
	r.callchain_nr = lay_out(o->callchain, h->ips, k, h->ips + k + wk + wu, u);
	r.waker_callchain = o->waker_callchain;
	r.waker_callchain_nr = lay_out(o->waker_callchain, h->ips + k, wk, h->ips + k + wk, wu);
	if (h->flags & OFFCPU_EVENT_REGS) {
		r.user_regs.abi = PERF_SAMPLE_REGS_ABI_64;
		r.user_regs.mask = regs_mask;
		r.user_regs.regs = (const uint64_t *)h->regs;
		r.user_regs.count = OFFCPU_REGS;
		r.user_stack = e->stack;
		r.user_stack_size = h->stack_size;
	}
	ret = o->emit(o->context, &r);
	if (ret < 0) {
		o->emit_error = ret;
		return ret;	/* stops the consumption; the rest waits */
	}
	return 0;
}

/*
 * Where __traceiter_sched_waking starts and the next text symbol does.
 * The waker's kernel walk starts in it on some wake-ups and above it on
 * others (248 of 2,278 waker stacks of one capture here), so that one
 * wake-up path made two stacks: the program drops it when it is there.
 * 0, 0 where kallsyms hides the addresses.
 */
static void traceiter_extent(uint64_t *start, uint64_t *end)
{
	static const char name[] = "__traceiter_sched_waking";
	FILE *f = fopen("/proc/kallsyms", "re");
	char *line = NULL;
	size_t line_size = 0;
	ssize_t n;

	*start = *end = 0;
	if (!f)
		return;
	for (int pass = 0; pass < 2 && (pass == 0 || *start); pass++) {
		rewind(f);
		while ((n = getline(&line, &line_size, f)) > 0) {
			struct prf_kallsyms_line k;

			if (line[n - 1] == '\n')
				n--;
			if (!prf_kallsyms_parse_line(line, line + n, &k) || k.module)
				continue;
			if (pass == 0 && k.name_length == sizeof(name) - 1 &&
			    !memcmp(k.name, name, sizeof(name) - 1)) {
				*start = k.address;
				break;
			}
			if (pass == 1 && k.address > *start && (!*end || k.address < *end))
				*end = k.address;
		}
	}
	if (!*end)
		*start = 0;
	free(line);
	fclose(f);
}

static int load_error(int err, struct prf_error *error)
{
	if (err == -EPERM)
		return prf_set_error(error, err,
				     "--off-cpu: loading the BPF program: not permitted: it needs CAP_BPF and CAP_PERFMON (or root)");
	if (err == -EACCES || err == -EINVAL || err == -E2BIG)
		return prf_set_error(error, err,
				     "--off-cpu: the kernel's verifier refused the BPF program (%s); LIBBPF_LOG=1 prints its log",
				     strerror(-err));
	if (err == -ESRCH || err == -ENOENT || err == -EOPNOTSUPP)
		return prf_set_error(error, err,
				     "--off-cpu: this kernel lacks what the BPF program needs (BTF of sched_switch, task storage, ring buffers): %s",
				     strerror(-err));
	return prf_set_error(error, err, "--off-cpu: loading the BPF program: %s", strerror(-err));
}

int prd_offcpu_open(struct prd_offcpu **out, const struct prd_offcpu_config *config,
		    struct prf_error *error)
{
	struct prd_offcpu *o;
	size_t ring_bytes = config->ring_bytes ? config->ring_bytes : RING_BYTES_DEFAULT;
	uint64_t traceiter_start, traceiter_end;
	const char *cause;
	int err;

	*out = NULL;
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
		return prf_set_error(error, -EOPNOTSUPP,
				     "--off-cpu: the kernel has no BTF (/sys/kernel/btf/vmlinux: %s); it needs CONFIG_DEBUG_INFO_BTF",
				     strerror(errno));
	if (!getenv("LIBBPF_LOG"))
		libbpf_set_print(quiet);
	o = calloc(1, sizeof(*o));
	if (!o)
		return prf_set_error(error, -ENOMEM, "--off-cpu: out of memory");
	o->skel = offcpu_bpf__open();
	if (!o->skel) {
		err = -errno;
		free(o);
		return prf_set_error(error, err, "--off-cpu: opening the BPF object: %s",
				     strerror(-err));
	}
	o->skel->rodata->min_ns = config->min_ns;
	o->skel->rodata->self_tgid = (uint32_t)getpid();
	o->skel->rodata->stack_size = config->stack_user_size > OFFCPU_USER_STACK_MAX ?
				      OFFCPU_USER_STACK_MAX : config->stack_user_size;
	o->skel->rodata->want_kernel = !!config->kernel_callchain;
	o->skel->rodata->want_user = !!config->user_callchain;
	traceiter_extent(&traceiter_start, &traceiter_end);
	o->skel->rodata->traceiter_start = traceiter_start;
	o->skel->rodata->traceiter_end = traceiter_end;
	cause = choose_hook(o);
	if (cause) {
		prf_set_error(error, -EOPNOTSUPP, "--off-cpu: PERFRECD_OFF_CPU_HOOK=%s: %s",
			      hook_env(), cause);
		prd_offcpu_close(o);
		return -EOPNOTSUPP;
	}
	o->skel->rodata->resume_rseq = o->resume_rseq;
	bpf_program__set_autoload(o->resume_rseq ? o->skel->progs.offcpu_sys_exit :
				  o->skel->progs.offcpu_rseq_update, false);
	err = bpf_map__set_max_entries(o->skel->maps.events, (uint32_t)ring_bytes);
	if (!err)
		err = offcpu_bpf__load(o->skel);
	if (err) {
		prd_offcpu_close(o);
		return load_error(err, error);
	}
	err = offcpu_bpf__attach(o->skel);
	if (err) {
		prf_set_error(error, err, "--off-cpu: attaching to sched_switch, sched_waking and %s: %s",
			      prd_offcpu_resume_hook(o), strerror(-err));
		prd_offcpu_close(o);
		return err;
	}
	o->ring = ring_buffer__new(bpf_map__fd(o->skel->maps.events), handle_event, o, NULL);
	if (!o->ring) {
		err = -errno;
		prd_offcpu_close(o);
		return prf_set_error(error, err, "--off-cpu: mapping its ring buffer: %s",
				     strerror(-err));
	}
	*out = o;
	return 0;
}

const char *prd_offcpu_resume_hook(const struct prd_offcpu *o)
{
	return o->resume_rseq ? "rseq_update" : "sys_exit";
}

int prd_offcpu_fd(const struct prd_offcpu *o)
{
	return o && o->ring ? ring_buffer__epoll_fd(o->ring) : -1;
}

int prd_offcpu_drain(struct prd_offcpu *o, prd_offcpu_emit_fn emit, void *context)
{
	int n;

	if (!o)
		return 0;
	o->emit = emit;
	o->context = context;
	o->emit_error = 0;
	n = ring_buffer__consume(o->ring);
	return o->emit_error ? o->emit_error : n;
}

uint64_t prd_offcpu_lost(const struct prd_offcpu *o)
{
	return o ? __atomic_load_n(&o->skel->bss->lost, __ATOMIC_RELAXED) : 0;
}

void prd_offcpu_close(struct prd_offcpu *o)
{
	if (!o)
		return;
	ring_buffer__free(o->ring);
	offcpu_bpf__destroy(o->skel);
	free(o);
}
