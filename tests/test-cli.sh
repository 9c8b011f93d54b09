#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perf's command-line habits, where they do not conflict with perfrec's:
#   perfrecd -C/--cpu LIST samples those CPUs only (every sample's cpu is
#   listed; the header says so); -a with a COMMAND samples the machine,
#   not only the command; -m N is --ring-pages N (the event's watermark
#   follows); -C no longer names the config file (--config does);
#   perfrec-report -i FILE is an input, --cpu takes ranges, --max-stack N
#   cuts stacks to N frames, -n and --stdio change nothing, --format=NAME
#   is each view by name.
test_name=test-cli
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

last_cpu=$(online_cpus | tail -n 1)

check "perfrecd -C $last_cpu: samples of CPU $last_cpu only, and the header says so"
"$perfrecd" --config /dev/null -C "$last_cpu" -e cpu-clock -F 499 -d 1 -o "$work/cpu" \
	2>"$work/cpu.err" || fail "perfrecd -C $last_cpu: status $?: $(cat "$work/cpu.err")"
file=$(files_in "$work/cpu")
"$dump" "$file" >"$work/cpu.records" || fail "perfrec-dump: status $?"
cpus=$(grep ' SAMPLE ' "$work/cpu.records" | sed 's/.* cpu=\([0-9]*\) .*/\1/' | sort -u | tr '\n' ' ')
[ "$cpus" = "$last_cpu " ] || fail "samples of CPUs $cpus, expected $last_cpu only"
grep -q "^META key=target value=\"cpus $last_cpu\"" "$work/cpu.records" ||
	fail "no target META for the CPU list: $(grep 'key=target' "$work/cpu.records")"
grep -q "on 1 CPUs" "$work/cpu.err" || fail "the summary does not say 1 CPU: $(cat "$work/cpu.err")"

check "perfrecd --cpu with a CPU that is not online, or a bad list: one line, status 1 or 2"
status=0
"$perfrecd" --config /dev/null --cpu 8191 -d 1 -o "$work/x" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] && grep -q 'CPU 8191 is not online' "$work/err" || fail "--cpu 8191: status $status: $(cat "$work/err")"
for list in 3-1 1- -1 1,,2 x 8192 ''; do
	status=0
	"$perfrecd" --config /dev/null --cpu "$list" -d 1 -o "$work/x" 2>"$work/err" || status=$?
	[ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] ||
		fail "--cpu '$list': status $status: $(cat "$work/err")"
done
note "  $(cat "$work/err")"

check "perfrecd -C FILE, the old spelling of --config: refused, naming the list it wanted"
printf 'frequency = 99\n' >"$work/old.conf"
status=0
"$perfrecd" -C "$work/old.conf" --check-config 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && grep -q 'CPU list' "$work/err" || fail "-C FILE: status $status: $(cat "$work/err")"
"$perfrecd" --config "$work/old.conf" --check-config >/dev/null 2>"$work/err" || fail "--config FILE: $(cat "$work/err")"

check "perfrecd -a -- COMMAND: the machine while it runs; without -a, the command alone"
# A process of the test's, busy before and after the command: only -a sees it.
sh -c 'while :; do :; done' &
spinner=$!
at_exit "kill $spinner 2>/dev/null"
# Its CPU time (utime + stime, clock ticks) while -a records: on a loaded
# machine it gets less than a CPU, and the samples to expect with it.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$spinner/stat"; }
ticks=$(cpu_ticks)
"$perfrecd" --config /dev/null -a -e cpu-clock -F 499 -o "$work/all" -- "$workload" --seconds 1 \
	2>"$work/all.err" || fail "perfrecd -a -- workload: status $?: $(cat "$work/all.err")"
ticks=$(( $(cpu_ticks) - ticks ))
expected=$(( ticks * 499 / $(getconf CLK_TCK) ))
"$perfrecd" --config /dev/null -e cpu-clock -F 499 -o "$work/cmd" -- "$workload" --seconds 1 \
	2>"$work/cmd.err" || fail "perfrecd -- workload: status $?: $(cat "$work/cmd.err")"
kill "$spinner"
"$dump" "$(files_in "$work/all")" >"$work/all.records"
"$dump" "$(files_in "$work/cmd")" >"$work/cmd.records"
with_a=$(grep -c " SAMPLE .* pid=$spinner " "$work/all.records" || true)
without=$(grep -c " SAMPLE .* pid=$spinner " "$work/cmd.records" || true)
note "  samples of a busy process of the test's: $with_a with -a (about $expected for its CPU time), $without without"
# Half of what its CPU time makes (the ticks are coarse), and some.
[ "$with_a" -ge $(( expected / 2 )) ] && [ "$with_a" -ge 5 ] ||
	fail "-a: $with_a samples of another busy process, which ran for $ticks ticks (about $expected samples)"
[ "$without" -eq 0 ] || fail "without -a: $without samples of another process"
grep -q '^META key=target value=system-wide' "$work/all.records" || fail "-a: the target is not system-wide"

check "perfrecd -m 128: rings of 128 pages (the watermark is a quarter), -m 100 refused"
"$perfrecd" --config /dev/null -m 128 -e cpu-clock -d 0.5 -o "$work/m" 2>"$work/m.err" ||
	fail "-m 128: status $?: $(cat "$work/m.err")"
