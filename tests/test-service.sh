#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd.service under a real systemd: a minimal Debian root, made once
# with debootstrap and cached, booted with systemd-nspawn on an overlay
# (the cache is never written), with the tree just built installed into
# it (make install DESTDIR=, and the libraries its binaries need that the
# root lacks, libasan's included).  systemctl and journalctl run inside
# through nsenter; perfrec-dump reads the container's files from here.
#
# What it checks, in order:
#  - start: active only once READY=1 came, which is once the events are
#    open and the first file's snapshot is written; StatusText; the start
#    line in the journal at priority info;
#  - /var/lib/perfrec 0750, files 0600;
#  - reload starts a new file, and the unit is active again; stop leaves
#    every file complete and sound;
#  - SIGKILL: restarted after RestartSec= (5 s), earlier files readable;
#  - /var/lib/perfrec removed from outside the unit: perfrecd says so and
#    exits 1, and systemd starts it again with the directory made again
#    (StateDirectory=): files go there;
#    SIGSTOP: killed by the watchdog and restarted (WatchdogSec=4s in a
#    drop-in, where the unit has 30 s, to keep the test short);
#  - a bad key in the configuration: exit status 2, said at priority err,
#    and no restart;
#  - systemd-analyze security in the booted system: no worse than offline;
#  - each capability of CapabilityBoundingSet= taken away in turn
#    (CapabilityBoundingSet=~CAP_X, AmbientCapabilities= without it), with
#    what it is for shown failing: a capability no case here needs fails
#    the test (CAP_BPF: off-cpu = yes fails to start without it; when the
#    build or the container cannot record off-CPU at all, that case is
#    said and not counted).
#
# The cache: $PERFREC_TEST_ROOT if set (CI sets it, so that its runs share
# one), else tests/service-root in the build tree (`make distclean`
# removes it).  A root is used only once its stamp says it is complete and
# made by the same recipe.  Needs root, systemd-nspawn and, for the first
# run, debootstrap and a Debian mirror; skipped (77) without them, or where
# perf_event_open cannot be used inside the container.
test_name=test-service
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

offcpu_read=$top_builddir/tests/offcpu-read
needs_built "$offcpu_read"
command -v systemd-nspawn >/dev/null 2>&1 || skip "no systemd-nspawn (Debian: systemd-container)"
command -v nsenter >/dev/null 2>&1 || skip "no nsenter (util-linux)"

seconds() { awk '{ printf "%.1f", $1 }' /proc/uptime; }
test_start=$(seconds)

# ---- the root ----------------------------------------------------------------

