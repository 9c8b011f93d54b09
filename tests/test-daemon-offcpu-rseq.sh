#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd --off-cpu's two ways of reading a blocked thread's user part
# (daemon/offcpu/offcpu.bpf.c): at rseq_update, which only threads that
# registered rseq pass, and at sys_exit (PERFRECD_OFF_CPU_HOOK=sys_exit).
# tests/offcpu-workload's main thread blocks in known ways, each measured
# by its own clock; from the capture's OFF_CPU records (tests/offcpu-read):
#   - without rseq (GLIBC_TUNABLES=glibc.pthread.rseq=0) its blocks are
#     all there, each kind's total within 5 % of the workload's measure,
#     with their kernel part; at rseq_update without a user part (no
#     PRF_OFF_CPU_USER_LATE), at sys_exit with it, through each phase's
#     function (nm);
#   - with rseq and at sys_exit, the same as at rseq_update
#     (test-daemon-offcpu.sh's default): totals and user callchains;
#   - a PERFRECD_OFF_CPU_HOOK that is neither is refused in one line, exit 2.
test_name=test-daemon-offcpu-rseq
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

offcpu_workload=$top_builddir/tests/offcpu-workload
offcpu_read=$top_builddir/tests/offcpu-read
needs_built "$offcpu_workload" "$offcpu_read"
offcpu_workload=$(readlink -f "$offcpu_workload")

check "PERFRECD_OFF_CPU_HOOK=bogus is refused in one line, exit 2"
status=0
PERFRECD_OFF_CPU_HOOK=bogus "$perfrecd" --off-cpu -d 0.2 -o "$work/bad" 2>"$work/bad.err" || status=$?
if grep -q "built without libbpf" "$work/bad.err"; then
	skip "perfrecd was built without libbpf (configure --enable-off-cpu)"
fi
[ "$status" -eq 2 ] || fail "status $status, expected 2: $(cat "$work/bad.err")"
[ "$(grep -c PERFRECD_OFF_CPU_HOOK "$work/bad.err")" -eq 1 ] || fail "$(cat "$work/bad.err")"

status=0
"$perfrecd" -v --off-cpu -d 0.2 -o "$work/probe" >/dev/null 2>"$work/probe.err" || status=$?
[ "$status" -eq 0 ] || skip "this kernel does not load the off-CPU program: $(grep -- --off-cpu "$work/probe.err")"
grep -q "read at rseq_update" "$work/probe.err" ||
	skip "this kernel has no rseq_update for the program: $(grep -- --off-cpu "$work/probe.err")"

realtime=
if command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
	realtime="chrt -f 10"
fi

# record HOOK NAME [ENV...]: the workload under perfrecd --off-cpu reading at HOOK.
record() {
	hook=$1 name=$2
	shift 2
	PERFRECD_OFF_CPU_HOOK=$hook
	export PERFRECD_OFF_CPU_HOOK
	start_daemon "$work/$name" -v --off-cpu
	env "$@" $realtime "$offcpu_workload" 20 10 10 10 >"$work/$name.workload" || fail "$name: the workload failed"
	sleep 0.3
	kill -INT "$daemon_pid"
	wait_daemon
	[ "$daemon_status" -eq 0 ] || fail "$name: perfrecd exited with status $daemon_status"
	grep -q "read at $hook" "$work/daemon.err" || fail "$name: $(grep -- --off-cpu "$work/daemon.err")"
	# shellcheck disable=SC2046
	"$offcpu_read" $(files_in "$work/$name") >"$work/$name.records" || fail "$name: offcpu-read failed"
}

# phase_records NAME KIND: the main thread's records in the phase's window.
phase_records() {
	awk -v phase="$2" 'FNR == NR { if ($1 == "tid") tid = $2; if ($1 == "phase" && $2 == phase) { start = $3; end = $4 } next }
		$1 == "off_cpu" && $5 == tid && $2 >= start && $2 < end' "$work/$1.workload" "$work/$1.records"
}

# user_through NAME FUNCTION: whether every line of stdin has, among U='s
# addresses, one in the function.
user_through() {
	address=$(awk -v f="$2" '$1 == "fn" && $2 == f { print $3 }' "$work/$1.workload")
	size=$(nm -S "$offcpu_workload" | awk -v f="$2" '$4 == f { print $2 }')
	[ -n "$address" ] && [ -n "$size" ] || fail "no address or size for $2"
	awk -v lo="$address" -v size="$size" "$awk_hex"'
		BEGIN { lo = hex(lo); hi = lo + hex(size) }
		{ ok = 0
		  for (i = 1; i <= NF; i++) if (index($i, "U=") == 1) {
			n = split(substr($i, 3), a, ",")
			for (j = 1; j <= n; j++) { x = hex(a[j]); if (x >= lo && x < hi) ok = 1 }
		  }
		  if (!ok) bad++ }
		END { exit bad > 0 || NR == 0 }'
}

# totals NAME: each kind's blocked time against the workload's, kernel parts.
totals() {
	for kind in sleep pipe mutex; do
		measured=$(awk -v k="$kind" '$1 == "phase" && $2 == k { print $5 }' "$work/$1.workload")
		recorded=$(phase_records "$1" "$kind" | awk '{ s += $3 } END { print s + 0 }')
		note "$1: $kind: workload $measured ns, records $recorded ns"
		awk -v m="$measured" -v r="$recorded" 'BEGIN { d = r - m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.05 * m) }' ||
			fail "$1: $kind: recorded $recorded ns against the workload's $measured ns"
		phase_records "$1" "$kind" | awk '$11 == "K=-" && int($7 / 4) % 2 == 0 { bad++ } END { exit bad > 0 }' ||
			fail "$1: $kind: a record without its kernel callchain"
		phase_records "$1" "$kind" | awk 'END { exit NR == 0 }' || fail "$1: $kind: no records"
	done
}

check "without rseq, at rseq_update: every block there, without a user part"
record rseq_update nors GLIBC_TUNABLES=glibc.pthread.rseq=0
totals nors
for kind in sleep pipe mutex; do
	phase_records nors "$kind" | awk '{ for (i = 1; i <= NF; i++) if (index($i, "U=") == 1 && $i != "U=-") bad++ }
		int($7 / 2) % 2 { bad++ } END { exit bad > 0 }' ||
		fail "nors: $kind: a user part or USER_LATE: $(phase_records nors "$kind" | head -2)"
done

check "without rseq, at sys_exit: every block there, with its user part"
record sys_exit nors-sys GLIBC_TUNABLES=glibc.pthread.rseq=0
totals nors-sys
for kind in sleep pipe mutex; do
	phase_records nors-sys "$kind" | user_through nors-sys "phase_$kind" ||
		fail "nors-sys: $kind: a user callchain misses phase_$kind: $(phase_records nors-sys "$kind" | head -2)"
done

check "with rseq, at sys_exit: every block there, with its user part"
record sys_exit rs-sys
totals rs-sys
for kind in sleep pipe mutex; do
	phase_records rs-sys "$kind" | user_through rs-sys "phase_$kind" ||
		fail "rs-sys: $kind: a user callchain misses phase_$kind: $(phase_records rs-sys "$kind" | head -2)"
done
note "ok"
