#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The timeline (perfrec-report --view=timeline), against the workload's
# own clock: perfrecd records tests/phases-workload (burn_phase_a for 2.5 s,
# burn_phase_b for 2.5 s, twice; it prints when each phase starts, in UTC
# and CLOCK_MONOTONIC, the captures' clock).  The 1 s intervals start at
# the capture's start, the phases when the workload gets there: a phase
# of 2.5 s holds a whole interval 0.2 s from both its ends whatever that
# delay.  (A 2 s phase holds one only when it starts 0.2 to 0.8 s past an
# interval's start: started 0.5 s in, the workload had 0.3 s to get there,
# and a delay of 0.3 to 0.7 s more left no interval to check.)  Checked:
#   - every interval that lies wholly inside a phase (0.2 s margins, by the
#     printed times against the capture's start) has that phase's function
#     as its top key, with >= 90 % of the interval's samples; the text and
#     the JSON say the same; the first interval's UTC start is the
#     capture's start by the workload's own clock offset;
#   - the JSON parses, and its intervals' samples and periods add up to
#     the flat view's totals;
#   - -j 1 and -j 4 give the same output; so do the capture's files
#     recoded verbatim (perfrecd writes compact samples);
#   - --since/--until over one phase: the intervals start at --since, and
#     are all that phase's function;
#   - off-CPU and wall timelines of tests/offcpu-fixture (blocks of known
#     lengths at known times): the known time per 5 ms interval;
#   - hostile names (tests/report-hostile's names.prf) escaped in text and
#     JSON; ASCII sparklines but in a UTF-8 locale; -w fits the lines;
#   - a bad --interval, one too small for the range, and the options the
#     timeline does not take: exit 2 with a line saying why.
test_name=test-report-timeline
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

phases=$top_builddir/tests/phases-workload
recode=$top_builddir/tests/recode
offcpu_fixture=$top_builddir/tests/offcpu-fixture
hostile=$top_builddir/tests/report-hostile
needs_built "$phases" "$recode" "$offcpu_fixture" "$hostile"
phases=$(readlink -f "$phases")
command -v python3 >/dev/null 2>&1 || skip "no python3 (apt-get install python3)"

check "perfrecd records tests/phases-workload --phase 2.5 --cycles 2 (a new file every second)"
dir=$work/compact
# Favoured (report-lib.sh): preempted less, the phases' samples stay theirs.
"$perfrecd" -d 120 -F 999 --rotate-age 1s -o "$dir" -- \
	$favour "$phases" --phase 2.5 --cycles 2 >"$work/phases" \
	2>"$work/daemon.err" || fail "perfrecd -- phases-workload: status $?"
files=$(file_count "$dir")
note "$files capture files; the workload printed: $(tr '\n' ' ' <"$work/phases")"
[ "$files" -ge 2 ] || fail "only $files capture file with --rotate-age 1s over 10 s"
[ "$(grep -c '^phase ' "$work/phases")" -eq 4 ] || fail "the workload did not print its 4 phases"

report_ok "$work/tl.json" --view=timeline --interval 1s --json "$dir"
report_ok "$work/tl.txt" --view=timeline --interval 1s "$dir"
report_ok "$work/flat.json" --json "$dir"

check "--interval 1s: each interval inside a phase has its function on top with >= 90 % of its samples; text and JSON agree"
python3 - "$work/phases" "$work/tl.json" "$work/tl.txt" <<'EOF' || fail "the timeline does not follow the phases"
import datetime, json, sys

phases = [line.split() for line in open(sys.argv[1])]
d = json.load(open(sys.argv[2]))
text = [line.split() for line in open(sys.argv[3]) if not line.startswith("#")]

def ns(seconds):
    whole, _, fraction = seconds.partition(".")
    return int(whole) * 10**9 + int((fraction + "000000000")[:9])

