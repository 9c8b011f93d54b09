#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd's errors: each is one line on stderr that says what is wrong and
# where, with exit status 2 for a bad setting (retrying cannot help) and 1
# for a failure at run time; --check-config accepts a good file.  The
# runtime cases name -e cpu-clock, so that no notice about the default
# event comes before the error.
test_name=test-daemon-errors
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

out=$work/out
err=$work/err
status=0

# Runs perfrecd with a 20 s limit; its stderr in $err, its status in $status.
run() {
	status=0
	timeout 20 "$perfrecd" "$@" >"$work/stdout" 2>"$err" || status=$?
}

# expect STATUS PATTERN: that status and one line on stderr matching the
# extended regular expression PATTERN.
expect() {
	lines=$(wc -l <"$err")
	[ "$status" -eq "$1" ] || fail "status $status, expected $1; stderr: $(cat "$err")"
	[ "$lines" -eq 1 ] || fail "$lines lines on stderr, expected one: $(cat "$err")"
	grep -qE -- "$2" "$err" || fail "stderr does not match '$2': $(cat "$err")"
	note "  $(cat "$err")"
}

# -- configuration -------------------------------------------------------
good=$work/good.conf
cat >"$good" <<EOF
# a comment, then settings with spaces around them
frequency = 199
  rotate-size = 2M
flush-interval=250ms
output = $out
call-graph = fp
user-only = no
EOF
check "--check-config accepts a good file: status 0"
run --config "$good" --check-config
[ "$status" -eq 0 ] || fail "status $status: $(cat "$err")"
grep -q 'configuration OK' "$work/stdout" || fail "no 'configuration OK': $(cat "$work/stdout")"
[ ! -e "$out" ] || fail "--check-config created the output directory"

printf 'frequency = 99\n\n# ok so far\nno-such-key = 1\n' >"$work/unknown.conf"
check "an unknown key: file:line, status 2"
run --config "$work/unknown.conf" -d 1 -o "$out"
expect 2 "$work/unknown.conf:4: .*unknown key 'no-such-key'"
run --config "$work/unknown.conf" --check-config
expect 2 "$work/unknown.conf:4: .*no-such-key"

printf 'ring-pages = 48\n' >"$work/pages.conf"
check "ring-pages not a power of two: a configuration error (status 2), not a failure at run time"
run --config "$work/pages.conf" -d 1 -o "$out"
expect 2 "$work/pages.conf:1: ring-pages: 48 is not a power of two"
run --config /dev/null --ring-pages 3 -d 1 -o "$out"
expect 2 "^perfrecd: --ring-pages: 3 is not a power of two\$"

printf 'frequency = 99\nrotate-size = lots\n' >"$work/value.conf"
check "a bad value: file:line and the value, status 2"
run --config "$work/value.conf" -d 1 -o "$out"
expect 2 "$work/value.conf:2: .*rotate-size.*'lots'"

printf 'frequency = 0\n' >"$work/range.conf"
check "a value out of range: file:line, status 2"
run --config "$work/range.conf" --check-config
expect 2 "$work/range.conf:1: .*frequency.*range"

printf 'frequency 99\n' >"$work/syntax.conf"
check "a line that is not key = value: file:line, status 2"
run --config "$work/syntax.conf" --check-config
expect 2 "$work/syntax.conf:1: "

printf 'call-graph = dwarf,16K\n' >"$work/dwarf.conf"
check "call-graph = dwarf,16K in a config file: accepted"
run --config "$work/dwarf.conf" --check-config
[ "$status" -eq 0 ] || fail "status $status: $(cat "$err")"
for size in 0 abc 70000 12 65536 -8 ''; do
	printf 'frequency = 99\ncall-graph = dwarf,%s\n' "$size" >"$work/dwarf-bad.conf"
	check "call-graph = dwarf,$size in a config file: file:line and the range, status 2"
	run --config "$work/dwarf-bad.conf" -d 1 -o "$out"
	expect 2 "$work/dwarf-bad.conf:2: call-graph dwarf,SIZE: SIZE must be a multiple of 8 between 8 and 65528, not '$size'"
done

check "a config file that does not exist: status 2"
run --config "$work/missing.conf" -d 1 -o "$out"
expect 2 "$work/missing.conf: No such file"

# -- the command line ------------------------------------------------------
check "an unknown event: status 2, naming it"
run -e nosuchevent -d 1 -o "$out"
expect 2 "nosuchevent"
run --config "$good" -e nosuchevent --check-config
expect 2 "nosuchevent"

check "a tracepoint name that is no path of words: status 2, naming it"
run -e 'sched:sched-switch' -d 1 -o "$out"
expect 2 "'sched:sched-switch' is not a tracepoint name"
run -e 'sched:..' -d 1 -o "$out"
expect 2 "'sched:\.\.' is not a tracepoint name"

check "an unknown tracepoint, or no tracefs: status 2, one line naming it (or how to mount tracefs)"
# Where tracefs is mounted, the tracepoint is said unknown; where not, how to mount it.
run -e cpu-clock -e sched:no_such_tracepoint -d 1 -o "$out"
expect 2 "unknown tracepoint 'sched:no_such_tracepoint'|tracepoint 'sched:no_such_tracepoint': no tracefs is mounted \(mount -t tracefs nodev /sys/kernel/tracing\)"
# mountinfo: the file system type follows the "-" that ends the optional fields.
tracing_mounts='{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "tracefs" || $(i + 1) == "debugfs") print $5; break } }'
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	check "no tracefs in this mount namespace: status 2, saying how to mount it"
	status=0
	unshare -m sh -c 'for m in $(awk "$2" /proc/self/mountinfo | sort -r); do umount -l "$m"; done
		exec timeout 20 "$0" -e sched:sched_switch -d 1 -o "$1"' "$perfrecd" "$out" "$tracing_mounts" \
		>"$work/stdout" 2>"$err" || status=$?
	expect 2 "tracepoint 'sched:sched_switch': no tracefs is mounted \(mount -t tracefs nodev /sys/kernel/tracing\)"
