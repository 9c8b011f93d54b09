#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Several events a run.  The workload with --touch-pages burns CPU in
# burn_hot (60 %) and, after each round, writes to 64 fresh pages in
# touch_pages: so cpu-clock samples are mostly in burn_hot, and
# page-faults samples in touch_pages.  A daemon that mixed the two events
# up, tagged samples with the wrong one, or let the second event track
# maps and names a second time fails here:
# page-faults samples every 16th fault (its own period= term): in frequency
# mode the kernel sizes a period from the gaps between overflows, and
# faults that come in bursts of 64 leave it anywhere from 2 to 300 samples
# a run, with perf record as with perfrecd.  The rings are 256 pages (-m,
# 1 MiB a CPU): every other process's faults are sampled too, and a busy
# machine faults in bursts that a ring sized for 1 kHz would lose.
#   - system-wide, -e cpu-clock -e page-faults/period=16/: the header lists
#     both, each with ids and its own sampling; samples of each event; one
#     COMM exec for the workload; perfrec-report --event page-faults (the
#     name without its terms) puts touch_pages first (>= 90 %),
#     --event cpu-clock puts burn_hot first; with no --event the report is
#     the first event's and says so on stderr; an unknown --event is exit 2
#     naming the events there are;
#   - --pid of a running 2-thread workload, -e cpu-clock,page-faults/...: both
#     events sample both threads (the per-thread descriptors);
#   - the lists: a name twice and a 33rd event are refused (exit 2), the
#     config file's "event =" lines add up and -e replaces them.
test_name=test-daemon-events
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

out=$work/out
faults=page-faults/period=16/

check "-e cpu-clock -e $faults -F 999 over the workload --touch-pages, system-wide"
start_daemon "$out" -d 30 -F 999 -m 256 -e cpu-clock -e "$faults"
"$workload" --seconds 3 --touch-pages --print-shares >"$work/shares" &
workload_pid=$!
pid=$workload_pid
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
file=$(files_in "$out" | head -n 1)
"$dump" "$file" >"$work/records" || fail "perfrec-dump: status $?"

check "the header lists both events, each with one id per CPU"
"$dump" --header "$file" >"$work/header" || fail "perfrec-dump --header: status $?"
cpus=$(online_cpus | wc -l)
index=0
for event in cpu-clock "$faults"; do
	line=$(grep "^EVENT index=$index name=$event " "$work/header") ||
		fail "no event $index $event in the header: $(cat "$work/header")"
	ids=$(echo "$line" | sed -n 's/.* ids=\[\([0-9,]*\)\].*/\1/p' | tr ',' '\n' | grep -c .)
	[ "$ids" -eq "$cpus" ] || fail "$event has $ids ids, expected $cpus: $line"
	index=$((index + 1))
done

check "samples of each event from the workload (pid $pid)"
for event in cpu-clock "$faults"; do
	n=$(grep -c " SAMPLE event=$event .* pid=$pid " "$work/records" || true)
	note "$event: $n samples of the workload"
	[ "$n" -ge 50 ] || fail "only $n $event samples of the workload"
done
# Every 16th fault is sampled: the workload's faults in touch_pages (which
# it counts) over 16, give or take its few others and 15 a CPU left over;
# a period the kernel ignored (every fault sampled) would give 16 times.
touched=$(sed -n 's/^touch_pages=//p' "$work/shares")
[ -n "$touched" ] || fail "the workload did not say how many pages it touched"
n=$(grep -c " SAMPLE event=$faults .* pid=$pid " "$work/records" || true)
note "$touched pages touched: $n samples, expected $((touched / 16))"
within "$n" "$((touched / 16))" "$((touched / 160 + 20))" ||
	fail "$n $faults samples of the workload, expected $((touched / 16)) (within 10 % and 20)"
other=$(grep ' SAMPLE ' "$work/records" | grep -cvE " SAMPLE event=(cpu-clock|$faults) " || true)
[ "$other" -eq 0 ] || fail "$other samples not tagged with either event: $(grep ' SAMPLE ' "$work/records" |
	grep -vE " SAMPLE event=(cpu-clock|$faults) " | head -n 3)"

check "the second event tracks nothing: one COMM exec of the workload"
n=$(grep -cE " COMM .* pid=$pid tid=$pid exec=1 comm=workload\$" "$work/records" || true)
[ "$n" -eq 1 ] || fail "$n COMM exec records of the workload, expected 1"

