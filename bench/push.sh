#!/bin/bash
# The cost of perfrec-push: its CPU time per pushed host-hour (run as root).
#
#   bench/push.sh [--minutes M] [--build DIR] [--keep DIR] [--interval S]
#
#   --minutes M   capture M minutes (default 5) of this machine, system-wide,
#                 at perfrecd's defaults (97 Hz, cycles or cpu-clock, files
#                 of 10 minutes), while it is busy: tests/workload
#                 --threads N on every CPU (every tick of every CPU lands in
#                 a stack) and a loop of short processes (find | sort |
#                 gzip: many process names, so many series)
#   --build DIR   the build directory (default _build in the source tree)
#   --keep DIR    keep the capture in DIR; if DIR holds one, reuse it
#   --interval S  perfrec-push --interval (default 60, its default)
#   --rotate T    perfrecd --rotate-age T (default its 10m): more files, to
#                 see a file's fixed cost (perfrec-push keeps its symbolizer
#                 from file to file; perfrec-report reads all at once)
#   --steady      no loop of short processes: the busy CPUs only (a host
#                 whose processes live long, as most servers' do)
#
# Then, side by side on the same files:
#   push      perfrec-push --once to tests/push-receiver.py on 127.0.0.1
#             (a profile per series and interval, symbolized, gzipped,
#             POSTed, the state file synced after each)
#   report    perfrec-report --format=pprof -o /dev/null (one profile of
#             everything: the same symbolization, one encoding)
# each timed with /usr/bin/time (user + system CPU, peak RSS).
#
# CPU per host-hour is push's CPU x 60 / M, scaled to this machine's CPU
# count as if it had 2 (the samples, and so the work, grow with CPUs x
# time at a fixed frequency): x 2 / CPUs.  The scaling is conservative:
# the fixed cost of each file (a new symbolizer opening the binaries) is
# scaled too, as if there were 60 / M files an hour rather than 6.
# The machine's other load is not controlled; the figures are CPU time,
# which load does not inflate much, not wall-clock time.
set -euo pipefail

minutes=5 build= keep= interval=60 steady=no rotate=10m
usage() { sed -n '2,36p' "$0" >&2; exit 2; }
die() { echo "bench/push.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) minutes=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	--keep) keep=${2:-}; shift 2 || usage ;;
	--interval) interval=${2:-}; shift 2 || usage ;;
	--steady) steady=yes; shift ;;
	--rotate) rotate=${2:-}; shift 2 || usage ;;
	*) usage ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "run as root (system-wide sampling)"
src=$(cd "$(dirname "$0")/.." && pwd)
build=${build:-$src/_build}
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
make -C "$build" perfrecd perfrec-push perfrec-report tests/workload >/dev/null
work=$(mktemp -d /tmp/bench-push.XXXXXX)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
cpus=$(nproc)
capture=${keep:-$work/capture}
mkdir -p "$capture"

if ! ls "$capture"/perfrec-*.prf >/dev/null 2>&1; then
	echo "+ capturing $minutes min of $cpus CPUs at perfrecd's defaults"
	"$build/tests/workload" --threads "$cpus" --seconds $((minutes * 60 + 5)) >/dev/null &
	pids+=($!)
	if [ "$steady" = no ]; then
		timeout $((minutes * 60 + 5)) sh -c \
			'while :; do find /usr -xdev 2>/dev/null | sort | gzip >/dev/null; done' &
		pids+=($!)
	fi
	"$build/perfrecd" -o "$capture" -d $((minutes * 60)) --rotate-age "$rotate" \
		2>"$work/perfrecd.err" ||
		die "perfrecd: $(tail -n 3 "$work/perfrecd.err")"
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
	tail -n 1 "$work/perfrecd.err"
fi

mkdir "$work/rx"
python3 "$src/tests/push-receiver.py" "$work/rx" 2>/dev/null &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/rx/port" ] && break; sleep 0.1; done
port=$(cat "$work/rx/port")

timed() {	# NAME CMD...: "user system rss" into $work/NAME.time
	local name=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$work/$name.time" "$@" >/dev/null 2>"$work/$name.err" ||
		die "$name: $(tail -n 3 "$work/$name.err")"
}
timed push "$build/perfrec-push" --url "http://127.0.0.1:$port" --once \
	--interval "$interval" --state "$work/state" "$capture"
timed report "$build/perfrec-report" --format=pprof -o "$work/all.pb.gz" "$capture"

profiles=$(ls "$work/rx"/*.json | wc -l)
bytes=$(cat "$work/rx"/*.body | wc -c)
read -r pu ps prss <"$work/push.time"
read -r ru rs rrss <"$work/report.time"
awk -v pu="$pu" -v ps="$ps" -v ru="$ru" -v rs="$rs" -v prss="$prss" -v rrss="$rrss" \
    -v m="$minutes" -v cpus="$cpus" -v profiles="$profiles" -v bytes="$bytes" \
    -v files="$(ls "$capture"/perfrec-*.prf | wc -l)" 'BEGIN {
	push = pu + ps; report = ru + rs
	printf "capture: %d min of %d CPUs, %d files; pushed %d profiles, %.1f KiB\n", m, cpus, files, profiles, bytes / 1024
	printf "%-8s %10s %10s %10s\n", "", "user s", "system s", "peak RSS"
	printf "%-8s %10.2f %10.2f %8d KiB\n", "push", pu, ps, prss
	printf "%-8s %10.2f %10.2f %8d KiB\n", "report", ru, rs, rrss
	printf "push / report CPU: %.2f\n", (report > 0 ? push / report : 0)
	printf "perfrec-push CPU per host-hour of a 2-CPU host: %.2f s (goal < 1 s)\n", push * 60 / m * 2 / cpus
}'
