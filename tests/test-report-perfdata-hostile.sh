#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perf.data files that cost time or memory rather than bytes
# (tests/perfdata-hostile.py writes them; the fuzz seeds are the ones that
# lie about sizes), read in every view and format: each run exits 0
# within a time limit, without a sanitizer's report, its memory bounded:
#   - 4096 events sharing 1 M ids, and 4096 event descriptions: a name
#     matched to the ids one by one costs 4 G comparisons;
#   - pipe mode: 1 M ids, then 100000 EVENT_UPDATE records;
#   - zstd bombs (COMPRESSED records): 4 GiB of zeros, and 1.3 GiB of a
#     sound sample, each from about 120 KiB of file: read up to the
#     record that inflates past its bound, with a warning naming the file
#     and that cause.
# A perf.data cut before its feature sections: a warning that says so.
# A FIFO and a symlink to /dev/zero named on the command line: exit 1
# at once, one line naming the path.  FILE.kallsyms and FILE.jit/ beside
# -o FILE planted by someone else (a FIFO, symlinks, nobody's directory):
# refused, with one line naming them, nothing written through them.
test_name=test-report-perfdata-hostile
needs_root=no
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3"
command -v zstd >/dev/null 2>&1 || skip "no zstd (apt-get install zstd)"
python3 "$top_srcdir/tests/perfdata-hostile.py" "$work/h" || fail "perfdata-hostile.py: status $?"

# seconds a run may take: the quadratic files took 12 s and minutes before
limit=10
[ "$sanitized" = yes ] && limit=20
memory_limit=600000	# KiB of maximum resident set (ASan's shadow included)
measure=
[ -x /usr/bin/time ] && measure="/usr/bin/time -f %M -o $work/rss"

