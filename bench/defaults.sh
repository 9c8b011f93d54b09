#!/bin/sh
# Whole-file bytes per sample at the default settings (run as root).
#
#   bench/defaults.sh [--seconds N] [--build DIR] [--keep]
#
# Four collectors at once for N seconds (default 60) on whatever the
# machine is doing, all at their defaults but the output:
#   perfrecd --kernel-symbols=hit   (the default)
#   perfrecd --kernel-symbols=all   (/proc/kallsyms whole in each file)
#   perfrecd --kernel-symbols=none  (no kernel symbols: hit - none is what
#                                    the symbols as hit cost)
#   perf record -a -g -z -F 97 -e EVENT   (EVENT: perfrecd's default event,
#                                          cycles or cpu-clock)
# and for each the file's bytes, its samples and bytes per sample, and
# perfrecd's stored bytes by kind of chunk: the kallsyms chunk (all), the
# samples' chunks, the other side-band chunks; and the count of its
# KERNEL_SYMBOL records (hit).  Before that, what a file costs before its
# first sample: a file of 1 s in each mode (the /proc snapshot of every
# process's maps and names, build-ids, the kernel's part).  perf keeps its
# symbols out of its file (in the build-id cache and /proc/kallsyms at
# report time); perfrecd's are inside and count.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../_build
seconds=60
keep=no
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--keep) keep=yes; shift ;;
	*) echo "usage: $0 [--seconds N] [--build DIR] [--keep]" >&2; exit 2 ;;
	esac
done
build=$(cd "$build" && pwd)
perfrecd=$build/perfrecd
dump=$build/perfrec-dump
command -v perf >/dev/null || { echo "defaults.sh: perf not found (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$perfrecd" ] && [ -x "$dump" ] || make -C "$build" perfrecd perfrec-dump >/dev/null
tmp=$(mktemp -d /tmp/perfrec-defaults.XXXXXX)
[ "$keep" = yes ] && echo "defaults.sh: recordings in $tmp" || trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.conf"

# A file's fixed cost: 1 s in each mode, one after the other.
for mode in hit all none; do
	"$perfrecd" --config "$tmp/empty.conf" -d 1 --kernel-symbols=$mode -o "$tmp/fixed-$mode" \
		2>"$tmp/fixed-$mode.err"
done
# perfrecd's default event (it says when it falls back), for perf to sample the same.
event=cycles
grep -q 'sampling cpu-clock instead' "$tmp/fixed-hit.err" && event=cpu-clock

pids=
for mode in hit all none; do
	"$perfrecd" --config "$tmp/empty.conf" -q -d "$seconds" --kernel-symbols=$mode -o "$tmp/$mode" \
		2>"$tmp/$mode.err" &
	pids="$pids $!"
done
perf record -q -a -g -z -F 97 -e "$event" -o "$tmp/perf.data" -- sleep "$seconds" \
	>/dev/null 2>"$tmp/perf.err" &
pids="$pids $!"
for pid in $pids; do
	wait "$pid"
done

perf_samples=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null |
	awk '/SAMPLE events:/ { print $3; exit }')
perf_bytes=$(stat -c %s "$tmp/perf.data")

# The breakdown of one perfrecd file: name bytes samples, then the parts.
perfrecd_row() {
	file=$(ls "$1"/*.prf | head -n 1)
	bytes=$(stat -c %s "$file")
	{ "$dump" --summary "$file" 2>/dev/null || true; } >"$tmp/summary"
	samples=$(sed -n 's/^  SAMPLE: *//p' "$tmp/summary")
	symbols=$(sed -n 's/^  KERNEL_SYMBOL: *//p' "$tmp/summary")
	{ "$dump" --chunks "$file" 2>/dev/null || true; } | awk -v bytes="$bytes" -v samples="$samples" \
		-v perf="$perf_bytes" -v perf_samples="$perf_samples" -v name="$2" -v symbols="${symbols:-0}" '
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["records"] == 1 && f["raw"] > 1000000) kallsyms = f["stored"]
		else if (f["holds"] == "samples") sample_bytes += f["stored"]
		else other += f["stored"]
	}
	END {
		bps = bytes / samples; pbps = perf / perf_samples
		printf "%-14s %9d B %7d samples %7.1f B/sample  %.2fx perf | kallsyms %d B, %d KERNEL_SYMBOLs, samples %d B, other side-band %d B\n",
		       name, bytes, samples, bps, bps / pbps, kallsyms, symbols, sample_bytes, other
	}'
}

echo "defaults.sh: $seconds s, event $event at 97 Hz per CPU, $(nproc) CPUs, all four at once"
printf "%-14s %9d B %7d samples %7.1f B/sample\n" "perf record -z" "$perf_bytes" "$perf_samples" \
	"$(echo "$perf_bytes $perf_samples" | awk '{ print $1 / $2 }')"
perfrecd_row "$tmp/hit" "perfrecd hit"
perfrecd_row "$tmp/all" "perfrecd all"
perfrecd_row "$tmp/none" "perfrecd none"
for mode in hit all none; do
	file=$(ls "$tmp/fixed-$mode"/*.prf | head -n 1)
	{ "$dump" --summary "$file" 2>/dev/null || true; } >"$tmp/summary"
	printf "a file of 1 s, %-4s %8d B (%s MMAP2, %s COMM, %s BUILD_ID, %s KERNEL_SYMBOL, %s samples)\n" \
		"$mode:" "$(stat -c %s "$file")" \
		"$(sed -n 's/^  MMAP2: *//p' "$tmp/summary")" "$(sed -n 's/^  COMM: *//p' "$tmp/summary")" \
		"$(sed -n 's/^  BUILD_ID: *//p' "$tmp/summary")" \
		"$(sed -n 's/^  KERNEL_SYMBOL: *//p' "$tmp/summary")" "$(sed -n 's/^  SAMPLE: *//p' "$tmp/summary")"
done
