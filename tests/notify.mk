# sd_notify client: the datagrams as systemd would receive them.
check_PROGRAMS += tests/test-notify
tests_test_notify_SOURCES = tests/test-notify.c
tests_test_notify_CPPFLAGS = $(AM_CPPFLAGS) $(SERVICE_CPPFLAGS)
tests_test_notify_CFLAGS = $(TEST_CFLAGS)
tests_test_notify_LDADD = $(SERVICE_LIBS) $(CHECK_LIBS)
TESTS += tests/test-notify

# The unit file as systemd-analyze sees it (skipped without systemd).
TESTS += tests/test-unit.sh
EXTRA_DIST += tests/test-unit.sh
