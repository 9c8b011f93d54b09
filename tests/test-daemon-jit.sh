#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# JIT symbols copied by perfrecd (PRF_RECORD_JIT_MAP, _JIT_DUMP), with
# tests/jit-fake.py as the runtime: x86-64 loops in anonymous executable
# memory, called 3 times (jitfake_hot) to 1 (jitfake_cold).
#  - A perf map written as the process exits (as Java's DumpPerfMapAtExit
#    does), and one written at its start and deleted before it exits:
#    both are in the capture, and the report names the loops in their
#    3:1 split after the process and the map are gone.
#  - A range named twice: the later name holds.
#  - A jitdump (jit-PID.dump, announced by mapping it): its code loads
#    name the loops likewise.
#  - A map bigger than --jit-map-size: cut there, the record says so, and
#    so does perfrecd's log.
#  - A new file (SIGHUP) states the whole map again: read alone, it names
#    the loops.
#  - The attacks, by the user nobody: /tmp/perf-PID.map planted as a
#    symlink to a root-only file, as a FIFO, as a hard link to a root-only
#    file (where fs.protected_hardlinks lets nobody make one); and a map
#    root wrote for nobody's process.  perfrecd reads none of them, says
#    why, and finishes on time.
test_name=test-daemon-jit
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

[ "$(uname -m)" = x86_64 ] || skip "jit-fake.py writes x86-64 code"
needs_nobody
chmod 755 "$work"
# Where nobody can read it.
fake=$work/jit-fake.py
cp "$top_srcdir/tests/jit-fake.py" "$fake"
chmod 644 "$fake"
at_exit 'rm -f /tmp/perf-$fake_pid.map'
fake_pid=

# run OUT [PERFRECD-OPTIONS] -- COMMAND...: perfrecd -F 999 follows
# COMMAND until it exits, in at most 60 s; sets $fake_pid from its first
# line.  perfrecd sees a process's maps when it drains the rings, at the
# latest each flush interval: 100 ms here, for the processes that live 1 s.
run() {
	run_out=$1
	shift
	timeout 60 "$perfrecd" -F 999 --flush-interval 100ms -o "$run_out" "$@" >"$work/command.out" 2>"$work/daemon.err" ||
		fail "perfrecd $*: status $?"
	read -r _ fake_pid <"$work/command.out" || fail "jit-fake.py said nothing"
}

# share FLAT NAME: the self percent of NAME in the "[JIT] tid $fake_pid" DSO.
share() {
	awk -v name="$2" -v dso="[JIT] tid $fake_pid" '
	!/^#/ && $4 == name && index($0, dso) { sub(/%$/, "", $1); sum += $1 }
	END { printf "%.2f\n", sum }' "$1"
}

# split FLAT HOT COLD: HOT named, and 3:1 against COLD within 7 points.
split() {
	hot=$(share "$1" "$2")
	cold=$(share "$1" "$3")
	note "  $2 $hot %, $3 $cold %"
	awk -v h="$hot" -v c="$cold" 'BEGIN { exit !(h + c > 50) }' ||
		fail "$2 and $3 named in only $hot + $cold % of the samples: $(head -n 12 "$1")"
	ratio=$(awk -v h="$hot" -v c="$cold" 'BEGIN { printf "%.1f\n", 100 * h / (h + c) }')
	within "$ratio" 75 7 || fail "$2 has $ratio % of the loops' samples, not 75"
}

check "a map written as the process exits: named after it and its map are gone"
run "$work/at-exit" -- "$python" "$fake" mmap burn 2 map 2
rm -f "/tmp/perf-$fake_pid.map"
report_ok "$work/at-exit.flat" --pid "$fake_pid" "$work/at-exit"
split "$work/at-exit.flat" jitfake_hot jitfake_cold

check "a map written at the start and deleted before the process exits: still named"
run "$work/deleted" -- "$python" "$fake" mmap map 2 burn 2 unlink
report_ok "$work/deleted.flat" --pid "$fake_pid" "$work/deleted"
split "$work/deleted.flat" jitfake_hot jitfake_cold

check "a range named again: the later name holds, as in perf"
run "$work/renamed" -- "$python" "$fake" mmap map 2 rename jitfake_later burn 2
rm -f "/tmp/perf-$fake_pid.map"
report_ok "$work/renamed.flat" --pid "$fake_pid" "$work/renamed"
split "$work/renamed.flat" jitfake_later jitfake_cold
[ "$(share "$work/renamed.flat" jitfake_hot)" = 0.00 ] || fail "the earlier name jitfake_hot is still shown"

check "a jitdump announced by its mapping: its code loads name the loops"
run "$work/jitdump" -- "$python" "$fake" mmap jitdump "$work" burn 2
rm -f "$work/jit-$fake_pid.dump"
"$dump" "$(files_in "$work/jitdump")" | grep -q " JIT_DUMP .*pid=$fake_pid .*lines=2" ||
	fail "no JIT_DUMP record of 2 lines for $fake_pid"
report_ok "$work/jitdump.flat" --pid "$fake_pid" "$work/jitdump"
split "$work/jitdump.flat" jitdump_hot jitdump_cold

check "a map over --jit-map-size 256K: cut there, and said"
run "$work/huge" --jit-map-size 256K -- "$python" "$fake" mmap map 20000 sleep 1
rm -f "/tmp/perf-$fake_pid.map"
# Not its status: MMAP2 records that another tool's attr.build_id events
# garble while it runs (see build_attr() in daemon/setup.c) make it 1.
"$dump" "$(files_in "$work/huge")" >"$work/huge.dump" || :
taken=$(awk -v pid="pid=$fake_pid" '/ JIT_MAP / && index($0, " " pid " ") {
	for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { sub(/size=/, "", $i); sum += $i } }
	END { print sum + 0 }' "$work/huge.dump")
