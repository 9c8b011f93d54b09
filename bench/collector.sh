#!/bin/bash
# The collector benchmark: perfrecd against perf record -a -g -z (run as root).
#
#   bench/collector.sh [--seconds N] [--build DIR] [--runs R] [--freqs "F..."]
#                      [--nice N] [--perfrecd-args ARGS] [--perf-args ARGS]
#                      [--keep]
#
#   --seconds N   the fixed amount of work is N s of all the CPUs (default 8,
#                 at most 25: on an idle machine each phase stays < 30 s)
#   --build DIR   the build directory (default _build in the source tree);
#                 only perfrecd, perfrec-dump, tests/workload and
#                 bench/collector-{work,run} are built in it
#   --runs R      repeat every measurement R times (default 1); the tables
#                 show medians, the per-run lines show every run
#   --freqs LIST  sampling frequencies per CPU (default "1000 10000")
#   --nice N      run the work and both collectors at nice N (default 0).
#                 On a shared machine a negative N keeps the others' load
#                 out of the wall-clock figures, at their expense
#   --perfrecd-args ARGS, --perf-args ARGS
#                 more options for perfrecd or perf record (split on blanks),
#                 e.g. --perfrecd-args "--compression-level 1"
#   --keep        keep the recordings in the temporary directory it prints
#
# For each frequency F and each run, four phases, each the same fixed work
# (bench/collector-work: $(nproc) threads, a number of rounds of user-mode
# arithmetic calibrated in CPU time, frame-pointer callchains 4 deep):
#   base      the work alone;
#   both      perfrecd -e cpu-clock -F F and perf record -e cpu-clock -a -g
#             -z -F F both running, started before the work, stopped after
#             it (SIGTERM to perfrecd, SIGINT to perf);
#   alone     perfrecd alone, the same way; then perf alone.
# Both tools use their defaults otherwise: perfrecd zstd level 3 and rings
# sized for the rate (8 MiB per CPU at 10 kHz), perf zstd level 1 and its
# default rings (512 KiB per CPU as root, and as many for its dummy event).
# Both sample every CPU, idle or not, so both see the same samples.
#
# Measured per tool:
#   samples   perfrecd: its exit summary line (checked against perfrec-dump
#             --summary's SAMPLE count); perf: perf report --stats
#   lost      perfrecd: "N lost" of its summary (LOST + LOST_SAMPLES
#             records); perf: the LOST_SAMPLES count of perf report --stats
#             (the kernel's count of the event) or the sum of its LOST
#             records, whichever is larger
#   CPU       the collector's on-CPU time (all threads,
#             /proc/PID/task/*/schedstat, ns) per 100 000 of its samples:
#             "work" while the work ran (the steady state, over the share of
#             its samples taken meanwhile), "run" from its start until it is
#             told to stop; "total" is user + system of its whole life, from
#             wait4() (bench/collector-run), start-up and exit work (perf's
#             build-id pass over its file) included.  The kernel's share of
#             sampling (the timer interrupt, the callchain walk, the copy
#             into the ring) is charged to the interrupted task, not to the
#             collector: it shows in the slowdown only.
#   RSS       peak resident set (VmHWM before stopping, ru_maxrss at exit:
#             the larger).  The ring buffers are not in it (the kernel's
#             pages are mapped without being counted); "rings" is their
#             mapped size from /proc/PID/maps.
#   bytes     perfrecd: every .prf file it wrote; "-kalls" leaves out the
#             chunk holding its /proc/kallsyms snapshot (about 1 MB
#             compressed, once per file, a fixed cost perf does not have in
#             perf.data: perf reads /proc/kallsyms again at report time).
#             perf: perf.data (its build-id cache, PERF_BUILDID_DIR, is
#             pointed into the temporary directory and reported if used).
#   slowdown  "wall": wall-clock time of the work / that of the base phase
#             of the same run, minus 1; "cpu": the same with the CPU time of
#             the work, blind to the collector's own CPU and to other load,
#             not to the kernel's sampling cost; "cost": the work's extra CPU
#             plus the collectors' CPU over the work's CPU alone.  In the
#             "both" phase these are of both tools at once.
#   other     CPU seconds used during the work by everything else (from
#             /proc/stat, interrupts included, 10 ms resolution): a
#             noisy neighbour shows here.
#
# Sysctls, restored on exit: kernel.perf_event_max_sample_rate is raised to
# 4 x the highest frequency if it is lower (two events per CPU), and
# kernel.perf_cpu_time_max_percent is set to 0 (no throttling on interrupt
# time), for both tools alike.  Without a PMU cpu-clock is an hrtimer event
# and the interrupt-time throttling (an NMI-handler mechanism) does not
# apply anyway; the max-sample-rate cap per tick does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/_build
seconds=8
runs=1
freqs="1000 10000"
keep=0
nice=0
perfrecd_args=
perf_args=

