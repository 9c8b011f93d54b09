# perfrec-report end to end: captures of known workloads by perfrecd (and
# by perf record, to compare with), checked against the workload's own CPU
# accounting, eu-addr2line, /proc/kallsyms, c++filt and perf report; and
# odd captures (report-hostile) and the fuzz seeds, which the reader must
# survive (CI runs these under ASan too).  Helpers in tests/report-lib.sh;
# each test-report-*.sh says what it checks.
check_PROGRAMS += tests/report-hostile
tests_report_hostile_SOURCES = tests/report-hostile.c
tests_report_hostile_LDADD = $(FORMAT_LIBS)

REPORT_TESTS = \
	tests/test-report-accuracy.sh \
	tests/test-report-symbols.sh \
	tests/test-report-debugdir.sh \
	tests/test-report-debuginfod.sh \
	tests/test-report-kernel.sh \
	tests/test-report-cxx.sh \
	tests/test-report-perf.sh \
	tests/test-report-hostile.sh
TESTS += $(REPORT_TESTS)
EXTRA_DIST += $(REPORT_TESTS) tests/report-lib.sh tests/cxx-workload.cc
