#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-push against a receiver on 127.0.0.1 (tests/push-receiver.py,
# python3's http.server): no real Pyroscope is packaged for Debian, so the
# receiver records each request (path, query, headers, the multipart
# form's profile and sample_type_config) and answers as its mode file
# says, and the checks are what Pyroscope's ingest API documents.
#
# One capture (perfrecd -F 999) of tests/workload and a copy of it named
# "busy", 2 s each at once, under sh, each in a cgroup v2 group of its own
# named like a systemd unit (a-test.service, b-test.service) where this
# machine lets the test make them.  A series is a unit where the capture
# has units (perfrec-report --sort unit), else a process name.  Then:
#   - --once --interval 1: a POST /ingest?name=S{host=H,unit=S} (or
#     comm=S) &from=&until=&format=pprof&sampleRate=999 per series and
#     second, none twice; H is the capture's host; from/until lie within
#     the capture's start and end (perfrec-report --json), whole seconds;
#     every profile parses with Go's pprof (built offline, as
#     test-report-pprof.sh does) and, per series, the totals of its
#     profiles (-sample_index=samples) are perfrec-report --unit's (or
#     --comm's) samples; sample_type_config is JSON naming cpu/nanoseconds;
#     a second --once with the same state sends nothing;
#   - the receiver down, perfrec-push following (--max-backoff 1), then
#     up on the same port: every profile arrives exactly once (by series
#     and from), the same set as above;
#   - a receiver that reads the request and never answers: each request
#     times out (--timeout 1) and is tried again; once it answers, every
#     profile arrives exactly once;
#   - 400 with a message (a profile refused): each profile tried once,
#     --once exits 1 naming the message, and a second --once sends nothing;
#   - a file deleted (perfrecd's retention) before it was sent is said;
#   - 401 with a message: --once exits 1 naming the status and the
#     message after one request; following, at most 2 requests in 3 s
#     (--max-backoff 4: no retry storm);
#   - credentials (bearer token, tenant; basic auth) from a 0600 file
#     reach the receiver as Authorization and X-Scope-OrgID, and appear
#     in no log line (-v), not in /proc/PID/cmdline nor /proc/PID/environ;
#     a group-readable or symlinked credentials file is refused, naming
#     why and not what it holds;
#   - the user or password in --url is refused.
# Every perfrec-push runs under timeout(1); the receivers are killed at exit.
test_name=test-push
. "${top_srcdir:-$(dirname "$0")/..}/tests/report-lib.sh"

push=$top_builddir/perfrec-push
[ -x "$push" ] || fail "$push not built"
command -v python3 >/dev/null 2>&1 || skip "no python3"
build_pprof
receiver_script=$top_srcdir/tests/push-receiver.py

# ---- the capture -----------------------------------------------------------
cp "$workload" "$work/busy"
# Two unit-like groups where cgroup v2 lets the test make and use them.
cgroup2=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)
a_group= b_group=
if [ -n "$cgroup2" ] && mkdir "$cgroup2/perfrec-push-test-$$.slice" 2>/dev/null; then
	slice=$cgroup2/perfrec-push-test-$$.slice
	at_exit 'rmdir "$slice/a-test.service" "$slice/b-test.service" "$slice" 2>/dev/null'
	if mkdir "$slice/a-test.service" "$slice/b-test.service" 2>/dev/null; then
		a_group=$slice/a-test.service/cgroup.procs
		b_group=$slice/b-test.service/cgroup.procs
	fi
fi
# Each workload moves itself into its group before it execs.
printf '#!/bin/sh\necho $$ >"$1" 2>/dev/null\nshift\nexec "$@"\n' >"$work/in-group"
chmod +x "$work/in-group"
capture "$work/cap" sh -c '"$1" "$2" "$4" --seconds 2 & "$1" "$3" "$5" --seconds 2; wait' sh \
	"$work/in-group" "${a_group:-/dev/null}" "${b_group:-/dev/null}" "$workload" "$work/busy"
