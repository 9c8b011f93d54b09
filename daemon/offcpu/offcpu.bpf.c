// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Off-CPU recording: where threads wait, for how long, and who woke them.
 *
 * The cost is paid per context switch, so each switch takes a timestamp
 * and nothing more: the switch-out time of a thread that is not runnable
 * (a preemption is not a wait).  Stacks are taken only for blocks that
 * turned out long, at the switch-in: the kernel stack of the thread about
 * to run, which is where it blocked.  Its user stack cannot be read from
 * there (bpf_get_task_stack() gives no user frames of a task that is not
 * current), but its user registers and stack stay as they were until it
 * returns to user space: the record waits in `pending` until the thread,
 * current again, is on its way back there.  One that leaves the CPU again
 * first is sent without a user part.  The waker is noted at sched_waking,
 * where it is current, and its stacks taken when the wakee has already
 * been off for the threshold.
 *
 * The way back is one of two hooks, perfrecd's choice at load time.
 * rseq_update: the kernel sets TIF_NOTIFY_RESUME at every switch-out of
 * a thread that registered rseq (glibc 2.35 on does, for every thread),
 * and the tracepoint fires on its way back to user space, after a
 * syscall, a page fault or an interrupt alike: a cost per switch of such
 * threads only.  The blocks of threads without rseq (static or Go
 * programs, glibc.pthread.rseq=0) are sent at once without a user part.
 * sys_exit, where the kernel has no rseq_update: every system call of
 * every process passes there (some 170 ns each, bench/README.md), and a
 * page fault's block waits there for the thread's next system call, and
 * goes without a user part: the user ip noted at the switch-in is not
 * the one there.
 * fentry/fexit would avoid both, but this kernel refuses them (EPERM).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offcpu-kernel.h"
#include "offcpu-event.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by perfrecd before loading: read-only, so the verifier sees constants. */
const volatile __u64 min_ns = 1000000;
const volatile __u32 self_tgid;
const volatile __u32 stack_size;	/* dwarf: user stack bytes to copy; 0 none */
const volatile __u32 want_kernel = 1, want_user = 1;
/* __traceiter_sched_waking's extent (offcpu.c): dropped from the waker's walk. */
const volatile __u64 traceiter_start, traceiter_end;
const volatile __u32 resume_rseq;	/* the user part at rseq_update, else sys_exit */

/* Events the ring buffer had no room for: perfrecd reports them. */
__u64 lost;

enum task_flag {
	TASK_WAKER = 1u << 0,
	TASK_WAKER_STACK = 1u << 1,	/* an entry in waker_stacks */
	TASK_PENDING = 1u << 2,		/* an entry in pending */
};

struct task_off {
	__u64 start;		/* switch-out; 0: not blocked */
	__u64 user_ip;		/* pending: where its user code stopped */
	__u32 cpu, flags;
	__u32 waker_pid, waker_tid;
	char waker_comm[16];
	__u32 pending_tid;	/* its key in pending: an exec from a thread changes pid */
	__u32 reserved;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_off);
} tasks SEC(".maps");

/* The waker's stacks of long blocks, by the wakee's tid, until it runs. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct offcpu_waker_stack);
} waker_stacks SEC(".maps");

/* Long blocks between the switch-in and the syscall exit, by tid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct offcpu_head);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_event);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_waker_stack);
} waker_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* perfrecd sizes it before loading */
} events SEC(".maps");

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (unsigned int)BPF_CORE_READ((struct task_struct___old *)t, state);
}

/*
 * Whether the thread registered rseq, so that rseq_update will see it
 * return to user space.  Linux 6.19 reworked the field: perfrecd chooses
 * rseq_update only where it is the pointer read here.
 */
static __always_inline int task_has_rseq(struct task_struct *t)
{
	if (bpf_core_field_exists(t->rseq))
		return BPF_CORE_READ(t, rseq) != 0;
	return 0;
}

/* Wake perfrecd when a quarter of the ring waits, as its perf rings do. */
static __always_inline void send(void *data, __u64 size)
{
	__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
		      bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4 ?
		      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_output(&events, data, size, flags))
		__sync_fetch_and_add(&lost, 1);
}

/* The frames a head's ips hold, each count within its bound. */
static __always_inline __u32 head_frames(const struct offcpu_head *h, int with_user)
{
	__u32 k = h->kernel_nr, wk = h->waker_kernel_nr, wu = h->waker_user_nr, u = h->user_nr;

	if (k > OFFCPU_STACK_MAX)
		k = OFFCPU_STACK_MAX;
	if (wk > OFFCPU_STACK_MAX)
		wk = OFFCPU_STACK_MAX;
	if (wu > OFFCPU_STACK_MAX)
		wu = OFFCPU_STACK_MAX;
	if (u > OFFCPU_STACK_MAX || !with_user)
		u = with_user ? OFFCPU_STACK_MAX : 0;
	return k + wk + wu + u;
}

