#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile input: perfrec-report never crashes, hangs or trips a sanitizer
# (CI runs this under ASan and UBSan too: that is the point), whatever it
# reads:
#   - the odd captures of tests/report-hostile (overlapping maps, samples
#     before any mmap, reused pids, 8000-frame and lying callchains,
#     OFF_CPU records that lie (read with --profile=off-cpu and wall too),
#     unknown record types, time going backwards, garbage KALLSYMS, odd
#     BUILD_ID paths, kernel addresses in user context, hostile names, JIT
#     symbols that lie, ...:
#     see report-hostile.c), each alone and all merged, and 70 files of 70
#     hosts; maps of odd files of this host (a FIFO, a directory, a
#     truncated ELF, /dev/null, real ELFs at absurd offsets).  All are
#     readable captures: every view must exit 0 on them.
#   - the seeds of the format fuzz corpus (tests/fuzz/make-corpus: valid,
#     cut, flipped and forged files), every file in every view: exit 0, or
#     1 with a message naming the file when it is unreadable (the views
#     but flat get the readable files 40 at a time: below).
# The views: flat, tree, folded, samples, flat --json, tree --json; for the
# odd captures also --callee, --lines, --inline, --children, every sort
# key, --focus, a narrow --width, --since/--until, --symfs, the filters
# (--comm, --pid, --tid, --cpu, --event), and the timeline as text and
# JSON; report-hostile --times' lying times through every form of
# --since/--until, the baseline windows, the timeline at 1 ms and 366 d
# and the page, whose slots and buckets must stay those of the range.
# The JSON must parse (with jq or python3, when one of them is
# installed), and names from the captures (comms, paths, symbols with ESC
# sequences, newlines, invalid UTF-8) must come out without raw control
# characters, in any view or warning.
#
# A samples chunk that is garbage under good checksums is found by the
# second pass, said once, and only its samples are missing.
#
# Bad input: a missing file, a directory without .prf files, a file that is
# not a capture and an empty one exit 1 with one line naming the path; a
# bad option exits 2.  perf.data files that lie about their header too;
# those whose records lie read what is sound, with a warning.
test_name=test-report-hostile
needs_root=no	# it reads captures made by the tests' own programs
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
[ -x "$hostile" ] || { echo "$test_name: $hostile not built" >&2; exit 99; }
timeout=${PRF_HOSTILE_TIMEOUT:-60}	# seconds one run may take

json_checker=
if command -v jq >/dev/null 2>&1; then
	json_checker="jq -e . >/dev/null"
elif command -v python3 >/dev/null 2>&1 && python3 -c 'import json' 2>/dev/null; then
	json_checker="python3 -c 'import json, sys
d = json.JSONDecoder(); s = sys.stdin.read(); i = 0
while True:
    while i < len(s) and s[i].isspace(): i += 1
    if i == len(s): break
    _, i = d.raw_decode(s, i)'"
fi

failures=0
runs=0
: >"$work/failures"

# A watchdog instead of timeout(1) around each run (thousands of runs: a
# process less each counts): every second it looks at the perfrec-report
# running now (its pid in $work/running) and kills it when it has been the
# same one for $timeout s, noting its pid in $work/hung.
(
	last='' ticks=0
	while [ -d "$work" ]; do
		sleep 1
		read -r pid <"$work/running" 2>/dev/null || pid=
		if [ -n "$pid" ] && [ "$pid" = "$last" ]; then
			ticks=$((ticks + 1))
			if [ "$ticks" -ge "$timeout" ] && kill -0 "$pid" 2>/dev/null; then
				echo "$pid" >"$work/hung"
				kill -KILL "$pid" 2>/dev/null
			fi
		else
			last=$pid ticks=0
		fi
	done
) </dev/null >/dev/null 2>&1 &
watchdog_pid=$!
at_exit "kill $watchdog_pid 2>/dev/null"

