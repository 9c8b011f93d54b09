#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/timeline-page.sh [--build DIR] [--runs N] [--source CAPTURE] [--hours "1 24"]
#
# The flame graph page of a long capture (issue 33's Cost): a real
# capture of this machine (CAPTURE, or 60 s recorded here system-wide at
# 97 Hz while a compile loop and tests/phases-workload run) stretched by
# bench/timeline-stretch to each of HOURS (its samples again and again,
# each copy's times moved by the capture's length: the same stacks and
# rate, later); then perfrec-report --format=html of it (timed), the
# page's size, and in Debian's chromium (puppeteer-core from
# tests/browser/node_modules) bench/timeline-page.js's load-and-draw and
# range redraw times, RUNS runs each.  As root (perfrecd).  The figures
# go in bench/README.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/_build
runs=3
source=
hours="1 24"
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$(cd "$2" && pwd); shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--source) source=$2; shift 2 ;;
	--hours) hours=$2; shift 2 ;;
	*) echo "usage: $0 [--build DIR] [--runs N] [--source CAPTURE] [--hours \"1 24\"]" >&2; exit 2 ;;
	esac
done
make -C "$build" -s perfrecd perfrec-report bench/timeline-stretch tests/phases-workload
work=$(mktemp -d /tmp/timeline-page.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

if [ -z "$source" ]; then
	: >"$work/empty.conf"
	"$build/perfrecd" --config "$work/empty.conf" -F 97 -d 60 -o "$work/src" 2>"$work/perfrecd.err" &
	daemon=$!
	sleep 1
	"$build/tests/phases-workload" --phase 2 --cycles 14 >/dev/null &
	end=$(($(date +%s) + 57))
	while [ "$(date +%s)" -lt "$end" ]; do
		for f in "$top"/reader/report/*.c; do
			cc -O2 -I"$build" -I"$top/common" -I"$top/format" -I"$top/reader/session" \
				-I"$top/reader/intern" -I"$top/reader/symbolize" -include "$build/config.h" \
				-c "$f" -o /dev/null 2>/dev/null || :
			[ "$(date +%s)" -lt "$end" ] || break
		done
	done
	wait "$daemon"
	source=$(ls "$work"/src/*.prf | head -n 1)
fi
echo "source: $source: $("$build/perfrec-report" --json "$source" 2>/dev/null |
	python3 -c 'import json, sys; h = json.load(sys.stdin)["header"]; print(h["samples"], "samples in", h["duration_ns"] / 1e9, "s")')"

export NODE_PATH=$top/tests/browser/node_modules
for h in $hours; do
	"$build/bench/timeline-stretch" "$source" "$work/$h.prf" $((h * 3600))
	begin=$(date +%s.%N)
	"$build/perfrec-report" -q -o "$work/$h.html" "$work/$h.prf" 2>/dev/null
	made=$(echo "$(date +%s.%N) - $begin" | bc)
	echo "$h h: capture $(stat -c %s "$work/$h.prf") bytes; perfrec-report -o PAGE: $made s; page $(stat -c %s "$work/$h.html") bytes"
	node "$top/bench/timeline-page.js" "$work/$h.html" "$runs"
done
