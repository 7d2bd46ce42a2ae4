#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian trixie root with LLVM for the clang side of `make check-w1`:
# the kernel needs LLVM >= 17 (scripts/min-tool-version.sh) and Debian 12,
# the host, has 16 at most.  Made once in $CACHE/llvm-root with debootstrap
# from this machine's own Debian mirror, with Debian's binary packages only.
#
#   scripts/check/llvm-root.sh              make the root if missing, print its path
#   scripts/check/llvm-root.sh run CMD...   run CMD in it, $CACHE bind-mounted at
#                                     the same path (private mount namespace)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

ROOT=$CACHE/llvm-root
SUITE=trixie
PKGS=bc,bison,ccache,clang,flex,libelf-dev,libssl-dev,lld,llvm,make,perl,python3,sparse

make_root() {
	[ -x "$ROOT/usr/bin/clang" ] && return 0
	log "debootstrap $SUITE into $ROOT (clang, lld, llvm)"
	rm -rf "$ROOT.tmp"
	debian_root "$SUITE" "$ROOT.tmp" "$PKGS" "$CACHE/llvm-root.log"
	rm -rf "$ROOT.tmp/var/cache/apt/archives/"*.deb
	mv "$ROOT.tmp" "$ROOT"
}

make_root
if [ "${1:-}" != run ]; then
	echo "$ROOT"
	exit 0
fi
shift
mkdir -p "$ROOT$CACHE"
# shellcheck disable=SC2016 # expanded by the inner shell
exec unshare -m sh -c 'mount --bind "$1" "$2$1" && mount -t proc proc "$2/proc" &&
	root=$2 && shift 2 && exec chroot "$root" "$@"' sh "$CACHE" "$ROOT" \
	env -i PATH=/usr/bin:/bin HOME=/ CCACHE_DIR="$CCACHE_DIR" "$@"