note "  $taken bytes of the map taken"
[ "$taken" -gt 200000 ] && [ "$taken" -le 262144 ] || fail "$taken bytes taken, bound 262144"
grep -q " JIT_MAP .*pid=$fake_pid flags=cut " "$work/huge.dump" || fail "no JIT_MAP record flagged cut"
grep -q "larger than --jit-map-size" "$work/daemon.err" || fail "perfrecd did not say the map was cut"
grep -q "name=jitfake_3 *$" "$work/huge.dump" || fail "the map's first lines are not in the capture"
grep -q "name=jitfake_19999 *$" "$work/huge.dump" && fail "lines past the bound are in the capture"

check "a new file (SIGHUP) states the whole map again"
rm -f "$work/ready" "$work/go"
"$perfrecd" -F 999 -o "$work/rotated" --flush-interval 100ms -- \
	"$python" "$fake" mmap map 2 ready "$work/ready" wait "$work/go" map 1 burn 2 \
	>"$work/command.out" 2>"$work/daemon.err" &
daemon_pid=$!
wait_for '[ -e "$work/ready" ]' 20 || fail "jit-fake.py did not start"
read -r _ fake_pid <"$work/command.out"
wait_for '"$dump" "$(files_in "$work/rotated")" 2>/dev/null | grep -q " JIT_MAP .*pid=$fake_pid "' 20 ||
	fail "the map was not copied before the rotation"
kill -HUP "$daemon_pid"
wait_for '[ "$(file_count "$work/rotated")" -eq 2 ]' 20 || fail "SIGHUP started no new file"
touch "$work/go"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
rm -f "/tmp/perf-$fake_pid.map"
second=$(files_in "$work/rotated" | tail -n 1)
"$dump" "$second" | grep -q " JIT_MAP .*pid=$fake_pid flags=restated .*lines=2" ||
	fail "the second file does not restate the map's 2 lines"
report_ok "$work/rotated.flat" --pid "$fake_pid" "$second"
split "$work/rotated.flat" jitfake_hot jitfake_cold
report_ok "$work/both.flat" --pid "$fake_pid" "$work/rotated"
split "$work/both.flat" jitfake_hot jitfake_cold

# ---- attacks ------------------------------------------------------------

secret=$work/secret
printf '1000 1000 SECRET_MARKER\n' >"$secret"
chmod 600 "$secret"

# refused OUT PATTERN: nothing of pid's map in OUT, and PATTERN in the log.
refused() {
	if "$dump" "$(files_in "$1")" | grep -q -e SECRET_MARKER -e " JIT_MAP .*pid=$fake_pid "; then
		fail "the planted file was copied"
	fi
	grep -qE "$2" "$work/daemon.err" || fail "perfrecd did not say '$2': $(cat "$work/daemon.err")"
	note "  $(grep -E "$2" "$work/daemon.err" | head -n 1)"
	rm -f "/tmp/perf-$fake_pid.map"
}

check "nobody plants /tmp/perf-PID.map as a symlink to a root-only file: not followed"
run "$work/symlink" -- setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
	"$python" "$fake" plant-symlink "$secret" mmap sleep 1
refused "$work/symlink" "process $fake_pid: not reading /tmp/perf-$fake_pid.map: Too many levels of symbolic links"

check "nobody plants it as a FIFO: not opened for reading, perfrecd finishes on time"
start=$(date +%s)
run "$work/fifo" -- setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
	"$python" "$fake" plant-fifo mmap sleep 1
[ $(($(date +%s) - start)) -lt 20 ] || fail "perfrecd took $(($(date +%s) - start)) s"
"$dump" --summary "$(files_in "$work/fifo")" | grep -q "^complete: *yes" ||
	fail "the capture is not complete"
refused "$work/fifo" "process $fake_pid: not reading /tmp/perf-$fake_pid.map: not a regular file"

check "nobody plants it as a hard link to a root-only file: refused by owner"
if as_nobody ln "$secret" "$work/link-probe" 2>/dev/null; then
	rm -f "$work/link-probe"
	run "$work/hardlink" -- setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
		"$python" "$fake" plant-hardlink "$secret" mmap sleep 1
	refused "$work/hardlink" "process $fake_pid: not reading /tmp/perf-$fake_pid.map: not owned by the process"
else
	note "  the kernel refuses nobody the link (fs.protected_hardlinks): nothing to refuse"
fi

check "a map that is not the process's own (root's, for nobody's process): refused by owner"
mkdir "$work/flags"
chown nobody "$work/flags"
timeout 60 "$perfrecd" -F 999 --flush-interval 100ms -o "$work/foreign" -- \
	setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
	"$python" "$fake" ready "$work/flags/ready" wait "$work/flags/go" mmap sleep 1 \
	>"$work/command.out" 2>"$work/daemon.err" &
daemon_pid=$!
wait_for '[ -e "$work/flags/ready" ]' 20 || fail "jit-fake.py did not start"
read -r _ fake_pid <"$work/command.out"
cp "$secret" "/tmp/perf-$fake_pid.map"
touch "$work/flags/go"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
refused "$work/foreign" "process $fake_pid: not reading /tmp/perf-$fake_pid.map: not owned by the process"
note "PASS"
