#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-fresh`: prove that `make check` passes the first time on a
# fresh machine, without trusting this host.  A minimal Debian root of the
# host's own release (debootstrap --variant=minbase, plus only git, make
# and ca-certificates, as a new user's container would have) with this
# machine's apt sources, a clone of this repository's HEAD in it, an empty
# cache, no git identity; then `make check` inside it (chroot in a private
# mount namespace), timed.  Everything else the loop needs it must install
# itself.  Not part of `make check` (a cold kernel build: 15-25 minutes).
#
#   FRESH_ROOT  where the root is made (default /var/tmp/netseries-fresh;
#               removed and made again on every run)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" -eq 0 ] || die "debootstrap and chroot need root"
ROOT=${FRESH_ROOT:-/var/tmp/netseries-fresh}
# shellcheck disable=SC1091 # the host's, not ours
SUITE=$(. /etc/os-release && echo "$VERSION_CODENAME")

t0=$(date +%s)
log "debootstrap $SUITE (minbase + git, make, ca-certificates) into $ROOT"
rm -rf "$ROOT"
debian_root "$SUITE" "$ROOT" git,make,ca-certificates "$ROOT.log"
# The machine's own apt sources and resolver, nothing else of the host.
rm -f "$ROOT/etc/apt/sources.list"
cp -a /etc/apt/sources.list /etc/apt/sources.list.d "$ROOT/etc/apt/" 2>/dev/null || true
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
git clone -q "$TOP" "$ROOT/work/repo"
log "root ready in $(($(date +%s) - t0))s; make check inside it"

t1=$(date +%s)
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m sh -c 'root=$1 && mount --rbind /dev "$root/dev" &&
	mount -t proc proc "$root/proc" && mount -t sysfs sysfs "$root/sys" &&
	exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		TERM=dumb sh -c "cd /work/repo && make check"' sh "$ROOT" \
	2>&1 | tee "$ROOT.check.log"
rc=${PIPESTATUS[0]}
log "make check in the fresh root: exit $rc after $(($(date +%s) - t1))s" \
	"(root made in $((t1 - t0))s); log: $ROOT.check.log"
tail -n 1 "$ROOT.check.log"
exit "$rc"
