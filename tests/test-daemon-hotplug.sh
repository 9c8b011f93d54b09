#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CPU hotplug: a CPU taken offline while perfrecd samples the machine is
# noted (a lost-data note, a notice), and when it comes back its event is
# opened again: a new file starts whose header names the new event id,
# and samples of that CPU follow in it.  Every file reads back sound.
#
# It takes CPU 1 offline for a few seconds: the other tests must not run
# meanwhile (their daemons would see it go), so it holds tests/lib.sh's
# CPU lock exclusively while it does.
test_name=test-daemon-hotplug
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

cpu=1
control=/sys/devices/system/cpu/cpu$cpu/online
[ -w "$control" ] || skip "$control is not writable: CPU $cpu cannot be taken offline here"
[ "$(cat "$control")" = 1 ] || skip "CPU $cpu is offline already"
command -v flock >/dev/null 2>&1 || skip "no flock (util-linux)"
hold_cpus_exclusively

out=$work/out
start_workload --seconds 30 --threads 2
check "perfrecd samples both CPUs; CPU $cpu goes offline, then comes back"
start_daemon "$out" --config /dev/null -e cpu-clock -F 499 -d 20
wait_flushed "$(files_in "$out" | head -n 1)"
at_exit "echo 1 >'$control'"
echo 0 >"$control" || skip "the kernel refused to take CPU $cpu offline"
wait_for 'grep -q "CPU $cpu went offline" "$work/daemon.err"' 10 ||
	fail "perfrecd did not notice CPU $cpu going offline"
sleep 2
echo 1 >"$control" || fail "cannot bring CPU $cpu back online"
back=$("$notify_listen" --now)
wait_for 'grep -q "CPU $cpu is online again: sampling it" "$work/daemon.err"' 10 ||
	fail "perfrecd did not open CPU $cpu again"
sleep 2
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
sed 's/^/  /' "$work/daemon.err"

check "every file is sound; CPU $cpu's samples after it came back are in the files"
files=$(file_count "$out")
[ "$files" -ge 2 ] || fail "$files file: a CPU back online should start a new one"
after=0
for file in $(files_in "$out"); do
	"$dump" "$file" >"$work/records" 2>"$work/dump.err" || fail "$file: perfrec-dump: $(cat "$work/dump.err")"
	n=$(awk -v back="$back" -v cpu="$cpu" '
		/ SAMPLE / {
			t = ""; c = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^time=/) t = substr($i, 6)
				if ($i ~ /^cpu=/) c = substr($i, 5)
			}
			if (c == cpu && t + 0 > back + 0) n++
		}
		END { print n + 0 }' "$work/records")
	after=$((after + n))
done
note "$files files; $after samples of CPU $cpu after it came back"
[ "$after" -gt 100 ] || fail "only $after samples of CPU $cpu after it came back online"
notes=$(for file in $(files_in "$out"); do "$dump" "$file" 2>/dev/null; done |
	grep -c "LOST_NOTE .*reason=cpu_offline cpu=$cpu " || true)
[ "$notes" -eq 1 ] || fail "$notes notes of CPU $cpu going offline, expected 1"
note "PASS"
