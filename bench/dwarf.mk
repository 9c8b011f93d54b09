# The dwarf benchmark: perfrecd --call-graph dwarf against perf record
# --call-graph dwarf on the same CPUs at the same time.  Not part of make
# check; run (as root)
#   bench/dwarf.sh [--seconds N] [--freq F] [--build DIR]
# dwarf-work is the workload: a comparator called from glibc's qsort,
# built without frame pointers.
noinst_PROGRAMS += bench/dwarf-work
bench_dwarf_work_SOURCES = bench/dwarf-work.c
bench_dwarf_work_CFLAGS = $(AM_CFLAGS) -O2 -fomit-frame-pointer
bench_dwarf_work_LDADD = -lpthread
EXTRA_DIST += bench/dwarf.sh
