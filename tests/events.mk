# Event names: generic, cache, raw, and sysfs pmu/term=value/ syntax.
check_PROGRAMS += tests/test-events
tests_test_events_SOURCES = tests/test-events.c \
	daemon/events.c daemon/events.h daemon/pmu.c daemon/pmu.h
tests_test_events_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/daemon
tests_test_events_LDADD = $(CHECK_LIBS)
TESTS += tests/test-events
