#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The journey of a capture to another host.  A workload and its library
# are built here with debug info (hot: main_spin, lib_spin) and captured
# by perfrecd; the on-host reports (flat with --lines, and the tree) are
# the reference.  perfrec-archive bundles what the samples hit.  Then the
# workload's directory is renamed, as another host sees it: the report has
# the workload's and the library's samples as [unknown] and warns with
# their build-ids.  Each leg then reads the capture with another source of
# symbols and must give the on-host reports' lines (compared as sorted
# lines: equal rows may swap places): --symbols with the .tar.zst, with
# the extracted directory, with a --debug-only bundle (debug files made by
# objcopy --only-keep-debug), and no --symbols but DEBUGINFOD_URLS naming
# a real `debuginfod -F` over the extracted bundle (its .build-id layout
# is what debuginfod indexes).  A leg is one call of
# `leg NAME REPORT-OPTIONS...`.
test_name=test-archive-journey
. "${top_srcdir:-$(dirname "$0")/..}/tests/archive-lib.sh"

bin=$work/bin
build_workload "$bin"
main_id=$(elf_build_id "$bin/archive-workload")
lib_id=$(elf_build_id "$bin/libarchive-lib.so")

check "perfrecd captures the workload (1.5 s); the on-host reports name main_spin and lib_spin with lines"
# shellcheck disable=SC2086
capture "$work/out" $favour "$bin/archive-workload" 1.5
report_ok "$work/host-flat" --lines "$work/out"
report_ok "$work/host-tree" --view=tree --lines "$work/out"
report_ok "$work/host-plain" "$work/out"
for f in main_spin:archive-workload lib_spin:libarchive-lib.so; do
	got=$(flat_percent "$work/host-plain" "${f%:*}" "${f#*:}")
	note "${f%:*}: $got %"
	# lib_spin's share moves between 4 and 10 % from run to run (where
	# ASLR puts the two loops' variables, it seems): 2 % is enough for
	# its samples to need the library's symbols.
	awk -v got="$got" 'BEGIN { exit !(got >= 2) }' || fail "${f%:*} has $got % of the samples on the host"
done
grep -q ' main_spin .*archive-workload  *archive-workload\.c:[0-9]' "$work/host-flat" ||
	fail "no archive-workload.c line for main_spin on the host: $(grep main_spin "$work/host-flat")"

check "perfrec-archive: a .tar.zst and a --debug-only one"
"$archive" "$work/out" -o "$work/bundle.tar.zst" >"$work/archive.out" 2>"$work/archive.err" ||
	{ cat "$work/archive.err" >&2; fail "perfrec-archive failed"; }
note "$(tail -n 1 "$work/archive.out")"
# All three: a sample may land in libarchive-idle.so too (its
# __do_global_dtors_aux at exit, one run in a few dozen).
for f in archive-workload libarchive-lib.so libarchive-idle.so; do
	name=$(build_id_name "$bin/$f" .debug)
	mkdir -p "$work/debug/$(dirname "$name")"
	objcopy --only-keep-debug "$bin/$f" "$work/debug/$name" || fail "objcopy --only-keep-debug $f"
done
"$archive" -q --debug-only --debug-dir "$work/debug" --debug-dir /usr/lib/debug "$work/out" \
	-o "$work/debug-only.tar.zst" >"$work/debug-only.out" || fail "perfrec-archive --debug-only failed"
note "$(tail -n 1 "$work/debug-only.out")"
mkdir -p "$work/extracted"
zstd -q -d -c "$work/bundle.tar.zst" | tar -C "$work/extracted" -xf - ||
	fail "cannot extract the bundle with zstd -d | tar -x"

check "another host: the workload's directory is gone; its samples are [unknown], with the build-ids in warnings"
mv "$bin" "$work/bin.gone"
report_ok "$work/away-flat" "$work/out"
for id in "$main_id" "$lib_id"; do
	grep -qF "$id" "$work/away-flat.err" || fail "no warning with build-id $id: $(cat "$work/away-flat.err")"
done
grep -q 'main_spin\|lib_spin' "$work/away-flat" && fail "main_spin or lib_spin resolved without the files"
unknown=$(flat_rows "$work/away-flat" | awk -F '\t' '$4 == "[unknown]" && $5 ~ /^(archive-workload|libarchive-lib\.so)\+/ { n += $1 } END { printf "%.2f\n", n }')
note "[unknown] in the workload and its library: $unknown %"
awk -v got="$unknown" 'BEGIN { exit !(got >= 50) }' || fail "only $unknown % [unknown] without the files"

# leg NAME OPTIONS...: the reports with OPTIONS equal the on-host ones.
leg() {
	leg_name=$1
	shift
	check "$leg_name: the same flat --lines and tree reports as on the host"
	report_ok "$work/$leg_name-flat" --lines "$@" "$work/out"
	report_ok "$work/$leg_name-tree" --view=tree --lines "$@" "$work/out"
	# As sets of lines: rows of equal counts and equal names (one function
	# at two source lines) come in no fixed order (reader/report/aggregate.c's
	# compare_flat leaves such ties to qsort).
	for view in flat tree; do
		sort "$work/host-$view" >"$work/host-$view.sorted"
		sort "$work/$leg_name-$view" >"$work/$leg_name-$view.sorted"
		if ! cmp -s "$work/host-$view.sorted" "$work/$leg_name-$view.sorted"; then
			diff "$work/host-$view" "$work/$leg_name-$view" | head -n 20 >&2
			fail "$leg_name: the $view report differs from the host's"
		fi
	done
	grep -qF "$main_id" "$work/$leg_name-flat.err" && fail "$leg_name: still a warning about the workload"
	true
}

leg bundle-zst --symbols "$work/bundle.tar.zst"
leg bundle-dir --symbols "$work/extracted"
leg debug-only --symbols "$work/debug-only.tar.zst"

if command -v debuginfod >/dev/null 2>&1 && command -v debuginfod-find >/dev/null 2>&1 &&
	command -v python3 >/dev/null 2>&1; then
	start_debuginfod "$work/extracted" "$lib_id"
	DEBUGINFOD_CACHE_PATH=$work/debuginfod-cache
	DEBUGINFOD_URLS=$debuginfod_url
	export DEBUGINFOD_CACHE_PATH DEBUGINFOD_URLS
	leg debuginfod
	unset DEBUGINFOD_URLS
	[ -n "$(ls -A "$DEBUGINFOD_CACHE_PATH" 2>/dev/null)" ] ||
		fail "debuginfod: the report matched without fetching anything (is the leg proving anything?)"
else
	note "debuginfod leg skipped: no debuginfod or python3 (apt-get install debuginfod python3)"
fi
note "PASS"
