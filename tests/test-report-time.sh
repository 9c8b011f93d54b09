#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Times as people write them: a capture of tests/phases-workload (burns
# in burn_phase_a for 2 s, then burn_phase_b for 2 s, twice), which
# prints when each phase started by its own clocks (CLOCK_REALTIME, UTC
# seconds).  Each window is one phase less 0.2 s at either end, so a
# sample cannot fall in the wrong one whatever the scheduling; a window
# of 1.6 s holds ~1600 samples at 999 Hz.
#
#   --since/--until over phase b given as UTC (Z), with an offset, as
#   local time under TZ (a zone with DST), and as times of day: phase b's
#   function first, with >= 90 % of the workload's samples; the header's
#   range line is the times given, in UTC with milliseconds (date(1) says
#   what they are), and so is --json's "range";
#   --since=-1.5s: the last 1.5 s of the capture, phase b's again;
#   --baseline-since/--baseline-until over phase a against phase b: the
#   flat diff has burn_phase_b at about +100 points (>= +85), burn_phase_a
#   at about -100 (<= -85); the folded diff and the SVG take the window;
#   a range around the whole capture selects everything, one after it
#   nothing; bad times exit 2 with a line naming the option and the text.
test_name=test-report-time
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

phases=$top_builddir/tests/phases-workload
needs_built "$phases"
date -u -d @0.5 +%3N >/dev/null 2>&1 || skip "no GNU date (date -d @S +%3N)"

check "a capture of phases-workload --phase 2 --cycles 2 (a, b, a, b)"
capture "$work/cap" $favour "$phases" --phase 2 --cycles 2
cat "$work/command.out" >&2
# The UTC seconds at which the Nth phase (1-4) started, and the end.
phase_start() { awk -v n="$1" '$1 == "phase" && ++i == n { print $3 }' "$work/command.out"; }
a1=$(phase_start 1)
b1=$(phase_start 2)
a2=$(phase_start 3)
end=$(awk '$1 == "end" { print $2 }' "$work/command.out")
[ -n "$a1" ] && [ -n "$b1" ] && [ -n "$a2" ] && [ -n "$end" ] ||
	fail "phases-workload did not print its phases: $(cat "$work/command.out")"
# SECONDS + DELTA, to the millisecond (the times given are in ms).
plus() { awk -v t="$1" -v d="$2" 'BEGIN { printf "%.3f\n", t + d }'; }
a_since=$(plus "$a1" 0.2)
a_until=$(plus "$b1" -0.2)
b_since=$(plus "$b1" 0.2)
b_until=$(plus "$a2" -0.2)
utc() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%S.%3NZ; }
note "phase a: $(utc "$a1"), b: $(utc "$b1"), a again: $(utc "$a2"), end: $(utc "$end")"

# A zone with DST, from tzdata or as the POSIX rule of the same.
new_york=America/New_York
[ -r /usr/share/zoneinfo/$new_york ] || new_york=EST5EDT,M3.2.0,M11.1.0

# top_is FILE FUNCTION: FUNCTION is the first row, with >= 90 %.
top_is() {
	first=$(flat_rows "$1" | head -n 1 | cut -f 4)
	share=$(flat_percent "$1" "$2" phases-workload)
	note "$(grep '^# range' "$1"); first $first, $2 $share %"
	[ "$first" = "$2" ] || fail "$1: the first row is $first, not $2: $(head -n 14 "$1")"
	awk -v s="$share" 'BEGIN { exit !(s >= 90) }' || fail "$1: $2 has $share %, expected >= 90"
}

# range_is FILE LABEL SINCE UNTIL: the header's line is these UTC seconds.
range_is() {
	span=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.3f\n", b - a }')
	expected="# $2: $(utc "$3") to $(utc "$4") ($span s)"
	grep -qxF "$expected" "$1" || fail "$1: expected '$expected', got '$(grep "^# $2:" "$1")'"
}

check "--since/--until over phase b, in UTC: burn_phase_b first, the range in the header"
report_ok "$work/utc" --comm phases-workload --since "$(utc "$b_since")" --until "$(utc "$b_until")" \
	"$work/cap"
top_is "$work/utc" burn_phase_b
range_is "$work/utc" range "$b_since" "$b_until"

check "the same with an offset (+05:30, -03:00), and as local time under TZ=$new_york"
report_ok "$work/offset" --comm phases-workload \
	--since "$(TZ=IST-5:30 date -d "@$b_since" +%Y-%m-%dT%H:%M:%S.%3N+05:30)" \
	--until "$(TZ=UTC+3 date -d "@$b_until" +%Y-%m-%dT%H:%M:%S.%3N-0300)" "$work/cap"
