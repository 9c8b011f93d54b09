#!/bin/sh
# The format benchmark on records of this machine (run as root).
#
#   bench/format.sh [BUILD_DIR]        BUILD_DIR defaults to the current one
#
# Environment: PRF_BENCH_SECONDS (5) of each recording; PRF_BENCH_WORKLOAD
# "compile" (gcc -O2 on the format library's sources, one loop per CPU) or
# "sha256" (sha256sum of a 256 MB file, one loop per CPU); PRF_BENCH_KEEP=1
# keeps the recordings in the temporary directory it prints.
#
# Three recordings of the same workload, each perf record -a -g -F 997:
#   1. plain: its records, as a raw stream, are what the writer and the
#      reader are timed on, and what the ratios of the first table are of;
#   2. with -z (zstd level 1) and 3. with --compression-level=3: their
#      PERF_RECORD_COMPRESSED records are decompressed back into a raw
#      stream, so perfrec and perf are compared on the very same records.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$(cd "${1:-.}" && pwd)
bench=$build/bench/format-bench
seconds=${PRF_BENCH_SECONDS:-5}
workload=${PRF_BENCH_WORKLOAD:-compile}
cpus=$(nproc)

[ -x "$bench" ] || make -C "$build" bench/format-bench >/dev/null
command -v perf >/dev/null || { echo "format.sh: perf not found (apt-get install linux-perf)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/perfrec-bench.XXXXXX)
pids=

stop_workload() {
	for pid in $pids; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in $pids; do
		wait "$pid" 2>/dev/null || true
	done
	pids=
}

cleanup() {
	stop_workload
	if [ "${PRF_BENCH_KEEP:-}" = 1 ]; then
		echo "format.sh: recordings kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# One loop per CPU, each a background subshell whose pid is remembered.
compile_loop() {
	while :; do
		for src in "$top"/format/*.c; do
			gcc -O2 -g -I"$top/format" -include "$build/config.h" \
				-c "$src" -o "$tmp/obj-$1.o"
		done
	done
}

sha256_loop() {
	while :; do
		sha256sum "$tmp/big" >/dev/null
	done
}

start_workload() {
	[ "$workload" != sha256 ] || [ -f "$tmp/big" ] ||
		head -c 256000000 /dev/urandom >"$tmp/big"
	i=0
	while [ "$i" -lt "$cpus" ]; do
		case "$workload" in
		compile) compile_loop "$i" & ;;
		sha256) sha256_loop & ;;
		*) echo "format.sh: unknown workload '$workload'" >&2; exit 2 ;;
		esac
		pids="$pids $!"
		i=$((i + 1))
	done
	sleep 1		# past the first exec storm
}

# record NAME [perf record options]
# -B (no build-ids): perf 6.1's build-id pass at the end of a recording
# asserts and aborts on this workload (util/build-id.c:1010); it only adds
# a header section anyway, not records.
record() {
	name=$1
	shift
	echo "+ perf record -a -g -F 997 -B $* -o $tmp/$name.data -- sleep $seconds"
	perf record -a -g -F 997 -B "$@" -o "$tmp/$name.data" -- sleep "$seconds" \
		>"$tmp/$name.perf.log" 2>&1 || { cat "$tmp/$name.perf.log"; exit 1; }
	grep -h 'perf record:' "$tmp/$name.perf.log" | sed 's/^/  /'
}

# convert NAME: the raw streams, and perf's sizes in NAME.kv.
convert() {
	echo "+ format-bench convert $1.data $1.raw $1.ring.raw"
	"$bench" convert "$tmp/$1.data" "$tmp/$1.raw" "$tmp/$1.ring.raw" >"$tmp/$1.kv"
	sed 's/^/  /' "$tmp/$1.kv"
}

# value NAME KEY: a size convert printed.
value() {
	sed -n "s/^$2=//p" "$tmp/$1.kv"
}

echo "== workload: $workload on $cpus CPUs; recording $seconds s each"
start_workload
record plain
record z1 -z
record z3 --compression-level=3
stop_workload
uname -r
perf --version

echo
echo "== throughput and ratio: the records of the plain recording"
convert plain
echo "+ format-bench run plain.raw"
"$bench" run "$tmp/plain.raw"

for level in 1 3; do
	z=z$level
	echo
	echo "== the same records as perf record -z (level $level): all kernel records of the file"
	convert "$z"
	echo "+ format-bench run $z.raw --ratio-only --compare ..."
	"$bench" run "$tmp/$z.raw" --ratio-only \
		--compare "perf -z$level: data section=$(value "$z" perf_data_bytes)" \
		--compare "perf -z$level: whole file=$(value "$z" perf_file_bytes)"
	echo "  (perf's data section also holds $(value "$z" perf_user_records) perf-only" \
		"records, $(value "$z" perf_user_bytes) bytes, not in the raw stream)"
	echo
	echo "== the same records: only those perf compressed (PERF_RECORD_COMPRESSED)"
	echo "+ format-bench run $z.ring.raw --ratio-only --compare ..."
	"$bench" run "$tmp/$z.ring.raw" --ratio-only \
		--compare "perf -z$level: COMPRESSED records=$(value "$z" perf_compressed_bytes)"
done
