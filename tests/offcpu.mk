# perfrecd --off-cpu end to end: tests/offcpu-workload blocks in known
# ways (sleep, a pipe another thread answers, a contended mutex) and
# measures each with its own clock; tests/offcpu-read prints the
# capture's OFF_CPU records through format/'s decoder.  The workload
# keeps its frame pointers; offcpu-workload-nofp is the same code
# without them, for dwarf mode.  test-report-offcpu-live.sh: the same
# captures read by perfrec-report (flat, folded --waker, wall, pprof and
# the page in chromium) against the workload's own figures.
check_PROGRAMS += tests/offcpu-workload tests/offcpu-workload-nofp tests/offcpu-read
tests_offcpu_workload_SOURCES = tests/offcpu-workload.c
tests_offcpu_workload_CFLAGS = $(AM_CFLAGS) -O2 -g -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls
tests_offcpu_workload_LDADD = -lpthread
tests_offcpu_workload_nofp_SOURCES = tests/offcpu-workload.c
tests_offcpu_workload_nofp_CFLAGS = $(AM_CFLAGS) -O2 -g -fomit-frame-pointer \
	-fno-optimize-sibling-calls
tests_offcpu_workload_nofp_LDADD = -lpthread
tests_offcpu_read_SOURCES = tests/offcpu-read.c
tests_offcpu_read_LDADD = $(FORMAT_LIBS)

OFFCPU_TESTS = tests/test-daemon-offcpu.sh tests/test-daemon-offcpu-rseq.sh \
	tests/test-report-offcpu-live.sh
TESTS += $(OFFCPU_TESTS)
EXTRA_DIST += $(OFFCPU_TESTS)
CLEANFILES += tests/test-report-offcpu-live.png
