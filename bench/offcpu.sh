#!/bin/bash
# The off-CPU benchmark (run as root; figures in bench/README.md).
#
#   bench/offcpu.sh [--seconds N] [--rounds R] [--min LIST] [--build DIR]
#
#   --seconds N   each run of the ping-pong (default 5)
#   --rounds R    rounds of the interleaved runs (default 3)
#   --min LIST    perfrecd --off-cpu-min values, comma-separated (default
#                 1ms, the default threshold)
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
# (SIGINT) after it.
set -euo pipefail

seconds=5 rounds=3 mins=1ms
build=$(cd "$(dirname "$0")/.." && pwd)/_build
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--min) mins=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "usage: $0 [--seconds N] [--rounds R] [--min LIST] [--build DIR]" >&2; exit 2 ;;
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

echo "# name round-trips/s bytes-written/s recorder-cpu-s/s"
for round in $(seq "$rounds"); do
	run alone
	run perfrecd-cpu-only "$perfrecd" --config /dev/null -o "$work/out"
	for min in ${mins//,/ }; do
		run "perfrecd-$min" "$perfrecd" --config /dev/null --off-cpu --off-cpu-min "$min" -o "$work/out"
	done
	run perf-sched_switch-g perf record -e sched:sched_switch -a -g -o "$work/out/perf.data"
done | tee "$work/results"
echo "# means; kept = round trips against alone"
awk '!/^#/ { t[$1] += $2; b[$1] += $3; c[$1] += $4; n[$1]++; if (!($1 in order)) order[$1] = ++k; names[k] = $1 }
	END { for (i = 1; i <= k; i++) { x = names[i]
		printf "%-24s %10.0f trips/s  kept %5.1f %%  %12.0f B/s  CPU %.3f s/s\n", x, t[x] / n[x],
			100 * t[x] / t["alone"], b[x] / n[x], c[x] / n[x] } }' "$work/results"
