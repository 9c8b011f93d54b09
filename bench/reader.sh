#!/bin/bash
# The reader benchmark: perfrec-report against perf report / perf script on
# the same samples (run as root).
#
#   bench/reader.sh [--samples N] [--build DIR] [--keep DIR] [--runs R]
#                   [--freq F] [--timeout S] [--copies C] [--programs]
#                   [--no-build]
#
#   --samples N   at least N samples in the capture (default 1100000): the
#                 capture lasts N / (CPUs x F) s plus 10 %
#   --build DIR   the build directory (default _build in the source tree);
#                 perfrecd, perfrec-report, perfrec-dump and tests/workload
#                 are built in it
#   --keep DIR    keep the capture in DIR (DIR/perfrec/*.prf and
#                 DIR/perf.data); if DIR already holds one, it is reused and
#                 nothing is captured
#   --runs R      timed runs of each command after one untimed warm-up run
#                 (default 2); the best (lowest wall-clock time) is shown.
#                 A command whose warm-up took more than 120 s is not run
#                 again: its warm-up is its only run (n=1 in the table)
#   --freq F      sampling frequency per CPU (default 10000)
#   --timeout S   bound on each perf command (default 600 s); one that
#                 does not finish shows as "> S"
#   --copies C    the scale runs read C copies of the capture's files in
#                 one directory (default 16; 0 leaves them out): hard links
#                 (copies if the directory is on another file system), each
#                 read as an input of its own (checked: the report's
#                 "# samples:" must be C times the capture's)
#   --programs    instead of tests/workload and the background load, run
#                 real programs in turn for the capture's length: xz,
#                 gzip, bzip2 over 30 MB of base64 text, a python3 JSON
#                 and regex script, a sqlite3 join (with --samples 90000
#                 --freq 4000: the issue's ~90k-sample capture)
#   --no-build    use the programs already built in DIR (a tree being
#                 edited may not build); with --keep, a capture can be made
#                 before perfrec-report builds again
#
# Capture: perfrecd -e cpu-clock -F F -o DIR/perfrec and
# perf record -e cpu-clock -a -g -F F -m 8M --buildid-mmap -o DIR/perf.data
# run at the same time, both with frame-pointer callchains and 8 MiB rings
# per CPU, while this runs: tests/workload --threads 2, a loop compiling
# two C files with gcc -O2 -g (cc1, as, many short processes), and a loop
# of find / -xdev | sort | gzip (VFS in the kernel, libc, zlib).
# perf.data is not compressed (-z would only slow perf report down);
# perfrecd writes zstd level 3, its default.
#
# Why --buildid-mmap: perfrecd asks for build-ids in its MMAP2 records
# (attr.build_id).  While it runs, the kernel (seen on 6.18) also sets
# PERF_RECORD_MISC_MMAP_BUILD_ID in the MMAP2 records it gives to the other
# perf events of the machine, whose bodies still hold maj/min/inode; perf
# 6.1 then reads maj (0xfe here) as a build-id size, warns "assertion failed
# at util/build-id.c:1010" and overflows its stack ("stack smashing
# detected"): perf record's build-id pass, perf report and perf script all
# abort on such a perf.data.  With --buildid-mmap perf's own events ask for
# build-ids too, so its records are what their flag says.
#
# Pairs timed (stdout to /dev/null, stderr to a log):
#   flat      perfrec-report FILES   vs  perf report --stdio --no-children
#   flat -g none                     vs  the same with -g none (perf prints
#             no call graphs under the entries and does not resolve them:
#             the same output as perfrec-report's flat view)
#   tree      perfrec-report --view=tree  vs  perf report --stdio --children
#   lines     perfrec-report --lines  vs  perf report --stdio --no-children
#             --sort srcline
#   folded    perfrec-report --view=folded  vs  perf script | stackcollapse:
#             FlameGraph's stackcollapse-perf.pl if it is in PATH (or
#             $STACKCOLLAPSE names it), else perf's own
#             perf script report stackcollapse
#   samples   perfrec-report --view=samples  vs  perf script (every sample
#             with its frames; also the lower bound of any perf script | X)
#
# At scale (issue 35), perfrec-report only:
#   per sample  perfrec-report -j 1 of the capture's directory (1 copy) and
#               of C copies, for flat, --view=tree, --view=folded and
#               --format=pprof -o /dev/null: CPU (user + sys) a sample of
#               the C copies, and with the fixed costs subtracted,
#               (cpu_C - cpu_1) / (samples_C - samples_1), in µs; peak RSS
#               of the C copies (the run of least CPU time of R).  perf
#               has no pprof output: pprof is perfrec's figure alone.
#   2 CPUs      a directory of 16 files (the capture's, in turn, hard
#               links): taskset -c 0 perfrec-report -j 1 against
#               taskset -c 0,1 perfrec-report -j 2, flat and --view=tree;
#               the wall-clock ratio.
# Each with /usr/bin/time -v: wall-clock, user + system, and peak RSS
# ("Maximum resident set size"; for a pipeline, the sum of its members').
# The machine's other load is not controlled: the CPU-time speedup is
# printed beside the wall-clock one, and /proc/loadavg before the runs.
#
# Then the top 10 functions (name and DSO) by self % of both tools, side by
# side (perfrec-report vs perf report --no-children --sort dso,sym -g none),
# each with its share in the other tool's profile; a function off by more
# than 1 point or 20 %, or missing from the other, is flagged DISAGREE.
#
# Last, issue 35's goals, each figure beside its goal, "met" or "MISSED":
# wall-clock speedup over perf report (flat, tree: >= 20x; >= 10x with
# --programs), over perf script (samples) and perf script | stackcollapse
# (folded) >= 10x; CPU a sample with the fixed costs out <= 0.03 µs and
# peak RSS <= 64 MiB on C copies (flat, tree, folded, pprof); 2 CPUs
# against 1 on 16 files >= 1.8x (flat, tree).  The speedups are meant on
# >= 1 M samples, the per-sample figures on 16 copies of them.
#
# Sysctls, restored on exit (only if nobody changed them meanwhile):
# kernel.perf_event_max_sample_rate is raised to 4 x F if it is lower (two
# events per CPU); kernel.perf_cpu_time_max_percent is left alone: it
# throttles on NMI-handler time, and cpu-clock (an hrtimer, no PMU here)
# does not go through it.  Both tools see the same settings.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/_build
samples_wanted=1100000
keepdir=
runs=2
freq=10000
limit=600
make_it=1
programs=0
copies=16

