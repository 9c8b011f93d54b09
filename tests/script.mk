# perfrec-report's text for other tools, --format=perf-script and
# --format=speedscope: tests/test-report-script.sh against
# stackcollapse-perf.pl's rules (tests/stackcollapse.py) and speedscope's
# file format, tests/test-report-script-perf.sh against perf's own perf
# script; tests/test-report-script-browser.sh
# loads both into speedscope (the npm package, tests/browser/) in Debian's
# chromium.  Each script says what it checks.
SCRIPT_TESTS = \
	tests/test-report-script.sh \
	tests/test-report-script-perf.sh \
	tests/test-report-script-browser.sh
TESTS += $(SCRIPT_TESTS)
EXTRA_DIST += $(SCRIPT_TESTS) tests/stackcollapse.py tests/browser/speedscope-check.js
CLEANFILES += tests/test-report-script-*.png
