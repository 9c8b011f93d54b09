# Unit suites (Check) and end-to-end scripts, all run by `make check`.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS = $(FORMAT_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/test-format tests/test-decode
tests_test_format_SOURCES = tests/test-format.c
tests_test_format_CFLAGS = $(TEST_CFLAGS)
tests_test_format_LDADD = $(TEST_LIBS)
tests_test_decode_SOURCES = tests/test-decode.c
tests_test_decode_CFLAGS = $(TEST_CFLAGS)
tests_test_decode_LDADD = $(TEST_LIBS)
TESTS += tests/test-format tests/test-decode
# Tracepoint formats' fields and their values in raw data, real and hostile.
check_PROGRAMS += tests/test-tracepoint
tests_test_tracepoint_SOURCES = tests/test-tracepoint.c
tests_test_tracepoint_CFLAGS = $(TEST_CFLAGS)
tests_test_tracepoint_LDADD = $(TEST_LIBS)
TESTS += tests/test-tracepoint

include tests/common.mk
include tests/dump.mk
include tests/compact.mk
include tests/events.mk
include tests/synthesize.mk
include tests/notify.mk
include tests/service.mk
include tests/views.mk
include tests/report.mk
include tests/units.mk
include tests/pprof.mk
include tests/perfdata-write.mk
include tests/push.mk
include tests/flame.mk
include tests/script.mk
include tests/daemon.mk
include tests/offcpu.mk
include tests/time.mk
include tests/perfdata.mk
include tests/fuzz/local.mk
include tests/symbolize.mk
include tests/archive.mk

# The build's shape: each source compiled once, perfrec-archive without
# libdebuginfod (doc/HACKING.md).
TESTS += tests/test-layout.sh
EXTRA_DIST += tests/test-layout.sh

# Attacks on perfrecd (root) and on the readers, tried for real.
TESTS += tests/test-attacks.sh
EXTRA_DIST += tests/test-attacks.sh

# perf's command-line habits in perfrecd and perfrec-report.
TESTS += tests/test-cli.sh
EXTRA_DIST += tests/test-cli.sh
