# perfrec-report --format=perf.data.  test-report-perfdata-write.sh: a
# capture of the workload written as perf.data and read by perf 6.1
# (report, script, --header-only, --kallsyms): shares, call chains, the
# header's host facts, filters, kernel names, refusals.
# test-report-perfdata-hotspot.sh: the same file read by KDAB hotspot's
# perfparser, and hotspot itself under Xvfb (a screenshot); it skips
# where those are not installed (scripts/setup-debian.sh installs them).
PERFDATA_WRITE_TESTS = tests/test-report-perfdata-write.sh tests/test-report-perfdata-hotspot.sh
TESTS += $(PERFDATA_WRITE_TESTS)
EXTRA_DIST += $(PERFDATA_WRITE_TESTS)
