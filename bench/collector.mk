# The collector benchmark: perfrecd against perf record -a -g -z on the
# same fixed amount of work, at 1 kHz and 10 kHz per CPU.  Not part of
# make check; run (as root)
#   bench/collector.sh [--seconds N] [--build DIR] [--runs R]
# collector-work is the fixed work (built like tests/workload, with frame
# pointers); collector-run runs a collector and reports its rusage.
noinst_PROGRAMS += bench/collector-work bench/collector-run
bench_collector_work_SOURCES = bench/collector-work.c
bench_collector_work_CFLAGS = $(AM_CFLAGS) -O2 -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls
bench_collector_work_LDADD = -lpthread
bench_collector_run_SOURCES = bench/collector-run.c
EXTRA_DIST += bench/collector.sh bench/defaults.sh
EXTRA_DIST += bench/encoding.sh bench/time-column.py
