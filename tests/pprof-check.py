#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks a pprof profile, as `protoc --decode=perftools.profiles.Profile`
prints it (on stdin), against the rules the profile servers enforce beyond
pprof's own:

  - string_table[0] is "" (profile.proto);
  - mapping, location and function ids are 1..N in array order (Parca);
  - sample type names have no '-' (Pyroscope);
  - every string is valid UTF-8 (protobuf's proto3 strings; Go refuses others);
and that every reference (string index, location, mapping, function id)
points at something, and every sample has a value per sample type.

Prints one line of counts and exits 0, or prints each broken rule and exits 1.
Usage: protoc --decode=... profile.proto <raw | pprof-check.py
"""
import codecs
import sys


def parse(lines):
    """protoc's text format: nested `name {` ... `}` blocks of `key: value`."""
    root = {}
    stack = [root]
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            child = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(child)
            stack.append(child)
        elif line == "}":
            stack.pop()
        else:
            key, _, value = line.partition(": ")
            stack[-1].setdefault(key, []).append(value)
        if not stack:
            raise SystemExit("pprof-check: unbalanced braces at line %d" % number)
    return root


def text_bytes(value):
    """A quoted string of protoc's output as its bytes (C escapes, octal)."""
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        raise ValueError("not a quoted string: %r" % value)
    return codecs.escape_decode(value[1:-1].encode("ascii"))[0]


def number(message, key, default=0):
    values = message.get(key)
    return int(values[0]) if values else default


def main():
    profile = parse(sys.stdin.read().splitlines())
    problems = []
    strings = [text_bytes(s) for s in profile.get("string_table", [])]
    if not strings or strings[0] != b"":
        problems.append("string_table[0] is not \"\"")
    for index, s in enumerate(strings):
        try:
            s.decode("utf-8", errors="strict")
        except UnicodeDecodeError as error:
            problems.append("string_table[%d] is not UTF-8 (%s): %r" % (index, error.reason, s))

    def string(index, what):
        if not 0 <= index < len(strings):
            problems.append("%s: string index %d out of the table (%d)" % (what, index, len(strings)))
            return b""
        return strings[index]

    counts = {}
    for kind in ("mapping", "location", "function"):
        items = profile.get(kind, [])
        counts[kind] = len(items)
        for position, item in enumerate(items, 1):
            if number(item, "id") != position:
                problems.append("%s %d of the array has id %d: ids are not 1..N in order"
                                % (kind, position, number(item, "id")))
                break

    types = profile.get("sample_type", [])
    if not types:
        problems.append("no sample_type")
    for t in types:
        name = string(number(t, "type"), "sample_type")
        string(number(t, "unit"), "sample_type unit")
        if b"-" in name:
            problems.append("sample type name %r has a '-'" % name)
    for t in profile.get("period_type", []):
        string(number(t, "type"), "period_type")

    for m in profile.get("mapping", []):
        string(number(m, "filename"), "mapping filename")
        string(number(m, "build_id"), "mapping build_id")
        if number(m, "memory_limit") and number(m, "memory_limit") <= number(m, "memory_start"):
            problems.append("mapping %d: memory_limit <= memory_start" % number(m, "id"))
    for f in profile.get("function", []):
        for key in ("name", "system_name", "filename"):
            string(number(f, key), "function " + key)
    for l in profile.get("location", []):
        mapping = number(l, "mapping_id")
        if mapping > counts["mapping"]:
            problems.append("location %d: no mapping %d" % (number(l, "id"), mapping))
        for line in l.get("line", []):
            if not 1 <= number(line, "function_id") <= counts["function"]:
                problems.append("location %d: no function %d"
                                % (number(l, "id"), number(line, "function_id")))
    samples = profile.get("sample", [])
    for i, s in enumerate(samples):
        if len(s.get("value", [])) != len(types):
            problems.append("sample %d: %d values for %d sample types"
                            % (i, len(s.get("value", [])), len(types)))
        for location in s.get("location_id", []):
            if not 1 <= int(location) <= counts["location"]:
                problems.append("sample %d: no location %s" % (i, location))
        for label in s.get("label", []):
            string(number(label, "key"), "label key")
            string(number(label, "str"), "label str")
    for c in profile.get("comment", []):
        string(int(c), "comment")

    if problems:
        for p in problems[:20]:
            print("pprof-check: " + p)
        if len(problems) > 20:
            print("pprof-check: ... and %d more" % (len(problems) - 20))
        return 1
    print("pprof-check: ok: %d strings, %d mappings, %d locations, %d functions, %d samples, types %s"
          % (len(strings), counts["mapping"], counts["location"], counts["function"], len(samples),
             ",".join(string(number(t, "type"), "").decode() + "/" +
                      string(number(t, "unit"), "").decode() for t in types)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