usage() {
	sed -n '2,/^# For each/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	--runs) runs=${2:-}; shift 2 || usage ;;
	--freqs) freqs=${2:-}; shift 2 || usage ;;
	--nice) nice=${2:-}; shift 2 || usage ;;
	--perfrecd-args) perfrecd_args=${2-}; shift 2 || usage ;;
	--perf-args) perf_args=${2-}; shift 2 || usage ;;
	--keep) keep=1; shift ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
case "$seconds" in ''|*[!0-9]*) usage ;; esac
case "$runs" in ''|*[!0-9]*) usage ;; esac
if [ "$seconds" -lt 1 ] || [ "$seconds" -gt 25 ]; then
	echo "collector.sh: --seconds must be 1..25" >&2
	exit 2
fi
[ "$runs" -ge 1 ] || usage
case "$nice" in ''|*[!0-9-]*) usage ;; esac
niced=()
[ "$nice" = 0 ] || niced=(nice -n "$nice")
for f in $freqs; do
	case "$f" in ''|*[!0-9]*) usage ;; esac
done

die() {
	echo "collector.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "run it as root (system-wide sampling, sysctls)"
command -v perf >/dev/null || die "perf not found (apt-get install linux-perf)"
[ -f "$build/Makefile" ] || die "$build: not a configured build directory (--build DIR)"
build=$(cd "$build" && pwd)
cpus=$(nproc)

# ---- building ----------------------------------------------------------

echo "+ make -C $build perfrecd perfrec-dump tests/workload"
make -C "$build" perfrecd perfrec-dump tests/workload >"$build/collector-bench-make.log" 2>&1 ||
	{ tail -20 "$build/collector-bench-make.log"; die "make failed"; }
work=$build/bench/collector-work
runner=$build/bench/collector-run
# shellcheck disable=SC2016 # a make variable, not a shell one
if grep -q '^bench/collector-work\$(EXEEXT):' "$build/Makefile"; then
	echo "+ make -C $build bench/collector-work bench/collector-run"
	make -C "$build" bench/collector-work bench/collector-run \
		>>"$build/collector-bench-make.log" 2>&1 ||
		{ tail -20 "$build/collector-bench-make.log"; die "make failed"; }
else
	# bench/collector.mk is not included in this tree's Makefile yet.
	mkdir -p "$build/bench"
	for prog in work run; do
		echo "+ ${CC:-cc} -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o $build/bench/collector-$prog $here/collector-$prog.c"
		"${CC:-cc}" -std=gnu11 -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls \
			-pthread -o "$build/bench/collector-$prog" "$here/collector-$prog.c" ||
			die "cannot build $build/bench/collector-$prog"
	done
fi
perfrecd=$build/perfrecd
dump=$build/perfrec-dump

# ---- cleaning up -------------------------------------------------------

tmp=$(mktemp -d /tmp/perfrec-collector.XXXXXX)
: >"$tmp/empty.conf"
declare -A saved_sysctl=()
started_pids=

set_sysctl() {
	local path=/proc/sys/kernel/$1
	[ -w "$path" ] || return 0
	[ -n "${saved_sysctl[$1]+x}" ] || saved_sysctl[$1]=$(cat "$path")
	echo "$2" >"$path" || echo "collector.sh: cannot set kernel.$1=$2" >&2
}

# forget PID...: they ended, cleanup must not signal them (or their reuse).
forget() {
	local pid gone kept=
	for pid in $started_pids; do
		for gone in "$@"; do
			[ "$pid" = "$gone" ] && continue 2
		done
		kept="$kept $pid"
	done
	started_pids=$kept
}

# TERM first (timeout passes it on to the work, the collectors finish),
# KILL what is left after 3 s.
cleanup() {
	local pid name
	local alive
	for pid in $started_pids; do
		kill -TERM "$pid" 2>/dev/null
	done
	for _ in $(seq 30); do
		alive=
		for pid in $started_pids; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ -n "$alive" ] || break
		sleep 0.1
	done
	for pid in $started_pids; do
		kill -KILL "$pid" 2>/dev/null
	done
	for pid in $started_pids; do
		wait "$pid" 2>/dev/null
	done
	for name in "${!saved_sysctl[@]}"; do
		echo "${saved_sysctl[$name]}" >"/proc/sys/kernel/$name" ||
			echo "collector.sh: cannot restore kernel.$name=${saved_sysctl[$name]}" >&2
	done
	if [ "$keep" = 1 ]; then
		echo "collector.sh: recordings kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

fmax=0
for f in $freqs; do
	[ "$f" -gt "$fmax" ] && fmax=$f
done
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
[ "$rate" -ge $((4 * fmax)) ] || set_sysctl perf_event_max_sample_rate $((4 * fmax))
set_sysctl perf_cpu_time_max_percent 0

# ---- measuring ---------------------------------------------------------

# The CPU time, in ns, of every thread of PID so far.
cpu_ns() {
	local total=0 run rest f
	for f in /proc/"$1"/task/*/schedstat; do
		read -r run rest <"$f" 2>/dev/null || continue
		total=$((total + run))
	done
	echo "$total"
}

# Bytes of PID's mappings of perf ring buffers.
ring_bytes() {
	local total=0 range rest start end
	while read -r range rest; do
		case "$rest" in
		*'[perf_event]'*)
			start=${range%-*}
			end=${range#*-}
			total=$((total + 16#$end - 16#$start)) ;;
		esac
	done <"/proc/$1/maps"
	echo "$total"
}

# busy ticks of all CPUs (user nice system irq softirq steal)
busy_ticks() {
	local user nice system irq softirq steal
	read -r _ user nice system _ _ irq softirq steal _ </proc/stat
	echo $((user + nice + system + irq + softirq + steal))
}

# start_tool NAME DIR COMMAND...: runs it in the background under
# collector-run, which puts its pid in DIR/NAME.pid and its rusage in
# DIR/NAME.usage.
start_tool() {
	local name=$1 dir=$2
	shift 2
	PERF_BUILDID_DIR=$dir/buildid "$runner" "$dir/$name.pid" "$dir/$name.usage" \
		"${niced[@]}" "$@" \
		>"$dir/$name.out" 2>"$dir/$name.err" &
	eval "wrapper_$name=$!"
	started_pids="$started_pids $!"
	for _ in $(seq 50); do
		[ -s "$dir/$name.pid" ] && break
		sleep 0.1
	done
	eval "pid_$name=$(cat "$dir/$name.pid" 2>/dev/null || echo 0)"
	eval "started_pids=\"\$started_pids \$pid_$name\""
}

# stop_tools DIR NAME:SIGNAL...: notes the CPU, RSS and rings of each (all
# of them first), stops them and waits (at most 30 s, then SIGKILL).
stop_tools() {
	local dir=$1 spec name signal pid wrapper hwm
	shift
	for spec in "$@"; do
		name=${spec%:*}
		eval "pid=\$pid_$name"
		if [ "$pid" -gt 0 ] && [ -d "/proc/$pid" ]; then
			cpu_ns "$pid" >"$dir/$name.cpu"
			date +%s.%N >"$dir/$name.t1"
			hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
			echo "${hwm:-0}" >"$dir/$name.hwm"
			ring_bytes "$pid" >"$dir/$name.rings"
		else
			echo "collector.sh: $name was not running (see $dir/$name.err)" >&2
			echo 0 >"$dir/$name.cpu"; echo 0 >"$dir/$name.hwm"; echo 0 >"$dir/$name.rings"
			date +%s.%N >"$dir/$name.t1"
		fi
	done
	for spec in "$@"; do
		name=${spec%:*} signal=${spec#*:}
		eval "pid=\$pid_$name"
		[ "$pid" -gt 0 ] && kill -"$signal" "$pid" 2>/dev/null
	done
	for spec in "$@"; do
		name=${spec%:*}
		eval "pid=\$pid_$name wrapper=\$wrapper_$name"
		for _ in $(seq 300); do
			kill -0 "$wrapper" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$wrapper" 2>/dev/null; then
			echo "collector.sh: $name did not stop in 30 s; killed" >&2
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$wrapper" 2>/dev/null
		forget "$wrapper" "$pid"
	done
}

# Waits (at most 10 s) until FILE exists and is not empty.
wait_file() {
	for _ in $(seq 100); do
		[ -n "$(find "$@" -maxdepth 1 -type f -size +0 2>/dev/null | head -1)" ] && return 0
		sleep 0.1
	done
	echo "collector.sh: $1: nothing written in 10 s" >&2
	return 1
}

# run_work DIR: the fixed work; DIR/work.out gets "wall=S cpu=S other=S".
run_work() {
	local before after work_pid
	before=$(busy_ticks)
	# in the background, so that a signal to this script is acted on at once
	timeout 120 "${niced[@]}" "$work" --threads "$cpus" --rounds "$rounds" >"$1/work.raw" &
	work_pid=$!
	started_pids="$started_pids $work_pid"
	wait "$work_pid" || echo "collector.sh: the work failed or timed out" >&2
	forget "$work_pid"
	after=$(busy_ticks)
	awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { printf "wall=%s cpu=%s busy=%.2f\n", v["wall"], v["cpu"], ticks / hz }' \
		"$1/work.raw" >"$1/work.out"
}

# value FILE KEY: KEY=value from a key=value line.
value() {
	tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1
}

# result F RUN PHASE TOOL DIR: one line of results.tsv.
# Columns: freq run phase tool samples lost cpu_run_s cpu_total_s rss_kb
#          ring_bytes bytes fixed_bytes wall cpu_work busy_s
result_perfrecd() {
	local f=$1 r=$2 phase=$3 dir=$4 line samples lost bytes=0 fixed=0 file chunk size
	local dump_samples=0 n
	line=$(grep -h 'samples on .* CPUs in' "$dir/perfrecd.err" | tail -1)
	samples=$(echo "$line" | sed -n 's/.*perfrecd: \([0-9]*\) samples on.*/\1/p')
	lost=$(echo "$line" | sed -n 's/.* s, \([0-9]*\) lost,.*/\1/p')
	for file in "$dir"/perfrecd/*.prf; do
		[ -f "$file" ] || continue
		size=$(stat -c %s "$file")
		bytes=$((bytes + size))
		n=$("$dump" --summary "$file" 2>/dev/null | sed -n 's/^  SAMPLE: *\([0-9]*\)$/\1/p')
		dump_samples=$((dump_samples + ${n:-0}))
		chunk=$("$dump" "$file" 2>/dev/null | grep -m1 -E '^chunk=[0-9]+ .* KALLSYMS ' |
			sed 's/^chunk=\([0-9]*\) .*/\1/')
		[ -n "$chunk" ] || continue
		size=$("$dump" --chunks "$file" 2>/dev/null |
			awk -v s="sequence=$chunk" '$2 == s { for (i = 1; i <= NF; i++) if ($i ~ /^stored=/) { sub("stored=", "", $i); print $i } }')
		# the chunk header, the payload padded to 8
		[ -n "$size" ] && fixed=$((fixed + 64 + (size + 7) / 8 * 8))
	done
	if [ "${samples:-0}" != "$dump_samples" ]; then
		echo "collector.sh: perfrecd said ${samples:-?} samples, perfrec-dump counts $dump_samples ($dir)" >&2
		[ -n "$samples" ] || samples=$dump_samples
	fi
	emit "$f" "$r" "$phase" perfrecd "$dir" "${samples:-0}" "${lost:-0}" "$bytes" "$fixed"
}

result_perf() {
	local f=$1 r=$2 phase=$3 dir=$4 stats samples lost lost_records lost_sum bytes
	stats=$(timeout 60 perf report --stats -i "$dir/perf.data" 2>/dev/null)
	# the event's own section, after "cpu-clock stats:"
	samples=$(echo "$stats" | sed -n '/^cpu-clock stats:$/,$s/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | tail -1)
	lost=$(echo "$stats" | sed -n '/^cpu-clock stats:$/,$s/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' | tail -1)
	lost_records=$(echo "$stats" | sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' | head -1)
	if [ "${lost_records:-0}" -gt 0 ]; then
		lost_sum=$(timeout 60 perf report -D -i "$dir/perf.data" 2>/dev/null |
			sed -n 's/.*PERF_RECORD_LOST: .*lost:\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
		[ "$lost_sum" -gt "${lost:-0}" ] && lost=$lost_sum
	fi
	bytes=$(stat -c %s "$dir/perf.data" 2>/dev/null || echo 0)
	if [ -d "$dir/buildid" ]; then
		echo "  perf's build-id cache: $(du -sb "$dir/buildid" | cut -f1) bytes besides perf.data" >&2
	fi
	emit "$f" "$r" "$phase" perf "$dir" "${samples:-0}" "${lost:-0}" "$bytes" 0
}

emit() {
	local f=$1 r=$2 phase=$3 tool=$4 dir=$5 samples=$6 lost=$7 bytes=$8 fixed=$9
	local cpu_run cpu_total rss maxrss window
	cpu_run=$(awk '{ printf "%.4f", $1 / 1e9 }' "$dir/$tool.cpu")
	cpu_total=0 maxrss=0
	if [ -s "$dir/$tool.usage" ]; then
		cpu_total=$(awk -v u="$(value "$dir/$tool.usage" user)" \
			-v s="$(value "$dir/$tool.usage" system)" 'BEGIN { printf "%.4f", u + s }')
		maxrss=$(value "$dir/$tool.usage" maxrss_kb)
		grep -q 'exit=0\|signal=2$' "$dir/$tool.usage" ||
			echo "collector.sh: $tool ended with $(sed 's/.* //' "$dir/$tool.usage") ($dir/$tool.err)" >&2
	fi
	rss=$(cat "$dir/$tool.hwm")
	[ "${maxrss:-0}" -gt "$rss" ] && rss=$maxrss
	# the steady state: CPU while the work ran, over the samples of that
	# time (its share of the samples, at the tool's average rate)
	window=$(awk -v c0="$(cat "$dir/$tool.cpu0")" -v c1="$(cat "$dir/$tool.cpu")" \
		-v r="$(cat "$dir/$tool.ready")" -v t0="$(cat "$dir/$tool.t0")" \
		-v t1="$(cat "$dir/$tool.t1")" -v n="$samples" \
		'BEGIN { printf "%.4f\t%.0f", (c1 - c0) / 1e9, (t1 > r) ? n * (t1 - t0) / (t1 - r) : 0 }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$f" "$r" "$phase" "$tool" "$samples" "$lost" "$cpu_run" "$cpu_total" "$rss" \
		"$(cat "$dir/$tool.rings")" "$bytes" "$fixed" \
		"$(value "$dir/work.out" wall)" "$(value "$dir/work.out" cpu)" \
		"$(value "$dir/work.out" busy)" "$window" >>"$tmp/results.tsv"
}

# phase F RUN NAME TOOLS...: one phase, the work under TOOLS (none: base).
phase() {
	local f=$1 r=$2 name=$3 dir tool specs
	shift 3
	dir=$tmp/f$f-r$r-$name
	for tool in "$@"; do
		dir=$dir-$tool
	done
	mkdir -p "$dir/perfrecd"
	for tool in "$@"; do
		case "$tool" in
		perfrecd)
			# shellcheck disable=SC2086 # the extra options are split
			start_tool perfrecd "$dir" "$perfrecd" --config "$tmp/empty.conf" -e cpu-clock \
				-F "$f" $perfrecd_args -o "$dir/perfrecd" ;;
		perf)
			# shellcheck disable=SC2086
			start_tool perf "$dir" perf record -e cpu-clock -a -g -z -F "$f" \
				$perf_args -o "$dir/perf.data" ;;
		esac
	done
	for tool in "$@"; do
		case "$tool" in
		perfrecd) wait_file "$dir/perfrecd" ;;
		perf) wait_file "$dir/perf.data" ;;
		esac
		date +%s.%N >"$dir/$tool.ready"	# it samples
	done
	[ $# -gt 0 ] && sleep 0.5	# past the start-up snapshots
	for tool in "$@"; do
		eval "cpu_ns \$pid_$tool" >"$dir/$tool.cpu0"
		date +%s.%N >"$dir/$tool.t0"
	done
	run_work "$dir"
	specs=
	for tool in "$@"; do
		case "$tool" in
		perfrecd) specs="$specs perfrecd:TERM" ;;
		perf) specs="$specs perf:INT" ;;
		esac
	done
	# shellcheck disable=SC2086 # one word a tool
	[ $# -gt 0 ] && stop_tools "$dir" $specs
	if [ $# -eq 0 ]; then
		printf '%s\t%s\t%s\t-\t0\t0\t0\t0\t0\t0\t0\t0\t%s\t%s\t%s\t0\t0\n' "$f" "$r" base \
			"$(value "$dir/work.out" wall)" "$(value "$dir/work.out" cpu)" \
			"$(value "$dir/work.out" busy)" >>"$tmp/results.tsv"
	fi
	for tool in "$@"; do
		"result_$tool" "$f" "$r" "$name" "$dir"
	done
	echo "  $name${1:+ ($*)}: $(cat "$dir/work.out")"
	[ "$keep" = 1 ] || rm -rf "$dir/perfrecd" "$dir/perf.data"
}

# ---- the runs ----------------------------------------------------------

echo "== $(uname -r), $(perf --version), $cpus CPUs; $runs run(s) per frequency"
echo "+ $work --threads $cpus --calibrate 2"
# Rounds per CPU second, so that the work needs N s of all the CPUs
# whatever else the machine was doing during the calibration.
rounds=$("${niced[@]}" "$work" --threads "$cpus" --calibrate 2 | tr '\n' ' ' |
	awk -v s="$seconds" -v n="$cpus" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["cpu"] > 0) printf "%d\n", v["rounds"] * n / v["cpu"] * s }')
[ "${rounds:-0}" -gt 0 ] || die "calibration failed"
echo "  work: $cpus threads x $rounds rounds (about $seconds s alone), nice $nice"
echo "  sysctls: perf_event_max_sample_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate) perf_cpu_time_max_percent=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
echo "+ $perfrecd --config $tmp/empty.conf -e cpu-clock -F F${perfrecd_args:+ $perfrecd_args} -o DIR"
echo "+ perf record -e cpu-clock -a -g -z -F F${perf_args:+ $perf_args} -o DIR/perf.data"
: >"$tmp/results.tsv"
for f in $freqs; do
	for r in $(seq "$runs"); do
		echo "== $f Hz per CPU, run $r"
		phase "$f" "$r" base
		phase "$f" "$r" both perfrecd perf
		phase "$f" "$r" alone perfrecd
		phase "$f" "$r" alone perf
	done
done

# ---- the report --------------------------------------------------------

echo
echo "== every run (raw; cpu in s, rss in KiB, bytes)"
printf 'freq\trun\tphase\ttool\tsamples\tlost\tcpu_run\tcpu_total\trss_kb\trings\tbytes\tkallsyms\twall\twork_cpu\tbusy\tcpu_work\tsamples_work\n'
cat "$tmp/results.tsv"

awk -F '\t' -v cpus="$cpus" -v runs="$runs" '
function median(key,    n, i, j, t, a) {
	n = split(list[key], a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (n == 0)
		return 0
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ratio(a, b, x, y) {
	return (median(b SUBSEP y) > 0) ? median(a SUBSEP x) / median(b SUBSEP y) : 0
}
function add(key, v) { list[key] = (key in list) ? list[key] " " v : v }
{
	line[++n] = $0
	if ($3 == "base") {
		base[$1, $2] = $13; basecpu[$1, $2] = $14
	} else {
		bothcpu[$1, $2] += ($3 == "both") ? $7 : 0	# both collectors
	}
}
END {
	for (l = 1; l <= n; l++) {
		split(line[l], v, "\t")
		f = v[1]; r = v[2]; phase = v[3]; tool = v[4]
		if (!(f in seen)) { seen[f] = 1; freqs[++nf] = f }
		if (phase == "base") {
			add(f SUBSEP "base" SUBSEP "wall", v[13])
			add(f SUBSEP "base" SUBSEP "other", v[15] - v[14])
			continue
		}
		k = f SUBSEP phase SUBSEP tool
		rows[k] = 1
		s = v[5]
		add(k SUBSEP "samples", s)
		add(k SUBSEP "lost", v[6])
		add(k SUBSEP "cpurun", (s > 0) ? v[7] * 100000 / s : 0)
		add(k SUBSEP "cputotal", (s > 0) ? v[8] * 100000 / s : 0)
		add(k SUBSEP "cpusteady", (v[17] > 0) ? v[16] * 100000 / v[17] : 0)
		add(k SUBSEP "rss", v[9] / 1024)
		add(k SUBSEP "rings", v[10] / 1048576)
		add(k SUBSEP "bps", (s > 0) ? v[11] / s : 0)
		add(k SUBSEP "bpsx", (s > 0) ? (v[11] - v[12]) / s : 0)
		b = base[f, r]; bc = basecpu[f, r]
		add(k SUBSEP "slow", (b > 0) ? (v[13] / b - 1) * 100 : 0)
		add(k SUBSEP "slowcpu", (bc > 0) ? (v[14] / bc - 1) * 100 : 0)
		c = (phase == "both") ? bothcpu[f, r] : v[7]
		add(k SUBSEP "cost", (bc > 0) ? (v[14] - bc + c) / bc * 100 : 0)
		add(k SUBSEP "other", v[15] - v[14])
	}
	for (i = 1; i <= nf; i++) {
		f = freqs[i]
		printf "\n== %s Hz per CPU (%d CPUs): medians of %d run(s); work alone %.2f s wall\n",
		       f, cpus, runs, median(f SUBSEP "base" SUBSEP "wall")
		printf "%-6s %-8s %8s %6s %8s %8s %8s %5s %5s %7s %7s %6s %6s %6s %6s\n",
		       "phase", "tool", "samples", "lost", "CPU/100k", "CPU/100k", "CPU/100k",
		       "RSS", "rings", "bytes/", "bytes/", "slow", "slow", "cost", "other"
		printf "%-6s %-8s %8s %6s %8s %8s %8s %5s %5s %7s %7s %6s %6s %6s %6s\n",
		       "", "", "", "", "work s", "run s", "total s", "MiB", "MiB", "sample", "-kalls",
		       "wall%", "cpu%", "cpu%", "CPU s"
		printf "%-6s %-8s %8s %6s %8s %8s %8s %5s %5s %7s %7s %6s %6s %6s %6.2f\n",
		       "base", "-", "", "", "", "", "", "", "", "", "", "", "", "",
		       median(f SUBSEP "base" SUBSEP "other")
		for (p = 1; p <= 2; p++) {
			phase = (p == 1) ? "both" : "alone"
			for (t = 1; t <= 2; t++) {
				tool = (t == 1) ? "perfrecd" : "perf"
				k = f SUBSEP phase SUBSEP tool
				if (!(k in rows))
					continue
				printf "%-6s %-8s %8d %6d %8.3f %8.3f %8.3f %5.1f %5.1f %7.2f %7.2f %6.1f %6.1f %6.1f %6.2f\n",
				       phase, tool, median(k SUBSEP "samples"), median(k SUBSEP "lost"),
				       median(k SUBSEP "cpusteady"),
				       median(k SUBSEP "cpurun"), median(k SUBSEP "cputotal"),
				       median(k SUBSEP "rss"), median(k SUBSEP "rings"),
				       median(k SUBSEP "bps"),
				       (tool == "perfrecd") ? median(k SUBSEP "bpsx") : median(k SUBSEP "bps"),
				       median(k SUBSEP "slow"), median(k SUBSEP "slowcpu"),
				       median(k SUBSEP "cost"), median(k SUBSEP "other")
			}
		}
		for (p = 1; p <= 2; p++) {
			phase = (p == 1) ? "both" : "alone"
			a = f SUBSEP phase SUBSEP "perfrecd"; b = f SUBSEP phase SUBSEP "perf"
			if (!(a in rows) || !(b in rows))
				continue
			printf "ratio perfrecd/perf (%s): CPU work %.2f, run %.2f, total %.2f (goal <= 0.5); bytes/sample %.2f, %.2f without kallsyms (goal <= 1); RSS %.2f",
			       phase, ratio(a, b, "cpusteady", "cpusteady"),
			       ratio(a, b, "cpurun", "cpurun"), ratio(a, b, "cputotal", "cputotal"),
			       ratio(a, b, "bps", "bps"), ratio(a, b, "bpsx", "bps"),
			       ratio(a, b, "rss", "rss")
			if (phase == "alone")
				printf "; slowdown wall %.1f%% vs %.1f%%, cost %.1f%% vs %.1f%%",
				       median(a SUBSEP "slow"), median(b SUBSEP "slow"),
				       median(a SUBSEP "cost"), median(b SUBSEP "cost")
			printf "\n"
		}
		a = f SUBSEP "both" SUBSEP "perfrecd"
		if (a in rows)
			printf "goals, perfrecd (both): lost %d (goal 0 at 10 kHz); RSS %.1f MiB (goal <= 16 MiB + rings; rings are not counted in RSS)\n",
			       median(a SUBSEP "lost"), median(a SUBSEP "rss")
	}
}' "$tmp/results.tsv"
cat <<'EOF'

CPU/100k: the collector's CPU s per 100 000 of its own samples (work: while the
work ran, the steady state; run: from its start until it was told to stop;
total: its whole life, start-up and exit work included).
bytes/sample -kalls: perfrecd without its kallsyms chunk (perf: as bytes/sample).
slow wall%: wall-clock time of the fixed work against the base phase of the same
run; slow cpu%: the same with the work's own CPU time (the kernel's sampling cost
is charged to it); cost cpu%: (extra CPU of the work + CPU of the phase's
collectors) / CPU of the work alone, the machine's price of profiling, blind to
other load.  In the "both" phase all three are of both tools together.  other:
busy CPU s during the work that were not the work's (the collectors, other
processes, interrupts): when it is far above the base phase's, the wall figures
of that phase are noise.
EOF
