#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-archive: what a bundle holds, and perfrec-report --symbols
# refusing hostile ones.
#
# A workload built here (archive-workload + libarchive-lib.so, both hot,
# + libarchive-idle.so, mapped but never called) is captured.  Its bundle
# (.tar) holds the workload and the hot library under .build-id/xx/rest,
# named after their build-ids (eu-readelf -n), each member once and each
# member's content with the build-id its name says; the idle library is
# absent unless a sample has a frame in it (its init or exit code, now and
# then); any other member is a DSO the report shows samples in.  The
# .tar.zst decompresses with zstd -d into the same member list.  A library
# rebuilt after the capture is left out, with one line naming it and both
# build-ids.  --debug-only (with a --debug-dir made by objcopy
# --only-keep-debug) holds only .debug members.  An unwritable bundle path
# and a full file system give one-line errors, exit 1 and no bundle.
# Hostile tars given to perfrec-report --symbols (a symlink, "..", an
# absolute name, a bad checksum, a size running past the end, a cut tar,
# a corrupt zstd frame, a member twice) each give a one-line error, exit
# 1, no sanitizer report, and no extraction directory left behind.
# A containerised process (a mount namespace where the binary's path holds
# another file) is archived from /proc/PID/root.
test_name=test-archive
. "${top_srcdir:-$(dirname "$0")/..}/tests/archive-lib.sh"

bin=$work/bin
build_workload "$bin"
main_name=$(build_id_name "$bin/archive-workload")
lib_name=$(build_id_name "$bin/libarchive-lib.so")
idle_name=$(build_id_name "$bin/libarchive-idle.so")

check "perfrecd captures the workload (1.5 s)"
# shellcheck disable=SC2086
capture "$work/out" $favour "$bin/archive-workload" 1.5
report_ok "$work/flat" "$work/out"
for f in main_spin:archive-workload lib_spin:libarchive-lib.so; do
	got=$(flat_percent "$work/flat" "${f%:*}" "${f#*:}")
	note "${f%:*}: $got %"
	# lib_spin's share moves between 4 and 10 % from run to run.
	awk -v got="$got" 'BEGIN { exit !(got >= 2) }' || fail "${f%:*} has $got % of the samples"
done

check "the .tar holds the workload and the hot library by build-id, each once, not the idle library"
"$archive" -v "$work/out" -o "$work/b.tar" >"$work/archive.out" 2>"$work/archive.err" ||
	{ cat "$work/archive.err" >&2; fail "perfrec-archive exited $?"; }
sanitizer_report "$work/archive.err" && fail "sanitizer report from perfrec-archive"
cat "$work/archive.out"
members "$work/b.tar" >"$work/members"
[ "$(sort -u "$work/members" | wc -l)" -eq "$(wc -l <"$work/members")" ] ||
	fail "a member is in the tar twice: $(uniq -d "$work/members")"
grep -qxF "$main_name" "$work/members" || fail "no $main_name (the workload) in the bundle"
grep -qxF "$lib_name" "$work/members" || fail "no $lib_name (libarchive-lib.so) in the bundle"
# Now and then a sample lands in the idle library's init or exit code
# (or has it in its callchain): then it belongs in the bundle.
report_ok "$work/samples" --view=samples "$work/out"
if grep -qF '(libarchive-idle.so+' "$work/samples"; then
	note "a sample has a frame in libarchive-idle.so this time: it must be in the bundle"
	grep -qxF "$idle_name" "$work/members" || fail "no $idle_name (libarchive-idle.so, with samples) in the bundle"
else
	grep -qxF "$idle_name" "$work/members" && fail "$idle_name (libarchive-idle.so, no samples) is in the bundle"
fi
grep -v '^\.build-id/[0-9a-f][0-9a-f]/[0-9a-f]*\(\.debug\)\{0,1\}$' "$work/members" &&
	fail "members not named .build-id/xx/rest[.debug]"
mkdir -p "$work/x" && tar -C "$work/x" -xf "$work/b.tar" || fail "tar -x failed"
while read -r name; do
	want=$(echo "$name" | sed 's|^\.build-id/\(..\)/\([0-9a-f]*\).*|\1\2|')
	got=$(elf_build_id "$work/x/$name")
	[ "$got" = "$want" ] || fail "$name holds a file with build-id '$got'"
