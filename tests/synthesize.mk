# Synthesis of /proc and /sys state into records: against this machine's
# own /proc and /sys and against fake roots.
check_PROGRAMS += tests/test-synthesize
tests_test_synthesize_SOURCES = tests/test-synthesize.c
tests_test_synthesize_CPPFLAGS = $(AM_CPPFLAGS) $(SIDEBAND_CPPFLAGS)
tests_test_synthesize_CFLAGS = $(TEST_CFLAGS)
tests_test_synthesize_LDADD = $(SIDEBAND_LIBS) $(CHECK_LIBS)
TESTS += tests/test-synthesize
