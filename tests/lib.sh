# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared helpers of the perfrecd end-to-end tests (tests/test-daemon-*.sh).
# A test sets `test_name`, sources this file, and gets:
#
#   $perfrecd $dump $workload $notify_listen   the programs, from $top_builddir
#   $work            a private temporary directory, removed on exit
#   check TEXT       says what is being checked next
#   note TEXT        says something worth seeing in the log
#   fail TEXT        says what went wrong, shows the logs, exits 1
#   skip TEXT        exits 77: only for what cannot be done here (not root)
#   hold_cpus_exclusively
#                    waits until no other test that samples runs, and keeps
#                    them waiting until this one ends (CPU hotplug)
#   at_exit CMD      runs CMD (a shell command string) on exit, before the
#                    temporary directory goes: unmounts, sysctls, processes
#   start_daemon DIR [ARGS...]
#                    starts perfrecd -o DIR ARGS in the background, its
#                    stderr in $work/daemon.err, and waits until its first
#                    file exists; sets $daemon_pid
#   wait_daemon      waits for it to exit; sets $daemon_status
#   wait_flushed FILE
#                    waits until FILE holds a STATS record: the daemon has
#                    flushed once, so the snapshot and kernel symbols that
#                    start the file are on disk
#   start_workload [ARGS...]
#                    starts the workload in the background, sets
#                    $workload_pid, and waits until it has exec'd
#   wait_workload    waits for it to exit; sets $workload_status
#   files_in DIR     the capture files of DIR, oldest first
#   file_count DIR   how many there are
#   online_cpus      the online CPUs' numbers, one a line
#   elf_build_id F   the Build ID of ELF file F, as eu-readelf -n says it
#   symbol_range F S "address size" of function S in F, from nm -S
#   $awk_hex         awk functions hex(s) and field(key) for dump lines
#
# The timeouts are generous: CI runs these tests under ASan and UBSan too,
# two at a time on two CPUs.

set -eu

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(dirname "$0")/..}
perfrecd=$top_builddir/perfrecd
dump=$top_builddir/perfrec-dump
workload=$top_builddir/tests/workload
notify_listen=$top_builddir/tests/notify-listen
test_name=${test_name:-$(basename "$0" .sh)}

# needs_built PROGRAM...: each one built, or the test is an error (99).
needs_built() {
	for program; do
		[ -x "$program" ] || { echo "$test_name: $program not built" >&2; exit 99; }
	done
}

# needs_nobody: what an attack as the user nobody takes, or SKIP.  Sets
# python to Debian's, which any user may run (not a shim under /root),
# and nobody_group; as_nobody runs a command as nobody.
needs_nobody() {
	command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
	python=/usr/bin/python3
	[ -x "$python" ] || skip "no $python (apt-get install python3)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	nobody_group=$(id -gn nobody)
}
as_nobody() { setpriv --reuid=nobody --regid="$nobody_group" --clear-groups "$@"; }

# fresh_uid: a uid that no account and no process has, in $attacker.
# perfrecd's budgets are per user, and other tests run nobody's processes
# at the same time.
fresh_uid() {
	attacker=$((50000 + $$ % 10000))
	while getent passwd "$attacker" >/dev/null || pgrep -u "$attacker" >/dev/null; do
		attacker=$((attacker + 1))
	done
}

needs_built "$perfrecd" "$dump" "$workload" "$notify_listen"
# Absolute and with symlinks resolved, as the kernel names mapped files.
workload=$(readlink -f "$workload")

# The daemons of the tests must not talk to a service manager of their own.
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID

# The online CPUs, one a line, from "0-3,5" in sysfs.
online_cpus() {
	tr ',' '\n' </sys/devices/system/cpu/online |
		awk -F- 'NF { last = NF > 1 ? $2 : $1; for (cpu = $1; cpu <= last; cpu++) print cpu }'
}

check() {
	echo "$test_name: check: $*"
}

