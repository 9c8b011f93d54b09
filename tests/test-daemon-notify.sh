#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd under a service manager: NOTIFY_SOCKET names a datagram socket
# that tests/notify-listen reads, as systemd would, with WATCHDOG_USEC set
# (and WATCHDOG_PID unset, as systemd leaves it when the main process is
# the one it started).  READY=1 must come once, first, from perfrecd
# itself, and only once the events are open and the file is started: its
# time is after the file's start and after the snapshot's end (both on
# CLOCK_MONOTONIC, the clock notify-listen stamps datagrams with).
# WATCHDOG=1 must keep coming at half the watchdog interval (with
# --duration, and as a service), and STOPPING=1 must come at the end.
# SIGHUP (systemctl reload) must be framed by RELOADING=1, with
# MONOTONIC_USEC, and READY=1 once the new file is started.
test_name=test-daemon-notify
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

out=$work/out
socket=$work/notify.sock
log=$work/notify.log
seconds=4

"$notify_listen" "$socket" 30 >"$log" &
listener=$!
at_exit "kill $listener 2>/dev/null"
wait_for '[ -S "$socket" ]' 10 || fail "notify-listen did not bind $socket"

check "perfrecd -d $seconds with NOTIFY_SOCKET and WATCHDOG_USEC=1000000 exits 0"
NOTIFY_SOCKET=$socket WATCHDOG_USEC=1000000 \
	env -u WATCHDOG_PID "$perfrecd" -d "$seconds" -o "$out" 2>"$work/daemon.err" &
daemon_pid=$!
pid=$daemon_pid
wait_for 'grep -q " READY=1$" "$log"' 20 || fail "no READY=1 in 20 s"
hup_time=$("$notify_listen" --now)
kill -HUP "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
# notify-listen ends at STOPPING=1; give it a moment, then stop waiting.
wait_for '! kill -0 $listener 2>/dev/null' 10 || fail "notify-listen got no STOPPING=1"
wait "$listener" || true
cat "$log"
grep -q 'NOTIFY_SOCKET' "$work/daemon.err" && fail "perfrecd could not use the socket"

check "every datagram came from perfrecd (pid $pid)"
awk -v pid="$pid" '$3 != pid { exit 1 }' "$log" || fail "a datagram from another process"

check "the first datagram holds READY=1, and no other does but after RELOADING=1"
first=$(awk '$2 == 1' "$log")
echo "$first" | grep -q ' READY=1$' || fail "the first datagram has no READY=1"
[ "$(grep -c ' READY=1$' "$log")" -eq 2 ] || fail "READY=1 $(grep -c ' READY=1$' "$log") times, not twice"
ready=$(echo "$first" | awk '$4 == "READY=1" { print $1 }')

check "SIGHUP: RELOADING=1 with MONOTONIC_USEC after the signal, then READY=1 once the second file is started"
reloading=$(awk '$4 == "RELOADING=1" { print $2 }' "$log")
[ "$(echo "$reloading" | wc -w)" -eq 1 ] || fail "RELOADING=1 in datagrams '$reloading', not in one"
usec=$(awk -v d="$reloading" '$2 == d && $4 ~ /^MONOTONIC_USEC=/ { sub(/^MONOTONIC_USEC=/, "", $4); print $4 }' "$log")
received=$(awk -v d="$reloading" '$2 == d { print $1; exit }' "$log")
note "SIGHUP at $hup_time, MONOTONIC_USEC=$usec, received at $received"
awk -v h="$hup_time" -v u="$usec" -v r="$received" 'BEGIN { exit !(u != "" && h <= u / 1e6 + 0.000001 && u / 1e6 <= r) }' ||
	fail "MONOTONIC_USEC=$usec is not between the signal ($hup_time) and its receipt ($received)"
[ "$(file_count "$out")" -eq 2 ] || fail "$(file_count "$out") files after one SIGHUP, not 2"
reloaded=$(awk -v d="$reloading" '$2 > d && $4 == "READY=1" { print $1; exit }' "$log")
[ -n "$reloaded" ] || fail "no READY=1 after RELOADING=1"
second_start=$("$dump" --header "$(files_in "$out" | tail -n 1)" | sed -n 's/^CLOCK .* start_time=\([0-9.]*\) .*/\1/p')
awk -v s="$second_start" -v r="$reloaded" 'BEGIN { exit !(s + 0 > 0 && s <= r) }' ||
	fail "READY=1 ($reloaded) came before the second file started ($second_start)"

