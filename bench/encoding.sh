#!/bin/bash
# Sample encodings side by side (run as root): perfrecd compact, perfrecd
# verbatim and perf record -z, all three at once over the same work, so
# that a loaded machine gives all three the same samples and the ratios
# hold.
#
#   bench/encoding.sh [--seconds N] [--freq F] [--build DIR] [--perfrecd ARG]...
#
# The work is bench/collector-work on every CPU for N s (default 12) of
# wall-clock time, cpu-clock at F Hz per CPU (default 4000).  Per tool:
# samples (perfrec-dump --summary; perf report --stats), lost, bytes of
# the whole file and bytes per sample (perfrecd also without its kallsyms
# chunk), the collector's CPU (/proc/PID/task/*/schedstat) per 100 000
# samples, all its life and "running": from 2 s after the start, when the
# work starts, to its end (start-up left out: what an always-on collector
# costs); then the ratios to perf.  Each --perfrecd
# ARG goes to both perfrecd runs (e.g. --perfrecd --kernel-symbols=none,
# to see what the kernel symbols as hit cost).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$here")/_build
seconds=12
freq=4000
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--freq) freq=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--perfrecd) extra+=("$2"); shift 2 ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "encoding.sh: run it as root" >&2; exit 1; }
command -v perf >/dev/null || { echo "encoding.sh: no perf" >&2; exit 1; }
make -C "$build" perfrecd perfrec-dump bench/collector-work >/dev/null 2>&1 ||
	{ echo "encoding.sh: make failed" >&2; exit 1; }
tmp=$(mktemp -d /tmp/perfrec-encoding.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.conf"
old_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
[ "$old_rate" -ge $((4 * freq)) ] || echo $((4 * freq)) >/proc/sys/kernel/perf_event_max_sample_rate
trap 'echo "$old_rate" >/proc/sys/kernel/perf_event_max_sample_rate; rm -rf "$tmp"' EXIT

# CPU time in ns, of every thread: schedstat is exact where the ticks of
# /proc/PID/stat are 10 ms, too coarse for the steady part of a short run.
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { print s }'; }

"$build/perfrecd" --config "$tmp/empty.conf" -e cpu-clock -F "$freq" -o "$tmp/compact" \
	"${extra[@]}" 2>"$tmp/compact.err" &
compact=$!
"$build/perfrecd" --config "$tmp/empty.conf" -e cpu-clock -F "$freq" \
	--sample-encoding=verbatim -o "$tmp/verbatim" "${extra[@]}" 2>"$tmp/verbatim.err" &
verbatim=$!
perf record -q -e cpu-clock -a -g -z -F "$freq" -o "$tmp/perf.data" 2>"$tmp/perf.err" &
perf=$!
sleep 2
# Start-up (perfrecd's read of /proc/kallsyms, the /proc snapshot) is
# over by now: the CPU from here on is what the tools cost while running.
start_compact=$(cpu_ns $compact)
start_verbatim=$(cpu_ns $verbatim)
start_perf=$(cpu_ns $perf)
timeout "$seconds" "$build/bench/collector-work" --threads "$(nproc)" --rounds 100000000 >/dev/null
cpu_compact=$(cpu_ns $compact)
cpu_verbatim=$(cpu_ns $verbatim)
cpu_perf=$(cpu_ns $perf)
kill -TERM $compact $verbatim
kill -INT $perf
wait $compact $verbatim $perf

echo "== $(uname -r), $(nproc) CPUs, cpu-clock $freq Hz per CPU, ${seconds} s of work; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %9s %6s %10s %9s %9s %12s %12s\n' tool samples lost bytes B/sample -kalls \
	"CPU s/100k" "running"
row() {	# name samples lost bytes kallsyms cpu_ns start_ns
	awk -v n="$1" -v s="$2" -v l="$3" -v b="$4" -v k="$5" -v c="$6" -v c0="$7" 'BEGIN {
		printf "%-18s %9d %6d %10d %9.2f %9.2f %12.3f %12.3f\n", n, s, l, b, b / s,
		       (b - k) / s, c / 1e9 * 100000 / s, (c - c0) / 1e9 * 100000 / s }'
}
perfrecd_row() {	# name dir pid
	local file=$2/*.prf samples lost kalls bytes
	samples=$("$build/perfrec-dump" --summary $file | sed -n 's/^  SAMPLE: *//p')
	lost=$(sed -n 's/.* s, \([0-9]*\) lost,.*/\1/p' "$tmp/$1.err")
	bytes=$(cat $file | wc -c)
	chunk=$("$build/perfrec-dump" $file | grep -m1 -E '^chunk=[0-9]+ .* KALLSYMS ' | sed 's/^chunk=\([0-9]*\) .*/\1/')
	kalls=$("$build/perfrec-dump" --chunks $file |
		awk -v s="sequence=$chunk" '$2 == s { for (i = 1; i <= NF; i++) if ($i ~ /^stored=/) { sub("stored=", "", $i); print 64 + int(($i + 7) / 8) * 8 } }')
	eval "row perfrecd-$1 $samples ${lost:-0} $bytes ${kalls:-0} \$cpu_$3 \$start_$3"
	echo "$samples $bytes ${kalls:-0} $(eval echo \$cpu_$3 \$start_$3)" >"$tmp/$1.row"
}
perfrecd_row compact "$tmp/compact" compact
perfrecd_row verbatim "$tmp/verbatim" verbatim
perf report -i "$tmp/perf.data" --stats 2>/dev/null >"$tmp/stats"
psamples=$(awk '/SAMPLE events:/ { print $3; exit }' "$tmp/stats")
plost=$(awk '/LOST_SAMPLES events:/ { print $3; exit }' "$tmp/stats")
pbytes=$(stat -c %s "$tmp/perf.data")
row "perf record -z" "$psamples" "${plost:-0}" "$pbytes" 0 "$cpu_perf" "$start_perf"
echo "$psamples $pbytes 0 $cpu_perf $start_perf" >"$tmp/perf.row"
for enc in compact verbatim; do
	read -r s b k c c0 <"$tmp/$enc.row"
	read -r ps pb _ pc pc0 <"$tmp/perf.row"
	awk -v e="$enc" -v s="$s" -v b="$b" -v k="$k" -v c="$c" -v c0="$c0" -v ps="$ps" \
	    -v pb="$pb" -v pc="$pc" -v pc0="$pc0" 'BEGIN {
		printf "ratio perfrecd %s / perf: bytes/sample %.2f, without kallsyms %.2f (goal <= 0.3); CPU/sample %.2f (goal <= 0.5), running %.2f\n",
		       e, (b / s) / (pb / ps), ((b - k) / s) / (pb / ps), (c / s) / (pc / ps),
		       ((c - c0) / s) / ((pc - pc0) / ps) }'
done