# Phase i runs from its line's monotonic time to the next line's.
spans = [(p[1], ns(p[-1]), ns(n[-1])) for p, n in zip(phases, phases[1:])]
start, step = d["start_ns"], d["interval_ns"]
header = d["header"]
assert step == 10**9, step
expected = -(-(header["end_ns"] - header["start_ns"]) // step)
assert start == header["start_ns"], (start, header["start_ns"])
assert len(d["intervals"]) == expected, (len(d["intervals"]), expected)
assert len(text) == expected, (len(text), expected)

# The first interval's UTC start: the capture's start by the workload's clocks.
offset = ns(phases[0][-2]) - ns(phases[0][-1])
utc = datetime.datetime.strptime(d["intervals"][0]["start"], "%Y-%m-%dT%H:%M:%S.%fZ")
shown = int((utc - datetime.datetime(1970, 1, 1)).total_seconds() * 1000 + 0.5)
want = (start + offset) // 10**6
print("first interval %s, by the workload's clocks %d ms since 1970, shown %d" %
      (d["intervals"][0]["start"], want, shown))
assert abs(shown - want) <= 2, (shown, want)

margin = 200 * 10**6
checked = set()
for i, (interval, line) in enumerate(zip(d["intervals"], text)):
    assert interval["start_ns"] == start + i * step
    # The text: start, samples, then the top key's share, mark and name.
    assert line[0] == interval["start"] and int(line[1]) == interval["samples"], (line, interval)
    if interval["top"]:
        assert line[3] + " " + line[4] == " ".join(interval["top"][0]["key"].split()[:2]), line
    t0, t1 = interval["start_ns"], interval["start_ns"] + step
    for phase, begin, end in spans:
        if phase in ("a", "b") and begin + margin <= t0 and t1 <= end - margin:
            top = interval["top"][0] if interval["top"] else {"key": "", "samples": 0}
            share = 100.0 * top["samples"] / max(interval["samples"], 1)
            print("interval %d (%s) inside phase %s: %d samples, top %s at %.2f %%" %
                  (i, interval["start"], phase, interval["samples"], top["key"], share))
            assert interval["samples"] >= 20, "too few samples"
            assert top["key"].startswith("[.] burn_phase_%s " % phase), top["key"]
            assert share >= 90, share
            checked.add(i)
assert len(checked) >= 4, "only %d intervals inside a phase" % len(checked)
EOF

check "the JSON's intervals add up to the flat view's totals"
python3 - "$work/tl.json" "$work/flat.json" <<'EOF' || fail "the intervals do not add up to the flat view"
import json, sys

timeline, flat = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
samples = sum(i["samples"] for i in timeline["intervals"])
period = sum(i["period"] for i in timeline["intervals"])
rows = sum(e["self_samples"] for e in flat["entries"])
print("timeline %d samples (period %d); flat %d samples in %d rows (period %d), header %d" %
      (samples, period, flat["total_samples"], len(flat["entries"]), flat["total_period"],
       flat["header"]["samples"]))
assert samples == flat["total_samples"] == rows == flat["header"]["samples"]
assert period == flat["total_period"]
assert samples == timeline["total_samples"]
EOF

check "-j 1 and -j 4, text and JSON, and the default interval: the same output"
for jobs in 1 4; do
	report_ok "$work/j$jobs.txt" --view=timeline --interval 1s -j "$jobs" "$dir"
	report_ok "$work/j$jobs.json" --view=timeline --interval 1s --json -j "$jobs" "$dir"
	report_ok "$work/j$jobs-default.txt" --view=timeline --sort comm,sym -j "$jobs" "$dir"
done
for out in .txt .json -default.txt; do
	cmp "$work/j1$out" "$work/j4$out" || fail "-j 1 and -j 4 differ (j1$out, j4$out)"
done
cmp "$work/j1.txt" "$work/tl.txt" || fail "-j 1 differs from the default -j"
lines=$(grep -vc '^#' "$work/j1-default.txt")
note "the default interval: $(sed -n 's/^# timeline: \([0-9]* intervals of [^,]*\),.*/\1/p' "$work/j1-default.txt"), $lines lines"
[ "$lines" -gt 1 ] && [ "$lines" -le 60 ] || fail "the default interval gave $lines lines (expected 2 to 60)"

check "the capture recoded verbatim (perfrecd wrote compact samples): the same timeline"
mkdir "$work/verbatim"
for file in $(files_in "$dir"); do
	"$recode" --encoding verbatim "$file" "$work/verbatim/${file##*/}" ||
		fail "recode --encoding verbatim $file: status $?"
done
report_ok "$work/verbatim.txt" --view=timeline --interval 1s "$work/verbatim"
report_ok "$work/verbatim.json" --view=timeline --interval 1s --json "$work/verbatim"
cmp "$work/tl.txt" "$work/verbatim.txt" || fail "the verbatim files' timeline differs"
python3 - "$work/tl.json" "$work/verbatim.json" <<'EOF' || fail "the verbatim files' JSON differs"
import json, sys

a, b = (json.load(open(name)) for name in sys.argv[1:3])
del a["header"]["file_names"], b["header"]["file_names"]
assert a == b
EOF

check "--since/--until over 1.5 s of the first phase b, --interval 500ms: 3 intervals from --since, all burn_phase_b"
set -- $(python3 - "$work/phases" "$work/tl.json" <<'EOF'
import json, sys

phases = [line.split() for line in open(sys.argv[1])]
start = json.load(open(sys.argv[2]))["start_ns"]
def ns(seconds):
    whole, _, fraction = seconds.partition(".")
    return int(whole) * 10**9 + int((fraction + "000000000")[:9])
b = [i for i, p in enumerate(phases) if p[:2] == ["phase", "b"]][0]
# Three whole intervals of 500 ms, 0.25 s inside the phase's 2.5 s at either end.
since = (ns(phases[b][-1]) - start) / 1e9 + 0.25
assert since + 1.5 <= (ns(phases[b + 1][-1]) - start) / 1e9 - 0.2
print("%.3f %.3f" % (since, since + 1.5))
EOF
)
since=$1 until=$2
note "phase b from the capture's start: --since +$since --until +$until"
report_ok "$work/range.json" --view=timeline --interval 500ms --json --since "+$since" --until "+$until" "$dir"
report_ok "$work/range.txt" --view=timeline --interval 500ms --since "+$since" --until "+$until" "$dir"
report_ok "$work/range-flat.json" --json --since "+$since" --until "+$until" "$dir"
python3 - "$work/range.json" "$work/range-flat.json" "$since" <<'EOF' || fail "the range's timeline is wrong"
import json, sys

d, flat = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
since = float(sys.argv[3])
first = d["header"]["start_ns"] + round(since * 1e9)
print("range: starts at %s (%d ns), %d intervals of %d ns" %
      (d["start"], d["start_ns"], len(d["intervals"]), d["interval_ns"]))
assert abs(d["start_ns"] - first) <= 1000, (d["start_ns"], first)
assert d["interval_ns"] == 500 * 10**6
assert len(d["intervals"]) == 3, len(d["intervals"])
for i in d["intervals"]:
    top = i["top"][0] if i["top"] else {"key": "", "samples": 0, "share": 0}
    print("  %s: %d samples, %s %.2f %%" % (i["start"], i["samples"], top["key"], top["share"]))
    assert i["samples"] >= 20, "too few samples"
    assert top["key"].startswith("[.] burn_phase_b ") and top["samples"] * 100 >= 90 * i["samples"]
assert sum(i["samples"] for i in d["intervals"]) == flat["total_samples"]
EOF
grep -q "^# timeline: [0-9]* intervals of 500ms, $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["start"])' "$work/range.json") to " "$work/range.txt" ||
	fail "the text's range is not the JSON's: $(grep '^# timeline' "$work/range.txt")"

check "off-CPU and wall timelines of tests/offcpu-fixture: the known time per 5 ms interval"
# Its figures (offcpu-fixture.c): CPU samples of 1 ms at 1 ... 35 ms after
# its start, then blocks starting at 36, 37, 38 ms (10 ms each), 39, 40
# (5 ms), 41 ... 44 (2.5 ms): blocked 35 ms in 4 blocks in [35, 40) ms,
# 15 ms in 5 in [40, 45); wall adds the samples' milliseconds.
"$offcpu_fixture" "$work/offcpu.prf" || fail "offcpu-fixture: status $?"
report_ok "$work/off.json" --view=timeline --profile=off-cpu --interval 5ms --json "$work/offcpu.prf"
report_ok "$work/off.txt" --view=timeline --profile=off-cpu --interval 5ms "$work/offcpu.prf"
report_ok "$work/wall.json" --view=timeline --profile=wall --interval 5ms --json "$work/offcpu.prf"
python3 - "$work/off.json" "$work/wall.json" <<'EOF' || fail "the off-CPU or wall timeline is not the fixture's"
import json, sys

off, wall = (json.load(open(name)) for name in sys.argv[1:3])
ms = 10**6
got = [(i["period"], i["samples"]) for i in off["intervals"]]
print("off-CPU (ns, blocks) per 5 ms:", got)
assert got == [(0, 0)] * 7 + [(35 * ms, 4), (15 * ms, 5)], got
assert off["intervals"][7]["top"][0]["key"] == "[k] schedule [kernel.kallsyms]"
got = [i["period"] // 1000 for i in wall["intervals"]]
print("wall (us) per 5 ms:", got)
assert got == [4000] + [5000] * 6 + [36000, 15000], got
EOF
grep -q '^1970-01-01T00:16:40\.035Z  35\.000       4  100\.00% \[k\] schedule \[kernel\.kallsyms\]$' "$work/off.txt" ||
	fail "the off-CPU text has no line of 35.000 ms in 4 blocks at 40.035: $(grep -v '^#' "$work/off.txt" | sed -n 8p)"

check "hostile names (report-hostile's names.prf) stay escaped in the text and the JSON"
mkdir "$work/hostile"
"$hostile" "$work/hostile" >/dev/null || fail "report-hostile: status $?"
# C0 but tab and newline; DEL; C1 as UTF-8; bytes that are no UTF-8.
raw_controls() {
	grep -aqP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" ||
		! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}
for sort in comm sym comm,pid,tid,dso,sym,srcline; do
	report_ok "$work/names.txt" --view=timeline --top 100 --sort "$sort" --lines "$work/hostile/names.prf"
	report_ok "$work/names.json" --view=timeline --top 100 --sort "$sort" --lines --json \
		"$work/hostile/names.prf"
	! raw_controls "$work/names.txt" ||
		fail "--sort $sort: raw control characters in the text: $(grep -avP '^[\x20-\x7e]*$' "$work/names.txt" | head -n 1 | cat -v)"
	grep -avq '^#' "$work/names.txt" || fail "--sort $sort: no interval lines"
	[ "$sort" != comm ] || grep -q '  [0-9.]*% ?\[31mred?\[0m \[unknown\]' "$work/names.txt" ||
		fail "the ESC of a comm is not a '?' in the text"
	python3 - "$work/names.json" "$sort" <<'EOF' || fail "--sort $sort: the JSON"
import json, sys

d = json.load(open(sys.argv[1]))
keys = {k["key"] for i in d["intervals"] for k in i["top"]}
print("--sort %s: %d intervals, %d keys" % (sys.argv[2], len(d["intervals"]), len(keys)))
if sys.argv[2] == "comm":
    # The names themselves, JSON-escaped, not replaced.
    assert any(k.startswith("\x1b[31mred\x1b[0m ") for k in keys), keys
EOF
done

check "sparklines: ASCII in the C locale, block elements in a UTF-8 one; -w 100 fits every line but the comments"
report_ok "$work/ascii.txt" --view=timeline --interval 500ms "$dir"
# The views take the locale's name from the environment, without setlocale().
LC_ALL=C.UTF-8
report_ok "$work/utf8.txt" --view=timeline --interval 500ms "$dir"
report_ok "$work/w100.txt" --view=timeline --interval 100ms -w 100 "$dir"
LC_ALL=C
python3 - "$work/ascii.txt" "$work/utf8.txt" "$work/w100.txt" <<'EOF' || fail "the sparklines or the width"
import sys

ascii, utf8, narrow = (open(name, encoding="utf-8").read().splitlines() for name in sys.argv[1:4])
def sparks(lines):
    start = [i for i, l in enumerate(lines) if l.startswith("# The top ")][0]
    return lines[start + 1:]
assert all(c in " .:-=+*#@" for l in sparks(ascii) for c in l[2:l.index("%") - 6]), sparks(ascii)
assert any(c in "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588" for l in sparks(utf8) for c in l), sparks(utf8)
print("\n".join(sparks(utf8)))
long = [l for l in narrow if len(l) > 100 and not l.startswith(("# timeline", "# The ", "# host", "# files"))]
assert not long, long
assert len(sparks(narrow)[0]) <= 100
EOF

check "a bad --interval, one too small for the range, and what the timeline does not take: exit 2, one line saying why"
for interval in 0 1x 0.5ms -1s "" 1.0005s 400d; do
	status=0
	"$report" --view=timeline --interval "$interval" "$dir" >/dev/null 2>"$work/bad.err" || status=$?
	[ "$status" -eq 2 ] || fail "--interval '$interval': status $status, expected 2"
	head -n 1 "$work/bad.err" | grep -q "^perfrec-report: --interval: '$interval' is not a time" ||
		fail "--interval '$interval': $(head -n 1 "$work/bad.err")"
	[ "$(grep -vc '^Try ' "$work/bad.err")" -eq 1 ] || fail "--interval '$interval': more than a line: $(cat "$work/bad.err")"
done
# An hour before the capture: 3.6 million intervals of 1 ms.
early=$(python3 -c 'import datetime, json, sys
h = json.load(open(sys.argv[1]))["header"]
t = (h["start_ns"] + h["realtime_offset_ns"]) // 10**9 - 3600
print(datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$work/tl.json")
status=0
"$report" --view=timeline --interval 1ms --since "$early" "$dir" >/dev/null 2>"$work/small.err" || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$work/small.err")" -eq 1 ] &&
	grep -q '^perfrec-report: --interval 1ms: [0-9]* intervals in the range, more than 100000' "$work/small.err" ||
	fail "--interval 1ms --since $early: status $status: $(cat "$work/small.err")"
note "$(cat "$work/small.err")"
for options in "--interval 1s" "--view=timeline --baseline $dir" "--view=timeline --format=html -o $work/x.html"; do
	status=0
	# shellcheck disable=SC2086
	"$report" $options "$dir" >/dev/null 2>"$work/bad.err" || status=$?
	[ "$status" -eq 2 ] && head -n 1 "$work/bad.err" | grep -q '^perfrec-report: .*\(interval\|baseline\|timeline\)' ||
		fail "$options: status $status: $(cat "$work/bad.err")"
	note "$options: $(head -n 1 "$work/bad.err")"
done
note "PASS"
