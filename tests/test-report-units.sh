#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Units: two workloads run in two cgroup v2 groups named like systemd
# units, <cgroup2 mount>/perfrec-test-PID.slice/a-test.service and
# b-test.service (a subtree of the test's own, removed on every exit), a
# with one thread, b with two; perfrecd samples the whole machine
# (cpu-clock, so that a sample's period is CPU time).  Each workload
# prints its own CPU time (--print-shares: cpu_ns), so its share of all
# the CPU time sampled is known whatever else the machine runs:
#   - --sort unit gives a-test.service and b-test.service their shares
#     within 3 points (about 6000 samples: a share's standard error is
#     half a point);
#   - --unit a-test.service keeps a's samples only (its pid, as many as
#     --sort unit gave it); --cgroup PATH keeps the subtree's;
#   - --sort cgroup shows the paths, --view tree --sort unit starts from
#     the units, pprof labels each sample with its unit;
#   - --sort comm names every sample: pid 0 is "swapper" (as many samples
#     as perfrec-dump counts of pid 0), the workloads "workload", nothing
#     [unknown] (a task that ended between perfrecd's start and its
#     snapshot, whose name no record holds, is ":TID" as perf has it).
# Each workload moves itself into its group before it execs (a shell that
# writes its own pid to cgroup.procs), so no CPU time of it is outside;
# nothing but the test's own processes is moved.
test_name=test-report-units
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

# The cgroup2 mount from mountinfo: "... MOUNTPOINT ... - cgroup2 ...".
cgroup2=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)
[ -n "$cgroup2" ] || skip "no cgroup2 mount"
slice=$cgroup2/perfrec-test-$$.slice
mkdir "$slice" 2>/dev/null || skip "cannot make a cgroup in $cgroup2"
a_pid= b_pid=
# Ours only: the workloads if still running, then the groups (empty by then).
at_exit 'for p in $(cat "$work/a.pid" "$work/b.pid" 2>/dev/null) $a_pid $b_pid; do
	kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null
done
rmdir "$slice/a-test.service" "$slice/b-test.service" "$slice" 2>/dev/null'
mkdir "$slice/a-test.service" "$slice/b-test.service" || fail "cannot make the unit groups in $slice"
# A process of the test's, to see that moving works here.
sleep 30 &
probe=$!
moved=yes
echo "$probe" >"$slice/a-test.service/cgroup.procs" 2>/dev/null || moved=no
kill "$probe"
wait "$probe" 2>/dev/null || true
[ "$moved" = yes ] || skip "cannot move a process into $slice (cgroup v2 delegation)"

out=$work/out
in_group() {	# GROUP PIDFILE ARGS...: the workload, in the group from its start
	group=$1 pidfile=$2
	shift 2
	# shellcheck disable=SC2016
	$favour sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2" && shift 2 && exec "$@"' \
		sh "$group" "$pidfile" "$workload" "$@"
}

check "perfrecd -a -e cpu-clock -F 999; a-test.service runs 1 thread, b-test.service 2, for 3 s"
start_daemon "$out" -a -e cpu-clock -F 999 -d 60
wait_flushed "$(files_in "$out" | head -n 1)"
in_group "$slice/a-test.service" "$work/a.pid" --seconds 3 --threads 1 --print-shares >"$work/a.out" &
a_pid=$!
in_group "$slice/b-test.service" "$work/b.pid" --seconds 3 --threads 2 --print-shares >"$work/b.out" &
b_pid=$!
wait "$a_pid" || fail "workload a exited with status $?"
wait "$b_pid" || fail "workload b exited with status $?"
# The shells that exec'd the workloads: the workloads' pids.
a_workload=$(cat "$work/a.pid") b_workload=$(cat "$work/b.pid")
a_pid= b_pid=
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
a_ns=$(sed -n 's/^cpu_ns=//p' "$work/a.out")
b_ns=$(sed -n 's/^cpu_ns=//p' "$work/b.out")
[ -n "$a_ns" ] && [ -n "$b_ns" ] || fail "the workloads did not print their CPU time"

report_ok "$work/units.json" --sort unit --json "$out"
total=$(sed -n 's/^"total_period":\([0-9]*\),.*/\1/p' "$work/units.json")
[ "${total:-0}" -gt 0 ] || fail "no total_period in the JSON report"

check "--sort unit: each unit's share within 3 points of its CPU time over all the CPU time sampled"
report_ok "$work/units" --sort unit "$out"
unit_row() {	# FILE UNIT: "percent samples" of UNIT's row
	awk -v unit="$2" '!/^#/ && $3 == unit { sub(/%$/, "", $1); print $1, $2 }' "$1"
}
for unit in a b; do
	eval "ns=\$${unit}_ns"
	expected=$(awk -v ns="$ns" -v total="$total" 'BEGIN { printf "%.2f\n", ns * 100 / total }')
	row=$(unit_row "$work/units" "$unit-test.service")
	[ -n "$row" ] || fail "no $unit-test.service row in --sort unit: $(cat "$work/units")"
	got=${row% *}
	note "$unit-test.service: measured $expected % (cpu_ns $ns of $total ns sampled), report $got %"
	within "$got" "$expected" 3 ||
		fail "$unit-test.service at $got %, its CPU time is $expected % of the sampled"