done <"$work/members"
cmp -s "$work/x/$main_name" "$bin/archive-workload" || fail "$main_name is not the workload"
# Any other member comes from a DSO a sample frame is in (the samples view).
report_ok "$work/samples" --view=samples "$work/out"
sed -n 's/.*(\(.*\)+0x[0-9a-f]*)$/\1/p' "$work/samples" | sort -u >"$work/dsos"
awk '$1 ~ /^\.build-id\// && $1 !~ /\.debug$/ { print $3 }' "$work/archive.out" | while read -r source; do
	grep -qxF "$(basename "$source")" "$work/dsos" || fail "$source is in the bundle, but no sample is in it"
done
grep -q "^$work/b.tar: [0-9]* bytes (tar): [0-9]* binar" "$work/archive.out" || fail "no summary line"

check "the .tar.zst decompresses (zstd -d) into the same members"
"$archive" -q "$work/out" -o "$work/b.tar.zst" >/dev/null || fail "perfrec-archive -o .tar.zst failed"
if command -v zstd >/dev/null 2>&1; then
	zstd -q -d -c "$work/b.tar.zst" >"$work/unz.tar" || fail "zstd -d failed on the bundle"
	members "$work/unz.tar" | cmp -s - "$work/members" || fail "the .tar.zst's members differ from the .tar's"
	note "sizes: .tar $(wc -c <"$work/b.tar"), .tar.zst $(wc -c <"$work/b.tar.zst") bytes"
else
	note "no zstd(1): not decompressed"
fi

check "a library rebuilt after the capture is left out, named with both build-ids"
cp -p "$bin/libarchive-lib.so" "$work/lib.saved"
"$cc" -g -O1 -fPIC -shared -DREBUILD -Wl,--build-id=sha1 -o "$bin/libarchive-lib.so" \
	"$top_srcdir/tests/archive-lib.c" || fail "cannot rebuild the library"
new_id=$(elf_build_id "$bin/libarchive-lib.so")
old_id=$(echo "$lib_name" | sed 's|^\.build-id/\(..\)/|\1|')
[ "$new_id" != "$old_id" ] || fail "the rebuilt library has the same build-id"
"$archive" "$work/out" -o "$work/rebuilt.tar" >"$work/rebuilt.out" 2>"$work/rebuilt.err" ||
	fail "perfrec-archive failed with a rebuilt library"
members "$work/rebuilt.tar" | grep -qxF "$lib_name" && fail "the rebuilt library's old name is in the bundle"
members "$work/rebuilt.tar" | grep -q "/$(echo "$new_id" | cut -c3-)" && fail "the rebuilt library is in the bundle"
members "$work/rebuilt.tar" | grep -qxF "$main_name" || fail "the workload is missing from the bundle"
grep -F "$bin/libarchive-lib.so" "$work/rebuilt.err" >"$work/rebuilt.lines" || true
[ "$(wc -l <"$work/rebuilt.lines")" -eq 1 ] || { cat "$work/rebuilt.err" >&2; fail "not one line names the rebuilt library"; }
grep -qF "$old_id" "$work/rebuilt.lines" && grep -qF "$new_id" "$work/rebuilt.lines" ||
	fail "the line does not give both build-ids: $(cat "$work/rebuilt.lines")"
note "$(cat "$work/rebuilt.lines")"
mv "$work/lib.saved" "$bin/libarchive-lib.so"

check "--debug-only holds only .debug members, one per binary with a debug file"
for f in archive-workload libarchive-lib.so; do
	name=$(build_id_name "$bin/$f" .debug)
	mkdir -p "$work/debug/$(dirname "$name")"
	objcopy --only-keep-debug "$bin/$f" "$work/debug/$name" || fail "objcopy --only-keep-debug $f"
done
"$archive" -q --debug-only --debug-dir "$work/debug" "$work/out" -o "$work/d.tar" >/dev/null \
	2>"$work/d.err" || fail "perfrec-archive --debug-only failed"
[ -s "$work/d.err" ] && fail "perfrec-archive -q --debug-only says something: $(cat "$work/d.err")"
members "$work/d.tar" >"$work/d.members"
grep -v '\.debug$' "$work/d.members" && fail "--debug-only stored binaries"
grep -qxF "$main_name.debug" "$work/d.members" && grep -qxF "$lib_name.debug" "$work/d.members" ||
	fail "--debug-only lacks the workload's or the library's debug file: $(tr '\n' ' ' <"$work/d.members")"