check "every view of each file: exit 0 within $limit s, memory bounded"
for file in "$work"/h/*.data; do
	name=$(basename "$file")
	for options in "--view=flat" "--view=tree" "--view=folded" "--json" "--view=timeline" \
		"--view=samples" "--format=html -o $work/out.html" \
		"--format=pprof -o $work/out.pb.gz" "--format=perf-script" "--format=speedscope" \
		"--format=perf.data -o $work/out.data"; do
		status=0
		# shellcheck disable=SC2086
		timeout "$limit" $measure "$report" $options "$file" >"$work/case.out" \
			2>"$work/case.err" || status=$?
		[ "$status" -eq 124 ] && fail "$name $options: still running after $limit s"
		[ "$status" -eq 0 ] || fail "$name $options: status $status: $(tail -n 2 "$work/case.err")"
		sanitizer_report "$work/case.err" && fail "$name $options: a sanitizer's report"
		if [ -n "$measure" ]; then
			rss=$(tail -n 1 "$work/rss")
			[ "$rss" -le "$memory_limit" ] ||
				fail "$name $options: $rss KiB resident, more than $memory_limit"
		fi
		case $options in
		--format=perf.data*)
			"$report" "$work/out.data" >/dev/null 2>"$work/case.err" ||
				fail "$name: its perf.data written again is unreadable: $(head -n 1 "$work/case.err")"
			;;
		esac
	done
	case $name in
	zstd-bomb-*)
		"$report" "$file" >/dev/null 2>"$work/case.err"
		grep -q "warning: $file: skipped 1 damaged chunk (.*): offset [0-9]*: a compressed record inflates beyond its bound" "$work/case.err" ||
			fail "$name: no warning naming the file and the cause: $(head -n 1 "$work/case.err")"
		;;
	esac
	note "$name: every view and format in time, memory bounded"
done

check "a perf.data cut before its feature sections: a warning that says what is lost"
size=$(wc -c <"$work/h/zstd-bomb-zeros.data")
# its last 40 bytes: the feature table's one entry and HEADER_COMPRESSED's 24 bytes
head -c $((size - 40)) "$work/h/zstd-bomb-zeros.data" >"$work/no-features.data"
"$report" "$work/no-features.data" >/dev/null 2>"$work/case.err" ||
	fail "no-features.data: status $?: $(tail -n 1 "$work/case.err")"
grep -q "warning: $work/no-features.data: perf.data: its feature sections are missing" "$work/case.err" ||
	fail "no-features.data: no warning of its missing features: $(head -n 1 "$work/case.err")"
note "$(head -n 1 "$work/case.err")"

check "a FIFO and a symlink to /dev/zero on the command line: exit 1 at once, naming them"
mkfifo "$work/fifo.data"
ln -s /dev/zero "$work/zero.data"
for input in "$work/fifo.data" "$work/zero.data"; do
	status=0
	timeout 10 "$report" "$input" >"$work/case.out" 2>"$work/case.err" || status=$?
	[ "$status" -eq 1 ] || fail "$input: status $status, expected 1"
	[ "$(wc -l <"$work/case.err")" -eq 1 ] && grep -q "$input" "$work/case.err" ||
		fail "$input: not one line naming it: $(cat "$work/case.err")"
	note "$(cat "$work/case.err")"
done
# --format=perf.data -o FILE writes FILE.kallsyms and FILE.jit/ beside it,
# paths the user did not name: one planted there by someone else (in /tmp)
# is refused, never followed or written in place.
hostile=$top_builddir/tests/report-hostile
if [ -x "$hostile" ]; then
	check "FILE.kallsyms and FILE.jit/ planted beside -o FILE: refused, nothing written there"
	"$hostile" "$work/captures" >/dev/null || fail "report-hostile: status $?"
	mkdir -m 1777 "$work/tmp" "$work/elsewhere"
	# refuse CAPTURE PATH WHAT: -o PATH exits 1 within 10 s naming WHAT
	refuse() {
		status=0
		timeout 10 "$report" --format=perf.data -o "$2" "$work/captures/$1" \
			>/dev/null 2>"$work/case.err" || status=$?
		[ "$status" -eq 1 ] || fail "$3 planted: status $status, expected 1"
		grep -q "writing $3: " "$work/case.err" ||
			fail "$3 planted: no line naming it: $(cat "$work/case.err")"
		note "$(tail -n 1 "$work/case.err")"
	}
	ln -s "$work/elsewhere" "$work/tmp/jit.data.jit"
	refuse jit.prf "$work/tmp/jit.data" "$work/tmp/jit.data.jit"
	[ -z "$(ls "$work/elsewhere")" ] || fail "maps written through the symlink FILE.jit"
	mkfifo "$work/tmp/kernel.data.kallsyms"
	refuse kernel-symbols.prf "$work/tmp/kernel.data" "$work/tmp/kernel.data.kallsyms"
	echo mine >"$work/mine"
	ln -s "$work/mine" "$work/tmp/link.data.kallsyms"
	refuse kernel-symbols.prf "$work/tmp/link.data" "$work/tmp/link.data.kallsyms"
	[ "$(cat "$work/mine")" = mine ] || fail "kallsyms written through the symlink"
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
		nobody_group=$(id -gn nobody)
		chmod 711 "$work"	# for nobody to reach $work/tmp
		as_nobody mkdir "$work/tmp/theirs.data.jit"
		refuse jit.prf "$work/tmp/theirs.data" "$work/tmp/theirs.data.jit"
		[ -z "$(ls "$work/tmp/theirs.data.jit")" ] || fail "maps written into nobody's FILE.jit/"
	fi
	# Sound: FILE.jit/ of this user's, made or taken
	mkdir "$work/tmp/again.data.jit"
	"$report" --format=perf.data -o "$work/tmp/again.data" "$work/captures/jit.prf" 2>"$work/case.err" ||
		fail "FILE.jit/ of mine: status $?: $(tail -n 1 "$work/case.err")"
	[ -n "$(ls "$work/tmp/again.data.jit")" ] || fail "no map in FILE.jit/ of mine"
fi
note "PASS"
