#!/bin/sh
# Replays the seed corpus and the saved crashes through the reader's fuzz
# target (always; a few seconds).  With PRF_FUZZ_SECONDS set, also runs the
# libFuzzer build of it on them for that many seconds, and fails on a crash.
#
#   make check TESTS=tests/fuzz/run-fuzz.sh
#   PRF_FUZZ_SECONDS=120 make check TESTS=tests/fuzz/run-fuzz.sh  # --enable-fuzz
set -eu
src=${top_srcdir:-.}/tests/fuzz
build=${top_builddir:-.}/tests/fuzz
seeds=$build/seeds
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export UBSAN_OPTIONS

# Fresh every run: the seeds follow the writer, not a checked-in snapshot.
rm -rf "$seeds"
"$build/make-corpus" "$seeds"
"$build/fuzz-reader-replay" "$seeds" "$src/crashes"

[ -n "${PRF_FUZZ_SECONDS:-}" ] || exit 0
if [ ! -x "$build/fuzz-reader" ]; then
	echo "run-fuzz.sh: PRF_FUZZ_SECONDS is set but $build/fuzz-reader is not built" \
		"(configure with CC=clang --enable-fuzz)" >&2
	exit 1
fi

# The corpus grows across runs in the build tree; new finds go first.
mkdir -p "$build/corpus" "$build/artifacts"
log=$build/artifacts/fuzz.out
status=0
"$build/fuzz-reader" -max_total_time="$PRF_FUZZ_SECONDS" -rss_limit_mb=2048 \
	-max_len=1048576 -timeout=30 -print_final_stats=1 \
	-artifact_prefix="$build/artifacts/" \
	"$build/corpus" "$seeds" "$src/crashes" >"$log" 2>&1 || status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ "$status" -ne 0 ]; then
	tail -n 150 "$log"
	echo "fuzz: FAILED after ${execs:-?} runs (exit $status); reproducers:"
	for artifact in "$build"/artifacts/crash-* "$build"/artifacts/leak-* \
			"$build"/artifacts/timeout-* "$build"/artifacts/oom-*; do
		[ ! -e "$artifact" ] || echo "  $artifact"
	done
	echo "replay one with: $build/fuzz-reader-replay FILE" \
		"(copy it into tests/fuzz/crashes/ to keep it)"
	exit 1
fi
grep -E 'INITED|DONE|^stat::' "$log" || true
echo "fuzz: $PRF_FUZZ_SECONDS s, ${execs:-?} runs, no crash"
