#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A directory of several files read on several threads (--jobs): one
# capture of tests/workload (2 threads, 5 s) rotated every second into
# five files or so.  Every view and format, with the options that change
# what the aggregation keys on, must be byte for byte the same with -j 1
# (one thread: the files in turn), -j 2 and -j 4; so must the warnings
# when a file in the middle is cut short.  The samples counted must be
# the files' own, each read alone (no file lost or read twice).
test_name=test-report-jobs
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

check "a capture rotated into several files"
dir=$work/capture
"$perfrecd" -d 120 -F 999 --rotate-age 1s -o "$dir" -- $favour "$workload" --seconds 5 \
	--threads 2 >"$work/command.out" 2>"$work/daemon.err" || fail "perfrecd: status $?"
files=$(file_count "$dir")
note "$files files"
[ "$files" -ge 3 ] || fail "$files capture files, expected at least 3"
first=$(files_in "$dir" | head -n 1)

check "-j 1, -j 2 and -j 4 give the same bytes for every view"
n=0
while IFS= read -r options; do
	n=$((n + 1))
	for j in 1 2 4; do
		case $options in
		--format=*)	# a file for other tools: -o FILE
			# shellcheck disable=SC2086  # the options are words
			report_ok "$work/log.$n.$j" -j "$j" $options -o "$work/out.$n.$j" "$dir" ;;
		*)
			# shellcheck disable=SC2086
			report_ok "$work/out.$n.$j" -j "$j" $options "$dir" ;;
		esac
	done
	for j in 2 4; do
		cmp -s "$work/out.$n.1" "$work/out.$n.$j" ||
			fail "perfrec-report $options: -j $j differs from -j 1"
	done
	[ -s "$work/out.$n.1" ] || fail "perfrec-report $options: no output"
done <<EOF
--sort comm,pid,tid,dso,sym
--children
--view=tree --percent-limit 0
--view=tree --callee --percent-limit 0
--view=folded
--json --view=tree
--sort comm
--lines --children
--focus burn_hot --view=folded
--max-stack 2 --view=folded
--since 1s --until 3s --children
--format=svg
--format=html --lines
--format=pprof
--baseline $first --view=folded
EOF
note "$n option sets"

check "the samples counted are the files' own, each read alone"
report_ok "$work/all" -j 4 --sort comm "$dir"
total=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/all")
sum=0
for f in $(files_in "$dir"); do
	report_ok "$work/one" -j 1 --sort comm "$f"
	sum=$((sum + $(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$work/one")))
done
note "directory: $total samples; the files alone: $sum"
[ "$total" -gt 0 ] && [ "$total" -eq "$sum" ] || fail "directory $total samples, files alone $sum"

check "a file cut short in the middle: the same report and warnings"
middle=$(files_in "$dir" | sed -n 2p)
size=$(stat -c %s "$middle")
truncate -s $((size / 2)) "$middle"
for j in 1 2 4; do
	"$report" -j "$j" --children "$dir" >"$work/cut.$j" 2>"$work/cut.$j.err" || true
	sanitizer_report "$work/cut.$j.err" && fail "-j $j: a sanitizer report"
done
grep -q "cut short" "$work/cut.1.err" || fail "no warning of the file cut short"
for j in 2 4; do
	cmp -s "$work/cut.1" "$work/cut.$j" || fail "cut short: -j $j's report differs from -j 1's"
	cmp -s "$work/cut.1.err" "$work/cut.$j.err" || fail "cut short: -j $j's warnings differ from -j 1's"
done
note PASS
