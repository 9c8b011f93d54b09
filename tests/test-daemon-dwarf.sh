#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --call-graph dwarf: samples of the workload carry its user registers
# (abi 64, perfrecd's mask) and a copy of its stack from the sampled SP,
# trimmed as perfrec-format(5) says: stack_user_size is dyn_size rounded
# up to 8, and for the main thread SP + dyn_size is where the kernel's
# copy stopped: the end of its [stack] mapping, or the first page above SP
# with nothing in it.  The kernel copies in interrupt context, without
# faulting pages in, and exec leaves a gap of up to 8 KiB (a random offset)
# between the strings at the top of the stack and auxv below them: when
# the gap holds a whole page the workload never touches, every copy of a
# run stops there (about one run in fifteen).  The test reads which pages
# of [stack] are in memory from /proc/PID/pagemap while the workload runs.  The user part of the kernel
# callchain is left out (exclude_callchain_user).  The stacks written add
# up to far less than SIZE per sample: what the trim saves.  Then the
# default SIZE and a small one, with perfrecd starting the COMMAND.
#
# cpu-clock counts the workload's CPU time, which a loaded CI machine
# shrinks: the sample counts asked for are minimums that still say the
# checks saw enough, not what an idle machine gives (ten times more).
test_name=test-daemon-dwarf
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

case $(uname -m) in
x86_64) mask=0xff01ff; regs=17; sp=7; ip=8 ;;
*) skip "the register checks know x86_64 only" ;;
esac
records=$work/records

# Checks the samples of pid $1 in $records against SIZE $2 and, given the
# end of the main thread's [stack] $3 and the file $4 of the addresses of
# its pages that are not in memory, that its copies stop at the first of
# those above SP, or at the end; prints
# "user_samples stack_bytes main_at_end main_samples main_stack_bytes".
check_samples() {
	awk -v pid="$1" -v size="$2" -v mask="$mask" -v nregs="$regs" \
	    -v sp="$sp" -v ip="$ip" -v stack_end="${3:-0}" -v absent="${4:-/dev/null}" "$awk_hex"'
		function bad(why) { print "sample at line " NR ": " why ": " $0 > "/dev/stderr"; failed = 1 }
		BEGIN { while ((getline line < absent) > 0) holes[++nholes] = line + 0 }
		# Where a copy from address s stops: the first hole above it, or the end.
		function stop(s,    i, best) {
			best = hex(stack_end)
			for (i = 1; i <= nholes; i++)
				if (holes[i] > s && holes[i] < best)
					best = holes[i]
			return best
		}
		$3 != "SAMPLE" || field("pid") != pid { next }
		{
			n++
			stack = field("stack_user_size") + 0
			dyn = field("stack_user_dyn_size")
			if (field("callchain") ~ /user/)
				bad("a user part in the kernel callchain")
			if (stack > size)
				bad("stack_user_size " stack " above " size)
			if (field("mode") != "user")
				next
			users++
			if (field("regs_user_abi") != "64" || field("regs_user_mask") != mask)
				bad("regs_user abi or mask")
			list = field("regs_user")
			gsub(/[][]/, "", list)
			count = split(list, entries, ",")
			if (count != nregs)
				bad(count " registers, not " nregs)
			for (i = 1; i <= count; i++) {
				split(entries[i], pair, ":")
				reg[pair[1]] = pair[2]
			}
			if (hex(reg[ip]) != hex(field("ip")))
				bad("the IP register is not the sample ip")
			if (dyn == "" || dyn + 0 <= 0)
				bad("no stack copied for a user-mode sample")
			want = int((dyn + 7) / 8) * 8
			if (stack != (want ? want : 8))
				bad("stack_user_size " stack " for dyn_size " dyn)
			bytes += stack
			if (field("tid") == pid && stack_end) {
				checked++
				main_bytes += stack
				if (hex(reg[sp]) + dyn == stop(hex(reg[sp])))
					at_end++
			}
		}
		END {
			if (failed)
				exit 1
			print users + 0, bytes + 0, at_end + 0, checked + 0, main_bytes + 0
		}' "$records"
}

# -- --pid, SIZE 32K ----------------------------------------------------------
# 32 KiB: more than the main thread's stack holds above SP (its frames,
# the environment, auxv and the kernel's random offset of under 8 KiB), so
# each of its copies stops at the end of [stack].  Other threads' copies
# often run on into the mapping above their stack and fill SIZE.
out=$work/out
size=32768
# A small environment, so that the stack above main is short.
env -i "$workload" --seconds 3 --threads 2 &
workload_pid=$!
wait_for '[ "$(cat /proc/$workload_pid/comm 2>/dev/null)" = workload ]' 10 ||
	fail "the workload did not start"
