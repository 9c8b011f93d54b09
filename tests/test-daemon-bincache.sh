#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd's binary cache (--binary-cache): binaries that exist only in
# another mount namespace are kept in the output directory's .build-id
# tree, where perfrec-report and perfrec-archive find them.
#
# A copy of tests/workload runs from a tmpfs mounted inside `unshare -m`,
# so the host never sees it; where the host looks for it ($work/ns/nsload)
# there is a FIFO instead.  Each run is under `timeout`: nothing may hang
# on a FIFO.
#   - kept: DIR/.build-id/xx/rest is the workload's bytes (cmp) with its
#     build-id (eu-readelf -n), and an older entry already there went to
#     make room under the cap (the workload's size + 10000); after the process and its tmpfs are gone,
#     perfrec-report DIR names burn_hot, burn_warm and burn_cold with the
#     shares the workload measured (--print-shares) within 5 points, and
#     perfrec-archive DIR stores the binary;
#   - the vDSO: each file records its build-id under [vdso], the cache
#     and the bundle hold an ELF with that build-id;
#   - capped: with --binary-cache 16K (the binary is bigger) nothing is
#     kept, one line says so, and the report names no burn_*;
#   - planted: DIR/.build-id/xx a symbolic link to another directory:
#     nothing is written there, a line says so; DIR/.build-id/xx/rest a
#     FIFO: replaced by the binary, never opened blocking;
#   - deleted: a copy deleted while it runs, then profiled (-p PID: its
#     maps say "(deleted)"), is kept and its burn_hot named.  (A binary
#     deleted after perfrecd has read its mapping was reachable then,
#     and is not kept.)
test_name=test-daemon-bincache
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

for tool in unshare mount timeout mkfifo eu-readelf cmp tar; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
archive=$top_builddir/perfrec-archive
unshare -m sh -c "mount -t tmpfs tmpfs '$work'" 2>/dev/null ||
	skip "cannot mount a tmpfs in a new mount namespace here"

id=$(elf_build_id "$workload")
[ -n "$id" ] || fail "$workload has no build-id"
xx=$(echo "$id" | cut -c1-2)
rest=$(echo "$id" | cut -c3-)
mkdir -p "$work/ns"
mkfifo "$work/ns/nsload"

# run_hidden DIR [PERFRECD OPTIONS...]: the workload from a tmpfs only its
# own mount namespace has, 2 s, under perfrecd -o DIR.
run_hidden() {
	dir=$1
	shift
	status=0
	timeout 60 "$perfrecd" -d 60 -F 999 -o "$dir" "$@" -- \
		unshare -m sh -c 'mount -t tmpfs tmpfs "$1" && cp "$2" "$1/nsload" && exec "$1/nsload" --seconds 2 --print-shares' \
		sh "$work/ns" "$workload" >"$work/command.out" 2>"$work/daemon.err" || status=$?
	[ "$status" -ne 124 ] || fail "perfrecd -o $dir $*: still running after 60 s"
	[ "$status" -eq 0 ] || fail "perfrecd -o $dir $*: status $status"
	[ -p "$work/ns/nsload" ] || fail "the host sees the hidden workload at $work/ns/nsload"
}

report_timed() {
	out=$1
	shift
	status=0
	timeout 60 "$report" "$@" >"$out" 2>"$out.err" || status=$?
	[ "$status" -eq 0 ] && ! sanitizer_report "$out.err" ||
		{ tail -n 20 "$out.err" >&2; fail "perfrec-report $*: status $status"; }
}

check "a workload from a tmpfs of its own mount namespace: kept in DIR/.build-id/$xx/$rest, the least recently seen entry making room"
mkdir -m 0700 "$work/out1" "$work/out1/.build-id" "$work/out1/.build-id/00"
old_entry=$work/out1/.build-id/00/0102030405060708090a0b0c0d0e0f10111213
head -c 20000 /dev/zero >"$old_entry"
touch -d '2020-01-01 00:00:00' "$old_entry"
# Room for the workload, not for both.
run_hidden "$work/out1" --binary-cache $(( $(stat -c %s "$workload") + 10000 ))
[ -e "$old_entry" ] && fail "the old entry was not removed to make room"
note "the workload measured: $(tr '\n' ' ' <"$work/command.out")"
kept=$work/out1/.build-id/$xx/$rest
[ -f "$kept" ] && [ ! -L "$kept" ] || { cat "$work/daemon.err" >&2; fail "no regular file $kept"; }
cmp -s "$kept" "$workload" || fail "$kept is not the workload's bytes"
[ "$(elf_build_id "$kept")" = "$id" ] || fail "$kept has build-id $(elf_build_id "$kept"), not $id"

check "after the process and its tmpfs are gone, perfrec-report DIR names its functions from the cache"
report_timed "$work/flat1" "$work/out1"
burns=0
for function in burn_hot burn_warm burn_cold; do
	got=$(flat_percent "$work/flat1" "$function" nsload)
	burns=$(awk -v a="$burns" -v b="$got" 'BEGIN { print a + b }')
done
within "$burns" 0 5 && { head -n 20 "$work/flat1" >&2; fail "burn_* are not named: $burns % in nsload"; }
for function in burn_hot burn_warm burn_cold; do
	measured=$(sed -n "s/^$function=//p" "$work/command.out")
	[ -n "$measured" ] || fail "the workload printed no share for $function"
	expected=$(awk -v v="$measured" 'BEGIN { printf "%.2f\n", v * 100 }')
	got=$(awk -v v="$(flat_percent "$work/flat1" "$function" nsload)" -v s="$burns" 'BEGIN { printf "%.2f\n", v * 100 / s }')
	note "$function: measured $expected %, report $got % of the three"
	within "$got" "$expected" 5 || fail "$function: the report says $got %, the workload measured $expected %"
