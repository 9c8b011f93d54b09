#!/bin/sh
# Installs what perfrec needs to build and test on Debian 12.
set -eu
packages="build-essential autoconf automake pkg-config libelf-dev libdw-dev
	libzstd-dev check libiberty-dev libdebuginfod-dev debuginfod elfutils linux-perf manpages-dev groff-base
	clang libclang-rt-14-dev libc6-dbg python3 systemd util-linux zstd
	systemd-container debootstrap"
if [ "$(id -u)" -ne 0 ]; then
	echo "setup-debian.sh: run as root (apt-get install)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $packages >/dev/null
