# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers of the perfrec-report end-to-end tests (tests/test-report-*.sh),
# on top of tests/lib.sh (sourced here: $perfrecd, $workload, $work, check,
# note, fail, skip, start_daemon, ...).  A test sets test_name, sources
# this file, and also gets:
#
#   $report          perfrec-report (PERFREC_REPORT overrides it)
#   capture DIR CMD [ARGS...]
#                    runs CMD under `perfrecd -F 999 -o DIR -- CMD` (which
#                    profiles CMD and its children until it exits), CMD's
#                    stdout in $work/command.out; fails unless DIR then
#                    holds exactly one capture file, set in $capture_file
#   report_ok OUT [ARGS...]
#                    runs perfrec-report ARGS >OUT 2>OUT.err; fails unless
#                    it exits 0 without a sanitizer report
#   flat_rows FILE   the data rows of a flat view (default sort), as
#                    "percent<TAB>samples<TAB>mark<TAB>symbol<TAB>dso" with
#                    mark "k" or "." and percent without its "%"
#   flat_percent FILE SYMBOL [DSO]
#                    the self percent of SYMBOL (in DSO) in a flat view, 0
#                    when it has no row; rows of the same name are added
#   within A B POINTS
#                    whether |A - B| <= POINTS (decimal numbers)
#   $favour          a command prefix ("$favour CMD ARGS", unquoted) that
#                    runs CMD at nice -10 in a session of its own whose
#                    autogroup is at nice -10 too (plain nice counts only
#                    within a session under sched_autogroup): the workloads
#                    keep their CPUs when make -j2 runs another test, so
#                    they are preempted less (a cpu-clock sample held back
#                    while a task is off the CPU lands at its switch-in, in
#                    finish_task_switch and the like, not in the function
#                    that was running) and take more samples
#   elf_load_segments FILE
#                    "offset vaddr filesz flags" (hex offset/vaddr/filesz)
#                    of each PT_LOAD of FILE, from eu-readelf -l
#   build_pprof      Go's pprof, built offline from Debian's
#                    golang-github-google-pprof-dev once per build tree
#                    (tests/pprof-go/, removed by make clean), in $pprof;
#                    skips the test without go or that source
#   start_debuginfod DIR BUILD-ID
#                    a real `debuginfod -F DIR` on a free port of 127.0.0.1
#                    (its log in $work/debuginfod.log), killed at exit; waits
#                    up to 20 s until it serves BUILD-ID's debuginfo; sets
#                    $debuginfod_url and $debuginfod_pid.  Needs debuginfod,
#                    debuginfod-find and python3 (the test skips otherwise)
#
# Captures are short (a few seconds) and their thresholds have margins:
# make -j2 check runs two of these at once on two CPUs, and CI runs them
# again under ASan and UBSan.

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

report=${PERFREC_REPORT:-$top_builddir/perfrec-report}
[ -x "$report" ] || { echo "$test_name: $report not built" >&2; exit 99; }
# A pipe, never a terminal: no width to fit; a fixed locale for the tools.
unset COLUMNS
LC_ALL=C
export LC_ALL
# No debuginfod server but a test's own (Debian's profile.d may name one).
unset DEBUGINFOD_URLS
# A sanitizer's report must not look like perfrec-report's own exit 1.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:exitcode=86
export ASAN_OPTIONS UBSAN_OPTIONS
# Whether perfrec-report is built with the sanitizers (slower: ~20 ms a run).
sanitized=no
ldd "$report" 2>/dev/null | grep -q -e libasan -e libubsan && sanitized=yes

cat >"$work/favoured" <<'EOF'
#!/bin/sh
echo -10 >/proc/self/autogroup 2>/dev/null
exec nice -n -10 "$@"
EOF
chmod +x "$work/favoured"
if command -v setsid >/dev/null 2>&1; then
	favour="setsid -w $work/favoured"
else
	favour=$work/favoured
fi

capture() {
	capture_dir=$1
	shift
	"$perfrecd" -d 120 -F 999 -o "$capture_dir" -- "$@" >"$work/command.out" \
		2>"$work/daemon.err" || fail "perfrecd -- $*: status $?"
	[ "$(file_count "$capture_dir")" -eq 1 ] ||
		fail "perfrecd -- $*: $(file_count "$capture_dir") capture files, expected 1"
	capture_file=$(files_in "$capture_dir")
}

# Whether FILE (stderr of a program) holds a sanitizer's report.
sanitizer_report() {
	grep -qE 'ERROR: (Address|Leak|Memory|Thread|UndefinedBehavior)Sanitizer|runtime error:|SUMMARY: .*Sanitizer' "$1"
}

