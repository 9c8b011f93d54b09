#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Issue 31's attacks on what perfrecd reads for a process (JIT files,
# binaries for its cache), one at a time against one build, with
# tests/jit-flood.py as the attacker's processes: the figures of
# bench/README.md.  As root; the attacker is --uid (default 4243, a uid of
# no account, so that no other process counts against its budgets).
#
#   bench/jit-attacks.sh [--build DIR] [--uid UID] [SCENARIO...]
#
#   dumps     4 jitdumps of 16 MiB in 16-byte records, perfrecd -F 499 -d 12:
#             its run time, samples, lost, CPU
#   loads     the same with code loads of one-letter names (58 bytes)
#   maps      2 perf maps of 16 MB of random names
#   syscalls  strace -c of perfrecd reading a 256 KiB jitdump of 16-byte records
#   rotate    a 3 MB perf map, --rotate-size 1M --retain-size 6M -d 15:
#             files made, and whether the first is still there
#   sparse    30 sparse 1 TiB perf maps without a newline, -d 10: perfrecd's
#             CPU and bytes read (rchar) after 9.5 s
#   restate   a 16 MB perf map, then SIGHUP: the text each file holds of it
#   fds       ulimit -n 512, 300 processes with a perf map, then SIGHUP: the
#             second file's SNAPSHOT_END
#   binaries  6 deleted binaries of 200 MB with build-ids of their own,
#             -F 499 -d 12: lost, and the binary cache's size
set -u

build=_build
uid=4243
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--uid) uid=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "usage: $0 [--build DIR] [--uid UID] [SCENARIO...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- dumps loads maps syscalls rotate sparse restate fds binaries
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
perfrecd=$(cd "$build" && pwd)/perfrecd
dump=$(cd "$build" && pwd)/perfrec-dump
[ -x "$perfrecd" ] && [ -x "$dump" ] || { echo "$0: build $build first" >&2; exit 2; }

work=$(mktemp -d /tmp/jit-attacks.XXXXXX)
chmod 755 "$work"
cp "$src/tests/jit-flood.py" "$work/"
chmod 644 "$work/jit-flood.py"
trap 'touch "$work/a/stop" 2>/dev/null; sleep 0.5; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# A fresh attacker's directory and output directory for each scenario.
fresh() {
	rm -rf "$work/a" "$work/out"
	mkdir "$work/a"
	chown "$uid" "$work/a"
}

attack() {
	setpriv --reuid="$uid" --regid=nogroup --clear-groups /usr/bin/python3 \
		"$work/jit-flood.py" --ready "$work/a/ready" --stop "$work/a/stop" "$@"
}

attack_stop() {
	touch "$work/a/stop"
	wait
}

ready() {
	while [ ! -e "$work/a/ready" ]; do sleep 0.1; done
}

last_stats() {
	"$dump" "$(ls "$work"/out/*.prf | tail -n 1)" 2>/dev/null | grep " STATS " | tail -n 1 |
		tr ' ' '\n' | grep -E '^(samples|lost|lost_samples|cpu_user|cpu_system)=' | tr '\n' ' '
	echo
}

# stall FLOOD-ARGS...: perfrecd -F 499 -d 12 while the attacker's files are read.
stall() {
	"$perfrecd" --config /dev/null -F 499 -d 12 -o "$work/out" 2>"$work/err" &
	pid=$!
	start=$(date +%s.%N)
	sleep 1
	attack "$@" &
	wait "$pid"
	end=$(date +%s.%N)
	attack_stop
	echo "  perfrecd ran $(echo "$end - $start" | bc) s for -d 12"
	echo "  $(grep -a " samples on .* CPUs" "$work/err")"
	echo "  $(last_stats)"
}

for scenario in "$@"; do
	echo "## $scenario ($perfrecd)"
	fresh
	case $scenario in
	dumps) stall --procs 4 --dir "$work/a" jitdump $((16 << 20)) ;;
	loads) stall --procs 4 --dir "$work/a" loads $((16 << 20)) ;;
	maps) stall --procs 2 map $((16 << 20)) ;;
	syscalls)
		"$perfrecd" --config /dev/null -d 8 -o "$work/out" 2>"$work/err" &
		pid=$!
		sleep 1
		strace -c -e trace=pread64,fstat,newfstatat -p "$pid" -o "$work/strace" 2>/dev/null &
		tracer=$!
		sleep 0.5
		attack --procs 1 --dir "$work/a" jitdump $((256 << 10)) &
		wait "$pid"
		kill "$tracer" 2>/dev/null
		attack_stop
		sed 's/^/  /' "$work/strace" ;;
	rotate)
		"$perfrecd" --config /dev/null -d 15 --rotate-size 1M --retain-size 6M -o "$work/out" \
			2>"$work/err" &
		pid=$!
		sleep 2
		first=$(ls "$work"/out/*.prf | head -n 1)
		attack --procs 1 map $((3 << 20)) &
		wait "$pid"
		attack_stop
		echo "  $(grep -a " samples on .* CPUs" "$work/err")"
		echo "  the first file: $([ -e "$first" ] && echo kept || echo deleted)" ;;
	sparse)
		attack --procs 30 sparse $((1 << 40)) &
		ready
		"$perfrecd" --config /dev/null -d 10 -o "$work/out" 2>"$work/err" &
		pid=$!
		sleep 9.5
		echo "  CPU $(awk '{ print ($14 + $15) / 100 }' "/proc/$pid/stat") s, $(grep rchar "/proc/$pid/io") after 9.5 s"
		wait "$pid"
		attack_stop ;;
	restate)
		"$perfrecd" --config /dev/null --flush-interval 100ms -o "$work/out" 2>"$work/err" &
		pid=$!
		sleep 1
		attack --procs 1 map $((16 << 20)) &
		ready
		victim=$(cat "$work/a/ready.pids")
		sleep 15
		kill -HUP "$pid"
		sleep 5
		kill -INT "$pid"
		wait "$pid"
		for file in "$work"/out/*.prf; do
			"$dump" "$file" | awk -v pid="pid=$victim" '
			/ JIT_MAP / && index($0, " " pid " ") {
				for (i = 1; i <= NF; i++) if ($i ~ /^size=/) size += substr($i, 6)
				if (/restated/) restated = 1
			}
			END { printf "  %s %d bytes\n", restated ? "restated" : "taken", size }'
		done
		attack_stop ;;
	fds)
		sh -c 'ulimit -n 512 && exec "$@"' sh "$perfrecd" --config /dev/null -d 30 \
			-o "$work/out" 2>"$work/err" &
		pid=$!
		sleep 2
		attack --procs 300 small &
		ready
		sleep 2
		kill -HUP "$pid"
		sleep 3
		kill -INT "$pid"
		wait "$pid"
		grep -a -e "open files" "$work/err" | head -n 3 | cut -c1-160 | sed 's/^/  /'
		"$dump" "$(ls "$work"/out/*.prf | tail -n 1)" | grep SNAPSHOT_END | sed 's/^/  /' ||
			echo "  no SNAPSHOT_END in the last file"
		attack_stop ;;
	binaries)
		stall --procs 6 --dir "$work/a" binary $((200 << 20))
		echo "  the binary cache: $(du -sm "$work/out/.build-id" | cut -f1) MiB" ;;
	*) echo "$0: no scenario $scenario" >&2 ;;
	esac
done
