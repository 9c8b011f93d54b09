#!/bin/bash
# The dwarf benchmark: perfrecd --call-graph dwarf against perf record
# --call-graph dwarf, side by side (run as root).
#
#   bench/dwarf.sh [--seconds N] [--freq F] [--size SIZE] [--build DIR] [--keep]
#
#   --seconds N   how long the work runs (default 10)
#   --freq F      samples per second per CPU, for both tools (default 997)
#   --size SIZE   user stack bytes per sample, for both (default 8192, the
#                 default of both)
#   --build DIR   the build directory (default _build in the source tree);
#                 perfrecd, perfrec-dump, perfrec-report and bench/dwarf-work
#                 are built in it
#   --keep        keep the recordings in the temporary directory it prints
#
# The work is bench/dwarf-work on every CPU: a comparator called from
# glibc's qsort, built without frame pointers (as Debian's libc is), so
# only unwinding with call frame information finds who called qsort.
# Both collectors sample every CPU (-a) with cpu-clock at F Hz, both are
# started before the work and stopped after it, so they record the same
# interval at the same time:
#   perfrecd --config EMPTY -e cpu-clock -F F --call-graph dwarf,SIZE -o DIR
#   perf record -e cpu-clock -a -F F --call-graph dwarf,SIZE -o perf.data
# perf's file is uncompressed: perf 6.1's own perf report cannot read its
# -z files here.  perfrecd compresses with zstd (its default, level 3), so
# the like-for-like size is perf.data compressed with zstd -3 afterwards
# ("perf -z*" below): what perf record -z at the same level would write,
# give or take its per-record framing.
#
# Measured per tool:
#   samples, lost  perfrecd: the last STATS record of its files (samples,
#                  lost + lost_samples: PERF_RECORD_LOST and LOST_SAMPLES);
#                  perf: perf report --stats (SAMPLE and LOST_SAMPLES of the
#                  event, or the sum of its LOST records if larger)
#   bytes/sample   the files on disk over the samples; for perfrecd also
#                  without the chunk of its /proc/kallsyms snapshot (about
#                  1 MB once per file; perf.data has no such thing)
#   CPU            the collector's user + system time: "run" from
#                  /proc/PID/stat just before it is told to stop, "total"
#                  from wait4() (bench/collector-run), exit work included
#                  (perf's build-id pass over its file)
# and for the reader side, on the same captures:
#   perfrec-report --view=tree FILES   against
#   perf report --no-children --stdio -g caller -i perf.data
# samples per second of wall-clock time (best of 5 runs, output to
# /dev/null), and the
# share of the samples in compare_records whose unwound stack reaches
# sort_rounds, the caller of qsort (perfrec-report --view=folded; perf
# script).  When perfrec-report does not unwind (no such stacks), its
# throughput is printed as PENDING: there is nothing to compare yet.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/_build
seconds=10
freq=997
size=8192
keep=0

usage() {
	sed -n '2,/^# The work is/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=${2:-}; shift 2 || usage ;;
	--freq) freq=${2:-}; shift 2 || usage ;;
	--size) size=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	--keep) keep=1; shift ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
for n in "$seconds" "$freq" "$size"; do
	case "$n" in ''|*[!0-9]*) usage ;; esac
done
[ "$(id -u)" -eq 0 ] || { echo "dwarf.sh: run as root (system-wide sampling)" >&2; exit 2; }
command -v perf >/dev/null || { echo "dwarf.sh: no perf (linux-perf)" >&2; exit 2; }
command -v zstd >/dev/null || { echo "dwarf.sh: no zstd (apt-get install zstd)" >&2; exit 2; }

echo "+ make -C $build perfrecd perfrec-dump perfrec-report bench/dwarf-work bench/collector-run"
make -C "$build" perfrecd perfrec-dump perfrec-report bench/dwarf-work bench/collector-run \
	>/dev/null || { echo "dwarf.sh: the build failed" >&2; exit 1; }
