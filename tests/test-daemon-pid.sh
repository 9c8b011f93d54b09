#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One process instead of the whole machine.  --pid PID on a running
# workload with two threads: samples of both threads, and of no other
# process than it and its children; perfrecd stops by itself when the
# process exits.  -- COMMAND:
# perfrecd starts the workload, samples it and its forked child only, and
# exits 0 as soon as it ends, well before --duration.
test_name=test-daemon-pid
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

records=$work/records

# The pids of a file's samples, with counts: "count pid" lines.
sample_pids() {
	sed -n 's/.* SAMPLE .* pid=\([0-9]*\) tid=.*/\1/p' "$records" | sort | uniq -c
}

# The samples of processes other than $1 and its descendants (by the FORK
# records: the forked child, and under ASan LeakSanitizer's helper too).
foreign_samples() {
	# Records of different CPUs are not in time order: all FORKs first.
	awk -v root="$1" "$awk_hex"'
		$3 == "FORK" && field("pid") == field("tid") { parent[field("pid")] = field("ppid") }
		$3 == "SAMPLE" { pids[++n] = field("pid") }
		function in_family(pid,    hops) {
			for (hops = 0; pid != "" && hops < 100; hops++) {
				if (pid == root)
					return 1
				if (!(pid in parent) || parent[pid] == pid)
					return 0
				pid = parent[pid]
			}
			return 0
		}
		END {
			for (i = 1; i <= n; i++)
				if (!in_family(pids[i]))
					foreign++
			print foreign + 0
		}' "$records"
}

# -- --pid ---------------------------------------------------------------
out=$work/pid
start_workload --seconds 3 --threads 2
target=$workload_pid
wait_for '[ "$(ls /proc/$target/task | wc -l)" -eq 2 ]' 10 ||
	fail "the workload did not start its second thread"
thread=$(ls "/proc/$target/task" | grep -vx "$target")
check "perfrecd --pid $target -d 20: exits 0 soon after the workload ends"
start_daemon "$out" --pid "$target" -F 499 -d 20
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
# Its end is seen at the next flush (1 s); 10 s is plenty, 20 would mean never.
wait_for '! kill -0 $daemon_pid 2>/dev/null' 10 || fail "perfrecd still runs 10 s after the process exited"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
! grep -q 'went offline' "$work/daemon.err" || fail "the process's exit was taken for CPUs going offline"
file=$(files_in "$out")
"$dump" --summary "$file" >/dev/null || fail "perfrec-dump --summary $file: status $?"
"$dump" "$file" >"$records" || fail "perfrec-dump $file: status $?"
sample_pids

check "samples of pid $target (and its children) only, at least 50, from both its threads"
others=$(foreign_samples "$target")
mine=$(sample_pids | awk -v pid="$target" '$2 == pid { print $1 }')
[ "$others" -eq 0 ] || fail "$others samples of other processes"
[ "${mine:-0}" -ge 50 ] || fail "only ${mine:-0} samples of pid $target"
grep -qE " SAMPLE .* pid=$target tid=$target " "$records" || fail "no samples of the main thread"
grep -qE " SAMPLE .* pid=$target tid=$thread " "$records" || fail "no samples of thread $thread"
! grep -q ' LOST_NOTE .* reason=cpu_offline' "$records" || fail "cpu_offline notes in the file"
check "the snapshot is of that process only"
sed -n '/ SNAPSHOT_BEGIN /,/ SNAPSHOT_END /p' "$records" >"$work/snapshot"
grep -q ' SNAPSHOT_END .* processes=1$' "$work/snapshot" || fail "$(grep SNAPSHOT_END "$work/snapshot")"
grep -E ' (COMM|FORK|MMAP2) ' "$work/snapshot" | grep -vq " pid=$target " &&
	fail "the snapshot has other processes"

# -- COMMAND ----------------------------------------------------------------
out=$work/command
check "perfrecd -d 20 -- workload --seconds 2 --fork: exits 0 when it ends, well before 20 s"
begin=$("$notify_listen" --now)
"$perfrecd" -d 20 -F 499 -o "$out" -- "$workload" --seconds 2 --fork 2>"$work/daemon.err" ||
	fail "perfrecd exited with status $?"
end=$("$notify_listen" --now)
elapsed=$(awk -v b="$begin" -v e="$end" 'BEGIN { printf "%.1f", e - b }')
note "perfrecd ran for $elapsed s"
awk -v t="$elapsed" 'BEGIN { exit !(t >= 2 && t < 12) }' || fail "perfrecd ran for $elapsed s"
! grep -q 'went offline' "$work/daemon.err" || fail "the command's end was taken for CPUs going offline"
file=$(files_in "$out")
"$dump" --summary "$file" >/dev/null || fail "perfrec-dump --summary $file: status $?"
"$dump" "$file" >"$records" || fail "perfrec-dump $file: status $?"
sample_pids

check "the command's exec (COMM exec=1 comm=workload) and its samples"
pid=$(sed -n 's/.* COMM .* pid=\([0-9]*\) tid=[0-9]* exec=1 comm=workload$/\1/p' "$records" | head -n 1)
[ -n "$pid" ] || fail "no COMM exec=1 comm=workload"
mine=$(sample_pids | awk -v pid="$pid" '$2 == pid { print $1 }')
[ "${mine:-0}" -ge 50 ] || fail "only ${mine:-0} samples of pid $pid"
check "samples of the command and its children only, its forked child among them"
child=$(sed -n "s/.* FORK .* pid=\\([0-9]*\\) ppid=$pid tid=\\([0-9]*\\) .*/\\1 \\2/p" "$records" |
	awk -v pid="$pid" '$1 != pid && $1 == $2 { print $1; exit }')
[ -n "$child" ] || fail "no FORK of the child"
others=$(foreign_samples "$pid")
[ "$others" -eq 0 ] || fail "$others samples of other processes"
grep -qE " SAMPLE .* pid=$child " "$records" || fail "no samples of the child $child"
! grep -q ' LOST_NOTE .* reason=cpu_offline' "$records" || fail "cpu_offline notes in the file"
note "PASS"
