# perfrec-dump end-to-end checks: make-fixture writes a file whose every
# field is known, test-dump.sh dumps it whole, cut short and damaged.
check_PROGRAMS += tests/make-fixture
tests_make_fixture_SOURCES = tests/make-fixture.c
tests_make_fixture_LDADD = $(FORMAT_LIBS)
TESTS += tests/test-dump.sh
EXTRA_DIST += tests/test-dump.sh
