/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-fixture: writes a capture of its own stack, as perfrecd
 * --call-graph dwarf records one, and odd variants of it, for
 * tests/test-report-unwind.sh.
 *
 *   unwind-fixture FILE
 *
 * inner(), called by middle(), called by outer(), called by main(), takes
 * its registers (perf's x86_64 order, mask 0xff01ff) and copies its stack
 * from SP up (8 KiB at most); the file maps this program's executable
 * maps (from /proc/self/maps, no build-ids: the files are used as they
 * are).  Each variant is a process of its own, named after it:
 *   good        as captured: unwinds to inner;middle;outer;main;...
 *   short       the copy cut just past inner's return address: middle,
 *               inner, then [truncated]
 *   cycle       inner's saved frame pointer points to itself and its
 *               return address into inner: a loop the unwinder must stop
 *   sp-zero, sp-top, sp-odd      SP 0, 2^64 - 8, SP + 3
 *   ip-zero, ip-garbage          IP 0, IP in no map
 *   regs-garbage                 every register 0x4141...
 *   stack-garbage                the copy overwritten with its own addresses
 *   no-sp, no-ip                 events whose mask lacks SP, IP
 *   abi-none    no registers at all (a kernel thread)
 *   zero-stack  a stack copy of size 0
 *   kernel      a kernel-mode sample: kernel callchain, then the user stack
 *   lying       dyn_size larger than the copy: the decoder refuses it
 * and an off-CPU block (PRF_RECORD_OFF_CPU) of process "off-cpu", 3 ms in
 * the kernel with the good registers and stack copy: its blocked stack
 * unwinds as a sample's does.
 */
#if defined(__x86_64__)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "format.h"

#define STACK_MAX	8192
#define REGS		17		/* AX..IP, R8..R15 */
#define MASK_ALL	0xff01ffull
#define MASK_NO_SP	(MASK_ALL & ~(1ull << 7))
#define MASK_NO_IP	(MASK_ALL & ~(1ull << 8))
#define ID_ALL		1
#define ID_NO_SP	2
#define ID_NO_IP	3
#define BASE_NS		1000000000000ull
#define PERIOD		1000000ull
#define KERNEL_TEXT	0xffffffff81000000ull
#define REC_WORDS ((STACK_MAX + 1024) / 8)
#define REC_PROGRAM "unwind-fixture"
#include "record-build.h"

static uint64_t regs[REGS];		/* perf order: AX BX CX DX SI DI BP SP IP R8..R15 */
static uint8_t stack_copy[STACK_MAX];
static uint64_t stack_size;
static volatile int sink;

static uint64_t stack_top(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	unsigned long long start, end;
	uint64_t top = 0;

	while (maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			top = end;
	if (maps)
		fclose(maps);
	return top;
}

__attribute__((noinline)) static void inner(void)
{
	uint64_t *r = regs;
	uint64_t top = stack_top();

	__asm__ volatile(
		"mov %%rax, 0(%0)\n\t"
		"mov %%rbx, 8(%0)\n\t"
		"mov %%rcx, 16(%0)\n\t"
		"mov %%rdx, 24(%0)\n\t"
		"mov %%rsi, 32(%0)\n\t"
		"mov %%rdi, 40(%0)\n\t"
		"mov %%rbp, 48(%0)\n\t"
		"mov %%rsp, 56(%0)\n\t"
		"lea 0(%%rip), %%rax\n\t"
		"mov %%rax, 64(%0)\n\t"
		"mov %%r8, 72(%0)\n\t"
		"mov %%r9, 80(%0)\n\t"
		"mov %%r10, 88(%0)\n\t"
		"mov %%r11, 96(%0)\n\t"
		"mov %%r12, 104(%0)\n\t"
		"mov %%r13, 112(%0)\n\t"
		"mov %%r14, 120(%0)\n\t"
		"mov %%r15, 128(%0)\n\t"
		: : "r"(r) : "rax", "memory");
	/* By hand: the copy reads past this frame, into its callers'. */
	stack_size = top > regs[7] && top - regs[7] < STACK_MAX ? (top - regs[7]) & ~7ull : STACK_MAX;
	for (uint64_t i = 0; i < stack_size; i++)
		stack_copy[i] = ((volatile uint8_t *)(uintptr_t)regs[7])[i];
	sink++;
}

__attribute__((noinline)) static void middle(void)
{
	inner();
	sink++;
}

__attribute__((noinline)) static void outer(void)
{
	middle();
	sink++;
}

/* ---- records ------------------------------------------------------- */

static struct perf_event_attr attr_of(uint64_t mask)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 999,
		.freq = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER,
		.sample_regs_user = mask,
		.sample_stack_user = STACK_MAX,
		.exclude_callchain_user = 1,
		.mmap = 1, .comm = 1, .task = 1, .sample_id_all = 1, .mmap2 = 1,
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};

	return attr;
}

static struct prf_writer *writer;
static struct perf_event_attr attr_all;