note "sizes: --debug-only .tar $(wc -c <"$work/d.tar") bytes"

check "--debug-only on a --call-graph dwarf capture: a warning that its user stacks cannot be unwound"
"$perfrecd" -d 120 -F 999 --call-graph dwarf -o "$work/dwarf" -- "$bin/archive-workload" 0.3 \
	>/dev/null 2>"$work/dwarf.daemon.err" || fail "perfrecd --call-graph dwarf: status $?"
"$archive" -q --debug-only --debug-dir "$work/debug" "$work/dwarf" -o "$work/dwarf.tar" >/dev/null \
	2>"$work/dwarf.err" || fail "perfrec-archive --debug-only failed on the dwarf capture"
grep -q "warning: .*--call-graph dwarf.*eh_frame" "$work/dwarf.err" ||
	fail "no warning about unwinding from debug files: $(cat "$work/dwarf.err")"
note "$(cat "$work/dwarf.err")"

check "unwritable bundle paths: one line, exit 1, no bundle"
status=0
"$archive" -q "$work/out" -o "$work/no/such/dir/b.tar" >/dev/null 2>"$work/nodir.err" || status=$?
[ "$status" -eq 1 ] || fail "exit $status for a bundle in a missing directory"
[ "$(wc -l <"$work/nodir.err")" -eq 1 ] && grep -qF "$work/no/such/dir/b.tar" "$work/nodir.err" ||
	fail "not one line naming the bundle: $(cat "$work/nodir.err")"
note "$(cat "$work/nodir.err")"
if [ "$(id -u)" -eq 0 ] && mkdir -p "$work/full" && mount -t tmpfs -o size=8k tmpfs "$work/full" 2>/dev/null; then
	status=0
	"$archive" -q "$work/out" -o "$work/full/b.tar" >/dev/null 2>"$work/full.err" || status=$?
	ls -A "$work/full" >"$work/full.ls"
	umount "$work/full"
	[ "$status" -eq 1 ] || fail "exit $status on a full file system"
	[ "$(wc -l <"$work/full.err")" -eq 1 ] && grep -q "No space left" "$work/full.err" ||
		fail "not one line on a full disk: $(cat "$work/full.err")"
	[ -s "$work/full.ls" ] && fail "files left on the full file system: $(cat "$work/full.ls")"
	note "$(cat "$work/full.err")"
else
	note "no tmpfs mount (not root?): full disk not tried"
fi

check "hostile bundles given to --symbols: one line, exit 1, nothing left in TMPDIR"
mkdir -p "$work/tmp" "$work/h"
TMPDIR=$work/tmp
export TMPDIR
python3 -c 1 2>/dev/null || skip "no python3 to make hostile tars (the rest passed)"
python3 - "$work/h" "$work/x/$main_name" <<'PY' || fail "cannot make the hostile tars"
import io, sys, tarfile
out, elf = sys.argv[1], sys.argv[2]
data = open(elf, 'rb').read()
def make(name, members, fmt=tarfile.USTAR_FORMAT):
    with tarfile.open(out + '/' + name, 'w', format=fmt) as t:
        for info, payload in members:
            t.addfile(info, io.BytesIO(payload) if payload is not None else None)
def reg(n, d=data):
    i = tarfile.TarInfo(n); i.size = len(d); return (i, d)
