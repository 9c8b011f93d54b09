#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the times of compact samples cost, and what they could cost.

    perfrec-dump FILE | bench/time-column.py

For each way of predicting a sample's time, the times column alone as
perfrec writes it (varints of zigzag(time - predicted), a column per
chunk, each compressed alone with `zstd -3`), in bytes a sample:

  previous     the previous sample's time (format 1.2's COMPACT_SAMPLES)
  cpu          the same CPU's previous time, no period added
  cpu+period   the same CPU's previous time plus the sample's period
               (format 1.3's COMPACT_SAMPLES_BY_CPU for a clock event)
  cpu+interval the same CPU's previous time plus its previous interval

and, for cpu+period, an estimate of the residuals' entropy that no
lossless layout goes below: their distribution in buckets of 16 ns, the
low 4 bits counted as uniform (the clock's nanoseconds are noise there).
Needs the zstd program.
"""
import collections
import math
import re
import subprocess
import sys

LINE = re.compile(r'^chunk=(\d+) .* SAMPLE time=(\d+)\.(\d+) cpu=(\d+) .* period=(\d+)')


def varint(value, out):
    while value >= 0x80:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)


def zigzag(delta):
    return delta << 1 if delta >= 0 else ((-delta) << 1) - 1


def zstd_size(data):
    return len(subprocess.run(['zstd', '-3', '-c', '-q'], input=bytes(data),
                              capture_output=True, check=True).stdout)


def main():
    chunks = collections.defaultdict(list)
    for line in sys.stdin:
        m = LINE.match(line)
        if m:
            chunk, sec, nsec, cpu, period = m.groups()
            chunks[int(chunk)].append((int(sec) * 10**9 + int(nsec), int(cpu), int(period)))
    ways = ('previous', 'cpu', 'cpu+period', 'cpu+interval')
    stored = collections.Counter()
    residuals = []
    samples = 0
    for chunk in chunks.values():
        columns = {way: bytearray() for way in ways}
        previous, last, interval = 0, {}, {}
        for time, cpu, period in chunk:
            seen = cpu in last
            predicted = {
                'previous': previous,
                'cpu': last[cpu] if seen else previous,
                'cpu+period': last[cpu] + period if seen else previous,
                'cpu+interval': last[cpu] + interval.get(cpu, period) if seen else previous,
            }
            for way in ways:
                varint(zigzag(time - predicted[way]), columns[way])
            if seen:
                residuals.append(zigzag(time - predicted['cpu+period']))
                interval[cpu] = time - last[cpu]
            previous, last[cpu] = time, time
        samples += len(chunk)
        for way in ways:
            stored[way] += zstd_size(columns[way])
    if not samples:
        sys.exit('time-column.py: no samples in the dump on stdin')
    for way in ways:
        print(f'{way:13s} {stored[way] / samples:6.3f} B/sample')
    buckets = collections.Counter(r >> 4 for r in residuals)
    n = len(residuals)
    entropy = -sum(c / n * math.log2(c / n) for c in buckets.values()) + 4
    print(f'entropy of cpu+period residuals (16 ns buckets + 4 bits): {entropy / 8:.3f} B/sample '
          f'({samples} samples, {len(chunks)} chunks)')


if __name__ == '__main__':
    main()