/* A pending block whose thread did not pass a syscall exit: without its user part. */
static __always_inline void send_pending(__u32 tid)
{
	struct offcpu_head *h = bpf_map_lookup_elem(&pending, &tid);

	if (h) {
		__u64 size = OFFCPU_HEAD_BYTES(head_frames(h, 0));

		if (size <= sizeof(*h))
			send(h, size);
	}
	bpf_map_delete_elem(&pending, &tid);
}

static __always_inline __u64 user_ip(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);

	return r ? BPF_CORE_READ(r, ip) : 0;
}

/*
 * next blocked from s->start to now, at least the threshold: its kernel
 * part, if its kernel stack is still where it blocked (in_switch).
 */
static __always_inline void block_ended(struct task_struct *next, struct task_off *s, __u64 now,
					int in_switch)
{
	struct offcpu_waker_stack *w;
	struct offcpu_event *e;
	__u32 zero = 0, tid = next->pid, k = 0;
	long n;

	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return;
	e->head.time = s->start;
	e->head.duration = now - s->start;
	/* What bpf_get_current_cgroup_id() would say in next's own context. */
	e->head.cgroup = BPF_CORE_READ(next, cgroups, dfl_cgrp, kn, id);
	e->head.pid = next->tgid;
	e->head.tid = tid;
	e->head.cpu = s->cpu;
	e->head.flags = in_switch ? 0 : OFFCPU_EVENT_END_LATE;
	e->head.kernel_nr = e->head.user_nr = 0;
	e->head.waker_kernel_nr = e->head.waker_user_nr = 0;
	e->head.stack_size = 0;
	if (s->flags & TASK_WAKER) {
		e->head.flags |= OFFCPU_EVENT_WAKER;
		e->head.waker_pid = s->waker_pid;
		e->head.waker_tid = s->waker_tid;
		__builtin_memcpy(e->head.waker_comm, s->waker_comm, sizeof(e->head.waker_comm));
	}
	if (want_kernel && in_switch) {
		n = bpf_get_task_stack(next, e->head.ips, OFFCPU_STACK_MAX * 8, 0);
		k = n > 0 ? (__u64)n / 8 : 0;
	}
	if (k > OFFCPU_STACK_MAX)
		k = OFFCPU_STACK_MAX;
	e->head.kernel_nr = k;
	if (s->flags & TASK_WAKER_STACK) {
		w = bpf_map_lookup_elem(&waker_stacks, &tid);
		if (w) {
			__u32 wk = w->kernel_nr, wu = w->user_nr;

			if (wk > OFFCPU_STACK_MAX)
				wk = OFFCPU_STACK_MAX;
			if (wu > OFFCPU_STACK_MAX)
				wu = OFFCPU_STACK_MAX;
			/* The masks are for the verifier: each bound is 2^n - 1. */
			if (bpf_probe_read_kernel(&e->head.ips[k & OFFCPU_STACK_MAX],
						  ((wk + wu) & 255) * 8, w->ips) == 0) {
				e->head.waker_kernel_nr = wk;
				e->head.waker_user_nr = wu;
			}
		}
		bpf_map_delete_elem(&waker_stacks, &tid);
	}
	s->flags = 0;
	/* Kernel threads never return to user space: nothing to wait for. */
	if (!want_user || (next->flags & PF_KTHREAD) || (resume_rseq && !task_has_rseq(next)) ||
	    bpf_map_update_elem(&pending, &tid, &e->head, BPF_ANY)) {
		__u64 size = OFFCPU_HEAD_BYTES(head_frames(&e->head, 0));

		if (size <= sizeof(e->head))
			send(&e->head, size);
		return;
	}
	s->flags = TASK_PENDING;
	s->pending_tid = tid;
	s->user_ip = user_ip(next);
}

