/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel types offcpu.bpf.c touches, with only the fields it reads.
 * preserve_access_index makes each access a CO-RE relocation that libbpf
 * resolves against the running kernel's BTF at load time, so the object
 * does not depend on the build host's /sys/kernel/btf/vmlinux (package
 * builds and distcheck may have none, or another kernel's).
 */
#ifndef PERFRECD_OFFCPU_KERNEL_H
#define PERFRECD_OFFCPU_KERNEL_H

#define TASK_COMM_LEN	16

#define PF_KTHREAD	0x00200000
#define TASK_DEAD	0x00000080

struct kernfs_node {
	unsigned long long id;		/* a cgroup's id, as PERF_SAMPLE_CGROUP gives it */
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;	/* the task's cgroup v2 */
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int __state;
	unsigned int flags;
	int pid;
	int tgid;
	char comm[TASK_COMM_LEN];
	struct css_set *cgroups;
	struct rseq *rseq;		/* user space's, registered by sys_rseq */
} __attribute__((preserve_access_index));

/* Before Linux 5.14 the state was a long named state. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));

#endif