done
check "... and so does perfrec-report FILE, and perfrec-archive DIR stores the binary"
report_timed "$work/flat1-file" "$(files_in "$work/out1" | head -n 1)"
[ "$(flat_percent "$work/flat1-file" burn_hot nsload)" = "$(flat_percent "$work/flat1" burn_hot nsload)" ] ||
	fail "perfrec-report FILE does not name burn_hot as perfrec-report DIR does"
timeout 60 "$archive" -o "$work/bundle.tar" "$work/out1" 2>"$work/archive.err" ||
	{ cat "$work/archive.err" >&2; fail "perfrec-archive failed"; }
tar tf "$work/bundle.tar" | grep -qx "\.build-id/$xx/$rest" ||
	fail "the bundle has no .build-id/$xx/$rest: $(tar tf "$work/bundle.tar" | tr '\n' ' ')"

check "the vDSO, which has no file: its build-id in each capture file, its image in the cache and the bundle"
vdso_id=$("$top_builddir/perfrec-dump" "$(files_in "$work/out1" | head -n 1)" |
	sed -n 's/.* BUILD_ID .* build_id=\([0-9a-f]*\) path=\[vdso\]$/\1/p' | head -n 1)
[ -n "$vdso_id" ] || fail "no BUILD_ID record for [vdso] in $(files_in "$work/out1" | head -n 1)"
vdso_kept=$work/out1/.build-id/$(echo "$vdso_id" | cut -c1-2)/$(echo "$vdso_id" | cut -c3-)
[ "$(elf_build_id "$vdso_kept")" = "$vdso_id" ] ||
	fail "$vdso_kept: build-id '$(elf_build_id "$vdso_kept" 2>/dev/null)', not the recorded $vdso_id"
tar tf "$work/bundle.tar" | grep -qx "\.build-id/$(echo "$vdso_id" | cut -c1-2)/$(echo "$vdso_id" | cut -c3-)" ||
	fail "the bundle has no copy of the vDSO ($vdso_id)"
note "vDSO $vdso_id: $(stat -c %s "$vdso_kept") bytes kept"

check "--binary-cache 16K: the binary is bigger, not kept, and a line says so"
mkdir -m 0700 "$work/out2"
run_hidden "$work/out2" --binary-cache 16K
[ -e "$work/out2/.build-id/$xx/$rest" ] && fail "kept over the cap"
grep -F "not keeping $work/ns/nsload" "$work/daemon.err" | grep -q "over the cap" ||
	{ cat "$work/daemon.err" >&2; fail "no line says the binary is over the cap"; }
note "$(grep -F "not keeping" "$work/daemon.err")"
report_timed "$work/flat2" "$work/out2"
[ "$(flat_percent "$work/flat2" burn_hot nsload)" = 0.00 ] || fail "burn_hot named without the binary"

check "DIR/.build-id/$xx planted as a symbolic link: nothing written through it"
mkdir -m 0700 "$work/out3" "$work/out3/.build-id" "$work/elsewhere"
ln -s "$work/elsewhere" "$work/out3/.build-id/$xx"
run_hidden "$work/out3"
[ -z "$(ls -A "$work/elsewhere")" ] || fail "written through the link: $(ls -A "$work/elsewhere")"
grep -F "cannot keep $work/ns/nsload" "$work/daemon.err" >/dev/null ||
	{ cat "$work/daemon.err" >&2; fail "no line says the binary could not be kept"; }
note "$(grep -F "cannot keep" "$work/daemon.err")"

check "DIR/.build-id/$xx/$rest planted as a FIFO: replaced by the binary"
mkdir -m 0700 "$work/out4" "$work/out4/.build-id" "$work/out4/.build-id/$xx"
mkfifo "$work/out4/.build-id/$xx/$rest"
run_hidden "$work/out4"
[ -f "$work/out4/.build-id/$xx/$rest" ] || fail "the FIFO is still there"
cmp -s "$work/out4/.build-id/$xx/$rest" "$workload" || fail "the kept file is not the workload's bytes"
check "a binary deleted while it runs, before perfrecd starts (-p PID): kept, and named after it is gone"
cp "$workload" "$work/delload"
"$work/delload" --seconds 4 --print-shares >"$work/delload.out" &
workload_pid=$!
wait_for '[ "$(readlink /proc/$workload_pid/exe 2>/dev/null)" = "$work/delload" ]' 10 ||
	fail "the copy did not start"
rm "$work/delload"
mkdir -m 0700 "$work/out5"
status=0
timeout 60 "$perfrecd" -d 2 -F 999 -o "$work/out5" -p "$workload_pid" 2>"$work/daemon.err" || status=$?
[ "$status" -eq 0 ] || { cat "$work/daemon.err" >&2; fail "perfrecd -p $workload_pid: status $status"; }
wait "$workload_pid" || fail "the deleted copy exited with status $?"
workload_pid=
cmp -s "$work/out5/.build-id/$xx/$rest" "$workload" || fail "the deleted binary is not kept"
report_timed "$work/flat5" "$work/out5"
# Its DSO is "delload (deleted)": flat_rows would split it.
hot=$(awk '$4 == "burn_hot" { sub(/%$/, "", $1); print $1; exit }' "$work/flat5")
hot=${hot:-0}
note "burn_hot of the deleted binary: $hot %"
within "$hot" 0 20 && { head -n 20 "$work/flat5" >&2; fail "burn_hot of the deleted binary at $hot % (~60 expected)"; }
note "PASS"
