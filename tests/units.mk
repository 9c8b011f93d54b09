# cgroups, systemd units, containers and pid namespaces: the names a
# cgroup path gives (a table of real-looking paths), the session on small
# files written by the test (test-units); and end to end, workloads in two
# cgroups named like units under the cgroup2 mount (test-report-units.sh),
# a workload in a pid namespace of its own (test-report-nspid.sh).
check_PROGRAMS += tests/test-units
tests_test_units_SOURCES = tests/test-units.c
tests_test_units_CPPFLAGS = $(AM_CPPFLAGS) $(SESSION_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)
tests_test_units_CFLAGS = $(TEST_CFLAGS)
tests_test_units_LDADD = $(SESSION_LIBS) $(CHECK_LIBS)
TESTS += tests/test-units

UNITS_TESTS = tests/test-report-units.sh tests/test-report-nspid.sh
TESTS += $(UNITS_TESTS)
EXTRA_DIST += $(UNITS_TESTS)