check "perfrec-report --event page-faults: touch_pages >= 90 % of the workload's"
report_ok "$work/faults" --event page-faults --pid "$pid" "$file"
grep -q "^# event: $faults" "$work/faults" || fail "the header is not page-faults': $(head -n 3 "$work/faults")"
share=$(flat_percent "$work/faults" touch_pages workload)
note "touch_pages: $share % of the workload's page faults"
within "$share" 100 10 || fail "touch_pages has $share % of the page faults, expected >= 90"

check "perfrec-report --event cpu-clock: burn_hot first, no touch_pages above 5 %"
report_ok "$work/clock" --event cpu-clock --pid "$pid" "$file"
first=$(flat_rows "$work/clock" | head -n 1 | cut -f 4)
[ "$first" = burn_hot ] || fail "the first row is $first, expected burn_hot"
share=$(flat_percent "$work/clock" touch_pages workload)
within "$share" 0 5 || fail "touch_pages has $share % of cpu-clock"

check "no --event: the first event's report, said on stderr"
report_ok "$work/default" --pid "$pid" "$file"
grep -q 'this is cpu-clock; --event NAME' "$work/default.err" ||
	fail "no notice of the events: $(cat "$work/default.err")"
diff "$work/clock" "$work/default" >"$work/default.diff" ||
	fail "the default report differs from --event cpu-clock: $(head -n 20 "$work/default.diff")"

check "an unknown --event: exit 2 naming the events"
status=0
"$report" --event cycles "$file" >/dev/null 2>"$work/unknown.err" || status=$?
[ "$status" -eq 2 ] || fail "--event cycles: status $status, expected 2"
grep -q "it has: cpu-clock, $faults" "$work/unknown.err" ||
	fail "the error does not list the events: $(cat "$work/unknown.err")"

check "--pid of a running 2-thread workload, -e cpu-clock,$faults: both threads of each event"
start_workload --seconds 3 --threads 2 --touch-pages
pid=$workload_pid
wait_for '[ "$(ls /proc/$pid/task | wc -l)" -eq 2 ]' 10 || fail "the second thread did not start"
"$perfrecd" -o "$work/pid" -F 999 -e "cpu-clock,$faults" --pid "$pid" -d 2 2>"$work/daemon.err" ||
	fail "perfrecd --pid: status $?"
wait_workload
"$dump" "$(files_in "$work/pid" | head -n 1)" >"$work/pid-records" || fail "perfrec-dump: status $?"
for event in cpu-clock "$faults"; do
	tids=$(grep " SAMPLE event=$event .* pid=$pid " "$work/pid-records" |
		sed 's/.* tid=\([0-9]*\) .*/\1/' | sort -u | wc -l)
	note "$event: samples of $tids threads"
	[ "$tids" -eq 2 ] || fail "$event sampled $tids threads of the workload, expected 2"
done

check "a name twice, and 33 events, are refused with exit 2"
status=0
"$perfrecd" -o "$work/x" -e cpu-clock -e page-faults,cpu-clock -d 1 2>"$work/twice.err" || status=$?
[ "$status" -eq 2 ] && grep -q "'cpu-clock' is given twice" "$work/twice.err" ||
	fail "-e cpu-clock twice: status $status: $(cat "$work/twice.err")"
many=$(awk 'BEGIN { for (i = 0; i < 33; i++) printf "%sr%x", i ? "," : "", i + 1 }')
status=0
"$perfrecd" -o "$work/x" -e "$many" -d 1 2>"$work/many.err" || status=$?
[ "$status" -eq 2 ] && grep -q 'more than 32 events' "$work/many.err" ||
	fail "33 events: status $status: $(cat "$work/many.err")"

check "config: 'event =' lines add up; -e replaces them"
printf 'event = cpu-clock\nevent = page-faults\n' >"$work/perfrecd.conf"
"$perfrecd" --config "$work/perfrecd.conf" -o "$work/conf" -d 0.5 2>"$work/daemon.err" ||
	fail "perfrecd --config: status $?"
"$dump" --header "$(files_in "$work/conf")" >"$work/conf-header"
grep -q 'cpu-clock' "$work/conf-header" && grep -q 'page-faults' "$work/conf-header" ||
	fail "the config's two events are not both in the header: $(cat "$work/conf-header")"
"$perfrecd" --config "$work/perfrecd.conf" -e task-clock -o "$work/cmd" -d 0.5 2>"$work/daemon.err" ||
	fail "perfrecd --config -e: status $?"
"$dump" --header "$(files_in "$work/cmd")" >"$work/cmd-header"
grep -q 'task-clock' "$work/cmd-header" && ! grep -q 'page-faults' "$work/cmd-header" ||
	fail "-e did not replace the config's events: $(cat "$work/cmd-header")"

note PASS
