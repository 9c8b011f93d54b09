# Compact samples (perfrec-format(5)): recode writes the same records in
# either encoding; test-compact.sh checks that both read back the same,
# that damage costs only its chunk, and a real capture in compact mode.
# tests/data/fixture-compact-1.2.prf is tests/make-fixture's file recoded
# compact by format 1.2's writer (commit 3385cc9), whose COMPACT_SAMPLES
# records later readers must still read.
check_PROGRAMS += tests/recode
tests_recode_SOURCES = tests/recode.c
tests_recode_LDADD = $(FORMAT_LIBS)
TESTS += tests/test-compact.sh
EXTRA_DIST += tests/test-compact.sh tests/data/fixture-compact-1.2.prf
check_PROGRAMS += tests/test-compact
tests_test_compact_SOURCES = tests/test-compact.c
tests_test_compact_CFLAGS = $(TEST_CFLAGS)
tests_test_compact_LDADD = $(TEST_LIBS)
TESTS += tests/test-compact