perfrecd=$build/perfrecd
dump=$build/perfrec-dump
report=$build/perfrec-report
work=$build/bench/dwarf-work
runner=$build/bench/collector-run

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf-bench.XXXXXX")
started_pids=
cleanup() {
	for pid in $started_pids; do
		kill -KILL "$pid" 2>/dev/null
	done
	if [ "$keep" = 1 ]; then
		echo "recordings kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The same budget for both: no throttling of the sampling rate.
rate=/proc/sys/kernel/perf_event_max_sample_rate
saved_rate=$(cat "$rate")
if [ "$saved_rate" -lt $((freq * 4)) ]; then
	echo $((freq * 4)) >"$rate"
	trap 'echo "$saved_rate" >"$rate"; cleanup' EXIT
fi

# start_tool NAME COMMAND...: in the background under collector-run,
# which writes the command's pid to NAME.pid and its rusage to NAME.usage.
start_tool() {
	local name=$1
	shift
	PERF_BUILDID_DIR=$tmp/buildid "$runner" "$tmp/$name.pid" "$tmp/$name.usage" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	eval "wrapper_$name=$!"
	started_pids="$started_pids $!"
	for _ in $(seq 50); do
		[ -s "$tmp/$name.pid" ] && break
		sleep 0.1
	done
	eval "pid_$name=$(cat "$tmp/$name.pid")"
	eval "started_pids=\"\$started_pids \$pid_$name\""
}

# cpu_seconds PID: utime + stime of all its threads so far.
cpu_seconds() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}

# stop_tool NAME SIGNAL: notes its CPU time, signals it, waits (60 s at most).
stop_tool() {
	local name=$1 signal=$2 pid wrapper
	eval "pid=\$pid_$name wrapper=\$wrapper_$name"
	cpu_seconds "$pid" >"$tmp/$name.cpu_run"
	kill -"$signal" "$pid"
	for _ in $(seq 600); do
		kill -0 "$wrapper" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$wrapper" 2>/dev/null && { echo "dwarf.sh: $name did not stop; killed" >&2; kill -KILL "$pid"; }
	wait "$wrapper" 2>/dev/null
}

value() {
	tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1
}

# -- record ---------------------------------------------------------------
: >"$tmp/empty.conf"
mkdir -p "$tmp/prf"
cpus=$(getconf _NPROCESSORS_ONLN)
echo "recording: $cpus CPUs, cpu-clock at $freq Hz, dwarf,$size, $seconds s of dwarf-work on every CPU"
start_tool perfrecd "$perfrecd" --config "$tmp/empty.conf" -e cpu-clock -F "$freq" \
	--call-graph "dwarf,$size" -o "$tmp/prf"
start_tool perf perf record -q -e cpu-clock -a -F "$freq" --call-graph "dwarf,$size" \
	-o "$tmp/perf.data"
# Both ready: perfrecd's first file, perf's header.
for _ in $(seq 100); do
	ls "$tmp"/prf/*.prf >/dev/null 2>&1 && [ -s "$tmp/perf.data" ] && break
	sleep 0.1
done
sleep 0.5
"$work" --seconds "$seconds" >"$tmp/work.out" || echo "dwarf.sh: the work failed" >&2
stop_tool perfrecd TERM
stop_tool perf INT

# -- what each recorded ------------------------------------------------------
files=$(ls "$tmp"/prf/*.prf)
stats=$(for f in $files; do "$dump" "$f" 2>/dev/null | grep ' STATS ' | tail -1; done | tail -1)
prf_samples=$(echo "$stats" | tr ' ' '\n' | sed -n 's/^samples=//p')
prf_lost=$(echo "$stats" | tr ' ' '\n' | awk -F= '$1 == "lost" || $1 == "lost_samples" { s += $2 } END { print s + 0 }')
prf_bytes=0 prf_kallsyms=0
for f in $files; do
	prf_bytes=$((prf_bytes + $(stat -c %s "$f")))
	chunk=$("$dump" "$f" 2>/dev/null | grep -m1 -E '^chunk=[0-9]+ .* KALLSYMS ' | sed 's/^chunk=\([0-9]*\) .*/\1/')
	[ -n "$chunk" ] || continue
	stored=$("$dump" --chunks "$f" 2>/dev/null |
		awk -v s="sequence=$chunk" '$2 == s { for (i = 1; i <= NF; i++) if ($i ~ /^stored=/) { sub("stored=", "", $i); print $i } }')
	[ -n "$stored" ] && prf_kallsyms=$((prf_kallsyms + 64 + (stored + 7) / 8 * 8))
