#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The soak: perfrecd at its defaults under a churn of JIT-like processes
# and an unprivileged user's attacks, beside perf record (run as root).
#
#   bench/soak.sh [--duration SECONDS] [--interval SECONDS] [--phase SECONDS]
#                 [--rate N] [--life MS] [--build DIR] [--keep]
#
#   --duration S  how long the load runs (default 600; SOAK_DURATION in the
#                 environment sets the default)
#   --interval S  a row of the table every S seconds (default 60)
#   --phase S     each attack runs S seconds, then the next (default 20)
#   --rate N      the churn forks N processes a second (default 1000)
#   --life MS     and each lives MS milliseconds (default 50)
#   --build DIR   the build directory (default _build in the source tree);
#                 perfrecd, perfrec-dump, bench/soak-jit and
#                 bench/collector-run are made there
#   --keep        keep the captures, perf.data and the logs (it says where)
#
# What runs, all at once, for the duration:
#   perfrecd      as perfrecd.service runs it: the installed configuration
#                 (systemd/perfrecd.conf: every setting at its default),
#                 LimitNOFILE=65536 (or the hard limit, if root may not
#                 raise it here), UMask=0077, JOURNAL_STREAM set (the
#                 journal's log format, info lines included), but into an
#                 output directory of its own under /var/tmp and without
#                 the unit's sandbox (it runs as plain root);
#   the churn     bench/soak-jit churn, as root: RATE processes a second,
#                 each mapping anonymous executable memory and writing
#                 /tmp/perf-PID.map of a few lines, as a JIT does, then
#                 exiting after LIFE ms;
#   the attacks   bench/soak-jit as the user nobody (setpriv), one after
#                 the other, PHASE seconds each, round and round (ISSUE 31):
#                   inject   ESC, BEL, CR, BS, newlines and "<0>" in the
#                            directory of a jitdump, in the path of a
#                            deleted binary, in a command name and in map
#                            names (log injection)
#                   bigmap   4 processes with a 16 MiB perf map each
#                   flood    a process a second growing its perf map by
#                            16 MiB/s of distinct names (rotation flood)
#                   sparse   30 processes with a 1 TiB sparse perf map
#                            without a newline
#                   jitdump  4 processes, each mapping a 16 MiB jit-PID.dump
#                            of 16-byte records
#   perf record   -F 97 -a -g -z, Debian's perf, for comparison (its
#                 columns say SKIP without it).
# The churn and each attack run in a mount namespace of their own with a
# tmpfs on /tmp: their maps and jitdumps are at /tmp as the processes see
# it, which perfrecd reads through /proc/PID/root as it always does (the
# unit's perfrecd has a /tmp of its own anyway), and they go with the
# namespace however the run ends; the host's /tmp is never touched.
#
# Every INTERVAL it prints perfrecd's RSS, its open descriptors (now and
# the most seen, read every 5 s), its CPU seconds a second (utime + stime
# of /proc/PID/stat) and bytes written a second (wchar of /proc/PID/io:
# every write, the log's included), the log lines it wrote; perf's CPU
# and bytes the same way; the churn's forks a second and the attacks that
# ran.  Then the goals, a PASS or FAIL line each (the exit status is 1 if
# one fails):
#   lost          0 lost: the last STATS record of perfrecd's newest file
#                 (lost + lost_samples, counted since it started, so files
#                 deleted meanwhile hide none), read with perfrec-dump.
#                 The kernel's LOST records count whatever the ring had no
#                 room for, samples and side-band (FORK, MMAP2...) alike;
#                 either is data lost;
#   RSS flat      at most 10 % growth from the end of the first minute to
#                 the end of the load;
#   descriptors   at most 1024 at any reading (a shell's default limit:
#                 a run by hand must not need the unit's 65536), and back
#                 within 16 of where they were before the load, once it
#                 has stopped and perfrecd has seen its processes exit.
# And for information: perf's samples and lost, both tools' CPU over their
# whole life, the files perfrecd made and how many retention deleted, and
# how many lines of perfrecd's log were not its own (no "<N>" priority
# prefix: a line forged with a newline) or carry raw control characters.
#
# It stops by itself; interrupted (INT, TERM, HUP) it stops everything it
# started and removes what it made, as at the end.  It exits 77 without
# root, the user nobody, setpriv or unshare.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/_build
duration=${SOAK_DURATION:-600}
interval=60
phase=20
rate=1000
life=50
keep=no

