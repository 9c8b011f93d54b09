# Synthesis of /proc and /sys state into records: against this machine's
# own /proc and /sys and against fake roots.
check_PROGRAMS += tests/test-synthesize
tests_test_synthesize_SOURCES = tests/test-synthesize.c \
	daemon/synthesize.c daemon/buildid.c daemon/kernel.c \
	daemon/synthesize.h daemon/synth-internal.h daemon/sink.h
tests_test_synthesize_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LIBELF_CFLAGS) \
	-I$(top_srcdir)/daemon
tests_test_synthesize_LDADD = $(FORMAT_LIBS) $(LIBELF_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/test-synthesize
