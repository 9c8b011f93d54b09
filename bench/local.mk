include bench/format.mk
include bench/collector.mk
include bench/dwarf.mk
include bench/soak.mk
include bench/offcpu.mk
include bench/timeline.mk
# perfrec-push CPU per host-hour (run by hand, as root; bench/README.md).
EXTRA_DIST += bench/push.sh bench/push-follow.sh
EXTRA_DIST += bench/stripped.sh
# Issue 31's attacks on what perfrecd reads for a process (bench/README.md).
EXTRA_DIST += bench/jit-attacks.sh
# The figures, and the reader benchmark against perf report.
EXTRA_DIST += bench/README.md bench/reader.sh bench/reader-ab.sh
# Writing perf.data against perf reading it (bench/README.md).
EXTRA_DIST += bench/perfdata-write.sh
# Reading perf.data: perfrec-report against perf report on one file.
EXTRA_DIST += bench/perfdata-read.sh
