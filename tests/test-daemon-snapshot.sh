#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A process that was running before perfrecd started is in the state the
# daemon synthesizes at the start of its file, between SNAPSHOT_BEGIN and
# SNAPSHOT_END: its COMM, the FORK of each of its threads, an MMAP2 of its
# binary and the binary's build-id.  Two processes: the workload (two
# threads, busy) and a sleep (idle, so it makes no live records at all).
test_name=test-daemon-snapshot
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

out=$work/out
records=$work/records
snapshot=$work/snapshot

sleep 30 &
sleep_pid=$!
at_exit "kill $sleep_pid 2>/dev/null"
start_workload --seconds 6 --threads 2
wait_for '[ "$(ls /proc/$workload_pid/task | wc -l)" -eq 2 ]' 10 ||
	fail "the workload did not start its second thread"
thread=$(ls "/proc/$workload_pid/task" | grep -vx "$workload_pid")
wait_for '[ "$(readlink -f /proc/$sleep_pid/exe)" != "$(readlink -f /bin/sh)" ]' 10 ||
	fail "sleep did not exec"
sleep_binary=$(readlink -f "/proc/$sleep_pid/exe")

check "perfrecd -d 2 starts after them and exits 0"
start_daemon "$out" -d 2
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
file=$(files_in "$out" | head -n 1)
"$dump" "$file" >"$records" || fail "perfrec-dump $file: status $?"

check "one snapshot, in the first chunks, before any sample"
[ "$(grep -c ' SNAPSHOT_BEGIN ' "$records")" -eq 1 ] || fail "not one SNAPSHOT_BEGIN"
[ "$(grep -c ' SNAPSHOT_END ' "$records")" -eq 1 ] || fail "not one SNAPSHOT_END"
sed -n '/ SNAPSHOT_BEGIN /,/ SNAPSHOT_END /p' "$records" >"$snapshot"
grep -q ' SNAPSHOT_END .* processes=[1-9]' "$snapshot" || fail "SNAPSHOT_END counts no process"
! grep -q ' SAMPLE ' "$snapshot" || fail "samples inside the snapshot"

for who in "workload $workload_pid $workload" "sleep $sleep_pid $sleep_binary"; do
	set -- $who
	comm=$1 pid=$2 binary=$3
	check "$comm (pid $pid): FORK, COMM comm=$comm and an r-x MMAP2 of $binary in the snapshot"
	grep -qE " FORK .* pid=$pid ppid=[0-9]+ tid=$pid " "$snapshot" || fail "no FORK of pid $pid"
	grep -qE " COMM .* pid=$pid tid=$pid exec=[01] comm=$comm\$" "$snapshot" ||
		fail "no COMM comm=$comm for pid $pid"
	mapping=$(grep -E " MMAP2 .* pid=$pid .* prot=r-x .* filename=$binary\$" "$snapshot" | head -n 1)
	[ -n "$mapping" ] || fail "no r-x MMAP2 of $binary for pid $pid"
	expected=$(elf_build_id "$binary")
	if [ -n "$expected" ]; then
		check "the snapshot gives $binary its build-id $expected"
		grep -qE " MMAP2 .* pid=$pid .* build_id=$expected .* filename=$binary\$" "$snapshot" ||
			grep -qE " BUILD_ID .* build_id=$expected path=$binary\$" "$snapshot" ||
			fail "no build-id $expected for $binary"
	fi
done

check "the workload's second thread $thread has its FORK and COMM in the snapshot"
grep -qE " FORK .* pid=$workload_pid ppid=$workload_pid tid=$thread " "$snapshot" ||
	fail "no FORK of thread $thread"
grep -qE " COMM .* pid=$workload_pid tid=$thread exec=[01] comm=" "$snapshot" ||
	fail "no COMM of thread $thread"

check "the snapshot's records come before the first sample of the file"
first_sample=$(grep -n -m 1 ' SAMPLE ' "$records" | cut -d: -f1)
snapshot_end=$(grep -n -m 1 ' SNAPSHOT_END ' "$records" | cut -d: -f1)
[ -n "$first_sample" ] || fail "no samples at all"
[ "$snapshot_end" -lt "$first_sample" ] || fail "a sample before SNAPSHOT_END"
note "PASS"
