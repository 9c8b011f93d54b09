#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-dump end to end: dump the file tests/make-fixture writes, whole,
# cut short, with a damaged chunk and unfinished, and check the exact fields
# and exit statuses.  The fixture's values are in tests/make-fixture.c.
set -eu

top_builddir=${top_builddir:-.}
dump=$top_builddir/perfrec-dump
make_fixture=$top_builddir/tests/make-fixture
for program in "$dump" "$make_fixture"; do
	[ -x "$program" ] || { echo "test-dump: $program not built" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/test-dump.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out
err=$work/err
status=0

fail() {
	echo "FAIL: $*" >&2
	echo "--- stdout:" >&2
	head -n 60 "$out" >&2 || true
	echo "--- stderr:" >&2
	cat "$err" >&2 || true
	exit 1
}

check() {
	echo "check: $*"
}

# Runs perfrec-dump; its output goes to $out and $err, its status to $status.
run_dump() {
	status=0
	"$dump" "$@" >"$out" 2>"$err" || status=$?
}

expect_status() {
	[ "$status" -eq "$1" ] || fail "exit status $status, expected $1"
}

# A whole line of $out (or of the file given second) exactly.
expect_line() {
	grep -qxF -- "$1" "${2:-$out}" || fail "no line '$1' in ${2:-stdout}"
}

expect_text() {
	grep -qF -- "$1" "${2:-$out}" || fail "no '$1' in ${2:-stdout}"
}

refuse_text() {
	! grep -qF -- "$1" "${2:-$out}" || fail "unexpected '$1' in ${2:-stdout}"
}

expect_count() {
	count=$(grep -cE -- "$2" "${3:-$out}" || true)
	[ "$count" -eq "$1" ] || fail "$count lines match '$2', expected $1"
}

expect_no_stderr() {
	[ ! -s "$err" ] || fail "unexpected stderr"
}

# Field $2 (key=value) of the CHUNK line of sequence $1 in $3.
chunk_field() {
	sed -n "s/^CHUNK sequence=$1 .*\\<$2=\\([0-9]*\\).*/\\1/p" "$3"
}

flip_byte() {
	byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "\\$(printf %03o $((byte ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

fixture=$work/fixture.prf
sample0='chunk=2 offset=0 SAMPLE time=5000.010000000 cpu=0 pid=4242 tid=4242 ip=0x555555555100 mode=user period=10309278 callchain=[user,0x555555555100,0x555555556789,0x7f0000001234]'
build_id=b1d0c0ffee00112233445566778899aabbccddee

check "make-fixture writes a finished file"
"$make_fixture" "$fixture" || fail "make-fixture failed"

check "a sound file dumps whole with exit 0 and nothing on stderr"
run_dump "$fixture"
expect_status 0
expect_no_stderr
cp "$out" "$work/full.out"

check "the header: host facts, clock, metadata"
expect_line "FILE name=$fixture size=$(wc -c <"$fixture" | tr -d ' ')"
expect_line 'HEADER version=1.4 hostname=fixture-host machine=x86_64 kernel_release=6.1.0-fixture kernel_version="#1 SMP PREEMPT_DYNAMIC fixture" boot_id=00000000-1111-2222-3333-444444444444 cpus_online=4 cpus_configured=4 page_size=4096'
expect_text 'CLOCK clock=CLOCK_MONOTONIC start_time=5000.000000000 '
expect_text ' start_utc=2023-11-14T22:13:20.000000000Z'
expect_line 'META key=collector value=make-fixture'
expect_line 'META key=frequency value=97'

check "the event: name, type, config, sample_type by flag names, frequency, ids"
expect_text 'EVENT index=0 name=cpu-clock type=software config=cpu-clock '
expect_text ' sample_type=IP|TID|TIME|CALLCHAIN|CPU|PERIOD|IDENTIFIER freq=97 '
expect_text '|sample_id_all|'
expect_text ' ids=[101,102,103,104]'

check "the chunk table: 6 chunks, zstd, record counts, times, samples apart"
expect_count 6 '^CHUNK '
expect_text 'CHUNK sequence=0 '
expect_text ' codec=zstd '
expect_text ' records=7 first_time=5000.000000000 last_time=5000.000000000 holds=records'
expect_text ' records=4 first_time=5000.050000000 last_time=5000.080000000 holds=samples'
expect_count 2 '^CHUNK .* holds=samples$'
expect_count 0 '^chunk=[0135] .* SAMPLE '

check "records: COMM with exec, MMAP2 with its build-id, FORK, EXIT, LOST"
expect_line 'chunk=0 offset=32 COMM time=5000.000000000 cpu=0 pid=4242 tid=4242 exec=1 comm=fixture-app'
expect_line "chunk=0 offset=96 MMAP2 time=5000.000000000 cpu=0 pid=4242 tid=4242 mode=user start=0x555555554000 len=0x21000 pgoff=0x0 build_id=$build_id prot=r-x flags=0x2 filename=/usr/bin/fixture-app"
expect_line 'chunk=1 offset=0 FORK time=5000.005000000 cpu=1 pid=4243 ppid=4242 tid=4243 ptid=4242'
expect_text ' EXIT time=5000.090000000 cpu=1 pid=4243 ppid=4242 tid=4243 ptid=4242'
expect_line 'chunk=3 offset=0 LOST time=5000.080000000 cpu=2 id=103 lost=3'

check "samples: 8 of them, with ip, pid, tid, cpu, period and callchain"
expect_line "$sample0"
expect_count 8 ' SAMPLE time='
expect_text 'SAMPLE time=5000.080000000 cpu=3 pid=4242 tid=4243 ip=0x555555555170 mode=user '

check "perfrec records: BUILD_ID, KALLSYMS, KERNEL_MODULE, SNAPSHOT_*, STATS, LOST_NOTE"
expect_line "chunk=0 offset=224 BUILD_ID pid=4242 flags=0 maj=8 min=1 ino=131077 ino_generation=7 build_id=$build_id path=/usr/bin/fixture-app"
expect_line 'chunk=0 offset=328 KALLSYMS flags=0 size=104 lines=3'
expect_line 'chunk=0 offset=472 KERNEL_MODULE start=0xffffffffc0000000 len=0x4000 build_id=deadbeef name=fixture_mod'
expect_line 'chunk=0 offset=0 SNAPSHOT_BEGIN time=5000.000000000'
expect_line 'chunk=0 offset=552 SNAPSHOT_END time=5000.000000000 processes=1'
expect_line 'chunk=5 offset=0 STATS time=5000.090000000 samples=8 lost=3 lost_samples=0 throttled=0 raw_bytes=4096 stored_bytes=1024 dropped_records=0 cpu_user=0.001500000 cpu_system=0.002500000 rss_bytes=8388608'
expect_line 'chunk=5 offset=104 LOST_NOTE time=5000.090000000 reason=write_error cpu=-1 records=5 bytes=480 error=ENOSPC'

check "unknown record types print their type and size and do not stop the dump"
expect_line 'chunk=5 offset=224 type=99 size=16'
expect_line 'chunk=5 offset=240 type=65616 size=24'
expect_line 'chunk=5 offset=264 CGROUP time=5000.090000000 cpu=0 id=4711 path=/system.slice/fixture.service'
expect_line 'chunk=5 offset=344 TASK_CGROUP time=5000.090000000 pid=4242 path=/system.slice/fixture.service'
expect_line 'chunk=5 offset=408 NSPID time=5000.090000000 pid=4242 tid=4243 ns_pid=1 ns_tid=2 ns_level=1'
expect_count 25 '^chunk=[0-9]+ offset=[0-9]+ '

check "--summary: counts per type, bytes, time span, samples per CPU, verdict"
run_dump --summary "$fixture"
expect_status 0
expect_no_stderr
expect_line 'complete:         yes'
expect_line 'chunks:           6'
expect_line 'records:          25'
expect_line '  SAMPLE:         8'
expect_line '  COMM:           1'
expect_line '  MMAP2:          1'
expect_line '  BUILD_ID:       1'
expect_line '  STATS:          1'
expect_line '  type=99:        1'
expect_text 'bytes:            raw=1928 stored='
expect_line 'time span:        0.090000000 s (first=5000.000000000 last=5000.090000000)'
expect_line 'samples per cpu:  cpu0=2 cpu1=2 cpu2=2 cpu3=2'
expect_line 'integrity:        damaged_chunks=0 skipped_bytes=0 truncated_bytes=0 malformed_records=0 verdict=sound'
expect_line 'trailer:          chunks=6 records=25 dropped_records=0 dropped_bytes=0'
refuse_text 'chunk='

check "--header prints the header and events only"
run_dump --header "$fixture"
expect_status 0
expect_count 1 '^EVENT '
expect_count 0 '^(CHUNK|chunk=)'

check "--chunks prints the chunk table only"
run_dump --chunks "$fixture"
expect_status 0
cp "$out" "$work/chunks.out"
expect_count 6 '^CHUNK '
expect_count 6 '.'

check "an uncompressed fixture dumps the same records, with codec=none"
"$make_fixture" --no-compression "$work/plain.prf" || fail "make-fixture failed"
run_dump "$work/plain.prf"
expect_status 0
expect_count 6 ' codec=none '
grep '^chunk=' "$work/full.out" >"$work/full.records"
grep '^chunk=' "$out" >"$work/plain.records"
cmp -s "$work/full.records" "$work/plain.records" || fail "records differ"

check "cut in the middle of the last chunk: exit 1, earlier records kept, loss on stderr"
last_offset=$(chunk_field 5 offset "$work/chunks.out")
last_stored=$(chunk_field 5 stored "$work/chunks.out")
[ -n "$last_offset" ] && [ -n "$last_stored" ] || fail "no chunk 5 in --chunks"
cut_size=$((last_offset + 64 + last_stored / 2))
cp "$fixture" "$work/cut.prf"
truncate -s "$cut_size" "$work/cut.prf"
run_dump "$work/cut.prf"
expect_status 1
expect_line "$sample0"
expect_count 17 '^chunk=[01234] '
expect_count 0 '^chunk=5 '
expect_text "offset $last_offset: file cut short inside a chunk; discarded its $((cut_size - last_offset)) bytes" "$err"
expect_line "perfrec-dump: $work/cut.prf: incomplete: discarded $((cut_size - last_offset)) bytes of a chunk cut short at the end; no trailer: the file was not finished or was cut short" "$err"
expect_count 2 '.' "$err"

check "a flipped byte in a middle chunk: exit 1, that chunk skipped, the rest kept"
middle_offset=$(chunk_field 1 offset "$work/chunks.out")
middle_stored=$(chunk_field 1 stored "$work/chunks.out")
next_offset=$(chunk_field 2 offset "$work/chunks.out")
cp "$fixture" "$work/flip.prf"
flip_byte "$work/flip.prf" $((middle_offset + 64 + middle_stored / 2))
run_dump "$work/flip.prf"
expect_status 1
expect_count 0 '^chunk=1 '
expect_count 7 '^chunk=0 '
expect_count 4 '^chunk=2 '
expect_count 1 '^chunk=3 '
expect_count 4 '^chunk=4 '
expect_count 8 '^chunk=5 '
expect_text "offset $middle_offset: payload checksum mismatch; skipped $((next_offset - middle_offset)) bytes to the next chunk at $next_offset" "$err"
expect_line "perfrec-dump: $work/flip.prf: damaged: skipped 1 damaged chunk ($((next_offset - middle_offset)) bytes)" "$err"
run_dump --summary "$work/flip.prf"
expect_status 1
expect_text 'damaged_chunks=1 '
expect_text ' verdict=damaged'

check "an unfinished file: every record printed, exit 1, 'no trailer' on stderr"
"$make_fixture" --unfinished "$work/unfinished.prf" || fail "make-fixture failed"
run_dump "$work/unfinished.prf"
expect_status 1
expect_count 25 '^chunk='
expect_line "perfrec-dump: $work/unfinished.prf: incomplete: no trailer: the file was not finished or was cut short" "$err"

check "a file that is not a perfrec file: exit 2, one line naming it"
echo "just some text, long enough to hold a perfrec file header, or nearly" >"$work/text.prf"
run_dump "$work/text.prf"
expect_status 2
expect_count 1 '.' "$err"
expect_line "perfrec-dump: $work/text.prf: not a perfrec file (bad magic)" "$err"

check "a missing file: exit 2, one line naming it and the cause"
run_dump "$work/missing.prf"
expect_status 2
expect_count 1 '.' "$err"
expect_line "perfrec-dump: $work/missing.prf: No such file or directory" "$err"

check "the worst status of several files wins"
run_dump --chunks "$fixture" "$work/missing.prf" "$work/flip.prf"
expect_status 2

check "a bad flag: exit 2, one line and a hint, nothing on stdout"
run_dump --no-such-flag "$fixture"
expect_status 2
[ ! -s "$out" ] || fail "stdout not empty"
expect_line "perfrec-dump: unknown option '--no-such-flag'" "$err"
expect_text "perfrec-dump --help" "$err"
run_dump
expect_status 2
expect_text "no file given" "$err"

check "--help and --version"
run_dump --help
expect_status 0
expect_text 'Usage: perfrec-dump'
run_dump --version
expect_status 0
expect_count 1 '^perfrec-dump \(perfrec\) [0-9]'

check "output to a closed pipe stops quietly"
files=
i=0
while [ $i -lt 100 ]; do
	files="$files $fixture"
	i=$((i + 1))
done
# shellcheck disable=SC2086
{ "$dump" $files 2>"$err"; echo $? >"$work/pipe.status"; } | head -n 1 >/dev/null
expect_no_stderr
[ "$(cat "$work/pipe.status")" -eq 0 ] || fail "status $(cat "$work/pipe.status") after the pipe closed"

echo "PASS: test-dump"
