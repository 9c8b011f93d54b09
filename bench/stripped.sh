#!/bin/bash
# Stripped binaries in a real capture: how many rows of the flat view are
# unresolved addresses, and what share of the samples they hold, with
# perfrec-report as built here, with another perfrec-report (--before,
# e.g. one built from an older commit), and with perf report on the same
# load (run as root).
#
#   bench/stripped.sh [--seconds N] [--freq F] [--build DIR] [--before REPORT]
#                     [--keep DIR]
#
#   --seconds N   capture length (default 25)
#   --freq F      sampling frequency per CPU (default 999)
#   --build DIR   the build directory (default _build in the source tree)
#   --before R    another perfrec-report to compare with (default none)
#   --keep DIR    keep the captures in DIR (DIR/perfrec, DIR/perf.data);
#                 when DIR already holds them they are reused
#
# Load, all at once for N s: xz -9, gzip -9 and bzip2 -9 compressing 16 MiB
# of text (the Debian documentation, concatenated), Debian's python3
# (/usr/bin/python3, its stripped build) sorting and hashing, sqlite3
# running a recursive query in memory.  Debian ships these without
# .symtab.  perfrecd -F F and perf record -a -g -F F capture the machine
# meanwhile (other work on the machine is in the captures too).
#
# Rows: the flat view's rows (perfrec-report's default, --sort sym,dso;
# perf report --stdio --no-children --sort dso,sym); unresolved: rows
# that name an address, "[unknown]" at DSO+0xOFF in perfrec-report,
# "0x..." in perf; CFI: rows named after a function's extent in the call
# frame information, [DSO+0xSTART].
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
seconds=25 freq=999 build=$top/_build before= keep=
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--freq) freq=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--before) before=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "usage: $0 [--seconds N] [--freq F] [--build DIR] [--before REPORT] [--keep DIR]" >&2; exit 2 ;;
	esac
done
die() { echo "bench/stripped.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root"
for tool in xz gzip bzip2 sqlite3 perf /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || die "no $tool"
done
tmp=$(mktemp -d)
pids=
cleanup() {
	for pid in $pids; do
		kill -- -"$pid" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
cap=${keep:-$tmp/cap}
mkdir -p "$cap"

load() {
	find /usr/share/doc -type f -name '*.gz' 2>/dev/null | head -n 2000 | xargs zcat 2>/dev/null |
		head -c 16M >"$tmp/text"
	( while :; do xz -9 -T1 -c "$tmp/text" >/dev/null; done ) &
	( while :; do gzip -9 -c "$tmp/text" >/dev/null; done ) &
	( while :; do bzip2 -9 -c "$tmp/text" >/dev/null; done ) &
	( while :; do /usr/bin/python3 -c '
import hashlib, random
r = random.Random(1)
for _ in range(20):
    a = [r.random() for _ in range(200000)]
    a.sort()
    hashlib.sha256(repr(a).encode()).hexdigest()
'; done ) &
	( while :; do sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT sum(x % 7), count(DISTINCT x % 1000) FROM c;' >/dev/null; done ) &
	wait
}

if [ -n "$(ls "$cap"/perfrec/*.prf 2>/dev/null)" ] && [ -s "$cap/perf.data" ]; then
	echo "reusing the capture in $cap"
else
	rm -rf "$cap/perfrec" "$cap/perf.data"
	mkdir -p -m 0700 "$cap/perfrec"
	: >"$tmp/empty.conf"
	# Not --buildid-mmap: on Linux 6.18 attr.build_id also marks the MMAP2
	# records of the other tools' events PERF_RECORD_MISC_MMAP_BUILD_ID,
	# and perfrecd's capture then lacks the maps of new processes (seen
	# here: a third of the samples in no mapping).
	setsid perf record -e cpu-clock -a -g -F "$freq" -o "$cap/perf.data" \
		>"$cap/perf-record.out" 2>&1 &
	perf_pid=$!
	pids="$pids $perf_pid"
	setsid "$build/perfrecd" --config "$tmp/empty.conf" -e cpu-clock -F "$freq" \
		-o "$cap/perfrec" >"$cap/perfrecd.out" 2>&1 &
	perfrecd_pid=$!
	pids="$pids $perfrecd_pid"
	sleep 2
	setsid bash -c "$(declare -f load); tmp=$tmp load" &
	load_pid=$!
	pids="$pids $load_pid"
	sleep "$seconds"
	kill -- -"$load_pid" 2>/dev/null
	sleep 1
	kill -INT "$perfrecd_pid" "$perf_pid" 2>/dev/null
	wait "$perfrecd_pid" "$perf_pid" 2>/dev/null
	echo "captured $seconds s at $freq Hz on $(nproc) CPUs into $cap (machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
fi

# perfrec-report's flat rows: "rows unresolved unresolved% cfi cfi%", the
# shares from the sample counts (rows of a few samples print as 0.00%).
count_perfrec() {
	"$1" "$cap/perfrec" 2>/dev/null | awk '
	/^# samples:/ { total = $3 }
	/^#/ || NF < 5 { next }
	{
		rows++
		if ($4 == "[unknown]" && $NF ~ /\+0x[0-9a-f]+$/) { u++; us += $2 }
		else if ($4 ~ /^\[.*\+0x[0-9a-f]+\]$/) { c++; cs += $2 }
	}
	END { printf "%d %d %.1f %d %.1f\n", rows, u, 100 * us / total, c, 100 * cs / total }'
}

count_perf() {
	perf report -i "$cap/perf.data" --stdio --no-children -g none -n --sort dso,sym 2>/dev/null | awk '
	/^# Samples: / { total = $3; if (total ~ /K$/) total *= 1000 }
	/^#/ || NF < 5 { next }
	$1 ~ /%$/ {
		rows++
		all += $2
		if ($5 ~ /^0x[0-9a-f]+$/) { u++; us += $2 }
	}
	END { printf "%d %d %.1f 0 0.0\n", rows, u, 100 * us / all }'
}

printf '%-28s %6s %11s %12s %9s %7s\n' "" rows unresolved "unresolved%" "CFI rows" "CFI%"
show() {
	printf '%-28s %6s %11s %11s%% %9s %6s%%\n' "$1" $2
}
show "perfrec-report (this tree)" "$(count_perfrec "$build/perfrec-report")"
[ -z "$before" ] || show "perfrec-report (--before)" "$(count_perfrec "$before")"
show "perf report" "$(count_perf)"
