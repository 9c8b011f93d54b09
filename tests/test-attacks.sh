#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd runs as root and perfrec-report reads what other hosts wrote:
# attacks tried for real, each of which worked before it was closed.
#  - Any user maps a file, exits, and leaves a FIFO at its path: perfrecd
#    (reading build-ids) and perfrec-archive (collecting files) used to
#    block in open() for good.  Now both finish on time with sound output.
#  - An output directory another user owns, or anyone may write, was used
#    as it was; files were 0640, so a setgid directory lent its group the
#    whole machine's samples.  Now such a directory is refused (status 2,
#    naming the owner or mode), and files are 0600 unless --group names a
#    group.  A link planted at the next file name is never followed.
#  - Two daemons on one directory deleted each other's files; now the
#    second is refused, naming the first's pid.
#  - perfrec-report --symbols left its extracted bundle behind when a
#    signal ended it (| head: SIGPIPE; SIGKILL), and extracted whatever
#    size a bundle claimed.  Now the directory goes whatever ends the
#    report, and a bundle is refused past 65536 members or 32 GiB.
# The attacker is the user nobody (setpriv), where the attack needs one.
test_name=test-attacks
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

report=$top_builddir/perfrec-report
archive=$top_builddir/perfrec-archive
needs_built "$report" "$archive"
needs_nobody
chmod 755 "$work"

# ---- output directories ----------------------------------------------------

# refused DIR PATTERN: perfrecd -o DIR exits 2 at once with one line
# matching PATTERN, before it opens an event, and writes nothing there.
refused() {
	before=$(files_in "$1")
	status=0
	timeout 20 "$perfrecd" --config /dev/null -e cpu-clock -d 1 -o "$1" >/dev/null 2>"$work/refused.err" || status=$?
	[ "$status" -eq 2 ] || fail "-o $1: status $status, not 2: $(cat "$work/refused.err")"
	[ "$(wc -l <"$work/refused.err")" -eq 1 ] && grep -qE "$2" "$work/refused.err" ||
		fail "-o $1: not one line matching '$2': $(cat "$work/refused.err")"
	note "  $(cat "$work/refused.err")"
	[ "$(files_in "$1")" = "$before" ] || fail "-o $1: files were written there"
}

check "an output directory owned by another user, or writable by others: refused, naming owner or mode"
mkdir "$work/foreign" "$work/everyone" "$work/setgid"
chown nobody "$work/foreign"
chmod 777 "$work/everyone"
chown nobody:"$nobody_group" "$work/setgid"
chmod 2770 "$work/setgid"
refused "$work/foreign" "belongs to nobody \(uid [0-9]+\), not to root \(uid 0\): refusing"
refused "$work/everyone" "has mode 0777: writable by everyone"
refused "$work/setgid" "belongs to nobody"
chmod 775 "$work/everyone"
refused "$work/everyone" "has mode 0775: writable by its group"

check "files are 0600, or 0640 and the group's with --group; an unknown group is refused"
start_workload --seconds 20 --threads 1
"$perfrecd" --config /dev/null -d 1 -o "$work/private" 2>"$work/daemon.err" || fail "perfrecd -o private: status $?"
"$perfrecd" --config /dev/null -d 1 -o "$work/shared" --group "$nobody_group" 2>"$work/daemon.err" ||
	fail "perfrecd --group $nobody_group: status $?"
chmod 755 "$work/private"	# the files' own modes must keep nobody out
for file in $(files_in "$work/private"); do
	[ "$(stat -c %a:%U "$file")" = 600:root ] || fail "$file: $(stat -c %a:%U:%G "$file"), not 600:root"
done
for file in $(files_in "$work/shared"); do
	[ "$(stat -c %a:%G "$file")" = "640:$nobody_group" ] ||
		fail "$file: $(stat -c %a:%G "$file"), not 640:$nobody_group"
done
as_nobody cat "$(files_in "$work/private" | head -n 1)" >/dev/null 2>&1 &&
	fail "nobody read a 0600 capture"
