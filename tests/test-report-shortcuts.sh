#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The reader's shortcuts change no output.  The aggregation counts a
# compact sample like the one before it without resolving it again
# (reader/report/stack-memo.c), the session keeps a pid's process, maps
# generation and thread name for the span they hold for, and -j N reads
# on N threads; PRF_REPORT_NO_SHORTCUTS=1 turns the first two off (every
# sample read, resolved and counted on its own: the reference).  For
# every view and format, perfrec-report must give the same bytes (stdout,
# stderr, exit status and the -o file; pprof's decompressed) with the
# shortcuts and without, and with -j 1, -j 2 and -j 4, on:
#   - a capture of tests/workload (2 threads, 3 s) with the rest of the
#     machine (perfrecd -a: many processes, forks, exits), compact samples;
#   - the same recoded to verbatim samples (tests/recode);
#   - every capture of tests/report-hostile (lying records, pid reuse,
#     time going backwards, ...), each alone in its own encoding and
#     recoded to compact samples, then their two directories and the 70
#     files of 70 hosts as a whole;
#   - tests/offcpu-fixture's off-CPU capture (--profile off-cpu and wall,
#     --waker), verbatim as written and recoded to compact;
#   - perf record -a -g of the workload, when perf works here;
#   - the fuzz seeds (tests/fuzz/make-corpus): the same stdout and exit
#     status with the shortcuts and without (many are refused).
# Each difference is listed with the two commands and the first lines
# that differ; the test fails at the end when there was one.
#
# Some 1700 runs: to stay near a minute and a half on two busy CPUs, the
# compact capture, the directories and the off-CPU capture get -j 1, 2
# and 4; the verbatim copy and perf.data -j 1 and 4 (their samples take
# the same parallel path at 2 as at 4); each hostile file alone 5 views
# on -j 1 (56 files: their directories then get every view and -j); the
# seeds 40 at a time (below).  The hostile files recoded to compact are
# the inputs where one chunk's stack number is shared by processes that
# map other code at its addresses (in a real capture, processes with the
# same addresses run the same code): report_memo_find ignoring the
# process was seen failing there and only there.
test_name=test-report-shortcuts
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

recode=$top_builddir/tests/recode
hostile=$top_builddir/tests/report-hostile
offcpu_fixture=$top_builddir/tests/offcpu-fixture
make_corpus=$top_builddir/tests/fuzz/make-corpus
needs_built "$recode" "$hostile" "$offcpu_fixture" "$make_corpus"
unset PRF_REPORT_NO_SHORTCUTS

differences=0
runs=0
symbols=
: >"$work/differences"

# run OUT MODE JOBS ARGS...: perfrec-report -j JOBS ARGS, MODE "memo"
# (the shortcuts) or "each" (PRF_REPORT_NO_SHORTCUTS=1); an argument @OUT@
# is a file of this run's own (the same name in every run: stderr may name
# it).  OUT gets stdout, the exit status and the @OUT@ file (gunzipped when
# it is gzip: pprof's compression is no output of the reader's); OUT.err
# stderr.  A sanitizer's report is status 86 (report-lib.sh).
run() {
	run_out=$1 run_mode=$2 run_jobs=$3
	shift 3
	run_file=
	for arg; do
		shift
		[ "$arg" != @OUT@ ] || { arg=$work/run.out run_file=$arg; rm -rf "$arg" "$arg".*; }
		set -- "$@" "$arg"
	done
	run_status=0
	# shellcheck disable=SC2086  # $symbols: no option, or --symbols BUNDLE
	if [ "$run_mode" = each ]; then
		PRF_REPORT_NO_SHORTCUTS=1 "$report" -j "$run_jobs" $symbols "$@" >"$run_out" \
			2>"$run_out.err" || run_status=$?
	else
		"$report" -j "$run_jobs" $symbols "$@" >"$run_out" 2>"$run_out.err" ||
			run_status=$?
	fi
	runs=$((runs + 1))
	# Every input here is readable, every view must work on it: a
	# refusal on both sides would compare equal and prove nothing.
	if [ "$run_status" -ne 0 ]; then
		tail -n 40 "$run_out.err" >&2
		fail "$run_mode: perfrec-report -j $run_jobs $*: status $run_status"
	fi
	echo "--- exit status $run_status" >>"$run_out"
	if [ -n "$run_file" ]; then
		echo "--- -o file" >>"$run_out"
		if gzip -t "$run_file" 2>/dev/null; then
			gzip -dc "$run_file" >>"$run_out"
		else
			cat "$run_file" >>"$run_out"
		fi
	fi
}