top_is "$work/offset" burn_phase_b
range_is "$work/offset" range "$b_since" "$b_until"
local_since=$(TZ=$new_york date -d "@$b_since" +%Y-%m-%dT%H:%M:%S.%3N)
local_until=$(TZ=$new_york date -d "@$b_until" +%Y-%m-%dT%H:%M:%S.%3N)
TZ=$new_york
export TZ
report_ok "$work/local" --comm phases-workload --since "$local_since" --until "$local_until" \
	"$work/cap"
top_is "$work/local" burn_phase_b
range_is "$work/local" range "$b_since" "$b_until"
# Under UTC the same text is another time: 4 or 5 hours off, outside the capture.
TZ=UTC
report_ok "$work/local-utc" --comm phases-workload --since "$local_since" \
	--until "$local_until" "$work/cap"
unset TZ
grep -q '^# no samples' "$work/local-utc" ||
	fail "the local time read under TZ=UTC still selected samples: $(head -n 12 "$work/local-utc")"

check "times of day alone, on the capture's start day (unless the capture crosses midnight)"
if [ "$(TZ=$new_york date -d "@$a1" +%F)" = "$(TZ=$new_york date -d "@$end" +%F)" ] &&
   [ "$(date -u -d "@$a1" +%F)" = "$(date -u -d "@$end" +%F)" ]; then
	TZ=$new_york
	export TZ
	report_ok "$work/day" --comm phases-workload \
		--since "$(date -d "@$b_since" +%H:%M:%S.%3N)" \
		--until "$(date -u -d "@$b_until" +%H:%M:%S.%3NZ)" "$work/cap"
	unset TZ
	top_is "$work/day" burn_phase_b
	range_is "$work/day" range "$b_since" "$b_until"
else
	note "the capture crosses midnight: not checked"
fi

check "--json: the range as the header says it"
report_ok "$work/json" --comm phases-workload --json --since "$(utc "$b_since")" \
	--until "$(utc "$b_until")" "$work/cap"
grep -qF "\"range\":{\"since\":\"$(utc "$b_since")\",\"until\":\"$(utc "$b_until")\"," "$work/json" ||
	fail "no range in the JSON header: $(head -c 800 "$work/json")"

check "--since=-1.5s: the capture's last 1.5 s, in phase b"
report_ok "$work/last" --comm phases-workload --since=-1.5s "$work/cap"
top_is "$work/last" burn_phase_b
grep -q '^# range: .* to .* (1\.500 s)$' "$work/last" || fail "the range is $(grep '^# range' "$work/last")"
# On the capture clock: from its end less 1.5 s to its end.
report_ok "$work/last.json" --comm phases-workload --json --since=-1.5s "$work/cap"
json_number() { grep -o "\"$1\":-*[0-9]*" "$work/last.json" | head -n 1 | cut -d: -f2; }
last_end=$(json_number end_ns)
[ "$(json_number until_ns)" = "$last_end" ] &&
	[ "$(json_number since_ns)" = "$((last_end - 1500000000))" ] ||
	fail "--since=-1.5s: since_ns $(json_number since_ns), until_ns $(json_number until_ns), end_ns $last_end"

check "--baseline-since/--baseline-until over phase a against phase b: b about +100 points, a about -100"
report_ok "$work/diff" --comm phases-workload \
	--baseline-since "$(TZ=IST-5:30 date -d "@$a_since" +%Y-%m-%dT%H:%M:%S.%3N+0530)" \
	--baseline-until "$(utc "$a_until")" \
	--since "$(utc "$b_since")" --until "$(utc "$b_until")" "$work/cap"
cat "$work/diff" >&2
delta() {
	awk -v f="$1" '!/^#/ && $5 == f && $6 == "phases-workload" { print $3 + 0; found = 1 } END { if (!found) print "none" }' "$work/diff"
}
b_delta=$(delta burn_phase_b)
a_delta=$(delta burn_phase_a)
note "burn_phase_b $b_delta, burn_phase_a $a_delta points"
awk -v b="$b_delta" -v a="$a_delta" 'BEGIN { exit !(b >= 85 && a <= -85) }' ||
	fail "burn_phase_b $b_delta (expected >= +85), burn_phase_a $a_delta (expected <= -85)"
range_is "$work/diff" range "$b_since" "$b_until"
range_is "$work/diff" "baseline range" "$a_since" "$a_until"

