#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Another tool asks the kernel for build-ids in its MMAP2 records (perf
# record --buildid-mmap) while perfrecd runs.  Linux 6.18 then also sets
# PERF_RECORD_MISC_MMAP_BUILD_ID in perfrecd's MMAP2 records, whose bodies
# hold the device and inode: read as a build-id, the device's major (254
# here) is an impossible size, and every mapping of a program started
# meanwhile was lost as a malformed record, its samples [unknown].  The
# file must be sound, hold the program's mapping, and its report name the
# program's hot function.  On a kernel without that flaw this passes too.
test_name=test-daemon-buildid-mmap
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v perf >/dev/null 2>&1 || skip "no perf (linux-perf)"
perf record -q -a --buildid-mmap -e cpu-clock -F 99 -B -N -o "$work/probe.data" -- true \
	>"$work/probe.err" 2>&1 ||
	skip "perf record -a --buildid-mmap does not work here: $(head -n 1 "$work/probe.err")"

out=$work/out

check "perfrecd runs while perf record --buildid-mmap does, and a workload starts after both"
start_daemon "$out" -d 30 -F 499
perf record -q -a --buildid-mmap -e cpu-clock -F 99 -B -N -o "$work/perf.data" \
	>"$work/perf.out" 2>"$work/perf.err" &
perf_pid=$!
at_exit "kill -KILL $perf_pid 2>/dev/null"
wait_for '[ -s "$work/perf.data" ] || ! kill -0 $perf_pid 2>/dev/null' 20 ||
	fail "perf record wrote nothing in 20 s"
kill -0 "$perf_pid" 2>/dev/null || fail "perf record exited early: $(cat "$work/perf.err")"
sleep 1		# perf's events are enabled
start_workload --seconds 2 --threads 2
pid=$workload_pid
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
kill -INT "$perf_pid"
wait "$perf_pid" || true		# 130: its SIGINT
kill -INT "$daemon_pid" 2>/dev/null || true
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
file=$(files_in "$out")
[ "$(echo "$file" | wc -l)" -eq 1 ] || fail "expected one file, got: $file"

check "the file is sound: no malformed records"
"$dump" --summary "$file" >"$work/summary" 2>"$work/summary.err" ||
	fail "perfrec-dump --summary: $(cat "$work/summary.err")"
grep -q 'malformed_records=0 ' "$work/summary" ||
	fail "$(grep '^integrity:' "$work/summary")"

check "an executable MMAP2 of $workload for pid $pid, read as device and inode"
"$dump" "$file" >"$work/records" || fail "perfrec-dump: status $?"
mapping=$(grep -E " MMAP2 .* pid=$pid .* prot=r-x .* filename=$workload\$" "$work/records" | head -n 1)
[ -n "$mapping" ] || fail "no r-x MMAP2 of $workload for pid $pid"
note "$mapping"
echo "$mapping" | grep -q " ino=$(stat -c %i "$workload") " ||
	fail "its inode is not $workload's ($(stat -c %i "$workload"))"

check "perfrec-report names burn_hot as the workload's hottest function"
"$report" -q --pid "$pid" --top 1 "$file" >"$work/report" 2>"$work/report.err" ||
	fail "perfrec-report: $(cat "$work/report.err")"
top=$(grep -v '^#' "$work/report" | head -n 1)
note "$top"
echo "$top" | grep -q '\] burn_hot  *workload$' || fail "top row: $top"
note "PASS"
