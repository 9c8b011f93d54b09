# Event names: generic, cache, raw, and sysfs pmu/term=value/ syntax.
check_PROGRAMS += tests/test-events
tests_test_events_SOURCES = tests/test-events.c
tests_test_events_CPPFLAGS = $(AM_CPPFLAGS) $(EVENTS_CPPFLAGS)
tests_test_events_CFLAGS = $(TEST_CFLAGS)
tests_test_events_LDADD = $(EVENTS_LIBS) $(CHECK_LIBS)
TESTS += tests/test-events
