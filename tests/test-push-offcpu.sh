#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrec-push and off-CPU records, against tests/push-receiver.py on
# 127.0.0.1, with tests/offcpu-fixture's capture (blocks and CPU samples
# of known stacks and durations: 9 blocks, 50 ms in all, 35 cpu-clock
# samples by period 1 ms) and the same capture without its blocks
# (--no-off-cpu), each sent with --once --interval 1; every profile
# decoded with protoc (profile.proto of Debian's pprof source):
#   - beside each series' CPU profile, an off-CPU profile for each series
#     that blocked, in a request of its own: sample types samples/count and
#     off_cpu/nanoseconds, period type off_cpu/nanoseconds (so that
#     Pyroscope keeps its series apart from the CPU one's), no sampleRate,
#     sample_type_config naming off_cpu in nanoseconds;
#   - the off-CPU profiles add up to the fixture's 50 ms and 9 blocks, and
#     each series' to perfrec-report --json --profile=off-cpu of its
#     process; the CPU profiles to its 35 samples;
#   - the CPU requests are those of the capture without blocks: the same
#     query, form and decoded profile, but the file's span;
#   - a block counts in the interval it ended in (it is recorded then):
#     the fixture's pipe waits made 2 s long (--scale-pipe 400) are in the
#     second 2 s after they began;
#   - the state names the off-CPU profiles apart ("NAME off_cpu"): a
#     server that fails after a series' CPU profile was taken gets its
#     off-CPU profile at the next run, and every other once;
#   - a second --once sends nothing.
test_name=test-push-offcpu
needs_root=no
. "${top_srcdir:-$(dirname "$0")/..}/tests/push-lib.sh"

offcpu_fixture=$top_builddir/tests/offcpu-fixture
needs_built "$offcpu_fixture"
proto_dir=/usr/share/gocode/src/github.com/google/pprof/proto
command -v protoc >/dev/null 2>&1 || skip "no protoc (apt-get install protobuf-compiler)"
[ -f "$proto_dir/profile.proto" ] ||
	skip "no $proto_dir/profile.proto (apt-get install golang-github-google-pprof-dev)"

# The fixture maps its own executable: at the same place in both runs
# without address randomization (setarch -R), or the addresses of the
# profiles are left out of their comparison.
norandom= addresses=same
if setarch "$(uname -m)" -R true 2>/dev/null; then
	norandom="setarch $(uname -m) -R"
else
	addresses=differ
	note "no setarch -R here: the CPU requests are compared without their addresses"
fi
file=perfrec-fixture-20231114T221320Z-0001.prf
mkdir "$work/off" "$work/cpu"
$norandom "$offcpu_fixture" "$work/off/$file" || fail "offcpu-fixture: status $?"
$norandom "$offcpu_fixture" --no-off-cpu "$work/cpu/$file" ||
	fail "offcpu-fixture --no-off-cpu: status $?"

# send NAME: the capture in $work/NAME sent --once into $work/rx-NAME.
send() {
	mkdir -p "$work/rx-$1"
	start_receiver "$work/rx-$1"
	timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 -v \
		--state "$work/state-$1" "$work/$1" 2>"$work/push-$1.err" ||
		fail "perfrec-push --once $1: status $? ($(tail -n 3 "$work/push-$1.err"))"
}
send off
send cpu