usage() {
	sed -n '3,/^# What runs/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=${2:-}; shift 2 || usage ;;
	--interval) interval=${2:-}; shift 2 || usage ;;
	--phase) phase=${2:-}; shift 2 || usage ;;
	--rate) rate=${2:-}; shift 2 || usage ;;
	--life) life=${2:-}; shift 2 || usage ;;
	--build) build=${2:-}; shift 2 || usage ;;
	--keep) keep=yes; shift ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done
for value in "$duration" "$interval" "$phase" "$rate" "$life"; do
	case $value in ''|*[!0-9]*) usage ;; esac
done
if [ "$duration" -lt 1 ] || [ "$interval" -lt 1 ] || [ "$phase" -lt 1 ] || [ "$rate" -lt 1 ]; then
	usage
fi

say() { printf '%s\n' "$*"; }
die() { say "soak.sh: $*" >&2; exit 1; }
skip() { say "soak.sh: SKIP: $*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "not root (perfrecd samples the whole machine; the attacker is set up with setpriv)"
id nobody >/dev/null 2>&1 || skip "no user nobody (the attacker)"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux): the attacks run as nobody through it"
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux): the load's /tmp is a tmpfs of its own"
unshare --mount true 2>/dev/null || skip "unshare --mount fails here (a container without CAP_SYS_ADMIN?)"
nobody_group=$(id -gn nobody)
have_perf=no
command -v perf >/dev/null 2>&1 && have_perf=yes

# ---- building ----------------------------------------------------------

[ -f "$build/Makefile" ] || die "$build: not a configured build directory (--build DIR)"
build=$(cd "$build" && pwd)
say "+ make -C $build perfrecd perfrec-dump bench/soak-jit bench/collector-run"
make -C "$build" perfrecd perfrec-dump bench/soak-jit bench/collector-run >"$build/soak-make.log" 2>&1 ||
	{ tail -n 20 "$build/soak-make.log" >&2; die "make failed (log: $build/soak-make.log)"; }

# ---- readings ----------------------------------------------------------

ticks=$(getconf CLK_TCK)

