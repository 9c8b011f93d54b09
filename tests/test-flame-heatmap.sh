#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flame graph page's heatmap and ranges (perfrec-report --format=html
# with time data: reader/report/flame/flame-time.c, flame.js) in Debian's
# chromium, driven by puppeteer-core (tests/browser/heatmap-check.js says
# what each run checks), on a capture of tests/phases-workload (burn_phase_a
# for 2 s, burn_phase_b for 2 s, twice; it prints when each phase started,
# in UTC and on the capture's clock):
#   - each whole UTC second of the capture: the heatmap's 1 s column has
#     the samples of perfrec-report --since/--until of that second (the
#     flat view's, an independent reading of the same files);
#   - a second inside each phase (by the workload's own clock, on the
#     page's 100 ms slots) selected:
#     that phase's function >= 95 % of the flame graph's width, inverted
#     too; the command the page prints, run here, has the same function
#     on top;
#   - a drag of the mouse over the heatmap selects those columns; the
#     hover readout; one phase's range against the other's as the
#     baseline: the differential graph, the function at about +100 points;
#   - tests/offcpu-fixture: the CPU, off-CPU and wall profiles' heatmaps
#     hold their totals (samples, nanoseconds), a range is kept across
#     the switch;
#   - report-hostile --markup: names in the series' keys and the range's
#     process list stay text; a page of one instant (a capture cut to a
#     microsecond around one sample) has no heatmap and is drawn;
#   - report-hostile --times' far-after (a sample at 2^63 in a capture of
#     2 s) under a name with $(...), backquotes, quotes and spaces: the
#     page loads, and the command it prints, run by sh as pasted, reads
#     that file and runs nothing else; under a name with a newline, which
#     the page cannot say as it is, the command names no file (CAPTURE...).
# Every page: no console error, no request but the file itself.  The
# screenshot (tests/test-flame-heatmap.png in the build directory) is
# kept to look at.
#
# SKIP (77) without node, chromium or puppeteer-core (as test-flame-html.sh).
test_name=test-flame-heatmap
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

phases=$top_builddir/tests/phases-workload
hostile=$top_builddir/tests/report-hostile
offcpu_fixture=$top_builddir/tests/offcpu-fixture
needs_built "$phases" "$hostile" "$offcpu_fixture"
browser_dir=$(cd "$top_srcdir/tests/browser" && pwd)
shots=$(cd "$top_builddir/tests" && pwd)

command -v python3 >/dev/null 2>&1 || skip "no python3"

check "a capture of phases-workload, its page"
capture "$work/capture" $favour "$phases" --phase 2 --cycles 2
cp "$work/command.out" "$work/phases.out"
sed "s/^/$test_name: workload: /" "$work/phases.out"
[ "$(grep -c '^phase ' "$work/phases.out")" -eq 4 ] || fail "phases-workload printed no 4 phases"
report_ok "$work/out" -o "$work/phases.html" "$capture_file"
grep -q '"time":{"origin_ns":' "$work/phases.html" || fail "the page has no time data"
note "$(wc -c <"$work/phases.html") bytes"

