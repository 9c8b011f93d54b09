# libperfrec-common: growth, the hash index (and keys that collide), the
# arena, varints, the kallsyms table's ranking and ends, opening planted
# FIFOs, host facts.
check_PROGRAMS += tests/test-common
tests_test_common_SOURCES = tests/test-common.c
tests_test_common_CFLAGS = $(TEST_CFLAGS)
tests_test_common_LDADD = $(COMMON_LIBS) $(CHECK_LIBS)
TESTS += tests/test-common