static void finish(struct rec *r, uint32_t type, uint16_t misc, uint64_t time)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)r->size };

	memcpy(r->words, &h, sizeof(h));
	if (prf_writer_append(writer, r->words, r->size, time) < 0) {
		fprintf(stderr, "unwind-fixture: %s\n", prf_writer_last_error(writer));
		exit(1);
	}
}

static void put_id(struct rec *r, uint32_t pid, uint64_t time)
{
	struct prf_sample_id id = { .pid = pid, .tid = pid, .time = time,
				    .id = ID_ALL, .identifier = ID_ALL };
	uint8_t trailer[PRF_SAMPLE_ID_MAX];

	put(r, trailer, prf_encode_sample_id(&attr_all, &id, trailer));
}

static void write_process(uint32_t pid, const char *name, uint64_t time)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	struct rec r;

	begin(&r);
	put_u32s(&r, pid, pid);
	put_string(&r, name);
	put_id(&r, pid, time);
	finish(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_USER, time);
	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, pgoff, inode;
		unsigned major, minor;
		char perms[8], path[2048] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %2047s", &start, &end, perms,
			   &pgoff, &major, &minor, &inode, path) < 7 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		begin(&r);
		put_u32s(&r, pid, pid);
		put_u64(&r, start);
		put_u64(&r, end - start);
		put_u64(&r, pgoff);
		put_u32s(&r, major, minor);
		put_u64(&r, inode);
		put_u64(&r, 0);			/* inode generation */
		put_u32s(&r, 5, 2);		/* PROT_READ | PROT_EXEC, MAP_PRIVATE */
		put_string(&r, path);
		put_id(&r, pid, time);
		finish(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, time);
	}
	if (maps)
		fclose(maps);
}

struct variant {
	const char *name;
	uint64_t id, mask;
	uint64_t abi;
	uint16_t misc;
	const uint64_t *regs;
	const uint8_t *stack;
	uint64_t size, dyn_size;
	int kernel_chain;
};

static void write_sample(uint32_t pid, const struct variant *v, uint64_t time)
{
	struct rec r;
	size_t index = 0;

	begin(&r);
	put_u64(&r, v->id);
	put_u64(&r, v->regs[8]);
	put_u32s(&r, pid, pid);
	put_u64(&r, time);
	put_u32s(&r, 0, 0);
	put_u64(&r, PERIOD);
	if (v->kernel_chain) {
		put_u64(&r, 3);
		put_u64(&r, PERF_CONTEXT_KERNEL);
		put_u64(&r, KERNEL_TEXT + 0x100);
		put_u64(&r, KERNEL_TEXT + 0x200);
	} else {
		put_u64(&r, 0);
	}
	put_u64(&r, v->abi);
	for (unsigned bit = 0; v->abi && bit < 64; bit++) {
		if (!(v->mask & (1ull << bit)))
			continue;
		/* regs[] holds the full mask's values, in its order. */
		index = (size_t)__builtin_popcountll(MASK_ALL & ((1ull << bit) - 1));
		put_u64(&r, v->regs[index]);
	}
	put_u64(&r, v->size);
	if (v->size) {
		put(&r, v->stack, v->size);
		put_u64(&r, v->dyn_size);
	}
	finish(&r, PERF_RECORD_SAMPLE, v->misc, time);
}

/* Blocked in the kernel: its callchain the kernel part only, the user part to unwind. */
static void write_off_cpu(uint32_t pid, uint64_t time)
{
	static uint64_t record[(STACK_MAX + 1024) / 8];
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, KERNEL_TEXT + 0x100, KERNEL_TEXT + 0x200 };
	struct prf_off_cpu block = {
		.time = time, .duration = 3 * PERIOD, .pid = pid, .tid = pid,
		.callchain = chain, .callchain_nr = 3,
		.user_regs = { .abi = PERF_SAMPLE_REGS_ABI_64, .mask = MASK_ALL, .regs = regs,
			       .count = REGS },
		.user_stack = stack_copy, .user_stack_size = stack_size,
	};
	ssize_t size = prf_encode_off_cpu(&block, record, sizeof(record));

	if (size < 0 || prf_writer_append(writer, record, (size_t)size, time) < 0) {
		fprintf(stderr, "unwind-fixture: the off-CPU block: %s\n",
			size < 0 ? strerror((int)-size) : prf_writer_last_error(writer));
		exit(1);
	}
}

