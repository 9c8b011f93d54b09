# Compact samples (perfrec-format(5)): recode writes the same records in
# either encoding; test-compact.sh checks that both read back the same,
# that damage costs only its chunk, and a real capture in compact mode.
check_PROGRAMS += tests/recode
tests_recode_SOURCES = tests/recode.c
tests_recode_LDADD = $(FORMAT_LIBS)
TESTS += tests/test-compact.sh
EXTRA_DIST += tests/test-compact.sh
check_PROGRAMS += tests/test-compact
tests_test_compact_SOURCES = tests/test-compact.c
tests_test_compact_CFLAGS = $(TEST_CFLAGS)
tests_test_compact_LDADD = $(TEST_LIBS)
TESTS += tests/test-compact
