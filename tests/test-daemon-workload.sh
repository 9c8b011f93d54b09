#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# perfrecd samples the whole machine while tests/workload runs (two threads
# and a forked child), and its file holds what a profile of the workload
# needs: samples on every CPU; the workload's COMM, FORK and EXIT; an MMAP2
# of its binary with the build-id eu-readelf reads; sample IPs in its text,
# mostly in burn_hot; and frame-pointer callchains through its main.
test_name=test-daemon-workload
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

out=$work/out
records=$work/records

check "perfrecd -d 4 -F 499 runs while the workload does, and exits 0"
start_daemon "$out" -d 4 -F 499
start_workload --seconds 3 --threads 2 --fork
pid=$workload_pid
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
[ "$(file_count "$out")" -eq 1 ] || fail "$(file_count "$out") files, expected 1"
file=$(files_in "$out")

check "the file is complete and sound"
"$dump" --summary "$file" >"$work/summary" 2>"$work/summary.err" ||
	fail "perfrec-dump --summary: status $? ($(cat "$work/summary.err"))"
grep -q '^complete: *yes' "$work/summary" || fail "not complete: $(cat "$work/summary")"
"$dump" "$file" >"$records" || fail "perfrec-dump: status $?"

check "samples on every online CPU ($(online_cpus | tr '\n' ' ')), at least 100 on each"
for cpu in $(online_cpus); do
	n=$(grep -c " SAMPLE .* cpu=$cpu " "$records" || true)
	note "cpu$cpu: $n samples"
	[ "$n" -ge 100 ] || fail "only $n samples on CPU $cpu"
done

check "COMM comm=workload (exec) for pid $pid"
grep -qE " COMM .* pid=$pid tid=$pid exec=1 comm=workload\$" "$records" ||
	fail "no COMM exec=1 comm=workload for pid $pid"

check "FORK of pid $pid, of its second thread and of its child; EXIT of each"
grep -qE " FORK .* pid=$pid ppid=[0-9]+ tid=$pid " "$records" ||
	fail "no FORK creating pid $pid"
grep -E " FORK .* pid=$pid ppid=$pid tid=[0-9]+ " "$records" | grep -vq " tid=$pid " ||
	fail "no FORK of a thread of pid $pid"
child=$(sed -n "s/.* FORK .* pid=\\([0-9]*\\) ppid=$pid tid=\\([0-9]*\\) .*/\\1 \\2/p" "$records" |
	awk -v pid="$pid" '$1 != pid && $1 == $2 { print $1; exit }')
[ -n "$child" ] || fail "no FORK of a child process of pid $pid"
note "the forked child is pid $child"
grep -qE " EXIT .* pid=$child ppid=$pid tid=$child " "$records" ||
	fail "no EXIT of the child $child"
grep -qE " EXIT .* pid=$pid ppid=[0-9]+ tid=$pid " "$records" ||
	fail "no EXIT of pid $pid"

check "an executable MMAP2 of $workload for pid $pid"
mapping=$(grep -E " MMAP2 .* pid=$pid .* prot=r-x .* filename=$workload\$" "$records" | head -n 1)
[ -n "$mapping" ] || fail "no r-x MMAP2 of $workload for pid $pid"
note "$mapping"

expected=$(elf_build_id "$workload")
[ -n "$expected" ] || fail "eu-readelf -n $workload shows no Build ID"
check "its build-id is $expected, as eu-readelf -n says"
build_id=$(echo "$mapping" | sed -n 's/.* build_id=\([0-9a-f]*\) .*/\1/p')
if [ -z "$build_id" ]; then
	# The kernel could not give it: perfrecd adds a BUILD_ID record.
	inode=$(echo "$mapping" | sed -n 's/.* ino=\([0-9]*\) .*/\1/p')
	build_id=$(grep -E " BUILD_ID .* ino=$inode .* path=$workload\$" "$records" |
		sed -n 's/.* build_id=\([0-9a-f]*\) .*/\1/p' | head -n 1)
	note "no build-id in the MMAP2 (inode $inode); BUILD_ID record: ${build_id:-none}"
fi
[ "$build_id" = "$expected" ] || fail "build-id ${build_id:-none}, eu-readelf says $expected"

