/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * shortcut-hostile: compact captures whose shortcut reading (the memo of counted
 * callchains, the samples view's memo of frames) and reference reading
 * (PRF_REPORT_NO_SHORTCUTS=1) differ, or that flood the reader's hashes.
 *
 *   shortcut-hostile collide FILE           two callchains of one process whose
 *                                     prf_stack_hash_step() hashes are equal
 *   shortcut-hostile host FILE HOST SYMBOL  idle (pid 0) kernel samples on HOST,
 *                                     whose kallsyms names one function SYMBOL
 *   shortcut-hostile untimed FILE     two events, the second without TIME and
 *                                     CPU, their samples in turn in one chunk
 *   shortcut-hostile tiny FILE        chunks of 2 M samples of 16 bytes (the
 *                                     samples kept compact take 96 each)
 *   shortcut-hostile alike FILE N     N samples all apart whose alike_hash()
 *                                     is one (id ^ stream_id the same)
 *   shortcut-hostile byip FILE N      N samples of one callchain (a marker
 *                                     alone), each at its own ip: the memo's
 *                                     entries, not hashed by ip, share a hash
 *   shortcut-hostile frames FILE      the samples view's memo of frames' text:
 *                                     one address a leaf and a return address,
 *                                     in two binaries mapped at one address,
 *                                     in the kernel's context and the user's,
 *                                     one binary at three addresses
 *   shortcut-hostile kframes FILE N   N kernel frames, each at its own address,
 *                                     without kallsyms: no kernel DSO, so the
 *                                     DSO's offset is the address itself
 *   shortcut-hostile addresses FILE N the same, 2N frames at addresses chosen
 *                                     so that the address hashes the reader had
 *                                     unseeded (the symbolized addresses',
 *                                     pprof's locations', speedscope's) put
 *                                     each N in one slot of their index
 *   shortcut-hostile tasks FILE N     2N samples of one stack, each of its own
 *                                     pid and tid, chosen so that the task
 *                                     hashes the reader had unseeded (pprof's
 *                                     samples', speedscope's threads': mix(pid
 *                                     << 32 | tid + 1); perf.data's threads':
 *                                     mix(pid << 32 | tid)) put each N in one slot
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "format.h"
#include "common.h"

#define BASE_NS 1000000000000ull
#define TICK_NS 1001001ull

static struct perf_event_attr attr = {
	.type = PERF_TYPE_SOFTWARE, .size = sizeof(struct perf_event_attr),
	.config = PERF_COUNT_SW_CPU_CLOCK, .sample_freq = 999,
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_CALLCHAIN,
	.freq = 1, .mmap = 1, .comm = 1, .task = 1, .sample_id_all = 1, .mmap2 = 1,
	.comm_exec = 1, .use_clockid = 1, .clockid = 1,
};
static const uint64_t ids[1] = { 11 };
static struct prf_writer *w;
static uint64_t buf[1024];
static size_t n;

/* prf_hash_mix()'s inverse: each step undone, last first. */
static uint64_t inverse_of_odd(uint64_t a)
{
	uint64_t x = a;		/* right to 3 bits; each step doubles them */

	for (int i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

static uint64_t unmix(uint64_t x)
{
	x ^= x >> 33;
	x *= inverse_of_odd(0xc4ceb9fe1a85ec53ull);
	x ^= x >> 33;
	x *= inverse_of_odd(0xff51afd7ed558ccdull);
	x ^= x >> 33;
	return x;
}

static void die(const char *m) { fprintf(stderr, "shortcut-hostile: %s\n", m); exit(1); }
static void put(const void *p, size_t s) { memcpy((uint8_t *)buf + n, p, s); n += s; }
static void put64(uint64_t v) { put(&v, 8); }
static void put32s(uint32_t a, uint32_t b) { put(&a, 4); put(&b, 4); }
static void pad(void) { static const uint8_t z[8]; put(z, (8 - n % 8) % 8); }

static void emit_kernel(uint64_t time)
{
	uint16_t size = (uint16_t)n;

	memcpy((uint8_t *)buf + 6, &size, 2);
	if (prf_writer_append(w, buf, n, time) < 0)
		die(prf_writer_last_error(w));
}

static void id_trailer(uint32_t pid, uint64_t time)
{
	struct prf_sample_id id = { .pid = pid, .tid = pid, .time = time, .id = 11,
				    .identifier = 11 };
	uint8_t t[PRF_SAMPLE_ID_MAX];

	put(t, prf_encode_sample_id(&attr, &id, t));
}

static void comm(uint32_t pid, const char *name, uint64_t time)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC };

	n = 0;
	put(&h, sizeof(h));
	put32s(pid, pid);
	put(name, strlen(name) + 1);
	pad();
	id_trailer(pid, time);
	emit_kernel(time);
}

static void mmap2(uint32_t pid, uint64_t start, uint64_t len, const char *path, uint64_t time)
{
	struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };

	n = 0;
	put(&h, sizeof(h));
	put32s(pid, pid);
	put64(start);
	put64(len);
	put64(0);
	put32s(254, 1);
	put64(77);
	put64(1);
	put32s(PROT_READ | PROT_EXEC, MAP_PRIVATE);
	put(path, strlen(path) + 1);
	pad();
	id_trailer(pid, time);
	emit_kernel(time);
}

