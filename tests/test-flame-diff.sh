#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Differential flame graphs, perfrec-report --baseline BASE --format=svg
# and html, on two captures of tests/workload as test-report-baseline.sh
# makes them: --mix 60,30,10 then 20,30,50 (burn_hot shrinks by about 40
# points, burn_cold grows by as much).  --comm workload and --no-inline,
# so that inverted, burn_hot right under the process is its flat self
# share exactly (no inlined frame on top of it):
#   - SVG, inverted: burn_hot's frame is blue-ish and its title gives
#     both shares and the change within 0.02 of the flat diff's delta;
#     burn_cold's red-ish likewise; the root grey, unchanged; well-formed
#     (xmllint), the header names the baseline;
#   - SVG, caller-first: every title gives the change or says "new";
#   - HTML in chromium (tests/browser/flame-check.js diff): the header and
#     legend name the baseline, hovering burn_hot shows both shares and a
#     negative change, colours, search and zoom, and the inverted view's
#     changes equal to the flat diff's within 0.02; no console error, no
#     request but the page.  Screenshots: tests/test-flame-diff*.png in
#     the build directory.
#
# SKIP (77) at the browser part without node, chromium or puppeteer-core,
# as test-flame-html.sh.
test_name=test-flame-diff
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v xmllint >/dev/null 2>&1 || skip "no xmllint (apt-get install libxml2-utils)"
command -v python3 >/dev/null 2>&1 || skip "no python3 (apt-get install python3)"
browser_dir=$(cd "$top_srcdir/tests/browser" && pwd)
shots=$(cd "$top_builddir/tests" && pwd)

check "two captures: --mix 60,30,10 then --mix 20,30,50; the flat diff"
capture "$work/base" $favour "$workload" --seconds 4 --threads 2 --mix 60,30,10
base=$capture_file
capture "$work/new" $favour "$workload" --seconds 4 --threads 2 --mix 20,30,50
new=$capture_file
report_ok "$work/diff" --comm workload --baseline "$base" "$new"
# delta FUNCTION: the flat diff's change for it ("-39.80").
delta() {
	awk -v f="$1" '!/^#/ && $5 == f && $6 == "workload" { print $3 + 0; found = 1 } END { if (!found) print "none" }' "$work/diff"
}
hot=$(delta burn_hot)
cold=$(delta burn_cold)
note "flat diff: burn_hot $hot, burn_cold $cold"
awk -v h="$hot" -v c="$cold" 'BEGIN { exit !(h < -20 && c > 20) }' ||
	fail "burn_hot should shrink and burn_cold grow: $hot, $cold"

# svg_frame FILE NAME: "NOW BASE CHANGE R G B" of NAME's widest frame.
svg_frame() {
	python3 - "$1" "$2" <<'PY'
import re
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
best = None
for g in root.iter(ns + "g"):
    if g.get("class") != "frame":
        continue
    title = g.find(ns + "title").text
    rect = g.find(ns + "rect")
    if title.split("\n")[0] != sys.argv[2]:
        continue
    if best is None or float(rect.get("width")) > float(best[1].get("width")):
        best = (title, rect)
if best is None:
    sys.exit("no frame of %s" % sys.argv[2])
m = re.search(r"([0-9.]+)% \(baseline ([0-9.]+)%, ([-+][0-9.]+)\)$", best[0])
if not m:
    sys.exit("the title of %s gives no change: %r" % (sys.argv[2], best[0]))
fill = best[1].get("fill")
print(m.group(1), m.group(2), m.group(3), int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16))
PY
}

check "SVG, inverted: burn_hot blue-ish, burn_cold red-ish, their changes the flat diff's"
report_ok "$work/out" --comm workload --no-inline --callee --baseline "$base" --format=svg \
	-o "$work/inverted.svg" "$new"
xmllint --noout "$work/inverted.svg" || fail "the differential SVG is not well-formed"
grep -q '>perfrec differential flame graph' "$work/inverted.svg" || fail "the SVG does not say it is a comparison"
grep -q ">Baseline: [0-9]* samples, 1 file ([^)]*$(basename "$base"))" "$work/inverted.svg" ||
	fail "the SVG's header does not name the baseline: $(grep -m1 '>Baseline' "$work/inverted.svg")"
grep -q '>Gone: ' "$work/inverted.svg" || fail "the SVG does not say what of the baseline is gone"
for f in burn_hot burn_cold; do
	frame=$(svg_frame "$work/inverted.svg" $f) || fail "$f: see above"
	set -- $frame
	note "$f: $1% (baseline $2%, $3), fill rgb($4,$5,$6); the flat diff $(delta $f)"
	within "$3" "$(delta $f)" 0.02 || fail "$f: the title's change $3, the flat diff's $(delta $f)"
	if [ $f = burn_hot ]; then
		[ "$6" -gt $(($4 + 60)) ] || fail "$f shrank but is not blue-ish: rgb($4,$5,$6)"
	else
		[ "$4" -gt $(($6 + 60)) ] || fail "$f grew but is not red-ish: rgb($4,$5,$6)"
	fi
done
grep -A1 -x '<g class="frame"><title>all' "$work/inverted.svg" | tail -n 1 |
	grep -q '^[0-9]* samples, 100.00% (baseline 100.00%, +0.00)</title><rect [^>]*fill="#e0e0e0"' ||
	fail "the root is not grey, unchanged"

check "SVG, caller-first: every frame's title gives the change, or says it is new"
report_ok "$work/out" --baseline "$base" -o "$work/diff.svg" "$new"
xmllint --noout "$work/diff.svg" || fail "the differential SVG is not well-formed"
frames=$(grep -c '<g class="frame">' "$work/diff.svg")
changes=$(grep -c -E '% \(baseline [0-9.]+%, [-+][0-9.]+\)</title>|% \(new: not in the baseline\)</title>' "$work/diff.svg")
note "$frames frames, $changes titles with a change"
[ "$frames" -gt 5 ] && [ "$frames" -eq "$changes" ] || fail "$frames frames, $changes titles with a change"

check "HTML: one file, two script elements, the baseline's numbers in the data"
report_ok "$work/out" --comm workload --no-inline --baseline "$base" -o "$work/diff.html" "$new"
[ "$(grep -o -i '<script' "$work/diff.html" | wc -l)" -eq 2 ] || fail "not two script elements"
grep -q '^"baseline":{"total_period":[1-9]' "$work/diff.html" || fail "no baseline in the page's data"

needs_browser
hold_cpus_exclusively

check "in chromium: header, legend, tooltips and colours, search, zoom, the inverted view's changes"
timeout 300 node "$browser_dir/flame-check.js" diff "$work/diff.html" "$hot" "$cold" \
	"$shots/test-flame-diff.png" >"$work/browser.out" 2>&1 ||
	{ cat "$work/browser.out" >&2; fail "flame-check.js diff failed (status $?)"; }
sed "s/^/$test_name: /" "$work/browser.out"
note "PASS"
