#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-ksrc`: prove the README's recipe for a real tree,
# `make check KSRC=/path/to/net-next CACHE=/some/other/cache`, on a host
# where the default cache does not exist: in a private mount namespace an
# empty tmpfs hides $CACHE, and `make check` runs with KSRC set to a clone
# of the base commit (standing in for net-next) and a cache of its own.
# Anything that still reads the default cache (on the host or in the VM)
# finds it empty and fails.  A cold kernel build: not part of `make check`.
# The other cache is /var/tmp/netseries-alt-cache, emptied first.  The check runs from a clone of this repository's HEAD ($alt.repo), so
# that edits in the working tree meanwhile do not leak into it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" -eq 0 ] || die "a private mount namespace needs root"
alt=/var/tmp/netseries-alt-cache
ksrc=$alt.ksrc
git -C "$SRC" rev-parse -q --verify "$BASE_BRANCH" >/dev/null ||
	die "no base tree in $SRC: run make first"
rm -rf "$alt" "$ksrc" "$alt.repo"
git clone -q --single-branch -b "$BASE_BRANCH" "$SRC" "$ksrc"
git clone -q "$TOP" "$alt.repo"
t0=$(date +%s)
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m sh -c 'mount -t tmpfs -o size=1m none "$1" &&
	exec make -C "$2" check KSRC="$3" CACHE="$4"' sh \
	"$CACHE" "$alt.repo" "$ksrc" "$alt" 2>&1 | tee "$alt.log"
rc=${PIPESTATUS[0]}
log "make check KSRC=$ksrc CACHE=$alt with $CACHE hidden: exit $rc" \
	"after $(($(date +%s) - t0))s; log: $alt.log"
exit "$rc"