check "relative baseline times: phase a (after the capture's start) against the capture's last 1.5 s"
# Seconds from the capture's start (its JSON header) to phase a's window.
capture_start=$(awk -F'[:,]' '{ for (i = 1; i < NF; i++) { if ($i == "\"start_ns\"") s = $(i + 1); if ($i == "\"realtime_offset_ns\"") o = $(i + 1) } }
	END { printf "%.3f\n", (s + o) / 1e9 }' "$work/json")
rel_since=$(plus "$a_since" "-$capture_start")
rel_until=$(plus "$a_until" "-$capture_start")
note "phase a's window: +$rel_since s to +$rel_until s after the capture's start"
report_ok "$work/diff-relative" --comm phases-workload --baseline-since "+$rel_since" \
	--baseline-until "+${rel_until}s" --since=-1.5s "$work/cap"
cp "$work/diff-relative" "$work/diff"
b_delta=$(delta burn_phase_b)
a_delta=$(delta burn_phase_a)
awk -v b="$b_delta" -v a="$a_delta" 'BEGIN { exit !(b >= 85 && a <= -85) }' ||
	fail "relative windows: burn_phase_b $b_delta, burn_phase_a $a_delta"

check "the folded diff and the SVG take the windows too"
report_ok "$work/folded" --comm phases-workload --view=folded --baseline-since "$(utc "$a_since")" \
	--baseline-until "$(utc "$a_until")" --since "$(utc "$b_since")" --until "$(utc "$b_until")" \
	"$work/cap"
# Each line: the baseline's count (scaled), then the new one.
folded_share() {
	awk -v f=";$1" -v column="$2" '{ n = column == "base" ? $(NF - 1) : $NF; t += n; if (index($0, f " ") || index($0, f ";")) s += n }
		END { printf "%.1f\n", t ? 100 * s / t : 0 }' "$work/folded"
}
note "folded: burn_phase_a $(folded_share burn_phase_a base) % of the baseline, burn_phase_b $(folded_share burn_phase_b new) % of the new"
awk -v a="$(folded_share burn_phase_a base)" -v b="$(folded_share burn_phase_b new)" \
	-v a2="$(folded_share burn_phase_a new)" 'BEGIN { exit !(a >= 90 && b >= 90 && a2 <= 10) }' ||
	fail "the folded diff is not phase a against phase b: $(head -n 5 "$work/folded")"
report_ok "$work/null" --comm phases-workload --format=svg -o "$work/diff.svg" \
	--baseline-since "$(utc "$a_since")" --baseline-until "$(utc "$a_until")" \
	--since "$(utc "$b_since")" --until "$(utc "$b_until")" "$work/cap"
grep -q burn_phase_b "$work/diff.svg" || fail "the differential SVG has no burn_phase_b"

check "a range around the whole capture takes every sample; one after its end none"
report_ok "$work/all" --comm phases-workload "$work/cap"
report_ok "$work/around" --comm phases-workload --since 2000-01-01T00:00:00Z --until +1h "$work/cap"
all=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/all")
around=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/around")
[ -n "$all" ] && [ "$all" = "$around" ] || fail "$around samples in the range around it, $all in all"
report_ok "$work/after" --comm phases-workload --since +1h "$work/cap"
grep -q '^# no samples' "$work/after" || fail "a range after the capture: $(head -n 12 "$work/after")"
! grep -q '^# range' "$work/all" || fail "a report without a range has a range line"

check "bad times: exit 2, one line naming the option and the text"
bad() {
	status=0
	"$report" "$@" "$work/cap" >/dev/null 2>"$work/err" || status=$?
	[ "$status" -eq 2 ] || fail "perfrec-report $*: status $status, expected 2: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "perfrec-report $*: not one line: $(cat "$work/err")"
	! sanitizer_report "$work/err" || fail "perfrec-report $*: $(cat "$work/err")"
}
for text in "" 10x yesterday 17:30:00+5 2026-12-07T25:00:00Z 2026-02-30T12:00Z +99999999999h; do
	bad --since "$text"
	grep -qF -- "--since: '$text'" "$work/err" || fail "--since '$text': $(cat "$work/err")"
done
bad --baseline-until 12:00:00.5.5 --since +1
grep -qF -- "--baseline-until: '12:00:00.5.5'" "$work/err" || fail "$(cat "$work/err")"
bad --since "$(utc "$b_until")" --until "$(utc "$b_since")"
grep -q -- "--since .* is after --until" "$work/err" || fail "since after until: $(cat "$work/err")"
bad --baseline-since +3 --baseline-until +2
status=0
"$report" --view=tree --baseline-since +1 "$work/cap" >/dev/null 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && grep -q 'baseline-since and --baseline-until go with' "$work/err" ||
	fail "--view=tree --baseline-since: status $status: $(cat "$work/err")"
note PASS