# Each request: its query, form and profile decoded, as one JSON line.
decode_all() {
	for json in "$1"/*.json; do
		base=${json%.json}
		gzip -dc "$base.profile" >"$base.raw" || fail "$base.profile is not gzip"
		protoc --decode=perftools.profiles.Profile -I"$proto_dir" profile.proto \
			<"$base.raw" >"$base.txt" 2>"$work/protoc.err" ||
			{ cat "$work/protoc.err" >&2; fail "protoc cannot decode $base.profile"; }
	done
	python3 - "$top_srcdir/tests/pprof-check.py" "$1" "$addresses" <<'EOF'
import glob, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("pprof_check", sys.argv[1])
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
for path in sorted(glob.glob(sys.argv[2] + "/*.json")):
    r = json.load(open(path))
    base = path[:-5]
    text = open(base + ".txt").read()
    p = check.parse(text.splitlines())
    strings = [check.text_bytes(s).decode() for s in p.get("string_table", [])]
    name = lambda t: strings[check.number(t, "type")] + "/" + strings[check.number(t, "unit")]
    types = [name(t) for t in p.get("sample_type", [])]
    sums = [0] * len(types)
    for s in p.get("sample", []):
        for i, v in enumerate(s.get("value", [])):
            sums[i] += int(v)
    # The profile but its span, which is the file's (and its addresses
    # where they are random).
    skip = ("time_nanos:", "duration_nanos:") + \
        (("memory_start:", "memory_limit:", "address:") if sys.argv[3] == "differ" else ())
    body = "\n".join(l for l in text.splitlines() if not l.strip().startswith(skip))
    print(json.dumps({
        "name": r["query"]["name"][0], "from": r["query"]["from"][0],
        "until": r["query"]["until"][0], "rate": r["query"].get("sampleRate", [None])[0],
        "query": sorted(r["query"].keys()), "status": r["status"],
        "config": json.load(open(base + ".sample_type_config")),
        "types": types, "period_type": [name(t) for t in p.get("period_type", [])],
        "sums": sums, "body": body,
    }, sort_keys=True))
EOF
}
decode_all "$work/rx-off" >"$work/off.requests" || fail "cannot read the off-CPU capture's requests"
decode_all "$work/rx-cpu" >"$work/cpu.requests" || fail "cannot read the CPU capture's requests"

check "beside the CPU profiles, an off-CPU profile per series that blocked, a request of its own"
python3 - "$work/off.requests" "$work/cpu.requests" >"$work/series" <<'EOF' ||
import json, sys
off = [json.loads(l) for l in open(sys.argv[1])]
cpu = [json.loads(l) for l in open(sys.argv[2])]
assert all(r["status"] == 200 for r in off + cpu), "a request not taken"
blocks = [r for r in off if "off_cpu/nanoseconds" in r["types"]]
samples = [r for r in off if "off_cpu/nanoseconds" not in r["types"]]
assert blocks, "no off-CPU profile sent"
for r in blocks:
    assert r["types"] == ["samples/count", "off_cpu/nanoseconds"], r["types"]
    assert r["period_type"] == ["off_cpu/nanoseconds"], r["period_type"]
    assert r["rate"] is None, "an off-CPU profile with a sampleRate: %s" % r["rate"]
    assert r["config"]["off_cpu"]["units"] == "nanoseconds", r["config"]
for r in samples:
    assert r["types"] == ["samples/count", "cpu/nanoseconds"], r["types"]
    assert "off_cpu" not in r["config"], r["config"]
# What the fixture wrote: 9 blocks, 50 ms; 35 samples of 1 ms.
assert sum(r["sums"][0] for r in blocks) == 9, [r["sums"] for r in blocks]
assert sum(r["sums"][1] for r in blocks) == 50000000, [r["sums"] for r in blocks]
assert sum(r["sums"][0] for r in samples) == 35, [r["sums"] for r in samples]
# Without its blocks, the capture sends the same CPU requests.
strip = lambda r: {k: v for k, v in r.items() if k != "status"}
assert sorted(map(json.dumps, map(strip, samples))) == sorted(map(json.dumps, map(strip, cpu))), \
    "the CPU requests differ from those of the capture without blocks"
# SERIES{host=H,unit=U} or {...,comm=C}: "unit U" or "comm C".
for r in blocks:
    key, value = r["name"].rstrip("}").rsplit(",", 1)[1].split("=")
    print("%s %s\t%s\t%d\t%d" % (key, value, r["from"], r["sums"][0], r["sums"][1]))
EOF
	fail "the requests are not as expected"
note "off-CPU profiles (series, from, blocks, ns): $(tr '\t\n' ' ;' <"$work/series")"

check "each series' off-CPU profiles add up to perfrec-report --profile=off-cpu of its unit or process"
cut -f 1 "$work/series" | sort -u >"$work/series-names"
while read -r key value; do
	report_ok "$work/series.json" --json --profile=off-cpu "--$key" "$value" "$work/off/$file"
	want=$(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["total_samples"], r["total_period"])' "$work/series.json")
	got=$(awk -F '\t' -v s="$key $value" '$1 == s { b += $3; t += $4 } END { print b, t }' "$work/series")
	[ "$got" = "$want" ] || fail "$key $value: pushed $got (blocks, ns), perfrec-report --$key says $want"
	note "$key $value: $got"
done <"$work/series-names"

check "the state names the off-CPU profiles apart: sent after its CPU one was, before a failure"
# The first off-CPU request of the run above sent after the CPU one of
# its series and interval, and how many requests came before it.
before=$(python3 - "$work/off.requests" <<'EOF'
import json, sys
seen = set()
for i, line in enumerate(open(sys.argv[1])):
    r = json.loads(line)
    if "off_cpu/nanoseconds" not in r["types"]:
        seen.add((r["name"], r["from"]))
    elif (r["name"], r["from"]) in seen:
        print(i)
        break
EOF
)
total=$(wc -l <"$work/off.requests")
[ -n "$before" ] || fail "no off-CPU request after the CPU one of its series"
mkdir "$work/rx-cut"
start_receiver "$work/rx-cut"
echo "first $before" >"$work/rx-cut/mode"
status=0
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 --max-backoff 1 \
	--state "$work/state-cut" "$work/off" 2>"$work/push-cut.err" || status=$?
[ "$status" -eq 1 ] || fail "--once against a failing server: status $status"
grep -q "	[^	]*}$" "$work/state-cut" || fail "no CPU profile in the state: $(cat "$work/state-cut")"
# The off-CPU profiles sent before are in it, each apart from its CPU one.
[ "$(grep -c " off_cpu$" "$work/state-cut")" -eq \
	"$(head -n "$before" "$work/off.requests" | grep -c 'off_cpu/nanoseconds')" ] ||
	fail "the state does not hold the off-CPU profiles sent: $(cat "$work/state-cut")"
mkdir "$work/rx-rest"
start_receiver "$work/rx-rest"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state-cut" "$work/off" 2>"$work/push-rest.err" ||
	fail "--once after the failure: status $?"
rest=$(ls "$work/rx-rest/"*.json | wc -l)
note "$before of $total profiles sent before the server failed, $rest after"
[ "$rest" -eq $((total - before)) ] ||
	fail "after the failure, $rest profiles sent, not the $((total - before)) left"
decode_all "$work/rx-rest" >"$work/rest.requests"
head -n 1 "$work/rest.requests" | grep -q "off_cpu/nanoseconds" ||
	fail "the first profile sent after the failure is not the off-CPU one"

check "a block counts in the interval it ended in: 2 s pipe blocks switched out at 1000.04 s"
mkdir "$work/long"
"$offcpu_fixture" --scale-pipe 400 "$work/long/$file" || fail "offcpu-fixture --scale-pipe: status $?"
mkdir "$work/rx-long"
start_receiver "$work/rx-long"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state-long" "$work/long" 2>"$work/push-long.err" ||
	fail "perfrec-push --once of the long blocks: status $?"
decode_all "$work/rx-long" >"$work/long.requests"
# The fixture's clock is its realtime: the sleeps and the lock waits end
# in second 1000, the two pipe waits (4 s) in second 1002.
# Thread app's series (its unit, or its name): the one of 5 blocks above.
app_series=$(awk -F '\t' '$3 == 5 { split($1, s, " "); print s[2]; exit }' "$work/series")
[ -n "$app_series" ] || fail "no series of thread app's 5 blocks: $(cat "$work/series")"
python3 - "$work/long.requests" "$app_series" >"$work/long.series" <<'EOF' || fail "the long blocks are not where they ended"
import json, sys
app = sys.argv[2]
blocks = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "off_cpu/nanoseconds" in r["types"]:
        key = (r["name"].rstrip("}").rsplit("=", 1)[1], r["from"])
        blocks[key] = (r["sums"][0], r["sums"][1])
want = {(app, "1000"): (3, 30000000), (app, "1002"): (2, 4000000000),
        ("worker", "1000"): (4, 10000000)}
assert blocks == want, blocks
print(blocks)
EOF
note "off-CPU profiles by series and second: $(cat "$work/long.series")"

check "a second --once sends nothing; -v says what was sent"
mkdir "$work/rx-again"
start_receiver "$work/rx-again"
timeout 60 "$push" --url "http://127.0.0.1:$port" --once --interval 1 \
	--state "$work/state-off" "$work/off" 2>"$work/push-again.err" ||
	fail "second --once: status $?"
[ -z "$(ls "$work/rx-again/"*.json 2>/dev/null)" ] || fail "the second --once sent again"
grep -q "sent .* off-CPU from" "$work/push-off.err" || fail "-v does not say an off-CPU profile was sent"
note "PASS"