# run_case EXPECT FILE ARGS...: EXPECT is "0" (must exit 0), "01" (0, or
# 1 with a last stderr line naming FILE) or "02" (0, or 2 with one line
# saying why: an option the capture cannot take).  Failures are collected.  The
# output of --json runs goes to $work/all.json, to be parsed once.
run_case() {
	expect=$1 file=$2
	shift 2
	runs=$((runs + 1))
	status=0
	case " $* " in
	*" --json "*) json=$work/all.json ;;
	*) json=/dev/null ;;
	esac
	ASAN_OPTIONS=${case_asan_options:-$ASAN_OPTIONS} "$report" "$@" "$file" >>"$json" 2>"$work/case.err" &
	echo "$!" >"$work/running"
	wait "$!" || status=$?
	why=
	[ -s "$work/case.err" ] && sanitizer_report "$work/case.err" && why="a sanitizer report"
	[ -n "$why" ] || case $status in
	0) ;;
	1)
		last_line=$(tail -n 1 "$work/case.err")
		case $last_line in
		"perfrec-report: "*"$file"*) [ "$expect" = 0 ] && why="exit 1 on a readable capture: $last_line" ;;
		*) why="exit 1 without a last line naming the file: $last_line" ;;
		esac ;;
	2)
		[ "$expect" = 02 ] && [ "$(wc -l <"$work/case.err")" -eq 1 ] &&
			grep -q '^perfrec-report: ' "$work/case.err" ||
			why="exit 2 with other than one line: $(head -c 300 "$work/case.err")" ;;
	86) why="a sanitizer report" ;;
	*) why="exit status $status$([ "$status" -gt 128 ] && echo " (signal $((status - 128)))")"
	   [ "$status" -eq 137 ] && grep -qx "$!" "$work/hung" 2>/dev/null && why="hung: killed after $timeout s" ;;
	esac
	if [ -n "$why" ]; then
		failures=$((failures + 1))
		{
			echo "perfrec-report $* $file: $why"
			grep -m 3 -E 'ERROR: .*Sanitizer|runtime error|#[0-3] ' "$work/case.err" | sed 's/^/    /'
		} >>"$work/failures"
	fi
	return 0
}

views() {
	printf '%s\n' "--view=flat" "--view=tree" "--view=folded" "--view=samples" \
		"--json" "--view=tree --json"
}

more_options() {
	printf '%s\n' "--view=tree --callee --percent-limit 0" \
		"--lines --inline --children" \
		"--sort comm,pid,tid,dso,sym,srcline --lines" \
		"--view=tree --focus main --no-inline" \
		"--view=folded --callee" \
		"--width 20 --lines --children" \
		"--view=tree --width 12 --percent-limit 0" \
		"--view=samples --lines" \
		"--since 1s --until 3s" \
		"--json --lines --sort dso,sym" \
		"--view=tree --json --callee --percent-limit 0" \
		"--symfs $work/symfs --debug-dir $work/symfs" \
		"--comm init,deep,confused --pid 1,4001,10001 --cpu 0,1 --event cpu-clock" \
		"--view=tree --tid 3001,3002 --top 3 --quiet" \
		"--view=timeline --sort comm,pid,tid,dso,sym,srcline --lines --top 5" \
		"--view=timeline --json --sort unit,cgroup,host --width 30"
}

phase_runs=0 phase_start=$(date +%s)
check_failures() {
	if [ "$failures" -ne 0 ]; then
		head -n 60 "$work/failures" >&2
		fail "$1: $failures of $((runs - phase_runs)) runs failed (the first ones above)"
	fi
	note "$1: $((runs - phase_runs)) runs in $(($(date +%s) - phase_start)) s, no crash, hang or sanitizer report"
	phase_runs=$runs phase_start=$(date +%s)
}

check_json() {
	[ -s "$work/all.json" ] || return 0
	if [ -z "$json_checker" ]; then
		skip "no jq or python3 to parse the JSON (apt-get install python3)"
	elif ! eval "$json_checker" <"$work/all.json" 2>"$work/json.err"; then
		fail "$1: the --json output does not parse: $(head -n 2 "$work/json.err")"
	else
		note "$1: the --json output parses ($(wc -c <"$work/all.json") bytes)"
	fi
	: >"$work/all.json"
}

# ---- the odd captures ----------------------------------------------------

check "report-hostile writes its odd captures"
"$hostile" "$work/hostile" || fail "report-hostile failed"
mkdir -p "$work/symfs/etc"
echo "not the real one" >"$work/symfs/etc/passwd"
mkfifo "$work/fifo"
printf '\177ELF\002\001\001\000' >"$work/truncated-elf"
head -c 4096 "$workload" >"$work/half-elf"
ln -s "$work/loop-b" "$work/loop-a"
ln -s "$work/loop-a" "$work/loop-b"
libc=$(ldd "$workload" | awk '$1 == "libc.so.6" { print $3 }')
"$hostile" --local "$work/hostile/local-files.prf" "$workload" ${libc:+"$libc"} /etc/passwd \
	/dev/null / "$work/truncated-elf" "$work/half-elf" "$work/loop-a" "$work/missing" ||
	fail "report-hostile --local failed"
