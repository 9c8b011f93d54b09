# perfrec-report --format=pprof.  test-pprof-encode: the wire format byte
# for byte, the gzip stream and its write errors, the string table.
# test-report-pprof.sh: a capture of the workload read by Go's pprof
# (built offline into tests/pprof-go/ from golang-github-google-pprof-dev):
# totals and shares against the flat view, call chains, build-ids, a
# stripped binary symbolized by pprof.  test-report-pprof-rules.sh: the
# rules of the profile servers (tests/pprof-check.py over protoc's
# decoding), events, labels, names that are not UTF-8, and the bad cases.
check_PROGRAMS += tests/test-pprof-encode
tests_test_pprof_encode_SOURCES = tests/test-pprof-encode.c
tests_test_pprof_encode_CPPFLAGS = $(AM_CPPFLAGS) $(PPROF_CPPFLAGS)
tests_test_pprof_encode_CFLAGS = $(TEST_CFLAGS) $(ZLIB_CFLAGS)
tests_test_pprof_encode_LDADD = $(PPROF_LIBS) $(CHECK_LIBS)
TESTS += tests/test-pprof-encode

PPROF_TESTS = tests/test-report-pprof.sh tests/test-report-pprof-rules.sh
TESTS += $(PPROF_TESTS)
EXTRA_DIST += $(PPROF_TESTS) tests/pprof-check.py

# pprof as test-report-pprof.sh builds it, with Go's build cache.
clean-local: clean-pprof-go
clean-pprof-go:
	-chmod -R u+w tests/pprof-go 2>/dev/null
	-rm -rf tests/pprof-go
.PHONY: clean-pprof-go