status=0
"$perfrecd" --config /dev/null -d 1 -o "$work/nogroup" --group no-such-group-here 2>"$work/group.err" || status=$?
[ "$status" -eq 2 ] && grep -q 'group no-such-group-here' "$work/group.err" ||
	fail "--group no-such-group-here: status $status: $(cat "$work/group.err")"

check "a link planted at the next file names is not followed"
mkdir -m 750 "$work/planted"
echo precious >"$work/victim"
host=$(uname -n | tr '/ -' '___')
now=$(date -u +%s)
for second in 0 1 2 3; do
	stamp=$(date -u -d "@$((now + second))" +%Y%m%dT%H%M%SZ)
	for sequence in 0000 0001; do
		ln -s "$work/victim" "$work/planted/perfrec-$host-$stamp-$sequence.prf"
	done
done
"$perfrecd" --config /dev/null -d 1 -o "$work/planted" 2>"$work/daemon.err" || fail "perfrecd with planted links: status $?"
[ "$(cat "$work/victim")" = precious ] || fail "the victim of a planted link was written"
files=$(find "$work/planted" -name '*.prf' -type f | wc -l)
[ "$files" -ge 1 ] || fail "no capture file beside the planted links"
note "  $files capture file(s) made beside $(find "$work/planted" -type l | wc -l) links"

check "a second perfrecd on one directory: refused, naming the first's pid"
start_daemon "$work/busy" --config /dev/null -d 20
refused "$work/busy" "in use by another perfrecd \(pid $daemon_pid\)"
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "the first perfrecd: status $daemon_status"
"$perfrecd" --config /dev/null -d 1 -o "$work/busy" 2>"$work/daemon.err" ||
	fail "after the first stopped, a new perfrecd was refused: $(cat "$work/daemon.err")"

# ---- FIFOs where mapped files were -------------------------------------

check "200 files mapped by nobody's processes, each then replaced by a FIFO: perfrecd and perfrec-archive finish"
mkdir "$work/nobody"
chown nobody "$work/nobody"
cat >"$work/fifo-swap.py" <<'EOF'
import mmap, os, sys
base = sys.argv[1]
image = open("/bin/true", "rb").read()
for i in range(200):
    path = "%s/lib%d.so" % (base, i)
    with open(path, "wb") as f:
        f.write(image)
    child = os.fork()
    if child == 0:
        fd = os.open(path, os.O_RDONLY)
        m = mmap.mmap(fd, 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC)
        os._exit(0)
    os.waitpid(child, 0)
    # The process and its map_files are gone: only the path is left.
    os.unlink(path)
    os.mkfifo(path)
EOF
start_daemon "$work/fifo-out" --config /dev/null -d 8
as_nobody "$python" "$work/fifo-swap.py" "$work/nobody" || fail "the FIFO helper failed"
note "  $(find "$work/nobody" -type p | wc -l) FIFOs left where mapped files were"
started=$(date +%s)
for i in $(seq 1 60); do
	kill -0 "$daemon_pid" 2>/dev/null || break
	sleep 0.5
done
if kill -0 "$daemon_pid" 2>/dev/null; then
	note "  perfrecd is still running 30 s after its 8 s: $(cat "/proc/$daemon_pid/wchan" 2>/dev/null)"
	fail "perfrecd hangs (a FIFO blocked it)"
fi
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd: status $daemon_status"
note "  perfrecd ended $(( $(date +%s) - started )) s after the helper"
for file in $(files_in "$work/fifo-out"); do
	"$dump" --summary "$file" >/dev/null 2>"$work/dump.err" || fail "$file: perfrec-dump: $(cat "$work/dump.err")"
done
maps=$(for file in $(files_in "$work/fifo-out"); do "$dump" "$file" 2>/dev/null; done |
	grep -c "MMAP2 .*$work/nobody/lib" || true)