"$hostile" --local "$work/hostile/local-fifo.prf" "$work/fifo" ||
	fail "report-hostile --local (FIFO) failed"
note "$(ls "$work/hostile"/*.prf | wc -l) files, and $(ls "$work/hostile/hosts" | wc -l) in hosts/"

check "every view, and more options, on each odd capture: exit 0, no crash, no hang"
for file in "$work/hostile"/*.prf; do
	{ views; more_options; } >"$work/option-sets"
	while read -r options; do
		# shellcheck disable=SC2086
		run_case 0 "$file" $options
	done <"$work/option-sets"
done
check_failures "odd captures"
check_json "odd captures"

check "off-CPU records that lie or are extreme: every view and format of the off-CPU and wall profiles, one warning"
# everything.prf loses its OFF_CPU records with the chunk its lying
# compact stacks make unreadable: "no off-CPU records", exit 1, is right.
for file in "$work/hostile/off-cpu.prf" "$work/hostile/everything.prf" "$work/hostile"; do
	expect=0
	[ "$file" = "$work/hostile/everything.prf" ] && expect=01
	for profile in off-cpu wall; do
		{ views; printf '%s\n' "--waker --view=folded" "--waker --view=tree --percent-limit 0" \
			"--waker --json --view=tree" "--children --sort comm,tid,sym" "--tid 9101 --since 1s" \
			"--format=pprof -o $work/off.pb.gz" "--waker --format=svg -o $work/off.svg" \
			"--waker --format=html -o $work/off.html" "--view=timeline --sort comm,sym" \
			"--view=timeline --json"; } >"$work/option-sets"
		while read -r options; do
			# shellcheck disable=SC2086
			run_case $expect "$file" --profile=$profile $options
		done <"$work/option-sets"
	done
done
check_failures "off-CPU records"
check_json "off-CPU records"
report_ok "$work/off-cpu" --profile=off-cpu --view=folded "$work/hostile/off-cpu.prf"
[ "$(grep -c 'off-CPU records could not be decoded' "$work/off-cpu.err")" -eq 1 ] &&
	grep -q '^perfrec-report: warning: 16 off-CPU records could not be decoded (malformed) and were skipped$' "$work/off-cpu.err" ||
	{ cat "$work/off-cpu.err" >&2; fail "not one warning of the 16 malformed OFF_CPU records"; }
# The two good blocks (1 ms, 0.5 ms), and those of 0 and 7 ns of the same stack.
grep -q '^blocked;\[blocked\];hostile_entry_\[k\] 1500014$' "$work/off-cpu" ||
	fail "the good blocks are not all there: $(cat "$work/off-cpu")"

check "a samples chunk that passes its checksums but does not decompress: one warning, the other samples kept"
report_ok "$work/undecodable" --view=folded "$work/hostile/samples-undecodable.prf"
[ "$(grep -c 'samples-undecodable.prf: skipped 1 more damaged chunk of samples (they do not decompress)$' \
	"$work/undecodable.err")" -eq 1 ] || { cat "$work/undecodable.err" >&2; fail "no warning (or more than one) about the undecodable chunk"; }
kept=$(awk '{ s += $NF } END { print s + 0 }' "$work/undecodable")
[ "$kept" -gt 1000 ] && [ "$kept" -lt 2000 ] || fail "$kept of the 2000 samples kept, expected all but one chunk's"
note "undecodable samples chunk: $kept of 2000 samples kept"

check "tracepoint formats and samples that lie: fields outside the data said so, names escaped, one warning each"
file=$work/hostile/tracepoints.prf
report_ok "$work/tp" --view=samples --event sched:sched_process_exec "$file"
for fields in 'filename=/usr/bin/true pid=14001 comm=tr?\[31mce?' \
	'filename=\[outside the data\] pid=14001 comm=tr?\[31mce?' \
	'filename=\[outside the data\] pid=\[outside the data\] comm=\[outside the data\]'; do
	grep -q " sched:sched_process_exec: $fields\$" "$work/tp" ||
		fail "no sample with '$fields': $(grep sched_process_exec "$work/tp")"
done
[ "$(grep -c 'config 366 does not parse' "$work/tp.err")" -eq 1 ] &&
	[ "$(grep -c 'a TRACEPOINT_FORMAT record that does not decode' "$work/tp.err")" -eq 1 ] ||
	fail "not one warning for each bad format: $(cat "$work/tp.err")"
for event in x:unparsed x:no_format; do
	report_ok "$work/tp-other" --view=samples --event "$event" "$file"
	[ "$(grep -c '^tracee 14001/14001 .*: 1$' "$work/tp-other")" -eq 1 ] ||
		fail "$event: not one sample without fields: $(head -n 3 "$work/tp-other")"
done
# perfrec-dump: the formats, and an OFF_CPU record beside them, escaped.
"$dump" "$file" >"$work/tp.dump" 2>/dev/null || true
for line in 'TRACEPOINT_FORMAT name=sched:sched_process_exec config=365 size=[0-9]* fields=4$' \
	'TRACEPOINT_FORMAT name=x:unparsed config=366 size=[0-9]* fields=malformed$' \
	'TRACEPOINT_FORMAT size=[0-9]* error=malformed$' \
	'OFF_CPU time=1000\.000000005 duration=1500000 pid=14001 tid=14002 cpu=1 flags=waker cgroup=77 waker_pid=14003 waker_tid=14004 waker_comm="wa\\x1b\[2Jker" callchain=3 waker_callchain=2 user_regs=0 user_stack=0$'; do
	grep -q "$line" "$work/tp.dump" || fail "perfrec-dump: no line '$line': $(grep -e TRACEPOINT -e OFF_CPU "$work/tp.dump")"
done
report_ok "$work/tp.json" --view=samples --json --event sched:sched_process_exec "$file"
python3 - "$work/tp.json" <<'PY' || fail "the JSON samples of the lying tracepoints are wrong"
import json, sys
fields = [json.loads(line)["fields"] for line in open(sys.argv[1])]
assert fields == [
    {"filename": "/usr/bin/true", "pid": 14001, "comm": "tr\x1b[31mce\n"},
    {"filename": None, "pid": 14001, "comm": "tr\x1b[31mce\n"},
    {"filename": None, "pid": None, "comm": None},
], fields
PY

check "option lists of a thousand values and more: none dropped, nothing overrun"
# Before, --pid kept 256 (and wrote past them when given twice), --comm 64
# and --cpu 1024, dropping the rest without a word.
file=$work/hostile/samples-undecodable.prf
samples_of() { sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$1"; }
report_ok "$work/pid-1" --pid 1 "$file"
many=$(seq -s, 100000 100999)
report_ok "$work/pid-many" --pid "$many" --pid "$many,1" --tid "$many,1" "$file"
names=$(seq -s, 1 300 | sed 's/\([0-9]*\)/comm-\1/g')
report_ok "$work/comm-many" --comm "$names,init" "$file"
report_ok "$work/cpu-many" --cpu "$(seq -s, 2 2000),0,1" "$file"
report_ok "$work/all" "$file"
for out in pid-many comm-many; do
	[ "$(samples_of "$work/$out")" = "$(samples_of "$work/pid-1")" ] ||
		fail "$out: $(samples_of "$work/$out") samples, --pid 1 alone gives $(samples_of "$work/pid-1")"
done
[ "$(samples_of "$work/cpu-many")" = "$(samples_of "$work/all")" ] ||
	fail "--cpu with 2001 values: $(samples_of "$work/cpu-many") samples of $(samples_of "$work/all")"
[ "$(samples_of "$work/pid-1")" -gt 0 ] || fail "no samples of pid 1 in $file"
status=0
"$report" --pid 1,x "$file" >/dev/null 2>"$work/bad-pid.err" || status=$?
[ "$status" -eq 2 ] && grep -q "^perfrec-report: --pid: 'x' is not a number" "$work/bad-pid.err" ||
	{ cat "$work/bad-pid.err" >&2; fail "--pid 1,x: status $status, not 2 with a message naming 'x'"; }

check "a few kilobytes of one FORK record repeated 4.6 million times: bounded memory, the file named hostile, the rest read"
"$hostile" --bomb "$work/bomb.prf" || fail "report-hostile --bomb failed"
command -v python3 >/dev/null 2>&1 || fail "python3 is needed to measure perfrec-report's memory (apt-get install python3)"
# All kept (and replayed: a process each), they took 4.3 GB and 20 s.
# Bounded, a few tens of MB besides the chunk buffers: 64 MiB each, and
# the read-ahead's three (ASan's quarantine keeps freed ones too).
rss_limit=400
[ "$sanitized" = yes ] && rss_limit=1000
peak=$(python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    status = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
' "$work/bomb.err" "$report" --view=tree "$work/bomb.prf") || fail "could not run perfrec-report on the bomb"
note "bomb: $(stat -c %s "$work/bomb.prf") bytes on disk; perfrec-report exit ${peak% *}, peak RSS ${peak#* } MB (limit $rss_limit)"
[ "${peak% *}" -eq 0 ] || { cat "$work/bomb.err" >&2; fail "perfrec-report exited ${peak% *} on the bomb"; }
[ "${peak#* }" -le "$rss_limit" ] || fail "perfrec-report took ${peak#* } MB for a file of $(stat -c %s "$work/bomb.prf") bytes"
grep -q 'bomb.prf: more than [0-9]* maps, forks, names and build-ids for its size: a hostile or broken file' "$work/bomb.err" ||
	{ cat "$work/bomb.err" >&2; fail "no warning naming the file as hostile"; }

check "names from the captures are printed safely: no control characters or invalid UTF-8 in any view or warning, one line a warning"
# names.prf, build-id-paths.prf, kallsyms-2.prf and jit.prf carry ESC
# sequences, C1 controls, BEL, newlines, tabs and invalid UTF-8 in comms,
# paths and symbols; the views promise '?' (or a JSON escape) for them,
# and a warning is a line.  (tests/test-report-c1.sh has DWARF's too.)
unsafe=0
tab=$(printf '\t')
: >"$work/unsafe"
# C0 but tab and newline; DEL; C1 as UTF-8; bytes that are no UTF-8.
raw_controls() {
	grep -aqP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" ||
		! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}
for file in names build-id-paths kallsyms-2 jit; do
	views >"$work/option-sets"
	while read -r options; do
		# shellcheck disable=SC2086
		"$report" $options --lines "$work/hostile/$file.prf" >"$work/safe.out" 2>"$work/safe.err" || true
		if raw_controls "$work/safe.out"; then
			unsafe=$((unsafe + 1))
			echo "$options $file.prf: stdout: $(grep -aP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$work/safe.out" | head -n 1 | cat -v)" >>"$work/unsafe"
		fi
		# A name with a newline must not make a line of its own.
		case $options in
		--view=samples) pattern="^\$|^$tab|^.* [0-9]+/[0-9]+ \\[[0-9]+\\] [0-9]+\\.[0-9]+: [0-9]+\$" ;;
		--view=folded) pattern='^.* [0-9]+$' ;;
		*) pattern= ;;
		esac
		if [ -n "$pattern" ] && grep -avqE "$pattern" "$work/safe.out"; then
			unsafe=$((unsafe + 1))
			echo "$options $file.prf: a line that is no $options line: $(grep -avE "$pattern" "$work/safe.out" | head -n 1 | cat -v)" >>"$work/unsafe"
		fi
		if raw_controls "$work/safe.err" || grep -avq '^perfrec-report: ' "$work/safe.err"; then
			unsafe=$((unsafe + 1))
			echo "$options $file.prf: stderr: $(grep -aP '[\x00-\x08\x0b-\x1f\x7f-\xff]|^(?!perfrec-report: )' "$work/safe.err" | head -n 1 | cat -v)" >>"$work/unsafe"
		fi
	done <"$work/option-sets"
done
if [ "$unsafe" -ne 0 ]; then
	cat "$work/unsafe" >&2
	fail "$unsafe outputs with raw control characters from the capture (or a warning of several lines)"
fi

check "the folded view: a line per stack, whose counts are the samples, where nodes apart print alike"
# Addresses nothing names are nodes of their own in the call tree, named
# alike ("[unknown]", "[DSO]"): their stacks were lines of their own too.
for file in many-addresses overlap kernel-symbols names; do
	"$report" --view=folded "$work/hostile/$file.prf" >"$work/folded" 2>/dev/null ||
		fail "--view=folded $file.prf: exit status $?"
	sed 's/ [0-9]*$//' "$work/folded" | LC_ALL=C sort | LC_ALL=C uniq -d >"$work/folded.twice"
	[ ! -s "$work/folded.twice" ] ||
		fail "$file.prf: $(wc -l <"$work/folded.twice") stacks on more than one line of the folded view: $(head -n 1 "$work/folded.twice" | cat -v)"
	total=$(awk '{ n += $NF } END { print n + 0 }' "$work/folded")
	samples=$("$report" "$work/hostile/$file.prf" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
	[ "$total" = "$samples" ] || fail "$file.prf: the folded view counts $total samples, the flat view ${samples:-none}"
	note "$file.prf: $(wc -l <"$work/folded") lines, $total samples"
done

check "each odd name first in the folded view, and each speedscope frame: no sanitizer report"
# A name escaped from its first byte on put nothing before its first
# escape: the folded text, still empty, was copied to from NULL.
for pid in $(seq 11001 11015); do
	run_case 0 "$work/hostile/names.prf" --view=folded --pid "$pid"
done
for file in names kallsyms-2 jit; do
	run_case 0 "$work/hostile/$file.prf" --format=speedscope -o "$work/odd.speedscope.json"
done
check_failures "odd names first"

check "4 files of 20,000 threads no record names, read on 4 threads: each named :TID once, no crash"
# The reader names such a thread ":TID" as it meets its samples, on
# whichever thread reads the file: the names' table was grown by all of
# them at once (a double free in CI's ASan run, and here every time).
"$hostile" --nameless "$work/nameless" || fail "report-hostile --nameless failed"
report_ok "$work/nameless.out" -j 4 --sort comm "$work/nameless"
named=$(grep -cE '^ +[0-9.]+% +1  :[0-9]+$' "$work/nameless.out" || true)
distinct=$(grep -oE ':[0-9]+$' "$work/nameless.out" | sort -u | wc -l)
[ "$named" -eq 80000 ] && [ "$distinct" -eq 80000 ] ||
	fail "nameless threads: $named lines of one sample named :TID, $distinct distinct; expected 80000 of each"
note "nameless threads: 80000 named :TID, each once, from 4 threads"

check "every view on all of them merged (a directory), and on 70 files of 70 hosts"
views >"$work/option-sets"
while read -r options; do
	# shellcheck disable=SC2086
	run_case 0 "$work/hostile" $options
	# shellcheck disable=SC2086
	run_case 0 "$work/hostile/hosts" $options
done <"$work/option-sets"
check_failures "merged"
check_json "merged"

# ---- times that lie ------------------------------------------------------

check "times that lie (report-hostile --times): the ranges, the timeline and the page, bounded"
"$hostile" --times "$work/times" || fail "report-hostile --times failed"
for file in "$work/times"/*.prf; do
	for options in "--view=timeline" "--view=timeline --json" "--view=timeline --interval 1ms" \
		"--view=timeline --json --interval 366d" "--view=timeline --since -1s --until +1s" \
		"--since +0.5 --until -0.5 --baseline-since 0 --baseline-until +0.5" \
		"--view=folded --baseline-since -100ms" "--since 00:00Z --until 23:59:59.999999999Z" \
		"--view=timeline --since 2026-05-28T20:43:20.5+00:00" \
		"--format=html --since +1 -o $work/times-range.html" \
		"--format=html -o $work/times-$(basename "$file" .prf).html"; do
		# shellcheck disable=SC2086
		run_case 02 "$file" $options
	done
done
check_failures "times that lie"
check_json "times that lie"
# The page's heatmap and slots are dense arrays in the browser: a sample
# at 2^63 in a capture of 2 s must not make them 2^32 slots or 10^11
# buckets (it counts in the range's last slot and bucket).
grep -q '"time":{' "$work/times-far-after.html" || fail "far-after: the page has no time data"
slots=$(grep -o '"slot_count":[0-9]*' "$work/times-far-after.html" | head -n 1 | cut -d: -f2)
[ "${slots:-0}" -ge 1 ] && [ "$slots" -le 21 ] ||
	fail "far-after: the page has $slots slots of 100 ms for a capture of 2 s"
if command -v python3 >/dev/null 2>&1; then
	for page in "$work"/times-*.html; do
		python3 - "$page" <<-'EOF' || fail "$page: its heatmap's buckets run past its slots"
		import base64, json, re, sys
		m = re.search(r'"time":(\{[^}]*\})', open(sys.argv[1], encoding='utf-8').read())
		if not m:
		    sys.exit(0)
		t = json.loads(m.group(1))
		raw, at, values = base64.b64decode(t['buckets']), 0, []
		while at < len(raw):
		    v = shift = 0
		    while True:
		        b = raw[at]; at += 1; v |= (b & 0x7f) << shift; shift += 7
		        if not b & 0x80: break
		    values.append(v)
		stride = 2  # a CPU profile: a bucket is its skip and its samples
		last, b = -1, 0
		for i in range(0, len(values), stride):
		    b += values[i]; last = b; b += 1
		sys.exit(0 if last < t['slot_count'] * t['slot_ns'] // t['bucket_ns'] + t['rows'] else 1)
		EOF
	done
fi
# No wall-clock time for the start: no heatmap, rather than times that wrap.
for name in offset-max offset-min; do
	grep -q '"time":{' "$work/times-$name.html" &&
		fail "$name: the page has time data, though no UTC time fits its start"
done
note "times that lie: pages bounded ($slots slots for 2 s with a sample at 2^63)"

# ---- the fuzz corpus -----------------------------------------------------

corpus_tool=$top_builddir/tests/fuzz/make-corpus
# Every file in every view would be ~10,000 runs: a minute and a half
# here, minutes under the sanitizers, and thousands of forks that slow
# the tests make -j runs beside this one (a browser most).  By default
# each file is read alone by the flat view (the reading, replay,
# symbolization and aggregation of that file by itself), and the files
# that read are then given to the other views 40 at a time: every record
# of every file still reaches every view, in a fifth of the runs.
# PRF_HOSTILE_FULL=1 runs each file in each view alone.
#
# Under the sanitizers, LeakSanitizer's scan at exit is half of a short
# run's 100 ms: the flat view reads each file alone without it (ASan and
# UBSan still on), and then with it the files that did not read (their
# error paths are where a leak would be) and every batch.
corpus_mode=batched
[ "${PRF_HOSTILE_FULL:-0}" = 1 ] && corpus_mode=full
case_asan_options=
[ "$sanitized" = yes ] && [ "$corpus_mode" = batched ] &&
	case_asan_options=$ASAN_OPTIONS:detect_leaks=0
if [ -x "$corpus_tool" ]; then
	check "every view on every file of the fuzz seed corpus ($corpus_mode): exit 0, or 1 naming the file"
	"$corpus_tool" "$work/seeds" >/dev/null || fail "make-corpus failed"
	total=$(ls "$work/seeds" | wc -l)
	unreadable=0
	: >"$work/readable"
	if [ "$corpus_mode" = full ]; then
		views >"$work/option-sets"
	else
		echo "--view=flat" >"$work/option-sets"
	fi
	for file in "$work/seeds"/*; do
		while read -r options; do
			# shellcheck disable=SC2086
			run_case 01 "$file" -q $options
		done <"$work/option-sets"
		if [ "$status" -eq 1 ] && [ -z "$why" ]; then
			unreadable=$((unreadable + 1))
		elif [ "$status" -eq 0 ]; then
			echo "$file" >>"$work/readable"
		fi
	done
	note "$total seed files, $unreadable unreadable (exit 1, each named)"
	if [ -n "$case_asan_options" ]; then
		case_asan_options=
		printf '%s\n' "$work/seeds"/* | sort >"$work/all-seeds"
		sort "$work/readable" | comm -23 "$work/all-seeds" - >"$work/unreadable"
		while read -r file; do
			run_case 01 "$file" -q --view=flat
		done <"$work/unreadable"
		note "the $(wc -l <"$work/unreadable") that did not read, again with LeakSanitizer"
	fi
	if [ "$corpus_mode" = batched ]; then
		views | grep -vx -e "--view=flat" >"$work/option-sets"
		split -l 40 "$work/readable" "$work/batch."
		for batch in "$work"/batch.*; do
			last=$(tail -n 1 "$batch")
			# shellcheck disable=SC2046
			set -- $(sed '$d' "$batch")
			while read -r options; do
				# shellcheck disable=SC2086
				run_case 0 "$last" -q $options "$@"
			done <"$work/option-sets"
		done
		note "the other views on the $(wc -l <"$work/readable") readable files, 40 at a time"
	fi
	check_failures "fuzz corpus"
	check_json "fuzz corpus"
	if [ -d "$top_srcdir/tests/fuzz/crashes" ]; then
		views >"$work/option-sets"
		for file in "$top_srcdir/tests/fuzz/crashes"/*; do
			[ -f "$file" ] || continue
			while read -r options; do
				# shellcheck disable=SC2086
				run_case 01 "$file" -q $options
			done <"$work/option-sets"
		done
		check_failures "saved fuzz crashes"
	fi
else
	note "no tests/fuzz/make-corpus: the fuzz corpus part is skipped"
fi

# ---- bad input -----------------------------------------------------------

# expect_error STATUS NAME ARGS...: exit STATUS with one stderr line naming NAME.
expect_error() {
	want=$1 name=$2
	shift 2
	status=0
	"$report" "$@" >"$work/error.out" 2>"$work/error.err" || status=$?
	[ "$status" -eq "$want" ] ||
		fail "perfrec-report $*: status $status, expected $want ($(head -n 2 "$work/error.err"))"
	sanitizer_report "$work/error.err" && fail "perfrec-report $*: a sanitizer report"
	lines=$(wc -l <"$work/error.err")
	[ "$lines" -eq 1 ] || { cat "$work/error.err" >&2; fail "perfrec-report $*: $lines lines on stderr, expected 1"; }
	[ -z "$name" ] || grep -qF -- "$name" "$work/error.err" ||
		fail "perfrec-report $*: the message does not name $name: $(cat "$work/error.err")"
	[ -s "$work/error.out" ] && fail "perfrec-report $*: printed a report: $(head -n 2 "$work/error.out")"
	note "perfrec-report $*: $status: $(cat "$work/error.err")"
}

check "bad input: exit 1, one line naming the path"
expect_error 1 "$work/missing.prf" "$work/missing.prf"
mkdir "$work/no-captures"
echo notes >"$work/no-captures/notes.txt"
expect_error 1 "$work/no-captures" "$work/no-captures"
cp /etc/passwd "$work/not-a-capture.prf"
expect_error 1 "$work/not-a-capture.prf" "$work/not-a-capture.prf"
: >"$work/empty.prf"
expect_error 1 "$work/empty.prf" "$work/empty.prf"
expect_error 1 "$work/missing.prf" --view=tree "$work/hostile/overlap.prf" "$work/missing.prf"

# perf.data files that lie (tests/fuzz/perfdata-seeds.c writes them; the
# corpus part above read each in every view): about their header, exit
# 1 with one line naming the file and the cause; about their records, a
# warning naming the file and the rest read.
if [ -x "$corpus_tool" ]; then
	check "lying perf.data files: exit 1 naming the file, or a warning and the rest"
	for lie in attr-size-huge attr-size-odd attrs-offset-past-end attrs-size-huge \
		ids-count-huge ids-offset-past-end data-offset-past-end big-endian \
		pipe-mode-header-on-file-mode; do
		cp "$work/seeds/perfdata-forged-$lie.data" "$work/$lie.data"
		expect_error 1 "$work/$lie.data" "$work/$lie.data"
	done
	for lie in inflates-beyond-mmap-len forged-compressed-garbage forged-record-size-zero; do
		cp "$work/seeds/perfdata-$lie.data" "$work/$lie.data"
		run_case 0 "$work/$lie.data" --view=flat
		grep -q "warning: $work/$lie.data: skipped 1 damaged chunk" "$work/case.err" ||
			fail "$lie: no warning of its damage: $(head -n 2 "$work/case.err")"
		note "$lie: $(head -n 1 "$work/case.err")"
	done
	# Lies that cost only host facts or names: the 24 samples are all there.
	for lie in forged-data-size-huge forged-features-all forged-event-desc-count-huge \
		forged-string-length-huge forged-build-id-size-lies valid-pipe \
		forged-pipe-feature-string-lies forged-pipe-feature-number-huge; do
		"$report" "$work/seeds/perfdata-$lie.data" >"$work/case.out" 2>"$work/case.err" ||
			fail "$lie: status $?: $(tail -n 1 "$work/case.err")"
		sanitizer_report "$work/case.err" && fail "$lie: a sanitizer's report"
		grep -q '^# samples: 24$' "$work/case.out" ||
			fail "$lie: not the file's 24 samples: $(grep '^# samples' "$work/case.out")"
	done
	check_failures "lying perf.data files"
fi

check "bad options: exit 2"
for options in "--no-such-option" "--view=bogus" "--sort bogus" "--percent-limit abc" \
	"--top -1" "--pid x" "--json --view=folded" ""; do
	status=0
	# shellcheck disable=SC2086
	"$report" $options ${options:+"$work/hostile/overlap.prf"} >"$work/error.out" 2>"$work/error.err" || status=$?
	[ "$status" -eq 2 ] || fail "perfrec-report $options: status $status, expected 2"
	[ -s "$work/error.err" ] || fail "perfrec-report $options: exit 2 without a message"
	[ -s "$work/error.out" ] && fail "perfrec-report $options: printed a report"
	note "perfrec-report ${options:-(no input)}: 2: $(head -n 1 "$work/error.err")"
done
status=0
"$report" --since bogus "$work/hostile/overlap.prf" >/dev/null 2>"$work/error.err" || status=$?
[ "$status" -eq 2 ] || fail "perfrec-report --since bogus: status $status, expected 2"
note "PASS"
