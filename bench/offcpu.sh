#!/bin/bash
# The off-CPU benchmark (run as root; figures in bench/README.md).
#
#   bench/offcpu.sh [--seconds N] [--rounds R] [--min LIST] [--hooks LIST] [--build DIR]
#
#   --seconds N   each run of the ping-pong (default 5)
#   --rounds R    rounds of the interleaved runs (default 3)
#   --min LIST    perfrecd --off-cpu-min values, comma-separated (default
#                 1ms, the default threshold)
#   --hooks LIST  where the user part is read (PERFRECD_OFF_CPU_HOOK),
#                 comma-separated (default rseq_update,sys_exit)
#   --build DIR   the build directory (default _build in the source tree)
#
# bench/offcpu-pingpong (two pairs of threads bouncing a byte through
# pipes) runs alone, under perfrecd --off-cpu --off-cpu-min M for each M,
# and under perf record -e sched:sched_switch -a -g, interleaved: each
# round runs each in turn, so drift in the machine's speed falls on all.
# For each recorder: round trips a second kept (against alone, the same
# round), bytes it wrote a second, and its CPU (user + system from
# /usr/bin/time, exit work included) a second of recording.
# perfrecd-cpu-only is perfrecd without --off-cpu (its default CPU
# sampling, which --off-cpu runs beside): what the off-CPU part adds is
# the difference.  The recorders are started a second before the ping-pong and stopped
# (SIGINT) after it.  Then, in the same round, the system-call probe:
# dd if=/dev/zero of=/dev/null bs=1 count=1000000 (2 M one-byte system
# calls) alone, under perfrecd without --off-cpu and under --off-cpu
# --off-cpu-min 60s with each hook (attached, no block long enough to
# record): "dd-NAME syscalls/s".
set -euo pipefail

seconds=5 rounds=3 mins=1ms hooks=rseq_update,sys_exit
build=$(cd "$(dirname "$0")/.." && pwd)/_build
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--min) mins=$2; shift 2 ;;
	--hooks) hooks=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "usage: $0 [--seconds N] [--rounds R] [--min LIST] [--hooks LIST] [--build DIR]" >&2; exit 2 ;;
	esac
done
pingpong=$build/bench/offcpu-pingpong
perfrecd=$build/perfrecd
[ -x "$pingpong" ] && [ -x "$perfrecd" ] || { echo "build perfrecd and bench/offcpu-pingpong in $build first" >&2; exit 2; }
work=$(mktemp -d /tmp/offcpu-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mounted=
if ! grep -q " /sys/kernel/tracing tracefs " /proc/self/mounts; then
	mount -t tracefs nodev /sys/kernel/tracing && mounted=1
fi
[ -z "$mounted" ] || trap 'umount /sys/kernel/tracing; rm -rf "$work"' EXIT

# run NAME COMMAND...: the ping-pong under COMMAND (none: alone); prints
# "NAME trips/s bytes/s cpu-s/s".
run() {
	local name=$1 out=$work/out pid trips bytes cpu
	shift
	rm -rf "$out" "$work/time"
	mkdir -p "$out"
	if [ $# -eq 0 ]; then
		trips=$("$pingpong" "$seconds")
		echo "$name $trips 0 0"
		return
	fi
	/usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" &
	pid=$!
	sleep 1
	trips=$("$pingpong" "$seconds")
	kill -INT "$(pgrep -P "$pid")"
	wait "$pid" || true
	bytes=$(du -sb "$out" | cut -f1)
	cpu=$(tail -n 1 "$work/time" | awk '{ print $1 + $2 }')
	awk -v n="$name" -v t="$trips" -v b="$bytes" -v c="$cpu" -v s="$seconds" \
		'BEGIN { printf "%s %d %.0f %.3f\n", n, t, b / (s + 1), c / (s + 1) }'
}

# syscalls NAME COMMAND...: dd's system calls a second under COMMAND (none: alone).
syscalls() {
	local name=$1 pid start end
	shift
	rm -rf "$work/out"
	if [ $# -gt 0 ]; then
		"$@" >/dev/null 2>&1 &
		pid=$!
		sleep 1
	fi
	start=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count=1000000 status=none
	end=$(date +%s%N)
	[ $# -eq 0 ] || { kill -INT "$pid"; wait "$pid" || true; }
	awk -v n="$name" -v t=$((end - start)) 'BEGIN { printf "dd-%s %.0f\n", n, 2e6 / (t / 1e9) }'
}

echo "# name round-trips/s bytes-written/s recorder-cpu-s/s"
for round in $(seq "$rounds"); do
	run alone
	run perfrecd-cpu-only "$perfrecd" --config /dev/null -o "$work/out"
	for min in ${mins//,/ }; do
		for hook in ${hooks//,/ }; do
			PERFRECD_OFF_CPU_HOOK=$hook run "perfrecd-$min-$hook" "$perfrecd" --config /dev/null \
				--off-cpu --off-cpu-min "$min" -o "$work/out"
		done
	done
	run perf-sched_switch-g perf record -e sched:sched_switch -a -g -o "$work/out/perf.data"
	syscalls alone
	syscalls perfrecd-cpu-only "$perfrecd" --config /dev/null -o "$work/out"
	for hook in ${hooks//,/ }; do
		PERFRECD_OFF_CPU_HOOK=$hook syscalls "perfrecd-60s-$hook" "$perfrecd" --config /dev/null \
			--off-cpu --off-cpu-min 60s -o "$work/out"
	done
done | tee "$work/results"
echo "# means; kept = round trips (system calls) against alone"
awk '!/^#/ && !/^dd-/ { t[$1] += $2; b[$1] += $3; c[$1] += $4; n[$1]++; if (!($1 in order)) order[$1] = ++k; names[k] = $1 }
	END { for (i = 1; i <= k; i++) { x = names[i]
		printf "%-32s %10.0f trips/s  kept %5.1f %%  %12.0f B/s  CPU %.3f s/s\n", x, t[x] / n[x],
			100 * t[x] / t["alone"], b[x] / n[x], c[x] / n[x] } }' "$work/results"
awk '/^dd-/ { t[$1] += $2; n[$1]++; if (!($1 in order)) order[$1] = ++k; names[k] = $1 }
	END { for (i = 1; i <= k; i++) { x = names[i]
		printf "%-32s %10.0f syscalls/s  kept %5.1f %%  %+6.0f ns a call against alone\n", x, t[x] / n[x],
			100 * t[x] / t["dd-alone"], 1e9 * n[x] / t[x] - 1e9 * n["dd-alone"] / t["dd-alone"] } }' "$work/results"