done
a_samples=$(unit_row "$work/units" a-test.service)
a_samples=${a_samples#* }

check "--unit a-test.service: a's samples only, all of them"
report_ok "$work/only-a" --unit a-test.service --sort unit,pid "$out"
# The workload's pid, and tasks it started (ASan's leak checker's tracer).
awk -v n="$a_samples" -v pid="$a_workload" '
!/^#/ && NF { sum += $2; if ($3 != "a-test.service") other++; if ($4 == pid) seen = 1 }
END { exit !(sum == n && !other && seen) }' "$work/only-a" ||
	fail "--unit a-test.service: '$(awk '!/^#/ && NF' "$work/only-a" | tr '\n' ' ')', expected $a_samples samples of a-test.service, pid $a_workload among them"

check "--cgroup ${slice#"$cgroup2"}: the two units and nothing else; --sort cgroup shows their paths"
report_ok "$work/subtree" --cgroup "${slice#"$cgroup2"}" --sort cgroup "$out"
awk '!/^#/ && NF { print $3 }' "$work/subtree" | sort >"$work/subtree.paths"
printf '%s\n' "${slice#"$cgroup2"}/a-test.service" "${slice#"$cgroup2"}/b-test.service" |
	sort | cmp -s - "$work/subtree.paths" || fail "--cgroup: paths $(tr '\n' ' ' <"$work/subtree.paths")"

check "--view tree --sort unit: the first level is the units"
report_ok "$work/tree" --view tree --sort unit --percent-limit 0 "$out"
for unit in a-test.service b-test.service -.slice; do
	grep -Eq "^ *[0-9.]+% +[0-9.%]* *$unit\$" "$work/tree" || fail "no first-level node $unit in the tree"
done

check "--sort comm: pid 0 is swapper, as many samples as the files have of pid 0; the workloads are named"
report_ok "$work/comms" --sort comm,pid "$out"
idle=$("$dump" $(files_in "$out") | grep -c ' SAMPLE .* pid=0 tid=0 ' || true)
swapper=$(awk '!/^#/ && $3 == "swapper" && $4 == 0 { print $2 }' "$work/comms")
note "$idle samples of pid 0 in the files, ${swapper:-0} as swapper"
[ "${swapper:-0}" -eq "$idle" ] || fail "swapper has ${swapper:-no} samples, the files $idle of pid 0"
for pid in $a_workload $b_workload; do
	names=$(awk -v pid="$pid" '!/^#/ && $4 == pid { print $3 }' "$work/comms" | sort -u | tr '\n' ' ')
	# Before its exec the pid ran the test's shell, nice, sh: named so then.
	case " $names" in
	*" workload "*) ;;
	*) fail "pid $pid is named '$names', not workload" ;;
	esac
	case " $names" in
	*" :"*) fail "pid $pid has samples named by its tid alone: $names" ;;
	esac
done
grep -q '\[unknown\]' "$work/comms" && fail "samples without a name: $(grep '\[unknown\]' "$work/comms")"
nameless=$(awk '!/^#/ && $3 ~ /^:[0-9]+$/' "$work/comms" | wc -l)
note "$nameless tasks named by their tid alone (ended before the snapshot read them)"

proto_dir=/usr/share/gocode/src/github.com/google/pprof/proto
if command -v protoc >/dev/null 2>&1 && [ -f "$proto_dir/profile.proto" ]; then
	check "pprof: each sample labelled with its unit; a-test.service's as many as --sort unit"
	report_ok "$work/profile.pb.gz" --format=pprof "$out"
	gzip -dc "$work/profile.pb.gz" >"$work/profile.raw"
	protoc --decode=perftools.profiles.Profile -I"$proto_dir" profile.proto \
		<"$work/profile.raw" >"$work/profile.txt" || fail "protoc cannot decode the profile"
	# The string table's indexes, then each sample's first value by its unit label.
	labelled=$(awk '
	/^string_table: / { s = substr($0, 15); gsub(/"/, "", s); str[n++] = s; next }
	{ lines[++count] = $0 }
	END {
		for (i = 1; i <= count; i++) {
			line = lines[i]
			if (line ~ /^sample \{/) { value = -1; key = -1 }
			else if (line ~ /^  value: / && value < 0) { split(line, f, ": "); value = f[2] }
			else if (line ~ /^    key: /) { split(line, f, ": "); key = f[2] }
			else if (line ~ /^    str: / && str[key] == "unit") {
				split(line, f, ": ")
				if (str[f[2]] == "a-test.service")
					sum += value
			}
		}
		print sum + 0
	}' "$work/profile.txt")
	note "pprof: $labelled samples labelled unit=a-test.service"
	[ "$labelled" -eq "$a_samples" ] || fail "pprof: $labelled samples labelled a-test.service, --sort unit $a_samples"
else
	note "no protoc or profile.proto: the pprof labels are not checked"
fi
exit 0