check "READY=1 came after the file was started and its snapshot written"
file=$(files_in "$out" | head -n 1)
[ -n "$file" ] || fail "no file"
"$dump" "$file" >"$work/records" || fail "perfrec-dump: status $?"
start=$(sed -n 's/^CLOCK .* start_time=\([0-9.]*\) .*/\1/p' "$work/records")
snapshot_end=$(sed -n 's/.* SNAPSHOT_END time=\([0-9.]*\) .*/\1/p' "$work/records")
note "file started at $start, snapshot done at $snapshot_end, READY=1 at $ready"
grep -q '^CLOCK clock=CLOCK_MONOTONIC ' "$work/records" || fail "the file's clock is not CLOCK_MONOTONIC"
awk -v a="$start" -v b="$snapshot_end" -v r="$ready" 'BEGIN { exit !(a + 0 > 0 && a <= b && b <= r) }' ||
	fail "READY=1 ($ready) came before the file started ($start) or its snapshot ended ($snapshot_end)"

# watchdog_gaps LOG READY: WATCHDOG=1 at least every 990 ms in LOG from
# READY (a time) to STOPPING=1, 4 or more; $stopping is STOPPING=1's time.
watchdog_gaps() {
	stopping=$(awk '$4 == "STOPPING=1" { print $1; exit }' "$1")
	[ -n "$stopping" ] || fail "no STOPPING=1"
	awk -v ready="$2" -v stopping="$stopping" '
		$4 == "WATCHDOG=1" { t[++n] = $1 }
		END {
			last = ready
			for (i = 1; i <= n; i++) {
				if (t[i] - last > gap) gap = t[i] - last
				last = t[i]
			}
			if (stopping - last > gap) gap = stopping - last
			printf "%d WATCHDOG=1, the longest gap %.3f s\n", n, gap
			exit !(n >= 4 && gap <= 0.99)
		}' "$1" >"$work/watchdog" || fail "$(cat "$work/watchdog")"
	note "$(cat "$work/watchdog")"
}

# perfrecd checks every 100 ms whether half the interval has passed, so the
# gaps are 500 to 600 ms; the bound is the interval itself, what systemd
# would act on.  The interval is 1 s, not less: the reload's new file takes
# a snapshot of /proc in the loop, which took 240 ms on a machine running
# two CI jobs, and a 400 ms interval failed there (the unit's is 30 s).
# --duration counts from the start, before the events are opened and the
# snapshot taken, which can take a second on a busy machine: at least 3 s
# remain between READY=1 and STOPPING=1.
check "WATCHDOG=1 at least every 990 ms from READY=1 to STOPPING=1 (WATCHDOG_USEC is 1 s); 4 or more"
watchdog_gaps "$log" "$ready"

check "STOPPING=1 is the last state sent, and came after READY=1"
last_state=$(grep -E ' (READY|STOPPING|WATCHDOG)=1$' "$log" | tail -n 1 | awk '{ print $4 }')
[ "$last_state" = "STOPPING=1" ] || fail "the last state sent is $last_state"
awk -v r="$ready" -v s="$stopping" 'BEGIN { exit !(s > r) }' || fail "STOPPING=1 before READY=1"
grep -q ' STATUS=' "$log" || fail "no STATUS= line at all"

# As a service (no --duration), perfrecd ticks at its drain interval (1 s)
# or a quarter of the watchdog's, whichever is shorter: a ping due at half
# the interval goes at most a quarter later.  Ticks at a half left a ping
# due a hair after a tick to the next: gaps of the whole second.
check "as a service, stopped by SIGTERM after 3 s: WATCHDOG=1 at least every 990 ms (WATCHDOG_USEC is 1 s)"
service_socket=$work/service.sock
service_log=$work/service.log
"$notify_listen" "$service_socket" 30 >"$service_log" &
service_listener=$!
at_exit "kill $service_listener 2>/dev/null"
wait_for '[ -S "$service_socket" ]' 10 || fail "notify-listen did not bind $service_socket"
NOTIFY_SOCKET=$service_socket WATCHDOG_USEC=1000000 \
	env -u WATCHDOG_PID "$perfrecd" -o "$work/service" 2>"$work/service.err" &
daemon_pid=$!
wait_for 'grep -q " READY=1$" "$service_log"' 20 || fail "no READY=1 in 20 s"
sleep 3
kill -TERM "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status on SIGTERM"
wait_for '! kill -0 $service_listener 2>/dev/null' 10 || fail "notify-listen got no STOPPING=1"
wait "$service_listener" || true
watchdog_gaps "$service_log" "$(awk '$4 == "READY=1" { print $1; exit }' "$service_log")"
note "PASS"
