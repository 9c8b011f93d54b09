# The time views: tests/phases-workload moves its CPU time between two
# functions at times it prints, so every interval, range and window of a
# capture of it has a known answer.
check_PROGRAMS += tests/phases-workload
tests_phases_workload_SOURCES = tests/phases-workload.c
tests_phases_workload_CFLAGS = $(AM_CFLAGS) -O2 -g -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls

# Times as perfrec-report takes and prints them, against a made-up capture.
check_PROGRAMS += tests/test-time
tests_test_time_SOURCES = tests/test-time.c
tests_test_time_CPPFLAGS = $(AM_CPPFLAGS) $(VIEWS_CPPFLAGS)
tests_test_time_CFLAGS = $(TEST_CFLAGS)
tests_test_time_LDADD = $(VIEWS_LIBS) $(CHECK_LIBS)
TESTS += tests/test-time

TIME_TESTS = tests/test-report-time.sh
TIME_TESTS += tests/test-report-timeline.sh
TESTS += $(TIME_TESTS)
EXTRA_DIST += $(TIME_TESTS)