target=$workload_pid
stack=$(awk '$6 == "[stack]" { print $1 }' "/proc/$target/maps")
[ -n "$stack" ] || fail "no [stack] in /proc/$target/maps"
stack_start=0x${stack%-*}
stack_end=0x${stack#*-}
check "perfrecd --call-graph dwarf,32K --pid $target: exits 0 when it ends"
start_daemon "$out" -e cpu-clock -F 997 --call-graph dwarf,32K --pid "$target" -d 20
# The pages of [stack] not in memory (bit 63 of their pagemap entry clear),
# once main's frames are in place, as decimal addresses (mawk prints no
# hex past 32 bits).
page=$(getconf PAGESIZE)
dd if="/proc/$target/pagemap" bs=8 skip=$((stack_start / page)) \
	count=$(((stack_end - stack_start) / page)) 2>/dev/null | od -An -v -tx8 -w8 |
	awk -v start=$((stack_start / page)) -v page="$page" '
	$1 !~ /^[89a-f]/ { printf "%.0f\n", (start + NR - 1) * page }' >"$work/absent"
note "  pages of [stack] not in memory: $(wc -l <"$work/absent") (the highest: $(tail -n 1 "$work/absent"))"
wait_workload
[ "$workload_status" -eq 0 ] || fail "the workload exited with status $workload_status"
wait_for '! kill -0 $daemon_pid 2>/dev/null' 10 || fail "perfrecd still runs 10 s after the process exited"
wait_daemon
[ "$daemon_status" -eq 0 ] || fail "perfrecd exited with status $daemon_status"
file=$(files_in "$out")
"$dump" --summary "$file" >"$work/summary" || fail "perfrec-dump --summary $file: status $?: $(cat "$work/summary")"
grep -q 'malformed_records=0' "$work/summary" || fail "malformed records: $(cat "$work/summary")"
"$dump" "$file" >"$records" || fail "perfrec-dump $file: status $?"

check "the event asks for regs $mask, $size bytes of stack, no user callchain"
event=$(grep '^EVENT ' "$records")
for want in "REGS_USER" "STACK_USER" "CALLCHAIN" "sample_regs_user=$mask " "sample_stack_user=$size " "exclude_callchain_user"; do
	case $event in *"$want"*) ;; *) fail "the EVENT lacks $want: $event" ;; esac
done
grep -q "^META key=call-graph value=dwarf,$size\$" "$records" || fail "no META call-graph=dwarf,$size"

check "user-mode samples: abi 64, $regs registers, IP = ip, stack_user_size = align8(dyn_size) <= $size"
result=$(check_samples "$target" $size "$stack_end" "$work/absent") || fail "samples do not match (above)"
set -- $result
note "  $1 user-mode samples, $2 bytes of stack in all, $(($2 / $1)) a sample"
[ "$1" -ge 50 ] || fail "only $1 user-mode samples of the workload"
check "the main thread's copies run from SP to the end of [stack] ($stack_end) or the first page not in memory"
note "  main thread: $4 samples, SP + dyn_size = where the copy stops in $3, $5 bytes of stack"
[ "$4" -ge 20 ] || fail "only $4 user-mode samples of the main thread"
[ "$3" -eq "$4" ] || fail "SP + dyn_size is where the copy stops in only $3 of $4 samples"
check "the trim: the main thread's stacks take under half of $size bytes a sample"
[ $(($5 * 2)) -le $(($4 * size)) ] ||
	fail "$5 bytes of stack for $4 samples: $(($5 / $4)) a sample"
grep -q 'user stacks: .* after dropping unused stack' "$work/daemon.err" ||
	fail "no 'user stacks' line in the exit summary"

# -- a COMMAND, the default SIZE, and a small one ------------------------------
for value in dwarf dwarf,256; do
	out=$work/$value
	size=${value#dwarf,}
	[ "$size" != dwarf ] || size=8192
	check "perfrecd --call-graph $value -- workload: sample_stack_user=$size, stacks of at most $size bytes"
	"$perfrecd" -o "$out" -e cpu-clock -F 997 --call-graph "$value" -d 20 -- \
		env -i "$workload" --seconds 1 2>"$work/daemon.err" || fail "perfrecd: status $?"
	file=$(files_in "$out")
	"$dump" "$file" >"$records" || fail "perfrec-dump $file: status $?"
	grep -q "^EVENT .*sample_stack_user=$size " "$records" || fail "the EVENT does not ask for $size bytes"
	grep -q "^META key=call-graph value=dwarf,$size\$" "$records" || fail "no META call-graph=dwarf,$size"
	pid=$(awk '$3 == "SAMPLE" && / mode=user / { sub(/pid=/, "", $6); print $6; exit }' "$records")
	[ -n "$pid" ] || fail "no user-mode samples"
	result=$(check_samples "$pid" "$size") || fail "samples do not match (above)"
	set -- $result
	note "  $1 user-mode samples, $2 bytes of stack"
	[ "$1" -ge 20 ] || fail "only $1 user-mode samples"
done
note "PASS"