fi

check "an unknown flag: status 2, naming it"
run --no-such-flag -d 1 -o "$out"
expect 2 "'--no-such-flag'"
run -Z
expect 2 "'-Z'"
check "a flag without its value: status 2, naming it"
run -d 1 -o
expect 2 "'-o'"
check "a bad value on the command line: status 2, naming the flag and the value"
run -d 1 -o "$out" --rotate-size 10K
expect 2 "rotate-size.*10K"
run -d soon -o "$out"
expect 2 "duration.*'soon'"
check "--call-graph dwarf,SIZE with a bad SIZE: status 2, naming the range and the value"
for size in 0 abc 70000 12 65536 8x ''; do
	run --config /dev/null --call-graph "dwarf,$size" -d 1 -o "$out"
	expect 2 "^perfrecd: --call-graph dwarf,SIZE: SIZE must be a multiple of 8 between 8 and 65528, not '$size'\$"
done
run --config /dev/null --call-graph dwarfish -d 1 -o "$out"
expect 2 "call-graph: 'dwarfish' is not one of fp, dwarf\[,SIZE\], none"
run --config /dev/null --kernel-symbols=some -d 1 -o "$out"
expect 2 "^perfrecd: --kernel-symbols: 'some' is not one of hit, all, none\$"
check "numbers are decimal (a leading 0 is no octal), or hexadecimal with 0x"
# 01025 read as octal is 533, within --max-stack's 1..1024; as decimal it is not.
run --config /dev/null --max-stack 01025 --check-config
expect 2 "max-stack: 01025 is out of range \\(1 to 1024\\)"
check "a time out of range is said in the units it is written in"
run --config /dev/null --off-cpu-min 61s --check-config
expect 2 "^perfrecd: --off-cpu-min: 61s is out of range \\(1us to 60s\\)\$"
for value in "--max-stack 08" "--rotate-size 08M" "--rotate-size 010M" "-F 0x63"; do
	# shellcheck disable=SC2086
	run --config /dev/null $value --check-config
	[ "$status" -eq 0 ] || fail "$value: status $status: $(cat "$err")"
done
check "-e: the same event twice is refused; two events are checked"
run --config /dev/null -e cpu-clock -e cpu-clock --check-config
expect 2 "'cpu-clock' is given twice"
run --config /dev/null -e cpu-clock,task-clock --check-config
[ "$status" -eq 0 ] || fail "-e cpu-clock,task-clock: status $status: $(cat "$err")"
check "--call-graph dwarf with --no-user-callchain: status 2"
run --config /dev/null --call-graph dwarf --no-user-callchain -d 1 -o "$out"
expect 2 "dwarf.*--no-user-callchain"
check "--call-graph dwarf, dwarf,8 and dwarf,65528 are accepted"
for value in dwarf dwarf,8 dwarf,65528 dwarf,0x2000; do
	run --config /dev/null --call-graph "$value" --check-config
	[ "$status" -eq 0 ] || fail "--call-graph $value: status $status: $(cat "$err")"
done
check "--pid with a COMMAND: status 2"
run -p 1 -o "$out" -- true
expect 2 "pid.*COMMAND"
[ ! -e "$out" ] || fail "a failed start created the output directory"

# -- the output directory --------------------------------------------------
check "a file where the output directory should be: status 1, naming it"
: >"$work/a-file"
run -e cpu-clock -d 1 -o "$work/a-file"
expect 1 "$work/a-file.*Not a directory"
run -e cpu-clock -d 1 -o "$work/a-file/sub"
expect 1 "$work/a-file/sub.*Not a directory"

check "a read-only output directory: status 1, naming it"
mkdir "$work/ro"
if mount -t tmpfs -o ro,size=1m,mode=0755 perfrec-test "$work/ro" 2>/dev/null; then
	at_exit "umount -l '$work/ro'"
	run -e cpu-clock -d 1 -o "$work/ro"
	expect 1 "$work/ro.*Read-only file system"
else
	note "  (cannot mount a tmpfs here: not checked)"
fi

# -- no privileges -----------------------------------------------------------
check "unprivileged (nobody, no capabilities, perf_event_paranoid 2): status 1, naming perf_event_paranoid and CAP_PERFMON"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
paranoid=/proc/sys/kernel/perf_event_paranoid
saved=$(cat "$paranoid")
at_exit "echo '$saved' >'$paranoid'"
echo 2 >"$paranoid" || fail "cannot set $paranoid"
# nobody may not reach the build tree (under /root, say): a copy it can run.
unprivileged=$work/unprivileged
mkdir -p "$unprivileged/out"
cp "$perfrecd" "$unprivileged/perfrecd"
chown nobody "$unprivileged/out"
chmod 755 "$work" "$unprivileged" "$unprivileged/perfrecd"
for event in "" "-e cpu-clock"; do
	status=0
	# shellcheck disable=SC2086
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$unprivileged/perfrecd" $event -d 1 -o "$unprivileged/out" >/dev/null 2>"$err" || status=$?
	note "  ${event:-the default event}:"
	expect 1 "perf_event_paranoid.*CAP_PERFMON|CAP_PERFMON.*perf_event_paranoid"
done
note "PASS"
