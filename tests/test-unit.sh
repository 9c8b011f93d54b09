#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd-analyze verify on the generated unit.  verify insists that
# ExecStart= exists, so a copy points it at the perfrecd just built; and
# that Documentation=man:perfrecd(8) resolves, so MANPATH finds the page in
# the source tree.  The security exposure is printed for information.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: systemd-analyze is not installed"
	exit 77
fi
unit=$top_builddir/systemd/perfrecd.service
daemon=$(cd "$top_builddir" && pwd)/perfrecd
for file in "$unit" "$daemon"; do
	if [ ! -f "$file" ]; then
		echo "ERROR: $file is missing (make all builds it)"
		exit 99
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sed "s|^ExecStart=[^ ]*/perfrecd|ExecStart=$daemon|" "$unit" >"$tmp/perfrecd.service"
grep "^ExecStart=$daemon" "$tmp/perfrecd.service"

man=--man=no
if command -v man >/dev/null 2>&1; then
	mkdir -p "$tmp/man/man8"
	cp "$top_srcdir/doc/perfrecd.8" "$tmp/man/man8/"
	MANPATH=$tmp/man
	export MANPATH
	man=--man=yes
fi

# Warnings count as failures: verify exits 0 on some of them.
status=0
systemd-analyze verify "$man" --recursive-errors=no "$tmp/perfrecd.service" \
	>"$tmp/verify.out" 2>&1 || status=$?
cat "$tmp/verify.out"
if [ "$status" -ne 0 ] || [ -s "$tmp/verify.out" ]; then
	echo "FAIL: systemd-analyze verify (exit $status)"
	exit 1
fi
echo "PASS: systemd-analyze verify"

# Informative only: the score rises with every capability the daemon needs.
systemd-analyze security --offline=yes "$tmp/perfrecd.service" \
	>"$tmp/security.out" 2>&1 || true
grep -i 'exposure level' "$tmp/security.out" || cat "$tmp/security.out"
exit 0