sym = tarfile.TarInfo('.build-id/ab/cdef'); sym.type = tarfile.SYMTYPE; sym.linkname = '/etc/passwd'
make('symlink.tar', [(sym, None)])
make('dotdot.tar', [reg('.build-id/ab/../../evil')])
make('absolute.tar', [reg('/tmp/evil')])
make('outside.tar', [reg('evil/file')])
make('twice.tar', [reg('.build-id/ab/cdef'), reg('.build-id/ab/cdef')])
make('good.tar', [reg('.build-id/ab/cdef')])
raw = open(out + '/good.tar', 'rb').read()
bad = bytearray(raw); bad[0] ^= 0x20
open(out + '/checksum.tar', 'wb').write(bad)
open(out + '/cut.tar', 'wb').write(raw[:512 + 1000])
# The size field says more than the archive has.
lie = bytearray(raw); lie[124:136] = b'77777777777\0'
s = sum(lie[:148]) + 8 * 32 + sum(lie[156:512])
lie[148:156] = b'%06o\0 ' % s
open(out + '/size.tar', 'wb').write(lie)
open(out + '/empty.tar', 'wb').write(b'')
open(out + '/zstd.tar.zst', 'wb').write(bytes([0x28, 0xb5, 0x2f, 0xfd]) + b'\xff' * 64)
PY
for f in symlink dotdot absolute outside twice checksum cut size empty zstd; do
	file=$(ls "$work/h/$f".tar*)
	status=0
	"$report" --symbols "$file" "$work/out" >/dev/null 2>"$work/h/$f.err" || status=$?
	sanitizer_report "$work/h/$f.err" && { cat "$work/h/$f.err" >&2; fail "$f: sanitizer report"; }
	[ "$status" -eq 1 ] || fail "$f: exit $status, expected 1"
	[ "$(wc -l <"$work/h/$f.err")" -eq 1 ] && grep -q "^perfrec-report: --symbols $file: " "$work/h/$f.err" ||
		fail "$f: not one line naming the bundle: $(cat "$work/h/$f.err")"
	note "$f: $(cat "$work/h/$f.err")"
	[ -z "$(ls -A "$work/tmp")" ] || fail "$f: left in TMPDIR: $(ls -A "$work/tmp")"
done
[ -e /tmp/evil ] && [ /tmp/evil -nt "$work/h/good.tar" ] && fail "/tmp/evil was written"
check "... and the good one is used, and removed at exit"
report_ok "$work/good" --symbols "$work/h/good.tar" "$work/out"
[ -z "$(ls -A "$work/tmp")" ] || fail "left in TMPDIR: $(ls -A "$work/tmp")"
unset TMPDIR

check "a containerised process: its binary is read through /proc/PID/root"
# The legs above passed; this one cannot run without these: SKIP, not PASS.
command -v unshare >/dev/null 2>&1 || skip "no unshare(1): the containerised process is not checked"
# The process sees the workload at $bin/archive-workload; the host has
# another file there by the time perfrec-archive runs, while it runs.
mkdir -p "$work/inner"
cp -p "$bin/archive-workload" "$bin/libarchive-lib.so" "$bin/libarchive-idle.so" "$work/inner/"
"$cc" -g -O0 -Wl,--build-id=sha1 -Wl,--no-as-needed -DREBUILD -o "$work/other" \
	"$top_srcdir/tests/archive-workload.c" -L"$bin" -larchive-lib -larchive-idle -Wl,-rpath,"$bin" ||
	fail "cannot build another workload"
unshare -m sh -c "mount --bind '$work/inner' '$bin' && true" 2>/dev/null ||
	skip "unshare -m with a bind mount is not possible here: the containerised process is not checked"
inner_name=$(build_id_name "$work/inner/archive-workload")
"$perfrecd" -d 120 -F 999 --flush-interval 200ms -o "$work/cout" -- \
	unshare -m sh -c "mount --bind '$work/inner' '$bin' && exec '$bin/archive-workload' 4" \
	>/dev/null 2>"$work/cdaemon.err" &
daemon_pid=$!
sleep 1.5
# On the host, the path now holds another build.
cp "$bin/archive-workload" "$work/host-copy"
cp "$work/other" "$bin/archive-workload.new" && mv "$bin/archive-workload.new" "$bin/archive-workload"
sleep 1
"$archive" -v "$work/cout" -o "$work/c.tar" >"$work/c.out" 2>"$work/c.err" || {
	cat "$work/c.err" >&2; fail "perfrec-archive on the running container failed"; }
wait "$daemon_pid" || true
mv "$work/host-copy" "$bin/archive-workload"
members "$work/c.tar" | grep -qxF "$inner_name" || { cat "$work/c.out" "$work/c.err" >&2; fail "the container's workload is not in the bundle"; }
grep -q "/proc/[0-9]*/root$bin/archive-workload" "$work/c.out" || fail "not read through /proc/PID/root: $(cat "$work/c.out")"
note "$(grep archive-workload "$work/c.out")"
note "PASS"
