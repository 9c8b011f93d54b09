/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What offcpu.bpf.c hands to perfrecd through its ring buffer: one event
 * a block of at least the threshold.  Shared by the BPF program and
 * offcpu.c, so fixed-width types only and no padding a compiler could
 * place differently.
 */
#ifndef PERFRECD_OFFCPU_EVENT_H
#define PERFRECD_OFFCPU_EVENT_H

/* bpf_get_stack()'s frames a part; the kernel's default perf_event_max_stack. */
#define OFFCPU_STACK_MAX	127
/* The dwarf copy lives in a per-CPU buffer, which the kernel caps at 32 KiB. */
#define OFFCPU_USER_STACK_MAX	16384
/* x86_64's 17 registers in perf's order: AX BX CX DX SI DI BP SP IP, R8-R15. */
#define OFFCPU_REGS		17

enum offcpu_event_flag {
	OFFCPU_EVENT_WAKER = 1u << 0,		/* waker ids and comm known */
	OFFCPU_EVENT_REGS = 1u << 1,		/* regs and a stack copy follow */
	OFFCPU_EVENT_USER = 1u << 2,		/* user part read at its syscall exit */
	OFFCPU_EVENT_END_LATE = 1u << 3,	/* the switch-in was not seen: ended in resuming() */
};

struct offcpu_waker_stack {
	__u32 kernel_nr, user_nr;
	__u64 ips[2 * OFFCPU_STACK_MAX];	/* kernel part, then user part */
};

/*
 * Everything but the stack copy: what waits in the kernel between the
 * switch-in (kernel stack) and the syscall exit (user stack).  The
 * callchains share ips, in the order they are taken: the blocked kernel
 * part, the waker's kernel and user parts, the blocked user part; without
 * a stack copy only the used part is sent (OFFCPU_HEAD_BYTES()).
 */
#define OFFCPU_IPS	640	/* 4 x 127 used; room for the verifier's masks */
struct offcpu_head {
	__u64 time;			/* CLOCK_MONOTONIC at the switch-out */
	__u64 duration;
	__u64 cgroup;
	__u32 pid, tid, cpu, flags;
	__u32 waker_pid, waker_tid;
	char waker_comm[16];
	__u32 kernel_nr, user_nr;	/* of ips, in frames */
	__u32 waker_kernel_nr, waker_user_nr;
	__u32 stack_size;		/* bytes of stack copied */
	__u32 reserved;
	__u64 regs[OFFCPU_REGS];
	__u64 ips[OFFCPU_IPS];
};

/* The bytes of a head whose ips hold frames addresses. */
#define OFFCPU_HEAD_BYTES(frames) \
	(__builtin_offsetof(struct offcpu_head, ips) + 8 * (frames))

struct offcpu_event {
	struct offcpu_head head;
	__u8 stack[OFFCPU_USER_STACK_MAX];	/* only stack_size bytes are sent */
};

#endif
