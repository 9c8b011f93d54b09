# perfrec-report end to end: captures of known workloads by perfrecd (and
# by perf record, to compare with), checked against the workload's own CPU
# accounting, eu-addr2line, /proc/kallsyms, c++filt and perf report; and
# odd captures (report-hostile) and the fuzz seeds, which the reader must
# survive (CI runs these under ASan too).  Helpers in tests/report-lib.sh;
# each test-report-*.sh says what it checks; test-report-jobs the same
# reports from a directory read on several threads as on one;
# test-report-shortcuts every view the same with the reader's shortcuts as
# without them (PRF_REPORT_NO_SHORTCUTS=1), and with -j 1, 2 and 4.
check_PROGRAMS += tests/report-hostile
tests_report_hostile_SOURCES = tests/report-hostile.c
tests_report_hostile_LDADD = $(FORMAT_LIBS)

# Time in cmp() under glibc's qsort(), under sorter() and main(), without
# frame pointers: only DWARF unwinding sees the callers (test-report-dwarf).
# Not built with the sanitizers, which keep frame pointers.
check_PROGRAMS += tests/qsort-workload
tests_qsort_workload_SOURCES = tests/qsort-workload.c
tests_qsort_workload_CFLAGS = -O2 -g -fomit-frame-pointer
tests_qsort_workload_LDFLAGS =

# A capture of its own stack and odd variants (test-report-unwind).  Not
# instrumented: it copies the stack past its own frame.
check_PROGRAMS += tests/unwind-fixture
tests_unwind_fixture_SOURCES = tests/unwind-fixture.c tests/record-build.h
tests_unwind_fixture_CFLAGS = -O1 -g -fno-omit-frame-pointer
tests_unwind_fixture_LDADD = $(FORMAT_LIBS)

# Off-CPU blocks and CPU samples with known stacks, durations and wakers,
# in its own functions (test-report-offcpu).  Frame pointers or not, only
# the addresses of its functions are used.
check_PROGRAMS += tests/offcpu-fixture
tests_offcpu_fixture_SOURCES = tests/offcpu-fixture.c tests/record-build.h
tests_offcpu_fixture_CFLAGS = -O1 -g
tests_offcpu_fixture_LDADD = $(FORMAT_LIBS)

# Code whose DWARF names its source file with C1 controls and bytes that
# are not UTF-8 (test-report-c1).  Not instrumented: only its DWARF and
# the offset it prints matter.
check_PROGRAMS += tests/c1-lines
tests_c1_lines_SOURCES = tests/c1-lines.c
tests_c1_lines_CFLAGS = -O1 -g
tests_c1_lines_LDFLAGS =

# Compact captures that tell the reader's shortcuts from its reference
# path, and that take them quadratic (test-report-shortcut-attacks).
check_PROGRAMS += tests/shortcut-hostile
tests_shortcut_hostile_SOURCES = tests/shortcut-hostile.c
tests_shortcut_hostile_LDADD = $(FORMAT_LIBS)

# A copy of a capture under another hostname (test-report-hosts).
check_PROGRAMS += tests/rehost
tests_rehost_SOURCES = tests/rehost.c
tests_rehost_LDADD = $(FORMAT_LIBS)

REPORT_TESTS = \
	tests/test-report-accuracy.sh \
	tests/test-report-symbols.sh \
	tests/test-report-debugdir.sh \
	tests/test-report-stripped.sh \
	tests/test-report-debuginfod.sh \
	tests/test-report-kernel.sh \
	tests/test-report-ksyms.sh \
	tests/test-report-cxx.sh \
	tests/test-report-perf.sh \
	tests/test-report-hostile.sh \
	tests/test-report-dwarf.sh \
	tests/test-report-unwind.sh \
	tests/test-report-offcpu.sh \
	tests/test-report-baseline.sh \
	tests/test-report-hosts.sh \
	tests/test-report-jit-node.sh \
	tests/test-report-jit-java.sh \
	tests/test-report-jobs.sh \
	tests/test-report-shortcuts.sh \
	tests/test-report-shortcut-attacks.sh \
	tests/test-report-c1.sh \
	tests/test-report-live.sh
TESTS += $(REPORT_TESTS)
EXTRA_DIST += $(REPORT_TESTS) tests/report-lib.sh tests/cxx-workload.cc \
	tests/jit-workload.js tests/JitWorkload.java