# Units, where the capture has them: the series and their filter.
report_ok "$work/units.json" --json --sort unit --percent-limit 0 "$work/cap"
key=$(python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["entries"]; print("unit" if any(x.get("unit") for x in e) else "comm")' "$work/units.json")
note "series by $key"
report_ok "$work/header.json" --json "$work/cap"
python3 - "$work/header.json" >"$work/facts" <<'EOF'
import json, math, sys
h = json.load(open(sys.argv[1]))["header"]
start = (h["start_ns"] + h["realtime_offset_ns"]) / 1e9
end = (h["end_ns"] + h["realtime_offset_ns"]) / 1e9
print(h["hostname"], math.floor(start), math.ceil(end))
EOF
read -r host start end <"$work/facts"
note "capture of host $host from $start until $end"

# ---- the receiver ------------------------------------------------------------
receiver_pid=
start_receiver() {	# DIR [PORT]
	mkdir -p "$1"
	rm -f "$1/port"
	python3 "$receiver_script" --port "${2:-0}" "$1" 2>>"$work/receiver.err" &
	receiver_pid=$!
	wait_for "[ -s '$1/port' ]" 10 || fail "the receiver did not start"
	port=$(cat "$1/port")
}
stop_receiver() {
	[ -n "$receiver_pid" ] || return 0
	kill "$receiver_pid" 2>/dev/null || true
	wait "$receiver_pid" 2>/dev/null || true
	receiver_pid=
}
push_pid=
stop_push() {
	[ -n "$push_pid" ] || return 0
	kill "$push_pid" 2>/dev/null || true
	wait "$push_pid" 2>/dev/null || true
	push_pid=
}
at_exit 'stop_push; stop_receiver'

# "STATUS<TAB>NAME<TAB>FROM<TAB>UNTIL" of each request a receiver got.
requests() {
	python3 - "$1" <<'EOF'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    r = json.load(open(path))
    q = r["query"]
    print("%s\t%s\t%s\t%s" % (r["status"], q.get("name", ["?"])[0], q.get("from", ["?"])[0],
                              q.get("until", ["?"])[0]))
EOF
}
# Series and intervals the receiver took (200), each with how often.
taken() {
	requests "$1" | awk -F '\t' '$1 == 200 { print $2 "\t" $3 }' | sort | uniq -c |
		awk '{ print $1 "\t" $2 "\t" $3 }'
}
ok_count() {
	requests "$1" | awk -F '\t' '$1 == 200' | wc -l
}

# ---- --once: what is sent ---------------------------------------------------
start_receiver "$work/rx1"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state1" -v "$work/cap" 2>"$work/push1.err" ||
	fail "perfrec-push --once: status $? ($(tail -n 3 "$work/push1.err"))"
stop_receiver
check "one request per series and second, each well formed"
taken "$work/rx1" >"$work/taken1"
[ -s "$work/taken1" ] || fail "the receiver got nothing"
awk -F '\t' '$1 != 1 { exit 1 }' "$work/taken1" || fail "a profile sent twice: $(cat "$work/taken1")"
python3 - "$work/rx1" "$host" "$start" "$end" "$key" "$a_group" <<'EOF' || fail "the requests are not as /ingest takes them"
import glob, json, re, sys
directory, host, start, end, key = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
comms = set()
for path in glob.glob(directory + "/*.json"):
    r = json.load(open(path))
    q = {k: v[0] for k, v in r["query"].items()}
    assert r["method"] == "POST" and r["path"] == "/ingest", r
    assert q["format"] == "pprof" and q["sampleRate"] == "999", q
    m = re.fullmatch(r"([^{}]+)\{host=([^,}]+),%s=([^,}]+)\}" % key, q["name"])
    assert m, q["name"]
    assert m.group(2) == host, (m.group(2), host)
    assert m.group(1) == m.group(3), q["name"]
    comms.add(m.group(3))
    frm, until = int(q["from"]), int(q["until"])
    assert start <= frm < until <= end, (start, frm, until, end)
    assert until - frm == 1, q
    assert r["headers"]["Content-Type"].startswith("multipart/form-data"), r["headers"]
    base = path[:-5]
    config = json.load(open(base + ".sample_type_config"))
    assert config["cpu"]["units"] == "nanoseconds", config
    assert open(base + ".profile", "rb").read(2) == b"\x1f\x8b", "profile not gzipped"
want = {"a-test.service", "b-test.service"} if key == "unit" and sys.argv[6] else \
       set() if key == "unit" else {"workload", "busy"}
assert want <= comms, (want, comms)
EOF

check "each profile parses with pprof; per series its totals are perfrec-report's"
for profile in "$work"/rx1/*.profile; do
	name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["query"]["name"][0])' \
		"${profile%.profile}.json")
	comm=${name#*"$key="}
	comm=${comm%%[,\}]*}
	total=$("$pprof" -top -sample_index=samples -nodecount=1 "$profile" 2>"$work/pprof.err" |
		sed -n 's/.* of \([0-9][0-9]*\) total.*/\1/p' | head -n 1)
	[ -n "$total" ] || { cat "$work/pprof.err" >&2; fail "pprof cannot read $profile"; }
	printf '%s\t%s\n' "$comm" "$total"
done | awk -F '\t' '{ sum[$1] += $2 } END { for (c in sum) print c "\t" sum[c] }' |
	sort >"$work/pushed-totals"
: >"$work/report-totals"
for comm in $(cut -f 1 "$work/pushed-totals"); do
	report_ok "$work/comm.json" --json "--$key" "$comm" "$work/cap"
	printf '%s\t%s\n' "$comm" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["header"]["samples"])' \
			"$work/comm.json")" >>"$work/report-totals"