usage() {
	# the header's first three paragraphs: what it is, the synopsis, the options
	sed -n '2,/^set -u$/s/^# \{0,1\}//p' "$0" | awk '/^$/ && ++n == 3 { exit } 1'
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--samples) samples_wanted=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	--keep) keepdir=${2:-}; shift 2 || usage ;;
	--runs) runs=${2:-}; shift 2 || usage ;;
	--freq) freq=${2:-}; shift 2 || usage ;;
	--timeout) limit=${2:-}; shift 2 || usage ;;
	--copies) copies=${2:-}; shift 2 || usage ;;
	--no-build) make_it=0; shift ;;
	--programs) programs=1; shift ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
for v in "$samples_wanted" "$runs" "$freq" "$limit" "$copies"; do
	case "$v" in ''|*[!0-9]*) usage ;; esac
done
[ "$runs" -ge 1 ] && [ "$freq" -ge 1 ] && [ "$limit" -ge 1 ] || usage
[ "$copies" = 0 ] || [ "$copies" -ge 2 ] ||
	{ echo "reader.sh: --copies $copies: 0 (none) or at least 2" >&2; exit 2; }

die() {
	echo "reader.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "run it as root (system-wide sampling, sysctls)"
command -v perf >/dev/null || die "perf not found (apt-get install linux-perf)"
if [ ! -x /usr/bin/time ]; then
	echo "+ apt-get install -y time"
	DEBIAN_FRONTEND=noninteractive apt-get install -y time >/dev/null ||
		die "/usr/bin/time missing (apt-get install time)"
fi
[ -f "$build/Makefile" ] || die "$build: not a configured build directory (--build DIR)"
build=$(cd "$build" && pwd)
cpus=$(nproc)

if [ "$make_it" = 1 ]; then
	echo "+ make -C $build perfrecd perfrec-report perfrec-dump tests/workload"
	make -C "$build" perfrecd perfrec-report perfrec-dump tests/workload \
		>"$build/reader-bench-make.log" 2>&1 ||
		{ tail -20 "$build/reader-bench-make.log"; die "make failed"; }
fi
perfrecd=$build/perfrecd
report=$build/perfrec-report
dump=$build/perfrec-dump
workload=$build/tests/workload

# ---- cleaning up -------------------------------------------------------

tmp=$(mktemp -d /tmp/perfrec-reader.XXXXXX)
declare -A saved_sysctl=() set_sysctl_to=()
started_pids=

set_sysctl() {
	local path=/proc/sys/kernel/$1
	[ -w "$path" ] || return 0
	[ -n "${saved_sysctl[$1]+x}" ] || saved_sysctl[$1]=$(cat "$path")
	set_sysctl_to[$1]=$2
	echo "$2" >"$path" || echo "reader.sh: cannot set kernel.$1=$2" >&2
}

cleanup() {
	local pid name now
	for pid in $started_pids; do
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	done
	for pid in $started_pids; do
		wait "$pid" 2>/dev/null
	done
	for name in "${!saved_sysctl[@]}"; do
		now=$(cat "/proc/sys/kernel/$name")
		if [ "$now" = "${set_sysctl_to[$name]}" ]; then
			echo "${saved_sysctl[$name]}" >"/proc/sys/kernel/$name" ||
				echo "reader.sh: cannot restore kernel.$name=${saved_sysctl[$name]}" >&2
		else
			echo "reader.sh: kernel.$name is now $now (changed by someone else): left as is" >&2
		fi
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---- capturing ---------------------------------------------------------

if [ -n "$keepdir" ]; then
	mkdir -p "$keepdir" || die "cannot create $keepdir"
	cap=$(cd "$keepdir" && pwd)
else
	cap=$tmp/capture
	mkdir -p "$cap"
fi
prf=$cap/perfrec
pdata=$cap/perf.data

# The background load: runs until killed (its process group).
background_load() {
	local src=$tmp/load
	mkdir -p "$src"
	cp "$top/tests/workload.c" "$src/"
	awk 'BEGIN {
		print "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>"
		for (i = 0; i < 300; i++)
			printf "double f%d(double *a, int n) { double s = 0; for (int i = 0; i < n; i++) { if (a[i] > %d) s += sin(a[i]) * %d; else s -= a[i] / (i + %d); } return s; }\n", i, i, i, i + 1
	}' >"$src/gen.c"
	( while :; do
		gcc -O2 -g -c "$src/workload.c" -o "$src/w.o"
		gcc -O2 -g -c "$src/gen.c" -o "$src/g.o"
	done ) >/dev/null 2>&1 &
	( while :; do
		find / -xdev 2>/dev/null | sort | gzip -6 >/dev/null
	done ) >/dev/null 2>&1 &
	wait
}

# --programs: real programs one after another, until killed.
real_programs() {
	head -c 30000000 /dev/urandom | base64 >"$tmp/text"
	while :; do
		xz -3 -c "$tmp/text" >/dev/null
		gzip -6 -c "$tmp/text" >/dev/null
		bzip2 -c "$tmp/text" >/dev/null
		python3 -c 'import json, re
d = [{"a": i, "b": str(i) * 3} for i in range(200000)]
s = json.dumps(d); json.loads(s); sorted(re.findall(r"\d+", s[:2000000]))'
		sqlite3 :memory: "create table t(a, b); with recursive c(x) as (select 1 union all select x + 1 from c limit 300000) insert into t select x, hex(randomblob(8)) from c; select count(*) from t x join t y on x.a = y.a where x.b like '%AB%';"
	done >/dev/null 2>&1
}

if [ -n "$(ls "$prf"/*.prf 2>/dev/null)" ] && [ -s "$pdata" ]; then
	echo "reusing the capture in $cap"
else
	for p in "$perfrecd" "$workload"; do
		[ -x "$p" ] || die "$p is not built (drop --no-build, or make it)"
	done
	rm -rf "$prf" "$pdata"
	mkdir -p "$prf"
	: >"$tmp/empty.conf"
	seconds=$(( (samples_wanted * 11 / 10 + cpus * freq - 1) / (cpus * freq) ))
	rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	[ "$rate" -ge $((4 * freq)) ] || set_sysctl perf_event_max_sample_rate $((4 * freq))
	echo "capturing ${seconds} s at $freq Hz on $cpus CPUs into $cap"
	echo "  kernel.perf_event_max_sample_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)" \
		"kernel.perf_cpu_time_max_percent=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
	# both tools first, then the load, so both see the whole of it
	setsid perf record -e cpu-clock -a -g -F "$freq" -m 8M --buildid-mmap \
		-o "$pdata" >"$cap/perf-record.out" 2>"$cap/perf-record.err" &
	perf_pid=$!
	started_pids="$started_pids $perf_pid"
	# eight files or so, as a directory of them is read on all cores
	setsid "$perfrecd" --config "$tmp/empty.conf" -e cpu-clock -F "$freq" -o "$prf" \
		--rotate-age "$(( (seconds + 7) / 8 ))s" \
		>"$cap/perfrecd.out" 2>"$cap/perfrecd.err" &
	perfrecd_pid=$!
	started_pids="$started_pids $perfrecd_pid"
	sleep 2
	kill -0 "$perf_pid" 2>/dev/null || { cat "$cap/perf-record.err"; die "perf record did not start"; }
	kill -0 "$perfrecd_pid" 2>/dev/null || { cat "$cap/perfrecd.err"; die "perfrecd did not start"; }
	if [ "$programs" = 1 ]; then
		setsid bash -c "$(declare -f real_programs); tmp=$tmp real_programs" &
		load_pid=$!
		started_pids="$started_pids $load_pid"
		sleep "$seconds"
	else
		setsid bash -c "$(declare -f background_load); tmp=$tmp top=$top background_load" &
		load_pid=$!
		started_pids="$started_pids $load_pid"
		"$workload" --seconds "$seconds" --threads 2 >/dev/null
	fi
	# the pid too: the group is not there yet if the workload failed at once
	kill -TERM -- "-$load_pid" 2>/dev/null || kill -TERM "$load_pid" 2>/dev/null
	wait "$load_pid" 2>/dev/null
	# stop both at once
	kill -INT "$perf_pid"
	kill -TERM "$perfrecd_pid"
	wait "$perfrecd_pid"
	wait "$perf_pid"
	started_pids=
	tail -1 "$cap/perfrecd.err" | sed 's/^/  /'
	grep -v '^$' "$cap/perf-record.err" | tail -2 | sed 's/^/  /'
fi

# ---- counting ----------------------------------------------------------

[ -x "$report" ] || die "$report is not built (the capture is in $cap)"

prf_files=$(ls "$prf"/*.prf)
prf_samples=0
for f in $prf_files; do
	n=$("$dump" --summary "$f" 2>/dev/null | sed -n 's/^  SAMPLE: *\([0-9]*\)$/\1/p')
	prf_samples=$((prf_samples + ${n:-0}))
done
prf_lost=$("$report" --top 1 "$prf" 2>/dev/null | sed -n 's/^# lost: \([0-9]*\) samples.*/\1/p')
stats=$(perf report --stats -i "$pdata" 2>/dev/null)
perf_samples=$(echo "$stats" | sed -n '/^cpu-clock stats:$/,$s/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | tail -1)
[ -n "$perf_samples" ] || perf_samples=$(echo "$stats" | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1)
perf_lost=$(echo "$stats" | sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' | tail -1)
perf_lostrec=$(echo "$stats" | sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' | head -1)
echo
echo "capture: perfrec $prf_samples samples ($(du -sh "$prf" | cut -f1) in $(echo "$prf_files" | wc -l) file(s), lost ${prf_lost:-?});" \
	"perf $perf_samples samples ($(du -sh "$pdata" | cut -f1), LOST_SAMPLES ${perf_lost:-0}, LOST records ${perf_lostrec:-0})"
[ "${prf_samples:-0}" -gt 0 ] && [ "${perf_samples:-0}" -gt 0 ] || die "no samples"

# ---- timing ------------------------------------------------------------

# secs FILE: wall, cpu and rss (KiB) from a /usr/bin/time -v output
secs() {
	awk -F': ' '
		/Elapsed \(wall clock\)/ {
			n = split($2, p, ":"); w = 0
			for (i = 1; i <= n; i++) w = w * 60 + p[i]
		}
		/User time/ { u = $2 }
		/System time/ { s = $2 }
		/Maximum resident set size/ { r = $2 }
		/Exit status/ { x = $2 }
		END { printf "%.2f %.2f %d %d\n", w, u + s, r, x }' "$1"
}

# measure NAME SAMPLES COMMAND...: one warm-up run, then $runs runs;
# "NAME wall cpu rss_kib runs samples" into $tmp/results, of the run with
# the lowest wall-clock time (the lowest CPU time with best_by=cpu: on a
# loaded machine, a CPU figure's best run is not its fastest).
# A COMMAND of the form "pipe:A:B" runs the shell pipeline A | B.
measure() {
	local name=$1 n=$2 i best='' warm wall cpu rss x total tries=$runs pipe=''
	shift 2
	case "$1" in pipe:*) pipe=${1#pipe:} ;; esac
	for i in $(seq 0 "$tries"); do
		if [ -n "$pipe" ]; then
			local a=${pipe%%:*} b=${pipe#*:}
			/usr/bin/time -v -o "$tmp/t.all" timeout "$limit" bash -c \
				"/usr/bin/time -v -o $tmp/t.a $a | /usr/bin/time -v -o $tmp/t.b $b >/dev/null" \
				2>>"$tmp/$name.err"
			read -r wall cpu rss x < <(secs "$tmp/t.all")
			rss=$(( $(secs "$tmp/t.a" | cut -d' ' -f3) + $(secs "$tmp/t.b" | cut -d' ' -f3) ))
		else
			/usr/bin/time -v -o "$tmp/t.all" timeout "$limit" "$@" \
				>/dev/null 2>>"$tmp/$name.err"
			read -r wall cpu rss x < <(secs "$tmp/t.all")
		fi
		if [ "$x" = 124 ]; then
			echo "  $name: did not finish in $limit s" >&2
			best="timeout $cpu $rss"
			total=$((i > 0 ? i : 1))
			break
		elif [ "$x" != 0 ]; then
			echo "  $name: exit status $x (see below)" >&2
			tail -3 "$tmp/$name.err" | sed 's/^/    /' >&2
		fi
		printf '  %-14s run %d: %7.2f s wall %7.2f s cpu %7.1f MiB%s\n' "$name" "$i" \
			"$wall" "$cpu" "$(echo "$rss" | awk '{ print $1 / 1024 }')" \
			"$([ "$i" = 0 ] && echo " (warm-up)")"
		if [ "$i" = 0 ]; then
			warm="$wall $cpu $rss"
			if awk -v w="$wall" 'BEGIN { exit !(w > 120) }'; then
				best=$warm
				total=1
				break
			fi
			continue
		fi
		total=$i
		if [ -z "$best" ] || awk -v by="${best_by:-wall}" -v a="$wall $cpu" -v b="$best" '
			BEGIN { split(a, x, " "); split(b, y, " "); i = by == "cpu" ? 2 : 1; exit !(x[i] < y[i]) }'; then
			best="$wall $cpu $rss"
		fi
	done
	echo "$name $best $total $n" >>"$tmp/results"
}

echo
echo "warming the page cache"
cat "$prf"/*.prf "$pdata" >/dev/null
echo "load before the runs: $(cat /proc/loadavg)"
echo

R=("$report" -q)
P=(perf report -i "$pdata" --stdio)
measure flat-prf "$prf_samples" "${R[@]}" "$prf"
measure flat-perf "$perf_samples" "${P[@]}" --no-children
measure flatg-prf "$prf_samples" "${R[@]}" "$prf"
measure flatg-perf "$perf_samples" "${P[@]}" --no-children -g none
measure tree-prf "$prf_samples" "${R[@]}" --view=tree "$prf"
measure tree-perf "$perf_samples" "${P[@]}" --children
measure lines-prf "$prf_samples" "${R[@]}" --lines "$prf"
# perf 6.1 writes to an addr2line child per DSO; for a DSO addr2line
# cannot open (a deleted memfd: mapping, say) the child exits and perf dies
# of SIGPIPE (status 141) with an empty report.  Ignored, perf goes on
# ("could not send request" warnings) and prints its report.
measure lines-perf "$perf_samples" bash -c 'trap "" PIPE; exec "$@"' perf-srcline \
	"${P[@]}" --no-children --sort srcline
measure folded-prf "$prf_samples" "${R[@]}" --view=folded "$prf"
collapse=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || command -v stackcollapse-perf || true)}
if [ -n "$collapse" ]; then
	collapse_name="perf script | $(basename "$collapse")"
	measure folded-perf "$perf_samples" "pipe:perf script -i $pdata:perl $collapse"
else
	collapse_name="perf script report stackcollapse"
	measure folded-perf "$perf_samples" perf script report stackcollapse -i "$pdata"
fi
measure script-prf "$prf_samples" "${R[@]}" --view=samples "$prf"
measure script-perf "$perf_samples" perf script -i "$pdata"

# ---- at scale ----------------------------------------------------------

# link_as SRC DST: a hard link, or a copy where SRC is on another file
# system; either way an input of its own to the session.
link_as() {
	ln "$1" "$2" 2>/dev/null || cp "$1" "$2"
}

# header_samples DIR: the "# samples:" of perfrec-report's flat view of DIR
header_samples() {
	"${R[@]}" -j 1 "$1" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p' | head -1
}

one=$(header_samples "$prf")
[ "${one:-0}" -gt 0 ] || die "no \"# samples:\" in perfrec-report's header of $prf"
nfiles=$(echo "$prf_files" | wc -l)
if [ "$copies" -ge 2 ]; then
	many=$tmp/copies
	mkdir -p "$many"
	for k in $(seq -w 1 "$copies"); do
		for f in $prf_files; do
			link_as "$f" "$many/copy$k-$(basename "$f")"
		done
	done
	n_many=$(header_samples "$many")
	echo "$copies copies: $((copies * nfiles)) files, $n_many samples (1 copy: $one)"
	[ "${n_many:-0}" = $((copies * one)) ] ||
		echo "reader.sh: $copies copies read as ${n_many:-?} samples, not $((copies * one)):" \
			"the session merged copies; the per-sample figures below are not per copy" >&2
	for v in flat tree folded pprof; do
		case $v in
		flat) args=() ;;
		tree|folded) args=("--view=$v") ;;
		pprof) args=(--format=pprof -o /dev/null) ;;
		esac
		best_by=cpu measure "$v-c1" "$one" "${R[@]}" -j 1 "${args[@]}" "$prf"
		best_by=cpu measure "$v-cN" "$n_many" "${R[@]}" -j 1 "${args[@]}" "$many"
	done
fi

# 16 files on one CPU and on two: the capture's files in turn, so that
# there is work for both threads whatever the capture's file count.
sixteen=$tmp/sixteen
mkdir -p "$sixteen"
read -r -d '' -a file_list <<<"$prf_files"
for i in $(seq -w 1 16); do
	f=${file_list[$(( (10#$i - 1) % nfiles ))]}
	link_as "$f" "$sixteen/file$i-$(basename "$f")"
done
n16=$(header_samples "$sixteen")
echo "16 files: $n16 samples"
measure flat1cpu-prf "$n16" taskset -c 0 "${R[@]}" -j 1 "$sixteen"
measure flat2cpu-prf "$n16" taskset -c 0,1 "${R[@]}" -j 2 "$sixteen"
measure tree1cpu-prf "$n16" taskset -c 0 "${R[@]}" -j 1 --view=tree "$sixteen"
measure tree2cpu-prf "$n16" taskset -c 0,1 "${R[@]}" -j 2 --view=tree "$sixteen"
echo "load after the runs: $(cat /proc/loadavg)"

# ---- the table ---------------------------------------------------------

echo
echo "perfrec: $prf_samples samples; perf: $perf_samples samples; best of $runs after a warm-up (n = runs)"
awk -v limit="$limit" -v cname="$collapse_name" '
	{ w[$1] = $2; c[$1] = $3; r[$1] = $4; n[$1] = $5; s[$1] = $6 }
	function t(x) { return w[x] == "timeout" ? sprintf("> %d", limit) : sprintf("%.2f", w[x]) }
	# perf / perfrec, of the wall-clock times (cpu = 0) or the CPU times
	function sp(a, b, cpu,   x, y) {
		x = cpu ? c[a] : w[a]; y = cpu ? c[b] : (w[b] == "timeout" ? limit : w[b])
		if (x <= 0) return "inf"
		return (w[b] == "timeout" ? "> " : "") sprintf("%.1f", y / x)
	}
	function tput(x) { return w[x] == "timeout" ? sprintf("< %.0f", s[x] / limit) : w[x] > 0 ? sprintf("%.0f", s[x] / w[x]) : "-" }
	# A perf command killed by the timeout: its CPU time and peak RSS so far
	# are not the whole (and its addr2line children are not counted at
	# all), so they show as "-" and the ratios are left out.
	function row(label, x, perfname,   a, b, k) {
		a = x "-prf"; b = x "-perf"; k = w[b] == "timeout"
		printf "%-8s %9s %9s %8s %8s %8s %8s %8.1f %8s %6s %11s %11s  n=%d/%d  %s\n", label,
			t(a), t(b), sp(a, b, 0), sprintf("%.2f", c[a]),
			(k ? "-" : sprintf("%.2f", c[b])), (k ? "-" : sp(a, b, 1)),
			r[a] / 1024, (k ? "-" : sprintf("%.1f", r[b] / 1024)),
			(k || r[b] <= 0 ? "-" : sprintf("%.2f", r[a] / r[b])),
			tput(a), tput(b), n[a], n[b], perfname
	}
	END {
		printf "%-8s %9s %9s %8s %8s %8s %8s %8s %8s %6s %11s %11s  %s\n", "view",
			"prf s", "perf s", "speedup", "prf cpu", "perf cpu", "cpu x",
			"prf MiB", "perf MiB", "RSS x", "prf smp/s", "perf smp/s", "runs, perf command"
		row("flat", "flat", "perf report --stdio --no-children")
		row("flat-g0", "flatg", "perf report --stdio --no-children -g none")
		row("tree", "tree", "perf report --stdio --children")
		row("lines", "lines", "perf report --stdio --no-children --sort srcline")
		row("folded", "folded", cname)
		row("samples", "script", "perf script (perfrec: --view=samples)")
	}' "$tmp/results"
echo "(s: wall-clock; cpu: user+sys s; speedup and cpu x: perf / perfrec; RSS x: perfrec / perf)"
if [ "$copies" -ge 2 ]; then
	echo
	echo "perfrec-report -j 1, 1 copy ($one samples, $nfiles files) and $copies copies ($n_many samples):"
	awk '
		{ w[$1] = $2; c[$1] = $3; r[$1] = $4; n[$1] = $6 }
		END {
			printf "%-8s %9s %9s %9s %9s %9s %9s %12s %12s\n", "view", "1 cpu s", "C cpu s",
				"1 wall s", "C wall s", "1 MiB", "C MiB", "us/smp (C)", "us/smp fixed out"
			split("flat tree folded pprof", v, " ")
			for (i = 1; i <= 4; i++) {
				a = v[i] "-c1"; b = v[i] "-cN"
				if (!(b in c)) continue
				printf "%-8s %9.2f %9.2f %9.2f %9.2f %9.1f %9.1f %12.4f %12.4f\n", v[i],
					c[a], c[b], w[a], w[b], r[a] / 1024, r[b] / 1024,
					c[b] / n[b] * 1e6, (n[b] > n[a] ? (c[b] - c[a]) / (n[b] - n[a]) * 1e6 : 0)
			}
		}' "$tmp/results"
	echo "(us/smp: CPU (user + sys) a sample; fixed out: (cpu C - cpu 1) / (samples C - samples 1))"
fi
awk '
	{ w[$1] = $2; c[$1] = $3 }
	function line(v) {
		if ((v "1cpu-prf") in w && w[v "2cpu-prf"] > 0)
			printf "perfrec-report %s, 16 files: taskset -c 0 -j 1 %.2f s (cpu %.2f), taskset -c 0,1 -j 2 %.2f s (cpu %.2f): %.2fx\n",
				v, w[v "1cpu-prf"], c[v "1cpu-prf"], w[v "2cpu-prf"], c[v "2cpu-prf"], w[v "1cpu-prf"] / w[v "2cpu-prf"]
	}
	END { line("flat"); line("tree") }' "$tmp/results"

# ---- agreement ---------------------------------------------------------

echo
echo "top 10 functions by self %: perfrec-report vs perf report --no-children --sort dso,sym -g none"
echo "(a function is its name and DSO; \"(perf)\" / \"(prf)\": its share in the other tool's profile)"
"$report" -q "$prf" >"$tmp/all-prf" 2>/dev/null
perf report -i "$pdata" --stdio --no-children --sort dso,sym -g none 2>/dev/null >"$tmp/all-perf"
# "[k] name @ dso<TAB>percent", from the column positions of the headers
awk '/^# Self%/ { sym = index($0, "Symbol"); dso = index($0, "DSO"); next }
	/^#/ || NF == 0 || !sym { next }
	{ name = substr($0, sym, dso - sym); sub(/ +$/, "", name)
	  d = substr($0, dso); sub(/ +$/, "", d)
	  # an unresolved address, "[unknown]" at DSO+0xOFF: as perf names it
	  if (name ~ /\[unknown\]$/ && d ~ /\+0x[0-9a-f]+$/) {
		off = d; sub(/.*\+0x/, "", off); sub(/\+0x[0-9a-f]+$/, "", d)
		name = substr(name, 1, 4) "0x" off
	  }
	  p = $1; sub("%", "", p); print name " @ " d "\t" p }' \
	"$tmp/all-prf" >"$tmp/prf.tsv"
awk '/^# Overhead/ { dso = index($0, "Shared Object"); sym = index($0, "Symbol"); next }
	/^#/ || NF == 0 || !sym { next }
	$1 ~ /%$/ { d = substr($0, dso, sym - dso); sub(/ +$/, "", d)
	  name = substr($0, sym); sub(/ +$/, "", name)
	  if (name ~ /^\[.\] 0x0*[0-9a-f]/) { off = substr(name, 7); sub(/^0+/, "", off); name = substr(name, 1, 4) "0x" off }
	  p = $1; sub("%", "", p); print name " @ " d "\t" p }' \
	"$tmp/all-perf" >"$tmp/perf.tsv"
awk -F'\t' '
	FNR == NR { pp[$1] += $2; if (!($1 in pi)) { pi[$1] = ++np; pn[np] = $1 }; next }
	{ fp[$1] += $2; if (!($1 in fi)) { fi[$1] = ++nf; fn[nf] = $1 } }
	function off(x, y) { return x - y > 1 || y - x > 1 || (x > 0 && (y / x > 1.25 || y / x < 0.8)) }
	END {
		printf "%-2s %-50s %6s %6s   %-50s %6s %6s\n", "#", "perfrec-report", "self%", "(perf)", "perf report", "self%", "(prf)"
		for (i = 1; i <= 10; i++) {
			a = pn[i]; b = fn[i]
			printf "%-2d %-50.50s %6.2f %6s   %-50.50s %6.2f %6s\n", i, a, pp[a],
				((a in fp) ? sprintf("%.2f", fp[a]) : "-"), b, fp[b],
				((b in pp) ? sprintf("%.2f", pp[b]) : "-")
			if (!(a in fp) || off(pp[a], fp[a])) flag[a] = 1
			if (!(b in pp) || off(fp[b], pp[b])) flag[b] = 1
		}
		for (x in flag) {
			printf "DISAGREE: %s: perfrec %s%%, perf %s%%\n", x,
				((x in pp) ? sprintf("%.2f", pp[x]) : "absent"), ((x in fp) ? sprintf("%.2f", fp[x]) : "absent")
			nflag++
		}
		if (!nflag) print "agreement: each top-10 function within 1 point and 20 % of the other tool"
	}' "$tmp/prf.tsv" "$tmp/perf.tsv"
# ---- issue 35's goals ----------------------------------------------------

echo
echo "issue 35's goals (perfrec $prf_samples samples, perf $perf_samples; speedups of wall-clock time)"
awk -v limit="$limit" -v programs="$programs" -v copies="$copies" -v cname="$collapse_name" '
	{ w[$1] = $2; c[$1] = $3; r[$1] = $4; n[$1] = $6 }
	function out(what, fig, goal, ok) {
		printf "%-62s %10s %10s  %s\n", what, fig, goal, ok
	}
	# perf / perfrec, wall; a perf command cut by the timeout: "> x"
	function speed(x, label, goal,   a, b, y) {
		a = x "-prf"; b = x "-perf"
		if (!(a in w) || !(b in w) || w[a] <= 0) return out(label, "-", ">= " goal "x", "?")
		if (w[b] == "timeout") {
			y = limit / w[a]
			return out(label, sprintf("> %.1fx", y), ">= " goal "x", y >= goal ? "met" : "?")
		}
		y = w[b] / w[a]
		out(label, sprintf("%.1fx", y), ">= " goal "x", y >= goal ? "met" : "MISSED")
	}
	function persample(v,   a, b, y) {
		a = v "-c1"; b = v "-cN"
		if (!(b in c) || n[b] <= n[a]) return
		y = (c[b] - c[a]) / (n[b] - n[a]) * 1e6
		out(v ": CPU a sample, " copies " copies, fixed cost out", sprintf("%.4f us", y),
			"<= 0.03 us", y <= 0.03 ? "met" : "MISSED")
		out(v ": peak RSS, " copies " copies", sprintf("%.1f MiB", r[b] / 1024),
			"<= 64 MiB", r[b] <= 64 * 1024 ? "met" : "MISSED")
	}
	function cpus(v,   y) {
		if (!((v "2cpu-prf") in w) || w[v "2cpu-prf"] <= 0) return
		y = w[v "1cpu-prf"] / w[v "2cpu-prf"]
		out(v ": 2 CPUs (-j 2) against 1 (-j 1), 16 files", sprintf("%.2fx", y),
			">= 1.8x", y >= 1.8 ? "met" : "MISSED")
	}
	END {
		g = programs ? 10 : 20
		printf "%-62s %10s %10s  %s\n", "figure", "measured", "goal", ""
		speed("flat", "flat: perf report --no-children / perfrec, wall", g)
		speed("tree", "tree: perf report --children / perfrec, wall", g)
		speed("folded", "folded: " cname " / perfrec, wall", 10)
		speed("script", "samples: perf script / perfrec, wall", 10)
		persample("flat"); persample("tree"); persample("folded"); persample("pprof")
		cpus("flat"); cpus("tree")
	}' "$tmp/results"
[ "$copies" = 0 ] ||
	echo "(CPU a sample, fixed cost out: perfrec-report -j 1, (cpu C - cpu 1) / (samples C - samples 1))"
[ "$prf_samples" -ge 1000000 ] || [ "$programs" = 1 ] ||
	echo "(the speedup goals are meant on >= 1 M samples: this capture has $prf_samples)"

if [ -n "$keepdir" ]; then
	cp "$tmp/results" "$tmp/all-prf" "$tmp/all-perf" "$cap/" 2>/dev/null
	for f in "$tmp"/*.err; do cp "$f" "$cap/$(basename "$f" .err).stderr"; done
	echo "capture, full reports and stderr logs kept in $cap"
fi
