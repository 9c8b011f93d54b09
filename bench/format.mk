# The format benchmark: writer and reader throughput and compression ratio
# on records recorded from this machine.  Not part of make check; run
#   bench/format.sh            (as root; records with perf for a few s)
noinst_PROGRAMS += bench/format-bench
bench_format_bench_SOURCES = bench/format.c
bench_format_bench_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
bench_format_bench_LDADD = $(FORMAT_LIBS)
EXTRA_DIST += bench/format.sh