done
report_ok "$work/all.json" --json "$work/cap"
all=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["header"]["samples"])' "$work/all.json")
cmp -s "$work/pushed-totals" "$work/report-totals" ||
	fail "pushed totals $(tr '\n' ' ' <"$work/pushed-totals") != perfrec-report's $(tr '\n' ' ' <"$work/report-totals")"
[ "$(awk -F '\t' '{ s += $2 } END { print s }' "$work/pushed-totals")" -eq "$all" ] ||
	fail "the pushed totals do not add up to the capture's $all samples"
note "pushed per $key: $(tr '\n' ' ' <"$work/pushed-totals")"

check "a second --once with the same state sends nothing"
start_receiver "$work/rx1b"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state1" "$work/cap" 2>"$work/push1b.err" || fail "second --once: status $?"
stop_receiver
[ "$(ok_count "$work/rx1b")" -eq 0 ] || fail "the second --once sent again"

# ---- down, then up: exactly once ----------------------------------------------
check "the receiver down for a while, then up: every profile exactly once"
start_receiver "$work/rx2"
stop_receiver
timeout 60 "$push" --url "http://127.0.0.1:$port" --interval 1 --max-backoff 1 \
	--state "$work/state2" "$work/cap" 2>"$work/push2.err" &
push_pid=$!
sleep 3
grep -q 'trying again in' "$work/push2.err" || fail "no retry said: $(cat "$work/push2.err")"
start_receiver "$work/rx2" "$port"
expected=$(wc -l <"$work/taken1")
wait_for "[ \$(ok_count '$work/rx2') -ge $expected ]" 30 ||
	fail "after the receiver came back: $(ok_count "$work/rx2") of $expected profiles"
sleep 2
stop_push
stop_receiver
taken "$work/rx2" >"$work/taken2"
cmp -s "$work/taken1" "$work/taken2" || {
	diff "$work/taken1" "$work/taken2" | head >&2
	fail "after the outage, not every profile exactly once"
}

