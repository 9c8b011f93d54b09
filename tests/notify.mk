# sd_notify client: the datagrams as systemd would receive them.
check_PROGRAMS += tests/test-notify
tests_test_notify_SOURCES = tests/test-notify.c daemon/notify.c daemon/notify.h
tests_test_notify_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/daemon
tests_test_notify_LDADD = $(CHECK_LIBS)
TESTS += tests/test-notify

# The unit file as systemd-analyze sees it (skipped without systemd).
TESTS += tests/test-unit.sh
EXTRA_DIST += tests/test-unit.sh
