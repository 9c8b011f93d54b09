#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The files a hostile user can give perfrecd to read, for
# test-attacks-jit and test-attacks-bincache: N processes, each mapping
# anonymous executable memory (which makes perfrecd look for its perf
# map) after writing one of
#
#   map BYTES       /tmp/perf-PID.map of BYTES in lines with random names
#                   (zstd cannot shrink them), the first few naming the
#                   code memory
#   sparse BYTES    /tmp/perf-PID.map, a sparse file of BYTES without a
#                   newline
#   jitdump BYTES   DIR/jit-PID.dump of 16-byte records (the smallest a
#                   jitdump record can be), announced by mapping it
#   loads BYTES     DIR/jit-PID.dump of code loads with one-letter names
#                   (58 bytes, the smallest that make a line)
#   small           /tmp/perf-PID.map of one line
#   binary BYTES    DIR/bin-PID, a copy of /bin/true with a build-id of its
#                   own, padded to BYTES, mapped executable and deleted:
#                   perfrecd's binary cache copies what it cannot reach
#
#   jit-flood.py [--procs N] [--dir DIR] --ready FILE --stop FILE KIND [BYTES]
#
# Writes the children's pids to FILE.pids, creates FILE when all are set
# up, and waits until the stop file exists; the children then delete
# their files and exit.  A child also exits when its parent dies, when
# the stop file's directory is gone, or after 5 minutes.
import argparse
import ctypes
import mmap
import os
import struct
import sys
import time

PR_SET_PDEATHSIG = 1
JITDUMP_MAGIC = 0x4A695444


def write_map(path, size, code):
    # "START SIZE NAME": names of 32 random hex digits, 61 bytes a line or so
    with open(path, "w") as f:
        written = 0
        index = 0
        while written < size:
            chunk = []
            for _ in range(4096):
                line = "%x 40 jitflood_%d_%s\n" % (code + 64 * (index % 64), index,
                                                   os.urandom(16).hex())
                chunk.append(line)
                index += 1
            text = "".join(chunk)
            if written + len(text) > size:
                # whole lines only: the map ends with a newline
                text = text[:size - written]
                text = text[:text.rfind("\n") + 1]
                f.write(text)
                break
            f.write(text)
            written += len(text)


def write_sparse(path, size):
    with open(path, "w") as f:
        f.truncate(size)


def write_jitdump(path, size, loads=False):
    fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_RDWR, 0o600)
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    os.write(fd, struct.pack("<IIIIIIQQ", JITDUMP_MAGIC, 1, 40, 62, 0, os.getpid(), now, 0))
    if loads:
        # id 0 (code load): pid, tid, vma, code_addr, code_size, index, "f\0"
        body = struct.pack("<IIQQQQ", os.getpid(), os.getpid(), 0x1000, 0x1000, 16, 0) + b"f\0"
        record = struct.pack("<IIQ", 0, 16 + len(body), now) + body
    else:
        # id 99 (no code load), total_size 16: a record that is its own prefix
        record = struct.pack("<IIQ", 99, 16, now)
    block = record * 65536
    left = (size - 40) // len(record)
    while left > 0:
        count = min(left, 65536)
        os.write(fd, block[:len(record) * count])
        left -= count
    return fd


def write_binary(path, size):
    image = bytearray(open("/bin/true", "rb").read())
    # the GNU build-id note: namesz 4, descsz 20, type 3, "GNU"
    note = image.find(b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00")
    if note < 0:
        sys.exit("jit-flood: /bin/true has no 20-byte build-id")
    image[note + 16:note + 36] = os.urandom(20)
    with open(path, "wb") as f:
        f.write(image)
        f.truncate(max(size, len(image)))
    fd = os.open(path, os.O_RDONLY)
    mapping = mmap.mmap(fd, 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC)
    os.close(fd)
    os.unlink(path)
    return mapping


def child(kind, size, directory, ready_pipe, stop):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, 15, 0, 0, 0)
    pid = os.getpid()
    map_path = "/tmp/perf-%d.map" % pid
    dump_path = os.path.join(directory, "jit-%d.dump" % pid) if directory else None
    mappings = []
    try:
        code = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        address = ctypes.addressof(ctypes.c_char.from_buffer(code))
        if kind == "map":
            write_map(map_path, size, address)
        elif kind == "sparse":
            write_sparse(map_path, size)
        elif kind == "small":
            with open(map_path, "w") as f:
                f.write("%x 40 jitflood_small\n" % address)
        # Anonymous executable memory: perfrecd looks for the perf map now.
        mappings.append(mmap.mmap(-1, mmap.PAGESIZE,
                                  prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC))
        if kind == "binary":
            mappings.append(write_binary(os.path.join(directory, "bin-%d" % pid), size))
        if kind in ("jitdump", "loads"):
            fd = write_jitdump(dump_path, size, kind == "loads")
            mappings.append(mmap.mmap(fd, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_EXEC,
                                      flags=mmap.MAP_PRIVATE))
            os.close(fd)
        os.write(ready_pipe, b"r")
        os.close(ready_pipe)
        end = time.monotonic() + 300
        while (not os.path.exists(stop) and os.path.isdir(os.path.dirname(stop) or ".")
               and time.monotonic() < end):
            time.sleep(0.1)
    finally:
        for path in (map_path, dump_path):
            if path:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--procs", type=int, default=1)
    parser.add_argument("--dir")
    parser.add_argument("--ready", required=True)
    parser.add_argument("--stop", required=True)
    parser.add_argument("kind", choices=("map", "sparse", "jitdump", "loads", "small", "binary"))
    parser.add_argument("size", nargs="?", default="0")
    args = parser.parse_args()
    size = int(args.size)
    if args.kind in ("jitdump", "loads", "binary") and not args.dir:
        sys.exit("jit-flood: %s needs --dir" % args.kind)
    read_end, write_end = os.pipe()
    children = []
    for _ in range(args.procs):
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            child(args.kind, size, args.dir, write_end, args.stop)
        children.append(pid)
    os.close(write_end)
    with open(args.ready + ".pids", "w") as f:
        f.write("".join("%d\n" % pid for pid in children))
    got = 0
    while got < args.procs:
        data = os.read(read_end, 4096)
        if not data:
            break
        got += len(data)
    if got < args.procs:
        sys.exit("jit-flood: %d of %d children set up" % (got, args.procs))
    open(args.ready, "w").close()
    for pid in children:
        os.waitpid(pid, 0)


main()