# ---- a receiver that never answers -----------------------------------------------
check "a receiver that never answers: timeouts, tries again, then exactly once"
start_receiver "$work/rx3"
echo hang >"$work/rx3/mode"
timeout 60 "$push" --url "http://127.0.0.1:$port" --interval 1 --max-backoff 1 --timeout 1 \
	--state "$work/state3" "$work/cap" 2>"$work/push3.err" &
push_pid=$!
wait_for "[ \$(requests '$work/rx3' | wc -l) -ge 2 ]" 15 ||
	fail "no second try after a timeout: $(cat "$work/push3.err")"
grep -qi 'timeout\|timed out' "$work/push3.err" || fail "the timeout is not said: $(cat "$work/push3.err")"
echo ok >"$work/rx3/mode"
wait_for "[ \$(ok_count '$work/rx3') -ge $expected ]" 30 ||
	fail "after the receiver answered again: $(ok_count "$work/rx3") of $expected profiles"
sleep 2
stop_push
stop_receiver
taken "$work/rx3" >"$work/taken3"
cmp -s "$work/taken1" "$work/taken3" || fail "after the timeouts, not every profile exactly once"

# ---- 400 -----------------------------------------------------------------------------
check "400 with a message: each profile refused once, said, never again"
start_receiver "$work/rx9"
echo 400 >"$work/rx9/mode"
status=0
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state9" "$work/cap" 2>"$work/push9.err" || status=$?
[ "$status" -eq 1 ] || fail "--once after 400s: status $status"
grep -q 'refused the profile of .*HTTP 400: profile too old: outside the ingestion window; it is not sent again' \
	"$work/push9.err" || fail "the 400's message is not said: $(head -n 3 "$work/push9.err")"
[ "$(requests "$work/rx9" | wc -l)" -eq "$(wc -l <"$work/taken1")" ] ||
	fail "400: $(requests "$work/rx9" | wc -l) requests for $(wc -l <"$work/taken1") profiles"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state9" "$work/cap" 2>"$work/push9b.err" || fail "after 400s, a second --once: status $?"
[ "$(requests "$work/rx9" | wc -l)" -eq "$(wc -l <"$work/taken1")" ] || fail "refused profiles were sent again"
stop_receiver

# ---- retention ------------------------------------------------------------------------
check "a file deleted before it was sent whole is said"
mkdir "$work/two"
cp "$capture_file" "$work/two/perfrec-a-0.prf"
cp "$capture_file" "$work/two/perfrec-a-1.prf"
timeout 60 "$push" --url "http://127.0.0.1:$port" --interval 1 --max-backoff 1 \
	--state "$work/state10" "$work/two" 2>"$work/push10.err" &
push_pid=$!
wait_for "grep -q 'trying again in' '$work/push10.err'" 10 || fail "no try: $(cat "$work/push10.err")"
rm "$work/two/perfrec-a-1.prf"
wait_for "grep -q 'perfrec-a-1.prf: deleted before it was sent whole' '$work/push10.err'" 10 ||
	fail "the deletion is not said: $(cat "$work/push10.err")"
stop_push

# ---- 401 ---------------------------------------------------------------------------
check "401 with a message: said, and no retry storm"
start_receiver "$work/rx4"
echo 401 >"$work/rx4/mode"
status=0
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state4" "$work/cap" 2>"$work/push4.err" || status=$?
[ "$status" -eq 1 ] || fail "--once after a 401: status $status"
grep -q 'HTTP 401: invalid credentials: token expired' "$work/push4.err" ||
	fail "the 401's message is not said: $(cat "$work/push4.err")"
[ "$(requests "$work/rx4" | wc -l)" -eq 1 ] || fail "--once sent more than one request after a 401"
timeout 60 "$push" --url "http://127.0.0.1:$port" --interval 1 --max-backoff 4 \
	--state "$work/state4" "$work/cap" 2>"$work/push4b.err" &