# Symbols as file offsets: a sample's offset in the file is ip - start +
# pgoff, a symbol's is its address - (p_vaddr - p_offset) of the R E LOAD.
delta=$(readelf -lW "$workload" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $3, $2; exit }')
[ -n "$delta" ] || fail "no executable LOAD segment in $workload"
range() {
	r=$(symbol_range "$workload" "$1")
	[ -n "$r" ] || fail "nm -S: no $1 in $workload"
	echo "$r"
}
main_range=$(range main)
hot_range=$(range burn_hot)
warm_range=$(range burn_warm)
cold_range=$(range burn_cold)

# One line of counts over the samples of the workload process: user-mode
# samples, how many in its mapping and in each burn_*, the main thread's
# samples after its exec and how many of their callchains pass through main.
exec_time=$(grep -E " COMM .* pid=$pid tid=$pid exec=1 comm=workload\$" "$records" |
	sed -n 's/.* time=\([0-9.]*\) .*/\1/p' | head -n 1)
counts=$(awk -v pid="$pid" -v exec_time="$exec_time" -v mapping="$mapping" \
	-v delta="$delta" -v main_r="$main_range" -v hot_r="$hot_range" \
	-v warm_r="$warm_range" -v cold_r="$cold_range" "$awk_hex"'
function set_range(name, text,    part) {
	split(text, part, " ")
	lo[name] = hex(part[1]) - seg_vaddr + seg_offset
	hi[name] = lo[name] + hex(part[2])
}
function offset(ip) {
	ip = hex(ip)
	if (ip < map_start || ip >= map_end)
		return -1
	return ip - map_start + map_pgoff
}
function within(name, off) {
	return off >= lo[name] && off < hi[name]
}
BEGIN {
	$0 = mapping
	map_start = hex(field("start"))
	map_end = map_start + hex(field("len"))
	map_pgoff = hex(field("pgoff"))
	split(delta, d, " ")
	seg_vaddr = hex(d[1]); seg_offset = hex(d[2])
	set_range("main", main_r); set_range("hot", hot_r)
	set_range("warm", warm_r); set_range("cold", cold_r)
}
$3 == "SAMPLE" && field("pid") == pid && field("time") + 0 > exec_time + 0 {
	if (field("mode") == "user") {
		user++
		off = offset(field("ip"))
		if (off >= 0) text++
		if (within("hot", off)) hot++
		if (within("warm", off)) warm++
		if (within("cold", off)) cold++
	}
	if (field("tid") != pid)
		next
	thread++
	chain = field("callchain")
	gsub(/[][]/, "", chain)
	n = split(chain, frames, ",")
	for (i = 1; i <= n; i++)
		if (within("main", offset(frames[i]))) {
			through_main++
			break
		}
}
END { printf "%d %d %d %d %d %d %d\n", user, text, hot, warm, cold, thread, through_main }
' "$records")
set -- $counts
user=$1 text=$2 hot=$3 warm=$4 cold=$5 thread=$6 through_main=$7
note "user-mode samples of pid $pid: $user; in its text: $text; burn_hot $hot, burn_warm $warm, burn_cold $cold"
note "main thread samples: $thread, with main in the callchain: $through_main"

# 2 threads for 3 s at 499 Hz make up to 3000, but other tests share the
# CPUs: 100 are enough for the proportions below to be clear.
check "at least 100 user-mode samples of the workload"
[ "$user" -ge 100 ] || fail "only $user user-mode samples of pid $pid"
check "at least 80% of its user-mode sample IPs are in its text"
[ $((text * 100)) -ge $((user * 80)) ] || fail "only $text of $user user IPs in $workload's text"
check "burn_hot has at least 40% of them (it takes 60% of the CPU time), more than burn_warm, which has more than burn_cold"
[ $((hot * 100)) -ge $((user * 40)) ] || fail "burn_hot has only $hot of $user user samples"
[ "$hot" -gt "$warm" ] && [ "$warm" -gt "$cold" ] && [ "$cold" -gt 0 ] ||
	fail "expected burn_hot ($hot) > burn_warm ($warm) > burn_cold ($cold) > 0"
check "at least 80% of the main thread's callchains pass through main"
[ "$thread" -ge 50 ] || fail "only $thread samples of the main thread"
[ $((through_main * 100)) -ge $((thread * 80)) ] ||
	fail "only $through_main of $thread callchains of the main thread contain main"
note "PASS"
