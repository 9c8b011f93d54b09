/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * offcpu-read: the OFF_CPU records of perfrec files, one line each,
 * decoded by format/'s prf_decode_off_cpu(), for the off-CPU tests:
 *
 *   offcpu-read FILE...
 *   off_cpu TIME DURATION PID TID CPU FLAGS WAKER_PID WAKER_TID WAKER_COMM
 *           K=ip,ip,... U=ip,... WK=... WU=... CG=CGROUP_ID STACK=BYTES
 *
 * (on one line; WAKER_COMM "-" when unknown, an empty list "-").
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include "format.h"

static void print_chain(const char *name, const uint64_t *chain, size_t nr, int user)
{
	int in_user = 0, any = 0;

	printf(" %s=", name);
	for (size_t i = 0; i < nr; i++) {
		if (chain[i] == PERF_CONTEXT_USER || chain[i] == PERF_CONTEXT_KERNEL) {
			in_user = chain[i] == PERF_CONTEXT_USER;
			continue;
		}
		if (in_user != user)
			continue;
		printf("%s%llx", any ? "," : "", (unsigned long long)chain[i]);
		any = 1;
	}
	if (!any)
		putchar('-');
}

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		struct prf_reader *reader;
		struct prf_error error;
		struct prf_chunk chunk;
		struct prf_record record;
		int ret;

		if (prf_reader_open(&reader, argv[i], &error) < 0) {
			fprintf(stderr, "offcpu-read: %s\n", error.message);
			status = 1;
			continue;
		}
		while ((ret = prf_reader_next_chunk(reader, &chunk)) == 1) {
			while (prf_chunk_next_record(&chunk, &record) == 1) {
				struct prf_off_cpu r;
				char comm[17];

				if (record.type != PRF_RECORD_OFF_CPU)
					continue;
				if (prf_decode_off_cpu(record.data, record.size, &r) < 0) {
					fprintf(stderr, "offcpu-read: %s: an OFF_CPU record does not decode\n",
						argv[i]);
					status = 1;
					continue;
				}
				snprintf(comm, sizeof(comm), "%s", r.waker_comm[0] ? r.waker_comm : "-");
				for (char *p = comm; *p; p++)
					if (!isgraph((unsigned char)*p))
						*p = '_';
				printf("off_cpu %llu %llu %u %u %u %u %u %u %s",
				       (unsigned long long)r.time, (unsigned long long)r.duration,
				       r.pid, r.tid, r.cpu, r.flags, r.waker_pid, r.waker_tid, comm);
				print_chain("K", r.callchain, r.callchain_nr, 0);
				print_chain("U", r.callchain, r.callchain_nr, 1);
				print_chain("WK", r.waker_callchain, r.waker_callchain_nr, 0);
				print_chain("WU", r.waker_callchain, r.waker_callchain_nr, 1);
				printf(" CG=%llu STACK=%llu\n", (unsigned long long)r.cgroup,
				       (unsigned long long)r.user_stack_size);
			}
		}
		if (ret < 0) {
			fprintf(stderr, "offcpu-read: %s: %s\n", argv[i], strerror(-ret));
			status = 1;
		}
		prf_reader_close(reader);
	}
	return status;
}