push_pid=$!
sleep 3
stop_push
n=$(requests "$work/rx4" | wc -l)
[ "$n" -ge 2 ] && [ "$n" -le 3 ] || fail "following after a 401: $((n - 1)) requests in 3 s"
[ ! -s "$work/state4" ] || ! grep -q '^done' "$work/state4" ||
	fail "a file refused with 401 is marked sent"
stop_receiver

# ---- credentials -----------------------------------------------------------------------
check "credentials from a 0600 file: sent, and in no log, argv or environment"
token=tok-$$-SECRETVALUE
tenant=tenant-$$
printf '# test\nbearer-token %s\ntenant %s\n' "$token" "$tenant" >"$work/credentials"
chmod 600 "$work/credentials"
start_receiver "$work/rx5"
timeout 60 "$push" --url "http://127.0.0.1:$port" --interval 1 --max-backoff 1 -v \
	--credentials "$work/credentials" --state "$work/state5" "$work/cap" 2>"$work/push5.err" &
push_pid=$!
wait_for "[ \$(ok_count '$work/rx5') -ge $expected ]" 30 || fail "with credentials: not all sent"
tr '\0' '\n' <"/proc/$push_pid/cmdline" >"$work/cmdline"
tr '\0' '\n' <"/proc/$push_pid/environ" >"$work/environ"
stop_push
stop_receiver
for f in cmdline environ push5.err; do
	! grep -q -e "$token" -e "SECRETVALUE" "$work/$f" || fail "the token is in $f"
done
python3 - "$work/rx5" "$token" "$tenant" <<'EOF' || fail "the credentials did not reach the receiver"
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*.json"):
    h = json.load(open(path))["headers"]
    assert h.get("Authorization") == "Bearer " + sys.argv[2], h
    assert h.get("X-Scope-OrgID") == sys.argv[3], h
EOF
printf 'basic-auth user1:pw-%s-SECRETVALUE\n' "$$" >"$work/basic"
chmod 600 "$work/basic"
start_receiver "$work/rx6"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--credentials "$work/basic" --state "$work/state6" "$work/cap" 2>"$work/push6.err" ||
	fail "basic auth: status $?"
stop_receiver
! grep -q SECRETVALUE "$work/push6.err" || fail "the password is in the log"
python3 - "$work/rx6" "user1:pw-$$-SECRETVALUE" <<'EOF' || fail "basic auth did not reach the receiver"
import base64, glob, json, sys
want = "Basic " + base64.b64encode(sys.argv[2].encode()).decode()
paths = glob.glob(sys.argv[1] + "/*.json")
assert paths
for path in paths:
    assert json.load(open(path))["headers"].get("Authorization") == want
EOF

check "a credentials file others may read, or a symlink, is refused; so is a password in --url"
chmod 640 "$work/credentials"
status=0
"$push" --url http://127.0.0.1:1 --once --credentials "$work/credentials" \
	--state "$work/state7" "$work/cap" 2>"$work/push7.err" || status=$?
[ "$status" -eq 2 ] && grep -q 'mode 640' "$work/push7.err" ||
	fail "group-readable credentials: status $status, $(cat "$work/push7.err")"
! grep -q SECRETVALUE "$work/push7.err" || fail "the refusal shows the secret"
chmod 600 "$work/credentials"
ln -s "$work/credentials" "$work/link"
status=0
"$push" --url http://127.0.0.1:1 --once --credentials "$work/link" \
	--state "$work/state7" "$work/cap" 2>"$work/push7.err" || status=$?
[ "$status" -eq 2 ] && grep -q 'symbolic link' "$work/push7.err" ||
	fail "symlinked credentials: status $status, $(cat "$work/push7.err")"
status=0
"$push" --url "http://user:pw@127.0.0.1:1" --once "$work/cap" 2>"$work/push8.err" || status=$?
[ "$status" -eq 2 ] && grep -q 'credentials FILE' "$work/push8.err" && ! grep -q 'pw@' "$work/push8.err" ||
	fail "a password in --url: status $status, $(cat "$work/push8.err")"
note PASS
