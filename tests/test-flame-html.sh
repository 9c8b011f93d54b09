#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-report --format=html in a real browser: Debian's chromium,
# headless, driven by puppeteer-core (tests/browser/flame-check.js, which
# says what each run checks), on
#   - a capture of tests/workload (burn_hot ~60%): the search for burn_hot
#     gives the flat view's share of it (--children's Total%, which counts
#     a stack once, as the search does) within 0.5 points; inverted,
#     burn_hot right under the process is as wide as its self share within
#     0.5 points; a click zooms burn_hot to the full width; Reset and Esc
#     zoom out; the tooltip; the screenshots are not blank;
#   - report-hostile --markup (markup, quotes, U+2028, invalid UTF-8 in the
#     host, comms and symbols): no dialog, no element of theirs, shown as
#     their literal text;
#   - the same capture with --sort unit: the selector of the tree's first
#     level is labelled Unit, and so is a unit's tooltip;
#   - report-hostile --big (160,000 nodes): loaded and drawn within 5 s;
#   - tests/offcpu-fixture (off-CPU blocks and CPU samples of known
#     stacks and durations): the page holds the CPU, off-CPU and wall
#     profiles and switches between them without a reload (a click, Enter,
#     the p key); each one's header total, tooltip and search in its unit
#     (samples, or time) and equal to perfrec-report --json
#     --profile=KIND's; inverted, its widest leaf the report's heaviest
#     function (app_main for CPU, schedule for the others) as wide as its
#     share; --profile=off-cpu opens on the off-CPU one; --waker puts the
#     wakers' stacks above a "--" frame; the pages of one profile (the
#     fixture with --no-off-cpu, the workload) have no switch;
#   - report-hostile's lying OFF_CPU records (--waker): each profile drawn,
#     no markup of theirs in the page.
# Every page: no console error, no request but the file itself.
#
# Before the browser, the files themselves: one file that names no other
# (no URL, src=, href=, url(), @import), and two script elements however
# hostile the names.  Screenshots are kept as tests/test-flame-html-*.png
# in the build directory, to look at.
#
# SKIP (77) without node, chromium or puppeteer-core (scripts/setup-debian.sh
# installs them: chromium and nodejs from Debian, `npm ci` in tests/browser).
test_name=test-flame-html
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
offcpu_fixture=$top_builddir/tests/offcpu-fixture
needs_built "$hostile" "$offcpu_fixture"
browser_dir=$(cd "$top_srcdir/tests/browser" && pwd)
shots=$(cd "$top_builddir/tests" && pwd)

# The page alone: no reference to anything outside it.
static_checks() {
	page=$1
	scripts=$(grep -o -i '<script' "$page" | wc -l)
	closes=$(grep -o -i '</script' "$page" | wc -l)
	[ "$scripts" -eq 2 ] && [ "$closes" -eq 2 ] ||
		fail "$page: $scripts '<script' and $closes '</script', expected 2 and 2"
	# The data block is JSON strings, names with '<' escaped: not markup.
	if awk '/^<script type="application\/json"/ { data = 1 } !data { print } /^<\/script>/ { data = 0 }' "$page" |
		grep -n -i -E 'https?:|//[a-z0-9.-]+\.[a-z]{2,}/|src=|href=|url\(|@import' >"$work/references"; then
		head -n 5 "$work/references" >&2
		fail "$page refers to something outside itself"
	fi
}

check "a capture of the workload; the flat view of it"
capture "$work/capture" $favour "$workload" --seconds 3 --threads 2
report_ok "$work/flat" "$work/capture"
self=$(flat_percent "$work/flat" burn_hot workload)
report_ok "$work/children" --children "$work/capture"
total=$(flat_total "$work/children" burn_hot workload)
[ -n "$total" ] || fail "no burn_hot row in the flat view"
note "flat view: burn_hot self $self%, with callees $total%"

check "perfrec-report -o FILE.html writes one file that refers to nothing else"
report_ok "$work/out" -o "$work/workload.html" "$work/capture"
[ ! -s "$work/out" ] || fail "-o FILE.html also printed to stdout"
static_checks "$work/workload.html"
note "$(wc -c <"$work/workload.html") bytes"

check "the page says what the tree's first level is: processes, or units with --sort unit"
grep -q '"first_level":"Process"' "$work/workload.html" || fail "the default page's first level is not Process"
report_ok "$work/out" --sort unit -o "$work/units.html" "$work/capture"
static_checks "$work/units.html"
grep -q '"first_level":"Unit"' "$work/units.html" || fail "--sort unit: the page's first level is not Unit"

check "markup in the capture's names cannot close the data's script element"
"$hostile" --markup "$work/markup.prf" || fail "report-hostile --markup failed"
report_ok "$work/out" --format=html -o "$work/markup.html" "$work/markup.prf"
static_checks "$work/markup.html"
grep -q 'alert(1)' "$work/markup.html" || fail "the hostile names are not in the page at all"

"$hostile" --big "$work/big.prf" || fail "report-hostile --big failed"
report_ok "$work/out" -o "$work/big.html" "$work/big.prf"
note "big tree page: $(wc -c <"$work/big.html") bytes"

