#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile perf.data files that cost time or memory rather than bytes, for
tests/test-report-perfdata-hostile.sh: written by hand after perf's layout
(tools/perf/Documentation/perf.data-file-format.txt).  Usage: DIR."""
import os
import struct
import subprocess
import sys
import threading

SAMPLE, COMM = 9, 3
HEADER_ATTR, EVENT_UPDATE, COMPRESSED = 64, 78, 81
FEAT_EVENT_DESC, FEAT_COMPRESSED = 12, 27
# IP | TID | TIME | PERIOD, no ids: every record is the first event's
SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x100


def attr(config=0):
    # type hardware, size VER0 (64), config, sample_period, sample_type
    a = struct.pack('<IIQQQ', 0, 64, config, 4000, SAMPLE_TYPE)
    return a + bytes(64 - len(a))


def record(kind, body, misc=2):
    body += bytes(-len(body) % 8)
    return struct.pack('<IHH', kind, misc, 8 + len(body)) + body


def samples(n, pid=4242):
    out = record(COMM, struct.pack('<II', pid, pid) + b'victim\0')
    for i in range(n):
        out += record(SAMPLE, struct.pack('<QIIQQ', 0x400000 + 16 * (i % 7), pid, pid,
                                          1000000 + i, 4000))
    return out


def string(s):
    b = s.encode() + b'\0'
    b += bytes(-len(b) % 8)
    return struct.pack('<I', len(b)) + b


def build_file(events, ids_blob, data, features):
    """events: [(attr, index into ids_blob in ids, count)]."""
    entry = 80
    attrs_at = 104
    ids_at = attrs_at + entry * len(events)
    data_at = ids_at + len(ids_blob)
    table_at = data_at + len(data)
    bits = sorted(features)
    section_at = table_at + 16 * len(bits)
    table, sections = b'', b''
    for bit in bits:
        table += struct.pack('<QQ', section_at + len(sections), len(features[bit]))
        sections += features[bit]
    attrs = b''.join(a + struct.pack('<QQ', ids_at + 8 * first, 8 * count)
                     for a, first, count in events)
    bitmap = [0, 0, 0, 0]
    for bit in bits:
        bitmap[bit // 64] |= 1 << (bit % 64)
    head = b'PERFILE2' + struct.pack('<QQ', 104, entry)
    head += struct.pack('<QQQQQQ', attrs_at, len(attrs), data_at, len(data), 0, 0)
    head += struct.pack('<4Q', *bitmap)
    return head + attrs + ids_blob + data + table + sections


def event_desc_quadratic():
    """4096 events sharing one array of 256 ids (1 M ids in all, in a few KiB),
    then 4096 event descriptions, each an id to look for among them all."""
    n, ids = 4096, 256
    blob = b''.join(struct.pack('<Q', 1000 + i) for i in range(ids))
    events = [(attr(), 0, ids) for _ in range(n)]
    desc = struct.pack('<II', n, 64)
    for i in range(n):
        desc += attr() + struct.pack('<I', 1) + string('ev%d' % i) + struct.pack('<Q', 7)
    return build_file(events, blob, samples(24), {FEAT_EVENT_DESC: desc})


def pipe_update_quadratic():
    """Pipe mode: 128 HEADER_ATTRs of 8000 ids each, then 100000 EVENT_UPDATEs,
    each a name for an id no event has."""
    out = b'PERFILE2' + struct.pack('<Q', 16)
    for e in range(128):
        ids = b''.join(struct.pack('<Q', 1 + e * 8000 + i) for i in range(8000))
        out += record(HEADER_ATTR, attr() + ids, misc=0)
    update = record(EVENT_UPDATE, struct.pack('<QQ', 1, 0) + b'name\0', misc=0)
    out += update * 100000
    return out + samples(24)


def compressed(frame, feature=True):
    """The data: COMPRESSED records carrying frame, 65000 bytes of it each."""
    data = b''
    for at in range(0, len(frame), 65000):
        data += record(COMPRESSED, frame[at:at + 65000], misc=0)
    events = [(attr(), 0, 0)]
    features = {}
    if feature:
        # version, type zstd, level, ratio, mmap_len 1 MiB
        features[FEAT_COMPRESSED] = struct.pack('<IIIII', 1, 1, 1, 1, 1 << 20) + bytes(4)
    return build_file(events, b'', samples(24) + data, features)


def zstd(source_command):
    return subprocess.run(['sh', '-c', source_command + ' | zstd -q -c'], check=True,
                          stdout=subprocess.PIPE).stdout


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        'event-desc-quadratic': event_desc_quadratic(),
        'pipe-update-quadratic': pipe_update_quadratic(),
        # 4 GiB of zeros: records of size 0 once inflated
        'zstd-bomb-zeros': compressed(zstd('head -c 4G /dev/zero')),
    }
    # 1.3 GiB of one sound sample record, repeated, in 120 KiB of file
    one = samples(1)[-40:] * (1 << 14)
    z = subprocess.Popen(['zstd', '-q', '-c'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def feed():
        for _ in range(1 << 11):
            z.stdin.write(one)
        z.stdin.close()

    feeder = threading.Thread(target=feed)
    feeder.start()
    files['zstd-bomb-samples'] = compressed(z.stdout.read())
    feeder.join()
    z.wait()
    for name, data in files.items():
        with open(os.path.join(out, name + '.data'), 'wb') as f:
            f.write(data)


main()