# differ WHAT A B: notes a difference of the results A and B (kept by
# found_done).
differ() {
	found=$((found + 1))
	{
		echo "=== $1"
		diff -a "$2" "$3" | head -n 12 | cut -c 1-300
	} >>"$work/found"
}
found=0
: >"$work/found"
found_done() {
	[ "$found" -gt 0 ] || return 0
	grep '^=== ' "$work/found" | sed "s/^=== /$test_name: DIFFERENT: /" >&2
	cat "$work/found" >>"$work/differences"
	differences=$((differences + found))
	found=0
	: >"$work/found"
}

# same INPUT JOBS OPTIONS: OPTIONS (words; @OUT@ for -o's file) on INPUT,
# without the shortcuts on -j 1 and with them on each of JOBS (a list
# starting with 1): every result the same.  The warnings too, in the same
# order on one thread; on several, the threads symbolize in turns of their
# own and a warning of each thread's comes when it does, so there only
# the same lines are asked for (sorted).
#
# A perf.data of this host is symbolized with what is there now: the
# live /proc/kallsyms, where the BPF programs of other tests come and go,
# and the binaries of the processes it caught, which other builds on the
# machine may be relinking (a pair once differed in perfrec-report's own
# functions and lines, under make check beside other builds; five tries
# of the same on a new perf.data did not).  With $live_files set, a
# difference counts only when it is there in three tries.
same() {
	input=$1 jobs=$2
	shift 2
	tries=0
	while :; do
		tries=$((tries + 1))
		same_once "$input" "$jobs" "$@"
		[ "$found" -gt 0 ] && [ -n "${live_files:-}" ] && [ "$tries" -lt 3 ] || break
		note "$* $input: a difference (try $tries), again"
		found=0
		: >"$work/found"
	done
	found_done
}

same_once() {
	same_input=$1 same_jobs=$2
	shift 2
	run "$work/each" each 1 "$@" "$same_input"
	for j in $same_jobs; do
		run "$work/memo.$j" memo "$j" "$@" "$same_input"
		if [ "$j" = 1 ]; then
			pair="PRF_REPORT_NO_SHORTCUTS=1 perfrec-report -j 1 $* $same_input / perfrec-report -j 1 (the same)"
			cmp -s "$work/each" "$work/memo.1" || differ "$pair" "$work/each" "$work/memo.1"
			cmp -s "$work/each.err" "$work/memo.1.err" ||
				differ "$pair: stderr" "$work/each.err" "$work/memo.1.err"
		else
			pair="perfrec-report -j 1 $* $same_input / -j $j (the same)"
			cmp -s "$work/memo.1" "$work/memo.$j" || differ "$pair" "$work/memo.1" "$work/memo.$j"
			sort "$work/memo.1.err" >"$work/sorted.1"
			sort "$work/memo.$j.err" >"$work/sorted.$j"
			cmp -s "$work/sorted.1" "$work/sorted.$j" ||
				differ "$pair: stderr (sorted)" "$work/sorted.1" "$work/sorted.$j"
		fi
	done
}

# views INPUT JOBS FOCUS COMM: every view and format of a CPU profile,
# and the filters.  FOCUS is a function of INPUT's for --focus, COMM a
# command's for --comm.
views() {
	while IFS= read -r options; do
		# shellcheck disable=SC2086
		same "$1" "$2" $options
	done <<-EOF

	--view=tree --percent-limit 0
	--view=tree --callee --percent-limit 0
	--view=folded
	--view=timeline
	--view=timeline --json
	--view=samples
	--view=samples --json
	--json
	--json --view=tree --percent-limit 0
	--children
	--sort comm,dso,sym
	--sort pid,tid
	--lines --children
	--focus $3 --view=folded
	--since 1s --until 2s --view=folded
	--cpu 1 --sort comm,pid --percent-limit 0
	--comm $4 --view=tree --percent-limit 0
	--format=pprof -o @OUT@
	--format=svg -o @OUT@
	--format=html -o @OUT@
	--format=speedscope -o @OUT@
	--format=perf-script -o @OUT@
	EOF
	# Its header holds the command line, -j N with it: one thread only.
	same "$1" 1 --format=perf.data -o @OUT@
}

