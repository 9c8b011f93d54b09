# The symbolizer against eu-addr2line: a test program with inline chains,
# a shared library and libc (with libc6-dbg), stripped copies found
# through debug dirs, .gnu_debuglink and .gnu_debugdata, a rebuilt
# binary, demangling and kallsyms.
check_PROGRAMS += tests/test-symbolize
tests_test_symbolize_SOURCES = tests/test-symbolize.c
tests_test_symbolize_CPPFLAGS = $(AM_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)
tests_test_symbolize_CFLAGS = $(TEST_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_test_symbolize_LDADD = $(DEBUGINFOD_SOURCE_LIBS) $(SYMBOLIZE_LIBS) $(CHECK_LIBS)
# The programs it reads, so that `make tests/test-symbolize` is enough.
EXTRA_tests_test_symbolize_DEPENDENCIES = tests/symbolize-target$(EXEEXT) \
	tests/symbolize-target-v2$(EXEEXT) tests/libsymbolize-lib.so$(EXEEXT)
TESTS += tests/test-symbolize

# Read, never run: built -O2 -g without the sanitizers, whatever the
# configuration.  -v2 is the same program rebuilt: another build-id.
SYMBOLIZE_FIXTURE_CFLAGS = -O2 -g -fno-omit-frame-pointer
check_PROGRAMS += tests/libsymbolize-lib.so tests/symbolize-target tests/symbolize-target-v2
tests_libsymbolize_lib_so_SOURCES = tests/symbolize-lib.c
tests_libsymbolize_lib_so_CFLAGS = $(SYMBOLIZE_FIXTURE_CFLAGS) -fPIC
tests_libsymbolize_lib_so_LDFLAGS = -shared -Wl,-soname,libsymbolize-lib.so
tests_symbolize_target_SOURCES = tests/symbolize-target.c
tests_symbolize_target_CFLAGS = $(SYMBOLIZE_FIXTURE_CFLAGS)
tests_symbolize_target_LDFLAGS =
tests_symbolize_target_LDADD = tests/libsymbolize-lib.so$(EXEEXT)
tests_symbolize_target_v2_SOURCES = tests/symbolize-target.c
tests_symbolize_target_v2_CFLAGS = $(SYMBOLIZE_FIXTURE_CFLAGS) -DVARIANT=1
tests_symbolize_target_v2_LDFLAGS =
tests_symbolize_target_v2_LDADD = tests/libsymbolize-lib.so$(EXEEXT)

# Kernel symbols as hit: perfrecd's records name every address as the
# whole kallsyms does (synthetic, and this host's /proc/kallsyms).
check_PROGRAMS += tests/test-ksyms
tests_test_ksyms_SOURCES = tests/test-ksyms.c
tests_test_ksyms_CPPFLAGS = $(AM_CPPFLAGS) $(SIDEBAND_CPPFLAGS) $(SYMBOLIZE_CPPFLAGS)
tests_test_ksyms_CFLAGS = $(TEST_CFLAGS)
tests_test_ksyms_LDADD = $(SIDEBAND_LIBS) $(SYMBOLIZE_LIBS) $(CHECK_LIBS)
TESTS += tests/test-ksyms
