# The reader's fuzz harness.
#
# make check always builds the seed-corpus generator and a replay driver
# (fuzz-reader.c with its own main()), and tests/fuzz/run-fuzz.sh replays
# the seeds and tests/fuzz/crashes/ through it: fast, and under ASan when
# configured with --enable-sanitizers.
#
# With --enable-fuzz (and CC=clang) the same file is also built as a real
# libFuzzer target, tests/fuzz/fuzz-reader; run-fuzz.sh runs it when
# PRF_FUZZ_SECONDS is set.  See tests/fuzz/README.
FUZZ_COMMON = tests/fuzz/fuzz-common.h

check_PROGRAMS += tests/fuzz/make-corpus tests/fuzz/fuzz-reader-replay
tests_fuzz_make_corpus_SOURCES = tests/fuzz/make-corpus.c tests/fuzz/perfdata-seeds.c \
	tests/fuzz/perfdata-seeds.h $(FUZZ_COMMON)
tests_fuzz_make_corpus_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
tests_fuzz_make_corpus_LDADD = $(FORMAT_LIBS)
tests_fuzz_fuzz_reader_replay_SOURCES = tests/fuzz/fuzz-reader.c $(FUZZ_COMMON)
tests_fuzz_fuzz_reader_replay_LDADD = $(FORMAT_LIBS)

TESTS += tests/fuzz/run-fuzz.sh
# The directory: a reproducer dropped into it is shipped and replayed.
EXTRA_DIST += tests/fuzz/run-fuzz.sh tests/fuzz/README tests/fuzz/crashes

if FUZZ
# configure --enable-fuzz instruments the whole configuration (the
# format library included: libFuzzer is guided by its coverage); only
# this program links libFuzzer itself.
check_PROGRAMS += tests/fuzz/fuzz-reader
tests_fuzz_fuzz_reader_SOURCES = tests/fuzz/fuzz-reader.c $(FUZZ_COMMON)
tests_fuzz_fuzz_reader_CPPFLAGS = $(AM_CPPFLAGS) -DPRF_LIBFUZZER
tests_fuzz_fuzz_reader_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_reader_LDADD = $(FORMAT_LIBS)
endif

# run-fuzz.sh's seeds, the fuzzer's growing corpus and its artifacts.
clean-local: clean-local-fuzz
clean-local-fuzz:
	-rm -rf tests/fuzz/seeds tests/fuzz/corpus tests/fuzz/artifacts
.PHONY: clean-local-fuzz