# A few views: the shapes that key on the process, the stack and the time.
few_views() {
	while IFS= read -r options; do
		# shellcheck disable=SC2086
		same "$1" "$2" $options
	done <<-EOF
	--sort pid,tid,comm,dso,sym
	--view=tree --percent-limit 0
	--view=samples --json
	--view=timeline --json
	--format=pprof -o @OUT@
	EOF
}

# The views of an off-CPU capture, by --profile.
off_cpu_views() {
	for profile in off-cpu wall; do
		while IFS= read -r options; do
			# shellcheck disable=SC2086
			same "$1" "$2" --profile=$profile $options
		done <<-EOF
		--sort comm,pid,tid,sym
		--view=tree --percent-limit 0
		--view=folded
		--view=samples
		--view=samples --json
		--format=perf-script
		--view=timeline --json
		--waker --view=tree --percent-limit 0
		--waker --view=folded
		--waker --format=svg -o @OUT@
		--waker --format=html -o @OUT@
		--format=pprof -o @OUT@
		EOF
	done
}

# The first function of a flat view of FILE, for --focus.
top_function() {
	report_ok "$work/top" "$1"
	flat_rows "$work/top" | awk -F '\t' 'NR == 1 { print $4 }' >"$work/top.function"
	[ -s "$work/top.function" ] || fail "$1: no function in its flat view"
	cat "$work/top.function"
}

# The busiest command of FILE whose name is a plain word, for --comm.
top_comm() {
	report_ok "$work/top" --sort comm "$1"
	awk '!/^#/ && $3 ~ /^[A-Za-z0-9_.-]+$/ { print $3; exit }' "$work/top" >"$work/top.comm"
	[ -s "$work/top.comm" ] || fail "$1: no command of a plain name"
	cat "$work/top.comm"
}

# seed_pair SEED...: the seeds as one profile without the shortcuts and
# with them: the same stdout and exit status (in $each and $memo).
seed_pair() {
	each=0 memo=0
	PRF_REPORT_NO_SHORTCUTS=1 "$report" -j 1 --view=tree --percent-limit 0 "$@" \
		>"$work/each" 2>"$work/each.err" || each=$?
	"$report" -j 1 --view=tree --percent-limit 0 "$@" >"$work/memo" 2>"$work/memo.err" || memo=$?
	runs=$((runs + 2))
	[ "$each" -le 2 ] && [ "$memo" -le 2 ] ||
		{ tail -n 40 "$work/each.err" "$work/memo.err" >&2; fail "seeds $*: status $each and $memo"; }
	[ "$each" -eq "$memo" ] ||
		differ "seeds $*: exit status $each without the shortcuts, $memo with them" /dev/null /dev/null
	cmp -s "$work/each" "$work/memo" ||
		differ "PRF_REPORT_NO_SHORTCUTS=1 perfrec-report -j 1 --view=tree --percent-limit 0 $* / perfrec-report -j 1 (the same)" \
			"$work/each" "$work/memo"
}

start=$(date +%s)

check "a capture of the workload (2 threads, 3 s) and the rest of the machine, compact samples"
# shellcheck disable=SC2086  # $favour is a command prefix
"$perfrecd" -d 120 -F 999 -a -o "$work/capture" -- $favour "$workload" --seconds 3 --threads 2 \
	>"$work/command.out" 2>"$work/daemon.err" || fail "perfrecd -a -- workload: status $?"
[ "$(file_count "$work/capture")" -eq 1 ] || fail "$(file_count "$work/capture") capture files, expected 1"
compact=$(files_in "$work/capture")
"$dump" "$compact" | grep -q '^CHUNK .*holds=samples encoding=compact' ||
	fail "$compact holds no compact samples chunk"
# The machine's processes include other tests' (make -j2), whose binaries
# in their temporary directories go while this test reads the capture a
# thousand times (a pair once differed: a binary found, then gone). Those
# the capture hit are kept in a bundle now, for every read of it.
"$top_builddir/perfrec-archive" -q "$compact" -o "$work/symbols.tar" ||
	fail "perfrec-archive $compact: status $?"
symbols="--symbols $work/symbols.tar"
report_ok "$work/comms" --sort comm "$compact"
note "$(sed -n 's/^# samples: //p' "$work/comms") samples of $(grep -c '^ *[0-9.]*%' "$work/comms") commands"
views "$compact" "1 2 4" burn_hot workload

