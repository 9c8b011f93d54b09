#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perf script text to collapsed stacks, by the rules of FlameGraph's
stackcollapse-perf.pl (github.com/brendangregg/FlameGraph, 41fee1f, 2024)
with its default options, for tests/test-report-script.sh: Debian has no
package of the FlameGraph scripts.  Each rule below is one of the script's,
its regular expressions as they are there (Perl's and Python's agree on
them):

  - '#' lines are skipped; a blank line ends a sample;
  - a sample's first line is '^(\\S.+?)\\s+(\\d+)/*(\\d+)*\\s+' (comm,
    pid or tid); ':\\s*(\\d+)*\\s+(\\S+):\\s*$' gives its period and event;
    only the first event seen is kept; a missing or zero period counts 1;
    the comm's spaces become '_';
  - a frame line is '^\\s*(\\w+)\\s*(.+) \\((.*)\\)' (address, symbol,
    DSO); '+0x..' is cut off the symbol's end; a symbol in parentheses is
    skipped; it is split at '->', the parts after the first marked '_[i]';
    '[unknown]' becomes the DSO's base name in brackets ('[unknown]' when
    the DSO is '[unknown]' too); ';' becomes ':', whatever follows the first
    '(' is cut (but '(anonymous namespace)' and Go's 'pkg.(*T).M'), quotes
    are removed; a java process's 'L' before a '/' name is dropped;
  - the stack is the comm, then the frames from the outermost, and the
    stacks' periods are added up; printed sorted, 'stack count'.

--samples counts each sample once, whatever its period (what the script
does with text that prints none): the folded view's counts.

--tidy-folded reads collapsed stacks (perfrec-report --view=folded) and
applies the same tidying to their names (the comm's spaces, each frame's
name before its "_[i]" or "_[k]"), adding up the stacks that become one:
what the script makes of the same names.
"""
import re
import sys

HEADER = re.compile(r'^(\S.+?)\s+(\d+)/*(\d+)*\s+')
PERIOD_EVENT = re.compile(r':\s*(\d+)*\s+(\S+):\s*$')
FRAME = re.compile(r'^\s*(\w+)\s*(.+) \((.*)\)')


def tidy(func, pname):
    func = func.replace(';', ':')
    if not re.search(r'\.\(.*\)\.', func):
        func = re.sub(r'\((?!anonymous namespace\)).*', '', func)
    func = func.replace('"', '').replace("'", '')
    if pname.startswith('java') and '/' in func:
        func = re.sub(r'^L', '', func)
    return func


def collapse(lines, samples_only):
    collapsed = {}
    stack = []
    pname = None
    period = 1
    event_filter = ''
    for line in lines:
        if line.startswith('#'):
            continue
        line = line.rstrip('\n')
        if line == '':
            if not pname:
                continue
            stack.insert(0, pname)
            key = ';'.join(stack)
            collapsed[key] = collapsed.get(key, 0) + period
            stack = []
            pname = None
            continue
        m = HEADER.match(line)
        if m:
            comm = m.group(1)
            this_period = ''
            pe = PERIOD_EVENT.search(line)
            if pe:
                this_period = pe.group(1) or ''
                event = pe.group(2)
                if event_filter == '':
                    event_filter = event
                elif event != event_filter:
                    continue
            period = 1 if samples_only or not this_period or int(this_period) == 0 \
                else int(this_period)
            pname = comm.replace(' ', '_')
            continue
        m = FRAME.match(line)
        if not m:
            print('Unrecognized line: ' + line, file=sys.stderr)
            continue
        if not pname:
            continue
        rawfunc, mod = m.group(2), m.group(3)
        rawfunc = re.sub(r'\+0x[\da-f]+$', '', rawfunc)
        if rawfunc.startswith('('):
            continue
        inline = []
        for func in rawfunc.split('->'):
            if func == '[unknown]':
                func = '[' + re.sub(r'.*/', '', mod) + ']' if mod != '[unknown]' else '[unknown]'
            func = tidy(func, pname)
            if inline and '_[i]' not in func:
                func += '_[i]'
            inline.append(func)
        stack[0:0] = inline
    for key in sorted(collapsed):
        print('%s %d' % (key, collapsed[key]))


def tidy_folded(lines):
    collapsed = {}
    for line in lines:
        stack, count = line.rstrip('\n').rsplit(' ', 1)
        frames = stack.split(';')
        pname = frames[0].replace(' ', '_')
        out = [pname]
        for frame in frames[1:]:
            suffix = frame[-4:] if frame[-4:] in ('_[i]', '_[k]') else ''
            out.append(tidy(frame[:len(frame) - len(suffix)], pname) + suffix)
        key = ';'.join(out)
        collapsed[key] = collapsed.get(key, 0) + int(count)
    for key in sorted(collapsed):
        print('%s %d' % (key, collapsed[key]))


if __name__ == '__main__':
    options = ('--samples', '--tidy-folded')
    args = [a for a in sys.argv[1:] if a not in options]
    with open(args[0], encoding='utf-8', errors='surrogateescape') if args else sys.stdin as f:
        if '--tidy-folded' in sys.argv[1:]:
            tidy_folded(f)
        else:
            collapse(f, '--samples' in sys.argv[1:])
