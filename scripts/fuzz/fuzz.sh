#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fuzz.sh [--build | -s SEED] [-t SECONDS] [-n DEVICES]: build scripts/fuzz/ifa_fuzz.c
# into $CACHE/fuzz/ifa_fuzz if it is missing or older than the source (on
# the host: the VM's root is read-only), then run it as root, in the VM or
# on a scratch machine.  ifa_fuzz works in its own network namespace; its
# exit status is 0 (no invariant violated) or 1.  Exit 4 (kselftest skip)
# when not root.
set -eu

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${CACHE:-/var/cache/netseries}
SRC_C=$TOP/scripts/fuzz/ifa_fuzz.c
BIN=$CACHE/fuzz/ifa_fuzz
KSFT_SKIP=4

if [ ! -x "$BIN" ] || { [ -f "$SRC_C" ] && [ "$SRC_C" -nt "$BIN" ]; }; then
	if mkdir -p "$(dirname "$BIN")" 2>/dev/null &&
		[ -w "$(dirname "$BIN")" ] && command -v "${CC:-cc}" >/dev/null; then
		tmp=$BIN.tmp.$$
		"${CC:-cc}" -O2 -Wall -Wextra -Werror -o "$tmp" "$SRC_C" || {
			rm -f "$tmp"
			exit 1
		}
		mv -f "$tmp" "$BIN"
		echo "fuzz.sh: built $BIN" >&2
	elif [ -x "$BIN" ]; then
		echo "fuzz.sh: warning: $BIN is older than $SRC_C and cannot be rebuilt here" >&2
	else
		echo "fuzz.sh: $BIN missing and cannot be built here (build it on the host)" >&2
		exit 1
	fi
fi

# --build: build only (on the host, before a VM run).
[ "${1:-}" != --build ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "fuzz.sh: SKIP: ifa_fuzz needs root (network namespace, netlink)" >&2
	exit "$KSFT_SKIP"
fi

exec "$BIN" "$@"
