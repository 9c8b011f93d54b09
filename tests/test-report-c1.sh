#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# C1 controls and bytes that are not UTF-8 never reach a terminal.  A C1
# control (0x9b is CSI, as ESC [ is) takes the terminal as ESC does, raw
# (a terminal that takes 8-bit controls) or as U+009B; a lone byte >= 0x80
# may be taken as one.  report-hostile --c1 writes a capture that holds
# them, and invalid UTF-8, in a comm, a JIT symbol's name, the path of a
# DSO this host lacks (with a build-id: the reader warns about it) and the
# path of a real ELF (tests/c1-lines, copied under such a name), whose
# DWARF names its source file the same way; one callchain goes through the
# three.  Every view of perfrec-report, --view=samples --lines above all
# (it printed the DSO, function and file names raw), its warnings, and
# perfrec-archive's messages must print them as '?' (the views' one rule):
# valid UTF-8 with no C0 but tab and newline, no C1; and the names must
# still be there, made safe.
test_name=test-report-c1
needs_root=no	# it reads captures made by the tests' own programs
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

hostile=$top_builddir/tests/report-hostile
lines=$top_builddir/tests/c1-lines
archive=${PERFREC_ARCHIVE:-$top_builddir/perfrec-archive}
for program in "$hostile" "$lines" "$archive"; do
	[ -x "$program" ] || { echo "$test_name: $program not built" >&2; exit 99; }
done
if command -v iconv >/dev/null 2>&1; then
	valid_utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; }
elif command -v python3 >/dev/null 2>&1; then
	valid_utf8() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null; }
else
	skip "neither iconv nor python3 to check UTF-8 (apt-get install libc-bin)"
fi

# What report-hostile's C1_BYTES and c1-lines' #line hold, and what the
# one rule makes of them: a '?' for each control and each invalid byte.
raw=$(printf '\233[31m-\302\233[32m-\377\376')
safe='?[31m-?[32m-??'

# unsafe FILE: why FILE may not reach a terminal; nothing when it may.
unsafe() {
	if ! valid_utf8 "$1"; then
		echo "not UTF-8: $(grep -aP '[\x80-\xff]' "$1" | head -n 1 | cat -v)"
	elif grep -aqP '[\x00-\x08\x0b-\x1f\x7f]' "$1"; then
		echo "a C0 control: $(grep -aP '[\x00-\x08\x0b-\x1f\x7f]' "$1" | head -n 1 | cat -v)"
	elif grep -aqP '\xc2[\x80-\x9f]' "$1"; then
		echo "a C1 control (U+0080..U+009F): $(grep -aP '\xc2[\x80-\x9f]' "$1" | head -n 1 | cat -v)"
	fi
}

check "report-hostile --c1 writes a capture with C1 controls and invalid UTF-8 in its names"
elf=$work/c1-$raw
cp "$lines" "$elf"
offset=$("$elf") || fail "c1-lines did not say where c1_function is"
"$hostile" --c1 "$work/c1.prf" "$elf" "$offset" || fail "report-hostile --c1 failed"
note "c1_function at offset 0x$offset of $(printf '%s' "$elf" | cat -v)"
# Debian 12's libdw finds an address's compilation unit by .debug_aranges
# alone, which clang writes only with -gdwarf-aranges (gcc always does):
# in a build with CC=clang no line of c1-lines can be read, nor its file
# name checked.
dwarf_file="/c1-$safe.c:10"
if command -v eu-addr2line >/dev/null 2>&1 && eu-addr2line -e "$lines" c1_function | grep -q '^??'; then
	dwarf_file=
	note "libdw reads no line of c1-lines (no .debug_aranges: built by clang?): its DWARF file name is not checked"
fi

check "every view (with --lines) and its warnings: no control character, no invalid UTF-8"
failures=0
for options in "--view=samples --lines" "--view=samples" "--view=flat --lines" \
	"--view=tree --lines" "--view=folded" "--json --lines" "--view=tree --json --lines" \
	"--sort comm,dso,sym,srcline"; do
	name=$(echo "$options" | tr -c 'a-z0-9\n' '-')
	# shellcheck disable=SC2086
	report_ok "$work/$name" $options "$work/c1.prf"
	for out in "$work/$name" "$work/$name.err"; do
		why=$(unsafe "$out")
		if [ -n "$why" ]; then
			echo "perfrec-report $options: $([ "$out" = "$work/$name" ] && echo stdout || echo stderr): $why" >&2
			failures=$((failures + 1))
		fi
	done
done
[ "$failures" -eq 0 ] || fail "$failures outputs of perfrec-report with raw C1 controls or invalid UTF-8"

check "--view=samples --lines prints the names, made safe: function, DSO, source file, JIT name, missing DSO"
out=$work/--view-samples---lines
for expected in "c1-$safe 16001/16001 " "c1_function+0x0 (c1-$safe+0x$offset)" ${dwarf_file:+"$dwarf_file"} \
	"jit-$safe+0x" "(lib-$safe.so+0x"; do
	grep -qF -- "$expected" "$out" ||
		{ head -n 8 "$out" | cat -v >&2; fail "no '$expected' in the samples view"; }
done
[ "$(grep -c "^c1-" "$out")" -eq 16 ] || fail "$(grep -c "^c1-" "$out") samples of the 16 shown"
grep -qF "/nonexistent/lib-$safe.so: no ELF with build-id c1c1c1c1" "$out.err" ||
	{ cat -v "$out.err" >&2; fail "no warning naming the missing DSO, made safe"; }
note "$(sed -n 2p "$out")"

check "perfrec-archive's messages: the DSO paths made safe"
status=0
"$archive" -v -o "$work/c1.tar" "$work/c1.prf" >"$work/archive.out" 2>"$work/archive.err" || status=$?
[ "$status" -eq 0 ] || { cat "$work/archive.err" >&2; fail "perfrec-archive exited $status"; }
for out in "$work/archive.out" "$work/archive.err"; do
	why=$(unsafe "$out")
	[ -z "$why" ] || fail "perfrec-archive: $(basename "$out"): $why"
done
grep -qF "/c1-$safe: no build-id in the capture: left out" "$work/archive.err" &&
	grep -qF "/nonexistent/lib-$safe.so: build-id c1c1c1c1" "$work/archive.err" ||
	{ cat -v "$work/archive.err" >&2; fail "perfrec-archive did not name the missing DSO, made safe"; }
note "$(cat "$work/archive.err")"
[ -n "$dwarf_file" ] || skip "the rest passed, but no DWARF file name could be read here (see above)"
note PASS
