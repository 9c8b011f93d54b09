#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The reader's shortcuts (kept compact samples, the memo of counted
# callchains, the samples view's memo of frames' text) against the
# reference path, PRF_REPORT_NO_SHORTCUTS=1, on captures made to tell them
# apart (tests/shortcut-hostile): byte for byte the same with -j 1 and
# -j 2; and its captures that flood the reader's hashes read in bounded
# time.
test_name=test-report-shortcut-attacks
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"
gen=$top_builddir/tests/shortcut-hostile
needs_built "$gen"

# same NAME ARGS...: the shortcuts' bytes are the reference's; each
# difference shown, the test failed at the end (all of them seen at once).
differ=""
same() {
	name=$1
	shift
	PRF_REPORT_NO_SHORTCUTS=1 report_ok "$work/$name.ref" -j 1 "$@"
	for j in 1 2; do
		report_ok "$work/$name.$j" -j "$j" "$@"
		cmp -s "$work/$name.ref" "$work/$name.$j" || {
			echo "--- perfrec-report -j $j $*: differs from PRF_REPORT_NO_SHORTCUTS=1:" >&2
			diff "$work/$name.ref" "$work/$name.$j" >&2 || true
			differ="$differ $name(-j $j)"
		}
	done
}

check "two callchains of one process whose stack hashes are equal"
"$gen" collide "$work/collide.prf" 2>/dev/null || fail "shortcut-hostile collide"
same collide-folded --view=folded "$work/collide.prf"
same collide-tree --view=tree "$work/collide.prf"

check "idle kernel samples, one callchain, on two hosts with other kernel symbols"
mkdir "$work/hosts"
"$gen" host "$work/hosts/a.prf" host-a alpha_fn || fail "shortcut-hostile host"
"$gen" host "$work/hosts/b.prf" host-b beta_fn || fail "shortcut-hostile host"
same hosts-folded --view=folded "$work/hosts"
same hosts-tree --view=tree "$work/hosts"

check "an event without TIME and CPU after one with them, in one compact chunk"
"$gen" untimed "$work/untimed.prf" || fail "shortcut-hostile untimed"
same untimed-cpu --event task-clock --cpu 0 "$work/untimed.prf"
same untimed-until --event task-clock --until 1ms "$work/untimed.prf"

check "the samples view's frames: one address as a leaf and a return address, in two binaries, in the kernel's context, one binary at two addresses"
"$gen" frames "$work/frames.prf" || fail "shortcut-hostile frames"
same frames-samples --view=samples "$work/frames.prf"
same frames-json --view=samples --json "$work/frames.prf"
same frames-script --format=perf-script "$work/frames.prf"
# The reference itself: the same address as a leaf and as a return address.
grep -q 'victim+0x1100)' "$work/frames-samples.ref" && grep -q 'victim+0x10ff)' "$work/frames-samples.ref" ||
	fail "the frames capture's samples: $(head -n 20 "$work/frames-samples.ref")"

# bounded NAME ARGS...: the shortcuts within 10 s where the reference
# takes well under one (a probe chain as long as the entries is n^2).
bounded() {
	name=$1
	shift
	status=0
	timeout 10 "$report" -j 1 "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
	[ "$status" -ne 124 ] || {
		echo "--- perfrec-report -j 1 $*: still at it after 10 s" >&2
		differ="$differ $name(time)"
	}
}

check "100,000 samples apart in one chunk, one alike_hash() for all"
"$gen" alike "$work/alike.prf" 100000 || fail "shortcut-hostile alike"
bounded alike "$work/alike.prf"

check "100,000 ips under one callchain of a marker alone: one memo hash for all"
"$gen" byip "$work/byip.prf" 100000 || fail "shortcut-hostile byip"
bounded byip --view=folded "$work/byip.prf"

check "300,000 kernel leaves apart without kallsyms: the samples view's memo of frames, its key's address and offset one"
"$gen" kframes "$work/kframes.prf" 300000 || fail "shortcut-hostile kframes"
bounded kframes --view=samples "$work/kframes.prf"

check "2 x 150,000 kernel leaves at addresses chosen for one slot of the address hashes the reader had unseeded"
"$gen" addresses "$work/addresses.prf" 150000 || fail "shortcut-hostile addresses"
bounded addresses-folded --view=folded "$work/addresses.prf"
bounded addresses-pprof --format=pprof -o "$work/addresses.pb.gz" "$work/addresses.prf"
bounded addresses-speedscope --format=speedscope -o "$work/addresses.json" "$work/addresses.prf"

check "2 x 150,000 samples of tasks chosen for one slot of the task hashes the reader had unseeded"
"$gen" tasks "$work/tasks.prf" 150000 || fail "shortcut-hostile tasks"
bounded tasks-pprof --format=pprof -o "$work/tasks.pb.gz" "$work/tasks.prf"
bounded tasks-speedscope --format=speedscope -o "$work/tasks.json" "$work/tasks.prf"
bounded tasks-perfdata --format=perf.data -o "$work/tasks.data" "$work/tasks.prf"

[ -z "$differ" ] || fail "the shortcuts differ from the reference in:$differ"
