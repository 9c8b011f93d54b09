#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# NSpid: the workload runs as pid 1 of a pid namespace of its own
# (`unshare -p -f --mount-proc`), with a second thread, while perfrecd
# samples the machine; one more workload starts in the namespace before
# the capture, so that the snapshot's records are exercised as well as
# those of a new task.  The samples view shows each of its samples with
# the host's pid/tid and, as "(ns P/T)", the ones /proc/PID/status's
# NSpid gives inside; the pprof profile labels them ns_pid, ns_tid.
# (That a process without NSPID records shows none is test-units'.)
test_name=test-report-nspid
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"
unshare -p -f --mount-proc true 2>/dev/null || skip "cannot make a pid namespace here"

# The workload under `unshare -p -f` is the child of unshare: its host pid.
child_of() {
	# proc files have no size: read it
	wait_for "grep -q . /proc/$1/task/$1/children" 10 || fail "unshare ($1) started no process"
	# "PID " without a newline
	child=$(cat /proc/"$1"/task/"$1"/children)
	echo "${child%% *}"
}
# "host-tid ns-tid" of each thread of PID, from NSpid.
ns_ids() {
	for task in /proc/"$1"/task/*; do
		awk -v tid="${task##*/}" '$1 == "NSpid:" { print tid, $NF }' "$task/status"
	done
}

out=$work/out
check "a workload in a pid namespace before the capture (the snapshot's), one started during it (a new task's)"
unshare -p -f --mount-proc "$workload" --seconds 4 --threads 2 >/dev/null &
early_unshare=$!
at_exit "kill -KILL $early_unshare 2>/dev/null; wait $early_unshare 2>/dev/null"
early=$(child_of "$early_unshare")
wait_for "[ \$(ls /proc/$early/task | wc -l) -eq 2 ]" 10 || fail "the early workload has no second thread"
ns_ids "$early" >"$work/early.ids"
start_daemon "$out" -a -e cpu-clock -F 499 -d 60
unshare -p -f --mount-proc "$workload" --seconds 3 --threads 2 >/dev/null &
late_unshare=$!
at_exit "kill -KILL $late_unshare 2>/dev/null; wait $late_unshare 2>/dev/null"
late=$(child_of "$late_unshare")
wait_for "[ \$(ls /proc/$late/task | wc -l) -eq 2 ]" 10 || fail "the late workload has no second thread"
ns_ids "$late" >"$work/late.ids"
wait "$late_unshare" || fail "the late workload exited with status $?"
wait "$early_unshare" || fail "the early workload exited with status $?"
kill -INT "$daemon_pid"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
note "early workload: host pid $early, tids/ns tids $(tr '\n' ' ' <"$work/early.ids")"
note "late workload: host pid $late, tids/ns tids $(tr '\n' ' ' <"$work/late.ids")"

check "the samples view: every sample of the two shows its ids in the namespace, as NSpid gives them"
report_ok "$work/samples" --view=samples "$out"
for which in early late; do
	eval "pid=\$$which"
	ns_pid=$(awk -v pid="$pid" '$1 == pid { print $2 }' "$work/$which.ids")
	[ -n "$ns_pid" ] || fail "no NSpid of $which's main thread"
	awk -v pid="$pid" -v ns_pid="$ns_pid" -v ids="$work/$which.ids" '
	BEGIN {
		while ((getline line < ids) > 0) { split(line, f, " "); ns[f[1]] = f[2] }
		ns["4294967295"] = "4294967295"
	}
	/^[^\t]/ && $2 ~ "^" pid "/" {
		split($2, host, "/")
		# The kernel gives tid -1 to a sample of a thread that is exiting
		# (perf_event_tid() once the task is no longer pid_alive): its
		# ns tid is as unknown, the ns pid of its process is not.
		if (host[2] == "4294967295") dead++; else n++
		want = "(ns " ns_pid "/" ns[host[2]] ")"
		if ($3 " " $4 != want) { print "sample " $0 ": expected " want; bad++ }
	}
	END {
		if (!n) { print "no samples of pid " pid; exit 1 }
		printf "%d samples (and %d of exiting threads, tid -1)\n", n, dead
		exit bad > 0
	}' "$work/samples" >"$work/$which.check" || fail "$which: $(head -n 3 "$work/$which.check")"
	note "$which (pid $pid, ns pid $ns_pid): $(tail -n 1 "$work/$which.check") with their namespace ids"
done

check "the JSON flat view by pid and tid: the late workload's threads with their namespace ids"
report_ok "$work/late.json" --json --sort pid,tid --pid "$late" "$out"
echo "4294967295 4294967295" >>"$work/late.ids"
grep '^{"comm"' "$work/late.json" | sed 's/.*"tid":\([0-9]*\),"ns_pid":\([0-9]*\),"ns_tid":\([0-9]*\),.*/\1 \3 \2/' |
	sort >"$work/late.json.ids"
while read -r tid ns_tid ns_pid; do
	want=$(awk -v tid="$tid" '$1 == tid { print $2 }' "$work/late.ids")
	main=$(awk -v pid="$late" '$1 == pid { print $2 }' "$work/late.ids")
	[ "$ns_tid" = "$want" ] && [ "$ns_pid" = "$main" ] ||
		fail "JSON: tid $tid as $ns_pid/$ns_tid in its namespace, NSpid says $main/$want"
done <"$work/late.json.ids"
[ -s "$work/late.json.ids" ] && ! grep -q '"' "$work/late.json.ids" ||
	fail "JSON: entries of pid $late without their namespace ids: $(head -n 2 "$work/late.json.ids")"
note "JSON: $(wc -l <"$work/late.json.ids") threads of pid $late (tid -1 counted as one) with their namespace ids"

proto_dir=/usr/share/gocode/src/github.com/google/pprof/proto
if command -v protoc >/dev/null 2>&1 && [ -f "$proto_dir/profile.proto" ]; then
	check "pprof: the late workload's samples labelled ns_pid $(awk -v pid="$late" '$1 == pid { print $2 }' "$work/late.ids")"
	report_ok "$work/profile.pb.gz" --format=pprof --pid "$late" "$out"
	gzip -dc "$work/profile.pb.gz" | protoc --decode=perftools.profiles.Profile \
		-I"$proto_dir" profile.proto >"$work/profile.txt" || fail "protoc cannot decode the profile"
	ns_pid=$(awk -v pid="$late" '$1 == pid { print $2 }' "$work/late.ids")
	# Twice: the string table comes after the samples.
	awk -v want="$ns_pid" '
	NR == FNR { if (/^string_table: /) { s = substr($0, 15); gsub(/"/, "", s); str[n++] = s }; next }
	/^sample \{/ { samples++ }
	/^    key: / { split($0, f, ": "); key = str[f[2]] }
	/^    num: / && key == "ns_pid" { split($0, f, ": "); if (f[2] == want) good++; else bad++ }
	END { printf "%d samples, %d with ns_pid %s, %d other\n", samples, good, want, bad; exit !(good == samples && samples > 0 && !bad) }' \
		"$work/profile.txt" "$work/profile.txt" >"$work/pprof.check" || fail "pprof: $(cat "$work/pprof.check")"
	note "pprof: $(cat "$work/pprof.check")"
fi
exit 0