note() {
	echo "$test_name: $*"
}

fail() {
	echo "$test_name: FAIL: $*" >&2
	if [ -s "$work/daemon.err" ]; then
		echo "--- perfrecd's stderr:" >&2
		tail -n 40 "$work/daemon.err" >&2
	fi
	exit 1
}

skip() {
	echo "$test_name: SKIP: $*"
	exit 77
}

# A test that reads captures only sets needs_root=no before sourcing this.
[ "${needs_root:-yes}" = no ] || [ "$(id -u)" -eq 0 ] ||
	skip "needs root (system-wide perf_event_open, mounts, setpriv)"

work=$(mktemp -d "${TMPDIR:-/tmp}/$test_name.XXXXXX")
exit_actions=
daemon_pid=
workload_pid=

at_exit() {
	exit_actions="$1
$exit_actions"
}

cleanup() {
	status=$?
	set +e
	for pid in $daemon_pid $workload_pid; do
		kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	eval "$exit_actions"
	rm -rf "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# test-daemon-hotplug takes a CPU away from every daemon on the machine:
# the tests that sample hold this lock shared, and it exclusively
# (hold_cpus_exclusively) while the CPU is offline.
if command -v flock >/dev/null 2>&1 && [ -w "$top_builddir/tests" ]; then
	exec 8>>"$top_builddir/tests/.cpu-hotplug.lock"
	flock -s 8
fi
hold_cpus_exclusively() {
	flock -x 8
}

# Waits up to $2 seconds (default 10) for the shell condition $1.
wait_for() {
	tries=$(( ${2:-10} * 20 ))
	while ! eval "$1"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.05
	done
}

files_in() {
	# The sequence number ends the name; the stamp before it is UTC time.
	ls "$1" 2>/dev/null | grep -E '^perfrec-.*-[0-9]{4,}\.prf$' | sort -t- -k4 -n | sed "s|^|$1/|"
}

file_count() {
	files_in "$1" | wc -l
}

start_daemon() {
	out_dir=$1
	shift
	"$perfrecd" -o "$out_dir" "$@" 2>"$work/daemon.err" &
	daemon_pid=$!
	wait_for '[ "$(file_count "$out_dir")" -gt 0 ] || ! kill -0 $daemon_pid 2>/dev/null' 20 ||
		fail "perfrecd wrote no file in 20 s"
	kill -0 "$daemon_pid" 2>/dev/null || { wait_daemon; fail "perfrecd exited early with status $daemon_status"; }
}

wait_daemon() {
	daemon_status=0
	wait "$daemon_pid" || daemon_status=$?
	daemon_pid=
}

wait_flushed() {
	flushed_file=$1
	wait_for '"$dump" "$flushed_file" 2>/dev/null | grep -q " STATS "' 20 ||
		fail "$1: nothing flushed in 20 s"
}

start_workload() {
	"$workload" "$@" &
	workload_pid=$!
	wait_for '[ "$(cat /proc/$workload_pid/comm 2>/dev/null)" = workload ]' 10 ||
		fail "the workload did not start"
}

wait_workload() {
	workload_status=0
	wait "$workload_pid" || workload_status=$?
	workload_pid=
}

# Hexadecimal to a number, in awk (mawk has no strtonum): exact for user
# addresses, below 2^53.
awk_hex='
function hex(s,    i, n, c) {
	n = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			return -1
		n = n * 16 + c - 1
	}
	return n
}
# The value of field key= on the current line, or "".
function field(key,    i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}'

# The Build ID of an ELF file, as eu-readelf -n says it.
elf_build_id() {
	eu-readelf -n "$1" | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1
}

# "address size" of a function symbol, from nm -S (hexadecimal, no 0x).
symbol_range() {
	nm -S --defined-only "$1" | awk -v name="$2" '$4 == name && ($3 == "T" || $3 == "t") { print $1, $2; exit }'
}