note "  $maps maps of the helper's files in the capture"
[ "$maps" -ge 1 ] || fail "no map of the helper's files reached the capture: the attack was not tried"
status=0
timeout 60 "$archive" -o "$work/fifo.tar" "$work/fifo-out" >/dev/null 2>"$work/archive.err" || status=$?
[ "$status" -ne 124 ] || fail "perfrec-archive hangs on the FIFOs"
[ "$status" -eq 0 ] || fail "perfrec-archive: status $status: $(tail -n 3 "$work/archive.err")"

# ---- bundles ---------------------------------------------------------------

capture=$work/private
# Odd bundles, written with Python's tarfile: "-" writes to stdout.
cat >"$work/tar.py" <<'EOF'
import sys, tarfile, io
out, kind = sys.argv[1], sys.argv[2]
with (open(out, "wb") if out != "-" else sys.stdout.buffer) as f:
    if kind == "huge":
        # A member that claims 4 GiB and one byte: refused before any byte.
        info = tarfile.TarInfo(".build-id/ab/" + "cd" * 19)
        info.size = (4 << 30) + 1
        f.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        f.write(b"\0" * 1024)
    elif kind == "many":
        for i in range(65537):
            info = tarfile.TarInfo(".build-id/%02x/%038x" % (i % 256, i))
            f.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        f.write(b"\0" * 1024)
    elif kind == "slow":
        # One member of 1 GiB of zeros (compressed by the caller): time to kill.
        info = tarfile.TarInfo(".build-id/ab/" + "ef" * 19)
        info.size = 1 << 30
        f.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        block = b"\0" * (1 << 20)
        for _ in range(1024):
            f.write(block)
        f.write(b"\0" * 1024)
EOF
mkdir "$work/tmp"
export TMPDIR="$work/tmp"
leftover() { find "$work/tmp" -mindepth 1 -maxdepth 1 -name 'perfrec-symbols.*'; }

check "a bundle member that claims over 4 GiB, and a bundle of 65537 members: refused at once, nothing left"
"$python" "$work/tar.py" "$work/huge.tar" huge
"$python" "$work/tar.py" "$work/many.tar" many
zstd -q -f "$work/many.tar" -o "$work/many.tar.zst"
for bundle in huge.tar many.tar.zst; do
	status=0
	timeout 60 "$report" --symbols "$work/$bundle" "$capture" >/dev/null 2>"$work/bundle.err" || status=$?
	[ "$status" -eq 1 ] || fail "--symbols $bundle: status $status: $(cat "$work/bundle.err")"
	note "  $(cat "$work/bundle.err")"
done
grep -q 'more than 65536 members' "$work/bundle.err" || fail "the 65537 members are not named as the cause"
wait_for '[ -z "$(leftover)" ]' 5 || fail "extraction left $(leftover)"

check "--symbols with | head (SIGPIPE) and with SIGKILL: the extracted bundle goes all the same"
"$archive" -o "$work/real.tar" "$capture" >/dev/null 2>&1 || fail "perfrec-archive of $capture failed"
"$report" --view=samples --symbols "$work/real.tar" "$capture" | head -n 1 >/dev/null
wait_for '[ -z "$(leftover)" ]' 5 || fail "after SIGPIPE: $(leftover) left behind"
"$python" "$work/tar.py" - slow | zstd -q -f -o "$work/slow.tar.zst"
"$report" --symbols "$work/slow.tar.zst" "$capture" >/dev/null 2>&1 &
report_pid=$!
wait_for '[ -n "$(find "$work/tmp" -name "$(printf "ef%.0s" $(seq 19))" 2>/dev/null)" ]' 30 ||
	fail "the slow bundle was not being extracted"
kill -KILL "$report_pid"
wait "$report_pid" 2>/dev/null || true
wait_for '[ -z "$(leftover)" ]' 10 || fail "after SIGKILL: $(leftover) left behind ($(du -sh "$work/tmp" | cut -f1))"
note "PASS"
