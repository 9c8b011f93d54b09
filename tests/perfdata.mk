# perfrec-report reading perf's perf.data (format/perfdata-read.c):
# perf record -a -g, -z and --call-graph dwarf of the workload, against
# perf report on the same files; every view, a --baseline against a
# perfrecd capture, a file cut short.  The hostile perf.data files are in
# test-report-hostile.sh and the fuzz corpus; those that cost time or
# memory rather than bytes (tests/perfdata-hostile.py) in
# test-report-perfdata-hostile.sh.
PERFDATA_TESTS = tests/test-report-perfdata.sh tests/test-report-perfdata-hostile.sh
TESTS += $(PERFDATA_TESTS)
EXTRA_DIST += $(PERFDATA_TESTS) tests/perfdata-hostile.py