static int write_file(const char *path)
{
	static const uint64_t ids_all[] = { ID_ALL }, ids_no_sp[] = { ID_NO_SP },
			      ids_no_ip[] = { ID_NO_IP };
	static uint64_t odd_regs[REGS], garbage_regs[REGS];
	static uint8_t cycle_stack[STACK_MAX], garbage_stack[STACK_MAX];
	struct prf_event events[3] = {
		{ .attr = attr_of(MASK_ALL), .name = "cpu-clock", .ids = ids_all, .id_count = 1 },
		{ .attr = attr_of(MASK_NO_SP), .name = "no-sp", .ids = ids_no_sp, .id_count = 1 },
		{ .attr = attr_of(MASK_NO_IP), .name = "no-ip", .ids = ids_no_ip, .id_count = 1 },
	};
	struct prf_file_info info = {
		.hostname = "unwind-fixture", .kernel_release = "6.1.0", .kernel_version = "#1",
		.machine = "x86_64", .boot_id = "00000000-0000-0000-0000-000000000000",
		.nr_cpus_online = 1, .nr_cpus_configured = 1, .page_size = 4096,
		.clockid = CLOCK_MONOTONIC, .start_time_ns = BASE_NS,
		.events = events, .event_count = 3,
	};
	struct prf_writer_options options = { .name = path };
	uint64_t frame = regs[6] - regs[7];	/* inner's frame pointer, in the copy */
	uint64_t sp_zero[REGS], sp_top[REGS], sp_odd[REGS], ip_zero[REGS], ip_garbage[REGS];
	struct prf_error error;
	int fd;

	memcpy(sp_zero, regs, sizeof(regs));
	sp_zero[7] = 0;
	memcpy(sp_top, regs, sizeof(regs));
	sp_top[7] = UINT64_MAX - 7;
	memcpy(sp_odd, regs, sizeof(regs));
	sp_odd[7] += 3;
	memcpy(ip_zero, regs, sizeof(regs));
	ip_zero[8] = 0;
	memcpy(ip_garbage, regs, sizeof(regs));
	ip_garbage[8] = 0x10;
	for (size_t i = 0; i < REGS; i++)
		garbage_regs[i] = 0x4141414141414141ull;
	memcpy(odd_regs, regs, sizeof(regs));
	memcpy(cycle_stack, stack_copy, stack_size);
	if (frame + 16 <= stack_size) {
		memcpy(cycle_stack + frame, &regs[6], 8);	/* saved rbp: itself */
		memcpy(cycle_stack + frame + 8, &regs[8], 8);	/* return address: inner */
	}
	for (uint64_t i = 0; i + 8 <= stack_size; i += 8) {
		uint64_t address = regs[7] + i;		/* every word points at itself */

		memcpy(garbage_stack + i, &address, 8);
	}
	struct variant variants[] = {
		{ "good", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  regs, stack_copy, stack_size, stack_size, 0 },
		/* inner's return address is at frame + 8: keep it, not middle's */
		{ "short", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  regs, stack_copy, frame + 16, frame + 16, 0 },
		{ "cycle", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  regs, cycle_stack, stack_size, stack_size, 0 },
		{ "sp-zero", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  sp_zero, stack_copy, stack_size, stack_size, 0 },
		{ "sp-top", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  sp_top, stack_copy, stack_size, stack_size, 0 },
		{ "sp-odd", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  sp_odd, stack_copy, stack_size, stack_size, 0 },
		{ "ip-zero", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  ip_zero, stack_copy, stack_size, stack_size, 0 },
		{ "ip-garbage", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  ip_garbage, stack_copy, stack_size, stack_size, 0 },
		{ "regs-garbage", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  garbage_regs, stack_copy, stack_size, stack_size, 0 },
		{ "stack-garbage", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  regs, garbage_stack, stack_size, stack_size, 0 },
		{ "no-sp", ID_NO_SP, MASK_NO_SP, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  odd_regs, stack_copy, stack_size, stack_size, 0 },
		{ "no-ip", ID_NO_IP, MASK_NO_IP, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  odd_regs, stack_copy, stack_size, stack_size, 0 },
		{ "abi-none", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_NONE, PERF_RECORD_MISC_USER,
		  regs, stack_copy, stack_size, stack_size, 0 },
		{ "zero-stack", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  regs, stack_copy, 0, 0, 0 },
		{ "kernel", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_KERNEL,
		  regs, stack_copy, stack_size, stack_size, 1 },
		{ "lying", ID_ALL, MASK_ALL, PERF_SAMPLE_REGS_ABI_64, PERF_RECORD_MISC_USER,
		  regs, stack_copy, stack_size, stack_size + 4096, 0 },
	};

	attr_all = events[0].attr;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || prf_writer_open(&writer, fd, &info, &options, &error) < 0) {
		fprintf(stderr, "unwind-fixture: %s: %s\n", path,
			fd < 0 ? strerror(errno) : error.message);
		return 1;
	}
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		uint32_t pid = 1000 + (uint32_t)i;

		write_process(pid, variants[i].name, BASE_NS);
		write_sample(pid, &variants[i], BASE_NS + (i + 1) * PERIOD);
	}
	write_process(1100, "off-cpu", BASE_NS);
	write_off_cpu(1100, BASE_NS + 100 * PERIOD);
	if (prf_writer_finish(writer) < 0) {
		fprintf(stderr, "unwind-fixture: %s\n", prf_writer_last_error(writer));
		return 1;
	}
	prf_writer_close(writer);
	return close(fd) < 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: unwind-fixture FILE\n");
		return 2;
	}
	outer();
	printf("sp 0x%llx bp 0x%llx ip 0x%llx copied %llu\n", (unsigned long long)regs[7],
	       (unsigned long long)regs[6], (unsigned long long)regs[8],
	       (unsigned long long)stack_size);
	return write_file(argv[1]);
}
#else
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "unwind-fixture: x86_64 only\n");
	return 77;
}
#endif