check "the same capture recoded to verbatim samples"
"$recode" --encoding verbatim "$compact" "$work/verbatim.prf" || fail "recode --encoding verbatim: status $?"
"$dump" "$work/verbatim.prf" | grep -q 'encoding=compact' && fail "recode left compact samples"
views "$work/verbatim.prf" "1 4" burn_hot workload
symbols=
note "$(($(date +%s) - start)) s so far"

check "report-hostile's captures, each alone and recoded to compact samples"
"$hostile" "$work/hostile" || fail "report-hostile failed"
mkdir "$work/hostile-compact"
# Under the sanitizers (a fifth of a second a run) the files alone only
# in compact samples, where the stack memo is, and the directories on -j 1
# and 4.
hostile_jobs="1 2 4"
[ "$sanitized" = no ] || hostile_jobs="1 4"
for file in "$work/hostile"/*.prf; do
	[ "$sanitized" = yes ] || few_views "$file" 1
	name=$(basename "$file")
	"$recode" --encoding compact "$file" "$work/hostile-compact/$name" 2>/dev/null ||
		{ rm -f "$work/hostile-compact/$name"; continue; }
	few_views "$work/hostile-compact/$name" 1
done
note "$(ls "$work/hostile-compact" | wc -l) of $(ls "$work/hostile"/*.prf | wc -l) recoded to compact"
check "report-hostile's captures as one directory, and 70 hosts"
for dir in "$work/hostile" "$work/hostile-compact"; do
	focus=$(top_function "$dir")
	comm=$(top_comm "$dir")
	views "$dir" "$hostile_jobs" "$focus" "$comm"
done
few_views "$work/hostile/hosts" "$hostile_jobs"
note "$(($(date +%s) - start)) s so far"

check "offcpu-fixture's off-CPU capture, verbatim and compact"
"$offcpu_fixture" "$work/off-cpu.prf" || fail "offcpu-fixture failed"
"$recode" --encoding compact "$work/off-cpu.prf" "$work/off-cpu-compact.prf" ||
	fail "recode --encoding compact off-cpu.prf: status $?"
off_cpu_views "$work/off-cpu.prf" "1 2 4"
off_cpu_views "$work/off-cpu-compact.prf" "1 2 4"

check "perf record -a -g of the workload"
if ! command -v perf >/dev/null 2>&1; then
	note "SKIP this part: no perf (linux-perf)"
elif ! perf record -q -a -g -F 999 -B -N -k CLOCK_MONOTONIC -o "$work/perf.data" -- "$workload" --seconds 2 \
		--threads 2 >"$work/perf.out" 2>"$work/perf.err"; then
	note "SKIP this part: perf record -a -g does not work here: $(head -n 1 "$work/perf.err")"
else
	live_files=yes
	views "$work/perf.data" "1 4" burn_hot workload
	live_files=
fi
note "$(($(date +%s) - start)) s so far"

check "the fuzz seeds: the same stdout and exit status with the shortcuts and without"
"$make_corpus" "$work/seeds" >/dev/null || fail "make-corpus failed"
# Two thousand files of a few kB: 40 at a time, as one profile (the
# session's caches then also see one pid in several files).  A file that
# is refused refuses its whole batch: it is compared alone and the batch
# run again without it.
ls "$work/seeds" | sed "s|^|$work/seeds/|" | split -l 40 - "$work/batch."
seeds=$(ls "$work/seeds" | wc -l) refused=0
for batch in "$work"/batch.*; do
	while [ -s "$batch" ]; do
		# shellcheck disable=SC2046  # one seed a word
		seed_pair $(cat "$batch")
		[ "$each" -eq 1 ] || break
		seed=$(awk 'NR == FNR { seed[$0] = 1; next }
			/^perfrec-report: / && !/^perfrec-report: warning: / {
				for (s in seed) if (index($0, "perfrec-report: " s ": ") == 1) { print s; exit }
			}' "$batch" "$work/each.err")
		[ -n "$seed" ] || break
		refused=$((refused + 1))
		seed_pair "$seed"
		grep -vxF "$seed" "$batch" >"$batch.rest" || true
		mv "$batch.rest" "$batch"
	done
done
found_done
note "$seeds seeds, $refused refused"

note "$runs runs of perfrec-report in $(($(date +%s) - start)) s"
if [ "$differences" -gt 0 ]; then
	cat "$work/differences" >&2
	fail "$differences differences"
fi
note PASS