static uint32_t sample_cpu;
static uint32_t sample_tid;	/* 0: the pid */

static void sample(uint32_t pid, uint16_t misc, uint64_t time, const uint64_t *chain, size_t nr)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = misc };

	n = 0;
	put(&h, sizeof(h));
	put64(11);
	put64(chain[1]);
	put32s(pid, sample_tid ? sample_tid : pid);
	put64(time);
	put32s(sample_cpu, 0);
	put64(TICK_NS);
	put64(nr);
	put(chain, 8 * nr);
	emit_kernel(time);
}

static void kallsyms(const char *text)
{
	struct prf_kallsyms_record k = { .header = { .type = PRF_RECORD_KALLSYMS },
					 .text_size = strlen(text) };

	n = 0;
	put(&k, sizeof(k));
	put(text, strlen(text));
	pad();
	k.header.size = (uint32_t)n;
	memcpy(buf, &k, sizeof(k));
	if (prf_writer_append(w, buf, n, 0) < 0)
		die(prf_writer_last_error(w));
}

static struct prf_event events[2];
static size_t chunk_size;
static size_t event_count = 1;

static void open_file(const char *path, const char *host, int *fd)
{
	struct prf_file_info info = {
		.hostname = host, .kernel_release = "6.1.0-review", .kernel_version = "#1",
		.machine = "x86_64", .boot_id = "00000000-0000-4000-8000-000000000001",
		.nr_cpus_online = 2, .nr_cpus_configured = 2, .page_size = 4096, .clockid = 1,
		.realtime_offset_ns = 1780000000000000000ll, .start_time_ns = BASE_NS,
		.events = events, .event_count = event_count,
	};
	struct prf_writer_options o = { .name = path, .sample_encoding = PRF_ENCODING_COMPACT,
					.chunk_size = chunk_size };
	struct prf_error e;

	events[0] = (struct prf_event){ .attr = attr, .name = "cpu-clock", .ids = ids, .id_count = 1 };
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (*fd < 0 || prf_writer_open(&w, *fd, &info, &o, &e) < 0)
		die("open");
}

