# perfrec-archive and perfrec-report --symbols end to end: a workload built
# by the tests (archive-workload.c, archive-lib.c) captured by perfrecd,
# its bundle checked (tests/test-archive.sh), and the report read off-host
# from the bundle alone (tests/test-archive-journey.sh).
ARCHIVE_TESTS = tests/test-archive.sh tests/test-archive-journey.sh
TESTS += $(ARCHIVE_TESTS)
EXTRA_DIST += $(ARCHIVE_TESTS) tests/archive-lib.sh tests/archive-workload.c \
	tests/archive-lib.c