# The host's suite and mirror: binaries built here run there.
suite=${PERFREC_TEST_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
[ -n "$suite" ] || skip "no VERSION_CODENAME in /etc/os-release: which Debian suite to bootstrap? (PERFREC_TEST_SUITE)"

host_mirror() {
	for file in /etc/apt/sources.list.d/*.sources; do
		[ -f "$file" ] || continue
		# deb822: the URIs of the first stanza of type deb whose Suites name ours.
		awk -v suite="$suite" '
			function flush() { if (deb && has && uri != "") { print uri; found = 1; exit } deb = has = 0; uri = "" }
			/^[ \t]*$/ { flush(); next }
			$1 == "Types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			$1 == "URIs:" { uri = $2 }
			$1 == "Suites:" { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
			END { if (!found) flush() }' "$file"
	done
	for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$file" ] || continue
		sed -e 's/\[[^]]*\]//' "$file" | awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2 }'
	done
}
mirror=${PERFREC_TEST_MIRROR:-$(host_mirror | head -n 1)}

cache=${PERFREC_TEST_ROOT:-$(cd "$top_builddir" && pwd)/tests/service-root}
root=$cache/root
packages=systemd,systemd-sysv,dbus
recipe="debootstrap --variant=minbase --include=$packages $suite"

mkdir -p "$cache"
# One maker at a time; the others wait for its root.
exec 7>>"$cache/.lock"
flock -w 900 7 || fail "$cache is locked by another run for 15 minutes"
if [ -f "$cache/complete" ] && [ "$(cat "$cache/complete")" = "$recipe" ] && [ -x "$root/lib/systemd/systemd" ]; then
	note "reusing the root in $root ($recipe)"
else
	command -v debootstrap >/dev/null 2>&1 || skip "no debootstrap to make the root (apt-get install debootstrap)"
	[ -n "$mirror" ] || skip "no Debian mirror for $suite in /etc/apt (PERFREC_TEST_MIRROR)"
	rm -rf "$root" "$cache/root.new" "$cache/complete"
	check "$recipe from $mirror into $root"
	# dpkg's unpacking and syncs slow every daemon's flushes down: the
	# tests that sample wait meanwhile (tests/lib.sh's lock, if held).
	[ ! -e "/proc/$$/fd/8" ] || hold_cpus_exclusively
	started=$(seconds)
	status=0
	timeout 900 debootstrap --variant=minbase --include="$packages" "$suite" "$cache/root.new" "$mirror" \
		>"$cache/debootstrap.log" 2>&1 || status=$?
	[ ! -e "/proc/$$/fd/8" ] || flock -s 8
	if [ "$status" -ne 0 ]; then
		tail -n 20 "$cache/debootstrap.log"
		rm -rf "$cache/root.new"
		skip "debootstrap failed (status $status; no mirror reachable?): the log is $cache/debootstrap.log"
	fi
	mv "$cache/root.new" "$root"
	echo "$recipe" >"$cache/complete"
	note "debootstrap took $(awk -v a="$started" -v b="$(seconds)" 'BEGIN { printf "%.0f", b - a }') s"
fi
# Shared from here on: a maker waits until no run uses the root.
flock -s 7

# The rest of the test, whatever hangs (the shell's TERM trap cleans up).
(
	sleep 300 &
	sleeper=$!
	trap 'kill $sleeper; exit 0' TERM
	wait $sleeper && kill -TERM $$
) >/dev/null 2>&1 &
alarm_pid=$!
at_exit "kill $alarm_pid 2>/dev/null"

# ---- what is installed -------------------------------------------------------

dest=$work/dest
check "make install DESTDIR=$dest"
# A make of its own: the one running the tests passes no jobserver here.
(cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" install DESTDIR="$dest") \
	>"$work/install.log" 2>&1 || { tail -n 30 "$work/install.log"; fail "make install failed"; }
unit_file=$(find "$dest" -name perfrecd.service -type f | head -n 1)
conf_file=$(find "$dest" -path '*/perfrec/perfrecd.conf' -type f | head -n 1)
[ -n "$unit_file" ] && [ -n "$conf_file" ] || fail "make install installed no perfrecd.service or perfrecd.conf"
unit_path=${unit_file#"$dest"}
conf_path=${conf_file#"$dest"}
daemon_path=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit_file")
[ -x "$dest$daemon_path" ] || fail "the unit's ExecStart=$daemon_path is not what make install installed"
note "installed $daemon_path, $unit_path, $conf_path"
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit_file")
[ -n "$unit_caps" ] || fail "the unit has no CapabilityBoundingSet="

# ---- the container -----------------------------------------------------------

machine=perfrec-test-$$
upper=$work/upper
mkdir "$upper"
nspawn_timeout=
leader=
leader_ns=

stop_container() {
	[ -n "$nspawn_timeout" ] || return 0
	# timeout passes TERM on to systemd-nspawn, which shuts the container
	# down, and kills it 30 s later if it has not finished.
	kill -TERM "$nspawn_timeout" 2>/dev/null
	wait "$nspawn_timeout" 2>/dev/null
	nspawn_timeout=
	if [ -n "$leader" ] && [ "$(readlink "/proc/$leader/ns/pid" 2>/dev/null)" = "$leader_ns" ]; then
		note "the container's init outlived systemd-nspawn: killing its PID namespace"
		kill -KILL "$leader" 2>/dev/null
	fi
	rm -rf --one-file-system "/run/systemd/nspawn/propagate/$machine" 2>/dev/null
	leader=
}
at_exit stop_container

# The capabilities the unit keeps, which nspawn's default set partly lacks
# (CAP_PERFMON, CAP_SYSLOG, CAP_BPF ...), and perf_event_open and bpf, which nspawn's
# system call filter refuses: the container's settings, not the unit's.
nspawn_caps=$(echo $unit_caps | tr ' ' ,)
check "systemd-nspawn --boot --capability=$nspawn_caps --system-call-filter=\"perf_event_open bpf\""
boot_start=$(seconds)
timeout -k 30 600 systemd-nspawn --quiet --boot --register=no --keep-unit \
	--machine="$machine" --directory="$root" --overlay="+/:$upper:/" \
	--private-network --capability="$nspawn_caps" --system-call-filter="perf_event_open bpf" \
	--console=pipe </dev/null >"$work/boot.log" 2>&1 &
nspawn_timeout=$!

# The container's init: the child of systemd-nspawn that is pid 1 of its namespace.
find_leader() {
	for nspawn in $(cat /proc/"$nspawn_timeout"/task/*/children 2>/dev/null); do
		for child in $(cat /proc/"$nspawn"/task/*/children 2>/dev/null); do
			if [ "$(awk '$1 == "NSpid:" { print $NF }' "/proc/$child/status" 2>/dev/null)" = 1 ]; then
				leader=$child
				return 0
			fi
		done
	done
	return 1
}
if ! wait_for 'find_leader || ! kill -0 $nspawn_timeout 2>/dev/null' 30 || [ -z "$leader" ]; then
	cat "$work/boot.log"
	skip "systemd-nspawn could not start a container here"
fi
leader_ns=$(readlink "/proc/$leader/ns/pid")
ct=/proc/$leader/root

# in_ct CMD...: CMD in the container's namespaces, within $ct_limit seconds.
ct_limit=60
in_ct() {
	timeout -k 5 "$ct_limit" nsenter --target "$leader" --all "$@"
}
ctl() {
	in_ct systemctl --no-pager "$@"
}
# show PROPERTY [UNIT]: its value.
show() {
	ctl show -p "$1" --value "${2:-perfrecd.service}"
}

wait_for '[ -S "$ct/run/systemd/private" ]' 30 || { cat "$work/boot.log"; fail "the container's systemd did not come up in 30 s"; }
state=$(in_ct systemctl is-system-running --wait 2>&1) || true
note "booted in $(awk -v a="$boot_start" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }') s: $state"
case $state in
running) ;;
degraded) ctl --failed ;;
*) cat "$work/boot.log"; fail "the container's systemd is $state" ;;
esac

# ---- perfrecd into the container ---------------------------------------------

check "the installed tree, and the libraries it needs that the root lacks"
# Through the container's root: its directory links (/lib -> usr/lib) are kept.
tar -C "$dest" -cf - . | tar -C "$ct/" --keep-directory-symlink --no-overwrite-dir -xf - ||
	fail "copying the installed tree into the container"
for program in "$dest$daemon_path"; do
	ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
	[ -e "$ct$lib" ] && continue
	note "  $lib"
	mkdir -p "$ct$(dirname "$lib")" && cp -L "$lib" "$ct$lib" || exit 1
done || fail "copying the libraries into the container"
ctl daemon-reload
# A prefix outside systemd's unit path (make distcheck's) is linked in.
if [ "$(show LoadState)" != loaded ]; then
	ctl link "$unit_path" || fail "systemctl link $unit_path"
fi
[ "$(show LoadState)" = loaded ] || { ctl status perfrecd; fail "perfrecd.service does not load"; }
note "$(show FragmentPath)"

# A prefix under /tmp or /var/tmp (make distcheck's in a tree there) is
# hidden by the unit's PrivateTmp=yes: the prefix (its sbin/ and etc/) is
# bound into the unit's namespace, read-only, and nothing else changes.
case $daemon_path in
/tmp/* | /var/tmp/*)
	prefix=$(dirname "$(dirname "$daemon_path")")
	mkdir -p "$ct/etc/systemd/system/perfrecd.service.d"
	printf '[Service]\nBindReadOnlyPaths=%s\n' "$prefix" \
		>"$ct/etc/systemd/system/perfrecd.service.d/10-prefix.conf"
	ctl daemon-reload
	note "installed under a temporary directory: $prefix bound in a drop-in"
	;;
esac

# Sanitized builds: LeakSanitizer stops the world with ptrace(), which the
# unit's system call filter refuses; the leak checks run in the other tests.
if ldd "$dest$daemon_path" | grep -q libasan; then
	mkdir -p "$ct/etc/systemd/system/perfrecd.service.d"
	printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' \
		>"$ct/etc/systemd/system/perfrecd.service.d/10-asan.conf"
	ctl daemon-reload
	note "built with AddressSanitizer: detect_leaks=0 in a drop-in"
fi

check "perf_event_open inside the container (perfrecd -d 1 as a plain transient service)"
status=0
in_ct systemd-run --quiet --wait --pipe --collect --unit=perfrec-probe \
	"$daemon_path" --config /dev/null -d 1 -o /run/perfrec-probe >"$work/probe.log" 2>&1 || status=$?
cat "$work/probe.log"
if [ "$status" -ne 0 ]; then
	grep -q 'perf_event_open' "$work/probe.log" &&
		skip "perf_event_open is refused inside the container (status $status)"
	fail "perfrecd -d 1 in the container: status $status"
fi

# off-cpu = yes is what CAP_BPF is for: the capability runs below ask for it
# when this perfrecd was built with it and the container lets it load.
offcpu=yes
status=0
in_ct systemd-run --quiet --wait --pipe --collect --unit=perfrec-probe \
	"$daemon_path" --config /dev/null --off-cpu -d 1 -o /run/perfrec-probe >"$work/probe.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
	offcpu=no
	note "off-CPU recording does not run here, CAP_BPF is not exercised: $(grep -- --off-cpu "$work/probe.log" | head -n 1)"
fi

# ---- start -------------------------------------------------------------------

# The file perfrecd is writing, as its last STATUS= said (from the first
# flush on), with the container's root before it.
current_file() {
	current=$(show StatusText)
	case $current in
	*"; writing /"*) echo "$ct${current##*; writing }" ;;
	*) return 1 ;;
	esac
}

state_dir=$ct/var/lib/perfrec
# The container's monotonic clock is ours (no time namespace): the file's
# times and systemd's timestamps compare directly.
check "systemctl start perfrecd: active once READY=1 came, after the events were open and the snapshot written"
ctl start perfrecd || { ctl status perfrecd; fail "systemctl start perfrecd failed"; }
status_text=$(show StatusText)
pid=$(show MainPID)
[ "$(show ActiveState)" = active ] || fail "perfrecd is $(show ActiveState) after systemctl start"
# systemctl start has returned: the events are open now, not later.
cpus=$(online_cpus | wc -l)
perf_fds=$(in_ct ls -l "/proc/$pid/fd" | grep -c 'perf_event' || true)
note "main pid $pid (in the container), $perf_fds perf events open on $cpus CPUs"
[ "$perf_fds" -ge "$cpus" ] || fail "$perf_fds perf events open when systemctl start returned, fewer than the $cpus CPUs"
first=$(files_in "$state_dir" | tail -n 1)
[ -n "$first" ] || fail "no file in /var/lib/perfrec when systemctl start returned"
wait_flushed "$first"
"$dump" "$first" >"$work/first.records" 2>/dev/null || true
snapshot_end=$(sed -n 's/.* SNAPSHOT_END time=\([0-9.]*\) .*/\1/p' "$work/first.records")
active_at=$(show ActiveEnterTimestampMonotonic)
note "snapshot written at $snapshot_end, the unit active at $(awk -v t="$active_at" 'BEGIN { printf "%.6f", t / 1e6 }')"
[ -n "$snapshot_end" ] || fail "$first has no SNAPSHOT_END"
awk -v s="$snapshot_end" -v a="$active_at" 'BEGIN { exit !(a > 0 && s <= a / 1e6) }' ||
	fail "the unit was active ($active_at us) before the snapshot was written ($snapshot_end s)"

check "StatusText: the samples, the lost, the file being written"
note "  at READY=1: $status_text"
wait_for 'show StatusText | grep -qE "^[1-9][0-9]* samples, [0-9]+ lost; writing /var/lib/perfrec/perfrec-"' 10 ||
	fail "StatusText is '$(show StatusText)'"
status_text=$(show StatusText)
note "  then: $status_text"
[ -f "$ct${status_text##*writing }" ] || fail "StatusText names ${status_text##*writing }, which is no file"

check "the journal: the start line at priority info (6), no '<N>' prefix left in a message"
journal() {
	in_ct journalctl --no-pager -q -o cat "$@"
}
wait_for 'journal _PID="$pid" -p 6..6 | grep -q "^sampling .* on [0-9]* CPUs into /var/lib/perfrec$"' 10 || {
	in_ct journalctl --no-pager -o short-monotonic _PID="$pid"
	fail "no 'sampling ... into /var/lib/perfrec' line at priority info"
}
note "  $(journal _PID="$pid" -p 6..6 | grep '^sampling ')"
! journal _PID="$pid" | grep -q '^<[0-9]>' || fail "a line kept its priority prefix"

check "/var/lib/perfrec: mode 0750; the files: 0600"
[ "$(stat -c %a "$state_dir")" = 750 ] || fail "/var/lib/perfrec has mode $(stat -c %a "$state_dir")"
for file in $(files_in "$state_dir"); do
	[ "$(stat -c %a "$file")" = 600 ] || fail "$(basename "$file") has mode $(stat -c %a "$file")"
done

# ---- reload, stop ------------------------------------------------------------

check "systemctl reload perfrecd: a new file, and the unit active again"
before=$(file_count "$state_dir")
ctl reload perfrecd || { ctl status perfrecd; fail "systemctl reload perfrecd failed"; }
wait_for '[ "$(file_count "$state_dir")" -gt "$before" ]' 10 ||
	fail "$(file_count "$state_dir") files after the reload, as before"
wait_for '[ "$(show ActiveState)" = active ]' 10 || fail "perfrecd is $(show ActiveState) after the reload"
[ "$(show MainPID)" = "$pid" ] || fail "the reload restarted perfrecd"
note "  $before file(s), then $(file_count "$state_dir"); $(journal _PID="$pid" | grep SIGHUP | tail -n 1)"

check "systemctl stop perfrecd: status 0, every file complete and sound"
ctl stop perfrecd || fail "systemctl stop perfrecd failed"
[ "$(show Result)" = success ] && [ "$(show ExecMainStatus)" = 0 ] ||
	fail "stopped with Result=$(show Result), status $(show ExecMainStatus)"
for file in $(files_in "$state_dir"); do
	"$dump" --summary "$file" >"$work/summary" 2>&1 || { cat "$work/summary"; fail "perfrec-dump $(basename "$file"): status $?"; }
done
note "  $(file_count "$state_dir") files, perfrec-dump status 0 on each"

# ---- failures ----------------------------------------------------------------

# CLOCK_MONOTONIC, as systemd's *TimestampMonotonic (in microseconds).
now() {
	"$notify_listen" --now
}
# Whether systemd has restarted perfrecd since $restarts and $pid were
# read, and the new one is up.  Each value is read once: a failed read
# must not pass for a new pid.
restarted() {
	[ "$(show NRestarts)" -gt "$restarts" ] 2>/dev/null || return 1
	new_pid=$(show MainPID)
	[ "$new_pid" -gt 0 ] 2>/dev/null && [ "$new_pid" != "$pid" ] || return 1
	[ "$(show ActiveState)" = active ]
}
restart_sec=$(show RestartUSec)
[ "$restart_sec" = 5s ] || fail "RestartSec is $restart_sec, not the 5 s this test expects"

check "systemctl kill -s KILL perfrecd: restarted after 5 s (RestartSec), the earlier files still read"
ctl start perfrecd || fail "systemctl start perfrecd failed"
pid=$(show MainPID)
wait_for 'current_file >/dev/null' 10 || fail "StatusText names no file: $(show StatusText)"
killed=$(current_file)
wait_flushed "$killed"
restarts=$(show NRestarts)
kill_time=$(now)
ctl kill -s KILL perfrecd
wait_for 'restarted' 20 ||
	fail "not active again 20 s after SIGKILL: $(show ActiveState)/$(show SubState)"
delay=$(awk -v k="$kill_time" -v a="$(show ActiveEnterTimestampMonotonic)" 'BEGIN { printf "%.2f", a / 1e6 - k }')
note "  active again $delay s after the kill, pid $(show MainPID); NRestarts $restarts -> $(show NRestarts)"
awk -v d="$delay" 'BEGIN { exit !(d >= 4.9 && d <= 10) }' || fail "restarted $delay s after the kill, not 5 s (+ up to 5 s)"
[ "$(show NRestarts)" -eq $((restarts + 1)) ] || fail "NRestarts is $(show NRestarts), not $((restarts + 1))"
wait_for 'current_file >/dev/null' 10 || fail "StatusText names no file: $(show StatusText)"
for file in $(files_in "$state_dir"); do
	[ "$file" = "$(current_file)" ] && continue
	status=0
	"$dump" --summary "$file" >"$work/summary" 2>&1 || status=$?
	if [ "$file" = "$killed" ]; then
		[ "$status" -eq 1 ] && grep -q 'damaged_chunks=0 .*verdict=incomplete' "$work/summary" ||
			{ cat "$work/summary"; fail "the file SIGKILL cut short: perfrec-dump status $status"; }
		note "  $(basename "$file"), cut short: $(grep -E '^(records|integrity):' "$work/summary" | tr -s ' ' | tr '\n' ' ')"
	else
		[ "$status" -eq 0 ] || { cat "$work/summary"; fail "$(basename "$file"): perfrec-dump status $status"; }
	fi
done

check "rm -rf /var/lib/perfrec: perfrecd says so and stops (status 1); systemd starts it again 5 s later, with the directory made again"
wait_for 'current_file >/dev/null' 10 || fail "StatusText names no file: $(show StatusText)"
pid=$(show MainPID)
restarts=$(show NRestarts)
since=$(in_ct date '+%Y-%m-%d %H:%M:%S.%N' | cut -c1-23)
gone_time=$(now)
# As an admin would, from outside the unit's namespace; again while perfrecd makes a file in it.
tries=50
until in_ct rm -rf /var/lib/perfrec 2>/dev/null; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "cannot remove /var/lib/perfrec"
done
wait_for 'restarted' 40 ||
	fail "not active again 40 s after /var/lib/perfrec went: $(show ActiveState)/$(show SubState)"
delay=$(awk -v k="$gone_time" -v a="$(show ActiveEnterTimestampMonotonic)" 'BEGIN { printf "%.2f", a / 1e6 - k }')
journal -u perfrecd --since="$since" >"$work/gone.log" || true
sed 's/^/  /' "$work/gone.log" | grep -E 'output directory|status=|Scheduled restart' | head -n 5
grep -q "output directory /var/lib/perfrec was removed.*stopping" "$work/gone.log" || fail "perfrecd did not say it stops"
grep -q "status=1/FAILURE" "$work/gone.log" || fail "perfrecd did not exit with status 1"
note "  active again $delay s after the directory went"
[ -d "$state_dir" ] && [ "$(stat -c %a "$state_dir")" = 750 ] || fail "/var/lib/perfrec not made again (mode 0750)"
wait_for 'current_file >/dev/null' 10 || fail "StatusText names no file: $(show StatusText)"
[ -f "$(current_file)" ] || fail "the new perfrecd writes no file in /var/lib/perfrec"
note "  writing $(current_file | sed "s|^$ct||")"

watchdog=4
check "SIGSTOP: killed by the watchdog (WatchdogSec=${watchdog}s in a drop-in) and restarted"
dropins=$ct/etc/systemd/system/perfrecd.service.d
mkdir -p "$dropins"
# Stopped first: a daemon-reload applies the new limit to a running
# perfrecd, which keeps the pace the old one asked for.
ctl stop perfrecd
printf '[Service]\nWatchdogSec=%ss\n' "$watchdog" >"$dropins/50-watchdog.conf"
ctl daemon-reload
ctl start perfrecd || fail "systemctl start perfrecd failed"
[ "$(show WatchdogUSec)" = "${watchdog}s" ] || fail "WatchdogSec is $(show WatchdogUSec)"
pid=$(show MainPID)
restarts=$(show NRestarts)
since=$(in_ct date '+%Y-%m-%d %H:%M:%S.%N' | cut -c1-23)
stop_time=$(now)
last_ping=$(show WatchdogTimestampMonotonic)
ctl kill -s STOP perfrecd
wait_for 'restarted' 30 ||
	fail "not active again 30 s after SIGSTOP: $(show ActiveState)/$(show SubState)"
delay=$(awk -v k="$stop_time" -v a="$(show ActiveEnterTimestampMonotonic)" 'BEGIN { printf "%.2f", a / 1e6 - k }')
journal -u perfrecd --since="$since" | grep -E 'atchdog|ABRT' >"$work/watchdog.log" || true
note "  active again $delay s after SIGSTOP, $(awk -v k="$stop_time" -v p="$last_ping" 'BEGIN { printf "%.2f", k - p / 1e6 }') s after the last WATCHDOG=1; NRestarts $restarts -> $(show NRestarts)"
sed 's/^/  /' "$work/watchdog.log"
grep -q "Failed with result 'watchdog'" "$work/watchdog.log" || fail "the journal says no watchdog timeout"
# The limit runs from the last WATCHDOG=1, up to half of it before SIGSTOP.
awk -v d="$delay" -v w="$watchdog" 'BEGIN { exit !(d >= w / 2 + 4.9 && d <= w + 10) }' ||
	fail "restarted $delay s after SIGSTOP, not $((watchdog / 2)) to $watchdog s + 5 s (+ up to 5 s)"
[ "$(show NRestarts)" -eq $((restarts + 1)) ] || fail "NRestarts is $(show NRestarts), not $((restarts + 1))"
ctl stop perfrecd
rm "$dropins/50-watchdog.conf"
ctl daemon-reload

check "a bad key in $conf_path: exit status 2, said at priority err, and no restart"
cp "$ct$conf_path" "$work/perfrecd.conf"
printf 'no-such-key = 1\n' >>"$ct$conf_path"
ctl reset-failed perfrecd 2>/dev/null || true
! ctl start perfrecd 2>/dev/null || fail "systemctl start perfrecd succeeded with a bad key"
bad_pid=$(show ExecMainPID)
restarts=$(show NRestarts)
note "  $(show ActiveState), Result=$(show Result), status $(show ExecMainStatus), NRestarts $restarts"
[ "$(show ExecMainStatus)" = 2 ] || fail "exit status $(show ExecMainStatus), not 2"
line=$(wc -l <"$ct$conf_path")
wait_for 'journal _PID="$bad_pid" -p 3..3 | grep -q "$conf_path:$line: .*no-such-key"' 10 ||
	{ journal -u perfrecd | tail -n 5; fail "no error naming $conf_path:$line at priority err"; }
note "  $(journal _PID="$bad_pid" -p 3..3 | head -n 1)"
sleep 7
note "  7 s later (RestartSec=5s): $(show ActiveState), NRestarts $(show NRestarts)"
[ "$(show ActiveState)" = failed ] || fail "perfrecd is $(show ActiveState) 7 s after a configuration error"
[ "$(show NRestarts)" = 0 ] || fail "NRestarts is $(show NRestarts), not 0"
[ "$(show ExecMainPID)" = "$bad_pid" ] || fail "perfrecd was started again"
cp "$work/perfrecd.conf" "$ct$conf_path"
ctl reset-failed perfrecd

# ---- the sandbox -------------------------------------------------------------

check "systemd-analyze security perfrecd in the booted system: no worse than offline"
exposure() {
	sed -n 's/.*[Oo]verall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
online=$(in_ct systemd-analyze security --no-pager perfrecd.service 2>&1 | tee "$work/security.log" | exposure)
offline=$(in_ct systemd-analyze security --no-pager --offline=yes "$(show FragmentPath)" 2>&1 | exposure)
note "  exposure $online in the booted system, $offline offline"
[ -n "$online" ] && [ -n "$offline" ] || { cat "$work/security.log"; fail "no exposure level"; }
awk -v a="$online" -v b="$offline" 'BEGIN { exit !(a <= b) }' || {
	grep '✗' "$work/security.log"
	fail "exposure $online in the booted system, worse than $offline offline"
}

# ---- the capabilities --------------------------------------------------------

# Each capability of CapabilityBoundingSet= is taken away in turn, and what
# it is for must stop working; the same runs with all of them must work.
# Two processes of the user nobody, started before perfrecd, so that only
# its snapshot of /proc can see them:
#  - hidden: a binary only nobody may read (0700) in a directory only
#    nobody may search (0700): its build-id needs CAP_DAC_READ_SEARCH;
#  - deleted: a binary deleted once started: only /proc/PID/map_files/
#    opens it, and that needs CAP_CHECKPOINT_RESTORE;
#  - the maps of either need CAP_SYS_PTRACE (another user's process).
# The configuration asks for rings beyond what the kernel lets a process
# lock without CAP_IPC_LOCK (perf_event_mlock_kb on each CPU, then
# RLIMIT_MEMLOCK); kernel.perf_event_paranoid above 1 makes the kernel's
# symbol addresses need CAP_SYSLOG, and sampling CAP_PERFMON.
check "the capabilities: $unit_caps"
sleep_build_id=$(elf_build_id "$ct/usr/bin/sleep")
[ -n "$sleep_build_id" ] || fail "no build-id in the container's /usr/bin/sleep"
in_ct sh -ec '
	install -d -o nobody -g nogroup -m 0700 /srv/perfrec-hidden
	install -o nobody -g nogroup -m 0700 /usr/bin/sleep /srv/perfrec-hidden/sleeper
	install -m 0755 /usr/bin/sleep /srv/perfrec-deleted-sleeper
	systemd-run --quiet --unit=perfrec-hidden -p User=nobody /srv/perfrec-hidden/sleeper 600
	systemd-run --quiet --unit=perfrec-deleted -p User=nobody /srv/perfrec-deleted-sleeper 600
' || fail "starting the processes of nobody"
wait_for '[ "$(show ActiveState perfrec-hidden.service)" = active ] && [ "$(show ActiveState perfrec-deleted.service)" = active ]' 10 ||
	fail "the processes of nobody did not start"
hidden_pid=$(show MainPID perfrec-hidden.service)
deleted_pid=$(show MainPID perfrec-deleted.service)
in_ct rm /srv/perfrec-deleted-sleeper

memlock=$(show LimitMEMLOCK)
mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
page_size=$(getconf PAGESIZE)
[ "$memlock" != infinity ] || fail "LimitMEMLOCK is infinity: CAP_IPC_LOCK cannot be shown to matter here"
# The smallest power of two whose rings, on every CPU, pass both limits.
ring_pages=$(awk -v cpus="$cpus" -v kb="$mlock_kb" -v memlock="$memlock" -v page="$page_size" 'BEGIN {
	limit = kb * 1024 * cpus + memlock
	for (pages = 1; cpus * (pages + 1) * page <= limit; pages *= 2)
		;
	print pages
}')
note "  nobody's processes: hidden $hidden_pid, deleted $deleted_pid; ring-pages = $ring_pages" \
	"($cpus CPUs, perf_event_mlock_kb $mlock_kb, LimitMEMLOCK $memlock)"
printf 'ring-pages = %s\n' "$ring_pages" >"$ct$conf_path"
[ "$offcpu" = no ] || printf 'off-cpu = yes\n' >>"$ct$conf_path"

# run_without [CAP]: the unit started without CAP (or with all), then
# stopped; $started says whether it started, $run_file is its file, and
# $run_log the journal of the run.
run_without() {
	if [ -n "$1" ]; then
		others=$(echo $unit_caps | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
		printf '[Service]\nCapabilityBoundingSet=~%s\nAmbientCapabilities=\nAmbientCapabilities=%s\n' \
			"$1" "$others" >"$dropins/50-without.conf"
	else
		rm -f "$dropins/50-without.conf"
	fi
	ctl daemon-reload
	ctl reset-failed perfrecd 2>/dev/null || true
	run_file=
	started=yes
	run_since=$(in_ct date '+%Y-%m-%d %H:%M:%S.%N' | cut -c1-23)
	ctl start perfrecd 2>/dev/null || started=no
	if [ "$started" = yes ]; then
		run_pid=$(show MainPID)
		bounding=$(in_ct awk '$1 == "CapBnd:" { print $2 }' "/proc/$run_pid/status")
		wait_for 'current_file >/dev/null' 10 || fail "StatusText names no file: $(show StatusText)"
		run_file=$(current_file)
		wait_flushed "$run_file"
	fi
	# Also ends the restarts that a failed start would have.
	ctl stop perfrecd
	journal -u perfrecd --since="$run_since" >"$work/run.log" 2>&1 || true
	journal _SYSTEMD_UNIT=perfrecd.service --since="$run_since" -p err >"$work/run.err" 2>&1 || true
}

# What the file of a run shows; each prints what it found.
# With --kernel-symbols=hit (the default) the file has no KALLSYMS: the
# symbols its samples hit, and none when the addresses read as zero (a
# run of the idle machine always hits some: the idle task is in the kernel).
kallsyms_hidden() {
	"$dump" "$run_file" 2>/dev/null >"$work/run.dump" || true
	if grep -q ' KALLSYMS ' "$work/run.dump"; then
		grep ' KALLSYMS ' "$work/run.dump" | grep -q 'flags=[^ ]*hidden'
	else
		! grep -q ' KERNEL_SYMBOL ' "$work/run.dump"
	fi
}
maps_of() {
	"$dump" "$run_file" 2>/dev/null | grep -c " MMAP2 .* pid=$1 " || true
}
build_id_of() {
	"$dump" "$run_file" 2>/dev/null | grep " BUILD_ID .*path=\"*$1" |
		sed -n 's/.* build_id=\([0-9a-f]*\).*/\1/p' | head -n 1
}
# What the run lacks, as words: failed-start hidden-kallsyms hidden-maps
# deleted-maps hidden-build-id deleted-build-id.
lacks() {
	if [ "$started" = no ]; then
		echo failed-start
		return
	fi
	kallsyms_hidden && echo hidden-kallsyms
	[ "$(maps_of "$hidden_pid")" -gt 0 ] || echo hidden-maps
	[ "$(maps_of "$deleted_pid")" -gt 0 ] || echo deleted-maps
	[ "$(build_id_of /srv/perfrec-hidden/sleeper)" = "$sleep_build_id" ] || echo hidden-build-id
	[ "$(build_id_of /srv/perfrec-deleted-sleeper)" = "$sleep_build_id" ] || echo deleted-build-id
	[ "$offcpu" = no ] || [ "$("$offcpu_read" "$run_file" 2>/dev/null | grep -c '^off_cpu ')" -gt 0 ] ||
		echo off-cpu
}

# Since 2025 (Linux 6.18 here) CAP_PERFMON is enough to read the maps of
# another user's process (mm_access() with PTRACE_MODE_READ); map_files/
# and root/ still need CAP_SYS_PTRACE.
if in_ct setpriv --bounding-set=-all,+perfmon --inh-caps=-all cat "/proc/$hidden_pid/maps" >/dev/null 2>&1; then
	ptrace_lacks="deleted-build-id"
	note "  CAP_PERFMON alone reads another user's /proc/PID/maps on this kernel"
else
	ptrace_lacks="hidden-maps deleted-maps hidden-build-id deleted-build-id"
fi

run_without ""
found=$(lacks | tr '\n' ' ')
note "  with all of them: bounding set $bounding; lacks: ${found:-nothing}"
[ -z "$found" ] || { cat "$work/run.log"; fail "with every capability of the unit, the run lacks: $found"; }

for cap in $unit_caps; do
	why=
	case $cap in
	CAP_PERFMON) expected="failed-start" why="perf_event_open.*CAP_PERFMON" ;;
	CAP_IPC_LOCK) expected="failed-start" why="ring buffer" ;;
	CAP_SYSLOG) expected="hidden-kallsyms" ;;
	CAP_SYS_PTRACE) expected=$ptrace_lacks ;;
	# map_files/ of another user's process is a directory only its owner may search.
	CAP_DAC_READ_SEARCH) expected="hidden-build-id deleted-build-id" ;;
	CAP_CHECKPOINT_RESTORE) expected="deleted-build-id" ;;
	# Asked for off-CPU records, perfrecd cannot load its BPF program without it.
	CAP_BPF)
		if [ "$offcpu" = no ]; then
			note "  $cap: not shown: off-CPU recording does not run in this container or build"
			continue
		fi
		expected="failed-start" why="off-cpu.*CAP_BPF" ;;
	*) fail "no case in this test shows what $cap is for: show it, or take it out of the unit" ;;
	esac
	run_without "$cap"
	found=$(lacks | tr '\n' ' ')
	found=${found% }
	note "  without $cap: lacks ${found:-nothing}${started:+ (started: $started)}"
	sed 's/^/    /' "$work/run.err"
	[ "$found" = "$expected" ] || { cat "$work/run.log"; fail "without $cap, expected to lack '$expected', lacks '${found:-nothing}'"; }
	if [ "$started" = no ]; then
		grep -qE "$why" "$work/run.err" || fail "without $cap, perfrecd's error does not match '$why'"
	fi
done
rm -f "$dropins/50-without.conf"
cp "$work/perfrecd.conf" "$ct$conf_path"

note "PASS in $(awk -v a="$test_start" -v b="$(seconds)" 'BEGIN { printf "%.0f", b - a }') s"