static void close_file(int fd)
{
	if (prf_writer_finish(w) < 0)
		die(prf_writer_last_error(w));
	prf_writer_close(w);
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 3 && !strcmp(argv[1], "collide")) {
		const uint64_t a = 0x401100, b = 0x402200, b2 = 0x402300;
		/* the chunk's tree hashes from the root: b (or b2), then a, then the marker */
		uint64_t a2 = prf_stack_hash_step(PRF_STACK_HASH_ROOT, b) ^ a ^
			      prf_stack_hash_step(PRF_STACK_HASH_ROOT, b2);
		uint64_t x[3] = { PERF_CONTEXT_USER, a, b }, y[3] = { PERF_CONTEXT_USER, a2, b2 };

		open_file(argv[2], "review", &fd);
		comm(100, "victim", BASE_NS);
		mmap2(100, 0x400000, 0x10000, "/usr/bin/victim", BASE_NS);
		for (int i = 0; i < 4; i++)
			sample(100, PERF_RECORD_MISC_USER, BASE_NS + 10 + i * TICK_NS, x, 3);
		for (int i = 4; i < 7; i++)
			sample(100, PERF_RECORD_MISC_USER, BASE_NS + 10 + i * TICK_NS, y, 3);
		fprintf(stderr, "a2 = %#llx\n", (unsigned long long)a2);
		close_file(fd);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "host")) {
		uint64_t x[3] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, 0xffffffff81000020ull };
		char text[128];

		snprintf(text, sizeof(text), "ffffffff81000000 T %s\nffffffff81001000 T end_%s\n",
			 argv[4], argv[4]);
		open_file(argv[2], argv[3], &fd);
		kallsyms(text);
		for (int i = 0; i < 4; i++)
			sample(0, PERF_RECORD_MISC_KERNEL, BASE_NS + 10 + i * TICK_NS, x, 3);
		close_file(fd);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "untimed")) {
		static const uint64_t ids2[1] = { 21 };
		struct perf_event_attr b = attr;
		uint64_t x[3] = { PERF_CONTEXT_USER, 0x401100, 0x402200 };
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
					       .misc = PERF_RECORD_MISC_USER };

		b.sample_type &= ~(uint64_t)(PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
		b.config = PERF_COUNT_SW_TASK_CLOCK;
		events[1] = (struct prf_event){ .attr = b, .name = "task-clock", .ids = ids2,
						.id_count = 1 };
		event_count = 2;
		open_file(argv[2], "review", &fd);
		comm(100, "victim", BASE_NS);
		mmap2(100, 0x400000, 0x10000, "/usr/bin/victim", BASE_NS);
		sample_cpu = 1;
		for (int i = 0; i < 6; i++) {
			/* A on CPU 1 at its time, then B: no time, no CPU (0 to the reader) */
			sample(100, PERF_RECORD_MISC_USER, BASE_NS + 10 + i * TICK_NS, x, 3);
			if (i == 0)
				continue;
			n = 0;
			put(&h, sizeof(h));
			put64(21);
			put64(x[1]);
			put32s(100, 100);
			put64(TICK_NS);
			put64(3);
			put(x, sizeof(x));
			emit_kernel(0);
		}
		close_file(fd);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "tiny")) {
		/* The smallest samples: 16 bytes expanded, a byte or two compact. */
		attr.sample_type = PERF_SAMPLE_IP;
		chunk_size = PRF_CHUNK_RAW_MAX;
		open_file(argv[2], "review", &fd);
		for (uint32_t i = 0; i < (PRF_CHUNK_RAW_MAX / 16) * 2; i++) {
			struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
						       .misc = PERF_RECORD_MISC_USER, .size = 16 };

			memcpy(buf, &h, sizeof(h));
			buf[1] = 0x401000 + (i % 64) * 16;
			if (prf_writer_append(w, buf, 16, 0) < 0)
				die(prf_writer_last_error(w));
		}
		close_file(fd);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "alike")) {
		/* Every sample apart, and one alike_hash() for all: id ^ stream_id is 0. */
		uint32_t count = (uint32_t)strtoul(argv[3], NULL, 0);

		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
		chunk_size = PRF_CHUNK_RAW_MAX;
		open_file(argv[2], "review", &fd);
		for (uint32_t i = 0; i < count; i++) {
			struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
						       .misc = PERF_RECORD_MISC_USER, .size = 32 };

			memcpy(buf, &h, sizeof(h));
			buf[1] = 0x401000;
			buf[2] = buf[3] = i;
			if (prf_writer_append(w, buf, 32, 0) < 0)
				die(prf_writer_last_error(w));
		}
		close_file(fd);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "byip")) {
		/* One callchain of a marker alone, an ip each: memo entries of one hash. */
		uint32_t count = (uint32_t)strtoul(argv[3], NULL, 0);

		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
		open_file(argv[2], "review", &fd);
		for (uint32_t i = 0; i < count; i++) {
			struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
						       .misc = PERF_RECORD_MISC_USER, .size = 32 };

			memcpy(buf, &h, sizeof(h));
			buf[1] = 0x401000 + 16 * (uint64_t)i;
			buf[2] = 1;
			buf[3] = PERF_CONTEXT_USER;
			if (prf_writer_append(w, buf, 32, 0) < 0)
				die(prf_writer_last_error(w));
		}
		close_file(fd);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "frames")) {
		const uint64_t in[][5] = {
			{ PERF_CONTEXT_USER, 0x401100, 0x402200 },
			{ PERF_CONTEXT_USER, 0x402200, 0x401100 },
			{ PERF_CONTEXT_KERNEL, 0x401100, PERF_CONTEXT_USER, 0x401100, 0x402200 },
			/* mapped nowhere: the kernel's and the user's alike but for the context */
			{ PERF_CONTEXT_KERNEL, 0x900000, PERF_CONTEXT_USER, 0x900000 },
		};
		const uint64_t moved[3] = { PERF_CONTEXT_USER, 0x501100, 0x502200 };
		uint64_t t = BASE_NS + 10;

		open_file(argv[2], "review", &fd);
		comm(100, "victim", BASE_NS);
		mmap2(100, 0x400000, 0x10000, "/usr/bin/victim", BASE_NS);
		comm(200, "other", BASE_NS);
		mmap2(200, 0x400000, 0x10000, "/usr/bin/other", BASE_NS);
		comm(300, "victim", BASE_NS);
		mmap2(300, 0x500000, 0x10000, "/usr/bin/victim", BASE_NS);
		/* The same binary 0x10000 lower: the same address at another offset in it. */
		comm(400, "victim", BASE_NS);
		mmap2(400, 0x3f0000, 0x20000, "/usr/bin/victim", BASE_NS);
		for (int round = 0; round < 2; round++) {
			for (uint32_t pid = 100; pid <= 400; pid += pid == 200 ? 200 : 100) {
				sample(pid, PERF_RECORD_MISC_USER, t += TICK_NS, in[0], 3);
				sample(pid, PERF_RECORD_MISC_USER, t += TICK_NS, in[1], 3);
				sample(pid, PERF_RECORD_MISC_KERNEL, t += TICK_NS, in[2], 5);
				sample(pid, PERF_RECORD_MISC_KERNEL, t += TICK_NS, in[3], 4);
			}
			sample(300, PERF_RECORD_MISC_USER, t += TICK_NS, moved, 3);
		}
		close_file(fd);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "kframes")) {
		/*
		 * 250 frames a sample, all apart, each after a context marker (a
		 * leaf: looked up at its own address), where the kernel has no
		 * symbols: no DSO, and the offset is the address.
		 */
		uint32_t count = (uint32_t)strtoul(argv[3], NULL, 0);
		uint64_t chain[500], t = BASE_NS + 10, address = 0xffffffff81000000ull;

		open_file(argv[2], "review", &fd);
		comm(100, "victim", BASE_NS);
		for (uint32_t done = 0; done < count; done += 250) {
			for (size_t i = 0; i < 500; i += 2) {
				chain[i] = PERF_CONTEXT_KERNEL;
				chain[i + 1] = address += 16;
			}
			sample(100, PERF_RECORD_MISC_KERNEL, t += TICK_NS, chain, 500);
		}
		close_file(fd);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "addresses")) {
		/*
		 * Kernel leaves as kframes, 250 a sample, at addresses whose hash
		 * under each formula is (SLOT << 32 | i): one tag and one start
		 * slot for all of a formula's.  prf_hash_mix() is inverted.
		 */
		uint32_t count = (uint32_t)strtoul(argv[3], NULL, 0);
		uint64_t chain[500], t = BASE_NS + 10, y;
		size_t at = 0;

		open_file(argv[2], "review", &fd);
		comm(100, "victim", BASE_NS);
		for (int formula = 0; formula < 2; formula++) {
			for (uint64_t i = 0, made = 0; made < count; i++) {
				y = 0x5eedull << 32 | (i + (uint64_t)formula * count * 4);
				/* aggregate.c and pprof: mix(dso ^ mix(address) ^ kernel), dso NULL */
				if (formula == 0) {
					y = unmix(unmix(y) ^ 1);
				} else {
					/* speedscope: mix(dso) ^ mix(address * 2 + kernel); mix(0) is 0 */
					y = unmix(y);
					if (!(y & 1))
						continue;
					y >>= 1;
				}
				if (!y || y >= PERF_CONTEXT_MAX)
					continue;
				chain[at++] = PERF_CONTEXT_KERNEL;
				chain[at++] = y;
				made++;
				if (at == 500 || made == count) {
					sample(100, PERF_RECORD_MISC_KERNEL, t += TICK_NS, chain, at);
					at = 0;
				}
			}
		}
		close_file(fd);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "tasks")) {
		uint32_t count = (uint32_t)strtoul(argv[3], NULL, 0);
		const uint64_t chain[3] = { PERF_CONTEXT_USER, 0x401100, 0x402200 };
		uint64_t t = BASE_NS + 10;

		open_file(argv[2], "review", &fd);
		for (uint64_t formula = 0; formula < 2; formula++)
			for (uint64_t i = 0; i < count; i++) {
				uint64_t task = unmix(0x5eedull << 32 | (i + formula * count)) -
						(formula == 0);

				sample_tid = (uint32_t)task;
				sample((uint32_t)(task >> 32), PERF_RECORD_MISC_USER, t += TICK_NS,
				       chain, 3);
			}
		close_file(fd);
		return 0;
	}
	die("usage: shortcut-hostile collide|host|untimed|tiny|alike|byip|frames|kframes|addresses|tasks FILE ...");
}