# SKIP (77) without node, chromium or puppeteer-core in $browser_dir
# (tests/browser); exports NODE_PATH and CHROMIUM for its scripts.
needs_browser() {
	command -v node >/dev/null 2>&1 || skip "no node (apt-get install nodejs npm)"
	chromium=${CHROMIUM:-/usr/bin/chromium}
	[ -x "$chromium" ] || skip "no $chromium (apt-get install chromium)"
	NODE_PATH=$browser_dir/node_modules${NODE_PATH:+:$NODE_PATH}
	export NODE_PATH CHROMIUM=$chromium
	node -e 'require.resolve("puppeteer-core")' 2>/dev/null ||
		skip "no puppeteer-core in $browser_dir/node_modules (npm ci there; scripts/setup-debian.sh does)"
}

report_ok() {
	report_out=$1
	shift
	report_status=0
	"$report" "$@" >"$report_out" 2>"$report_out.err" || report_status=$?
	if [ "$report_status" -ne 0 ] || sanitizer_report "$report_out.err"; then
		echo "--- perfrec-report $*: status $report_status; its stderr:" >&2
		tail -n 40 "$report_out.err" >&2
		fail "perfrec-report $* exited with status $report_status"
	fi
}

flat_rows() {
	awk '
	/^#/ || NF < 4 { next }
	{
		pct = $1
		sub(/%$/, "", pct)
		mark = $3 == "[k]" ? "k" : "."
		symbol = $4
		for (i = 5; i < NF; i++)
			symbol = symbol " " $i
		printf "%s\t%s\t%s\t%s\t%s\n", pct, $2, mark, symbol, $NF
	}' "$1"
}

flat_percent() {
	flat_rows "$1" | awk -F '\t' -v symbol="$2" -v dso="${3:-}" '
	$4 == symbol && (dso == "" || $5 == dso) { sum += $1 }
	END { printf "%.2f\n", sum + 0 }'
}

# The Total% (with callees) of SYMBOL in DSO in a flat --children report.
flat_total() {
	awk -v symbol="$2" -v dso="$3" '!/^#/ && $5 == symbol && $6 == dso { sub(/%$/, "", $2); print $2; exit }' "$1"
}

within() {
	awk -v a="$1" -v b="$2" -v points="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= points) }'
}

elf_load_segments() {
	eu-readelf -l "$1" | awk '
	$1 == "LOAD" {
		flags = ""
		for (i = 7; i < NF; i++)
			flags = flags $i
		print $2, $3, $5, flags
	}'
}

start_debuginfod() {
	for tool in debuginfod debuginfod-find python3; do
		command -v "$tool" >/dev/null 2>&1 || skip "no $tool (apt-get install debuginfod python3)"
	done
	# A free port: the kernel's pick, released again.
	debuginfod_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		fail "no free port on 127.0.0.1"
	debuginfod_url=http://127.0.0.1:$debuginfod_port
	debuginfod -v -F -p "$debuginfod_port" -d "$work/debuginfod.sqlite" -t 0 -g 0 "$1" \
		>"$work/debuginfod.log" 2>&1 &
	debuginfod_pid=$!
	at_exit "kill $debuginfod_pid 2>/dev/null; wait $debuginfod_pid 2>/dev/null"
	# Each probe with a private, fresh cache: a miss would be remembered.
	debuginfod_probe=$2
	wait_for 'rm -rf "$work/probe-cache"
		DEBUGINFOD_URLS=$debuginfod_url DEBUGINFOD_CACHE_PATH=$work/probe-cache \
			DEBUGINFOD_TIMEOUT=2 debuginfod-find debuginfo "$debuginfod_probe" >/dev/null 2>&1' 20 || {
		tail -n 20 "$work/debuginfod.log" >&2
		fail "debuginfod -F $1 did not serve $debuginfod_probe within 20 s"
	}
	rm -rf "$work/probe-cache"
}

build_pprof() {
	pprof_source=/usr/share/gocode/src/github.com/google/pprof
	command -v go >/dev/null 2>&1 || skip "no go (apt-get install golang-go)"
	[ -f "$pprof_source/pprof.go" ] ||
		skip "no pprof source in $pprof_source (apt-get install golang-github-google-pprof-dev)"
	# Offline: Debian's sources only, no proxy, no toolchain download;
	# GOCACHE in the build tree (HOME may be unset).  Two tests at once
	# build it once.
	pprof_dir=$(cd "$top_builddir" && pwd)/tests/pprof-go
	pprof=$pprof_dir/pprof
	mkdir -p "$pprof_dir"
	(
		flock 9
		if [ ! -x "$pprof" ]; then
			env GOPATH=/usr/share/gocode GO111MODULE=off GOPROXY=off GOFLAGS= \
				GOTOOLCHAIN=local GOCACHE="$pprof_dir/cache" \
				go build -o "$pprof.new" github.com/google/pprof >"$work/go-build.log" 2>&1 || {
				tail -n 20 "$work/go-build.log" >&2
				exit 1
			}
			mv "$pprof.new" "$pprof"
		fi
	) 9>"$pprof_dir/.lock" || fail "go build github.com/google/pprof failed"
	# pprof never asks a server here, nor reads a user's settings.
	unset PPROF_TMPDIR PPROF_TOOLS
	HOME=$work
	export HOME
}
