#!/bin/sh
# Installs what perfrec needs to build and test on Debian 12.
set -eu
packages="build-essential autoconf automake pkg-config libelf-dev libdw-dev
	libzstd-dev check libiberty-dev libdebuginfod-dev debuginfod elfutils linux-perf manpages-dev groff-base
	clang libclang-rt-14-dev libc6-dbg python3 systemd util-linux zstd
	zlib1g-dev golang-go golang-github-google-pprof-dev protobuf-compiler
	libxml2-utils chromium systemd-container debootstrap libcurl4-openssl-dev
	openjdk-17-jdk-headless"
# perfrecd --off-cpu is a CO-RE BPF program built at build time: clang's
# BPF target (above) compiles it, bpftool makes its skeleton, libbpf loads
# it, as perf's own --off-cpu is built.
packages="$packages libbpf-dev bpftool"
# test-report-perfdata-hotspot: KDAB hotspot's perfparser reads the
# perf.data perfrec-report writes, and hotspot itself runs on it under
# Xvfb (xvfb-run needs xauth), its window grabbed by python3-pil's XCB
# support as a screenshot.
packages="$packages hotspot xvfb xauth python3-pil"
if [ "$(id -u)" -ne 0 ]; then
	echo "setup-debian.sh: run as root (apt-get install)" >&2
	exit 1
fi
# The flame graph's browser test runs puppeteer-core on node: the node and
# npm the machine has (a newer nodejs brings its own npm, which Debian's
# npm package would conflict with), else Debian's.
# node (--perf-basic-prof) and the JDK (-XX:+DumpPerfMapAtExit) are the
# JIT runtimes test-report-jit-node and -java profile by name.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	packages="$packages nodejs npm"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $packages >/dev/null
# puppeteer-core as locked, into tests/browser/node_modules: it drives the
# chromium above and downloads no browser of its own.
cd "$(dirname "$0")/../tests/browser"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