done
perf_stats=$(perf report --stats -i "$tmp/perf.data" 2>/dev/null)
perf_samples=$(echo "$perf_stats" | sed -n '/^cpu-clock stats:$/,$s/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | tail -1)
perf_lost=$(echo "$perf_stats" | sed -n '/^cpu-clock stats:$/,$s/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' | tail -1)
if echo "$perf_stats" | grep -qE '^ *LOST events: *[1-9]'; then
	lost_sum=$(perf report -D -i "$tmp/perf.data" 2>/dev/null |
		sed -n 's/.*PERF_RECORD_LOST: .*lost:\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	[ "$lost_sum" -gt "${perf_lost:-0}" ] && perf_lost=$lost_sum
fi
perf_bytes=$(stat -c %s "$tmp/perf.data")
perf_zbytes=$(zstd -3 -q -c "$tmp/perf.data" | wc -c)
prf_total=$(awk -v u="$(value "$tmp/perfrecd.usage" user)" -v s="$(value "$tmp/perfrecd.usage" system)" 'BEGIN { printf "%.2f", u + s }')
perf_total=$(awk -v u="$(value "$tmp/perf.usage" user)" -v s="$(value "$tmp/perf.usage" system)" 'BEGIN { printf "%.2f", u + s }')
grep -h 'user stacks:' "$tmp/perfrecd.err" | sed 's/^/  /'

echo
printf '%-9s %9s %8s %12s %12s %13s %9s %9s\n' tool samples lost "bytes" "bytes/sample" "-kallsyms" "CPU run" "CPU total"
printf '%-9s %9s %8s %12s %12.0f %13.0f %8ss %8ss\n' perfrecd "$prf_samples" "$prf_lost" "$prf_bytes" \
	"$(echo "$prf_bytes $prf_samples" | awk '{ print $2 ? $1 / $2 : 0 }')" \
	"$(echo "$prf_bytes $prf_kallsyms $prf_samples" | awk '{ print $3 ? ($1 - $2) / $3 : 0 }')" \
	"$(cat "$tmp/perfrecd.cpu_run")" "$prf_total"
printf '%-9s %9s %8s %12s %12.0f %13s %8ss %8ss\n' perf "${perf_samples:-0}" "${perf_lost:-0}" "$perf_bytes" \
	"$(echo "$perf_bytes ${perf_samples:-0}" | awk '{ print $2 ? $1 / $2 : 0 }')" "-" \
	"$(cat "$tmp/perf.cpu_run")" "$perf_total"
printf '%-9s %9s %8s %12s %12.0f %13s\n' "perf -z*" "${perf_samples:-0}" "${perf_lost:-0}" "$perf_zbytes" \
	"$(echo "$perf_zbytes ${perf_samples:-0}" | awk '{ print $2 ? $1 / $2 : 0 }')" "-"
awk -v pb="$prf_bytes" -v pk="$prf_kallsyms" -v ps="$prf_samples" -v fb="$perf_bytes" -v fz="$perf_zbytes" -v fs="${perf_samples:-0}" \
    -v pc="$(cat "$tmp/perfrecd.cpu_run")" -v fc="$(cat "$tmp/perf.cpu_run")" -v pt="$prf_total" -v ft="$perf_total" '
	BEGIN {
		if (!ps || !fs) { print "ratios: no samples"; exit }
		printf "ratio perfrecd/perf: bytes/sample %.3f of perf compressed alike (%.3f of its uncompressed file; goal <= 0.3); CPU run %s, total %s; samples %.3f\n",
			(pb / ps) / (fz / fs), (pb / ps) / (fb / fs),
			(fc > 0 ? sprintf("%.2f", pc / fc) : "n/a"), (ft > 0 ? sprintf("%.2f", pt / ft) : "n/a"), ps / fs
	}'

# -- reading: unwinding throughput ---------------------------------------------
# seconds_of COMMAND...: "WALL CPU" of the run with the best wall-clock
# time of 5 (CPU: user + system, of all its threads), output discarded;
# the first run also warms the page cache.  Timed by bash's time, to the
# millisecond (time(1) gives hundredths, a tenth of perfrec-report's
# run).  On a shared machine CPU is the steadier figure.
seconds_of() {
	local best= line TIMEFORMAT='%3R %3U %3S'
	for _ in 1 2 3 4 5; do
		{ time "$@" >/dev/null 2>"$tmp/read.err"; } 2>"$tmp/time.out"
		line=$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$tmp/time.out")
		best=$(echo "$line ${best:-1e9 0}" | awk '{ print ($1 < $3 ? $1 " " $2 : $3 " " $4) }')
	done
	echo "$best"
}

echo
set -- $(seconds_of "$report" -q --view=tree $files)
prf_read=$1 prf_cpu=$2
set -- $(seconds_of perf report --no-children --stdio -g caller -i "$tmp/perf.data")
perf_read=$1 perf_cpu=$2
# The samples in the comparator whose stack reaches the caller of qsort.
"$report" -q --view=folded $files 2>/dev/null >"$tmp/prf.folded"
prf_reach=$(awk '
	{ n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack) }
	stack ~ /compare_records$/ { all += n; if (stack ~ /sort_rounds/) reached += n }
	END { printf "%d %d", reached, all }' "$tmp/prf.folded")
perf script -F ip,sym -i "$tmp/perf.data" 2>/dev/null | awk '
	NF == 0 { if (leaf == "compare_records") { all++; if (reach) reached++ } leaf = ""; reach = 0; next }
	{ if (leaf == "") leaf = $2; if ($2 == "sort_rounds") reach = 1 }
	END { printf "%d %d", reached, all }' >"$tmp/perf.reach"
perf_reach=$(cat "$tmp/perf.reach")
set -- $prf_reach $perf_reach
echo "stacks from compare_records reaching sort_rounds (above qsort): perfrec-report $1 of $2, perf $3 of $4"
per_second() {
	echo "$1 $2" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }'
}
echo "perf report: ${perf_samples:-0} samples in ${perf_read} s ($perf_cpu s CPU): $(per_second "${perf_samples:-0}" "$perf_read") samples/s ($(per_second "${perf_samples:-0}" "$perf_cpu") per CPU second)"
[ "$3" -eq "$4" ] || echo "  (perf's own unwinding stopped short in $(($4 - $3)) of its $4 comparator samples: its time is not comparable)"
if [ "$1" -eq 0 ]; then
	echo "perfrec-report: ${prf_samples} samples in ${prf_read} s, but it does not unwind dwarf stacks yet (no stack reaches sort_rounds)"
	echo "throughput ratio perfrec-report/perf report: PENDING (needs the reader's dwarf unwinding; goal >= 3)"
else
	echo "perfrec-report: ${prf_samples} samples in ${prf_read} s ($prf_cpu s CPU): $(per_second "$prf_samples" "$prf_read") samples/s ($(per_second "$prf_samples" "$prf_cpu") per CPU second)"
	echo "$prf_samples $prf_read $prf_cpu ${perf_samples:-0} $perf_read $perf_cpu" |
		awk '{ if ($2 > 0 && $3 > 0 && $5 > 0 && $6 > 0 && $4 > 0)
			printf "throughput ratio perfrec-report/perf report (samples/s): %.2f wall, %.2f CPU (goal >= 3)\n",
				($1 / $2) / ($4 / $5), ($1 / $3) / ($4 / $6) }'
fi