check "the flat view of each whole second, and a second inside each phase, by the workload's clock"
python3 - "$work/phases.out" "$report" "$capture_file" >"$work/expected.json" <<'PY' ||
import json, math, subprocess, sys, time
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
starts = [(l[1], float(l[2])) for l in lines if l[0] == "phase"]
end = [float(l[1]) for l in lines if l[0] == "end"][0]
iso = lambda s: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
def samples(a, b):
    out = subprocess.run([sys.argv[2], "--json", "--since", iso(a), "--until", iso(b), sys.argv[3]],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["total_samples"]
first, last = math.ceil(starts[0][1]), math.floor(end)
seconds = [{"startMs": s * 1000, "samples": samples(s, s + 1)} for s in range(first, last)]
# The first phase of each function: a second inside it, from the first 100 ms
# slot (the page's, for a capture this long) 0.1 s or more after its start,
# so 0.1-0.2 s from its start and 0.7-0.8 s from its end (a whole UTC second
# fits in a 2 s phase 0.1 s from both ends only when it starts in the first
# 0.9 s of a second: one run in ten took 0.07 s of the next phase).
phases = []
for name, at in starts[:2]:
    from_ms = math.ceil((at * 1000 + 100) / 100) * 100
    phases.append({"fn": "burn_phase_" + name, "fromMs": from_ms, "toMs": from_ms + 1000})
json.dump({"seconds": seconds, "phases": phases}, sys.stdout)
PY
	fail "the expected figures could not be computed"
note "expected: $(cut -c1-300 "$work/expected.json")"

check "hostile names; a capture of one instant"
"$hostile" --markup "$work/markup.prf" || fail "report-hostile --markup failed"
report_ok "$work/out" -o "$work/markup.html" "$work/markup.prf"
grep -q '"time":{' "$work/markup.html" || fail "the hostile page has no time data"
# One sample's time, and a microsecond around it, relative to the start.
window=$("$report" --view=samples --json "$capture_file" | python3 -c '
import json, sys
first = json.loads(sys.stdin.readline())
print(first["time_ns"])')
start=$("$report" --json "$capture_file" | python3 -c 'import json, sys; print(json.load(sys.stdin)["header"]["start_ns"])')
since=$(python3 -c "print('+%.9f' % (($window - $start - 500) / 1e9))")
until=$(python3 -c "print('+%.9f' % (($window - $start + 500) / 1e9))")
report_ok "$work/out" --since "$since" --until "$until" -o "$work/instant.html" "$capture_file"
"$offcpu_fixture" "$work/offcpu.prf" || fail "offcpu-fixture failed"
report_ok "$work/out" -o "$work/offcpu.html" "$work/offcpu.prf"

needs_browser

browse() {
	timeout 300 node "$browser_dir/heatmap-check.js" "$@" >"$work/browser.out" 2>&1 ||
		{ cat "$work/browser.out" >&2; fail "heatmap-check.js $1 failed (status $?)"; }
	sed "s/^/$test_name: /" "$work/browser.out"
}

hold_cpus_exclusively

check "in chromium: column totals, a phase's range, the mouse, a baseline range, screenshot"
browse phases "$work/phases.html" "$work/expected.json" "$shots/test-flame-heatmap.png"

check "the command the page prints for each phase gives that phase's function first"
grep '^command: ' "$work/browser.out" >"$work/commands"
[ "$(wc -l <"$work/commands")" -eq 2 ] || fail "the page printed $(wc -l <"$work/commands") commands"
while read -r _ fn perfrec_report arguments; do
	[ "$perfrec_report" = perfrec-report ] || fail "not a perfrec-report command: $perfrec_report"
	# The page names the file as it was given to perfrec-report: here, absolute.
	eval "set -- $arguments"
	report_ok "$work/range" "$@"
	top=$(flat_rows "$work/range" | head -n 1 | cut -f 4)
	note "$fn: perfrec-report $arguments: top $top"
	[ "$top" = "$fn" ] || fail "the page's command for $fn shows $top first"
done <"$work/commands"

check "in chromium: hostile names stay text in the series and the range"
browse hostile "$work/markup.html"

check "in chromium: the CPU, off-CPU and wall profiles' heatmaps and ranges, in their units"
browse profiles "$work/offcpu.html"

check "in chromium: one instant, no heatmap, the graph drawn"
browse none "$work/instant.html"

check "in chromium: a hostile file name in the printed command, run by sh"
"$hostile" --times "$work/times" || fail "report-hostile --times failed"
mkdir "$work/named" "$work/bin"
# shellcheck disable=SC2016
named="$work/named/\$(touch pwned) it's \"q\" \`touch pwned\` -x.prf"
cp "$work/times/far-after.prf" "$named"
report_ok "$work/out" -o "$work/named.html" "$named"
browse command "$work/named.html" "$work/command"
# As pasted into sh, with perfrec-report the one built here.
ln -s "$(cd "$(dirname "$report")" && pwd)/$(basename "$report")" "$work/bin/perfrec-report"
(cd "$work" && PATH=$work/bin:$PATH sh "$work/command") >"$work/named.out" 2>"$work/named.err" ||
	fail "the page's command failed: $(head -n 2 "$work/named.err")"
[ -e "$work/pwned" ] && fail "the page's command ran what the file's name holds"
grep -q '^# files: 1 ' "$work/named.out" || fail "the page's command read no file: $(head -n 5 "$work/named.out")"
note "the command read the file, ran nothing else: $(cat "$work/command")"
# A name the page cannot say as it is (a newline): no name, not another one.
named="$work/named/new
line.prf"
cp "$work/times/far-after.prf" "$named"
report_ok "$work/out" -o "$work/newline.html" "$named"
browse command "$work/newline.html" "$work/command"
case $(cat "$work/command") in
*" CAPTURE...") note "a name with a newline: $(cat "$work/command")" ;;
*) fail "a name with a newline: the page's command names $(cat "$work/command")" ;;
esac
note "PASS"