/* next runs again: its block ends, kept if it lasted the threshold. */
static __always_inline void back_on_cpu(struct task_struct *next, struct task_off *s, __u64 now,
				       int in_switch)
{
	if (now - s->start >= min_ns) {
		block_ended(next, s, now, in_switch);
	} else if (s->flags & TASK_WAKER_STACK) {
		__u32 tid = next->pid;

		bpf_map_delete_elem(&waker_stacks, &tid);
		s->flags = 0;
	} else {
		s->flags = 0;
	}
	s->start = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_off *s;
	unsigned int state;

	/*
	 * TASK_RUNNING is 0; a preempted task may have set another state and
	 * not slept yet.  A dying task's last switch starts no block, but
	 * ends what it left in the maps: a thread can return to user space
	 * from a long block without a system call's exit (a stop, a page
	 * fault) and die there (a signal), and its entry in pending would
	 * stay for good; 1024 of them and no block kept its user stack.
	 */
	state = task_state(prev);
	if (!preempt && state && prev->pid && prev->tgid != self_tgid) {
		s = bpf_task_storage_get(&tasks, prev, 0, state & TASK_DEAD ? 0 :
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (s) {
			if (s->flags & TASK_PENDING)
				send_pending(s->pending_tid);
			if (s->flags & TASK_WAKER_STACK) {
				__u32 tid = prev->pid;

				bpf_map_delete_elem(&waker_stacks, &tid);
			}
			/*
			 * A start still set is a switch-in this program did not
			 * see (see resuming()) of a thread that blocks again before
			 * its way back to user space would end the block there:
			 * the block goes on from its first start, its short run in
			 * the kernel counted in, rather than being lost.  A kernel
			 * thread never passes there: its start is taken anew.
			 */
			if (state & TASK_DEAD)
				s->start = 0;
			else if (!s->start || (prev->flags & PF_KTHREAD)) {
				s->start = now;
				s->cpu = bpf_get_smp_processor_id();
			}
			s->flags = 0;
		}
	}
	s = bpf_task_storage_get(&tasks, next, 0, 0);
	if (s && s->start)
		back_on_cpu(next, s, now, 1);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(offcpu_waking, struct task_struct *p)
{
	struct task_off *s = bpf_task_storage_get(&tasks, p, 0, 0);
	struct offcpu_waker_stack *w;
	__u64 id;
	__u32 zero = 0, tid;
	long n;

	if (!s || !s->start || (s->flags & (TASK_WAKER | TASK_PENDING)))
		return 0;
	/*
	 * An interrupt's wake-up (a timer's, a device's) has no waker: current
	 * is the task it stopped.  The idle task is told apart; telling others
	 * needs the preempt count, which this kernel does not export to BPF.
	 */
	id = bpf_get_current_pid_tgid();
	if (!id)
		return 0;
	s->waker_pid = id >> 32;
	s->waker_tid = (__u32)id;
	bpf_get_current_comm(s->waker_comm, sizeof(s->waker_comm));
	s->flags |= TASK_WAKER;
	if (bpf_ktime_get_ns() - s->start < min_ns)
		return 0;
	w = bpf_map_lookup_elem(&waker_scratch, &zero);
	if (!w)
		return 0;
	w->kernel_nr = w->user_nr = 0;
	if (want_kernel) {
		/*
		 * The walk starts in this program and bpf_trace_run1(), which
		 * the tracepoint calls: skipped, so that the waker's stack
		 * starts where it woke the thread (try_to_wake_up()).
		 */
		n = bpf_get_stack(ctx, w->ips, OFFCPU_STACK_MAX * 8, 2 & BPF_F_SKIP_FIELD_MASK);
		/* Sometimes the walk starts one frame up, in the tracepoint's iterator. */
		if (n > 0 && w->ips[0] >= traceiter_start && w->ips[0] < traceiter_end)
			n = bpf_get_stack(ctx, w->ips, OFFCPU_STACK_MAX * 8, 3 & BPF_F_SKIP_FIELD_MASK);
		w->kernel_nr = n > 0 ? (__u64)n / 8 : 0;
	}
	if (want_user && w->kernel_nr <= OFFCPU_STACK_MAX) {
		n = bpf_get_stack(ctx, &w->ips[w->kernel_nr], OFFCPU_STACK_MAX * 8,
				  BPF_F_USER_STACK);
		w->user_nr = n > 0 ? (__u64)n / 8 : 0;
	}
	tid = p->pid;
	if (bpf_map_update_elem(&waker_stacks, &tid, w, BPF_ANY) == 0)
		s->flags |= TASK_WAKER_STACK;
	return 0;
}

/* The regs a perf sample's regs_user would hold, in perf's order (asm/perf_regs.h). */
static __always_inline void copy_regs(struct offcpu_event *e, struct task_struct *task)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(task);

	if (!r)
		return;
	e->head.regs[0] = BPF_CORE_READ(r, ax);
	e->head.regs[1] = BPF_CORE_READ(r, bx);
	e->head.regs[2] = BPF_CORE_READ(r, cx);
	e->head.regs[3] = BPF_CORE_READ(r, dx);
	e->head.regs[4] = BPF_CORE_READ(r, si);
	e->head.regs[5] = BPF_CORE_READ(r, di);
	e->head.regs[6] = BPF_CORE_READ(r, bp);
	e->head.regs[7] = BPF_CORE_READ(r, sp);
	e->head.regs[8] = BPF_CORE_READ(r, ip);
	e->head.regs[9] = BPF_CORE_READ(r, r8);
	e->head.regs[10] = BPF_CORE_READ(r, r9);
	e->head.regs[11] = BPF_CORE_READ(r, r10);
	e->head.regs[12] = BPF_CORE_READ(r, r11);
	e->head.regs[13] = BPF_CORE_READ(r, r12);
	e->head.regs[14] = BPF_CORE_READ(r, r13);
	e->head.regs[15] = BPF_CORE_READ(r, r14);
	e->head.regs[16] = BPF_CORE_READ(r, r15);
	e->head.flags |= OFFCPU_EVENT_REGS;
}

/*
 * The copy from sp up: a read that crosses the top of the stack's mapping
 * fails whole, so smaller copies are tried before none.
 */
static __always_inline __u32 copy_stack(struct offcpu_event *e)
{
	const void *sp = (const void *)e->head.regs[7];
	__u32 size = stack_size;

#pragma unroll
	for (int i = 0; i < 4; i++, size /= 2) {
		if (size < 64 || size > OFFCPU_USER_STACK_MAX)
			return 0;
		if (bpf_probe_read_user(e->stack, size, sp) == 0)
			return size;
	}
	return 0;
}

/*
 * The thread leaves the kernel with the user state it blocked in: its
 * user part.  Many pass here that have nothing pending, so the common
 * case is one task-storage lookup and two tests.
 *
 * A thread that runs with a start time had a switch-in offcpu_switch did
 * not see: sched_switch runs in the context of the task switched out,
 * and some kernels deliver no tracepoint in some tasks' context (a
 * sandbox's supervisor threads).  Its next switch-out would overwrite
 * the start and lose the block; it ends here instead, late by the time
 * since it ran again, without its kernel part (its kernel stack has left
 * where it blocked).  At sys_exit after a page fault's block that time
 * includes user code's.
 */
static __always_inline void resuming(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct task_off *s = bpf_task_storage_get(&tasks, task, 0, 0);
	struct offcpu_head *h;
	struct offcpu_event *e;
	__u32 zero = 0, tid, used;
	__u64 size;
	long n;

	if (!s)
		return;
	if (s->start)
		back_on_cpu(task, s, bpf_ktime_get_ns(), 0);
	if (!(s->flags & TASK_PENDING))
		return;
	s->flags &= ~TASK_PENDING;
	tid = s->pending_tid;
	/*
	 * Its user code ran since (sys_exit after a page fault's block: the
	 * fault returned without a system call), or it is another program's
	 * (an exec): not the stack it blocked in.
	 */
	if (user_ip(task) != s->user_ip) {
		send_pending(tid);
		return;
	}
	h = bpf_map_lookup_elem(&pending, &tid);
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!h || !e) {
		bpf_map_delete_elem(&pending, &tid);
		return;
	}
	bpf_probe_read_kernel(&e->head, sizeof(e->head), h);
	bpf_map_delete_elem(&pending, &tid);
	e->head.flags |= OFFCPU_EVENT_USER;
	used = head_frames(&e->head, 0);
	/* The mask is for the verifier: used is at most 3 x 127. */
	n = bpf_get_stack(ctx, &e->head.ips[used & 511], OFFCPU_STACK_MAX * 8, BPF_F_USER_STACK);
	e->head.user_nr = n > 0 ? (__u64)n / 8 : 0;
	if (stack_size) {
		copy_regs(e, task);
		if (e->head.flags & OFFCPU_EVENT_REGS)
			e->head.stack_size = copy_stack(e);
	}
	if (e->head.flags & OFFCPU_EVENT_REGS)
		size = sizeof(e->head) + e->head.stack_size;
	else
		size = OFFCPU_HEAD_BYTES(head_frames(&e->head, 1));
	if (size <= sizeof(*e))
		send(e, size);
}

SEC("tp_btf/rseq_update")
int BPF_PROG(offcpu_rseq_update, struct task_struct *t)
{
	resuming(ctx);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(offcpu_sys_exit, struct pt_regs *regs, long ret)
{
	resuming(ctx);
	return 0;
}
