#!/bin/bash
# perf.data read by perfrec-report against perf report, on the same file
# (run as root).
#
#   bench/perfdata-read.sh [--samples N] [--freq F] [--build DIR] [--keep DIR]
#                     [--runs R] [-z]
#
#   --samples N   at least N samples in the file (default 500000): the
#                 recording lasts N / (CPUs x F) s plus 10 %
#   --freq F      sampling frequency per CPU (default 5000)
#   --build DIR   the build directory (default _build in the source tree)
#   --keep DIR    keep the recording in DIR/perf.data (DIR/perf-z.data with
#                 -z); one already there is reused and nothing is recorded
#   --runs R      timed runs of each command after one untimed warm-up run
#                 (default 3); the best (lowest wall-clock time) is shown
#   -z            record with perf record -z (zstd-compressed records)
#
# Recording: perf record -e cpu-clock -a -g -F F -m 8M --buildid-mmap
# (see bench/reader.sh for --buildid-mmap), while tests/workload --threads 2
# and a loop of find / -xdev | sort | gzip run.  Then, each with
# /usr/bin/time (wall-clock, user + system, peak RSS), output to /dev/null:
#   flat   perfrec-report FILE           vs  perf report --stdio --no-children
#                                             (and with -g none)
#   tree   perfrec-report --view=tree FILE  vs  perf report --stdio --children
# and the top 5 functions of each, side by side.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/_build
samples_wanted=500000
freq=5000
keepdir=
runs=3
compress=

usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--samples) samples_wanted=${2:-}; shift 2 || usage ;;
	--freq) freq=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	--keep) keepdir=${2:-}; shift 2 || usage ;;
	--runs) runs=${2:-}; shift 2 || usage ;;
	-z) compress=-z; shift ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
for v in "$samples_wanted" "$freq" "$runs"; do
	case "$v" in ''|*[!0-9]*) usage ;; esac
done

die() {
	echo "perfdata-read.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (perf record -a)"
command -v perf >/dev/null || die "no perf"
report=$build/perfrec-report
workload=$build/tests/workload
[ -x "$report" ] && [ -x "$workload" ] || die "build perfrec-report and tests/workload in $build first"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdata-bench.XXXXXX")
background=
cleanup() {
	for pid in $background; do
		kill -- -"$pid" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

dir=${keepdir:-$tmp}
mkdir -p "$dir"
data=$dir/perf${compress}.data
if [ ! -s "$data" ]; then
	cpus=$(nproc)
	seconds=$(( (samples_wanted * 11 / 10 + cpus * freq - 1) / (cpus * freq) ))
	echo "recording $seconds s at $freq Hz on $cpus CPUs into $data"
	setsid "$workload" --seconds "$seconds" --threads 2 >/dev/null &
	background="$background $!"
	setsid bash -c 'while :; do find / -xdev 2>/dev/null | sort | gzip >/dev/null; done' &
	background="$background $!"
	perf record -q -e cpu-clock -a -g -F "$freq" -m 8M --buildid-mmap $compress \
		-o "$data" -- sleep "$seconds" 2>"$tmp/record.err" ||
		die "perf record: $(tail -n 3 "$tmp/record.err")"
	for pid in $background; do
		kill -- -"$pid" 2>/dev/null
	done
	background=
fi
samples=$("$report" "$data" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
echo "file: $data, $(du -h "$data" | cut -f1), $samples samples; perf $(perf version | cut -d' ' -f3); load $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME COMMAND...: the best of $runs runs after a warm-up: "wall cpu rss".
measure() {
	name=$1
	shift
	best=
	"$@" >/dev/null 2>"$tmp/$name.err" || die "$name: $* failed: $(tail -n 2 "$tmp/$name.err")"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >/dev/null 2>>"$tmp/$name.err"
		read -r wall user sys rss <"$tmp/t"
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
		if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$wall $cpu $rss"
		fi
	done
	echo "$best" >"$tmp/$name.time"
}

P=(perf report -i "$data" --stdio)
measure flat-prf "$report" "$data"
measure flat-perf "${P[@]}" --no-children
measure flatg-perf "${P[@]}" --no-children -g none
measure tree-prf "$report" --view=tree "$data"
measure tree-perf "${P[@]}" --children

printf '\n| view | perfrec-report wall / CPU s | perf report wall / CPU s | speedup wall / CPU | RSS MiB perfrec / perf |\n|---|---|---|---|---|\n'
for pair in "flat:flat-prf:flat-perf" "flat, perf -g none:flat-prf:flatg-perf" "tree:tree-prf:tree-perf"; do
	IFS=: read -r label a b <<<"$pair"
	read -r aw ac ar <"$tmp/$a.time"
	read -r bw bc br <"$tmp/$b.time"
	awk -v l="$label" -v aw="$aw" -v ac="$ac" -v ar="$ar" -v bw="$bw" -v bc="$bc" -v br="$br" \
		'BEGIN { printf "| %s | %.2f / %.2f | %.2f / %.2f | %.1f× / %.1f× | %.0f / %.0f |\n",
			l, aw, ac, bw, bc, bw / (aw > 0 ? aw : 0.01), bc / (ac > 0 ? ac : 0.01), ar / 1024, br / 1024 }'
done

echo
echo "top 5, perfrec-report:"
"$report" --top 5 "$data" 2>/dev/null | grep -v '^#'
echo "top 5, perf report --no-children --sort comm,dso,sym -g none (merged by symbol here):"
"${P[@]}" --no-children --sort sym -g none 2>/dev/null | grep -v '^#' | grep . | head -n 5
