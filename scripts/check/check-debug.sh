#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-debug`: the same loop with a debug kernel (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_NET, kmemleak: scripts/check/debug.config)
# built in its own tree, $CACHE/build-debug.  The run fails on any
# BUG/WARNING/KASAN/lockdep report in the guest log (scripts/vm/vm-exec.sh) and
# on kmemleak's suspected leaks after a final scan (scripts/vm/vm-init.sh).
# Then random address layouts and deletes, and random adds (check-diff's
# IPv4 and add layers), from its generator with a fixed seed (DEBUG_SEED,
# 1; DEBUG_SCENARIOS, 60, of each layer), run on the same kernel: they
# must all complete without a report.
#
# DEBUG_SERIES=N-TREE-TOPIC: that series alone on the base (a net fix is
# proven as -stable takes it: apply.sh's SERIES_ONLY), built in
# $CACHE/build-debug-N-TREE-TOPIC, running only the selftest scripts the
# series adds (SELFTESTS) and the upstream ones; no random layouts (they
# delete with the other series' uapi).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

S=$TOP/scripts
export BUILD=$CACHE/build-debug
series=${DEBUG_SERIES:-}
if [ -n "$series" ]; then
	[ -d "$TOP/patches/$series" ] || die "DEBUG_SERIES: no series patches/$series"
	export SERIES_ONLY=$series BUILD=$CACHE/build-debug-$series
	# The selftests the series adds: scripts only (selftests_only).
	SELFTESTS=$(sed -n "s|^ create mode [0-7]* $NETDIR/||p" \
		"$TOP/patches/$series"/0000-cover-letter.patch | tr '\n' ' ')
	[ -n "$SELFTESTS" ] || die "DEBUG_SERIES: $series adds no selftest"
	export SELFTESTS
fi
export EXTRA_CONFIG=$TOP/scripts/check/debug.config
# KASAN under TCG: give each selftest more time (ifa_flush.sh, with its
# IPv6 half, came within the default 3600 s of selftests/settings on a
# busy host), and the VM more than their sum.
export KSFT_TIMEOUT=${KSFT_TIMEOUT:-7200}
export VM_TIMEOUT=${VM_TIMEOUT:-10800} VM_MEM=${VM_MEM:-3G}
export KMEMLEAK_SCAN=1
kernel_up_to_date
rc=0
step "boot and run selftests (debug kernel${series:+, $series alone})" \
	"$S/loop/selftests-in-vm.sh" || rc=1
if [ -n "$series" ]; then
	# The tree holds the whole series again for what comes next.
	SERIES_ONLY='' "$S/loop/apply.sh" >/dev/null || rc=1
	exit "$rc"
fi
out=$(new_run debug-scenarios)
n=${DEBUG_SCENARIOS:-60}
"$S/check/diff-scenarios.sh" gen "${DEBUG_SEED:=1}" "$n" 0 "$n" >"$out/scenarios"
n=$((2 * n))
step "random address layouts, deletes and adds (debug kernel, seed $DEBUG_SEED, $n scenarios)" \
	env VM_OUT="$out" VM_ENV=KMEMLEAK_SCAN "$S/vm/vm-exec.sh" \
	"$S/check/diff-scenarios.sh" run "$out/scenarios" /run/out/states || rc=1
done=$(grep -cE '^### scenarioa? ' "$out/states" || true)
log "$done of $n scenarios ran (states: $out/states)"
[ "$done" = "$n" ] || rc=1
exit "$rc"