# cpu PID: utime + stime in ticks, all threads (field 14 and 15 of
# /proc/PID/stat; the name in parentheses may hold spaces, so count from
# its end).
cpu() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
wchar() { awk '$1 == "wchar:" { print $2 }' "/proc/$1/io" 2>/dev/null; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
uptime_s() { cut -d ' ' -f 1 /proc/uptime; }

# ---- cleaning up -------------------------------------------------------

prd_run='' prd='' perf_run='' perf_pid='' churn='' attack_loop='' prd_stop_s=''

# stop PID SIGNAL SECONDS: signals PID and waits up to SECONDS for it to go,
# then kills it.
stop() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
	kill "-$2" "$1" 2>/dev/null || true
	waited=0
	while kill -0 "$1" 2>/dev/null && [ "$waited" -lt "$(($3 * 10))" ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	kill -0 "$1" 2>/dev/null || return 0
	say "soak.sh: pid $1 still there $3 s after SIG$2: killing it" >&2
	kill -KILL "$1" 2>/dev/null || true
}

# The load goes first, so that perfrecd sees its processes exit.
stop_load() {
	if [ -n "$attack_loop" ]; then
		stop "$attack_loop" TERM 30
		wait "$attack_loop" 2>/dev/null || true
		attack_loop=
	fi
	if [ -n "$churn" ]; then
		stop "$churn" TERM 30
		wait "$churn" 2>/dev/null || true
		churn=
	fi
}

# Stopped as one stops them: perf with SIGINT, perfrecd with SIGTERM.  perf
# then reads its whole file for build-ids, which takes a while.
stop_tools() {
	# Their pids, even when the run ends before it has read them.
	[ -n "$perf_pid" ] || [ ! -s "$tmp/perf.pid" ] || perf_pid=$(cat "$tmp/perf.pid")
	[ -n "$prd" ] || [ ! -s "$tmp/perfrecd.pid" ] || prd=$(cat "$tmp/perfrecd.pid")
	stop "$perf_pid" INT 300
	[ -z "$perf_run" ] || wait "$perf_run" 2>/dev/null || true
	# A drain that stalls shows here too: how long perfrecd takes to finish.
	stop_began=$(uptime_s)
	stop "$prd" TERM 120
	[ -z "$prd_run" ] || wait "$prd_run" 2>/dev/null || true
	prd_stop_s=$(awk -v a="$stop_began" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
	perf_pid='' perf_run='' prd='' prd_run=''
}

cleanup() {
	trap - EXIT INT TERM HUP
	stop_load
	stop_tools
	if [ "$keep" = yes ]; then
		say "soak.sh: kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}

# Everything the run makes is under $tmp: the output directory (0700, as
# perfrecd wants it), perf.data, the logs, and a copy of soak-jit that
# nobody may run wherever the build directory is.
tmp=$(mktemp -d /var/tmp/perfrec-soak.XXXXXX)
trap cleanup EXIT
# (A shell started in the background ignores SIGINT, and cannot trap it.)
interrupted() {
	say "soak.sh: interrupted: stopping the load, perf and perfrecd, then removing $tmp" >&2
	exit "$1"
}
trap 'interrupted 130' INT
trap 'interrupted 143' TERM
trap 'interrupted 129' HUP
chmod 755 "$tmp"
out=$tmp/out
mkdir -m 700 "$out"
mkdir "$tmp/bin"
cp "$build/bench/soak-jit" "$tmp/bin/soak-jit"
chmod 755 "$tmp/bin/soak-jit"
jit=$tmp/bin/soak-jit
runner=$build/bench/collector-run
log_lines() { wc -l <"$tmp/perfrecd.log"; }
forks() { sed -n 's/^forks \([0-9]*\) .*/\1/p' "$tmp/churn.log" 2>/dev/null | tail -n 1; }

# ---- the collectors ----------------------------------------------------

# The unit's limits and log format.  JOURNAL_STREAM names the log file as
# systemd names the journal's stream: device and inode of stderr.
: >"$tmp/perfrecd.log"
journal_stream=$(stat -c '%d:%i' "$tmp/perfrecd.log")
(
	# shellcheck disable=SC3045 # dash, bash and busybox sh all have it
	ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -H -n)"
	umask 077
	JOURNAL_STREAM=$journal_stream
	export JOURNAL_STREAM
	exec "$runner" "$tmp/perfrecd.pid" "$tmp/perfrecd.usage" \
		"$build/perfrecd" --config "$top/systemd/perfrecd.conf" -o "$out"
) >/dev/null 2>>"$tmp/perfrecd.log" &
prd_run=$!

# perf's build-id cache (~/.debug by default) goes with the rest.
PERF_BUILDID_DIR=$tmp/perf-buildid
export PERF_BUILDID_DIR
if [ "$have_perf" = yes ]; then
	"$runner" "$tmp/perf.pid" "$tmp/perf.usage" \
		perf record -F 97 -a -g -z -o "$tmp/perf.data" >"$tmp/perf.log" 2>&1 &
	perf_run=$!
fi

# Both ready: perfrecd's first file, perf's header.
waited=0
until [ -s "$tmp/perfrecd.pid" ] && ls "$out"/*.prf >/dev/null 2>&1 &&
	{ [ "$have_perf" = no ] || { [ -s "$tmp/perf.pid" ] && [ -s "$tmp/perf.data" ]; }; }; do
	kill -0 "$prd_run" 2>/dev/null || { cat "$tmp/perfrecd.log" >&2; die "perfrecd did not start"; }
	[ -z "$perf_run" ] || kill -0 "$perf_run" 2>/dev/null || { cat "$tmp/perf.log" >&2; die "perf record did not start"; }
	[ "$waited" -lt 300 ] || die "perfrecd or perf record not ready after 30 s"
	sleep 0.1
	waited=$((waited + 1))
done
prd=$(cat "$tmp/perfrecd.pid")
[ "$have_perf" = no ] || perf_pid=$(cat "$tmp/perf.pid")

fds_before=$(fds "$prd")

# ---- the load ----------------------------------------------------------

# The churn, as root, in a mount namespace of its own (see above).
unshare --mount --propagation private sh -c '
	mount -t tmpfs -o size=256m,mode=1777 soak-churn /tmp && exec "$@"' \
	sh "$jit" churn "$rate" "$life" >"$tmp/churn.log" 2>&1 &
churn=$!

# attack NAME: one attack for PHASE seconds, as nobody, in a namespace of
# its own whose /tmp has a directory nobody owns (/tmp/soak).  Run in the
# background, it becomes soak-jit (exec all the way), so that its pid is
# the one to signal.
attack() {
	case $1 in
	inject) set -- inject "$phase" /tmp/soak ;;
	bigmap) set -- bigmap 4 16 "$phase" ;;
	flood) set -- flood 16 16 "$phase" ;;
	sparse) set -- sparse 30 "$phase" ;;
	jitdump) set -- jitdump 4 16 "$phase" /tmp/soak ;;
	esac
	exec unshare --mount --propagation private sh -c '
		group=$1 && shift &&
		mount -t tmpfs -o size=1g,mode=1777 soak-attack /tmp &&
		mkdir -m 755 /tmp/soak && chown nobody /tmp/soak &&
		exec setpriv --reuid=nobody --regid="$group" --clear-groups "$@"' \
		sh "$nobody_group" "$jit" "$@"
}

# The attacks in turn until told to stop; each start is logged with the
# time, for the table.  SIGTERM interrupts the wait and ends the attack
# under way.
attacks() {
	attack_pid='' stopping=no
	trap 'stopping=yes; [ -z "$attack_pid" ] || kill -TERM "$attack_pid" 2>/dev/null || true' TERM
	while [ "$stopping" = no ]; do
		# The log injection first: once perfrecd stalls (before issue
		# 31's fixes) the records of later attacks are lost in the rings.
		for name in inject bigmap flood sparse jitdump; do
			[ "$stopping" = no ] || break
			say "$(uptime_s) $name" >>"$tmp/attacks.log"
			attack "$name" >>"$tmp/attacks.out" 2>&1 &
			attack_pid=$!
			wait "$attack_pid" || true	# returns early on SIGTERM
			wait "$attack_pid" 2>/dev/null || true
			attack_pid=
		done
	done
}
: >"$tmp/attacks.log"
attacks &
attack_loop=$!

# ---- the table ---------------------------------------------------------

start=$(uptime_s)
say "perfrecd $prd ($build/perfrecd, defaults: systemd/perfrecd.conf), output $out," \
	"descriptors limit $(awk '/^Max open files/ { print $4 }' "/proc/$prd/limits")"
if [ "$have_perf" = yes ]; then
	say "perf record $perf_pid: $(perf --version)"
else
	say "perf: not found (apt-get install linux-perf): SKIP"
fi
say "load: churn $rate processes/s living $life ms (root), attacks $phase s each (nobody); $duration s, a row every $interval s"
say "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d ' ' -f 1-3 /proc/loadavg) before the load"
say
printf '%6s %8s %5s %5s %8s %9s %6s | %8s %9s | %7s %s\n' \
	time "RSS MiB" fds "max" "CPU s/s" "KiB/s" "log" "perf CPU" "KiB/s" "forks/s" attacks
# Previous row: time, perfrecd CPU ticks and wchar, perf's, log lines, forks.
row_t=$start row_cpu=$(cpu "$prd") row_w=$(wchar "$prd") row_log=$(log_lines) row_forks=0
row_pcpu=0 row_pw=0
[ -z "$perf_pid" ] || { row_pcpu=$(cpu "$perf_pid"); row_pw=$(wchar "$perf_pid"); }
fd_max=$fds_before fd_row_max=$fds_before attacks_seen=0 last_attack=-
rss_base='' rss_base_t=0 rss_end='' rss_end_t=0
died=no

# row: prints the row for the time since the previous one.
row() {
	now=$1
	c=$(cpu "$prd") w=$(wchar "$prd") l=$(log_lines) f=$(forks)
	pc=- pw=-
	[ -z "$perf_pid" ] || { pc=$(cpu "$perf_pid"); pw=$(wchar "$perf_pid"); }
	# The attacks that started since the last row, or the one still running.
	names=$(sed -n "$((attacks_seen + 1)),\$p" "$tmp/attacks.log" | awk '{ printf "%s%s", sep, $2; sep = "," }')
	attacks_seen=$(wc -l <"$tmp/attacks.log")
	[ -n "$names" ] && last_attack=${names##*,} || names=$last_attack
	awk -v t="$now" -v t0="$start" -v pt="$row_t" -v rss="$rss_kb_now" -v fd="$fds_now" -v fdm="$fd_row_max" \
		-v c="$c" -v pc0="$row_cpu" -v w="$w" -v w0="$row_w" -v l="$l" -v l0="$row_log" \
		-v qc="$pc" -v qc0="$row_pcpu" -v qw="$pw" -v qw0="$row_pw" -v hz="$ticks" \
		-v f="${f:-0}" -v f0="$row_forks" -v names="$names" 'BEGIN {
		dt = t - pt
		perf_cpu = qc == "-" ? "SKIP" : sprintf("%.3f", (qc - qc0) / hz / dt)
		perf_kib = qw == "-" ? "SKIP" : sprintf("%.1f", (qw - qw0) / 1024 / dt)
		printf "%5.0fs %8.1f %5d %5d %8.3f %9.1f %6d | %8s %9s | %7.0f %s\n",
			t - t0, rss / 1024, fd, fdm, (c - pc0) / hz / dt, (w - w0) / 1024 / dt, l - l0,
			perf_cpu, perf_kib, (f - f0) / dt, names
	}'
	row_t=$now row_cpu=$c row_w=$w row_log=$l row_forks=${f:-0}
	[ -z "$perf_pid" ] || { row_pcpu=$pc row_pw=$pw; }
	fd_row_max=0
}

elapsed() { awk -v a="$1" -v b="$start" 'BEGIN { printf "%d", a - b }'; }
next_row=$interval
while :; do
	now=$(uptime_s)
	t=$(elapsed "$now")
	[ "$t" -lt "$duration" ] || break
	left=$((duration - t))
	to_row=$((next_row - t))
	nap=5
	[ "$left" -lt "$nap" ] && nap=$left
	[ "$to_row" -gt 0 ] && [ "$to_row" -lt "$nap" ] && nap=$to_row
	sleep "$nap"
	if ! kill -0 "$prd" 2>/dev/null; then
		say "soak.sh: perfrecd exited during the run" >&2
		died=yes
		break
	fi
	now=$(uptime_s)
	t=$(elapsed "$now")
	rss_kb_now=$(rss_kb "$prd") fds_now=$(fds "$prd")
	[ "$fds_now" -gt "$fd_max" ] && fd_max=$fds_now
	[ "$fds_now" -gt "$fd_row_max" ] && fd_row_max=$fds_now
	# RSS at the end of the first minute: where it should stay.
	[ -z "$rss_base" ] && [ "$t" -ge 60 ] && rss_base=$rss_kb_now rss_base_t=$t
	rss_end=$rss_kb_now rss_end_t=$t
	if [ "$t" -ge "$next_row" ] || [ "$t" -ge "$duration" ]; then
		row "$now"
		next_row=$((next_row + interval))
	fi
done

# ---- after the load ----------------------------------------------------

load_after=$(cut -d ' ' -f 1-3 /proc/loadavg)
stop_load
# perfrecd closes a process's files when it sees the process exit: give it
# a few drains (one a second at the least) and a flush.
fds_after=0
if [ "$died" = no ]; then
	waited=0
	while :; do
		fds_after=$(fds "$prd")
		[ "$fds_after" -le $((fds_before + 16)) ] && [ "$waited" -ge 3 ] && break
		[ "$waited" -lt 15 ] || break
		sleep 1
		waited=$((waited + 1))
	done
fi
stop_tools

# ---- results -----------------------------------------------------------

say
newest=$(ls "$out"/*.prf 2>/dev/null | tail -n 1)
stats=
[ -z "$newest" ] || stats=$("$build/perfrec-dump" "$newest" 2>/dev/null | awk '/ STATS /{ s = $0 } END { print s }')
field() { say "$stats" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
samples=$(field samples) lost=$(field lost) lost_samples=$(field lost_samples) dropped=$(field dropped_records)
lost_total=$(( ${lost:-0} + ${lost_samples:-0} ))
files=$(ls "$out"/*.prf 2>/dev/null | wc -l)
# Each file's name ends in the run's sequence number: how many were made.
made=$(ls "$out"/*.prf 2>/dev/null | sed -n 's/.*-\([0-9]*\)\.prf$/\1/p' | sort -n | tail -n 1)
made=$(( $(say "${made:-0}" | sed 's/^0*//; s/^$/0/') + 1 ))
bytes=$(du -cb "$out"/*.prf 2>/dev/null | tail -n 1 | cut -f 1)
summary=$(grep -E '[0-9]+ samples on [0-9]+ CPUs' "$tmp/perfrecd.log" | tail -n 1 | sed 's/^<[0-9]>//')
usage_cpu() { tr ' ' '\n' <"$1" | awk -F= '$1 == "user" || $1 == "system" { s += $2 } END { printf "%.2f", s }'; }

# lost: the count of the kernel's LOST records, which do not say what was
# lost: samples or the side-band (FORK, MMAP2...) alike.
say "perfrecd: ${samples:-?} samples, $lost_total lost (lost=${lost:-?} lost_samples=${lost_samples:-?}: samples and side-band records alike), dropped records ${dropped:-?}"
say "  from the last STATS record of $(basename "${newest:-none}") (perfrec-dump); its exit summary: ${summary:-none}"
say "  CPU $(usage_cpu "$tmp/perfrecd.usage") s over its life; ${prd_stop_s:-?} s to finish after SIGTERM;" \
	"$files files ($made made, $((made - files)) deleted by retention), $bytes bytes"
# Lines of the log that are not perfrecd's own: without a priority, or at
# a priority it never uses (0 to 2); and lines with raw control characters.
say "  log: $(log_lines) lines, $(grep -cvE '^<[3-7]>' "$tmp/perfrecd.log" || true) not its own (no <3>..<7>), $(LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" "$tmp/perfrecd.log" || true) with raw control characters"
if [ "$have_perf" = yes ]; then
	perf_stats=$(perf report --stats -i "$tmp/perf.data" 2>/dev/null || true)
	perf_samples=$(say "$perf_stats" | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n 1)
	perf_lost=$(say "$perf_stats" | sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' | tail -n 1)
	perf_lost_records=$(say "$perf_stats" | sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' | head -n 1)
	say "perf record: ${perf_samples:-?} samples, ${perf_lost:-0} lost samples, ${perf_lost_records:-0} LOST records;" \
		"CPU $(usage_cpu "$tmp/perf.usage") s over its life (its build-id pass at the end included); $(stat -c %s "$tmp/perf.data") bytes"
else
	say "perf record: SKIP (no perf)"
fi
say "churn: $(forks) processes forked; attacks run: $(wc -l <"$tmp/attacks.log"); load average $load_after at the end of the load"

say
status=0
goal() {
	say "$1: $2"
	[ "${2%%:*}" != FAIL ] || status=1
}
[ "$died" = no ] || goal "perfrecd" "FAIL: it exited during the run (log: $(tail -n 3 "$tmp/perfrecd.log" | tr '\n' ' '))"
if [ -z "$stats" ]; then
	goal "samples lost" "FAIL: no STATS record in the capture"
elif [ "$lost_total" -eq 0 ]; then
	goal "samples lost" "PASS: 0 of $samples"
else
	goal "samples lost" "FAIL: $lost_total of $((samples + lost_total)) (goal 0)"
fi
if [ -z "$rss_base" ] || [ "$rss_base_t" -ge "$rss_end_t" ]; then
	goal "RSS flat" "SKIP: no reading after the first minute (--duration over 65 s)"
else
	goal "RSS flat" "$(awk -v a="$rss_base" -v b="$rss_end" -v ta="$rss_base_t" -v tb="$rss_end_t" 'BEGIN {
		g = (b - a) * 100 / a
		printf "%s: %.1f MiB at %d s, %.1f MiB at %d s: %+.1f %% (goal <= 10 %%)",
			g <= 10 ? "PASS" : "FAIL", a / 1024, ta, b / 1024, tb, g }')"
fi
if [ "$fd_max" -le 1024 ] && [ "$died" = no ] && [ "$fds_after" -le $((fds_before + 16)) ]; then
	verdict=PASS
else
	verdict=FAIL
fi
goal "descriptors bounded" "$verdict: $fds_before before the load, at most $fd_max (goal <= 1024), $fds_after after it (goal <= $((fds_before + 16)))"
exit "$status"
