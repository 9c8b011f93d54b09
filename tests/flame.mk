# The flame graphs, perfrec-report --format=html and svg, end to end: the
# page in Debian's chromium driven by puppeteer-core (tests/browser/, its
# lockfile committed; scripts/setup-debian.sh runs npm ci there), the SVG
# with xmllint and python3.  Captures of tests/workload, and the hostile
# and big ones of tests/report-hostile.  Each script says what it checks.
FLAME_TESTS = \
	tests/test-flame-html.sh \
	tests/test-flame-svg.sh
TESTS += $(FLAME_TESTS)
EXTRA_DIST += $(FLAME_TESTS) tests/browser/package.json tests/browser/package-lock.json \
	tests/browser/flame-check.js
CLEANFILES += tests/test-flame-html-*.png
