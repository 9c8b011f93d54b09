# The time views: tests/phases-workload moves its CPU time between two
# functions at times it prints, so every interval, range and window of a
# capture of it has a known answer.
check_PROGRAMS += tests/phases-workload
tests_phases_workload_SOURCES = tests/phases-workload.c
tests_phases_workload_CFLAGS = $(AM_CFLAGS) -O2 -g -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls

TIME_TESTS =
TESTS += $(TIME_TESTS)
EXTRA_DIST += $(TIME_TESTS)
