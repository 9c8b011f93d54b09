#!/bin/bash
# Writing perf.data (perfrec-report --format=perf.data) against perf
# reading what was written (run as root).
#
#   bench/perfdata-write.sh [--samples N] [--freq F] [--build DIR]
#                           [--keep DIR] [--runs R]
#
#   --samples N   at least N samples in the capture (default 1000000): it
#                 lasts N / (CPUs x F) s plus 10 %
#   --freq F      sampling frequency per CPU (default 10000)
#   --build DIR   the build directory (default _build in the source tree),
#                 where perfrecd, perfrec-report and tests/workload are
#   --keep DIR    the capture in DIR/perfrec, kept; reused when there
#   --runs R      timed runs after one untimed warm-up (default 3): the
#                 best wall-clock time is shown, with its user + system
#                 time and peak RSS
#
# Capture: perfrecd -e cpu-clock -F F with frame-pointer callchains while
# tests/workload --threads 2 and a find / -xdev | sort | gzip loop run.
# Timed, output to /dev/null unless it is the file:
#   write     perfrec-report --format=perf.data -o DIR/w.data DIR/perfrec
#   report    perf report --stdio --no-children -i DIR/w.data --kallsyms ...
#   report-g  the same with -g none (no call graphs printed)
#   script    perf script -i DIR/w.data --kallsyms ...
# The goal: write no slower than perf report reads the result.
set -euo pipefail

samples=1000000
freq=10000
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/_build
keep=
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	--samples) samples=$2; shift 2 ;;
	--freq) freq=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [--samples N] [--freq F] [--build DIR] [--keep DIR] [--runs R]" >&2; exit 2 ;;
	esac
done
dir=${keep:-$(mktemp -d /tmp/perfdata-bench.XXXXXX)}
mkdir -p "$dir"
[ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT
report=$build/perfrec-report

if ! ls "$dir"/perfrec/*.prf >/dev/null 2>&1; then
	cpus=$(nproc)
	seconds=$(( samples * 11 / 10 / (cpus * freq) + 1 ))
	echo "capturing $seconds s at $freq Hz on $cpus CPUs into $dir/perfrec"
	"$build/perfrecd" -e cpu-clock -F "$freq" -d "$seconds" -o "$dir/perfrec" 2>"$dir/perfrecd.err" &
	daemon=$!
	sleep 1
	"$build/tests/workload" --seconds "$seconds" --threads 2 >/dev/null &
	load=$!
	( end=$((SECONDS + seconds)); while [ $SECONDS -lt $end ]; do
		find / -xdev 2>/dev/null | sort | gzip >/dev/null; done ) &
	finder=$!
	wait "$daemon" || true
	kill "$load" "$finder" 2>/dev/null || true
	wait "$load" "$finder" 2>/dev/null || true
fi

# measure NAME CMD...: the best of runs, after a warm-up.
measure() {
	local name=$1 best= line
	shift
	"$@" >/dev/null 2>"$dir/$name.err"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S %M' -o "$dir/$name.time" "$@" >/dev/null 2>>"$dir/$name.err"
		line=$(cat "$dir/$name.time")
		if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best=$line
		fi
	done
	set -- $best
	printf '| %s | %s | %.2f | %.0f |\n' "$name" "$1" "$(echo "$2 + $3" | bc)" "$(echo "$4 / 1024" | bc)"
}

data=$dir/w.data
"$report" --format=perf.data -o "$data" "$dir/perfrec" 2>"$dir/write.note"
echo "$(cat "$dir/write.note"); $(du -m "$data" | cut -f1) MiB of perf.data, $(du -sm "$dir/perfrec" | cut -f1) MiB of capture"
echo
echo "| step | wall s | cpu s | peak MiB |"
echo "|---|---|---|---|"
measure write "$report" -q --format=perf.data -o "$data" "$dir/perfrec"
measure report perf report --stdio --no-children -i "$data" --kallsyms "$data.kallsyms"
measure report-g perf report --stdio --no-children -g none -i "$data" --kallsyms "$data.kallsyms"
measure script perf script -i "$data" --kallsyms "$data.kallsyms"
