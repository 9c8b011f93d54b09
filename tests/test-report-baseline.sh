#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --baseline: two captures of tests/workload (2 threads, 4 s each), the
# baseline burning 60/30/10 % in burn_hot/burn_warm/burn_cold (--mix), the
# new one 20/30/50: burn_hot shrank by about 40 points, burn_cold grew by
# as much, burn_warm stayed.  The expected change is the workload's own
# measure (--print-shares, of its time in the three) times the three's
# share of each capture's samples (the rest is its clock reads and exit);
# the diff's delta must be within 3 points of it, or 4 standard errors of
# the change where the samples are too few for that (at ~8000 samples a
# side the error is about 0.7 points; a loaded machine gives fewer), and
# equal to the two captures' own flat views subtracted.  The workloads
# run favoured (report-lib.sh) to get their samples on a busy machine.  The folded view gives every stack
# both counts, the baseline's scaled to the new total.
test_name=test-report-baseline
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

check "two captures: --mix 60,30,10 then --mix 20,30,50"
capture "$work/base" $favour "$workload" --seconds 4 --threads 2 --mix 60,30,10 --print-shares
base=$capture_file
cp "$work/command.out" "$work/base.shares"
capture "$work/new" $favour "$workload" --seconds 4 --threads 2 --mix 20,30,50 --print-shares
new=$capture_file
cp "$work/command.out" "$work/new.shares"
note "measured: baseline $(tr '\n' ' ' <"$work/base.shares"); new $(tr '\n' ' ' <"$work/new.shares")"

report_ok "$work/base.flat" --comm workload "$base"
report_ok "$work/new.flat" --comm workload "$new"
report_ok "$work/diff" --comm workload --baseline "$base" "$new"
cat "$work/diff" >&2

# burns SIDE: the three's share of the side's samples, as a fraction.
burns() {
	flat_rows "$work/$1.flat" | awk -F '\t' '$5 == "workload" && $4 ~ /^burn_(hot|warm|cold)$/ { n += $1 } END { printf "%.4f\n", n / 100 }'
}
# delta FUNCTION: the diff's change for it ("-39.80").
delta() {
	awk -v f="$1" '!/^#/ && $5 == f && $6 == "workload" { print $3 + 0; found = 1 } END { if (!found) print "none" }' "$work/diff"
}

check "each burn_*'s delta: within 3 points (or 4 errors) of the measured change, equal to the flat views subtracted"
base_burns=$(burns base)
new_burns=$(burns new)
base_n=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/base.flat")
new_n=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/new.flat")
note "samples: $base_n in the baseline, $new_n in the new capture"
for f in burn_hot burn_warm burn_cold; do
	measured_base=$(sed -n "s/^$f=//p" "$work/base.shares")
	measured_new=$(sed -n "s/^$f=//p" "$work/new.shares")
	expected=$(awk -v b="$measured_base" -v n="$measured_new" -v bb="$base_burns" -v nb="$new_burns" \
		'BEGIN { printf "%.2f\n", 100 * (n * nb - b * bb) }')
	got=$(delta "$f")
	flats=$(awk -v a="$(flat_percent "$work/new.flat" "$f" workload)" \
		-v b="$(flat_percent "$work/base.flat" "$f" workload)" 'BEGIN { printf "%.2f\n", a - b }')
	limit=$(awk -v b="$measured_base" -v n="$measured_new" -v bn="$base_n" -v nn="$new_n" 'BEGIN {
		e = 400 * sqrt(b * (1 - b) / bn + n * (1 - n) / nn); printf "%.2f\n", (e > 3 ? e : 3) }')
	note "$f: delta $got, expected $expected from the workload (within $limit), $flats from the flat views"
	[ "$got" != none ] || fail "$f is not in the diff"
	within "$got" "$expected" "$limit" || fail "$f: delta $got, expected $expected within $limit points"
	within "$got" "$flats" 0.02 || fail "$f: delta $got, but the flat views differ by $flats"
done
hot=$(delta burn_hot)
cold=$(delta burn_cold)
awk -v h="$hot" -v c="$cold" 'BEGIN { exit !(h < -20 && c > 20) }' ||
	fail "burn_hot should shrink and burn_cold grow: $hot, $cold"

check "the rows are ordered by the size of the change: burn_hot and burn_cold first"
first=$(awk '!/^#/ { print $5 }' "$work/diff" | head -n 2 | sort | tr '\n' ' ')
[ "$first" = "burn_cold burn_hot " ] || fail "the first two rows are $first"

check "folded: each stack with both counts; the baseline's scaled to the new total"
report_ok "$work/folded" --comm workload --view=folded --baseline "$base" "$new"
awk 'NF < 3 || $(NF - 1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad++ } END { exit bad > 0 }' "$work/folded" ||
	fail "a line without two counts: $(awk 'NF < 3' "$work/folded" | head -n 3)"
sums=$(awk '{ b += $(NF - 1); n += $NF } END { print b, n }' "$work/folded")
note "folded totals (baseline scaled, new): $sums"
set -- $sums
within "$1" "$2" "$(awk -v n="$2" 'BEGIN { print n / 100 + 5 }')" ||
	fail "the scaled baseline sums to $1, the new profile to $2"
hot_base=$(awk '$0 ~ /;burn_hot / { b += $(NF - 1) } END { print b + 0 }' "$work/folded")
share=$(awk -v h="$hot_base" -v t="$1" 'BEGIN { printf "%.2f\n", 100 * h / t }')
note "burn_hot in the baseline column: $share %"
within "$share" "$(flat_percent "$work/base.flat" burn_hot workload)" 1 ||
	fail "burn_hot's share of the baseline column is $share %"

check "a baseline of two events, a capture of the same two in the other order: both read as the baseline's event"
for order in "cpu-clock page-faults" "page-faults cpu-clock"; do
	set -- $order
	dir=$work/mix-$1
	"$perfrecd" -d 120 -F 999 -e "$1" -e "$2" -o "$dir" -- "$workload" --seconds 1 --threads 1 \
		>/dev/null 2>"$work/daemon.err" || fail "perfrecd -e $1 -e $2: status $?"
done
report_ok "$work/mix.flat" "$work/mix-page-faults"
grep -q '^# event: page-faults' "$work/mix.flat" ||
	fail "the capture alone is not read as its first event: $(grep '^# event' "$work/mix.flat")"
report_ok "$work/mix.diff" --baseline "$work/mix-cpu-clock" "$work/mix-page-faults"
grep -q '^# event: cpu-clock' "$work/mix.diff" ||
	fail "compared with a cpu-clock baseline, the capture is read as $(grep '^# event' "$work/mix.diff")"

check "--baseline with a view it does not go with: exit 2"
status=0
"$report" --view=tree --baseline "$base" "$new" >/dev/null 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && grep -q 'baseline goes with' "$work/err" || fail "--view=tree --baseline: status $status: $(cat "$work/err")"
status=0
"$report" --baseline "$work/missing" "$new" >/dev/null 2>"$work/err" || status=$?
[ "$status" -eq 1 ] && grep -q 'missing' "$work/err" || fail "a missing baseline: status $status: $(cat "$work/err")"
note PASS