check "off-CPU records: three profiles in one page, each tree once, each name once; --waker's '--' frames"
"$offcpu_fixture" "$work/offcpu.prf" || fail "offcpu-fixture failed"
"$offcpu_fixture" --no-off-cpu "$work/cpu-only.prf" || fail "offcpu-fixture --no-off-cpu failed"
report_ok "$work/out" -o "$work/offcpu.html" "$work/offcpu.prf"
report_ok "$work/out" --profile=off-cpu -o "$work/offcpu-first.html" "$work/offcpu.prf"
report_ok "$work/out" --profile=off-cpu --waker -o "$work/waker.html" "$work/offcpu.prf"
report_ok "$work/out" -o "$work/cpu-only.html" "$work/cpu-only.prf"
# OFF_CPU records that lie, wakers' names with escapes (report-hostile).
"$hostile" "$work/hostile" || fail "report-hostile failed"
report_ok "$work/out" --profile=off-cpu --waker -q -o "$work/hostile-offcpu.html" \
	"$work/hostile/off-cpu.prf"
for page in offcpu offcpu-first waker cpu-only hostile-offcpu; do
	static_checks "$work/$page.html"
done
# The page's profiles: their kinds in order, the one shown first, and
# whether a frame is named "--" (--waker).
page_profiles() {
	python3 - "$1" <<'EOF'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = re.search(r'<script type="application/json" id="flame-data">\n(.*?)</script>', text, re.S)
data = json.loads(block.group(1))
names = {data["strings"][data["symbols"][5 * s]] for p in data["profiles"]
         for s in p["nodes"][0::6] if s >= 0}
symbols = [tuple(data["symbols"][i:i + 5]) for i in range(0, len(data["symbols"]), 5)]
# Each name and symbol once, whichever profiles use it.
assert len(set(data["strings"])) == len(data["strings"]), "a name twice"
assert len(set(symbols)) == len(symbols), "a symbol twice"
print(" ".join(p["kind"] for p in data["profiles"]), data["shown"],
      "waker" if "--" in names else "-")
EOF
}
[ "$(page_profiles "$work/offcpu.html")" = "cpu off-cpu wall 0 -" ] ||
	fail "the page of off-CPU records: $(page_profiles "$work/offcpu.html")"
[ "$(page_profiles "$work/offcpu-first.html")" = "cpu off-cpu wall 1 -" ] ||
	fail "--profile=off-cpu: $(page_profiles "$work/offcpu-first.html")"
[ "$(page_profiles "$work/waker.html")" = "cpu off-cpu wall 1 waker" ] ||
	fail "--waker: $(page_profiles "$work/waker.html")"
[ "$(page_profiles "$work/cpu-only.html")" = "cpu 0 -" ] ||
	fail "a capture without off-CPU records: $(page_profiles "$work/cpu-only.html")"
note "$(wc -c <"$work/offcpu.html") bytes for three profiles, $(wc -c <"$work/cpu-only.html") for the CPU one alone"
# What the browser should see: each profile as perfrec-report --json says it.
for kind in cpu off-cpu wall; do
	report_ok "$work/$kind.json" --json --profile=$kind "$work/offcpu.prf"
done
python3 - "$work" off-cpu >"$work/expected-off-cpu.json" <<'EOF'
import json, sys
out = {"first": sys.argv[2], "profiles": {}}
for kind in ("cpu", "off-cpu", "wall"):
    r = json.load(open("%s/%s.json" % (sys.argv[1], kind)))
    by_name = {}
    for e in r["entries"]:
        by_name[e["symbol"]] = by_name.get(e["symbol"], 0) + e["self_period"]
    top = max(by_name.items(), key=lambda item: item[1])
    out["profiles"][kind] = {
        "total_period": r["total_period"], "total_samples": r["total_samples"],
        "header_samples": r["header"]["samples"],
        "top": top[0], "top_percent": 100.0 * top[1] / r["total_period"],
    }
json.dump(out, sys.stdout)
EOF
sed 's/"first": "off-cpu"/"first": "cpu"/' "$work/expected-off-cpu.json" >"$work/expected-cpu.json"
note "expected: $(cat "$work/expected-cpu.json")"

needs_browser

# A browser takes a few hundred MB: one at a time, whatever make -j runs.
browse() {
	timeout 300 node "$browser_dir/flame-check.js" "$@" >"$work/browser.out" 2>&1 ||
		{ cat "$work/browser.out" >&2; fail "flame-check.js $1 failed (status $?)"; }
	sed "s/^/$test_name: /" "$work/browser.out"
}

# Chromium takes both CPUs for a while: the tests that sample wait, as
# their workloads would lose the CPU time their checks count on.
hold_cpus_exclusively

check "in chromium: search, zoom, reset, tooltip, inverted view, screenshot (workload)"
browse workload "$work/workload.html" "$total" "$self" "$shots/test-flame-html-workload.png"
shares=$(sed -n 's/.*search burn_hot: "Matched: \([0-9.]*\)%.*/\1/p' "$work/browser.out")
# Self is less by the samples of kernel code on top of burn_hot: a note.
note "search share $shares%; flat view: self $self%, with callees $total%"

check "in chromium: the selector and tooltips of --sort unit's first level say Unit"
browse first-level "$work/units.html" Unit

check "in chromium: hostile names stay text"
browse hostile "$work/markup.html" "$shots/test-flame-html-hostile.png"

check "in chromium: a tree of 100,000 nodes and more loads and draws within 5 s"
browse big "$work/big.html" 5000

check "in chromium: the CPU, off-CPU and wall profiles of one capture, switched without a reload"
browse profiles "$work/offcpu.html" "$work/expected-cpu.json" wait_pipe "$shots/test-flame-html-profiles.png"
browse profiles "$work/offcpu-first.html" "$work/expected-off-cpu.json" wait_pipe \
	"$shots/test-flame-html-profiles-first.png"

check "in chromium: report-hostile's lying OFF_CPU records, each profile drawn"
browse switch "$work/hostile-offcpu.html"

check "in chromium: a capture without off-CPU records has no switch"
browse first-level "$work/cpu-only.html" Process
note "PASS"