page=$(getconf PAGESIZE)
"$dump" --header "$(files_in "$work/m")" | grep -q "wakeup_watermark=$((128 * page / 4)) " ||
	fail "-m 128: the event's watermark is not $((128 * page / 4)): $("$dump" --header "$(files_in "$work/m")" | grep EVENT)"
status=0
"$perfrecd" --config /dev/null -m 100 -d 0.5 -o "$work/m2" 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && grep -q 'not a power of two' "$work/err" || fail "-m 100: status $status: $(cat "$work/err")"

check "perfrec-report -i FILE equals the operand; --cpu ranges; -n and --stdio change nothing"
capture="$(files_in "$work/all")"
report_ok "$work/operand" "$capture"
report_ok "$work/dash-i" -i "$capture"
cmp -s "$work/operand" "$work/dash-i" || fail "-i FILE differs from FILE: $(diff "$work/operand" "$work/dash-i" | head -n 5)"
report_ok "$work/perfish" -n --stdio "$capture"
cmp -s "$work/operand" "$work/perfish" || fail "-n --stdio changed the report"
# The list as numbers, whatever is online now (a CPU may have gone since).
all_cpus=$(seq -s , 0 "$last_cpu")
report_ok "$work/list" --cpu "$all_cpus" "$capture"
report_ok "$work/range" --cpu "0-$last_cpu" "$capture"
cmp -s "$work/list" "$work/range" || fail "--cpu 0-$last_cpu differs from --cpu $all_cpus"
report_ok "$work/one" --cpu "$last_cpu" "$capture"
cmp -s "$work/list" "$work/one" && [ "$last_cpu" -gt 0 ] && fail "--cpu $last_cpu is the same as all CPUs"
status=0
"$report" --cpu 3-1 "$capture" >/dev/null 2>"$work/err" || status=$?
[ "$status" -eq 2 ] || fail "--cpu 3-1: status $status"

# Frames are callchain entries, as perf counts them: the functions inlined
# at one ("_[i]") come with it.
check "perfrec-report --max-stack 2: no folded stack of more than the comm and 2 frames"
report_ok "$work/folded" --view=folded --max-stack 2 "$capture"
longer='{ sub(/ [0-9]+$/, ""); n = 0; for (i = 2; i <= split($0, f, ";"); i++) n += f[i] !~ /_\[i\]$/; if (n > 2) print }'
[ -z "$(awk "$longer" "$work/folded")" ] ||
	fail "a stack longer than 2 frames: $(awk "$longer" "$work/folded" | head -n 1)"
grep -q ';burn_hot ' "$work/folded" || fail "the workload's leaf is not kept: $(head -n 3 "$work/folded")"
status=0
"$report" --max-stack 0 "$capture" >/dev/null 2>"$work/err" || status=$?
[ "$status" -eq 2 ] || fail "--max-stack 0: status $status"

check "perfrec-report --format=NAME is the view of that name"
for pair in "flat:--view=flat" "tree:--view=tree" "folded:--view=folded" "json:--json" "samples:--view=samples"; do
	format=${pair%%:*}
	report_ok "$work/format" --format="$format" "$capture"
	report_ok "$work/view" "${pair#*:}" "$capture"
	cmp -s "$work/format" "$work/view" || fail "--format=$format differs from ${pair#*:}"
done
status=0
"$report" --format=bogus "$capture" >/dev/null 2>"$work/err" || status=$?
[ "$status" -eq 2 ] || fail "--format=bogus: status $status"

check "perfrec-report -o FILE: the report whole, and nothing left where it cannot be written"
report_ok "$work/stdout" "$capture"
report_ok "$work/ignored" -o "$work/out.txt" "$capture"
cmp -s "$work/stdout" "$work/out.txt" || fail "-o FILE differs from stdout"
status=0
"$report" -o "$work/missing/dir/out.txt" "$capture" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] && grep -q 'missing/dir/out.txt' "$work/err" || fail "-o into a missing directory: status $status: $(cat "$work/err")"
status=0
"$report" -o "$work/out.txt" "$work/no-such-capture" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] || fail "a missing input with -o: status $status"
cmp -s "$work/stdout" "$work/out.txt" || fail "a failed report replaced the earlier $work/out.txt"
[ -z "$(find "$work" -maxdepth 1 -name 'out.txt.*')" ] || fail "a temporary file was left: $(ls "$work"/out.txt.*)"
# -o /dev/null once renamed a regular file over the device; a FIFO shows
# the same without putting the machine's /dev/null at stake.
mkfifo "$work/fifo"
timeout 20 cat "$work/fifo" >"$work/fifo.out" &
reader_pid=$!
timeout 20 "$report" -o "$work/fifo" "$capture" 2>"$work/err" || fail "-o FIFO: $(cat "$work/err")"
wait "$reader_pid" || fail "the FIFO's reader did not finish"
[ -p "$work/fifo" ] || fail "-o FIFO replaced the FIFO with $(stat -c %F "$work/fifo")"
cmp -s "$work/stdout" "$work/fifo.out" || fail "-o FIFO: what came through differs from stdout"
note PASS
