#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A JIT runtime, as small as can be, for test-daemon-jit: it maps
# anonymous executable memory (which makes perfrecd look for its perf
# map), puts there x86-64 loops it calls through ctypes, and describes
# them the way runtimes do.  Steps, in the order given:
#
#   plant-symlink TARGET   /tmp/perf-PID.map as a symlink to TARGET
#   plant-fifo             /tmp/perf-PID.map as a FIFO
#   plant-hardlink TARGET  /tmp/perf-PID.map as a hard link to TARGET
#   map N                  N more lines in /tmp/perf-PID.map: jitfake_N ...
#                          over the code memory, 64 bytes each (the first
#                          two are the loops: jitfake_hot, jitfake_cold)
#   rename NAME            one more line: the hot loop's 64 bytes as NAME
#   jitdump DIR            DIR/jit-PID.dump with code loads of the two
#                          loops (jitdump_hot, jitdump_cold), mapped
#                          PROT_EXEC as runtimes announce it
#   mmap                   the anonymous executable memory, now
#   burn SECONDS           calls the hot loop 3 times, the cold one once,
#                          until SECONDS have passed
#   sleep SECONDS
#   ready FILE             creates FILE (the test waits for it)
#   wait FILE              waits until FILE exists
#   unlink                 deletes /tmp/perf-PID.map
#
# Prints "pid PID" first.  Code memory is one page; the loops are at its
# offsets 0 and 64.
import ctypes
import mmap
import os
import struct
import sys
import time

pid = os.getpid()
map_path = "/tmp/perf-%d.map" % pid
page = mmap.PAGESIZE
code = None
code_address = 0
lines = 0
dump_mapping = None

# mov ecx, 200000; 1: dec ecx; jnz 1b; ret -- a loop of its own, no calls.
LOOP = bytes([0xB9]) + struct.pack("<I", 200000) + bytes([0xFF, 0xC9, 0x75, 0xFC, 0xC3])


def make_code():
    global code, code_address
    code = mmap.mmap(-1, page, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(LOOP.ljust(64, b"\xcc") + LOOP.ljust(64, b"\xcc"))
    code_address = ctypes.addressof(ctypes.c_char.from_buffer(code))


def append_map(count):
    global lines
    with open(map_path, "a") as f:
        for _ in range(count):
            name = {0: "jitfake_hot", 1: "jitfake_cold"}.get(lines, "jitfake_%d" % lines)
            f.write("%x %x %s\n" % (code_address + 64 * lines, 64, name))
            lines += 1


def jitdump(directory):
    path = os.path.join(directory, "jit-%d.dump" % pid)
    fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_RDWR, 0o600)
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    # magic, version, header size, elf_mach (x86-64), pad, pid, timestamp, flags
    os.write(fd, struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, pid, now, 0))
    for index, name in enumerate((b"jitdump_hot", b"jitdump_cold")):
        body = struct.pack("<IIQQQQ", pid, pid, code_address + 64 * index,
                           code_address + 64 * index, 64, index) + name + b"\0" + LOOP
        os.write(fd, struct.pack("<IIQ", 0, 16 + len(body), now) + body)
    # Runtimes map the file executable: that MMAP2 is the announcement.
    global dump_mapping
    dump_mapping = mmap.mmap(fd, os.fstat(fd).st_size, prot=mmap.PROT_READ | mmap.PROT_EXEC,
                             flags=mmap.MAP_PRIVATE)


def burn(seconds):
    hot = ctypes.CFUNCTYPE(None)(code_address)
    cold = ctypes.CFUNCTYPE(None)(code_address + 64)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(3):
            for _ in range(50):
                hot()
        for _ in range(50):
            cold()


def main(argv):
    print("pid %d" % pid, flush=True)
    i = 0
    while i < len(argv):
        step = argv[i]
        arg = argv[i + 1] if i + 1 < len(argv) else None
        i += 1
        if step == "plant-symlink":
            os.symlink(arg, map_path)
        elif step == "plant-fifo":
            os.mkfifo(map_path)
            continue
        elif step == "plant-hardlink":
            os.link(arg, map_path)
        elif step == "map":
            append_map(int(arg))
        elif step == "rename":
            with open(map_path, "a") as f:
                f.write("%x %x %s\n" % (code_address, 64, arg))
        elif step == "jitdump":
            jitdump(arg)
        elif step == "mmap":
            make_code()
            continue
        elif step == "burn":
            burn(float(arg))
        elif step == "sleep":
            time.sleep(float(arg))
        elif step == "ready":
            open(arg, "w").close()
        elif step == "wait":
            while not os.path.exists(arg):
                time.sleep(0.02)
        elif step == "unlink":
            os.unlink(map_path)
            continue
        else:
            sys.exit("jit-fake: unknown step " + step)
        i += 1


main(sys.argv[1:])
