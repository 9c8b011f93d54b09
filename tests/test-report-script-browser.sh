#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# speedscope (the npm package of tests/browser/, its own page) in Debian's
# chromium, driven by puppeteer-core (tests/browser/speedscope-check.js),
# loads what perfrec-report writes for it, as a person would (its Browse
# button, then its Sandwich view):
#   - a capture of tests/workload (burn_hot ~60 %) as --format=perf-script
#     text, which speedscope tells by its content (its linux perf
#     importer), and as --format=speedscope: both open on a thread whose
#     heaviest function by self time is burn_hot (the text's first
#     thread, with --comm workload; the file's heaviest thread, which it
#     names for speedscope to open); a screenshot of each
#     (tests/test-report-script-*.png in the build directory, to look at);
#   - report-hostile --markup's names (markup, quotes, invalid UTF-8) in
#     both: imported, no dialog, no element of theirs, shown as text.
# Every page: no uncaught exception or console error, no request but
# speedscope's own files.
#
# SKIP (77) without node, chromium, puppeteer-core or speedscope
# (scripts/setup-debian.sh installs them: chromium and nodejs from Debian,
# `npm ci` in tests/browser).
test_name=test-report-script-browser
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
needs_built "$hostile"
browser_dir=$(cd "$top_srcdir/tests/browser" && pwd)
shots=$(cd "$top_builddir/tests" && pwd)
index=$browser_dir/node_modules/speedscope/dist/release/index.html

needs_browser
[ -f "$index" ] || skip "no speedscope in $browser_dir/node_modules (npm ci there)"

check "a capture of the workload, as perf-script text and as a speedscope file"
capture "$work/capture" $favour "$workload" --seconds 3 --threads 2
# Names that say nothing of the format: speedscope goes by the content.
# It opens the text's first thread: the workload's, not the launcher's
# few samples before its exec (a thread renamed is another profile there).
report_ok "$work/workload.perf-script" --format=perf-script --comm workload "$work/capture"
report_ok "$work/out" --format=speedscope -o "$work/workload.json" "$work/capture"
"$hostile" --markup "$work/markup.prf" || fail "report-hostile --markup failed"
report_ok "$work/markup.perf-script" -q --format=perf-script "$work/markup.prf"
report_ok "$work/out" -q --format=speedscope -o "$work/markup.json" "$work/markup.prf"

# A browser takes a few hundred MB: one at a time, whatever make -j runs.
browse() {
	mode=$1
	shift
	timeout 300 node "$browser_dir/speedscope-check.js" "$mode" "$index" "$@" \
		>"$work/browser.out" 2>&1 ||
		{ cat "$work/browser.out" >&2; fail "speedscope-check.js $mode $1 failed (status $?)"; }
	sed "s/^/$test_name: /" "$work/browser.out"
}

# Chromium takes both CPUs for a while: the tests that sample wait.
hold_cpus_exclusively

check "speedscope reads our perf-script text: burn_hot heaviest by self time"
browse top "$work/workload.perf-script" burn_hot "$shots/test-report-script-perf-script.png"

check "speedscope reads our speedscope file: burn_hot heaviest by self samples"
browse top "$work/workload.json" burn_hot "$shots/test-report-script-speedscope.png"

check "hostile names stay text in both"
browse hostile "$work/markup.perf-script" '<img/src=x/onerror=alert(2)>' \
	'</script><script>alert(1)</script>' 'a&b<c>'
browse hostile "$work/markup.json" '<img/src=x/onerror=alert(2)>' \
	'</script><script>alert(1)</script>' 'a&b<c>'

exit 0
